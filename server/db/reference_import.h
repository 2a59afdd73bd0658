/* SQL of a reference data import (imaxe-server reference import / export): the import procedure,
 * the images whose stored reports it may change, and the data version in use. Each function
 * returns its status, and, when why is not NULL, the failure's detail in *why. */
#ifndef IMX_DB_REFERENCE_IMPORT_H
#define IMX_DB_REFERENCE_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "db/pool.h"

/* Runs imx_ref_import() in the caller's transaction: tables_json {"ref_gpu":[{column: text}]},
 * version the data version's name, user_id and request_id the actor for the audit entry (NULL:
 * the command line) -> the changes {table: {added, changed, removed}} as JSON text. Failures
 * (by cause in *why): IMX_DBC_UNKNOWN_TABLE, IMX_DBC_UNKNOWN_COLUMN,
 * IMX_DBC_NOT_NULL (a missing column or NOT NULL value), IMX_DBC_FOREIGN_KEY (a removal a foreign
 * key needs), IMX_DBC_UNIQUE/IMX_DBC_CARDINALITY (a key twice), IMX_DBC_CHECK/IMX_DBC_VALUE (bad
 * values; MESSAGE 'contradictory reference rows' and DETAIL a JSON array of {table, detail} for
 * rows that contradict each other or the architecture table); its detail and message name them. */
enum imx_db_status imx_db_ref_import(struct imx_db_conn *c, const char *tables_json,
                                     const char *version, const char *user_id,
                                     const char *request_id, struct imx_db_json *changes,
                                     struct imx_db_fault *why);

/* Up to limit images with a stored compatibility report and an id above after_id, by id, as one
 * JSON text: [{id, components:[{name, version}], gpus:[...], compatibility}]. */
enum imx_db_status imx_db_ref_images_after(struct imx_db_conn *c, long long after_id, int limit,
                                           struct imx_db_json *out, struct imx_db_fault *why);

/* As imx_db_ref_images_after, for the images with a component inside one of the version
 * prefixes of prefixes_json: [{"name": "cudnn", "version": "9.8.0", "parts": 3}]. */
enum imx_db_status imx_db_ref_images_scoped_after(struct imx_db_conn *c, long long after_id,
                                                  int limit, const char *prefixes_json,
                                                  struct imx_db_json *out,
                                                  struct imx_db_fault *why);

/* An image whose stored report a page changed. */
struct imx_db_report_change {
    long long image_id;
    bool was_ok, now_ok; /* whether its previous, and its new, report was ok */
};

/* A page of recomputed reports: image ids[i] ("{1,2,3}") gets the report reports_json[k]
 * (a JSON array) where k = report_of[i] ("{0,0,1}", from 0), stored where its findings differ,
 * each with its image.compatibility_changed event -> the changed images by id (*changes: n of
 * them, malloc'd; free it). */
enum imx_db_status imx_db_ref_page_reports(struct imx_db_conn *c, const char *ids,
                                           const char *reports_json, const char *report_of,
                                           const char *version,
                                           struct imx_db_report_change **changes, size_t *n,
                                           struct imx_db_fault *why);

/* After reports changed: ok, the open requests the images of ids now satisfy are matched
 * (imx_request_match_images, with request.updated); not ok, their open requests' matches are
 * dropped. */
enum imx_db_status imx_db_ref_requests_after_report(struct imx_db_conn *c, const char *ids, bool ok,
                                                    struct imx_db_fault *why);

/* A reference table (a name from imx_db_ref_table) as text: {"columns", "rows"}. */
enum imx_db_status imx_db_ref_export(struct imx_db_conn *c, const char *table,
                                     struct imx_db_json *out, struct imx_db_fault *why);

/* The data version in use: {"data_version", "loaded_at", "generation", "changed_at"}. */
enum imx_db_status imx_db_ref_data_version(struct imx_db_conn *c, struct imx_db_json *out,
                                           struct imx_db_fault *why);

#endif
