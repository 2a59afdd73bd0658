/* Costs and image requests against the real server: default and dated prices (a measurement keeps
 * its price), C and SQL cost arithmetic agree, impossible values named, all-or-nothing imports,
 * medians with odd and even counts, the ranking's latency filter, the request state machine over
 * HTTP, matches found at creation and by the publish trigger, and the cross-team matrix for
 * measurements and requests. */
#include "harness.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/cost.h"

static struct imx_srv srv;
static char db[1024];
static char admin[4096], pub[4096], alice[4096], bob[4096], vic[4096];
static long long img_m1, img_m2, img_rank_a, img_rank_b, img_med;

#define PUB   "pub@catalog.test"
#define ALICE "alice@a.test"
#define BOB   "bob@b.test"
#define VIC   "vic@a.test"

/* Inserts an active image with a driver, CUDA, one GPU and a tag; returns its id. */
static long long image(const char *family, const char *version, const char *driver,
                       const char *cuda, const char *gpu)
{
    char q[2048];
    snprintf(
        q, sizeof q,
        "WITH i AS (INSERT INTO images (family, version, team_id, provider, architecture,"
        " os_name, os_version, layer, boot_seconds) SELECT '%s', '%s', min(id), 'aws',"
        " 'x86_64', 'ubuntu', '24.04', 'platform', 60 FROM teams RETURNING id),"
        " c AS (INSERT INTO image_components (image_id, name, version)"
        "  SELECT i.id, x.n, x.v FROM i, (VALUES ('nvidia-driver', '%s'), ('cuda', '%s')) x(n, v)"
        "  RETURNING 1),"
        " g AS (INSERT INTO image_gpus (image_id, gpu) SELECT i.id, '%s' FROM i RETURNING 1),"
        " t AS (INSERT INTO image_tags (image_id, tag) SELECT i.id, 'cis' FROM i RETURNING 1)"
        " SELECT id FROM i",
        family, version, driver, cuda, gpu);
    char *id = imx_t_sql(db, q);
    assert_non_null(id);
    long long v = atoll(id);
    free(id);
    return v;
}

static int setup(void **state)
{
    (void)state;
    if (imx_t_server_up(&srv, "costs", NULL, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    /* The first team created is the catalog team (IMAXE_CATALOG_TEAM unset). */
    if (imx_t_user(&srv, admin, "catalog", PUB, "publisher", pub, sizeof pub) != 0 ||
        imx_t_user(&srv, admin, "team-a", ALICE, "member", alice, sizeof alice) != 0 ||
        imx_t_user(&srv, admin, "team-b", BOB, "admin", bob, sizeof bob) != 0 ||
        imx_t_user(&srv, admin, "team-a", VIC, "viewer", vic, sizeof vic) != 0)
        return -1;
    img_m1 = image("req-match", "1", "570.133.20", "12.8.1", "H100");
    img_m2 = image("req-other", "1", "535.183.01", "12.2.2", "T4");
    img_rank_a = image("rank-a", "1", "580.95.05", "13.0.2", "L4");
    img_rank_b = image("rank-b", "1", "580.95.05", "13.0.2", "L4");
    img_med = image("median", "1", "580.95.05", "13.0.2", "A10G");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

/* One request; returns the response (free it). Fails the test on no answer. */
static struct imx_res call(const char *token, const char *method, const char *path,
                           const char *body)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, method, path, body, &res), 0);
    return res;
}

static void expect(const char *token, const char *method, const char *path, const char *body,
                   long status)
{
    struct imx_res res = call(token, method, path, body);
    if (res.status != status)
        fprintf(stderr, "%s %s: expected %ld, got %ld: %s\n", method, path, status, res.status,
                res.body);
    assert_int_equal(res.status, status);
    imx_t_res_free(&res);
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

static void assert_close(double got, double want)
{
    if (fabs(got - want) > fabs(want) * 1e-12 + 1e-15)
        fail_msg("got %.17g, want %.17g", got, want);
}

static double dnum(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_string(v))
        return strtod(json_string_value(v), NULL);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* Posts a measurement for alice's team; returns its JSON (new). */
static json_t *measure(long long image_id, const char *type, const char *model, double tput,
                       double p50, double p99, const char *extra)
{
    char body[1024];
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"image\":%lld,\"instance_type\":\"%s\",\"model\":\"%s\","
             "\"precision\":\"fp16\",\"batch_size\":8,\"throughput_per_s\":%.17g,"
             "\"latency_p50_ms\":%.17g,\"latency_p99_ms\":%.17g,\"boot_seconds\":90%s%s}",
             image_id, type, model, tput, p50, p99,
             extra && strstr(extra, "measured_at") ? ""
                                                   : ",\"measured_at\":\"2026-08-01T00:00:00Z\"",
             extra ? extra : "");
    struct imx_res res = call(alice, "POST", "/v1/measurements", body);
    if (res.status != 201)
        fail_msg("measurement: %ld %s", res.status, res.body);
    json_t *m = json_incref(res.json);
    imx_t_res_free(&res);
    return m;
}

static void default_price_and_derived_costs(void **state)
{
    (void)state;
    json_t *m = measure(img_m1, "g4dn.xlarge", "resnet50", 250, 4, 9, NULL);
    assert_close(dnum(m, "price_per_hour"), 0.526);
    assert_string_equal(json_string_value(json_object_get(m, "price_source")), "price_table");
    json_t *d = json_object_get(m, "derived");
    /* Hand-computed: 0.526 / (250 * 3600) * 1000 and 0.526 * 90 / 3600. */
    assert_close(dnum(d, "cost_per_1k_inferences"), 0.000584444444444444444);
    assert_close(dnum(d, "boot_cost"), 0.01315);
    assert_string_equal(json_string_value(json_object_get(d, "currency")), "USD");
    assert_non_null(strstr(json_string_value(json_object_get(d, "basis")), "throughput_per_s"));
    json_decref(m);
}

static void a_measurement_keeps_its_price_when_the_price_changes(void **state)
{
    (void)state;
    json_t *before = measure(img_m1, "g4dn.xlarge", "price-test", 100, 5, 10, NULL);
    long long id = json_integer_value(json_object_get(before, "id"));
    expect(admin, "POST", "/v1/instance-types/aws/g4dn.xlarge/prices",
           "{\"pricing\":\"on_demand\",\"region\":\"us-east-1\",\"price_per_hour\":0.4,"
           "\"valid_from\":\"2026-09-01T00:00:00Z\"}",
           201);
    expect(alice, "POST", "/v1/instance-types/aws/g4dn.xlarge/prices",
           "{\"pricing\":\"spot\",\"region\":\"us-east-1\",\"price_per_hour\":0.2}", 403);
    /* Recorded after the change, measured before it: the old price. Measured after: the new. */
    json_t *old = measure(img_m1, "g4dn.xlarge", "price-test", 100, 5, 10, NULL);
    json_t *after = measure(img_m1, "g4dn.xlarge", "price-test", 100, 5, 10,
                            ",\"measured_at\":\"2026-10-01T00:00:00Z\"");
    (void)after;
    assert_close(dnum(old, "price_per_hour"), 0.526);
    char path[64];
    snprintf(path, sizeof path, "/v1/measurements/%lld", id);
    struct imx_res res = call(alice, "GET", path, NULL);
    assert_int_equal(res.status, 200);
    assert_close(dnum(res.json, "price_per_hour"), 0.526);
    assert_close(dnum(json_object_get(res.json, "derived"), "cost_per_1k_inferences"),
                 imx_cost_per_1k(0.526, 100));
    imx_t_res_free(&res);
    json_decref(before);
    json_decref(old);
    json_decref(after);
}

static void duplicate_measured_at_key_is_rejected(void **state)
{
    (void)state;
    /* The body parser refuses duplicate keys, so measured_at cannot be smuggled twice. */
    struct imx_res res =
        call(alice, "POST", "/v1/measurements",
             "{\"measured_at\":\"2026-08-01T00:00:00Z\",\"measured_at\":\"2026-10-01T00:00:00Z\"}");
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
}

static void sql_and_c_agree(void **state)
{
    (void)state;
    static const struct {
        double price, tput, boot, daily;
    } cases[] = {
        { 0.526, 250, 90, 1e6 },  { 55.04, 1000, 180, 5e7 },       { 32.7726, 0.37, 3599, 12 },
        { 1.006, 123.456, 0, 1 }, { 98.32, 12345.678, 61.5, 3e9 }, { 0.0001, 1e6, 1, 7 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char q[512];
        snprintf(q, sizeof q,
                 "SELECT imx_cost_per_1k(%.17g, %.17g) || ' ' || imx_boot_cost(%.17g, %.17g)"
                 " || ' ' || imx_monthly_cost(imx_cost_per_1k(%.17g, %.17g), %.17g)",
                 cases[i].price, cases[i].tput, cases[i].price, cases[i].boot, cases[i].price,
                 cases[i].tput, cases[i].daily);
        char *v = imx_t_sql(db, q);
        assert_non_null(v);
        double c1k, boot, month;
        assert_int_equal(sscanf(v, "%lf %lf %lf", &c1k, &boot, &month), 3);
        free(v);
        /* PostgreSQL prints float8 exactly (shortest round trip): the same doubles. */
        assert_true(c1k == imx_cost_per_1k(cases[i].price, cases[i].tput));
        assert_true(boot == imx_boot_cost(cases[i].price, cases[i].boot));
        assert_close(month, imx_monthly_cost(imx_cost_per_1k(cases[i].price, cases[i].tput),
                                             cases[i].daily));
    }
}

static void impossible_values_are_400_naming_the_field(void **state)
{
    (void)state;
    char body[1024];
    static const struct {
        const char *fields, *pointer;
    } cases[] = {
        { "\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"throughput_per_s\":0",
          "/throughput_per_s" },
        { "\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"throughput_per_s\":-1",
          "/throughput_per_s" },
        { "\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"throughput_per_s\":5,"
          "\"latency_p50_ms\":10,\"latency_p99_ms\":9",
          "/latency_p99_ms" },
        { "\"image\":999999%lld,\"instance_type\":\"g5.xlarge\",\"throughput_per_s\":5", "/image" },
        { "\"image\":%lld,\"instance_type\":\"z9.huge\",\"throughput_per_s\":5", "/instance_type" },
        { "\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"throughput_per_s\":5,"
          "\"measured_at\":\"2099-01-01T00:00:00Z\"",
          "/measured_at" },
        { "\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"throughput_per_s\":5,"
          "\"measured_at\":\"yesterday-ish\"",
          "/measured_at" },
        { "\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"throughput_per_s\":5,\"gpu_count\":4",
          "/gpu_count" },
        { "\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"throughput_per_s\":5,"
          "\"measured_at\":\"2020-01-01T00:00:00Z\"",
          "/price_per_hour" },
        { "\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"throughput_per_s\":5,\"pricing\":\"x\"",
          "/pricing" },
        { "\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"throughput_per_s\":5,\"id\":3", "/id" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char fields[512];
        snprintf(fields, sizeof fields, cases[i].fields, img_m1);
        bool has_time = strstr(fields, "measured_at") != NULL;
        snprintf(body, sizeof body,
                 "{\"team\":\"team-a\",\"model\":\"m\",\"precision\":\"fp16\",\"batch_size\":1,"
                 "%s%s}",
                 fields, has_time ? "" : ",\"measured_at\":\"2026-08-01T00:00:00Z\"");
        struct imx_res res = call(alice, "POST", "/v1/measurements", body);
        if (res.status != 400 || !has_pointer(&res, cases[i].pointer))
            fail_msg("case %zu: want 400 at %s, got %ld %s", i, cases[i].pointer, res.status,
                     res.body);
        imx_t_res_free(&res);
    }
    char *n = imx_t_sql(db, "SELECT count(*) FROM measurements WHERE model = 'm'");
    assert_string_equal(n, "0");
    free(n);
}

static struct imx_res import(const char *content_type, const char *body)
{
    char auth[4200], ct[128];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", alice);
    snprintf(ct, sizeof ct, "Content-Type: %s", content_type);
    const char *h[] = { auth, ct, NULL };
    struct imx_res res;
    assert_int_equal(imx_t_http(&srv, "POST", "/v1/measurements:import?team=team-a", h, body, &res),
                     0);
    return res;
}

static void import_is_all_or_nothing(void **state)
{
    (void)state;
    char *before = imx_t_sql(db, "SELECT count(*) FROM measurements");
    char nd[2048];
    snprintf(nd, sizeof nd,
             "{\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"model\":\"imp\",\"precision\":"
             "\"fp16\",\"batch_size\":1,\"throughput_per_s\":10,\"measured_at\":\"2026-08-01T00:00:"
             "00Z\"}\n"
             "{\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"model\":\"imp\",\"precision\":"
             "\"fp16\",\"batch_size\":1,\"throughput_per_s\":0,\"measured_at\":\"2026-08-01T00:00:"
             "00Z\"}\n"
             "\n"
             "{\"image\":999999999,\"instance_type\":\"g5.xlarge\",\"model\":\"imp\",\"precision\":"
             "\"fp16\",\"batch_size\":1,\"throughput_per_s\":3,\"measured_at\":\"2026-08-01T00:00:"
             "00Z\"}\n"
             "not json\n",
             img_m1, img_m1);
    struct imx_res res = import("application/x-ndjson", nd);
    imx_t_assert_problem(&res, 400);
    assert_true(has_pointer(&res, "/lines/2/throughput_per_s"));
    assert_true(has_pointer(&res, "/lines/4/image"));
    assert_true(has_pointer(&res, "/lines/5"));
    assert_int_equal(json_array_size(json_object_get(res.json, "errors")), 3);
    imx_t_res_free(&res);
    char *after = imx_t_sql(db, "SELECT count(*) FROM measurements");
    assert_string_equal(before, after);
    free(after);

    char csv[1024];
    snprintf(csv, sizeof csv,
             "image,instance_type,model,precision,batch_size,throughput_per_s,latency_p50_ms,"
             "latency_p99_ms,measured_at,notes\r\n"
             "%lld,g5.xlarge,imp,fp16,1,10,5,8,2026-08-01T00:00:00Z,\"quoted, with comma\"\r\n"
             "%lld,g5.xlarge,imp,int8,4,20.5,,,2026-08-02T00:00:00Z,\r\n",
             img_m1, img_m1);
    res = import("text/csv", csv);
    assert_int_equal(res.status, 201);
    assert_int_equal(json_integer_value(json_object_get(res.json, "imported")), 2);
    imx_t_res_free(&res);
    char *notes = imx_t_sql(db, "SELECT notes FROM measurements WHERE model = 'imp' AND "
                                "precision = 'fp16'");
    assert_string_equal(notes, "quoted, with comma");
    free(notes);
    res = import("text/csv", "image,instance_type,bogus\n1,g5.xlarge,x\n");
    imx_t_assert_problem(&res, 400);
    assert_true(has_pointer(&res, "/lines/2/bogus"));
    imx_t_res_free(&res);
    /* The import reads CSV as every CSV the server takes (domain/csv.c): a quoted field may hold
     * a line break, and a row's errors point at the line it starts on (4 here: the row before
     * it spans lines 2 and 3); a duplicate column and a stray quote are refused. */
    snprintf(csv, sizeof csv,
             "image,instance_type,model,precision,batch_size,throughput_per_s,measured_at,notes\n"
             "%lld,g5.xlarge,imp,fp16,1,10,2026-08-03T00:00:00Z,\"two\nlines\"\n"
             "%lld,g5.xlarge,imp,fp16,1,fast,2026-08-03T00:00:00Z,\n",
             img_m1, img_m1);
    res = import("text/csv", csv);
    imx_t_assert_problem(&res, 400);
    assert_true(has_pointer(&res, "/lines/4/throughput_per_s"));
    assert_int_equal(json_array_size(json_object_get(res.json, "errors")), 1);
    imx_t_res_free(&res);
    res = import("text/csv", "image,image\n1,2\n");
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
    res = import("text/csv", "image,notes\n1,say \"x\"\n");
    imx_t_assert_problem(&res, 400);
    assert_true(has_pointer(&res, "/lines/2"));
    imx_t_res_free(&res);
    res = import("application/json", "{}");
    imx_t_assert_problem(&res, 415);
    imx_t_res_free(&res);
    free(before);
}

static json_t *image_cost_row(const char *token, long long image_id, const char *model)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/images/%lld/costs", image_id);
    struct imx_res res = call(token, "GET", path, NULL);
    assert_int_equal(res.status, 200);
    json_t *row = NULL, *it;
    size_t i;
    json_array_foreach(json_object_get(res.json, "items"), i, it)
    {
        if (strcmp(json_string_value(json_object_get(it, "model")), model) == 0)
            row = json_incref(it);
    }
    imx_t_res_free(&res);
    return row;
}

static void medians_with_odd_and_even_counts(void **state)
{
    (void)state;
    const double tputs[] = { 400, 100, 200 };
    for (int i = 0; i < 3; i++)
        json_decref(measure(img_med, "g5.xlarge", "median-model", tputs[i], 5, 10 * (i + 1),
                            ",\"price_per_hour\":1.5"));
    json_t *row = image_cost_row(alice, img_med, "median-model");
    assert_non_null(row);
    assert_int_equal(json_integer_value(json_object_get(row, "measurements")), 3);
    assert_close(dnum(row, "median_cost_per_1k_inferences"), imx_cost_per_1k(1.5, 200));
    assert_close(dnum(row, "median_throughput_per_s"), 200);
    assert_close(dnum(row, "median_latency_p99_ms"), 20);
    /* p90 of 100, 200, 400 by linear interpolation: 200 + 0.8 * 200. */
    assert_close(dnum(row, "p90_throughput_per_s"), 360);
    assert_close(dnum(row, "median_boot_cost"), imx_boot_cost(1.5, 90));
    json_decref(row);

    json_decref(
        measure(img_med, "g5.xlarge", "median-model", 800, 5, 40, ",\"price_per_hour\":1.5"));
    row = image_cost_row(alice, img_med, "median-model");
    assert_int_equal(json_integer_value(json_object_get(row, "measurements")), 4);
    /* Even count: the mean of the middle two. */
    assert_close(dnum(row, "median_cost_per_1k_inferences"),
                 (imx_cost_per_1k(1.5, 200) + imx_cost_per_1k(1.5, 400)) / 2);
    assert_close(dnum(row, "median_throughput_per_s"), 300);
    assert_close(dnum(row, "median_latency_p99_ms"), 25);
    json_decref(row);
    /* Another team sees no rows for it. */
    row = image_cost_row(bob, img_med, "median-model");
    assert_null(row);
    expect(alice, "GET", "/v1/images/999999/costs", NULL, 404);
}

static void ranking_honours_the_latency_target(void **state)
{
    (void)state;
    /* A: cheap, slow (p99 100 ms); B: dearer, fast (p99 20 ms). */
    json_decref(measure(img_rank_a, "g6.xlarge", "rank-model", 1000, 50, 100, NULL));
    json_decref(measure(img_rank_a, "g6.xlarge", "rank-model", 1200, 50, 100, NULL));
    json_decref(measure(img_rank_b, "g6.xlarge", "rank-model", 300, 10, 20, NULL));
    struct imx_res res = call(alice, "GET", "/v1/costs?model=rank-model", NULL);
    assert_int_equal(res.status, 200);
    json_t *items = json_object_get(res.json, "items");
    assert_int_equal(json_array_size(items), 2);
    json_t *first = json_array_get(items, 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(first, "image"), "id")),
                     img_rank_a);
    assert_int_equal(json_integer_value(json_object_get(first, "measurements")), 2);
    assert_close(dnum(first, "median_cost_per_1k_inferences"),
                 (imx_cost_per_1k(0.8048, 1000) + imx_cost_per_1k(0.8048, 1200)) / 2);
    assert_true(json_is_null(json_object_get(first, "monthly_cost")));
    imx_t_res_free(&res);
    /* One rank a page: rank 1, then rank 2 and no further page. */
    res = call(alice, "GET", "/v1/costs?model=rank-model&limit=1", NULL);
    assert_int_equal(res.status, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 1);
    const char *next = json_string_value(json_object_get(res.json, "next_cursor"));
    assert_non_null(next);
    char page2[1024], link[1024];
    assert_non_null(imx_t_header(&res, "Link", link, sizeof link));
    snprintf(page2, sizeof page2, "/v1/costs?model=rank-model&limit=1&cursor=%s", next);
    imx_t_res_free(&res);
    res = call(alice, "GET", page2, NULL);
    assert_int_equal(res.status, 200);
    first = json_array_get(json_object_get(res.json, "items"), 0);
    assert_int_equal(json_integer_value(json_object_get(first, "rank")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(first, "image"), "id")),
                     img_rank_b);
    assert_true(json_is_null(json_object_get(res.json, "next_cursor")));
    imx_t_res_free(&res);
    /* The ranking as CSV, one page of one rank after another: a header and both ranks. */
    char auth[4200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", alice);
    const char *csv_h[] = { auth, "Accept: text/csv", NULL };
    assert_int_equal(imx_t_http(&srv, "GET", "/v1/costs?model=rank-model", csv_h, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    printf("ranking CSV:\n%s", res.body);
    assert_true(strncmp(res.body, "rank,image.id,image.family,", 27) == 0);
    char rank1[64], rank2[64];
    snprintf(rank1, sizeof rank1, "\r\n1,%lld,rank-a,", img_rank_a);
    snprintf(rank2, sizeof rank2, "\r\n2,%lld,rank-b,", img_rank_b);
    assert_non_null(strstr(res.body, rank1));
    assert_non_null(strstr(res.body, rank2));
    imx_t_res_free(&res);
    char ipath[64];
    snprintf(ipath, sizeof ipath, "/v1/images/%lld/costs", img_rank_a);
    const char *nd_h[] = { auth, "Accept: application/x-ndjson", NULL };
    assert_int_equal(imx_t_http(&srv, "GET", ipath, nd_h, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    json_t *line = json_loadb(res.body, strcspn(res.body, "\n"), 0, NULL);
    assert_string_equal(json_string_value(json_object_get(line, "model")), "rank-model");
    json_decref(line);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http(&srv, "GET", "/v1/images/999999/costs", nd_h, NULL, &res), 0);
    imx_t_assert_problem(&res, 404);
    imx_t_res_free(&res);

    res = call(alice, "GET", "/v1/costs?model=rank-model&max_p99_ms=50&daily_inferences=1000000",
               NULL);
    assert_int_equal(res.status, 200);
    items = json_object_get(res.json, "items");
    assert_int_equal(json_array_size(items), 1);
    first = json_array_get(items, 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(first, "image"), "id")),
                     img_rank_b);
    assert_int_equal(json_integer_value(json_object_get(res.json, "excluded_by_latency")), 1);
    assert_close(dnum(first, "monthly_cost"), imx_monthly_cost(imx_cost_per_1k(0.8048, 300), 1e6));
    assert_close(dnum(res.json, "days_per_month"), 30.44);
    imx_t_res_free(&res);

    res = call(alice, "GET", "/v1/costs?model=rank-model&gpu=Ada&family=rank-b", NULL);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 1);
    imx_t_res_free(&res);
    res = call(alice, "GET", "/v1/costs?model=rank-model&gpu=H100", NULL);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 0);
    imx_t_res_free(&res);
    /* Only the caller's teams' measurements are ranked. */
    res = call(bob, "GET", "/v1/costs?model=rank-model", NULL);
    assert_int_equal(res.status, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 0);
    imx_t_res_free(&res);
    expect(alice, "GET", "/v1/costs", NULL, 400);
    expect(alice, "GET", "/v1/costs?model=x&max_p99_ms=-1", NULL, 400);
    expect(alice, "GET", "/v1/costs?model=x&pricing=free", NULL, 400);
}

static void instance_types_are_admin_managed(void **state)
{
    (void)state;
    struct imx_res res = call(alice, "GET", "/v1/instance-types?gpu=H100", NULL);
    assert_int_equal(res.status, 200);
    assert_true(json_array_size(json_object_get(res.json, "items")) >= 1);
    imx_t_res_free(&res);
    const char *body = "{\"provider\":\"lambda\",\"instance_type\":\"gpu-8x-h100\","
                       "\"gpu_model\":\"NVIDIA H100\",\"gpu_count\":8,\"gpu_memory_gib\":80,"
                       "\"vcpus\":208,\"memory_gib\":1800,\"host_arch\":\"x86_64\"}";
    expect(alice, "POST", "/v1/instance-types", body, 403);
    expect(admin, "POST", "/v1/instance-types", body, 201);
    expect(admin, "POST", "/v1/instance-types", body, 409);
    /* Replacing an existing type needs its ETag (428 without). */
    static const char put[] = "{\"gpu_model\":\"H100\",\"gpu_count\":8,\"gpu_memory_gib\":80,"
                              "\"vcpus\":224,\"memory_gib\":1800,\"host_arch\":\"x86_64\"}";
    expect(admin, "PUT", "/v1/instance-types/lambda/gpu-8x-h100", put, 428);
    struct imx_res got = call(admin, "GET", "/v1/instance-types/lambda/gpu-8x-h100", NULL);
    char tag[64], auth[4200], if_match[96];
    assert_non_null(imx_t_header(&got, "ETag", tag, sizeof tag));
    imx_t_res_free(&got);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", admin);
    snprintf(if_match, sizeof if_match, "If-Match: %s", tag);
    const char *hdr[] = { auth, "Content-Type: application/json", if_match, NULL };
    assert_int_equal(
        imx_t_http(&srv, "PUT", "/v1/instance-types/lambda/gpu-8x-h100", hdr, put, &got), 0);
    assert_int_equal(got.status, 200);
    imx_t_res_free(&got);
    /* The same ETag again is stale now. */
    assert_int_equal(
        imx_t_http(&srv, "PUT", "/v1/instance-types/lambda/gpu-8x-h100", hdr, put, &got), 0);
    imx_t_assert_problem(&got, 412);
    imx_t_res_free(&got);
    expect(admin, "POST", "/v1/instance-types",
           "{\"provider\":\"x\",\"instance_type\":\"y.z\",\"gpu_model\":\"Voodoo2\","
           "\"gpu_count\":1,\"gpu_memory_gib\":1,\"vcpus\":1,\"memory_gib\":1,"
           "\"host_arch\":\"x86_64\"}",
           400);
    expect(admin, "POST", "/v1/instance-types/lambda/gpu-8x-h100/prices",
           "{\"pricing\":\"reserved\",\"region\":\"us-tx-1\",\"price_per_hour\":23.92,"
           "\"valid_from\":\"2026-01-01T00:00:00Z\"}",
           201);
    res = call(alice, "GET", "/v1/instance-types/lambda/gpu-8x-h100", NULL);
    assert_int_equal(res.status, 200);
    assert_int_equal(json_integer_value(json_object_get(res.json, "vcpus")), 224);
    assert_string_equal(json_string_value(json_object_get(res.json, "gpu_model")), "H100");
    assert_int_equal(json_array_size(json_object_get(res.json, "price_history")), 1);
    imx_t_res_free(&res);
    /* A measurement on it takes the reserved price in that region. */
    json_t *m = measure(img_m1, "gpu-8x-h100", "llama-3.1-8b", 50, 20, 40,
                        ",\"provider\":\"lambda\",\"pricing\":\"reserved\",\"region\":\"us-tx-1\"");
    assert_close(dnum(m, "price_per_hour"), 23.92);
    json_decref(m);
}

/* ---- requests ---- */

static json_t *create_request(const char *token, const char *body, long status)
{
    struct imx_res res = call(token, "POST", "/v1/requests", body);
    if (res.status != status)
        fail_msg("create request: %ld %s", res.status, res.body);
    json_t *j = json_incref(res.json);
    imx_t_res_free(&res);
    return j;
}

static long move(const char *token, long long id, const char *body, json_t **doc)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/requests/%lld/transitions", id);
    struct imx_res res = call(token, "POST", path, body);
    long status = res.status;
    if (doc)
        *doc = json_incref(res.json);
    imx_t_res_free(&res);
    return status;
}

static void request_report_matches_and_transitions(void **state)
{
    (void)state;
    json_t *r = create_request(alice,
                               "{\"team\":\"team-a\",\"title\":\"PyTorch on H100\","
                               "\"family\":\"pt-h100\",\"constraints\":[{\"component\":\"cuda\","
                               "\"range\":\"12.*\"},{\"component\":\"nvidia-driver\",\"range\":"
                               "\">=570\"}],\"gpus\":[\"NVIDIA H100\"],\"os\":\"ubuntu:24.04\","
                               "\"architecture\":\"x86_64\",\"tags\":[\"cis\"],"
                               "\"justification\":\"inference fleet\"}",
                               201);
    long long id = json_integer_value(json_object_get(r, "id"));
    json_t *compat = json_object_get(r, "compatibility");
    assert_true(json_is_true(json_object_get(compat, "satisfiable")));
    assert_non_null(json_object_get(json_object_get(compat, "candidate"), "cuda"));
    assert_string_equal(json_string_value(json_object_get(r, "catalog_team")), "catalog");
    assert_string_equal(json_string_value(json_object_get(r, "state")), "open");
    json_t *matches = json_object_get(r, "matches");
    assert_int_equal(json_array_size(matches), 1);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_array_get(matches, 0), "image"), "id")),
                     img_m1);
    json_decref(r);

    /* Impossible stacks say which constraint and why. */
    r = create_request(alice,
                       "{\"team\":\"team-a\",\"title\":\"x\",\"constraints\":[{\"component\":"
                       "\"cuda\",\"range\":\">=99\"}]}",
                       201);
    compat = json_object_get(r, "compatibility");
    assert_true(json_is_false(json_object_get(compat, "satisfiable")));
    json_t *u = json_array_get(json_object_get(compat, "unsatisfied"), 0);
    assert_string_equal(json_string_value(json_object_get(u, "component")), "cuda");
    json_decref(r);
    r = create_request(alice,
                       "{\"team\":\"team-a\",\"title\":\"y\",\"constraints\":[{\"component\":"
                       "\"cuda\",\"range\":\"13.*\"},{\"component\":\"nvidia-driver\","
                       "\"range\":\"~535\"}]}",
                       201);
    compat = json_object_get(r, "compatibility");
    assert_true(json_is_false(json_object_get(compat, "satisfiable")));
    assert_true(json_array_size(json_object_get(compat, "unsatisfied")) > 0);
    long long other = json_integer_value(json_object_get(r, "id"));
    json_decref(r);
    r = create_request(alice,
                       "{\"team\":\"team-a\",\"title\":\"z\",\"constraints\":[{\"component\":"
                       "\"cuda\",\"range\":\">>12\"}],\"os\":\":\",\"architecture\":\"sparc\"}",
                       400);
    json_decref(r);

    /* The state machine over HTTP. */
    json_t *doc;
    assert_int_equal(move(alice, id, "{\"to\":\"approved\"}", NULL), 403);
    assert_int_equal(move(pub, id, "{\"to\":\"fulfilled\",\"image\":1}", &doc), 409);
    assert_non_null(strstr(json_string_value(json_object_get(doc, "detail")), "approved"));
    json_decref(doc);
    assert_int_equal(move(pub, id, "{\"to\":\"nowhere\"}", NULL), 409);
    assert_int_equal(move(pub, id, "{\"to\":\"approved\",\"comment\":\"ok\"}", NULL), 200);
    assert_int_equal(move(pub, id, "{\"to\":\"building\"}", NULL), 200);
    assert_int_equal(move(pub, id, "{\"to\":\"fulfilled\"}", NULL), 400);
    char body[128];
    snprintf(body, sizeof body, "{\"to\":\"fulfilled\",\"image\":%lld}", img_m2);
    assert_int_equal(move(pub, id, body, &doc), 400);
    json_decref(doc);
    snprintf(body, sizeof body, "{\"to\":\"fulfilled\",\"image\":%lld}", img_m1);
    assert_int_equal(move(pub, id, body, &doc), 200);
    assert_string_equal(json_string_value(json_object_get(doc, "state")), "fulfilled");
    assert_int_equal(json_integer_value(json_object_get(doc, "image")), img_m1);
    assert_int_equal(json_array_size(json_object_get(doc, "history")), 4);
    json_decref(doc);
    assert_int_equal(move(alice, id, "{\"to\":\"withdrawn\"}", &doc), 409);
    assert_non_null(strstr(json_string_value(json_object_get(doc, "detail")), "none"));
    json_decref(doc);

    /* Reject needs a reason; withdraw is the requester's. */
    assert_int_equal(move(pub, other, "{\"to\":\"rejected\"}", NULL), 400);
    assert_int_equal(move(pub, other, "{\"to\":\"withdrawn\"}", NULL), 403);
    assert_int_equal(move(alice, other, "{\"to\":\"withdrawn\"}", NULL), 200);

    char path[64];
    snprintf(path, sizeof path, "/v1/requests/%lld/comments", id);
    expect(alice, "POST", path, "{\"body\":\"thanks!\"}", 201);
    expect(pub, "POST", path, "{\"body\":\"you are welcome\"}", 201);
    expect(vic, "POST", path, "{\"body\":\"me too\"}", 403);
    expect(alice, "POST", path, "{\"body\":\"\"}", 400);
    snprintf(path, sizeof path, "/v1/requests/%lld", id);
    struct imx_res res = call(vic, "GET", path, NULL);
    assert_int_equal(res.status, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "comments")), 2);
    assert_int_equal(json_array_size(json_object_get(res.json, "allowed_transitions")), 0);
    imx_t_res_free(&res);
    res = call(alice, "GET", "/v1/requests?team=team-a&state=withdrawn", NULL);
    assert_int_equal(res.status, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 1);
    imx_t_res_free(&res);
    res = call(pub, "GET", "/v1/requests?limit=2", NULL);
    assert_int_equal(res.status, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 2);
    assert_true(json_is_string(json_object_get(res.json, "next_cursor")));
    imx_t_res_free(&res);
}

static void a_published_image_matches_open_requests(void **state)
{
    (void)state;
    json_t *r = create_request(alice,
                               "{\"team\":\"team-a\",\"title\":\"B200 stack\",\"constraints\":"
                               "[{\"component\":\"cuda\",\"range\":\"13.*\"},{\"component\":"
                               "\"nvidia-driver\",\"range\":\"~580\"}],\"gpus\":[\"B200\"]}",
                               201);
    long long id = json_integer_value(json_object_get(r, "id"));
    assert_int_equal(json_array_size(json_object_get(r, "matches")), 0);
    json_decref(r);
    /* Published through the API: the publish use case matches open requests. */
    long long wrong = imx_t_publish(&srv, admin, "team-a", "b200-wrong", "1",
                                    "[{\"name\":\"nvidia-driver\",\"version\":\"570.133.20\"},"
                                    "{\"name\":\"cuda\",\"version\":\"12.8.1\"}]",
                                    "[\"B200\"]");
    long long right = imx_t_publish(&srv, admin, "team-a", "b200-right", "1",
                                    "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"},"
                                    "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]",
                                    "[\"B200\"]");
    assert_true(wrong > 0 && right > 0);
    char q[256];
    snprintf(q, sizeof q,
             "SELECT string_agg(x::text, ',') FROM imx_requests_matching_image(%lld) x", right);
    char *ids = imx_t_sql(db, q);
    char want[32];
    snprintf(want, sizeof want, "%lld", id);
    assert_string_equal(ids, want);
    free(ids);
    snprintf(q, sizeof q,
             "SELECT string_agg(image_id || ':' || via, ',') FROM request_matches"
             " WHERE request_id = %lld",
             id);
    ids = imx_t_sql(db, q);
    snprintf(want, sizeof want, "%lld:published", right);
    assert_string_equal(ids, want);
    free(ids);
    (void)wrong;
    char path[64];
    snprintf(path, sizeof path, "/v1/requests/%lld", id);
    struct imx_res res = call(alice, "GET", path, NULL);
    assert_int_equal(json_array_size(json_object_get(res.json, "matches")), 1);
    imx_t_res_free(&res);
}

/* An image whose stored compatibility report has errors (CUDA 13 on an R570 driver) meets every
 * constraint of the request and is still never a match: not at request creation, not at
 * publish, and not as the image that fulfils it. */
static void an_image_whose_report_has_errors_is_never_a_match(void **state)
{
    (void)state;
    const char *stack = "[{\"name\":\"nvidia-driver\",\"version\":\"570.172.08\"},"
                        "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]";
    long long before = imx_t_publish(&srv, admin, "team-a", "bad-stack", "1", stack, "[\"H100\"]");
    assert_true(before > 0);
    char path[64], q[256];
    snprintf(path, sizeof path, "/v1/images/%lld", before);
    struct imx_res res = call(alice, "GET", path, NULL);
    assert_int_equal(res.status, 200);
    json_t *compat = json_object_get(res.json, "compatibility");
    assert_true(json_is_false(json_object_get(compat, "ok")));
    assert_true(json_integer_value(json_object_get(compat, "errors")) >= 1);
    imx_t_res_free(&res);

    json_t *r = create_request(alice,
                               "{\"team\":\"team-a\",\"title\":\"CUDA 13 on R570\","
                               "\"constraints\":[{\"component\":\"cuda\",\"range\":\"13.*\"},"
                               "{\"component\":\"nvidia-driver\",\"range\":\"~570\"}],"
                               "\"gpus\":[\"H100\"]}",
                               201);
    long long id = json_integer_value(json_object_get(r, "id"));
    assert_int_equal(json_array_size(json_object_get(r, "matches")), 0);
    json_decref(r);

    long long after = imx_t_publish(&srv, admin, "team-a", "bad-stack", "2", stack, "[\"H100\"]");
    assert_true(after > 0);
    snprintf(q, sizeof q, "SELECT count(*) FROM request_matches WHERE request_id = %lld", id);
    char *n = imx_t_sql(db, q);
    assert_string_equal(n, "0");
    free(n);
    snprintf(path, sizeof path, "/v1/requests/%lld/matches", id);
    res = call(alice, "GET", path, NULL);
    assert_int_equal(res.status, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 0);
    imx_t_res_free(&res);

    /* Nor can it fulfil the request: 400 at /image. */
    assert_int_equal(move(pub, id, "{\"to\":\"approved\"}", NULL), 200);
    assert_int_equal(move(pub, id, "{\"to\":\"building\"}", NULL), 200);
    char body[128];
    json_t *doc = NULL;
    snprintf(body, sizeof body, "{\"to\":\"fulfilled\",\"image\":%lld}", after);
    assert_int_equal(move(pub, id, body, &doc), 400);
    char *text = json_dumps(doc, 0);
    json_decref(doc);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"/image\""));
    free(text);
}

/* Team B against team A's measurements and requests (vic: a viewer of team A). */
static void cross_team_matrix(void **state)
{
    (void)state;
    json_t *m = measure(img_m1, "g5.xlarge", "cross", 10, 1, 2, NULL);
    long long mid = json_integer_value(json_object_get(m, "id"));
    json_decref(m);
    json_t *r = create_request(alice, "{\"team\":\"team-a\",\"title\":\"cross\"}", 201);
    long long rid = json_integer_value(json_object_get(r, "id"));
    json_decref(r);
    char mpath[64], rpath[64], tpath[80], cpath[80];
    snprintf(mpath, sizeof mpath, "/v1/measurements/%lld", mid);
    snprintf(rpath, sizeof rpath, "/v1/requests/%lld", rid);
    snprintf(tpath, sizeof tpath, "/v1/requests/%lld/transitions", rid);
    snprintf(cpath, sizeof cpath, "/v1/requests/%lld/comments", rid);
    char mbody[512];
    snprintf(mbody, sizeof mbody,
             "{\"team\":\"team-a\",\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"model\":"
             "\"x\",\"precision\":\"fp16\",\"batch_size\":1,\"throughput_per_s\":1,"
             "\"measured_at\":\"2026-08-01T00:00:00Z\"}",
             img_m1);
    const struct {
        const char *method, *path, *body;
        long as_bob, as_vic;
    } cases[] = {
        { "GET", mpath, NULL, 404, 200 },
        { "GET", "/v1/measurements?team=team-a", NULL, 404, 200 },
        { "POST", "/v1/measurements", mbody, 404, 403 },
        { "GET", rpath, NULL, 404, 200 },
        { "POST", tpath, "{\"to\":\"withdrawn\"}", 404, 403 },
        { "POST", cpath, "{\"body\":\"hi\"}", 404, 403 },
        { "GET", "/v1/requests?team=team-a", NULL, 404, 200 },
        { "POST", "/v1/requests", "{\"team\":\"team-a\",\"title\":\"t\"}", 404, 403 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        expect(bob, cases[i].method, cases[i].path, cases[i].body, cases[i].as_bob);
        expect(vic, cases[i].method, cases[i].path, cases[i].body, cases[i].as_vic);
    }
    /* Lists without a team show nothing of team A to bob. */
    struct imx_res res = call(bob, "GET", "/v1/measurements", NULL);
    assert_int_equal(res.status, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 0);
    imx_t_res_free(&res);
    res = call(bob, "GET", "/v1/requests", NULL);
    assert_int_equal(json_array_size(json_object_get(res.json, "items")), 0);
    imx_t_res_free(&res);
    /* The request is unchanged. */
    res = call(alice, "GET", rpath, NULL);
    assert_string_equal(json_string_value(json_object_get(res.json, "state")), "open");
    assert_int_equal(json_array_size(json_object_get(res.json, "comments")), 0);
    imx_t_res_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_price_and_derived_costs),
        cmocka_unit_test(a_measurement_keeps_its_price_when_the_price_changes),
        cmocka_unit_test(duplicate_measured_at_key_is_rejected),
        cmocka_unit_test(sql_and_c_agree),
        cmocka_unit_test(impossible_values_are_400_naming_the_field),
        cmocka_unit_test(import_is_all_or_nothing),
        cmocka_unit_test(medians_with_odd_and_even_counts),
        cmocka_unit_test(ranking_honours_the_latency_target),
        cmocka_unit_test(instance_types_are_admin_managed),
        cmocka_unit_test(request_report_matches_and_transitions),
        cmocka_unit_test(a_published_image_matches_open_requests),
        cmocka_unit_test(an_image_whose_report_has_errors_is_never_a_match),
        cmocka_unit_test(cross_team_matrix),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
