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
#include "db/reference_import.h"
#include "domain/csv.h"
#include "jobs/reference_import.h"
#include "util/log.h"

#define CSV_FILE_MAX  (16u * 1024u * 1024u) /* bytes in one table's file */
#define LINE_MAX_SIZE (1024u * 1024u)       /* one exported CSV line */

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

static void print_db_error(const char *what, const struct imx_db_fault *f)
{
    fprintf(stderr, "reference %s: %s%s%s (SQLSTATE %s); nothing was changed\n", what,
            f->message[0] ? f->message : "the database failed", f->detail[0] ? ": " : "", f->detail,
            f->sqlstate[0] ? f->sqlstate : "none");
}

/* Reads DIR's CSV files into {"gpu": "csv text", ...} and names the data version: DIR/VERSION's
 * first line, else the directory and a digest of the files. Returns a new object or NULL. */
static json_t *load_dir(const char *dir, char *version, size_t vlen, char *err, size_t errlen)
{
    json_t *out = json_object();
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!out || !md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < imx_refimp_n_tables; i++) {
        const char *name = imx_refimp_tables[i];
        char path[4096];
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s.csv", dir, name);
        errno = 0;
        char *text = read_file(path, &len, err, errlen);
        if (!text) {
            if (errno == ENOENT)
                continue;
            goto fail;
        }
        EVP_DigestUpdate(md, name, strlen(name));
        EVP_DigestUpdate(md, text, len);
        json_t *v = json_stringn(text, len);
        free(text);
        if (!v) {
            snprintf(err, errlen, "%.300s: not UTF-8 text", path);
            goto fail;
        }
        json_object_set_new(out, name, v);
    }
    if (json_object_size(out) == 0) {
        snprintf(err, errlen, "%.300s holds no reference table (gpu.csv, cuda_driver.csv, ...)",
                 dir);
        goto fail;
    }
    unsigned char sum[EVP_MAX_MD_SIZE];
    unsigned int sl = 0;
    EVP_DigestFinal_ex(md, sum, &sl);
    char vpath[4096], verr[64];
    snprintf(vpath, sizeof vpath, "%s/VERSION", dir);
    size_t vl = 0;
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

static int import(struct imx_db_conn *c, const char *dir, bool dry_run)
{
    char err[512], version[256], today[16];
    json_t *csv = load_dir(dir, version, sizeof version, err, sizeof err);
    json_t *parsed = csv ? imx_refimp_parse(csv, err, sizeof err) : NULL;
    json_decref(csv);
    if (!parsed) {
        fprintf(stderr, "reference import: %s; nothing was changed\n", err);
        return 1;
    }
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(today, sizeof today, "%Y-%m-%d", &tm);
    if (imx_db_tx(c, IMX_DB_TX_BEGIN, NULL) != IMX_DBS_OK) {
        json_decref(parsed);
        fprintf(stderr, "reference import: cannot start a transaction; nothing was changed\n");
        return 1;
    }
    json_t *out = NULL;
    struct imx_db_fault failed;
    int rc = imx_refimp_run(c, parsed, version, NULL, NULL, today, &out, &failed, err, sizeof err);
    json_decref(parsed);
    if (rc != 0) {
        if (failed.status != IMX_DBS_OK)
            print_db_error("import", &failed);
        else
            fprintf(stderr, "reference import: %s; nothing was changed\n", err);
    }
    if (rc == 0 && !dry_run && imx_db_tx(c, IMX_DB_TX_COMMIT, NULL) != IMX_DBS_OK) {
        fprintf(stderr, "reference import: the commit failed; nothing was changed\n");
        rc = -1;
    }
    if (rc != 0 || dry_run)
        imx_db_tx(c, IMX_DB_TX_ROLLBACK, NULL);
    if (rc == 0) {
        json_object_set_new(out, "data_version", json_string(version));
        json_object_set_new(out, "dry_run", json_boolean(dry_run));
        char *o = json_dumps(out, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (o)
            printf("%s\n", o);
        free(o);
    }
    json_decref(out);
    return rc == 0 ? 0 : 1;
}

static int export_one(struct imx_db_conn *c, const char *dir, const char *table)
{
    char name[64], path[4096];
    snprintf(name, sizeof name, "ref_%s", table);
    struct imx_db_json j;
    struct imx_db_fault why;
    enum imx_db_status st = imx_db_ref_export(c, name, &j, &why);
    json_t *doc = st == IMX_DBS_OK ? json_loadb(j.text, j.len, 0, NULL) : NULL;
    imx_db_json_free(&j);
    if (!doc) {
        print_db_error("export", &why);
        return -1;
    }
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
    enum imx_db_status why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    int rc = 1;
    if (!c) {
        fprintf(stderr, "reference: the database is unavailable\n");
    } else if (is_import) {
        rc = import(c, args[1], dry_run);
    } else {
        rc = 0;
        for (size_t i = 0; i < imx_refimp_n_tables && rc == 0; i++)
            rc = export_one(c, args[1], imx_refimp_tables[i]) == 0 ? 0 : 1;
        if (rc == 0)
            imx_info("reference export: %zu tables written to %s", imx_refimp_n_tables, args[1]);
    }
    imx_db_release(c);
    imx_db_pool_shutdown();
    return rc;
}
