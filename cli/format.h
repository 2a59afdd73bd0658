/* Output of imaxe: JSON documents rendered as a table (for people), JSON (for jq) or NDJSON
 * (one item a line, for streams). Pure: renders into a buffer, no I/O. */
#ifndef IMX_CLI_FORMAT_H
#define IMX_CLI_FORMAT_H

#include <jansson.h>
#include <stdbool.h>

#include "buf.h"

enum imx_cli_fmt {
    IMX_CLI_FMT_TABLE,
    IMX_CLI_FMT_JSON,
    IMX_CLI_FMT_NDJSON,
};

/* A table cell is cut to this many characters (with "..."). */
#define IMX_CLI_CELL_MAX 60
/* Columns a table shows at most. */
#define IMX_CLI_COLUMNS_MAX 12

/* "table", "json" or "ndjson" into *f. Returns 0, or -1. */
int imx_cli_fmt_parse(const char *s, enum imx_cli_fmt *f);

/* The value at a dotted path ("image.id", "items.0.family") in root (borrowed), or NULL. */
json_t *imx_cli_json_path(json_t *root, const char *path);

/* Appends the text of one value as a table cell shows it: strings as they are, null as "-",
 * arrays of scalars joined with ",", {name, version} objects as "name=version", anything else
 * as compact JSON; control characters become '?'. Cut to max characters when max > 0. */
int imx_cli_fmt_cell(struct imx_cli_buf *out, json_t *v, size_t max);

/* Renders rows (an array of objects) with columns (comma-separated dotted paths; NULL: the
 * scalar members of the first row, at most IMX_CLI_COLUMNS_MAX). Table: a header row (bold
 * when color) and aligned cells; json: the array; ndjson: one compact object a line.
 * Returns 0, or -1 when out overflowed. */
int imx_cli_fmt_rows(struct imx_cli_buf *out, json_t *rows, const char *columns,
                     enum imx_cli_fmt fmt, bool color);

/* Renders one document: table as aligned "key  value" lines of its members, json indented,
 * ndjson on one line. Returns 0, or -1. */
int imx_cli_fmt_object(struct imx_cli_buf *out, json_t *doc, enum imx_cli_fmt fmt, bool color);

/* What --field prints: a string raw, an array of scalars one a line, anything else as compact
 * JSON, followed by a newline. */
int imx_cli_fmt_field(struct imx_cli_buf *out, json_t *v);

/* Invalid fields an error message lists at most (the server bounds its own list too). */
#define IMX_CLI_PROBLEM_FIELDS_MAX 50

/* The message for an error answer (HTTP status and body), said once: "imaxe: STATUS TEXT", where
 * TEXT is the problem's detail (the sentence about this request) or, without one, its title (the
 * generic name of its type, which a detail only restates: "The request has invalid fields" beside
 * "The webhook has invalid fields"); then each invalid field on a line of its own, "  POINTER:
 * DETAIL" from `errors` (with "line N" for an import) or "  NAME: REASON" from RFC 9457's
 * `invalid_params` / `invalid-params`, an entry that only repeats TEXT left out, and "  ... and N
 * more" when the server counted more (`error_count`) than it listed. A body that is no problem
 * document: "imaxe: HTTP STATUS: " and its first 200 bytes. Control characters become '?'.
 * Returns 0, or -1 when out overflowed. */
int imx_cli_fmt_problem(struct imx_cli_buf *out, long status, const char *body, size_t len);

#endif
