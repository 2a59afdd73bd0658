/* Stored image documents (migrations/0020_point_reads.sql) read in coalesced batches: the
 * requests for documents that arrive while earlier ones are being read wait, and the next free
 * reader fetches all of them with one statement. A primary-key read costs PostgreSQL ~30 us of
 * CPU, most of it per statement (parse-free execution, portal, snapshot, the round trip), so one
 * statement for eight documents costs about what two single reads do (bench/RESULTS.md "Point
 * reads"). Exactness is kept: a request joins only a batch whose statement has not been sent, so
 * the snapshot it reads is taken after the request arrived, and a write that committed before
 * that is seen, whichever server made it. */
#include "db/image_docs.h"

#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Documents one statement fetches at most. One statement is in flight at a time, so that the
 * requests arriving meanwhile gather into the next (measured on 2 cores at 32 connections: one
 * reader, batches of 9, 8 us of PostgreSQL CPU a document; two readers, batches of 6, 15 us; four,
 * batches of 3, 18 us; unbatched, 30 us). A read that takes longer than STALL_NS (a cold page, a
 * lock) lets another start beside it, up to READERS_MAX, so one slow read does not hold up the
 * rest. */
#define BATCH_MAX   32
#define READERS_MAX 4
#define STALL_NS    2000000L

/* One statement's result, shared by the requests it answered; freed with the last reference. */
struct batch {
    PGresult *res;
    atomic_int refs;
};

/* A waiter's word: its state in the low two bits, and above them a count of nudges (the front
 * being told that it may read next). The waiter sleeps on the word with a futex: a condition
 * variable made each woken follower take the queue's lock again while the reader still held it
 * to wake the others, a second sleep (bench/RESULTS.md "Session 6"). */
enum waiter_state { QUEUED, TAKEN, DONE, STATE_MASK = 3, NUDGE = 4 };

/* A request waiting for its document; lives on its caller's stack. Once its word says DONE its
 * owner may return at any moment, so the reader touches it no more after that store but to
 * wake the address (FUTEX_WAKE reads no memory; a stray wake is harmless to futex waiters). */
struct waiter {
    long long id;
    const char *etag; /* borrowed: the one ETag the client holds, or NULL */
    atomic_uint word;
    struct waiter *next;
    /* filled by the reader */
    enum imx_db_images_rc rc;
    struct batch *batch;
    int row;
};

static struct {
    pthread_mutex_t lock;
    struct waiter *head, *tail;     /* FIFO of QUEUED waiters */
    unsigned readers;               /* statements in flight */
    struct timespec started;        /* when the newest of them was sent */
    unsigned long long reads, docs; /* statements sent, documents they asked for */
} q = { .lock = PTHREAD_MUTEX_INITIALIZER };

static long long elapsed_ns(const struct timespec *since, const struct timespec *now)
{
    return (long long)(now->tv_sec - since->tv_sec) * 1000000000LL +
           (now->tv_nsec - since->tv_nsec);
}

/* May a queued request start a read now? When none is in flight, or the newest one is slow. */
static bool may_read(const struct timespec *now)
{
    return q.readers == 0 || (q.readers < READERS_MAX && elapsed_ns(&q.started, now) > STALL_NS);
}

/* One row per id asked, in that order (migrations/0045_image_docs_read.sql). */
IMX_DB_STMT(stmt_docs, 2, "SELECT * FROM imx_image_docs_read($1::bigint[], $2::text[])");

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
static void nudge(struct waiter *w)
{
    atomic_fetch_add_explicit(&w->word, NUDGE, memory_order_relaxed);
    word_wake(&w->word);
}

static void batch_unref(struct batch *b)
{
    if (b && atomic_fetch_sub(&b->refs, 1) == 1) {
        PQclear(b->res);
        free(b);
    }
}

void imx_db_image_doc_release(void *owner)
{
    batch_unref(owner);
}

void imx_db_image_doc_free(struct imx_db_image_doc *d)
{
    batch_unref(d->owner);
    memset(d, 0, sizeof *d);
}

/* Is etag one of ours, a quoted hex digest? Only those can match a stored ETag; they need no
 * quoting inside an array literal. */
static bool plain_etag(const char *etag)
{
    size_t n = etag ? strlen(etag) : 0;
    if (n < 3 || n > IMX_DBI_ETAG_SIZE || etag[0] != '"' || etag[n - 1] != '"')
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!((etag[i] >= '0' && etag[i] <= '9') || (etag[i] >= 'a' && etag[i] <= 'f')))
            return false;
    return true;
}

/* Reads the documents of the n waiters w[] with one statement and fills their results. Runs
 * without the lock. */
static void read_batch(struct waiter **w, size_t n)
{
    /* "{id,...}" and {"\"etag\"",NULL,...}: ids are at most 20 digits, ETags as plain_etag */
    char ids[BATCH_MAX * 22 + 4], etags[BATCH_MAX * (IMX_DBI_ETAG_SIZE + 8) + 4];
    size_t il = 1, el = 1;
    ids[0] = etags[0] = '{';
    for (size_t i = 0; i < n; i++) {
        il += (size_t)snprintf(ids + il, sizeof ids - il, "%s%lld", i ? "," : "", w[i]->id);
        if (plain_etag(w[i]->etag)) {
            size_t len = strlen(w[i]->etag);
            el += (size_t)snprintf(etags + el, sizeof etags - el, "%s\"\\\"%.*s\\\"\"",
                                   i ? "," : "", (int)(len - 2), w[i]->etag + 1);
        } else {
            el += (size_t)snprintf(etags + el, sizeof etags - el, "%sNULL", i ? "," : "");
        }
    }
    snprintf(ids + il, sizeof ids - il, "}");
    snprintf(etags + el, sizeof etags - el, "}");

    enum imx_db_images_rc rc = IMX_DBI_UNAVAILABLE;
    struct batch *b = NULL;
    enum imx_db_failure why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    if (c) {
        const char *params[] = { ids, etags };
        PGresult *r = imx_db_exec(c, &stmt_docs, params);
        imx_db_release(c);
        if (imx_db_ok(r) && PQntuples(r) == (int)n && (b = malloc(sizeof *b))) {
            b->res = r;
            atomic_init(&b->refs, (int)n);
            rc = IMX_DBI_OK;
        } else {
            rc = imx_db_ok(r) ? IMX_DBI_ERROR : imx_db_images_failure(r);
            PQclear(r);
        }
    }
    for (size_t i = 0; i < n; i++) {
        w[i]->rc = rc;
        w[i]->batch = b;
        w[i]->row = (int)i;
    }
}

enum imx_db_images_rc imx_db_image_doc(long long id, const char *client_etag,
                                       struct imx_db_image_doc *out)
{
    memset(out, 0, sizeof *out);
    struct waiter self = { .id = id, .etag = client_etag };
    atomic_init(&self.word, QUEUED);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&q.lock);
    if (q.tail)
        q.tail->next = &self;
    else
        q.head = &self;
    q.tail = &self;
    for (;;) {
        unsigned seen = atomic_load_explicit(&self.word, memory_order_acquire);
        if ((seen & STATE_MASK) == DONE)
            break;
        if ((seen & STATE_MASK) == QUEUED && may_read(&now)) {
            /* Lead: take the waiters queued so far (this one among them, at the back at most
             * BATCH_MAX - 1 places behind: otherwise the next round takes it). */
            struct waiter *w[BATCH_MAX];
            size_t n = 0;
            while (q.head && n < BATCH_MAX) {
                w[n] = q.head;
                atomic_store_explicit(&w[n]->word, TAKEN, memory_order_relaxed);
                q.head = q.head->next;
                w[n++]->next = NULL;
            }
            if (!q.head)
                q.tail = NULL;
            q.readers++;
            q.started = now;
            q.reads++;
            q.docs += n;
            pthread_mutex_unlock(&q.lock);
            read_batch(w, n);
            pthread_mutex_lock(&q.lock);
            q.readers--;
            /* Whoever waits at the front reads next. */
            if (q.head)
                nudge(q.head);
            pthread_mutex_unlock(&q.lock);
            bool mine = false;
            for (size_t i = 0; i < n; i++) {
                if (w[i] == &self) {
                    mine = true;
                    continue;
                }
                atomic_store_explicit(&w[i]->word, DONE, memory_order_release);
                word_wake(&w[i]->word);
            }
            if (mine)
                goto done;
            clock_gettime(CLOCK_MONOTONIC, &now);
            pthread_mutex_lock(&q.lock);
            continue;
        }
        /* The front wakes when nudged, or when the read in flight has become slow (when it
         * already is and no more may start, it checks again after as long). */
        struct timespec until, *limit = NULL;
        if ((seen & STATE_MASK) == QUEUED && q.head == &self) {
            until = elapsed_ns(&q.started, &now) > STALL_NS ? now : q.started;
            until.tv_nsec += STALL_NS + 1000;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            limit = &until;
        }
        pthread_mutex_unlock(&q.lock);
        word_wait(&self.word, seen, limit);
        if ((atomic_load_explicit(&self.word, memory_order_acquire) & STATE_MASK) == DONE)
            goto done;
        clock_gettime(CLOCK_MONOTONIC, &now);
        pthread_mutex_lock(&q.lock);
    }
    pthread_mutex_unlock(&q.lock);
done:
    if (self.rc != IMX_DBI_OK)
        return self.rc;
    PGresult *r = self.batch->res;
    int k = self.row;
    long long epoch = strtoll(PQgetvalue(r, k, 0), NULL, 10);
    if (PQgetisnull(r, k, 1)) {
        batch_unref(self.batch);
        out->epoch = epoch;
        return IMX_DBI_NOT_FOUND;
    }
    out->owner = self.batch;
    out->epoch = epoch;
    out->etag = PQgetvalue(r, k, 1);
    if (!PQgetisnull(r, k, 2)) {
        out->json = PQgetvalue(r, k, 2);
        out->json_len = (size_t)PQgetlength(r, k, 2);
    }
    return IMX_DBI_OK;
}

void imx_db_image_doc_stats(unsigned long long *reads, unsigned long long *docs)
{
    pthread_mutex_lock(&q.lock);
    *reads = q.reads;
    *docs = q.docs;
    pthread_mutex_unlock(&q.lock);
}
