/* SQL for the administration of people and teams (GET/PATCH /v1/users, PATCH /v1/teams/{slug}):
 * a global admin lists users, changes a user's name, admin flag and disabled state, and renames
 * a team. Every function runs one prepared statement; string arguments are borrowed, NULL is SQL
 * NULL (for a change: keep the value). */
#ifndef IMX_DB_USERS_H
#define IMX_DB_USERS_H

#include "db/pool.h"
#include "db/status.h"

/* -> one page of (id, user JSON with disabled_at and teams) rows, newest first, older than
 * before_id (NULL: the newest), whose email contains q (NULL: any), at most limit + 1. */
enum imx_db_status imx_db_user_list(struct imx_db_conn *c, const char *before_id, const char *q,
                                    const char *limit, struct imx_db_page *out,
                                    struct imx_db_fault *why);

/* What a user change sets; NULL keeps the field. */
struct imx_db_user_change {
    const char *display_name;
    const char *admin;    /* "true" | "false" */
    const char *disabled; /* "true" disables (keeping the first time), "false" enables */
};

/* Changes the user with this id -> the user's JSON as imx_db_user_list's; IMX_DBS_NOT_FOUND:
 * none. Disabling or a changed admin flag moves the auth epoch (a trigger), so every token and
 * sign-in of the user is checked again on its next request. */
enum imx_db_status imx_db_user_change(struct imx_db_conn *c, const char *id,
                                      const struct imx_db_user_change *ch, struct imx_db_json *out,
                                      struct imx_db_fault *why);

/* Changes the team with this slug: its name (NULL: kept) and whether it is disabled ("true",
 * "false", NULL: kept) -> team JSON; IMX_DBS_NOT_FOUND: none. */
enum imx_db_status imx_db_team_change(struct imx_db_conn *c, const char *slug, const char *name,
                                      const char *disabled, struct imx_db_json *out,
                                      struct imx_db_fault *why);

#endif
