/* What the rate limiter (http/ratelimit.c) and its shared store (db/ratelimit.c) exchange, in the
 * lowest layer so that neither includes the other. */
#ifndef IMX_UTIL_RATELIMIT_DELTA_H
#define IMX_UTIL_RATELIMIT_DELTA_H

#include <stddef.h>
#include <stdint.h>

/* One caller's bucket in a reconciliation: what this replica took since the last one, and what
 * the shared bucket holds after taking it (may be negative: debt). */
struct imx_ratelimit_delta {
    uint64_t key;
    unsigned taken;
    double tokens; /* set by the exchange */
};

/* Adds each delta's taken to the shared bucket (refilled to now first) and sets its tokens to
 * what the bucket holds after; *replicas is the number of live replicas, this one included.
 * Returns 0, or -1 when the store could not be reached (nothing was added). */
typedef int (*imx_ratelimit_exchange_fn)(void *cls, struct imx_ratelimit_delta *d, size_t n,
                                         unsigned *replicas);

/* Reconciles the limiter with the shared store through fn (imx_ratelimit_reconcile). */
typedef int (*imx_ratelimit_reconcile_fn)(imx_ratelimit_exchange_fn fn, void *cls);

#endif
