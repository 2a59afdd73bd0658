/* Webhook events from the catalog, advisories, pins and requests (see db/events.h). */
#include "db/events.h"
#include "db/internal.h"

IMX_DB_STMT(q_pin_moved, 3, "SELECT imx_pin_moved_event($1::bigint, $2::bigint, $3::bigint)");

IMX_DB_STMT(q_request, 3, "SELECT imx_request_event($1::bigint, $2::text, $3::text, NULL::bigint)");

enum imx_db_status imx_db_event_pin_moved(struct imx_db_conn *c, const char *pin_id,
                                          const char *from_image, const char *user_id,
                                          struct imx_db_fault *why)
{
    const char *params[] = { pin_id, from_image, user_id };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_pin_moved, params)), why);
}

enum imx_db_status imx_db_event_request(struct imx_db_conn *c, const char *request_id,
                                        const char *change, const char *from_state,
                                        struct imx_db_fault *why)
{
    const char *params[] = { request_id, change, from_state };
    return imx_db_why(c, imx_db_done(imx_db_exec(c, &q_request, params)), why);
}
