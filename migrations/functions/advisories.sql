-- SQL functions: advisory documents. Re-applied by server/db/migrate.c whenever this file
-- changes (the current body of each function is here and nowhere else).
-- Callers: server/db/advisories.c (imx_advisory_json for GET /v1/advisories/{id},
-- imx_advisory_affected_page for its affected images, a page at a time); functions/events.sql
-- (advisory.published's data).

-- As 0014's, with the package ranges among "affected" in their place ({ecosystem, package,
-- range, fixed}), a CSAF import's "unmapped" products and "warnings" (columns of 0100), whether
-- its bulletin is kept (advisory_csaf_docs: POST /v1/advisories:reapply reads it again), and the
-- exploitation signals "kev" and "epss" (imx_kev_json, imx_epss_json: procedures/risk_feeds.sql).
CREATE OR REPLACE FUNCTION imx_advisory_json(p_id text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', a.id, 'title', a.title, 'published', a.published, 'severity', a.severity,
    'cvss', a.cvss, 'cvss_v4', a.cvss_v4, 'cves', to_json(a.cves), 'url', a.url,
    'source', a.source, 'source_version', a.source_version,
    'created_at', a.created_at, 'revision', a.revision, 'updated_at', a.updated_at,
    'withdrawn_at', a.withdrawn_at, 'withdrawn_reason', a.withdrawn_reason,
    'kev', imx_kev_json(a.cves), 'epss', imx_epss_json(a.cves),
    'affected', (SELECT coalesce(json_agg(x.j ORDER BY x.ord), '[]') FROM (
                   SELECT r.ord, json_build_object('component', r.component, 'range', r.range,
                            'fixed', r.fixed) AS j
                     FROM advisory_ranges r WHERE r.advisory_id = a.id
                   UNION ALL
                   SELECT r.ord, json_build_object('ecosystem', r.ecosystem, 'package', r.package,
                            'range', r.range, 'fixed', r.fixed)
                     FROM advisory_package_ranges r WHERE r.advisory_id = a.id) x),
    'unmapped', a.unmapped, 'warnings', a.warnings,
    'bulletin_kept', EXISTS (SELECT 1 FROM advisory_csaf_docs k WHERE k.advisory_id = a.id),
    'affected_images', (SELECT count(*) FROM image_advisories ia WHERE ia.advisory_id = a.id))
  FROM advisories a WHERE a.id = p_id
$$;

-- GET /v1/advisories/{id}/affected: images in (family, published_at, id) order after the key
-- (p_family, p_published, p_id), grouped by family as before; a family can continue on the next
-- page. No row when there is no such advisory.
CREATE OR REPLACE FUNCTION imx_advisory_affected_page(p_id text, p_family text, p_published timestamptz,
                                           p_image bigint, p_limit int)
RETURNS TABLE (doc json, next_key json)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH p AS (
    SELECT i.family, i.published_at, i.id, json_build_object(
             'id', i.id, 'version', i.version, 'status', i.status, 'patch_status', i.patch_status,
             'published_at', i.published_at,
             'fixed_by', CASE WHEN fx.id IS NOT NULL THEN json_build_object(
               'id', fx.id, 'family', fx.family, 'version', fx.version) END) AS j
    FROM image_advisories ia JOIN images i ON i.id = ia.image_id
    LEFT JOIN images fx ON fx.id = ia.fixed_by
    WHERE ia.advisory_id = p_id
      AND (p_family IS NULL OR (i.family, i.published_at, i.id) > (p_family, p_published, p_image))
    ORDER BY i.family, i.published_at, i.id
    LIMIT p_limit + 1),
  n AS (SELECT p.*, row_number() OVER (ORDER BY p.family, p.published_at, p.id) AS rn FROM p)
  SELECT json_build_object('advisory', a.id, 'families', coalesce((
           SELECT json_agg(json_build_object('family', f.family, 'images', f.images)
                           ORDER BY f.family)
           FROM (SELECT n.family, json_agg(n.j ORDER BY n.rn) AS images
                 FROM n WHERE n.rn <= p_limit GROUP BY n.family) f), '[]')),
         (SELECT json_build_array(n.family, n.published_at, n.id) FROM n
          WHERE n.rn = p_limit AND EXISTS (SELECT 1 FROM n m WHERE m.rn > p_limit))
  FROM advisories a WHERE a.id = p_id
$$;
