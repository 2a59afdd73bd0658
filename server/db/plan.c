/* SQL for the upgrade planner: one statement for an image's plan facts, one for a pin's. */
#include "db/plan.h"
#include "db/internal.h"

#include <stdlib.h>
#include <string.h>

IMX_DB_STMT(q_image, 4, "SELECT imx_plan_facts($1::bigint, NULL, $2::bigint, $3::bigint, $4::int)");
IMX_DB_STMT(q_pin, 4, "SELECT imx_plan_pin_facts($1::bigint, $2::bigint, $3::bigint, $4::int)");

enum imx_db_status imx_db_plan_facts(struct imx_db_conn *c, const char *image_id,
                                     const char *pin_id, const char *user_id,
                                     const char *token_team, const char *limit, char **facts,
                                     struct imx_db_fault *why)
{
    const char *p[] = { image_id ? image_id : pin_id, user_id, token_team, limit };
    PGresult *r = imx_db_exec(c, image_id ? &q_image : &q_pin, p);
    enum imx_db_status rc = imx_db_status_of(r);
    *facts = NULL;
    if (rc == IMX_DBS_OK && (PQntuples(r) != 1 || PQgetisnull(r, 0, 0)))
        rc = IMX_DBS_NOT_FOUND;
    if (rc == IMX_DBS_OK && !(*facts = strdup(PQgetvalue(r, 0, 0))))
        rc = IMX_DBS_ERROR;
    PQclear(r);
    return imx_db_why(c, rc, why);
}
