/* SQL for pins; status, candidate and resolve are PostgreSQL functions (imx_pin_json,
 * imx_pin_resolve in migrations/0006_advisories.sql); the stored documents the reads answer
 * from are in migrations/0050_pin_docs.sql. */
#include "db/pins.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/read_batch.h"
#include "db/internal.h"

IMX_DB_STMT(q_image, 1, "SELECT family, status FROM images WHERE id = $1::bigint");

IMX_DB_STMT(
    q_create, 5,
    "WITH ins AS (INSERT INTO pins (team_id, name, image_id, created_by)"
    "  VALUES ($1::bigint, $2::text, $3::bigint, $5::bigint) RETURNING id, image_id),"
    " k AS (INSERT INTO pin_constraints (pin_id, ord, component, range, lo, lo_incl, hi,"
    "   hi_incl)"
    "  SELECT ins.id, (x.o - 1)::int, x.e->>'component', x.e->>'range', (x.e->>'lo')::int[],"
    "   (x.e->>'lo_incl')::boolean, (x.e->>'hi')::int[], (x.e->>'hi_incl')::boolean"
    "  FROM ins, jsonb_array_elements($4::jsonb) WITH ORDINALITY AS x(e, o) RETURNING 1),"
    " h AS (INSERT INTO pin_history (pin_id, from_image, to_image, moved_by)"
    "  SELECT ins.id, NULL, ins.image_id, $5::bigint FROM ins RETURNING 1)"
    " SELECT id FROM ins");

IMX_DB_STMT(q_unmet, 2, "SELECT imx_pin_unmet($1::bigint, $2::bigint)::text");

IMX_DB_STMT(q_refresh, 1, "SELECT imx_pin_refresh($1::bigint)");

IMX_DB_STMT(q_lock, 1, "SELECT team_id, image_id FROM pins WHERE id = $1::bigint FOR UPDATE");

IMX_DB_STMT(q_move, 3,
            "WITH old AS (SELECT image_id FROM pins WHERE id = $1::bigint),"
            " up AS (UPDATE pins SET image_id = $2::bigint, updated_at = now()"
            "  WHERE id = $1::bigint RETURNING id),"
            " h AS (INSERT INTO pin_history (pin_id, from_image, to_image, moved_by)"
            "  SELECT $1::bigint, old.image_id, $2::bigint, $3::bigint FROM old RETURNING 1)"
            " SELECT id FROM up");

IMX_DB_STMT(q_delete, 1, "DELETE FROM pins WHERE id = $1::bigint RETURNING id");

/* A page of a team's pins with what the caller's check needs, in one statement: every row
 * starts with the auth epoch, the team's id (NULL: no such team) and the user's role in it; then
 * a pin's name and document, both NULL in the one row of an empty page. */
#define LIST_BY_SLUG(doc, join)                                                                    \
    "SELECT e.n, t.id, m.role, p.name, p.doc FROM auth_epoch e"                                    \
    " LEFT JOIN teams t ON t.slug = $1::text"                                                      \
    " LEFT JOIN memberships m ON m.team_id = t.id AND m.user_id = $2::bigint"                      \
    " LEFT JOIN LATERAL (SELECT p.name, " doc " AS doc FROM pins p " join                          \
    "  WHERE p.team_id = t.id AND ($3::text IS NULL OR p.name > $3::text)"                         \
    "  ORDER BY p.name LIMIT $4::int + 1) p ON true ORDER BY p.name"

IMX_DB_STMT(q_list, 4, LIST_BY_SLUG("imx_pin_json(p.id, false)::text", ""));

/* A stored document is used while it is fresh and the session renders times in UTC, as it was
 * written; otherwise (or without one) the pin's document is built as q_list builds it. */
#define STORED_FRESH                                                                               \
    "(d.fresh_until IS NULL OR d.fresh_until > now())"                                             \
    " AND current_setting('TimeZone') IN ('UTC', 'Etc/UTC')"

IMX_DB_STMT(q_list_stored, 4,
            LIST_BY_SLUG("coalesce(CASE WHEN " STORED_FRESH " THEN d.body || 'null}' END,"
                         " imx_pin_json(p.id, false)::text)",
                         "LEFT JOIN pin_docs d ON d.pin_id = p.id"));

/* The eol_before filter as the join: a pin whose image has no dated part never passes. */
IMX_DB_STMT(q_list_eol, 5,
            LIST_BY_SLUG("coalesce(CASE WHEN " STORED_FRESH " THEN d.body || 'null}' END,"
                         " imx_pin_json(p.id, false)::text)",
                         "LEFT JOIN pin_docs d ON d.pin_id = p.id"
                         " JOIN LATERAL (SELECT imx_image_eol_date(p.image_id) AS eol) x"
                         " ON x.eol < $5::date"));

/* Always one row: the auth epoch, the team's id (NULL: no such team), the user's role in it, and
 * the resolve's document (NULL without a team). */
IMX_DB_STMT(q_resolve_by_slug, 4,
            "SELECT e.n, t.id, m.role, CASE WHEN t.id IS NOT NULL"
            " THEN imx_pin_resolve(t.id, $3::text, $4::text)::text END"
            " FROM auth_epoch e LEFT JOIN teams t ON t.slug = $1::text"
            " LEFT JOIN memberships m ON m.team_id = t.id AND m.user_id = $2::bigint");

/* Always one row: the epoch, then the pin's columns (NULL when there is no such pin) and the
 * user's role in its team. */
#define READ_ONE(doc, join)                                                                        \
    "SELECT (SELECT n FROM auth_epoch), p.team_id, " doc ", p.revision, m.role"                    \
    " FROM (SELECT 1) one LEFT JOIN pins p ON p.id = $1::bigint " join                             \
    " LEFT JOIN memberships m ON m.team_id = p.team_id AND m.user_id = $2::bigint"

IMX_DB_STMT(q_read, 2, READ_ONE("imx_pin_json(p.id, true)::text", ""));

IMX_DB_STMT(q_read_stored, 2,
            READ_ONE("coalesce(CASE WHEN " STORED_FRESH " THEN d.body || d.history || '}' END,"
                     " imx_pin_json(p.id, true)::text)",
                     "LEFT JOIN pin_docs d ON d.pin_id = p.id"));

/* Pin reads, coalesced (db/read_batch.c): for each waiter, in their order, q_read_stored's row.
 * The arrays come through sub-selects, for one generic plan (db/image_index.c stmt_summaries
 * says why). */
IMX_DB_STMT(q_read_batch, 2,
            "SELECT (SELECT n FROM auth_epoch), p.team_id,"
            " coalesce(CASE WHEN " STORED_FRESH " THEN d.body || d.history || '}' END,"
            " imx_pin_json(p.id, true)::text), p.revision, m.role"
            " FROM unnest((SELECT $1::bigint[]), (SELECT $2::bigint[])) WITH ORDINALITY"
            " q(pin_id, user_id, k) LEFT JOIN pins p ON p.id = q.pin_id"
            " LEFT JOIN pin_docs d ON d.pin_id = p.id"
            " LEFT JOIN memberships m ON m.team_id = p.team_id AND m.user_id = q.user_id"
            " ORDER BY q.k");

/* Pin reads one statement answers at most. */
#define READ_BATCH_MAX 16

/* A waiter asks for a pin id and a user id: q_read_batch's columns. */
static void read_pins(struct imx_db_waiter **w, size_t n)
{
    imx_db_batch_answer_columns(w, n, &q_read_batch, 2, (int)n);
}

static struct imx_db_batcher pin_reads = IMX_DB_BATCHER(read_pins, READ_BATCH_MAX);

/* What a read gave the waiter self, as imx_db_pin_read_batched returns it. */
static enum imx_db_status pin_doc_of(struct imx_db_waiter *self, struct imx_db_pin_doc *out,
                                     bool *found)
{
    memset(out, 0, sizeof *out);
    *found = false;
    if (self->rc != IMX_DBS_OK)
        return self->rc;
    PGresult *res = self->batch->res;
    int k = self->row;
    enum imx_db_status rc = IMX_DBS_OK;
    out->epoch = strtoll(PQgetvalue(res, k, 0), NULL, 10);
    if (!PQgetisnull(res, k, 1)) {
        out->team_id = strtoll(PQgetvalue(res, k, 1), NULL, 10);
        out->revision = strtoll(PQgetvalue(res, k, 3), NULL, 10);
        out->json = strdup(PQgetvalue(res, k, 2));
        snprintf(out->role, sizeof out->role, "%s", PQgetvalue(res, k, 4));
        *found = out->json != NULL;
        rc = *found ? IMX_DBS_OK : IMX_DBS_ERROR;
    }
    imx_db_batch_unref(self->batch);
    self->batch = NULL;
    return rc;
}

enum imx_db_status imx_db_pin_read_batched(const char *pin_id, const char *user_id,
                                           struct imx_db_pin_doc *out, bool *found)
{
    const char *ask[] = { pin_id, user_id };
    struct imx_db_waiter self = { .arg = ask };
    imx_db_batch_wait(&pin_reads, &self);
    return pin_doc_of(&self, out, found);
}

struct imx_db_texts_call *imx_db_pin_read_start(const char *pin_id, const char *user_id,
                                                void (*wake)(void *cls), void *cls)
{
    const char *ask[] = { pin_id, user_id };
    return imx_db_texts_start(&pin_reads, ask, 2, wake, cls);
}

enum imx_db_status imx_db_pin_read_result(struct imx_db_texts_call *c, struct imx_db_pin_doc *out,
                                          bool *found)
{
    return pin_doc_of(&c->call.self, out, found);
}

void imx_db_pin_read_stats(unsigned long long *reads, unsigned long long *answered)
{
    imx_db_batch_stats(&pin_reads, reads, answered);
}

enum imx_db_status imx_db_pin_read(struct imx_db_conn *c, const char *pin_id, const char *user_id,
                                   bool stored, struct imx_db_pin_doc *out,
                                   struct imx_db_fault *why)
{
    memset(out, 0, sizeof *out);
    const char *p[] = { pin_id, user_id };
    PGresult *res = imx_db_exec(c, stored ? &q_read_stored : &q_read, p);
    if (!imx_db_ok(res) || PQntuples(res) != 1) {
        /* The statement always answers one row (the epoch): none is a connection gone bad. */
        enum imx_db_status st = imx_db_ok(res) ? IMX_DBS_UNAVAILABLE : imx_db_status_of(res);
        PQclear(res);
        return imx_db_why(c, st, why);
    }
    out->epoch = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    int found = !PQgetisnull(res, 0, 1);
    if (found) {
        out->team_id = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
        out->revision = strtoll(PQgetvalue(res, 0, 3), NULL, 10);
        out->json = strdup(PQgetvalue(res, 0, 2));
        snprintf(out->role, sizeof out->role, "%s", PQgetvalue(res, 0, 4));
    }
    PQclear(res);
    if (found && !out->json)
        return imx_db_why(c, IMX_DBS_ERROR, why);
    return imx_db_why(c, found ? IMX_DBS_OK : IMX_DBS_NOT_FOUND, why);
}

enum imx_db_status imx_db_pin_image(struct imx_db_conn *c, const char *image_id, bool *revoked,
                                    struct imx_db_fault *why)
{
    const char *p[] = { image_id };
    PGresult *res = imx_db_exec(c, &q_image, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) == 0)
        st = IMX_DBS_NOT_FOUND;
    *revoked = st == IMX_DBS_OK && strcmp(PQgetvalue(res, 0, 1), "revoked") == 0;
    PQclear(res);
    return imx_db_why(c, st, why);
}

enum imx_db_status imx_db_pin_create(struct imx_db_conn *c, const char *team_id, const char *name,
                                     const char *image_id, const char *constraints,
                                     const char *user_id, char pin_id[24], struct imx_db_fault *why)
{
    const char *p[] = { team_id, name, image_id, constraints, user_id };
    long long id;
    enum imx_db_status st = imx_db_int_take(imx_db_exec(c, &q_create, p), 0, &id);
    snprintf(pin_id, 24, "%lld", id);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_count, 1,
            "SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtextextended("
            "'pin-quota:' || $1, 0))) l, pins p WHERE p.team_id = $1::bigint");

enum imx_db_status imx_db_pin_count(struct imx_db_conn *c, const char *team_id, long long *count,
                                    struct imx_db_fault *why)
{
    const char *p[] = { team_id };
    return imx_db_why(c, imx_db_int_take(imx_db_exec(c, &q_count, p), 0, count), why);
}

enum imx_db_status imx_db_pin_unmet(struct imx_db_conn *c, const char *pin_id, const char *image_id,
                                    struct imx_db_json *unmet, struct imx_db_fault *why)
{
    const char *p[] = { pin_id, image_id };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_unmet, p), 0, unmet), why);
}

enum imx_db_status imx_db_pin_refresh(struct imx_db_conn *c, const char *pin_id,
                                      struct imx_db_fault *why)
{
    const char *p[] = { pin_id };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_refresh, p)), why);
}

enum imx_db_status imx_db_pin_lock(struct imx_db_conn *c, const char *pin_id, int64_t *team_id,
                                   char image_id[24], struct imx_db_fault *why)
{
    const char *p[] = { pin_id };
    PGresult *res = imx_db_exec(c, &q_lock, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) == 0)
        st = IMX_DBS_NOT_FOUND;
    *team_id = 0;
    image_id[0] = '\0';
    if (st == IMX_DBS_OK) {
        *team_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        snprintf(image_id, 24, "%s", PQgetvalue(res, 0, 1));
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

enum imx_db_status imx_db_pin_move(struct imx_db_conn *c, const char *pin_id, const char *image_id,
                                   const char *user_id, struct imx_db_fault *why)
{
    const char *p[] = { pin_id, image_id, user_id };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_move, p)), why);
}

enum imx_db_status imx_db_pin_delete(struct imx_db_conn *c, const char *pin_id,
                                     struct imx_db_fault *why)
{
    const char *p[] = { pin_id };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_delete, p)), why);
}

enum imx_db_status imx_db_pin_list(struct imx_db_conn *c, const char *slug, const char *user_id,
                                   const char *after_name, const char *limit, bool stored,
                                   struct imx_db_team_read *t, struct imx_db_fault *why)
{
    const char *p[] = { slug, user_id, after_name, limit };
    return imx_db_why(
        c, imx_db_team_read_take(imx_db_exec(c, stored ? &q_list_stored : &q_list, p), t), why);
}

enum imx_db_status imx_db_pin_list_eol(struct imx_db_conn *c, const char *slug, const char *user_id,
                                       const char *after_name, const char *limit,
                                       const char *eol_before, struct imx_db_team_read *t,
                                       struct imx_db_fault *why)
{
    const char *p[] = { slug, user_id, after_name, limit, eol_before };
    return imx_db_why(c, imx_db_team_read_take(imx_db_exec(c, &q_list_eol, p), t), why);
}

/* Pages of pins, coalesced (db/read_batch.c): for each waiter, in their order, q_list_stored's
 * rows after its number in column 0 (IMX_DB_PIN_PAGE_COL is one further along). The arrays come
 * through sub-selects, for one generic plan (db/image_index.c stmt_summaries says why); the epoch
 * through a scalar one: joined, the never-analysed one-row auth_epoch counted as 2,200 rows, and
 * a plan of 150,000 cost units was compiled by JIT each time it was planned (34 ms). */
IMX_DB_STMT(q_list_batch, 4,
            "SELECT q.k, (SELECT n FROM auth_epoch), t.id, m.role, p.name, p.doc"
            " FROM unnest((SELECT $1::text[]), (SELECT $2::bigint[]), (SELECT $3::text[]),"
            " (SELECT $4::int[])) WITH ORDINALITY q(slug, user_id, after, lim, k)"
            " LEFT JOIN teams t ON t.slug = q.slug"
            " LEFT JOIN memberships m ON m.team_id = t.id AND m.user_id = q.user_id"
            " LEFT JOIN LATERAL (SELECT p.name, coalesce(CASE WHEN " STORED_FRESH
            " THEN d.body || 'null}' END, imx_pin_json(p.id, false)::text) AS doc"
            "  FROM pins p LEFT JOIN pin_docs d ON d.pin_id = p.id"
            "  WHERE p.team_id = t.id AND (q.after IS NULL OR p.name > q.after)"
            "  ORDER BY p.name LIMIT q.lim + 1) p ON true"
            " ORDER BY q.k, p.name");

/* Pages one statement reads at most. */
#define LIST_BATCH_MAX 16

/* A waiter asks for a team's slug, a user id, the name after which the page starts (NULL: the
 * first page) and the limit: q_list_batch's columns. */
static void read_pages(struct imx_db_waiter **w, size_t n)
{
    imx_db_batch_answer_columns(w, n, &q_list_batch, 4, -1);
    /* Each waiter's rows start at the first with its number (every waiter has at least one). */
    for (size_t i = 0; i < n; i++)
        w[i]->row = -1;
    const PGresult *res = n && w[0]->rc == IMX_DBS_OK ? w[0]->batch->res : NULL;
    for (int row = 0; res && row < PQntuples(res); row++) {
        long k = strtol(PQgetvalue(res, row, 0), NULL, 10);
        if (k >= 1 && (size_t)k <= n && w[k - 1]->row < 0)
            w[k - 1]->row = row;
    }
}

static struct imx_db_batcher pages = IMX_DB_BATCHER(read_pages, LIST_BATCH_MAX);

/* What a read gave the waiter self, as imx_db_pin_list_batched returns it. */
static enum imx_db_status page_of(struct imx_db_waiter *self, struct imx_db_pin_page *out)
{
    memset(out, 0, sizeof *out);
    if (self->rc != IMX_DBS_OK)
        return self->rc;
    const PGresult *res = self->batch->res;
    int row0 = self->row;
    if (row0 < 0) {
        imx_db_batch_unref(self->batch);
        self->batch = NULL;
        return IMX_DBS_ERROR; /* no row of its own: cannot be */
    }
    const char *k = PQgetvalue(res, row0, 0);
    int rows = 1;
    while (row0 + rows < PQntuples(res) && strcmp(PQgetvalue(res, row0 + rows, 0), k) == 0)
        rows++;
    out->owner = self->batch;
    self->batch = NULL;
    out->rows = (struct imx_db_rows){ .src = imx_db_result_const(res), .row0 = row0, .n = rows };
    out->epoch = strtoll(PQgetvalue(res, row0, 1), NULL, 10);
    out->team_id = strtoll(PQgetvalue(res, row0, 2), NULL, 10);
    out->role = PQgetvalue(res, row0, 3);
    return IMX_DBS_OK;
}

enum imx_db_status imx_db_pin_list_batched(const char *slug, const char *user_id,
                                           const char *after_name, const char *limit,
                                           struct imx_db_pin_page *out)
{
    const char *ask[] = { slug, user_id, after_name, limit };
    struct imx_db_waiter self = { .arg = ask };
    imx_db_batch_wait(&pages, &self);
    return page_of(&self, out);
}

struct imx_db_texts_call *imx_db_pin_list_start(const char *slug, const char *user_id,
                                                const char *after_name, const char *limit,
                                                void (*wake)(void *cls), void *cls)
{
    const char *ask[] = { slug, user_id, after_name, limit };
    return imx_db_texts_start(&pages, ask, 4, wake, cls);
}

enum imx_db_status imx_db_pin_list_result(struct imx_db_texts_call *c, struct imx_db_pin_page *out)
{
    return page_of(&c->call.self, out);
}

void imx_db_pin_page_free(struct imx_db_pin_page *p)
{
    imx_db_batch_unref(p->owner);
    memset(p, 0, sizeof *p);
}

void imx_db_pin_list_stats(unsigned long long *reads, unsigned long long *answered)
{
    imx_db_batch_stats(&pages, reads, answered);
}

enum imx_db_status imx_db_pin_resolve_by_slug(struct imx_db_conn *c, const char *slug,
                                              const char *user_id, const char *name,
                                              const char *region, struct imx_db_team_read *t,
                                              struct imx_db_fault *why)
{
    const char *p[] = { slug, user_id, name, region };
    return imx_db_why(c, imx_db_team_read_take(imx_db_exec(c, &q_resolve_by_slug, p), t), why);
}

const char *imx_db_pin_resolution(const struct imx_db_team_read *t, size_t *len)
{
    const PGresult *res = imx_db_pg(t->res);
    if (!res || PQnfields(res) < 4 || PQgetisnull(res, 0, 3))
        return NULL;
    *len = (size_t)PQgetlength(res, 0, 3);
    return PQgetvalue(res, 0, 3);
}

/* Pin resolves, coalesced (db/read_batch.c): for each waiter, in their order, q_resolve_by_slug's
 * row, the resolve inlined in this plan (migrations/0064_pin_resolve_inlined.sql). The arrays
 * come through sub-selects, for one generic plan (db/image_index.c stmt_summaries says why). */
IMX_DB_STMT(q_resolve_batch, 4,
            "SELECT (SELECT n FROM auth_epoch), t.id, m.role, r.doc::text"
            " FROM unnest((SELECT $1::text[]), (SELECT $2::bigint[]), (SELECT $3::text[]),"
            " (SELECT $4::text[])) WITH ORDINALITY q(slug, user_id, name, region, k)"
            " LEFT JOIN teams t ON t.slug = q.slug"
            " LEFT JOIN memberships m ON m.team_id = t.id AND m.user_id = q.user_id"
            " LEFT JOIN LATERAL imx_pin_resolution(t.id, q.name, q.region) r ON t.id IS NOT NULL"
            " ORDER BY q.k");

/* Pin resolves one statement reads at most. */
#define RESOLVE_BATCH_MAX 16

/* A waiter asks for a team's slug, a user id, a pin name and a region: q_resolve_batch's
 * columns. */
static void read_resolves(struct imx_db_waiter **w, size_t n)
{
    imx_db_batch_answer_columns(w, n, &q_resolve_batch, 4, (int)n);
}

static struct imx_db_batcher resolves = IMX_DB_BATCHER(read_resolves, RESOLVE_BATCH_MAX);

/* What a read gave the waiter self, as imx_db_pin_resolve_batched returns it. */
static enum imx_db_status resolved_of(struct imx_db_waiter *self, struct imx_db_pin_resolved *out)
{
    memset(out, 0, sizeof *out);
    if (self->rc != IMX_DBS_OK)
        return self->rc;
    PGresult *r = self->batch->res;
    int k = self->row;
    out->owner = self->batch;
    self->batch = NULL;
    out->epoch = strtoll(PQgetvalue(r, k, 0), NULL, 10);
    out->team_id = strtoll(PQgetvalue(r, k, 1), NULL, 10);
    out->role = PQgetvalue(r, k, 2);
    if (!PQgetisnull(r, k, 3)) {
        out->doc = PQgetvalue(r, k, 3);
        out->doc_len = (size_t)PQgetlength(r, k, 3);
    }
    return IMX_DBS_OK;
}

enum imx_db_status imx_db_pin_resolve_batched(const char *slug, const char *user_id,
                                              const char *name, const char *region,
                                              struct imx_db_pin_resolved *out)
{
    const char *ask[] = { slug, user_id, name, region };
    struct imx_db_waiter self = { .arg = ask };
    imx_db_batch_wait(&resolves, &self);
    return resolved_of(&self, out);
}

struct imx_db_texts_call *imx_db_pin_resolve_start(const char *slug, const char *user_id,
                                                   const char *name, const char *region,
                                                   void (*wake)(void *cls), void *cls)
{
    const char *ask[] = { slug, user_id, name, region };
    return imx_db_texts_start(&resolves, ask, 4, wake, cls);
}

enum imx_db_status imx_db_pin_resolve_result(struct imx_db_texts_call *c,
                                             struct imx_db_pin_resolved *out)
{
    return resolved_of(&c->call.self, out);
}

void imx_db_pin_call_free(void *call)
{
    imx_db_texts_free(call);
}

void imx_db_pin_resolved_free(struct imx_db_pin_resolved *p)
{
    imx_db_batch_unref(p->owner);
    memset(p, 0, sizeof *p);
}

void imx_db_pin_resolve_stats(unsigned long long *reads, unsigned long long *answered)
{
    imx_db_batch_stats(&resolves, reads, answered);
}
