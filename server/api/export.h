/* CSV (RFC 4180, a header row) and NDJSON exports of keyset lists, asked for with Accept:
 * text/csv or application/x-ndjson: streamed a page at a time while the client reads, each page
 * one statement on a pooled connection taken for it alone, bounded in rows and time. */
#ifndef IMX_API_EXPORT_H
#define IMX_API_EXPORT_H

#include "db/pool.h"
#include "http/request.h"

/* Most rows an export sends (IMAXE_EXPORT_MAX_ROWS, set by main before serving), and how long it
 * may take; past either the transfer is cut (the client sees an incomplete body, never a short
 * file that looks whole). */
extern unsigned imx_api_export_max_rows;
#define IMX_EXPORT_MAX_S 120
/* Rows fetched a page. */
#define IMX_EXPORT_PAGE_ROWS 500

enum imx_export_format {
    IMX_EXPORT_NONE, /* JSON, the list as usual */
    IMX_EXPORT_CSV,
    IMX_EXPORT_NDJSON,
};

/* Which export Accept asks for: of application/json (or a wildcard, meaning JSON), text/csv and
 * application/x-ndjson, the one with the highest q above 0 (q=0 refuses one), the first listed
 * of equal q; NONE (JSON) without Accept or when none is acceptable. */
enum imx_export_format imx_api_export_format(const struct imx_req *r);

/* One page of the list in its order after the key after (the text of the previous page's last
 * key; NULL: from the first), at most limit rows: each row its key (column 0) and the item as a
 * JSON object (column 1), into *out. cls: the list's filters. */
typedef enum imx_db_status (*imx_export_page_fn)(struct imx_db_conn *c, const void *cls,
                                                 const char *after, const char *limit,
                                                 struct imx_db_page *out);

/* Replies 200 with the whole list streamed in format: for CSV a header row of columns (a
 * NULL-ended static list; "a.b" names member b of object member a) and then one record an item
 * (each column's member: strings as they
 * are, null or absent as an empty field, numbers, booleans, arrays and objects as JSON text); for
 * NDJSON one JSON object a line. Steals cls (freed with free_cls; NULL: free). */
void imx_api_export_steal(struct imx_req *r, enum imx_export_format format,
                          const char *const *columns, imx_export_page_fn page, void *cls,
                          void (*free_cls)(void *));

/* A list whose pages are documents: one page after the key after (the previous page's next key;
 * NULL: the first), at most limit items -> 0 with *doc the page (new JSON text, its items in
 * member items_member of imx_api_export_doc_steal) and *next_key the next page's key (new text,
 * NULL on the last page), or -1. */
typedef int (*imx_export_doc_fn)(struct imx_db_conn *c, const void *cls, const char *after,
                                 const char *limit, char **doc, char **next_key);

/* For an imx_export_doc_fn over a page as imx_api_reply_doc_page takes (row 0: the document,
 * the next key or NULL) and its status: fills *doc and *next_key; frees page. Returns 0, or -1. */
int imx_api_export_doc_page(enum imx_db_status st, struct imx_db_page *page, char **doc,
                            char **next_key);

/* As imx_api_export_steal, for a list of document pages. */
void imx_api_export_doc_steal(struct imx_req *r, enum imx_export_format format,
                              const char *const *columns, imx_export_doc_fn page,
                              const char *items_member, void *cls, void (*free_cls)(void *));

#endif
