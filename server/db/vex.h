/* SQL for VEX documents: an image's VEX facts (imx_image_vex_facts, migrations/procedures/vex.sql)
 * and the image a pin points at. */
#ifndef IMX_DB_VEX_H
#define IMX_DB_VEX_H

#include <stdint.h>

#include "db/pool.h"
#include "db/status.h"

/* The facts of image_id as finished JSON text in *out (new: free it); IMX_DBS_NOT_FOUND when no
 * such image. */
enum imx_db_status imx_db_image_vex_facts(struct imx_db_conn *c, const char *image_id, char **out,
                                          struct imx_db_fault *why);

/* The team and image of pin pin_id; IMX_DBS_NOT_FOUND when no such pin. */
enum imx_db_status imx_db_pin_target(struct imx_db_conn *c, const char *pin_id, int64_t *team_id,
                                     int64_t *image_id, struct imx_db_fault *why);

#endif
