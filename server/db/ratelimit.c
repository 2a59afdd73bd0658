/* The shared rate-limit buckets: a bucket refills at limit/60 a second up to limit, and owes at
 * most one limit (greatest(-limit, ...)), so a burst of overspending is repaid within a minute.
 * Keys arrive sorted, so concurrent replicas lock the rows in the same order. */
#include "db/ratelimit.h"
#include "db/internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The takings are charged as if made at the start of the interval (before its refill), so a
 * caller that emptied its bucket early in the interval is not also denied that interval's refill;
 * this errs by at most one interval's refill, and only when the bucket was nearly full. A new
 * bucket is taken to have been full one interval ago ($7, seconds). A new row holds its value
 * unclamped, limit - taken + one interval's refill, so that the conflict arm can recover the
 * takings from EXCLUDED; every read clamps. */
IMX_DB_STMT(q_exchange, 7,
            "WITH hb AS (INSERT INTO rate_limit_replicas (replica, seen_at) VALUES ($1, now())"
            " ON CONFLICT (replica) DO UPDATE SET seen_at = now()),"
            " u AS (INSERT INTO rate_limit_buckets AS b (key, tokens, updated_at)"
            " SELECT x.k, $3::float8 - x.t + $7::float8 * $5::float8, now()"
            " FROM unnest($2::bigint[], $4::int[]) AS x(k, t)"
            " ON CONFLICT (key) DO UPDATE SET tokens = greatest(-$3::float8, least($3::float8,"
            " b.tokens - ($3::float8 + $7::float8 * $5::float8 - EXCLUDED.tokens)"
            " + extract(epoch FROM now() - b.updated_at)::float8 * $5::float8)), updated_at = now()"
            " RETURNING b.key, greatest(-$3::float8, least($3::float8, b.tokens)) AS tokens)"
            " SELECT (SELECT count(*) FROM rate_limit_replicas WHERE replica <> $1"
            " AND seen_at > now() - make_interval(secs => $6::int / 1000.0))::int + 1,"
            " u.key, u.tokens FROM (SELECT 1) one LEFT JOIN u ON true ORDER BY u.key");

IMX_DB_STMT(q_prune, 0,
            "WITH b AS (DELETE FROM rate_limit_buckets WHERE key IN (SELECT key FROM "
            "rate_limit_buckets WHERE updated_at < now() - interval '5 minutes' LIMIT 10000)),"
            " r AS (DELETE FROM rate_limit_replicas WHERE replica IN (SELECT replica FROM "
            "rate_limit_replicas WHERE seen_at < now() - interval '1 hour' LIMIT 10000))"
            " SELECT 1");

/* The keys (or the takings) of d as a PostgreSQL array literal "{a,b,c}"; new, NULL when out of
 * memory. */
static char *pg_array(size_t n, const struct imx_ratelimit_delta *d, bool keys)
{
    size_t cap = 3 + n * 22;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t len = 0;
    s[len++] = '{';
    for (size_t i = 0; i < n; i++) {
        int w = keys ? snprintf(s + len, cap - len, "%s%" PRId64, i ? "," : "", (int64_t)d[i].key)
                     : snprintf(s + len, cap - len, "%s%u", i ? "," : "", d[i].taken);
        len += (size_t)w;
    }
    s[len++] = '}';
    s[len] = '\0';
    return s;
}

int imx_db_ratelimit_exchange(void *cls, struct imx_ratelimit_delta *d, size_t n,
                              unsigned *replicas)
{
    struct imx_db_ratelimit *x = cls;
    char *keys = pg_array(n, d, true), *taken = pg_array(n, d, false);
    char limit[24], rate[32], beat[24], interval[32];
    snprintf(limit, sizeof limit, "%u", x->limit);
    snprintf(rate, sizeof rate, "%.9g", x->limit / 60.0);
    snprintf(beat, sizeof beat, "%u", x->heartbeat_ms);
    snprintf(interval, sizeof interval, "%.3f", x->interval_ms / 1000.0);
    int rc = -1;
    if (keys && taken) {
        const char *p[] = { x->replica, keys, limit, taken, rate, beat, interval };
        PGresult *res = imx_db_exec(x->c, &q_exchange, p);
        if (imx_db_ok(res) && PQntuples(res) >= 1) {
            *replicas = (unsigned)strtoul(PQgetvalue(res, 0, 0), NULL, 10);
            /* Rows come in key order, as d is. */
            size_t k = 0;
            for (int i = 0; i < PQntuples(res) && k < n; i++) {
                if (PQgetisnull(res, i, 1))
                    continue;
                int64_t key = strtoll(PQgetvalue(res, i, 1), NULL, 10);
                while (k < n && (int64_t)d[k].key < key)
                    k++;
                if (k < n && (int64_t)d[k].key == key)
                    d[k].tokens = strtod(PQgetvalue(res, i, 2), NULL);
            }
            rc = 0;
        }
        PQclear(res);
    }
    free(keys);
    free(taken);
    return rc;
}

enum imx_db_status imx_db_ratelimit_prune(struct imx_db_conn *c)
{
    return imx_db_done(imx_db_exec(c, &q_prune, NULL));
}
