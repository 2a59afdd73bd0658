-- Point reads (issue 13), continued: the documents of lineage, an image's patch status and
-- compare's costs built by plpgsql functions planned once a session (compare's rows themselves:
-- 0043, after the OS columns they read). Their SQL-language
-- predecessors (0004, 0006) are not inlined, so PostgreSQL planned their queries again on every
-- call, for every entry: 8 ms for one lineage on the 100,000-image bench catalog, most of it
-- planning. The documents are the same as before, byte for byte.

-- The median cost per 1,000 inferences per model (the least over the (provider, instance type,
-- pricing) groups) and the median boot seconds of one image's measurements in the caller's
-- scope (imx_caller_teams), as compare shows them: the same arithmetic as
-- server/db/costs.c's q_costs_for_images.
CREATE FUNCTION imx_compare_costs(p_image bigint, p_user bigint, p_token_team bigint,
                                  p_team bigint, OUT best json, OUT boot json)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  SELECT coalesce(json_object_agg(b.model, b.best ORDER BY b.model), '{}') INTO best
    FROM (SELECT g.model, min(g.med) AS best
            FROM (SELECT m.model, percentile_cont(0.5) WITHIN GROUP (ORDER BY
                           imx_cost_per_1k(m.price_per_hour::float8, m.throughput_per_s)) AS med
                    FROM measurements m
                   WHERE m.image_id = p_image
                     AND m.team_id IN (SELECT imx_caller_teams(p_user, p_token_team, p_team))
                   GROUP BY m.model, m.provider, m.instance_type, m.pricing) g
           GROUP BY g.model) b;
  SELECT to_json(percentile_cont(0.5) WITHIN GROUP (ORDER BY m.boot_seconds)) INTO boot
    FROM measurements m
   WHERE m.image_id = p_image
     AND m.team_id IN (SELECT imx_caller_teams(p_user, p_token_team, p_team));
END
$$;

-- A lineage entry (replaces 0004's): the image's summary (the stored one when it cannot depend
-- on the time or the session's time zone) with parent_id, outdated_parent and newer_parent.
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
    LEFT JOIN LATERAL (
      SELECT jsonb_build_object('id', x.id, 'family', x.family, 'version', x.version) AS newer
        FROM images p JOIN images x ON x.family = p.family
         AND (x.published_at, x.id) > (p.published_at, p.id)
       WHERE p.id = i.parent_id AND x.status = 'active' AND x.patch_status <> 'revoked'
         AND (x.revoke_at IS NULL OR x.revoke_at > now())
       ORDER BY x.published_at DESC, x.id DESC LIMIT 1) n ON true
   WHERE i.id = image_id;
  RETURN v;
END
$$;

-- Lineage (replaces 0004's): the image, its parent chain (nearest first, at most 64) and its
-- children (by id); NULL when there is no such image.
CREATE OR REPLACE FUNCTION imx_image_lineage(image_id bigint) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v json;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM images WHERE id = image_id) THEN
    RETURN NULL;
  END IF;
  WITH RECURSIVE up (id, parent_id, depth) AS (
    SELECT i.id, i.parent_id, 0 FROM images i WHERE i.id = image_id
    UNION ALL
    SELECT p.id, p.parent_id, up.depth + 1 FROM up JOIN images p ON p.id = up.parent_id
    WHERE up.depth < 64)
  SELECT json_build_object(
    'image', imx_image_lineage_entry(image_id),
    'parents', (SELECT coalesce(json_agg(imx_image_lineage_entry(up.id) ORDER BY up.depth), '[]')
                  FROM up WHERE up.depth > 0),
    'children', (SELECT coalesce(json_agg(imx_image_lineage_entry(c.id) ORDER BY c.id), '[]')
                   FROM images c WHERE c.parent_id = image_id))
    INTO v;
  RETURN v;
END
$$;

-- An image's patch status with every advisory that affects it (replaces 0006's, same document).
CREATE OR REPLACE FUNCTION imx_image_patch_json(p_image bigint) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v json;
BEGIN
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
    INTO v
    FROM images i WHERE i.id = p_image;
  RETURN v;
END
$$;
