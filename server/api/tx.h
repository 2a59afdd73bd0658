/* Transactions for handlers: BEGIN, the work, COMMIT, retried on serialization failures and
 * deadlocks. The runner sits with the handlers (as Taler's TEH_DB_run_transaction does): it
 * answers with problems, which server/db/ never does. */
#ifndef IMX_API_TX_H
#define IMX_API_TX_H

#include <stdbool.h>

#include "db/status.h"
#include "http/request.h"

/* Most attempts of one transaction (the first and the retries). */
#define IMX_API_TX_ATTEMPTS 4

/* Runs fn(r, cls) between BEGIN and COMMIT on imx_api_db(r). fn returns 0 to commit, or -1 to
 * roll back after replying. On a failed statement fn returns imx_api_tx_fail(r, status): a
 * serialization failure or deadlock (IMX_DBS_RETRY, and the same at COMMIT) retries the whole
 * transaction up to 3 times, so fn must not have replied then; other failures are answered
 * through imx_api_db_error. Returns 0 when committed (fn's reply stands), -1 when rolled back (a
 * reply is set). */
int imx_api_tx(struct imx_req *r, int (*fn)(struct imx_req *r, void *cls), void *cls);
/* Inside an outer transaction (imx_api_tx_outer: server/api/idempotency.c), imx_api_tx runs fn
 * within a savepoint instead: a retry or a refusal rolls back to it, success releases it, and the
 * outer transaction commits or rolls back everything once the handler has replied. */
void imx_api_tx_outer(struct imx_req *r, bool on);

/* For fn: handles a failed db/ call's status and the detail it handed back (why, may be NULL):
 * marks IMX_DBS_RETRY for a retry, or replies with the problem for the failed statement
 * (imx_api_db_error), or for the status when no statement failed (imx_api_reply_db_status).
 * Returns -1, for `return imx_api_tx_fail(r, st, &why);`. */
int imx_api_tx_fail(struct imx_req *r, enum imx_db_status st, const struct imx_db_fault *why);

#endif
