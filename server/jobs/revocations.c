/* One sweep per interval on a pooled primary connection, held only for its statement
 * (jobs/revocations.h). */
#include "jobs/revocations.h"

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "db/images.h"
#include "db/pool.h"
#include "util/log.h"

static pthread_t thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static bool running, stopping;
static unsigned interval_ms;

static void *revocations_main(void *arg)
{
    (void)arg;
    time_t last_warn = 0;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        pthread_mutex_unlock(&lock);
        enum imx_db_failure why;
        struct imx_db_conn *c = imx_db_acquire(&why);
        int applied = 0;
        enum imx_db_status rc =
            c ? imx_db_image_apply_due_revocations(c, &applied) : IMX_DBS_UNAVAILABLE;
        if (c)
            imx_db_release(c);
        if (rc == IMX_DBS_OK && applied > 0)
            imx_info("applied %d scheduled image revocation%s", applied, applied == 1 ? "" : "s");
        /* A database that is down is reported at most every ten minutes: the sweep runs again
         * next interval and loses nothing (revoke_at stays until a sweep applies it). */
        if (rc != IMX_DBS_OK && time(NULL) - last_warn >= 600) {
            last_warn = time(NULL);
            imx_warn("scheduled revocations: cannot apply (%s); trying again in %ums",
                     imx_db_status_name(rc), interval_ms);
        }
        pthread_mutex_lock(&lock);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += interval_ms / 1000;
        until.tv_nsec += (long)(interval_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!stopping && pthread_cond_timedwait(&wake, &lock, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

int imx_revocation_job_start(unsigned every_ms)
{
    interval_ms = every_ms;
    if (interval_ms == 0)
        return 0;
    /* A monotonic clock for the wait: a wall clock stepped back would stall the sweep. */
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &attr);
    pthread_condattr_destroy(&attr);
    stopping = false;
    if (pthread_create(&thread, NULL, revocations_main, NULL) != 0) {
        pthread_cond_destroy(&wake);
        return -1;
    }
    running = true;
    return 0;
}

void imx_revocation_job_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    stopping = true;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);
    pthread_cond_destroy(&wake);
    running = false;
}
