/* Coalesced reads: the requests for one kind of read that arrive while earlier ones are being
 * read wait, and the next free reader answers all of them with one statement. A primary-key
 * read costs PostgreSQL ~30 us of CPU, most of it per statement (parse-free execution, portal,
 * snapshot, the round trip), so one statement for eight documents costs about what two single
 * reads do (bench/RESULTS.md "Point reads"). Exactness is kept: a request joins only a batch
 * whose statement has not been sent, so the snapshot it reads is taken after the request
 * arrived, and a write that committed before that is seen, whichever server made it. */
#include "db/read_batch.h"
#include "db/internal.h"

#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One statement is in flight at a time, so that the requests arriving meanwhile gather into
 * the next (measured for documents on 2 cores at 32 connections: one reader, batches of 9, 8 us
 * of PostgreSQL CPU a document; two readers, batches of 6, 15 us; four, batches of 3, 18 us;
 * unbatched, 30 us). A read that takes longer than STALL_NS (a cold page, a lock) lets another
 * start beside it, up to READERS_MAX, so one slow read does not hold up the rest. Each read takes
 * one of the connections kept for them (imx_db_acquire_batch), as many as may be in flight. */
#define READERS_MAX IMX_DB_BATCH_CONNS
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

/* How often the sweeper looks for waiters and statements past their deadline. */
#define SWEEP_NS 50000000L

static long long deadline_ns(void)
{
    return (long long)imx_db_statement_timeout_ms() * 1000000LL;
}

static bool expired(const struct imx_db_waiter *w, const struct timespec *now)
{
    return elapsed_ns(&w->queued, now) >= deadline_ns();
}

static void finish(struct imx_db_waiter *w);

/* Statements in flight with a deadline: at most one a batch connection. */
#define FLIGHTS (IMX_DB_BATCH_CONNS * 2)
static struct flight {
    PGcancel *cancel; /* NULL: the slot is free */
    struct timespec deadline;
    bool cancelled;
} flights[FLIGHTS];

static pthread_mutex_t sweep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct imx_db_batcher *all_batchers;
static pthread_once_t sweeper_once = PTHREAD_ONCE_INIT;

static bool before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* With q's lock held: unlinks the queued waiters past their deadline into a list (through next)
 * and returns it, the caller to finish them (fail_expired) once the lock is released. */
static struct imx_db_waiter *unlink_expired(struct imx_db_batcher *q, const struct timespec *now)
{
    struct imx_db_waiter *gone = NULL, **gone_tail = &gone, *prev = NULL;
    for (struct imx_db_waiter *w = q->head; w;) {
        struct imx_db_waiter *next = w->next;
        if (expired(w, now)) {
            if (prev)
                prev->next = next;
            else
                q->head = next;
            if (q->tail == w)
                q->tail = prev;
            w->next = NULL;
            *gone_tail = w;
            gone_tail = &w->next;
        } else {
            prev = w;
        }
        w = next;
    }
    return gone;
}

/* Answers every waiter of the list unavailable, without a read; skip is left to its owner. */
static void fail_expired(struct imx_db_waiter *gone, const struct imx_db_waiter *skip)
{
    while (gone) {
        struct imx_db_waiter *next = gone->next;
        gone->rc = IMX_DBS_UNAVAILABLE;
        gone->batch = NULL;
        if (gone != skip)
            finish(gone);
        gone = next;
    }
}

static void nudge(struct imx_db_batcher *q, struct imx_db_waiter *w);
static bool may_read(const struct imx_db_batcher *q, const struct timespec *now);

/* The sweeper: every SWEEP_NS, waiters past their deadline leave their queues answered, and
 * statements past theirs are cancelled. */
static void *sweep(void *arg)
{
    (void)arg;
    for (;;) {
        nanosleep(&(struct timespec){ .tv_nsec = SWEEP_NS }, NULL);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        pthread_mutex_lock(&sweep_lock);
        for (int i = 0; i < FLIGHTS; i++)
            if (flights[i].cancel && !flights[i].cancelled && before(&flights[i].deadline, &now)) {
                char err[256];
                flights[i].cancelled = true;
                (void)PQcancel(flights[i].cancel, err, sizeof err);
            }
        struct imx_db_batcher *list = all_batchers;
        pthread_mutex_unlock(&sweep_lock);
        /* Batchers are static and never leave the list: walking it unlocked is safe. */
        for (struct imx_db_batcher *q = list; q; q = q->all_next) {
            pthread_mutex_lock(&q->lock);
            struct imx_db_waiter *gone = unlink_expired(q, &now);
            /* The front may have gone: whoever is at the front now may read. */
            if (gone && q->head && may_read(q, &now))
                nudge(q, q->head);
            pthread_mutex_unlock(&q->lock);
            fail_expired(gone, NULL);
        }
    }
    return NULL;
}

static void start_sweeper(void)
{
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, sweep, NULL) != 0)
        abort(); /* deadlines would not hold */
    pthread_attr_destroy(&attr);
}

static void register_batcher(struct imx_db_batcher *q)
{
    pthread_once(&sweeper_once, start_sweeper);
    pthread_mutex_lock(&sweep_lock);
    if (!q->registered) {
        q->registered = true;
        q->all_next = all_batchers;
        all_batchers = q;
    }
    pthread_mutex_unlock(&sweep_lock);
}

/* Watches a statement on c that must end by deadline: returns its slot, or -1 (unwatched: it
 * still has the connection's statement timeout). */
static int flight_begin(struct imx_db_conn *c, const struct timespec *deadline)
{
    PGcancel *cancel = imx_db_cancel_handle(c);
    if (!cancel)
        return -1;
    pthread_mutex_lock(&sweep_lock);
    for (int i = 0; i < FLIGHTS; i++)
        if (!flights[i].cancel) {
            flights[i] = (struct flight){ cancel, *deadline, false };
            pthread_mutex_unlock(&sweep_lock);
            return i;
        }
    pthread_mutex_unlock(&sweep_lock);
    PQfreeCancel(cancel);
    return -1;
}

/* Ends the watch; true when the sweeper cancelled the statement. */
static bool flight_end(int slot)
{
    if (slot < 0)
        return false;
    pthread_mutex_lock(&sweep_lock);
    PGcancel *cancel = flights[slot].cancel;
    bool cancelled = flights[slot].cancelled;
    flights[slot].cancel = NULL;
    pthread_mutex_unlock(&sweep_lock);
    PQfreeCancel(cancel);
    return cancelled;
}

/* The batch runners: threads that read for waiters queued with imx_db_batch_start, which no
 * thread of theirs waits beside. A batcher whose front waiter is such a one is kicked: put on the
 * runners' list (once), and the next free runner reads for it. As many runners as reads may be in
 * flight for one batcher. */
#define RUNNERS            READERS_MAX
#define RUNNER_STACK_BYTES (256 * 1024)
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t run_wake = PTHREAD_COND_INITIALIZER;
static struct imx_db_batcher *kicked_head, *kicked_tail;
static pthread_once_t runners_once = PTHREAD_ONCE_INIT;

static void kick(struct imx_db_batcher *q)
{
    pthread_mutex_lock(&run_lock);
    if (!q->kicked) {
        q->kicked = true;
        q->kick_next = NULL;
        if (kicked_tail)
            kicked_tail->kick_next = q;
        else
            kicked_head = q;
        kicked_tail = q;
        pthread_cond_signal(&run_wake);
    }
    pthread_mutex_unlock(&run_lock);
}

/* Tells the queued waiter w, at the front, that it may read now: a waiting thread is woken, a
 * started waiter's batcher is kicked. With the lock held: a queued waiter cannot leave. */
static void nudge(struct imx_db_batcher *q, struct imx_db_waiter *w)
{
    if (w->done) {
        kick(q);
        return;
    }
    atomic_fetch_add_explicit(&w->word, NUDGE, memory_order_relaxed);
    word_wake(&w->word);
}

/* Hands a read's waiters their results: a started one's done is called, a waiting thread is
 * woken. */
static void finish(struct imx_db_waiter *w)
{
    if (w->done) {
        w->done(w);
        return;
    }
    atomic_store_explicit(&w->word, DONE, memory_order_release);
    word_wake(&w->word);
}

/* Takes the waiters queued so far, at most the batcher's max, and marks them taken; with the lock
 * held. Returns how many (0: none, and no read is counted). Those past their deadline are
 * unlinked into *gone instead, for fail_expired once the lock is released. */
static size_t take(struct imx_db_batcher *q, struct imx_db_waiter **w, const struct timespec *now,
                   struct imx_db_waiter **gone)
{
    size_t n = 0;
    *gone = unlink_expired(q, now);
    while (q->head && n < q->max && n < IMX_DB_BATCH_MAX) {
        w[n] = q->head;
        atomic_store_explicit(&w[n]->word, TAKEN, memory_order_relaxed);
        q->head = q->head->next;
        w[n++]->next = NULL;
    }
    if (!q->head)
        q->tail = NULL;
    if (n == 0)
        return 0;
    q->readers++;
    q->started = *now;
    q->reads++;
    q->items += n;
    return n;
}

/* A runner: reads for a kicked batcher while started waiters are at its front and a read may
 * start, then takes the next. */
static void *run(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&run_lock);
        while (!kicked_head)
            pthread_cond_wait(&run_wake, &run_lock);
        struct imx_db_batcher *q = kicked_head;
        kicked_head = q->kick_next;
        if (!kicked_head)
            kicked_tail = NULL;
        q->kicked = false;
        pthread_mutex_unlock(&run_lock);

        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        pthread_mutex_lock(&q->lock);
        while (q->head && q->head->done && may_read(q, &now)) {
            struct imx_db_waiter *w[IMX_DB_BATCH_MAX], *gone;
            size_t n = take(q, w, &now, &gone);
            pthread_mutex_unlock(&q->lock);
            fail_expired(gone, NULL);
            if (n == 0) {
                pthread_mutex_lock(&q->lock);
                if (q->head && !q->head->done)
                    nudge(q, q->head);
                continue;
            }
            q->read(w, n);
            pthread_mutex_lock(&q->lock);
            q->readers--;
            /* A waiting thread at the front reads next; started ones are read for here. */
            if (q->head && !q->head->done)
                nudge(q, q->head);
            pthread_mutex_unlock(&q->lock);
            for (size_t i = 0; i < n; i++)
                finish(w[i]);
            clock_gettime(CLOCK_MONOTONIC, &now);
            pthread_mutex_lock(&q->lock);
        }
        pthread_mutex_unlock(&q->lock);
    }
    return NULL;
}

static void start_runners(void)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, RUNNER_STACK_BYTES);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (int i = 0; i < RUNNERS; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, run, NULL) != 0)
            abort(); /* a started waiter would never be answered */
    }
    pthread_attr_destroy(&attr);
}

void imx_db_batch_answer(struct imx_db_waiter **w, size_t n, struct imx_db_stmt *stmt,
                         const char *const *params, int rows)
{
    enum imx_db_status rc = IMX_DBS_UNAVAILABLE;
    struct imx_db_batch *b = NULL;
    enum imx_db_status why;
    struct imx_db_conn *c = imx_db_acquire_batch(&why);
    if (c) {
        /* The statement must end by the oldest waiter's deadline. */
        struct timespec deadline = w[0]->queued;
        for (size_t i = 1; i < n; i++)
            if (before(&w[i]->queued, &deadline))
                deadline = w[i]->queued;
        long long ns = (long long)deadline.tv_nsec + deadline_ns();
        deadline.tv_sec += (time_t)(ns / 1000000000LL);
        deadline.tv_nsec = (long)(ns % 1000000000LL);
        int slot = flight_begin(c, &deadline);
        PGresult *r = imx_db_exec(c, stmt, params);
        bool cancelled = flight_end(slot);
        imx_db_release(c);
        if (cancelled && !imx_db_ok(r)) {
            rc = IMX_DBS_UNAVAILABLE;
            PQclear(r);
        } else if (!imx_db_ok(r) || (rows >= 0 && PQntuples(r) != rows)) {
            rc = imx_db_ok(r) ? IMX_DBS_ERROR : imx_db_status_of(r);
            PQclear(r);
        } else if ((b = malloc(sizeof *b))) {
            b->res = r;
            atomic_init(&b->refs, (int)n);
            rc = IMX_DBS_OK;
        } else {
            PQclear(r);
            rc = IMX_DBS_ERROR;
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
            w[i]->rc = IMX_DBS_ERROR;
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

/* Puts self at the back of q's queue, *now the time it came; returns with q's lock held. */
static void enqueue(struct imx_db_batcher *q, struct imx_db_waiter *self, struct timespec *now)
{
    if (!q->registered)
        register_batcher(q);
    self->next = NULL;
    self->batch = NULL;
    atomic_init(&self->word, QUEUED);
    clock_gettime(CLOCK_MONOTONIC, now);
    self->queued = *now;
    pthread_mutex_lock(&q->lock);
    if (q->tail)
        q->tail->next = self;
    else
        q->head = self;
    q->tail = self;
}

void imx_db_batch_start(struct imx_db_batcher *q, struct imx_db_waiter *self)
{
    pthread_once(&runners_once, start_runners);
    struct timespec now;
    enqueue(q, self, &now);
    /* Else the read in flight hands on when it ends (nudge), or a later arrival finds it slow. */
    if (may_read(q, &now))
        kick(q);
    pthread_mutex_unlock(&q->lock);
}

static void call_done(struct imx_db_waiter *w)
{
    struct imx_db_call *c = w->cls;
    c->wake(c->cls);
}

void imx_db_call_start(struct imx_db_batcher *b, struct imx_db_call *c, const void *arg,
                       void (*wake)(void *cls), void *cls)
{
    c->self = (struct imx_db_waiter){ .arg = arg, .done = call_done, .cls = c };
    c->wake = wake;
    c->cls = cls;
    imx_db_batch_start(b, &c->self);
}

struct imx_db_texts_call *imx_db_texts_start(struct imx_db_batcher *b, const char *const *texts,
                                             size_t cols, void (*wake)(void *cls), void *cls)
{
    size_t len[IMX_DB_BATCH_COLS_MAX], total = 0;
    if (cols > IMX_DB_BATCH_COLS_MAX)
        return NULL;
    for (size_t i = 0; i < cols; i++)
        total += (len[i] = texts[i] ? strlen(texts[i]) + 1 : 0);
    struct imx_db_texts_call *c = calloc(1, sizeof *c + total);
    if (!c)
        return NULL;
    char *at = (char *)(c + 1);
    for (size_t i = 0; i < cols; i++)
        if (texts[i]) {
            c->ask[i] = memcpy(at, texts[i], len[i]);
            at += len[i];
        }
    imx_db_call_start(b, &c->call, c->ask, wake, cls);
    return c;
}

void imx_db_texts_free(void *call)
{
    struct imx_db_texts_call *c = call;
    if (c)
        imx_db_batch_unref(c->call.self.batch);
    free(c);
}

void imx_db_batch_wait(struct imx_db_batcher *q, struct imx_db_waiter *self)
{
    self->done = NULL;
    struct timespec now;
    enqueue(q, self, &now);
    for (;;) {
        unsigned seen = atomic_load_explicit(&self->word, memory_order_acquire);
        if ((seen & STATE_MASK) == DONE)
            break;
        if ((seen & STATE_MASK) == QUEUED && may_read(q, &now)) {
            /* Lead: take the waiters queued so far (this one among them, at the back at most
             * max - 1 places behind: otherwise the next round takes it). */
            struct imx_db_waiter *w[IMX_DB_BATCH_MAX], *gone;
            size_t n = take(q, w, &now, &gone);
            pthread_mutex_unlock(&q->lock);
            bool gone_self = false;
            for (struct imx_db_waiter *g = gone; g; g = g->next)
                gone_self |= g == self;
            /* A waiter past its deadline leaves with its rc saying so (this one too, after
             * reading for the rest it took). */
            fail_expired(gone, self);
            if (n == 0) {
                pthread_mutex_lock(&q->lock);
                if (q->head)
                    nudge(q, q->head);
                if (!gone_self)
                    continue;
                pthread_mutex_unlock(&q->lock);
                return;
            }
            q->read(w, n);
            pthread_mutex_lock(&q->lock);
            q->readers--;
            /* Whoever waits at the front reads next. */
            if (q->head)
                nudge(q, q->head);
            pthread_mutex_unlock(&q->lock);
            bool mine = false;
            for (size_t i = 0; i < n; i++) {
                if (w[i] == self)
                    mine = true;
                else
                    finish(w[i]);
            }
            if (mine || gone_self)
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
