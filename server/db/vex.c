/* SQL for VEX documents (see vex.h). */
#include "db/vex.h"
#include "db/internal.h"

#include <stdlib.h>
#include <string.h>

IMX_DB_STMT(q_facts, 1, "SELECT imx_image_vex_facts($1::bigint)::text");
IMX_DB_STMT(q_pin, 1, "SELECT team_id, image_id FROM pins WHERE id = $1::bigint");

enum imx_db_status imx_db_image_vex_facts(struct imx_db_conn *c, const char *image_id, char **out,
                                          struct imx_db_fault *why)
{
    *out = NULL;
    const char *p[] = { image_id };
    PGresult *res = imx_db_exec(c, &q_facts, p);
    enum imx_db_status rc = imx_db_status_of(res);
    if (rc == IMX_DBS_OK && (PQntuples(res) != 1 || PQgetisnull(res, 0, 0)))
        rc = IMX_DBS_NOT_FOUND;
    if (rc == IMX_DBS_OK && !(*out = strdup(PQgetvalue(res, 0, 0))))
        rc = IMX_DBS_ERROR;
    PQclear(res);
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_pin_target(struct imx_db_conn *c, const char *pin_id, int64_t *team_id,
                                     int64_t *image_id, struct imx_db_fault *why)
{
    const char *p[] = { pin_id };
    PGresult *res = imx_db_exec(c, &q_pin, p);
    enum imx_db_status rc = imx_db_status_of(res);
    if (rc == IMX_DBS_OK && PQntuples(res) != 1)
        rc = IMX_DBS_NOT_FOUND;
    if (rc == IMX_DBS_OK) {
        *team_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        *image_id = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    }
    PQclear(res);
    return imx_db_why(c, rc, why);
}
