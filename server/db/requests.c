/* SQL for image requests. Matching an image to a request is SQL imx_request_satisfied_by, the
 * same predicate the publish use case uses (migrations/procedures/publish_images.sql), so a
 * request's matches mean one thing. */
#include "db/requests.h"
#include "db/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

IMX_DB_STMT(q_catalog_team, 1,
            "SELECT id, slug FROM teams WHERE ($1::text IS NOT NULL AND slug = $1::text)"
            " OR ($1::text IS NULL AND id = (SELECT min(id) FROM teams))");

enum imx_db_status imx_db_catalog_team(struct imx_db_conn *c, const char *slug, int64_t *id,
                                       struct imx_db_fault *why)
{
    const char *p[] = { slug };
    long long v;
    enum imx_db_status st = imx_db_int_take(imx_db_exec(c, &q_catalog_team, p), 0, &v);
    *id = v;
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(
    q_create, 1,
    "WITH d AS (SELECT $1::jsonb AS j),"
    " r AS (INSERT INTO image_requests (team_id, catalog_team_id, title, family, os_name,"
    "  os_version, architecture, gpus, tags, justification, compatibility, created_by)"
    "  SELECT (j->>'team_id')::bigint, (j->>'catalog_team_id')::bigint, j->>'title',"
    "   j->>'family', j->>'os_name', j->>'os_version', j->>'architecture',"
    "   ARRAY(SELECT jsonb_array_elements_text(j->'gpus')),"
    "   ARRAY(SELECT jsonb_array_elements_text(j->'tags')),"
    "   coalesce(j->>'justification', ''), coalesce(j->'compatibility', '{}'),"
    "   (j->>'created_by')::bigint FROM d RETURNING id),"
    " k AS (INSERT INTO request_constraints (request_id, ord, component, range, lo, lo_incl,"
    "  hi, hi_incl)"
    "  SELECT r.id, x.ord, x.v->>'component', x.v->>'range', (x.v->>'lo')::int[],"
    "   (x.v->>'lo_incl')::bool, (x.v->>'hi')::int[], (x.v->>'hi_incl')::bool"
    "  FROM r, d, jsonb_array_elements(d.j->'constraints') WITH ORDINALITY AS x(v, ord)"
    "  RETURNING 1),"
    " e AS (INSERT INTO request_events (request_id, actor_user_id, from_state, to_state)"
    "  SELECT r.id, (d.j->>'created_by')::bigint, NULL, 'open' FROM r, d RETURNING 1)"
    " SELECT id FROM r");

enum imx_db_status imx_db_request_create(struct imx_db_conn *c, const char *j, int64_t *id,
                                         struct imx_db_fault *why)
{
    const char *p[] = { j };
    long long v;
    enum imx_db_status st = imx_db_int_take(imx_db_exec(c, &q_create, p), 0, &v);
    *id = v;
    return imx_db_why(c, st, why);
}

/* A separate statement: the constraints inserted by q_create are visible only after it. */
IMX_DB_STMT(q_match_existing, 1,
            "INSERT INTO request_matches (request_id, image_id, via)"
            " SELECT $1::bigint, i.id, 'existing' FROM images i"
            " WHERE i.status = 'active' AND imx_request_satisfied_by($1::bigint, i.id)"
            " ON CONFLICT DO NOTHING");

#define STR_(x) #x
#define STR(x)  STR_(x)

IMX_DB_STMT(
    q_get, 2,
    "SELECT r.team_id, r.catalog_team_id, r.state,"
    " imx_request_json_bounded(r.id, " STR(
        IMX_REQUEST_ITEMS_ONE) ")::text, r.revision"
                               " FROM image_requests r WHERE r.id = $1::bigint AND NOT $2::bool"
                               " UNION ALL"
                               " SELECT r.team_id, r.catalog_team_id, r.state,"
                               " imx_request_json_bounded(r.id, " STR(
                                   IMX_REQUEST_ITEMS_ONE) ")::text, r.revision"
                                                          " FROM (SELECT * FROM image_requests "
                                                          "WHERE id = $1::bigint AND $2::bool"
                                                          "  FOR UPDATE) r");

void imx_db_request_free(struct imx_db_request *q)
{
    free(q->json);
    q->json = NULL;
}

enum imx_db_status imx_db_request_get(struct imx_db_conn *c, const char *id, bool for_update,
                                      struct imx_db_request *out, struct imx_db_fault *why)
{
    const char *p[] = { id, for_update ? "true" : "false" };
    *out = (struct imx_db_request){ 0 };
    PGresult *res = imx_db_exec(c, &q_get, p);
    enum imx_db_status st = imx_db_status_of(res);
    if (st == IMX_DBS_OK && PQntuples(res) != 1)
        st = IMX_DBS_NOT_FOUND;
    if (st == IMX_DBS_OK) {
        out->team_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        out->catalog_team_id = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
        snprintf(out->state, sizeof out->state, "%s", PQgetvalue(res, 0, 2));
        snprintf(out->revision, sizeof out->revision, "%s", PQgetvalue(res, 0, 4));
        out->json = strdup(PQgetvalue(res, 0, 3));
        if (!out->json)
            st = IMX_DBS_ERROR;
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_list, 6,
            "SELECT r.id, imx_request_json_bounded(r.id, " STR(
                IMX_REQUEST_ITEMS_LISTED) ")::text"
                                          " FROM image_requests r"
                                          " WHERE (r.team_id IN (SELECT "
                                          "imx_caller_teams($1::bigint, $2::bigint, NULL))"
                                          "  OR r.catalog_team_id IN (SELECT "
                                          "imx_caller_teams($1::bigint, $2::bigint, NULL)))"
                                          " AND ($3::bigint IS NULL OR r.team_id = $3::bigint)"
                                          " AND ($4::text IS NULL OR r.state = $4::text)"
                                          " AND ($5::bigint IS NULL OR r.id < $5::bigint)"
                                          " ORDER BY r.id DESC LIMIT $6::int + 1");

enum imx_db_status imx_db_request_list(struct imx_db_conn *c, const char *user_id,
                                       const char *token_team, const char *team_id,
                                       const char *state, const char *before_id, const char *limit,
                                       struct imx_db_page *out, struct imx_db_fault *why)
{
    const char *p[] = { user_id, token_team, team_id, state, before_id, limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_list, p), out), why);
}

IMX_DB_STMT(q_satisfied, 2, "SELECT imx_request_satisfied_by($1::bigint, $2::bigint)::text");

enum imx_db_status imx_db_request_satisfied_by(struct imx_db_conn *c, const char *request_id,
                                               const char *image_id, bool *satisfied,
                                               struct imx_db_fault *why)
{
    const char *p[] = { request_id, image_id };
    PGresult *res = imx_db_exec(c, &q_satisfied, p);
    enum imx_db_status st = imx_db_status_of(res);
    *satisfied =
        st == IMX_DBS_OK && PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "true") == 0;
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_move, 6,
            "WITH u AS (UPDATE image_requests SET state = $3,"
            "  fulfilled_image_id = CASE WHEN $3 = 'fulfilled' THEN $6::bigint END,"
            "  reason = CASE WHEN $3 = 'rejected' THEN $5 ELSE reason END, updated_at = now()"
            "  WHERE id = $1::bigint AND state = $2 RETURNING id),"
            " e AS (INSERT INTO request_events (request_id, actor_user_id, from_state, to_state,"
            "  comment, image_id) SELECT u.id, $4::bigint, $2, $3, $5, $6::bigint FROM u"
            "  RETURNING 1)"
            " SELECT id FROM u");

enum imx_db_status imx_db_request_move(struct imx_db_conn *c, const char *id, const char *from,
                                       const char *to, const char *user_id, const char *comment,
                                       const char *image_id, struct imx_db_fault *why)
{
    const char *p[] = { id, from, to, user_id, comment, image_id };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_move, p)), why);
}

IMX_DB_STMT(q_comment, 3,
            "INSERT INTO request_comments (request_id, author_user_id, body)"
            " VALUES ($1::bigint, $2::bigint, $3)"
            " RETURNING json_build_object('id', id, 'at', at, 'body', body,"
            " 'by', (SELECT email FROM users WHERE id = author_user_id))::text");

enum imx_db_status imx_db_request_comment(struct imx_db_conn *c, const char *id,
                                          const char *user_id, const char *body,
                                          struct imx_db_json *out, struct imx_db_fault *why)
{
    const char *p[] = { id, user_id, body };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_comment, p), 0, out), why);
}

enum imx_db_status imx_db_request_match_existing(struct imx_db_conn *c, const char *id,
                                                 struct imx_db_fault *why)
{
    const char *p[] = { id };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_match_existing, p)), why);
}

IMX_DB_STMT(q_matches, 5,
            "SELECT (i.patch_status = 'ok')::int, i.published_at::text, i.id,"
            " json_build_object('image', imx_image_summary(m.image_id), 'via', m.via,"
            " 'matched_at', m.matched_at)::text"
            " FROM request_matches m JOIN images i ON i.id = m.image_id"
            " WHERE m.request_id = $1::bigint AND ($2::int IS NULL OR"
            "  ((i.patch_status = 'ok')::int, i.published_at, i.id)"
            "  < ($2::int, $3::timestamptz, $4::bigint))"
            " ORDER BY (i.patch_status = 'ok') DESC, i.published_at DESC, i.id DESC"
            " LIMIT $5::int + 1");

enum imx_db_status imx_db_request_matches(struct imx_db_conn *c, const char *id,
                                          const char *after_ok, const char *after_published,
                                          const char *after_image, const char *limit,
                                          struct imx_db_page *out, struct imx_db_fault *why)
{
    const char *p[] = { id, after_ok, after_published, after_image, limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_matches, p), out), why);
}

/* The team's lock serialises creations in one team, so two at once cannot both take the last
 * place of a quota. */
IMX_DB_STMT(q_open_counts, 2,
            "SELECT (SELECT count(*) FROM image_requests WHERE team_id = $1::bigint"
            "  AND state IN ('open', 'approved', 'building')),"
            " (SELECT count(*) FROM image_requests WHERE created_by = $2::bigint"
            "  AND state IN ('open', 'approved', 'building'))"
            " FROM (SELECT pg_advisory_xact_lock(hashtextextended('request-quota:' || $1, 0))) l");

enum imx_db_status imx_db_request_open_counts(struct imx_db_conn *c, const char *team_id,
                                              const char *user_id, long long *team_open,
                                              long long *own_open, struct imx_db_fault *why)
{
    const char *p[] = { team_id, user_id };
    PGresult *res = imx_db_exec(c, &q_open_counts, p);
    enum imx_db_status st = imx_db_status_of(res);
    *team_open = *own_open = 0;
    if (st == IMX_DBS_OK) {
        *team_open = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        *own_open = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    }
    PQclear(res);
    return imx_db_why(c, st, why);
}

IMX_DB_STMT(q_comment_count, 1,
            "SELECT count(*) FROM request_comments WHERE request_id = $1::bigint");

enum imx_db_status imx_db_request_comment_count(struct imx_db_conn *c, const char *id,
                                                long long *count, struct imx_db_fault *why)
{
    const char *p[] = { id };
    return imx_db_why(c, imx_db_int_take(imx_db_exec(c, &q_comment_count, p), 0, count), why);
}
