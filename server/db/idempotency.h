/* Idempotency-Key storage: the reply a principal got for a key, with the fingerprint of the
 * request it answered, so that a retry is answered with it instead of being done twice
 * (server/api/idempotency.c). Rows expire after the TTL (imx_db_idempotency_prune). */
#ifndef IMX_DB_IDEMPOTENCY_H
#define IMX_DB_IDEMPOTENCY_H

#include <libpq-fe.h>
#include <stdbool.h>

#include "db/pool.h"

/* How many hours a stored reply is kept and replayed (IMAXE_IDEMPOTENCY_TTL_H; default 24). */
void imx_db_idempotency_set_ttl(unsigned hours);
unsigned imx_db_idempotency_ttl(void);

/* Inside a transaction: takes the key's transaction lock without waiting -> 1 taken, 0 held by
 * another transaction (the same key still in flight), -1 failed (*res: the failed result, new;
 * NULL otherwise). The lock ends with the transaction. */
int imx_db_idempotency_lock(struct imx_db_conn *c, const char *user_id, const char *token_id,
                            const char *key, PGresult **res);

/* The live stored reply of the key -> fingerprint, status, content_type, headers (JSON array of
 * [name, value]), body; no row when none (or expired). New result. */
PGresult *imx_db_idempotency_get(struct imx_db_conn *c, const char *user_id, const char *token_id,
                                 const char *key);

/* Stores a reply, inside the transaction of the change it describes (an expired row of the key
 * is replaced) -> one row when stored, none when a live row holds the key. New result. */
PGresult *imx_db_idempotency_put(struct imx_db_conn *c, const char *user_id, const char *token_id,
                                 const char *key, const char *fingerprint, const char *status,
                                 const char *content_type, const char *headers, const char *body);

/* Removes up to batch expired keys -> one row: how many. New result. */
PGresult *imx_db_idempotency_prune(struct imx_db_conn *c, const char *batch);

#endif
