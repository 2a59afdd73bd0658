/* The route table and api/openapi.yaml list the same operations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/router.h"

static void lower(char *dst, const char *src, size_t len)
{
    size_t i = 0;
    for (; src[i] && i + 1 < len; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

static void every_route_is_in_the_spec_and_back(void **state)
{
    (void)state;
    const char *path = getenv("IMX_OPENAPI_JSON");
    assert_non_null(path);
    json_error_t err;
    json_t *spec = json_load_file(path, 0, &err);
    if (!spec)
        fail_msg("%s: %s", path, err.text);
    json_t *paths = json_object_get(spec, "paths");
    assert_non_null(paths);

    int missing = 0;
    for (size_t i = 0; i < imx_routes_count; i++) {
        char m[16];
        lower(m, imx_routes[i].method, sizeof m);
        json_t *op = json_object_get(json_object_get(paths, imx_routes[i].path), m);
        if (!op) {
            fprintf(stderr, "in the route table, not in openapi.yaml: %s %s\n",
                    imx_routes[i].method, imx_routes[i].path);
            missing++;
        } else if (!json_is_string(json_object_get(op, "operationId"))) {
            fprintf(stderr, "no operationId: %s %s\n", imx_routes[i].method, imx_routes[i].path);
            missing++;
        }
    }
    const char *p;
    json_t *item;
    json_object_foreach(paths, p, item)
    {
        const char *m;
        json_t *op;
        json_object_foreach(item, m, op)
        {
            static const char *const verbs[] = { "get",   "put",  "post",    "delete",
                                                 "patch", "head", "options", "trace" };
            int is_verb = 0;
            for (size_t v = 0; v < sizeof verbs / sizeof verbs[0]; v++)
                is_verb |= strcmp(m, verbs[v]) == 0;
            if (!is_verb)
                continue;
            int found = 0;
            for (size_t i = 0; i < imx_routes_count && !found; i++) {
                char lm[16];
                lower(lm, imx_routes[i].method, sizeof lm);
                found = strcmp(lm, m) == 0 && strcmp(imx_routes[i].path, p) == 0;
            }
            if (!found) {
                fprintf(stderr, "in openapi.yaml, not in the route table: %s %s\n", m, p);
                missing++;
            }
        }
    }
    json_decref(spec);
    assert_int_equal(missing, 0);
}

static bool str_is(json_t *v, const char *want)
{
    return json_is_string(v) && strcmp(json_string_value(v), want) == 0;
}

/* A parameter object, following a local $ref ("#/components/parameters/X"); borrowed. */
static json_t *resolve(json_t *spec, json_t *p)
{
    const char *ref = json_string_value(json_object_get(p, "$ref"));
    const char *prefix = "#/components/parameters/";
    if (!ref)
        return p;
    if (strncmp(ref, prefix, strlen(prefix)) != 0)
        return NULL;
    return json_object_get(json_object_get(json_object_get(spec, "components"), "parameters"),
                           ref + strlen(prefix));
}

/* Appends the query parameters of a parameters array to list ("name" or "name*" when its
 * schema is an array, i.e. repeatable), space-separated. */
static void query_names(json_t *spec, json_t *params, char *list, size_t len)
{
    size_t i;
    json_t *p;
    json_array_foreach(params, i, p)
    {
        json_t *r = resolve(spec, p);
        if (!r || !str_is(json_object_get(r, "in"), "query"))
            continue;
        json_t *schema = json_object_get(r, "schema");
        bool rep = str_is(json_object_get(schema, "type"), "array");
        size_t used = strlen(list);
        snprintf(list + used, len - used, "%s%s%s", used ? " " : "",
                 json_string_value(json_object_get(r, "name")), rep ? "*" : "");
    }
}

/* Every route declares exactly the query parameters its operation lists in the spec, in the
 * same order, repeatable exactly where the spec's schema is an array. */
static void every_route_accepts_the_query_the_spec_lists(void **state)
{
    (void)state;
    json_error_t err;
    json_t *spec = json_load_file(getenv("IMX_OPENAPI_JSON"), 0, &err);
    if (!spec)
        fail_msg("%s", err.text);
    int differ = 0;
    for (size_t i = 0; i < imx_routes_count; i++) {
        char m[16], want[1024] = "";
        lower(m, imx_routes[i].method, sizeof m);
        json_t *item = json_object_get(json_object_get(spec, "paths"), imx_routes[i].path);
        query_names(spec, json_object_get(item, "parameters"), want, sizeof want);
        query_names(spec, json_object_get(json_object_get(item, m), "parameters"), want,
                    sizeof want);
        const char *have = imx_routes[i].query ? imx_routes[i].query : "";
        if (strcmp(want, have) != 0) {
            fprintf(stderr, "%s %s: the route table accepts \"%s\", openapi.yaml lists \"%s\"\n",
                    imx_routes[i].method, imx_routes[i].path, have, want);
            differ++;
        }
    }
    json_decref(spec);
    assert_int_equal(differ, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_route_is_in_the_spec_and_back),
        cmocka_unit_test(every_route_accepts_the_query_the_spec_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
