/* Single sign-on with OpenID Connect: GET /v1/auth/oidc/start sends the browser to the provider
 * (authorization code with PKCE, state and nonce kept server-side and bound to the browser by a
 * short-lived cookie), GET /v1/auth/oidc/callback takes the state once, redeems the code,
 * validates the ID token, provisions the user and their mapped teams, and opens the web session.
 * GET /v1/auth/providers tells the sign-in screen which ways in there are. */
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/signin.h"
#include "auth/auth.h"
#include "auth/oidc.h"
#include "auth/session.h"
#include "auth/token.h"
#include "db/oidc.h"
#include "util/log.h"

#define OIDC_COOKIE "imaxe_oidc"
#define NEXT_MAX    500

void imx_api_auth_providers(struct imx_req *r)
{
    imx_reply_json_steal(r, 200,
                         json_pack("{s:b, s:b, s:s}", "local_passwords",
                                   imx_session_settings.local_passwords, "oidc", imx_oidc_enabled(),
                                   "oidc_name", imx_oidc_name()));
}

/* Whether next is a screen of the web UI to return to: a path of our own ("/pins?x=1"), never
 * another site ("//evil.example", "https://..."). */
static bool next_ok(const char *next)
{
    if (!next || next[0] != '/' || next[1] == '/' || next[1] == '\\' || strlen(next) > NEXT_MAX)
        return false;
    for (const char *p = next; *p; p++)
        if ((unsigned char)*p < 0x21 || *p == '\\')
            return false;
    return true;
}

static bool refuse_off(struct imx_req *r)
{
    if (imx_oidc_enabled())
        return false;
    imx_reply_problem(r, IMX_E_NOT_FOUND,
                      "Single sign-on is not configured on this server (IMAXE_OIDC_ISSUER)");
    return true;
}

void imx_api_oidc_start(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    if (refuse_off(r))
        return;
    const char *next = imx_req_query(r, "next");
    if (next && !next_ok(next)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          "next must be a path of this site, such as /pins (at most %d bytes)",
                          NEXT_MAX);
        return;
    }
    struct imx_oidc_start s;
    char err[512];
    if (imx_oidc_start(&s, err, sizeof err) != 0) {
        imx_warn("oidc: cannot start a sign-in: %s", err);
        imx_reply_problem(r, IMX_E_NOT_READY,
                          "The identity provider cannot be reached; try again shortly");
        return;
    }
    char state_hash[IMX_TOKEN_HASH_LEN + 1], ttl[16];
    imx_token_hash(s.state, state_hash);
    snprintf(ttl, sizeof ttl, "%d", IMX_OIDC_STATE_TTL_S);
    struct imx_db_conn *c = imx_api_db(r);
    enum imx_db_status st =
        c ? imx_db_oidc_login_put(c, state_hash, s.nonce, s.verifier, next ? next : "", ttl, &why)
          : IMX_DBS_UNAVAILABLE;
    if (!c) {
        imx_oidc_start_free(&s);
        return;
    }
    if (st != IMX_DBS_OK) {
        imx_oidc_start_free(&s);
        imx_api_reply_db_fault(r, st, &why);
        return;
    }
    /* The state also rides in a cookie of this browser's: a callback carrying a state that some
     * other browser started (an attacker's own sign-in, to log the victim in as the attacker)
     * finds no matching cookie. */
    char cookie[256];
    snprintf(
        cookie, sizeof cookie, "%s=%s; Path=/v1/auth/oidc; Max-Age=%d; HttpOnly; SameSite=Lax%s",
        OIDC_COOKIE, s.state, IMX_OIDC_STATE_TTL_S,
        imx_session_cookie_secure(imx_req_header(r, "X-Forwarded-Proto"), imx_req_header(r, "Host"))
            ? "; Secure"
            : "");
    imx_reply_header(r, "Set-Cookie", cookie);
    imx_reply_header(r, "Location", s.url);
    imx_reply_header(r, "Cache-Control", "no-store");
    imx_oidc_start_free(&s);
    imx_reply_empty(r, 302);
}

/* "{a,b}" of strings that need no quoting (slugs, role names; "" for an empty one). */
static void array_literal(char *out, size_t len, const struct imx_oidc_grant *g, size_t n,
                          bool roles)
{
    size_t at = (size_t)snprintf(out, len, "{");
    for (size_t i = 0; i < n && at < len; i++) {
        const char *v = roles ? g[i].role : g[i].team;
        at += (size_t)snprintf(out + at, len - at, "%s%s", i ? "," : "", *v ? v : "\"\"");
    }
    if (at < len)
        snprintf(out + at, len - at, "}");
}

int64_t imx_api_oidc_land(struct imx_req *r, const struct imx_oidc_identity *id, const char *via)
{
    struct imx_db_fault why = { 0 };
    struct imx_oidc_grant grants[IMX_OIDC_MAP_MAX];
    size_t ng = imx_oidc_grants(imx_oidc_group_map(), (const char *const *)id->groups, id->ngroups,
                                grants, IMX_OIDC_MAP_MAX);
    char teams[IMX_OIDC_MAP_MAX * 66 + 4], roles[IMX_OIDC_MAP_MAX * 18 + 4];
    array_literal(teams, sizeof teams, grants, ng, false);
    array_literal(roles, sizeof roles, grants, ng, true);
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return 0;
    int64_t uid = 0;
    bool created = false;
    int changed = 0;
    enum imx_db_status st =
        imx_db_oidc_sign_in(c, id->issuer, id->subject, id->email, id->name, id->email_verified,
                            teams, roles, &uid, &created, &changed, &why);
    if (st == IMX_DBS_NOT_FOUND || st == IMX_DBS_CONFLICT) {
        imx_reply_problem(r, IMX_E_FORBIDDEN,
                          st == IMX_DBS_CONFLICT
                              ? "The email %s belongs to another imaxe user and the provider "
                                "does not vouch for it (email_verified)"
                              : "The imaxe account for %s is disabled",
                          id->email);
        return 0;
    }
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, &why);
        return 0;
    }
    imx_info("request %s: %s sign-in of %s (user %lld%s, %d memberships changed)", r->request_id,
             via, id->email, (long long)uid, created ? ", new" : "", changed);
    r->principal.user_id = uid;
    r->principal.authenticated = true;
    char uid_s[24];
    snprintf(uid_s, sizeof uid_s, "%lld", (long long)uid);
    json_t *detail = json_pack("{s:s, s:b, s:i}", "via", via, "created", created,
                               "memberships_changed", changed);
    int rc = imx_audit(r, "sign_in", "user", uid_s, detail);
    json_decref(detail);
    return rc == 0 ? uid : 0;
}

void imx_api_oidc_callback(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    if (refuse_off(r))
        return;
    const char *state = imx_req_query(r, "state"), *code = imx_req_query(r, "code");
    const char *error = imx_req_query(r, "error");
    if (!state || !*state || strlen(state) > 128) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "The provider's answer carries no state");
        return;
    }
    /* The state is taken before anything else: whatever follows, it is spent, so a replayed
     * callback is refused. */
    char state_hash[IMX_TOKEN_HASH_LEN + 1], ttl[16];
    imx_token_hash(state, state_hash);
    snprintf(ttl, sizeof ttl, "%d", IMX_OIDC_STATE_TTL_S);
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    struct imx_db_oidc_login login;
    enum imx_db_status st = imx_db_oidc_login_take(c, state_hash, ttl, &login, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          "This sign-in is unknown, already used or older than %d minutes: "
                          "start again from the sign-in page",
                          IMX_OIDC_STATE_TTL_S / 60);
        return;
    }
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, &why);
        return;
    }
    char bound[160];
    const char *cookies = imx_req_header(r, "Cookie");
    if (!imx_session_cookie_in(cookies, OIDC_COOKIE, bound, sizeof bound) ||
        strlen(bound) != strlen(state) || CRYPTO_memcmp(bound, state, strlen(state)) != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          "This sign-in was started in another browser: start again here");
        return;
    }
    if (error) {
        const char *desc = imx_req_query(r, "error_description");
        imx_reply_problem(r, IMX_E_UNAUTHENTICATED, "The identity provider refused: %.60s%s%.200s",
                          error, desc ? ": " : "", desc ? desc : "");
        return;
    }
    if (!code || !*code || strlen(code) > 2048) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "The provider's answer carries no code");
        return;
    }
    /* The provider is called without a database connection held. */
    imx_api_db_put(r);
    struct imx_oidc_identity id;
    bool upstream = false;
    char err[512];
    int rc = imx_oidc_finish(code, login.verifier, login.nonce, &id, &upstream, err, sizeof err);
    OPENSSL_cleanse(login.verifier, sizeof login.verifier);
    if (rc != 0) {
        imx_warn("request %s: oidc sign-in refused: %s", r->request_id, err);
        if (upstream)
            imx_reply_problem(r, IMX_E_NOT_READY,
                              "The identity provider could not be used (%s); try again shortly",
                              err);
        else
            imx_reply_problem(r, IMX_E_UNAUTHENTICATED, "Single sign-on refused: %s", err);
        return;
    }
    int64_t uid = imx_api_oidc_land(r, &id, "oidc");
    imx_oidc_identity_free(&id);
    if (!uid)
        return;
    if (imx_api_web_session_open(r, uid, "oidc", NULL, NULL) != 0)
        return;
    char clear[160], location[NEXT_MAX + 8];
    snprintf(clear, sizeof clear, "%s=; Path=/v1/auth/oidc; Max-Age=0; HttpOnly; SameSite=Lax",
             OIDC_COOKIE);
    imx_reply_header(r, "Set-Cookie", clear);
    snprintf(location, sizeof location, "/#%s", login.next[0] ? login.next : "/catalog");
    imx_reply_header(r, "Location", location);
    imx_reply_header(r, "Cache-Control", "no-store");
    imx_reply_empty(r, 302);
}
