/* Webhook delivery end to end: the real server's dispatcher posting to a Node receiver that
 * verifies every delivery with the standardwebhooks npm package. Events are produced with the
 * C enqueue API (db/webhooks.h) in transactions of this test, as handlers will. */
#include "harness.h"

#include <curl/curl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/pool.h"
#include "db/webhooks.h"
#include "webhooks/sign.h"

/* Entries of log for path (NULL: all) answered with status (0: any, -1: hung). */
static size_t count_entries(json_t *log, const char *path, int status)
{
    size_t i, n = 0;
    json_t *e;
    json_array_foreach(log, i, e)
    {
        if (path && strcmp(json_string_value(json_object_get(e, "path")), path) != 0)
            continue;
        json_t *st = json_object_get(e, "status");
        if (status == -1 ? !json_is_string(st)
                         : status != 0 && json_integer_value(st) != (json_int_t)status)
            continue;
        n++;
    }
    return n;
}

/* Polls SQL until it answers want (up to timeout_ms). Returns the last answer (new string). */
static char *wait_sql(const char *db, const char *sql, const char *want, long timeout_ms)
{
    char *v = NULL;
    for (long waited = 0;; waited += 100) {
        free(v);
        v = imx_t_sql(db, sql);
        if ((v && strcmp(v, want) == 0) || waited >= timeout_ms)
            return v;
        imx_t_sleep_ms(100);
    }
}

static void assert_sql(const char *db, const char *sql, const char *want, long timeout_ms)
{
    char *v = wait_sql(db, sql, want, timeout_ms);
    if (!v || strcmp(v, want) != 0)
        fail_msg("%s: got '%s', want '%s'", sql, v ? v : "(error)", want);
    free(v);
}

static long long sql_ll(const char *db, const char *sql)
{
    char *v = imx_t_sql(db, sql);
    assert_non_null(v);
    long long n = atoll(v);
    free(v);
    return n;
}

static long long add_team(const char *db)
{
    return sql_ll(db, "INSERT INTO teams (slug, name) VALUES ('hooks', 'Hooks') RETURNING id");
}

/* Inserts a subscription as the future handler will, with a fresh secret copied to secret. */
static long long add_webhook(const char *db, long long team, const char *url, const char *types,
                             char secret[IMX_WEBHOOK_SECRET_LEN + 1])
{
    char sql[1024];
    assert_int_equal(imx_webhook_secret_new(secret), 0);
    snprintf(sql, sizeof sql,
             "INSERT INTO webhooks (team_id, url, secret, event_types) VALUES (%lld, '%s', '%s', "
             "'%s') RETURNING id",
             team, url, secret, types);
    return sql_ll(db, sql);
}

/* Enqueues n events of type in one transaction through the C API; ids into ids (may be NULL). */
static void enqueue(long long team, const char *type, int n, long long *ids)
{
    enum imx_db_status why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    assert_non_null(c);
    assert_int_equal(imx_db_command(c, "BEGIN"), 0);
    for (int i = 0; i < n; i++) {
        json_t *data = json_pack("{s:i, s:s}", "seq", i, "family", "pytorch-2.9-ubuntu24.04");
        const char *fam[] = { "pytorch-2.9-ubuntu24.04", NULL };
        int64_t id = 0;
        assert_int_equal(imx_webhooks_enqueue(c, team, type, data, fam, NULL, "high", &id),
                         IMX_DBS_OK);
        if (ids)
            ids[i] = id;
        json_decref(data);
    }
    assert_int_equal(imx_db_command(c, "COMMIT"), 0);
    imx_db_release(c);
}

struct env {
    char allow[64], port[32];
    const char *v[12];
};

/* Server settings for tests: loopback receiver allowed, fast polling and retries. */
static const char *const *server_env(struct env *e, unsigned port, const char *schedule,
                                     const char *timeout_ms, const char *disable_after_s)
{
    static char sched[128], timeout[64], disable[64];
    snprintf(e->allow, sizeof e->allow, "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:%u", port);
    snprintf(sched, sizeof sched, "IMAXE_WEBHOOK_SCHEDULE=%s", schedule);
    snprintf(timeout, sizeof timeout, "IMAXE_WEBHOOK_TIMEOUT_MS=%s", timeout_ms);
    snprintf(disable, sizeof disable, "IMAXE_WEBHOOK_DISABLE_AFTER_S=%s", disable_after_s);
    size_t i = 0;
    e->v[i++] = e->allow;
    e->v[i++] = sched;
    e->v[i++] = timeout;
    e->v[i++] = disable;
    e->v[i++] = "IMAXE_WEBHOOK_POLL_MS=100";
    e->v[i++] = "IMAXE_WEBHOOK_WORKERS=2";
    e->v[i++] = "IMAXE_ACCESS_LOG=0";
    e->v[i++] = "IMAXE_SHUTDOWN_TIMEOUT_S=3";
    e->v[i] = NULL;
    return e->v;
}

struct fixture {
    char db[1024];
    struct imx_rcv rcv;
    long long team;
};

static void setup(struct fixture *f, const char *name)
{
    memset(f, 0, sizeof *f);
    snprintf(f->db, sizeof f->db, "%s", imx_t_db_create(name));
    /* Migrate now so that the test can add rows before any server runs. */
    assert_int_equal(
        imx_t_system("IMAXE_DATABASE_URL='%s' '%s' migrate >/dev/null", f->db,
                     getenv("IMX_TEST_SERVER") ? getenv("IMX_TEST_SERVER") : "build/imaxe-server"),
        0);
    f->team = add_team(f->db);
    assert_int_equal(imx_db_pool_init(f->db, 2, 5000, 5000), 0);
    assert_int_equal(imx_t_receiver_init(&f->rcv, name), 0);
}

static void teardown(struct fixture *f)
{
    imx_t_receiver_stop(&f->rcv);
    imx_db_pool_shutdown();
}

static void signatures_verify_with_standardwebhooks_across_rotation(void **state)
{
    (void)state;
    struct fixture f;
    struct env e;
    struct imx_srv srv;
    char url[128], s1[IMX_WEBHOOK_SECRET_LEN + 1], s2[IMX_WEBHOOK_SECRET_LEN + 1], ctl[512];
    setup(&f, "wh_sign");
    assert_int_equal(imx_t_receiver_start(&f.rcv), 0);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/sig", f.rcv.port);
    long long wh = add_webhook(f.db, f.team, url, "{image.published,pin.moved}", s1);
    assert_int_equal(imx_webhook_secret_new(s2), 0);
    snprintf(ctl, sizeof ctl, "{\"secrets\": {\"/sig\": [\"%s\", \"%s\"]}}", s1, s2);
    imx_t_receiver_control(&f.rcv, ctl);
    assert_int_equal(
        imx_t_server_start(&srv, f.db, server_env(&e, f.rcv.port, "1,1", "5000", "432000")), 0);

    long long ids[5];
    enqueue(f.team, "image.published", 3, ids);
    enqueue(f.team, "advisory.published", 1, NULL); /* not subscribed: never sent */
    assert_sql(f.db, "SELECT count(*) FROM webhook_deliveries WHERE state = 'delivered'", "3",
               20000);

    enum imx_db_status why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    assert_int_equal(imx_webhooks_rotate_secret(c, wh, s2, 86400, NULL), IMX_DBS_OK);
    imx_db_release(c);
    enqueue(f.team, "pin.moved", 2, ids + 3);
    assert_sql(f.db, "SELECT count(*) FROM webhook_deliveries WHERE state = 'delivered'", "5",
               20000);

    json_t *log = imx_t_receiver_log(&f.rcv, NULL);
    assert_int_equal(json_array_size(log), 5);
    for (size_t i = 0; i < 5; i++) {
        json_t *en = json_array_get(log, i);
        char want_id[32];
        snprintf(want_id, sizeof want_id, "msg_%lld", ids[i]);
        assert_string_equal(json_string_value(json_object_get(en, "id")), want_id);
        assert_string_equal(json_string_value(json_object_get(en, "ct")), "application/json");
        assert_non_null(strstr(json_string_value(json_object_get(en, "ua")), "imaxe-webhooks/"));
        long long ts = json_integer_value(json_object_get(en, "ts"));
        assert_true(llabs(ts - (long long)time(NULL)) < 120);
        json_t *body = json_loads(json_string_value(json_object_get(en, "body")), 0, NULL);
        assert_non_null(body);
        assert_string_equal(json_string_value(json_object_get(body, "id")), want_id);
        assert_string_equal(json_string_value(json_object_get(body, "type")),
                            i < 3 ? "image.published" : "pin.moved");
        assert_non_null(json_string_value(json_object_get(body, "timestamp")));
        assert_int_equal(json_integer_value(json_object_get(json_object_get(body, "data"), "seq")),
                         i < 3 ? (int)i : (int)i - 3);
        json_decref(body);
        /* Before the rotation only the first secret signs; after it both do, each on its own. */
        json_t *ver = json_object_get(en, "verified");
        const char *sig = json_string_value(json_object_get(en, "sig"));
        assert_true(json_is_true(json_array_get(ver, 0)));
        if (i < 3) {
            assert_true(json_is_false(json_array_get(ver, 1)));
            assert_null(strchr(sig, ' '));
        } else {
            assert_true(json_is_true(json_array_get(ver, 1)));
            assert_non_null(strchr(sig, ' '));
        }
    }
    json_decref(log);

    /* Every attempt is recorded with its status, latency and response. */
    assert_sql(f.db,
               "SELECT count(*) FROM webhook_attempts WHERE status_code = 200 AND latency_ms >= 0 "
               "AND response_body = 'ok 200' AND error IS NULL AND next_attempt_at IS NULL",
               "5", 0);
    /* A ping goes to the one subscription even though it does not list 'ping'. */
    c = imx_db_acquire(&why);
    int64_t ping = 0;
    assert_int_equal(imx_webhooks_ping(c, wh, &ping, NULL), 0);
    imx_db_release(c);
    assert_sql(f.db, "SELECT count(*) FROM webhook_deliveries WHERE state = 'delivered'", "6",
               20000);
    log = imx_t_receiver_log(&f.rcv, NULL);
    json_t *last = json_array_get(log, 5);
    assert_non_null(strstr(json_string_value(json_object_get(last, "body")), "\"ping\""));
    assert_true(json_is_true(json_array_get(json_object_get(last, "verified"), 1)));
    json_decref(log);
    /* Redeliver sends the same message (same webhook-id) again. */
    c = imx_db_acquire(&why);
    /* Both in one transaction: a dispatcher woken by the first could otherwise deliver it
     * before the second call looks. */
    assert_int_equal(imx_db_command(c, "BEGIN"), 0);
    assert_int_equal(imx_webhooks_redeliver(c, ping, NULL), IMX_DBS_OK);
    assert_int_equal(imx_webhooks_redeliver(c, ping, NULL),
                     IMX_DBS_NOT_FOUND); /* pending already */
    assert_int_equal(imx_db_command(c, "COMMIT"), 0);
    imx_db_release(c);
    assert_sql(f.db, "SELECT count(*) FROM webhook_attempts", "7", 20000);
    log = imx_t_receiver_log(&f.rcv, NULL);
    assert_int_equal(json_array_size(log), 7);
    assert_string_equal(json_string_value(json_object_get(json_array_get(log, 6), "id")),
                        json_string_value(json_object_get(json_array_get(log, 5), "id")));
    json_decref(log);

    assert_int_equal(imx_t_server_stop(&srv, SIGTERM, 15), 0);
    teardown(&f);
}

static void receiver_down_then_up_gets_every_event_once_in_order(void **state)
{
    (void)state;
    struct fixture f;
    struct env e;
    struct imx_srv srv;
    char url[128], secret[IMX_WEBHOOK_SECRET_LEN + 1];
    setup(&f, "wh_down");
    snprintf(url, sizeof url, "http://127.0.0.1:%u/down", f.rcv.port);
    add_webhook(f.db, f.team, url, "{image.published}", secret);
    assert_int_equal(
        imx_t_server_start(&srv, f.db,
                           server_env(&e, f.rcv.port, "1,1,1,1,1,1,1,1,1,1,1,1", "5000", "432000")),
        0);
    long long ids[10];
    for (int i = 0; i < 10; i++)
        enqueue(f.team, "image.published", 1, ids + i);
    /* The receiver is down: attempts fail (connection refused) and are retried. */
    assert_sql(f.db, "SELECT count(*) >= 2 FROM webhook_attempts WHERE status_code IS NULL", "t",
               20000);
    assert_int_equal(imx_t_receiver_start(&f.rcv), 0);
    assert_sql(f.db, "SELECT count(*) FROM webhook_deliveries WHERE state = 'delivered'", "10",
               60000);
    json_t *log = imx_t_receiver_log(&f.rcv, NULL);
    assert_int_equal(json_array_size(log), 10);
    for (size_t i = 0; i < 10; i++) {
        char want[32];
        snprintf(want, sizeof want, "msg_%lld", ids[i]);
        assert_string_equal(json_string_value(json_object_get(json_array_get(log, i), "id")), want);
    }
    json_decref(log);
    assert_int_equal(imx_t_server_stop(&srv, SIGTERM, 15), 0);
    teardown(&f);
}

static void kill_9_before_delivery_is_delivered_after_restart(void **state)
{
    (void)state;
    struct fixture f;
    struct env e;
    struct imx_srv a, b;
    char url[128], secret[IMX_WEBHOOK_SECRET_LEN + 1];
    setup(&f, "wh_kill");
    assert_int_equal(imx_t_receiver_start(&f.rcv), 0);
    imx_t_receiver_control(&f.rcv, "{\"modes\": {\"/k\": {\"hang\": 1}}}");
    snprintf(url, sizeof url, "http://127.0.0.1:%u/k", f.rcv.port);
    add_webhook(f.db, f.team, url, "{image.revoked}", secret);
    const char *const *env = server_env(&e, f.rcv.port, "1,1,1", "2000", "432000");
    assert_int_equal(imx_t_server_start(&a, f.db, env), 0);
    long long ids[2];
    enqueue(f.team, "image.revoked", 1, ids);
    /* The first post is in flight (the receiver holds it) when the server dies. */
    for (int i = 0; i < 100; i++) {
        json_t *log = imx_t_receiver_log(&f.rcv, NULL);
        size_t n = json_array_size(log);
        json_decref(log);
        if (n == 1)
            break;
        imx_t_sleep_ms(50);
    }
    assert_int_equal(imx_t_server_stop(&a, SIGKILL, 5), 128 + SIGKILL);
    /* Another event is committed while no server runs. */
    enqueue(f.team, "image.revoked", 1, ids + 1);
    assert_sql(f.db, "SELECT count(*) FROM webhook_attempts", "0", 0);

    assert_int_equal(imx_t_server_start(&b, f.db, env), 0);
    /* The dead server's lease runs out, then both are delivered, each answered once. */
    assert_sql(f.db, "SELECT count(*) FROM webhook_deliveries WHERE state = 'delivered'", "2",
               40000);
    json_t *log = imx_t_receiver_log(&f.rcv, NULL);
    assert_int_equal(count_entries(log, "/k", -1), 1);
    assert_int_equal(count_entries(log, "/k", 200), 2);
    char want[32];
    snprintf(want, sizeof want, "msg_%lld", ids[0]);
    assert_string_equal(json_string_value(json_object_get(json_array_get(log, 1), "id")), want);
    snprintf(want, sizeof want, "msg_%lld", ids[1]);
    assert_string_equal(json_string_value(json_object_get(json_array_get(log, 2), "id")), want);
    json_decref(log);
    assert_int_equal(imx_t_server_stop(&b, SIGTERM, 15), 0);
    teardown(&f);
}

static void two_servers_deliver_1000_events_exactly_once(void **state)
{
    (void)state;
    struct fixture f;
    struct env e;
    struct imx_srv a, b;
    char url[128], secret[IMX_WEBHOOK_SECRET_LEN + 1], ctl[2048] = "{\"secrets\": {";
    enum { SUBS = 4, EVENTS = 1000 };
    setup(&f, "wh_two");
    assert_int_equal(imx_t_receiver_start(&f.rcv), 0);
    for (int i = 0; i < SUBS; i++) {
        snprintf(url, sizeof url, "http://127.0.0.1:%u/p%d", f.rcv.port, i);
        add_webhook(f.db, f.team, url, "{image.published}", secret);
        snprintf(ctl + strlen(ctl), sizeof ctl - strlen(ctl), "%s\"/p%d\": [\"%s\"]", i ? ", " : "",
                 i, secret);
    }
    strcat(ctl, "}}");
    imx_t_receiver_control(&f.rcv, ctl);
    const char *const *env = server_env(&e, f.rcv.port, "1,1,1", "5000", "432000");
    assert_int_equal(imx_t_server_start(&a, f.db, env), 0);
    assert_int_equal(imx_t_server_start(&b, f.db, env), 0);
    for (int i = 0; i < EVENTS / 100; i++)
        enqueue(f.team, "image.published", 100, NULL);
    assert_sql(f.db, "SELECT count(*) FROM webhook_deliveries WHERE state = 'delivered'", "4000",
               240000);

    json_t *log = imx_t_receiver_log(&f.rcv, NULL);
    assert_int_equal(json_array_size(log), SUBS * EVENTS);
    /* Each (subscription, webhook-id) arrived once, verified, and in event order. */
    size_t i;
    json_t *en;
    long long last[SUBS] = { 0 };
    json_array_foreach(log, i, en)
    {
        const char *path = json_string_value(json_object_get(en, "path"));
        int p = path[2] - '0';
        long long id = atoll(json_string_value(json_object_get(en, "id")) + 4);
        assert_true(json_is_true(json_array_get(json_object_get(en, "verified"), 0)));
        assert_true(id > last[p]);
        last[p] = id;
    }
    json_decref(log);
    assert_sql(f.db, "SELECT count(*) FROM webhook_attempts", "4000", 0);
    /* Both servers took part. */
    assert_sql(f.db, "SELECT count(DISTINCT split_part(worker, ':', 2)) FROM webhook_attempts", "2",
               0);
    assert_int_equal(imx_t_server_stop(&a, SIGTERM, 15), 0);
    assert_int_equal(imx_t_server_stop(&b, SIGTERM, 15), 0);
    teardown(&f);
}

static void redirects_hangs_and_local_addresses_are_refused(void **state)
{
    (void)state;
    struct fixture f;
    struct env e;
    struct imx_srv srv;
    char url[512], secret[IMX_WEBHOOK_SECRET_LEN + 1], ctl[512], host[256];
    setup(&f, "wh_guard");
    assert_int_equal(imx_t_receiver_start(&f.rcv), 0);
    snprintf(ctl, sizeof ctl,
             "{\"modes\": {\"/redirect\": {\"status\": 302, \"headers\": {\"Location\": "
             "\"http://127.0.0.1:%u/target\"}}, \"/hang\": {\"hang\": 100}}}",
             f.rcv.port);
    imx_t_receiver_control(&f.rcv, ctl);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/hang", f.rcv.port);
    long long hang = add_webhook(f.db, f.team, url, "{image.published}", secret);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/redirect", f.rcv.port);
    long long redirect = add_webhook(f.db, f.team, url, "{image.published}", secret);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/ok", f.rcv.port);
    long long ok = add_webhook(f.db, f.team, url, "{image.published}", secret);
    /* Stored behind the creation check's back: refused again when sent. */
    long long meta = add_webhook(f.db, f.team, "https://169.254.169.254/latest/meta-data/",
                                 "{image.published}", secret);
    /* A name (not a literal) that resolves to loopback: only the connect-time guard sees it. */
    long long named = 0;
    struct addrinfo *ai = NULL;
    if (gethostname(host, sizeof host) == 0 && getaddrinfo(host, NULL, NULL, &ai) == 0 &&
        ai->ai_family == AF_INET &&
        (ntohl(((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr) >> 24) == 127) {
        snprintf(url, sizeof url, "https://%s:%u/named", host, f.rcv.port);
        named = add_webhook(f.db, f.team, url, "{image.published}", secret);
    }
    if (ai)
        freeaddrinfo(ai);

    assert_int_equal(
        imx_t_server_start(&srv, f.db, server_env(&e, f.rcv.port, "1", "1000", "432000")), 0);
    enqueue(f.team, "image.published", 1, NULL);
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM webhook_deliveries WHERE state = 'failed' AND webhook_id <> "
             "%lld",
             ok);
    assert_sql(f.db, sql, named ? "4" : "3", 30000);

    /* The hung receiver was cut off by the timeout; the others went on meanwhile. */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = "
             "a.delivery_id WHERE d.webhook_id = %lld AND a.error LIKE '%%timed out%%' AND "
             "a.latency_ms BETWEEN 900 AND 5000",
             hang);
    assert_sql(f.db, sql, "2", 0);
    snprintf(sql, sizeof sql,
             "SELECT (SELECT delivered_at FROM webhook_deliveries WHERE webhook_id = %lld) < "
             "(SELECT min(started_at + make_interval(secs => latency_ms / 1000.0)) FROM "
             "webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE "
             "d.webhook_id = %lld)",
             ok, hang);
    assert_sql(f.db, sql, "t", 0);
    /* The redirect counted as a failure and was not followed. */
    snprintf(sql, sizeof sql,
             "SELECT string_agg(DISTINCT a.status_code || ' ' || a.error, ';') FROM "
             "webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE "
             "d.webhook_id = %lld",
             redirect);
    assert_sql(f.db, sql, "302 HTTP 302: redirects are not followed", 0);
    json_t *log = imx_t_receiver_log(&f.rcv, NULL);
    assert_int_equal(count_entries(log, "/target", 0), 0);
    assert_int_equal(count_entries(log, "/redirect", 302), 2);
    assert_int_equal(count_entries(log, "/ok", 200), 1);
    assert_int_equal(count_entries(log, "/named", 0), 0);
    json_decref(log);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = "
             "a.delivery_id WHERE d.webhook_id = %lld AND a.error LIKE 'URL refused: %%link-local "
             "or cloud metadata%%'",
             meta);
    assert_sql(f.db, sql, "2", 0);
    if (named) {
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = "
                 "a.delivery_id WHERE d.webhook_id = %lld AND a.error LIKE 'refused to connect "
                 "to a loopback address%%'",
                 named);
        assert_sql(f.db, sql, "2", 0);
    }
    assert_int_equal(imx_t_server_stop(&srv, SIGTERM, 15), 0);
    teardown(&f);
}

static void gone_throttled_and_failing_endpoints(void **state)
{
    (void)state;
    struct fixture f;
    struct env e;
    struct imx_srv srv;
    char url[256], secret[IMX_WEBHOOK_SECRET_LEN + 1], sql[1024];
    setup(&f, "wh_retry");
    assert_int_equal(imx_t_receiver_start(&f.rcv), 0);
    imx_t_receiver_control(&f.rcv, "{\"modes\": {\"/gone\": {\"status\": 410}, "
                                   "\"/throttle\": {\"seq\": [429], \"headers\": {\"Retry-After\": "
                                   "\"3\"}}, \"/fail\": {\"status\": 500}}}");
    snprintf(url, sizeof url, "http://127.0.0.1:%u/gone", f.rcv.port);
    long long gone = add_webhook(f.db, f.team, url, "{image.deprecated}", secret);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/throttle", f.rcv.port);
    long long throttle = add_webhook(f.db, f.team, url, "{image.deprecated}", secret);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/fail", f.rcv.port);
    long long failing = add_webhook(f.db, f.team, url, "{image.deprecated}", secret);
    /* Retries after 1, 2, 3 s; a subscription failing for 5 s is disabled. */
    assert_int_equal(
        imx_t_server_start(&srv, f.db, server_env(&e, f.rcv.port, "1,2,3", "5000", "5")), 0);
    enqueue(f.team, "image.deprecated", 1, NULL);

    /* 410: one attempt, the subscription is disabled with its reason, and gets no more. */
    snprintf(sql, sizeof sql,
             "SELECT enabled || ' ' || disabled_reason FROM webhooks WHERE id = %lld", gone);
    assert_sql(f.db, sql, "false the endpoint answered 410 Gone", 10000);

    /* 429 with Retry-After: 3 waits 3 s, not the schedule's 1 s, then succeeds. */
    snprintf(sql, sizeof sql,
             "SELECT string_agg(coalesce(a.status_code, 0)::text, ',' ORDER BY a.id) FROM "
             "webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE "
             "d.webhook_id = %lld",
             throttle);
    assert_sql(f.db, sql, "429,200", 15000);
    snprintf(sql, sizeof sql,
             "SELECT extract(epoch FROM max(a.started_at) - min(a.started_at)) BETWEEN 2.95 AND "
             "4.5 FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id "
             "WHERE d.webhook_id = %lld",
             throttle);
    assert_sql(f.db, sql, "t", 0);

    /* 500 forever: attempts 1 s, 2 s, 3 s apart (+-10% jitter, polling slack), then failed; by
     * then it has failed for over 5 s, so the subscription is disabled too. */
    snprintf(sql, sizeof sql, "SELECT state FROM webhook_deliveries WHERE webhook_id = %lld",
             failing);
    assert_sql(f.db, sql, "failed", 20000);
    snprintf(sql, sizeof sql,
             "SELECT string_agg(CASE WHEN g BETWEEN 0.9 * want - 0.05 AND 1.1 * want + 0.6 THEN "
             "'ok' ELSE g::text END, ',' ORDER BY n) FROM (SELECT n, extract(epoch FROM "
             "started_at - lag(started_at) OVER (ORDER BY id)) AS g, (ARRAY[0,1,2,3])[n] AS want "
             "FROM (SELECT a.*, row_number() OVER (ORDER BY a.id) AS n FROM webhook_attempts a "
             "JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = %lld) x) y "
             "WHERE n > 1",
             failing);
    assert_sql(f.db, sql, "ok,ok,ok", 0);
    snprintf(sql, sizeof sql,
             "SELECT enabled || ' ' || (disabled_reason LIKE 'every delivery failed since %%HTTP "
             "500)') FROM webhooks WHERE id = %lld",
             failing);
    assert_sql(f.db, sql, "false true", 0);

    /* Disabled subscriptions get nothing new; the healthy one does. */
    enqueue(f.team, "image.deprecated", 1, NULL);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM webhook_deliveries WHERE webhook_id IN (%lld, %lld)", gone,
             failing);
    assert_sql(f.db, sql, "2", 0);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM webhook_deliveries WHERE webhook_id = %lld AND state = "
             "'delivered'",
             throttle);
    assert_sql(f.db, sql, "2", 10000);
    json_t *log = imx_t_receiver_log(&f.rcv, NULL);
    assert_int_equal(count_entries(log, "/gone", 0), 1);
    assert_int_equal(count_entries(log, "/fail", 500), 4);
    json_decref(log);
    assert_int_equal(imx_t_server_stop(&srv, SIGTERM, 15), 0);
    teardown(&f);
}

static void worker_subcommand_delivers_without_http(void **state)
{
    (void)state;
    struct fixture f;
    struct env e;
    char url[128], secret[IMX_WEBHOOK_SECRET_LEN + 1];
    setup(&f, "wh_worker");
    assert_int_equal(imx_t_receiver_start(&f.rcv), 0);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/w", f.rcv.port);
    add_webhook(f.db, f.team, url, "{request.updated}", secret);
    const char *const *env = server_env(&e, f.rcv.port, "1", "5000", "432000");
    char envs[1024] = "";
    for (size_t i = 0; env[i]; i++)
        snprintf(envs + strlen(envs), sizeof envs - strlen(envs), "%s ", env[i]);
    char worker_log[800];
    snprintf(worker_log, sizeof worker_log, "%s.worker", f.rcv.log);
    pid_t pid = imx_t_fork(worker_log);
    assert_true(pid >= 0);
    if (pid == 0) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "exec env %s IMAXE_DATABASE_URL='%s' '%s' worker", envs, f.db,
                 getenv("IMX_TEST_SERVER"));
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    enqueue(f.team, "request.updated", 3, NULL);
    assert_sql(f.db, "SELECT count(*) FROM webhook_deliveries WHERE state = 'delivered'", "3",
               20000);
    kill(pid, SIGTERM);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    teardown(&f);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(signatures_verify_with_standardwebhooks_across_rotation),
        cmocka_unit_test(receiver_down_then_up_gets_every_event_once_in_order),
        cmocka_unit_test(kill_9_before_delivery_is_delivered_after_restart),
        cmocka_unit_test(two_servers_deliver_1000_events_exactly_once),
        cmocka_unit_test(redirects_hangs_and_local_addresses_are_refused),
        cmocka_unit_test(gone_throttled_and_failing_endpoints),
        cmocka_unit_test(worker_subcommand_delivers_without_http),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
