/* The conformance log: one NDJSON line per routed response, written only when the tests ask for
 * it (IMAXE_CONFORMANCE_LOG), so tools/conformance.mjs can validate what the server really said
 * against the contract and list the operations no test exercised. */
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

/* Bodies larger than this are logged without the body (the line says so). */
#define BODY_MAX (8 * 1024 * 1024)

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
        for (size_t k = 0; k <= n; k++)
            name[k] = (char)((rp->headers[i].name[k] >= 'A' && rp->headers[i].name[k] <= 'Z')
                                 ? rp->headers[i].name[k] + 32
                                 : rp->headers[i].name[k]);
        json_object_set_new(headers, name, json_string(rp->headers[i].value));
    }
    json_object_set_new(headers, "x-request-id", json_string(r->request_id));
    json_object_set_new(line, "headers", headers);
    if (rp->body && rp->len > 0 && is_json(rp->content_type)) {
        if (rp->len > BODY_MAX) {
            json_object_set_new(line, "body_omitted", json_true());
        } else {
            json_error_t jerr;
            json_t *body = json_loadb(rp->body, rp->len, JSON_ALLOW_NUL, &jerr);
            if (body)
                json_object_set_new(line, "body", body);
            else
                json_object_set_new(line, "body_invalid", json_string(jerr.text));
        }
    }
    char *text = json_dumps(line, JSON_COMPACT);
    json_decref(line);
    if (!text)
        return;
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the NUL; written with its length below */
    pthread_mutex_lock(&log_lock);
    for (size_t off = 0; off < len + 1;) {
        ssize_t w = write(log_fd, text + off, len + 1 - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    pthread_mutex_unlock(&log_lock);
    free(text);
}
