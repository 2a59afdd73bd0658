/* What the SQL search (server/db/images.c) shares with the in-memory one
 * (server/db/image_index.c): the page summaries, the GPU filter's models and the cursor's form. */
#ifndef IMX_DB_IMAGES_SEARCH_H
#define IMX_DB_IMAGES_SEARCH_H

#include "db/images.h"

/* Room for the models one gpu filter stands for, as an array literal. */
#define IMX_DBI_GPU_MODELS_MAX 2048

/* imx_image_summary() (migrations/0004_catalog.sql) of the images row t, inline: a call of the
 * SQL function per item costs more than the summary itself. Keep the two the same. */
#define SUMMARY_OF(t)                                                                              \
    "json_build_object('id', " t ".id, 'family', " t ".family, 'version', " t ".version,"          \
    " 'provider', " t ".provider, 'architecture', " t ".architecture,"                             \
    " 'os', json_build_object('name', " t ".os_name, 'version', " t ".os_version),"                \
    " 'layer', " t ".layer, 'status', imx_image_status(" t ".status, " t ".revoke_at),"            \
    " 'patch_status', " t ".patch_status, 'published_at', " t ".published_at,"                     \
    " 'boot_seconds', " t ".boot_seconds, 'size_gb', " t ".size_gb,"                               \
    " 'components', " t ".components, 'gpus', to_json(" t ".gpus),"                                \
    " 'regions', to_json(" t ".regions), 'tags', to_json(" t ".tags))"

/* The summary stored on the row (migrations/0009_image_summary.sql: built in UTC with the stored
 * status) where it is the same text: no revoke_at, and a session that renders timestamps in UTC;
 * otherwise built here (building 50 summaries was half of a page's execution, bench/RESULTS.md). */
#define STORED_SUMMARY_OF(t)                                                                       \
    "CASE WHEN " t ".summary IS NOT NULL AND " t ".revoke_at IS NULL"                              \
    " AND current_setting('TimeZone') IN ('UTC', 'Etc/UTC') THEN " t ".summary"                    \
    " ELSE " SUMMARY_OF(t) " END"

/* The models a gpu filter stands for by the reference data (a PostgreSQL array literal, into
 * out, with the name itself), as of the reference generation given (cached per process; looked
 * up on a miss). *known is false when no reference row knows the name: then the spellings stored
 * for it in any ASCII case count too, and the caller adds them. */
enum imx_db_status imx_db_gpu_models_at(struct imx_db_conn *c, const char *gpu,
                                        long long generation, char out[IMX_DBI_GPU_MODELS_MAX],
                                        bool *known);

/* Splits a raw cursor "code:id:key" of sort into its id (digits, into id_text) and key
 * (borrowed from cursor), checking the key's form. Returns 0 or -1. */
int imx_db_search_cursor_parse(const char *cursor, enum imx_image_sort sort, char id_text[24],
                               const char **key);

#endif /* IMX_DB_IMAGES_SEARCH_H */
