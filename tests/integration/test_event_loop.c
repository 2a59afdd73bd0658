/* The HTTP core's threads (server/http/server.c): libmicrohttpd's event threads read and answer
 * every connection, handlers that may block run on a fixed set of workers, and the point reads
 * answer on the event threads while their statement is in flight. So: open connections cost no
 * thread; requests stuck on the workers (a table locked in PostgreSQL) hold up neither /livez nor
 * a point read, even when they hold every pooled connection (the point reads' statements have
 * connections of their own), and wait their turn without being lost; and SIGTERM with requests
 * still on the workers answers them all before the server exits. */
#include "harness.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WORKERS          "2"
#define IDLE_CONNECTIONS 300

static struct imx_srv srv;
static char db[1024], admin[4096];
static long long image_id;
/* The connection holding the lock on teams (lock_teams): a test that fails while it is held
 * leaves it to the next lock_teams or to teardown, which would otherwise wait for it forever. */
static PGconn *locked;

static void unlock(PGconn *c);

static int setup(void **state)
{
    (void)state;
    static const char *const env[] = {
        "IMAXE_HTTP_THREADS=2", "IMAXE_HTTP_WORKERS=" WORKERS, "IMAXE_RATE_LIMIT_PER_MIN=0",
        /* as many pooled connections as workers: the stuck requests hold every one of them */
        "IMAXE_DB_POOL_SIZE=" WORKERS,
        /* the stuck requests must outlast the checks made meanwhile */
        "IMAXE_STATEMENT_TIMEOUT_MS=30000", "IMAXE_DB_ACQUIRE_TIMEOUT_MS=30000",
        /* the idle keep-alive connections below are readers to the guard: let them be */
        "IMAXE_PER_IP_READING_LIMIT=1000", "IMAXE_READING_CONNECTION_LIMIT=1000",
        "IMAXE_PER_IP_CONNECTION_LIMIT=1000", "IMAXE_HEADER_TIMEOUT_S=120",
        "IMAXE_SHUTDOWN_TIMEOUT_S=30", NULL
    };
    if (imx_t_server_up(&srv, "event_loop", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    struct imx_res res;
    if (imx_t_http_as(&srv, admin, "POST", "/v1/teams", "{\"slug\":\"ml\",\"name\":\"ML\"}",
                      &res) != 0)
        return -1;
    imx_t_res_free(&res);
    image_id = imx_t_publish(&srv, admin, "ml", "loop", "1.0",
                             "[{\"name\":\"nvidia-driver\",\"version\":\"580.82.07\"}]", NULL);
    return image_id > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    if (locked)
        unlock(locked);
    if (srv.pid > 0 && imx_t_server_wait(&srv, 0) == -1)
        imx_t_server_stop(&srv, SIGTERM, 15);
    return 0;
}

static int threads_of(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static int connect_to(const struct imx_srv *s)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)s->port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Sends one request on fd (a keep-alive connection), with token when not NULL. */
static int send_request(int fd, const char *method, const char *path, const char *token)
{
    char req[8192];
    int n = snprintf(
        req, sizeof req, "%s %s HTTP/1.1\r\nHost: t\r\n%s%s%sContent-Length: 0\r\n\r\n", method,
        path, token ? "Authorization: Bearer " : "", token ? token : "", token ? "\r\n" : "");
    return write(fd, req, (size_t)n) == n ? 0 : -1;
}

/* Reads one response's head and its Content-Length body within timeout_ms; its status, or -1. */
static long read_response(int fd, int timeout_ms, char *buf, size_t len)
{
    size_t got = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        buf[got] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (end) {
            const char *cl = strstr(buf, "Content-Length: ");
            size_t body = cl && cl < end ? strtoul(cl + 16, NULL, 10) : 0;
            if (got >= (size_t)(end + 4 - buf) + body)
                return strtol(buf + 9, NULL, 10);
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left =
            timeout_ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (left <= 0 || got + 1 >= len || poll(&p, 1, (int)left) != 1)
            return -1;
        ssize_t n = read(fd, buf + got, len - 1 - got);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
}

/* Thread per connection would add one thread an open connection; here there are none to add. */
static void open_connections_cost_no_thread(void **state)
{
    (void)state;
    int before = threads_of(srv.pid);
    static int fds[IDLE_CONNECTIONS];
    char buf[4096];
    for (int i = 0; i < IDLE_CONNECTIONS; i++) {
        fds[i] = connect_to(&srv);
        assert_true(fds[i] >= 0);
        assert_int_equal(send_request(fds[i], "GET", "/livez", NULL), 0);
    }
    for (int i = 0; i < IDLE_CONNECTIONS; i++)
        assert_int_equal(read_response(fds[i], 10000, buf, sizeof buf), 200);
    int during = threads_of(srv.pid);
    printf("threads: %d before, %d with %d connections open (each answered once)\n", before, during,
           IDLE_CONNECTIONS);
    assert_true(during <= before + 2); /* a lazily started helper, at most */
    for (int i = 0; i < IDLE_CONNECTIONS; i++)
        close(fds[i]);
}

/* Holds an ACCESS EXCLUSIVE lock on teams, so that every statement that reads teams waits. */
static PGconn *lock_teams(void)
{
    if (locked)
        unlock(locked);
    PGconn *c = locked = PQconnectdb(db);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    PGresult *r = PQexec(c, "BEGIN; LOCK TABLE teams IN ACCESS EXCLUSIVE MODE");
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    return c;
}

static void unlock(PGconn *c)
{
    PGresult *r = PQexec(c, "ROLLBACK");
    PQclear(r);
    PQfinish(c);
    locked = NULL;
}

static long elapsed_ms(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

#define STUCK 5 /* more than the workers: some wait in the queue */

/* Opens STUCK connections whose GET /v1/teams waits on the lock, on the workers or for one. */
static void send_stuck(int fds[STUCK])
{
    for (int i = 0; i < STUCK; i++) {
        fds[i] = connect_to(&srv);
        assert_true(fds[i] >= 0);
        assert_int_equal(send_request(fds[i], "GET", "/v1/teams", admin), 0);
    }
    /* until every worker is held and the rest queue */
    for (int i = 0; i < 100 && imx_t_metric(&srv, "imaxe_http_worker_jobs") < STUCK; i++)
        imx_t_sleep_ms(50);
    assert_int_equal(imx_t_metric(&srv, "imaxe_http_worker_jobs"), STUCK);
}

static void stuck_workers_hold_up_neither_livez_nor_point_reads(void **state)
{
    (void)state;
    char path[64], buf[16384];
    snprintf(path, sizeof path, "/v1/images/%lld", image_id);
    /* the admin's principal is remembered from here on */
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, admin, "GET", path, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    long long on_event = imx_t_metric(&srv, "imaxe_http_answered_total{on=\"event_thread\"}");

    PGconn *lock = lock_teams();
    int fds[STUCK];
    send_stuck(fds);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int fd = connect_to(&srv);
    assert_true(fd >= 0);
    assert_int_equal(send_request(fd, "GET", "/livez", NULL), 0);
    assert_int_equal(read_response(fd, 5000, buf, sizeof buf), 200);
    assert_int_equal(send_request(fd, "GET", path, admin), 0);
    assert_int_equal(read_response(fd, 5000, buf, sizeof buf), 200);
    assert_non_null(strstr(buf, "\"family\""));
    long took = elapsed_ms(&t0);
    close(fd);
    printf("/livez and a get answered in %ld ms with %d requests stuck on %s workers holding "
           "every pooled connection\n",
           took, STUCK, WORKERS);
    /* both on the event thread (the get's statement does not read teams) */
    assert_true(imx_t_metric(&srv, "imaxe_http_answered_total{on=\"event_thread\"}") >=
                on_event + 2);
    /* the stuck requests hold every pooled connection, while the coalesced reads' connections
     * are back, none kept by the statements just read */
    assert_int_equal(imx_t_metric(&srv, "imaxe_db_pool_connections{state=\"idle\"}"), 0);
    assert_int_equal(imx_t_metric(&srv, "imaxe_db_batch_connections{state=\"idle\"}"), 4);
    for (int i = 0; i < STUCK; i++) /* nothing answered while the lock is held */
        assert_int_equal(read_response(fds[i], 50, buf, sizeof buf), -1);

    unlock(lock);
    for (int i = 0; i < STUCK; i++) {
        assert_int_equal(read_response(fds[i], 20000, buf, sizeof buf), 200);
        close(fds[i]);
    }
    assert_int_equal(imx_t_metric(&srv, "imaxe_http_worker_jobs"), 0);
}

/* SIGTERM with requests on the workers and in their queue: each is answered (Connection: close),
 * then the server stops cleanly. */
static void sigterm_answers_what_the_workers_hold(void **state)
{
    (void)state;
    char buf[16384];
    PGconn *lock = lock_teams();
    int fds[STUCK];
    send_stuck(fds);
    kill(srv.pid, SIGTERM);
    imx_t_sleep_ms(500);
    assert_int_equal(imx_t_server_wait(&srv, 0), -1); /* still draining */
    unlock(lock);
    for (int i = 0; i < STUCK; i++) {
        assert_int_equal(read_response(fds[i], 20000, buf, sizeof buf), 200);
        assert_non_null(strstr(buf, "Connection: close"));
        close(fds[i]);
    }
    assert_int_equal(imx_t_server_wait(&srv, 20), 0);
    assert_true(imx_t_log_contains(&srv, "\"msg\":\"stopped\""));
    assert_false(imx_t_log_contains(&srv, "unfinished"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(open_connections_cost_no_thread),
        cmocka_unit_test(stuck_workers_hold_up_neither_livez_nor_point_reads),
        cmocka_unit_test(sigterm_answers_what_the_workers_hold),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
