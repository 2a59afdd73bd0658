/* Transactions for handlers: BEGIN, the work, COMMIT, retried on serialization failures and
 * deadlocks (api/tx.h). */
#include "api/tx.h"

#include "api/api.h"
#include "db/pool.h"
#include "util/log.h"

int imx_api_tx_fail(struct imx_req *r, enum imx_db_status st)
{
    if (st == IMX_DBS_RETRY)
        r->tx_retry = true;
    else
        imx_api_reply_db_fail(r, st);
    return -1;
}

/* fn within a savepoint of the outer transaction (see api/tx.h). */
static int nested(struct imx_req *r, struct imx_db_conn *c, int (*fn)(struct imx_req *r, void *cls),
                  void *cls)
{
    for (int attempt = 1; attempt <= IMX_API_TX_ATTEMPTS; attempt++) {
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

int imx_api_tx(struct imx_req *r, int (*fn)(struct imx_req *r, void *cls), void *cls)
{
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return -1;
    if (r->tx_outer)
        return nested(r, c, fn, cls);
    for (int attempt = 1; attempt <= IMX_API_TX_ATTEMPTS; attempt++) {
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
        enum imx_db_status st = imx_db_commit(c);
        if (st == IMX_DBS_OK)
            return 0;
        if (st == IMX_DBS_RETRY) {
            imx_db_command(c, "ROLLBACK");
            continue;
        }
        imx_api_db_error(r, imx_db_last_fault(c));
        imx_db_command(c, "ROLLBACK");
        return -1;
    }
    imx_warn("request %s: transaction gave up after %d serialization failures", r->request_id,
             IMX_API_TX_ATTEMPTS);
    imx_reply_header(r, "Retry-After", "1");
    imx_reply_problem(r, IMX_E_CONFLICT, "Concurrent changes kept conflicting; try again");
    return -1;
}
