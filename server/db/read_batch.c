/* Coalesced reads: the requests for one kind of read that arrive while earlier ones are being
 * read wait, and the next free reader answers all of them with one statement. A primary-key
 * read costs PostgreSQL ~30 us of CPU, most of it per statement (parse-free execution, portal,
 * snapshot, the round trip), so one statement for eight documents costs about what two single
 * reads do (bench/RESULTS.md "Point reads"). Exactness is kept: a request joins only a batch
 * whose statement has not been sent, so the snapshot it reads is taken after the request
 * arrived, and a write that committed before that is seen, whichever server made it. */
#include "db/read_batch.h"

#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One statement is in flight at a time, so that the requests arriving meanwhile gather into
 * the next (measured for documents on 2 cores at 32 connections: one reader, batches of 9, 8 us
 * of PostgreSQL CPU a document; two readers, batches of 6, 15 us; four, batches of 3, 18 us;
 * unbatched, 30 us). A read that takes longer than STALL_NS (a cold page, a lock) lets another
 * start beside it, up to READERS_MAX, so one slow read does not hold up the rest. */
#define READERS_MAX 4
#define STALL_NS    2000000L

/* A waiter's word: its state in the low two bits, and above them a count of nudges (the front
 * being told that it may read next). The waiter sleeps on the word with a futex: a condition
 * variable made each woken follower take the queue's lock again while the reader still held it
 * to wake the others, a second sleep (bench/RESULTS.md "Session 6"). Once a waiter's word says
 * DONE its owner may return at any moment, so the reader touches it no more after that store
 * but to wake the address (FUTEX_WAKE reads no memory; a stray wake is harmless to futex
 * waiters). */
enum waiter_state { QUEUED, TAKEN, DONE, STATE_MASK = 3, NUDGE = 4 };

static long long elapsed_ns(const struct timespec *since, const struct timespec *now)
{
    return (long long)(now->tv_sec - since->tv_sec) * 1000000000LL +
           (now->tv_nsec - since->tv_nsec);
}

/* May a queued request start a read now? When none is in flight, or the newest one is slow. */
static bool may_read(const struct imx_db_batcher *q, const struct timespec *now)
{
    return q->readers == 0 || (q->readers < READERS_MAX && elapsed_ns(&q->started, now) > STALL_NS);
}

/* Sleeps while *word is seen, at most until the monotonic time until (or without limit). */
static void word_wait(atomic_uint *word, unsigned seen, const struct timespec *until)
{
    syscall(SYS_futex, word, until ? FUTEX_WAIT_BITSET_PRIVATE : FUTEX_WAIT_PRIVATE, seen, until,
            NULL, FUTEX_BITSET_MATCH_ANY);
}

static void word_wake(atomic_uint *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Tells the queued waiter w, at the front, that it may read now. With the lock held: a queued
 * waiter cannot leave. */
static void nudge(struct imx_db_waiter *w)
{
    atomic_fetch_add_explicit(&w->word, NUDGE, memory_order_relaxed);
    word_wake(&w->word);
}

void imx_db_batch_answer(struct imx_db_waiter **w, size_t n, struct imx_db_stmt *stmt,
                         const char *const *params, int rows)
{
    enum imx_db_images_rc rc = IMX_DBI_UNAVAILABLE;
    struct imx_db_batch *b = NULL;
    enum imx_db_failure why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    if (c) {
        PGresult *r = imx_db_exec(c, stmt, params);
        imx_db_release(c);
        if (!imx_db_ok(r) || (rows >= 0 && PQntuples(r) != rows)) {
            rc = imx_db_ok(r) ? IMX_DBI_ERROR : imx_db_images_failure(r);
            PQclear(r);
        } else if ((b = malloc(sizeof *b))) {
            b->res = r;
            atomic_init(&b->refs, (int)n);
            rc = IMX_DBI_OK;
        } else {
            PQclear(r);
            rc = IMX_DBI_ERROR;
        }
    }
    for (size_t i = 0; i < n; i++) {
        w[i]->rc = rc;
        w[i]->batch = b;
    }
}

void imx_db_array_put(struct imx_jbuf *b, bool first, const char *text)
{
    if (!first)
        imx_jbuf_put(b, ",", 1);
    if (!text) {
        imx_jbuf_puts(b, "NULL");
        return;
    }
    imx_jbuf_put(b, "\"", 1);
    for (const char *p = text; *p;) {
        size_t plain = strcspn(p, "\"\\");
        imx_jbuf_put(b, p, plain);
        p += plain;
        if (*p) {
            char esc[2] = { '\\', *p++ };
            imx_jbuf_put(b, esc, 2);
        }
    }
    imx_jbuf_put(b, "\"", 1);
}

void imx_db_batch_unref(struct imx_db_batch *b)
{
    if (b && atomic_fetch_sub(&b->refs, 1) == 1) {
        PQclear(b->res);
        free(b);
    }
}

void imx_db_batch_answer_columns(struct imx_db_waiter **w, size_t n, struct imx_db_stmt *stmt,
                                 size_t cols, int rows)
{
    struct imx_jbuf a[IMX_DB_BATCH_COLS_MAX] = { 0 };
    const char *params[IMX_DB_BATCH_COLS_MAX];
    bool failed = cols > IMX_DB_BATCH_COLS_MAX;
    for (size_t c = 0; c < cols && !failed; c++) {
        imx_jbuf_put(&a[c], "{", 1);
        for (size_t i = 0; i < n; i++)
            imx_db_array_put(&a[c], i == 0, ((const char *const *)w[i]->arg)[c]);
        imx_jbuf_put(&a[c], "}", 1);
        failed = a[c].failed;
        params[c] = a[c].p;
    }
    for (size_t i = 0; i < n; i++)
        w[i]->row = (int)i;
    if (failed) {
        for (size_t i = 0; i < n; i++)
            w[i]->rc = IMX_DBI_ERROR;
    } else {
        imx_db_batch_answer(w, n, stmt, params, rows);
    }
    for (size_t c = 0; c < cols && c < IMX_DB_BATCH_COLS_MAX; c++)
        imx_jbuf_free(&a[c]);
}

void imx_db_batch_release(void *batch)
{
    imx_db_batch_unref(batch);
}

void imx_db_batch_wait(struct imx_db_batcher *q, struct imx_db_waiter *self)
{
    self->next = NULL;
    self->batch = NULL;
    atomic_init(&self->word, QUEUED);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&q->lock);
    if (q->tail)
        q->tail->next = self;
    else
        q->head = self;
    q->tail = self;
    for (;;) {
        unsigned seen = atomic_load_explicit(&self->word, memory_order_acquire);
        if ((seen & STATE_MASK) == DONE)
            break;
        if ((seen & STATE_MASK) == QUEUED && may_read(q, &now)) {
            /* Lead: take the waiters queued so far (this one among them, at the back at most
             * max - 1 places behind: otherwise the next round takes it). */
            struct imx_db_waiter *w[IMX_DB_BATCH_MAX];
            size_t n = 0;
            while (q->head && n < q->max && n < IMX_DB_BATCH_MAX) {
                w[n] = q->head;
                atomic_store_explicit(&w[n]->word, TAKEN, memory_order_relaxed);
                q->head = q->head->next;
                w[n++]->next = NULL;
            }
            if (!q->head)
                q->tail = NULL;
            q->readers++;
            q->started = now;
            q->reads++;
            q->items += n;
            pthread_mutex_unlock(&q->lock);
            q->read(w, n);
            pthread_mutex_lock(&q->lock);
            q->readers--;
            /* Whoever waits at the front reads next. */
            if (q->head)
                nudge(q->head);
            pthread_mutex_unlock(&q->lock);
            bool mine = false;
            for (size_t i = 0; i < n; i++) {
                if (w[i] == self) {
                    mine = true;
                    continue;
                }
                atomic_store_explicit(&w[i]->word, DONE, memory_order_release);
                word_wake(&w[i]->word);
            }
            if (mine)
                return;
            clock_gettime(CLOCK_MONOTONIC, &now);
            pthread_mutex_lock(&q->lock);
            continue;
        }
        /* The front wakes when nudged, or when the read in flight has become slow (when it
         * already is and no more may start, it checks again after as long). */
        struct timespec until, *limit = NULL;
        if ((seen & STATE_MASK) == QUEUED && q->head == self) {
            until = elapsed_ns(&q->started, &now) > STALL_NS ? now : q->started;
            until.tv_nsec += STALL_NS + 1000;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            limit = &until;
        }
        pthread_mutex_unlock(&q->lock);
        word_wait(&self->word, seen, limit);
        if ((atomic_load_explicit(&self->word, memory_order_acquire) & STATE_MASK) == DONE)
            return;
        clock_gettime(CLOCK_MONOTONIC, &now);
        pthread_mutex_lock(&q->lock);
    }
    pthread_mutex_unlock(&q->lock);
}

void imx_db_batch_stats(struct imx_db_batcher *q, unsigned long long *reads,
                        unsigned long long *items)
{
    pthread_mutex_lock(&q->lock);
    *reads = q->reads;
    *items = q->items;
    pthread_mutex_unlock(&q->lock);
}
