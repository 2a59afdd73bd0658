/* The ctest fixture pg.template: database imx_template as a first server start leaves it
 * (migrated, the first admin made), which imx_t_server_up copies for each test instead of
 * migrating a fresh database and hashing the admin's password every time. Made anew each run,
 * so it always holds the migrations of this checkout. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    char admin[1024];
    snprintf(admin, sizeof admin, "%s", imx_t_pg_conninfo("postgres"));
    free(imx_t_sql(admin, "DROP DATABASE IF EXISTS " IMX_T_TEMPLATE_DB));
    free(imx_t_sql(admin, "DROP DATABASE IF EXISTS " IMX_T_TEMPLATE_DB "_new"));
    char *ok = imx_t_sql(admin, "CREATE DATABASE " IMX_T_TEMPLATE_DB "_new");
    if (!ok) {
        fprintf(stderr, "make_template: cannot create the database\n");
        return 1;
    }
    free(ok);
    char db[1024];
    snprintf(db, sizeof db, "%s", imx_t_pg_conninfo(IMX_T_TEMPLATE_DB "_new"));
    struct imx_srv s;
    if (imx_t_server_start(&s, db, NULL) != 0)
        return 1;
    if (imx_t_server_stop(&s, SIGTERM, 30) != 0) {
        fprintf(stderr, "make_template: the server did not stop; log %s\n", s.log_path);
        return 1;
    }
    /* The stopped server's row: a test counts the replicas that share its rate limits. */
    free(imx_t_sql(db, "DELETE FROM rate_limit_replicas"));
    /* Only a whole template gets the name the tests look for. */
    ok = imx_t_sql(admin, "ALTER DATABASE " IMX_T_TEMPLATE_DB "_new RENAME TO " IMX_T_TEMPLATE_DB);
    if (!ok) {
        fprintf(stderr, "make_template: cannot rename the template\n");
        return 1;
    }
    free(ok);
    printf("template database %s made (server log %s)\n", IMX_T_TEMPLATE_DB, s.log_path);
    return 0;
}
