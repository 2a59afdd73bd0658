/* Reading a request (params, query, headers, JSON body) and setting its reply. */
#include "http/request.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "http/router.h"
#include "util/budget.h"
#include "util/log.h"

const char *imx_req_param(const struct imx_req *r, const char *name)
{
    if (!r->route)
        return NULL;
    /* Params are numbered in template order: find NAME's position. */
    size_t idx = 0, nlen = strlen(name);
    for (const char *t = r->route->path; (t = strchr(t, '{')) != NULL; t++) {
        const char *end = strchr(t, '}');
        if (!end)
            break;
        if ((size_t)(end - t - 1) == nlen && memcmp(t + 1, name, nlen) == 0)
            return idx < r->nparams ? r->params[idx] : NULL;
        idx++;
    }
    return NULL;
}

const char *imx_req_query(const struct imx_req *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

struct each_ctx {
    const char *name;
    void (*fn)(void *cls, const char *value);
    void *cls;
    size_t count;
};

static enum MHD_Result each_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *value)
{
    struct each_ctx *e = cls;
    (void)kind;
    if (key && strcmp(key, e->name) == 0) {
        e->count++;
        if (e->fn)
            e->fn(e->cls, value ? value : "");
    }
    return MHD_YES;
}

size_t imx_req_query_each(const struct imx_req *r, const char *name,
                          void (*fn)(void *cls, const char *value), void *cls)
{
    struct each_ctx e = { name, fn, cls, 0 };
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, each_arg, &e);
    return e.count;
}

struct foreach_ctx {
    void (*fn)(void *cls, const char *key, const char *value);
    void *cls;
};

static enum MHD_Result foreach_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    struct foreach_ctx *e = cls;
    (void)kind;
    if (key)
        e->fn(e->cls, key, value ? value : "");
    return MHD_YES;
}

void imx_req_query_foreach(const struct imx_req *r,
                           void (*fn)(void *cls, const char *key, const char *value), void *cls)
{
    struct foreach_ctx e = { fn, cls };
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, foreach_arg, &e);
}

const char *imx_req_client_addr(const struct imx_req *r, char *buf, size_t len)
{
    const union MHD_ConnectionInfo *ci =
        r->conn ? MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS) : NULL;
    buf[0] = '\0';
    if (ci && ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, buf,
                      (socklen_t)len);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, buf,
                      (socklen_t)len);
    }
    return buf;
}

const char *imx_req_header(const struct imx_req *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

static bool is_json_type(const char *ct)
{
    if (!ct)
        return false;
    while (*ct == ' ')
        ct++;
    size_t n = strlen("application/json");
    return strncasecmp(ct, "application/json", n) == 0 &&
           (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

json_t *imx_req_json(struct imx_req *r)
{
    if (r->json)
        return r->json;
    if (!is_json_type(imx_req_header(r, MHD_HTTP_HEADER_CONTENT_TYPE))) {
        imx_reply_problem(r, IMX_E_UNSUPPORTED_MEDIA_TYPE,
                          "Send the body as Content-Type: application/json");
        return NULL;
    }
    json_error_t jerr;
    json_t *doc = json_loadb(r->body ? r->body : "", r->body_len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        imx_reply_problem(r, IMX_E_MALFORMED_JSON, "%s (line %d, column %d)", jerr.text, jerr.line,
                          jerr.column);
        return NULL;
    }
    if (!json_is_object(doc)) {
        json_decref(doc);
        json_t *errors = json_array();
        imx_verr(errors, "", "the body must be a JSON object");
        imx_reply_invalid_steal(r, errors, "The body must be a JSON object");
        return NULL;
    }
    r->json = doc;
    return doc;
}

static void reply_clear(struct imx_reply *rp)
{
    if (rp->body) {
        if (rp->free_body)
            rp->free_body(rp->free_cls);
        else
            free(rp->body);
    }
    rp->body = NULL;
    rp->len = 0;
    rp->free_body = NULL;
    rp->free_cls = NULL;
    if (rp->stream_cls && rp->stream_free)
        rp->stream_free(rp->stream_cls);
    rp->stream = NULL;
    rp->stream_cls = NULL;
    rp->stream_free = NULL;
}

void imx_reply_stream_steal(struct imx_req *r, unsigned status, const char *content_type,
                            imx_stream_fn fn, void *cls, void (*free_fn)(void *))
{
    reply_clear(&r->reply);
    r->reply.status = status;
    r->reply.content_type = content_type;
    r->reply.stream = fn;
    r->reply.stream_cls = cls;
    r->reply.stream_free = free_fn;
}

void imx_reply_raw_steal(struct imx_req *r, unsigned status, const char *content_type, char *body,
                         size_t len, void (*free_fn)(void *), void *cls)
{
    reply_clear(&r->reply);
    r->reply.status = status;
    r->reply.content_type = content_type;
    r->reply.body = body;
    r->reply.len = len;
    r->reply.free_body = free_fn;
    r->reply.free_cls = cls;
}

void imx_reply_text(struct imx_req *r, unsigned status, const char *content_type, const char *text)
{
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy) {
        imx_reply_raw_steal(r, 500, "text/plain", NULL, 0, NULL, NULL);
        return;
    }
    memcpy(copy, text, len + 1);
    imx_reply_raw_steal(r, status, content_type, copy, len, NULL, NULL);
}

void imx_reply_empty(struct imx_req *r, unsigned status)
{
    imx_reply_raw_steal(r, status, NULL, NULL, 0, NULL, NULL);
}

void imx_reply_json_steal(struct imx_req *r, unsigned status, json_t *doc)
{
    /* 15 significant digits: a numeric(3,1) 8.2 read back as a double prints as 8.2, not as
     * jansson's default 17-digit 8.1999999999999993. */
    char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(15)) : NULL;
    json_decref(doc);
    if (!text) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_reply_raw_steal(r, status, "application/json", text, strlen(text), NULL, NULL);
}

static bool has_header(const struct imx_req *r, const char *name)
{
    for (size_t i = 0; i < r->reply.nheaders; i++)
        if (strcasecmp(r->reply.headers[i].name, name) == 0)
            return true;
    return false;
}

static void reply_problem_doc(struct imx_req *r, enum imx_err err, const char *detail,
                              json_t *errors, const char *parameter)
{
    const struct imx_problem_def *d = imx_problem_def(err);
    /* Every 401 names the scheme (RFC 9110 section 11.6.1); a handler that knows more (an
     * invalid token: RFC 6750's error="invalid_token") has set its own. */
    if (d->status == 401 && !has_header(r, "WWW-Authenticate"))
        imx_reply_header(r, "WWW-Authenticate", IMX_WWW_AUTHENTICATE);
    char type[128];
    snprintf(type, sizeof type, IMX_PROBLEM_TYPE_BASE "%s", d->slug);
    json_t *doc = json_pack("{s:s, s:s, s:i, s:s}", "type", type, "title", d->title, "status",
                            (int)d->status, "instance", r->path_orig ? r->path_orig : "/");
    if (doc && detail && *detail)
        json_object_set_new(doc, "detail", json_string(detail));
    if (doc)
        json_object_set_new(doc, "request_id", json_string(r->request_id));
    if (doc && errors) {
        /* An answer is bounded whatever the body held: the first IMX_PROBLEM_ERRORS_MAX errors
         * and how many there were in all. */
        size_t total = json_array_size(errors);
        if (total > IMX_PROBLEM_ERRORS_MAX) {
            json_t *first = json_array();
            for (size_t i = 0; first && i < IMX_PROBLEM_ERRORS_MAX; i++)
                json_array_append(first, json_array_get(errors, i));
            json_object_set_new(doc, "errors", first);
        } else {
            json_object_set(doc, "errors", errors);
        }
        json_object_set_new(doc, "error_count", json_integer((json_int_t)total));
    }
    if (doc && parameter)
        json_object_set_new(doc, "parameter", json_string(parameter));
    json_decref(errors);
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!text) {
        imx_reply_raw_steal(r, d->status, "application/problem+json", NULL, 0, NULL, NULL);
        return;
    }
    imx_reply_raw_steal(r, d->status, "application/problem+json", text, strlen(text), NULL, NULL);
}

void imx_reply_problem(struct imx_req *r, enum imx_err err, const char *detail_fmt, ...)
{
    char detail[1024] = "";
    if (detail_fmt) {
        va_list ap;
        va_start(ap, detail_fmt);
        vsnprintf(detail, sizeof detail, detail_fmt, ap);
        va_end(ap);
    }
    reply_problem_doc(r, err, detail, NULL, NULL);
}

void imx_reply_bad_param(struct imx_req *r, const char *parameter, const char *detail_fmt, ...)
{
    char detail[1024] = "";
    va_list ap;
    va_start(ap, detail_fmt);
    vsnprintf(detail, sizeof detail, detail_fmt, ap);
    va_end(ap);
    reply_problem_doc(r, IMX_E_BAD_REQUEST, detail, NULL, parameter);
}

void imx_reply_invalid_steal(struct imx_req *r, json_t *errors, const char *detail)
{
    /* A parser that stopped because the request's work budget ran out says so among its errors;
     * the document may be sound: 422, not a validation failure. */
    if (imx_budget_spent()) {
        reply_problem_doc(r, IMX_E_UNPROCESSABLE, IMX_BUDGET_SPENT_TEXT, errors, NULL);
        return;
    }
    reply_problem_doc(r, IMX_E_VALIDATION, detail, errors, NULL);
}

void imx_reply_header(struct imx_req *r, const char *name, const char *value)
{
    struct imx_reply *rp = &r->reply;
    if (rp->nheaders == IMX_MAX_HEADERS) {
        imx_error("dropping response header %s: raise IMX_MAX_HEADERS", name);
        return;
    }
    char *n = strdup(name), *v = strdup(value);
    if (!n || !v) {
        free(n);
        free(v);
        return;
    }
    rp->headers[rp->nheaders].name = n;
    rp->headers[rp->nheaders].value = v;
    rp->nheaders++;
}

void imx_reply_header_list(struct imx_req *r, const char *name, const char *value)
{
    struct imx_reply *rp = &r->reply;
    for (size_t i = 0; i < rp->nheaders; i++) {
        if (strcasecmp(rp->headers[i].name, name) != 0)
            continue;
        size_t a = strlen(value), b = strlen(rp->headers[i].value);
        char *joined = malloc(a + b + 3);
        if (!joined)
            return;
        memcpy(joined, value, a);
        memcpy(joined + a, ", ", 2);
        memcpy(joined + a + 2, rp->headers[i].value, b + 1);
        free(rp->headers[i].value);
        rp->headers[i].value = joined;
        return;
    }
    imx_reply_header(r, name, value);
}

void imx_verr(json_t *errors, const char *pointer, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    json_array_append_new(errors, json_pack("{s:s, s:s}", "pointer", pointer, "detail", detail));
}

void imx_req_free(struct imx_req *r)
{
    reply_clear(&r->reply);
    for (size_t i = 0; i < r->reply.nheaders; i++) {
        free(r->reply.headers[i].name);
        free(r->reply.headers[i].value);
    }
    json_decref(r->json);
    if (r->fast_free)
        r->fast_free(r->fast_state);
    free(r->body);
    free(r->path);
    free(r->path_orig);
    free(r);
}
