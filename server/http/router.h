/* Routes as data: method, path template with {params}, who may call it, and the handler.
 * 404, 405 (with Allow) and access checks happen here, before any handler runs. */
#ifndef IMX_ROUTER_H
#define IMX_ROUTER_H

#include <stdbool.h>
#include <stddef.h>

#include "http/request.h"

/* Who may call a route; checked before the handler runs. */
enum imx_access {
    IMX_ACCESS_PUBLIC,    /* anyone, no token needed */
    IMX_ACCESS_SIGNED_IN, /* any valid token */
    IMX_ACCESS_ADMIN,     /* a global admin */
    /* any valid token, a node-report API token included; every other route refuses such a token
     * (server/auth/auth.c), so a node's credential can only report */
    IMX_ACCESS_NODE_REPORT,
};

struct imx_route {
    const char *method; /* "GET", "POST", ... (GET routes also answer HEAD) */
    const char *path;   /* template, e.g. "/v1/images/{id}" */
    enum imx_access access;
    imx_handler handler;
    /* The least team role (enum imx_role in server/auth/auth.h; 0: none) the caller must hold in
     * at least one team, checked with access before the handler runs (403 otherwise). Global
     * admins pass; an API token counts with its capped role in its team. Handlers still check
     * the role in the team they touch (imx_auth_team). */
    int min_role;
    /* The query parameters the operation accepts, space-separated as api/openapi.yaml lists them;
     * a name ending in '*' may repeat. NULL: none. Anything else is refused 400 naming the
     * parameter before the handler runs (imx_route_query_param). */
    const char *query;
    /* The route creates something: an Idempotency-Key makes a retry replay the first reply
     * (imx_http_create_hook, server/api/idempotency.c). */
    bool creates;
    /* The handler reads the auth epoch with its answer and calls imx_auth_confirm(): the caller
     * may be let in with a remembered principal (no query of its own;
     * server/api/principal_cache.h); every other route checks the principal in full. */
    bool epoch_auth;
    /* The route answers Accept: text/csv and application/x-ndjson with the whole list
     * (imx_api_export_format is NONE on every other route). */
    bool exports;
    /* The fast handler, which answers on the event thread without blocking (see enum imx_fast in
     * http/request.h), or NULL: the handler then runs on a worker. */
    imx_fast_fn fast;
};

/* The route table (server/api/routes.c) and its length. */
extern const struct imx_route imx_routes[];
extern const size_t imx_routes_count;

#define IMX_ALLOW_MAX 96

enum imx_match {
    IMX_MATCH_OK,         /* *index set, params filled */
    IMX_MATCH_NO_PATH,    /* 404 */
    IMX_MATCH_BAD_METHOD, /* 405; allow holds the Allow header value */
};

/* Matches method and path (path is modified: split in place; params point into it).
 * Returns the outcome; on IMX_MATCH_OK *index is the route's index in imx_routes. */
enum imx_match imx_router_match(const char *method, char *path, int *index, const char **params,
                                size_t *nparams, char *allow, size_t allowlen);

/* Most query parameters one route may declare. */
#define IMX_ROUTE_QUERY_MAX 32

/* Looks NAME up in route's query list: returns its position (0..IMX_ROUTE_QUERY_MAX-1) and sets
 * *repeatable, or returns -1 when the route does not accept it. */
int imx_route_query_param(const struct imx_route *route, const char *name, bool *repeatable);

/* Validates the table (templates well formed, no duplicates). Returns 0, or -1 with a message. */
int imx_router_check(char *err, size_t errlen);

#endif
