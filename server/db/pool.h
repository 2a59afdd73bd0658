/* Pools of libpq connections with lazily prepared statements and automatic reconnect: one for the
 * primary (reads and writes) and, optionally, one for a read replica (reads that may lag). */
#ifndef IMX_DB_POOL_H
#define IMX_DB_POOL_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "db/status.h"

/* Most prepared statements the program may declare. */
#define IMX_DB_MAX_STMTS 512

/* A statement prepared on each connection the first time it runs there.
 * Declare with IMX_DB_STMT; the slot is assigned on first use. One declared with
 * IMX_DB_STMT_CUSTOM is sent unnamed instead (parsed and planned for its parameters on every
 * call): for catch-all filters ("$1 IS NULL OR ..."), whose generic plan, which PostgreSQL picks
 * for a prepared statement after five calls when it looks cheaper, cannot use the parameters'
 * values (the SQL facet statement's took 4x longer, bench/RESULTS.md). */
struct imx_db_stmt {
    const char *sql;
    int nparams;
    _Atomic int slot;
    bool custom_plan;
};

#define IMX_DB_STMT(var, n, sqltext)        static struct imx_db_stmt var = { sqltext, n, 0, false }
#define IMX_DB_STMT_CUSTOM(var, n, sqltext) static struct imx_db_stmt var = { sqltext, n, 0, true }

struct imx_db_conn;
struct imx_db_result;

struct imx_db_pool_stats {
    unsigned size, busy, waiting;
    unsigned long long acquire_timeouts, reconnects;
};

/* One pool: a fixed set of connections to one database. */
struct imx_db_pool;

/* A new pool; opens nothing yet: connections are made on first use. name (for logs) and url are
 * copied. stmt_ms sets statement_timeout on every connection. Returns NULL when out of memory. */
struct imx_db_pool *imx_db_pool_new(const char *name, const char *url, unsigned size,
                                    unsigned acquire_ms, unsigned stmt_ms)
    __attribute__((warn_unused_result));

/* Closes every connection and frees the pool. No connection may be in use. NULL is a no-op. */
void imx_db_pool_free(struct imx_db_pool *p);

/* Takes a connection from p, connecting or reconnecting it if needed. NULL with *why set. */
struct imx_db_conn *imx_db_pool_acquire(struct imx_db_pool *p, enum imx_db_status *why);

/* Snapshot of a pool's counters. */
void imx_db_pool_stats_of(struct imx_db_pool *p, struct imx_db_pool_stats *s);

/* Snapshot of the counters of the connections kept for coalesced reads. */
void imx_db_batch_pool_stats(struct imx_db_pool_stats *s);

/* The process's pools. The primary takes every write; the read pool exists only when
 * IMAXE_DATABASE_READ_URL is set. */

/* Creates the primary pool, and the connections kept for coalesced reads (imx_db_acquire_batch).
 * Returns 0 or -1 (out of memory). */
int imx_db_pool_init(const char *url, unsigned size, unsigned acquire_ms, unsigned stmt_ms);

/* Creates the read pool (a replica of the primary). Returns 0 or -1 (out of memory). */
int imx_db_read_pool_init(const char *url, unsigned size, unsigned acquire_ms, unsigned stmt_ms);

/* Is a read pool configured? */
bool imx_db_has_read_pool(void);

/* Closes and frees every pool. No connection may be in use. */
void imx_db_pool_shutdown(void);

/* Opens every connection not yet open of the primary pool, the coalesced reads' and the read
 * pool, one at a time (each taken from its pool while it connects, as a request would), and
 * stops at the first that fails: a server opens them at start-up, before it listens. Opened on
 * first use instead, the connections a burst of requests needs were all opened together, under
 * that burst: on 2 cores 32 of them held the first 3 s of searches up to 1.4 s (bench/RESULTS.md,
 * session 13). Logs how many are open and how long it took. */
void imx_db_pools_open(void);

/* Takes a primary connection. Returns NULL with *why set. */
struct imx_db_conn *imx_db_acquire(enum imx_db_status *why);

/* How many primary connections are kept for coalesced reads, beside the pool's: one for each read
 * that may be in flight for a batcher (db/read_batch.c's READERS_MAX, and its runners). Reads of
 * several batchers past that wait for one, at most a statement's time, since nothing else holds
 * them. */
#define IMX_DB_BATCH_CONNS 4

/* Takes a primary connection for one coalesced statement (db/read_batch.c), from the
 * IMX_DB_BATCH_CONNS kept for those. Nothing holds one of them but for that statement, so the
 * point reads are never queued behind handlers that hold every pooled connection while they
 * wait (on a lock, a slow search, a client reading an export). Returns NULL with *why set. */
struct imx_db_conn *imx_db_acquire_batch(enum imx_db_status *why);

/* Takes a connection for reads that may lag the primary slightly: from the read pool when one
 * is configured, else from the primary. Returns NULL with *why set. */
struct imx_db_conn *imx_db_acquire_read(enum imx_db_status *why);

/* The statement timeout every pooled connection was opened with (ms). */
unsigned imx_db_statement_timeout_ms(void);

/* IMAXE_NODE_STALE_S, set by main before any connection opens: every connection carries it as
 * the session setting imaxe.node_stale_s, which imx_node_stale_s() (procedures/nodes.sql) reads,
 * so SQL with no request to ask (webhook payloads, GET /v1/images/{id}/patch?nodes=true, the
 * exposure snapshot) and the handlers that pass it count running nodes by the same setting. */
void imx_db_set_node_stale_s(unsigned s);

/* Did c come from the read pool? */
bool imx_db_is_read_conn(const struct imx_db_conn *c);

/* Gives a connection back to its pool; one left inside a transaction is rolled back first.
 * NULL is a no-op. */
void imx_db_release(struct imx_db_conn *c);

/* Runs a parameterless command (BEGIN, COMMIT, ROLLBACK, SET ...): IMX_DBS_OK, or the failure. */
enum imx_db_status imx_db_command(struct imx_db_conn *c, const char *sql);

/* COMMIT on c, prepared so that a serialization failure reads as IMX_DBS_RETRY. */
enum imx_db_status imx_db_commit(struct imx_db_conn *c);

/* The steps of a transaction on one connection, as the handlers' runner (api/tx.c) and the
 * Idempotency-Key's (api/idempotency.c) take them. */
enum imx_db_tx_step {
    IMX_DB_TX_BEGIN,
    IMX_DB_TX_COMMIT, /* a serialization failure reads as IMX_DBS_RETRY */
    IMX_DB_TX_ROLLBACK,
    IMX_DB_TX_SAVEPOINT, /* a savepoint of its own inside the transaction ... */
    IMX_DB_TX_RELEASE,   /* ... kept */
    IMX_DB_TX_UNDO,      /* ... rolled back to */
};
/* Takes step on c: its status, and, when why is not NULL, a failure's detail in *why. */
enum imx_db_status imx_db_tx(struct imx_db_conn *c, enum imx_db_tx_step step,
                             struct imx_db_fault *why);

/* A run of rows of a succeeded result, borrowed from it: what the shared page renderer reads
 * (api/cursor.c), so that it needs no libpq of its own.
 * struct imx_db_result is opaque above server/db/. Row i of the view is row row0 + i. */
struct imx_db_rows {
    const struct imx_db_result *src; /* what it is is server/db/'s (db/internal.h) */
    int row0, n;
};

/* The text of column col in row i of v (NULL for SQL NULL), its length in *len when len is not
 * NULL. Borrowed from the result. */
const char *imx_db_rows_text(const struct imx_db_rows *v, int i, int col, size_t *len);

/* Finished JSON text PostgreSQL built, owned by the caller: zero copy out of the statement's
 * result, so a handler sends it as it is (imx_api_reply_json_text). text is valid until
 * imx_db_json_free. */
struct imx_db_json {
    char *text; /* NULL when the column was SQL NULL */
    size_t len;
    void *owner; /* what imx_db_json_free releases */
};

/* Releases j (a zeroed one, or one a failed call left zeroed, is a no-op). */
void imx_db_json_free(struct imx_db_json *j);

/* Frees an imx_db_json's owner: a free callback for a response that took the text. */
void imx_db_json_owner_free(void *owner);

/* An owned page of a list statement's rows: each row its key columns then the item's JSON text,
 * read through rows (imx_db_rows_text). Free with imx_db_page_free. */
struct imx_db_page {
    struct imx_db_rows rows;
    void *owner;
};

void imx_db_page_free(struct imx_db_page *p);

/* Is this connection usable (not broken)? */
bool imx_db_alive(const struct imx_db_conn *c);

/* Snapshot of the primary pool's counters for /metrics. */
void imx_db_pool_stats(struct imx_db_pool_stats *s);

/* Snapshot of the read pool's counters; false (and zeros) when there is none. */
bool imx_db_read_pool_stats(struct imx_db_pool_stats *s);

#endif
