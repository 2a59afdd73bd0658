/* GET /v1/compare?ids=a,b,...: two to ten images side by side. The reply is assembled as text
 * from the stored summaries, reports and costs that one statement reads for every compare
 * waiting at the moment (0063, db/read_batch.c); with
 * IMAXE_READ_CACHE=0 PostgreSQL builds it from scratch (compare_from_scratch) and jansson prints
 * it, the reference the text follows byte for byte (tests/integration/test_point_reads.c). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/costs_common.h"
#include "auth/auth.h"
#include "db/images.h"
#include "util/config.h"
#include "util/json_text.h"

#define TEXT(literal) ((struct imx_jspan){ literal, sizeof literal - 1 })

/* One compared image's own values, each JSON text as the reply prints it (json_text.h), in the
 * order shown_build appends them after the summary. */
enum { V_OS, V_KERNEL, V_COMPAT, V_OS_ADVISORIES, V_COUNT };
/* The summary's members compare shows, as key texts with their quotes. */
enum { M_BOOT, M_SIZE, M_REGIONS, M_STATUS, M_PATCH, M_COMPONENTS, M_COUNT };
static const struct imx_jspan member_keys[M_COUNT] = {
    TEXT("\"boot_seconds\""), TEXT("\"size_gb\""),      TEXT("\"regions\""),
    TEXT("\"status\""),       TEXT("\"patch_status\""), TEXT("\"components\""),
};

/* One image as compare shows it, built from its row's texts by shown_build: its summary and
 * own values as the reply prints them, and where the summary's members are. Immutable once
 * built, and shared: the cache below keeps it with the texts it came from (source) and hands
 * it out again while a read brings back the same texts. It is a function of those texts, so a
 * kept one is byte for byte what building it again would give. */
struct shown {
    atomic_int refs;
    long long id;
    size_t bytes; /* all it holds, for the cache's budget */
    char *source; /* per text of source_fields: '\1' TEXT '\0', or '\0' for SQL NULL */
    size_t source_len;
    struct imx_jbuf text; /* the summary, then the values of own[] */
    struct imx_jspan summary, own[V_COUNT];
    struct imx_jspan member[M_COUNT]; /* .p NULL when absent */
    struct imx_jspan *comp;           /* components: key, value, key, value, ... */
    size_t ncomp;
};

/* The texts of a row a shown image is built from (the costs and os_patch_status are not). */
enum { SOURCE_FIELDS = 4 };
static void source_fields(const struct imx_db_compare_row *row, const char *f[SOURCE_FIELDS])
{
    f[0] = row->summary;
    f[1] = row->kernel;
    f[2] = row->compatibility;
    f[3] = row->os_advisories;
}

static const struct imx_jspan null_text = { "null", 4 }, empty_list = { "[]", 2 };

static bool same(struct imx_jspan a, struct imx_jspan b)
{
    return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

/* Does any value differ from the first? As jansson's json_equal over the printed values: the
 * objects here come from jsonb or from builders with a fixed key order, so equal values print
 * alike; two reals alike to 15 digits count as equal (they print alike too). */
static bool differ(const struct imx_jspan *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (!same(v[0], v[i]))
            return true;
    return false;
}

/* Appends {"name":NAME,"values":[...],"differs":B} (name: JSON string text). */
static void put_field(struct imx_jbuf *b, struct imx_jspan name, const struct imx_jspan *v,
                      size_t n, bool differs)
{
    imx_jbuf_puts(b, "{\"name\":");
    imx_jbuf_put(b, name.p, name.n);
    imx_jbuf_puts(b, ",\"values\":[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            imx_jbuf_put(b, ",", 1);
        imx_jbuf_put(b, v[i].p, v[i].n);
    }
    imx_jbuf_puts(b, differs ? "],\"differs\":true}" : "],\"differs\":false}");
}

/* The summary's members of member_names (the last of each name), and the components' members:
 * one scan each, so that the lookups after cost no scanning. */
static bool index_summary(struct shown *c)
{
    struct imx_jspan it = c->summary, k, v;
    while (imx_json_next_member(&it, &k, &v))
        for (int m = 0; m < M_COUNT; m++)
            if (same(k, member_keys[m]))
                c->member[m] = v;
    struct imx_jspan comps = c->member[M_COMPONENTS];
    if (!comps.p || comps.p[0] != '{')
        return true;
    size_t n = 0;
    for (it = comps; imx_json_next_member(&it, &k, &v);)
        n++;
    if (n && !(c->comp = malloc(2 * n * sizeof *c->comp)))
        return false;
    for (it = comps; imx_json_next_member(&it, &k, &v);) {
        c->comp[2 * c->ncomp] = k;
        c->comp[2 * c->ncomp++ + 1] = v;
    }
    c->bytes += 2 * n * sizeof *c->comp;
    return true;
}

/* A member of the summary, or fallback. */
static struct imx_jspan member_or(const struct shown *c, int m, struct imx_jspan fallback)
{
    return c->member[m].p ? c->member[m] : fallback;
}

/* Appends JSON text json to b as the reply prints it; NULL or unloadable gives null unless
 * required (then false). */
static bool put_value(struct imx_jbuf *b, const char *json, bool required)
{
    if (json && imx_json_put_norm(b, json, strlen(json)))
        return true;
    return !required && imx_jbuf_puts(b, "null");
}

/* Is b's text from offset at a JSON object or array? */
static bool container_at(const struct imx_jbuf *b, size_t at)
{
    return b->len > at && (b->p[at] == '{' || b->p[at] == '[');
}

/* The spans of the n values appended one after another to b, the k-th from offset at[k] to
 * at[k + 1] (offsets, not pointers, while the text could still move). */
static void spans_of(const struct imx_jbuf *b, const size_t *at, size_t n, struct imx_jspan *out)
{
    for (size_t k = 0; k < n; k++)
        out[k] = (struct imx_jspan){ b->p + at[k], at[k + 1] - at[k] };
}

/* "NAME:VERSION" from the summary's os object, or null (either missing or not a string). */
static bool put_os(struct shown *c)
{
    struct imx_jspan os, name, version;
    bool both = imx_json_member(c->summary, "os", &os) && imx_json_member(os, "name", &name) &&
                imx_json_member(os, "version", &version) && name.p[0] == '"' && version.p[0] == '"';
    /* copied through a buffer of its own: appending may move the summary */
    char *pair = both ? malloc(name.n + version.n) : NULL;
    bool ok;
    if (pair) {
        /* "NAME + : + VERSION": the two strings' texts joined (escaping is per character) */
        memcpy(pair, name.p, name.n - 1);
        pair[name.n - 1] = ':';
        memcpy(pair + name.n, version.p + 1, version.n - 1);
        ok = imx_jbuf_put(&c->text, pair, name.n + version.n - 1);
        free(pair);
    } else {
        ok = !both && imx_jbuf_puts(&c->text, "null");
    }
    return ok;
}

static void shown_unref(struct shown *c)
{
    if (c && atomic_fetch_sub(&c->refs, 1) == 1) {
        imx_jbuf_free(&c->text);
        free(c->comp);
        free(c->source);
        free(c);
    }
}

/* Does row bring the texts c was built from? */
static bool same_source(const struct shown *c, const struct imx_db_compare_row *row)
{
    const char *f[SOURCE_FIELDS], *at = c->source, *end = c->source + c->source_len;
    source_fields(row, f);
    for (int k = 0; k < SOURCE_FIELDS; k++) {
        if (at == end || (*at++ == '\1') != (f[k] != NULL))
            return false;
        if (!f[k])
            continue;
        size_t n = strlen(f[k]);
        if ((size_t)(end - at) < n + 1 || memcmp(at, f[k], n + 1) != 0)
            return false;
        at += n + 1;
    }
    return at == end;
}

/* Copies row's texts as source_fields lists them into c->source. */
static bool keep_source(struct shown *c, const struct imx_db_compare_row *row)
{
    const char *f[SOURCE_FIELDS];
    source_fields(row, f);
    size_t n = 0, len[SOURCE_FIELDS];
    for (int k = 0; k < SOURCE_FIELDS; k++)
        n += 1 + (f[k] ? (len[k] = strlen(f[k])) + 1 : 0);
    char *at = c->source = malloc(n);
    if (!at)
        return false;
    for (int k = 0; k < SOURCE_FIELDS; k++) {
        *at++ = f[k] ? '\1' : '\0';
        if (f[k]) {
            memcpy(at, f[k], len[k] + 1);
            at += len[k] + 1;
        }
    }
    c->source_len = n;
    c->bytes += n;
    return true;
}

/* A new shown image built from row (one reference), or NULL on bad texts or no memory. */
static struct shown *shown_build(long long id, const struct imx_db_compare_row *row)
{
    struct shown *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    atomic_init(&c->refs, 1);
    c->id = id;
    /* the summary, then the own values in enum order; at[] marks where each begins */
    size_t at[V_COUNT + 1];
    bool ok = put_value(&c->text, row->summary, true) && container_at(&c->text, 0);
    size_t summary_len = c->text.len;
    /* put_os reads the summary, and copies what it needs before appending */
    c->summary = (struct imx_jspan){ c->text.p, summary_len };
    at[V_OS] = c->text.len;
    ok = ok && put_os(c);
    at[V_KERNEL] = c->text.len;
    ok = ok && (row->kernel ? imx_json_put_string(&c->text, row->kernel)
                            : imx_jbuf_puts(&c->text, "null"));
    at[V_COMPAT] = c->text.len;
    ok =
        ok && put_value(&c->text, row->compatibility, true) && container_at(&c->text, at[V_COMPAT]);
    at[V_OS_ADVISORIES] = c->text.len;
    ok = ok && put_value(&c->text, row->os_advisories, false);
    at[V_COUNT] = c->text.len;
    if (ok) {
        /* the text no longer moves */
        c->summary = (struct imx_jspan){ c->text.p, summary_len };
        spans_of(&c->text, at, V_COUNT, c->own);
        c->bytes = sizeof *c + c->text.cap;
        ok = index_summary(c) && keep_source(c, row);
    }
    if (!ok) {
        shown_unref(c);
        return NULL;
    }
    return c;
}

/* The cache of shown images: CACHE_SETS sets of CACHE_WAYS, an image's set chosen by its id,
 * the oldest placed one replaced by a newcomer, all of them together holding at most
 * CACHE_BYTES (measured: 2.4 KB an image of the bench catalog, whose 7,726 compared images
 * take 18.8 MB; with half as many sets, 22 % of them were rebuilt as sets overflowed).
 * An image found with other texts than its read brings is replaced. */
#define CACHE_SET_BITS 11
#define CACHE_SETS     (1u << CACHE_SET_BITS)
#define CACHE_WAYS     8
#define CACHE_BYTES    (24u << 20)
#define SHOWN_MAX      (64u << 10) /* a larger one is built for each request, not kept */

static struct cache_set {
    pthread_mutex_t lock;
    struct shown *way[CACHE_WAYS];
    unsigned next; /* the way to place into next when none is free */
} cache[CACHE_SETS];
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static atomic_size_t cache_bytes;
static atomic_ullong shown_kept, shown_built;

static void cache_init(void)
{
    for (size_t i = 0; i < CACHE_SETS; i++)
        pthread_mutex_init(&cache[i].lock, NULL);
}

static struct cache_set *set_of(long long id)
{
    return &cache[((unsigned long long)id * 0x9E3779B97F4A7C15ULL) >> (64 - CACHE_SET_BITS)];
}

/* The shown image of row (image id): the kept one when its texts are row's, else a new one,
 * kept for the next reads. A new reference (shown_unref), or NULL on bad texts or no memory. */
static struct shown *shown_get(long long id, const struct imx_db_compare_row *row)
{
    pthread_once(&cache_once, cache_init);
    struct cache_set *set = set_of(id);
    pthread_mutex_lock(&set->lock);
    for (int w = 0; w < CACHE_WAYS; w++) {
        struct shown *c = set->way[w];
        if (c && c->id == id && same_source(c, row)) {
            atomic_fetch_add(&c->refs, 1);
            pthread_mutex_unlock(&set->lock);
            atomic_fetch_add_explicit(&shown_kept, 1, memory_order_relaxed);
            return c;
        }
    }
    pthread_mutex_unlock(&set->lock);
    atomic_fetch_add_explicit(&shown_built, 1, memory_order_relaxed);
    struct shown *c = shown_build(id, row);
    if (!c || c->bytes > SHOWN_MAX)
        return c;
    pthread_mutex_lock(&set->lock);
    int at = -1;
    for (int w = 0; w < CACHE_WAYS && at < 0; w++)
        if (set->way[w] && set->way[w]->id == id)
            at = w;
    for (int w = 0; w < CACHE_WAYS && at < 0; w++)
        if (!set->way[w])
            at = w;
    if (at < 0)
        at = (int)(set->next++ % CACHE_WAYS);
    struct shown *old = set->way[at];
    size_t freed = old ? old->bytes : 0;
    if (atomic_load(&cache_bytes) - freed + c->bytes <= CACHE_BYTES) {
        atomic_fetch_add(&c->refs, 1);
        set->way[at] = c;
        atomic_fetch_add(&cache_bytes, c->bytes);
        atomic_fetch_sub(&cache_bytes, freed);
    } else {
        old = NULL;
    }
    pthread_mutex_unlock(&set->lock);
    shown_unref(old);
    return c;
}

void imx_api_compare_stats(unsigned long long *kept, unsigned long long *built, size_t *bytes)
{
    *kept = atomic_load(&shown_kept);
    *built = atomic_load(&shown_built);
    *bytes = atomic_load(&cache_bytes);
}

/* Keys (quoted JSON strings) in the order strcmp gives their text. */
static int cmp_keys(const void *a, const void *b)
{
    const struct imx_jspan *x = a, *y = b;
    size_t xn = x->n - 2, yn = y->n - 2;
    int d = memcmp(x->p + 1, y->p + 1, xn < yn ? xn : yn);
    return d ? d : (xn > yn) - (xn < yn);
}

#define NAMES_MAX (IMX_DBI_COMPARE_MAX * 64)

/* {"images":[...],"components":[...],"fields":[...],"costs":[...]}: the summaries; one entry per
 * component name (sorted) and per compared field with each image's value (null when absent) and
 * whether they differ; the costs the caller's scope sees. Into *out; false on bad rows. */
static bool compare_text(const struct imx_db_compare_rows *rows, const long long *ids, size_t n,
                         struct imx_jbuf *out)
{
    struct shown *c[IMX_DBI_COMPARE_MAX] = { 0 };
    /* the costs, the caller's own: best_cost_per_1k and boot_seconds_median of each image,
     * appended in turn (cost[2i], cost[2i + 1]) */
    struct imx_jbuf own = { 0 };
    size_t at[2 * IMX_DBI_COMPARE_MAX + 1] = { 0 };
    struct imx_jspan cost[2 * IMX_DBI_COMPARE_MAX];
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        ok = (c[i] = shown_get(ids[i], &rows->row[i])) &&
             put_value(&own, rows->row[i].best_cost_per_1k, true);
        at[2 * i + 1] = own.len;
        ok = ok && put_value(&own, rows->row[i].boot_seconds_median, true);
        at[2 * i + 2] = own.len;
    }
    if (ok)
        spans_of(&own, at, 2 * n, cost);
    struct imx_jspan keys[NAMES_MAX]; /* 10 KB of the thread's 512 */
    size_t nkeys = 0;
    for (size_t i = 0; ok && i < n; i++)
        for (size_t m = 0; m < c[i]->ncomp; m++) {
            bool seen = false;
            for (size_t j = 0; j < nkeys && !seen; j++)
                seen = same(keys[j], c[i]->comp[2 * m]);
            if (!seen && nkeys < NAMES_MAX)
                keys[nkeys++] = c[i]->comp[2 * m];
        }
    qsort(keys, nkeys, sizeof keys[0], cmp_keys);
    struct imx_jspan v[IMX_DBI_COMPARE_MAX];
    imx_jbuf_puts(out, "{\"images\":[");
    for (size_t i = 0; ok && i < n; i++) {
        if (i)
            imx_jbuf_put(out, ",", 1);
        imx_jbuf_put(out, c[i]->summary.p, c[i]->summary.n);
    }
    imx_jbuf_puts(out, "],\"components\":[");
    for (size_t j = 0; ok && j < nkeys; j++) {
        for (size_t i = 0; i < n; i++) {
            v[i] = null_text;
            for (size_t m = 0; m < c[i]->ncomp; m++)
                if (same(c[i]->comp[2 * m], keys[j]))
                    v[i] = c[i]->comp[2 * m + 1];
        }
        if (j)
            imx_jbuf_put(out, ",", 1);
        put_field(out, keys[j], v, n, differ(v, n));
    }
    imx_jbuf_puts(out, "],\"fields\":[");
    static const struct {
        const char *name;
        int member, own; /* a summary member (or -1) and its value when absent, or an own value */
        const struct imx_jspan *absent;
    } fields[] = {
        { "\"boot_seconds\"", M_BOOT, 0, &null_text },
        { "\"size_gb\"", M_SIZE, 0, &null_text },
        { "\"os\"", -1, V_OS, NULL },
        { "\"kernel\"", -1, V_KERNEL, NULL },
        { "\"regions\"", M_REGIONS, 0, &empty_list },
        { "\"status\"", M_STATUS, 0, &null_text },
        { "\"compatibility\"", -1, V_COMPAT, NULL },
        { "\"patch_status\"", M_PATCH, 0, &null_text },
    };
    for (size_t f = 0; ok && f < sizeof fields / sizeof fields[0]; f++) {
        for (size_t i = 0; i < n; i++)
            v[i] = fields[f].member >= 0 ? member_or(c[i], fields[f].member, *fields[f].absent)
                                         : c[i]->own[fields[f].own];
        put_field(out, (struct imx_jspan){ fields[f].name, strlen(fields[f].name) }, v, n,
                  differ(v, n));
        imx_jbuf_put(out, ",", 1);
    }
    /* os_patch_status differs by text, a missing one counting as "" (imx_compare_os_fields) */
    bool os_differs = false;
    struct imx_jbuf st = { 0 };
    size_t st_off[IMX_DBI_COMPARE_MAX];
    for (size_t i = 0; ok && i < n; i++) {
        const char *s = rows->row[i].os_patch_status, *first = rows->row[0].os_patch_status;
        os_differs = os_differs || strcmp(s ? s : "", first ? first : "") != 0;
        st_off[i] = st.len;
        ok = s ? imx_json_put_string(&st, s) : imx_jbuf_puts(&st, "null");
    }
    for (size_t i = 0; ok && i < n; i++)
        v[i] = (struct imx_jspan){ st.p + st_off[i],
                                   (i + 1 < n ? st_off[i + 1] : st.len) - st_off[i] };
    if (ok)
        put_field(out, TEXT("\"os_patch_status\""), v, n, os_differs);
    imx_jbuf_free(&st);
    for (size_t i = 0; ok && i < n; i++)
        v[i] = c[i]->own[V_OS_ADVISORIES];
    imx_jbuf_put(out, ",", 1);
    if (ok)
        put_field(out, TEXT("\"os_advisories\""), v, n, differ(v, n));
    imx_jbuf_puts(out, "],\"costs\":[");
    for (size_t i = 0; ok && i < n; i++) {
        char head[64];
        snprintf(head, sizeof head, "%s{\"image\":%lld,\"best_cost_per_1k\":", i ? "," : "",
                 ids[i]);
        imx_jbuf_puts(out, head);
        imx_jbuf_put(out, cost[2 * i].p, cost[2 * i].n);
        imx_jbuf_puts(out, ",\"boot_seconds_median\":");
        imx_jbuf_put(out, cost[2 * i + 1].p, cost[2 * i + 1].n);
        imx_jbuf_put(out, "}", 1);
    }
    imx_jbuf_puts(out, "]}");
    for (size_t i = 0; i < n; i++)
        shown_unref(c[i]);
    imx_jbuf_free(&own);
    return ok && !out->failed;
}

/* The OS half beside patch_status: os_patch_status, os_advisories (imx_db_image_compare_os),
 * appended to doc's fields. Returns 0, or -1 after replying. */
static int add_os_fields(struct imx_req *r, struct imx_db_conn *c, const long long *ids, size_t n,
                         json_t *doc)
{
    char *text = NULL;
    enum imx_db_status rc = imx_db_image_compare_os(c, ids, n, &text, NULL);
    json_t *os = rc == IMX_DBS_OK ? json_loads(text, 0, NULL) : NULL;
    free(text);
    if (rc != IMX_DBS_OK || !json_is_array(os)) {
        json_decref(os);
        if (rc != IMX_DBS_OK)
            imx_api_reply_db_status(r, rc);
        else
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    json_array_extend(json_object_get(doc, "fields"), os);
    json_decref(os);
    return 0;
}

/* Compare built from scratch by PostgreSQL (IMAXE_READ_CACHE=0: the reference the stored path
 * follows), costs from a second statement. */
static void compare_from_scratch(struct imx_req *r, const long long *ids, size_t n)
{
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    char *json;
    long long missing = 0;
    enum imx_db_status rc = imx_db_image_compare(c, ids, n, &json, &missing, NULL);
    if (rc == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No image has id %lld", missing);
        return;
    }
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return;
    }
    /* Costs are team data: only the measurements the caller's scope sees count. */
    struct imx_api_scope sc;
    char *costs = NULL;
    json_t *doc = json_loads(json, 0, NULL), *cdoc = NULL;
    free(json);
    if (imx_api_cost_scope(r, NULL, &sc) != 0 ||
        imx_db_costs_for_images(c, ids, n, &sc.s, &costs) != IMX_DBS_OK || !doc ||
        !(cdoc = json_loads(costs, 0, NULL))) {
        imx_reply_problem(r, IMX_E_INTERNAL, "Request %s failed; the server log has details",
                          r->request_id);
        goto out;
    }
    json_t *per_image = json_array(), *patch = json_array();
    bool differs = false;
    for (size_t i = 0; i < n; i++) {
        char key[24];
        snprintf(key, sizeof key, "%lld", ids[i]);
        json_t *cost = json_object_get(cdoc, key);
        json_array_append_new(
            per_image, json_pack("{s:I, s:O, s:O}", "image", (json_int_t)ids[i], "best_cost_per_1k",
                                 json_object_get(cost, "best_cost_per_1k"), "boot_seconds_median",
                                 json_object_get(cost, "boot_seconds_median")));
        json_t *ps =
            json_object_get(json_array_get(json_object_get(doc, "images"), i), "patch_status");
        differs = differs || (i > 0 && !json_equal(ps, json_array_get(patch, 0)));
        json_array_append(patch, ps ? ps : json_null());
    }
    json_array_append_new(
        json_object_get(doc, "fields"),
        json_pack("{s:s, s:o, s:b}", "name", "patch_status", "values", patch, "differs", differs));
    if (add_os_fields(r, c, ids, n, doc) != 0) {
        json_decref(per_image);
        goto out;
    }
    json_object_set_new(doc, "costs", per_image);
    imx_reply_json_steal(r, 200, doc);
    doc = NULL;
out:
    json_decref(doc);
    json_decref(cdoc);
    free(costs);
}

/* The ids of ?ids= (IMX_DBI_COMPARE_MIN to _MAX distinct ones) in ids[], *n set. Returns false
 * after replying 400. */
static bool compare_ids(struct imx_req *r, long long ids[IMX_DBI_COMPARE_MAX], size_t *n_out)
{
    const char *ids_arg = imx_req_query(r, "ids");
    size_t n = 0;
    bool ok = ids_arg && strlen(ids_arg) < 256;
    for (const char *p = ids_arg; ok && *p;) {
        char one[24];
        size_t len = strcspn(p, ",");
        unsigned long long v;
        if (len == 0 || len >= sizeof one || n == IMX_DBI_COMPARE_MAX) {
            ok = false;
            break;
        }
        memcpy(one, p, len);
        one[len] = '\0';
        ok = imx_parse_uint(one, 1, INT64_MAX, &v) == 0;
        for (size_t k = 0; ok && k < n; k++)
            ok = ids[k] != (long long)v;
        ids[n++] = (long long)v;
        p += len;
        if (*p == ',')
            p++;
    }
    if (!ok || n < IMX_DBI_COMPARE_MIN) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          "ids must list %d to %d distinct image ids, comma-separated",
                          IMX_DBI_COMPARE_MIN, IMX_DBI_COMPARE_MAX);
        return false;
    }
    *n_out = n;
    return true;
}

/* Answers with the rows read (rc OK or NOT_FOUND; rows freed). */
static void reply_compare(struct imx_req *r, enum imx_db_status rc,
                          struct imx_db_compare_rows *rows, const long long *ids, size_t n,
                          long long missing)
{
    if (rc == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No image has id %lld", missing);
    } else {
        struct imx_jbuf doc = { 0 };
        if (compare_text(rows, ids, n, &doc))
            imx_reply_raw_steal(r, 200, "application/json", doc.p, doc.len, NULL, NULL);
        else {
            imx_jbuf_free(&doc);
            imx_reply_problem(r, IMX_E_INTERNAL, "Request %s failed; the server log has details",
                              r->request_id);
        }
    }
    imx_db_compare_rows_free(rows);
}

void imx_api_compare(struct imx_req *r)
{
    long long ids[IMX_DBI_COMPARE_MAX];
    size_t n = 0;
    if (!compare_ids(r, ids, &n))
        return;
    if (!imx_auth_settings.read_cache) {
        compare_from_scratch(r, ids, n);
        return;
    }
    /* Costs are team data: only the measurements the caller's scope sees count. */
    struct imx_api_scope sc;
    if (imx_api_cost_scope(r, NULL, &sc) != 0)
        return;
    const char *scope[3] = { sc.s.user_id, sc.s.token_team, sc.s.team };
    struct imx_db_compare_rows rows;
    long long missing = 0;
    enum imx_db_status rc;
    for (int attempt = 0;; attempt++) {
        /* Waiting for the batch holds no connection (one held by each waiter could leave the
         * reader none); a principal checked in full took one. */
        imx_api_db_put(r);
        rc = imx_db_image_compare_rows(ids, n, scope, &rows, &missing);
        if (rc != IMX_DBS_OK && rc != IMX_DBS_NOT_FOUND) {
            imx_api_reply_db_status(r, rc);
            return;
        }
        int confirmed = imx_auth_confirm(r, rows.epoch);
        if (confirmed == 1)
            break;
        imx_db_compare_rows_free(&rows);
        if (confirmed < 0 || attempt > 0)
            return;
        /* checked again in full: the scope's user is the same, its teams are read live */
    }
    reply_compare(r, rc, &rows, ids, n, missing);
}

/* The fast handler (struct imx_route, fast): the same rows, their read queued without waiting; a
 * principal to check again goes to imx_api_compare on a worker. */
struct compare_fast {
    struct imx_db_compare_call *call;
    long long ids[IMX_DBI_COMPARE_MAX];
    size_t n;
};

static void compare_fast_free(void *p)
{
    struct compare_fast *f = p;
    imx_db_compare_call_free(f->call);
    free(f);
}

static enum imx_fast compare_fast_read(struct imx_req *r)
{
    struct compare_fast *f = r->fast_state;
    struct imx_db_compare_rows rows;
    long long missing = 0;
    enum imx_db_status rc = imx_db_image_compare_result(f->call, &rows, &missing);
    if (rc != IMX_DBS_OK && rc != IMX_DBS_NOT_FOUND) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    if (r->principal.epoch != rows.epoch) {
        imx_db_compare_rows_free(&rows);
        return IMX_FAST_OFFLOAD;
    }
    imx_auth_confirm(r, rows.epoch);
    reply_compare(r, rc, &rows, f->ids, f->n, missing);
    return IMX_FAST_DONE;
}

enum imx_fast imx_api_compare_fast(struct imx_req *r)
{
    if (!imx_auth_settings.read_cache || !r->principal.cached)
        return IMX_FAST_OFFLOAD;
    struct compare_fast *f = calloc(1, sizeof *f);
    if (!f)
        return IMX_FAST_OFFLOAD;
    r->fast_state = f;
    r->fast_free = compare_fast_free;
    if (!compare_ids(r, f->ids, &f->n))
        return IMX_FAST_DONE;
    struct imx_api_scope sc;
    if (imx_api_cost_scope(r, NULL, &sc) != 0)
        return IMX_FAST_DONE;
    const char *scope[3] = { sc.s.user_id, sc.s.token_team, sc.s.team };
    r->resume = compare_fast_read;
    f->call = imx_db_image_compare_start(f->ids, f->n, scope, imx_api_wake, r);
    return f->call ? IMX_FAST_PARKED : IMX_FAST_OFFLOAD;
}
