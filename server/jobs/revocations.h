/* The thread that makes due scheduled revocations real: every interval it runs
 * imx_apply_due_revocations (migrations/procedures/image_status.sql) through
 * imx_db_image_apply_due_revocations, so an image whose revoke_at has passed is stored as revoked
 * (with its events and patch status) as after a PATCH to revoked. Reads answer revoked from
 * revoke_at alone before then; this sweep makes the stored row follow. */
#ifndef IMX_JOBS_REVOCATIONS_H
#define IMX_JOBS_REVOCATIONS_H

/* Starts it, sweeping every interval_ms (0: never). Returns 0, or -1 when the thread cannot
 * start. */
int imx_revocation_job_start(unsigned interval_ms);

/* Stops it (before the pools shut down). */
void imx_revocation_job_stop(void);

#endif
