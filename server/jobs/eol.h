/* The thread that announces end of life ahead: every IMAXE_EOL_CHECK_S (default 3600; 0: never)
 * it runs imx_eol_announce (migrations/procedures/eol.sql) for today's date, which
 * IMAXE_EOL_TODAY (YYYY-MM-DD) replaces: the clock a test controls. */
#ifndef IMX_JOBS_EOL_H
#define IMX_JOBS_EOL_H

/* Starts it. Returns 0, or -1 when IMAXE_EOL_CHECK_S or IMAXE_EOL_TODAY is malformed. */
int imx_eol_job_start(void);

/* Stops it (before the pools shut down). */
void imx_eol_job_stop(void);

#endif
