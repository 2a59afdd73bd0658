/* The route table: every operation the server answers, who may call it, and its handler.
 * api/openapi.yaml lists the same operations; tests/unit/test_routes.c checks they agree. */
#include "api/api.h"
#include "http/router.h"

const struct imx_route imx_routes[] = {
    { "GET", "/livez", IMX_ACCESS_PUBLIC, imx_api_livez },
    { "GET", "/readyz", IMX_ACCESS_PUBLIC, imx_api_readyz },
    { "GET", "/metrics", IMX_ACCESS_PUBLIC, imx_api_metrics },
    { "GET", "/openapi.json", IMX_ACCESS_PUBLIC, imx_api_openapi },
};

const size_t imx_routes_count = sizeof imx_routes / sizeof imx_routes[0];
