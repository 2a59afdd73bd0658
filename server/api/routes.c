/* The route table: every operation the server answers, who may call it, and its handler.
 * api/openapi.yaml lists the same operations; tests/unit/test_routes_spec.c checks they agree. */
#include "api/api.h"
#include "auth/auth.h"
#include "http/router.h"

#define PUBLIC    IMX_ACCESS_PUBLIC
#define SIGNED_IN IMX_ACCESS_SIGNED_IN
#define ADMIN     IMX_ACCESS_ADMIN

const struct imx_route imx_routes[] = {
    { "GET", "/livez", PUBLIC, imx_api_livez, IMX_ROLE_NONE },
    { "GET", "/readyz", PUBLIC, imx_api_readyz, IMX_ROLE_NONE },
    { "GET", "/metrics", PUBLIC, imx_api_metrics, IMX_ROLE_NONE },
    { "GET", "/openapi.json", PUBLIC, imx_api_openapi, IMX_ROLE_NONE },
    { "POST", "/v1/auth/login", PUBLIC, imx_api_login, IMX_ROLE_NONE },
    { "GET", "/v1/me", SIGNED_IN, imx_api_me, IMX_ROLE_NONE },
    { "POST", "/v1/users", ADMIN, imx_api_user_create, IMX_ROLE_NONE },
    { "GET", "/v1/teams", SIGNED_IN, imx_api_team_list, IMX_ROLE_NONE },
    { "POST", "/v1/teams", ADMIN, imx_api_team_create, IMX_ROLE_NONE },
    { "GET", "/v1/teams/{slug}", SIGNED_IN, imx_api_team_get, IMX_ROLE_VIEWER },
    { "PUT", "/v1/teams/{slug}/members/{email}", SIGNED_IN, imx_api_member_put, IMX_ROLE_ADMIN },
    { "DELETE", "/v1/teams/{slug}/members/{email}", SIGNED_IN, imx_api_member_delete,
      IMX_ROLE_ADMIN },
    { "GET", "/v1/tokens", SIGNED_IN, imx_api_token_list, IMX_ROLE_NONE },
    { "POST", "/v1/tokens", SIGNED_IN, imx_api_token_create, IMX_ROLE_VIEWER },
    { "DELETE", "/v1/tokens/{id}", SIGNED_IN, imx_api_token_revoke, IMX_ROLE_NONE },
    { "GET", "/v1/audit", ADMIN, imx_api_audit_list, IMX_ROLE_NONE },

    /* The catalog: readable with any role in any team; writes need publisher of the owning team
     * (checked by the handler), reference data writes a global admin. */
    { "GET", "/v1/images", SIGNED_IN, imx_api_image_search, IMX_ROLE_VIEWER },
    { "POST", "/v1/images", SIGNED_IN, imx_api_image_publish, IMX_ROLE_PUBLISHER },
    { "GET", "/v1/images/resolve", SIGNED_IN, imx_api_image_resolve, IMX_ROLE_VIEWER },
    { "GET", "/v1/images/{id}", SIGNED_IN, imx_api_image_get, IMX_ROLE_VIEWER },
    { "PATCH", "/v1/images/{id}", SIGNED_IN, imx_api_image_patch, IMX_ROLE_PUBLISHER },
    { "GET", "/v1/images/{id}/lineage", SIGNED_IN, imx_api_image_lineage, IMX_ROLE_VIEWER },
    { "GET", "/v1/compare", SIGNED_IN, imx_api_compare, IMX_ROLE_VIEWER },
    { "POST", "/v1/compat/check", SIGNED_IN, imx_api_compat_check, IMX_ROLE_NONE },
    { "GET", "/v1/reference/{table}", SIGNED_IN, imx_api_reference_list, IMX_ROLE_NONE },
    { "POST", "/v1/reference/{table}", ADMIN, imx_api_reference_create, IMX_ROLE_NONE },
    { "PUT", "/v1/reference/{table}", ADMIN, imx_api_reference_update, IMX_ROLE_NONE },
};

const size_t imx_routes_count = sizeof imx_routes / sizeof imx_routes[0];
