/* Webhook events end to end, over HTTP only: the real server publishes images, advisories, pins
 * and requests; a Node receiver verifies every delivery with the standardwebhooks npm package.
 * patch.available reaches the pin's team once per (pin, advisory) and the teams subscribed to the
 * family once per (family, advisory, fix), never anyone else and never twice; an advisory
 * published after its fix announces it at once; a cascade revocation is one event per image;
 * every request transition is an event. Also resolve through a pin and compare's costs. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], pub[4096], alice[4096], bob[4096], carol[4096], dave[4096];
static struct imx_rcv rcv;
static long long wh_a, wh_b, wh_c;

/* --- The Node receiver (tests/integration/webhook_receiver.js) --- */

static void receiver_secret(const char *path, const char *secret)
{
    char ctl[256];
    snprintf(ctl, sizeof ctl, "{\"secrets\": {\"%s\": [\"%s\"]}}", path, secret);
    imx_t_receiver_control(&rcv, ctl);
}

/* The events the receiver got on path of type (NULL: any), as parsed bodies in arrival order
 * (new array). Every one must carry a signature the standardwebhooks package accepted. */
static json_t *received(const char *path, const char *type)
{
    json_t *all = json_array(), *log = imx_t_receiver_log(&rcv, path), *e;
    size_t i;
    json_array_foreach(log, i, e)
    {
        assert_true(json_is_true(json_array_get(json_object_get(e, "verified"), 0)));
        json_t *body = json_loads(json_string_value(json_object_get(e, "body")), 0, NULL);
        assert_non_null(body);
        assert_string_equal(json_string_value(json_object_get(body, "id")),
                            json_string_value(json_object_get(e, "id")));
        if (!type || strcmp(json_string_value(json_object_get(body, "type")), type) == 0)
            json_array_append_new(all, body);
        else
            json_decref(body);
    }
    json_decref(log);
    return all;
}

/* Waits until path has received at least n events of type; returns them (new). */
static json_t *wait_received(const char *path, const char *type, size_t n)
{
    for (int i = 0; i < 150; i++) {
        json_t *got = received(path, type);
        if (json_array_size(got) >= n)
            return got;
        json_decref(got);
        imx_t_sleep_ms(100);
    }
    json_t *got = received(path, type);
    fail_msg("%s: %zu %s events, expected %zu", path, json_array_size(got), type ? type : "", n);
    return got;
}

/* --- HTTP helpers --- */

static struct imx_res call(const char *token, const char *method, const char *path,
                           const char *body, long status)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, method, path, body, &res), 0);
    if (res.status != status)
        fail_msg("%s %s: expected %ld, got %ld: %s", method, path, status, res.status, res.body);
    return res;
}

static long long call_id(const char *token, const char *method, const char *path, const char *body,
                         long status)
{
    struct imx_res res = call(token, method, path, body, status);
    long long id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    return id;
}

/* Subscribes team to the receiver's path; returns the subscription id. */
static long long subscribe(const char *token, const char *team, const char *path, const char *rest)
{
    char body[1024];
    snprintf(body, sizeof body, "{\"team\":\"%s\",\"url\":\"http://127.0.0.1:%u%s\",%s}", team,
             rcv.port, path, rest);
    struct imx_res res = call(token, "POST", "/v1/webhooks", body, 201);
    long long id = json_integer_value(json_object_get(res.json, "id"));
    receiver_secret(path, json_string_value(json_object_get(res.json, "secret")));
    imx_t_res_free(&res);
    return id;
}

/* How many deliveries of type the subscription has (the outbox rows, written with the change, so
 * exact as soon as the change's response came). */
static size_t deliveries(const char *token, long long webhook, const char *type)
{
    char path[96];
    snprintf(path, sizeof path, "/v1/webhooks/%lld/deliveries?limit=200", webhook);
    struct imx_res res = call(token, "GET", path, NULL, 200);
    size_t i, n = 0;
    json_t *d;
    json_array_foreach(json_object_get(res.json, "items"), i, d)
    {
        if (strcmp(json_string_value(json_object_get(d, "event_type")), type) == 0)
            n++;
    }
    assert_true(json_is_null(json_object_get(res.json, "next_cursor")));
    imx_t_res_free(&res);
    return n;
}

/* Publishes family/version (team catalog) with driver; parent 0 for none. Returns the id. */
static long long publish(const char *family, const char *version, const char *driver,
                         long long parent)
{
    json_t *m =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:s, s:[{s:s, s:s}],"
                  " s:[{s:s, s:s}, {s:s, s:s}], s:[s], s:i}",
                  "team", "catalog", "family", family, "version", version, "provider", "aws",
                  "architecture", "x86_64", "os", "name", "ubuntu", "version", "24.04", "layer",
                  parent ? "model" : "platform", "artifacts", "region", "us-east-1", "id",
                  "ami-0123456789abcdef0", "components", "name", "nvidia-driver", "version", driver,
                  "name", "cuda", "version", "13.0.2", "gpus", "H100", "boot_seconds", 60);
    if (parent)
        json_object_set_new(m, "parent", json_integer(parent));
    char *text = json_dumps(m, JSON_COMPACT);
    json_decref(m);
    long long id = call_id(pub, "POST", "/v1/images", text, 201);
    free(text);
    return id;
}

static void advisory(const char *id, const char *severity, const char *range, const char *cve)
{
    char body[1024];
    snprintf(body, sizeof body,
             "{\"id\":\"%s\",\"title\":\"Driver bulletin %s\",\"published\":\"2026-01-20\","
             "\"severity\":\"%s\",\"cves\":[\"%s\"],\"affected\":[{\"component\":"
             "\"nvidia-driver\",\"range\":\"%s\"}]}",
             id, id, severity, cve, range);
    struct imx_res res = call(admin, "POST", "/v1/advisories", body, 201);
    imx_t_res_free(&res);
}

static void change_status(const char *token, long long id, bool cascade)
{
    char path[64], etag[128], ifm[160];
    snprintf(path, sizeof path, "/v1/images/%lld", id);
    struct imx_res res = call(token, "GET", path, NULL, 200);
    assert_non_null(imx_t_header(&res, "ETag", etag, sizeof etag));
    imx_t_res_free(&res);
    snprintf(ifm, sizeof ifm, "If-Match: %s", etag);
    char auth[4200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    const char *headers[] = { auth, ifm, "Content-Type: application/json", NULL };
    assert_int_equal(imx_t_http(&srv, "PATCH", path, headers,
                                cascade ? "{\"status\":\"revoked\",\"reason\":\"bad\","
                                          "\"cascade\":true}"
                                        : "{\"status\":\"deprecated\"}",
                                &res),
                     0);
    if (res.status != 200)
        fail_msg("PATCH %s: %ld %s", path, res.status, res.body);
    imx_t_res_free(&res);
}

static const char *str_at(const json_t *j, const char *a, const char *b)
{
    const json_t *v = json_object_get(j, a);
    return json_string_value(b ? json_object_get(v, b) : v);
}

static long long int_at(const json_t *j, const char *a, const char *b)
{
    const json_t *v = json_object_get(j, a);
    return json_integer_value(b ? json_object_get(v, b) : v);
}

/* How many patch.available events in evs have kind, family, the pin name (NULL: none) and the
 * advisory. */
static size_t count_patch(const json_t *evs, const char *kind, const char *family, const char *pin,
                          const char *adv)
{
    size_t i, n = 0;
    json_t *e;
    json_array_foreach(evs, i, e)
    {
        json_t *d = json_object_get(e, "data");
        const char *p = str_at(d, "pin", "name");
        if (strcmp(str_at(d, "kind", NULL), kind) == 0 &&
            strcmp(str_at(d, "family", NULL), family) == 0 &&
            ((!pin && !p) || (pin && p && strcmp(pin, p) == 0)) &&
            strcmp(str_at(json_array_get(json_object_get(d, "advisories"), 0), "id", NULL), adv) ==
                0)
            n++;
    }
    return n;
}

static int setup(void **state)
{
    (void)state;
    if (imx_t_receiver_init(&rcv, "events") != 0 || imx_t_receiver_start(&rcv) != 0)
        return -1;
    char allow[64];
    const char *env[IMX_T_RECEIVER_ENV_MAX];
    static const char *const extra[] = { "IMAXE_WEBHOOK_TIMEOUT_MS=3000", "IMAXE_WEBHOOK_WORKERS=2",
                                         "IMAXE_SHUTDOWN_TIMEOUT_S=3", NULL };
    imx_t_receiver_env(&rcv, extra, env, allow);
    if (imx_t_server_up(&srv, "events", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    /* The first team created is the catalog team (requests go to it). */
    if (imx_t_user(&srv, admin, "catalog", "pub@cat.test", "publisher", pub, sizeof pub) != 0 ||
        imx_t_user(&srv, admin, "team-a", "alice@a.test", "admin", alice, sizeof alice) != 0 ||
        imx_t_user(&srv, admin, "team-b", "bob@b.test", "admin", bob, sizeof bob) != 0 ||
        imx_t_user(&srv, admin, "team-c", "carol@c.test", "admin", carol, sizeof carol) != 0 ||
        imx_t_user(&srv, admin, "team-d", "dave@d.test", "viewer", dave, sizeof dave) != 0)
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

static void patch_available_once_to_the_pin_team_and_family_subscribers(void **state)
{
    (void)state;
    /* team-a: its pins' events and family events for the families it lists; team-b: every
     * catalog event but lists no family; team-c: a family it never hears about. */
    wh_a = subscribe(alice, "team-a", "/a",
                     "\"events\":[\"patch.available\",\"pin.moved\",\"request.updated\"],"
                     "\"families\":[\"ev-e\",\"ev-f\"]");
    wh_b = subscribe(bob, "team-b", "/b",
                     "\"events\":[\"patch.available\",\"image.published\",\"image.deprecated\","
                     "\"image.revoked\",\"advisory.published\",\"pin.moved\",\"request.updated\"]");
    wh_c = subscribe(carol, "team-c", "/c",
                     "\"events\":[\"patch.available\"],\"families\":[\"ev-other\"]");

    long long e1 = publish("ev-e", "1", "580.82.07", 0);
    char body[512];
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"name\":\"prod\",\"image\":%lld,\"constraints\":"
             "[{\"component\":\"nvidia-driver\",\"range\":\"~580\"}]}",
             e1);
    long long prod = call_id(alice, "POST", "/v1/pins", body, 201);
    advisory("EV-1", "high", ">=580,<580.95.05", "CVE-2026-1001");
    assert_int_equal(deliveries(alice, wh_a, "patch.available"), 0); /* no fix yet */

    /* The fix: one pin event and one family event to team-a; nothing to b or c. */
    long long e2 = publish("ev-e", "2", "580.95.05", 0);
    assert_int_equal(deliveries(alice, wh_a, "patch.available"), 2);
    assert_int_equal(deliveries(bob, wh_b, "patch.available"), 0);
    assert_int_equal(deliveries(carol, wh_c, "patch.available"), 0);
    json_t *evs = wait_received("/a", "patch.available", 2);
    assert_int_equal(count_patch(evs, "pin", "ev-e", "prod", "EV-1"), 1);
    assert_int_equal(count_patch(evs, "family", "ev-e", NULL, "EV-1"), 1);
    size_t i;
    json_t *e;
    json_array_foreach(evs, i, e)
    {
        json_t *d = json_object_get(e, "data");
        assert_int_equal(int_at(d, "image", "id"), e1);
        assert_int_equal(int_at(d, "fixed_by", "id"), e2);
        assert_string_equal(str_at(json_object_get(d, "fixed_by"), "artifacts", "us-east-1"),
                            "ami-0123456789abcdef0");
        json_t *adv = json_array_get(json_object_get(d, "advisories"), 0);
        assert_string_equal(str_at(adv, "severity", NULL), "high");
        assert_string_equal(json_string_value(json_array_get(json_object_get(adv, "cves"), 0)),
                            "CVE-2026-1001");
        if (strcmp(str_at(d, "kind", NULL), "pin") == 0) {
            assert_string_equal(str_at(d, "team", NULL), "team-a");
            assert_int_equal(int_at(d, "pin", "id"), prod);
        } else {
            assert_true(json_is_null(json_object_get(d, "pin")));
        }
    }
    json_decref(evs);

    /* Publishing again (a newer fix) and rebuilding every patch status from scratch announce
     * nothing new. */
    long long e3 = publish("ev-e", "3", "580.105.08", 0);
    char *v = imx_t_sql(db, "SELECT imx_patch_rebuild()");
    assert_non_null(v);
    free(v);
    assert_int_equal(deliveries(alice, wh_a, "patch.available"), 2);

    /* pin.moved to team-a only; after it arrives every earlier /a delivery has (FIFO). */
    char path[64];
    snprintf(path, sizeof path, "/v1/pins/%lld", prod);
    snprintf(body, sizeof body, "{\"image\":%lld}", e3);
    struct imx_res res = call(alice, "PUT", path, body, 200);
    imx_t_res_free(&res);
    evs = wait_received("/a", "pin.moved", 1);
    assert_int_equal(int_at(json_object_get(json_array_get(evs, 0), "data"), "from_image", "id"),
                     e1);
    assert_int_equal(int_at(json_object_get(json_array_get(evs, 0), "data"), "to_image", "id"), e3);
    json_decref(evs);
    assert_int_equal(deliveries(bob, wh_b, "pin.moved"), 0);

    /* Advisory after the fix exists: announced when the advisory is published. ev-f/2 fixes
     * EV-1 (family event now) and, later, EV-2 for the pin "edge" made after ev-f/2. */
    long long f1 = publish("ev-f", "1", "580.82.07", 0);
    publish("ev-f", "2", "580.95.05", 0);
    assert_int_equal(deliveries(alice, wh_a, "patch.available"), 3);
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"edge\",\"image\":%lld}", f1);
    call_id(alice, "POST", "/v1/pins", body, 201);
    assert_int_equal(deliveries(alice, wh_a, "patch.available"), 3);
    advisory("EV-2", "critical", ">=580,<580.90", "CVE-2026-1002");
    /* edge (pin), ev-f and ev-e (families: ev-e/1 is affected, fixed by ev-e/2). */
    assert_int_equal(deliveries(alice, wh_a, "patch.available"), 6);
    assert_int_equal(deliveries(bob, wh_b, "patch.available"), 0);
    assert_int_equal(deliveries(carol, wh_c, "patch.available"), 0);
    evs = wait_received("/a", "patch.available", 6);
    assert_int_equal(json_array_size(evs), 6);
    assert_int_equal(count_patch(evs, "pin", "ev-f", "edge", "EV-2"), 1);
    assert_int_equal(count_patch(evs, "family", "ev-f", NULL, "EV-1"), 1);
    assert_int_equal(count_patch(evs, "family", "ev-f", NULL, "EV-2"), 1);
    assert_int_equal(count_patch(evs, "family", "ev-e", NULL, "EV-2"), 1);
    json_decref(evs);

    /* advisory.published and image.published reach team-b, each once, with severity. */
    evs = wait_received("/b", "advisory.published", 2);
    assert_int_equal(json_array_size(evs), 2);
    assert_string_equal(
        str_at(json_object_get(json_object_get(json_array_get(evs, 1), "data"), "advisory"),
               "severity", NULL),
        "critical");
    json_decref(evs);
    assert_int_equal(deliveries(bob, wh_b, "image.published"), 5);
    evs = wait_received("/b", "image.published", 5);
    assert_string_equal(str_at(json_object_get(json_array_get(evs, 0), "data"), "image", "team"),
                        "catalog");
    json_decref(evs);
}

static void revocation_cascade_is_one_event_per_image(void **state)
{
    (void)state;
    long long p = publish("ev-p", "1", "580.95.05", 0);
    long long m1 = publish("ev-m", "1", "580.95.05", p);
    long long m2 = publish("ev-m2", "1", "580.95.05", m1);
    long long dep = publish("ev-d", "1", "580.95.05", 0);
    change_status(pub, dep, false);
    assert_int_equal(deliveries(bob, wh_b, "image.deprecated"), 1);
    change_status(pub, p, true);
    assert_int_equal(deliveries(bob, wh_b, "image.revoked"), 3);
    json_t *evs = wait_received("/b", "image.revoked", 3);
    long long seen[3];
    for (size_t i = 0; i < 3; i++) {
        json_t *d = json_object_get(json_array_get(evs, i), "data");
        seen[i] = int_at(d, "image", "id");
        assert_int_equal(int_at(d, "cause_image_id", NULL), p);
        assert_string_equal(str_at(d, "image", "status"), "revoked");
    }
    assert_int_equal(seen[0], p);
    assert_int_equal(seen[1], m1);
    assert_int_equal(seen[2], m2);
    json_decref(evs);
}

static void request_updated_on_every_change(void **state)
{
    (void)state;
    long long id = call_id(alice, "POST", "/v1/requests",
                           "{\"team\":\"team-a\",\"title\":\"R590\",\"constraints\":"
                           "[{\"component\":\"nvidia-driver\",\"range\":\"~590\"}]}",
                           201);
    /* A published image that satisfies the open request is news to the requester. */
    long long img = publish("ev-r", "1", "590.44.01", 0);
    char path[64], body[128];
    snprintf(path, sizeof path, "/v1/requests/%lld/transitions", id);
    struct imx_res res = call(pub, "POST", path, "{\"to\":\"approved\"}", 200);
    imx_t_res_free(&res);
    res = call(pub, "POST", path, "{\"to\":\"building\"}", 200);
    imx_t_res_free(&res);
    snprintf(body, sizeof body, "{\"to\":\"fulfilled\",\"image\":%lld}", img);
    res = call(pub, "POST", path, body, 200);
    imx_t_res_free(&res);
    assert_int_equal(deliveries(alice, wh_a, "request.updated"), 5);
    assert_int_equal(deliveries(bob, wh_b, "request.updated"), 0);
    json_t *evs = wait_received("/a", "request.updated", 5);
    static const char *const changes[][3] = { { "created", NULL, "open" },
                                              { "matched", "open", "open" },
                                              { "transition", "open", "approved" },
                                              { "transition", "approved", "building" },
                                              { "transition", "building", "fulfilled" } };
    for (size_t i = 0; i < 5; i++) {
        json_t *d = json_object_get(json_array_get(evs, i), "data");
        assert_string_equal(str_at(d, "change", NULL), changes[i][0]);
        if (changes[i][1])
            assert_string_equal(str_at(d, "from", NULL), changes[i][1]);
        else
            assert_true(json_is_null(json_object_get(d, "from")));
        assert_string_equal(str_at(d, "to", NULL), changes[i][2]);
        assert_int_equal(int_at(d, "request", "id"), id);
        assert_string_equal(str_at(d, "request", "team"), "team-a");
    }
    assert_int_equal(int_at(json_object_get(json_array_get(evs, 1), "data"), "image", "id"), img);
    json_decref(evs);
}

static void resolve_through_a_pin(void **state)
{
    (void)state;
    long long g1 = publish("ev-g", "1", "580.95.05", 0);
    char body[256];
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"rs\",\"image\":%lld}", g1);
    call_id(alice, "POST", "/v1/pins", body, 201);
    struct imx_res res =
        call(alice, "GET", "/v1/images/resolve?pin=team-a/rs&region=us-east-1", NULL, 200);
    assert_string_equal(str_at(res.json, "artifact_id", NULL), "ami-0123456789abcdef0");
    assert_int_equal(int_at(res.json, "image", "id"), g1);
    assert_string_equal(str_at(res.json, "pin", "name"), "rs");
    imx_t_res_free(&res);
    /* Another team's pin is not found, nor a missing pin or region; a bad pin is a 400. */
    res = call(bob, "GET", "/v1/images/resolve?pin=team-a/rs&region=us-east-1", NULL, 404);
    imx_t_res_free(&res);
    res = call(alice, "GET", "/v1/images/resolve?pin=team-a/nope&region=us-east-1", NULL, 404);
    imx_t_res_free(&res);
    res = call(alice, "GET", "/v1/images/resolve?pin=team-a/rs&region=eu-west-9", NULL, 404);
    imx_t_res_free(&res);
    res = call(alice, "GET", "/v1/images/resolve?pin=team-a&region=us-east-1", NULL, 400);
    imx_t_res_free(&res);
    res =
        call(alice, "GET", "/v1/images/resolve?pin=team-a/rs&family=x&region=us-east-1", NULL, 400);
    imx_t_res_free(&res);
    /* A revoked image is never returned. */
    change_status(pub, g1, true);
    res = call(alice, "GET", "/v1/images/resolve?pin=team-a/rs&region=us-east-1", NULL, 404);
    assert_non_null(strstr(str_at(res.json, "detail", NULL), "revoked"));
    imx_t_res_free(&res);
}

static void compare_carries_costs_and_patch_status(void **state)
{
    (void)state;
    long long h1 = publish("ev-h", "1", "580.82.07", 0); /* affected by EV-1, EV-2 */
    long long h2 = publish("ev-h", "2", "580.105.08", 0);
    char body[1024], path[96];
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"image\":%lld,\"instance_type\":\"g4dn.xlarge\","
             "\"model\":\"resnet50\",\"precision\":\"fp16\",\"batch_size\":8,"
             "\"throughput_per_s\":100,\"latency_p50_ms\":4,\"latency_p99_ms\":9,"
             "\"boot_seconds\":90,\"measured_at\":\"2026-08-01T00:00:00Z\"}",
             h2);
    struct imx_res res = call(alice, "POST", "/v1/measurements", body, 201);
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/compare?ids=%lld,%lld", h1, h2);
    res = call(alice, "GET", path, NULL, 200);
    json_t *costs = json_object_get(res.json, "costs");
    assert_int_equal(json_array_size(costs), 2);
    assert_int_equal(int_at(json_array_get(costs, 0), "image", NULL), h1);
    assert_int_equal(
        json_object_size(json_object_get(json_array_get(costs, 0), "best_cost_per_1k")), 0);
    json_t *c2 = json_array_get(costs, 1);
    /* 0.526 $/h / (100/s * 3600) * 1000 */
    double want = 0.526 / (100.0 * 3600.0) * 1000.0;
    double got =
        json_number_value(json_object_get(json_object_get(c2, "best_cost_per_1k"), "resnet50"));
    assert_true(got > want * 0.999 && got < want * 1.001);
    assert_int_equal(json_number_value(json_object_get(c2, "boot_seconds_median")), 90);
    size_t i;
    json_t *f, *ps = NULL;
    json_array_foreach(json_object_get(res.json, "fields"), i, f)
    {
        if (strcmp(str_at(f, "name", NULL), "patch_status") == 0)
            ps = f;
    }
    assert_non_null(ps);
    assert_string_equal(json_string_value(json_array_get(json_object_get(ps, "values"), 0)),
                        "patch_available");
    assert_string_equal(json_string_value(json_array_get(json_object_get(ps, "values"), 1)), "ok");
    assert_true(json_is_true(json_object_get(ps, "differs")));
    imx_t_res_free(&res);
    /* Another team's measurements are not the caller's costs. */
    res = call(bob, "GET", path, NULL, 200);
    c2 = json_array_get(json_object_get(res.json, "costs"), 1);
    assert_int_equal(json_object_size(json_object_get(c2, "best_cost_per_1k")), 0);
    assert_true(json_is_null(json_object_get(c2, "boot_seconds_median")));
    imx_t_res_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(patch_available_once_to_the_pin_team_and_family_subscribers),
        cmocka_unit_test(revocation_cascade_is_one_event_per_image),
        cmocka_unit_test(request_updated_on_every_change),
        cmocka_unit_test(resolve_through_a_pin),
        cmocka_unit_test(compare_carries_costs_and_patch_status),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
