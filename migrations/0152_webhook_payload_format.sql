-- A subscription's payload format: imaxe's envelope ({id, type, timestamp, data}) or a
-- CloudEvents 1.0 structured JSON event (migrations/procedures/cloudevents.sql), both signed the
-- Standard Webhooks way.
ALTER TABLE webhooks
  ADD COLUMN payload_format text NOT NULL DEFAULT 'imaxe'
    CHECK (payload_format IN ('imaxe', 'cloudevents'));
