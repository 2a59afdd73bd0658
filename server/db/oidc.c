/* SQL for OpenID Connect sign-in (db/oidc.h). */
#include "db/oidc.h"
#include "db/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

IMX_DB_STMT(q_login_put, 5,
            "WITH old AS (DELETE FROM oidc_logins"
            " WHERE created_at < now() - make_interval(secs => $5::integer))"
            " INSERT INTO oidc_logins (state_hash, nonce, verifier, next) VALUES ($1, $2, $3, $4)");

enum imx_db_status imx_db_oidc_login_put(struct imx_db_conn *c, const char *state_hash,
                                         const char *nonce, const char *verifier, const char *next,
                                         const char *ttl_s, struct imx_db_fault *why)
{
    const char *p[] = { state_hash, nonce, verifier, next, ttl_s };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_login_put, p)), why);
}

IMX_DB_STMT(q_login_take, 2,
            "DELETE FROM oidc_logins WHERE state_hash = $1"
            " RETURNING nonce, verifier, next,"
            " created_at > now() - make_interval(secs => $2::integer)");

enum imx_db_status imx_db_oidc_login_take(struct imx_db_conn *c, const char *state_hash,
                                          const char *ttl_s, struct imx_db_oidc_login *out,
                                          struct imx_db_fault *why)
{
    const char *p[] = { state_hash, ttl_s };
    memset(out, 0, sizeof *out);
    PGresult *res = imx_db_exec(c, &q_login_take, p);
    enum imx_db_status st = imx_db_status_of(res);
    /* An expired one is taken too (it is of no more use), and answered as not found. */
    if (st == IMX_DBS_OK && (PQntuples(res) != 1 || strcmp(PQgetvalue(res, 0, 3), "t") != 0))
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK) {
        snprintf(out->nonce, sizeof out->nonce, "%s", PQgetvalue(res, 0, 0));
        snprintf(out->verifier, sizeof out->verifier, "%s", PQgetvalue(res, 0, 1));
        snprintf(out->next, sizeof out->next, "%s", PQgetvalue(res, 0, 2));
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_sign_in, 7,
            "SELECT user_id, created, changed FROM imx_oidc_sign_in($1, $2, $3, $4, $5::boolean,"
            " $6::text[], $7::text[])");

enum imx_db_status imx_db_oidc_sign_in(struct imx_db_conn *c, const char *issuer,
                                       const char *subject, const char *email, const char *name,
                                       bool email_verified, const char *teams, const char *roles,
                                       int64_t *user_id, bool *created, int *changed,
                                       struct imx_db_fault *why)
{
    const char *p[] = { issuer, subject, email, name, email_verified ? "t" : "f", teams, roles };
    *user_id = 0;
    *created = false;
    *changed = 0;
    PGresult *res = imx_db_exec(c, &q_sign_in, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) != 1)
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK) {
        *user_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        *created = strcmp(PQgetvalue(res, 0, 1), "t") == 0;
        *changed = atoi(PQgetvalue(res, 0, 2));
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

/* The live ones are counted so that anonymous starts cannot fill the table. */
IMX_DB_STMT(q_device_put, 6,
            "WITH old AS (DELETE FROM oidc_device_logins WHERE expires_at < now())"
            " INSERT INTO oidc_device_logins"
            " (handle_hash, device_code, nonce, interval_s, next_poll_at, expires_at)"
            " SELECT $1, $2, $3, $4::integer, now() + make_interval(secs => $4::integer),"
            " now() + make_interval(secs => $5::integer)"
            " WHERE (SELECT count(*) FROM oidc_device_logins WHERE expires_at >= now())"
            " < $6::integer");

enum imx_db_status imx_db_oidc_device_put(struct imx_db_conn *c, const char *handle_hash,
                                          const char *device_code, const char *nonce,
                                          const char *interval_s, const char *expires_s,
                                          const char *max, struct imx_db_fault *why)
{
    const char *p[] = { handle_hash, device_code, nonce, interval_s, expires_s, max };
    PGresult *res = imx_db_exec(c, &q_device_put, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && strcmp(PQcmdTuples(res), "1") != 0)
        st = IMX_DBS_CONFLICT;
    PQclear(res);
    return imx_db_why(c, st, why);
}

/* One statement, the row locked: of two polls at once, the second finds the first's next time
 * and is early. A second of slack keeps a client polling exactly at its interval on time. An
 * expired one is deleted and answered as expired. */
IMX_DB_STMT(q_device_poll, 1,
            "WITH cur AS (SELECT handle_hash, next_poll_at > now() + interval '1 second' AS early,"
            " expires_at <= now() AS expired FROM oidc_device_logins WHERE handle_hash = $1"
            " FOR UPDATE), gone AS (DELETE FROM oidc_device_logins d USING cur"
            " WHERE d.handle_hash = cur.handle_hash AND cur.expired RETURNING d.handle_hash),"
            " upd AS (UPDATE oidc_device_logins d SET interval_s = CASE WHEN cur.early"
            " THEN least(d.interval_s + 5, 300) ELSE d.interval_s END,"
            " next_poll_at = now() + make_interval(secs => CASE WHEN cur.early"
            " THEN least(d.interval_s + 5, 300) ELSE d.interval_s END)"
            " FROM cur WHERE d.handle_hash = cur.handle_hash AND NOT cur.expired"
            " RETURNING d.device_code, d.nonce, d.interval_s)"
            " SELECT upd.device_code, upd.nonce, upd.interval_s, cur.early, cur.expired"
            " FROM cur LEFT JOIN upd ON true");

enum imx_db_status imx_db_oidc_device_poll(struct imx_db_conn *c, const char *handle_hash,
                                           struct imx_db_oidc_device *out, struct imx_db_fault *why)
{
    const char *p[] = { handle_hash };
    memset(out, 0, sizeof *out);
    PGresult *res = imx_db_exec(c, &q_device_poll, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) != 1)
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK) {
        out->expired = strcmp(PQgetvalue(res, 0, 4), "t") == 0;
        out->early = strcmp(PQgetvalue(res, 0, 3), "t") == 0;
        if (!out->expired) {
            snprintf(out->device_code, sizeof out->device_code, "%s", PQgetvalue(res, 0, 0));
            snprintf(out->nonce, sizeof out->nonce, "%s", PQgetvalue(res, 0, 1));
            out->interval_s = atoi(PQgetvalue(res, 0, 2));
        }
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_device_slow, 1,
            "UPDATE oidc_device_logins SET interval_s = least(interval_s + 5, 300),"
            " next_poll_at = now() + make_interval(secs => least(interval_s + 5, 300))"
            " WHERE handle_hash = $1 RETURNING interval_s");

enum imx_db_status imx_db_oidc_device_slow(struct imx_db_conn *c, const char *handle_hash,
                                           int *interval_s, struct imx_db_fault *why)
{
    const char *p[] = { handle_hash };
    PGresult *res = imx_db_exec(c, &q_device_slow, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) != 1)
        st = IMX_DBS_NOT_FOUND;
    *interval_s = st == IMX_DBS_OK ? atoi(PQgetvalue(res, 0, 0)) : 0;
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_device_end, 1, "DELETE FROM oidc_device_logins WHERE handle_hash = $1");

enum imx_db_status imx_db_oidc_device_end(struct imx_db_conn *c, const char *handle_hash,
                                          struct imx_db_fault *why)
{
    const char *p[] = { handle_hash };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_device_end, p)), why);
}
