/* GET /v1/images/{id}/lineage: an image's lineage, a page at a time. */
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

/* ---- GET /v1/images/{id}/lineage ---- */

/* The lineage page with next_cursor (the next page's key, HMAC-signed) as its last member, and
 * Link rel=next. */
static void reply_lineage(struct imx_req *r, const struct imx_db_lineage *l)
{
    char next[IMX_CURSOR_MAX] = "";
    if (l->next_after > 0) {
        json_t *key = json_pack("[I]", (json_int_t)l->next_after);
        int rc = key ? imx_cursor_encode(key, next, sizeof next) : -1;
        json_decref(key);
        if (rc != 0) {
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
            return;
        }
    }
    struct imx_jbuf b = { 0 };
    imx_jbuf_put(&b, l->doc, l->len);
    /* the cursor is base64url and a dot: a JSON string as it is */
    imx_jbuf_puts(&b, ", \"next_cursor\" : ");
    imx_jbuf_puts(&b, next[0] ? "\"" : "null");
    imx_jbuf_puts(&b, next);
    imx_jbuf_puts(&b, next[0] ? "\"}" : "}");
    if (b.failed) {
        imx_jbuf_free(&b);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    if (next[0])
        imx_api_link_next(r, next);
    imx_reply_raw_steal(r, 200, "application/json", b.p, b.len, NULL, NULL);
}

/* GET /v1/images/{id}/lineage on the event thread (the route's fast handler): the index answers
 * here and the summaries' read is queued without waiting; what the index cannot answer, or a
 * principal to check again, goes to imx_api_image_lineage on a worker. */
static enum imx_fast lineage_fast_read(struct imx_req *r)
{
    struct imx_db_lineage l;
    bool served = false;
    enum imx_db_status rc = imx_db_image_lineage_result(r->fast_state, &l, &served);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    enum imx_fast f = IMX_FAST_OFFLOAD;
    if (served && r->principal.epoch == l.epoch) {
        imx_auth_confirm(r, l.epoch);
        reply_lineage(r, &l);
        f = IMX_FAST_DONE;
    }
    imx_db_lineage_free(&l);
    return f;
}

enum imx_fast imx_api_image_lineage_fast(struct imx_req *r)
{
    if (!imx_auth_settings.read_cache || !r->principal.cached)
        return IMX_FAST_OFFLOAD;
    long long id = imx_img_path_id(r);
    if (!id)
        return IMX_FAST_DONE;
    unsigned long long limit;
    char after_buf[24];
    const char *after;
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_id(r, after_buf, &after))
        return IMX_FAST_DONE;
    struct imx_db_lineage_call *c = imx_db_image_lineage_start(
        id, after ? strtoll(after, NULL, 10) : 0, (unsigned)limit, imx_api_wake, r);
    if (!c)
        return IMX_FAST_OFFLOAD;
    r->fast_state = c;
    r->fast_free = imx_db_lineage_call_free;
    r->resume = lineage_fast_read;
    return IMX_FAST_PARKED;
}

void imx_api_image_lineage(struct imx_req *r)
{
    long long id = imx_img_path_id(r);
    if (!id)
        return;
    unsigned long long limit;
    char after_buf[24];
    const char *after;
    if (!imx_api_list_limit(r, &limit) || !imx_api_cursor_id(r, after_buf, &after))
        return;
    for (int attempt = 0; attempt < 2; attempt++) {
        /* From the search index and the entries' summaries when it can, read with the other
         * lineages waiting (holding no connection meanwhile; a principal checked in full took
         * one); else in SQL. */
        struct imx_db_lineage l;
        bool served = false;
        imx_api_db_put(r);
        enum imx_db_status rc =
            imx_auth_settings.read_cache
                ? imx_db_image_lineage_indexed(NULL, id, after ? strtoll(after, NULL, 10) : 0,
                                               (unsigned)limit, &l, &served, NULL)
                : IMX_DBS_OK;
        if (rc == IMX_DBS_OK && !served) {
            struct imx_db_conn *c = imx_api_db(r);
            if (!c)
                return;
            imx_db_image_index_count_lineage_sql();
            rc = imx_db_image_lineage(c, id, after, (unsigned)limit, &l, NULL);
        }
        if (rc != IMX_DBS_OK && rc != IMX_DBS_NOT_FOUND) {
            imx_api_reply_db_status(r, rc);
            return;
        }
        int confirmed = imx_auth_confirm(r, l.epoch);
        if (confirmed == 1) {
            if (rc == IMX_DBS_NOT_FOUND)
                imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
            else
                reply_lineage(r, &l);
        }
        imx_db_lineage_free(&l);
        if (confirmed != 0)
            return;
        /* checked again in full: read again */
    }
    imx_reply_problem(r, IMX_E_INTERNAL, NULL); /* a principal checked in full confirms at once */
}
