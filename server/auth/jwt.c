/* Access tokens: JWT HS256 with our own checks of alg, kid and every time claim. libjwt 1.10
 * verifies with whatever alg the token names, so the header is checked before it is trusted. */
#include "auth/jwt.h"

#include <errno.h>
#include <jansson.h>
#include <jwt.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"
#include "util/config.h"

struct key {
    char kid[IMX_JWT_KID_LEN + 1];
    unsigned char secret[IMX_JWT_SECRET_MAX];
    size_t len;
};

/* [0] signs and verifies; [1], when set, only verifies (the key being rotated out). */
static struct key keys[2];
static size_t nkeys;

#define HEADER_MAX 512

enum imx_jwt_result imx_jwt_check_claims(const struct imx_jwt_claims *c, long long now,
                                         int64_t *user_id)
{
    unsigned long long sub = 0;
    if (!c->iss || strcmp(c->iss, IMX_JWT_ISSUER) != 0)
        return IMX_JWT_BAD_ISSUER;
    if (!c->aud || strcmp(c->aud, IMX_JWT_AUDIENCE) != 0)
        return IMX_JWT_BAD_AUDIENCE;
    if (!c->has_exp || !c->has_iat)
        return IMX_JWT_MALFORMED;
    if (now > c->exp + IMX_JWT_LEEWAY_S)
        return IMX_JWT_EXPIRED;
    if (c->iat > now + IMX_JWT_LEEWAY_S || (c->has_nbf && c->nbf > now + IMX_JWT_LEEWAY_S))
        return IMX_JWT_NOT_YET_VALID;
    if (imx_parse_uint(c->sub, 1, INT64_MAX, &sub) != 0)
        return IMX_JWT_BAD_SUBJECT;
    *user_id = (int64_t)sub;
    return IMX_JWT_OK;
}

const char *imx_jwt_result_name(enum imx_jwt_result res)
{
    static const char *const names[] = {
        [IMX_JWT_OK] = "ok",
        [IMX_JWT_MALFORMED] = "malformed",
        [IMX_JWT_BAD_ALG] = "algorithm not allowed",
        [IMX_JWT_UNKNOWN_KID] = "unknown key id",
        [IMX_JWT_BAD_SIGNATURE] = "bad signature",
        [IMX_JWT_EXPIRED] = "expired",
        [IMX_JWT_NOT_YET_VALID] = "not yet valid",
        [IMX_JWT_BAD_ISSUER] = "wrong issuer",
        [IMX_JWT_BAD_AUDIENCE] = "wrong audience",
        [IMX_JWT_BAD_SUBJECT] = "bad subject",
    };
    return (unsigned)res < sizeof names / sizeof names[0] ? names[res] : "unknown";
}

void imx_jwt_kid(const char *secret, size_t len, char out[IMX_JWT_KID_LEN + 1])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    memset(md, 0, sizeof md);
    if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
        EVP_DigestUpdate(ctx, "imaxe-kid:", strlen("imaxe-kid:")) == 1 &&
        EVP_DigestUpdate(ctx, secret, len) == 1)
        EVP_DigestFinal_ex(ctx, md, &mdlen);
    EVP_MD_CTX_free(ctx);
    for (size_t i = 0; i < IMX_JWT_KID_LEN / 2; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static int key_set(struct key *k, const char *what, const char *secret, char *err, size_t errlen)
{
    size_t len = strlen(secret);
    if (len < IMX_JWT_SECRET_MIN || len > IMX_JWT_SECRET_MAX) {
        snprintf(err, errlen, "%s must be %d to %d bytes long (it is %zu)", what,
                 IMX_JWT_SECRET_MIN, IMX_JWT_SECRET_MAX, len);
        return -1;
    }
    memcpy(k->secret, secret, len);
    k->len = len;
    imx_jwt_kid(secret, len, k->kid);
    return 0;
}

static void verified_clear(void);

int imx_jwt_keys_set(const char *current, const char *previous, char *err, size_t errlen)
{
    verified_clear(); /* a token verified with a key being dropped must be checked again */
    nkeys = 0;
    if (key_set(&keys[0], "IMAXE_JWT_SECRET", current, err, errlen) != 0)
        return -1;
    nkeys = 1;
    if (previous && *previous) {
        if (key_set(&keys[1], "IMAXE_JWT_SECRET_PREVIOUS", previous, err, errlen) != 0)
            return -1;
        nkeys = 2;
    }
    return 0;
}

char *imx_jwt_issue(int64_t user_id, long long now, long ttl_s)
{
    jwt_t *jwt = NULL;
    char sub[24];
    char *out = NULL;
    if (nkeys == 0 || jwt_new(&jwt) != 0)
        return NULL;
    snprintf(sub, sizeof sub, "%lld", (long long)user_id);
    if (jwt_set_alg(jwt, JWT_ALG_HS256, keys[0].secret, (int)keys[0].len) == 0 &&
        jwt_add_header(jwt, "kid", keys[0].kid) == 0 &&
        jwt_add_grant(jwt, "iss", IMX_JWT_ISSUER) == 0 &&
        jwt_add_grant(jwt, "aud", IMX_JWT_AUDIENCE) == 0 && jwt_add_grant(jwt, "sub", sub) == 0 &&
        jwt_add_grant_int(jwt, "iat", (long)now) == 0 &&
        jwt_add_grant_int(jwt, "nbf", (long)now) == 0 &&
        jwt_add_grant_int(jwt, "exp", (long)(now + ttl_s)) == 0)
        out = jwt_encode_str(jwt);
    jwt_free(jwt);
    return out;
}

/* Reads the header (the part before the first dot) and picks the key its kid names, accepting
 * only {"alg":"HS256"} with an optional typ "JWT". */
static enum imx_jwt_result pick_key(const char *token, const struct key **key)
{
    const char *dot = strchr(token, '.');
    unsigned char raw[HEADER_MAX];
    if (!dot || dot == token)
        return IMX_JWT_MALFORMED;
    long n = imx_b64url_decode(token, (size_t)(dot - token), raw, sizeof raw);
    if (n <= 0)
        return IMX_JWT_MALFORMED;
    json_t *hdr = json_loadb((const char *)raw, (size_t)n, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(hdr)) {
        json_decref(hdr);
        return IMX_JWT_MALFORMED;
    }
    enum imx_jwt_result res = IMX_JWT_OK;
    const char *alg = json_string_value(json_object_get(hdr, "alg"));
    const char *kid = json_string_value(json_object_get(hdr, "kid"));
    json_t *typ = json_object_get(hdr, "typ");
    if (!alg || strcmp(alg, "HS256") != 0 || json_object_get(hdr, "crit"))
        res = IMX_JWT_BAD_ALG;
    else if (typ && (!json_is_string(typ) || strcmp(json_string_value(typ), "JWT") != 0))
        res = IMX_JWT_MALFORMED;
    else
        res = IMX_JWT_UNKNOWN_KID;
    for (size_t i = 0; res == IMX_JWT_UNKNOWN_KID && kid && i < nkeys; i++) {
        if (strcmp(kid, keys[i].kid) == 0) {
            *key = &keys[i];
            res = IMX_JWT_OK;
        }
    }
    json_decref(hdr);
    return res;
}

/* An integer claim of the payload; false when absent. A present claim of another type makes
 * *bad true, so that it is never read as absent. */
static bool claim_int(const json_t *payload, const char *name, long long *out, bool *bad)
{
    json_t *v = json_object_get(payload, name);
    if (!v)
        return false;
    if (!json_is_integer(v)) {
        *bad = true;
        return false;
    }
    *out = json_integer_value(v);
    return true;
}

/* Tokens verified before: the SHA-256 of the token text, its subject and expiry. A token seen
 * again is the same bytes already checked (signature, alg, kid, issuer, audience, times), so
 * only its expiry needs looking at; decoding one costs three JSON passes and an HMAC. A fixed
 * table (VERIFIED_SLOTS), a newer token replacing an older one in its slot. */
#define VERIFIED_SLOTS 1024
#define VERIFIED_LOCKS 16
static struct {
    unsigned char digest[32];
    bool used;
    int64_t user_id;
    long long exp, not_before; /* exp, and the later of iat and nbf */
} verified[VERIFIED_SLOTS];
static pthread_mutex_t verified_locks[VERIFIED_LOCKS] = {
#define L PTHREAD_MUTEX_INITIALIZER
    L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L,
#undef L
};

/* SHA-256 fetched once, and a digest context for each thread, freed when the thread (a
 * connection's) ends: EVP_Digest with EVP_sha256() looked the algorithm up again (OpenSSL 3's
 * implicit fetch) and allocated a context every call, 5.7 % of the server's CPU on get by id. */
static EVP_MD *sha256;
static pthread_key_t digest_ctx_key;
static bool digest_ctx_keyed;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void free_digest_ctx(void *ctx)
{
    EVP_MD_CTX_free(ctx);
}

static void fetch_sha256(void)
{
    sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    digest_ctx_keyed = pthread_key_create(&digest_ctx_key, free_digest_ctx) == 0;
}

static bool token_digest(const char *token, unsigned char out[32])
{
    pthread_once(&sha256_once, fetch_sha256);
    if (!sha256 || !digest_ctx_keyed)
        return false;
    EVP_MD_CTX *ctx = pthread_getspecific(digest_ctx_key);
    if (!ctx) {
        if (!(ctx = EVP_MD_CTX_new()))
            return false;
        if (pthread_setspecific(digest_ctx_key, ctx) != 0) {
            EVP_MD_CTX_free(ctx);
            return false;
        }
    }
    unsigned int len = 0;
    return EVP_DigestInit_ex2(ctx, sha256, NULL) == 1 &&
           EVP_DigestUpdate(ctx, token, strlen(token)) == 1 &&
           EVP_DigestFinal_ex(ctx, out, &len) == 1 && len == 32;
}

static bool verified_get(const unsigned char digest[32], long long now, int64_t *user_id)
{
    size_t i = ((size_t)digest[0] | (size_t)digest[1] << 8) % VERIFIED_SLOTS;
    pthread_mutex_t *m = &verified_locks[i % VERIFIED_LOCKS];
    pthread_mutex_lock(m);
    bool hit = verified[i].used && memcmp(verified[i].digest, digest, 32) == 0 &&
               now <= verified[i].exp + IMX_JWT_LEEWAY_S &&
               verified[i].not_before <= now + IMX_JWT_LEEWAY_S;
    if (hit)
        *user_id = verified[i].user_id;
    pthread_mutex_unlock(m);
    return hit;
}

static void verified_put(const unsigned char digest[32], int64_t user_id, long long exp,
                         long long not_before)
{
    size_t i = ((size_t)digest[0] | (size_t)digest[1] << 8) % VERIFIED_SLOTS;
    pthread_mutex_t *m = &verified_locks[i % VERIFIED_LOCKS];
    pthread_mutex_lock(m);
    memcpy(verified[i].digest, digest, 32);
    verified[i].used = true;
    verified[i].user_id = user_id;
    verified[i].exp = exp;
    verified[i].not_before = not_before;
    pthread_mutex_unlock(m);
}

/* Forgets every verified token (the keys changed). */
static void verified_clear(void)
{
    for (size_t i = 0; i < VERIFIED_SLOTS; i++) {
        pthread_mutex_t *m = &verified_locks[i % VERIFIED_LOCKS];
        pthread_mutex_lock(m);
        verified[i].used = false;
        pthread_mutex_unlock(m);
    }
}

static enum imx_jwt_result verify_decoded(const char *token, long long now, int64_t *user_id,
                                          long long *exp, long long *not_before);

enum imx_jwt_result imx_jwt_verify(const char *token, long long now, int64_t *user_id)
{
    if (!token || strlen(token) > IMX_JWT_TOKEN_MAX)
        return IMX_JWT_MALFORMED;
    unsigned char digest[32];
    bool digested = token_digest(token, digest);
    if (digested && verified_get(digest, now, user_id))
        return IMX_JWT_OK;
    long long exp = 0, not_before = 0;
    enum imx_jwt_result res = verify_decoded(token, now, user_id, &exp, &not_before);
    if (res == IMX_JWT_OK && digested)
        verified_put(digest, *user_id, exp, not_before);
    return res;
}

/* The full verification of a token: header, signature, claims. *exp gets its expiry. */
static enum imx_jwt_result verify_decoded(const char *token, long long now, int64_t *user_id,
                                          long long *exp, long long *not_before)
{
    const struct key *key = NULL;
    enum imx_jwt_result res = pick_key(token, &key);
    if (res != IMX_JWT_OK)
        return res;
    jwt_t *jwt = NULL;
    if (jwt_decode(&jwt, token, key->secret, (int)key->len) != 0 || !jwt) {
        jwt_free(jwt);
        return IMX_JWT_BAD_SIGNATURE;
    }
    /* Checked again after decoding, in case libjwt read the header differently. */
    if (jwt_get_alg(jwt) != JWT_ALG_HS256) {
        jwt_free(jwt);
        return IMX_JWT_BAD_ALG;
    }
    char *text = jwt_get_grants_json(jwt, NULL);
    json_t *payload = text ? json_loads(text, JSON_REJECT_DUPLICATES, NULL) : NULL;
    free(text);
    jwt_free(jwt);
    if (!json_is_object(payload)) {
        json_decref(payload);
        return IMX_JWT_MALFORMED;
    }
    bool bad = false;
    struct imx_jwt_claims c = {
        .iss = json_string_value(json_object_get(payload, "iss")),
        .aud = json_string_value(json_object_get(payload, "aud")),
        .sub = json_string_value(json_object_get(payload, "sub")),
    };
    c.has_exp = claim_int(payload, "exp", &c.exp, &bad);
    c.has_nbf = claim_int(payload, "nbf", &c.nbf, &bad);
    c.has_iat = claim_int(payload, "iat", &c.iat, &bad);
    res = bad ? IMX_JWT_MALFORMED : imx_jwt_check_claims(&c, now, user_id);
    *exp = c.exp;
    *not_before = c.has_nbf && c.nbf > c.iat ? c.nbf : c.iat;
    json_decref(payload);
    return res;
}
