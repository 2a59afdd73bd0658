/* Table, JSON and NDJSON rendering (see format.h). */
#include "format.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Reals with 15 significant digits: what the server sent as 8.2 prints as 8.2, not as the
 * 17-digit 8.1999999999999993 of the nearest double. */
#define REALS JSON_REAL_PRECISION(15)

int imx_cli_fmt_parse(const char *s, enum imx_cli_fmt *f)
{
    if (strcmp(s, "table") == 0)
        *f = IMX_CLI_FMT_TABLE;
    else if (strcmp(s, "json") == 0)
        *f = IMX_CLI_FMT_JSON;
    else if (strcmp(s, "ndjson") == 0)
        *f = IMX_CLI_FMT_NDJSON;
    else
        return -1;
    return 0;
}

json_t *imx_cli_json_path(json_t *root, const char *path)
{
    json_t *cur = root;
    const char *p = path;
    while (cur && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        char key[128];
        if (len == 0 || len >= sizeof key)
            return NULL;
        memcpy(key, p, len);
        key[len] = '\0';
        if (json_is_object(cur)) {
            cur = json_object_get(cur, key);
        } else if (json_is_array(cur)) {
            char *end;
            unsigned long idx = strtoul(key, &end, 10);
            if (*end != '\0' || key[0] < '0' || key[0] > '9')
                return NULL;
            cur = json_array_get(cur, idx);
        } else {
            return NULL;
        }
        p += len;
        if (*p == '.')
            p++;
    }
    return cur;
}

/* Number of display characters in UTF-8 text (continuation bytes do not count). */
static size_t display_width(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            w++;
    return w;
}

/* Appends s with control characters replaced, cut to max display characters (0: no cut). */
static int add_clean(struct imx_cli_buf *out, const char *s, size_t max)
{
    size_t w = 0;
    size_t total = display_width(s, strlen(s));
    bool cut = max > 3 && total > max;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        bool starts = (c & 0xC0) != 0x80;
        if (starts) {
            if (cut && w == max - 3)
                return imx_cli_buf_puts(out, "...");
            w++;
        }
        char ch = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
        if (imx_cli_buf_add(out, &ch, 1) != 0)
            return -1;
    }
    return 0;
}

static bool is_name_version(json_t *v)
{
    return json_is_object(v) && json_is_string(json_object_get(v, "name")) &&
           json_is_string(json_object_get(v, "version"));
}

/* The last name of a dotted column path (borrowed). */
static const char *leaf(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? dot + 1 : path;
}

int imx_cli_fmt_cell(struct imx_cli_buf *out, json_t *v, size_t max)
{
    struct imx_cli_buf tmp;
    imx_cli_buf_init(&tmp, 1 << 20);
    int rc = 0;
    if (!v || json_is_null(v) || (json_is_array(v) && json_array_size(v) == 0)) {
        rc = imx_cli_buf_puts(&tmp, "-");
    } else if (json_is_string(v)) {
        rc = imx_cli_buf_puts(&tmp, json_string_value(v));
    } else if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            if (i > 0)
                rc |= imx_cli_buf_puts(&tmp, ",");
            if (is_name_version(e)) {
                rc |=
                    imx_cli_buf_printf(&tmp, "%s=%s", json_string_value(json_object_get(e, "name")),
                                       json_string_value(json_object_get(e, "version")));
            } else if (json_is_string(e)) {
                rc |= imx_cli_buf_puts(&tmp, json_string_value(e));
            } else {
                char *s = json_dumps(e, JSON_COMPACT | JSON_ENCODE_ANY | REALS);
                rc |= s ? imx_cli_buf_puts(&tmp, s) : -1;
                free(s);
            }
        }
    } else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | REALS);
        rc = s ? imx_cli_buf_puts(&tmp, s) : -1;
        free(s);
    }
    if (rc == 0)
        rc = add_clean(out, imx_cli_buf_str(&tmp), max);
    imx_cli_buf_free(&tmp);
    return rc == 0 ? 0 : -1;
}

static bool is_scalar(json_t *v)
{
    return json_is_string(v) || json_is_number(v) || json_is_boolean(v) || json_is_null(v);
}

/* Splits columns into paths (pointers into store). Returns the count. */
static size_t column_list(json_t *rows, const char *columns, char store[][96], size_t max)
{
    size_t n = 0;
    if (columns) {
        const char *p = columns;
        while (*p && n < max) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            if (len > 0 && len < 96) {
                memcpy(store[n], p, len);
                store[n][len] = '\0';
                n++;
            }
            p += len;
            if (*p == ',')
                p++;
        }
        return n;
    }
    json_t *first = json_array_get(rows, 0);
    const char *key;
    json_t *v;
    json_object_foreach(first, key, v)
    {
        if (n >= max)
            break;
        if (is_scalar(v) && strlen(key) < 96)
            strcpy(store[n++], key);
    }
    return n;
}

static int dump_line(struct imx_cli_buf *out, json_t *v, size_t flags)
{
    char *s = json_dumps(v, flags | JSON_ENCODE_ANY | REALS);
    if (!s)
        return -1;
    int rc = imx_cli_buf_puts(out, s);
    rc |= imx_cli_buf_puts(out, "\n");
    free(s);
    return rc == 0 ? 0 : -1;
}

/* Appends text padded to width display characters (no padding after the last column). */
static int add_padded(struct imx_cli_buf *out, const char *text, size_t width, bool last)
{
    int rc = imx_cli_buf_puts(out, text);
    if (last)
        return rc;
    for (size_t w = display_width(text, strlen(text)); w < width + 2; w++)
        rc |= imx_cli_buf_add(out, " ", 1);
    return rc;
}

int imx_cli_fmt_rows(struct imx_cli_buf *out, json_t *rows, const char *columns,
                     enum imx_cli_fmt fmt, bool color)
{
    if (!json_is_array(rows))
        return -1;
    if (fmt == IMX_CLI_FMT_JSON)
        return dump_line(out, rows, JSON_INDENT(2));
    if (fmt == IMX_CLI_FMT_NDJSON) {
        size_t i;
        json_t *row;
        json_array_foreach(rows, i, row)
        {
            if (dump_line(out, row, JSON_COMPACT) != 0)
                return -1;
        }
        return 0;
    }
    char cols[IMX_CLI_COLUMNS_MAX][96];
    size_t ncols = column_list(rows, columns, cols, IMX_CLI_COLUMNS_MAX);
    if (ncols == 0)
        return 0;
    size_t nrows = json_array_size(rows);
    /* Every cell rendered once, then laid out. */
    struct imx_cli_buf *cells = calloc((nrows + 1) * ncols, sizeof *cells);
    size_t width[IMX_CLI_COLUMNS_MAX] = { 0 };
    int rc = cells ? 0 : -1;
    for (size_t c = 0; rc == 0 && c < ncols; c++) {
        struct imx_cli_buf *h = &cells[c];
        imx_cli_buf_init(h, 256);
        /* A column is headed by its last name (image.version: VERSION), or by its whole path
         * (CANDIDATE.VERSION) when another column ends with the same name. */
        const char *name = leaf(cols[c]);
        for (size_t o = 0; o < ncols && name != cols[c]; o++)
            if (o != c && strcmp(leaf(cols[o]), name) == 0)
                name = cols[c];
        for (const char *p = name; *p; p++) {
            char up = (*p >= 'a' && *p <= 'z') ? (char)(*p - 32) : *p;
            rc |= imx_cli_buf_add(h, &up, 1);
        }
        width[c] = display_width(imx_cli_buf_str(h), h->len);
    }
    for (size_t r = 0; rc == 0 && r < nrows; r++) {
        json_t *row = json_array_get(rows, r);
        for (size_t c = 0; rc == 0 && c < ncols; c++) {
            struct imx_cli_buf *cell = &cells[(r + 1) * ncols + c];
            imx_cli_buf_init(cell, 4096);
            json_t *v = imx_cli_json_path(row, cols[c]);
            /* A person reads a table: a cost of 0.000187654321 as 0.0001877 (JSON and --field
             * keep every digit for scripts). */
            if (json_is_real(v))
                rc = imx_cli_buf_printf(cell, "%.4g", json_real_value(v));
            else
                rc = imx_cli_fmt_cell(cell, v, IMX_CLI_CELL_MAX);
            size_t w = display_width(imx_cli_buf_str(cell), cell->len);
            if (w > width[c])
                width[c] = w;
        }
    }
    for (size_t r = 0; rc == 0 && r <= nrows; r++) {
        if (r == 0 && color)
            rc |= imx_cli_buf_puts(out, "\033[1m");
        for (size_t c = 0; c < ncols; c++)
            rc |= add_padded(out, imx_cli_buf_str(&cells[r * ncols + c]), width[c], c + 1 == ncols);
        if (r == 0 && color)
            rc |= imx_cli_buf_puts(out, "\033[0m");
        rc |= imx_cli_buf_puts(out, "\n");
    }
    if (cells)
        for (size_t i = 0; i < (nrows + 1) * ncols; i++)
            imx_cli_buf_free(&cells[i]);
    free(cells);
    return rc == 0 ? 0 : -1;
}

int imx_cli_fmt_object(struct imx_cli_buf *out, json_t *doc, enum imx_cli_fmt fmt, bool color)
{
    if (fmt == IMX_CLI_FMT_JSON)
        return dump_line(out, doc, JSON_INDENT(2));
    if (fmt == IMX_CLI_FMT_NDJSON || !json_is_object(doc))
        return dump_line(out, doc, JSON_COMPACT);
    size_t width = 0;
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v)
    {
        if (strlen(key) > width)
            width = strlen(key);
    }
    int rc = 0;
    json_object_foreach(doc, key, v)
    {
        if (color)
            rc |= imx_cli_buf_puts(out, "\033[1m");
        rc |= add_clean(out, key, 0);
        if (color)
            rc |= imx_cli_buf_puts(out, "\033[0m");
        for (size_t w = strlen(key); w < width + 2; w++)
            rc |= imx_cli_buf_add(out, " ", 1);
        rc |= imx_cli_fmt_cell(out, v, 0);
        rc |= imx_cli_buf_puts(out, "\n");
    }
    return rc == 0 ? 0 : -1;
}

int imx_cli_fmt_field(struct imx_cli_buf *out, json_t *v)
{
    int rc = 0;
    if (json_is_string(v)) {
        rc = imx_cli_buf_puts(out, json_string_value(v));
        rc |= imx_cli_buf_puts(out, "\n");
        return rc == 0 ? 0 : -1;
    }
    if (json_is_array(v)) {
        bool scalars = true;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            scalars = scalars && is_scalar(e);
        }
        if (scalars) {
            json_array_foreach(v, i, e)
            {
                rc |= json_is_string(e) ? imx_cli_buf_puts(out, json_string_value(e))
                                        : imx_cli_fmt_cell(out, e, 0);
                rc |= imx_cli_buf_puts(out, "\n");
            }
            return rc == 0 ? 0 : -1;
        }
    }
    return dump_line(out, v, JSON_COMPACT);
}

/* A non-empty string member of obj, or NULL. */
static const char *text_of(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s && s[0] ? s : NULL;
}

/* Whether needle is in hay, ignoring case and a closing full stop of either. */
static bool says_again(const char *hay, const char *needle)
{
    size_t n = strlen(needle), h = strlen(hay);
    if (n > 0 && needle[n - 1] == '.')
        n--;
    if (h > 0 && hay[h - 1] == '.')
        h--;
    for (size_t i = 0; n > 0 && i + n <= h; i++)
        if (strncasecmp(hay + i, needle, n) == 0)
            return true;
    return false;
}

/* One entry line: "  [line N ]WHERE: WHAT", or "  WHAT" without a WHERE. */
static int add_entry(struct imx_cli_buf *out, json_t *line, const char *where, const char *what)
{
    int rc = imx_cli_buf_puts(out, "  ");
    if (json_is_integer(line))
        rc |= imx_cli_buf_printf(out, "line %lld%s", (long long)json_integer_value(line),
                                 where ? " " : ": ");
    if (where) {
        rc |= add_clean(out, where, 0);
        rc |= imx_cli_buf_puts(out, ": ");
    }
    rc |= add_clean(out, what ? what : "invalid", 0);
    rc |= imx_cli_buf_puts(out, "\n");
    return rc;
}

int imx_cli_fmt_problem(struct imx_cli_buf *out, long status, const char *body, size_t len)
{
    json_t *doc = json_loadb(body ? body : "", len, 0, NULL);
    const char *title = text_of(doc, "title");
    const char *detail = text_of(doc, "detail");
    int rc = 0;
    if (!json_is_object(doc) || (!title && !detail)) {
        char head[201];
        size_t n = len < 200 ? len : 200;
        memcpy(head, body ? body : "", n);
        head[n] = '\0';
        rc = imx_cli_buf_printf(out, "imaxe: HTTP %ld: ", status);
        rc |= add_clean(out, head, 0);
        rc |= imx_cli_buf_puts(out, "\n");
        json_decref(doc);
        return rc == 0 ? 0 : -1;
    }
    /* A title that holds the whole detail says more; otherwise the detail is the news. */
    const char *text = detail && !(title && says_again(title, detail)) ? detail : title;
    rc = imx_cli_buf_printf(out, "imaxe: %ld ", status);
    rc |= add_clean(out, text, 0);
    rc |= imx_cli_buf_puts(out, "\n");
    size_t shown = 0, listed = 0, repeats = 0;
    static const char *const lists[] = { "errors", "invalid_params", "invalid-params" };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        size_t i;
        json_t *e;
        bool rfc = l > 0;
        json_array_foreach(json_object_get(doc, lists[l]), i, e)
        {
            listed++;
            const char *where = text_of(e, rfc ? "name" : "pointer");
            const char *what = text_of(e, rfc ? "reason" : "detail");
            if (!json_is_object(e) || shown == IMX_CLI_PROBLEM_FIELDS_MAX)
                continue;
            /* "The body must be a JSON object" said once, not again as a field of no name. */
            if (!where && what && !json_is_integer(json_object_get(e, "line")) &&
                says_again(text, what)) {
                repeats++;
                continue;
            }
            rc |= add_entry(out, json_object_get(e, "line"), where, what);
            shown++;
        }
    }
    json_t *count = json_object_get(doc, "error_count");
    size_t total = json_is_integer(count) && json_integer_value(count) > (json_int_t)listed
                       ? (size_t)json_integer_value(count)
                       : listed;
    if (shown > 0 && total > shown + repeats)
        rc |= imx_cli_buf_printf(out, "  ... and %zu more\n", total - shown - repeats);
    json_decref(doc);
    return rc == 0 ? 0 : -1;
}
