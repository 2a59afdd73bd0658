/* End of life ahead against the real server: an image's end of life from the knowledge tables
 * (GET /v1/images/{id}/eol), and image.eol_approaching for pinned images at 90, 30 and 0 days,
 * once each, with the server's clock set by IMAXE_EOL_TODAY (the job runs at start-up and every
 * IMAXE_EOL_CHECK_S): the server restarts on the same database with each day the test picks. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], alice[4096], bob[4096];
static long long r535, r580;

static const char *const BASE_ENV[] = { "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9",
                                        "IMAXE_WEBHOOK_POLL_MS=60000", "IMAXE_EOL_CHECK_S=0",
                                        NULL };

static long long sql_count(const char *q)
{
    char *v = imx_t_sql(db, q);
    assert_non_null(v);
    long long n = atoll(v);
    free(v);
    return n;
}

static int setup(void **state)
{
    (void)state;
    if (imx_t_server_up(&srv, "eol", BASE_ENV, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "team-a", "alice@a.test", "admin", alice, sizeof alice) != 0 ||
        imx_t_user(&srv, admin, "team-b", "bob@b.test", "admin", bob, sizeof bob) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

static void call(const char *token, const char *method, const char *path, const char *body,
                 long status, json_t **out)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, method, path, body, &res), 0);
    if (res.status != status)
        fail_msg("%s %s: expected %ld, got %ld: %s", method, path, status, res.status, res.body);
    if (out)
        *out = json_incref(res.json);
    imx_t_res_free(&res);
}

/* image.eol_approaching events of team about the R535 image. */
static long long events(const char *team)
{
    char q[400];
    snprintf(q, sizeof q,
             "SELECT count(*) FROM webhook_events e JOIN teams t ON t.id = e.team_id"
             " WHERE e.type = 'image.eol_approaching' AND t.slug = '%s'"
             " AND (e.data -> 'image' ->> 'id')::bigint = %lld",
             team, r535);
    return sql_count(q);
}

/* Restarts the server with today's date days after (negative: before) R535's end of life, and
 * waits for the announcement at start-up to be done (the job logs nothing when it staged none:
 * its marker is the eol_events rows, or a second for none). */
static void restart_on(int days_from_eol)
{
    assert_int_equal(imx_t_server_stop(&srv, SIGTERM, 15), 0);
    char q[200], today[64];
    snprintf(q, sizeof q, "SELECT (eol + %d)::text FROM ref_driver_branch WHERE branch = 535",
             days_from_eol);
    char *d = imx_t_sql(db, q);
    assert_non_null(d);
    snprintf(today, sizeof today, "IMAXE_EOL_TODAY=%s", d);
    free(d);
    const char *env[] = { BASE_ENV[0], BASE_ENV[1], "IMAXE_EOL_CHECK_S=1", today, NULL };
    assert_int_equal(imx_t_server_start(&srv, db, env), 0);
    imx_t_sleep_ms(2500); /* the job runs at start and once more a second later */
}

/* Publishes family version 1 on os NAME VERSION with these components; returns its id. */
static long long publish_os(const char *family, const char *os, const char *os_version,
                            const char *components)
{
    char body[2048];
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"family\":\"%s\",\"version\":\"1\",\"provider\":\"aws\","
             "\"architecture\":\"x86_64\",\"os\":{\"name\":\"%s\",\"version\":\"%s\"},"
             "\"layer\":\"platform\",\"artifacts\":[{\"region\":\"us-east-1\",\"id\":\"ami-%s\"}],"
             "\"components\":%s}",
             family, os, os_version, family, components);
    json_t *doc;
    call(admin, "POST", "/v1/images", body, 201, &doc);
    long long id = json_integer_value(json_object_get(doc, "id"));
    json_decref(doc);
    return id;
}

static void an_image_shows_its_earliest_end_of_life(void **state)
{
    (void)state;
    r535 = imx_t_publish(&srv, admin, "team-a", "eol-535", "1",
                         "[{\"name\":\"nvidia-driver\",\"version\":\"535.274.02\"},"
                         "{\"name\":\"cuda\",\"version\":\"12.2.2\"}]",
                         NULL);
    r580 = imx_t_publish(&srv, admin, "team-a", "eol-580", "1",
                         "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"}]", NULL);
    /* An OS release whose end of life is UNCONFIRMED in ref_eol (no date: the row is never
     * used), and CUDA 12.2, which has no row. Every shipped OS row is dated since 0350, so the
     * test adds its own. */
    char *ins = imx_t_sql(db, "INSERT INTO ref_eol (kind, component, release, basis, status, "
                              "source, notes) VALUES ('os', 'imx-test-os', '1', 'upstream', "
                              "'UNCONFIRMED', 'https://example.com/', 'undated on purpose')");
    assert_non_null(ins);
    free(ins);
    long long none = publish_os("eol-none", "imx-test-os", "1.4",
                                "[{\"name\":\"cuda\",\"version\":\"12.2.2\"}]");
    assert_true(r535 > 0 && r580 > 0 && none > 0);
    char path[64];
    json_t *doc;
    snprintf(path, sizeof path, "/v1/images/%lld/eol", r535);
    call(alice, "GET", path, NULL, 200, &doc);
    char *want = imx_t_sql(db, "SELECT eol::text FROM ref_driver_branch WHERE branch = 535");
    json_t *eol = json_object_get(doc, "eol");
    assert_string_equal(json_string_value(json_object_get(eol, "date")), want);
    free(want);
    json_t *first = json_array_get(json_object_get(eol, "reaches"), 0);
    assert_string_equal(json_string_value(json_object_get(first, "component")), "nvidia-driver");
    assert_string_equal(json_string_value(json_object_get(first, "release")), "R535");
    json_decref(doc);
    snprintf(path, sizeof path, "/v1/images/%lld/eol", none);
    call(alice, "GET", path, NULL, 200, &doc);
    assert_true(json_is_null(json_object_get(doc, "eol")));
    json_decref(doc);
    call(alice, "GET", "/v1/images/99999999/eol", NULL, 404, NULL);

    /* team-a pins both, team-b the R535 image; both subscribe. */
    char body[256];
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"old\",\"image\":%lld}", r535);
    call(alice, "POST", "/v1/pins", body, 201, NULL);
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"new\",\"image\":%lld}", r580);
    call(alice, "POST", "/v1/pins", body, 201, NULL);
    snprintf(body, sizeof body, "{\"team\":\"team-b\",\"name\":\"prod\",\"image\":%lld}", r535);
    call(bob, "POST", "/v1/pins", body, 201, NULL);
    call(alice, "POST", "/v1/webhooks",
         "{\"team\":\"team-a\",\"url\":\"http://127.0.0.1:9/h\",\"events\":"
         "[\"image.eol_approaching\"]}",
         201, NULL);
    call(bob, "POST", "/v1/webhooks",
         "{\"team\":\"team-b\",\"url\":\"http://127.0.0.1:9/h\",\"events\":"
         "[\"image.eol_approaching\"]}",
         201, NULL);
}

static void thresholds_fire_once_each_as_the_clock_moves(void **state)
{
    (void)state;
    char q[300];
    /* 91 days before: nothing yet. */
    restart_on(-91);
    assert_int_equal(events("team-a"), 0);
    assert_int_equal(events("team-b"), 0);
    /* 90 days before: the 90-day event, to both teams; again the next day: nothing new. */
    restart_on(-90);
    assert_int_equal(events("team-a"), 1);
    assert_int_equal(events("team-b"), 1);
    restart_on(-89);
    assert_int_equal(events("team-a"), 1);
    /* 30 days, then the day itself; after it, nothing more. */
    restart_on(-30);
    assert_int_equal(events("team-a"), 2);
    assert_int_equal(events("team-b"), 2);
    restart_on(0);
    assert_int_equal(events("team-a"), 3);
    assert_int_equal(events("team-b"), 3);
    restart_on(10);
    assert_int_equal(events("team-a"), 3);
    assert_int_equal(events("team-b"), 3);
    /* The payload of the last: the threshold, the days left, what reaches end of life. */
    char *data = imx_t_sql(db, "SELECT e.data::text FROM webhook_events e JOIN teams t"
                               " ON t.id = e.team_id WHERE e.type = 'image.eol_approaching'"
                               " AND t.slug = 'team-b' ORDER BY e.id DESC LIMIT 1");
    assert_non_null(data);
    json_t *d = json_loads(data, 0, NULL);
    free(data);
    assert_int_equal(json_integer_value(json_object_get(d, "threshold_days")), 0);
    assert_int_equal(json_integer_value(json_object_get(d, "days_left")), 0);
    assert_string_equal(json_string_value(json_array_get(json_object_get(d, "pins"), 0)), "prod");
    assert_string_equal(
        json_string_value(json_object_get(
            json_array_get(json_object_get(json_object_get(d, "eol"), "reaches"), 0), "release")),
        "R535");
    json_decref(d);
    /* R580's own end of life is later: each of its thresholds reached by now came once. */
    snprintf(q, sizeof q,
             "SELECT count(*) FROM webhook_events e WHERE e.type = 'image.eol_approaching'"
             " AND (e.data -> 'image' ->> 'id')::bigint = %lld",
             r580);
    assert_true(sql_count(q) <= 1);
}

/* The stack beyond the driver (ref_eol, tools/reference/eol.csv): OS release, CUDA, Python and
 * framework, each with whose date it is; the earliest reaches; eol_before filters images and pins;
 * a pin shows its image's end of life (in its document and at /v1/pins/{id}/eol). */
static void the_whole_stack_is_dated_and_filters_by_it(void **state)
{
    (void)state;
    long long full = publish_os("eol-full", "ubuntu", "22.04",
                                "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"},"
                                "{\"name\":\"cuda\",\"version\":\"12.9.1\"},"
                                "{\"name\":\"python\",\"version\":\"3.10.12\"},"
                                "{\"name\":\"pytorch\",\"version\":\"2.8.0\"}]");
    long long al2 =
        publish_os("eol-al2", "amzn", "2", "[{\"name\":\"python\",\"version\":\"3.12.1\"}]");
    char path[128];
    json_t *doc;
    snprintf(path, sizeof path, "/v1/images/%lld/eol", full);
    call(alice, "GET", path, NULL, 200, &doc);
    json_t *eol = json_object_get(doc, "eol");
    /* PyTorch 2.8: AWS's End of Patch 2026-08-06, earlier than Python 3.10 (2026-10-31), Ubuntu
     * 22.04 (2027-06-01), CUDA 12.9 (2027-08-18) and R580. */
    assert_string_equal(json_string_value(json_object_get(eol, "date")), "2026-08-06");
    json_t *reaches = json_object_get(eol, "reaches");
    assert_int_equal(json_array_size(reaches), 1);
    json_t *r0 = json_array_get(reaches, 0);
    assert_string_equal(json_string_value(json_object_get(r0, "component")), "pytorch");
    assert_string_equal(json_string_value(json_object_get(r0, "release")), "2.8");
    assert_string_equal(json_string_value(json_object_get(r0, "basis")), "aws-dlc");
    assert_string_equal(json_string_value(json_object_get(r0, "status")), "SECONDARY");
    json_t *stack = json_object_get(eol, "stack");
    if (json_array_size(stack) != 5) {
        char *t = json_dumps(stack, 0);
        fail_msg("stack: %s", t);
    }
    const char *want[][3] = { { "pytorch", "2.8", "2026-08-06" },
                              { "python", "3.10", "2026-10-31" },
                              { "os", "ubuntu 22.04", "2027-06-01" },
                              { "cuda", "12.9", "2027-08-18" } };
    for (size_t i = 0; i < 4; i++) {
        json_t *p = json_array_get(stack, i);
        assert_string_equal(json_string_value(json_object_get(p, "component")), want[i][0]);
        assert_string_equal(json_string_value(json_object_get(p, "release")), want[i][1]);
        assert_string_equal(json_string_value(json_object_get(p, "eol")), want[i][2]);
        assert_non_null(json_string_value(json_object_get(p, "source")));
    }
    assert_string_equal(json_string_value(json_object_get(json_array_get(stack, 4), "component")),
                        "nvidia-driver");
    json_decref(doc);
    /* Amazon Linux 2 (os-release ID amzn): 2026-06-30, before Python 3.12's 2028-10-31. */
    snprintf(path, sizeof path, "/v1/images/%lld/eol", al2);
    call(alice, "GET", path, NULL, 200, &doc);
    eol = json_object_get(doc, "eol");
    assert_string_equal(json_string_value(json_object_get(eol, "date")), "2026-06-30");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(eol, "reaches"), 0), "release")),
                        "amzn 2");
    json_decref(doc);
    /* The Enterprise Linux releases dated by 0350 (tools/reference/eol_0350.csv): Red Hat's end
     * of Maintenance Support, and Rocky's own end of life (the same day for 9). */
    const char *el[][4] = { { "eol-rhel8", "rhel", "8.10", "2029-05-31" },
                            { "eol-rhel9", "rhel", "9.6", "2032-05-31" },
                            { "eol-rocky9", "rocky", "9.5", "2032-05-31" } };
    for (size_t i = 0; i < sizeof el / sizeof el[0]; i++) {
        long long id = publish_os(el[i][0], el[i][1], el[i][2],
                                  "[{\"name\":\"nccl\",\"version\":\"2.26.2\"}]");
        assert_true(id > 0);
        snprintf(path, sizeof path, "/v1/images/%lld/eol", id);
        call(alice, "GET", path, NULL, 200, &doc);
        eol = json_object_get(doc, "eol");
        const char *date = json_string_value(json_object_get(eol, "date"));
        if (!date || strcmp(date, el[i][3]) != 0)
            fail_msg("%s %s: end of life %s, want %s", el[i][1], el[i][2], date ? date : "none",
                     el[i][3]);
        json_t *r = json_array_get(json_object_get(eol, "reaches"), 0);
        char release[32];
        snprintf(release, sizeof release, "%s %c", el[i][1], el[i][2][0]);
        assert_string_equal(json_string_value(json_object_get(r, "release")), release);
        assert_string_equal(json_string_value(json_object_get(r, "basis")), "upstream");
        json_decref(doc);
    }

    /* eol_before: strictly before the date; an image with no dated part never passes. */
    call(alice, "GET", "/v1/images?family=eol-full&eol_before=2026-08-07", NULL, 200, &doc);
    assert_int_equal(json_array_size(json_object_get(doc, "items")), 1);
    json_decref(doc);
    call(alice, "GET", "/v1/images?family=eol-full&eol_before=2026-08-06", NULL, 200, &doc);
    assert_int_equal(json_array_size(json_object_get(doc, "items")), 0);
    json_decref(doc);
    call(alice, "GET", "/v1/images?family=eol-none&eol_before=9999-12-31", NULL, 200, &doc);
    assert_int_equal(json_array_size(json_object_get(doc, "items")), 0);
    json_decref(doc);
    call(alice, "GET", "/v1/images?eol_before=2026-07-01&status=any&limit=100", NULL, 200, &doc);
    size_t n = json_array_size(json_object_get(doc, "items"));
    bool saw_al2 = false, saw_full = false;
    for (size_t i = 0; i < n; i++) {
        long long id = json_integer_value(
            json_object_get(json_array_get(json_object_get(doc, "items"), i), "id"));
        saw_al2 = saw_al2 || id == al2;
        saw_full = saw_full || id == full;
    }
    assert_true(saw_al2 && !saw_full);
    json_decref(doc);
    call(alice, "GET", "/v1/images?eol_before=2026-02-30", NULL, 400, NULL);
    call(alice, "GET", "/v1/images?eol_before=soon", NULL, 400, NULL);

    /* Pins: the filter on the list, the pin's eol in its document and its own view. */
    char body[256];
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"full\",\"image\":%lld}", full);
    call(alice, "POST", "/v1/pins", body, 201, &doc);
    long long pin = json_integer_value(json_object_get(doc, "id"));
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "eol"), "date")),
                        "2026-08-06");
    assert_int_equal(json_integer_value(json_object_get(doc, "kev_count")), 0);
    json_decref(doc);
    call(alice, "GET", "/v1/pins?team=team-a&eol_before=2026-09-01", NULL, 200, &doc);
    json_t *items = json_object_get(doc, "items");
    bool saw_pin = false;
    for (size_t i = 0; i < json_array_size(items); i++) {
        json_t *it = json_array_get(items, i);
        const char *date = json_string_value(json_object_get(json_object_get(it, "eol"), "date"));
        assert_non_null(date);
        assert_true(strcmp(date, "2026-09-01") < 0);
        saw_pin = saw_pin || json_integer_value(json_object_get(it, "id")) == pin;
    }
    assert_true(saw_pin);
    json_decref(doc);
    call(alice, "GET", "/v1/pins?team=team-a&eol_before=2026-08-06", NULL, 200, &doc);
    items = json_object_get(doc, "items");
    for (size_t i = 0; i < json_array_size(items); i++)
        assert_true(json_integer_value(json_object_get(json_array_get(items, i), "id")) != pin);
    json_decref(doc);
    call(alice, "GET", "/v1/pins?team=team-a&eol_before=2026-13-01", NULL, 400, NULL);
    snprintf(path, sizeof path, "/v1/pins/%lld/eol", pin);
    call(alice, "GET", path, NULL, 200, &doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "image_id")), full);
    assert_string_equal(json_string_value(json_object_get(doc, "name")), "full");
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "eol"), "date")),
                        "2026-08-06");
    json_decref(doc);
    struct imx_res res; /* not bob's team's pin */
    assert_int_equal(imx_t_http_as(&srv, bob, "GET", path, NULL, &res), 0);
    assert_true(res.status == 403 || res.status == 404);
    imx_t_res_free(&res);
    call(alice, "GET", "/v1/pins/99999999/eol", NULL, 404, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_image_shows_its_earliest_end_of_life),
        cmocka_unit_test(thresholds_fire_once_each_as_the_clock_moves),
        cmocka_unit_test(the_whole_stack_is_dated_and_filters_by_it),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
