/* The route table: every operation the server answers, who may call it, and its handler.
 * api/openapi.yaml lists the same operations; tests/unit/test_routes_spec.c checks they agree. */
#include "api/api.h"
#include "api/costs_common.h"
#include "api/signin.h"
#include "auth/auth.h"
#include "http/router.h"

#define PUBLIC    IMX_ACCESS_PUBLIC
#define SIGNED_IN IMX_ACCESS_SIGNED_IN
#define ADMIN     IMX_ACCESS_ADMIN
/* A POST that creates something (a resource, a delivery, a secret, a transition): it takes an
 * Idempotency-Key (server/api/idempotency.c). Login and the compatibility check create nothing. */
#define CREATES     true
#define NODE_REPORT IMX_ACCESS_NODE_REPORT
/* The handler confirms a remembered principal itself, with the auth epoch its own statement
 * returns (or through imx_auth_team / imx_auth_team_id): the principal cache may let the caller
 * in without a query (server/api/principal_cache.h). */
#define EPOCH true
/* A list that answers Accept: text/csv or application/x-ndjson with the whole list, streamed
 * (server/api/export.c). */
#define EXPORTS true

/* /livez and /metrics answer from memory: on the event thread, as they are (so that they answer
 * while every worker is busy). */
static enum imx_fast livez_fast(struct imx_req *r)
{
    imx_api_livez(r);
    return IMX_FAST_DONE;
}

static enum imx_fast metrics_fast(struct imx_req *r)
{
    imx_api_metrics(r);
    return IMX_FAST_DONE;
}

/* Each row: method, path, access, handler, least team role, query parameters, and the traits:
 * creates (takes an Idempotency-Key), epoch, exports, and the fast handler that answers on the
 * event thread without blocking (NULL: the handler runs on a worker). A new read is one row. */

const struct imx_route imx_routes[] = {
    { "GET", "/livez", PUBLIC, imx_api_livez, IMX_ROLE_NONE, NULL, false, false, false,
      livez_fast },
    { "GET", "/readyz", PUBLIC, imx_api_readyz, IMX_ROLE_NONE, NULL, false, false, false, NULL },
    { "GET", "/metrics", PUBLIC, imx_api_metrics, IMX_ROLE_NONE, NULL, false, false, false,
      metrics_fast },
    { "GET", "/openapi.json", PUBLIC, imx_api_openapi, IMX_ROLE_NONE, NULL, false, false, false,
      NULL },
    { "POST", "/v1/auth/login", PUBLIC, imx_api_login, IMX_ROLE_NONE, NULL, false, false, false,
      NULL },
    { "GET", "/v1/me", SIGNED_IN, imx_api_me, IMX_ROLE_NONE, NULL, false, false, false, NULL },
    /* Sessions that last (server/api/sessions.c): the web UI's cookie, the CLI's refresh. */
    { "POST", "/v1/auth/session", PUBLIC, imx_api_session_create, IMX_ROLE_NONE, NULL, false, false,
      false, NULL },
    { "DELETE", "/v1/auth/session", SIGNED_IN, imx_api_session_delete, IMX_ROLE_NONE, NULL, false,
      false, false, NULL },
    { "POST", "/v1/auth/refresh", PUBLIC, imx_api_refresh, IMX_ROLE_NONE, NULL, false, false, false,
      NULL },
    /* `imaxe logout` (server/api/sign_out.c): the refresh token is the credential. */
    { "POST", "/v1/auth/revoke", PUBLIC, imx_api_refresh_revoke, IMX_ROLE_NONE, NULL, false, false,
      false, NULL },
    /* Single sign-on with OpenID Connect (server/api/oidc.c). */
    { "GET", "/v1/auth/providers", PUBLIC, imx_api_auth_providers, IMX_ROLE_NONE, NULL, false,
      false, false, NULL },
    { "GET", "/v1/auth/oidc/start", PUBLIC, imx_api_oidc_start, IMX_ROLE_NONE, "next", false, false,
      false, NULL },
    { "GET", "/v1/auth/oidc/callback", PUBLIC, imx_api_oidc_callback, IMX_ROLE_NONE,
      "code state error error_description iss session_state", false, false, false, NULL },
    /* The CLI's device sign-in (server/api/oidc_device.c). */
    { "POST", "/v1/auth/oidc/device", PUBLIC, imx_api_oidc_device_start, IMX_ROLE_NONE, NULL, false,
      false, false, NULL },
    { "POST", "/v1/auth/oidc/device/token", PUBLIC, imx_api_oidc_device_token, IMX_ROLE_NONE, NULL,
      false, false, false, NULL },
    { "GET", "/v1/sessions", SIGNED_IN, imx_api_session_list, IMX_ROLE_NONE, NULL, false, false,
      false, NULL },
    { "DELETE", "/v1/sessions/{id}", SIGNED_IN, imx_api_session_revoke, IMX_ROLE_NONE, NULL, false,
      false, false, NULL },
    { "DELETE", "/v1/users/{id}/sessions", ADMIN, imx_api_user_sessions_revoke, IMX_ROLE_NONE, NULL,
      false, false, false, NULL },
    { "GET", "/v1/users/{id}/sessions", ADMIN, imx_api_user_session_list, IMX_ROLE_NONE, NULL,
      false, false, false, NULL },
    { "POST", "/v1/users", ADMIN, imx_api_user_create, IMX_ROLE_NONE, NULL, CREATES, false, false,
      NULL },
    { "GET", "/v1/users", ADMIN, imx_api_user_list, IMX_ROLE_NONE, "q limit cursor", false, false,
      false, NULL },
    { "PATCH", "/v1/users/{id}", ADMIN, imx_api_user_update, IMX_ROLE_NONE, NULL, false, false,
      false, NULL },
    { "GET", "/v1/teams", SIGNED_IN, imx_api_team_list, IMX_ROLE_NONE, "limit cursor", false, false,
      false, NULL },
    { "POST", "/v1/teams", ADMIN, imx_api_team_create, IMX_ROLE_NONE, NULL, CREATES, false, false,
      NULL },
    { "GET", "/v1/teams/{slug}", SIGNED_IN, imx_api_team_get, IMX_ROLE_VIEWER, NULL, false, false,
      false, NULL },
    { "PATCH", "/v1/teams/{slug}", ADMIN, imx_api_team_update, IMX_ROLE_NONE, NULL, false, false,
      false, NULL },
    { "GET", "/v1/teams/{slug}/exposure/history", SIGNED_IN, imx_api_exposure_history,
      IMX_ROLE_VIEWER, "days", false, false, false, NULL },
    { "PUT", "/v1/teams/{slug}/members/{email}", SIGNED_IN, imx_api_member_put, IMX_ROLE_ADMIN,
      NULL, false, false, false, NULL },
    { "DELETE", "/v1/teams/{slug}/members/{email}", SIGNED_IN, imx_api_member_delete,
      IMX_ROLE_ADMIN, NULL, false, false, false, NULL },
    { "GET", "/v1/tokens", SIGNED_IN, imx_api_token_list, IMX_ROLE_NONE, "limit cursor", false,
      false, false, NULL },
    { "POST", "/v1/tokens", SIGNED_IN, imx_api_token_create, IMX_ROLE_VIEWER, NULL, CREATES, false,
      false, NULL },
    { "DELETE", "/v1/tokens/{id}", SIGNED_IN, imx_api_token_revoke, IMX_ROLE_NONE, NULL, false,
      false, false, NULL },
    { "GET", "/v1/audit", ADMIN, imx_api_audit_list, IMX_ROLE_NONE,
      "actor resource action since limit cursor", false, false, EXPORTS, NULL },

    /* Advisories (global admins publish, everyone signed in reads), patch status, pins. */
    { "POST", "/v1/advisories", ADMIN, imx_api_advisory_create, IMX_ROLE_NONE, NULL, CREATES, false,
      false, NULL },
    { "GET", "/v1/advisories", SIGNED_IN, imx_api_advisory_list, IMX_ROLE_NONE,
      "component severity published_from published_to cve kev min_epss sort limit cursor", false,
      false, false, NULL },
    { "GET", "/v1/advisories/{id}", SIGNED_IN, imx_api_advisory_get, IMX_ROLE_NONE, NULL, false,
      false, false, NULL },
    { "PATCH", "/v1/advisories/{id}", ADMIN, imx_api_advisory_revise, IMX_ROLE_NONE, NULL, false,
      false, false, NULL },
    { "DELETE", "/v1/advisories/{id}", ADMIN, imx_api_advisory_withdraw, IMX_ROLE_NONE, "reason",
      false, false, false, NULL },
    { "GET", "/v1/advisories/{id}/affected", SIGNED_IN, imx_api_advisory_affected, IMX_ROLE_NONE,
      "limit cursor", false, false, EXPORTS, NULL },
    { "POST", "/v1/advisories:reapply", ADMIN, imx_api_advisory_reapply, IMX_ROLE_NONE,
      "after limit", false, false, false, NULL },
    /* The exploitation feeds (server/api/risk_feeds.c). */
    { "GET", "/v1/risk-feeds", SIGNED_IN, imx_api_risk_feeds, IMX_ROLE_NONE, NULL, false, false,
      false, NULL },
    { "POST", "/v1/risk-feeds/kev", ADMIN, imx_api_risk_feed_kev, IMX_ROLE_NONE, NULL, CREATES,
      false, false, NULL },
    { "POST", "/v1/risk-feeds/epss", ADMIN, imx_api_risk_feed_epss, IMX_ROLE_NONE, NULL, CREATES,
      false, false, NULL },
    { "GET", "/v1/images/{id}/patch", SIGNED_IN, imx_api_image_patch_status, IMX_ROLE_NONE, "nodes",
      false, EPOCH, false, imx_api_image_patch_status_fast },
    /* VEX documents (server/api/vex.c) and the end of life ahead (server/api/eol.c). */
    { "GET", "/v1/images/{id}/vex", SIGNED_IN, imx_api_image_vex, IMX_ROLE_VIEWER, "format", false,
      false, false, NULL },
    { "GET", "/v1/images/{id}/eol", SIGNED_IN, imx_api_image_eol, IMX_ROLE_VIEWER, NULL, false,
      false, false, NULL },
    { "GET", "/v1/pins/{id}/vex", SIGNED_IN, imx_api_pin_vex, IMX_ROLE_VIEWER, "format", false,
      false, false, NULL },
    { "GET", "/v1/pins/{id}/eol", SIGNED_IN, imx_api_pin_eol, IMX_ROLE_VIEWER, NULL, false, false,
      false, NULL },
    { "GET", "/v1/vex/keys", PUBLIC, imx_api_vex_keys, IMX_ROLE_NONE, NULL, false, false, false,
      NULL },
    { "POST", "/v1/pins", SIGNED_IN, imx_api_pin_create, IMX_ROLE_VIEWER, NULL, CREATES, false,
      false, NULL },
    { "GET", "/v1/pins", SIGNED_IN, imx_api_pin_list, IMX_ROLE_VIEWER,
      "team limit cursor eol_before", false, EPOCH, false, imx_api_pin_list_fast },
    { "GET", "/v1/pins/{id}", SIGNED_IN, imx_api_pin_get, IMX_ROLE_VIEWER, NULL, false, EPOCH,
      false, imx_api_pin_get_fast },
    { "PUT", "/v1/pins/{id}", SIGNED_IN, imx_api_pin_move, IMX_ROLE_VIEWER, NULL, false, false,
      false, NULL },
    { "DELETE", "/v1/pins/{id}", SIGNED_IN, imx_api_pin_delete, IMX_ROLE_VIEWER, NULL, false, false,
      false, NULL },
    /* Costs: instance types and dated prices (admins write), team-owned measurements, rankings
     * over the caller's teams' measurements; image requests. */
    { "GET", "/v1/instance-types", SIGNED_IN, imx_api_instance_type_list, IMX_ROLE_NONE,
      "limit cursor provider gpu family", false, false, false, NULL },
    { "POST", "/v1/instance-types", ADMIN, imx_api_instance_type_create, IMX_ROLE_NONE, NULL,
      CREATES, false, false, NULL },
    { "GET", "/v1/instance-types/{provider}/{type}", SIGNED_IN, imx_api_instance_type_get,
      IMX_ROLE_NONE, NULL, false, false, false, NULL },
    { "PUT", "/v1/instance-types/{provider}/{type}", ADMIN, imx_api_instance_type_put,
      IMX_ROLE_NONE, NULL, false, false, false, NULL },
    { "POST", "/v1/instance-types/{provider}/{type}/prices", ADMIN, imx_api_instance_price_add,
      IMX_ROLE_NONE, NULL, CREATES, false, false, NULL },
    { "POST", "/v1/measurements", SIGNED_IN, imx_api_measurement_create, IMX_ROLE_MEMBER, NULL,
      CREATES, false, false, NULL },
    { "POST", "/v1/measurements:import", SIGNED_IN, imx_api_measurement_import, IMX_ROLE_MEMBER,
      "team", CREATES, false, false, NULL },
    { "GET", "/v1/measurements", SIGNED_IN, imx_api_measurement_list, IMX_ROLE_NONE,
      "team image model instance_type limit cursor", false, false, EXPORTS, NULL },
    { "GET", "/v1/measurements/{id}", SIGNED_IN, imx_api_measurement_get, IMX_ROLE_NONE, NULL,
      false, false, false, NULL },
    { "GET", "/v1/images/{id}/costs", SIGNED_IN, imx_api_image_costs, IMX_ROLE_NONE,
      "limit cursor team", false, false, EXPORTS, NULL },
    { "GET", "/v1/costs", SIGNED_IN, imx_api_cost_ranking, IMX_ROLE_NONE,
      "cursor model max_p99_ms gpu pricing region family instance_family daily_inferences team "
      "limit",
      false, false, EXPORTS, NULL },
    { "POST", "/v1/requests", SIGNED_IN, imx_api_request_create, IMX_ROLE_MEMBER, NULL, CREATES,
      false, false, NULL },
    { "GET", "/v1/requests", SIGNED_IN, imx_api_request_list, IMX_ROLE_NONE,
      "team state limit cursor", false, false, false, NULL },
    { "GET", "/v1/requests/{id}", SIGNED_IN, imx_api_request_get, IMX_ROLE_NONE, NULL, false, false,
      false, NULL },
    { "GET", "/v1/requests/{id}/matches", SIGNED_IN, imx_api_request_matches, IMX_ROLE_NONE,
      "limit cursor", false, false, false, NULL },
    { "POST", "/v1/requests/{id}/transitions", SIGNED_IN, imx_api_request_transition,
      IMX_ROLE_VIEWER, NULL, CREATES, false, false, NULL },
    { "POST", "/v1/requests/{id}/comments", SIGNED_IN, imx_api_request_comment, IMX_ROLE_VIEWER,
      NULL, CREATES, false, false, NULL },
    /* Webhooks: team admins change subscriptions, members send test pings and redeliver,
     * viewers read (server/api/webhooks.c). */
    { "POST", "/v1/webhooks", SIGNED_IN, imx_api_webhook_create, IMX_ROLE_ADMIN, NULL, CREATES,
      false, false, NULL },
    { "GET", "/v1/webhooks", SIGNED_IN, imx_api_webhook_list, IMX_ROLE_VIEWER, "team limit cursor",
      false, false, false, NULL },
    { "GET", "/v1/webhooks/{id}", SIGNED_IN, imx_api_webhook_get, IMX_ROLE_VIEWER, NULL, false,
      false, false, NULL },
    { "PATCH", "/v1/webhooks/{id}", SIGNED_IN, imx_api_webhook_update, IMX_ROLE_ADMIN, NULL, false,
      false, false, NULL },
    { "DELETE", "/v1/webhooks/{id}", SIGNED_IN, imx_api_webhook_delete, IMX_ROLE_ADMIN, NULL, false,
      false, false, NULL },
    { "POST", "/v1/webhooks/{id}/rotate-secret", SIGNED_IN, imx_api_webhook_rotate_secret,
      IMX_ROLE_ADMIN, NULL, CREATES, false, false, NULL },
    { "POST", "/v1/webhooks/{id}/test", SIGNED_IN, imx_api_webhook_test, IMX_ROLE_MEMBER, NULL,
      CREATES, false, false, NULL },
    { "GET", "/v1/webhooks/{id}/deliveries", SIGNED_IN, imx_api_webhook_deliveries, IMX_ROLE_VIEWER,
      "state limit cursor", false, false, false, NULL },
    { "GET", "/v1/deliveries/{id}", SIGNED_IN, imx_api_delivery_get, IMX_ROLE_VIEWER, NULL, false,
      false, false, NULL },
    { "POST", "/v1/deliveries/{id}/redeliver", SIGNED_IN, imx_api_delivery_redeliver,
      IMX_ROLE_MEMBER, NULL, CREATES, false, false, NULL },
    /* The catalog: readable with any role in any team; writes need publisher of the owning team
     * (checked by the handler), reference data writes a global admin. */
    { "GET", "/v1/images", SIGNED_IN, imx_api_image_search, IMX_ROLE_VIEWER,
      "q family provider region arch os gpu component* tag* status layer patch_status "
      "os_patch_status eol_before package* sort limit facets cursor",
      false, EPOCH, EXPORTS, NULL },
    { "POST", "/v1/images", SIGNED_IN, imx_api_image_publish, IMX_ROLE_PUBLISHER, NULL, CREATES,
      false, false, NULL },
    { "POST", "/v1/images:import", SIGNED_IN, imx_api_image_import, IMX_ROLE_PUBLISHER, NULL,
      CREATES, false, false, NULL },
    { "GET", "/v1/images/resolve", SIGNED_IN, imx_api_image_resolve, IMX_ROLE_VIEWER,
      "family pin region arch component*", false, EPOCH, false, imx_api_image_resolve_fast },
    { "GET", "/v1/images/{id}", SIGNED_IN, imx_api_image_get, IMX_ROLE_VIEWER, NULL, false, EPOCH,
      false, imx_api_image_get_fast },
    { "PATCH", "/v1/images/{id}", SIGNED_IN, imx_api_image_patch, IMX_ROLE_PUBLISHER, NULL, false,
      false, false, NULL },
    { "GET", "/v1/images/{id}/lineage", SIGNED_IN, imx_api_image_lineage, IMX_ROLE_VIEWER,
      "limit cursor", false, EPOCH, false, imx_api_image_lineage_fast },
    { "GET", "/v1/compare", SIGNED_IN, imx_api_compare, IMX_ROLE_VIEWER, "ids", false, EPOCH, false,
      imx_api_compare_fast },
    { "POST", "/v1/compat/check", SIGNED_IN, imx_api_compat_check, IMX_ROLE_NONE, NULL, false,
      false, false, NULL },
    { "GET", "/v1/reference", SIGNED_IN, imx_api_reference_version, IMX_ROLE_NONE, NULL, false,
      false, false, NULL },
    { "POST", "/v1/reference", ADMIN, imx_api_reference_import, IMX_ROLE_NONE, NULL, CREATES, false,
      false, NULL },
    { "GET", "/v1/reference/{table}", SIGNED_IN, imx_api_reference_list, IMX_ROLE_NONE,
      "limit cursor", false, false, false, NULL },
    { "POST", "/v1/reference/{table}", ADMIN, imx_api_reference_create, IMX_ROLE_NONE, NULL,
      CREATES, false, false, NULL },
    { "PUT", "/v1/reference/{table}", ADMIN, imx_api_reference_update, IMX_ROLE_NONE, NULL, false,
      false, false, NULL },
    /* The fleet (server/api/nodes.c): node-report tokens may send reports and nothing else. */
    { "POST", "/v1/nodes/reports", NODE_REPORT, imx_api_node_report, IMX_ROLE_MEMBER, NULL, false,
      false, false, NULL },
    { "GET", "/v1/nodes", SIGNED_IN, imx_api_node_list, IMX_ROLE_VIEWER,
      "team image family pin drift stale gpu patch_status limit cursor", false, false, EXPORTS,
      NULL },
    { "GET", "/v1/nodes/{name}", SIGNED_IN, imx_api_node_get, IMX_ROLE_VIEWER, "team history",
      false, false, false, NULL },
    { "GET", "/v1/fleet", SIGNED_IN, imx_api_fleet, IMX_ROLE_VIEWER, "team limit", false, false,
      false, NULL },
    /* The upgrade planner (server/api/plan.c). */
    { "GET", "/v1/pins/{id}/plan", SIGNED_IN, imx_api_pin_plan, IMX_ROLE_VIEWER, "limit", false,
      false, false, NULL },
    { "GET", "/v1/images/{id}/plan", SIGNED_IN, imx_api_image_plan, IMX_ROLE_VIEWER, "limit", false,
      false, false, NULL },
    { "GET", "/v1/advisories/{id}/exposure", SIGNED_IN, imx_api_advisory_exposure, IMX_ROLE_NONE,
      "limit", false, false, false, NULL },
};

const size_t imx_routes_count = sizeof imx_routes / sizeof imx_routes[0];
