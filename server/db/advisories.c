/* SQL for advisories and patch status; publishing, revising and withdrawing are the use cases of
 * migrations/procedures/advisory_publish.sql, one wrapper each. */
#include "db/advisories.h"

#include <stdio.h>

/* The advisory use cases (migrations/procedures/advisory_publish.sql). */
IMX_DB_STMT(q_publish, 3, "SELECT imx_advisory_publish($1::jsonb, $2::bigint, $3::int)::text");

IMX_DB_STMT(q_withdraw, 3, "SELECT imx_advisory_withdraw($1::text, $2::text, $3::int)::text");

IMX_DB_STMT(q_get, 1,
            "SELECT imx_advisory_json(a.id)::text, a.revision FROM advisories a"
            " WHERE a.id = $1::text");

IMX_DB_STMT(q_affected, 1, "SELECT imx_advisory_affected_json($1::text)::text");

IMX_DB_STMT(q_list, 8,
            "SELECT a.published::text, a.id, imx_advisory_json(a.id)::text FROM advisories a"
            " WHERE ($1::text IS NULL OR EXISTS (SELECT 1 FROM advisory_ranges r"
            "        WHERE r.advisory_id = a.id AND r.component = $1::text))"
            " AND ($2::text IS NULL OR a.severity = $2::text)"
            " AND ($3::date IS NULL OR a.published >= $3::date)"
            " AND ($4::date IS NULL OR a.published <= $4::date)"
            " AND ($5::text IS NULL OR a.cves @> ARRAY[upper($5::text)])"
            " AND ($6::date IS NULL OR (a.published, a.id) < ($6::date, $7::text))"
            " ORDER BY a.published DESC, a.id DESC LIMIT $8::int + 1");

/* With the auth epoch (migrations/0020_point_reads.sql): always one row. */
IMX_DB_STMT(q_image_patch, 1,
            "SELECT imx_image_patch_json($1::bigint)::text, (SELECT n FROM auth_epoch)");

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

PGresult *imx_db_advisory_publish(struct imx_db_conn *c, const char *doc, const char *user_id,
                                  const char *revision)
{
    const char *p[] = { doc, user_id, revision };
    return exec_long(c, &q_publish, p);
}

PGresult *imx_db_advisory_withdraw(struct imx_db_conn *c, const char *id, const char *reason,
                                   const char *revision)
{
    const char *p[] = { id, reason, revision };
    return exec_long(c, &q_withdraw, p);
}

PGresult *imx_db_advisory_get(struct imx_db_conn *c, const char *id)
{
    const char *p[] = { id };
    return imx_db_exec(c, &q_get, p);
}

PGresult *imx_db_advisory_affected(struct imx_db_conn *c, const char *id)
{
    const char *p[] = { id };
    return imx_db_exec(c, &q_affected, p);
}

PGresult *imx_db_advisory_list(struct imx_db_conn *c, const char *component, const char *severity,
                               const char *from, const char *to, const char *cve,
                               const char *after_published, const char *after_id, const char *limit)
{
    const char *p[] = { component, severity, from, to, cve, after_published, after_id, limit };
    return imx_db_exec(c, &q_list, p);
}

PGresult *imx_db_image_patch(struct imx_db_conn *c, const char *image_id)
{
    const char *p[] = { image_id };
    return imx_db_exec(c, &q_image_patch, p);
}
