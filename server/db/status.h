/* The one outcome every server/db/ operation returns, and the one place a SQLSTATE is read.
 * Callers above server/db/ see this enum and typed outputs (or finished JSON text), never libpq;
 * api/ turns it into a problem in one switch (imx_api_reply_db_status). */
#ifndef IMX_DB_STATUS_H
#define IMX_DB_STATUS_H

enum imx_db_status {
    IMX_DBS_OK,
    IMX_DBS_NOT_FOUND,   /* no such row (or, for a list of ids, one of them) */
    IMX_DBS_CONFLICT,    /* it exists already, or changed under us (23505, a stale version) */
    IMX_DBS_INVALID,     /* a value the schema or a procedure refuses (22xxx, 23xxx, P0001) */
    IMX_DBS_UNAVAILABLE, /* PostgreSQL unreachable, busy or too slow (08xxx, 57014, 57P0x) */
    IMX_DBS_RETRY,       /* serialization failure or deadlock (40001, 40P01): run it again */
    IMX_DBS_BUSY,        /* acquire: no free pooled connection within the acquire timeout */
    IMX_DBS_ERROR,       /* anything else: our bug, logged with its SQLSTATE */
};

/* Why a statement failed, finer than the status, for handlers whose problem text names it (a
 * duplicate key, a missing referenced row, a refused value); the SQLSTATE classes behind each
 * live in db/status.c only. */
enum imx_db_cause {
    IMX_DBC_NONE,
    IMX_DBC_UNIQUE,           /* 23505 */
    IMX_DBC_FOREIGN_KEY,      /* 23503 */
    IMX_DBC_NOT_NULL,         /* 23502 */
    IMX_DBC_CHECK,            /* 23514: a CHECK constraint */
    IMX_DBC_INTEGRITY,        /* any other class 23 (an exclusion constraint, ...) */
    IMX_DBC_VALUE,            /* class 22: a value PostgreSQL cannot take */
    IMX_DBC_UNKNOWN_COLUMN,   /* 42703 */
    IMX_DBC_GENERATED_COLUMN, /* 428C9 */
    IMX_DBC_UNKNOWN_TABLE,    /* 42P01 */
    IMX_DBC_CARDINALITY,      /* 21000 */
    IMX_DBC_NO_DATA,          /* P0002: a procedure found no such row */
    IMX_DBC_NOT_READY,        /* 55000: a procedure refused the object's state */
    IMX_DBC_TIMEOUT,          /* 57014: statement_timeout */
    IMX_DBC_LOST,             /* no answer, 08xxx, 57P0x */
    IMX_DBC_RETRY,            /* 40001, 40P01 */
    IMX_DBC_OTHER,
};

/* A failed statement copied out of its result, so that no libpq type crosses server/db/: the
 * status, the cause and PostgreSQL's own words (empty strings where it gave none). Every
 * operation a handler calls takes one as its last parameter, why (NULL: not wanted), and fills
 * it on every return: the failed statement's fault when the status is that statement's, else
 * the status with cause IMX_DBC_NONE (db/internal.h, imx_db_why). */
struct imx_db_fault {
    enum imx_db_status status;
    enum imx_db_cause cause;
    char sqlstate[6];    /* for logs only: callers decide on cause */
    char constraint[64]; /* PG_DIAG_CONSTRAINT_NAME */
    char column[64];     /* PG_DIAG_COLUMN_NAME */
    char message[320];   /* PG_DIAG_MESSAGE_PRIMARY */
    char detail[4096];   /* PG_DIAG_MESSAGE_DETAIL (a reference import's contradictions list) */
};

/* The status as a short lower-case word for logs and metrics ("not_found"). Static text. */
const char *imx_db_status_name(enum imx_db_status s);

#endif
