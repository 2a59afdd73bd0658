/* The incremental patch state against an oracle: random sequences of publishes, advisory
 * publishes, revisions and withdrawals (over GPU stack components and over OS packages: images
 * carry dpkg inventories, advisories Ubuntu package ranges), deprecations, revocations (cascading
 * and scheduled, then due), restores and pin creates, moves and deletes, all through the API; after
 * every step the server's image_advisories, fixed_by, patch_status, os_patch_status, pin fixes and
 * staged patch.available events must equal a from-scratch recomputation
 * (tests/integration/patch_oracle.sql), and every staged event must have reached the outbox once.
 * IMX_ORACLE_SEED and IMX_ORACLE_STEPS override the seeds (a list) and the length. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_IDS 512

static struct imx_srv srv;
static char db[1024];
static char admin[4096];

static long long images[MAX_IDS];
static size_t n_images;
static char advisories[64][32];
static size_t n_advisories;
static long long pins[64];
static size_t n_pins;
static unsigned seed;

static const char *const FAMILIES[] = { "fam-a", "fam-b", "fam-c" };
static const char *const DRIVERS[] = { "580.65.06",  "580.82.07",  "580.95.05",
                                       "580.105.08", "580.126.09", "570.133.20" };
static const char *const TOOLKITS[] = { "1.16.1", "1.17.3", "1.17.8" };
static const char *const CUDAS[] = { "12.8.1", "13.0.2" };
/* OS package versions an image may hold (openssl and its binary libssl3t64, in dpkg order). */
static const char *const OPENSSLS[] = { "3.0.13-0ubuntu3.1", "3.0.13-0ubuntu3.4",
                                        "3.0.13-0ubuntu3.5", "3.0.13-0ubuntu3.10",
                                        "3.0.13-0ubuntu3" };
/* Ranges an advisory may carry, over a component or a distro's package. */
static const char *const RANGES[] = {
    "{\"component\":\"nvidia-driver\",\"range\":\">=580, <580.95.05\"}",
    "{\"component\":\"nvidia-driver\",\"range\":\">=580, <580.105.08\"}",
    "{\"component\":\"nvidia-driver\",\"range\":\">=580, <580.126.09\"}",
    "{\"component\":\"nvidia-driver\",\"range\":\"~570\"}",
    "{\"component\":\"nvidia-driver\",\"range\":\"=580.95.05\"}",
    "{\"component\":\"nvidia-container-toolkit\",\"range\":\"<=1.16.1\"}",
    "{\"component\":\"nvidia-container-toolkit\",\"range\":\"<1.17.8\"}",
    "{\"component\":\"cuda\",\"range\":\"12.*\"}",
    "{\"ecosystem\":\"Ubuntu:24.04:LTS\",\"package\":\"openssl\",\"range\":"
    "\"<3.0.13-0ubuntu3.4\",\"fixed\":\"3.0.13-0ubuntu3.4\"}",
    "{\"ecosystem\":\"Ubuntu:24.04:LTS\",\"package\":\"openssl\",\"range\":"
    "\">=3.0.13-0ubuntu3.4, <3.0.13-0ubuntu3.10\"}",
    "{\"ecosystem\":\"Ubuntu:24.04:LTS\",\"package\":\"libssl3t64\",\"range\":"
    "\"<=3.0.13-0ubuntu3.5\"}",
    "{\"ecosystem\":\"Debian:12\",\"package\":\"openssl\",\"range\":\"<3.0.13-0ubuntu3.10\"}",
};
#define N_RANGES (sizeof RANGES / sizeof RANGES[0])
static const char *const PIN_CONSTRAINTS[] = { NULL, "~580", ">=580.82", "<580.126" };

static unsigned rnd(unsigned n)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
}

static int setup(void **state)
{
    (void)state;
    static const char *const env[] = { "IMAXE_WEBHOOK_WORKERS=0",
                                       "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9", NULL };
    if (imx_t_server_up(&srv, "patch_oracle", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/integration/patch_oracle.sql",
             getenv("IMX_TEST_SOURCE_DIR") ? getenv("IMX_TEST_SOURCE_DIR") : ".");
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    static char sql[65536];
    size_t n = fread(sql, 1, sizeof sql - 1, f);
    fclose(f);
    sql[n] = '\0';
    char *ok = imx_t_sql(db, sql);
    if (!ok)
        return -1;
    free(ok);
    struct imx_res res;
    if (imx_t_http_as(&srv, admin, "POST", "/v1/teams", "{\"slug\":\"team-a\",\"name\":\"A\"}",
                      &res) != 0)
        return -1;
    imx_t_res_free(&res);
    /* One subscription that wants every patch.available, so each staged one reaches the outbox. */
    if (imx_t_http_as(&srv, admin, "POST", "/v1/webhooks",
                      "{\"team\":\"team-a\",\"url\":\"http://127.0.0.1:9/hook\","
                      "\"events\":[\"patch.available\"],\"families\":[\"fam-a\",\"fam-b\","
                      "\"fam-c\"]}",
                      &res) != 0 ||
        res.status != 201) {
        fprintf(stderr, "webhook: %ld %s\n", res.status, res.body);
        imx_t_res_free(&res);
        return -1;
    }
    imx_t_res_free(&res);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

static long status_of(const char *method, const char *path, const char *const *extra,
                      const char *body, char *etag_out)
{
    char auth[8192];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", admin);
    const char *headers[6] = { auth, NULL };
    size_t n = 1;
    if (body)
        headers[n++] = "Content-Type: application/json";
    for (size_t i = 0; extra && extra[i] && n < 5; i++)
        headers[n++] = extra[i];
    struct imx_res res;
    if (imx_t_http(&srv, method, path, headers, body, &res) != 0)
        return -1;
    long st = res.status;
    if (etag_out && !imx_t_header(&res, "ETag", etag_out, 64))
        etag_out[0] = '\0';
    if (st >= 500)
        fprintf(stderr, "%s %s: %ld %s\n", method, path, res.status, res.body);
    imx_t_res_free(&res);
    return st;
}

static void op_publish(char *what, size_t len)
{
    char comps[512], version[32];
    const char *fam = FAMILIES[rnd(3)];
    snprintf(version, sizeof version, "v%zu", n_images + 1);
    snprintf(comps, sizeof comps,
             "[{\"name\":\"nvidia-driver\",\"version\":\"%s\"},"
             "{\"name\":\"nvidia-container-toolkit\",\"version\":\"%s\"},"
             "{\"name\":\"cuda\",\"version\":\"%s\"}]",
             DRIVERS[rnd(6)], TOOLKITS[rnd(3)], CUDAS[rnd(2)]);
    /* Three images in four carry an OS package inventory. */
    char pkgs[512] = "";
    if (rnd(4)) {
        const char *v = OPENSSLS[rnd(5)];
        snprintf(pkgs, sizeof pkgs,
                 ",\"packages\":[{\"name\":\"openssl\",\"version\":\"%s\"},{\"name\":"
                 "\"libssl3t64\",\"version\":\"%s\"},{\"name\":\"libc6\",\"version\":"
                 "\"2.39-0ubuntu8.%u\"}]",
                 v, rnd(3) ? v : OPENSSLS[rnd(5)], 3 + rnd(2));
    }
    char body[2048];
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"family\":\"%s\",\"version\":\"%s\",\"provider\":"
             "\"aws\",\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":"
             "\"24.04\"},\"layer\":\"platform\",\"artifacts\":[{\"region\":\"us-east-1\","
             "\"id\":\"ami-%s-%s\"}],\"components\":%s%s}",
             fam, version, fam, version, comps, pkgs);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/images", body, &res), 0);
    if (res.status != 201)
        fail_msg("publish: %ld %s", res.status, res.body);
    long long id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    assert_true(id > 0);
    if (n_images < MAX_IDS)
        images[n_images++] = id;
    snprintf(what, len, "publish %s %s (%lld) %s%s", fam, version, id, comps, pkgs);
}

/* A random advisory body: 1-2 ranges. */
static void advisory_body(char *body, size_t len, const char *id)
{
    unsigned a = rnd(N_RANGES), b = rnd(N_RANGES);
    const char *sev[] = { "low", "medium", "high", "critical" };
    int n = snprintf(body, len,
                     "{%s%s%s\"title\":\"Bulletin %s\",\"published\":\"2026-0%u-1%u\","
                     "\"severity\":\"%s\",\"affected\":[%s",
                     id ? "\"id\":\"" : "", id ? id : "", id ? "\"," : "", id ? id : "x",
                     1 + rnd(9), rnd(9), sev[rnd(4)], RANGES[a]);
    if (b != a && rnd(2))
        n += snprintf(body + n, len - (size_t)n, ",%s", RANGES[b]);
    snprintf(body + n, len - (size_t)n, "]}");
}

static void op_advisory(char *what, size_t len)
{
    char body[1024];
    if (n_advisories == 64)
        return;
    snprintf(advisories[n_advisories], sizeof advisories[0], "ORC-%zu", n_advisories + 1);
    advisory_body(body, sizeof body, advisories[n_advisories]);
    assert_int_equal(status_of("POST", "/v1/advisories", NULL, body, NULL), 201);
    n_advisories++;
    snprintf(what, len, "advisory %s", body);
}

static void op_revise(char *what, size_t len)
{
    if (!n_advisories)
        return;
    const char *id = advisories[rnd((unsigned)n_advisories)];
    char path[64], etag[64], if_match[96], body[1024];
    snprintf(path, sizeof path, "/v1/advisories/%s", id);
    long st = status_of("GET", path, NULL, NULL, etag);
    assert_int_equal(st, 200);
    snprintf(if_match, sizeof if_match, "If-Match: %s", etag);
    const char *h[] = { if_match, NULL };
    if (rnd(4) == 0)
        snprintf(body, sizeof body, "{\"severity\":\"critical\",\"title\":\"revised\"}");
    else
        advisory_body(body, sizeof body, NULL);
    st = status_of("PATCH", path, h, body, NULL);
    /* 409: withdrawn already. */
    if (st != 200 && st != 409)
        fprintf(stderr, "PATCH %s %s: %ld\n", path, body, st);
    assert_true(st == 200 || st == 409);
    snprintf(what, len, "revise %s %s -> %ld", id, body, st);
}

static void op_withdraw(char *what, size_t len)
{
    if (!n_advisories)
        return;
    const char *id = advisories[rnd((unsigned)n_advisories)];
    char path[96];
    snprintf(path, sizeof path, "/v1/advisories/%s?reason=test", id);
    long st = status_of("DELETE", path, NULL, NULL, NULL);
    assert_true(st == 200 || st == 409);
    snprintf(what, len, "withdraw %s -> %ld", id, st);
}

static void op_status(char *what, size_t len)
{
    if (!n_images)
        return;
    long long id = images[rnd((unsigned)n_images)];
    static const char *const bodies[] = {
        "{\"status\":\"deprecated\"}",
        "{\"status\":\"revoked\",\"reason\":\"bad\"}",
        "{\"status\":\"revoked\",\"reason\":\"bad\",\"cascade\":true}",
        "{\"status\":\"active\"}",
        "{\"status\":\"active\"}",
    };
    const char *body = bodies[rnd(5)];
    long st = imx_t_image_patch(&srv, admin, id, body);
    assert_int_equal(st, 200);
    snprintf(what, len, "image %lld %s", id, body);
}

/* A scheduled revocation, made due at once (the test moves revoke_at into the past), then the
 * sweep every dispatcher runs. */
static void op_due(char *what, size_t len)
{
    if (!n_images)
        return;
    long long id = images[rnd((unsigned)n_images)];
    char body[160], q[256];
    snprintf(body, sizeof body,
             "{\"status\":\"revoked\",\"reason\":\"eol\",\"revoke_at\":\"2099-01-01T00:00:00Z\"}");
    long st = imx_t_image_patch(&srv, admin, id, body);
    assert_true(st == 200 || st == 422);
    snprintf(q, sizeof q,
             "UPDATE images SET revoke_at = now() - interval '1 second' WHERE id = %lld"
             " AND status <> 'revoked'; SELECT imx_apply_due_revocations(100)",
             id);
    free(imx_t_sql(db, q));
    snprintf(what, len, "scheduled revocation of %lld, then due", id);
}

static long long op_pin(char *what, size_t len)
{
    if (!n_images || n_pins == 64)
        return 0;
    long long id = images[rnd((unsigned)n_images)];
    const char *k = PIN_CONSTRAINTS[rnd(4)];
    char body[512];
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"p%zu\",\"image\":%lld%s%s%s}",
             n_pins + 1, id,
             k ? ",\"constraints\":[{\"component\":\"nvidia-driver\",\"range\":\"" : "", k ? k : "",
             k ? "\"}]" : "");
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/pins", body, &res), 0);
    long long pin = 0;
    if (res.status == 201)
        pins[n_pins++] = pin = json_integer_value(json_object_get(res.json, "id"));
    else
        assert_int_equal(res.status, 422); /* the image does not meet the constraint */
    imx_t_res_free(&res);
    snprintf(what, len, "pin %s -> %lld", body, pin);
    return pin;
}

static long long op_move(char *what, size_t len)
{
    if (!n_pins || !n_images)
        return 0;
    long long pin = pins[rnd((unsigned)n_pins)];
    if (!pin)
        return 0;
    char path[64], body[64];
    snprintf(path, sizeof path, "/v1/pins/%lld", pin);
    snprintf(body, sizeof body, "{\"image\":%lld}", images[rnd((unsigned)n_images)]);
    long st = status_of("PUT", path, NULL, body, NULL);
    assert_true(st == 200 || st == 422);
    snprintf(what, len, "move pin %lld %s -> %ld", pin, body, st);
    return st == 200 ? pin : 0;
}

static long long op_unpin(char *what, size_t len)
{
    if (!n_pins)
        return 0;
    size_t i = rnd((unsigned)n_pins);
    long long pin = pins[i];
    if (!pin)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/v1/pins/%lld", pin);
    assert_int_equal(status_of("DELETE", path, NULL, NULL, NULL), 204);
    pins[i] = 0;
    snprintf(what, len, "delete pin %lld", pin);
    return pin;
}

/* The pin documents after a step, byte for byte: the set-based render of every pin
 * (imx_pin_docs_render, what the use cases store) against the one-pin-at-a-time definition
 * (imx_pin_json: imx_pin_candidate and imx_pin_doc), and the stored ones (every pin made through
 * the API has one, with its history) against the same. Empty when all agree, else the first
 * pins that differ. */
static void pin_docs_match(unsigned s, int step, const char *what)
{
    char *diff = imx_t_sql(
        db, "SET TimeZone = 'UTC';"
            " WITH r AS (SELECT * FROM imx_pin_docs_render(ARRAY(SELECT id FROM pins), true)),"
            " bad AS ("
            "  SELECT p.id, 'render' AS what, r.body FROM pins p LEFT JOIN r ON r.pin_id = p.id"
            "   WHERE r.body IS NULL OR r.body || 'null}' <> imx_pin_json(p.id, false)::text"
            "      OR r.body || r.history || '}' <> imx_pin_json(p.id, true)::text"
            "      OR r.family <> (SELECT i.family FROM images i WHERE i.id = p.image_id)"
            "  UNION ALL"
            "  SELECT p.id, 'stored', d.body FROM pins p LEFT JOIN pin_docs d ON d.pin_id = p.id"
            "   WHERE d.pin_id IS NULL OR ((d.fresh_until IS NULL OR d.fresh_until > now())"
            "    AND (d.body || 'null}' <> imx_pin_json(p.id, false)::text"
            "     OR d.body || d.history || '}' IS DISTINCT FROM imx_pin_json(p.id, true)::text)))"
            " SELECT coalesce(string_agg(format('%s pin %s: %s, expected %s', b.what, b.id,"
            "  (SELECT format('status %s, candidate %s, %s bytes', j->>'status',"
            "    coalesce(j->'candidate'->>'id', '-'), length(b.body))"
            "    FROM (SELECT (b.body || 'null}')::json AS j) x),"
            "  (SELECT format('status %s, candidate %s, %s bytes', j->>'status',"
            "    coalesce(j->'candidate'->>'id', '-'), length(j::text) - 5)"
            "    FROM (SELECT imx_pin_json(b.id, false) AS j) x)), E'\\n  ' ORDER BY b.id), '')"
            " FROM (SELECT * FROM bad ORDER BY id LIMIT 2) b");
    assert_non_null(diff);
    if (diff[0]) {
        fprintf(stderr, "seed %u, step %d (%s): pin documents differ:\n  %s\n", s, step, what,
                diff);
        free(diff);
        fail();
    }
    free(diff);
}

static void run_sequence(unsigned s, int steps)
{
    seed = s;
    char what[2048], q[128];
    for (int step = 0; step < steps; step++) {
        long long made = 0, gone = 0;
        what[0] = '\0';
        unsigned r = rnd(100);
        if (r < 32 || n_images < 4)
            op_publish(what, sizeof what);
        else if (r < 42)
            op_advisory(what, sizeof what);
        else if (r < 49)
            op_revise(what, sizeof what);
        else if (r < 52)
            op_withdraw(what, sizeof what);
        else if (r < 68)
            op_status(what, sizeof what);
        else if (r < 72)
            op_due(what, sizeof what);
        else if (r < 84)
            made = op_pin(what, sizeof what);
        else if (r < 96)
            made = op_move(what, sizeof what);
        else
            gone = op_unpin(what, sizeof what);
        snprintf(q, sizeof q, "SELECT oracle.step(%lld, %lld)", made, gone);
        char *diff = imx_t_sql(db, q);
        assert_non_null(diff);
        if (diff[0]) {
            fprintf(stderr, "seed %u, step %d (%s):\n  %s\n", s, step, what, diff);
            free(diff);
            fail();
        }
        free(diff);
        pin_docs_match(s, step, what);
    }
}

static void random_sequences_match_the_oracle(void **state)
{
    (void)state;
    /* Three sequences, each continuing on the catalog the ones before it left: two fixed seeds,
     * the same every run, and one drawn anew each run (printed), so that runs over time cover
     * more sequences than any one run pays for. IMX_ORACLE_SEED takes the list of seeds to replay
     * ("1 2 4091"), IMX_ORACLE_STEPS the length of each. */
    const char *env_seed = getenv("IMX_ORACLE_SEED");
    const char *env_steps = getenv("IMX_ORACLE_STEPS");
    int steps = env_steps ? atoi(env_steps) : 60;
    unsigned seeds[8] = { 1, 2, (unsigned)time(NULL) ^ ((unsigned)getpid() << 16) };
    size_t n_seeds = 3;
    if (env_seed) {
        n_seeds = 0;
        for (const char *p = env_seed; *p && n_seeds < 8;) {
            char *end;
            unsigned long v = strtoul(p, &end, 10);
            if (end == p) {
                p++;
                continue;
            }
            seeds[n_seeds++] = (unsigned)v;
            p = end;
        }
    }
    fprintf(stderr, "oracle: seeds");
    for (size_t i = 0; i < n_seeds; i++)
        fprintf(stderr, " %u", seeds[i]);
    fprintf(stderr, ", %d steps each (IMX_ORACLE_SEED='", steps);
    for (size_t i = 0; i < n_seeds; i++)
        fprintf(stderr, "%s%u", i ? " " : "", seeds[i]);
    fprintf(stderr, "' replays this run)\n");
    for (size_t i = 0; i < n_seeds; i++)
        run_sequence(seeds[i], steps);
    char *n = imx_t_sql(db, "SELECT count(*) || ' rows, ' || (SELECT count(*) FROM patch_events)"
                            " || ' events' FROM image_advisories");
    fprintf(stderr, "oracle: %zu images, %zu advisories, %zu pins; %s\n", n_images, n_advisories,
            n_pins, n ? n : "?");
    free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_sequences_match_the_oracle),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
