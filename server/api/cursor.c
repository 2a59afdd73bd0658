/* Keyset cursors for list endpoints: opaque, tamper-evident (HMAC) encodings of a row key, and
 * the ?limit=, ?cursor= and page replies every keyset list shares. */
#include "api/cursor.h"

#include <openssl/crypto.h>
#include <stdbool.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "util/base64.h"
#include "util/config.h"

#define KEY_MIN   32
#define KEY_MAX   64
#define MAC_BYTES 16 /* truncated HMAC-SHA256: forging needs 2^128 tries */
#define JSON_MAX  300
#define LINK_MAX  4096

static unsigned char cursor_key[KEY_MAX];
static size_t cursor_key_len;

int imx_cursor_set_key(const unsigned char *key, size_t len)
{
    if (len < KEY_MIN || len > KEY_MAX)
        return -1;
    memcpy(cursor_key, key, len);
    cursor_key_len = len;
    return 0;
}

static void mac(const char *data, size_t len, unsigned char out[MAC_BYTES])
{
    unsigned char full[EVP_MAX_MD_SIZE];
    unsigned int flen = 0;
    HMAC(EVP_sha256(), cursor_key, (int)cursor_key_len, (const unsigned char *)data, len, full,
         &flen);
    memcpy(out, full, MAC_BYTES);
}

int imx_cursor_encode(const json_t *key, char *out, size_t len)
{
    if (cursor_key_len == 0 || !key)
        return -1;
    char *text = json_dumps(key, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text)
        return -1;
    size_t tl = strlen(text);
    unsigned char m[MAC_BYTES];
    int rc = -1;
    size_t need = IMX_B64URL_LEN(tl) + 1 + IMX_B64URL_LEN(MAC_BYTES) + 1;
    if (tl <= JSON_MAX && need <= len) {
        mac(text, tl, m);
        size_t n = imx_b64url_encode((const unsigned char *)text, tl, out, len);
        out[n] = '.';
        imx_b64url_encode(m, MAC_BYTES, out + n + 1, len - n - 1);
        rc = 0;
    }
    free(text);
    return rc;
}

json_t *imx_cursor_decode(const char *s)
{
    unsigned char text[JSON_MAX + 1], m[MAC_BYTES + 1], want[MAC_BYTES];
    if (!s || cursor_key_len == 0 || strlen(s) >= IMX_CURSOR_MAX)
        return NULL;
    const char *dot = strchr(s, '.');
    if (!dot)
        return NULL;
    long tl = imx_b64url_decode(s, (size_t)(dot - s), text, JSON_MAX);
    long ml = imx_b64url_decode(dot + 1, strlen(dot + 1), m, sizeof m);
    if (tl <= 0 || ml != MAC_BYTES)
        return NULL;
    mac((const char *)text, (size_t)tl, want);
    if (CRYPTO_memcmp(m, want, MAC_BYTES) != 0)
        return NULL;
    return json_loadb((const char *)text, (size_t)tl, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
                      NULL);
}

struct link_ctx {
    char buf[LINK_MAX];
    size_t len;
    bool overflow;
};

static void link_append(struct link_ctx *l, const char *s)
{
    size_t n = strlen(s);
    if (l->len + n + 1 > sizeof l->buf) {
        l->overflow = true;
        return;
    }
    memcpy(l->buf + l->len, s, n + 1);
    l->len += n;
}

/* Appends s percent-encoded (RFC 3986 unreserved characters stay, and '/' when keep_slash). */
static void append_encoded(struct link_ctx *l, const char *s, bool keep_slash)
{
    for (; *s && !l->overflow; s++) {
        unsigned char c = (unsigned char)*s;
        char enc[4];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
            enc[0] = (char)c;
            enc[1] = '\0';
        } else {
            snprintf(enc, sizeof enc, "%%%02X", c);
        }
        link_append(l, enc);
    }
}

static void link_append_encoded(struct link_ctx *l, const char *s)
{
    append_encoded(l, s, false);
}

static void link_arg(void *cls, const char *key, const char *value)
{
    struct link_ctx *l = cls;
    if (strcmp(key, "cursor") == 0)
        return;
    link_append(l, strchr(l->buf, '?') ? "&" : "?");
    link_append_encoded(l, key);
    link_append(l, "=");
    link_append_encoded(l, value);
}

void imx_api_link_next(struct imx_req *r, const char *cursor)
{
    struct link_ctx *l = calloc(1, sizeof *l);
    if (!l)
        return;
    link_append(l, "<");
    append_encoded(l, r->path_orig, true);
    imx_req_query_foreach(r, link_arg, l);
    link_append(l, strchr(l->buf, '?') ? "&cursor=" : "?cursor=");
    link_append_encoded(l, cursor);
    link_append(l, ">; rel=\"next\"");
    if (!l->overflow)
        imx_reply_header(r, "Link", l->buf);
    free(l);
}

bool imx_api_list_limit(struct imx_req *r, unsigned long long *limit)
{
    const char *s = imx_req_query(r, "limit");
    *limit = IMX_LIST_LIMIT_DEFAULT;
    if (s && imx_parse_uint(s, 1, IMX_LIST_LIMIT_MAX, limit) != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "limit must be from 1 to %d", IMX_LIST_LIMIT_MAX);
        return false;
    }
    return true;
}

bool imx_api_cursor_id(struct imx_req *r, char out[24], const char **key)
{
    const char *cursor = imx_req_query(r, "cursor");
    *key = NULL;
    if (!cursor)
        return true;
    json_t *k = imx_cursor_decode(cursor);
    json_t *id = json_array_get(k, 0);
    bool ok = json_is_integer(id) && json_array_size(k) == 1 && json_integer_value(id) >= 1;
    if (ok) {
        snprintf(out, 24, "%lld", (long long)json_integer_value(id));
        *key = out;
    } else {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "The cursor is not one this server made");
    }
    json_decref(k);
    return ok;
}

/* The key columns of row as a cursor key (new array). */
static json_t *row_key(const struct imx_db_rows *rows, int row, int col0, const char *key)
{
    json_t *k = json_array();
    for (int col = 0; key[col]; col++) {
        const char *v = imx_db_rows_text(rows, row, col0 + col, NULL);
        v = v ? v : "";
        json_array_append_new(k, key[col] == 'I' ? json_integer(strtoll(v, NULL, 10))
                                                 : json_string(v));
    }
    return k;
}

/* Copies n bytes of JSON text to out without the whitespace between tokens (PostgreSQL's json
 * prints "key" : value), as a compact dump would print it. Returns the bytes written (<= n). */
static size_t json_compact_copy(char *out, const char *in, size_t n)
{
    size_t o = 0;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            continue;
        }
        out[o++] = c;
    }
    return o;
}

void imx_api_reply_page(struct imx_req *r, enum imx_db_status st, const struct imx_db_fault *why,
                        struct imx_db_page *page, int col0, unsigned long long limit,
                        const char *key)
{
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, why);
        return;
    }
    imx_api_reply_page_rows(r, &page->rows, col0, limit, key);
    imx_db_page_free(page);
}

void imx_api_reply_page_rows(struct imx_req *r, const struct imx_db_rows *rows, int col0,
                             unsigned long long limit, const char *key)
{
    int item_col = col0 + (int)strlen(key), n = rows->n;
    if (col0 > 0 && n == 1 && !imx_db_rows_text(rows, 0, col0, NULL))
        n = 0; /* the one row of an empty page */
    int shown = n > (int)limit ? (int)limit : n;
    char next[IMX_CURSOR_MAX] = "";
    if (n > shown) {
        json_t *k = row_key(rows, shown - 1, col0, key);
        if (imx_cursor_encode(k, next, sizeof next) == 0)
            imx_api_link_next(r, next);
        else
            next[0] = '\0';
        json_decref(k);
    }
    /* The items are PostgreSQL's JSON text as it is: joined, not parsed and printed again, so a
     * page costs its size once more, not a tree of it. */
    static const char head[] = "{\"items\":[", mid[] = "],\"next_cursor\":";
    size_t len = sizeof head - 1 + sizeof mid - 1 + strlen(next) + 8, item_len;
    for (int i = 0; i < shown; i++) {
        imx_db_rows_text(rows, i, item_col, &item_len);
        len += item_len + 1;
    }
    char *body = malloc(len);
    if (!body) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    size_t o = 0;
    memcpy(body, head, sizeof head - 1);
    o += sizeof head - 1;
    for (int i = 0; i < shown; i++) {
        if (i > 0)
            body[o++] = ',';
        const char *item = imx_db_rows_text(rows, i, item_col, &item_len);
        o += json_compact_copy(body + o, item ? item : "null", item ? item_len : 4);
    }
    memcpy(body + o, mid, sizeof mid - 1);
    o += sizeof mid - 1;
    if (next[0])
        o += (size_t)snprintf(body + o, len - o, "\"%s\"}", next);
    else
        o += (size_t)snprintf(body + o, len - o, "null}");
    imx_reply_raw_steal(r, 200, "application/json", body, o, NULL, NULL);
}

bool imx_api_cursor_key(struct imx_req *r, const char *spec, json_t **key)
{
    const char *cursor = imx_req_query(r, "cursor");
    *key = NULL;
    if (!cursor)
        return true;
    json_t *k = imx_cursor_decode(cursor);
    bool ok = json_is_array(k) && json_array_size(k) == strlen(spec);
    for (size_t i = 0; ok && spec[i]; i++) {
        json_t *v = json_array_get(k, i);
        ok = spec[i] == 'I'   ? json_is_integer(v)
             : spec[i] == 's' ? json_is_string(v)
                              : json_is_object(v);
    }
    if (!ok) {
        json_decref(k);
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "The cursor is not one this server made");
        return false;
    }
    *key = k;
    return true;
}

const char *imx_api_key_text(const json_t *key, size_t i, char *buf, size_t len)
{
    const json_t *v = json_array_get(key, i);
    if (!v)
        return NULL;
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v)) {
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    size_t n = json_dumpb(v, buf, len - 1, JSON_COMPACT);
    if (n == 0 || n >= len - 1)
        return NULL;
    buf[n] = '\0';
    return buf;
}

void imx_api_reply_doc_page(struct imx_req *r, enum imx_db_status st,
                            const struct imx_db_fault *why, struct imx_db_page *page,
                            const char *not_found)
{
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, why);
        return;
    }
    const char *doc_text = page->rows.n == 1 ? imx_db_rows_text(&page->rows, 0, 0, NULL) : NULL;
    if (!doc_text) {
        imx_db_page_free(page);
        imx_reply_problem(r, IMX_E_NOT_FOUND, "%s", not_found);
        return;
    }
    imx_api_reply_doc_next(r, doc_text, imx_db_rows_text(&page->rows, 0, 1, NULL));
    imx_db_page_free(page);
}

const char *imx_api_key_text_int0(const char *key_text, char *buf, size_t len)
{
    json_t *k = key_text ? json_loads(key_text, 0, NULL) : NULL;
    const char *out = NULL;
    if (json_is_integer(json_array_get(k, 0))) {
        snprintf(buf, len, "%lld", (long long)json_integer_value(json_array_get(k, 0)));
        out = buf;
    }
    json_decref(k);
    return out;
}

void imx_api_reply_doc_next(struct imx_req *r, const char *doc_text, const char *next_key)
{
    json_t *doc = json_loads(doc_text, 0, NULL);
    json_t *last = next_key ? json_loads(next_key, 0, NULL) : NULL;
    char next[IMX_CURSOR_MAX];
    if (!json_is_object(doc)) {
        json_decref(doc);
        json_decref(last);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    if (last && imx_cursor_encode(last, next, sizeof next) == 0) {
        imx_api_link_next(r, next);
        json_object_set_new(doc, "next_cursor", json_string(next));
    } else {
        json_object_set_new(doc, "next_cursor", json_null());
    }
    json_decref(last);
    imx_reply_json_steal(r, 200, doc);
}
