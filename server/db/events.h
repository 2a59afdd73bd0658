/* Webhook events that handlers add to their own transaction (pin.moved, request.updated of a
 * transition): each function enqueues one kind of event (the SQL functions of
 * migrations/0008_events.sql build its data), so the event exists if and only if the change
 * commits. Each runs one prepared statement and returns a new result (PQclear it); string
 * arguments are borrowed, NULL is SQL NULL, ids are decimal text. The events of the write-path
 * use cases (image.*, advisory.published, patch.available, the request.updated of a
 * publish-time match) are written by those use cases (migrations/procedures/). */
#ifndef IMX_DB_EVENTS_H
#define IMX_DB_EVENTS_H

#include "db/pool.h"

/* pin.moved for pin_id (already moved from from_image by user_id), to the pin's team. */
enum imx_db_status imx_db_event_pin_moved(struct imx_db_conn *c, const char *pin_id,
                                          const char *from_image, const char *user_id,
                                          struct imx_db_fault *why);

/* request.updated for request_id, to the requesting team: change is "created" or "transition",
 * from_state the state before (NULL on creation). */
enum imx_db_status imx_db_event_request(struct imx_db_conn *c, const char *request_id,
                                        const char *change, const char *from_state,
                                        struct imx_db_fault *why);

#endif
