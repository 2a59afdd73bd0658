-- SQL functions: webhook subscriptions and deliveries (tables in 0005_webhooks.sql). Re-applied
-- by server/db/migrate.c whenever this file changes.
-- Callers: server/db/webhooks.c (imx_webhook_ping, imx_webhook_redeliver,
-- imx_webhook_rotate_secret, imx_webhook_set_enabled, imx_webhook_finish for the dispatchers);
-- server/api/webhooks.c lists imx_webhook_event_types()'s names (test_webhook_api.c checks they
-- agree). The producer side (imx_webhook_enqueue) and claiming are in
-- procedures/webhook_outbox.sql.

-- image.compatibility_changed: an image's stored report changed because the reference data did;
-- node.drifted: a node's report started to differ from its image (or differs differently, 0140);
-- advisory.exploited (procedures/risk_feeds.sql) and image.eol_approaching (procedures/eol.sql).
CREATE OR REPLACE FUNCTION imx_webhook_event_types() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ARRAY['patch.available', 'image.published', 'image.deprecated', 'image.revoked',
               'advisory.published', 'pin.moved', 'request.updated', 'ping',
               'image.compatibility_changed', 'node.drifted', 'advisory.exploited',
               'image.eol_approaching']
$$;

-- Severity order for min_severity filters; NULL for an unknown name.
CREATE OR REPLACE FUNCTION imx_webhook_severity_rank(s text) RETURNS int
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT array_position(ARRAY['none', 'low', 'medium', 'high', 'critical'], s)
$$;

-- imx_webhook_ping: a 'ping' event for one subscription (POST /v1/webhooks/{id}/test), sent
-- whether or not the subscription lists 'ping'. Raises when the subscription does not exist
-- or is disabled. Returns the delivery id.
CREATE OR REPLACE FUNCTION imx_webhook_ping(p_webhook_id bigint) RETURNS bigint
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
CREATE OR REPLACE FUNCTION imx_webhook_redeliver(p_delivery_id bigint) RETURNS boolean
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
CREATE OR REPLACE FUNCTION imx_webhook_rotate_secret(p_webhook_id bigint, p_secret text,
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
CREATE OR REPLACE FUNCTION imx_webhook_set_enabled(p_webhook_id bigint, p_enabled boolean,
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

-- imx_webhook_finish: records one attempt and moves its delivery on.
--   p_outcome       'delivered' (2xx), 'retry' (failed; try again in p_retry_ms, or fail the
--                   delivery when p_retry_ms is NULL: the schedule is exhausted), or 'gone'
--                   (410: fail it and disable the subscription)
--   p_disable_after the subscription is disabled once it has failed continuously this long
-- The attempt is recorded even when the lease was lost (the request was sent), but only the
-- lease holder (p_lease_seq) moves the delivery. Returns the delivery's resulting state, or
-- 'stale' when the lease had been lost.
CREATE OR REPLACE FUNCTION imx_webhook_finish(p_delivery_id bigint, p_lease_seq bigint, p_worker text,
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
