/* Idempotency-Key storage: the reply a principal got for a key, with the fingerprint of the
 * request it answered, so that a retry is answered with it instead of being done twice
 * (server/api/idempotency.c). Rows expire after the TTL (imx_db_idempotency_prune). */
#ifndef IMX_DB_IDEMPOTENCY_H
#define IMX_DB_IDEMPOTENCY_H

#include <stdbool.h>

#include "db/pool.h"

/* How many hours a stored reply is kept and replayed (IMAXE_IDEMPOTENCY_TTL_H; default 24). */
void imx_db_idempotency_set_ttl(unsigned hours);
unsigned imx_db_idempotency_ttl(void);

/* Inside a transaction: takes the key's transaction lock without waiting: IMX_DBS_OK taken,
 * IMX_DBS_CONFLICT held by another transaction (the same key still in flight; cause IMX_DBC_NONE in
 * *why, where a failed statement's is its own). The lock ends with the transaction. */
enum imx_db_status imx_db_idempotency_lock(struct imx_db_conn *c, const char *user_id,
                                           const char *token_id, const char *key,
                                           struct imx_db_fault *why);

/* A stored reply. The strings are malloc'd (imx_db_idempotency_reply_free). */
struct imx_db_idempotency_reply {
    char fingerprint[65];
    char *status, *content_type;
    char *headers; /* JSON array of [name, value] */
    char *body;    /* sealed */
};
void imx_db_idempotency_reply_free(struct imx_db_idempotency_reply *out);

/* The live stored reply of the key (IMX_DBS_NOT_FOUND: none, or expired). */
enum imx_db_status imx_db_idempotency_get(struct imx_db_conn *c, const char *user_id,
                                          const char *token_id, const char *key,
                                          struct imx_db_idempotency_reply *out,
                                          struct imx_db_fault *why);

/* Stores a reply, inside the transaction of the change it describes (an expired row of the key
 * is replaced); IMX_DBS_CONFLICT when a live row holds the key. */
enum imx_db_status imx_db_idempotency_put(struct imx_db_conn *c, const char *user_id,
                                          const char *token_id, const char *key,
                                          const char *fingerprint, const char *status,
                                          const char *content_type, const char *headers,
                                          const char *body, struct imx_db_fault *why);

/* Removes up to batch expired keys. */
enum imx_db_status imx_db_idempotency_prune(struct imx_db_conn *c, const char *batch);

#endif
