/* Revisions of the mutable resources (see db/revisions.h): one read and one lock-and-move
 * statement a kind, each by primary (or unique) key. */
#include "db/revisions.h"
#include "db/internal.h"

#include <stdlib.h>

IMX_DB_STMT(q_read_webhook, 1, "SELECT revision FROM webhooks WHERE id = $1::bigint");
IMX_DB_STMT(q_read_request, 1, "SELECT revision FROM image_requests WHERE id = $1::bigint");
IMX_DB_STMT(q_read_team, 1, "SELECT revision FROM teams WHERE slug = $1::text");
IMX_DB_STMT(q_read_type, 2,
            "SELECT revision FROM ref_instance_type WHERE provider = $1::text"
            " AND instance_type = $2::text");
IMX_DB_STMT(q_read_reference, 0, "SELECT generation FROM ref_generation");
IMX_DB_STMT(q_read_pin, 1, "SELECT revision FROM pins WHERE id = $1::bigint");

IMX_DB_STMT(q_bump_webhook, 1,
            "UPDATE webhooks SET revision = revision + 1 WHERE id = $1::bigint"
            " RETURNING revision - 1");
IMX_DB_STMT(q_bump_request, 1,
            "UPDATE image_requests SET revision = revision + 1 WHERE id = $1::bigint"
            " RETURNING revision - 1");
IMX_DB_STMT(
    q_bump_team, 1,
    "UPDATE teams SET revision = revision + 1 WHERE slug = $1::text RETURNING revision - 1");
IMX_DB_STMT(q_bump_type, 2,
            "UPDATE ref_instance_type SET revision = revision + 1 WHERE provider = $1::text"
            " AND instance_type = $2::text RETURNING revision - 1");
IMX_DB_STMT(q_bump_reference, 0, "SELECT generation FROM ref_generation FOR UPDATE");
IMX_DB_STMT(q_bump_pin, 1,
            "UPDATE pins SET revision = revision + 1 WHERE id = $1::bigint RETURNING revision - 1");

static struct imx_db_stmt *const reads[IMX_REV__COUNT] = {
    [IMX_REV_WEBHOOK] = &q_read_webhook,     [IMX_REV_REQUEST] = &q_read_request,
    [IMX_REV_TEAM] = &q_read_team,           [IMX_REV_INSTANCE_TYPE] = &q_read_type,
    [IMX_REV_REFERENCE] = &q_read_reference, [IMX_REV_PIN] = &q_read_pin,
};
static struct imx_db_stmt *const bumps[IMX_REV__COUNT] = {
    [IMX_REV_WEBHOOK] = &q_bump_webhook,     [IMX_REV_REQUEST] = &q_bump_request,
    [IMX_REV_TEAM] = &q_bump_team,           [IMX_REV_INSTANCE_TYPE] = &q_bump_type,
    [IMX_REV_REFERENCE] = &q_bump_reference, [IMX_REV_PIN] = &q_bump_pin,
};

static enum imx_db_status one(struct imx_db_conn *c, struct imx_db_stmt *stmt, const char *k1,
                              const char *k2, long long *out)
{
    const char *p[] = { k1, k2 };
    return imx_db_int_take(imx_db_exec(c, stmt, p), 0, out);
}

enum imx_db_status imx_db_rev_read(struct imx_db_conn *c, enum imx_db_rev kind, const char *k1,
                                   const char *k2, long long *rev, struct imx_db_fault *why)
{
    return imx_db_why(c, one(c, reads[kind], k1, k2, rev), why);
}

enum imx_db_status imx_db_rev_bump(struct imx_db_conn *c, enum imx_db_rev kind, const char *k1,
                                   const char *k2, long long *was, struct imx_db_fault *why)
{
    return imx_db_why(c, one(c, bumps[kind], k1, k2, was), why);
}
