/* Loads the in-memory search index from PostgreSQL, keeps it current, and answers searches from
 * it (migrations/0010_search_index.sql says how the database tells what changed). */
#include "db/image_index.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/images_search.h"
#include "db/read_batch.h"
#include "db/internal.h"
#include "domain/image_index.h"
#include "util/json_text.h"
#include "util/log.h"

/* Rows per statement of a full load (bounds the memory of one result). */
#define LOAD_CHUNK 2000
/* A catch-up of more rows than this, or of more new images than DELTA_NEW_MAX, reloads
 * everything instead (off the lock: searches go on meanwhile). A new image is put in each sort
 * order at its place, moving what follows (~0.1 ms per 100,000 images, under the write lock);
 * a changed one is replaced in place. */
#define DELTA_MAX     5000
#define DELTA_NEW_MAX 256
/* Longest array or component_keys text accepted from a row. */
#define FIELD_TEXT_MAX 16384

/* component_keys as text, with the keys of entries 2..n of a component listed more than once
 * (component_alt_keys: two driver trees) added under the same name, so that the index matches
 * a constraint by any entry as the SQL search does. */
#define IX_COMPONENT_KEYS                                                                          \
    "CASE WHEN i.component_alt_keys IS NULL THEN i.component_keys::text"                           \
    " ELSE rtrim(i.component_keys::text, '}') || (SELECT string_agg(', ' || to_json(e.key)::text"  \
    " || ': ' || v.v::text, '') FROM jsonb_each(i.component_alt_keys) e,"                          \
    " jsonb_array_elements(e.value) v(v)) || '}' END"

/* The search keys of an images row, in this order (see struct imx_ix_row). */
#define IX_COLUMNS                                                                                 \
    "i.id, i.family, i.provider, i.architecture, i.os_name, i.os_version, i.layer, i.status,"      \
    " i.patch_status, (extract(epoch FROM i.published_at) * 1000000)::bigint,"                     \
    " (extract(epoch FROM i.revoke_at) * 1000000)::bigint, i.boot_seconds, i.size_gb,"             \
    " i.facet_cuda, i.facet_driver, i.gpus, i.regions, i.tags, i.facet_frameworks,"                \
    " " IX_COMPONENT_KEYS ", coalesce(i.os_patch_status, 'unknown'), i.parent_id, i.version"

IMX_DB_STMT(stmt_state, 0,
            "SELECT s.instance, s.generation, s.deletions, pg_current_snapshot(),"
            " (SELECT generation FROM ref_generation) FROM image_index_state s");
/* How much room a full load needs. */
IMX_DB_STMT(stmt_sizes, 0, "SELECT count(*) FROM images");
IMX_DB_STMT(stmt_chunk, 2,
            "SELECT " IX_COLUMNS " FROM images i WHERE i.id > $1::bigint ORDER BY i.id"
            " LIMIT $2::int");
/* Rows written by transactions that the snapshot $1 did not see. */
IMX_DB_STMT(stmt_delta, 2,
            "SELECT " IX_COLUMNS " FROM images i"
            " WHERE i.written_xid >= pg_snapshot_xmin($1::pg_snapshot)"
            " AND NOT pg_visible_in_snapshot(i.written_xid, $1::pg_snapshot)"
            " ORDER BY i.id LIMIT $2::int");
/* The state row (image id NULL), then the stored summaries of the images $1 (in no order), in
 * one snapshot; column 5 says whether the stored text is the answer: for the state row, that the
 * session renders timestamps in UTC; for an image, that it has a stored summary and no revoke_at
 * (then its status never depends on the time). The ids come through a sub-select so that the
 * planner cannot see how many there are: a plan made for the real count (two for a lineage) was
 * always cheaper on paper than the generic one (made for a hundred), so PostgreSQL planned every
 * execution, 0.5 ms each (pg_stat_statements, bench/RESULTS.md "Session 8"); now the two cost
 * alike and it keeps the generic plan after five. */
IMX_DB_STMT(stmt_summaries, 1,
            "SELECT s.instance::text, s.generation, s.deletions,"
            " (SELECT generation FROM ref_generation), NULL::bigint,"
            " current_setting('TimeZone') IN ('UTC', 'Etc/UTC'), NULL::text,"
            " (SELECT n FROM auth_epoch) FROM image_index_state s"
            " UNION ALL SELECT NULL, NULL, NULL, NULL, i.id,"
            " i.summary IS NOT NULL AND i.revoke_at IS NULL, i.summary::text, NULL"
            " FROM unnest((SELECT $1::bigint[])) AS u(id) JOIN images i ON i.id = u.id");
/* The state row alone, for a page whose summaries are all cached: with no parameter it keeps
 * one plan (stmt_summaries with an empty array was planned anew every time). */
IMX_DB_STMT(stmt_state_row, 0,
            "SELECT s.instance::text, s.generation, s.deletions,"
            " (SELECT generation FROM ref_generation), NULL::bigint, true, NULL::text,"
            " (SELECT n FROM auth_epoch) FROM image_index_state s");
/* The same with the summaries built where the stored one is not the answer (column 5: whether
 * the text is cacheable, i.e. does not depend on the time). */
IMX_DB_STMT(stmt_summaries_built, 1,
            "SELECT s.instance::text, s.generation, s.deletions,"
            " (SELECT generation FROM ref_generation), NULL::bigint, NULL::bool, NULL::text,"
            " (SELECT n FROM auth_epoch) FROM image_index_state s"
            " UNION ALL SELECT NULL, NULL, NULL, NULL, i.id, i.revoke_at IS NULL,"
            " (" STORED_SUMMARY_OF(
                "i") ")::text, NULL"
                     " FROM unnest((SELECT $1::bigint[])) AS u(id) JOIN images i ON i.id = u.id");

/* What the index was made from: the state row and the snapshot of its last load or catch-up. */
struct made_at {
    char instance[40];
    long long generation, deletions, ref_generation;
};

static struct {
    pthread_rwlock_t lock; /* ix and at; writers are the holder of sync */
    pthread_mutex_t sync;  /* one load or catch-up at a time */
    struct imx_ix *ix;     /* NULL: not loaded */
    struct made_at at;
    char *snapshot; /* pg_snapshot text of at (new) */
    bool enabled;
    unsigned walk;
    long long load_failed_ms; /* monotonic time of the last failed load, 0 when none; under sync */
    bool loader_running;
    atomic_ullong searches_indexed, searches_sql, loads, catchups, lineages_indexed, lineages_sql;
    pthread_t loader;
} g = { .lock = PTHREAD_RWLOCK_INITIALIZER, .sync = PTHREAD_MUTEX_INITIALIZER };

/* ---- reading rows ---- */

/* Parses a one-dimensional text[] literal in place ("{a,\"b c\"}"): out gets up to max
 * elements. Returns their number, or -1 (malformed, NULL elements, too many). */
static int parse_text_array(char *s, const char **out, int max)
{
    if (*s != '{')
        return -1;
    char *p = s + 1;
    if (*p == '}')
        return p[1] == '\0' ? 0 : -1;
    for (int n = 0;;) {
        if (n == max)
            return -1;
        char *start = p, *w = p;
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1])
                    p++;
                *w++ = *p;
            }
            if (*p != '"')
                return -1;
            p++;
        } else {
            while (*p && *p != ',' && *p != '}')
                p++;
            w = p;
            if (w - start == 4 && strncmp(start, "NULL", 4) == 0)
                return -1;
        }
        char sep = *p;
        *w = '\0';
        out[n++] = start;
        if (sep == ',') {
            p++;
            continue;
        }
        return sep == '}' && p[1] == '\0' ? n : -1;
    }
}

/* Parses component_keys ({"cuda": 12000..., ...}) in place. Returns the count or -1. */
static int parse_component_keys(char *s, struct imx_ix_component *out, int max)
{
    char *p = s;
    if (*p++ != '{')
        return -1;
    int n = 0;
    while (*p == ' ')
        p++;
    if (*p == '}')
        return p[1] == '\0' ? 0 : -1;
    for (;;) {
        if (n == max || *p != '"')
            return -1;
        char *name = ++p;
        p = strchr(p, '"');
        if (!p)
            return -1;
        *p++ = '\0';
        if (*p++ != ':')
            return -1;
        while (*p == ' ')
            p++;
        size_t len = strspn(p, "0123456789");
        if (imx_ix_key_from_num(p, len, out[n].key) != 0)
            return -1;
        out[n++].name = name;
        p += len;
        if (*p == '}')
            return p[1] == '\0' ? n : -1;
        if (*p++ != ',')
            return -1;
        while (*p == ' ')
            p++;
    }
}

static const char *text_or_null(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? NULL : PQgetvalue(r, row, col);
}

/* Copies a field into buf for parsing in place; -1 when it does not fit. */
static int field_copy(const PGresult *r, int row, int col, char *buf)
{
    int len = PQgetlength(r, row, col);
    if (len >= FIELD_TEXT_MAX)
        return -1;
    memcpy(buf, PQgetvalue(r, row, col), (size_t)len + 1);
    return 0;
}

/* Puts row i of r into ix; the buffers are scratch space. Returns 0 or -1. */
static int put_row(struct imx_ix *ix, const PGresult *r, int i, char (*bufs)[FIELD_TEXT_MAX],
                   const char *(*lists)[IMX_IX_LIST_MAX], struct imx_ix_component *comps)
{
    struct imx_ix_row row = {
        .id = strtoll(PQgetvalue(r, i, 0), NULL, 10),
        .family = PQgetvalue(r, i, 1),
        .provider = PQgetvalue(r, i, 2),
        .architecture = PQgetvalue(r, i, 3),
        .os_name = PQgetvalue(r, i, 4),
        .os_version = PQgetvalue(r, i, 5),
        .layer = PQgetvalue(r, i, 6),
        .status = PQgetvalue(r, i, 7),
        .patch_status = PQgetvalue(r, i, 8),
        .os_patch_status = PQgetvalue(r, i, 20),
        .parent_id = PQgetisnull(r, i, 21) ? 0 : strtoll(PQgetvalue(r, i, 21), NULL, 10),
        .version = PQgetvalue(r, i, 22),
        .published_us = strtoll(PQgetvalue(r, i, 9), NULL, 10),
        .revoke_us =
            PQgetisnull(r, i, 10) ? IMX_IX_NO_TIME : strtoll(PQgetvalue(r, i, 10), NULL, 10),
        .boot_seconds =
            PQgetisnull(r, i, 11) ? -1 : (int32_t)strtol(PQgetvalue(r, i, 11), NULL, 10),
        .size_text = text_or_null(r, i, 12),
        .facet_cuda = text_or_null(r, i, 13),
        .facet_driver = text_or_null(r, i, 14),
    };
    int counts[4];
    for (int k = 0; k < 4; k++) {
        if (field_copy(r, i, 15 + k, bufs[k]) != 0 ||
            (counts[k] = parse_text_array(bufs[k], lists[k], IMX_IX_LIST_MAX)) < 0)
            return -1;
    }
    int n_comps;
    if (field_copy(r, i, 19, bufs[4]) != 0 ||
        (n_comps = parse_component_keys(bufs[4], comps, IMX_IX_LIST_MAX)) < 0)
        return -1;
    row.gpus = lists[0];
    row.n_gpus = (size_t)counts[0];
    row.regions = lists[1];
    row.n_regions = (size_t)counts[1];
    row.tags = lists[2];
    row.n_tags = (size_t)counts[2];
    row.frameworks = lists[3];
    row.n_frameworks = (size_t)counts[3];
    row.components = comps;
    row.n_components = (size_t)n_comps;
    return imx_ix_put(ix, &row);
}

/* Puts every row of r into ix. Returns 0, or -1 (a row that cannot be read, or out of memory). */
static int put_rows(struct imx_ix *ix, const PGresult *r)
{
    struct scratch {
        char bufs[5][FIELD_TEXT_MAX];
        const char *lists[4][IMX_IX_LIST_MAX];
        struct imx_ix_component comps[IMX_IX_LIST_MAX];
    } *w = malloc(sizeof *w);
    if (!w)
        return -1;
    int rc = 0;
    for (int i = 0; i < PQntuples(r) && rc == 0; i++)
        rc = put_row(ix, r, i, w->bufs, w->lists, w->comps);
    free(w);
    return rc;
}

/* ---- page summaries ---- */

/* The summaries of recently served images, so that a page reads only the catalog generation
 * from PostgreSQL when its summaries are here (bench/RESULTS.md). An entry is the text
 * PostgreSQL gave for that image, as of generation; a catch-up drops the entries of the rows it
 * fetched and moves generation, a load drops them all, and only summaries read at the current
 * generation are added, so an entry is never older than its row. Direct-mapped by id, bounded
 * in bytes. */
#define CACHE_SLOTS     8192
#define CACHE_BYTES_MAX (4u << 20)

static struct {
    pthread_mutex_t lock;
    long long generation;
    size_t bytes;
    struct {
        int64_t id; /* 0: empty */
        char *text;
        size_t len;
    } slot[CACHE_SLOTS];
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t cache_slot(int64_t id)
{
    return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 51) % CACHE_SLOTS;
}

static void cache_drop_locked(size_t i)
{
    cache.bytes -= cache.slot[i].len;
    free(cache.slot[i].text);
    cache.slot[i].id = 0;
    cache.slot[i].text = NULL;
    cache.slot[i].len = 0;
}

/* Forgets every entry and starts generation. */
static void cache_reset(long long generation)
{
    pthread_mutex_lock(&cache.lock);
    for (size_t i = 0; i < CACHE_SLOTS; i++) {
        if (cache.slot[i].id)
            cache_drop_locked(i);
    }
    cache.generation = generation;
    pthread_mutex_unlock(&cache.lock);
}

/* Forgets the images of the rows in r (column 0: id) and moves to generation. */
static void cache_forget_rows(const PGresult *r, long long generation)
{
    pthread_mutex_lock(&cache.lock);
    for (int i = 0; i < PQntuples(r); i++) {
        int64_t id = strtoll(PQgetvalue(r, i, 0), NULL, 10);
        size_t k = cache_slot(id);
        if (cache.slot[k].id == id)
            cache_drop_locked(k);
    }
    cache.generation = generation;
    pthread_mutex_unlock(&cache.lock);
}

/* Copies the cached summaries of ids into texts (new, or NULL where not cached). */
static void cache_take(const int64_t *ids, size_t n, char **texts)
{
    pthread_mutex_lock(&cache.lock);
    for (size_t i = 0; i < n; i++) {
        size_t k = cache_slot(ids[i]);
        texts[i] = cache.slot[k].id == ids[i] ? strdup(cache.slot[k].text) : NULL;
    }
    pthread_mutex_unlock(&cache.lock);
}

/* Adds a summary read at generation, if that is still the cache's. */
static void cache_put(int64_t id, const char *text, long long generation)
{
    size_t len = strlen(text);
    pthread_mutex_lock(&cache.lock);
    size_t k = cache_slot(id);
    if (generation == cache.generation && cache.slot[k].id != id) {
        if (cache.slot[k].id)
            cache_drop_locked(k);
        char *copy = cache.bytes + len <= CACHE_BYTES_MAX ? strdup(text) : NULL;
        if (copy) {
            cache.slot[k].id = id;
            cache.slot[k].text = copy;
            cache.slot[k].len = len;
            cache.bytes += len;
        }
    }
    pthread_mutex_unlock(&cache.lock);
}

/* ---- loading and catching up ---- */

/* A load statement's outcome: OK, UNAVAILABLE (tried again later), or ERROR for anything else
 * (imx_db_status_of classifies). */
static enum imx_db_status result_rc(PGresult *r)
{
    enum imx_db_status st = imx_db_status_of(r);
    return st == IMX_DBS_OK || st == IMX_DBS_UNAVAILABLE ? st : IMX_DBS_ERROR;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Reads every image into a new index (inside the caller's snapshot). NULL on failure. */
static struct imx_ix *load_all(struct imx_db_conn *c, enum imx_db_status *rc)
{
    struct imx_ix *ix = imx_ix_new();
    char after[24] = "0", chunk[16];
    snprintf(chunk, sizeof chunk, "%d", LOAD_CHUNK);
    *rc = ix ? IMX_DBS_OK : IMX_DBS_ERROR;
    if (ix) {
        PGresult *r = imx_db_exec(c, &stmt_sizes, NULL);
        *rc = result_rc(r);
        if (*rc == IMX_DBS_OK && PQntuples(r) == 1 &&
            imx_ix_reserve(ix, strtoull(PQgetvalue(r, 0, 0), NULL, 10)) != 0)
            *rc = IMX_DBS_ERROR;
        PQclear(r);
    }
    while (*rc == IMX_DBS_OK) {
        const char *params[] = { after, chunk };
        PGresult *r = imx_db_exec(c, &stmt_chunk, params);
        *rc = result_rc(r);
        int n = *rc == IMX_DBS_OK ? PQntuples(r) : 0;
        if (*rc == IMX_DBS_OK && put_rows(ix, r) != 0)
            *rc = IMX_DBS_ERROR;
        if (n > 0)
            snprintf(after, sizeof after, "%s", PQgetvalue(r, n - 1, 0));
        PQclear(r);
        if (n < LOAD_CHUNK)
            break;
    }
    if (*rc != IMX_DBS_OK) {
        imx_ix_free(ix);
        return NULL;
    }
    imx_ix_seal(ix);
    imx_ix_set_walk_budget(ix, g.walk);
    return ix;
}

/* Installs a new index made at `at` and `snapshot` (steals both ix and snapshot). */
static void install(struct imx_ix *ix, const struct made_at *at, char *snapshot)
{
    pthread_rwlock_wrlock(&g.lock);
    struct imx_ix *old = g.ix;
    char *old_snapshot = g.snapshot;
    g.ix = ix;
    g.at = *at;
    g.snapshot = snapshot;
    pthread_rwlock_unlock(&g.lock);
    imx_ix_free(old);
    free(old_snapshot);
}

/* Load or catch up, with g.sync held, in one REPEATABLE READ snapshot. */
static enum imx_db_status sync_locked(struct imx_db_conn *c)
{
    if (imx_db_command(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") != IMX_DBS_OK)
        return IMX_DBS_UNAVAILABLE;
    PGresult *r = imx_db_exec(c, &stmt_state, NULL);
    enum imx_db_status rc = result_rc(r);
    if (rc == IMX_DBS_OK && PQntuples(r) != 1)
        rc = IMX_DBS_ERROR;
    if (rc != IMX_DBS_OK) {
        PQclear(r);
        (void)imx_db_command(c, "ROLLBACK");
        return rc;
    }
    struct made_at at = {
        .generation = strtoll(PQgetvalue(r, 0, 1), NULL, 10),
        .deletions = strtoll(PQgetvalue(r, 0, 2), NULL, 10),
        .ref_generation = strtoll(PQgetvalue(r, 0, 4), NULL, 10),
    };
    snprintf(at.instance, sizeof at.instance, "%s", PQgetvalue(r, 0, 0));
    char *snapshot = strdup(PQgetvalue(r, 0, 3));
    PQclear(r);
    if (!snapshot) {
        (void)imx_db_command(c, "ROLLBACK");
        return IMX_DBS_ERROR;
    }
    /* Only the holder of g.sync changes g.ix and g.at, so they can be read here unlocked. */
    bool reload = !g.ix || strcmp(at.instance, g.at.instance) != 0 ||
                  at.deletions != g.at.deletions || at.generation < g.at.generation;
    if (!reload && at.generation == g.at.generation) {
        pthread_rwlock_wrlock(&g.lock);
        g.at.ref_generation = at.ref_generation;
        pthread_rwlock_unlock(&g.lock);
        free(snapshot);
        (void)imx_db_command(c, "COMMIT");
        return IMX_DBS_OK;
    }
    if (!reload) {
        char max[16];
        snprintf(max, sizeof max, "%d", DELTA_MAX + 1);
        const char *params[] = { g.snapshot, max };
        r = imx_db_exec(c, &stmt_delta, params);
        rc = result_rc(r);
        int added = 0;
        for (int i = 0; rc == IMX_DBS_OK && i < PQntuples(r) && added <= DELTA_NEW_MAX; i++)
            added += !imx_ix_has(g.ix, strtoll(PQgetvalue(r, i, 0), NULL, 10));
        if (rc == IMX_DBS_OK && (PQntuples(r) > DELTA_MAX || added > DELTA_NEW_MAX)) {
            reload = true;
        } else if (rc == IMX_DBS_OK) {
            pthread_rwlock_wrlock(&g.lock);
            if (put_rows(g.ix, r) == 0) {
                cache_forget_rows(r, at.generation);
                atomic_fetch_add(&g.catchups, 1);
                free(g.snapshot);
                g.snapshot = snapshot;
                snapshot = NULL;
                g.at = at;
            } else {
                /* Half applied: drop it; searches run in SQL until the next load. */
                imx_ix_free(g.ix);
                g.ix = NULL;
                rc = IMX_DBS_ERROR;
            }
            pthread_rwlock_unlock(&g.lock);
            if (rc != IMX_DBS_OK)
                imx_warn("search index dropped: a changed image could not be put in it (out of "
                         "memory, or a list longer than %d); searches use SQL until it reloads",
                         IMX_IX_LIST_MAX);
        }
        PQclear(r);
    }
    if (reload && rc == IMX_DBS_OK) {
        double t0 = now_ms();
        struct imx_ix *ix = load_all(c, &rc);
        if (ix) {
            imx_info("search index loaded: %zu images, %.1f MB, %.0f ms", imx_ix_count(ix),
                     (double)imx_ix_bytes(ix) / 1048576.0, now_ms() - t0);
            cache_reset(at.generation);
            install(ix, &at, snapshot);
            snapshot = NULL;
            atomic_fetch_add(&g.loads, 1);
        } else {
            imx_warn("search index: loading failed (%d); searches use SQL meanwhile", (int)rc);
        }
    }
    free(snapshot);
    (void)imx_db_command(c, rc == IMX_DBS_OK ? "COMMIT" : "ROLLBACK");
    return rc;
}

/* After a failed load, requests leave loading to the next one this much later. */
#define LOAD_RETRY_MS 30000

/* Loads or catches up on c unless another thread is doing so, or (with no index) a load failed
 * less than LOAD_RETRY_MS ago: then returns false. */
static bool try_sync(struct imx_db_conn *c, enum imx_db_status *rc)
{
    if (pthread_mutex_trylock(&g.sync) != 0)
        return false;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long now = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    bool wait = !g.ix && g.load_failed_ms && now - g.load_failed_ms < LOAD_RETRY_MS;
    if (!wait) {
        *rc = sync_locked(c);
        g.load_failed_ms = g.ix ? 0 : now;
    }
    pthread_mutex_unlock(&g.sync);
    return !wait;
}

/* For a reader of the index that found it missing or behind: loads or catches up as try_sync
 * does and says whether to look again; false (*rc then IMX_DBS_OK) when SQL answers instead:
 * another thread is at it, a load failed moments ago, or this one failed. */
static bool synced(struct imx_db_conn *c, enum imx_db_status *rc)
{
    if (try_sync(c, rc) && *rc == IMX_DBS_OK)
        return true;
    *rc = IMX_DBS_OK;
    return false;
}

/* synced on c, or on a connection of the pool's when c is NULL (a reader that holds none). */
static bool synced_on(struct imx_db_conn *c, enum imx_db_status *rc)
{
    if (c)
        return synced(c, rc);
    enum imx_db_status why;
    struct imx_db_conn *own = imx_db_acquire(&why);
    if (!own) {
        *rc = IMX_DBS_OK; /* SQL answers, or says the database is unavailable */
        return false;
    }
    bool ok = synced(own, rc);
    imx_db_release(own);
    return ok;
}

/* Loads or catches up on c, waiting for another thread that is. */
static enum imx_db_status sync_now(struct imx_db_conn *c)
{
    pthread_mutex_lock(&g.sync);
    enum imx_db_status rc = sync_locked(c);
    pthread_mutex_unlock(&g.sync);
    return rc;
}

static void *loader_main(void *arg)
{
    (void)arg;
    enum imx_db_status why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    if (c) {
        enum imx_db_status rc = sync_now(c);
        if (rc != IMX_DBS_OK)
            imx_warn("search index: first load failed (%d); searches use SQL until it loads",
                     (int)rc);
        imx_db_release(c);
    }
    return NULL;
}

int imx_db_image_index_start(bool enabled, unsigned walk)
{
    g.enabled = enabled;
    g.walk = walk;
    if (!enabled)
        return 0;
    /* Catch-ups must not wait behind a steady stream of searches. */
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_destroy(&g.lock);
    pthread_rwlock_init(&g.lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    if (pthread_create(&g.loader, NULL, loader_main, NULL) != 0)
        return -1;
    g.loader_running = true;
    return 0;
}

void imx_db_image_index_stop(void)
{
    if (g.loader_running)
        pthread_join(g.loader, NULL);
    g.loader_running = false;
    install(NULL, &(struct made_at){ .generation = 0 }, NULL);
}

/* ---- searching ---- */

/* The parts of a search that do not depend on the index. Returns 0, or -1 when the SQL search
 * should answer (it then also gives the same 400 for a bad cursor). */
static int query_of(const struct imx_image_search *s, struct imx_ix_query *q, char *os_name,
                    size_t os_len, char id_text[24])
{
    memset(q, 0, sizeof *q);
    /* Package filters are answered in SQL: the index keeps no inventories; nor end-of-life
     * dates (they follow the reference tables). */
    if ((s->q && *s->q) || s->n_packages > 0 || (s->eol_before && *s->eol_before) ||
        s->n_constraints > IMX_IX_QUERY_CONS_MAX || s->n_tags > IMX_IX_QUERY_TAGS_MAX)
        return -1;
#define OPT(x) ((x) && *(x) ? (x) : NULL)
    q->family = OPT(s->family);
    q->provider = OPT(s->provider);
    q->region = OPT(s->region);
    q->architecture = OPT(s->arch);
    q->layer = OPT(s->layer);
    q->patch_status = OPT(s->patch_status);
    q->os_patch_status = OPT(s->os_patch_status);
    const char *status = OPT(s->status);
#undef OPT
    q->status = !status ? "active" : strcmp(status, "any") == 0 ? NULL : status;
    if (s->os && *s->os) {
        const char *colon = strchr(s->os, ':');
        size_t n = colon ? (size_t)(colon - s->os) : strlen(s->os);
        if (n == 0 || n >= os_len)
            return -1;
        memcpy(os_name, s->os, n);
        os_name[n] = '\0';
        q->os_name = os_name;
        q->os_version = colon && colon[1] ? colon + 1 : NULL;
    }
    for (size_t i = 0; i < s->n_tags; i++) {
        if (!s->tags[i])
            return -1;
        q->tags[q->n_tags++] = s->tags[i];
    }
    for (size_t i = 0; i < s->n_constraints; i++) {
        if (!s->constraints[i].name)
            return -1;
        q->con_names[i] = s->constraints[i].name;
        q->cons[i] = s->constraints[i].constraint;
    }
    q->n_cons = s->n_constraints;
    static const enum imx_ix_sort sorts[] = {
        [IMX_SORT_PUBLISHED_DESC] = IMX_IX_PUBLISHED_DESC,
        [IMX_SORT_FAMILY] = IMX_IX_FAMILY,
        [IMX_SORT_BOOT_SECONDS] = IMX_IX_BOOT,
        [IMX_SORT_SIZE_GB] = IMX_IX_SIZE,
    };
    q->sort = sorts[s->sort];
    q->limit = s->limit == 0 ? 20 : s->limit;
    if (q->limit < 1 || q->limit > IMX_IX_PAGE_MAX)
        return -1;
    if (s->cursor && *s->cursor) {
        const char *key;
        if (imx_db_search_cursor_parse(s->cursor, s->sort, id_text, &key) != 0)
            return -1;
        q->after = true;
        q->after_id = strtoll(id_text, NULL, 10);
        q->after_key = key;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    q->now_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    return 0;
}

/* The ids whose texts are NULL, as an int8[] literal; new, or NULL. */
static char *missing_literal(const int64_t *ids, char *const *texts, size_t n)
{
    char *out = malloc(n * 21 + 3);
    if (!out)
        return NULL;
    size_t at = 0;
    out[at++] = '{';
    for (size_t i = 0; i < n; i++) {
        if (!texts[i])
            at += (size_t)sprintf(out + at, at > 1 ? ",%lld" : "%lld", (long long)ids[i]);
    }
    memcpy(out + at, "}", 2);
    return out;
}

/* The page as SQL's json_build_object('items', json_agg(summary), 'next_cursor', next) writes
 * it. Returns new text, or NULL. */
static char *page_text(char *const *texts, size_t n, const char *next)
{
    size_t len = 64 + strlen(next);
    for (size_t i = 0; i < n; i++)
        len += strlen(texts[i]) + 2;
    char *out = malloc(len);
    if (!out)
        return NULL;
    size_t at = (size_t)sprintf(out, "{\"items\" : [");
    for (size_t i = 0; i < n; i++) {
        if (i) {
            memcpy(out + at, ", ", 2);
            at += 2;
        }
        size_t l = strlen(texts[i]);
        memcpy(out + at, texts[i], l);
        at += l;
    }
    /* The raw cursor is digits, letters and [:._-]: nothing to escape. */
    if (*next)
        sprintf(out + at, "], \"next_cursor\" : \"%s\"}", next);
    else
        sprintf(out + at, "], \"next_cursor\" : null}");
    return out;
}

/* Summaries reads without a connection of their own, coalesced (db/read_batch.c): each waiter's
 * arg is its missing ids' array literal, and one stmt_summaries reads them all (the ids strung
 * together: any row count), or stmt_state_row when no waiter misses any. Each waiter takes its own
 * ids' rows and the one state row. */
#define SUMMARIES_BATCH_MAX 8

static void read_summary_batch(struct imx_db_waiter **w, size_t n)
{
    struct imx_jbuf ids = { 0 };
    imx_jbuf_put(&ids, "{", 1);
    for (size_t i = 0; i < n; i++) {
        const char *lit = w[i]->arg; /* "{1,2}" or "{}" */
        size_t len = strlen(lit);
        if (len > 2) {
            if (ids.len > 1)
                imx_jbuf_put(&ids, ",", 1);
            imx_jbuf_put(&ids, lit + 1, len - 2);
        }
        w[i]->row = 0;
    }
    imx_jbuf_put(&ids, "}", 1);
    if (ids.failed) {
        for (size_t i = 0; i < n; i++)
            w[i]->rc = IMX_DBS_ERROR;
    } else {
        const char *params[] = { ids.p };
        imx_db_batch_answer(w, n, ids.len > 2 ? &stmt_summaries : &stmt_state_row, params, -1);
    }
    imx_jbuf_free(&ids);
}

static struct imx_db_batcher summary_reads =
    IMX_DB_BATCHER(read_summary_batch, SUMMARIES_BATCH_MAX);

/* Runs stmt with the missing ids: on c, or without one (c NULL) shared with the other readers
 * waiting when stmt is stmt_summaries, else on a pool connection of its own. Returns the result
 * (OK, or the failure) and in *batch the shared batch it belongs to (NULL: the caller's to clear).
 */
static PGresult *summaries_result(struct imx_db_conn *c, struct imx_db_stmt *stmt,
                                  const char *missing, struct imx_db_batch **batch,
                                  enum imx_db_status *rc)
{
    *batch = NULL;
    const char *params[] = { missing };
    bool none = strcmp(missing, "{}") == 0;
    if (!c && stmt == &stmt_summaries) {
        struct imx_db_waiter self = { .arg = missing };
        imx_db_batch_wait(&summary_reads, &self);
        *rc = self.rc;
        *batch = self.batch;
        return self.rc == IMX_DBS_OK ? self.batch->res : NULL;
    }
    enum imx_db_status why;
    struct imx_db_conn *own = c ? NULL : imx_db_acquire(&why);
    if (!c && !own) {
        *rc = IMX_DBS_UNAVAILABLE;
        return NULL;
    }
    PGresult *r = imx_db_exec(c ? c : own, none ? &stmt_state_row : stmt, params);
    if (own)
        imx_db_release(own);
    *rc = result_rc(r);
    return r;
}

/* Is id one of the n ids[] that texts lacks? */
static bool wanted(int64_t id, const int64_t *ids, char *const *texts, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (ids[k] == id && !texts[k])
            return true;
    return false;
}

/* Reads the summaries of the page's ids that texts lacks, with the state row of the same
 * snapshot, by stmt (on c; without a connection when c is NULL, see summaries_result). *current
 * tells whether that state is at's; then texts is complete and the new summaries are cached,
 * unless stmt is stmt_summaries and *built_needed: then some stored summary was not the answer
 * and nothing was read. */
static enum imx_db_status summaries_taken(struct imx_db_stmt *stmt, PGresult *r,
                                          struct imx_db_batch *batch, enum imx_db_status rc,
                                          const int64_t *ids, size_t n, char **texts,
                                          const struct made_at *at, bool *current,
                                          bool *built_needed, long long *epoch);

static enum imx_db_status read_summaries(struct imx_db_conn *c, struct imx_db_stmt *stmt,
                                         const int64_t *ids, size_t n, char **texts,
                                         const struct made_at *at, bool *current,
                                         bool *built_needed, long long *epoch)
{
    *current = false;
    *built_needed = false;
    char *missing = missing_literal(ids, texts, n);
    if (!missing)
        return IMX_DBS_ERROR;
    struct imx_db_batch *batch;
    enum imx_db_status rc;
    PGresult *r = summaries_result(c, stmt, missing, &batch, &rc);
    free(missing);
    return summaries_taken(stmt, r, batch, rc, ids, n, texts, at, current, built_needed, epoch);
}

/* read_summaries once the statement has answered: r (from batch when not NULL) and rc. */
static enum imx_db_status summaries_taken(struct imx_db_stmt *stmt, PGresult *r,
                                          struct imx_db_batch *batch, enum imx_db_status rc,
                                          const int64_t *ids, size_t n, char **texts,
                                          const struct made_at *at, bool *current,
                                          bool *built_needed, long long *epoch)
{
    *current = false;
    *built_needed = false;
    int state = -1;
    for (int i = 0; rc == IMX_DBS_OK && i < PQntuples(r) && state < 0; i++)
        state = PQgetisnull(r, i, 4) ? i : -1;
    if (rc != IMX_DBS_OK || state < 0) {
        if (batch)
            imx_db_batch_unref(batch);
        else
            PQclear(r);
        return rc == IMX_DBS_OK ? IMX_DBS_ERROR : rc;
    }
    *epoch = strtoll(PQgetvalue(r, state, 7), NULL, 10);
    *current = strcmp(PQgetvalue(r, state, 0), at->instance) == 0 &&
               strtoll(PQgetvalue(r, state, 1), NULL, 10) == at->generation &&
               strtoll(PQgetvalue(r, state, 2), NULL, 10) == at->deletions &&
               strtoll(PQgetvalue(r, state, 3), NULL, 10) == at->ref_generation;
    if (stmt == &stmt_summaries) {
        /* (only this reader's rows count: a shared result has the others' too) */
        for (int i = 0; *current && i < PQntuples(r) && !*built_needed; i++)
            *built_needed = i != state && PQgetvalue(r, i, 5)[0] != 't' &&
                            wanted(strtoll(PQgetvalue(r, i, 4), NULL, 10), ids, texts, n);
        if (*built_needed) {
            if (batch)
                imx_db_batch_unref(batch);
            else
                PQclear(r);
            return IMX_DBS_OK;
        }
    }
    for (int i = 0; *current && i < PQntuples(r); i++) {
        if (i == state)
            continue;
        int64_t id = strtoll(PQgetvalue(r, i, 4), NULL, 10);
        const char *text = PQgetvalue(r, i, 6);
        for (size_t k = 0; k < n; k++) {
            if (ids[k] == id && !texts[k])
                texts[k] = strdup(text);
        }
        if (PQgetvalue(r, i, 5)[0] == 't')
            cache_put(id, text, at->generation);
    }
    if (batch)
        imx_db_batch_unref(batch);
    else
        PQclear(r);
    for (size_t k = 0; *current && k < n; k++) {
        if (!texts[k])
            rc = IMX_DBS_ERROR; /* out of memory: the row cannot be missing at this state */
    }
    return rc;
}

enum imx_db_status imx_db_image_search_indexed(struct imx_db_conn *c,
                                               const struct imx_image_search *s, bool want_facets,
                                               char **page, char **facets, bool *served,
                                               long long *epoch, struct imx_db_fault *why)
{
    *page = NULL;
    *facets = NULL;
    *served = false;
    /* The index follows the primary (where signed-in requests read); a search on the read
     * replica runs in SQL there rather than mixing two databases' generations. */
    if (!g.enabled || imx_db_is_read_conn(c))
        return imx_db_why(c, IMX_DBS_OK, why);
    struct {
        struct imx_ix_query q;
        struct imx_ix_page p;
        char os_name[64], id_text[24];
        char gpus[IMX_DBI_GPU_MODELS_MAX];
        const char *gpu_list[IMX_IX_QUERY_GPUS_MAX];
    } *w = malloc(sizeof *w);
    if (!w)
        return imx_db_why(c, IMX_DBS_ERROR, why);
    enum imx_db_status rc = IMX_DBS_OK;
    if (query_of(s, &w->q, w->os_name, sizeof w->os_name, w->id_text) != 0)
        goto out;
    const char *gpu = s->gpu && *s->gpu ? s->gpu : NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        pthread_rwlock_rdlock(&g.lock);
        bool loaded = g.ix != NULL;
        long long ref_generation = g.at.ref_generation;
        pthread_rwlock_unlock(&g.lock);
        if (!loaded) {
            /* Not loaded (the first load failed): load it here unless someone else is, or a
             * load failed moments ago. Meanwhile, and if it fails, SQL answers. */
            if (!synced(c, &rc))
                goto out;
            continue;
        }
        if (gpu) {
            bool known;
            rc = imx_db_gpu_models_at(c, gpu, ref_generation, w->gpus, &known);
            if (rc != IMX_DBS_OK)
                goto out;
            /* The index matches one name in any case; a list with a name the reference does
             * not know is answered in SQL. */
            if (!known && strchr(gpu, ','))
                goto out;
            w->q.gpu_any_case = known ? NULL : gpu;
            int n = parse_text_array(w->gpus, w->gpu_list, IMX_IX_QUERY_GPUS_MAX);
            if (n < 0)
                goto out; /* more models than a query holds: SQL answers */
            w->q.gpu_filter = true;
            memcpy(w->q.gpus, w->gpu_list, (size_t)n * sizeof w->gpu_list[0]);
            w->q.n_gpus = (size_t)n;
        }
        struct made_at at;
        pthread_rwlock_rdlock(&g.lock);
        at = g.at;
        int bad = !g.ix || at.ref_generation != ref_generation;
        if (!bad)
            bad = imx_ix_page(g.ix, &w->q, &w->p) != 0 ? 2 : 0;
        if (!bad && want_facets && !(*facets = imx_ix_facets(g.ix, &w->q)))
            bad = 3;
        pthread_rwlock_unlock(&g.lock);
        if (bad == 1)
            continue;
        if (bad)
            goto out; /* a query the index cannot take (a cursor SQL will refuse, too many GPU
                       * spellings) or out of memory: SQL answers */
        char *texts[IMX_IX_PAGE_MAX];
        cache_take(w->p.ids, w->p.n, texts);
        bool current, built_needed;
        rc = read_summaries(c, &stmt_summaries, w->p.ids, w->p.n, texts, &at, &current,
                            &built_needed, epoch);
        if (rc == IMX_DBS_OK && current && built_needed)
            rc = read_summaries(c, &stmt_summaries_built, w->p.ids, w->p.n, texts, &at, &current,
                                &built_needed, epoch);
        if (rc == IMX_DBS_OK && current) {
            *page = page_text(texts, w->p.n, w->p.next);
            rc = *page ? IMX_DBS_OK : IMX_DBS_ERROR;
            *served = *page != NULL;
            if (*served)
                atomic_fetch_add(&g.searches_indexed, 1);
        }
        for (size_t i = 0; i < w->p.n; i++)
            free(texts[i]);
        if (rc != IMX_DBS_OK || current)
            goto out;
        free(*facets);
        *facets = NULL;
        /* Something was committed since the index was made: catch up, unless another thread
         * already is (then SQL answers this one, as it does when the catch-up fails). */
        if (!synced(c, &rc))
            goto out;
    }
out:
    if (!*served) {
        free(*facets);
        *facets = NULL;
    }
    free(w);
    return imx_db_why(c, rc, why);
}

/* ---- resolve from the index ---- */

/* Resolves' rows, coalesced (db/read_batch.c): for each waiter, in their order, its image's
 * summary and its artifact in its region, every row with the index's state and the auth epoch of
 * the one snapshot, so that each summary belongs to the state it is checked against. The arrays
 * come through sub-selects, for one generic plan (see stmt_summaries). */
IMX_DB_STMT(
    stmt_resolve_rows, 2,
    "SELECT s.instance::text, s.generation, s.deletions,"
    " (SELECT generation FROM ref_generation), (SELECT n FROM auth_epoch),"
    " (" STORED_SUMMARY_OF(
        "i") ")::text, a.artifact_id"
             " FROM image_index_state s"
             " CROSS JOIN unnest((SELECT $1::bigint[]), (SELECT $2::text[])) WITH ORDINALITY"
             " q(id, region, k) LEFT JOIN images i ON i.id = q.id"
             " LEFT JOIN image_artifacts a ON a.image_id = i.id AND a.region = q.region"
             " ORDER BY q.k");

/* Resolves one statement reads at most. */
#define RESOLVE_BATCH_MAX 16

/* A waiter asks for the image the index found and the region: stmt_resolve_rows' columns. */
static void read_resolves(struct imx_db_waiter **w, size_t n)
{
    imx_db_batch_answer_columns(w, n, &stmt_resolve_rows, 2, (int)n);
}

static struct imx_db_batcher resolves = IMX_DB_BATCHER(read_resolves, RESOLVE_BATCH_MAX);

/* What the resolves' read gave self for the index made at: *current when the row was read in the
 * state the index was made in (then out->served, with new strings when found, unless out of
 * memory). found: the ask was an image the index found (else the index's "nothing matches", whose
 * row has no image). Releases self's batch. */
static enum imx_db_status resolved_row(struct imx_db_waiter *self, const struct made_at *at,
                                       bool found, struct imx_db_resolved *out, bool *current)
{
    if (self->rc != IMX_DBS_OK)
        return self->rc;
    enum imx_db_status rc = IMX_DBS_OK;
    PGresult *r = self->batch->res;
    int k = self->row;
    *current = strcmp(PQgetvalue(r, k, 0), at->instance) == 0 &&
               strtoll(PQgetvalue(r, k, 1), NULL, 10) == at->generation &&
               strtoll(PQgetvalue(r, k, 2), NULL, 10) == at->deletions &&
               strtoll(PQgetvalue(r, k, 3), NULL, 10) == at->ref_generation &&
               (!found || (!PQgetisnull(r, k, 5) && !PQgetisnull(r, k, 6)));
    if (*current) {
        out->epoch = strtoll(PQgetvalue(r, k, 4), NULL, 10);
        out->served = true;
        if (found) {
            out->summary = strdup(PQgetvalue(r, k, 5));
            out->artifact_id = strdup(PQgetvalue(r, k, 6));
            if (!out->summary || !out->artifact_id) {
                free(out->summary);
                free(out->artifact_id);
                out->summary = out->artifact_id = NULL;
                out->served = false;
                rc = IMX_DBS_ERROR;
            }
        }
    }
    imx_db_batch_unref(self->batch);
    self->batch = NULL;
    return rc;
}

/* Does the index hold an image for q? Under g.lock; p is scratch. */
static bool any_in_index(const struct imx_ix_query *q, struct imx_ix_page *p)
{
    return imx_ix_page(g.ix, q, p) == 0 && p->n > 0;
}

/* Why nothing matched q (a resolve's query, which found nothing), as the SQL resolve
 * (db/images.c stmt_resolve) says it: the first of its filters, in its order (family, status,
 * region, arch, then each constraint), that left nothing. NULL when every step still holds an
 * image (which the full query contradicts: the caller asks the reference). Under g.lock. */
static const char *emptied_by(const struct imx_ix_query *full, struct imx_ix_page *p,
                              size_t *constraint)
{
    struct imx_ix_query q = *full;
    q.status = NULL;
    q.region = NULL;
    q.architecture = NULL;
    q.n_cons = 0;
    if (!any_in_index(&q, p))
        return "family";
    q.status = full->status;
    if (!any_in_index(&q, p))
        return "status";
    q.region = full->region;
    if (!any_in_index(&q, p))
        return "region";
    q.architecture = full->architecture;
    if (q.architecture && !any_in_index(&q, p))
        return "arch";
    for (size_t j = 0; j < full->n_cons; j++) {
        q.n_cons = j + 1;
        if (!any_in_index(&q, p)) {
            *constraint = j;
            return "constraint";
        }
    }
    return NULL;
}

/* The newest image the index holds for rq, as its id's text in id_text and the state the index
 * was made at: FOUND; EMPTIED when nothing matches, with *by and *constraint as emptied_by gives
 * them (id_text then "0", which names no image: the read gives the state and the epoch alone); 0
 * when the index cannot say (off, or a query it does not take), NOT_LOADED, or -1 out of
 * memory. */
#define FOUND      1
#define NOT_LOADED 2
#define EMPTIED    3
static int resolve_in_index(const struct imx_image_resolve *rq, char id_text[24],
                            struct made_at *at, const char **by, size_t *constraint)
{
    struct imx_image_search s = {
        .family = rq->family,
        .region = rq->region,
        .arch = rq->arch,
        .constraints = rq->constraints,
        .n_constraints = rq->n_constraints,
        .sort = IMX_SORT_PUBLISHED_DESC,
        .limit = 1,
    };
    struct {
        struct imx_ix_query q;
        struct imx_ix_page p;
        char os_name[64], id_text[24];
    } *w = malloc(sizeof *w);
    if (!w)
        return -1;
    int found = 0;
    *by = NULL;
    if (g.enabled && query_of(&s, &w->q, w->os_name, sizeof w->os_name, w->id_text) == 0) {
        pthread_rwlock_rdlock(&g.lock);
        if (!g.ix)
            found = NOT_LOADED;
        else if (any_in_index(&w->q, &w->p))
            found = FOUND;
        else if ((*by = emptied_by(&w->q, &w->p, constraint)))
            found = EMPTIED;
        *at = g.at;
        pthread_rwlock_unlock(&g.lock);
        if (found == FOUND)
            snprintf(id_text, 24, "%lld", (long long)w->p.ids[0]);
        else if (found == EMPTIED)
            snprintf(id_text, 24, "0");
    }
    free(w);
    return found;
}

struct imx_db_resolve_call {
    char id_text[24];
    char *region;
    const char *ask[2];
    struct made_at at;
    const char *by; /* NULL: the index found the image */
    size_t constraint;
    struct imx_db_call call;
};

/* What out says when the index found nothing: the filter that emptied the set. */
static void emptied(struct imx_db_resolved *out, const char *by, size_t constraint)
{
    out->emptied_by = by;
    out->constraint = constraint;
}

struct imx_db_resolve_call *imx_db_image_resolve_start(const struct imx_image_resolve *rq,
                                                       void (*wake)(void *cls), void *cls)
{
    struct imx_db_resolve_call *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    int found = resolve_in_index(rq, c->id_text, &c->at, &c->by, &c->constraint);
    if ((found != FOUND && found != EMPTIED) || !(c->region = strdup(rq->region))) {
        free(c);
        return NULL;
    }
    c->ask[0] = c->id_text;
    c->ask[1] = c->region;
    imx_db_call_start(&resolves, &c->call, c->ask, wake, cls);
    return c;
}

enum imx_db_status imx_db_image_resolve_result(struct imx_db_resolve_call *c,
                                               struct imx_db_resolved *out)
{
    *out = (struct imx_db_resolved){ 0 };
    bool current = false;
    enum imx_db_status rc = resolved_row(&c->call.self, &c->at, !c->by, out, &current);
    if (out->served && c->by)
        emptied(out, c->by, c->constraint);
    return rc;
}

void imx_db_resolve_call_free(void *call)
{
    struct imx_db_resolve_call *c = call;
    if (c) {
        imx_db_batch_unref(c->call.self.batch);
        free(c->region);
    }
    free(c);
}

void imx_db_resolved_free(struct imx_db_resolved *r)
{
    free(r->summary);
    free(r->artifact_id);
    *r = (struct imx_db_resolved){ 0 };
}

enum imx_db_status imx_db_image_resolve_indexed(const struct imx_image_resolve *rq,
                                                struct imx_db_resolved *out)
{
    *out = (struct imx_db_resolved){ 0 };
    if (!g.enabled)
        return IMX_DBS_OK;
    enum imx_db_status rc = IMX_DBS_OK;
    for (int attempt = 0; attempt < 2; attempt++) {
        struct made_at at;
        char idt[24];
        const char *by;
        size_t constraint = 0;
        int found = resolve_in_index(rq, idt, &at, &by, &constraint);
        if (found == NOT_LOADED) {
            if (!synced_on(NULL, &rc))
                goto out;
            continue;
        }
        if (found != FOUND && found != EMPTIED) {
            rc = found < 0 ? IMX_DBS_ERROR : IMX_DBS_OK;
            goto out; /* a query the index does not take, or out of memory */
        }
        const char *ask[] = { idt, rq->region };
        struct imx_db_waiter self = { .arg = ask };
        imx_db_batch_wait(&resolves, &self);
        bool current = false;
        rc = resolved_row(&self, &at, found == FOUND, out, &current);
        if (out->served && found == EMPTIED)
            emptied(out, by, constraint);
        if (rc != IMX_DBS_OK || current)
            goto out;
        /* Something was committed since the index was made: catch up, then look again. */
        if (!synced_on(NULL, &rc))
            goto out;
    }
out:
    return rc;
}

void imx_db_resolve_stats(unsigned long long *reads, unsigned long long *answered)
{
    imx_db_batch_stats(&resolves, reads, answered);
}

/* ---- lineage from the index ---- */

/* The page's text as 0061 makes it, without its closing brace: each entry its summary with the
 * index's tail in place of the summary's closing brace. New, or NULL (a summary that is not an
 * object's text, or out of memory). */
static char *lineage_text(const struct imx_ix_lineage *l, char *const *texts, size_t *len)
{
    struct imx_jbuf b = { 0 };
    size_t n = 1 + l->n_parents + l->n_children;
    imx_jbuf_puts(&b, "{\"image\" : ");
    for (size_t k = 0; k < n; k++) {
        size_t tl = strlen(texts[k]);
        if (tl < 2 || texts[k][tl - 1] != '}') {
            imx_jbuf_free(&b);
            return NULL;
        }
        if (k == 1 && l->n_parents)
            imx_jbuf_puts(&b, ", \"parents\" : [");
        else if (k == 1 + l->n_parents)
            imx_jbuf_puts(&b,
                          k == 1 ? ", \"parents\" : [], \"children\" : [" : "], \"children\" : [");
        else if (k > 1)
            imx_jbuf_puts(&b, ", ");
        imx_jbuf_put(&b, texts[k], tl - 1);
        imx_jbuf_put(&b, l->tails + l->tail_at[k], l->tail_at[k + 1] - l->tail_at[k]);
    }
    if (n == 1)
        imx_jbuf_puts(&b, ", \"parents\" : [], \"children\" : []");
    else if (l->n_children == 0)
        imx_jbuf_puts(&b, "], \"children\" : []");
    else
        imx_jbuf_puts(&b, "]");
    if (b.failed) {
        imx_jbuf_free(&b);
        return NULL;
    }
    *len = b.len;
    return b.p;
}

enum imx_db_status imx_db_image_lineage_indexed(struct imx_db_conn *c, long long id,
                                                long long after, unsigned limit,
                                                struct imx_db_lineage *out, bool *served,
                                                struct imx_db_fault *why)
{
    memset(out, 0, sizeof *out);
    *served = false;
    if (!g.enabled || imx_db_is_read_conn(c))
        return imx_db_why(c, IMX_DBS_OK, why);
    struct {
        struct imx_ix_lineage l;
        char *texts[IMX_IX_LINEAGE_MAX];
    } *w = malloc(sizeof *w);
    if (!w)
        return imx_db_why(c, IMX_DBS_ERROR, why);
    enum imx_db_status rc = IMX_DBS_OK;
    for (int attempt = 0; attempt < 2; attempt++) {
        struct made_at at;
        pthread_rwlock_rdlock(&g.lock);
        bool loaded = g.ix != NULL;
        int got = loaded ? imx_ix_lineage(g.ix, id, after, (int)limit, &w->l) : -1;
        at = g.at;
        pthread_rwlock_unlock(&g.lock);
        if (!loaded) {
            if (!synced_on(c, &rc))
                goto out;
            continue;
        }
        if (got != 0)
            goto out; /* no such image (SQL says so, with the epoch), or not exactly answerable */
        size_t n = 1 + w->l.n_parents + w->l.n_children;
        cache_take(w->l.ids, n, w->texts);
        bool current, built_needed;
        rc = read_summaries(c, &stmt_summaries, w->l.ids, n, w->texts, &at, &current, &built_needed,
                            &out->epoch);
        if (rc == IMX_DBS_OK && current && built_needed)
            rc = read_summaries(c, &stmt_summaries_built, w->l.ids, n, w->texts, &at, &current,
                                &built_needed, &out->epoch);
        if (rc == IMX_DBS_OK && current) {
            out->text = lineage_text(&w->l, w->texts, &out->len);
            out->doc = out->text;
            out->next_after = w->l.next_after;
            *served = out->text != NULL;
            rc = *served ? IMX_DBS_OK : IMX_DBS_ERROR;
            if (*served)
                atomic_fetch_add(&g.lineages_indexed, 1);
        }
        for (size_t i = 0; i < n; i++)
            free(w->texts[i]);
        free(w->l.tails);
        if (rc != IMX_DBS_OK || current)
            goto out;
        /* Something was committed since the index was made: catch up, then look again. */
        if (!synced_on(c, &rc))
            goto out;
    }
out:
    free(w);
    return imx_db_why(c, rc, why);
}

struct imx_db_lineage_call {
    struct imx_ix_lineage l;
    char *texts[IMX_IX_LINEAGE_MAX];
    size_t n;
    struct made_at at;
    char *missing; /* the ask: the ids the summary cache lacks, as an array literal */
    struct imx_db_call call;
};

struct imx_db_lineage_call *imx_db_image_lineage_start(long long id, long long after,
                                                       unsigned limit, void (*wake)(void *cls),
                                                       void *cls)
{
    if (!g.enabled)
        return NULL;
    struct imx_db_lineage_call *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_rwlock_rdlock(&g.lock);
    int got = g.ix ? imx_ix_lineage(g.ix, id, after, (int)limit, &c->l) : -1;
    c->at = g.at;
    pthread_rwlock_unlock(&g.lock);
    if (got != 0) {
        free(c);
        return NULL;
    }
    c->n = 1 + c->l.n_parents + c->l.n_children;
    cache_take(c->l.ids, c->n, c->texts);
    c->missing = missing_literal(c->l.ids, c->texts, c->n);
    if (!c->missing) {
        imx_db_lineage_call_free(c);
        return NULL;
    }
    imx_db_call_start(&summary_reads, &c->call, c->missing, wake, cls);
    return c;
}

enum imx_db_status imx_db_image_lineage_result(struct imx_db_lineage_call *c,
                                               struct imx_db_lineage *out, bool *served)
{
    memset(out, 0, sizeof *out);
    *served = false;
    struct imx_db_waiter *self = &c->call.self;
    struct imx_db_batch *batch = self->batch;
    self->batch = NULL;
    bool current, built_needed;
    enum imx_db_status rc =
        summaries_taken(&stmt_summaries, batch ? batch->res : NULL, batch, self->rc, c->l.ids, c->n,
                        c->texts, &c->at, &current, &built_needed, &out->epoch);
    if (rc == IMX_DBS_OK && current && !built_needed) {
        out->text = lineage_text(&c->l, c->texts, &out->len);
        out->doc = out->text;
        out->next_after = c->l.next_after;
        *served = out->text != NULL;
        rc = *served ? IMX_DBS_OK : IMX_DBS_ERROR;
        if (*served)
            atomic_fetch_add(&g.lineages_indexed, 1);
    }
    return rc;
}

void imx_db_lineage_call_free(void *call)
{
    struct imx_db_lineage_call *c = call;
    if (!c)
        return;
    imx_db_batch_unref(c->call.self.batch);
    for (size_t i = 0; i < c->n; i++)
        free(c->texts[i]);
    free(c->l.tails);
    free(c->missing);
    free(c);
}

void imx_db_lineage_read_stats(unsigned long long *reads, unsigned long long *answered)
{
    imx_db_batch_stats(&summary_reads, reads, answered);
}

void imx_db_image_index_count_sql(void)
{
    atomic_fetch_add(&g.searches_sql, 1);
}

void imx_db_image_index_count_lineage_sql(void)
{
    atomic_fetch_add(&g.lineages_sql, 1);
}

void imx_db_image_index_stats(struct imx_db_image_index_stats *st)
{
    pthread_rwlock_rdlock(&g.lock);
    st->images = g.ix ? (long long)imx_ix_count(g.ix) : -1;
    st->bytes = g.ix ? imx_ix_bytes(g.ix) : 0;
    pthread_rwlock_unlock(&g.lock);
    st->searches_indexed = atomic_load(&g.searches_indexed);
    st->searches_sql = atomic_load(&g.searches_sql);
    st->loads = atomic_load(&g.loads);
    st->catchups = atomic_load(&g.catchups);
    st->lineages_indexed = atomic_load(&g.lineages_indexed);
    st->lineages_sql = atomic_load(&g.lineages_sql);
}
