/* Webhook events from the catalog, advisories, pins and requests: each function enqueues one
 * kind of event (the SQL functions of migrations/0008_events.sql build its data) inside the
 * caller's transaction, so the event exists if and only if the change commits. Each runs one
 * prepared statement and returns a new result (PQclear it); string arguments are borrowed,
 * NULL is SQL NULL, ids are decimal text. patch.available and the request.updated of a
 * publish-time match are produced by SQL triggers, not here. */
#ifndef IMX_DB_EVENTS_H
#define IMX_DB_EVENTS_H

#include <libpq-fe.h>

#include "db/pool.h"

/* image.published, image.deprecated or image.revoked (type), one event per image of ids_json (a
 * JSON array of ids, as imx_db_image_set_status gives), to every team; cause_id is the image the
 * request named (a cascade's descendants name their ancestor) -> one row per event. */
PGresult *imx_db_event_images(struct imx_db_conn *c, const char *type, const char *ids_json,
                              const char *cause_id);

/* advisory.published for advisory id, to every team, with its severity and the families it
 * affects -> one row. */
PGresult *imx_db_event_advisory(struct imx_db_conn *c, const char *id);

/* pin.moved for pin_id (already moved from from_image by user_id), to the pin's team. */
PGresult *imx_db_event_pin_moved(struct imx_db_conn *c, const char *pin_id, const char *from_image,
                                 const char *user_id);

/* request.updated for request_id, to the requesting team: change is "created" or "transition",
 * from_state the state before (NULL on creation). */
PGresult *imx_db_event_request(struct imx_db_conn *c, const char *request_id, const char *change,
                               const char *from_state);

#endif
