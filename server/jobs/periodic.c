/* The loop behind every periodic job (jobs/periodic.h). The wait is on CLOCK_MONOTONIC so that a
 * wall clock stepped back cannot stall a job, and a stop wakes it at once. */
#include "jobs/periodic.h"

#include <time.h>

#include "db/pool.h"
#include "util/log.h"

/* A database that stays down is reported at most this often unless the job says otherwise: each
 * run loses nothing by failing (what it would do is still due next interval). */
#define WARN_EVERY_S 600

static void *periodic_main(void *arg)
{
    struct imx_periodic *p = arg;
    time_t last_warn = 0;
    pthread_mutex_lock(&p->lock);
    while (!p->stopping) {
        pthread_mutex_unlock(&p->lock);
        enum imx_db_status why;
        struct imx_db_conn *c = imx_db_acquire(&why);
        enum imx_db_status rc = c ? p->run(c, p->arg) : IMX_DBS_UNAVAILABLE;
        if (c)
            imx_db_release(c);
        if (rc != IMX_DBS_OK &&
            time(NULL) - last_warn >= (p->warn_every_s ? p->warn_every_s : WARN_EVERY_S)) {
            last_warn = time(NULL);
            bool whole_s = p->interval_ms % 1000 == 0;
            imx_warn("%s: cannot %s (%s); trying again in %u%s", p->name, p->failing,
                     imx_db_status_name(rc), whole_s ? p->interval_ms / 1000 : p->interval_ms,
                     whole_s ? "s" : "ms");
        }
        pthread_mutex_lock(&p->lock);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += p->interval_ms / 1000;
        until.tv_nsec += (long)(p->interval_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        /* A wake-up without a stop (spurious) waits on for the rest of the interval. */
        while (!p->stopping && pthread_cond_timedwait(&p->wake, &p->lock, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int imx_periodic_start(struct imx_periodic *p)
{
    p->running = false;
    if (p->interval_ms == 0)
        return 0;
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return -1;
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&p->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (rc != 0)
        return -1;
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        pthread_cond_destroy(&p->wake);
        return -1;
    }
    p->stopping = false;
    if (pthread_create(&p->thread, NULL, periodic_main, p) != 0) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->wake);
        return -1;
    }
    p->running = true;
    return 0;
}

void imx_periodic_stop(struct imx_periodic *p)
{
    if (!p->running)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    p->running = false;
}
