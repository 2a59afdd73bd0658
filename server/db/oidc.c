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
                                         const char *ttl_s)
{
    const char *p[] = { state_hash, nonce, verifier, next, ttl_s };
    return imx_db_done(imx_db_exec(c, &q_login_put, p));
}

IMX_DB_STMT(q_login_take, 2,
            "DELETE FROM oidc_logins WHERE state_hash = $1"
            " RETURNING nonce, verifier, next,"
            " created_at > now() - make_interval(secs => $2::integer)");

enum imx_db_status imx_db_oidc_login_take(struct imx_db_conn *c, const char *state_hash,
                                          const char *ttl_s, struct imx_db_oidc_login *out)
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
    return st;
}

IMX_DB_STMT(q_sign_in, 7,
            "SELECT user_id, created, changed FROM imx_oidc_sign_in($1, $2, $3, $4, $5::boolean,"
            " $6::text[], $7::text[])");

enum imx_db_status imx_db_oidc_sign_in(struct imx_db_conn *c, const char *issuer,
                                       const char *subject, const char *email, const char *name,
                                       bool email_verified, const char *teams, const char *roles,
                                       int64_t *user_id, bool *created, int *changed)
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
    return st;
}
