-- Compare's rows (0044's imx_compare_rows) aggregate the caller's measurements only when there
-- are some. 0044 planned and ran its medians (four sorts and five aggregates) for every compare,
-- most of the statement's cost when the caller's teams measured none of the images: pgbench of
-- it gave 10,166/s at 4 connections on the 100,000-image bench catalog (no measurements), the
-- same rows without the costs 25,633/s. The rows and the arithmetic are 0044's, value for value:
-- the medians per (provider, instance type, pricing) group, the least per model, the median boot
-- seconds over all the scope's measurements.
CREATE OR REPLACE FUNCTION imx_compare_rows(p_ids bigint[], p_user bigint, p_token_team bigint,
                                            p_team bigint)
RETURNS TABLE (epoch bigint, id bigint, found boolean, summary json, kernel text,
               compatibility jsonb, best json, boot json, os_patch_status text,
               os_advisories jsonb)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_best json[]; -- by position in p_ids; NULL: nothing measured in the caller's scope
  v_boot json[];
BEGIN
  IF EXISTS (SELECT 1 FROM measurements m
              WHERE m.image_id = ANY (p_ids)
                AND m.team_id IN (SELECT imx_caller_teams(p_user, p_token_team, p_team))) THEN
    WITH m AS MATERIALIZED (
      SELECT m.image_id, m.model, m.provider, m.instance_type, m.pricing, m.boot_seconds,
             imx_cost_per_1k(m.price_per_hour::float8, m.throughput_per_s) AS cost
        FROM measurements m
       WHERE m.image_id = ANY (p_ids)
         AND m.team_id IN (SELECT imx_caller_teams(p_user, p_token_team, p_team))
    ), groups AS (
      SELECT m.image_id, m.model,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY m.cost) AS med
        FROM m GROUP BY m.image_id, m.model, m.provider, m.instance_type, m.pricing
    ), best AS (
      SELECT b.image_id, json_object_agg(b.model, b.best ORDER BY b.model) AS best
        FROM (SELECT g.image_id, g.model, min(g.med) AS best
                FROM groups g GROUP BY g.image_id, g.model) b
       GROUP BY b.image_id
    ), boot AS (
      SELECT m.image_id,
             to_json(percentile_cont(0.5) WITHIN GROUP (ORDER BY m.boot_seconds)) AS boot
        FROM m GROUP BY m.image_id
    )
    SELECT array_agg(b.best ORDER BY u.ord), array_agg(bt.boot ORDER BY u.ord)
      INTO v_best, v_boot
      FROM unnest(p_ids) WITH ORDINALITY AS u(id, ord)
      LEFT JOIN best b ON b.image_id = u.id
      LEFT JOIN boot bt ON bt.image_id = u.id;
  END IF;
  RETURN QUERY
  SELECT (SELECT e.n FROM auth_epoch e), u.id, i.id IS NOT NULL,
         CASE WHEN i.revoke_at <= now() THEN imx_image_summary(i.id) ELSE i.summary END,
         i.kernel,
         jsonb_build_object('ok', i.compatibility->'ok', 'errors', i.compatibility->'errors',
                            'warnings', i.compatibility->'warnings'),
         CASE WHEN i.id IS NOT NULL THEN coalesce(v_best[u.ord], '{}') END, v_boot[u.ord],
         i.os_patch_status,
         CASE WHEN i.os_patch_status IS NULL THEN 'null'::jsonb
              ELSE coalesce(imx_image_os_json(i.id)::jsonb -> 'advisories', 'null'::jsonb) END
    FROM unnest(p_ids) WITH ORDINALITY AS u(id, ord)
    LEFT JOIN images i ON i.id = u.id
   ORDER BY u.ord;
END
$$;
