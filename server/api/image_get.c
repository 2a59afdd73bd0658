/* GET /v1/images/{id}: the stored document with its ETag, on the event thread when it can. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "api/api.h"
#include "api/export.h"
#include "api/costs_common.h"
#include "api/cursor.h"
#include "auth/auth.h"
#include "db/image_index.h"
#include "db/image_docs.h"
#include "db/images.h"
#include "db/pins.h"
#include "db/reference.h"
#include "api/tx.h"
#include "domain/compat.h"
#include "domain/pkgver.h"
#include "domain/sbom.h"
#include "domain/version.h"
#include "util/config.h"
#include "util/json_text.h"
#include "util/log.h"
#include "util/urlcode.h"
#include "api/images_internal.h"

/* ---- GET /v1/images/{id} ---- */

/* The one ETag an If-None-Match value names (quoted, not weak, no list), for the statement to
 * compare; NULL otherwise (a list or "*" is compared here, after the read). */
static const char *single_etag(const char *inm, char *buf, size_t len)
{
    size_t n = inm ? strlen(inm) : 0;
    if (n < 2 || n >= len || inm[0] != '"' || inm[n - 1] != '"' ||
        strchr(inm + 1, '"') != inm + n - 1)
        return NULL;
    memcpy(buf, inm, n + 1);
    return buf;
}

/* Answers with the stored document d (taken): 304 when it is the one the client holds (the
 * statement left it out, or If-None-Match lists its ETag). */
static void reply_stored(struct imx_req *r, struct imx_db_image_doc *d, const char *inm, bool want)
{
    imx_reply_header(r, "ETag", d->etag);
    if (!d->json || (inm && !want && imx_img_etag_listed(inm, d->etag))) {
        imx_db_image_doc_free(d);
        imx_reply_empty(r, 304);
    } else {
        imx_reply_raw_steal(r, 200, "application/json", (char *)d->json, d->json_len,
                            imx_db_image_doc_release, d->owner);
    }
}

/* The stored document (migrations/0020_point_reads.sql): one primary-key read, coalesced with
 * the other requests for documents (db/image_docs.c), that also confirms a remembered
 * principal. Returns 1 after replying, 0 when there is no current stored document (the caller
 * builds it from scratch), -1 after replying an error. */
static int image_get_stored(struct imx_req *r, long long id, const char *inm)
{
    char buf[IMX_DBI_ETAG_SIZE + 2];
    const char *want = single_etag(inm, buf, sizeof buf);
    for (int attempt = 0;; attempt++) {
        /* Waiting for the batch holds no connection (one held by each waiter could leave the
         * reader none); a principal checked in full took one. */
        imx_api_db_put(r);
        struct imx_db_image_doc d;
        enum imx_db_status rc = imx_db_image_doc(id, want, &d);
        if (rc != IMX_DBS_OK && rc != IMX_DBS_NOT_FOUND) {
            imx_api_reply_db_status(r, rc);
            return -1;
        }
        int confirmed = imx_auth_confirm(r, d.epoch);
        if (confirmed != 1) {
            imx_db_image_doc_free(&d);
            if (confirmed < 0 || attempt > 0)
                return -1;
            continue;
        }
        if (rc == IMX_DBS_NOT_FOUND)
            return 0;
        reply_stored(r, &d, inm, want != NULL);
        return 1;
    }
}

/* GET /v1/images/{id} on the event thread (the route's fast handler): the same stored document,
 * its read queued without waiting (imx_db_image_doc_start). What needs more than that read, a
 * principal to check again or a document to build, goes to imx_api_image_get on a worker. */
struct get_fast {
    struct imx_db_image_doc_call *call;
    bool want; /* one ETag of the client's went with the read */
};

static void get_fast_free(void *p)
{
    struct get_fast *g = p;
    imx_db_image_doc_call_free(g->call);
    free(g);
}

static enum imx_fast image_get_fast_read(struct imx_req *r)
{
    struct get_fast *g = r->fast_state;
    struct imx_db_image_doc d;
    enum imx_db_status rc = imx_db_image_doc_result(g->call, &d);
    if (rc != IMX_DBS_OK && rc != IMX_DBS_NOT_FOUND) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    /* imx_auth_confirm without a query: the principal stands when the epoch is the one it was
     * remembered at. */
    if (rc == IMX_DBS_NOT_FOUND || r->principal.epoch != d.epoch) {
        imx_db_image_doc_free(&d);
        return IMX_FAST_OFFLOAD;
    }
    imx_auth_confirm(r, d.epoch);
    reply_stored(r, &d, imx_req_header(r, "If-None-Match"), g->want);
    return IMX_FAST_DONE;
}

enum imx_fast imx_api_image_get_fast(struct imx_req *r)
{
    if (!imx_auth_settings.read_cache || !r->principal.cached)
        return IMX_FAST_OFFLOAD;
    long long id = imx_img_path_id(r);
    if (!id)
        return IMX_FAST_DONE;
    struct get_fast *g = calloc(1, sizeof *g);
    if (!g)
        return IMX_FAST_OFFLOAD;
    char buf[IMX_DBI_ETAG_SIZE + 2];
    const char *want = single_etag(imx_req_header(r, "If-None-Match"), buf, sizeof buf);
    g->want = want != NULL;
    r->fast_state = g;
    r->fast_free = get_fast_free;
    r->resume = image_get_fast_read;
    g->call = imx_db_image_doc_start(id, want, imx_api_wake, r);
    return g->call ? IMX_FAST_PARKED : IMX_FAST_OFFLOAD;
}

void imx_api_image_get(struct imx_req *r)
{
    long long id = imx_img_path_id(r);
    if (!id)
        return;
    const char *inm = imx_req_header(r, "If-None-Match");
    if (imx_auth_settings.read_cache) {
        int done = image_get_stored(r, id, inm);
        if (done != 0)
            return;
    }
    /* From scratch: the reference the stored documents follow byte for byte. */
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    char *json, *etag;
    enum imx_db_status rc = imx_db_image_get(c, id, &json, &etag, NULL);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return;
    }
    imx_reply_header(r, "ETag", etag);
    if (inm && imx_img_etag_listed(inm, etag)) {
        free(json);
        imx_reply_empty(r, 304);
    } else {
        imx_img_reply_json_text_steal(r, 200, json);
    }
    free(etag);
}
