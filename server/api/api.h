/* What every handler shares: database access with problem replies, and server facts. */
#ifndef IMX_API_H
#define IMX_API_H

#include <jansson.h>
#include <stddef.h>
#include <stdbool.h>

#include "api/access.h"
#include "db/pool.h"
#include "db/status.h"
#include "http/request.h"
#include "util/config.h"

/* The request's pooled connection, acquired on first use and released after the handler.
 * Returns NULL after replying 503 when the database is unavailable or the pool is exhausted.
 * The request itself holds no database state: api/tx.c keeps the connection (and the state of
 * imx_api_tx) for the one request its thread is answering, and gives it back when the handler is
 * done (imx_api_db_put, the http release hook). */
struct imx_db_conn *imx_api_db(struct imx_req *r);

/* The request's connection (as held, or a primary one acquired), without replying when there is
 * none: NULL then. */
struct imx_db_conn *imx_api_db_quiet(struct imx_req *r);

/* The connection the request holds now (after imx_api_db or imx_api_db_read), acquiring
 * nothing; NULL when it holds none. */
struct imx_db_conn *imx_api_conn(const struct imx_req *r);

/* Gives the request's connection back (rolling back what it left open) before a wait that needs
 * none: a password hash, a coalesced read whose reader takes a connection of its own. */
void imx_api_db_put(struct imx_req *r);

/* The http release hook (http/server.h): called on the thread that ran the handler (or the auth
 * hook) once it is done with r; gives the connection back and forgets r's transaction state. */
void imx_api_db_done(struct imx_req *r);

/* A connection for reads that may lag the primary by replication delay (searches, lists):
 * from the read pool when IMAXE_DATABASE_READ_URL is set, else the primary. When the request
 * already holds a primary connection, that one (so a request reads its own writes). A later
 * imx_api_db() gives the read connection back and takes a primary one, so do not keep using the
 * pointer this returned after calling imx_api_db(). Returns NULL after replying 503. */
struct imx_db_conn *imx_api_db_read(struct imx_req *r);

/* Replies with the problem for a failed statement: 409 for unique/foreign-key violations, 400
 * for a refused value, 503 for an unavailable database or a timed-out query, else 500 (details
 * logged, never sent). NULL is a lost connection. */
void imx_api_db_error(struct imx_req *r, const struct imx_db_fault *f);

/* Replies with the problem for a db/ status other than IMX_DBS_OK: 404 for NOT_FOUND ("No such
 * image": resources with another name say so themselves before calling this), 409 CONFLICT,
 * 400 INVALID, 503 with Retry-After for UNAVAILABLE and RETRY, else 500 (logged, never sent). */
void imx_api_reply_db_status(struct imx_req *r, enum imx_db_status rc);

/* Replies for a failed db/ call's status st and the detail it handed back (why, as db/ functions
 * fill it): with the failed statement's fault when one failed with st (imx_api_db_error's
 * words), else as imx_api_reply_db_status. why may be NULL (a status alone). */
void imx_api_reply_db_fault(struct imx_req *r, enum imx_db_status st,
                            const struct imx_db_fault *why);

/* Replies status with finished JSON text from a db/ call that returned st and why (steals j):
 * 404 with not_found_detail for IMX_DBS_NOT_FOUND, a failure as imx_api_reply_db_fault. */
void imx_api_reply_json_text(struct imx_req *r, unsigned status, enum imx_db_status st,
                             const struct imx_db_fault *why, struct imx_db_json *j,
                             const char *not_found_detail);

/* The same for an epoch_auth route (struct imx_route, epoch_auth): epoch, read with the text,
 * confirms the caller first (imx_auth_confirm). Returns 1 after replying, 0 when the principal
 * was checked again and the caller should read once more (j is freed either way). */
int imx_api_reply_json_confirmed(struct imx_req *r, unsigned status, enum imx_db_status st,
                                 const struct imx_db_fault *why, struct imx_db_json *j,
                                 long long epoch, const char *not_found_detail);

/* Parses j's text into a new JSON value (NULL for SQL NULL or bad text) and frees j. */
json_t *imx_api_json_load(struct imx_db_json *j);

/* Quotas (IMAXE_QUOTA_*), set by main before serving; past one the answer is 429. */
struct imx_api_quotas {
    unsigned open_requests_per_team;   /* image requests open, approved or building */
    unsigned open_requests_per_member; /* the same, filed by one user */
    unsigned comments_per_request;     /* comments on one image request */
    unsigned tokens_per_user;          /* API tokens neither revoked nor expired */
    unsigned tokens_per_team;          /* the same, over all members of a team */
    unsigned measurements_per_day;     /* measurements a team records in 24 hours */
    unsigned pins_per_team;            /* pins a team holds */
    unsigned webhooks_per_team;        /* webhook subscriptions a team holds */
};
extern struct imx_api_quotas imx_api_quotas;

/* Replies 429 quota-exceeded naming the quota, with RateLimit-Policy / RateLimit (IETF draft)
 * listing it first. A count quota frees when something closes, not after a time: no
 * Retry-After. */
void imx_api_reply_quota(struct imx_req *r, const char *name, unsigned limit, const char *what);

/* One member a JSON body may have. type is a jansson type; JSON_TRUE stands for any boolean. */
struct imx_api_field {
    const char *name;
    json_type type;
    bool required;
};

/* Checks body against fields (ended by a {NULL} entry): appends to errors, as JSON pointers,
 * every member that is not listed (unknown, or one the caller may not set such as id or
 * created_at), every required member that is missing and every member of the wrong type.
 * Returns how many errors it appended. */
size_t imx_api_check_fields(const json_t *body, const struct imx_api_field *fields, json_t *errors);

/* The JSON pointer of a top-level member name (RFC 6901 escapes) into buf. Returns buf. */
const char *imx_api_pointer(const char *name, char *buf, size_t len);

/* Facts the health handlers need, set by main. */
struct imx_server_info {
    int migrations_expected;  /* the highest migration this build knows */
    const char *openapi_json; /* the contract as JSON (borrowed for the process lifetime) */
    size_t openapi_len;
};
extern struct imx_server_info imx_server_info;

void imx_api_livez(struct imx_req *r);
void imx_api_readyz(struct imx_req *r);
void imx_api_metrics(struct imx_req *r);
void imx_api_openapi(struct imx_req *r);

void imx_api_login(struct imx_req *r);
void imx_api_me(struct imx_req *r);
void imx_api_user_create(struct imx_req *r);
void imx_api_team_create(struct imx_req *r);
void imx_api_team_list(struct imx_req *r);
void imx_api_team_get(struct imx_req *r);
void imx_api_member_put(struct imx_req *r);
void imx_api_member_delete(struct imx_req *r);
void imx_api_token_create(struct imx_req *r);
void imx_api_token_list(struct imx_req *r);
void imx_api_token_revoke(struct imx_req *r);
void imx_api_audit_list(struct imx_req *r);
/* People and teams for global admins (server/api/admin_users.c). */
void imx_api_user_list(struct imx_req *r);
void imx_api_user_update(struct imx_req *r);
void imx_api_team_update(struct imx_req *r);

/* Advisories, patch status and pins (server/api/advisories.c, server/api/pins.c). */
void imx_api_advisory_create(struct imx_req *r);
void imx_api_advisory_list(struct imx_req *r);
void imx_api_advisory_get(struct imx_req *r);
void imx_api_advisory_revise(struct imx_req *r);
void imx_api_advisory_withdraw(struct imx_req *r);
void imx_api_advisory_affected(struct imx_req *r);
void imx_api_image_patch_status(struct imx_req *r);
/* The exploitation feeds, KEV and EPSS (server/api/risk_feeds.c). */
void imx_api_risk_feeds(struct imx_req *r);
void imx_api_risk_feed_kev(struct imx_req *r);
void imx_api_risk_feed_epss(struct imx_req *r);
/* VEX documents of an image and of a pin's image (server/api/vex.c). */
void imx_api_image_vex(struct imx_req *r);
void imx_api_pin_vex(struct imx_req *r);
/* End of life ahead (server/api/eol.c). */
void imx_api_image_eol(struct imx_req *r);
void imx_api_pin_eol(struct imx_req *r);
/* For those two: the path's pin {id} (into pin, as text) and the image it points at, for a viewer
 * of the pin's team. The request's read connection (borrowed), or NULL once it has replied (404
 * for no such pin, the role check's answer, a database failure). server/api/pin_image.c. */
struct imx_db_conn *imx_api_pin_image(struct imx_req *r, char pin[24], int64_t *image_id);
/* The public key VEX documents are signed with, as a JWK Set (server/api/vex.c). */
void imx_api_vex_keys(struct imx_req *r);
/* Is s a calendar date YYYY-MM-DD (the eol_before filters' argument)? */
bool imx_api_eol_date_ok(const char *s);
/* GET /v1/teams/{slug}/exposure/history (api/exposure.c). */
void imx_api_exposure_history(struct imx_req *r);
enum imx_fast imx_api_image_patch_status_fast(struct imx_req *r);
void imx_api_pin_create(struct imx_req *r);
void imx_api_pin_list(struct imx_req *r);
enum imx_fast imx_api_pin_list_fast(struct imx_req *r);
void imx_api_pin_get(struct imx_req *r);
enum imx_fast imx_api_pin_get_fast(struct imx_req *r);
void imx_api_pin_move(struct imx_req *r);
void imx_api_pin_delete(struct imx_req *r);

/* Parses a version constraint (">=580, <580.95.05") into {"range": its terms as written,
 * "lo", "lo_incl", "hi", "hi_incl"} with the bounds as int[6] literals (unbounded ends as the
 * smallest and largest keys), the form advisory ranges and pin constraints are stored in. Returns
 * a new object, or NULL with a message in err when the constraint is invalid or matches nothing. */
json_t *imx_api_range_bounds(const char *range, char *err, size_t errlen);
/* A CSAF 2.0 bulletin (body) read through the product mapping map (ref_nvidia_product rows, as
 * imx_csaf_to_advisory() reads them) and checked as POST /v1/advisories checks a body: the
 * advisory document with its ranges' bounds, "unmapped", "warnings", "source":"csaf",
 * "source_version" and "cvss_v4". Returns a new object, or NULL with errors appended. */
json_t *imx_api_csaf_advisory(const json_t *body, const json_t *map, json_t *errors);
/* POST /v1/advisories:reapply (server/api/advisory_reapply.c). */
void imx_api_advisory_reapply(struct imx_req *r);
/* Webhook subscriptions and deliveries (server/api/webhooks.c). */
/* Reads the SSRF allow list (IMAXE_WEBHOOK_ALLOW_HOSTS) that subscription URLs are checked
 * with. Call at start-up. Returns 0, or -1 with a message. */
int imx_api_webhooks_init(const struct imx_config *cfg, char *err, size_t errlen);
void imx_api_webhook_create(struct imx_req *r);
void imx_api_webhook_list(struct imx_req *r);
void imx_api_webhook_get(struct imx_req *r);
void imx_api_webhook_update(struct imx_req *r);
void imx_api_webhook_delete(struct imx_req *r);
void imx_api_webhook_rotate_secret(struct imx_req *r);
void imx_api_webhook_test(struct imx_req *r);
void imx_api_webhook_deliveries(struct imx_req *r);
void imx_api_delivery_get(struct imx_req *r);
void imx_api_delivery_redeliver(struct imx_req *r);
/* The catalog (server/api/images.c and image_*.c, reference.c). */
void imx_api_image_search(struct imx_req *r);
void imx_api_image_publish(struct imx_req *r);
void imx_api_image_import(struct imx_req *r);
void imx_api_image_get(struct imx_req *r);
/* Its fast handler (struct imx_route, fast): the stored document, read without blocking. */
enum imx_fast imx_api_image_get_fast(struct imx_req *r);
/* imx_req_wake(r) as a read's wake callback, for the fast handlers. */
void imx_api_wake(void *r);
void imx_api_image_patch(struct imx_req *r);
void imx_api_image_lineage(struct imx_req *r);
enum imx_fast imx_api_image_lineage_fast(struct imx_req *r);
void imx_api_image_resolve(struct imx_req *r);
enum imx_fast imx_api_image_resolve_fast(struct imx_req *r);
void imx_api_compare(struct imx_req *r);
enum imx_fast imx_api_compare_fast(struct imx_req *r);
/* Compare's images taken from memory and built from their rows since start, and the bytes the
 * kept ones hold (/metrics). */
void imx_api_compare_stats(unsigned long long *kept, unsigned long long *built, size_t *bytes);
void imx_api_compat_check(struct imx_req *r);
void imx_api_reference_version(struct imx_req *r);
void imx_api_reference_import(struct imx_req *r);
void imx_api_reference_list(struct imx_req *r);
void imx_api_reference_create(struct imx_req *r);
void imx_api_reference_update(struct imx_req *r);
/* The fleet (server/api/nodes.c): node reports, the node list, one node, counts. */
struct imx_api_nodes_settings {
    unsigned history_days; /* IMAXE_NODE_HISTORY_DAYS */
    unsigned stale_s;      /* IMAXE_NODE_STALE_S */
};
extern struct imx_api_nodes_settings imx_api_nodes;
void imx_api_node_report(struct imx_req *r);
void imx_api_node_list(struct imx_req *r);
void imx_api_node_get(struct imx_req *r);
void imx_api_fleet(struct imx_req *r);
void imx_api_advisory_exposure(struct imx_req *r);
/* The upgrade planner (server/api/plan.c). */
void imx_api_pin_plan(struct imx_req *r);
void imx_api_image_plan(struct imx_req *r);

#endif
