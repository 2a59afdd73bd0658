/* Webhook subscriptions and their deliveries: /v1/webhooks (+ rotate-secret, test, deliveries)
 * and /v1/deliveries/{id} (+ redeliver). Team admins change subscriptions, members may send test
 * pings and redeliver, viewers read. Secrets are shown once, on creation and rotation. */
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/etag.h"
#include "api/cursor.h"
#include "auth/auth.h"
#include "api/tx.h"
#include "db/webhooks.h"
#include "webhooks/sign.h"
#include "webhooks/ssrf.h"

#define DESCRIPTION_MAX  500
#define FILTER_ITEMS_MAX 100
#define FILTER_ITEM_MAX  200
/* Both secrets sign this long after a rotation, so receivers can switch without a gap. */
#define ROTATION_OVERLAP_S 86400

/* The event types a subscription may ask for: imx_webhook_event_types() in
 * migrations/functions/webhooks.sql (tests/integration/test_webhook_api.c checks they agree). */
static const char *const event_types[] = {
    "patch.available",
    "image.published",
    "image.deprecated",
    "image.revoked",
    "advisory.published",
    "pin.moved",
    "request.updated",
    "ping",
    "image.compatibility_changed",
    "node.drifted",
    "advisory.exploited",
    "image.eol_approaching",
};

_Static_assert(sizeof event_types / sizeof event_types[0] == 12,
               "read_list names every event type in its message");

static const char *const severities[] = { "low", "medium", "high", "critical" };

/* min_severity is checked by hand: it may be null (no filter), which the field specs cannot say. */
static const struct imx_api_field create_fields[] = {
    { "team", JSON_STRING, true },
    { "url", JSON_STRING, true },
    { "events", JSON_ARRAY, true },
    { "families", JSON_ARRAY, false },
    { "pins", JSON_ARRAY, false },
    { "description", JSON_STRING, false },
    { "payload_format", JSON_STRING, false },
    { NULL, JSON_NULL, false },
};

static const struct imx_api_field update_fields[] = {
    { "url", JSON_STRING, false },
    { "events", JSON_ARRAY, false },
    { "families", JSON_ARRAY, false },
    { "pins", JSON_ARRAY, false },
    { "description", JSON_STRING, false },
    { "enabled", JSON_TRUE, false },
    { "payload_format", JSON_STRING, false },
    { NULL, JSON_NULL, false },
};

static struct imx_ssrf_allow ssrf_allow;

int imx_api_webhooks_init(const struct imx_config *cfg, char *err, size_t errlen)
{
    return imx_ssrf_allow_parse(cfg->webhook_allow_hosts, &ssrf_allow, err, errlen);
}

/* A subscription as the body asks for it. The JSON texts are new (input_free). */
struct webhook_input {
    const char *url, *description, *min_severity;
    const char *payload_format; /* "imaxe" | "cloudevents"; NULL when absent */
    bool has_severity;
    char *events, *families, *pins;
    json_t *enabled; /* borrowed; NULL when absent */
};

static void input_free(struct webhook_input *in)
{
    free(in->events);
    free(in->families);
    free(in->pins);
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

/* Checks a list of strings at /name: min..max of them, each a known name (when known is not
 * NULL) or 1..FILTER_ITEM_MAX characters, none twice. Returns its compact JSON text (new), or
 * NULL when absent or after appending errors. */
static char *read_list(const json_t *body, const char *name, const char *const *known,
                       size_t nknown, size_t min, size_t max, json_t *errors)
{
    const json_t *a = json_object_get(body, name);
    if (!json_is_array(a))
        return NULL;
    size_t n = json_array_size(a), i, before = json_array_size(errors);
    char ptr[64];
    if (n < min || n > max) {
        imx_verr(errors, imx_api_pointer(name, ptr, sizeof ptr), "must have %zu to %zu items", min,
                 max);
        return NULL;
    }
    const json_t *v;
    json_array_foreach(a, i, v)
    {
        const char *s = json_string_value(v);
        snprintf(ptr, sizeof ptr, "/%s/%zu", name, i);
        if (!s) {
            imx_verr(errors, ptr, "must be a string");
            continue;
        }
        if (known && !in_list(s, known, nknown)) {
            imx_verr(errors, ptr,
                     "is not an event type (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s or %s)",
                     known[0], known[1], known[2], known[3], known[4], known[5], known[6], known[7],
                     known[8], known[9], known[10], known[11]);
            continue;
        }
        if (!known && (strlen(s) == 0 || strlen(s) > FILTER_ITEM_MAX)) {
            imx_verr(errors, ptr, "must be 1 to %d characters", FILTER_ITEM_MAX);
            continue;
        }
        for (size_t j = 0; j < i; j++)
            if (json_equal((json_t *)v, json_array_get(a, j))) {
                imx_verr(errors, ptr, "repeats item %zu", j);
                break;
            }
    }
    return json_array_size(errors) > before ? NULL : json_dumps(a, JSON_COMPACT);
}

/* Reads and checks a create or update body into in. The URL goes through the SSRF guard with
 * the configured allow list, resolving its host. On any problem, frees in, replies 400 listing
 * every one and returns false. */
static bool input_read(struct imx_req *r, const json_t *body, const struct imx_api_field *fields,
                       struct webhook_input *in)
{
    json_t *errors = json_array();
    json_t *rest = json_copy((json_t *)body);
    json_object_del(rest, "min_severity");
    imx_api_check_fields(rest, fields, errors);
    json_decref(rest);

    in->url = json_string_value(json_object_get(body, "url"));
    in->description = json_string_value(json_object_get(body, "description"));
    in->enabled = json_object_get(body, "enabled");
    if (in->enabled && !json_is_boolean(in->enabled))
        in->enabled = NULL;
    in->events = read_list(body, "events", event_types, sizeof event_types / sizeof event_types[0],
                           1, 16, errors);
    in->families = read_list(body, "families", NULL, 0, 0, FILTER_ITEMS_MAX, errors);
    in->pins = read_list(body, "pins", NULL, 0, 0, FILTER_ITEMS_MAX, errors);

    const json_t *sev = json_object_get(body, "min_severity");
    if (sev) {
        in->has_severity = true;
        in->min_severity = json_string_value(sev);
        if (!json_is_null(sev) &&
            (!in->min_severity ||
             !in_list(in->min_severity, severities, sizeof severities / sizeof severities[0])))
            imx_verr(errors, "/min_severity", "must be low, medium, high, critical or null");
    }
    in->payload_format = json_string_value(json_object_get(body, "payload_format"));
    if (in->payload_format && strcmp(in->payload_format, "imaxe") != 0 &&
        strcmp(in->payload_format, "cloudevents") != 0)
        imx_verr(errors, "/payload_format",
                 "must be imaxe (its envelope) or cloudevents (CloudEvents 1.0 structured JSON)");
    if (in->description && strlen(in->description) > DESCRIPTION_MAX)
        imx_verr(errors, "/description", "must be at most %d characters", DESCRIPTION_MAX);
    if (in->url) {
        char reason[512];
        if (imx_ssrf_check_url(in->url, &ssrf_allow, imx_ssrf_resolve_system, NULL, reason,
                               sizeof reason) != 0)
            imx_verr(errors, "/url", "is refused: %s", reason);
    }
    if (json_array_size(errors) > 0) {
        input_free(in);
        imx_reply_invalid_steal(r, errors, "The webhook has invalid fields");
        return false;
    }
    json_decref(errors);
    return true;
}

/* Parses route parameter "id". Not a number is the same as not there: 404. */
static bool param_id(struct imx_req *r, const char *what, char id[24])
{
    unsigned long long v = 0;
    const char *s = imx_req_param(r, "id");
    if (imx_parse_uint(s, 1, INT64_MAX, &v) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No %s %s", what, s ? s : "");
        return false;
    }
    snprintf(id, 24, "%llu", v);
    return true;
}

/* A subscription the caller may act on with at least min in its team: fills team_id. Replies 404
 * for a missing one or another team's (never revealing which), 403 for a role too low. */
static bool webhook_owned(struct imx_req *r, const char *id, enum imx_role min, char team_id[24])
{
    struct imx_db_fault why = { 0 };
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return false;
    int64_t team;
    enum imx_db_status st = imx_db_webhook_owner(c, id, &team, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No webhook %s", id);
        return false;
    }
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, &why);
        return false;
    }
    snprintf(team_id, 24, "%lld", (long long)team);
    return imx_auth_team_id(r, team, min);
}

/* Replies status with the JSON text of j (parsed so that members can be added: secret may be
 * NULL; j is freed), after setting Location when loc is not NULL. Returns 0, or -1 after
 * replying 500. */
static int reply_doc(struct imx_req *r, unsigned status, struct imx_db_json *j, const char *secret,
                     const char *loc)
{
    json_t *doc = imx_api_json_load(j);
    if (!doc) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    if (secret)
        json_object_set_new(doc, "secret", json_string(secret));
    if (loc)
        imx_reply_header(r, "Location", loc);
    imx_reply_json_steal(r, status, doc);
    return 0;
}

struct webhook_create {
    char team_id[24];
    const char *team;
    struct webhook_input in;
    char secret[IMX_WEBHOOK_SECRET_LEN + 1];
};

static int create_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct webhook_create *w = cls;
    long long held;
    enum imx_db_status st = imx_db_webhook_count(imx_api_conn(r), w->team_id, &held, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    if (held >= imx_api_quotas.webhooks_per_team) {
        imx_api_reply_quota(r, "webhooks-per-team", imx_api_quotas.webhooks_per_team,
                            "the team has that many webhook subscriptions; delete one first");
        return -1;
    }
    int64_t new_id;
    struct imx_db_json j;
    st = imx_db_webhook_create(imx_api_conn(r), w->team_id, w->in.url, w->in.description, w->secret,
                               w->in.events, w->in.families ? w->in.families : "[]",
                               w->in.pins ? w->in.pins : "[]", w->in.min_severity,
                               w->in.payload_format, &new_id, &j, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    char id[24], loc[64];
    snprintf(id, sizeof id, "%lld", (long long)new_id);
    json_t *detail =
        json_pack("{s:s, s:s, s:s}", "team", w->team, "url", w->in.url, "events", w->in.events);
    int rc = imx_audit(r, "create", "webhook", id, detail);
    json_decref(detail);
    snprintf(loc, sizeof loc, "/v1/webhooks/%s", id);
    if (rc == 0)
        rc = imx_api_etag_after(r, IMX_REV_WEBHOOK, id, NULL);
    if (rc == 0)
        rc = reply_doc(r, 201, &j, w->secret, loc);
    imx_db_json_free(&j);
    return rc;
}

void imx_api_webhook_create(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    struct webhook_create w = { .team = json_string_value(json_object_get(body, "team")) };
    /* Who may create comes before what is wrong with the rest (and before resolving the URL). */
    if (w.team) {
        int64_t team_id = imx_auth_team(r, w.team, IMX_ROLE_ADMIN);
        if (!team_id)
            return;
        snprintf(w.team_id, sizeof w.team_id, "%lld", (long long)team_id);
    }
    if (!input_read(r, body, create_fields, &w.in))
        return;
    if (imx_webhook_secret_new(w.secret) != 0) {
        input_free(&w.in);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_api_tx(r, create_tx, &w);
    OPENSSL_cleanse(w.secret, sizeof w.secret);
    input_free(&w.in);
}

void imx_api_webhook_list(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    const char *team = imx_req_query(r, "team");
    unsigned long long limit;
    char after[24], team_id[24], limit_txt[16];
    const char *after_id;
    if (!team) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "team (a team slug) is required");
        return;
    }
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_id(r, after, &after_id))
        return;
    int64_t id = imx_auth_team(r, team, IMX_ROLE_VIEWER);
    if (!id)
        return;
    snprintf(team_id, sizeof team_id, "%lld", (long long)id);
    snprintf(limit_txt, sizeof limit_txt, "%llu", limit);
    struct imx_db_page page;
    enum imx_db_status st =
        imx_db_webhook_list(imx_api_conn(r), team_id, after_id, limit_txt, &page, &why);
    imx_api_reply_page(r, st, &why, &page, 0, limit, "I");
}

void imx_api_webhook_get(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    char id[24], team_id[24];
    if (!param_id(r, "webhook", id) || !webhook_owned(r, id, IMX_ROLE_VIEWER, team_id) ||
        !imx_api_etag(r, IMX_REV_WEBHOOK, id, NULL))
        return;
    struct imx_db_json j;
    enum imx_db_status st = imx_db_webhook_get(imx_api_conn(r), id, &j, &why);
    imx_api_reply_json_text(r, 200, st, &why, &j, "No such webhook");
}

struct webhook_update {
    char id[24], team_id[24], reason[96];
    const json_t *body;
    struct webhook_input in;
};

static int update_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct webhook_update *w = cls;
    if (imx_api_if_match(r, IMX_REV_WEBHOOK, w->id, NULL, false) < 0)
        return -1;
    enum imx_db_status st = imx_db_webhook_update(imx_api_conn(r), w->id, w->team_id, w->in.url,
                                                  w->in.description, w->in.events, w->in.families,
                                                  w->in.pins, w->in.has_severity ? "true" : "false",
                                                  w->in.min_severity, w->in.payload_format, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No webhook %s", w->id);
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    if (w->in.enabled) {
        st = imx_db_webhook_enable(imx_api_conn(r), w->id,
                                   json_is_true(w->in.enabled) ? "true" : "false", w->reason, &why);
        if (st != IMX_DBS_OK)
            return imx_api_tx_fail(r, st, &why);
    }
    if (imx_audit(r, "update", "webhook", w->id, w->body) != 0 ||
        imx_api_etag_after(r, IMX_REV_WEBHOOK, w->id, NULL) != 0)
        return -1;
    struct imx_db_json j;
    st = imx_db_webhook_get(imx_api_conn(r), w->id, &j, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    return reply_doc(r, 200, &j, NULL, NULL);
}

void imx_api_webhook_update(struct imx_req *r)
{
    struct webhook_update w = { .body = NULL };
    if (!param_id(r, "webhook", w.id) || !webhook_owned(r, w.id, IMX_ROLE_ADMIN, w.team_id))
        return;
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    w.body = body;
    if (!input_read(r, body, update_fields, &w.in))
        return;
    snprintf(w.reason, sizeof w.reason, "disabled by user %lld", (long long)r->principal.user_id);
    imx_api_tx(r, update_tx, &w);
    input_free(&w.in);
}

struct webhook_ref {
    char id[24], team_id[24];
};

static int delete_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct webhook_ref *w = cls;
    if (imx_api_if_match(r, IMX_REV_WEBHOOK, w->id, NULL, false) < 0)
        return -1;
    enum imx_db_status st = imx_db_webhook_delete(imx_api_conn(r), w->id, w->team_id, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No webhook %s", w->id);
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    if (imx_audit(r, "delete", "webhook", w->id, NULL) != 0)
        return -1;
    imx_reply_empty(r, 204);
    return 0;
}

void imx_api_webhook_delete(struct imx_req *r)
{
    struct webhook_ref w;
    if (!param_id(r, "webhook", w.id) || !webhook_owned(r, w.id, IMX_ROLE_ADMIN, w.team_id))
        return;
    imx_api_tx(r, delete_tx, &w);
}

struct webhook_rotate {
    char id[24];
    char secret[IMX_WEBHOOK_SECRET_LEN + 1];
};

static int rotate_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct webhook_rotate *w = cls;
    if (imx_api_if_match(r, IMX_REV_WEBHOOK, w->id, NULL, false) < 0)
        return -1;
    enum imx_db_status found = imx_webhooks_rotate_secret(imx_api_conn(r), strtoll(w->id, NULL, 10),
                                                          w->secret, ROTATION_OVERLAP_S, &why);
    if (found != IMX_DBS_OK && found != IMX_DBS_NOT_FOUND)
        return imx_api_tx_fail(r, found, &why);
    if (found == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No webhook %s", w->id);
        return -1;
    }
    if (imx_audit(r, "rotate_secret", "webhook", w->id, NULL) != 0 ||
        imx_api_etag_after(r, IMX_REV_WEBHOOK, w->id, NULL) != 0)
        return -1;
    struct imx_db_json j;
    enum imx_db_status st = imx_db_webhook_get(imx_api_conn(r), w->id, &j, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    return reply_doc(r, 200, &j, w->secret, NULL);
}

void imx_api_webhook_rotate_secret(struct imx_req *r)
{
    struct webhook_rotate w;
    char team_id[24];
    if (!param_id(r, "webhook", w.id) || !webhook_owned(r, w.id, IMX_ROLE_ADMIN, team_id))
        return;
    if (imx_webhook_secret_new(w.secret) != 0) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_api_tx(r, rotate_tx, &w);
    OPENSSL_cleanse(w.secret, sizeof w.secret);
}

/* Replies status with delivery id's JSON and its Location (inside the transaction). */
static int reply_delivery(struct imx_req *r, unsigned status, const char *id)
{
    struct imx_db_fault why = { 0 };
    char loc[64];
    struct imx_db_json j;
    enum imx_db_status st = imx_db_delivery_get(imx_api_conn(r), id, &j, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    snprintf(loc, sizeof loc, "/v1/deliveries/%s", id);
    return reply_doc(r, status, &j, NULL, loc);
}

static int test_tx(struct imx_req *r, void *cls)
{
    struct webhook_ref *w = cls;
    int64_t delivery = 0;
    char id[24];
    struct imx_db_fault why = { 0 };
    enum imx_db_status st =
        imx_webhooks_ping(imx_api_conn(r), strtoll(w->id, NULL, 10), &delivery, &why);
    if (st != IMX_DBS_OK) {
        enum imx_db_cause cause = why.cause;
        if (cause == IMX_DBC_NOT_READY) {
            imx_reply_problem(r, IMX_E_CONFLICT,
                              "Webhook %s is disabled; enable it (PATCH enabled: true) first",
                              w->id);
            return -1;
        }
        if (cause == IMX_DBC_NO_DATA) {
            imx_reply_problem(r, IMX_E_NOT_FOUND, "No webhook %s", w->id);
            return -1;
        }
        return imx_api_tx_fail(r, st, &why);
    }
    snprintf(id, sizeof id, "%lld", (long long)delivery);
    json_t *detail = json_pack("{s:s}", "delivery", id);
    int rc = imx_audit(r, "test", "webhook", w->id, detail);
    json_decref(detail);
    return rc == 0 ? reply_delivery(r, 202, id) : rc;
}

void imx_api_webhook_test(struct imx_req *r)
{
    struct webhook_ref w;
    if (!param_id(r, "webhook", w.id) || !webhook_owned(r, w.id, IMX_ROLE_MEMBER, w.team_id))
        return;
    imx_api_tx(r, test_tx, &w);
}

void imx_api_webhook_deliveries(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    char id[24], team_id[24], before[24], limit_txt[16];
    const char *before_id, *state = imx_req_query(r, "state");
    unsigned long long limit;
    static const char *const states[] = { "pending", "delivered", "failed" };
    if (!param_id(r, "webhook", id))
        return;
    if (state && !in_list(state, states, 3)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "state must be pending, delivered or failed");
        return;
    }
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_id(r, before, &before_id))
        return;
    if (!webhook_owned(r, id, IMX_ROLE_VIEWER, team_id))
        return;
    snprintf(limit_txt, sizeof limit_txt, "%llu", limit);
    struct imx_db_page page;
    enum imx_db_status st =
        imx_db_webhook_deliveries(imx_api_conn(r), id, before_id, state, limit_txt, &page, &why);
    imx_api_reply_page(r, st, &why, &page, 0, limit, "I");
}

/* A delivery the caller may act on with at least min in its subscription's team. Fills its
 * state (pending, delivered, failed) and whether the subscription is enabled; replies 404 or
 * 403 as webhook_owned does. */
static bool delivery_owned(struct imx_req *r, const char *id, enum imx_role min, char state[16],
                           bool *enabled)
{
    struct imx_db_fault why = { 0 };
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return false;
    struct imx_db_delivery_owner o;
    enum imx_db_status st = imx_db_delivery_owner(c, id, &o, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No delivery %s", id);
        return false;
    }
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, &why);
        return false;
    }
    snprintf(state, 16, "%s", o.state);
    *enabled = o.enabled;
    return imx_auth_team_id(r, o.team_id, min);
}

void imx_api_delivery_get(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    char id[24], state[16];
    bool enabled;
    if (!param_id(r, "delivery", id) || !delivery_owned(r, id, IMX_ROLE_VIEWER, state, &enabled))
        return;
    struct imx_db_json j;
    enum imx_db_status st = imx_db_delivery_get(imx_api_conn(r), id, &j, &why);
    imx_api_reply_json_text(r, 200, st, &why, &j, "No such delivery");
}

static int redeliver_tx(struct imx_req *r, void *cls)
{
    const char *id = cls;
    struct imx_db_fault why = { 0 };
    enum imx_db_status queued =
        imx_webhooks_redeliver(imx_api_conn(r), strtoll(id, NULL, 10), &why);
    if (queued != IMX_DBS_OK && queued != IMX_DBS_NOT_FOUND)
        return imx_api_tx_fail(r, queued, &why);
    if (queued == IMX_DBS_NOT_FOUND) {
        /* Raced with the dispatcher or a PATCH since the checks before the transaction. */
        imx_reply_problem(r, IMX_E_CONFLICT,
                          "Delivery %s is pending already, or its webhook is disabled", id);
        return -1;
    }
    if (imx_audit(r, "redeliver", "webhook_delivery", id, NULL) != 0)
        return -1;
    return reply_delivery(r, 202, id);
}

void imx_api_delivery_redeliver(struct imx_req *r)
{
    char id[24], state[16];
    bool enabled;
    if (!param_id(r, "delivery", id) || !delivery_owned(r, id, IMX_ROLE_MEMBER, state, &enabled))
        return;
    if (strcmp(state, "pending") == 0) {
        imx_reply_problem(r, IMX_E_CONFLICT, "Delivery %s is pending already", id);
        return;
    }
    if (!enabled) {
        imx_reply_problem(r, IMX_E_CONFLICT,
                          "The webhook of delivery %s is disabled; enable it (PATCH enabled: "
                          "true) first",
                          id);
        return;
    }
    imx_api_tx(r, redeliver_tx, id);
}
