/* Images that carry two driver trees (issue #31 part 3, #34's dual-driver nodes): since 2026-09
 * the EKS GPU AMIs hold two NVIDIA drivers and load one at boot by the GPU attached. A manifest
 * lists nvidia-driver once per tree with the GPUs each serves; this test publishes such an image
 * and checks the validation, the compatibility report per GPU, search by either entry, compare,
 * a real NVIDIA bulletin (CSAF 5747) that hits only one of the two drivers (patch status names
 * the entry, a pinned team gets one patch.available when the fix lands), and node reports: the
 * node is held to the entry serving its GPU. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv, srv_sql;
static char db[1024];
static char admin[4096], alice[4096];
static long long dual, single;

/* 580.126.09 is R580's fix in CSAF 5747; 535.274.02 is older than R535's fix (535.288.01). */
#define DRIVERS(r535)                                                                              \
    "[{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\",\"gpus\":[\"H100\",\"B200\"]},"       \
    "{\"name\":\"nvidia-driver\",\"version\":\"" r535 "\",\"gpus\":[\"T4\",\"V100\"]},"            \
    "{\"name\":\"nvidia-container-toolkit\",\"version\":\"1.18.1\"}]"
#define GPUS "[\"H100\",\"B200\",\"T4\",\"V100\"]"

static struct imx_res call(const struct imx_srv *s, const char *token, const char *method,
                           const char *path, const char *body, long status)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(s, token, method, path, body, &res), 0);
    if (res.status != status)
        fail_msg("%s %s: expected %ld, got %ld: %s", method, path, status, res.status, res.body);
    return res;
}

static long long sql_count(const char *sql)
{
    char *v = imx_t_sql(db, sql);
    long long n = v ? strtoll(v, NULL, 10) : -1;
    free(v);
    return n;
}

static int setup(void **state)
{
    (void)state;
    static const char *const env[] = { "IMAXE_WEBHOOK_WORKERS=0",
                                       "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9", NULL };
    if (imx_t_server_up(&srv, "dual_driver", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    /* The same catalog searched in SQL rather than by the in-memory index. */
    static const char *const env_sql[] = { "IMAXE_WEBHOOK_WORKERS=0", "IMAXE_SEARCH_INDEX=0",
                                           NULL };
    if (imx_t_server_start(&srv_sql, db, env_sql) != 0)
        return -1;
    return imx_t_user(&srv, admin, "eks", "alice@eks.test", "admin", alice, sizeof alice);
}

static int teardown(void **state)
{
    (void)state;
    int a = imx_t_server_stop(&srv_sql, SIGTERM, 15);
    int b = imx_t_server_stop(&srv, SIGTERM, 15);
    return a == 0 && b == 0 ? 0 : -1;
}

/* POST /v1/images with these components and GPUs is refused with status, the problem saying
 * says. */
static void publish_refused(const char *components, const char *gpus, long status, const char *says)
{
    char body[4096];
    snprintf(body, sizeof body,
             "{\"team\":\"eks\",\"family\":\"bad\",\"version\":\"1\",\"provider\":\"aws\","
             "\"architecture\":\"x86_64\",\"os\":{\"name\":\"amzn\",\"version\":\"2023\"},"
             "\"layer\":\"platform\",\"artifacts\":[{\"region\":\"us-east-1\",\"id\":\"ami-1\"}],"
             "\"components\":%s,\"gpus\":%s}",
             components, gpus);
    struct imx_res res = call(&srv, alice, "POST", "/v1/images", body, status);
    if (!strstr(res.body, says))
        fail_msg("expected '%s' in %s", says, res.body);
    imx_t_res_free(&res);
}

/* Entries each name their GPUs, none served twice, all among the image's, every image GPU
 * served; nothing is written when refused. */
static void manifests_with_entries_are_checked(void **state)
{
    (void)state;
    publish_refused("[{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\",\"gpus\":[\"H100\","
                    "\"T4\"]},{\"name\":\"nvidia-driver\",\"version\":\"535.274.02\",\"gpus\":["
                    "\"T4\"]}]",
                    "[\"H100\",\"T4\"]", 422, "GPU T4 is served by two nvidia-driver entries");
    publish_refused("[{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\"},{\"name\":"
                    "\"nvidia-driver\",\"version\":\"535.274.02\",\"gpus\":[\"T4\"]}]",
                    "[\"H100\",\"T4\"]", 400, "each entry needs the gpus it serves");
    publish_refused("[{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\",\"gpus\":[\"H100\"]},"
                    "{\"name\":\"nvidia-driver\",\"version\":\"535.274.02\"}]",
                    "[\"H100\",\"T4\"]", 400, "each entry needs the gpus it serves");
    publish_refused("[{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\",\"gpus\":[\"H100\"]},"
                    "{\"name\":\"nvidia-driver\",\"version\":\"535.274.02\",\"gpus\":[\"L4\"]}]",
                    "[\"H100\",\"T4\"]", 422, "L4 is not one of the image's gpus");
    publish_refused("[{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\",\"gpus\":[\"H100\"]},"
                    "{\"name\":\"nvidia-driver\",\"version\":\"535.274.02\",\"gpus\":[\"T4\"]}]",
                    "[\"H100\",\"T4\",\"A10G\"]", 422,
                    "GPU A10G is served by no nvidia-driver entry");
    /* A malformed gpus member is a plain 400. */
    publish_refused("[{\"name\":\"cuda\",\"version\":\"12.8.1\",\"gpus\":[]}]", "[\"H100\"]", 400,
                    "/components/0/gpus");
    assert_int_equal(sql_count("SELECT count(*) FROM images WHERE family = 'bad'"), 0);
}

/* The finding codes of a report that involve GPU gpu (or any GPU when NULL), comma-joined. */
static void codes_of(json_t *report, char *out, size_t len)
{
    out[0] = '\0';
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(report, "findings"), i, f)
    {
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s,", json_string_value(json_object_get(f, "code")));
    }
}

/* Publish: the image lists both entries with their GPUs; its report says which driver applies
 * on each GPU, and each GPU is checked with its own driver. */
static void publish_and_report_per_gpu(void **state)
{
    (void)state;
    dual = imx_t_publish(&srv, alice, "eks", "eks-gpu-al2023", "1", DRIVERS("535.274.02"), GPUS);
    assert_true(dual > 0);
    single =
        imx_t_publish(&srv, alice, "eks", "single-580", "1",
                      "[{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\"}]", "[\"H100\"]");
    assert_true(single > 0);
    assert_int_equal(sql_count("SELECT count(*) FROM image_components WHERE name = "
                               "'nvidia-driver' AND image_id = (SELECT id FROM images WHERE "
                               "family = 'eks-gpu-al2023')"),
                     2);
    char path[128];
    snprintf(path, sizeof path, "/v1/images/%lld", dual);
    struct imx_res res = call(&srv, alice, "GET", path, NULL, 200);
    json_t *drv = json_object_get(json_object_get(res.json, "components"), "nvidia-driver");
    assert_int_equal(json_array_size(drv), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(drv, 0), "version")),
                        "580.126.09");
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(json_array_get(drv, 1), "gpus"), 0)),
        "T4");
    assert_string_equal(json_string_value(json_object_get(json_object_get(res.json, "components"),
                                                          "nvidia-container-toolkit")),
                        "1.18.1");
    json_t *per = json_object_get(json_object_get(res.json, "compatibility"), "per_gpu");
    assert_int_equal(json_array_size(per), 4);
    size_t i;
    json_t *g;
    json_array_foreach(per, i, g)
    {
        const char *gpu = json_string_value(json_object_get(g, "gpu"));
        json_t *chosen = json_object_get(g, "components");
        assert_int_equal(json_array_size(chosen), 1);
        const char *v = json_string_value(json_object_get(json_array_get(chosen, 0), "version"));
        bool new_gpu = strcmp(gpu, "H100") == 0 || strcmp(gpu, "B200") == 0;
        if (strcmp(v, new_gpu ? "580.126.09" : "535.274.02") != 0)
            fail_msg("%s runs %s: %s", gpu, v, res.body);
    }
    imx_t_res_free(&res);

    /* A K80 (Kepler: R470 is its last branch) served by a 470 entry: the 580 entry beside it is
     * not its driver, so no gpu_dropped_by_driver. The same K80 held to 580 alone is an error. */
    char codes[2048];
    res = call(&srv, alice, "POST", "/v1/compat/check",
               "{\"components\":[{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\",\"gpus\":"
               "[\"H100\"]},{\"name\":\"nvidia-driver\",\"version\":\"470.256.02\",\"gpus\":["
               "\"K80\"]}],\"gpus\":[\"H100\",\"K80\"]}",
               200);
    codes_of(res.json, codes, sizeof codes);
    if (strstr(codes, "gpu_dropped_by_driver") || strstr(codes, "gpu_driver_too_old"))
        fail_msg("the K80 was held to the 580 entry: %s", res.body);
    assert_int_equal(json_array_size(json_object_get(res.json, "per_gpu")), 2);
    imx_t_res_free(&res);
    res = call(&srv, alice, "POST", "/v1/compat/check",
               "{\"components\":[{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\"}],"
               "\"gpus\":[\"H100\",\"K80\"]}",
               200);
    codes_of(res.json, codes, sizeof codes);
    if (!strstr(codes, "gpu_dropped_by_driver"))
        fail_msg("a K80 on 580 alone: %s", res.body);
    assert_null(json_object_get(res.json, "per_gpu"));
    imx_t_res_free(&res);
}

/* component=nvidia-driver:... matches either entry, in the index and in SQL; compare shows both. */
static void search_and_compare_see_both_entries(void **state)
{
    (void)state;
    static const struct {
        const char *query;
        bool dual;
    } cases[] = {
        { "component=nvidia-driver:%3D580.126.09", true },
        { "component=nvidia-driver:%3D535.274.02", true },
        { "component=nvidia-driver:%3C540", true },
        { "component=nvidia-driver:%3E%3D570%2C%3C571", false },
        { "component=nvidia-driver:%3D535.274.02&component=nvidia-driver:%3D580.126.09", true },
    };
    const struct imx_srv *servers[] = { &srv, &srv_sql };
    for (size_t s = 0; s < 2; s++) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            char path[512];
            snprintf(path, sizeof path, "/v1/images?family=eks-gpu-al2023&%s", cases[i].query);
            struct imx_res res = call(servers[s], alice, "GET", path, NULL, 200);
            size_t n = json_array_size(json_object_get(res.json, "items"));
            if (n != (cases[i].dual ? 1u : 0u))
                fail_msg("%s search %s: %zu items", s ? "SQL" : "index", cases[i].query, n);
            imx_t_res_free(&res);
        }
    }
    char path[128];
    snprintf(path, sizeof path, "/v1/compare?ids=%lld,%lld", dual, single);
    struct imx_res res = call(&srv, alice, "GET", path, NULL, 200);
    size_t i;
    json_t *row;
    bool seen = false;
    json_array_foreach(json_object_get(res.json, "components"), i, row)
    {
        if (strcmp(json_string_value(json_object_get(row, "name")), "nvidia-driver") != 0)
            continue;
        seen = true;
        json_t *v = json_object_get(row, "values");
        assert_int_equal(json_array_size(json_array_get(v, 0)), 2);
        assert_string_equal(json_string_value(json_array_get(v, 1)), "580.126.09");
        assert_true(json_is_true(json_object_get(row, "differs")));
    }
    assert_true(seen);
    imx_t_res_free(&res);
}

/* NVIDIA's CSAF 5747 (R580 before 580.126.09, R535 before 535.288.01, ...): it hits the image's
 * 535 tree and not its 580 one. The image is vulnerable through that entry alone; the pinned
 * team gets one patch.available when an image with a fixed 535 tree lands. */
static void a_real_bulletin_hits_one_driver(void **state)
{
    (void)state;
    char body[256];
    snprintf(body, sizeof body, "{\"team\":\"eks\",\"name\":\"gpu-nodes\",\"image\":%lld}", dual);
    struct imx_res res = call(&srv, alice, "POST", "/v1/pins", body, 201);
    imx_t_res_free(&res);
    res = call(&srv, alice, "POST", "/v1/webhooks",
               "{\"team\":\"eks\",\"url\":\"http://127.0.0.1:9/patch\","
               "\"events\":[\"patch.available\"]}",
               201);
    imx_t_res_free(&res);
    char path[1200];
    snprintf(path, sizeof path, "%s/tests/data/csaf/nvidia-5747.csaf.json",
             getenv("IMX_TEST_SOURCE_DIR"));
    json_t *csaf = json_load_file(path, 0, NULL);
    assert_non_null(csaf);
    char *text = json_dumps(csaf, JSON_COMPACT);
    json_decref(csaf);
    res = call(&srv, admin, "POST", "/v1/advisories", text, 201);
    imx_t_res_free(&res);
    free(text);

    snprintf(path, sizeof path, "/v1/images/%lld/patch", dual);
    res = call(&srv, alice, "GET", path, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "vulnerable");
    json_t *adv = json_array_get(json_object_get(res.json, "advisories"), 0);
    assert_string_equal(json_string_value(json_object_get(adv, "id")), "NVIDIA-5747");
    json_t *hit = json_object_get(adv, "affected_components");
    if (json_array_size(hit) != 1)
        fail_msg("expected the 535 entry alone: %s", res.body);
    json_t *e = json_array_get(hit, 0);
    assert_string_equal(json_string_value(json_object_get(e, "version")), "535.274.02");
    assert_string_equal(json_string_value(json_array_get(json_object_get(e, "gpus"), 0)), "T4");
    assert_true(json_is_null(json_object_get(adv, "fixed_by")));
    imx_t_res_free(&res);
    /* The single-driver 580.126.09 image is not affected, nor does its answer change shape. */
    snprintf(path, sizeof path, "/v1/images/%lld/patch", single);
    res = call(&srv, alice, "GET", path, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "ok");
    imx_t_res_free(&res);
    assert_int_equal(sql_count("SELECT count(*) FROM webhook_events WHERE type = "
                               "'patch.available'"),
                     0);

    /* The next AMI's 535 tree is fixed: image 1 gets fixed_by, the pin one patch.available. */
    long long fixed =
        imx_t_publish(&srv, alice, "eks", "eks-gpu-al2023", "2", DRIVERS("535.288.01"), GPUS);
    assert_true(fixed > 0);
    snprintf(path, sizeof path, "/v1/images/%lld/patch", dual);
    res = call(&srv, alice, "GET", path, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "patch_available");
    adv = json_array_get(json_object_get(res.json, "advisories"), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(adv, "fixed_by"), "id")),
                     fixed);
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/images/%lld/patch", fixed);
    res = call(&srv, alice, "GET", path, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "ok");
    imx_t_res_free(&res);
    assert_int_equal(sql_count("SELECT count(*) FROM webhook_events WHERE type = "
                               "'patch.available' AND data->>'kind' = 'pin'"),
                     1);
    /* An image whose 580 tree is the old one is hit through that entry instead. */
    long long old580 =
        imx_t_publish(&srv, alice, "eks", "eks-gpu-old580", "1",
                      "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\",\"gpus\":[\"H100\"]},"
                      "{\"name\":\"nvidia-driver\",\"version\":\"535.288.01\",\"gpus\":[\"T4\"]}]",
                      "[\"H100\",\"T4\"]");
    snprintf(path, sizeof path, "/v1/images/%lld/patch", old580);
    res = call(&srv, alice, "GET", path, NULL, 200);
    adv = json_array_get(json_object_get(res.json, "advisories"), 0);
    e = json_array_get(json_object_get(adv, "affected_components"), 0);
    assert_int_equal(json_array_size(json_object_get(adv, "affected_components")), 1);
    assert_string_equal(json_string_value(json_object_get(e, "version")), "580.95.05");
    imx_t_res_free(&res);
}

/* A report of a node of the dual image with this GPU and this loaded driver. */
static char *node_report(const char *name, const char *gpu, const char *driver)
{
    static char buf[2][1024];
    static int k;
    char *b = buf[k++ % 2];
    snprintf(b, sizeof buf[0],
             "{\"name\":\"%s\",\"team\":\"eks\",\"image\":{\"id\":%lld},\"instance_type\":"
             "\"g4dn.xlarge\",\"probe\":{\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\","
             "\"version\":\"24.04\"},\"gpus\":[\"%s\"],\"components\":[{\"name\":"
             "\"nvidia-driver\",\"version\":\"%s\"},{\"name\":\"nvidia-container-toolkit\","
             "\"version\":\"1.18.1\"}]}}",
             name, dual, gpu, driver);
    return b;
}

/* Two T4 nodes of the dual image: one loaded the 535 tree (its own: no drift), one the 580 tree
 * (the wrong one: drift, naming the entry it should run). An H100 node on 580 does not drift. */
static void nodes_are_held_to_the_entry_for_their_gpu(void **state)
{
    (void)state;
    static const struct {
        const char *name, *gpu, *driver, *want;
        bool drift;
    } nodes[] = {
        { "t4-right", "T4", "535.274.02", "535.274.02", false },
        { "t4-wrong", "T4", "580.126.09", "535.274.02", true },
        { "h100-right", "H100", "580.126.09", "580.126.09", false },
    };
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        struct imx_res res = call(&srv, alice, "POST", "/v1/nodes/reports",
                                  node_report(nodes[i].name, nodes[i].gpu, nodes[i].driver), 200);
        json_t *item = json_array_get(json_object_get(res.json, "items"), 0);
        if (json_is_true(json_object_get(item, "drift")) != nodes[i].drift)
            fail_msg("%s: %s", nodes[i].name, res.body);
        imx_t_res_free(&res);
        char path[128];
        snprintf(path, sizeof path, "/v1/nodes/%s", nodes[i].name);
        res = call(&srv, alice, "GET", path, NULL, 200);
        json_t *items = json_object_get(res.json, "drift_items");
        assert_int_equal(json_array_size(items), nodes[i].drift ? 1 : 0);
        if (nodes[i].drift) {
            json_t *row = json_array_get(items, 0);
            assert_string_equal(json_string_value(json_object_get(row, "name")), "nvidia-driver");
            assert_string_equal(json_string_value(json_object_get(row, "image")), nodes[i].want);
            assert_string_equal(json_string_value(json_object_get(row, "node")), nodes[i].driver);
            assert_string_equal(json_string_value(json_object_get(row, "loaded")), "580.126.09");
        }
        imx_t_res_free(&res);
    }
}

/* The planner judges the driver branch per tree (the GPUs in use are the nodes' T4 and H100): the
 * fixed AMI (2) keeps R535 for the T4s and R580 for the H100s; an AMI (3) that moves the T4 tree
 * to R580 changes the branch for the T4 nodes, and the plan says so per GPU. */
static void the_plan_weighs_each_tree(void **state)
{
    (void)state;
    long long moved = imx_t_publish(
        &srv, alice, "eks", "eks-gpu-al2023", "3",
        "[{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\",\"gpus\":[\"H100\",\"B200\"]},"
        "{\"name\":\"nvidia-driver\",\"version\":\"580.126.09\",\"gpus\":[\"T4\",\"V100\"]},"
        "{\"name\":\"nvidia-container-toolkit\",\"version\":\"1.18.1\"}]",
        GPUS);
    assert_true(moved > 0);
    long long fixed = sql_count("SELECT id FROM images WHERE family = 'eks-gpu-al2023'"
                                " AND version = '2'");
    char path[128];
    snprintf(path, sizeof path, "/v1/images/%lld/plan", dual);
    struct imx_res res = call(&srv, alice, "GET", path, NULL, 200);
    if (json_integer_value(json_object_get(res.json, "recommended")) != fixed)
        fail_msg("the fix on the T4's own branch is the move: %s", res.body);
    size_t i, seen = 0;
    json_t *c;
    json_array_foreach(json_object_get(res.json, "candidates"), i, c)
    {
        long long id = json_integer_value(json_object_get(c, "id"));
        json_t *b = json_object_get(c, "branch");
        assert_string_equal(json_string_value(json_object_get(b, "from")), "R580, R535");
        size_t k;
        json_t *g;
        json_array_foreach(json_object_get(b, "per_gpu"), k, g)
        {
            const char *gpu = json_string_value(json_object_get(g, "gpu"));
            bool t4 = strcmp(gpu, "T4") == 0;
            assert_string_equal(json_string_value(json_object_get(g, "from")),
                                t4 ? "R535" : "R580");
            assert_string_equal(json_string_value(json_object_get(g, "to")),
                                t4 && id == fixed ? "R535" : "R580");
            assert_true(json_is_true(json_object_get(g, "kept")) == (!t4 || id == fixed));
            seen++;
        }
        assert_true(json_is_true(json_object_get(b, "kept")) == (id == fixed));
    }
    if (seen != 4)
        fail_msg("two GPUs in use for each of two candidates: %s", res.body);
    imx_t_res_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(manifests_with_entries_are_checked),
        cmocka_unit_test(publish_and_report_per_gpu),
        cmocka_unit_test(search_and_compare_see_both_entries),
        cmocka_unit_test(a_real_bulletin_hits_one_driver),
        cmocka_unit_test(nodes_are_held_to_the_entry_for_their_gpu),
        cmocka_unit_test(the_plan_weighs_each_tree),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
