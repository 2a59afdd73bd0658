/* SQL for who may see and change what: users, teams, memberships, API tokens, login throttling
 * and the audit log. */
#include "db/auth.h"
#include "db/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An API token's principal: token, user, team, role cap, the user's admin flag and role in the
 * token's team, the expiry (Unix seconds) and the auth epoch it was read at. */
IMX_DB_STMT(q_api_token, 1,
            "SELECT t.id, t.user_id, t.team_id, t.role, u.is_admin, m.role,"
            " floor(extract(epoch FROM t.expires_at))::bigint, (SELECT n FROM auth_epoch),"
            " t.scope FROM api_tokens t JOIN users u ON u.id = t.user_id"
            " LEFT JOIN memberships m ON m.team_id = t.team_id AND m.user_id = t.user_id"
            " WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > now()"
            " AND u.disabled_at IS NULL");

/* Copies column col of row 0 into out (len bytes), "" for SQL NULL. */
static void text_at(const PGresult *res, int col, char *out, size_t len)
{
    snprintf(out, len, "%s", PQgetisnull(res, 0, col) ? "" : PQgetvalue(res, 0, col));
}

/* The status of a one-row read: OK with a row, NOT_FOUND without one, or the failure. */
static enum imx_db_status one_row(const PGresult *res)
{
    enum imx_db_status st = imx_db_status_of(res);
    return st == IMX_DBS_OK && PQntuples(res) == 0 ? IMX_DBS_NOT_FOUND : st;
}

/* A row of (id, JSON text): the id into *id, the JSON into out (stolen res). */
static enum imx_db_status id_and_json(PGresult *res, int64_t *id, struct imx_db_json *out)
{
    *id = 0;
    if (one_row(res) == IMX_DBS_OK)
        *id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    return imx_db_json_take(res, 1, out);
}

enum imx_db_status imx_db_auth_api_token(struct imx_db_conn *c, const char *token_hash,
                                         struct imx_db_token_principal *out,
                                         struct imx_db_fault *why)
{
    const char *p[] = { token_hash };
    memset(out, 0, sizeof *out);
    PGresult *res = imx_db_exec(c, &q_api_token, p);
    enum imx_db_status st = one_row(res);
    if (st == IMX_DBS_OK) {
        out->token_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        out->user_id = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
        out->team_id = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
        text_at(res, 3, out->token_role, sizeof out->token_role);
        out->user_admin = strcmp(PQgetvalue(res, 0, 4), "t") == 0;
        text_at(res, 5, out->member_role, sizeof out->member_role);
        out->expires_at = strtoll(PQgetvalue(res, 0, 6), NULL, 10);
        out->epoch = strtoll(PQgetvalue(res, 0, 7), NULL, 10);
        text_at(res, 8, out->scope, sizeof out->scope);
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

/* A signed-in user: admin flag, highest team role and the auth epoch it was read at. */
IMX_DB_STMT(q_user_active, 1,
            "SELECT u.is_admin, (SELECT max(m.role)::text FROM memberships m"
            " WHERE m.user_id = u.id), (SELECT n FROM auth_epoch)"
            " FROM users u WHERE u.id = $1::bigint AND u.disabled_at IS NULL");

enum imx_db_status imx_db_auth_user_active(struct imx_db_conn *c, const char *user_id,
                                           struct imx_db_user_principal *out,
                                           struct imx_db_fault *why)
{
    const char *p[] = { user_id };
    memset(out, 0, sizeof *out);
    PGresult *res = imx_db_exec(c, &q_user_active, p);
    enum imx_db_status st = one_row(res);
    if (st == IMX_DBS_OK) {
        out->admin = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
        text_at(res, 1, out->max_role, sizeof out->max_role);
        out->epoch = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_epoch, 0, "SELECT n FROM auth_epoch");

enum imx_db_status imx_db_auth_epoch(struct imx_db_conn *c, long long *epoch)
{
    return imx_db_int_take(imx_db_exec(c, &q_epoch, NULL), 0, epoch);
}

IMX_DB_STMT(q_has_users, 0, "SELECT EXISTS (SELECT 1 FROM users)");

enum imx_db_status imx_db_auth_has_users(struct imx_db_conn *c, bool *any)
{
    PGresult *res = imx_db_exec(c, &q_has_users, NULL);
    enum imx_db_status st = imx_db_status_of(res);
    *any = st == IMX_DBS_OK && PQntuples(res) == 1 && PQgetvalue(res, 0, 0)[0] == 't';
    PQclear(res);
    return st;
}

IMX_DB_STMT(q_bootstrap, 2,
            "INSERT INTO users (email, display_name, password_hash, is_admin) "
            "SELECT $1, 'Administrator', $2, true WHERE NOT EXISTS (SELECT 1 FROM users) "
            "ON CONFLICT DO NOTHING RETURNING id");

enum imx_db_status imx_db_auth_bootstrap(struct imx_db_conn *c, const char *email, const char *hash,
                                         bool *created, struct imx_db_fault *why)
{
    const char *p[] = { email, hash };
    PGresult *res = imx_db_exec(c, &q_bootstrap, p);
    enum imx_db_status st = imx_db_status_of(res);
    *created = st == IMX_DBS_OK && PQntuples(res) == 1;
    PQclear(res);
    return imx_db_why(c, st, why);
}

/* Always one row: the auth epoch, the team's id (NULL when there is none) and the user's role
 * in it (migrations/0020_point_reads.sql). */
IMX_DB_STMT(q_team_by_slug, 2,
            "SELECT e.n, t.id, m.role FROM auth_epoch e LEFT JOIN teams t ON t.slug = $1"
            " LEFT JOIN memberships m ON m.team_id = t.id AND m.user_id = $2::bigint");

enum imx_db_status imx_db_team_read_take(PGresult *res, struct imx_db_team_read *t)
{
    memset(t, 0, sizeof *t);
    t->res = imx_db_result_of(res);
    enum imx_db_status st = imx_db_status_of(res);
    if (st != IMX_DBS_OK)
        return st;
    if (PQntuples(res) < 1 || PQnfields(res) < 3)
        return IMX_DBS_ERROR;
    t->epoch = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    t->team_id = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    t->role = PQgetvalue(res, 0, 2);
    return IMX_DBS_OK;
}

struct imx_db_rows imx_db_team_read_rows(const struct imx_db_team_read *t)
{
    return imx_db_rows_all(imx_db_pg(t->res));
}

void imx_db_team_read_free(struct imx_db_team_read *t)
{
    PQclear(imx_db_pg_mut(t->res));
    memset(t, 0, sizeof *t);
}

enum imx_db_status imx_db_auth_team_read(struct imx_db_conn *c, const char *slug,
                                         const char *user_id, struct imx_db_team_read *t,
                                         struct imx_db_fault *why)
{
    const char *p[] = { slug, user_id };
    return imx_db_why(c, imx_db_team_read_take(imx_db_exec(c, &q_team_by_slug, p), t), why);
}

IMX_DB_STMT(q_role_in_team, 2,
            "SELECT role FROM memberships WHERE team_id = $1::bigint AND user_id = $2::bigint");

IMX_DB_STMT(q_team_disabled, 1,
            "SELECT disabled_at IS NOT NULL, slug FROM teams WHERE id = $1::bigint");

enum imx_db_status imx_db_team_disabled(struct imx_db_conn *c, const char *team_id, bool *disabled,
                                        char slug[64], struct imx_db_fault *why)
{
    const char *p[] = { team_id };
    PGresult *res = imx_db_exec(c, &q_team_disabled, p);
    enum imx_db_status st = one_row(res);
    *disabled = st == IMX_DBS_OK && PQgetvalue(res, 0, 0)[0] == 't';
    slug[0] = '\0';
    if (st == IMX_DBS_OK)
        text_at(res, 1, slug, 64);
    PQclear(res);
    return imx_db_why(c, st, why);
}

enum imx_db_status imx_db_auth_role_in_team(struct imx_db_conn *c, const char *team_id,
                                            const char *user_id, char role[16],
                                            struct imx_db_fault *why)
{
    const char *p[] = { team_id, user_id };
    PGresult *res = imx_db_exec(c, &q_role_in_team, p);
    enum imx_db_status st = one_row(res);
    role[0] = '\0';
    if (st == IMX_DBS_OK)
        text_at(res, 0, role, 16);
    PQclear(res);
    return imx_db_why(c, st, why);
}

/* One attempt counted for both keys in one INSERT, which locks its rows in VALUES order (the
 * account, then the address), so concurrent sign-ins never deadlock; a window that has passed
 * starts again. Each counter holds the window's failures plus the attempts still being checked. */
IMX_DB_STMT(q_throttle_take, 6,
            "WITH t AS (INSERT INTO login_throttle AS t (key, failures, window_start) "
            "VALUES ($1, 1, now()), ($2, 1, now()) ON CONFLICT (key) DO UPDATE SET "
            "failures = CASE WHEN t.window_start <= now() - make_interval(secs => $3::int) "
            "THEN 1 ELSE t.failures + 1 END, "
            "window_start = CASE WHEN t.window_start <= now() - make_interval(secs => $3::int) "
            "THEN now() ELSE t.window_start END RETURNING t.key, t.failures, t.window_start), "
            "u AS (SELECT id, password_hash FROM users WHERE lower(email) = lower($6) "
            "AND disabled_at IS NULL) "
            "SELECT coalesce(max(CASE WHEN t.failures > CASE WHEN t.key = $1 THEN $4::int "
            "ELSE $5::int END THEN greatest(1, ceil(extract(epoch FROM t.window_start "
            "+ make_interval(secs => $3::int) - now())))::int END), 0), "
            "(SELECT id FROM u), (SELECT password_hash FROM u) FROM t");

enum imx_db_status imx_db_throttle_take(struct imx_db_conn *c, const char *email_key,
                                        const char *ip_key, const char *window_s,
                                        const char *max_email, const char *max_ip,
                                        const char *email, struct imx_db_throttle *out,
                                        struct imx_db_fault *why)
{
    const char *p[] = { email_key, ip_key, window_s, max_email, max_ip, email };
    memset(out, 0, sizeof *out);
    PGresult *res = imx_db_exec(c, &q_throttle_take, p);
    enum imx_db_status st = one_row(res);
    if (st == IMX_DBS_OK) {
        out->wait_s = strtol(PQgetvalue(res, 0, 0), NULL, 10);
        out->known = !PQgetisnull(res, 0, 1);
        if (out->known) {
            out->user_id = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
            out->password_hash = strdup(PQgetvalue(res, 0, 2));
            if (!out->password_hash)
                st = IMX_DBS_ERROR;
        }
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_throttle_clear, 1, "DELETE FROM login_throttle WHERE key = $1");

enum imx_db_status imx_db_throttle_clear(struct imx_db_conn *c, const char *key,
                                         struct imx_db_fault *why)
{
    const char *p[] = { key };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_throttle_clear, p)), why);
}

IMX_DB_STMT(q_throttle_give_back, 1,
            "UPDATE login_throttle SET failures = greatest(failures - 1, 0) WHERE key = $1");

enum imx_db_status imx_db_throttle_give_back(struct imx_db_conn *c, const char *key,
                                             struct imx_db_fault *why)
{
    const char *p[] = { key };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_throttle_give_back, p)), why);
}

#define USER_JSON                                                                                  \
    "json_build_object('id', u.id, 'email', u.email, 'display_name', u.display_name, 'admin', "    \
    "u.is_admin, 'created_at', u.created_at)"

IMX_DB_STMT(q_user_create, 4,
            "WITH u AS (INSERT INTO users (email, display_name, password_hash, is_admin) "
            "VALUES ($1, $2, $3, $4::boolean) RETURNING *) SELECT u.id, " USER_JSON " FROM u");

enum imx_db_status imx_db_user_create(struct imx_db_conn *c, const char *email,
                                      const char *display_name, const char *hash,
                                      const char *is_admin, int64_t *id, struct imx_db_json *user,
                                      struct imx_db_fault *why)
{
    const char *p[] = { email, display_name, hash, is_admin };
    return imx_db_why(c, id_and_json(imx_db_exec(c, &q_user_create, p), id, user), why);
}

IMX_DB_STMT(q_user_me, 3,
            "SELECT " USER_JSON "::jsonb || jsonb_build_object('teams', coalesce(("
            "SELECT jsonb_agg(jsonb_build_object('slug', t.slug, 'name', t.name, 'role', "
            "CASE WHEN $3::team_role IS NOT NULL AND $3::team_role < m.role THEN $3::team_role "
            "ELSE m.role END) ORDER BY t.slug) FROM memberships m JOIN teams t ON t.id = m.team_id "
            "WHERE m.user_id = u.id AND ($2::bigint IS NULL OR t.id = $2::bigint)), '[]'::jsonb)) "
            "FROM users u WHERE u.id = $1::bigint");

enum imx_db_status imx_db_user_me(struct imx_db_conn *c, const char *user_id,
                                  const char *token_team, const char *token_role,
                                  struct imx_db_json *out, struct imx_db_fault *why)
{
    const char *p[] = { user_id, token_team, token_role };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_user_me, p), 0, out), why);
}

#define TEAM_JSON                                                                                  \
    "json_build_object('slug', t.slug, 'name', t.name, 'created_at', t.created_at, "               \
    "'disabled_at', t.disabled_at)"

IMX_DB_STMT(q_team_create, 2,
            "WITH t AS (INSERT INTO teams (slug, name) VALUES ($1, $2) RETURNING *) "
            "SELECT t.id, " TEAM_JSON " FROM t");

enum imx_db_status imx_db_team_create(struct imx_db_conn *c, const char *slug, const char *name,
                                      struct imx_db_json *team, struct imx_db_fault *why)
{
    const char *p[] = { slug, name };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_team_create, p), 1, team), why);
}

IMX_DB_STMT(q_team_list, 5,
            "SELECT t.slug, json_build_object("
            "'slug', t.slug, 'name', t.name, 'created_at', t.created_at, 'disabled_at', "
            "t.disabled_at, 'role', m.role)::text "
            "FROM teams t LEFT JOIN memberships m "
            "ON m.team_id = t.id AND m.user_id = $1::bigint "
            "WHERE ($3::boolean OR m.user_id IS NOT NULL) "
            "AND ($2::bigint IS NULL OR t.id = $2::bigint) "
            "AND ($4::text IS NULL OR t.slug > $4::text) ORDER BY t.slug LIMIT $5::int + 1");

enum imx_db_status imx_db_team_list(struct imx_db_conn *c, const char *user_id,
                                    const char *only_team, const char *all, const char *after_slug,
                                    const char *limit, struct imx_db_page *out,
                                    struct imx_db_fault *why)
{
    const char *p[] = { user_id, only_team, all, after_slug, limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_team_list, p), out), why);
}

IMX_DB_STMT(q_team_get, 1,
            "SELECT " TEAM_JSON "::jsonb || jsonb_build_object('members', coalesce(("
            "SELECT jsonb_agg(jsonb_build_object('email', u.email, 'display_name', "
            "u.display_name, 'role', m.role) ORDER BY lower(u.email)) FROM memberships m "
            "JOIN users u ON u.id = m.user_id WHERE m.team_id = t.id), '[]'::jsonb)) "
            "FROM teams t WHERE t.id = $1::bigint");

enum imx_db_status imx_db_team_get(struct imx_db_conn *c, const char *team_id,
                                   struct imx_db_json *out, struct imx_db_fault *why)
{
    const char *p[] = { team_id };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_team_get, p), 0, out), why);
}

IMX_DB_STMT(q_member_put, 3,
            "WITH m AS (INSERT INTO memberships (team_id, user_id, role) "
            "SELECT $1::bigint, u.id, $3::team_role FROM users u WHERE lower(u.email) = lower($2) "
            "ON CONFLICT (team_id, user_id) DO UPDATE SET role = EXCLUDED.role RETURNING *) "
            "SELECT json_build_object('team', t.slug, 'email', u.email, 'role', m.role) "
            "FROM m JOIN users u ON u.id = m.user_id JOIN teams t ON t.id = m.team_id");

enum imx_db_status imx_db_member_put(struct imx_db_conn *c, const char *team_id, const char *email,
                                     const char *role, struct imx_db_json *out,
                                     struct imx_db_fault *why)
{
    const char *p[] = { team_id, email, role };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_member_put, p), 0, out), why);
}

IMX_DB_STMT(q_member_delete, 2,
            "DELETE FROM memberships m USING users u WHERE m.team_id = $1::bigint "
            "AND m.user_id = u.id AND lower(u.email) = lower($2) RETURNING m.user_id, m.role");

enum imx_db_status imx_db_member_delete(struct imx_db_conn *c, const char *team_id,
                                        const char *email, char old_role[16],
                                        struct imx_db_fault *why)
{
    const char *p[] = { team_id, email };
    PGresult *res = imx_db_exec(c, &q_member_delete, p);
    enum imx_db_status st = one_row(res);
    old_role[0] = '\0';
    if (st == IMX_DBS_OK)
        text_at(res, 1, old_role, 16);
    PQclear(res);
    return imx_db_why(c, st, why);
}

#define TOKEN_JSON                                                                                 \
    "json_build_object('id', k.id, 'name', k.name, 'team', t.slug, 'role', k.role, "               \
    "'scope', k.scope, 'created_at', k.created_at, 'expires_at', k.expires_at, "                   \
    "'revoked_at', k.revoked_at)"

IMX_DB_STMT(q_token_create, 7,
            "WITH k AS (INSERT INTO api_tokens (user_id, team_id, name, role, token_hash, "
            "expires_at, scope) VALUES ($1::bigint, $2::bigint, $3, $4::team_role, $5, "
            "now() + make_interval(days => $6::int), coalesce($7::text, 'api')) RETURNING *) "
            "SELECT k.id, " TOKEN_JSON " FROM k JOIN teams t ON t.id = k.team_id");

enum imx_db_status imx_db_token_create(struct imx_db_conn *c, const char *user_id,
                                       const char *team_id, const char *name, const char *role,
                                       const char *hash, const char *days, const char *scope,
                                       int64_t *id, struct imx_db_json *token,
                                       struct imx_db_fault *why)
{
    const char *p[] = { user_id, team_id, name, role, hash, days, scope };
    return imx_db_why(c, id_and_json(imx_db_exec(c, &q_token_create, p), id, token), why);
}

/* The user's lock serialises token creations, so two at once cannot both take the last place. */
/* The user's and the team's active tokens, each counted under its own lock (user first, then
 * team, always in that order), so that two creations at once cannot both take the last place. */
IMX_DB_STMT(q_token_active_counts, 2,
            "SELECT (SELECT count(*) FROM api_tokens k WHERE k.user_id = $1::bigint"
            "  AND k.revoked_at IS NULL AND k.expires_at > now()),"
            " (SELECT count(*) FROM api_tokens k WHERE k.team_id = $2::bigint"
            "  AND k.revoked_at IS NULL AND k.expires_at > now())"
            " FROM (SELECT pg_advisory_xact_lock(hashtextextended('token-quota:' || $1, 0)),"
            "  pg_advisory_xact_lock(hashtextextended('token-team-quota:' || $2, 0))) l");

enum imx_db_status imx_db_token_active_counts(struct imx_db_conn *c, const char *user_id,
                                              const char *team_id, long long *of_user,
                                              long long *of_team, struct imx_db_fault *why)
{
    const char *p[] = { user_id, team_id };
    PGresult *res = imx_db_exec(c, &q_token_active_counts, p);
    enum imx_db_status st = one_row(res);
    if (st == IMX_DBS_OK) {
        *of_user = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        *of_team = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_token_list, 3,
            "SELECT k.id, " TOKEN_JSON "::text FROM (SELECT * FROM api_tokens"
            " WHERE user_id = $1::bigint AND ($2::bigint IS NULL OR id < $2::bigint)"
            " ORDER BY id DESC LIMIT $3::int + 1) k JOIN teams t ON t.id = k.team_id"
            " ORDER BY k.id DESC");

enum imx_db_status imx_db_token_list(struct imx_db_conn *c, const char *user_id,
                                     const char *before_id, const char *limit,
                                     struct imx_db_page *out, struct imx_db_fault *why)
{
    const char *p[] = { user_id, before_id, limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_token_list, p), out), why);
}

IMX_DB_STMT(q_token_revoke, 2,
            "UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) "
            "WHERE id = $1::bigint AND ($2::bigint IS NULL OR user_id = $2::bigint) "
            "RETURNING id, team_id");

enum imx_db_status imx_db_token_revoke(struct imx_db_conn *c, const char *id, const char *user_id,
                                       struct imx_db_fault *why)
{
    const char *p[] = { id, user_id };
    PGresult *res = imx_db_exec(c, &q_token_revoke, p);
    enum imx_db_status st = one_row(res);
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_audit_insert, 7,
            "INSERT INTO audit_log (actor_user_id, actor_token_id, action, resource, resource_id, "
            "request_id, detail) VALUES ($1::bigint, $2::bigint, $3, $4, $5, $6, $7::jsonb)");

enum imx_db_status imx_db_audit_insert(struct imx_db_conn *c, const char *user_id,
                                       const char *token_id, const char *action,
                                       const char *resource, const char *resource_id,
                                       const char *request_id, const char *detail,
                                       struct imx_db_fault *why)
{
    const char *p[] = { user_id, token_id, action, resource, resource_id, request_id, detail };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_audit_insert, p)), why);
}

/* A detail over 4 KiB (a request body can be 1 MiB) is listed as {truncated, bytes}, so a page of
 * 200 stays near 1 MiB. */
IMX_DB_STMT(q_audit_list, 6,
            "SELECT a.id, json_build_object('id', a.id, 'at', a.at, 'actor', CASE WHEN "
            "a.actor_user_id IS NULL THEN NULL ELSE json_build_object('id', a.actor_user_id, "
            "'email', u.email) END, 'token_id', a.actor_token_id, 'action', a.action, "
            "'resource', a.resource, 'resource_id', a.resource_id, 'request_id', a.request_id, "
            "'detail', CASE WHEN octet_length(a.detail::text) <= 4096 THEN a.detail ELSE "
            "jsonb_build_object('truncated', true, 'bytes', octet_length(a.detail::text)) END) "
            "FROM audit_log a LEFT JOIN users u ON u.id = a.actor_user_id "
            "WHERE ($1::bigint IS NULL OR a.actor_user_id = $1::bigint) "
            "AND ($2::text IS NULL OR a.resource = $2) AND ($3::text IS NULL OR a.action = $3) "
            "AND ($4::timestamptz IS NULL OR a.at >= $4::timestamptz) "
            "AND ($5::bigint IS NULL OR a.id < $5::bigint) ORDER BY a.id DESC LIMIT $6::int + 1");

enum imx_db_status imx_db_audit_list(struct imx_db_conn *c, const char *actor, const char *resource,
                                     const char *action, const char *since, const char *before_id,
                                     const char *limit, struct imx_db_page *out,
                                     struct imx_db_fault *why)
{
    const char *p[] = { actor, resource, action, since, before_id, limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_audit_list, p), out), why);
}
