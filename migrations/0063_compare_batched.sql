-- Compare's rows for many requests at once (server/db/images.c, coalesced by db/read_batch.c as
-- the stored documents are): one statement answers every compare waiting at the moment it is
-- sent. One compare a statement (0062's imx_compare_rows) cost PostgreSQL ~150 us of CPU at 32
-- connections on 2 cores, most of it per statement; pgbench of eight compares in one call gave
-- 5,739 calls/s (45,900 compares/s) beside 14,936/s for one.
--
-- The rows and the arithmetic are 0062's, value for value. The costs, moved into
-- imx_compare_costs, are computed only for the requests whose callers see a measurement of one of
-- their images (usually none).

-- The costs one caller's scope sees of p_ids, one row per position: best ({model: least median
-- cost per 1k}, '{}' when nothing is measured) and boot (median boot seconds, or null). The
-- medians are per (provider, instance type, pricing) group, the least per model, the boot median
-- over all the scope's measurements of the image.
CREATE FUNCTION imx_compare_costs(p_ids bigint[], p_user bigint, p_token_team bigint,
                                  p_team bigint)
RETURNS TABLE (ord bigint, best json, boot json)
LANGUAGE sql STABLE AS $$
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
  SELECT u.ord, coalesce(b.best, '{}'), bt.boot
    FROM unnest(p_ids) WITH ORDINALITY AS u(id, ord)
    LEFT JOIN best b ON b.image_id = u.id
    LEFT JOIN boot bt ON bt.image_id = u.id
$$;

-- The compares of several requests: p_ids holds every request's ids one after the other,
-- p_req[k] the request (1, 2, ...) of p_ids[k], and p_user, p_token_team, p_team each request's
-- scope (imx_caller_teams). One row per position of p_ids, in that order: 0062's columns.
CREATE FUNCTION imx_compare_batch(p_req int[], p_ids bigint[], p_user bigint[],
                                  p_token_team bigint[], p_team bigint[])
RETURNS TABLE (epoch bigint, id bigint, found boolean, summary json, kernel text,
               compatibility jsonb, best json, boot json, os_patch_status text,
               os_advisories jsonb)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_req int;
  v_ids bigint[];
  v_ords bigint[];
  v_pos bigint[] := '{}'; -- positions in p_ids with costs, and those costs
  v_best json[] := '{}';
  v_boot json[] := '{}';
BEGIN
  -- the requests whose callers measured one of their images
  FOR v_req IN
    SELECT DISTINCT u.req
      FROM unnest(p_req, p_ids) AS u(req, id)
      JOIN measurements m ON m.image_id = u.id
     WHERE m.team_id IN (SELECT imx_caller_teams(p_user[u.req], p_token_team[u.req],
                                                 p_team[u.req]))
  LOOP
    SELECT array_agg(u.id ORDER BY u.ord), array_agg(u.ord ORDER BY u.ord)
      INTO v_ids, v_ords
      FROM unnest(p_req, p_ids) WITH ORDINALITY AS u(req, id, ord)
     WHERE u.req = v_req;
    SELECT v_pos || array_agg(v_ords[c.ord] ORDER BY c.ord),
           v_best || array_agg(c.best ORDER BY c.ord), v_boot || array_agg(c.boot ORDER BY c.ord)
      INTO v_pos, v_best, v_boot
      FROM imx_compare_costs(v_ids, p_user[v_req], p_token_team[v_req], p_team[v_req]) c;
  END LOOP;
  RETURN QUERY
  SELECT (SELECT e.n FROM auth_epoch e), u.id, i.id IS NOT NULL,
         CASE WHEN i.revoke_at <= now() THEN imx_image_summary(i.id) ELSE i.summary END,
         i.kernel,
         jsonb_build_object('ok', i.compatibility->'ok', 'errors', i.compatibility->'errors',
                            'warnings', i.compatibility->'warnings'),
         CASE WHEN i.id IS NOT NULL THEN coalesce(c.best, '{}') END, c.boot,
         i.os_patch_status,
         CASE WHEN i.os_patch_status IS NULL THEN 'null'::jsonb
              ELSE coalesce(imx_image_os_json(i.id)::jsonb -> 'advisories', 'null'::jsonb) END
    FROM unnest(p_ids) WITH ORDINALITY AS u(id, ord)
    LEFT JOIN images i ON i.id = u.id
    LEFT JOIN unnest(v_pos, v_best, v_boot) AS c(pos, best, boot) ON c.pos = u.ord
   ORDER BY u.ord;
END
$$;

DROP FUNCTION imx_compare_rows(bigint[], bigint, bigint, bigint);
