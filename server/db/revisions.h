/* Revisions of the mutable resources, for ETag and If-Match (server/api/etag.c): read one, or
 * lock the row and move it before a write (migrations/0033_revisions.sql). */
#ifndef IMX_DB_REVISIONS_H
#define IMX_DB_REVISIONS_H

#include "db/pool.h"

enum imx_db_rev {
    IMX_REV_WEBHOOK,       /* key: id */
    IMX_REV_REQUEST,       /* key: id */
    IMX_REV_TEAM,          /* key: slug */
    IMX_REV_INSTANCE_TYPE, /* keys: provider, instance type */
    IMX_REV_REFERENCE,     /* no key: the reference data's generation */
    IMX_REV_PIN,           /* key: id */
    IMX_REV__COUNT
};

/* The current revision of the resource into *rev (IMX_DBS_NOT_FOUND: no such resource). k2 only
 * for two-part keys (else NULL). */
enum imx_db_status imx_db_rev_read(struct imx_db_conn *c, enum imx_db_rev kind, const char *k1,
                                   const char *k2, long long *rev, struct imx_db_fault *why);

/* Inside a write transaction, before the change: locks the resource and moves its revision (the
 * reference generation is only locked: the write itself moves it) -> *was, the revision before
 * (IMX_DBS_NOT_FOUND: no such resource). */
enum imx_db_status imx_db_rev_bump(struct imx_db_conn *c, enum imx_db_rev kind, const char *k1,
                                   const char *k2, long long *was, struct imx_db_fault *why);

#endif
