/* The reference-data snapshot for the compatibility validator, loaded from the ref_ tables and
 * cached per process; reloaded when ref_generation moves (an admin edit on any replica). */
#ifndef IMX_DB_REFERENCE_H
#define IMX_DB_REFERENCE_H

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

#endif
