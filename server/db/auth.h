/* SQL for who may see and change what: users, teams, memberships, API tokens, login throttling
 * and the audit log. Every function runs one prepared statement and returns its status with
 * typed outputs; string arguments are borrowed, NULL is SQL NULL. */
#ifndef IMX_DB_AUTH_H
#define IMX_DB_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "db/pool.h"

/* Principals */
/* An API token's principal as stored. Roles are their names ("" for none). */
struct imx_db_token_principal {
    int64_t token_id, user_id, team_id;
    char token_role[16];  /* the token's cap */
    bool user_admin;      /* the user's global admin flag */
    char member_role[16]; /* the user's role in the token's team */
    long long expires_at; /* Unix seconds */
    long long epoch;      /* the auth epoch it was read at */
    char scope[16];       /* "api" or "node-report" */
};
/* token_hash (hex SHA-256) of a live token of an active user; IMX_DBS_NOT_FOUND: none. */
enum imx_db_status imx_db_auth_api_token(struct imx_db_conn *c, const char *token_hash,
                                         struct imx_db_token_principal *out,
                                         struct imx_db_fault *why);
/* A signed-in user as stored. */
struct imx_db_user_principal {
    bool admin;
    char max_role[16]; /* the highest team role ("" for none) */
    long long epoch;
};
/* An active user; IMX_DBS_NOT_FOUND: none (or disabled). */
enum imx_db_status imx_db_auth_user_active(struct imx_db_conn *c, const char *user_id,
                                           struct imx_db_user_principal *out,
                                           struct imx_db_fault *why);

/* The auth epoch (migrations/0020_point_reads.sql) into *epoch: IMX_DBS_OK, or the failure. */
enum imx_db_status imx_db_auth_epoch(struct imx_db_conn *c, long long *epoch);
/* Whether any user exists (the first admin is made only when none does). */
enum imx_db_status imx_db_auth_has_users(struct imx_db_conn *c, bool *any);
/* Creates the first admin when there are no users (*created false when users exist). */
enum imx_db_status imx_db_auth_bootstrap(struct imx_db_conn *c, const char *email, const char *hash,
                                         bool *created, struct imx_db_fault *why);

/* Roles */
/* What a statement that checks the caller's team along with what it reads begins every row with:
 * the auth epoch, the team with the slug (team_id 0 when there is none) and the user's role there
 * (role "" when none). res holds them and the rest of what was read. */
struct imx_db_team_read {
    struct imx_db_result *res; /* what was read (opaque); imx_db_team_read_free() */
    long long epoch, team_id;
    const char *role;
};
void imx_db_team_read_free(struct imx_db_team_read *t);
/* Every row the statement read (borrowed from t, which must have succeeded). */
struct imx_db_rows imx_db_team_read_rows(const struct imx_db_team_read *t);
/* A team by slug and the user's role there, with the auth epoch (one row, nothing after). On
 * failure t->res may hold the failed read: imx_db_team_read_free it all the same. */
enum imx_db_status imx_db_auth_team_read(struct imx_db_conn *c, const char *slug,
                                         const char *user_id, struct imx_db_team_read *t,
                                         struct imx_db_fault *why);
/* The user's role in a team into role; IMX_DBS_NOT_FOUND when none. */
enum imx_db_status imx_db_auth_role_in_team(struct imx_db_conn *c, const char *team_id,
                                            const char *user_id, char role[16],
                                            struct imx_db_fault *why);

/* Whether the team is disabled (teams.disabled_at set), and its slug; IMX_DBS_NOT_FOUND when no
 * such team. */
enum imx_db_status imx_db_team_disabled(struct imx_db_conn *c, const char *team_id, bool *disabled,
                                        char slug[64], struct imx_db_fault *why);

/* Login throttling */
/* What counting a sign-in attempt answers. */
struct imx_db_throttle {
    long wait_s;         /* seconds until a sign-in may be tried (0: go ahead) */
    bool known;          /* an active user has that email */
    int64_t user_id;     /* when known */
    char *password_hash; /* when known: malloc'd, the caller wipes and frees it */
};
/* Counts one attempt for both keys atomically, before the password is checked. */
enum imx_db_status imx_db_throttle_take(struct imx_db_conn *c, const char *email_key,
                                        const char *ip_key, const char *window_s,
                                        const char *max_email, const char *max_ip,
                                        const char *email, struct imx_db_throttle *out,
                                        struct imx_db_fault *why);
/* Forgets the failures of key (the account, after a correct password). */
enum imx_db_status imx_db_throttle_clear(struct imx_db_conn *c, const char *key,
                                         struct imx_db_fault *why);
/* Takes one attempt back from key (one that was no failure, or never checked). One row a
 * statement, so it never waits on a second lock. */
enum imx_db_status imx_db_throttle_give_back(struct imx_db_conn *c, const char *key,
                                             struct imx_db_fault *why);

/* The API tokens neither revoked nor expired of the user and of the team, under the quota locks
 * (call inside the creating transaction). */
enum imx_db_status imx_db_token_active_counts(struct imx_db_conn *c, const char *user_id,
                                              const char *team_id, long long *of_user,
                                              long long *of_team, struct imx_db_fault *why);

/* Users and teams (JSON built by PostgreSQL) */
/* -> the new user's id and JSON; IMX_DBS_CONFLICT when the email is taken. */
enum imx_db_status imx_db_user_create(struct imx_db_conn *c, const char *email,
                                      const char *display_name, const char *hash,
                                      const char *is_admin, int64_t *id, struct imx_db_json *user,
                                      struct imx_db_fault *why);
/* -> the caller's user JSON with teams; token_team/token_role cap it (NULL: no cap). */
enum imx_db_status imx_db_user_me(struct imx_db_conn *c, const char *user_id,
                                  const char *token_team, const char *token_role,
                                  struct imx_db_json *out, struct imx_db_fault *why);
/* -> team JSON; IMX_DBS_CONFLICT when the slug is taken. */
enum imx_db_status imx_db_team_create(struct imx_db_conn *c, const char *slug, const char *name,
                                      struct imx_db_json *team, struct imx_db_fault *why);
/* -> one page of (slug, team JSON with the user's role) rows in slug order after after_slug
 * (NULL: from the first), at most limit + 1: every team (all "true"), or the user's; only_team
 * (NULL: any) restricts. */
enum imx_db_status imx_db_team_list(struct imx_db_conn *c, const char *user_id,
                                    const char *only_team, const char *all, const char *after_slug,
                                    const char *limit, struct imx_db_page *out,
                                    struct imx_db_fault *why);
/* -> team JSON with its members. */
enum imx_db_status imx_db_team_get(struct imx_db_conn *c, const char *team_id,
                                   struct imx_db_json *out, struct imx_db_fault *why);
/* Sets a member's role -> membership JSON (IMX_DBS_NOT_FOUND: no such user). */
enum imx_db_status imx_db_member_put(struct imx_db_conn *c, const char *team_id, const char *email,
                                     const char *role, struct imx_db_json *out,
                                     struct imx_db_fault *why);
/* Removes a member -> the old role (IMX_DBS_NOT_FOUND: not a member). */
enum imx_db_status imx_db_member_delete(struct imx_db_conn *c, const char *team_id,
                                        const char *email, char old_role[16],
                                        struct imx_db_fault *why);

/* API tokens */
/* -> the new token's id and JSON (without the secret). scope: "api" (NULL) or "node-report". */
enum imx_db_status imx_db_token_create(struct imx_db_conn *c, const char *user_id,
                                       const char *team_id, const char *name, const char *role,
                                       const char *hash, const char *days, const char *scope,
                                       int64_t *id, struct imx_db_json *token,
                                       struct imx_db_fault *why);
/* -> one page of (id, token JSON) rows, newest first, older than before_id (NULL: the newest),
 * at most limit + 1. */
enum imx_db_status imx_db_token_list(struct imx_db_conn *c, const char *user_id,
                                     const char *before_id, const char *limit,
                                     struct imx_db_page *out, struct imx_db_fault *why);
/* Revokes a token of the user (any user's when user_id is NULL); IMX_DBS_NOT_FOUND: none. */
enum imx_db_status imx_db_token_revoke(struct imx_db_conn *c, const char *id, const char *user_id,
                                       struct imx_db_fault *why);

/* Audit */
enum imx_db_status imx_db_audit_insert(struct imx_db_conn *c, const char *user_id,
                                       const char *token_id, const char *action,
                                       const char *resource, const char *resource_id,
                                       const char *request_id, const char *detail,
                                       struct imx_db_fault *why);
/* Rows newest first, filtered (NULL: any), after the keyset id, at most limit+1 of them ->
 * a page of (id, row JSON); IMX_DBS_INVALID (cause IMX_DBC_VALUE) when since is no timestamp. */
enum imx_db_status imx_db_audit_list(struct imx_db_conn *c, const char *actor, const char *resource,
                                     const char *action, const char *since, const char *before_id,
                                     const char *limit, struct imx_db_page *out,
                                     struct imx_db_fault *why);

#endif
