/* Database faults and start-up: readiness while PostgreSQL is down and after it returns, two
 * servers migrating one empty database at once, a broken migration, the SIGTERM drain, and a
 * statement past its timeout. */
#include "harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *src_dir(void)
{
    const char *s = getenv("IMX_TEST_SOURCE_DIR");
    return s ? s : ".";
}

/* This test stops PostgreSQL, so it gets a cluster of its own. */
static void readiness_follows_the_database(void **state)
{
    (void)state;
    char dir[700], conninfo[1024], real[700];
    snprintf(dir, sizeof dir, "%s/pg", imx_t_tmpdir("readiness"));
    assert_int_equal(
        imx_t_system("'%s/tools/pg.sh' start '%s' 55433 fast >/dev/null", src_dir(), dir), 0);
    assert_non_null(realpath(dir, real));
    snprintf(conninfo, sizeof conninfo, "host=%s port=55433 user=%s dbname=imaxe", real,
             getuid() == 0 ? "postgres" : getenv("USER"));

    struct imx_srv srv;
    const char *env[] = { "IMAXE_DB_ACQUIRE_TIMEOUT_MS=2000", NULL };
    assert_int_equal(imx_t_server_start(&srv, conninfo, env), 0);
    struct imx_res res;
    assert_int_equal(imx_t_http(&srv, "GET", "/readyz", NULL, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);

    assert_int_equal(imx_t_system("'%s/tools/pg.sh' stop '%s'", src_dir(), dir), 0);
    assert_int_equal(imx_t_http(&srv, "GET", "/readyz", NULL, NULL, &res), 0);
    imx_t_assert_problem(&res, 503);
    assert_null(strstr(res.body, "SELECT"));
    imx_t_res_free(&res);
    /* Still alive, and still failing cleanly on a second try. */
    assert_int_equal(imx_t_http(&srv, "GET", "/livez", NULL, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http(&srv, "GET", "/readyz", NULL, NULL, &res), 0);
    imx_t_assert_problem(&res, 503);
    imx_t_res_free(&res);

    assert_int_equal(
        imx_t_system("'%s/tools/pg.sh' start '%s' 55433 fast >/dev/null", src_dir(), dir), 0);
    long status = 0;
    for (int i = 0; i < 100 && status != 200; i++) {
        imx_t_sleep_ms(100);
        assert_int_equal(imx_t_http(&srv, "GET", "/readyz", NULL, NULL, &res), 0);
        status = res.status;
        imx_t_res_free(&res);
    }
    assert_int_equal(status, 200);
    assert_int_equal(imx_t_server_stop(&srv, SIGTERM, 15), 0);
    imx_t_system("'%s/tools/pg.sh' stop '%s'", src_dir(), dir);
}

static void two_servers_migrate_one_database_once(void **state)
{
    (void)state;
    const char *db = imx_t_db_create("migrate_race");
    char conninfo[1024];
    snprintf(conninfo, sizeof conninfo, "%s", db);
    struct imx_srv a, b;
    assert_int_equal(imx_t_server_spawn(&a, conninfo, NULL), 0);
    assert_int_equal(imx_t_server_spawn(&b, conninfo, NULL), 0);
    /* Both come up (the loser of the lock waits, then finds nothing to do): within 90 s, as any
     * test server (a fresh migration took 50 s at load 23). */
    for (int i = 0; i < 1800; i++) {
        if (imx_t_log_contains(&a, "listening on") && imx_t_log_contains(&b, "listening on"))
            break;
        imx_t_sleep_ms(50);
    }
    assert_true(imx_t_log_contains(&a, "listening on"));
    assert_true(imx_t_log_contains(&b, "listening on"));
    char *dups = imx_t_sql(conninfo, "SELECT count(*) - count(DISTINCT version) FROM "
                                     "schema_migrations");
    char *n = imx_t_sql(conninfo, "SELECT count(*) FROM schema_migrations");
    assert_string_equal(dups, "0");
    assert_true(atoi(n) >= 1);
    free(dups);
    free(n);
    /* Each migration was applied by exactly one of them. */
    int applied_a = imx_t_log_contains(&a, "applied migration 0001_foundation.sql");
    int applied_b = imx_t_log_contains(&b, "applied migration 0001_foundation.sql");
    assert_int_equal(applied_a + applied_b, 1);
    assert_int_equal(imx_t_server_stop(&a, SIGTERM, 15), 0);
    assert_int_equal(imx_t_server_stop(&b, SIGTERM, 15), 0);
}

static void broken_migration_refuses_to_start_and_keeps_nothing(void **state)
{
    (void)state;
    const char *db = imx_t_db_create("broken_migration");
    char conninfo[1024], mdir[800], env_dir[900];
    snprintf(conninfo, sizeof conninfo, "%s", db);
    snprintf(mdir, sizeof mdir, "%s/migrations", imx_t_tmpdir("broken_migration"));
    assert_int_equal(imx_t_system("cp -r '%s/migrations' '%s' && printf '%%s\\n' "
                                  "'CREATE TABLE half_done (x int);' 'SELECT 1/0;' "
                                  "> '%s/9999_broken.sql'",
                                  src_dir(), mdir, mdir),
                     0);
    snprintf(env_dir, sizeof env_dir, "IMAXE_MIGRATIONS_DIR=%s", mdir);
    const char *env[] = { env_dir, NULL };
    struct imx_srv srv;
    assert_int_equal(imx_t_server_spawn(&srv, conninfo, env), 0);
    int rc = imx_t_server_wait(&srv, 60);
    assert_int_not_equal(rc, 0);
    assert_true(rc > 0);
    assert_true(imx_t_log_contains(&srv, "migration 9999_broken.sql failed"));
    assert_true(imx_t_log_contains(&srv, "division by zero"));
    char *t = imx_t_sql(conninfo, "SELECT count(*) FROM pg_tables WHERE tablename='half_done'");
    assert_string_equal(t, "0");
    free(t);
    char *v = imx_t_sql(conninfo, "SELECT count(*) FROM schema_migrations WHERE version=9999");
    assert_string_equal(v, "0");
    free(v);
    /* The good migrations before it were kept. */
    v = imx_t_sql(conninfo, "SELECT count(*) FROM schema_migrations WHERE version=1");
    assert_string_equal(v, "1");
    free(v);
}

static void migrate_subcommand_applies_and_exits(void **state)
{
    (void)state;
    const char *db = imx_t_db_create("migrate_cmd");
    char conninfo[1024];
    snprintf(conninfo, sizeof conninfo, "%s", db);
    assert_int_equal(imx_t_system("IMAXE_DATABASE_URL='%s' '%s' migrate >/dev/null", conninfo,
                                  getenv("IMX_TEST_SERVER")),
                     0);
    char *n = imx_t_sql(conninfo, "SELECT count(*) > 0 FROM schema_migrations");
    assert_string_equal(n, "t");
    free(n);
}

/* Opens a TCP connection to the server and sends the head of a POST whose body is not sent. */
static int start_slow_request(const struct imx_srv *srv, size_t body_len)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)srv->port) };
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        return -1;
    char head[256];
    int n = snprintf(head, sizeof head,
                     "POST /livez HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n{",
                     body_len);
    if (write(fd, head, (size_t)n) != n)
        return -1;
    return fd;
}

static void sigterm_finishes_in_flight_requests_then_exits(void **state)
{
    (void)state;
    const char *db = imx_t_db_create("drain");
    char conninfo[1024];
    snprintf(conninfo, sizeof conninfo, "%s", db);
    struct imx_srv srv;
    const char *env[] = { "IMAXE_SHUTDOWN_TIMEOUT_S=20", NULL };
    assert_int_equal(imx_t_server_start(&srv, conninfo, env), 0);

    int fd = start_slow_request(&srv, 2);
    assert_true(fd >= 0);
    imx_t_sleep_ms(200);
    kill(srv.pid, SIGTERM);
    imx_t_sleep_ms(300);
    /* Still draining: the in-flight request keeps the process alive... */
    assert_int_equal(imx_t_server_wait(&srv, 0), -1);
    assert_true(imx_t_log_contains(&srv, "draining"));
    /* ...and new connections are no longer accepted. */
    struct imx_res res;
    assert_int_not_equal(imx_t_http(&srv, "GET", "/livez", NULL, NULL, &res), 0);

    /* Finish the body: the answer arrives, then the server exits 0. */
    assert_int_equal(write(fd, "}", 1), 1);
    char buf[2048];
    ssize_t got = read(fd, buf, sizeof buf - 1);
    assert_true(got > 12);
    buf[got] = '\0';
    assert_non_null(strstr(buf, "HTTP/1.1 405"));
    assert_non_null(strstr(buf, "Connection: close"));
    close(fd);
    assert_int_equal(imx_t_server_wait(&srv, 15), 0);
    assert_true(imx_t_log_contains(&srv, "\"msg\":\"stopped\""));
}

/* A statement that runs past IMAXE_STATEMENT_TIMEOUT_MS answers 503 query-timeout, not a lost
 * database: the operation hands its failure's detail back (db/status.h, why) to the generic
 * replies, on a read (a page of teams) and inside a write's transaction (a new team). */
static void a_timed_out_statement_answers_query_timeout(void **state)
{
    (void)state;
    struct imx_srv s;
    char db[1024], admin[4096];
    static const char *const env[] = { "IMAXE_STATEMENT_TIMEOUT_MS=1000", NULL };
    assert_int_equal(imx_t_server_up(&s, "faults_timeout", env, db, sizeof db, admin, sizeof admin),
                     0);
    /* A second session holds the table both statements need. */
    PGconn *lock = PQconnectdb(db);
    assert_int_equal(PQstatus(lock), CONNECTION_OK);
    PQclear(PQexec(lock, "BEGIN"));
    PGresult *lr = PQexec(lock, "LOCK TABLE teams IN ACCESS EXCLUSIVE MODE");
    assert_int_equal(PQresultStatus(lr), PGRES_COMMAND_OK);
    PQclear(lr);
    static const char *const calls[][3] = {
        { "GET", "/v1/teams", NULL },
        { "POST", "/v1/teams", "{\"slug\":\"late\",\"name\":\"Late\"}" },
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        struct imx_res res;
        assert_int_equal(imx_t_http_as(&s, admin, calls[i][0], calls[i][1], calls[i][2], &res), 0);
        printf("%s %s with teams locked -> %ld %s\n", calls[i][0], calls[i][1], res.status,
               res.body);
        imx_t_assert_problem(&res, 503);
        assert_non_null(strstr(res.body, "/problems/query-timeout"));
        imx_t_res_free(&res);
    }
    PQclear(PQexec(lock, "ROLLBACK"));
    PQfinish(lock);
    assert_int_equal(imx_t_server_stop(&s, SIGTERM, 15), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(readiness_follows_the_database),
        cmocka_unit_test(two_servers_migrate_one_database_once),
        cmocka_unit_test(broken_migration_refuses_to_start_and_keeps_nothing),
        cmocka_unit_test(migrate_subcommand_applies_and_exits),
        cmocka_unit_test(sigterm_finishes_in_flight_requests_then_exits),
        cmocka_unit_test(a_timed_out_statement_answers_query_timeout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
