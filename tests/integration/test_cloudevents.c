/* Webhook payloads as CloudEvents 1.0, a per-subscription choice: a subscription with
 * payload_format cloudevents receives the structured JSON event (application/cloudevents+json;
 * specversion, id = webhook-id, type dev.imaxe.<type>, source, time, data), one without receives
 * imaxe's envelope, and the standardwebhooks verifier (tests/integration/webhook_receiver.js)
 * accepts both signatures. The format is read back, changed with PATCH, and checked. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static struct imx_rcv rcv;
static char db[1024];
static char admin[4096], alice[4096];

static int setup(void **state)
{
    (void)state;
    if (imx_t_receiver_init(&rcv, "cloudevents") != 0 || imx_t_receiver_start(&rcv) != 0)
        return -1;
    char allow[64];
    const char *env[IMX_T_RECEIVER_ENV_MAX];
    imx_t_receiver_env(&rcv, NULL, env, allow);
    if (imx_t_server_up(&srv, "cloudevents", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    return imx_t_user(&srv, admin, "team-a", "alice@a.test", "admin", alice, sizeof alice);
}

static int teardown(void **state)
{
    (void)state;
    imx_t_receiver_stop(&rcv);
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

static json_t *call(const char *method, const char *path, const char *body, long status)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, alice, method, path, body, &res), 0);
    if (res.status != status)
        fail_msg("%s %s: expected %ld, got %ld: %s", method, path, status, res.status, res.body);
    json_t *j = json_incref(res.json);
    imx_t_res_free(&res);
    return j;
}

/* Creates a subscription to the receiver's path in format (NULL: not given); registers its
 * secret with the receiver. Returns its id. */
static long long subscribe(const char *path, const char *format)
{
    char body[512];
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"url\":\"http://127.0.0.1:%u%s\",\"events\":[\"ping\"]%s%s%s}",
             rcv.port, path, format ? ",\"payload_format\":\"" : "", format ? format : "",
             format ? "\"" : "");
    json_t *w = call("POST", "/v1/webhooks", body, 201);
    assert_string_equal(json_string_value(json_object_get(w, "payload_format")),
                        format ? format : "imaxe");
    char ctl[512];
    snprintf(ctl, sizeof ctl, "{\"secrets\": {\"%s\": [\"%s\"]}}", path,
             json_string_value(json_object_get(w, "secret")));
    imx_t_receiver_control(&rcv, ctl);
    long long id = json_integer_value(json_object_get(w, "id"));
    json_decref(w);
    return id;
}

/* Sends a ping to subscription id and waits for the receiver to log it at path (a request
 * more than it had). */
static json_t *ping_and_receive(long long id, const char *path)
{
    char p[96];
    json_t *before = imx_t_receiver_log(&rcv, path);
    size_t had = json_array_size(before);
    json_decref(before);
    snprintf(p, sizeof p, "/v1/webhooks/%lld/test", id);
    json_decref(call("POST", p, NULL, 202));
    for (int i = 0; i < 100; i++) {
        json_t *log = imx_t_receiver_log(&rcv, path);
        if (json_array_size(log) > had) {
            json_t *e = json_incref(json_array_get(log, json_array_size(log) - 1));
            json_decref(log);
            return e;
        }
        json_decref(log);
        imx_t_sleep_ms(100);
    }
    fail_msg("no delivery at %s", path);
    return NULL;
}

static void a_subscription_chooses_cloudevents(void **state)
{
    (void)state;
    long long ce = subscribe("/ce", "cloudevents");
    long long plain = subscribe("/plain", NULL);

    json_t *e = ping_and_receive(ce, "/ce");
    assert_true(json_is_true(json_array_get(json_object_get(e, "verified"), 0)));
    assert_string_equal(json_string_value(json_object_get(e, "ct")),
                        "application/cloudevents+json");
    json_t *ev = json_loads(json_string_value(json_object_get(e, "body")), 0, NULL);
    assert_non_null(ev);
    assert_string_equal(json_string_value(json_object_get(ev, "specversion")), "1.0");
    assert_string_equal(json_string_value(json_object_get(ev, "type")), "dev.imaxe.ping");
    assert_string_equal(json_string_value(json_object_get(ev, "source")), "/imaxe");
    assert_string_equal(json_string_value(json_object_get(ev, "id")),
                        json_string_value(json_object_get(e, "id")));
    assert_string_equal(json_string_value(json_object_get(ev, "datacontenttype")),
                        "application/json");
    assert_non_null(json_string_value(json_object_get(ev, "time")));
    assert_true(json_is_object(json_object_get(ev, "data")));
    json_decref(ev);
    json_decref(e);

    e = ping_and_receive(plain, "/plain");
    assert_true(json_is_true(json_array_get(json_object_get(e, "verified"), 0)));
    assert_string_equal(json_string_value(json_object_get(e, "ct")), "application/json");
    ev = json_loads(json_string_value(json_object_get(e, "body")), 0, NULL);
    assert_null(json_object_get(ev, "specversion"));
    assert_string_equal(json_string_value(json_object_get(ev, "type")), "ping");
    json_decref(ev);
    json_decref(e);

    /* PATCH switches the format; the next delivery follows it. */
    char p[96];
    snprintf(p, sizeof p, "/v1/webhooks/%lld", plain);
    json_t *w = call("GET", p, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(w, "payload_format")), "imaxe");
    json_decref(w);
    json_decref(call("PATCH", p, "{\"payload_format\":\"cloudevents\"}", 200));
    e = ping_and_receive(plain, "/plain");
    assert_string_equal(json_string_value(json_object_get(e, "ct")),
                        "application/cloudevents+json");
    assert_true(json_is_true(json_array_get(json_object_get(e, "verified"), 0)));
    json_decref(e);

    /* An unknown format is refused and names the field. */
    json_t *bad =
        call("POST", "/v1/webhooks",
             "{\"team\":\"team-a\",\"url\":\"http://127.0.0.1:9/x\",\"events\":[\"ping\"],"
             "\"payload_format\":\"xml\"}",
             400);
    char *text = json_dumps(bad, 0);
    assert_non_null(strstr(text, "/payload_format"));
    free(text);
    json_decref(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_subscription_chooses_cloudevents),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
