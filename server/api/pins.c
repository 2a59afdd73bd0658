/* Pins, a team's named channel to one image: POST/GET /v1/pins, GET/PUT/DELETE /v1/pins/{id}.
 * Moves must satisfy the pin's constraints (422 naming the unmet ones) and are kept in history. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/etag.h"
#include "api/cursor.h"
#include "auth/auth.h"
#include "db/events.h"
#include "db/pins.h"
#include "api/tx.h"
#include "domain/version.h"
#include "util/config.h"
#include "util/json_text.h"
#include "util/urlcode.h"

#define PIN_CONSTRAINTS_MAX 16
#define UNMET_TEXT_MAX      900

static const struct imx_api_field pin_fields[] = {
    { "team", JSON_STRING, true },   { "name", JSON_STRING, true },
    { "image", JSON_INTEGER, true }, { "constraints", JSON_ARRAY, false },
    { NULL, JSON_NULL, false },
};

static const struct imx_api_field move_fields[] = {
    { "image", JSON_INTEGER, true },
    { NULL, JSON_NULL, false },
};

static const struct imx_api_field constraint_fields[] = {
    { "component", JSON_STRING, true },
    { "range", JSON_STRING, true },
    { NULL, JSON_NULL, false },
};

#define LOWER_DIGITS "abcdefghijklmnopqrstuvwxyz0123456789"

/* s is 1..max characters, the first from LOWER_DIGITS and all from allowed. */
static bool token_ok(const char *s, size_t max, const char *allowed)
{
    size_t n = strlen(s);
    return n > 0 && n <= max && strchr(LOWER_DIGITS, s[0]) && strspn(s, allowed) == n;
}

static bool name_ok(const char *s)
{
    return token_ok(s, 63, LOWER_DIGITS "._-");
}

/* Checks the constraints array; returns their stored form (new) or NULL after errors. */
static json_t *check_constraints(const json_t *list, json_t *errors)
{
    json_t *out = json_array(), *e;
    size_t i, before = json_array_size(errors);
    char ptr[64], err[IMX_CONSTRAINT_ERR_SIZE];
    if (json_array_size(list) > PIN_CONSTRAINTS_MAX)
        imx_verr(errors, "/constraints", "must list at most %d constraints", PIN_CONSTRAINTS_MAX);
    json_array_foreach(list, i, e)
    {
        snprintf(ptr, sizeof ptr, "/constraints/%zu", i);
        if (!json_is_object(e) || i >= PIN_CONSTRAINTS_MAX) {
            imx_verr(errors, ptr, "must be an object {component, range}");
            continue;
        }
        json_t *sub = json_array(), *se;
        size_t k;
        imx_api_check_fields(e, constraint_fields, sub);
        json_array_foreach(sub, k, se)
        {
            snprintf(ptr, sizeof ptr, "/constraints/%zu%s", i,
                     json_string_value(json_object_get(se, "pointer")));
            imx_verr(errors, ptr, "%s", json_string_value(json_object_get(se, "detail")));
        }
        json_decref(sub);
        const char *component = json_string_value(json_object_get(e, "component"));
        const char *range = json_string_value(json_object_get(e, "range"));
        if (!component || !range)
            continue;
        if (!token_ok(component, 64, LOWER_DIGITS "._+-")) {
            snprintf(ptr, sizeof ptr, "/constraints/%zu/component", i);
            imx_verr(errors, ptr, "must be a component name such as nvidia-driver");
        }
        json_t *b = imx_api_range_bounds(range, err, sizeof err);
        if (!b) {
            snprintf(ptr, sizeof ptr, "/constraints/%zu/range", i);
            imx_verr(errors, ptr, "%s", err);
            continue;
        }
        json_object_set_new(b, "component", json_string(component));
        json_array_append_new(out, b);
    }
    if (json_array_size(errors) > before) {
        json_decref(out);
        return NULL;
    }
    return out;
}

/* Checks that image exists and is not revoked. Returns 0, or -1 after replying. */
static int check_image(struct imx_req *r, const char *image_id)
{
    struct imx_db_fault why = { 0 };
    bool revoked;
    enum imx_db_status st = imx_db_pin_image(imx_api_conn(r), image_id, &revoked, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        json_t *errors = json_array();
        imx_verr(errors, "/image", "no image has id %s", image_id);
        imx_reply_invalid_steal(r, errors, "The pin has invalid fields");
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    if (revoked) {
        imx_reply_problem(r, IMX_E_UNPROCESSABLE, "Image %s is revoked; a pin cannot point at it",
                          image_id);
        return -1;
    }
    return 0;
}

/* Replies 422 naming every constraint of the pin that image does not satisfy. Returns 0 when
 * all hold, -1 after replying. */
static int check_unmet(struct imx_req *r, const char *pin_id, const char *image_id)
{
    struct imx_db_fault why = { 0 };
    struct imx_db_json j;
    enum imx_db_status st = imx_db_pin_unmet(imx_api_conn(r), pin_id, image_id, &j, &why);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND)
        return imx_api_tx_fail(r, st, &why);
    json_t *unmet = imx_api_json_load(&j);
    if (json_array_size(unmet) == 0) {
        json_decref(unmet);
        return 0;
    }
    char text[UNMET_TEXT_MAX] = "";
    size_t len = 0, i;
    json_t *u;
    json_array_foreach(unmet, i, u)
    {
        const char *version = json_string_value(json_object_get(u, "version"));
        char has[96];
        snprintf(has, sizeof has, version ? " (it has %s)" : " (it has none)", version);
        int w = snprintf(text + len, sizeof text - len, "%s%s %s%s", i ? "; " : "",
                         json_string_value(json_object_get(u, "component")),
                         json_string_value(json_object_get(u, "range")), has);
        if (w < 0 || (size_t)w >= sizeof text - len)
            break;
        len += (size_t)w;
    }
    json_decref(unmet);
    imx_reply_problem(r, IMX_E_UNPROCESSABLE, "Image %s does not satisfy the pin's constraints: %s",
                      image_id, text);
    return -1;
}

/* Replies with a pin's document (PostgreSQL's JSON text, printed as jansson would print it) and
 * its ETag. Returns 0, or -1 after replying 500. */
static int reply_pin_doc(struct imx_req *r, unsigned status, const struct imx_db_pin_doc *d)
{
    struct imx_jbuf body = { 0 };
    if (!d->json || !imx_json_put_norm(&body, d->json, strlen(d->json)) || body.p[0] != '{') {
        imx_jbuf_free(&body);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    char rev[24];
    snprintf(rev, sizeof rev, "%lld", d->revision);
    imx_api_etag_set(r, rev);
    imx_reply_raw_steal(r, status, "application/json", body.p, body.len, NULL, NULL);
    return 0;
}

/* Replies with the pin's document and its ETag, as the write left them. */
static int reply_pin(struct imx_req *r, unsigned status, const char *pin_id)
{
    struct imx_db_fault why = { 0 };
    struct imx_db_pin_doc d;
    enum imx_db_status st =
        imx_db_pin_read(imx_api_conn(r), pin_id, NULL, imx_auth_settings.read_cache, &d, &why);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND && st != IMX_DBS_ERROR)
        return imx_api_tx_fail(r, st, &why);
    if (st != IMX_DBS_OK) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    int rc = reply_pin_doc(r, status, &d);
    free(d.json);
    return rc;
}

struct pin_create {
    char team_id[24], image_id[24], user_id[24], pin_id[24];
    const char *team, *name;
    char *constraints; /* owned */
};

static int pin_create_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct pin_create *p = cls;
    if (check_image(r, p->image_id) != 0)
        return -1;
    long long held;
    enum imx_db_status st = imx_db_pin_count(imx_api_conn(r), p->team_id, &held, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    if (held >= imx_api_quotas.pins_per_team) {
        imx_api_reply_quota(r, "pins-per-team", imx_api_quotas.pins_per_team,
                            "the team has that many pins; delete one first");
        return -1;
    }
    st = imx_db_pin_create(imx_api_conn(r), p->team_id, p->name, p->image_id, p->constraints,
                           p->user_id, p->pin_id, &why);
    if (st == IMX_DBS_CONFLICT) {
        imx_reply_problem(r, IMX_E_CONFLICT, "Team %s already has a pin named %s", p->team,
                          p->name);
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    if (check_unmet(r, p->pin_id, p->image_id) != 0)
        return -1;
    st = imx_db_pin_refresh(imx_api_conn(r), p->pin_id, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    json_t *detail =
        json_pack("{s:s, s:s, s:s}", "team", p->team, "name", p->name, "image", p->image_id);
    int rc = imx_audit(r, "create", "pin", p->pin_id, detail);
    json_decref(detail);
    if (rc != 0)
        return -1;
    char loc[64];
    snprintf(loc, sizeof loc, "/v1/pins/%s", p->pin_id);
    imx_reply_header(r, "Location", loc);
    return reply_pin(r, 201, p->pin_id);
}

void imx_api_pin_create(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, pin_fields, errors);
    struct pin_create p = {
        .team = json_string_value(json_object_get(body, "team")),
        .name = json_string_value(json_object_get(body, "name")),
    };
    json_t *image = json_object_get(body, "image");
    if (json_is_integer(image) && json_integer_value(image) < 1)
        imx_verr(errors, "/image", "must be an image id");
    if (p.name && !name_ok(p.name))
        imx_verr(errors, "/name",
                 "must be 1 to 63 of a-z, 0-9, '.', '_' and '-', starting with a letter or digit");
    json_t *list = json_object_get(body, "constraints");
    json_t *stored = check_constraints(json_is_array(list) ? list : NULL, errors);
    if (json_array_size(errors) > 0) {
        json_decref(stored);
        imx_reply_invalid_steal(r, errors, "The pin has invalid fields");
        return;
    }
    json_decref(errors);
    int64_t team_id = imx_auth_team(r, p.team, IMX_ROLE_MEMBER);
    if (!team_id) {
        json_decref(stored);
        return;
    }
    snprintf(p.team_id, sizeof p.team_id, "%lld", (long long)team_id);
    snprintf(p.image_id, sizeof p.image_id, "%lld", (long long)json_integer_value(image));
    snprintf(p.user_id, sizeof p.user_id, "%lld", (long long)r->principal.user_id);
    p.constraints = json_dumps(stored, JSON_COMPACT);
    json_decref(stored);
    if (!p.constraints)
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    else
        imx_api_tx(r, pin_create_tx, &p);
    free(p.constraints);
}

struct page_args {
    const char *slug, *after, *limit, *eol_before;
};

static enum imx_db_status read_page(struct imx_db_conn *c, const char *user_id, void *cls,
                                    struct imx_db_team_read *out, struct imx_db_fault *why)
{
    const struct page_args *a = cls;
    if (a->eol_before)
        return imx_db_pin_list_eol(c, a->slug, user_id, a->after, a->limit, a->eol_before, out,
                                   why);
    return imx_db_pin_list(c, a->slug, user_id, a->after, a->limit, imx_auth_settings.read_cache,
                           out, why);
}

/* The page read by a statement shared with the other pages waiting (db/read_batch.c), with the
 * team, the caller's role in it and the auth epoch, checked as imx_auth_team_with checks its own
 * statement's. */
static void pin_list_batched(struct imx_req *r, const char *team, const char *after,
                             const char *limit_txt, unsigned long long limit)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        /* Waiting for the batch holds no connection (one held by each waiter could leave the
         * reader none); a principal checked in full took one. */
        imx_api_db_put(r);
        char uid[24];
        snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
        struct imx_db_pin_page p;
        enum imx_db_status rc = imx_db_pin_list_batched(team, uid, after, limit_txt, &p);
        if (rc != IMX_DBS_OK) {
            imx_api_reply_db_status(r, rc);
            return;
        }
        int confirmed = imx_auth_confirm(r, p.epoch);
        if (confirmed == 1 && imx_auth_team_read(r, team, p.team_id, p.role, IMX_ROLE_VIEWER))
            imx_api_reply_page_rows(r, &p.rows, IMX_DB_PIN_BATCH_PAGE_COL, limit, "s");
        imx_db_pin_page_free(&p);
        if (confirmed != 0)
            return;
        /* checked again in full: the page was read for the principal as it was */
    }
    imx_reply_problem(r, IMX_E_INTERNAL, NULL); /* a principal checked in full confirms at once */
}

/* The arguments of GET /v1/pins: team, the cursor's name (after, "" without a cursor) and the
 * limit. Returns false after replying 400. */
struct list_args {
    const char *team, *cursor, *eol_before;
    char after[80], limit_txt[16];
    unsigned long long limit;
};

static bool list_args(struct imx_req *r, struct list_args *a)
{
    a->team = imx_req_query(r, "team");
    a->cursor = imx_req_query(r, "cursor");
    a->eol_before = imx_req_query(r, "eol_before");
    a->after[0] = '\0';
    if (!a->team) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "team is required (a team slug)");
        return false;
    }
    if (a->eol_before && !imx_api_eol_date_ok(a->eol_before)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "eol_before must be a date, YYYY-MM-DD");
        return false;
    }
    if (!imx_api_list_limit(r, &a->limit))
        return false;
    if (a->cursor) {
        json_t *key = imx_cursor_decode(a->cursor);
        const char *name = json_string_value(json_array_get(key, 0));
        if (json_array_size(key) != 1 || !name || strlen(name) >= sizeof a->after) {
            json_decref(key);
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "The cursor is not one this server made");
            return false;
        }
        snprintf(a->after, sizeof a->after, "%s", name);
        json_decref(key);
    }
    snprintf(a->limit_txt, sizeof a->limit_txt, "%llu", a->limit);
    return true;
}

/* GET /v1/pins on the event thread (the route's fast handler): the page read by the shared
 * statement, queued without waiting; a principal to check again, or text PostgreSQL would
 * refuse, goes to imx_api_pin_list on a worker. */
struct list_fast {
    struct imx_db_texts_call *call;
    struct list_args a;
};

static void list_fast_free(void *p)
{
    struct list_fast *f = p;
    imx_db_pin_call_free(f->call);
    free(f);
}

static enum imx_fast pin_list_fast_read(struct imx_req *r)
{
    struct list_fast *f = r->fast_state;
    struct imx_db_pin_page p;
    enum imx_db_status rc = imx_db_pin_list_result(f->call, &p);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    if (r->principal.epoch != p.epoch) {
        imx_db_pin_page_free(&p);
        return IMX_FAST_OFFLOAD;
    }
    imx_auth_confirm(r, p.epoch);
    if (imx_auth_team_read(r, f->a.team, p.team_id, p.role, IMX_ROLE_VIEWER))
        imx_api_reply_page_rows(r, &p.rows, IMX_DB_PIN_BATCH_PAGE_COL, f->a.limit, "s");
    imx_db_pin_page_free(&p);
    return IMX_FAST_DONE;
}

enum imx_fast imx_api_pin_list_fast(struct imx_req *r)
{
    if (!imx_auth_settings.read_cache || !r->principal.cached)
        return IMX_FAST_OFFLOAD;
    struct list_fast *f = calloc(1, sizeof *f);
    if (!f)
        return IMX_FAST_OFFLOAD;
    r->fast_state = f;
    r->fast_free = list_fast_free;
    if (!list_args(r, &f->a))
        return IMX_FAST_DONE;
    if (f->a.eol_before) /* filtered pages are not shared: read on a worker */
        return IMX_FAST_OFFLOAD;
    if (!imx_utf8_valid((const unsigned char *)f->a.team, strlen(f->a.team)))
        return IMX_FAST_OFFLOAD;
    char uid[24];
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    r->resume = pin_list_fast_read;
    f->call = imx_db_pin_list_start(f->a.team, uid, f->a.cursor ? f->a.after : NULL, f->a.limit_txt,
                                    imx_api_wake, r);
    return f->call ? IMX_FAST_PARKED : IMX_FAST_OFFLOAD;
}

void imx_api_pin_list(struct imx_req *r)
{
    struct list_args la;
    if (!list_args(r, &la))
        return;
    const char *team = la.team, *cursor = la.cursor, *after = la.after, *limit_txt = la.limit_txt;
    unsigned long long limit = la.limit;
    /* Text PostgreSQL would refuse goes alone: in a shared statement it would fail the others. */
    if (imx_auth_settings.read_cache && !la.eol_before &&
        imx_utf8_valid((const unsigned char *)team, strlen(team))) {
        pin_list_batched(r, team, cursor ? after : NULL, limit_txt, limit);
        return;
    }
    /* One statement reads the team, the caller's role in it, the auth epoch and the page. */
    struct page_args a = { team, cursor ? after : NULL, limit_txt, la.eol_before };
    struct imx_db_team_read t;
    if (imx_auth_team_with(r, team, IMX_ROLE_VIEWER, read_page, &a, &t)) {
        struct imx_db_rows rows = imx_db_team_read_rows(&t);
        imx_api_reply_page_rows(r, &rows, IMX_DB_PIN_PAGE_COL, limit, "s");
        imx_db_team_read_free(&t);
    }
}

/* The {id} parameter as decimal text; false (after replying 404) when it is not an id. */
static bool pin_id_param(struct imx_req *r, char id[24])
{
    unsigned long long v = 0;
    if (imx_parse_uint(imx_req_param(r, "id"), 1, INT64_MAX, &v) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such pin");
        return false;
    }
    snprintf(id, 24, "%llu", v);
    return true;
}

void imx_api_pin_get(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    char id[24], uid[24];
    if (!pin_id_param(r, id))
        return;
    struct imx_db_pin_doc d;
    int found = -1;
    for (int attempt = 0; attempt < 2; attempt++) {
        snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
        if (imx_auth_settings.read_cache) {
            /* The stored document, read by a statement shared with the other pin reads waiting
             * (which holds no connection; a principal checked in full took one). */
            imx_api_db_put(r);
            bool f;
            enum imx_db_status rc = imx_db_pin_read_batched(id, uid, &d, &f);
            if (rc != IMX_DBS_OK) {
                imx_api_reply_db_status(r, rc);
                return;
            }
            found = f;
        } else {
            struct imx_db_conn *c = imx_api_db(r);
            if (!c)
                return;
            enum imx_db_status st = imx_db_pin_read(c, id, uid, false, &d, &why);
            if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND) {
                imx_api_reply_db_fault(r, st, &why);
                return;
            }
            found = st == IMX_DBS_OK;
        }
        /* The row's epoch confirms a remembered principal (no query of its own). */
        int confirmed = imx_auth_confirm(r, d.epoch);
        if (confirmed == 1)
            break;
        free(d.json);
        if (confirmed < 0 || attempt > 0)
            return;
    }
    if (!found) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such pin");
        return;
    }
    /* the role was read with the pin, in the snapshot the epoch confirmed */
    if (imx_auth_team_read(r, NULL, d.team_id, d.role, IMX_ROLE_VIEWER))
        reply_pin_doc(r, 200, &d);
    free(d.json);
}

/* GET /v1/pins/{id} on the event thread (the route's fast handler): the same stored read, queued
 * without waiting; a principal to check again goes to imx_api_pin_get on a worker. */
static enum imx_fast pin_get_fast_read(struct imx_req *r)
{
    struct imx_db_pin_doc d;
    bool found;
    enum imx_db_status rc = imx_db_pin_read_result(r->fast_state, &d, &found);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    if (r->principal.epoch != d.epoch) {
        free(d.json);
        return IMX_FAST_OFFLOAD;
    }
    imx_auth_confirm(r, d.epoch);
    if (!found)
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such pin");
    else if (imx_auth_team_read(r, NULL, d.team_id, d.role, IMX_ROLE_VIEWER))
        reply_pin_doc(r, 200, &d);
    free(d.json);
    return IMX_FAST_DONE;
}

enum imx_fast imx_api_pin_get_fast(struct imx_req *r)
{
    char id[24], uid[24];
    if (!imx_auth_settings.read_cache || !r->principal.cached)
        return IMX_FAST_OFFLOAD;
    if (!pin_id_param(r, id))
        return IMX_FAST_DONE;
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    struct imx_db_texts_call *c = imx_db_pin_read_start(id, uid, imx_api_wake, r);
    if (!c)
        return IMX_FAST_OFFLOAD;
    r->fast_state = c;
    r->fast_free = imx_db_pin_call_free;
    r->resume = pin_get_fast_read;
    return IMX_FAST_PARKED;
}

struct pin_change {
    char id[24], image_id[24], user_id[24];
};

/* Locks the pin and checks the caller may change it. Returns 0, or -1 after replying; *image
 * gets its current image id. */
static int lock_for_change(struct imx_req *r, const char *id, char image[24])
{
    struct imx_db_fault why = { 0 };
    int64_t team_id;
    enum imx_db_status st = imx_db_pin_lock(imx_api_conn(r), id, &team_id, image, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such pin");
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    return imx_auth_team_id(r, team_id, IMX_ROLE_MEMBER) ? 0 : -1;
}

static int pin_move_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct pin_change *m = cls;
    char current[24];
    if (lock_for_change(r, m->id, current) != 0 ||
        imx_api_if_match(r, IMX_REV_PIN, m->id, NULL, false) < 0)
        return -1;
    /* Moving to where it already is changes nothing and adds no history. */
    if (strcmp(current, m->image_id) == 0)
        return reply_pin(r, 200, m->id);
    if (check_image(r, m->image_id) != 0 || check_unmet(r, m->id, m->image_id) != 0)
        return -1;
    enum imx_db_status st = imx_db_pin_move(imx_api_conn(r), m->id, m->image_id, m->user_id, &why);
    if (st == IMX_DBS_OK)
        st = imx_db_pin_refresh(imx_api_conn(r), m->id, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    json_t *detail = json_pack("{s:s, s:s}", "from_image", current, "to_image", m->image_id);
    int rc = imx_audit(r, "move", "pin", m->id, detail);
    json_decref(detail);
    if (rc != 0)
        return -1;
    st = imx_db_event_pin_moved(imx_api_conn(r), m->id, current, m->user_id, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    return reply_pin(r, 200, m->id);
}

void imx_api_pin_move(struct imx_req *r)
{
    struct pin_change m;
    if (!pin_id_param(r, m.id))
        return;
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, move_fields, errors);
    json_t *image = json_object_get(body, "image");
    if (json_is_integer(image) && json_integer_value(image) < 1)
        imx_verr(errors, "/image", "must be an image id");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The move has invalid fields");
        return;
    }
    json_decref(errors);
    snprintf(m.image_id, sizeof m.image_id, "%lld", (long long)json_integer_value(image));
    snprintf(m.user_id, sizeof m.user_id, "%lld", (long long)r->principal.user_id);
    imx_api_tx(r, pin_move_tx, &m);
}

static int pin_delete_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct pin_change *d = cls;
    char current[24];
    if (lock_for_change(r, d->id, current) != 0 ||
        imx_api_if_match(r, IMX_REV_PIN, d->id, NULL, false) < 0)
        return -1;
    enum imx_db_status st = imx_db_pin_delete(imx_api_conn(r), d->id, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    if (imx_audit(r, "delete", "pin", d->id, NULL) != 0)
        return -1;
    imx_reply_empty(r, 204);
    return 0;
}

void imx_api_pin_delete(struct imx_req *r)
{
    struct pin_change d;
    if (!pin_id_param(r, d.id))
        return;
    imx_api_tx(r, pin_delete_tx, &d);
}
