/* Lists that page (issue 14): teams, API tokens and instance types walked with a small limit
 * give every row exactly once, in order, with next_cursor and Link rel="next" on every page but
 * the last; a limit past the maximum and a forged cursor are 400. (Reference tables:
 * test_knowledge; an advisory's affected images: test_advisories; rankings: test_costs.) */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], member[4096];

static int setup(void **state)
{
    (void)state;
    if (imx_t_server_up(&srv, "pages", NULL, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    return imx_t_user(&srv, admin, "ml", "m@ml.test", "admin", member, sizeof member);
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

/* Walks path (which has a ?) page by page as token; appends member field of each item to out
 * (a new array). */
static json_t *walk(const char *token, const char *path, const char *field)
{
    json_t *out = json_array();
    char url[2048];
    snprintf(url, sizeof url, "%s", path);
    for (int pages = 0;; pages++) {
        assert_true(pages < 500);
        struct imx_res res;
        assert_int_equal(imx_t_http_as(&srv, token, "GET", url, NULL, &res), 0);
        if (res.status != 200)
            fprintf(stderr, "GET %s: %ld %s\n", url, res.status, res.body);
        assert_int_equal(res.status, 200);
        size_t i;
        json_t *it;
        json_array_foreach(json_object_get(res.json, "items"), i, it)
            json_array_append(out, json_object_get(it, field));
        const char *next = json_string_value(json_object_get(res.json, "next_cursor"));
        char link[2048];
        bool has_link = imx_t_header(&res, "Link", link, sizeof link) != NULL;
        assert_true(has_link == (next != NULL));
        if (next) {
            assert_non_null(strstr(link, "rel=\"next\""));
            snprintf(url, sizeof url, "%s&cursor=%s", path, next);
        }
        imx_t_res_free(&res);
        if (!next)
            break;
    }
    return out;
}

static void teams_tokens_and_instance_types_page(void **state)
{
    (void)state;
    struct imx_res res;
    for (int i = 0; i < 5; i++) {
        char body[128];
        snprintf(body, sizeof body, "{\"slug\":\"pg-team-%d\",\"name\":\"T%d\"}", i, i);
        assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/teams", body, &res), 0);
        assert_int_equal(res.status, 201);
        imx_t_res_free(&res);
    }
    json_t *slugs = walk(admin, "/v1/teams?limit=2", "slug");
    char *n = imx_t_sql(db, "SELECT count(*) FROM teams");
    assert_int_equal(json_array_size(slugs), (size_t)atoi(n));
    free(n);
    for (size_t i = 1; i < json_array_size(slugs); i++)
        assert_true(strcmp(json_string_value(json_array_get(slugs, i - 1)),
                           json_string_value(json_array_get(slugs, i))) < 0);
    json_decref(slugs);

    for (int i = 0; i < 5; i++) {
        char body[128];
        snprintf(body, sizeof body, "{\"name\":\"ci-%d\",\"team\":\"ml\",\"role\":\"viewer\"}", i);
        assert_int_equal(imx_t_http_as(&srv, member, "POST", "/v1/tokens", body, &res), 0);
        assert_int_equal(res.status, 201);
        imx_t_res_free(&res);
    }
    json_t *ids = walk(member, "/v1/tokens?limit=2", "id");
    assert_int_equal(json_array_size(ids), 5);
    for (size_t i = 1; i < json_array_size(ids); i++)
        assert_true(json_integer_value(json_array_get(ids, i - 1)) >
                    json_integer_value(json_array_get(ids, i)));
    json_decref(ids);

    json_t *types = walk(member, "/v1/instance-types?limit=7", "instance_type");
    n = imx_t_sql(db, "SELECT count(*) FROM ref_instance_type");
    printf("instance types: %zu in pages of 7, %s in the table\n", json_array_size(types), n);
    assert_int_equal(json_array_size(types), (size_t)atoi(n));
    free(n);
    json_decref(types);
    json_t *h100 = walk(member, "/v1/instance-types?gpu=H100&limit=1", "gpu_model");
    assert_true(json_array_size(h100) >= 2);
    json_decref(h100);
}

static void bad_limits_and_cursors_are_400(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "/v1/teams?limit=0",           "/v1/teams?limit=201",
        "/v1/tokens?cursor=abc",       "/v1/instance-types?cursor=abc.def",
        "/v1/reference/gpu?limit=500", "/v1/costs?model=x&cursor=zzz",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct imx_res res;
        assert_int_equal(imx_t_http_as(&srv, member, "GET", bad[i], NULL, &res), 0);
        if (res.status != 400)
            fprintf(stderr, "GET %s: %ld\n", bad[i], res.status);
        imx_t_assert_problem(&res, 400);
        imx_t_res_free(&res);
    }
    /* A cursor of one list is refused by another (its key has another shape). */
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, member, "GET", "/v1/tokens?limit=1", NULL, &res), 0);
    const char *next = json_string_value(json_object_get(res.json, "next_cursor"));
    assert_non_null(next);
    char url[1024];
    snprintf(url, sizeof url, "/v1/teams?cursor=%s", next);
    imx_t_res_free(&res);
    assert_int_equal(imx_t_http_as(&srv, member, "GET", url, NULL, &res), 0);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(teams_tokens_and_instance_types_page),
        cmocka_unit_test(bad_limits_and_cursors_are_400),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
