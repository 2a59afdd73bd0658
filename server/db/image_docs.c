/* Stored image documents (migrations/0020_point_reads.sql) read in coalesced batches
 * (db/read_batch.c): one statement fetches the documents of every request waiting for one. */
#include "db/image_docs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/read_batch.h"
#include "db/internal.h"

/* Documents one statement fetches at most. */
#define BATCH_MAX IMX_DB_BATCH_MAX

/* What a waiter asks for. */
struct doc_ask {
    long long id;
    const char *etag; /* borrowed: the one ETag the client holds, or NULL */
};

/* One row per id asked, in that order (migrations/0045_image_docs_read.sql). */
IMX_DB_STMT(stmt_docs, 2, "SELECT * FROM imx_image_docs_read($1::bigint[], $2::text[])");

void imx_db_image_doc_release(void *owner)
{
    imx_db_batch_unref(owner);
}

void imx_db_image_doc_free(struct imx_db_image_doc *d)
{
    imx_db_batch_unref(d->owner);
    memset(d, 0, sizeof *d);
}

/* Is etag one of ours, a quoted hex digest? Only those can match a stored ETag; they need no
 * quoting inside an array literal. */
static bool plain_etag(const char *etag)
{
    size_t n = etag ? strlen(etag) : 0;
    if (n < 3 || n > IMX_DBI_ETAG_SIZE || etag[0] != '"' || etag[n - 1] != '"')
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!((etag[i] >= '0' && etag[i] <= '9') || (etag[i] >= 'a' && etag[i] <= 'f')))
            return false;
    return true;
}

/* Reads the documents of the n waiters w[] with one statement and fills their results. */
static void read_docs(struct imx_db_waiter **w, size_t n)
{
    /* "{id,...}" and {"\"etag\"",NULL,...}: ids are at most 20 digits, ETags as plain_etag */
    char ids[BATCH_MAX * 22 + 4], etags[BATCH_MAX * (IMX_DBI_ETAG_SIZE + 8) + 4];
    size_t il = 1, el = 1;
    ids[0] = etags[0] = '{';
    for (size_t i = 0; i < n; i++) {
        const struct doc_ask *a = w[i]->arg;
        il += (size_t)snprintf(ids + il, sizeof ids - il, "%s%lld", i ? "," : "", a->id);
        if (plain_etag(a->etag)) {
            size_t len = strlen(a->etag);
            el += (size_t)snprintf(etags + el, sizeof etags - el, "%s\"\\\"%.*s\\\"\"",
                                   i ? "," : "", (int)(len - 2), a->etag + 1);
        } else {
            el += (size_t)snprintf(etags + el, sizeof etags - el, "%sNULL", i ? "," : "");
        }
    }
    snprintf(ids + il, sizeof ids - il, "}");
    snprintf(etags + el, sizeof etags - el, "}");

    const char *params[] = { ids, etags };
    for (size_t i = 0; i < n; i++)
        w[i]->row = (int)i;
    imx_db_batch_answer(w, n, &stmt_docs, params, (int)n);
}

static struct imx_db_batcher docs = IMX_DB_BATCHER(read_docs, BATCH_MAX);

/* What a read gave the waiter self, as imx_db_image_doc returns it. */
static enum imx_db_status doc_of(struct imx_db_waiter *self, struct imx_db_image_doc *out)
{
    memset(out, 0, sizeof *out);
    if (self->rc != IMX_DBS_OK)
        return self->rc;
    PGresult *r = self->batch->res;
    int k = self->row;
    long long epoch = strtoll(PQgetvalue(r, k, 0), NULL, 10);
    if (PQgetisnull(r, k, 1)) {
        imx_db_batch_unref(self->batch);
        self->batch = NULL;
        out->epoch = epoch;
        return IMX_DBS_NOT_FOUND;
    }
    out->owner = self->batch;
    self->batch = NULL;
    out->epoch = epoch;
    out->etag = PQgetvalue(r, k, 1);
    if (!PQgetisnull(r, k, 2)) {
        out->json = PQgetvalue(r, k, 2);
        out->json_len = (size_t)PQgetlength(r, k, 2);
    }
    return IMX_DBS_OK;
}

enum imx_db_status imx_db_image_doc(long long id, const char *client_etag,
                                    struct imx_db_image_doc *out)
{
    struct doc_ask ask = { .id = id, .etag = client_etag };
    struct imx_db_waiter self = { .arg = &ask };
    imx_db_batch_wait(&docs, &self);
    return doc_of(&self, out);
}

struct imx_db_image_doc_call {
    struct doc_ask ask;
    char etag[IMX_DBI_ETAG_SIZE + 1];
    struct imx_db_call call;
};

struct imx_db_image_doc_call *imx_db_image_doc_start(long long id, const char *client_etag,
                                                     void (*done)(void *cls), void *cls)
{
    struct imx_db_image_doc_call *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ask.id = id;
    if (client_etag && strlen(client_etag) < sizeof c->etag) {
        strcpy(c->etag, client_etag);
        c->ask.etag = c->etag;
    }
    imx_db_call_start(&docs, &c->call, &c->ask, done, cls);
    return c;
}

enum imx_db_status imx_db_image_doc_result(struct imx_db_image_doc_call *c,
                                           struct imx_db_image_doc *out)
{
    return doc_of(&c->call.self, out);
}

void imx_db_image_doc_call_free(void *call)
{
    struct imx_db_image_doc_call *c = call;
    if (c)
        imx_db_batch_unref(c->call.self.batch);
    free(c);
}

void imx_db_image_doc_stats(unsigned long long *reads, unsigned long long *docs_read)
{
    imx_db_batch_stats(&docs, reads, docs_read);
}
