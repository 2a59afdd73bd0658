/* The write path's use cases over HTTP: events in the order a reader expects, advisory revisions
 * and withdrawals (If-Match, audit, patch statuses following), bulk import (per-line errors, all
 * or nothing, Idempotency-Key), and the outbox's retention (nothing stored for nobody, old sent
 * events pruned, pending ones kept, its size in /metrics). */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], pub[4096], alice[4096];

static int setup(void **state)
{
    (void)state;
    static const char *const env[] = { "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9",
                                       "IMAXE_WEBHOOK_POLL_MS=200", NULL };
    if (imx_t_server_up(&srv, "write_path", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "team-a", "pub@a.test", "publisher", pub, sizeof pub) != 0 ||
        imx_t_user(&srv, admin, "team-a", "alice@a.test", "member", alice, sizeof alice) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

static long long sql_ll(const char *q)
{
    char *v = imx_t_sql(db, q);
    assert_non_null(v);
    long long n = atoll(v);
    free(v);
    return n;
}

/* One request with extra headers; the reply stays in res (imx_t_res_free it). */
static void req(const char *token, const char *method, const char *path, const char *ct,
                const char *const *extra, const char *body, struct imx_res *res)
{
    char auth[8192], ctype[128];
    const char *h[8] = { NULL };
    size_t n = 0;
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    h[n++] = auth;
    if (ct) {
        snprintf(ctype, sizeof ctype, "Content-Type: %s", ct);
        h[n++] = ctype;
    }
    for (size_t i = 0; extra && extra[i] && n < 7; i++)
        h[n++] = extra[i];
    assert_int_equal(imx_t_http(&srv, method, path, h, body, res), 0);
}

static long call(const char *token, const char *method, const char *path, const char *body,
                 const char *const *extra, char etag[64])
{
    struct imx_res res;
    req(token, method, path, body ? "application/json" : NULL, extra, body, &res);
    long st = res.status;
    if (etag && !imx_t_header(&res, "ETag", etag, 64))
        etag[0] = '\0';
    imx_t_res_free(&res);
    return st;
}

static const char DRV[] = "[{\"name\":\"nvidia-driver\",\"version\":\"%s\"},"
                          "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]";

static long long publish(const char *family, const char *version, const char *driver)
{
    char comps[256];
    snprintf(comps, sizeof comps, DRV, driver);
    long long id = imx_t_publish(&srv, pub, "team-a", family, version, comps, NULL);
    assert_true(id > 0);
    return id;
}

static const char *patch_status(long long id)
{
    static char out[32];
    char q[128];
    snprintf(q, sizeof q, "SELECT patch_status FROM images WHERE id = %lld", id);
    char *v = imx_t_sql(db, q);
    assert_non_null(v);
    snprintf(out, sizeof out, "%s", v);
    free(v);
    return out;
}

static void nothing_is_stored_for_nobody_and_events_keep_their_order(void **state)
{
    (void)state;
    /* No subscription yet: a publish stores no event. */
    long long before = sql_ll("SELECT count(*) FROM webhook_events");
    long long o1 = publish("ord", "1", "580.82.07");
    assert_int_equal(sql_ll("SELECT count(*) FROM webhook_events"), before);

    assert_int_equal(call(admin, "POST", "/v1/webhooks",
                          "{\"team\":\"team-a\",\"url\":\"http://127.0.0.1:9/h\",\"events\":"
                          "[\"image.published\",\"patch.available\"],\"families\":[\"ord\"]}",
                          NULL, NULL),
                     201);
    assert_int_equal(call(admin, "POST", "/v1/advisories",
                          "{\"id\":\"WP-ORD\",\"title\":\"t\",\"published\":\"2026-01-01\","
                          "\"severity\":\"high\",\"affected\":[{\"component\":\"nvidia-driver\","
                          "\"range\":\">=580, <580.95.05\"}]}",
                          NULL, NULL),
                     201);
    assert_string_equal(patch_status(o1), "vulnerable");
    long long o2 = publish("ord", "2", "580.95.05");
    assert_string_equal(patch_status(o1), "patch_available");
    /* image.published of the fix, then the patch.available it caused. */
    char q[256];
    snprintf(q, sizeof q,
             "SELECT string_agg(type, ',' ORDER BY id) FROM webhook_events"
             " WHERE data->'image'->>'id' = '%lld' OR data->'fixed_by'->>'id' = '%lld'",
             o2, o2);
    char *order = imx_t_sql(db, q);
    assert_non_null(order);
    assert_string_equal(order, "image.published,patch.available");
    free(order);
}

static void advisories_are_revised_and_withdrawn(void **state)
{
    (void)state;
    long long r1 = publish("rev", "1", "570.133.20");
    long long r2 = publish("rev", "2", "580.95.05");
    long long r3 = publish("rev", "3", "580.126.09");
    char etag[64], if_match[96];
    assert_int_equal(call(admin, "POST", "/v1/advisories",
                          "{\"id\":\"WP-REV\",\"title\":\"Driver\",\"published\":\"2026-01-01\","
                          "\"severity\":\"medium\",\"affected\":[{\"component\":\"nvidia-driver\","
                          "\"range\":\">=580, <580.105.08\",\"fixed\":\"580.105.08\"}]}",
                          NULL, etag),
                     201);
    /* The revision, then the digest of its KEV and EPSS data (api/advisories.c). */
    assert_int_equal(strncmp(etag, "\"r1.", 4), 0);
    assert_string_equal(patch_status(r1), "ok");
    assert_string_equal(patch_status(r2), "patch_available");
    long long events = sql_ll("SELECT count(*) FROM patch_events WHERE advisory_id = 'WP-REV'");
    assert_int_equal(events, 1);

    const char *rev = "{\"severity\":\"high\",\"affected\":[{\"component\":\"nvidia-driver\","
                      "\"range\":\">=580, <580.105.08\",\"fixed\":\"580.105.08\"},"
                      "{\"component\":\"nvidia-driver\",\"range\":\"~570\"}]}";
    /* Without If-Match 428; not an admin 403; unknown 404; a bad field 400. */
    assert_int_equal(call(admin, "PATCH", "/v1/advisories/WP-REV", rev, NULL, NULL), 428);
    snprintf(if_match, sizeof if_match, "If-Match: %s", etag);
    const char *h[] = { if_match, NULL };
    assert_int_equal(call(pub, "PATCH", "/v1/advisories/WP-REV", rev, h, NULL), 403);
    assert_int_equal(call(admin, "PATCH", "/v1/advisories/NOPE", rev, h, NULL), 404);
    assert_int_equal(
        call(admin, "PATCH", "/v1/advisories/WP-REV", "{\"severity\":\"dire\"}", h, NULL), 400);
    assert_int_equal(call(admin, "PATCH", "/v1/advisories/WP-REV", "{\"source\":\"osv\"}", h, NULL),
                     400);
    /* A new branch: R570 images become affected; the R580 fix is not announced again. */
    assert_int_equal(call(admin, "PATCH", "/v1/advisories/WP-REV", rev, h, etag), 200);
    assert_int_equal(strncmp(etag, "\"r2.", 4), 0);
    assert_string_equal(patch_status(r1), "patch_available"); /* r2 is not R570-affected */
    assert_int_equal(sql_ll("SELECT count(*) FROM patch_events WHERE advisory_id = 'WP-REV'"
                            " AND kind = 'family' AND fixed_by = (SELECT id FROM images"
                            " WHERE family = 'rev' AND version = '3')"),
                     1);
    /* The old ETag (still in if_match) is stale now. */
    assert_int_equal(call(admin, "PATCH", "/v1/advisories/WP-REV", "{\"title\":\"x\"}", h, NULL),
                     412);
    /* Title only: ranges and statuses stay. */
    snprintf(if_match, sizeof if_match, "If-Match: %s", etag);
    assert_int_equal(
        call(admin, "PATCH", "/v1/advisories/WP-REV", "{\"title\":\"Driver, rev\"}", h, etag), 200);
    assert_string_equal(patch_status(r1), "patch_available");
    assert_int_equal(sql_ll("SELECT count(*) FROM advisory_ranges WHERE advisory_id = 'WP-REV'"),
                     2);

    /* Withdrawn: nothing affected any more; GET says so; twice or a revision after is 409. */
    snprintf(if_match, sizeof if_match, "If-Match: %s", etag);
    assert_int_equal(call(admin, "DELETE", "/v1/advisories/WP-REV?reason=duplicate", NULL, h, NULL),
                     200);
    assert_string_equal(patch_status(r1), "ok");
    assert_string_equal(patch_status(r2), "ok");
    assert_string_equal(patch_status(r3), "ok");
    struct imx_res res;
    req(alice, "GET", "/v1/advisories/WP-REV", NULL, NULL, NULL, &res);
    assert_int_equal(res.status, 200);
    assert_true(json_is_string(json_object_get(res.json, "withdrawn_at")));
    assert_string_equal(json_string_value(json_object_get(res.json, "withdrawn_reason")),
                        "duplicate");
    assert_int_equal(json_integer_value(json_object_get(res.json, "affected_images")), 0);
    imx_t_res_free(&res);
    assert_int_equal(call(admin, "DELETE", "/v1/advisories/WP-REV", NULL, NULL, NULL), 409);
    assert_int_equal(call(admin, "PATCH", "/v1/advisories/WP-REV", "{\"title\":\"y\"}", NULL, NULL),
                     428);
    req(admin, "GET", "/v1/advisories/WP-REV", NULL, NULL, NULL, &res);
    imx_t_header(&res, "ETag", etag, sizeof etag);
    imx_t_res_free(&res);
    snprintf(if_match, sizeof if_match, "If-Match: %s", etag);
    assert_int_equal(call(admin, "PATCH", "/v1/advisories/WP-REV", "{\"title\":\"y\"}", h, NULL),
                     409);
    /* A withdrawn advisory announces nothing when a fix is published later. */
    long long before = sql_ll("SELECT count(*) FROM patch_events");
    publish("rev", "4", "580.126.10");
    assert_int_equal(sql_ll("SELECT count(*) FROM patch_events"), before);
    assert_int_equal(sql_ll("SELECT count(*) FROM audit_log WHERE resource = 'advisory'"
                            " AND resource_id = 'WP-REV' AND action IN ('create', 'revise',"
                            " 'withdraw')"),
                     4);
}

static const char LINE[] =
    "{\"team\":\"team-a\",\"family\":\"%s\",\"version\":\"%s\",\"provider\":\"aws\","
    "\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":\"24.04\"},"
    "\"layer\":\"platform\",\"artifacts\":[{\"region\":\"us-east-1\",\"id\":\"ami-1\"}],"
    "\"components\":[{\"name\":\"nvidia-driver\",\"version\":\"%s\"}]}\n";

static void import_is_all_or_nothing_and_idempotent(void **state)
{
    (void)state;
    char body[16384];
    size_t n = 0;
    for (int i = 1; i <= 5; i++) {
        char v[16];
        snprintf(v, sizeof v, "%d", i);
        n += (size_t)snprintf(body + n, sizeof body - n, LINE, "imp", v,
                              i < 5 ? "580.82.07" : "580.126.09");
        if (i == 2)
            n += (size_t)snprintf(body + n, sizeof body - n, "\n"); /* a blank line */
    }
    struct imx_res res;
    /* Wrong media type. */
    req(pub, "POST", "/v1/images:import", "application/json", NULL, body, &res);
    imx_t_assert_problem(&res, 415);
    imx_t_res_free(&res);
    /* A member may not publish: 403, nothing stored. */
    req(alice, "POST", "/v1/images:import", "application/x-ndjson", NULL, body, &res);
    assert_int_equal(res.status, 403);
    imx_t_res_free(&res);

    /* One bad line (4, after the blank one: line 5 of the body) and a duplicate refuse all. */
    char bad[20000];
    snprintf(bad, sizeof bad, "%s{\"team\":\"team-a\"}\nnot json\n", body);
    char dup[1024];
    snprintf(dup, sizeof dup, LINE, "imp", "1", "580.82.07");
    strncat(bad, dup, sizeof bad - strlen(bad) - 1);

    req(pub, "POST", "/v1/images:import", "application/x-ndjson", NULL, bad, &res);
    imx_t_assert_problem(&res, 400);
    json_t *errors = json_object_get(res.json, "errors");
    bool saw_missing = false, saw_json = false, saw_dup = false;
    size_t i;
    json_t *e;
    json_array_foreach(errors, i, e)
    {
        long long line = json_integer_value(json_object_get(e, "line"));
        const char *ptr = json_string_value(json_object_get(e, "pointer"));
        saw_missing |= line == 7 && ptr && strcmp(ptr, "/family") == 0;
        saw_json |= line == 8;
        saw_dup |= line == 9 && ptr && strcmp(ptr, "/version") == 0;
    }
    imx_t_res_free(&res);
    assert_true(saw_missing);
    assert_true(saw_json);
    assert_true(saw_dup);
    assert_int_equal(sql_ll("SELECT count(*) FROM images WHERE family = 'imp'"), 0);

    /* Well-formed lines whose parents are checked together (one statement): line 2 names an
     * image that does not exist, line 1 one that does; nothing is imported. */
    char parents[4096], child[1024];
    long long parent = sql_ll("SELECT min(id) FROM images");
    snprintf(child, sizeof child, LINE, "imp-child", "1", "580.82.07");
    snprintf(parents, sizeof parents, "{\"parent\":%lld,%s{\"parent\":999999,", parent, child + 1);
    snprintf(child, sizeof child, LINE, "imp-child", "2", "580.82.07");
    strncat(parents, child + 1, sizeof parents - strlen(parents) - 1);
    req(pub, "POST", "/v1/images:import", "application/x-ndjson", NULL, parents, &res);
    imx_t_assert_problem(&res, 400);
    json_t *pe = json_array_get(json_object_get(res.json, "errors"), 0);
    assert_int_equal(json_array_size(json_object_get(res.json, "errors")), 1);
    assert_int_equal(json_integer_value(json_object_get(pe, "line")), 2);
    assert_string_equal(json_string_value(json_object_get(pe, "pointer")), "/parent");
    imx_t_res_free(&res);
    assert_int_equal(sql_ll("SELECT count(*) FROM images WHERE family = 'imp-child'"), 0);

    /* The good file, with a key; the same again replays; another body with the key is 422. */
    const char *key[] = { "Idempotency-Key: import-1", NULL };
    req(pub, "POST", "/v1/images:import", "application/x-ndjson", key, body, &res);
    assert_int_equal(res.status, 201);
    assert_int_equal(json_integer_value(json_object_get(res.json, "imported")), 5);
    json_t *first = json_array_get(json_object_get(res.json, "images"), 0);
    assert_int_equal(json_integer_value(json_object_get(first, "line")), 1);
    json_t *last = json_array_get(json_object_get(res.json, "images"), 4);
    assert_int_equal(json_integer_value(json_object_get(last, "line")), 6);
    char *first_body = strdup(res.body);
    imx_t_res_free(&res);
    assert_int_equal(sql_ll("SELECT count(*) FROM images WHERE family = 'imp'"), 5);
    req(pub, "POST", "/v1/images:import", "application/x-ndjson", key, body, &res);
    assert_int_equal(res.status, 201);
    char replayed[16];
    assert_non_null(imx_t_header(&res, "Idempotent-Replayed", replayed, sizeof replayed));
    assert_string_equal(res.body, first_body);
    imx_t_res_free(&res);
    free(first_body);
    assert_int_equal(sql_ll("SELECT count(*) FROM images WHERE family = 'imp'"), 5);
    char other[2048];
    snprintf(other, sizeof other, LINE, "imp", "6", "580.82.07");
    req(pub, "POST", "/v1/images:import", "application/x-ndjson", key, other, &res);
    assert_int_equal(res.status, 422);
    imx_t_res_free(&res);
    /* Without a key the same file conflicts with what it published: 409, nothing more. */
    req(pub, "POST", "/v1/images:import", "application/x-ndjson", NULL, body, &res);
    assert_int_equal(res.status, 409);
    imx_t_res_free(&res);
    assert_int_equal(sql_ll("SELECT count(*) FROM images WHERE family = 'imp'"), 5);
    /* The imported images got their patch state and compatibility report like a publish. */
    assert_int_equal(sql_ll("SELECT count(*) FROM images WHERE family = 'imp'"
                            " AND compatibility <> '{}'::jsonb"),
                     5);
}

static void the_outbox_is_pruned_past_its_retention(void **state)
{
    (void)state;
    /* Every event so far went to a subscription whose endpoint refuses connections: deliveries
     * are pending (retries) or failed. Age one failed and one pending delivery by 40 days, and
     * their events. Which they are is read first: the old test read the events after aging the
     * first delivery, and a prune pass (each second) that fell in between took it, so that "the
     * oldest delivery" was then the pending one, whose event is kept (a flake seen in CI). */
    long long first = sql_ll("SELECT min(id) FROM webhook_deliveries");
    long long second = sql_ll("SELECT id FROM webhook_deliveries ORDER BY id OFFSET 1 LIMIT 1");
    char q[224];
    snprintf(q, sizeof q, "SELECT event_id FROM webhook_deliveries WHERE id = %lld", first);
    long long old_event = sql_ll(q);
    snprintf(q, sizeof q, "SELECT event_id FROM webhook_deliveries WHERE id = %lld", second);
    long long kept_event = sql_ll(q);
    assert_true(old_event > 0 && kept_event > 0 && old_event != kept_event);
    snprintf(q, sizeof q,
             "UPDATE webhook_events SET created_at = now() - interval '40 days'"
             " WHERE id IN (%lld, %lld)",
             old_event, kept_event);
    free(imx_t_sql(db, q));
    /* the pending one first, not due for a day: it cannot be claimed once the other is failed */
    snprintf(q, sizeof q,
             "UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now()"
             " + interval '1 day', updated_at = now() - interval '40 days' WHERE id = %lld",
             second);
    free(imx_t_sql(db, q));
    snprintf(q, sizeof q,
             "UPDATE webhook_deliveries SET state = 'failed', next_attempt_at = NULL,"
             " updated_at = now() - interval '40 days' WHERE id = %lld",
             first);
    free(imx_t_sql(db, q));
    snprintf(q, sizeof q, "SELECT count(*) FROM webhook_events WHERE id = %lld", old_event);
    for (int i = 0; i < 50 && sql_ll(q) != 0; i++)
        imx_t_sleep_ms(100);
    assert_int_equal(sql_ll(q), 0);
    snprintf(q, sizeof q, "SELECT count(*) FROM webhook_events WHERE id = %lld", kept_event);
    assert_int_equal(sql_ll(q), 1);
    struct imx_res res;
    assert_int_equal(imx_t_http(&srv, "GET", "/metrics", NULL, NULL, &res), 0);
    assert_non_null(strstr(res.body, "imaxe_webhook_outbox_pending "));
    assert_non_null(strstr(res.body, "imaxe_webhook_outbox_events "));
    imx_t_res_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nothing_is_stored_for_nobody_and_events_keep_their_order),
        cmocka_unit_test(advisories_are_revised_and_withdrawn),
        cmocka_unit_test(import_is_all_or_nothing_and_idempotent),
        cmocka_unit_test(the_outbox_is_pruned_past_its_retention),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
