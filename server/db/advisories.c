/* SQL for advisories and patch status; publishing, revising and withdrawing are the use cases of
 * migrations/procedures/advisory_publish.sql, one wrapper each. */
#include "db/advisories.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/read_batch.h"
#include "db/internal.h"

/* The advisory use cases (migrations/procedures/advisory_publish.sql). */
IMX_DB_STMT(q_publish, 3, "SELECT imx_advisory_publish($1::jsonb, $2::bigint, $3::int)::text");

IMX_DB_STMT(q_withdraw, 3, "SELECT imx_advisory_withdraw($1::text, $2::text, $3::int)::text");

IMX_DB_STMT(q_get, 1,
            "SELECT imx_advisory_json(a.id)::text,"
            " a.revision || '.' || imx_advisory_risk_tag(a.cves) FROM advisories a"
            " WHERE a.id = $1::text");

IMX_DB_STMT(q_affected, 5,
            "SELECT doc::text, next_key::text FROM imx_advisory_affected_page($1::text, $2::text,"
            " $3::timestamptz, $4::bigint, $5::int)");

/* The filters of a search, shared by both orders ($1..$5, $9 kev, $10 min_epss). */
#define LIST_FILTERS                                                                               \
    " WHERE ($1::text IS NULL OR EXISTS (SELECT 1 FROM advisory_ranges r"                          \
    "        WHERE r.advisory_id = a.id AND r.component = $1::text))"                              \
    " AND ($2::text IS NULL OR a.severity = $2::text)"                                             \
    " AND ($3::date IS NULL OR a.published >= $3::date)"                                           \
    " AND ($4::date IS NULL OR a.published <= $4::date)"                                           \
    " AND ($5::text IS NULL OR a.cves @> ARRAY[upper($5::text)])"                                  \
    " AND ($9::boolean IS NULL OR $9::boolean = EXISTS (SELECT 1 FROM kev_entries k"               \
    "      WHERE k.cve = ANY (a.cves)))"                                                           \
    " AND ($10::numeric IS NULL OR EXISTS (SELECT 1 FROM epss_scores e"                            \
    "      WHERE e.cve = ANY (a.cves) AND e.epss >= $10::numeric))"

IMX_DB_STMT(
    q_list, 10,
    "SELECT a.published::text, a.id, imx_advisory_json(a.id)::text FROM advisories a" LIST_FILTERS
    " AND ($6::date IS NULL OR (a.published, a.id) < ($6::date, $7::text))"
    " ORDER BY a.published DESC, a.id DESC LIMIT $8::int + 1");

/* sort=risk: in the KEV catalog first, then by EPSS, newest, id (imx_advisory_risk_key); $6 is
 * the key after which the page starts ($7 is NULL). */
IMX_DB_STMT(q_list_risk, 10,
            "SELECT x.k, imx_advisory_json(x.id)::text FROM (SELECT a.id,"
            " imx_advisory_risk_key(a.cves, a.published, a.id) COLLATE \"C\" AS k"
            " FROM advisories a" LIST_FILTERS ") x"
            " WHERE ($6::text IS NULL OR x.k < $6::text COLLATE \"C\") AND $7::text IS NULL"
            " ORDER BY x.k DESC LIMIT $8::int + 1");

/* With the auth epoch (migrations/0020_point_reads.sql): always one row. */
IMX_DB_STMT(q_image_patch, 1,
            "SELECT imx_image_patch_json($1::bigint)::text, (SELECT n FROM auth_epoch)");

/* The same with "nodes": the running nodes that booted the image (imx_nodes_running,
 * procedures/nodes.sql), counted when read: ?nodes=true only, as counting a large fleet's nodes
 * (33,000 on one image: ~1 s on the bench) has no place on the path every pipeline polls. */
IMX_DB_STMT(
    q_image_patch_nodes, 1,
    "SELECT (d::jsonb || jsonb_build_object('nodes', imx_nodes_running($1::bigint, NULL)))"
    "::text, (SELECT n FROM auth_epoch) FROM (SELECT imx_image_patch_json($1::bigint)) x(d)");

/* For the rest of the caller's transaction only (set_config(..., true)). */
IMX_DB_STMT(q_timeout, 1, "SELECT set_config('statement_timeout', $1::text, true)");

static char advisory_timeout[16] = "120000";

void imx_db_advisory_set_timeout(unsigned ms)
{
    snprintf(advisory_timeout, sizeof advisory_timeout, "%u", ms);
}

/* Runs stmt with the advisory timeout; a failure to set it is returned as the result. */
static PGresult *exec_long(struct imx_db_conn *c, struct imx_db_stmt *stmt, const char *const *p)
{
    const char *t[] = { advisory_timeout };
    PGresult *r = imx_db_exec(c, &q_timeout, t);
    if (!imx_db_ok(r))
        return r;
    PQclear(r);
    return imx_db_exec(c, stmt, p);
}

enum imx_db_status imx_db_advisory_publish(struct imx_db_conn *c, const char *doc,
                                           const char *user_id, const char *revision,
                                           struct imx_db_json *outcome, struct imx_db_fault *why)
{
    const char *p[] = { doc, user_id, revision };
    return imx_db_why(c, imx_db_json_take(exec_long(c, &q_publish, p), 0, outcome), why);
}

enum imx_db_status imx_db_advisory_withdraw(struct imx_db_conn *c, const char *id,
                                            const char *reason, const char *revision,
                                            struct imx_db_json *outcome, struct imx_db_fault *why)
{
    const char *p[] = { id, reason, revision };
    return imx_db_why(c, imx_db_json_take(exec_long(c, &q_withdraw, p), 0, outcome), why);
}

enum imx_db_status imx_db_advisory_get(struct imx_db_conn *c, const char *id, char revision[24],
                                       struct imx_db_json *doc, struct imx_db_fault *why)
{
    const char *p[] = { id };
    PGresult *res = imx_db_exec(c, &q_get, p);
    revision[0] = '\0';
    if (imx_db_ok(res) && PQntuples(res) == 1)
        snprintf(revision, 24, "%s", PQgetvalue(res, 0, 1));
    return imx_db_why(c, imx_db_json_take(res, 0, doc), why);
}

IMX_DB_STMT(q_affected_rows, 3,
            "SELECT json_build_array(i.family, i.published_at, i.id)::text,"
            " json_build_object('advisory', ia.advisory_id, 'family', i.family, 'id', i.id,"
            " 'version', i.version, 'status', i.status, 'patch_status', i.patch_status,"
            " 'published_at', i.published_at, 'fixed_by', CASE WHEN fx.id IS NOT NULL THEN"
            " json_build_object('id', fx.id, 'family', fx.family, 'version', fx.version) END)::text"
            " FROM image_advisories ia JOIN images i ON i.id = ia.image_id"
            " LEFT JOIN images fx ON fx.id = ia.fixed_by WHERE ia.advisory_id = $1::text"
            " AND ($2::json IS NULL OR (i.family, i.published_at, i.id) > ($2::json->>0,"
            " ($2::json->>1)::timestamptz, ($2::json->>2)::bigint))"
            " ORDER BY i.family, i.published_at, i.id LIMIT $3::int");

enum imx_db_status imx_db_advisory_affected_rows(struct imx_db_conn *c, const char *id,
                                                 const char *after, const char *limit,
                                                 struct imx_db_page *out, struct imx_db_fault *why)
{
    const char *p[] = { id, after, limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_affected_rows, p), out), why);
}

enum imx_db_status imx_db_advisory_affected(struct imx_db_conn *c, const char *id,
                                            const char *const after[3], const char *limit,
                                            struct imx_db_page *out, struct imx_db_fault *why)
{
    const char *p[] = { id, after[0], after[1], after[2], limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_affected, p), out), why);
}

enum imx_db_status imx_db_advisory_list(struct imx_db_conn *c,
                                        const struct imx_db_advisory_filter *f, bool by_risk,
                                        const char *after_a, const char *after_b, const char *limit,
                                        struct imx_db_page *out, struct imx_db_fault *why)
{
    const char *p[] = { f->component, f->severity, f->from, f->to,  f->cve,
                        after_a,      after_b,     limit,   f->kev, f->min_epss };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, by_risk ? &q_list_risk : &q_list, p), out),
                      why);
}

enum imx_db_status imx_db_image_patch(struct imx_db_conn *c, const char *image_id, bool nodes,
                                      struct imx_db_json *doc, long long *epoch,
                                      struct imx_db_fault *why)
{
    const char *p[] = { image_id };
    PGresult *res = imx_db_exec(c, nodes ? &q_image_patch_nodes : &q_image_patch, p);
    *epoch = -1;
    if (imx_db_ok(res) && PQntuples(res) == 1 && PQnfields(res) >= 2)
        *epoch = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    return imx_db_why(c, imx_db_json_take(res, 0, doc), why);
}

/* Patch reads, coalesced (db/read_batch.c): for each waiter, in their order, the auth epoch and
 * its image's document (NULL: no such image), the document inlined in this plan
 * (migrations/0065_image_patch_inlined.sql). The ids come through a sub-select, for one generic
 * plan (db/image_index.c stmt_summaries says why). */
IMX_DB_STMT(q_patch_batch, 1,
            "SELECT (SELECT n FROM auth_epoch), d.doc::text"
            " FROM unnest((SELECT $1::bigint[])) WITH ORDINALITY q(id, k)"
            " LEFT JOIN LATERAL imx_image_patch_doc(q.id) d ON true ORDER BY q.k");

/* Patch reads one statement answers at most. */
#define PATCH_BATCH_MAX 16

/* A waiter asks for an image id: q_patch_batch's one column. */
static void read_patches(struct imx_db_waiter **w, size_t n)
{
    imx_db_batch_answer_columns(w, n, &q_patch_batch, 1, (int)n);
}

static struct imx_db_batcher patches = IMX_DB_BATCHER(read_patches, PATCH_BATCH_MAX);

/* What a read gave the waiter self, as imx_db_image_patch_batched returns it. */
static enum imx_db_status patch_of(struct imx_db_waiter *self, struct imx_db_patch_doc *out)
{
    memset(out, 0, sizeof *out);
    if (self->rc != IMX_DBS_OK)
        return self->rc;
    PGresult *r = self->batch->res;
    out->epoch = strtoll(PQgetvalue(r, self->row, 0), NULL, 10);
    if (PQgetisnull(r, self->row, 1)) {
        imx_db_batch_unref(self->batch);
        self->batch = NULL;
        return IMX_DBS_NOT_FOUND;
    }
    out->owner = self->batch;
    self->batch = NULL;
    out->json = PQgetvalue(r, self->row, 1);
    out->len = (size_t)PQgetlength(r, self->row, 1);
    return IMX_DBS_OK;
}

enum imx_db_status imx_db_image_patch_batched(long long image_id, struct imx_db_patch_doc *out)
{
    char idt[24];
    snprintf(idt, sizeof idt, "%lld", image_id);
    const char *ask[] = { idt };
    struct imx_db_waiter self = { .arg = ask };
    imx_db_batch_wait(&patches, &self);
    return patch_of(&self, out);
}

struct imx_db_texts_call *imx_db_image_patch_start(long long image_id, void (*wake)(void *cls),
                                                   void *cls)
{
    char idt[24];
    snprintf(idt, sizeof idt, "%lld", image_id);
    const char *ask[] = { idt };
    return imx_db_texts_start(&patches, ask, 1, wake, cls);
}

enum imx_db_status imx_db_image_patch_result(struct imx_db_texts_call *c,
                                             struct imx_db_patch_doc *out)
{
    return patch_of(&c->call.self, out);
}

void imx_db_image_patch_call_free(void *call)
{
    imx_db_texts_free(call);
}

void imx_db_image_patch_stats(unsigned long long *reads, unsigned long long *docs)
{
    imx_db_batch_stats(&patches, reads, docs);
}

/* The CSAF advisories whose bulletin is kept (advisory_csaf_docs): a reference update or an
 * upgrade that reads NVIDIA's version text anew (the builds of an exact or inclusive bound:
 * "=0.8.0" stored before is ">=0.8.0, <0.8.1dev0" now) may change any of them, whether or not it
 * left products out. Of those kept without their bulletin (imported before 0201), the ones a
 * reference update could have changed, to be reported no_source: those that left products out,
 * that have a range of a component numbered two ways (ref_version_alias: Triton's "<2.40"), or
 * that were read through such pairs. After id $1 (NULL: from the first), at most $2, with what
 * re-applying them compares against: their stored ranges, unmapped and warnings, and the
 * bulletin (null when none was kept). */
IMX_DB_STMT(q_reapply_batch, 2,
            "SELECT coalesce(json_agg(json_build_object('id', a.id, 'revision', a.revision,"
            " 'unmapped', a.unmapped, 'warnings', a.warnings, 'affected',"
            " (SELECT coalesce(json_agg(json_build_object('component', r.component, 'range',"
            "  r.range, 'fixed', r.fixed) ORDER BY r.ord), '[]') FROM advisory_ranges r"
            "  WHERE r.advisory_id = a.id), 'doc', d.doc) ORDER BY a.id), '[]')::text"
            " FROM (SELECT * FROM advisories WHERE source = 'csaf' AND withdrawn_at IS NULL"
            "  AND (jsonb_array_length(unmapped) > 0 OR warnings::text LIKE '%ref_version_alias%'"
            "   OR EXISTS (SELECT 1 FROM advisory_ranges r JOIN ref_version_alias v"
            "   ON v.component = r.component WHERE r.advisory_id = advisories.id)"
            "   OR EXISTS (SELECT 1 FROM advisory_csaf_docs k WHERE k.advisory_id = advisories.id))"
            "  AND ($1::text IS NULL OR id > $1::text)"
            "  ORDER BY id LIMIT $2::int) a"
            " LEFT JOIN advisory_csaf_docs d ON d.advisory_id = a.id");

enum imx_db_status imx_db_advisory_reapply_batch(struct imx_db_conn *c, const char *after,
                                                 const char *limit, struct imx_db_json *out,
                                                 struct imx_db_fault *why)
{
    const char *p[] = { after, limit };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_reapply_batch, p), 0, out), why);
}
