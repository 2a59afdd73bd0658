/* The webhook HTTP API against the real server and a Node receiver that verifies deliveries with
 * the standardwebhooks npm package: secrets shown once, test pings, rotation, the SSRF guard at
 * creation, the 50-a-team limit, the deliveries log, redelivery, roles and the cross-team
 * matrix. */
#include "harness.h"

#include <curl/curl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], alice[4096], max_[4096], vic[4096], bob[4096], carol[4096];
static struct imx_rcv rcv;

#define SECRET_RE_LEN 50

/* --- The Node receiver (tests/integration/webhook_receiver.js) --- */

/* Sets the secrets the receiver verifies path with (s2 may be NULL). */
static void receiver_secrets(const char *path, const char *s1, const char *s2)
{
    char ctl[512];
    snprintf(ctl, sizeof ctl, "{\"secrets\": {\"%s\": [\"%s\"%s%s%s]}}", path, s1, s2 ? ", \"" : "",
             s2 ? s2 : "", s2 ? "\"" : "");
    imx_t_receiver_control(&rcv, ctl);
}

/* --- HTTP helpers --- */

/* One request that must answer status; returns the response (free it). */
static struct imx_res call(const char *token, const char *method, const char *path,
                           const char *body, long status)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, method, path, body, &res), 0);
    if (res.status != status)
        fail_msg("%s %s: expected %ld, got %ld: %s", method, path, status, res.status, res.body);
    return res;
}

static void expect(const char *token, const char *method, const char *path, const char *body,
                   long status)
{
    struct imx_res res = call(token, method, path, body, status);
    imx_t_res_free(&res);
}

static long long json_id(const struct imx_res *res)
{
    return (long long)json_integer_value(json_object_get(res->json, "id"));
}

/* Creates a subscription of team to the receiver's path; copies its secret (may be NULL). */
static long long create(const char *token, const char *team, const char *path, const char *events,
                        char *secret)
{
    char body[1024];
    snprintf(body, sizeof body, "{\"team\":\"%s\",\"url\":\"http://127.0.0.1:%u%s\",\"events\":%s}",
             team, rcv.port, path, events);
    struct imx_res res = call(token, "POST", "/v1/webhooks", body, 201);
    const char *s = json_string_value(json_object_get(res.json, "secret"));
    assert_non_null(s);
    assert_int_equal(strlen(s), SECRET_RE_LEN);
    assert_memory_equal(s, "whsec_", 6);
    if (secret)
        snprintf(secret, SECRET_RE_LEN + 1, "%s", s);
    long long id = json_id(&res);
    char loc[128], want[64];
    snprintf(want, sizeof want, "/v1/webhooks/%lld", id);
    assert_string_equal(imx_t_header(&res, "Location", loc, sizeof loc), want);
    imx_t_res_free(&res);
    return id;
}

/* Polls GET /v1/deliveries/{id} until its state is want; returns the delivery (new). */
static json_t *wait_delivery(long long id, const char *want)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/deliveries/%lld", id);
    for (int i = 0; i < 200; i++) {
        struct imx_res res = call(alice, "GET", path, NULL, 200);
        if (strcmp(json_string_value(json_object_get(res.json, "state")), want) == 0) {
            json_t *d = json_incref(res.json);
            imx_t_res_free(&res);
            return d;
        }
        imx_t_res_free(&res);
        imx_t_sleep_ms(100);
    }
    fail_msg("delivery %lld never became %s", id, want);
    return NULL;
}

/* POST /v1/webhooks/{id}/test as token -> the delivery id. */
static long long ping(const char *token, long long webhook)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/webhooks/%lld/test", webhook);
    struct imx_res res = call(token, "POST", path, NULL, 202);
    assert_string_equal(json_string_value(json_object_get(res.json, "state")), "pending");
    assert_string_equal(json_string_value(json_object_get(res.json, "event_type")), "ping");
    long long id = json_id(&res);
    imx_t_res_free(&res);
    return id;
}

static int setup(void **state)
{
    (void)state;
    if (imx_t_receiver_init(&rcv, "whapi") != 0 || imx_t_receiver_start(&rcv) != 0)
        return -1;
    char allow[64];
    const char *env[IMX_T_RECEIVER_ENV_MAX];
    static const char *const extra[] = { "IMAXE_WEBHOOK_TIMEOUT_MS=3000", "IMAXE_WEBHOOK_WORKERS=2",
                                         "IMAXE_LOG_LEVEL=debug", "IMAXE_SHUTDOWN_TIMEOUT_S=3",
                                         NULL };
    imx_t_receiver_env(&rcv, extra, env, allow);
    if (imx_t_server_up(&srv, "webhook_api", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "team-a", "alice@a.test", "admin", alice, sizeof alice) != 0 ||
        imx_t_user(&srv, admin, "team-a", "max@a.test", "member", max_, sizeof max_) != 0 ||
        imx_t_user(&srv, admin, "team-a", "vic@a.test", "viewer", vic, sizeof vic) != 0 ||
        imx_t_user(&srv, admin, "team-b", "bob@b.test", "admin", bob, sizeof bob) != 0 ||
        imx_t_user(&srv, admin, "team-c", "carol@c.test", "admin", carol, sizeof carol) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    imx_t_receiver_stop(&rcv);
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

/* --- Tests --- */

static void secret_shown_once_ping_verifies_rotation_signs_twice(void **state)
{
    (void)state;
    char s1[SECRET_RE_LEN + 1], path[128], body[512];
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"url\":\"http://127.0.0.1:%u/a\",\"events\":"
             "[\"image.published\",\"patch.available\"],\"families\":[\"pytorch-2.9\"],"
             "\"pins\":[\"prod\"],\"min_severity\":\"high\",\"description\":\"ops\"}",
             rcv.port);
    struct imx_res res = call(alice, "POST", "/v1/webhooks", body, 201);
    long long wh = json_id(&res);
    snprintf(s1, sizeof s1, "%s", json_string_value(json_object_get(res.json, "secret")));
    assert_int_equal(strlen(s1), SECRET_RE_LEN);
    assert_string_equal(json_string_value(json_object_get(res.json, "min_severity")), "high");
    assert_string_equal(json_string_value(json_array_get(json_object_get(res.json, "pins"), 0)),
                        "prod");
    assert_true(json_is_true(json_object_get(res.json, "enabled")));
    assert_true(json_is_null(json_object_get(res.json, "last_delivery")));
    imx_t_res_free(&res);

    /* Never again: not in the subscription, the list, nor the server's log. */
    snprintf(path, sizeof path, "/v1/webhooks/%lld", wh);
    res = call(vic, "GET", path, NULL, 200);
    assert_null(json_object_get(res.json, "secret"));
    assert_null(strstr(res.body, "whsec_"));
    assert_string_equal(json_string_value(json_object_get(res.json, "team")), "team-a");
    imx_t_res_free(&res);
    res = call(vic, "GET", "/v1/webhooks?team=team-a", NULL, 200);
    assert_true(json_array_size(json_object_get(res.json, "items")) >= 1);
    assert_null(strstr(res.body, "whsec_"));
    imx_t_res_free(&res);

    /* A member may send a test ping; it arrives and verifies with the secret from creation. */
    receiver_secrets("/a", s1, NULL);
    long long d1 = ping(max_, wh);
    json_t *d = wait_delivery(d1, "delivered");
    json_t *att = json_object_get(d, "attempts");
    assert_int_equal(json_array_size(att), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(att, 0), "status_code")),
                     200);
    assert_string_equal(json_string_value(json_object_get(json_array_get(att, 0), "response_body")),
                        "ok 200");
    assert_string_equal(json_string_value(json_object_get(json_object_get(d, "payload"), "type")),
                        "ping");
    char msg1[64];
    snprintf(msg1, sizeof msg1, "%s", json_string_value(json_object_get(d, "message_id")));
    json_decref(d);
    json_t *log = imx_t_receiver_log(&rcv, "/a");
    assert_int_equal(json_array_size(log), 1);
    json_t *e = json_array_get(log, 0);
    assert_string_equal(json_string_value(json_object_get(e, "id")), msg1);
    assert_true(json_is_true(json_array_get(json_object_get(e, "verified"), 0)));
    assert_null(strchr(json_string_value(json_object_get(e, "sig")), ' '));
    json_decref(log);

    /* Rotation: a new secret, shown once; the next ping carries two signatures, each verifying
     * on its own. */
    snprintf(path, sizeof path, "/v1/webhooks/%lld/rotate-secret", wh);
    res = call(alice, "POST", path, NULL, 200);
    char s2[SECRET_RE_LEN + 1];
    snprintf(s2, sizeof s2, "%s", json_string_value(json_object_get(res.json, "secret")));
    assert_int_equal(strlen(s2), SECRET_RE_LEN);
    assert_string_not_equal(s1, s2);
    assert_true(json_is_string(json_object_get(res.json, "previous_secret_expires_at")));
    imx_t_res_free(&res);
    char ctl[512];
    snprintf(ctl, sizeof ctl, "{\"secrets\": {\"/a\": [\"%s\", \"%s\"]}}", s1, s2);
    imx_t_receiver_control(&rcv, ctl);
    long long d2 = ping(alice, wh);
    json_decref(wait_delivery(d2, "delivered"));
    log = imx_t_receiver_log(&rcv, "/a");
    assert_int_equal(json_array_size(log), 2);
    e = json_array_get(log, 1);
    assert_non_null(strchr(json_string_value(json_object_get(e, "sig")), ' '));
    assert_true(json_is_true(json_array_get(json_object_get(e, "verified"), 0)));
    assert_true(json_is_true(json_array_get(json_object_get(e, "verified"), 1)));
    json_decref(log);

    /* The subscription shows its last delivery; still no secret. */
    snprintf(path, sizeof path, "/v1/webhooks/%lld", wh);
    res = call(alice, "GET", path, NULL, 200);
    json_t *last = json_object_get(res.json, "last_delivery");
    assert_int_equal(json_integer_value(json_object_get(last, "id")), d2);
    assert_string_equal(json_string_value(json_object_get(last, "state")), "delivered");
    assert_int_equal(json_integer_value(json_object_get(last, "last_status")), 200);
    assert_null(strstr(res.body, "whsec_"));
    imx_t_res_free(&res);
    assert_false(imx_t_log_contains(&srv, s1 + 6));
    assert_false(imx_t_log_contains(&srv, s2 + 6));

    /* Every write was audited. */
    res = call(admin, "GET", "/v1/audit?resource=webhook", NULL, 200);
    size_t i, creates = 0, tests = 0, rotates = 0;
    json_array_foreach(json_object_get(res.json, "items"), i, e)
    {
        char id[24];
        snprintf(id, sizeof id, "%lld", wh);
        if (strcmp(json_string_value(json_object_get(e, "resource_id")), id) != 0)
            continue;
        const char *a = json_string_value(json_object_get(e, "action"));
        creates += strcmp(a, "create") == 0;
        tests += strcmp(a, "test") == 0;
        rotates += strcmp(a, "rotate_secret") == 0;
    }
    assert_int_equal(creates, 1);
    assert_int_equal(tests, 2);
    assert_int_equal(rotates, 1);
    assert_null(strstr(res.body, "whsec_"));
    imx_t_res_free(&res);
}

static void deliveries_log_attempts_redeliver_and_enable(void **state)
{
    (void)state;
    char secret[SECRET_RE_LEN + 1], path[128];
    imx_t_receiver_control(&rcv, "{\"modes\": {\"/fail\": {\"status\": 500}}}");
    long long wh = create(alice, "team-a", "/fail", "[\"image.revoked\"]", secret);
    receiver_secrets("/fail", secret, NULL);
    long long d = ping(alice, wh);

    /* Schedule 1,1: three attempts about a second apart, each recorded, then failed. */
    json_decref(wait_delivery(d, "failed"));
    snprintf(path, sizeof path, "/v1/webhooks/%lld/deliveries", wh);
    struct imx_res res = call(vic, "GET", path, NULL, 200);
    json_t *items = json_object_get(res.json, "items");
    assert_int_equal(json_array_size(items), 1);
    json_t *dl = json_array_get(items, 0);
    assert_int_equal(json_integer_value(json_object_get(dl, "id")), d);
    assert_int_equal(json_integer_value(json_object_get(dl, "webhook")), wh);
    assert_string_equal(json_string_value(json_object_get(dl, "event_type")), "ping");
    assert_string_equal(json_string_value(json_object_get(dl, "state")), "failed");
    assert_int_equal(json_integer_value(json_object_get(dl, "last_status")), 500);
    char msg[64];
    snprintf(msg, sizeof msg, "%s", json_string_value(json_object_get(dl, "message_id")));
    assert_memory_equal(msg, "msg_", 4);
    json_t *att = json_object_get(dl, "attempts");
    assert_int_equal(json_array_size(att), 3);
    for (size_t i = 0; i < 3; i++) {
        json_t *a = json_array_get(att, i);
        assert_int_equal(json_integer_value(json_object_get(a, "attempt")), (json_int_t)i + 1);
        assert_int_equal(json_integer_value(json_object_get(a, "status_code")), 500);
        assert_true(json_integer_value(json_object_get(a, "latency_ms")) >= 0);
        assert_string_equal(json_string_value(json_object_get(a, "error")), "HTTP 500");
        assert_true(json_is_string(json_object_get(a, "started_at")));
        /* The first two scheduled a retry; the last did not. */
        assert_true(i < 2 ? json_is_string(json_object_get(a, "next_attempt_at"))
                          : json_is_null(json_object_get(a, "next_attempt_at")));
        assert_null(json_object_get(a, "response_body")); /* only in GET /v1/deliveries/{id} */
    }
    assert_true(json_is_null(json_object_get(res.json, "next_cursor")));
    imx_t_res_free(&res);
    expect(vic, "GET", "/v1/webhooks/1/deliveries?state=nope", NULL, 400);

    /* Disabled by an admin: no test pings, no redelivery; the reason is shown. */
    snprintf(path, sizeof path, "/v1/webhooks/%lld", wh);
    res = call(alice, "PATCH", path, "{\"enabled\":false}", 200);
    assert_true(json_is_false(json_object_get(res.json, "enabled")));
    assert_non_null(strstr(json_string_value(json_object_get(res.json, "disabled_reason")),
                           "disabled by user"));
    assert_true(json_is_string(json_object_get(res.json, "failing_since")));
    imx_t_res_free(&res);
    char tpath[128], rpath[128];
    snprintf(tpath, sizeof tpath, "/v1/webhooks/%lld/test", wh);
    snprintf(rpath, sizeof rpath, "/v1/deliveries/%lld/redeliver", d);
    expect(alice, "POST", tpath, NULL, 409);
    expect(alice, "POST", rpath, NULL, 409);

    /* Re-enabled: the failure streak is cleared. */
    res = call(alice, "PATCH", path, "{\"enabled\":true}", 200);
    assert_true(json_is_true(json_object_get(res.json, "enabled")));
    assert_true(json_is_null(json_object_get(res.json, "disabled_reason")));
    assert_true(json_is_null(json_object_get(res.json, "failing_since")));
    imx_t_res_free(&res);

    /* Redeliver (a member may) re-sends the same message, same webhook-id, which now succeeds. */
    imx_t_receiver_control(&rcv, "{\"modes\": {\"/fail\": {\"status\": 204}}}");
    res = call(max_, "POST", rpath, NULL, 202);
    assert_string_equal(json_string_value(json_object_get(res.json, "state")), "pending");
    assert_string_equal(json_string_value(json_object_get(res.json, "message_id")), msg);
    imx_t_res_free(&res);
    json_t *done = wait_delivery(d, "delivered");
    att = json_object_get(done, "attempts");
    assert_int_equal(json_array_size(att), 4);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(att, 3), "status_code")),
                     204);
    json_decref(done);
    json_t *log = imx_t_receiver_log(&rcv, "/fail");
    assert_int_equal(json_array_size(log), 4);
    size_t i;
    json_t *e;
    json_array_foreach(log, i, e)
    {
        assert_string_equal(json_string_value(json_object_get(e, "id")), msg);
        assert_true(json_is_true(json_array_get(json_object_get(e, "verified"), 0)));
    }
    json_decref(log);
    /* The audit log has the one redelivery that happened. */
    res = call(admin, "GET", "/v1/audit?resource=webhook_delivery&action=redeliver", NULL, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 1);
    imx_t_res_free(&res);
}

struct refused {
    const char *url, *why; /* why: a fragment of the detail */
};

static void ssrf_guard_refuses_urls_at_creation(void **state)
{
    (void)state;
    char other_port[128], named[512] = "", host[256];
    snprintf(other_port, sizeof other_port, "http://127.0.0.1:%u/x", rcv.port + 1);
    /* A name (not a literal) that resolves to loopback, when this machine has one. */
    struct addrinfo *ai = NULL;
    if (gethostname(host, sizeof host) == 0 && getaddrinfo(host, NULL, NULL, &ai) == 0 &&
        ai->ai_family == AF_INET &&
        (ntohl(((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr) >> 24) == 127 &&
        !strchr(host, '.'))
        snprintf(named, sizeof named, "https://%s/hook", host);
    if (ai)
        freeaddrinfo(ai);
    const struct refused cases[] = {
        { "https://127.1/hook", "loopback" },
        { "https://2130706433/hook", "loopback" },
        { "https://0x7f000001/hook", "loopback" },
        { "https://[::ffff:127.0.0.1]/hook", "IPv4-mapped" },
        { "https://[::1]/hook", "loopback" },
        { "https://169.254.169.254/latest/meta-data/", "metadata" },
        { "https://[64:ff9b::a9fe:a9fe]/", "NAT64" },
        { "https://10.1.2.3/hook", "private" },
        { "https://192.168.0.1/hook", "private" },
        { "https://100.64.0.1/hook", "carrier-grade NAT" },
        { "https://localhost/hook", "local" },
        { "https://metadata.google.internal/computeMetadata/v1/", "metadata" },
        { "http://example.com/hook", "https" },
        { "ftp://example.com/hook", "http and https" },
        { "https://user:pw@example.com/hook", "credentials" },
        { "not a url", "spaces" },
        { other_port, "https" },
        { named[0] ? named : "https://127.0.0.2/", "loopback" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *b =
            json_pack("{s:s, s:s, s:[s]}", "team", "team-a", "url", cases[i].url, "events", "ping");
        char *text = json_dumps(b, JSON_COMPACT);
        json_decref(b);
        struct imx_res res = call(alice, "POST", "/v1/webhooks", text, 400);
        free(text);
        imx_t_assert_problem(&res, 400);
        json_t *errs = json_object_get(res.json, "errors");
        assert_int_equal(json_array_size(errs), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(errs, 0), "pointer")),
                            "/url");
        const char *detail = json_string_value(json_object_get(json_array_get(errs, 0), "detail"));
        if (!strstr(detail, "is refused: ") || !strstr(detail, cases[i].why))
            fail_msg("%s: %s", cases[i].url, detail);
        imx_t_res_free(&res);
    }
    /* Nothing was stored. */
    char *stored = imx_t_sql(db, "SELECT count(*) FROM webhooks WHERE url NOT LIKE "
                                 "'http://127.0.0.1:%'");
    assert_string_equal(stored, "0");
    free(stored);

    /* A PATCH to a refused URL is refused the same way and changes nothing. */
    char path[64], body[256];
    long long wh = create(alice, "team-a", "/patched", "[\"ping\"]", NULL);
    snprintf(path, sizeof path, "/v1/webhooks/%lld", wh);
    struct imx_res res = call(alice, "PATCH", path, "{\"url\":\"https://[::ffff:7f00:1]/x\"}", 400);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(res.json, "errors"), 0), "pointer")),
                        "/url");
    imx_t_res_free(&res);
    res = call(alice, "GET", path, NULL, 200);
    snprintf(body, sizeof body, "http://127.0.0.1:%u/patched", rcv.port);
    assert_string_equal(json_string_value(json_object_get(res.json, "url")), body);
    imx_t_res_free(&res);
    /* An allowed change goes through; min_severity null clears the filter. */
    snprintf(body, sizeof body,
             "{\"url\":\"http://127.0.0.1:%u/patched2\",\"events\":[\"pin.moved\"],"
             "\"min_severity\":null,\"families\":[\"f1\",\"f2\"]}",
             rcv.port);
    res = call(alice, "PATCH", path, body, 200);
    assert_non_null(strstr(json_string_value(json_object_get(res.json, "url")), "/patched2"));
    assert_string_equal(json_string_value(json_array_get(json_object_get(res.json, "events"), 0)),
                        "pin.moved");
    assert_int_equal(json_array_size(json_object_get(res.json, "families")), 2);
    assert_true(json_is_null(json_object_get(res.json, "min_severity")));
    imx_t_res_free(&res);
}

struct invalid {
    const char *body, *pointer;
};

static void invalid_bodies_name_the_field(void **state)
{
    (void)state;
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/v", rcv.port);
    const struct invalid cases[] = {
        { "{\"team\":\"team-a\",\"url\":\"%s\",\"events\":[\"ping\",\"image.exploded\"]}",
          "/events/1" },
        { "{\"team\":\"team-a\",\"url\":\"%s\",\"events\":[\"ping\",\"ping\"]}", "/events/1" },
        { "{\"team\":\"team-a\",\"url\":\"%s\",\"events\":[]}", "/events" },
        { "{\"team\":\"team-a\",\"url\":\"%s\",\"events\":[7]}", "/events/0" },
        { "{\"team\":\"team-a\",\"url\":\"%s\",\"events\":\"ping\"}", "/events" },
        { "{\"team\":\"team-a\",\"url\":\"%s\"}", "/events" },
        { "{\"team\":\"team-a\",\"url\":\"%s\",\"events\":[\"ping\"],\"min_severity\":\"dire\"}",
          "/min_severity" },
        { "{\"team\":\"team-a\",\"url\":\"%s\",\"events\":[\"ping\"],\"families\":[\"\"]}",
          "/families/0" },
        { "{\"team\":\"team-a\",\"url\":\"%s\",\"events\":[\"ping\"],\"pins\":[\"a\",\"a\"]}",
          "/pins/1" },
        { "{\"team\":\"team-a\",\"url\":\"%s\",\"events\":[\"ping\"],\"secret\":\"whsec_x\"}",
          "/secret" },
        { "{\"team\":\"team-a\",\"url\":\"%s\",\"events\":[\"ping\"],\"enabled\":false}",
          "/enabled" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[1024];
        snprintf(body, sizeof body, cases[i].body, url);
        struct imx_res res = call(alice, "POST", "/v1/webhooks", body, 400);
        json_t *errs = json_object_get(res.json, "errors");
        if (json_array_size(errs) != 1 ||
            strcmp(json_string_value(json_object_get(json_array_get(errs, 0), "pointer")),
                   cases[i].pointer) != 0)
            fail_msg("%s: %s", body, res.body);
        imx_t_res_free(&res);
    }
    /* Every event type the SQL outbox knows is accepted, as the OpenAPI enum lists them. */
    char *types =
        imx_t_sql(db, "SELECT json_agg(t)::text FROM unnest(imx_webhook_event_types()) t");
    assert_non_null(types);
    char body[1024];
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"url\":\"%s\",\"events\":%s}", url, types);
    free(types);
    struct imx_res res = call(alice, "POST", "/v1/webhooks", body, 201);
    assert_int_equal(json_array_size(json_object_get(res.json, "events")),
                     10); /* node.drifted is the tenth */
    imx_t_res_free(&res);
    /* A bad PATCH field, and a PATCH that may not set the secret. */
    expect(alice, "PATCH", "/v1/webhooks/1", "{\"events\":[\"nope\"]}", 400);
    expect(alice, "PATCH", "/v1/webhooks/1", "{\"secret\":\"whsec_x\"}", 400);
    expect(alice, "GET", "/v1/webhooks", NULL, 400);
    expect(alice, "GET", "/v1/webhooks?team=team-a&limit=0", NULL, 400);
    expect(alice, "GET", "/v1/webhooks?team=team-a&cursor=forged.x", NULL, 400);
}

static void fifty_a_team_and_pages(void **state)
{
    (void)state;
    long long ids[50];
    for (int i = 0; i < 50; i++) {
        char p[32];
        snprintf(p, sizeof p, "/c%d", i);
        ids[i] = create(carol, "team-c", p, "[\"image.published\"]", NULL);
    }
    char body[256];
    snprintf(body, sizeof body,
             "{\"team\":\"team-c\",\"url\":\"http://127.0.0.1:%u/c50\",\"events\":[\"ping\"]}",
             rcv.port);
    struct imx_res res = call(carol, "POST", "/v1/webhooks", body, 429);
    imx_t_assert_problem(&res, 429);
    assert_non_null(
        strstr(json_string_value(json_object_get(res.json, "detail")), "webhooks-per-team (50)"));
    imx_t_res_free(&res);

    /* Pages of 20: 20, 20, 10, in id order, each with a cursor and Link to the next. */
    char path[1024] = "/v1/webhooks?team=team-c&limit=20";
    int seen = 0;
    for (int page = 0; page < 3; page++) {
        res = call(carol, "GET", path, NULL, 200);
        json_t *items = json_object_get(res.json, "items");
        assert_int_equal(json_array_size(items), page < 2 ? 20 : 10);
        size_t i;
        json_t *w;
        json_array_foreach(items, i, w)
        {
            assert_int_equal(json_integer_value(json_object_get(w, "id")), ids[seen]);
            seen++;
        }
        const char *next = json_string_value(json_object_get(res.json, "next_cursor"));
        char link[1024];
        if (page < 2) {
            assert_non_null(next);
            assert_non_null(imx_t_header(&res, "Link", link, sizeof link));
            assert_non_null(strstr(link, "rel=\"next\""));
            snprintf(path, sizeof path, "/v1/webhooks?team=team-c&limit=20&cursor=%s", next);
        } else {
            assert_null(next);
            assert_null(imx_t_header(&res, "Link", link, sizeof link));
        }
        imx_t_res_free(&res);
    }
    assert_int_equal(seen, 50);

    /* Deleting one makes room again; the deleted one is gone. */
    snprintf(path, sizeof path, "/v1/webhooks/%lld", ids[7]);
    expect(carol, "DELETE", path, NULL, 204);
    expect(carol, "GET", path, NULL, 404);
    expect(carol, "DELETE", path, NULL, 404);
    res = call(carol, "POST", "/v1/webhooks", body, 201);
    imx_t_res_free(&res);
    expect(carol, "POST", "/v1/webhooks", body, 429);
}

static void roles_viewer_reads_member_tests_admin_changes(void **state)
{
    (void)state;
    char body[256], path[128];
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"url\":\"http://127.0.0.1:%u/r\",\"events\":[\"ping\"]}",
             rcv.port);
    expect(vic, "POST", "/v1/webhooks", body, 403);
    expect(max_, "POST", "/v1/webhooks", body, 403);
    long long wh = create(alice, "team-a", "/r", "[\"ping\"]", NULL);
    snprintf(path, sizeof path, "/v1/webhooks/%lld", wh);
    expect(vic, "GET", path, NULL, 200);
    expect(vic, "PATCH", path, "{\"enabled\":false}", 403);
    expect(max_, "PATCH", path, "{\"enabled\":false}", 403);
    expect(max_, "DELETE", path, NULL, 403);
    snprintf(path, sizeof path, "/v1/webhooks/%lld/rotate-secret", wh);
    expect(max_, "POST", path, NULL, 403);
    snprintf(path, sizeof path, "/v1/webhooks/%lld/test", wh);
    expect(vic, "POST", path, NULL, 403);
    long long d = ping(max_, wh);
    json_decref(wait_delivery(d, "delivered"));
    snprintf(path, sizeof path, "/v1/deliveries/%lld/redeliver", d);
    expect(vic, "POST", path, NULL, 403);
    snprintf(path, sizeof path, "/v1/deliveries/%lld", d);
    expect(vic, "GET", path, NULL, 200);
    /* Still enabled: nothing above changed it. */
    snprintf(path, sizeof path, "/v1/webhooks/%lld", wh);
    struct imx_res res = call(vic, "GET", path, NULL, 200);
    assert_true(json_is_true(json_object_get(res.json, "enabled")));
    imx_t_res_free(&res);
}

/* Team B's subscription and delivery, as users of team A. */
struct cross_case {
    const char *method, *path, *body;
    long as_admin_of_a, as_viewer_of_a; /* 403 when the route itself needs more than viewer */
};

static void cross_team_matrix(void **state)
{
    (void)state;
    char secret[SECRET_RE_LEN + 1];
    long long wh = create(bob, "team-b", "/b", "[\"ping\"]", secret);
    long long d = ping(bob, wh);
    json_t *before_d = NULL;
    char dpath[64], wpath[64];
    snprintf(dpath, sizeof dpath, "/v1/deliveries/%lld", d);
    for (int i = 0; i < 100; i++) {
        struct imx_res r = call(bob, "GET", dpath, NULL, 200);
        bool done = strcmp(json_string_value(json_object_get(r.json, "state")), "delivered") == 0;
        if (done)
            before_d = json_incref(r.json);
        imx_t_res_free(&r);
        if (done)
            break;
        imx_t_sleep_ms(100);
    }
    assert_non_null(before_d);
    snprintf(wpath, sizeof wpath, "/v1/webhooks/%lld", wh);
    struct imx_res res = call(bob, "GET", wpath, NULL, 200);
    json_t *before_w = json_incref(res.json);
    imx_t_res_free(&res);

    char get[64], rot[64], test[64], dels[64], redel[64], patch_url[256];
    snprintf(get, sizeof get, "/v1/webhooks/%lld", wh);
    snprintf(rot, sizeof rot, "/v1/webhooks/%lld/rotate-secret", wh);
    snprintf(test, sizeof test, "/v1/webhooks/%lld/test", wh);
    snprintf(dels, sizeof dels, "/v1/webhooks/%lld/deliveries", wh);
    snprintf(redel, sizeof redel, "/v1/deliveries/%lld/redeliver", d);
    snprintf(patch_url, sizeof patch_url, "{\"url\":\"http://127.0.0.1:%u/stolen\"}", rcv.port);
    char create_b[256];
    snprintf(create_b, sizeof create_b,
             "{\"team\":\"team-b\",\"url\":\"http://127.0.0.1:%u/x\",\"events\":[\"ping\"]}",
             rcv.port);
    const struct cross_case cases[] = {
        { "GET", get, NULL, 404, 404 },
        { "GET", "/v1/webhooks?team=team-b", NULL, 404, 404 },
        { "POST", "/v1/webhooks", create_b, 404, 403 },
        { "PATCH", get, patch_url, 404, 403 },
        { "PATCH", get, "{\"enabled\":false}", 404, 403 },
        { "DELETE", get, NULL, 404, 403 },
        { "POST", rot, NULL, 404, 403 },
        { "POST", test, NULL, 404, 403 },
        { "GET", dels, NULL, 404, 404 },
        { "GET", dpath, NULL, 404, 404 },
        { "POST", redel, NULL, 404, 403 },
        /* Not a number is not found either. */
        { "GET", "/v1/webhooks/abc", NULL, 404, 404 },
        { "GET", "/v1/deliveries/99999999", NULL, 404, 404 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct imx_res r =
            call(alice, cases[i].method, cases[i].path, cases[i].body, cases[i].as_admin_of_a);
        /* A 404 shows nothing of team B's objects. */
        assert_null(strstr(r.body, "127.0.0.1"));
        imx_t_res_free(&r);
        expect(vic, cases[i].method, cases[i].path, cases[i].body, cases[i].as_viewer_of_a);
    }

    /* Nothing changed: the subscription, its delivery, its secret (the receiver still verifies
     * with the original one), and team B's count. */
    res = call(bob, "GET", wpath, NULL, 200);
    assert_true(json_equal(res.json, before_w));
    imx_t_res_free(&res);
    res = call(bob, "GET", dpath, NULL, 200);
    assert_true(json_equal(res.json, before_d));
    imx_t_res_free(&res);
    res = call(bob, "GET", dels, NULL, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 1);
    imx_t_res_free(&res);
    json_decref(before_w);
    json_decref(before_d);
    char *n = imx_t_sql(db, "SELECT count(*) FROM webhooks w JOIN teams t ON t.id = w.team_id "
                            "WHERE t.slug = 'team-b'");
    assert_string_equal(n, "1");
    free(n);
    json_t *log = imx_t_receiver_log(&rcv, "/b");
    assert_int_equal(json_array_size(log), 1);
    json_decref(log);
    log = imx_t_receiver_log(&rcv, "/stolen");
    assert_int_equal(json_array_size(log), 0);
    json_decref(log);
    /* The global admin reaches every team. */
    expect(admin, "GET", get, NULL, 200);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(secret_shown_once_ping_verifies_rotation_signs_twice),
        cmocka_unit_test(deliveries_log_attempts_redeliver_and_enable),
        cmocka_unit_test(ssrf_guard_refuses_urls_at_creation),
        cmocka_unit_test(invalid_bodies_name_the_field),
        cmocka_unit_test(fifty_a_team_and_pages),
        cmocka_unit_test(roles_viewer_reads_member_tests_admin_changes),
        cmocka_unit_test(cross_team_matrix),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
