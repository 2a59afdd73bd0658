/* Pools of libpq connections with lazily prepared statements and automatic reconnect: one for the
 * primary (reads and writes) and, optionally, one for a read replica (reads that may lag). */
#include "db/pool.h"
#include "db/internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/log.h"

struct imx_db_conn {
    struct imx_db_pool *pool; /* borrowed: the pool this connection belongs to */
    PGconn *pg;
    uint64_t prepared[IMX_DB_MAX_STMTS / 64];
    bool in_use;
    bool broken;
    struct imx_db_fault fault; /* of the last statement that failed since one succeeded */
};

/* A request waiting for a connection: release hands one straight to the oldest waiter, so
 * waits are first come, first served and a newcomer never overtakes a waiter. */
struct waiter {
    struct waiter *next;
    pthread_cond_t ready;
    struct imx_db_conn *conn; /* set by release: the connection handed over */
};

struct imx_db_pool {
    pthread_mutex_t lock;
    struct waiter *head, *tail; /* waiters, oldest first */
    struct imx_db_conn *conns;
    unsigned size, busy, waiting;
    unsigned acquire_ms, stmt_ms;
    char *name; /* "primary" or "read", for logs */
    char *url;
    bool is_read;
    struct timespec last_failure; /* of a connect attempt; throttles reconnect storms */
    unsigned long long acquire_timeouts, reconnects;
};

/* Set once at start-up before any request thread exists, cleared after the last one ends. */
static struct imx_db_pool *primary, *replica, *batch;

static atomic_int next_slot = 1;

/* Wait this long after a failed connect before trying again, so a down database answers fast. */
#define RECONNECT_BACKOFF_MS 500

static _Atomic unsigned node_stale_s = 900;

void imx_db_set_node_stale_s(unsigned s)
{
    atomic_store(&node_stale_s, s);
}

PGconn *imx_db_connect_raw(const char *url, unsigned stmt_ms, char *err, size_t errlen)
{
    /* jit=off: PostgreSQL JIT-compiles a statement whose estimate passes jit_above_cost, and a
     * publish's (JSON set functions are estimated at 100 rows each) crossed it: 138 ms of
     * compiling for 1 ms of work. No statement of ours runs long enough to win that back. */
    char options[192];
    snprintf(options, sizeof options,
             "-c statement_timeout=%u -c idle_in_transaction_session_timeout=%u -c jit=off"
             " -c imaxe.node_stale_s=%u",
             stmt_ms, stmt_ms * 2 + 1000, atomic_load(&node_stale_s));
    /* With expand_dbname the URL expands first; later keywords override it. */
    const char *keys[] = { "dbname", "connect_timeout", "options", "application_name", NULL };
    const char *vals[] = { url, "3", options, "imaxe", NULL };
    PGconn *pg = PQconnectdbParams(keys, vals, 1);
    if (!pg || PQstatus(pg) != CONNECTION_OK) {
        if (err) {
            snprintf(err, errlen, "%s", pg ? PQerrorMessage(pg) : "out of memory");
            char *nl = strchr(err, '\n');
            if (nl)
                *nl = '\0';
        }
        PQfinish(pg);
        return NULL;
    }
    return pg;
}

struct imx_db_pool *imx_db_pool_new(const char *name, const char *url, unsigned size,
                                    unsigned acquire_ms, unsigned stmt_ms)
{
    struct imx_db_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->conns = calloc(size, sizeof *p->conns);
    p->name = strdup(name);
    p->url = strdup(url);
    if (!p->conns || !p->name || !p->url || pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p->conns);
        free(p->name);
        free(p->url);
        free(p);
        return NULL;
    }
    for (unsigned i = 0; i < size; i++)
        p->conns[i].pool = p;
    p->size = size;
    p->acquire_ms = acquire_ms;
    p->stmt_ms = stmt_ms;
    return p;
}

void imx_db_pool_free(struct imx_db_pool *p)
{
    if (!p)
        return;
    for (unsigned i = 0; i < p->size; i++)
        PQfinish(p->conns[i].pg);
    pthread_mutex_destroy(&p->lock);
    free(p->conns);
    free(p->name);
    free(p->url);
    free(p);
}

static _Atomic unsigned statement_ms = 5000;

unsigned imx_db_statement_timeout_ms(void)
{
    return atomic_load(&statement_ms);
}

PGcancel *imx_db_cancel_handle(struct imx_db_conn *c)
{
    return c && c->pg ? PQgetCancel(c->pg) : NULL;
}

int imx_db_pool_init(const char *url, unsigned size, unsigned acquire_ms, unsigned stmt_ms)
{
    atomic_store(&statement_ms, stmt_ms ? stmt_ms : 5000);
    primary = imx_db_pool_new("primary", url, size, acquire_ms, stmt_ms);
    batch =
        imx_db_pool_new("primary (coalesced reads)", url, IMX_DB_BATCH_CONNS, acquire_ms, stmt_ms);
    if (primary && batch)
        return 0;
    imx_db_pool_free(primary);
    imx_db_pool_free(batch);
    primary = batch = NULL;
    return -1;
}

int imx_db_read_pool_init(const char *url, unsigned size, unsigned acquire_ms, unsigned stmt_ms)
{
    replica = imx_db_pool_new("read", url, size, acquire_ms, stmt_ms);
    if (!replica)
        return -1;
    replica->is_read = true;
    return 0;
}

bool imx_db_has_read_pool(void)
{
    return replica != NULL;
}

void imx_db_pool_shutdown(void)
{
    imx_db_pool_free(replica);
    imx_db_pool_free(batch);
    imx_db_pool_free(primary);
    replica = batch = primary = NULL;
}

static long ms_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* (Re)connects c unless a recent attempt failed. Called without the pool lock. */
static bool ensure_connected(struct imx_db_conn *c)
{
    if (c->pg && !c->broken && PQstatus(c->pg) == CONNECTION_OK)
        return true;
    struct imx_db_pool *pool = c->pool;
    pthread_mutex_lock(&pool->lock);
    bool throttled =
        pool->last_failure.tv_sec != 0 && ms_since(&pool->last_failure) < RECONNECT_BACKOFF_MS;
    pthread_mutex_unlock(&pool->lock);
    if (throttled)
        return false;

    bool had = c->pg != NULL;
    PQfinish(c->pg);
    memset(c->prepared, 0, sizeof c->prepared);
    c->broken = false;
    char err[256];
    c->pg = imx_db_connect_raw(pool->url, pool->stmt_ms, err, sizeof err);
    pthread_mutex_lock(&pool->lock);
    if (!c->pg) {
        clock_gettime(CLOCK_MONOTONIC, &pool->last_failure);
    } else {
        pool->last_failure.tv_sec = 0;
        if (had)
            pool->reconnects++;
    }
    pthread_mutex_unlock(&pool->lock);
    if (!c->pg) {
        imx_warn("%s database connection failed: %s", pool->name, err);
        return false;
    }
    return true;
}

struct imx_db_conn *imx_db_pool_acquire(struct imx_db_pool *pool, enum imx_db_status *why)
{
    struct timespec deadline;
    struct imx_db_conn *c = NULL;

    if (!pool) {
        *why = IMX_DBS_UNAVAILABLE;
        return NULL;
    }
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += pool->acquire_ms / 1000;
    deadline.tv_nsec += (long)(pool->acquire_ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
    }

    pthread_mutex_lock(&pool->lock);
    /* Take a free connection only when nobody is waiting for one. */
    if (!pool->head) {
        /* Prefer a connection that is already open. */
        for (unsigned i = 0; i < pool->size && !c; i++)
            if (!pool->conns[i].in_use && pool->conns[i].pg)
                c = &pool->conns[i];
        for (unsigned i = 0; i < pool->size && !c; i++)
            if (!pool->conns[i].in_use)
                c = &pool->conns[i];
        if (c) {
            c->in_use = true;
            pool->busy++;
        }
    }
    if (!c) {
        struct waiter w = { .next = NULL, .conn = NULL };
        pthread_cond_init(&w.ready, NULL);
        if (pool->tail)
            pool->tail->next = &w;
        else
            pool->head = &w;
        pool->tail = &w;
        pool->waiting++;
        while (!w.conn)
            if (pthread_cond_timedwait(&w.ready, &pool->lock, &deadline) != 0)
                break;
        pool->waiting--;
        c = w.conn; /* handed over already marked in use, even if it came with the timeout */
        if (!c) {
            /* Timed out: leave the queue. */
            struct waiter **pp = &pool->head, *prev = NULL;
            while (*pp != &w) {
                prev = *pp;
                pp = &(*pp)->next;
            }
            *pp = w.next;
            if (pool->tail == &w)
                pool->tail = prev;
            pool->acquire_timeouts++;
        }
        pthread_cond_destroy(&w.ready);
        if (!c) {
            pthread_mutex_unlock(&pool->lock);
            *why = IMX_DBS_BUSY;
            return NULL;
        }
    }
    pthread_mutex_unlock(&pool->lock);

    if (!ensure_connected(c)) {
        imx_db_release(c);
        *why = IMX_DBS_UNAVAILABLE;
        return NULL;
    }
    *why = IMX_DBS_OK;
    return c;
}

struct imx_db_conn *imx_db_acquire(enum imx_db_status *why)
{
    return imx_db_pool_acquire(primary, why);
}

struct imx_db_conn *imx_db_acquire_batch(enum imx_db_status *why)
{
    return imx_db_pool_acquire(batch ? batch : primary, why);
}

struct imx_db_conn *imx_db_acquire_read(enum imx_db_status *why)
{
    return imx_db_pool_acquire(replica ? replica : primary, why);
}

bool imx_db_is_read_conn(const struct imx_db_conn *c)
{
    return c && c->pool->is_read;
}

void imx_db_release(struct imx_db_conn *c)
{
    if (!c)
        return;
    struct imx_db_pool *pool = c->pool;
    if (c->pg && !c->broken && PQtransactionStatus(c->pg) != PQTRANS_IDLE) {
        PGresult *res = PQexec(c->pg, "ROLLBACK");
        PQclear(res);
        if (PQtransactionStatus(c->pg) != PQTRANS_IDLE)
            c->broken = true;
    }
    pthread_mutex_lock(&pool->lock);
    struct waiter *w = pool->head;
    if (w) {
        /* Hand it straight to the oldest waiter: it stays in use and busy. */
        pool->head = w->next;
        if (!pool->head)
            pool->tail = NULL;
        w->conn = c;
        pthread_cond_signal(&w->ready);
    } else {
        c->in_use = false;
        pool->busy--;
    }
    pthread_mutex_unlock(&pool->lock);
}

static unsigned pool_open(struct imx_db_pool *pool)
{
    unsigned open = 0;
    for (unsigned i = 0; pool && i < pool->size; i++) {
        struct imx_db_conn *c = &pool->conns[i];
        pthread_mutex_lock(&pool->lock);
        bool take = !c->in_use && !c->pg;
        if (take) {
            c->in_use = true;
            pool->busy++;
        }
        open += !take && c->pg;
        pthread_mutex_unlock(&pool->lock);
        if (!take)
            continue;
        bool ok = ensure_connected(c);
        imx_db_release(c);
        if (!ok)
            break;
        open++;
    }
    return open;
}

void imx_db_pools_open(void)
{
    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);
    unsigned open = pool_open(primary) + pool_open(batch) + pool_open(replica);
    imx_info("%u database connections open (%ld ms)", open, ms_since(&started));
}

bool imx_db_ok(const PGresult *res)
{
    ExecStatusType s = PQresultStatus(res);
    return s == PGRES_TUPLES_OK || s == PGRES_COMMAND_OK;
}

struct imx_db_rows imx_db_rows_all(const PGresult *res)
{
    return (struct imx_db_rows){ .src = imx_db_result_const(res), .row0 = 0, .n = PQntuples(res) };
}

const char *imx_db_rows_text(const struct imx_db_rows *v, int i, int col, size_t *len)
{
    int row = v->row0 + i;
    bool null = PQgetisnull(imx_db_pg(v->src), row, col);
    if (len)
        *len = null ? 0 : (size_t)PQgetlength(imx_db_pg(v->src), row, col);
    return null ? NULL : PQgetvalue(imx_db_pg(v->src), row, col);
}

const struct imx_db_fault *imx_db_last_fault(const struct imx_db_conn *c)
{
    static const struct imx_db_fault lost = { .status = IMX_DBS_UNAVAILABLE,
                                              .cause = IMX_DBC_LOST };
    return c && c->fault.status != IMX_DBS_OK ? &c->fault : &lost;
}

const char *imx_db_sqlstate(const PGresult *res)
{
    const char *s = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    return s ? s : "";
}

bool imx_db_alive(const struct imx_db_conn *c)
{
    return c && c->pg && !c->broken && PQstatus(c->pg) == CONNECTION_OK;
}

static int stmt_slot(struct imx_db_stmt *stmt)
{
    int slot = atomic_load(&stmt->slot);
    if (slot == 0) {
        int fresh = atomic_fetch_add(&next_slot, 1);
        int expected = 0;
        if (fresh >= IMX_DB_MAX_STMTS) {
            imx_error("more than %d prepared statements: raise IMX_DB_MAX_STMTS", IMX_DB_MAX_STMTS);
            abort();
        }
        slot = atomic_compare_exchange_strong(&stmt->slot, &expected, fresh) ? fresh : expected;
    }
    return slot;
}

static PGresult *exec_once(struct imx_db_conn *c, struct imx_db_stmt *stmt,
                           const char *const *params)
{
    if (stmt->custom_plan)
        return PQexecParams(c->pg, stmt->sql, stmt->nparams, NULL, params, NULL, NULL, 0);
    int slot = stmt_slot(stmt);
    char name[16];
    snprintf(name, sizeof name, "s%d", slot);
    if (!(c->prepared[slot / 64] & (1ULL << (slot % 64)))) {
        PGresult *res = PQprepare(c->pg, name, stmt->sql, stmt->nparams, NULL);
        if (PQresultStatus(res) != PGRES_COMMAND_OK)
            return res;
        PQclear(res);
        c->prepared[slot / 64] |= 1ULL << (slot % 64);
    }
    return PQexecPrepared(c->pg, name, stmt->nparams, params, NULL, NULL, 0);
}

PGresult *imx_db_exec(struct imx_db_conn *c, struct imx_db_stmt *stmt, const char *const *params)
{
    bool in_tx = c->pg && PQtransactionStatus(c->pg) != PQTRANS_IDLE;
    PGresult *res = exec_once(c, stmt, params);
    if (PQstatus(c->pg) != CONNECTION_OK) {
        c->broken = true;
        /* Outside a transaction nothing was half-done: reconnect and try once more. */
        if (!in_tx && ensure_connected(c)) {
            PQclear(res);
            res = exec_once(c, stmt, params);
        }
    }
    if (!res)
        res = PQmakeEmptyPGresult(NULL, PGRES_FATAL_ERROR);
    if (!imx_db_ok(res) && *imx_db_sqlstate(res) == '\0' && PQstatus(c->pg) != CONNECTION_OK)
        c->broken = true;
    if (imx_db_ok(res))
        c->fault.status = IMX_DBS_OK;
    else
        imx_db_fault_of(res, &c->fault);
    return res;
}

enum imx_db_status imx_db_command(struct imx_db_conn *c, const char *sql)
{
    PGresult *res = PQexec(c->pg, sql);
    enum imx_db_status st = IMX_DBS_OK;
    if (!imx_db_ok(res)) {
        if (PQstatus(c->pg) != CONNECTION_OK)
            c->broken = true;
        st = imx_db_fault_of(res, &c->fault);
    }
    PQclear(res);
    return st;
}

void imx_db_pool_stats_of(struct imx_db_pool *p, struct imx_db_pool_stats *s)
{
    pthread_mutex_lock(&p->lock);
    s->size = p->size;
    s->busy = p->busy;
    s->waiting = p->waiting;
    s->acquire_timeouts = p->acquire_timeouts;
    s->reconnects = p->reconnects;
    pthread_mutex_unlock(&p->lock);
}

/* p's counters, or zeros (false) when p does not exist. */
static bool stats_or_zero(struct imx_db_pool *p, struct imx_db_pool_stats *s)
{
    memset(s, 0, sizeof *s);
    if (p)
        imx_db_pool_stats_of(p, s);
    return p != NULL;
}

void imx_db_pool_stats(struct imx_db_pool_stats *s)
{
    stats_or_zero(primary, s);
}

void imx_db_batch_pool_stats(struct imx_db_pool_stats *s)
{
    stats_or_zero(batch, s);
}

bool imx_db_read_pool_stats(struct imx_db_pool_stats *s)
{
    return stats_or_zero(replica, s);
}

/* Prepared so that a failed COMMIT reports its SQLSTATE (a serialization failure). */
IMX_DB_STMT(q_commit, 0, "COMMIT");

enum imx_db_status imx_db_commit(struct imx_db_conn *c)
{
    PGresult *res = imx_db_exec(c, &q_commit, NULL);
    enum imx_db_status st = imx_db_status_of(res);
    PQclear(res);
    return st;
}

enum imx_db_status imx_db_tx(struct imx_db_conn *c, enum imx_db_tx_step step,
                             struct imx_db_fault *why)
{
    static const char *const sql[] = {
        [IMX_DB_TX_BEGIN] = "BEGIN",
        [IMX_DB_TX_ROLLBACK] = "ROLLBACK",
        [IMX_DB_TX_SAVEPOINT] = "SAVEPOINT imx_tx",
        [IMX_DB_TX_RELEASE] = "RELEASE SAVEPOINT imx_tx",
        [IMX_DB_TX_UNDO] = "ROLLBACK TO SAVEPOINT imx_tx",
    };
    enum imx_db_status st;
    if (step == IMX_DB_TX_COMMIT)
        st = imx_db_commit(c);
    else
        st = imx_db_command(c, sql[step]);
    if (why && st != IMX_DBS_OK)
        *why = c->fault;
    return st;
}

void imx_db_json_owner_free(void *owner)
{
    PQclear(owner);
}

void imx_db_json_free(struct imx_db_json *j)
{
    if (!j)
        return;
    PQclear(j->owner);
    *j = (struct imx_db_json){ 0 };
}

void imx_db_page_free(struct imx_db_page *p)
{
    if (!p)
        return;
    PQclear(p->owner);
    *p = (struct imx_db_page){ 0 };
}

enum imx_db_status imx_db_json_take(PGresult *res, int col, struct imx_db_json *out)
{
    *out = (struct imx_db_json){ 0 };
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && (PQntuples(res) == 0 || PQgetisnull(res, 0, col)))
        st = IMX_DBS_NOT_FOUND;
    if (st != IMX_DBS_OK) {
        PQclear(res);
        return st;
    }
    out->text = PQgetvalue(res, 0, col);
    out->len = (size_t)PQgetlength(res, 0, col);
    out->owner = res;
    return IMX_DBS_OK;
}

enum imx_db_status imx_db_page_take(PGresult *res, struct imx_db_page *out)
{
    *out = (struct imx_db_page){ 0 };
    enum imx_db_status st = imx_db_status_of(res);
    if (st != IMX_DBS_OK) {
        PQclear(res);
        return st;
    }
    out->rows = imx_db_rows_all(res);
    out->owner = res;
    return IMX_DBS_OK;
}

enum imx_db_status imx_db_done(PGresult *res)
{
    enum imx_db_status st = imx_db_status_of(res);
    PQclear(res);
    return st;
}

enum imx_db_status imx_db_int_take(PGresult *res, int col, long long *out)
{
    *out = 0;
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) == 0)
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK)
        *out = strtoll(PQgetvalue(res, 0, col), NULL, 10);
    PQclear(res);
    return st;
}
