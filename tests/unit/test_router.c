/* Route matching as a table of cases, against a route table of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "http/router.h"

static void h(struct imx_req *r)
{
    (void)r;
}

const struct imx_route imx_routes[] = {
    { "GET", "/livez", IMX_ACCESS_PUBLIC, h, 0, NULL, false, false, false, NULL },
    { "GET", "/v1/images", IMX_ACCESS_SIGNED_IN, h, 0, "q gpu limit tag* component*", false, false,
      false, NULL },
    { "POST", "/v1/images", IMX_ACCESS_SIGNED_IN, h, 0, NULL, false, false, false, NULL },
    { "GET", "/v1/images/{id}", IMX_ACCESS_SIGNED_IN, h, 0, NULL, false, false, false, NULL },
    { "PATCH", "/v1/images/{id}", IMX_ACCESS_SIGNED_IN, h, 0, NULL, false, false, false, NULL },
    { "GET", "/v1/images/resolve", IMX_ACCESS_SIGNED_IN, h, 0, NULL, false, false, false, NULL },
    { "GET", "/v1/images/{id}/lineage", IMX_ACCESS_SIGNED_IN, h, 0, NULL, false, false, false,
      NULL },
    { "PUT", "/v1/teams/{slug}/members/{email}", IMX_ACCESS_ADMIN, h, 0, NULL, false, false, false,
      NULL },
    { "POST", "/v1/measurements:import", IMX_ACCESS_SIGNED_IN, h, 0, NULL, false, false, false,
      NULL },
};
const size_t imx_routes_count = sizeof imx_routes / sizeof imx_routes[0];

static const struct {
    const char *method, *path;
    enum imx_match want;
    int index;          /* expected route when OK */
    const char *param0; /* expected first param, or NULL */
    const char *param1;
    const char *allow; /* expected Allow on 405 */
} cases[] = {
    { "GET", "/livez", IMX_MATCH_OK, 0, NULL, NULL, NULL },
    { "HEAD", "/livez", IMX_MATCH_OK, 0, NULL, NULL, NULL },
    { "POST", "/livez", IMX_MATCH_BAD_METHOD, -1, NULL, NULL, "GET, HEAD" },
    { "GET", "/livez/", IMX_MATCH_NO_PATH, -1, NULL, NULL, NULL },
    { "GET", "/", IMX_MATCH_NO_PATH, -1, NULL, NULL, NULL },
    { "GET", "/v1/images", IMX_MATCH_OK, 1, NULL, NULL, NULL },
    { "POST", "/v1/images", IMX_MATCH_OK, 2, NULL, NULL, NULL },
    { "DELETE", "/v1/images", IMX_MATCH_BAD_METHOD, -1, NULL, NULL, "GET, HEAD, POST" },
    { "GET", "/v1/images/42", IMX_MATCH_OK, 3, "42", NULL, NULL },
    { "PATCH", "/v1/images/42", IMX_MATCH_OK, 4, "42", NULL, NULL },
    { "PUT", "/v1/images/42", IMX_MATCH_BAD_METHOD, -1, NULL, NULL, "GET, HEAD, PATCH" },
    /* A literal segment beats a parameter. */
    { "GET", "/v1/images/resolve", IMX_MATCH_OK, 5, NULL, NULL, NULL },
    { "HEAD", "/v1/images/resolve", IMX_MATCH_OK, 5, NULL, NULL, NULL },
    /* ...but a parameter route with the method still answers. */
    { "PATCH", "/v1/images/resolve", IMX_MATCH_OK, 4, "resolve", NULL, NULL },
    { "GET", "/v1/images/7/lineage", IMX_MATCH_OK, 6, "7", NULL, NULL },
    { "GET", "/v1/images/7/lineage/x", IMX_MATCH_NO_PATH, -1, NULL, NULL, NULL },
    { "GET", "/v1/images//lineage", IMX_MATCH_NO_PATH, -1, NULL, NULL, NULL },
    { "PUT", "/v1/teams/ml/members/a@b.c", IMX_MATCH_OK, 7, "ml", "a@b.c", NULL },
    { "POST", "/v1/measurements:import", IMX_MATCH_OK, 8, NULL, NULL, NULL },
    { "POST", "/v1/measurements", IMX_MATCH_NO_PATH, -1, NULL, NULL, NULL },
    { "GET", "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r", IMX_MATCH_NO_PATH, -1, NULL, NULL, NULL },
};

static void table_of_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256], allow[IMX_ALLOW_MAX];
        const char *params[IMX_MAX_PARAMS] = { 0 };
        size_t np = 0;
        int idx = -1;
        snprintf(path, sizeof path, "%s", cases[i].path);
        enum imx_match m =
            imx_router_match(cases[i].method, path, &idx, params, &np, allow, sizeof allow);
        if (m != cases[i].want)
            fail_msg("case %zu: %s %s: got %d, want %d", i, cases[i].method, cases[i].path, m,
                     cases[i].want);
        if (m == IMX_MATCH_OK) {
            assert_int_equal(idx, cases[i].index);
            if (cases[i].param0)
                assert_string_equal(params[0], cases[i].param0);
            if (cases[i].param1)
                assert_string_equal(params[1], cases[i].param1);
        }
        if (m == IMX_MATCH_BAD_METHOD)
            assert_string_equal(allow, cases[i].allow);
    }
}

static void the_table_is_well_formed(void **state)
{
    char err[128];
    (void)state;
    assert_int_equal(imx_router_check(err, sizeof err), 0);
}

/* A route's query list, as the server checks every request's query against it. */
static void query_parameters_are_looked_up_in_the_route(void **state)
{
    (void)state;
    static const struct {
        int route;
        const char *name;
        int want; /* position, or -1: refused */
        bool repeatable;
    } qcases[] = {
        { 1, "q", 0, false },   { 1, "gpu", 1, false },         { 1, "limit", 2, false },
        { 1, "tag", 3, true },  { 1, "component", 4, true },    { 1, "gpuu", -1, false },
        { 1, "gp", -1, false }, { 1, "tag*", -1, false },       { 1, "", -1, false },
        { 1, "Q", -1, false },  { 1, "component*", -1, false }, { 0, "q", -1, false },
        { 0, "", -1, false },   { 2, "limit", -1, false },
    };
    for (size_t i = 0; i < sizeof qcases / sizeof qcases[0]; i++) {
        bool rep = true;
        int got = imx_route_query_param(&imx_routes[qcases[i].route], qcases[i].name, &rep);
        if (got != qcases[i].want || (got >= 0 && rep != qcases[i].repeatable))
            fail_msg("route %d, '%s': got %d (repeatable %d), want %d", qcases[i].route,
                     qcases[i].name, got, rep, qcases[i].want);
    }
    char err[256];
    assert_int_equal(imx_router_check(err, sizeof err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_of_cases),
        cmocka_unit_test(the_table_is_well_formed),
        cmocka_unit_test(query_parameters_are_looked_up_in_the_route),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
