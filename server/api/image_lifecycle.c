/* PATCH /v1/images/{id}: an image's lifecycle status (active, deprecated, revoked), If-Match. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "api/api.h"
#include "http/conditional.h"
#include "util/rfc3339.h"
#include "api/export.h"
#include "api/costs_common.h"
#include "api/cursor.h"
#include "auth/auth.h"
#include "db/image_index.h"
#include "db/image_docs.h"
#include "db/images.h"
#include "db/pins.h"
#include "db/reference.h"
#include "api/tx.h"
#include "domain/compat.h"
#include "domain/pkgver.h"
#include "domain/sbom.h"
#include "domain/version.h"
#include "util/config.h"
#include "util/json_text.h"
#include "util/log.h"
#include "util/urlcode.h"
#include "api/images_internal.h"

/* ---- PATCH /v1/images/{id} ---- */

static const struct imx_api_field patch_fields[] = {
    { "status", JSON_STRING, true },     { "reason", JSON_STRING, false },
    { "revoke_at", JSON_STRING, false }, { "cascade", JSON_TRUE, false },
    { NULL, JSON_NULL, false },
};

struct status_patch {
    struct imx_image_status_change change;
    const char *status; /* as asked */
    const char *if_match;
};

/* The one place an image's lifecycle changes: lock, check owner and If-Match, the lifecycle use
 * case (imx_db_image_set_status: rows, with descendants for cascade, one event per image changed,
 * patch state), audit, all in this transaction. */
static int status_tx(struct imx_req *r, void *cls)
{
    struct status_patch *sp = cls;
    long long team_id;
    char etag[IMX_DBI_ETAG_SIZE], now_status[16];
    enum imx_db_status rc =
        imx_db_image_lock(imx_api_conn(r), sp->change.id, &team_id, etag, now_status, NULL);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return -1;
    }
    /* The catalog is readable by all, so another team's image is not hidden: 403, not 404. */
    if (!r->principal.admin && imx_auth_role(r, team_id) < IMX_ROLE_PUBLISHER) {
        imx_reply_problem(r, IMX_E_FORBIDDEN,
                          "Only publishers of the team that owns this image may change it");
        return -1;
    }
    if (!imx_auth_team_enabled(r, team_id, NULL))
        return -1;
    if (imx_if_match(sp->if_match, etag) != IMX_IF_MATCH_YES) {
        imx_reply_header(r, "ETag", etag);
        imx_reply_problem(r, IMX_E_PRECONDITION_FAILED,
                          "The image changed since you read it (ETag %s); read it again", etag);
        return -1;
    }
    char *result = NULL;
    rc = imx_db_image_set_status(imx_api_conn(r), &sp->change, &result, NULL);
    if (rc == IMX_DBS_INVALID) {
        json_t *errors = json_array();
        imx_verr(errors, "/revoke_at", "must be an RFC 3339 time");
        imx_reply_invalid_steal(r, errors, "The change has invalid fields");
        return -1;
    }
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return -1;
    }
    char rid[24];
    snprintf(rid, sizeof rid, "%lld", sp->change.id);
    const char *action = strcmp(sp->status, "active") == 0       ? "restore"
                         : strcmp(sp->status, "deprecated") == 0 ? "deprecate"
                         : sp->change.revoke_at                  ? "schedule_revoke"
                                                                 : "revoke";
    json_t *done = json_loads(result, 0, NULL);
    free(result);
    json_t *detail =
        json_pack("{s:s, s:s, s:s?, s:s?, s:b, s:O*}", "from", now_status, "to", sp->status,
                  "reason", sp->change.reason, "revoke_at", sp->change.revoke_at, "cascade",
                  sp->change.cascade, "images", json_object_get(done, "changed"));
    json_decref(done);
    int arc = imx_audit(r, action, "image", rid, detail);
    json_decref(detail);
    if (arc != 0)
        return -1;
    return imx_img_reply_image(r, 200, sp->change.id);
}

void imx_api_image_patch(struct imx_req *r)
{
    long long id = imx_img_path_id(r);
    if (!id)
        return;
    struct status_patch sp = { .change = { .id = id } };
    sp.if_match = imx_req_header(r, "If-Match");
    if (!sp.if_match) {
        imx_reply_problem(r, IMX_E_PRECONDITION_REQUIRED,
                          "Send If-Match with the ETag of the image you read");
        return;
    }
    if (imx_if_match(sp.if_match, "\"\"") == IMX_IF_MATCH_MALFORMED) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, IMX_IF_MATCH_MALFORMED_TEXT);
        return;
    }
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, patch_fields, errors);
    sp.status = json_string_value(json_object_get(body, "status"));
    const char *reason = json_string_value(json_object_get(body, "reason"));
    const char *revoke_at = json_string_value(json_object_get(body, "revoke_at"));
    bool cascade = json_is_true(json_object_get(body, "cascade"));
    bool revoking = sp.status && strcmp(sp.status, "revoked") == 0;
    if (sp.status && !imx_img_one_of(sp.status, imx_img_statuses))
        imx_verr(errors, "/status", "must be active, deprecated or revoked");
    if (revoking && (!reason || !*reason))
        imx_verr(errors, "/reason", "is required to revoke");
    if (reason && strlen(reason) > 1000)
        imx_verr(errors, "/reason", "must be at most 1000 characters");
    if (revoke_at && !revoking)
        imx_verr(errors, "/revoke_at", "only schedules a revocation (status revoked)");
    if (revoke_at && !imx_rfc3339_ok(revoke_at))
        imx_verr(errors, "/revoke_at", "must be an RFC 3339 time");
    if (cascade && !revoking)
        imx_verr(errors, "/cascade", "only applies to a revocation");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The change has invalid fields");
        return;
    }
    json_decref(errors);
    /* A scheduled revocation keeps the current status until revoke_at. */
    sp.change.status = revoking && revoke_at ? NULL : sp.status;
    sp.change.reason = reason && *reason ? reason : NULL;
    sp.change.revoke_at = revoke_at;
    sp.change.cascade = cascade;
    /* A revocation (scheduled or not, with each image a cascade reached) and a deprecation are
     * announced per image; a restore is not an event type. */
    sp.change.event = revoking                               ? "image.revoked"
                      : strcmp(sp.status, "deprecated") == 0 ? "image.deprecated"
                                                             : NULL;
    if (revoke_at) {
        struct imx_db_conn *c = imx_api_db(r);
        if (!c)
            return;
        bool future = false;
        enum imx_db_status st = imx_db_time_is_future(c, revoke_at, &future);
        if (st != IMX_DBS_OK && st != IMX_DBS_INVALID) {
            imx_reply_problem(r, IMX_E_DB_UNAVAILABLE, "The database is unavailable");
            return;
        }
        if (!future) {
            errors = json_array();
            imx_verr(errors, "/revoke_at",
                     st == IMX_DBS_OK ? "must be in the future" : "must be an RFC 3339 time");
            imx_reply_invalid_steal(r, errors, "The change has invalid fields");
            return;
        }
    }
    imx_api_tx(r, status_tx, &sp);
}
