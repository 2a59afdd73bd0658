/* GET /v1/images: search with facets, a page at a time or exported whole. */
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
bool imx_img_enum_arg(struct imx_req *r, const char *name, const char *const *set,
                      const char *allowed)
{
    const char *v = imx_req_query(r, name);
    if (v && !imx_img_one_of(v, set)) {
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
    struct imx_img_constraint_args *ca; /* owned */
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
        imx_db_image_search_indexed(c, &s, false, &page, &facets, &served, &epoch, NULL);
    if (rc == IMX_DBS_OK && !served)
        rc = imx_db_image_search(c, &s, &page, NULL);
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
        .eol_before = imx_req_query(r, "eol_before"),
        .limit = SEARCH_LIMIT_DEFAULT,
    };
    static const char *const OS_PATCH_STATUSES[] = { "ok",      "vulnerable", "patch_available",
                                                     "revoked", "unknown",    NULL };
    static const char *const SEARCH_STATUSES[] = { "active", "deprecated", "revoked", "any", NULL };
    if (!imx_img_enum_arg(r, "provider", imx_img_providers,
                          "aws, gcp, azure, onprem or oci-container") ||
        !imx_img_enum_arg(r, "arch", imx_img_archs, "x86_64 or arm64") ||
        !imx_img_enum_arg(r, "status", SEARCH_STATUSES, "active, deprecated, revoked or any") ||
        !imx_img_enum_arg(r, "layer", imx_img_layers, "platform or model") ||
        !imx_img_enum_arg(r, "patch_status", imx_img_patch_statuses,
                          "ok, vulnerable, patch_available or revoked") ||
        !imx_img_enum_arg(r, "os_patch_status", OS_PATCH_STATUSES,
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
    if (s.eol_before && !imx_api_eol_date_ok(s.eol_before)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "eol_before must be a date, YYYY-MM-DD");
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
    struct imx_img_constraint_args *ca = malloc(sizeof *ca);
    struct imx_img_package_args *pa = malloc(sizeof *pa);
    char *page = NULL, *facets = NULL, *out = NULL;
    json_t *key = NULL;
    if (!ca || !pa) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        goto done;
    }
    if (imx_img_read_constraints(r, ca) != 0)
        goto done;
    s.constraints = ca->list;
    s.n_constraints = ca->n;
    pa->n = 0;
    pa->problem[0] = '\0';
    imx_req_query_each(r, "package", imx_img_package_arg, pa);
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
        imx_db_image_search_indexed(c, &s, want_facets, &page, &facets, &served, &epoch, NULL);
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
        rc = imx_db_image_search(c, &s, &page, NULL);
    }
    if (rc == IMX_DBS_OK && !served && want_facets)
        rc = imx_db_image_facets(c, &s, &facets, NULL);
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
        imx_img_reply_json_text_steal(r, 200, out);
done:
    json_decref(key);
    free(page);
    free(facets);
    free(ca);
    free(pa);
}
