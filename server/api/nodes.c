/* The fleet: POST /v1/nodes/reports (what nodes run, one JSON report or NDJSON for many),
 * GET /v1/nodes (filtered, keyset-paged, CSV/NDJSON export), GET /v1/nodes/{name}, GET
 * /v1/fleet (node counts per image and per pin) and GET /v1/advisories/{id}/exposure (images,
 * pins, teams and running nodes an advisory reaches). Drift is computed here, per report, by
 * server/domain/drift.c: the code `imaxe probe --check` runs. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/costs_common.h"
#include "api/cursor.h"
#include "api/export.h"
#include "auth/auth.h"
#include "db/nodes.h"
#include "db/reference.h"
#include "api/tx.h"
#include "domain/drift.h"

struct imx_api_nodes_settings imx_api_nodes = { .history_days = 30, .stale_s = 900 };

/* Most reports one request may carry (NDJSON); the body is bounded by IMAXE_MAX_BODY_BYTES. */
#define REPORTS_MAX 1000
/* Distinct images and teams one request may name (each a lookup). */
#define LOOKUPS_MAX     64
#define HISTORY_DEFAULT 20
#define HISTORY_MAX     500
#define NAME_MAX_LEN    253

static const struct imx_api_field report_fields[] = {
    { "name", JSON_STRING, true },  { "team", JSON_STRING, false },
    { "image", JSON_OBJECT, true }, { "instance_type", JSON_STRING, false },
    { "probe", JSON_OBJECT, true }, { NULL, JSON_NULL, false },
};

static const struct imx_api_field image_fields[] = {
    { "id", JSON_INTEGER, false },
    { "artifact_id", JSON_STRING, false },
    { "region", JSON_STRING, false },
    { NULL, JSON_NULL, false },
};

/* A node's name as it names itself (a hostname, a Kubernetes node name). */
static bool node_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > NAME_MAX_LEN || !isalnum((unsigned char)s[0]))
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("._:-", *s))
            return false;
    return true;
}

/* A GPU model as the node names it: nvidia-smi and NVML print names with spaces and
 * parentheses ("NVIDIA H100 80GB HBM3", "NVIDIA GB10 (DGX Spark)"), so 1 to 64 printable ASCII
 * characters, spaces inside only. */
static bool gpu_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64 || s[0] == ' ' || s[n - 1] == ' ')
        return false;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            return false;
    return true;
}

static bool short_text_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max)
        return false;
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
            return false;
    return true;
}

/* Checks one report; errors get pointers under prefix ("" or "/3" for NDJSON line 3). */
static void check_report(json_t *rep, const char *prefix, json_t *errors)
{
    char ptr[96];
    json_t *local = json_array();
    imx_api_check_fields(rep, report_fields, local);
    const char *name = json_string_value(json_object_get(rep, "name"));
    if (name && !node_name_ok(name))
        imx_verr(local, "/name", "must be 1 to %d of A-Z a-z 0-9 . _ : - (a host name)",
                 NAME_MAX_LEN);
    const char *it = json_string_value(json_object_get(rep, "instance_type"));
    if (it && !short_text_ok(it, 64))
        imx_verr(local, "/instance_type", "must be 1 to 64 visible characters");
    json_t *img = json_object_get(rep, "image");
    if (json_is_object(img)) {
        imx_api_check_fields(img, image_fields, local);
        json_t *id = json_object_get(img, "id");
        const char *art = json_string_value(json_object_get(img, "artifact_id"));
        const char *region = json_string_value(json_object_get(img, "region"));
        if (!id == !art)
            imx_verr(local, "/image", "names the image by id or by artifact_id (and region)");
        if (json_is_integer(id) && json_integer_value(id) < 1)
            imx_verr(local, "/image/id", "must be a positive image id");
        if (art && !short_text_ok(art, 512))
            imx_verr(local, "/image/artifact_id", "must be 1 to 512 visible characters");
        if (region && !short_text_ok(region, 64))
            imx_verr(local, "/image/region", "must be 1 to 64 visible characters");
    }
    json_t *probe = json_object_get(rep, "probe");
    json_t *gpus = json_object_get(probe, "gpus");
    if (gpus && (!json_is_array(gpus) || json_array_size(gpus) > 64))
        imx_verr(local, "/probe/gpus", "must be an array of at most 64 GPU models");
    size_t i;
    json_t *g;
    json_array_foreach(gpus, i, g)
    {
        if (!json_is_string(g) || !gpu_name_ok(json_string_value(g))) {
            imx_verr(local, "/probe/gpus",
                     "must hold GPU models of 1 to 64 printable ASCII characters (spaces inside)");
            break;
        }
    }
    json_t *comps = json_object_get(probe, "components");
    if (comps && !json_is_array(comps) && !json_is_object(comps))
        imx_verr(local, "/probe/components", "must be an array of {name, version}");
    json_t *pk = json_object_get(probe, "packages");
    if (pk && (!json_is_array(pk) || json_array_size(pk) > 5000))
        imx_verr(local, "/probe/packages", "must be an array of at most 5000 packages");
    json_t *e;
    json_array_foreach(local, i, e)
    {
        const char *p = json_string_value(json_object_get(e, "pointer"));
        snprintf(ptr, sizeof ptr, "%s%s", prefix, p ? p : "");
        json_object_set_new(e, "pointer", json_string(ptr));
        json_array_append(errors, e);
    }
    json_decref(local);
}

/* The reports of the body: a JSON object, or NDJSON (one object a line, blank lines skipped).
 * Returns a new array, or NULL after replying. */
static json_t *read_reports(struct imx_req *r, bool *ndjson)
{
    const char *ct = imx_req_header(r, "Content-Type");
    *ndjson = ct && strncasecmp(ct, "application/x-ndjson", 20) == 0;
    if (!*ndjson) {
        json_t *one = imx_req_json(r);
        return one ? json_pack("[O]", one) : NULL;
    }
    json_t *all = json_array();
    json_t *errors = json_array();
    size_t line = 0;
    for (const char *p = r->body ? r->body : ""; *p;) {
        size_t len = strcspn(p, "\n");
        line++;
        size_t lead = strspn(p, " \t\r");
        if (lead < len) {
            char ptr[32];
            snprintf(ptr, sizeof ptr, "/%zu", json_array_size(all));
            json_error_t jerr;
            json_t *doc = json_loadb(p, len, JSON_REJECT_DUPLICATES, &jerr);
            if (json_array_size(all) >= REPORTS_MAX) {
                json_decref(doc);
                json_decref(all);
                json_decref(errors);
                imx_reply_problem(r, IMX_E_PAYLOAD_TOO_LARGE, "At most %d reports a request",
                                  REPORTS_MAX);
                return NULL;
            }
            if (!json_is_object(doc))
                imx_verr(errors, ptr, "line %zu is not a JSON object%s%s", line, doc ? "" : ": ",
                         doc ? "" : jerr.text);
            json_array_append_new(all, doc ? doc : json_null());
        }
        p += len;
        if (*p)
            p++;
    }
    if (json_array_size(errors) == 0 && json_array_size(all) == 0)
        imx_verr(errors, "", "holds no report");
    if (json_array_size(errors) > 0) {
        json_decref(all);
        imx_reply_invalid_steal(r, errors, "The reports are not NDJSON objects");
        return NULL;
    }
    json_decref(errors);
    return all;
}

/* Per request: each team slug and each image a report names, looked up once. */
struct lookups {
    json_t *teams;  /* slug -> team id */
    json_t *images; /* "id:N" / "art:ID@REGION" -> manifest object or null (unknown) */
};

/* The team a report lands in: its "team" (checked: member there), else the token's team.
 * Returns the id, or 0 after replying. */
static long long report_team(struct imx_req *r, json_t *rep, struct lookups *lk)
{
    const char *slug = json_string_value(json_object_get(rep, "team"));
    if (!slug) {
        /* A node token's own team: refused as the team's other writes are while it is disabled. */
        if (r->principal.token_id)
            return imx_auth_team_enabled(r, r->principal.token_team, NULL) ? r->principal.token_team
                                                                           : 0;
        json_t *errors = json_array();
        imx_verr(errors, "/team",
                 "is required when signed in as a person (a node token "
                 "reports for its own team)");
        imx_reply_invalid_steal(r, errors, "The report names no team");
        return 0;
    }
    json_t *known = json_object_get(lk->teams, slug);
    if (known)
        return json_integer_value(known);
    if (json_object_size(lk->teams) >= LOOKUPS_MAX) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "One request may name at most %d teams",
                          LOOKUPS_MAX);
        return 0;
    }
    int64_t id = imx_auth_team(r, slug, IMX_ROLE_MEMBER);
    if (id)
        json_object_set_new(lk->teams, slug, json_integer(id));
    return id;
}

/* The manifest of the image a report names (borrowed; JSON null: not in the catalog), or NULL
 * after replying. */
static json_t *report_image(struct imx_req *r, json_t *img, struct lookups *lk)
{
    char key[640], idtxt[24];
    json_t *id = json_object_get(img, "id");
    const char *art = json_string_value(json_object_get(img, "artifact_id"));
    const char *region = json_string_value(json_object_get(img, "region"));
    if (id) {
        snprintf(idtxt, sizeof idtxt, "%lld", (long long)json_integer_value(id));
        snprintf(key, sizeof key, "id:%s", idtxt);
    } else {
        snprintf(key, sizeof key, "art:%s@%s", art, region ? region : "");
    }
    json_t *known = json_object_get(lk->images, key);
    if (known)
        return known;
    if (json_object_size(lk->images) >= LOOKUPS_MAX) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "One request may name at most %d images",
                          LOOKUPS_MAX);
        return NULL;
    }
    long long got = 0;
    char *manifest = NULL;
    enum imx_db_status rc = imx_db_node_manifest(imx_api_conn(r), id ? idtxt : NULL, art, region,
                                                 &got, &manifest, NULL);
    if (rc != IMX_DBS_OK && rc != IMX_DBS_NOT_FOUND) {
        imx_api_reply_db_status(r, rc);
        return NULL;
    }
    json_t *m = manifest ? json_loads(manifest, 0, NULL) : json_null();
    free(manifest);
    if (!m) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return NULL;
    }
    json_object_set_new(lk->images, key, m);
    return m;
}

/* One report made ready for imx_db_node_report: its texts, owned here. */
struct prepared {
    char team_id[24], image_id[24], gpu_count[16];
    char *booted, *gpus, *drift_items, *report;
    const char *name, *instance_type, *drift;
};

struct report_batch {
    struct prepared *p;
    size_t n;
    json_t *items; /* the reply's items, filled by the transaction */
};

static void prepared_free(struct prepared *p)
{
    free(p->booted);
    free(p->gpus);
    free(p->drift_items);
    free(p->report);
}

/* Fills p from a checked report, its team and its image's manifest (JSON null: unknown). */
static int prepare(struct prepared *p, json_t *rep, long long team, json_t *manifest)
{
    json_t *probe = json_object_get(rep, "probe");
    snprintf(p->team_id, sizeof p->team_id, "%lld", team);
    p->name = json_string_value(json_object_get(rep, "name"));
    p->instance_type = json_string_value(json_object_get(rep, "instance_type"));
    if (!p->instance_type)
        p->instance_type =
            json_string_value(json_object_get(json_object_get(probe, "node"), "instance_type"));
    if (p->instance_type && !short_text_ok(p->instance_type, 64))
        p->instance_type = NULL;
    json_t *gpus = json_object_get(probe, "gpus");
    json_int_t count =
        json_integer_value(json_object_get(json_object_get(probe, "node"), "gpu_count"));
    if (count <= 0 || count > 64)
        count = (json_int_t)json_array_size(gpus);
    snprintf(p->gpu_count, sizeof p->gpu_count, "%lld", (long long)count);
    p->gpus = json_is_array(gpus) ? json_dumps(gpus, JSON_COMPACT) : strdup("[]");
    p->booted = json_dumps(json_object_get(rep, "image"), JSON_COMPACT);
    p->report = json_dumps(probe, JSON_COMPACT);
    if (json_is_object(manifest)) {
        snprintf(p->image_id, sizeof p->image_id, "%lld",
                 (long long)json_integer_value(json_object_get(manifest, "id")));
        bool drift = false;
        json_t *rows = imx_drift_rows(probe, manifest, &drift);
        json_t *changes = imx_drift_changes(rows);
        p->drift_items = json_dumps(changes, JSON_COMPACT);
        p->drift = drift ? "true" : "false";
        json_decref(changes);
        json_decref(rows);
    } else {
        p->drift_items = strdup("[]");
    }
    return p->gpus && p->booted && p->report && p->drift_items ? 0 : -1;
}

static int report_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct report_batch *b = cls;
    char days[16];
    snprintf(days, sizeof days, "%u", imx_api_nodes.history_days);
    json_decref(b->items);
    b->items = json_array();
    for (size_t i = 0; i < b->n; i++) {
        struct prepared *p = &b->p[i];
        struct imx_db_node_report in = {
            .team_id = p->team_id,
            .name = p->name,
            .image_id = p->image_id[0] ? p->image_id : NULL,
            .booted = p->booted,
            .instance_type = p->instance_type,
            .gpus = p->gpus,
            .gpu_count = p->gpu_count,
            .drift = p->drift,
            .drift_items = p->drift_items,
            .report = p->report,
            .history_days = days,
        };
        char *out = NULL;
        enum imx_db_status rc = imx_db_node_report(imx_api_conn(r), &in, &out, &why);
        if (rc == IMX_DBS_RETRY) {
            return imx_api_tx_fail(r, IMX_DBS_RETRY, &why);
        }
        if (rc != IMX_DBS_OK) {
            imx_api_reply_db_status(r, rc);
            return -1;
        }
        json_t *item = json_loads(out, 0, NULL);
        free(out);
        if (!item) {
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
            return -1;
        }
        json_object_set_new(item, "image_id",
                            in.image_id ? json_integer(strtoll(in.image_id, NULL, 10))
                                        : json_null());
        json_array_append_new(b->items, item);
    }
    imx_reply_json_steal(r, 200,
                         json_pack("{s:I, s:O}", "accepted", (json_int_t)b->n, "items", b->items));
    return 0;
}

/* Each report's GPU models by their canonical name, as images store theirs, so that ?gpu=H100
 * finds a node that named its GPU as nvidia-smi prints it ("NVIDIA H100 80GB HBM3"). A name
 * the reference does not know is kept as sent, and so are all when the reference cannot be read
 * (a report is not refused for it; drift matches spellings itself). */
static void canonical_gpus(struct imx_req *r, json_t *reports)
{
    const struct imx_ref_snapshot *ref = imx_db_ref_acquire(imx_api_conn(r), NULL, 0);
    if (!ref)
        return;
    size_t i, k;
    json_t *rep, *g;
    json_array_foreach(reports, i, rep)
    {
        json_t *gpus = json_object_get(json_object_get(rep, "probe"), "gpus");
        json_array_foreach(gpus, k, g)
        {
            const struct imx_ref_gpu *row = imx_compat_find_gpu(ref, json_string_value(g));
            if (row && strcmp(row->gpu_model, json_string_value(g)) != 0)
                json_array_set_new(gpus, k, json_string(row->gpu_model));
        }
    }
    imx_db_ref_release(ref);
}

void imx_api_node_report(struct imx_req *r)
{
    bool ndjson = false;
    json_t *reports = read_reports(r, &ndjson);
    if (!reports)
        return;
    json_t *errors = json_array();
    size_t i;
    json_t *rep;
    json_array_foreach(reports, i, rep)
    {
        char prefix[32] = "";
        if (ndjson)
            snprintf(prefix, sizeof prefix, "/%zu", i);
        check_report(rep, prefix, errors);
    }
    if (json_array_size(errors) > 0) {
        json_decref(reports);
        imx_reply_invalid_steal(r, errors, "The report has invalid fields");
        return;
    }
    json_decref(errors);
    struct lookups lk = { json_object(), json_object() };
    struct report_batch b = { calloc(json_array_size(reports), sizeof *b.p), 0, NULL };
    if (!b.p || !imx_api_db(r))
        goto out;
    canonical_gpus(r, reports);
    json_array_foreach(reports, i, rep)
    {
        long long team = report_team(r, rep, &lk);
        if (!team)
            goto out;
        json_t *manifest = report_image(r, json_object_get(rep, "image"), &lk);
        if (!manifest)
            goto out;
        b.n++;
        if (prepare(&b.p[i], rep, team, manifest) != 0) {
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
            goto out;
        }
    }
    imx_api_tx(r, report_tx, &b);
out:
    for (size_t k = 0; b.p && k < b.n; k++)
        prepared_free(&b.p[k]);
    free(b.p);
    json_decref(b.items);
    json_decref(lk.teams);
    json_decref(lk.images);
    json_decref(reports);
}

/* ---- Reads ---- */

static char stale_text[16];

static const char *stale_s(void)
{
    snprintf(stale_text, sizeof stale_text, "%u", imx_api_nodes.stale_s);
    return stale_text;
}

/* A true/false query parameter into "true"/"false" (NULL when absent). Returns false after
 * replying 400. */
static bool bool_param(struct imx_req *r, const char *name, const char **out)
{
    const char *v = imx_req_query(r, name);
    *out = NULL;
    if (!v)
        return true;
    if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
        *out = v;
        return true;
    }
    imx_reply_bad_param(r, name, "%s must be true or false", name);
    return false;
}

static bool id_param(struct imx_req *r, const char *name, const char **out)
{
    unsigned long long v;
    *out = imx_req_query(r, name);
    if (!*out || imx_parse_uint(*out, 1, INT64_MAX, &v) == 0)
        return true;
    imx_reply_bad_param(r, name, "%s must be a positive id", name);
    return false;
}

/* A list's filters, kept for its export's pages (every text a copy). */
struct node_list {
    struct imx_api_scope sc;
    char *image, *family, *pin, *drift, *stale, *gpu, *patch;
    char stale_s[16];
};

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void node_list_free(void *cls)
{
    struct node_list *x = cls;
    free(x->image);
    free(x->family);
    free(x->pin);
    free(x->drift);
    free(x->stale);
    free(x->gpu);
    free(x->patch);
    free(x);
}

static struct imx_db_node_filter filter_of(const struct node_list *x)
{
    return (struct imx_db_node_filter){
        .scope = { x->sc.s.user_id ? x->sc.user : NULL,
                   x->sc.s.token_team ? x->sc.token_team : NULL, x->sc.s.team ? x->sc.team : NULL },
        .image_id = x->image,
        .family = x->family,
        .pin_id = x->pin,
        .drift = x->drift,
        .stale = x->stale,
        .gpu = x->gpu,
        .patch_status = x->patch,
        .stale_s = x->stale_s,
    };
}

static int node_export_page(struct imx_db_conn *c, const void *cls, const char *after,
                            const char *limit, char **doc, char **next_key)
{
    struct imx_db_node_filter f = filter_of(cls);
    char buf[24];
    return imx_db_nodes_page(c, &f, imx_api_key_text_int0(after, buf, sizeof buf), limit, doc,
                             next_key, NULL) == IMX_DBS_OK
               ? 0
               : -1;
}

static const char *const node_columns[] = {
    "name",          "team",      "image.id", "image.family", "image.version", "image.patch_status",
    "instance_type", "gpu_count", "gpus",     "drift",        "drift_since",   "stale",
    "last_seen",     "reports",   NULL,
};

/* Replies 200 with a page document and its next key (both new texts, freed here). */
static void reply_page(struct imx_req *r, char *doc_text, char *next_key)
{
    imx_api_reply_doc_next(r, doc_text, next_key);
    free(doc_text);
    free(next_key);
}

static const char *const patch_statuses[] = { "ok", "vulnerable", "patch_available", "revoked" };

void imx_api_node_list(struct imx_req *r)
{
    struct node_list *x = calloc(1, sizeof *x);
    if (!x) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    const char *image, *pin, *drift, *stale;
    const char *patch = imx_req_query(r, "patch_status");
    const char *gpu = imx_req_query(r, "gpu");
    const char *family = imx_req_query(r, "family");
    unsigned long long limit;
    json_t *key = NULL;
    if (!id_param(r, "image", &image) || !id_param(r, "pin", &pin) ||
        !bool_param(r, "drift", &drift) || !bool_param(r, "stale", &stale) ||
        !imx_api_list_limit(r, &limit) || !imx_api_cursor_key(r, "I", &key))
        goto fail;
    if (patch) {
        bool ok = false;
        for (size_t i = 0; i < sizeof patch_statuses / sizeof patch_statuses[0]; i++)
            ok = ok || strcmp(patch, patch_statuses[i]) == 0;
        if (!ok) {
            imx_reply_bad_param(r, "patch_status",
                                "patch_status must be ok, vulnerable, patch_available or revoked");
            goto fail;
        }
    }
    if ((gpu && !short_text_ok(gpu, 64)) || (family && !short_text_ok(family, 100))) {
        imx_reply_bad_param(r, gpu && !short_text_ok(gpu, 64) ? "gpu" : "family",
                            "must be 1 to 64 (family: 100) visible characters");
        goto fail;
    }
    if (imx_api_cost_scope(r, imx_req_query(r, "team"), &x->sc) != 0)
        goto fail;
    x->image = dup_or_null(image);
    x->family = dup_or_null(family);
    x->pin = dup_or_null(pin);
    x->drift = dup_or_null(drift);
    x->stale = dup_or_null(stale);
    x->gpu = dup_or_null(gpu);
    x->patch = dup_or_null(patch);
    snprintf(x->stale_s, sizeof x->stale_s, "%s", stale_s());
    enum imx_export_format format = imx_api_export_format(r);
    if (format != IMX_EXPORT_NONE) {
        json_decref(key);
        imx_api_export_doc_steal(r, format, node_columns, node_export_page, "items", x,
                                 node_list_free);
        return;
    }
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        goto fail;
    char buf[24], lim[16];
    snprintf(lim, sizeof lim, "%llu", limit);
    struct imx_db_node_filter f = filter_of(x);
    char *doc = NULL, *next = NULL;
    enum imx_db_status rc =
        imx_db_nodes_page(c, &f, imx_api_key_text(key, 0, buf, sizeof buf), lim, &doc, &next, NULL);
    if (rc != IMX_DBS_OK)
        imx_api_reply_db_status(r, rc);
    else
        reply_page(r, doc, next);
fail:
    json_decref(key);
    node_list_free(x);
}

void imx_api_node_get(struct imx_req *r)
{
    const char *name = imx_req_param(r, "name");
    const char *hist = imx_req_query(r, "history");
    unsigned long long h = HISTORY_DEFAULT;
    if (hist && imx_parse_uint(hist, 0, HISTORY_MAX, &h) != 0) {
        imx_reply_bad_param(r, "history", "history must be from 0 to %d", HISTORY_MAX);
        return;
    }
    if (!node_name_ok(name)) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No node '%.64s'", name);
        return;
    }
    struct imx_api_scope sc;
    if (imx_api_cost_scope(r, imx_req_query(r, "team"), &sc) != 0)
        return;
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    char htxt[16];
    snprintf(htxt, sizeof htxt, "%llu", h);
    struct imx_db_node_scope s = { sc.s.user_id, sc.s.token_team, sc.s.team };
    char *json = NULL;
    enum imx_db_status rc = imx_db_node_get(c, &s, name, stale_s(), htxt, &json, NULL);
    if (rc == IMX_DBS_NOT_FOUND)
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No node '%s'", name);
    else if (rc == IMX_DBS_CONFLICT)
        imx_reply_problem(r, IMX_E_CONFLICT,
                          "Several of your teams have a node '%s': name one with ?team=", name);
    else if (rc != IMX_DBS_OK)
        imx_api_reply_db_status(r, rc);
    else
        imx_reply_raw_steal(r, 200, "application/json", json, strlen(json), NULL, NULL);
}

void imx_api_fleet(struct imx_req *r)
{
    unsigned long long limit;
    if (!imx_api_list_limit(r, &limit))
        return;
    struct imx_api_scope sc;
    if (imx_api_cost_scope(r, imx_req_query(r, "team"), &sc) != 0)
        return;
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    char lim[16];
    snprintf(lim, sizeof lim, "%llu", limit);
    struct imx_db_node_scope s = { sc.s.user_id, sc.s.token_team, sc.s.team };
    char *json = NULL;
    enum imx_db_status rc = imx_db_fleet_counts(c, &s, stale_s(), lim, &json, NULL);
    if (rc != IMX_DBS_OK)
        imx_api_reply_db_status(r, rc);
    else
        imx_reply_raw_steal(r, 200, "application/json", json, strlen(json), NULL, NULL);
}

void imx_api_advisory_exposure(struct imx_req *r)
{
    const char *id = imx_req_param(r, "id");
    unsigned long long limit;
    if (!imx_api_list_limit(r, &limit))
        return;
    if (!short_text_ok(id, 100)) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No advisory '%.64s'", id);
        return;
    }
    struct imx_api_scope sc;
    if (imx_api_cost_scope(r, NULL, &sc) != 0)
        return;
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    char lim[16];
    snprintf(lim, sizeof lim, "%llu", limit);
    struct imx_db_node_scope s = { sc.s.user_id, sc.s.token_team, NULL };
    char *json = NULL;
    enum imx_db_status rc = imx_db_advisory_exposure(c, id, &s, stale_s(), lim, &json, NULL);
    if (rc == IMX_DBS_NOT_FOUND)
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No advisory '%s'", id);
    else if (rc != IMX_DBS_OK)
        imx_api_reply_db_status(r, rc);
    else
        imx_reply_raw_steal(r, 200, "application/json", json, strlen(json), NULL, NULL);
}
