/* SQL for security advisories and patch status: publish, revise and withdraw (the use cases of
 * migrations/procedures/advisory_publish.sql), get, search, the affected images, and an image's
 * patch report. Every function runs one prepared statement and returns its status with typed
 * outputs or finished JSON text; string arguments are borrowed, NULL is SQL NULL. */
#ifndef IMX_DB_ADVISORIES_H
#define IMX_DB_ADVISORIES_H

#include <stdbool.h>

#include "db/images.h"
#include "db/pool.h"

/* The statement limit of publishing, revising and withdrawing an advisory (their cost follows
 * the images the advisory affects: 3.4 s for 39,474 of 100,000), instead of the pool's
 * IMAXE_STATEMENT_TIMEOUT_MS. Call once at start-up. */
void imx_db_advisory_set_timeout(unsigned ms);

/* Publishes (revision NULL) or revises an advisory from doc, JSON text {"id","title","published"
 * (YYYY-MM-DD),"severity","cvss"|null,"cves":[...],"url"|null,"source":"imaxe"|"osv",
 * "affected":[{"component","range","lo","lo_incl","hi","hi_incl","fixed"|null}]} where lo/hi are
 * int[6] literals (imx_constraint_sql_bounds, unbounded ends as the smallest/largest key). On a
 * revision (the decimal revision the client read) only the keys present change, and "affected"
 * replaces every range. One row: JSON {"outcome": "created" | "revised" | "not_found" |
 * "withdrawn" | "stale", "revision", "affected_images", "patch_status_changed", "patch_events"}.
 * The affected images' patch statuses, pins and patch.available events follow in the same
 * statement -> that JSON in outcome. IMX_DBS_CONFLICT: the id exists (publish); cause
 * IMX_DBC_VALUE: a bad value (the failure's detail in *why when asked). */
enum imx_db_status imx_db_advisory_publish(struct imx_db_conn *c, const char *doc,
                                           const char *user_id, const char *revision,
                                           struct imx_db_json *outcome, struct imx_db_fault *why);

/* Withdraws advisory id (reason may be NULL; revision NULL: any). One row: JSON {"outcome":
 * "withdrawn" | "not_found" | "already_withdrawn" | "stale", "revision", "patch_status_changed"}.
 */
enum imx_db_status imx_db_advisory_withdraw(struct imx_db_conn *c, const char *id,
                                            const char *reason, const char *revision,
                                            struct imx_db_json *outcome, struct imx_db_fault *why);

/* One advisory -> JSON {id, title, published, severity, cvss, cves, url, source, created_at,
 * revision, updated_at, withdrawn_at, withdrawn_reason, affected:[{component, range, fixed}],
 * affected_images} in doc, and its ETag text "<revision>.<risk>" (imx_advisory_risk_tag: what the
 * KEV and EPSS feeds make it show) in revision (IMX_DBS_NOT_FOUND: no such id). */
enum imx_db_status imx_db_advisory_get(struct imx_db_conn *c, const char *id, char revision[24],
                                       struct imx_db_json *doc);

/* One page of the images it affects, in (family, published_at, id) order after the key after
 * (family, published_at, id as text; all NULL: from the first), at most limit -> JSON {advisory,
 * families:[{family, images:[{id, version, status, patch_status, published_at, fixed_by:{id,
 * family, version}|null}]}]}, and the last image's key as a JSON array when more follow (else
 * NULL), as a page of one row (imx_api_reply_doc_page); no row: no such id. */
enum imx_db_status imx_db_advisory_affected(struct imx_db_conn *c, const char *id,
                                            const char *const after[3], const char *limit,
                                            struct imx_db_page *out);

/* The same images one a row, for an export: (key, image JSON with its advisory and family) in
 * (family, published_at, id) order after the key after (a previous row's column 0; NULL: from the
 * first), at most limit rows. */
enum imx_db_status imx_db_advisory_affected_rows(struct imx_db_conn *c, const char *id,
                                                 const char *after, const char *limit,
                                                 struct imx_db_page *out);

/* Search filters (NULL: none): component (an affected range names it), severity, published on
 * or after from / on or before to (YYYY-MM-DD), cve (listed), kev ("true": one of its CVEs is in
 * the KEV catalog, "false": none), min_epss (one of its CVEs scores at least this). */
struct imx_db_advisory_filter {
    const char *component, *severity, *from, *to, *cve, *kev, *min_epss;
};

/* Search -> a page of (key columns, advisory JSON), at most limit + 1 (the extra one says a next
 * page exists). Newest first, keyed (published, id): after_a + after_b from the last row of the
 * previous page; or by_risk, in the KEV catalog first, then by EPSS, keyed by one text column
 * (after_a; after_b NULL). */
enum imx_db_status imx_db_advisory_list(struct imx_db_conn *c,
                                        const struct imx_db_advisory_filter *f, bool by_risk,
                                        const char *after_a, const char *after_b, const char *limit,
                                        struct imx_db_page *out);

/* GET /v1/images/{id}/patch -> JSON {image_id, family, version, status, advisories:[{id, title,
 * severity, cves, fixed_by:{id, family, version}|null, still_open_in_fix:[advisory ids]}]} (NULL:
 * no such image: IMX_DBS_NOT_FOUND), with the auth epoch it was read at; nodes: with "nodes",
 * the running nodes (every team's) that booted it, counted when read. */
enum imx_db_status imx_db_image_patch(struct imx_db_conn *c, const char *image_id, bool nodes,
                                      struct imx_db_json *doc, long long *epoch);
/* The same document read by a statement shared with the other patch reads waiting
 * (db/read_batch.c): the caller holds no connection meanwhile. IMX_DBS_OK with *out filled (json
 * borrowed from out->owner until imx_db_batch_unref), IMX_DBS_NOT_FOUND (no such image; epoch
 * set, nothing to free), or a failure. */
struct imx_db_batch;
struct imx_db_patch_doc {
    struct imx_db_batch *owner;
    long long epoch; /* the auth epoch of the same snapshot */
    const char *json;
    size_t len;
};
enum imx_db_status imx_db_image_patch_batched(long long image_id, struct imx_db_patch_doc *out);
/* The same without waiting, for a fast handler: queued, wake(cls) called on another thread once
 * it is read; imx_db_image_patch_result then gives what imx_db_image_patch_batched returns (once).
 * NULL when memory is short. */
struct imx_db_texts_call;
struct imx_db_texts_call *imx_db_image_patch_start(long long image_id, void (*wake)(void *cls),
                                                   void *cls);
enum imx_db_status imx_db_image_patch_result(struct imx_db_texts_call *c,
                                             struct imx_db_patch_doc *out);
void imx_db_image_patch_call_free(void *call);
/* Statements the batched patch reads were read with, and documents they read (/metrics). */
void imx_db_image_patch_stats(unsigned long long *reads, unsigned long long *docs);

/* For POST /v1/advisories:reapply: the CSAF advisories (not withdrawn) that list unmapped
 * products or have a range of a component ref_version_alias numbers two ways, by id after after
 * (NULL: from the first), at most limit -> one JSON array
 * [{id, revision, unmapped, warnings, affected:[{component, range, fixed}], doc: the bulletin as
 * posted, or null when none was kept}]. */
enum imx_db_status imx_db_advisory_reapply_batch(struct imx_db_conn *c, const char *after,
                                                 const char *limit, struct imx_db_json *out);

#endif
