/* CSV and NDJSON exports (server/api/export.c): Accept: text/csv gives RFC 4180 with a header
 * row and quoting, application/x-ndjson one object a line; the export streams page after page
 * (every row once, in order, across pages of 500), and past IMAXE_EXPORT_MAX_ROWS the transfer
 * is cut rather than ending as a short file that looks whole. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], member[4096], pub[4096];
static long long image_id;

static int setup(void **state)
{
    (void)state;
    static const char *const env[] = { "IMAXE_EXPORT_MAX_ROWS=1300", NULL };
    if (imx_t_server_up(&srv, "export", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "ml", "m@ml.test", "member", member, sizeof member) != 0 ||
        imx_t_user(&srv, admin, "ml", "p@ml.test", "publisher", pub, sizeof pub) != 0)
        return -1;
    image_id = imx_t_publish(&srv, pub, "ml", "exp-base", "1",
                             "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"},"
                             "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]",
                             NULL);
    return image_id > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

/* GET path as token with Accept accept; returns as imx_t_http (0 when a whole answer came). */
static int get(const char *token, const char *path, const char *accept, struct imx_res *res)
{
    char auth[4200], acc[128];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    snprintf(acc, sizeof acc, "Accept: %s", accept);
    const char *h[] = { auth, acc, NULL };
    return imx_t_http(&srv, "GET", path, h, NULL, res);
}

static size_t count_lines(const char *s, const char *eol)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, eol)) != NULL; p += strlen(eol))
        n++;
    return n;
}

static void measurements_export_as_csv_and_ndjson(void **state)
{
    (void)state;
    struct imx_res res;
    static const char M[] = "{\"team\":\"ml\",\"image\":%lld,\"instance_type\":\"g6.xlarge\","
                            "\"gpu_count\":1,\"model\":\"resnet50\",\"precision\":\"fp16\","
                            "\"batch_size\":%d,\"throughput_per_s\":1850,\"pricing\":\"on_demand\","
                            "\"measured_at\":\"2026-11-20T10:00:00Z\"%s}";
    for (int i = 0; i < 3; i++) {
        char body[1024];
        snprintf(body, sizeof body, M, image_id, 8 << i,
                 i == 1 ? ",\"notes\":\"warm, \\\"cached\\\"\\nsecond line\"" : "");
        assert_int_equal(imx_t_http_as(&srv, member, "POST", "/v1/measurements", body, &res), 0);
        if (res.status != 201)
            fprintf(stderr, "%ld %s\n", res.status, res.body);
        assert_int_equal(res.status, 201);
        imx_t_res_free(&res);
    }
    assert_int_equal(get(member, "/v1/measurements", "text/csv", &res), 0);
    assert_int_equal(res.status, 200);
    char ct[128];
    assert_non_null(imx_t_header(&res, "Content-Type", ct, sizeof ct));
    assert_non_null(strstr(ct, "text/csv"));
    printf("CSV:\n%s", res.body);
    static const char head[] = "id,team,image,provider,instance_type,region,gpu_model,gpu_count,"
                               "model,precision,batch_size,";
    assert_true(strncmp(res.body, head, sizeof head - 1) == 0);
    /* Header + 3 records, one of them with a quoted comma, doubled quotes and a line break. */
    assert_int_equal(count_lines(res.body, "\r\n"), 4);
    assert_non_null(strstr(res.body, ",\"warm, \"\"cached\"\"\nsecond line\","));
    assert_non_null(strstr(res.body, ",resnet50,fp16,"));
    imx_t_res_free(&res);

    assert_int_equal(get(member, "/v1/measurements?model=resnet50", "application/x-ndjson", &res),
                     0);
    assert_int_equal(res.status, 200);
    assert_int_equal(count_lines(res.body, "\n"), 3);
    json_error_t err;
    json_t *first = json_loadb(res.body, strcspn(res.body, "\n"), 0, &err);
    assert_non_null(first);
    assert_int_equal(json_integer_value(json_object_get(first, "batch_size")), 32);
    json_decref(first);
    imx_t_res_free(&res);

    /* JSON stays the default, also for Accept: any type; the export's scope is the list's. */
    assert_int_equal(get(member, "/v1/measurements", "*/*", &res), 0);
    assert_non_null(res.json);
    imx_t_res_free(&res);
    char outsider[4096];
    assert_int_equal(
        imx_t_user(&srv, admin, "other", "x@o.test", "member", outsider, sizeof outsider), 0);
    assert_int_equal(get(outsider, "/v1/measurements", "text/csv", &res), 0);
    assert_int_equal(count_lines(res.body, "\r\n"), 1); /* the header only */
    imx_t_res_free(&res);
}

static void image_search_exports_the_whole_result(void **state)
{
    (void)state;
    for (int i = 2; i <= 4; i++) {
        char v[8];
        snprintf(v, sizeof v, "%d", i);
        assert_true(imx_t_publish(&srv, pub, "ml", "exp-base", v,
                                  "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"},"
                                  "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]",
                                  NULL) > 0);
    }
    struct imx_res res;
    /* limit and cursor are for pages; an export is the whole result, newest first. */
    assert_int_equal(get(member, "/v1/images?family=exp-base&limit=1", "text/csv", &res), 0);
    assert_int_equal(res.status, 200);
    printf("search CSV:\n%s", res.body);
    assert_true(
        strncmp(res.body, "id,family,version,provider,architecture,os.name,os.version,", 58) == 0);
    assert_int_equal(count_lines(res.body, "\r\n"), 5);
    assert_non_null(strstr(res.body, ",exp-base,4,aws,x86_64,ubuntu,24.04,platform,active,"));
    assert_true(strstr(res.body, ",exp-base,4,") < strstr(res.body, ",exp-base,1,"));
    imx_t_res_free(&res);
    assert_int_equal(get(member, "/v1/images?family=nope", "application/x-ndjson", &res), 0);
    assert_int_equal(res.status, 200);
    assert_int_equal(res.len, 0);
    imx_t_res_free(&res);
    assert_int_equal(get(member, "/v1/images?provider=nope", "text/csv", &res), 0);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
}

static void the_audit_log_streams_every_row_once_across_pages(void **state)
{
    (void)state;
    /* 1,150 more rows: three pages of the export. */
    free(imx_t_sql(db, "INSERT INTO audit_log (action, resource, resource_id, request_id, detail)"
                       " SELECT 'bulk', 'test', g::text, 'r' || g, jsonb_build_object('n', g)"
                       " FROM generate_series(1, 1150) g"));
    char *total = imx_t_sql(db, "SELECT count(*) FROM audit_log");
    struct imx_res res;
    assert_int_equal(get(admin, "/v1/audit", "application/x-ndjson", &res), 0);
    assert_int_equal(res.status, 200);
    size_t n = 0;
    long long prev = 0;
    for (const char *p = res.body; *p;) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        json_t *row = json_loadb(p, (size_t)(nl - p), 0, NULL);
        assert_non_null(row);
        long long id = json_integer_value(json_object_get(row, "id"));
        assert_true(prev == 0 || id < prev); /* newest first, no row twice */
        prev = id;
        json_decref(row);
        n++;
        p = nl + 1;
    }
    printf("audit export: %zu rows, %s in the table\n", n, total);
    assert_int_equal(n, (size_t)atoll(total));
    imx_t_res_free(&res);

    assert_int_equal(get(admin, "/v1/audit?resource=test&action=bulk", "text/csv", &res), 0);
    assert_int_equal(count_lines(res.body, "\r\n"), 1151);
    assert_true(strncmp(res.body, "id,at,actor.id,actor.email,token_id,action,", 43) == 0);
    assert_non_null(strstr(res.body, ",bulk,test,1150,r1150,\"{\"\"n\"\":1150}\"\r\n"));
    imx_t_res_free(&res);
    /* A bad filter is refused before the stream starts. */
    assert_int_equal(get(admin, "/v1/audit?since=yesterday-ish", "text/csv", &res), 0);
    imx_t_assert_problem(&res, 400);
    imx_t_res_free(&res);
    free(total);
}

static void past_the_row_cap_the_transfer_is_cut(void **state)
{
    (void)state;
    /* More than IMAXE_EXPORT_MAX_ROWS=1300 rows: no whole answer comes. */
    free(imx_t_sql(db, "INSERT INTO audit_log (action, resource, request_id)"
                       " SELECT 'bulk', 'more', 'r' FROM generate_series(1, 400)"));
    struct imx_res res;
    assert_int_not_equal(get(admin, "/v1/audit", "text/csv", &res), 0);
    assert_true(imx_t_log_contains(&srv, "export cut at 1300 rows"));
    /* Exactly at the cap is whole. */
    assert_int_equal(get(admin, "/v1/audit?resource=test", "text/csv", &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(measurements_export_as_csv_and_ndjson),
        cmocka_unit_test(image_search_exports_the_whole_result),
        cmocka_unit_test(the_audit_log_streams_every_row_once_across_pages),
        cmocka_unit_test(past_the_row_cap_the_transfer_is_cut),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
