-- An image's patch status as one SELECT the planner inlines, so that the statement that reads the
-- patch status of every request waiting at once (server/db/advisories.c q_patch_batch, coalesced
-- by db/read_batch.c) runs them in its own plan; 0021's PL/pgSQL imx_image_patch_json cost a
-- statement and a function call a request. imx_image_patch_json is now this SELECT too (the
-- path IMAXE_READ_CACHE=0 takes), the same document, byte for byte: 0021's body is the oracle in
-- tests/integration/point_reads_oracle.sql.
CREATE FUNCTION imx_image_patch_doc(p_image bigint)
RETURNS TABLE (doc json)
LANGUAGE sql STABLE AS $$
  SELECT json_build_object('image_id', i.id, 'family', i.family, 'version', i.version,
    'status', i.patch_status,
    'advisories', coalesce((SELECT json_agg(json_build_object(
        'id', a.id, 'title', a.title, 'severity', a.severity, 'cves', to_json(a.cves),
        'fixed_by', CASE WHEN fx.id IS NOT NULL THEN json_build_object(
          'id', fx.id, 'family', fx.family, 'version', fx.version) END,
        'still_open_in_fix', CASE WHEN fx.id IS NOT NULL THEN (
          SELECT coalesce(json_agg(o.advisory_id ORDER BY o.advisory_id), '[]')
          FROM image_advisories o WHERE o.image_id = fx.id) ELSE '[]'::json END)
        ORDER BY a.published DESC, a.id)
      FROM image_advisories ia JOIN advisories a ON a.id = ia.advisory_id
      LEFT JOIN images fx ON fx.id = ia.fixed_by
      WHERE ia.image_id = i.id), '[]'))
    FROM images i WHERE i.id = p_image
$$;

CREATE OR REPLACE FUNCTION imx_image_patch_json(p_image bigint) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT doc FROM imx_image_patch_doc(p_image)
$$;
