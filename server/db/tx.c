/* Transactions for handlers: BEGIN, the work, COMMIT, retried on serialization failures and
 * deadlocks. */
#include "db/tx.h"

#include <string.h>

#include "api/api.h"
#include "util/log.h"

/* Prepared so that a failed COMMIT reports its SQLSTATE (a serialization failure). */
IMX_DB_STMT(q_commit, 0, "COMMIT");

static bool retryable(const PGresult *res)
{
    const char *state = imx_db_sqlstate(res);
    return strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0;
}

int imx_db_tx_fail(struct imx_req *r, PGresult *res)
{
    if (retryable(res))
        r->tx_retry = true;
    else
        imx_api_db_error(r, res);
    PQclear(res);
    return -1;
}

PGresult *imx_db_tx_commit(struct imx_db_conn *c)
{
    return imx_db_exec(c, &q_commit, NULL);
}

/* fn within a savepoint of the outer transaction (see db/tx.h). */
static int nested(struct imx_req *r, struct imx_db_conn *c, int (*fn)(struct imx_req *r, void *cls),
                  void *cls)
{
    for (int attempt = 1; attempt <= IMX_DB_TX_ATTEMPTS; attempt++) {
        r->tx_retry = false;
        if (imx_db_command(c, "SAVEPOINT imx_tx") != 0) {
            imx_api_db_error(r, NULL);
            return -1;
        }
        if (fn(r, cls) != 0) {
            imx_db_command(c, "ROLLBACK TO SAVEPOINT imx_tx");
            if (r->tx_retry)
                continue;
            if (r->reply.status == 0) {
                imx_error("transaction in request %s rolled back without a reply", r->request_id);
                imx_reply_problem(r, IMX_E_INTERNAL, NULL);
            }
            return -1;
        }
        if (imx_db_command(c, "RELEASE SAVEPOINT imx_tx") != 0) {
            imx_api_db_error(r, NULL);
            return -1;
        }
        return 0;
    }
    imx_reply_header(r, "Retry-After", "1");
    imx_reply_problem(r, IMX_E_CONFLICT, "Concurrent changes kept conflicting; try again");
    return -1;
}

int imx_db_tx(struct imx_req *r, int (*fn)(struct imx_req *r, void *cls), void *cls)
{
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return -1;
    if (r->tx_outer)
        return nested(r, c, fn, cls);
    for (int attempt = 1; attempt <= IMX_DB_TX_ATTEMPTS; attempt++) {
        r->tx_retry = false;
        if (imx_db_command(c, "BEGIN") != 0) {
            imx_api_db_error(r, NULL);
            return -1;
        }
        if (fn(r, cls) != 0) {
            imx_db_command(c, "ROLLBACK");
            if (r->tx_retry)
                continue;
            if (r->reply.status == 0) {
                imx_error("transaction in request %s rolled back without a reply", r->request_id);
                imx_reply_problem(r, IMX_E_INTERNAL, NULL);
            }
            return -1;
        }
        PGresult *res = imx_db_exec(c, &q_commit, NULL);
        if (imx_db_ok(res)) {
            PQclear(res);
            return 0;
        }
        if (retryable(res)) {
            PQclear(res);
            imx_db_command(c, "ROLLBACK");
            continue;
        }
        imx_api_db_error(r, res);
        PQclear(res);
        imx_db_command(c, "ROLLBACK");
        return -1;
    }
    imx_warn("request %s: transaction gave up after %d serialization failures", r->request_id,
             IMX_DB_TX_ATTEMPTS);
    imx_reply_header(r, "Retry-After", "1");
    imx_reply_problem(r, IMX_E_CONFLICT, "Concurrent changes kept conflicting; try again");
    return -1;
}
