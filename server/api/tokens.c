/* API tokens for scripts: POST /v1/tokens (shown once), GET /v1/tokens, DELETE /v1/tokens/{id}. */
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/cursor.h"
#include "auth/auth.h"
#include "auth/token.h"
#include "db/auth.h"
#include "api/tx.h"
#include "util/config.h"

#define TOKEN_DAYS_DEFAULT 30
#define TOKEN_DAYS_MAX     365

static const struct imx_api_field token_fields[] = {
    { "name", JSON_STRING, true },   { "team", JSON_STRING, true },
    { "role", JSON_STRING, true },   { "expires_in_days", JSON_INTEGER, false },
    { "scope", JSON_STRING, false }, { NULL, JSON_NULL, false },
};

struct token_create {
    char user_id[24], team_id[24], days[16];
    const char *name, *team, *role, *scope;
    char secret[IMX_TOKEN_LEN + 1];
    char hash[IMX_TOKEN_HASH_LEN + 1];
};

static int token_create_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct token_create *t = cls;
    long long of_user = 0, of_team = 0;
    enum imx_db_status st = imx_db_token_active_counts(imx_api_conn(r), t->user_id, t->team_id,
                                                       &of_user, &of_team, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    if (of_user >= imx_api_quotas.tokens_per_user) {
        imx_api_reply_quota(r, "api-tokens-per-user", imx_api_quotas.tokens_per_user,
                            "you have that many API tokens neither revoked nor expired");
        return -1;
    }
    if (of_team >= imx_api_quotas.tokens_per_team) {
        imx_api_reply_quota(r, "api-tokens-per-team", imx_api_quotas.tokens_per_team,
                            "the team has that many API tokens neither revoked nor expired");
        return -1;
    }
    int64_t new_id;
    struct imx_db_json j;
    st = imx_db_token_create(imx_api_conn(r), t->user_id, t->team_id, t->name, t->role, t->hash,
                             t->days, t->scope, &new_id, &j, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    json_t *doc = imx_api_json_load(&j);
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)new_id);
    json_t *detail = json_pack("{s:s, s:s, s:s, s:s}", "name", t->name, "team", t->team, "role",
                               t->role, "scope", t->scope ? t->scope : "api");
    int rc = imx_audit(r, "create", "api_token", id, detail);
    json_decref(detail);
    if (rc != 0 || !doc) {
        json_decref(doc);
        return rc != 0 ? rc : (imx_reply_problem(r, IMX_E_INTERNAL, NULL), -1);
    }
    json_object_set_new(doc, "token", json_string(t->secret));
    char loc[64];
    snprintf(loc, sizeof loc, "/v1/tokens/%s", id);
    imx_reply_header(r, "Location", loc);
    imx_reply_json_steal(r, 201, doc);
    return 0;
}

void imx_api_token_create(struct imx_req *r)
{
    const struct imx_principal *p = &r->principal;
    if (p->token_id) {
        imx_reply_problem(r, IMX_E_FORBIDDEN, "API tokens cannot create tokens; sign in instead");
        return;
    }
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, token_fields, errors);
    struct token_create t = {
        .name = json_string_value(json_object_get(body, "name")),
        .team = json_string_value(json_object_get(body, "team")),
        .role = json_string_value(json_object_get(body, "role")),
        .scope = json_string_value(json_object_get(body, "scope")),
    };
    /* A node-report token may only send node reports (POST /v1/nodes/reports), for its team: the
     * credential a fleet of machines carries. */
    if (t.scope && strcmp(t.scope, "api") != 0 && strcmp(t.scope, "node-report") != 0)
        imx_verr(errors, "/scope", "must be api or node-report");
    json_t *days = json_object_get(body, "expires_in_days");
    json_int_t d = json_is_integer(days) ? json_integer_value(days) : TOKEN_DAYS_DEFAULT;
    if (d < 1 || d > TOKEN_DAYS_MAX)
        imx_verr(errors, "/expires_in_days", "must be from 1 to %d", TOKEN_DAYS_MAX);
    if (t.name && (strlen(t.name) == 0 || strlen(t.name) > 100))
        imx_verr(errors, "/name", "must be 1 to 100 characters");
    enum imx_role want = imx_role_parse(t.role);
    if (t.role && want == IMX_ROLE_NONE)
        imx_verr(errors, "/role", "must be viewer, member, publisher or admin");
    if (t.team) {
        int64_t team_id = 0;
        enum imx_role have = imx_auth_role_slug(r, t.team, &team_id);
        /* Whether the team exists or is someone else's, the answer is the same. */
        if (have == IMX_ROLE_NONE)
            imx_verr(errors, "/team", "is not a team you belong to");
        else if (want > have)
            imx_verr(errors, "/role", "exceeds your role in team '%s' (%s)", t.team,
                     imx_role_name(have));
        snprintf(t.team_id, sizeof t.team_id, "%lld", (long long)team_id);
    }
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The token has invalid fields");
        return;
    }
    json_decref(errors);
    /* A token for a disabled team could do nothing there: refused as the team's writes are. */
    if (t.team && !imx_auth_team_enabled(r, (int64_t)strtoll(t.team_id, NULL, 10), t.team))
        return;
    snprintf(t.user_id, sizeof t.user_id, "%lld", (long long)p->user_id);
    snprintf(t.days, sizeof t.days, "%lld", (long long)d);
    if (imx_token_new(t.secret) != 0) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_token_hash(t.secret, t.hash);
    imx_api_tx(r, token_create_tx, &t);
    OPENSSL_cleanse(t.secret, sizeof t.secret);
}

void imx_api_token_list(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    char uid[24];
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    unsigned long long limit;
    char before[24], lim[24];
    const char *before_id;
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_id(r, before, &before_id))
        return;
    snprintf(lim, sizeof lim, "%llu", limit);
    struct imx_db_page page;
    enum imx_db_status st = imx_db_token_list(c, uid, before_id, lim, &page, &why);
    imx_api_reply_page(r, st, &why, &page, 0, limit, "I");
}

struct token_revoke {
    const char *id;
    char user_id[24];
    bool any_user;
};

static int token_revoke_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct token_revoke *t = cls;
    enum imx_db_status st =
        imx_db_token_revoke(imx_api_conn(r), t->id, t->any_user ? NULL : t->user_id, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No token %s", t->id);
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    if (imx_audit(r, "revoke", "api_token", t->id, NULL) != 0)
        return -1;
    imx_reply_empty(r, 204);
    return 0;
}

void imx_api_token_revoke(struct imx_req *r)
{
    unsigned long long id = 0;
    struct token_revoke t = { .id = imx_req_param(r, "id"), .any_user = r->principal.admin };
    /* Not a number is the same as not yours: 404. */
    if (imx_parse_uint(t.id, 1, INT64_MAX, &id) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No token %s", t.id);
        return;
    }
    snprintf(t.user_id, sizeof t.user_id, "%lld", (long long)r->principal.user_id);
    imx_api_tx(r, token_revoke_tx, &t);
}
