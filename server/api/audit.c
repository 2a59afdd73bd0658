/* GET /v1/audit: the audit log for global admins, filtered, newest first, keyset-paginated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/cursor.h"
#include "db/auth.h"
#include "util/config.h"

void imx_api_audit_list(struct imx_req *r)
{
    unsigned long long v = 0, limit;
    const char *actor = imx_req_query(r, "actor");
    const char *since = imx_req_query(r, "since");
    char before[24], limit_txt[16];
    const char *before_id;

    if (actor && imx_parse_uint(actor, 1, INT64_MAX, &v) != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "actor must be a user id");
        return;
    }
    if (!imx_api_list_limit(r, &limit))
        return;
    if (since && (strlen(since) < 10 || strlen(since) > 40)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "since must be an RFC 3339 timestamp");
        return;
    }
    if (!imx_api_cursor_id(r, before, &before_id))
        return;
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
    imx_api_reply_page_steal(r, res, limit, "I");
}
