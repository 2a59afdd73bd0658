/* Idempotency-Key storage (see db/idempotency.h). */
#include "db/idempotency.h"

IMX_DB_STMT(q_get, 3,
            "SELECT request_sha256, status, response FROM idempotency_keys"
            " WHERE user_id = $1::bigint AND route = $2::text AND key = $3::text"
            " AND created_at > now() - interval '24 hours'");

IMX_DB_STMT(
    q_put, 6,
    "INSERT INTO idempotency_keys AS k (user_id, route, key, request_sha256, status,"
    " response) VALUES ($1::bigint, $2::text, $3::text, $4::text, $5::int, $6::text)"
    " ON CONFLICT (user_id, route, key) DO UPDATE SET request_sha256 = EXCLUDED.request_sha256,"
    " status = EXCLUDED.status, response = EXCLUDED.response, created_at = now()"
    " WHERE k.created_at <= now() - interval '24 hours'"
    " RETURNING 1");

IMX_DB_STMT(q_prune, 1,
            "WITH d AS (DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM"
            " idempotency_keys WHERE created_at <= now() - interval '24 hours'"
            " ORDER BY created_at LIMIT $1::int) RETURNING 1) SELECT count(*) FROM d");

PGresult *imx_db_idempotency_get(struct imx_db_conn *c, const char *user_id, const char *route,
                                 const char *key)
{
    const char *p[] = { user_id, route, key };
    return imx_db_exec(c, &q_get, p);
}

PGresult *imx_db_idempotency_put(struct imx_db_conn *c, const char *user_id, const char *route,
                                 const char *key, const char *request_sha256, const char *status,
                                 const char *response)
{
    const char *p[] = { user_id, route, key, request_sha256, status, response };
    return imx_db_exec(c, &q_put, p);
}

PGresult *imx_db_idempotency_prune(struct imx_db_conn *c, const char *batch)
{
    const char *p[] = { batch };
    return imx_db_exec(c, &q_prune, p);
}
