/* The conformance log: one NDJSON line per routed response (and a line with its body when that
 * is JSON), written only when the tests ask for it (IMAXE_CONFORMANCE_LOG), so
 * tools/conformance.mjs can validate what the server really said against the contract and list the
 * operations no test exercised. */
#include "http/conformance.h"

#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "http/router.h"

static int log_fd = -1;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

int imx_conformance_open(char *err, size_t errlen)
{
    const char *dir = getenv("IMAXE_CONFORMANCE_LOG");
    if (!dir || !*dir)
        return 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/server-%ld.ndjson", dir, (long)getpid());
    log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
        snprintf(err, errlen, "IMAXE_CONFORMANCE_LOG: cannot open %s", path);
        return -1;
    }
    return 0;
}

static bool is_json(const char *ct)
{
    if (!ct)
        return false;
    size_t n = strcspn(ct, ";");
    return (n == 16 && strncasecmp(ct, "application/json", 16) == 0) ||
           (n == 24 && strncasecmp(ct, "application/problem+json", 24) == 0);
}

static void write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(log_fd, p, n);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* Writes body as one line: JSON has raw line breaks only between tokens, so each becomes a space.
 * Copies through a small buffer: logging never holds a second copy of a large answer. */
static void write_body_line(const char *body, size_t len)
{
    char buf[16384];
    size_t used = 0;
    for (size_t i = 0; i < len; i++) {
        buf[used++] = body[i] == '\n' || body[i] == '\r' ? ' ' : body[i];
        if (used == sizeof buf) {
            write_all(buf, used);
            used = 0;
        }
    }
    buf[used++] = '\n';
    write_all(buf, used);
}

void imx_conformance_record(const struct imx_req *r)
{
    if (log_fd < 0 || !r->route)
        return;
    const struct imx_reply *rp = &r->reply;
    json_t *line = json_object();
    json_t *headers = json_object();
    if (!line || !headers) {
        json_decref(line);
        json_decref(headers);
        return;
    }
    json_object_set_new(line, "method", json_string(r->method));
    json_object_set_new(line, "route", json_string(r->route->path));
    json_object_set_new(line, "path", json_string(r->path_orig));
    json_object_set_new(line, "status", json_integer(rp->status));
    json_object_set_new(line, "request_id", json_string(r->request_id));
    if (rp->content_type)
        json_object_set_new(headers, "content-type", json_string(rp->content_type));
    for (size_t i = 0; i < rp->nheaders; i++) {
        char name[128];
        size_t n = strlen(rp->headers[i].name);
        if (n >= sizeof name)
            continue;
        for (size_t k = 0; k <= n; k++) {
            char c = rp->headers[i].name[k];
            name[k] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        json_object_set_new(headers, name, json_string(rp->headers[i].value));
    }
    json_object_set_new(headers, "x-request-id", json_string(r->request_id));
    json_object_set_new(line, "headers", headers);
    /* A JSON body follows on the next line as the server sent it (never parsed here, so a
     * large answer costs no memory); body_bytes says it is there. */
    bool body = rp->body && rp->len > 0 && is_json(rp->content_type);
    if (body)
        json_object_set_new(line, "body_bytes", json_integer((json_int_t)rp->len));
    char *text = json_dumps(line, JSON_COMPACT);
    json_decref(line);
    if (!text)
        return;
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the NUL; written with its length below */
    pthread_mutex_lock(&log_lock);
    write_all(text, len + 1);
    if (body)
        write_body_line(rp->body, rp->len);
    pthread_mutex_unlock(&log_lock);
    free(text);
}
