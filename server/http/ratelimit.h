/* A request rate limit per caller (API token, or user signed in with an access token), per
 * replica: a token bucket of IMAXE_RATE_LIMIT_PER_MIN requests that refills continuously. */
#ifndef IMX_HTTP_RATELIMIT_H
#define IMX_HTTP_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

/* Sets the limit (requests a minute; 0 turns it off). Call before serving. */
void imx_ratelimit_init(unsigned per_minute);

/* The limit set (0: off). */
unsigned imx_ratelimit_limit(void);

/* Takes one request from key's bucket. Returns false when it is empty; *left is what remains
 * (whole requests) and *reset_s the seconds until one more is available (full: 0). */
bool imx_ratelimit_take(uint64_t key, unsigned *left, unsigned *reset_s);

#endif
