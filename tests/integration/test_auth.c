/* Teams, users, roles and tokens against the real server: sign-in, throttling, the cross-team
 * matrix, forged and stale tokens, key rotation, strict bodies, the audit log, and no secret in
 * any response or log line. */
#include "harness.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/base64.h"

static struct imx_srv srv;
static char db[1024];
static char admin[4096], alice[4096], bob[4096], vic[4096];
static char bob_api[128];
static long long bob_api_id;

#define ALICE "alice@a.test"
#define BOB   "bob@b.test"
#define VIC   "vic@a.test"

static int setup(void **state)
{
    (void)state;
    const char *env[] = { "IMAXE_LOGIN_MAX_FAILURES=3", "IMAXE_LOGIN_IP_MAX_FAILURES=1000",
                          "IMAXE_LOG_LEVEL=debug", NULL };
    if (imx_t_server_up(&srv, "auth", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "team-a", ALICE, "admin", alice, sizeof alice) != 0 ||
        imx_t_user(&srv, admin, "team-b", BOB, "admin", bob, sizeof bob) != 0 ||
        imx_t_user(&srv, admin, "team-a", VIC, "viewer", vic, sizeof vic) != 0)
        return -1;
    struct imx_res res;
    if (imx_t_http_as(&srv, bob, "POST", "/v1/tokens",
                      "{\"name\":\"ci\",\"team\":\"team-b\",\"role\":\"member\"}", &res) != 0 ||
        res.status != 201) {
        fprintf(stderr, "token: %ld %s\n", res.status, res.body);
        imx_t_res_free(&res);
        return -1;
    }
    snprintf(bob_api, sizeof bob_api, "%s", json_string_value(json_object_get(res.json, "token")));
    bob_api_id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

static void expect(const char *token, const char *method, const char *path, const char *body,
                   long status)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, method, path, body, &res), 0);
    if (res.status != status)
        fprintf(stderr, "%s %s: expected %ld, got %ld: %s\n", method, path, status, res.status,
                res.body);
    assert_int_equal(res.status, status);
    imx_t_res_free(&res);
}

static void login_and_me(void **state)
{
    struct imx_res res;
    char v[256];
    (void)state;
    assert_int_equal(imx_t_http_as(&srv, admin, "GET", "/v1/me", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_true(json_is_true(json_object_get(res.json, "admin")));
    assert_null(json_object_get(res.json, "password_hash"));
    imx_t_res_free(&res);

    assert_int_equal(imx_t_http_as(&srv, alice, "GET", "/v1/me", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    json_t *team = json_array_get(json_object_get(res.json, "teams"), 0);
    assert_string_equal(json_string_value(json_object_get(team, "slug")), "team-a");
    assert_string_equal(json_string_value(json_object_get(team, "role")), "admin");
    imx_t_res_free(&res);

    assert_int_equal(imx_t_http_as(&srv, NULL, "GET", "/v1/me", NULL, &res), 0);
    imx_t_assert_problem(&res, 401);
    assert_string_equal(imx_t_header(&res, "WWW-Authenticate", v, sizeof v), "Bearer");
    imx_t_res_free(&res);

    assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/auth/login",
                                   "{\"email\":\"" IMX_T_ADMIN_EMAIL
                                   "\",\"password\":\"" IMX_T_ADMIN_PASSWORD "\"}",
                                   &res),
                     0);
    assert_int_equal(res.status, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "token_type")), "Bearer");
    assert_true(json_integer_value(json_object_get(res.json, "expires_in")) > 0);
    imx_t_res_free(&res);
}

static void wrong_credentials_look_the_same(void **state)
{
    struct imx_res a, b;
    (void)state;
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/login",
                                   "{\"email\":\"nobody@x.test\",\"password\":\"whatever-1\"}", &a),
                     0);
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/login",
                                   "{\"email\":\"" VIC "\",\"password\":\"whatever-1\"}", &b),
                     0);
    imx_t_assert_problem(&a, 401);
    imx_t_assert_problem(&b, 401);
    assert_string_equal(json_string_value(json_object_get(a.json, "detail")),
                        json_string_value(json_object_get(b.json, "detail")));
    assert_string_equal(json_string_value(json_object_get(a.json, "type")),
                        json_string_value(json_object_get(b.json, "type")));
    imx_t_res_free(&a);
    imx_t_res_free(&b);
}

/* Every team-owned resource of team B, as a user of team A. Later resources add rows. */
struct cross_case {
    const char *method, *path, *body;
    long as_admin_of_a, as_viewer_of_a; /* 403 when the route itself needs more than viewer */
};

static void cross_team_matrix(void **state)
{
    (void)state;
    char revoke[64];
    snprintf(revoke, sizeof revoke, "/v1/tokens/%lld", bob_api_id);
    const struct cross_case cases[] = {
        { "GET", "/v1/teams/team-b", NULL, 404, 404 },
        { "PUT", "/v1/teams/team-b/members/" BOB, "{\"role\":\"viewer\"}", 404, 403 },
        { "PUT", "/v1/teams/team-b/members/" ALICE, "{\"role\":\"admin\"}", 404, 403 },
        { "DELETE", "/v1/teams/team-b/members/" BOB, NULL, 404, 403 },
        { "DELETE", revoke, NULL, 404, 404 },
        { "POST", "/v1/tokens", "{\"name\":\"x\",\"team\":\"team-b\",\"role\":\"viewer\"}", 400,
          400 },
        { "GET", "/v1/audit", NULL, 403, 403 },
        { "GET", "/v1/audit?resource=membership", NULL, 403, 403 },
        { "POST", "/v1/teams", "{\"slug\":\"team-b\",\"name\":\"hijack\"}", 403, 403 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        expect(alice, cases[i].method, cases[i].path, cases[i].body, cases[i].as_admin_of_a);
        expect(vic, cases[i].method, cases[i].path, cases[i].body, cases[i].as_viewer_of_a);
    }

    /* Listing shows only their own team. */
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, alice, "GET", "/v1/teams", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 1);
    assert_null(strstr(res.body, "team-b"));
    imx_t_res_free(&res);

    /* B's rows are unchanged: bob is still admin, his token still works. */
    assert_int_equal(imx_t_http_as(&srv, bob, "GET", "/v1/teams/team-b", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    json_t *m = json_array_get(json_object_get(res.json, "members"), 0);
    assert_int_equal(json_array_size(json_object_get(res.json, "members")), 1);
    assert_string_equal(json_string_value(json_object_get(m, "email")), BOB);
    assert_string_equal(json_string_value(json_object_get(m, "role")), "admin");
    imx_t_res_free(&res);
    expect(bob_api, "GET", "/v1/teams/team-b", NULL, 200);
    /* B's API token reaches only team B. */
    expect(bob_api, "GET", "/v1/teams/team-a", NULL, 404);
}

static void b64(const void *in, size_t n, char *out, size_t len)
{
    imx_b64url_encode(in, n, out, len);
}

/* header.payload.signature; md NULL makes an empty signature (alg none). */
static void make_jwt(const char *header, const char *payload, const EVP_MD *md, const char *secret,
                     char *out, size_t len)
{
    char h[1024], p[2048], sig[256] = "";
    b64(header, strlen(header), h, sizeof h);
    b64(payload, strlen(payload), p, sizeof p);
    snprintf(out, len, "%s.%s", h, p);
    if (md) {
        unsigned char mac[EVP_MAX_MD_SIZE];
        unsigned int ml = 0;
        HMAC(md, secret, (int)strlen(secret), (const unsigned char *)out, strlen(out), mac, &ml);
        b64(mac, ml, sig, sizeof sig);
    }
    size_t used = strlen(out);
    snprintf(out + used, len - used, ".%s", sig);
}

/* The kid of the admin's real token. */
static void current_kid(char *kid, size_t len)
{
    unsigned char raw[512];
    const char *dot = strchr(admin, '.');
    long n = imx_b64url_decode(admin, (size_t)(dot - admin), raw, sizeof raw - 1);
    assert_true(n > 0);
    raw[n] = '\0';
    json_t *h = json_loads((const char *)raw, 0, NULL);
    snprintf(kid, len, "%s", json_string_value(json_object_get(h, "kid")));
    json_decref(h);
}

struct forged {
    const char *name;
    const char *alg; /* header alg */
    const EVP_MD *(*md)(void);
    const char *kid; /* NULL: the current one */
    const char *iss, *aud;
    long long iat, nbf, exp; /* relative to now */
    long status;
};

static void forged_and_stale_tokens_are_401(void **state)
{
    (void)state;
    char kid[64], hdr[256], pl[512], tok[4096];
    long long now = (long long)time(NULL);
    current_kid(kid, sizeof kid);
    const struct forged cases[] = {
        { "control: well formed", "HS256", EVP_sha256, NULL, "imaxe", "imaxe-api", 0, 0, 600, 200 },
        { "alg none", "none", NULL, NULL, "imaxe", "imaxe-api", 0, 0, 600, 401 },
        { "HS384", "HS384", EVP_sha384, NULL, "imaxe", "imaxe-api", 0, 0, 600, 401 },
        { "HS512", "HS512", EVP_sha512, NULL, "imaxe", "imaxe-api", 0, 0, 600, 401 },
        { "RS256 label", "RS256", EVP_sha256, NULL, "imaxe", "imaxe-api", 0, 0, 600, 401 },
        { "expired", "HS256", EVP_sha256, NULL, "imaxe", "imaxe-api", -7200, -7200, -3600, 401 },
        { "expired past leeway", "HS256", EVP_sha256, NULL, "imaxe", "imaxe-api", -600, -600, -61,
          401 },
        { "not yet valid", "HS256", EVP_sha256, NULL, "imaxe", "imaxe-api", 0, 3600, 7200, 401 },
        { "issued in the future", "HS256", EVP_sha256, NULL, "imaxe", "imaxe-api", 3600, 0, 7200,
          401 },
        { "wrong issuer", "HS256", EVP_sha256, NULL, "evil", "imaxe-api", 0, 0, 600, 401 },
        { "wrong audience", "HS256", EVP_sha256, NULL, "imaxe", "other", 0, 0, 600, 401 },
        { "unknown kid", "HS256", EVP_sha256, "0011223344556677", "imaxe", "imaxe-api", 0, 0, 600,
          401 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct forged *f = &cases[i];
        snprintf(hdr, sizeof hdr, "{\"alg\":\"%s\",\"typ\":\"JWT\",\"kid\":\"%s\"}", f->alg,
                 f->kid ? f->kid : kid);
        snprintf(pl, sizeof pl,
                 "{\"iss\":\"%s\",\"aud\":\"%s\",\"sub\":\"1\",\"iat\":%lld,\"nbf\":%lld,"
                 "\"exp\":%lld}",
                 f->iss, f->aud, now + f->iat, now + f->nbf, now + f->exp);
        make_jwt(hdr, pl, f->md ? f->md() : NULL, IMX_T_JWT_SECRET, tok, sizeof tok);
        fprintf(stderr, "case: %s\n", f->name);
        expect(tok, "GET", "/v1/me", NULL, f->status);
    }

    /* Tampered payload: the admin's token with sub changed, signature kept. */
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", alice);
    char *p1 = strchr(copy, '.'), *p2 = strchr(p1 + 1, '.');
    snprintf(pl, sizeof pl,
             "{\"iss\":\"imaxe\",\"aud\":\"imaxe-api\",\"sub\":\"1\",\"iat\":%lld,\"exp\":%lld}",
             now, now + 600);
    char enc[1024];
    b64(pl, strlen(pl), enc, sizeof enc);
    *p1 = '\0';
    char big[4096 + 1024 + 16];
    snprintf(big, sizeof big, "%s.%s%s", copy, enc, p2);
    expect(big, "GET", "/v1/me", NULL, 401);

    /* Tampered signature: its first character changed. */
    snprintf(tok, sizeof tok, "%s", alice);
    char *sig = strrchr(tok, '.') + 1;
    sig[0] = sig[0] == 'A' ? 'B' : 'A';
    expect(tok, "GET", "/v1/me", NULL, 401);
    expect("not.a.jwt", "GET", "/v1/me", NULL, 401);
    expect("imx_doesnotexist", "GET", "/v1/me", NULL, 401);
}

static void api_tokens_revoked_or_expired_are_401(void **state)
{
    struct imx_res res;
    char tok[128], path[64], sql[256];
    (void)state;
    for (int round = 0; round < 2; round++) {
        assert_int_equal(imx_t_http_as(&srv, alice, "POST", "/v1/tokens",
                                       "{\"name\":\"script\",\"team\":\"team-a\",\"role\":"
                                       "\"viewer\",\"expires_in_days\":7}",
                                       &res),
                         0);
        assert_int_equal(res.status, 201);
        snprintf(tok, sizeof tok, "%s", json_string_value(json_object_get(res.json, "token")));
        long long id = json_integer_value(json_object_get(res.json, "id"));
        assert_string_equal(json_string_value(json_object_get(res.json, "role")), "viewer");
        imx_t_res_free(&res);
        assert_int_equal(strncmp(tok, "imx_", 4), 0);
        expect(tok, "GET", "/v1/teams/team-a", NULL, 200);
        /* Capped at viewer: no admin action even though alice is admin. */
        expect(tok, "PUT", "/v1/teams/team-a/members/" VIC, "{\"role\":\"member\"}", 403);

        /* The list never shows a secret. */
        assert_int_equal(imx_t_http_as(&srv, alice, "GET", "/v1/tokens", NULL, &res), 0);
        assert_int_equal(res.status, 200);
        assert_null(strstr(res.body, tok));
        assert_null(strstr(res.body, "\"token\""));
        imx_t_res_free(&res);

        if (round == 0) {
            snprintf(path, sizeof path, "/v1/tokens/%lld", id);
            expect(alice, "DELETE", path, NULL, 204);
        } else {
            snprintf(sql, sizeof sql,
                     "UPDATE api_tokens SET created_at = now() - interval '2 days', "
                     "expires_at = now() - interval '1 second' WHERE id = %lld",
                     id);
            free(imx_t_sql(db, sql));
        }
        expect(tok, "GET", "/v1/me", NULL, 401);
    }
}

static void viewer_cannot_do_more(void **state)
{
    struct imx_res res;
    (void)state;
    expect(vic, "GET", "/v1/teams/team-a", NULL, 200);
    expect(vic, "PUT", "/v1/teams/team-a/members/" ALICE, "{\"role\":\"viewer\"}", 403);
    expect(vic, "DELETE", "/v1/teams/team-a/members/" ALICE, NULL, 403);
    expect(vic, "POST", "/v1/teams", "{\"slug\":\"team-v\",\"name\":\"V\"}", 403);
    expect(vic, "POST", "/v1/users", "{\"email\":\"x@y.z\",\"password\":\"12345678\"}", 403);
    assert_int_equal(imx_t_http_as(&srv, vic, "POST", "/v1/tokens",
                                   "{\"name\":\"t\",\"team\":\"team-a\",\"role\":\"publisher\"}",
                                   &res),
                     0);
    imx_t_assert_problem(&res, 400);
    json_t *e = json_array_get(json_object_get(res.json, "errors"), 0);
    assert_string_equal(json_string_value(json_object_get(e, "pointer")), "/role");
    imx_t_res_free(&res);
    expect(vic, "POST", "/v1/tokens", "{\"name\":\"t\",\"team\":\"team-a\",\"role\":\"viewer\"}",
           201);
}

/* A team admin adds a member and removes them again: they lose the team at once, and removing
 * them twice is 404. */
static void team_admin_removes_a_member(void **state)
{
    struct imx_res res;
    (void)state;
    expect(admin, "POST", "/v1/users", "{\"email\":\"carol@a.test\",\"password\":\"carol-pass-1\"}",
           201);
    expect(alice, "PUT", "/v1/teams/team-a/members/carol@a.test", "{\"role\":\"member\"}", 200);
    assert_int_equal(imx_t_http_as(&srv, alice, "GET", "/v1/teams/team-a", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_non_null(strstr(res.body, "carol@a.test"));
    imx_t_res_free(&res);
    expect(alice, "DELETE", "/v1/teams/team-a/members/carol@a.test", NULL, 204);
    assert_int_equal(imx_t_http_as(&srv, alice, "GET", "/v1/teams/team-a", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_null(strstr(res.body, "carol@a.test"));
    imx_t_res_free(&res);
    expect(alice, "DELETE", "/v1/teams/team-a/members/carol@a.test", NULL, 404);
}

static void unknown_and_forbidden_fields_are_400(void **state)
{
    struct imx_res res;
    (void)state;
    assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/teams",
                                   "{\"slug\":\"team-x\",\"name\":\"X\",\"id\":5,"
                                   "\"created_at\":\"2020-01-01\",\"a/b\":1}",
                                   &res),
                     0);
    imx_t_assert_problem(&res, 400);
    json_t *errors = json_object_get(res.json, "errors");
    assert_int_equal(json_array_size(errors), 3);
    assert_non_null(strstr(res.body, "\"pointer\":\"/id\""));
    assert_non_null(strstr(res.body, "\"pointer\":\"/created_at\""));
    assert_non_null(strstr(res.body, "\"pointer\":\"/a~1b\""));
    imx_t_res_free(&res);
    expect(admin, "GET", "/v1/teams/team-x", NULL, 404);

    assert_int_equal(imx_t_http_as(&srv, alice, "POST", "/v1/tokens",
                                   "{\"name\":\"t\",\"team\":\"team-a\",\"role\":\"viewer\","
                                   "\"created_by\":1,\"expires_in_days\":\"7\"}",
                                   &res),
                     0);
    imx_t_assert_problem(&res, 400);
    assert_non_null(strstr(res.body, "\"pointer\":\"/created_by\""));
    assert_non_null(strstr(res.body, "\"pointer\":\"/expires_in_days\""));
    imx_t_res_free(&res);
}

static void audit_log_is_filtered_and_paginated(void **state)
{
    struct imx_res res;
    char link[1024], path[1024];
    (void)state;
    assert_int_equal(
        imx_t_http_as(&srv, admin, "GET", "/v1/audit?resource=membership&limit=2", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    json_t *items = json_object_get(res.json, "items");
    assert_int_equal(json_array_size(items), 2);
    const char *cursor = json_string_value(json_object_get(res.json, "next_cursor"));
    assert_non_null(cursor);
    assert_non_null(imx_t_header(&res, "Link", link, sizeof link));
    assert_non_null(strstr(link, "/v1/audit?resource=membership&limit=2&cursor="));
    assert_non_null(strstr(link, "rel=\"next\""));
    long long first = json_integer_value(json_object_get(json_array_get(items, 1), "id"));
    assert_string_equal(json_string_value(json_object_get(json_array_get(items, 0), "resource")),
                        "membership");
    assert_non_null(json_object_get(json_array_get(items, 0), "request_id"));
    snprintf(path, sizeof path, "/v1/audit?resource=membership&limit=2&cursor=%s", cursor);
    char tampered[1024];
    snprintf(tampered, sizeof tampered, "%s", path);
    char *last = tampered + strlen(tampered) - 1;
    *last = *last == 'A' ? 'B' : 'A';
    imx_t_res_free(&res);

    assert_int_equal(imx_t_http_as(&srv, admin, "GET", path, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    long long next = json_integer_value(
        json_object_get(json_array_get(json_object_get(res.json, "items"), 0), "id"));
    assert_true(next < first);
    imx_t_res_free(&res);

    assert_int_equal(imx_t_http_as(&srv, admin, "GET", tampered, NULL, &res), 0);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
    expect(admin, "GET", "/v1/audit?since=not-a-time-at-all", NULL, 400);
    expect(admin, "GET", "/v1/audit?since=2000-01-01T00:00:00Z&action=create", NULL, 200);
}

static void login_is_throttled(void **state)
{
    struct imx_res res;
    char v[64], tok[4096];
    (void)state;
    assert_int_equal(imx_t_user(&srv, admin, "team-t", "tina@t.test", "viewer", tok, sizeof tok),
                     0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(imx_t_login(&srv, "tina@t.test", "wrong-password", tok, sizeof tok), 401);
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/login",
                                   "{\"email\":\"tina@t.test\",\"password\":\"pw-tina@t.test\"}",
                                   &res),
                     0);
    imx_t_assert_problem(&res, 429);
    assert_non_null(imx_t_header(&res, "Retry-After", v, sizeof v));
    assert_true(atol(v) > 0);
    imx_t_res_free(&res);
    /* Shared through PostgreSQL: the row is there for every replica. Every attempt is counted
     * before its password is checked, the refused fourth one too. */
    char *n = imx_t_sql(db, "SELECT failures FROM login_throttle WHERE key = 'email:tina@t.test'");
    assert_non_null(n);
    assert_string_equal(n, "4");
    free(n);
    free(imx_t_sql(db, "DELETE FROM login_throttle"));
    assert_int_equal(imx_t_login(&srv, "tina@t.test", "pw-tina@t.test", tok, sizeof tok), 200);
}

static void no_secret_in_log(void **state)
{
    (void)state;
    imx_t_sleep_ms(200);
    assert_false(imx_t_log_contains(&srv, IMX_T_ADMIN_PASSWORD));
    assert_false(imx_t_log_contains(&srv, "pw-" ALICE));
    assert_false(imx_t_log_contains(&srv, "$argon2id$"));
    assert_false(imx_t_log_contains(&srv, bob_api));
    assert_false(imx_t_log_contains(&srv, strrchr(admin, '.') + 1));
    assert_false(imx_t_log_contains(&srv, IMX_T_JWT_SECRET));
    char *h = imx_t_sql(db, "SELECT count(*) FROM users WHERE password_hash LIKE '$argon2id$%'");
    assert_non_null(h);
    assert_true(atoi(h) >= 4);
    free(h);
}

static void key_rotation_and_missing_secret(void **state)
{
    struct imx_srv s2;
    (void)state;
    const char *rotated[] = { "IMAXE_JWT_SECRET=a-brand-new-secret-of-more-than-32-bytes!",
                              "IMAXE_JWT_SECRET_PREVIOUS=" IMX_T_JWT_SECRET, NULL };
    assert_int_equal(imx_t_server_start(&s2, db, rotated), 0);
    struct imx_res res;
    char auth[4200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", alice);
    const char *h[] = { auth, NULL };
    assert_int_equal(imx_t_http(&s2, "GET", "/v1/me", h, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_server_stop(&s2, SIGTERM, 15), 0);

    /* Without the previous secret, the old kid is unknown. */
    const char *fresh[] = { "IMAXE_JWT_SECRET=a-brand-new-secret-of-more-than-32-bytes!", NULL };
    assert_int_equal(imx_t_server_start(&s2, db, fresh), 0);
    assert_int_equal(imx_t_http(&s2, "GET", "/v1/me", h, NULL, &res), 0);
    imx_t_assert_problem(&res, 401);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_server_stop(&s2, SIGTERM, 15), 0);

    const char *none[] = { "IMAXE_JWT_SECRET=", NULL };
    assert_int_equal(imx_t_server_spawn(&s2, db, none), 0);
    assert_int_equal(imx_t_server_wait(&s2, 20), 1);
    assert_true(imx_t_log_contains(&s2, "IMAXE_JWT_SECRET"));
    const char *shortk[] = { "IMAXE_JWT_SECRET=short", NULL };
    assert_int_equal(imx_t_server_spawn(&s2, db, shortk), 0);
    assert_int_equal(imx_t_server_wait(&s2, 20), 1);
    assert_true(imx_t_log_contains(&s2, "at least") || imx_t_log_contains(&s2, "32"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(login_and_me),
        cmocka_unit_test(wrong_credentials_look_the_same),
        cmocka_unit_test(cross_team_matrix),
        cmocka_unit_test(forged_and_stale_tokens_are_401),
        cmocka_unit_test(api_tokens_revoked_or_expired_are_401),
        cmocka_unit_test(viewer_cannot_do_more),
        cmocka_unit_test(team_admin_removes_a_member),
        cmocka_unit_test(unknown_and_forbidden_fields_are_400),
        cmocka_unit_test(audit_log_is_filtered_and_paginated),
        cmocka_unit_test(login_is_throttled),
        cmocka_unit_test(key_rotation_and_missing_secret),
        cmocka_unit_test(no_secret_in_log),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
