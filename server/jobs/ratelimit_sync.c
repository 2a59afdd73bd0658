/* One reconciliation per interval (jobs/periodic.h runs it on a pooled primary connection, held
 * only for that statement); while PostgreSQL is unreachable each replica goes on spending its
 * last share locally. */
#include "jobs/ratelimit_sync.h"

#include <openssl/rand.h>
#include <stdio.h>

#include "db/ratelimit.h"
#include "jobs/periodic.h"

/* Prune once in this many reconciliations. */
#define PRUNE_EVERY 60

static struct {
    imx_ratelimit_reconcile_fn reconcile;
    struct imx_db_ratelimit x;
    char replica[40];
    unsigned long rounds;
} sync_state;

static enum imx_db_status sync_run(struct imx_db_conn *c, void *arg)
{
    (void)arg;
    sync_state.x.c = c;
    if (sync_state.reconcile(imx_db_ratelimit_exchange, &sync_state.x) != 0)
        return IMX_DBS_ERROR;
    if (++sync_state.rounds % PRUNE_EVERY == 0)
        (void)imx_db_ratelimit_prune(c);
    return IMX_DBS_OK;
}

/* A limit that drifts apart between replicas is worth a word every minute, not ten. */
static struct imx_periodic job = {
    .name = "rate limit",
    .failing = "reconcile with PostgreSQL, each replica spending its last share alone meanwhile",
    .warn_every_s = 60,
    .run = sync_run,
};

int imx_ratelimit_sync_start(unsigned limit_per_min, unsigned interval_ms,
                             imx_ratelimit_reconcile_fn reconcile)
{
    if (limit_per_min == 0 || interval_ms == 0)
        return 0;
    unsigned char rnd[16];
    if (RAND_bytes(rnd, sizeof rnd) != 1)
        return -1;
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(sync_state.replica + 2 * i, 3, "%02x", rnd[i]);
    sync_state.reconcile = reconcile;
    sync_state.rounds = 0;
    sync_state.x = (struct imx_db_ratelimit){
        .replica = sync_state.replica,
        .limit = limit_per_min,
        /* Three missed heartbeats, and never under 3 s, before a replica stops counting. */
        .heartbeat_ms = interval_ms * 3 > 3000 ? interval_ms * 3 : 3000,
        .interval_ms = interval_ms,
    };
    job.interval_ms = interval_ms;
    return imx_periodic_start(&job);
}

void imx_ratelimit_sync_stop(void)
{
    imx_periodic_stop(&job);
}
