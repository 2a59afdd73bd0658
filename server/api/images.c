/* The catalog: publish (POST /v1/images), read (GET /v1/images/{id}, ETag), lifecycle (PATCH with
 * If-Match), lineage, search with facets (GET /v1/images) and resolve; compare is in compare.c. */
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

#define SEARCH_LIMIT_DEFAULT 50
#define MANIFEST_MAX_GPUS    32 /* checked IMX_COMPAT_MAX_GPUS at a time */
#define BOOT_SECONDS_MAX     86400
#define SIZE_GB_MAX          999999.99
#define COMPONENT_ARG_MAX    (64 + 1 + IMX_CONSTRAINT_TEXT_MAX)

/* ---- shared helpers ---- */

/* s is first_set then up to max - 1 characters of rest_set. */
static bool token_ok(const char *s, const char *first_set, const char *rest_set, size_t max)
{
    size_t n = s ? strlen(s) : 0;
    return n >= 1 && n <= max && strchr(first_set, s[0]) && strspn(s + 1, rest_set) == n - 1;
}

#define LOWER_DIGITS "abcdefghijklmnopqrstuvwxyz0123456789"
#define ALNUM        LOWER_DIGITS "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

static bool one_of(const char *s, const char *const *set)
{
    for (; s && *set; set++)
        if (strcmp(s, *set) == 0)
            return true;
    return false;
}

static const char *const PROVIDERS[] = { "aws", "gcp", "azure", "onprem", "oci-container", NULL };
static const char *const ARCHS[] = { "x86_64", "arm64", NULL };
static const char *const LAYERS[] = { "platform", "model", NULL };
static const char *const STATUSES[] = { "active", "deprecated", "revoked", NULL };
static const char *const PATCH_STATUSES[] = { "ok", "vulnerable", "patch_available", "revoked",
                                              NULL };

/* The {id} of the path, or 0 after replying 404. */
static long long path_id(struct imx_req *r)
{
    unsigned long long v;
    if (imx_parse_uint(imx_req_param(r, "id"), 1, INT64_MAX, &v) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        return 0;
    }
    return (long long)v;
}

/* Replies 200 (or status) with JSON text that malloc made; steals json. */
static void reply_json_text_steal(struct imx_req *r, unsigned status, char *json)
{
    imx_reply_raw_steal(r, status, "application/json", json, strlen(json), NULL, NULL);
}

/* Does an If-None-Match / If-Match value list etag (or "*")? Weak prefixes are ignored. */
static bool etag_listed(const char *header, const char *etag)
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
static json_t *compat_report(const struct imx_ref_snapshot *ref,
                             const struct imx_compat_component *comps, size_t n_comps,
                             const char *const *gpus, size_t n_gpus)
{
    char today[16];
    today_utc(today);
    struct imx_compat_report *rep = malloc(sizeof *rep);
    json_t *doc = NULL;
    if (rep && imx_compat_check_many(ref, comps, n_comps, gpus, n_gpus, today, rep) == 0)
        doc = imx_compat_report_json(rep);
    free(rep);
    return doc;
}

/* ---- POST /v1/compat/check ---- */

static const struct imx_api_field compat_fields[] = {
    { "components", JSON_ARRAY, true },
    { "gpus", JSON_ARRAY, false },
    { NULL, JSON_NULL, false },
};

/* Reads components [{name, version}] (validated) into out. Returns how many. */
static size_t read_components(const json_t *arr, struct imx_compat_component *out, size_t max,
                              json_t *errors, bool check_versions)
{
    size_t i, n = 0;
    json_t *c;
    char ptr[64];
    if (json_array_size(arr) > max) {
        imx_verr(errors, "/components", "at most %zu components", max);
        return 0;
    }
    json_array_foreach(arr, i, c)
    {
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *version = json_string_value(json_object_get(c, "version"));
        snprintf(ptr, sizeof ptr, "/components/%zu", i);
        if (!json_is_object(c) || json_object_size(c) != 2 || !name || !version) {
            imx_verr(errors, ptr, "must be an object with string members name and version");
            continue;
        }
        bool ok = true;
        if (!token_ok(name, LOWER_DIGITS, LOWER_DIGITS "._+-", 64)) {
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
        for (size_t k = 0; ok && k < n; k++) {
            if (strcmp(out[k].name, name) == 0) {
                snprintf(ptr, sizeof ptr, "/components/%zu/name", i);
                imx_verr(errors, ptr, "%s is listed twice", name);
                ok = false;
            }
        }
        if (ok)
            out[n++] = (struct imx_compat_component){ name, version };
    }
    return n;
}

/* Reads an array of distinct strings that pass ok (NULL: 1..64 characters) into out. Returns how
 * many. */
static size_t read_strings(const json_t *arr, const char *field, const char **out, size_t max,
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
    const char *gpus[MANIFEST_MAX_GPUS];
    size_t nc = read_components(json_object_get(body, "components"), comps,
                                IMX_COMPAT_MAX_COMPONENTS, errors, false);
    size_t ng = read_strings(json_object_get(body, "gpus"), "gpus", gpus, MANIFEST_MAX_GPUS, NULL,
                             "a GPU name of 1 to 64 characters", errors);
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The stack has invalid fields");
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
    json_t *doc = compat_report(ref, comps, nc, gpus, ng);
    imx_db_ref_release(ref);
    imx_reply_json_steal(r, 200, doc);
}

/* ---- POST /v1/images ---- */

static const struct imx_api_field manifest_fields[] = {
    { "team", JSON_STRING, true },
    { "family", JSON_STRING, true },
    { "version", JSON_STRING, true },
    { "provider", JSON_STRING, true },
    { "architecture", JSON_STRING, true },
    { "os", JSON_OBJECT, true },
    { "kernel", JSON_STRING, false },
    { "layer", JSON_STRING, true },
    { "artifacts", JSON_ARRAY, true },
    { "components", JSON_ARRAY, true },
    { "gpus", JSON_ARRAY, false },
    { "instance_families", JSON_ARRAY, false },
    { "tags", JSON_ARRAY, false },
    { "boot_seconds", JSON_INTEGER, false },
    { "size_gb", JSON_REAL, false },
    { "parent", JSON_INTEGER, false },
    { "description", JSON_STRING, false },
    { "packages", JSON_ARRAY, false },
    { "sbom", JSON_OBJECT, false },
    { "packages_source", JSON_STRING, false },
    { NULL, JSON_NULL, false },
};

static bool instance_family_ok(const char *s)
{
    return token_ok(s, LOWER_DIGITS, LOWER_DIGITS "-", 32);
}

static bool tag_ok(const char *s)
{
    return token_ok(s, LOWER_DIGITS, LOWER_DIGITS ":._-", 64);
}

/* Everything a publish carries from the handler into its transaction. */
struct publish {
    struct imx_image_new in;
    struct imx_image_component comps[IMX_DBI_MAX_ROWS];
    struct imx_image_artifact arts[IMX_DBI_MAX_ROWS];
    const char *gpus[MANIFEST_MAX_GPUS];
    const char *families[IMX_DBI_MAX_ROWS];
    const char *tags[IMX_DBI_MAX_ROWS];
    const char *team;
    char *report;     /* new JSON text */
    json_t *packages; /* owned: [{ecosystem, name, version, key}] */
};

static const struct imx_api_field package_fields[] = {
    { "name", JSON_STRING, true },
    { "version", JSON_STRING, true },
    { "ecosystem", JSON_STRING, false },
    { NULL, JSON_NULL, false },
};

/* The OS package inventory: "packages" [{name, version, ecosystem}] (ecosystem defaults to the
 * one of the manifest's os, e.g. Ubuntu:24.04:LTS), or "sbom", a CycloneDX or SPDX document
 * whose deb and rpm purls are read. Each version is checked in its ecosystem's order and keyed
 * (imx_pkgver_key). Sets p->packages and p->in.packages. */
static void check_packages(const json_t *body, struct publish *p, json_t *errors)
{
    const json_t *list = json_object_get(body, "packages");
    const json_t *sbom = json_object_get(body, "sbom");
    if (!list && !sbom)
        return;
    if (list && sbom) {
        imx_verr(errors, "/sbom", "give packages or an sbom, not both");
        return;
    }
    char def[IMX_PKG_ECOSYSTEM_MAX + 1] = "";
    const json_t *os = json_object_get(body, "os");
    if (imx_pkg_ecosystem_of_os(json_string_value(json_object_get(os, "name")),
                                json_string_value(json_object_get(os, "version")), def,
                                sizeof def) != 0)
        def[0] = '\0';
    json_t *in = NULL;
    if (sbom) {
        in = imx_sbom_packages(sbom, def[0] ? def : NULL, "/sbom", errors);
        if (!in)
            return;
        p->in.packages_source = imx_sbom_format(sbom);
    } else {
        if (json_array_size(list) == 0 || json_array_size(list) > IMX_SBOM_PACKAGES_MAX) {
            imx_verr(errors, "/packages", "must list 1 to %d packages", IMX_SBOM_PACKAGES_MAX);
            return;
        }
        in = json_incref((json_t *)list);
        const char *src = json_string_value(json_object_get(body, "packages_source"));
        if (src && strcmp(src, "probe") != 0 && strcmp(src, "manifest") != 0) {
            imx_verr(errors, "/packages_source", "must be manifest or probe");
            json_decref(in);
            return;
        }
        p->in.packages_source = src && strcmp(src, "probe") == 0 ? "probe" : "manifest";
    }
    json_t *out = json_array();
    size_t i;
    json_t *e;
    char ptr[64];
    json_array_foreach(in, i, e)
    {
        if (!sbom) {
            snprintf(ptr, sizeof ptr, "/packages/%zu", i);
            if (!json_is_object(e)) {
                imx_verr(errors, ptr, "must be an object {name, version, ecosystem}");
                continue;
            }
            json_t *sub = json_array();
            imx_api_check_fields(e, package_fields, sub);
            size_t k;
            json_t *se;
            json_array_foreach(sub, k, se)
            {
                char sp[128];
                snprintf(sp, sizeof sp, "%s%s", ptr,
                         json_string_value(json_object_get(se, "pointer")));
                imx_verr(errors, sp, "%s", json_string_value(json_object_get(se, "detail")));
            }
            json_decref(sub);
        }
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *version = json_string_value(json_object_get(e, "version"));
        const char *eco = json_string_value(json_object_get(e, "ecosystem"));
        if (!eco)
            eco = def[0] ? def : NULL;
        if (!name || !version)
            continue;
        enum imx_pkg_order order = eco ? imx_pkg_ecosystem_order(eco) : 0;
        char sp[96], key[IMX_PKGVER_KEY_HEX_SIZE];
        if (!order) {
            snprintf(sp, sizeof sp, "/packages/%zu/ecosystem", i);
            imx_verr(errors, sp,
                     eco ? "must be a distro's OSV ecosystem such as Ubuntu:24.04:LTS, Debian:12, "
                           "Rocky Linux:9, AlmaLinux:9 or Amazon Linux 2023"
                         : "is required: imaxe knows no distro ecosystem for this manifest's os");
            continue;
        }
        if (!imx_pkg_name_ok(name)) {
            snprintf(sp, sizeof sp, "/packages/%zu/name", i);
            imx_verr(errors, sp, "must be a package name (1 to 128 of A-Z a-z 0-9 . + _ - ~)");
            continue;
        }
        if (imx_pkgver_key_hex(order, version, key) != 0) {
            snprintf(sp, sizeof sp, "/packages/%zu/version", i);
            imx_verr(errors, sp,
                     order == IMX_PKG_DPKG ? "must be a dpkg version such as 1:2.4.1~rc1-2"
                                           : "must be an rpm version such as 1:3.0.7-27.el9");
            continue;
        }
        json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:s}", "ecosystem", eco, "name",
                                             name, "version", version, "key", key + 2, "order",
                                             order == IMX_PKG_DPKG ? "dpkg" : "rpm"));
    }
    json_decref(in);
    p->packages = out;
    p->in.packages = out;
}

static void check_os(const json_t *os, struct publish *p, json_t *errors)
{
    if (!os)
        return;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)os, key, v)
    {
        if (strcmp(key, "name") != 0 && strcmp(key, "version") != 0) {
            char ptr[300];
            snprintf(ptr, sizeof ptr, "/os/%.200s", key);
            imx_verr(errors, ptr, "unknown field");
        }
    }
    p->in.os_name = json_string_value(json_object_get(os, "name"));
    p->in.os_version = json_string_value(json_object_get(os, "version"));
    if (!token_ok(p->in.os_name, "abcdefghijklmnopqrstuvwxyz", LOWER_DIGITS "-", 32))
        imx_verr(errors, "/os/name", "must be 1 to 32 of a-z, 0-9 and '-', starting with a letter");
    if (!token_ok(p->in.os_version, ALNUM, ALNUM "._-", 32))
        imx_verr(errors, "/os/version", "must be 1 to 32 of A-Z, a-z, 0-9, '.', '_' and '-'");
}

static void check_artifacts(const json_t *arr, struct publish *p, json_t *errors)
{
    size_t i;
    json_t *a;
    char ptr[64];
    if (!arr)
        return;
    if (json_array_size(arr) == 0 || json_array_size(arr) > IMX_DBI_MAX_ROWS) {
        imx_verr(errors, "/artifacts", "must list 1 to %d artifacts", IMX_DBI_MAX_ROWS);
        return;
    }
    json_array_foreach(arr, i, a)
    {
        const char *region = json_string_value(json_object_get(a, "region"));
        const char *id = json_string_value(json_object_get(a, "id"));
        snprintf(ptr, sizeof ptr, "/artifacts/%zu", i);
        if (!json_is_object(a) || json_object_size(a) != 2 || !region || !id) {
            imx_verr(errors, ptr, "must be an object with string members region and id");
            continue;
        }
        bool ok = true;
        if (!token_ok(region, LOWER_DIGITS, LOWER_DIGITS "-", 64)) {
            snprintf(ptr, sizeof ptr, "/artifacts/%zu/region", i);
            imx_verr(errors, ptr, "must be a region such as us-east-1 (a-z, 0-9, '-')");
            ok = false;
        }
        if (strlen(id) < 1 || strlen(id) > 512) {
            snprintf(ptr, sizeof ptr, "/artifacts/%zu/id", i);
            imx_verr(errors, ptr, "must be 1 to 512 characters");
            ok = false;
        }
        for (size_t k = 0; ok && k < p->in.n_artifacts; k++) {
            if (strcmp(p->arts[k].region, region) == 0) {
                snprintf(ptr, sizeof ptr, "/artifacts/%zu/region", i);
                imx_verr(errors, ptr, "%s is listed twice", region);
                ok = false;
            }
        }
        if (ok)
            p->arts[p->in.n_artifacts++] = (struct imx_image_artifact){ region, id };
    }
}

/* Checks the manifest into p; appends every bad field to errors. */
static void check_manifest(json_t *body, struct publish *p, json_t *errors)
{
    /* JSON null stands for "absent" in optional members; integers are fine as sizes. */
    const char *nullable[] = { "parent", "description", "kernel", "boot_seconds", "size_gb" };
    for (size_t i = 0; i < sizeof nullable / sizeof nullable[0]; i++)
        if (json_is_null(json_object_get(body, nullable[i])))
            json_object_del(body, nullable[i]);
    json_t *size = json_object_get(body, "size_gb");
    if (json_is_integer(size))
        json_object_set_new(body, "size_gb", json_real((double)json_integer_value(size)));
    imx_api_check_fields(body, manifest_fields, errors);

    struct imx_image_new *in = &p->in;
    p->team = json_string_value(json_object_get(body, "team"));
    in->family = json_string_value(json_object_get(body, "family"));
    in->version = json_string_value(json_object_get(body, "version"));
    in->provider = json_string_value(json_object_get(body, "provider"));
    in->architecture = json_string_value(json_object_get(body, "architecture"));
    in->kernel = json_string_value(json_object_get(body, "kernel"));
    in->layer = json_string_value(json_object_get(body, "layer"));
    in->description = json_string_value(json_object_get(body, "description"));
    in->boot_seconds = -1;
    in->size_gb = -1;
    if (in->family && !token_ok(in->family, LOWER_DIGITS, LOWER_DIGITS "._-", 100))
        imx_verr(errors, "/family", "must be 1 to 100 of a-z, 0-9, '.', '_' and '-'");
    if (in->version && !token_ok(in->version, ALNUM, ALNUM "._+-", 64))
        imx_verr(errors, "/version", "must be 1 to 64 of A-Z, a-z, 0-9, '.', '_', '+' and '-'");
    if (in->provider && !one_of(in->provider, PROVIDERS))
        imx_verr(errors, "/provider", "must be aws, gcp, azure, onprem or oci-container");
    if (in->architecture && !one_of(in->architecture, ARCHS))
        imx_verr(errors, "/architecture", "must be x86_64 or arm64");
    if (in->layer && !one_of(in->layer, LAYERS))
        imx_verr(errors, "/layer", "must be platform or model");
    if (in->kernel && (strlen(in->kernel) < 1 || strlen(in->kernel) > 64))
        imx_verr(errors, "/kernel", "must be 1 to 64 characters");
    if (in->description && strlen(in->description) > 4000)
        imx_verr(errors, "/description", "must be at most 4000 characters");
    json_t *v = json_object_get(body, "boot_seconds");
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0 || json_integer_value(v) > BOOT_SECONDS_MAX)
            imx_verr(errors, "/boot_seconds", "must be from 0 to %d", BOOT_SECONDS_MAX);
        else
            in->boot_seconds = (int)json_integer_value(v);
    }
    v = json_object_get(body, "size_gb");
    if (json_is_real(v)) {
        if (!(json_real_value(v) >= 0 && json_real_value(v) <= SIZE_GB_MAX))
            imx_verr(errors, "/size_gb", "must be from 0 to %.2f", SIZE_GB_MAX);
        else
            in->size_gb = json_real_value(v);
    }
    v = json_object_get(body, "parent");
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 1)
            imx_verr(errors, "/parent", "must be an image id");
        else
            in->parent_id = json_integer_value(v);
    }
    check_os(json_object_get(body, "os"), p, errors);
    check_artifacts(json_object_get(body, "artifacts"), p, errors);
    in->artifacts = p->arts;

    struct imx_compat_component comps[IMX_DBI_MAX_ROWS];
    size_t nc =
        read_components(json_object_get(body, "components"), comps, IMX_DBI_MAX_ROWS, errors, true);
    for (size_t i = 0; i < nc; i++)
        p->comps[i] = (struct imx_image_component){ comps[i].name, comps[i].version };
    in->components = p->comps;
    in->n_components = nc;
    in->n_gpus = read_strings(json_object_get(body, "gpus"), "gpus", p->gpus, MANIFEST_MAX_GPUS,
                              NULL, "a GPU name of 1 to 64 characters", errors);
    in->gpus = p->gpus;
    in->n_instance_families =
        read_strings(json_object_get(body, "instance_families"), "instance_families", p->families,
                     IMX_DBI_MAX_ROWS, instance_family_ok,
                     "an instance family such as p5 (a-z, 0-9, '-')", errors);
    in->instance_families = p->families;
    in->n_tags = read_strings(json_object_get(body, "tags"), "tags", p->tags, IMX_DBI_MAX_ROWS,
                              tag_ok, "a tag of a-z, 0-9, ':', '.', '_', '-'", errors);
    in->tags = p->tags;
    check_packages(body, p, errors);
}

/* Replies with the stored image (status, with ETag and, for 201, Location). */
static int reply_image(struct imx_req *r, unsigned status, long long id)
{
    char *json, *etag;
    enum imx_db_status rc = imx_db_image_get(r->db, id, &json, &etag);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return -1;
    }
    if (status == 201) {
        char loc[64];
        snprintf(loc, sizeof loc, "/v1/images/%lld", id);
        imx_reply_header(r, "Location", loc);
    }
    imx_reply_header(r, "ETag", etag);
    free(etag);
    reply_json_text_steal(r, status, json);
    return 0;
}

/* The one place an image is published: the publish use case (rows, image.published, patch
 * status, patch.available, request matches: imx_db_images_publish) and the audit entry, in this
 * transaction. */
static int publish_tx(struct imx_req *r, void *cls)
{
    struct publish *p = cls;
    long long id;
    char err[256] = "";
    enum imx_db_status rc = imx_db_image_insert(r->db, &p->in, &id, err, sizeof err);
    if (rc == IMX_DBS_CONFLICT) {
        imx_reply_problem(r, IMX_E_CONFLICT, "%s %s is already published", p->in.family,
                          p->in.version);
        return -1;
    }
    if (rc == IMX_DBS_INVALID) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "The manifest was refused: %s", err);
        return -1;
    }
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return -1;
    }
    char rid[24];
    snprintf(rid, sizeof rid, "%lld", id);
    json_t *detail = json_pack("{s:s, s:s, s:s}", "team", p->team, "family", p->in.family,
                               "version", p->in.version);
    int arc = imx_audit(r, "publish", "image", rid, detail);
    json_decref(detail);
    if (arc != 0)
        return -1;
    return reply_image(r, 201, id);
}

void imx_api_image_publish(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    struct publish *p = calloc(1, sizeof *p);
    if (!p) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    json_t *errors = json_array();
    check_manifest(body, p, errors);
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The manifest has invalid fields");
        errors = NULL;
        goto out;
    }
    int64_t team_id = imx_auth_team(r, p->team, IMX_ROLE_PUBLISHER);
    if (!team_id)
        goto out;
    p->in.team_id = team_id;
    if (p->in.parent_id) {
        enum imx_db_status rc = imx_db_image_exists(r->db, p->in.parent_id);
        if (rc == IMX_DBS_NOT_FOUND) {
            imx_verr(errors, "/parent", "no image has id %lld", p->in.parent_id);
            imx_reply_invalid_steal(r, errors, "The manifest has invalid fields");
            errors = NULL;
            goto out;
        }
        if (rc != IMX_DBS_OK) {
            imx_api_reply_db_status(r, rc);
            goto out;
        }
    }
    char err[256];
    const struct imx_ref_snapshot *ref = imx_db_ref_acquire(r->db, err, sizeof err);
    if (!ref) {
        imx_error("request %s: reference data: %s", r->request_id, err);
        imx_reply_problem(r, IMX_E_DB_UNAVAILABLE, "The reference data cannot be read");
        goto out;
    }
    struct imx_compat_component comps[IMX_DBI_MAX_ROWS];
    for (size_t i = 0; i < p->in.n_components; i++)
        comps[i] = (struct imx_compat_component){ p->comps[i].name, p->comps[i].version };
    json_t *report = compat_report(ref, comps, p->in.n_components, p->gpus, p->in.n_gpus);
    imx_db_ref_release(ref);
    p->report = report ? json_dumps(report, JSON_COMPACT) : NULL;
    json_decref(report);
    if (!p->report) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        goto out;
    }
    p->in.compatibility_json = p->report;
    imx_api_tx(r, publish_tx, p);
out:
    json_decref(errors);
    if (p) {
        free(p->report);
        json_decref(p->packages);
    }
    free(p);
}

/* ---- POST /v1/images:import ---- */

/* Everything an import carries into its transaction. */
struct import {
    struct publish *p;        /* one per manifest, owned */
    struct imx_image_new *in; /* in[i] = p[i].in */
    json_t **docs;            /* the parsed lines, owned */
    size_t *line;             /* line number of manifest i */
    size_t n;
};

static void import_free(struct import *im)
{
    for (size_t i = 0; i < im->n; i++) {
        free(im->p[i].report);
        json_decref(im->p[i].packages);
        json_decref(im->docs[i]);
    }
    free(im->p);
    free(im->in);
    free(im->docs);
    free(im->line);
}

/* Tags every error appended since from with its line number. */
static void errors_at_line(json_t *errors, size_t from, size_t line)
{
    for (size_t k = from; k < json_array_size(errors); k++)
        json_object_set_new(json_array_get(errors, k), "line", json_integer((json_int_t)line));
}

/* Splits the NDJSON body into manifests and checks each as POST /v1/images does; every bad line
 * adds its errors (with "line") to errors. Returns false on an allocation failure. */
static bool import_parse(struct imx_req *r, struct import *im, json_t *errors)
{
    const char *body = r->body ? r->body : "";
    size_t len = r->body_len, lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += body[i] == '\n';
    size_t cap = lines < IMX_DBI_PUBLISH_MAX + 1 ? lines : IMX_DBI_PUBLISH_MAX + 1;
    im->p = calloc(cap, sizeof *im->p);
    im->in = calloc(cap, sizeof *im->in);
    im->docs = calloc(cap, sizeof *im->docs);
    im->line = calloc(cap, sizeof *im->line);
    if (!im->p || !im->in || !im->docs || !im->line)
        return false;
    size_t lineno = 0;
    for (const char *at = body; at < body + len;) {
        const char *nl = memchr(at, '\n', (size_t)(body + len - at));
        const char *end = nl ? nl : body + len;
        lineno++;
        const char *b = at, *e = end;
        at = nl ? nl + 1 : body + len;
        while (b < e && (*b == ' ' || *b == '\t' || *b == '\r'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            e--;
        if (b == e)
            continue; /* blank lines are allowed */
        size_t before = json_array_size(errors);
        if (im->n == IMX_DBI_PUBLISH_MAX) {
            imx_verr(errors, "", "an import takes at most %d manifests", IMX_DBI_PUBLISH_MAX);
            errors_at_line(errors, before, lineno);
            return true;
        }
        json_error_t jerr;
        json_t *doc = json_loadb(b, (size_t)(e - b), JSON_REJECT_DUPLICATES, &jerr);
        if (!json_is_object(doc)) {
            imx_verr(errors, "", doc ? "must be a JSON object" : "is not JSON: %s", jerr.text);
            errors_at_line(errors, before, lineno);
            json_decref(doc);
            continue;
        }
        struct publish *p = &im->p[im->n];
        check_manifest(doc, p, errors);
        for (size_t k = 0; k < im->n && json_array_size(errors) == before; k++) {
            const struct imx_image_new *o = &im->p[k].in;
            if (p->in.family && p->in.version && o->family && o->version &&
                strcmp(o->family, p->in.family) == 0 && strcmp(o->version, p->in.version) == 0)
                imx_verr(errors, "/version", "%s %s is also on line %zu", p->in.family,
                         p->in.version, im->line[k]);
        }
        errors_at_line(errors, before, lineno);
        im->docs[im->n] = doc;
        im->line[im->n] = lineno;
        im->n++;
    }
    if (im->n == 0 && json_array_size(errors) == 0)
        imx_verr(errors, "", "no manifest: send one JSON object per line");
    return true;
}

/* The teams, parents and compatibility reports of every manifest; errors as in import_parse.
 * Returns 0, or -1 after replying (a team the caller may not publish to, the database). */
static int import_resolve(struct imx_req *r, struct import *im, json_t *errors)
{
    char err[256];
    long long *parents = calloc(im->n ? im->n : 1, sizeof *parents);
    bool *missing = calloc(im->n ? im->n : 1, sizeof *missing);
    if (!parents || !missing) {
        free(parents);
        free(missing);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    for (size_t i = 0; i < im->n; i++) {
        struct publish *p = &im->p[i];
        int64_t team_id = 0;
        for (size_t k = 0; k < i && !team_id; k++)
            if (strcmp(im->p[k].team, p->team) == 0)
                team_id = im->p[k].in.team_id;
        if (!team_id && !(team_id = imx_auth_team(r, p->team, IMX_ROLE_PUBLISHER))) {
            free(parents);
            free(missing);
            return -1;
        }
        p->in.team_id = team_id;
        parents[i] = p->in.parent_id;
    }
    /* Every parent in one statement, not one round trip a line. */
    enum imx_db_status prc = imx_db_images_missing(r->db, parents, im->n, missing);
    for (size_t i = 0; prc == IMX_DBS_OK && i < im->n; i++) {
        if (missing[i]) {
            size_t before = json_array_size(errors);
            imx_verr(errors, "/parent", "no image has id %lld", parents[i]);
            errors_at_line(errors, before, im->line[i]);
        }
    }
    free(parents);
    free(missing);
    if (prc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, prc);
        return -1;
    }
    if (json_array_size(errors) > 0)
        return 0;
    const struct imx_ref_snapshot *ref = imx_db_ref_acquire(r->db, err, sizeof err);
    if (!ref) {
        imx_error("request %s: reference data: %s", r->request_id, err);
        imx_reply_problem(r, IMX_E_DB_UNAVAILABLE, "The reference data cannot be read");
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < im->n && rc == 0; i++) {
        struct publish *p = &im->p[i];
        struct imx_compat_component comps[IMX_DBI_MAX_ROWS];
        for (size_t k = 0; k < p->in.n_components; k++)
            comps[k] = (struct imx_compat_component){ p->comps[k].name, p->comps[k].version };
        json_t *report = compat_report(ref, comps, p->in.n_components, p->gpus, p->in.n_gpus);
        p->report = report ? json_dumps(report, JSON_COMPACT) : NULL;
        json_decref(report);
        if (!p->report) {
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
            rc = -1;
        }
        p->in.compatibility_json = p->report;
        im->in[i] = p->in;
    }
    imx_db_ref_release(ref);
    return rc;
}

/* The import's transaction: publish every manifest in one use case (all or nothing), audit,
 * reply (an Idempotency-Key stores the reply in this transaction: api/idempotency.c). */
static int import_tx(struct imx_req *r, void *cls)
{
    struct import *im = cls;
    long long *ids = calloc(im->n, sizeof *ids);
    char err[256] = "";
    if (!ids) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    char *result = NULL;
    enum imx_db_status rc =
        imx_db_images_publish(r->db, im->in, im->n, ids, &result, err, sizeof err);
    if (rc != IMX_DBS_OK) {
        free(ids);
        if (rc == IMX_DBS_CONFLICT)
            imx_reply_problem(r, IMX_E_CONFLICT,
                              "An image of the import was published meanwhile (%s); nothing was "
                              "imported",
                              err);
        else if (rc == IMX_DBS_INVALID)
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "The import was refused: %s", err);
        else
            imx_api_reply_db_status(r, rc);
        return -1;
    }
    json_t *done = json_loads(result, 0, NULL);
    free(result);
    json_t *items = json_array();
    for (size_t i = 0; i < im->n; i++) {
        json_t *compat = json_loads(im->p[i].report, 0, NULL);
        json_t *summary = json_pack("{s:O*, s:O*, s:O*}", "ok", json_object_get(compat, "ok"),
                                    "errors", json_object_get(compat, "errors"), "warnings",
                                    json_object_get(compat, "warnings"));
        json_array_append_new(items, json_pack("{s:I, s:I, s:s, s:s, s:o*}", "line",
                                               (json_int_t)im->line[i], "id", (json_int_t)ids[i],
                                               "family", im->p[i].in.family, "version",
                                               im->p[i].in.version, "compatibility", summary));
        json_decref(compat);
    }
    json_t *reply = json_pack("{s:I, s:o, s:O*}", "imported", (json_int_t)im->n, "images", items,
                              "patch_events", json_object_get(done, "patch_events"));
    json_t *detail = json_pack("{s:I, s:I, s:I}", "count", (json_int_t)im->n, "first_id",
                               (json_int_t)ids[0], "last_id", (json_int_t)ids[im->n - 1]);
    char rid[24];
    snprintf(rid, sizeof rid, "%lld", ids[0]);
    free(ids);
    json_decref(done);
    int arc = imx_audit(r, "import", "image", rid, detail);
    json_decref(detail);
    char *text = reply ? json_dumps(reply, JSON_COMPACT) : NULL;
    json_decref(reply);
    if (arc != 0 || !text) {
        free(text);
        if (arc == 0)
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    imx_reply_raw_steal(r, 201, "application/json", text, strlen(text), NULL, NULL);
    return 0;
}

void imx_api_image_import(struct imx_req *r)
{
    struct import im = { 0 };
    const char *ct = imx_req_header(r, "Content-Type");
    if (!ct || (strncasecmp(ct, "application/x-ndjson", 20) != 0 &&
                strncasecmp(ct, "application/jsonl", 17) != 0)) {
        imx_reply_problem(r, IMX_E_UNSUPPORTED_MEDIA_TYPE,
                          "Send one manifest per line as Content-Type: application/x-ndjson");
        return;
    }
    json_t *errors = json_array();
    if (!errors || !import_parse(r, &im, errors)) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        goto out;
    }
    if (json_array_size(errors) == 0 && import_resolve(r, &im, errors) != 0)
        goto out;
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "Some manifests are invalid; nothing was imported");
        errors = NULL;
        goto out;
    }
    imx_api_tx(r, import_tx, &im);
out:
    json_decref(errors);
    import_free(&im);
}

/* ---- GET /v1/images/{id} ---- */

/* The one ETag an If-None-Match value names (quoted, not weak, no list), for the statement to
 * compare; NULL otherwise (a list or "*" is compared here, after the read). */
static const char *single_etag(const char *inm, char *buf, size_t len)
{
    size_t n = inm ? strlen(inm) : 0;
    if (n < 2 || n >= len || inm[0] != '"' || inm[n - 1] != '"' ||
        strchr(inm + 1, '"') != inm + n - 1)
        return NULL;
    memcpy(buf, inm, n + 1);
    return buf;
}

/* Answers with the stored document d (taken): 304 when it is the one the client holds (the
 * statement left it out, or If-None-Match lists its ETag). */
static void reply_stored(struct imx_req *r, struct imx_db_image_doc *d, const char *inm, bool want)
{
    imx_reply_header(r, "ETag", d->etag);
    if (!d->json || (inm && !want && etag_listed(inm, d->etag))) {
        imx_db_image_doc_free(d);
        imx_reply_empty(r, 304);
    } else {
        imx_reply_raw_steal(r, 200, "application/json", (char *)d->json, d->json_len,
                            imx_db_image_doc_release, d->owner);
    }
}

/* The stored document (migrations/0020_point_reads.sql): one primary-key read, coalesced with
 * the other requests for documents (db/image_docs.c), that also confirms a remembered
 * principal. Returns 1 after replying, 0 when there is no current stored document (the caller
 * builds it from scratch), -1 after replying an error. */
static int image_get_stored(struct imx_req *r, long long id, const char *inm)
{
    char buf[IMX_DBI_ETAG_SIZE + 2];
    const char *want = single_etag(inm, buf, sizeof buf);
    for (int attempt = 0;; attempt++) {
        /* Waiting for the batch holds no connection (one held by each waiter could leave the
         * reader none); a principal checked in full took one. */
        imx_api_db_put(r);
        struct imx_db_image_doc d;
        enum imx_db_status rc = imx_db_image_doc(id, want, &d);
        if (rc != IMX_DBS_OK && rc != IMX_DBS_NOT_FOUND) {
            imx_api_reply_db_status(r, rc);
            return -1;
        }
        int confirmed = imx_auth_confirm(r, d.epoch);
        if (confirmed != 1) {
            imx_db_image_doc_free(&d);
            if (confirmed < 0 || attempt > 0)
                return -1;
            continue;
        }
        if (rc == IMX_DBS_NOT_FOUND)
            return 0;
        reply_stored(r, &d, inm, want != NULL);
        return 1;
    }
}

/* GET /v1/images/{id} on the event thread (the route's fast handler): the same stored document,
 * its read queued without waiting (imx_db_image_doc_start). What needs more than that read, a
 * principal to check again or a document to build, goes to imx_api_image_get on a worker. */
struct get_fast {
    struct imx_db_image_doc_call *call;
    bool want; /* one ETag of the client's went with the read */
};

static void get_fast_free(void *p)
{
    struct get_fast *g = p;
    imx_db_image_doc_call_free(g->call);
    free(g);
}

static enum imx_fast image_get_fast_read(struct imx_req *r)
{
    struct get_fast *g = r->fast_state;
    struct imx_db_image_doc d;
    enum imx_db_status rc = imx_db_image_doc_result(g->call, &d);
    if (rc != IMX_DBS_OK && rc != IMX_DBS_NOT_FOUND) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    /* imx_auth_confirm without a query: the principal stands when the epoch is the one it was
     * remembered at. */
    if (rc == IMX_DBS_NOT_FOUND || r->principal.epoch != d.epoch) {
        imx_db_image_doc_free(&d);
        return IMX_FAST_OFFLOAD;
    }
    imx_auth_confirm(r, d.epoch);
    reply_stored(r, &d, imx_req_header(r, "If-None-Match"), g->want);
    return IMX_FAST_DONE;
}

enum imx_fast imx_api_image_get_fast(struct imx_req *r)
{
    if (!imx_auth_settings.read_cache || !r->principal.cached)
        return IMX_FAST_OFFLOAD;
    long long id = path_id(r);
    if (!id)
        return IMX_FAST_DONE;
    struct get_fast *g = calloc(1, sizeof *g);
    if (!g)
        return IMX_FAST_OFFLOAD;
    char buf[IMX_DBI_ETAG_SIZE + 2];
    const char *want = single_etag(imx_req_header(r, "If-None-Match"), buf, sizeof buf);
    g->want = want != NULL;
    r->fast_state = g;
    r->fast_free = get_fast_free;
    r->resume = image_get_fast_read;
    g->call = imx_db_image_doc_start(id, want, imx_api_wake, r);
    return g->call ? IMX_FAST_PARKED : IMX_FAST_OFFLOAD;
}

void imx_api_image_get(struct imx_req *r)
{
    long long id = path_id(r);
    if (!id)
        return;
    const char *inm = imx_req_header(r, "If-None-Match");
    if (imx_auth_settings.read_cache) {
        int done = image_get_stored(r, id, inm);
        if (done != 0)
            return;
    }
    /* From scratch: the reference the stored documents follow byte for byte. */
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    char *json, *etag;
    enum imx_db_status rc = imx_db_image_get(c, id, &json, &etag);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return;
    }
    imx_reply_header(r, "ETag", etag);
    if (inm && etag_listed(inm, etag)) {
        free(json);
        imx_reply_empty(r, 304);
    } else {
        reply_json_text_steal(r, 200, json);
    }
    free(etag);
}

/* ---- PATCH /v1/images/{id} ---- */

static const struct imx_api_field patch_fields[] = {
    { "status", JSON_STRING, true },     { "reason", JSON_STRING, false },
    { "revoke_at", JSON_STRING, false }, { "cascade", JSON_TRUE, false },
    { NULL, JSON_NULL, false },
};

struct status_patch {
    struct imx_image_status_change change;
    const char *status; /* as asked */
    const char *if_match;
};

/* The one place an image's lifecycle changes: lock, check owner and If-Match, the lifecycle use
 * case (imx_db_image_set_status: rows, with descendants for cascade, one event per image changed,
 * patch state), audit, all in this transaction. */
static int status_tx(struct imx_req *r, void *cls)
{
    struct status_patch *sp = cls;
    long long team_id;
    char etag[IMX_DBI_ETAG_SIZE], now_status[16];
    enum imx_db_status rc = imx_db_image_lock(r->db, sp->change.id, &team_id, etag, now_status);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return -1;
    }
    /* The catalog is readable by all, so another team's image is not hidden: 403, not 404. */
    if (!r->principal.admin && imx_auth_role(r, team_id) < IMX_ROLE_PUBLISHER) {
        imx_reply_problem(r, IMX_E_FORBIDDEN,
                          "Only publishers of the team that owns this image may change it");
        return -1;
    }
    if (!etag_listed(sp->if_match, etag)) {
        imx_reply_header(r, "ETag", etag);
        imx_reply_problem(r, IMX_E_PRECONDITION_FAILED,
                          "The image changed since you read it (ETag %s); read it again", etag);
        return -1;
    }
    char *result = NULL;
    rc = imx_db_image_set_status(r->db, &sp->change, &result);
    if (rc == IMX_DBS_INVALID) {
        json_t *errors = json_array();
        imx_verr(errors, "/revoke_at", "must be an RFC 3339 time");
        imx_reply_invalid_steal(r, errors, "The change has invalid fields");
        return -1;
    }
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return -1;
    }
    char rid[24];
    snprintf(rid, sizeof rid, "%lld", sp->change.id);
    const char *action = strcmp(sp->status, "active") == 0       ? "restore"
                         : strcmp(sp->status, "deprecated") == 0 ? "deprecate"
                         : sp->change.revoke_at                  ? "schedule_revoke"
                                                                 : "revoke";
    json_t *done = json_loads(result, 0, NULL);
    free(result);
    json_t *detail =
        json_pack("{s:s, s:s, s:s?, s:s?, s:b, s:O*}", "from", now_status, "to", sp->status,
                  "reason", sp->change.reason, "revoke_at", sp->change.revoke_at, "cascade",
                  sp->change.cascade, "images", json_object_get(done, "changed"));
    json_decref(done);
    int arc = imx_audit(r, action, "image", rid, detail);
    json_decref(detail);
    if (arc != 0)
        return -1;
    return reply_image(r, 200, sp->change.id);
}

void imx_api_image_patch(struct imx_req *r)
{
    long long id = path_id(r);
    if (!id)
        return;
    struct status_patch sp = { .change = { .id = id } };
    sp.if_match = imx_req_header(r, "If-Match");
    if (!sp.if_match) {
        imx_reply_problem(r, IMX_E_PRECONDITION_REQUIRED,
                          "Send If-Match with the ETag of the image you read");
        return;
    }
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, patch_fields, errors);
    sp.status = json_string_value(json_object_get(body, "status"));
    const char *reason = json_string_value(json_object_get(body, "reason"));
    const char *revoke_at = json_string_value(json_object_get(body, "revoke_at"));
    bool cascade = json_is_true(json_object_get(body, "cascade"));
    bool revoking = sp.status && strcmp(sp.status, "revoked") == 0;
    if (sp.status && !one_of(sp.status, STATUSES))
        imx_verr(errors, "/status", "must be active, deprecated or revoked");
    if (revoking && (!reason || !*reason))
        imx_verr(errors, "/reason", "is required to revoke");
    if (reason && strlen(reason) > 1000)
        imx_verr(errors, "/reason", "must be at most 1000 characters");
    if (revoke_at && !revoking)
        imx_verr(errors, "/revoke_at", "only schedules a revocation (status revoked)");
    if (revoke_at && (strlen(revoke_at) < 10 || strlen(revoke_at) > 40))
        imx_verr(errors, "/revoke_at", "must be an RFC 3339 time");
    if (cascade && !revoking)
        imx_verr(errors, "/cascade", "only applies to a revocation");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The change has invalid fields");
        return;
    }
    json_decref(errors);
    /* A scheduled revocation keeps the current status until revoke_at. */
    sp.change.status = revoking && revoke_at ? NULL : sp.status;
    sp.change.reason = reason && *reason ? reason : NULL;
    sp.change.revoke_at = revoke_at;
    sp.change.cascade = cascade;
    /* A revocation (scheduled or not, with each image a cascade reached) and a deprecation are
     * announced per image; a restore is not an event type. */
    sp.change.event = revoking                               ? "image.revoked"
                      : strcmp(sp.status, "deprecated") == 0 ? "image.deprecated"
                                                             : NULL;
    if (revoke_at) {
        struct imx_db_conn *c = imx_api_db(r);
        if (!c)
            return;
        int future = imx_db_time_is_future(c, revoke_at);
        if (future == -2) {
            imx_reply_problem(r, IMX_E_DB_UNAVAILABLE, "The database is unavailable");
            return;
        }
        if (future != 1) {
            errors = json_array();
            imx_verr(errors, "/revoke_at",
                     future == 0 ? "must be in the future" : "must be an RFC 3339 time");
            imx_reply_invalid_steal(r, errors, "The change has invalid fields");
            return;
        }
    }
    imx_api_tx(r, status_tx, &sp);
}

/* ---- GET /v1/images/{id}/lineage ---- */

/* The lineage page with next_cursor (the next page's key, HMAC-signed) as its last member, and
 * Link rel=next. */
static void reply_lineage(struct imx_req *r, const struct imx_db_lineage *l)
{
    char next[IMX_CURSOR_MAX] = "";
    if (l->next_after > 0) {
        json_t *key = json_pack("[I]", (json_int_t)l->next_after);
        int rc = key ? imx_cursor_encode(key, next, sizeof next) : -1;
        json_decref(key);
        if (rc != 0) {
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
            return;
        }
    }
    struct imx_jbuf b = { 0 };
    imx_jbuf_put(&b, l->doc, l->len);
    /* the cursor is base64url and a dot: a JSON string as it is */
    imx_jbuf_puts(&b, ", \"next_cursor\" : ");
    imx_jbuf_puts(&b, next[0] ? "\"" : "null");
    imx_jbuf_puts(&b, next);
    imx_jbuf_puts(&b, next[0] ? "\"}" : "}");
    if (b.failed) {
        imx_jbuf_free(&b);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    if (next[0])
        imx_api_link_next(r, next);
    imx_reply_raw_steal(r, 200, "application/json", b.p, b.len, NULL, NULL);
}

/* GET /v1/images/{id}/lineage on the event thread (the route's fast handler): the index answers
 * here and the summaries' read is queued without waiting; what the index cannot answer, or a
 * principal to check again, goes to imx_api_image_lineage on a worker. */
static enum imx_fast lineage_fast_read(struct imx_req *r)
{
    struct imx_db_lineage l;
    bool served = false;
    enum imx_db_status rc = imx_db_image_lineage_result(r->fast_state, &l, &served);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    enum imx_fast f = IMX_FAST_OFFLOAD;
    if (served && r->principal.epoch == l.epoch) {
        imx_auth_confirm(r, l.epoch);
        reply_lineage(r, &l);
        f = IMX_FAST_DONE;
    }
    imx_db_lineage_free(&l);
    return f;
}

enum imx_fast imx_api_image_lineage_fast(struct imx_req *r)
{
    if (!imx_auth_settings.read_cache || !r->principal.cached)
        return IMX_FAST_OFFLOAD;
    long long id = path_id(r);
    if (!id)
        return IMX_FAST_DONE;
    unsigned long long limit;
    char after_buf[24];
    const char *after;
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_id(r, after_buf, &after))
        return IMX_FAST_DONE;
    struct imx_db_lineage_call *c = imx_db_image_lineage_start(
        id, after ? strtoll(after, NULL, 10) : 0, (unsigned)limit, imx_api_wake, r);
    if (!c)
        return IMX_FAST_OFFLOAD;
    r->fast_state = c;
    r->fast_free = imx_db_lineage_call_free;
    r->resume = lineage_fast_read;
    return IMX_FAST_PARKED;
}

void imx_api_image_lineage(struct imx_req *r)
{
    long long id = path_id(r);
    if (!id)
        return;
    unsigned long long limit;
    char after_buf[24];
    const char *after;
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_id(r, after_buf, &after))
        return;
    for (int attempt = 0; attempt < 2; attempt++) {
        /* From the search index and the entries' summaries when it can, read with the other
         * lineages waiting (holding no connection meanwhile; a principal checked in full took
         * one); else in SQL. */
        struct imx_db_lineage l;
        bool served = false;
        imx_api_db_put(r);
        enum imx_db_status rc =
            imx_auth_settings.read_cache
                ? imx_db_image_lineage_indexed(NULL, id, after ? strtoll(after, NULL, 10) : 0,
                                               (unsigned)limit, &l, &served)
                : IMX_DBS_OK;
        if (rc == IMX_DBS_OK && !served) {
            struct imx_db_conn *c = imx_api_db(r);
            if (!c)
                return;
            imx_db_image_index_count_lineage_sql();
            rc = imx_db_image_lineage(c, id, after, (unsigned)limit, &l);
        }
        if (rc != IMX_DBS_OK && rc != IMX_DBS_NOT_FOUND) {
            imx_api_reply_db_status(r, rc);
            return;
        }
        int confirmed = imx_auth_confirm(r, l.epoch);
        if (confirmed == 1) {
            if (rc == IMX_DBS_NOT_FOUND)
                imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
            else
                reply_lineage(r, &l);
        }
        imx_db_lineage_free(&l);
        if (confirmed != 0)
            return;
        /* checked again in full: read again */
    }
    imx_reply_problem(r, IMX_E_INTERNAL, NULL); /* a principal checked in full confirms at once */
}

/* ---- component=NAME:CONSTRAINT (search and resolve) ---- */

struct constraint_args {
    struct imx_image_constraint list[IMX_DBI_MAX_CONSTRAINTS];
    char names[IMX_DBI_MAX_CONSTRAINTS][65];
    size_t n;
    char problem[IMX_CONSTRAINT_ERR_SIZE + 400]; /* the first bad one, "" when none */
};

static void constraint_arg(void *cls, const char *value)
{
    struct constraint_args *ca = cls;
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
    if (!token_ok(ca->names[ca->n], LOWER_DIGITS, LOWER_DIGITS "._+-", 64)) {
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
/* package=NAME:CONSTRAINT filters (repeatable): the constraint read in both orders, dpkg and
 * rpm; one that parses in neither is refused. */
struct package_args {
    struct imx_image_package_filter list[IMX_DBI_MAX_PACKAGE_FILTERS];
    char names[IMX_DBI_MAX_PACKAGE_FILTERS][IMX_PKG_NAME_MAX + 1];
    size_t n;
    char problem[600];
};

static void package_arg(void *cls, const char *value)
{
    struct package_args *pa = cls;
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

static int read_constraints(struct imx_req *r, struct constraint_args *ca)
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

/* ---- GET /v1/images ---- */

struct tag_args {
    const char *list[IMX_DBI_MAX_TAGS];
    size_t n;
    bool too_many;
};

static void tag_arg(void *cls, const char *value)
{
    struct tag_args *t = cls;
    if (t->n == IMX_DBI_MAX_TAGS)
        t->too_many = true;
    else
        t->list[t->n++] = value;
}

/* An optional enum query argument: NULL or one of set; else replies 400 and returns false. */
static bool enum_arg(struct imx_req *r, const char *name, const char *const *set,
                     const char *allowed)
{
    const char *v = imx_req_query(r, name);
    if (v && !one_of(v, set)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "%s must be %s", name, allowed);
        return false;
    }
    return true;
}

/* Rebuilds the page from the database ({"items" : [...], "next_cursor" : "raw"|null}) with the
 * raw key sealed into an opaque cursor and, when facets is not NULL, a facets member. Returns new
 * text, or NULL. */
static char *page_with_cursor(struct imx_req *r, const char *page, const char *facets)
{
    /* next_cursor is the last member and its raw value has no quotes or escapes, so the last
     * "next_cursor" in the text is that member (inside strings quotes are escaped). */
    const char *member = NULL;
    for (const char *p = page; (p = strstr(p, "\"next_cursor\"")) != NULL; p++)
        member = p;
    if (!member)
        return NULL;
    const char *v = strchr(member + 13, '"');
    char sealed[IMX_CURSOR_MAX] = "";
    if (v && strchr(member + 13, ':') < v) {
        const char *end = strchr(v + 1, '"');
        if (!end || end - v > 256)
            return NULL;
        char raw[260];
        memcpy(raw, v + 1, (size_t)(end - v - 1));
        raw[end - v - 1] = '\0';
        json_t *key = json_string(raw);
        int rc = imx_cursor_encode(key, sealed, sizeof sealed);
        json_decref(key);
        if (rc != 0)
            return NULL;
        imx_api_link_next(r, sealed);
    }
    size_t head = (size_t)(member - page);
    size_t len = head + strlen(sealed) + (facets ? strlen(facets) : 0) + 64;
    char *out = malloc(len);
    if (!out)
        return NULL;
    memcpy(out, page, head);
    if (sealed[0])
        snprintf(out + head, len - head, "\"next_cursor\":\"%s\"%s%s}", sealed,
                 facets ? ",\"facets\":" : "", facets ? facets : "");
    else
        snprintf(out + head, len - head, "\"next_cursor\":null%s%s}", facets ? ",\"facets\":" : "",
                 facets ? facets : "");
    return out;
}

/* A search's filters, kept for its export's pages. The strings are the request's query
 * arguments, which live until the response is done, as the export does. */
struct search_export {
    struct imx_image_search s;
    struct constraint_args *ca; /* owned */
    const char *tags[IMX_DBI_MAX_TAGS];
};

static void search_export_free(void *cls)
{
    struct search_export *x = cls;
    free(x->ca);
    free(x);
}

/* One page of the search after the raw cursor after (from the index when it can, as the list). */
static int search_page(struct imx_db_conn *c, const void *cls, const char *after, const char *limit,
                       char **doc, char **next_key)
{
    const struct search_export *x = cls;
    struct imx_image_search s = x->s;
    s.cursor = after;
    s.limit = atoi(limit) < IMX_DBI_MAX_LIMIT ? atoi(limit) : IMX_DBI_MAX_LIMIT;
    char *page = NULL, *facets = NULL;
    bool served;
    long long epoch; /* the principal was confirmed before the export began */
    enum imx_db_status rc =
        imx_db_image_search_indexed(c, &s, false, &page, &facets, &served, &epoch);
    if (rc == IMX_DBS_OK && !served)
        rc = imx_db_image_search(c, &s, &page);
    free(facets);
    *doc = *next_key = NULL;
    json_t *j = rc == IMX_DBS_OK && page ? json_loads(page, 0, NULL) : NULL;
    const char *next = json_string_value(json_object_get(j, "next_cursor"));
    if (j) {
        *doc = page;
        page = NULL;
        *next_key = next ? strdup(next) : NULL;
    }
    bool ok = j && (!next || *next_key);
    json_decref(j);
    free(page);
    return ok ? 0 : -1;
}

static const char *const search_columns[] = {
    "id",         "family",     "version", "provider",     "architecture", "os.name",
    "os.version", "layer",      "status",  "patch_status", "published_at", "boot_seconds",
    "size_gb",    "components", "gpus",    "regions",      "tags",         NULL,
};

void imx_api_image_search(struct imx_req *r)
{
    struct imx_image_search s = {
        .q = imx_req_query(r, "q"),
        .family = imx_req_query(r, "family"),
        .provider = imx_req_query(r, "provider"),
        .region = imx_req_query(r, "region"),
        .arch = imx_req_query(r, "arch"),
        .os = imx_req_query(r, "os"),
        .gpu = imx_req_query(r, "gpu"),
        .status = imx_req_query(r, "status"),
        .layer = imx_req_query(r, "layer"),
        .patch_status = imx_req_query(r, "patch_status"),
        .os_patch_status = imx_req_query(r, "os_patch_status"),
        .limit = SEARCH_LIMIT_DEFAULT,
    };
    static const char *const OS_PATCH_STATUSES[] = { "ok",      "vulnerable", "patch_available",
                                                     "revoked", "unknown",    NULL };
    static const char *const SEARCH_STATUSES[] = { "active", "deprecated", "revoked", "any", NULL };
    if (!enum_arg(r, "provider", PROVIDERS, "aws, gcp, azure, onprem or oci-container") ||
        !enum_arg(r, "arch", ARCHS, "x86_64 or arm64") ||
        !enum_arg(r, "status", SEARCH_STATUSES, "active, deprecated, revoked or any") ||
        !enum_arg(r, "layer", LAYERS, "platform or model") ||
        !enum_arg(r, "patch_status", PATCH_STATUSES,
                  "ok, vulnerable, patch_available or revoked") ||
        !enum_arg(r, "os_patch_status", OS_PATCH_STATUSES,
                  "ok, vulnerable, patch_available, revoked or unknown"))
        return;
    if (imx_image_sort_parse(imx_req_query(r, "sort"), &s.sort) != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          "sort must be -published_at, family, boot_seconds or size_gb");
        return;
    }
    const char *limit = imx_req_query(r, "limit");
    unsigned long long lv;
    if (limit) {
        if (imx_parse_uint(limit, 1, IMX_DBI_MAX_LIMIT, &lv) != 0) {
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "limit must be from 1 to %d",
                              IMX_DBI_MAX_LIMIT);
            return;
        }
        s.limit = (int)lv;
    }
    if (s.os && (strlen(s.os) > 64 || s.os[0] == ':' || strchr(s.os, ':') != strrchr(s.os, ':'))) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "os must be NAME or NAME:VERSION (ubuntu:24.04)");
        return;
    }
    if (s.q && strlen(s.q) > 200) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "q must be at most 200 characters");
        return;
    }
    const char *facets_arg = imx_req_query(r, "facets");
    if (facets_arg && strcmp(facets_arg, "true") != 0 && strcmp(facets_arg, "false") != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "facets must be true or false");
        return;
    }
    struct tag_args tags = { .n = 0 };
    imx_req_query_each(r, "tag", tag_arg, &tags);
    if (tags.too_many) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "tag: at most %d tags", IMX_DBI_MAX_TAGS);
        return;
    }
    s.tags = tags.list;
    s.n_tags = tags.n;
    struct constraint_args *ca = malloc(sizeof *ca);
    struct package_args *pa = malloc(sizeof *pa);
    char *page = NULL, *facets = NULL, *out = NULL;
    json_t *key = NULL;
    if (!ca || !pa) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        goto done;
    }
    if (read_constraints(r, ca) != 0)
        goto done;
    s.constraints = ca->list;
    s.n_constraints = ca->n;
    pa->n = 0;
    pa->problem[0] = '\0';
    imx_req_query_each(r, "package", package_arg, pa);
    if (pa->problem[0]) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "%s", pa->problem);
        goto done;
    }
    s.packages = pa->list;
    s.n_packages = pa->n;
    const char *cursor = imx_req_query(r, "cursor");
    if (cursor) {
        key = imx_cursor_decode(cursor);
        if (!json_is_string(key)) {
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "The cursor is not one this server made");
            goto done;
        }
        s.cursor = json_string_value(key);
    }
    enum imx_export_format format = imx_api_export_format(r);
    if (format != IMX_EXPORT_NONE) {
        /* Pages are read on connections of their own: a remembered principal is confirmed
         * first. */
        if (imx_auth_confirm_now(r) < 0)
            goto done;
        /* The whole result, streamed; the search index or SQL answers each page as a list. */
        struct search_export *x = calloc(1, sizeof *x);
        if (!x) {
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
            goto done;
        }
        x->s = s;
        x->ca = ca;
        ca = NULL;
        x->s.constraints = x->ca->list;
        memcpy(x->tags, tags.list, sizeof x->tags);
        x->s.tags = x->tags;
        x->s.cursor = NULL;
        imx_api_export_doc_steal(r, format, search_columns, search_page, "items", x,
                                 search_export_free);
        goto done;
    }
    /* A remembered principal is confirmed on the primary (a read replica's epoch may lag). */
    struct imx_db_conn *c = r->principal.cached ? imx_api_db(r) : imx_api_db_read(r);
    if (!c)
        goto done;
    bool want_facets = facets_arg && strcmp(facets_arg, "true") == 0, served;
    long long epoch = 0;
    enum imx_db_status rc =
        imx_db_image_search_indexed(c, &s, want_facets, &page, &facets, &served, &epoch);
    if (rc == IMX_DBS_OK && served) {
        int confirmed = imx_auth_confirm(r, epoch);
        if (confirmed < 0)
            goto done;
        if (confirmed == 0) { /* read for the principal as it was: SQL answers for it as it is */
            free(page);
            free(facets);
            page = facets = NULL;
            served = false;
        }
    }
    if (rc == IMX_DBS_OK && !served) {
        if (imx_auth_confirm_now(r) < 0)
            goto done;
        imx_db_image_index_count_sql();
        rc = imx_db_image_search(c, &s, &page);
    }
    if (rc == IMX_DBS_OK && !served && want_facets)
        rc = imx_db_image_facets(c, &s, &facets);
    if (rc == IMX_DBS_INVALID) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          cursor ? "The cursor belongs to another sort or search"
                                 : "A filter value was refused");
        goto done;
    }
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        goto done;
    }
    out = page_with_cursor(r, page, facets);
    if (!out)
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    else
        reply_json_text_steal(r, 200, out);
done:
    json_decref(key);
    free(page);
    free(facets);
    free(ca);
    free(pa);
}

/* ---- GET /v1/images/resolve ---- */

#define PIN_ARG_MAX 200 /* TEAM/NAME: a team slug and a pin name */

/* Replies 200 {"pin":PIN,"image":IMAGE,"artifact_id":ARTIFACT} (without pin when NULL): image is
 * PostgreSQL's JSON text of an object (printed here as jansson prints it), pin and artifact JSON
 * text already printed so. */
static void reply_resolved(struct imx_req *r, const struct imx_jspan *pin, struct imx_jspan image,
                           struct imx_jspan artifact)
{
    struct imx_jbuf b = { 0 };
    if (pin) {
        imx_jbuf_puts(&b, "{\"pin\":");
        imx_jbuf_put(&b, pin->p, pin->n);
        imx_jbuf_puts(&b, ",\"image\":");
    } else {
        imx_jbuf_puts(&b, "{\"image\":");
    }
    size_t at = b.len;
    bool ok = imx_json_put_norm(&b, image.p, image.n) && b.p[at] == '{';
    imx_jbuf_puts(&b, ",\"artifact_id\":");
    imx_jbuf_put(&b, artifact.p, artifact.n);
    if (!ok || !imx_jbuf_put(&b, "}", 1)) {
        imx_jbuf_free(&b);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_reply_raw_steal(r, 200, "application/json", b.p, b.len, NULL, NULL);
}

/* Replies from the pin resolve's document {pin, image, artifact_id, emptied_by} (PostgreSQL's
 * text, len bytes), copied as text; team and name are pin's parts. */
static void reply_pin_resolution(struct imx_req *r, const char *text, size_t len, const char *pin,
                                 const char *team, const char *name, const char *region)
{
    struct imx_jbuf doc = { 0 };
    struct imx_jspan d = { 0 }, p, image, artifact, by = { "null", 4 };
    if (imx_json_put_norm(&doc, text, len))
        d = (struct imx_jspan){ doc.p, doc.len };
    imx_json_member(d, "emptied_by", &by);
    if (imx_json_member(d, "image", &image) && image.p[0] == '{') {
        if (imx_json_member(d, "pin", &p) && imx_json_member(d, "artifact_id", &artifact))
            reply_resolved(r, &p, image, artifact);
        else
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    } else if (by.p[0] != '"') {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    } else if (by.n == 5 && memcmp(by.p, "\"pin\"", 5) == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "pin: team %s has no pin %s", team, name);
    } else if (by.n == 8 && memcmp(by.p, "\"status\"", 8) == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "status: the image pin %s points at is revoked", pin);
    } else {
        imx_reply_problem(r, IMX_E_NOT_FOUND,
                          "region: the image pin %s points at has no artifact in %s", pin, region);
    }
    imx_jbuf_free(&doc);
}

struct resolve_args {
    const char *team, *name, *region;
};

static int read_resolution(struct imx_db_conn *c, const char *user_id, void *cls,
                           struct imx_db_team_read *out)
{
    const struct resolve_args *a = cls;
    return imx_db_pin_resolve_by_slug(c, a->team, user_id, a->name, a->region, out);
}

/* The team, the caller's role in it, the auth epoch and the resolve read by a statement shared
 * with the other pin resolves waiting (db/read_batch.c), then checked as imx_auth_team_with
 * checks its own statement's. */
static void resolve_pin_batched(struct imx_req *r, const char *pin, const char *team,
                                const char *name, const char *region)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        /* Waiting for the batch holds no connection (one held by each waiter could leave the
         * reader none); a principal checked in full took one. */
        imx_api_db_put(r);
        char uid[24];
        snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
        struct imx_db_pin_resolved p;
        enum imx_db_status rc = imx_db_pin_resolve_batched(team, uid, name, region, &p);
        if (rc != IMX_DBS_OK) {
            imx_api_reply_db_status(r, rc);
            return;
        }
        int confirmed = imx_auth_confirm(r, p.epoch);
        if (confirmed == 1 && imx_auth_team_read(r, team, p.team_id, p.role, IMX_ROLE_VIEWER)) {
            if (p.doc)
                reply_pin_resolution(r, p.doc, p.doc_len, pin, team, name, region);
            else
                imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        }
        imx_db_pin_resolved_free(&p);
        if (confirmed != 0)
            return;
        /* checked again in full: the answer was read for the principal as it was */
    }
    imx_reply_problem(r, IMX_E_INTERNAL, NULL); /* a principal checked in full confirms at once */
}

/* GET /v1/images/resolve?pin=TEAM/NAME&region=R: the pinned image's artifact, for callers who may
 * read TEAM (404 for everyone else, as for any team-owned object); never a revoked image. */
static void resolve_pin(struct imx_req *r, const char *pin, const char *region)
{
    char team[PIN_ARG_MAX + 1], tid[24];
    const char *slash = strchr(pin, '/');
    size_t tl = slash ? (size_t)(slash - pin) : 0;
    if (!slash || tl == 0 || tl > PIN_ARG_MAX || !slash[1] || strlen(slash + 1) > 63 ||
        strchr(slash + 1, '/')) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "pin must be TEAM/NAME, such as ml/prod-training");
        return;
    }
    memcpy(team, pin, tl);
    team[tl] = '\0';
    /* Text PostgreSQL would refuse goes alone: in a shared statement it would fail the others. */
    if (imx_auth_settings.read_cache && !imx_db_has_read_pool() &&
        imx_utf8_valid((const unsigned char *)pin, strlen(pin)) &&
        imx_utf8_valid((const unsigned char *)region, strlen(region))) {
        resolve_pin_batched(r, pin, team, slash + 1, region);
        return;
    }
    if (!imx_db_has_read_pool()) {
        /* The team, the caller's role in it, the auth epoch and the resolve in one statement. */
        struct resolve_args a = { team, slash + 1, region };
        struct imx_db_team_read t;
        if (!imx_auth_team_with(r, team, IMX_ROLE_VIEWER, read_resolution, &a, &t))
            return;
        size_t len = 0;
        const char *doc = imx_db_pin_resolution(&t, &len);
        if (doc)
            reply_pin_resolution(r, doc, len, pin, team, slash + 1, region);
        else
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        imx_db_team_read_free(&t);
        return;
    }
    /* With a read replica the team check reads the primary (a lagging replica's auth epoch could
     * let a token just revoked through) and the resolve the replica: two statements. */
    int64_t team_id = imx_auth_team(r, team, IMX_ROLE_VIEWER); /* confirms the principal */
    if (!team_id)
        return;
    snprintf(tid, sizeof tid, "%lld", (long long)team_id);
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    char *doc;
    enum imx_db_status rc = imx_db_pin_resolve(c, tid, slash + 1, region, &doc);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return;
    }
    reply_pin_resolution(r, doc, strlen(doc), pin, team, slash + 1, region);
    free(doc);
}

/* Answers with the image the index found (its summary) and its artifact id. */
static void reply_resolved_family(struct imx_req *r, const char *summary, const char *artifact)
{
    struct imx_jspan image = { summary, strlen(summary) };
    struct imx_jbuf art = { 0 };
    if (artifact && imx_json_put_string(&art, artifact))
        reply_resolved(r, NULL, image, (struct imx_jspan){ art.p, art.len });
    else
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    imx_jbuf_free(&art);
}

void imx_api_image_resolve(struct imx_req *r)
{
    const char *pin = imx_req_query(r, "pin");
    if (pin) {
        const char *region = imx_req_query(r, "region");
        if (imx_req_query(r, "family") || imx_req_query(r, "arch") ||
            imx_req_query(r, "component")) {
            imx_reply_problem(r, IMX_E_BAD_REQUEST,
                              "pin resolves on its own: send pin and region only");
        } else if (!*pin || !region || !*region) {
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "pin and region are required");
        } else {
            resolve_pin(r, pin, region);
        }
        return;
    }
    struct imx_image_resolve q = {
        .family = imx_req_query(r, "family"),
        .region = imx_req_query(r, "region"),
        .arch = imx_req_query(r, "arch"),
    };
    if (!q.family || !*q.family || !q.region || !*q.region) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "family (or pin) and region are required");
        return;
    }
    if (!enum_arg(r, "arch", ARCHS, "x86_64 or arm64"))
        return;
    struct constraint_args *ca = malloc(sizeof *ca);
    if (!ca) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    char *text = NULL;
    json_t *doc = NULL;
    if (read_constraints(r, ca) != 0)
        goto done;
    q.constraints = ca->list;
    q.n_constraints = ca->n;
    /* The in-memory index finds the image (a statement shared with the other resolves waiting
     * reads it, its artifact and the epoch; waiting holds no connection, and a principal checked
     * in full took one); the SQL resolve answers when the index cannot, and says which filter
     * emptied the set. */
    char *summary = NULL, *artifact = NULL;
    long long epoch = 0;
    bool served = false;
    imx_api_db_put(r);
    enum imx_db_status rc =
        imx_auth_settings.read_cache
            ? imx_db_image_resolve_indexed(&q, &summary, &artifact, &epoch, &served)
            : IMX_DBS_OK;
    if (rc == IMX_DBS_OK && served) {
        int confirmed = imx_auth_confirm(r, epoch);
        if (confirmed == 1)
            reply_resolved_family(r, summary, artifact);
        free(summary);
        free(artifact);
        if (confirmed != 0)
            goto done;
    }
    struct imx_db_conn *c = rc == IMX_DBS_OK ? imx_api_db(r) : NULL;
    if (rc == IMX_DBS_OK && !c)
        goto done;
    if (rc == IMX_DBS_OK && imx_auth_confirm_now(r) < 0)
        goto done;
    if (rc == IMX_DBS_OK)
        rc = imx_db_image_resolve(c, &q, &text);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        goto done;
    }
    doc = json_loads(text, 0, NULL);
    json_t *image = json_object_get(doc, "image");
    if (json_is_object(image)) {
        imx_reply_json_steal(r, 200,
                             json_pack("{s:O, s:O}", "image", image, "artifact_id",
                                       json_object_get(doc, "artifact_id")));
        goto done;
    }
    const char *by = json_string_value(json_object_get(doc, "emptied_by"));
    json_t *cons = json_object_get(doc, "constraint");
    if (!by) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    } else if (strcmp(by, "family") == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "family: no image of family %s", q.family);
    } else if (strcmp(by, "status") == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND,
                          "status: family %s has no active image that is not revoked", q.family);
    } else if (strcmp(by, "region") == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "region: no active image of %s has an artifact in %s",
                          q.family, q.region);
    } else if (strcmp(by, "arch") == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "arch: no active image of %s in %s is %s", q.family,
                          q.region, q.arch);
    } else {
        imx_reply_problem(
            r, IMX_E_NOT_FOUND, "component=%s:%s: no active image of %s in %s satisfies it",
            json_string_value(json_object_get(cons, "name")),
            json_string_value(json_object_get(cons, "constraint")), q.family, q.region);
    }
done:
    json_decref(doc);
    free(text);
    free(ca);
}

/* The fast handler (struct imx_route, fast) of a resolve by family: the index finds the image on
 * the event thread and its read is queued without waiting. Anything else (a pin, an argument to
 * refuse, what the index cannot answer, a principal to check again) goes to imx_api_image_resolve
 * on a worker. */
static enum imx_fast resolve_fast_read(struct imx_req *r)
{
    char *summary = NULL, *artifact = NULL;
    long long epoch = 0;
    bool served = false;
    enum imx_db_status rc =
        imx_db_image_resolve_result(r->fast_state, &summary, &artifact, &epoch, &served);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    enum imx_fast f = IMX_FAST_OFFLOAD;
    if (served && r->principal.epoch == epoch) {
        imx_auth_confirm(r, epoch);
        reply_resolved_family(r, summary, artifact);
        f = IMX_FAST_DONE;
    }
    free(summary);
    free(artifact);
    return f;
}

/* A resolve by pin on the event thread: the statement imx_db_pin_resolve_batched reads, queued
 * without waiting. */
struct resolve_pin_fast {
    struct imx_db_texts_call *call;
    char team[PIN_ARG_MAX + 1];
};

static void resolve_pin_fast_free(void *p)
{
    struct resolve_pin_fast *f = p;
    imx_db_pin_call_free(f->call);
    free(f);
}

static enum imx_fast resolve_pin_fast_read(struct imx_req *r)
{
    struct resolve_pin_fast *f = r->fast_state;
    struct imx_db_pin_resolved p;
    enum imx_db_status rc = imx_db_pin_resolve_result(f->call, &p);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    if (r->principal.epoch != p.epoch) {
        imx_db_pin_resolved_free(&p);
        return IMX_FAST_OFFLOAD;
    }
    imx_auth_confirm(r, p.epoch);
    if (imx_auth_team_read(r, f->team, p.team_id, p.role, IMX_ROLE_VIEWER)) {
        const char *pin = imx_req_query(r, "pin");
        if (p.doc)
            reply_pin_resolution(r, p.doc, p.doc_len, pin, f->team, strchr(pin, '/') + 1,
                                 imx_req_query(r, "region"));
        else
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    }
    imx_db_pin_resolved_free(&p);
    return IMX_FAST_DONE;
}

static enum imx_fast resolve_pin_fast(struct imx_req *r, const char *pin)
{
    const char *region = imx_req_query(r, "region");
    const char *slash = strchr(pin, '/');
    size_t tl = slash ? (size_t)(slash - pin) : 0;
    /* What resolve_pin would refuse, or read otherwise, it answers itself. */
    if (imx_req_query(r, "family") || imx_req_query(r, "arch") || imx_req_query(r, "component") ||
        !region || !*region || !slash || tl == 0 || tl > PIN_ARG_MAX || !slash[1] ||
        strlen(slash + 1) > 63 || strchr(slash + 1, '/') || imx_db_has_read_pool() ||
        !imx_utf8_valid((const unsigned char *)pin, strlen(pin)) ||
        !imx_utf8_valid((const unsigned char *)region, strlen(region)))
        return IMX_FAST_OFFLOAD;
    struct resolve_pin_fast *f = calloc(1, sizeof *f);
    if (!f)
        return IMX_FAST_OFFLOAD;
    memcpy(f->team, pin, tl);
    r->fast_state = f;
    r->fast_free = resolve_pin_fast_free;
    r->resume = resolve_pin_fast_read;
    char uid[24];
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    f->call = imx_db_pin_resolve_start(f->team, uid, slash + 1, region, imx_api_wake, r);
    return f->call ? IMX_FAST_PARKED : IMX_FAST_OFFLOAD;
}

enum imx_fast imx_api_image_resolve_fast(struct imx_req *r)
{
    struct imx_image_resolve q = {
        .family = imx_req_query(r, "family"),
        .region = imx_req_query(r, "region"),
        .arch = imx_req_query(r, "arch"),
    };
    if (!imx_auth_settings.read_cache || !r->principal.cached)
        return IMX_FAST_OFFLOAD;
    const char *pin = imx_req_query(r, "pin");
    if (pin)
        return resolve_pin_fast(r, pin);
    if (!q.family || !*q.family || !q.region || !*q.region || (q.arch && !one_of(q.arch, ARCHS)))
        return IMX_FAST_OFFLOAD;
    struct constraint_args *ca = malloc(sizeof *ca);
    if (!ca)
        return IMX_FAST_OFFLOAD;
    enum imx_fast f = IMX_FAST_DONE;
    if (read_constraints(r, ca) == 0) {
        q.constraints = ca->list;
        q.n_constraints = ca->n;
        struct imx_db_resolve_call *c = imx_db_image_resolve_start(&q, imx_api_wake, r);
        if (c) {
            r->fast_state = c;
            r->fast_free = imx_db_resolve_call_free;
            r->resume = resolve_fast_read;
        }
        f = c ? IMX_FAST_PARKED : IMX_FAST_OFFLOAD;
    }
    free(ca);
    return f;
}
