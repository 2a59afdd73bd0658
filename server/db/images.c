/* SQL for the catalog: insert, get, search (keyset pages, facets), compare, resolve. Inputs go
 * in as parameters only (arrays as PostgreSQL array literals); PostgreSQL builds the JSON. */
#include "db/images.h"
#include "db/images_search.h"
#include "db/read_batch.h"
#include "db/internal.h"

#include <ctype.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Array-literal buffers: IMX_DBI_MAX_CONSTRAINTS quoted 72-byte keys fit easily. */
#define ARRAY_TEXT_MAX 8192

/* ---- the search filter, shared by the page and facet statements ($1..$17) ---- */

/* A component constraint matches when the image has that component with version_key inside
 * [lo, hi] (ends excluded when not inclusive). Resolve checks it per image of one family, as a
 * probe of image_components' primary key (image_id, name). */
#define CONSTRAINT_MATCH(c, k)                                                                     \
    c ".name = " k ".name AND " c ".version_key >= " k ".lo::int[] AND " c ".version_key <= " k    \
      ".hi::int[] AND (" k ".lo_incl OR " c ".version_key <> " k ".lo::int[]) AND (" k             \
      ".hi_incl OR " c ".version_key <> " k ".hi::int[])"

/* Search reads one row per image: the child tables' values are copied onto images (gpus,
 * regions, tags, component_keys: written by the publish, kept by 0004's copy triggers for rows
 * written with SQL; a component listed more than once, two driver trees, matches by any entry:
 * entry 1 in component_keys, the others in component_alt_keys, NULL on nearly every row), so every
 * filter is a cheap per-row test and the planner can drive the scan from the keyset index (a
 * page stops after limit + 1 matches) or from the most selective index (GIN on the arrays, the
 * tsvector, family). Constraints become inclusive ranges of imx_version_key_num() numbers once,
 * in the CTE want, and each row compares its component_keys member (bench/NOTES-search.md). */
#define SEARCH_CTE                                                                                 \
    "want AS MATERIALIZED (SELECT u.name,"                                                         \
    "   to_jsonb(imx_version_key_num(u.lo::int[]) + CASE WHEN u.lo_incl THEN 0 ELSE 1 END) AS lo," \
    "   to_jsonb(imx_version_key_num(u.hi::int[]) - CASE WHEN u.hi_incl THEN 0 ELSE 1 END) AS hi"  \
    "  FROM unnest($9::text[], $10::text[], $11::bool[], $12::text[], $13::bool[])"                \
    "    AS u(name, lo, lo_incl, hi, hi_incl)),"                                                   \
    " pkgf AS MATERIALIZED (SELECT ARRAY(SELECT c.id FROM os_package_chunks c"                     \
    "   WHERE c.members && ARRAY(SELECT op.id FROM os_packages op,"                                \
    "     LATERAL (SELECT f.e -> op.vorder AS b) x WHERE op.name = f.e->>'name'"                   \
    "     AND jsonb_typeof(x.b) = 'object' AND imx_pkg_key_in(op.key, decode(x.b->>'lo', 'hex'),"  \
    "       (x.b->>'lo_incl')::boolean, decode(x.b->>'hi', 'hex'), (x.b->>'hi_incl')::boolean)))"  \
    "   AS chunks FROM jsonb_array_elements(coalesce($19::jsonb, '[]')) f(e)"                      \
    "   WHERE $19::jsonb IS NOT NULL)"

/* The package filter (pkgf and its test) stands behind "$19 IS NULL": without package filters
 * the planner drops it, where its estimate (100 filters x every candidate row) made a broad facet
 * statement look 80 times dearer than it is (and PostgreSQL JIT-compile it, 0.85 s, where jit is
 * on). */
#define SEARCH_WHERE                                                                               \
    " ($1::text IS NULL OR i.search @@ websearch_to_tsquery('simple', $1::text))"                  \
    " AND ($2::text IS NULL OR i.family = $2::text)"                                               \
    " AND ($3::text IS NULL OR i.provider = $3::text)"                                             \
    " AND ($4::text IS NULL OR i.regions @> ARRAY[$4::text])"                                      \
    " AND ($5::text IS NULL OR i.architecture = $5::text)"                                         \
    " AND ($6::text IS NULL OR i.os_name = $6::text)"                                              \
    " AND ($7::text IS NULL OR i.os_version = $7::text)"                                           \
    " AND ($8::text[] IS NULL OR i.gpus && $8::text[])"                                            \
    " AND NOT EXISTS (SELECT 1 FROM want k WHERE NOT coalesce("                                    \
    "      i.component_keys -> k.name >= k.lo AND i.component_keys -> k.name <= k.hi, false)"      \
    "      AND NOT (i.component_alt_keys IS NOT NULL AND EXISTS (SELECT 1 FROM"                    \
    "        jsonb_array_elements(i.component_alt_keys -> k.name) e(v)"                            \
    "        WHERE e.v >= k.lo AND e.v <= k.hi)))"                                                 \
    " AND i.tags @> $14::text[]"                                                                   \
    " AND ($15::text IS NULL OR (i.status = $15::text"                                             \
    "      AND (i.revoke_at IS NULL OR i.revoke_at > now()))"                                      \
    "      OR ($15::text = 'revoked' AND i.revoke_at <= now()))"                                   \
    " AND ($16::text IS NULL OR i.layer = $16::text)"                                              \
    " AND ($17::text IS NULL OR i.patch_status = $17::text)"                                       \
    " AND ($18::text IS NULL OR i.os_patch_status = $18::text"                                     \
    "      OR ($18::text = 'unknown' AND i.os_patch_status IS NULL))"                              \
    " AND ($19::jsonb IS NULL OR NOT EXISTS (SELECT 1 FROM pkgf WHERE NOT EXISTS ("                \
    "      SELECT 1 FROM image_packages ip"                                                        \
    "       WHERE ip.image_id = i.id AND ip.chunks && pkgf.chunks)))"                              \
    " AND ($20::date IS NULL OR imx_image_eol_date(i.id) < $20::date)"

#define SEARCH_NPARAMS 20

/* One page: $21 cursor key (text, NULL = first page), $22 cursor id, $23 limit. The page is
 * fetched with one extra row to know whether a next page exists, and turned into JSON by one
 * aggregate over the page rows (summaries are built for them only, after the LIMIT). */
#define PAGE_SQL(code, key, order, after)                                                          \
    "WITH " SEARCH_CTE ", page AS (SELECT i.id, (" key                                             \
    ")::text AS k, row_number() OVER (ORDER BY " order ") AS rn"                                   \
    " FROM images i WHERE" SEARCH_WHERE " AND ($21::text IS NULL OR " after ")"                    \
    " ORDER BY " order " LIMIT $23::int + 1)"                                                      \
    " SELECT json_build_object("                                                                   \
    "  'items', coalesce(json_agg(" STORED_SUMMARY_OF(                                             \
        "s") " ORDER BY p.rn)"                                                                     \
             "    FILTER (WHERE p.rn <= $23::int), '[]'),"                                         \
             "  'next_cursor', CASE WHEN max(p.rn) > $23::int"                                     \
             "    THEN min(CASE WHEN p.rn = $23::int THEN '" code                                  \
             ":' || p.id || ':' || p.k END) END)::text"                                            \
             " FROM page p JOIN images s ON s.id = p.id"

IMX_DB_STMT(stmt_page_published, 23,
            PAGE_SQL("p", "(extract(epoch FROM i.published_at) * 1000000)::bigint",
                     "i.published_at DESC, i.id DESC",
                     "(i.published_at, i.id) < (timestamptz 'epoch' + $21::text::bigint"
                     " * interval '1 microsecond', $22::bigint)"));
IMX_DB_STMT(stmt_page_family, 23,
            PAGE_SQL("f", "i.family", "i.family, i.id",
                     "(i.family, i.id) > ($21::text, $22::bigint)"));
IMX_DB_STMT(
    stmt_page_boot, 23,
    PAGE_SQL("b", "coalesce(i.boot_seconds, 2147483647)",
             "coalesce(i.boot_seconds, 2147483647), i.id",
             "(coalesce(i.boot_seconds, 2147483647), i.id) > ($21::text::int, $22::bigint)"));
IMX_DB_STMT(stmt_page_size, 23,
            PAGE_SQL("s", "coalesce(i.size_gb, 'Infinity'::numeric)",
                     "coalesce(i.size_gb, 'Infinity'::numeric), i.id",
                     "(coalesce(i.size_gb, 'Infinity'::numeric), i.id)"
                     " > ($21::text::numeric, $22::bigint)"));

#define FACET(name, value_sql, from_sql)                                                           \
    " '" name "', (SELECT coalesce(json_agg(json_build_object('value', x.v, 'count', x.n)"         \
    "   ORDER BY x.n DESC, x.v COLLATE \"C\"), '[]') FROM (SELECT " value_sql " AS v,"             \
    "   count(*) AS n"                                                                             \
    "   FROM " from_sql " GROUP BY 1) x)"

/* Facets count over the matching rows' own columns (the copies of the child tables and the
 * generated facet_ columns), with no join. Planned for each call's values (IMX_DB_STMT_CUSTOM):
 * the generic plan scans images through the tags index for every call (all 100,000 rows for an
 * empty tag list) and took 171 ms where the custom plan takes ~45 ms. */
// clang-format off
IMX_DB_STMT_CUSTOM(stmt_facets, SEARCH_NPARAMS,
    "WITH " SEARCH_CTE ", m AS MATERIALIZED (SELECT i.os_name, i.os_version, i.provider, i.gpus,"
    "  i.tags, i.facet_cuda, i.facet_driver, i.facet_frameworks, i.regions, i.patch_status"
    " FROM images i WHERE" SEARCH_WHERE ")"
    " SELECT json_build_object('total', (SELECT count(*) FROM m),"
    FACET("gpu", "g.v", "(SELECT unnest(m.gpus) AS v FROM m) g") ","
    FACET("os", "m.os_name || ':' || m.os_version", "m") ","
    FACET("provider", "m.provider", "m") ","
    FACET("cuda", "m.facet_cuda", "m WHERE m.facet_cuda IS NOT NULL") ","
    FACET("driver_branch", "m.facet_driver", "m WHERE m.facet_driver IS NOT NULL") ","
    FACET("framework", "f.v", "(SELECT unnest(m.facet_frameworks) AS v FROM m) f") ","
    FACET("tag", "t.v", "(SELECT unnest(m.tags) AS v FROM m) t") ","
    FACET("region", "r.v", "(SELECT unnest(m.regions) AS v FROM m) r") ","
    FACET("patch_status", "m.patch_status", "m")
    ")::text");
// clang-format on

/* The publish use case (migrations/procedures/publish_images.sql), for one image or many. */
IMX_DB_STMT(stmt_publish, 1, "SELECT imx_publish_images($1::jsonb)::text");

IMX_DB_STMT(stmt_get, 1,
            "SELECT j, '\"' || md5(j) || '\"' FROM (SELECT imx_image_json(i.id)::text AS j"
            " FROM images i WHERE i.id = $1::bigint) x");

/* Image summaries in the order given, one row per component name and per compared field with a
 * value per image (null when absent) and whether they differ. Values are compared as jsonb, with
 * null as a value of its own. */
IMX_DB_STMT(
    stmt_compare, 1,
    "WITH ids AS (SELECT u.id, u.ord FROM unnest($1::bigint[]) WITH ORDINALITY AS u(id, ord)),"
    " imgs AS (SELECT ids.ord, i.* FROM ids JOIN images i ON i.id = ids.id),"
    " names AS (SELECT DISTINCT c.name FROM image_components c JOIN ids ON c.image_id = ids.id),"
    " comps AS (SELECT names.name, jsonb_agg(to_jsonb(c.version) ORDER BY ids.ord) AS v,"
    "   count(DISTINCT coalesce(to_jsonb(c.version), 'null')) > 1 AS differs"
    "   FROM names CROSS JOIN ids LEFT JOIN image_components c"
    "     ON c.image_id = ids.id AND c.name = names.name GROUP BY names.name),"
    " fields AS (SELECT f.name, f.pos, jsonb_agg(f.v ORDER BY imgs.ord) AS v,"
    "   count(DISTINCT coalesce(f.v, 'null')) > 1 AS differs"
    "   FROM imgs CROSS JOIN LATERAL (VALUES"
    "    ('boot_seconds', 1, to_jsonb(imgs.boot_seconds)),"
    "    ('size_gb', 2, to_jsonb(imgs.size_gb)),"
    "    ('os', 3, to_jsonb(imgs.os_name || ':' || imgs.os_version)),"
    "    ('kernel', 4, to_jsonb(imgs.kernel)),"
    "    ('regions', 5, (SELECT coalesce(jsonb_agg(a.region ORDER BY a.region), '[]')"
    "                    FROM image_artifacts a WHERE a.image_id = imgs.id)),"
    "    ('status', 6, to_jsonb(imx_image_status(imgs.status, imgs.revoke_at))),"
    "    ('compatibility', 7, jsonb_build_object('ok', imgs.compatibility->'ok',"
    "       'errors', imgs.compatibility->'errors', 'warnings', imgs.compatibility->'warnings'))"
    "   ) f(name, pos, v) GROUP BY f.name, f.pos)"
    " SELECT (SELECT ids.id FROM ids WHERE NOT EXISTS (SELECT 1 FROM images i"
    "          WHERE i.id = ids.id) ORDER BY ids.ord LIMIT 1),"
    " json_build_object("
    "  'images', (SELECT json_agg(imx_image_summary(ids.id) ORDER BY ids.ord) FROM ids),"
    "  'components', (SELECT coalesce(json_agg(json_build_object('name', comps.name,"
    "     'values', comps.v, 'differs', comps.differs) ORDER BY comps.name), '[]') FROM comps),"
    "  'fields', (SELECT json_agg(json_build_object('name', fields.name, 'values', fields.v,"
    "     'differs', fields.differs) ORDER BY fields.pos) FROM fields))::text");

/* Compare's OS rows (migrations/0025_os_packages.sql imx_compare_os_fields). */
IMX_DB_STMT(stmt_compare_os, 1, "SELECT imx_compare_os_fields($1::bigint[])::text");

/* $1 family, $2 region, $3 arch, $4..$8 constraints as in search, $9 their texts. */
IMX_DB_STMT(
    stmt_resolve, 9,
    "WITH f AS (SELECT i.id, i.published_at, i.status, i.patch_status, i.revoke_at,"
    "   i.architecture FROM images i WHERE i.family = $1::text),"
    " s AS (SELECT * FROM f WHERE f.status = 'active' AND f.patch_status <> 'revoked'"
    "   AND (f.revoke_at IS NULL OR f.revoke_at > now())),"
    " r AS (SELECT s.*, a.artifact_id FROM s JOIN image_artifacts a"
    "   ON a.image_id = s.id AND a.region = $2::text),"
    " h AS (SELECT * FROM r WHERE $3::text IS NULL OR r.architecture = $3::text),"
    " k AS (SELECT * FROM unnest($4::text[], $5::text[], $6::bool[], $7::text[],"
    "   $8::bool[], $9::text[]) WITH ORDINALITY AS k(name, lo, lo_incl, hi, hi_incl, text, ord)),"
    " p AS (SELECT h.*, coalesce((SELECT min(k.ord) FROM k WHERE NOT EXISTS ("
    "   SELECT 1 FROM image_components c WHERE c.image_id = h.id AND " CONSTRAINT_MATCH(
        "c", "k") ")), cardinality($4::text[]) + 1) - 1 AS passed FROM h),"
                  " best AS (SELECT * FROM p WHERE p.passed = cardinality($4::text[])"
                  "   ORDER BY p.published_at DESC, p.id DESC LIMIT 1)"
                  " SELECT json_build_object("
                  "  'image', (SELECT imx_image_summary(best.id) FROM best),"
                  "  'artifact_id', (SELECT best.artifact_id FROM best),"
                  "  'emptied_by', CASE WHEN EXISTS (SELECT 1 FROM best) THEN NULL"
                  "    WHEN NOT EXISTS (SELECT 1 FROM f) THEN 'family'"
                  "    WHEN NOT EXISTS (SELECT 1 FROM s) THEN 'status'"
                  "    WHEN NOT EXISTS (SELECT 1 FROM r) THEN 'region'"
                  "    WHEN NOT EXISTS (SELECT 1 FROM h) THEN 'arch' ELSE 'constraint' END,"
                  "  'constraint', CASE WHEN NOT EXISTS (SELECT 1 FROM best) AND EXISTS (SELECT 1 "
                  "FROM h)"
                  "    THEN (SELECT json_build_object('name', k.name, 'constraint', k.text) FROM k"
                  "          WHERE k.ord = (SELECT max(p.passed) + 1 FROM p)) END)::text");

/* The GPU models a gpu filter stands for: the models of that architecture, the canonical model
 * of that spelling, and the name as given (images of unknown GPUs store it so). Looked up
 * before the search so that the search statement gets them as a constant array: its plan then
 * knows how many images they cover (GIN statistics of images.gpus) and chooses between walking
 * the keyset index and reading the gpus index; behind a subquery it assumed 1 %.
 * imx_ref_gpu_canonical() normalises every name and alias of ref_gpu with regular expressions
 * (~0.4 ms), so the answer is cached per process for the reference generation it came from.
 * A name no reference row knows is stored as given at publish, so for such a name the spellings
 * stored in any case count too (MysteryGPU for gpu=mysterygpu): the SQL search looks them up
 * (stmt_gpu_spellings), the in-memory index finds them among its own names. */
IMX_DB_STMT(stmt_gpu_models, 1,
            "WITH ref AS (SELECT r.gpu_model AS m FROM ref_gpu r"
            "  WHERE lower(r.architecture) = lower($1::text)"
            "  UNION SELECT imx_ref_gpu_canonical($1::text))"
            " SELECT array_remove(ARRAY(SELECT DISTINCT u.m FROM (SELECT m FROM ref"
            "  UNION ALL SELECT $1::text) u(m) ORDER BY 1), NULL)::text,"
            " EXISTS (SELECT 1 FROM ref WHERE m IS NOT NULL)");
/* $1 the models so far, with the spellings stored for the name $2 in any (ASCII) case: bytes,
 * as the in-memory index compares them (imx_ix_query.gpu_any_case). */
IMX_DB_STMT(stmt_gpu_spellings, 2,
            "SELECT array_remove(ARRAY(SELECT DISTINCT u.m FROM (SELECT unnest($1::text[])"
            "  UNION ALL SELECT g.gpu FROM image_gpus g WHERE imx_ascii_lower(g.gpu)"
            "  = imx_ascii_lower($2::text)) u(m) ORDER BY 1), NULL)::text");
/* A comma-separated list (gpu=H100,L4) stands for the union of what each name stands for;
 * known only when every name is a model or an architecture the reference knows. A single name
 * keeps the statements above. */
IMX_DB_STMT(stmt_gpu_models_list, 1,
            "WITH n AS (SELECT DISTINCT btrim(x) AS n FROM unnest(string_to_array($1::text, ','))"
            "  x WHERE btrim(x) <> ''),"
            " r AS (SELECT n.n, m.m FROM n CROSS JOIN LATERAL (SELECT g.gpu_model AS m FROM"
            "  ref_gpu g WHERE lower(g.architecture) = lower(n.n)"
            "  UNION SELECT imx_ref_gpu_canonical(n.n)) m)"
            " SELECT array_remove(ARRAY(SELECT DISTINCT u.m FROM (SELECT m FROM r"
            "  UNION ALL SELECT n FROM n) u(m) ORDER BY 1), NULL)::text,"
            " coalesce(bool_and(EXISTS (SELECT 1 FROM r WHERE r.n = n.n AND r.m IS NOT NULL)),"
            "  false) FROM n");
IMX_DB_STMT(stmt_gpu_spellings_list, 2,
            "SELECT array_remove(ARRAY(SELECT DISTINCT u.m FROM (SELECT unnest($1::text[])"
            "  UNION ALL SELECT g.gpu FROM image_gpus g WHERE imx_ascii_lower(g.gpu) IN"
            "  (SELECT imx_ascii_lower(btrim(x)) FROM unnest(string_to_array($2::text, ',')) x))"
            "  u(m) ORDER BY 1), NULL)::text");
IMX_DB_STMT(stmt_ref_generation, 0, "SELECT generation FROM ref_generation");

#define GPU_CACHE_SLOTS 64
#define GPU_CACHE_WAYS  4

/* Four ways a set, by the filter text; an entry is valid only for its generation. Direct-mapped,
 * two of the bench's eleven GPU filters (H200, ampere) shared a slot and pushed each other out:
 * one search in five looked its models up again, a 2.5 ms statement (bench/RESULTS.md
 * "Session 8"). */
static struct gpu_cache_entry {
    long long generation; /* 0: empty */
    char gpu[65];
    char models[IMX_DBI_GPU_MODELS_MAX];
    bool known;
} gpu_cache[GPU_CACHE_SLOTS];
static unsigned gpu_cache_victim; /* the way replaced next in a full set; under the lock */
static pthread_mutex_t gpu_cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* The first entry of gpu's set. */
static struct gpu_cache_entry *gpu_cache_set(const char *gpu)
{
    unsigned h = 5381;
    for (const char *p = gpu; *p; p++)
        h = h * 33 + (unsigned char)*p;
    return &gpu_cache[(h % (GPU_CACHE_SLOTS / GPU_CACHE_WAYS)) * GPU_CACHE_WAYS];
}

/* The entry of set for gpu at generation, or NULL (lock held). */
static struct gpu_cache_entry *gpu_cache_find(struct gpu_cache_entry *set, const char *gpu,
                                              long long generation)
{
    for (int w = 0; w < GPU_CACHE_WAYS; w++)
        if (set[w].generation == generation && strcmp(set[w].gpu, gpu) == 0)
            return &set[w];
    return NULL;
}

/* Where gpu's models go in set: its own entry, an entry of another generation, or the next
 * victim (lock held). */
static struct gpu_cache_entry *gpu_cache_place(struct gpu_cache_entry *set, const char *gpu,
                                               long long generation)
{
    for (int w = 0; w < GPU_CACHE_WAYS; w++)
        if (strcmp(set[w].gpu, gpu) == 0)
            return &set[w];
    for (int w = 0; w < GPU_CACHE_WAYS; w++)
        if (set[w].generation != generation)
            return &set[w];
    return &set[gpu_cache_victim++ % GPU_CACHE_WAYS];
}

/* ---- helpers ---- */

static void set_err(char *err, size_t errlen, const char *fmt, const char *arg)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, arg ? arg : "");
}

/* Maps a failed result to an outcome (db/status.h), with a message for err. */
static enum imx_db_status failure_rc(const PGresult *r, char *err, size_t errlen)
{
    const char *constraint = r ? PQresultErrorField(r, PG_DIAG_CONSTRAINT_NAME) : NULL;
    enum imx_db_status rc = imx_db_status_of(r);
    switch (rc) {
    case IMX_DBS_UNAVAILABLE:
        set_err(err, errlen, "the database is unavailable%s", NULL);
        break;
    case IMX_DBS_CONFLICT:
        set_err(err, errlen, "already exists (%s)", constraint);
        break;
    case IMX_DBS_INVALID:
        set_err(err, errlen, "a value was refused (%s)",
                constraint ? constraint : imx_db_sqlstate(r));
        break;
    default:
        set_err(err, errlen, "database error %s", imx_db_sqlstate(r));
        break;
    }
    return rc;
}

/* Runs stmt and hands back the text of the first column of its only row (new), or the failure. */
static enum imx_db_status exec_json(struct imx_db_conn *c, struct imx_db_stmt *stmt,
                                    const char *const *params, char **json)
{
    *json = NULL;
    PGresult *r = imx_db_exec(c, stmt, params);
    if (!imx_db_ok(r)) {
        enum imx_db_status rc = failure_rc(r, NULL, 0);
        PQclear(r);
        return rc;
    }
    if (PQntuples(r) != 1 || PQgetisnull(r, 0, 0)) {
        PQclear(r);
        return IMX_DBS_ERROR;
    }
    *json = strdup(PQgetvalue(r, 0, 0));
    PQclear(r);
    return *json ? IMX_DBS_OK : IMX_DBS_ERROR;
}

/* Runs stmt for one image id ($1; more parameters from extra, may be NULL) and maps the outcome:
 * a failure, NOT_FOUND when no row (or a NULL first value) came back, else OK. Returns the result
 * (PQclear it; rows are readable when *rc is OK). */
static PGresult *exec_for_id(struct imx_db_conn *c, struct imx_db_stmt *stmt, long long id,
                             const char *extra, enum imx_db_status *rc)
{
    char idt[24];
    snprintf(idt, sizeof idt, "%lld", id);
    const char *params[] = { idt, extra };
    PGresult *r = imx_db_exec(c, stmt, params);
    *rc = !imx_db_ok(r)                               ? failure_rc(r, NULL, 0)
          : PQntuples(r) == 0 || PQgetisnull(r, 0, 0) ? IMX_DBS_NOT_FOUND
                                                      : IMX_DBS_OK;
    return r;
}

/* A growing array literal: {"a","b",NULL}. Returns -1 when it would not fit. */
struct arr {
    char buf[ARRAY_TEXT_MAX];
    size_t len;
    bool full;
};

static void arr_init(struct arr *a)
{
    memcpy(a->buf, "{", 2);
    a->len = 1;
    a->full = false;
}

static void arr_raw(struct arr *a, const char *s)
{
    size_t n = strlen(s);
    if (a->full || a->len + n + 2 > sizeof a->buf) {
        a->full = true;
        return;
    }
    memcpy(a->buf + a->len, s, n + 1);
    a->len += n;
}

/* Appends one element, quoted (NULL: SQL NULL). */
static void arr_add(struct arr *a, const char *s)
{
    if (a->len > 1)
        arr_raw(a, ",");
    if (!s) {
        arr_raw(a, "NULL");
        return;
    }
    arr_raw(a, "\"");
    for (const char *p = s; *p && !a->full; p++) {
        char one[3] = { 0 };
        if (*p == '"' || *p == '\\') {
            one[0] = '\\';
            one[1] = *p;
        } else {
            one[0] = *p;
        }
        arr_raw(a, one);
    }
    arr_raw(a, "\"");
}

static const char *arr_end(struct arr *a)
{
    arr_raw(a, "}");
    return a->full ? NULL : a->buf;
}

/* The five constraint arrays ($9..$13 of search, $4..$8 of resolve) and their texts. */
struct constraint_arrays {
    struct arr names, lo, lo_incl, hi, hi_incl, texts;
};

static const char KEY_MAX_TEXT[] = "{999999999,999999999,999999999,999999999,999999999,999999999}";

static int build_constraints(struct constraint_arrays *ca, const struct imx_image_constraint *cs,
                             size_t n, const char *params[6])
{
    if (n > IMX_DBI_MAX_CONSTRAINTS || (n && !cs))
        return -1;
    arr_init(&ca->names);
    arr_init(&ca->lo);
    arr_init(&ca->lo_incl);
    arr_init(&ca->hi);
    arr_init(&ca->hi_incl);
    arr_init(&ca->texts);
    for (size_t i = 0; i < n; i++) {
        char lo[IMX_VER_KEY_TEXT_SIZE], hi[IMX_VER_KEY_TEXT_SIZE];
        bool lo_incl, hi_incl;
        if (!cs[i].name)
            return -1;
        imx_constraint_sql_bounds(&cs[i].constraint, lo, &lo_incl, hi, &hi_incl);
        /* Unbounded ends become the smallest and largest keys, so SQL has one shape. */
        if (lo[0] == '\0') {
            snprintf(lo, sizeof lo, "{0,0,0,0,0,0}");
            lo_incl = true;
        }
        if (hi[0] == '\0') {
            snprintf(hi, sizeof hi, "%s", KEY_MAX_TEXT);
            hi_incl = true;
        }
        arr_add(&ca->names, cs[i].name);
        arr_add(&ca->lo, lo);
        arr_add(&ca->lo_incl, lo_incl ? "t" : "f");
        arr_add(&ca->hi, hi);
        arr_add(&ca->hi_incl, hi_incl ? "t" : "f");
        arr_add(&ca->texts, cs[i].constraint.text);
    }
    params[0] = arr_end(&ca->names);
    params[1] = arr_end(&ca->lo);
    params[2] = arr_end(&ca->lo_incl);
    params[3] = arr_end(&ca->hi);
    params[4] = arr_end(&ca->hi_incl);
    params[5] = arr_end(&ca->texts);
    for (int i = 0; i < 6; i++) {
        if (!params[i])
            return -1;
    }
    return 0;
}

static const char *empty_to_null(const char *s)
{
    return s && *s ? s : NULL;
}

/* The shared filter parameters $1..$17. os is split at ':' into os_buf. Returns 0 or -1. */
struct search_params {
    const char *v[23];
    char *packages; /* new: the package filters as JSON, $19 */
    char os_name[64];
    char id_text[24];
    char limit_text[16];
    char gpus[IMX_DBI_GPU_MODELS_MAX]; /* the gpu filter's models, an array literal */
    struct constraint_arrays ca;
    struct arr tags;
};

enum imx_db_status imx_db_gpu_models_at(struct imx_db_conn *c, const char *gpu,
                                        long long generation, char out[IMX_DBI_GPU_MODELS_MAX],
                                        bool *known)
{
    bool cacheable = strlen(gpu) < sizeof gpu_cache[0].gpu;
    struct gpu_cache_entry *set = gpu_cache_set(gpu);
    if (cacheable) {
        bool hit = false;
        pthread_mutex_lock(&gpu_cache_lock);
        const struct gpu_cache_entry *e = gpu_cache_find(set, gpu, generation);
        if (e) {
            memcpy(out, e->models, IMX_DBI_GPU_MODELS_MAX);
            *known = e->known;
            hit = true;
        }
        pthread_mutex_unlock(&gpu_cache_lock);
        if (hit)
            return IMX_DBS_OK;
    }
    const char *params[] = { gpu };
    PGresult *r =
        imx_db_exec(c, strchr(gpu, ',') ? &stmt_gpu_models_list : &stmt_gpu_models, params);
    enum imx_db_status rc = IMX_DBS_OK;
    if (!imx_db_ok(r))
        rc = failure_rc(r, NULL, 0);
    else if (PQntuples(r) != 1 || PQgetlength(r, 0, 0) >= IMX_DBI_GPU_MODELS_MAX)
        rc = IMX_DBS_INVALID;
    else
        memcpy(out, PQgetvalue(r, 0, 0), (size_t)PQgetlength(r, 0, 0) + 1);
    if (rc == IMX_DBS_OK)
        *known = PQgetvalue(r, 0, 1)[0] == 't';
    PQclear(r);
    if (rc == IMX_DBS_OK && cacheable) {
        /* Stored under the generation read before the lookup: if the reference data moved in
         * between, nobody asks for that generation again. */
        pthread_mutex_lock(&gpu_cache_lock);
        struct gpu_cache_entry *e = gpu_cache_place(set, gpu, generation);
        e->generation = generation;
        snprintf(e->gpu, sizeof e->gpu, "%s", gpu);
        memcpy(e->models, out, sizeof e->models);
        e->known = *known;
        pthread_mutex_unlock(&gpu_cache_lock);
    }
    return rc;
}

/* Fills sp->gpus with the models gpu stands for at the current reference generation. */
static enum imx_db_status gpu_models(struct imx_db_conn *c, const char *gpu,
                                     struct search_params *sp)
{
    PGresult *r = imx_db_exec(c, &stmt_ref_generation, NULL);
    if (!imx_db_ok(r) || PQntuples(r) != 1) {
        enum imx_db_status rc = imx_db_ok(r) ? IMX_DBS_ERROR : failure_rc(r, NULL, 0);
        PQclear(r);
        return rc;
    }
    long long generation = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    bool known;
    enum imx_db_status rc = imx_db_gpu_models_at(c, gpu, generation, sp->gpus, &known);
    if (rc != IMX_DBS_OK || known)
        return rc;
    const char *params[] = { sp->gpus, gpu };
    r = imx_db_exec(c, strchr(gpu, ',') ? &stmt_gpu_spellings_list : &stmt_gpu_spellings, params);
    if (!imx_db_ok(r))
        rc = failure_rc(r, NULL, 0);
    else if (PQntuples(r) != 1 || PQgetlength(r, 0, 0) >= IMX_DBI_GPU_MODELS_MAX)
        rc = IMX_DBS_INVALID;
    else
        memcpy(sp->gpus, PQgetvalue(r, 0, 0), (size_t)PQgetlength(r, 0, 0) + 1);
    PQclear(r);
    return rc;
}

static enum imx_db_status search_filter_params(struct imx_db_conn *c, struct search_params *sp,
                                               const struct imx_image_search *s)
{
    memset(sp->v, 0, sizeof sp->v);
    sp->v[0] = empty_to_null(s->q);
    sp->v[1] = empty_to_null(s->family);
    sp->v[2] = empty_to_null(s->provider);
    sp->v[3] = empty_to_null(s->region);
    sp->v[4] = empty_to_null(s->arch);
    if (empty_to_null(s->os)) {
        const char *colon = strchr(s->os, ':');
        size_t n = colon ? (size_t)(colon - s->os) : strlen(s->os);
        if (n == 0 || n >= sizeof sp->os_name)
            return IMX_DBS_INVALID;
        memcpy(sp->os_name, s->os, n);
        sp->os_name[n] = '\0';
        sp->v[5] = sp->os_name;
        sp->v[6] = colon ? empty_to_null(colon + 1) : NULL;
    }
    if (empty_to_null(s->gpu)) {
        enum imx_db_status rc = gpu_models(c, s->gpu, sp);
        if (rc != IMX_DBS_OK)
            return rc;
        sp->v[7] = sp->gpus;
    }
    const char *cparams[6];
    if (build_constraints(&sp->ca, s->constraints, s->n_constraints, cparams) != 0)
        return IMX_DBS_INVALID;
    for (int i = 0; i < 5; i++)
        sp->v[8 + i] = cparams[i];
    if (s->n_tags > IMX_DBI_MAX_TAGS || (s->n_tags && !s->tags))
        return IMX_DBS_INVALID;
    arr_init(&sp->tags);
    for (size_t i = 0; i < s->n_tags; i++) {
        bool dup = false;
        for (size_t k = 0; k < i; k++)
            dup = dup || (s->tags[k] && s->tags[i] && strcmp(s->tags[k], s->tags[i]) == 0);
        if (!s->tags[i])
            return IMX_DBS_INVALID;
        if (!dup)
            arr_add(&sp->tags, s->tags[i]);
    }
    sp->v[13] = arr_end(&sp->tags);
    if (!sp->v[13])
        return IMX_DBS_INVALID;
    const char *status = empty_to_null(s->status);
    sp->v[14] = !status ? "active" : strcmp(status, "any") == 0 ? NULL : status;
    sp->v[15] = empty_to_null(s->layer);
    sp->v[16] = empty_to_null(s->patch_status);
    sp->v[17] = empty_to_null(s->os_patch_status);
    sp->v[19] = empty_to_null(s->eol_before);
    sp->packages = NULL;
    if (s->n_packages > IMX_DBI_MAX_PACKAGE_FILTERS || (s->n_packages && !s->packages))
        return IMX_DBS_INVALID;
    if (s->n_packages) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < s->n_packages; i++) {
            const struct imx_image_package_filter *f = &s->packages[i];
            json_t *e = json_pack("{s:s}", "name", f->name ? f->name : "");
            for (int k = 0; e && k < 2; k++) {
                const struct imx_pkg_constraint *pc = k ? &f->rpm : &f->dpkg;
                if (!(k ? f->rpm_ok : f->dpkg_ok))
                    continue;
                char lo[IMX_PKGVER_KEY_HEX_SIZE], hi[IMX_PKGVER_KEY_HEX_SIZE];
                if (pc->has_lo)
                    imx_pkgver_hex(pc->lo, pc->lo_n, lo);
                if (pc->has_hi)
                    imx_pkgver_hex(pc->hi, pc->hi_n, hi);
                json_object_set_new(
                    e, k ? "rpm" : "dpkg",
                    json_pack("{s:s?, s:b, s:s?, s:b}", "lo", pc->has_lo ? lo + 2 : NULL, "lo_incl",
                              !pc->has_lo || pc->lo_incl, "hi", pc->has_hi ? hi + 2 : NULL,
                              "hi_incl", !pc->has_hi || pc->hi_incl));
            }
            json_array_append_new(a, e);
        }
        sp->packages = a ? json_dumps(a, JSON_COMPACT) : NULL;
        json_decref(a);
        if (!sp->packages)
            return IMX_DBS_ERROR;
        sp->v[18] = sp->packages;
    }
    return IMX_DBS_OK;
}

int imx_image_sort_parse(const char *s, enum imx_image_sort *out)
{
    static const struct {
        const char *name;
        enum imx_image_sort sort;
    } sorts[] = {
        { "-published_at", IMX_SORT_PUBLISHED_DESC },
        { "family", IMX_SORT_FAMILY },
        { "boot_seconds", IMX_SORT_BOOT_SECONDS },
        { "size_gb", IMX_SORT_SIZE_GB },
    };
    if (!s || !*s) {
        *out = IMX_SORT_PUBLISHED_DESC;
        return 0;
    }
    for (size_t i = 0; i < sizeof sorts / sizeof sorts[0]; i++) {
        if (strcmp(s, sorts[i].name) == 0) {
            *out = sorts[i].sort;
            return 0;
        }
    }
    return -1;
}

static bool all_chars(const char *s, const char *allowed)
{
    return *s && strspn(s, allowed) == strlen(s);
}

int imx_db_search_cursor_parse(const char *cursor, enum imx_image_sort sort, char id_text[24],
                               const char **key)
{
    static const char codes[] = { 'p', 'f', 'b', 's' };
    if (strlen(cursor) > 200 || cursor[0] != codes[sort] || cursor[1] != ':')
        return -1;
    const char *id = cursor + 2;
    const char *colon = strchr(id, ':');
    size_t n = colon ? (size_t)(colon - id) : 0;
    if (n == 0 || n >= 24)
        return -1;
    memcpy(id_text, id, n);
    id_text[n] = '\0';
    if (!all_chars(id_text, "0123456789"))
        return -1;
    *key = colon + 1;
    switch (sort) {
    case IMX_SORT_PUBLISHED_DESC:
        return all_chars(*key, "-0123456789") ? 0 : -1;
    case IMX_SORT_FAMILY:
        return all_chars(*key, "abcdefghijklmnopqrstuvwxyz0123456789._-") ? 0 : -1;
    case IMX_SORT_BOOT_SECONDS:
        return all_chars(*key, "0123456789") ? 0 : -1;
    case IMX_SORT_SIZE_GB:
        return strcmp(*key, "Infinity") == 0 || all_chars(*key, "0123456789.") ? 0 : -1;
    }
    return -1;
}

/* ---- the API ---- */

enum imx_db_status imx_db_image_search(struct imx_db_conn *c, const struct imx_image_search *s,
                                       char **json, struct imx_db_fault *why)
{
    *json = NULL;
    struct search_params *sp = malloc(sizeof *sp);
    if (!sp)
        return imx_db_why(c, IMX_DBS_ERROR, why);
    sp->packages = NULL;
    enum imx_db_status rc = IMX_DBS_INVALID;
    int limit = s->limit == 0 ? 20 : s->limit;
    if (limit < 1 || limit > IMX_DBI_MAX_LIMIT)
        goto out;
    if ((rc = search_filter_params(c, sp, s)) != IMX_DBS_OK)
        goto out;
    rc = IMX_DBS_INVALID;
    if (empty_to_null(s->cursor)) {
        const char *key;
        if (imx_db_search_cursor_parse(s->cursor, s->sort, sp->id_text, &key) != 0)
            goto out;
        sp->v[20] = key;
        sp->v[21] = sp->id_text;
    }
    snprintf(sp->limit_text, sizeof sp->limit_text, "%d", limit);
    sp->v[22] = sp->limit_text;
    struct imx_db_stmt *stmt = s->sort == IMX_SORT_FAMILY         ? &stmt_page_family
                               : s->sort == IMX_SORT_BOOT_SECONDS ? &stmt_page_boot
                               : s->sort == IMX_SORT_SIZE_GB      ? &stmt_page_size
                                                                  : &stmt_page_published;
    rc = exec_json(c, stmt, sp->v, json);
out:
    free(sp->packages);
    free(sp);
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_image_facets(struct imx_db_conn *c, const struct imx_image_search *s,
                                       char **json, struct imx_db_fault *why)
{
    *json = NULL;
    struct search_params *sp = malloc(sizeof *sp);
    if (!sp)
        return imx_db_why(c, IMX_DBS_ERROR, why);
    sp->packages = NULL;
    enum imx_db_status rc = search_filter_params(c, sp, s);
    if (rc == IMX_DBS_OK)
        rc = exec_json(c, &stmt_facets, sp->v, json);
    free(sp->packages);
    free(sp);
    return imx_db_why(c, rc, why);
}

static json_t *string_array(const char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++) {
        if (!v[i] || json_array_append_new(a, json_string(v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static void put(json_t *o, const char *key, json_t *v)
{
    json_object_set_new(o, key, v ? v : json_null());
}

/* One manifest as the publish procedure reads it, appended to docs; err for a bad one. */
static enum imx_db_status manifest_doc(const struct imx_image_new *in, json_t *docs, char *err,
                                       size_t errlen)
{
    if (in->n_components > IMX_DBI_MAX_ROWS || in->n_artifacts > IMX_DBI_MAX_ROWS ||
        in->n_gpus > IMX_DBI_MAX_ROWS || in->n_instance_families > IMX_DBI_MAX_ROWS ||
        in->n_tags > IMX_DBI_MAX_ROWS) {
        set_err(err, errlen, "too many rows%s", NULL);
        return IMX_DBS_INVALID;
    }
    for (size_t i = 0; i < in->n_components; i++) {
        if (!in->components[i].name || !in->components[i].version) {
            set_err(err, errlen, "a component needs a name and a version%s", NULL);
            return IMX_DBS_INVALID;
        }
        for (size_t k = 0; k < i; k++) {
            if (strcmp(in->components[k].name, in->components[i].name) == 0 &&
                (!in->component_gpus || in->component_gpus[k].n == 0 ||
                 in->component_gpus[i].n == 0)) {
                set_err(err, errlen, "component %s is listed twice without the gpus each serves",
                        in->components[i].name);
                return IMX_DBS_INVALID;
            }
        }
    }
    json_t *compat = in->compatibility_json
                         ? json_loads(in->compatibility_json, JSON_REJECT_DUPLICATES, NULL)
                         : json_object();
    if (!compat) {
        set_err(err, errlen, "the compatibility report is not JSON%s", NULL);
        return IMX_DBS_INVALID;
    }
    json_t *doc = json_object();
    json_t *comps = json_array(), *arts = json_array();
    if (!doc || !comps || !arts || json_array_append_new(docs, doc) != 0) {
        json_decref(compat);
        json_decref(comps);
        json_decref(arts);
        return IMX_DBS_ERROR;
    }
    for (size_t i = 0; i < in->n_components; i++) {
        /* The key SQL's imx_version_key() gives (the same parse), so the procedure need not
         * parse every version again. A version that does not parse goes without one: the
         * schema refuses it (23502). */
        struct imx_ver v;
        char key[IMX_VER_KEY_TEXT_SIZE] = "";
        if (imx_ver_parse(in->components[i].version, &v) != 0 ||
            imx_ver_format_key(&v, key, sizeof key) != 0)
            key[0] = '\0';
        json_t *cj = json_pack("{s:s, s:s, s:s?}", "name", in->components[i].name, "version",
                               in->components[i].version, "key", key[0] ? key : NULL);
        if (cj && in->component_gpus && in->component_gpus[i].n > 0)
            json_object_set_new(cj, "gpus",
                                string_array(in->component_gpus[i].gpus, in->component_gpus[i].n));
        json_array_append_new(comps, cj);
    }
    for (size_t i = 0; i < in->n_artifacts; i++)
        json_array_append_new(arts, json_pack("{s:s?, s:s?}", "region", in->artifacts[i].region,
                                              "artifact_id", in->artifacts[i].artifact_id));
    put(doc, "family", in->family ? json_string(in->family) : NULL);
    put(doc, "version", in->version ? json_string(in->version) : NULL);
    put(doc, "team_id", json_integer(in->team_id));
    put(doc, "provider", in->provider ? json_string(in->provider) : NULL);
    put(doc, "architecture", in->architecture ? json_string(in->architecture) : NULL);
    put(doc, "os_name", in->os_name ? json_string(in->os_name) : NULL);
    put(doc, "os_version", in->os_version ? json_string(in->os_version) : NULL);
    put(doc, "kernel", in->kernel ? json_string(in->kernel) : NULL);
    put(doc, "layer", in->layer ? json_string(in->layer) : NULL);
    put(doc, "parent_id", in->parent_id > 0 ? json_integer(in->parent_id) : NULL);
    put(doc, "boot_seconds", in->boot_seconds >= 0 ? json_integer(in->boot_seconds) : NULL);
    put(doc, "size_gb", in->size_gb >= 0 ? json_real(in->size_gb) : NULL);
    put(doc, "description", in->description ? json_string(in->description) : NULL);
    put(doc, "compatibility", compat);
    put(doc, "components", comps);
    put(doc, "artifacts", arts);
    put(doc, "gpus", string_array(in->gpus, in->n_gpus));
    put(doc, "instance_families", string_array(in->instance_families, in->n_instance_families));
    put(doc, "tags", string_array(in->tags, in->n_tags));
    if (in->packages && json_array_size(in->packages) > 0) {
        put(doc, "packages", json_incref((json_t *)in->packages));
        put(doc, "packages_source",
            json_string(in->packages_source ? in->packages_source : "manifest"));
    }
    return IMX_DBS_OK;
}

enum imx_db_status imx_db_images_publish(struct imx_db_conn *c, const struct imx_image_new *in,
                                         size_t n, long long *ids, char **result, char *err,
                                         size_t errlen, struct imx_db_fault *why)
{
    if (result)
        *result = NULL;
    if (n == 0 || n > IMX_DBI_PUBLISH_MAX) {
        set_err(err, errlen, "too many images at once%s", NULL);
        return imx_db_why(c, IMX_DBS_INVALID, why);
    }
    json_t *docs = json_array();
    if (!docs)
        return imx_db_why(c, IMX_DBS_ERROR, why);
    for (size_t i = 0; i < n; i++) {
        ids[i] = 0;
        enum imx_db_status rc = manifest_doc(&in[i], docs, err, errlen);
        if (rc != IMX_DBS_OK) {
            json_decref(docs);
            return imx_db_why(c, rc, why);
        }
    }
    char *text = json_dumps(docs, JSON_COMPACT);
    json_decref(docs);
    if (!text)
        return imx_db_why(c, IMX_DBS_ERROR, why);
    const char *params[] = { text };
    PGresult *r = imx_db_exec(c, &stmt_publish, params);
    free(text);
    enum imx_db_status rc = IMX_DBS_OK;
    json_t *out = NULL;
    if (!imx_db_ok(r))
        rc = failure_rc(r, err, errlen);
    else if (PQntuples(r) != 1 || !(out = json_loads(PQgetvalue(r, 0, 0), 0, NULL)))
        rc = IMX_DBS_ERROR;
    if (rc == IMX_DBS_OK) {
        json_t *got = json_object_get(out, "ids");
        if (json_array_size(got) != n)
            rc = IMX_DBS_ERROR;
        for (size_t i = 0; rc == IMX_DBS_OK && i < n; i++)
            ids[i] = json_integer_value(json_array_get(got, i));
        if (rc == IMX_DBS_OK && result)
            *result = strdup(PQgetvalue(r, 0, 0));
    }
    json_decref(out);
    PQclear(r);
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_image_insert(struct imx_db_conn *c, const struct imx_image_new *in,
                                       long long *id, char *err, size_t errlen,
                                       struct imx_db_fault *why)
{
    return imx_db_why(c, imx_db_images_publish(c, in, 1, id, NULL, err, errlen, NULL), why);
}

enum imx_db_status imx_db_image_get(struct imx_db_conn *c, long long id, char **json, char **etag,
                                    struct imx_db_fault *why)
{
    *json = NULL;
    *etag = NULL;
    enum imx_db_status rc;
    PGresult *r = exec_for_id(c, &stmt_get, id, NULL, &rc);
    if (rc == IMX_DBS_OK) {
        *json = strdup(PQgetvalue(r, 0, 0));
        *etag = strdup(PQgetvalue(r, 0, 1));
        if (!*json || !*etag) {
            free(*json);
            free(*etag);
            *json = *etag = NULL;
            rc = IMX_DBS_ERROR;
        }
    }
    PQclear(r);
    return imx_db_why(c, rc, why);
}

/* ---- stored documents (migrations/0020_point_reads.sql) ---- */

/* Compare's rows, coalesced (db/read_batch.c): one statement for every compare waiting
 * (migrations/0063_compare_batched.sql imx_compare_batch). */
IMX_DB_STMT(stmt_compare_batch, 5,
            "SELECT * FROM imx_compare_batch($1::int[], $2::bigint[], $3::bigint[],"
            " $4::bigint[], $5::bigint[])");

/* Compares one statement answers at most. */
#define COMPARE_BATCH_MAX 16

/* What a waiter asks for. */
struct compare_ask {
    const long long *ids;
    size_t n;
    const char *const *scope; /* imx_cost_scope's texts: digits or NULL */
};

/* Appends ",TEXT" (or "TEXT" first) to an array literal at *len; NULL gives NULL. */
static void put_element(char *buf, size_t size, size_t *len, bool first, const char *text)
{
    *len +=
        (size_t)snprintf(buf + *len, size - *len, "%s%s", first ? "" : ",", text ? text : "NULL");
}

static void read_compares(struct imx_db_waiter **w, size_t n)
{
    /* ids at most 20 digits, request numbers at most 2 (COMPARE_BATCH_MAX) */
    enum { IDS_MAX = COMPARE_BATCH_MAX * IMX_DBI_COMPARE_MAX };
    char req[IDS_MAX * 3 + 4] = "{";
    char ids[IDS_MAX * 22 + 4] = "{";
    char scope[3][COMPARE_BATCH_MAX * 22 + 4] = { "{", "{", "{" };
    size_t rl = 1, il = 1, sl[3] = { 1, 1, 1 }, rows = 0;
    for (size_t i = 0; i < n; i++) {
        const struct compare_ask *a = w[i]->arg;
        w[i]->row = (int)rows;
        for (size_t k = 0; k < a->n; k++, rows++) {
            char num[24];
            snprintf(num, sizeof num, "%zu", i + 1);
            put_element(req, sizeof req, &rl, rows == 0, num);
            snprintf(num, sizeof num, "%lld", a->ids[k]);
            put_element(ids, sizeof ids, &il, rows == 0, num);
        }
        for (int s = 0; s < 3; s++)
            put_element(scope[s], sizeof scope[s], &sl[s], i == 0, a->scope[s]);
    }
    snprintf(req + rl, sizeof req - rl, "}");
    snprintf(ids + il, sizeof ids - il, "}");
    for (int s = 0; s < 3; s++)
        snprintf(scope[s] + sl[s], sizeof scope[s] - sl[s], "}");

    const char *params[] = { req, ids, scope[0], scope[1], scope[2] };
    imx_db_batch_answer(w, n, &stmt_compare_batch, params, (int)rows);
}

static struct imx_db_batcher compares = IMX_DB_BATCHER(read_compares, COMPARE_BATCH_MAX);

/* What a read gave the waiter self for ids, as imx_db_image_compare_rows returns it. */
static enum imx_db_status compare_of(struct imx_db_waiter *self, const long long *ids, size_t n,
                                     struct imx_db_compare_rows *out, long long *missing)
{
    memset(out, 0, sizeof *out);
    *missing = 0;
    if (self->rc != IMX_DBS_OK)
        return self->rc;
    out->owner = self->batch;
    self->batch = NULL;
    PGresult *r = out->owner->res;
    int first = self->row;
    out->epoch = strtoll(PQgetvalue(r, first, 0), NULL, 10);
    for (int i = 0; i < (int)n; i++) {
        int k = first + i;
        if (strcmp(PQgetvalue(r, k, 2), "t") != 0) {
            if (!*missing)
                *missing = ids[i];
            continue;
        }
        out->row[i].summary = PQgetvalue(r, k, 3);
        out->row[i].kernel = PQgetisnull(r, k, 4) ? NULL : PQgetvalue(r, k, 4);
        out->row[i].compatibility = PQgetvalue(r, k, 5);
        out->row[i].best_cost_per_1k = PQgetvalue(r, k, 6);
        out->row[i].boot_seconds_median = PQgetisnull(r, k, 7) ? "null" : PQgetvalue(r, k, 7);
        out->row[i].os_patch_status = PQgetisnull(r, k, 8) ? NULL : PQgetvalue(r, k, 8);
        out->row[i].os_advisories = PQgetvalue(r, k, 9);
    }
    return *missing ? IMX_DBS_NOT_FOUND : IMX_DBS_OK;
}

enum imx_db_status imx_db_image_compare_rows(const long long *ids, size_t n,
                                             const char *const scope[3],
                                             struct imx_db_compare_rows *out, long long *missing)
{
    memset(out, 0, sizeof *out);
    *missing = 0;
    if (n == 0 || n > IMX_DBI_COMPARE_MAX)
        return IMX_DBS_ERROR;
    struct compare_ask ask = { .ids = ids, .n = n, .scope = scope };
    struct imx_db_waiter self = { .arg = &ask };
    imx_db_batch_wait(&compares, &self);
    return compare_of(&self, ids, n, out, missing);
}

struct imx_db_compare_call {
    long long ids[IMX_DBI_COMPARE_MAX];
    char scope_text[3][24];
    const char *scope[3];
    struct compare_ask ask;
    struct imx_db_call call;
};

struct imx_db_compare_call *imx_db_image_compare_start(const long long *ids, size_t n,
                                                       const char *const scope[3],
                                                       void (*wake)(void *cls), void *cls)
{
    if (n == 0 || n > IMX_DBI_COMPARE_MAX)
        return NULL;
    struct imx_db_compare_call *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    memcpy(c->ids, ids, n * sizeof *ids);
    for (int s = 0; s < 3; s++)
        if (scope[s] && strlen(scope[s]) < sizeof c->scope_text[s])
            c->scope[s] = strcpy(c->scope_text[s], scope[s]);
    c->ask = (struct compare_ask){ .ids = c->ids, .n = n, .scope = c->scope };
    imx_db_call_start(&compares, &c->call, &c->ask, wake, cls);
    return c;
}

enum imx_db_status imx_db_image_compare_result(struct imx_db_compare_call *c,
                                               struct imx_db_compare_rows *out, long long *missing)
{
    return compare_of(&c->call.self, c->ids, c->ask.n, out, missing);
}

void imx_db_compare_call_free(void *call)
{
    struct imx_db_compare_call *c = call;
    if (c)
        imx_db_batch_unref(c->call.self.batch);
    free(c);
}

void imx_db_compare_rows_free(struct imx_db_compare_rows *rows)
{
    imx_db_batch_unref(rows->owner);
    memset(rows, 0, sizeof *rows);
}

void imx_db_compare_stats(unsigned long long *reads, unsigned long long *answered)
{
    imx_db_batch_stats(&compares, reads, answered);
}

enum imx_db_status imx_db_image_compare_os(struct imx_db_conn *c, const long long *ids, size_t n,
                                           char **json, struct imx_db_fault *why)
{
    *json = NULL;
    if (n < IMX_DBI_COMPARE_MIN || n > IMX_DBI_COMPARE_MAX || !ids)
        return imx_db_why(c, IMX_DBS_INVALID, why);
    char list[IMX_DBI_COMPARE_MAX * 22 + 4] = "{";
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%lld", i ? "," : "", ids[i]);
    snprintf(list + len, sizeof list - len, "}");
    const char *params[] = { list };
    return imx_db_why(c, exec_json(c, &stmt_compare_os, params, json), why);
}

enum imx_db_status imx_db_image_compare(struct imx_db_conn *c, const long long *ids, size_t n,
                                        char **json, long long *missing, struct imx_db_fault *why)
{
    *json = NULL;
    if (missing)
        *missing = 0;
    if (n < IMX_DBI_COMPARE_MIN || n > IMX_DBI_COMPARE_MAX || !ids)
        return imx_db_why(c, IMX_DBS_INVALID, why);
    char list[IMX_DBI_COMPARE_MAX * 22 + 4] = "{";
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < i; k++) {
            if (ids[k] == ids[i])
                return imx_db_why(c, IMX_DBS_INVALID, why);
        }
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%lld", i ? "," : "", ids[i]);
    }
    snprintf(list + len, sizeof list - len, "}");
    const char *params[] = { list };
    PGresult *r = imx_db_exec(c, &stmt_compare, params);
    enum imx_db_status rc = IMX_DBS_OK;
    if (!imx_db_ok(r)) {
        rc = failure_rc(r, NULL, 0);
    } else if (PQntuples(r) != 1) {
        rc = IMX_DBS_ERROR;
    } else if (!PQgetisnull(r, 0, 0)) {
        if (missing)
            *missing = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        rc = IMX_DBS_NOT_FOUND;
    } else {
        *json = strdup(PQgetvalue(r, 0, 1));
        rc = *json ? IMX_DBS_OK : IMX_DBS_ERROR;
    }
    PQclear(r);
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_image_resolve(struct imx_db_conn *c, const struct imx_image_resolve *r,
                                        char **json, struct imx_db_fault *why)
{
    *json = NULL;
    if (!empty_to_null(r->family) || !empty_to_null(r->region))
        return imx_db_why(c, IMX_DBS_INVALID, why);
    struct constraint_arrays *ca = malloc(sizeof *ca);
    if (!ca)
        return imx_db_why(c, IMX_DBS_ERROR, why);
    const char *cparams[6];
    enum imx_db_status rc = IMX_DBS_INVALID;
    if (build_constraints(ca, r->constraints, r->n_constraints, cparams) == 0) {
        const char *params[] = { r->family,  r->region,  empty_to_null(r->arch),
                                 cparams[0], cparams[1], cparams[2],
                                 cparams[3], cparams[4], cparams[5] };
        rc = exec_json(c, &stmt_resolve, params, json);
    }
    free(ca);
    return imx_db_why(c, rc, why);
}

/* ---- lifecycle, lineage, existence, stored compatibility ---- */

IMX_DB_STMT(stmt_exists, 1, "SELECT 1 FROM images WHERE id = $1::bigint");

IMX_DB_STMT(stmt_missing, 1,
            "SELECT x.o - 1 FROM unnest($1::bigint[]) WITH ORDINALITY AS x(id, o)"
            " WHERE x.id <> 0 AND NOT EXISTS (SELECT 1 FROM images i WHERE i.id = x.id)");

IMX_DB_STMT(stmt_lock, 1,
            "SELECT i.team_id, '\"' || md5(imx_image_json(i.id)::text) || '\"',"
            " imx_image_status(i.status, i.revoke_at)"
            " FROM images i WHERE i.id = $1::bigint FOR UPDATE");

/* The lifecycle use case (migrations/procedures/image_status.sql). */
IMX_DB_STMT(stmt_set_status, 6,
            "SELECT imx_set_image_status($1::bigint, $2::text, $3::text, $4::text, $5::bool,"
            " $6::text)::text");

/* Due revocations, a batch at a time (migrations/procedures/image_status.sql). */
IMX_DB_STMT(stmt_apply_due, 0, "SELECT imx_apply_due_revocations(100)");

/* The lineage (migrations/0061) and the auth epoch (0020): always one row. $2: the children
 * after this id (NULL: from the first). */
IMX_DB_STMT(
    stmt_lineage, 3,
    "SELECT imx_image_lineage($1::bigint, $2::bigint, $3::int), (SELECT n FROM auth_epoch)");

enum imx_db_status imx_db_image_lineage(struct imx_db_conn *c, long long id, const char *after,
                                        unsigned limit, struct imx_db_lineage *out,
                                        struct imx_db_fault *why)
{
    memset(out, 0, sizeof *out);
    char idt[24], lim[16];
    snprintf(idt, sizeof idt, "%lld", id);
    snprintf(lim, sizeof lim, "%u", limit);
    const char *params[] = { idt, after, lim };
    PGresult *r = imx_db_exec(c, &stmt_lineage, params);
    if (!imx_db_ok(r) || PQntuples(r) != 1) {
        enum imx_db_status rc = imx_db_ok(r) ? IMX_DBS_ERROR : failure_rc(r, NULL, 0);
        PQclear(r);
        return imx_db_why(c, rc, why);
    }
    out->epoch = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
    if (PQgetisnull(r, 0, 0)) {
        PQclear(r);
        return imx_db_why(c, IMX_DBS_NOT_FOUND, why);
    }
    /* The text ends with its next page's key: , "next_after" : ID or null, then "}". */
    static const char member[] = ", \"next_after\" : ";
    const size_t mlen = sizeof member - 1;
    const char *doc = PQgetvalue(r, 0, 0), *at = NULL;
    size_t len = (size_t)PQgetlength(r, 0, 0);
    for (size_t k = len > mlen + 20 ? len - mlen - 20 : 0; k + mlen < len; k++)
        if (memcmp(doc + k, member, mlen) == 0)
            at = doc + k;
    if (!at || doc[len - 1] != '}') {
        PQclear(r);
        return imx_db_why(c, IMX_DBS_ERROR, why);
    }
    /* A copy the caller owns: the page is a few kilobytes, copied once more into the reply
     * anyway, and the result goes back to libpq here. */
    out->len = (size_t)(at - doc);
    out->next_after = strtoll(at + mlen, NULL, 10); /* "null" reads as 0 */
    out->text = malloc(out->len + 1);
    if (out->text) {
        memcpy(out->text, doc, out->len);
        out->text[out->len] = '\0';
    }
    out->doc = out->text;
    PQclear(r);
    return imx_db_why(c, out->text ? IMX_DBS_OK : IMX_DBS_ERROR, why);
}

void imx_db_lineage_free(struct imx_db_lineage *l)
{
    free(l->text);
    memset(l, 0, sizeof *l);
}

IMX_DB_STMT(stmt_compat_pending, 1,
            "SELECT coalesce(json_agg(json_build_object('id', i.id,"
            "  'components', (SELECT coalesce(json_agg(json_build_object('name', c.name,"
            "     'version', c.version, 'gpus', c.gpus) ORDER BY c.name, c.entry), '[]')"
            "     FROM image_components c WHERE c.image_id = i.id),"
            "  'gpus', (SELECT coalesce(json_agg(g.gpu ORDER BY g.gpu), '[]')"
            "     FROM image_gpus g WHERE g.image_id = i.id)) ORDER BY i.id), '[]')::text"
            " FROM (SELECT id FROM images WHERE compatibility = '{}'::jsonb ORDER BY id"
            "       LIMIT $1::int) i");

IMX_DB_STMT(stmt_set_compat, 2,
            "UPDATE images SET compatibility = $2::jsonb WHERE id = $1::bigint RETURNING id");

enum imx_db_status imx_db_images_missing(struct imx_db_conn *c, const long long *ids, size_t n,
                                         bool *missing, struct imx_db_fault *why)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        missing[i] = false;
        json_array_append_new(arr, json_integer(ids[i]));
    }
    char *text = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
    json_decref(arr);
    if (!text)
        return imx_db_why(c, IMX_DBS_ERROR, why);
    /* A JSON array of integers is also a PostgreSQL array literal once its brackets are braces. */
    text[0] = '{';
    text[strlen(text) - 1] = '}';
    const char *params[] = { text };
    PGresult *r = imx_db_exec(c, &stmt_missing, params);
    free(text);
    enum imx_db_status rc = imx_db_ok(r) ? IMX_DBS_OK : failure_rc(r, NULL, 0);
    for (int k = 0; rc == IMX_DBS_OK && k < PQntuples(r); k++) {
        unsigned long long i = strtoull(PQgetvalue(r, k, 0), NULL, 10);
        if (i < n)
            missing[i] = true;
    }
    PQclear(r);
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_image_exists(struct imx_db_conn *c, long long id,
                                       struct imx_db_fault *why)
{
    enum imx_db_status rc;
    PQclear(exec_for_id(c, &stmt_exists, id, NULL, &rc));
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_image_lock(struct imx_db_conn *c, long long id, long long *team_id,
                                     char etag[IMX_DBI_ETAG_SIZE], char status[16],
                                     struct imx_db_fault *why)
{
    enum imx_db_status rc;
    PGresult *r = exec_for_id(c, &stmt_lock, id, NULL, &rc);
    if (rc == IMX_DBS_OK) {
        *team_id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        snprintf(etag, IMX_DBI_ETAG_SIZE, "%s", PQgetvalue(r, 0, 1));
        snprintf(status, 16, "%s", PQgetvalue(r, 0, 2));
    }
    PQclear(r);
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_image_set_status(struct imx_db_conn *c,
                                           const struct imx_image_status_change *s, char **result,
                                           struct imx_db_fault *why)
{
    char idt[24];
    snprintf(idt, sizeof idt, "%lld", s->id);
    const char *params[] = { idt,     s->status, s->reason, s->revoke_at, s->cascade ? "t" : "f",
                             s->event };
    return imx_db_why(c, exec_json(c, &stmt_set_status, params, result), why);
}

enum imx_db_status imx_db_image_apply_due_revocations(struct imx_db_conn *c, int *applied)
{
    *applied = 0;
    PGresult *r = imx_db_exec(c, &stmt_apply_due, NULL);
    enum imx_db_status rc = imx_db_ok(r) ? IMX_DBS_OK : failure_rc(r, NULL, 0);
    if (rc == IMX_DBS_OK && PQntuples(r) == 1)
        *applied = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    return rc;
}

enum imx_db_status imx_db_image_compat_pending(struct imx_db_conn *c, int limit, char **json)
{
    char lt[16];
    snprintf(lt, sizeof lt, "%d", limit);
    const char *params[] = { lt };
    return exec_json(c, &stmt_compat_pending, params, json);
}

enum imx_db_status imx_db_image_set_compat(struct imx_db_conn *c, long long id,
                                           const char *report_json)
{
    enum imx_db_status rc;
    PQclear(exec_for_id(c, &stmt_set_compat, id, report_json, &rc));
    return rc;
}

IMX_DB_STMT(stmt_is_future, 1, "SELECT $1::timestamptz > now()");

enum imx_db_status imx_db_time_is_future(struct imx_db_conn *c, const char *when, bool *future)
{
    const char *params[] = { when };
    PGresult *r = imx_db_exec(c, &stmt_is_future, params);
    enum imx_db_status st = imx_db_status_of(r);
    if (st == IMX_DBS_OK && PQntuples(r) != 1)
        st = IMX_DBS_ERROR;
    *future = st == IMX_DBS_OK && strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    return st;
}
