-- Compare's rows (0043's imx_compare_rows) in one set-based statement. 0043 called two plpgsql
-- functions per image (imx_compare_costs: two queries over measurements; imx_image_os_json) and
-- so ran thirteen statements for a compare of four: pgbench of it gave 5,000/s at 32 connections
-- on the 100,000-image bench catalog, less than the endpoint's target. Here the caller's
-- measurements of all the ids are read once and grouped per image, and the OS advisories are
-- read only for images with a package inventory (os_patch_status is NULL exactly for those
-- without one: 0025, publish_images). The rows are the same as 0043's, value for value; the
-- costs keep imx_compare_costs's arithmetic (medians per (provider, instance type, pricing)
-- group, the least per model; the median boot seconds over all the scope's measurements).
CREATE OR REPLACE FUNCTION imx_compare_rows(p_ids bigint[], p_user bigint, p_token_team bigint,
                                            p_team bigint)
RETURNS TABLE (epoch bigint, id bigint, found boolean, summary json, kernel text,
               compatibility jsonb, best json, boot json, os_patch_status text,
               os_advisories jsonb)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
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
  SELECT (SELECT e.n FROM auth_epoch e), u.id, i.id IS NOT NULL,
         CASE WHEN i.revoke_at <= now() THEN imx_image_summary(i.id) ELSE i.summary END,
         i.kernel,
         jsonb_build_object('ok', i.compatibility->'ok', 'errors', i.compatibility->'errors',
                            'warnings', i.compatibility->'warnings'),
         CASE WHEN i.id IS NOT NULL THEN coalesce(b.best, '{}') END, bt.boot, i.os_patch_status,
         CASE WHEN i.os_patch_status IS NULL THEN 'null'::jsonb
              ELSE coalesce(imx_image_os_json(i.id)::jsonb -> 'advisories', 'null'::jsonb) END
    FROM unnest(p_ids) WITH ORDINALITY AS u(id, ord)
    LEFT JOIN images i ON i.id = u.id
    LEFT JOIN best b ON b.image_id = i.id
    LEFT JOIN boot bt ON bt.image_id = i.id
   ORDER BY u.ord;
END
$$;

-- 0021's per-image costs function has no caller left.
DROP FUNCTION imx_compare_costs(bigint, bigint, bigint, bigint);
