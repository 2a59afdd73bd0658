-- Webhooks: team subscriptions, the transactional outbox (events + one delivery per
-- (event, subscription)) and every delivery attempt. Producers call imx_webhook_enqueue()
-- inside the transaction of the change; dispatchers claim with imx_webhook_claim() and report
-- with imx_webhook_finish(). See server/webhooks/ and README "Webhooks".

-- Every event type a subscription may ask for, in one place.
CREATE FUNCTION imx_webhook_event_types() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ARRAY['patch.available', 'image.published', 'image.deprecated', 'image.revoked',
               'advisory.published', 'pin.moved', 'request.updated', 'ping']
$$;

-- Severity order for min_severity filters; NULL for an unknown name.
CREATE FUNCTION imx_webhook_severity_rank(s text) RETURNS int
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT array_position(ARRAY['none', 'low', 'medium', 'high', 'critical'], s)
$$;

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

-- At most 50 subscriptions a team. Locking the team row serializes concurrent inserts for
-- one team, so two transactions cannot both add the 50th.
CREATE FUNCTION imx_webhooks_limit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM teams WHERE id = NEW.team_id FOR UPDATE;
  IF (SELECT count(*) FROM webhooks WHERE team_id = NEW.team_id) >= 50 THEN
    RAISE EXCEPTION 'a team may have at most 50 webhook subscriptions'
      USING ERRCODE = 'check_violation', CONSTRAINT = 'webhooks_per_team_limit';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER webhooks_limit BEFORE INSERT ON webhooks
  FOR EACH ROW EXECUTE FUNCTION imx_webhooks_limit();

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

-- imx_webhook_enqueue: records an event and one pending delivery for every enabled
-- subscription that wants it, then wakes the dispatchers (NOTIFY is sent on commit only).
-- Call it inside the transaction of the change that caused the event.
--   p_team_id   owner team; NULL sends to the subscriptions of every team
--   p_type      one of imx_webhook_event_types()
--   p_data      the event's "data" object
--   p_families  image families the event is about ('{}': none)
--   p_pins      pins the event is about ('{}': none)
--   p_severity  'none' | 'low' | 'medium' | 'high' | 'critical' | NULL
--   p_listed_only  true: only subscriptions whose families filter lists one of p_families
--               (family-level patch.available goes to the families a subscription names)
-- A subscription filter applies only to events that carry that attribute: families and pins
-- match when they overlap, min_severity when the event's severity is at least that.
-- Returns the event id; the webhook-id header of its deliveries is 'msg_' || id.
CREATE FUNCTION imx_webhook_enqueue(p_team_id bigint, p_type text, p_data jsonb,
                                    p_families text[] DEFAULT '{}', p_pins text[] DEFAULT '{}',
                                    p_severity text DEFAULT NULL,
                                    p_listed_only boolean DEFAULT false)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_id bigint;
  v_at timestamptz := clock_timestamp();
  v_n  int;
BEGIN
  INSERT INTO webhook_events (team_id, type, data, families, pins, severity, body, created_at)
  VALUES (p_team_id, p_type, coalesce(p_data, '{}'), coalesce(p_families, '{}'),
          coalesce(p_pins, '{}'), p_severity, '', v_at)
  RETURNING id INTO v_id;
  UPDATE webhook_events
     SET body = json_build_object(
                  'id', 'msg_' || v_id, 'type', p_type,
                  'timestamp', to_char(v_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                  'data', coalesce(p_data, '{}'))::text
   WHERE id = v_id;

  INSERT INTO webhook_deliveries (event_id, webhook_id, next_attempt_at)
  SELECT v_id, w.id, v_at
    FROM webhooks w
   WHERE w.enabled
     AND (p_team_id IS NULL OR w.team_id = p_team_id)
     AND p_type = ANY (w.event_types)
     AND (CASE WHEN p_listed_only THEN w.filter_families && coalesce(p_families, '{}')
               ELSE w.filter_families = '{}' OR coalesce(p_families, '{}') = '{}'
                    OR w.filter_families && p_families END)
     AND (w.filter_pins = '{}' OR coalesce(p_pins, '{}') = '{}' OR w.filter_pins && p_pins)
     AND (w.min_severity IS NULL OR p_severity IS NULL
          OR imx_webhook_severity_rank(p_severity) >= imx_webhook_severity_rank(w.min_severity))
   ORDER BY w.id;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  -- One constant payload: PostgreSQL folds identical notifications of a transaction into one.
  IF v_n > 0 THEN
    PERFORM pg_notify('imx_webhooks', '');
  END IF;
  RETURN v_id;
END
$$;

-- imx_webhook_ping: a 'ping' event for one subscription (POST /v1/webhooks/{id}/test), sent
-- whether or not the subscription lists 'ping'. Raises when the subscription does not exist
-- or is disabled. Returns the delivery id.
CREATE FUNCTION imx_webhook_ping(p_webhook_id bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  w webhooks;
  v_event bigint;
  v_delivery bigint;
  v_at timestamptz := clock_timestamp();
BEGIN
  SELECT * INTO w FROM webhooks WHERE id = p_webhook_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'webhook % does not exist', p_webhook_id USING ERRCODE = 'no_data_found';
  END IF;
  IF NOT w.enabled THEN
    RAISE EXCEPTION 'webhook % is disabled', p_webhook_id USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  INSERT INTO webhook_events (team_id, type, data, body, created_at)
  VALUES (w.team_id, 'ping', jsonb_build_object('webhook_id', w.id), '', v_at)
  RETURNING id INTO v_event;
  UPDATE webhook_events
     SET body = json_build_object(
                  'id', 'msg_' || v_event, 'type', 'ping',
                  'timestamp', to_char(v_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                  'data', data)::text
   WHERE id = v_event;
  INSERT INTO webhook_deliveries (event_id, webhook_id, next_attempt_at)
  VALUES (v_event, w.id, v_at) RETURNING id INTO v_delivery;
  PERFORM pg_notify('imx_webhooks', '');
  RETURN v_delivery;
END
$$;

-- imx_webhook_redeliver: puts a delivered or failed delivery back in the queue for a new
-- round of attempts (same event, same webhook-id). Returns false when it is already pending
-- or does not exist, or its subscription is disabled.
CREATE FUNCTION imx_webhook_redeliver(p_delivery_id bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE webhook_deliveries d
     SET state = 'pending', attempts = 0, next_attempt_at = clock_timestamp(),
         delivered_at = NULL, updated_at = clock_timestamp()
    FROM webhooks w
   WHERE d.id = p_delivery_id AND d.state <> 'pending' AND w.id = d.webhook_id AND w.enabled;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM pg_notify('imx_webhooks', '');
  RETURN true;
END
$$;

-- imx_webhook_rotate_secret: makes p_secret the signing secret; the old one keeps signing too
-- (a second signature) for p_overlap, 24 hours by default. Returns false when not found.
CREATE FUNCTION imx_webhook_rotate_secret(p_webhook_id bigint, p_secret text,
                                          p_overlap interval DEFAULT '24 hours')
RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE webhooks
     SET previous_secret = secret, previous_secret_expires_at = now() + p_overlap,
         secret = p_secret, updated_at = now()
   WHERE id = p_webhook_id;
  RETURN FOUND;
END
$$;

-- imx_webhook_set_enabled: enables a subscription (clearing its failure record) or disables
-- it with a reason; disabling fails its pending deliveries (redeliver re-queues them later).
-- Returns false when not found.
CREATE FUNCTION imx_webhook_set_enabled(p_webhook_id bigint, p_enabled boolean,
                                        p_reason text DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF p_enabled THEN
    UPDATE webhooks
       SET enabled = true, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL,
           updated_at = now()
     WHERE id = p_webhook_id;
    RETURN FOUND;
  END IF;
  UPDATE webhooks
     SET enabled = false, disabled_reason = coalesce(p_reason, 'disabled'),
         disabled_at = now(), updated_at = now()
   WHERE id = p_webhook_id;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  UPDATE webhook_deliveries
     SET state = 'failed', next_attempt_at = NULL, leased_by = NULL,
         last_error = coalesce(last_error, 'subscription disabled: ' || coalesce(p_reason, 'disabled')),
         updated_at = now()
   WHERE webhook_id = p_webhook_id AND state = 'pending';
  RETURN true;
END
$$;

-- imx_webhook_claim: leases the next due delivery (the oldest pending one of its
-- subscription) to p_worker for p_lease_ms, in one short statement. Concurrent claimers skip
-- each other's rows (SKIP LOCKED); a lease that runs out makes the delivery due again.
-- Returns no row when nothing is due.
CREATE FUNCTION imx_webhook_claim(p_worker text, p_lease_ms int)
RETURNS TABLE (delivery_id bigint, lease_seq bigint, attempt int, webhook_id bigint,
               url text, secret text, previous_secret text, msg_id text, body text)
LANGUAGE sql AS $$
  WITH c AS (
    SELECT d.id
      FROM webhook_deliveries d
      JOIN webhooks w ON w.id = d.webhook_id AND w.enabled
     WHERE d.state = 'pending' AND d.next_attempt_at <= clock_timestamp()
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o
                        WHERE o.webhook_id = d.webhook_id AND o.state = 'pending' AND o.id < d.id)
     ORDER BY d.next_attempt_at, d.id
     LIMIT 1
       FOR UPDATE OF d SKIP LOCKED
  ), u AS (
    UPDATE webhook_deliveries d
       SET attempts = d.attempts + 1, lease_seq = d.lease_seq + 1, leased_by = p_worker,
           next_attempt_at = clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0),
           updated_at = clock_timestamp()
      FROM c
     WHERE d.id = c.id
    RETURNING d.id, d.lease_seq, d.attempts, d.webhook_id, d.event_id
  )
  SELECT u.id, u.lease_seq, u.attempts, w.id, w.url, w.secret,
         CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END,
         'msg_' || e.id, e.body
    FROM u JOIN webhooks w ON w.id = u.webhook_id JOIN webhook_events e ON e.id = u.event_id
$$;

-- imx_webhook_finish: records one attempt and moves its delivery on.
--   p_outcome       'delivered' (2xx), 'retry' (failed; try again in p_retry_ms, or fail the
--                   delivery when p_retry_ms is NULL: the schedule is exhausted), or 'gone'
--                   (410: fail it and disable the subscription)
--   p_disable_after the subscription is disabled once it has failed continuously this long
-- The attempt is recorded even when the lease was lost (the request was sent), but only the
-- lease holder (p_lease_seq) moves the delivery. Returns the delivery's resulting state, or
-- 'stale' when the lease had been lost.
CREATE FUNCTION imx_webhook_finish(p_delivery_id bigint, p_lease_seq bigint, p_worker text,
                                   p_started_at timestamptz, p_status int, p_latency_ms int,
                                   p_error text, p_response text, p_outcome text,
                                   p_retry_ms bigint, p_disable_after interval)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  d webhook_deliveries;
  v_next timestamptz;
  v_state webhook_delivery_state;
  v_reason text;
  v_since timestamptz;
BEGIN
  IF p_outcome NOT IN ('delivered', 'retry', 'gone') THEN
    RAISE EXCEPTION 'bad outcome %', p_outcome;
  END IF;
  SELECT * INTO d FROM webhook_deliveries WHERE id = p_delivery_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN 'stale';
  END IF;
  IF p_outcome = 'retry' AND p_retry_ms IS NOT NULL THEN
    v_next := clock_timestamp() + make_interval(secs => p_retry_ms / 1000.0);
  END IF;
  INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error,
                                response_body, next_attempt_at, worker)
  VALUES (d.id, greatest(d.attempts, 1), p_started_at, p_status, greatest(p_latency_ms, 0),
          left(p_error, 1000), left(p_response, 65536),
          CASE WHEN d.lease_seq = p_lease_seq THEN v_next END, p_worker);
  IF d.lease_seq <> p_lease_seq OR d.state <> 'pending' THEN
    RETURN 'stale';
  END IF;

  v_state := CASE WHEN p_outcome = 'delivered' THEN 'delivered'
                  WHEN v_next IS NOT NULL THEN 'pending'
                  ELSE 'failed' END;
  UPDATE webhook_deliveries
     SET state = v_state, next_attempt_at = v_next, leased_by = NULL, last_status = p_status,
         last_error = left(p_error, 1000),
         delivered_at = CASE WHEN v_state = 'delivered' THEN clock_timestamp() END,
         updated_at = clock_timestamp()
   WHERE id = d.id;

  IF p_outcome = 'delivered' THEN
    UPDATE webhooks SET failing_since = NULL WHERE id = d.webhook_id AND failing_since IS NOT NULL;
    RETURN v_state::text;
  END IF;

  UPDATE webhooks SET failing_since = coalesce(failing_since, p_started_at)
   WHERE id = d.webhook_id RETURNING failing_since INTO v_since;
  IF p_outcome = 'gone' THEN
    v_reason := 'the endpoint answered 410 Gone';
  ELSIF v_since < clock_timestamp() - p_disable_after THEN
    v_reason := format('every delivery failed since %s (last: %s)',
                       to_char(v_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                       coalesce(left(p_error, 200), 'HTTP ' || p_status));
  END IF;
  IF v_reason IS NOT NULL THEN
    UPDATE webhooks
       SET enabled = false, disabled_reason = v_reason, disabled_at = clock_timestamp(),
           updated_at = clock_timestamp()
     WHERE id = d.webhook_id AND enabled;
    -- Nothing more goes to a disabled endpoint; redeliver re-queues after it is re-enabled.
    UPDATE webhook_deliveries
       SET state = 'failed', next_attempt_at = NULL, leased_by = NULL,
           last_error = coalesce(last_error, 'subscription disabled: ' || v_reason),
           updated_at = clock_timestamp()
     WHERE webhook_id = d.webhook_id AND state = 'pending';
  END IF;
  RETURN v_state::text;
END
$$;
