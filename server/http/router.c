/* Matching a request's method and path against the route table. */
#include "http/router.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEGMENTS 16

/* A path segment: its text and length; a template's "{name}" is a parameter. */
struct seg {
    const char *p;
    size_t len;
    bool param;
};

/* The route table's templates split into segments once (the first match): matching then
 * compares lengths before bytes and skips a route of another depth at once. Scanning every
 * template with strchr and strlen was 7 % of the server's CPU on get by id. */
struct compiled {
    int nsegs; /* -1: the template has more than MAX_SEGMENTS segments, it matches nothing */
    struct seg seg[MAX_SEGMENTS];
};
static struct compiled *compiled;
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

/* Splits path ("/a/b/c") into segments pointing into it. Returns the count, or -1 if too many. */
static int split(const char *path, struct seg *segs)
{
    int n = 0;
    const char *p = path;
    if (*p == '/')
        p++;
    if (*p == '\0')
        return 0;
    while (p) {
        if (n == MAX_SEGMENTS)
            return -1;
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        segs[n++] = (struct seg){ p, len, len >= 2 && p[0] == '{' && p[len - 1] == '}' };
        p = end ? end + 1 : NULL;
    }
    return n;
}

static void compile_routes(void)
{
    compiled = calloc(imx_routes_count, sizeof *compiled);
    for (size_t i = 0; compiled && i < imx_routes_count; i++)
        compiled[i].nsegs = split(imx_routes[i].path, compiled[i].seg);
}

/* Does route i match the segments? Returns the number of literal segments, or -1. Fills params
 * (pointing into segs) when it matches. */
static int match_route(size_t i, const struct seg *segs, int nsegs, const char **params,
                       size_t *nparams)
{
    const struct compiled *c = &compiled[i];
    if (c->nsegs != nsegs)
        return -1;
    int literal = 0;
    size_t np = 0;
    for (int k = 0; k < nsegs; k++) {
        const struct seg *t = &c->seg[k];
        if (t->param) {
            if (segs[k].len == 0 || np == IMX_MAX_PARAMS)
                return -1;
            if (params)
                params[np] = segs[k].p;
            np++;
        } else {
            if (segs[k].len != t->len || memcmp(segs[k].p, t->p, t->len) != 0)
                return -1;
            literal++;
        }
    }
    if (nparams)
        *nparams = np;
    return literal;
}

static bool method_matches(const char *route_method, const char *method)
{
    return strcmp(route_method, method) == 0 ||
           (strcmp(method, "HEAD") == 0 && strcmp(route_method, "GET") == 0);
}

static void allow_add(char *allow, size_t len, const char *method)
{
    /* Each method once. */
    size_t ml = strlen(method);
    for (const char *p = allow; (p = strstr(p, method)) != NULL; p += ml)
        if ((p == allow || p[-1] == ' ') && (p[ml] == ',' || p[ml] == '\0'))
            return;
    size_t used = strlen(allow);
    snprintf(allow + used, len - used, "%s%s", used ? ", " : "", method);
}

enum imx_match imx_router_match(const char *method, char *path, int *index, const char **params,
                                size_t *nparams, char *allow, size_t allowlen)
{
    struct seg segs[MAX_SEGMENTS];
    int nsegs = split(path, segs);
    /* each segment a string of its own: the handlers read their parameters so */
    for (int k = 0; k + 1 < nsegs; k++)
        path[(segs[k].p - path) + segs[k].len] = '\0';
    int best = -1, best_score = -1;
    bool path_known = false;

    allow[0] = '\0';
    pthread_once(&compile_once, compile_routes);
    if (nsegs < 0 || !compiled)
        return IMX_MATCH_NO_PATH;
    for (size_t i = 0; i < imx_routes_count; i++) {
        int score = match_route(i, segs, nsegs, NULL, NULL);
        if (score < 0)
            continue;
        path_known = true;
        if (method_matches(imx_routes[i].method, method) && score > best_score) {
            best = (int)i;
            best_score = score;
        }
    }
    if (best >= 0) {
        match_route((size_t)best, segs, nsegs, params, nparams);
        *index = best;
        return IMX_MATCH_OK;
    }
    if (!path_known)
        return IMX_MATCH_NO_PATH;
    for (size_t i = 0; i < imx_routes_count; i++) {
        if (match_route(i, segs, nsegs, NULL, NULL) < 0)
            continue;
        allow_add(allow, allowlen, imx_routes[i].method);
        if (strcmp(imx_routes[i].method, "GET") == 0)
            allow_add(allow, allowlen, "HEAD");
    }
    return IMX_MATCH_BAD_METHOD;
}

int imx_route_query_param(const struct imx_route *route, const char *name, bool *repeatable)
{
    const char *p = route->query;
    size_t nl = strlen(name);
    int pos = 0;
    *repeatable = false;
    while (p && *p) {
        size_t len = strcspn(p, " ");
        bool rep = len > 0 && p[len - 1] == '*';
        size_t bare = rep ? len - 1 : len;
        if (bare == nl && nl > 0 && memcmp(p, name, nl) == 0) {
            *repeatable = rep;
            return pos;
        }
        pos++;
        p += len;
        while (*p == ' ')
            p++;
    }
    return -1;
}

/* A query list is names of [a-z0-9_], each optionally ending in '*', single spaces between, at
 * most IMX_ROUTE_QUERY_MAX of them, none twice. */
static bool query_list_ok(const char *q)
{
    if (!q)
        return true;
    int n = 0;
    const char *p = q;
    while (*p) {
        size_t len = strcspn(p, " ");
        size_t bare = len > 0 && p[len - 1] == '*' ? len - 1 : len;
        if (bare == 0 || ++n > IMX_ROUTE_QUERY_MAX)
            return false;
        for (size_t i = 0; i < bare; i++)
            if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
                return false;
        for (const char *o = q; o < p;) {
            size_t ol = strcspn(o, " ");
            size_t ob = o[ol - 1] == '*' ? ol - 1 : ol;
            if (ob == bare && memcmp(o, p, bare) == 0)
                return false;
            o += ol + 1;
        }
        p += len;
        if (*p == ' ' && (p[1] == ' ' || p[1] == '\0'))
            return false;
        if (*p == ' ')
            p++;
    }
    return p != q;
}

int imx_router_check(char *err, size_t errlen)
{
    for (size_t i = 0; i < imx_routes_count; i++) {
        const struct imx_route *r = &imx_routes[i];
        if (!r->method || !r->path || r->path[0] != '/' || !r->handler) {
            snprintf(err, errlen, "route %zu is incomplete", i);
            return -1;
        }
        if (!query_list_ok(r->query)) {
            snprintf(err, errlen, "route %s %s has a malformed query list '%s'", r->method, r->path,
                     r->query);
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(imx_routes[j].method, r->method) == 0 &&
                strcmp(imx_routes[j].path, r->path) == 0) {
                snprintf(err, errlen, "route %s %s appears twice", r->method, r->path);
                return -1;
            }
    }
    return 0;
}
