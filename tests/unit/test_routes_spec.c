/* The route table and api/openapi.yaml list the same operations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
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

/* Does operation op list the shared Idempotency-Key header parameter? */
static bool takes_idempotency_key(json_t *op)
{
    size_t i;
    json_t *prm;
    json_array_foreach(json_object_get(op, "parameters"), i, prm)
    {
        const char *ref = json_string_value(json_object_get(prm, "$ref"));
        if (ref && strcmp(ref, "#/components/parameters/IdempotencyKey") == 0)
            return true;
    }
    return false;
}

/* The routes marked creates take Idempotency-Key (server/api/idempotency.c) and say so in the
 * spec through the shared component; no other operation claims it. */
static void creating_routes_document_the_idempotency_key(void **state)
{
    (void)state;
    json_t *spec = json_load_file(getenv("IMX_OPENAPI_JSON"), 0, NULL);
    assert_non_null(spec);
    json_t *paths = json_object_get(spec, "paths");
    int wrong = 0, creating = 0;
    for (size_t i = 0; i < imx_routes_count; i++) {
        char m[16];
        lower(m, imx_routes[i].method, sizeof m);
        json_t *op = json_object_get(json_object_get(paths, imx_routes[i].path), m);
        creating += imx_routes[i].creates;
        if (op && takes_idempotency_key(op) != imx_routes[i].creates) {
            fprintf(stderr,
                    "%s %s: creates is %d in the route table, the spec %s Idempotency-Key\n",
                    imx_routes[i].method, imx_routes[i].path, imx_routes[i].creates,
                    imx_routes[i].creates ? "lacks" : "lists");
            wrong++;
        }
        if (imx_routes[i].creates && strcmp(imx_routes[i].method, "POST") != 0) {
            fprintf(stderr, "%s %s: only a POST creates\n", imx_routes[i].method,
                    imx_routes[i].path);
            wrong++;
        }
    }
    json_decref(spec);
    assert_int_equal(wrong, 0);
    assert_true(creating >= 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_route_is_in_the_spec_and_back),
        cmocka_unit_test(creating_routes_document_the_idempotency_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
