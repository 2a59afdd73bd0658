/* SQL for pins: a team's named channel to one image with optional component constraints, its
 * move history, its status (current, behind, patch_available, vulnerable, revoked) and resolve
 * through a pin. Every function runs one prepared statement and returns its status with typed
 * outputs; string arguments are borrowed, NULL is SQL NULL. */
#ifndef IMX_DB_PINS_H
#define IMX_DB_PINS_H

#include <stdbool.h>

#include "db/auth.h"
#include "db/images.h"
#include "db/pool.h"

/* Whether an image is revoked (IMX_DBS_NOT_FOUND: no such image). */
enum imx_db_status imx_db_pin_image(struct imx_db_conn *c, const char *image_id, bool *revoked,
                                    struct imx_db_fault *why);

/* Creates a pin with its constraints (JSON text [{"component","range","lo","lo_incl","hi",
 * "hi_incl"}], bounds as in imx_db_advisory_create) and its first history row -> its id.
 * IMX_DBS_CONFLICT: the team has a pin of that name. */
enum imx_db_status imx_db_pin_create(struct imx_db_conn *c, const char *team_id, const char *name,
                                     const char *image_id, const char *constraints,
                                     const char *user_id, char pin_id[24],
                                     struct imx_db_fault *why);

/* The team's pins -> count, after taking the team's pin-quota lock (held to the end of the
 * transaction), so two creations at once cannot both take the last place. */
enum imx_db_status imx_db_pin_count(struct imx_db_conn *c, const char *team_id, long long *count,
                                    struct imx_db_fault *why);

/* The constraints of pin that image does not satisfy -> JSON [{component, range, version|null}]
 * (empty array: all hold). */
enum imx_db_status imx_db_pin_unmet(struct imx_db_conn *c, const char *pin_id, const char *image_id,
                                    struct imx_db_json *unmet, struct imx_db_fault *why);

/* The pin's patch rows for its current image (migrations/procedures/pin_refresh.sql): each
 * advisory affecting it with the pin's fix; fixes that exist now count as known, so only fixes
 * appearing later are announced. Call after create and move, in the same transaction. */
enum imx_db_status imx_db_pin_refresh(struct imx_db_conn *c, const char *pin_id,
                                      struct imx_db_fault *why);

/* The pin, locked for the rest of the transaction (FOR UPDATE) -> its team and image
 * (IMX_DBS_NOT_FOUND: no such pin). */
enum imx_db_status imx_db_pin_lock(struct imx_db_conn *c, const char *pin_id, int64_t *team_id,
                                   char image_id[24], struct imx_db_fault *why);

/* Points the pin at image and appends a history row. */
enum imx_db_status imx_db_pin_move(struct imx_db_conn *c, const char *pin_id, const char *image_id,
                                   const char *user_id, struct imx_db_fault *why);

/* Deletes the pin (its constraints and history go with it). */
enum imx_db_status imx_db_pin_delete(struct imx_db_conn *c, const char *pin_id,
                                     struct imx_db_fault *why);

/* One pin: its document {id, team, name, image:summary, constraints:[{component, range}], status,
 * candidate:summary|null, advisory_count, advisories (the newest 5), created_at, updated_at,
 * history} (new, free() it), its team, its ETag revision, the auth epoch read with it and
 * user_id's role in the team. */
struct imx_db_pin_doc {
    char *json;
    long long team_id, revision, epoch;
    char role[16]; /* user_id's role in the pin's team ("" when none) */
};
/* stored: answer from the stored document (pin_docs, migrations/0050_pin_docs.sql) where it is
 * current, else build it (IMAXE_READ_CACHE=0 always builds: the reference). IMX_DBS_OK with
 * *out filled, IMX_DBS_NOT_FOUND for no such pin (out->epoch still set), or a failure. */
enum imx_db_status imx_db_pin_read(struct imx_db_conn *c, const char *pin_id, const char *user_id,
                                   bool stored, struct imx_db_pin_doc *out,
                                   struct imx_db_fault *why);
/* The stored read by a statement shared with the other pin reads waiting (db/read_batch.c): the
 * caller holds no connection meanwhile. pin_id and user_id decimal ids. IMX_DBS_OK with *found
 * and, when found, *out filled (free out->json), or a failure. */
enum imx_db_status imx_db_pin_read_batched(const char *pin_id, const char *user_id,
                                           struct imx_db_pin_doc *out, bool *found);
/* The same without waiting (as imx_db_pin_resolve_start; free with imx_db_pin_call_free). */
struct imx_db_texts_call;
struct imx_db_texts_call *imx_db_pin_read_start(const char *pin_id, const char *user_id,
                                                void (*wake)(void *cls), void *cls);
enum imx_db_status imx_db_pin_read_result(struct imx_db_texts_call *c, struct imx_db_pin_doc *out,
                                          bool *found);
/* Statements the batched pin reads were read with, and pins they read (/metrics). */
void imx_db_pin_read_stats(unsigned long long *reads, unsigned long long *answered);

/* The pins of the team with this slug by name, with what checking the caller needs, in one
 * statement: *t as imx_db_auth_team_read fills it; t->res's rows go on with (name, JSON as
 * imx_db_pin_read with history null) from column IMX_DB_PIN_PAGE_COL, at most limit + 1 of them,
 * one row with a NULL name when the page is empty. after_name from the last row of the previous
 * page (NULL: first page); stored as for imx_db_pin_read. */
#define IMX_DB_PIN_PAGE_COL 3
enum imx_db_status imx_db_pin_list(struct imx_db_conn *c, const char *slug, const char *user_id,
                                   const char *after_name, const char *limit, bool stored,
                                   struct imx_db_team_read *t, struct imx_db_fault *why);

/* As imx_db_pin_list, only the pins whose image's stack reaches its earliest end of life before
 * eol_before (YYYY-MM-DD; imx_image_eol_date, migrations/procedures/eol.sql); always built, not
 * stored. */
enum imx_db_status imx_db_pin_list_eol(struct imx_db_conn *c, const char *slug, const char *user_id,
                                       const char *after_name, const char *limit,
                                       const char *eol_before, struct imx_db_team_read *t,
                                       struct imx_db_fault *why);

/* The same page read by a statement shared with the other pages waiting (db/read_batch.c; the
 * caller holds no connection meanwhile, and the texts must be valid UTF-8, or the statement would
 * fail for all): rows are the page's, their columns from IMX_DB_PIN_BATCH_PAGE_COL on as above;
 * the rest as imx_db_auth_team_read fills them. Borrowed from owner until imx_db_pin_page_free. */
#define IMX_DB_PIN_BATCH_PAGE_COL (IMX_DB_PIN_PAGE_COL + 1)
struct imx_db_batch;
struct imx_db_pin_page {
    struct imx_db_batch *owner;
    struct imx_db_rows rows;  /* the page's */
    long long epoch, team_id; /* team_id 0: no such team */
    const char *role;         /* the user's role in it ("" for none) */
};
enum imx_db_status imx_db_pin_list_batched(const char *slug, const char *user_id,
                                           const char *after_name, const char *limit,
                                           struct imx_db_pin_page *out);
/* The same without waiting (as imx_db_pin_resolve_start; free with imx_db_pin_call_free). */
struct imx_db_texts_call *imx_db_pin_list_start(const char *slug, const char *user_id,
                                                const char *after_name, const char *limit,
                                                void (*wake)(void *cls), void *cls);
enum imx_db_status imx_db_pin_list_result(struct imx_db_texts_call *c, struct imx_db_pin_page *out);
void imx_db_pin_page_free(struct imx_db_pin_page *p);
/* Statements the batched pages were read with, and pages they read (/metrics). */
void imx_db_pin_list_stats(unsigned long long *reads, unsigned long long *answered);

/* Resolve through a pin (GET /v1/images/resolve?pin=TEAM/NAME&region=R), from scratch, with what
 * checking the caller needs, in one statement (the reference path, IMAXE_READ_CACHE=0): *t as
 * imx_db_auth_team_read fills it, and {"pin":{id, team, name}|null, "image":summary|null,
 * "artifact_id":text|null, "emptied_by": null|"pin"|"status"|"region"} (NULL without a team) for
 * imx_db_pin_resolution; never a revoked image. The caller checks the role before
 * replying with it. */
enum imx_db_status imx_db_pin_resolve_by_slug(struct imx_db_conn *c, const char *slug,
                                              const char *user_id, const char *name,
                                              const char *region, struct imx_db_team_read *t,
                                              struct imx_db_fault *why);
/* The JSON text of a read from imx_db_pin_resolve_by_slug (borrowed from t, NULL), its length in
 * *len; NULL when there is none. */
const char *imx_db_pin_resolution(const struct imx_db_team_read *t, size_t *len);

/* The same read by a statement shared with the other pin resolves waiting (db/read_batch.c): the
 * caller holds no connection meanwhile. Strings borrowed from owner, until
 * imx_db_pin_resolved_free. */
struct imx_db_pin_resolved {
    struct imx_db_batch *owner;
    long long epoch, team_id; /* team_id 0: no such team */
    const char *role;         /* the user's role in it ("" for none) */
    const char *doc;          /* the JSON above (NULL without a team), doc_len bytes */
    size_t doc_len;
};
enum imx_db_status imx_db_pin_resolve_batched(const char *slug, const char *user_id,
                                              const char *name, const char *region,
                                              struct imx_db_pin_resolved *out);
void imx_db_pin_resolved_free(struct imx_db_pin_resolved *p);
/* The same read without waiting, for a fast handler: queued (the texts copied), wake(cls) called
 * on another thread once it is read; imx_db_pin_resolve_result then gives what
 * imx_db_pin_resolve_batched returns (once); imx_db_pin_call_free frees the call after its wake.
 * NULL when memory is short. */
struct imx_db_texts_call;
struct imx_db_texts_call *imx_db_pin_resolve_start(const char *slug, const char *user_id,
                                                   const char *name, const char *region,
                                                   void (*wake)(void *cls), void *cls);
enum imx_db_status imx_db_pin_resolve_result(struct imx_db_texts_call *c,
                                             struct imx_db_pin_resolved *out);
void imx_db_pin_call_free(void *call);
/* Statements the batched pin resolves were read with, and resolves they answered (/metrics). */
void imx_db_pin_resolve_stats(unsigned long long *reads, unsigned long long *answered);

#endif
