/* One snapshot per interval on a pooled primary connection, held only for its statement. A run
 * the same day replaces that day's rows, so hourly runs keep one row per team and day. */
#include "jobs/exposure.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/exposure.h"
#include "db/pool.h"
#include "util/config.h"
#include "util/log.h"

static pthread_t thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static bool running, stopping;
static unsigned interval_s, keep_days;
static char today[11]; /* "" : PostgreSQL's current_date */

static void *exposure_main(void *arg)
{
    (void)arg;
    time_t last_warn = 0;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        pthread_mutex_unlock(&lock);
        enum imx_db_failure why;
        struct imx_db_conn *c = imx_db_acquire(&why);
        int rows = 0;
        enum imx_db_status rc =
            c ? imx_db_exposure_snapshot(c, today[0] ? today : NULL, keep_days, &rows)
              : IMX_DBS_UNAVAILABLE;
        if (c)
            imx_db_release(c);
        if (rc != IMX_DBS_OK && time(NULL) - last_warn >= 600) {
            last_warn = time(NULL);
            imx_warn("exposure history: cannot take the snapshot (%s); trying again in %us",
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

int imx_exposure_job_start(void)
{
    const char *every = getenv("IMAXE_EXPOSURE_CHECK_S");
    unsigned long long v = 3600, keep = 365;
    if (every && *every && imx_parse_uint(every, 0, 86400, &v) != 0) {
        imx_error("IMAXE_EXPOSURE_CHECK_S must be a whole number from 0 to 86400 (got '%.40s')",
                  every);
        return -1;
    }
    const char *k = getenv("IMAXE_EXPOSURE_HISTORY_DAYS");
    if (k && *k && imx_parse_uint(k, 1, 3650, &keep) != 0) {
        imx_error("IMAXE_EXPOSURE_HISTORY_DAYS must be a whole number from 1 to 3650 (got '%.40s')",
                  k);
        return -1;
    }
    const char *t = getenv("IMAXE_EXPOSURE_TODAY");
    if (t && *t) {
        if (strlen(t) != 10 || t[4] != '-' || t[7] != '-' || strspn(t, "0123456789-") != 10) {
            imx_error("IMAXE_EXPOSURE_TODAY must be YYYY-MM-DD (got '%.40s')", t);
            return -1;
        }
        snprintf(today, sizeof today, "%s", t);
    }
    interval_s = (unsigned)v;
    keep_days = (unsigned)keep;
    if (interval_s == 0)
        return 0;
    stopping = false;
    if (pthread_create(&thread, NULL, exposure_main, NULL) != 0)
        return -1;
    running = true;
    return 0;
}

void imx_exposure_job_stop(void)
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
