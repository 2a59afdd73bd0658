/* Detached JWS signatures (EdDSA) over issued documents, and the key's JWK Set (see docsign.h).
 * Why a detached JWS over the body rather than a field inside it: OpenVEX and CycloneDX each have
 * their own (draft) signature forms, and a signature over the exact bytes sent covers both
 * formats the same way, the document's own timestamps included; a consumer verifies the bytes it
 * received with the published key, whatever JSON library it uses. */
#include "auth/docsign.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"
#include "util/config.h"
#include "util/log.h"

static EVP_PKEY *key;
static char kid[48];   /* base64url of the key's RFC 7638 thumbprint (SHA-256) */
static char pub_x[48]; /* base64url of the 32-byte public key */
/* The key was made at start-up (no IMAXE_VEX_SIGNING_KEY): it lasts this process only. */
static bool ephemeral;

bool imx_docsign_ephemeral(void)
{
    return ephemeral;
}

int imx_docsign_init(char *err, size_t errlen)
{
    int failed = 0;
    char *pem = imx_config_secret("IMAXE_VEX_SIGNING_KEY", &failed);
    if (failed) {
        snprintf(err, errlen, "IMAXE_VEX_SIGNING_KEY_FILE cannot be read");
        return -1;
    }
    if (pem) {
        BIO *b = BIO_new_mem_buf(pem, -1);
        key = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
        BIO_free(b);
        free(pem);
        if (!key || EVP_PKEY_get_id(key) != EVP_PKEY_ED25519) {
            EVP_PKEY_free(key);
            key = NULL;
            snprintf(err, errlen,
                     "IMAXE_VEX_SIGNING_KEY must be an Ed25519 private key in PEM "
                     "(openssl genpkey -algorithm ed25519)");
            return -1;
        }
    } else {
        EVP_PKEY_CTX *kc = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
        if (!kc || EVP_PKEY_keygen_init(kc) <= 0 || EVP_PKEY_keygen(kc, &key) <= 0) {
            EVP_PKEY_CTX_free(kc);
            snprintf(err, errlen, "cannot make a VEX signing key");
            return -1;
        }
        EVP_PKEY_CTX_free(kc);
        ephemeral = true;
    }
    unsigned char raw[32];
    size_t rawlen = sizeof raw;
    if (EVP_PKEY_get_raw_public_key(key, raw, &rawlen) != 1 || rawlen != 32) {
        snprintf(err, errlen, "cannot read the VEX signing key's public half");
        return -1;
    }
    imx_b64url_encode(raw, rawlen, pub_x, sizeof pub_x);
    /* RFC 7638: the members crv, kty, x in lexicographic order, no whitespace. */
    char canon[128];
    snprintf(canon, sizeof canon, "{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"%s\"}", pub_x);
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)canon, strlen(canon), digest);
    imx_b64url_encode(digest, sizeof digest, kid, sizeof kid);
    return 0;
}

void imx_docsign_free(void)
{
    EVP_PKEY_free(key);
    key = NULL;
}

char *imx_docsign_detached(const char *body, size_t n, const char *cty)
{
    if (!key)
        return NULL;
    json_t *h = json_pack("{s:s, s:s, s:s}", "alg", "EdDSA", "kid", kid, "cty", cty);
    char *header = h ? json_dumps(h, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(h);
    if (!header)
        return NULL;
    size_t hlen = strlen(header), h64len = IMX_B64URL_LEN(hlen), p64len = IMX_B64URL_LEN(n);
    char *input = malloc(h64len + 1 + p64len + 1);
    char *out = malloc(h64len + 2 + IMX_B64URL_LEN(64) + 1);
    unsigned char sig[64];
    size_t siglen = sizeof sig;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = input && out && md;
    if (ok) {
        imx_b64url_encode((const unsigned char *)header, hlen, input, h64len + 1);
        input[h64len] = '.';
        if (n)
            imx_b64url_encode((const unsigned char *)body, n, input + h64len + 1, p64len + 1);
        input[h64len + 1 + p64len] = '\0';
        ok = EVP_DigestSignInit(md, NULL, NULL, NULL, key) == 1 &&
             EVP_DigestSign(md, sig, &siglen, (const unsigned char *)input, h64len + 1 + p64len) ==
                 1;
    }
    if (ok) {
        memcpy(out, input, h64len);
        out[h64len] = out[h64len + 1] = '.';
        imx_b64url_encode(sig, siglen, out + h64len + 2, IMX_B64URL_LEN(64) + 1);
    }
    EVP_MD_CTX_free(md);
    free(input);
    free(header);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

char *imx_docsign_jwks(void)
{
    json_t *j = json_pack("{s:[{s:s, s:s, s:s, s:s, s:s, s:s}]}", "keys", "kty", "OKP", "crv",
                          "Ed25519", "x", pub_x, "kid", kid, "alg", "EdDSA", "use", "sig");
    char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    return s;
}
