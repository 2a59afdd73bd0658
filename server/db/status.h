/* The one outcome every server/db/ operation returns, and the one place a SQLSTATE is read.
 * Callers above server/db/ see this enum and typed outputs (or finished JSON text), never libpq;
 * api/ turns it into a problem in one switch (imx_api_reply_db_status). */
#ifndef IMX_DB_STATUS_H
#define IMX_DB_STATUS_H

#include <libpq-fe.h>

enum imx_db_status {
    IMX_DBS_OK,
    IMX_DBS_NOT_FOUND,   /* no such row (or, for a list of ids, one of them) */
    IMX_DBS_CONFLICT,    /* it exists already, or changed under us (23505, a stale version) */
    IMX_DBS_INVALID,     /* a value the schema or a procedure refuses (22xxx, 23xxx, P0001) */
    IMX_DBS_UNAVAILABLE, /* PostgreSQL unreachable, busy or too slow (08xxx, 57014, 57P0x) */
    IMX_DBS_RETRY,       /* serialization failure or deadlock (40001, 40P01): run it again */
    IMX_DBS_ERROR,       /* anything else: our bug, logged with its SQLSTATE */
};

/* What a failed statement's result means; NULL (no answer at all) is IMX_DBS_UNAVAILABLE.
 * A successful result is IMX_DBS_OK. */
enum imx_db_status imx_db_status_of(const PGresult *r);

/* The status as a short lower-case word for logs and metrics ("not_found"). Static text. */
const char *imx_db_status_name(enum imx_db_status s);

#endif
