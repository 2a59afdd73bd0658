/* API tokens for scripts: "imx_" + base64url of 32 random bytes, kept only as a SHA-256 hash. */
#include "auth/token.h"

#include <openssl/rand.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>

#include "util/base64.h"

int imx_token_new(char out[IMX_TOKEN_LEN + 1])
{
    unsigned char rnd[IMX_TOKEN_RANDOM];
    if (RAND_bytes(rnd, sizeof rnd) != 1)
        return -1;
    memcpy(out, IMX_TOKEN_PREFIX, strlen(IMX_TOKEN_PREFIX));
    imx_b64url_encode(rnd, sizeof rnd, out + strlen(IMX_TOKEN_PREFIX),
                      IMX_TOKEN_LEN + 1 - strlen(IMX_TOKEN_PREFIX));
    OPENSSL_cleanse(rnd, sizeof rnd);
    return 0;
}

void imx_token_hash(const char *token, char out[IMX_TOKEN_HASH_LEN + 1])
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)token, strlen(token), md);
    for (size_t i = 0; i < sizeof md; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}
