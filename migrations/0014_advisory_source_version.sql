-- A bulletin imported from its publisher's machine-readable document (CSAF 2.0:
-- document.tracking.version) keeps that document's version, so that importing a newer
-- revision of the same bulletin revises the advisory (procedures/advisory_publish.sql) and an
-- older or the same one is refused; and its CVSS v4.0 base score beside the v3.1 one.
ALTER TABLE advisories
  ADD COLUMN source_version text CHECK (source_version IS NULL OR imx_version_key(source_version) IS NOT NULL),
  ADD COLUMN cvss_v4 numeric(3,1) CHECK (cvss_v4 BETWEEN 0 AND 10);

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
    'affected_images', (SELECT count(*) FROM image_advisories ia WHERE ia.advisory_id = a.id))
  FROM advisories a WHERE a.id = p_id
$$;
