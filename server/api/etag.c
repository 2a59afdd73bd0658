/* ETag and If-Match for the mutable resources (see api/etag.h). */
#include "api/etag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/tx.h"
#include "http/conditional.h"

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
    struct imx_db_fault why = { 0 };
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return false;
    long long rev;
    enum imx_db_status st = imx_db_rev_read(c, kind, k1, k2, &rev, &why);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND) {
        imx_api_reply_db_fault(r, st, &why);
        return false;
    }
    if (st == IMX_DBS_OK)
        set_etag(r, rev);
    return true;
}

int imx_api_etag_after(struct imx_req *r, enum imx_db_rev kind, const char *k1, const char *k2)
{
    struct imx_db_fault why = { 0 };
    long long rev;
    enum imx_db_status st = imx_db_rev_read(imx_api_conn(r), kind, k1, k2, &rev, &why);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND)
        return imx_api_tx_fail(r, st, &why);
    if (st == IMX_DBS_OK)
        set_etag(r, rev);
    return 0;
}

int imx_api_if_match(struct imx_req *r, enum imx_db_rev kind, const char *k1, const char *k2,
                     bool required)
{
    struct imx_db_fault why = { 0 };
    const char *if_match = imx_req_header(r, "If-Match");
    long long was;
    enum imx_db_status st = imx_db_rev_bump(imx_api_conn(r), kind, k1, k2, &was, &why);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND)
        return imx_api_tx_fail(r, st, &why);
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
    char want[32];
    snprintf(want, sizeof want, "\"r%lld\"", was);
    enum imx_if_match m = if_match ? imx_if_match(if_match, want) : IMX_IF_MATCH_YES;
    if (m == IMX_IF_MATCH_MALFORMED) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, IMX_IF_MATCH_MALFORMED_TEXT);
        return -1;
    }
    if (m != IMX_IF_MATCH_YES) {
        set_etag(r, was);
        imx_reply_problem(r, IMX_E_PRECONDITION_FAILED,
                          "It changed since you read it (now ETag \"r%lld\"); read it again", was);
        return -1;
    }
    return 0;
}
