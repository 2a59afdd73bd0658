/* SQL for who may see and change what: users, teams, memberships, API tokens, login throttling
 * and the audit log. Every function runs one prepared statement and returns a new result
 * (PQclear it); string arguments are borrowed, NULL is SQL NULL. */
#ifndef IMX_DB_AUTH_H
#define IMX_DB_AUTH_H

#include <libpq-fe.h>

#include "db/pool.h"

/* Principals */
/* token_hash (hex SHA-256) of a live token of an active user -> id, user_id, team_id, role,
 * is_admin, membership role, expiry, auth epoch, scope ('api' or 'node-report'). */
PGresult *imx_db_auth_api_token(struct imx_db_conn *c, const char *token_hash);
/* An active user -> is_admin. */
PGresult *imx_db_auth_user_active(struct imx_db_conn *c, const char *user_id);

/* The auth epoch (migrations/0020_point_reads.sql) into *epoch. Returns 0, or -1 when the
 * database failed. */
int imx_db_auth_epoch(struct imx_db_conn *c, long long *epoch);
/* An active user by email (case-insensitive) -> id, password_hash. */
PGresult *imx_db_auth_login_user(struct imx_db_conn *c, const char *email);
/* Creates the first admin when there are no users -> id (no row when users exist). */
PGresult *imx_db_auth_bootstrap(struct imx_db_conn *c, const char *email, const char *hash);

/* Roles */
/* The user's highest role in any team -> role (NULL when none). */
PGresult *imx_db_auth_max_role(struct imx_db_conn *c, const char *user_id);
/* What a statement that checks the caller's team along with what it reads begins every row with:
 * the auth epoch, the team with the slug (team_id 0 when there is none) and the user's role there
 * (role "" when none). res holds them and the rest of what was read. */
struct imx_db_team_read {
    PGresult *res; /* after a failed call, the failed result (or NULL); imx_db_team_read_free() */
    long long epoch, team_id;
    const char *role;
};
/* Takes res, whose row 0 starts (epoch, team id, role): 0 with *t filled, or -1 with the failed
 * result in t->res. */
int imx_db_team_read_take(PGresult *res, struct imx_db_team_read *t);
void imx_db_team_read_free(struct imx_db_team_read *t);
/* A team by slug and the user's role there, with the auth epoch (one row, nothing after). */
int imx_db_auth_team_read(struct imx_db_conn *c, const char *slug, const char *user_id,
                          struct imx_db_team_read *t);
/* The user's role in a team -> role (no row when none). */
PGresult *imx_db_auth_role_in_team(struct imx_db_conn *c, const char *team_id, const char *user_id);

/* Login throttling */
/* Counts one attempt for both keys atomically, before the password is checked -> the seconds
 * until a sign-in may be tried (0: go ahead; the limits are exceeded otherwise), and the active
 * user with that email (id, password_hash; NULL when none). */
PGresult *imx_db_throttle_take(struct imx_db_conn *c, const char *email_key, const char *ip_key,
                               const char *window_s, const char *max_email, const char *max_ip,
                               const char *email);
/* Forgets the failures of key (the account, after a correct password). */
PGresult *imx_db_throttle_clear(struct imx_db_conn *c, const char *key);
/* Takes one attempt back from key (one that was no failure, or never checked). One row a
 * statement, so it never waits on a second lock. */
PGresult *imx_db_throttle_give_back(struct imx_db_conn *c, const char *key);

/* The API tokens neither revoked nor expired of the user and of the team, under the quota locks
 * (call inside the creating transaction). Returns NULL with the counts set, or the failed result
 * (for imx_db_tx_fail). */
PGresult *imx_db_token_active_counts(struct imx_db_conn *c, const char *user_id,
                                     const char *team_id, long long *of_user, long long *of_team);

/* Users and teams (JSON built by PostgreSQL in column 0) */
/* -> user JSON; 23505 when the email is taken. */
PGresult *imx_db_user_create(struct imx_db_conn *c, const char *email, const char *display_name,
                             const char *hash, const char *is_admin);
/* -> the caller's user JSON with teams; token_team/token_role cap it (NULL: no cap). */
PGresult *imx_db_user_me(struct imx_db_conn *c, const char *user_id, const char *token_team,
                         const char *token_role);
/* -> id, team JSON. */
PGresult *imx_db_team_create(struct imx_db_conn *c, const char *slug, const char *name);
/* -> one page of (slug, team JSON with the user's role) rows in slug order after after_slug
 * (NULL: from the first), at most limit + 1: every team (all "true"), or the user's; only_team
 * (NULL: any) restricts. */
PGresult *imx_db_team_list(struct imx_db_conn *c, const char *user_id, const char *only_team,
                           const char *all, const char *after_slug, const char *limit);
/* -> team JSON with its members. */
PGresult *imx_db_team_get(struct imx_db_conn *c, const char *team_id);
/* Sets a member's role -> membership JSON (no row: no such user). */
PGresult *imx_db_member_put(struct imx_db_conn *c, const char *team_id, const char *email,
                            const char *role);
/* Removes a member -> user id, old role (no row: not a member). */
PGresult *imx_db_member_delete(struct imx_db_conn *c, const char *team_id, const char *email);

/* API tokens */
/* -> id, token JSON (without the secret). scope: "api" (NULL) or "node-report". */
PGresult *imx_db_token_create(struct imx_db_conn *c, const char *user_id, const char *team_id,
                              const char *name, const char *role, const char *hash,
                              const char *days, const char *scope);
/* -> one page of (id, token JSON) rows, newest first, older than before_id (NULL: the newest),
 * at most limit + 1. */
PGresult *imx_db_token_list(struct imx_db_conn *c, const char *user_id, const char *before_id,
                            const char *limit);
/* Revokes a token of the user (any user's when user_id is NULL) -> id, team_id (no row: none). */
PGresult *imx_db_token_revoke(struct imx_db_conn *c, const char *id, const char *user_id);

/* Audit */
PGresult *imx_db_audit_insert(struct imx_db_conn *c, const char *user_id, const char *token_id,
                              const char *action, const char *resource, const char *resource_id,
                              const char *request_id, const char *detail);
/* Rows newest first, filtered (NULL: any), after the keyset id, at most limit+1 of them ->
 * id, row JSON. */
PGresult *imx_db_audit_list(struct imx_db_conn *c, const char *actor, const char *resource,
                            const char *action, const char *since, const char *before_id,
                            const char *limit);

#endif
