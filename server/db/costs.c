/* SQL for instance types and prices, measurements and cost rankings. Medians and percentiles are
 * PostgreSQL's percentile_cont (linear interpolation: the mean of the middle two for an even
 * count); the cost formulas are the SQL functions of migrations/0007_costs_requests.sql. */
#include "db/costs.h"
#include "db/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The caller's measurements: $1 user, $2 token team, $3 one team. */
#define SCOPE "m.team_id IN (SELECT imx_caller_teams($1::bigint, $2::bigint, $3::bigint))"

#define BASIS                                                                                      \
    "'Derived from recorded throughput_per_s and price_per_hour of your teams'' measurements: "    \
    "cost_per_1k_inferences = price_per_hour / (throughput_per_s * 3600) * 1000, boot_cost = "     \
    "price_per_hour * boot_seconds / 3600; medians and percentiles by percentile_cont.'"

IMX_DB_STMT(
    q_type_list, 9,
    "SELECT t.provider, t.family, t.gpu_count, t.vcpus, t.instance_type,"
    " imx_instance_type_json(t.provider, t.instance_type)::text FROM ref_instance_type t"
    " WHERE ($1::text IS NULL OR t.provider = $1::text)"
    " AND ($2::text IS NULL OR t.gpu_model = imx_ref_gpu_canonical($2::text)"
    "  OR t.gpu_model IN (SELECT g.gpu_model FROM ref_gpu g"
    "   WHERE lower(g.architecture) = lower($2::text)))"
    " AND ($3::text IS NULL OR t.family = $3::text)"
    " AND ($4::text IS NULL OR (t.provider, t.family, t.gpu_count, t.vcpus, t.instance_type)"
    "  > ($4::text, $5::text, $6::int, $7::int, $8::text))"
    " ORDER BY t.provider, t.family, t.gpu_count, t.vcpus, t.instance_type"
    " LIMIT $9::int + 1");

enum imx_db_status imx_db_instance_type_list(struct imx_db_conn *c, const char *provider,
                                             const char *gpu, const char *family,
                                             const char *const after[5], const char *limit,
                                             struct imx_db_page *out, struct imx_db_fault *why)
{
    const char *p[] = { provider, gpu,      family,   after[0], after[1],
                        after[2], after[3], after[4], limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_type_list, p), out), why);
}

IMX_DB_STMT(q_type_get, 2,
            "SELECT (imx_instance_type_json($1, $2)::jsonb || jsonb_build_object('price_history',"
            " (SELECT coalesce(jsonb_agg(jsonb_build_object('pricing', p.pricing, 'region',"
            "   p.region, 'price_per_hour', p.price_per_hour, 'currency', p.currency,"
            "   'valid_from', p.valid_from, 'source', p.source)"
            "   ORDER BY p.valid_from DESC, p.pricing, p.region), '[]')"
            "  FROM instance_type_prices p WHERE p.provider = $1 AND p.instance_type = $2)))::text"
            " FROM ref_instance_type t WHERE t.provider = $1 AND t.instance_type = $2");

enum imx_db_status imx_db_instance_type_get(struct imx_db_conn *c, const char *provider,
                                            const char *type, struct imx_db_json *out,
                                            struct imx_db_fault *why)
{
    const char *p[] = { provider, type };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_type_get, p), 0, out), why);
}

IMX_DB_STMT(q_type_put, 11,
            "INSERT INTO ref_instance_type AS t (provider, instance_type, family, gpu_model,"
            " gpu_count, gpu_memory_mib, gpu_memory_gib, vcpus, memory_mib, host_arch,"
            " price_region, status, status_detail, source)"
            " VALUES ($1, $2, split_part($2, '.', 1), coalesce(imx_ref_gpu_canonical($3), $3),"
            " $4::int, round($5::numeric * 1024)::int, $5::numeric, $6::int,"
            " round($7::numeric * 1024)::int, $8, coalesce($9, 'us-east-1'), 'PARTIAL',"
            " 'added or changed by an admin through the API', coalesce($10, 'admin'))"
            " ON CONFLICT (provider, instance_type) DO UPDATE SET gpu_model = EXCLUDED.gpu_model,"
            " gpu_count = EXCLUDED.gpu_count, gpu_memory_mib = EXCLUDED.gpu_memory_mib,"
            " gpu_memory_gib = EXCLUDED.gpu_memory_gib, vcpus = EXCLUDED.vcpus,"
            " memory_mib = EXCLUDED.memory_mib, host_arch = EXCLUDED.host_arch,"
            " price_region = coalesce($9, t.price_region), status = 'PARTIAL',"
            " status_detail = EXCLUDED.status_detail, source = coalesce($10, t.source)"
            " WHERE $11::bool RETURNING t.provider, t.instance_type, (xmax = 0)::text");

enum imx_db_status imx_db_instance_type_put(struct imx_db_conn *c, const char *provider,
                                            const char *type, const char *gpu_model,
                                            const char *gpu_count, const char *gpu_memory_gib,
                                            const char *vcpus, const char *memory_gib,
                                            const char *host_arch, const char *region,
                                            const char *source, const char *replace, bool *created,
                                            struct imx_db_fault *why)
{
    const char *p[] = { provider,   type,      gpu_model, gpu_count, gpu_memory_gib, vcpus,
                        memory_gib, host_arch, region,    source,    replace };
    PGresult *res = imx_db_exec(c, &q_type_put, p);
    enum imx_db_status st = imx_db_status_of(res);
    /* No row: it exists and replace was false. */
    if (st == IMX_DBS_OK && PQntuples(res) == 0)
        st = IMX_DBS_CONFLICT;
    *created = st == IMX_DBS_OK && strcmp(PQgetvalue(res, 0, 2), "true") == 0;
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_price_add, 8,
            "INSERT INTO instance_type_prices (provider, instance_type, pricing, region,"
            " price_per_hour, currency, valid_from, source)"
            " VALUES ($1, $2, $3, $4, $5::numeric, coalesce($6, 'USD'),"
            " coalesce($7::timestamptz, now()), coalesce($8, ''))"
            " RETURNING json_build_object('provider', provider, 'instance_type', instance_type,"
            " 'pricing', pricing, 'region', region, 'price_per_hour', price_per_hour,"
            " 'currency', currency, 'valid_from', valid_from, 'source', source)::text");

enum imx_db_status imx_db_instance_price_add(struct imx_db_conn *c, const char *provider,
                                             const char *type, const char *pricing,
                                             const char *region, const char *price,
                                             const char *currency, const char *valid_from,
                                             const char *source, struct imx_db_json *out,
                                             struct imx_db_fault *why)
{
    const char *p[] = { provider, type, pricing, region, price, currency, valid_from, source };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_price_add, p), 0, out), why);
}

IMX_DB_STMT(q_measurement_record, 3,
            "SELECT imx_measurement_record($1::bigint, $2::bigint, $3::jsonb)::text");

enum imx_db_status imx_db_measurement_record(struct imx_db_conn *c, const char *team_id,
                                             const char *user_id, const char *j,
                                             struct imx_db_json *out, struct imx_db_fault *why)
{
    const char *p[] = { team_id, user_id, j };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_measurement_record, p), 0, out), why);
}

IMX_DB_STMT(q_measurement_get, 1,
            "SELECT m.team_id, imx_measurement_json(m)::text FROM measurements m"
            " WHERE m.id = $1::bigint");

enum imx_db_status imx_db_measurement_get(struct imx_db_conn *c, const char *id, int64_t *team_id,
                                          struct imx_db_json *doc, struct imx_db_fault *why)
{
    const char *p[] = { id };
    PGresult *res = imx_db_exec(c, &q_measurement_get, p);
    *team_id = imx_db_ok(res) && PQntuples(res) == 1 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : 0;
    return imx_db_why(c, imx_db_json_take(res, 1, doc), why);
}

IMX_DB_STMT(q_measurement_list, 8,
            "SELECT m.id, imx_measurement_json(m)::text FROM measurements m WHERE " SCOPE
            " AND ($4::bigint IS NULL OR m.image_id = $4::bigint)"
            " AND ($5::text IS NULL OR m.model = $5::text)"
            " AND ($6::text IS NULL OR m.instance_type = $6::text)"
            " AND ($7::bigint IS NULL OR m.id < $7::bigint)"
            " ORDER BY m.id DESC LIMIT $8::int + 1");

enum imx_db_status imx_db_measurement_list(struct imx_db_conn *c, const struct imx_cost_scope *s,
                                           const char *image, const char *model,
                                           const char *instance_type, const char *before_id,
                                           const char *limit, struct imx_db_page *out,
                                           struct imx_db_fault *why)
{
    const char *p[] = { s->user_id, s->token_team, s->team,   image,
                        model,      instance_type, before_id, limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_measurement_list, p), out), why);
}

#define MEDIAN(x) "percentile_cont(0.5) WITHIN GROUP (ORDER BY " x ")"
#define P90(x)    "percentile_cont(0.9) WITHIN GROUP (ORDER BY " x ")"

IMX_DB_STMT(
    q_image_costs, 6,
    "WITH m AS (SELECT m.*, imx_cost_per_1k(m.price_per_hour::float8, m.throughput_per_s)"
    "  AS c1k, imx_boot_cost(m.price_per_hour::float8, m.boot_seconds) AS boot_cost"
    "  FROM measurements m WHERE m.image_id = $4::bigint AND " SCOPE "),"
    " g AS (SELECT m.model, m.provider, m.instance_type, m.pricing, m.currency,"
    "  min(m.gpu_model) AS gpu_model, count(*) AS measurements,"
    "  " MEDIAN(
        "m.c1k") " AS median_cost_per_1k_inferences,"
                 "  " P90(
                     "m.c1k") " AS p90_cost_per_1k_inferences,"
                              "  " MEDIAN(
                                  "m.throughput_per_s") " AS median_throughput_per_s,"
                                                        "  " P90(
                                                            "m.throughput_per_s") " AS "
                                                                                  "p90_throughput_"
                                                                                  "per_s,"
                                                                                  "  " MEDIAN(
                                                                                      "m.latency_"
                                                                                      "p99_ms") " A"
                                                                                                "S "
                                                                                                "me"
                                                                                                "di"
                                                                                                "an"
                                                                                                "_l"
                                                                                                "at"
                                                                                                "en"
                                                                                                "cy"
                                                                                                "_p"
                                                                                                "99"
                                                                                                "_m"
                                                                                                "s,"
                                                                                                " "
                                                                                                " " MEDIAN(
                                                                                                    "m.boot_seconds") " AS median_boot_seconds,"
                                                                                                                      "  " MEDIAN(
                                                                                                                          "m.boot_cost") " AS median_boot_cost"
                                                                                                                                         "  FROM m GROUP BY m.model, m.provider, m.instance_type, m.pricing, m.currency),"
                                                                                                                                         /* One page of the rows, by their place in the order: the groups are computed whole anyway. */
                                                                                                                                         " o AS (SELECT g, row_number() OVER (ORDER BY g.model, g.median_cost_per_1k_inferences,"
                                                                                                                                         "  g.instance_type, g.pricing, g.provider, g.currency) AS rn FROM g)"
                                                                                                                                         " SELECT CASE WHEN EXISTS (SELECT 1 FROM images WHERE id = $4::bigint) THEN"
                                                                                                                                         " json_build_object('image', $4::bigint, 'basis', " BASIS
                                                                                                                                         ","
                                                                                                                                         "  'items', (SELECT coalesce(json_agg(o.g ORDER BY o.rn), '[]') FROM o"
                                                                                                                                         "   WHERE o.rn > coalesce($6::int, 0) AND o.rn <= coalesce($6::int, 0) + $5::int))::text"
                                                                                                                                         " END, CASE WHEN (SELECT count(*) FROM o) > coalesce($6::int, 0) + $5::int"
                                                                                                                                         " THEN json_build_array(coalesce($6::int, 0) + $5::int)::text END");

enum imx_db_status imx_db_image_costs(struct imx_db_conn *c, const char *image_id,
                                      const struct imx_cost_scope *s, const char *after_rank,
                                      const char *limit, struct imx_db_page *out,
                                      struct imx_db_fault *why)
{
    const char *p[] = { s->user_id, s->token_team, s->team, image_id, limit, after_rank };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_image_costs, p), out), why);
}

IMX_DB_STMT(
    q_ranking, 13,
    "WITH m AS (SELECT m.*, imx_cost_per_1k(m.price_per_hour::float8, m.throughput_per_s) AS c1k"
    "  FROM measurements m JOIN images i ON i.id = m.image_id"
    "  JOIN ref_instance_type t ON t.provider = m.provider AND t.instance_type = m.instance_type"
    "  WHERE " SCOPE " AND m.model = $4 AND i.status <> 'revoked'"
    "  AND ($5::text IS NULL OR m.pricing = $5::text)"
    "  AND ($6::text IS NULL OR m.region = $6::text)"
    "  AND ($7::text IS NULL OR m.gpu_model = imx_ref_gpu_canonical($7::text)"
    "   OR m.gpu_model IN (SELECT g.gpu_model FROM ref_gpu g"
    "    WHERE lower(g.architecture) = lower($7::text)))"
    "  AND ($8::text IS NULL OR i.family = $8::text)"
    "  AND ($9::text IS NULL OR t.family = $9::text)),"
    " g AS (SELECT m.image_id, m.provider, m.instance_type, m.pricing, m.currency,"
    "  min(m.gpu_model) AS gpu_model, max(m.gpu_count) AS gpu_count, count(*) AS n,"
    "  " MEDIAN("m.c1k") " AS med, " MEDIAN(
        "m.latency_p99_ms") " AS p99,"
                            "  " MEDIAN("m.throughput_per_s") " AS tput, " MEDIAN(
                                "m.boot_seconds") " AS boot"
                                                  "  FROM m GROUP BY m.image_id, m.provider, "
                                                  "m.instance_type, m.pricing, m.currency),"
                                                  " f AS (SELECT g.*, row_number() OVER (ORDER BY "
                                                  "g.med, g.image_id, g.provider,"
                                                  "  g.instance_type, g.pricing) AS rn FROM g"
                                                  "  WHERE $10::float8 IS NULL OR (g.p99 IS NOT "
                                                  "NULL AND g.p99 <= $10::float8))"
                                                  " SELECT json_build_object('model', $4::text, "
                                                  "'max_p99_ms', $10::float8,"
                                                  "  'daily_inferences', $11::float8, "
                                                  "'days_per_month', 30.44,"
                                                  "  'basis', " BASIS
                                                  " || ' Rows are (image, instance type, pricing) "
                                                  "ranked by the median cost"
                                                  " per 1k inferences; the latency target applies "
                                                  "to the median p99 latency of a row, and rows"
                                                  " without p99 latencies are left out when a "
                                                  "target is given. monthly_cost = median cost per "
                                                  "1k"
                                                  " * daily_inferences / 1000 * 30.44 days.',"
                                                  "  'excluded_by_latency', (SELECT count(*) FROM "
                                                  "g) - (SELECT count(*) FROM f),"
                                                  "  'items', (SELECT "
                                                  "coalesce(json_agg(json_build_object('rank', "
                                                  "f.rn,"
                                                  "   'image', json_build_object('id', i.id, "
                                                  "'family', i.family, 'version', i.version,"
                                                  "    'status', i.status),"
                                                  "   'provider', f.provider, 'instance_type', "
                                                  "f.instance_type, 'gpu_model', f.gpu_model,"
                                                  "   'gpu_count', f.gpu_count, 'pricing', "
                                                  "f.pricing, 'currency', f.currency,"
                                                  "   'measurements', f.n, "
                                                  "'median_cost_per_1k_inferences', f.med,"
                                                  "   'median_latency_p99_ms', f.p99, "
                                                  "'median_throughput_per_s', f.tput,"
                                                  "   'median_boot_seconds', f.boot,"
                                                  "   'monthly_cost', CASE WHEN $11::float8 IS "
                                                  "NULL THEN NULL"
                                                  "    ELSE imx_monthly_cost(f.med, $11::float8) "
                                                  "END) ORDER BY f.rn), '[]')"
                                                  "   FROM f JOIN images i ON i.id = f.image_id "
                                                  "WHERE f.rn > coalesce($13::int, 0) AND f.rn <= "
                                                  "coalesce($13::int, 0) + $12::int))::text,"
                                                  " CASE WHEN (SELECT count(*) FROM f) > "
                                                  "coalesce($13::int, 0) + $12::int"
                                                  " THEN json_build_array(coalesce($13::int, 0) + "
                                                  "$12::int)::text END");

enum imx_db_status imx_db_cost_ranking(struct imx_db_conn *c, const struct imx_cost_scope *s,
                                       const struct imx_cost_ranking *q, struct imx_db_page *out,
                                       struct imx_db_fault *why)
{
    const char *p[] = { s->user_id,    s->token_team,       s->team,
                        q->model,      q->pricing,          q->region,
                        q->gpu,        q->family,           q->instance_family,
                        q->max_p99_ms, q->daily_inferences, q->limit ? q->limit : "50",
                        q->after_rank };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_ranking, p), out), why);
}

IMX_DB_STMT(
    q_costs_for_images, 4,
    "WITH ids AS (SELECT DISTINCT u.id FROM unnest($4::bigint[]) AS u(id)),"
    " m AS (SELECT m.image_id, m.model, m.provider, m.instance_type, m.pricing,"
    "  m.boot_seconds, imx_cost_per_1k(m.price_per_hour::float8, m.throughput_per_s) AS c1k"
    "  FROM measurements m WHERE m.image_id IN (SELECT id FROM ids) AND " SCOPE "),"
    " g AS (SELECT m.image_id, m.model, " MEDIAN(
        "m.c1k") " AS med FROM m"
                 "  GROUP BY m.image_id, m.model, m.provider, m.instance_type, m.pricing),"
                 " best AS (SELECT g.image_id, g.model, min(g.med) AS best FROM g GROUP BY 1, 2)"
                 " SELECT coalesce(json_object_agg(ids.id, json_build_object("
                 "  'best_cost_per_1k', (SELECT coalesce(json_object_agg(b.model, b.best"
                 "   ORDER BY b.model), '{}') FROM best b WHERE b.image_id = ids.id),"
                 "  'boot_seconds_median', (SELECT " MEDIAN(
                     "m.boot_seconds") " FROM m"
                                       "   WHERE m.image_id = ids.id)) ORDER BY ids.id), "
                                       "'{}')::text FROM ids");

#define COSTS_FOR_IMAGES_MAX 100

enum imx_db_status imx_db_costs_for_images(struct imx_db_conn *c, const long long *ids, size_t n,
                                           const struct imx_cost_scope *scope, char **json)
{
    *json = NULL;
    if (n == 0 || n > COSTS_FOR_IMAGES_MAX || !ids || !scope)
        return IMX_DBS_INVALID;
    char list[COSTS_FOR_IMAGES_MAX * 22 + 4] = "{";
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%lld", i ? "," : "", ids[i]);
    snprintf(list + len, sizeof list - len, "}");
    const char *p[] = { scope->user_id, scope->token_team, scope->team, list };
    PGresult *res = imx_db_exec(c, &q_costs_for_images, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) != 1)
        st = IMX_DBS_ERROR; /* the statement answers one row */
    if (st == IMX_DBS_OK && !(*json = strdup(PQgetvalue(res, 0, 0))))
        st = IMX_DBS_ERROR;
    PQclear(res);
    return st;
}

/* The team's lock serialises recording, so two at once cannot both take the last places. */
IMX_DB_STMT(q_measurements_today, 1,
            "SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtextextended("
            "'measurement-quota:' || $1, 0))) l, measurements m WHERE m.team_id = $1::bigint "
            "AND m.created_at > now() - interval '1 day'");

enum imx_db_status imx_db_measurements_today(struct imx_db_conn *c, const char *team_id,
                                             long long *count, struct imx_db_fault *why)
{
    const char *p[] = { team_id };
    return imx_db_why(c, imx_db_int_take(imx_db_exec(c, &q_measurements_today, p), 0, count), why);
}
