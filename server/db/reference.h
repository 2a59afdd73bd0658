/* The reference-data snapshot for the compatibility validator, loaded from the ref_ tables and
 * cached per process; reloaded when ref_generation moves (an admin edit on any replica). */
#ifndef IMX_DB_REFERENCE_H
#define IMX_DB_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "db/pool.h"
#include "domain/compat.h"

/* Returns a new reference to the current snapshot: the cached one when ref_generation is
 * unchanged (one small query), else a fresh one loaded with one query whose JSON PostgreSQL
 * builds. The snapshot stays valid, unchanged, until released, even if a newer one replaces it in
 * the cache meanwhile. Returns NULL with a message in err (when err is not NULL) if PostgreSQL
 * fails or the data cannot be read; the message holds no SQL. Thread-safe. */
const struct imx_ref_snapshot *imx_db_ref_acquire(struct imx_db_conn *c, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* Gives back a reference from imx_db_ref_acquire (NULL is ignored). */
void imx_db_ref_release(const struct imx_ref_snapshot *snap);

/* Forgets the cached snapshot (for shutdown and tests); references still held stay valid. */
void imx_db_ref_cache_clear(void);

/* The table behind an API name ("gpu" -> "ref_gpu") written into buf, or NULL when name is not
 * one of the reference tables. */
const char *imx_db_ref_table(const char *name, char *buf, size_t len);

/* One page {"items":[row...]} of a reference table (a name from imx_db_ref_table) in primary-key
 * order after the key after (a JSON object of the key's columns; NULL: from the first), at most
 * limit rows, as a page of one row: the page's JSON text in column 0, column 1 the last row's
 * key ([object]) when more follow, else NULL (imx_api_reply_doc_page). */
enum imx_db_status imx_db_ref_rows(struct imx_db_conn *c, const char *table, const char *after,
                                   const char *limit, struct imx_db_page *out,
                                   struct imx_db_fault *why);

/* Inserts a row (is_update false) or updates, by the primary key it names, the columns row_json
 * names (is_update true) -> the stored row as JSON; IMX_DBS_NOT_FOUND when no row had that key.
 * Failures, by cause in *why when asked: IMX_DBC_UNKNOWN_COLUMN (detail: the names),
 * IMX_DBC_NOT_NULL (a missing key or NOT NULL column), IMX_DBC_UNIQUE (a duplicate key),
 * IMX_DBC_CHECK/IMX_DBC_VALUE/IMX_DBC_GENERATED_COLUMN (bad values). */
enum imx_db_status imx_db_ref_write(struct imx_db_conn *c, const char *table, const char *row_json,
                                    bool is_update, struct imx_db_json *stored,
                                    struct imx_db_fault *why);

#endif
