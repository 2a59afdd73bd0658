/* SQL of a reference data import (imaxe-server reference import / export): the import procedure,
 * the images whose stored reports it may change, and the data version in use. */
#ifndef IMX_DB_REFERENCE_IMPORT_H
#define IMX_DB_REFERENCE_IMPORT_H

#include <libpq-fe.h>
#include <stdbool.h>

#include "db/pool.h"

/* Runs imx_ref_import() in the caller's transaction: tables_json {"ref_gpu":[{column: text}]},
 * version the data version's name, user_id and request_id the actor for the audit entry (NULL:
 * the command line). Column 0: the
 * changes {table: {added, changed, removed}} as JSON text. Failures: 42P01 unknown table, 42703
 * unknown column, 23502 missing column or NOT NULL value, 23503 a removal a foreign key needs,
 * 23514 with MESSAGE 'contradictory reference rows' rows that contradict each other or the
 * architecture table (DETAIL a JSON array of {table, detail}),
 * 23505/21000 a key twice, 23514/22xxx bad values (DETAIL and the message name them). New
 * result (PQclear it). */
PGresult *imx_db_ref_import(struct imx_db_conn *c, const char *tables_json, const char *version,
                            const char *user_id, const char *request_id);

/* Up to limit images with a stored compatibility report and an id above after_id, by id, as one
 * JSON text in column 0: [{id, components:[{name, version}], gpus:[...], compatibility}]. */
PGresult *imx_db_ref_images_after(struct imx_db_conn *c, long long after_id, int limit);

/* As imx_db_ref_images_after, for the images with a component inside one of the version
 * prefixes of prefixes_json: [{"name": "cudnn", "version": "9.8.0", "parts": 3}]. */
PGresult *imx_db_ref_images_scoped_after(struct imx_db_conn *c, long long after_id, int limit,
                                         const char *prefixes_json);

/* A page of recomputed reports: image ids[i] ("{1,2,3}") gets the report reports_json[k]
 * (a JSON array) where k = report_of[i] ("{0,0,1}", from 0), stored where its findings differ,
 * each with its image.compatibility_changed event. Rows: (changed id, "t"/"f" whether its
 * previous report was ok, "t"/"f" whether the new one is, event id), by id. */
PGresult *imx_db_ref_page_reports(struct imx_db_conn *c, const char *ids, const char *reports_json,
                                  const char *report_of, const char *version);

/* After reports changed: ok, the open requests the images of ids now satisfy are matched
 * (imx_request_match_images, with request.updated); not ok, their open requests' matches are
 * dropped. Column 0: how many. */
PGresult *imx_db_ref_requests_after_report(struct imx_db_conn *c, const char *ids, bool ok);

/* A reference table (a name from imx_db_ref_table) as text: column 0 {"columns", "rows"}. */
PGresult *imx_db_ref_export(struct imx_db_conn *c, const char *table);

/* The data version in use: column 0 {"data_version", "loaded_at", "generation", "changed_at"}. */
PGresult *imx_db_ref_data_version(struct imx_db_conn *c);

#endif
