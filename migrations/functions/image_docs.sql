-- SQL functions: an image's stored detail documents (image_docs, 0020_point_reads.sql) and the
-- OS-package and patch parts of them. Re-applied by server/db/migrate.c whenever this file
-- changes.
-- Callers: server/db/image_docs.c (imx_image_docs_read, the coalesced point reads);
-- server/db/advisories.c (imx_image_patch_doc / imx_image_patch_json for GET .../patch);
-- functions/costs.sql (imx_image_os_json, for the compare rows); the procedures that write images
-- (procedures/publish_images.sql, image_status.sql, advisory_publish.sql: imx_image_docs_write,
-- imx_image_docs_refresh_os); imx_image_docs_sync is the trigger function of images_docs_sync
-- (0020_point_reads.sql).

CREATE OR REPLACE FUNCTION imx_image_patch_json(p_image bigint) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT doc FROM imx_image_patch_doc(p_image)
$$;

-- The detail document's unchanging part: '{"id" : 1, ..., "tags" : [...]' without the closing
-- brace. Inlined into its callers, which run with TimeZone UTC whatever the session's, so that
-- every server renders the same bytes.
CREATE OR REPLACE FUNCTION imx_image_doc_head(i images) RETURNS text
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

-- The detail document (0020's imx_image_json = imx_image_doc_head || imx_image_doc_tail) gets
-- "os_packages" (imx_image_os_json) as its last key, in the changing part: 0020's tail with the
-- key added, nothing else changed. The stored tails (image_docs) follow every UPDATE of images
-- (0020's sync trigger); the use cases that change imx_image_os_json without writing the images
-- row refresh them with imx_image_docs_refresh_os (below).
CREATE OR REPLACE FUNCTION imx_image_doc_tail(i images) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT ', ' || substr(json_build_object(
    'status', imx_image_status(i.status, i.revoke_at), 'status_reason', i.status_reason,
    'revoke_at', i.revoke_at, 'patch_status', i.patch_status, 'updated_at', i.updated_at,
    'compatibility', i.compatibility, 'os_packages', imx_image_os_json(i.id))::text, 2)
$$;

-- When a tail stops being current by itself: the scheduled revocation still ahead.
CREATE OR REPLACE FUNCTION imx_image_doc_fresh_until(i images) RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN i.revoke_at > now() THEN i.revoke_at END
$$;

-- The stored documents written at publish (0020's imx_image_docs_write) render each head and
-- tail once. In 0020's statement the planner pulled the subquery up and copied its expressions
-- into the ETag's md5 as well, so every document was rendered twice (the same shape 0060 fixed in
-- the refreshes): 2,000 documents took 350-430 ms, now 120 ms on the bench catalog. OFFSET 0
-- keeps the subquery whole. The same rows.
CREATE OR REPLACE FUNCTION imx_image_docs_write(p_ids bigint[]) RETURNS integer
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
            FROM unnest(p_ids) u(id) JOIN images i ON i.id = u.id OFFSET 0) x
  ON CONFLICT (image_id) DO UPDATE
    SET head = EXCLUDED.head, tail = EXCLUDED.tail, etag = EXCLUDED.etag,
        fresh_until = EXCLUDED.fresh_until;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  RETURN v_n;
END
$$;

CREATE OR REPLACE FUNCTION imx_image_docs_sync() RETURNS trigger
LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
BEGIN
  UPDATE image_docs d
     SET tail = x.t, etag = '"' || md5(d.head || x.t) || '"', fresh_until = x.f
    FROM (SELECT n.id, imx_image_doc_tail(n) AS t, imx_image_doc_fresh_until(n) AS f
            FROM imx_images_written n OFFSET 0) x
   WHERE d.image_id = x.id AND (d.tail <> x.t OR d.fresh_until IS DISTINCT FROM x.f);
  RETURN NULL;
END
$$;

-- The packages of an image: (ecosystem, name, version, key) of every member of its chunks.
CREATE OR REPLACE FUNCTION imx_image_packages(p_image bigint)
RETURNS TABLE (id integer, ecosystem text, name text, version text, key bytea)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT op.id, op.ecosystem, op.name, op.version, op.key
    FROM image_packages ip, unnest(ip.chunks) ch(id)
    JOIN os_package_chunks c ON c.id = ch.id, unnest(c.members) m(id)
    JOIN os_packages op ON op.id = m.id
   WHERE ip.image_id = p_image
$$;

CREATE OR REPLACE FUNCTION imx_image_os_json(image_id bigint) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v json;
BEGIN
  -- $1, not the parameter's name: image_packages has a column of that name
  SELECT json_build_object(
    'ecosystems', to_json(ip.ecosystems), 'packages', ip.n_packages, 'source', ip.source,
    'patch_status', i.os_patch_status,
    'advisories', coalesce((
      SELECT json_agg(json_build_object(
          'id', a.id, 'title', a.title, 'severity', a.severity, 'cves', to_json(a.cves),
          'fixed_by', CASE WHEN fx.id IS NOT NULL THEN json_build_object(
            'id', fx.id, 'family', fx.family, 'version', fx.version) END,
          'packages', hit.packages)
          ORDER BY a.published DESC, a.id)
        FROM image_advisories ia JOIN advisories a ON a.id = ia.advisory_id
        LEFT JOIN images fx ON fx.id = ia.fixed_by
        CROSS JOIN LATERAL (
          WITH cand AS MATERIALIZED (
            SELECT p.id, p.ecosystem, p.name, p.version, p.key, r.range, r.fixed, r.ord
              FROM advisory_package_ranges r
              JOIN os_packages p ON p.ecosystem = r.ecosystem AND p.name = r.package
               AND p.key >= coalesce(r.lo, '\x'::bytea)
               AND imx_pkg_key_in(p.key, r.lo, r.lo_incl, r.hi, r.hi_incl)
             WHERE r.advisory_id = ia.advisory_id)
          SELECT json_agg(json_build_object('ecosystem', k.ecosystem, 'name', k.name,
                   'version', k.version, 'range', k.range, 'fixed', k.fixed)
                   ORDER BY k.name, k.ord, k.key) AS packages
            FROM cand k
           WHERE CASE WHEN (SELECT count(*) FROM cand) <= 4
                      THEN EXISTS (SELECT 1 FROM unnest(ip.chunks) ch(id)
                                     JOIN os_package_chunks c ON c.id = ch.id
                                    WHERE k.id = ANY (c.members))
                      ELSE k.id IN (SELECT m.id FROM unnest(ip.chunks) ch(id)
                                      JOIN os_package_chunks c ON c.id = ch.id,
                                      unnest(c.members) m(id)) END) hit
       WHERE ia.image_id = i.id AND hit.packages IS NOT NULL), '[]'))
    INTO v
    FROM images i JOIN image_packages ip ON ip.image_id = i.id
   WHERE i.id = $1;
  RETURN v;
END
$$;

CREATE OR REPLACE FUNCTION imx_image_docs_refresh_os(p_ids bigint[]) RETURNS integer
LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
DECLARE
  v_n integer;
BEGIN
  UPDATE image_docs d
     SET tail = x.t, etag = '"' || md5(d.head || x.t) || '"'
    FROM (SELECT i.id, imx_image_doc_tail(i) AS t
            FROM (SELECT DISTINCT u AS id FROM unnest(p_ids) u) u
            JOIN image_packages ip ON ip.image_id = u.id JOIN images i ON i.id = u.id
          OFFSET 0) x
   WHERE d.image_id = x.id AND d.tail <> x.t;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  RETURN v_n;
END
$$;

-- Stored documents read in batches (server/db/image_docs.c): the rows of p_ids in that order,
-- each with the auth epoch, the stored ETag (NULL when there is no current stored document) and
-- the document, left out where it is the one the client holds (p_etags, NULL for none). A
-- function so that its plan is made once a session: as a prepared statement PostgreSQL kept
-- choosing a custom plan (its estimate of the unnested rows makes the generic one look dearer)
-- and so planned it on every execution, which cost more than the reads.
CREATE OR REPLACE FUNCTION imx_image_docs_read(p_ids bigint[], p_etags text[])
RETURNS TABLE (epoch bigint, etag text, doc text)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  SELECT (SELECT e.n FROM auth_epoch e), d.etag,
         CASE WHEN d.etag = u.want THEN NULL ELSE d.head || d.tail END
    FROM unnest(p_ids, p_etags) WITH ORDINALITY AS u(id, want, ord)
    LEFT JOIN image_docs d ON d.image_id = u.id
     AND (d.fresh_until IS NULL OR d.fresh_until > now())
   ORDER BY u.ord;
END
$$;

-- An image's patch status as one SELECT the planner inlines, so that the statement that reads the
-- patch status of every request waiting at once (server/db/advisories.c q_patch_batch, coalesced
-- by db/read_batch.c) runs them in its own plan; 0021's PL/pgSQL imx_image_patch_json cost a
-- statement and a function call a request. imx_image_patch_json is now this SELECT too (the
-- path IMAXE_READ_CACHE=0 takes), the same document, byte for byte: 0021's body is the oracle in
-- tests/integration/point_reads_oracle.sql.
CREATE OR REPLACE FUNCTION imx_image_patch_doc(p_image bigint)
RETURNS TABLE (doc json)
LANGUAGE sql STABLE AS $$
  SELECT json_build_object('image_id', i.id, 'family', i.family, 'version', i.version,
    'status', i.patch_status,
    'advisories', coalesce((SELECT json_agg(CASE WHEN i.component_entries IS NULL THEN x.o
        -- an image with a component listed more than once (two driver trees): which of its
        -- components the advisory hits, each entry with the GPUs it serves (the image is
        -- affected when any entry is)
        ELSE (left(x.o::text, -1) || ', "affected_components" : ' || (
          SELECT coalesce(json_agg(json_build_object('name', c.name, 'version', c.version,
                                                     'gpus', to_json(c.gpus))
                                   ORDER BY c.name, c.entry), '[]')::text
            FROM image_components c
           WHERE c.image_id = i.id AND EXISTS (
             SELECT 1 FROM advisory_ranges r WHERE r.advisory_id = a.id AND r.component = c.name
                AND imx_key_in(c.version_key, r.lo, r.lo_incl, r.hi, r.hi_incl))) || '}')::json
        END ORDER BY a.published DESC, a.id)
      FROM image_advisories ia JOIN advisories a ON a.id = ia.advisory_id
      LEFT JOIN images fx ON fx.id = ia.fixed_by,
      LATERAL (SELECT json_build_object(
        'id', a.id, 'title', a.title, 'severity', a.severity, 'cves', to_json(a.cves),
        'kev', imx_kev_json(a.cves), 'epss', imx_epss_json(a.cves),
        'fixed_by', CASE WHEN fx.id IS NOT NULL THEN json_build_object(
          'id', fx.id, 'family', fx.family, 'version', fx.version) END,
        'still_open_in_fix', CASE WHEN fx.id IS NOT NULL THEN (
          SELECT coalesce(json_agg(o.advisory_id ORDER BY o.advisory_id), '[]')
          FROM image_advisories o WHERE o.image_id = fx.id) ELSE '[]'::json END) AS o) x
      WHERE ia.image_id = i.id), '[]'))
    FROM images i WHERE i.id = p_image
$$;
