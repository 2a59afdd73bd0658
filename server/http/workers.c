/* The handler workers (see workers.h): a mutex, a condition variable and a FIFO of jobs. */
#include "http/workers.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "util/log.h"

/* Handler stacks are small (the connection threads they replace had as much). */
#define WORKER_STACK_BYTES (512 * 1024)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct imx_job *head, *tail;
static size_t busy; /* jobs queued or running */
static bool stopping;
static pthread_t *threads;
static unsigned nthreads;

static void *work(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!head && !stopping)
            pthread_cond_wait(&wake, &lock);
        struct imx_job *job = head;
        if (!job)
            break; /* stopping, and nothing is left */
        head = job->next;
        if (!head)
            tail = NULL;
        pthread_mutex_unlock(&lock);
        job->run(job); /* may free job */
        pthread_mutex_lock(&lock);
        busy--;
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

int imx_workers_start(unsigned n)
{
    threads = calloc(n, sizeof *threads);
    if (!threads)
        return -1;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, WORKER_STACK_BYTES);
    for (nthreads = 0; nthreads < n; nthreads++)
        if (pthread_create(&threads[nthreads], &attr, work, NULL) != 0)
            break;
    pthread_attr_destroy(&attr);
    if (nthreads < n)
        imx_warn("started %u of %u handler workers", nthreads, n);
    return nthreads > 0 ? 0 : -1;
}

void imx_workers_submit(struct imx_job *job)
{
    job->next = NULL;
    pthread_mutex_lock(&lock);
    if (tail)
        tail->next = job;
    else
        head = job;
    tail = job;
    busy++;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
}

size_t imx_workers_busy(void)
{
    pthread_mutex_lock(&lock);
    size_t n = busy;
    pthread_mutex_unlock(&lock);
    return n;
}

unsigned imx_workers_count(void)
{
    return nthreads;
}

void imx_workers_stop(void)
{
    pthread_mutex_lock(&lock);
    stopping = true;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    for (unsigned i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    threads = NULL;
    nthreads = 0;
    stopping = false;
}
