-- The from-scratch oracles test_point_reads holds the stored and assembled reads to after every
-- step: 0050's plpgsql pin functions (byte for byte), 0061's lineage (value for value), and the
-- earlier bodies of what migrations 0064 and 0065 made inlinable SELECTs (pin resolve, patch
-- status; byte for byte).
-- The pin document as migrations/0040_team_quotas_bounded_pins.sql defined it (one SQL
-- statement, the candidate by a full walk of the family's newer images), with what issue 35 added
-- (kev_count, each advisory's kev and epss with KEV-listed ones first, the stack's eol):
CREATE FUNCTION pr_pin_json_0040(p_pin bigint, with_history boolean) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH p AS (SELECT p.*, t.slug AS team, i.family, i.published_at AS pub, i.status AS img_status
             FROM pins p JOIN teams t ON t.id = p.team_id JOIN images i ON i.id = p.image_id
             WHERE p.id = p_pin),
  adv AS (SELECT pa.advisory_id, pa.fixed_by AS fix FROM pin_advisories pa WHERE pa.pin_id = p_pin),
  cand AS (SELECT n.id FROM p JOIN images n ON n.family = p.family AND n.status = 'active'
             AND (n.published_at, n.id) > (p.pub, p.image_id)
           WHERE imx_pin_satisfied(p.id, n.id)
           ORDER BY (SELECT count(*) FROM image_advisories x WHERE x.image_id = n.id),
                    n.published_at DESC, n.id DESC
           LIMIT 1)
  SELECT json_build_object(
    'id', p.id, 'team', p.team, 'name', p.name,
    'image', imx_image_summary(p.image_id),
    'constraints', (SELECT coalesce(json_agg(json_build_object('component', k.component,
                      'range', k.range) ORDER BY k.ord), '[]')
                    FROM pin_constraints k WHERE k.pin_id = p.id),
    'status', CASE
      WHEN p.img_status = 'revoked' THEN 'revoked'
      WHEN EXISTS (SELECT 1 FROM adv WHERE adv.fix IS NOT NULL) THEN 'patch_available'
      WHEN EXISTS (SELECT 1 FROM adv) THEN 'vulnerable'
      WHEN EXISTS (SELECT 1 FROM cand) THEN 'behind'
      ELSE 'current' END,
    'candidate', (SELECT imx_image_summary(cand.id) FROM cand),
    'advisory_count', (SELECT count(*) FROM adv),
    'kev_count', (SELECT count(*) FROM adv JOIN advisories a ON a.id = adv.advisory_id
                   WHERE EXISTS (SELECT 1 FROM kev_entries k WHERE k.cve = ANY (a.cves))),
    'advisories', (SELECT coalesce(json_agg(json_build_object(
        'id', f.id, 'title', f.title, 'severity', f.severity, 'cves', to_json(f.cves),
        'kev', imx_kev_json(f.cves), 'epss', imx_epss_json(f.cves),
        'fixed_by', CASE WHEN f.fx_id IS NOT NULL THEN json_build_object(
          'id', f.fx_id, 'family', f.fx_family, 'version', f.fx_version) END)
        ORDER BY f.in_kev DESC, f.published DESC, f.id), '[]')
      FROM (SELECT a.*, fx.id AS fx_id, fx.family AS fx_family, fx.version AS fx_version,
                   EXISTS (SELECT 1 FROM kev_entries k WHERE k.cve = ANY (a.cves)) AS in_kev
            FROM adv JOIN advisories a ON a.id = adv.advisory_id LEFT JOIN images fx ON fx.id = adv.fix
            ORDER BY in_kev DESC, a.published DESC, a.id LIMIT 5) f),
    'eol', imx_image_eol_json(p.image_id),
    'created_at', p.created_at, 'updated_at', p.updated_at,
    'history', CASE WHEN with_history THEN (SELECT coalesce(json_agg(json_build_object(
        'from_image', h.from_image, 'to_image', h.to_image, 'moved_at', h.moved_at,
        'moved_by', h.email) ORDER BY h.id DESC), '[]')
      FROM (SELECT h.*, u.email FROM pin_history h LEFT JOIN users u ON u.id = h.moved_by
            WHERE h.pin_id = p.id ORDER BY h.id DESC LIMIT 100) h) END)
  FROM p
$$;

-- Resolve through a pin as migrations/0006_advisories.sql defined it:
CREATE FUNCTION pr_pin_resolve_0006(p_team bigint, p_name text, p_region text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH p AS (SELECT p.id, t.slug, p.name, p.image_id FROM pins p JOIN teams t ON t.id = p.team_id
             WHERE p.team_id = p_team AND p.name = p_name),
  s AS (SELECT p.* FROM p JOIN images i ON i.id = p.image_id
        WHERE i.status <> 'revoked' AND i.patch_status <> 'revoked'
          AND (i.revoke_at IS NULL OR i.revoke_at > now())),
  r AS (SELECT s.*, a.artifact_id FROM s JOIN image_artifacts a
          ON a.image_id = s.image_id AND a.region = p_region)
  SELECT json_build_object(
    'pin', (SELECT json_build_object('id', p.id, 'team', p.slug, 'name', p.name) FROM p),
    'image', (SELECT imx_image_summary(r.image_id) FROM r),
    'artifact_id', (SELECT r.artifact_id FROM r),
    'emptied_by', CASE WHEN EXISTS (SELECT 1 FROM r) THEN NULL
      WHEN NOT EXISTS (SELECT 1 FROM p) THEN 'pin'
      WHEN NOT EXISTS (SELECT 1 FROM s) THEN 'status' ELSE 'region' END)
$$;

-- Lineage from scratch (0061's imx_image_lineage is held to it): every entry is the image's
-- summary built now (imx_image_summary, never the stored one) with parent_id, outdated_parent
-- and newer_parent, the newer parent found by a plain walk of the parent's family; the parent
-- chain nearest first (at most 64), the children by id; NULL when there is no such image.
CREATE FUNCTION pr_lineage_entry(p_image bigint) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT imx_image_summary(i.id)::jsonb
         || jsonb_build_object('parent_id', i.parent_id, 'outdated_parent', n.id IS NOT NULL,
                               'newer_parent', CASE WHEN n.id IS NOT NULL THEN jsonb_build_object(
                                 'id', n.id, 'family', n.family, 'version', n.version) END)
    FROM images i
    LEFT JOIN LATERAL (
      SELECT x.id, x.family, x.version FROM images p JOIN images x ON x.family = p.family
         AND (x.published_at, x.id) > (p.published_at, p.id)
       WHERE p.id = i.parent_id AND x.status = 'active' AND x.patch_status <> 'revoked'
         AND (x.revoke_at IS NULL OR x.revoke_at > now())
       ORDER BY x.published_at DESC, x.id DESC LIMIT 1) n ON true
   WHERE i.id = p_image
$$;
CREATE FUNCTION pr_lineage(p_image bigint) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  WITH RECURSIVE up (id, parent_id, depth) AS (
    SELECT i.id, i.parent_id, 0 FROM images i WHERE i.id = p_image
    UNION ALL
    SELECT p.id, p.parent_id, up.depth + 1 FROM up JOIN images p ON p.id = up.parent_id
     WHERE up.depth < 64)
  SELECT CASE WHEN EXISTS (SELECT 1 FROM images WHERE id = p_image) THEN jsonb_build_object(
    'image', pr_lineage_entry(p_image),
    'parents', (SELECT coalesce(jsonb_agg(pr_lineage_entry(up.id) ORDER BY up.depth), '[]')
                  FROM up WHERE up.depth > 0),
    'children', (SELECT coalesce(jsonb_agg(pr_lineage_entry(c.id) ORDER BY c.id), '[]')
                   FROM images c WHERE c.parent_id = p_image)) END
$$;

-- An image's patch status as migrations/0021_point_read_plans.sql defined it, with the kev and
-- epss members of migrations/procedures/risk_feeds.sql:
CREATE FUNCTION pr_image_patch_0021(p_image bigint) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v json;
BEGIN
  SELECT json_build_object('image_id', i.id, 'family', i.family, 'version', i.version,
    'status', i.patch_status,
    'advisories', coalesce((SELECT json_agg(json_build_object(
        'id', a.id, 'title', a.title, 'severity', a.severity, 'cves', to_json(a.cves),
        'kev', imx_kev_json(a.cves), 'epss', imx_epss_json(a.cves),
        'fixed_by', CASE WHEN fx.id IS NOT NULL THEN json_build_object(
          'id', fx.id, 'family', fx.family, 'version', fx.version) END,
        'still_open_in_fix', CASE WHEN fx.id IS NOT NULL THEN (
          SELECT coalesce(json_agg(o.advisory_id ORDER BY o.advisory_id), '[]')
          FROM image_advisories o WHERE o.image_id = fx.id) ELSE '[]'::json END)
        ORDER BY a.published DESC, a.id)
      FROM image_advisories ia JOIN advisories a ON a.id = ia.advisory_id
      LEFT JOIN images fx ON fx.id = ia.fixed_by
      WHERE ia.image_id = i.id), '[]'))
    INTO v
    FROM images i WHERE i.id = p_image;
  RETURN v;
END
$$;
