-- Per-inference cost and boot-time measurements with dated instance prices, and image requests
-- (a team asks for a stack; the catalog team approves, builds and fulfils it).

-- ---------------------------------------------------------------------------
-- Instance types: admins add providers and types, so the provider list is open.
ALTER TABLE ref_instance_type DROP CONSTRAINT ref_instance_type_provider_check;
ALTER TABLE ref_instance_type ADD CONSTRAINT ref_instance_type_provider_check
  CHECK (provider ~ '^[a-z][a-z0-9-]{0,31}$');
ALTER TABLE ref_instance_type ADD CONSTRAINT ref_instance_type_type_check
  CHECK (instance_type ~ '^[a-z0-9][a-z0-9._-]{0,63}$');

-- Dated prices: a measurement keeps the price it was computed with because it copies it; this
-- history says which price was valid when, so a default can be taken for any measured_at.
CREATE TABLE instance_type_prices (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider       text NOT NULL,
    instance_type  text NOT NULL,
    pricing        text NOT NULL CHECK (pricing IN ('on_demand', 'spot', 'reserved')),
    region         text NOT NULL CHECK (region ~ '^[a-z0-9][a-z0-9-]{0,63}$'),
    price_per_hour numeric(12,6) NOT NULL CHECK (price_per_hour >= 0),
    currency       text NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$'),
    valid_from     timestamptz NOT NULL,
    source         text NOT NULL DEFAULT '' CHECK (length(source) <= 1000),
    created_at     timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (provider, instance_type) REFERENCES ref_instance_type (provider, instance_type)
      ON UPDATE CASCADE ON DELETE CASCADE,
    UNIQUE (provider, instance_type, pricing, region, valid_from)
);
COMMENT ON TABLE instance_type_prices IS
  'Price history per instance type, pricing kind and region: a price holds from valid_from until the next one. Seeded from ref_instance_type (AWS on-demand list prices).';

INSERT INTO instance_type_prices (provider, instance_type, pricing, region, price_per_hour,
                                  currency, valid_from, source)
SELECT provider, instance_type, replace(pricing_kind, '-', '_'), price_region, price_per_hour,
       currency, price_as_of::timestamptz, source
  FROM ref_instance_type WHERE price_per_hour IS NOT NULL;

-- The price valid at a moment (no row: none known yet).
CREATE FUNCTION imx_price_at(p_provider text, p_type text, p_pricing text, p_region text,
                             p_at timestamptz)
RETURNS TABLE (price_per_hour numeric, currency text, valid_from timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT p.price_per_hour, p.currency, p.valid_from FROM instance_type_prices p
   WHERE p.provider = p_provider AND p.instance_type = p_type AND p.pricing = p_pricing
     AND p.region = p_region AND p.valid_from <= p_at
   ORDER BY p.valid_from DESC LIMIT 1
$$;

CREATE FUNCTION imx_instance_type_json(p_provider text, p_type text) RETURNS json
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
CREATE FUNCTION imx_cost_per_1k(price_per_hour float8, throughput_per_s float8) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT price_per_hour / (throughput_per_s * 3600) * 1000
$$;
CREATE FUNCTION imx_boot_cost(price_per_hour float8, boot_seconds float8) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT price_per_hour * boot_seconds / 3600
$$;
-- Cost of daily_inferences a day for an average month of 30.44 days (365.25 / 12).
CREATE FUNCTION imx_monthly_cost(cost_per_1k float8, daily_inferences float8) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT cost_per_1k * daily_inferences / 1000 * 30.44
$$;

CREATE TABLE measurements (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_id          bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    image_id         bigint NOT NULL REFERENCES images (id),
    provider         text NOT NULL,
    instance_type    text NOT NULL,
    region           text NOT NULL CHECK (region ~ '^[a-z0-9][a-z0-9-]{0,63}$'),
    gpu_model        text NOT NULL,
    gpu_count        int NOT NULL CHECK (gpu_count > 0),
    model            text NOT NULL CHECK (model ~ '^[A-Za-z0-9][A-Za-z0-9._:/+-]{0,127}$'),
    precision        text NOT NULL CHECK (precision ~ '^[a-z0-9][a-z0-9_-]{0,15}$'),
    batch_size       int NOT NULL CHECK (batch_size > 0),
    throughput_per_s float8 NOT NULL CHECK (throughput_per_s > 0 AND throughput_per_s < 'Infinity'),
    latency_p50_ms   float8 CHECK (latency_p50_ms > 0 AND latency_p50_ms < 'Infinity'),
    latency_p99_ms   float8 CHECK (latency_p99_ms > 0 AND latency_p99_ms < 'Infinity'),
    boot_seconds     float8 CHECK (boot_seconds >= 0 AND boot_seconds < 'Infinity'),
    pricing          text NOT NULL CHECK (pricing IN ('on_demand', 'spot', 'reserved')),
    price_per_hour   numeric(12,6) NOT NULL CHECK (price_per_hour >= 0),
    currency         text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    price_source     text NOT NULL CHECK (price_source IN ('given', 'price_table')),
    measured_at      timestamptz NOT NULL,
    notes            text NOT NULL DEFAULT '' CHECK (length(notes) <= 2000),
    created_by       bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (provider, instance_type) REFERENCES ref_instance_type (provider, instance_type)
      ON UPDATE CASCADE,
    CHECK (latency_p99_ms >= latency_p50_ms),
    CHECK (measured_at <= created_at + interval '5 minutes')
);
CREATE INDEX measurements_team_model ON measurements (team_id, model);
CREATE INDEX measurements_image ON measurements (image_id, team_id);
COMMENT ON TABLE measurements IS
  'Team-owned benchmark results of an image on an instance type. price_per_hour is copied at record time (given, or from instance_type_prices valid at measured_at) so later price changes never alter a measurement.';

CREATE FUNCTION imx_measurement_json(m measurements) RETURNS json
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
CREATE FUNCTION imx_measurement_record(p_team bigint, p_user bigint, j jsonb) RETURNS json
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

-- The teams whose measurements a caller sees: their memberships, only the token's team for an
-- API token (p_token_team NULL: any), optionally one team (p_team NULL: all of them).
CREATE FUNCTION imx_caller_teams(p_user bigint, p_token_team bigint, p_team bigint)
RETURNS SETOF bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT m.team_id FROM memberships m
   WHERE m.user_id = p_user AND (p_token_team IS NULL OR m.team_id = p_token_team)
     AND (p_team IS NULL OR m.team_id = p_team)
$$;

-- ---------------------------------------------------------------------------
-- Image requests.
CREATE TABLE image_requests (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_id            bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    catalog_team_id    bigint NOT NULL REFERENCES teams (id),
    title              text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
    family             text CHECK (family ~ '^[a-z0-9][a-z0-9._-]{0,99}$'),
    os_name            text CHECK (os_name ~ '^[a-z][a-z0-9-]{0,31}$'),
    os_version         text CHECK (os_version ~ '^[0-9A-Za-z][0-9A-Za-z._-]{0,31}$'),
    architecture       text CHECK (architecture IN ('x86_64', 'arm64')),
    gpus               text[] NOT NULL DEFAULT '{}',
    tags               text[] NOT NULL DEFAULT '{}',
    justification      text NOT NULL DEFAULT '' CHECK (length(justification) <= 4000),
    state              text NOT NULL DEFAULT 'open'
                       CHECK (state IN ('open', 'approved', 'building', 'fulfilled', 'rejected',
                                        'withdrawn')),
    fulfilled_image_id bigint REFERENCES images (id),
    reason             text CHECK (length(reason) <= 2000),
    compatibility      jsonb NOT NULL DEFAULT '{}',
    created_by         bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    CHECK ((state = 'fulfilled') = (fulfilled_image_id IS NOT NULL)),
    CHECK (state <> 'rejected' OR reason IS NOT NULL)
);
CREATE INDEX image_requests_team ON image_requests (team_id, id);
CREATE INDEX image_requests_catalog ON image_requests (catalog_team_id, id);
CREATE INDEX image_requests_open ON image_requests (id) WHERE state = 'open';
COMMENT ON TABLE image_requests IS
  'A team asks the catalog team (catalog_team_id, fixed at creation) for an image with a stack. State machine: server/domain/request_state.c.';

-- A constraint with its version-key interval (imx_constraint_sql_bounds), as search uses them.
CREATE TABLE request_constraints (
    request_id bigint NOT NULL REFERENCES image_requests (id) ON DELETE CASCADE,
    ord        int NOT NULL,
    component  text NOT NULL CHECK (component ~ '^[a-z0-9][a-z0-9._+-]{0,63}$'),
    range      text NOT NULL CHECK (length(range) <= 300),
    lo         int[] NOT NULL,
    lo_incl    boolean NOT NULL,
    hi         int[] NOT NULL,
    hi_incl    boolean NOT NULL,
    PRIMARY KEY (request_id, ord)
);

CREATE TABLE request_events (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    request_id    bigint NOT NULL REFERENCES image_requests (id) ON DELETE CASCADE,
    at            timestamptz NOT NULL DEFAULT clock_timestamp(),
    actor_user_id bigint REFERENCES users (id) ON DELETE SET NULL,
    from_state    text,
    to_state      text NOT NULL,
    comment       text CHECK (length(comment) <= 2000),
    image_id      bigint REFERENCES images (id)
);
CREATE INDEX request_events_request ON request_events (request_id, id);

CREATE TABLE request_comments (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    request_id     bigint NOT NULL REFERENCES image_requests (id) ON DELETE CASCADE,
    at             timestamptz NOT NULL DEFAULT clock_timestamp(),
    author_user_id bigint REFERENCES users (id) ON DELETE SET NULL,
    body           text NOT NULL CHECK (length(body) BETWEEN 1 AND 4000)
);
CREATE INDEX request_comments_request ON request_comments (request_id, id);

-- Images that satisfy a request: found at creation (via 'existing') or when published later
-- (via 'published', kept by the trigger below).
CREATE TABLE request_matches (
    request_id bigint NOT NULL REFERENCES image_requests (id) ON DELETE CASCADE,
    image_id   bigint NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    via        text NOT NULL CHECK (via IN ('existing', 'published')),
    matched_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (request_id, image_id)
);
CREATE INDEX request_matches_image ON request_matches (image_id);

-- Does the image satisfy the request: active, every constraint met by its components, every
-- requested GPU supported, and os, architecture and tags as asked (family is the name proposed
-- for a new image, not a filter).
CREATE FUNCTION imx_request_satisfied_by(p_request bigint, p_image bigint) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT EXISTS (
    SELECT 1 FROM image_requests r JOIN images i ON i.id = p_image
     WHERE r.id = p_request AND i.status = 'active'
       AND (r.os_name IS NULL OR i.os_name = r.os_name)
       AND (r.os_version IS NULL OR i.os_version = r.os_version)
       AND (r.architecture IS NULL OR i.architecture = r.architecture)
       AND NOT EXISTS (SELECT 1 FROM unnest(r.gpus) g(gpu) WHERE NOT EXISTS (
             SELECT 1 FROM image_gpus ig WHERE ig.image_id = i.id AND ig.gpu = g.gpu))
       AND NOT EXISTS (SELECT 1 FROM unnest(r.tags) t(tag) WHERE NOT EXISTS (
             SELECT 1 FROM image_tags it WHERE it.image_id = i.id AND it.tag = t.tag))
       AND NOT EXISTS (SELECT 1 FROM request_constraints k WHERE k.request_id = r.id
             AND NOT EXISTS (SELECT 1 FROM image_components c
                              WHERE c.image_id = i.id AND c.name = k.component
                                AND c.version_key >= k.lo AND c.version_key <= k.hi
                                AND (k.lo_incl OR c.version_key <> k.lo)
                                AND (k.hi_incl OR c.version_key <> k.hi))))
$$;

-- Open requests that the image satisfies.
CREATE FUNCTION imx_requests_matching_image(p_image bigint) RETURNS SETOF bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT r.id FROM image_requests r
   WHERE r.state = 'open' AND imx_request_satisfied_by(r.id, p_image)
   ORDER BY r.id
$$;

-- Deferred to commit, so it sees the image's components, GPUs and tags whatever code path
-- inserted them (one statement or several in the same transaction).
CREATE FUNCTION imx_request_matches_on_publish() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE rid bigint;
BEGIN
  FOR rid IN SELECT imx_requests_matching_image(NEW.id) LOOP
    INSERT INTO request_matches (request_id, image_id, via) VALUES (rid, NEW.id, 'published')
      ON CONFLICT DO NOTHING;
    /* outbox: request.updated */
    -- (to the requesting team's subscriptions: {"request": rid, "match": NEW.id})
  END LOOP;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER images_request_matches AFTER INSERT ON images
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION imx_request_matches_on_publish();

CREATE FUNCTION imx_request_json(p_request bigint) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', r.id, 'team', t.slug, 'catalog_team', ct.slug, 'title', r.title, 'family', r.family,
    'os', CASE WHEN r.os_name IS NULL THEN NULL
               ELSE r.os_name || coalesce(':' || r.os_version, '') END,
    'architecture', r.architecture,
    'constraints', (SELECT coalesce(json_agg(json_build_object('component', k.component,
                      'range', k.range) ORDER BY k.ord), '[]')
                    FROM request_constraints k WHERE k.request_id = r.id),
    'gpus', to_json(r.gpus), 'tags', to_json(r.tags), 'justification', r.justification,
    'state', r.state, 'image', r.fulfilled_image_id, 'reason', r.reason,
    'compatibility', r.compatibility,
    'matches', (SELECT coalesce(json_agg(json_build_object('image', imx_image_summary(m.image_id),
                  'via', m.via, 'matched_at', m.matched_at)
                  ORDER BY (i.patch_status = 'ok') DESC, i.published_at DESC, i.id DESC), '[]')
                FROM request_matches m JOIN images i ON i.id = m.image_id
                WHERE m.request_id = r.id),
    'history', (SELECT coalesce(json_agg(json_build_object('at', e.at, 'from', e.from_state,
                  'to', e.to_state, 'comment', e.comment, 'image', e.image_id,
                  'by', (SELECT email FROM users WHERE id = e.actor_user_id)) ORDER BY e.id), '[]')
                FROM request_events e WHERE e.request_id = r.id),
    'comments', (SELECT coalesce(json_agg(json_build_object('id', c.id, 'at', c.at,
                   'body', c.body, 'by', (SELECT email FROM users WHERE id = c.author_user_id))
                   ORDER BY c.id), '[]')
                 FROM request_comments c WHERE c.request_id = r.id),
    'created_at', r.created_at, 'updated_at', r.updated_at)
  FROM image_requests r JOIN teams t ON t.id = r.team_id JOIN teams ct ON ct.id = r.catalog_team_id
  WHERE r.id = p_request
$$;
