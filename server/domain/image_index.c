/* The in-memory search index: images as small fixed records whose strings are interned, one
 * permutation of them per sort order, and filters that compare ids instead of text. */
#include "domain/image_index.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- interned strings: ids 1..n; 0 is "none" ---- */

struct strtab {
    char **v;        /* v[id] */
    uint32_t n, cap; /* ids in use, slots in v */
    uint32_t *slots; /* open addressing: id or 0 */
    uint32_t nslots; /* a power of two */
};

static uint32_t hash_bytes(const void *p, size_t len, uint32_t h)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ s[i]) * 16777619u; /* FNV-1a */
    return h;
}

static uint32_t str_hash(const char *s)
{
    return hash_bytes(s, strlen(s), 2166136261u);
}

/* The three interning tables below index their ids in open-addressing slots (0: empty). */
static void slot_put(uint32_t *slots, uint32_t nslots, uint32_t hash, uint32_t id)
{
    uint32_t i = hash & (nslots - 1);
    while (slots[i])
        i = (i + 1) & (nslots - 1);
    slots[i] = id;
}

/* Doubles *slots (at least min) and re-inserts ids 1..n by hash(t, id). Returns 0 or -1. */
static int slots_grow(uint32_t **slots, uint32_t *nslots, uint32_t min, uint32_t n,
                      uint32_t (*hash)(const void *t, uint32_t id), const void *t)
{
    uint32_t size = *nslots ? *nslots * 2 : min;
    uint32_t *fresh = calloc(size, sizeof *fresh);
    if (!fresh)
        return -1;
    for (uint32_t id = 1; id <= n; id++)
        slot_put(fresh, size, hash(t, id), id);
    free(*slots);
    *slots = fresh;
    *nslots = size;
    return 0;
}

/* The id of s, or 0 when it was never interned. */
static uint32_t str_find(const struct strtab *t, const char *s)
{
    if (!s || !t->nslots)
        return 0;
    for (uint32_t i = str_hash(s) & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
        uint32_t id = t->slots[i];
        if (id == 0)
            return 0;
        if (strcmp(t->v[id], s) == 0)
            return id;
    }
}

static uint32_t str_hash_of(const void *t, uint32_t id)
{
    return str_hash(((const struct strtab *)t)->v[id]);
}

/* The id of s, interning a copy when new; 0 when out of memory. NULL interns as 0 too. */
static uint32_t str_intern(struct strtab *t, const char *s)
{
    if (!s)
        return 0;
    uint32_t id = str_find(t, s);
    if (id)
        return id;
    if ((t->n + 1) * 2 >= t->nslots &&
        slots_grow(&t->slots, &t->nslots, 256, t->n, str_hash_of, t) != 0)
        return 0;
    if (t->n + 2 > t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 256;
        char **v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return 0;
        t->v = v;
        t->cap = cap;
    }
    char *copy = strdup(s);
    if (!copy)
        return 0;
    id = ++t->n;
    t->v[id] = copy;
    slot_put(t->slots, t->nslots, str_hash(s), id);
    return id;
}

/* ---- interned u32 sequences: an image's attribute tuple, and its lists ---- */

/* Images share a few dozen attribute tuples and a few thousand list shapes (bench/RESULTS.md:
 * 67 and 4,800 over 100,000 images), so each image holds two ids, and a query tests each tuple
 * or shape once (memoised per query) instead of once per image. */
struct seqtab {
    uint32_t *items; /* every sequence, back to back */
    size_t n_items, cap_items;
    uint32_t *at; /* at[id]: offset of sequence id; at[id + 1] - at[id] is its length */
    uint32_t n, cap;
    uint32_t *slots;
    uint32_t nslots;
};

static uint32_t seq_len(const struct seqtab *t, uint32_t id)
{
    return t->at[id + 1] - t->at[id];
}

static const uint32_t *seq_of(const struct seqtab *t, uint32_t id)
{
    return t->items + t->at[id];
}

static uint32_t seq_hash(const uint32_t *v, size_t n)
{
    return hash_bytes(v, n * sizeof *v, 2166136261u);
}

static uint32_t seq_hash_of(const void *t, uint32_t id)
{
    return seq_hash(seq_of(t, id), seq_len(t, id));
}

/* The id of the sequence v[0..n), interned when new; 0 when out of memory. */
static uint32_t seq_intern(struct seqtab *t, const uint32_t *v, size_t n)
{
    uint32_t h = seq_hash(v, n);
    for (uint32_t i = t->nslots ? h & (t->nslots - 1) : 0; t->nslots && t->slots[i];
         i = (i + 1) & (t->nslots - 1)) {
        uint32_t id = t->slots[i];
        if (seq_len(t, id) == n && memcmp(seq_of(t, id), v, n * sizeof *v) == 0)
            return id;
    }
    if ((t->n + 1) * 2 >= t->nslots &&
        slots_grow(&t->slots, &t->nslots, 256, t->n, seq_hash_of, t) != 0)
        return 0;
    if (t->n + 3 > t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 256;
        uint32_t *at = realloc(t->at, cap * sizeof *at);
        if (!at)
            return 0;
        t->at = at;
        t->cap = cap;
    }
    if (t->n_items + n > t->cap_items) {
        size_t cap = t->cap_items ? t->cap_items * 2 : 4096;
        while (cap < t->n_items + n)
            cap *= 2;
        uint32_t *items = realloc(t->items, cap * sizeof *items);
        if (!items)
            return 0;
        t->items = items;
        t->cap_items = cap;
    }
    if (t->n == 0)
        t->at[1] = 0; /* ids start at 1 */
    uint32_t id = ++t->n;
    memcpy(t->items + t->n_items, v, n * sizeof *v);
    t->n_items += n;
    t->at[id + 1] = (uint32_t)t->n_items;
    slot_put(t->slots, t->nslots, h, id);
    return id;
}

static void seq_free(struct seqtab *t)
{
    free(t->items);
    free(t->at);
    free(t->slots);
}

static size_t seq_bytes(const struct seqtab *t)
{
    return (t->cap_items + t->cap + t->nslots) * sizeof(uint32_t);
}

/* A component version is the sequence (name id, key parts...) in the index's cv table; next[]
 * chains the versions of one name from first[name], so a constraint reads only its own. */
enum { CV_NAME, CV_KEY, CV_LEN = CV_KEY + IMX_VER_PARTS };

struct cvtab {
    struct seqtab seq;
    uint32_t *next, n_next;   /* next[cv id] */
    uint32_t *first, n_first; /* first[name id] */
};

/* Grows a zeroed uint32_t array to hold index i. Returns 0 or -1. */
static int grow_to(uint32_t **a, uint32_t *n, uint32_t i)
{
    if (i < *n)
        return 0;
    uint32_t size = *n ? *n : 64;
    while (size <= i)
        size *= 2;
    uint32_t *fresh = realloc(*a, size * sizeof *fresh);
    if (!fresh)
        return -1;
    memset(fresh + *n, 0, (size - *n) * sizeof *fresh);
    *a = fresh;
    *n = size;
    return 0;
}

static uint32_t cv_intern(struct cvtab *t, uint32_t name, const int32_t *key)
{
    uint32_t v[CV_LEN] = { [CV_NAME] = name };
    memcpy(v + CV_KEY, key, IMX_VER_PARTS * sizeof *key);
    uint32_t before = t->seq.n;
    uint32_t id = seq_intern(&t->seq, v, CV_LEN);
    if (!id || id <= before)
        return id;
    if (grow_to(&t->next, &t->n_next, id) != 0 || grow_to(&t->first, &t->n_first, name) != 0)
        return 0;
    t->next[id] = t->first[name];
    t->first[name] = id;
    return id;
}

static void cv_free(struct cvtab *t)
{
    seq_free(&t->seq);
    free(t->next);
    free(t->first);
}

/* An attribute tuple: string ids in this order. */
enum { A_PROVIDER, A_ARCH, A_OS_NAME, A_OS_VERSION, A_OS, A_LAYER, A_CUDA, A_DRIVER, N_ATTRS };

/* A list shape: the five counts, then gpus, regions, tags, frameworks (string ids) and
 * components (cv ids). */
enum { L_GPUS, L_REGIONS, L_TAGS, L_FW, L_COMP, N_LISTS };

struct lists {
    const uint32_t *v[N_LISTS];
    uint32_t n[N_LISTS];
};

static struct lists lists_of(const struct seqtab *t, uint32_t id)
{
    struct lists l;
    const uint32_t *s = seq_of(t, id);
    const uint32_t *item = s + N_LISTS;
    for (int k = 0; k < N_LISTS; k++) {
        l.n[k] = s[k];
        l.v[k] = item;
        item += s[k];
    }
    return l;
}

/* Appends v to the array *a of *n items, growing it (*cap) by doubling. Returns 0 or -1. */
static int push_u32(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t v)
{
    if (*n == *cap) {
        uint32_t size = *cap ? *cap * 2 : 8;
        uint32_t *fresh = realloc(*a, size * sizeof *fresh);
        if (!fresh)
            return -1;
        *a = fresh;
        *cap = size;
    }
    (*a)[(*n)++] = v;
    return 0;
}

/* ---- postings: image positions by family or list shape ---- */

struct posting {
    uint32_t *pos;
    uint32_t n, cap;
};

struct postings {
    struct posting *v; /* v[id] */
    uint32_t n;
};

static int posting_add(struct postings *t, uint32_t id, uint32_t pos)
{
    if (id >= t->n) {
        uint32_t n = t->n ? t->n : 256;
        while (n <= id)
            n *= 2;
        struct posting *v = realloc(t->v, n * sizeof *v);
        if (!v)
            return -1;
        memset(v + t->n, 0, (n - t->n) * sizeof *v);
        t->v = v;
        t->n = n;
    }
    struct posting *p = &t->v[id];
    return push_u32(&p->pos, &p->n, &p->cap, pos);
}

static void posting_remove(struct postings *t, uint32_t id, uint32_t pos)
{
    struct posting *p = id < t->n ? &t->v[id] : NULL;
    for (uint32_t i = 0; p && i < p->n; i++) {
        if (p->pos[i] == pos) {
            p->pos[i] = p->pos[--p->n];
            return;
        }
    }
}

static void postings_free(struct postings *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->v[i].pos);
    free(t->v);
}

static size_t postings_bytes(const struct postings *t)
{
    size_t b = t->n * sizeof *t->v;
    for (uint32_t i = 0; i < t->n; i++)
        b += t->v[i].cap * sizeof(uint32_t);
    return b;
}

/* ---- images ---- */

#define NO_SIZE INT32_MAX /* size_gb unknown: sorts as 'Infinity' (numeric(8,2) < 10^6) */

struct img {
    int64_t id, published_us, revoke_us;
    int64_t parent_id;                     /* 0: none */
    uint32_t version;                      /* string id; 0: not given */
    int32_t size_cents;                    /* size_gb * 100 (numeric(8,2)), NO_SIZE when unknown */
    int32_t boot;                          /* INT32_MAX when unknown, as the SQL sort key */
    uint32_t family, status, patch_status; /* string ids: these change, or are too many to share */
    uint32_t os_patch_status;
};

#define N_SORTS 4

/* An image and its parent, by id. */
struct kid {
    int64_t parent, child;
};

struct imx_ix {
    struct strtab s;
    struct cvtab cv;
    struct seqtab attrs, lists;
    struct img *imgs;
    /* Each image's attribute tuple and list shape, beside imgs: a walk over an order touches
     * these 800 kB first (per 100,000 images) rather than the records (a cache miss each). */
    uint32_t *attrs_at, *lists_at;
    uint32_t n, cap;
    uint32_t *order[N_SORTS]; /* image positions in each sort's order; cap entries each */
    uint32_t *by_id;          /* open addressing of image positions + 1 by id */
    uint32_t n_by_id;
    bool sealed; /* the orders are sorted (imx_ix_seal); until then puts only append */
    /* The positions of the images of each family and of each list shape, for a search whose
     * filters leave few images far apart in the sort order (see imx_ix_page). */
    struct postings by_family, by_lists;
    uint32_t walk_budget;
    /* (parent, child) id pairs in that order, for a lineage's children; appended until sealed,
     * then kept sorted one insertion at a time. */
    struct kid *kids;
    uint32_t n_kids, cap_kids;
};

static uint32_t id_hash(int64_t id)
{
    uint64_t x = (uint64_t)id * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 32);
}

static int by_id_grow(struct imx_ix *ix)
{
    uint32_t nslots = ix->n_by_id ? ix->n_by_id * 2 : 1024;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t p = 0; p < ix->n; p++) {
        uint32_t i = id_hash(ix->imgs[p].id) & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = p + 1;
    }
    free(ix->by_id);
    ix->by_id = slots;
    ix->n_by_id = nslots;
    return 0;
}

/* The position of image id, or -1. */
static long find_pos(const struct imx_ix *ix, int64_t id)
{
    if (!ix->n_by_id)
        return -1;
    for (uint32_t i = id_hash(id) & (ix->n_by_id - 1); ix->by_id[i];
         i = (i + 1) & (ix->n_by_id - 1)) {
        if (ix->imgs[ix->by_id[i] - 1].id == id)
            return (long)ix->by_id[i] - 1;
    }
    return -1;
}

struct imx_ix *imx_ix_new(void)
{
    return calloc(1, sizeof(struct imx_ix));
}

void imx_ix_free(struct imx_ix *ix)
{
    if (!ix)
        return;
    for (uint32_t id = 1; id <= ix->s.n; id++)
        free(ix->s.v[id]);
    free(ix->s.v);
    free(ix->s.slots);
    cv_free(&ix->cv);
    seq_free(&ix->attrs);
    seq_free(&ix->lists);
    free(ix->imgs);
    free(ix->attrs_at);
    free(ix->lists_at);
    for (int k = 0; k < N_SORTS; k++)
        free(ix->order[k]);
    free(ix->by_id);
    postings_free(&ix->by_family);
    postings_free(&ix->by_lists);
    free(ix->kids);
    free(ix);
}

static int imgs_reserve(struct imx_ix *ix, size_t images)
{
    if (images > UINT32_MAX / 4)
        return -1;
    if (images > ix->cap) {
        struct img *imgs = realloc(ix->imgs, images * sizeof *imgs);
        if (!imgs)
            return -1;
        ix->imgs = imgs;
        uint32_t **arrays[] = { &ix->attrs_at, &ix->lists_at, &ix->order[0],
                                &ix->order[1], &ix->order[2], &ix->order[3] };
        for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
            uint32_t *a = realloc(*arrays[k], images * sizeof *a);
            if (!a)
                return -1;
            *arrays[k] = a;
        }
        ix->cap = (uint32_t)images;
    }
    while ((size_t)ix->n_by_id < images * 2 + 2) {
        if (by_id_grow(ix) != 0)
            return -1;
    }
    return 0;
}

int imx_ix_reserve(struct imx_ix *ix, size_t images)
{
    return imgs_reserve(ix, images);
}

bool imx_ix_has(const struct imx_ix *ix, int64_t id)
{
    return find_pos(ix, id) >= 0;
}

size_t imx_ix_count(const struct imx_ix *ix)
{
    return ix->n;
}

size_t imx_ix_bytes(const struct imx_ix *ix)
{
    size_t b = sizeof *ix + ix->s.cap * sizeof(char *) + ix->s.nslots * sizeof(uint32_t);
    for (uint32_t id = 1; id <= ix->s.n; id++)
        b += strlen(ix->s.v[id]) + 1;
    b += seq_bytes(&ix->cv.seq) + (ix->cv.n_next + ix->cv.n_first) * sizeof(uint32_t);
    b += seq_bytes(&ix->attrs) + seq_bytes(&ix->lists);
    b += ix->cap * (sizeof(struct img) + (N_SORTS + 2) * sizeof(uint32_t));
    b += ix->n_by_id * sizeof(uint32_t);
    b += postings_bytes(&ix->by_family) + postings_bytes(&ix->by_lists);
    b += ix->cap_kids * sizeof *ix->kids;
    return b;
}

/* ---- sort orders ---- */

/* A position in a sort order: the sort's key and the id tie-break. */
struct sort_key {
    int64_t id;
    int64_t num;      /* published_us, boot or size_cents */
    const char *text; /* family */
};

static struct sort_key key_of(const struct imx_ix *ix, const struct img *m, enum imx_ix_sort sort)
{
    struct sort_key k = { .id = m->id };
    switch (sort) {
    case IMX_IX_PUBLISHED_DESC:
        k.num = m->published_us;
        break;
    case IMX_IX_FAMILY:
        k.text = ix->s.v[m->family];
        break;
    case IMX_IX_BOOT:
        k.num = m->boot;
        break;
    case IMX_IX_SIZE:
        k.num = m->size_cents;
        break;
    }
    return k;
}

/* <0 when a comes before b in the sort's order. */
static int key_cmp(const struct sort_key *a, const struct sort_key *b, enum imx_ix_sort sort)
{
    int r;
    if (sort == IMX_IX_FAMILY)
        r = strcmp(a->text, b->text);
    else
        r = (a->num > b->num) - (a->num < b->num);
    if (r == 0)
        r = (a->id > b->id) - (a->id < b->id);
    return sort == IMX_IX_PUBLISHED_DESC ? -r : r;
}

struct sort_ctx {
    const struct imx_ix *ix;
    enum imx_ix_sort sort;
};

static int pos_cmp(const void *a, const void *b, void *cls)
{
    const struct sort_ctx *c = cls;
    struct sort_key ka = key_of(c->ix, &c->ix->imgs[*(const uint32_t *)a], c->sort);
    struct sort_key kb = key_of(c->ix, &c->ix->imgs[*(const uint32_t *)b], c->sort);
    return key_cmp(&ka, &kb, c->sort);
}

/* Positions by their images' (published_at, id), oldest first: the order of a family's postings
 * once sealed, so that the newest usable image of a family is found walking back from its end. */
static int published_cmp(const void *a, const void *b, void *cls)
{
    const struct imx_ix *ix = cls;
    const struct img *x = &ix->imgs[*(const uint32_t *)a], *y = &ix->imgs[*(const uint32_t *)b];
    if (x->published_us != y->published_us)
        return x->published_us < y->published_us ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static void family_sort(struct imx_ix *ix, uint32_t family)
{
    if (family < ix->by_family.n && ix->by_family.v[family].n > 1)
        qsort_r(ix->by_family.v[family].pos, ix->by_family.v[family].n, sizeof(uint32_t),
                published_cmp, ix);
}

/* Moves the family's last position (just added) back to its place in published order. */
static void family_settle(struct imx_ix *ix, uint32_t family)
{
    struct posting *f = &ix->by_family.v[family];
    uint32_t last = f->pos[f->n - 1], i = f->n - 1;
    for (; i > 0 && published_cmp(&f->pos[i - 1], &last, ix) > 0; i--)
        f->pos[i] = f->pos[i - 1];
    f->pos[i] = last;
}

/* The first place in order[sort] whose image comes after k (strictly, or at k when !strict). */
static uint32_t lower_place(const struct imx_ix *ix, enum imx_ix_sort sort,
                            const struct sort_key *k, bool strict)
{
    uint32_t lo = 0, hi = ix->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        struct sort_key km = key_of(ix, &ix->imgs[ix->order[sort][mid]], sort);
        int r = key_cmp(&km, k, sort);
        if (r < 0 || (strict && r == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- put ---- */

/* Parses numeric(8,2) text ("40.50", "7") into hundredths; -1 when it is not such a number. */
static int cents_of(const char *s, int64_t *out)
{
    if (strlen(s) > 12)
        return -1;
    int64_t v = 0;
    int frac = -1;
    bool digit = false;
    for (const char *p = s; *p; p++) {
        if (*p == '.' && frac < 0) {
            frac = 0;
            continue;
        }
        if (*p < '0' || *p > '9' || frac == 2)
            return -1;
        v = v * 10 + (*p - '0');
        digit = true;
        if (frac >= 0)
            frac++;
    }
    if (!digit)
        return -1;
    for (int f = frac < 0 ? 0 : frac; f < 2; f++)
        v *= 10;
    *out = v;
    return 0;
}

/* Appends the ids of strings v[0..n) to out; returns -1 when one cannot be interned. */
static int intern_all(struct imx_ix *ix, const char *const *v, size_t n, uint32_t *out)
{
    for (size_t i = 0; i < n; i++) {
        if (!(out[i] = str_intern(&ix->s, v[i])))
            return -1;
    }
    return 0;
}

/* ---- children ---- */

static int kid_cmp(const void *a, const void *b)
{
    const struct kid *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    return (x->child > y->child) - (x->child < y->child);
}

/* The place of the first pair at or after (parent, child) in the sorted pairs. */
static uint32_t kid_lower(const struct imx_ix *ix, int64_t parent, int64_t child)
{
    uint32_t lo = 0, hi = ix->n_kids;
    struct kid k = { parent, child };
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (kid_cmp(&ix->kids[mid], &k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Room for one more pair, so that kid_add cannot fail after other changes. */
static int kids_reserve(struct imx_ix *ix)
{
    if (ix->n_kids < ix->cap_kids)
        return 0;
    if (ix->cap_kids > UINT32_MAX / 2)
        return -1;
    uint32_t cap = ix->cap_kids ? ix->cap_kids * 2 : 1024;
    struct kid *k = realloc(ix->kids, cap * sizeof *k);
    if (!k)
        return -1;
    ix->kids = k;
    ix->cap_kids = cap;
    return 0;
}

/* Adds (parent, child) with room reserved: at the end until sealed, else at its place. */
static void kid_add(struct imx_ix *ix, int64_t parent, int64_t child)
{
    uint32_t at = ix->sealed ? kid_lower(ix, parent, child) : ix->n_kids;
    memmove(ix->kids + at + 1, ix->kids + at, (ix->n_kids - at) * sizeof *ix->kids);
    ix->kids[at] = (struct kid){ parent, child };
    ix->n_kids++;
}

static void kid_remove(struct imx_ix *ix, int64_t parent, int64_t child)
{
    for (uint32_t i = ix->sealed ? kid_lower(ix, parent, child) : 0; i < ix->n_kids; i++) {
        if (ix->kids[i].parent == parent && ix->kids[i].child == child) {
            memmove(ix->kids + i, ix->kids + i + 1, (ix->n_kids - i - 1) * sizeof *ix->kids);
            ix->n_kids--;
            return;
        }
    }
}

int imx_ix_put(struct imx_ix *ix, const struct imx_ix_row *row)
{
    if (row->n_gpus > IMX_IX_LIST_MAX || row->n_regions > IMX_IX_LIST_MAX ||
        row->n_tags > IMX_IX_LIST_MAX || row->n_frameworks > IMX_IX_LIST_MAX ||
        row->n_components > IMX_IX_LIST_MAX || !row->family || !row->provider ||
        !row->architecture || !row->os_name || !row->os_version || !row->layer || !row->status ||
        !row->patch_status || !row->os_patch_status)
        return -1;
    struct img m = {
        .id = row->id,
        .parent_id = row->parent_id > 0 ? row->parent_id : 0,
        .published_us = row->published_us,
        .revoke_us = row->revoke_us,
        .size_cents = NO_SIZE,
        .boot = row->boot_seconds < 0 ? INT32_MAX : row->boot_seconds,
    };
    int64_t cents;
    if (row->size_text && (cents_of(row->size_text, &cents) != 0 || cents >= NO_SIZE))
        return -1;
    if (row->size_text)
        m.size_cents = (int32_t)cents;
    char os[140];
    snprintf(os, sizeof os, "%s:%s", row->os_name, row->os_version);
    uint32_t a[N_ATTRS] = {
        [A_PROVIDER] = str_intern(&ix->s, row->provider),
        [A_ARCH] = str_intern(&ix->s, row->architecture),
        [A_OS_NAME] = str_intern(&ix->s, row->os_name),
        [A_OS_VERSION] = str_intern(&ix->s, row->os_version),
        [A_OS] = str_intern(&ix->s, os),
        [A_LAYER] = str_intern(&ix->s, row->layer),
        [A_CUDA] = str_intern(&ix->s, row->facet_cuda),
        [A_DRIVER] = str_intern(&ix->s, row->facet_driver),
    };
    m.family = str_intern(&ix->s, row->family);
    m.status = str_intern(&ix->s, row->status);
    m.patch_status = str_intern(&ix->s, row->patch_status);
    m.os_patch_status = str_intern(&ix->s, row->os_patch_status);
    if (row->version && !(m.version = str_intern(&ix->s, row->version)))
        return -1;
    for (int k = 0; k < N_ATTRS; k++) {
        if (!a[k] && k != A_CUDA && k != A_DRIVER)
            return -1;
    }
    if (!m.family || !m.status || !m.patch_status || !m.os_patch_status ||
        (row->facet_cuda && !a[A_CUDA]) || (row->facet_driver && !a[A_DRIVER]))
        return -1;
    uint32_t attrs = seq_intern(&ix->attrs, a, N_ATTRS);
    if (!attrs)
        return -1;

    uint32_t l[N_LISTS + 5 * IMX_IX_LIST_MAX];
    size_t n = N_LISTS;
    l[L_GPUS] = (uint32_t)row->n_gpus;
    l[L_REGIONS] = (uint32_t)row->n_regions;
    l[L_TAGS] = (uint32_t)row->n_tags;
    l[L_FW] = (uint32_t)row->n_frameworks;
    l[L_COMP] = (uint32_t)row->n_components;
    if (intern_all(ix, row->gpus, row->n_gpus, l + n) != 0 ||
        intern_all(ix, row->regions, row->n_regions, l + n + row->n_gpus) != 0 ||
        intern_all(ix, row->tags, row->n_tags, l + n + row->n_gpus + row->n_regions) != 0 ||
        intern_all(ix, row->frameworks, row->n_frameworks,
                   l + n + row->n_gpus + row->n_regions + row->n_tags) != 0)
        return -1;
    n += row->n_gpus + row->n_regions + row->n_tags + row->n_frameworks;
    for (size_t i = 0; i < row->n_components; i++) {
        uint32_t name = str_intern(&ix->s, row->components[i].name);
        if (!name || !(l[n++] = cv_intern(&ix->cv, name, row->components[i].key)))
            return -1;
    }
    uint32_t lists = seq_intern(&ix->lists, l, n);
    if (!lists)
        return -1;

    if (m.parent_id && kids_reserve(ix) != 0)
        return -1;
    long at = find_pos(ix, row->id);
    if (at >= 0) {
        /* Sort keys never change after publish; if they did, the orders are rebuilt. */
        struct img *old = &ix->imgs[at];
        uint32_t old_family = old->family;
        /* the family's published order, and the sort orders, change only with their keys */
        bool refamily = old->published_us != m.published_us || old->family != m.family;
        bool moved = refamily || old->boot != m.boot || old->size_cents != m.size_cents;
        if (old->family != m.family) {
            posting_remove(&ix->by_family, old->family, (uint32_t)at);
            if (posting_add(&ix->by_family, m.family, (uint32_t)at) != 0)
                return -1;
        }
        if (ix->lists_at[at] != lists) {
            posting_remove(&ix->by_lists, ix->lists_at[at], (uint32_t)at);
            if (posting_add(&ix->by_lists, lists, (uint32_t)at) != 0)
                return -1;
        }
        if (old->parent_id != m.parent_id) {
            if (old->parent_id)
                kid_remove(ix, old->parent_id, m.id);
            if (m.parent_id)
                kid_add(ix, m.parent_id, m.id);
        }
        *old = m;
        ix->attrs_at[at] = attrs;
        ix->lists_at[at] = lists;
        if (ix->sealed && refamily) {
            family_sort(ix, old_family);
            family_sort(ix, m.family);
        }
        for (int k = 0; k < N_SORTS && moved && ix->sealed; k++) {
            struct sort_ctx c = { ix, (enum imx_ix_sort)k };
            qsort_r(ix->order[k], ix->n, sizeof(uint32_t), pos_cmp, &c);
        }
        return 0;
    }
    if (ix->n + 1 > ix->cap && imgs_reserve(ix, ix->cap ? ix->cap + ix->cap / 2 : 1024) != 0)
        return -1;
    if ((ix->n + 1) * 2 >= ix->n_by_id && by_id_grow(ix) != 0)
        return -1;
    uint32_t pos = ix->n;
    if (posting_add(&ix->by_family, m.family, pos) != 0)
        return -1;
    if (posting_add(&ix->by_lists, lists, pos) != 0) {
        posting_remove(&ix->by_family, m.family, pos);
        return -1;
    }
    ix->imgs[pos] = m;
    ix->attrs_at[pos] = attrs;
    ix->lists_at[pos] = lists;
    if (ix->sealed)
        family_settle(ix, m.family);
    if (m.parent_id)
        kid_add(ix, m.parent_id, m.id);
    /* Each order gets the new image at its place (publishes come a few at a time; a full load
     * appends and sorts once, in imx_ix_seal). */
    for (int k = 0; k < N_SORTS && !ix->sealed; k++)
        ix->order[k][pos] = pos;
    for (int k = 0; k < N_SORTS && ix->sealed; k++) {
        struct sort_key key = key_of(ix, &m, (enum imx_ix_sort)k);
        uint32_t place = lower_place(ix, (enum imx_ix_sort)k, &key, false);
        memmove(ix->order[k] + place + 1, ix->order[k] + place, (ix->n - place) * sizeof(uint32_t));
        ix->order[k][place] = pos;
    }
    ix->n++;
    uint32_t i = id_hash(m.id) & (ix->n_by_id - 1);
    while (ix->by_id[i])
        i = (i + 1) & (ix->n_by_id - 1);
    ix->by_id[i] = pos + 1;
    return 0;
}

void imx_ix_seal(struct imx_ix *ix)
{
    for (int k = 0; k < N_SORTS && !ix->sealed; k++) {
        struct sort_ctx c = { ix, (enum imx_ix_sort)k };
        if (ix->n)
            qsort_r(ix->order[k], ix->n, sizeof(uint32_t), pos_cmp, &c);
    }
    if (!ix->sealed && ix->n_kids)
        qsort(ix->kids, ix->n_kids, sizeof *ix->kids, kid_cmp);
    for (uint32_t f = 1; !ix->sealed && f < ix->by_family.n; f++)
        family_sort(ix, f);
    ix->sealed = true;
}

/* ---- filters ---- */

/* A query with its values turned into ids. A value no image has makes the filter impossible. */
struct filter {
    bool impossible;
    uint32_t family, patch_status, os_patch_status;
    bool by_status;
    uint32_t status;     /* 0 when no image has that status (then only revoke_at can match) */
    bool status_revoked; /* the filter is status=revoked */
    int64_t now_us;
    /* Tested once per attribute tuple and per list shape: */
    bool by_attrs, by_lists;
    uint32_t a[N_ATTRS]; /* 0: no filter on that attribute */
    uint32_t region;
    bool gpu_filter;
    uint32_t gpus[IMX_IX_QUERY_GPUS_MAX];
    size_t n_gpus;
    uint32_t tags[IMX_IX_QUERY_TAGS_MAX];
    size_t n_tags;
    uint64_t *cons[IMX_IX_QUERY_CONS_MAX]; /* per constraint: a bit per cv id that satisfies it */
    size_t n_cons;
    uint8_t *attrs_memo, *lists_memo; /* per id: 0 not yet tested, 1 matches, 2 does not */
};

/* The id of a filter value; marks the filter impossible when no image has it. */
static uint32_t want(const struct imx_ix *ix, struct filter *f, const char *v)
{
    if (!v)
        return 0;
    uint32_t id = str_find(&ix->s, v);
    if (!id)
        f->impossible = true;
    return id;
}

static void filter_free(struct filter *f)
{
    for (size_t i = 0; i < f->n_cons; i++)
        free(f->cons[i]);
    f->n_cons = 0;
    free(f->attrs_memo);
    free(f->lists_memo);
    f->attrs_memo = f->lists_memo = NULL;
}

static bool has(const uint32_t *list, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++) {
        if (list[i] == id)
            return true;
    }
    return false;
}

/* Equal when ASCII letters are folded to lower case (as SQL imx_ascii_lower()). */
static bool ascii_case_equal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
        if (x != y)
            return false;
    }
    return *a == *b;
}

/* Returns 0, or -1 when out of memory. */
static int filter_make(const struct imx_ix *ix, const struct imx_ix_query *q, struct filter *f)
{
    memset(f, 0, sizeof *f);
    f->family = want(ix, f, q->family);
    f->patch_status = want(ix, f, q->patch_status);
    f->os_patch_status = want(ix, f, q->os_patch_status);
    f->a[A_PROVIDER] = want(ix, f, q->provider);
    f->a[A_ARCH] = want(ix, f, q->architecture);
    f->a[A_OS_NAME] = want(ix, f, q->os_name);
    f->a[A_OS_VERSION] = want(ix, f, q->os_version);
    f->a[A_LAYER] = want(ix, f, q->layer);
    for (int k = 0; k < N_ATTRS; k++)
        f->by_attrs = f->by_attrs || f->a[k];
    if (q->status) {
        f->by_status = true;
        f->status = str_find(&ix->s, q->status);
        f->status_revoked = strcmp(q->status, "revoked") == 0;
        f->now_us = q->now_us;
    }
    f->region = want(ix, f, q->region);
    if (q->gpu_filter) {
        f->gpu_filter = true;
        for (size_t i = 0; i < q->n_gpus && i < IMX_IX_QUERY_GPUS_MAX; i++) {
            uint32_t id = str_find(&ix->s, q->gpus[i]);
            if (id)
                f->gpus[f->n_gpus++] = id;
        }
        /* The GPU names in use are those of the list shapes (a few thousand); a name the
         * reference does not know is rare enough to look them over each time. */
        for (uint32_t shape = 1; q->gpu_any_case && shape <= ix->lists.n; shape++) {
            struct lists l = lists_of(&ix->lists, shape);
            for (uint32_t k = 0; k < l.n[L_GPUS]; k++) {
                uint32_t id = l.v[L_GPUS][k];
                if (!ascii_case_equal(ix->s.v[id], q->gpu_any_case) || has(f->gpus, f->n_gpus, id))
                    continue;
                if (f->n_gpus == IMX_IX_QUERY_GPUS_MAX) {
                    filter_free(f); /* more spellings than a query holds: the caller asks SQL */
                    return -1;
                }
                f->gpus[f->n_gpus++] = id;
            }
        }
        if (f->n_gpus == 0)
            f->impossible = true;
    }
    for (size_t i = 0; i < q->n_tags && i < IMX_IX_QUERY_TAGS_MAX; i++)
        f->tags[f->n_tags++] = want(ix, f, q->tags[i]);
    for (size_t i = 0; i < q->n_cons && i < IMX_IX_QUERY_CONS_MAX && !f->impossible; i++) {
        uint32_t name = want(ix, f, q->con_names[i]);
        uint64_t *bits = calloc(ix->cv.seq.n / 64 + 1, sizeof *bits);
        if (!bits) {
            filter_free(f);
            return -1;
        }
        f->cons[f->n_cons++] = bits;
        bool any = false;
        uint32_t id = name && name < ix->cv.n_first ? ix->cv.first[name] : 0;
        /* Made once: its text (most of its bytes) is not read, and clearing it for each of a
         * name's versions (a thousand drivers in the bench catalog) was most of a resolve's
         * filter. */
        struct imx_ver v = { .nparts = IMX_VER_PARTS };
        for (; id; id = ix->cv.next[id]) {
            memcpy(v.key, seq_of(&ix->cv.seq, id) + CV_KEY, sizeof v.key);
            if (imx_constraint_matches(&q->cons[i], &v)) {
                bits[id / 64] |= 1ull << (id % 64);
                any = true;
            }
        }
        if (!any)
            f->impossible = true;
    }
    f->by_lists = f->region || f->gpu_filter || f->n_tags || f->n_cons;
    f->attrs_memo = calloc(ix->attrs.n + 1, 1);
    f->lists_memo = calloc(ix->lists.n + 1, 1);
    if (!f->attrs_memo || !f->lists_memo) {
        filter_free(f);
        return -1;
    }
    return 0;
}

static bool attrs_match(const struct imx_ix *ix, const struct filter *f, uint32_t id)
{
    const uint32_t *a = seq_of(&ix->attrs, id);
    for (int k = 0; k < N_ATTRS; k++) {
        if (f->a[k] && a[k] != f->a[k])
            return false;
    }
    return true;
}

static bool lists_match(const struct imx_ix *ix, const struct filter *f, uint32_t id)
{
    struct lists l = lists_of(&ix->lists, id);
    if (f->region && !has(l.v[L_REGIONS], l.n[L_REGIONS], f->region))
        return false;
    if (f->gpu_filter) {
        bool any = false;
        for (size_t i = 0; i < f->n_gpus && !any; i++)
            any = has(l.v[L_GPUS], l.n[L_GPUS], f->gpus[i]);
        if (!any)
            return false;
    }
    for (size_t i = 0; i < f->n_tags; i++) {
        if (!has(l.v[L_TAGS], l.n[L_TAGS], f->tags[i]))
            return false;
    }
    for (size_t i = 0; i < f->n_cons; i++) {
        bool any = false;
        for (size_t k = 0; k < l.n[L_COMP] && !any; k++) {
            uint32_t cv = l.v[L_COMP][k];
            any = (f->cons[i][cv / 64] >> (cv % 64)) & 1;
        }
        if (!any)
            return false;
    }
    return true;
}

/* The SQL filter of server/db/images.c (SEARCH_WHERE) over the image at pos. */
static bool matches(const struct imx_ix *ix, const struct filter *f, uint32_t pos)
{
    if (f->by_lists) {
        uint32_t id = ix->lists_at[pos];
        uint8_t *memo = &f->lists_memo[id];
        if (!*memo)
            *memo = lists_match(ix, f, id) ? 1 : 2;
        if (*memo == 2)
            return false;
    }
    if (f->by_attrs) {
        uint32_t id = ix->attrs_at[pos];
        uint8_t *memo = &f->attrs_memo[id];
        if (!*memo)
            *memo = attrs_match(ix, f, id) ? 1 : 2;
        if (*memo == 2)
            return false;
    }
    const struct img *m = &ix->imgs[pos];
    if ((f->family && m->family != f->family) ||
        (f->patch_status && m->patch_status != f->patch_status) ||
        (f->os_patch_status && m->os_patch_status != f->os_patch_status))
        return false;
    if (f->by_status) {
        bool revoked_now = m->revoke_us != IMX_IX_NO_TIME && m->revoke_us <= f->now_us;
        bool ok = (f->status && m->status == f->status && !revoked_now) ||
                  (f->status_revoked && revoked_now);
        if (!ok)
            return false;
    }
    return true;
}

/* ---- pages ---- */

static const char SORT_CODES[N_SORTS] = { 'p', 'f', 'b', 's' };

static bool all_digits(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

/* The cursor's key as a sort key; -1 when it is not of the sort's form (as SQL's casts). */
static int cursor_key(const struct imx_ix_query *q, struct sort_key *k)
{
    memset(k, 0, sizeof *k);
    k->id = q->after_id;
    const char *s = q->after_key;
    if (!s)
        return -1;
    char *end;
    errno = 0;
    switch (q->sort) {
    case IMX_IX_PUBLISHED_DESC:
        k->num = strtoll(s, &end, 10);
        return *s && *end == '\0' && errno == 0 ? 0 : -1;
    case IMX_IX_FAMILY:
        k->text = s;
        return 0;
    case IMX_IX_BOOT:
        if (!all_digits(s))
            return -1;
        k->num = strtoll(s, &end, 10);
        return errno == 0 && k->num <= INT32_MAX ? 0 : -1;
    case IMX_IX_SIZE:
        if (strcmp(s, "Infinity") == 0) {
            k->num = NO_SIZE;
            return 0;
        }
        return cents_of(s, &k->num);
    }
    return -1;
}

/* Writes the raw next-page key of image m: "code:id:key", as SQL's cursor. */
static void write_next(const struct imx_ix *ix, const struct img *m, enum imx_ix_sort sort,
                       char *out, size_t len)
{
    char c = SORT_CODES[sort];
    long long id = (long long)m->id;
    switch (sort) {
    case IMX_IX_PUBLISHED_DESC:
        snprintf(out, len, "%c:%lld:%lld", c, id, (long long)m->published_us);
        break;
    case IMX_IX_FAMILY:
        snprintf(out, len, "%c:%lld:%s", c, id, ix->s.v[m->family]);
        break;
    case IMX_IX_BOOT:
        snprintf(out, len, "%c:%lld:%d", c, id, (int)m->boot);
        break;
    case IMX_IX_SIZE:
        if (m->size_cents == NO_SIZE)
            snprintf(out, len, "%c:%lld:Infinity", c, id);
        else
            snprintf(out, len, "%c:%lld:%lld.%02lld", c, id, (long long)(m->size_cents / 100),
                     (long long)(m->size_cents % 100));
        break;
    }
}

/* Images walked in sort order before a search gathers its candidates instead. */
#define WALK_BUDGET 4096

void imx_ix_set_walk_budget(struct imx_ix *ix, uint32_t budget)
{
    ix->walk_budget = budget;
}

/* Adds the positions of posting p that match f and come after the cursor to c. */
static int gather_posting(const struct imx_ix *ix, const struct filter *f,
                          const struct imx_ix_query *q, const struct sort_key *after,
                          const struct posting *p, uint32_t **c, uint32_t *n, uint32_t *cap)
{
    for (uint32_t i = 0; i < p->n; i++) {
        uint32_t pos = p->pos[i];
        if (!matches(ix, f, pos))
            continue;
        if (after) {
            struct sort_key k = key_of(ix, &ix->imgs[pos], q->sort);
            if (key_cmp(&k, after, q->sort) <= 0)
                continue;
        }
        if (push_u32(c, n, cap, pos) != 0)
            return -1;
    }
    return 0;
}

/* The page from the images of the filter's family, or of the list shapes it accepts, sorted:
 * for a filter that leaves few images, spread over the order. Returns 0 or -1. */
static int page_by_gathering(const struct imx_ix *ix, const struct filter *f,
                             const struct imx_ix_query *q, const struct sort_key *after,
                             struct imx_ix_page *out)
{
    uint32_t *c = NULL;
    uint32_t n = 0, cap = 0;
    int rc = 0;
    if (f->family) {
        if (f->family < ix->by_family.n)
            rc = gather_posting(ix, f, q, after, &ix->by_family.v[f->family], &c, &n, &cap);
    } else {
        for (uint32_t id = 1; id < ix->by_lists.n && rc == 0; id++) {
            const struct posting *p = &ix->by_lists.v[id];
            if (p->n == 0)
                continue;
            uint8_t *memo = &f->lists_memo[id];
            if (!*memo)
                *memo = lists_match(ix, f, id) ? 1 : 2;
            if (*memo == 1)
                rc = gather_posting(ix, f, q, after, p, &c, &n, &cap);
        }
    }
    if (rc == 0) {
        struct sort_ctx ctx = { ix, q->sort };
        if (n > 1)
            qsort_r(c, n, sizeof *c, pos_cmp, &ctx);
        out->n = 0;
        out->next[0] = '\0';
        for (size_t i = 0; i < n && i < (size_t)q->limit; i++)
            out->ids[out->n++] = ix->imgs[c[i]].id;
        if (n > (size_t)q->limit)
            write_next(ix, &ix->imgs[c[q->limit - 1]], q->sort, out->next, sizeof out->next);
    }
    free(c);
    return rc;
}

int imx_ix_page(const struct imx_ix *ix, const struct imx_ix_query *q, struct imx_ix_page *out)
{
    out->n = 0;
    out->next[0] = '\0';
    if (q->limit < 1 || q->limit > IMX_IX_PAGE_MAX || (unsigned)q->sort >= N_SORTS || !ix->sealed)
        return -1;
    uint32_t place = 0;
    struct sort_key after;
    if (q->after) {
        if (cursor_key(q, &after) != 0)
            return -1;
        place = lower_place(ix, q->sort, &after, true);
    }
    struct filter f;
    if (filter_make(ix, q, &f) != 0)
        return -1;
    /* Walk the order from the cursor: a page of a broad search ends after a few hundred images.
     * A search whose matches are rare would walk the whole order; past the budget, one with a
     * family or list filter gathers its candidates from the postings and sorts them. */
    uint32_t budget = ix->walk_budget ? ix->walk_budget : WALK_BUDGET;
    bool can_gather = f.family || f.by_lists;
    const struct img *last = NULL;
    int rc = 0;
    for (uint32_t p = place; p < ix->n && !f.impossible; p++) {
        if (can_gather && p - place == budget) {
            rc = page_by_gathering(ix, &f, q, q->after ? &after : NULL, out);
            break;
        }
        uint32_t pos = ix->order[q->sort][p];
        if (!matches(ix, &f, pos))
            continue;
        const struct img *m = &ix->imgs[pos];
        if (out->n == (size_t)q->limit) {
            write_next(ix, last, q->sort, out->next, sizeof out->next);
            break;
        }
        out->ids[out->n++] = m->id;
        last = m;
    }
    filter_free(&f);
    return rc;
}

/* ---- facets ---- */

/* Appends to a growing buffer; a failed allocation leaves *buf NULL. */
struct text {
    char *buf;
    size_t len, cap;
};

static void put_raw(struct text *t, const char *s, size_t n)
{
    if (!t->buf)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap * 2;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b) {
            free(t->buf);
            t->buf = NULL;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static void put_str(struct text *t, const char *s)
{
    put_raw(t, s, strlen(s));
}

/* A JSON string as PostgreSQL's escape_json writes it. */
static void put_json_string(struct text *t, const char *s)
{
    static const char from[] = "\"\\\b\f\n\r\t", to[] = "\"\\bfnrt";
    put_raw(t, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *hit = strchr(from, *p);
        char esc[8];
        if (hit) {
            esc[0] = '\\';
            esc[1] = to[hit - from];
            put_raw(t, esc, 2);
        } else if (*p < ' ') {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            put_str(t, esc);
        } else {
            put_raw(t, (const char *)p, 1);
        }
    }
    put_raw(t, "\"", 1);
}

/* In the order of SQL stmt_facets (server/db/images.c): the two answers are byte-identical. */
enum { F_GPU, F_OS, F_PROVIDER, F_CUDA, F_DRIVER, F_FRAMEWORK, F_TAG, F_REGION, F_PATCH, N_FACETS };
static const char *const FACET_NAMES[N_FACETS] = {
    "gpu", "os", "provider", "cuda", "driver_branch", "framework", "tag", "region", "patch_status",
};

struct count {
    const char *value;
    uint64_t n;
};

static int count_cmp(const void *a, const void *b)
{
    const struct count *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return strcmp(x->value, y->value);
}

char *imx_ix_facets(const struct imx_ix *ix, const struct imx_ix_query *q)
{
    struct filter f;
    if (filter_make(ix, q, &f) != 0)
        return NULL;
    size_t n_ids = (size_t)ix->s.n + 1;
    /* Matching images per attribute tuple and per list shape, then per facet value. */
    uint32_t *per_attrs = calloc(ix->attrs.n + 1, sizeof *per_attrs);
    uint32_t *per_lists = calloc(ix->lists.n + 1, sizeof *per_lists);
    uint64_t *counts = calloc(n_ids * N_FACETS, sizeof *counts);
    uint64_t total = 0;
    struct text t = { .buf = malloc(1024), .cap = 1024 };
    if (!per_attrs || !per_lists || !counts || !t.buf)
        goto fail;
    t.buf[0] = '\0';
    for (uint32_t p = 0; p < ix->n && !f.impossible; p++) {
        if (matches(ix, &f, p)) {
            total++;
            per_attrs[ix->attrs_at[p]]++;
            per_lists[ix->lists_at[p]]++;
            /* Patch status changes per image, so it is counted per image, not per tuple. */
            counts[F_PATCH * n_ids + ix->imgs[p].patch_status]++;
        }
    }
    for (uint32_t id = 1; id <= ix->attrs.n; id++) {
        const uint32_t *a = seq_of(&ix->attrs, id);
        uint64_t c = per_attrs[id];
        if (!c)
            continue;
        counts[F_OS * n_ids + a[A_OS]] += c;
        counts[F_PROVIDER * n_ids + a[A_PROVIDER]] += c;
        if (a[A_CUDA])
            counts[F_CUDA * n_ids + a[A_CUDA]] += c;
        if (a[A_DRIVER])
            counts[F_DRIVER * n_ids + a[A_DRIVER]] += c;
    }
    static const struct {
        int facet, list;
    } from_lists[] = {
        { F_GPU, L_GPUS }, { F_TAG, L_TAGS }, { F_FRAMEWORK, L_FW }, { F_REGION, L_REGIONS }
    };
    for (uint32_t id = 1; id <= ix->lists.n; id++) {
        uint64_t c = per_lists[id];
        if (!c)
            continue;
        struct lists l = lists_of(&ix->lists, id);
        for (size_t k = 0; k < sizeof from_lists / sizeof from_lists[0]; k++) {
            for (uint32_t i = 0; i < l.n[from_lists[k].list]; i++)
                counts[(size_t)from_lists[k].facet * n_ids + l.v[from_lists[k].list][i]] += c;
        }
    }
    char num[48];
    snprintf(num, sizeof num, "%llu", (unsigned long long)total);
    put_str(&t, "{\"total\" : ");
    put_str(&t, num);
    for (int k = 0; k < N_FACETS; k++) {
        put_str(&t, ", ");
        put_json_string(&t, FACET_NAMES[k]);
        put_str(&t, " : ");
        const uint64_t *c = counts + (size_t)k * n_ids;
        size_t distinct = 0;
        for (size_t id = 1; id < n_ids; id++)
            distinct += c[id] != 0;
        if (distinct == 0) {
            put_str(&t, "[]");
            continue;
        }
        struct count *list = malloc(distinct * sizeof *list);
        if (!list)
            goto fail;
        size_t n = 0;
        for (size_t id = 1; id < n_ids; id++) {
            if (c[id])
                list[n++] = (struct count){ ix->s.v[id], c[id] };
        }
        qsort(list, n, sizeof *list, count_cmp);
        put_str(&t, "[");
        for (size_t i = 0; i < n; i++) {
            put_str(&t, i ? ", {\"value\" : " : "{\"value\" : ");
            put_json_string(&t, list[i].value);
            snprintf(num, sizeof num, ", \"count\" : %llu}", (unsigned long long)list[i].n);
            put_str(&t, num);
        }
        put_str(&t, "]");
        free(list);
    }
    put_str(&t, "}");
    free(per_attrs);
    free(per_lists);
    free(counts);
    filter_free(&f);
    return t.buf;
fail:
    free(per_attrs);
    free(per_lists);
    free(counts);
    free(t.buf);
    filter_free(&f);
    return NULL;
}

/* ---- lineage ---- */

/* Is x after y in (published_at, id) order? */
static bool published_after(const struct img *x, const struct img *y)
{
    return x->published_us != y->published_us ? x->published_us > y->published_us : x->id > y->id;
}

/* The newest usable image (active, not revoked) of p's family published after p, as 0061's
 * newer parent: its position; -1 for none; -2 when the newest candidate has a scheduled
 * revocation, so that the answer depends on when the database reads it. The family's positions
 * are in published order: a walk back from the newest, as 0061 reads its family index. */
static long newer_of(const struct imx_ix *ix, const struct img *p)
{
    uint32_t active = str_find(&ix->s, "active"), revoked = str_find(&ix->s, "revoked");
    if (!active || p->family >= ix->by_family.n)
        return -1;
    const struct posting *fam = &ix->by_family.v[p->family];
    for (uint32_t i = fam->n; i-- > 0;) {
        const struct img *x = &ix->imgs[fam->pos[i]];
        if (!published_after(x, p))
            return -1;
        if (x->status != active || (revoked && x->patch_status == revoked))
            continue;
        return x->revoke_us != IMX_IX_NO_TIME ? -2 : (long)fam->pos[i];
    }
    return -1;
}

/* Appends the tail of the entry at position e (see struct imx_ix_lineage). *newer_cache holds
 * the newer parent of the parent id *cached_parent (children share theirs). Returns 0 or -1. */
static int put_tail(const struct imx_ix *ix, const struct img *e, struct text *t,
                    int64_t *cached_parent, long *newer_cache)
{
    char num[64];
    long newer = -1;
    if (e->parent_id) {
        snprintf(num, sizeof num, ", \"parent_id\" : %lld", (long long)e->parent_id);
        put_str(t, num);
        long p = find_pos(ix, e->parent_id);
        if (p >= 0 && *cached_parent != e->parent_id) {
            *newer_cache = newer_of(ix, &ix->imgs[p]);
            *cached_parent = e->parent_id;
        }
        newer = p >= 0 ? *newer_cache : -1;
    } else {
        put_str(t, ", \"parent_id\" : null");
    }
    if (newer == -2)
        return -1;
    if (newer < 0) {
        put_str(t, ", \"outdated_parent\" : false, \"newer_parent\" : null}");
        return 0;
    }
    const struct img *x = &ix->imgs[newer];
    if (!x->version)
        return -1;
    snprintf(num, sizeof num, ", \"outdated_parent\" : true, \"newer_parent\" : {\"id\" : %lld",
             (long long)x->id);
    put_str(t, num);
    put_str(t, ", \"family\" : ");
    put_json_string(t, ix->s.v[x->family]);
    put_str(t, ", \"version\" : ");
    put_json_string(t, ix->s.v[x->version]);
    put_str(t, "}}");
    return 0;
}

int imx_ix_lineage(const struct imx_ix *ix, int64_t id, int64_t after, int limit,
                   struct imx_ix_lineage *out)
{
    out->tails = NULL;
    out->n_parents = out->n_children = 0;
    out->next_after = 0;
    if (limit < 1 || limit > IMX_IX_PAGE_MAX)
        return -1;
    long at = find_pos(ix, id);
    if (at < 0)
        return 1;
    uint32_t pos[IMX_IX_LINEAGE_MAX];
    size_t n = 0;
    pos[n++] = (uint32_t)at;
    for (const struct img *e = &ix->imgs[at];
         e->parent_id && out->n_parents < IMX_IX_LINEAGE_PARENTS_MAX; out->n_parents++) {
        long p = find_pos(ix, e->parent_id);
        if (p < 0)
            break;
        pos[n++] = (uint32_t)p;
        e = &ix->imgs[p];
    }
    for (uint32_t k = kid_lower(ix, id, after); k < ix->n_kids && ix->kids[k].parent == id; k++) {
        if (ix->kids[k].child <= after)
            continue;
        if (out->n_children == (size_t)limit) {
            out->next_after = ix->kids[k - 1].child; /* another follows the page */
            break;
        }
        long c = find_pos(ix, ix->kids[k].child);
        if (c < 0)
            return -1; /* every pair names an image of the index */
        pos[n++] = (uint32_t)c;
        out->n_children++;
    }
    struct text t = { malloc(256), 0, 256 };
    int64_t cached_parent = 0;
    long newer_cache = -1;
    for (size_t k = 0; k < n && t.buf; k++) {
        out->ids[k] = ix->imgs[pos[k]].id;
        out->tail_at[k] = t.len;
        if (put_tail(ix, &ix->imgs[pos[k]], &t, &cached_parent, &newer_cache) != 0) {
            free(t.buf);
            return -1;
        }
    }
    if (!t.buf)
        return -1;
    out->tail_at[n] = t.len;
    out->tails = t.buf;
    return 0;
}

/* ---- component keys ---- */

int imx_ix_key_from_num(const char *s, size_t len, int32_t key[IMX_VER_PARTS])
{
    enum { DIGITS = 9 * IMX_VER_PARTS };
    if (len == 0 || len > DIGITS)
        return -1;
    char padded[DIGITS];
    memset(padded, '0', sizeof padded);
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
    }
    memcpy(padded + DIGITS - len, s, len);
    for (int part = 0; part < IMX_VER_PARTS; part++) {
        int32_t v = 0;
        for (int d = 0; d < 9; d++)
            v = v * 10 + (padded[part * 9 + d] - '0');
        key[part] = v;
    }
    return 0;
}
