/* One sweep per interval (jobs/periodic.h runs it on a pooled primary connection, held only for
 * its statement; jobs/revocations.h). A sweep that fails loses nothing: revoke_at stays until a
 * sweep applies it. */
#include "jobs/revocations.h"

#include "db/images.h"
#include "jobs/periodic.h"
#include "util/log.h"

static enum imx_db_status revocations_run(struct imx_db_conn *c, void *arg)
{
    (void)arg;
    int applied = 0;
    enum imx_db_status rc = imx_db_image_apply_due_revocations(c, &applied);
    if (rc == IMX_DBS_OK && applied > 0)
        imx_info("applied %d scheduled image revocation%s", applied, applied == 1 ? "" : "s");
    return rc;
}

static struct imx_periodic job = { .name = "scheduled revocations",
                                   .failing = "apply",
                                   .run = revocations_run };

int imx_revocation_job_start(unsigned interval_ms)
{
    job.interval_ms = interval_ms;
    return imx_periodic_start(&job);
}

void imx_revocation_job_stop(void)
{
    imx_periodic_stop(&job);
}
