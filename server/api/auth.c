/* Signing in with a password (POST /v1/auth/login, throttled per account and per address; the
 * web UI's cookie session in api/sessions.c shares the check) and GET /v1/me. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "auth/auth.h"
#include "auth/jwt.h"
#include "auth/password.h"
#include "auth/session.h"
#include "api/signin.h"
#include "db/auth.h"
#include "db/sessions.h"
#include "util/log.h"

#define EMAIL_MAX 254

static const struct imx_api_field login_fields[] = {
    { "email", JSON_STRING, true },
    { "password", JSON_STRING, true },
    { "refresh", JSON_TRUE, false },
    { NULL, JSON_NULL, false },
};

/* A throttle statement's status (and the detail it handed back), which only matters when it
 * failed. Returns 0 or -1. */
static int throttle_ok(struct imx_req *r, enum imx_db_status st, const struct imx_db_fault *why)
{
    if (st == IMX_DBS_OK)
        return 0;
    imx_api_reply_db_fault(r, st, why);
    return -1;
}

int64_t imx_api_password_signin(struct imx_req *r, json_t *body, const struct imx_api_field *fields)
{
    struct imx_db_fault why = { 0 };
    if (!imx_session_settings.local_passwords) {
        imx_reply_problem(r, IMX_E_FORBIDDEN,
                          "Sign-in with an imaxe password is off on this server "
                          "(IMAXE_LOCAL_PASSWORDS=off): sign in with single sign-on");
        return 0;
    }
    json_t *errors = json_array();
    if (imx_api_check_fields(body, fields, errors) > 0) {
        imx_reply_invalid_steal(r, errors, "Send {\"email\", \"password\"}");
        return 0;
    }
    json_decref(errors);
    const char *email = json_string_value(json_object_get(body, "email"));
    const char *password = json_string_value(json_object_get(body, "password"));
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return 0;

    char email_key[EMAIL_MAX + 16], ip_key[80], addr[64], window[16], max_email[16], max_ip[16];
    snprintf(email_key, sizeof email_key, "email:%.*s", EMAIL_MAX, email);
    for (char *p = email_key; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    snprintf(ip_key, sizeof ip_key, "ip:%s", imx_req_client_addr(r, addr, sizeof addr));
    snprintf(window, sizeof window, "%u", imx_auth_settings.login_window_s);
    snprintf(max_email, sizeof max_email, "%u", imx_auth_settings.login_max_failures);
    snprintf(max_ip, sizeof max_ip, "%u", imx_auth_settings.login_ip_max_failures);

    /* The attempt is counted before the password is checked, in one statement, so concurrent
     * attempts (on any replica) never check more passwords than the limit. */
    struct imx_db_throttle th;
    enum imx_db_status st =
        imx_db_throttle_take(c, email_key, ip_key, window, max_email, max_ip, email, &th, &why);
    if (st != IMX_DBS_OK) {
        free(th.password_hash);
        imx_api_reply_db_fault(r, st, &why);
        return 0;
    }
    long wait = th.wait_s;
    if (wait > 0) {
        if (th.password_hash) {
            sodium_memzero(th.password_hash, strlen(th.password_hash));
            free(th.password_hash);
        }
        char ra[24];
        snprintf(ra, sizeof ra, "%ld", wait);
        imx_reply_header(r, "Retry-After", ra);
        imx_reply_problem(r, IMX_E_RATE_LIMITED,
                          "Too many failed sign-ins; try again in %ld seconds", wait);
        return 0;
    }
    bool known = th.known && strlen(email) <= EMAIL_MAX;
    long long uid = known ? (long long)th.user_id : 0;
    char *hash = th.password_hash;
    if (hash && !known) {
        sodium_memzero(hash, strlen(hash));
        free(hash);
        hash = NULL;
    }
    /* Argon2id takes ~50 ms and 64 MiB: no database connection is held meanwhile. */
    imx_api_db_put(r);
    /* An unknown email costs the same Argon2id verification as a wrong password. */
    enum imx_password_result checked = imx_password_check(hash, password);
    if (hash) {
        sodium_memzero(hash, strlen(hash));
        free(hash);
    }
    if (checked == IMX_PASSWORD_WRONG) {
        imx_reply_problem(r, IMX_E_UNAUTHENTICATED, "The email or the password is wrong");
        return 0;
    }
    c = imx_api_db(r);
    if (!c)
        return 0;
    if (checked == IMX_PASSWORD_NO_SLOT) {
        imx_db_throttle_give_back(c, email_key, &why);
        imx_db_throttle_give_back(c, ip_key, &why);
        imx_reply_header(r, "Retry-After", "1");
        imx_reply_problem(r, IMX_E_BUSY,
                          "Every password check slot is busy; try again in a second");
        return 0;
    }
    if (throttle_ok(r, imx_db_throttle_clear(c, email_key, &why), &why) != 0 ||
        throttle_ok(r, imx_db_throttle_give_back(c, ip_key, &why), &why) != 0)
        return 0;
    return (int64_t)uid;
}

void imx_api_login(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    int64_t uid = imx_api_password_signin(r, body, login_fields);
    if (uid <= 0)
        return;
    json_t *reply = imx_api_token_reply((long long)uid);
    if (!reply) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    if (json_is_true(json_object_get(body, "refresh")) &&
        imx_api_refresh_open(r, uid, "password", reply) != 0) {
        json_decref(reply);
        return;
    }
    imx_reply_json_steal(r, 200, reply);
}

json_t *imx_api_token_reply(long long uid)
{
    char *token = imx_jwt_issue(uid, (long long)time(NULL), imx_auth_settings.jwt_ttl_s);
    if (!token)
        return NULL;
    json_t *reply = json_pack("{s:s, s:s, s:i}", "access_token", token, "token_type", "Bearer",
                              "expires_in", (int)imx_auth_settings.jwt_ttl_s);
    free(token);
    return reply;
}

void imx_api_me(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    const struct imx_principal *p = &r->principal;
    char uid[24], team[24];
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    snprintf(uid, sizeof uid, "%lld", (long long)p->user_id);
    snprintf(team, sizeof team, "%lld", (long long)p->token_team);
    struct imx_db_json j;
    enum imx_db_status st =
        imx_db_user_me(c, uid, p->token_id ? team : NULL,
                       p->token_id ? imx_role_name((enum imx_role)p->token_role) : NULL, &j, &why);
    imx_api_reply_json_text(r, 200, st, &why, &j, "No such user");
}
