/* What the cost and request handlers share: the caller's measurement scope, and their handlers. */
#ifndef IMX_API_COSTS_COMMON_H
#define IMX_API_COSTS_COMMON_H

#include "db/costs.h"
#include "http/request.h"

/* Text buffers behind an imx_cost_scope. */
struct imx_api_scope {
    char user[24], token_team[24], team[24];
    struct imx_cost_scope s;
};

/* The caller's scope: their teams (an API token's team only); with a team slug, that team only
 * (replies 404/403 and returns -1 when the caller is not at least a viewer there). */
int imx_api_cost_scope(struct imx_req *r, const char *team_slug, struct imx_api_scope *out);

/* Handlers (routes.c): instance types and prices, measurements, cost rankings, requests. */
void imx_api_instance_type_list(struct imx_req *r);
void imx_api_instance_type_get(struct imx_req *r);
void imx_api_instance_type_create(struct imx_req *r);
void imx_api_instance_type_put(struct imx_req *r);
void imx_api_instance_price_add(struct imx_req *r);
void imx_api_measurement_create(struct imx_req *r);
void imx_api_measurement_import(struct imx_req *r);
void imx_api_measurement_list(struct imx_req *r);
void imx_api_measurement_get(struct imx_req *r);
void imx_api_image_costs(struct imx_req *r);
void imx_api_cost_ranking(struct imx_req *r);
void imx_api_request_create(struct imx_req *r);
void imx_api_request_list(struct imx_req *r);
void imx_api_request_get(struct imx_req *r);
void imx_api_request_matches(struct imx_req *r);
void imx_api_request_transition(struct imx_req *r);
void imx_api_request_comment(struct imx_req *r);

/* IMAXE_CATALOG_TEAM: the slug of the team that handles image requests (NULL: the first team
 * created). Set by main before serving. */
extern const char *imx_api_catalog_team;

#endif
