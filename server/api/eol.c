/* End of life ahead: GET /v1/images/{id}/eol, when the image's stack stops being supported
 * according to the knowledge tables, and what reaches it first (migrations/procedures/eol.sql). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "db/eol.h"
#include "util/config.h"

void imx_api_image_eol(struct imx_req *r)
{
    unsigned long long id;
    if (imx_parse_uint(imx_req_param(r, "id"), 1, INT64_MAX, &id) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        return;
    }
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    char ids[24], *out;
    snprintf(ids, sizeof ids, "%llu", id);
    enum imx_db_status rc = imx_db_image_eol(c, ids, &out);
    if (rc == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        return;
    }
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return;
    }
    imx_reply_raw_steal(r, 200, "application/json", out, strlen(out), NULL, NULL);
}
