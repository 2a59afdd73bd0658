/* The SQLSTATE classifier behind enum imx_db_status (db/status.h). */
#include "db/status.h"

#include <stdio.h>
#include <string.h>

#include "db/pool.h"
#include "db/internal.h"

enum imx_db_status imx_db_status_of(const PGresult *r)
{
    if (imx_db_ok(r))
        return IMX_DBS_OK;
    const char *state = imx_db_sqlstate(r);
    if (state[0] == '\0' || strcmp(state, "57014") == 0 || strncmp(state, "57P0", 4) == 0 ||
        strncmp(state, "08", 2) == 0 || strcmp(state, "53300") == 0)
        return IMX_DBS_UNAVAILABLE;
    if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)
        return IMX_DBS_RETRY;
    if (strcmp(state, "23505") == 0)
        return IMX_DBS_CONFLICT;
    if (strncmp(state, "23", 2) == 0 || strncmp(state, "22", 2) == 0)
        return IMX_DBS_INVALID;
    return IMX_DBS_ERROR;
}

const char *imx_db_status_name(enum imx_db_status s)
{
    switch (s) {
    case IMX_DBS_OK:
        return "ok";
    case IMX_DBS_NOT_FOUND:
        return "not_found";
    case IMX_DBS_CONFLICT:
        return "conflict";
    case IMX_DBS_INVALID:
        return "invalid";
    case IMX_DBS_UNAVAILABLE:
        return "unavailable";
    case IMX_DBS_RETRY:
        return "retry";
    case IMX_DBS_BUSY:
        return "busy";
    case IMX_DBS_ERROR:
        break;
    }
    return "error";
}

static enum imx_db_cause cause_of(const char *state)
{
    if (state[0] == '\0' || strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0)
        return IMX_DBC_LOST;
    if (strcmp(state, "57014") == 0)
        return IMX_DBC_TIMEOUT;
    if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)
        return IMX_DBC_RETRY;
    if (strcmp(state, "23505") == 0)
        return IMX_DBC_UNIQUE;
    if (strcmp(state, "23503") == 0)
        return IMX_DBC_FOREIGN_KEY;
    if (strcmp(state, "23502") == 0)
        return IMX_DBC_NOT_NULL;
    if (strcmp(state, "23514") == 0)
        return IMX_DBC_CHECK;
    if (strncmp(state, "23", 2) == 0)
        return IMX_DBC_INTEGRITY;
    if (strncmp(state, "22", 2) == 0)
        return IMX_DBC_VALUE;
    if (strcmp(state, "42703") == 0)
        return IMX_DBC_UNKNOWN_COLUMN;
    if (strcmp(state, "428C9") == 0)
        return IMX_DBC_GENERATED_COLUMN;
    if (strcmp(state, "42P01") == 0)
        return IMX_DBC_UNKNOWN_TABLE;
    if (strcmp(state, "21000") == 0)
        return IMX_DBC_CARDINALITY;
    if (strcmp(state, "P0002") == 0)
        return IMX_DBC_NO_DATA;
    if (strcmp(state, "55000") == 0)
        return IMX_DBC_NOT_READY;
    return IMX_DBC_OTHER;
}

static void copy_field(char *out, size_t len, const PGresult *r, int field)
{
    const char *v = r ? PQresultErrorField(r, field) : NULL;
    snprintf(out, len, "%s", v ? v : "");
}

enum imx_db_status imx_db_fault_of(const PGresult *r, struct imx_db_fault *f)
{
    memset(f, 0, sizeof *f);
    f->status = imx_db_status_of(r);
    if (f->status == IMX_DBS_OK)
        return IMX_DBS_OK;
    const char *state = imx_db_sqlstate(r);
    f->cause = cause_of(state);
    snprintf(f->sqlstate, sizeof f->sqlstate, "%s", state);
    copy_field(f->constraint, sizeof f->constraint, r, PG_DIAG_CONSTRAINT_NAME);
    copy_field(f->column, sizeof f->column, r, PG_DIAG_COLUMN_NAME);
    copy_field(f->message, sizeof f->message, r, PG_DIAG_MESSAGE_PRIMARY);
    copy_field(f->detail, sizeof f->detail, r, PG_DIAG_MESSAGE_DETAIL);
    if (!f->message[0] && r)
        snprintf(f->message, sizeof f->message, "%s", PQresultErrorMessage(r));
    return f->status;
}
