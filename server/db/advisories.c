/* SQL for advisories and patch status; the patch bookkeeping itself lives in PostgreSQL
 * (migrations/0006_advisories.sql: imx_patch_refresh_family and its triggers). */
#include "db/advisories.h"

IMX_DB_STMT(q_create, 2,
            "WITH d AS (SELECT $1::jsonb AS j),"
            " ins AS (INSERT INTO advisories (id, title, published, severity, cvss, cves, url,"
            "   source, created_by)"
            "  SELECT j->>'id', j->>'title', (j->>'published')::date, j->>'severity',"
            "   (j->>'cvss')::numeric, ARRAY(SELECT jsonb_array_elements_text(j->'cves')),"
            "   j->>'url', coalesce(j->>'source', 'imaxe'), $2::bigint FROM d RETURNING id),"
            " r AS (INSERT INTO advisory_ranges (advisory_id, ord, component, range, lo, lo_incl,"
            "   hi, hi_incl, fixed)"
            "  SELECT ins.id, (x.o - 1)::int, x.e->>'component', x.e->>'range',"
            "   (x.e->>'lo')::int[], (x.e->>'lo_incl')::boolean, (x.e->>'hi')::int[],"
            "   (x.e->>'hi_incl')::boolean, x.e->>'fixed'"
            "  FROM ins, d, jsonb_array_elements(d.j->'affected') WITH ORDINALITY AS x(e, o)"
            "  RETURNING 1)"
            " SELECT id FROM ins");

IMX_DB_STMT(q_get, 1, "SELECT imx_advisory_json($1::text)::text");

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

IMX_DB_STMT(q_image_patch, 1, "SELECT imx_image_patch_json($1::bigint)::text");

PGresult *imx_db_advisory_create(struct imx_db_conn *c, const char *doc, const char *user_id)
{
    const char *p[] = { doc, user_id };
    return imx_db_exec(c, &q_create, p);
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
