/* What server/db/ shares inside itself and with nobody above it: libpq's types, the statement
 * runner, the helpers that turn a statement's result into a status and typed outputs, and the
 * shapes behind the types that are opaque above server/db/ (struct imx_db_result, struct
 * imx_db_batch). Only the .c files of server/db/ include it (tests/layers/test_layers.sh fails on
 * any other file of server/ that does); the integration tests that drive SQL directly may too. */
#ifndef IMX_DB_INTERNAL_H
#define IMX_DB_INTERNAL_H

#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "db/auth.h"
#include "db/pool.h"
#include "db/read_batch.h"
#include "db/status.h"

/* struct imx_db_result is a PGresult seen from above server/db/: these convert between them. */
static inline const PGresult *imx_db_pg(const struct imx_db_result *r)
{
    return (const PGresult *)(const void *)r;
}
static inline PGresult *imx_db_pg_mut(struct imx_db_result *r)
{
    return (PGresult *)(void *)r;
}
static inline struct imx_db_result *imx_db_result_of(PGresult *r)
{
    return (struct imx_db_result *)(void *)r;
}
static inline const struct imx_db_result *imx_db_result_const(const PGresult *r)
{
    return (const struct imx_db_result *)(const void *)r;
}

/* Every row of res (which must have succeeded). */
struct imx_db_rows imx_db_rows_all(const PGresult *res);

/* A cancel handle for the statement c runs next (PQcancel it from another thread; PQfreeCancel
 * it), or NULL. For db/read_batch.c's deadlines. */
PGcancel *imx_db_cancel_handle(struct imx_db_conn *c);

/* Runs a prepared statement with text parameters (NULL = SQL NULL). Returns a new result
 * (PQclear it), never NULL. A broken connection outside a transaction is re-established and the
 * statement retried once. */
PGresult *imx_db_exec(struct imx_db_conn *c, struct imx_db_stmt *stmt, const char *const *params);

/* Was the result a success (tuples or command ok)? */
bool imx_db_ok(const PGresult *res);

/* Turns a statement's result (stolen) into the status, and, with
 * out, column col of row 0 as JSON text (no row, or SQL NULL there: IMX_DBS_NOT_FOUND). A
 * failure or NOT_FOUND leaves *out zeroed. */
enum imx_db_status imx_db_json_take(PGresult *res, int col, struct imx_db_json *out);
/* The same for every row, as a page (an empty page is IMX_DBS_OK). */
enum imx_db_status imx_db_page_take(PGresult *res, struct imx_db_page *out);
/* The status of a statement whose rows nobody reads (stolen). */
enum imx_db_status imx_db_done(PGresult *res);
/* Column col of row 0 as an integer (no row: IMX_DBS_NOT_FOUND; SQL NULL reads 0), stolen. */
enum imx_db_status imx_db_int_take(PGresult *res, int col, long long *out);

/* The SQLSTATE of a failed result ("" when none: the connection is gone). Borrowed. */
const char *imx_db_sqlstate(const PGresult *res);

/* Opens a standalone connection with the pool's settings (for migrations, LISTEN). NULL on error,
 * with the reason in err. */
PGconn *imx_db_connect_raw(const char *url, unsigned stmt_ms, char *err, size_t errlen);

/* Fills f from r (NULL: the connection is gone) and returns f->status. A successful result
 * gives IMX_DBS_OK with an empty fault. */
enum imx_db_status imx_db_fault_of(const PGresult *r, struct imx_db_fault *f);

/* What a failed statement's result means; NULL (no answer at all) is IMX_DBS_UNAVAILABLE.
 * A successful result is IMX_DBS_OK. */
enum imx_db_status imx_db_status_of(const PGresult *r);

/* How the last failed statement on c failed (imx_db_exec, imx_db_command); a connection whose
 * last statement succeeded, or NULL, reads as a lost one. Borrowed until c's next statement.
 * Only server/db/ reads it, through imx_db_why: an operation hands its failure's detail back in
 * its own why, so nothing above server/db/ asks the connection what went wrong. */
const struct imx_db_fault *imx_db_last_fault(const struct imx_db_conn *c);

/* Returns st, and, for a caller that asked (why not NULL), its detail: c's last failure when
 * st is that statement's, else the operation's own answer (cause IMX_DBC_NONE). */
static inline enum imx_db_status imx_db_why(const struct imx_db_conn *c, enum imx_db_status st,
                                            struct imx_db_fault *why)
{
    if (why) {
        const struct imx_db_fault *f = imx_db_last_fault(c);
        if (st != IMX_DBS_OK && f->status == st)
            *why = *f;
        else
            *why = (struct imx_db_fault){ .status = st, .cause = IMX_DBC_NONE };
    }
    return st;
}

/* Takes res, whose row 0 starts (epoch, team id, role): IMX_DBS_OK with *t filled, or the
 * failure's status (t->res then holds the failed result, or NULL). */
enum imx_db_status imx_db_team_read_take(PGresult *res, struct imx_db_team_read *t);

/* One statement's result, shared by the requests it answered; freed with the last reference
 * (imx_db_batch_unref). */
struct imx_db_batch {
    PGresult *res;
    atomic_int refs;
};

/* Applies the migrations in dir on pg (imx_db_migrate's work, on a connection the caller opened:
 * the integration tests that build a schema without a server). */
int imx_migrate(PGconn *pg, const char *dir, int *latest, char *err, size_t errlen);

#endif
