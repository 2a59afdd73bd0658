-- A team can be disabled by a global admin (PATCH /v1/teams/{slug} {"disabled": true}): its
-- members keep reading it, every write that needs a role above viewer in it is refused
-- (server/api/access.c), and its webhooks get no new deliveries and send none of those queued
-- (procedures/webhook_outbox.sql). Nothing is deleted, so enabling it again restores all of it.
ALTER TABLE teams ADD COLUMN disabled_at timestamptz;
COMMENT ON COLUMN teams.disabled_at IS 'When a global admin disabled the team (NULL: enabled); writes in it are refused and its webhooks hold.';
