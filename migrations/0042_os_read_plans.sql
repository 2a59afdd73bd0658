-- The OS part of the point reads (0025) planned once a session, as 0021 did for lineage, patch and
-- compare: as SQL-language functions PostgreSQL planned them on every call (compare's OS rows
-- took 3 ms of a compare's 3.5 ms on the bench catalog, for images with no inventory). The same
-- documents, byte for byte.
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
          SELECT json_agg(json_build_object('ecosystem', p.ecosystem, 'name', p.name,
                   'version', p.version, 'range', r.range, 'fixed', r.fixed)
                   ORDER BY p.name, r.ord) AS packages
            FROM advisory_package_ranges r
            JOIN imx_image_packages(i.id) p ON p.ecosystem = r.ecosystem AND p.name = r.package
             AND imx_pkg_key_in(p.key, r.lo, r.lo_incl, r.hi, r.hi_incl)
           WHERE r.advisory_id = ia.advisory_id) hit
       WHERE ia.image_id = i.id AND hit.packages IS NOT NULL), '[]'))
    INTO v
    FROM images i JOIN image_packages ip ON ip.image_id = i.id
   WHERE i.id = $1;
  RETURN v;
END
$$;

CREATE OR REPLACE FUNCTION imx_compare_os_fields(p_ids bigint[]) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v json;
BEGIN
  WITH imgs AS (
    SELECT u.ord, i.os_patch_status, imx_image_os_json(i.id)::jsonb -> 'advisories' AS advs
      FROM unnest(p_ids) WITH ORDINALITY u(id, ord) JOIN images i ON i.id = u.id
  )
  SELECT json_build_array(
    json_build_object('name', 'os_patch_status',
      'values', jsonb_agg(to_jsonb(os_patch_status) ORDER BY ord),
      'differs', count(DISTINCT coalesce(os_patch_status, '')) > 1),
    json_build_object('name', 'os_advisories',
      'values', jsonb_agg(coalesce(advs, 'null'::jsonb) ORDER BY ord),
      'differs', count(DISTINCT coalesce(advs, 'null'::jsonb)) > 1))
    INTO v
    FROM imgs;
  RETURN v;
END
$$;
