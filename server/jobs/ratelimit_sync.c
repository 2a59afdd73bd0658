/* One reconciliation per interval on a pooled primary connection, held only for that statement;
 * while PostgreSQL is unreachable each replica goes on spending its last share locally. */
#include "jobs/ratelimit_sync.h"

#include <openssl/rand.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "db/pool.h"
#include "db/ratelimit.h"
#include "util/log.h"

/* Prune once in this many reconciliations. */
#define PRUNE_EVERY 60

static pthread_t thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static bool running, stopping;
static unsigned interval, limit;
static imx_ratelimit_reconcile_fn reconcile_fn;
static char replica[40];

static void *sync_main(void *arg)
{
    (void)arg;
    struct imx_db_ratelimit x = {
        .replica = replica,
        .limit = limit,
        /* Three missed heartbeats, and never under 3 s, before a replica stops counting. */
        .heartbeat_ms = interval * 3 > 3000 ? interval * 3 : 3000,
        .interval_ms = interval,
    };
    unsigned long rounds = 0;
    time_t last_warn = 0;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        pthread_mutex_unlock(&lock);
        enum imx_db_failure why;
        struct imx_db_conn *c = imx_db_acquire(&why);
        int rc = -1;
        if (c) {
            x.c = c;
            rc = reconcile_fn(imx_db_ratelimit_exchange, &x);
            if (rc == 0 && ++rounds % PRUNE_EVERY == 0)
                (void)imx_db_ratelimit_prune(c);
            imx_db_release(c);
        }
        if (rc != 0 && time(NULL) - last_warn >= 60) {
            last_warn = time(NULL);
            imx_warn("rate limit: cannot reconcile with PostgreSQL; each replica spends its last "
                     "share alone meanwhile");
        }
        pthread_mutex_lock(&lock);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += interval / 1000;
        until.tv_nsec += (long)(interval % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (!stopping)
            pthread_cond_timedwait(&wake, &lock, &until);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

int imx_ratelimit_sync_start(unsigned limit_per_min, unsigned interval_ms,
                             imx_ratelimit_reconcile_fn reconcile)
{
    if (limit_per_min == 0 || interval_ms == 0)
        return 0;
    reconcile_fn = reconcile;
    limit = limit_per_min;
    interval = interval_ms;
    unsigned char rnd[16];
    if (RAND_bytes(rnd, sizeof rnd) != 1)
        return -1;
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(replica + 2 * i, 3, "%02x", rnd[i]);
    stopping = false;
    if (pthread_create(&thread, NULL, sync_main, NULL) != 0)
        return -1;
    running = true;
    return 0;
}

void imx_ratelimit_sync_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    stopping = true;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);
    running = false;
}
