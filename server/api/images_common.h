/* What the catalog's handlers (images.c, compare.c) share. */
#ifndef IMX_API_IMAGES_COMMON_H
#define IMX_API_IMAGES_COMMON_H

#include "db/images.h"
#include "http/request.h"

/* Replies with the problem for a failed catalog call: 404, 409, 400, 503 with Retry-After, else
 * 500 (the server log has details). */
void imx_api_images_reply_rc(struct imx_req *r, enum imx_db_images_rc rc);

#endif
