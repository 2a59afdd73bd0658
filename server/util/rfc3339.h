/* RFC 3339 date-times, the only time format the API takes: PostgreSQL's timestamptz input would
 * also take "now", "yesterday", "epoch" or "infinity", which the contract does not allow. */
#ifndef IMX_UTIL_RFC3339_H
#define IMX_UTIL_RFC3339_H

#include <stdbool.h>

/* Is s an RFC 3339 date-time, YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM) ("T" and "Z" in
 * either case), with a real calendar date and times in range (second 60 for a leap second)? */
bool imx_rfc3339_ok(const char *s);

/* Is s an RFC 3339 full-date, YYYY-MM-DD, that the calendar has (2024-02-29 but not 2025-02-29
 * or 2026-13-45; year 0001 to 9999)? */
bool imx_date_ok(const char *s);

#endif
