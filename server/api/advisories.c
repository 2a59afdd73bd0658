/* Security advisories and patch status: POST/GET /v1/advisories, /v1/advisories/{id},
 * /v1/advisories/{id}/affected and /v1/images/{id}/patch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/cursor.h"
#include "auth/auth.h"
#include "db/advisories.h"
#include "db/events.h"
#include "db/tx.h"
#include "domain/csaf.h"
#include "domain/osv.h"
#include "domain/version.h"
#include "util/config.h"

#define AFFECTED_MAX 64  /* ranges in one advisory */
#define CVES_MAX     200 /* CVE ids in one advisory */

static const struct imx_api_field advisory_fields[] = {
    { "id", JSON_STRING, true },        { "title", JSON_STRING, true },
    { "published", JSON_STRING, true }, { "severity", JSON_STRING, true },
    { "cvss", JSON_REAL, false },       { "cves", JSON_ARRAY, false },
    { "url", JSON_STRING, false },      { "affected", JSON_ARRAY, true },
    { NULL, JSON_NULL, false },
};

static const struct imx_api_field range_fields[] = {
    { "component", JSON_STRING, true },
    { "range", JSON_STRING, true },
    { "fixed", JSON_STRING, false },
    { NULL, JSON_NULL, false },
};

static const char KEY_MIN[] = "{0,0,0,0,0,0}";
static const char KEY_MAX[] = "{999999999,999999999,999999999,999999999,999999999,999999999}";

json_t *imx_api_range_bounds(const char *range, char *err, size_t errlen)
{
    struct imx_constraint c;
    if (imx_constraint_parse(range, &c, err, errlen) != 0)
        return NULL;
    if (imx_constraint_is_empty(&c)) {
        snprintf(err, errlen, "no version can match it");
        return NULL;
    }
    char lo[IMX_VER_KEY_TEXT_SIZE], hi[IMX_VER_KEY_TEXT_SIZE];
    bool lo_incl, hi_incl;
    imx_constraint_sql_bounds(&c, lo, &lo_incl, hi, &hi_incl);
    /* Unbounded ends become the smallest and largest keys, so SQL has one shape. */
    return json_pack("{s:s, s:s, s:b, s:s, s:b}", "range", c.text, "lo", lo[0] ? lo : KEY_MIN,
                     "lo_incl", lo[0] ? lo_incl : true, "hi", hi[0] ? hi : KEY_MAX, "hi_incl",
                     hi[0] ? hi_incl : true);
}

static bool matches_pattern(const char *s, size_t max, const char *first, const char *rest)
{
    size_t n = strlen(s);
    if (n == 0 || n > max || !strchr(first, s[0]))
        return false;
    return strspn(s + 1, rest) == n - 1;
}

#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
#define LOWER "abcdefghijklmnopqrstuvwxyz0123456789"

static bool date_shape_ok(const char *s)
{
    if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
        return false;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
            return false;
    return true;
}

static bool cve_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 13 || n > 20 || strncmp(s, "CVE-", 4) != 0 || s[8] != '-')
        return false;
    for (size_t i = 4; i < n; i++)
        if (i != 8 && (s[i] < '0' || s[i] > '9'))
            return false;
    return true;
}

static bool severity_ok(const char *s)
{
    return strcmp(s, "low") == 0 || strcmp(s, "medium") == 0 || strcmp(s, "high") == 0 ||
           strcmp(s, "critical") == 0;
}

/* Checks one affected entry; appends its stored form (with bounds) to out. */
static void check_range(json_t *e, size_t i, json_t *out, json_t *errors)
{
    char ptr[64], err[IMX_CONSTRAINT_ERR_SIZE];
    if (!json_is_object(e)) {
        snprintf(ptr, sizeof ptr, "/affected/%zu", i);
        imx_verr(errors, ptr, "must be an object");
        return;
    }
    json_t *sub = json_array();
    imx_api_check_fields(e, range_fields, sub);
    size_t k;
    json_t *se;
    json_array_foreach(sub, k, se)
    {
        snprintf(ptr, sizeof ptr, "/affected/%zu%s", i,
                 json_string_value(json_object_get(se, "pointer")));
        imx_verr(errors, ptr, "%s", json_string_value(json_object_get(se, "detail")));
    }
    json_decref(sub);
    const char *component = json_string_value(json_object_get(e, "component"));
    const char *range = json_string_value(json_object_get(e, "range"));
    const char *fixed = json_string_value(json_object_get(e, "fixed"));
    if (component && !matches_pattern(component, 64, LOWER, LOWER "._+-")) {
        snprintf(ptr, sizeof ptr, "/affected/%zu/component", i);
        imx_verr(errors, ptr, "must be a component name such as nvidia-driver");
    }
    if (!range)
        return;
    json_t *b = imx_api_range_bounds(range, err, sizeof err);
    if (!b) {
        snprintf(ptr, sizeof ptr, "/affected/%zu/range", i);
        imx_verr(errors, ptr, "%s", err);
        return;
    }
    if (fixed) {
        struct imx_ver v;
        struct imx_constraint c;
        snprintf(ptr, sizeof ptr, "/affected/%zu/fixed", i);
        if (imx_ver_parse(fixed, &v) != 0)
            imx_verr(errors, ptr, "must be a version such as 580.95.05");
        else if (imx_constraint_parse(range, &c, NULL, 0) == 0 && imx_constraint_matches(&c, &v))
            imx_verr(errors, ptr, "lies inside the affected range");
    }
    json_object_set_new(b, "component", json_string(component ? component : ""));
    json_object_set_new(b, "fixed", fixed ? json_string(fixed) : json_null());
    json_array_append_new(out, b);
}

/* Validates an advisory body (native, or mapped from OSV) into the document the db stores.
 * Returns it (new), or NULL after appending to errors. */
static json_t *check_advisory(json_t *doc, json_t *errors)
{
    /* A whole-number CVSS is still a number; null is the same as absent. */
    json_t *cvss = json_object_get(doc, "cvss");
    if (json_is_integer(cvss))
        json_object_set_new(doc, "cvss", json_real((double)json_integer_value(cvss)));
    else if (json_is_null(cvss))
        json_object_del(doc, "cvss");
    size_t before = json_array_size(errors);
    imx_api_check_fields(doc, advisory_fields, errors);
    const char *id = json_string_value(json_object_get(doc, "id"));
    const char *title = json_string_value(json_object_get(doc, "title"));
    const char *published = json_string_value(json_object_get(doc, "published"));
    const char *severity = json_string_value(json_object_get(doc, "severity"));
    const char *url = json_string_value(json_object_get(doc, "url"));
    cvss = json_object_get(doc, "cvss");
    if (id && !matches_pattern(id, 100, ALNUM, ALNUM "._:-"))
        imx_verr(errors, "/id", "must be 1 to 100 of A-Z, a-z, 0-9, '.', '_', ':' and '-'");
    if (title && (strlen(title) == 0 || strlen(title) > 500))
        imx_verr(errors, "/title", "must be 1 to 500 characters");
    if (published && !date_shape_ok(published))
        imx_verr(errors, "/published", "must be a date, YYYY-MM-DD");
    if (severity && !severity_ok(severity))
        imx_verr(errors, "/severity", "must be low, medium, high or critical");
    if (json_is_real(cvss) && (json_real_value(cvss) < 0 || json_real_value(cvss) > 10))
        imx_verr(errors, "/cvss", "must be from 0 to 10");
    if (url && (strlen(url) > 2000 ||
                (strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7) != 0)))
        imx_verr(errors, "/url", "must be an http(s) URL of at most 2000 characters");
    json_t *cves = json_object_get(doc, "cves"), *v;
    size_t i;
    char ptr[64];
    if (json_array_size(cves) > CVES_MAX)
        imx_verr(errors, "/cves", "must list at most %d CVE ids", CVES_MAX);
    json_array_foreach(cves, i, v)
    {
        if (!cve_ok(json_string_value(v))) {
            snprintf(ptr, sizeof ptr, "/cves/%zu", i);
            imx_verr(errors, ptr, "must be a CVE id such as CVE-2025-23280");
        }
    }
    json_t *affected = json_object_get(doc, "affected");
    json_t *ranges = json_array();
    if (json_is_array(affected) &&
        (json_array_size(affected) == 0 || json_array_size(affected) > AFFECTED_MAX))
        imx_verr(errors, "/affected", "must list 1 to %d ranges", AFFECTED_MAX);
    json_array_foreach(affected, i, v)
    {
        if (i < AFFECTED_MAX)
            check_range(v, i, ranges, errors);
    }
    if (json_array_size(errors) > before) {
        json_decref(ranges);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:s, s:s, s:O?, s:o, s:s?, s:o}", "id", id, "title", title,
                     "published", published, "severity", severity, "cvss", cvss, "cves",
                     cves ? json_incref(cves) : json_array(), "url", url, "affected", ranges);
}

struct advisory_create {
    json_t *doc; /* owned */
    const char *id;
    char *text; /* owned */
    char user_id[24];
};

static int advisory_create_tx(struct imx_req *r, void *cls)
{
    struct advisory_create *a = cls;
    PGresult *res = imx_db_advisory_create(r->db, a->text, a->user_id);
    if (!imx_db_ok(res)) {
        const char *state = imx_db_sqlstate(res);
        if (strcmp(state, "23505") == 0) {
            PQclear(res);
            imx_reply_problem(r, IMX_E_CONFLICT, "Advisory %s exists", a->id);
            return -1;
        }
        if (strncmp(state, "22", 2) == 0) {
            /* The only value PostgreSQL checks that C did not: the calendar date. */
            PQclear(res);
            json_t *errors = json_array();
            imx_verr(errors, "/published", "is not a calendar date");
            imx_reply_invalid_steal(r, errors, "The advisory has invalid fields");
            return -1;
        }
        return imx_db_tx_fail(r, res);
    }
    PQclear(res);
    json_t *detail = json_pack("{s:O}", "severity", json_object_get(a->doc, "severity"));
    int rc = imx_audit(r, "create", "advisory", a->id, detail);
    json_decref(detail);
    if (rc != 0)
        return -1;
    /* After the insert, whose triggers found the affected images (and staged any
     * patch.available for fixes that exist already). */
    res = imx_db_event_advisory(r->db, a->id);
    if (!imx_db_ok(res))
        return imx_db_tx_fail(r, res);
    PQclear(res);
    res = imx_db_advisory_get(r->db, a->id);
    if (!imx_db_ok(res))
        return imx_db_tx_fail(r, res);
    char loc[160];
    snprintf(loc, sizeof loc, "/v1/advisories/%s", a->id);
    imx_reply_header(r, "Location", loc);
    imx_api_reply_pg_json_steal(r, 201, res, "No such advisory");
    return 0;
}

void imx_api_advisory_create(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    bool osv = imx_osv_is_osv(body), csaf = !osv && imx_csaf_is_csaf(body);
    json_t *in = osv    ? imx_osv_to_advisory(body, errors)
                 : csaf ? imx_csaf_to_advisory(body, errors, NULL)
                        : json_deep_copy(body);
    json_t *doc = in ? check_advisory(in, errors) : NULL;
    json_decref(in);
    if (!doc) {
        imx_reply_invalid_steal(r, errors,
                                osv    ? "The OSV document cannot be imported"
                                : csaf ? "The CSAF document cannot be imported"
                                       : "The advisory has invalid fields");
        return;
    }
    json_decref(errors);
    json_object_set_new(doc, "source", json_string(osv ? "osv" : csaf ? "csaf" : "imaxe"));
    struct advisory_create a = { .doc = doc, .id = json_string_value(json_object_get(doc, "id")) };
    a.text = json_dumps(doc, JSON_COMPACT);
    snprintf(a.user_id, sizeof a.user_id, "%lld", (long long)r->principal.user_id);
    if (!a.text)
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    else
        imx_db_tx(r, advisory_create_tx, &a);
    free(a.text);
    json_decref(doc);
}

void imx_api_advisory_list(struct imx_req *r)
{
    unsigned long long limit;
    const char *component = imx_req_query(r, "component");
    const char *severity = imx_req_query(r, "severity");
    const char *from = imx_req_query(r, "published_from");
    const char *to = imx_req_query(r, "published_to");
    const char *cve = imx_req_query(r, "cve");
    const char *cursor = imx_req_query(r, "cursor");
    char after_pub[16] = "", after_id[128] = "", limit_txt[16];

    if (!imx_api_list_limit(r, &limit))
        return;
    if (severity && !severity_ok(severity)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "severity must be low, medium, high or critical");
        return;
    }
    if ((from && !date_shape_ok(from)) || (to && !date_shape_ok(to))) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "published_from and published_to are YYYY-MM-DD");
        return;
    }
    if (cursor) {
        json_t *key = imx_cursor_decode(cursor);
        const char *pub = json_string_value(json_array_get(key, 0));
        const char *id = json_string_value(json_array_get(key, 1));
        if (json_array_size(key) != 2 || !pub || !id || !date_shape_ok(pub) ||
            strlen(id) >= sizeof after_id) {
            json_decref(key);
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "The cursor is not one this server made");
            return;
        }
        snprintf(after_pub, sizeof after_pub, "%s", pub);
        snprintf(after_id, sizeof after_id, "%s", id);
        json_decref(key);
    }
    snprintf(limit_txt, sizeof limit_txt, "%llu", limit);
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    PGresult *res =
        imx_db_advisory_list(c, component, severity, from, to, cve, cursor ? after_pub : NULL,
                             cursor ? after_id : NULL, limit_txt);
    if (!imx_db_ok(res)) {
        if (strncmp(imx_db_sqlstate(res), "22", 2) == 0)
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "published_from or published_to is not a date");
        else
            imx_api_db_error(r, res);
        PQclear(res);
        return;
    }
    imx_api_reply_page_steal(r, res, limit, "ss");
}

void imx_api_advisory_get(struct imx_req *r)
{
    struct imx_db_conn *c = imx_api_db_read(r);
    if (c)
        imx_api_reply_pg_json_steal(r, 200, imx_db_advisory_get(c, imx_req_param(r, "id")),
                                    "No such advisory");
}

void imx_api_advisory_affected(struct imx_req *r)
{
    struct imx_db_conn *c = imx_api_db_read(r);
    if (c)
        imx_api_reply_pg_json_steal(r, 200, imx_db_advisory_affected(c, imx_req_param(r, "id")),
                                    "No such advisory");
}

void imx_api_image_patch_status(struct imx_req *r)
{
    unsigned long long id = 0;
    if (imx_parse_uint(imx_req_param(r, "id"), 1, INT64_MAX, &id) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        return;
    }
    char idt[24];
    snprintf(idt, sizeof idt, "%llu", id);
    struct imx_db_conn *c = imx_api_db_read(r);
    if (c)
        imx_api_reply_pg_json_steal(r, 200, imx_db_image_patch(c, idt), "No such image");
}
