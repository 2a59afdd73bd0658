/* Image requests: POST /v1/requests (with the stack's compatibility report and existing matches),
 * GET /v1/requests, GET /v1/requests/{id}, POST /v1/requests/{id}/transitions and /comments.
 * The requesting team's members create, withdraw and comment; the catalog team's publishers
 * (IMAXE_CATALOG_TEAM, else the first team created; fixed per request at creation) move it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "api/etag.h"
#include "api/costs_common.h"
#include "api/cursor.h"
#include "auth/auth.h"
#include "db/events.h"
#include "db/reference.h"
#include "db/requests.h"
#include "api/tx.h"
#include "domain/request_state.h"
#include "domain/request_stack.h"
#include "domain/version.h"
#include "util/config.h"

#define MAX_CONSTRAINTS 16
#define MAX_LIST        16

const char *imx_api_catalog_team;

static const struct imx_api_field request_fields[] = {
    { "team", JSON_STRING, true },           { "title", JSON_STRING, true },
    { "family", JSON_STRING, false },        { "constraints", JSON_ARRAY, false },
    { "gpus", JSON_ARRAY, false },           { "os", JSON_STRING, false },
    { "architecture", JSON_STRING, false },  { "tags", JSON_ARRAY, false },
    { "justification", JSON_STRING, false }, { NULL, JSON_NULL, false },
};

static bool component_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 64)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("._+-", *p)))
            return false;
    return true;
}

struct request_create {
    json_t *doc; /* what imx_db_request_create stores */
    const char *team;
};

static void today(char buf[16])
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, 16, "%Y-%m-%d", &tm);
}

static int create_tx(struct imx_req *r, void *cls)
{
    struct request_create *rc = cls;
    char team_id[24], uid[24];
    snprintf(team_id, sizeof team_id, "%lld",
             (long long)json_integer_value(json_object_get(rc->doc, "team_id")));
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    long long team_open, own_open;
    enum imx_db_status st =
        imx_db_request_open_counts(imx_api_conn(r), team_id, uid, &team_open, &own_open);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st);
    if (team_open >= imx_api_quotas.open_requests_per_team) {
        imx_api_reply_quota(r, "open-requests-per-team", imx_api_quotas.open_requests_per_team,
                            "the team has that many requests open, approved or building");
        return -1;
    }
    if (own_open >= imx_api_quotas.open_requests_per_member) {
        imx_api_reply_quota(r, "open-requests-per-member", imx_api_quotas.open_requests_per_member,
                            "you have that many requests open, approved or building");
        return -1;
    }
    int64_t catalog;
    st = imx_db_catalog_team(imx_api_conn(r), imx_api_catalog_team, &catalog);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_UNPROCESSABLE,
                          "No catalog team to address the request to (IMAXE_CATALOG_TEAM)");
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st);
    json_object_set_new(rc->doc, "catalog_team_id", json_integer(catalog));
    char *text = json_dumps(rc->doc, JSON_COMPACT);
    int64_t new_id;
    st = imx_db_request_create(imx_api_conn(r), text, &new_id);
    free(text);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st);
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)new_id);
    st = imx_db_request_match_existing(imx_api_conn(r), id);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st);
    json_t *detail =
        json_pack("{s:s, s:O}", "team", rc->team, "title", json_object_get(rc->doc, "title"));
    int rcode = imx_audit(r, "create", "request", id, detail);
    json_decref(detail);
    if (rcode != 0)
        return rcode;
    st = imx_db_event_request(imx_api_conn(r), id, "created", NULL);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st);
    struct imx_db_request q;
    st = imx_db_request_get(imx_api_conn(r), id, false, &q);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st);
    json_t *doc = json_loads(q.json, 0, NULL);
    imx_db_request_free(&q);
    char loc[64];
    snprintf(loc, sizeof loc, "/v1/requests/%s", id);
    imx_reply_header(r, "Location", loc);
    imx_reply_json_steal(r, 201, doc);
    return 0;
}

/* The OS name (^[a-z][a-z0-9-]*$) or version (^[0-9A-Za-z][0-9A-Za-z._-]*$) as the table's
 * CHECKs take them, n bytes of s. */
static bool os_part_ok(const char *s, size_t n, bool version)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool lower = c >= 'a' && c <= 'z', digit = c >= '0' && c <= '9';
        bool upper = c >= 'A' && c <= 'Z';
        bool ok = version ? (lower || upper || digit || (i > 0 && strchr("._-", c)))
                          : (lower || (i > 0 && (digit || c == '-')));
        if (!ok)
            return false;
    }
    return n > 0;
}

void imx_api_request_create(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, request_fields, errors);
    const char *title = json_string_value(json_object_get(body, "title"));
    const char *os = json_string_value(json_object_get(body, "os"));
    const char *arch = json_string_value(json_object_get(body, "architecture"));
    const char *family = json_string_value(json_object_get(body, "family"));
    const char *just = json_string_value(json_object_get(body, "justification"));
    if (title && (strlen(title) == 0 || strlen(title) > 200))
        imx_verr(errors, "/title", "must be 1 to 200 characters");
    if (arch && strcmp(arch, "x86_64") != 0 && strcmp(arch, "arm64") != 0)
        imx_verr(errors, "/architecture", "must be x86_64 or arm64");
    if (just && strlen(just) > 4000)
        imx_verr(errors, "/justification", "must be at most 4000 characters");
    if (family && (strlen(family) == 0 || strlen(family) > 100 || !component_ok(family)))
        imx_verr(errors, "/family", "must be a family name (a-z, 0-9, '.', '_', '-')");
    json_t *cons = json_object_get(body, "constraints"), *gpus = json_object_get(body, "gpus");
    json_t *tags = json_object_get(body, "tags");
    struct imx_constraint parsed[MAX_CONSTRAINTS];
    struct imx_stack_constraint sc[MAX_CONSTRAINTS];
    json_t *stored = json_array();
    size_t nc = json_array_size(cons);
    if (nc > MAX_CONSTRAINTS)
        imx_verr(errors, "/constraints", "at most %d constraints", MAX_CONSTRAINTS);
    for (size_t i = 0; i < nc && i < MAX_CONSTRAINTS; i++) {
        json_t *c = json_array_get(cons, i);
        const char *comp = json_string_value(json_object_get(c, "component"));
        const char *range = json_string_value(json_object_get(c, "range"));
        char ptr[64], err[IMX_CONSTRAINT_ERR_SIZE];
        if (!json_is_object(c) || json_object_size(c) != 2 || !component_ok(comp) || !range) {
            snprintf(ptr, sizeof ptr, "/constraints/%zu", i);
            imx_verr(errors, ptr, "must be {\"component\": name, \"range\": constraint}");
            continue;
        }
        if (imx_constraint_parse(range, &parsed[i], err, sizeof err) != 0) {
            snprintf(ptr, sizeof ptr, "/constraints/%zu/range", i);
            imx_verr(errors, ptr, "%s", err);
            continue;
        }
        sc[i] = (struct imx_stack_constraint){ comp, &parsed[i] };
        char lo[IMX_VER_KEY_TEXT_SIZE], hi[IMX_VER_KEY_TEXT_SIZE];
        bool lo_incl, hi_incl;
        imx_constraint_sql_bounds(&parsed[i], lo, &lo_incl, hi, &hi_incl);
        /* Unbounded ends become the smallest and largest keys, as in search. */
        if (!lo[0]) {
            snprintf(lo, sizeof lo, "{0,0,0,0,0,0}");
            lo_incl = true;
        }
        if (!hi[0]) {
            snprintf(hi, sizeof hi,
                     "{999999999,999999999,999999999,999999999,999999999,999999999}");
            hi_incl = true;
        }
        json_array_append_new(stored, json_pack("{s:s, s:s, s:s, s:b, s:s, s:b}", "component", comp,
                                                "range", parsed[i].text, "lo", lo, "lo_incl",
                                                lo_incl, "hi", hi, "hi_incl", hi_incl));
    }
    const char *gpu_names[MAX_LIST];
    size_t ng = json_array_size(gpus), nt = json_array_size(tags);
    if (ng > MAX_LIST)
        imx_verr(errors, "/gpus", "at most %d GPUs", MAX_LIST);
    if (nt > MAX_LIST)
        imx_verr(errors, "/tags", "at most %d tags", MAX_LIST);
    for (size_t i = 0; i < ng && i < MAX_LIST; i++) {
        gpu_names[i] = json_string_value(json_array_get(gpus, i));
        if (!gpu_names[i] || !*gpu_names[i] || strlen(gpu_names[i]) > 64) {
            char ptr[32];
            snprintf(ptr, sizeof ptr, "/gpus/%zu", i);
            imx_verr(errors, ptr, "must be a GPU name");
        }
    }
    for (size_t i = 0; i < nt && i < MAX_LIST; i++) {
        const char *t = json_string_value(json_array_get(tags, i));
        if (!component_ok(t)) {
            char ptr[32];
            snprintf(ptr, sizeof ptr, "/tags/%zu", i);
            imx_verr(errors, ptr, "must be a tag (a-z, 0-9, '.', '_', '+', '-')");
        }
    }
    char os_name[40] = "";
    const char *os_version = NULL;
    if (os) {
        const char *colon = strchr(os, ':');
        size_t n = colon ? (size_t)(colon - os) : strlen(os);
        if (n == 0 || n > 32 || (colon && (!colon[1] || strlen(colon + 1) > 32)) ||
            !os_part_ok(os, n, false) || (colon && !os_part_ok(colon + 1, strlen(colon + 1), true)))
            imx_verr(errors, "/os",
                     "must be \"name\" or \"name:version\" (name a-z, 0-9, '-'; version 0-9, "
                     "A-Z, a-z, '.', '_', '-'), e.g. ubuntu:24.04");
        else
            memcpy(os_name, os, n);
        os_version = colon ? colon + 1 : NULL;
    }
    if (json_array_size(errors) > 0) {
        json_decref(stored);
        imx_reply_invalid_steal(r, errors, "The request has invalid fields");
        return;
    }
    json_decref(errors);
    const char *team = json_string_value(json_object_get(body, "team"));
    int64_t team_id = imx_auth_team(r, team, IMX_ROLE_MEMBER);
    if (!team_id) {
        json_decref(stored);
        return;
    }
    char err[256], day[16];
    const struct imx_ref_snapshot *ref = imx_db_ref_acquire(imx_api_conn(r), err, sizeof err);
    if (!ref) {
        json_decref(stored);
        imx_reply_problem(r, IMX_E_DB_UNAVAILABLE, "The reference data cannot be read");
        return;
    }
    today(day);
    json_t *compat = imx_request_stack_check(ref, sc, nc, gpu_names, ng, day);
    /* GPUs are stored by their canonical name, as images store theirs. */
    json_t *canon = json_array();
    for (size_t i = 0; i < ng; i++) {
        const struct imx_ref_gpu *g = imx_compat_find_gpu(ref, gpu_names[i]);
        json_array_append_new(canon, json_string(g ? g->gpu_model : gpu_names[i]));
    }
    imx_db_ref_release(ref);
    struct request_create rc = { .team = team };
    rc.doc = json_pack("{s:I, s:s, s:s?, s:s?, s:s?, s:s?, s:o, s:O, s:s?, s:o, s:I, s:o}",
                       "team_id", (json_int_t)team_id, "title", title, "family", family, "os_name",
                       os ? os_name : NULL, "os_version", os_version, "architecture", arch, "gpus",
                       canon, "tags", tags ? tags : json_array(), "justification", just,
                       "compatibility", compat ? compat : json_object(), "created_by",
                       (json_int_t)r->principal.user_id, "constraints", stored);
    if (!tags)
        json_decref(json_object_get(rc.doc, "tags"));
    imx_api_tx(r, create_tx, &rc);
    json_decref(rc.doc);
}

/* The caller's actor mask for a request (0: may not see it). Global admins act as the catalog
 * team. An API token reaches only its team. *held gets the actors the caller would be but for a
 * disabled team, so that a refusal can say so rather than name a role the caller has. */
static unsigned actors_of(struct imx_req *r, int64_t team, int64_t catalog, bool *visible,
                          bool writing, unsigned *held)
{
    unsigned a = 0;
    *held = 0;
    enum imx_role on_team = imx_auth_role(r, team), on_catalog = imx_auth_role(r, catalog);
    *visible = on_team >= IMX_ROLE_VIEWER || on_catalog >= IMX_ROLE_VIEWER;
    /* A disabled team acts on nothing (its members keep seeing its requests): checked for a
     * write only, so that a read costs no more. */
    if (on_team >= IMX_ROLE_MEMBER)
        *(writing && imx_auth_team_disabled(r, team) ? held : &a) |= IMX_REQ_ACTOR_REQUESTER;
    if (on_catalog >= IMX_ROLE_PUBLISHER)
        *(writing && imx_auth_team_disabled(r, catalog) ? held : &a) |= IMX_REQ_ACTOR_CATALOG;
    return a;
}

/* When the caller may not make a write only because the team that would let it (the requesting
 * team for `want` REQUESTER, the catalog team for CATALOG) is disabled, replies the disabled
 * team's 403, which says how to enable it again (api/access.c), and returns true. */
static bool refused_as_disabled(struct imx_req *r, unsigned want, unsigned held, int64_t team,
                                int64_t catalog)
{
    if (want & held & IMX_REQ_ACTOR_REQUESTER)
        return !imx_auth_team_enabled(r, team, NULL);
    if (want & held & IMX_REQ_ACTOR_CATALOG)
        return !imx_auth_team_enabled(r, catalog, NULL);
    return false;
}

/* Reads request id (locked when for_update) into q and checks the caller may see it. Returns 0,
 * or -1 after replying (404 when there is none or the caller may not see it). *held: see
 * actors_of (may be NULL). */
static int load(struct imx_req *r, const char *id, bool for_update, unsigned *actors,
                unsigned *held, struct imx_db_request *q)
{
    unsigned held_here = 0;
    if (!held)
        held = &held_here;
    unsigned long long v;
    if (!id || imx_parse_uint(id, 1, INT64_MAX, &v) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such request");
        return -1;
    }
    if (!imx_api_db(r))
        return -1;
    enum imx_db_status st = imx_db_request_get(imx_api_conn(r), id, for_update, q);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND) {
        if (for_update)
            imx_api_tx_fail(r, st);
        else
            imx_api_reply_db_fail(r, st);
        return -1;
    }
    bool visible = false;
    if (st == IMX_DBS_OK)
        *actors = actors_of(r, q->team_id, q->catalog_team_id, &visible, for_update, held);
    if (!visible) {
        imx_db_request_free(q);
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such request");
        return -1;
    }
    return 0;
}

void imx_api_request_get(struct imx_req *r)
{
    unsigned actors;
    struct imx_db_request q;
    if (load(r, imx_req_param(r, "id"), false, &actors, NULL, &q) != 0)
        return;
    json_t *doc = json_loads(q.json, 0, NULL);
    enum imx_request_state out[IMX_REQ__COUNT];
    size_t n = imx_request_moves_from((enum imx_request_state)imx_request_state_parse(q.state),
                                      actors, out);
    json_t *allowed = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(allowed, json_string(imx_request_state_name(out[i])));
    json_object_set_new(doc, "allowed_transitions", allowed);
    imx_api_etag_set(r, q.revision);
    imx_db_request_free(&q);
    imx_reply_json_steal(r, 200, doc);
}

void imx_api_request_matches(struct imx_req *r)
{
    unsigned actors;
    unsigned long long limit;
    struct imx_db_request q;
    if (load(r, imx_req_param(r, "id"), false, &actors, NULL, &q) != 0)
        return;
    imx_db_request_free(&q);
    if (!imx_api_list_limit(r, &limit))
        return;
    const char *cursor = imx_req_query(r, "cursor");
    char ok[8], id[24], limit_txt[16];
    const char *published = NULL;
    json_t *key = NULL;
    if (cursor) {
        key = imx_cursor_decode(cursor);
        if (!json_is_array(key) || json_array_size(key) != 3 ||
            !json_is_integer(json_array_get(key, 0)) || !json_is_string(json_array_get(key, 1)) ||
            !json_is_integer(json_array_get(key, 2))) {
            json_decref(key);
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "The cursor is not one this list gave");
            return;
        }
        snprintf(ok, sizeof ok, "%d", json_integer_value(json_array_get(key, 0)) ? 1 : 0);
        published = json_string_value(json_array_get(key, 1));
        snprintf(id, sizeof id, "%lld", (long long)json_integer_value(json_array_get(key, 2)));
    }
    snprintf(limit_txt, sizeof limit_txt, "%llu", limit);
    struct imx_db_page page;
    enum imx_db_status st =
        imx_db_request_matches(imx_api_conn(r), imx_req_param(r, "id"), cursor ? ok : NULL,
                               published, cursor ? id : NULL, limit_txt, &page);
    json_decref(key);
    imx_api_reply_page(r, st, &page, 0, limit, "IsI");
}

void imx_api_request_list(struct imx_req *r)
{
    const char *state = imx_req_query(r, "state"), *team = imx_req_query(r, "team");
    unsigned long long limit;
    char before[24], limit_txt[16];
    const char *before_id;
    if (state && imx_request_state_parse(state) < 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          "state must be open, approved, building, fulfilled, rejected or "
                          "withdrawn");
        return;
    }
    if (!imx_api_list_limit(r, &limit))
        return;
    if (!imx_api_cursor_id(r, before, &before_id))
        return;
    struct imx_api_scope sc;
    if (imx_api_cost_scope(r, team, &sc) != 0)
        return;
    snprintf(limit_txt, sizeof limit_txt, "%llu", limit);
    struct imx_db_page page;
    enum imx_db_status st = imx_db_request_list(imx_api_conn(r), sc.s.user_id, sc.s.token_team,
                                                sc.s.team, state, before_id, limit_txt, &page);
    imx_api_reply_page(r, st, &page, 0, limit, "I");
}

static const struct imx_api_field transition_fields[] = {
    { "to", JSON_STRING, true },
    { "comment", JSON_STRING, false },
    { "image", JSON_INTEGER, false },
    { NULL, JSON_NULL, false },
};

struct transition {
    const char *id, *to, *comment;
    char image[24];
    bool has_image;
};

static int transition_tx(struct imx_req *r, void *cls)
{
    struct transition *t = cls;
    unsigned actors = 0, held = 0;
    struct imx_db_request q;
    if (load(r, t->id, true, &actors, &held, &q) != 0)
        return -1;
    char from[16];
    snprintf(from, sizeof from, "%s", q.state);
    int64_t team = q.team_id, catalog = q.catalog_team_id;
    imx_db_request_free(&q);
    /* A transition sent with If-Match is made only from the revision its sender read. */
    if (imx_api_if_match(r, IMX_REV_REQUEST, t->id, NULL, false) < 0)
        return -1;
    int fs = imx_request_state_parse(from), ts = imx_request_state_parse(t->to);
    struct imx_request_needs needs = { false, false };
    enum imx_request_move mv =
        ts < 0 ? IMX_REQ_MOVE_ILLEGAL
               : imx_request_move_check((enum imx_request_state)fs, (enum imx_request_state)ts,
                                        actors, &needs);
    /* Refused only because the team that would make the move is disabled: say that, and how to
     * enable it, rather than name a role the caller has. */
    if (mv == IMX_REQ_MOVE_FORBIDDEN) {
        enum imx_request_state fst = (enum imx_request_state)fs, tst = (enum imx_request_state)ts;
        unsigned want = 0;
        if (imx_request_move_check(fst, tst, IMX_REQ_ACTOR_REQUESTER, NULL) == IMX_REQ_MOVE_OK)
            want |= IMX_REQ_ACTOR_REQUESTER;
        if (imx_request_move_check(fst, tst, IMX_REQ_ACTOR_CATALOG, NULL) == IMX_REQ_MOVE_OK)
            want |= IMX_REQ_ACTOR_CATALOG;
        if (refused_as_disabled(r, want, held, team, catalog))
            return -1;
    }
    if (mv != IMX_REQ_MOVE_OK) {
        enum imx_request_state out[IMX_REQ__COUNT];
        size_t n = imx_request_moves_from((enum imx_request_state)fs,
                                          mv == IMX_REQ_MOVE_ILLEGAL ? 0 : actors, out);
        char list[128] = "";
        for (size_t i = 0; i < n; i++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                     imx_request_state_name(out[i]));
        }
        if (mv == IMX_REQ_MOVE_ILLEGAL)
            imx_reply_problem(r, IMX_E_CONFLICT, "A request cannot go from %s to %s; allowed: %s",
                              from, t->to, n ? list : "none (the request is final)");
        else
            imx_reply_problem(r, IMX_E_FORBIDDEN,
                              "Only %s (not disabled) may move a request from %s to %s",
                              ts == IMX_REQ_WITHDRAWN ? "members of the requesting team"
                                                      : "publishers of the catalog team",
                              from, t->to);
        return -1;
    }
    json_t *errors = json_array();
    if (needs.image && !t->has_image)
        imx_verr(errors, "/image", "is required to fulfil a request: the image that fulfils it");
    if (!needs.image && t->has_image)
        imx_verr(errors, "/image", "is only for the move to fulfilled");
    if (needs.comment && (!t->comment || !*t->comment))
        imx_verr(errors, "/comment", "is required to reject a request: the reason");
    if (json_array_size(errors) == 0 && needs.image) {
        bool satisfied;
        enum imx_db_status st =
            imx_db_request_satisfied_by(imx_api_conn(r), t->id, t->image, &satisfied);
        if (st != IMX_DBS_OK) {
            json_decref(errors);
            return imx_api_tx_fail(r, st);
        }
        if (!satisfied)
            imx_verr(errors, "/image",
                     "does not satisfy the request (active, its constraints, GPUs, os, "
                     "architecture and tags), or does not exist");
    }
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The transition has invalid fields");
        return -1;
    }
    json_decref(errors);
    char uid[24];
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    enum imx_db_status st = imx_db_request_move(imx_api_conn(r), t->id, from, t->to, uid,
                                                t->comment, t->has_image ? t->image : NULL);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st);
    json_t *detail = json_pack("{s:s, s:s}", "from", from, "to", t->to);
    int rc = imx_audit(r, "transition", "request", t->id, detail);
    json_decref(detail);
    if (rc != 0)
        return rc;
    st = imx_db_event_request(imx_api_conn(r), t->id, "transition", from);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st);
    st = imx_db_request_get(imx_api_conn(r), t->id, false, &q);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st);
    json_t *doc = json_loads(q.json, 0, NULL);
    imx_api_etag_set(r, q.revision);
    imx_db_request_free(&q);
    imx_reply_json_steal(r, 200, doc);
    return 0;
}

void imx_api_request_transition(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, transition_fields, errors);
    struct transition t = {
        .id = imx_req_param(r, "id"),
        .to = json_string_value(json_object_get(body, "to")),
        .comment = json_string_value(json_object_get(body, "comment")),
    };
    json_t *image = json_object_get(body, "image");
    if (json_is_integer(image)) {
        t.has_image = true;
        snprintf(t.image, sizeof t.image, "%lld", (long long)json_integer_value(image));
    }
    if (t.comment && strlen(t.comment) > 2000)
        imx_verr(errors, "/comment", "must be at most 2000 characters");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The transition has invalid fields");
        return;
    }
    json_decref(errors);
    imx_api_tx(r, transition_tx, &t);
}

static const struct imx_api_field comment_fields[] = {
    { "body", JSON_STRING, true },
    { NULL, JSON_NULL, false },
};

struct comment {
    const char *id, *body;
};

static int comment_tx(struct imx_req *r, void *cls)
{
    struct comment *c = cls;
    unsigned actors = 0, held = 0;
    struct imx_db_request q;
    if (load(r, c->id, true, &actors, &held, &q) != 0)
        return -1;
    int64_t team = q.team_id, catalog = q.catalog_team_id;
    imx_db_request_free(&q);
    if (actors == 0 && refused_as_disabled(r, held, held, team, catalog))
        return -1;
    if (actors == 0) {
        imx_reply_problem(r, IMX_E_FORBIDDEN,
                          "Commenting needs the member role in the "
                          "requesting team, or publisher in the catalog team");
        return -1;
    }
    /* A comment changes the request's document: its revision moves. */
    if (imx_api_if_match(r, IMX_REV_REQUEST, c->id, NULL, false) < 0)
        return -1;
    long long comments;
    enum imx_db_status st = imx_db_request_comment_count(imx_api_conn(r), c->id, &comments);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st);
    if (comments >= imx_api_quotas.comments_per_request) {
        imx_api_reply_quota(r, "comments-per-request", imx_api_quotas.comments_per_request,
                            "the request has that many comments");
        return -1;
    }
    char uid[24];
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    struct imx_db_json j;
    st = imx_db_request_comment(imx_api_conn(r), c->id, uid, c->body, &j);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st);
    json_t *doc = imx_api_json_load(&j);
    int rc = imx_audit(r, "comment", "request", c->id, NULL);
    if (rc != 0) {
        json_decref(doc);
        return rc;
    }
    imx_reply_json_steal(r, 201, doc);
    return 0;
}

void imx_api_request_comment(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, comment_fields, errors);
    struct comment c = { imx_req_param(r, "id"), json_string_value(json_object_get(body, "body")) };
    if (c.body && (strlen(c.body) == 0 || strlen(c.body) > 4000))
        imx_verr(errors, "/body", "must be 1 to 4000 characters");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The comment has invalid fields");
        return;
    }
    json_decref(errors);
    imx_api_tx(r, comment_tx, &c);
}
