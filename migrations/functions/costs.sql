-- SQL functions: prices, cost formulas, measurements and the compare rows. Re-applied by
-- server/db/migrate.c whenever this file changes.
-- Callers: server/db/costs.c (imx_instance_type_json, imx_measurement_json,
-- imx_measurement_record, imx_cost_per_1k / imx_boot_cost / imx_monthly_cost, the SQL twins of
-- server/domain/cost.c); server/db/images.c (imx_compare_batch, imx_compare_os_fields for
-- GET /v1/compare). imx_price_at and imx_compare_costs are used by the functions below them.

-- The price valid at a moment (no row: none known yet).
CREATE OR REPLACE FUNCTION imx_price_at(p_provider text, p_type text, p_pricing text, p_region text,
                             p_at timestamptz)
RETURNS TABLE (price_per_hour numeric, currency text, valid_from timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT p.price_per_hour, p.currency, p.valid_from FROM instance_type_prices p
   WHERE p.provider = p_provider AND p.instance_type = p_type AND p.pricing = p_pricing
     AND p.region = p_region AND p.valid_from <= p_at
   ORDER BY p.valid_from DESC LIMIT 1
$$;

CREATE OR REPLACE FUNCTION imx_instance_type_json(p_provider text, p_type text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'provider', t.provider, 'instance_type', t.instance_type, 'family', t.family,
    'gpu_model', t.gpu_model, 'gpu_count', t.gpu_count, 'gpu_memory_gib', t.gpu_memory_gib,
    'vcpus', t.vcpus, 'memory_gib', t.memory_gib, 'host_arch', t.host_arch,
    'source', t.source,
    -- The price in force now, per pricing kind and region.
    'prices', (SELECT coalesce(json_agg(json_build_object('pricing', p.pricing,
                 'region', p.region, 'price_per_hour', p.price_per_hour, 'currency', p.currency,
                 'valid_from', p.valid_from) ORDER BY p.pricing, p.region), '[]')
               FROM (SELECT DISTINCT ON (pricing, region) * FROM instance_type_prices x
                      WHERE x.provider = t.provider AND x.instance_type = t.instance_type
                        AND x.valid_from <= now()
                      ORDER BY pricing, region, valid_from DESC) p))
  FROM ref_instance_type t WHERE t.provider = p_provider AND t.instance_type = p_type
$$;

-- ---------------------------------------------------------------------------
-- The cost arithmetic. server/domain/cost.c does the same in the same order of operations
-- (IEEE doubles on both sides); tests/integration/test_costs.c checks they agree.
CREATE OR REPLACE FUNCTION imx_cost_per_1k(price_per_hour float8, throughput_per_s float8) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT price_per_hour / (throughput_per_s * 3600) * 1000
$$;

CREATE OR REPLACE FUNCTION imx_boot_cost(price_per_hour float8, boot_seconds float8) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT price_per_hour * boot_seconds / 3600
$$;

-- Cost of daily_inferences a day for an average month of 30.44 days (365.25 / 12).
CREATE OR REPLACE FUNCTION imx_monthly_cost(cost_per_1k float8, daily_inferences float8) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT cost_per_1k * daily_inferences / 1000 * 30.44
$$;

CREATE OR REPLACE FUNCTION imx_measurement_json(m measurements) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', m.id, 'team', (SELECT slug FROM teams WHERE id = m.team_id), 'image', m.image_id,
    'instance_type', m.instance_type, 'provider', m.provider, 'region', m.region,
    'gpu_model', m.gpu_model, 'gpu_count', m.gpu_count, 'model', m.model,
    'precision', m.precision, 'batch_size', m.batch_size,
    'throughput_per_s', m.throughput_per_s, 'latency_p50_ms', m.latency_p50_ms,
    'latency_p99_ms', m.latency_p99_ms, 'boot_seconds', m.boot_seconds, 'pricing', m.pricing,
    'price_per_hour', m.price_per_hour, 'currency', m.currency, 'price_source', m.price_source,
    'measured_at', m.measured_at, 'notes', m.notes, 'created_at', m.created_at,
    'derived', json_build_object(
      'cost_per_1k_inferences', imx_cost_per_1k(m.price_per_hour::float8, m.throughput_per_s),
      'boot_cost', imx_boot_cost(m.price_per_hour::float8, m.boot_seconds),
      'currency', m.currency,
      'basis', 'Derived from the recorded throughput_per_s and price_per_hour, not measured: '
               'cost_per_1k_inferences = price_per_hour / (throughput_per_s * 3600) * 1000; '
               'boot_cost = price_per_hour * boot_seconds / 3600.'))
$$;

-- Records one measurement from j (fields as in POST /v1/measurements, already type-checked and
-- range-checked by the server). Checks what needs the database: the image, the instance type,
-- gpu_count against it, measured_at (a time, not in the future) and the default price.
-- Returns {"errors":[{"pointer","detail"}]} (nothing inserted) or {"measurement":{...}}.
CREATE OR REPLACE FUNCTION imx_measurement_record(p_team bigint, p_user bigint, j jsonb) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  errs jsonb := '[]';
  it ref_instance_type;
  at timestamptz;
  v_region text;
  v_price numeric;
  v_currency text;
  v_source text := 'given';
  v_pricing text := coalesce(j->>'pricing', 'on_demand');
  m measurements;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM images WHERE id = (j->>'image')::bigint) THEN
    errs := errs || jsonb_build_object('pointer', '/image', 'detail', 'no such image');
  END IF;
  SELECT * INTO it FROM ref_instance_type t
   WHERE t.instance_type = j->>'instance_type'
     AND t.provider = coalesce(j->>'provider', 'aws');
  IF NOT FOUND THEN
    errs := errs || jsonb_build_object('pointer', '/instance_type', 'detail',
                                       'unknown instance type (see GET /v1/instance-types)');
  ELSIF (j->>'gpu_count')::int > it.gpu_count THEN
    errs := errs || jsonb_build_object('pointer', '/gpu_count', 'detail',
                      format('%s has %s GPUs', it.instance_type, it.gpu_count));
  END IF;
  BEGIN
    at := (j->>'measured_at')::timestamptz;
    IF at > now() + interval '5 minutes' THEN
      errs := errs || jsonb_build_object('pointer', '/measured_at', 'detail', 'is in the future');
    END IF;
  EXCEPTION WHEN data_exception THEN
    errs := errs || jsonb_build_object('pointer', '/measured_at',
                                       'detail', 'must be an RFC 3339 time');
  END;
  IF jsonb_array_length(errs) > 0 THEN
    RETURN json_build_object('errors', errs);
  END IF;
  v_region := coalesce(j->>'region', it.price_region);
  v_price := (j->>'price_per_hour')::numeric;
  v_currency := coalesce(j->>'currency', 'USD');
  IF v_price IS NULL THEN
    SELECT p.price_per_hour, p.currency INTO v_price, v_currency
      FROM imx_price_at(it.provider, it.instance_type, v_pricing, v_region, at) p;
    IF NOT FOUND THEN
      RETURN json_build_object('errors', jsonb_build_array(jsonb_build_object(
        'pointer', '/price_per_hour', 'detail',
        format('no %s price of %s in %s valid at %s is known; send price_per_hour',
               v_pricing, it.instance_type, v_region, at))));
    END IF;
    v_source := 'price_table';
  END IF;
  INSERT INTO measurements (team_id, image_id, provider, instance_type, region, gpu_model,
    gpu_count, model, precision, batch_size, throughput_per_s, latency_p50_ms, latency_p99_ms,
    boot_seconds, pricing, price_per_hour, currency, price_source, measured_at, notes, created_by)
  VALUES (p_team, (j->>'image')::bigint, it.provider, it.instance_type, v_region, it.gpu_model,
    coalesce((j->>'gpu_count')::int, it.gpu_count), j->>'model', j->>'precision',
    (j->>'batch_size')::int, (j->>'throughput_per_s')::float8, (j->>'latency_p50_ms')::float8,
    (j->>'latency_p99_ms')::float8, (j->>'boot_seconds')::float8, v_pricing, v_price,
    v_currency, v_source, at, coalesce(j->>'notes', ''), p_user)
  RETURNING * INTO m;
  RETURN json_build_object('measurement', imx_measurement_json(m));
END
$$;

-- Compare's OS rows: [{"name": "os_patch_status", "values": [...], "differs"}, {"name":
-- "os_advisories", "values": [os_packages.advisories of each image, null without an
-- inventory], "differs"}], in the order of p_ids.
CREATE OR REPLACE FUNCTION imx_compare_os_fields(p_ids bigint[]) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v json;
BEGIN
  WITH imgs AS (
    SELECT u.ord, i.os_patch_status, imx_image_os_json(i.id)::jsonb -> 'advisories' AS advs
      FROM unnest(p_ids) WITH ORDINALITY u(id, ord) JOIN images i ON i.id = u.id
  )
  SELECT json_build_array(
    json_build_object('name', 'os_patch_status',
      'values', jsonb_agg(to_jsonb(os_patch_status) ORDER BY ord),
      'differs', count(DISTINCT coalesce(os_patch_status, '')) > 1),
    json_build_object('name', 'os_advisories',
      'values', jsonb_agg(coalesce(advs, 'null'::jsonb) ORDER BY ord),
      'differs', count(DISTINCT coalesce(advs, 'null'::jsonb)) > 1))
    INTO v
    FROM imgs;
  RETURN v;
END
$$;

-- The costs one caller's scope sees of p_ids, one row per position: best ({model: least median
-- cost per 1k}, '{}' when nothing is measured) and boot (median boot seconds, or null). The
-- medians are per (provider, instance type, pricing) group, the least per model, the boot median
-- over all the scope's measurements of the image.
CREATE OR REPLACE FUNCTION imx_compare_costs(p_ids bigint[], p_user bigint, p_token_team bigint,
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
CREATE OR REPLACE FUNCTION imx_compare_batch(p_req int[], p_ids bigint[], p_user bigint[],
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
