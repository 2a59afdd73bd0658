/* SQL of a reference data import; the procedure itself is imx_ref_import() in
 * migrations/0018_reference_import.sql. */
#include "db/reference_import.h"

#include <stdio.h>

IMX_DB_STMT(
    stmt_import, 4,
    "SELECT imx_ref_import($1::jsonb, $2::text, $3::bigint, coalesce($4::text, 'cli'))::text");

IMX_DB_STMT(stmt_images_after, 2,
            "SELECT coalesce(json_agg(json_build_object('id', i.id,"
            "  'components', (SELECT coalesce(json_agg(json_build_object('name', c.name,"
            "     'version', c.version) ORDER BY c.name), '[]')"
            "     FROM image_components c WHERE c.image_id = i.id),"
            "  'gpus', (SELECT coalesce(json_agg(g.gpu ORDER BY g.gpu), '[]')"
            "     FROM image_gpus g WHERE g.image_id = i.id),"
            "  'compatibility', i.compatibility) ORDER BY i.id), '[]')::text"
            " FROM (SELECT id, compatibility FROM images WHERE id > $1::bigint"
            "       AND compatibility <> '{}'::jsonb ORDER BY id LIMIT $2::int) i");

/* The old report is read and the new one written in one statement; the event gets both. */
IMX_DB_STMT(stmt_image_report, 3,
            "WITH old AS (SELECT id, compatibility FROM images WHERE id = $1::bigint FOR UPDATE),"
            " up AS (UPDATE images i SET compatibility = $2::jsonb FROM old WHERE i.id = old.id"
            "   AND old.compatibility->'findings' IS DISTINCT FROM $2::jsonb->'findings'"
            "   RETURNING i.id, old.compatibility AS before)"
            " SELECT imx_image_compat_event(up.id, up.before, $2::jsonb, $3::text) FROM up");

IMX_DB_STMT(stmt_export, 1, "SELECT imx_ref_export($1::text)::text");

IMX_DB_STMT(stmt_data_version, 0,
            "SELECT json_build_object('data_version', v.data_version, 'loaded_at', v.loaded_at,"
            " 'generation', g.generation, 'changed_at', g.changed_at)::text"
            " FROM (SELECT data_version, loaded_at FROM ref_data_versions ORDER BY id DESC"
            "       LIMIT 1) v, ref_generation g");

PGresult *imx_db_ref_import(struct imx_db_conn *c, const char *tables_json, const char *version,
                            const char *user_id, const char *request_id)
{
    const char *params[] = { tables_json, version, user_id, request_id };
    return imx_db_exec(c, &stmt_import, params);
}

PGresult *imx_db_ref_images_after(struct imx_db_conn *c, long long after_id, int limit)
{
    char a[24], l[16];
    snprintf(a, sizeof a, "%lld", after_id);
    snprintf(l, sizeof l, "%d", limit);
    const char *params[] = { a, l };
    return imx_db_exec(c, &stmt_images_after, params);
}

PGresult *imx_db_ref_image_report(struct imx_db_conn *c, long long id, const char *report_json,
                                  const char *version)
{
    char i[24];
    snprintf(i, sizeof i, "%lld", id);
    const char *params[] = { i, report_json, version };
    return imx_db_exec(c, &stmt_image_report, params);
}

PGresult *imx_db_ref_export(struct imx_db_conn *c, const char *table)
{
    const char *params[] = { table };
    return imx_db_exec(c, &stmt_export, params);
}

PGresult *imx_db_ref_data_version(struct imx_db_conn *c)
{
    return imx_db_exec(c, &stmt_data_version, NULL);
}
