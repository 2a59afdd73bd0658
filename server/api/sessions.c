/* Sessions that last: the web UI's cookie session (POST/DELETE /v1/auth/session), the CLI's
 * refresh tokens (POST /v1/auth/refresh), and the sessions a user (or an admin) sees and revokes
 * (GET /v1/sessions, DELETE /v1/sessions/{id}, DELETE /v1/users/{id}/sessions). */
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "api/signin.h"
#include "api/tx.h"
#include "auth/auth.h"
#include "auth/session.h"
#include "auth/token.h"
#include "db/sessions.h"

static const struct imx_api_field session_fields[] = {
    { "email", JSON_STRING, true },
    { "password", JSON_STRING, true },
    { NULL, JSON_NULL, false },
};

static const struct imx_api_field refresh_fields[] = {
    { "refresh_token", JSON_STRING, true },
    { NULL, JSON_NULL, false },
};

/* Opens a session row of kind for uid with a fresh secret (and, for the web, a CSRF token).
 * Returns 0, or -1 after replying. */
static int open_session(struct imx_req *r, int64_t uid, const char *kind, const char *via,
                        char secret[IMX_SESSION_SECRET_MAX + 1], char *csrf,
                        struct imx_db_session_opened *opened)
{
    struct imx_db_fault why = { 0 };
    bool web = strcmp(kind, "web") == 0;
    char secret_hash[IMX_TOKEN_HASH_LEN + 1], csrf_hash[IMX_TOKEN_HASH_LEN + 1];
    if (imx_session_secret_new(web ? "" : IMX_REFRESH_PREFIX, secret) != 0 ||
        (web && imx_session_secret_new("", csrf) != 0)) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    imx_token_hash(secret, secret_hash);
    if (web)
        imx_token_hash(csrf, csrf_hash);
    char user[24], idle[16], absolute[16], max[16];
    snprintf(user, sizeof user, "%lld", (long long)uid);
    snprintf(idle, sizeof idle, "%u",
             web ? imx_session_settings.idle_s : imx_session_settings.refresh_idle_s);
    snprintf(absolute, sizeof absolute, "%u",
             web ? imx_session_settings.absolute_s : imx_session_settings.refresh_ttl_s);
    snprintf(max, sizeof max, "%d", IMX_SESSIONS_PER_USER);
    const char *ua = imx_req_header(r, "User-Agent");
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return -1;
    enum imx_db_status st =
        imx_db_session_open(c, user, kind, secret_hash, web ? csrf_hash : NULL, via, ua ? ua : "",
                            idle, absolute, max, opened, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_UNAUTHENTICATED, "The account is disabled");
        return -1;
    }
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, &why);
        return -1;
    }
    return 0;
}

int imx_api_refresh_open(struct imx_req *r, int64_t uid, const char *via, json_t *reply)
{
    char secret[IMX_SESSION_SECRET_MAX + 1];
    struct imx_db_session_opened o;
    if (open_session(r, uid, "cli", via, secret, NULL, &o) != 0)
        return -1;
    json_object_set_new(reply, "refresh_token", json_string(secret));
    json_object_set_new(reply, "refresh_expires_at", json_integer(o.expires_at));
    OPENSSL_cleanse(secret, sizeof secret);
    return 0;
}

int imx_api_web_session_open(struct imx_req *r, int64_t uid, const char *via, char *csrf,
                             long long *expires_at)
{
    char secret[IMX_SESSION_SECRET_MAX + 1], token[IMX_SESSION_SECRET_MAX + 1];
    struct imx_db_session_opened o;
    if (open_session(r, uid, "web", via, secret, token, &o) != 0)
        return -1;
    long long max_age = o.expires_at - (long long)time(NULL);
    imx_auth_set_session_cookies(r, secret, token, max_age > 0 ? max_age : 1);
    if (csrf)
        memcpy(csrf, token, sizeof token);
    if (expires_at)
        *expires_at = o.expires_at;
    OPENSSL_cleanse(secret, sizeof secret);
    return 0;
}

void imx_api_session_create(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    int64_t uid = imx_api_password_signin(r, body, session_fields);
    if (uid <= 0)
        return;
    char csrf[IMX_SESSION_SECRET_MAX + 1];
    long long expires_at = 0;
    if (imx_api_web_session_open(r, uid, "password", csrf, &expires_at) != 0)
        return;
    imx_reply_json_steal(r, 200,
                         json_pack("{s:s, s:I, s:i}", "csrf_token", csrf, "expires_at",
                                   (json_int_t)expires_at, "idle_timeout_s",
                                   (int)imx_session_settings.idle_s));
}

struct revoke {
    char id[24];
    char user_id[24];
    bool any_user; /* a global admin revokes anyone's */
    bool sign_out; /* the caller's own session: clear its cookies too */
};

static int revoke_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct revoke *v = cls;
    enum imx_db_status st =
        imx_db_session_revoke(imx_api_conn(r), v->id, v->any_user ? NULL : v->user_id, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No live session %s", v->id);
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    if (imx_audit(r, v->sign_out ? "sign_out" : "revoke", "session", v->id, NULL) != 0)
        return -1;
    if (v->sign_out)
        imx_auth_clear_session_cookies(r);
    imx_reply_empty(r, 204);
    return 0;
}

void imx_api_session_delete(struct imx_req *r)
{
    if (!r->principal.session_id) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          "This request was not made with a session cookie: there is no session "
                          "to sign out of (revoke an API token with DELETE /v1/tokens/{id})");
        return;
    }
    struct revoke v = { .sign_out = true };
    snprintf(v.id, sizeof v.id, "%lld", (long long)r->principal.session_id);
    snprintf(v.user_id, sizeof v.user_id, "%lld", (long long)r->principal.user_id);
    imx_api_tx(r, revoke_tx, &v);
}

void imx_api_session_revoke(struct imx_req *r)
{
    unsigned long long id = 0;
    const char *raw = imx_req_param(r, "id");
    /* Not a number is the same as not yours: 404. */
    if (imx_parse_uint(raw, 1, INT64_MAX, &id) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No live session %s", raw);
        return;
    }
    struct revoke v = { .any_user = r->principal.admin };
    snprintf(v.id, sizeof v.id, "%llu", id);
    snprintf(v.user_id, sizeof v.user_id, "%lld", (long long)r->principal.user_id);
    v.sign_out = (int64_t)id == r->principal.session_id;
    imx_api_tx(r, revoke_tx, &v);
}

struct revoke_user {
    char user_id[24];
};

static int revoke_user_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct revoke_user *v = cls;
    long long n = 0;
    enum imx_db_status st = imx_db_session_revoke_user(imx_api_conn(r), v->user_id, &n, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    json_t *detail = json_pack("{s:I}", "revoked", (json_int_t)n);
    int rc = imx_audit(r, "revoke_all", "session", v->user_id, detail);
    json_decref(detail);
    if (rc != 0)
        return -1;
    imx_reply_json_steal(r, 200, json_pack("{s:I}", "revoked", (json_int_t)n));
    return 0;
}

void imx_api_user_sessions_revoke(struct imx_req *r)
{
    unsigned long long id = 0;
    const char *raw = imx_req_param(r, "id");
    if (imx_parse_uint(raw, 1, INT64_MAX, &id) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No user %s", raw);
        return;
    }
    struct revoke_user v;
    snprintf(v.user_id, sizeof v.user_id, "%llu", id);
    imx_api_tx(r, revoke_user_tx, &v);
}

void imx_api_session_list(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    char uid[24], current[24];
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    snprintf(current, sizeof current, "%lld", (long long)r->principal.session_id);
    struct imx_db_json j;
    enum imx_db_status st = imx_db_session_list(c, uid, current, &j, &why);
    imx_api_reply_json_text(r, 200, st, &why, &j, "No such user");
}

void imx_api_user_session_list(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    unsigned long long id = 0;
    const char *raw = imx_req_param(r, "id");
    if (imx_parse_uint(raw, 1, INT64_MAX, &id) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No user %s", raw);
        return;
    }
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    char uid[24], current[24];
    snprintf(uid, sizeof uid, "%llu", id);
    snprintf(current, sizeof current, "%lld", (long long)r->principal.session_id);
    struct imx_db_json j;
    enum imx_db_status st = imx_db_session_list(c, uid, current, &j, &why);
    imx_api_reply_json_text(r, 200, st, &why, &j, "No such user");
}

void imx_api_refresh(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    if (imx_api_check_fields(body, refresh_fields, errors) > 0) {
        imx_reply_invalid_steal(r, errors, "Send {\"refresh_token\"}");
        return;
    }
    json_decref(errors);
    const char *old = json_string_value(json_object_get(body, "refresh_token"));
    char secret[IMX_SESSION_SECRET_MAX + 1], old_hash[IMX_TOKEN_HASH_LEN + 1],
        new_hash[IMX_TOKEN_HASH_LEN + 1];
    if (strlen(old) > IMX_SESSION_SECRET_MAX ||
        strncmp(old, IMX_REFRESH_PREFIX, strlen(IMX_REFRESH_PREFIX)) != 0) {
        imx_reply_problem(r, IMX_E_UNAUTHENTICATED, "The refresh token is not one imaxe issued");
        return;
    }
    if (imx_session_secret_new(IMX_REFRESH_PREFIX, secret) != 0) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_token_hash(old, old_hash);
    imx_token_hash(secret, new_hash);
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    int64_t uid = 0;
    long long expires_at = 0;
    enum imx_db_status st = imx_db_session_rotate(c, old_hash, new_hash, &uid, &expires_at, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_UNAUTHENTICATED,
                          "The refresh token is unknown, already used, revoked, idle too long or "
                          "expired: sign in again");
        return;
    }
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, &why);
        return;
    }
    json_t *reply = imx_api_token_reply((long long)uid);
    if (!reply) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    json_object_set_new(reply, "refresh_token", json_string(secret));
    json_object_set_new(reply, "refresh_expires_at", json_integer(expires_at));
    OPENSSL_cleanse(secret, sizeof secret);
    imx_reply_json_steal(r, 200, reply);
}
