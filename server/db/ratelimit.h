/* SQL for the shared rate-limit buckets (migrations/0041): one statement exchanges a replica's
 * takings for the buckets' new contents and records its heartbeat; another prunes. */
#ifndef IMX_DB_RATELIMIT_H
#define IMX_DB_RATELIMIT_H

#include "db/pool.h"
#include "util/ratelimit_delta.h"

/* imx_ratelimit_exchange_fn over c (borrowed): replica names this process (at most 64 bytes);
 * heartbeat_ms is how recent another replica's heartbeat must be to count it; interval_ms is how
 * often this replica reconciles. */
struct imx_db_ratelimit {
    struct imx_db_conn *c;
    const char *replica;
    unsigned limit;
    unsigned heartbeat_ms;
    unsigned interval_ms;
};
int imx_db_ratelimit_exchange(void *cls, struct imx_ratelimit_delta *d, size_t n,
                              unsigned *replicas);

/* Forgets buckets idle five minutes (full again by then) and replicas silent an hour, at most
 * 10,000 of each: IMX_DBS_OK, or the failure. */
enum imx_db_status imx_db_ratelimit_prune(struct imx_db_conn *c);

#endif
