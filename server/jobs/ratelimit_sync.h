/* The thread that reconciles this replica's rate-limit buckets with PostgreSQL every
 * IMAXE_RATE_LIMIT_SYNC_MS (see http/ratelimit.h), so the limit holds across replicas. */
#ifndef IMX_JOBS_RATELIMIT_SYNC_H
#define IMX_JOBS_RATELIMIT_SYNC_H

#include "util/ratelimit_delta.h"

/* Starts it when the limit is on and interval_ms > 0: each round reconciles through reconcile
 * (the limiter's imx_ratelimit_reconcile, passed in by main: jobs sit below http). Returns 0 or
 * -1. */
int imx_ratelimit_sync_start(unsigned limit_per_min, unsigned interval_ms,
                             imx_ratelimit_reconcile_fn reconcile);

/* Stops it (before the pools shut down). */
void imx_ratelimit_sync_stop(void);

#endif
