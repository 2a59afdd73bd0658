/* GET /v1/audit: the audit log for global admins, filtered, newest first, keyset-paginated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/cursor.h"
#include "db/auth.h"
#include "util/config.h"

#define AUDIT_LIMIT_DEFAULT 50
#define AUDIT_LIMIT_MAX     200

void imx_api_audit_list(struct imx_req *r)
{
    unsigned long long v = 0, limit = AUDIT_LIMIT_DEFAULT;
    const char *actor = imx_req_query(r, "actor");
    const char *since = imx_req_query(r, "since");
    const char *limit_s = imx_req_query(r, "limit");
    const char *cursor = imx_req_query(r, "cursor");
    char before[24], limit_txt[16];
    const char *before_id = NULL;

    if (actor && imx_parse_uint(actor, 1, INT64_MAX, &v) != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "actor must be a user id");
        return;
    }
    if (limit_s && imx_parse_uint(limit_s, 1, AUDIT_LIMIT_MAX, &limit) != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "limit must be from 1 to %d", AUDIT_LIMIT_MAX);
        return;
    }
    if (since && (strlen(since) < 10 || strlen(since) > 40)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "since must be an RFC 3339 timestamp");
        return;
    }
    if (cursor) {
        json_t *key = imx_cursor_decode(cursor);
        json_t *id = json_array_get(key, 0);
        if (!json_is_integer(id) || json_array_size(key) != 1 || json_integer_value(id) < 1) {
            json_decref(key);
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "The cursor is not one this server made");
            return;
        }
        snprintf(before, sizeof before, "%lld", (long long)json_integer_value(id));
        before_id = before;
        json_decref(key);
    }
    snprintf(limit_txt, sizeof limit_txt, "%llu", limit);
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    PGresult *res = imx_db_audit_list(c, actor, imx_req_query(r, "resource"),
                                      imx_req_query(r, "action"), since, before_id, limit_txt);
    if (!imx_db_ok(res)) {
        /* Class 22: since was not a timestamp PostgreSQL accepts. */
        if (strncmp(imx_db_sqlstate(res), "22", 2) == 0)
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "since must be an RFC 3339 timestamp");
        else
            imx_api_db_error(r, res);
        PQclear(res);
        return;
    }
    int n = PQntuples(res);
    int shown = n > (int)limit ? (int)limit : n;
    json_t *items = json_array();
    for (int i = 0; i < shown; i++)
        json_array_append_new(items, json_loads(PQgetvalue(res, i, 1), 0, NULL));
    json_t *doc = json_pack("{s:o}", "items", items);
    char next[IMX_CURSOR_MAX];
    if (n > (int)limit) {
        json_t *key =
            json_pack("[I]", (json_int_t)strtoll(PQgetvalue(res, shown - 1, 0), NULL, 10));
        if (imx_cursor_encode(key, next, sizeof next) == 0) {
            json_object_set_new(doc, "next_cursor", json_string(next));
            imx_api_link_next(r, next);
        }
        json_decref(key);
    } else {
        json_object_set_new(doc, "next_cursor", json_null());
    }
    PQclear(res);
    imx_reply_json_steal(r, 200, doc);
}
