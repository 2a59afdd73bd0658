/* OpenID Connect sign-in (authorization code with PKCE) against any standard provider: the
 * settings, the provider's discovery document and signing keys (JWKS, fetched again when a token
 * names a key not seen yet, at most every IMX_OIDC_JWKS_MIN_S), ID-token validation (RS256 and
 * ES256 with OpenSSL; iss, aud, exp, nonce) and the group-to-team mapping. The HTTP calls to the
 * provider go through libcurl, each bounded by IMAXE_OIDC_TIMEOUT_MS. */
#ifndef IMX_AUTH_OIDC_H
#define IMX_AUTH_OIDC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/config.h"

#define IMX_OIDC_MAP_MAX     64           /* group mappings in IMAXE_OIDC_GROUP_MAP */
#define IMX_OIDC_GROUPS_MAX  256          /* groups read from one token */
#define IMX_OIDC_JWKS_MIN_S  10           /* the keys are fetched again at most this often */
#define IMX_OIDC_LEEWAY_S    60           /* clock skew allowed on exp and iat */
#define IMX_OIDC_STATE_TTL_S 600          /* a sign-in must come back within this */
#define IMX_OIDC_DOC_MAX     (256 * 1024) /* largest discovery, JWKS or token answer read */

/* One IMAXE_OIDC_GROUP_MAP entry: the provider's group, the imaxe team slug and role. */
struct imx_oidc_map_entry {
    char group[128];
    char team[64];
    char role[16];
};

struct imx_oidc_map {
    struct imx_oidc_map_entry e[IMX_OIDC_MAP_MAX];
    size_t n;
};

/* Parses "idp-group=team:role,..." (spaces around items ignored; roles viewer, member,
 * publisher or admin; team a slug). Returns 0, or -1 with a message in err. Pure. */
int imx_oidc_map_parse(const char *text, struct imx_oidc_map *out, char *err, size_t errlen);

/* What the groups claim grants: for each team the map names, the highest role among the
 * caller's groups that map to it, or "" when none does (the membership is to go). Pure. */
struct imx_oidc_grant {
    char team[64];
    char role[16]; /* "" for none */
};
size_t imx_oidc_grants(const struct imx_oidc_map *map, const char *const *groups, size_t ngroups,
                       struct imx_oidc_grant *out, size_t max);

/* What an ID token's claims are checked against. */
struct imx_oidc_expect {
    const char *issuer;
    const char *client_id;
    const char *nonce;
    bool nonce_optional; /* a token without a nonce claim passes (device sign-in); another fails */
    long long now;
};
/* Checks the claims of a verified ID token: iss, aud (and azp when there are several
 * audiences), exp, iat, nonce, sub. Returns NULL when they hold, else why not (static text).
 * Pure. */
const char *imx_oidc_claims_check(const json_t *claims, const struct imx_oidc_expect *x);

/* Settings (IMAXE_OIDC_*) read at start-up; oidc is off when issuer is empty. Returns 0, or -1
 * with a message. */
int imx_oidc_init(char *err, size_t errlen);
bool imx_oidc_enabled(void);
/* The provider's display name for the sign-in button (IMAXE_OIDC_NAME; static). */
const char *imx_oidc_name(void);

/* A sign-in to start: where to send the browser (new string), with the state, nonce and PKCE
 * verifier made for it (new strings; the caller stores them). Returns 0, or -1 when the
 * provider's discovery document cannot be had (why in err). */
struct imx_oidc_start {
    char *url, *state, *nonce, *verifier;
};
int imx_oidc_start(struct imx_oidc_start *out, char *err, size_t errlen);
void imx_oidc_start_free(struct imx_oidc_start *s);

/* Who signed in, from a validated ID token. Strings are new; groups a new array. */
struct imx_oidc_identity {
    char *issuer, *subject, *email, *name;
    bool email_verified;
    char **groups;
    size_t ngroups;
};
void imx_oidc_identity_free(struct imx_oidc_identity *id);

/* Redeems code at the token endpoint (with the PKCE verifier) and validates the ID token
 * (signature, iss, aud, exp, nonce). Returns 0 with *out filled, or -1 with why in err and
 * *upstream true when the provider could not be reached or answered nonsense (502), false when
 * the sign-in itself is refused (401). */
int imx_oidc_finish(const char *code, const char *verifier, const char *nonce,
                    struct imx_oidc_identity *out, bool *upstream, char *err, size_t errlen);

/* The device authorization grant (RFC 8628) for `imaxe login --sso`: imaxe asks the provider for
 * a device code as the same client that signs in browsers, keeps it, and polls the provider's
 * token endpoint for the CLI; the ID token never leaves the server. */
#define IMX_OIDC_DEVICE_INTERVAL_S 5    /* the poll interval when the provider names none */
#define IMX_OIDC_DEVICE_TTL_MAX_S  1800 /* a device sign-in lasts at most this long */
struct imx_oidc_device {
    char *device_code, *user_code, *verification_uri, *verification_uri_complete, *nonce;
    long expires_in, interval;
};
/* Asks the provider's device_authorization_endpoint for a device code (new strings in *out; the
 * complete URI may be NULL). Returns 0, or -1 with why in err: *upstream true when the provider
 * could not be reached or has no device endpoint, false when it refused this client. */
int imx_oidc_device_start(struct imx_oidc_device *out, bool *upstream, char *err, size_t errlen);
void imx_oidc_device_free(struct imx_oidc_device *d);

/* What one poll of the token endpoint with a device code found. */
enum imx_oidc_poll {
    IMX_OIDC_POLL_DONE,      /* signed in: the identity is filled */
    IMX_OIDC_POLL_PENDING,   /* authorization_pending: the person has not finished yet */
    IMX_OIDC_POLL_SLOW_DOWN, /* slow_down: poll less often */
    IMX_OIDC_POLL_DENIED,    /* access_denied: the person said no */
    IMX_OIDC_POLL_EXPIRED,   /* expired_token: the code ran out */
    IMX_OIDC_POLL_REFUSED,   /* the ID token or the provider's answer does not pass (why in err) */
    IMX_OIDC_POLL_UPSTREAM,  /* the provider could not be used (why in err) */
};
/* Polls once for device_code; nonce is the one sent with it (the ID token may omit it; a
 * different one is refused). */
enum imx_oidc_poll imx_oidc_device_poll(const char *device_code, const char *nonce,
                                        struct imx_oidc_identity *out, char *err, size_t errlen);

/* The group map read from IMAXE_OIDC_GROUP_MAP (borrowed). */
const struct imx_oidc_map *imx_oidc_group_map(void);

#endif
