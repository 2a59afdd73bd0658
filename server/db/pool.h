/* A pool of libpq connections with lazily prepared statements and automatic reconnect. */
#ifndef IMX_DB_POOL_H
#define IMX_DB_POOL_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

/* Most prepared statements the program may declare. */
#define IMX_DB_MAX_STMTS 512

/* A statement prepared on each connection the first time it runs there.
 * Declare with IMX_DB_STMT; the slot is assigned on first use. */
struct imx_db_stmt {
    const char *sql;
    int nparams;
    _Atomic int slot;
};

#define IMX_DB_STMT(var, n, sqltext) static struct imx_db_stmt var = { sqltext, n, 0 }

struct imx_db_conn;

enum imx_db_failure {
    IMX_DB_OK,
    IMX_DB_UNAVAILABLE, /* cannot connect, or the connection broke */
    IMX_DB_BUSY,        /* no free connection within the acquire timeout */
};

struct imx_db_pool_stats {
    unsigned size, busy, waiting;
    unsigned long long acquire_timeouts, reconnects;
};

/* Opens nothing yet: connections are made on first use. url is copied.
 * stmt_ms sets statement_timeout on every connection. Returns 0 or -1. */
int imx_db_pool_init(const char *url, unsigned size, unsigned acquire_ms, unsigned stmt_ms);

/* Closes every connection. No connection may be in use. */
void imx_db_pool_shutdown(void);

/* Takes a connection, connecting or reconnecting it if needed. Returns NULL with *why set. */
struct imx_db_conn *imx_db_acquire(enum imx_db_failure *why);

/* Gives a connection back; one left inside a transaction is rolled back first. */
void imx_db_release(struct imx_db_conn *c);

/* Runs a prepared statement with text parameters (NULL = SQL NULL). Returns a new result
 * (PQclear it), never NULL. A broken connection outside a transaction is re-established and the
 * statement retried once. */
PGresult *imx_db_exec(struct imx_db_conn *c, struct imx_db_stmt *stmt, const char *const *params);

/* Runs a parameterless command (BEGIN, COMMIT, ROLLBACK, SET ...). Returns 0 or -1. */
int imx_db_command(struct imx_db_conn *c, const char *sql);

/* Was the result a success (tuples or command ok)? */
bool imx_db_ok(const PGresult *res);

/* The SQLSTATE of a failed result ("" when none: the connection is gone). Borrowed. */
const char *imx_db_sqlstate(const PGresult *res);

/* Is this connection usable (not broken)? */
bool imx_db_alive(const struct imx_db_conn *c);

/* Snapshot of pool counters for /metrics. */
void imx_db_pool_stats(struct imx_db_pool_stats *s);

/* Opens a standalone connection with the pool's settings (for migrations, LISTEN). NULL on error,
 * with the reason in err. */
PGconn *imx_db_connect_raw(const char *url, unsigned stmt_ms, char *err, size_t errlen);

#endif
