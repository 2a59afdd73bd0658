/* The cost and request SQL through libpq: imx_db_costs_for_images (the /v1/compare helper) per
 * model and scoped to the caller's teams, and the publish trigger when an image's rows arrive in
 * several statements of one transaction. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/costs.h"
#include "db/internal.h"
#include "db/migrate.h"
#include "db/pool.h"
#include "domain/cost.h"

static const char *db_url;
static char user_a[24], user_b[24];
static long long img1, img2;

static char *sql(const char *q)
{
    char *v = imx_t_sql(db_url, q);
    if (!v)
        fail_msg("no value from: %s", q);
    return v;
}

static void sql_id(const char *q, char *out, size_t len)
{
    char *v = sql(q);
    snprintf(out, len, "%s", v);
    free(v);
}

static long long image(const char *family)
{
    char q[512], id[24];
    snprintf(q, sizeof q,
             "INSERT INTO images (family, version, team_id, provider, architecture, os_name,"
             " os_version, layer) SELECT '%s', '1', min(id), 'aws', 'x86_64', 'ubuntu', '24.04',"
             " 'platform' FROM teams RETURNING id",
             family);
    sql_id(q, id, sizeof id);
    return atoll(id);
}

/* Records a measurement of team a through imx_measurement_record; asserts it was accepted. */
static void record(long long image_id, const char *model, const char *type, double tput,
                   double boot, double price)
{
    char q[1024];
    snprintf(q, sizeof q,
             "SELECT imx_measurement_record((SELECT id FROM teams WHERE slug = 'a'), %s,"
             " '{\"image\":%lld,\"instance_type\":\"%s\",\"model\":\"%s\",\"precision\":\"fp16\","
             "\"batch_size\":1,\"throughput_per_s\":%.17g,\"boot_seconds\":%.17g,"
             "\"price_per_hour\":%.17g,\"measured_at\":\"2026-08-01T00:00:00Z\"}')::text",
             user_a, image_id, type, model, tput, boot, price);
    char *v = sql(q);
    if (!strstr(v, "\"measurement\""))
        fail_msg("record: %s", v);
    free(v);
}

static int setup(void **state)
{
    (void)state;
    db_url = imx_t_db_create("costs_sql");
    char err[512], dir[1024];
    PGconn *pg = PQconnectdb(db_url);
    if (PQstatus(pg) != CONNECTION_OK)
        return -1;
    snprintf(dir, sizeof dir, "%s/migrations", getenv("IMX_TEST_SOURCE_DIR"));
    int latest;
    int rc = imx_migrate(pg, dir, &latest, err, sizeof err);
    PQfinish(pg);
    if (rc != 0) {
        fprintf(stderr, "migrate: %s\n", err);
        return -1;
    }
    free(imx_t_sql(db_url, "INSERT INTO teams (slug, name) VALUES ('a', 'A'), ('b', 'B')"
                           " RETURNING id"));
    sql_id("INSERT INTO users (email, password_hash) VALUES ('a@x.test', 'x') RETURNING id", user_a,
           sizeof user_a);
    sql_id("INSERT INTO users (email, password_hash) VALUES ('b@x.test', 'x') RETURNING id", user_b,
           sizeof user_b);
    char q[256];
    snprintf(q, sizeof q,
             "INSERT INTO memberships (team_id, user_id, role) SELECT t.id, u.id, 'member'"
             " FROM teams t, users u WHERE (t.slug, u.email) IN (('a', 'a@x.test'),"
             " ('b', 'b@x.test')) RETURNING 1");
    free(imx_t_sql(db_url, q));
    img1 = image("cmp-one");
    img2 = image("cmp-two");
    return imx_db_pool_init(db_url, 2, 2000, 10000);
}

static int teardown(void **state)
{
    (void)state;
    imx_db_pool_shutdown();
    return 0;
}

static void costs_for_images_best_per_model_and_scoped(void **state)
{
    (void)state;
    /* img1 resnet50: g5 median of 100 and 300 at 1.0 $/h; g6 one at 200 and 0.8 $/h. */
    record(img1, "resnet50", "g5.xlarge", 100, 60, 1.0);
    record(img1, "resnet50", "g5.xlarge", 300, 80, 1.0);
    record(img1, "resnet50", "g6.xlarge", 200, 100, 0.8);
    record(img1, "bert", "g5.xlarge", 50, 70, 1.0);
    enum imx_db_status why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    assert_non_null(c);
    long long ids[] = { img1, img2 };
    struct imx_cost_scope sa = { .user_id = user_a }, sb = { .user_id = user_b };
    char *text = NULL;
    assert_int_equal(imx_db_costs_for_images(c, ids, 2, &sa, &text), IMX_DBS_OK);
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    char key[24];
    snprintf(key, sizeof key, "%lld", img1);
    json_t *one = json_object_get(j, key);
    json_t *best = json_object_get(one, "best_cost_per_1k");
    double g5 = (imx_cost_per_1k(1.0, 100) + imx_cost_per_1k(1.0, 300)) / 2;
    double g6 = imx_cost_per_1k(0.8, 200);
    double want = g5 < g6 ? g5 : g6;
    double got = json_number_value(json_object_get(best, "resnet50"));
    if (got != want)
        fail_msg("best resnet50 %.17g, want %.17g", got, want);
    assert_true(json_number_value(json_object_get(best, "bert")) == imx_cost_per_1k(1.0, 50));
    /* Boot seconds 60, 80, 100, 70: median of an even count is the mean of 70 and 80. */
    assert_true(json_number_value(json_object_get(one, "boot_seconds_median")) == 75);
    snprintf(key, sizeof key, "%lld", img2);
    json_t *two = json_object_get(j, key);
    assert_non_null(two);
    assert_int_equal(json_object_size(json_object_get(two, "best_cost_per_1k")), 0);
    assert_true(json_is_null(json_object_get(two, "boot_seconds_median")));
    json_decref(j);

    /* Team b's member sees no costs for the same images. */
    assert_int_equal(imx_db_costs_for_images(c, ids, 2, &sb, &text), IMX_DBS_OK);
    j = json_loads(text, 0, NULL);
    free(text);
    snprintf(key, sizeof key, "%lld", img1);
    assert_int_equal(json_object_size(json_object_get(json_object_get(j, key), "best_cost_per_1k")),
                     0);
    json_decref(j);
    assert_int_equal(imx_db_costs_for_images(c, ids, 0, &sa, &text), IMX_DBS_INVALID);
    assert_null(text);
    imx_db_release(c);
}

/* The publish use case finds open requests by what they name (imx_request_match_images): a
 * constraint interval holding a component version, GPUs alone, or nothing at all; and only those
 * whose every condition the image meets. */
static void requests_are_found_by_what_they_name(void **state)
{
    (void)state;
    char q[2048], by_cuda[24], by_gpu[24], bare[24], other[24], img[24];
    snprintf(q, sizeof q,
             "WITH r AS (INSERT INTO image_requests (team_id, catalog_team_id, title, gpus)"
             " SELECT id, id, 'cuda 13', '{H200}' FROM teams WHERE slug = 'a' RETURNING id),"
             " k AS (INSERT INTO request_constraints SELECT r.id, 1, 'cuda', '13.*',"
             " '{13,0,0,0,0,0}', true, '{14,0,0,0,0,0}', false FROM r RETURNING 1)"
             " SELECT id FROM r");
    sql_id(q, by_cuda, sizeof by_cuda);
    sql_id("INSERT INTO image_requests (team_id, catalog_team_id, title, gpus) SELECT id, id,"
           " 'any H200', '{H200}' FROM teams WHERE slug = 'a' RETURNING id",
           by_gpu, sizeof by_gpu);
    sql_id("INSERT INTO image_requests (team_id, catalog_team_id, title) SELECT id, id,"
           " 'anything' FROM teams WHERE slug = 'a' RETURNING id",
           bare, sizeof bare);
    snprintf(q, sizeof q,
             "WITH r AS (INSERT INTO image_requests (team_id, catalog_team_id, title)"
             " SELECT id, id, 'cuda 12' FROM teams WHERE slug = 'a' RETURNING id),"
             " k AS (INSERT INTO request_constraints SELECT r.id, 1, 'cuda', '12.*',"
             " '{12,0,0,0,0,0}', true, '{13,0,0,0,0,0}', false FROM r RETURNING 1)"
             " SELECT id FROM r");
    sql_id(q, other, sizeof other);
    sql_id("WITH i AS (INSERT INTO images (family, version, team_id, provider, architecture,"
           " os_name, os_version, layer) SELECT 'match-me', '1', min(id), 'aws', 'x86_64',"
           " 'ubuntu', '24.04', 'platform' FROM teams RETURNING id),"
           " c AS (INSERT INTO image_components (image_id, name, version) SELECT id, 'cuda',"
           " '13.0.2' FROM i RETURNING 1),"
           " g AS (INSERT INTO image_gpus (image_id, gpu) SELECT id, 'H200' FROM i RETURNING 1)"
           " SELECT id FROM i",
           img, sizeof img);
    snprintf(q, sizeof q, "SELECT imx_request_match_images(ARRAY[%s::bigint])", img);
    char *n = sql(q);
    assert_string_equal(n, "3");
    free(n);
    snprintf(q, sizeof q,
             "SELECT string_agg(request_id::text, ',' ORDER BY request_id) FROM request_matches"
             " WHERE image_id = %s AND via = 'published'",
             img);
    char want[128];
    snprintf(want, sizeof want, "%s,%s,%s", by_cuda, by_gpu, bare);
    n = sql(q);
    assert_string_equal(n, want);
    free(n);
    (void)other;
    /* Matching again records nothing twice. */
    snprintf(q, sizeof q, "SELECT imx_request_match_images(ARRAY[%s::bigint])", img);
    n = sql(q);
    assert_string_equal(n, "0");
    free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(costs_for_images_best_per_model_and_scoped),
        cmocka_unit_test(requests_are_found_by_what_they_name),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
