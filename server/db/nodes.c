/* SQL for the fleet: one statement each, over the functions of migrations/procedures/nodes.sql
 * (see db/nodes.h). */
#include "db/nodes.h"
#include "db/internal.h"

#include <stdlib.h>
#include <string.h>

IMX_DB_STMT(q_manifest, 3,
            "SELECT image_id, manifest FROM imx_node_manifest($1::bigint, $2::text, $3::text)");

IMX_DB_STMT(q_report, 11,
            "SELECT imx_node_report($1::bigint, $2::text, $3::bigint, $4::jsonb, $5::text,"
            " ARRAY(SELECT jsonb_array_elements_text($6::jsonb)), $7::int, $8::boolean, $9::jsonb, "
            "$10::jsonb, $11::int)::text");

IMX_DB_STMT(q_page, 13,
            "SELECT doc, next_key FROM imx_nodes_page($1::bigint, $2::bigint, $3::bigint,"
            " $4::bigint, $5::text, $6::bigint, $7::boolean, $8::boolean, $9::text, $10::text,"
            " $11::int, $12::bigint, $13::int)");

IMX_DB_STMT(q_get, 6,
            "SELECT imx_node_get($1::bigint, $2::bigint, $3::bigint, $4::text, $5::int, $6::int)");

IMX_DB_STMT(q_counts, 5,
            "SELECT imx_fleet_counts($1::bigint, $2::bigint, $3::bigint, $4::int, $5::int)");

IMX_DB_STMT(q_exposure, 5,
            "SELECT imx_advisory_exposure($1::text, $2::bigint, $3::bigint, $4::int, $5::int)");

/* A new copy of column col of row 0 (NULL for SQL NULL); *rc = IMX_DBS_ERROR when out of
 * memory. */
static char *copy(const PGresult *res, int col, enum imx_db_status *rc)
{
    if (PQgetisnull(res, 0, col))
        return NULL;
    char *s = strdup(PQgetvalue(res, 0, col));
    if (!s)
        *rc = IMX_DBS_ERROR;
    return s;
}

/* Runs stmt; IMX_DBS_OK with the result in *res when it succeeded with a row, else its status
 * (IMX_DBS_NOT_FOUND: no row) and *res NULL. */
static enum imx_db_status one_row(struct imx_db_conn *c, struct imx_db_stmt *stmt,
                                  const char *const *p, PGresult **res)
{
    PGresult *r = imx_db_exec(c, stmt, p);
    enum imx_db_status rc = imx_db_status_of(r);
    if (rc == IMX_DBS_OK && PQntuples(r) < 1)
        rc = IMX_DBS_NOT_FOUND;
    if (rc != IMX_DBS_OK) {
        PQclear(r);
        r = NULL;
    }
    *res = r;
    return rc;
}

enum imx_db_status imx_db_node_manifest(struct imx_db_conn *c, const char *image_id,
                                        const char *artifact_id, const char *region,
                                        long long *out_id, char **manifest,
                                        struct imx_db_fault *why)
{
    const char *p[] = { image_id, artifact_id, region };
    PGresult *res;
    *manifest = NULL;
    *out_id = 0;
    enum imx_db_status rc = one_row(c, &q_manifest, p, &res);
    if (rc == IMX_DBS_OK) {
        *out_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        *manifest = copy(res, 1, &rc);
    }
    PQclear(res);
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_node_report(struct imx_db_conn *c, const struct imx_db_node_report *in,
                                      char **result, struct imx_db_fault *why)
{
    const char *p[] = { in->team_id,       in->name,   in->image_id,    in->booted,
                        in->instance_type, in->gpus,   in->gpu_count,   in->drift,
                        in->drift_items,   in->report, in->history_days };
    PGresult *res;
    *result = NULL;
    enum imx_db_status rc = one_row(c, &q_report, p, &res);
    if (rc == IMX_DBS_OK)
        *result = copy(res, 0, &rc);
    PQclear(res);
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_nodes_page(struct imx_db_conn *c, const struct imx_db_node_filter *f,
                                     const char *after, const char *limit, char **doc,
                                     char **next_key, struct imx_db_fault *why)
{
    const char *p[] = { f->scope.user_id,
                        f->scope.token_team,
                        f->scope.team,
                        f->image_id,
                        f->family,
                        f->pin_id,
                        f->drift,
                        f->stale,
                        f->gpu,
                        f->patch_status,
                        f->stale_s,
                        after,
                        limit };
    PGresult *res;
    *doc = *next_key = NULL;
    enum imx_db_status rc = one_row(c, &q_page, p, &res);
    if (rc == IMX_DBS_OK) {
        *doc = copy(res, 0, &rc);
        *next_key = copy(res, 1, &rc);
        if (!*doc)
            rc = IMX_DBS_ERROR;
    }
    PQclear(res);
    if (rc != IMX_DBS_OK) {
        free(*doc);
        free(*next_key);
        *doc = *next_key = NULL;
    }
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_node_get(struct imx_db_conn *c, const struct imx_db_node_scope *s,
                                   const char *name, const char *stale_s, const char *history,
                                   char **json, struct imx_db_fault *why)
{
    const char *p[] = { s->user_id, s->token_team, s->team, name, stale_s, history };
    PGresult *res;
    *json = NULL;
    enum imx_db_status rc = one_row(c, &q_get, p, &res);
    if (rc == IMX_DBS_OK && PQntuples(res) > 1)
        rc = IMX_DBS_CONFLICT;
    else if (rc == IMX_DBS_OK)
        *json = copy(res, 0, &rc);
    PQclear(res);
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_fleet_counts(struct imx_db_conn *c, const struct imx_db_node_scope *s,
                                       const char *stale_s, const char *limit, char **json,
                                       struct imx_db_fault *why)
{
    const char *p[] = { s->user_id, s->token_team, s->team, stale_s, limit };
    PGresult *res;
    *json = NULL;
    enum imx_db_status rc = one_row(c, &q_counts, p, &res);
    if (rc == IMX_DBS_OK)
        *json = copy(res, 0, &rc);
    PQclear(res);
    return imx_db_why(c, rc, why);
}

enum imx_db_status imx_db_advisory_exposure(struct imx_db_conn *c, const char *advisory,
                                            const struct imx_db_node_scope *s, const char *stale_s,
                                            const char *limit, char **json,
                                            struct imx_db_fault *why)
{
    const char *p[] = { advisory, s->user_id, s->token_team, stale_s, limit };
    PGresult *res;
    *json = NULL;
    enum imx_db_status rc = one_row(c, &q_exposure, p, &res);
    if (rc == IMX_DBS_OK && PQgetisnull(res, 0, 0))
        rc = IMX_DBS_NOT_FOUND;
    else if (rc == IMX_DBS_OK)
        *json = copy(res, 0, &rc);
    PQclear(res);
    return imx_db_why(c, rc, why);
}
