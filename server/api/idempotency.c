/* Idempotency-Key for every creating route (see api/idempotency.h). */
#include "api/idempotency.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "db/idempotency.h"
#include "db/tx.h"
#include "http/router.h"
#include "util/config.h"
#include "util/log.h"

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

/* SHA-256 of method, path and body, as 64 hex digits into hex. */
static void fingerprint(const struct imx_req *r, char hex[65])
{
    unsigned char md[SHA256_DIGEST_LENGTH] = { 0 };
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1 ||
        EVP_DigestUpdate(ctx, r->method, strlen(r->method) + 1) != 1 ||
        EVP_DigestUpdate(ctx, r->path_orig, strlen(r->path_orig) + 1) != 1 ||
        (r->body && EVP_DigestUpdate(ctx, r->body, r->body_len) != 1) ||
        EVP_DigestFinal_ex(ctx, md, NULL) != 1)
        imx_error("request %s: SHA-256 failed", r->request_id); /* all-zero: matches nothing */
    EVP_MD_CTX_free(ctx);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* Answers with the stored reply res row 0 (status, content_type, headers, body). Returns 0, or
 * -1 after replying 500. */
static int replay(struct imx_req *r, const PGresult *res)
{
    unsigned long long status = 200;
    if (imx_parse_uint(PQgetvalue(res, 0, 1), 200, 399, &status) != 0)
        status = 200;
    char *body = strdup(PQgetvalue(res, 0, 4));
    json_t *headers = json_loads(PQgetvalue(res, 0, 3), 0, NULL);
    /* The content type must outlive the result: only the types handlers use are kept. */
    const char *ct = PQgetvalue(res, 0, 2);
    static const char *const types[] = { "application/json", "application/problem+json",
                                         "text/plain; charset=utf-8", "text/csv; charset=utf-8",
                                         "application/x-ndjson" };
    const char *type = "application/json";
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(ct, types[i]) == 0)
            type = types[i];
    if (!body || !json_is_array(headers)) {
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
    char *body = malloc(rp->len + 1);
    char *headers = headers_json(r, from);
    if (!body || !headers) {
        free(body);
        free(headers);
        drop_headers(r, from);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    if (rp->len)
        memcpy(body, rp->body, rp->len);
    body[rp->len] = '\0';
    char status[8];
    snprintf(status, sizeof status, "%u", rp->status);
    PGresult *res = imx_db_idempotency_put(r->db, p->user, p->token, key, fp, status,
                                           rp->content_type ? rp->content_type : "application/json",
                                           headers, body);
    free(body);
    free(headers);
    int rc = 0;
    if (!imx_db_ok(res)) {
        drop_headers(r, from);
        imx_api_db_error(r, res);
        rc = -1;
    } else if (PQntuples(res) != 1) {
        /* Cannot happen while the key's lock is held; refuse rather than commit unkeyed. */
        drop_headers(r, from);
        imx_reply_header(r, "Retry-After", "1");
        imx_reply_problem(r, IMX_E_CONFLICT,
                          "Another request with this Idempotency-Key is in progress; retry");
        rc = -1;
    }
    PQclear(res);
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
    if (imx_db_command(c, "BEGIN") != 0) {
        imx_api_db_error(r, NULL);
        return;
    }
    PGresult *res = NULL;
    int locked = imx_db_idempotency_lock(c, p.user, p.token, key, &res);
    if (locked != 1) {
        if (locked < 0)
            imx_api_db_error(r, res);
        else {
            imx_reply_header(r, "Retry-After", "1");
            imx_reply_problem(r, IMX_E_CONFLICT,
                              "Another request with this Idempotency-Key is in progress; retry");
        }
        PQclear(res);
        imx_db_command(c, "ROLLBACK");
        return;
    }
    res = imx_db_idempotency_get(c, p.user, p.token, key);
    if (!imx_db_ok(res) || PQntuples(res) == 1) {
        if (!imx_db_ok(res))
            imx_api_db_error(r, res);
        else if (strcmp(PQgetvalue(res, 0, 0), fp) != 0)
            imx_reply_problem(r, IMX_E_UNPROCESSABLE,
                              "This Idempotency-Key was used with a different request (method, "
                              "path or body) in the last %u hours",
                              imx_db_idempotency_ttl());
        else
            replay(r, res);
        PQclear(res);
        imx_db_command(c, "ROLLBACK");
        return;
    }
    PQclear(res);

    size_t from = r->reply.nheaders;
    r->tx_outer = true;
    r->route->handler(r);
    r->tx_outer = false;
    if (r->db != c) {
        /* The handler gave the connection back (it cannot: imx_api_db keeps a primary one). */
        imx_error("request %s: connection changed inside an Idempotency-Key transaction",
                  r->request_id);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    if (r->reply.status == 0 || r->reply.status >= 400 || store(r, &p, key, fp, from) < 0) {
        imx_db_command(c, "ROLLBACK");
        return;
    }
    res = imx_db_tx_commit(c);
    if (!imx_db_ok(res)) {
        drop_headers(r, from);
        imx_api_db_error(r, res);
        imx_db_command(c, "ROLLBACK");
    }
    PQclear(res);
}
