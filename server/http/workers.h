/* The handler workers: a fixed set of threads that run what may block (PostgreSQL, password
 * hashing, a streamed body's next chunk) for the connections libmicrohttpd's event threads have
 * suspended. Jobs wait in one FIFO; each connection has at most one job queued or running, so the
 * queue is bounded by IMAXE_CONNECTION_LIMIT. */
#ifndef IMX_HTTP_WORKERS_H
#define IMX_HTTP_WORKERS_H

#include <stddef.h>

/* A unit of work, embedded in what it works on; run is called on a worker thread. */
struct imx_job {
    void (*run)(struct imx_job *job);
    struct imx_job *next; /* the queue's */
};

/* Starts n workers. Returns 0, or -1 when not one thread could be started. */
int imx_workers_start(unsigned n);

/* Queues job for the next free worker. */
void imx_workers_submit(struct imx_job *job);

/* Jobs queued or running now, and the workers started (/metrics). */
size_t imx_workers_busy(void);
unsigned imx_workers_count(void);

/* Runs the jobs still queued, then stops and joins every worker. */
void imx_workers_stop(void);

#endif
