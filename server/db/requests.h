/* SQL for image requests: create with constraints and existing matches, read, list, move through
 * states with history, comment. Every function runs one prepared statement and returns its
 * status with typed outputs; string arguments are borrowed, NULL is SQL NULL. */
#ifndef IMX_DB_REQUESTS_H
#define IMX_DB_REQUESTS_H

#include <stdbool.h>
#include <stdint.h>

#include "db/pool.h"

/* Matches and comments a request document carries (the counts give the rest): in a list, and
 * read alone (GET, and the document a creation or a transition answers with). */
#define IMX_REQUEST_ITEMS_LISTED 5
#define IMX_REQUEST_ITEMS_ONE    50

/* The catalog team: the team with this slug, or the first team created when slug is NULL
 * -> its id; IMX_DBS_NOT_FOUND: none. */
enum imx_db_status imx_db_catalog_team(struct imx_db_conn *c, const char *slug, int64_t *id,
                                       struct imx_db_fault *why);

/* Creates a request from j: {"team_id", "catalog_team_id", "title", "family", "os_name",
 * "os_version", "architecture", "gpus":[...], "tags":[...], "justification", "compatibility",
 * "created_by", "constraints":[{"component", "range", "lo", "lo_incl", "hi", "hi_incl"}]} (lo/hi
 * as int[] literals from imx_constraint_sql_bounds, unbounded ends already widened), records
 * its first history entry (-> open) -> its id. */
enum imx_db_status imx_db_request_create(struct imx_db_conn *c, const char *j, int64_t *id,
                                         struct imx_db_fault *why);

/* Records the active images that already satisfy request id (run after imx_db_request_create,
 * in the same transaction). */
enum imx_db_status imx_db_request_match_existing(struct imx_db_conn *c, const char *id,
                                                 struct imx_db_fault *why);

/* One request as its handlers read it. */
struct imx_db_request {
    int64_t team_id, catalog_team_id;
    char state[16];
    char revision[32]; /* its ETag */
    char *json; /* imx_request_json_bounded: at most IMX_REQUEST_ITEMS_ONE matches and comments */
};

/* Reads request id into out (free with imx_db_request_free); IMX_DBS_NOT_FOUND: none. With
 * for_update, locks the request row for the transaction. */
enum imx_db_status imx_db_request_get(struct imx_db_conn *c, const char *id, bool for_update,
                                      struct imx_db_request *out, struct imx_db_fault *why);
void imx_db_request_free(struct imx_db_request *q);

/* Requests the user sees (requesting team or catalog team; a token's team only when token_team
 * is set), filtered by requesting team and state (NULL: any), newest first, after before_id, at
 * most limit+1 -> a page of rows: id, request JSON. */
enum imx_db_status imx_db_request_list(struct imx_db_conn *c, const char *user_id,
                                       const char *token_team, const char *team_id,
                                       const char *state, const char *before_id, const char *limit,
                                       struct imx_db_page *out, struct imx_db_fault *why);

/* A page of the request's matches, patched images first, then newest, after the key
 * (after_ok 0/1, after_published, after_image; all NULL: from the start), at most limit+1
 * -> a page of rows: ok (0/1), published_at, image id, match JSON. */
enum imx_db_status imx_db_request_matches(struct imx_db_conn *c, const char *id,
                                          const char *after_ok, const char *after_published,
                                          const char *after_image, const char *limit,
                                          struct imx_db_page *out, struct imx_db_fault *why);

/* Takes the team's request-quota lock for the transaction -> the open (open, approved,
 * building) requests of the team, and of the user. */
enum imx_db_status imx_db_request_open_counts(struct imx_db_conn *c, const char *team_id,
                                              const char *user_id, long long *team_open,
                                              long long *own_open, struct imx_db_fault *why);

/* -> how many comments the request has. */
enum imx_db_status imx_db_request_comment_count(struct imx_db_conn *c, const char *id,
                                                long long *count, struct imx_db_fault *why);

/* Does the image satisfy the request (SQL imx_request_satisfied_by) -> *satisfied. */
enum imx_db_status imx_db_request_satisfied_by(struct imx_db_conn *c, const char *request_id,
                                               const char *image_id, bool *satisfied,
                                               struct imx_db_fault *why);

/* Moves the request from `from` to `to` (no row: it was not in `from` any more), setting the
 * image (fulfilled) or the reason (rejected, from comment), and records the history entry. */
enum imx_db_status imx_db_request_move(struct imx_db_conn *c, const char *id, const char *from,
                                       const char *to, const char *user_id, const char *comment,
                                       const char *image_id, struct imx_db_fault *why);

/* Adds a comment -> comment JSON. */
enum imx_db_status imx_db_request_comment(struct imx_db_conn *c, const char *id,
                                          const char *user_id, const char *body,
                                          struct imx_db_json *out, struct imx_db_fault *why);

#endif
