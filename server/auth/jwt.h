/* Access tokens: JWT HS256 with our own checks of alg, kid and every time claim. libjwt 1.10
 * verifies with whatever alg the token names, so the header is checked before it is trusted. */
#ifndef IMX_JWT_H
#define IMX_JWT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IMX_JWT_ISSUER     "imaxe"
#define IMX_JWT_AUDIENCE   "imaxe-api"
#define IMX_JWT_LEEWAY_S   60
#define IMX_JWT_SECRET_MIN 32
#define IMX_JWT_SECRET_MAX 1024
#define IMX_JWT_KID_LEN    16
#define IMX_JWT_TOKEN_MAX  4096

enum imx_jwt_result {
    IMX_JWT_OK,
    IMX_JWT_MALFORMED,
    IMX_JWT_BAD_ALG,
    IMX_JWT_UNKNOWN_KID,
    IMX_JWT_BAD_SIGNATURE,
    IMX_JWT_EXPIRED,
    IMX_JWT_NOT_YET_VALID,
    IMX_JWT_BAD_ISSUER,
    IMX_JWT_BAD_AUDIENCE,
    IMX_JWT_BAD_SUBJECT,
};

/* The claims imx_jwt_check_claims looks at; strings borrowed, NULL when absent. */
struct imx_jwt_claims {
    const char *iss, *aud, *sub;
    bool has_exp, has_nbf, has_iat;
    long long exp, nbf, iat;
};

/* Checks iss, aud, sub, exp (required), iat (required, not in the future) and nbf (optional)
 * at time now, with IMX_JWT_LEEWAY_S of leeway. Pure; *user_id gets sub when it is valid. */
enum imx_jwt_result imx_jwt_check_claims(const struct imx_jwt_claims *c, long long now,
                                         int64_t *user_id);

/* A short name of a result for the debug log (never the token). Static string. */
const char *imx_jwt_result_name(enum imx_jwt_result res);

/* The key id of a secret: hex of the first 8 bytes of SHA-256("imaxe-kid:" || secret). */
void imx_jwt_kid(const char *secret, size_t len, char out[IMX_JWT_KID_LEN + 1]);

/* Sets the signing secret and an optional previous one (still accepted, by its kid). Copies
 * both. Call before any thread uses tokens. Returns 0, or -1 with a message (secret too short). */
int imx_jwt_keys_set(const char *current, const char *previous, char *err, size_t errlen);

/* A signed access token for user_id, valid from now for ttl_s seconds. New string, or NULL. */
char *imx_jwt_issue(int64_t user_id, long long now, long ttl_s);

/* Verifies token (signature with the key its kid names, alg HS256 only) and its claims at now.
 * Returns IMX_JWT_OK with *user_id set, or why it failed. */
enum imx_jwt_result imx_jwt_verify(const char *token, long long now, int64_t *user_id);

#endif
