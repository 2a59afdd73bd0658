/* SQL for end of life ahead (see eol.h). */
#include "db/eol.h"
#include "db/internal.h"

#include <stdlib.h>
#include <string.h>

IMX_DB_STMT(q_announce, 1, "SELECT imx_eol_announce(coalesce($1::date, current_date))");
IMX_DB_STMT(q_image, 1,
            "SELECT json_build_object('image_id', i.id, 'family', i.family, 'version', i.version,"
            " 'eol', imx_image_eol_json(i.id))::text FROM images i WHERE i.id = $1::bigint");
IMX_DB_STMT(q_pin, 1,
            "SELECT json_build_object('pin_id', p.id, 'team', t.slug, 'name', p.name,"
            " 'image_id', i.id, 'family', i.family, 'version', i.version,"
            " 'eol', imx_image_eol_json(i.id))::text FROM pins p JOIN teams t ON t.id = p.team_id"
            " JOIN images i ON i.id = p.image_id WHERE p.id = $1::bigint");

/* One row of one JSON text into *out (new); none: IMX_DBS_NOT_FOUND. */
static enum imx_db_status one_doc(struct imx_db_conn *c, struct imx_db_stmt *q, const char *id,
                                  char **out)
{
    *out = NULL;
    const char *p[] = { id };
    PGresult *res = imx_db_exec(c, q, p);
    enum imx_db_status rc = imx_db_status_of(res);
    if (rc == IMX_DBS_OK && PQntuples(res) != 1)
        rc = IMX_DBS_NOT_FOUND;
    if (rc == IMX_DBS_OK && !(*out = strdup(PQgetvalue(res, 0, 0))))
        rc = IMX_DBS_ERROR;
    PQclear(res);
    return rc;
}

enum imx_db_status imx_db_eol_announce(struct imx_db_conn *c, const char *today, int *events)
{
    const char *p[] = { today };
    PGresult *res = imx_db_exec(c, &q_announce, p);
    enum imx_db_status rc = imx_db_status_of(res);
    *events = rc == IMX_DBS_OK && PQntuples(res) == 1 ? atoi(PQgetvalue(res, 0, 0)) : 0;
    PQclear(res);
    return rc;
}

enum imx_db_status imx_db_image_eol(struct imx_db_conn *c, const char *image_id, char **out,
                                    struct imx_db_fault *why)
{
    return imx_db_why(c, one_doc(c, &q_image, image_id, out), why);
}

enum imx_db_status imx_db_pin_eol(struct imx_db_conn *c, const char *pin_id, char **out,
                                  struct imx_db_fault *why)
{
    return imx_db_why(c, one_doc(c, &q_pin, pin_id, out), why);
}
