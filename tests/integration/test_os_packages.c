/* OS package inventories and distro advisories over HTTP: images published with a package list,
 * a CycloneDX 1.6 SBOM and an SPDX 2.3 SBOM; Ubuntu's OSV USN-6986-1 (openssl over
 * Ubuntu:24.04:LTS and Ubuntu:22.04:LTS) marks exactly the images below its fixed versions in
 * their own ecosystem (dpkg order: 3.0.13-0ubuntu3.10 is fixed, 3.0.13-0ubuntu3.3 is not), names
 * the first fixed build of each family, and stages one patch.available per pin on an affected
 * image; the image detail shows the packages it hits and the fix; bad input is a 400 naming the
 * field. Chunks are shared between builds. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], pub[4096];

static int setup(void **state)
{
    (void)state;
    static const char *const env[] = { "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9",
                                       "IMAXE_WEBHOOK_POLL_MS=200", NULL };
    if (imx_t_server_up(&srv, "os_packages", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "team-a", "pub@a.test", "publisher", pub, sizeof pub) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

static char *sql(const char *fmt, long long a)
{
    char q[1024];
    snprintf(q, sizeof q, fmt, a);
    char *v = imx_t_sql(db, q);
    assert_non_null(v);
    return v;
}

static void expect_sql(const char *want, const char *fmt, long long a)
{
    char *v = sql(fmt, a);
    if (strcmp(v, want) != 0)
        fail_msg("%s (%lld): '%s', expected '%s'", fmt, a, v, want);
    free(v);
}

static char *read_file(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/%s", getenv("IMX_TEST_SOURCE_DIR"), rel);
    json_t *doc = json_load_file(path, 0, NULL);
    assert_non_null(doc);
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return text;
}

/* Publishes family/version on os (ubuntu 24.04 unless os_version says otherwise) with extra, a
 * JSON member text ("\"packages\":[...]" or "\"sbom\":{...}" or ""). Returns the id, or the HTTP
 * status negated when it is not 201 (the body in last_body). */
static char last_body[8192];
static long long publish_os(const char *family, const char *version, const char *os_name,
                            const char *os_version, const char *extra)
{
    size_t n = strlen(extra) + 1024;
    char *body = malloc(n);
    assert_non_null(body);
    snprintf(body, n,
             "{\"team\":\"team-a\",\"family\":\"%s\",\"version\":\"%s\",\"provider\":\"aws\","
             "\"architecture\":\"x86_64\",\"os\":{\"name\":\"%s\",\"version\":\"%s\"},"
             "\"layer\":\"platform\",\"artifacts\":[{\"region\":\"us-east-1\",\"id\":"
             "\"ami-%s-%s\"}],\"components\":[{\"name\":\"nvidia-driver\",\"version\":"
             "\"580.105.08\"}]%s%s}",
             family, version, os_name, os_version, family, version, extra[0] ? "," : "", extra);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, pub, "POST", "/v1/images", body, &res), 0);
    free(body);
    long long id =
        res.status == 201 ? json_integer_value(json_object_get(res.json, "id")) : -res.status;
    snprintf(last_body, sizeof last_body, "%s", res.body ? res.body : "");
    imx_t_res_free(&res);
    return id;
}

static long long publish_pkgs(const char *family, const char *version, const char *pkgs)
{
    size_t n = strlen(pkgs) + 16;
    char *extra = malloc(n);
    assert_non_null(extra);
    snprintf(extra, n, "\"packages\":%s", pkgs);
    long long id = publish_os(family, version, "ubuntu", "24.04", extra);
    free(extra);
    if (id <= 0)
        fail_msg("publish %s %s: %lld %s", family, version, id, last_body);
    return id;
}

static long long pin(const char *name, long long image)
{
    char body[256];
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"%s\",\"image\":%lld}", name,
             image);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, pub, "POST", "/v1/pins", body, &res), 0);
    if (res.status != 201)
        fail_msg("pin %s: %ld %s", name, res.status, res.body);
    long long id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    return id;
}

/* The ids a search returns, comma-joined, against want. */
static void expect_search(const char *want, const char *query)
{
    char path[512], got[512] = "";
    snprintf(path, sizeof path, "/v1/images?limit=100&%s", query);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, pub, "GET", path, NULL, &res), 0);
    if (res.status != 200)
        fail_msg("%s: %ld %s", path, res.status, res.body);
    size_t i, o = 0;
    json_t *it;
    json_array_foreach(json_object_get(res.json, "items"), i, it)
    {
        o += (size_t)snprintf(got + o, sizeof got - o, "%s%lld", i ? "," : "",
                              (long long)json_integer_value(json_object_get(it, "id")));
    }
    imx_t_res_free(&res);
    if (strcmp(got, want) != 0)
        fail_msg("%s: %s, expected %s", path, got, want);
}

#define BASE "{\"name\":\"libc6\",\"version\":\"2.39-0ubuntu8.3\"}"

static void usn_marks_exactly_the_images_below_its_fix(void **state)
{
    (void)state;
    /* Family noble-a: a package list, then a CycloneDX SBOM, then an SPDX one. */
    long long a1 = publish_pkgs("noble-a", "1",
                                "[{\"name\":\"openssl\",\"version\":\"3.0.13-0ubuntu3.1\"}," BASE
                                ",{\"name\":\"zlib1g\",\"version\":\"1:1.3.dfsg-3.1ubuntu2\"}]");
    char *cdx = read_file("sbom/noble-cyclonedx-1.6.json");
    char *spdx = read_file("sbom/noble-spdx-2.3.json");
    char *extra = malloc(strlen(cdx) + strlen(spdx) + 32);
    assert_non_null(extra);
    sprintf(extra, "\"sbom\":%s", cdx);
    long long a2 = publish_os("noble-a", "2", "ubuntu", "24.04", extra);
    if (a2 <= 0)
        fail_msg("cyclonedx: %s", last_body);
    sprintf(extra, "\"sbom\":%s", spdx);
    long long a3 = publish_os("noble-a", "3", "ubuntu", "24.04", extra);
    if (a3 <= 0)
        fail_msg("spdx: %s", last_body);
    free(cdx);
    free(spdx);
    free(extra);
    expect_sql("manifest,cyclonedx,spdx",
               "SELECT string_agg(source, ',' ORDER BY image_id) FROM image_packages"
               " WHERE image_id >= %lld",
               a1);
    expect_sql("4", "SELECT n_packages FROM image_packages WHERE image_id = %lld", a2);

    /* Family noble-b holds only the binary libssl3t64 (the USN names its source, openssl). */
    long long b1 = publish_pkgs(
        "noble-b", "1", "[{\"name\":\"libssl3t64\",\"version\":\"3.0.13-0ubuntu3.1\"}," BASE "]");
    long long b2 = publish_pkgs(
        "noble-b", "2", "[{\"name\":\"libssl3t64\",\"version\":\"3.0.13-0ubuntu3.4\"}," BASE "]");
    long long b3 = publish_pkgs(
        "noble-b", "3", "[{\"name\":\"libssl3t64\",\"version\":\"3.0.13-0ubuntu3.5\"}," BASE "]");
    /* Ubuntu 22.04 (its own range in the USN), Debian 12 (not named), no openssl, no inventory. */
    long long j1 = publish_os("jammy", "1", "ubuntu", "22.04",
                              "\"packages\":[{\"name\":\"openssl\",\"version\":"
                              "\"3.0.2-0ubuntu1.15\"}]");
    long long d1 = publish_os("bookworm", "1", "debian", "12",
                              "\"packages\":[{\"name\":\"openssl\",\"version\":"
                              "\"3.0.11-1~deb12u2\"}]");
    long long c1 = publish_pkgs("noble-c", "1", "[" BASE "]");
    long long n1 = publish_os("noble-d", "1", "ubuntu", "24.04", "");
    assert_true(j1 > 0 && d1 > 0 && n1 > 0);
    expect_sql("ok", "SELECT os_patch_status FROM images WHERE id = %lld", a1);
    expect_sql("", "SELECT coalesce(os_patch_status, '') FROM images WHERE id = %lld", n1);

    /* Two builds of 300 packages, one version apart, share every chunk but one. */
    char *big = malloc(300 * 64 + 64);
    assert_non_null(big);
    long long s[2];
    for (int k = 0; k < 2; k++) {
        size_t o = (size_t)sprintf(big, "[");
        for (int i = 0; i < 300; i++)
            o += (size_t)sprintf(big + o, "%s{\"name\":\"pkg-%03d\",\"version\":\"1.0-%d\"}",
                                 i ? "," : "", i, i == 150 ? 1 + k : 1);
        sprintf(big + o, "]");
        char v[8];
        snprintf(v, sizeof v, "%d", k + 1);
        s[k] = publish_pkgs("share", v, big);
    }
    free(big);
    char *chunks =
        sql("SELECT cardinality(chunks) FROM image_packages WHERE image_id = %lld", s[0]);
    long long nchunks = atoll(chunks);
    free(chunks);
    assert_true(nchunks > 3);
    char want_n[32];
    snprintf(want_n, sizeof want_n, "%lld", nchunks + 1);
    expect_sql(want_n,
               "SELECT count(DISTINCT c) FROM image_packages, unnest(chunks) c"
               " WHERE image_id IN (%lld, %lld + 1)",
               s[0]);

    /* Pins: two on noble-a, one on noble-b, one on the Debian image (not affected). */
    long long p1 = pin("a-old", a1), p2 = pin("a-mid", a2), p3 = pin("b-old", b1);
    long long p4 = pin("deb", d1);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/webhooks",
                                   "{\"team\":\"team-a\",\"url\":\"http://127.0.0.1:9/h\","
                                   "\"events\":[\"patch.available\"]}",
                                   &res),
                     0);
    assert_int_equal(res.status, 201);
    imx_t_res_free(&res);

    char *usn = read_file("osv/USN-6986-1.json");
    assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/advisories", usn, &res), 0);
    free(usn);
    if (res.status != 201)
        fail_msg("USN: %ld %s", res.status, res.body);
    json_t *aff = json_object_get(res.json, "affected");
    assert_int_equal(json_array_size(aff), 5);
    assert_string_equal(json_string_value(json_object_get(json_array_get(aff, 0), "ecosystem")),
                        "Ubuntu:24.04:LTS");
    assert_string_equal(json_string_value(json_object_get(json_array_get(aff, 0), "fixed")),
                        "3.0.13-0ubuntu3.4");
    assert_int_equal(json_integer_value(json_object_get(res.json, "affected_images")), 4);
    imx_t_res_free(&res);

    /* Exactly a1, a2 (below 3.0.13-0ubuntu3.4), b1 (its binary) and j1 (22.04's range). */
    char want[256];
    snprintf(want, sizeof want, "%lld,%lld,%lld,%lld", a1, a2, b1, j1);
    expect_sql(want,
               "SELECT string_agg(image_id::text, ',' ORDER BY image_id) FROM image_advisories"
               " WHERE advisory_id = 'USN-6986-1' AND image_id >= %lld",
               a1);
    /* The first fixed build of each family; none yet for jammy. */
    snprintf(want, sizeof want, "%lld:%lld,%lld:%lld,%lld:%lld,%lld:", a1, a3, a2, a3, b1, b2, j1);
    expect_sql(want,
               "SELECT string_agg(image_id || ':' || coalesce(fixed_by::text, ''), ','"
               " ORDER BY image_id) FROM image_advisories WHERE advisory_id = 'USN-6986-1'"
               " AND image_id >= %lld",
               a1);
    expect_sql("patch_available", "SELECT os_patch_status FROM images WHERE id = %lld", a1);
    expect_sql("patch_available", "SELECT patch_status FROM images WHERE id = %lld", a2);
    expect_sql("ok", "SELECT os_patch_status FROM images WHERE id = %lld", a3);
    expect_sql("ok", "SELECT os_patch_status FROM images WHERE id = %lld", b3);
    expect_sql("vulnerable", "SELECT os_patch_status FROM images WHERE id = %lld", j1);
    expect_sql("ok", "SELECT os_patch_status FROM images WHERE id = %lld", d1);
    expect_sql("ok", "SELECT os_patch_status FROM images WHERE id = %lld", c1);
    expect_sql("ok", "SELECT patch_status FROM images WHERE id = %lld", n1);

    /* One patch.available per pin on an affected image that has a fix: p1, p2, p3, not p4. */
    snprintf(want, sizeof want, "%lld,%lld,%lld", p1, p2, p3);
    expect_sql(want,
               "SELECT string_agg(data->'pin'->>'id', ',' ORDER BY (data->'pin'->>'id')::bigint)"
               " FROM webhook_events WHERE type = 'patch.available' AND data->>'kind' = 'pin'"
               " AND id > %lld",
               0);
    (void)p4;
    expect_sql("USN-6986-1",
               "SELECT string_agg(DISTINCT data->'advisories'->0->>'id', ',') FROM webhook_events"
               " WHERE type = 'patch.available' AND id > %lld",
               0);

    /* Searches: by a package's version in dpkg order (3.0.13-0ubuntu3.10 sorts after ...3.3),
     * and by OS patch status. */
    snprintf(want, sizeof want, "%lld,%lld", a2, a1);
    expect_search(want, "package=openssl:%3E%3D3.0.13%2C%20%3C3.0.13-0ubuntu3.10");
    snprintf(want, sizeof want, "%lld", a3);
    expect_search(want, "package=openssl:%3E%3D3.0.13-0ubuntu3.10");
    snprintf(want, sizeof want, "%lld,%lld,%lld", b1, a2, a1);
    expect_search(want, "os_patch_status=patch_available");
    snprintf(want, sizeof want, "%lld", j1);
    expect_search(want, "os_patch_status=vulnerable");
    snprintf(want, sizeof want, "%lld", n1);
    expect_search(want, "os_patch_status=unknown&family=noble-d");
    struct imx_res bad;
    assert_int_equal(
        imx_t_http_as(&srv, pub, "GET", "/v1/images?package=openssl:%3C3.0%2F1", NULL, &bad), 0);
    assert_int_equal(bad.status, 400);
    imx_t_res_free(&bad);

    /* The image detail: the OS patch status, the packages the USN hits and the fix. */
    char path[64];
    snprintf(path, sizeof path, "/v1/images/%lld", b1);
    assert_int_equal(imx_t_http_as(&srv, pub, "GET", path, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    json_t *os = json_object_get(res.json, "os_packages");
    assert_string_equal(json_string_value(json_object_get(os, "patch_status")), "patch_available");
    assert_int_equal(json_integer_value(json_object_get(os, "packages")), 2);
    json_t *adv = json_array_get(json_object_get(os, "advisories"), 0);
    assert_string_equal(json_string_value(json_object_get(adv, "id")), "USN-6986-1");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(adv, "fixed_by"), "id")),
                     b2);
    json_t *hit = json_array_get(json_object_get(adv, "packages"), 0);
    assert_string_equal(json_string_value(json_object_get(hit, "name")), "libssl3t64");
    assert_string_equal(json_string_value(json_object_get(hit, "version")), "3.0.13-0ubuntu3.1");
    assert_string_equal(json_string_value(json_object_get(hit, "fixed")), "3.0.13-0ubuntu3.4");
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/images/%lld", n1);
    assert_int_equal(imx_t_http_as(&srv, pub, "GET", path, NULL, &res), 0);
    assert_true(json_is_null(json_object_get(res.json, "os_packages")));
    imx_t_res_free(&res);

    /* Compare: the OS patch status beside the GPU stack's, and the advisories' packages. */
    snprintf(path, sizeof path, "/v1/compare?ids=%lld,%lld", b1, b2);
    assert_int_equal(imx_t_http_as(&srv, pub, "GET", path, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    json_t *fields = json_object_get(res.json, "fields");
    json_t *ops = json_array_get(fields, json_array_size(fields) - 2);
    assert_string_equal(json_string_value(json_object_get(ops, "name")), "os_patch_status");
    assert_string_equal(json_string_value(json_array_get(json_object_get(ops, "values"), 0)),
                        "patch_available");
    assert_string_equal(json_string_value(json_array_get(json_object_get(ops, "values"), 1)), "ok");
    assert_true(json_is_true(json_object_get(ops, "differs")));
    json_t *oa = json_array_get(fields, json_array_size(fields) - 1);
    assert_string_equal(json_string_value(json_object_get(oa, "name")), "os_advisories");
    assert_string_equal(
        json_string_value(json_object_get(
            json_array_get(
                json_object_get(json_array_get(json_array_get(json_object_get(oa, "values"), 0), 0),
                                "packages"),
                0),
            "fixed")),
        "3.0.13-0ubuntu3.4");
    assert_int_equal(json_array_size(json_array_get(json_object_get(oa, "values"), 1)), 0);
    imx_t_res_free(&res);

    /* A later build that regresses is affected at publish, with no fix yet. */
    long long b4 = publish_pkgs(
        "noble-b", "4", "[{\"name\":\"libssl3t64\",\"version\":\"3.0.13-0ubuntu3\"}," BASE "]");
    expect_sql("vulnerable", "SELECT os_patch_status FROM images WHERE id = %lld", b4);

    /* Withdrawn: nothing is affected any more. */
    assert_int_equal(
        imx_t_http_as(&srv, admin, "DELETE", "/v1/advisories/USN-6986-1?reason=test", NULL, &res),
        0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    expect_sql("ok", "SELECT os_patch_status FROM images WHERE id = %lld", a1);
    expect_sql("ok", "SELECT os_patch_status FROM images WHERE id = %lld", b4);
}

static void bad_inventories_and_ranges_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *extra, *pointer;
    } cases[] = {
        { "\"packages\":[{\"name\":\"openssl\",\"version\":\"3.0_13\"}]", "/packages/0/version" },
        { "\"packages\":[{\"name\":\"open ssl\",\"version\":\"3.0\"}]", "/packages/0/name" },
        { "\"packages\":[{\"name\":\"openssl\",\"version\":\"3.0\",\"ecosystem\":\"PyPI\"}]",
          "/packages/0/ecosystem" },
        { "\"packages\":[{\"name\":\"openssl\",\"version\":\"3.0\",\"arch\":\"amd64\"}]",
          "/packages/0/arch" },
        { "\"packages\":[]", "/packages" },
        { "\"sbom\":{\"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.4\"}", "/sbom" },
        { "\"sbom\":{\"spdxVersion\":\"SPDX-2.3\",\"packages\":[{\"externalRefs\":[{"
          "\"referenceType\":\"purl\",\"referenceLocator\":\"pkg:deb/ubuntu/x@-1\"}]}]}",
          "/sbom/packages/0/externalRefs/0/referenceLocator" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char version[16];
        snprintf(version, sizeof version, "bad%zu", i);
        long long id = publish_os("bad", version, "ubuntu", "24.04", cases[i].extra);
        if (id != -400 || !strstr(last_body, cases[i].pointer))
            fail_msg("%s: %lld %s (expected 400 at %s)", cases[i].extra, id, last_body,
                     cases[i].pointer);
    }
    /* An OS without a known distro ecosystem needs one named per package. */
    long long id = publish_os("bad", "win", "windows", "2022",
                              "\"packages\":[{\"name\":\"openssl\",\"version\":\"3.0\"}]");
    assert_int_equal(id, -400);
    assert_non_null(strstr(last_body, "/packages/0/ecosystem"));
    expect_sql("0", "SELECT count(*) FROM images WHERE family = 'bad' AND %lld = 0", 0);

    static const struct {
        const char *affected, *pointer;
    } adv[] = {
        { "{\"ecosystem\":\"Ubuntu:24.04:LTS\",\"package\":\"openssl\",\"range\":\"<3.0_1\"}",
          "/affected/0/range" },
        { "{\"ecosystem\":\"Windows\",\"package\":\"openssl\",\"range\":\"<3\"}",
          "/affected/0/ecosystem" },
        { "{\"ecosystem\":\"Debian:12\",\"package\":\"openssl\",\"range\":\"<3\",\"fixed\":"
          "\"2.9\"}",
          "/affected/0/fixed" },
        { "{\"ecosystem\":\"Debian:12\",\"package\":\"open ssl\",\"range\":\"<3\"}",
          "/affected/0/package" },
    };
    for (size_t i = 0; i < sizeof adv / sizeof adv[0]; i++) {
        char body[1024];
        snprintf(body, sizeof body,
                 "{\"id\":\"BAD-%zu\",\"title\":\"t\",\"published\":\"2026-01-01\",\"severity\":"
                 "\"high\",\"affected\":[%s]}",
                 i, adv[i].affected);
        struct imx_res res;
        assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/advisories", body, &res), 0);
        if (res.status != 400 || !strstr(res.body, adv[i].pointer))
            fail_msg("%s: %ld %s (expected 400 at %s)", adv[i].affected, res.status, res.body,
                     adv[i].pointer);
        imx_t_res_free(&res);
    }
    expect_sql("0", "SELECT count(*) FROM advisories WHERE id LIKE 'BAD-%%' AND %lld = 0", 0);
}

/* The OS part of a document lists, for each advisory, exactly the versions the image holds,
 * whether the advisory's ranges cover few versions (imx_image_os_json walks the image's chunks)
 * or many (it hashes the image's members): six builds, each with its own libfoo, under one
 * advisory over all six versions and one over the first two; a seventh build above both. */
static void os_part_lists_the_versions_each_image_holds(void **state)
{
    (void)state;
    long long ids[7];
    for (int k = 0; k < 7; k++) {
        char pkgs[256], v[8];
        snprintf(pkgs, sizeof pkgs, "[{\"name\":\"libfoo\",\"version\":\"%s-%d\"}," BASE "]",
                 k < 6 ? "1.0" : "2.0", k + 1);
        snprintf(v, sizeof v, "%d", k + 1);
        ids[k] = publish_pkgs("many", v, pkgs);
    }
    static const char *const advs[] = { "{\"id\":\"USN-TEST-MANY\",\"title\":\"libfoo\","
                                        "\"published\":\"2026-11-01\",\"severity\":\"high\","
                                        "\"affected\":[{\"ecosystem\":\"Ubuntu:24.04:LTS\","
                                        "\"package\":\"libfoo\",\"range\":\"<1.0-9\","
                                        "\"fixed\":\"1.0-9\"}]}",
                                        "{\"id\":\"USN-TEST-FEW\",\"title\":\"libfoo\","
                                        "\"published\":\"2026-11-01\",\"severity\":\"low\","
                                        "\"affected\":[{\"ecosystem\":\"Ubuntu:24.04:LTS\","
                                        "\"package\":\"libfoo\",\"range\":\"<1.0-3\","
                                        "\"fixed\":\"1.0-3\"}]}" };
    for (size_t i = 0; i < sizeof advs / sizeof advs[0]; i++) {
        struct imx_res res;
        assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/advisories", advs[i], &res), 0);
        if (res.status != 201)
            fail_msg("%s: %ld %s", advs[i], res.status, res.body);
        imx_t_res_free(&res);
    }
    for (int k = 0; k < 7; k++) {
        char want[128] = "";
        if (k < 2)
            snprintf(want, sizeof want, "USN-TEST-FEW:1.0-%d,USN-TEST-MANY:1.0-%d", k + 1, k + 1);
        else if (k < 6)
            snprintf(want, sizeof want, "USN-TEST-MANY:1.0-%d", k + 1);
        expect_sql(want,
                   "SELECT coalesce(string_agg(a->>'id' || ':' || (SELECT string_agg(p->>'version',"
                   " '+') FROM json_array_elements(a->'packages') p), ',' ORDER BY a->>'id'), '')"
                   " FROM image_docs d, json_array_elements((d.head || d.tail)::json"
                   " -> 'os_packages' -> 'advisories') a WHERE d.image_id = %lld",
                   ids[k]);
    }
    expect_sql("0",
               "SELECT count(*) FROM image_docs d WHERE d.image_id >= %lld"
               " AND d.head || d.tail IS DISTINCT FROM imx_image_json(d.image_id)::text",
               ids[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(usn_marks_exactly_the_images_below_its_fix),
        cmocka_unit_test(bad_inventories_and_ranges_are_refused),
        cmocka_unit_test(os_part_lists_the_versions_each_image_holds),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
