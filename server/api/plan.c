/* The upgrade planner: GET /v1/pins/{id}/plan and GET /v1/images/{id}/plan. PostgreSQL gathers
 * the facts (db/plan.c); server/domain/plan.c orders the candidate moves safest first and picks
 * the one to make, with why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "db/plan.h"
#include "domain/plan.h"

static void reply_plan(struct imx_req *r, bool pin)
{
    const char *id = imx_req_param(r, "id");
    unsigned long long v, limit = 50;
    const char *lim_q = imx_req_query(r, "limit");
    if (imx_parse_uint(id, 1, INT64_MAX, &v) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, pin ? "No pin %.64s" : "No image %.64s", id);
        return;
    }
    if (lim_q && imx_parse_uint(lim_q, 1, IMX_PLAN_CANDIDATES_MAX, &limit) != 0) {
        imx_reply_bad_param(r, "limit", "limit must be from 1 to %d", IMX_PLAN_CANDIDATES_MAX);
        return;
    }
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    char uid[24], tt[24], lim[16];
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    snprintf(tt, sizeof tt, "%lld", (long long)r->principal.token_team);
    snprintf(lim, sizeof lim, "%llu", limit);
    char *facts_text = NULL;
    enum imx_db_status rc =
        imx_db_plan_facts(c, pin ? NULL : id, pin ? id : NULL, uid,
                          r->principal.token_id ? tt : NULL, lim, &facts_text, NULL);
    if (rc == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, pin ? "No pin %s" : "No image %s", id);
        return;
    }
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return;
    }
    json_t *facts = json_loads(facts_text, 0, NULL);
    free(facts_text);
    json_t *plan = facts ? imx_plan_build(facts) : NULL;
    if (plan)
        json_object_set(plan, "cost_basis", json_object_get(facts, "cost_basis"));
    json_decref(facts);
    if (!plan) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_reply_json_steal(r, 200, plan);
}

void imx_api_pin_plan(struct imx_req *r)
{
    reply_plan(r, true);
}

void imx_api_image_plan(struct imx_req *r)
{
    reply_plan(r, false);
}
