/* Reference data: GET /v1/reference (the data version in use) and GET /v1/reference/{table} for
 * everyone signed in; for global admins, audited, POST /v1/reference (an import of CSV tables,
 * as `imaxe-server reference import`), POST /v1/reference/{table} (add a row) and PUT (correct a
 * row, found by its primary key). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "api/cursor.h"
#include "api/etag.h"
#include "auth/auth.h"
#include "db/reference.h"
#include "db/reference_import.h"
#include "api/tx.h"
#include "jobs/reference_import.h"

/* The ref_ table named by {table}, into buf; NULL after replying 404. */
static const char *table_of(struct imx_req *r, char *buf, size_t len)
{
    const char *name = imx_req_param(r, "table");
    const char *t = imx_db_ref_table(name, buf, len);
    if (!t)
        imx_reply_problem(r, IMX_E_NOT_FOUND,
                          "No reference table %.40s; the tables are cuda_mvc, cuda_driver, "
                          "gpu_arch, gpu, driver_branch, cudnn, pytorch, pytorch_build, "
                          "tensorflow, instance_type, compute_capability, nccl, dcgm, jax, "
                          "nvidia_product, version_alias, commit_release",
                          name ? name : "");
    return t;
}

void imx_api_reference_version(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    struct imx_db_json j;
    enum imx_db_status st = imx_db_ref_data_version(c, &j, &why);
    imx_api_reply_json_text(r, 200, st, &why, &j, "No reference data");
}

void imx_api_reference_list(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    char table[64];
    if (!table_of(r, table, sizeof table))
        return;
    unsigned long long limit;
    json_t *key;
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_key(r, "o", &key))
        return;
    struct imx_db_conn *c = imx_api_db_read(r);
    /* The ETag names the reference data's generation, which every change of a row moves. */
    if (!c || !imx_api_etag(r, IMX_REV_REFERENCE, NULL, NULL)) {
        json_decref(key);
        return;
    }
    char lim[24], after[IMX_CURSOR_MAX];
    snprintf(lim, sizeof lim, "%llu", limit);
    struct imx_db_page page;
    enum imx_db_status st =
        imx_db_ref_rows(c, table, imx_api_key_text(key, 0, after, sizeof after), lim, &page, &why);
    imx_api_reply_doc_page(r, st, &why, &page, "No such table");
    json_decref(key);
}

struct ref_write {
    char table[64];
    const char *name;
    char *row; /* new JSON text */
    bool is_update;
};

/* Replies 400 for the values PostgreSQL refused, naming the columns where it says which. */
static void reply_refused(struct imx_req *r, const struct imx_db_fault *f)
{
    const char *detail = f->detail[0] ? f->detail : NULL;
    const char *column = f->column[0] ? f->column : NULL;
    bool unknown = f->cause == IMX_DBC_UNKNOWN_COLUMN, missing = f->cause == IMX_DBC_NOT_NULL;
    json_t *errors = json_array();
    char ptr[128];
    if ((unknown || missing) && detail && !column) {
        /* DETAIL lists the column names, comma-separated. */
        char names[sizeof f->detail];
        snprintf(names, sizeof names, "%s", detail);
        char *save = NULL;
        for (char *n = strtok_r(names, ",", &save); n; n = strtok_r(NULL, ",", &save))
            imx_verr(errors, imx_api_pointer(n, ptr, sizeof ptr),
                     unknown ? "unknown column" : "is required");
    } else if (column) {
        imx_verr(errors, imx_api_pointer(column, ptr, sizeof ptr), "%s",
                 missing ? "is required" : "has a value that was refused");
    } else {
        /* A check constraint or a bad value: PostgreSQL's first line names it. */
        imx_verr(errors, "", "%.300s", f->message[0] ? f->message : "a value was refused");
    }
    imx_reply_invalid_steal(r, errors, "The row was refused");
}

static int ref_write_tx(struct imx_req *r, void *cls)
{
    struct ref_write *w = cls;
    /* Correcting a row needs the ETag of the table it was read from (428 without, 412 when any
     * reference row changed since); adding one takes it too. */
    if (imx_api_if_match(r, IMX_REV_REFERENCE, NULL, NULL, w->is_update) < 0)
        return -1;
    struct imx_db_json j;
    struct imx_db_fault why;
    enum imx_db_status st =
        imx_db_ref_write(imx_api_conn(r), w->table, w->row, w->is_update, &j, &why);
    const struct imx_db_fault *f = &why;
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No %s row has that key", w->name);
        return -1;
    }
    if (st != IMX_DBS_OK && f->cause == IMX_DBC_UNIQUE) {
        imx_reply_problem(r, IMX_E_CONFLICT, "A %s row with that key exists; PUT corrects it",
                          w->name);
        return -1;
    }
    /* A bad value, a constraint, an unknown or a generated column. */
    if (st != IMX_DBS_OK &&
        (f->cause == IMX_DBC_VALUE || f->cause == IMX_DBC_CHECK || f->cause == IMX_DBC_NOT_NULL ||
         f->cause == IMX_DBC_FOREIGN_KEY || f->cause == IMX_DBC_INTEGRITY ||
         f->cause == IMX_DBC_UNKNOWN_COLUMN || f->cause == IMX_DBC_GENERATED_COLUMN)) {
        reply_refused(r, f);
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    json_t *stored = imx_api_json_load(&j);
    json_t *detail = json_pack("{s:O*}", "row", stored);
    int rc = imx_audit(r, w->is_update ? "update" : "create", w->table, w->name, detail);
    json_decref(detail);
    if (rc == 0)
        rc = imx_api_etag_after(r, IMX_REV_REFERENCE, NULL, NULL);
    if (rc != 0) {
        json_decref(stored);
        return -1;
    }
    imx_reply_json_steal(r, w->is_update ? 200 : 201, stored);
    return 0;
}

static void ref_write(struct imx_req *r, bool is_update)
{
    struct ref_write w = { .is_update = is_update, .name = imx_req_param(r, "table") };
    if (!table_of(r, w.table, sizeof w.table))
        return;
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    if (json_object_size(body) == 0) {
        json_t *errors = json_array();
        imx_verr(errors, "", "must name at least one column");
        imx_reply_invalid_steal(r, errors, "The row is empty");
        return;
    }
    w.row = json_dumps(body, JSON_COMPACT);
    if (!w.row) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_api_tx(r, ref_write_tx, &w);
    free(w.row);
}

void imx_api_reference_create(struct imx_req *r)
{
    ref_write(r, false);
}

void imx_api_reference_update(struct imx_req *r)
{
    ref_write(r, true);
}

/* ---- POST /v1/reference: an import of CSV tables (global admins) ---- */

static const struct imx_api_field import_fields[] = {
    { "data_version", JSON_STRING, true },
    { "tables", JSON_OBJECT, true },
    { "dry_run", JSON_TRUE, false },
    { NULL, JSON_NULL, false },
};

struct ref_import {
    json_t *parsed; /* borrowed: the procedure's input */
    const char *version;
    bool dry_run;
    char user_id[24];
};

/* Replies for a statement of the import that PostgreSQL refused. */
static int import_refused(struct imx_req *r, const struct imx_db_fault *f)
{
    const char *msg = f->message[0] ? f->message : NULL;
    const char *detail = f->detail[0] ? f->detail : NULL;
    if (f->cause == IMX_DBC_FOREIGN_KEY) {
        imx_reply_problem(r, IMX_E_CONFLICT,
                          "The import would break a foreign key, so nothing was changed: %.400s",
                          detail ? detail : (msg ? msg : ""));
        return -1;
    }
    json_t *listed = f->cause == IMX_DBC_CHECK && msg && detail &&
                             strcmp(msg, "contradictory reference rows") == 0
                         ? json_loads(detail, 0, NULL)
                         : NULL;
    if (json_is_array(listed)) {
        /* One error a contradiction, pointing at its table. */
        json_t *errors = json_array(), *e;
        size_t i;
        json_array_foreach(listed, i, e)
        {
            const char *table = json_string_value(json_object_get(e, "table"));
            char ptr[96];
            snprintf(ptr, sizeof ptr, "/tables%s%.64s", table && *table ? "/" : "",
                     table ? table : "");
            const char *d = json_string_value(json_object_get(e, "detail"));
            imx_verr(errors, ptr, "%.400s", d ? d : "contradicts another row");
        }
        json_decref(listed);
        imx_reply_invalid_steal(r, errors,
                                "Rows of the import contradict each other or the architecture "
                                "table; nothing changed");
        return -1;
    }
    json_decref(listed);
    if (f->cause == IMX_DBC_VALUE || f->cause == IMX_DBC_CHECK || f->cause == IMX_DBC_NOT_NULL ||
        f->cause == IMX_DBC_UNIQUE || f->cause == IMX_DBC_INTEGRITY ||
        f->cause == IMX_DBC_UNKNOWN_COLUMN || f->cause == IMX_DBC_UNKNOWN_TABLE ||
        f->cause == IMX_DBC_CARDINALITY) {
        json_t *errors = json_array();
        imx_verr(errors, "/tables", "%.300s%s%.300s", msg ? msg : "a value was refused",
                 detail ? ": " : "", detail ? detail : "");
        imx_reply_invalid_steal(r, errors, "The reference tables were refused; nothing changed");
        return -1;
    }
    if (f->status == IMX_DBS_RETRY)
        return imx_api_tx_fail(r, IMX_DBS_RETRY, f);
    imx_api_db_error(r, f);
    return -1;
}

static int ref_import_tx(struct imx_req *r, void *cls)
{
    struct ref_import *in = cls;
    char today[16], err[256];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(today, sizeof today, "%Y-%m-%d", &tm);
    json_t *out = NULL;
    struct imx_db_fault failed;
    if (imx_refimp_run(imx_api_conn(r), in->parsed, in->version, in->user_id, r->request_id, today,
                       &out, &failed, err, sizeof err) != 0) {
        if (failed.status != IMX_DBS_OK)
            return import_refused(r, &failed);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    json_object_set_new(out, "data_version", json_string(in->version));
    json_object_set_new(out, "dry_run", json_boolean(in->dry_run));
    imx_reply_json_steal(r, 200, out);
    /* A dry run answers with everything the import would do, then rolls it back. */
    return in->dry_run ? -1 : 0;
}

void imx_api_reference_import(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, import_fields, errors);
    const char *version = json_string_value(json_object_get(body, "data_version"));
    if (version && (strlen(version) == 0 || strlen(version) > 200))
        imx_verr(errors, "/data_version", "must be 1 to 200 characters");
    json_t *dry = json_object_get(body, "dry_run");
    json_t *parsed = NULL;
    if (json_array_size(errors) == 0) {
        char err[512];
        parsed = imx_refimp_parse(json_object_get(body, "tables"), err, sizeof err);
        if (!parsed)
            imx_verr(errors, "/tables", "%s", err);
    }
    if (!parsed) {
        imx_reply_invalid_steal(r, errors, "The reference import has invalid fields");
        return;
    }
    json_decref(errors);
    struct ref_import in = { .parsed = parsed, .version = version, .dry_run = json_is_true(dry) };
    snprintf(in.user_id, sizeof in.user_id, "%lld", (long long)r->principal.user_id);
    imx_api_tx(r, ref_import_tx, &in);
    json_decref(parsed);
}
