-- SQL functions: who a caller is, as the other SQL sees it. Re-applied by server/db/migrate.c
-- whenever this file changes.
-- Callers: imx_caller_teams from server/db/costs.c and server/db/requests.c (and
-- functions/costs.sql); imx_auth_epoch_move is the trigger function of 0020_point_reads.sql's
-- auth-epoch triggers on api_tokens, users and memberships (nothing calls it directly).

-- The teams whose measurements a caller sees: their memberships, only the token's team for an
-- API token (p_token_team NULL: any), optionally one team (p_team NULL: all of them).
CREATE OR REPLACE FUNCTION imx_caller_teams(p_user bigint, p_token_team bigint, p_team bigint)
RETURNS SETOF bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT m.team_id FROM memberships m
   WHERE m.user_id = p_user AND (p_token_team IS NULL OR m.team_id = p_token_team)
     AND (p_team IS NULL OR m.team_id = p_team)
$$;

CREATE OR REPLACE FUNCTION imx_auth_epoch_move() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE auth_epoch SET n = n + 1;
  RETURN NULL;
END
$$;
