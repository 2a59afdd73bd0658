-- An advisory as GET /v1/advisories/{id} shows it, and as every write that changes it answers;
-- a CSAF import's "unmapped" products and "warnings" (migration 0100) are part of it.
CREATE OR REPLACE FUNCTION imx_advisory_json(p_id text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', a.id, 'title', a.title, 'published', a.published, 'severity', a.severity,
    'cvss', a.cvss, 'cvss_v4', a.cvss_v4, 'cves', to_json(a.cves), 'url', a.url,
    'source', a.source, 'source_version', a.source_version,
    'created_at', a.created_at, 'revision', a.revision, 'updated_at', a.updated_at,
    'withdrawn_at', a.withdrawn_at, 'withdrawn_reason', a.withdrawn_reason,
    'affected', (SELECT coalesce(json_agg(json_build_object('component', r.component,
                   'range', r.range, 'fixed', r.fixed) ORDER BY r.ord), '[]')
                 FROM advisory_ranges r WHERE r.advisory_id = a.id),
    'unmapped', a.unmapped, 'warnings', a.warnings,
    'affected_images', (SELECT count(*) FROM image_advisories ia WHERE ia.advisory_id = a.id))
  FROM advisories a WHERE a.id = p_id
$$;
