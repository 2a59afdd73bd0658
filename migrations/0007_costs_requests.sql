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

-- imaxe:load functions/costs.sql

-- imaxe:load functions/auth.sql

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

-- imaxe:load procedures/publish_images.sql

-- imaxe:load functions/requests.sql

