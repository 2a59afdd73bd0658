-- The upgrade planner's facts (issue #34): for a pin's or an image's current image and the newer
-- images of its family, what server/domain/plan.c weighs (status, patch status, advisories, GPUs,
-- compatibility errors, the pin's constraints, components, cost per 1k inferences, boot time).
-- The judgement itself is C (domain/plan.c, property-tested); this only reads. Called from
-- server/db/plan.c.

-- One image's facts. p_teams: whose measurements count; p_model / p_itype: the (model, instance
-- type) the cost is compared on (NULL: no cost).
CREATE OR REPLACE FUNCTION imx_plan_image_facts(p_image bigint, p_pin bigint, p_teams bigint[],
                                                p_model text, p_itype text)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', i.id, 'family', i.family, 'version', i.version,
    'status', imx_image_status(i.status, i.revoke_at), 'patch_status', i.patch_status,
    'published_at', i.published_at, 'boot_seconds', i.boot_seconds,
    'components', i.components::jsonb, 'gpus', to_jsonb(i.gpus),
    'compat_errors', coalesce((i.compatibility->>'errors')::int, 0),
    'satisfies_pin', CASE WHEN p_pin IS NULL THEN true ELSE imx_pin_satisfied(p_pin, i.id) END,
    'advisories', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', a.id, 'severity', a.severity)
                                             ORDER BY a.id), '[]')
                     FROM image_advisories x JOIN advisories a ON a.id = x.advisory_id
                    WHERE x.image_id = i.id),
    'cost_per_1k', (SELECT percentile_cont(0.5) WITHIN GROUP (
                             ORDER BY m.price_per_hour::float8 / (m.throughput_per_s * 3600) * 1000)
                      FROM measurements m
                     WHERE p_model IS NOT NULL AND m.image_id = i.id
                       AND m.team_id = ANY (p_teams) AND m.model = p_model
                       AND m.instance_type = p_itype))
  FROM images i WHERE i.id = p_image
$$;

-- The facts of a plan: {"current", "gpus_in_use", "pin", "candidates"} for image p_image (with
-- pin p_pin's constraints, when planning a pin), the newest p_limit images of its family
-- published after it as candidates. GPUs in use: those the nodes of the pin's team (an image
-- plan: of the caller's teams) report on the current image, else the GPUs it lists. Cost: the
-- (model, instance type) the caller's teams measured most on the current image.
CREATE OR REPLACE FUNCTION imx_plan_facts(p_image bigint, p_pin bigint, p_user bigint,
                                          p_token_team bigint, p_limit int)
RETURNS text
LANGUAGE sql STABLE AS $$
  WITH cur AS (SELECT * FROM images WHERE id = p_image),
  mine AS (SELECT coalesce(array_agg(t), '{}') AS ids
             FROM imx_caller_teams(p_user, p_token_team, NULL) t),
  pin AS (SELECT p.*, t.slug FROM pins p JOIN teams t ON t.id = p.team_id WHERE p.id = p_pin),
  pair AS (SELECT m.model, m.instance_type FROM measurements m, mine
            WHERE m.image_id = p_image AND m.team_id = ANY (mine.ids)
            GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1),
  reported AS (SELECT DISTINCT g FROM nodes n, mine, unnest(n.gpus) g
                WHERE n.image_id = p_image
                  AND n.team_id = ANY (CASE WHEN p_pin IS NULL THEN mine.ids
                                            ELSE ARRAY(SELECT team_id FROM pin) END)),
  cands AS (SELECT n.id, n.published_at FROM images n, cur
             WHERE n.family = cur.family AND (n.published_at, n.id) > (cur.published_at, cur.id)
             ORDER BY n.published_at, n.id LIMIT p_limit)
  SELECT json_build_object(
    'current', imx_plan_image_facts(cur.id, p_pin, mine.ids, pair.model, pair.instance_type),
    'gpus_in_use', CASE WHEN EXISTS (SELECT 1 FROM reported)
                        THEN (SELECT to_json(array_agg(g ORDER BY g)) FROM reported)
                        ELSE to_json(cur.gpus) END,
    'cost_basis', CASE WHEN pair.model IS NULL THEN NULL
                       ELSE json_build_object('model', pair.model,
                                              'instance_type', pair.instance_type) END,
    'pin', (SELECT json_build_object('id', p.id, 'team', p.slug, 'name', p.name,
                                     'image_id', p.image_id) FROM pin p),
    'candidates', (SELECT coalesce(json_agg(imx_plan_image_facts(c.id, p_pin, mine.ids,
                                                                 pair.model, pair.instance_type)
                                            ORDER BY c.published_at, c.id), '[]')
                     FROM cands c))::text
  FROM cur CROSS JOIN mine LEFT JOIN pair ON true
$$;

-- A pin's plan facts, when the caller's teams hold the pin (else NULL).
CREATE OR REPLACE FUNCTION imx_plan_pin_facts(p_pin bigint, p_user bigint, p_token_team bigint,
                                              p_limit int)
RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT imx_plan_facts(p.image_id, p.id, p_user, p_token_team, p_limit)
    FROM pins p
   WHERE p.id = p_pin AND p.team_id IN (SELECT imx_caller_teams(p_user, p_token_team, NULL))
$$;
