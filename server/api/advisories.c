/* Security advisories and patch status: POST/GET /v1/advisories, GET/PATCH/DELETE
 * /v1/advisories/{id} (revise, withdraw), /v1/advisories/{id}/affected and
 * /v1/images/{id}/patch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "http/conditional.h"
#include "api/cursor.h"
#include "api/export.h"
#include "auth/auth.h"
#include "db/advisories.h"
#include "db/events.h"
#include "db/product_map.h"
#include "db/read_batch.h"
#include "api/tx.h"
#include "domain/csaf.h"
#include "domain/osv.h"
#include "domain/pkgver.h"
#include "domain/version.h"
#include "util/config.h"
#include "util/rfc3339.h"

#define AFFECTED_MAX 256 /* ranges in one advisory (a USN names each binary package) */
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

static const struct imx_api_field package_range_fields[] = {
    { "ecosystem", JSON_STRING, true }, { "package", JSON_STRING, true },
    { "range", JSON_STRING, true },     { "fixed", JSON_STRING, false },
    { NULL, JSON_NULL, false },
};

/* Appends the errors of sub (pointers inside entry i) to errors. */
static void nest_errors(json_t *sub, size_t i, json_t *errors)
{
    char ptr[300];
    size_t k;
    json_t *se;
    json_array_foreach(sub, k, se)
    {
        snprintf(ptr, sizeof ptr, "/affected/%zu%s", i,
                 json_string_value(json_object_get(se, "pointer")));
        imx_verr(errors, ptr, "%s", json_string_value(json_object_get(se, "detail")));
    }
}

/* Checks one affected entry over a distro's packages ({ecosystem, package, range, fixed}, the
 * range in that ecosystem's order); appends its stored form (key bounds as hex, null when
 * unbounded) to out. */
static void check_package_range(json_t *e, size_t i, json_t *out, json_t *errors)
{
    char ptr[64], err[IMX_CONSTRAINT_ERR_SIZE];
    json_t *sub = json_array();
    imx_api_check_fields(e, package_range_fields, sub);
    nest_errors(sub, i, errors);
    json_decref(sub);
    const char *eco = json_string_value(json_object_get(e, "ecosystem"));
    const char *pkg = json_string_value(json_object_get(e, "package"));
    const char *range = json_string_value(json_object_get(e, "range"));
    const char *fixed = json_string_value(json_object_get(e, "fixed"));
    enum imx_pkg_order order = eco ? imx_pkg_ecosystem_order(eco) : 0;
    if (eco && !order) {
        snprintf(ptr, sizeof ptr, "/affected/%zu/ecosystem", i);
        imx_verr(errors, ptr,
                 "must be a distro's OSV ecosystem such as Ubuntu:24.04:LTS, Debian:12, Rocky "
                 "Linux:9, AlmaLinux:9 or Amazon Linux 2023");
    }
    if (pkg && !imx_pkg_name_ok(pkg)) {
        snprintf(ptr, sizeof ptr, "/affected/%zu/package", i);
        imx_verr(errors, ptr, "must be a package name such as openssl");
    }
    if (!order || !range)
        return;
    struct imx_pkg_constraint c;
    if (imx_pkg_constraint_parse(order, range, &c, err, sizeof err) != 0) {
        snprintf(ptr, sizeof ptr, "/affected/%zu/range", i);
        imx_verr(errors, ptr, "%s", err);
        return;
    }
    if (fixed) {
        snprintf(ptr, sizeof ptr, "/affected/%zu/fixed", i);
        if (!imx_pkgver_valid(order, fixed))
            imx_verr(errors, ptr, "must be a version of %s", eco);
        else if (imx_pkg_constraint_matches(order, &c, fixed))
            imx_verr(errors, ptr, "lies inside the affected range");
    }
    char lo[IMX_PKGVER_KEY_HEX_SIZE], hi[IMX_PKGVER_KEY_HEX_SIZE];
    if (c.has_lo)
        imx_pkgver_hex(c.lo, c.lo_n, lo);
    if (c.has_hi)
        imx_pkgver_hex(c.hi, c.hi_n, hi);
    /* the hex without its "\x": the procedure decode()s it */
    json_array_append_new(
        out, json_pack("{s:s, s:s, s:s, s:s?, s:b, s:s?, s:b, s:s?}", "ecosystem", eco, "package",
                       pkg ? pkg : "", "range", c.text, "lo", c.has_lo ? lo + 2 : NULL, "lo_incl",
                       c.has_lo ? c.lo_incl : true, "hi", c.has_hi ? hi + 2 : NULL, "hi_incl",
                       c.has_hi ? c.hi_incl : true, "fixed", fixed));
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
    if (json_object_get(e, "ecosystem")) {
        check_package_range(e, i, out, errors);
        return;
    }
    json_t *sub = json_array();
    imx_api_check_fields(e, range_fields, sub);
    nest_errors(sub, i, errors);
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

/* Validates an advisory body (native, or mapped from OSV or CSAF) into the document the db
 * stores; no_ranges: it may affect nothing (a CSAF bulletin about nothing imaxe tracks). Returns
 * it (new), or NULL after appending to errors. */
static json_t *check_advisory(json_t *doc, bool no_ranges, json_t *errors)
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
    if (published && !imx_date_ok(published))
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
    if (json_is_array(affected) && ((json_array_size(affected) == 0 && !no_ranges) ||
                                    json_array_size(affected) > AFFECTED_MAX))
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

/* The ETag of an advisory: "r<revision>.<risk>", its revision (which every write moves) and a
 * digest of its kev and epss members (which a KEV or EPSS import moves, the revision unmoved:
 * the document changed, so its ETag does). revision is that text as read. */
static void advisory_etag(char out[40], const char *revision)
{
    snprintf(out, 40, "\"r%s\"", revision);
}

/* Replies with advisory id as read on c, with its ETag. Returns 0, or -1 after replying. */
static int reply_advisory(struct imx_req *r, struct imx_db_conn *c, unsigned status, const char *id)
{
    struct imx_db_fault why = { 0 };
    char revision[24];
    struct imx_db_json j;
    enum imx_db_status st = imx_db_advisory_get(c, id, revision, &j, &why);
    if (st == IMX_DBS_OK) {
        char etag[40];
        advisory_etag(etag, revision);
        imx_reply_header(r, "ETag", etag);
    }
    imx_api_reply_json_text(r, status, st, &why, &j, "No such advisory");
    return st == IMX_DBS_OK ? 0 : -1;
}

/* Whether If-Match (RFC 9110: "*", or a list of strong tags) names the advisory's current
 * revision, as read on c: its whole current ETag, or "r<revision>" (the risk part left out: a
 * write changes what its author wrote, which the revision alone guards; a feed import between
 * the read and the write does not refuse it). The numeric revision goes to out for the write's
 * compare-and-set, which refuses the write if another lands in between. Returns 0, or -1 after
 * replying (412 when the list names no current revision, 404 for no advisory). */
static int if_match_current(struct imx_req *r, const char *if_match, const char *id, char out[24])
{
    struct imx_db_fault why = { 0 };
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return -1;
    char revision[24], etag[40], bare[40];
    struct imx_db_json j;
    enum imx_db_status st = imx_db_advisory_get(c, id, revision, &j, &why);
    if (st != IMX_DBS_OK) {
        imx_api_reply_json_text(r, 200, st, &why, &j, "No such advisory");
        return -1;
    }
    imx_db_json_free(&j);
    advisory_etag(etag, revision);
    char number[24];
    snprintf(number, sizeof number, "%s", revision);
    char *dot = strchr(number, '.');
    if (dot)
        *dot = '\0';
    snprintf(bare, sizeof bare, "\"r%s\"", number);
    if (imx_if_match(if_match, etag) != IMX_IF_MATCH_YES &&
        imx_if_match(if_match, bare) != IMX_IF_MATCH_YES) {
        imx_reply_header(r, "ETag", etag);
        imx_reply_problem(r, IMX_E_PRECONDITION_FAILED,
                          "If-Match names no current revision of this advisory (its ETag is %s); "
                          "read it again",
                          etag);
        return -1;
    }
    memcpy(out, number, sizeof number);
    return 0;
}

struct advisory_write {
    json_t *doc; /* owned */
    const char *id;
    char *text; /* owned */
    char user_id[24];
    char revision[24];  /* "": publish; else the revision If-Match named */
    const char *reason; /* withdraw */
    const char *action; /* audit: create | revise | withdraw */
    bool ranges_kept;   /* a revision that leaves the ranges as they are (possibly none) */
};

/* The outcome a use case returned (j, freed), or NULL after replying for a failed statement
 * (st, with the detail why the use case handed back). New. */
static json_t *outcome_of(struct imx_req *r, enum imx_db_status st, const struct imx_db_fault *why,
                          struct imx_db_json *j)
{
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND) {
        imx_api_tx_fail(r, st, why);
        return NULL;
    }
    json_t *out = imx_api_json_load(j);
    if (!out)
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    return out;
}

/* Replies for an outcome other than success; returns 0 when it was a success. */
static int reply_refused(struct imx_req *r, const struct advisory_write *a, const json_t *out)
{
    const char *o = json_string_value(json_object_get(out, "outcome"));
    char etag[40], rev[24];
    snprintf(rev, sizeof rev, "%lld",
             (long long)json_integer_value(json_object_get(out, "revision")));
    advisory_etag(etag, rev);
    if (!o) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    if (strcmp(o, "not_found") == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such advisory");
        return -1;
    }
    if (strcmp(o, "withdrawn") == 0 && strcmp(a->action, "withdraw") != 0) {
        imx_reply_problem(r, IMX_E_CONFLICT, "Advisory %s is withdrawn; it cannot be revised",
                          a->id);
        return -1;
    }
    if (strcmp(o, "already_withdrawn") == 0) {
        imx_reply_problem(r, IMX_E_CONFLICT, "Advisory %s is already withdrawn", a->id);
        return -1;
    }
    if (strcmp(o, "not_newer") == 0) {
        imx_reply_problem(r, IMX_E_CONFLICT,
                          "Advisory %s is already imported at bulletin version %s; import a newer "
                          "revision of it",
                          a->id, json_string_value(json_object_get(out, "source_version")));
        return -1;
    }
    if (strcmp(o, "stale") == 0) {
        imx_reply_header(r, "ETag", etag);
        imx_reply_problem(r, IMX_E_PRECONDITION_FAILED,
                          "Advisory %s changed since you read it (ETag %s); read it again", a->id,
                          etag);
        return -1;
    }
    return 0;
}

/* The one place an advisory is published, revised or withdrawn: the use case (its rows, the
 * affected images' patch statuses, pins, advisory.published and patch.available), the audit
 * entry and the reply, in this transaction. */
static int advisory_write_tx(struct imx_req *r, void *cls)
{
    struct advisory_write *a = cls;
    const char *revision = a->revision[0] ? a->revision : NULL;
    struct imx_db_json j;
    struct imx_db_fault why;
    enum imx_db_status st =
        strcmp(a->action, "withdraw") == 0
            ? imx_db_advisory_withdraw(imx_api_conn(r), a->id, a->reason, revision, &j, &why)
            : imx_db_advisory_publish(imx_api_conn(r), a->text, a->user_id, revision, &j, &why);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND) {
        enum imx_db_cause cause = why.cause;
        if (cause == IMX_DBC_UNIQUE) {
            imx_reply_problem(r, IMX_E_CONFLICT, "Advisory %s exists", a->id);
            return -1;
        }
        if (cause == IMX_DBC_VALUE) {
            /* The only value PostgreSQL checks that C did not: the calendar date. */
            json_t *errors = json_array();
            imx_verr(errors, "/published", "is not a calendar date");
            imx_reply_invalid_steal(r, errors, "The advisory has invalid fields");
            return -1;
        }
        return imx_api_tx_fail(r, st, &why);
    }
    json_t *out = outcome_of(r, st, &why, &j);
    if (!out)
        return -1;
    if (reply_refused(r, a, out) != 0) {
        json_decref(out);
        return -1;
    }
    /* A newer revision of an imported bulletin revised the advisory it made. */
    if (strcmp(a->action, "create") == 0 &&
        strcmp(json_string_value(json_object_get(out, "outcome")), "revised") == 0)
        a->action = "revise";
    json_t *detail =
        json_pack("{s:O*, s:O*, s:O*, s:s?}", "severity", json_object_get(a->doc, "severity"),
                  "revision", json_object_get(out, "revision"), "patch_status_changed",
                  json_object_get(out, "patch_status_changed"), "reason", a->reason);
    json_decref(out);
    int rc = imx_audit(r, a->action, "advisory", a->id, detail);
    json_decref(detail);
    if (rc != 0)
        return -1;
    if (strcmp(a->action, "create") == 0) {
        char loc[160];
        snprintf(loc, sizeof loc, "/v1/advisories/%s", a->id);
        imx_reply_header(r, "Location", loc);
    }
    return reply_advisory(r, imx_api_conn(r), strcmp(a->action, "create") == 0 ? 201 : 200, a->id);
}

/* The product mapping a CSAF import translates through (ref_nvidia_product), new; NULL after
 * replying. */
static json_t *product_map(struct imx_req *r)
{
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return NULL;
    char *text = NULL;
    enum imx_db_status rc = imx_db_product_map(c, &text, NULL);
    json_t *map = rc == IMX_DBS_OK ? json_loads(text, 0, NULL) : NULL;
    free(text);
    if (rc != IMX_DBS_OK)
        imx_api_reply_db_status(r, rc);
    else if (!map)
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    return map;
}

json_t *imx_api_csaf_advisory(const json_t *body, const json_t *map, json_t *errors)
{
    struct imx_csaf_meta meta = { .cvss_v4 = -1 };
    json_t *in = imx_csaf_to_advisory(body, map, errors, &meta);
    if (!in)
        return NULL;
    json_t *notes = json_pack("{s:O?, s:O?}", "unmapped", json_object_get(in, "unmapped"),
                              "warnings", json_object_get(in, "warnings"));
    json_object_del(in, "unmapped");
    json_object_del(in, "warnings");
    json_t *doc = check_advisory(in, true, errors);
    json_decref(in);
    /* What the bulletin named that imaxe left out, and what it read with a warning, are kept
     * with the advisory. */
    if (doc) {
        json_object_set(doc, "unmapped", json_object_get(notes, "unmapped"));
        json_object_set(doc, "warnings", json_object_get(notes, "warnings"));
        json_object_set_new(doc, "source", json_string("csaf"));
        /* The bulletin's own version: importing a newer one revises the advisory. */
        if (meta.version)
            json_object_set_new(doc, "source_version", json_string(meta.version));
        if (meta.cvss_v4 >= 0 && meta.cvss_v4 <= 10)
            json_object_set_new(doc, "cvss_v4", json_real(meta.cvss_v4));
    }
    json_decref(notes);
    return doc;
}

/* Validates body (imaxe JSON, OSV or CSAF) into a->doc and a->text; false after replying. */
static bool read_advisory(struct imx_req *r, json_t *body, struct advisory_write *a)
{
    bool osv = imx_osv_is_osv(body), csaf = !osv && imx_csaf_is_csaf(body);
    json_t *map = csaf ? product_map(r) : NULL;
    if (csaf && !map)
        return false;
    json_t *errors = json_array();
    json_t *doc = NULL;
    if (csaf) {
        doc = imx_api_csaf_advisory(body, map, errors);
        /* The bulletin itself is kept with the advisory, so that POST /v1/advisories:reapply
         * can read it again through a newer product mapping (advisory_reapply.c). */
        if (doc)
            json_object_set(doc, "csaf_doc", body);
    } else {
        json_t *in = osv ? imx_osv_to_advisory(body, errors) : json_deep_copy(body);
        doc = in ? check_advisory(in, a->ranges_kept, errors) : NULL;
        json_decref(in);
        if (doc)
            json_object_set_new(doc, "source", json_string(osv ? "osv" : "imaxe"));
    }
    json_decref(map);
    if (!doc) {
        imx_reply_invalid_steal(r, errors,
                                osv    ? "The OSV document cannot be imported"
                                : csaf ? "The CSAF document cannot be imported"
                                       : "The advisory has invalid fields");
        return false;
    }
    json_decref(errors);
    a->doc = doc;
    a->id = json_string_value(json_object_get(doc, "id"));
    snprintf(a->user_id, sizeof a->user_id, "%lld", (long long)r->principal.user_id);
    return true;
}

static void run_write(struct imx_req *r, struct advisory_write *a)
{
    if (a->doc)
        a->text = json_dumps(a->doc, JSON_COMPACT);
    if (a->doc && !a->text)
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    else
        imx_api_tx(r, advisory_write_tx, a);
    free(a->text);
    json_decref(a->doc);
}

void imx_api_advisory_create(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    struct advisory_write a = { .action = "create" };
    if (read_advisory(r, body, &a))
        run_write(r, &a);
}

/* Drops the null members of an advisory as GET shows it (and of its ranges): absent is how a
 * new advisory says "none". */
static void strip_nulls(json_t *doc)
{
    const char *key;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(doc, tmp, key, v)
    {
        if (json_is_null(v))
            json_object_del(doc, key);
    }
    size_t i;
    json_array_foreach(json_object_get(doc, "affected"), i, v)
    {
        if (json_is_null(json_object_get(v, "fixed")))
            json_object_del(v, "fixed");
    }
}

/* The fields a revision may change; "id" must stay the same. */
static const char *const revisable[] = { "title", "published", "severity", "cvss",
                                         "cves",  "url",       "affected", NULL };

/* PATCH /v1/advisories/{id}: the advisory as read, the body's fields over it, checked whole as a
 * new advisory would be; only "affected" changes which images it touches. */
void imx_api_advisory_revise(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    const char *id = imx_req_param(r, "id");
    char rev[24];
    const char *if_match = imx_req_header(r, "If-Match");
    if (!if_match) {
        imx_reply_problem(r, IMX_E_PRECONDITION_REQUIRED,
                          "Send If-Match with the ETag of the advisory you read");
        return;
    }
    if (imx_if_match(if_match, "\"\"") == IMX_IF_MATCH_MALFORMED) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, IMX_IF_MATCH_MALFORMED_TEXT);
        return;
    }
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    const char *key;
    json_t *v;
    json_object_foreach(body, key, v)
    {
        bool ok =
            strcmp(key, "id") == 0 && json_is_string(v) && strcmp(json_string_value(v), id) == 0;
        for (size_t i = 0; !ok && revisable[i]; i++)
            ok = strcmp(key, revisable[i]) == 0;
        if (!ok) {
            char ptr[160];
            imx_verr(errors, imx_api_pointer(key, ptr, sizeof ptr),
                     strcmp(key, "id") == 0 ? "cannot change" : "is not a field of an advisory");
        }
    }
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The revision has invalid fields");
        return;
    }
    json_decref(errors);
    if (if_match_current(r, if_match, id, rev) != 0)
        return;
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    char revision[24];
    struct imx_db_json j;
    enum imx_db_status st = imx_db_advisory_get(c, id, revision, &j, &why);
    if (st != IMX_DBS_OK) {
        imx_api_reply_json_text(r, 200, st, &why, &j, "No such advisory");
        return;
    }
    json_t *merged = imx_api_json_load(&j);
    if (!merged) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    /* Only what a client writes is checked again. */
    static const char *const derived[] = {
        "source",       "source_version",   "cvss_v4",
        "created_at",   "revision",         "updated_at",
        "withdrawn_at", "withdrawn_reason", "affected_images",
        "unmapped",     "warnings",         "bulletin_kept",
        NULL,
    };
    for (size_t i = 0; derived[i]; i++)
        json_object_del(merged, derived[i]);
    strip_nulls(merged);
    json_object_update(merged, body);
    struct advisory_write a = { .action = "revise",
                                .ranges_kept = !json_object_get(body, "affected") };
    snprintf(a.revision, sizeof a.revision, "%s", rev);
    bool ok = read_advisory(r, merged, &a);
    json_decref(merged);
    if (!ok)
        return;
    /* The source stays what it was; ranges are rewritten only when the revision names them. */
    json_object_del(a.doc, "source");
    if (!json_object_get(body, "affected"))
        json_object_del(a.doc, "affected");
    run_write(r, &a);
}

/* DELETE /v1/advisories/{id}[?reason=...]: withdraws it (If-Match optional). */
void imx_api_advisory_withdraw(struct imx_req *r)
{
    struct advisory_write a = { .action = "withdraw", .id = imx_req_param(r, "id") };
    const char *if_match = imx_req_header(r, "If-Match");
    a.reason = imx_req_query(r, "reason");
    if (if_match && imx_if_match(if_match, "\"\"") == IMX_IF_MATCH_MALFORMED) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, IMX_IF_MATCH_MALFORMED_TEXT);
        return;
    }
    if (if_match && if_match_current(r, if_match, a.id, a.revision) != 0)
        return;
    if (a.reason && strlen(a.reason) > 1000) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "reason must be at most 1000 characters");
        return;
    }
    run_write(r, &a);
}

/* min_epss: a score from 0 to 1, as EPSS writes them. */
static bool epss_shape_ok(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return s[0] >= '0' && s[0] <= '9' && *end == '\0' && strlen(s) <= 12 && v >= 0 && v <= 1;
}

void imx_api_advisory_list(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    unsigned long long limit;
    struct imx_db_advisory_filter f = {
        .component = imx_req_query(r, "component"),
        .severity = imx_req_query(r, "severity"),
        .from = imx_req_query(r, "published_from"),
        .to = imx_req_query(r, "published_to"),
        .cve = imx_req_query(r, "cve"),
        .kev = imx_req_query(r, "kev"),
        .min_epss = imx_req_query(r, "min_epss"),
    };
    const char *sort = imx_req_query(r, "sort");
    const char *cursor = imx_req_query(r, "cursor");
    char after_pub[16] = "", after_id[160] = "", limit_txt[16];

    if (!imx_api_list_limit(r, &limit))
        return;
    if (f.severity && !severity_ok(f.severity)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "severity must be low, medium, high or critical");
        return;
    }
    if ((f.from && !imx_date_ok(f.from)) || (f.to && !imx_date_ok(f.to))) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "published_from and published_to are YYYY-MM-DD");
        return;
    }
    if (f.kev && strcmp(f.kev, "true") != 0 && strcmp(f.kev, "false") != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "kev must be true or false");
        return;
    }
    if (f.min_epss && !epss_shape_ok(f.min_epss)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "min_epss must be a number from 0 to 1");
        return;
    }
    if (sort && strcmp(sort, "published") != 0 && strcmp(sort, "risk") != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          "sort must be published (newest first) or risk (KEV first, then EPSS)");
        return;
    }
    bool by_risk = sort && strcmp(sort, "risk") == 0;
    if (cursor) {
        /* published order: [published, id]; risk order: [key] */
        json_t *key = imx_cursor_decode(cursor);
        const char *a = json_string_value(json_array_get(key, 0));
        const char *b = json_string_value(json_array_get(key, 1));
        bool ok = by_risk ? json_array_size(key) == 1 && a && strlen(a) < sizeof after_id
                          : json_array_size(key) == 2 && a && b && imx_date_ok(a) &&
                                strlen(b) < sizeof after_id;
        if (!ok) {
            json_decref(key);
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "The cursor is not one this server made");
            return;
        }
        snprintf(by_risk ? after_id : after_pub, by_risk ? sizeof after_id : sizeof after_pub, "%s",
                 a);
        if (!by_risk)
            snprintf(after_id, sizeof after_id, "%s", b);
        json_decref(key);
    }
    snprintf(limit_txt, sizeof limit_txt, "%llu", limit);
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    struct imx_db_page page;
    enum imx_db_status st =
        imx_db_advisory_list(c, &f, by_risk, cursor ? (by_risk ? after_id : after_pub) : NULL,
                             cursor && !by_risk ? after_id : NULL, limit_txt, &page, &why);
    /* a refused value (class 22): a SELECT violates no constraint, so that is all INVALID means */
    if (st == IMX_DBS_INVALID)
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "published_from or published_to is not a date");
    else
        imx_api_reply_page(r, st, &why, &page, 0, limit, by_risk ? "s" : "ss");
}

void imx_api_advisory_get(struct imx_req *r)
{
    struct imx_db_conn *c = imx_api_db_read(r);
    if (c)
        reply_advisory(r, c, 200, imx_req_param(r, "id"));
}

static enum imx_db_status affected_page(struct imx_db_conn *c, const void *cls, const char *after,
                                        const char *limit, struct imx_db_page *out)
{
    return imx_db_advisory_affected_rows(c, cls, after, limit, out, NULL);
}

static const char *const affected_columns[] = {
    "advisory",        "family",           "id",           "version",
    "status",          "patch_status",     "published_at", "fixed_by.id",
    "fixed_by.family", "fixed_by.version", NULL,
};

void imx_api_advisory_affected(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    unsigned long long limit;
    json_t *key;
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_key(r, "ssI", &key))
        return;
    struct imx_db_conn *c = imx_api_db_read(r);
    char lim[24], id[24];
    snprintf(lim, sizeof lim, "%llu", limit);
    const char *after[3] = { imx_api_key_text(key, 0, NULL, 0), imx_api_key_text(key, 1, NULL, 0),
                             imx_api_key_text(key, 2, id, sizeof id) };
    enum imx_export_format format = imx_api_export_format(r);
    if (c && format != IMX_EXPORT_NONE) {
        /* The first page says whether the advisory exists: 404 before the stream starts. */
        const char *none[3] = { NULL, NULL, NULL };
        struct imx_db_page first;
        enum imx_db_status st =
            imx_db_advisory_affected(c, imx_req_param(r, "id"), none, "1", &first, &why);
        bool found = st == IMX_DBS_OK && first.rows.n == 1;
        imx_db_page_free(&first);
        if (st != IMX_DBS_OK)
            imx_api_reply_db_fault(r, st, &why);
        else if (!found)
            imx_reply_problem(r, IMX_E_NOT_FOUND, "No such advisory");
        char *advisory = found ? strdup(imx_req_param(r, "id")) : NULL;
        if (found && !advisory)
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        if (advisory)
            imx_api_export_steal(r, format, affected_columns, affected_page, advisory, NULL);
    } else if (c) {
        struct imx_db_page page;
        enum imx_db_status st =
            imx_db_advisory_affected(c, imx_req_param(r, "id"), after, lim, &page, &why);
        imx_api_reply_doc_page(r, st, &why, &page, "No such advisory");
    }
    json_decref(key);
}

/* The patch document read by a statement shared with the other patch reads waiting
 * (db/read_batch.c), whose auth epoch confirms a remembered principal; replied without a copy. */
static void image_patch_batched(struct imx_req *r, long long id)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        /* Waiting for the batch holds no connection (one held by each waiter could leave the
         * reader none); a principal checked in full took one. */
        imx_api_db_put(r);
        struct imx_db_patch_doc d;
        enum imx_db_status rc = imx_db_image_patch_batched(id, &d);
        if (rc != IMX_DBS_OK && rc != IMX_DBS_NOT_FOUND) {
            imx_api_reply_db_status(r, rc);
            return;
        }
        int confirmed = imx_auth_confirm(r, d.epoch);
        if (confirmed == 1 && rc == IMX_DBS_NOT_FOUND) {
            imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        } else if (confirmed == 1) {
            imx_reply_raw_steal(r, 200, "application/json", (char *)d.json, d.len,
                                imx_db_batch_release, d.owner);
            return;
        }
        imx_db_batch_unref(d.owner);
        if (confirmed != 0)
            return;
        /* checked again in full: read again for the principal as it is */
    }
    imx_reply_problem(r, IMX_E_INTERNAL, NULL); /* a principal checked in full confirms at once */
}

/* GET /v1/images/{id}/patch on the event thread (the route's fast handler): the same read, queued
 * without waiting; a principal to check again goes to imx_api_image_patch_status on a worker. */
static enum imx_fast patch_fast_read(struct imx_req *r)
{
    struct imx_db_patch_doc d;
    enum imx_db_status rc = imx_db_image_patch_result(r->fast_state, &d);
    if (rc != IMX_DBS_OK && rc != IMX_DBS_NOT_FOUND) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    if (r->principal.epoch != d.epoch) {
        imx_db_batch_unref(d.owner);
        return IMX_FAST_OFFLOAD;
    }
    imx_auth_confirm(r, d.epoch);
    if (rc == IMX_DBS_NOT_FOUND)
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
    else
        imx_reply_raw_steal(r, 200, "application/json", (char *)d.json, d.len, imx_db_batch_release,
                            d.owner);
    return IMX_FAST_DONE;
}

enum imx_fast imx_api_image_patch_status_fast(struct imx_req *r)
{
    unsigned long long id = 0;
    if (!imx_auth_settings.read_cache || !r->principal.cached || imx_req_query(r, "nodes"))
        return IMX_FAST_OFFLOAD;
    if (imx_parse_uint(imx_req_param(r, "id"), 1, INT64_MAX, &id) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        return IMX_FAST_DONE;
    }
    struct imx_db_texts_call *c = imx_db_image_patch_start((long long)id, imx_api_wake, r);
    if (!c)
        return IMX_FAST_OFFLOAD;
    r->fast_state = c;
    r->fast_free = imx_db_image_patch_call_free;
    r->resume = patch_fast_read;
    return IMX_FAST_PARKED;
}

void imx_api_image_patch_status(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    unsigned long long id = 0;
    if (imx_parse_uint(imx_req_param(r, "id"), 1, INT64_MAX, &id) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        return;
    }
    const char *nodes = imx_req_query(r, "nodes");
    if (nodes && strcmp(nodes, "true") != 0 && strcmp(nodes, "false") != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "nodes must be true or false");
        return;
    }
    bool count = nodes && strcmp(nodes, "true") == 0;
    if (imx_auth_settings.read_cache && !count) {
        image_patch_batched(r, (long long)id);
        return;
    }
    char idt[24];
    snprintf(idt, sizeof idt, "%llu", id);
    struct imx_db_conn *c = imx_api_db(r);
    for (int attempt = 0; c && attempt < 2; attempt++) {
        struct imx_db_json j;
        long long epoch;
        enum imx_db_status st = imx_db_image_patch(c, idt, count, &j, &epoch, &why);
        if (imx_api_reply_json_confirmed(r, 200, st, &why, &j, epoch, "No such image"))
            return;
    }
}
