/* Applies migrations/NNNN_name.sql in order, once each, then (re)loads the re-applied files whose
 * text changed: the SQL functions of migrations/functions/ (by subject), then the use-case
 * procedures of migrations/procedures/, all under a PostgreSQL advisory lock.
 *
 * Numbered migrations hold tables, indexes and data only; every SQL function has its one current
 * body in a re-applied file. A migration that needs functions while it runs (a trigger, a
 * generated column, a backfill) names their file on a line of its own,
 *   -- imaxe:load functions/version.sql
 * and the file is loaded there, inside the migration's transaction, with
 * check_function_bodies off (a current body may read tables that later migrations create; it is
 * checked when it runs). A file is loaded at most once a migrate. */
#include "db/migrate.h"

#include <dirent.h>
#include <stdbool.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/pool.h"
#include "db/internal.h"
#include "util/config.h"
#include "util/log.h"

/* Shared by every imaxe server: whoever holds it migrates, the others wait. */
#define MIGRATION_LOCK_KEY "7260451190021"
#define MAX_MIGRATIONS     1000
#define MAX_MIGRATION_SIZE (64 * 1024 * 1024)
#define MAX_REAPPLIED      256
#define LOAD_MARKER        "-- imaxe:load "

/* The re-applied files loaded during this migrate (by a migration's LOAD_MARKER line), with the
 * checksum of the text loaded, so that the final pass records them instead of loading them again.
 */
struct loaded_files {
    int n;
    struct {
        char rel[256];
        char sum[65];
    } f[MAX_REAPPLIED];
};

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
    int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY ? 0 : -1;
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

/* The name a re-applied file is recorded under in schema_procedures: procedures/ files keep
 * their bare names (as recorded before functions/ existed), functions/ files their relative path.
 */
static const char *record_name(const char *rel)
{
    return strncmp(rel, "procedures/", 11) == 0 ? rel + 11 : rel;
}

static const char *loaded_sum(const struct loaded_files *lf, const char *rel)
{
    for (int i = 0; i < lf->n; i++)
        if (strcmp(lf->f[i].rel, rel) == 0)
            return lf->f[i].sum;
    return NULL;
}

/* Loads the re-applied file dir/rel inside the open transaction, unless this migrate loaded it
 * already; bodies unchecked when check_bodies is false. Returns 0, or -1 with err. */
static int load_marked(PGconn *pg, const char *dir, const char *rel, struct loaded_files *lf,
                       char *err, size_t errlen)
{
    char path[1400], msg[512];
    size_t len = 0;
    if (loaded_sum(lf, rel))
        return 0;
    if (strstr(rel, "..") ||
        (strncmp(rel, "functions/", 10) != 0 && strncmp(rel, "procedures/", 11) != 0)) {
        snprintf(err, errlen, "%s names %s, not a file of functions/ or procedures/", LOAD_MARKER,
                 rel);
        return -1;
    }
    if (lf->n == MAX_REAPPLIED) {
        snprintf(err, errlen, "too many re-applied files");
        return -1;
    }
    snprintf(path, sizeof path, "%.1023s/%.255s", dir, rel);
    char *sql = read_file(path, &len);
    if (!sql) {
        snprintf(err, errlen, "cannot read %.400s", path);
        return -1;
    }
    int rc = run(pg, "SET LOCAL check_function_bodies = off", msg, sizeof msg);
    if (rc == 0 && run(pg, sql, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "%.200s: %.300s", rel, msg);
        rc = -1;
    }
    if (rc == 0 && run(pg, "SET LOCAL check_function_bodies = DEFAULT", msg, sizeof msg) != 0)
        rc = -1;
    if (rc == 0) {
        snprintf(lf->f[lf->n].rel, sizeof lf->f[0].rel, "%s", rel);
        sha256_hex(sql, len, lf->f[lf->n].sum);
        lf->n++;
    }
    free(sql);
    return rc;
}

/* Runs a migration's text in the open transaction, loading the files its LOAD_MARKER lines name
 * where they stand. The text is cut at those lines; each piece ends between two statements. */
static int run_migration(PGconn *pg, const char *dir, char *sql, struct loaded_files *lf, char *err,
                         size_t errlen)
{
    char msg[512];
    char *piece = sql;
    for (;;) {
        char *mark = strstr(piece, "\n" LOAD_MARKER);
        if (mark)
            *mark = '\0';
        if (run(pg, piece, msg, sizeof msg) != 0) {
            snprintf(err, errlen, "%s", msg);
            return -1;
        }
        if (!mark)
            return 0;
        char *rel = mark + 1 + strlen(LOAD_MARKER);
        char *eol = strchr(rel, '\n');
        if (eol)
            *eol = '\0';
        size_t rl = strlen(rel);
        while (rl > 0 && (rel[rl - 1] == ' ' || rel[rl - 1] == '\r'))
            rel[--rl] = '\0';
        if (load_marked(pg, dir, rel, lf, err, errlen) != 0)
            return -1;
        if (!eol)
            return 0;
        piece = eol + 1;
    }
}

static int apply_one(PGconn *pg, const char *dir, const struct migration *m,
                     struct loaded_files *lf, char *err, size_t errlen)
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
    if (rc == 0 && run_migration(pg, dir, sql, lf, msg, sizeof msg) != 0) {
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

/* Lists dir/sub/ *.sql as "sub/NAME.sql", in name order, after the n names already in names.
 * Returns the new count, or -1 with err. */
static int list_reapplied(const char *dir, const char *sub, char (*names)[256], int n, char *err,
                          size_t errlen)
{
    char sdir[1024];
    snprintf(sdir, sizeof sdir, "%s/%s", dir, sub);
    DIR *d = opendir(sdir);
    if (!d)
        return n; /* none: an older layout */
    int first = n;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 5 || len + strlen(sub) + 1 >= sizeof names[0] ||
            strcmp(e->d_name + len - 4, ".sql") != 0)
            continue;
        if (n == MAX_REAPPLIED) {
            closedir(d);
            snprintf(err, errlen, "too many re-applied files in %s", sdir);
            return -1;
        }
        snprintf(names[n++], sizeof names[0], "%.15s/%.239s", sub, e->d_name);
    }
    closedir(d);
    qsort(names + first, (size_t)(n - first), sizeof names[0], cmp_name);
    return n;
}

/* Loads every functions/NAME.sql, then every procedures/NAME.sql (each folder in name order: a
 * file may use what an earlier one defines), whose checksum differs from the one recorded in
 * schema_procedures, in one transaction. Each file only CREATE OR REPLACEs functions, so loading
 * it again is harmless; skipping unchanged files spares every session a replan. A file that a
 * migration of this run loaded (lf) is only recorded. */
static int load_reapplied(PGconn *pg, const char *dir, const struct loaded_files *lf, char *err,
                          size_t errlen)
{
    static char names[MAX_REAPPLIED][256];
    char msg[512];
    int n = list_reapplied(dir, "functions", names, 0, err, errlen);
    if (n >= 0)
        n = list_reapplied(dir, "procedures", names, n, err, errlen);
    if (n < 0)
        return -1;

    int rc = run(pg, "BEGIN", msg, sizeof msg);
    int loaded = 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        char path[1400], sum[65];
        size_t len = 0;
        snprintf(path, sizeof path, "%.1023s/%.255s", dir, names[i]);
        char *sql = read_file(path, &len);
        if (!sql) {
            snprintf(err, errlen, "cannot read re-applied file %s", path);
            rc = -1;
            break;
        }
        sha256_hex(sql, len, sum);
        const char *params[] = { record_name(names[i]), sum };
        const char *marked = loaded_sum(lf, names[i]);
        /* Loaded by a migration of this run: only recorded. */
        bool record = marked && strcmp(marked, sum) == 0;
        if (!record) {
            PGresult *res = PQexecParams(pg,
                                         "SELECT 1 FROM schema_procedures WHERE name = $1 AND "
                                         "checksum = $2",
                                         2, NULL, params, NULL, NULL, 0);
            bool same = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1;
            PQclear(res);
            if (!same && run(pg, sql, msg, sizeof msg) != 0) {
                snprintf(err, errlen, "re-applied file %s failed: %s", names[i], msg);
                rc = -1;
            } else if (!same) {
                loaded++;
                record = true;
            }
        }
        if (rc == 0 && record) {
            PGresult *res =
                PQexecParams(pg,
                             "INSERT INTO schema_procedures (name, checksum) VALUES ($1, $2)"
                             " ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum,"
                             " applied_at = now()",
                             2, NULL, params, NULL, NULL, 0);
            if (PQresultStatus(res) != PGRES_COMMAND_OK) {
                snprintf(err, errlen, "recording re-applied file %s failed: %s", names[i],
                         PQerrorMessage(pg));
                rc = -1;
            }
            PQclear(res);
        }
        free(sql);
    }
    if (rc == 0 && run(pg, "COMMIT", msg, sizeof msg) != 0) {
        snprintf(err, errlen, "loading re-applied files failed at commit: %s", msg);
        rc = -1;
    }
    if (rc != 0) {
        PQclear(PQexec(pg, "ROLLBACK"));
        char *nl = strrchr(err, '\n');
        if (nl && nl[1] == '\0')
            *nl = '\0';
    } else if (loaded + lf->n > 0) {
        imx_info("loaded %d re-applied file%s (functions/, procedures/)", loaded + lf->n,
                 loaded + lf->n == 1 ? "" : "s");
    }
    return rc;
}

/* Whether sum is a checksum that migration name had before its function definitions moved to
 * the re-applied files (migrations/former_checksums: "NAME SHA256" a line, # comments). A
 * database migrated before the move then only has its recorded checksum brought up to date. */
static bool former_checksum(const char *dir, const char *name, const char *sum)
{
    char path[1024], line[512];
    snprintf(path, sizeof path, "%s/former_checksums", dir);
    FILE *f = fopen(path, "r");
    bool found = false;
    if (!f)
        return false;
    while (!found && fgets(line, sizeof line, f)) {
        char n[256], s[80];
        if (line[0] != '#' && sscanf(line, "%255s %79s", n, s) == 2 && strcmp(n, name) == 0 &&
            strcmp(s, sum) == 0)
            found = true;
    }
    fclose(f);
    return found;
}

int imx_migrate(PGconn *pg, const char *dir, int *latest, char *err, size_t errlen)
{
    static struct migration list[MAX_MIGRATIONS];
    char msg[512];
    int n = list_migrations(dir, list, err, errlen);
    if (n < 0)
        return -1;
    *latest = n ? list[n - 1].version : 0;

    struct loaded_files *lf = calloc(1, sizeof *lf);
    if (!lf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (run(pg, "SELECT pg_advisory_lock(" MIGRATION_LOCK_KEY ")", msg, sizeof msg) != 0) {
        free(lf);
        snprintf(err, errlen, "cannot take the migration lock: %s", msg);
        return -1;
    }
    /* libpq prints a NOTICE raw on stderr, between the JSON log lines: "relation
     * schema_migrations already exists, skipping" on every start but the first, and the like
     * from IF [NOT] EXISTS in migrations. Warnings and errors still come through. */
    int rc = run(pg, "SET client_min_messages = warning", msg, sizeof msg);
    if (rc == 0)
        rc = run(pg,
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
            const char *sum = checksum_of(dir, &list[i]);
            if (strcmp(PQgetvalue(applied, j, 1), sum) == 0)
                continue;
            if (!former_checksum(dir, list[i].name, PQgetvalue(applied, j, 1))) {
                imx_warn("migration %s changed after it was applied; edit a new migration instead",
                         list[i].name);
                continue;
            }
            const char *params[] = { PQgetvalue(applied, j, 0), sum };
            PGresult *res = PQexecParams(pg,
                                         "UPDATE schema_migrations SET checksum = $2 "
                                         "WHERE version = $1::integer",
                                         2, NULL, params, NULL, NULL, 0);
            if (PQresultStatus(res) != PGRES_COMMAND_OK) {
                snprintf(err, errlen, "updating the checksum of %s failed: %s", list[i].name,
                         PQerrorMessage(pg));
                rc = -1;
            } else {
                imx_info("migration %s: its functions moved to the re-applied files; recorded its "
                         "new checksum",
                         list[i].name);
            }
            PQclear(res);
        }
        if (!done && rc == 0)
            rc = apply_one(pg, dir, &list[i], lf, err, errlen);
    }
    PQclear(applied);
    if (rc == 0)
        rc = load_reapplied(pg, dir, lf, err, errlen);
    free(lf);
    PQclear(PQexec(pg, "SELECT pg_advisory_unlock(" MIGRATION_LOCK_KEY ")"));
    return rc;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

/* Connects for migrations, waiting up to wait_s for PostgreSQL to come up. */
static PGconn *connect_waiting(const char *url, unsigned wait_s, char *err, size_t errlen)
{
    time_t deadline = time(NULL) + wait_s;
    for (unsigned attempt = 0;; attempt++) {
        PGconn *pg = imx_db_connect_raw(url, 0, err, errlen);
        if (pg)
            return pg;
        if (time(NULL) >= deadline)
            return NULL;
        if (attempt == 0)
            imx_warn("waiting for PostgreSQL (up to %us): %s", wait_s, err);
        sleep_ms(500);
    }
}

int imx_db_migrate(const char *url, unsigned wait_s, const char *dir, int *latest, char *err,
                   size_t errlen)
{
    char why[256];
    PGconn *pg = connect_waiting(url, wait_s, why, sizeof why);
    if (!pg) {
        snprintf(err, errlen, "cannot connect to PostgreSQL: %s", why);
        return -1;
    }
    int rc = imx_migrate(pg, dir, latest, err, errlen);
    PQfinish(pg);
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
