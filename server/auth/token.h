/* API tokens for scripts: "imx_" + base64url of 32 random bytes, kept only as a SHA-256 hash. */
#ifndef IMX_TOKEN_H
#define IMX_TOKEN_H

#include <stddef.h>

#define IMX_TOKEN_PREFIX   "imx_"
#define IMX_TOKEN_RANDOM   32
#define IMX_TOKEN_LEN      (4 + 43) /* prefix + base64url of 32 bytes */
#define IMX_TOKEN_HASH_LEN 64       /* hex SHA-256 */

/* A fresh token into out (IMX_TOKEN_LEN + 1 bytes). Returns 0, or -1 without randomness. */
int imx_token_new(char out[IMX_TOKEN_LEN + 1]);

/* The hex SHA-256 of a token, as stored. */
void imx_token_hash(const char *token, char out[IMX_TOKEN_HASH_LEN + 1]);

#endif
