/* The fleet end to end: nodes report through the API (one JSON report and NDJSON batches) and
 * through `imaxe probe --report` on the probe fixture root; drift is found and cleared with
 * node.drifted once per change; stale nodes; a node-report token refused everywhere but
 * reporting; history bounded by IMAXE_NODE_HISTORY_DAYS; the list's filters, pages and export;
 * counts per image and pin; one team never sees another's nodes. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], alice[4096], bob[4096];
static char node_token[256];
static long long img_a, img_b, webhook;

/* What the H100 fixture node runs (tests/fixtures/probe), as image A lists it. */
#define COMPONENTS_A                                                                               \
    "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"},{\"name\":\"cuda\",\"version\":"      \
    "\"13.0.2\"}]"

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

/* POSTs an NDJSON body as token; returns the response. */
static struct imx_res ndjson(const char *token, const char *body)
{
    char auth[4200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    const char *h[] = { auth, "Content-Type: application/x-ndjson", NULL };
    struct imx_res res;
    assert_int_equal(imx_t_http(&srv, "POST", "/v1/nodes/reports", h, body, &res), 0);
    return res;
}

/* A report of node name booted from image id with this driver (and the fixture's CUDA). */
static char *report(const char *name, long long id, const char *driver, const char *team)
{
    static char buf[4][2048];
    static int k;
    char *b = buf[k++ % 4];
    snprintf(b, sizeof buf[0],
             "{\"name\":\"%s\",%s%s%s\"image\":{\"id\":%lld},\"instance_type\":\"p5.48xlarge\","
             "\"probe\":{\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":"
             "\"24.04\"},\"gpus\":[\"H100\"],\"node\":{\"gpu_count\":8},\"components\":["
             "{\"name\":\"nvidia-driver\",\"version\":\"%s\"},{\"name\":\"cuda\",\"version\":"
             "\"13.0\"}]}}",
             name, team ? "\"team\":\"" : "", team ? team : "", team ? "\"," : "", id, driver);
    return b;
}

static long long sql_count(const char *sql)
{
    char *v = imx_t_sql(db, sql);
    long long n = v ? strtoll(v, NULL, 10) : -1;
    free(v);
    return n;
}

static json_t *node_get(const char *token, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "/v1/nodes/%s?history=50", name);
    struct imx_res res = call(token, "GET", path, NULL, 200);
    json_t *doc = json_incref(res.json);
    imx_t_res_free(&res);
    return doc;
}

static int setup(void **state)
{
    (void)state;
    static const char *const env[] = { "IMAXE_NODE_HISTORY_DAYS=7", "IMAXE_NODE_STALE_S=600",
                                       "IMAXE_WEBHOOK_WORKERS=0",
                                       "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9", NULL };
    if (imx_t_server_up(&srv, "nodes", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "fleet-a", "alice@a.test", "admin", alice, sizeof alice) != 0 ||
        imx_t_user(&srv, admin, "fleet-b", "bob@b.test", "admin", bob, sizeof bob) != 0)
        return -1;
    img_a = imx_t_publish(&srv, alice, "fleet-a", "gpu-base", "1", COMPONENTS_A, "[\"H100\"]");
    img_b = imx_t_publish(&srv, alice, "fleet-a", "gpu-base", "2",
                          "[{\"name\":\"nvidia-driver\",\"version\":\"580.105.08\"},"
                          "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]",
                          "[\"H100\"]");
    return img_a > 0 && img_b > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

/* A node-report token reports for its team and is refused everywhere else. */
static void node_token_may_only_report(void **state)
{
    (void)state;
    struct imx_res res = call(alice, "POST", "/v1/tokens",
                              "{\"name\":\"nodes\",\"team\":\"fleet-a\",\"role\":\"member\","
                              "\"scope\":\"node-report\"}",
                              201);
    assert_string_equal(json_string_value(json_object_get(res.json, "scope")), "node-report");
    snprintf(node_token, sizeof node_token, "%s",
             json_string_value(json_object_get(res.json, "token")));
    imx_t_res_free(&res);
    expect(alice, "POST", "/v1/tokens",
           "{\"name\":\"x\",\"team\":\"fleet-a\",\"role\":\"member\",\"scope\":\"root\"}", 400);

    res = call(node_token, "POST", "/v1/nodes/reports", report("gpu-1", img_a, "580.95.05", NULL),
               200);
    json_t *item = json_array_get(json_object_get(res.json, "items"), 0);
    assert_true(json_is_true(json_object_get(item, "created")));
    assert_true(json_is_false(json_object_get(item, "drift")));
    imx_t_res_free(&res);

    char path[64];
    snprintf(path, sizeof path, "/v1/images/%lld", img_a);
    static const char *const refused[][2] = {
        { "GET", "/v1/nodes" },    { "GET", "/v1/nodes/gpu-1" },
        { "GET", "/v1/fleet" },    { "GET", "/v1/me" },
        { "GET", "/v1/images" },   { "GET", "/v1/pins" },
        { "GET", "/v1/tokens" },   { "GET", "/v1/advisories" },
        { "GET", "/v1/webhooks" }, { "POST", "/v1/tokens" },
        { "GET", NULL },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        /* Twice: the second may be let in from the principal cache, which must refuse too. */
        for (int k = 0; k < 2; k++) {
            const char *p = refused[i][1] ? refused[i][1] : path;
            struct imx_res r;
            assert_int_equal(imx_t_http_as(&srv, node_token, refused[i][0], p,
                                           strcmp(refused[i][0], "POST") == 0 ? "{}" : NULL, &r),
                             0);
            if (r.status != 403)
                fail_msg("node token %s %s: %ld, expected 403", refused[i][0], p, r.status);
            imx_t_res_free(&r);
        }
    }
    /* It reports only for its own team. */
    expect(node_token, "POST", "/v1/nodes/reports", report("gpu-x", img_a, "580.95.05", "fleet-b"),
           404);
    /* A person names the team; a viewer-only role is not enough anywhere. */
    expect(alice, "POST", "/v1/nodes/reports", report("gpu-y", img_a, "580.95.05", NULL), 400);
    assert_int_equal(sql_count("SELECT count(*) FROM nodes WHERE name IN ('gpu-x', 'gpu-y')"), 0);
}

/* Drift found, kept quiet while unchanged, changed, cleared; node.drifted once per change. */
static void drift_found_and_cleared_once_per_change(void **state)
{
    (void)state;
    struct imx_res res = call(alice, "POST", "/v1/webhooks",
                              "{\"team\":\"fleet-a\",\"url\":\"http://127.0.0.1:9/hook\","
                              "\"events\":[\"node.drifted\"]}",
                              201);
    webhook = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    const char *events = "SELECT count(*) FROM webhook_events WHERE type = 'node.drifted'";
    static const struct {
        const char *driver;
        bool drift;
        long long events;
    } steps[] = {
        { "580.95.05", false, 0 }, /* as the image says */
        { "580.82.07", true, 1 },  /* drifts: one event */
        { "580.82.07", true, 1 },  /* the same drift again: none */
        { "575.57.08", true, 2 },  /* drifts differently: one more */
        { "580.95.05", false, 2 }, /* cleared */
        { "580.82.07", true, 3 },  /* drifts again */
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        res = call(node_token, "POST", "/v1/nodes/reports",
                   report("gpu-2", img_a, steps[i].driver, NULL), 200);
        json_t *item = json_array_get(json_object_get(res.json, "items"), 0);
        if (json_is_true(json_object_get(item, "drift")) != steps[i].drift)
            fail_msg("step %zu: drift %s", i, res.body);
        imx_t_res_free(&res);
        long long n = sql_count(events);
        if (n != steps[i].events)
            fail_msg("step %zu: %lld node.drifted events, expected %lld", i, n, steps[i].events);
    }
    json_t *n = node_get(alice, "gpu-2");
    assert_true(json_is_true(json_object_get(n, "drift")));
    json_t *row = json_array_get(json_object_get(n, "drift_items"), 0);
    assert_string_equal(json_string_value(json_object_get(row, "name")), "nvidia-driver");
    assert_string_equal(json_string_value(json_object_get(row, "node")), "580.82.07");
    assert_string_equal(json_string_value(json_object_get(row, "image")), "580.95.05");
    /* History: a row per change (5 distinct reports in 6), none for the repeat. */
    assert_int_equal(json_integer_value(json_object_get(n, "history_rows")), 5);
    assert_int_equal(json_integer_value(json_object_get(n, "reports")), 6);
    json_decref(n);
    /* The event says what drifted, for which node and image. */
    char *data = imx_t_sql(db, "SELECT data::text FROM webhook_events WHERE type = 'node.drifted'"
                               " ORDER BY id DESC LIMIT 1");
    assert_non_null(strstr(data, "\"gpu-2\""));
    assert_non_null(strstr(data, "580.82.07"));
    free(data);
}

/* NDJSON: many at once in one transaction; an invalid line refuses them all. */
static void ndjson_batches_are_all_or_nothing(void **state)
{
    (void)state;
    char body[8192];
    snprintf(body, sizeof body, "%s\n%s\n\n%s\n", report("gpu-3", img_a, "580.95.05", NULL),
             report("gpu-4", img_b, "580.105.08", NULL),
             "{\"name\":\"gpu-5\",\"image\":{\"artifact_id\":\"ami-gpu-base-2\",\"region\":"
             "\"us-east-1\"},\"probe\":{\"gpus\":[\"L4\"],\"components\":[]}}");
    struct imx_res res = ndjson(node_token, body);
    if (res.status != 200)
        fail_msg("NDJSON: %ld %s", res.status, res.body);
    assert_int_equal(json_integer_value(json_object_get(res.json, "accepted")), 3);
    /* gpu-5 named its image by AMI id and region: image 2, and an L4 it does not list drifts. */
    json_t *five = json_array_get(json_object_get(res.json, "items"), 2);
    assert_int_equal(json_integer_value(json_object_get(five, "image_id")), img_b);
    assert_true(json_is_true(json_object_get(five, "drift")));
    imx_t_res_free(&res);
    long long before = sql_count("SELECT count(*) FROM nodes");
    /* An unknown AMI is kept: image null, drift unknown. */
    res = ndjson(node_token, "{\"name\":\"gpu-6\",\"image\":{\"artifact_id\":\"ami-unknown\"},"
                             "\"probe\":{}}\n");
    assert_int_equal(res.status, 200);
    json_t *six = json_array_get(json_object_get(res.json, "items"), 0);
    assert_true(json_is_null(json_object_get(six, "image_id")));
    assert_true(json_is_null(json_object_get(six, "drift")));
    imx_t_res_free(&res);
    before++;
    static const char *const bad[] = {
        "{\"name\":\"gpu-7\",\"image\":{\"id\":1},\"probe\":{}}\nnot json\n",
        "{\"name\":\"gpu-7\",\"image\":{\"id\":1},\"probe\":{}}\n{\"name\":\"bad name!\","
        "\"image\":{\"id\":1},\"probe\":{}}\n",
        "{\"name\":\"gpu-7\",\"image\":{},\"probe\":{}}\n",
        "{\"name\":\"gpu-7\",\"image\":{\"id\":1,\"artifact_id\":\"a\"},\"probe\":{}}\n",
        "{\"name\":\"gpu-7\",\"image\":{\"id\":1},\"probe\":{\"gpus\":\"H100\"}}\n",
        "{\"name\":\"gpu-7\",\"image\":{\"id\":1},\"probe\":{},\"extra\":1}\n",
        "\n\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        res = ndjson(node_token, bad[i]);
        if (res.status != 400)
            fail_msg("bad batch %zu: %ld %s", i, res.status, res.body);
        imx_t_assert_problem(&res, 400);
        imx_t_res_free(&res);
    }
    assert_int_equal(sql_count("SELECT count(*) FROM nodes"), before);
    /* Bounded: 1001 reports is too many. */
    size_t cap = 1001 * 64;
    char *many = malloc(cap);
    size_t used = 0;
    for (int i = 0; i < 1001; i++)
        used += (size_t)snprintf(many + used, cap - used,
                                 "{\"name\":\"m%d\",\"image\":{\"id\":1},\"probe\":{}}\n", i);
    res = ndjson(node_token, many);
    free(many);
    imx_t_assert_problem(&res, 413);
    imx_t_res_free(&res);
    assert_int_equal(sql_count("SELECT count(*) FROM nodes"), before);
}

/* Stale nodes, history bounded in days, the list's filters, pages and export. */
static void stale_history_and_the_fleet_list(void **state)
{
    (void)state;
    assert_int_equal(sql_count("UPDATE nodes SET last_seen = now() - interval '1 hour' WHERE "
                               "name = 'gpu-3' RETURNING 1"),
                     1);
    struct imx_res res = call(alice, "GET", "/v1/nodes?stale=true", NULL, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 1);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(res.json, "items"), 0), "name")),
                        "gpu-3");
    imx_t_res_free(&res);
    /* It reports again: no longer stale. */
    expect(node_token, "POST", "/v1/nodes/reports", report("gpu-3", img_a, "580.95.05", NULL), 200);
    res = call(alice, "GET", "/v1/nodes?stale=true", NULL, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 0);
    imx_t_res_free(&res);

    /* History older than IMAXE_NODE_HISTORY_DAYS (7) goes with the node's next report. */
    assert_true(sql_count("WITH u AS (UPDATE node_reports SET at = at - interval '8 days' WHERE "
                          "node_id = (SELECT id FROM nodes WHERE name = 'gpu-2') RETURNING 1) "
                          "SELECT count(*) FROM u") == 5);
    expect(node_token, "POST", "/v1/nodes/reports", report("gpu-2", img_a, "580.95.05", NULL), 200);
    assert_int_equal(sql_count("SELECT count(*) FROM node_reports WHERE node_id = (SELECT id FROM "
                               "nodes WHERE name = 'gpu-2')"),
                     1);

    /* Filters. */
    static const struct {
        const char *query;
        size_t n;
    } lists[] = {
        { "", 6 },
        { "?drift=true", 1 },  /* gpu-5 (gpu-2 was cleared above) */
        { "?drift=false", 4 }, /* gpu-1 .. gpu-4; gpu-6's drift is unknown */
        { "?image=%IMG_B%", 2 },
        { "?family=gpu-base", 5 },
        { "?gpu=L4", 1 },
        { "?patch_status=ok", 5 },
        { "?team=fleet-a&gpu=H100", 4 },
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        char path[128], q[64];
        snprintf(q, sizeof q, "%s", lists[i].query);
        char *mark = strstr(q, "%IMG_B%");
        if (mark)
            snprintf(mark, sizeof q - (size_t)(mark - q), "%lld", img_b);
        snprintf(path, sizeof path, "/v1/nodes%s", q);
        res = call(alice, "GET", path, NULL, 200);
        if (json_array_size(json_object_get(res.json, "items")) != lists[i].n)
            fail_msg("%s: %zu nodes, expected %zu: %s", path,
                     json_array_size(json_object_get(res.json, "items")), lists[i].n, res.body);
        imx_t_res_free(&res);
    }
    expect(alice, "GET", "/v1/nodes?drift=maybe", NULL, 400);
    expect(alice, "GET", "/v1/nodes?patch_status=fine", NULL, 400);
    expect(alice, "GET", "/v1/nodes?image=x", NULL, 400);
    /* Pages of two, in id order, through next_cursor. */
    size_t seen = 0;
    char path[1024] = "/v1/nodes?limit=2";
    for (int page = 0; page < 5; page++) {
        res = call(alice, "GET", path, NULL, 200);
        seen += json_array_size(json_object_get(res.json, "items"));
        const char *next = json_string_value(json_object_get(res.json, "next_cursor"));
        if (!next) {
            imx_t_res_free(&res);
            break;
        }
        snprintf(path, sizeof path, "/v1/nodes?limit=2&cursor=%s", next);
        imx_t_res_free(&res);
    }
    assert_int_equal(seen, 6);
    /* CSV export: a header and one line a node. */
    char auth[4200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", alice);
    const char *h[] = { auth, "Accept: text/csv", NULL };
    assert_int_equal(imx_t_http(&srv, "GET", "/v1/nodes?drift=false", h, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    size_t lines = 0;
    for (const char *p = res.body; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 5);
    assert_memory_equal(res.body, "name,team,image.id", 18);
    imx_t_res_free(&res);

    /* Another team sees none of it. */
    expect(bob, "GET", "/v1/nodes/gpu-1", NULL, 404);
    res = call(bob, "GET", "/v1/nodes", NULL, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 0);
    imx_t_res_free(&res);
    expect(bob, "GET", "/v1/nodes?team=fleet-a", NULL, 404);
}

/* Counts per image and per pin. */
static void fleet_counts_per_image_and_pin(void **state)
{
    (void)state;
    char body[256];
    snprintf(body, sizeof body, "{\"team\":\"fleet-a\",\"name\":\"prod\",\"image\":%lld}", img_a);
    expect(alice, "POST", "/v1/pins", body, 201);
    struct imx_res res = call(alice, "GET", "/v1/fleet", NULL, 200);
    assert_int_equal(json_integer_value(json_object_get(res.json, "nodes")), 6);
    assert_int_equal(json_integer_value(json_object_get(res.json, "unknown_image")), 1);
    json_t *first = json_array_get(json_object_get(res.json, "by_image"), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(first, "image"), "id")),
                     img_a);
    assert_int_equal(json_integer_value(json_object_get(first, "nodes")), 3);
    json_t *pin = json_array_get(json_object_get(res.json, "by_pin"), 0);
    assert_string_equal(json_string_value(json_object_get(pin, "name")), "prod");
    assert_int_equal(json_integer_value(json_object_get(pin, "nodes")), 3);
    imx_t_res_free(&res);
    long long pin_id = sql_count("SELECT id FROM pins WHERE name = 'prod'");
    char path[64];
    snprintf(path, sizeof path, "/v1/nodes?pin=%lld", pin_id);
    res = call(alice, "GET", path, NULL, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 3);
    imx_t_res_free(&res);
}

/* `imaxe probe --report` on the H100 fixture root: the node as the image says, then a node that
 * booted the newer image (its driver differs) drifts. */
static void cli_probe_report_from_the_fixture_root(void **state)
{
    (void)state;
    const char *cli = getenv("IMX_TEST_CLI");
    const char *src = getenv("IMX_TEST_SOURCE_DIR");
    if (!cli || !src)
        fail_msg("IMX_TEST_CLI and IMX_TEST_SOURCE_DIR must be set");
    const char *dir = imx_t_tmpdir("nodes-cli");
    for (int k = 0; k < 2; k++) {
        char out[1300];
        snprintf(out, sizeof out, "%s/report-%d.json", dir, k);
        int rc = imx_t_system(
            "env -i HOME=%s IMAXE_URL=%s IMAXE_TOKEN=%s IMAXE_PROBE_ROOT=%s/tests/fixtures/probe/"
            "h100-node PATH=%s/tests/fixtures/probe/bin:/usr/bin:/bin IMAXE_NODE_NAME=cli-%d "
            "%s probe --report --image %lld -o json > %s 2>%s.err",
            dir, srv.base, node_token, src, src, k, cli, k == 0 ? img_a : img_b, out, out);
        assert_int_equal(rc, 0);
        json_t *doc = json_load_file(out, 0, NULL);
        assert_non_null(doc);
        if (json_is_true(json_object_get(doc, "drift")) != (k == 1))
            fail_msg("cli-%d: %s", k, json_dumps(doc, 0));
        json_decref(doc);
    }
    json_t *n = node_get(alice, "cli-1");
    assert_true(json_is_null(json_object_get(n, "instance_type"))); /* no --imds */
    assert_int_equal(json_integer_value(json_object_get(n, "gpu_count")), 8);
    json_t *row = json_array_get(json_object_get(n, "drift_items"), 0);
    assert_string_equal(json_string_value(json_object_get(row, "name")), "nvidia-driver");
    assert_string_equal(json_string_value(json_object_get(row, "node")), "580.95.05");
    json_decref(n);
    /* Without an image it refuses before probing anything (usage). */
    int rc = imx_t_system("env -i HOME=%s IMAXE_URL=%s IMAXE_TOKEN=%s %s probe --report "
                          ">/dev/null 2>&1",
                          dir, srv.base, node_token, cli);
    assert_int_equal(rc, 1);
}

/* A real bulletin (NVIDIA's CSAF 5747: R580 drivers before 580.126.09) over the reported fleet:
 * the running nodes it reaches, and patch.available carrying the pin's team's exposed nodes. */
static void a_real_bulletin_counts_exposed_nodes(void **state)
{
    (void)state;
    expect(alice, "POST", "/v1/webhooks",
           "{\"team\":\"fleet-a\",\"url\":\"http://127.0.0.1:9/patch\","
           "\"events\":[\"patch.available\"]}",
           201);
    long long fixed = imx_t_publish(&srv, alice, "fleet-a", "gpu-base", "3",
                                    "[{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\"},"
                                    "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]",
                                    "[\"H100\"]");
    assert_true(fixed > 0);
    char path[1200];
    snprintf(path, sizeof path, "%s/tests/data/csaf/nvidia-5747.csaf.json",
             getenv("IMX_TEST_SOURCE_DIR"));
    json_t *csaf = json_load_file(path, 0, NULL);
    assert_non_null(csaf);
    char *body = json_dumps(csaf, JSON_COMPACT);
    json_decref(csaf);
    expect(admin, "POST", "/v1/advisories", body, 201);
    free(body);
    /* Every node reported so far runs image 1 (gpu-1, gpu-2, gpu-3, cli-0) or 2 (gpu-4, gpu-5,
     * cli-1); one is made stale and no longer counts as running. */
    assert_int_equal(sql_count("UPDATE nodes SET last_seen = now() - interval '1 day' WHERE "
                               "name = 'gpu-5' RETURNING 1"),
                     1);
    struct imx_res res = call(alice, "GET", "/v1/advisories/NVIDIA-5747/exposure", NULL, 200);
    static const struct {
        const char *name;
        long long want;
    } counts[] = { { "images", 2 }, { "images_with_fix", 2 }, { "pins", 1 },
                   { "teams", 1 },  { "nodes", 6 },           { "your_nodes", 6 } };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (json_integer_value(json_object_get(res.json, counts[i].name)) != counts[i].want)
            fail_msg("exposure %s: %s", counts[i].name, res.body);
    json_t *top = json_array_get(json_object_get(res.json, "your_nodes_by_image"), 0);
    assert_int_equal(json_integer_value(json_object_get(top, "nodes")), 4);
    assert_int_equal(json_integer_value(json_object_get(top, "fixed_by")), fixed);
    imx_t_res_free(&res);
    /* Another team learns the counts, not its own nodes (it has none). */
    res = call(bob, "GET", "/v1/advisories/NVIDIA-5747/exposure", NULL, 200);
    assert_int_equal(json_integer_value(json_object_get(res.json, "nodes")), 6);
    assert_int_equal(json_integer_value(json_object_get(res.json, "your_nodes")), 0);
    imx_t_res_free(&res);
    expect(alice, "GET", "/v1/advisories/NO-SUCH/exposure", NULL, 404);
    /* The pin on image 1 got patch.available with its team's 4 running nodes on it. */
    assert_int_equal(sql_count("SELECT count(*) FROM webhook_events WHERE type = "
                               "'patch.available' AND data->>'kind' = 'pin'"),
                     1);
    assert_int_equal(sql_count("SELECT (data->>'nodes_exposed')::int FROM webhook_events WHERE "
                               "type = 'patch.available' AND data->>'kind' = 'pin'"),
                     4);
    /* GET /v1/images/{id}/patch?nodes=true counts them too: image 1's 4 running nodes (not
     * without it: the read every pipeline polls stays a count-free one); a bad value is refused. */
    char patch_path[64];
    snprintf(patch_path, sizeof patch_path, "/v1/images/%lld/patch?nodes=true", img_a);
    res = call(bob, "GET", patch_path, NULL, 200);
    if (json_integer_value(json_object_get(res.json, "nodes")) != 4)
        fail_msg("patch nodes: %s", res.body);
    imx_t_res_free(&res);
    char plain[64];
    snprintf(plain, sizeof plain, "/v1/images/%lld/patch", img_a);
    res = call(bob, "GET", plain, NULL, 200);
    assert_null(json_object_get(res.json, "nodes"));
    imx_t_res_free(&res);
    snprintf(plain, sizeof plain, "/v1/images/%lld/patch?nodes=yes", img_a);
    expect(bob, "GET", plain, NULL, 400);
    /* One setting decides stale everywhere: IMAXE_NODE_STALE_S is 600 here, so a node silent
     * for 700 s is stale in the fleet list and no longer counts in the patch document (with the
     * SQL default of 900 it would still count there). */
    assert_int_equal(sql_count("UPDATE nodes SET last_seen = now() - interval '700 seconds' "
                               "WHERE name = 'gpu-1' RETURNING 1"),
                     1);
    res = call(bob, "GET", patch_path, NULL, 200);
    if (json_integer_value(json_object_get(res.json, "nodes")) != 3)
        fail_msg("patch nodes with gpu-1 silent for 700 s: %s", res.body);
    imx_t_res_free(&res);
    res = call(alice, "GET", "/v1/nodes?stale=true", NULL, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 2); /* gpu-1, gpu-5 */
    imx_t_res_free(&res);
    assert_int_equal(sql_count("UPDATE nodes SET last_seen = now() WHERE name = 'gpu-1' "
                               "RETURNING 1"),
                     1);
}

/* Restarts the server with the exposure job's clock at days after today (the job runs at start
 * and every second), and waits for a snapshot of that day. */
static void restart_exposure_on(int days, const char *keep)
{
    assert_int_equal(imx_t_server_stop(&srv, SIGTERM, 15), 0);
    char q[160], today[64], keep_env[64];
    snprintf(q, sizeof q, "SELECT (current_date + %d)::text", days);
    char *d = imx_t_sql(db, q);
    assert_non_null(d);
    snprintf(today, sizeof today, "IMAXE_EXPOSURE_TODAY=%s", d);
    free(d);
    snprintf(keep_env, sizeof keep_env, "IMAXE_EXPOSURE_HISTORY_DAYS=%s", keep);
    const char *env[] = { "IMAXE_NODE_HISTORY_DAYS=7",
                          "IMAXE_NODE_STALE_S=600",
                          "IMAXE_WEBHOOK_WORKERS=0",
                          "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9",
                          "IMAXE_EXPOSURE_CHECK_S=1",
                          today,
                          keep_env,
                          NULL };
    assert_int_equal(imx_t_server_start(&srv, db, env), 0);
    snprintf(q, sizeof q, "SELECT count(*) FROM team_exposure_daily WHERE day = current_date + %d",
             days);
    for (int i = 0; i < 100 && sql_count(q) == 0; i++)
        imx_t_sleep_ms(50);
    imx_t_sleep_ms(1200); /* and a second run the same day */
}

/* Exposure over time (issue 36): the daily snapshot per team (one row a day however often the
 * job runs, pruned to IMAXE_EXPOSURE_HISTORY_DAYS) and GET /v1/teams/{slug}/exposure/history. */
static void exposure_history_day_by_day(void **state)
{
    (void)state;
    restart_exposure_on(10, "30");
    restart_exposure_on(11, "30");
    /* One row per team and day, though the job ran at least twice on each. */
    assert_int_equal(sql_count("SELECT count(*) FROM team_exposure_daily d JOIN teams t ON "
                               "t.id = d.team_id WHERE t.slug = 'fleet-a' AND day > current_date"),
                     2);
    struct imx_res res = call(alice, "GET", "/v1/teams/fleet-a/exposure/history?days=2", NULL, 200);
    json_t *days = json_object_get(res.json, "days");
    if (json_array_size(days) != 2)
        fail_msg("history: %s", res.body);
    json_t *last = json_array_get(days, 1);
    char *want_day = imx_t_sql(db, "SELECT (current_date + 11)::text");
    assert_string_equal(json_string_value(json_object_get(last, "day")), want_day);
    free(want_day);
    /* The pin 'prod' on image 1 and the 6 running nodes on images 1 and 2, all hit by
     * NVIDIA-5747 (one severity), fixed by image 3 published today (after the advisory); the team's
     * other running node booted an image the catalog does not know. */
    json_t *pins = json_object_get(last, "pins"), *nodes = json_object_get(last, "nodes");
    char *sev = imx_t_sql(db, "SELECT severity FROM advisories WHERE id = 'NVIDIA-5747'");
    assert_non_null(sev);
    if (json_integer_value(json_object_get(pins, "total")) !=
            sql_count("SELECT count(*) FROM pins p JOIN teams t ON t.id = p.team_id "
                      "WHERE t.slug = 'fleet-a'") ||
        json_integer_value(json_object_get(pins, "exposed")) != 1 ||
        json_integer_value(json_object_get(pins, sev)) != 1 ||
        json_integer_value(json_object_get(nodes, "total")) !=
            sql_count("SELECT count(*) FROM nodes n JOIN teams t ON t.id = n.team_id WHERE "
                      "t.slug = 'fleet-a' AND n.last_seen >= now() - interval '600 seconds'") ||
        json_integer_value(json_object_get(nodes, "exposed")) != 6 ||
        json_integer_value(json_object_get(nodes, sev)) != 6 ||
        json_integer_value(json_object_get(last, "oldest_fix_days")) != 11)
        fail_msg("history (%s): %s", sev, res.body);
    free(sev);
    /* The day before says 10 days. */
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(days, 0), "oldest_fix_days")), 10);
    imx_t_res_free(&res);
    /* Another team's history is not found; bad days are refused. */
    expect(bob, "GET", "/v1/teams/fleet-a/exposure/history", NULL, 404);
    expect(alice, "GET", "/v1/teams/fleet-a/exposure/history?days=0", NULL, 400);
    expect(alice, "GET", "/v1/teams/fleet-a/exposure/history?days=x", NULL, 400);
    expect(alice, "GET", "/v1/teams/fleet-a/exposure/history?days=3651", NULL, 400);
    /* Forty days on, keeping 30: the days 10 and 11 are gone (and today's first snapshot). */
    restart_exposure_on(50, "30");
    assert_int_equal(sql_count("SELECT count(*) FROM team_exposure_daily d JOIN teams t ON "
                               "t.id = d.team_id WHERE t.slug = 'fleet-a'"),
                     1);
    res = call(alice, "GET", "/v1/teams/fleet-a/exposure/history", NULL, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "days")), 1);
    imx_t_res_free(&res);
}

/* The planner over the same family: the fixed image on the same branch is the move; revoked, it
 * no longer is, and an image that does not serve the H100s the pin's nodes run never is. */
static void the_pin_plan_recommends_the_safe_move(void **state)
{
    (void)state;
    long long pin = sql_count("SELECT id FROM pins WHERE name = 'prod'");
    long long fixed =
        sql_count("SELECT id FROM images WHERE family = 'gpu-base' AND version = '3'");
    char path[96];
    snprintf(path, sizeof path, "/v1/pins/%lld/plan", pin);
    struct imx_res res = call(alice, "GET", path, NULL, 200);
    if (json_integer_value(json_object_get(res.json, "recommended")) != fixed)
        fail_msg("plan: %s", res.body);
    assert_non_null(strstr(json_string_value(json_object_get(res.json, "reason")), "NVIDIA-5747"));
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(res.json, "gpus_in_use"), 0)), "H100");
    json_t *first = json_array_get(json_object_get(res.json, "candidates"), 0);
    assert_true(json_is_true(json_object_get(json_object_get(first, "branch"), "kept")));
    assert_int_equal(json_array_size(json_object_get(json_object_get(first, "patch"), "open")), 0);
    imx_t_res_free(&res);
    /* Another team's pin is not found; a bad id neither. */
    expect(bob, "GET", path, NULL, 404);
    expect(alice, "GET", "/v1/pins/x/plan", NULL, 404);
    /* Revoked, the fix is no longer a move; a fixed image on another branch that lists only L4
     * does not serve the H100s in use: staying is the answer, with why. */
    assert_int_equal(
        imx_t_image_patch(&srv, alice, fixed, "{\"status\":\"revoked\",\"reason\":\"bad build\"}"),
        200);
    long long l4 = imx_t_publish(&srv, alice, "fleet-a", "gpu-base", "4",
                                 "[{\"name\":\"nvidia-driver\",\"version\":\"590.44.01\"},"
                                 "{\"name\":\"cuda\",\"version\":\"13.1.0\"}]",
                                 "[\"L4\"]");
    assert_true(l4 > 0);
    res = call(alice, "GET", path, NULL, 200);
    if (!json_is_null(json_object_get(res.json, "recommended")))
        fail_msg("plan after the revocation: %s", res.body);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(res.json, "candidates"), i, c)
    {
        long long id = json_integer_value(json_object_get(c, "id"));
        if (id == fixed || id == l4)
            assert_true(json_is_false(json_object_get(c, "eligible")));
        if (id == l4)
            assert_true(json_is_false(json_object_get(c, "compatible")));
    }
    imx_t_res_free(&res);
    /* The image plan answers the same question without the pin. */
    snprintf(path, sizeof path, "/v1/images/%lld/plan", img_a);
    res = call(alice, "GET", path, NULL, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "candidates")), 3);
    imx_t_res_free(&res);
}

/* A raw API client sends GPU names as nvidia-smi prints them, spaces and all: taken, and
 * stored by the canonical model so that ?gpu=H100 finds the node; names that are not printable
 * ASCII, pad with spaces or run past 64 characters are refused and change nothing. */
static void gpu_names_as_nvidia_smi_prints_them(void **state)
{
    (void)state;
    static const char fmt[] =
        "{\"name\":\"%s\",\"image\":{\"id\":%lld},\"probe\":{\"gpus\":[%s],"
        "\"components\":[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"}]}}";
    char body[1024];
    snprintf(body, sizeof body, fmt, "smi-1", img_a, "\"NVIDIA H100 80GB HBM3\"");
    expect(node_token, "POST", "/v1/nodes/reports", body, 200);
    /* Known to the reference by no alias: kept as sent. */
    snprintf(body, sizeof body, fmt, "smi-2", img_a, "\"NVIDIA Future GPU (Rev 2)\"");
    expect(node_token, "POST", "/v1/nodes/reports", body, 200);
    json_t *one = node_get(alice, "smi-1"), *two = node_get(alice, "smi-2");
    assert_string_equal(json_string_value(json_array_get(json_object_get(one, "gpus"), 0)), "H100");
    assert_string_equal(json_string_value(json_array_get(json_object_get(two, "gpus"), 0)),
                        "NVIDIA Future GPU (Rev 2)");
    json_decref(one);
    json_decref(two);
    struct imx_res res = call(alice, "GET", "/v1/nodes?gpu=H100&limit=200", NULL, 200);
    bool found = false;
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(res.json, "items"), i, n)
    {
        found = found || strcmp(json_string_value(json_object_get(n, "name")), "smi-1") == 0;
    }
    assert_true(found);
    imx_t_res_free(&res);
    long long before = sql_count("SELECT count(*) FROM nodes");
    static const char *const bad[] = {
        "\" H100\"",
        "\"H100 \"",
        "\"H100\\tPCIe\"",
        "\"H100\\u00e9\"",
        "\"\"",
        "\"NVIDIA H100 80GB HBM3 NVIDIA H100 80GB HBM3 NVIDIA H100 80GB HBM3 x\"", /* 67 */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(body, sizeof body, fmt, "smi-bad", img_a, bad[k]);
        res = call(node_token, "POST", "/v1/nodes/reports", body, 400);
        imx_t_assert_problem(&res, 400);
        assert_non_null(strstr(res.body, "/probe/gpus"));
        imx_t_res_free(&res);
    }
    assert_int_equal(sql_count("SELECT count(*) FROM nodes"), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_token_may_only_report),
        cmocka_unit_test(drift_found_and_cleared_once_per_change),
        cmocka_unit_test(ndjson_batches_are_all_or_nothing),
        cmocka_unit_test(stale_history_and_the_fleet_list),
        cmocka_unit_test(fleet_counts_per_image_and_pin),
        cmocka_unit_test(cli_probe_report_from_the_fixture_root),
        cmocka_unit_test(a_real_bulletin_counts_exposed_nodes),
        cmocka_unit_test(exposure_history_day_by_day),
        cmocka_unit_test(the_pin_plan_recommends_the_safe_move),
        cmocka_unit_test(gpu_names_as_nvidia_smi_prints_them),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
