/* CSV (RFC 4180) tables as JSON rows, for reference data updated without a release
 * (imaxe-server reference import). */
#ifndef IMX_DOMAIN_CSV_H
#define IMX_DOMAIN_CSV_H

/* Pure C over jansson values: no I/O, no shared state. */

#include <jansson.h>
#include <stddef.h>

#define IMX_CSV_MAX_COLUMNS 64
#define IMX_CSV_MAX_ROWS    100000
#define IMX_CSV_MAX_FIELD   65536 /* bytes in one field */

/* Parses text (len bytes, UTF-8, LF or CRLF line ends) whose first record names the columns.
 * Fields may be quoted ("a, b", "say ""x""", line breaks inside quotes); an unquoted empty field
 * is NULL, a quoted empty one the empty string. Every record must have as many fields as the
 * header; blank lines are skipped; a header name must be unique and non-empty. Returns a new
 * array of objects {column: string or null}, or NULL with a message naming the line in err. */
json_t *imx_csv_rows(const char *text, size_t len, char *err, size_t errlen);

/* imx_csv_rows, telling lines as well, for a caller that points at them (measurement import's
 * /lines/N): *lines (when lines is not NULL) receives a new array, parallel to the rows, of the
 * line each row starts on (1: the first line of text); on an error, *err_line (when not NULL)
 * the line the message names. */
json_t *imx_csv_rows_at(const char *text, size_t len, json_t **lines, size_t *err_line, char *err,
                        size_t errlen);

/* Appends one field to a CSV line being built in buf (size cap, used *n): NULL as nothing (an
 * empty unquoted field), any other value quoted when it holds a comma, quote, CR, LF or is
 * empty. Returns 0, or -1 when buf is full. */
int imx_csv_put(char *buf, size_t cap, size_t *n, const char *value, int first);

/* The same for a file meant for a spreadsheet (the API's CSV exports): a text value a
 * spreadsheet would run as a formula (starting with =, +, -, @, tab or CR, and not a number) is
 * written with a leading ' (OWASP's CSV injection advice), so it shows as text. Numbers, and
 * every other value, as imx_csv_put writes them. */
int imx_csv_put_cell(char *buf, size_t cap, size_t *n, const char *value, int first);

#endif
