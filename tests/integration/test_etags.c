/* ETag and If-Match on the mutable resources (server/api/etag.c): webhooks, image requests,
 * teams, instance types and reference rows carry an ETag that every write moves; a write with a
 * stale If-Match is 412 and changes nothing; a full replacement without one is 428. */
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
    static const char *const env[] = { "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9", NULL };
    if (imx_t_server_up(&srv, "etags", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    return imx_t_user(&srv, admin, "ml", "m@ml.test", "admin", member, sizeof member);
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

/* One request as token with If-Match if_match (none when NULL); the ETag it answered into etag
 * ("" when none). Returns the status. */
static long send(const char *token, const char *method, const char *path, const char *body,
                 const char *if_match, char etag[64])
{
    char auth[4200], im[128];
    const char *h[4] = { auth, "Content-Type: application/json", NULL, NULL };
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    if (if_match) {
        snprintf(im, sizeof im, "If-Match: %s", if_match);
        h[2] = im;
    }
    struct imx_res res;
    assert_int_equal(imx_t_http(&srv, method, path, h, body, &res), 0);
    if (res.status >= 400 && res.status != 412 && res.status != 428)
        fprintf(stderr, "%s %s: %ld %s\n", method, path, res.status, res.body);
    if (res.status >= 400)
        imx_t_assert_problem(&res, res.status);
    if (etag && !imx_t_header(&res, "ETag", etag, 64))
        etag[0] = '\0';
    long st = res.status;
    imx_t_res_free(&res);
    return st;
}

struct resource {
    const char *what, *read, *method, *write, *body, *changed_sql;
    bool required; /* If-Match required (428 without) */
};

/* The resource's ETag from a read; a write with a stale one is 412 and changes nothing (the
 * ETag stays); with the current one it is done and the ETag moves; the read agrees. */
static void guarded(const struct resource *x)
{
    char e1[64], e2[64], e3[64], e4[64];
    assert_int_equal(send(member, "GET", x->read, NULL, NULL, e1), 200);
    printf("%-14s ETag %s\n", x->what, e1);
    assert_true(e1[0] == '"');
    char *before = x->changed_sql ? imx_t_sql(db, x->changed_sql) : NULL;
    assert_int_equal(send(member, x->method, x->write, x->body, "\"r999999\"", e2), 412);
    assert_string_equal(e2, e1); /* the 412 names the current ETag */
    if (before) {
        char *after = imx_t_sql(db, x->changed_sql);
        assert_string_equal(after, before);
        free(after);
    }
    free(before);
    if (x->required)
        assert_int_equal(send(member, x->method, x->write, x->body, NULL, NULL), 428);
    long st = send(member, x->method, x->write, x->body, e1, e3);
    assert_true(st == 200 || st == 201 || st == 204);
    assert_int_equal(send(member, "GET", x->read, NULL, NULL, e4), 200);
    assert_string_not_equal(e4, e1);
    if (e3[0])
        assert_string_equal(e3, e4);
    /* The old ETag is stale now. */
    assert_int_equal(send(member, x->method, x->write, x->body, e1, NULL), 412);
    /* "*" matches whatever revision there is. */
    st = send(member, x->method, x->write, x->body, "*", NULL);
    assert_true(st == 200 || st == 201 || st == 204);
}

static void every_mutable_resource_guards_its_writes(void **state)
{
    (void)state;
    char path[64], body[256];
    /* Global admin powers for the reference data and instance types: sign the member up. */
    free(imx_t_sql(db, "UPDATE users SET is_admin = true WHERE email = 'm@ml.test'"));
    char tok[4096];
    assert_int_equal(imx_t_login(&srv, "m@ml.test", "pw-m@ml.test", tok, sizeof tok), 200);
    snprintf(member, sizeof member, "%s", tok);

    struct imx_res res;
    assert_int_equal(
        imx_t_http_as(&srv, member, "POST", "/v1/webhooks",
                      "{\"team\":\"ml\",\"url\":\"http://127.0.0.1:9/a\",\"events\":[\"ping\"]}",
                      &res),
        0);
    assert_int_equal(res.status, 201);
    long long wh = json_integer_value(json_object_get(res.json, "id"));
    char created[64];
    assert_non_null(imx_t_header(&res, "ETag", created, sizeof created));
    assert_string_equal(created, "\"r1\"");
    imx_t_res_free(&res);
    char wpath[64];
    snprintf(wpath, sizeof wpath, "/v1/webhooks/%lld", wh);
    struct resource hook = { "webhook", wpath, "PATCH", wpath, "{\"description\":\"changed\"}",
                             NULL,      false };
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT description FROM webhooks WHERE id = %lld", wh);
    hook.changed_sql = sql;
    free(imx_t_sql(db, "UPDATE webhooks SET description = 'first'"));
    guarded(&hook);

    assert_int_equal(imx_t_http_as(&srv, member, "POST", "/v1/requests",
                                   "{\"team\":\"ml\",\"title\":\"t\",\"os\":\"ubuntu:24.04\"}",
                                   &res),
                     0);
    assert_int_equal(res.status, 201);
    long long rq = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/requests/%lld", rq);
    char cpath[80];
    snprintf(cpath, sizeof cpath, "/v1/requests/%lld/comments", rq);
    struct resource request = { "request",
                                path,
                                "POST",
                                cpath,
                                "{\"body\":\"hello\"}",
                                "SELECT count(*) FROM request_comments",
                                false };
    guarded(&request);
    /* A transition too: the stale one is refused, the state stays open. */
    char e[64];
    assert_int_equal(send(member, "GET", path, NULL, NULL, e), 200);
    char tpath[80];
    snprintf(tpath, sizeof tpath, "/v1/requests/%lld/transitions", rq);
    assert_int_equal(send(member, "POST", tpath, "{\"to\":\"withdrawn\"}", "\"r1\"", NULL), 412);
    char *st = imx_t_sql(db, "SELECT state FROM image_requests ORDER BY id DESC LIMIT 1");
    assert_string_equal(st, "open");
    free(st);
    assert_int_equal(send(member, "POST", tpath, "{\"to\":\"withdrawn\"}", e, NULL), 200);

    assert_int_equal(imx_t_user(&srv, admin, "ml", "v@ml.test", "viewer", tok, sizeof tok), 0);
    struct resource team = { "team",
                             "/v1/teams/ml",
                             "PUT",
                             "/v1/teams/ml/members/v@ml.test",
                             "{\"role\":\"member\"}",
                             "SELECT revision FROM teams WHERE slug = 'ml'",
                             false };
    guarded(&team);

    snprintf(body, sizeof body,
             "{\"gpu_model\":\"L4\",\"gpu_count\":1,\"gpu_memory_gib\":24,\"vcpus\":4,"
             "\"memory_gib\":16,\"host_arch\":\"x86_64\"}");
    struct resource type = {
        "instance type",
        "/v1/instance-types/aws/g6.xlarge",
        "PUT",
        "/v1/instance-types/aws/g6.xlarge",
        body,
        "SELECT vcpus FROM ref_instance_type WHERE instance_type = 'g6.xlarge'",
        true
    };
    guarded(&type);

    struct resource ref = { "reference",
                            "/v1/reference/driver_branch",
                            "PUT",
                            "/v1/reference/driver_branch",
                            "{\"branch\":580,\"branch_type\":\"LTSB\"}",
                            "SELECT generation FROM ref_generation",
                            true };
    guarded(&ref);

    /* A pin: moves and deletes check the ETag its team last set (not its status). */
    long long i1 = imx_t_publish(&srv, member, "ml", "etag-fam", "1",
                                 "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"}]", NULL);
    long long i2 = imx_t_publish(&srv, member, "ml", "etag-fam", "2",
                                 "[{\"name\":\"nvidia-driver\",\"version\":\"580.105.08\"}]", NULL);
    assert_true(i1 > 0 && i2 > 0);
    snprintf(body, sizeof body, "{\"team\":\"ml\",\"name\":\"prod\",\"image\":%lld}", i1);
    assert_int_equal(imx_t_http_as(&srv, member, "POST", "/v1/pins", body, &res), 0);
    assert_int_equal(res.status, 201);
    long long pin = json_integer_value(json_object_get(res.json, "id"));
    assert_non_null(imx_t_header(&res, "ETag", created, sizeof created));
    assert_string_equal(created, "\"r1\"");
    imx_t_res_free(&res);
    char ppath[64], psql[128], move[64];
    snprintf(ppath, sizeof ppath, "/v1/pins/%lld", pin);
    snprintf(psql, sizeof psql, "SELECT image_id FROM pins WHERE id = %lld", pin);
    snprintf(move, sizeof move, "{\"image\":%lld}", i2);
    struct resource pinned = { "pin", ppath, "PUT", ppath, move, psql, false };
    guarded(&pinned);
    assert_int_equal(send(member, "DELETE", ppath, NULL, "\"r1\"", NULL), 412);
    assert_int_equal(send(member, "GET", ppath, NULL, NULL, e), 200);
    assert_int_equal(send(member, "DELETE", ppath, NULL, e, NULL), 204);
}

static void a_put_that_creates_needs_no_etag(void **state)
{
    (void)state;
    static const char body[] = "{\"gpu_model\":\"L4\",\"gpu_count\":1,\"gpu_memory_gib\":24,"
                               "\"vcpus\":4,\"memory_gib\":16,\"host_arch\":\"x86_64\"}";
    char e[64];
    assert_int_equal(send(member, "PUT", "/v1/instance-types/aws/g6.newone", body, NULL, e), 201);
    assert_string_equal(e, "\"r1\"");
    /* If-Match on one that does not exist fails. */
    assert_int_equal(send(member, "PUT", "/v1/instance-types/aws/g6.other", body, "\"r1\"", NULL),
                     412);
    char *n = imx_t_sql(db, "SELECT count(*) FROM ref_instance_type WHERE instance_type = "
                            "'g6.other'");
    assert_string_equal(n, "0");
    free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_mutable_resource_guards_its_writes),
        cmocka_unit_test(a_put_that_creates_needs_no_etag),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
