-- Maintenance: recomputes every image's and pin's patch state from scratch, announcing nothing
-- (every fix that exists counts as known). For catalogs loaded with SQL rather than through
-- the API (tools/demo.sh, bench/gen_catalog.sh, tests that write rows directly) and for repair;
-- the API's use cases never call it. Takes the global patch lock exclusively. Returns how many
-- (image, advisory) rows there are.
CREATE OR REPLACE FUNCTION imx_patch_rebuild() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_adv text;
  v_n integer;
BEGIN
  PERFORM imx_patch_lock_global(true);
  DELETE FROM image_advisories;
  INSERT INTO image_advisories (image_id, advisory_id, family)
  SELECT DISTINCT c.image_id, r.advisory_id, i.family
    FROM advisory_ranges r JOIN advisories a ON a.id = r.advisory_id AND a.withdrawn_at IS NULL
    JOIN image_components c ON c.name = r.component
     AND imx_key_in(c.version_key, r.lo, r.lo_incl, r.hi, r.hi_incl)
    JOIN images i ON i.id = c.image_id
  UNION
  SELECT ip.image_id, r.advisory_id, i.family
    FROM advisory_package_ranges r JOIN advisories a ON a.id = r.advisory_id
     AND a.withdrawn_at IS NULL
    JOIN os_packages op ON op.ecosystem = r.ecosystem AND op.name = r.package
     AND imx_pkg_key_in(op.key, r.lo, r.lo_incl, r.hi, r.hi_incl)
    JOIN os_package_chunks c ON c.members @> ARRAY[op.id]
    JOIN image_packages ip ON ip.chunks @> ARRAY[c.id]
    JOIN images i ON i.id = ip.image_id;
  FOR v_adv IN SELECT DISTINCT advisory_id FROM image_advisories ORDER BY 1 LOOP
    PERFORM imx_patch_pass(ARRAY(SELECT DISTINCT family FROM image_advisories
                                  WHERE advisory_id = v_adv), v_adv);
  END LOOP;
  UPDATE image_advisories SET fix_seen_at = now() WHERE fixed_by IS NOT NULL;
  UPDATE images SET patch_status = CASE WHEN status = 'revoked' THEN 'revoked' ELSE 'ok' END,
                    os_patch_status = CASE WHEN os_patch_status IS NULL THEN NULL
                                           WHEN status = 'revoked' THEN 'revoked' ELSE 'ok' END
   WHERE (patch_status IS DISTINCT FROM CASE WHEN status = 'revoked' THEN 'revoked' ELSE 'ok' END
          OR os_patch_status IS DISTINCT FROM CASE WHEN os_patch_status IS NULL THEN NULL
                                                   WHEN status = 'revoked' THEN 'revoked'
                                                   ELSE 'ok' END)
     AND NOT EXISTS (SELECT 1 FROM image_advisories ia WHERE ia.image_id = images.id);
  PERFORM imx_patch_status_update(ARRAY(SELECT DISTINCT image_id FROM image_advisories));
  PERFORM imx_pin_refresh(p.id) FROM pins p ORDER BY p.id;
  SELECT count(*) INTO v_n FROM image_advisories;
  RETURN v_n;
END
$$;
