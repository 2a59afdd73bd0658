/* SQL for exposure over time (migrations/procedures/exposure_history.sql): the daily snapshot of
 * every team's exposure and a team's history of them. */
#ifndef IMX_DB_EXPOSURE_H
#define IMX_DB_EXPOSURE_H

#include "db/pool.h"
#include "db/status.h"

/* Runs imx_exposure_snapshot for day (YYYY-MM-DD; NULL: PostgreSQL's current_date), keeping
 * keep_days days before it; *rows: how many team rows were written. */
enum imx_db_status imx_db_exposure_snapshot(struct imx_db_conn *c, const char *day,
                                            unsigned keep_days, int *rows);

/* GET /v1/teams/{slug}/exposure/history: team team_id's last days days (back from its newest
 * row) as JSON text {"team", "days": [...]} in *out (IMX_DBS_NOT_FOUND: no team). */
enum imx_db_status imx_db_exposure_history(struct imx_db_conn *c, const char *team_id,
                                           unsigned days, struct imx_db_json *out,
                                           struct imx_db_fault *why);

#endif
