/* The SQLSTATE classifier behind enum imx_db_status (db/status.h). */
#include "db/status.h"

#include <string.h>

#include "db/pool.h"

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
    case IMX_DBS_ERROR:
        break;
    }
    return "error";
}
