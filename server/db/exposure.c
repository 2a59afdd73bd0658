/* SQL for exposure over time (see exposure.h). */
#include "db/exposure.h"
#include "db/internal.h"

#include <stdio.h>
#include <stdlib.h>

IMX_DB_STMT(q_snapshot, 2,
            "SELECT imx_exposure_snapshot(coalesce($1::date, current_date), $2::int)");
IMX_DB_STMT(q_history, 2, "SELECT imx_exposure_history($1::bigint, $2::int)");

enum imx_db_status imx_db_exposure_snapshot(struct imx_db_conn *c, const char *day,
                                            unsigned keep_days, int *rows)
{
    char keep[16];
    snprintf(keep, sizeof keep, "%u", keep_days);
    const char *p[] = { day, keep };
    PGresult *res = imx_db_exec(c, &q_snapshot, p);
    enum imx_db_status rc = imx_db_status_of(res);
    *rows = rc == IMX_DBS_OK && PQntuples(res) == 1 ? atoi(PQgetvalue(res, 0, 0)) : 0;
    PQclear(res);
    return rc;
}

enum imx_db_status imx_db_exposure_history(struct imx_db_conn *c, const char *team_id,
                                           unsigned days, struct imx_db_json *out,
                                           struct imx_db_fault *why)
{
    char n[16];
    snprintf(n, sizeof n, "%u", days);
    const char *p[] = { team_id, n };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_history, p), 0, out), why);
}
