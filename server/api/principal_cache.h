/* Principals remembered between requests, so that a signed-in read costs no query of its own.
 * An entry holds what the full check found and the auth epoch (migrations/0020_point_reads.sql)
 * it was read at; a read endpoint's statement returns the current epoch beside its answer, and
 * a different one sends the request back through the full check (imx_auth_confirm). Bounded: a
 * fixed table of IMX_PCACHE_SLOTS entries, a newer entry replacing an older one in its slot. */
#ifndef IMX_PRINCIPAL_CACHE_H
#define IMX_PRINCIPAL_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "http/request.h"

#define IMX_PCACHE_SLOTS   4096
#define IMX_PCACHE_KEY_MAX 72 /* "t:" and a hex SHA-256, or "u:" and a user id */

struct imx_pcache_entry {
    struct imx_principal principal;
    int max_role;      /* the highest team role (enum imx_role) the principal reaches */
    long long epoch;   /* auth_epoch.n the entry was read at */
    time_t expires_at; /* not used at or after this time (an API token's expiry) */
};

/* Copies the entry for key into *out when there is one valid at now. Returns whether. */
bool imx_pcache_get(const char *key, time_t now, struct imx_pcache_entry *out);

/* Remembers e (copied) for key. */
void imx_pcache_put(const char *key, const struct imx_pcache_entry *e);

/* Forgets key. */
void imx_pcache_drop(const char *key);

/* Forgets everything (tests, and a server told to stop caching). */
void imx_pcache_clear(void);

#endif
