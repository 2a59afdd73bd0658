-- A distro advisory over 30 % of the bench catalog took 36.75 s (bench/RESULTS.md, "OS
-- advisories"): of its time, 96 % went to imx_image_os_json, called three times for each of the
-- 30,000 documents it re-rendered, each call reading the image's whole inventory. Two changes,
-- the same documents:
--
-- 1. imx_image_os_json (0025) no longer reads the whole inventory. 0025 joined each advisory's
--    package ranges to imx_image_packages(image): every member of every chunk (1,000 packages:
--    1,000 os_packages lookups) to keep the one or two a range names. Now the other way round:
--    the versions each range covers are an index range scan of os_packages (name, ecosystem,
--    key), as imx_advisory_reconcile finds them, and each is kept when the image holds it: for
--    up to 4 versions, a walk of the image's chunks (by primary key) until one holds it; for
--    more (a range over a package with many versions), one hashed set of the image's members.
--    On the bench catalog, a call: 1.6 ms -> 0.05 ms (1 version in the range), 4.5 ms -> 1.3 ms
--    (500 versions). Same rows: an inventory holds a package id at most once (the publish keeps them
--    distinct), so every (package, range) pair the old join produced comes out once, in the same
--    order (name, then the range's place; the key after them only orders what the old join left
--    to chance). Signature, result and planning (plpgsql, generic plan) as before.
-- 2. The stored-tail refreshes (0020's imx_image_docs_sync, the trigger of every UPDATE of
--    images; 0025's imx_image_docs_refresh_os) computed each new tail three times: the planner
--    pulled the subquery up and copied its expression into the comparison, the new tail and the
--    etag. OFFSET 0 keeps the subquery whole, so each tail is rendered once.

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
