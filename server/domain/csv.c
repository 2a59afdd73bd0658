/* CSV tables to JSON rows and back, one field at a time, with named limits. */
#include "domain/csv.h"
#include "util/budget.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* One record's fields: values point into a scratch copy; quoted marks "" (not NULL). */
struct record {
    char *field[IMX_CSV_MAX_COLUMNS];
    bool quoted[IMX_CSV_MAX_COLUMNS];
    size_t n;
};

/* Reads one record starting at *pos, unescaping into out (capacity len - *pos + 1 is enough).
 * Returns 1 with rec filled, 0 at the end of text, -1 on an error (err set). *line counts. */
static int read_record(const char *text, size_t len, size_t *pos, char *out, struct record *rec,
                       size_t *line, char *err, size_t errlen)
{
    size_t p = *pos, o = 0;
    rec->n = 0;
    if (p >= len)
        return 0;
    for (;;) {
        if (rec->n == IMX_CSV_MAX_COLUMNS) {
            set_err(err, errlen, "line %zu: more than %d fields", *line, IMX_CSV_MAX_COLUMNS);
            return -1;
        }
        char *start = out + o;
        size_t flen = 0;
        bool quoted = false;
        if (p < len && text[p] == '"') {
            quoted = true;
            p++;
            for (;;) {
                if (p >= len) {
                    set_err(err, errlen, "line %zu: a quoted field does not end", *line);
                    return -1;
                }
                if (text[p] == '"') {
                    if (p + 1 < len && text[p + 1] == '"') {
                        out[o++] = '"';
                        p += 2;
                        flen++;
                    } else {
                        p++;
                        break;
                    }
                } else {
                    if (text[p] == '\n')
                        (*line)++;
                    out[o++] = text[p++];
                    flen++;
                }
                if (flen > IMX_CSV_MAX_FIELD) {
                    set_err(err, errlen, "line %zu: a field is longer than %d bytes", *line,
                            IMX_CSV_MAX_FIELD);
                    return -1;
                }
            }
            if (p < len && text[p] != ',' && text[p] != '\n' && text[p] != '\r') {
                set_err(err, errlen, "line %zu: text after a closing quote", *line);
                return -1;
            }
        } else {
            while (p < len && text[p] != ',' && text[p] != '\n' && text[p] != '\r') {
                if (text[p] == '"') {
                    set_err(err, errlen, "line %zu: a quote inside an unquoted field", *line);
                    return -1;
                }
                if (++flen > IMX_CSV_MAX_FIELD) {
                    set_err(err, errlen, "line %zu: a field is longer than %d bytes", *line,
                            IMX_CSV_MAX_FIELD);
                    return -1;
                }
                out[o++] = text[p++];
            }
        }
        out[o++] = '\0';
        rec->field[rec->n] = start;
        rec->quoted[rec->n] = quoted;
        rec->n++;
        if (p < len && text[p] == ',') {
            p++;
            continue;
        }
        /* End of record: CRLF, LF, CR or the end of text. */
        if (p < len && text[p] == '\r')
            p++;
        if (p < len && text[p] == '\n')
            p++;
        (*line)++;
        *pos = p;
        return 1;
    }
}

static bool blank(const struct record *r)
{
    return r->n == 1 && !r->quoted[0] && r->field[0][0] == '\0';
}

json_t *imx_csv_rows(const char *text, size_t len, char *err, size_t errlen)
{
    return imx_csv_rows_at(text, len, NULL, NULL, err, errlen);
}

json_t *imx_csv_rows_at(const char *text, size_t len, json_t **lines, size_t *err_line, char *err,
                        size_t errlen)
{
    size_t at = 1;
    if (lines)
        *lines = NULL;
    if (err_line)
        *err_line = 0;
    set_err(err, errlen, "%s", "");
    if (!text) {
        set_err(err, errlen, "no text");
        return NULL;
    }
    if (memchr(text, '\0', len)) {
        set_err(err, errlen, "a NUL byte in the text");
        return NULL;
    }
    /* Unescaped fields are never longer than the text; one NUL per field at most doubles it. */
    char *scratch = malloc(2 * len + 2);
    struct record *header = malloc(sizeof *header), *rec = malloc(sizeof *rec);
    char *hscratch = malloc(len + 1);
    json_t *rows = json_array(), *starts = json_array();
    size_t pos = 0, line = 1;
    if (!scratch || !header || !rec || !hscratch || !rows || !starts) {
        set_err(err, errlen, "out of memory");
        goto fail;
    }
    int rc;
    do {
        at = line;
        rc = read_record(text, len, &pos, hscratch, header, &line, err, errlen);
    } while (rc == 1 && blank(header));
    if (rc <= 0) {
        if (rc == 0)
            set_err(err, errlen, "no header line");
        goto fail;
    }
    for (size_t i = 0; i < header->n; i++) {
        if (header->field[i][0] == '\0') {
            set_err(err, errlen, "header: column %zu has no name", i + 1);
            goto fail;
        }
        for (size_t k = 0; k < i; k++) {
            if (strcmp(header->field[i], header->field[k]) == 0) {
                set_err(err, errlen, "header: column \"%s\" twice", header->field[i]);
                goto fail;
            }
        }
    }
    for (;;) {
        at = line;
        if (imx_budget_spent()) {
            set_err(err, errlen, "line %zu: %s", at, IMX_BUDGET_SPENT_TEXT);
            goto fail;
        }
        rc = read_record(text, len, &pos, scratch, rec, &line, err, errlen);
        if (rc < 0)
            goto fail;
        if (rc == 0)
            break;
        if (blank(rec))
            continue;
        if (rec->n != header->n) {
            set_err(err, errlen, "line %zu: %zu fields, the header has %zu", at, rec->n, header->n);
            goto fail;
        }
        if (json_array_size(rows) == IMX_CSV_MAX_ROWS) {
            set_err(err, errlen, "more than %d rows", IMX_CSV_MAX_ROWS);
            goto fail;
        }
        json_t *o = json_object();
        for (size_t i = 0; o && i < rec->n; i++) {
            json_t *v = (rec->field[i][0] == '\0' && !rec->quoted[i])
                            ? json_null()
                            : json_stringn(rec->field[i], strlen(rec->field[i]));
            if (!v) {
                set_err(err, errlen, "line %zu: field %zu is not UTF-8", at, i + 1);
                json_decref(o);
                goto fail;
            }
            json_object_set_new(o, header->field[i], v);
        }
        if (!o || json_array_append_new(rows, o) != 0 ||
            json_array_append_new(starts, json_integer((json_int_t)at)) != 0) {
            set_err(err, errlen, "out of memory");
            goto fail;
        }
    }
    free(scratch);
    free(hscratch);
    free(header);
    free(rec);
    if (lines)
        *lines = starts;
    else
        json_decref(starts);
    return rows;
fail:
    if (err_line)
        *err_line = at;
    free(scratch);
    free(hscratch);
    free(header);
    free(rec);
    json_decref(rows);
    json_decref(starts);
    return NULL;
}

/* Is s a decimal number as JSON writes one (-1, 2.5, -3e-7)? */
static bool plain_number(const char *s)
{
    const char *p = s;
    if (*p == '-' || *p == '+')
        p++;
    if (!isdigit((unsigned char)*p))
        return false;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '-' || *p == '+')
            p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return *p == '\0';
}

int imx_csv_put_cell(char *buf, size_t cap, size_t *n, const char *value, int first)
{
    if (!value || !value[0] || !strchr("=+-@\t\r", value[0]) || plain_number(value))
        return imx_csv_put(buf, cap, n, value, first);
    size_t len = strlen(value);
    if (len + 2 > cap)
        return -1;
    char *cell = malloc(len + 2);
    if (!cell)
        return -1;
    cell[0] = '\'';
    memcpy(cell + 1, value, len + 1);
    int rc = imx_csv_put(buf, cap, n, cell, first);
    free(cell);
    return rc;
}

int imx_csv_put(char *buf, size_t cap, size_t *n, const char *value, int first)
{
    size_t at = *n;
    if (!first) {
        if (at + 1 >= cap)
            return -1;
        buf[at++] = ',';
    }
    if (value) {
        bool quote = value[0] == '\0' || strpbrk(value, ",\"\r\n") != NULL;
        if (quote) {
            if (at + 1 >= cap)
                return -1;
            buf[at++] = '"';
        }
        for (const char *p = value; *p; p++) {
            if (at + 2 >= cap)
                return -1;
            if (*p == '"')
                buf[at++] = '"';
            buf[at++] = *p;
        }
        if (quote) {
            if (at + 1 >= cap)
                return -1;
            buf[at++] = '"';
        }
    }
    buf[at] = '\0';
    *n = at;
    return 0;
}
