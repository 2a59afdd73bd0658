/* Idempotency-Key for the routes that create something (routes marked creates in
 * server/api/routes.c): the handler runs inside one transaction that also stores its reply under
 * the caller's key, so a retry gets the same answer and nothing is done twice. */
#ifndef IMX_API_IDEMPOTENCY_H
#define IMX_API_IDEMPOTENCY_H

#include "http/request.h"

/* Longest Idempotency-Key accepted (visible ASCII characters). */
#define IMX_IDEMPOTENCY_KEY_MAX 255

/* The imx_http_create_hook: runs r->route->handler(r). With an Idempotency-Key it first takes the
 * key's lock (409 while another request holds it), replays the stored reply of the same request
 * (Idempotent-Replayed: true), refuses a different request under the key (422), and otherwise
 * runs the handler in a transaction that stores a successful reply (status below 400) with the
 * change, or rolls everything back. */
void imx_api_idempotent(struct imx_req *r);

/* Bytes of a key that seals stored replies. */
#define IMX_IDEMPOTENCY_SEAL_KEY 32

/* Sets the keys stored replies are sealed with (AES-256-GCM): current seals and opens, previous
 * (NULL for none) only opens, so that replies stored before a secret rotation still replay.
 * Copies both. */
void imx_api_idempotency_set_keys(const unsigned char current[IMX_IDEMPOTENCY_SEAL_KEY],
                                  const unsigned char *previous);

#endif
