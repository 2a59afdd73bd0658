/* The HTTP daemon: request context set-up, body accumulation with a cap, dispatch through the
 * route table, common headers, metrics and the access log. */
#include "http/server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <openssl/rand.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http/conformance.h"
#include "http/guard.h"
#include "http/metrics.h"
#include "http/ratelimit.h"
#include "http/router.h"
#include "http/static.h"
#include "http/workers.h"
#include "util/budget.h"
#include "util/log.h"

imx_http_auth_fn imx_http_auth_hook;
imx_http_auth_fn imx_http_fast_auth_hook;
imx_http_create_fn imx_http_create_hook;
imx_http_create_fn imx_http_release_hook;

static struct MHD_Daemon *daemon_;
static atomic_long in_flight;
static atomic_bool draining;
/* Requests and streamed bodies that may be suspended (see hold): libmicrohttpd must not be
 * stopped with a connection suspended, so imx_http_stop sets stopping and waits for none. */
static atomic_long held;
static atomic_bool stopping;
static atomic_ullong answered_event, answered_worker;
static unsigned bound_port;
static size_t max_body, max_url, max_header;
static bool access_log, serve_static;
static unsigned parse_budget_ms; /* IMAXE_PARSE_BUDGET_MS */

/* Event threads run no handler; libmicrohttpd's default (the process default) would reserve 8
 * MiB of address space for each. */
#define THREAD_STACK_BYTES (256 * 1024)

/* A streamed body is produced on a worker this much at a time. */
#define PUMP_BYTES (32 * 1024)

/* How long imx_http_stop waits for suspended connections to come back: a handler's statement
 * and connection wait are bounded by their own timeouts well under this. */
#define STOP_WAIT_MS 60000

/* How much of a refused query parameter's name a problem shows. */
#define IMX_QUERY_NAME_SHOWN 64

/* How much of an oversized chunked body is read and dropped so the client still gets its 413. */
#define DISCARD_MAX (8 * 1024 * 1024)

/* What the framing headers of a request say, counted over every header line. */
struct framing {
    unsigned content_length, transfer_encoding, host;
    bool te_chunked_only; /* every Transfer-Encoding is exactly "chunked" */
};

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
    struct framing *f = cls;
    (void)kind;
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        f->content_length++;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        f->transfer_encoding++;
        if (!value || strcasecmp(value, "chunked") != 0)
            f->te_chunked_only = false;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0) {
        f->host++;
    }
    return MHD_YES;
}

/* How the head's lines lie in libmicrohttpd's read buffer, walked in the order they came. */
struct layout {
    uintptr_t end;   /* where the previous line's text ended (its terminator starts) */
    const char *why; /* NULL while every line so far is well formed */
};

static bool is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* libmicrohttpd 0.9.75 parses header lines in place: it overwrites each CRLF with two NULs (a
 * bare LF with one) and the colon with one, and points key and value into the line. A folded
 * line (obs-fold) is appended to the key in a block of its own. So a line whose key does not
 * start two bytes after the previous line's end was folded into (or ended by a bare LF, one
 * byte), which that version accepts silently and newer ones refuse (RFC 9112 sections 2.2 and
 * 5.2). tests/integration/test_abuse shows each case refused, should a new version parse
 * differently. */
static enum MHD_Result walk_line(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    struct layout *l = cls;
    (void)kind;
    uintptr_t k = (uintptr_t)key;
    if (k == l->end + 1) {
        l->why = "A line of the head ends in a bare LF, not CRLF";
        return MHD_NO;
    }
    if (k != l->end + 2) {
        l->why = "A header line is folded (obsolete line folding)";
        return MHD_NO;
    }
    const char *p = key;
    for (; *p; p++)
        if (!is_tchar((unsigned char)*p)) {
            l->why = "A header name has a character a token may not have";
            return MHD_NO;
        }
    /* The colon's NUL, then optional whitespace, then the value, all in the same line. */
    for (p++; p < value; p++)
        if (*p != ' ' && *p != '\t') {
            l->why = "A header line is folded (obsolete line folding)";
            return MHD_NO;
        }
    if (p != value) {
        l->why = "A header line is folded (obsolete line folding)";
        return MHD_NO;
    }
    for (; *p; p++)
        if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) {
            l->why = "A header value has a control character (a bare CR?)";
            return MHD_NO;
        }
    l->end = (uintptr_t)p;
    return MHD_YES;
}

/* NULL when every line of the head ends in CRLF and none is folded, else why (see walk_line).
 * The head must end with an empty line: CRLF CRLF after the last line's text. */
static const char *head_lines_problem(struct MHD_Connection *conn, const char *method,
                                      const char *version)
{
    const union MHD_ConnectionInfo *hs =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    if (!hs)
        return NULL;
    struct layout l = { .end = (uintptr_t)version + strlen(version) };
    MHD_get_connection_values(conn, MHD_HEADER_KIND, walk_line, &l);
    if (l.why)
        return l.why;
    if ((uintptr_t)method + hs->header_size != l.end + 4)
        return "A line of the head ends in a bare LF, not CRLF";
    return NULL;
}

/* Refuses a request head whose framing a proxy in front could read differently (RFC 9112
 * sections 2.2, 5.2, 6.1, 6.3 and 3.2): NULL when it is fine, else why. libmicrohttpd has already
 * refused whitespace before a colon (MHD_OPTION_STRICT_FOR_CLIENT -1); obsolete line folding and
 * a bare LF ending a line, which 0.9.75 accepts, are found in head_lines_problem. */
static const char *framing_problem(struct MHD_Connection *conn, const char *url, const char *method,
                                   const char *version, bool *chunked)
{
    struct framing f = { .te_chunked_only = true };
    MHD_get_connection_values(conn, MHD_HEADER_KIND, count_framing, &f);
    *chunked = f.transfer_encoding > 0;
    if (strcmp(version, MHD_HTTP_VERSION_1_1) != 0 && strcmp(version, MHD_HTTP_VERSION_1_0) != 0)
        return "Only HTTP/1.1 and HTTP/1.0 are spoken";
    const char *lines = head_lines_problem(conn, method, version);
    if (lines)
        return lines;
    if (f.content_length > 1)
        return "More than one Content-Length";
    if (f.transfer_encoding > 1)
        return "More than one Transfer-Encoding";
    if (f.content_length && f.transfer_encoding)
        return "Both Content-Length and Transfer-Encoding";
    if (f.transfer_encoding && !f.te_chunked_only)
        return "Transfer-Encoding other than chunked";
    if (f.transfer_encoding && strcmp(version, MHD_HTTP_VERSION_1_0) == 0)
        return "Transfer-Encoding in an HTTP/1.0 request";
    if (f.host > 1 || (f.host == 0 && strcmp(version, MHD_HTTP_VERSION_1_1) == 0))
        return "An HTTP/1.1 request needs exactly one Host";
    /* url is decoded already: an encoded space is fine, a control character is not. */
    for (const unsigned char *p = (const unsigned char *)url; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return "The URL has a control character";
    return NULL;
}

static bool sane_request_id(const char *s)
{
    size_t n = 0;
    if (!s)
        return false;
    for (; s[n]; n++) {
        char c = s[n];
        if (n >= IMX_REQUEST_ID_MAX ||
            !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.' || c == ':'))
            return false;
    }
    return n > 0;
}

static void set_request_id(struct imx_req *r)
{
    const char *given = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "X-Request-Id");
    if (sane_request_id(given)) {
        snprintf(r->request_id, sizeof r->request_id, "%s", given);
        return;
    }
    /* 128 bits as 32 hex digits: two splitmix64 sequences of the thread's own, seeded from
     * RAND_bytes when it first needs one. Each output is a bijection of its state, so a thread
     * never repeats an id in 2^64 requests, and threads start at random points of the sequence.
     * Ids correlate logs; they are not secrets. RAND_bytes and 16 snprintf calls a request were
     * 7 % of the server's CPU on compare. */
    static _Thread_local uint64_t state[2];
    static _Thread_local bool seeded;
    if (!seeded) {
        if (RAND_bytes((unsigned char *)state, sizeof state) != 1) {
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            state[0] = (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 32);
            state[1] = (uint64_t)(uintptr_t)&t;
        }
        seeded = true;
    }
    static const char hex[] = "0123456789abcdef";
    for (int k = 0; k < 2; k++) {
        uint64_t z = (state[k] += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        for (int i = 0; i < 16; i++)
            r->request_id[16 * k + i] = hex[(z >> (60 - 4 * i)) & 0xf];
    }
    r->request_id[32] = '\0';
}

static bool is_api_path(const char *path)
{
    return strncmp(path, "/v1/", 4) == 0 || strcmp(path, "/v1") == 0 ||
           strcmp(path, "/livez") == 0 || strcmp(path, "/readyz") == 0 ||
           strcmp(path, "/metrics") == 0 || strcmp(path, "/openapi.json") == 0;
}

/* Takes the request from its caller's bucket and says so in RateLimit headers (IETF draft);
 * replies 429 with Retry-After and returns false when the bucket is empty. */
static bool rate_limit(struct imx_req *r)
{
    unsigned limit = imx_ratelimit_limit();
    if (limit == 0)
        return true;
    const struct imx_principal *p = &r->principal;
    uint64_t key = p->token_id ? ((uint64_t)p->token_id << 1) | 1 : (uint64_t)p->user_id << 1;
    unsigned left, reset_s;
    bool ok = imx_ratelimit_take(key, &left, &reset_s);
    char policy[64], state[64];
    snprintf(policy, sizeof policy, "\"requests\";q=%u;w=60", limit);
    snprintf(state, sizeof state, "\"requests\";r=%u;t=%u", left, reset_s);
    imx_reply_header(r, "RateLimit-Policy", policy);
    imx_reply_header(r, "RateLimit", state);
    if (ok)
        return true;
    char ra[16];
    snprintf(ra, sizeof ra, "%u", reset_s);
    imx_reply_header(r, "Retry-After", ra);
    imx_reply_problem(r, IMX_E_RATE_LIMITED,
                      "More than %u requests a minute from this %s; try again in %u seconds", limit,
                      p->token_id ? "API token" : "user", reset_s);
    return false;
}

/* What checking a request's query against its route found. */
struct query_scan {
    const struct imx_route *route;
    unsigned char seen[IMX_ROUTE_QUERY_MAX];
    const char *bad; /* borrowed from libmicrohttpd: the first refused parameter */
    bool repeated;   /* bad is a single-valued parameter given twice (else unknown) */
};

static enum MHD_Result scan_query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    struct query_scan *q = cls;
    bool repeatable;
    (void)kind;
    (void)value;
    int pos = imx_route_query_param(q->route, key ? key : "", &repeatable);
    if (pos < 0) {
        q->bad = key ? key : "";
        return MHD_NO;
    }
    if (q->seen[pos] && !repeatable) {
        q->bad = key;
        q->repeated = true;
        return MHD_NO;
    }
    q->seen[pos] = 1;
    return MHD_YES;
}

/* Refuses (400, naming it) a query parameter the route does not declare, or a single-valued one
 * given more than once, before the handler runs. Returns whether the request may go on. */
static bool query_allowed(struct imx_req *r)
{
    struct query_scan q = { .route = r->route };
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, scan_query_arg, &q);
    if (!q.bad)
        return true;
    char name[IMX_QUERY_NAME_SHOWN + 1];
    size_t n = 0;
    /* The name goes into JSON and the log: printable ASCII only, bounded. */
    for (const char *p = q.bad; *p && n < IMX_QUERY_NAME_SHOWN; p++)
        name[n++] = (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f ? *p : '?';
    name[n] = '\0';
    if (q.repeated)
        imx_reply_bad_param(r, name, "The query parameter '%s' may be given only once", name);
    else if (r->route->query)
        imx_reply_bad_param(r, name, "Unknown query parameter '%s' (%s %s accepts: %s)", name,
                            r->route->method, r->route->path, r->route->query);
    else
        imx_reply_bad_param(r, name, "Unknown query parameter '%s' (%s %s takes none)", name,
                            r->route->method, r->route->path);
    return false;
}

/* How far the event thread got with a request before its handler. */
enum front {
    FRONT_REPLIED, /* an early error, 404 or 405 was replied */
    FRONT_STATIC,  /* a static file of the web UI is to be served */
    FRONT_ROUTE,   /* r->route matched */
};

/* The early errors and the route match, on the event thread (nothing here blocks). */
static enum front front(struct imx_req *r)
{
    if (r->early_error != IMX_E__COUNT && r->early_detail) {
        imx_reply_problem(r, r->early_error, "%s", r->early_detail);
        return FRONT_REPLIED;
    }
    if (r->early_error == IMX_E_URI_TOO_LONG) {
        imx_reply_problem(r, r->early_error, "The URL, query included, is longer than %zu bytes",
                          max_url);
        return FRONT_REPLIED;
    }
    if (r->early_error == IMX_E_HEADERS_TOO_LARGE) {
        imx_reply_problem(r, r->early_error, "The header lines are longer than %zu bytes in all",
                          max_header);
        return FRONT_REPLIED;
    }
    if (r->early_error != IMX_E__COUNT) {
        imx_reply_problem(r, r->early_error, "The body is larger than %zu bytes", max_body);
        return FRONT_REPLIED;
    }
    r->path = strdup(r->path_orig);
    if (!r->path) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return FRONT_REPLIED;
    }
    char allow[IMX_ALLOW_MAX];
    int idx = -1;
    enum imx_match m =
        imx_router_match(r->method, r->path, &idx, r->params, &r->nparams, allow, sizeof allow);
    if (m == IMX_MATCH_NO_PATH) {
        bool get = strcmp(r->method, "GET") == 0 || strcmp(r->method, "HEAD") == 0;
        if (serve_static && !is_api_path(r->path_orig)) {
            if (get)
                return FRONT_STATIC;
            imx_reply_header(r, "Allow", "GET, HEAD");
            imx_reply_problem(r, IMX_E_METHOD_NOT_ALLOWED, "Static files answer GET and HEAD");
            return FRONT_REPLIED;
        }
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No resource at %s", r->path_orig);
        return FRONT_REPLIED;
    }
    if (m == IMX_MATCH_BAD_METHOD) {
        imx_reply_header(r, "Allow", allow);
        imx_reply_problem(r, IMX_E_METHOD_NOT_ALLOWED, "%s does not answer %s (allowed: %s)",
                          r->path_orig, r->method, allow);
        return FRONT_REPLIED;
    }
    r->route = &imx_routes[idx];
    r->route_index = idx;
    return FRONT_ROUTE;
}

/* Lets the request through to its route's handler: the caller (in full, which may query
 * PostgreSQL), the rate limit and the query parameters. Returns false after replying. */
static bool admit(struct imx_req *r)
{
    if (r->route->access != IMX_ACCESS_PUBLIC) {
        if (!imx_http_auth_hook) {
            imx_reply_header(r, "WWW-Authenticate", IMX_WWW_AUTHENTICATE);
            imx_reply_problem(r, IMX_E_UNAUTHENTICATED, "Send Authorization: Bearer <token>");
            return false;
        }
        if (!imx_http_auth_hook(r))
            return false;
        if (!rate_limit(r))
            return false;
    }
    return query_allowed(r);
}

/* What admitting on the event thread found. */
enum admit_fast { ADMIT_OK, ADMIT_REPLIED, ADMIT_WORKER };

/* admit without blocking: a caller the principal cache does not let in is admitted on a worker
 * (nothing is replied or counted then). */
static enum admit_fast admit_fast(struct imx_req *r)
{
    if (r->route->access != IMX_ACCESS_PUBLIC) {
        if (!imx_http_fast_auth_hook || !imx_http_fast_auth_hook(r))
            return ADMIT_WORKER;
        if (!rate_limit(r))
            return ADMIT_REPLIED;
    }
    return query_allowed(r) ? ADMIT_OK : ADMIT_REPLIED;
}

/* After a handler: its connection back to the pool, and a reply it must have set. */
static void handler_done(struct imx_req *r)
{
    if (imx_http_release_hook)
        imx_http_release_hook(r);
    if (r->reply.status == 0) {
        imx_error("handler for %s %s set no reply (request %s)", r->route->method, r->route->path,
                  r->request_id);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    }
}

/* On a worker: what the event thread left of the request, answered. */
static void work_request(struct imx_req *r)
{
    if (!r->route) {
        imx_static_serve(r, r->path_orig);
        return;
    }
    if (!r->admitted && !admit(r)) {
        /* The auth hook may have taken what the release hook gives back. */
        if (imx_http_release_hook)
            imx_http_release_hook(r);
        return;
    }
    /* What the client sent is read within a CPU budget (util/budget.h): a costly document ends in
     * a 4xx, not a held worker. */
    imx_budget_begin(parse_budget_ms);
    if (r->route->creates && imx_http_create_hook)
        imx_http_create_hook(r);
    else
        r->route->handler(r);
    imx_budget_end();
    handler_done(r);
}

/* Where a request is (r->stage). Between the first and the last, its connection is suspended:
 * libmicrohttpd leaves it alone until the read or the worker resumes it. */
enum stage {
    STAGE_NEW,      /* on the event thread; the body may still be coming */
    STAGE_PARKED,   /* a fast handler's read is in flight */
    STAGE_WORKER,   /* queued for a worker, or on one */
    STAGE_ANSWERED, /* r->reply is set: queue it */
};

/* r->park: a parked request's handshake with imx_req_wake, which may come before the event
 * thread has suspended the connection (the read is quick) or after. */
enum { PARK_RUNNING, PARK_SUSPENDED, PARK_WOKEN };

/* Counts something that may suspend its connection. False when the server is stopping: it then
 * must not (imx_http_stop may already have found none held). */
static bool hold(void)
{
    atomic_fetch_add(&held, 1);
    if (!atomic_load(&stopping))
        return true;
    atomic_fetch_sub(&held, 1);
    return false;
}

static void unhold_req(struct imx_req *r)
{
    if (r->held) {
        r->held = false;
        atomic_fetch_sub(&held, 1);
    }
}

void imx_req_wake(struct imx_req *r)
{
    struct MHD_Connection *conn = r->conn;
    if (atomic_exchange(&r->park, PARK_WOKEN) == PARK_SUSPENDED)
        MHD_resume_connection(conn);
}

static void on_worker(struct imx_job *job)
{
    struct imx_req *r = (struct imx_req *)(void *)((char *)job - offsetof(struct imx_req, job));
    struct MHD_Connection *conn = r->conn;
    work_request(r);
    r->stage = STAGE_ANSWERED;
    MHD_resume_connection(conn); /* r is the event thread's again: not touched past this */
}

/* Hands the request to a worker (r->held). */
static void offload(struct imx_req *r)
{
    r->stage = STAGE_WORKER;
    MHD_suspend_connection(r->conn);
    r->job.run = on_worker;
    imx_workers_submit(&r->job);
}

/* Goes on with what a fast handler did (r->held). True when r was answered here; false when it
 * was parked or offloaded: an offloaded r is the worker's from then on (on_worker writes
 * r->stage), so the event thread must not read it again until MHD calls back. */
static bool step(struct imx_req *r, enum imx_fast f)
{
    switch (f) {
    case IMX_FAST_DONE:
        handler_done(r);
        r->stage = STAGE_ANSWERED;
        return true;
    case IMX_FAST_PARKED:
        r->stage = STAGE_PARKED;
        MHD_suspend_connection(r->conn);
        if (atomic_exchange(&r->park, PARK_SUSPENDED) == PARK_WOKEN)
            MHD_resume_connection(r->conn); /* the read was in before the suspension */
        return false;
    case IMX_FAST_OFFLOAD:
        offload(r);
        return false;
    }
    return false;
}

/* The request is in: answered here when it can be without blocking (true), else parked or
 * offloaded (false; see step). */
static bool answer(struct imx_req *r)
{
    enum front f = front(r);
    if (f == FRONT_REPLIED) {
        r->stage = STAGE_ANSWERED;
        return true;
    }
    if (!hold()) {
        imx_reply_header(r, "Retry-After", "1");
        imx_reply_problem(r, IMX_E_NOT_READY, "The server is shutting down");
        r->stage = STAGE_ANSWERED;
        return true;
    }
    r->held = true;
    imx_fast_fn fast = f == FRONT_ROUTE ? r->route->fast : NULL;
    if (!fast) {
        offload(r);
        return false;
    }
    switch (admit_fast(r)) {
    case ADMIT_REPLIED:
        r->stage = STAGE_ANSWERED;
        return true;
    case ADMIT_WORKER:
        offload(r);
        return false;
    case ADMIT_OK:
        r->admitted = true;
        return step(r, fast(r));
    }
    return false;
}

/* A streamed body, produced on a worker a chunk at a time while its connection is suspended:
 * the producers read PostgreSQL, which the event thread must not wait for. */
struct pump {
    struct imx_job job;
    struct MHD_Connection *conn;
    imx_stream_fn fn;
    void *cls;
    void (*free_cls)(void *);
    uint64_t pos;    /* bytes produced so far */
    size_t len, off; /* of buf: produced, sent */
    ssize_t end;     /* 0, or what fn returned at the end (-1, -2) */
    bool held;
    char buf[PUMP_BYTES];
};

static void pump_fill(struct imx_job *job)
{
    struct pump *p = (struct pump *)(void *)job;
    ssize_t n = p->fn(p->cls, p->pos, p->buf, sizeof p->buf);
    if (n > 0) {
        p->len = (size_t)n;
        p->off = 0;
        p->pos += (uint64_t)n;
    } else if (n < 0) {
        p->end = n;
    }
    MHD_resume_connection(p->conn);
}

static ssize_t pump_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct pump *p = cls;
    (void)pos;
    if (p->held) {
        p->held = false;
        atomic_fetch_sub(&held, 1);
    }
    if (p->off < p->len) {
        size_t n = p->len - p->off < max ? p->len - p->off : max;
        memcpy(buf, p->buf + p->off, n);
        p->off += n;
        return (ssize_t)n;
    }
    if (p->end)
        return p->end;
    if (!hold())
        return MHD_CONTENT_READER_END_WITH_ERROR;
    p->held = true;
    MHD_suspend_connection(p->conn);
    p->job.run = pump_fill;
    imx_workers_submit(&p->job);
    return 0;
}

static void pump_free(void *cls)
{
    struct pump *p = cls;
    if (p->held)
        atomic_fetch_sub(&held, 1);
    if (p->free_cls)
        p->free_cls(p->cls);
    free(p);
}

static void free_plain(void *p)
{
    free(p);
}

_Static_assert(MHD_CONTENT_READER_END_OF_STREAM == (ssize_t)-1 &&
                   MHD_CONTENT_READER_END_WITH_ERROR == (ssize_t)-2,
               "imx_stream_fn returns what libmicrohttpd's content reader returns");

static enum MHD_Result queue(struct imx_req *r)
{
    struct imx_reply *rp = &r->reply;
    struct MHD_Response *resp;
    imx_conformance_record(r);
    if (rp->stream) {
        /* imx_stream_fn returns as libmicrohttpd's content reader does (-1 end, -2 error). */
        struct pump *p = calloc(1, sizeof *p);
        if (!p)
            return MHD_NO;
        p->conn = r->conn;
        p->fn = rp->stream;
        p->cls = rp->stream_cls;
        p->free_cls = rp->stream_free;
        rp->stream = NULL; /* the pump owns the producer now */
        rp->stream_cls = NULL;
        rp->stream_free = NULL;
        resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, PUMP_BYTES, pump_read, p,
                                                 pump_free);
        if (!resp)
            pump_free(p);
    } else if (rp->body && rp->len > 0) {
        resp = MHD_create_response_from_buffer_with_free_callback_cls(
            rp->len, rp->body, rp->free_body ? rp->free_body : free_plain,
            rp->free_body ? rp->free_cls : rp->body);
        if (resp) {
            rp->body = NULL; /* the response owns it now */
            rp->free_body = NULL;
        }
    } else {
        resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    }
    if (!resp)
        return MHD_NO;
    r->bytes_sent = rp->len;
    if (rp->content_type)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, rp->content_type);
    MHD_add_response_header(resp, "X-Request-Id", r->request_id);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    if (!rp->cacheable)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    for (size_t i = 0; i < rp->nheaders; i++)
        MHD_add_response_header(resp, rp->headers[i].name, rp->headers[i].value);
    /* After a chunked body the connection closes: should a proxy in front have framed the chunks
     * differently (a bare LF, say), bytes it sent as part of the body are never read here as a
     * next request. A refused head closes too. */
    bool last = imx_guard_sending(r->conn);
    if (atomic_load(&draining) || r->chunked || r->early_detail || last)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ret = MHD_queue_response(r->conn, rp->status, resp);
    MHD_destroy_response(resp);
    r->queued = true;
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct imx_req *r = *con_cls;
    (void)cls;

    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r)
            return MHD_NO;
        r->conn = conn;
        r->method = method;
        r->route_index = -1;
        r->early_error = IMX_E__COUNT;
        clock_gettime(CLOCK_MONOTONIC, &r->started);
        set_request_id(r);
        atomic_fetch_add(&in_flight, 1);
        *con_cls = r;

        size_t ul = strnlen(url, max_url + 1);
        r->path_orig = strndup(url, ul > max_url ? max_url : ul);
        if (!r->path_orig)
            return MHD_NO;
        imx_guard_head_done(conn);
        const char *framing = framing_problem(conn, url, method, version, &r->chunked);
        if (!framing) {
            /* The request target, query included, lies in the head between url and version (see
             * head_lines_problem); the header lines follow it. */
            size_t target = (size_t)((uintptr_t)version - (uintptr_t)url) - 1;
            const union MHD_ConnectionInfo *hs =
                MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
            size_t lines =
                hs ? hs->header_size - (size_t)((uintptr_t)version - (uintptr_t)method) : 0;
            if (target > max_url || ul > max_url) {
                r->early_error = IMX_E_URI_TOO_LONG;
                front(r);
                r->early_detail = "too long"; /* closes the connection */
                return queue(r);
            }
            if (lines > max_header) {
                r->early_error = IMX_E_HEADERS_TOO_LARGE;
                front(r);
                r->early_detail = "too large";
                return queue(r);
            }
        }
        if (framing || imx_guard_url_bad(conn)) {
            /* The problem's instance must be valid JSON text: bytes past ASCII become '?'. */
            for (char *p = r->path_orig; *p; p++)
                if ((unsigned char)*p >= 0x7f || (unsigned char)*p < 0x20)
                    *p = '?';
            r->early_error = IMX_E_BAD_REQUEST;
            r->early_detail = framing ? framing
                                      : "The URL has a raw space or control character, an invalid "
                                        "percent-encoding, a NUL or bytes that are not UTF-8";
            front(r);
            return queue(r);
        }
        const char *cl =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        unsigned long long clv = 0;
        if (cl && (imx_parse_uint(cl, 0, ~0ULL, &clv) != 0 || clv > max_body))
            r->early_error = IMX_E_PAYLOAD_TOO_LARGE;
        /* Refuse an oversized body before reading it: answer now, the connection then closes. */
        if (r->early_error == IMX_E_PAYLOAD_TOO_LARGE) {
            front(r);
            return queue(r);
        }
        return MHD_YES;
    }
    if (r->queued) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        imx_guard_body_bytes(conn, n);
        if (r->body_too_large || r->body_len + n > max_body) {
            /* libmicrohttpd 0.9.75 cannot answer in the middle of a body, so an oversized
             * chunked body is read and dropped up to a bound, then answered 413; past the
             * bound the connection is cut. */
            r->body_too_large = true;
            r->early_error = IMX_E_PAYLOAD_TOO_LARGE;
            r->discarded += n;
            return r->discarded > max_body + DISCARD_MAX ? MHD_NO : MHD_YES;
        }
        if (r->body_len + n + 1 > r->body_cap) {
            size_t cap = r->body_cap ? r->body_cap : 4096;
            while (cap < r->body_len + n + 1)
                cap *= 2;
            if (cap > max_body + 1)
                cap = max_body + 1;
            char *nb = realloc(r->body, cap);
            if (!nb)
                return MHD_NO;
            r->body = nb;
            r->body_cap = cap;
        }
        memcpy(r->body + r->body_len, upload_data, n);
        r->body_len += n;
        r->body[r->body_len] = '\0';
        return MHD_YES;
    }
    /* r->stage is read once, before this call can hand r to a worker: once offloaded, the worker
     * writes it (tools/test-tsan.sh found the event thread reading it again here). */
    bool answered = false;
    switch ((enum stage)r->stage) {
    case STAGE_NEW:
        imx_guard_answering(conn);
        answered = answer(r);
        break;
    case STAGE_PARKED: /* its read is in (imx_req_wake resumed it) */
        atomic_store(&r->park, PARK_RUNNING);
        answered = step(r, r->resume(r));
        break;
    case STAGE_WORKER: /* not called while suspended */
        break;
    case STAGE_ANSWERED: /* by a worker, which then resumed the connection */
        answered = true;
        break;
    }
    if (!answered)
        return MHD_YES;
    unhold_req(r);
    atomic_fetch_add(r->job.run ? &answered_worker : &answered_event, 1);
    return queue(r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct imx_req *r = *con_cls;
    (void)cls;
    imx_guard_request_done(conn);
    if (!r)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double secs =
        (double)(now.tv_sec - r->started.tv_sec) + (double)(now.tv_nsec - r->started.tv_nsec) / 1e9;
    unsigned status = r->reply.status;
    if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && status == 0)
        status = 499; /* client went away before an answer */
    const char *route = r->route ? r->route->path : (r->reply.cacheable ? "static" : "unmatched");
    imx_metrics_observe(r->route_index, r->method, status, secs);
    if (access_log) {
        char client[INET6_ADDRSTRLEN];
        imx_req_client_addr(r, client, sizeof client);
        imx_log_access(r->request_id, r->method, route, status, secs * 1000, r->bytes_sent, client);
    }
    unhold_req(r);
    atomic_fetch_sub(&in_flight, 1);
    imx_req_free(r);
    *con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[512];
    (void)cls;
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n > 0 && msg[n - 1] == '\n')
        msg[--n] = '\0';
    imx_warn("libmicrohttpd: %s", msg);
}

/* While draining, a new connection is closed as soon as it is accepted. MHD_quiesce_daemon is not
 * used: on an epoll daemon with its own threads it races the event threads for removing the
 * listening socket from their epoll sets, and the loser aborts the process ("Failed to remove
 * listen FD from epoll set", libmicrohttpd 0.9.75; seen on a SIGTERM in test_abuse). */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)cls;
    (void)addr;
    (void)addrlen;
    return atomic_load(&draining) ? MHD_NO : MHD_YES;
}

int imx_http_start(const struct imx_config *cfg, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    unsigned flags =
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC | MHD_USE_ERROR_LOG;
    struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, cfg->bind, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((uint16_t)cfg->port);
    } else if (inet_pton(AF_INET6, cfg->bind, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)cfg->port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, errlen, "IMAXE_BIND '%s' is not an IPv4 or IPv6 address", cfg->bind);
        return -1;
    }
    max_body = cfg->max_body;
    max_url = cfg->max_url;
    max_header = cfg->max_header;
    access_log = cfg->access_log;
    parse_budget_ms = cfg->parse_budget_ms;
    serve_static = cfg->web_dir[0] != '\0';
    if (serve_static)
        imx_static_init(cfg->web_dir);
    struct imx_guard_settings guard = {
        .header_timeout_ms = cfg->header_timeout_s * 1000,
        .body_min_rate = cfg->body_min_rate,
        .reading_limit = cfg->reading_limit,
        .per_ip_reading_limit = cfg->per_ip_reading_limit,
        .answer_stall_ms = cfg->answer_stall_s * 1000,
        .pipeline_max = cfg->pipeline_max,
        .conn_limit = cfg->conn_limit,
    };
    imx_ratelimit_init(cfg->rate_limit_per_min);
    if (imx_conformance_open(err, errlen) != 0)
        return -1;
    if (imx_guard_start(&guard) != 0) {
        snprintf(err, errlen, "cannot start the connection guard thread");
        return -1;
    }
    if (imx_workers_start(cfg->http_workers) != 0) {
        snprintf(err, errlen, "cannot start the handler workers");
        return -1;
    }

    /* The logger goes first: libmicrohttpd logs the options it parses before it (and warns
     * on stderr, past our logger, when it is not first). */
    daemon_ = MHD_start_daemon(
        flags, (uint16_t)cfg->port, accept_policy, NULL, on_request, NULL,
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg->conn_timeout_s, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)cfg->conn_limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)cfg->per_ip_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, cfg->conn_memory, MHD_OPTION_THREAD_STACK_SIZE,
        (size_t)THREAD_STACK_BYTES, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)cfg->http_threads,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
        NULL, MHD_OPTION_NOTIFY_CONNECTION, imx_guard_notify, NULL, MHD_OPTION_UNESCAPE_CALLBACK,
        imx_guard_unescape, NULL, MHD_OPTION_URI_LOG_CALLBACK, imx_guard_uri_log, NULL,
        /* -1 in 0.9.75 is the level that refuses whitespace before a header's colon; the Host
         * check of level 1 is made in framing_problem. */
        MHD_OPTION_STRICT_FOR_CLIENT, -1, MHD_OPTION_END);
    if (!daemon_) {
        snprintf(err, errlen, "cannot listen on %s:%u (in use, or not allowed)", cfg->bind,
                 cfg->port);
        return -1;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
    bound_port = di ? di->port : cfg->port;
    return 0;
}

unsigned imx_http_port(void)
{
    return bound_port;
}

void imx_http_quiesce(void)
{
    atomic_store(&draining, true);
}

bool imx_http_draining(void)
{
    return atomic_load(&draining);
}

long imx_http_in_flight(void)
{
    return atomic_load(&in_flight);
}

void imx_http_answered(unsigned long long *event_thread, unsigned long long *worker)
{
    *event_thread = atomic_load(&answered_event);
    *worker = atomic_load(&answered_worker);
}

void imx_http_stop(void)
{
    atomic_store(&stopping, true);
    long waited = 0;
    for (; atomic_load(&held) > 0 && waited < STOP_WAIT_MS; waited += 10)
        nanosleep(&(struct timespec){ .tv_nsec = 10000000L }, NULL);
    if (atomic_load(&held) > 0) {
        /* Stopping libmicrohttpd now would free connections a worker still holds. */
        imx_error("%ld requests still on workers after %d s; exiting without closing them",
                  atomic_load(&held), STOP_WAIT_MS / 1000);
        return;
    }
    if (daemon_)
        MHD_stop_daemon(daemon_);
    daemon_ = NULL;
    imx_workers_stop();
    imx_guard_stop();
}
