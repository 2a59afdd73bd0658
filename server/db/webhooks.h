/* Webhook outbox SQL: producers enqueue events inside their own transaction; the dispatcher
 * claims due deliveries and records attempts. The logic lives in SQL functions
 * (migrations/0005_webhooks.sql, migrations/procedures/webhook_outbox.sql) so that the write
 * use cases in migrations/procedures/ produce their events in the same transaction. */
#ifndef IMX_DB_WEBHOOKS_H
#define IMX_DB_WEBHOOKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "db/pool.h"

/* Records an event and fans it out to the matching enabled subscriptions, in the caller's
 * transaction (call it between the BEGIN and COMMIT of the change that caused the event: the
 * event exists if and only if the change commits; dispatchers are woken on commit).
 *   team_id   the owner team; 0 sends to the subscriptions of every team (advisories)
 *   type      one of patch.available, image.published, image.deprecated, image.revoked,
 *             advisory.published, pin.moved, request.updated, ping
 *   data      the event's "data" object (borrowed)
 *   families  NULL-ended image families the event is about, or NULL
 *   pins      NULL-ended pin names the event is about, or NULL
 *   severity  none|low|medium|high|critical, or NULL
 * IMX_DBS_OK with the event id in *event_id (may be NULL), or the failure's status
 * (IMX_DBS_INVALID: PostgreSQL refused the type or the severity). */
enum imx_db_status imx_webhooks_enqueue(struct imx_db_conn *db, int64_t team_id, const char *type,
                                        const json_t *data, const char *const *families,
                                        const char *const *pins, const char *severity,
                                        int64_t *event_id);

/* Queues a 'ping' event for one subscription (POST /v1/webhooks/{id}/test). IMX_DBS_OK with the
 * delivery id, or the failure, its detail in *why when asked (cause IMX_DBC_NO_DATA: no such
 * webhook; IMX_DBC_NOT_READY: it is disabled). */
enum imx_db_status imx_webhooks_ping(struct imx_db_conn *db, int64_t webhook_id,
                                     int64_t *delivery_id, struct imx_db_fault *why);

/* Re-queues a delivered or failed delivery: IMX_DBS_OK when queued, IMX_DBS_NOT_FOUND when it
 * is pending already, missing or its subscription is disabled, or the failure. */
enum imx_db_status imx_webhooks_redeliver(struct imx_db_conn *db, int64_t delivery_id,
                                          struct imx_db_fault *why);

/* Makes new_secret the signing secret; the previous one signs too for overlap_s seconds
 * (86400 in the API): IMX_DBS_OK, IMX_DBS_NOT_FOUND, or the failure. */
enum imx_db_status imx_webhooks_rotate_secret(struct imx_db_conn *db, int64_t webhook_id,
                                              const char *new_secret, unsigned overlap_s,
                                              struct imx_db_fault *why);

/* One claimed delivery. Strings are new (imx_db_webhook_claim_free). */
struct imx_db_webhook_claim {
    int64_t delivery_id, lease_seq, webhook_id;
    int attempt;
    char *url, *secret, *previous_secret; /* previous_secret NULL unless in its overlap */
    char *msg_id, *body;                  /* body: in the subscription's payload format */
    size_t body_len;
    bool cloudevents; /* a CloudEvents 1.0 structured event: application/cloudevents+json */
};

/* Leases the next due delivery to worker for lease_ms: IMX_DBS_OK with *c filled,
 * IMX_DBS_NOT_FOUND when none is due, or the failure. */
enum imx_db_status imx_db_webhook_claim(struct imx_db_conn *db, const char *worker,
                                        unsigned lease_ms, struct imx_db_webhook_claim *c);

void imx_db_webhook_claim_free(struct imx_db_webhook_claim *c);

/* One finished attempt, for imx_db_webhook_finish. */
struct imx_db_webhook_attempt {
    const char *worker;
    double started_at; /* unix time, seconds */
    long status;       /* 0 = no HTTP answer */
    long latency_ms;
    const char *error;    /* NULL on success */
    const char *response; /* NUL-terminated valid UTF-8, at most 64 KiB; may be NULL */
    const char *outcome;  /* "delivered", "retry" or "gone" */
    long long retry_ms;   /* for "retry": wait this long; -1: the schedule is exhausted */
    unsigned disable_after_s;
};

/* Records the attempt and moves the delivery on (imx_webhook_finish): IMX_DBS_OK with the
 * resulting state ("pending", "delivered", "failed", "stale") copied into state, or the
 * failure. */
enum imx_db_status imx_db_webhook_finish(struct imx_db_conn *db,
                                         const struct imx_db_webhook_claim *c,
                                         const struct imx_db_webhook_attempt *a, char *state,
                                         size_t len);

/* The /v1/webhooks and /v1/deliveries API. Each function runs one prepared statement and
 * returns its status with typed outputs or finished JSON text; string arguments are borrowed, NULL
 * is SQL NULL; lists of strings are JSON arrays of strings. Responses never include a secret. */

/* The team's subscriptions -> count, after taking the team's webhook-quota lock (held to the end
 * of the transaction), so two creations at once cannot both take the last place. */
enum imx_db_status imx_db_webhook_count(struct imx_db_conn *c, const char *team_id,
                                        long long *count, struct imx_db_fault *why);

/* Creates a subscription -> its id and webhook JSON (the quota is checked with
 * imx_db_webhook_count first, in the same transaction). */
enum imx_db_status imx_db_webhook_create(struct imx_db_conn *c, const char *team_id,
                                         const char *url, const char *description,
                                         const char *secret, const char *events,
                                         const char *families, const char *pins,
                                         const char *min_severity, const char *payload_format,
                                         int64_t *id, struct imx_db_json *doc,
                                         struct imx_db_fault *why);
/* Who owns a subscription -> its team (IMX_DBS_NOT_FOUND: none). */
enum imx_db_status imx_db_webhook_owner(struct imx_db_conn *c, const char *id, int64_t *team_id,
                                        struct imx_db_fault *why);
/* -> webhook JSON, with its last delivery (IMX_DBS_NOT_FOUND: none). */
enum imx_db_status imx_db_webhook_get(struct imx_db_conn *c, const char *id,
                                      struct imx_db_json *out, struct imx_db_fault *why);
/* A team's subscriptions by id, after the keyset id (NULL: from the start), at most limit+1 ->
 * a page of (id, webhook JSON). */
enum imx_db_status imx_db_webhook_list(struct imx_db_conn *c, const char *team_id,
                                       const char *after_id, const char *limit,
                                       struct imx_db_page *out, struct imx_db_fault *why);
/* Changes the fields given (NULL: unchanged); min_severity changes only when set_severity is
 * "true" (NULL then clears it); payload_format: "imaxe" | "cloudevents" (NULL: keep);
 * IMX_DBS_NOT_FOUND: none. */
enum imx_db_status imx_db_webhook_update(struct imx_db_conn *c, const char *id, const char *team_id,
                                         const char *url, const char *description,
                                         const char *events, const char *families, const char *pins,
                                         const char *set_severity, const char *min_severity,
                                         const char *payload_format, struct imx_db_fault *why);
/* Enables ("true": clears the failure streak) or disables ("false", with reason; a no-op when
 * disabled already). */
enum imx_db_status imx_db_webhook_enable(struct imx_db_conn *c, const char *id, const char *enabled,
                                         const char *reason, struct imx_db_fault *why);
/* Deletes a subscription with its deliveries (IMX_DBS_NOT_FOUND: none). */
enum imx_db_status imx_db_webhook_delete(struct imx_db_conn *c, const char *id, const char *team_id,
                                         struct imx_db_fault *why);
/* A subscription's deliveries, newest first, before the keyset id (NULL: from the newest), in
 * state (NULL: any), at most limit+1 -> a page of (id, delivery JSON with its attempts). */
enum imx_db_status imx_db_webhook_deliveries(struct imx_db_conn *c, const char *webhook_id,
                                             const char *before_id, const char *state,
                                             const char *limit, struct imx_db_page *out,
                                             struct imx_db_fault *why);
/* What one retention pass did and saw (imx_db_webhook_prune). */
struct imx_db_outbox {
    long long deliveries_pruned, events_pruned; /* removed in this pass */
    long long pending;                          /* deliveries still owed */
    long long events;                           /* events stored (the planner's estimate) */
};

/* Removes up to batch delivered or failed deliveries (and their attempts) older than
 * retention_days, up to batch events as old with no delivery left, and up to batch expired
 * Idempotency-Key replies; never anything pending: IMX_DBS_OK (out filled) or the failure. */
enum imx_db_status imx_db_webhook_prune(struct imx_db_conn *db, unsigned retention_days,
                                        unsigned batch, struct imx_db_outbox *out);

/* Who owns a delivery. */
struct imx_db_delivery_owner {
    int64_t team_id, webhook_id;
    char state[16]; /* pending, delivered, failed */
    bool enabled;   /* the subscription */
};
/* IMX_DBS_NOT_FOUND: no such delivery. */
enum imx_db_status imx_db_delivery_owner(struct imx_db_conn *c, const char *id,
                                         struct imx_db_delivery_owner *out,
                                         struct imx_db_fault *why);
/* -> delivery JSON with the payload and every attempt with its response (IMX_DBS_NOT_FOUND:
 * none). */
enum imx_db_status imx_db_delivery_get(struct imx_db_conn *c, const char *id,
                                       struct imx_db_json *out, struct imx_db_fault *why);

#endif
