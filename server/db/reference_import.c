/* SQL of a reference data import; the procedure itself is imx_ref_import() in
 * migrations/0018_reference_import.sql. */
#include "db/reference_import.h"
#include "db/internal.h"

#include <stdlib.h>
#include <string.h>

#include <stdio.h>

IMX_DB_STMT(
    stmt_import, 4,
    "SELECT imx_ref_import($1::jsonb, $2::text, $3::bigint, coalesce($4::text, 'cli'))::text");

IMX_DB_STMT(stmt_images_after, 2,
            "SELECT coalesce(json_agg(json_build_object('id', i.id,"
            "  'components', (SELECT coalesce(json_agg(json_build_object('name', c.name,"
            "     'version', c.version, 'gpus', c.gpus) ORDER BY c.name, c.entry), '[]')"
            "     FROM image_components c WHERE c.image_id = i.id),"
            "  'gpus', (SELECT coalesce(json_agg(g.gpu ORDER BY g.gpu), '[]')"
            "     FROM image_gpus g WHERE g.image_id = i.id),"
            "  'compatibility', i.compatibility) ORDER BY i.id), '[]')::text"
            " FROM (SELECT id, compatibility FROM images WHERE id > $1::bigint"
            "       AND compatibility <> '{}'::jsonb ORDER BY id LIMIT $2::int) i");

/* Like stmt_images_after, for the images with a stored report and a component inside one of
 * the version prefixes of $3 ([{name, version, parts}]: cudnn 9.8.0 on 3 parts, pytorch 2.5 on
 * 2, nvidia-driver 580 on 1), through image_components_name_key: the rows an import changed
 * reach only the images that name them. */
IMX_DB_STMT(stmt_images_scoped_after, 3,
            "WITH s AS (SELECT x->>'name' AS name,"
            "  (imx_version_key(x->>'version'))[1:(x->>'parts')::int] AS lo"
            "  FROM jsonb_array_elements($3::jsonb) x),"
            " r AS (SELECT name, lo, lo[1:cardinality(lo) - 1] || (lo[cardinality(lo)] + 1) AS hi"
            "  FROM s WHERE cardinality(lo) > 0),"
            " ids AS (SELECT DISTINCT c.image_id AS id FROM r JOIN image_components c"
            "  ON c.name = r.name AND c.version_key >= r.lo AND c.version_key < r.hi"
            "  WHERE c.image_id > $1::bigint)"
            " SELECT coalesce(json_agg(json_build_object('id', i.id,"
            "  'components', (SELECT coalesce(json_agg(json_build_object('name', c.name,"
            "     'version', c.version, 'gpus', c.gpus) ORDER BY c.name, c.entry), '[]')"
            "     FROM image_components c WHERE c.image_id = i.id),"
            "  'gpus', (SELECT coalesce(json_agg(g.gpu ORDER BY g.gpu), '[]')"
            "     FROM image_gpus g WHERE g.image_id = i.id)) ORDER BY i.id), '[]')::text"
            " FROM (SELECT i.id FROM ids JOIN images i ON i.id = ids.id"
            "       WHERE i.compatibility <> '{}'::jsonb ORDER BY i.id LIMIT $2::int) i");

/* A page of reports: image $1[i] gets report $2->$3[i] ($2 a JSON array of the page's distinct
 * reports), stored where the findings differ, each with its image.compatibility_changed event, in
 * id order. Rows: the changed ids, whether the report they had was ok and whether the new one is
 * ("t"/"f"). */
IMX_DB_STMT(stmt_page_reports, 4,
            "WITH n AS (SELECT u.id, $2::jsonb -> u.k AS rep"
            "   FROM unnest($1::bigint[], $3::int[]) u(id, k)),"
            " old AS (SELECT i.id, i.compatibility, n.rep FROM images i JOIN n ON n.id = i.id"
            "   WHERE i.compatibility->'findings' IS DISTINCT FROM n.rep->'findings'"
            "   ORDER BY i.id FOR UPDATE OF i),"
            " up AS (UPDATE images i SET compatibility = old.rep FROM old WHERE i.id = old.id"
            "   RETURNING i.id, old.compatibility AS before, old.rep AS after)"
            " SELECT up.id, coalesce(up.before->>'ok', 'true') <> 'false',"
            "  coalesce(up.after->>'ok', 'true') <> 'false',"
            "  imx_image_compat_event(up.id, up.before, up.after, $4::text)"
            " FROM up ORDER BY up.id");

/* Open requests no longer matched by images whose report now has errors. */
IMX_DB_STMT(stmt_unmatch, 1,
            "WITH d AS (DELETE FROM request_matches m USING image_requests r"
            "  WHERE m.image_id = ANY($1::bigint[]) AND r.id = m.request_id AND r.state = 'open'"
            "  RETURNING 1) SELECT count(*) FROM d");

/* Open requests that images whose report lost its errors now satisfy (the publish use case's
 * matching, with its request.updated events). */
IMX_DB_STMT(stmt_match, 1, "SELECT imx_request_match_images($1::bigint[])");

IMX_DB_STMT(stmt_export, 1, "SELECT imx_ref_export($1::text)::text");

IMX_DB_STMT(stmt_data_version, 0,
            "SELECT json_build_object('data_version', v.data_version, 'loaded_at', v.loaded_at,"
            " 'generation', g.generation, 'changed_at', g.changed_at,"
            " 'tables', imx_ref_tables())::text"
            " FROM (SELECT data_version, loaded_at FROM ref_data_versions ORDER BY id DESC"
            "       LIMIT 1) v, ref_generation g");

/* migrations/procedures/ref_import_check.sql: rows that contradict each other or the
 * architecture table refuse the import (23514) before anything changes. */
IMX_DB_STMT(stmt_check, 1, "SELECT imx_ref_import_check($1::jsonb)");

enum imx_db_status imx_db_ref_import(struct imx_db_conn *c, const char *tables_json,
                                     const char *version, const char *user_id,
                                     const char *request_id, struct imx_db_json *changes,
                                     struct imx_db_fault *why)
{
    const char *check[] = { tables_json };
    PGresult *r = imx_db_exec(c, &stmt_check, check);
    if (!imx_db_ok(r)) {
        *changes = (struct imx_db_json){ 0 };
        enum imx_db_status st = imx_db_status_of(r);
        PQclear(r);
        return imx_db_why(c, st, why);
    }
    PQclear(r);
    const char *params[] = { tables_json, version, user_id, request_id };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &stmt_import, params), 0, changes), why);
}

enum imx_db_status imx_db_ref_images_after(struct imx_db_conn *c, long long after_id, int limit,
                                           struct imx_db_json *out, struct imx_db_fault *why)
{
    char a[24], l[16];
    snprintf(a, sizeof a, "%lld", after_id);
    snprintf(l, sizeof l, "%d", limit);
    const char *params[] = { a, l };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &stmt_images_after, params), 0, out), why);
}

enum imx_db_status imx_db_ref_export(struct imx_db_conn *c, const char *table,
                                     struct imx_db_json *out, struct imx_db_fault *why)
{
    const char *params[] = { table };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &stmt_export, params), 0, out), why);
}

enum imx_db_status imx_db_ref_data_version(struct imx_db_conn *c, struct imx_db_json *out,
                                           struct imx_db_fault *why)
{
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &stmt_data_version, NULL), 0, out), why);
}

enum imx_db_status imx_db_ref_images_scoped_after(struct imx_db_conn *c, long long after_id,
                                                  int limit, const char *prefixes_json,
                                                  struct imx_db_json *out, struct imx_db_fault *why)
{
    char a[24], l[16];
    snprintf(a, sizeof a, "%lld", after_id);
    snprintf(l, sizeof l, "%d", limit);
    const char *params[] = { a, l, prefixes_json };
    return imx_db_why(
        c, imx_db_json_take(imx_db_exec(c, &stmt_images_scoped_after, params), 0, out), why);
}

enum imx_db_status imx_db_ref_page_reports(struct imx_db_conn *c, const char *ids,
                                           const char *reports_json, const char *report_of,
                                           const char *version,
                                           struct imx_db_report_change **changes, size_t *n,
                                           struct imx_db_fault *why)
{
    const char *params[] = { ids, reports_json, report_of, version };
    *changes = NULL;
    *n = 0;
    PGresult *res = imx_db_exec(c, &stmt_page_reports, params);
    enum imx_db_status st = imx_db_status_of(res);
    int rows = st == IMX_DBS_OK ? PQntuples(res) : 0;
    if (rows > 0) {
        *changes = calloc((size_t)rows, sizeof **changes);
        if (!*changes)
            st = IMX_DBS_ERROR;
    }
    for (int i = 0; *changes && i < rows; i++) {
        (*changes)[i].image_id = strtoll(PQgetvalue(res, i, 0), NULL, 10);
        (*changes)[i].was_ok = strcmp(PQgetvalue(res, i, 1), "t") == 0;
        (*changes)[i].now_ok = strcmp(PQgetvalue(res, i, 2), "t") == 0;
        (*n)++;
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

enum imx_db_status imx_db_ref_requests_after_report(struct imx_db_conn *c, const char *ids, bool ok,
                                                    struct imx_db_fault *why)
{
    const char *params[] = { ids };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, ok ? &stmt_match : &stmt_unmatch, params)),
                      why);
}
