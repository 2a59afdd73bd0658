/* SQL for the exploitation feeds: importing CISA's KEV catalog and FIRST's EPSS scores (the use
 * cases of migrations/procedures/risk_feeds.sql, one wrapper each) and the feeds in use. Each
 * gives finished JSON text built by PostgreSQL in *out (new: free it); arguments are borrowed. */
#ifndef IMX_DB_RISK_FEEDS_H
#define IMX_DB_RISK_FEEDS_H

#include "db/pool.h"
#include "db/status.h"

/* Imports doc (imx_kev_read's document, JSON text) as user_id, in the caller's transaction,
 * with the advisory statement limit. *out: {"outcome": "imported" | "unchanged" | "stale" |
 * "invalid", ...} (imx_kev_import). */
enum imx_db_status imx_db_kev_import(struct imx_db_conn *c, const char *doc, const char *user_id,
                                     char **out, struct imx_db_fault *why);

/* Imports one day of EPSS scores (PostgreSQL array literals of the same length). *out:
 * {"outcome": "imported" | "unchanged" | "stale" | "invalid", ...} (imx_epss_import). */
enum imx_db_status imx_db_epss_import(struct imx_db_conn *c, const char *model,
                                      const char *score_date, const char *cves, const char *scores,
                                      const char *percentiles, const char *user_id, char **out,
                                      struct imx_db_fault *why);

/* {"kev": {...} | null, "epss": {...} | null}: the snapshots in use. */
enum imx_db_status imx_db_risk_feeds(struct imx_db_conn *c, char **out, struct imx_db_fault *why);

#endif
