/* One announcement per interval (jobs/periodic.h runs it on a pooled primary connection, held
 * only for its statement). */
#include "jobs/eol.h"

#include <stdio.h>

#include "db/eol.h"
#include "jobs/periodic.h"
#include "util/config.h"
#include "util/log.h"

static char today[11]; /* "" : PostgreSQL's current_date */

static enum imx_db_status eol_run(struct imx_db_conn *c, void *arg)
{
    (void)arg;
    int events = -1;
    enum imx_db_status rc = imx_db_eol_announce(c, today[0] ? today : NULL, &events);
    if (rc == IMX_DBS_OK && events > 0)
        imx_info("end of life: %d image.eol_approaching events", events);
    return rc;
}

static struct imx_periodic job = { .name = "end of life", .failing = "announce", .run = eol_run };

int imx_eol_job_start(const struct imx_config *cfg)
{
    snprintf(today, sizeof today, "%s", cfg->eol_today);
    job.interval_ms = (unsigned)cfg->eol_check_s * 1000u;
    return imx_periodic_start(&job);
}

void imx_eol_job_stop(void)
{
    imx_periodic_stop(&job);
}
