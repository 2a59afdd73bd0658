/* Sessions that last, over HTTP against the real server: the web session cookie's flags, the
 * CSRF rule for writes, sign-out, revocation by the user and by an admin, the idle and absolute
 * lifetimes, the CLI's rotating refresh tokens, bearer tokens untouched, and password sign-in
 * switched off. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], alice[4096];

#define ALICE    "alice@s.test"
#define ALICE_PW "pw-" ALICE

static int setup(void **state)
{
    (void)state;
    const char *env[] = { "IMAXE_LOG_LEVEL=debug", NULL };
    if (imx_t_server_up(&srv, "sessions", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    return imx_t_user(&srv, admin, "team-s", ALICE, "admin", alice, sizeof alice);
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

/* The Set-Cookie line of cookie name in res into buf; NULL when there is none. */
static const char *set_cookie(const struct imx_res *res, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name);
    for (const char *line = res->headers; line && *line;) {
        const char *end = strstr(line, "\r\n");
        size_t ll = end ? (size_t)(end - line) : strlen(line);
        if (ll > 11 && strncasecmp(line, "Set-Cookie:", 11) == 0) {
            const char *v = line + 11;
            while (*v == ' ')
                v++;
            if (strncmp(v, name, nl) == 0 && v[nl] == '=') {
                snprintf(buf, len, "%.*s", (int)(ll - (size_t)(v - line)), v);
                return buf;
            }
        }
        line = end ? end + 2 : NULL;
    }
    return NULL;
}

/* The value of a Set-Cookie line ("name=value; ...") into out. */
static void cookie_value(const char *line, char *out, size_t len)
{
    const char *v = strchr(line, '=') + 1;
    size_t n = strcspn(v, ";");
    snprintf(out, len, "%.*s", (int)n, v);
}

struct web {
    char session[128], csrf[128];
    long long id;
};

/* Signs in through POST /v1/auth/session with extra request headers (NULL-ended, may be NULL);
 * fills w and the two Set-Cookie lines. */
static void web_signin(const char *email, const char *password, const char *const *extra,
                       struct web *w, char *session_line, char *csrf_line, size_t len)
{
    const char *headers[8] = { "Content-Type: application/json" };
    for (int i = 0; extra && extra[i] && i < 6; i++)
        headers[i + 1] = extra[i];
    char body[512];
    snprintf(body, sizeof body, "{\"email\":\"%s\",\"password\":\"%s\"}", email, password);
    struct imx_res res;
    assert_int_equal(imx_t_http(&srv, "POST", "/v1/auth/session", headers, body, &res), 0);
    if (res.status != 200)
        fprintf(stderr, "session: %ld %s\n", res.status, res.body);
    assert_int_equal(res.status, 200);
    assert_non_null(set_cookie(&res, "imaxe_session", session_line, len));
    assert_non_null(set_cookie(&res, "imaxe_csrf", csrf_line, len));
    cookie_value(session_line, w->session, sizeof w->session);
    cookie_value(csrf_line, w->csrf, sizeof w->csrf);
    assert_string_equal(json_string_value(json_object_get(res.json, "csrf_token")), w->csrf);
    /* The response never names the session secret itself. */
    assert_null(strstr(res.body, w->session));
    imx_t_res_free(&res);
}

/* One request with the web session's cookie and, when csrf is not NULL, X-CSRF-Token. */
static long web_call(const struct web *w, const char *csrf, const char *method, const char *path,
                     const char *body, struct imx_res *res)
{
    char cookie[512], token[256];
    snprintf(cookie, sizeof cookie, "Cookie: theme=dark; imaxe_session=%s; imaxe_csrf=%s",
             w->session, w->csrf);
    snprintf(token, sizeof token, "X-CSRF-Token: %s", csrf ? csrf : "");
    const char *headers[] = { cookie, "Content-Type: application/json", csrf ? token : NULL, NULL };
    assert_int_equal(imx_t_http(&srv, method, path, headers, body, res), 0);
    return res->status;
}

static long web_status(const struct web *w, const char *csrf, const char *method, const char *path,
                       const char *body)
{
    struct imx_res res;
    long st = web_call(w, csrf, method, path, body, &res);
    imx_t_res_free(&res);
    return st;
}

/* The id of the current session, from GET /v1/sessions. */
static long long current_id(const struct web *w)
{
    struct imx_res res;
    assert_int_equal(web_call(w, NULL, "GET", "/v1/sessions", NULL, &res), 200);
    long long id = 0;
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(res.json, "items"), i, it)
    {
        if (json_is_true(json_object_get(it, "current")))
            id = json_integer_value(json_object_get(it, "id"));
    }
    imx_t_res_free(&res);
    assert_true(id > 0);
    return id;
}

static long long token_count(void)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, alice, "GET", "/v1/tokens", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    long long n = (long long)json_array_size(json_object_get(res.json, "items"));
    imx_t_res_free(&res);
    return n;
}

static void cookie_flags(void **state)
{
    (void)state;
    struct web w;
    char s[512], c[512];
    /* On a loopback host without TLS: no Secure (a browser would drop the cookie). */
    web_signin(ALICE, ALICE_PW, NULL, &w, s, c, sizeof s);
    assert_non_null(strstr(s, "; HttpOnly"));
    assert_non_null(strstr(s, "; SameSite=Lax"));
    assert_non_null(strstr(s, "; Path=/"));
    assert_null(strstr(s, "Secure"));
    assert_non_null(strstr(c, "; SameSite=Lax"));
    assert_null(strstr(c, "HttpOnly")); /* the page reads it to send X-CSRF-Token */
    assert_true(strlen(w.session) >= 43);

    /* Behind a TLS proxy, and on any host that is not loopback: Secure. */
    const char *proxied[] = { "X-Forwarded-Proto: https", NULL };
    web_signin(ALICE, ALICE_PW, proxied, &w, s, c, sizeof s);
    assert_non_null(strstr(s, "; Secure"));
    assert_non_null(strstr(c, "; Secure"));
    const char *named[] = { "Host: imaxe.example.com", NULL };
    web_signin(ALICE, ALICE_PW, named, &w, s, c, sizeof s);
    assert_non_null(strstr(s, "; Secure"));

    /* A wrong password sets no cookie. */
    struct imx_res res;
    const char *headers[] = { "Content-Type: application/json", NULL };
    assert_int_equal(imx_t_http(&srv, "POST", "/v1/auth/session", headers,
                                "{\"email\":\"" ALICE "\",\"password\":\"nope-nope-nope\"}", &res),
                     0);
    imx_t_assert_problem(&res, 401);
    assert_null(set_cookie(&res, "imaxe_session", s, sizeof s));
    imx_t_res_free(&res);
}

static void cookie_reads_and_csrf_writes(void **state)
{
    (void)state;
    struct web w;
    char s[512], c[512];
    web_signin(ALICE, ALICE_PW, NULL, &w, s, c, sizeof s);
    struct imx_res res;
    assert_int_equal(web_call(&w, NULL, "GET", "/v1/me", NULL, &res), 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "email")), ALICE);
    imx_t_res_free(&res);

    const char *tok = "{\"name\":\"from-web\",\"team\":\"team-s\",\"role\":\"viewer\"}";
    long long before = token_count();
    /* A write without the CSRF token, with another value, or with the cookie's value of another
     * session is refused and changes nothing. */
    assert_int_equal(web_call(&w, NULL, "POST", "/v1/tokens", tok, &res), 403);
    imx_t_assert_problem(&res, 403);
    assert_non_null(strstr(res.body, "X-CSRF-Token"));
    imx_t_res_free(&res);
    assert_int_equal(web_status(&w, "forged-token-value", "POST", "/v1/tokens", tok), 403);
    struct web other;
    web_signin(ALICE, ALICE_PW, NULL, &other, s, c, sizeof s);
    assert_int_equal(web_status(&w, other.csrf, "POST", "/v1/tokens", tok), 403);
    assert_int_equal(web_status(&w, "", "DELETE", "/v1/auth/session", NULL), 403);
    assert_int_equal(token_count(), before);
    /* With it, the write goes through. */
    assert_int_equal(web_status(&w, w.csrf, "POST", "/v1/tokens", tok), 201);
    assert_int_equal(token_count(), before + 1);
    /* A bearer token needs no CSRF token: a page on another site cannot set Authorization. */
    assert_int_equal(imx_t_http_as(&srv, alice, "POST", "/v1/tokens",
                                   "{\"name\":\"script\",\"team\":\"team-s\",\"role\":\"viewer\"}",
                                   &res),
                     0);
    assert_int_equal(res.status, 201);
    imx_t_res_free(&res);
    /* A cookie that names no session is 401, and the answer clears the cookies. */
    struct web bad = w;
    snprintf(bad.session, sizeof bad.session, "not-a-session");
    assert_int_equal(web_call(&bad, NULL, "GET", "/v1/me", NULL, &res), 401);
    imx_t_assert_problem(&res, 401);
    assert_non_null(set_cookie(&res, "imaxe_session", s, sizeof s));
    assert_non_null(strstr(s, "Max-Age=0"));
    imx_t_res_free(&res);
}

static void sign_out_and_revoke(void **state)
{
    (void)state;
    struct web a, b, c2;
    char s[512], c[512];
    web_signin(ALICE, ALICE_PW, NULL, &a, s, c, sizeof s);
    web_signin(ALICE, ALICE_PW, NULL, &b, s, c, sizeof s);
    web_signin(ALICE, ALICE_PW, NULL, &c2, s, c, sizeof s);
    long long a_id = current_id(&a), b_id = current_id(&b), c_id = current_id(&c2);

    /* Sign-out ends this session only, and clears its cookies. */
    struct imx_res res;
    assert_int_equal(web_call(&a, a.csrf, "DELETE", "/v1/auth/session", NULL, &res), 204);
    assert_non_null(set_cookie(&res, "imaxe_session", s, sizeof s));
    assert_non_null(strstr(s, "Max-Age=0"));
    imx_t_res_free(&res);
    assert_int_equal(web_status(&a, NULL, "GET", "/v1/me", NULL), 401);
    assert_int_equal(web_status(&b, NULL, "GET", "/v1/me", NULL), 200);

    /* The user revokes another of their sessions from this one. */
    char path[64];
    snprintf(path, sizeof path, "/v1/sessions/%lld", b_id);
    assert_int_equal(web_status(&c2, c2.csrf, "DELETE", path, NULL), 204);
    assert_int_equal(web_status(&b, NULL, "GET", "/v1/me", NULL), 401);
    assert_int_equal(web_status(&c2, c2.csrf, "DELETE", path, NULL), 404);
    /* A bearer token from an API sign-out has no session to sign out of. */
    assert_int_equal(imx_t_http_as(&srv, alice, "DELETE", "/v1/auth/session", NULL, &res), 0);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);

    /* A global admin revokes every session of a user; the user cannot. */
    assert_int_equal(imx_t_http_as(&srv, alice, "GET", "/v1/me", NULL, &res), 0);
    long long alice_id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/users/%lld/sessions", alice_id);
    assert_int_equal(web_status(&c2, c2.csrf, "DELETE", path, NULL), 403);
    /* The admin sees them first (the user cannot list another's; a missing user is 404): the
     * live one of the three, not the signed-out or the revoked one. */
    assert_int_equal(web_status(&c2, NULL, "GET", path, NULL), 403);
    assert_int_equal(imx_t_http_as(&srv, admin, "GET", path, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    json_t *items = json_object_get(res.json, "items");
    size_t i, listed = 0;
    json_t *it;
    json_array_foreach(items, i, it)
    {
        long long id = json_integer_value(json_object_get(it, "id"));
        assert_true(id != a_id && id != b_id);
        assert_true(json_is_false(json_object_get(it, "current")));
        listed += id == c_id;
    }
    assert_int_equal(listed, 1);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&srv, admin, "GET", "/v1/users/999999/sessions", NULL, &res), 0);
    imx_t_assert_problem(&res, 404);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&srv, admin, "DELETE", path, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_true(json_integer_value(json_object_get(res.json, "revoked")) >= 1);
    imx_t_res_free(&res);
    assert_int_equal(web_status(&c2, NULL, "GET", "/v1/me", NULL), 401);
    assert_int_equal(imx_t_http_as(&srv, admin, "GET", "/v1/audit?resource=session", NULL, &res),
                     0);
    assert_int_equal(res.status, 200);
    assert_non_null(strstr(res.body, "revoke_all"));
    assert_non_null(strstr(res.body, "sign_out"));
    imx_t_res_free(&res);
}

static void idle_and_absolute_lifetimes(void **state)
{
    (void)state;
    struct web w;
    char s[512], c[512];
    web_signin(ALICE, ALICE_PW, NULL, &w, s, c, sizeof s);
    long long id = current_id(&w);
    char sql[256];
    /* Used 7 h 59 min ago (the idle limit is 8 h by default): still signed in, and the use is
     * recorded, so it lasts another 8 h. */
    snprintf(sql, sizeof sql,
             "UPDATE sessions SET last_seen_at = now() - interval '479 minutes' WHERE id = %lld",
             id);
    free(imx_t_sql(db, sql));
    assert_int_equal(web_status(&w, NULL, "GET", "/v1/me", NULL), 200);
    char *seen = imx_t_sql(db, "SELECT count(*) FROM sessions WHERE last_seen_at > now() - "
                               "interval '1 minute' AND id = (SELECT max(id) FROM sessions)");
    assert_string_equal(seen, "1");
    free(seen);
    /* Unused past the idle limit: ended. */
    snprintf(sql, sizeof sql,
             "UPDATE sessions SET last_seen_at = now() - interval '481 minutes' WHERE id = %lld",
             id);
    free(imx_t_sql(db, sql));
    assert_int_equal(web_status(&w, NULL, "GET", "/v1/me", NULL), 401);

    /* Past its absolute end, however recently used: ended. */
    web_signin(ALICE, ALICE_PW, NULL, &w, s, c, sizeof s);
    id = current_id(&w);
    snprintf(sql, sizeof sql,
             "UPDATE sessions SET created_at = now() - interval '8 days', expires_at = now() - "
             "interval '1 second', last_seen_at = now() WHERE id = %lld",
             id);
    free(imx_t_sql(db, sql));
    assert_int_equal(web_status(&w, NULL, "GET", "/v1/me", NULL), 401);
    /* The absolute lifetime is the cookie's Max-Age (7 days by default). */
    web_signin(ALICE, ALICE_PW, NULL, &w, s, c, sizeof s);
    assert_non_null(strstr(s, "Max-Age=604800") ? strstr(s, "Max-Age=604800")
                                                : strstr(s, "Max-Age=604799"));
}

static void cli_refresh_rotates(void **state)
{
    (void)state;
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/login",
                                   "{\"email\":\"" ALICE "\",\"password\":\"" ALICE_PW
                                   "\",\"refresh\":true}",
                                   &res),
                     0);
    assert_int_equal(res.status, 200);
    char r1[128];
    snprintf(r1, sizeof r1, "%s", json_string_value(json_object_get(res.json, "refresh_token")));
    assert_int_equal(strncmp(r1, "imxr_", 5), 0);
    imx_t_res_free(&res);
    /* Without "refresh", no refresh token (as before). */
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/login",
                                   "{\"email\":\"" ALICE "\",\"password\":\"" ALICE_PW "\"}", &res),
                     0);
    assert_null(json_object_get(res.json, "refresh_token"));
    imx_t_res_free(&res);

    char body[256], r2[128], access[4096];
    snprintf(body, sizeof body, "{\"refresh_token\":\"%s\"}", r1);
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/refresh", body, &res), 0);
    assert_int_equal(res.status, 200);
    snprintf(r2, sizeof r2, "%s", json_string_value(json_object_get(res.json, "refresh_token")));
    snprintf(access, sizeof access, "%s",
             json_string_value(json_object_get(res.json, "access_token")));
    assert_string_not_equal(r1, r2);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&srv, access, "GET", "/v1/me", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    /* The used token is spent. */
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/refresh", body, &res), 0);
    imx_t_assert_problem(&res, 401);
    imx_t_res_free(&res);
    /* A refresh token is no web session and no bearer credential. */
    assert_int_equal(imx_t_http_as(&srv, r2, "GET", "/v1/me", NULL, &res), 0);
    imx_t_assert_problem(&res, 401);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/refresh",
                                   "{\"refresh_token\":\"imxr_unknown\"}", &res),
                     0);
    imx_t_assert_problem(&res, 401);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/refresh", "{\"token\":1}", &res),
                     0);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
    /* Revoking every session of the user ends the CLI sign-in too. */
    snprintf(body, sizeof body, "{\"refresh_token\":\"%s\"}", r2);
    assert_int_equal(imx_t_http_as(&srv, alice, "GET", "/v1/me", NULL, &res), 0);
    long long alice_id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    char path[64];
    snprintf(path, sizeof path, "/v1/users/%lld/sessions", alice_id);
    assert_int_equal(imx_t_http_as(&srv, admin, "DELETE", path, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/refresh", body, &res), 0);
    imx_t_assert_problem(&res, 401);
    imx_t_res_free(&res);
}

static void local_passwords_off(void **state)
{
    (void)state;
    struct imx_srv sso;
    /* Off without single sign-on would let nobody in: the server refuses to start. */
    const char *alone[] = { "IMAXE_LOCAL_PASSWORDS=off", NULL };
    assert_int_not_equal(imx_t_server_start(&sso, db, alone), 0);
    assert_true(imx_t_log_contains(&sso, "IMAXE_OIDC_ISSUER"));
    /* The provider is read when a sign-in starts, so one that is not there yet is no matter. */
    const char *env[] = { "IMAXE_LOCAL_PASSWORDS=off", "IMAXE_OIDC_ISSUER=http://127.0.0.1:9",
                          "IMAXE_OIDC_CLIENT_ID=imaxe",
                          "IMAXE_OIDC_REDIRECT_URL=http://127.0.0.1/v1/auth/oidc/callback", NULL };
    assert_int_equal(imx_t_server_start(&sso, db, env), 0);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&sso, NULL, "POST", "/v1/auth/session",
                                   "{\"email\":\"" ALICE "\",\"password\":\"" ALICE_PW "\"}", &res),
                     0);
    imx_t_assert_problem(&res, 403);
    assert_non_null(strstr(res.body, "IMAXE_LOCAL_PASSWORDS"));
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&sso, NULL, "POST", "/v1/auth/login",
                                   "{\"email\":\"" ALICE "\",\"password\":\"" ALICE_PW "\"}", &res),
                     0);
    imx_t_assert_problem(&res, 403);
    imx_t_res_free(&res);
    /* Tokens already issued keep working. */
    assert_int_equal(imx_t_http_as(&sso, alice, "GET", "/v1/me", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_server_stop(&sso, SIGTERM, 15), 0);
    /* A bad value stops the server at start-up with a message. */
    const char *bad[] = { "IMAXE_COOKIE_SECURE=maybe", NULL };
    assert_int_not_equal(imx_t_server_start(&sso, db, bad), 0);
    assert_true(imx_t_log_contains(&sso, "IMAXE_COOKIE_SECURE"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cookie_flags),        cmocka_unit_test(cookie_reads_and_csrf_writes),
        cmocka_unit_test(sign_out_and_revoke), cmocka_unit_test(idle_and_absolute_lifetimes),
        cmocka_unit_test(cli_refresh_rotates), cmocka_unit_test(local_passwords_off),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
