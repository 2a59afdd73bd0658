/* Idempotency-Key on the POSTs that create something (server/api/idempotency.c): a retry replays
 * the first reply and creates nothing more, another request under the key is 422, a key in
 * flight is 409, a refused request keeps no key, keys are per principal and expire after
 * IMAXE_IDEMPOTENCY_TTL_H hours. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], member[4096], other[4096], pub[4096];
static long long image_id, request_id;

static int setup(void **state)
{
    (void)state;
    static const char *const env[] = { "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9",
                                       "IMAXE_IDEMPOTENCY_TTL_H=48", NULL };
    if (imx_t_server_up(&srv, "idempotency", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "ml", "m@ml.test", "admin", member, sizeof member) != 0 ||
        imx_t_user(&srv, admin, "ml", "o@ml.test", "member", other, sizeof other) != 0 ||
        imx_t_user(&srv, admin, "ml", "p@ml.test", "publisher", pub, sizeof pub) != 0)
        return -1;
    image_id = imx_t_publish(&srv, pub, "ml", "idem-base", "1",
                             "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"},"
                             "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]",
                             NULL);
    return image_id > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

static long long sql_ll(const char *q)
{
    char *v = imx_t_sql(db, q);
    assert_non_null(v);
    long long n = atoll(v);
    free(v);
    return n;
}

/* POST path with body as token, with Idempotency-Key key (none when NULL). */
static void post(const char *token, const char *path, const char *key, const char *body,
                 struct imx_res *res)
{
    char auth[8192], idem[512];
    const char *h[4] = { auth, "Content-Type: application/json", NULL, NULL };
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    if (key) {
        snprintf(idem, sizeof idem, "Idempotency-Key: %s", key);
        h[2] = idem;
    }
    assert_int_equal(imx_t_http(&srv, "POST", path, h, body, res), 0);
}

struct creation {
    const char *what;
    const char *token;
    const char *path;
    char body[512], changed[512]; /* the request, and another under the same key */
    const char *count;            /* SQL: how many of them exist */
};

/* Sends c twice under key (the second a replay: same status, body and Location, nothing more
 * created), then a changed body under the key (422, nothing created). */
static void retried(const struct creation *c, const char *key)
{
    long long before = sql_ll(c->count);
    struct imx_res res;
    post(c->token, c->path, key, c->body, &res);
    if (res.status >= 300)
        fprintf(stderr, "%s: %ld %s\n", c->what, res.status, res.body);
    assert_true(res.status == 201 || res.status == 200 || res.status == 202);
    long status = res.status;
    char *first = strdup(res.body);
    char loc1[512] = "", loc2[512] = "", replayed[16];
    imx_t_header(&res, "Location", loc1, sizeof loc1);
    assert_null(imx_t_header(&res, "Idempotent-Replayed", replayed, sizeof replayed));
    imx_t_res_free(&res);
    assert_int_equal(sql_ll(c->count), before + 1);

    post(c->token, c->path, key, c->body, &res);
    printf("%-12s retried: %ld, Idempotent-Replayed %s\n", c->what, res.status,
           imx_t_header(&res, "Idempotent-Replayed", replayed, sizeof replayed) ? replayed : "-");
    assert_int_equal(res.status, status);
    assert_string_equal(res.body, first);
    assert_non_null(imx_t_header(&res, "Idempotent-Replayed", replayed, sizeof replayed));
    assert_string_equal(replayed, "true");
    imx_t_header(&res, "Location", loc2, sizeof loc2);
    assert_string_equal(loc1, loc2);
    imx_t_res_free(&res);
    free(first);
    assert_int_equal(sql_ll(c->count), before + 1);

    post(c->token, c->path, key, c->changed, &res);
    imx_t_assert_problem(&res, 422);
    imx_t_res_free(&res);
    assert_int_equal(sql_ll(c->count), before + 1);
}

static void a_retry_replays_the_first_reply_and_creates_nothing_more(void **state)
{
    (void)state;
    struct imx_res res;
    post(member, "/v1/requests", NULL,
         "{\"team\":\"ml\",\"title\":\"base\",\"os\":\"ubuntu:24.04\"}", &res);
    assert_int_equal(res.status, 201);
    request_id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    assert_true(request_id > 0);

    struct creation cs[] = {
        { "team", admin, "/v1/teams", "{\"slug\":\"idem-t\",\"name\":\"T\"}",
          "{\"slug\":\"idem-u\",\"name\":\"U\"}", "SELECT count(*) FROM teams" },
        { "token", member, "/v1/tokens", "{\"name\":\"ci\",\"team\":\"ml\",\"role\":\"viewer\"}",
          "{\"name\":\"ci2\",\"team\":\"ml\",\"role\":\"viewer\"}",
          "SELECT count(*) FROM api_tokens" },
        { "request", member, "/v1/requests",
          "{\"team\":\"ml\",\"title\":\"t\",\"os\":\"ubuntu:24.04\"}",
          "{\"team\":\"ml\",\"title\":\"t2\",\"os\":\"ubuntu:24.04\"}",
          "SELECT count(*) FROM image_requests" },
        { "comment", member, NULL, "{\"body\":\"hello\"}", "{\"body\":\"hello!\"}",
          "SELECT count(*) FROM request_comments" },
        { "measurement", member, "/v1/measurements", "", "", "SELECT count(*) FROM measurements" },
        { "pin", member, "/v1/pins", "", "", "SELECT count(*) FROM pins" },
        { "webhook", member, "/v1/webhooks",
          "{\"team\":\"ml\",\"url\":\"http://127.0.0.1:9/a\",\"events\":[\"ping\"]}",
          "{\"team\":\"ml\",\"url\":\"http://127.0.0.1:9/b\",\"events\":[\"ping\"]}",
          "SELECT count(*) FROM webhooks" },
    };
    char comments[64];
    snprintf(comments, sizeof comments, "/v1/requests/%lld/comments", request_id);
    cs[3].path = comments;
    static const char M[] = "{\"team\":\"ml\",\"image\":%lld,\"instance_type\":\"g6.xlarge\","
                            "\"gpu_count\":1,\"model\":\"resnet50\",\"precision\":\"fp16\","
                            "\"batch_size\":%d,\"throughput_per_s\":1850,\"pricing\":\"on_demand\","
                            "\"measured_at\":\"2026-11-20T10:00:00Z\"}";
    snprintf(cs[4].body, sizeof cs[4].body, M, image_id, 32);
    snprintf(cs[4].changed, sizeof cs[4].changed, M, image_id, 64);
    snprintf(cs[5].body, sizeof cs[5].body, "{\"team\":\"ml\",\"name\":\"prod\",\"image\":%lld}",
             image_id);
    snprintf(cs[5].changed, sizeof cs[5].changed,
             "{\"team\":\"ml\",\"name\":\"prod2\",\"image\":%lld}", image_id);
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        char key[64];
        snprintf(key, sizeof key, "retry-%s", cs[i].what);
        retried(&cs[i], key);
    }
    /* Every stored key is one row beside its creation. */
    assert_int_equal(sql_ll("SELECT count(*) FROM idempotent_requests WHERE key LIKE 'retry-%'"),
                     (long long)(sizeof cs / sizeof cs[0]));
}

/* A creating reply can carry a secret shown once (an API token, a webhook's signing secret): the
 * stored reply holds it sealed, never readable in the database, and the replay still gives it. A
 * stored body changed in the database does not open (409, nothing created). */
static void stored_replies_keep_secrets_sealed(void **state)
{
    (void)state;
    static const struct {
        const char *path, *body, *field, *key;
    } cs[] = {
        { "/v1/tokens", "{\"name\":\"sealed\",\"team\":\"ml\",\"role\":\"viewer\"}", "token",
          "sealed-token" },
        { "/v1/webhooks",
          "{\"team\":\"ml\",\"url\":\"http://127.0.0.1:9/sealed\",\"events\":[\"ping\"]}", "secret",
          "sealed-webhook" },
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        struct imx_res res;
        post(member, cs[i].path, cs[i].key, cs[i].body, &res);
        assert_int_equal(res.status, 201);
        const char *secret = json_string_value(json_object_get(res.json, cs[i].field));
        assert_non_null(secret);
        assert_true(strlen(secret) > 16);
        char *want = strdup(secret);
        imx_t_res_free(&res);
        char q[512];
        snprintf(q, sizeof q,
                 "SELECT count(*) FROM idempotent_requests WHERE key = '%s' AND body LIKE 'v1.%%'"
                 " AND strpos(body, '%s') = 0 AND strpos(headers::text, '%s') = 0",
                 cs[i].key, want, want);
        assert_int_equal(sql_ll(q), 1);
        post(member, cs[i].path, cs[i].key, cs[i].body, &res);
        assert_int_equal(res.status, 201);
        assert_string_equal(json_string_value(json_object_get(res.json, cs[i].field)), want);
        imx_t_res_free(&res);
        free(want);
    }
    /* One character of the sealed token reply changed: it no longer opens. */
    long long tokens = sql_ll("SELECT count(*) FROM api_tokens");
    free(imx_t_sql(db, "UPDATE idempotent_requests SET body = left(body, 10) ||"
                       " CASE substr(body, 11, 1) WHEN 'A' THEN 'B' ELSE 'A' END ||"
                       " substr(body, 12) WHERE key = 'sealed-token' RETURNING 1"));
    struct imx_res res;
    post(member, cs[0].path, cs[0].key, cs[0].body, &res);
    imx_t_assert_problem(&res, 409);
    imx_t_res_free(&res);
    assert_int_equal(sql_ll("SELECT count(*) FROM api_tokens"), tokens);
}

static void the_same_key_elsewhere_is_another_request(void **state)
{
    (void)state;
    static const char body[] = "{\"team\":\"ml\",\"title\":\"mine\",\"os\":\"ubuntu:24.04\"}";
    long long before = sql_ll("SELECT count(*) FROM image_requests");
    struct imx_res res;
    post(member, "/v1/requests", "shared-key", body, &res);
    assert_int_equal(res.status, 201);
    imx_t_res_free(&res);
    /* Another principal, the same key and request: its own creation. */
    post(other, "/v1/requests", "shared-key", body, &res);
    assert_int_equal(res.status, 201);
    imx_t_res_free(&res);
    assert_int_equal(sql_ll("SELECT count(*) FROM image_requests"), before + 2);
    /* The same principal and key on another path: a different request, 422. */
    post(member, "/v1/tokens", "shared-key", "{\"name\":\"x\",\"team\":\"ml\",\"role\":\"viewer\"}",
         &res);
    imx_t_assert_problem(&res, 422);
    imx_t_res_free(&res);
}

static void a_key_in_flight_is_409(void **state)
{
    (void)state;
    /* Hold the key's lock as a request in flight would. */
    PGconn *pg = PQconnectdb(db);
    assert_int_equal(PQstatus(pg), CONNECTION_OK);
    PGresult *lk = PQexec(pg, "SELECT pg_advisory_lock(hashtextextended('imx-idem:' || id || ':0:"
                              "busy-key', 0)) FROM users WHERE email = 'm@ml.test'");
    assert_int_equal(PQresultStatus(lk), PGRES_TUPLES_OK);
    assert_int_equal(PQntuples(lk), 1);
    PQclear(lk);
    static const char body[] = "{\"team\":\"ml\",\"title\":\"busy\",\"os\":\"ubuntu:24.04\"}";
    long long before = sql_ll("SELECT count(*) FROM image_requests");
    struct imx_res res;
    post(member, "/v1/requests", "busy-key", body, &res);
    imx_t_assert_problem(&res, 409);
    char retry[16];
    assert_non_null(imx_t_header(&res, "Retry-After", retry, sizeof retry));
    imx_t_res_free(&res);
    assert_int_equal(sql_ll("SELECT count(*) FROM image_requests"), before);
    PQclear(PQexec(pg, "SELECT pg_advisory_unlock_all()"));
    PQfinish(pg);
    post(member, "/v1/requests", "busy-key", body, &res);
    assert_int_equal(res.status, 201);
    imx_t_res_free(&res);
    assert_int_equal(sql_ll("SELECT count(*) FROM image_requests"), before + 1);
}

static void a_refused_request_keeps_no_key(void **state)
{
    (void)state;
    struct imx_res res;
    post(member, "/v1/requests", "fix-me", "{\"team\":\"ml\",\"title\":\"t\",\"os\":\"a:b:c\"}",
         &res);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
    assert_int_equal(sql_ll("SELECT count(*) FROM idempotent_requests WHERE key = 'fix-me'"), 0);
    /* The corrected request under the same key is done, not refused as a different one. */
    post(member, "/v1/requests", "fix-me",
         "{\"team\":\"ml\",\"title\":\"t\",\"os\":\"ubuntu:24.04\"}", &res);
    assert_int_equal(res.status, 201);
    imx_t_res_free(&res);
    assert_int_equal(sql_ll("SELECT count(*) FROM idempotent_requests WHERE key = 'fix-me'"), 1);
    /* A key that is no key. */
    char key[300];
    memset(key, 'k', 256);
    key[256] = '\0';
    post(member, "/v1/requests", key, "{\"team\":\"ml\",\"title\":\"t\",\"os\":\"ubuntu:24.04\"}",
         &res);
    imx_t_assert_problem(&res, 400);
    assert_non_null(strstr(res.body, "Idempotency-Key"));
    imx_t_res_free(&res);
}

static void keys_expire_after_the_ttl(void **state)
{
    (void)state;
    static const char body[] = "{\"team\":\"ml\",\"title\":\"old\",\"os\":\"ubuntu:24.04\"}";
    struct imx_res res;
    post(member, "/v1/requests", "old-key", body, &res);
    assert_int_equal(res.status, 201);
    long long first = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    /* 25 hours old: still within IMAXE_IDEMPOTENCY_TTL_H=48, replayed. */
    free(imx_t_sql(db, "UPDATE idempotent_requests SET created_at = now() - interval '25 hours'"
                       " WHERE key = 'old-key'"));
    post(member, "/v1/requests", "old-key", body, &res);
    assert_int_equal(res.status, 201);
    assert_int_equal(json_integer_value(json_object_get(res.json, "id")), first);
    imx_t_res_free(&res);
    /* 49 hours old: expired, the same request is done again. */
    free(imx_t_sql(db, "UPDATE idempotent_requests SET created_at = now() - interval '49 hours'"
                       " WHERE key = 'old-key'"));
    post(member, "/v1/requests", "old-key", body, &res);
    assert_int_equal(res.status, 201);
    long long second = json_integer_value(json_object_get(res.json, "id"));
    char replayed[16];
    assert_null(imx_t_header(&res, "Idempotent-Replayed", replayed, sizeof replayed));
    imx_t_res_free(&res);
    assert_true(second > first);
    assert_int_equal(sql_ll("SELECT count(*) FROM idempotent_requests WHERE key = 'old-key'"
                            " AND created_at > now() - interval '1 hour'"),
                     1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_retry_replays_the_first_reply_and_creates_nothing_more),
        cmocka_unit_test(stored_replies_keep_secrets_sealed),
        cmocka_unit_test(the_same_key_elsewhere_is_another_request),
        cmocka_unit_test(a_key_in_flight_is_409),
        cmocka_unit_test(a_refused_request_keeps_no_key),
        cmocka_unit_test(keys_expire_after_the_ttl),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
