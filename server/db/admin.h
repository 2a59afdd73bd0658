/* Headless administration's SQL (imaxe-server admin ...): one procedure per use case. */
#ifndef IMX_DB_ADMIN_H
#define IMX_DB_ADMIN_H

#include <stdbool.h>

#include "db/pool.h"
#include "db/status.h"

struct imx_db_admin_user_in {
    const char *email;
    const char *display_name;  /* NULL: keep (or '' for a new user) */
    const char *password_hash; /* libsodium's string; used for a new user or with reset */
    bool global_admin;         /* set the flag (never cleared here) */
    bool reset_password;
    const char *team; /* NULL: no membership change */
    const char *role; /* viewer | member | publisher | admin, with team */
};

struct imx_db_admin_user_out {
    long long user_id;
    bool created, team_created, role_changed;
    char why[256]; /* with INVALID: PostgreSQL's message (a refused value), never SQL */
};

/* migrations/procedures/admin_users.sql's imx_admin_create_user, in its own transaction.
 * INVALID: a value the schema refuses (email, slug). */
enum imx_db_status imx_db_admin_create_user(struct imx_db_conn *c,
                                            const struct imx_db_admin_user_in *in,
                                            struct imx_db_admin_user_out *out);

#endif
