-- A lineage entry's newer parent (0021's imx_image_lineage_entry) read from the newest end of
-- the parent's family. 0021 joined the parent and the family's images inside one subquery, so
-- its plan (made once a session) fetched every active image newer than the parent and sorted
-- them for the first: 102 rows for a parent in the middle of a 200-image family, 185 us of the
-- entry's cost. With the parent joined first, the family index is read backwards from the
-- newest and stops at the first row that qualifies. The same entries, byte for byte.
CREATE OR REPLACE FUNCTION imx_image_lineage_entry(image_id bigint) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v json;
BEGIN
  SELECT ((CASE WHEN i.summary IS NOT NULL AND i.revoke_at IS NULL
                 AND current_setting('TimeZone') IN ('UTC', 'Etc/UTC')
                THEN i.summary ELSE imx_image_summary(i.id) END)::jsonb
          || jsonb_build_object('parent_id', i.parent_id, 'outdated_parent', n.newer IS NOT NULL,
                                'newer_parent', n.newer))::json
    INTO v
    FROM images i
    LEFT JOIN images p ON p.id = i.parent_id
    LEFT JOIN LATERAL (
      SELECT jsonb_build_object('id', x.id, 'family', x.family, 'version', x.version) AS newer
        FROM images x
       WHERE x.family = p.family AND (x.published_at, x.id) > (p.published_at, p.id)
         AND x.status = 'active' AND x.patch_status <> 'revoked'
         AND (x.revoke_at IS NULL OR x.revoke_at > now())
       ORDER BY x.published_at DESC, x.id DESC LIMIT 1) n ON true
   WHERE i.id = image_id;
  RETURN v;
END
$$;
