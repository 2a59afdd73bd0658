/* imaxe-server reference import / export: CSV files in, one transaction, recomputed reports and
 * their events; or the tables out as the same CSV files. */
#include "cli/reference.h"

#include <errno.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/pool.h"
#include "db/reference.h"
#include "db/reference_import.h"
#include "domain/compat.h"
#include "domain/csv.h"
#include "util/log.h"

#define CSV_FILE_MAX  (16u * 1024u * 1024u) /* bytes in one table's file */
#define IMAGES_CHUNK  200                   /* images recomputed per query */
#define LINE_MAX_SIZE (1024u * 1024u)       /* one exported CSV line */
#define MAX_GPUS      64

/* The API names of the tables, parents first (ref_<name>, <name>.csv). */
static const char *const tables[] = {
    "cuda_mvc",      "cuda_driver",   "gpu_arch",      "compute_capability",
    "gpu",           "driver_branch", "cudnn",         "pytorch",
    "pytorch_build", "tensorflow",    "instance_type",
};
#define N_TABLES (sizeof tables / sizeof tables[0])

/* The whole file, NUL-terminated; NULL with errno ENOENT when it does not exist. New. */
static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno != ENOENT)
            snprintf(err, errlen, "%.300s: %.100s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(CSV_FILE_MAX + 1);
    size_t n = buf ? fread(buf, 1, CSV_FILE_MAX + 1, f) : 0;
    bool bad = !buf || ferror(f) || n > CSV_FILE_MAX;
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%.300s: cannot be read, or longer than %u bytes", path,
                 CSV_FILE_MAX);
        free(buf);
        errno = EIO;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void print_pg_error(const char *what, const PGresult *r)
{
    const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
    const char *detail = PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL);
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    fprintf(stderr, "reference %s: %s%s%s (SQLSTATE %s); nothing was changed\n", what,
            msg ? msg : "the database failed", detail ? ": " : "", detail ? detail : "",
            state ? state : "none");
}

/* Reads DIR's CSV files into {"ref_gpu": rows, ...} and names the data version: DIR/VERSION's
 * first line, else the directory and a digest of the files. Returns a new object or NULL. */
static json_t *load_dir(const char *dir, char *version, size_t vlen, char *err, size_t errlen)
{
    json_t *out = json_object();
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!out || !md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < N_TABLES; i++) {
        char path[4096], name[64];
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s.csv", dir, tables[i]);
        errno = 0;
        char *text = read_file(path, &len, err, errlen);
        if (!text) {
            if (errno == ENOENT)
                continue;
            goto fail;
        }
        char perr[256];
        json_t *rows = imx_csv_rows(text, len, perr, sizeof perr);
        EVP_DigestUpdate(md, tables[i], strlen(tables[i]));
        EVP_DigestUpdate(md, text, len);
        free(text);
        if (!rows) {
            snprintf(err, errlen, "%.300s: %.200s", path, perr);
            goto fail;
        }
        snprintf(name, sizeof name, "ref_%s", tables[i]);
        json_object_set_new(out, name, rows);
    }
    if (json_object_size(out) == 0) {
        snprintf(err, errlen, "%.300s holds no reference table (gpu.csv, cuda_driver.csv, ...)",
                 dir);
        goto fail;
    }
    unsigned char sum[EVP_MAX_MD_SIZE];
    unsigned int sl = 0;
    EVP_DigestFinal_ex(md, sum, &sl);
    char vpath[4096];
    snprintf(vpath, sizeof vpath, "%s/VERSION", dir);
    size_t vl = 0;
    char verr[64];
    char *v = read_file(vpath, &vl, verr, sizeof verr);
    size_t n = v ? strcspn(v, "\r\n") : 0;
    if (v && n > 0 && n <= 200) {
        snprintf(version, vlen, "%.*s", (int)n, v);
    } else {
        const char *base = strrchr(dir, '/');
        base = base && base[1] ? base + 1 : dir;
        snprintf(version, vlen, "%.120s sha256:%02x%02x%02x%02x%02x%02x", base, sum[0], sum[1],
                 sum[2], sum[3], sum[4], sum[5]);
    }
    free(v);
    EVP_MD_CTX_free(md);
    return out;
fail:
    EVP_MD_CTX_free(md);
    json_decref(out);
    return NULL;
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

/* Recomputes every stored report with the snapshot the transaction now sees; appends the ids of
 * the images whose findings changed (and got an event) to changed. Returns 0 or -1. */
static int recompute(struct imx_db_conn *c, const char *version, json_t *changed)
{
    char today[16], err[256];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(today, sizeof today, "%Y-%m-%d", &tm);
    imx_db_ref_cache_clear();
    const struct imx_ref_snapshot *ref = imx_db_ref_acquire(c, err, sizeof err);
    if (!ref) {
        fprintf(stderr, "reference import: %s; nothing was changed\n", err);
        return -1;
    }
    int rc = 0;
    long long after = 0;
    for (;;) {
        PGresult *r = imx_db_ref_images_after(c, after, IMAGES_CHUNK);
        json_t *list = imx_db_ok(r) ? json_loads(PQgetvalue(r, 0, 0), 0, NULL) : NULL;
        if (!list) {
            print_pg_error("import", r);
            PQclear(r);
            rc = -1;
            break;
        }
        PQclear(r);
        size_t i;
        json_t *img;
        json_array_foreach(list, i, img)
        {
            long long id = json_integer_value(json_object_get(img, "id"));
            after = id;
            char *text = report_of(ref, img, today);
            PGresult *u = text ? imx_db_ref_image_report(c, id, text, version) : NULL;
            free(text);
            if (!u || !imx_db_ok(u)) {
                if (u)
                    print_pg_error("import", u);
                PQclear(u);
                rc = -1;
                break;
            }
            if (PQntuples(u) == 1)
                json_array_append_new(changed, json_integer(id));
            PQclear(u);
        }
        size_t n = json_array_size(list);
        json_decref(list);
        if (rc != 0 || n < IMAGES_CHUNK)
            break;
    }
    imx_db_ref_release(ref);
    /* The snapshot came from an uncommitted transaction: never keep it. */
    imx_db_ref_cache_clear();
    return rc;
}

static int import(struct imx_db_conn *c, const char *dir, bool dry_run)
{
    char err[512], version[256];
    json_t *tables_json = load_dir(dir, version, sizeof version, err, sizeof err);
    if (!tables_json) {
        fprintf(stderr, "reference import: %s; nothing was changed\n", err);
        return 1;
    }
    char *text = json_dumps(tables_json, JSON_COMPACT);
    json_decref(tables_json);
    if (!text || imx_db_command(c, "BEGIN") != 0) {
        free(text);
        fprintf(stderr, "reference import: cannot start a transaction; nothing was changed\n");
        return 1;
    }
    PGresult *r = imx_db_ref_import(c, text, version, NULL);
    free(text);
    json_t *changes = imx_db_ok(r) ? json_loads(PQgetvalue(r, 0, 0), 0, NULL) : NULL;
    if (!changes)
        print_pg_error("import", r);
    PQclear(r);
    json_t *changed = json_array();
    int rc = changes && changed && recompute(c, version, changed) == 0 ? 0 : 1;
    if (rc == 0 && !dry_run && imx_db_command(c, "COMMIT") != 0) {
        fprintf(stderr, "reference import: the commit failed; nothing was changed\n");
        rc = 1;
    }
    if (rc != 0 || dry_run)
        imx_db_command(c, "ROLLBACK");
    if (rc == 0) {
        json_t *out = json_pack("{s:s, s:b, s:O, s:O}", "data_version", version, "dry_run", dry_run,
                                "tables", changes, "reports_changed", changed);
        char *o = out ? json_dumps(out, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
        if (o)
            printf("%s\n", o);
        free(o);
        json_decref(out);
    }
    json_decref(changes);
    json_decref(changed);
    return rc;
}

static int export_one(struct imx_db_conn *c, const char *dir, const char *table)
{
    char name[64], path[4096];
    snprintf(name, sizeof name, "ref_%s", table);
    PGresult *r = imx_db_ref_export(c, name);
    json_t *doc = imx_db_ok(r) ? json_loads(PQgetvalue(r, 0, 0), 0, NULL) : NULL;
    if (!doc)
        print_pg_error("export", r);
    PQclear(r);
    if (!doc)
        return -1;
    snprintf(path, sizeof path, "%s/%s.csv", dir, table);
    FILE *f = fopen(path, "w");
    char *line = malloc(LINE_MAX_SIZE);
    int rc = f && line ? 0 : -1;
    json_t *cols = json_object_get(doc, "columns"), *row, *v;
    size_t i, k, n = 0;
    json_array_foreach(cols, k, v)
    {
        if (rc == 0 && imx_csv_put(line, LINE_MAX_SIZE, &n, json_string_value(v), k == 0) != 0)
            rc = -1;
    }
    if (rc == 0)
        fprintf(f, "%s\n", line);
    json_array_foreach(json_object_get(doc, "rows"), i, row)
    {
        n = 0;
        json_array_foreach(row, k, v)
        {
            if (rc == 0 && imx_csv_put(line, LINE_MAX_SIZE, &n, json_string_value(v), k == 0) != 0)
                rc = -1;
        }
        if (rc == 0)
            fprintf(f, "%s\n", line);
    }
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "reference export: cannot write %s\n", path);
    free(line);
    json_decref(doc);
    return rc;
}

int imx_cli_reference(const struct imx_config *cfg, int nargs, char **args)
{
    bool is_import = nargs >= 2 && strcmp(args[0], "import") == 0;
    bool is_export = nargs == 2 && strcmp(args[0], "export") == 0;
    bool dry_run = is_import && nargs == 3 && strcmp(args[2], "--dry-run") == 0;
    if ((!is_import && !is_export) || (is_import && nargs > 2 && !dry_run)) {
        fprintf(stderr, "usage: imaxe-server reference import DIR [--dry-run]\n"
                        "       imaxe-server reference export DIR\n");
        return 2;
    }
    if (imx_db_pool_init(cfg->database_url, 1, cfg->db_acquire_ms, cfg->statement_ms) != 0)
        return 1;
    enum imx_db_failure why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    int rc = 1;
    if (!c) {
        fprintf(stderr, "reference: the database is unavailable\n");
    } else if (is_import) {
        rc = import(c, args[1], dry_run);
    } else {
        rc = 0;
        for (size_t i = 0; i < N_TABLES && rc == 0; i++)
            rc = export_one(c, args[1], tables[i]) == 0 ? 0 : 1;
        if (rc == 0)
            imx_info("reference export: %zu tables written to %s", N_TABLES, args[1]);
    }
    imx_db_release(c);
    imx_db_pool_shutdown();
    return rc;
}
