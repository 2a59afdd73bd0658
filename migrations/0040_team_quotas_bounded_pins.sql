COMMENT ON TABLE webhooks IS 'Webhook subscriptions of a team (at most IMAXE_QUOTA_WEBHOOKS_PER_TEAM, 50 by default).';
CREATE INDEX webhooks_team_all ON webhooks (team_id);

