/* CSV and NDJSON exports of keyset lists (see api/export.h). */
#include "api/export.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "domain/csv.h"
#include "http/router.h"
#include "util/log.h"

/* Longest key text carried between pages, and longest CSV record. */
#define KEY_MAX    512
#define RECORD_MAX (1u << 20)

unsigned imx_api_export_max_rows = 100000;

struct exporter {
    enum imx_export_format format;
    const char *const *columns;
    imx_export_page_fn page;    /* rows (key, item) */
    imx_export_doc_fn doc_page; /* or documents with items_member and the next key */
    const char *items_member;
    void *cls;
    void (*free_cls)(void *);
    char after[KEY_MAX];
    bool has_after, header_sent, done;
    char *buf; /* the bytes of the last page not yet sent */
    size_t len, off;
    unsigned long long rows;
    struct timespec started;
    char request_id[IMX_REQUEST_ID_MAX + 1];
};

/* The q of a media range's parameters p[0..n) (";q=0.5"), 1 when absent; -1 when malformed. */
static int range_q(const char *p, size_t n)
{
    const char *end = p + n;
    while (p < end) {
        while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
            p++;
        if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            /* qvalue: "0" ["." 0*3DIGIT] / "1" ["." 0*3("0")], in thousandths */
            const char *v = p + 2;
            int q = 0, scale = 1000;
            if (v >= end || (*v != '0' && *v != '1'))
                return -1;
            q = (*v++ - '0') * 1000;
            if (v < end && *v == '.')
                for (v++; v < end && *v >= '0' && *v <= '9' && scale > 1; v++)
                    q += (*v - '0') * (scale /= 10);
            return q > 1000 ? -1 : q;
        }
        while (p < end && *p != ';')
            p++;
    }
    return 1000;
}

enum imx_export_format imx_api_export_format(const struct imx_req *r)
{
    const char *accept = imx_req_header(r, "Accept");
    if (!accept || !r->route || !r->route->exports)
        return IMX_EXPORT_NONE;
    /* The q of each of the three answers (RFC 9110 section 12.5.1): a specific range counts over
     * a wildcard one, q=0 means "not this", and of equal q the first listed wins. */
    int q[3] = { -1, -1, -1 }, spec[3] = { 0, 0, 0 }, first[3] = { 0, 0, 0 }, order = 0;
    for (const char *p = accept; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p)
            break;
        size_t all = strcspn(p, ",");
        size_t n = strcspn(p, ",;");
        while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        int rq = range_q(p + n, all - n);
        order++;
        /* A wildcard reaches JSON only, less specifically: an export is sent only when named. */
        int hit = -1, s = 0;
        if (n == 16 && strncasecmp(p, "application/json", n) == 0)
            hit = IMX_EXPORT_NONE, s = 2;
        else if (n == 8 && strncasecmp(p, "text/csv", n) == 0)
            hit = IMX_EXPORT_CSV, s = 2;
        else if (n == 20 && strncasecmp(p, "application/x-ndjson", n) == 0)
            hit = IMX_EXPORT_NDJSON, s = 2;
        else if ((n == 3 && strncmp(p, "*/*", n) == 0) ||
                 (n == 13 && strncasecmp(p, "application/*", n) == 0))
            hit = IMX_EXPORT_NONE, s = 1;
        if (hit >= 0 && rq >= 0 && (s > spec[hit] || (s == spec[hit] && rq > q[hit]))) {
            q[hit] = rq;
            spec[hit] = s;
            if (!first[hit])
                first[hit] = order;
        }
        p += all;
    }
    int best = IMX_EXPORT_NONE;
    for (int f = 0; f < 3; f++)
        if (q[f] > 0 &&
            (q[best] <= 0 || q[f] > q[best] || (q[f] == q[best] && first[f] < first[best])))
            best = f;
    return (enum imx_export_format)best;
}

static void export_free(void *cls)
{
    struct exporter *e = cls;
    if (!e)
        return;
    if (e->free_cls)
        e->free_cls(e->cls);
    else
        free(e->cls);
    free(e->buf);
    free(e);
}

/* Appends len bytes to e->buf (grown). Returns false when memory ran out. */
static bool append(struct exporter *e, size_t *cap, const char *s, size_t len)
{
    if (e->len + len + 1 > *cap) {
        size_t want = (*cap ? *cap * 2 : 64 * 1024);
        while (want < e->len + len + 1)
            want *= 2;
        char *grown = realloc(e->buf, want);
        if (!grown)
            return false;
        e->buf = grown;
        *cap = want;
    }
    memcpy(e->buf + e->len, s, len);
    e->len += len;
    return true;
}

/* The member of item at path ("a" or "a.b": a member of an object member). Borrowed. */
static const json_t *member(const json_t *item, const char *path)
{
    const char *dot = strchr(path, '.');
    if (!dot)
        return json_object_get(item, path);
    char head[64];
    size_t n = (size_t)(dot - path);
    if (n >= sizeof head)
        return NULL;
    memcpy(head, path, n);
    head[n] = '\0';
    return json_object_get(json_object_get(item, head), dot + 1);
}

/* One CSV record of item (columns as in imx_api_export_steal) into rec. Returns its length, or
 * 0 when it does not fit. */
static size_t csv_record(const char *const *columns, const json_t *item, char *rec)
{
    size_t n = 0;
    for (size_t i = 0; columns[i]; i++) {
        const json_t *v = member(item, columns[i]);
        char *text = NULL;
        const char *value = NULL;
        if (json_is_string(v))
            value = json_string_value(v);
        else if (v && !json_is_null(v))
            value = text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        int rc = imx_csv_put_cell(rec, RECORD_MAX - 2, &n, value, i == 0);
        free(text);
        if (rc != 0)
            return 0;
    }
    rec[n++] = '\r';
    rec[n++] = '\n';
    return n;
}

/* Fetches and formats the next page into e->buf. Returns 0, or -1 to cut the transfer. */
/* The item of row i (column 1) as JSON, or NULL. */
static json_t *row_item(const struct imx_db_rows *rows, int i)
{
    const char *text = imx_db_rows_text(rows, i, 1, NULL);
    return text ? json_loads(text, 0, NULL) : NULL;
}

static int fill(struct exporter *e)
{
    size_t cap = 0;
    free(e->buf);
    e->buf = NULL;
    e->len = e->off = 0;
    char *rec = e->format == IMX_EXPORT_CSV ? malloc(RECORD_MAX) : NULL;
    if (e->format == IMX_EXPORT_CSV && !rec)
        return -1;
    int rc = 0;
    if (e->format == IMX_EXPORT_CSV && !e->header_sent) {
        size_t n = 0;
        for (size_t i = 0; e->columns[i] && rc == 0; i++)
            rc = imx_csv_put(rec, RECORD_MAX - 2, &n, e->columns[i], i == 0);
        rec[n++] = '\r';
        rec[n++] = '\n';
        if (rc != 0 || !append(e, &cap, rec, n))
            rc = -1;
        e->header_sent = true;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (rc == 0 && now.tv_sec - e->started.tv_sec > IMX_EXPORT_MAX_S) {
        imx_warn("request %s: export cut after %llu rows and %d s", e->request_id, e->rows,
                 IMX_EXPORT_MAX_S);
        rc = -1;
    }
    /* At the row cap, one more row decides: none, the export is whole; one, it is cut. */
    unsigned long long remaining =
        e->rows < imx_api_export_max_rows ? imx_api_export_max_rows - e->rows : 0;
    int ask = remaining == 0                     ? 1
              : remaining < IMX_EXPORT_PAGE_ROWS ? (int)remaining
                                                 : IMX_EXPORT_PAGE_ROWS;
    enum imx_db_status why;
    struct imx_db_conn *c = rc == 0 ? imx_db_acquire_read(&why) : NULL;
    struct imx_db_page res = { 0 };
    if (rc == 0 && !c) {
        imx_warn("request %s: export cut: no database connection", e->request_id);
        rc = -1;
    }
    char *doc_text = NULL, *next_key = NULL;
    if (rc == 0 && e->doc_page) {
        char limit[16];
        snprintf(limit, sizeof limit, "%d", ask);
        rc = e->doc_page(c, e->cls, e->has_after ? e->after : NULL, limit, &doc_text, &next_key);
        imx_db_release(c);
        if (rc != 0)
            imx_error("request %s: export page failed", e->request_id);
    } else if (rc == 0) {
        char limit[16];
        snprintf(limit, sizeof limit, "%d", ask);
        enum imx_db_status st = e->page(c, e->cls, e->has_after ? e->after : NULL, limit, &res);
        if (st != IMX_DBS_OK) {
            imx_error("request %s: export page failed: %s", e->request_id, imx_db_status_name(st));
            rc = -1;
        }
        imx_db_release(c);
    }
    /* The page's items: rows, or the items of a document page. */
    json_t *doc = NULL, *items = NULL;
    int got = 0;
    if (rc == 0 && e->doc_page) {
        doc = doc_text ? json_loads(doc_text, 0, NULL) : NULL;
        items = json_object_get(doc, e->items_member);
        if (!json_is_array(items))
            rc = -1;
        got = (int)json_array_size(items);
    } else if (rc == 0) {
        got = res.rows.n;
    }
    if (rc == 0 && remaining == 0 && got > 0) {
        imx_warn("request %s: export cut at %u rows (IMAXE_EXPORT_MAX_ROWS)", e->request_id,
                 imx_api_export_max_rows);
        rc = -1;
    }
    int rows = (unsigned long long)got > remaining ? (int)remaining : got;
    for (int i = 0; i < rows && rc == 0; i++) {
        json_t *item =
            e->doc_page ? json_incref(json_array_get(items, (size_t)i)) : row_item(&res.rows, i);
        if (!json_is_object(item)) {
            rc = -1;
        } else if (e->format == IMX_EXPORT_CSV) {
            size_t n = csv_record(e->columns, item, rec);
            if (n == 0 || !append(e, &cap, rec, n))
                rc = -1;
        } else {
            char *line = json_dumps(item, JSON_COMPACT);
            if (!line || !append(e, &cap, line, strlen(line)) || !append(e, &cap, "\n", 1))
                rc = -1;
            free(line);
        }
        json_decref(item);
        e->rows++;
    }
    if (rc == 0 && e->doc_page) {
        /* A document page says itself whether another follows. */
        if (next_key && strlen(next_key) >= sizeof e->after)
            rc = -1;
        else if (next_key && rows == got)
            snprintf(e->after, sizeof e->after, "%s", next_key);
        e->has_after = next_key != NULL;
        e->done = !next_key;
    } else {
        if (rc == 0 && rows > 0) {
            const char *key = imx_db_rows_text(&res.rows, rows - 1, 0, NULL);
            snprintf(e->after, sizeof e->after, "%s", key ? key : "");
            e->has_after = true;
        }
        /* Fewer rows than asked: the list ends here (a page function may return one more). */
        if (rc == 0 && got < ask)
            e->done = true;
    }
    json_decref(doc);
    free(doc_text);
    free(next_key);
    imx_db_page_free(&res);
    free(rec);
    return rc;
}

static ssize_t produce(void *cls, uint64_t pos, char *out, size_t max)
{
    (void)pos;
    struct exporter *e = cls;
    while (e->off == e->len) {
        if (e->done)
            return -1;
        if (fill(e) != 0)
            return -2;
    }
    size_t n = e->len - e->off < max ? e->len - e->off : max;
    memcpy(out, e->buf + e->off, n);
    e->off += n;
    return (ssize_t)n;
}

int imx_api_export_doc_page(enum imx_db_status st, struct imx_db_page *page, char **doc,
                            char **next_key)
{
    *doc = *next_key = NULL;
    int rc = -1;
    const char *text =
        st == IMX_DBS_OK && page->rows.n == 1 ? imx_db_rows_text(&page->rows, 0, 0, NULL) : NULL;
    if (text) {
        const char *key = imx_db_rows_text(&page->rows, 0, 1, NULL);
        *doc = strdup(text);
        *next_key = key ? strdup(key) : NULL;
        rc = *doc && (!key || *next_key) ? 0 : -1;
    }
    imx_db_page_free(page);
    return rc;
}

/* Starts the stream of e (steals it) or replies 500. */
static void start(struct imx_req *r, struct exporter *e)
{
    clock_gettime(CLOCK_MONOTONIC, &e->started);
    snprintf(e->request_id, sizeof e->request_id, "%s", r->request_id);
    imx_reply_header(r, "Vary", "Accept");
    imx_reply_stream_steal(r, 200,
                           e->format == IMX_EXPORT_CSV ? "text/csv; charset=utf-8; header=present"
                                                       : "application/x-ndjson",
                           produce, e, export_free);
}

static struct exporter *exporter_new(struct imx_req *r, void *cls, void (*free_cls)(void *))
{
    struct exporter *e = calloc(1, sizeof *e);
    if (!e) {
        if (free_cls)
            free_cls(cls);
        else
            free(cls);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    }
    return e;
}

void imx_api_export_steal(struct imx_req *r, enum imx_export_format format,
                          const char *const *columns, imx_export_page_fn page, void *cls,
                          void (*free_cls)(void *))
{
    struct exporter *e = exporter_new(r, cls, free_cls);
    if (!e)
        return;
    *e = (struct exporter){
        .format = format, .columns = columns, .page = page, .cls = cls, .free_cls = free_cls
    };
    start(r, e);
}

void imx_api_export_doc_steal(struct imx_req *r, enum imx_export_format format,
                              const char *const *columns, imx_export_doc_fn page,
                              const char *items_member, void *cls, void (*free_cls)(void *))
{
    struct exporter *e = exporter_new(r, cls, free_cls);
    if (!e)
        return;
    *e = (struct exporter){ .format = format,
                            .columns = columns,
                            .doc_page = page,
                            .items_member = items_member,
                            .cls = cls,
                            .free_cls = free_cls };
    start(r, e);
}
