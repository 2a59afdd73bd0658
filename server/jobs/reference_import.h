/* A reference data import as one use case, for `imaxe-server reference import` and
 * POST /v1/reference/import: CSV tables in, the ref_ tables replaced, and every stored
 * compatibility report whose findings change recomputed, with its event. */
#ifndef IMX_JOBS_REFERENCE_IMPORT_H
#define IMX_JOBS_REFERENCE_IMPORT_H

#include <jansson.h>
#include <stddef.h>

#include "db/pool.h"

/* The API names of the tables an import takes, parents first: "gpu" is ref_gpu and gpu.csv. */
extern const char *const imx_refimp_tables[];
extern const size_t imx_refimp_n_tables;

/* Parses csv ({"gpu": "gpu_model,full_name,...\n...", ...}: API table names to CSV text) into
 * the procedure's input {"ref_gpu": [{column: text or null}]}. Returns a new object, or NULL with
 * a message naming the table and line in err (an unknown name, a malformed file, no table). */
json_t *imx_refimp_parse(const json_t *csv, char *err, size_t errlen);

/* In the caller's transaction: replaces the tables of parsed (from imx_refimp_parse), recording
 * version with the actor (user_id, request_id; NULL from the command line), then recomputes the
 * stored compatibility reports the changed rows can reach (by the component versions they
 * concern; all of them for CUDA and GPU rows, none for instance types) with the reference data
 * the transaction now sees (today: "YYYY-MM-DD"), once per distinct stack, and stores those whose
 * findings changed, each with an image.compatibility_changed event; the open requests of an
 * image whose report gained errors lose it as a match, and one that lost them is matched.
 * Returns 0 with *out = {"tables": {ref_x: {added, changed, removed}}, "reports_changed": [image
 * id], "reports_checked": n, "stacks_checked": n} (new); -1 with *failed how the statement that
 * failed failed (failed->status IMX_DBS_OK when none did: err says why). The caller commits, or
 * rolls back (a dry run, a failure). */
int imx_refimp_run(struct imx_db_conn *c, const json_t *parsed, const char *version,
                   const char *user_id, const char *request_id, const char *today, json_t **out,
                   struct imx_db_fault *failed, char *err, size_t errlen);

#endif
