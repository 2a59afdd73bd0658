/* Database access for handlers, with problem replies for every failure. */
#include "api/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "auth/auth.h"
#include "util/log.h"

void imx_api_db_error(struct imx_req *r, const struct imx_db_fault *f)
{
    static const struct imx_db_fault lost = { .status = IMX_DBS_UNAVAILABLE,
                                              .cause = IMX_DBC_LOST };
    if (!f)
        f = &lost;
    switch (f->cause) {
    case IMX_DBC_UNIQUE:
        imx_reply_problem(r, IMX_E_CONFLICT, "It already exists");
        break;
    case IMX_DBC_FOREIGN_KEY:
        imx_reply_problem(r, IMX_E_CONFLICT, "It refers to, or is referred to by, another record");
        break;
    case IMX_DBC_CHECK:
    case IMX_DBC_NOT_NULL:
    case IMX_DBC_VALUE: {
        /* A CHECK or NOT NULL constraint, or a value PostgreSQL cannot take (22P02 invalid text,
         * 22003 out of range, ...): the client sent it, the statement stored nothing. */
        const char *constraint = f->constraint[0] ? f->constraint : NULL;
        const char *column = f->column[0] ? f->column : NULL;
        imx_info("request %s: value refused by the database (%s %s)", r->request_id, f->sqlstate,
                 constraint ? constraint
                 : column   ? column
                            : "");
        if (constraint || column)
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "A value is outside what is accepted (%s %s)",
                              constraint ? "constraint" : "column",
                              constraint ? constraint : column);
        else
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "A value is outside what is accepted");
        break;
    }
    case IMX_DBC_TIMEOUT:
        imx_reply_header(r, "Retry-After", "1");
        imx_reply_problem(r, IMX_E_QUERY_TIMEOUT, "The query was cancelled after the time limit");
        break;
    case IMX_DBC_LOST:
        imx_reply_header(r, "Retry-After", "1");
        imx_reply_problem(r, IMX_E_DB_UNAVAILABLE, "The database connection was lost");
        break;
    default:
        imx_error("database error %s in request %s: %.300s", f->sqlstate, r->request_id,
                  f->message);
        imx_reply_problem(r, IMX_E_INTERNAL, "Request %s failed; the server log has details",
                          r->request_id);
        break;
    }
}

void imx_api_reply_db_fault(struct imx_req *r, enum imx_db_status st,
                            const struct imx_db_fault *why)
{
    if (why && why->status == st && why->cause != IMX_DBC_NONE)
        imx_api_db_error(r, why);
    else
        imx_api_reply_db_status(r, st);
}

struct imx_api_quotas imx_api_quotas = { 100, 20, 200, 50, 500, 10000, 1000, 50 };

/* The one switch from a db/ status to a problem (api.h). */
void imx_api_reply_db_status(struct imx_req *r, enum imx_db_status rc)
{
    switch (rc) {
    case IMX_DBS_NOT_FOUND:
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        break;
    case IMX_DBS_CONFLICT:
        imx_reply_problem(r, IMX_E_CONFLICT, "It already exists");
        break;
    case IMX_DBS_INVALID:
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "A value was refused");
        break;
    case IMX_DBS_UNAVAILABLE:
    case IMX_DBS_RETRY:
        imx_reply_header(r, "Retry-After", "1");
        imx_reply_problem(r, IMX_E_DB_UNAVAILABLE, "The database is unavailable or too slow");
        break;
    case IMX_DBS_BUSY:
        imx_reply_header(r, "Retry-After", "1");
        imx_reply_problem(r, IMX_E_DB_UNAVAILABLE,
                          "Every database connection is busy; try again shortly");
        break;
    default:
        imx_reply_problem(r, IMX_E_INTERNAL, "Request %s failed; the server log has details",
                          r->request_id);
        break;
    }
}

void imx_api_reply_quota(struct imx_req *r, const char *name, unsigned limit, const char *what)
{
    char policy[96], left[96];
    snprintf(policy, sizeof policy, "\"%s\";q=%u", name, limit);
    snprintf(left, sizeof left, "\"%s\";r=0", name);
    imx_reply_header_list(r, "RateLimit-Policy", policy);
    imx_reply_header_list(r, "RateLimit", left);
    imx_reply_problem(r, IMX_E_QUOTA_EXCEEDED, "Quota %s (%u) reached: %s", name, limit, what);
}

void imx_api_reply_json_text(struct imx_req *r, unsigned status, enum imx_db_status st,
                             const struct imx_db_fault *why, struct imx_db_json *j,
                             const char *not_found_detail)
{
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "%s", not_found_detail);
        return;
    }
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, why);
        return;
    }
    /* Zero copy: the response owns the text and frees it after sending. */
    imx_reply_raw_steal(r, status, "application/json", j->text, j->len, imx_db_json_owner_free,
                        j->owner);
    *j = (struct imx_db_json){ 0 };
}

int imx_api_reply_json_confirmed(struct imx_req *r, unsigned status, enum imx_db_status st,
                                 const struct imx_db_fault *why, struct imx_db_json *j,
                                 long long epoch, const char *not_found_detail)
{
    /* A row carries the epoch even when its document is NULL (no such thing): the caller is
     * confirmed before it learns that. */
    if ((st == IMX_DBS_OK || st == IMX_DBS_NOT_FOUND) && epoch >= 0) {
        int confirmed = imx_auth_confirm(r, epoch);
        if (confirmed != 1) {
            imx_db_json_free(j);
            return confirmed == 0 ? 0 : 1;
        }
    }
    imx_api_reply_json_text(r, status, st, why, j, not_found_detail);
    return 1;
}

json_t *imx_api_json_load(struct imx_db_json *j)
{
    json_t *doc = j->text ? json_loadb(j->text, j->len, 0, NULL) : NULL;
    imx_db_json_free(j);
    return doc;
}

const char *imx_api_pointer(const char *name, char *buf, size_t len)
{
    size_t o = 0;
    if (len < 2) {
        if (len)
            buf[0] = '\0';
        return buf;
    }
    buf[o++] = '/';
    for (const char *p = name; *p && o + 3 < len; p++) {
        if (*p == '~' || *p == '/') {
            buf[o++] = '~';
            buf[o++] = *p == '~' ? '0' : '1';
        } else {
            buf[o++] = *p;
        }
    }
    buf[o] = '\0';
    return buf;
}

static const char *type_name(json_type t)
{
    switch (t) {
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    default:
        return "a number";
    }
}

static bool type_ok(const json_t *v, json_type want)
{
    if (want == JSON_TRUE || want == JSON_FALSE)
        return json_is_boolean(v);
    return json_typeof(v) == want;
}

size_t imx_api_check_fields(const json_t *body, const struct imx_api_field *fields, json_t *errors)
{
    size_t before = json_array_size(errors);
    char ptr[256];
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)body, key, v)
    {
        const struct imx_api_field *f = fields;
        while (f->name && strcmp(f->name, key) != 0)
            f++;
        if (!f->name)
            imx_verr(errors, imx_api_pointer(key, ptr, sizeof ptr),
                     "unknown field, or one you may not set");
        else if (!type_ok(v, f->type))
            imx_verr(errors, imx_api_pointer(key, ptr, sizeof ptr), "must be %s",
                     type_name(f->type));
    }
    for (const struct imx_api_field *f = fields; f->name; f++)
        if (f->required && !json_object_get(body, f->name))
            imx_verr(errors, imx_api_pointer(f->name, ptr, sizeof ptr), "is required");
    return json_array_size(errors) - before;
}

void imx_api_wake(void *r)
{
    imx_req_wake(r);
}
