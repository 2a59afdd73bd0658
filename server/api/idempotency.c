/* Idempotency-Key for every creating route (see api/idempotency.h). */
#include "api/idempotency.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "db/idempotency.h"
#include "api/tx.h"
#include "http/router.h"
#include "util/base64.h"
#include "util/config.h"
#include "util/log.h"

/* A stored reply's body is sealed: a creating reply can carry a secret shown once (an API
 * token, a webhook's signing secret), which must not lie readable in the database for as long as
 * the key lives. "v1." then base64url of nonce, AES-256-GCM ciphertext and tag; the request's
 * fingerprint is the associated data, so a sealed body opens only for the request it answered. */
#define SEAL_PREFIX "v1."
#define SEAL_NONCE  12
#define SEAL_TAG    16

static unsigned char seal_keys[2][IMX_IDEMPOTENCY_SEAL_KEY];
static int n_seal_keys;

void imx_api_idempotency_set_keys(const unsigned char current[IMX_IDEMPOTENCY_SEAL_KEY],
                                  const unsigned char *previous)
{
    memcpy(seal_keys[0], current, IMX_IDEMPOTENCY_SEAL_KEY);
    n_seal_keys = 1;
    if (previous) {
        memcpy(seal_keys[1], previous, IMX_IDEMPOTENCY_SEAL_KEY);
        n_seal_keys = 2;
    }
}

/* AES-256-GCM of n bytes under key with the given nonce and associated data; out gets the
 * ciphertext (n bytes) then the tag. Returns 0, or -1. */
static int gcm_seal(const unsigned char *key, const unsigned char *nonce, const char *aad,
                    const unsigned char *in, size_t n, unsigned char *out)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int len = 0, ok = ctx && n <= INT32_MAX &&
                      EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, nonce) == 1 &&
                      EVP_EncryptUpdate(ctx, NULL, &len, (const unsigned char *)aad,
                                        (int)strlen(aad)) == 1 &&
                      EVP_EncryptUpdate(ctx, out, &len, in, (int)n) == 1 &&
                      EVP_EncryptFinal_ex(ctx, out + len, &len) == 1 &&
                      EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, SEAL_TAG, out + n) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? 0 : -1;
}

/* The inverse: n bytes of ciphertext followed by the tag into out. Returns 0, or -1 when the
 * tag does not match (another key, another request, a changed row). */
static int gcm_open(const unsigned char *key, const unsigned char *nonce, const char *aad,
                    const unsigned char *in, size_t n, unsigned char *out)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int len = 0,
        ok =
            ctx && n <= INT32_MAX &&
            EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, nonce) == 1 &&
            EVP_DecryptUpdate(ctx, NULL, &len, (const unsigned char *)aad, (int)strlen(aad)) == 1 &&
            EVP_DecryptUpdate(ctx, out, &len, in, (int)n) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, SEAL_TAG, (void *)(in + n)) == 1 &&
            EVP_DecryptFinal_ex(ctx, out + len, &len) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? 0 : -1;
}

/* The sealed text of body (n bytes) for the request fingerprint fp. New string, or NULL. */
static char *seal(const char *body, size_t n, const char *fp)
{
    size_t raw_len = SEAL_NONCE + n + SEAL_TAG;
    unsigned char *raw = n_seal_keys ? malloc(raw_len) : NULL;
    char *out = raw ? malloc(sizeof SEAL_PREFIX + IMX_B64URL_LEN(raw_len)) : NULL;
    bool ok =
        out && RAND_bytes(raw, SEAL_NONCE) == 1 &&
        gcm_seal(seal_keys[0], raw, fp, (const unsigned char *)body, n, raw + SEAL_NONCE) == 0;
    if (ok) {
        memcpy(out, SEAL_PREFIX, sizeof SEAL_PREFIX - 1);
        ok = imx_b64url_encode(raw, raw_len, out + sizeof SEAL_PREFIX - 1,
                               IMX_B64URL_LEN(raw_len) + 1) > 0;
    }
    free(raw);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

/* The body a stored text holds for the request fingerprint fp: opened with the current key or
 * the previous one; a text from before replies were sealed as it is. New string, or NULL when
 * it cannot be opened. */
static char *unseal(const char *text, const char *fp)
{
    size_t pl = sizeof SEAL_PREFIX - 1, tl = strlen(text);
    if (strncmp(text, SEAL_PREFIX, pl) != 0)
        return strdup(text);
    size_t cap = (tl - pl) * 3 / 4 + 1;
    unsigned char *raw = malloc(cap);
    long rl = raw ? imx_b64url_decode(text + pl, tl - pl, raw, cap) : -1;
    char *body =
        rl >= SEAL_NONCE + SEAL_TAG ? malloc((size_t)rl - SEAL_NONCE - SEAL_TAG + 1) : NULL;
    bool ok = false;
    if (body) {
        size_t n = (size_t)rl - SEAL_NONCE - SEAL_TAG;
        for (int k = 0; k < n_seal_keys && !ok; k++)
            ok = gcm_open(seal_keys[k], raw, fp, raw + SEAL_NONCE, n, (unsigned char *)body) == 0;
        body[n] = '\0';
    }
    if (raw)
        sodium_memzero(raw, cap);
    free(raw);
    if (!ok && body) {
        sodium_memzero(body, (size_t)rl - SEAL_NONCE - SEAL_TAG);
        free(body);
        body = NULL;
    }
    return body;
}

struct principal_ids {
    char user[24], token[24];
};

static bool key_ok(const char *k)
{
    size_t n = strlen(k);
    if (n < 1 || n > IMX_IDEMPOTENCY_KEY_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)k[i] < 0x21 || (unsigned char)k[i] > 0x7e)
            return false;
    return true;
}

/* One query argument into the digest: the name and the value, each with its NUL, so that
 * "a=bc" and "ab=c" differ; an argument without a value ("?flag") hashes as a lone 0x01. */
static void digest_arg(void *cls, const char *key, const char *value)
{
    EVP_MD_CTX *ctx = cls;
    EVP_DigestUpdate(ctx, key ? key : "", key ? strlen(key) + 1 : 1);
    if (value)
        EVP_DigestUpdate(ctx, value, strlen(value) + 1);
    else
        EVP_DigestUpdate(ctx, "\x01", 1);
}

/* SHA-256 of the whole request as 64 hex digits into hex: the caller (user, token, team), method,
 * path, every query argument in order and the body. A key reused on any other request, such as
 * the same body for another team's ?team=, is then a 422, never a replay of the first answer. */
static void fingerprint(const struct imx_req *r, char hex[65])
{
    unsigned char md[SHA256_DIGEST_LENGTH] = { 0 };
    char caller[80];
    int cn = snprintf(caller, sizeof caller, "v2:%lld:%lld:%lld", (long long)r->principal.user_id,
                      (long long)r->principal.token_id, (long long)r->principal.token_team);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    bool ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
              EVP_DigestUpdate(ctx, caller, (size_t)cn + 1) == 1 &&
              EVP_DigestUpdate(ctx, r->method, strlen(r->method) + 1) == 1 &&
              EVP_DigestUpdate(ctx, r->path_orig, strlen(r->path_orig) + 1) == 1;
    if (ok && r->conn)
        imx_req_query_foreach(r, digest_arg, ctx);
    ok = ok && EVP_DigestUpdate(ctx, "?", 1) == 1 &&
         (!r->body || EVP_DigestUpdate(ctx, r->body, r->body_len) == 1) &&
         EVP_DigestFinal_ex(ctx, md, NULL) == 1;
    if (!ok) {
        memset(md, 0, sizeof md);
        imx_error("request %s: SHA-256 failed", r->request_id); /* all-zero: matches nothing */
    }
    EVP_MD_CTX_free(ctx);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* Answers with the stored reply. Returns 0, or -1 after replying 500. */
static int replay(struct imx_req *r, const struct imx_db_idempotency_reply *res, const char *fp)
{
    unsigned long long status = 200;
    if (imx_parse_uint(res->status, 200, 399, &status) != 0)
        status = 200;
    char *body = unseal(res->body, fp);
    if (!body) {
        imx_warn("request %s: the stored reply of its Idempotency-Key does not open (the JWT "
                 "secret changed twice since, or the row was changed)",
                 r->request_id);
        imx_reply_problem(r, IMX_E_CONFLICT,
                          "This Idempotency-Key's request succeeded, but its stored reply can no "
                          "longer be read; look the result up rather than retry");
        return -1;
    }
    json_t *headers = json_loads(res->headers, 0, NULL);
    /* The content type must outlive the stored reply: only the types handlers use are kept. */
    const char *ct = res->content_type;
    static const char *const types[] = { "application/json", "application/problem+json",
                                         "text/plain; charset=utf-8", "text/csv; charset=utf-8",
                                         "application/x-ndjson" };
    const char *type = "application/json";
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(ct, types[i]) == 0)
            type = types[i];
    if (!json_is_array(headers)) {
        sodium_memzero(body, strlen(body));
        free(body);
        json_decref(headers);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    size_t i;
    json_t *h;
    json_array_foreach(headers, i, h)
    {
        const char *name = json_string_value(json_array_get(h, 0));
        const char *value = json_string_value(json_array_get(h, 1));
        if (name && value)
            imx_reply_header(r, name, value);
    }
    json_decref(headers);
    imx_reply_header(r, "Idempotent-Replayed", "true");
    imx_reply_raw_steal(r, (unsigned)status, type, body, strlen(body), NULL, NULL);
    return 0;
}

/* The handler's headers from index from on, as a JSON array text of [name, value] (new). */
static char *headers_json(const struct imx_req *r, size_t from)
{
    json_t *a = json_array();
    for (size_t i = from; a && i < r->reply.nheaders; i++)
        json_array_append_new(
            a, json_pack("[s, s]", r->reply.headers[i].name, r->reply.headers[i].value));
    char *text = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return text;
}

/* Drops the headers the handler added (from index from on), for a reply that replaces its own. */
static void drop_headers(struct imx_req *r, size_t from)
{
    for (size_t i = from; i < r->reply.nheaders; i++) {
        free(r->reply.headers[i].name);
        free(r->reply.headers[i].value);
    }
    if (from < r->reply.nheaders)
        r->reply.nheaders = from;
}

/* Stores the handler's reply under the key (in the open transaction). Returns 0, or -1 failed
 * (the reply is replaced by the problem). */
static int store(struct imx_req *r, const struct principal_ids *p, const char *key, const char *fp,
                 size_t from)
{
    const struct imx_reply *rp = &r->reply;
    char *body = seal(rp->body ? rp->body : "", rp->len, fp);
    char *headers = headers_json(r, from);
    if (!body || !headers) {
        free(body);
        free(headers);
        drop_headers(r, from);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    char status[8];
    snprintf(status, sizeof status, "%u", rp->status);
    struct imx_db_fault why;
    enum imx_db_status st = imx_db_idempotency_put(
        imx_api_conn(r), p->user, p->token, key, fp, status,
        rp->content_type ? rp->content_type : "application/json", headers, body, &why);
    free(body);
    free(headers);
    int rc = 0;
    if (st != IMX_DBS_OK && st != IMX_DBS_CONFLICT) {
        drop_headers(r, from);
        imx_api_reply_db_fault(r, st, &why);
        rc = -1;
    } else if (st == IMX_DBS_CONFLICT && why.cause != IMX_DBC_UNIQUE) {
        /* Cannot happen while the key's lock is held; refuse rather than commit unkeyed. */
        drop_headers(r, from);
        imx_reply_header(r, "Retry-After", "1");
        imx_reply_problem(r, IMX_E_CONFLICT,
                          "Another request with this Idempotency-Key is in progress; retry");
        rc = -1;
    } else if (st == IMX_DBS_CONFLICT) {
        drop_headers(r, from);
        imx_api_db_error(r, &why);
        rc = -1;
    }
    return rc;
}

void imx_api_idempotent(struct imx_req *r)
{
    const char *key = imx_req_header(r, "Idempotency-Key");
    if (!key || !r->principal.authenticated) {
        r->route->handler(r);
        return;
    }
    if (!key_ok(key)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          "Idempotency-Key must be 1 to %d visible ASCII characters",
                          IMX_IDEMPOTENCY_KEY_MAX);
        return;
    }
    struct principal_ids p;
    snprintf(p.user, sizeof p.user, "%lld", (long long)r->principal.user_id);
    snprintf(p.token, sizeof p.token, "%lld", (long long)r->principal.token_id);
    char fp[65];
    fingerprint(r, fp);

    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    struct imx_db_fault why;
    if (imx_db_tx(c, IMX_DB_TX_BEGIN, &why) != IMX_DBS_OK) {
        imx_api_db_error(r, &why);
        return;
    }
    enum imx_db_status st = imx_db_idempotency_lock(c, p.user, p.token, key, &why);
    if (st != IMX_DBS_OK) {
        if (st != IMX_DBS_CONFLICT || why.cause == IMX_DBC_UNIQUE)
            imx_api_reply_db_fault(r, st, &why);
        else {
            imx_reply_header(r, "Retry-After", "1");
            imx_reply_problem(r, IMX_E_CONFLICT,
                              "Another request with this Idempotency-Key is in progress; retry");
        }
        imx_db_tx(c, IMX_DB_TX_ROLLBACK, NULL);
        return;
    }
    struct imx_db_idempotency_reply res;
    st = imx_db_idempotency_get(c, p.user, p.token, key, &res, &why);
    if (st != IMX_DBS_NOT_FOUND) {
        if (st != IMX_DBS_OK)
            imx_api_reply_db_fault(r, st, &why);
        else if (strcmp(res.fingerprint, fp) != 0)
            imx_reply_problem(r, IMX_E_UNPROCESSABLE,
                              "This Idempotency-Key was used with a different request (method, "
                              "path, query or body) in the last %u hours",
                              imx_db_idempotency_ttl());
        else
            replay(r, &res, fp);
        imx_db_idempotency_reply_free(&res);
        imx_db_tx(c, IMX_DB_TX_ROLLBACK, NULL);
        return;
    }

    size_t from = r->reply.nheaders;
    imx_api_tx_outer(r, true);
    r->route->handler(r);
    imx_api_tx_outer(r, false);
    if (imx_api_conn(r) != c) {
        /* The handler gave the connection back (it cannot: imx_api_db keeps a primary one). */
        imx_error("request %s: connection changed inside an Idempotency-Key transaction",
                  r->request_id);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    if (r->reply.status == 0 || r->reply.status >= 400 || store(r, &p, key, fp, from) < 0) {
        imx_db_tx(c, IMX_DB_TX_ROLLBACK, NULL);
        return;
    }
    if (imx_db_tx(c, IMX_DB_TX_COMMIT, &why) != IMX_DBS_OK) {
        drop_headers(r, from);
        imx_api_db_error(r, &why);
        imx_db_tx(c, IMX_DB_TX_ROLLBACK, NULL);
    }
}
