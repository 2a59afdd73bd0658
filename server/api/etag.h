/* ETag and If-Match for the mutable resources (webhooks, image requests, teams, instance types,
 * reference rows): the ETag is the resource's revision, "r<revision>", and a write sent with
 * If-Match is done only when it names the current revision (else 412 with the current ETag). */
#ifndef IMX_API_ETAG_H
#define IMX_API_ETAG_H

#include <stdbool.h>

#include "db/revisions.h"
#include "http/request.h"

/* Adds the resource's current ETag to the reply (none when it does not exist: the handler's own
 * read answers 404). Read before the document, so an ETag is never newer than what it came with.
 * Returns true, or false after replying (the database failed). */
bool imx_api_etag(struct imx_req *r, enum imx_db_rev kind, const char *k1, const char *k2);

/* Adds ETag "r<revision>" (revision: digits read with the document). */
void imx_api_etag_set(struct imx_req *r, const char *revision);

/* For a write transaction's fn, before the change: checks If-Match (428 when the resource exists,
 * it is missing and required; 412 when it names another revision) and moves the revision, which
 * also locks the resource until the transaction ends. Returns 0, 1 when the resource does not exist
 * (nothing replied: the write answers its 404), or -1 after replying (return it from fn). */
int imx_api_if_match(struct imx_req *r, enum imx_db_rev kind, const char *k1, const char *k2,
                     bool required);

/* After the change, in the same transaction: the ETag of the revision it made (as imx_api_etag;
 * returns 0, or -1 for fn). */
int imx_api_etag_after(struct imx_req *r, enum imx_db_rev kind, const char *k1, const char *k2);

#endif
