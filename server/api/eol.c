/* End of life ahead: GET /v1/images/{id}/eol and GET /v1/pins/{id}/eol (the pinned image's),
 * when the stack stops being supported according to the knowledge tables, and what reaches it
 * first (migrations/procedures/eol.sql); and the eol_before filters' date check. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "db/eol.h"
#include "api/images_internal.h"
#include "util/config.h"

void imx_api_image_eol(struct imx_req *r)
{
    long long id = imx_img_path_id(r);
    struct imx_db_conn *c = id ? imx_api_db_read(r) : NULL;
    if (!c)
        return;
    char ids[24], *out;
    snprintf(ids, sizeof ids, "%lld", id);
    enum imx_db_status rc = imx_db_image_eol(c, ids, &out, NULL);
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

void imx_api_pin_eol(struct imx_req *r)
{
    char pin[24], *out;
    int64_t image_id;
    struct imx_db_conn *c = imx_api_pin_image(r, pin, &image_id);
    if (!c)
        return;
    enum imx_db_status rc = imx_db_pin_eol(c, pin, &out, NULL);
    if (rc == IMX_DBS_NOT_FOUND) { /* deleted meanwhile */
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such pin");
        return;
    }
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return;
    }
    imx_reply_raw_steal(r, 200, "application/json", out, strlen(out), NULL, NULL);
}

bool imx_api_eol_date_ok(const char *s)
{
    static const int days[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (!s || strlen(s) != 10 || s[4] != '-' || s[7] != '-')
        return false;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
            return false;
    int y = atoi(s), m = atoi(s + 5), d = atoi(s + 8);
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= days[m - 1] && (m != 2 || d < 29 || leap);
}
