/* GET /v1/audit: the audit log for global admins, filtered, newest first, keyset-paginated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/cursor.h"
#include "api/export.h"
#include "db/auth.h"
#include "util/config.h"

/* An audit list's filters, kept for its export's pages. */
struct audit_filter {
    char *actor, *resource, *action, *since; /* new strings or NULL */
};

static void audit_filter_free(void *cls)
{
    struct audit_filter *f = cls;
    free(f->actor);
    free(f->resource);
    free(f->action);
    free(f->since);
    free(f);
}

static enum imx_db_status audit_page(struct imx_db_conn *c, const void *cls, const char *after,
                                     const char *limit, struct imx_db_page *out)
{
    const struct audit_filter *f = cls;
    return imx_db_audit_list(c, f->actor, f->resource, f->action, f->since, after, limit, out,
                             NULL);
}

static const char *const audit_columns[] = {
    "id",       "at",          "actor.id",   "actor.email", "token_id", "action",
    "resource", "resource_id", "request_id", "detail",      NULL,
};

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void imx_api_audit_list(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
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
    enum imx_export_format format = imx_api_export_format(r);
    if (format != IMX_EXPORT_NONE) {
        /* since is checked by PostgreSQL: a first page here refuses a bad one with 400 before
         * the stream starts. */
        struct imx_db_page probe;
        enum imx_db_status st =
            imx_db_audit_list(c, actor, imx_req_query(r, "resource"), imx_req_query(r, "action"),
                              since, NULL, "0", &probe, &why);
        imx_db_page_free(&probe);
        bool failed = st != IMX_DBS_OK;
        /* a refused value (class 22): a SELECT violates no constraint, so that is all INVALID
         * means */
        bool bad_since = st == IMX_DBS_INVALID;
        if (failed && !bad_since)
            imx_api_reply_db_fault(r, st, &why);
        if (bad_since)
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "since must be an RFC 3339 timestamp");
        if (failed)
            return;
        struct audit_filter *f = calloc(1, sizeof *f);
        if (!f) {
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
            return;
        }
        *f = (struct audit_filter){ dup_or_null(actor), dup_or_null(imx_req_query(r, "resource")),
                                    dup_or_null(imx_req_query(r, "action")), dup_or_null(since) };
        imx_api_export_steal(r, format, audit_columns, audit_page, f, audit_filter_free);
        return;
    }
    struct imx_db_page page;
    enum imx_db_status st =
        imx_db_audit_list(c, actor, imx_req_query(r, "resource"), imx_req_query(r, "action"), since,
                          before_id, limit_txt, &page, &why);
    /* A refused value: since was not a timestamp PostgreSQL accepts. */
    if (st == IMX_DBS_INVALID)
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "since must be an RFC 3339 timestamp");
    else
        imx_api_reply_page(r, st, &why, &page, 0, limit, "I");
}
