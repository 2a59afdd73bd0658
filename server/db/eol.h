/* SQL for end of life ahead (migrations/procedures/eol.sql): an image's end of life, and the
 * announcement of the thresholds pinned images reached. */
#ifndef IMX_DB_EOL_H
#define IMX_DB_EOL_H

#include "db/pool.h"
#include "db/status.h"

/* Runs imx_eol_announce for today (YYYY-MM-DD; NULL: PostgreSQL's current_date) in its own
 * statement; *events: how many image.eol_approaching were staged. */
enum imx_db_status imx_db_eol_announce(struct imx_db_conn *c, const char *today, int *events);

/* GET /v1/images/{id}/eol: {"image_id", "eol": imx_image_eol_json | null} as text in *out (new);
 * IMX_DBS_NOT_FOUND when no such image. */
enum imx_db_status imx_db_image_eol(struct imx_db_conn *c, const char *image_id, char **out,
                                    struct imx_db_fault *why);

/* GET /v1/pins/{id}/eol: {"pin_id", "name", "team", "image_id", "family", "version", "eol":
 * imx_image_eol_json | null} as text in *out (new); IMX_DBS_NOT_FOUND: no such pin. */
enum imx_db_status imx_db_pin_eol(struct imx_db_conn *c, const char *pin_id, char **out,
                                  struct imx_db_fault *why);

#endif
