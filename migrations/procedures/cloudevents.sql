-- The CloudEvents 1.0 form of a stored event (structured content mode, JSON format), built when a
-- delivery to a subscription with payload_format 'cloudevents' is claimed (server/db/webhooks.c):
-- the same id as the webhook-id header, type dev.imaxe.<event type>, source /imaxe, the event's
-- time and data. p_body is the imaxe envelope {id, type, timestamp, data}.
CREATE OR REPLACE FUNCTION imx_webhook_cloudevent(p_msg_id text, p_body text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT json_build_object('specversion', '1.0', 'id', p_msg_id, 'source', '/imaxe',
           'type', 'dev.imaxe.' || (b ->> 'type'), 'time', b ->> 'timestamp',
           'datacontenttype', 'application/json', 'data', b -> 'data')::text
    FROM (SELECT p_body::json AS b) x
$$;
