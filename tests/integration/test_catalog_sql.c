/* The catalog's SQL through libpq against the test cluster: version keys agree with C, constraint
 * filters at version boundaries, facets equal filtered counts, keyset pages with concurrent
 * inserts, resolve never returns a revoked image, and the reference snapshot drives the validator.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/images.h"
#include "db/internal.h"
#include "db/migrate.h"
#include "db/pool.h"
#include "db/reference.h"
#include "domain/compat.h"
#include "domain/version.h"

static const char *db_url;
static long long team_id;

static int setup(void **state)
{
    (void)state;
    db_url = imx_t_db_create("catalog_sql");
    char err[512];
    PGconn *pg = PQconnectdb(db_url);
    if (PQstatus(pg) != CONNECTION_OK)
        return -1;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/migrations", getenv("IMX_TEST_SOURCE_DIR"));
    int latest;
    if (imx_migrate(pg, dir, &latest, err, sizeof err) != 0) {
        fprintf(stderr, "migrate: %s\n", err);
        PQfinish(pg);
        return -1;
    }
    PQfinish(pg);
    char *id =
        imx_t_sql(db_url, "INSERT INTO teams (slug, name) VALUES ('t1', 'Team') RETURNING id");
    team_id = atoll(id);
    free(id);
    return imx_db_pool_init(db_url, 4, 2000, 10000);
}

static int teardown(void **state)
{
    (void)state;
    imx_db_ref_cache_clear();
    imx_db_pool_shutdown();
    return 0;
}

static struct imx_db_conn *conn(void)
{
    enum imx_db_status why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    assert_non_null(c);
    return c;
}

static void sql_version_key_agrees_with_c(void **state)
{
    (void)state;
    static const char *const versions[] = {
        "450.80.02",
        "535.104.05",
        "570.133.20",
        "580.95.05",
        "580.105.08",
        "12.4",
        "12.4.1",
        "13.0",
        "8.9.7.29",
        "9.1.0.70",
        "2.27.7-1",
        "2.5.1+cu124",
        "2.9.0",
        "3.12.3",
        "6.8.0-1015-aws",
        "v1.17.8",
        "1.2.3.4.5.6",
        /* pre-releases (issue 30), and suffixes that are not one */
        "1.3.0rc14",
        "1.3.0rc2",
        "1.3rc2",
        "13.0rc1",
        "13.0.0rc1",
        "1rc1",
        "v1.0.0-rc.3",
        "1.0.0-RC1",
        "2.1.0a1",
        "2.1.0b2",
        "2.1.0.dev20250101",
        "2.1.0-alpha",
        "2.1.0-beta.4",
        "2.1.0pre1",
        "2.1.0rc",
        "12.4~beta",
        "1.2.3.4rc1",
        "1.2.3.4.0rc1",
        "1.2.3.4.5rc1",
        "1.0a",
        "2.0b",
        "1.0rc1.post1",
        "2.6.0a0+ecf3bae40a",
        "1.0rc1234567890",
        "1.0-rc.",
        "1.0preview1",
        "1.0_RC_1",
        "1.0~rc1",
        "1.0Alpha2",
        "1.0-b-3",
        "3.13.0rc1",
        "12.4.1-1ubuntu2",
    };
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        struct imx_ver v;
        char key[IMX_VER_KEY_TEXT_SIZE], q[256];
        assert_int_equal(imx_ver_parse(versions[i], &v), 0);
        assert_int_equal(imx_ver_format_key(&v, key, sizeof key), 0);
        snprintf(q, sizeof q, "SELECT imx_version_key('%s')::text", versions[i]);
        char *sql = imx_t_sql(db_url, q);
        assert_non_null(sql);
        if (strcmp(sql, key) != 0)
            fail_msg("'%s': SQL key %s, C key %s", versions[i], sql, key);
        free(sql);
    }
    /* Pre-releases in order, in SQL and as the jsonb number images carry; a facet reads
     * 13.0rc1 as 13.0 and R580 of 580rc1 as 580. */
    char *v = imx_t_sql(
        db_url,
        "SELECT bool_and(imx_version_key(a) < imx_version_key(b)"
        " AND imx_version_key_num(imx_version_key(a)) < imx_version_key_num(imx_version_key(b)))"
        " FROM (VALUES ('1.2.1', '1.3.0.dev1'), ('1.3.0.dev1', '1.3.0a1'),"
        " ('1.3.0a1', '1.3.0b1'), ('1.3.0b1', '1.3.0rc2'), ('1.3.0rc2', '1.3.0rc14'),"
        " ('1.3.0rc14', '1.3.0'), ('12.9.1', '13.0rc1'), ('13.0rc1', '13.0')) x(a, b)");
    assert_non_null(v);
    assert_string_equal(v, "t");
    free(v);
    v = imx_t_sql(
        db_url,
        "SELECT imx_version_key_mm(to_jsonb(imx_version_key_num(imx_version_key('13.0rc1'))))"
        " || ' ' || imx_version_key_mm(to_jsonb(imx_version_key_num(imx_version_key('2.6.0b1'))))"
        " || ' R' || imx_version_key_part(to_jsonb(imx_version_key_num("
        "   imx_version_key('580rc1'))), 1)"
        " || ' ' || imx_version_key_part(to_jsonb(imx_version_key_num("
        "   imx_version_key('1.3.0rc14'))), 2)");
    assert_non_null(v);
    assert_string_equal(v, "13.0 2.6 R580 3");
    free(v);
}

/* Migration 0200 recomputes the keys a pre-release had before pre-releases sorted first: an
 * advisory range stored as "<=1.3.0rc16" with hi {1,3,0,0,0,0} gets {1,3,-1,16,0,0}; a release
 * bound keeps its key; "<1.3.0" fixed in 1.3.0rc15 (an old CSAF cut) becomes "<1.3.0rc15". */
static void prerelease_migration_recomputes_stored_range_keys(void **state)
{
    (void)state;
    char *v = imx_t_sql(
        db_url, "WITH a AS (INSERT INTO advisories (id, title, published, severity)"
                " VALUES ('RC-1', 'rc', '2026-01-01', 'high') RETURNING id)"
                " INSERT INTO advisory_ranges (advisory_id, ord, component, range, lo, lo_incl,"
                " hi, hi_incl, fixed) SELECT id, o, 'tensorrt-llm', r, '{0,0,0,0,0,0}', true,"
                " h::int[], i, f FROM a, (VALUES (0, '>=0.0, <=1.3.0rc16', '{1,3,0,0,0,0}', true,"
                " NULL), (1, '<=1.2.1', '{1,2,1,0,0,0}', true, NULL), (2, '<1.3.0',"
                " '{1,3,0,0,0,0}', false, '1.3.0rc15')) x(o, r, h, i, f) RETURNING 1");
    assert_non_null(v);
    free(v);
    char path[1024];
    snprintf(path, sizeof path, "%s/migrations/0200_prerelease_keys.sql",
             getenv("IMX_TEST_SOURCE_DIR"));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 32, f);
    fclose(f);
    memcpy(text + n, "; SELECT 1", 11);
    v = imx_t_sql(db_url, text);
    assert_non_null(v);
    free(v);
    v = imx_t_sql(db_url, "SELECT string_agg(range || ' ' || hi::text, '; ' ORDER BY ord)"
                          " FROM advisory_ranges WHERE advisory_id = 'RC-1'");
    assert_non_null(v);
    /* and a range an old CSAF import cut at the release of its release-candidate fix ends
     * before the fix again */
    assert_string_equal(v, ">=0.0, <=1.3.0rc16 {1,3,-1,16,0,0}; <=1.2.1 {1,2,1,0,0,0};"
                           " <1.3.0rc15 {1,3,-1,15,0,0}");
    free(v);
    v = imx_t_sql(db_url, "DELETE FROM advisories WHERE id = 'RC-1' RETURNING 1");
    free(v);
}

/* Publishes one image; returns its id. */
static long long publish(const char *family, const char *version, const char *driver,
                         const char *cuda, const char *region, const char *gpu, long long parent)
{
    struct imx_image_component comps[] = { { "nvidia-driver", driver },
                                           { "cuda", cuda },
                                           { "pytorch", "2.9.0+cu130" } };
    struct imx_image_artifact arts[] = { { region, "ami-0123456789abcdef0" } };
    const char *gpus[] = { gpu };
    const char *tags[] = { "cis" };
    struct imx_image_new in = {
        .family = family,
        .version = version,
        .team_id = team_id,
        .provider = "aws",
        .architecture = "x86_64",
        .os_name = "ubuntu",
        .os_version = "24.04",
        .layer = parent ? "model" : "platform",
        .parent_id = parent,
        .boot_seconds = 60,
        .size_gb = 40,
        .description = "test image",
        .components = comps,
        .n_components = 3,
        .artifacts = arts,
        .n_artifacts = 1,
        .gpus = gpus,
        .n_gpus = 1,
        .tags = tags,
        .n_tags = 1,
    };
    struct imx_db_conn *c = conn();
    long long id = 0;
    char err[256];
    enum imx_db_status rc = imx_db_image_insert(c, &in, &id, err, sizeof err, NULL);
    imx_db_release(c);
    if (rc != IMX_DBS_OK)
        fprintf(stderr, "insert %s %s: %d %s\n", family, version, rc, err);
    assert_int_equal(rc, IMX_DBS_OK);
    return id;
}

static json_t *search(const struct imx_image_search *s)
{
    struct imx_db_conn *c = conn();
    char *text = NULL;
    assert_int_equal(imx_db_image_search(c, s, &text, NULL), IMX_DBS_OK);
    imx_db_release(c);
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(j);
    return j;
}

static void constraint_filters_at_boundaries(void **state)
{
    (void)state;
    long long a = publish("bound-test", "1", "580.95.05", "13.0.2", "us-east-1", "H100", 0);
    long long b = publish("bound-test", "2", "580.105.08", "13.0.2", "us-east-1", "H100", 0);
    publish("bound-test", "3", "570.133.20", "12.8.1", "us-east-1", "H100", 0);
    static const struct {
        const char *constraint;
        int want_a, want_b, total;
    } cases[] = {
        { ">=580.95.05", 1, 1, 2 },  { ">580.95.05", 0, 1, 1 }, { "<580.105.08", 1, 0, 2 },
        { "<=580.105.08", 1, 1, 3 }, { "=580.95.05", 1, 0, 1 }, { "~580", 1, 1, 2 },
        { "580.105.*", 0, 1, 1 },    { "<580", 0, 0, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct imx_image_constraint ic = { .name = "nvidia-driver" };
        assert_int_equal(imx_constraint_parse(cases[i].constraint, &ic.constraint, NULL, 0), 0);
        struct imx_image_search s = { .family = "bound-test",
                                      .constraints = &ic,
                                      .n_constraints = 1 };
        json_t *j = search(&s);
        json_t *items = json_object_get(j, "items"), *it;
        size_t k;
        int seen_a = 0, seen_b = 0;
        json_array_foreach(items, k, it)
        {
            long long id = json_integer_value(json_object_get(it, "id"));
            seen_a += id == a;
            seen_b += id == b;
        }
        if (seen_a != cases[i].want_a || seen_b != cases[i].want_b ||
            (int)json_array_size(items) != cases[i].total)
            fail_msg("constraint %s: a %d b %d total %zu", cases[i].constraint, seen_a, seen_b,
                     json_array_size(items));
        json_decref(j);
    }
    /* Two constraints must both hold. */
    struct imx_image_constraint two[2] = { { .name = "nvidia-driver" }, { .name = "cuda" } };
    assert_int_equal(imx_constraint_parse("~580", &two[0].constraint, NULL, 0), 0);
    assert_int_equal(imx_constraint_parse("<13", &two[1].constraint, NULL, 0), 0);
    struct imx_image_search s = { .family = "bound-test", .constraints = two, .n_constraints = 2 };
    json_t *j = search(&s);
    assert_int_equal(json_array_size(json_object_get(j, "items")), 0);
    json_decref(j);
}

static void facet_counts_equal_filtered_counts(void **state)
{
    (void)state;
    publish("facet-test", "1", "580.95.05", "13.0.2", "us-east-1", "B200", 0);
    publish("facet-test", "2", "570.133.20", "12.8.1", "eu-west-1", "NVIDIA H100", 0);
    publish("facet-test", "3", "570.133.20", "12.8.1", "us-east-1", "H100", 0);
    struct imx_image_search all = { .family = "facet-test", .limit = 200 };
    struct imx_db_conn *c = conn();
    char *text;
    assert_int_equal(imx_db_image_facets(c, &all, &text, NULL), IMX_DBS_OK);
    imx_db_release(c);
    json_t *f = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(f);
    assert_int_equal(json_integer_value(json_object_get(f, "total")), 3);
    const char *facets[] = { "gpu", "driver_branch", "cuda" };
    for (size_t i = 0; i < 3; i++) {
        json_t *list = json_object_get(f, facets[i]), *e;
        size_t k;
        assert_true(json_array_size(list) > 0);
        json_array_foreach(list, k, e)
        {
            const char *v = json_string_value(json_object_get(e, "value"));
            struct imx_image_search s = all;
            struct imx_image_constraint ic = { .name = NULL };
            char cons[32];
            if (i == 0) {
                s.gpu = v;
            } else {
                ic.name = i == 1 ? "nvidia-driver" : "cuda";
                snprintf(cons, sizeof cons, i == 1 ? "~%s" : "%s.*", i == 1 ? v + 1 : v);
                assert_int_equal(imx_constraint_parse(cons, &ic.constraint, NULL, 0), 0);
                s.constraints = &ic;
                s.n_constraints = 1;
            }
            json_t *j = search(&s);
            assert_int_equal(json_array_size(json_object_get(j, "items")),
                             json_integer_value(json_object_get(e, "count")));
            json_decref(j);
        }
    }
    json_decref(f);
}

static void keyset_pages_never_repeat_or_skip(void **state)
{
    (void)state;
    for (int i = 0; i < 25; i++) {
        char v[16];
        snprintf(v, sizeof v, "%d", i);
        publish("page-test", v, "580.95.05", "13.0.2", "us-east-1", "H100", 0);
    }
    enum imx_image_sort sorts[] = { IMX_SORT_PUBLISHED_DESC, IMX_SORT_FAMILY, IMX_SORT_BOOT_SECONDS,
                                    IMX_SORT_SIZE_GB };
    for (size_t si = 0; si < 4; si++) {
        char seen[64] = { 0 };
        char *cursor = NULL;
        int pages = 0, total = 0, extra = 0;
        do {
            struct imx_image_search s = {
                .family = "page-test", .limit = 4, .sort = sorts[si], .cursor = cursor
            };
            json_t *j = search(&s);
            json_t *items = json_object_get(j, "items"), *it;
            size_t k;
            json_array_foreach(items, k, it)
            {
                int v = atoi(json_string_value(json_object_get(it, "version")));
                assert_true(v >= 0 && v < 64);
                assert_int_equal(seen[v], 0);
                seen[v] = 1;
                total++;
            }
            free(cursor);
            json_t *next = json_object_get(j, "next_cursor");
            cursor = json_is_string(next) ? strdup(json_string_value(next)) : NULL;
            json_decref(j);
            /* Another publisher adds images between our pages. */
            if (pages == 1) {
                char v[16];
                snprintf(v, sizeof v, "%zu", 40 + si);
                publish("page-test", v, "580.95.05", "13.0.2", "us-east-1", "H100", 0);
                extra++;
            }
            pages++;
        } while (cursor && pages < 40);
        /* Every image there before the walk was seen exactly once. */
        for (int v = 0; v < 25; v++)
            assert_int_equal(seen[v], 1);
        assert_true(total >= 25 && total <= 25 + (int)si + extra);
    }
    /* A cursor of another sort or a forged one is refused. */
    struct imx_image_search bad = { .family = "page-test",
                                    .sort = IMX_SORT_FAMILY,
                                    .cursor = "p:1:123" };
    struct imx_db_conn *c = conn();
    char *text;
    assert_int_equal(imx_db_image_search(c, &bad, &text, NULL), IMX_DBS_INVALID);
    bad.cursor = "f:1:x' OR 1=1";
    assert_int_equal(imx_db_image_search(c, &bad, &text, NULL), IMX_DBS_INVALID);
    imx_db_release(c);
}

static json_t *resolve(const char *family, const char *region, const char *driver_constraint)
{
    struct imx_image_constraint ic = { .name = "nvidia-driver" };
    struct imx_image_resolve r = { .family = family, .region = region };
    if (driver_constraint) {
        assert_int_equal(imx_constraint_parse(driver_constraint, &ic.constraint, NULL, 0), 0);
        r.constraints = &ic;
        r.n_constraints = 1;
    }
    struct imx_db_conn *c = conn();
    char *text;
    assert_int_equal(imx_db_image_resolve(c, &r, &text, NULL), IMX_DBS_OK);
    imx_db_release(c);
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(j);
    return j;
}

static void resolve_never_returns_a_revoked_image(void **state)
{
    (void)state;
    long long old = publish("resolve-test", "1", "580.95.05", "13.0.2", "us-east-1", "H100", 0);
    long long newest = publish("resolve-test", "2", "580.105.08", "13.0.2", "us-east-1", "H100", 0);
    json_t *j = resolve("resolve-test", "us-east-1", NULL);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "image"), "id")),
                     newest);
    assert_string_equal(json_string_value(json_object_get(j, "artifact_id")),
                        "ami-0123456789abcdef0");
    json_decref(j);

    char q[256];
    snprintf(q, sizeof q,
             "UPDATE images SET status = 'revoked', status_reason = 'CVE' WHERE id = %lld "
             "RETURNING id",
             newest);
    free(imx_t_sql(db_url, q));
    j = resolve("resolve-test", "us-east-1", NULL);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "image"), "id")), old);
    json_decref(j);
    snprintf(q, sizeof q, "UPDATE images SET patch_status = 'revoked' WHERE id = %lld RETURNING id",
             old);
    free(imx_t_sql(db_url, q));
    j = resolve("resolve-test", "us-east-1", NULL);
    assert_true(json_is_null(json_object_get(j, "image")));
    assert_string_equal(json_string_value(json_object_get(j, "emptied_by")), "status");
    json_decref(j);

    /* Which filter emptied the set. */
    publish("resolve-test", "3", "570.133.20", "12.8.1", "us-east-1", "H100", 0);
    j = resolve("no-such-family", "us-east-1", NULL);
    assert_string_equal(json_string_value(json_object_get(j, "emptied_by")), "family");
    json_decref(j);
    j = resolve("resolve-test", "ap-south-1", NULL);
    assert_string_equal(json_string_value(json_object_get(j, "emptied_by")), "region");
    json_decref(j);
    j = resolve("resolve-test", "us-east-1", "~580");
    assert_true(json_is_null(json_object_get(j, "image")));
    assert_string_equal(json_string_value(json_object_get(j, "emptied_by")), "constraint");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(j, "constraint"), "name")),
        "nvidia-driver");
    json_decref(j);
}

static void get_compare_and_lineage(void **state)
{
    (void)state;
    long long p = publish("lineage-platform", "1", "580.95.05", "13.0.2", "us-east-1", "H100", 0);
    long long m = publish("lineage-model", "1", "580.105.08", "13.0.2", "us-east-1", "H100", p);
    struct imx_db_conn *c = conn();
    char *json, *etag;
    assert_int_equal(imx_db_image_get(c, p, &json, &etag, NULL), IMX_DBS_OK);
    json_t *j = json_loads(json, 0, NULL);
    /* The detail does not list children (unbounded): the lineage does. */
    assert_null(json_object_get(j, "children"));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(j, "components"), "cuda")), "13.0.2");
    assert_true(etag[0] == '"');
    json_decref(j);
    free(json);
    free(etag);
    assert_int_equal(imx_db_image_get(c, 999999, &json, &etag, NULL), IMX_DBS_NOT_FOUND);

    long long ids[] = { p, m };
    assert_int_equal(imx_db_image_compare(c, ids, 2, &json, NULL, NULL), IMX_DBS_OK);
    j = json_loads(json, 0, NULL);
    json_t *e;
    size_t k;
    int drivers = 0;
    json_array_foreach(json_object_get(j, "components"), k, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "name")), "nvidia-driver") == 0) {
            assert_true(json_is_true(json_object_get(e, "differs")));
            drivers++;
        }
    }
    assert_int_equal(drivers, 1);
    json_decref(j);
    free(json);
    long long bad[] = { p, 999999 };
    long long missing;
    assert_int_equal(imx_db_image_compare(c, bad, 2, &json, &missing, NULL), IMX_DBS_NOT_FOUND);
    assert_int_equal(missing, 999999);

    /* Duplicate family+version is a conflict. */
    struct imx_image_new dup = { .family = "lineage-platform",
                                 .version = "1",
                                 .team_id = team_id,
                                 .provider = "aws",
                                 .architecture = "x86_64",
                                 .os_name = "ubuntu",
                                 .os_version = "24.04",
                                 .layer = "platform",
                                 .boot_seconds = -1,
                                 .size_gb = -1 };
    long long id;
    assert_int_equal(imx_db_image_insert(c, &dup, &id, NULL, 0, NULL), IMX_DBS_CONFLICT);
    dup.version = "2";
    dup.provider = "ibm";
    assert_int_equal(imx_db_image_insert(c, &dup, &id, NULL, 0, NULL), IMX_DBS_INVALID);
    imx_db_release(c);
}

static void reference_snapshot_flags_a_known_bad_stack(void **state)
{
    (void)state;
    struct imx_db_conn *c = conn();
    char err[256];
    const struct imx_ref_snapshot *ref = imx_db_ref_acquire(c, err, sizeof err);
    assert_non_null(ref);
    assert_true(ref->n_cuda > 40 && ref->n_gpus > 10 && ref->n_pytorch > 30);
    const struct imx_compat_component comps[] = { { "nvidia-driver", "535.183.01" },
                                                  { "cuda", "12.8.0" } };
    const char *gpus[] = { "B200" };
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_int_equal(imx_compat_check(ref, comps, 2, gpus, 1, "2026-01-01", r), 0);
    assert_false(r->ok);
    assert_string_equal(r->findings[0].code, "gpu_driver_too_old");
    free(r);

    /* Same generation: the cached snapshot; an admin edit: a new one. */
    const struct imx_ref_snapshot *again = imx_db_ref_acquire(c, err, sizeof err);
    assert_ptr_equal(again, ref);
    imx_db_ref_release(again);
    free(
        imx_t_sql(db_url, "UPDATE ref_gpu SET notes = notes WHERE gpu_model = 'B200' RETURNING 1"));
    const struct imx_ref_snapshot *fresh = imx_db_ref_acquire(c, err, sizeof err);
    assert_non_null(fresh);
    assert_true(fresh != ref && fresh->generation > ref->generation);
    imx_db_ref_release(ref);
    imx_db_ref_release(fresh);
    imx_db_release(c);
}

/* How many images have a copied search key (gpus, regions, tags, components, component_keys)
 * that differs from their child tables. */
static long long stale_copies(void)
{
    char *n = imx_t_sql(
        db_url,
        "SELECT count(*) FROM images i WHERE"
        " i.gpus <> ARRAY(SELECT g.gpu FROM image_gpus g WHERE g.image_id = i.id ORDER BY 1)"
        " OR i.regions <> ARRAY(SELECT a.region FROM image_artifacts a WHERE a.image_id = i.id"
        "   ORDER BY 1)"
        " OR i.tags <> ARRAY(SELECT t.tag FROM image_tags t WHERE t.image_id = i.id ORDER BY 1)"
        " OR i.components::text <> coalesce((SELECT json_object_agg(c.name, c.version"
        "   ORDER BY c.name) FROM image_components c WHERE c.image_id = i.id)::text, '{}')"
        " OR i.component_keys <> coalesce((SELECT jsonb_object_agg(c.name,"
        "   imx_version_key_num(c.version_key)) FROM image_components c"
        "   WHERE c.image_id = i.id), '{}')");
    assert_non_null(n);
    long long v = atoll(n);
    free(n);
    return v;
}

/* The search keys copied onto images follow every write of the child tables (publish, and
 * direct SQL as the loader, tests and the demo do), and the version-key number keeps order. */
static void copied_search_keys_follow_child_tables(void **state)
{
    (void)state;
    long long id = publish("copy-test", "1", "580.95.05", "13.0.2", "us-east-1", "NVIDIA H100", 0);
    assert_int_equal(stale_copies(), 0);
    char q[512], *v;
    snprintf(q, sizeof q,
             "SELECT gpus::text || facet_cuda || facet_driver"
             " || facet_frameworks::text FROM images WHERE id = %lld",
             id);
    v = imx_t_sql(db_url, q);
    assert_non_null(v);
    assert_string_equal(v, "{H100}13.0R580{\"pytorch 2.9\"}");
    free(v);
    const char *writes[] = {
        "INSERT INTO image_tags (image_id, tag) VALUES (%lld, 'fips') RETURNING 1",
        "INSERT INTO image_gpus (image_id, gpu) VALUES (%lld, 'B200') RETURNING 1",
        "INSERT INTO image_artifacts VALUES (%lld, 'eu-west-1', 'ami-2') RETURNING 1",
        "UPDATE image_components SET version = '12.8.1' WHERE image_id = %lld"
        " AND name = 'cuda' RETURNING 1",
        "DELETE FROM image_components WHERE image_id = %lld AND name = 'pytorch' RETURNING 1",
        "DELETE FROM image_tags WHERE image_id = %lld AND tag = 'cis' RETURNING 1",
    };
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
        snprintf(q, sizeof q, writes[i], id);
        v = imx_t_sql(db_url, q);
        assert_non_null(v);
        free(v);
        assert_int_equal(stale_copies(), 0);
    }
    v = imx_t_sql(db_url, "SELECT bool_and(imx_version_key_num(a) < imx_version_key_num(b))"
                          " FROM (VALUES ('{580,95,5,0,0,0}'::int[], '{580,105,8,0,0,0}'::int[]),"
                          " ('{12,9,999999999,0,0,0}', '{13,0,0,0,0,0}'),"
                          " ('{0,0,0,0,0,999999998}', '{0,0,0,0,0,999999999}')) x(a, b)");
    assert_non_null(v);
    assert_string_equal(v, "t");
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sql_version_key_agrees_with_c),
        cmocka_unit_test(prerelease_migration_recomputes_stored_range_keys),
        cmocka_unit_test(constraint_filters_at_boundaries),
        cmocka_unit_test(facet_counts_equal_filtered_counts),
        cmocka_unit_test(keyset_pages_never_repeat_or_skip),
        cmocka_unit_test(resolve_never_returns_a_revoked_image),
        cmocka_unit_test(get_compare_and_lineage),
        cmocka_unit_test(reference_snapshot_flags_a_known_bad_stack),
        cmocka_unit_test(copied_search_keys_follow_child_tables),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
