/* SQL for sessions that last: web cookie sessions and CLI refresh tokens (db/sessions.h). */
#include "db/sessions.h"
#include "db/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

IMX_DB_STMT(q_open, 9,
            "SELECT session_id, expires_at FROM imx_session_open($1::bigint, $2, $3, $4, $5, $6,"
            " $7::integer, $8::integer, $9::integer)");

enum imx_db_status imx_db_session_open(struct imx_db_conn *c, const char *user_id, const char *kind,
                                       const char *secret_hash, const char *csrf_hash,
                                       const char *via, const char *user_agent, const char *idle_s,
                                       const char *absolute_s, const char *max_live,
                                       struct imx_db_session_opened *out, struct imx_db_fault *why)
{
    const char *p[] = { user_id,    kind,   secret_hash, csrf_hash, via,
                        user_agent, idle_s, absolute_s,  max_live };
    memset(out, 0, sizeof *out);
    PGresult *res = imx_db_exec(c, &q_open, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) != 1)
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK) {
        out->session_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        out->expires_at = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

/* The live session, with its last use written only when older than 30 s. */
IMX_DB_STMT(
    q_use, 2,
    "WITH s AS (SELECT s.id, s.user_id, s.csrf_hash, s.last_seen_at FROM sessions s"
    " JOIN users u ON u.id = s.user_id AND u.disabled_at IS NULL"
    " WHERE s.secret_hash = $1 AND s.kind = $2 AND s.revoked_at IS NULL"
    " AND s.expires_at > now() AND s.last_seen_at + make_interval(secs => s.idle_s) > now()),"
    " touched AS (UPDATE sessions t SET last_seen_at = now() FROM s"
    " WHERE t.id = s.id AND s.last_seen_at < now() - interval '30 seconds')"
    " SELECT id, user_id, coalesce(csrf_hash, '') FROM s");

enum imx_db_status imx_db_session_use(struct imx_db_conn *c, const char *secret_hash,
                                      const char *kind, struct imx_db_session *out,
                                      struct imx_db_fault *why)
{
    const char *p[] = { secret_hash, kind };
    memset(out, 0, sizeof *out);
    PGresult *res = imx_db_exec(c, &q_use, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) != 1)
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK) {
        out->session_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        out->user_id = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
        snprintf(out->csrf_hash, sizeof out->csrf_hash, "%s", PQgetvalue(res, 0, 2));
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_rotate, 2, "SELECT session_id, user_id, expires_at FROM imx_session_rotate($1, $2)");

enum imx_db_status imx_db_session_rotate(struct imx_db_conn *c, const char *old_hash,
                                         const char *new_hash, int64_t *user_id,
                                         long long *expires_at, struct imx_db_fault *why)
{
    const char *p[] = { old_hash, new_hash };
    *user_id = 0;
    *expires_at = 0;
    PGresult *res = imx_db_exec(c, &q_rotate, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) != 1)
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK) {
        *user_id = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
        *expires_at = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_revoke, 2,
            "UPDATE sessions SET revoked_at = now() WHERE id = $1::bigint"
            " AND ($2::bigint IS NULL OR user_id = $2::bigint) AND revoked_at IS NULL"
            " AND expires_at > now() RETURNING id");

enum imx_db_status imx_db_session_revoke(struct imx_db_conn *c, const char *session_id,
                                         const char *user_id, struct imx_db_fault *why)
{
    const char *p[] = { session_id, user_id };
    PGresult *res = imx_db_exec(c, &q_revoke, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) != 1)
        st = IMX_DBS_NOT_FOUND;
    PQclear(res);
    return imx_db_why(c, st, why);
}

/* Ends it even when idle too long: a sign-out that fails because the session lapsed would be
 * one more thing for the user to understand, and ending it early harms nothing. */
IMX_DB_STMT(q_end_refresh, 1,
            "UPDATE sessions SET revoked_at = now() WHERE secret_hash = $1 AND kind = 'cli'"
            " AND revoked_at IS NULL AND expires_at > now() RETURNING id, user_id");

enum imx_db_status imx_db_session_end_refresh(struct imx_db_conn *c, const char *secret_hash,
                                              int64_t *session_id, int64_t *user_id,
                                              struct imx_db_fault *why)
{
    const char *p[] = { secret_hash };
    *session_id = 0;
    *user_id = 0;
    PGresult *res = imx_db_exec(c, &q_end_refresh, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) != 1)
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK) {
        *session_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        *user_id = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_revoke_user, 1,
            "WITH r AS (UPDATE sessions SET revoked_at = now() WHERE user_id = $1::bigint"
            " AND revoked_at IS NULL AND expires_at > now() RETURNING 1)"
            " SELECT count(*) FROM r");

enum imx_db_status imx_db_session_revoke_user(struct imx_db_conn *c, const char *user_id,
                                              long long *count, struct imx_db_fault *why)
{
    const char *p[] = { user_id };
    return imx_db_why(c, imx_db_int_take(imx_db_exec(c, &q_revoke_user, p), 0, count), why);
}

/* From the user, so that a user who does not exist is no row (IMX_DBS_NOT_FOUND) and one with no
 * live session an empty list. */
IMX_DB_STMT(q_list, 2,
            "SELECT json_build_object('items', coalesce(json_agg(json_build_object("
            "'id', s.id, 'kind', s.kind, 'via', s.via, 'user_agent', s.user_agent,"
            " 'created_at', s.created_at, 'last_seen_at', s.last_seen_at,"
            " 'expires_at', least(s.expires_at, s.last_seen_at + make_interval(secs => s.idle_s)),"
            " 'current', s.id = $2::bigint) ORDER BY s.id DESC) FILTER (WHERE s.id IS NOT NULL),"
            " '[]'))::text FROM users u LEFT JOIN sessions s ON s.user_id = u.id"
            " AND s.revoked_at IS NULL AND s.expires_at > now()"
            " AND s.last_seen_at + make_interval(secs => s.idle_s) > now()"
            " WHERE u.id = $1::bigint GROUP BY u.id");

enum imx_db_status imx_db_session_list(struct imx_db_conn *c, const char *user_id,
                                       const char *current, struct imx_db_json *out,
                                       struct imx_db_fault *why)
{
    const char *p[] = { user_id, current };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_list, p), 0, out), why);
}
