/* Applies migrations/NNNN_name.sql in order, once each, then (re)loads the use-case procedures
 * of migrations/procedures/ whose text changed, all under a PostgreSQL advisory lock. */
#include "db/migrate.h"

#include <dirent.h>
#include <stdbool.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/pool.h"
#include "util/config.h"
#include "util/log.h"

/* Shared by every imaxe server: whoever holds it migrates, the others wait. */
#define MIGRATION_LOCK_KEY "7260451190021"
#define MAX_MIGRATIONS     1000
#define MAX_MIGRATION_SIZE (64 * 1024 * 1024)

struct migration {
    int version;
    char name[256];
};

static int parse_name(const char *fname, struct migration *m)
{
    size_t len = strlen(fname);
    if (len < 10 || len >= sizeof m->name || strcmp(fname + len - 4, ".sql") != 0)
        return -1;
    for (int i = 0; i < 4; i++)
        if (fname[i] < '0' || fname[i] > '9')
            return -1;
    if (fname[4] != '_')
        return -1;
    m->version =
        (fname[0] - '0') * 1000 + (fname[1] - '0') * 100 + (fname[2] - '0') * 10 + (fname[3] - '0');
    snprintf(m->name, sizeof m->name, "%s", fname);
    return 0;
}

static int cmp_migration(const void *a, const void *b)
{
    return ((const struct migration *)a)->version - ((const struct migration *)b)->version;
}

/* Lists dir's migrations sorted by version. Returns the count, or -1 with err. */
static int list_migrations(const char *dir, struct migration *out, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) {
        snprintf(err, errlen, "cannot open migrations directory %s", dir);
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct migration m;
        if (e->d_name[0] == '.' || parse_name(e->d_name, &m) != 0)
            continue;
        if (n == MAX_MIGRATIONS) {
            closedir(d);
            snprintf(err, errlen, "too many migrations in %s", dir);
            return -1;
        }
        out[n++] = m;
    }
    closedir(d);
    qsort(out, (size_t)n, sizeof *out, cmp_migration);
    for (int i = 1; i < n; i++)
        if (out[i].version == out[i - 1].version) {
            snprintf(err, errlen, "two migrations share version %04d: %s and %s", out[i].version,
                     out[i - 1].name, out[i].name);
            return -1;
        }
    return n;
}

int imx_migrations_latest(const char *dir, char *err, size_t errlen)
{
    static struct migration list[MAX_MIGRATIONS];
    int n = list_migrations(dir, list, err, errlen);
    if (n < 0)
        return -1;
    return n ? list[n - 1].version : 0;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long sz = ftell(f);
        if (sz >= 0 && sz <= MAX_MIGRATION_SIZE && fseek(f, 0, SEEK_SET) == 0) {
            buf = malloc((size_t)sz + 1);
            if (buf && fread(buf, 1, (size_t)sz, f) == (size_t)sz) {
                buf[sz] = '\0';
                *len = (size_t)sz;
            } else {
                free(buf);
                buf = NULL;
            }
        }
    }
    fclose(f);
    return buf;
}

static void sha256_hex(const char *data, size_t len, char out[65])
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)data, len, md);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* Runs sql; on failure copies the server's message into err. */
static int run(PGconn *pg, const char *sql, char *err, size_t errlen)
{
    PGresult *res = PQexec(pg, sql);
    ExecStatusType st = PQresultStatus(res);
    int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "%s", PQerrorMessage(pg));
    PQclear(res);
    return rc;
}

/* The checksum of a migration file, or "" when it cannot be read. Borrowed, per thread. */
static const char *checksum_of(const char *dir, const struct migration *m)
{
    static _Thread_local char sum[65];
    char path[1024];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", dir, m->name);
    char *sql = read_file(path, &len);
    sum[0] = '\0';
    if (sql)
        sha256_hex(sql, len, sum);
    free(sql);
    return sum;
}

static int apply_one(PGconn *pg, const char *dir, const struct migration *m, char *err,
                     size_t errlen)
{
    char path[1024], sum[65], version[16], msg[512];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", dir, m->name);
    char *sql = read_file(path, &len);
    if (!sql) {
        snprintf(err, errlen, "cannot read migration %s", path);
        return -1;
    }
    sha256_hex(sql, len, sum);
    snprintf(version, sizeof version, "%d", m->version);

    int rc = run(pg, "BEGIN", msg, sizeof msg);
    if (rc == 0 && run(pg, sql, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "migration %s failed: %s", m->name, msg);
        rc = -1;
    }
    if (rc == 0) {
        const char *params[] = { version, m->name, sum };
        PGresult *res = PQexecParams(pg,
                                     "INSERT INTO schema_migrations (version, name, checksum) "
                                     "VALUES ($1, $2, $3)",
                                     3, NULL, params, NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
            snprintf(err, errlen, "recording migration %s failed: %s", m->name, PQerrorMessage(pg));
            rc = -1;
        }
        PQclear(res);
    }
    if (rc == 0 && run(pg, "COMMIT", msg, sizeof msg) != 0) {
        snprintf(err, errlen, "migration %s failed at commit: %s", m->name, msg);
        rc = -1;
    }
    if (rc != 0) {
        PQclear(PQexec(pg, "ROLLBACK"));
        char *nl = strrchr(err, '\n');
        if (nl && nl[1] == '\0')
            *nl = '\0';
    } else {
        imx_info("applied migration %s", m->name);
    }
    free(sql);
    return rc;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Loads every procedures/NAME.sql (in name order) whose checksum differs from the one recorded
 * in schema_procedures, in one transaction. Each file only CREATE OR REPLACEs functions, so
 * loading it again is harmless; skipping unchanged files spares every session a replan. */
static int load_procedures(PGconn *pg, const char *dir, char *err, size_t errlen)
{
    char pdir[1024], msg[512];
    snprintf(pdir, sizeof pdir, "%s/procedures", dir);
    DIR *d = opendir(pdir);
    if (!d)
        return 0; /* none: an older layout */
    static char names[MAX_MIGRATIONS][256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 5 || len >= sizeof names[0] ||
            strcmp(e->d_name + len - 4, ".sql") != 0)
            continue;
        if (n == MAX_MIGRATIONS) {
            closedir(d);
            snprintf(err, errlen, "too many procedure files in %s", pdir);
            return -1;
        }
        snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_name);

    int rc = run(pg, "BEGIN", msg, sizeof msg);
    int loaded = 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        char path[1400], sum[65];
        size_t len = 0;
        snprintf(path, sizeof path, "%.1023s/%.255s", pdir, names[i]);
        char *sql = read_file(path, &len);
        if (!sql) {
            snprintf(err, errlen, "cannot read procedure file %s", path);
            rc = -1;
            break;
        }
        sha256_hex(sql, len, sum);
        const char *params[] = { names[i], sum };
        PGresult *res = PQexecParams(pg,
                                     "SELECT 1 FROM schema_procedures WHERE name = $1 AND "
                                     "checksum = $2",
                                     2, NULL, params, NULL, NULL, 0);
        bool same = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1;
        PQclear(res);
        if (!same) {
            if (run(pg, sql, msg, sizeof msg) != 0) {
                snprintf(err, errlen, "procedure file %s failed: %s", names[i], msg);
                rc = -1;
            } else {
                res = PQexecParams(pg,
                                   "INSERT INTO schema_procedures (name, checksum) VALUES ($1, $2)"
                                   " ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum,"
                                   " applied_at = now()",
                                   2, NULL, params, NULL, NULL, 0);
                if (PQresultStatus(res) != PGRES_COMMAND_OK) {
                    snprintf(err, errlen, "recording procedure file %s failed: %s", names[i],
                             PQerrorMessage(pg));
                    rc = -1;
                }
                PQclear(res);
                loaded++;
            }
        }
        free(sql);
    }
    if (rc == 0 && run(pg, "COMMIT", msg, sizeof msg) != 0) {
        snprintf(err, errlen, "loading procedures failed at commit: %s", msg);
        rc = -1;
    }
    if (rc != 0) {
        PQclear(PQexec(pg, "ROLLBACK"));
        char *nl = strrchr(err, '\n');
        if (nl && nl[1] == '\0')
            *nl = '\0';
    } else if (loaded > 0) {
        imx_info("loaded %d procedure file%s", loaded, loaded == 1 ? "" : "s");
    }
    return rc;
}

int imx_migrate(PGconn *pg, const char *dir, int *latest, char *err, size_t errlen)
{
    static struct migration list[MAX_MIGRATIONS];
    char msg[512];
    int n = list_migrations(dir, list, err, errlen);
    if (n < 0)
        return -1;
    *latest = n ? list[n - 1].version : 0;

    if (run(pg, "SELECT pg_advisory_lock(" MIGRATION_LOCK_KEY ")", msg, sizeof msg) != 0) {
        snprintf(err, errlen, "cannot take the migration lock: %s", msg);
        return -1;
    }
    int rc = run(pg,
                 "CREATE TABLE IF NOT EXISTS schema_migrations ("
                 " version integer PRIMARY KEY,"
                 " name text NOT NULL,"
                 " checksum text NOT NULL,"
                 " applied_at timestamptz NOT NULL DEFAULT now())",
                 msg, sizeof msg);
    if (rc != 0)
        snprintf(err, errlen, "cannot create schema_migrations: %s", msg);

    PGresult *applied = NULL;
    if (rc == 0) {
        applied = PQexec(pg, "SELECT version, checksum FROM schema_migrations ORDER BY version");
        if (PQresultStatus(applied) != PGRES_TUPLES_OK) {
            snprintf(err, errlen, "cannot read schema_migrations: %s", PQerrorMessage(pg));
            rc = -1;
        }
    }
    for (int i = 0; rc == 0 && i < n; i++) {
        int done = 0;
        for (int j = 0; j < PQntuples(applied) && !done; j++) {
            unsigned long long v = 0;
            if (imx_parse_uint(PQgetvalue(applied, j, 0), 0, 9999, &v) != 0 ||
                (int)v != list[i].version)
                continue;
            done = 1;
            if (strcmp(PQgetvalue(applied, j, 1), checksum_of(dir, &list[i])) != 0)
                imx_warn("migration %s changed after it was applied; edit a new migration instead",
                         list[i].name);
        }
        if (!done)
            rc = apply_one(pg, dir, &list[i], err, errlen);
    }
    PQclear(applied);
    if (rc == 0)
        rc = load_procedures(pg, dir, err, errlen);
    PQclear(PQexec(pg, "SELECT pg_advisory_unlock(" MIGRATION_LOCK_KEY ")"));
    return rc;
}

IMX_DB_STMT(q_migrations_applied, 0, "SELECT coalesce(max(version), 0) FROM schema_migrations");

int imx_db_migrations_applied(struct imx_db_conn *c, unsigned long long *applied)
{
    PGresult *res = imx_db_exec(c, &q_migrations_applied, NULL);
    int rc = -1;
    if (imx_db_ok(res) && PQntuples(res) == 1 &&
        imx_parse_uint(PQgetvalue(res, 0, 0), 0, 1000000, applied) == 0)
        rc = 0;
    PQclear(res);
    return rc;
}
