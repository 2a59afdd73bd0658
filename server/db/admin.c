/* Headless administration's SQL: the procedure calls behind imaxe-server admin. */
#include "db/admin.h"
#include "db/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

IMX_DB_STMT(q_create_user, 7,
            "SELECT user_id, created, team_created, role_changed FROM imx_admin_create_user("
            "$1, $2, $3, $4::boolean, $5::boolean, $6, $7::team_role)");

enum imx_db_status imx_db_admin_create_user(struct imx_db_conn *c,
                                            const struct imx_db_admin_user_in *in,
                                            struct imx_db_admin_user_out *out)
{
    memset(out, 0, sizeof *out);
    const char *p[] = { in->email,
                        in->display_name,
                        in->password_hash,
                        in->global_admin ? "true" : "false",
                        in->reset_password ? "true" : "false",
                        in->team,
                        in->team ? in->role : NULL };
    PGresult *r = imx_db_exec(c, &q_create_user, p);
    enum imx_db_status rc = imx_db_status_of(r);
    if (rc == IMX_DBS_INVALID) {
        const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
        snprintf(out->why, sizeof out->why, "%s", msg ? msg : "a value was refused");
    }
    if (rc == IMX_DBS_OK && PQntuples(r) != 1)
        rc = IMX_DBS_ERROR;
    if (rc == IMX_DBS_OK) {
        out->user_id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        out->created = PQgetvalue(r, 0, 1)[0] == 't';
        out->team_created = PQgetvalue(r, 0, 2)[0] == 't';
        out->role_changed = PQgetvalue(r, 0, 3)[0] == 't';
    }
    PQclear(r);
    return rc;
}
