/* GET /v1/teams/{slug}/exposure/history: a team's exposure day by day (pins and running nodes an
 * advisory hits, by severity, and the longest a fix has waited), as the daily snapshot
 * (server/jobs/exposure.c) recorded it. */
#include <stdio.h>

#include "api/api.h"
#include "auth/auth.h"
#include "db/exposure.h"
#include "http/problem.h"
#include "util/config.h"

void imx_api_exposure_history(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    const char *slug = imx_req_param(r, "slug");
    const char *days = imx_req_query(r, "days");
    unsigned long long n = 90;
    if (days && imx_parse_uint(days, 1, 3650, &n) != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "days must be a whole number from 1 to 3650");
        return;
    }
    int64_t id = imx_auth_team(r, slug, IMX_ROLE_VIEWER);
    if (!id)
        return;
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    char tid[24];
    snprintf(tid, sizeof tid, "%lld", (long long)id);
    struct imx_db_json j;
    enum imx_db_status st = imx_db_exposure_history(c, tid, (unsigned)n, &j, &why);
    imx_api_reply_json_text(r, 200, st, &why, &j, "No such team");
}
