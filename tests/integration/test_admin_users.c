/* Administration of people and teams against the real server: GET /v1/users, PATCH
 * /v1/users/{id} (name, admin flag, disabled) and PATCH /v1/teams/{slug}, with membership role
 * changes and removals; that a disabled user's sign-in and API token stop working on their very
 * next request (after both were remembered by the principal cache), that enabling restores them,
 * that an admin cannot lock themselves out, bad input is refused changing nothing, only global
 * admins may do any of it, and every change lands in the audit log; that a disabled team keeps
 * its reads, refuses every write in it with a 403 that says how to enable it again (pins, webhooks,
 * tokens, members, images, requests and their transitions and comments, measurements, node
 * reports; sign-ins and API tokens alike), queues nothing for its
 * webhooks and holds what they had queued, and that enabling it restores all of that. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], ana[4096], vic[4096];
static char ana_api[128];
static long long ana_id, admin_id;

#define ANA "ana@ops.test"
#define VIC "vic@ops.test"

static long long user_id_of(const char *token)
{
    struct imx_res res;
    if (imx_t_http_as(&srv, token, "GET", "/v1/me", NULL, &res) != 0 || res.status != 200)
        return 0;
    long long id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    return id;
}

static int setup(void **state)
{
    (void)state;
    /* Webhooks to a port where nothing listens: every delivery attempt fails, and is counted. */
    static const char *const env[] = { "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9", NULL };
    if (imx_t_server_up(&srv, "admin_users", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "ops", ANA, "admin", ana, sizeof ana) != 0 ||
        imx_t_user(&srv, admin, "ops", VIC, "viewer", vic, sizeof vic) != 0)
        return -1;
    struct imx_res res;
    if (imx_t_http_as(&srv, ana, "POST", "/v1/tokens",
                      "{\"name\":\"ci\",\"team\":\"ops\",\"role\":\"member\"}", &res) != 0 ||
        res.status != 201) {
        fprintf(stderr, "token: %ld %s\n", res.status, res.body);
        imx_t_res_free(&res);
        return -1;
    }
    snprintf(ana_api, sizeof ana_api, "%s", json_string_value(json_object_get(res.json, "token")));
    imx_t_res_free(&res);
    ana_id = user_id_of(ana);
    admin_id = user_id_of(admin);
    return ana_id > 0 && admin_id > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

/* One request; asserts the status and returns the answer's JSON (new reference, may be NULL). */
static json_t *call(const char *token, const char *method, const char *path, const char *body,
                    long status)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, method, path, body, &res), 0);
    if (res.status != status)
        fprintf(stderr, "%s %s: expected %ld, got %ld: %s\n", method, path, status, res.status,
                res.body);
    assert_int_equal(res.status, status);
    json_t *doc = json_incref(res.json);
    imx_t_res_free(&res);
    return doc;
}

/* The newest audit row of resource/action (new reference; fails when none). */
static json_t *last_audit(const char *resource, const char *action)
{
    char path[256];
    snprintf(path, sizeof path, "/v1/audit?resource=%s&action=%s&limit=1", resource, action);
    json_t *doc = call(admin, "GET", path, NULL, 200);
    json_t *row = json_incref(json_array_get(json_object_get(doc, "items"), 0));
    json_decref(doc);
    if (!row)
        fail_msg("no audit row %s/%s", resource, action);
    return row;
}

static void the_user_list_shows_teams_and_pages(void **state)
{
    (void)state;
    json_t *doc = call(admin, "GET", "/v1/users?q=ANA@ops", NULL, 200);
    json_t *items = json_object_get(doc, "items");
    assert_int_equal(json_array_size(items), 1);
    json_t *u = json_array_get(items, 0);
    assert_string_equal(json_string_value(json_object_get(u, "email")), ANA);
    assert_true(json_is_null(json_object_get(u, "disabled_at")));
    assert_null(json_object_get(u, "password_hash"));
    json_t *t = json_array_get(json_object_get(u, "teams"), 0);
    assert_string_equal(json_string_value(json_object_get(t, "slug")), "ops");
    assert_string_equal(json_string_value(json_object_get(t, "role")), "admin");
    json_decref(doc);

    /* Three users, two a page: the cursor reaches the third, newest first. */
    doc = call(admin, "GET", "/v1/users?limit=2", NULL, 200);
    assert_int_equal(json_array_size(json_object_get(doc, "items")), 2);
    const char *cur = json_string_value(json_object_get(doc, "next_cursor"));
    assert_non_null(cur);
    char path[256];
    snprintf(path, sizeof path, "/v1/users?limit=2&cursor=%s", cur);
    json_decref(doc);
    doc = call(admin, "GET", path, NULL, 200);
    assert_int_equal(json_array_size(json_object_get(doc, "items")), 1);
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(json_object_get(doc, "items"), 0), "id")),
        admin_id);
    json_decref(doc);

    /* Only global admins: a team admin is refused. */
    json_decref(call(ana, "GET", "/v1/users", NULL, 403));
    json_decref(call(admin, "GET", "/v1/users?cursor=nonsense", NULL, 400));
}

static void a_disabled_user_is_out_at_once_and_back_when_enabled(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/v1/users/%lld", ana_id);
    /* Both credentials work, and are remembered by the principal cache. */
    for (int i = 0; i < 2; i++) {
        json_decref(call(ana, "GET", "/v1/teams/ops", NULL, 200));
        json_decref(call(ana_api, "GET", "/v1/pins?team=ops", NULL, 200));
    }
    json_t *u = call(admin, "PATCH", path, "{\"disabled\":true}", 200);
    assert_true(json_is_string(json_object_get(u, "disabled_at")));
    json_decref(u);
    json_decref(call(ana, "GET", "/v1/teams/ops", NULL, 401));
    json_decref(call(ana_api, "GET", "/v1/pins?team=ops", NULL, 401));
    json_decref(call(ana, "GET", "/v1/me", NULL, 401));
    char tok[4096];
    assert_int_equal(imx_t_login(&srv, ANA, "pw-" ANA, tok, sizeof tok), 401);
    json_t *row = last_audit("user", "disable");
    char id[24];
    snprintf(id, sizeof id, "%lld", ana_id);
    assert_string_equal(json_string_value(json_object_get(row, "resource_id")), id);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(row, "actor"), "id")),
                     admin_id);
    json_decref(row);

    /* Disabling again keeps the first time. */
    json_t *again = call(admin, "PATCH", path, "{\"disabled\":true}", 200);
    json_decref(again);

    u = call(admin, "PATCH", path, "{\"disabled\":false}", 200);
    assert_true(json_is_null(json_object_get(u, "disabled_at")));
    json_decref(u);
    json_decref(call(ana, "GET", "/v1/teams/ops", NULL, 200));
    json_decref(call(ana_api, "GET", "/v1/pins?team=ops", NULL, 200));
    assert_int_equal(imx_t_login(&srv, ANA, "pw-" ANA, tok, sizeof tok), 200);
    json_decref(last_audit("user", "enable"));
}

static void names_and_the_admin_flag_change_and_are_audited(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/v1/users/%lld", ana_id);
    json_t *u = call(admin, "PATCH", path, "{\"display_name\":\"Ana Ops\",\"admin\":true}", 200);
    assert_string_equal(json_string_value(json_object_get(u, "display_name")), "Ana Ops");
    assert_true(json_is_true(json_object_get(u, "admin")));
    json_decref(u);
    /* The flag counts on the next request: ana now lists users. */
    json_decref(call(ana, "GET", "/v1/users", NULL, 200));
    json_t *row = last_audit("user", "update");
    assert_true(json_is_true(json_object_get(json_object_get(row, "detail"), "admin")));
    json_decref(row);
    json_decref(call(admin, "PATCH", path, "{\"admin\":false}", 200));
    json_decref(call(ana, "GET", "/v1/users", NULL, 403));
}

static void bad_changes_are_refused_and_change_nothing(void **state)
{
    (void)state;
    char path[64], self[64];
    snprintf(path, sizeof path, "/v1/users/%lld", ana_id);
    snprintf(self, sizeof self, "/v1/users/%lld", admin_id);
    json_decref(call(admin, "PATCH", path, "{}", 400));
    json_decref(call(admin, "PATCH", path, "{\"disabled\":\"yes\"}", 400));
    json_decref(call(admin, "PATCH", path, "{\"email\":\"x@y.test\"}", 400));
    char big[400] = "{\"display_name\":\"";
    memset(big + strlen(big), 'n', 201);
    big[17 + 201] = '\0';
    strcat(big, "\"}");
    json_decref(call(admin, "PATCH", path, big, 400));
    json_decref(call(admin, "PATCH", "/v1/users/999999", "{\"disabled\":true}", 404));
    json_decref(call(admin, "PATCH", "/v1/users/abc", "{\"disabled\":true}", 404));
    /* No lock-out: not yourself. */
    json_decref(call(admin, "PATCH", self, "{\"disabled\":true}", 409));
    json_decref(call(admin, "PATCH", self, "{\"admin\":false}", 409));
    /* Only global admins: a team admin cannot disable a member of their team. */
    json_t *v = call(admin, "GET", "/v1/users?q=vic@", NULL, 200);
    char vpath[64];
    snprintf(
        vpath, sizeof vpath, "/v1/users/%lld",
        json_integer_value(json_object_get(json_array_get(json_object_get(v, "items"), 0), "id")));
    json_decref(v);
    json_decref(call(ana, "PATCH", vpath, "{\"disabled\":true}", 403));
    json_decref(call(vic, "GET", "/v1/teams/ops", NULL, 200));
    json_t *u = call(admin, "GET", "/v1/users?q=ana@ops", NULL, 200);
    json_t *a = json_array_get(json_object_get(u, "items"), 0);
    assert_true(json_is_null(json_object_get(a, "disabled_at")));
    assert_true(json_is_false(json_object_get(a, "admin")));
    json_decref(u);
}

static void teams_are_renamed_and_roles_change(void **state)
{
    (void)state;
    json_t *t = call(admin, "PATCH", "/v1/teams/ops", "{\"name\":\"Operations\"}", 200);
    assert_string_equal(json_string_value(json_object_get(t, "name")), "Operations");
    json_decref(t);
    t = call(vic, "GET", "/v1/teams/ops", NULL, 200);
    assert_string_equal(json_string_value(json_object_get(t, "name")), "Operations");
    json_decref(t);
    json_t *row = last_audit("team", "update");
    assert_string_equal(json_string_value(json_object_get(row, "resource_id")), "ops");
    json_decref(row);
    json_decref(call(admin, "PATCH", "/v1/teams/ops", "{\"name\":\"\"}", 400));
    json_decref(call(admin, "PATCH", "/v1/teams/ops", "{\"slug\":\"x\",\"name\":\"X\"}", 400));
    json_decref(call(admin, "PATCH", "/v1/teams/nope", "{\"name\":\"Nope\"}", 404));
    json_decref(call(ana, "PATCH", "/v1/teams/ops", "{\"name\":\"Mine\"}", 403));

    /* A membership's role changes (vic: viewer -> publisher), then the member is removed: both
     * audited, and the removed member is out of the team on the next request (403: in no team
     * at all now, so the route's own role check refuses before the team's 404). */
    json_t *m = call(admin, "PUT", "/v1/teams/ops/members/" VIC, "{\"role\":\"publisher\"}", 200);
    assert_string_equal(json_string_value(json_object_get(m, "role")), "publisher");
    json_decref(m);
    json_decref(last_audit("membership", "set_role"));
    json_decref(call(admin, "DELETE", "/v1/teams/ops/members/" VIC, NULL, 204));
    json_decref(last_audit("membership", "delete"));
    json_decref(call(vic, "GET", "/v1/teams/ops", NULL, 403));
}

/* An SQL value as a number (the test's own database). */
static long long sql_ll(const char *sql)
{
    char *v = imx_t_sql(db, sql);
    long long n = v ? atoll(v) : -1;
    free(v);
    return n;
}

/* Whether the problem answered to a write names the disabled team and how to enable it. */
static void refused_as_disabled(const char *token, const char *method, const char *path,
                                const char *body)
{
    struct imx_res res;
    char auth[4200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    /* The bulk imports take NDJSON and CSV; everything else JSON. An image's change needs the ETag
     * read first as If-Match (without it the answer is 428, before any team is looked at). */
    char if_match[160] = "X-None: 1", etag[128];
    if (strcmp(method, "PATCH") == 0 && strncmp(path, "/v1/images/", 11) == 0) {
        assert_int_equal(imx_t_http_as(&srv, token, "GET", path, NULL, &res), 0);
        assert_non_null(imx_t_header(&res, "ETag", etag, sizeof etag));
        snprintf(if_match, sizeof if_match, "If-Match: %s", etag);
        imx_t_res_free(&res);
    }
    const char *type = strstr(path, "/v1/images:import") ? "Content-Type: application/x-ndjson"
                       : strstr(path, "/v1/measurements:import") ? "Content-Type: text/csv"
                                                                 : "Content-Type: application/json";
    const char *headers[] = { auth, type, if_match, NULL };
    assert_int_equal(imx_t_http(&srv, method, path, headers, body, &res), 0);
    if (res.status != 403)
        fail_msg("%s %s: expected 403, got %ld: %s", method, path, res.status, res.body);
    const char *detail = json_string_value(json_object_get(res.json, "detail"));
    assert_non_null(detail);
    if (!strstr(detail, "Team 'ops' is disabled") ||
        !strstr(detail, "PATCH /v1/teams/ops with {\"disabled\": false}"))
        fail_msg("%s %s: not the disabled team's answer: %s", method, path, detail);
    imx_t_res_free(&res);
}

static void a_disabled_team_reads_refuses_writes_and_holds_its_webhooks(void **state)
{
    (void)state;
    json_t *w = call(ana, "POST", "/v1/webhooks",
                     "{\"team\":\"ops\",\"url\":\"http://127.0.0.1:9/hook\","
                     "\"events\":[\"pin.moved\"]}",
                     201);
    long long wid = json_integer_value(json_object_get(w, "id"));
    json_decref(w);
    long long team_id = sql_ll("SELECT id FROM teams WHERE slug = 'ops'");
    assert_true(wid > 0 && team_id > 0);
    /* What the team has before it is disabled: an image, a pin on it, an open request. */
    long long img =
        imx_t_publish(&srv, ana, "ops", "ops-base", "2026.12.01",
                      "[{\"name\":\"nvidia-driver\",\"version\":\"580.105.08\"}]", NULL);
    assert_true(img > 0);
    char body[1024];
    snprintf(body, sizeof body, "{\"team\":\"ops\",\"name\":\"p0\",\"image\":%lld}", img);
    json_t *pin = call(ana, "POST", "/v1/pins", body, 201);
    long long pid = json_integer_value(json_object_get(pin, "id"));
    json_decref(pin);
    json_t *rq = call(ana, "POST", "/v1/requests", "{\"team\":\"ops\",\"title\":\"t\"}", 201);
    long long rid = json_integer_value(json_object_get(rq, "id"));
    json_decref(rq);
    assert_true(pid > 0 && rid > 0);

    json_t *t = call(admin, "PATCH", "/v1/teams/ops", "{\"disabled\":true}", 200);
    assert_true(json_is_string(json_object_get(t, "disabled_at")));
    json_decref(t);
    json_t *row = last_audit("team", "disable");
    assert_string_equal(json_string_value(json_object_get(row, "resource_id")), "ops");
    json_decref(row);
    /* Disabling again keeps the first time. */
    json_decref(call(admin, "PATCH", "/v1/teams/ops", "{\"disabled\":true}", 200));

    /* Reads stay, for members and global admins, and the team says it is disabled. */
    t = call(ana, "GET", "/v1/teams/ops", NULL, 200);
    assert_true(json_is_string(json_object_get(t, "disabled_at")));
    json_decref(t);
    json_decref(call(ana, "GET", "/v1/webhooks?team=ops", NULL, 200));
    json_decref(call(ana, "GET", "/v1/pins?team=ops", NULL, 200));

    /* Writes are refused with a 403 that says why: pins, webhooks, tokens, members; for the
     * team's admin, its API token and a global admin alike. */
    refused_as_disabled(ana, "POST", "/v1/pins", "{\"team\":\"ops\",\"name\":\"p1\",\"image\":1}");
    refused_as_disabled(ana_api, "POST", "/v1/pins",
                        "{\"team\":\"ops\",\"name\":\"p1\",\"image\":1}");
    refused_as_disabled(admin, "POST", "/v1/pins",
                        "{\"team\":\"ops\",\"name\":\"p1\",\"image\":1}");
    refused_as_disabled(ana, "POST", "/v1/webhooks",
                        "{\"team\":\"ops\",\"url\":\"http://127.0.0.1:9/h2\","
                        "\"events\":[\"pin.moved\"]}");
    char path[128];
    snprintf(path, sizeof path, "/v1/webhooks/%lld", wid);
    refused_as_disabled(ana, "DELETE", path, NULL);
    snprintf(path, sizeof path, "/v1/webhooks/%lld/test", wid);
    refused_as_disabled(ana, "POST", path, NULL);
    refused_as_disabled(ana, "POST", "/v1/tokens",
                        "{\"name\":\"ci2\",\"team\":\"ops\",\"role\":\"member\"}");
    refused_as_disabled(ana, "PUT", "/v1/teams/ops/members/" VIC, "{\"role\":\"member\"}");
    refused_as_disabled(ana, "DELETE", "/v1/teams/ops/members/" VIC, NULL);
    /* Every other team-scoped write says the same, not a role the caller has: pins moved and
     * deleted, webhooks changed and rotated, images published, imported and changed, requests
     * made, moved (withdrawn by the requesting team, approved by the catalog team) and commented
     * on, measurements and node reports. */
    snprintf(path, sizeof path, "/v1/pins/%lld", pid);
    snprintf(body, sizeof body, "{\"image\":%lld}", img);
    refused_as_disabled(ana, "PUT", path, body);
    refused_as_disabled(ana, "DELETE", path, NULL);
    snprintf(path, sizeof path, "/v1/webhooks/%lld", wid);
    refused_as_disabled(ana, "PATCH", path, "{\"events\":[\"ping\"]}");
    snprintf(path, sizeof path, "/v1/webhooks/%lld/rotate-secret", wid);
    refused_as_disabled(ana, "POST", path, NULL);
    refused_as_disabled(ana, "POST", "/v1/images",
                        "{\"team\":\"ops\",\"family\":\"ops-base\",\"version\":\"2026.12.02\","
                        "\"provider\":\"aws\",\"architecture\":\"x86_64\",\"os\":{\"name\":"
                        "\"ubuntu\",\"version\":\"24.04\"},\"layer\":\"platform\","
                        "\"artifacts\":[{\"region\":\"us-east-1\",\"id\":\"ami-2\"}],"
                        "\"components\":[]}");
    refused_as_disabled(ana, "POST", "/v1/images:import",
                        "{\"team\":\"ops\",\"family\":\"ops-base\",\"version\":\"2026.12.03\","
                        "\"provider\":\"aws\",\"architecture\":\"x86_64\",\"os\":{\"name\":"
                        "\"ubuntu\",\"version\":\"24.04\"},\"layer\":\"platform\","
                        "\"artifacts\":[{\"region\":\"us-east-1\",\"id\":\"ami-3\"}],"
                        "\"components\":[]}\n");
    snprintf(path, sizeof path, "/v1/images/%lld", img);
    refused_as_disabled(ana, "PATCH", path, "{\"status\":\"deprecated\"}");
    refused_as_disabled(ana, "POST", "/v1/requests", "{\"team\":\"ops\",\"title\":\"t2\"}");
    snprintf(path, sizeof path, "/v1/requests/%lld/transitions", rid);
    refused_as_disabled(ana, "POST", path, "{\"to\":\"withdrawn\"}");
    refused_as_disabled(ana, "POST", path, "{\"to\":\"approved\"}");
    refused_as_disabled(admin, "POST", path, "{\"to\":\"approved\"}");
    snprintf(path, sizeof path, "/v1/requests/%lld/comments", rid);
    refused_as_disabled(ana, "POST", path, "{\"body\":\"still wanted\"}");
    snprintf(body, sizeof body,
             "{\"team\":\"ops\",\"image\":%lld,\"instance_type\":\"g5.xlarge\",\"model\":"
             "\"m\",\"precision\":\"fp16\",\"batch_size\":8,\"throughput_per_s\":100,"
             "\"measured_at\":\"2026-08-01T00:00:00Z\"}",
             img);
    refused_as_disabled(ana, "POST", "/v1/measurements", body);
    snprintf(body, sizeof body,
             "image,instance_type,model,precision,batch_size,throughput_per_s,measured_at\n"
             "%lld,g5.xlarge,m,fp16,8,100,2026-08-01T00:00:00Z\n",
             img);
    refused_as_disabled(ana, "POST", "/v1/measurements:import?team=ops", body);
    snprintf(body, sizeof body,
             "{\"name\":\"n1\",\"team\":\"ops\",\"image\":{\"id\":%lld},\"probe\":"
             "{\"architecture\":\"x86_64\",\"components\":[]}}",
             img);
    refused_as_disabled(ana, "POST", "/v1/nodes/reports", body);
    /* Taking rights away stays possible: the team's API token is revoked (then refused). */
    json_t *toks = call(ana, "GET", "/v1/tokens", NULL, 200);
    long long tok_id = 0;
    size_t k;
    json_t *tk;
    json_array_foreach(json_object_get(toks, "items"), k, tk)
    {
        if (strcmp(json_string_value(json_object_get(tk, "name")), "ci") == 0)
            tok_id = json_integer_value(json_object_get(tk, "id"));
    }
    json_decref(toks);
    assert_true(tok_id > 0);
    snprintf(path, sizeof path, "/v1/tokens/%lld", tok_id);
    json_decref(call(ana, "DELETE", path, NULL, 204));
    json_decref(call(ana_api, "GET", "/v1/pins?team=ops", NULL, 401));
    /* A transition the request's state does not allow is still a 409 that says so. */
    snprintf(path, sizeof path, "/v1/requests/%lld/transitions", rid);
    json_decref(call(ana, "POST", path, "{\"to\":\"fulfilled\"}", 409));

    /* Its webhooks get nothing new, and what they had queued is not sent. */
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT coalesce(imx_webhook_enqueue(%lld, 'pin.moved', '{}'::jsonb), 0)", team_id);
    assert_int_equal(sql_ll(sql), 0);
    snprintf(sql, sizeof sql,
             "WITH e AS (INSERT INTO webhook_events (team_id, type, data, body) VALUES (%lld, "
             "'pin.moved', '{}', '{}') RETURNING id), d AS (INSERT INTO webhook_deliveries "
             "(event_id, webhook_id, next_attempt_at) SELECT e.id, %lld, now() FROM e RETURNING "
             "id) SELECT d.id, pg_notify('imx_webhooks', '') FROM d",
             team_id, wid);
    long long held = sql_ll(sql);
    assert_true(held > 0);
    snprintf(path, sizeof path, "/v1/deliveries/%lld/redeliver", held);
    refused_as_disabled(ana, "POST", path, NULL);
    snprintf(sql, sizeof sql, "SELECT attempts FROM webhook_deliveries WHERE id = %lld", held);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(sql_ll(sql), 0);
        imx_t_sleep_ms(100);
    }
    snprintf(path, sizeof path, "SELECT count(*) FROM webhooks WHERE id = %lld", wid);
    assert_int_equal(sql_ll(path), 1);

    /* Enabled again: the held delivery is attempted, new events are queued, writes pass. */
    t = call(admin, "PATCH", "/v1/teams/ops", "{\"disabled\":false}", 200);
    assert_true(json_is_null(json_object_get(t, "disabled_at")));
    json_decref(t);
    json_decref(last_audit("team", "enable"));
    long long attempts = 0;
    for (int i = 0; i < 100 && attempts < 1; i++) {
        attempts = sql_ll(sql);
        if (attempts < 1)
            imx_t_sleep_ms(100);
    }
    assert_true(attempts >= 1);
    snprintf(sql, sizeof sql,
             "SELECT coalesce(imx_webhook_enqueue(%lld, 'pin.moved', '{}'::jsonb), 0)", team_id);
    assert_true(sql_ll(sql) > 0);
    snprintf(path, sizeof path, "/v1/webhooks/%lld", wid);
    json_decref(call(ana, "DELETE", path, NULL, 204));
    snprintf(path, sizeof path, "/v1/requests/%lld/comments", rid);
    json_decref(call(ana, "POST", path, "{\"body\":\"still wanted\"}", 201));
    snprintf(path, sizeof path, "/v1/requests/%lld/transitions", rid);
    json_decref(call(ana, "POST", path, "{\"to\":\"withdrawn\"}", 200));

    /* Only global admins disable; bad values change nothing. */
    json_decref(call(ana, "PATCH", "/v1/teams/ops", "{\"disabled\":true}", 403));
    json_decref(call(admin, "PATCH", "/v1/teams/ops", "{\"disabled\":\"yes\"}", 400));
    json_decref(call(admin, "PATCH", "/v1/teams/ops", "{}", 400));
    t = call(ana, "GET", "/v1/teams/ops", NULL, 200);
    assert_true(json_is_null(json_object_get(t, "disabled_at")));
    json_decref(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_user_list_shows_teams_and_pages),
        cmocka_unit_test(a_disabled_user_is_out_at_once_and_back_when_enabled),
        cmocka_unit_test(names_and_the_admin_flag_change_and_are_audited),
        cmocka_unit_test(bad_changes_are_refused_and_change_nothing),
        cmocka_unit_test(a_disabled_team_reads_refuses_writes_and_holds_its_webhooks),
        cmocka_unit_test(teams_are_renamed_and_roles_change),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
