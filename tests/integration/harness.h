/* Integration-test harness: throwaway databases, the real server as a child process, and an
 * HTTP client (libcurl) whose responses are easy to assert on. */
#ifndef IMX_HARNESS_H
#define IMX_HARNESS_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* cmocka needs these before its header. */
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

struct imx_srv {
    pid_t pid;
    unsigned port;
    char log_path[1024];
    char base[64];      /* http://127.0.0.1:PORT */
    int http_timeout_s; /* how long a request may take; 0 is 30 s (set after the server starts) */
};

struct imx_res {
    long status;
    char *body; /* NUL-terminated */
    size_t len;
    char *headers; /* raw header block */
    json_t *json;  /* parsed body when it is JSON, else NULL */
    long connects; /* new connections curl opened for this request */
};

/* Connection string of the shared test cluster's database NAME ("postgres" for admin work).
 * Borrowed, per-call static buffer. */
const char *imx_t_pg_conninfo(const char *dbname);

/* Creates a fresh, empty database for this test and returns its connection string (static). */
const char *imx_t_db_create(const char *name);
/* The same, as a copy of the database a first server start leaves (migrated, with the first
 * admin), when the fixture made one; else empty. */
#define IMX_T_TEMPLATE_DB "imx_template"
const char *imx_t_db_create_migrated(const char *name);

/* Runs SQL on a database; returns the first value of the first row (new string) or NULL. */
char *imx_t_sql(const char *conninfo, const char *sql);

/* What every test server starts with unless env overrides it (an empty value unsets). */
#define IMX_T_JWT_SECRET     "imaxe-test-jwt-secret-0123456789abcdefghijklmnop"
#define IMX_T_ADMIN_EMAIL    "admin@test.imaxe"
#define IMX_T_ADMIN_PASSWORD "test-admin-password-7"

/* The port of the "listening on http://ADDR:PORT/" line in a server's log, once that line is
 * whole; 0 until then. */
unsigned imx_t_port_from_log(const char *path);

/* Starts the server with IMAXE_DATABASE_URL=db, the JWT secret and admin above, and extra
 * "NAME=value" settings (NULL-ended). Waits until /livez answers. Returns 0, or -1 (the server
 * exited: see its log). */
int imx_t_server_start(struct imx_srv *s, const char *db, const char *const *env);

/* Starts the server without waiting for it (for start-up failure tests). */
int imx_t_server_spawn(struct imx_srv *s, const char *db, const char *const *env);

/* Creates database name (imx_t_db_create_migrated; its connection string into db when db is not
 * NULL), starts the server on it with env (as imx_t_server_start) and signs in the bootstrap admin
 * (token into admin). Returns 0, or -1 (printing why). */
int imx_t_server_up(struct imx_srv *s, const char *name, const char *const *env, char *db,
                    size_t db_len, char *admin, size_t admin_len);

/* fork() for a child process of a test: in the child, stdout and stderr go to log_path
 * (truncated; /dev/null when it cannot be opened), stdin comes from /dev/null, and SIGTERM comes
 * when the test process dies. So a failed assertion, which skips the test's clean-up, leaves no
 * child holding ctest's output pipe (ctest would wait for its timeout). Returns as fork(). */
pid_t imx_t_fork(const char *log_path);

/* Sends sig and waits up to timeout_s for exit. Returns the exit status, 128+signal, or -1. */
int imx_t_server_stop(struct imx_srv *s, int sig, int timeout_s);

/* Waits for the process to exit on its own; returns as imx_t_server_stop. */
int imx_t_server_wait(struct imx_srv *s, int timeout_s);

/* Does the server's log contain text? */
bool imx_t_log_contains(const struct imx_srv *s, const char *text);

/* One HTTP request. headers: NULL-ended "Name: value" list (may be NULL); body may be NULL.
 * Returns 0 when an answer came (any status). */
int imx_t_http(const struct imx_srv *s, const char *method, const char *path,
               const char *const *headers, const char *body, struct imx_res *res);

/* Same, reusing one curl handle so keep-alive can be observed. */
int imx_t_http_keepalive(const struct imx_srv *s, const char *path, struct imx_res *res1,
                         struct imx_res *res2);

/* The value of header NAME in res (case-insensitive), copied into buf; NULL when absent. */
const char *imx_t_header(const struct imx_res *res, const char *name, char *buf, size_t len);

void imx_t_res_free(struct imx_res *res);

/* The value of one series of s's /metrics ("name{labels}" as printed), or -1 when it is absent
 * or /metrics did not answer 200. */
long long imx_t_metric(const struct imx_srv *s, const char *series);

/* Asserts res is a problem+json document with the given status. */
void imx_t_assert_problem(const struct imx_res *res, long status);

/* A scratch directory for this test (created). Static buffer. */
const char *imx_t_tmpdir(const char *name);

/* Runs a shell command; returns its exit status. */
int imx_t_system(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Milliseconds sleep. */
void imx_t_sleep_ms(long ms);

/* Signs in; copies the access token into token. Returns the HTTP status (200 on success), or
 * -1 when no answer came. */
int imx_t_login(const struct imx_srv *s, const char *email, const char *password, char *token,
                size_t len);

/* One request with Authorization: Bearer token (none when token is NULL) and, with a body,
 * Content-Type: application/json. Returns 0 when an answer came. */
int imx_t_http_as(const struct imx_srv *s, const char *token, const char *method, const char *path,
                  const char *json_body, struct imx_res *res);

/* Publishes a minimal platform image of team through POST /v1/images (aws, x86_64, ubuntu 24.04,
 * one artifact in us-east-1) with components, a JSON array text [{"name","version"}, ...], and
 * gpus (a JSON array text, or NULL). Returns its id, or 0 (printing why). */
long long imx_t_publish(const struct imx_srv *s, const char *token, const char *team,
                        const char *family, const char *version, const char *components,
                        const char *gpus);

/* PATCH /v1/images/{id} with json_body (a lifecycle change), sending the ETag it reads first as
 * If-Match. Returns the HTTP status, or -1 when no answer came. */
long imx_t_image_patch(const struct imx_srv *s, const char *token, long long id,
                       const char *json_body);

/* Creates team team_slug if needed, the user email (password "pw-" email), gives them role in
 * the team, and signs them in (token). Returns 0, or -1 (printing why). */
int imx_t_user(const struct imx_srv *s, const char *admin_token, const char *team_slug,
               const char *email, const char *role, char *token, size_t len);

/* A free loopback TCP port, or 0. */
unsigned imx_t_free_port(void);

/* The Node webhook receiver (tests/integration/webhook_receiver.js): verifies deliveries with the
 * standardwebhooks npm package and appends one JSON line a request to log. */
struct imx_rcv {
    pid_t pid;
    unsigned port;
    char log[700];
};

/* Picks a free port and a fresh log in imx_t_tmpdir(name) for r; starts nothing. Returns 0, or
 * -1 when no port is free. */
int imx_t_receiver_init(struct imx_rcv *r, const char *name);

/* Starts the receiver r was initialised for (its own output goes to log ".out") and waits until
 * it listens. Returns 0, or -1. */
int imx_t_receiver_start(struct imx_rcv *r);

/* Stops the receiver if it runs. */
void imx_t_receiver_stop(struct imx_rcv *r);

/* Server settings for delivering webhooks to r promptly in a test (its port allowed, a retry
 * after 1 s, a poll every 100 ms), followed by extra ("NAME=value", NULL-ended, may be NULL):
 * NULL-ended into env (IMX_T_RECEIVER_ENV_MAX entries); allow holds one of the strings. */
#define IMX_T_RECEIVER_ENV_MAX 16
void imx_t_receiver_env(const struct imx_rcv *r, const char *const *extra,
                        const char *env[IMX_T_RECEIVER_ENV_MAX], char allow[64]);

/* Sends the receiver a POST /_control document (secrets, modes); asserts it answered 200. */
void imx_t_receiver_control(const struct imx_rcv *r, const char *json);

/* The requests the receiver logged for path (NULL: all), as parsed log lines in arrival order
 * (new array). Asserts every line is JSON. */
json_t *imx_t_receiver_log(const struct imx_rcv *r, const char *path);

/* The compatibility tests' shared setup (test_knowledge, test_compat_stacks, test_compat_rows):
 * one server on a fresh database that holds the shipped reference rows, and its admin. */
struct imx_t_compat {
    struct imx_srv srv;
    char db[1024];
    char admin[4096];
};

/* Starts t's server on a fresh database name (imx_t_server_up). Returns 0, or -1. */
int imx_t_compat_up(struct imx_t_compat *t, const char *name);

/* Stops t's server. Returns 0, or -1 when it did not exit cleanly. */
int imx_t_compat_down(struct imx_t_compat *t);

/* POST /v1/compat/check {"components": components, "gpus": gpus} (JSON array texts) as the admin;
 * fails the test unless it answers 200. Returns the report (a new reference). */
json_t *imx_t_compat_check(const struct imx_t_compat *t, const char *components, const char *gpus);

/* The first finding of report with code (borrowed), or NULL. */
json_t *imx_t_compat_finding(json_t *report, const char *code);

/* One component of a stack as JSON text: IMX_T_COMPONENT("cuda", "12.8.0"). */
#define IMX_T_COMPONENT(n, v) "{\"name\":\"" n "\",\"version\":\"" v "\"}"

/* The peak resident set (VmHWM) of process pid in KiB, or -1 when /proc cannot tell. */
long imx_t_peak_rss_kib(pid_t pid);

#endif
