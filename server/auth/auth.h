/* Team roles, the auth settings, the signing secrets and the first admin. What a request's caller
 * may do is decided in api/access.h, which builds on these. */
#ifndef IMX_AUTH_H
#define IMX_AUTH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/config.h"

/* Team roles, ordered: each includes the ones before it. */
enum imx_role {
    IMX_ROLE_NONE,
    IMX_ROLE_VIEWER,
    IMX_ROLE_MEMBER,
    IMX_ROLE_PUBLISHER,
    IMX_ROLE_ADMIN
};

/* Settings read at start-up (IMAXE_JWT_TTL_S, IMAXE_LOGIN_*). */
struct imx_auth_settings {
    unsigned jwt_ttl_s;
    unsigned login_window_s;
    unsigned login_max_failures;    /* per account, per window */
    unsigned login_ip_max_failures; /* per client address, per window */
    bool read_cache;                /* IMAXE_READ_CACHE: remember principals between requests */
};
extern struct imx_auth_settings imx_auth_settings;

/* "viewer", "member", "publisher", "admin"; NULL for IMX_ROLE_NONE. Static string. */
const char *imx_role_name(enum imx_role role);

/* The role named s; IMX_ROLE_NONE for NULL or an unknown name. */
enum imx_role imx_role_parse(const char *s);

/* Keys derived from IMAXE_JWT_SECRET (and the previous secret) for what else the server signs
 * or seals: pagination cursors, and the idempotent replies it stores. */
struct imx_auth_keys {
    unsigned char cursor[32];
    unsigned char seal[32];          /* seals and opens stored replies */
    unsigned char seal_previous[32]; /* only opens them (set when has_previous) */
    bool has_previous;
};

/* Wipes keys once they are handed on. */
void imx_auth_keys_clear(struct imx_auth_keys *keys);

/* Reads the JWT secrets (IMAXE_JWT_SECRET(_FILE), IMAXE_JWT_SECRET_PREVIOUS(_FILE)), derives
 * *keys from them (the caller hands them on and clears them) and prepares password hashing.
 * Returns 0, or -1 with a message for the operator. */
int imx_auth_init(const struct imx_config *cfg, struct imx_auth_keys *keys, char *err,
                  size_t errlen);

/* First start: with no users yet, creates a global admin from IMAXE_ADMIN_EMAIL and
 * IMAXE_ADMIN_PASSWORD(_FILE). Returns 0, or -1 with a message. */
int imx_auth_bootstrap(char *err, size_t errlen);

#endif
