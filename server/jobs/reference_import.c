/* A reference data import: CSV tables parsed, imx_ref_import() (migrations/0018), then every
 * stored compatibility report recomputed with the new rows; the caller owns the transaction. */
#include "jobs/reference_import.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/reference.h"
#include "db/reference_import.h"
#include "domain/compat.h"
#include "domain/csv.h"

#define IMAGES_CHUNK 200 /* images recomputed per query */
#define MAX_GPUS     64

const char *const imx_refimp_tables[] = {
    "cuda_mvc",      "cuda_driver",   "gpu_arch",      "compute_capability",
    "gpu",           "driver_branch", "cudnn",         "pytorch",
    "pytorch_build", "tensorflow",    "instance_type",
};
const size_t imx_refimp_n_tables = sizeof imx_refimp_tables / sizeof imx_refimp_tables[0];

static bool known_table(const char *name)
{
    for (size_t i = 0; i < imx_refimp_n_tables; i++) {
        if (strcmp(name, imx_refimp_tables[i]) == 0)
            return true;
    }
    return false;
}

json_t *imx_refimp_parse(const json_t *csv, char *err, size_t errlen)
{
    json_t *out = json_object();
    const char *name;
    json_t *text;
    if (!out || !json_is_object(csv) || json_object_size(csv) == 0) {
        snprintf(err, errlen, "no reference table (gpu, cuda_driver, ...) was given");
        json_decref(out);
        return NULL;
    }
    json_object_foreach((json_t *)csv, name, text)
    {
        if (!known_table(name) || !json_is_string(text)) {
            snprintf(err, errlen, "%.64s: %s", name,
                     known_table(name) ? "must be CSV text" : "is not a reference table");
            json_decref(out);
            return NULL;
        }
        char perr[256], key[80];
        json_t *rows =
            imx_csv_rows(json_string_value(text), json_string_length(text), perr, sizeof perr);
        if (!rows) {
            snprintf(err, errlen, "%s: %s", name, perr);
            json_decref(out);
            return NULL;
        }
        snprintf(key, sizeof key, "ref_%s", name);
        json_object_set_new(out, key, rows);
    }
    return out;
}

/* One image's report with the snapshot, as JSON text (new), or NULL. */
static char *report_of(const struct imx_ref_snapshot *ref, const json_t *img, const char *today)
{
    struct imx_compat_component comps[IMX_COMPAT_MAX_COMPONENTS];
    const char *gpus[MAX_GPUS];
    size_t nc = 0, ng = 0, i;
    json_t *v;
    json_array_foreach(json_object_get(img, "components"), i, v)
    {
        if (nc < IMX_COMPAT_MAX_COMPONENTS)
            comps[nc++] = (struct imx_compat_component){
                json_string_value(json_object_get(v, "name")),
                json_string_value(json_object_get(v, "version")),
            };
    }
    json_array_foreach(json_object_get(img, "gpus"), i, v)
    {
        if (ng < MAX_GPUS)
            gpus[ng++] = json_string_value(v);
    }
    struct imx_compat_report *rep = malloc(sizeof *rep);
    char *text = NULL;
    if (rep && imx_compat_check_many(ref, comps, nc, gpus, ng, today, rep) == 0) {
        json_t *doc = imx_compat_report_json(rep);
        text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
        json_decref(doc);
    }
    free(rep);
    return text;
}

/* Recomputes every stored report with the snapshot the transaction sees; appends the ids whose
 * findings changed (and got an event) to changed. */
static int recompute(struct imx_db_conn *c, const char *version, const char *today, json_t *changed,
                     PGresult **failed, char *err, size_t errlen)
{
    /* The cached snapshot predates the import: load the one this transaction sees. */
    imx_db_ref_cache_clear();
    const struct imx_ref_snapshot *ref = imx_db_ref_acquire(c, err, errlen);
    if (!ref)
        return -1;
    int rc = 0;
    long long after = 0;
    for (;;) {
        PGresult *r = imx_db_ref_images_after(c, after, IMAGES_CHUNK);
        json_t *list = imx_db_ok(r) ? json_loads(PQgetvalue(r, 0, 0), 0, NULL) : NULL;
        if (!list) {
            *failed = r;
            rc = -1;
            break;
        }
        PQclear(r);
        size_t i, n = json_array_size(list);
        json_t *img;
        json_array_foreach(list, i, img)
        {
            long long id = json_integer_value(json_object_get(img, "id"));
            after = id;
            char *text = report_of(ref, img, today);
            if (!text) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            PGresult *u = imx_db_ref_image_report(c, id, text, version);
            free(text);
            if (!imx_db_ok(u)) {
                *failed = u;
                rc = -1;
                break;
            }
            if (PQntuples(u) == 1)
                json_array_append_new(changed, json_integer(id));
            PQclear(u);
        }
        json_decref(list);
        if (rc != 0 || n < IMAGES_CHUNK)
            break;
    }
    imx_db_ref_release(ref);
    /* That snapshot came from an uncommitted transaction: it must not outlive it in the cache. */
    imx_db_ref_cache_clear();
    return rc;
}

int imx_refimp_run(struct imx_db_conn *c, const json_t *parsed, const char *version,
                   const char *user_id, const char *request_id, const char *today, json_t **out,
                   PGresult **failed, char *err, size_t errlen)
{
    *out = NULL;
    *failed = NULL;
    err[0] = '\0';
    char *text = json_dumps(parsed, JSON_COMPACT);
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    PGresult *r = imx_db_ref_import(c, text, version, user_id, request_id);
    free(text);
    if (!imx_db_ok(r)) {
        *failed = r;
        return -1;
    }
    json_t *changes = json_loads(PQgetvalue(r, 0, 0), 0, NULL);
    PQclear(r);
    json_t *changed = json_array();
    if (!changes || !changed) {
        snprintf(err, errlen, "out of memory");
        json_decref(changes);
        json_decref(changed);
        return -1;
    }
    if (recompute(c, version, today, changed, failed, err, errlen) != 0) {
        json_decref(changes);
        json_decref(changed);
        return -1;
    }
    *out = json_pack("{s:o, s:o}", "tables", changes, "reports_changed", changed);
    return *out ? 0 : -1;
}
