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

/* The group map read from IMAXE_OIDC_GROUP_MAP (borrowed). */
const struct imx_oidc_map *imx_oidc_group_map(void);

#endif
