/* ETag and If-Match for the mutable resources (see api/etag.h). */
#include "api/etag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/tx.h"

static void set_etag(struct imx_req *r, long long rev)
{
    char etag[32];
    snprintf(etag, sizeof etag, "\"r%lld\"", rev);
    imx_reply_header(r, "ETag", etag);
}

void imx_api_etag_set(struct imx_req *r, const char *revision)
{
    set_etag(r, strtoll(revision, NULL, 10));
}

bool imx_api_etag(struct imx_req *r, enum imx_db_rev kind, const char *k1, const char *k2)
{
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return false;
    long long rev;
    enum imx_db_status st = imx_db_rev_read(c, kind, k1, k2, &rev);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND) {
        imx_api_reply_db_fail(r, st);
        return false;
    }
    if (st == IMX_DBS_OK)
        set_etag(r, rev);
    return true;
}

int imx_api_etag_after(struct imx_req *r, enum imx_db_rev kind, const char *k1, const char *k2)
{
    long long rev;
    enum imx_db_status st = imx_db_rev_read(r->db, kind, k1, k2, &rev);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND)
        return imx_api_tx_fail(r, st);
    if (st == IMX_DBS_OK)
        set_etag(r, rev);
    return 0;
}

/* Does an If-Match list (RFC 9110: "*", or comma-separated strong entity tags) name rev? */
static bool names(const char *if_match, long long rev)
{
    char want[32];
    int n = snprintf(want, sizeof want, "\"r%lld\"", rev);
    for (const char *p = if_match; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (*p == '*')
            return true;
        size_t len = strcspn(p, ",");
        size_t trim = len;
        while (trim > 0 && (p[trim - 1] == ' ' || p[trim - 1] == '\t'))
            trim--;
        if (trim == (size_t)n && memcmp(p, want, trim) == 0)
            return true;
        p += len;
    }
    return false;
}

int imx_api_if_match(struct imx_req *r, enum imx_db_rev kind, const char *k1, const char *k2,
                     bool required)
{
    const char *if_match = imx_req_header(r, "If-Match");
    long long was;
    enum imx_db_status st = imx_db_rev_bump(r->db, kind, k1, k2, &was);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND)
        return imx_api_tx_fail(r, st);
    if (st == IMX_DBS_NOT_FOUND)
        return 1;
    if (!if_match && required) {
        set_etag(r, was);
        imx_reply_problem(r, IMX_E_PRECONDITION_REQUIRED,
                          "Send If-Match with the ETag you read (now \"r%lld\"), so that a change "
                          "made meanwhile is not overwritten",
                          was);
        return -1;
    }
    if (if_match && !names(if_match, was)) {
        set_etag(r, was);
        imx_reply_problem(r, IMX_E_PRECONDITION_FAILED,
                          "It changed since you read it (now ETag \"r%lld\"); read it again", was);
        return -1;
    }
    return 0;
}
