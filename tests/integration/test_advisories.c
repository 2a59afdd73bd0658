/* Advisories, patch status and pins against the real server: images and advisories published
 * over HTTP; patch status across driver branches, Container Toolkit
 * ranges, partial fixes, revocation and either publishing order; patch.available staged once;
 * pins through every status, moves, history and the cross-team matrix. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], alice[4096], vic[4096], bob[4096];

static int setup(void **state)
{
    (void)state;
    if (imx_t_server_up(&srv, "advisories", NULL, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "team-a", "alice@a.test", "member", alice, sizeof alice) != 0 ||
        imx_t_user(&srv, admin, "team-a", "vic@a.test", "viewer", vic, sizeof vic) != 0 ||
        imx_t_user(&srv, admin, "team-b", "bob@b.test", "admin", bob, sizeof bob) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

/* Publishes an image of team-a through the API; families are published oldest first. Returns
 * its id. */
static long long img(const char *family, const char *version, const char *driver,
                     const char *toolkit)
{
    char comps[512];
    snprintf(comps, sizeof comps,
             "[{\"name\":\"nvidia-driver\",\"version\":\"%s\"},"
             "{\"name\":\"nvidia-container-toolkit\",\"version\":\"%s\"},"
             "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]",
             driver, toolkit);
    long long id = imx_t_publish(&srv, admin, "team-a", family, version, comps, NULL);
    assert_true(id > 0);
    return id;
}

/* Revokes image id through the API. */
static void revoke_image(long long id)
{
    assert_int_equal(
        imx_t_image_patch(&srv, admin, id, "{\"status\":\"revoked\",\"reason\":\"test\"}"), 200);
}

/* The image's patch_status, read from its row. */
static void expect_status(long long id, const char *want)
{
    char q[128];
    snprintf(q, sizeof q, "SELECT patch_status FROM images WHERE id = %lld", id);
    char *got = imx_t_sql(db, q);
    assert_non_null(got);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "image %lld: patch_status %s, expected %s\n", id, got, want);
    assert_string_equal(got, want);
    free(got);
}

static long long sql_count(const char *q)
{
    char *v = imx_t_sql(db, q);
    assert_non_null(v);
    long long n = atoll(v);
    free(v);
    return n;
}

static json_t *get(const char *token, const char *path, long status)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, "GET", path, NULL, &res), 0);
    if (res.status != status)
        fprintf(stderr, "GET %s: %ld %s\n", path, res.status, res.body);
    assert_int_equal(res.status, status);
    json_t *j = json_incref(res.json);
    imx_t_res_free(&res);
    return j;
}

static void expect(const char *token, const char *method, const char *path, const char *body,
                   long status)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, method, path, body, &res), 0);
    if (res.status != status)
        fprintf(stderr, "%s %s: expected %ld, got %ld: %s\n", method, path, status, res.status,
                res.body);
    assert_int_equal(res.status, status);
    imx_t_res_free(&res);
}

static const char A1[] =
    "{\"id\":\"T-DRV-1\",\"title\":\"Driver bulletin 1\",\"published\":\"2025-10-09\","
    "\"severity\":\"high\",\"cvss\":8.2,\"cves\":[\"CVE-2025-23280\"],"
    "\"url\":\"https://example.test/1\",\"affected\":["
    "{\"component\":\"nvidia-driver\",\"range\":\">=535,<535.274.02\",\"fixed\":\"535.274.02\"},"
    "{\"component\":\"nvidia-driver\",\"range\":\">=580,<580.95.05\",\"fixed\":\"580.95.05\"}]}";
static const char A2[] =
    "{\"id\":\"T-DRV-2\",\"title\":\"Driver bulletin 2\",\"published\":\"2026-01-20\","
    "\"severity\":\"medium\",\"cves\":[\"CVE-2026-0001\"],\"affected\":["
    "{\"component\":\"nvidia-driver\",\"range\":\">=580, <580.105.08\",\"fixed\":\"580.105.08\"}]}";
static const char A3[] =
    "{\"id\":\"T-CTK-1\",\"title\":\"Toolkit bulletin\",\"published\":\"2024-09-25\","
    "\"severity\":\"critical\",\"cvss\":9,\"cves\":[\"CVE-2024-0132\",\"CVE-2024-0133\"],"
    "\"affected\":[{\"component\":\"nvidia-container-toolkit\",\"range\":\"<=1.16.1\","
    "\"fixed\":\"1.16.2\"}]}";

static long long f580_1, f580_2, f580_3, f535_1, f535_2, tk_1, tk_2, plain_1, plain_2;

static void patch_status_follows_advisories_and_images(void **state)
{
    (void)state;
    /* Fix first, then the advisory: both R535 images exist before T-DRV-1. */
    f535_1 = img("f-535", "1", "535.261.03", "1.17.8");
    f535_2 = img("f-535", "2", "535.274.02", "1.17.8");
    f580_1 = img("f-580", "1", "580.82.07", "1.17.8");
    expect_status(f535_1, "ok");
    expect(admin, "POST", "/v1/advisories", A1, 201);
    expect_status(f535_1, "patch_available");
    expect_status(f535_2, "ok");
    /* An R535 fix does not clear an R580 image. */
    expect_status(f580_1, "vulnerable");
    assert_int_equal(sql_count("SELECT count(*) FROM patch_events WHERE kind = 'family'"
                               " AND family = 'f-535' AND advisory_id = 'T-DRV-1'"),
                     1);
    assert_int_equal(sql_count("SELECT count(*) FROM patch_events WHERE family = 'f-580'"), 0);

    /* Advisory first, then the fix. */
    f580_2 = img("f-580", "2", "580.95.05", "1.17.8");
    expect_status(f580_1, "patch_available");
    expect_status(f580_2, "ok");
    assert_int_equal(sql_count("SELECT count(*) FROM patch_events WHERE kind = 'family'"
                               " AND family = 'f-580' AND advisory_id = 'T-DRV-1'"),
                     1);

    /* A partial fix: 580.95.05 fixes T-DRV-1 but not T-DRV-2. */
    expect(admin, "POST", "/v1/advisories", A2, 201);
    expect_status(f580_2, "vulnerable");
    expect_status(f580_1, "patch_available");
    char path[64];
    snprintf(path, sizeof path, "/v1/images/%lld/patch", f580_1);
    json_t *p = get(alice, path, 200);
    assert_string_equal(json_string_value(json_object_get(p, "status")), "patch_available");
    json_t *advs = json_object_get(p, "advisories");
    assert_int_equal(json_array_size(advs), 2);
    /* Newest advisory first: T-DRV-2 has no fix yet; T-DRV-1's fix leaves T-DRV-2 open. */
    json_t *a2 = json_array_get(advs, 0), *a1 = json_array_get(advs, 1);
    assert_string_equal(json_string_value(json_object_get(a2, "id")), "T-DRV-2");
    assert_true(json_is_null(json_object_get(a2, "fixed_by")));
    assert_string_equal(json_string_value(json_object_get(a1, "id")), "T-DRV-1");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(a1, "fixed_by"), "id")),
                     f580_2);
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(a1, "still_open_in_fix"), 0)), "T-DRV-2");
    json_decref(p);

    /* Publishing a later image fixes T-DRV-2 for both; T-DRV-1 keeps its first fix, no new
     * event for it. */
    f580_3 = img("f-580", "3", "580.105.08", "1.17.8");
    expect_status(f580_2, "patch_available");
    expect_status(f580_3, "ok");
    assert_int_equal(sql_count("SELECT count(*) FROM patch_events WHERE kind = 'family'"
                               " AND family = 'f-580' AND advisory_id = 'T-DRV-1'"),
                     1);
    assert_int_equal(sql_count("SELECT count(*) FROM patch_events WHERE kind = 'family'"
                               " AND family = 'f-580' AND advisory_id = 'T-DRV-2'"),
                     1);

    /* Container Toolkit: <=1.16.1; then the fix is revoked. */
    tk_1 = img("f-tk", "1", "590.10", "1.16.1");
    tk_2 = img("f-tk", "2", "590.10", "1.16.2");
    expect(admin, "POST", "/v1/advisories", A3, 201);
    expect_status(tk_1, "patch_available");
    expect_status(tk_2, "ok");
    revoke_image(tk_2);
    expect_status(tk_2, "revoked");
    expect_status(tk_1, "vulnerable");
    plain_1 = img("f-plain", "1", "590.10", "1.17.8");
    plain_2 = img("f-plain", "2", "590.20", "1.17.8");
    expect_status(plain_1, "ok");

    /* The same statuses through the API: catalog search filters on them, image detail shows
     * them. (Revoked images are only listed with status=revoked.) */
    static const struct {
        const char *query;
        long long *want[3];
    } searches[] = {
        { "/v1/images?family=f-580&patch_status=patch_available", { &f580_1, &f580_2, NULL } },
        { "/v1/images?family=f-580&patch_status=ok", { &f580_3, NULL, NULL } },
        { "/v1/images?family=f-tk&patch_status=vulnerable", { &tk_1, NULL, NULL } },
        { "/v1/images?family=f-535&patch_status=vulnerable", { NULL, NULL, NULL } },
    };
    for (size_t i = 0; i < sizeof searches / sizeof searches[0]; i++) {
        json_t *page = get(alice, searches[i].query, 200);
        json_t *items = json_object_get(page, "items");
        size_t want = 0;
        while (want < 3 && searches[i].want[want])
            want++;
        if (json_array_size(items) != want)
            fail_msg("%s: %zu items, want %zu", searches[i].query, json_array_size(items), want);
        for (size_t k = 0; k < want; k++) {
            bool found = false;
            size_t j;
            json_t *it;
            json_array_foreach(items, j, it) found |=
                json_integer_value(json_object_get(it, "id")) == *searches[i].want[k];
            assert_true(found);
        }
        json_decref(page);
    }
    snprintf(path, sizeof path, "/v1/images/%lld", f580_1);
    p = get(alice, path, 200);
    assert_string_equal(json_string_value(json_object_get(p, "patch_status")), "patch_available");
    json_decref(p);
}

static void advisories_api(void **state)
{
    (void)state;
    struct imx_res res;
    /* Scores print as written (numeric(3,1) through a double: 8.2, not 8.1999999999999993). */
    assert_int_equal(imx_t_http_as(&srv, alice, "GET", "/v1/advisories?limit=50", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_non_null(strstr(res.body, "\"cvss\":8.2,"));
    assert_null(strstr(res.body, "8.19999"));
    imx_t_res_free(&res);
    /* Only global admins publish. */
    expect(alice, "POST", "/v1/advisories", A1, 403);
    expect(admin, "POST", "/v1/advisories", A1, 409);
    assert_int_equal(
        imx_t_http_as(&srv, admin, "POST", "/v1/advisories",
                      "{\"id\":\"BAD-1\",\"title\":\"x\",\"published\":\"2025-01-01\","
                      "\"severity\":\"severe\",\"affected\":[{\"component\":\"nvidia-driver\","
                      "\"range\":\">=>580\"}],\"extra\":1}",
                      &res),
        0);
    imx_t_assert_problem(&res, 400);
    const char *want[] = { "/affected/0/range", "/severity", "/extra" };
    for (size_t w = 0; w < 3; w++) {
        bool seen = false;
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(res.json, "errors"), i, e) seen =
            seen || strcmp(json_string_value(json_object_get(e, "pointer")), want[w]) == 0;
        if (!seen)
            fail_msg("no error for %s in %s", want[w], res.body);
    }
    imx_t_res_free(&res);
    expect(admin, "POST", "/v1/advisories",
           "{\"id\":\"BAD-2\",\"title\":\"x\",\"published\":\"2025-02-30\",\"severity\":\"low\","
           "\"affected\":[{\"component\":\"cuda\",\"range\":\"<12\"}]}",
           400);
    /* A month and a day the calendar lacks are refused by the date check itself, as a field
     * error, before the database sees them; so is a filter's date. */
    assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/advisories",
                                   "{\"id\":\"BAD-3\",\"title\":\"x\",\"published\":"
                                   "\"2026-13-45\",\"severity\":\"low\",\"affected\":[{"
                                   "\"component\":\"cuda\",\"range\":\"<12\"}]}",
                                   &res),
                     0);
    assert_int_equal(res.status, 400);
    assert_non_null(strstr(res.body, "/published"));
    imx_t_res_free(&res);
    expect(admin, "GET", "/v1/advisories?published_from=2026-13-45", NULL, 400);
    expect(admin, "GET", "/v1/advisories?published_to=2025-02-29", NULL, 400);

    /* OSV import. */
    assert_int_equal(
        imx_t_http_as(&srv, admin, "POST", "/v1/advisories",
                      "{\"schema_version\":\"1.6.0\",\"id\":\"GHSA-test-0001\","
                      "\"summary\":\"Toolkit TOCTOU\",\"published\":\"2025-02-11T00:00:00Z\","
                      "\"aliases\":[\"CVE-2025-23359\"],\"database_specific\":{\"severity\":"
                      "\"HIGH\"},\"references\":[{\"type\":\"WEB\",\"url\":\"https://w.test\"},"
                      "{\"type\":\"ADVISORY\",\"url\":\"https://a.test\"}],\"affected\":[{"
                      "\"package\":{\"ecosystem\":\"Go\",\"name\":\"nvidia-container-toolkit\"},"
                      "\"ranges\":[{\"type\":\"SEMVER\",\"events\":[{\"introduced\":\"0\"},"
                      "{\"fixed\":\"1.17.4\"}]},{\"type\":\"GIT\",\"events\":[{\"introduced\":"
                      "\"abc\"}]}]}]}",
                      &res),
        0);
    if (res.status != 201)
        fprintf(stderr, "OSV: %s\n", res.body);
    assert_int_equal(res.status, 201);
    assert_string_equal(json_string_value(json_object_get(res.json, "source")), "osv");
    assert_string_equal(json_string_value(json_object_get(res.json, "severity")), "high");
    assert_string_equal(json_string_value(json_object_get(res.json, "url")), "https://a.test");
    json_t *r0 = json_array_get(json_object_get(res.json, "affected"), 0);
    assert_string_equal(json_string_value(json_object_get(r0, "range")), "<1.17.4");
    assert_string_equal(json_string_value(json_object_get(r0, "fixed")), "1.17.4");
    imx_t_res_free(&res);
    expect_status(tk_1, "vulnerable");

    /* Search filters. */
    static const struct {
        const char *query;
        size_t n;
        const char *first;
    } cases[] = {
        { "", 4, "T-DRV-2" },
        { "?component=nvidia-container-toolkit", 2, "GHSA-test-0001" },
        { "?severity=critical", 1, "T-CTK-1" },
        { "?cve=CVE-2025-23280", 1, "T-DRV-1" },
        { "?published_from=2025-01-01&published_to=2025-12-31", 2, "T-DRV-1" },
        { "?component=cuda", 0, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "/v1/advisories%s", cases[i].query);
        json_t *j = get(vic, path, 200);
        json_t *items = json_object_get(j, "items");
        if (json_array_size(items) != cases[i].n)
            fail_msg("%s: %zu items", path, json_array_size(items));
        if (cases[i].first)
            assert_string_equal(json_string_value(json_object_get(json_array_get(items, 0), "id")),
                                cases[i].first);
        json_decref(j);
    }
    /* Keyset pages of one. */
    json_t *j = get(vic, "/v1/advisories?limit=3", 200);
    const char *cursor = json_string_value(json_object_get(j, "next_cursor"));
    assert_non_null(cursor);
    char path[1024];
    snprintf(path, sizeof path, "/v1/advisories?limit=3&cursor=%s", cursor);
    json_t *j2 = get(vic, path, 200);
    assert_int_equal(json_array_size(json_object_get(j2, "items")), 1);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(j2, "items"), 0), "id")),
        "T-CTK-1");
    assert_true(json_is_null(json_object_get(j2, "next_cursor")));
    json_decref(j);
    json_decref(j2);

    /* Affected images by family, with fixed successors. */
    j = get(vic, "/v1/advisories/T-DRV-1/affected", 200);
    json_t *fams = json_object_get(j, "families");
    assert_int_equal(json_array_size(fams), 2);
    json_t *f535 = json_array_get(fams, 0);
    assert_string_equal(json_string_value(json_object_get(f535, "family")), "f-535");
    json_t *i0 = json_array_get(json_object_get(f535, "images"), 0);
    assert_int_equal(json_integer_value(json_object_get(i0, "id")), f535_1);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(i0, "fixed_by"), "version")), "2");
    json_decref(j);
    /* The same, one image a page: every affected image exactly once, in (family, published)
     * order, a family continuing across pages. */
    char *total = imx_t_sql(db, "SELECT count(*) FROM image_advisories WHERE advisory_id = "
                                "'T-DRV-1'");
    char apath[1024] = "/v1/advisories/T-DRV-1/affected?limit=1";
    long long seen = 0, pages = 0;
    for (;;) {
        j = get(vic, apath, 200);
        fams = json_object_get(j, "families");
        assert_int_equal(json_array_size(fams), 1);
        assert_int_equal(json_array_size(json_object_get(json_array_get(fams, 0), "images")), 1);
        seen++;
        const char *next = json_string_value(json_object_get(j, "next_cursor"));
        if (next)
            snprintf(apath, sizeof apath, "/v1/advisories/T-DRV-1/affected?limit=1&cursor=%s",
                     next);
        json_decref(j);
        assert_true(++pages <= 100);
        if (!next)
            break;
    }
    assert_int_equal(seen, atoll(total));
    /* As CSV for a spreadsheet: a header and one record an affected image. */
    char auth[8192];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", vic);
    const char *csv_h[] = { auth, "Accept: text/csv", NULL };
    struct imx_res csv;
    assert_int_equal(imx_t_http(&srv, "GET", "/v1/advisories/T-DRV-1/affected", csv_h, NULL, &csv),
                     0);
    assert_int_equal(csv.status, 200);
    static const char head[] = "advisory,family,id,version,status,patch_status,published_at,";
    assert_true(strncmp(csv.body, head, sizeof head - 1) == 0);
    long long records = -1;
    for (const char *q = csv.body; (q = strstr(q, "\r\n")) != NULL; q += 2)
        records++;
    assert_int_equal(records, atoll(total));
    assert_non_null(strstr(csv.body, "\r\nT-DRV-1,f-535,"));
    imx_t_res_free(&csv);
    assert_int_equal(imx_t_http(&srv, "GET", "/v1/advisories/NOPE/affected", csv_h, NULL, &csv), 0);
    imx_t_assert_problem(&csv, 404);
    imx_t_res_free(&csv);
    free(total);
    expect(vic, "GET", "/v1/advisories/T-DRV-1/affected?cursor=forged.x", NULL, 400);
    expect(vic, "GET", "/v1/advisories/T-DRV-1/affected?limit=201", NULL, 400);
    expect(vic, "GET", "/v1/advisories/NOPE", NULL, 404);
    expect(vic, "GET", "/v1/images/999999/patch", NULL, 404);
}

static long long pin_create(const char *token, const char *body, long status, const char *want)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, "POST", "/v1/pins", body, &res), 0);
    if (res.status != status)
        fprintf(stderr, "POST /v1/pins %s: %ld %s\n", body, res.status, res.body);
    assert_int_equal(res.status, status);
    long long id = json_integer_value(json_object_get(res.json, "id"));
    if (want)
        assert_string_equal(json_string_value(json_object_get(res.json, "status")), want);
    imx_t_res_free(&res);
    return id;
}

static void pins(void **state)
{
    (void)state;
    char body[512], path[64];
    /* patch_available: T-DRV-1 fixed by f-580/2, which satisfies ~580. */
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"name\":\"prod\",\"image\":%lld,\"constraints\":"
             "[{\"component\":\"nvidia-driver\",\"range\":\"~580\"}]}",
             f580_1);
    long long prod = pin_create(alice, body, 201, "patch_available");
    /* vulnerable: no fix satisfies <580.95. */
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"name\":\"frozen\",\"image\":%lld,\"constraints\":"
             "[{\"component\":\"nvidia-driver\",\"range\":\"<580.95\"}]}",
             f580_1);
    pin_create(alice, body, 201, "vulnerable");
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"plain\",\"image\":%lld}", plain_1);
    long long plain = pin_create(alice, body, 201, "behind");
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"newest\",\"image\":%lld}",
             plain_2);
    pin_create(alice, body, 201, "current");
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"gone\",\"image\":%lld}", tk_2);
    pin_create(alice, body, 422, NULL);
    /* A viewer cannot create; another team's slug is 404; bad constraint is 400. */
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"v\",\"image\":%lld}", plain_1);
    pin_create(vic, body, 403, NULL);
    snprintf(body, sizeof body, "{\"team\":\"team-b\",\"name\":\"x\",\"image\":%lld}", plain_1);
    pin_create(alice, body, 404, NULL);
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"name\":\"bad\",\"image\":%lld,\"constraints\":"
             "[{\"component\":\"cuda\",\"range\":\"nope\"}]}",
             plain_1);
    pin_create(alice, body, 400, NULL);

    snprintf(path, sizeof path, "/v1/pins/%lld", prod);
    json_t *p = get(vic, path, 200);
    assert_non_null(json_object_get(p, "candidate"));
    assert_int_equal(json_array_size(json_object_get(p, "history")), 1);
    json_decref(p);

    /* Move: 422 naming the unmet constraint; then a good move, kept in history. */
    struct imx_res res;
    snprintf(body, sizeof body, "{\"image\":%lld}", f535_2);
    assert_int_equal(imx_t_http_as(&srv, alice, "PUT", path, body, &res), 0);
    imx_t_assert_problem(&res, 422);
    assert_non_null(
        strstr(json_string_value(json_object_get(res.json, "detail")), "nvidia-driver ~580"));
    imx_t_res_free(&res);
    snprintf(body, sizeof body, "{\"image\":%lld}", f580_3);
    expect(vic, "PUT", path, body, 403);
    assert_int_equal(imx_t_http_as(&srv, alice, "PUT", path, body, &res), 0);
    assert_int_equal(res.status, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "status")), "current");
    json_t *h = json_object_get(res.json, "history");
    assert_int_equal(json_array_size(h), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(h, 0), "from_image")),
                     f580_1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(h, 0), "to_image")), f580_3);
    imx_t_res_free(&res);

    /* revoked: the pinned image is revoked after pinning. */
    snprintf(body, sizeof body, "{\"image\":%lld}", plain_2);
    char ppath[64];
    snprintf(ppath, sizeof ppath, "/v1/pins/%lld", plain);
    expect(alice, "PUT", ppath, body, 200);
    revoke_image(plain_2);
    p = get(alice, ppath, 200);
    assert_string_equal(json_string_value(json_object_get(p, "status")), "revoked");
    json_decref(p);

    /* A pin hears of a fix appearing after it was created, once. */
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"name\":\"watch\",\"image\":%lld,\"constraints\":"
             "[{\"component\":\"nvidia-driver\",\"range\":\"~580\"}]}",
             f580_3);
    long long watch = pin_create(alice, body, 201, "current");
    expect(admin, "POST", "/v1/advisories",
           "{\"id\":\"T-DRV-3\",\"title\":\"Driver bulletin 3\",\"published\":\"2026-02-01\","
           "\"severity\":\"high\",\"affected\":[{\"component\":\"nvidia-driver\","
           "\"range\":\">=580, <580.126.09\"}]}",
           201);
    snprintf(path, sizeof path, "/v1/pins/%lld", watch);
    p = get(alice, path, 200);
    assert_string_equal(json_string_value(json_object_get(p, "status")), "vulnerable");
    json_decref(p);
    char q[256];
    snprintf(q, sizeof q, "SELECT count(*) FROM patch_events WHERE pin_id = %lld", watch);
    assert_int_equal(sql_count(q), 0);
    img("f-580", "4", "580.126.09", "1.17.8");
    img("f-580", "5", "580.126.10", "1.17.8");
    p = get(alice, path, 200);
    assert_string_equal(json_string_value(json_object_get(p, "status")), "patch_available");
    json_decref(p);
    assert_int_equal(sql_count(q), 1);

    /* Resolve through a pin (the SQL the resolve handler calls). */
    char *art = imx_t_sql(db, "SELECT imx_pin_resolve((SELECT id FROM teams WHERE slug ="
                              " 'team-a'), 'watch', 'us-east-1')->>'artifact_id'");
    assert_non_null(art);
    assert_string_equal(art, "ami-f-580-3");
    free(art);
    art = imx_t_sql(db, "SELECT imx_pin_resolve((SELECT id FROM teams WHERE slug = 'team-a'),"
                        " 'plain', 'us-east-1')->>'emptied_by'");
    assert_string_equal(art, "status");
    free(art);

    /* Lists and the cross-team matrix: team B sees none of team A's pins. */
    json_t *l = get(vic, "/v1/pins?team=team-a&limit=2", 200);
    assert_int_equal(json_array_size(json_object_get(l, "items")), 2);
    assert_true(json_is_string(json_object_get(l, "next_cursor")));
    json_decref(l);
    snprintf(body, sizeof body, "{\"image\":%lld}", f580_2);
    const struct {
        const char *method, *path, *body;
    } cross[] = {
        { "GET", path, NULL },
        { "PUT", path, body },
        { "DELETE", path, NULL },
        { "GET", "/v1/pins?team=team-a", NULL },
    };
    for (size_t i = 0; i < sizeof cross / sizeof cross[0]; i++)
        expect(bob, cross[i].method, cross[i].path, cross[i].body, 404);
    /* The list reads the team, the caller's role and the page in one statement: a team of no
     * pins is an empty page, a team that does not exist 404 as another team's does. */
    struct imx_res none;
    assert_int_equal(imx_t_http_as(&srv, bob, "GET", "/v1/pins?team=team-b", NULL, &none), 0);
    assert_int_equal(none.status, 200);
    assert_string_equal(none.body, "{\"items\":[],\"next_cursor\":null}");
    imx_t_res_free(&none);
    expect(bob, "GET", "/v1/pins?team=no-such-team", NULL, 404);
    expect(vic, "GET", "/v1/pins?team=team-b", NULL, 404);
    expect(bob, "GET", "/v1/pins/abc", NULL, 404);
    expect(alice, "DELETE", path, NULL, 204);
    expect(alice, "GET", path, NULL, 404);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(patch_status_follows_advisories_and_images),
        cmocka_unit_test(advisories_api),
        cmocka_unit_test(pins),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
