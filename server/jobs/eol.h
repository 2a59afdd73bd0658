/* The thread that announces end of life ahead: every IMAXE_EOL_CHECK_S (default 3600; 0: never)
 * it runs imx_eol_announce (migrations/procedures/eol.sql) for today's date, which
 * IMAXE_EOL_TODAY (YYYY-MM-DD) replaces: the clock a test controls. */
#ifndef IMX_JOBS_EOL_H
#define IMX_JOBS_EOL_H

struct imx_config;

/* Starts it with cfg's eol_check_s and eol_today (util/config.c checks them). Returns 0, or -1
 * when the thread cannot start. */
int imx_eol_job_start(const struct imx_config *cfg);

/* Stops it (before the pools shut down). */
void imx_eol_job_stop(void);

#endif
