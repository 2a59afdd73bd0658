/* The catalog over HTTP against the real server: publish (201, 409, 400 with pointers), ETag and
 * If-None-Match, lifecycle PATCH (428, 412, 403 across teams, cascade), lineage, search (version
 * boundaries, keyset pages under concurrent inserts, facets, bad constraints), compare, resolve
 * (never revoked, revoke_at), the compatibility check and reference data. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], pub_a[4096], pub_b[4096], viewer[4096];

static int setup(void **state)
{
    (void)state;
    if (imx_t_server_up(&srv, "catalog_api", NULL, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "team-a", "pa@a.test", "publisher", pub_a, sizeof pub_a) != 0 ||
        imx_t_user(&srv, admin, "team-b", "pb@b.test", "publisher", pub_b, sizeof pub_b) != 0 ||
        imx_t_user(&srv, admin, "team-c", "v@c.test", "viewer", viewer, sizeof viewer) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

/* A request with a bearer token and one extra header (may be NULL). */
static void req(const char *token, const char *method, const char *path, const char *body,
                const char *extra, struct imx_res *res)
{
    char auth[4200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    const char *headers[] = { auth, "Content-Type: application/json", extra, NULL };
    assert_int_equal(imx_t_http(&srv, method, path, headers, body, res), 0);
}

/* A manifest; parent 0 = none. New string. */
static char *manifest(const char *team, const char *family, const char *version, const char *driver,
                      const char *cuda, const char *region, long long parent)
{
    json_t *m = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:s, s:[{s:s, s:s}],"
        " s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}], s:[s, s], s:[s], s:[s], s:i, s:f, s:s}",
        "team", team, "family", family, "version", version, "provider", "aws", "architecture",
        "x86_64", "os", "name", "ubuntu", "version", "24.04", "layer",
        parent ? "model" : "platform", "artifacts", "region", region, "id", "ami-0123456789abcdef0",
        "components", "name", "nvidia-driver", "version", driver, "name", "cuda", "version", cuda,
        "name", "pytorch", "version", "2.9.0+cu130", "gpus", "H100", "B200", "instance_families",
        "p5", "tags", "cis", "boot_seconds", 60, "size_gb", 40.5, "description", "test image");
    if (parent)
        json_object_set_new(m, "parent", json_integer(parent));
    char *s = json_dumps(m, JSON_COMPACT);
    json_decref(m);
    return s;
}

/* Publishes as pub_a into team-a; returns the id. */
static long long publish(const char *family, const char *version, const char *driver,
                         const char *cuda, long long parent)
{
    char *m = manifest("team-a", family, version, driver, cuda, "us-east-1", parent);
    struct imx_res res;
    req(pub_a, "POST", "/v1/images", m, NULL, &res);
    free(m);
    if (res.status != 201)
        fail_msg("publish %s %s: %ld %s", family, version, res.status, res.body);
    long long id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    return id;
}

/* The ETag of an image (copied into buf). */
static const char *etag_of(long long id, char *buf, size_t len)
{
    char path[64];
    struct imx_res res;
    snprintf(path, sizeof path, "/v1/images/%lld", id);
    req(viewer, "GET", path, NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    assert_non_null(imx_t_header(&res, "ETag", buf, len));
    imx_t_res_free(&res);
    return buf;
}

static bool has_pointer(const struct imx_res *res, const char *pointer)
{
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(res->json, "errors"), i, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "pointer")), pointer) == 0)
            return true;
    }
    return false;
}

static void publish_get_and_conflicts(void **state)
{
    (void)state;
    char *m = manifest("team-a", "pub-test", "1", "580.95.05", "13.0.2", "us-east-1", 0);
    struct imx_res res;
    char loc[128], etag[128], etag2[128];
    req(pub_a, "POST", "/v1/images", m, NULL, &res);
    assert_int_equal(res.status, 201);
    long long id = json_integer_value(json_object_get(res.json, "id"));
    assert_true(id > 0);
    assert_string_equal(json_string_value(json_object_get(res.json, "team")), "team-a");
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "active");
    assert_non_null(json_object_get(res.json, "published_at"));
    json_t *compat = json_object_get(res.json, "compatibility");
    assert_true(json_is_boolean(json_object_get(compat, "ok")));
    assert_true(json_is_array(json_object_get(compat, "findings")));
    assert_non_null(imx_t_header(&res, "Location", loc, sizeof loc));
    assert_non_null(imx_t_header(&res, "ETag", etag, sizeof etag));
    char want[64];
    snprintf(want, sizeof want, "/v1/images/%lld", id);
    assert_string_equal(loc, want);
    imx_t_res_free(&res);

    /* Same family and version again: 409. */
    req(pub_a, "POST", "/v1/images", m, NULL, &res);
    imx_t_assert_problem(&res, 409);
    imx_t_res_free(&res);
    free(m);

    /* GET with the ETag; If-None-Match -> 304. */
    assert_string_equal(etag_of(id, etag2, sizeof etag2), etag);
    char inm[200];
    snprintf(inm, sizeof inm, "If-None-Match: %s", etag);
    req(viewer, "GET", want, NULL, inm, &res);
    assert_int_equal(res.status, 304);
    imx_t_res_free(&res);
    req(viewer, "GET", want, NULL, "If-None-Match: \"other\"", &res);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/images/99999999", NULL, NULL, &res);
    imx_t_assert_problem(&res, 404);
    imx_t_res_free(&res);

    /* Another team's publisher cannot publish into team-a; a viewer cannot publish at all. */
    m = manifest("team-a", "pub-test", "2", "580.95.05", "13.0.2", "us-east-1", 0);
    req(pub_b, "POST", "/v1/images", m, NULL, &res);
    imx_t_assert_problem(&res, 404);
    imx_t_res_free(&res);
    req(viewer, "POST", "/v1/images", m, NULL, &res);
    imx_t_assert_problem(&res, 403);
    imx_t_res_free(&res);
    free(m);
}

static void invalid_manifest_lists_every_pointer(void **state)
{
    (void)state;
    const char *bad =
        "{\"team\":\"team-a\",\"family\":\"Bad Family\",\"version\":\"1\",\"provider\":\"ibm\","
        "\"architecture\":\"sparc\",\"os\":{\"name\":\"Ubuntu\",\"version\":\"24.04\",\"x\":1},"
        "\"layer\":\"middle\",\"artifacts\":[{\"region\":\"us-east-1\",\"id\":\"ami-1\"},"
        "{\"region\":\"us-east-1\",\"id\":\"ami-2\"}],\"components\":[{\"name\":\"cuda\","
        "\"version\":\"twelve\"},{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"},"
        "{\"name\":\"nvidia-driver\",\"version\":\"580.105.08\"}],\"gpus\":[\"H100\",\"H100\"],"
        "\"tags\":[\"Bad Tag\"],\"boot_seconds\":-1,\"size_gb\":-2,\"parent\":99999999,"
        "\"id\":5}";
    struct imx_res res;
    req(pub_a, "POST", "/v1/images", bad, NULL, &res);
    imx_t_assert_problem(&res, 400);
    const char *pointers[] = { "/family",
                               "/provider",
                               "/architecture",
                               "/os/name",
                               "/os/x",
                               "/layer",
                               "/artifacts/1/region",
                               "/components/0/version",
                               "/components/2/name",
                               "/gpus/1",
                               "/tags/0",
                               "/boot_seconds",
                               "/size_gb",
                               "/id" };
    for (size_t i = 0; i < sizeof pointers / sizeof pointers[0]; i++)
        if (!has_pointer(&res, pointers[i]))
            fail_msg("no error for %s in %s", pointers[i], res.body);
    imx_t_res_free(&res);

    /* A parent that does not exist is reported once the rest is valid. */
    char *m = manifest("team-a", "orphan", "1", "580.95.05", "13.0.2", "us-east-1", 99999999);
    req(pub_a, "POST", "/v1/images", m, NULL, &res);
    imx_t_assert_problem(&res, 400);
    assert_true(has_pointer(&res, "/parent"));
    imx_t_res_free(&res);
    free(m);
}

static void patch_lifecycle(void **state)
{
    (void)state;
    long long parent = publish("life-platform", "1", "580.95.05", "13.0.2", 0);
    long long child = publish("life-model", "1", "580.95.05", "13.0.2", parent);
    long long grandchild = publish("life-model2", "1", "580.95.05", "13.0.2", child);
    char path[64], etag[128], im[200];
    struct imx_res res;
    snprintf(path, sizeof path, "/v1/images/%lld", parent);

    req(pub_a, "PATCH", path, "{\"status\":\"deprecated\"}", NULL, &res);
    imx_t_assert_problem(&res, 428);
    imx_t_res_free(&res);
    req(pub_a, "PATCH", path, "{\"status\":\"deprecated\"}", "If-Match: \"stale\"", &res);
    imx_t_assert_problem(&res, 412);
    imx_t_res_free(&res);

    etag_of(parent, etag, sizeof etag);
    snprintf(im, sizeof im, "If-Match: %s", etag);
    /* team-b's publisher sees the image but may not change it: 403. */
    req(pub_b, "PATCH", path, "{\"status\":\"deprecated\"}", im, &res);
    imx_t_assert_problem(&res, 403);
    imx_t_res_free(&res);
    req(viewer, "PATCH", path, "{\"status\":\"deprecated\"}", im, &res);
    imx_t_assert_problem(&res, 403);
    imx_t_res_free(&res);
    req(pub_a, "PATCH", path, "{\"status\":\"revoked\"}", im, &res);
    imx_t_assert_problem(&res, 400);
    assert_true(has_pointer(&res, "/reason"));
    imx_t_res_free(&res);
    req(pub_a, "PATCH", path,
        "{\"status\":\"revoked\",\"reason\":\"x\",\"revoke_at\":\"2001-01-01T00:00:00Z\"}", im,
        &res);
    imx_t_assert_problem(&res, 400);
    assert_true(has_pointer(&res, "/revoke_at"));
    imx_t_res_free(&res);

    req(pub_a, "PATCH", path, "{\"status\":\"deprecated\",\"reason\":\"superseded\"}", im, &res);
    assert_int_equal(res.status, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "deprecated");
    char etag2[128];
    assert_non_null(imx_t_header(&res, "ETag", etag2, sizeof etag2));
    assert_string_not_equal(etag, etag2);
    imx_t_res_free(&res);
    /* The old ETag is now stale. */
    req(pub_a, "PATCH", path, "{\"status\":\"active\"}", im, &res);
    imx_t_assert_problem(&res, 412);
    imx_t_res_free(&res);

    /* Cascade: revoking the parent revokes every descendant. */
    snprintf(im, sizeof im, "If-Match: %s", etag2);
    req(pub_a, "PATCH", path,
        "{\"status\":\"revoked\",\"reason\":\"CVE-2025-0001\",\"cascade\":true}", im, &res);
    assert_int_equal(res.status, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "revoked");
    imx_t_res_free(&res);
    long long kids[] = { child, grandchild };
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "/v1/images/%lld", kids[i]);
        req(viewer, "GET", path, NULL, NULL, &res);
        assert_string_equal(json_string_value(json_object_get(res.json, "status")), "revoked");
        assert_string_equal(json_string_value(json_object_get(res.json, "status_reason")),
                            "CVE-2025-0001");
        imx_t_res_free(&res);
    }
    /* Restore the parent: its children stay revoked. A global admin may do it too. */
    snprintf(path, sizeof path, "/v1/images/%lld", parent);
    etag_of(parent, etag, sizeof etag);
    snprintf(im, sizeof im, "If-Match: %s", etag);
    req(admin, "PATCH", path, "{\"status\":\"active\"}", im, &res);
    assert_int_equal(res.status, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "active");
    imx_t_res_free(&res);

    /* Every change is audited. */
    char q[256];
    snprintf(q, sizeof q,
             "SELECT count(*) FROM audit_log WHERE resource = 'image' AND resource_id = '%lld'",
             parent);
    char *n = imx_t_sql(db, q);
    assert_non_null(n);
    assert_int_equal(atoi(n), 4); /* publish, deprecate, revoke, restore */
    free(n);
}

static void lineage_reports_outdated_parent(void **state)
{
    (void)state;
    long long p1 = publish("lin-platform", "1", "580.95.05", "13.0.2", 0);
    long long m1 = publish("lin-model", "1", "580.95.05", "13.0.2", p1);
    char path[64];
    struct imx_res res;
    snprintf(path, sizeof path, "/v1/images/%lld/lineage", m1);
    req(viewer, "GET", path, NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    assert_true(
        json_is_false(json_object_get(json_object_get(res.json, "image"), "outdated_parent")));
    assert_int_equal(json_integer_value(json_object_get(
                         json_array_get(json_object_get(res.json, "parents"), 0), "id")),
                     p1);
    imx_t_res_free(&res);

    long long p2 = publish("lin-platform", "2", "580.105.08", "13.0.2", 0);
    req(viewer, "GET", path, NULL, NULL, &res);
    json_t *img = json_object_get(res.json, "image");
    assert_true(json_is_true(json_object_get(img, "outdated_parent")));
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(img, "newer_parent"), "id")), p2);
    imx_t_res_free(&res);

    snprintf(path, sizeof path, "/v1/images/%lld/lineage", p1);
    req(viewer, "GET", path, NULL, NULL, &res);
    json_t *child = json_array_get(json_object_get(res.json, "children"), 0);
    assert_int_equal(json_integer_value(json_object_get(child, "id")), m1);
    assert_true(json_is_true(json_object_get(child, "outdated_parent")));
    assert_true(json_is_null(json_object_get(res.json, "next_cursor")));
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/images/99999999/lineage", NULL, NULL, &res);
    imx_t_assert_problem(&res, 404);
    imx_t_res_free(&res);
}

/* An image's children come a page at a time, by id; the image and its parents on every page. */
static void lineage_pages_children(void **state)
{
    (void)state;
    long long base = publish("lin-paged-base", "1", "580.95.05", "13.0.2", 0);
    long long kids[5];
    for (int i = 0; i < 5; i++) {
        char version[8];
        snprintf(version, sizeof version, "%d", i + 1);
        kids[i] = publish("lin-paged-kid", version, "580.95.05", "13.0.2", base);
    }
    char path[1024], link[1024];
    struct imx_res res;
    long long seen[8];
    size_t n_seen = 0;
    snprintf(path, sizeof path, "/v1/images/%lld/lineage?limit=2", base);
    for (int page = 0; page < 4; page++) {
        req(viewer, "GET", path, NULL, NULL, &res);
        assert_int_equal(res.status, 200);
        assert_int_equal(
            json_integer_value(json_object_get(json_object_get(res.json, "image"), "id")), base);
        json_t *children = json_object_get(res.json, "children");
        assert_true(json_array_size(children) <= 2);
        for (size_t k = 0; k < json_array_size(children) && n_seen < 8; k++)
            seen[n_seen++] = json_integer_value(json_object_get(json_array_get(children, k), "id"));
        json_t *next = json_object_get(res.json, "next_cursor");
        const char *l = imx_t_header(&res, "Link", link, sizeof link);
        if (json_is_null(next)) {
            assert_null(l);
            imx_t_res_free(&res);
            break;
        }
        assert_non_null(l);
        assert_non_null(strstr(l, json_string_value(next)));
        snprintf(path, sizeof path, "/v1/images/%lld/lineage?limit=2&cursor=%s", base,
                 json_string_value(next));
        imx_t_res_free(&res);
    }
    /* every child once, in id order, over three pages */
    assert_int_equal(n_seen, 5);
    for (size_t k = 0; k < 5; k++)
        assert_int_equal(seen[k], kids[k]);
    snprintf(path, sizeof path, "/v1/images/%lld/lineage?limit=0", base);
    req(viewer, "GET", path, NULL, NULL, &res);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/images/%lld/lineage?cursor=bogus", base);
    req(viewer, "GET", path, NULL, NULL, &res);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
}

/* How many items a search returns, and whether id is among them. */
static size_t search_count(const char *query, long long id, bool *seen)
{
    char path[1024];
    struct imx_res res;
    snprintf(path, sizeof path, "/v1/images?%s&limit=200", query);
    req(viewer, "GET", path, NULL, NULL, &res);
    if (res.status != 200)
        fail_msg("%s: %ld %s", path, res.status, res.body);
    json_t *items = json_object_get(res.json, "items"), *it;
    size_t i;
    *seen = false;
    json_array_foreach(items, i, it)
    {
        if (json_integer_value(json_object_get(it, "id")) == id)
            *seen = true;
    }
    size_t n = json_array_size(items);
    imx_t_res_free(&res);
    return n;
}

/* Publishes a one-off image of family with the GPUs gpus_json (a JSON array); returns its id. */
static long long publish_gpus(const char *family, const char *version, const char *gpus_json)
{
    char *m = manifest("team-a", family, version, "580.95.05", "13.0.2", "us-east-1", 0);
    json_t *doc = json_loads(m, 0, NULL);
    free(m);
    json_object_set_new(doc, "gpus", json_loads(gpus_json, JSON_DECODE_ANY, NULL));
    char *body = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    struct imx_res res;
    req(pub_a, "POST", "/v1/images", body, NULL, &res);
    free(body);
    if (res.status != 201)
        fail_msg("publish %s %s: %ld %s", family, version, res.status, res.body);
    long long id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    return id;
}

/* gpu=A,B: the images with any of the GPUs named, each a model, a spelling or an architecture; a
 * name the reference does not know matches the spellings images were published with, in any
 * case (SQL answers those lists: the index matches one such name only). */
static void search_several_gpus(void **state)
{
    (void)state;
    long long l4 = publish_gpus("gpu-list", "1", "[\"L4\"]");
    long long t4 = publish_gpus("gpu-list", "2", "[\"T4\"]");
    long long h100 = publish_gpus("gpu-list", "3", "[\"H100\"]");
    long long odd = publish_gpus("gpu-list", "4", "[\"Weird-GPU-X\"]");
    static const struct {
        const char *gpu; /* URL-encoded */
        size_t total;
        bool l4, t4, h100, odd;
    } cases[] = {
        { "L4", 1, true, false, false, false },
        { "L4,T4", 2, true, true, false, false },
        { "T4,%20L4,L4", 2, true, true, false, false },
        { "L4,hopper", 2, true, false, true, false },
        { "weird-gpu-x,T4", 2, false, true, false, true },
        { "Nobody,Nothing", 0, false, false, false, false },
        { "%2C", 0, false, false, false, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char q[256];
        bool s_l4, s_t4, s_h100, s_odd;
        snprintf(q, sizeof q, "family=gpu-list&gpu=%s", cases[i].gpu);
        size_t n = search_count(q, l4, &s_l4);
        search_count(q, t4, &s_t4);
        search_count(q, h100, &s_h100);
        search_count(q, odd, &s_odd);
        if (n != cases[i].total || s_l4 != cases[i].l4 || s_t4 != cases[i].t4 ||
            s_h100 != cases[i].h100 || s_odd != cases[i].odd)
            fail_msg("%s: %zu items, L4 %d, T4 %d, H100 %d, odd %d", q, n, s_l4, s_t4, s_h100,
                     s_odd);
    }
}

static void search_constraints_at_version_boundaries(void **state)
{
    (void)state;
    long long a = publish("bound-api", "1", "580.95.05", "13.0.2", 0);
    long long b = publish("bound-api", "2", "580.105.08", "13.0.2", 0);
    publish("bound-api", "3", "570.133.20", "12.8.1", 0);
    static const struct {
        const char *constraint; /* URL-encoded */
        bool a, b;
        size_t total;
    } cases[] = {
        { "%3E%3D580.95.05", true, true, 2 },
        { "%3E580.95.05", false, true, 1 },
        { "%3C580.105.08", true, false, 2 },
        { "%3C%3D580.105.08", true, true, 3 },
        { "%3D580.95.05", true, false, 1 },
        { "~580", true, true, 2 },
        { "580.105.*", false, true, 1 },
        { "%3C580", false, false, 1 },
        { "%3E%3D580.95.05,%3C580.105", true, false, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char q[256];
        bool seen_a, seen_b;
        snprintf(q, sizeof q, "family=bound-api&component=nvidia-driver:%s", cases[i].constraint);
        size_t n = search_count(q, a, &seen_a);
        search_count(q, b, &seen_b);
        if (n != cases[i].total || seen_a != cases[i].a || seen_b != cases[i].b)
            fail_msg("%s: %zu items, a %d, b %d", q, n, seen_a, seen_b);
    }
    bool seen;
    assert_int_equal(
        search_count("family=bound-api&component=nvidia-driver:~580&component=cuda:%3C13", a,
                     &seen),
        0);
    assert_int_equal(search_count("family=bound-api&gpu=hopper&os=ubuntu:24.04&tag=cis", a, &seen),
                     3);

    /* Bad requests name the parameter. */
    struct imx_res res;
    req(viewer, "GET", "/v1/images?component=cuda:%3E%3Dtwelve", NULL, NULL, &res);
    imx_t_assert_problem(&res, 400);
    assert_non_null(strstr(json_string_value(json_object_get(res.json, "detail")), "component"));
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/images?component=cuda", NULL, NULL, &res);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/images?limit=201", NULL, NULL, &res);
    imx_t_assert_problem(&res, 400);
    assert_non_null(strstr(json_string_value(json_object_get(res.json, "detail")), "limit"));
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/images?sort=price", NULL, NULL, &res);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/images?cursor=cDoxOjE.AAAAAAAAAAAAAAAAAAAAAA", NULL, NULL, &res);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
}

static void pages_never_repeat_or_skip_under_inserts(void **state)
{
    (void)state;
    for (int i = 0; i < 12; i++) {
        char v[16];
        snprintf(v, sizeof v, "%d", i);
        publish("page-api", v, "580.95.05", "13.0.2", 0);
    }
    const char *sorts[] = { "-published_at", "family", "boot_seconds", "size_gb" };
    for (size_t si = 0; si < 4; si++) {
        char seen[64] = { 0 }, path[1024], link[1024];
        snprintf(path, sizeof path, "/v1/images?family=page-api&limit=5&sort=%s", sorts[si]);
        int pages = 0;
        for (;;) {
            struct imx_res res;
            req(viewer, "GET", path, NULL, NULL, &res);
            assert_int_equal(res.status, 200);
            json_t *it;
            size_t k;
            json_array_foreach(json_object_get(res.json, "items"), k, it)
            {
                int v = atoi(json_string_value(json_object_get(it, "version")));
                assert_int_equal(seen[v], 0);
                seen[v] = 1;
            }
            json_t *next = json_object_get(res.json, "next_cursor");
            const char *lh = imx_t_header(&res, "Link", link, sizeof link);
            if (!json_is_string(next)) {
                assert_null(lh);
                imx_t_res_free(&res);
                break;
            }
            /* The Link header carries the same cursor. */
            assert_non_null(lh);
            assert_non_null(strstr(link, json_string_value(next)));
            assert_non_null(strstr(link, "rel=\"next\""));
            snprintf(path, sizeof path, "/v1/images?family=page-api&limit=5&sort=%s&cursor=%s",
                     sorts[si], json_string_value(next));
            imx_t_res_free(&res);
            if (pages++ == 0) {
                char v[16];
                snprintf(v, sizeof v, "%zu", 40 + si);
                publish("page-api", v, "580.95.05", "13.0.2", 0);
            }
            assert_true(pages < 20);
        }
        for (int v = 0; v < 12; v++)
            assert_int_equal(seen[v], 1);
    }
}

static void facets_match_filtered_counts(void **state)
{
    (void)state;
    publish("facet-api", "1", "580.95.05", "13.0.2", 0);
    publish("facet-api", "2", "570.133.20", "12.8.1", 0);
    publish("facet-api", "3", "570.133.20", "12.8.1", 0);
    struct imx_res res;
    req(viewer, "GET", "/v1/images?family=facet-api&facets=true&limit=1", NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    json_t *f = json_incref(json_object_get(res.json, "facets"));
    imx_t_res_free(&res);
    assert_int_equal(json_integer_value(json_object_get(f, "total")), 3);
    const char *names[] = { "driver_branch", "cuda", "gpu", "tag" };
    for (size_t i = 0; i < 4; i++) {
        json_t *e;
        size_t k;
        assert_true(json_array_size(json_object_get(f, names[i])) > 0);
        json_array_foreach(json_object_get(f, names[i]), k, e)
        {
            const char *v = json_string_value(json_object_get(e, "value"));
            char q[256];
            bool seen;
            if (i == 0)
                snprintf(q, sizeof q, "family=facet-api&component=nvidia-driver:~%s", v + 1);
            else if (i == 1)
                snprintf(q, sizeof q, "family=facet-api&component=cuda:%s.*", v);
            else if (i == 2)
                snprintf(q, sizeof q, "family=facet-api&gpu=%s", v);
            else
                snprintf(q, sizeof q, "family=facet-api&tag=%s", v);
            assert_int_equal(search_count(q, 0, &seen),
                             json_integer_value(json_object_get(e, "count")));
        }
    }
    json_decref(f);
}

static void compare_images(void **state)
{
    (void)state;
    long long a = publish("cmp-api", "1", "580.95.05", "13.0.2", 0);
    long long b = publish("cmp-api", "2", "580.105.08", "13.0.2", 0);
    char path[128];
    struct imx_res res;
    snprintf(path, sizeof path, "/v1/compare?ids=%lld,%lld", a, b);
    req(viewer, "GET", path, NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "images")), 2);
    json_t *e;
    size_t k;
    int found = 0;
    json_array_foreach(json_object_get(res.json, "components"), k, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (strcmp(name, "nvidia-driver") == 0) {
            assert_true(json_is_true(json_object_get(e, "differs")));
            assert_string_equal(json_string_value(json_array_get(json_object_get(e, "values"), 1)),
                                "580.105.08");
            found++;
        } else if (strcmp(name, "cuda") == 0) {
            assert_true(json_is_false(json_object_get(e, "differs")));
            found++;
        }
    }
    assert_int_equal(found, 2);
    json_array_foreach(json_object_get(res.json, "fields"), k, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "name")), "boot_seconds") == 0)
            assert_true(json_is_false(json_object_get(e, "differs")));
    }
    /* The seven stored fields, patch_status and its OS half; costs has one entry per image. */
    assert_int_equal(json_array_size(json_object_get(res.json, "fields")), 10);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(res.json, "fields"), 7), "name")),
                        "patch_status");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(res.json, "fields"), 8), "name")),
                        "os_patch_status");
    assert_int_equal(json_array_size(json_object_get(res.json, "costs")), 2);
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/compare?ids=%lld,99999999", a);
    req(viewer, "GET", path, NULL, NULL, &res);
    imx_t_assert_problem(&res, 404);
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/compare?ids=%lld", a);
    req(viewer, "GET", path, NULL, NULL, &res);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/compare?ids=%lld,%lld", a, a);
    req(viewer, "GET", path, NULL, NULL, &res);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
}

static long long resolved_id(const char *query, long *status)
{
    char path[512];
    struct imx_res res;
    snprintf(path, sizeof path, "/v1/images/resolve?%s", query);
    req(viewer, "GET", path, NULL, NULL, &res);
    *status = res.status;
    long long id = json_integer_value(json_object_get(json_object_get(res.json, "image"), "id"));
    if (res.status == 200)
        assert_string_equal(json_string_value(json_object_get(res.json, "artifact_id")),
                            "ami-0123456789abcdef0");
    imx_t_res_free(&res);
    return id;
}

static void resolve_never_returns_revoked(void **state)
{
    (void)state;
    long long old = publish("res-api", "1", "580.95.05", "13.0.2", 0);
    long long mid = publish("res-api", "2", "580.105.08", "13.0.2", 0);
    long long newest = publish("res-api", "3", "580.126.09", "13.0.2", 0);
    long status;
    assert_int_equal(resolved_id("family=res-api&region=us-east-1", &status), newest);
    assert_int_equal(
        resolved_id("family=res-api&region=us-east-1&component=nvidia-driver:%3C580.105", &status),
        old);
    /* Revoked through the API. */
    char path[64], etag[128], im[200];
    struct imx_res res;
    snprintf(path, sizeof path, "/v1/images/%lld", newest);
    snprintf(im, sizeof im, "If-Match: %s", etag_of(newest, etag, sizeof etag));
    req(pub_a, "PATCH", path, "{\"status\":\"revoked\",\"reason\":\"CVE\"}", im, &res);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    assert_int_equal(resolved_id("family=res-api&region=us-east-1", &status), mid);
    /* A scheduled revocation: still resolvable until revoke_at; once it has passed, revoked. */
    snprintf(path, sizeof path, "/v1/images/%lld", mid);
    snprintf(im, sizeof im, "If-Match: %s", etag_of(mid, etag, sizeof etag));
    req(pub_a, "PATCH", path,
        "{\"status\":\"revoked\",\"reason\":\"EOL\",\"revoke_at\":\"2999-01-01T00:00:00Z\"}", im,
        &res);
    assert_int_equal(res.status, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "active");
    imx_t_res_free(&res);
    assert_int_equal(resolved_id("family=res-api&region=us-east-1", &status), mid);
    char q[200];
    snprintf(q, sizeof q,
             "UPDATE images SET revoke_at = now() - interval '1 second' WHERE id = %lld "
             "RETURNING id",
             mid);
    free(imx_t_sql(db, q));
    assert_int_equal(resolved_id("family=res-api&region=us-east-1", &status), old);
    req(viewer, "GET", path, NULL, NULL, &res);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "revoked");
    imx_t_res_free(&res);
    bool seen;
    search_count("family=res-api", mid, &seen);
    assert_false(seen);
    /* The due revocation becomes a real one within a poll of the dispatcher (1 s here): the
     * stored status and the patch status follow, as after a PATCH to revoked. */
    char *stored = NULL;
    snprintf(q, sizeof q, "SELECT status || ',' || patch_status FROM images WHERE id = %lld", mid);
    for (int i = 0; i < 50; i++) {
        free(stored);
        stored = imx_t_sql(db, q);
        if (stored && strcmp(stored, "revoked,revoked") == 0)
            break;
        imx_t_sleep_ms(100);
    }
    assert_string_equal(stored, "revoked,revoked");
    free(stored);
    search_count("family=res-api&status=revoked&patch_status=revoked", mid, &seen);
    assert_true(seen);

    /* Which filter emptied the set. */
    resolved_id("family=res-api&region=ap-south-1", &status);
    assert_int_equal(status, 404);
    req(viewer, "GET", "/v1/images/resolve?family=res-api&region=ap-south-1", NULL, NULL, &res);
    assert_non_null(strstr(json_string_value(json_object_get(res.json, "detail")), "region"));
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/images/resolve?family=res-api&region=us-east-1&component=cuda:%3C13",
        NULL, NULL, &res);
    imx_t_assert_problem(&res, 404);
    assert_non_null(strstr(json_string_value(json_object_get(res.json, "detail")), "cuda"));
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/images/resolve?family=nope&region=us-east-1", NULL, NULL, &res);
    imx_t_assert_problem(&res, 404);
    assert_non_null(strstr(json_string_value(json_object_get(res.json, "detail")), "family"));
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/images/resolve?family=res-api", NULL, NULL, &res);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
}

/* PATCHes the image with body as pub_a and returns the reply's revoke_at (new, or NULL). */
static char *patch_revoke_at(long long id, const char *body, const char *want_status)
{
    char path[64], etag[128], im[200];
    struct imx_res res;
    snprintf(path, sizeof path, "/v1/images/%lld", id);
    snprintf(im, sizeof im, "If-Match: %s", etag_of(id, etag, sizeof etag));
    req(pub_a, "PATCH", path, body, im, &res);
    assert_int_equal(res.status, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), want_status);
    const char *at = json_string_value(json_object_get(res.json, "revoke_at"));
    char *out = at ? strdup(at) : NULL;
    imx_t_res_free(&res);
    return out;
}

static void deprecation_keeps_a_scheduled_revocation(void **state)
{
    (void)state;
    long long id = publish("sched-api", "1", "580.95.05", "13.0.2", 0);
    char *at = patch_revoke_at(
        id, "{\"status\":\"revoked\",\"reason\":\"EOL\",\"revoke_at\":\"2999-01-01T00:00:00Z\"}",
        "active");
    assert_non_null(at);
    free(at);
    /* Deprecated in the meantime: still revoked at the scheduled time. */
    at = patch_revoke_at(id, "{\"status\":\"deprecated\",\"reason\":\"superseded\"}", "deprecated");
    assert_non_null(at);
    assert_non_null(strstr(at, "2999-01-01"));
    free(at);
    /* Restored: the schedule is gone. */
    at = patch_revoke_at(id, "{\"status\":\"active\"}", "active");
    assert_null(at);
}

static void compat_check_and_reference_data(void **state)
{
    (void)state;
    struct imx_res res;
    req(viewer, "POST", "/v1/compat/check",
        "{\"components\":[{\"name\":\"nvidia-driver\",\"version\":\"535.183.01\"},"
        "{\"name\":\"cuda\",\"version\":\"12.8.0\"}],\"gpus\":[\"B200\"]}",
        NULL, &res);
    assert_int_equal(res.status, 200);
    assert_true(json_is_false(json_object_get(res.json, "ok")));
    json_t *f0 = json_array_get(json_object_get(res.json, "findings"), 0);
    assert_string_equal(json_string_value(json_object_get(f0, "severity")), "error");
    assert_non_null(json_object_get(f0, "code"));
    assert_true(json_is_array(json_object_get(f0, "components")));
    imx_t_res_free(&res);
    req(viewer, "POST", "/v1/compat/check", "{\"components\":[{\"name\":\"cuda\"}],\"x\":1}", NULL,
        &res);
    imx_t_assert_problem(&res, 400);
    assert_true(has_pointer(&res, "/components/0") && has_pointer(&res, "/x"));
    imx_t_res_free(&res);

    req(viewer, "GET", "/v1/reference/gpu", NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    assert_true(json_array_size(json_object_get(res.json, "items")) > 10);
    imx_t_res_free(&res);
    /* The NVIDIA feed's product map and Triton's two numberings read like any other table. */
    req(viewer, "GET", "/v1/reference/nvidia_product?limit=200", NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    assert_true(json_array_size(json_object_get(res.json, "items")) > 50);
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/reference/version_alias?limit=200", NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    assert_true(json_array_size(json_object_get(res.json, "items")) > 80);
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/reference/commit_release?limit=200", NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    assert_true(json_array_size(json_object_get(res.json, "items")) >= 11);
    imx_t_res_free(&res);
    req(viewer, "GET", "/v1/reference/users", NULL, NULL, &res);
    imx_t_assert_problem(&res, 404);
    imx_t_res_free(&res);

    const char *row = "{\"branch\":999,\"branch_type\":\"NFB\",\"type_basis\":\"releases.json\","
                      "\"status\":\"CONFIRMED\",\"source\":\"https://example.com\"}";
    req(pub_a, "POST", "/v1/reference/driver_branch", row, NULL, &res);
    imx_t_assert_problem(&res, 403);
    imx_t_res_free(&res);
    req(admin, "POST", "/v1/reference/driver_branch", row, NULL, &res);
    if (res.status != 201)
        fail_msg("reference create: %ld %s", res.status, res.body);
    imx_t_res_free(&res);
    req(admin, "POST", "/v1/reference/driver_branch", row, NULL, &res);
    imx_t_assert_problem(&res, 409);
    imx_t_res_free(&res);
    req(admin, "POST", "/v1/reference/driver_branch", "{\"branch\":998,\"colour\":\"red\"}", NULL,
        &res);
    imx_t_assert_problem(&res, 400);
    assert_true(has_pointer(&res, "/colour"));
    imx_t_res_free(&res);
    /* Correcting a row needs the table's ETag: 428 without, 412 stale, then done. */
    req(admin, "PUT", "/v1/reference/driver_branch", "{\"branch\":999,\"branch_type\":\"PB\"}",
        NULL, &res);
    imx_t_assert_problem(&res, 428);
    imx_t_res_free(&res);
    req(admin, "PUT", "/v1/reference/driver_branch", "{\"branch\":999,\"branch_type\":\"PB\"}",
        "If-Match: \"r1\"", &res);
    imx_t_assert_problem(&res, 412);
    imx_t_res_free(&res);
    req(admin, "GET", "/v1/reference/driver_branch", NULL, NULL, &res);
    char tag[64], if_match[96];
    assert_non_null(imx_t_header(&res, "ETag", tag, sizeof tag));
    imx_t_res_free(&res);
    snprintf(if_match, sizeof if_match, "If-Match: %s", tag);
    req(admin, "PUT", "/v1/reference/driver_branch", "{\"branch\":999,\"branch_type\":\"PB\"}",
        if_match, &res);
    assert_int_equal(res.status, 200);
    char after[64];
    assert_non_null(imx_t_header(&res, "ETag", after, sizeof after));
    assert_string_not_equal(after, tag);
    assert_string_equal(json_string_value(json_object_get(res.json, "branch_type")), "PB");
    imx_t_res_free(&res);
    snprintf(if_match, sizeof if_match, "If-Match: %s", after);
    req(admin, "PUT", "/v1/reference/driver_branch", "{\"branch\":997,\"branch_type\":\"PB\"}",
        if_match, &res);
    imx_t_assert_problem(&res, 404);
    imx_t_res_free(&res);
    char *n = imx_t_sql(db, "SELECT count(*) FROM audit_log WHERE resource = 'ref_driver_branch'");
    assert_int_equal(atoi(n), 2);
    free(n);
}

/* A query parameter the operation does not list, or a single-valued one given twice, is a 400
 * naming it, checked before the handler runs; declared repeatable ones may repeat. */
static void unknown_and_repeated_query_parameters_are_400(void **state)
{
    static const struct {
        const char *path;
        long status;
        const char *parameter; /* the problem's "parameter", or NULL */
    } cases[] = {
        { "/v1/images?gpuu=H100", 400, "gpuu" },
        { "/v1/images?gpu=H100&gpu=A100", 400, "gpu" },
        { "/v1/images?gpu=H100&limit=5&limit=6", 400, "limit" },
        { "/v1/images?tag=cis&tag=fips", 200, NULL },
        { "/v1/images?component=cuda:%3E%3D12&component=nvidia-driver:~580", 200, NULL },
        { "/v1/images?gpu=H100&limit=5", 200, NULL },
        { "/v1/images?q=x&q", 400, "q" },
        { "/v1/images/resolve?family=x&famly=y", 400, "famly" },
        { "/v1/compare?ids=1,2&ids=3,4", 400, "ids" },
        { "/v1/me?verbose=1", 400, "verbose" },
        { "/v1/costs?model=m&modle=m", 400, "modle" },
        { "/livez?probe=1", 400, "probe" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct imx_res res;
        req(viewer, "GET", cases[i].path, NULL, NULL, &res);
        if (res.status != cases[i].status)
            fail_msg("%s: %ld %s", cases[i].path, res.status, res.body);
        if (cases[i].parameter) {
            imx_t_assert_problem(&res, 400);
            assert_string_equal(json_string_value(json_object_get(res.json, "parameter")),
                                cases[i].parameter);
            assert_non_null(
                strstr(json_string_value(json_object_get(res.json, "detail")), cases[i].parameter));
        }
        imx_t_res_free(&res);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(publish_get_and_conflicts),
        cmocka_unit_test(invalid_manifest_lists_every_pointer),
        cmocka_unit_test(patch_lifecycle),
        cmocka_unit_test(lineage_reports_outdated_parent),
        cmocka_unit_test(lineage_pages_children),
        cmocka_unit_test(search_constraints_at_version_boundaries),
        cmocka_unit_test(search_several_gpus),
        cmocka_unit_test(pages_never_repeat_or_skip_under_inserts),
        cmocka_unit_test(facets_match_filtered_counts),
        cmocka_unit_test(compare_images),
        cmocka_unit_test(resolve_never_returns_revoked),
        cmocka_unit_test(deprecation_keeps_a_scheduled_revocation),
        cmocka_unit_test(compat_check_and_reference_data),
        cmocka_unit_test(unknown_and_repeated_query_parameters_are_400),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
