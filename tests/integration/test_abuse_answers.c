/* The server under abuse, round two (issue 37), over loopback only and bounded in count and
 * time: every answer bounded whatever the body held (and the server's peak memory with it),
 * clients that pipeline requests and never read their answers, an Idempotency-Key reused on
 * another request, coalesced reads parked behind a locked table, and the places where the
 * standards are strict (If-Match, Accept's q=0, a CSV byte-order mark, purl types, RFC 3339
 * times, contradictory reference rows). */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* One request as token with Content-Type ctype (none when NULL), one more header line extra
 * (none when NULL) and body (none when NULL). */
static void req(const struct imx_srv *s, const char *token, const char *method, const char *path,
                const char *ctype, const char *extra, const char *body, struct imx_res *res)
{
    char auth[8192], ct[128];
    const char *h[4] = { NULL, NULL, NULL, NULL };
    size_t k = 0;
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h[k++] = auth;
    }
    if (ctype) {
        snprintf(ct, sizeof ct, "Content-Type: %s", ctype);
        h[k++] = ct;
    }
    if (extra)
        h[k++] = extra;
    assert_int_equal(imx_t_http(s, method, path, h, body, res), 0);
}

/* A TCP connection from src (a 127.x address) to the server; -1 on failure. rcvbuf > 0 sets a
 * small receive buffer first, so a client that does not read stops the server's sending soon. */
static int raw_connect(const struct imx_srv *s, const char *src, int rcvbuf)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in a = { .sin_family = AF_INET };
    inet_pton(AF_INET, src, &a.sin_addr);
    struct sockaddr_in d = { .sin_family = AF_INET, .sin_port = htons((uint16_t)s->port) };
    inet_pton(AF_INET, "127.0.0.1", &d.sin_addr);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        connect(fd, (struct sockaddr *)&d, sizeof d) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The status of the first answer on fd within wait_ms (0: none); *retry_after (when not NULL)
 * says whether its head has Retry-After. */
static int first_status_of(int fd, int wait_ms, bool *retry_after)
{
    char buf[4096];
    size_t len = 0;
    double until = now_ms() + wait_ms;
    while (now_ms() < until && len < sizeof buf - 1) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int left = (int)(until - now_ms());
        if (poll(&p, 1, left > 0 ? left : 0) <= 0)
            break;
        ssize_t n = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (n <= 0)
            break;
        len += (size_t)n;
        buf[len] = '\0';
        if (strstr(buf, "\r\n\r\n"))
            break;
    }
    buf[len] = '\0';
    if (retry_after)
        *retry_after = strstr(buf, "\r\nRetry-After: ") != NULL;
    return strncmp(buf, "HTTP/1.1 ", 9) == 0 ? atoi(buf + 9) : 0;
}

static int first_status(int fd, int wait_ms)
{
    return first_status_of(fd, wait_ms, NULL);
}

/* GET /livez on a new connection from src: the status (0: none within wait_ms), the time it
 * took in *ms. */
static int fresh_livez(const struct imx_srv *s, const char *src, int wait_ms, double *ms)
{
    double t0 = now_ms();
    int fd = raw_connect(s, src, 0), st = 0;
    static const char q[] = "GET /livez HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    if (fd >= 0 && send(fd, q, sizeof q - 1, MSG_NOSIGNAL) == (ssize_t)(sizeof q - 1))
        st = first_status(fd, wait_ms);
    if (fd >= 0)
        close(fd);
    *ms = now_ms() - t0;
    return st;
}

static long long sql_ll(const char *db, const char *q)
{
    char *v = imx_t_sql(db, q);
    assert_non_null(v);
    long long n = atoll(v);
    free(v);
    return n;
}

/* ---- 1. Every answer bounded ---- */

#define ANSWER_MAX (64 * 1024)

/* A body of n copies of piece between head and tail (new). */
static char *repeat(const char *head, const char *piece, size_t n, const char *tail)
{
    size_t hl = strlen(head), pl = strlen(piece), tl = strlen(tail);
    char *b = malloc(hl + pl * n + tl + 1);
    assert_non_null(b);
    memcpy(b, head, hl);
    for (size_t i = 0; i < n; i++)
        memcpy(b + hl + i * pl, piece, pl);
    memcpy(b + hl + n * pl, tail, tl + 1);
    return b;
}

static void worst(const struct imx_srv *s, const char *token, const char *what, const char *method,
                  const char *path, const char *ctype, const char *body, long *largest)
{
    struct imx_res res;
    req(s, token, method, path, ctype, NULL, body, &res);
    long errors = -1, count = -1;
    if (res.json) {
        errors = (long)json_array_size(json_object_get(res.json, "errors"));
        count = (long)json_integer_value(json_object_get(res.json, "error_count"));
    }
    printf("  %-34s %ld, %zu bytes, %ld errors listed of %ld\n", what, res.status, res.len, errors,
           count);
    if ((long)res.len > *largest)
        *largest = (long)res.len;
    /* Asserted after every case ran, so that a failing run still shows every figure. */
    if (!(res.status >= 400 && res.status < 500))
        *largest = -res.status;
    imx_t_res_free(&res);
}

static void every_answer_is_bounded(void **state)
{
    (void)state;
    struct imx_srv s;
    char db[1024], admin[4096], pub[4096], member[4096];
    static const char *const env[] = { "IMAXE_ACCESS_LOG=0", NULL };
    assert_int_equal(
        imx_t_server_up(&s, "abuse_answers_bounded", env, db, sizeof db, admin, sizeof admin), 0);
    assert_int_equal(imx_t_user(&s, admin, "ml", "p@ml.test", "publisher", pub, sizeof pub), 0);
    assert_int_equal(imx_t_user(&s, admin, "ml", "m@ml.test", "member", member, sizeof member), 0);
    long rss0 = imx_t_peak_rss_kib(s.pid), largest = 0;
    printf("worst case per body-taking endpoint (peak RSS before: %ld KiB):\n", rss0);

    /* 524,000 lines that are not JSON: each counts toward the 1,000-line cap. */
    char *lines = repeat("", "x\n", 524000, "");
    worst(&s, pub, "images:import, x\\n x 524000", "POST", "/v1/images:import",
          "application/x-ndjson", lines, &largest);
    free(lines);
    /* One manifest whose SBOM holds 60,000 purls that cannot be read. */
    char *sbom = repeat("{\"team\":\"ml\",\"sbom\":{\"bomFormat\":\"CycloneDX\",\"specVersion\":"
                        "\"1.6\",\"components\":[",
                        "{\"purl\":\"x\"},", 60000, "{\"purl\":\"x\"}]}}");
    worst(&s, pub, "images, 60000 bad purls", "POST", "/v1/images", "application/json", sbom,
          &largest);
    worst(&s, pub, "images:import, 60000 bad purls", "POST", "/v1/images:import",
          "application/x-ndjson", sbom, &largest);
    free(sbom);
    /* 1,000 measurement lines of 40 unknown fields each. */
    char line[1024] = "{";
    for (int i = 0; i < 40; i++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s\"f%02d\":1", i ? "," : "", i);
    strcat(line, "}\n");
    char *mlines = repeat("", line, 1000, "");
    worst(&s, member, "measurements:import, 40000 errors", "POST",
          "/v1/measurements:import?team=ml", "application/x-ndjson", mlines, &largest);
    free(mlines);
    char *csv = repeat("image,model\n", "x,y,z\n", 1000, "");
    worst(&s, member, "measurements:import CSV, bad rows", "POST",
          "/v1/measurements:import?team=ml", "text/csv", csv, &largest);
    free(csv);
    /* Every other body-taking endpoint: one object of 30,000 unknown members. */
    char *wide = repeat("{", "\"unknown_member_0000\":1,", 30000, "\"z\":1}");
    for (size_t i = 0, k = 0; wide[i]; i++)
        if (strncmp(wide + i, "_0000", 5) == 0) {
            char d[6];
            snprintf(d, sizeof d, "_%04zu", k++ % 10000);
            memcpy(wide + i, d, 5);
        }
    static const struct {
        const char *method, *path;
        bool admin;
    } wides[] = {
        { "POST", "/v1/auth/login", false },
        { "POST", "/v1/users", true },
        { "POST", "/v1/teams", true },
        { "PUT", "/v1/teams/ml/members/x@ml.test", true },
        { "POST", "/v1/tokens", false },
        { "POST", "/v1/advisories", true },
        { "POST", "/v1/pins", false },
        { "POST", "/v1/instance-types", true },
        { "PUT", "/v1/instance-types/aws/p5.48xlarge", true },
        { "POST", "/v1/instance-types/aws/p5.48xlarge/prices", true },
        { "POST", "/v1/measurements", false },
        { "POST", "/v1/requests", false },
        { "POST", "/v1/webhooks", false },
        { "POST", "/v1/images", false },
        { "PATCH", "/v1/images/1", false },
        { "POST", "/v1/compat/check", false },
        { "POST", "/v1/reference", true },
        { "POST", "/v1/reference/gpu", true },
        { "PUT", "/v1/reference/gpu", true },
    };
    for (size_t i = 0; i < sizeof wides / sizeof wides[0]; i++) {
        char what[96];
        snprintf(what, sizeof what, "%s %s, 30000 members", wides[i].method, wides[i].path);
        worst(&s, wides[i].admin ? admin : pub, what, wides[i].method, wides[i].path,
              "application/json", wide, &largest);
    }
    free(wide);
    long rss1 = imx_t_peak_rss_kib(s.pid);
    printf("largest answer %ld bytes; server peak RSS %ld -> %ld KiB (+%ld)\n", largest, rss0, rss1,
           rss1 - rss0);
    /* One request at a time: what a request may cost is bounded by the body cap, not the body's
     * number of errors. */
    assert_true(largest > 0 && largest <= ANSWER_MAX);
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer's quarantine and redzones keep freed memory: there the bound is looser
     * (+217 MB seen), still far below the 518 MB the unbounded answers took in a plain build. */
    assert_true(rss1 - rss0 < 400 * 1024);
#else
    assert_true(rss1 - rss0 < 160 * 1024);
#endif
    assert_int_equal(imx_t_server_stop(&s, SIGTERM, 15), 0);
}

/* ---- 2. Clients that never read ---- */

#define NR_LIMIT   64 /* IMAXE_CONNECTION_LIMIT */
#define NR_CLIENTS 80 /* more than the limit: before, every fresh client was refused */

/* 30 pipelined GET /openapi.json (about 2.8 MB of answers: more than the socket buffers hold) into
 * buf; returns the length. */
#define PIPELINED_ONE "GET /openapi.json HTTP/1.1\r\nHost: t\r\n\r\n"
#define PIPELINED_LEN (30 * (sizeof PIPELINED_ONE - 1))
static size_t pipelined(char buf[PIPELINED_LEN])
{
    for (size_t i = 0; i < 30; i++)
        memcpy(buf + i * (sizeof PIPELINED_ONE - 1), PIPELINED_ONE, sizeof PIPELINED_ONE - 1);
    return PIPELINED_LEN;
}

static void clients_that_never_read_do_not_lock_others_out(void **state)
{
    (void)state;
    struct imx_srv s;
    char db[1024], admin[4096];
    static const char *const env[] = {
        "IMAXE_CONNECTION_LIMIT=64", "IMAXE_PER_IP_CONNECTION_LIMIT=64",
        "IMAXE_ANSWER_STALL_S=2",    "IMAXE_PIPELINE_MAX=8",
        "IMAXE_ACCESS_LOG=0",        NULL
    };
    assert_int_equal(
        imx_t_server_up(&s, "abuse_answers_nonreaders", env, db, sizeof db, admin, sizeof admin),
        0);
    long rss0 = imx_t_peak_rss_kib(s.pid);
    char pipeline[PIPELINED_LEN];
    size_t plen = pipelined(pipeline);
    int fds[NR_CLIENTS], opened = 0;
    for (int i = 0; i < NR_CLIENTS; i++) {
        char src[32];
        snprintf(src, sizeof src, "127.0.0.%d", 2 + i % 5);
        fds[i] = raw_connect(&s, src, 4096);
        if (fds[i] >= 0) {
            opened++;
            (void)send(fds[i], pipeline, plen, MSG_NOSIGNAL | MSG_DONTWAIT);
        }
    }
    /* Past the guard's 500 ms of stall before a non-reader may be closed to make room. */
    imx_t_sleep_ms(1000);
    /* Fresh clients, while the non-readers hold their connections. */
    int answered = 0;
    double worst = 0;
    for (int i = 0; i < 10; i++) {
        double ms;
        /* 8 s each: a locked-out client waited about 32 s, and a loaded host (make test runs
         * its two ctest builds at once) took 2,024 ms for one that was let in. */
        int st = fresh_livez(&s, "127.0.0.9", 8000, &ms);
        answered += st == 200;
        if (ms > worst)
            worst = ms;
        imx_t_sleep_ms(100);
    }
    long long stalled =
        imx_t_metric(&s, "imaxe_http_connections_closed_total{reason=\"stalled_answer\"}");
    long long evicted =
        imx_t_metric(&s, "imaxe_http_connections_closed_total{reason=\"evicted_sender\"}");
    long long piped = imx_t_metric(&s, "imaxe_http_connections_closed_total{reason=\"pipeline\"}");
    long rss1 = imx_t_peak_rss_kib(s.pid);
    printf("%d non-reading clients (30 pipelined GET /openapi.json each, limit %d): %d of 10 fresh "
           "/livez answered 200, slowest %.0f ms; closed: %lld stalled, %lld evicted, %lld at the "
           "pipeline cap; peak RSS %ld -> %ld KiB\n",
           opened, NR_LIMIT, answered, worst, stalled, evicted, piped, rss0, rss1);
    for (int i = 0; i < NR_CLIENTS; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    /* Every fresh client answered (before: none for about 32 s); how fast is printed, not
     * asserted: the machine may be shared. */
    assert_int_equal(answered, 10);
    assert_int_equal(imx_t_server_stop(&s, SIGTERM, 15), 0);
}

/* One client asks for more than the socket buffers hold and never reads: past
 * IMAXE_ANSWER_STALL_S the server cuts the connection (it would otherwise hold it, and the
 * answer's memory, until the client went away). */
static void an_answer_nobody_takes_is_cut(void **state)
{
    (void)state;
    struct imx_srv s;
    char db[1024], admin[4096];
    static const char *const env[] = { "IMAXE_ANSWER_STALL_S=1", "IMAXE_PIPELINE_MAX=1000",
                                       "IMAXE_ACCESS_LOG=0", NULL };
    assert_int_equal(
        imx_t_server_up(&s, "abuse_answers_stall", env, db, sizeof db, admin, sizeof admin), 0);
    char pipeline[PIPELINED_LEN];
    size_t plen = pipelined(pipeline);
    int fd = raw_connect(&s, "127.0.0.2", 4096);
    assert_true(fd >= 0);
    assert_int_equal(send(fd, pipeline, plen, MSG_NOSIGNAL), (ssize_t)plen);
    const char *series = "imaxe_http_connections_closed_total{reason=\"stalled_answer\"}";
    long long before = imx_t_metric(&s, series), after = before;
    double t0 = now_ms();
    /* The guard looks about every second: the cut comes within a few seconds of the limit. */
    while (after <= before && now_ms() - t0 < 15000) {
        imx_t_sleep_ms(250);
        after = imx_t_metric(&s, series);
    }
    printf("an answer nobody reads (IMAXE_ANSWER_STALL_S=1): cut after %.1f s (stalled_answer "
           "%lld -> %lld)\n",
           (now_ms() - t0) / 1000.0, before, after);
    assert_true(after > before && after >= 1);
    /* The connection is gone: reading what was sent ends in end-of-file or a reset. */
    char buf[65536];
    ssize_t got;
    long long total = 0;
    while ((got = recv(fd, buf, sizeof buf, 0)) > 0)
        total += got;
    printf("  the client then read %lld bytes before the end\n", total);
    close(fd);
    assert_int_equal(imx_t_server_stop(&s, SIGTERM, 15), 0);
}

/* ---- 3. An Idempotency-Key reused on another request ---- */

static void a_key_on_another_query_is_422(void **state)
{
    (void)state;
    struct imx_srv s;
    char db[1024], admin[4096], pub[4096], member[4096];
    static const char *const env[] = { "IMAXE_ACCESS_LOG=0", NULL };
    assert_int_equal(
        imx_t_server_up(&s, "abuse_answers_idem", env, db, sizeof db, admin, sizeof admin), 0);
    assert_int_equal(imx_t_user(&s, admin, "alpha", "p@a.test", "publisher", pub, sizeof pub), 0);
    assert_int_equal(imx_t_user(&s, admin, "alpha", "m@a.test", "member", member, sizeof member),
                     0);
    long long image =
        imx_t_publish(&s, pub, "alpha", "idem-q", "1",
                      "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"}]", NULL);
    assert_true(image > 0);
    char body[512];
    snprintf(body, sizeof body,
             "{\"image\":%lld,\"instance_type\":\"g6.xlarge\",\"gpu_count\":1,\"model\":\"m\","
             "\"precision\":\"fp16\",\"batch_size\":8,\"throughput_per_s\":100,\"pricing\":"
             "\"on_demand\",\"measured_at\":\"2026-11-20T10:00:00Z\"}\n",
             image);
    struct imx_res res;
    req(&s, member, "POST", "/v1/measurements:import?team=alpha", "application/x-ndjson",
        "Idempotency-Key: same-key", body, &res);
    assert_int_equal(res.status, 201);
    imx_t_res_free(&res);
    req(&s, member, "POST", "/v1/measurements:import?team=beta", "application/x-ndjson",
        "Idempotency-Key: same-key", body, &res);
    char replayed[16] = "-";
    imx_t_header(&res, "Idempotent-Replayed", replayed, sizeof replayed);
    printf("the same key and body on ?team=beta: %ld (Idempotent-Replayed: %s)\n", res.status,
           replayed);
    imx_t_assert_problem(&res, 422);
    imx_t_res_free(&res);
    /* The retry of the first is still its replay. */
    req(&s, member, "POST", "/v1/measurements:import?team=alpha", "application/x-ndjson",
        "Idempotency-Key: same-key", body, &res);
    assert_int_equal(res.status, 201);
    assert_non_null(imx_t_header(&res, "Idempotent-Replayed", replayed, sizeof replayed));
    imx_t_res_free(&res);
    assert_int_equal(sql_ll(db, "SELECT count(*) FROM measurements"), 1);
    assert_int_equal(imx_t_server_stop(&s, SIGTERM, 15), 0);
}

/* ---- 4. Deadlines for parked reads ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define PARKED  1000
#define STMT_MS 1000

static void parked_reads_answer_503_within_the_statement_timeout(void **state)
{
    (void)state;
    struct imx_srv s;
    char db[1024], admin[4096], pub[4096];
    static const char *const env[] = { "IMAXE_STATEMENT_TIMEOUT_MS=1000",
                                       "IMAXE_READING_CONNECTION_LIMIT=4000",
                                       "IMAXE_PER_IP_READING_LIMIT=4000",
                                       "IMAXE_PER_IP_CONNECTION_LIMIT=4000",
                                       "IMAXE_CONNECTION_LIMIT=4000",
                                       "IMAXE_RATE_LIMIT_PER_MIN=0",
                                       "IMAXE_ACCESS_LOG=0",
                                       NULL };
    assert_int_equal(
        imx_t_server_up(&s, "abuse_answers_parked", env, db, sizeof db, admin, sizeof admin), 0);
    assert_int_equal(imx_t_user(&s, admin, "ml", "p@ml.test", "publisher", pub, sizeof pub), 0);
    long long image =
        imx_t_publish(&s, pub, "ml", "parked", "1",
                      "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"}]", NULL);
    assert_true(image > 0);
    char path[64], get[8192];
    snprintf(path, sizeof path, "/v1/images/%lld", image);
    struct imx_res res;
    req(&s, admin, "GET", path, NULL, NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    int glen = snprintf(get, sizeof get,
                        "GET %s HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer %s\r\n"
                        "Connection: close\r\n\r\n",
                        path, admin);

    long long reads0 = imx_t_metric(&s, "imaxe_image_doc_reads_docs_total");
    /* A second session holds the table the read uses. */
    PGconn *lock = PQconnectdb(db);
    assert_int_equal(PQstatus(lock), CONNECTION_OK);
    PQclear(PQexec(lock, "BEGIN"));
    PGresult *lr = PQexec(lock, "LOCK TABLE image_docs IN ACCESS EXCLUSIVE MODE");
    assert_int_equal(PQresultStatus(lr), PGRES_COMMAND_OK);
    PQclear(lr);

    static int fds[PARKED];
    static double sent[PARKED], took[PARKED];
    static int status[PARKED];
    for (int i = 0; i < PARKED; i++) {
        char src[32];
        snprintf(src, sizeof src, "127.0.1.%d", 1 + i % 8);
        fds[i] = raw_connect(&s, src, 0);
        assert_true(fds[i] >= 0);
        sent[i] = now_ms();
        assert_int_equal(send(fds[i], get, (size_t)glen, MSG_NOSIGNAL), glen);
        status[i] = 0;
        took[i] = -1;
    }
    int left = PARKED;
    double until = now_ms() + 30000;
    static struct pollfd p[PARKED];
    while (left > 0 && now_ms() < until) {
        for (int i = 0; i < PARKED; i++)
            p[i] = (struct pollfd){ .fd = status[i] ? -1 : fds[i], .events = POLLIN };
        if (poll(p, PARKED, 200) <= 0)
            continue;
        for (int i = 0; i < PARKED; i++)
            if (p[i].revents) {
                bool ra = false;
                status[i] = first_status_of(fds[i], 100, &ra);
                if (status[i] == 503 && !ra)
                    status[i] = -503; /* a 503 must say when to come back */
                if (!status[i])
                    status[i] = -1;
                took[i] = now_ms() - sent[i];
                left--;
            }
    }
    /* Documents the batch statements asked for while the table was locked: past their deadline
     * waiters are answered without a read, not sent in a statement of their own. */
    long long asked = imx_t_metric(&s, "imaxe_image_doc_reads_docs_total") - reads0;
    PQclear(PQexec(lock, "ROLLBACK"));
    PQfinish(lock);
    int n503 = 0, n200 = 0, other = 0, other_status = 0;
    double worst = 0, sum = 0;
    for (int i = 0; i < PARKED; i++) {
        n503 += status[i] == 503;
        n200 += status[i] == 200;
        if (status[i] != 503 && status[i] != 200) {
            other++;
            other_status = status[i];
        }
        if (took[i] > worst)
            worst = took[i];
        sum += took[i] > 0 ? took[i] : 30000;
        close(fds[i]);
    }
    static double sorted[PARKED];
    memcpy(sorted, took, sizeof sorted);
    qsort(sorted, PARKED, sizeof sorted[0], cmp_double);
    printf("%d reads of a locked image_docs (statement timeout %d ms): %d answered 503, %d 200, "
           "%d other (e.g. %d), %d unanswered; min %.0f, median %.0f, mean %.0f, slowest %.0f "
           "ms; %lld of them sent in a statement\n",
           PARKED, STMT_MS, n503, n200, other, other_status, left, sorted[0], sorted[PARKED / 2],
           sum / PARKED, worst, asked);
    assert_int_equal(left, 0);
    assert_int_equal(n503, PARKED);
    /* One statement timeout and the sweeper's tick, with room for a loaded machine (two cores
     * shared by many builds: reading 1,000 requests alone can take a second). Without deadlines
     * the queue drains a round of statements each timeout: 1,000 reads took up to 10 timeouts,
     * and every one of them was sent in a statement. */
    assert_true(sorted[PARKED / 2] < 3.5 * STMT_MS);
    assert_true(worst < 6 * STMT_MS);
    assert_true(asked < PARKED / 2);
    /* Once the lock is gone, the read is answered again. */
    req(&s, admin, "GET", path, NULL, NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_server_stop(&s, SIGTERM, 15), 0);
}

/* ---- 5. Strict where the standards are ---- */

static struct imx_srv st_srv;
static char st_db[1024], st_admin[4096], st_pub[4096], st_member[4096];
static long long st_image;

static void measurement_body(char *out, size_t len, long long image, const char *at)
{
    snprintf(out, len,
             "{\"team\":\"ml\",\"image\":%lld,\"instance_type\":\"g6.xlarge\",\"gpu_count\":1,"
             "\"model\":\"resnet50\",\"precision\":\"fp16\",\"batch_size\":8,"
             "\"throughput_per_s\":100,\"pricing\":\"on_demand\",\"measured_at\":\"%s\"}",
             image, at);
}

static void if_match_is_read_as_rfc_9110_says(void **state)
{
    (void)state;
    struct imx_res res;
    char body[256], path[64], etag[128], h[192];
    snprintf(body, sizeof body, "{\"team\":\"ml\",\"name\":\"prod\",\"image\":%lld}", st_image);
    req(&st_srv, st_member, "POST", "/v1/pins", "application/json", NULL, body, &res);
    assert_int_equal(res.status, 201);
    long long pin = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/pins/%lld", pin);
    snprintf(body, sizeof body, "{\"image\":%lld}", st_image);
    static const char *const malformed[] = { "If-Match: *garbage", "If-Match: \"r1\",*",
                                             "If-Match: r1" };
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        req(&st_srv, st_member, "PUT", path, "application/json", malformed[i], body, &res);
        printf("PUT pin with %-22s -> %ld\n", malformed[i], res.status);
        imx_t_assert_problem(&res, 400);
        imx_t_res_free(&res);
    }
    /* A weak tag never matches a write (strong comparison). */
    snprintf(path, sizeof path, "/v1/images/%lld", st_image);
    req(&st_srv, st_pub, "GET", path, NULL, NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    assert_non_null(imx_t_header(&res, "ETag", etag, sizeof etag));
    imx_t_res_free(&res);
    snprintf(h, sizeof h, "If-Match: W/%s", etag);
    req(&st_srv, st_pub, "PATCH", path, "application/json", h, "{\"status\":\"deprecated\"}", &res);
    printf("PATCH image with %s -> %ld\n", h, res.status);
    imx_t_assert_problem(&res, 412);
    imx_t_res_free(&res);
    snprintf(h, sizeof h, "If-Match: *garbage");
    req(&st_srv, st_pub, "PATCH", path, "application/json", h, "{\"status\":\"deprecated\"}", &res);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
    assert_int_equal(sql_ll(st_db, "SELECT count(*) FROM images WHERE status <> 'active'"), 0);
}

/* An advisory's writes read If-Match with the same parser: a list names the current revision if
 * any of its tags is it, "*" names whatever is current, a weak tag never matches. */
static void advisory_if_match_reads_lists(void **state)
{
    (void)state;
    struct imx_res res;
    char h[192];
    const char *admin = st_admin;
    static const char adv[] =
        "{\"id\":\"IMX-IFMATCH-1\",\"title\":\"x\",\"severity\":\"high\",\"published\":"
        "\"2026-01-01\",\"affected\":[{\"component\":\"nvidia-driver\",\"range\":\"<1\"}]}";
    req(&st_srv, admin, "POST", "/v1/advisories", "application/json", NULL, adv, &res);
    assert_int_equal(res.status, 201);
    imx_t_res_free(&res);
    const char *path = "/v1/advisories/IMX-IFMATCH-1";
    static const struct {
        const char *if_match;
        long status;
    } cases[] = {
        { "If-Match: \"r9\", \"r1\"", 200 }, /* r1 is current: now r2 */
        { "If-Match: \"r1\"", 412 },         /* no longer current */
        { "If-Match: W/\"r2\"", 412 },       /* weak: never for a write */
        { "If-Match: \"r1\", \"r2\"", 200 }, /* now r3 */
        { "If-Match: *", 200 },              /* now r4 */
        { "If-Match: r4", 400 },             /* malformed: a tag is quoted */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        req(&st_srv, admin, "PATCH", path, "application/json", cases[i].if_match,
            "{\"title\":\"revised\"}", &res);
        printf("PATCH advisory with %-26s -> %ld (%s)\n", cases[i].if_match, res.status,
               imx_t_header(&res, "ETag", h, sizeof h) ? h : "no ETag");
        assert_int_equal(res.status, cases[i].status);
        imx_t_res_free(&res);
    }
    assert_int_equal(sql_ll(st_db, "SELECT revision FROM advisories WHERE id = 'IMX-IFMATCH-1'"),
                     4);
}

static void accept_q0_refuses_a_type(void **state)
{
    (void)state;
    struct imx_res res;
    char ct[128] = "";
    req(&st_srv, st_member, "GET", "/v1/measurements?team=ml", NULL,
        "Accept: text/csv;q=0, application/json", NULL, &res);
    imx_t_header(&res, "Content-Type", ct, sizeof ct);
    printf("Accept: text/csv;q=0, application/json -> %ld %s\n", res.status, ct);
    assert_int_equal(res.status, 200);
    assert_non_null(strstr(ct, "application/json"));
    imx_t_res_free(&res);
    req(&st_srv, st_member, "GET", "/v1/measurements?team=ml", NULL,
        "Accept: application/json;q=0.5, text/csv", NULL, &res);
    imx_t_header(&res, "Content-Type", ct, sizeof ct);
    assert_int_equal(res.status, 200);
    assert_non_null(strstr(ct, "text/csv"));
    imx_t_res_free(&res);
}

static void measurements_csv_with_a_bom_and_rfc3339_times(void **state)
{
    (void)state;
    struct imx_res res;
    char csv[1024], body[512];
    snprintf(csv, sizeof csv,
             "\xEF\xBB\xBFimage,instance_type,gpu_count,model,precision,batch_size,"
             "throughput_per_s,pricing,measured_at\r\n"
             "%lld,g6.xlarge,1,resnet50,fp16,8,1000,on_demand,2026-11-20T10:00:00Z\r\n",
             st_image);
    req(&st_srv, st_member, "POST", "/v1/measurements:import?team=ml", "text/csv", NULL, csv, &res);
    printf("CSV with a UTF-8 BOM -> %ld\n", res.status);
    if (res.status != 201)
        printf("  %s\n", res.body);
    assert_int_equal(res.status, 201);
    imx_t_res_free(&res);
    long long before = sql_ll(st_db, "SELECT count(*) FROM measurements");
    static const char *const bad[] = { "yesterday", "now", "2026-11-20", "2026-02-30T00:00:00Z" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        measurement_body(body, sizeof body, st_image, bad[i]);
        req(&st_srv, st_member, "POST", "/v1/measurements", "application/json", NULL, body, &res);
        printf("measured_at \"%s\" -> %ld\n", bad[i], res.status);
        imx_t_assert_problem(&res, 400);
        imx_t_res_free(&res);
    }
    assert_int_equal(sql_ll(st_db, "SELECT count(*) FROM measurements"), before);
}

static void purl_types_are_case_insensitive(void **state)
{
    (void)state;
    struct imx_res res;
    static const char body[] =
        "{\"team\":\"ml\",\"family\":\"purl-case\",\"version\":\"1\",\"provider\":\"aws\","
        "\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":\"24.04\"},"
        "\"layer\":\"platform\",\"artifacts\":[{\"region\":\"us-east-1\",\"id\":\"ami-purl\"}],"
        "\"components\":[{\"name\":\"nvidia-driver\",\"version\":\"580.105.08\"}],"
        "\"sbom\":{\"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.6\",\"components\":["
        "{\"purl\":\"pkg:DEB/ubuntu/openssl@3.0.13-0ubuntu3.5?distro=ubuntu-24.04\"},"
        "{\"purl\":\"pkg:deb/ubuntu/bash@5.2.21-2ubuntu4?distro=ubuntu-24.04\"}]}}";
    req(&st_srv, st_pub, "POST", "/v1/images", "application/json", NULL, body, &res);
    assert_int_equal(res.status, 201);
    long long id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    char q[160];
    snprintf(q, sizeof q, "SELECT n_packages FROM image_packages WHERE image_id = %lld", id);
    long long n = sql_ll(st_db, q);
    printf("pkg:DEB/... and pkg:deb/... -> %lld packages kept\n", n);
    assert_int_equal(n, 2);
}

/* The reference gpu table as CSV, as exported, with extra appended (new). */
static char *gpu_csv(const char *extra)
{
    char *text = imx_t_sql(st_db, "SELECT imx_ref_export('ref_gpu')::text");
    assert_non_null(text);
    json_t *t = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(t);
    size_t cap = 1 << 20, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    json_t *cols = json_object_get(t, "columns"), *rows = json_object_get(t, "rows"), *v;
    size_t i, k;
    json_array_foreach(cols, i, v) len +=
        (size_t)snprintf(out + len, cap - len, "%s%s", i ? "," : "", json_string_value(v));
    len += (size_t)snprintf(out + len, cap - len, "\n");
    json_t *row;
    json_array_foreach(rows, k, row)
    {
        json_array_foreach(row, i, v)
        {
            if (i)
                out[len++] = ',';
            if (json_is_string(v)) {
                out[len++] = '"';
                for (const char *p = json_string_value(v); *p; p++) {
                    if (*p == '"')
                        out[len++] = '"';
                    out[len++] = *p;
                }
                out[len++] = '"';
            }
        }
        out[len++] = '\n';
    }
    snprintf(out + len, cap - len, "%s", extra);
    json_decref(t);
    return out;
}

static long ref_import(const char *csv, bool dry_run, char *body, size_t body_len)
{
    json_t *b = json_pack("{s:s, s:b, s:{s:s}}", "data_version", "contradictions", "dry_run",
                          dry_run, "tables", "gpu", csv);
    char *text = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    struct imx_res res;
    req(&st_srv, st_admin, "POST", "/v1/reference", "application/json", NULL, text, &res);
    free(text);
    long status = res.status;
    snprintf(body, body_len, "%s", res.body ? res.body : "");
    if (status >= 400)
        imx_t_assert_problem(&res, status);
    imx_t_res_free(&res);
    return status;
}

static void reference_imports_refuse_contradictions(void **state)
{
    (void)state;
    char body[8192];
    /* The table as it is imports (dry run): no contradiction in the shipped rows. */
    char *same = gpu_csv("");
    long st = ref_import(same, true, body, sizeof body);
    if (st != 200)
        printf("%s\n", body);
    assert_int_equal(st, 200);
    free(same);
    /* A second A100 row, Hopper and 9.0: the rows contradict each other. */
    char *base = gpu_csv("");
    char *line = strstr(base, "\n\"A100\",");
    assert_non_null(line);
    line++;
    size_t ll = strcspn(line, "\n");
    char extra[8192];
    assert_true(ll < sizeof extra - 2);
    memcpy(extra, line, ll);
    extra[ll] = '\n';
    extra[ll + 1] = '\0';
    char *arch = strstr(extra, "\"Ampere\",\"8.0\"");
    assert_non_null(arch);
    memcpy(arch, "\"Hopper\",\"9.0\"", 14);
    free(base);
    char *twice = gpu_csv(extra);
    for (int dry = 1; dry >= 0; dry--) {
        st = ref_import(twice, dry, body, sizeof body);
        printf("two A100 rows (dry_run %d) -> %ld %.300s\n", dry, st, body);
        assert_int_equal(st, 400);
        assert_non_null(strstr(body, "A100"));
    }
    free(twice);
    /* A100 moved to 9.0 while still Ampere: against the architecture table. */
    char *text = gpu_csv("");
    char *a100 = strstr(text, "\n\"A100\",");
    assert_non_null(a100);
    char *cc = strstr(a100, "\"Ampere\",\"8.0\"");
    assert_non_null(cc);
    memcpy(cc, "\"Ampere\",\"9.0\"", 14);
    st = ref_import(text, true, body, sizeof body);
    printf("A100 at 9.0 while Ampere (dry run) -> %ld %.300s\n", st, body);
    assert_int_equal(st, 400);
    assert_non_null(strstr(body, "A100"));
    free(text);
    char *still = imx_t_sql(st_db, "SELECT compute_capability || ' ' || architecture FROM ref_gpu"
                                   " WHERE gpu_model = 'A100'");
    assert_string_equal(still, "8.0 Ampere");
    free(still);
}

/* ---- 4. Work bounded: a budget for reading documents ---- */

/* A CSAF bulletin built for cost (new): products leaves in the tree, each listed by every one of
 * vulns vulnerabilities as known_affected and fixed, so its translation does products x vulns
 * lookups (before the product ids were indexed, known_affected x fixed x products). */
static char *csaf_worst(int products, int vulns, const char *id)
{
    json_t *archs = json_array(), *known = json_array(), *fixed = json_array();
    for (int i = 0; i < products; i++) {
        char arch[48], a[16], f[16], av[64], fv[24];
        snprintf(arch, sizeof arch, "Linux(R580) p%d", i);
        snprintf(a, sizeof a, "a%d", i);
        snprintf(f, sizeof f, "f%d", i);
        snprintf(av, sizeof av, "All driver versions prior to 580.%d.01", i + 1);
        snprintf(fv, sizeof fv, "580.%d.01", i + 1);
        json_array_append_new(
            archs, json_pack("{s:s, s:s, s:[{s:s, s:s, s:{s:s, s:s}}, {s:s, s:s, s:{s:s, s:s}}]}",
                             "category", "architecture", "name", arch, "branches", "category",
                             "product_version", "name", "Tesla", "product", "name", av,
                             "product_id", a, "category", "product_version", "name", "Tesla",
                             "product", "name", fv, "product_id", f));
        json_array_append_new(known, json_string(a));
        json_array_append_new(fixed, json_string(f));
    }
    json_t *vs = json_array();
    for (int v = 0; v < vulns; v++) {
        char cve[32];
        snprintf(cve, sizeof cve, "CVE-2026-%d", 1000 + v);
        json_array_append_new(vs, json_pack("{s:s, s:{s:O, s:O}}", "cve", cve, "product_status",
                                            "known_affected", known, "fixed", fixed));
    }
    json_decref(known);
    json_decref(fixed);
    json_t *d = json_pack("{s:{s:s, s:s, s:{s:s}, s:{s:s}, s:{s:s, s:s, s:s}},"
                          " s:{s:[{s:s, s:s, s:o}]}, s:o}",
                          "document", "csaf_version", "2.0", "title", "Worst", "publisher", "name",
                          "NVIDIA", "aggregate_severity", "text", "HIGH", "tracking", "id", id,
                          "version", "1.0.0", "initial_release_date", "2026-02-03T00:00:00Z",
                          "product_tree", "branches", "category", "vendor", "name", "NVIDIA",
                          "branches", archs, "vulnerabilities", vs);
    assert_non_null(d);
    char *text = json_dumps(d, JSON_COMPACT);
    json_decref(d);
    assert_non_null(text);
    return text;
}

/* The problem's text names the budget. */
static void assert_over_budget(const struct imx_res *res, const char *what)
{
    printf("  %-40s %ld %.160s\n", what, res->status, res->body ? res->body : "");
    assert_int_equal(res->status, 422);
    assert_non_null(strstr(res->body, "IMAXE_PARSE_BUDGET_MS"));
}

/* Sends body (freed) and asserts the budget's 422. */
static void send_over_budget(const struct imx_srv *s, const char *token, const char *path,
                             const char *ctype, char *body, const char *what)
{
    struct imx_res res;
    req(s, token, "POST", path, ctype, NULL, body, &res);
    assert_over_budget(&res, what);
    imx_t_res_free(&res);
    free(body);
}

static void documents_over_the_work_budget_are_422(void **state)
{
    (void)state;
    struct imx_srv s;
    char db[1024], admin[4096], pub[4096], member[4096];
    /* 1 ms of CPU: a document of a few dozen entries is read within it (the clock is read every
     * 64 steps), a large one is not. */
    static const char *const env[] = { "IMAXE_ACCESS_LOG=0", "IMAXE_PARSE_BUDGET_MS=1", NULL };
    assert_int_equal(
        imx_t_server_up(&s, "abuse_answers_budget", env, db, sizeof db, admin, sizeof admin), 0);
    assert_int_equal(imx_t_user(&s, admin, "ml", "p@ml.test", "publisher", pub, sizeof pub), 0);
    assert_int_equal(imx_t_user(&s, admin, "ml", "m@ml.test", "member", member, sizeof member), 0);
    struct imx_res res;
    printf("documents over a 1 ms budget:\n");

    char *small = csaf_worst(4, 2, "9201");
    req(&s, admin, "POST", "/v1/advisories", "application/json", NULL, small, &res);
    printf("  %-40s %ld\n", "CSAF, 4 products x 2 CVEs", res.status);
    assert_int_equal(res.status, 201);
    imx_t_res_free(&res);
    free(small);
    char *big = csaf_worst(2000, 4, "9202");
    send_over_budget(&s, admin, "/v1/advisories", "application/json", big,
                     "CSAF, 2000 products x 4 CVEs");

    char *osv = repeat("{\"schema_version\":\"1.6.0\",\"id\":\"GHSA-budg-et00-0001\",\"modified\":"
                       "\"2026-01-01T00:00:00Z\",\"summary\":\"x\",\"affected\":[",
                       "{\"package\":{\"ecosystem\":\"PyPI\",\"name\":\"torch\"},\"ranges\":[{"
                       "\"type\":\"ECOSYSTEM\",\"events\":[{\"introduced\":\"0\"},{\"fixed\":"
                       "\"2.6.0\"}]}]},",
                       5000,
                       "{\"package\":{\"ecosystem\":\"PyPI\",\"name\":\"torch\"},\"ranges\":[{"
                       "\"type\":\"ECOSYSTEM\",\"events\":[{\"introduced\":\"0\"}]}]}]}");
    send_over_budget(&s, admin, "/v1/advisories", "application/json", osv,
                     "OSV, 5000 affected entries");

    char *sbom = repeat("{\"team\":\"ml\",\"family\":\"budget\",\"version\":\"1\",\"sbom\":{"
                        "\"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.6\",\"components\":[",
                        "{\"purl\":\"pkg:deb/ubuntu/libc6@2.39-0ubuntu8\"},", 20000,
                        "{\"purl\":\"pkg:deb/ubuntu/zlib1g@1.3\"}]}}");
    send_over_budget(&s, pub, "/v1/images", "application/json", sbom, "image, SBOM of 20000 purls");

    char *lines = repeat("", "{\"team\":\"ml\"}\n", 1000, "");
    send_over_budget(&s, pub, "/v1/images:import", "application/x-ndjson", lines,
                     "images:import, 1000 lines");

    /* Rows of 600 bytes: enough reading that no machine does 1,000 of them within 1 ms. */
    char row[640];
    snprintf(row, sizeof row, "1,\"resnet50-%0580d\",12.5\n", 0);
    char *csv = repeat("image,model,p50_ms\n", row, 1000, "");
    send_over_budget(&s, member, "/v1/measurements:import?team=ml", "text/csv", csv,
                     "measurements:import CSV, 1000 rows");

    /* A refused document changed nothing. */
    assert_int_equal(sql_ll(db, "SELECT count(*) FROM advisories"), 1);
    assert_int_equal(sql_ll(db, "SELECT count(*) FROM images"), 0);
    assert_int_equal(sql_ll(db, "SELECT count(*) FROM measurements"), 0);
    assert_int_equal(imx_t_server_stop(&s, SIGTERM, 15), 0);
}

/* Sixteen costly bulletins at once while another client lists advisories: before the product ids
 * were indexed, sixteen 53 KB documents held every worker for 100 s and the list waited 88.8 s. */
struct csaf_shot {
    const struct imx_srv *s;
    const char *token, *body;
    long status;
    double ms;
};

static void *csaf_post(void *arg)
{
    struct csaf_shot *c = arg;
    char auth[8192];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", c->token);
    const char *h[] = { auth, "Content-Type: application/json", NULL };
    struct imx_res res = { 0 };
    double t0 = now_ms();
    c->status = imx_t_http(c->s, "POST", "/v1/advisories", h, c->body, &res) == 0 ? res.status : 0;
    c->ms = now_ms() - t0;
    imx_t_res_free(&res);
    return NULL;
}

static void costly_bulletins_hold_no_worker(void **state)
{
    (void)state;
    enum { SHOTS = 16 };
    struct imx_srv s;
    char db[1024], admin[4096];
    static const char *const env[] = { "IMAXE_ACCESS_LOG=0", NULL };
    assert_int_equal(
        imx_t_server_up(&s, "abuse_answers_costly", env, db, sizeof db, admin, sizeof admin), 0);
    char *bodies[SHOTS];
    struct csaf_shot shots[SHOTS];
    pthread_t th[SHOTS];
    size_t bytes = 0;
    for (int i = 0; i < SHOTS; i++) {
        char id[16];
        snprintf(id, sizeof id, "93%02d", i);
        bodies[i] = csaf_worst(240, 8, id);
        bytes = strlen(bodies[i]);
        shots[i] = (struct csaf_shot){ .s = &s, .token = admin, .body = bodies[i] };
    }
    /* One alone first: the figure for a single document. */
    double t0 = now_ms();
    csaf_post(&shots[0]);
    printf("one %zu-byte bulletin (240 products x 8 CVEs): %ld in %.0f ms\n", bytes,
           shots[0].status, now_ms() - t0);
    assert_int_equal(shots[0].status, 201);
    for (int i = 1; i < SHOTS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, csaf_post, &shots[i]), 0);
    imx_t_sleep_ms(50);
    struct imx_res res;
    t0 = now_ms();
    req(&s, admin, "GET", "/v1/advisories?limit=5", NULL, NULL, NULL, &res);
    double list_ms = now_ms() - t0;
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    double slowest = 0;
    for (int i = 1; i < SHOTS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(shots[i].status, 201);
        if (shots[i].ms > slowest)
            slowest = shots[i].ms;
        free(bodies[i]);
    }
    free(bodies[0]);
    printf("%d more at once: the slowest answered in %.0f ms; GET /v1/advisories meanwhile: "
           "%.0f ms\n",
           SHOTS - 1, slowest, list_ms);
    /* Not a speed target (those are in bench/): a held worker pool answers in minutes (88.8 s
     * before), a linear translation in well under this bound even on a loaded machine. */
    assert_true(list_ms < 30000);
    assert_int_equal(sql_ll(db, "SELECT count(*) FROM advisories"), SHOTS);
    assert_int_equal(imx_t_server_stop(&s, SIGTERM, 15), 0);
}

static int strict_setup(void **state)
{
    (void)state;
    static const char *const env[] = { "IMAXE_ACCESS_LOG=0", NULL };
    if (imx_t_server_up(&st_srv, "abuse_answers_strict", env, st_db, sizeof st_db, st_admin,
                        sizeof st_admin) != 0 ||
        imx_t_user(&st_srv, st_admin, "ml", "p@ml.test", "publisher", st_pub, sizeof st_pub) != 0 ||
        imx_t_user(&st_srv, st_admin, "ml", "m@ml.test", "member", st_member, sizeof st_member) !=
            0)
        return -1;
    st_image = imx_t_publish(&st_srv, st_pub, "ml", "strict", "1",
                             "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"}]", NULL);
    return st_image > 0 ? 0 : -1;
}

static int strict_teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&st_srv, SIGTERM, 15) == 0 ? 0 : -1;
}

int main(void)
{
    /* IMX_TEST_FILTER runs only the tests whose names match (cmocka's pattern). */
    if (getenv("IMX_TEST_FILTER"))
        cmocka_set_test_filter(getenv("IMX_TEST_FILTER"));
    const struct CMUnitTest alone[] = {
        cmocka_unit_test(every_answer_is_bounded),
        cmocka_unit_test(clients_that_never_read_do_not_lock_others_out),
        cmocka_unit_test(an_answer_nobody_takes_is_cut),
        cmocka_unit_test(a_key_on_another_query_is_422),
        cmocka_unit_test(parked_reads_answer_503_within_the_statement_timeout),
        cmocka_unit_test(documents_over_the_work_budget_are_422),
        cmocka_unit_test(costly_bulletins_hold_no_worker),
    };
    const struct CMUnitTest strict[] = {
        cmocka_unit_test(if_match_is_read_as_rfc_9110_says),
        cmocka_unit_test(advisory_if_match_reads_lists),
        cmocka_unit_test(accept_q0_refuses_a_type),
        cmocka_unit_test(measurements_csv_with_a_bom_and_rfc3339_times),
        cmocka_unit_test(purl_types_are_case_insensitive),
        cmocka_unit_test(reference_imports_refuse_contradictions),
    };
    int failed = cmocka_run_group_tests_name("strict", strict, strict_setup, strict_teardown);
    failed += cmocka_run_group_tests_name("alone", alone, NULL, NULL);
    return failed;
}
