/* imaxe's HTTP client (libcurl): one request to the server, its status, ETag and body. */
#ifndef IMX_CLI_HTTP_H
#define IMX_CLI_HTTP_H

#include <curl/curl.h>
#include <stddef.h>

#include "buf.h"

/* The largest response body read (a page of 200 full images is far below). */
#define IMX_CLI_BODY_MAX (64u << 20)

struct imx_cli_http {
    const char *base;  /* "http://host:port", borrowed */
    const char *token; /* bearer token or NULL, borrowed */
    long timeout_s;    /* whole request */
};

struct imx_cli_resp {
    long status; /* 0: no answer (error says why) */
    struct imx_cli_buf body;
    char etag[256];
    char content_type[128];
    char error[CURL_ERROR_SIZE];
};

void imx_cli_resp_init(struct imx_cli_resp *r);
void imx_cli_resp_free(struct imx_cli_resp *r);

/* Sends method base+path (path holds the query) with an optional body of content_type and
 * extra "Name: value" headers (NULL-ended, may be NULL). Fills r (which the caller inited).
 * Returns 0 when an answer came, whatever its status; -1 otherwise. */
int imx_cli_http_do(const struct imx_cli_http *h, const char *method, const char *path,
                    const char *content_type, const char *body, size_t body_len,
                    const char *const *headers, struct imx_cli_resp *r);

#endif
