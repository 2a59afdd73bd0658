/* Keyset cursors for list endpoints: opaque, tamper-evident (HMAC) encodings of a row key. */
#ifndef IMX_CURSOR_H
#define IMX_CURSOR_H

#include <jansson.h>
#include <stddef.h>

#include "http/request.h"

/* Longest cursor text, with its NUL. */
#define IMX_CURSOR_MAX 512

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

#endif
