/* The thread that records exposure over time: every IMAXE_EXPOSURE_CHECK_S (default 3600; 0:
 * never) it runs imx_exposure_snapshot (migrations/procedures/exposure_history.sql) for today,
 * first at start-up, keeping IMAXE_EXPOSURE_HISTORY_DAYS (default 365) days. Today is UTC's
 * date, or IMAXE_EXPOSURE_TODAY (YYYY-MM-DD): the clock a test controls. */
#ifndef IMX_JOBS_EXPOSURE_H
#define IMX_JOBS_EXPOSURE_H

/* Starts it. Returns 0, or -1 when one of its settings is malformed. */
int imx_exposure_job_start(void);

/* Stops it (before the pools shut down). */
void imx_exposure_job_stop(void);

#endif
