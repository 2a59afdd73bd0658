/* Stored image documents (migrations/0020_point_reads.sql) read in coalesced batches. */
#ifndef IMX_DB_IMAGE_DOCS_H
#define IMX_DB_IMAGE_DOCS_H

#include "db/images.h"

/* The stored detail document and the auth epoch read with it. */
struct imx_db_image_doc {
    void *owner; /* owns json and etag: imx_db_image_doc_free() or imx_db_image_doc_release() */
    const char *json; /* the document; NULL when it is the one the client holds (not modified) */
    size_t json_len;
    const char *etag; /* its strong ETag with quotes */
    long long epoch;  /* auth_epoch.n in the same snapshot */
};

/* The stored document of image id, left out when its ETag is client_etag (one quoted ETag from
 * If-None-Match, or NULL). Read on a pool connection of its own, in one statement with the other
 * requests for documents waiting at the same moment. OK with *out filled; NOT_FOUND with only
 * out->epoch set when there is no current stored document (no such image, a row loaded with SQL
 * before imx_image_docs_write(), or a scheduled revocation that has come due): build it from
 * scratch with imx_db_image_get. UNAVAILABLE when no connection could be had or the database
 * failed. */
enum imx_db_status imx_db_image_doc(long long id, const char *client_etag,
                                    struct imx_db_image_doc *out);

/* The same read without waiting, for a fast handler: queues it (db/read_batch.h,
 * imx_db_batch_start) and returns; done(cls) is called on another thread once it is read, and
 * imx_db_image_doc_result then gives what imx_db_image_doc returns (once). client_etag is
 * copied. NULL when out of memory. */
struct imx_db_image_doc_call;
struct imx_db_image_doc_call *imx_db_image_doc_start(long long id, const char *client_etag,
                                                     void (*done)(void *cls), void *cls);
enum imx_db_status imx_db_image_doc_result(struct imx_db_image_doc_call *c,
                                           struct imx_db_image_doc *out);
/* Frees a call after its done (what the result did not hand on with it, too). */
void imx_db_image_doc_call_free(void *call);

/* Frees what out holds (out is zeroed). */
void imx_db_image_doc_free(struct imx_db_image_doc *d);

/* Releases an owner handed on with the document (a response's free callback). */
void imx_db_image_doc_release(void *owner);

/* Statements sent and documents they asked for, since start (/metrics). */
void imx_db_image_doc_stats(unsigned long long *reads, unsigned long long *docs);

#endif
