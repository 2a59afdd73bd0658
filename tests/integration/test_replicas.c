/* Several replicas, one database: two imaxe-server processes share one PostgreSQL; writes sent
 * to either are read back through the other, tokens issued by one are honoured by the other,
 * pagination cursors from one continue on the other, and the webhook events of API writes through
 * both are delivered exactly once each. (test_webhooks.c covers 1,000 enqueued events dispatched
 * by two servers; here the events come from publishes, ~200 to stay fast.) */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PUBLISHES 200

static struct imx_srv a, b;
static char admin_a[2048], admin_b[2048];
static struct imx_rcv rcv;

static int setup(void **state)
{
    (void)state;
    char db[1024];
    if (imx_t_receiver_init(&rcv, "replicas") != 0 || imx_t_receiver_start(&rcv) != 0)
        return -1;
    char allow[64];
    const char *env[IMX_T_RECEIVER_ENV_MAX];
    static const char *const extra[] = { "IMAXE_WEBHOOK_WORKERS=1", "IMAXE_ACCESS_LOG=0", NULL };
    imx_t_receiver_env(&rcv, extra, env, allow);
    if (imx_t_server_up(&a, "replicas", env, db, sizeof db, admin_a, sizeof admin_a) != 0 ||
        imx_t_server_start(&b, db, env) != 0 ||
        imx_t_login(&b, IMX_T_ADMIN_EMAIL, IMX_T_ADMIN_PASSWORD, admin_b, sizeof admin_b) != 200)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    imx_t_receiver_stop(&rcv);
    int ra = imx_t_server_stop(&a, SIGTERM, 20);
    int rb = imx_t_server_stop(&b, SIGTERM, 20);
    return ra == 0 && rb == 0 ? 0 : -1;
}

/* Does GET /v1/teams through srv list slug? */
static bool team_listed(const struct imx_srv *srv, const char *token, const char *slug)
{
    struct imx_res res;
    bool found = false;
    if (imx_t_http_as(srv, token, "GET", "/v1/teams", NULL, &res) != 0)
        return false;
    json_t *items = json_object_get(res.json, "items");
    if (!items)
        items = res.json;
    size_t i;
    json_t *t;
    json_array_foreach(items, i, t)
    {
        const char *s = json_string_value(json_object_get(t, "slug"));
        found |= s && strcmp(s, slug) == 0;
    }
    imx_t_res_free(&res);
    return found;
}

static void writes_to_either_are_read_through_the_other(void **state)
{
    (void)state;
    for (int i = 0; i < 20; i++) {
        const struct imx_srv *writer = i % 2 ? &b : &a;
        const struct imx_srv *reader = i % 2 ? &a : &b;
        const char *wtok = i % 2 ? admin_b : admin_a;
        const char *rtok = i % 2 ? admin_a : admin_b;
        char slug[32], body[128];
        struct imx_res res;
        snprintf(slug, sizeof slug, "replica-%02d", i);
        snprintf(body, sizeof body, "{\"slug\":\"%s\",\"name\":\"Replica team %d\"}", slug, i);
        assert_int_equal(imx_t_http_as(writer, wtok, "POST", "/v1/teams", body, &res), 0);
        assert_int_equal(res.status, 201);
        imx_t_res_free(&res);
        /* Visible through the other replica at once: nothing is cached in a process. */
        assert_true(team_listed(reader, rtok, slug));
    }
}

static void a_token_from_one_replica_works_on_the_other(void **state)
{
    (void)state;
    char member[2048];
    struct imx_res res;
    assert_int_equal(imx_t_user(&a, admin_a, "tokens-team", "member@replicas.test", "member",
                                member, sizeof member),
                     0);
    assert_int_equal(imx_t_http_as(&b, member, "GET", "/v1/me", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "email")),
                        "member@replicas.test");
    imx_t_res_free(&res);

    /* An API token made through B, revoked through A, is refused by B at once. */
    assert_int_equal(imx_t_http_as(&b, member, "POST", "/v1/tokens",
                                   "{\"name\":\"ci\",\"team\":\"tokens-team\",\"role\":\"viewer\","
                                   "\"expires_in_days\":1}",
                                   &res),
                     0);
    assert_int_equal(res.status, 201);
    char api_token[256], path[64];
    snprintf(api_token, sizeof api_token, "%s",
             json_string_value(json_object_get(res.json, "token")));
    snprintf(path, sizeof path, "/v1/tokens/%lld",
             (long long)json_integer_value(json_object_get(res.json, "id")));
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&a, api_token, "GET", "/v1/me", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&a, member, "DELETE", path, NULL, &res), 0);
    assert_true(res.status == 204 || res.status == 200);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&b, api_token, "GET", "/v1/me", NULL, &res), 0);
    assert_int_equal(res.status, 401);
    imx_t_res_free(&res);
}

static void a_cursor_from_one_replica_continues_on_the_other(void **state)
{
    (void)state;
    struct imx_res res;
    /* The audit log has at least the 20 team writes above: page it across replicas. */
    assert_int_equal(imx_t_http_as(&a, admin_a, "GET", "/v1/audit?limit=5", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    const char *cursor = json_string_value(json_object_get(res.json, "next_cursor"));
    assert_non_null(cursor);
    json_t *first = json_deep_copy(json_object_get(res.json, "items"));
    char path[1024];
    snprintf(path, sizeof path, "/v1/audit?limit=5&cursor=%s", cursor);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&b, admin_b, "GET", path, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    json_t *second = json_object_get(res.json, "items");
    assert_int_equal(json_array_size(second), 5);
    /* No overlap between the pages. */
    size_t i, j;
    json_t *x, *y;
    json_array_foreach(first, i, x)
    {
        assert_true(json_is_integer(json_object_get(x, "id")));
        json_array_foreach(second, j, y)
            assert_false(json_equal(json_object_get(x, "id"), json_object_get(y, "id")));
    }
    json_decref(first);
    imx_t_res_free(&res);
}

/* The receiver's log: how many requests, how many distinct webhook-ids, how many verified. */
static void receiver_counts(size_t *requests, size_t *distinct, size_t *verified)
{
    json_t *ids = json_object(), *log = imx_t_receiver_log(&rcv, NULL), *e;
    size_t i;
    *requests = json_array_size(log);
    *verified = 0;
    json_array_foreach(log, i, e)
    {
        *verified += json_is_true(json_array_get(json_object_get(e, "verified"), 0));
        json_object_set_new(ids, json_string_value(json_object_get(e, "id")), json_true());
    }
    json_decref(log);
    *distinct = json_object_size(ids);
    json_decref(ids);
}

static void events_of_writes_through_both_are_delivered_once(void **state)
{
    (void)state;
    char pub[4096], body[1024];
    struct imx_res res;
    assert_int_equal(imx_t_user(&a, admin_a, "rep-pub", "rep@pub.test", "admin", pub, sizeof pub),
                     0);
    snprintf(body, sizeof body,
             "{\"team\":\"rep-pub\",\"url\":\"http://127.0.0.1:%u/rep\","
             "\"events\":[\"image.published\"]}",
             rcv.port);
    assert_int_equal(imx_t_http_as(&b, pub, "POST", "/v1/webhooks", body, &res), 0);
    assert_int_equal(res.status, 201);
    char ctl[256];
    snprintf(ctl, sizeof ctl, "{\"secrets\": {\"/rep\": [\"%s\"]}}",
             json_string_value(json_object_get(res.json, "secret")));
    imx_t_res_free(&res);
    imx_t_receiver_control(&rcv, ctl);

    for (int i = 0; i < PUBLISHES; i++) {
        snprintf(body, sizeof body,
                 "{\"team\":\"rep-pub\",\"family\":\"rep-%d\",\"version\":\"%d\","
                 "\"provider\":\"aws\",\"architecture\":\"x86_64\",\"os\":{\"name\":"
                 "\"ubuntu\",\"version\":\"24.04\"},\"layer\":\"platform\",\"artifacts\":"
                 "[{\"region\":\"us-east-1\",\"id\":\"ami-0123456789abcdef0\"}],"
                 "\"components\":[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"}]}",
                 i % 7, i);
        assert_int_equal(imx_t_http_as(i % 2 ? &b : &a, pub, "POST", "/v1/images", body, &res), 0);
        if (res.status != 201)
            fail_msg("publish %d: %ld %s", i, res.status, res.body);
        imx_t_res_free(&res);
    }
    size_t requests = 0, distinct = 0, verified = 0;
    for (int i = 0; i < 300 && distinct < PUBLISHES; i++) {
        imx_t_sleep_ms(100);
        receiver_counts(&requests, &distinct, &verified);
    }
    /* A little longer: a duplicate would arrive now. */
    imx_t_sleep_ms(500);
    receiver_counts(&requests, &distinct, &verified);
    assert_int_equal(distinct, PUBLISHES);
    assert_int_equal(requests, PUBLISHES);
    assert_int_equal(verified, PUBLISHES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_to_either_are_read_through_the_other),
        cmocka_unit_test(a_token_from_one_replica_works_on_the_other),
        cmocka_unit_test(a_cursor_from_one_replica_continues_on_the_other),
        cmocka_unit_test(events_of_writes_through_both_are_delivered_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
