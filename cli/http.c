/* One HTTP request with libcurl (see http.h). */
#include "http.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#ifndef IMX_VERSION
#define IMX_VERSION "dev"
#endif

void imx_cli_resp_init(struct imx_cli_resp *r)
{
    memset(r, 0, sizeof *r);
    imx_cli_buf_init(&r->body, IMX_CLI_BODY_MAX);
}

void imx_cli_resp_free(struct imx_cli_resp *r)
{
    imx_cli_buf_free(&r->body);
}

static size_t on_body(char *data, size_t size, size_t n, void *user)
{
    struct imx_cli_resp *r = user;
    if (imx_cli_buf_add(&r->body, data, size * n) != 0)
        return 0; /* over IMX_CLI_BODY_MAX: curl stops with a write error */
    return size * n;
}

/* Copies header value into out when the line is "name: value". */
static void take_header(const char *line, size_t len, const char *name, char *out, size_t cap)
{
    size_t nlen = strlen(name);
    if (len <= nlen + 1 || strncasecmp(line, name, nlen) != 0 || line[nlen] != ':')
        return;
    const char *v = line + nlen + 1;
    size_t vlen = len - nlen - 1;
    while (vlen > 0 && (*v == ' ' || *v == '\t')) {
        v++;
        vlen--;
    }
    while (vlen > 0 && (v[vlen - 1] == '\r' || v[vlen - 1] == '\n' || v[vlen - 1] == ' '))
        vlen--;
    if (vlen >= cap)
        return;
    memcpy(out, v, vlen);
    out[vlen] = '\0';
}

static size_t on_header(char *data, size_t size, size_t n, void *user)
{
    struct imx_cli_resp *r = user;
    take_header(data, size * n, "ETag", r->etag, sizeof r->etag);
    take_header(data, size * n, "Content-Type", r->content_type, sizeof r->content_type);
    return size * n;
}

int imx_cli_http_do(const struct imx_cli_http *h, const char *method, const char *path,
                    const char *content_type, const char *body, size_t body_len,
                    const char *const *headers, struct imx_cli_resp *r)
{
    int rc = -1;
    struct curl_slist *hdrs = NULL;
    struct imx_cli_buf url;
    struct imx_cli_buf line;
    imx_cli_buf_init(&url, 16384);
    imx_cli_buf_init(&line, 8192);
    CURL *c = curl_easy_init();
    if (!c) {
        snprintf(r->error, sizeof r->error, "curl_easy_init failed");
        goto out;
    }
    if (imx_cli_buf_puts(&url, h->base) != 0 || imx_cli_buf_puts(&url, path) != 0) {
        snprintf(r->error, sizeof r->error, "URL too long");
        goto out;
    }
    hdrs = curl_slist_append(hdrs, "Accept: application/json, application/problem+json");
    if (h->token && h->token[0]) {
        imx_cli_buf_printf(&line, "Authorization: Bearer %s", h->token);
        if (line.overflow || strpbrk(h->token, "\r\n")) {
            snprintf(r->error, sizeof r->error, "the token is not a single line");
            goto out;
        }
        hdrs = curl_slist_append(hdrs, imx_cli_buf_str(&line));
    }
    if (body) {
        imx_cli_buf_reset(&line);
        imx_cli_buf_printf(&line, "Content-Type: %s", content_type);
        hdrs = curl_slist_append(hdrs, imx_cli_buf_str(&line));
    }
    for (size_t i = 0; headers && headers[i]; i++)
        hdrs = curl_slist_append(hdrs, headers[i]);
    curl_easy_setopt(c, CURLOPT_URL, imx_cli_buf_str(&url));
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "imaxe/" IMX_VERSION);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, h->timeout_s > 0 ? h->timeout_s : 60L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, r->error);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    } else if (strcmp(method, "GET") == 0) {
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    }
    CURLcode cc = curl_easy_perform(c);
    if (cc != CURLE_OK) {
        if (r->body.overflow)
            snprintf(r->error, sizeof r->error, "the answer is larger than %u bytes",
                     IMX_CLI_BODY_MAX);
        else if (r->error[0] == '\0')
            snprintf(r->error, sizeof r->error, "%s", curl_easy_strerror(cc));
        r->status = 0;
        goto out;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    rc = 0;
out:
    curl_slist_free_all(hdrs);
    if (c)
        curl_easy_cleanup(c);
    imx_cli_buf_free(&url);
    /* The Authorization line held the token. */
    if (line.data)
        memset(line.data, 0, line.cap);
    imx_cli_buf_free(&line);
    return rc;
}
