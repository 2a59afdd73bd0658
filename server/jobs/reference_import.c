/* A reference data import: CSV tables parsed, imx_ref_import()
 * (migrations/functions/reference.sql), then the stored compatibility reports the changed rows can
 * reach recomputed with the new rows, once per distinct stack; the caller owns the transaction. */
#include "jobs/reference_import.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/reference.h"
#include "db/reference_import.h"
#include "domain/compat.h"
#include "domain/csv.h"

#define IMAGES_CHUNK 500 /* images recomputed per query */
#define MAX_GPUS     64

const char *const imx_refimp_tables[] = {
    "cuda_mvc",      "cuda_driver",   "gpu_arch",       "compute_capability",
    "gpu",           "driver_branch", "cudnn",          "pytorch",
    "pytorch_build", "tensorflow",    "instance_type",  "nccl",
    "dcgm",          "jax",           "nvidia_product", "version_alias",
    "commit_release"
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
    json_t *doc = imx_compat_report_of_json(ref, json_object_get(img, "components"),
                                            json_object_get(img, "gpus"), today);
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    return text;
}

/* ---- which images an import can change ---- */

/* The images whose findings the changed rows can reach: all of them, or those with a component
 * inside one of prefixes ([{name, version, parts}]). Read off server/domain/compat.c: a driver
 * branch row is found by the driver's major, a cuDNN row by major.minor.patch, PyTorch and
 * TensorFlow and DCGM rows by major.minor, an NCCL row by major.minor.patch, and only stacks
 * naming that component read them; instance types are read by no rule. Everything else (CUDA
 * floors, GPUs, architectures, compute capabilities) reaches almost every stack, so it means all
 * images. */
struct scope {
    bool all;
    json_t *prefixes; /* owned */
};

#define SCOPE_PREFIXES_MAX 512 /* more than this: all images */

static const struct {
    const char *table, *component;
    int parts;
} SCOPED[] = {
    { "ref_driver_branch", "nvidia-driver", 1 },
    { "ref_cudnn", "cudnn", 3 },
    { "ref_pytorch", "pytorch", 2 },
    { "ref_pytorch_build", "pytorch", 2 },
    { "ref_tensorflow", "tensorflow", 2 },
    { "ref_nccl", "nccl", 3 },
    { "ref_dcgm", "dcgm", 2 },
};

/* Adds the prefix of one changed key (its first element: the version or branch). */
static void scope_key(struct scope *sc, const char *component, int parts, const json_t *key)
{
    const json_t *k = json_array_get(key, 0);
    char num[32];
    const char *version = json_string_value(k);
    if (json_is_integer(k)) {
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(k));
        version = num;
    }
    if (!version || json_array_size(sc->prefixes) >= SCOPE_PREFIXES_MAX ||
        json_array_append_new(sc->prefixes, json_pack("{s:s, s:s, s:i}", "name", component,
                                                      "version", version, "parts", parts)) != 0)
        sc->all = true;
}

/* The scope of changes ({ref_x: {added, changed, removed}}, as imx_ref_import returns). */
static void scope_of(const json_t *changes, struct scope *sc)
{
    sc->all = false;
    sc->prefixes = json_array();
    if (!sc->prefixes)
        sc->all = true;
    const char *table;
    json_t *d;
    json_object_foreach((json_t *)changes, table, d)
    {
        static const char *const kinds[] = { "added", "changed", "removed" };
        size_t n = 0;
        for (size_t k = 0; k < 3; k++)
            n += json_array_size(json_object_get(d, kinds[k]));
        /* Instance types and NVIDIA's product mapping and release numbering (read by the
         * advisory import) reach no report. */
        if (n == 0 || strcmp(table, "ref_instance_type") == 0 ||
            strcmp(table, "ref_nvidia_product") == 0 || strcmp(table, "ref_version_alias") == 0 ||
            strcmp(table, "ref_commit_release") == 0)
            continue;
        size_t s = 0;
        while (s < sizeof SCOPED / sizeof SCOPED[0] && strcmp(SCOPED[s].table, table) != 0)
            s++;
        if (s == sizeof SCOPED / sizeof SCOPED[0]) {
            sc->all = true;
            continue;
        }
        for (size_t k = 0; k < 3; k++) {
            size_t i;
            json_t *key;
            json_array_foreach(json_object_get(d, kinds[k]), i, key)
            {
                scope_key(sc, SCOPED[s].component, SCOPED[s].parts, key);
            }
        }
    }
}

/* ---- one report per distinct stack ---- */

/* A report depends on the stack (components and GPUs) and the day only, and images of a family
 * mostly share their stack: each distinct stack is checked once, and a page of images is stored
 * by one statement that names each of its distinct reports once. */
#define STACK_SLOTS 4096 /* a power of two */
#define STACK_KEEP  3072 /* stacks kept across pages; beyond it the cache starts again */

struct stack_slot {
    char *sig;    /* the stack as compact JSON, owned; NULL: free slot */
    char *report; /* its report as JSON text, owned */
    int page_k;   /* its index among this page's reports, -1 when not in the page */
};

struct stacks {
    struct stack_slot *slot; /* STACK_SLOTS */
    size_t used;
};

static void stacks_clear(struct stacks *st)
{
    for (size_t i = 0; i < STACK_SLOTS; i++) {
        free(st->slot[i].sig);
        free(st->slot[i].report);
        st->slot[i] = (struct stack_slot){ .page_k = -1 };
    }
    st->used = 0;
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of img's stack, its report computed on first sight; NULL when out of memory. */
static struct stack_slot *stack_of(struct stacks *st, const struct imx_ref_snapshot *ref,
                                   const json_t *img, const char *today)
{
    json_t *key = json_pack("{s:O, s:O}", "c", json_object_get(img, "components"), "g",
                            json_object_get(img, "gpus"));
    char *sig = key ? json_dumps(key, JSON_COMPACT) : NULL;
    json_decref(key);
    if (!sig)
        return NULL;
    size_t i = (size_t)fnv1a(sig) & (STACK_SLOTS - 1);
    while (st->slot[i].sig && strcmp(st->slot[i].sig, sig) != 0)
        i = (i + 1) & (STACK_SLOTS - 1);
    struct stack_slot *sl = &st->slot[i];
    if (sl->sig) {
        free(sig);
        return sl;
    }
    sl->report = report_of(ref, img, today);
    if (!sl->report) {
        free(sig);
        return NULL;
    }
    sl->sig = sig;
    sl->page_k = -1;
    st->used++;
    return sl;
}

/* A growable text of the page's statement parameters. */
struct text {
    char *p;
    size_t len, cap;
    bool failed;
};

static void text_add(struct text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (t->len + n + 1 > cap)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->failed = true;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

static void text_num(struct text *t, long long v)
{
    char num[24];
    int w = snprintf(num, sizeof num, "%s%lld", t->len > 1 ? "," : "", v);
    text_add(t, num, (size_t)w);
}

/* One page's images (ids[i] with the stack slots[i]): their reports stored in one statement;
 * the changed ids appended to changed; the open requests of those whose report gained errors
 * lose them as a match, those whose report lost its errors are matched. */
static int page_store(struct imx_db_conn *c, const long long *ids, struct stack_slot **slots,
                      size_t n, const char *version, json_t *changed, struct imx_db_fault *failed,
                      char *err, size_t errlen)
{
    struct text idt = { 0 }, kt = { 0 }, reps = { 0 }, bad = { 0 }, good = { 0 };
    int rc = -1, k = 0;
    text_add(&idt, "{", 1);
    text_add(&kt, "{", 1);
    text_add(&reps, "[", 1);
    text_add(&bad, "{", 1);
    text_add(&good, "{", 1);
    for (size_t i = 0; i < n; i++) {
        if (slots[i]->page_k < 0) {
            if (k)
                text_add(&reps, ",", 1);
            text_add(&reps, slots[i]->report, strlen(slots[i]->report));
            slots[i]->page_k = k++;
        }
        text_num(&idt, ids[i]);
        text_num(&kt, slots[i]->page_k);
    }
    for (size_t i = 0; i < n; i++)
        slots[i]->page_k = -1;
    text_add(&idt, "}", 1);
    text_add(&kt, "}", 1);
    text_add(&reps, "]", 1);
    if (idt.failed || kt.failed || reps.failed) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    struct imx_db_report_change *rows;
    size_t nrows;
    if (imx_db_ref_page_reports(c, idt.p, reps.p, kt.p, version, &rows, &nrows, failed) !=
        IMX_DBS_OK)
        goto out;
    for (size_t i = 0; i < nrows; i++) {
        long long id = rows[i].image_id;
        json_array_append_new(changed, json_integer(id));
        if (rows[i].was_ok && !rows[i].now_ok)
            text_num(&bad, id);
        else if (!rows[i].was_ok && rows[i].now_ok)
            text_num(&good, id);
    }
    free(rows);
    text_add(&bad, "}", 1);
    text_add(&good, "}", 1);
    if (bad.failed || good.failed) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    const struct {
        struct text *ids;
        bool ok;
    } moves[] = { { &bad, false }, { &good, true } };
    for (size_t m = 0; m < 2; m++) {
        if (moves[m].ids->len <= 2)
            continue;
        if (imx_db_ref_requests_after_report(c, moves[m].ids->p, moves[m].ok, failed) != IMX_DBS_OK)
            goto out;
    }
    rc = 0;
out:
    free(idt.p);
    free(kt.p);
    free(reps.p);
    free(bad.p);
    free(good.p);
    return rc;
}

/* Recomputes the stored reports the changes can reach, with the snapshot the transaction sees:
 * one check per distinct stack, one statement per page. Appends the ids whose findings changed
 * (each with its event) to changed; *checked: how many images were looked at, *stacks: how many
 * checks ran. */
static int recompute(struct imx_db_conn *c, const json_t *changes, const char *version,
                     const char *today, json_t *changed, long long *checked, long long *stacks,
                     struct imx_db_fault *failed, char *err, size_t errlen)
{
    struct scope sc;
    scope_of(changes, &sc);
    *checked = *stacks = 0;
    if (!sc.all && json_array_size(sc.prefixes) == 0) {
        json_decref(sc.prefixes);
        return 0;
    }
    char *prefixes = sc.all ? NULL : json_dumps(sc.prefixes, JSON_COMPACT);
    json_decref(sc.prefixes);
    struct stacks st = { .slot = calloc(STACK_SLOTS, sizeof(struct stack_slot)) };
    long long *ids = malloc(IMAGES_CHUNK * sizeof *ids);
    struct stack_slot **slots = malloc(IMAGES_CHUNK * sizeof *slots);
    if ((!sc.all && !prefixes) || !st.slot || !ids || !slots) {
        free(prefixes);
        free(st.slot);
        free(ids);
        free(slots);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    stacks_clear(&st);
    /* The cached snapshot predates the import: load the one this transaction sees. */
    imx_db_ref_cache_clear();
    const struct imx_ref_snapshot *ref = imx_db_ref_acquire(c, err, errlen);
    int rc = ref ? 0 : -1;
    long long after = 0;
    while (rc == 0) {
        struct imx_db_json page;
        enum imx_db_status got =
            sc.all
                ? imx_db_ref_images_after(c, after, IMAGES_CHUNK, &page, failed)
                : imx_db_ref_images_scoped_after(c, after, IMAGES_CHUNK, prefixes, &page, failed);
        json_t *list = got == IMX_DBS_OK ? json_loadb(page.text, page.len, 0, NULL) : NULL;
        imx_db_json_free(&page);
        if (!list) {
            if (got == IMX_DBS_OK)
                snprintf(err, errlen, "the images to check were no JSON");
            rc = -1;
            break;
        }
        size_t i, n = 0;
        json_t *img;
        json_array_foreach(list, i, img)
        {
            if (n == IMAGES_CHUNK)
                break;
            size_t known = st.used;
            struct stack_slot *sl = stack_of(&st, ref, img, today);
            if (!sl) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            *stacks += st.used > known;
            ids[n] = json_integer_value(json_object_get(img, "id"));
            slots[n++] = sl;
            after = ids[n - 1];
        }
        json_decref(list);
        *checked += (long long)n;
        if (rc == 0 && n > 0 &&
            page_store(c, ids, slots, n, version, changed, failed, err, errlen) != 0)
            rc = -1;
        if (st.used > STACK_KEEP)
            stacks_clear(&st);
        if (n < IMAGES_CHUNK)
            break;
    }
    /* changed is in id order: pages go by id, and each page's rows come back by id. */
    stacks_clear(&st);
    free(st.slot);
    free(ids);
    free(slots);
    free(prefixes);
    if (ref)
        imx_db_ref_release(ref);
    /* That snapshot came from an uncommitted transaction: it must not outlive it in the cache. */
    imx_db_ref_cache_clear();
    return rc;
}

int imx_refimp_run(struct imx_db_conn *c, const json_t *parsed, const char *version,
                   const char *user_id, const char *request_id, const char *today, json_t **out,
                   struct imx_db_fault *failed, char *err, size_t errlen)
{
    *out = NULL;
    memset(failed, 0, sizeof *failed);
    err[0] = '\0';
    char *text = json_dumps(parsed, JSON_COMPACT);
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct imx_db_json j;
    enum imx_db_status st = imx_db_ref_import(c, text, version, user_id, request_id, &j, failed);
    free(text);
    if (st != IMX_DBS_OK)
        return -1;
    json_t *changes = json_loadb(j.text, j.len, 0, NULL);
    imx_db_json_free(&j);
    json_t *changed = json_array();
    if (!changes || !changed) {
        snprintf(err, errlen, "out of memory");
        json_decref(changes);
        json_decref(changed);
        return -1;
    }
    long long checked = 0, stacks = 0;
    if (recompute(c, changes, version, today, changed, &checked, &stacks, failed, err, errlen) !=
        0) {
        json_decref(changes);
        json_decref(changed);
        return -1;
    }
    *out = json_pack("{s:o, s:o, s:I, s:I}", "tables", changes, "reports_changed", changed,
                     "reports_checked", (json_int_t)checked, "stacks_checked", (json_int_t)stacks);
    return *out ? 0 : -1;
}
