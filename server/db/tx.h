/* Transactions for handlers: BEGIN, the work, COMMIT, retried on serialization failures and
 * deadlocks. */
#ifndef IMX_DB_TX_H
#define IMX_DB_TX_H

#include <libpq-fe.h>

#include "http/request.h"

/* Most attempts of one transaction (the first and the retries). */
#define IMX_DB_TX_ATTEMPTS 4

/* Runs fn(r, cls) between BEGIN and COMMIT on imx_api_db(r). fn returns 0 to commit, or -1 to
 * roll back after replying. On a failed statement fn returns imx_db_tx_fail(r, res): SQLSTATE
 * 40001/40P01 (and the same at COMMIT) retry the whole transaction up to 3 times, so fn must not
 * have replied then; other failures are answered through imx_api_db_error. Returns 0 when
 * committed (fn's reply stands), -1 when rolled back (a reply is set). */
int imx_db_tx(struct imx_req *r, int (*fn)(struct imx_req *r, void *cls), void *cls);
/* Inside an outer transaction (r->tx_outer: server/api/idempotency.c), imx_db_tx runs fn within a
 * savepoint instead: a retry or a refusal rolls back to it, success releases it, and the outer
 * transaction commits or rolls back everything once the handler has replied. */

/* COMMIT on c, prepared so that a failure reports its SQLSTATE. New result. */
PGresult *imx_db_tx_commit(struct imx_db_conn *c);

/* For fn: handles a failed result (steals res): marks a retryable failure, or replies with the
 * problem for it. Returns -1, for `return imx_db_tx_fail(r, res);`. */
int imx_db_tx_fail(struct imx_req *r, PGresult *res);

#endif
