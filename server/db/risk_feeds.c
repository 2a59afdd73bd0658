/* SQL for the exploitation feeds (see risk_feeds.h). */
#include "db/risk_feeds.h"
#include "db/internal.h"

#include <stdlib.h>
#include <string.h>

IMX_DB_STMT(q_kev_import, 2, "SELECT imx_kev_import($1::jsonb, $2::bigint)::text");
IMX_DB_STMT(q_epss_import, 6,
            "SELECT imx_epss_import($1::text, $2::date, $3::text[], $4::numeric[],"
            " $5::numeric[], $6::bigint)::text");
IMX_DB_STMT(q_feeds, 0, "SELECT imx_risk_feeds_json()::text");
/* A day of EPSS is 300,000 rows: minutes of headroom rather than the pool's request limit, for
 * the rest of the caller's transaction only. */
IMX_DB_STMT(q_timeout, 0, "SELECT set_config('statement_timeout', '300000', true)");

/* Runs stmt, expecting one row of one text column, copied into *out. */
static enum imx_db_status one_text(struct imx_db_conn *c, struct imx_db_stmt *stmt,
                                   const char *const *p, bool long_running, char **out)
{
    *out = NULL;
    if (long_running) {
        PGresult *t = imx_db_exec(c, &q_timeout, NULL);
        enum imx_db_status rc = imx_db_status_of(t);
        PQclear(t);
        if (rc != IMX_DBS_OK)
            return rc;
    }
    PGresult *res = imx_db_exec(c, stmt, p);
    enum imx_db_status rc = imx_db_status_of(res);
    if (rc == IMX_DBS_OK && (PQntuples(res) != 1 || PQgetisnull(res, 0, 0)))
        rc = IMX_DBS_ERROR;
    if (rc == IMX_DBS_OK && !(*out = strdup(PQgetvalue(res, 0, 0))))
        rc = IMX_DBS_ERROR;
    PQclear(res);
    return rc;
}

enum imx_db_status imx_db_kev_import(struct imx_db_conn *c, const char *doc, const char *user_id,
                                     char **out, struct imx_db_fault *why)
{
    const char *p[] = { doc, user_id };
    return imx_db_why(c, one_text(c, &q_kev_import, p, true, out), why);
}

enum imx_db_status imx_db_epss_import(struct imx_db_conn *c, const char *model,
                                      const char *score_date, const char *cves, const char *scores,
                                      const char *percentiles, const char *user_id, char **out,
                                      struct imx_db_fault *why)
{
    const char *p[] = { model, score_date, cves, scores, percentiles, user_id };
    return imx_db_why(c, one_text(c, &q_epss_import, p, true, out), why);
}

enum imx_db_status imx_db_risk_feeds(struct imx_db_conn *c, char **out, struct imx_db_fault *why)
{
    return imx_db_why(c, one_text(c, &q_feeds, NULL, false, out), why);
}
