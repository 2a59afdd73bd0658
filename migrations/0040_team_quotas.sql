-- Team quotas set by configuration (issue 17): the webhook subscription limit was a trigger with
-- 50 written in it; the handler now counts under the team's advisory lock against
-- IMAXE_QUOTA_WEBHOOKS_PER_TEAM (as pins count against IMAXE_QUOTA_PINS_PER_TEAM), and both
-- counts read an index on the team.
DROP TRIGGER webhooks_limit ON webhooks;
DROP FUNCTION imx_webhooks_limit();
COMMENT ON TABLE webhooks IS 'Webhook subscriptions of a team (at most IMAXE_QUOTA_WEBHOOKS_PER_TEAM, 50 by default).';
CREATE INDEX webhooks_team_all ON webhooks (team_id);
