-- Resolve by pin as one SELECT the planner inlines, so that the statement that resolves the pins
-- of every request waiting at once (server/db/pins.c q_resolve_batch, coalesced by
-- db/read_batch.c) runs them in its own plan. 0050's imx_pin_resolve, a PL/pgSQL function, cost
-- ~55 us of PostgreSQL CPU a call inside such a statement, its two queries planned and run
-- apart; imx_pin_resolve is now this SELECT too (the read replica's path and
-- IMAXE_READ_CACHE=0 call it), so both answer the same document, key for key:
-- {pin: {id, team, name} | null, image: summary | null, artifact_id, emptied_by}, never a
-- revoked image.
CREATE FUNCTION imx_pin_resolution(p_team bigint, p_name text, p_region text)
RETURNS TABLE (doc json)
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'pin', CASE WHEN x.id IS NOT NULL THEN
      json_build_object('id', x.id, 'team', t.slug, 'name', x.name) END,
    'image', CASE WHEN a.artifact_id IS NOT NULL THEN
      coalesce(CASE WHEN i.summary IS NOT NULL AND i.revoke_at IS NULL
                     AND current_setting('TimeZone') IN ('UTC', 'Etc/UTC') THEN i.summary END,
               imx_image_summary(i.id)) END,
    'artifact_id', a.artifact_id,
    'emptied_by', CASE WHEN x.id IS NULL THEN 'pin'
                       WHEN a.artifact_id IS NOT NULL THEN NULL
                       WHEN u.usable THEN 'region' ELSE 'status' END)
    FROM (SELECT 1) one
    LEFT JOIN pins x ON x.team_id = p_team AND x.name = p_name
    LEFT JOIN teams t ON t.id = x.team_id
    LEFT JOIN images i ON i.id = x.image_id
    LEFT JOIN LATERAL (
      SELECT i.status <> 'revoked' AND i.patch_status <> 'revoked'
             AND (i.revoke_at IS NULL OR i.revoke_at > now()) AS usable) u ON true
    LEFT JOIN image_artifacts a ON u.usable AND a.image_id = i.id AND a.region = p_region
$$;

CREATE OR REPLACE FUNCTION imx_pin_resolve(p_team bigint, p_name text, p_region text)
RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT doc FROM imx_pin_resolution(p_team, p_name, p_region)
$$;
