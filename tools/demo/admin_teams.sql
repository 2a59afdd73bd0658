-- The demo admin (psql variable :email) as admin of every demo team, so that a first run opens on
-- working screens, not "team is required". Run by tools/run.sh once the server has created the
-- admin; does nothing for a user who is already a member, or when the demo is not loaded.
INSERT INTO memberships (team_id, user_id, role)
SELECT t.id, u.id, 'admin'
  FROM teams t CROSS JOIN users u
 WHERE t.slug IN ('demo-platform', 'demo-ml', 'demo-research') AND lower(u.email) = lower(:'email')
ON CONFLICT (team_id, user_id) DO NOTHING;
