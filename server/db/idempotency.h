/* Idempotency-Key storage: the reply a (caller, route, key) got, so that a retried request is
 * answered with it instead of being done twice. Rows expire (imx_db_idempotency_prune). */
#ifndef IMX_DB_IDEMPOTENCY_H
#define IMX_DB_IDEMPOTENCY_H

#include <libpq-fe.h>

#include "db/pool.h"

/* The stored reply of user_id's key on route -> request_sha256, status, response (no row:
 * none, or expired). */
PGresult *imx_db_idempotency_get(struct imx_db_conn *c, const char *user_id, const char *route,
                                 const char *key);

/* Stores a reply (inside the transaction of the change it describes) -> one row when stored,
 * none when the key was taken meanwhile. */
PGresult *imx_db_idempotency_put(struct imx_db_conn *c, const char *user_id, const char *route,
                                 const char *key, const char *request_sha256, const char *status,
                                 const char *response);

/* Removes up to batch keys older than 24 hours -> one row: how many. */
PGresult *imx_db_idempotency_prune(struct imx_db_conn *c, const char *batch);

#endif
