/* What the documents about a pin's image share (GET /v1/pins/{id}/vex, GET /v1/pins/{id}/eol):
 * the path's pin, read for a viewer of its team. */
#include <stdint.h>
#include <stdio.h>

#include "api/api.h"
#include "auth/auth.h"
#include "db/vex.h"

struct imx_db_conn *imx_api_pin_image(struct imx_req *r, char pin[24], int64_t *image_id)
{
    unsigned long long id;
    if (imx_parse_uint(imx_req_param(r, "id"), 1, INT64_MAX, &id) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such pin");
        return NULL;
    }
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return NULL;
    snprintf(pin, 24, "%llu", id);
    int64_t team_id;
    enum imx_db_status rc = imx_db_pin_target(c, pin, &team_id, image_id, NULL);
    if (rc == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such pin");
        return NULL;
    }
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return NULL;
    }
    return imx_auth_team_id(r, team_id, IMX_ROLE_VIEWER) ? c : NULL;
}
