/* SQL of the product mapping a CSAF import reads (ref_nvidia_product, migration 0100). */
#include "db/product_map.h"
#include "db/internal.h"

#include <stdlib.h>
#include <string.h>

/* A few dozen rows: read whole on each import rather than cached, so a reference import is seen
 * by the next bulletin on every replica. */
IMX_DB_STMT(q_product_map, 0,
            "SELECT coalesce(json_agg(json_build_object('match', match, 'platform', platform,"
            " 'component', component, 'branched', branched, 'notes', notes)"
            " ORDER BY match, platform), '[]')::text FROM ref_nvidia_product");

enum imx_db_status imx_db_product_map(struct imx_db_conn *c, char **json, struct imx_db_fault *why)
{
    PGresult *res = imx_db_exec(c, &q_product_map, NULL);
    enum imx_db_status rc = imx_db_ok(res) ? IMX_DBS_OK : imx_db_status_of(res);
    *json = rc == IMX_DBS_OK && PQntuples(res) == 1 && !PQgetisnull(res, 0, 0)
                ? strdup(PQgetvalue(res, 0, 0))
                : NULL;
    PQclear(res);
    return imx_db_why(c, rc == IMX_DBS_OK && !*json ? IMX_DBS_ERROR : rc, why);
}
