/* Instance types with dated prices (/v1/instance-types...) and cost rankings
 * (GET /v1/images/{id}/costs, GET /v1/costs): the medians are computed by PostgreSQL over the
 * caller's teams' measurements only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "util/rfc3339.h"
#include "api/etag.h"
#include "api/cursor.h"
#include "api/export.h"
#include "api/costs_common.h"
#include "auth/auth.h"
#include "db/costs.h"
#include "api/tx.h"
#include "util/config.h"

/* ---- instance types ---- */

void imx_api_instance_type_list(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    unsigned long long limit;
    json_t *key;
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_key(r, "ssIIs", &key))
        return;
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c) {
        json_decref(key);
        return;
    }
    char lim[24], b2[24], b3[24];
    snprintf(lim, sizeof lim, "%llu", limit);
    const char *after[5] = { imx_api_key_text(key, 0, NULL, 0), imx_api_key_text(key, 1, NULL, 0),
                             imx_api_key_text(key, 2, b2, sizeof b2),
                             imx_api_key_text(key, 3, b3, sizeof b3),
                             imx_api_key_text(key, 4, NULL, 0) };
    struct imx_db_page page;
    enum imx_db_status st =
        imx_db_instance_type_list(c, imx_req_query(r, "provider"), imx_req_query(r, "gpu"),
                                  imx_req_query(r, "family"), after, lim, &page, &why);
    imx_api_reply_page(r, st, &why, &page, 0, limit, "ssIIs");
    json_decref(key);
}

void imx_api_instance_type_get(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c || !imx_api_etag(r, IMX_REV_INSTANCE_TYPE, imx_req_param(r, "provider"),
                            imx_req_param(r, "type")))
        return;
    struct imx_db_json j;
    enum imx_db_status st = imx_db_instance_type_get(c, imx_req_param(r, "provider"),
                                                     imx_req_param(r, "type"), &j, &why);
    imx_api_reply_json_text(r, 200, st, &why, &j, "No such instance type");
}

static const struct imx_api_field type_fields[] = {
    { "provider", JSON_STRING, false },
    { "instance_type", JSON_STRING, false },
    { "gpu_model", JSON_STRING, true },
    { "gpu_count", JSON_INTEGER, true },
    { "gpu_memory_gib", JSON_REAL, false },
    { "vcpus", JSON_INTEGER, true },
    { "memory_gib", JSON_REAL, false },
    { "host_arch", JSON_STRING, true },
    { "price_region", JSON_STRING, false },
    { "source", JSON_STRING, false },
    { NULL, JSON_NULL, false },
};

static bool name_ok(const char *s, size_t max)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > max)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
              *p == '_'))
            return false;
    return true;
}

struct type_put {
    const char *provider, *type, *gpu_model, *arch, *region, *source;
    char gpu_count[24], gpu_mem[32], vcpus[24], mem[32];
    bool replace;
};

static int type_put_tx(struct imx_req *r, void *cls)
{
    struct type_put *t = cls;
    if (t->replace) {
        /* Replacing every field of an existing type needs the ETag it was read with. */
        int m = imx_api_if_match(r, IMX_REV_INSTANCE_TYPE, t->provider, t->type, true);
        if (m < 0)
            return -1;
        if (m == 1 && imx_req_header(r, "If-Match")) {
            imx_reply_problem(r, IMX_E_PRECONDITION_FAILED,
                              "If-Match names instance type %s/%s, which does not exist",
                              t->provider, t->type);
            return -1;
        }
    }
    bool created;
    struct imx_db_fault why;
    enum imx_db_status st = imx_db_instance_type_put(
        imx_api_conn(r), t->provider, t->type, t->gpu_model, t->gpu_count, t->gpu_mem, t->vcpus,
        t->mem, t->arch, t->region, t->source, t->replace ? "true" : "false", &created, &why);
    if (st != IMX_DBS_OK && why.cause == IMX_DBC_FOREIGN_KEY) {
        json_t *errors = json_array();
        imx_verr(errors, "/gpu_model", "unknown GPU model (see the reference data)");
        imx_reply_invalid_steal(r, errors, "The instance type has invalid fields");
        return -1;
    }
    if (st == IMX_DBS_CONFLICT && why.cause != IMX_DBC_UNIQUE) {
        imx_reply_problem(r, IMX_E_CONFLICT, "Instance type %s/%s exists; PUT it to change it",
                          t->provider, t->type);
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    char rid[128];
    snprintf(rid, sizeof rid, "%s/%s", t->provider, t->type);
    json_t *detail = json_pack("{s:s, s:s}", "gpu_model", t->gpu_model, "gpu_count", t->gpu_count);
    int rc = imx_audit(r, created ? "create" : "update", "instance_type", rid, detail);
    json_decref(detail);
    if (rc == 0)
        rc = imx_api_etag_after(r, IMX_REV_INSTANCE_TYPE, t->provider, t->type);
    if (rc != 0)
        return rc;
    struct imx_db_json j;
    st = imx_db_instance_type_get(imx_api_conn(r), t->provider, t->type, &j, &why);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND)
        return imx_api_tx_fail(r, st, &why);
    char loc[160];
    snprintf(loc, sizeof loc, "/v1/instance-types/%s", rid);
    imx_reply_header(r, "Location", loc);
    imx_api_reply_json_text(r, created ? 201 : 200, st, &why, &j, "No such instance type");
    return 0;
}

static void type_put(struct imx_req *r, const char *provider, const char *type, bool replace)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    /* JSON_REAL in the table stands for any number here: check those two by hand. */
    json_t *copy = json_copy(body);
    json_object_del(copy, "gpu_memory_gib");
    json_object_del(copy, "memory_gib");
    imx_api_check_fields(copy, type_fields, errors);
    json_decref(copy);
    struct type_put t = {
        .provider = provider ? provider : json_string_value(json_object_get(body, "provider")),
        .type = type ? type : json_string_value(json_object_get(body, "instance_type")),
        .gpu_model = json_string_value(json_object_get(body, "gpu_model")),
        .arch = json_string_value(json_object_get(body, "host_arch")),
        .region = json_string_value(json_object_get(body, "price_region")),
        .source = json_string_value(json_object_get(body, "source")),
        .replace = replace,
    };
    if (!provider && !name_ok(t.provider, 32))
        imx_verr(errors, "/provider", "is required: 1 to 32 of a-z, 0-9, '-'");
    if (!type && !name_ok(t.type, 64))
        imx_verr(errors, "/instance_type", "is required: 1 to 64 of a-z, 0-9, '.', '-', '_'");
    if (provider && (json_object_get(body, "provider") || json_object_get(body, "instance_type")))
        imx_verr(errors, json_object_get(body, "provider") ? "/provider" : "/instance_type",
                 "is taken from the path");
    static const char *const nums[] = { "gpu_memory_gib", "memory_gib" };
    double vals[2];
    for (int i = 0; i < 2; i++) {
        json_t *v = json_object_get(body, nums[i]);
        char ptr[32];
        snprintf(ptr, sizeof ptr, "/%s", nums[i]);
        vals[i] = json_number_value(v);
        if (!json_is_number(v) || !isfinite(vals[i]) || vals[i] <= 0 || vals[i] > 1e6)
            imx_verr(errors, ptr, "must be a number above 0");
    }
    json_int_t gc = json_integer_value(json_object_get(body, "gpu_count"));
    json_int_t vc = json_integer_value(json_object_get(body, "vcpus"));
    if (json_object_get(body, "gpu_count") && (gc < 1 || gc > 1024))
        imx_verr(errors, "/gpu_count", "must be from 1 to 1024");
    if (json_object_get(body, "vcpus") && (vc < 1 || vc > 100000))
        imx_verr(errors, "/vcpus", "must be from 1 to 100000");
    if (t.arch && strcmp(t.arch, "x86_64") != 0 && strcmp(t.arch, "arm64") != 0)
        imx_verr(errors, "/host_arch", "must be x86_64 or arm64");
    if (t.region && !name_ok(t.region, 64))
        imx_verr(errors, "/price_region", "must be a region name");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The instance type has invalid fields");
        return;
    }
    json_decref(errors);
    snprintf(t.gpu_count, sizeof t.gpu_count, "%lld", (long long)gc);
    snprintf(t.vcpus, sizeof t.vcpus, "%lld", (long long)vc);
    snprintf(t.gpu_mem, sizeof t.gpu_mem, "%.3f", vals[0]);
    snprintf(t.mem, sizeof t.mem, "%.3f", vals[1]);
    imx_api_tx(r, type_put_tx, &t);
}

void imx_api_instance_type_create(struct imx_req *r)
{
    type_put(r, NULL, NULL, false);
}

void imx_api_instance_type_put(struct imx_req *r)
{
    const char *provider = imx_req_param(r, "provider"), *type = imx_req_param(r, "type");
    if (!name_ok(provider, 32) || !name_ok(type, 64)) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such instance type");
        return;
    }
    type_put(r, provider, type, true);
}

static const struct imx_api_field price_fields[] = {
    { "pricing", JSON_STRING, true },   { "region", JSON_STRING, true },
    { "currency", JSON_STRING, false }, { "valid_from", JSON_STRING, false },
    { "source", JSON_STRING, false },   { NULL, JSON_NULL, false },
};

struct price_add {
    const char *provider, *type, *pricing, *region, *currency, *valid_from, *source;
    char price[48];
};

static int price_add_tx(struct imx_req *r, void *cls)
{
    struct price_add *p = cls;
    /* A price changes its type's document: the revision moves (If-Match is optional). */
    if (imx_api_if_match(r, IMX_REV_INSTANCE_TYPE, p->provider, p->type, false) < 0)
        return -1;
    struct imx_db_json j;
    struct imx_db_fault why;
    enum imx_db_status st =
        imx_db_instance_price_add(imx_api_conn(r), p->provider, p->type, p->pricing, p->region,
                                  p->price, p->currency, p->valid_from, p->source, &j, &why);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND) {
        enum imx_db_cause cause = why.cause;
        if (cause == IMX_DBC_FOREIGN_KEY || cause == IMX_DBC_VALUE) {
            bool missing = cause == IMX_DBC_FOREIGN_KEY;
            if (missing) {
                imx_reply_problem(r, IMX_E_NOT_FOUND, "No such instance type");
            } else {
                json_t *errors = json_array();
                imx_verr(errors, "/valid_from", "must be an RFC 3339 time");
                imx_reply_invalid_steal(r, errors, "The price has invalid fields");
            }
            return -1;
        }
        if (cause == IMX_DBC_UNIQUE) {
            imx_reply_problem(r, IMX_E_CONFLICT,
                              "A price of that kind and region already starts "
                              "at that moment");
            return -1;
        }
        return imx_api_tx_fail(r, st, &why);
    }
    json_t *doc = imx_api_json_load(&j);
    char rid[128];
    snprintf(rid, sizeof rid, "%s/%s", p->provider, p->type);
    int rc = imx_audit(r, "add_price", "instance_type", rid, doc);
    if (rc != 0) {
        json_decref(doc);
        return rc;
    }
    imx_reply_json_steal(r, 201, doc);
    return 0;
}

void imx_api_instance_price_add(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    json_t *copy = json_copy(body);
    json_object_del(copy, "price_per_hour");
    imx_api_check_fields(copy, price_fields, errors);
    json_decref(copy);
    struct price_add p = {
        .provider = imx_req_param(r, "provider"),
        .type = imx_req_param(r, "type"),
        .pricing = json_string_value(json_object_get(body, "pricing")),
        .region = json_string_value(json_object_get(body, "region")),
        .currency = json_string_value(json_object_get(body, "currency")),
        .valid_from = json_string_value(json_object_get(body, "valid_from")),
        .source = json_string_value(json_object_get(body, "source")),
    };
    json_t *price = json_object_get(body, "price_per_hour");
    double v = json_number_value(price);
    if (!json_is_number(price) || !isfinite(v) || v < 0 || v > 10000)
        imx_verr(errors, "/price_per_hour", "is required: a number from 0 to 10000");
    if (p.pricing && strcmp(p.pricing, "on_demand") != 0 && strcmp(p.pricing, "spot") != 0 &&
        strcmp(p.pricing, "reserved") != 0)
        imx_verr(errors, "/pricing", "must be on_demand, spot or reserved");
    if (p.valid_from && !imx_rfc3339_ok(p.valid_from))
        imx_verr(errors, "/valid_from", "must be an RFC 3339 time, such as 2026-11-20T10:00:00Z");
    if (p.region && !name_ok(p.region, 64))
        imx_verr(errors, "/region", "must be a region name");
    if (p.currency &&
        (strlen(p.currency) != 3 || strspn(p.currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != 3))
        imx_verr(errors, "/currency", "must be an ISO 4217 code such as USD");
    if (p.valid_from && strlen(p.valid_from) > 40)
        imx_verr(errors, "/valid_from", "must be an RFC 3339 time");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The price has invalid fields");
        return;
    }
    json_decref(errors);
    snprintf(p.price, sizeof p.price, "%.6f", v);
    imx_api_tx(r, price_add_tx, &p);
}

/* ---- rankings ---- */

/* An image's cost table, kept for its export's pages. */
struct image_costs_export {
    struct imx_api_scope sc;
    char image[24];
};

static void scope_copy(struct imx_api_scope *dst, const struct imx_api_scope *src);

static int image_costs_page(struct imx_db_conn *c, const void *cls, const char *after,
                            const char *limit, char **doc, char **next_key)
{
    const struct image_costs_export *x = cls;
    char place[24];
    struct imx_db_page page;
    enum imx_db_status st =
        imx_db_image_costs(c, x->image, &x->sc.s, imx_api_key_text_int0(after, place, sizeof place),
                           limit, &page, NULL);
    return imx_api_export_doc_page(st, &page, doc, next_key);
}

static const char *const image_costs_columns[] = {
    "model",
    "provider",
    "instance_type",
    "gpu_model",
    "pricing",
    "currency",
    "measurements",
    "median_cost_per_1k_inferences",
    "p90_cost_per_1k_inferences",
    "median_throughput_per_s",
    "p90_throughput_per_s",
    "median_latency_p99_ms",
    "median_boot_seconds",
    "median_boot_cost",
    NULL,
};

void imx_api_image_costs(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    unsigned long long v;
    const char *id = imx_req_param(r, "id");
    if (imx_parse_uint(id, 1, INT64_MAX, &v) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        return;
    }
    unsigned long long limit;
    json_t *key;
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_key(r, "I", &key))
        return;
    struct imx_api_scope sc;
    struct imx_db_conn *c = NULL;
    if (imx_api_cost_scope(r, imx_req_query(r, "team"), &sc) == 0)
        c = imx_api_db_read(r);
    char lim[24], after[24];
    snprintf(lim, sizeof lim, "%llu", limit);
    enum imx_export_format format = imx_api_export_format(r);
    if (c && format != IMX_EXPORT_NONE) {
        /* The first page says whether the image exists: 404 before the stream starts. */
        struct imx_db_page first;
        enum imx_db_status st = imx_db_image_costs(c, id, &sc.s, NULL, "1", &first, &why);
        bool found = st == IMX_DBS_OK && first.rows.n == 1 &&
                     imx_db_rows_text(&first.rows, 0, 0, NULL) != NULL;
        imx_db_page_free(&first);
        if (st != IMX_DBS_OK)
            imx_api_reply_db_fault(r, st, &why);
        else if (!found)
            imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        struct image_costs_export *x = found ? calloc(1, sizeof *x) : NULL;
        if (found && !x)
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        if (x) {
            scope_copy(&x->sc, &sc);
            snprintf(x->image, sizeof x->image, "%s", id);
            imx_api_export_doc_steal(r, format, image_costs_columns, image_costs_page, "items", x,
                                     NULL);
        }
    } else if (c) {
        struct imx_db_page page;
        enum imx_db_status st = imx_db_image_costs(
            c, id, &sc.s, imx_api_key_text(key, 0, after, sizeof after), lim, &page, &why);
        imx_api_reply_doc_page(r, st, &why, &page, "No such image");
    }
    json_decref(key);
}

/* A decimal number query argument in (0, max]; NULL when absent; replies 400 when malformed. */
static bool number_arg(struct imx_req *r, const char *name, double max, const char **out)
{
    const char *s = imx_req_query(r, name);
    *out = s;
    if (!s)
        return true;
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || !isfinite(v) || v <= 0 || v > max || strlen(s) > 24) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "%s must be a number above 0 (at most %g)", name,
                          max);
        return false;
    }
    return true;
}

/* A ranking's inputs, kept for its export's pages (new strings, NULL when absent). */
struct ranking_export {
    struct imx_api_scope sc;
    char *model, *gpu, *pricing, *region, *family, *instance_family, *max_p99_ms, *daily;
};

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void ranking_export_free(void *cls)
{
    struct ranking_export *x = cls;
    char *all[] = { x->model,           x->gpu,        x->pricing, x->region, x->family,
                    x->instance_family, x->max_p99_ms, x->daily };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
    free(x);
}

static int ranking_page(struct imx_db_conn *c, const void *cls, const char *after,
                        const char *limit, char **doc, char **next_key)
{
    const struct ranking_export *x = cls;
    char rank[24];
    struct imx_cost_ranking q = {
        .model = x->model,
        .gpu = x->gpu,
        .pricing = x->pricing,
        .region = x->region,
        .family = x->family,
        .instance_family = x->instance_family,
        .max_p99_ms = x->max_p99_ms,
        .daily_inferences = x->daily,
        .limit = limit,
        .after_rank = imx_api_key_text_int0(after, rank, sizeof rank),
    };
    struct imx_db_page page;
    enum imx_db_status st = imx_db_cost_ranking(c, &x->sc.s, &q, &page, NULL);
    return imx_api_export_doc_page(st, &page, doc, next_key);
}

static const char *const ranking_columns[] = {
    "rank",
    "image.id",
    "image.family",
    "image.version",
    "image.status",
    "provider",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "pricing",
    "currency",
    "measurements",
    "median_cost_per_1k_inferences",
    "median_latency_p99_ms",
    "median_throughput_per_s",
    "median_boot_seconds",
    "monthly_cost",
    NULL,
};

/* A copy of sc whose pointers point into the copy. */
static void scope_copy(struct imx_api_scope *dst, const struct imx_api_scope *src)
{
    *dst = *src;
    dst->s.user_id = src->s.user_id ? dst->user : NULL;
    dst->s.token_team = src->s.token_team ? dst->token_team : NULL;
    dst->s.team = src->s.team ? dst->team : NULL;
}

static void ranking_export(struct imx_req *r, enum imx_export_format format,
                           const struct imx_cost_ranking *q, const struct imx_api_scope *sc)
{
    struct ranking_export *x = calloc(1, sizeof *x);
    if (!x) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    scope_copy(&x->sc, sc);
    x->model = dup_or_null(q->model);
    x->gpu = dup_or_null(q->gpu);
    x->pricing = dup_or_null(q->pricing);
    x->region = dup_or_null(q->region);
    x->family = dup_or_null(q->family);
    x->instance_family = dup_or_null(q->instance_family);
    x->max_p99_ms = dup_or_null(q->max_p99_ms);
    x->daily = dup_or_null(q->daily_inferences);
    imx_api_export_doc_steal(r, format, ranking_columns, ranking_page, "items", x,
                             ranking_export_free);
}

void imx_api_cost_ranking(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    struct imx_cost_ranking q = {
        .model = imx_req_query(r, "model"),
        .gpu = imx_req_query(r, "gpu"),
        .pricing = imx_req_query(r, "pricing"),
        .region = imx_req_query(r, "region"),
        .family = imx_req_query(r, "family"),
        .instance_family = imx_req_query(r, "instance_family"),
    };
    if (!q.model || !*q.model) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "model is required, e.g. ?model=resnet50");
        return;
    }
    if (q.pricing && strcmp(q.pricing, "on_demand") != 0 && strcmp(q.pricing, "spot") != 0 &&
        strcmp(q.pricing, "reserved") != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "pricing must be on_demand, spot or reserved");
        return;
    }
    unsigned long long limit;
    json_t *key = NULL;
    if (!imx_api_list_limit(r, &limit) || !number_arg(r, "max_p99_ms", 3.6e6, &q.max_p99_ms) ||
        !number_arg(r, "daily_inferences", 1e15, &q.daily_inferences) ||
        !imx_api_cursor_key(r, "I", &key))
        return;
    char limit_txt[16], after[24];
    snprintf(limit_txt, sizeof limit_txt, "%llu", limit);
    q.limit = limit_txt;
    q.after_rank = imx_api_key_text(key, 0, after, sizeof after);
    struct imx_api_scope sc;
    struct imx_db_conn *c = NULL;
    enum imx_export_format format = imx_api_export_format(r);
    if (imx_api_cost_scope(r, imx_req_query(r, "team"), &sc) == 0 && format != IMX_EXPORT_NONE)
        ranking_export(r, format, &q, &sc);
    else if (r->reply.status == 0)
        c = imx_api_db_read(r);
    if (c) {
        struct imx_db_page page;
        enum imx_db_status st = imx_db_cost_ranking(c, &sc.s, &q, &page, &why);
        imx_api_reply_doc_page(r, st, &why, &page, "No ranking");
    }
    json_decref(key);
}
