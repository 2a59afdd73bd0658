/* Integration-test harness: throwaway databases, the real server as a child process, and an
 * HTTP client (libcurl) whose responses are easy to assert on. */
#include "harness.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PG_PORT "55432"

static const char *env_or(const char *name, const char *def)
{
    const char *v = getenv(name);
    return v && *v ? v : def;
}

void imx_t_sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

const char *imx_t_pg_conninfo(const char *dbname)
{
    static char buf[1024];
    char dir[700];
    const char *pgdir = env_or("IMX_TEST_PGDIR", "build/testpg");
    /* pg.sh may have put the cluster elsewhere and left a symlink. */
    if (!realpath(pgdir, dir))
        snprintf(dir, sizeof dir, "%s", pgdir);
    snprintf(buf, sizeof buf, "host=%s port=" PG_PORT " user=%s dbname=%s", dir,
             getuid() == 0 ? "postgres" : env_or("USER", "postgres"), dbname);
    return buf;
}

char *imx_t_sql(const char *conninfo, const char *sql)
{
    PGconn *pg = PQconnectdb(conninfo);
    char *out = NULL;
    if (PQstatus(pg) != CONNECTION_OK) {
        fprintf(stderr, "harness: connect %s: %s", conninfo, PQerrorMessage(pg));
        PQfinish(pg);
        return NULL;
    }
    PGresult *res = PQexec(pg, sql);
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_TUPLES_OK && PQntuples(res) > 0 && PQnfields(res) > 0)
        out = strdup(PQgetisnull(res, 0, 0) ? "" : PQgetvalue(res, 0, 0));
    else if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        out = strdup("");
    else
        fprintf(stderr, "harness: %s: %s", sql, PQerrorMessage(pg));
    PQclear(res);
    PQfinish(pg);
    return out;
}

/* Makes database t_NAME_PID, empty or as a copy of template (NULL: empty). */
static const char *db_create(const char *name, const char *template)
{
    static char conninfo[1024];
    char sql[256], db[80];
    snprintf(db, sizeof db, "t_%s_%d", name, (int)getpid());
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", db);
    free(imx_t_sql(imx_t_pg_conninfo("postgres"), sql));
    snprintf(sql, sizeof sql, "CREATE DATABASE %s%s%s", db, template ? " TEMPLATE " : "",
             template ? template : "");
    char *ok = imx_t_sql(imx_t_pg_conninfo("postgres"), sql);
    if (!ok)
        return NULL;
    free(ok);
    snprintf(conninfo, sizeof conninfo, "%s", imx_t_pg_conninfo(db));
    return conninfo;
}

const char *imx_t_db_create(const char *name)
{
    return db_create(name, NULL);
}

/* The database a first server start leaves (tests/integration/make_template.c, the ctest fixture
 * pg.template): copying it is a file copy, where migrating a fresh one and hashing its first
 * admin's password took 3-20 s a test, at nice 19 behind every other build on the machine. */
const char *imx_t_db_create_migrated(const char *name)
{
    char *have =
        imx_t_sql(imx_t_pg_conninfo("postgres"),
                  "SELECT count(*) FROM pg_database WHERE datname = '" IMX_T_TEMPLATE_DB "'");
    bool copy = have && strcmp(have, "1") == 0;
    free(have);
    return db_create(name, copy ? IMX_T_TEMPLATE_DB : NULL);
}

const char *imx_t_tmpdir(const char *name)
{
    static char dir[600];
    snprintf(dir, sizeof dir, "%s/tmp/%s_%d", env_or("IMX_TEST_BUILD_DIR", "build"), name,
             (int)getpid());
    imx_t_system("rm -rf '%s' && mkdir -p '%s'", dir, dir);
    return dir;
}

int imx_t_system(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

pid_t imx_t_fork(const char *log_path)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    int in = open("/dev/null", O_RDONLY);
    int out = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0)
        out = open("/dev/null", O_WRONLY);
    if (in >= 0) {
        dup2(in, 0);
        close(in);
    }
    if (out >= 0) {
        dup2(out, 1);
        dup2(out, 2);
        close(out);
    }
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    /* The test process may have died before prctl: then nobody is left to send it. */
    if (getppid() != parent)
        _exit(127);
    return 0;
}

int imx_t_server_spawn(struct imx_srv *s, const char *db, const char *const *env)
{
    static int seq;
    memset(s, 0, sizeof *s);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/testlogs", env_or("IMX_TEST_BUILD_DIR", "build"));
    mkdir(dir, 0755);
    snprintf(s->log_path, sizeof s->log_path, "%s/server_%d_%d.log", dir, (int)getpid(), seq++);
    pid_t pid = imx_t_fork(s->log_path);
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setenv("IMAXE_DATABASE_URL", db, 1);
        setenv("IMAXE_PORT", "0", 1);
        setenv("IMAXE_BIND", "127.0.0.1", 1);
        setenv("IMAXE_DB_WAIT_S", "10", 1);
        setenv("IMAXE_JWT_SECRET", IMX_T_JWT_SECRET, 1);
        setenv("IMAXE_ADMIN_EMAIL", IMX_T_ADMIN_EMAIL, 1);
        setenv("IMAXE_ADMIN_PASSWORD", IMX_T_ADMIN_PASSWORD, 1);
        for (size_t i = 0; env && env[i]; i++) {
            char kv[2048];
            snprintf(kv, sizeof kv, "%s", env[i]);
            char *eq = strchr(kv, '=');
            if (eq) {
                *eq = '\0';
                setenv(kv, eq + 1, 1);
            }
        }
        const char *bin = env_or("IMX_TEST_SERVER", "build/imaxe-server");
        execl(bin, bin, "serve", (char *)NULL);
        _exit(127);
    }
    s->pid = pid;
    return 0;
}

/* Finds "listening on http://127.0.0.1:PORT/" in the log. Only a whole line counts: the server's
 * one write(2) of the line can still be read half done when it crosses a page of the file, and
 * "...127.0.0.1:33" read that way once sent every probe of a test to port 33 for 30 s. */
unsigned imx_t_port_from_log(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[2048];
    unsigned port = 0;
    if (!f)
        return 0;
    while (!port && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "listening on http://");
        if (!p || !strchr(line, '\n'))
            continue;
        p = strchr(p + strlen("listening on http://"), ':');
        char *end = NULL;
        unsigned long v = p ? strtoul(p + 1, &end, 10) : 0;
        if (end && *end == '/' && v > 0 && v < 65536)
            port = (unsigned)v;
    }
    fclose(f);
    return port;
}

static size_t discard(char *p, size_t size, size_t n, void *cls)
{
    (void)p;
    (void)cls;
    return size * n;
}

/* One GET /livez on a new connection, given 5 s: true on 200; else what happened, into last. A
 * probe that takes that long is reported (two start-ups in make test, one in each of two
 * sessions, saw a probe go unanswered). */
static bool livez_probe(const struct imx_srv *s, char *last, size_t len)
{
    char url[160];
    snprintf(url, sizeof url, "%s/livez", s->base);
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 5L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(c);
    if (rc == CURLE_OPERATION_TIMEDOUT)
        fprintf(stderr, "harness: GET %s had no answer in 5 s\n", url);
    if (rc != CURLE_OK)
        snprintf(last, len, "%s", curl_easy_strerror(rc));
    else
        snprintf(last, len, "status %ld", status);
    return rc == CURLE_OK && status == 200;
}

int imx_t_server_start(struct imx_srv *s, const char *db, const char *const *env)
{
    char last[128] = "none sent";
    if (imx_t_server_spawn(s, db, env) != 0)
        return -1;
    /* Up to 90 s: migrating a fresh database and hashing the first admin's password took 30 s
     * on a machine shared by a dozen builds. */
    for (int i = 0; i < 1800; i++) {
        int st;
        if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
            fprintf(stderr, "harness: server exited at start-up; log %s\n", s->log_path);
            imx_t_system("tail -20 '%s' >&2", s->log_path);
            s->pid = 0;
            return -1;
        }
        if (!s->port)
            s->port = imx_t_port_from_log(s->log_path);
        if (s->port) {
            snprintf(s->base, sizeof s->base, "http://127.0.0.1:%u", s->port);
            if (livez_probe(s, last, sizeof last))
                return 0;
        }
        imx_t_sleep_ms(50);
    }
    fprintf(stderr, "harness: server did not come up (port %u; last probe: %s); log %s\n", s->port,
            last, s->log_path);
    imx_t_server_stop(s, SIGKILL, 5);
    return -1;
}

int imx_t_server_wait(struct imx_srv *s, int timeout_s)
{
    if (s->pid <= 0)
        return -1;
    for (int i = 0; i < timeout_s * 50; i++) {
        int st;
        pid_t p = waitpid(s->pid, &st, WNOHANG);
        if (p == s->pid) {
            s->pid = 0;
            if (WIFEXITED(st))
                return WEXITSTATUS(st);
            return 128 + WTERMSIG(st);
        }
        imx_t_sleep_ms(20);
    }
    return -1;
}

int imx_t_server_stop(struct imx_srv *s, int sig, int timeout_s)
{
    if (s->pid <= 0)
        return -1;
    kill(s->pid, sig);
    int rc = imx_t_server_wait(s, timeout_s);
    if (rc < 0 && s->pid > 0) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
        s->pid = 0;
    }
    return rc;
}

int imx_t_server_up(struct imx_srv *s, const char *name, const char *const *env, char *db,
                    size_t db_len, char *admin, size_t admin_len)
{
    const char *conninfo = imx_t_db_create_migrated(name);
    if (!conninfo) {
        fprintf(stderr, "harness: cannot create database %s\n", name);
        return -1;
    }
    if (db)
        snprintf(db, db_len, "%s", conninfo);
    if (imx_t_server_start(s, conninfo, env) != 0)
        return -1;
    int st = imx_t_login(s, IMX_T_ADMIN_EMAIL, IMX_T_ADMIN_PASSWORD, admin, admin_len);
    if (st != 200) {
        fprintf(stderr, "harness: admin login: %d\n", st);
        return -1;
    }
    return 0;
}

bool imx_t_log_contains(const struct imx_srv *s, const char *text)
{
    FILE *f = fopen(s->log_path, "r");
    char line[8192];
    bool found = false;
    if (!f)
        return false;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, text) != NULL;
    fclose(f);
    return found;
}

struct growbuf {
    char *p;
    size_t len;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *cls)
{
    struct growbuf *b = cls;
    size_t n = size * nmemb;
    char *np = realloc(b->p, b->len + n + 1);
    if (!np)
        return 0;
    memcpy(np + b->len, ptr, n);
    b->p = np;
    b->len += n;
    b->p[b->len] = '\0';
    return n;
}

static int perform(CURL *c, const struct imx_srv *s, const char *method, const char *path,
                   const char *const *headers, const char *body, struct imx_res *res)
{
    char url[4096 + 128];
    struct growbuf bodybuf = { NULL, 0 }, hdrbuf = { NULL, 0 };
    struct curl_slist *hl = NULL;

    memset(res, 0, sizeof *res);
    snprintf(url, sizeof url, "%s%s", s->base, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_NOBODY, strcmp(method, "HEAD") == 0 ? 1L : 0L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &bodybuf);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &hdrbuf);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, s->http_timeout_s > 0 ? (long)s->http_timeout_s : 30L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    } else {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, NULL);
        if (strcmp(method, "GET") == 0)
            curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    }
    for (size_t i = 0; headers && headers[i]; i++)
        hl = curl_slist_append(hl, headers[i]);
    hl = curl_slist_append(hl, "Expect:");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    CURLcode rc = curl_easy_perform(c);
    curl_slist_free_all(hl);
    if (rc != CURLE_OK) {
        free(bodybuf.p);
        free(hdrbuf.p);
        return -1;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
    curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &res->connects);
    res->body = bodybuf.p ? bodybuf.p : strdup("");
    res->len = bodybuf.len;
    res->headers = hdrbuf.p ? hdrbuf.p : strdup("");
    if (res->len > 0)
        res->json = json_loadb(res->body, res->len, 0, NULL);
    return 0;
}

int imx_t_http(const struct imx_srv *s, const char *method, const char *path,
               const char *const *headers, const char *body, struct imx_res *res)
{
    CURL *c = curl_easy_init();
    int rc = perform(c, s, method, path, headers, body, res);
    curl_easy_cleanup(c);
    return rc;
}

int imx_t_http_keepalive(const struct imx_srv *s, const char *path, struct imx_res *res1,
                         struct imx_res *res2)
{
    CURL *c = curl_easy_init();
    int rc = perform(c, s, "GET", path, NULL, NULL, res1);
    if (rc == 0)
        rc = perform(c, s, "GET", path, NULL, NULL, res2);
    curl_easy_cleanup(c);
    return rc;
}

const char *imx_t_header(const struct imx_res *res, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name);
    for (const char *line = res->headers; line && *line;) {
        const char *end = strstr(line, "\r\n");
        size_t ll = end ? (size_t)(end - line) : strlen(line);
        if (ll > nl && strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
            const char *v = line + nl + 1;
            while (*v == ' ')
                v++;
            size_t vl = ll - (size_t)(v - line);
            snprintf(buf, len, "%.*s", (int)vl, v);
            return buf;
        }
        line = end ? end + 2 : NULL;
    }
    return NULL;
}

void imx_t_res_free(struct imx_res *res)
{
    free(res->body);
    free(res->headers);
    json_decref(res->json);
    memset(res, 0, sizeof *res);
}

void imx_t_assert_problem(const struct imx_res *res, long status)
{
    char ct[128];
    if (res->status != status)
        fprintf(stderr, "expected %ld, got %ld: %s\n", status, res->status, res->body);
    assert_int_equal(res->status, status);
    assert_non_null(imx_t_header(res, "Content-Type", ct, sizeof ct));
    assert_string_equal(ct, "application/problem+json");
    assert_non_null(res->json);
    assert_int_equal(json_integer_value(json_object_get(res->json, "status")), status);
    assert_non_null(json_string_value(json_object_get(res->json, "type")));
    assert_non_null(json_string_value(json_object_get(res->json, "title")));
}

int imx_t_http_as(const struct imx_srv *s, const char *token, const char *method, const char *path,
                  const char *json_body, struct imx_res *res)
{
    char auth[8192];
    const char *headers[3] = { NULL, NULL, NULL };
    size_t n = 0;
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        headers[n++] = auth;
    }
    if (json_body)
        headers[n++] = "Content-Type: application/json";
    return imx_t_http(s, method, path, headers, json_body, res);
}

long long imx_t_publish(const struct imx_srv *s, const char *token, const char *team,
                        const char *family, const char *version, const char *components,
                        const char *gpus)
{
    char body[8192];
    snprintf(
        body, sizeof body,
        "{\"team\":\"%s\",\"family\":\"%s\",\"version\":\"%s\",\"provider\":\"aws\","
        "\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":\"24.04\"},"
        "\"layer\":\"platform\",\"artifacts\":[{\"region\":\"us-east-1\",\"id\":\"ami-%s-%s\"}],"
        "\"components\":%s%s%s}",
        team, family, version, family, version, components, gpus ? ",\"gpus\":" : "",
        gpus ? gpus : "");
    struct imx_res res;
    if (imx_t_http_as(s, token, "POST", "/v1/images", body, &res) != 0)
        return 0;
    long long id = 0;
    if (res.status == 201)
        id = json_integer_value(json_object_get(res.json, "id"));
    else
        fprintf(stderr, "publish %s %s: %ld %s\n", family, version, res.status, res.body);
    imx_t_res_free(&res);
    return id;
}

long imx_t_image_patch(const struct imx_srv *s, const char *token, long long id,
                       const char *json_body)
{
    char path[64], auth[8192], etag[128], if_match[160];
    snprintf(path, sizeof path, "/v1/images/%lld", id);
    struct imx_res res;
    if (imx_t_http_as(s, token, "GET", path, NULL, &res) != 0)
        return -1;
    if (!imx_t_header(&res, "ETag", etag, sizeof etag))
        etag[0] = '\0';
    imx_t_res_free(&res);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    snprintf(if_match, sizeof if_match, "If-Match: %s", etag);
    const char *headers[] = { auth, if_match, "Content-Type: application/json", NULL };
    if (imx_t_http(s, "PATCH", path, headers, json_body, &res) != 0)
        return -1;
    long status = res.status;
    if (status != 200)
        fprintf(stderr, "PATCH %s %s: %ld %s\n", path, json_body, res.status, res.body);
    imx_t_res_free(&res);
    return status;
}

int imx_t_login(const struct imx_srv *s, const char *email, const char *password, char *token,
                size_t len)
{
    struct imx_res res;
    json_t *body = json_pack("{s:s, s:s}", "email", email, "password", password);
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    /* The server checks passwords at the lowest CPU priority (server/auth/password.c): on a busy
     * machine one check waits for idle cores, over 30 s at load 15 beside three busy loops. */
    struct imx_srv patient = *s;
    if (patient.http_timeout_s < 300)
        patient.http_timeout_s = 300;
    int rc = imx_t_http_as(&patient, NULL, "POST", "/v1/auth/login", text, &res);
    free(text);
    if (rc != 0)
        return -1;
    long status = res.status;
    const char *t = json_string_value(json_object_get(res.json, "access_token"));
    if (status == 200 && t)
        snprintf(token, len, "%s", t);
    imx_t_res_free(&res);
    return (int)status;
}

int imx_t_user(const struct imx_srv *s, const char *admin_token, const char *team_slug,
               const char *email, const char *role, char *token, size_t len)
{
    struct imx_res res;
    char body[1024], path[1024], pw[300];
    snprintf(pw, sizeof pw, "pw-%s", email);
    snprintf(body, sizeof body, "{\"slug\":\"%s\",\"name\":\"Team %s\"}", team_slug, team_slug);
    if (imx_t_http_as(s, admin_token, "POST", "/v1/teams", body, &res) != 0 ||
        (res.status != 201 && res.status != 409)) {
        fprintf(stderr, "harness: create team %s: %ld %s\n", team_slug, res.status, res.body);
        imx_t_res_free(&res);
        return -1;
    }
    imx_t_res_free(&res);
    snprintf(body, sizeof body, "{\"email\":\"%s\",\"password\":\"%s\"}", email, pw);
    if (imx_t_http_as(s, admin_token, "POST", "/v1/users", body, &res) != 0 ||
        (res.status != 201 && res.status != 409)) {
        fprintf(stderr, "harness: create user %s: %ld %s\n", email, res.status, res.body);
        imx_t_res_free(&res);
        return -1;
    }
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/teams/%s/members/%s", team_slug, email);
    snprintf(body, sizeof body, "{\"role\":\"%s\"}", role);
    if (imx_t_http_as(s, admin_token, "PUT", path, body, &res) != 0 || res.status != 200) {
        fprintf(stderr, "harness: membership %s: %ld %s\n", path, res.status, res.body);
        imx_t_res_free(&res);
        return -1;
    }
    imx_t_res_free(&res);
    int st = imx_t_login(s, email, pw, token, len);
    if (st != 200)
        fprintf(stderr, "harness: login %s: %d\n", email, st);
    return st == 200 ? 0 : -1;
}

unsigned imx_t_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t len = sizeof sa;
    unsigned port = 0;
    if (fd < 0)
        return 0;
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        port = ntohs(sa.sin_port);
    close(fd);
    return port;
}

int imx_t_receiver_init(struct imx_rcv *r, const char *name)
{
    memset(r, 0, sizeof *r);
    r->port = imx_t_free_port();
    snprintf(r->log, sizeof r->log, "%s/receiver.log", imx_t_tmpdir(name));
    return r->port ? 0 : -1;
}

int imx_t_receiver_start(struct imx_rcv *r)
{
    char ready[720], out[720], script[700], port[16];
    snprintf(ready, sizeof ready, "%s.ready", r->log);
    snprintf(out, sizeof out, "%s.out", r->log);
    snprintf(script, sizeof script, "%s/tests/integration/webhook_receiver.js",
             env_or("IMX_TEST_SOURCE_DIR", "."));
    snprintf(port, sizeof port, "%u", r->port);
    unlink(ready);
    r->pid = imx_t_fork(out);
    if (r->pid < 0) {
        r->pid = 0;
        return -1;
    }
    if (r->pid == 0) {
        execlp("node", "node", script, port, r->log, (char *)NULL);
        _exit(127);
    }
    struct stat st;
    for (int i = 0; i < 200 && stat(ready, &st) != 0; i++)
        imx_t_sleep_ms(50);
    if (stat(ready, &st) == 0)
        return 0;
    fprintf(stderr, "harness: the webhook receiver did not start; see %s\n", out);
    imx_t_receiver_stop(r);
    return -1;
}

void imx_t_receiver_env(const struct imx_rcv *r, const char *const *extra,
                        const char *env[IMX_T_RECEIVER_ENV_MAX], char allow[64])
{
    snprintf(allow, 64, "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:%u", r->port);
    size_t n = 0;
    env[n++] = allow;
    env[n++] = "IMAXE_WEBHOOK_SCHEDULE=1,1";
    env[n++] = "IMAXE_WEBHOOK_POLL_MS=100";
    for (size_t i = 0; extra && extra[i]; i++) {
        assert_true(n < IMX_T_RECEIVER_ENV_MAX - 1);
        env[n++] = extra[i];
    }
    env[n] = NULL;
}

void imx_t_receiver_stop(struct imx_rcv *r)
{
    if (r->pid > 0) {
        kill(r->pid, SIGTERM);
        waitpid(r->pid, NULL, 0);
    }
    r->pid = 0;
}

void imx_t_receiver_control(const struct imx_rcv *r, const char *json)
{
    struct imx_srv rcv = { 0 };
    struct imx_res res;
    snprintf(rcv.base, sizeof rcv.base, "http://127.0.0.1:%u", r->port);
    assert_int_equal(imx_t_http(&rcv, "POST", "/_control", NULL, json, &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
}

json_t *imx_t_receiver_log(const struct imx_rcv *r, const char *path)
{
    json_t *all = json_array();
    FILE *f = fopen(r->log, "r");
    char *line = NULL;
    size_t cap = 0;
    while (f && getline(&line, &cap, f) > 0) {
        json_t *e = json_loads(line, 0, NULL);
        assert_non_null(e);
        if (!path || strcmp(json_string_value(json_object_get(e, "path")), path) == 0)
            json_array_append_new(all, e);
        else
            json_decref(e);
    }
    free(line);
    if (f)
        fclose(f);
    return all;
}

long long imx_t_metric(const struct imx_srv *s, const char *series)
{
    struct imx_res res;
    long long v = -1;
    if (imx_t_http(s, "GET", "/metrics", NULL, NULL, &res) != 0)
        return -1;
    size_t n = strlen(series);
    for (const char *p = res.body; res.status == 200 && p && *p;
         p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, series, n) == 0 && p[n] == ' ')
            v = strtoll(p + n + 1, NULL, 10);
    }
    imx_t_res_free(&res);
    return v;
}

long imx_t_peak_rss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

/* ---- the compatibility tests' shared setup ---- */

int imx_t_compat_up(struct imx_t_compat *t, const char *name)
{
    return imx_t_server_up(&t->srv, name, NULL, t->db, sizeof t->db, t->admin, sizeof t->admin);
}

int imx_t_compat_down(struct imx_t_compat *t)
{
    return imx_t_server_stop(&t->srv, SIGTERM, 15) == 0 ? 0 : -1;
}

json_t *imx_t_compat_check(const struct imx_t_compat *t, const char *components, const char *gpus)
{
    size_t len = strlen(components) + strlen(gpus) + 32;
    char *body = malloc(len);
    assert_non_null(body);
    snprintf(body, len, "{\"components\":%s,\"gpus\":%s}", components, gpus);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&t->srv, t->admin, "POST", "/v1/compat/check", body, &res), 0);
    if (res.status != 200)
        fail_msg("compat check %s: %ld %s", body, res.status, res.body);
    free(body);
    json_t *j = json_incref(res.json);
    imx_t_res_free(&res);
    return j;
}

json_t *imx_t_compat_finding(json_t *report, const char *code)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(report, "findings"), i, f)
    {
        const char *c = json_string_value(json_object_get(f, "code"));
        if (c && strcmp(c, code) == 0)
            return f;
    }
    return NULL;
}
