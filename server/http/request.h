/* The per-request context handlers receive, and the calls they use to answer.
 * The context owns everything allocated for the request; it is freed when the response is done. */
#ifndef IMX_REQUEST_H
#define IMX_REQUEST_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "http/problem.h"
#include "http/workers.h"

struct MHD_Connection;
struct imx_route;

#define IMX_MAX_PARAMS     8
#define IMX_MAX_HEADERS    12
#define IMX_REQUEST_ID_MAX 64

/* The challenge of a 401 sent without a token, or with the wrong password (RFC 6750 section 3:
 * no error code when the request had no token). */
#define IMX_WWW_AUTHENTICATE "Bearer realm=\"imaxe\""

struct imx_header {
    char *name;  /* new string */
    char *value; /* new string */
};

/* A streamed body's producer (libmicrohttpd's content reader): writes up to max bytes at buf and
 * returns how many (more than 0), or -1 at the end of the body, or -2 to cut the transfer (the
 * client sees an incomplete body). pos counts the bytes sent before. */
typedef ssize_t (*imx_stream_fn)(void *cls, uint64_t pos, char *buf, size_t max);

/* What the handler answers; queued by the core after the handler returns. */
struct imx_reply {
    unsigned status; /* 0 until a reply is set */
    const char *content_type;
    char *body; /* owned: freed with free_body(free_cls) */
    size_t len;
    void (*free_body)(void *); /* NULL: free(body) */
    void *free_cls;
    bool cacheable;       /* static files: no Cache-Control: no-store */
    imx_stream_fn stream; /* a streamed body instead of body (NULL: none) */
    void *stream_cls;     /* owned: freed with stream_free */
    void (*stream_free)(void *);
    struct imx_header headers[IMX_MAX_HEADERS];
    size_t nheaders;
};

/* Who is calling, set by the auth hook. Roles are enum imx_role values (server/auth/auth.h). */
struct imx_principal {
    bool authenticated;
    int64_t user_id;
    bool admin;         /* global admin powers for this request (never through an API token) */
    bool user_admin;    /* the user is a global admin (caps what their API tokens can reach) */
    int64_t token_id;   /* the API token used, 0 for an access token (JWT) */
    int64_t session_id; /* the web session (cookie) used, 0 for a bearer credential */
    int64_t token_team; /* an API token's team: the only team it reaches */
    int token_role;     /* an API token's role cap */
    bool report_only;   /* a node-report token: it may call only routes marked reports */
    int max_role;       /* the highest team role reached (enum imx_role), with the caps applied */
    /* How the principal was found: from the principal cache (server/api/principal_cache.h)
     * with the auth epoch it was read at, which the request's read statement confirms
     * (imx_auth_confirm), or by a full check in this request (cached false). */
    bool cached;
    long long epoch;
    char cache_key[76];
};

/* What a fast handler did. A fast handler runs on libmicrohttpd's event thread, so it must never
 * block: it answers from memory, or starts a read that calls imx_req_wake when its result is in,
 * or says that the request needs the route's (blocking) handler. */
enum imx_fast {
    IMX_FAST_DONE,    /* replied */
    IMX_FAST_PARKED,  /* r->resume set and a read started that will call imx_req_wake(r) */
    IMX_FAST_OFFLOAD, /* the route's handler is to answer, on a worker: nothing replied yet */
};

struct imx_req;
typedef enum imx_fast (*imx_fast_fn)(struct imx_req *r);

struct imx_req {
    struct MHD_Connection *conn;
    const char *method; /* borrowed from libmicrohttpd */
    char *path;         /* new copy of the URL path, split for params */
    char *path_orig;    /* new copy of the URL path as received */
    const struct imx_route *route;
    int route_index;                    /* -1 when no route matched */
    const char *params[IMX_MAX_PARAMS]; /* values of {params}, pointing into path */
    size_t nparams;
    char request_id[IMX_REQUEST_ID_MAX + 1];
    struct timespec started;
    char *body; /* request body, NUL-terminated; owned */
    size_t body_len, body_cap;
    bool body_too_large;
    size_t discarded;         /* bytes of an oversized body read and dropped */
    enum imx_err early_error; /* set before dispatch (413, 414); IMX_E__COUNT when none */
    const char *early_detail; /* static text for an early error refused at the head (400) */
    bool chunked;             /* the body came chunked: the connection closes after it */
    json_t *json;             /* parsed body (owned), after imx_req_json */
    struct imx_principal principal;
    struct imx_reply reply;
    size_t bytes_sent;
    bool queued; /* a response was handed to libmicrohttpd */

    /* How the request is being answered (server/http/server.c): on the event thread that read it,
     * by a fast handler that may park it on a read, or by the route's handler on a worker. */
    int stage;          /* server.c's enum stage */
    bool admitted;      /* the caller, rate limit and query were checked on the event thread */
    bool held;          /* counted in server.c's held: the request may be suspended */
    atomic_int park;    /* a parked request's handshake with imx_req_wake */
    struct imx_job job; /* the request's turn on a worker */
    imx_fast_fn resume; /* continues a parked fast handler, on the event thread */
    void *fast_state;   /* the fast handler's, freed with fast_free */
    void (*fast_free)(void *);
};

typedef void (*imx_handler)(struct imx_req *r);

/* Wakes a parked request (from any thread): its r->resume runs next, on the event thread. */
void imx_req_wake(struct imx_req *r);

/* The value of route parameter NAME (e.g. "id" for /v1/images/{id}); borrowed; NULL if absent. */
const char *imx_req_param(const struct imx_req *r, const char *name);

/* The first query argument NAME; borrowed; NULL when absent. */
const char *imx_req_query(const struct imx_req *r, const char *name);

/* Calls fn for every query argument named NAME, in order. Returns how many there were. */
size_t imx_req_query_each(const struct imx_req *r, const char *name,
                          void (*fn)(void *cls, const char *value), void *cls);

/* Calls fn for every query argument, in order. */
void imx_req_query_foreach(const struct imx_req *r,
                           void (*fn)(void *cls, const char *key, const char *value), void *cls);

/* The client's address as text (IPv4 or IPv6) into buf; "" when unknown. Returns buf. */
const char *imx_req_client_addr(const struct imx_req *r, char *buf, size_t len);

/* A request header; borrowed; NULL when absent. */
const char *imx_req_header(const struct imx_req *r, const char *name);

/* Parses the body as a JSON object (Content-Type must be application/json, no duplicate keys).
 * Returns a borrowed reference owned by r, or NULL after replying 400/415. */
json_t *imx_req_json(struct imx_req *r);

/* Replies with a JSON document; steals doc. */
void imx_reply_json_steal(struct imx_req *r, unsigned status, json_t *doc);

/* Replies with a body the caller allocated; steals body (freed with free_fn(cls), or free). */
void imx_reply_raw_steal(struct imx_req *r, unsigned status, const char *content_type, char *body,
                         size_t len, void (*free_fn)(void *), void *cls);

/* Replies with a body produced while it is sent (chunked, length unknown): fn(cls, ...) is called
 * on a handler worker after the handler returned, a chunk at a time; steals cls (freed with free_fn
 * once the response is done or dropped). */
void imx_reply_stream_steal(struct imx_req *r, unsigned status, const char *content_type,
                            imx_stream_fn fn, void *cls, void (*free_fn)(void *));

/* Replies with a copy of a static string. */
void imx_reply_text(struct imx_req *r, unsigned status, const char *content_type, const char *text);

/* Replies 204 No Content. */
void imx_reply_empty(struct imx_req *r, unsigned status);

/* Replies with problem+json for err; detail is printf-style (may be NULL). */
void imx_reply_problem(struct imx_req *r, enum imx_err err, const char *detail_fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Replies 400 bad-request naming the refused query parameter (copied; the problem's
 * "parameter"); detail is printf-style. */
void imx_reply_bad_param(struct imx_req *r, const char *parameter, const char *detail_fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* How many errors a problem lists at most; "error_count" says how many there were. */
#define IMX_PROBLEM_ERRORS_MAX 100

/* Replies 400 validation-failed with errors, an array of {pointer, detail}; steals errors. The
 * answer lists the first IMX_PROBLEM_ERRORS_MAX and error_count, the number in all. */
void imx_reply_invalid_steal(struct imx_req *r, json_t *errors, const char *detail);
/* The same as a 422 (IMX_E_UNPROCESSABLE): well-formed fields that break a rule together. */
void imx_reply_unprocessable_steal(struct imx_req *r, json_t *errors, const char *detail);

/* Adds a response header (copied). Extra headers past IMX_MAX_HEADERS are dropped and logged. */
void imx_reply_header(struct imx_req *r, const char *name, const char *value);

/* Adds value to the front of header NAME's list ("value, earlier"), or adds the header. */
void imx_reply_header_list(struct imx_req *r, const char *name, const char *value);

/* Frees the context and everything it owns (the core calls this when the response is done). */
void imx_req_free(struct imx_req *r);

/* Appends {pointer, detail} to errors (an array), the detail printf-style. */
void imx_verr(json_t *errors, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
