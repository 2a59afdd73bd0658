/* Standard Webhooks signature verification (see whsig.h), written apart from the server's
 * signer (server/webhooks/sign.c) so that each checks the other in the integration test. */
#include "whsig.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define KEY_MAX 64
#define B64_MAX 88  /* base64 of 64 bytes */
#define SIG_B64 44  /* base64 of a SHA-256 MAC */
#define ID_MAX  256 /* longest webhook-id accepted */

static bool b64_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
}

/* Decodes canonical padded base64 into key. Returns the length, or -1. */
static int b64_decode(const char *s, unsigned char key[KEY_MAX + 3])
{
    size_t n = strlen(s);
    if (n == 0 || n % 4 != 0 || n > B64_MAX)
        return -1;
    size_t pad = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '=' && i >= n - 2) {
            pad++;
            continue;
        }
        if (!b64_char(s[i]) || pad > 0)
            return -1;
    }
    int len = EVP_DecodeBlock(key, (const unsigned char *)s, (int)n);
    if (len < 0)
        return -1;
    len -= (int)pad;
    return len >= 1 && len <= KEY_MAX ? len : -1;
}

static bool digits(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

enum imx_cli_wh_result imx_cli_wh_verify(const char *secret, const char *id, const char *timestamp,
                                         const char *sigs, const char *body, size_t body_len,
                                         long long now, long long tolerance_s)
{
    unsigned char key[KEY_MAX + 3];
    if (!secret)
        return IMX_CLI_WH_BAD_SECRET;
    if (strncmp(secret, "whsec_", 6) == 0)
        secret += 6;
    int key_len = b64_decode(secret, key);
    if (key_len < 0)
        return IMX_CLI_WH_BAD_SECRET;
    enum imx_cli_wh_result result = IMX_CLI_WH_BAD_HEADERS;
    if (!id || !timestamp || !sigs || id[0] == '\0' || strlen(id) > ID_MAX ||
        !digits(timestamp, 19) || strlen(sigs) > IMX_CLI_WH_SIGS_MAX)
        goto out;
    long long ts = strtoll(timestamp, NULL, 10);
    if (tolerance_s >= 0 && (ts > now + tolerance_s || ts < now - tolerance_s)) {
        result = IMX_CLI_WH_STALE;
        goto out;
    }
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;
    /* HMAC over "id.timestamp.body", fed in pieces so the body is never copied. */
    EVP_MAC *m = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *ctx = m ? EVP_MAC_CTX_new(m) : NULL;
    OSSL_PARAM params[] = { OSSL_PARAM_construct_utf8_string("digest", "SHA256", 0),
                            OSSL_PARAM_construct_end() };
    size_t out_len = 0;
    bool ok = ctx && EVP_MAC_init(ctx, key, (size_t)key_len, params) == 1 &&
              EVP_MAC_update(ctx, (const unsigned char *)id, strlen(id)) == 1 &&
              EVP_MAC_update(ctx, (const unsigned char *)".", 1) == 1 &&
              EVP_MAC_update(ctx, (const unsigned char *)timestamp, strlen(timestamp)) == 1 &&
              EVP_MAC_update(ctx, (const unsigned char *)".", 1) == 1 &&
              EVP_MAC_update(ctx, (const unsigned char *)body, body_len) == 1 &&
              EVP_MAC_final(ctx, mac, &out_len, sizeof mac) == 1;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(m);
    mac_len = (unsigned int)out_len;
    if (!ok || mac_len != 32)
        goto out;
    char expected[SIG_B64 + 1];
    EVP_EncodeBlock((unsigned char *)expected, mac, (int)mac_len);
    OPENSSL_cleanse(mac, sizeof mac);
    result = IMX_CLI_WH_NO_MATCH;
    bool any_v1 = false;
    const char *p = sigs;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 3 && strncmp(p, "v1,", 3) == 0) {
            any_v1 = true;
            if (len - 3 == SIG_B64 && CRYPTO_memcmp(p + 3, expected, SIG_B64) == 0)
                result = IMX_CLI_WH_OK;
        }
        p += len;
    }
    if (!any_v1)
        result = IMX_CLI_WH_BAD_HEADERS;
out:
    OPENSSL_cleanse(key, sizeof key);
    return result;
}

const char *imx_cli_wh_result_text(enum imx_cli_wh_result r)
{
    switch (r) {
    case IMX_CLI_WH_OK:
        return "signature verified";
    case IMX_CLI_WH_BAD_SECRET:
        return "the secret is not whsec_ followed by base64";
    case IMX_CLI_WH_BAD_HEADERS:
        return "webhook-id, webhook-timestamp or webhook-signature is missing or malformed";
    case IMX_CLI_WH_STALE:
        return "webhook-timestamp is too far from now";
    case IMX_CLI_WH_NO_MATCH:
        return "no signature matches the body";
    }
    return "unknown";
}
