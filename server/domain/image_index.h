/* The catalog's search keys held in memory: filters, keyset pages and facet counts over every
 * image without a query per row (bench/RESULTS.md). Pure C, no I/O: server/db/image_index.c fills
 * it from PostgreSQL and keeps it current; the results are the same as the SQL search's
 * (server/db/images.c), which tests/integration/test_search_index.c checks byte for byte. */
#ifndef IMX_DOMAIN_IMAGE_INDEX_H
#define IMX_DOMAIN_IMAGE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "domain/version.h"

#if defined(__GNUC__)
#define IMX_IX_MUST_CHECK __attribute__((warn_unused_result))
#else
#define IMX_IX_MUST_CHECK
#endif

/* Bounds on one image's lists (the manifest allows 64 of each) and on one query. */
#define IMX_IX_LIST_MAX        255
#define IMX_IX_QUERY_GPUS_MAX  64
#define IMX_IX_QUERY_TAGS_MAX  8
#define IMX_IX_QUERY_CONS_MAX  16
#define IMX_IX_PAGE_MAX        200
#define IMX_IX_CURSOR_TEXT_MAX 160 /* "code:id:key" of a page's last row */

/* No revoke_at. */
#define IMX_IX_NO_TIME INT64_MAX

/* One component of a row: its name and its version's key (the parts of SQL
 * imx_version_key_num(), as stored in images.component_keys). */
struct imx_ix_component {
    const char *name;
    int32_t key[IMX_VER_PARTS];
};

/* One image as read from the images row. Strings are borrowed for the call to imx_ix_put. */
struct imx_ix_row {
    int64_t id;
    int64_t parent_id;   /* 0: none */
    const char *version; /* NULL: unknown (then lineage is not answered from the index) */
    const char *family, *provider, *architecture, *os_name, *os_version, *layer;
    const char *status, *patch_status;
    const char *os_patch_status; /* "unknown" when the image has no package inventory */
    int64_t published_us;        /* microseconds since the epoch, as the published_at cursor */
    int64_t revoke_us;           /* IMX_IX_NO_TIME when none */
    int32_t boot_seconds;        /* < 0: unknown */
    const char *size_text;       /* numeric text ("40.50"), NULL when unknown */
    const char *facet_cuda;      /* "12.8" or NULL */
    const char *facet_driver;    /* "R580" or NULL */
    const char *const *gpus;     /* canonical models as stored */
    const char *const *regions;  /* where it has an artifact */
    const char *const *tags;
    const char *const *frameworks; /* facet values, "pytorch 2.9" */
    const struct imx_ix_component *components;
    size_t n_gpus, n_regions, n_tags, n_frameworks, n_components;
};

enum imx_ix_sort { IMX_IX_PUBLISHED_DESC, IMX_IX_FAMILY, IMX_IX_BOOT, IMX_IX_SIZE };

/* A search. NULL strings and zero counts are no filter. Strings are borrowed for the call. */
struct imx_ix_query {
    const char *family, *provider, *region, *architecture, *os_name, *os_version;
    const char *layer, *patch_status;
    const char *os_patch_status; /* as the row's ("unknown": none) */
    const char *status; /* NULL: any status; else active, deprecated or revoked, counted at now */
    int64_t now_us;
    bool gpu_filter; /* gpus lists the models a gpu filter stands for (maybe none) */
    const char *gpus[IMX_IX_QUERY_GPUS_MAX];
    size_t n_gpus;
    const char *gpu_any_case; /* with gpu_filter: GPU names equal to this in any ASCII case too */
    const char *tags[IMX_IX_QUERY_TAGS_MAX]; /* all must be present */
    size_t n_tags;
    const char *con_names[IMX_IX_QUERY_CONS_MAX]; /* each has that component inside cons[i] */
    struct imx_constraint cons[IMX_IX_QUERY_CONS_MAX];
    size_t n_cons;
    enum imx_ix_sort sort;
    bool after; /* continue after the row (after_id, after_key) of this sort */
    int64_t after_id;
    const char *after_key; /* the cursor's key text for this sort */
    int limit;             /* 1..IMX_IX_PAGE_MAX */
};

/* One page: the ids in order, and the raw key of the next page ("" when this is the last). */
struct imx_ix_page {
    int64_t ids[IMX_IX_PAGE_MAX];
    size_t n;
    char next[IMX_IX_CURSOR_TEXT_MAX];
};

struct imx_ix;

/* A new, empty index, or NULL when out of memory. Fill it with imx_ix_put, then imx_ix_seal it
 * before the first query; puts after that keep it sorted one row at a time. */
IMX_IX_MUST_CHECK struct imx_ix *imx_ix_new(void);

/* Sorts what was put so far (once, after a bulk load). */
void imx_ix_seal(struct imx_ix *ix);

/* Frees ix and everything in it. NULL is a no-op. */
void imx_ix_free(struct imx_ix *ix);

/* Adds a row, or replaces the row with the same id. Returns 0, or -1 (out of memory, or a
 * list longer than IMX_IX_LIST_MAX; the index is then unchanged). */
IMX_IX_MUST_CHECK int imx_ix_put(struct imx_ix *ix, const struct imx_ix_row *row);

/* Makes room for this many images in all, so that a bulk load does not grow by copying.
 * Returns 0 or -1. */
IMX_IX_MUST_CHECK int imx_ix_reserve(struct imx_ix *ix, size_t images);

/* Does the index hold image id? */
bool imx_ix_has(const struct imx_ix *ix, int64_t id);

/* Number of images. */
size_t imx_ix_count(const struct imx_ix *ix);

/* Bytes held (for logs and the bench). */
size_t imx_ix_bytes(const struct imx_ix *ix);

/* The page q asks for (ix sealed). Returns 0, or -1 when q is malformed (limit out of range, a
 * cursor key that is not of its sort's form), asks more than a query holds (more than
 * IMX_IX_QUERY_GPUS_MAX GPU names with gpu_any_case's), or memory ran out. */
IMX_IX_MUST_CHECK int imx_ix_page(const struct imx_ix *ix, const struct imx_ix_query *q,
                                  struct imx_ix_page *out);

/* How many images a page walks in sort order before it gathers its candidates from the
 * family or list-shape postings instead (0: the default, 4096). For tests of both paths. */
void imx_ix_set_walk_budget(struct imx_ix *ix, uint32_t budget);

/* Facet counts over every image matching q (sort, cursor and limit ignored; NULL as for
 * imx_ix_page's -1, or out of memory), as the text SQL
 * json_build_object would make: {"total" : n, "gpu" : [{"value" : "H100", "count" : 3}, ...],
 * "os", "provider", "cuda", "driver_branch", "framework", "tag"}, each list by count descending
 * then value (byte order). Returns new text (free() it), or NULL when out of memory. */
IMX_IX_MUST_CHECK char *imx_ix_facets(const struct imx_ix *ix, const struct imx_ix_query *q);

/* Parents a lineage lists at most (SQL imx_image_lineage's depth,
 * migrations/functions/lineage.sql). */
#define IMX_IX_LINEAGE_PARENTS_MAX 64
#define IMX_IX_LINEAGE_MAX         (1 + IMX_IX_LINEAGE_PARENTS_MAX + IMX_IX_PAGE_MAX)

/* A page of an image's lineage as SQL imx_image_lineage (functions/lineage.sql) makes it: ids[0]
 * the image, then its parents nearest first, then its children by id. Each entry's tail is what
 * that function puts after its summary's members: ', "parent_id" : ..., "outdated_parent" : ...,
 * "newer_parent" : ...}' (newer_parent: the newest usable image of the parent's family newer
 * than the parent, as {"id" : n, "family" : "...", "version" : "..."}). */
struct imx_ix_lineage {
    int64_t ids[IMX_IX_LINEAGE_MAX];
    size_t n_parents, n_children;
    int64_t next_after;                     /* the last child shown when more follow, else 0 */
    char *tails;                            /* new: the tails, one after another */
    size_t tail_at[IMX_IX_LINEAGE_MAX + 1]; /* entry k's tail is tails[tail_at[k]..tail_at[k+1]) */
};

/* The lineage page of image id (ix sealed): at most limit (1..IMX_IX_PAGE_MAX) children with
 * ids after after (0: from the first). Returns 0 with *out filled (free out->tails); 1 when the
 * index has no such image; -1 when the index cannot answer exactly: an image whose scheduled
 * revocation could make it the newer parent at now (the answer depends on the database's
 * clock), a version the index was not given, a bad limit, or out of memory. */
IMX_IX_MUST_CHECK int imx_ix_lineage(const struct imx_ix *ix, int64_t id, int64_t after, int limit,
                                     struct imx_ix_lineage *out);

/* Parses the decimal text of SQL imx_version_key_num() (0..10^54-1) into key parts. Returns 0,
 * or -1 when s is not such a number. */
IMX_IX_MUST_CHECK int imx_ix_key_from_num(const char *s, size_t len, int32_t key[IMX_VER_PARTS]);

#endif /* IMX_DOMAIN_IMAGE_INDEX_H */
