/* Who is calling and what they may do: the authenticator run before every non-public route
 * (the http auth hooks), role checks per team, and the audit log of writes (api/access.h). It
 * reads principals through db/auth.h and remembers them in api/principal_cache.c. */
#include "api/access.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api/api.h"
#include "api/principal_cache.h"
#include "api/tx.h"
#include "auth/jwt.h"
#include "auth/session.h"
#include "auth/token.h"
#include "db/auth.h"
#include "db/sessions.h"
#include "http/router.h"
#include "util/config.h"
#include "util/log.h"

/* Replies 401 with WWW-Authenticate (RFC 6750: error only when a token was sent). */
static bool unauthenticated(struct imx_req *r, bool token_sent, const char *why)
{
    imx_reply_header(r, "WWW-Authenticate",
                     token_sent ? IMX_WWW_AUTHENTICATE
                         ", error=\"invalid_token\", "
                         "error_description=\"The token is invalid, expired or revoked\""
                                : IMX_WWW_AUTHENTICATE);
    if (token_sent)
        imx_debug("request %s: token rejected (%s)", r->request_id, why);
    imx_reply_problem(r, IMX_E_UNAUTHENTICATED,
                      token_sent ? "The token is invalid, expired or revoked"
                                 : "Send Authorization: Bearer <token>");
    return false;
}

static int64_t parse_id(const char *s)
{
    unsigned long long v = 0;
    return imx_parse_uint(s, 1, INT64_MAX, &v) == 0 ? (int64_t)v : 0;
}

static enum imx_role cap(const struct imx_principal *p, int64_t team_id, enum imx_role member);

/* Authenticates an imx_ API token by its hash. Fills *e with the principal, its highest role (its
 * capped role in its team), expiry and epoch. Returns 1 when valid, 0 when not, -1 after
 * replying. */
static int api_token_principal(struct imx_req *r, const char *hash, struct imx_pcache_entry *e)
{
    struct imx_db_fault why = { 0 };
    struct imx_db_token_principal t;
    enum imx_db_status st = imx_db_auth_api_token(imx_api_conn(r), hash, &t, &why);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND) {
        imx_api_reply_db_fault(r, st, &why);
        return -1;
    }
    int ok = st == IMX_DBS_OK;
    if (ok) {
        struct imx_principal *p = &e->principal;
        p->token_id = t.token_id > 0 ? t.token_id : 0;
        p->user_id = t.user_id > 0 ? t.user_id : 0;
        p->token_team = t.team_id > 0 ? t.team_id : 0;
        p->token_role = (int)imx_role_parse(t.token_role);
        p->user_admin = t.user_admin;
        p->admin = false; /* a script token never carries global admin powers */
        p->report_only = strcmp(t.scope, "node-report") == 0;
        p->authenticated = true;
        e->max_role = (int)cap(p, p->token_team,
                               t.member_role[0] ? imx_role_parse(t.member_role) : IMX_ROLE_NONE);
        e->expires_at = (time_t)t.expires_at;
        e->epoch = t.epoch;
    }
    return ok;
}

/* The user behind a verified access token. Fills *e as above; the entry has no expiry of its own
 * (the JWT is verified on every request). Returns 1, 0 or -1. */
static int user_principal(struct imx_req *r, int64_t uid, struct imx_pcache_entry *e)
{
    struct imx_db_fault why = { 0 };
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)uid);
    struct imx_db_user_principal u;
    enum imx_db_status st = imx_db_auth_user_active(imx_api_conn(r), id, &u, &why);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND) {
        imx_api_reply_db_fault(r, st, &why);
        return -1;
    }
    int ok = st == IMX_DBS_OK;
    if (ok) {
        struct imx_principal *p = &e->principal;
        p->user_id = uid;
        p->user_admin = u.admin;
        p->admin = p->user_admin;
        p->authenticated = true;
        e->max_role = p->user_admin ? IMX_ROLE_ADMIN : (int)imx_role_parse(u.max_role);
        e->expires_at = (time_t)INT64_MAX;
        e->epoch = u.epoch;
    }
    return ok;
}

/* The role a user (not a token) holds in a team whose membership role is row_role. */
static enum imx_role cap(const struct imx_principal *p, int64_t team_id, enum imx_role member)
{
    enum imx_role role = p->user_admin ? IMX_ROLE_ADMIN : member;
    if (p->token_id) {
        if (team_id != p->token_team)
            return IMX_ROLE_NONE;
        if ((int)role > p->token_role)
            role = (enum imx_role)p->token_role;
    }
    return role;
}

/* The request's connection, acquired without replying when there is none yet. */
static struct imx_db_conn *quiet_db(struct imx_req *r)
{
    return imx_api_db_quiet(r);
}

/* The caller's role in team_id. Returns 0, or -1 on a database failure (replied when reply). */
static int role_in(struct imx_req *r, int64_t team_id, enum imx_role *out, bool reply)
{
    struct imx_db_fault why = { 0 };
    const struct imx_principal *p = &r->principal;
    *out = IMX_ROLE_NONE;
    if (p->cached && reply && imx_auth_confirm_now(r) < 0)
        return -1;
    if (!p->authenticated || (p->token_id && team_id != p->token_team))
        return 0;
    if (p->user_admin) {
        *out = cap(p, team_id, IMX_ROLE_ADMIN);
        return 0;
    }
    struct imx_db_conn *c = reply ? imx_api_db(r) : quiet_db(r);
    if (!c)
        return -1;
    char tid[24], uid[24];
    snprintf(tid, sizeof tid, "%lld", (long long)team_id);
    snprintf(uid, sizeof uid, "%lld", (long long)p->user_id);
    char role[16];
    enum imx_db_status st = imx_db_auth_role_in_team(c, tid, uid, role, &why);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND) {
        if (reply)
            imx_api_reply_db_fault(r, st, &why);
        else
            imx_error("request %s: role lookup failed: %s", r->request_id, imx_db_status_name(st));
        return -1;
    }
    if (st == IMX_DBS_OK)
        *out = cap(p, team_id, imx_role_parse(role));
    return 0;
}

/* r->principal from a check or a cache entry, keeping the request's cache key. */
static void take_principal(struct imx_req *r, const struct imx_pcache_entry *e, bool cached)
{
    char key[sizeof r->principal.cache_key];
    memcpy(key, r->principal.cache_key, sizeof key);
    r->principal = e->principal;
    memcpy(r->principal.cache_key, key, sizeof key);
    r->principal.max_role = e->max_role;
    r->principal.cached = cached;
    r->principal.epoch = e->epoch;
}

/* The full check of a credential: the principal from PostgreSQL, remembered for later requests
 * when the cache is on. Returns 1, 0 (not valid) or -1 after replying. */
static int check_principal(struct imx_req *r, bool api, const char *hash, int64_t uid)
{
    if (!imx_api_db(r))
        return -1;
    struct imx_pcache_entry e = { .max_role = IMX_ROLE_NONE };
    int ok = api ? api_token_principal(r, hash, &e) : user_principal(r, uid, &e);
    if (ok == 1) {
        take_principal(r, &e, false);
        if (imx_auth_settings.read_cache)
            imx_pcache_put(r->principal.cache_key, &e);
    }
    return ok;
}

/* Would the route's access and least role let the principal in? */
static bool route_admits(const struct imx_req *r)
{
    const struct imx_route *rt = r->route;
    if (rt->access == IMX_ACCESS_ADMIN && !r->principal.admin)
        return false;
    if (r->principal.report_only && rt->access != IMX_ACCESS_NODE_REPORT)
        return false;
    return rt->min_role <= IMX_ROLE_NONE || r->principal.admin ||
           r->principal.max_role >= rt->min_role;
}

/* The route's access and least role, for the principal found. Replies 403 and returns false when
 * the caller may not go on. */
static bool route_allows(struct imx_req *r)
{
    const struct imx_route *rt = r->route;
    /* A node's token is worth stealing less than any other: it can only report. */
    if (r->principal.report_only && rt->access != IMX_ACCESS_NODE_REPORT) {
        imx_reply_problem(r, IMX_E_FORBIDDEN, "A node-report token may only send node reports");
        return false;
    }
    if (rt->access == IMX_ACCESS_ADMIN && !r->principal.admin) {
        imx_reply_problem(r, IMX_E_FORBIDDEN, "Only global admins may %s %s", rt->method, rt->path);
        return false;
    }
    if (rt->min_role > IMX_ROLE_NONE && !r->principal.admin &&
        r->principal.max_role < rt->min_role) {
        imx_reply_problem(r, IMX_E_FORBIDDEN, "%s %s needs the %s role in a team", rt->method,
                          rt->path, imx_role_name((enum imx_role)rt->min_role));
        return false;
    }
    return true;
}

/* The credential's key in r->principal.cache_key: an API token's hash, or the user an access
 * token names once its signature and expiry are verified here (no query). Returns NULL, or why
 * the credential is refused (*with_error: the challenge names an error). */
static const char *credential_key(struct imx_req *r, time_t now, bool *api, char *hash,
                                  int64_t *uid, bool *with_error)
{
    const char *h = imx_req_header(r, "Authorization");
    *with_error = true;
    if (!h) {
        *with_error = false;
        return "no Authorization header";
    }
    if (strncasecmp(h, "Bearer ", 7) != 0)
        return "not a Bearer credential";
    const char *token = h + 7;
    while (*token == ' ')
        token++;
    if (!*token || strlen(token) > IMX_JWT_TOKEN_MAX)
        return "empty or oversized token";
    *api = strncmp(token, IMX_TOKEN_PREFIX, strlen(IMX_TOKEN_PREFIX)) == 0;
    if (*api) {
        imx_token_hash(token, hash);
        snprintf(r->principal.cache_key, sizeof r->principal.cache_key, "t:%s", hash);
        return NULL;
    }
    enum imx_jwt_result v = imx_jwt_verify(token, (long long)now, uid);
    if (v != IMX_JWT_OK) {
        imx_debug("request %s: access token rejected: %s", r->request_id, imx_jwt_result_name(v));
        return "invalid access token";
    }
    snprintf(r->principal.cache_key, sizeof r->principal.cache_key, "u:%lld", (long long)*uid);
    return NULL;
}

/* Lets r in with the principal cache's entry for its credential when the route takes one
 * (struct imx_route, epoch_auth) and admits it. */
static bool admitted_remembered(struct imx_req *r, time_t now)
{
    struct imx_pcache_entry e;
    if (!imx_auth_settings.read_cache || !r->route->epoch_auth ||
        !imx_pcache_get(r->principal.cache_key, now, &e))
        return false;
    take_principal(r, &e, true);
    /* A refusal is never taken from the cache: a right granted since must count. */
    if (route_admits(r))
        return true;
    struct imx_pcache_entry none = { .max_role = IMX_ROLE_NONE };
    take_principal(r, &none, false);
    return false;
}

bool imx_auth_remembered(struct imx_req *r)
{
    bool api = false, with_error;
    char hash[IMX_TOKEN_HASH_LEN + 1] = "";
    int64_t uid = 0;
    time_t now = time(NULL);
    if (!credential_key(r, now, &api, hash, &uid, &with_error) && admitted_remembered(r, now))
        return true;
    memset(&r->principal, 0, sizeof r->principal);
    return false;
}

bool imx_auth_session_cookie(const struct imx_req *r, char *out, size_t len)
{
    return imx_session_cookie_in(imx_req_header(r, "Cookie"), IMX_SESSION_COOKIE, out, len);
}

static bool cookie_secure(const struct imx_req *r)
{
    return imx_session_cookie_secure(imx_req_header(r, "X-Forwarded-Proto"),
                                     imx_req_header(r, "Host"));
}

void imx_auth_set_session_cookies(struct imx_req *r, const char *secret, const char *csrf,
                                  long long max_age_s)
{
    char c[256];
    bool secure = cookie_secure(r);
    /* The session cookie is for the server only (HttpOnly); the CSRF cookie is read by the web
     * UI, which echoes it in X-CSRF-Token on writes: a page on another site can neither read
     * it nor set the header. SameSite=Lax keeps the cookie off cross-site subrequests too. */
    imx_session_cookie_line(c, sizeof c, IMX_SESSION_COOKIE, secret, max_age_s, true, secure);
    imx_reply_header(r, "Set-Cookie", c);
    imx_session_cookie_line(c, sizeof c, IMX_CSRF_COOKIE, csrf, max_age_s, false, secure);
    imx_reply_header(r, "Set-Cookie", c);
}

void imx_auth_clear_session_cookies(struct imx_req *r)
{
    char c[160];
    bool secure = cookie_secure(r);
    imx_session_cookie_line(c, sizeof c, IMX_SESSION_COOKIE, "", 0, true, secure);
    imx_reply_header(r, "Set-Cookie", c);
    imx_session_cookie_line(c, sizeof c, IMX_CSRF_COOKIE, "", 0, false, secure);
    imx_reply_header(r, "Set-Cookie", c);
}

/* A web session's cookie: the session is looked up (and its use recorded) on every request, never
 * remembered, so that a sign-out or a revocation counts at once on every replica. A write must
 * carry the session's CSRF token in X-CSRF-Token. */
static bool session_authenticate(struct imx_req *r, const char *secret)
{
    struct imx_db_fault why = { 0 };
    char hash[IMX_TOKEN_HASH_LEN + 1];
    imx_token_hash(secret, hash);
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return false;
    struct imx_db_session s;
    enum imx_db_status st = imx_db_session_use(c, hash, "web", &s, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_auth_clear_session_cookies(r);
        imx_reply_header(r, "WWW-Authenticate", IMX_WWW_AUTHENTICATE);
        imx_reply_problem(r, IMX_E_UNAUTHENTICATED,
                          "The session has ended (signed out, revoked, idle too long or expired): "
                          "sign in again");
        return false;
    }
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, &why);
        return false;
    }
    if (imx_session_unsafe_method(r->route->method)) {
        const char *t = imx_req_header(r, IMX_CSRF_HEADER);
        char got[IMX_TOKEN_HASH_LEN + 1] = "";
        if (t && strlen(t) <= IMX_SESSION_SECRET_MAX)
            imx_token_hash(t, got);
        if (!t || strlen(got) != strlen(s.csrf_hash) ||
            CRYPTO_memcmp(got, s.csrf_hash, strlen(got)) != 0) {
            imx_reply_problem(r, IMX_E_FORBIDDEN,
                              "A write with the session cookie needs the session's CSRF token "
                              "in " IMX_CSRF_HEADER " (the " IMX_CSRF_COOKIE " cookie's value)");
            return false;
        }
    }
    struct imx_pcache_entry e = { .max_role = IMX_ROLE_NONE };
    int ok = user_principal(r, s.user_id, &e);
    if (ok < 0)
        return false;
    if (ok == 0)
        return unauthenticated(r, false, "the session's user is disabled");
    take_principal(r, &e, false);
    r->principal.session_id = s.session_id;
    return route_allows(r);
}

bool imx_auth_authenticate(struct imx_req *r)
{
    /* A script's bearer token wins over a cookie the same client may also hold. */
    char secret[IMX_SESSION_SECRET_MAX + 1];
    if (!imx_req_header(r, "Authorization") && imx_auth_session_cookie(r, secret, sizeof secret))
        return session_authenticate(r, secret);
    bool api = false, with_error;
    char hash[IMX_TOKEN_HASH_LEN + 1] = "";
    int64_t uid = 0;
    time_t now = time(NULL);
    const char *refused = credential_key(r, now, &api, hash, &uid, &with_error);
    if (refused)
        return unauthenticated(r, with_error, refused);
    /* A route whose statement confirms the epoch (imx_auth_confirm) takes a remembered
     * principal; every other route checks in full. */
    if (admitted_remembered(r, now))
        return true;
    int ok = check_principal(r, api, hash, uid);
    if (ok < 0)
        return false;
    if (ok == 0)
        return unauthenticated(r, true, "unknown, revoked or expired token");
    return route_allows(r);
}

int imx_auth_confirm(struct imx_req *r, long long epoch)
{
    struct imx_principal *p = &r->principal;
    if (!p->cached)
        return 1;
    if (p->epoch == epoch) {
        p->cached = false; /* confirmed: as good as checked in full for the rest of the request */
        return 1;
    }
    /* Something that can take a right away was committed since the entry was read: the same
     * credential is checked again in full. */
    char key[sizeof p->cache_key];
    memcpy(key, p->cache_key, sizeof key);
    imx_pcache_drop(key);
    bool api = strncmp(key, "t:", 2) == 0;
    int64_t uid = api ? 0 : parse_id(key + 2);
    memset(p, 0, sizeof *p);
    memcpy(p->cache_key, key, sizeof key);
    int ok = check_principal(r, api, api ? key + 2 : NULL, uid);
    if (ok < 0)
        return -1;
    if (ok == 0) {
        unauthenticated(r, true, "revoked token or disabled user");
        return -1;
    }
    return route_allows(r) ? 0 : -1;
}

enum imx_role imx_auth_role_slug(struct imx_req *r, const char *slug, int64_t *team_id)
{
    char uid[24];
    *team_id = 0;
    if (!quiet_db(r) || !r->principal.authenticated)
        return IMX_ROLE_NONE;
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    struct imx_db_team_read t;
    enum imx_role role = IMX_ROLE_NONE;
    enum imx_db_status st = imx_db_auth_team_read(imx_api_conn(r), slug, uid, &t, NULL);
    if (st != IMX_DBS_OK) {
        imx_error("request %s: team lookup failed: %s", r->request_id, imx_db_status_name(st));
    } else if (t.team_id) {
        *team_id = t.team_id;
        role = cap(&r->principal, t.team_id, imx_role_parse(t.role));
    }
    imx_db_team_read_free(&t);
    return role;
}

/* The replies of a team check: 404 when the caller has no role (whether the team is missing or
 * merely someone else's: the same answer), 403 when it is below min, and 403 for anything above
 * reading in a disabled team (a write reads one row more; a read none). */
static bool team_role_passes(struct imx_req *r, const char *slug, int64_t team_id,
                             enum imx_role role, enum imx_role min)
{
    if (role == IMX_ROLE_NONE) {
        if (slug)
            imx_reply_problem(r, IMX_E_NOT_FOUND, "No team '%s'", slug);
        else
            imx_reply_problem(r, IMX_E_NOT_FOUND, "Not found");
        return false;
    }
    if (role < min) {
        if (slug)
            imx_reply_problem(r, IMX_E_FORBIDDEN, "Your role in team '%s' is %s; this needs %s",
                              slug, imx_role_name(role), imx_role_name(min));
        else
            imx_reply_problem(r, IMX_E_FORBIDDEN,
                              "Your role in the owning team is %s; this needs %s",
                              imx_role_name(role), imx_role_name(min));
        return false;
    }
    return min <= IMX_ROLE_VIEWER || imx_auth_team_enabled(r, team_id, slug);
}

bool imx_auth_team_disabled(struct imx_req *r, int64_t team_id)
{
    struct imx_db_conn *c = quiet_db(r);
    char tid[24], slug[64];
    bool disabled = false;
    snprintf(tid, sizeof tid, "%lld", (long long)team_id);
    return c && imx_db_team_disabled(c, tid, &disabled, slug, NULL) == IMX_DBS_OK && disabled;
}

bool imx_auth_team_enabled(struct imx_req *r, int64_t team_id, const char *slug)
{
    struct imx_db_fault why = { 0 };
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return false;
    char tid[24];
    snprintf(tid, sizeof tid, "%lld", (long long)team_id);
    bool disabled = false;
    char name[64];
    enum imx_db_status st = imx_db_team_disabled(c, tid, &disabled, name, &why);
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, &why);
        return false;
    }
    if (disabled) {
        imx_reply_problem(r, IMX_E_FORBIDDEN,
                          "Team '%s' is disabled: it can be read, but its pins, webhooks and "
                          "other writes are refused until a global admin enables it again "
                          "(PATCH /v1/teams/%s with {\"disabled\": false})",
                          slug ? slug : name, slug ? slug : name);
        return false;
    }
    return true;
}

int64_t imx_auth_team_with(struct imx_req *r, const char *slug, enum imx_role min,
                           imx_auth_team_read_fn read, void *cls, struct imx_db_team_read *out)
{
    struct imx_db_fault why = { 0 };
    char uid[24];
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!imx_api_db(r))
            return 0;
        snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
        enum imx_db_status st = read(imx_api_conn(r), uid, cls, out, &why);
        if (st != IMX_DBS_OK) {
            imx_api_reply_db_fault(r, st, &why);
            imx_db_team_read_free(out);
            return 0;
        }
        /* The statement's epoch confirms a remembered principal too. */
        int confirmed = imx_auth_confirm(r, out->epoch);
        if (confirmed == 1) {
            if (imx_auth_team_read(r, slug, out->team_id, out->role, min))
                return out->team_id;
            imx_db_team_read_free(out);
            return 0;
        }
        imx_db_team_read_free(out);
        if (confirmed < 0)
            return 0;
        /* checked again in full: the answer was read for the principal as it was */
    }
    imx_reply_problem(r, IMX_E_INTERNAL, NULL); /* a principal checked in full confirms at once */
    return 0;
}

static enum imx_db_status read_team(struct imx_db_conn *c, const char *user_id, void *slug,
                                    struct imx_db_team_read *out, struct imx_db_fault *why)
{
    return imx_db_auth_team_read(c, slug, user_id, out, why);
}

int64_t imx_auth_team(struct imx_req *r, const char *slug, enum imx_role min)
{
    struct imx_db_team_read t;
    int64_t id = imx_auth_team_with(r, slug, min, read_team, (void *)slug, &t);
    if (id)
        imx_db_team_read_free(&t);
    return id;
}

int64_t imx_auth_team_read(struct imx_req *r, const char *slug, int64_t team_id,
                           const char *member_role, enum imx_role min)
{
    enum imx_role role = r->principal.authenticated && team_id
                             ? cap(&r->principal, team_id, imx_role_parse(member_role))
                             : IMX_ROLE_NONE;
    return team_role_passes(r, slug, team_id, role, min) ? team_id : 0;
}

bool imx_auth_team_id(struct imx_req *r, int64_t team_id, enum imx_role min)
{
    enum imx_role role;
    if (role_in(r, team_id, &role, true) != 0)
        return false;
    return team_role_passes(r, NULL, team_id, role, min);
}

enum imx_role imx_auth_role(struct imx_req *r, int64_t team_id)
{
    enum imx_role role;
    return role_in(r, team_id, &role, false) == 0 ? role : IMX_ROLE_NONE;
}

int imx_audit(struct imx_req *r, const char *action, const char *resource, const char *resource_id,
              const json_t *detail)
{
    struct imx_db_fault why = { 0 };
    char uid[24], tid[24];
    const struct imx_principal *p = &r->principal;
    snprintf(uid, sizeof uid, "%lld", (long long)p->user_id);
    snprintf(tid, sizeof tid, "%lld", (long long)p->token_id);
    char *text = detail ? json_dumps(detail, JSON_COMPACT) : NULL;
    enum imx_db_status st = imx_db_audit_insert(
        imx_api_conn(r), p->authenticated ? uid : NULL, p->token_id ? tid : NULL, action, resource,
        resource_id, r->request_id, text ? text : "{}", &why);
    free(text);
    return st == IMX_DBS_OK ? 0 : imx_api_tx_fail(r, st, &why);
}

int imx_auth_confirm_now(struct imx_req *r)
{
    if (!r->principal.cached)
        return 1;
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return -1;
    long long epoch;
    if (imx_db_auth_epoch(c, &epoch) != IMX_DBS_OK) {
        imx_api_db_error(r, NULL);
        return -1;
    }
    return imx_auth_confirm(r, epoch) < 0 ? -1 : 1;
}
