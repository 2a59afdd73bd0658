-- Webhooks: team subscriptions, the transactional outbox (events + one delivery per
-- (event, subscription)) and every delivery attempt. Producers call imx_webhook_enqueue()
-- inside the transaction of the change; dispatchers claim with imx_webhook_claim() and report
-- with imx_webhook_finish(). See server/webhooks/ and README "Webhooks".

-- imaxe:load functions/webhooks.sql

CREATE TYPE webhook_delivery_state AS ENUM ('pending', 'delivered', 'failed');

CREATE TABLE webhooks (
    id                         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_id                    bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    url                        text NOT NULL
                               CHECK (url ~* '^https?://[^/?#\s]+' AND length(url) <= 2048),
    description                text NOT NULL DEFAULT '' CHECK (length(description) <= 500),
    -- whsec_ + base64 of 32 random bytes.
    secret                     text NOT NULL CHECK (secret ~ '^whsec_[A-Za-z0-9+/]{43}=$'),
    previous_secret            text CHECK (previous_secret ~ '^whsec_[A-Za-z0-9+/]{43}=$'),
    previous_secret_expires_at timestamptz,
    event_types                text[] NOT NULL
                               CHECK (cardinality(event_types) BETWEEN 1 AND 16
                                      AND event_types <@ imx_webhook_event_types()),
    filter_families            text[] NOT NULL DEFAULT '{}' CHECK (cardinality(filter_families) <= 100),
    filter_pins                text[] NOT NULL DEFAULT '{}' CHECK (cardinality(filter_pins) <= 100),
    min_severity               text CHECK (min_severity IN ('low', 'medium', 'high', 'critical')),
    enabled                    boolean NOT NULL DEFAULT true,
    disabled_reason            text CHECK (length(disabled_reason) <= 1000),
    disabled_at                timestamptz,
    -- First failed attempt since the last success; the subscription is disabled when this
    -- gets too old.
    failing_since              timestamptz,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now(),
    CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL)),
    CHECK (enabled OR (disabled_reason IS NOT NULL AND disabled_at IS NOT NULL))
);
CREATE INDEX webhooks_team ON webhooks (team_id) WHERE enabled;
COMMENT ON TABLE webhooks IS 'Webhook subscriptions of a team (at most 50 a team).';

CREATE TABLE webhook_events (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_id    bigint REFERENCES teams (id) ON DELETE CASCADE, -- NULL: sent to every team
    type       text NOT NULL CHECK (type = ANY (imx_webhook_event_types())),
    data       jsonb NOT NULL CHECK (jsonb_typeof(data) = 'object'),
    families   text[] NOT NULL DEFAULT '{}',
    pins       text[] NOT NULL DEFAULT '{}',
    severity   text CHECK (severity IS NULL OR imx_webhook_severity_rank(severity) IS NOT NULL),
    -- The exact bytes every delivery of this event posts (signatures cover them).
    body       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_team ON webhook_events (team_id, id);
COMMENT ON TABLE webhook_events IS 'Outbox: one row per event, written in the transaction of the change.';

CREATE TABLE webhook_deliveries (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        bigint NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    webhook_id      bigint NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    state           webhook_delivery_state NOT NULL DEFAULT 'pending',
    -- Attempts in the current round (the retry schedule index); redeliver starts a new round.
    attempts        int NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    -- Due time while pending. A claim moves it forward by the lease, so a claim whose worker
    -- died becomes due again on its own.
    next_attempt_at timestamptz,
    -- Incremented by every claim: the fencing token a worker must present to finish.
    lease_seq       bigint NOT NULL DEFAULT 0,
    leased_by       text,
    last_status     int,
    last_error      text,
    delivered_at    timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (event_id, webhook_id),
    CHECK ((state = 'pending') = (next_attempt_at IS NOT NULL)),
    CHECK ((state = 'delivered') = (delivered_at IS NOT NULL))
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
-- Per-subscription FIFO: the oldest pending delivery of a subscription goes first.
CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (webhook_id, id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id DESC);
COMMENT ON TABLE webhook_deliveries IS 'Outbox: one row per (event, subscription); state machine pending -> delivered | failed.';

CREATE TABLE webhook_attempts (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id     bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt         int NOT NULL CHECK (attempt >= 1),
    started_at      timestamptz NOT NULL,
    status_code     int CHECK (status_code BETWEEN 100 AND 999),
    latency_ms      int NOT NULL CHECK (latency_ms >= 0),
    error           text CHECK (length(error) <= 1000),
    response_body   text CHECK (length(response_body) <= 65536),
    next_attempt_at timestamptz,
    worker          text NOT NULL DEFAULT ''
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);
COMMENT ON TABLE webhook_attempts IS 'Every delivery attempt: when, HTTP status, latency, error, response (64 KiB at most).';

-- imaxe:load procedures/webhook_outbox.sql

