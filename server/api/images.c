/* What the catalog's handlers share (api/images_internal.h), and POST /v1/compat/check. The catalog
 * is split by resource: image_get.c, image_search.c, image_resolve.c, image_lineage.c,
 * image_publish.c (publish and import) and image_lifecycle.c; compare is in compare.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "api/api.h"
#include "api/export.h"
#include "api/costs_common.h"
#include "api/cursor.h"
#include "auth/auth.h"
#include "db/image_index.h"
#include "db/image_docs.h"
#include "db/images.h"
#include "db/pins.h"
#include "db/reference.h"
#include "api/tx.h"
#include "domain/compat.h"
#include "domain/pkgver.h"
#include "domain/sbom.h"
#include "domain/version.h"
#include "util/config.h"
#include "util/json_text.h"
#include "util/log.h"
#include "util/urlcode.h"
#include "api/images_internal.h"

/* ---- shared helpers ---- */

/* s is first_set then up to max - 1 characters of rest_set. */
bool imx_img_token_ok(const char *s, const char *first_set, const char *rest_set, size_t max)
{
    size_t n = s ? strlen(s) : 0;
    return n >= 1 && n <= max && strchr(first_set, s[0]) && strspn(s + 1, rest_set) == n - 1;
}

bool imx_img_one_of(const char *s, const char *const *set)
{
    for (; s && *set; set++)
        if (strcmp(s, *set) == 0)
            return true;
    return false;
}

const char *const imx_img_providers[] = { "aws", "gcp", "azure", "onprem", "oci-container", NULL };
const char *const imx_img_archs[] = { "x86_64", "arm64", NULL };
const char *const imx_img_layers[] = { "platform", "model", NULL };
const char *const imx_img_statuses[] = { "active", "deprecated", "revoked", NULL };
const char *const imx_img_patch_statuses[] = { "ok", "vulnerable", "patch_available", "revoked",
                                               NULL };

/* The {id} of the path, or 0 after replying 404. */
long long imx_img_path_id(struct imx_req *r)
{
    unsigned long long v;
    if (imx_parse_uint(imx_req_param(r, "id"), 1, INT64_MAX, &v) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        return 0;
    }
    return (long long)v;
}

/* Replies 200 (or status) with JSON text that malloc made; steals json. */
void imx_img_reply_json_text_steal(struct imx_req *r, unsigned status, char *json)
{
    imx_reply_raw_steal(r, status, "application/json", json, strlen(json), NULL, NULL);
}

/* Does an If-None-Match / If-Match value list etag (or "*")? Weak prefixes are ignored. */
bool imx_img_etag_listed(const char *header, const char *etag)
{
    if (strcmp(header, "*") == 0)
        return true;
    size_t n = strlen(etag);
    for (const char *p = header; (p = strstr(p, etag)) != NULL; p += n) {
        const char *end = p + n;
        if (*end == '\0' || *end == ',' || *end == ' ')
            return true;
    }
    return false;
}

/* Replies 400 with errors, or 422 when every one of them breaks a rule of the GPUs that the
 * entries of a component listed more than once serve (a GPU served twice or by none, a GPU not
 * the image's: each field is well formed, together they cannot be); steals errors. */
void imx_img_reply_invalid(struct imx_req *r, json_t *errors, size_t rule_errors,
                           const char *detail)
{
    if (rule_errors > 0 && rule_errors == json_array_size(errors))
        imx_reply_unprocessable_steal(r, errors, detail);
    else
        imx_reply_invalid_steal(r, errors, detail);
}

/* Today as "YYYY-MM-DD" (UTC), for end-of-life checks. */
static void today_utc(char out[16])
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, 16, "%Y-%m-%d", &tm);
}

/* The compatibility report of a stack against ref, as a new JSON document (NULL when out of
 * memory or the stack is over the validator's limits). */
json_t *imx_img_compat_report(const struct imx_ref_snapshot *ref,
                              const struct imx_compat_component *comps,
                              const struct imx_compat_served *served, size_t n_comps,
                              const char *const *gpus, size_t n_gpus)
{
    char today[16];
    today_utc(today);
    return imx_compat_report_full(ref, comps, served, n_comps, gpus, n_gpus, today);
}

/* ---- POST /v1/compat/check ---- */

static const struct imx_api_field compat_fields[] = {
    { "components", JSON_ARRAY, true },
    { "gpus", JSON_ARRAY, false },
    { NULL, JSON_NULL, false },
};

/* Reads components [{name, version, gpus?}] (validated) into out. Returns how many. A name may
 * be listed more than once (an image with two driver trees) when every entry of it names the GPUs
 * it serves, none served by two of them; the GPUs are borrowed from arr into pool (pool_max at
 * most; NULL: "gpus" is refused). imx_img_check_entries holds them to the image's GPUs. */
size_t imx_img_read_components(const json_t *arr, struct imx_compat_component *out,
                               struct imx_compat_served *served, size_t max, json_t *errors,
                               bool check_versions, const char **pool, size_t pool_max,
                               size_t *rule_errors)
{
    size_t i, n = 0, used = 0, rules = 0;
    json_t *c;
    char ptr[64];
    size_t at[IMX_COMPAT_MAX_COMPONENTS > IMX_DBI_MAX_ROWS ? IMX_COMPAT_MAX_COMPONENTS
                                                           : IMX_DBI_MAX_ROWS];
    if (json_array_size(arr) > max || max > sizeof at / sizeof at[0]) {
        imx_verr(errors, "/components", "at most %zu components", max);
        return 0;
    }
    json_array_foreach(arr, i, c)
    {
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *version = json_string_value(json_object_get(c, "version"));
        json_t *gpus = json_object_get(c, "gpus");
        snprintf(ptr, sizeof ptr, "/components/%zu", i);
        if (!json_is_object(c) || json_object_size(c) != 2 + (gpus != NULL) || !name || !version) {
            imx_verr(errors, ptr,
                     pool ? "must be an object with string members name and version (and gpus)"
                          : "must be an object with string members name and version");
            continue;
        }
        bool ok = true;
        if (!imx_img_token_ok(name, LOWER_DIGITS, LOWER_DIGITS "._+-", 64)) {
            snprintf(ptr, sizeof ptr, "/components/%zu/name", i);
            imx_verr(errors, ptr, "must be 1 to 64 of a-z, 0-9, '.', '_', '+', '-'");
            ok = false;
        }
        struct imx_ver v;
        if (check_versions && imx_ver_parse(version, &v) != 0) {
            snprintf(ptr, sizeof ptr, "/components/%zu/version", i);
            imx_verr(errors, ptr, "'%.64s' is not a version (such as 580.105.08 or 2.9.0+cu130)",
                     version);
            ok = false;
        }
        const char **eg = pool ? pool + used : NULL;
        size_t ne = 0;
        if (gpus) {
            snprintf(ptr, sizeof ptr, "/components/%zu/gpus", i);
            if (!pool) {
                imx_verr(errors, ptr, "is not accepted here");
                ok = false;
            } else if (!json_is_array(gpus) || json_array_size(gpus) < 1 ||
                       json_array_size(gpus) > MANIFEST_MAX_GPUS ||
                       used + json_array_size(gpus) > pool_max) {
                imx_verr(errors, ptr, "must be an array of 1 to %d GPU names (the GPUs it serves)",
                         MANIFEST_MAX_GPUS);
                ok = false;
            } else {
                size_t k;
                json_t *g;
                json_array_foreach(gpus, k, g)
                {
                    const char *gs = json_string_value(g);
                    bool dup = false;
                    for (size_t j = 0; gs && j < ne && !dup; j++)
                        dup = strcasecmp(eg[j], gs) == 0;
                    if (!gs || strlen(gs) < 1 || strlen(gs) > 64 || dup) {
                        snprintf(ptr, sizeof ptr, "/components/%zu/gpus/%zu", i, k);
                        imx_verr(errors, ptr, "must be a GPU name of 1 to 64 characters, once");
                        ok = false;
                    } else {
                        eg[ne++] = gs;
                    }
                }
            }
        }
        /* A name listed again: each entry must say which GPUs it serves, and no GPU is served by
         * two entries of the same name (the image loads one tree per GPU). */
        size_t same = 0;
        for (size_t k = 0; ok && k < n; k++) {
            if (strcmp(out[k].name, name) != 0)
                continue;
            same++;
            /* without gpus a name listed again is malformed, as before (400, at its name) */
            snprintf(ptr, sizeof ptr, ne == 0 ? "/components/%zu/name" : "/components/%zu/gpus", i);
            if (ne == 0 || served[k].n_gpus == 0) {
                imx_verr(errors, ptr,
                         "%s is listed twice: each entry needs the gpus it serves (two driver "
                         "trees)",
                         name);
                ok = false;
                break;
            }
            for (size_t a = 0; ok && a < ne; a++) {
                for (size_t b = 0; ok && b < served[k].n_gpus; b++) {
                    if (strcasecmp(eg[a], served[k].gpus[b]) == 0) {
                        imx_verr(errors, ptr, "GPU %s is served by two %s entries (%s and %s)",
                                 eg[a], name, out[k].version, version);
                        rules++;
                        ok = false;
                    }
                }
            }
        }
        if (ok && same >= 8) {
            snprintf(ptr, sizeof ptr, "/components/%zu", i);
            imx_verr(errors, ptr, "%s: at most 8 entries", name);
            rules++;
            ok = false;
        }
        if (ok) {
            at[n] = i;
            served[n] = (struct imx_compat_served){ ne ? eg : NULL, ne };
            out[n++] = (struct imx_compat_component){ name, version };
            used += ne;
        }
    }
    /* The first entry of a name listed more than once needs its gpus too. */
    for (size_t k = 0; k < n; k++) {
        if (served[k].n_gpus > 0)
            continue;
        for (size_t j = k + 1; j < n; j++) {
            if (strcmp(out[j].name, out[k].name) == 0) {
                snprintf(ptr, sizeof ptr, "/components/%zu/gpus", at[k]);
                imx_verr(
                    errors, ptr,
                    "%s is listed twice: each entry needs the gpus it serves (two driver trees)",
                    out[k].name);
                break;
            }
        }
    }
    if (rule_errors)
        *rule_errors += rules;
    return n;
}

/* Holds the entries' GPUs (imx_img_read_components) to the image's: each one of the image's
 * (same text ignoring case), and each image GPU served by exactly one entry of every component
 * that names GPUs. Returns how many errors it added. */
size_t imx_img_check_entries(const struct imx_compat_component *comps,
                             const struct imx_compat_served *served, size_t n,
                             const char *const *gpus, size_t n_gpus, json_t *errors)
{
    char ptr[64];
    size_t added = 0;
    for (size_t k = 0; k < n; k++) {
        for (size_t a = 0; a < served[k].n_gpus; a++) {
            bool listed = false;
            for (size_t g = 0; g < n_gpus && !listed; g++)
                listed = strcasecmp(served[k].gpus[a], gpus[g]) == 0;
            if (!listed) {
                snprintf(ptr, sizeof ptr, "/components/%zu/gpus/%zu", k, a);
                imx_verr(errors, ptr, "%s is not one of the image's gpus", served[k].gpus[a]);
                added++;
            }
        }
    }
    for (size_t k = 0; k < n; k++) {
        bool first = served[k].n_gpus > 0;
        for (size_t j = 0; j < k && first; j++)
            first = strcmp(comps[j].name, comps[k].name) != 0 || served[j].n_gpus == 0;
        if (!first)
            continue;
        for (size_t g = 0; g < n_gpus; g++) {
            bool hit = false;
            for (size_t j = k; j < n && !hit; j++) {
                if (strcmp(comps[j].name, comps[k].name) != 0)
                    continue;
                for (size_t a = 0; a < served[j].n_gpus && !hit; a++)
                    hit = strcasecmp(served[j].gpus[a], gpus[g]) == 0;
            }
            if (!hit) {
                snprintf(ptr, sizeof ptr, "/gpus/%zu", g);
                imx_verr(errors, ptr, "GPU %s is served by no %s entry", gpus[g], comps[k].name);
                added++;
            }
        }
    }
    return added;
}

/* Reads an array of distinct strings that pass ok (NULL: 1..64 characters) into out. Returns how
 * many. */
size_t imx_img_read_strings(const json_t *arr, const char *field, const char **out, size_t max,
                            bool (*ok)(const char *), const char *ok_text, json_t *errors)
{
    size_t i, n = 0;
    json_t *v;
    char ptr[64];
    if (json_array_size(arr) > max) {
        snprintf(ptr, sizeof ptr, "/%s", field);
        imx_verr(errors, ptr, "at most %zu entries", max);
        return 0;
    }
    json_array_foreach(arr, i, v)
    {
        const char *s = json_string_value(v);
        snprintf(ptr, sizeof ptr, "/%s/%zu", field, i);
        if (!s || (ok ? !ok(s) : (strlen(s) < 1 || strlen(s) > 64))) {
            imx_verr(errors, ptr, "must be %s", ok_text);
            continue;
        }
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = strcmp(out[k], s) == 0;
        if (dup)
            imx_verr(errors, ptr, "'%s' is listed twice", s);
        else
            out[n++] = s;
    }
    return n;
}

void imx_api_compat_check(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, compat_fields, errors);
    struct imx_compat_component comps[IMX_COMPAT_MAX_COMPONENTS];
    struct imx_compat_served served[IMX_COMPAT_MAX_COMPONENTS];
    const char *gpus[MANIFEST_MAX_GPUS];
    const char *entry_gpus[IMX_IMG_ENTRY_GPUS_MAX];
    size_t rules = 0;
    size_t nc = imx_img_read_components(json_object_get(body, "components"), comps, served,
                                        IMX_COMPAT_MAX_COMPONENTS, errors, false, entry_gpus,
                                        IMX_IMG_ENTRY_GPUS_MAX, &rules);
    size_t ng = imx_img_read_strings(json_object_get(body, "gpus"), "gpus", gpus, MANIFEST_MAX_GPUS,
                                     NULL, "a GPU name of 1 to 64 characters", errors);
    rules += imx_img_check_entries(comps, served, nc, gpus, ng, errors);
    if (json_array_size(errors) > 0) {
        imx_img_reply_invalid(r, errors, rules, "The stack has invalid fields");
        return;
    }
    json_decref(errors);
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    char err[256];
    const struct imx_ref_snapshot *ref = imx_db_ref_acquire(c, err, sizeof err);
    if (!ref) {
        imx_error("request %s: reference data: %s", r->request_id, err);
        imx_reply_problem(r, IMX_E_DB_UNAVAILABLE, "The reference data cannot be read");
        return;
    }
    json_t *doc = imx_img_compat_report(ref, comps, served, nc, gpus, ng);
    imx_db_ref_release(ref);
    imx_reply_json_steal(r, 200, doc);
}

/* ---- component=NAME:CONSTRAINT (search and resolve) ---- */

static void constraint_arg(void *cls, const char *value)
{
    struct imx_img_constraint_args *ca = cls;
    if (ca->problem[0])
        return;
    if (ca->n == IMX_DBI_MAX_CONSTRAINTS) {
        snprintf(ca->problem, sizeof ca->problem, "component: at most %d constraints",
                 IMX_DBI_MAX_CONSTRAINTS);
        return;
    }
    const char *colon = strchr(value, ':');
    size_t nl = colon ? (size_t)(colon - value) : 0;
    if (!colon || nl == 0 || nl > 64) {
        snprintf(ca->problem, sizeof ca->problem,
                 "component=%.80s: must be NAME:CONSTRAINT, such as cuda:>=12.4 or "
                 "nvidia-driver:~580",
                 value);
        return;
    }
    memcpy(ca->names[ca->n], value, nl);
    ca->names[ca->n][nl] = '\0';
    if (!imx_img_token_ok(ca->names[ca->n], LOWER_DIGITS, LOWER_DIGITS "._+-", 64)) {
        snprintf(ca->problem, sizeof ca->problem,
                 "component=%.80s: the name must be a-z, 0-9, '.', '_', '+', '-'", value);
        return;
    }
    char err[IMX_CONSTRAINT_ERR_SIZE];
    struct imx_image_constraint *ic = &ca->list[ca->n];
    if (imx_constraint_parse(colon + 1, &ic->constraint, err, sizeof err) != 0) {
        snprintf(ca->problem, sizeof ca->problem, "component=%.80s: %s", value, err);
        return;
    }
    ic->name = ca->names[ca->n];
    ca->n++;
}

/* Reads every component argument; replies 400 naming the bad one and returns -1. */

void imx_img_package_arg(void *cls, const char *value)
{
    struct imx_img_package_args *pa = cls;
    if (pa->problem[0])
        return;
    if (pa->n == IMX_DBI_MAX_PACKAGE_FILTERS) {
        snprintf(pa->problem, sizeof pa->problem, "package: at most %d filters",
                 IMX_DBI_MAX_PACKAGE_FILTERS);
        return;
    }
    const char *colon = strchr(value, ':');
    size_t nl = colon ? (size_t)(colon - value) : 0;
    if (!colon || nl == 0 || nl > IMX_PKG_NAME_MAX) {
        snprintf(pa->problem, sizeof pa->problem,
                 "package=%.80s: must be NAME:CONSTRAINT, such as openssl:<3.0.13-0ubuntu3.10",
                 value);
        return;
    }
    memcpy(pa->names[pa->n], value, nl);
    pa->names[pa->n][nl] = '\0';
    if (!imx_pkg_name_ok(pa->names[pa->n])) {
        snprintf(pa->problem, sizeof pa->problem,
                 "package=%.80s: the name must be A-Z, a-z, 0-9, '.', '+', '_', '-', '~'", value);
        return;
    }
    struct imx_image_package_filter *f = &pa->list[pa->n];
    char err[256];
    f->dpkg_ok = imx_pkg_constraint_parse(IMX_PKG_DPKG, colon + 1, &f->dpkg, err, sizeof err) == 0;
    f->rpm_ok = imx_pkg_constraint_parse(IMX_PKG_RPM, colon + 1, &f->rpm, NULL, 0) == 0;
    if (!f->dpkg_ok && !f->rpm_ok) {
        snprintf(pa->problem, sizeof pa->problem, "package=%.80s: %s", value, err);
        return;
    }
    f->name = pa->names[pa->n];
    pa->n++;
}

int imx_img_read_constraints(struct imx_req *r, struct imx_img_constraint_args *ca)
{
    ca->n = 0;
    ca->problem[0] = '\0';
    imx_req_query_each(r, "component", constraint_arg, ca);
    if (ca->problem[0]) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "%s", ca->problem);
        return -1;
    }
    return 0;
}
