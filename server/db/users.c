/* SQL for the administration of people and teams: the user list, user changes, team changes. */
#include "db/users.h"
#include "db/internal.h"

/* A user as an administrator sees them: the account, whether and since when it is disabled, and
 * its teams (at most 200 of them, in slug order). */
#define ADMIN_USER_JSON                                                                            \
    "json_build_object('id', u.id, 'email', u.email, 'display_name', u.display_name, 'admin', "    \
    "u.is_admin, 'created_at', u.created_at, 'disabled_at', u.disabled_at, 'teams', coalesce(("    \
    "SELECT json_agg(json_build_object('slug', s.slug, 'role', s.role) ORDER BY s.slug) FROM ("    \
    "SELECT t.slug, m.role FROM memberships m JOIN teams t ON t.id = m.team_id "                   \
    "WHERE m.user_id = u.id ORDER BY t.slug LIMIT 200) s), '[]'::json))::text"

IMX_DB_STMT_CUSTOM(q_user_list, 3,
                   "SELECT u.id, " ADMIN_USER_JSON " FROM users u"
                   " WHERE ($1::bigint IS NULL OR u.id < $1::bigint)"
                   " AND ($2::text IS NULL OR strpos(lower(u.email), lower($2)) > 0)"
                   " ORDER BY u.id DESC LIMIT $3::int + 1");

enum imx_db_status imx_db_user_list(struct imx_db_conn *c, const char *before_id, const char *q,
                                    const char *limit, struct imx_db_page *out,
                                    struct imx_db_fault *why)
{
    const char *p[] = { before_id, q, limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &q_user_list, p), out), why);
}

/* disabled_at keeps the first time a user was disabled (a second disable changes nothing). */
IMX_DB_STMT(q_user_change, 4,
            "UPDATE users u SET display_name = coalesce($2, u.display_name),"
            " is_admin = coalesce($3::boolean, u.is_admin),"
            " disabled_at = CASE WHEN $4::boolean IS NULL THEN u.disabled_at"
            " WHEN $4::boolean THEN coalesce(u.disabled_at, now()) END"
            " WHERE u.id = $1::bigint RETURNING " ADMIN_USER_JSON);

enum imx_db_status imx_db_user_change(struct imx_db_conn *c, const char *id,
                                      const struct imx_db_user_change *ch, struct imx_db_json *out,
                                      struct imx_db_fault *why)
{
    const char *p[] = { id, ch->display_name, ch->admin, ch->disabled };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_user_change, p), 0, out), why);
}

/* disabled_at keeps the first time a team was disabled, as a user's does. Enabling wakes the
 * webhook dispatchers (at commit), so that what the team's webhooks held goes out now. */
IMX_DB_STMT(q_team_change, 3,
            "WITH t AS (UPDATE teams t SET name = coalesce($2, t.name),"
            " disabled_at = CASE WHEN $3::boolean IS NULL THEN t.disabled_at"
            " WHEN $3::boolean THEN coalesce(t.disabled_at, now()) END"
            " WHERE t.slug = $1 RETURNING t.*)"
            " SELECT json_build_object('slug', t.slug, 'name', t.name,"
            " 'created_at', t.created_at, 'disabled_at', t.disabled_at)::text,"
            " CASE WHEN NOT $3::boolean THEN pg_notify('imx_webhooks', '') END FROM t");

enum imx_db_status imx_db_team_change(struct imx_db_conn *c, const char *slug, const char *name,
                                      const char *disabled, struct imx_db_json *out,
                                      struct imx_db_fault *why)
{
    const char *p[] = { slug, name, disabled };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &q_team_change, p), 0, out), why);
}
