/* Webhook outbox SQL (see webhooks.h). */
#include "db/webhooks.h"

#include "db/idempotency.h"
#include "db/internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

IMX_DB_STMT(stmt_enqueue, 6,
            "SELECT imx_webhook_enqueue(nullif($1::bigint, 0), $2, $3::jsonb,"
            " ARRAY(SELECT jsonb_array_elements_text($4::jsonb)),"
            " ARRAY(SELECT jsonb_array_elements_text($5::jsonb)), $6)");
IMX_DB_STMT(stmt_ping, 1, "SELECT imx_webhook_ping($1::bigint)");
IMX_DB_STMT(stmt_redeliver, 1, "SELECT imx_webhook_redeliver($1::bigint)");
IMX_DB_STMT(stmt_rotate, 3,
            "SELECT imx_webhook_rotate_secret($1::bigint, $2, make_interval(secs => $3::int))");
/* The body in the subscription's payload format (migrations/procedures/cloudevents.sql). */
IMX_DB_STMT(stmt_claim, 2,
            "SELECT c.delivery_id, c.lease_seq, c.attempt, c.webhook_id, c.url, c.secret,"
            " c.previous_secret, c.msg_id, CASE WHEN w.payload_format = 'cloudevents' THEN"
            " imx_webhook_cloudevent(c.msg_id, c.body) ELSE c.body END,"
            " w.payload_format = 'cloudevents'"
            " FROM imx_webhook_claim($1, $2::int) c JOIN webhooks w ON w.id = c.webhook_id");
IMX_DB_STMT(stmt_finish, 11,
            "SELECT imx_webhook_finish($1::bigint, $2::bigint, $3, to_timestamp($4::float8),"
            " $5::int, $6::int, $7, $8, $9, $10::bigint, make_interval(secs => $11::int))");

/* A JSON array of the NULL-ended strings (new text), or NULL when out of memory. */
static char *json_list(const char *const *items)
{
    json_t *a = json_array();
    for (size_t i = 0; a && items && items[i]; i++)
        if (json_array_append_new(a, json_string(items[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    char *text = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return text;
}

/* Runs a one-value statement: IMX_DBS_OK with the value as a new string in *out ("" for SQL
 * NULL), or the failure (IMX_DBS_NOT_FOUND: no row; IMX_DBS_ERROR: out of memory). */
static enum imx_db_status exec_value(struct imx_db_conn *db, struct imx_db_stmt *stmt,
                                     const char *const *params, char **out)
{
    PGresult *res = imx_db_exec(db, stmt, params);
    enum imx_db_status st = imx_db_status_of(res);
    *out = NULL;
    if (st == IMX_DBS_OK && PQntuples(res) != 1)
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK) {
        *out = strdup(PQgetisnull(res, 0, 0) ? "" : PQgetvalue(res, 0, 0));
        if (!*out)
            st = IMX_DBS_ERROR;
    }
    PQclear(res);
    return st;
}

enum imx_db_status imx_webhooks_enqueue(struct imx_db_conn *db, int64_t team_id, const char *type,
                                        const json_t *data, const char *const *families,
                                        const char *const *pins, const char *severity,
                                        int64_t *event_id)
{
    char team[24];
    enum imx_db_status st = IMX_DBS_ERROR; /* out of memory */
    snprintf(team, sizeof team, "%" PRId64, team_id > 0 ? team_id : 0);
    char *data_text = data ? json_dumps(data, JSON_COMPACT) : strdup("{}");
    char *fam = json_list(families);
    char *pin = json_list(pins);
    if (data_text && fam && pin) {
        const char *params[] = { team, type, data_text, fam, pin, severity };
        char *id = NULL;
        st = exec_value(db, &stmt_enqueue, params, &id);
        if (st == IMX_DBS_OK && event_id)
            *event_id = strtoll(id, NULL, 10);
        free(id);
    }
    free(data_text);
    free(fam);
    free(pin);
    return st;
}

enum imx_db_status imx_webhooks_ping(struct imx_db_conn *db, int64_t webhook_id,
                                     int64_t *delivery_id, struct imx_db_fault *why)
{
    char id[24];
    snprintf(id, sizeof id, "%" PRId64, webhook_id);
    const char *params[] = { id };
    char *v = NULL;
    enum imx_db_status st = exec_value(db, &stmt_ping, params, &v);
    if (st == IMX_DBS_OK && delivery_id)
        *delivery_id = strtoll(v, NULL, 10);
    free(v);
    return imx_db_why(db, st, why);
}

/* Runs a statement answering one boolean: IMX_DBS_OK when true, IMX_DBS_NOT_FOUND when false
 * or NULL, or the failure. */
static enum imx_db_status exec_bool(struct imx_db_conn *db, struct imx_db_stmt *stmt,
                                    const char *const *params)
{
    char *v = NULL;
    enum imx_db_status st = exec_value(db, stmt, params, &v);
    if (st == IMX_DBS_OK && strcmp(v, "t") != 0)
        st = IMX_DBS_NOT_FOUND;
    free(v);
    return st;
}

enum imx_db_status imx_webhooks_redeliver(struct imx_db_conn *db, int64_t delivery_id,
                                          struct imx_db_fault *why)
{
    char id[24];
    snprintf(id, sizeof id, "%" PRId64, delivery_id);
    const char *params[] = { id };
    return imx_db_why(db, exec_bool(db, &stmt_redeliver, params), why);
}

enum imx_db_status imx_webhooks_rotate_secret(struct imx_db_conn *db, int64_t webhook_id,
                                              const char *new_secret, unsigned overlap_s,
                                              struct imx_db_fault *why)
{
    char id[24], overlap[16];
    snprintf(id, sizeof id, "%" PRId64, webhook_id);
    snprintf(overlap, sizeof overlap, "%u", overlap_s);
    const char *params[] = { id, new_secret, overlap };
    return imx_db_why(db, exec_bool(db, &stmt_rotate, params), why);
}

static char *dup_field(const PGresult *res, int col)
{
    return PQgetisnull(res, 0, col) ? NULL : strdup(PQgetvalue(res, 0, col));
}

enum imx_db_status imx_db_webhook_claim(struct imx_db_conn *db, const char *worker,
                                        unsigned lease_ms, struct imx_db_webhook_claim *c)
{
    char lease[16];
    snprintf(lease, sizeof lease, "%u", lease_ms);
    const char *params[] = { worker, lease };
    memset(c, 0, sizeof *c);
    PGresult *res = imx_db_exec(db, &stmt_claim, params);
    enum imx_db_status st = imx_db_status_of(res);
    if (st != IMX_DBS_OK)
        goto out;
    if (PQntuples(res) != 1) {
        st = IMX_DBS_NOT_FOUND;
        goto out;
    }
    c->delivery_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    c->lease_seq = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    c->attempt = atoi(PQgetvalue(res, 0, 2));
    c->webhook_id = strtoll(PQgetvalue(res, 0, 3), NULL, 10);
    c->url = dup_field(res, 4);
    c->secret = dup_field(res, 5);
    c->previous_secret = dup_field(res, 6);
    c->msg_id = dup_field(res, 7);
    c->body = dup_field(res, 8);
    c->body_len = c->body ? strlen(c->body) : 0;
    c->cloudevents = PQgetvalue(res, 0, 9)[0] == 't';
    if (!c->url || !c->secret || !c->msg_id || !c->body) {
        /* Out of memory: the lease runs out and the delivery is claimed again. */
        imx_db_webhook_claim_free(c);
        st = IMX_DBS_ERROR;
    }
out:
    PQclear(res);
    return st;
}

void imx_db_webhook_claim_free(struct imx_db_webhook_claim *c)
{
    free(c->url);
    free(c->secret);
    free(c->previous_secret);
    free(c->msg_id);
    free(c->body);
    memset(c, 0, sizeof *c);
}

enum imx_db_status imx_db_webhook_finish(struct imx_db_conn *db,
                                         const struct imx_db_webhook_claim *c,
                                         const struct imx_db_webhook_attempt *a, char *state,
                                         size_t len)
{
    char id[24], seq[24], started[32], status[16], latency[24], retry[24], disable[16];
    snprintf(id, sizeof id, "%" PRId64, c->delivery_id);
    snprintf(seq, sizeof seq, "%" PRId64, c->lease_seq);
    snprintf(started, sizeof started, "%.6f", a->started_at);
    snprintf(status, sizeof status, "%ld", a->status);
    snprintf(latency, sizeof latency, "%ld", a->latency_ms);
    snprintf(retry, sizeof retry, "%lld", a->retry_ms);
    snprintf(disable, sizeof disable, "%u", a->disable_after_s);
    const char *params[] = {
        id,      seq,      a->worker,   started,    a->status > 0 ? status : NULL,
        latency, a->error, a->response, a->outcome, a->retry_ms >= 0 ? retry : NULL,
        disable
    };
    char *v = NULL;
    enum imx_db_status st = exec_value(db, &stmt_finish, params, &v);
    if (st == IMX_DBS_OK)
        snprintf(state, len, "%s", v);
    free(v);
    return st;
}

/* The HTTP API: subscriptions and their deliveries. */

#define TEXT_ARRAY(p) "ARRAY(SELECT jsonb_array_elements_text(" p "::jsonb))"

/* A subscription as the API shows it: never its secrets; with its last delivery. */
#define WEBHOOK_JSON                                                                               \
    "json_build_object('id', w.id, 'team', t.slug, 'url', w.url, 'description', w.description, "   \
    "'events', w.event_types, 'families', w.filter_families, 'pins', w.filter_pins, "              \
    "'min_severity', w.min_severity, 'payload_format', w.payload_format, "                         \
    "'enabled', w.enabled, 'disabled_reason', "                                                    \
    "w.disabled_reason, 'disabled_at', w.disabled_at, 'failing_since', w.failing_since, "          \
    "'previous_secret_expires_at', CASE WHEN w.previous_secret_expires_at > now() THEN "           \
    "w.previous_secret_expires_at END, 'created_at', w.created_at, 'updated_at', w.updated_at, "   \
    "'last_delivery', (SELECT json_build_object('id', d.id, 'message_id', 'msg_' || d.event_id, "  \
    "'event_type', e.type, 'state', d.state, 'last_status', d.last_status, 'last_error', "         \
    "d.last_error, 'created_at', d.created_at, 'delivered_at', d.delivered_at, 'updated_at', "     \
    "d.updated_at) FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE "    \
    "d.webhook_id = w.id ORDER BY d.id DESC LIMIT 1))"

/* One delivery with every attempt in order; extra adds members to each attempt. */
#define DELIVERY_JSON(extra_attempt, extra)                                                        \
    "json_build_object('id', d.id, 'webhook', d.webhook_id, 'message_id', 'msg_' || d.event_id, "  \
    "'event_type', e.type, 'state', d.state, 'next_attempt_at', d.next_attempt_at, "               \
    "'last_status', d.last_status, 'last_error', d.last_error, 'created_at', d.created_at, "       \
    "'delivered_at', d.delivered_at, 'updated_at', d.updated_at, 'attempts', "                     \
    "coalesce((SELECT json_agg(json_build_object('attempt', a.attempt, 'started_at', "             \
    "a.started_at, 'status_code', a.status_code, 'latency_ms', a.latency_ms, 'error', a.error, "   \
    "'next_attempt_at', a.next_attempt_at" extra_attempt ") ORDER BY a.id) FROM "                  \
    "webhook_attempts a WHERE a.delivery_id = d.id), '[]')" extra ")"

IMX_DB_STMT(q_webhook_count, 1,
            "SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtextextended("
            "'webhook-quota:' || $1, 0))) l, webhooks w WHERE w.team_id = $1::bigint");

enum imx_db_status imx_db_webhook_count(struct imx_db_conn *c, const char *team_id,
                                        long long *count, struct imx_db_fault *why)
{
    const char *p[] = { team_id };
    return imx_db_why(c, imx_db_int_take(imx_db_exec(c, &q_webhook_count, p), 0, count), why);
}

IMX_DB_STMT(q_webhook_create, 9,
            "WITH w AS (INSERT INTO webhooks (team_id, url, description, secret, event_types, "
            "filter_families, filter_pins, min_severity, payload_format) VALUES ($1::bigint, $2, "
            "coalesce($3, ''), "
            "$4, " TEXT_ARRAY("$5") ", " TEXT_ARRAY("$6") ", " TEXT_ARRAY(
                "$7") ", $8, coalesce($9, 'imaxe')) "
                      "RETURNING *) SELECT w.id, " WEBHOOK_JSON
                      " FROM w JOIN teams t ON t.id = w.team_id");

enum imx_db_status imx_db_webhook_create(struct imx_db_conn *c, const char *team_id,
                                         const char *url, const char *description,
                                         const char *secret, const char *events,
                                         const char *families, const char *pins,
                                         const char *min_severity, const char *payload_format,
                                         int64_t *id, struct imx_db_json *doc,
                                         struct imx_db_fault *why)
{
    const char *p[] = { team_id,  url,  description,  secret,        events,
                        families, pins, min_severity, payload_format };
    PGresult *res = imx_db_exec(c, &q_webhook_create, p);
    *id = imx_db_ok(res) && PQntuples(res) == 1 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : 0;
    return imx_db_why(c, imx_db_json_take(res, 1, doc), why);
}

IMX_DB_STMT(q_webhook_owner, 1, "SELECT team_id, enabled FROM webhooks WHERE id = $1::bigint");

enum imx_db_status imx_db_webhook_owner(struct imx_db_conn *c, const char *id, int64_t *team_id,
                                        struct imx_db_fault *why)
{
    const char *p[] = { id };
    long long v;
    enum imx_db_status st = imx_db_int_take(imx_db_exec(c, &q_webhook_owner, p), 0, &v);
    *team_id = v;
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_webhook_get, 1,
            "SELECT " WEBHOOK_JSON " FROM webhooks w JOIN teams t ON t.id = w.team_id "
            "WHERE w.id = $1::bigint");

enum imx_db_status imx_db_webhook_get(struct imx_db_conn *c, const char *id,
                                      struct imx_db_json *out, struct imx_db_fault *why)
{
    const char *p[] = { id };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_webhook_get, p), 0, out), why);
}

IMX_DB_STMT(q_webhook_list, 3,
            "SELECT w.id, " WEBHOOK_JSON " FROM webhooks w JOIN teams t ON t.id = w.team_id "
            "WHERE w.team_id = $1::bigint AND ($2::bigint IS NULL OR w.id > $2::bigint) "
            "ORDER BY w.id LIMIT $3::int + 1");

enum imx_db_status imx_db_webhook_list(struct imx_db_conn *c, const char *team_id,
                                       const char *after_id, const char *limit,
                                       struct imx_db_page *out, struct imx_db_fault *why)
{
    const char *p[] = { team_id, after_id, limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_webhook_list, p), out), why);
}

IMX_DB_STMT(
    q_webhook_update, 10,
    "UPDATE webhooks SET url = coalesce($3, url), description = coalesce($4, description), "
    "event_types = CASE WHEN $5::jsonb IS NULL THEN event_types ELSE " TEXT_ARRAY(
        "$5") " END, "
              "filter_families = CASE WHEN $6::jsonb IS NULL THEN filter_families ELSE " TEXT_ARRAY(
                  "$6") " END, "
                        "filter_pins = CASE WHEN $7::jsonb IS NULL THEN filter_pins "
                        "ELSE " TEXT_ARRAY(
                            "$7") " END, "
                                  "min_severity = CASE WHEN $8::boolean THEN $9 ELSE min_severity "
                                  "END, payload_format = coalesce($10, payload_format), updated_at "
                                  "= now() "
                                  "WHERE id = $1::bigint AND team_id = $2::bigint RETURNING id");

enum imx_db_status imx_db_webhook_update(struct imx_db_conn *c, const char *id, const char *team_id,
                                         const char *url, const char *description,
                                         const char *events, const char *families, const char *pins,
                                         const char *set_severity, const char *min_severity,
                                         const char *payload_format, struct imx_db_fault *why)
{
    const char *p[] = { id,       team_id, url,          description,  events,
                        families, pins,    set_severity, min_severity, payload_format };
    long long v;
    return imx_db_why(c, imx_db_int_take(imx_db_exec(c, &q_webhook_update, p), 0, &v), why);
}

/* Disabling a disabled subscription would overwrite why it was disabled: skip it. */
IMX_DB_STMT(q_webhook_enable, 3,
            "SELECT imx_webhook_set_enabled(id, $2::boolean, $3) FROM webhooks "
            "WHERE id = $1::bigint AND ($2::boolean OR enabled)");

enum imx_db_status imx_db_webhook_enable(struct imx_db_conn *c, const char *id, const char *enabled,
                                         const char *reason, struct imx_db_fault *why)
{
    const char *p[] = { id, enabled, reason };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_webhook_enable, p)), why);
}

IMX_DB_STMT(q_webhook_delete, 2,
            "DELETE FROM webhooks WHERE id = $1::bigint AND team_id = $2::bigint RETURNING id");

enum imx_db_status imx_db_webhook_delete(struct imx_db_conn *c, const char *id, const char *team_id,
                                         struct imx_db_fault *why)
{
    const char *p[] = { id, team_id };
    long long v;
    return imx_db_why(c, imx_db_int_take(imx_db_exec(c, &q_webhook_delete, p), 0, &v), why);
}

IMX_DB_STMT(q_webhook_deliveries, 4,
            "SELECT d.id, " DELIVERY_JSON(
                "",
                "") " FROM webhook_deliveries d "
                    "JOIN webhook_events e ON e.id = d.event_id WHERE d.webhook_id = $1::bigint "
                    "AND ($2::bigint IS NULL OR d.id < $2::bigint) "
                    "AND ($3::text IS NULL OR d.state = $3::webhook_delivery_state) "
                    "ORDER BY d.id DESC LIMIT $4::int + 1");

enum imx_db_status imx_db_webhook_deliveries(struct imx_db_conn *c, const char *webhook_id,
                                             const char *before_id, const char *state,
                                             const char *limit, struct imx_db_page *out,
                                             struct imx_db_fault *why)
{
    const char *p[] = { webhook_id, before_id, state, limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_webhook_deliveries, p), out), why);
}

IMX_DB_STMT(q_delivery_owner, 1,
            "SELECT w.team_id, d.webhook_id, d.state, w.enabled FROM webhook_deliveries d "
            "JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = $1::bigint");

enum imx_db_status imx_db_delivery_owner(struct imx_db_conn *c, const char *id,
                                         struct imx_db_delivery_owner *out,
                                         struct imx_db_fault *why)
{
    const char *p[] = { id };
    memset(out, 0, sizeof *out);
    PGresult *res = imx_db_exec(c, &q_delivery_owner, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) == 0)
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK) {
        out->team_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        out->webhook_id = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
        snprintf(out->state, sizeof out->state, "%s", PQgetvalue(res, 0, 2));
        out->enabled = strcmp(PQgetvalue(res, 0, 3), "t") == 0;
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(
    q_delivery_get, 1,
    "SELECT " DELIVERY_JSON(", 'response_body', a.response_body",
                            ", 'payload', e.body::json") " FROM webhook_deliveries d JOIN "
                                                         "webhook_events e ON e.id = d.event_id "
                                                         "WHERE d.id = $1::bigint");

enum imx_db_status imx_db_delivery_get(struct imx_db_conn *c, const char *id,
                                       struct imx_db_json *out, struct imx_db_fault *why)
{
    const char *p[] = { id };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_delivery_get, p), 0, out), why);
}

/* Retention (migrations/procedures/webhook_outbox.sql, db/idempotency.h). */
IMX_DB_STMT(q_prune, 2,
            "SELECT x->>'deliveries', x->>'events', x->>'pending', x->>'stored_events'"
            " FROM imx_webhook_prune(make_interval(days => $1::int), $2::int) x");

enum imx_db_status imx_db_webhook_prune(struct imx_db_conn *db, unsigned retention_days,
                                        unsigned batch, struct imx_db_outbox *out)
{
    char days[16], n[16];
    snprintf(days, sizeof days, "%u", retention_days);
    snprintf(n, sizeof n, "%u", batch);
    const char *p[] = { days, n };
    PGresult *r = imx_db_exec(db, &q_prune, p);
    enum imx_db_status st = imx_db_status_of(r);
    if (st == IMX_DBS_OK && PQntuples(r) != 1)
        st = IMX_DBS_ERROR; /* the function returns one row */
    if (st == IMX_DBS_OK) {
        out->deliveries_pruned = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        out->events_pruned = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
        out->pending = strtoll(PQgetvalue(r, 0, 2), NULL, 10);
        out->events = strtoll(PQgetvalue(r, 0, 3), NULL, 10);
    }
    PQclear(r);
    if (st == IMX_DBS_OK)
        (void)imx_db_idempotency_prune(db, n);
    return st;
}
