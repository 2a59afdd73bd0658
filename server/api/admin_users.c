/* Global admins manage people and teams: GET /v1/users, PATCH /v1/users/{id} (name, admin flag,
 * disabled) and PATCH /v1/teams/{slug} (name, disabled). Every change is audited in its
 * transaction. A disabled user can neither sign in nor use a token from the next request on (the
 * auth epoch moves, server/auth/principal_cache.h); a disabled team keeps its members' reads and
 * refuses their writes (api/access.c), and its webhooks hold (migrations/0340_team_disabled.sql).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/cursor.h"
#include "api/etag.h"
#include "api/tx.h"
#include "auth/auth.h"
#include "db/users.h"
#include "util/config.h"

void imx_api_user_list(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    const char *q = imx_req_query(r, "q");
    if (q && strlen(q) > 254) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "q must be at most 254 characters");
        return;
    }
    unsigned long long limit;
    char before[24], lim[24];
    const char *before_id;
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_id(r, before, &before_id))
        return;
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    snprintf(lim, sizeof lim, "%llu", limit);
    struct imx_db_page page;
    enum imx_db_status st = imx_db_user_list(c, before_id, q && *q ? q : NULL, lim, &page, &why);
    imx_api_reply_page(r, st, &why, &page, 0, limit, "I");
}

/* JSON_TRUE stands for either boolean (imx_api_check_fields). */
static const struct imx_api_field user_change_fields[] = {
    { "display_name", JSON_STRING, false },
    { "admin", JSON_TRUE, false },
    { "disabled", JSON_TRUE, false },
    { NULL, JSON_NULL, false },
};

struct user_change {
    const char *id;
    struct imx_db_user_change ch;
    json_t *body; /* borrowed: the audit detail is the change asked for */
};

static int user_change_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct user_change *u = cls;
    struct imx_db_json j;
    enum imx_db_status st = imx_db_user_change(imx_api_conn(r), u->id, &u->ch, &j, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No user %s", u->id);
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    const char *action = "update";
    if (u->ch.disabled)
        action = strcmp(u->ch.disabled, "true") == 0 ? "disable" : "enable";
    int rc = imx_audit(r, action, "user", u->id, u->body);
    if (rc == 0)
        imx_reply_json_steal(r, 200, imx_api_json_load(&j));
    imx_db_json_free(&j);
    return rc;
}

void imx_api_user_update(struct imx_req *r)
{
    unsigned long long id = 0;
    struct user_change u = { .id = imx_req_param(r, "id") };
    if (imx_parse_uint(u.id, 1, INT64_MAX, &id) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No user %s", u.id);
        return;
    }
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, user_change_fields, errors);
    json_t *name = json_object_get(body, "display_name");
    json_t *admin = json_object_get(body, "admin");
    json_t *disabled = json_object_get(body, "disabled");
    if (json_is_string(name) && strlen(json_string_value(name)) > 200)
        imx_verr(errors, "/display_name", "must be at most 200 characters");
    if (json_array_size(errors) == 0 && json_object_size(body) == 0)
        imx_verr(errors, "", "must hold display_name, admin or disabled");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The change has invalid fields");
        return;
    }
    json_decref(errors);
    /* An admin who locked themselves out would need the database to get back in. */
    bool self = (long long)id == (long long)r->principal.user_id;
    if (self && (json_is_true(disabled) || json_is_false(admin))) {
        imx_reply_problem(r, IMX_E_CONFLICT,
                          "You cannot disable yourself or take your own admin flag; another "
                          "global admin can");
        return;
    }
    u.ch.display_name = json_string_value(name);
    if (admin)
        u.ch.admin = json_is_true(admin) ? "true" : "false";
    if (disabled)
        u.ch.disabled = json_is_true(disabled) ? "true" : "false";
    u.body = body;
    imx_api_tx(r, user_change_tx, &u);
}

static const struct imx_api_field team_change_fields[] = {
    { "name", JSON_STRING, false },
    { "disabled", JSON_TRUE, false },
    { NULL, JSON_NULL, false },
};

struct team_change {
    const char *slug, *name, *disabled;
    json_t *body; /* borrowed: the audit detail is the change asked for */
};

static int team_change_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct team_change *t = cls;
    int m = imx_api_if_match(r, IMX_REV_TEAM, t->slug, NULL, false);
    if (m < 0)
        return -1;
    struct imx_db_json j;
    enum imx_db_status st =
        m == 1 ? IMX_DBS_NOT_FOUND
               : imx_db_team_change(imx_api_conn(r), t->slug, t->name, t->disabled, &j, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No team '%s'", t->slug);
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    /* A change of both is audited as what it does to the team's rights. */
    const char *action = "update";
    if (t->disabled)
        action = strcmp(t->disabled, "true") == 0 ? "disable" : "enable";
    int rc = imx_audit(r, action, "team", t->slug, t->body);
    if (rc == 0)
        rc = imx_api_etag_after(r, IMX_REV_TEAM, t->slug, NULL);
    if (rc == 0)
        imx_reply_json_steal(r, 200, imx_api_json_load(&j));
    imx_db_json_free(&j);
    return rc;
}

void imx_api_team_update(struct imx_req *r)
{
    struct team_change t = { .slug = imx_req_param(r, "slug") };
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, team_change_fields, errors);
    t.name = json_string_value(json_object_get(body, "name"));
    json_t *disabled = json_object_get(body, "disabled");
    if (!json_object_get(body, "name") && !disabled)
        imx_verr(errors, "", "must hold name or disabled");
    if (t.name && (strlen(t.name) == 0 || strlen(t.name) > 200))
        imx_verr(errors, "/name", "must be 1 to 200 characters");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The team change has invalid fields");
        return;
    }
    json_decref(errors);
    if (json_is_boolean(disabled))
        t.disabled = json_is_true(disabled) ? "true" : "false";
    t.body = body;
    imx_api_tx(r, team_change_tx, &t);
}
