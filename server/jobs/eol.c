/* One announcement per interval on a pooled primary connection, held only for its statement. */
#include "jobs/eol.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/eol.h"
#include "db/pool.h"
#include "util/config.h"
#include "util/config.h"
#include "util/log.h"

static pthread_t thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static bool running, stopping;
static unsigned interval_s;
static char today[11]; /* "" : PostgreSQL's current_date */

static void *eol_main(void *arg)
{
    (void)arg;
    time_t last_warn = 0;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        pthread_mutex_unlock(&lock);
        enum imx_db_failure why;
        struct imx_db_conn *c = imx_db_acquire(&why);
        int events = -1;
        enum imx_db_status rc =
            c ? imx_db_eol_announce(c, today[0] ? today : NULL, &events) : IMX_DBS_UNAVAILABLE;
        if (c)
            imx_db_release(c);
        if (rc == IMX_DBS_OK && events > 0)
            imx_info("end of life: %d image.eol_approaching events", events);
        if (rc != IMX_DBS_OK && time(NULL) - last_warn >= 600) {
            last_warn = time(NULL);
            imx_warn("end of life: cannot announce (%s); trying again in %us",
                     imx_db_status_name(rc), interval_s);
        }
        pthread_mutex_lock(&lock);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += interval_s;
        if (!stopping)
            pthread_cond_timedwait(&wake, &lock, &until);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

int imx_eol_job_start(const struct imx_config *cfg)
{
    snprintf(today, sizeof today, "%s", cfg->eol_today);
    unsigned long long v = cfg->eol_check_s;
    interval_s = (unsigned)v;
    if (interval_s == 0)
        return 0;
    stopping = false;
    if (pthread_create(&thread, NULL, eol_main, NULL) != 0)
        return -1;
    running = true;
    return 0;
}

void imx_eol_job_stop(void)
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
