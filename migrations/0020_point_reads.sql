-- Point reads (issue 13): what lets GET /v1/images/{id} answer with one primary-key read, and a
-- signed-in request skip its principal query.
--
-- image_docs: each image's detail document stored ready to send, in two parts:
--   * head: the fields that never change after publish, rendered once by imx_image_doc_head();
--   * tail: the fields that do (status, reason, revoke_at, patch status, updated_at, the stored
--     compatibility report), rendered by imx_image_doc_tail() from the images row;
--   * etag: '"' || md5(head || tail) || '"', the ETag the API sends;
--   * fresh_until: a scheduled revocation turns the status to revoked when revoke_at passes,
--     without a write; a stored tail is not used after that moment.
-- The publish use case (procedures/publish_images.sql) writes the row of each new image. Every
-- later UPDATE of images refreshes the tail of the rows it wrote (imx_image_docs_sync, one
-- set-based statement per UPDATE statement): bookkeeping of a copy, like the summary (0009) and
-- the search copies; it decides nothing. imx_image_json() is the same document built from
-- scratch: readers fall back to it for a row without a stored document (a catalog loaded with
-- SQL before imx_image_docs_rebuild()), and tests compare the two byte for byte.
--
-- auth_epoch: one counter moved by every write that can take a right away (a token revoked or
-- deleted, a user disabled or deleted or their admin flag changed, a membership added, changed
-- or removed). A server caches principals with the epoch it read them at; the statements of the
-- read endpoints return the current epoch beside their answer, and a different epoch sends the
-- request back through the full check (server/auth/principal_cache.c). Rights granted by
-- creating a token need no move: a new token is not in any cache.

CREATE TABLE auth_epoch (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    n        bigint NOT NULL DEFAULT 1
);
INSERT INTO auth_epoch DEFAULT VALUES;

CREATE FUNCTION imx_auth_epoch_move() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE auth_epoch SET n = n + 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER api_tokens_auth_epoch AFTER UPDATE OR DELETE ON api_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION imx_auth_epoch_move();
CREATE TRIGGER users_auth_epoch AFTER UPDATE OF is_admin, disabled_at OR DELETE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION imx_auth_epoch_move();
CREATE TRIGGER memberships_auth_epoch AFTER INSERT OR UPDATE OR DELETE ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION imx_auth_epoch_move();

-- The detail document's unchanging part: '{"id" : 1, ..., "tags" : [...]' without the closing
-- brace. Inlined into its callers, which run with TimeZone UTC whatever the session's, so that
-- every server renders the same bytes.
CREATE FUNCTION imx_image_doc_head(i images) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT left(json_build_object(
    'id', i.id, 'family', i.family, 'version', i.version,
    'team', (SELECT t.slug FROM teams t WHERE t.id = i.team_id), 'team_id', i.team_id,
    'provider', i.provider, 'architecture', i.architecture,
    'os', json_build_object('name', i.os_name, 'version', i.os_version), 'kernel', i.kernel,
    'layer', i.layer, 'parent_id', i.parent_id, 'boot_seconds', i.boot_seconds,
    'size_gb', i.size_gb, 'description', i.description, 'published_at', i.published_at,
    'components', i.components,
    'artifacts', (SELECT coalesce(json_object_agg(a.region, a.artifact_id ORDER BY a.region), '{}')
                    FROM image_artifacts a WHERE a.image_id = i.id),
    'gpus', to_json(i.gpus),
    'instance_families', (SELECT coalesce(json_agg(f.family ORDER BY f.family), '[]')
                            FROM image_instance_families f WHERE f.image_id = i.id),
    'tags', to_json(i.tags))::text, -1)
$$;

-- The changing part: ', "status" : ..., "compatibility" : {...}}', closing the object. Inlined
-- into the statements that use it (a plain expression: no per-row call when the sync trigger
-- rewrites thousands of tails); they run it with TimeZone UTC.
CREATE FUNCTION imx_image_doc_tail(i images) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT ', ' || substr(json_build_object(
    'status', imx_image_status(i.status, i.revoke_at), 'status_reason', i.status_reason,
    'revoke_at', i.revoke_at, 'patch_status', i.patch_status, 'updated_at', i.updated_at,
    'compatibility', i.compatibility)::text, 2)
$$;

-- When a tail stops being current by itself: the scheduled revocation still ahead.
CREATE FUNCTION imx_image_doc_fresh_until(i images) RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN i.revoke_at > now() THEN i.revoke_at END
$$;

-- The detail document from scratch (replaces 0004's): the definition the stored one follows.
-- Children are no longer listed here (a platform image can have thousands): /lineage lists them.
CREATE OR REPLACE FUNCTION imx_image_json(image_id bigint) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE SET TimeZone = 'UTC' AS $$
  SELECT (imx_image_doc_head(i) || imx_image_doc_tail(i))::json FROM images i WHERE i.id = image_id
$$;

CREATE TABLE image_docs (
    image_id    bigint PRIMARY KEY REFERENCES images (id) ON DELETE CASCADE,
    head        text NOT NULL,
    tail        text NOT NULL,
    etag        text NOT NULL,
    fresh_until timestamptz
);
ALTER TABLE image_docs ALTER COLUMN head SET STORAGE MAIN;
ALTER TABLE image_docs ALTER COLUMN tail SET STORAGE MAIN;

-- Writes (or rewrites) the stored documents of these images from scratch. Called by the publish
-- use case for its new images, and by whoever loads images with SQL (bench/gen_catalog.sh,
-- tools/demo.sh) for all of them (p_ids NULL). Returns how many rows it wrote.
CREATE FUNCTION imx_image_docs_write(p_ids bigint[]) RETURNS integer
LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
DECLARE
  v_n integer;
BEGIN
  IF p_ids IS NULL THEN
    p_ids := ARRAY(SELECT id FROM images ORDER BY id);
  END IF;
  INSERT INTO image_docs (image_id, head, tail, etag, fresh_until)
  SELECT x.id, x.h, x.t, '"' || md5(x.h || x.t) || '"', x.f
    FROM (SELECT i.id, imx_image_doc_head(i) AS h, imx_image_doc_tail(i) AS t,
                 imx_image_doc_fresh_until(i) AS f
            FROM unnest(p_ids) u(id) JOIN images i ON i.id = u.id) x
  ON CONFLICT (image_id) DO UPDATE
    SET head = EXCLUDED.head, tail = EXCLUDED.tail, etag = EXCLUDED.etag,
        fresh_until = EXCLUDED.fresh_until;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  RETURN v_n;
END
$$;

-- Bookkeeping: the tails of the rows an UPDATE of images wrote, in one statement.
CREATE FUNCTION imx_image_docs_sync() RETURNS trigger
LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
BEGIN
  UPDATE image_docs d
     SET tail = x.t, etag = '"' || md5(d.head || x.t) || '"', fresh_until = x.f
    FROM (SELECT n.id, imx_image_doc_tail(n) AS t, imx_image_doc_fresh_until(n) AS f
            FROM imx_images_written n) x
   WHERE d.image_id = x.id AND (d.tail <> x.t OR d.fresh_until IS DISTINCT FROM x.f);
  RETURN NULL;
END
$$;

CREATE TRIGGER images_docs_sync AFTER UPDATE ON images REFERENCING NEW TABLE AS imx_images_written
  FOR EACH STATEMENT EXECUTE FUNCTION imx_image_docs_sync();

SELECT imx_image_docs_write(NULL);
