/* Coalesced reads: the requests that arrive while a read of their kind is in flight wait, and
 * the next free reader answers all of them with one statement (db/image_docs.c, compare). */
#ifndef IMX_DB_READ_BATCH_H
#define IMX_DB_READ_BATCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "db/images.h"
#include "db/pool.h"
#include "util/json_text.h"

/* One statement's result, shared by the requests it answered; freed with the last reference
 * (imx_db_batch_unref). Opaque above server/db/ (db/internal.h). */
struct imx_db_batch;

/* A request waiting for its read; lives on its caller's stack. arg is the caller's, for the
 * batcher's read; rc, batch and row are filled by the read (batch holds a reference for this
 * waiter when rc is IMX_DBS_OK). */
struct imx_db_waiter {
    const void *arg;
    enum imx_db_status rc;
    struct imx_db_batch *batch;
    int row;
    /* A waiter queued with imx_db_batch_start: called, on the thread that read, once rc, batch
     * and row are filled (the waiter is its owner's again from then on). NULL for
     * imx_db_batch_wait. */
    void (*done)(struct imx_db_waiter *w);
    void *cls; /* the owner's, for done */
    /* the queue's */
    atomic_uint word;
    struct imx_db_waiter *next;
    struct timespec queued; /* when it came: unanswered a statement timeout later, it is given
                               IMX_DBS_UNAVAILABLE (the caller's 503) without a read */
};

/* Reads for the n waiters w[] (n <= max) with one statement and fills each one's rc, batch and
 * row; runs without the batcher's lock, on a pool connection it takes itself. */
typedef void imx_db_batch_read_fn(struct imx_db_waiter **w, size_t n);

struct imx_db_batcher {
    imx_db_batch_read_fn *read;
    size_t max; /* waiters one statement answers at most, <= IMX_DB_BATCH_MAX */
    /* the queue's */
    pthread_mutex_t lock;
    struct imx_db_waiter *head, *tail; /* FIFO of waiters not yet taken */
    unsigned readers;                  /* statements in flight */
    struct timespec started;           /* when the newest of them was sent */
    unsigned long long reads, items;   /* statements sent, waiters they answered */
    /* the batch runners' (read_batch.c), under their lock */
    bool kicked;
    struct imx_db_batcher *kick_next;
    /* the deadline sweeper's (read_batch.c), under its lock */
    bool registered;
    struct imx_db_batcher *all_next;
};

#define IMX_DB_BATCH_MAX      32
#define IMX_DB_BATCH_COLS_MAX 4
#define IMX_DB_BATCHER(read_fn, max_waiters)                                                       \
    {                                                                                              \
        .read = (read_fn), .max = (max_waiters), .lock = PTHREAD_MUTEX_INITIALIZER                 \
    }

/* Deadlines: a waiter still queued a statement timeout (imx_db_statement_timeout_ms) after it
 * came is answered IMX_DBS_UNAVAILABLE without a read, and a statement still running when the
 * oldest waiter it answers reaches that deadline is cancelled (its waiters get the same), so a
 * locked table or a stalled primary costs a parked request one statement timeout, not a place in
 * a queue of statements that each wait that long. A sweeper thread keeps the deadlines. */

/* Queues self (its arg set) and returns when a read has filled it: this thread's own, or one
 * another waiter made. Exact: self joins only a statement not yet sent, so what it reads was
 * committed no earlier than the call. */
void imx_db_batch_wait(struct imx_db_batcher *b, struct imx_db_waiter *self);

/* The same without waiting, for a caller that must not block (a fast handler on the event
 * thread): queues self (its arg, done and cls set) and returns; a read fills it later and calls
 * self->done, on a batch runner (a thread of read_batch.c's own) or on a thread that waits in
 * imx_db_batch_wait. Exact in the same way. */
void imx_db_batch_start(struct imx_db_batcher *b, struct imx_db_waiter *self);

/* A read started with imx_db_batch_start for a caller that is told by wake(cls): kept, with what
 * the read asks (arg), in a block of the caller's that outlives the read. */
struct imx_db_call {
    struct imx_db_waiter self;
    void (*wake)(void *cls);
    void *cls;
};
void imx_db_call_start(struct imx_db_batcher *b, struct imx_db_call *c, const void *arg,
                       void (*wake)(void *cls), void *cls);

/* A call whose ask is cols texts (NULL for SQL NULL), as imx_db_batch_answer_columns reads them,
 * copied into the call. NULL when memory is short. Freed with imx_db_texts_free once woken. */
struct imx_db_texts_call {
    struct imx_db_call call;
    const char *ask[IMX_DB_BATCH_COLS_MAX];
};
struct imx_db_texts_call *imx_db_texts_start(struct imx_db_batcher *b, const char *const *texts,
                                             size_t cols, void (*wake)(void *cls), void *cls);
void imx_db_texts_free(void *call);

/* For a batcher's read: runs stmt with params on a pool connection of its own and gives its
 * result, which must have rows rows (any number when rows < 0), to the n waiters w[] (each one's
 * rc, and batch with a reference of its own when rc is IMX_DBS_OK; the rows are the caller's to
 * set, from the result when their number varies). */
void imx_db_batch_answer(struct imx_db_waiter **w, size_t n, struct imx_db_stmt *stmt,
                         const char *const *params, int rows);
void imx_db_batch_unref(struct imx_db_batch *b);
/* imx_db_batch_unref for a response's free callback (a reply that points into the result). */
void imx_db_batch_release(void *batch);

/* imx_db_batch_answer for a statement that takes one array a column ($1 .. $cols, cols at most
 * IMX_DB_BATCH_COLS_MAX): each waiter's arg is an array of cols texts (NULL for SQL NULL), its
 * row in them; waiter i gets row i (the caller sets the rows when their number varies, rows < 0).
 */
void imx_db_batch_answer_columns(struct imx_db_waiter **w, size_t n, struct imx_db_stmt *stmt,
                                 size_t cols, int rows);

/* Appends text to the array literal being built in b as its next element (a comma before it
 * unless first), double-quoted with its quotes and backslashes escaped; NULL appends NULL. The
 * caller puts the braces around the elements, and checks b->failed. */
void imx_db_array_put(struct imx_jbuf *b, bool first, const char *text);

/* Statements sent and waiters they answered, since start (/metrics). */
void imx_db_batch_stats(struct imx_db_batcher *b, unsigned long long *reads,
                        unsigned long long *items);

#endif
