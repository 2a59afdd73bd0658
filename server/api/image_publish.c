/* Publishing images: POST /v1/images (one manifest) and POST /v1/images:import (many). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "api/api.h"
#include "util/budget.h"
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
    return imx_img_token_ok(s, LOWER_DIGITS, LOWER_DIGITS "-", 32);
}

static bool tag_ok(const char *s)
{
    return imx_img_token_ok(s, LOWER_DIGITS, LOWER_DIGITS ":._-", 64);
}

/* Everything a publish carries from the handler into its transaction. */
struct publish {
    struct imx_image_new in;
    struct imx_image_component comps[IMX_DBI_MAX_ROWS];
    struct imx_compat_served served[IMX_DBI_MAX_ROWS]; /* the GPUs each component entry serves */
    struct imx_image_served comp_gpus[IMX_DBI_MAX_ROWS];
    struct imx_image_artifact arts[IMX_DBI_MAX_ROWS];
    const char *gpus[MANIFEST_MAX_GPUS];
    const char *entry_gpus[IMX_IMG_ENTRY_GPUS_MAX]; /* of components listed more than once */
    size_t rule_errors; /* errors that break the rules of such entries (422) */
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
    if (!imx_img_token_ok(p->in.os_name, "abcdefghijklmnopqrstuvwxyz", LOWER_DIGITS "-", 32))
        imx_verr(errors, "/os/name", "must be 1 to 32 of a-z, 0-9 and '-', starting with a letter");
    if (!imx_img_token_ok(p->in.os_version, ALNUM, ALNUM "._-", 32))
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
        if (!imx_img_token_ok(region, LOWER_DIGITS, LOWER_DIGITS "-", 64)) {
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
    if (in->family && !imx_img_token_ok(in->family, LOWER_DIGITS, LOWER_DIGITS "._-", 100))
        imx_verr(errors, "/family", "must be 1 to 100 of a-z, 0-9, '.', '_' and '-'");
    if (in->version && !imx_img_token_ok(in->version, ALNUM, ALNUM "._+-", 64))
        imx_verr(errors, "/version", "must be 1 to 64 of A-Z, a-z, 0-9, '.', '_', '+' and '-'");
    if (in->provider && !imx_img_one_of(in->provider, imx_img_providers))
        imx_verr(errors, "/provider", "must be aws, gcp, azure, onprem or oci-container");
    if (in->architecture && !imx_img_one_of(in->architecture, imx_img_archs))
        imx_verr(errors, "/architecture", "must be x86_64 or arm64");
    if (in->layer && !imx_img_one_of(in->layer, imx_img_layers))
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
    size_t nc = imx_img_read_components(json_object_get(body, "components"), comps, p->served,
                                        IMX_DBI_MAX_ROWS, errors, true, p->entry_gpus,
                                        IMX_IMG_ENTRY_GPUS_MAX, &p->rule_errors);
    for (size_t i = 0; i < nc; i++) {
        p->comps[i] = (struct imx_image_component){ comps[i].name, comps[i].version };
        p->comp_gpus[i] = (struct imx_image_served){ p->served[i].gpus, p->served[i].n_gpus };
    }
    in->components = p->comps;
    in->component_gpus = p->comp_gpus;
    in->n_components = nc;
    in->n_gpus =
        imx_img_read_strings(json_object_get(body, "gpus"), "gpus", p->gpus, MANIFEST_MAX_GPUS,
                             NULL, "a GPU name of 1 to 64 characters", errors);
    in->gpus = p->gpus;
    p->rule_errors += imx_img_check_entries(comps, p->served, nc, p->gpus, in->n_gpus, errors);
    in->n_instance_families =
        imx_img_read_strings(json_object_get(body, "instance_families"), "instance_families",
                             p->families, IMX_DBI_MAX_ROWS, instance_family_ok,
                             "an instance family such as p5 (a-z, 0-9, '-')", errors);
    in->instance_families = p->families;
    in->n_tags =
        imx_img_read_strings(json_object_get(body, "tags"), "tags", p->tags, IMX_DBI_MAX_ROWS,
                             tag_ok, "a tag of a-z, 0-9, ':', '.', '_', '-'", errors);
    in->tags = p->tags;
    check_packages(body, p, errors);
}

/* Replies with the stored image (status, with ETag and, for 201, Location). */
int imx_img_reply_image(struct imx_req *r, unsigned status, long long id)
{
    char *json, *etag;
    enum imx_db_status rc = imx_db_image_get(imx_api_conn(r), id, &json, &etag, NULL);
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
    imx_img_reply_json_text_steal(r, status, json);
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
    enum imx_db_status rc =
        imx_db_image_insert(imx_api_conn(r), &p->in, &id, err, sizeof err, NULL);
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
    return imx_img_reply_image(r, 201, id);
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
        imx_img_reply_invalid(r, errors, p->rule_errors, "The manifest has invalid fields");
        errors = NULL;
        goto out;
    }
    int64_t team_id = imx_auth_team(r, p->team, IMX_ROLE_PUBLISHER);
    if (!team_id)
        goto out;
    p->in.team_id = team_id;
    if (p->in.parent_id) {
        enum imx_db_status rc = imx_db_image_exists(imx_api_conn(r), p->in.parent_id, NULL);
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
    const struct imx_ref_snapshot *ref = imx_db_ref_acquire(imx_api_conn(r), err, sizeof err);
    if (!ref) {
        imx_error("request %s: reference data: %s", r->request_id, err);
        imx_reply_problem(r, IMX_E_DB_UNAVAILABLE, "The reference data cannot be read");
        goto out;
    }
    struct imx_compat_component comps[IMX_DBI_MAX_ROWS];
    for (size_t i = 0; i < p->in.n_components; i++)
        comps[i] = (struct imx_compat_component){ p->comps[i].name, p->comps[i].version };
    json_t *report =
        imx_img_compat_report(ref, comps, p->served, p->in.n_components, p->gpus, p->in.n_gpus);
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
    size_t lineno = 0, taken = 0;
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
        if (imx_budget_spent()) {
            imx_verr(errors, "", "%s", IMX_BUDGET_SPENT_TEXT);
            errors_at_line(errors, before, lineno);
            return true;
        }
        /* Every line that is not blank counts toward the cap, JSON or not: lines that do not
         * parse would otherwise each add an error with no bound. */
        if (taken++ == IMX_DBI_PUBLISH_MAX) {
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
    enum imx_db_status prc = imx_db_images_missing(imx_api_conn(r), parents, im->n, missing, NULL);
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
    const struct imx_ref_snapshot *ref = imx_db_ref_acquire(imx_api_conn(r), err, sizeof err);
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
        json_t *report =
            imx_img_compat_report(ref, comps, p->served, p->in.n_components, p->gpus, p->in.n_gpus);
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
        imx_db_images_publish(imx_api_conn(r), im->in, im->n, ids, &result, err, sizeof err, NULL);
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
        size_t rules = 0;
        for (size_t i = 0; i < im.n; i++)
            rules += im.p[i].rule_errors;
        imx_img_reply_invalid(r, errors, rules, "Some manifests are invalid; nothing was imported");
        errors = NULL;
        goto out;
    }
    imx_api_tx(r, import_tx, &im);
out:
    json_decref(errors);
    import_free(&im);
}
