-- The webhook outbox's producer side, claiming and retention. imx_webhook_enqueue is called by
-- every use case that announces something, inside its transaction, and by
-- imx_webhooks_enqueue() in server/db/webhooks.c; imx_webhook_claim by imx_db_webhook_claim() and
-- imx_webhook_prune by imx_db_webhook_prune() (server/db/webhooks.c) for the dispatchers
-- (server/webhooks/dispatcher.c). Finishing a delivery is imx_webhook_finish in
-- functions/webhooks.sql.

-- imx_webhook_enqueue: records an event and one pending delivery for every enabled
-- subscription that wants it, then wakes the dispatchers (NOTIFY is sent on commit only). An
-- event no subscription wants is not stored at all.
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
-- Returns the event id (the webhook-id header of its deliveries is 'msg_' || id), or NULL when
-- no subscription wanted it.
-- Does subscription w want an event of this team, type and families/pins/severity? (Every
-- producer's one filter: imx_webhook_enqueue and imx_patch_announce's batch.)
CREATE OR REPLACE FUNCTION imx_webhook_wants(w webhooks, p_team_id bigint, p_type text,
                                             p_families text[], p_pins text[], p_severity text,
                                             p_listed_only boolean)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT w.enabled
     AND (p_team_id IS NULL OR w.team_id = p_team_id)
     -- A disabled team's webhooks get nothing new (migrations/0340_team_disabled.sql).
     AND NOT EXISTS (SELECT 1 FROM teams t WHERE t.id = w.team_id AND t.disabled_at IS NOT NULL)
     AND p_type = ANY (w.event_types)
     AND (CASE WHEN p_listed_only THEN w.filter_families && coalesce(p_families, '{}')
               ELSE w.filter_families = '{}' OR coalesce(p_families, '{}') = '{}'
                    OR w.filter_families && p_families END)
     AND (w.filter_pins = '{}' OR coalesce(p_pins, '{}') = '{}' OR w.filter_pins && p_pins)
     AND (w.min_severity IS NULL OR p_severity IS NULL
          OR imx_webhook_severity_rank(p_severity) >= imx_webhook_severity_rank(w.min_severity))
$$;

CREATE OR REPLACE FUNCTION imx_webhook_enqueue(p_team_id bigint, p_type text, p_data jsonb,
                                               p_families text[] DEFAULT '{}',
                                               p_pins text[] DEFAULT '{}',
                                               p_severity text DEFAULT NULL,
                                               p_listed_only boolean DEFAULT false)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_id bigint;
  v_at timestamptz := clock_timestamp();
  v_subs bigint[];
BEGIN
  v_subs := ARRAY(
    SELECT w.id FROM webhooks w
     WHERE w.enabled
       AND imx_webhook_wants(w, p_team_id, p_type, p_families, p_pins, p_severity, p_listed_only)
     ORDER BY w.id);
  IF cardinality(v_subs) = 0 THEN
    RETURN NULL;
  END IF;
  v_id := nextval(pg_get_serial_sequence('webhook_events', 'id'));
  INSERT INTO webhook_events (id, team_id, type, data, families, pins, severity, body, created_at)
  OVERRIDING SYSTEM VALUE
  VALUES (v_id, p_team_id, p_type, coalesce(p_data, '{}'), coalesce(p_families, '{}'),
          coalesce(p_pins, '{}'), p_severity,
          json_build_object('id', 'msg_' || v_id, 'type', p_type,
            'timestamp', to_char(v_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
            'data', coalesce(p_data, '{}'))::text,
          v_at);
  INSERT INTO webhook_deliveries (event_id, webhook_id, next_attempt_at)
  SELECT v_id, s, v_at FROM unnest(v_subs) s ORDER BY s;
  -- One constant payload: PostgreSQL folds identical notifications of a transaction into one.
  PERFORM pg_notify('imx_webhooks', '');
  RETURN v_id;
END
$$;

-- Retention: removes up to p_batch delivered or failed deliveries (with their attempts) last
-- changed before p_retention ago, and up to p_batch events older than that with no delivery
-- left. A pending delivery, and so its event, is never removed. Small batches keep each call
-- short; the dispatcher calls again while a batch comes back full. Returns
-- {"deliveries": n, "events": n, "pending": n, "stored_events": n (estimate)}.
CREATE OR REPLACE FUNCTION imx_webhook_prune(p_retention interval, p_batch integer)
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_deliveries integer;
  v_events integer;
BEGIN
  DELETE FROM webhook_deliveries d
   WHERE d.id IN (SELECT x.id FROM webhook_deliveries x
                   WHERE x.state <> 'pending' AND x.updated_at < now() - p_retention
                   ORDER BY x.updated_at LIMIT p_batch);
  GET DIAGNOSTICS v_deliveries = ROW_COUNT;
  DELETE FROM webhook_events e
   WHERE e.id IN (SELECT x.id FROM webhook_events x
                   WHERE x.created_at < now() - p_retention
                     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = x.id)
                   ORDER BY x.created_at LIMIT p_batch);
  GET DIAGNOSTICS v_events = ROW_COUNT;
  RETURN json_build_object('deliveries', v_deliveries, 'events', v_events,
    'pending', (SELECT count(*) FROM webhook_deliveries WHERE state = 'pending'),
    'stored_events', (SELECT greatest(reltuples, 0)::bigint FROM pg_class
                       WHERE oid = 'webhook_events'::regclass));
END
$$;

-- imx_webhook_claim: leases the next due delivery to
-- p_worker for p_lease_ms, in one short statement. A subscription's deliveries go one at a
-- time in id order, so only the oldest pending delivery of each subscription (its head, one
-- index probe per subscription) can be claimed, when it is due; a leased head is not due until
-- its lease runs out. (0005 looked for "no older pending delivery" per pending delivery: with
-- 9,000 pending for one subscription a claim took 1.4 s, and a 10,000-pin fan-out crawled.)
-- Concurrent claimers skip each other's rows (SKIP LOCKED). No row when nothing is due.
CREATE OR REPLACE FUNCTION imx_webhook_claim(p_worker text, p_lease_ms int)
RETURNS TABLE (delivery_id bigint, lease_seq bigint, attempt int, webhook_id bigint,
               url text, secret text, previous_secret text, msg_id text, body text)
LANGUAGE sql AS $$
  WITH heads AS (
    SELECT h.id, h.next_attempt_at
      FROM webhooks w
      CROSS JOIN LATERAL (SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
                           WHERE d.webhook_id = w.id AND d.state = 'pending'
                           ORDER BY d.id LIMIT 1) h
     WHERE w.enabled AND h.next_attempt_at <= clock_timestamp()
       -- What a disabled team's webhooks had queued waits, pending, until it is enabled again.
       AND NOT EXISTS (SELECT 1 FROM teams t WHERE t.id = w.team_id AND t.disabled_at IS NOT NULL)
  ), c AS (
    SELECT d.id
      FROM webhook_deliveries d JOIN heads h ON h.id = d.id
     WHERE d.state = 'pending' AND d.next_attempt_at <= clock_timestamp()
     ORDER BY h.next_attempt_at, d.id
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
