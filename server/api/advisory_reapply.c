/* POST /v1/advisories:reapply (global admins): the CSAF advisories are read again, from the
 * bulletin kept with each (advisory_csaf_docs), through the current product mapping
 * (ref_nvidia_product) and the current reading of NVIDIA's version text, so that a product a
 * reference update now maps, or a range an upgrade reads anew (an exact version and its builds),
 * affects images as it would have at import: each advisory whose ranges, unmapped
 * products or warnings change is revised (patch status, fixed_by, pins and patch.available
 * follow, as for any revision) and audited; the others are reported unchanged. A page of at most
 * `limit` advisories (by id, after `after`) in one transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/tx.h"
#include "auth/auth.h"
#include "db/advisories.h"
#include "db/product_map.h"
#include "util/budget.h"
#include "util/config.h"

#define REAPPLY_LIMIT_DEFAULT 50
#define REAPPLY_LIMIT_MAX     100 /* a bulletin is up to a request body; bounds the memory */

struct reapply {
    const char *after; /* NULL: from the first */
    char limit[8];
    char user_id[24];
};

/* The ranges an advisory document lists as GET shows them: [{component, range, fixed|null}]. */
static json_t *ranges_shown(const json_t *affected)
{
    json_t *out = json_array(), *e;
    size_t i;
    json_array_foreach(affected, i, e)
    {
        json_t *fixed = json_object_get(e, "fixed");
        json_array_append_new(
            out, json_pack("{s:O, s:O, s:O}", "component", json_object_get(e, "component"), "range",
                           json_object_get(e, "range"), "fixed", fixed ? fixed : json_null()));
    }
    return out;
}

/* Re-reads one stored advisory (item of imx_db_advisory_reapply_batch) through map and revises
 * it when that changes it; returns its line of the reply, or NULL after replying (a failed
 * statement). */
static json_t *reapply_one(struct imx_req *r, struct reapply *in, const json_t *item,
                           const json_t *map)
{
    const char *id = json_string_value(json_object_get(item, "id"));
    const json_t *doc = json_object_get(item, "doc");
    if (!json_is_object(doc))
        return json_pack("{s:s, s:s}", "id", id, "outcome", "no_source");
    /* Each kept bulletin gets the work budget its own POST had: a page reads up to 100. */
    unsigned budget = imx_budget_ms();
    if (budget > 0)
        imx_budget_begin(budget);
    json_t *errors = json_array();
    json_t *now = imx_api_csaf_advisory(doc, map, errors);
    if (!now)
        return json_pack("{s:s, s:s, s:o}", "id", id, "outcome", "unreadable", "errors", errors);
    json_decref(errors);
    if (strcmp(json_string_value(json_object_get(now, "id")), id) != 0) {
        json_decref(now);
        return json_pack("{s:s, s:s}", "id", id, "outcome", "unreadable");
    }
    json_t *shown = ranges_shown(json_object_get(now, "affected"));
    bool same = json_equal(shown, json_object_get(item, "affected")) &&
                json_equal(json_object_get(now, "unmapped"), json_object_get(item, "unmapped")) &&
                json_equal(json_object_get(now, "warnings"), json_object_get(item, "warnings"));
    json_decref(shown);
    size_t unmapped = json_array_size(json_object_get(now, "unmapped"));
    if (same) {
        json_decref(now);
        return json_pack("{s:s, s:s, s:I}", "id", id, "outcome", "unchanged", "unmapped",
                         (json_int_t)unmapped);
    }
    /* A revision of the three things the mapping decides; the rest stays as imported. */
    json_t *rev = json_pack(
        "{s:s, s:O, s:O, s:O}", "id", id, "affected", json_object_get(now, "affected"), "unmapped",
        json_object_get(now, "unmapped"), "warnings", json_object_get(now, "warnings"));
    json_decref(now);
    char *text = json_dumps(rev, JSON_COMPACT);
    json_decref(rev);
    if (!text) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return NULL;
    }
    char revision[24];
    snprintf(revision, sizeof revision, "%lld",
             (long long)json_integer_value(json_object_get(item, "revision")));
    struct imx_db_json j;
    struct imx_db_fault why;
    enum imx_db_status st =
        imx_db_advisory_publish(imx_api_conn(r), text, in->user_id, revision, &j, &why);
    free(text);
    if (st != IMX_DBS_OK) {
        imx_api_tx_fail(r, st, &why);
        return NULL;
    }
    json_t *out = imx_api_json_load(&j);
    if (!out) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return NULL;
    }
    const char *o = json_string_value(json_object_get(out, "outcome"));
    json_t *line = json_pack("{s:s, s:s, s:O*, s:I}", "id", id, "outcome", o ? o : "unknown",
                             "affected_images", json_object_get(out, "affected_images"), "unmapped",
                             (json_int_t)unmapped);
    if (o && strcmp(o, "revised") == 0) {
        json_t *detail =
            json_pack("{s:O*, s:O*, s:I}", "revision", json_object_get(out, "revision"),
                      "patch_status_changed", json_object_get(out, "patch_status_changed"),
                      "unmapped", (json_int_t)unmapped);
        int rc = imx_audit(r, "reapply", "advisory", id, detail);
        json_decref(detail);
        if (rc != 0) {
            json_decref(out);
            json_decref(line);
            return NULL;
        }
    }
    json_decref(out);
    return line;
}

static int reapply_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct reapply *in = cls;
    char *maptext = NULL;
    enum imx_db_status st = imx_db_product_map(imx_api_conn(r), &maptext, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    json_t *map = json_loads(maptext, 0, NULL);
    free(maptext);
    struct imx_db_json j;
    st = map ? imx_db_advisory_reapply_batch(imx_api_conn(r), in->after, in->limit, &j, &why)
             : IMX_DBS_ERROR;
    if (st != IMX_DBS_OK) {
        json_decref(map);
        return imx_api_tx_fail(r, st, &why);
    }
    json_t *batch = imx_api_json_load(&j);
    if (!json_is_array(batch)) {
        json_decref(batch);
        json_decref(map);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    json_t *lines = json_array(), *item;
    json_int_t revised = 0, unchanged = 0, other = 0;
    size_t i;
    json_array_foreach(batch, i, item)
    {
        json_t *line = reapply_one(r, in, item, map);
        if (!line) {
            json_decref(lines);
            json_decref(batch);
            json_decref(map);
            return -1;
        }
        const char *o = json_string_value(json_object_get(line, "outcome"));
        if (strcmp(o, "revised") == 0)
            revised++;
        else if (strcmp(o, "unchanged") == 0)
            unchanged++;
        else
            other++;
        json_array_append_new(lines, line);
    }
    unsigned long long limit = strtoull(in->limit, NULL, 10);
    const char *last =
        json_string_value(json_object_get(json_array_get(batch, json_array_size(batch) - 1), "id"));
    json_t *reply = json_pack("{s:o, s:I, s:I, s:I, s:s?}", "advisories", lines, "revised", revised,
                              "unchanged", unchanged, "other", other, "next_after",
                              json_array_size(batch) == limit ? last : NULL);
    json_decref(batch);
    json_decref(map);
    imx_reply_json_steal(r, 200, reply);
    return 0;
}

void imx_api_advisory_reapply(struct imx_req *r)
{
    struct reapply in = { .after = imx_req_query(r, "after") };
    const char *limit = imx_req_query(r, "limit");
    unsigned long long n = REAPPLY_LIMIT_DEFAULT;
    if (limit && imx_parse_uint(limit, 1, REAPPLY_LIMIT_MAX, &n) != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "limit must be a whole number from 1 to %d",
                          REAPPLY_LIMIT_MAX);
        return;
    }
    if (in.after && (strlen(in.after) == 0 || strlen(in.after) > 100)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "after must be an advisory id");
        return;
    }
    snprintf(in.limit, sizeof in.limit, "%llu", n);
    snprintf(in.user_id, sizeof in.user_id, "%lld", (long long)r->principal.user_id);
    imx_api_tx(r, reapply_tx, &in);
}
