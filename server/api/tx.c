/* The handler's database connection and its transactions: BEGIN, the work, COMMIT, retried on
 * serialization failures and deadlocks (api/tx.h); imx_api_db and its kin (api/api.h). */
#include "api/tx.h"

#include <stdbool.h>

#include "api/api.h"
#include "db/pool.h"
#include "util/log.h"

/* What a handler holds of the database, kept here rather than in the request (http/ knows
 * nothing of the database). A handler runs start to end on the worker thread that admitted its
 * request (http/server.c), and one thread answers one request at a time, so the state is the
 * thread's: req names the request it belongs to, and imx_api_db_put, called on that thread when
 * the handler is done, clears it. */
struct scope {
    const struct imx_req *req;
    struct imx_db_conn *db; /* pooled connection while the handler runs */
    bool retry;             /* a statement in imx_api_tx failed with IMX_DBS_RETRY */
    bool outer; /* the handler runs inside an Idempotency-Key transaction: imx_api_tx nests */
};
static _Thread_local struct scope scope;

/* The thread's scope made r's. A connection still held for another request (which cannot
 * happen while every path ends in imx_api_db_put) goes back rather than cross over. */
static struct scope *scope_of(const struct imx_req *r)
{
    if (scope.req != r) {
        if (scope.db) {
            imx_error("request %s: a connection of an earlier request was still held",
                      r->request_id);
            imx_db_release(scope.db);
        }
        scope = (struct scope){ .req = r };
    }
    return &scope;
}

/* The one acquire path. Keeps the connection r holds when it serves: any for a read (once the
 * request holds a primary connection it keeps reading there: it sees its own writes, and one
 * request never holds two connections), a primary one for a write (a read connection taken
 * earlier in this request goes back: writes go to the primary). Else takes one from the pool;
 * replies 503 when none comes, unless quiet. */
static struct imx_db_conn *take(struct imx_req *r, bool write, bool quiet)
{
    struct scope *s = scope_of(r);
    if (s->db && (!write || !imx_db_is_read_conn(s->db)))
        return s->db;
    imx_db_release(s->db);
    enum imx_db_status why;
    s->db = write ? imx_db_acquire(&why) : imx_db_acquire_read(&why);
    if (!s->db && !quiet)
        imx_api_reply_db_status(r, why);
    return s->db;
}

struct imx_db_conn *imx_api_db(struct imx_req *r)
{
    return take(r, true, false);
}

struct imx_db_conn *imx_api_db_read(struct imx_req *r)
{
    return take(r, false, false);
}

struct imx_db_conn *imx_api_db_quiet(struct imx_req *r)
{
    /* any connection held serves the principal checks it is for */
    return imx_api_conn(r) ? imx_api_conn(r) : take(r, true, true);
}

struct imx_db_conn *imx_api_conn(const struct imx_req *r)
{
    return scope.req == r ? scope.db : NULL;
}

void imx_api_db_put(struct imx_req *r)
{
    if (scope.req != r)
        return;
    imx_db_release(scope.db);
    scope.db = NULL;
}

void imx_api_db_done(struct imx_req *r)
{
    imx_api_db_put(r);
    if (scope.req == r)
        scope = (struct scope){ 0 };
}

int imx_api_tx_fail(struct imx_req *r, enum imx_db_status st, const struct imx_db_fault *why)
{
    if (st == IMX_DBS_RETRY)
        scope_of(r)->retry = true;
    else
        imx_api_reply_db_fault(r, st, why);
    return -1;
}

void imx_api_tx_outer(struct imx_req *r, bool on)
{
    scope_of(r)->outer = on;
}

/* The one transaction loop: fn between BEGIN and COMMIT, or, inside the outer transaction of an
 * Idempotency-Key (see api/tx.h), between a savepoint and its release; run again when a statement
 * of fn asked for it (imx_api_tx_fail with IMX_DBS_RETRY) or, for a transaction of its own, when
 * COMMIT failed to serialize. */
int imx_api_tx(struct imx_req *r, int (*fn)(struct imx_req *r, void *cls), void *cls)
{
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return -1;
    bool nested = scope.outer;
    enum imx_db_tx_step begin = nested ? IMX_DB_TX_SAVEPOINT : IMX_DB_TX_BEGIN;
    enum imx_db_tx_step undo = nested ? IMX_DB_TX_UNDO : IMX_DB_TX_ROLLBACK;
    struct imx_db_fault why;
    for (int attempt = 1; attempt <= IMX_API_TX_ATTEMPTS; attempt++) {
        scope.retry = false;
        if (imx_db_tx(c, begin, &why) != IMX_DBS_OK) {
            imx_api_db_error(r, &why);
            return -1;
        }
        if (fn(r, cls) != 0) {
            imx_db_tx(c, undo, NULL);
            if (scope.retry)
                continue;
            if (r->reply.status == 0) {
                imx_error("transaction in request %s rolled back without a reply", r->request_id);
                imx_reply_problem(r, IMX_E_INTERNAL, NULL);
            }
            return -1;
        }
        if (nested) {
            if (imx_db_tx(c, IMX_DB_TX_RELEASE, &why) == IMX_DBS_OK)
                return 0;
            imx_api_db_error(r, &why);
            return -1;
        }
        enum imx_db_status st = imx_db_tx(c, IMX_DB_TX_COMMIT, &why);
        if (st == IMX_DBS_OK)
            return 0;
        imx_db_tx(c, IMX_DB_TX_ROLLBACK, NULL);
        if (st != IMX_DBS_RETRY) {
            imx_api_db_error(r, &why);
            return -1;
        }
    }
    if (!nested)
        imx_warn("request %s: transaction gave up after %d serialization failures", r->request_id,
                 IMX_API_TX_ATTEMPTS);
    imx_reply_header(r, "Retry-After", "1");
    imx_reply_problem(r, IMX_E_CONFLICT, "Concurrent changes kept conflicting; try again");
    return -1;
}
