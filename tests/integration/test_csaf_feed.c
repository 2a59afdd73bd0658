/* NVIDIA's real bulletins (tests/data/csaf/feed) against the real server, for the components
 * the product mapping added: images carrying triton-server (by NGC release, also from a bulletin
 * that names Triton's server version: 5509), tensorrt, nemo, jetson-linux (also from 5797 as
 * written in JetPack numbers: ref_version_alias 0460) and the
 * vGPU guest driver (0101), riva, cuda-q, tao, isaac-lab, nemo-curator and mlnx-ofed (0300), and
 * webdataset (0412, its fix named by a commit and read through ref_commit_release) are marked by
 * the matching bulletin with the right fixed_by, and the team pinned to each gets exactly one
 * patch.available, delivered to a Node receiver that verifies its signature. An exact or
 * inclusive bound marks the builds of its version (nvjpeg2000 0.8.0.38 by 5596's "0.8.0") but not
 * the fix after it (CUDA 12.6.1 by 5564's "up to and including 12.6"), and reapply brings a
 * stored advisory of an earlier reading to the current one. A bulletin about nothing imaxe tracks
 * is stored as such: no ranges, its products listed as unmapped with the reason their row states,
 * no event. A fix named by a commit no release holds is left out until a reference import gives
 * the commit a release, then reapplied. */
#include "harness.h"

#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], pub[4096];
static struct imx_rcv rcv;

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

static int setup(void **state)
{
    (void)state;
    if (imx_t_receiver_init(&rcv, "csaf_feed") != 0 || imx_t_receiver_start(&rcv) != 0)
        return -1;
    char allow[64];
    const char *env[IMX_T_RECEIVER_ENV_MAX];
    static const char *const extra[] = { "IMAXE_WEBHOOK_TIMEOUT_MS=3000", "IMAXE_WEBHOOK_WORKERS=2",
                                         "IMAXE_SHUTDOWN_TIMEOUT_S=3", NULL };
    imx_t_receiver_env(&rcv, extra, env, allow);
    if (imx_t_server_up(&srv, "csaf_feed", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    return imx_t_user(&srv, admin, "catalog", "pub@cat.test", "publisher", pub, sizeof pub);
}

static int teardown(void **state)
{
    (void)state;
    imx_t_receiver_stop(&rcv);
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

/* A bulletin of the feed as the body of POST /v1/advisories (new). */
static char *bulletin(const char *year, const char *id)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/csaf/feed/%s/%s/%s.json",
             getenv("IMX_TEST_SOURCE_DIR"), year, id, id);
    json_error_t err;
    json_t *d = json_load_file(path, 0, &err);
    if (!d)
        fail_msg("%s: %s", path, err.text);
    char *text = json_dumps(d, JSON_COMPACT);
    json_decref(d);
    assert_non_null(text);
    return text;
}

/* Publishes family/version (team catalog) carrying component at version. */
static long long publish(const char *family, const char *version, const char *component,
                         const char *cversion)
{
    json_t *m = json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:s, s:[{s:s, s:s}],"
                          " s:[{s:s, s:s}], s:[s]}",
                          "team", "catalog", "family", family, "version", version, "provider",
                          "oci-container", "architecture", "x86_64", "os", "name", "ubuntu",
                          "version", "24.04", "layer", "model", "artifacts", "region", "us-east-1",
                          "id", "nvcr.io/nvidia/example:1", "components", "name", component,
                          "version", cversion, "gpus", "H100");
    char *text = json_dumps(m, JSON_COMPACT);
    json_decref(m);
    long long id = call_id(pub, "POST", "/v1/images", text, 201);
    free(text);
    assert_true(id > 0);
    return id;
}

/* The patch.available events path received (parsed bodies, new), once at least n came. */
static json_t *received(const char *path, size_t n)
{
    for (int attempt = 0; attempt < 300; attempt++) { /* 30 s: a loaded machine */
        json_t *all = json_array(), *log = imx_t_receiver_log(&rcv, path), *e;
        size_t i;
        json_array_foreach(log, i, e)
        {
            assert_true(json_is_true(json_array_get(json_object_get(e, "verified"), 0)));
            json_t *body = json_loads(json_string_value(json_object_get(e, "body")), 0, NULL);
            assert_non_null(body);
            if (strcmp(json_string_value(json_object_get(body, "type")), "patch.available") == 0)
                json_array_append_new(all, body);
            else
                json_decref(body);
        }
        json_decref(log);
        if (json_array_size(all) >= n)
            return all;
        json_decref(all);
        imx_t_sleep_ms(100);
    }
    fail_msg("%s: fewer than %zu patch.available events", path, n);
    return NULL;
}

/* A team watching a family: its admin's token, the family's image with the old version and the
 * one with the fix, a patch.available webhook at hook (its secret given to the receiver) and a
 * pin on the old image. */
struct watch {
    char token[4096];
    long long old, fix, pin;
};

static void watch(struct watch *w, const char *team, const char *family, const char *component,
                  const char *old_version, const char *fix_version, const char *hook)
{
    char email[96], body[1024], ctl[256];
    snprintf(email, sizeof email, "%s@feed.test", team);
    assert_int_equal(imx_t_user(&srv, admin, team, email, "admin", w->token, sizeof w->token), 0);
    w->old = publish(family, "1", component, old_version);
    w->fix = publish(family, "2", component, fix_version);
    snprintf(body, sizeof body,
             "{\"team\":\"%s\",\"url\":\"http://127.0.0.1:%u%s\","
             "\"events\":[\"patch.available\"]}",
             team, rcv.port, hook);
    struct imx_res res = call(w->token, "POST", "/v1/webhooks", body, 201);
    snprintf(ctl, sizeof ctl, "{\"secrets\": {\"%s\": [\"%s\"]}}", hook,
             json_string_value(json_object_get(res.json, "secret")));
    imx_t_res_free(&res);
    imx_t_receiver_control(&rcv, ctl);
    snprintf(body, sizeof body, "{\"team\":\"%s\",\"name\":\"prod\",\"image\":%lld}", team, w->old);
    w->pin = call_id(w->token, "POST", "/v1/pins", body, 201);
}

/* The image is patch_available by advisory id, with fix named as its fixed_by. */
static void marked(long long image, const char *id, long long fix)
{
    char path[128];
    snprintf(path, sizeof path, "/v1/images/%lld/patch", image);
    struct imx_res res = call(pub, "GET", path, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "patch_available");
    json_t *a = json_array_get(json_object_get(res.json, "advisories"), 0);
    assert_string_equal(json_string_value(json_object_get(a, "id")), id);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "fixed_by"), "id")),
                     fix);
    imx_t_res_free(&res);
}

/* Exactly one patch.available came to hook, for this pin and this fix; its data, for more
 * checks (the caller frees the returned array). */
static json_t *heard_once(const char *hook, long long pin, long long fix)
{
    json_t *evs = received(hook, 1);
    imx_t_sleep_ms(300); /* a second one would have come by now */
    json_decref(evs);
    evs = received(hook, 1);
    assert_int_equal(json_array_size(evs), 1);
    json_t *d = json_object_get(json_array_get(evs, 0), "data");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "pin"), "id")), pin);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "fixed_by"), "id")),
                     fix);
    return evs;
}

static const struct family {
    const char *component, *year, *bulletin; /* the real bulletin that names it */
    const char *old, *fixed;                 /* an affected version, the fix */
    const char *range;                       /* the range the bulletin gives it */
    const char *image_fixed; /* the version the family's fixed image carries; NULL: fixed */
} families[] = {
    /* 5509 names Triton by its server version ("prior to 2.40"), the catalog by NGC release:
     * 2.40.0 is 23.11 (ref_version_alias, 0371), so 23.10 is affected and 23.12 is not. First,
     * before 5860 (up to 26.02: <26.03dev0) marks every image of the family below 26.03. */
    { "triton-server", "2023", "5509", "23.10", "23.11", "<23.11", "23.12" },
    { "triton-server", "2026", "5860", "26.01", "26.03", "<26.03dev0", NULL },
    { "tensorrt", "2026", "5836", "10.13.3", "10.16.1", "<10.16.1", NULL },
    { "nemo", "2026", "5839", "2.6.2", "2.7.3", "<2.7.3dev0", NULL },
    { "jetson-linux", "2026", "5797", "36.4.4", "36.5", ">=36, <36.5", NULL },
    { "vgpu-driver", "2026", "5821", "580.105.08", "580.159.03", ">=580, <580.126.10dev0", NULL },
    /* mapped by migration 0300 (tools/reference/nvidia_products_0300.csv) */
    { "riva", "2025", "5625", "2.18.0", "2.19.0", "<2.18.1dev0", NULL },
    { "cuda-q", "2026", "5820", "0.13.0", "0.14.0", "<0.14.0", NULL },
    { "tao", "2025", "5730", "6.25.7", "6.25.9", ">=6.25.7, <6.25.8dev0", NULL },
    { "isaac-lab", "2025", "5733", "2.2.1", "2.3.0", "<2.3.0", NULL },
    { "nemo-curator", "2025", "5690", "25.06", "25.07", "<25.07", NULL },
    { "mlnx-ofed", "2025", "5654", "23.10-3.2.2.0", "23.10-5.1.4.0", ">=23.10, <23.10-5.1.4.0",
      NULL },
    /* 5658 names its fix by commit 9e95f50, the first release containing it 1.0.0
     * (ref_commit_release, 0411; mapped by 0412): 0.2.111 is affected, 1.0.2 is not */
    { "webdataset", "2025", "5658", "0.2.111", "1.0.0", "<1.0.0", "1.0.2" },
    /* An exact or inclusive bound counts the builds of its version: 5596 names nvJPEG2000
     * "0.8.0", which NVIDIA ships as 0.8.0.38; 5312 names the vGPU 13.1 manager "470.82 (up to
     * and including)", beside which the guest driver is 470.82.01 (no vgpu-driver range of the
     * feed ends at a version of two parts, so the manager's stands for it); 5564's CUDA "up to
     * and including 12.6" ends at its fix, 12.6.1, which is not marked. */
    { "nvjpeg2000", "2025", "5596", "0.8.0.38", "0.8.1", ">=0.8.0, <0.8.1dev0", NULL },
    { "vgpu-manager", "2022", "5312", "470.82.01", "470.103.02", ">=470, <470.83dev0", NULL },
    { "cuda", "2024", "5564", "12.6.0", "12.6.1", "<12.6.1", NULL },
};

/* The images of 5509's family (Triton 23.10 and 23.12), for the reapply test. */
static long long triton_23_10, triton_23_12;

static void each_new_component_is_marked_by_its_bulletin_and_its_pin_hears_once(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        const struct family *F = &families[f];
        char family[64], team[32], hook[64], path[128];
        snprintf(family, sizeof family, "feed-%s-%zu", F->component, f);
        snprintf(team, sizeof team, "team-%zu", f);
        snprintf(hook, sizeof hook, "/%s-%zu", F->component, f);
        struct watch w;
        watch(&w, team, family, F->component, F->old, F->image_fixed ? F->image_fixed : F->fixed,
              hook);
        long long old = w.old, fix = w.fix;
        if (strcmp(F->bulletin, "5509") == 0) {
            triton_23_10 = old;
            triton_23_12 = fix;
        }

        char *doc = bulletin(F->year, F->bulletin);
        struct imx_res res = call(admin, "POST", "/v1/advisories", doc, 201);
        free(doc);
        char adv_id[32];
        snprintf(adv_id, sizeof adv_id, "NVIDIA-%s", F->bulletin);
        assert_string_equal(json_string_value(json_object_get(res.json, "id")), adv_id);
        bool found = false;
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(res.json, "affected"), i, e)
        {
            found =
                found ||
                (strcmp(json_string_value(json_object_get(e, "component")), F->component) == 0 &&
                 strcmp(json_string_value(json_object_get(e, "range")), F->range) == 0 &&
                 strcmp(json_string_value(json_object_get(e, "fixed")), F->fixed) == 0);
        }
        if (!found)
            fail_msg("%s: no %s %s fixed %s in %s", adv_id, F->component, F->range, F->fixed,
                     res.body);
        imx_t_res_free(&res);

        /* The affected image names its fix; the fix is ok. */
        marked(old, adv_id, fix);
        snprintf(path, sizeof path, "/v1/images/%lld/patch", fix);
        res = call(pub, "GET", path, NULL, 200);
        assert_string_equal(json_string_value(json_object_get(res.json, "status")), "ok");
        imx_t_res_free(&res);

        /* One patch.available to the pinned team, for this pin, advisory and fix. */
        json_t *evs = heard_once(hook, w.pin, fix);
        json_t *d = json_object_get(json_array_get(evs, 0), "data");
        assert_string_equal(json_string_value(json_object_get(d, "kind")), "pin");
        assert_string_equal(json_string_value(json_object_get(d, "team")), team);
        assert_string_equal(json_string_value(json_object_get(
                                json_array_get(json_object_get(d, "advisories"), 0), "id")),
                            adv_id);
        json_decref(evs);
    }
}

/* Bulletin 5797 (Jetson and IGX, March 2026) as NVIDIA would write it in JetPack numbers: its
 * Jetson Linux(36) versions become "All versions prior to JetPack 6.2.1" and "JetPack 6.2.1"
 * (= L4T 36.4.4, ref_version_alias 0460), under tracking id jp (not 5797's, which stays the
 * real bulletin's). The other architectures and the vulnerabilities are 5797's. */
static char *jetpack_bulletin(const char *jp)
{
    char *text = bulletin("2026", "5797");
    json_t *d = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(d);
    json_object_set_new(json_object_get(json_object_get(d, "document"), "tracking"), "id",
                        json_string(jp));
    size_t i, j;
    json_t *vendor, *arch;
    json_array_foreach(json_object_get(json_object_get(d, "product_tree"), "branches"), i, vendor)
    {
        json_array_foreach(json_object_get(vendor, "branches"), j, arch)
        {
            if (strcmp(json_string_value(json_object_get(arch, "category")), "architecture") != 0)
                continue;
            size_t k;
            json_t *leaf;
            json_array_foreach(json_object_get(arch, "branches"), k, leaf)
            {
                json_t *product = json_object_get(leaf, "product");
                const char *name = json_string_value(json_object_get(product, "name"));
                if (strcmp(name, "All versions prior to 36.5") == 0)
                    json_object_set_new(product, "name",
                                        json_string("All versions prior to JetPack 6.2.1"));
                else if (strcmp(name, "36.5") == 0)
                    json_object_set_new(product, "name", json_string("JetPack 6.2.1"));
            }
        }
    }
    text = json_dumps(d, JSON_COMPACT);
    json_decref(d);
    assert_non_null(strstr(text, "prior to JetPack 6.2.1"));
    return text;
}

/* A Jetson bulletin that numbers Jetson Linux by JetPack marks an image publishing jetson-linux
 * at the L4T before the fix (36.4.3) with the L4T fix (36.4.4), says it converted, and leaves
 * the fix's image alone. Runs first: 5797 itself (below 36.5) would mark both images. */
static void a_jetpack_numbered_bulletin_marks_the_l4t_before_its_fix(void **state)
{
    (void)state;
    long long old = publish("feed-jetpack", "1", "jetson-linux", "36.4.3");
    long long fix = publish("feed-jetpack", "2", "jetson-linux", "36.4.4");
    char *doc = jetpack_bulletin("JP5797");
    struct imx_res res = call(admin, "POST", "/v1/advisories", doc, 201);
    free(doc);
    bool found = false, warned = false;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(res.json, "affected"), i, e)
    {
        found = found ||
                (strcmp(json_string_value(json_object_get(e, "component")), "jetson-linux") == 0 &&
                 strcmp(json_string_value(json_object_get(e, "range")), ">=36, <36.4.4") == 0 &&
                 strcmp(json_string_value(json_object_get(e, "fixed")), "36.4.4") == 0);
    }
    json_array_foreach(json_object_get(res.json, "warnings"), i, e)
    {
        warned = warned || strstr(json_string_value(json_object_get(e, "warning")),
                                  "JetPack 6.2.1 is release 36.4.4") != NULL;
    }
    if (!found || !warned)
        fail_msg("NVIDIA-JP5797: no jetson-linux >=36, <36.4.4 fixed 36.4.4 read from JetPack "
                 "6.2.1 in %s",
                 res.body);
    imx_t_res_free(&res);

    char path[128];
    marked(old, "NVIDIA-JP5797", fix);
    snprintf(path, sizeof path, "/v1/images/%lld/patch", fix);
    res = call(pub, "GET", path, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "ok");
    imx_t_res_free(&res);
}

static void a_bulletin_about_nothing_imaxe_tracks_is_kept_as_such(void **state)
{
    (void)state;
    char *doc = bulletin("2025", "5561"); /* Hopper HGX 8-GPU HMC firmware */
    struct imx_res res = call(admin, "POST", "/v1/advisories", doc, 201);
    free(doc);
    assert_int_equal(json_array_size(json_object_get(res.json, "affected")), 0);
    json_t *u = json_array_get(json_object_get(res.json, "unmapped"), 0);
    assert_string_equal(json_string_value(json_object_get(u, "product")), "HMC > Hopper HGX 8-GPU");
    assert_string_equal(json_string_value(json_object_get(u, "why")),
                        "not tracked: HGX baseboard management controller (HMC) firmware: runs on "
                        "the hardware, not in an image");
    assert_int_equal(json_integer_value(json_object_get(res.json, "affected_images")), 0);
    imx_t_res_free(&res);
    /* kept with the advisory, and announced to no one */
    res = call(pub, "GET", "/v1/advisories/NVIDIA-5561", NULL, 200);
    assert_true(json_array_size(json_object_get(res.json, "unmapped")) > 0);
    imx_t_res_free(&res);
    /* an admin may still revise what it says, its (absent) ranges kept */
    struct imx_res rv;
    char auth[4200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", admin);
    const char *hdr[] = { auth, "Content-Type: application/json", "If-Match: \"r1\"", NULL };
    assert_int_equal(
        imx_t_http(&srv, "PATCH", "/v1/advisories/NVIDIA-5561", hdr, "{\"severity\":\"low\"}", &rv),
        0);
    if (rv.status != 200)
        fail_msg("PATCH NVIDIA-5561: %ld %s", rv.status, rv.body);
    assert_string_equal(json_string_value(json_object_get(rv.json, "severity")), "low");
    assert_true(json_array_size(json_object_get(rv.json, "unmapped")) > 0);
    imx_t_res_free(&rv);
    char *n = imx_t_sql(db, "SELECT count(*) FROM webhook_events WHERE type = 'advisory.published'"
                            " AND body LIKE '%NVIDIA-5561%'");
    assert_string_equal(n, "0");
    free(n);
}

/* Imports one reference table's CSV text through POST /v1/reference as data version version. */
static void post_reference(const char *version, const char *table, const char *csv)
{
    json_t *body = json_pack("{s:s, s:{s:s}}", "data_version", version, "tables", table, csv);
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    struct imx_res res = call(admin, "POST", "/v1/reference", text, 200);
    free(text);
    imx_t_res_free(&res);
}

/* POST /v1/reference with the product mapping as the map migrations ship it (every
 * tools/reference/nvidia_products*.csv in name order, the order they apply: 0101's, then each
 * later one's without its header), less the lines that contain drop (NULL: none): the reference
 * import an admin runs. */
static void import_product_map(const char *drop)
{
    char line[4096], where[1024];
    snprintf(where, sizeof where, "%s/tools/reference/nvidia_products*.csv",
             getenv("IMX_TEST_SOURCE_DIR"));
    glob_t g;
    assert_int_equal(glob(where, 0, NULL, &g), 0);
    size_t cap = 1 << 16, used = 0;
    char *csv = malloc(cap);
    assert_non_null(csv);
    for (size_t c = 0; c < g.gl_pathc; c++) {
        FILE *f = fopen(g.gl_pathv[c], "r");
        assert_non_null(f);
        bool header = true;
        while (fgets(line, sizeof line, f)) {
            bool skip = header && c > 0;
            header = false;
            if (skip || (drop && strstr(line, drop)))
                continue;
            size_t n = strlen(line);
            if (used + n + 1 > cap) {
                cap *= 2;
                csv = realloc(csv, cap);
                assert_non_null(csv);
            }
            memcpy(csv + used, line, n);
            used += n;
        }
        fclose(f);
    }
    globfree(&g);
    csv[used] = '\0';
    post_reference(drop ? "test-less" : "test-full", "nvidia_product", csv);
    free(csv);
}

/* A product the mapping did not know at import is left out (unmapped, kept with the advisory);
 * once a reference import adds its row, POST /v1/advisories:reapply reads the kept bulletin
 * again: the image carrying it is marked with its fix, and the pinned team hears once. A
 * second reapply changes nothing. */
static void an_unmapped_product_is_reapplied_after_a_reference_update(void **state)
{
    (void)state;
    import_product_map(",dali,"); /* its CPE row and its name row */
    char path[128];
    struct watch w;
    watch(&w, "team-dali", "feed-dali", "dali", "1.52.0", "2.1.0", "/dali");
    long long old = w.old, fix = w.fix;

    /* imported without DALI: listed as unmapped, nothing marked */
    char *doc = bulletin("2026", "5814");
    struct imx_res res = call(admin, "POST", "/v1/advisories", doc, 201);
    free(doc);
    assert_int_equal(json_array_size(json_object_get(res.json, "affected")), 0);
    assert_int_equal(json_array_size(json_object_get(res.json, "unmapped")), 1);
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/images/%lld/patch", old);
    res = call(pub, "GET", path, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "ok");
    imx_t_res_free(&res);

    /* a re-application before the reference changes changes nothing; a viewer may not */
    res = call(pub, "POST", "/v1/advisories:reapply", NULL, 403);
    imx_t_res_free(&res);
    res = call(admin, "POST", "/v1/advisories:reapply", NULL, 200);
    assert_int_equal(json_integer_value(json_object_get(res.json, "revised")), 0);
    assert_true(json_integer_value(json_object_get(res.json, "unchanged")) >= 1);
    imx_t_res_free(&res);

    /* the reference import adds DALI's row; re-applied, the bulletin now marks the image */
    import_product_map(NULL);
    res = call(admin, "POST", "/v1/advisories:reapply?limit=100", NULL, 200);
    assert_int_equal(json_integer_value(json_object_get(res.json, "revised")), 1);
    json_t *line, *lines = json_object_get(res.json, "advisories");
    size_t i;
    bool seen = false;
    json_array_foreach(lines, i, line)
    {
        const char *id = json_string_value(json_object_get(line, "id"));
        const char *o = json_string_value(json_object_get(line, "outcome"));
        if (strcmp(id, "NVIDIA-5814") == 0) {
            seen = true;
            assert_string_equal(o, "revised");
            assert_int_equal(json_integer_value(json_object_get(line, "affected_images")), 1);
            assert_int_equal(json_integer_value(json_object_get(line, "unmapped")), 0);
        } else {
            assert_string_equal(o, "unchanged"); /* 5561: still nothing imaxe tracks */
        }
    }
    assert_true(seen);
    imx_t_res_free(&res);
    res = call(pub, "GET", "/v1/advisories/NVIDIA-5814", NULL, 200);
    json_t *r0 = json_array_get(json_object_get(res.json, "affected"), 0);
    assert_string_equal(json_string_value(json_object_get(r0, "component")), "dali");
    assert_string_equal(json_string_value(json_object_get(r0, "fixed")), "2.1");
    assert_int_equal(json_array_size(json_object_get(res.json, "unmapped")), 0);
    imx_t_res_free(&res);
    marked(old, "NVIDIA-5814", fix);

    /* one patch.available for the pin; a second reapply revises nothing and sends nothing */
    res = call(admin, "POST", "/v1/advisories:reapply", NULL, 200);
    assert_int_equal(json_integer_value(json_object_get(res.json, "revised")), 0);
    imx_t_res_free(&res);
    json_decref(heard_once("/dali", w.pin, fix));
    char *n = imx_t_sql(db, "SELECT count(*) FROM audit_log WHERE action = 'reapply'");
    assert_non_null(n);
    assert_string_equal(n, "1");
    free(n);
}

/* POST /v1/reference with the release pairs as their migrations ship them (every
 * tools/reference/version_alias_*.csv in name order: Triton's of 0371, JetPack's of 0460, one
 * header), only the header and the lines that contain keep when keep is given. */
static void import_version_alias(const char *keep)
{
    char where[1024], line[4096];
    snprintf(where, sizeof where, "%s/tools/reference/version_alias_*.csv",
             getenv("IMX_TEST_SOURCE_DIR"));
    glob_t g;
    assert_int_equal(glob(where, 0, NULL, &g), 0);
    size_t cap = 1 << 16, used = 0;
    char *csv = malloc(cap);
    assert_non_null(csv);
    for (size_t c = 0; c < g.gl_pathc; c++) {
        FILE *f = fopen(g.gl_pathv[c], "r");
        assert_non_null(f);
        bool header = true;
        while (fgets(line, sizeof line, f)) {
            size_t n = strlen(line);
            bool take = header ? c == 0 : !keep || strstr(line, keep);
            header = false;
            if (take) {
                assert_true(used + n + 1 < cap);
                memcpy(csv + used, line, n);
                used += n;
            }
        }
        fclose(f);
    }
    globfree(&g);
    csv[used] = '\0';
    post_reference(keep ? "test-pairs-less" : "test-pairs", "version_alias", csv);
    free(csv);
}

/* The outcome POST /v1/advisories:reapply gives id, and the advisory's first range after it. */
static void reapply_gives(const char *id, const char *outcome, const char *range, const char *fixed)
{
    struct imx_res res = call(admin, "POST", "/v1/advisories:reapply?limit=100", NULL, 200);
    json_t *line;
    size_t i;
    bool seen = false;
    json_array_foreach(json_object_get(res.json, "advisories"), i, line)
    {
        if (strcmp(json_string_value(json_object_get(line, "id")), id) == 0) {
            seen = true;
            assert_string_equal(json_string_value(json_object_get(line, "outcome")), outcome);
        }
    }
    if (!seen)
        fail_msg("%s not re-applied: %s", id, res.body);
    imx_t_res_free(&res);
    char path[64];
    snprintf(path, sizeof path, "/v1/advisories/%s", id);
    res = call(pub, "GET", path, NULL, 200);
    json_t *r0 = json_array_get(json_object_get(res.json, "affected"), 0);
    assert_string_equal(json_string_value(json_object_get(r0, "range")), range);
    assert_string_equal(json_string_value(json_object_get(r0, "fixed")), fixed);
    imx_t_res_free(&res);
}

/* An advisory of a component numbered two ways is re-read when the pairs change: without the
 * pairs of Triton's 2.x line, 5509 keeps the server's numbering ("<2.40", which no image in the
 * catalog's NGC numbering matches); once a reference import brings them back, reapply revises
 * it to "<23.11" and the 23.10 image is marked again, with the 23.12 image as its fix. */
static void a_bulletin_in_the_servers_numbering_is_reapplied_when_the_pairs_change(void **state)
{
    (void)state;
    import_version_alias("'1.0.0'"); /* no line has it: the header alone, no pairs */
    reapply_gives("NVIDIA-5509", "revised", "<2.40", "2.40");
    import_version_alias(NULL);
    reapply_gives("NVIDIA-5509", "revised", "<23.11", "23.11");
    reapply_gives("NVIDIA-5509", "unchanged", "<23.11", "23.11");
    /* the 23.10 image of the first test is marked by 5509 again, its 23.12 image the fix */
    char path[64];
    snprintf(path, sizeof path, "/v1/images/%lld/patch", triton_23_10);
    struct imx_res res = call(pub, "GET", path, NULL, 200);
    json_t *a;
    size_t i;
    bool marked = false;
    json_array_foreach(json_object_get(res.json, "advisories"), i, a)
    {
        if (strcmp(json_string_value(json_object_get(a, "id")), "NVIDIA-5509") == 0) {
            marked = true;
            assert_int_equal(
                json_integer_value(json_object_get(json_object_get(a, "fixed_by"), "id")),
                triton_23_12);
        }
    }
    if (!marked)
        fail_msg("the 23.10 image is not marked by NVIDIA-5509: %s", res.body);
    imx_t_res_free(&res);
}

/* A fix named by a commit no release holds yet is left out, saying so (5739: NVTabular's 5dd11f4,
 * no tag as of 2026-03-13); once a reference import gives the commit a release (here as if
 * NVTabular 26.01 were tagged with it), reapply reads the kept bulletin again: the 23.08.00 image
 * is marked with the 26.01 image as its fix, and the pinned team hears once. */
static void a_fix_named_by_commit_is_reapplied_when_a_release_holds_it(void **state)
{
    (void)state;
    struct watch w;
    watch(&w, "team-nvt", "feed-nvtabular", "nvtabular", "23.08.00", "26.01", "/nvtabular");

    char *doc = bulletin("2025", "5739");
    struct imx_res res = call(admin, "POST", "/v1/advisories", doc, 201);
    free(doc);
    assert_int_equal(json_array_size(json_object_get(res.json, "affected")), 0);
    bool said = false;
    size_t i;
    json_t *u;
    json_array_foreach(json_object_get(res.json, "unmapped"), i, u)
    {
        said = said || strcmp(json_string_value(json_object_get(u, "why")),
                              "no release of nvtabular contains commit 5dd11f4 as of 2026-03-13 "
                              "(ref_commit_release)") == 0;
    }
    if (!said)
        fail_msg("5739: NVTabular not left out for its commit: %s", res.body);
    imx_t_res_free(&res);

    /* the reference import: the shipped commits, 5dd11f4 now with a release */
    char path[1024], line[4096];
    snprintf(path, sizeof path, "%s/tools/reference/commit_release_0411.csv",
             getenv("IMX_TEST_SOURCE_DIR"));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t cap = 1 << 16, used = 0;
    char *csv = malloc(cap);
    assert_non_null(csv);
    while (fgets(line, sizeof line, f)) {
        char *gap = strstr(line, "5dd11f4a331373d7c226dae4611139bb4e43d213,,");
        char edited[4200];
        if (gap) {
            size_t at = (size_t)(gap - line) + 41;
            snprintf(edited, sizeof edited, "%.*s26.01%s", (int)at, line, line + at);
        }
        const char *l = gap ? edited : line;
        size_t n = strlen(l);
        assert_true(used + n + 1 < cap);
        memcpy(csv + used, l, n);
        used += n;
    }
    fclose(f);
    csv[used] = '\0';
    post_reference("test-commits", "commit_release", csv);
    free(csv);
    reapply_gives("NVIDIA-5739", "revised", "<26.01", "26.01");
    marked(w.old, "NVIDIA-5739", w.fix);
    json_decref(heard_once("/nvtabular", w.pin, w.fix));
}

/* An advisory stored by an earlier reading of the bulletin (TAO's "6.25.7" as "=6.25.7", which
 * left the 6.25.7.1 build unmarked) is read again by reapply although it left no product out:
 * revised to the version and its builds, and the build's image is marked with its fix. */
static void a_stored_advisory_takes_the_new_reading_on_reapply(void **state)
{
    (void)state;
    long long build = publish("feed-tao-build", "1", "tao", "6.25.7.1");
    long long fix = publish("feed-tao-build", "2", "tao", "6.25.9");
    struct imx_res rv;
    char auth[4200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", admin);
    struct imx_res res = call(pub, "GET", "/v1/advisories/NVIDIA-5730", NULL, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "unmapped")), 0);
    imx_t_res_free(&res);
    const char *hdr[] = { auth, "Content-Type: application/json", "If-Match: *", NULL };
    assert_int_equal(imx_t_http(&srv, "PATCH", "/v1/advisories/NVIDIA-5730", hdr,
                                "{\"affected\":[{\"component\":\"tao\",\"range\":\"=6.25.7\","
                                "\"fixed\":\"6.25.9\"}]}",
                                &rv),
                     0);
    if (rv.status != 200)
        fail_msg("PATCH NVIDIA-5730: %ld %s", rv.status, rv.body);
    imx_t_res_free(&rv);
    char path[64];
    snprintf(path, sizeof path, "/v1/images/%lld/patch", build);
    res = call(pub, "GET", path, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "ok");
    imx_t_res_free(&res);

    reapply_gives("NVIDIA-5730", "revised", ">=6.25.7, <6.25.8dev0", "6.25.9");
    marked(build, "NVIDIA-5730", fix);
    reapply_gives("NVIDIA-5730", "unchanged", ">=6.25.7, <6.25.8dev0", "6.25.9");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_jetpack_numbered_bulletin_marks_the_l4t_before_its_fix),
        cmocka_unit_test(each_new_component_is_marked_by_its_bulletin_and_its_pin_hears_once),
        cmocka_unit_test(a_bulletin_about_nothing_imaxe_tracks_is_kept_as_such),
        cmocka_unit_test(an_unmapped_product_is_reapplied_after_a_reference_update),
        cmocka_unit_test(a_bulletin_in_the_servers_numbering_is_reapplied_when_the_pairs_change),
        cmocka_unit_test(a_fix_named_by_commit_is_reapplied_when_a_release_holds_it),
        cmocka_unit_test(a_stored_advisory_takes_the_new_reading_on_reapply),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
