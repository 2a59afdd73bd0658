/* Idempotency-Key storage (see db/idempotency.h). */
#include "db/idempotency.h"
#include "db/internal.h"

#include <stdlib.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static _Atomic unsigned ttl_hours = 24;

void imx_db_idempotency_set_ttl(unsigned hours)
{
    atomic_store(&ttl_hours, hours ? hours : 1);
}

unsigned imx_db_idempotency_ttl(void)
{
    return atomic_load(&ttl_hours);
}

/* One 64-bit lock a (principal, key); a collision of two keys only makes one of them wait for a
 * retry (409), never replays the other's reply (the row is read by its full primary key). */
IMX_DB_STMT(q_lock, 3,
            "SELECT pg_try_advisory_xact_lock(hashtextextended('imx-idem:' || $1::text || ':' ||"
            " $2::text || ':' || $3::text, 0))");

IMX_DB_STMT(q_get, 4,
            "SELECT fingerprint, status, content_type, headers::text, body FROM"
            " idempotent_requests WHERE user_id = $1::bigint AND token_id = $2::bigint"
            " AND key = $3::text AND created_at > now() - make_interval(hours => $4::int)");

IMX_DB_STMT(q_put, 9,
            "INSERT INTO idempotent_requests AS k (user_id, token_id, key, fingerprint, status,"
            " content_type, headers, body) VALUES ($1::bigint, $2::bigint, $3::text, $4::text,"
            " $5::int, $6::text, $7::jsonb, $8::text)"
            " ON CONFLICT (user_id, token_id, key) DO UPDATE SET fingerprint ="
            " EXCLUDED.fingerprint, status = EXCLUDED.status, content_type = EXCLUDED.content_type,"
            " headers = EXCLUDED.headers, body = EXCLUDED.body, created_at = now()"
            " WHERE k.created_at <= now() - make_interval(hours => $9::int)"
            " RETURNING 1");

IMX_DB_STMT(q_prune, 2,
            "WITH d AS (DELETE FROM idempotent_requests WHERE ctid IN (SELECT ctid FROM"
            " idempotent_requests WHERE created_at <= now() - make_interval(hours => $2::int)"
            " ORDER BY created_at LIMIT $1::int) RETURNING 1) SELECT count(*) FROM d");

static const char *ttl_text(char *buf, size_t len)
{
    snprintf(buf, len, "%u", imx_db_idempotency_ttl());
    return buf;
}

enum imx_db_status imx_db_idempotency_lock(struct imx_db_conn *c, const char *user_id,
                                           const char *token_id, const char *key,
                                           struct imx_db_fault *why)
{
    const char *p[] = { user_id, token_id, key };
    PGresult *r = imx_db_exec(c, &q_lock, p);
    enum imx_db_status st = imx_db_status_of(r);
    /* The statement always answers one row: none is a connection gone bad. */
    if (st == IMX_DBS_OK && PQntuples(r) != 1)
        st = IMX_DBS_UNAVAILABLE;
    else if (st == IMX_DBS_OK && strcmp(PQgetvalue(r, 0, 0), "t") != 0)
        st = IMX_DBS_CONFLICT;
    PQclear(r);
    return imx_db_why(c, st, why);
}

void imx_db_idempotency_reply_free(struct imx_db_idempotency_reply *out)
{
    free(out->status);
    free(out->content_type);
    free(out->headers);
    free(out->body);
    memset(out, 0, sizeof *out);
}

enum imx_db_status imx_db_idempotency_get(struct imx_db_conn *c, const char *user_id,
                                          const char *token_id, const char *key,
                                          struct imx_db_idempotency_reply *out,
                                          struct imx_db_fault *why)
{
    char ttl[16];
    const char *p[] = { user_id, token_id, key, ttl_text(ttl, sizeof ttl) };
    memset(out, 0, sizeof *out);
    PGresult *r = imx_db_exec(c, &q_get, p);
    enum imx_db_status st = imx_db_status_of(r);
    if (st == IMX_DBS_OK && PQntuples(r) != 1)
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK) {
        snprintf(out->fingerprint, sizeof out->fingerprint, "%s", PQgetvalue(r, 0, 0));
        out->status = strdup(PQgetvalue(r, 0, 1));
        out->content_type = strdup(PQgetvalue(r, 0, 2));
        out->headers = strdup(PQgetvalue(r, 0, 3));
        out->body = strdup(PQgetvalue(r, 0, 4));
        if (!out->status || !out->content_type || !out->headers || !out->body) {
            imx_db_idempotency_reply_free(out);
            st = IMX_DBS_ERROR;
        }
    }
    PQclear(r);
    return imx_db_why(c, st, why);
}

enum imx_db_status imx_db_idempotency_put(struct imx_db_conn *c, const char *user_id,
                                          const char *token_id, const char *key,
                                          const char *fingerprint, const char *status,
                                          const char *content_type, const char *headers,
                                          const char *body, struct imx_db_fault *why)
{
    char ttl[16];
    const char *p[] = { user_id,     token_id, key,
                        fingerprint, status,   content_type,
                        headers,     body,     ttl_text(ttl, sizeof ttl) };
    PGresult *r = imx_db_exec(c, &q_put, p);
    enum imx_db_status st = imx_db_status_of(r);
    /* No row: a live row holds the key. */
    if (st == IMX_DBS_OK && PQntuples(r) != 1)
        st = IMX_DBS_CONFLICT;
    PQclear(r);
    return imx_db_why(c, st, why);
}

enum imx_db_status imx_db_idempotency_prune(struct imx_db_conn *c, const char *batch)
{
    char ttl[16];
    const char *p[] = { batch, ttl_text(ttl, sizeof ttl) };
    return imx_db_done(imx_db_exec(c, &q_prune, p));
}
