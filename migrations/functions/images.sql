-- SQL functions: the images table's copies and summaries, and the triggers that keep them
-- (tables in 0004_catalog.sql, 0009_image_summary.sql, 0010_search_index.sql). Re-applied by
-- server/db/migrate.c whenever this file changes.
-- Callers: server/db/images.c (imx_image_json, imx_image_status, imx_image_summary; the search
-- statements of server/db/images_search.h inline imx_image_summary); server/db/requests.c
-- (imx_image_summary of a request's matches); trigger functions
-- imx_image_denorm (0004's copy triggers), imx_image_summary_store (0009), imx_image_written,
-- imx_image_index_commit, imx_image_index_deleted (0010); bench/gen_catalog.sh calls
-- imx_image_denorm_refresh after a load with the triggers off.

-- The entries of an image's components listed more than once (0199_component_entries.sql):
-- [{name, version, gpus}] in (name, entry) order, NULL when every component is listed once.
-- images.components gives such a name all its entries, [{version, gpus}], instead of a version.
CREATE OR REPLACE FUNCTION imx_image_component_entries(p_image bigint) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_agg(jsonb_build_object('name', c.name, 'version', c.version,
                                      'gpus', to_jsonb(c.gpus)) ORDER BY c.name, c.entry)
    FROM image_components c
   WHERE c.image_id = p_image
     AND EXISTS (SELECT 1 FROM image_components o
                  WHERE o.image_id = c.image_id AND o.name = c.name AND o.entry = 2)
$$;

-- The version keys of entries 2..n, {name: [key, ...]} (NULL when none): search matches a
-- constraint against these as well as against component_keys (entry 1).
CREATE OR REPLACE FUNCTION imx_image_component_alt_keys(p_image bigint) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_object_agg(x.name, x.keys)
    FROM (SELECT c.name, jsonb_agg(imx_version_key_num(c.version_key) ORDER BY c.entry) AS keys
            FROM image_components c WHERE c.image_id = p_image AND c.entry > 1
           GROUP BY c.name) x
$$;

-- images.gpus, regions, tags, components and component_keys follow their child tables: after
-- every statement that writes one (publish, tests, the demo), the images it touched are
-- recomputed from that table, in the same transaction. Images are immutable after publish, so
-- this runs a handful of times per image. imx_image_denorm_refresh(ids, NULL) recomputes every
-- copy at once (bench/gen_catalog.sh loads with the triggers off, then calls it).
CREATE OR REPLACE FUNCTION imx_image_denorm_refresh(ids bigint[], tbl text) RETURNS void
LANGUAGE sql AS $$
  UPDATE images i SET
    components = CASE WHEN tbl IS NULL OR tbl = 'image_components' THEN
      coalesce((SELECT json_object_agg(c.name, CASE WHEN c.gpus IS NULL THEN to_json(c.version)
                  ELSE (SELECT json_agg(json_build_object('version', e.version,
                                                          'gpus', to_json(e.gpus)) ORDER BY e.entry)
                          FROM image_components e WHERE e.image_id = c.image_id
                           AND e.name = c.name) END ORDER BY c.name)
                  FROM image_components c WHERE c.image_id = i.id AND c.entry = 1), '{}')
      ELSE i.components END,
    component_keys = CASE WHEN tbl IS NULL OR tbl = 'image_components' THEN
      coalesce((SELECT jsonb_object_agg(c.name, imx_version_key_num(c.version_key))
                  FROM image_components c WHERE c.image_id = i.id AND c.entry = 1), '{}')
      ELSE i.component_keys END,
    component_entries = CASE WHEN tbl IS NULL OR tbl = 'image_components' THEN
      imx_image_component_entries(i.id) ELSE i.component_entries END,
    component_alt_keys = CASE WHEN tbl IS NULL OR tbl = 'image_components' THEN
      imx_image_component_alt_keys(i.id) ELSE i.component_alt_keys END,
    gpus = CASE WHEN tbl IS NULL OR tbl = 'image_gpus' THEN
      ARRAY(SELECT g.gpu FROM image_gpus g WHERE g.image_id = i.id ORDER BY g.gpu) ELSE i.gpus END,
    regions = CASE WHEN tbl IS NULL OR tbl = 'image_artifacts' THEN
      ARRAY(SELECT a.region FROM image_artifacts a WHERE a.image_id = i.id ORDER BY a.region)
      ELSE i.regions END,
    tags = CASE WHEN tbl IS NULL OR tbl = 'image_tags' THEN
      ARRAY(SELECT t.tag FROM image_tags t WHERE t.image_id = i.id ORDER BY t.tag) ELSE i.tags END
  WHERE i.id = ANY (ids)
$$;

-- A publish writes images.gpus, regions, tags, components and component_keys with the row
-- (procedures/publish_images.sql) and says so for its transaction, so the copy triggers of 0004
-- do not write the row again; SQL loaders (tests, bench, the demo) still get their copies.
CREATE OR REPLACE FUNCTION imx_image_denorm() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ids bigint[];
BEGIN
  IF current_setting('imaxe.copies_written', true) = 'on' THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'TRUNCATE' THEN
    ids := ARRAY(SELECT id FROM images);
  ELSIF TG_OP = 'UPDATE' THEN
    ids := ARRAY(SELECT image_id FROM changed UNION SELECT image_id FROM changed_old);
  ELSE
    ids := ARRAY(SELECT DISTINCT image_id FROM changed);
  END IF;
  PERFORM imx_image_denorm_refresh(ids, TG_TABLE_NAME);
  RETURN NULL;
END
$$;

-- The search document of an image: family and description weigh more than component names.
CREATE OR REPLACE FUNCTION imx_image_search_doc(family text, description text, names text[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('simple', replace(coalesce(family, ''), '-', ' ') || ' ' || coalesce(family, '')), 'A')
      || setweight(to_tsvector('simple', coalesce(description, '')), 'B')
      || setweight(to_tsvector('simple', coalesce(array_to_string(names, ' '), '')), 'C')
$$;

-- The status an image has now: a revocation scheduled with revoke_at counts from that time on.
CREATE OR REPLACE FUNCTION imx_image_status(status text, revoke_at timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN revoke_at <= now() THEN 'revoked' ELSE status END
$$;

-- The JSON documents the API returns, built here so that every read is one statement.
CREATE OR REPLACE FUNCTION imx_image_summary(image_id bigint) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', i.id, 'family', i.family, 'version', i.version, 'provider', i.provider,
    'architecture', i.architecture, 'os', json_build_object('name', i.os_name, 'version', i.os_version),
    'layer', i.layer, 'status', imx_image_status(i.status, i.revoke_at), 'patch_status', i.patch_status,
    'published_at', i.published_at, 'boot_seconds', i.boot_seconds, 'size_gb', i.size_gb,
    'components', i.components, 'gpus', to_json(i.gpus), 'regions', to_json(i.regions),
    'tags', to_json(i.tags))
  FROM images i WHERE i.id = image_id
$$;

-- The detail document from scratch (replaces 0004's): the definition the stored one follows.
-- Children are no longer listed here (a platform image can have thousands): /lineage lists them.
CREATE OR REPLACE FUNCTION imx_image_json(image_id bigint) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE SET TimeZone = 'UTC' AS $$
  SELECT (imx_image_doc_head(i) || imx_image_doc_tail(i))::json FROM images i WHERE i.id = image_id
$$;

CREATE OR REPLACE FUNCTION imx_image_summary_store() RETURNS trigger
LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
BEGIN
  NEW.summary := json_build_object(
    'id', NEW.id, 'family', NEW.family, 'version', NEW.version, 'provider', NEW.provider,
    'architecture', NEW.architecture, 'os', json_build_object('name', NEW.os_name, 'version', NEW.os_version),
    'layer', NEW.layer, 'status', imx_image_status(NEW.status, NEW.revoke_at), 'patch_status', NEW.patch_status,
    'published_at', NEW.published_at, 'boot_seconds', NEW.boot_seconds, 'size_gb', NEW.size_gb,
    'components', NEW.components, 'gpus', to_json(NEW.gpus), 'regions', to_json(NEW.regions),
    'tags', to_json(NEW.tags));
  RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION imx_image_written() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.written_xid := pg_current_xact_id();
  RETURN NEW;
END
$$;

-- Runs at commit for every row written; moves the generation once per transaction.
CREATE OR REPLACE FUNCTION imx_image_index_commit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('imaxe.index_moved', true) IS DISTINCT FROM 'on' THEN
    UPDATE image_index_state SET generation = generation + 1;
    PERFORM set_config('imaxe.index_moved', 'on', true);
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION imx_image_index_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE image_index_state SET generation = generation + 1, deletions = deletions + 1;
  RETURN NULL;
END
$$;
