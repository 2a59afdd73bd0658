/* SQL for the upgrade planner (migrations/procedures/plan.sql): the facts a plan is made of, as
 * JSON text built by PostgreSQL; the plan itself is server/domain/plan.c's. */
#ifndef IMX_DB_PLAN_H
#define IMX_DB_PLAN_H

#include "db/pool.h"
#include "db/status.h"

/* The facts for planning image image_id (pin_id NULL) or pin pin_id (image_id NULL; only when
 * the caller's teams hold it): IMX_DBS_OK with *facts (new string), or IMX_DBS_NOT_FOUND. ids
 * and limit are decimal text; token_team NULL unless an API token. */
enum imx_db_status imx_db_plan_facts(struct imx_db_conn *c, const char *image_id,
                                     const char *pin_id, const char *user_id,
                                     const char *token_team, const char *limit, char **facts,
                                     struct imx_db_fault *why);

#endif
