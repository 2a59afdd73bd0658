/* Keyset cursors for list endpoints: opaque, tamper-evident (HMAC) encodings of a row key, and
 * the ?limit=, ?cursor= and page replies every keyset list shares. */
#ifndef IMX_CURSOR_H
#define IMX_CURSOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "db/pool.h"
#include "http/request.h"

struct imx_db_rows;

/* Longest cursor text, with its NUL. */
#define IMX_CURSOR_MAX 512

/* Page sizes of every list: ?limit= when absent, and the most it may ask for. */
#define IMX_LIST_LIMIT_DEFAULT 50
#define IMX_LIST_LIMIT_MAX     200

/* Sets the HMAC key (copied; at least 32 bytes). Call at start-up, before any thread uses it. */
int imx_cursor_set_key(const unsigned char *key, size_t len);

/* Encodes key (e.g. [id] or ["2026-03-17T...", id]) as base64url(JSON) "." base64url(HMAC).
 * Returns 0, or -1 when it does not fit in len bytes or no key is set. */
int imx_cursor_encode(const json_t *key, char *out, size_t len);

/* Decodes a cursor. Returns a new reference to its key, or NULL when malformed or tampered. */
json_t *imx_cursor_decode(const char *s);

/* Sets Link: <path?query&cursor=CURSOR>; rel="next", keeping the request's other query
 * arguments (an old cursor is replaced). */
void imx_api_link_next(struct imx_req *r, const char *cursor);

/* Parses ?limit= (IMX_LIST_LIMIT_DEFAULT when absent) into limit. Returns false after replying
 * 400. */
bool imx_api_list_limit(struct imx_req *r, unsigned long long *limit);

/* Parses ?cursor= holding [id], a positive integer, into out as text: *key = out, or NULL
 * without a cursor. Returns false after replying 400. */
bool imx_api_cursor_id(struct imx_req *r, char out[24], const char **key);

/* Parses ?cursor= holding a key shaped as spec (a letter an element: 'I' integer, 's' string,
 * 'o' object): *key = a new reference to the key array, or NULL without a cursor. Returns false
 * after replying 400. */
bool imx_api_cursor_key(struct imx_req *r, const char *spec, json_t **key);

/* The text of element i of a key from imx_api_cursor_key, for a statement parameter: a string as
 * it is (borrowed from key), an integer or object printed into buf; NULL when key is NULL. */
const char *imx_api_key_text(const json_t *key, size_t i, char *buf, size_t len);

/* The integer a next-page key text "[n, ...]" starts with, as text into buf; NULL when key_text
 * is NULL or starts with no integer. */
const char *imx_api_key_text_int0(const char *key_text, char *buf, size_t len);

/* Replies 200 with doc_text, a page that is a JSON object, adding "next_cursor" from next_key
 * (the JSON array key of its last item when a next page exists, else NULL) and Link rel=next;
 * both borrowed. A doc_text that is no object replies 500. */
void imx_api_reply_doc_next(struct imx_req *r, const char *doc_text, const char *next_key);

/* Replies 200 with one page that is a document, not a list of rows: row 0 holds the document
 * (column 0, a JSON object) and the key of its last item when a next page exists (column 1, a
 * JSON array text, or NULL), which becomes "next_cursor" in the document and Link rel=next. No row
 * replies 404 with not_found. A failure st replies as imx_api_reply_db_fault with why, the
 * detail the db/ call handed back. Steals page. */
void imx_api_reply_doc_page(struct imx_req *r, enum imx_db_status st,
                            const struct imx_db_fault *why, struct imx_db_page *page,
                            const char *not_found);

/* Replies 200 {"items": [...], "next_cursor": ...} from one page of rows: each row is its key
 * columns (key: a letter a column, 'I' integer, 's' text) then the item's JSON text, starting at
 * column col0 (after columns of the statement's own, which the handler checked before replying;
 * when col0 > 0, one row whose column col0 is NULL is an empty page). At most limit rows are
 * shown; a further row means a next page, whose cursor is the key of the last shown row (also
 * sent as Link rel=next); else next_cursor is null. This one takes a db/ call's page (stolen)
 * with its status st and detail why: a failure replies as imx_api_reply_db_fault. */
void imx_api_reply_page(struct imx_req *r, enum imx_db_status st, const struct imx_db_fault *why,
                        struct imx_db_page *page, int col0, unsigned long long limit,
                        const char *key);
/* The same from rows (borrowed; their result stays the caller's). */
void imx_api_reply_page_rows(struct imx_req *r, const struct imx_db_rows *rows, int col0,
                             unsigned long long limit, const char *key);

#endif
