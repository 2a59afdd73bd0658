/* Teams and their members: /v1/teams, /v1/teams/{slug}, /v1/teams/{slug}/members/{email}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/cursor.h"
#include "api/etag.h"
#include "auth/auth.h"
#include "db/auth.h"
#include "api/tx.h"

static const struct imx_api_field team_fields[] = {
    { "slug", JSON_STRING, true },
    { "name", JSON_STRING, true },
    { NULL, JSON_NULL, false },
};

static const struct imx_api_field member_fields[] = {
    { "role", JSON_STRING, true },
    { NULL, JSON_NULL, false },
};

static bool slug_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || s[0] == '-')
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
            return false;
    return true;
}

/* Replies with the JSON text of j (parsed, so it can be a reply); frees j. */
static void reply_doc(struct imx_req *r, unsigned status, struct imx_db_json *j)
{
    imx_reply_json_steal(r, status, imx_api_json_load(j));
}

struct team_create {
    const char *slug, *name;
};

static int team_create_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct team_create *t = cls;
    struct imx_db_json j;
    enum imx_db_status st = imx_db_team_create(imx_api_conn(r), t->slug, t->name, &j, &why);
    if (st == IMX_DBS_CONFLICT) {
        imx_reply_problem(r, IMX_E_CONFLICT, "A team with slug '%s' exists", t->slug);
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    json_t *detail = json_pack("{s:s, s:s}", "slug", t->slug, "name", t->name);
    int rc = imx_audit(r, "create", "team", t->slug, detail);
    json_decref(detail);
    if (rc == 0) {
        char loc[128];
        snprintf(loc, sizeof loc, "/v1/teams/%s", t->slug);
        imx_reply_header(r, "Location", loc);
        reply_doc(r, 201, &j);
    }
    imx_db_json_free(&j);
    return rc;
}

void imx_api_team_create(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, team_fields, errors);
    struct team_create t = {
        .slug = json_string_value(json_object_get(body, "slug")),
        .name = json_string_value(json_object_get(body, "name")),
    };
    if (t.slug && !slug_ok(t.slug))
        imx_verr(errors, "/slug", "must be 1 to 63 of a-z, 0-9 and '-', not starting with '-'");
    if (t.name && (strlen(t.name) == 0 || strlen(t.name) > 200))
        imx_verr(errors, "/name", "must be 1 to 200 characters");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The team has invalid fields");
        return;
    }
    json_decref(errors);
    imx_api_tx(r, team_create_tx, &t);
}

void imx_api_team_list(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    const struct imx_principal *p = &r->principal;
    char uid[24], team[24];
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    snprintf(uid, sizeof uid, "%lld", (long long)p->user_id);
    snprintf(team, sizeof team, "%lld", (long long)p->token_team);
    unsigned long long limit;
    json_t *key;
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_key(r, "s", &key))
        return;
    char lim[24], buf[8];
    snprintf(lim, sizeof lim, "%llu", limit);
    struct imx_db_page page;
    enum imx_db_status st =
        imx_db_team_list(c, uid, p->token_id ? team : NULL, p->admin ? "true" : "false",
                         imx_api_key_text(key, 0, buf, sizeof buf), lim, &page, &why);
    imx_api_reply_page(r, st, &why, &page, 0, limit, "s");
    json_decref(key);
}

void imx_api_team_get(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    int64_t id = imx_auth_team(r, imx_req_param(r, "slug"), IMX_ROLE_VIEWER);
    if (!id)
        return;
    char tid[24];
    snprintf(tid, sizeof tid, "%lld", (long long)id);
    /* The ETag names the team's revision, which every change of its members moves. */
    if (!imx_api_etag(r, IMX_REV_TEAM, imx_req_param(r, "slug"), NULL))
        return;
    struct imx_db_json j;
    enum imx_db_status st = imx_db_team_get(imx_api_conn(r), tid, &j, &why);
    imx_api_reply_json_text(r, 200, st, &why, &j, "No such team");
}

struct member_change {
    char team_id[24];
    const char *slug, *email, *role;
};

static int member_put_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct member_change *m = cls;
    if (imx_api_if_match(r, IMX_REV_TEAM, m->slug, NULL, false) < 0)
        return -1;
    struct imx_db_json j;
    enum imx_db_status st =
        imx_db_member_put(imx_api_conn(r), m->team_id, m->email, m->role, &j, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No user with that email");
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    char rid[400];
    snprintf(rid, sizeof rid, "%s/%s", m->slug, m->email);
    json_t *detail = json_pack("{s:s}", "role", m->role);
    int rc = imx_audit(r, "set_role", "membership", rid, detail);
    json_decref(detail);
    if (rc == 0)
        rc = imx_api_etag_after(r, IMX_REV_TEAM, m->slug, NULL);
    if (rc == 0)
        reply_doc(r, 200, &j);
    imx_db_json_free(&j);
    return rc;
}

void imx_api_member_put(struct imx_req *r)
{
    struct member_change m = {
        .slug = imx_req_param(r, "slug"),
        .email = imx_req_param(r, "email"),
    };
    int64_t id = imx_auth_team(r, m.slug, IMX_ROLE_ADMIN);
    if (!id)
        return;
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, member_fields, errors);
    m.role = json_string_value(json_object_get(body, "role"));
    if (m.role && imx_role_parse(m.role) == IMX_ROLE_NONE)
        imx_verr(errors, "/role", "must be viewer, member, publisher or admin");
    else if (m.role && imx_role_parse(m.role) > imx_auth_role(r, id))
        imx_verr(errors, "/role", "is above your own role in this team");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The membership has invalid fields");
        return;
    }
    json_decref(errors);
    snprintf(m.team_id, sizeof m.team_id, "%lld", (long long)id);
    imx_api_tx(r, member_put_tx, &m);
}

static int member_delete_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct member_change *m = cls;
    if (imx_api_if_match(r, IMX_REV_TEAM, m->slug, NULL, false) < 0)
        return -1;
    char old_role[16];
    enum imx_db_status st =
        imx_db_member_delete(imx_api_conn(r), m->team_id, m->email, old_role, &why);
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No member with that email in this team");
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    char rid[400];
    snprintf(rid, sizeof rid, "%s/%s", m->slug, m->email);
    json_t *detail = json_pack("{s:s}", "old_role", old_role);
    int rc = imx_audit(r, "delete", "membership", rid, detail);
    json_decref(detail);
    if (rc == 0)
        rc = imx_api_etag_after(r, IMX_REV_TEAM, m->slug, NULL);
    if (rc == 0)
        imx_reply_empty(r, 204);
    return rc;
}

void imx_api_member_delete(struct imx_req *r)
{
    struct member_change m = {
        .slug = imx_req_param(r, "slug"),
        .email = imx_req_param(r, "email"),
    };
    int64_t id = imx_auth_team(r, m.slug, IMX_ROLE_ADMIN);
    if (!id)
        return;
    snprintf(m.team_id, sizeof m.team_id, "%lld", (long long)id);
    imx_api_tx(r, member_delete_tx, &m);
}
