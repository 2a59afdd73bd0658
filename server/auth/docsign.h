/* Signatures on the documents imaxe issues for others to trust (VEX): a detached JWS (RFC 7515
 * appendix F) over the exact response body, with EdDSA (Ed25519, RFC 8037), and the public key
 * as a JWK Set (GET /v1/vex/keys). The key is IMAXE_VEX_SIGNING_KEY (PEM, PKCS#8 Ed25519 private
 * key; or IMAXE_VEX_SIGNING_KEY_FILE); unset, one is made at start-up and lives as long as the
 * process (its kid changes at each start, so a consumer sees the change). */
#ifndef IMX_AUTH_DOCSIGN_H
#define IMX_AUTH_DOCSIGN_H

#include <stdbool.h>
#include <stddef.h>

/* Loads or makes the key. Returns 0, or -1 with err filled (a key that is not Ed25519 PEM). */
int imx_docsign_init(char *err, size_t errlen);
void imx_docsign_free(void);
/* Whether the key was made at start-up for this process only (no IMAXE_VEX_SIGNING_KEY). */
bool imx_docsign_ephemeral(void);

/* The detached JWS of body (n bytes) with content type typ (the JWS "cty"): "HEADER..SIGNATURE"
 * (the payload left out: it is the body itself, base64url-encoded for the signing input). New
 * string, or NULL when there is no key or no memory. */
char *imx_docsign_detached(const char *body, size_t n, const char *cty);

/* The JWK Set of the public key: {"keys":[{kty, crv, x, kid, alg, use}]} (new string). */
char *imx_docsign_jwks(void);

#endif
