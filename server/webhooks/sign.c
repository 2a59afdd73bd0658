/* Standard Webhooks signing: secrets and v1 signatures (HMAC-SHA256, base64). */
#include "webhooks/sign.h"

#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>

#define SECRET_BYTES    32
#define KEY_MAX_BYTES   64
#define KEY_MIN_BYTES   16
#define B64_MAX_KEY_LEN 88 /* base64 of 64 bytes */

int imx_webhook_secret_new(char out[IMX_WEBHOOK_SECRET_LEN + 1])
{
    unsigned char raw[SECRET_BYTES];
    if (RAND_bytes(raw, sizeof raw) != 1)
        return -1;
    memcpy(out, IMX_WEBHOOK_SECRET_PREFIX, strlen(IMX_WEBHOOK_SECRET_PREFIX));
    EVP_EncodeBlock((unsigned char *)out + strlen(IMX_WEBHOOK_SECRET_PREFIX), raw, sizeof raw);
    out[IMX_WEBHOOK_SECRET_LEN] = '\0';
    OPENSSL_cleanse(raw, sizeof raw);
    return 0;
}

/* Decodes the base64 part of a secret into key. Returns the key length, or -1. */
static int secret_key(const char *secret, unsigned char key[KEY_MAX_BYTES + 2])
{
    size_t plen = strlen(IMX_WEBHOOK_SECRET_PREFIX);
    if (!secret || strncmp(secret, IMX_WEBHOOK_SECRET_PREFIX, plen) != 0)
        return -1;
    const char *b64 = secret + plen;
    size_t n = strlen(b64);
    if (n == 0 || n % 4 != 0 || n > B64_MAX_KEY_LEN)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char c = b64[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '+' || c == '/' || (c == '=' && i >= n - 2);
        if (!ok || (i == n - 2 && c == '=' && b64[n - 1] != '='))
            return -1;
    }
    int len = EVP_DecodeBlock(key, (const unsigned char *)b64, (int)n);
    if (len < 0)
        return -1;
    /* EVP_DecodeBlock counts padding as zero bytes. */
    if (b64[n - 1] == '=')
        len--;
    if (b64[n - 2] == '=')
        len--;
    if (len < KEY_MIN_BYTES || len > KEY_MAX_BYTES)
        return -1;
    return len;
}

bool imx_webhook_secret_valid(const char *s)
{
    unsigned char key[KEY_MAX_BYTES + 2];
    bool ok = secret_key(s, key) > 0;
    OPENSSL_cleanse(key, sizeof key);
    return ok;
}

int imx_webhook_sign_append(const char *secret, const char *msg_id, long long timestamp,
                            const char *body, size_t body_len, char *out, size_t outlen)
{
    unsigned char key[KEY_MAX_BYTES + 2], mac[EVP_MAX_MD_SIZE];
    char prefix[160];
    int rc = -1;

    int keylen = secret_key(secret, key);
    if (keylen < 0 || !msg_id || strlen(msg_id) > 100)
        goto out;
    int plen = snprintf(prefix, sizeof prefix, "%s.%lld.", msg_id, timestamp);
    if (plen < 0 || (size_t)plen >= sizeof prefix)
        goto out;

    EVP_MAC *hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *ctx = hmac ? EVP_MAC_CTX_new(hmac) : NULL;
    OSSL_PARAM params[] = { OSSL_PARAM_construct_utf8_string("digest", (char *)"SHA256", 0),
                            OSSL_PARAM_construct_end() };
    size_t maclen = 0;
    bool ok = ctx && EVP_MAC_init(ctx, key, (size_t)keylen, params) == 1 &&
              EVP_MAC_update(ctx, (const unsigned char *)prefix, (size_t)plen) == 1 &&
              EVP_MAC_update(ctx, (const unsigned char *)body, body_len) == 1 &&
              EVP_MAC_final(ctx, mac, &maclen, sizeof mac) == 1;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(hmac);
    if (!ok || maclen != 32)
        goto out;

    size_t used = strlen(out);
    size_t need = (used ? 1 : 0) + IMX_WEBHOOK_SIG_LEN + 1;
    if (outlen < used || outlen - used < need)
        goto out;
    char *p = out + used;
    if (used)
        *p++ = ' ';
    memcpy(p, "v1,", 3);
    EVP_EncodeBlock((unsigned char *)p + 3, mac, (int)maclen);
    rc = 0;
out:
    OPENSSL_cleanse(key, sizeof key);
    return rc;
}
