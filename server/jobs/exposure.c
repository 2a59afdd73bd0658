/* One snapshot per interval (jobs/periodic.h runs it on a pooled primary connection, held only
 * for its statement). A run the same day replaces that day's rows, so hourly runs keep one row
 * per team and day. */
#include "jobs/exposure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/exposure.h"
#include "jobs/periodic.h"
#include "util/config.h"
#include "util/log.h"

static unsigned keep_days;
static char today[11]; /* "" : PostgreSQL's current_date */

static enum imx_db_status exposure_run(struct imx_db_conn *c, void *arg)
{
    (void)arg;
    int rows = 0;
    return imx_db_exposure_snapshot(c, today[0] ? today : NULL, keep_days, &rows);
}

static struct imx_periodic job = { .name = "exposure history",
                                   .failing = "take the snapshot",
                                   .run = exposure_run };

int imx_exposure_job_start(void)
{
    const char *every = getenv("IMAXE_EXPOSURE_CHECK_S");
    unsigned long long v = 3600, keep = 365;
    if (every && *every && imx_parse_uint(every, 0, 86400, &v) != 0) {
        imx_error("IMAXE_EXPOSURE_CHECK_S must be a whole number from 0 to 86400 (got '%.40s')",
                  every);
        return -1;
    }
    const char *k = getenv("IMAXE_EXPOSURE_HISTORY_DAYS");
    if (k && *k && imx_parse_uint(k, 1, 3650, &keep) != 0) {
        imx_error("IMAXE_EXPOSURE_HISTORY_DAYS must be a whole number from 1 to 3650 (got '%.40s')",
                  k);
        return -1;
    }
    const char *t = getenv("IMAXE_EXPOSURE_TODAY");
    if (t && *t) {
        if (strlen(t) != 10 || t[4] != '-' || t[7] != '-' || strspn(t, "0123456789-") != 10) {
            imx_error("IMAXE_EXPOSURE_TODAY must be YYYY-MM-DD (got '%.40s')", t);
            return -1;
        }
        snprintf(today, sizeof today, "%s", t);
    }
    keep_days = (unsigned)keep;
    job.interval_ms = (unsigned)v * 1000u;
    return imx_periodic_start(&job);
}

void imx_exposure_job_stop(void)
{
    imx_periodic_stop(&job);
}
