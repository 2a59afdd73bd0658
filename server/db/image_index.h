/* The process's in-memory search index (server/domain/image_index.h), loaded from PostgreSQL and
 * kept exactly current (migrations/0010_search_index.sql): searches without full text are
 * answered from it, with one statement that reads the page's stored summaries and checks, in the
 * same snapshot, that nothing was committed to the catalog since the index was made. */
#ifndef IMX_DB_IMAGE_INDEX_H
#define IMX_DB_IMAGE_INDEX_H

#include <stdbool.h>

#include "db/images.h"
#include "db/pool.h"

/* Turns the index on (IMAXE_SEARCH_INDEX=1) or off, and starts loading it in the background
 * when on; walk is imx_ix_set_walk_budget's (IMAXE_SEARCH_INDEX_WALK). Call once, after the
 * pools exist and before serving. Returns 0 or -1. */
int imx_db_image_index_start(bool enabled, unsigned walk);

/* Waits for the background load and frees the index. */
void imx_db_image_index_stop(void);

/* Answers the search s from the index when it can (c is a primary connection): *served is then
 * true, and *page (and, when want_facets, *facets) are as imx_db_image_search and
 * imx_db_image_facets would give, byte for byte. *served stays false (and nothing is allocated)
 * when the caller should run the SQL search: the index is off or not loaded yet, another thread is
 * bringing it up to date, c is from the read replica, or s has q. Returns IMX_DBS_OK or a failure
 * of the database. Outputs are new (free() them). When served, *epoch is the auth epoch read in
 * the same statement (for imx_auth_confirm). */
enum imx_db_status imx_db_image_search_indexed(struct imx_db_conn *c,
                                               const struct imx_image_search *s, bool want_facets,
                                               char **page, char **facets, bool *served,
                                               long long *epoch, struct imx_db_fault *why);

/* What a resolve by family read: with served, either the newest matching image (its summary
 * and its artifact id in the region, new strings), or, both NULL, why nothing matched: the first
 * filter that left nothing, in the SQL resolve's words and order (emptied_by "family", "status",
 * "region", "arch" or "constraint", then constraint is its index among the request's); and the
 * auth epoch read with it. served false: the caller runs the SQL resolve (the reference). */
struct imx_db_resolved {
    bool served;
    char *summary, *artifact_id;
    const char *emptied_by; /* static text */
    size_t constraint;
    long long epoch;
};
void imx_db_resolved_free(struct imx_db_resolved *r);

/* Resolve (family, region, arch, constraints) from the index: the image it finds, or the filter
 * that emptied the set, with the auth epoch, read by a statement shared with the other resolves
 * waiting (db/read_batch.c; the caller holds no connection meanwhile, and the index catches up on
 * one of the pool's), so that the answer is the state it was checked against. out->served false
 * only when the index cannot answer: it is off, a query it does not take, or it could not catch up
 * with what was committed meanwhile (twice). */
enum imx_db_status imx_db_image_resolve_indexed(const struct imx_image_resolve *rq,
                                                struct imx_db_resolved *out);

/* The same without waiting, for a fast handler: looks in the index and queues the read; wake(cls)
 * is called on another thread once it is read, and imx_db_image_resolve_result then gives what
 * imx_db_image_resolve_indexed would (out->served false: run that, which catches the index up).
 * NULL when the index cannot answer here (off, not loaded, out of memory): the caller runs
 * imx_db_image_resolve_indexed. */
struct imx_db_resolve_call;
struct imx_db_resolve_call *imx_db_image_resolve_start(const struct imx_image_resolve *rq,
                                                       void (*wake)(void *cls), void *cls);
enum imx_db_status imx_db_image_resolve_result(struct imx_db_resolve_call *c,
                                               struct imx_db_resolved *out);
/* Frees a call after its wake. */
void imx_db_resolve_call_free(void *call);
/* Statements the resolves were read with, and resolves they answered, since start (/metrics). */
void imx_db_resolve_stats(unsigned long long *reads, unsigned long long *answered);

/* A page of image id's lineage (as imx_db_image_lineage: at most limit children with ids after
 * after, 0 for the first page) made from the index and the summaries of its entries, read with
 * the index's state and the auth epoch in one statement: on c, or with c NULL by a statement
 * shared with the other lineages waiting (db/read_batch.c; the index catches up, and the rare
 * summary built from scratch is read, on a connection of the pool's). *served false when the
 * caller should
 * read it in SQL: the index is off, not loaded or being brought up to date, c is from the read
 * replica, the image is not in the index (SQL says not found), or the index cannot answer
 * exactly (a scheduled revocation that decides a newer parent). Free *out with
 * imx_db_lineage_free. */
enum imx_db_status imx_db_image_lineage_indexed(struct imx_db_conn *c, long long id,
                                                long long after, unsigned limit,
                                                struct imx_db_lineage *out, bool *served,
                                                struct imx_db_fault *why);
/* The same without waiting, for a fast handler (with c NULL): the index's answer on the calling
 * thread, the summaries' read queued; wake(cls) is called on another thread once it is read, and
 * imx_db_image_lineage_result then gives what imx_db_image_lineage_indexed would (*served false:
 * run that). NULL when the index cannot answer here (off, not loaded, no such image, not exactly
 * answerable, out of memory). */
struct imx_db_lineage_call;
struct imx_db_lineage_call *imx_db_image_lineage_start(long long id, long long after,
                                                       unsigned limit, void (*wake)(void *cls),
                                                       void *cls);
enum imx_db_status imx_db_image_lineage_result(struct imx_db_lineage_call *c,
                                               struct imx_db_lineage *out, bool *served);
/* Frees a call after its wake. */
void imx_db_lineage_call_free(void *call);
/* Statements the shared lineage reads were read with, and lineages they answered (/metrics). */
void imx_db_lineage_read_stats(unsigned long long *reads, unsigned long long *answered);

/* Counts SQL searches (the caller ran SQL because *served was false). */
void imx_db_image_index_count_sql(void);

/* Counts lineages read in SQL (imx_db_image_lineage_indexed did not serve them). */
void imx_db_image_index_count_lineage_sql(void);

struct imx_db_image_index_stats {
    long long images; /* -1: not loaded or turned off */
    unsigned long long bytes, searches_indexed, searches_sql, loads, catchups;
    unsigned long long lineages_indexed, lineages_sql;
};

void imx_db_image_index_stats(struct imx_db_image_index_stats *st);

#endif /* IMX_DB_IMAGE_INDEX_H */
