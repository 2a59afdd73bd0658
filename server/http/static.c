/* The web UI: static files under one directory, never outside it. */
#include "http/static.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"

#define STATIC_MAX_BYTES (16 * 1024 * 1024)

/* No inline script anywhere in the UI; the API is on the same origin. */
#define CSP                                                                                        \
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; "          \
    "form-action 'self'; object-src 'none'"

/* The API reference under /docs only: Redoc (web/vendor/redoc@...) injects its styles as <style>
 * elements and runs its search index in a blob: worker. Scripts stay 'self' (no inline script, no
 * eval); nothing is loaded from another origin. */
#define CSP_DOCS                                                                                   \
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "                 \
    "worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "       \
    "object-src 'none'"

/* Is url_path the API reference (/docs, or under /docs/)? */
static bool is_docs(const char *url_path)
{
    return strncmp(url_path, "/docs", 5) == 0 && (url_path[5] == '\0' || url_path[5] == '/');
}

static char root[PATH_MAX];

void imx_static_init(const char *web_dir)
{
    if (!realpath(web_dir, root)) {
        imx_warn("web directory %s not found: the UI is not served", web_dir);
        root[0] = '\0';
    }
}

static const struct {
    const char *ext, *mime;
} mimes[] = {
    { ".html", "text/html; charset=utf-8" },
    { ".js", "text/javascript; charset=utf-8" },
    { ".mjs", "text/javascript; charset=utf-8" },
    { ".css", "text/css; charset=utf-8" },
    { ".json", "application/json" },
    { ".svg", "image/svg+xml" },
    { ".png", "image/png" },
    { ".ico", "image/x-icon" },
    { ".txt", "text/plain; charset=utf-8" },
    { ".map", "application/json" },
    { ".woff2", "font/woff2" },
    { ".webmanifest", "application/manifest+json" },
};

const char *imx_static_mime(const char *name)
{
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof mimes / sizeof mimes[0]; i++)
        if (strcmp(dot, mimes[i].ext) == 0)
            return mimes[i].mime;
    return "application/octet-stream";
}

/* Rejects anything but plain relative segments: no "..", ".", empty segments or backslashes. */
static bool safe_relative(const char *p)
{
    if (*p == '\0')
        return true;
    for (const char *seg = p; seg;) {
        const char *end = strchr(seg, '/');
        size_t len = end ? (size_t)(end - seg) : strlen(seg);
        if (len == 0 || (len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
            return false;
        for (size_t i = 0; i < len; i++)
            if (seg[i] == '\\' || (unsigned char)seg[i] < 0x20)
                return false;
        seg = end ? end + 1 : NULL;
    }
    return true;
}

static void not_found(struct imx_req *r, const char *url_path)
{
    imx_reply_problem(r, IMX_E_NOT_FOUND, "No file at %s", url_path);
}

void imx_static_serve(struct imx_req *r, const char *url_path)
{
    char rel[PATH_MAX], full[PATH_MAX], real[PATH_MAX], etag[64];
    struct stat st;

    r->reply.cacheable = true;
    if (!root[0] || url_path[0] != '/' || !safe_relative(url_path + 1)) {
        not_found(r, url_path);
        return;
    }
    snprintf(rel, sizeof rel, "%s", url_path + 1);
    size_t rl = strlen(rel);
    if (rl == 0 || rel[rl - 1] == '/')
        snprintf(rel + rl, sizeof rel - rl, "index.html");
    if (snprintf(full, sizeof full, "%s/%s", root, rel) >= (int)sizeof full ||
        !realpath(full, real) || strncmp(real, root, strlen(root)) != 0 ||
        real[strlen(root)] != '/') {
        not_found(r, url_path);
        return;
    }
    /* A folder answers with its index.html (so /docs is web/docs/index.html). */
    if (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t n = strlen(rel);
        if (snprintf(rel + n, sizeof rel - n, "/index.html") >= (int)(sizeof rel - n) ||
            snprintf(full, sizeof full, "%s/index.html", real) >= (int)sizeof full ||
            !realpath(full, real) || strncmp(real, root, strlen(root)) != 0 ||
            real[strlen(root)] != '/') {
            not_found(r, url_path);
            return;
        }
    }
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > STATIC_MAX_BYTES) {
        if (fd >= 0)
            close(fd);
        not_found(r, url_path);
        return;
    }
    snprintf(etag, sizeof etag, "\"%llx-%llx\"", (unsigned long long)st.st_size,
             (unsigned long long)st.st_mtime);
    imx_reply_header(r, "ETag", etag);
    /* Vendored libraries carry their version in the path and never change under it. */
    imx_reply_header(r, "Cache-Control",
                     strncmp(rel, "vendor/", 7) == 0 ? "public, max-age=31536000, immutable"
                                                     : "no-cache");
    imx_reply_header(r, "Content-Security-Policy", is_docs(url_path) ? CSP_DOCS : CSP);
    imx_reply_header(r, "X-Frame-Options", "DENY");
    imx_reply_header(r, "Referrer-Policy", "no-referrer");
    const char *inm = imx_req_header(r, "If-None-Match");
    if (inm && strstr(inm, etag)) {
        close(fd);
        imx_reply_empty(r, 304);
        return;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    ssize_t got = buf ? read(fd, buf, (size_t)st.st_size) : -1;
    close(fd);
    if (got != st.st_size) {
        free(buf);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_reply_raw_steal(r, 200, imx_static_mime(rel), buf, (size_t)got, NULL, NULL);
}
