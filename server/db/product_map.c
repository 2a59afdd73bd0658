/* SQL of the product mapping a CSAF import reads (ref_nvidia_product, migration 0100). */
#include "db/product_map.h"
#include "db/internal.h"

#include <stdlib.h>
#include <string.h>

/* A few hundred rows: read whole on each import rather than cached, so a reference import is
 * seen by the next bulletin on every replica. A component numbered two ways (ref_version_alias,
 * 0370) carries its pairs [own version, release] on each of its rows, and a component whose fixes
 * are named by commit (ref_commit_release, 0410) its commits [commit, first release or null,
 * as_of, status]; unconfirmed rows of either are not read. */
IMX_DB_STMT(
    q_product_map, 0,
    "SELECT coalesce(json_agg(json_build_object('match', p.match,"
    " 'platform', p.platform, 'component', p.component, 'branched', p.branched,"
    " 'notes', p.notes, 'aliases', (SELECT json_agg(json_build_array(a.version, a.release)"
    " ORDER BY a.release_key) FROM ref_version_alias a WHERE a.component = p.component"
    " AND a.status <> 'UNCONFIRMED'), 'commits', (SELECT json_agg(json_build_array(c.commit,"
    " c.release, c.as_of::text, c.status) ORDER BY c.commit) FROM ref_commit_release c"
    " WHERE c.component = p.component AND c.status <> 'UNCONFIRMED'))"
    " ORDER BY p.match, p.platform), '[]')::text"
    " FROM ref_nvidia_product p");

enum imx_db_status imx_db_product_map(struct imx_db_conn *c, char **json, struct imx_db_fault *why)
{
    PGresult *res = imx_db_exec(c, &q_product_map, NULL);
    enum imx_db_status rc = imx_db_ok(res) ? IMX_DBS_OK : imx_db_status_of(res);
    *json = rc == IMX_DBS_OK && PQntuples(res) == 1 && !PQgetisnull(res, 0, 0)
                ? strdup(PQgetvalue(res, 0, 0))
                : NULL;
    PQclear(res);
    return imx_db_why(c, rc == IMX_DBS_OK && !*json ? IMX_DBS_ERROR : rc, why);
}
