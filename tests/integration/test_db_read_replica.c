/* The read pool: with IMAXE_DATABASE_READ_URL set, reads go to the replica and writes to the
 * primary; without it, reads use the primary. A second database of the test cluster plays the
 * replica, told apart from the primary by a marker table only it has. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "db/internal.h"
#include "db/pool.h"

IMX_DB_STMT(q_marker, 0, "SELECT to_regclass('replica_marker') IS NOT NULL");

/* Does c's database have the marker table? */
static bool on_replica(struct imx_db_conn *c)
{
    PGresult *res = imx_db_exec(c, &q_marker, NULL);
    assert_true(imx_db_ok(res));
    bool yes = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
    PQclear(res);
    return yes;
}

/* Two databases: the "primary" and the "replica" (with the marker). Static buffers. */
static void make_databases(const char *name, char *primary, char *replica, size_t len)
{
    char rname[64];
    snprintf(primary, len, "%s", imx_t_db_create(name));
    snprintf(rname, sizeof rname, "%s_replica", name);
    snprintf(replica, len, "%s", imx_t_db_create(rname));
    char *ok = imx_t_sql(replica, "CREATE TABLE replica_marker (x int)");
    assert_non_null(ok);
    free(ok);
}

static void reads_use_the_primary_without_a_read_pool(void **state)
{
    (void)state;
    char primary[1024], replica[1024];
    make_databases("nopool", primary, replica, sizeof primary);
    assert_int_equal(imx_db_pool_init(primary, 2, 2000, 5000), 0);
    assert_false(imx_db_has_read_pool());

    enum imx_db_status why;
    struct imx_db_conn *c = imx_db_acquire_read(&why);
    assert_non_null(c);
    assert_false(imx_db_is_read_conn(c));
    assert_false(on_replica(c));
    imx_db_release(c);
    imx_db_pool_shutdown();
}

static void reads_go_to_the_read_pool_and_writes_to_the_primary(void **state)
{
    (void)state;
    char primary[1024], replica[1024];
    make_databases("pools", primary, replica, sizeof primary);
    assert_int_equal(imx_db_pool_init(primary, 2, 2000, 5000), 0);
    assert_int_equal(imx_db_read_pool_init(replica, 2, 2000, 5000), 0);
    assert_true(imx_db_has_read_pool());

    enum imx_db_status why;
    struct imx_db_conn *r = imx_db_acquire_read(&why);
    struct imx_db_conn *w = imx_db_acquire(&why);
    assert_non_null(r);
    assert_non_null(w);
    assert_true(imx_db_is_read_conn(r));
    assert_false(imx_db_is_read_conn(w));
    assert_true(on_replica(r));
    assert_false(on_replica(w));
    imx_db_release(r);
    imx_db_release(w);

    struct imx_db_pool_stats s;
    assert_true(imx_db_read_pool_stats(&s));
    assert_int_equal(s.size, 2);
    assert_int_equal(s.busy, 0);

    /* Handlers: a read then a write in one request moves the request to the primary, and later
     * reads in that request stay there (it sees its own writes). */
    struct imx_req req;
    memset(&req, 0, sizeof req);
    struct imx_db_conn *c = imx_api_db_read(&req);
    assert_non_null(c);
    assert_true(on_replica(c));
    c = imx_api_db(&req);
    assert_non_null(c);
    assert_false(on_replica(c));
    assert_ptr_equal(imx_api_db_read(&req), c);
    imx_api_db_done(&req); /* the release hook: the connection back to its pool */
    assert_true(imx_db_read_pool_stats(&s));
    assert_int_equal(s.busy, 0);
    imx_db_pool_shutdown();
    assert_false(imx_db_has_read_pool());
}

static void readyz_checks_the_read_replica(void **state)
{
    (void)state;
    char primary[1024], replica[1024], read_env[1100];
    make_databases("readyz", primary, replica, sizeof primary);
    snprintf(read_env, sizeof read_env, "IMAXE_DATABASE_READ_URL=%s", replica);
    const char *env[] = { read_env, NULL };
    struct imx_srv srv;
    assert_int_equal(imx_t_server_start(&srv, primary, env), 0);
    assert_true(imx_t_log_contains(&srv, "read replica"));

    /* The server migrated the primary only: the replica lacks the schema, so not ready. */
    struct imx_res res;
    assert_int_equal(imx_t_http(&srv, "GET", "/readyz", NULL, NULL, &res), 0);
    imx_t_assert_problem(&res, 503);
    assert_non_null(strstr(json_string_value(json_object_get(res.json, "detail")), "read replica"));
    imx_t_res_free(&res);

    /* What streaming replication would do: the replica gets the same migrations. */
    assert_int_equal(imx_t_system("IMAXE_DATABASE_URL='%s' '%s' migrate >/dev/null 2>&1", replica,
                                  getenv("IMX_TEST_SERVER")),
                     0);
    assert_int_equal(imx_t_http(&srv, "GET", "/readyz", NULL, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "database")), "ok");
    assert_string_equal(json_string_value(json_object_get(res.json, "read_database")), "ok");
    imx_t_res_free(&res);
    assert_int_equal(imx_t_server_stop(&srv, SIGTERM, 15), 0);

    /* Without a read URL, /readyz says nothing of a replica. */
    assert_int_equal(imx_t_server_start(&srv, primary, NULL), 0);
    assert_int_equal(imx_t_http(&srv, "GET", "/readyz", NULL, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_null(json_object_get(res.json, "read_database"));
    imx_t_res_free(&res);
    assert_int_equal(imx_t_server_stop(&srv, SIGTERM, 15), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_use_the_primary_without_a_read_pool),
        cmocka_unit_test(reads_go_to_the_read_pool_and_writes_to_the_primary),
        cmocka_unit_test(readyz_checks_the_read_replica),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
