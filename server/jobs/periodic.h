/* A named job that runs every interval on its own thread, on a pooled primary connection held
 * only for its run: the loop jobs/eol.c, jobs/exposure.c, jobs/ratelimit_sync.c and
 * jobs/revocations.c share (start, wait until due or stopped, run, report a failure at most every
 * ten minutes or as the job asks, stop cleanly). */
#ifndef IMX_JOBS_PERIODIC_H
#define IMX_JOBS_PERIODIC_H

#include <pthread.h>
#include <stdbool.h>

#include "db/status.h"

struct imx_db_conn;

/* One run on c (borrowed, released after it returns): the job logs what it did; the loop logs
 * a status other than IMX_DBS_OK, and runs it again next interval either way. */
typedef enum imx_db_status (*imx_periodic_run_fn)(struct imx_db_conn *c, void *arg);

struct imx_periodic {
    /* Set by the caller before imx_periodic_start. */
    const char *name;    /* how the log names it: "end of life" */
    const char *failing; /* what a failed run could not do: "announce" */
    unsigned interval_ms;
    unsigned warn_every_s; /* how often a failing run is logged at most; 0: every ten minutes */
    imx_periodic_run_fn run;
    void *arg;
    /* The loop's own. */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool running, stopping;
};

/* Runs p->run once now, then every p->interval_ms until imx_periodic_stop; an interval of 0
 * starts nothing. Returns 0, or -1 when the thread cannot start. */
int imx_periodic_start(struct imx_periodic *p);

/* Stops it, waiting for a run in progress to finish (before the pools shut down); a job never
 * started, or already stopped, is left as it is. */
void imx_periodic_stop(struct imx_periodic *p);

#endif
