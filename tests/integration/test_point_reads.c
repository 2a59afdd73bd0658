/* Point reads answered from stored documents and a remembered principal must answer what the
 * from-scratch paths answer, byte for byte, after every write through any server. Four servers
 * on one database: two with the caches (IMAXE_READ_CACHE=1, the default), a third like them with
 * a read pool on the same database (the replica's reads), the reference with IMAXE_READ_CACHE=0
 * (every document built by PostgreSQL, every principal checked in full). A
 * seeded random sequence of writes (publishes with parents, deprecate, revoke with cascade,
 * restore, a scheduled revocation coming due, advisories published, revised and withdrawn, pins
 * with and without constraints created, moved and deleted, cost measurements recorded), each
 * through one of the two caching servers, is followed by the reads of issue 13 on all four: get
 * by id (body, ETag, and If-None-Match: 304 exactly when nothing changed), compare, resolve by
 * family and by pin, lineage, patch, pins (a page, paged, each pin, deleted ones), and the stored
 * image and pin documents are compared with their from-scratch builds in SQL. Many gets at once
 * share the batched document reads and must each get their own, and so must many compares,
 * resolves, patch reads, lineages and pin reads. And: a revoked token, a
 * disabled user and a removed membership are refused on the next request on both caching
 * servers, which had the principal remembered. */
#include "harness.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IMAGES 200
#define PATH_LEN   512

static struct imx_srv cached[2], ref, pooled;
static char db[1024], admin[4096], pub[4096];
/* pooled: a caching server with a read pool on the same database (IMAXE_DATABASE_READ_URL), so
 * that the reads a server sends to a replica (resolve by pin's) are held to the reference too. */
static char read_url[1100];
static const char *POOLED_ENV[] = { "IMAXE_ACCESS_LOG=0", "IMAXE_RATE_LIMIT_PER_MIN=0", read_url,
                                    NULL };
static const char *const CACHED_ENV[] = { "IMAXE_ACCESS_LOG=0", "IMAXE_RATE_LIMIT_PER_MIN=0",
                                          NULL };
static const char *const REF_ENV[] = { "IMAXE_ACCESS_LOG=0", "IMAXE_RATE_LIMIT_PER_MIN=0",
                                       "IMAXE_READ_CACHE=0", NULL };

static long long ids[MAX_IMAGES];
static size_t n_ids;
static char etags[MAX_IMAGES][64]; /* the ETag each image had at the last check */
static char *bodies[MAX_IMAGES];   /* and its body */
/* Pin slots: a name each, its constraints, the live pin's id (0: none now); every id ever. */
#define PIN_SLOTS 4
static const char *const PIN_NAMES[PIN_SLOTS] = { "prod", "stage", "dev", "edge" };
static const char *const PIN_CONSTRAINTS[PIN_SLOTS] = {
    "",
    ",\"constraints\":[{\"component\":\"nvidia-driver\",\"range\":\"~580\"}]",
    "",
    ",\"constraints\":[{\"component\":\"nvidia-driver\",\"range\":\">=580.82\"},"
    "{\"component\":\"cuda\",\"range\":\"12.*\"}]",
};
static long long pins[PIN_SLOTS];
static long long pins_ever[64];
static size_t n_pins_ever;
static const char *const PIN_STATUSES[] = { "current", "behind", "patch_available", "vulnerable",
                                            "revoked" };
static bool pin_status_seen[5]; /* which statuses the pins have had, over the sequence */
static unsigned lineage_pages;  /* lineages with a second page of children, over the sequence */
static unsigned rng = 12345;

static unsigned next_rand(void)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 16) & 0x7fff;
}

static int setup(void **state)
{
    (void)state;
    const char *seed = getenv("IMX_POINT_READS_SEED");
    if (seed)
        rng = (unsigned)strtoul(seed, NULL, 10);
    if (imx_t_server_up(&cached[0], "point_reads", CACHED_ENV, db, sizeof db, admin,
                        sizeof admin) != 0 ||
        imx_t_server_start(&cached[1], db, CACHED_ENV) != 0 ||
        imx_t_server_start(&ref, db, REF_ENV) != 0)
        return -1;
    snprintf(read_url, sizeof read_url, "IMAXE_DATABASE_READ_URL=%s", db);
    if (imx_t_server_start(&pooled, db, POOLED_ENV) != 0)
        return -1;
    /* 0040's pin document and 0006's resolve, the oracles of 0050's, and lineage from scratch,
     * the oracle of 0061's (point_reads_oracle.sql) */
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/integration/point_reads_oracle.sql",
             getenv("IMX_TEST_SOURCE_DIR") ? getenv("IMX_TEST_SOURCE_DIR") : ".");
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    static char sql[16384];
    size_t n = fread(sql, 1, sizeof sql - 1, f);
    fclose(f);
    sql[n] = '\0';
    char *ok = imx_t_sql(db, sql);
    if (!ok)
        return -1;
    free(ok);
    return imx_t_user(&cached[0], admin, "pr-team", "pub@pr.test", "publisher", pub, sizeof pub);
}

static int teardown(void **state)
{
    (void)state;
    imx_t_server_stop(&cached[0], 15, 10);
    imx_t_server_stop(&cached[1], 15, 10);
    imx_t_server_stop(&ref, 15, 10);
    imx_t_server_stop(&pooled, 15, 10);
    for (size_t i = 0; i < n_ids; i++)
        free(bodies[i]);
    return 0;
}

/* The body with its request id blanked (each server makes its own). New string. */
static char *masked(const char *body)
{
    char *out = strdup(body ? body : "");
    for (char *p = strstr(out, "\"request_id\":\""); p; p = strstr(p + 1, "\"request_id\":\"")) {
        for (char *q = p + 14; *q && *q != '"'; q++)
            *q = '0';
    }
    return out;
}

/* GET path on every server as token; asserts the same status, ETag and body. Returns the
 * reference's response (free it). */
static void same_everywhere(const char *token, const char *path, const char *const *headers,
                            struct imx_res *out)
{
    char auth[4200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    const char *h[4] = { auth, NULL, NULL, NULL };
    for (size_t k = 0; headers && headers[k] && k < 2; k++)
        h[1 + k] = headers[k];
    assert_int_equal(imx_t_http(&ref, "GET", path, h, NULL, out), 0);
    char *want = masked(out->body);
    char want_etag[128], got_etag[128];
    const char *we = imx_t_header(out, "ETag", want_etag, sizeof want_etag);
    struct imx_srv *const caching[] = { &cached[0], &cached[1], &pooled };
    for (int s = 0; s < 3; s++) {
        struct imx_res res;
        assert_int_equal(imx_t_http(caching[s], "GET", path, h, NULL, &res), 0);
        char *got = masked(res.body);
        const char *ge = imx_t_header(&res, "ETag", got_etag, sizeof got_etag);
        if (res.status != out->status || strcmp(got, want) != 0 || (we == NULL) != (ge == NULL) ||
            (we && strcmp(we, ge) != 0)) {
            fprintf(stderr,
                    "GET %s differs on server %d:\n  cached %ld %s %s\n  ref    %ld %s %s\n", path,
                    s, res.status, ge ? ge : "-", got, out->status, we ? we : "-", want);
            fail();
        }
        free(got);
        imx_t_res_free(&res);
    }
    free(want);
}

/* Resolves by family and by pin, found (the pins in both regions) and not. */
static const char *const RESOLVES[] = {
    "family=pr-fam-0&region=us-east-1",
    "family=pr-fam-1&region=us-east-1&component=nvidia-driver:~580",
    "family=pr-fam-2&region=us-east-1&component=nvidia-driver:%3E%3D580.95",
    "family=pr-fam-3&region=eu-west-1",
    "family=pr-fam-0&region=nowhere-1",
    "family=pr-none&region=us-east-1",
    /* what the index says emptied the set (an arch, the first constraint, the second), as the SQL
     * resolve says it */
    "family=pr-fam-1&region=us-east-1&arch=arm64",
    "family=pr-fam-2&region=us-east-1&component=nvidia-driver:%3C1",
    "family=pr-fam-1&region=us-east-1&component=nvidia-driver:~580&component=cuda:%3C1",
    "pin=pr-team/prod&region=us-east-1",
    "pin=pr-team/stage&region=us-east-1",
    "pin=pr-team/dev&region=eu-west-1",
    "pin=pr-team/edge&region=us-east-1",
    "pin=pr-team/prod&region=eu-west-1",
    "pin=pr-team/none&region=us-east-1",
    "pin=pr-nosuch/prod&region=us-east-1",
};
#define N_RESOLVES (sizeof RESOLVES / sizeof RESOLVES[0])

/* Resolve by pin (0064's SELECT) answers what 0006's function does, for every team, pin name and
 * region, found or not. */
static void resolves_are_0006s(int step)
{
    char *differ = imx_t_sql(
        db, "SELECT count(*) FROM (SELECT DISTINCT team_id FROM pins UNION SELECT id FROM teams) t,"
            " unnest(ARRAY['prod', 'stage', 'dev', 'edge', 'none']) n,"
            " unnest(ARRAY['us-east-1', 'eu-west-1', 'nowhere']) r"
            " WHERE imx_pin_resolve(t.team_id, n, r)::text"
            " IS DISTINCT FROM pr_pin_resolve_0006(t.team_id, n, r)::text");
    assert_non_null(differ);
    if (strcmp(differ, "0") != 0) {
        fprintf(stderr, "step %d: %s resolves differ from 0006's\n", step, differ);
        fail();
    }
    free(differ);
}

/* After a step: every image's document (and a 304 exactly when it did not change), lineage and
 * patch; compares, resolves and pins. */
static void check_reads(int step)
{
    char path[PATH_LEN];
    struct imx_res res;
    for (size_t i = 0; i < n_ids; i++) {
        snprintf(path, sizeof path, "/v1/images/%lld", ids[i]);
        same_everywhere(pub, path, NULL, &res);
        assert_int_equal(res.status, 200);
        char etag[64] = "";
        imx_t_header(&res, "ETag", etag, sizeof etag);
        bool changed = !bodies[i] || strcmp(bodies[i], res.body) != 0;
        /* The ETag moves exactly when the document does. */
        if (bodies[i] && changed == (strcmp(etags[i], etag) == 0)) {
            fprintf(stderr, "step %d image %lld: body %s, ETag %s -> %s\n", step, ids[i],
                    changed ? "changed" : "unchanged", etags[i], etag);
            fail();
        }
        if (bodies[i]) {
            char inm[96];
            snprintf(inm, sizeof inm, "If-None-Match: %s", etags[i]);
            const char *h[] = { inm, NULL };
            struct imx_res c;
            same_everywhere(pub, path, h, &c);
            assert_int_equal(c.status, changed ? 200 : 304);
            imx_t_res_free(&c);
        }
        free(bodies[i]);
        bodies[i] = strdup(res.body);
        snprintf(etags[i], sizeof etags[i], "%s", etag);
        imx_t_res_free(&res);
        if (i % 3 == (size_t)step % 3) {
            snprintf(path, sizeof path, "/v1/images/%lld/lineage", ids[i]);
            same_everywhere(pub, path, NULL, &res);
            imx_t_res_free(&res);
            /* a child a page, and the next page by its cursor */
            snprintf(path, sizeof path, "/v1/images/%lld/lineage?limit=1", ids[i]);
            same_everywhere(pub, path, NULL, &res);
            const char *next = json_string_value(json_object_get(res.json, "next_cursor"));
            if (next) {
                lineage_pages++;
                snprintf(path, sizeof path, "/v1/images/%lld/lineage?limit=1&cursor=%s", ids[i],
                         next);
                imx_t_res_free(&res);
                same_everywhere(pub, path, NULL, &res);
            }
            imx_t_res_free(&res);
            snprintf(path, sizeof path, "/v1/images/%lld/patch", ids[i]);
            same_everywhere(pub, path, NULL, &res);
            imx_t_res_free(&res);
        }
    }
    for (int k = 0; n_ids >= 2 && k < 3; k++) {
        snprintf(path, sizeof path, "/v1/compare?ids=%lld,%lld,%lld", ids[next_rand() % n_ids],
                 ids[n_ids - 1], ids[0]);
        if (ids[0] == ids[n_ids - 1])
            continue;
        same_everywhere(pub, path, NULL, &res);
        imx_t_res_free(&res);
    }
    /* Every image in some compare at every step, so that each one a caching server keeps in
     * memory (server/api/compare.c) is read again after every write; as the publisher, whose
     * team measured, and as the admin, who sees none of the costs. */
    for (size_t first = (size_t)step % 3; n_ids >= 2 && first < n_ids; first += 7) {
        size_t len = (size_t)snprintf(path, sizeof path, "/v1/compare?ids=%lld", ids[first]);
        for (size_t k = 1; k < 7 && len < sizeof path; k++)
            len +=
                (size_t)snprintf(path + len, sizeof path - len, ",%lld", ids[(first + k) % n_ids]);
        same_everywhere(first % 2 ? admin : pub, path, NULL, &res);
        imx_t_res_free(&res);
    }
    for (size_t k = 0; k < sizeof RESOLVES / sizeof RESOLVES[0]; k++) {
        snprintf(path, sizeof path, "/v1/images/resolve?%s", RESOLVES[k]);
        same_everywhere(pub, path, NULL, &res);
        imx_t_res_free(&res);
    }
    same_everywhere(pub, "/v1/pins?team=pr-team", NULL, &res);
    imx_t_res_free(&res);
    same_everywhere(pub, "/v1/pins?team=pr-team&limit=2", NULL, &res);
    const char *cursor = json_string_value(json_object_get(res.json, "next_cursor"));
    if (cursor) {
        snprintf(path, sizeof path, "/v1/pins?team=pr-team&limit=2&cursor=%s", cursor);
        imx_t_res_free(&res);
        same_everywhere(pub, path, NULL, &res);
    }
    imx_t_res_free(&res);
    for (size_t k = 0; k < n_pins_ever; k++) {
        snprintf(path, sizeof path, "/v1/pins/%lld", pins_ever[k]);
        same_everywhere(pub, path, NULL, &res);
        imx_t_res_free(&res);
    }
    /* The stored pin documents are the from-scratch ones (rendered in UTC, as stored), and every
     * pin made through the API has one, with its history. */
    char *pin_stale = imx_t_sql(
        db, "SET TimeZone = 'UTC'; SELECT count(*) FROM pin_docs d"
            " WHERE (d.fresh_until IS NULL OR d.fresh_until > now())"
            " AND (d.body || 'null}' <> imx_pin_json(d.pin_id, false)::text"
            " OR d.body || d.history || '}' IS DISTINCT FROM imx_pin_json(d.pin_id, true)::text)");
    assert_non_null(pin_stale);
    if (strcmp(pin_stale, "0") != 0) {
        fprintf(stderr, "step %d: %s stored pin documents differ from imx_pin_json\n", step,
                pin_stale);
        fail();
    }
    free(pin_stale);
    /* and imx_pin_json is 0040's document, the status and candidate found another way */
    char *rewrite = imx_t_sql(db, "SELECT count(*) FROM pins WHERE imx_pin_json(id, true)::text"
                                  " IS DISTINCT FROM pr_pin_json_0040(id, true)::text"
                                  " OR imx_pin_json(id, false)::text"
                                  " IS DISTINCT FROM pr_pin_json_0040(id, false)::text");
    assert_non_null(rewrite);
    if (strcmp(rewrite, "0") != 0) {
        fprintf(stderr, "step %d: %s pins differ from 0040's document\n", step, rewrite);
        fail();
    }
    free(rewrite);
    resolves_are_0006s(step);
    char *patch_differ = imx_t_sql(db, "SELECT count(*) FROM images WHERE imx_image_patch_json(id)"
                                       "::text IS DISTINCT FROM pr_image_patch_0021(id)::text");
    assert_non_null(patch_differ);
    if (strcmp(patch_differ, "0") != 0) {
        fprintf(stderr, "step %d: %s patch documents differ from 0021's\n", step, patch_differ);
        fail();
    }
    free(patch_differ);
    char *statuses = imx_t_sql(db, "SELECT string_agg(DISTINCT imx_pin_json(id, false)->>'status',"
                                   " ',') FROM pins");
    for (size_t k = 0; statuses && k < 5; k++)
        if (strstr(statuses, PIN_STATUSES[k]))
            pin_status_seen[k] = true;
    free(statuses);
    char *pin_missing = imx_t_sql(db, "SELECT count(*) FROM pins p WHERE NOT EXISTS (SELECT 1"
                                      " FROM pin_docs d WHERE d.pin_id = p.id)");
    assert_non_null(pin_missing);
    assert_string_equal(pin_missing, "0");
    free(pin_missing);
    same_everywhere(pub, "/v1/images?limit=50&status=any", NULL, &res);
    imx_t_res_free(&res);
    /* The stored documents are the from-scratch ones, whatever the servers answered. */
    char *stale = imx_t_sql(db, "SELECT count(*) FROM image_docs d JOIN images i ON i.id = "
                                "d.image_id WHERE (d.fresh_until IS NULL OR d.fresh_until > now())"
                                " AND d.head || d.tail <> imx_image_json(i.id)::text");
    assert_non_null(stale);
    if (strcmp(stale, "0") != 0) {
        fprintf(stderr, "step %d: %s stored documents differ from imx_image_json\n", step, stale);
        fail();
    }
    free(stale);
    /* Every image's lineage (0061: stored summaries as text, the family index for newer
     * parents; all of a test image's children fit in one page) is the one built from scratch,
     * and it is JSON. */
    char *lineage =
        imx_t_sql(db, "SELECT count(*) FROM images i WHERE"
                      " imx_image_lineage(i.id, NULL, 200)::jsonb - 'next_after' IS DISTINCT FROM"
                      " pr_lineage(i.id)");
    assert_non_null(lineage);
    if (strcmp(lineage, "0") != 0) {
        fprintf(stderr, "step %d: %s lineages differ from the from-scratch one\n", step, lineage);
        fail();
    }
    free(lineage);
    /* Every published image has its stored document (the publish writes it). */
    char *missing = imx_t_sql(db, "SELECT count(*) FROM images i WHERE NOT EXISTS"
                                  " (SELECT 1 FROM image_docs d WHERE d.image_id = i.id)");
    assert_non_null(missing);
    assert_string_equal(missing, "0");
    free(missing);
}

static long call(int server, const char *token, const char *method, const char *path,
                 const char *body, const char *if_match, struct imx_res *out)
{
    char auth[4200], im[160];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    snprintf(im, sizeof im, "If-Match: %s", if_match ? if_match : "");
    const char *h[] = { auth, "Content-Type: application/json", if_match ? im : NULL, NULL };
    struct imx_res res;
    assert_int_equal(imx_t_http(&cached[server], method, path, h, body, &res), 0);
    long status = res.status;
    if (out)
        *out = res;
    else
        imx_t_res_free(&res);
    return status;
}

static const char *const DRIVERS[] = { "580.65.06", "580.82.07", "580.95.05", "580.105.08",
                                       "570.172.08" };

static void publish_one(int server, int n)
{
    if (n_ids == MAX_IMAGES)
        return;
    char body[2048], family[32], version[16], parent[48] = "", packages[160] = "";
    /* Most images carry an OS inventory (the detail's os_packages part, distro advisories). */
    static const char *const OPENSSL[] = { "3.0.13-0ubuntu3.3", "3.0.13-0ubuntu3.5",
                                           "3.0.13-0ubuntu3.10" };
    if (next_rand() % 4 != 0)
        snprintf(packages, sizeof packages,
                 ",\"packages\":[{\"name\":\"openssl\",\"version\":\"%s\"},"
                 "{\"name\":\"libc6\",\"version\":\"2.39-0ubuntu8.3\"}]",
                 OPENSSL[next_rand() % 3]);
    snprintf(family, sizeof family, "pr-fam-%u", next_rand() % 4);
    snprintf(version, sizeof version, "%d", n);
    if (n_ids && next_rand() % 3 == 0)
        snprintf(parent, sizeof parent, ",\"parent\":%lld", ids[next_rand() % n_ids]);
    snprintf(body, sizeof body,
             "{\"team\":\"pr-team\",\"family\":\"%s\",\"version\":\"%s\",\"provider\":\"aws\","
             "\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":\"24.04\"},"
             "\"layer\":\"platform\",\"artifacts\":[{\"region\":\"us-east-1\",\"id\":\"ami-%d\"}"
             "%s],\"gpus\":[\"H100\"],\"components\":[{\"name\":\"nvidia-driver\",\"version\":"
             "\"%s\"},{\"name\":\"cuda\",\"version\":\"12.8.1\"}]%s%s}",
             family, version, n,
             next_rand() % 2 ? ",{\"region\":\"eu-west-1\",\"id\":\"ami-e\"}" : "",
             DRIVERS[next_rand() % 5], parent, packages);
    struct imx_res res;
    long st = call(server, pub, "POST", "/v1/images", body, NULL, &res);
    if (st != 201)
        fprintf(stderr, "publish: %ld %s\n", st, res.body);
    assert_int_equal(st, 201);
    ids[n_ids++] = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
}

static void lifecycle(int server)
{
    long long id = ids[next_rand() % n_ids];
    static const char *const changes[] = {
        "{\"status\":\"deprecated\",\"reason\":\"old\"}",
        "{\"status\":\"revoked\",\"reason\":\"broken\"}",
        "{\"status\":\"revoked\",\"reason\":\"broken\",\"cascade\":true}",
        "{\"status\":\"active\"}",
    };
    const char *change = changes[next_rand() % 4];
    long st = imx_t_image_patch(&cached[server], admin, id, change);
    /* 200, or 409 for a change the lifecycle does not allow (restoring an active image) */
    assert_true(st == 200 || st == 409);
}

static int advisories;
static const char *const OS_FIXES[] = { "3.0.13-0ubuntu3.5", "3.0.13-0ubuntu3.10" };

static void advisory(int server)
{
    char body[1024], path[128], etag[64];
    unsigned what = advisories ? next_rand() % 3 : 0;
    struct imx_res res;
    if (what == 0) {
        advisories++;
        /* published on days out of their ids' order, which the documents sort by */
        int day = 1 + (advisories * 11) % 28;
        if (advisories % 2 == 0)
            snprintf(body, sizeof body,
                     "{\"id\":\"PR-%d\",\"title\":\"t\",\"published\":\"2026-01-%02d\","
                     "\"severity\":\"high\",\"affected\":[{\"ecosystem\":\"Ubuntu:24.04:LTS\","
                     "\"package\":\"openssl\",\"range\":\"<%s\",\"fixed\":\"%s\"}]}",
                     advisories, day, OS_FIXES[next_rand() % 2], OS_FIXES[1]);
        else
            snprintf(body, sizeof body,
                     "{\"id\":\"PR-%d\",\"title\":\"t\",\"published\":\"2026-01-%02d\","
                     "\"severity\":\"high\",\"affected\":[{\"component\":\"nvidia-driver\","
                     "\"range\":\">=580, <%s\"}]}",
                     advisories, day, DRIVERS[1 + next_rand() % 3]);
        assert_int_equal(call(server, admin, "POST", "/v1/advisories", body, NULL, NULL), 201);
        return;
    }
    snprintf(path, sizeof path, "/v1/advisories/PR-%d", 1 + (int)(next_rand() % advisories));
    assert_int_equal(call(server, admin, "GET", path, NULL, NULL, &res), 200);
    bool withdrawn = !json_is_null(json_object_get(res.json, "withdrawn_at")) &&
                     json_object_get(res.json, "withdrawn_at");
    imx_t_header(&res, "ETag", etag, sizeof etag);
    imx_t_res_free(&res);
    if (withdrawn)
        return;
    if (what == 1) {
        snprintf(body, sizeof body,
                 "{\"affected\":[{\"component\":\"nvidia-driver\",\"range\":\">=580, <%s\"}]}",
                 DRIVERS[next_rand() % 4]);
        assert_int_equal(call(server, admin, "PATCH", path, body, etag, NULL), 200);
    } else {
        char del[160];
        snprintf(del, sizeof del, "%s?reason=test", path);
        assert_int_equal(call(server, admin, "DELETE", del, NULL, NULL, NULL), 200);
    }
}

/* A pin slot: created when empty (on an older image more often than not, so that it has a
 * candidate), else moved, or now and then deleted. */
static void pin(int server)
{
    char body[512], path[64];
    size_t slot = next_rand() % PIN_SLOTS;
    long long target = ids[next_rand() % (next_rand() % 2 ? n_ids : (n_ids + 1) / 2)];
    if (!pins[slot]) {
        snprintf(body, sizeof body, "{\"team\":\"pr-team\",\"name\":\"%s\",\"image\":%lld%s}",
                 PIN_NAMES[slot], target, PIN_CONSTRAINTS[slot]);
        struct imx_res res;
        long st = call(server, pub, "POST", "/v1/pins", body, NULL, &res);
        if (st == 201) {
            pins[slot] = json_integer_value(json_object_get(res.json, "id"));
            if (n_pins_ever < sizeof pins_ever / sizeof pins_ever[0])
                pins_ever[n_pins_ever++] = pins[slot];
        }
        imx_t_res_free(&res);
        assert_true(st == 201 || st == 409 || st == 422);
        return;
    }
    snprintf(path, sizeof path, "/v1/pins/%lld", pins[slot]);
    if (next_rand() % 5 == 0) {
        assert_int_equal(call(server, pub, "DELETE", path, NULL, NULL, NULL), 204);
        pins[slot] = 0;
        return;
    }
    snprintf(body, sizeof body, "{\"image\":%lld}", target);
    long st = call(server, pub, "PUT", path, body, NULL, NULL);
    assert_true(st == 200 || st == 409 || st == 422);
}

/* Three cost measurements of image: compare's costs are medians per (instance type, pricing)
 * group, the least per model, and the median boot seconds; prices, models and boot times repeat
 * so that groups hold several. */
static void measure(int server, long long image)
{
    static const char *const MODELS[] = { "resnet50", "llama-3.1-8b" };
    static const char *const TYPES[] = { "g5.xlarge", "p5.48xlarge" };
    for (int k = 0; k < 3; k++) {
        char body[1024];
        unsigned r = next_rand();
        snprintf(body, sizeof body,
                 "{\"team\":\"pr-team\",\"image\":%lld,\"instance_type\":\"%s\","
                 "\"model\":\"%s\",\"precision\":\"fp16\",\"batch_size\":8,"
                 "\"throughput_per_s\":%u,\"price_per_hour\":%u.5,\"pricing\":\"%s\",%s"
                 "\"measured_at\":\"2026-08-01T00:00:00Z\"}",
                 image, TYPES[r % 2], MODELS[(r >> 1) % 2], 100 + (r >> 2) % 7 * 50,
                 1 + (r >> 5) % 4, (r >> 7) % 2 ? "spot" : "on_demand",
                 (r >> 8) % 3 ? "\"boot_seconds\":90," : "\"boot_seconds\":45,");
        struct imx_res res;
        long st = call(server, pub, "POST", "/v1/measurements", body, NULL, &res);
        if (st != 201)
            fprintf(stderr, "measurement: %ld %s\n", st, res.body);
        assert_int_equal(st, 201);
        imx_t_res_free(&res);
    }
}

/* Measurements of one image, mostly the first (which every compare shows). */
static void measurements(int server)
{
    measure(server, next_rand() % 4 ? ids[0] : ids[next_rand() % n_ids]);
}

/* A scheduled revocation: revoke_at one second ahead; after it passes, every server says
 * revoked without any write (the stored tail's fresh_until). Then the sweep makes it real (a
 * server's dispatcher, within a poll interval): the step's reads come after it, as they would
 * differ if it ran between the reference's read and a caching server's. */
static void scheduled_revocation(int server)
{
    long long id = ids[next_rand() % n_ids];
    char at[64], body[160], path[64], auth[4200], sql[128];
    /* The image a pin points at, when one does: its resolve must refuse it once revoke_at has
     * passed, before the sweep. */
    char *pinned = imx_t_sql(db, "SELECT p.image_id FROM pins p JOIN images i ON i.id = p.image_id"
                                 " WHERE i.status = 'active' ORDER BY p.id LIMIT 1");
    if (pinned && *pinned)
        id = strtoll(pinned, NULL, 10);
    free(pinned);
    char *t = imx_t_sql(db, "SELECT to_char(now() AT TIME ZONE 'UTC' + interval '1 second',"
                            " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')");
    snprintf(at, sizeof at, "%s", t);
    free(t);
    snprintf(body, sizeof body,
             "{\"status\":\"revoked\",\"reason\":\"later\",\"revoke_at\":\"%s\"}", at);
    long st = imx_t_image_patch(&cached[server], admin, id, body);
    assert_true(st == 200 || st == 409);
    if (st != 200)
        return;
    /* At once after revoke_at, before the sweep (a dispatcher's, each second) can have run. */
    snprintf(sql, sizeof sql, "SELECT revoke_at <= now() FROM images WHERE id = %lld", id);
    bool due = false;
    for (int k = 0; k < 200 && !due; k++) {
        char *passed = imx_t_sql(db, sql);
        due = passed && strcmp(passed, "t") == 0;
        free(passed);
        if (!due)
            imx_t_sleep_ms(10);
    }
    assert_true(due);
    resolves_are_0006s(-1);
    snprintf(path, sizeof path, "/v1/images/%lld", id);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", pub);
    const char *h[] = { auth, NULL };
    struct imx_srv *all[] = { &ref, &cached[0], &cached[1] };
    for (int s = 0; s < 3; s++) {
        struct imx_res res;
        assert_int_equal(imx_t_http(all[s], "GET", path, h, NULL, &res), 0);
        assert_int_equal(res.status, 200);
        assert_non_null(strstr(res.body, "\"status\" : \"revoked\""));
        imx_t_res_free(&res);
    }
    snprintf(sql, sizeof sql, "SELECT status FROM images WHERE id = %lld", id);
    bool swept = false;
    for (int k = 0; k < 200 && !swept; k++) {
        char *status = imx_t_sql(db, sql);
        swept = status && strcmp(status, "revoked") == 0;
        free(status);
        if (!swept)
            imx_t_sleep_ms(100);
    }
    assert_true(swept);
}

static void writes_and_reads_agree(void **state)
{
    (void)state;
    const char *steps_env = getenv("IMX_POINT_READS_STEPS");
    int steps = steps_env ? atoi(steps_env) : 60;
    for (int i = 0; i < 8; i++)
        publish_one(i % 2, i);
    check_reads(0);
    int os_n = 0, gpu_n = 0;
    for (int step = 1; step <= steps; step++) {
        int server = (int)(next_rand() % 2);
        unsigned op = next_rand() % 11;
        if (step == steps / 2)
            scheduled_revocation(server);
        else if (op < 3)
            publish_one(server, 100 + step);
        else if (op < 5)
            lifecycle(server);
        else if (op < 8)
            advisory(server);
        else if (op < 10)
            pin(server);
        else
            measurements(server);
        check_reads(step);
        /* The sequence reaches both halves of the patch state (at some step). */
        char *os = imx_t_sql(db, "SELECT count(*) FROM images WHERE os_patch_status IN"
                                 " ('vulnerable', 'patch_available')");
        char *gpu = imx_t_sql(db, "SELECT count(*) FROM images WHERE patch_status IN"
                                  " ('vulnerable', 'patch_available')");
        os_n = os && atoi(os) > os_n ? atoi(os) : os_n;
        gpu_n = gpu && atoi(gpu) > gpu_n ? atoi(gpu) : gpu_n;
        free(os);
        free(gpu);
    }
    printf("%zu images; OS patch state reached %d, GPU patch state %d (most at one step)\n", n_ids,
           os_n, gpu_n);
    printf("pins were:");
    for (size_t k = 0; k < 5; k++)
        printf(" %s %s", PIN_STATUSES[k], pin_status_seen[k] ? "yes" : "no");
    printf(" (%zu pins made)\n", n_pins_ever);
    /* The caching servers answered lineage from their search index (and the comparisons above
     * held it to the reference's SQL), not only in SQL. */
    long long by_index[2] = { imx_t_metric(&cached[0], "imaxe_lineages_total{by=\"index\"}"),
                              imx_t_metric(&cached[1], "imaxe_lineages_total{by=\"index\"}") };
    printf("lineages from the index: %lld and %lld; with a second page: %u\n", by_index[0],
           by_index[1], lineage_pages);
    assert_true(by_index[0] > 0 && by_index[1] > 0);
    /* The full sequence (the shorter one under the sanitizers may not get there). */
    if (steps >= 60)
        assert_true(os_n > 0 && gpu_n > 0 && pin_status_seen[1] && pin_status_seen[2] &&
                    lineage_pages > 0);
}

/* Many requests at once share the stored documents' batched reads (server/db/image_docs.c):
 * each must get its own image's document and ETag, a 304 for the ETag it holds, a 404 for an id
 * that does not exist, whatever else the batch read. */
#define READERS    16
#define READS_EACH 40

struct reader {
    unsigned seed;
    int wrong; /* answers that were not the image's own */
};

static void *concurrent_reader(void *arg)
{
    struct reader *rd = arg;
    char auth[4200], path[64], inm[96];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", pub);
    for (int k = 0; k < READS_EACH; k++) {
        unsigned r = (unsigned)rand_r(&rd->seed);
        size_t i = r % n_ids;
        unsigned mode = (r >> 8) % 4;
        snprintf(path, sizeof path, "/v1/images/%lld", mode == 3 ? ids[i] + 100000 : ids[i]);
        snprintf(inm, sizeof inm, "If-None-Match: %s",
                 mode == 1 ? etags[i] : "\"0123456789abcdef0123456789abcdef\"");
        const char *h[] = { auth, mode == 1 || mode == 2 ? inm : NULL, NULL };
        struct imx_res res;
        if (imx_t_http(&cached[(r >> 12) % 2], "GET", path, h, NULL, &res) != 0) {
            rd->wrong++;
            continue;
        }
        char etag[64] = "";
        imx_t_header(&res, "ETag", etag, sizeof etag);
        bool ok = mode == 3   ? res.status == 404
                  : mode == 1 ? res.status == 304 && strcmp(etag, etags[i]) == 0
                              : res.status == 200 && strcmp(etag, etags[i]) == 0 &&
                                    strcmp(res.body, bodies[i]) == 0;
        if (!ok) {
            fprintf(stderr, "concurrent GET %s (mode %u): %ld %s\n", path, mode, res.status, etag);
            rd->wrong++;
        }
        imx_t_res_free(&res);
    }
    return NULL;
}

static void concurrent_reads_get_their_own(void **state)
{
    (void)state;
    assert_true(n_ids > 0 && bodies[0]);
    pthread_t th[READERS];
    struct reader rd[READERS];
    for (int t = 0; t < READERS; t++) {
        rd[t] = (struct reader){ .seed = 1000u + (unsigned)t, .wrong = 0 };
        assert_int_equal(pthread_create(&th[t], NULL, concurrent_reader, &rd[t]), 0);
    }
    int wrong = 0;
    for (int t = 0; t < READERS; t++) {
        pthread_join(th[t], NULL);
        wrong += rd[t].wrong;
    }
    /* How much the reads were batched (informative: a quiet machine may answer one at a time). */
    for (int s = 0; s < 2; s++) {
        struct imx_res m;
        assert_int_equal(imx_t_http(&cached[s], "GET", "/metrics", NULL, NULL, &m), 0);
        const char *a = strstr(m.body, "\nimaxe_image_doc_reads_total ");
        const char *b = strstr(m.body, "\nimaxe_image_doc_reads_docs_total ");
        assert_true(a && b);
        printf("server %d: %lld statements read %lld documents\n", s,
               strtoll(a + sizeof "\nimaxe_image_doc_reads_total " - 1, NULL, 10),
               strtoll(b + sizeof "\nimaxe_image_doc_reads_docs_total " - 1, NULL, 10));
        imx_t_res_free(&m);
        /* answered on the event threads (the fast handlers), not by the handler workers */
        long long ev = imx_t_metric(&cached[s], "imaxe_http_answered_total{on=\"event_thread\"}");
        long long wk = imx_t_metric(&cached[s], "imaxe_http_answered_total{on=\"worker\"}");
        printf("server %d: %lld requests answered on the event threads, %lld by workers\n", s, ev,
               wk);
        assert_true(ev >= READERS * READS_EACH / 4);
    }
    printf("%d concurrent reads, %d wrong\n", READERS * READS_EACH, wrong);
    assert_int_equal(wrong, 0);
}

/* Many requests at once, as different callers, on either caching server: each must get what
 * the reference answers that caller for that path (masked), whatever else the batch read. */
struct path_reader {
    unsigned seed;
    const char *const *paths;
    size_t n_paths, n_callers;
    const char *const *auth; /* an Authorization header each caller */
    char *const *want; /* the reference's masked body for path k as caller c: k * n_callers + c */
    int wrong;
};

static void *concurrent_path_reader(void *arg)
{
    struct path_reader *rd = arg;
    for (int k = 0; k < READS_EACH; k++) {
        unsigned r = (unsigned)rand_r(&rd->seed);
        size_t which = r % rd->n_paths, who = (r >> 8) % rd->n_callers;
        const char *h[] = { rd->auth[who], NULL };
        struct imx_res res;
        if (imx_t_http(&cached[(r >> 12) % 2], "GET", rd->paths[which], h, NULL, &res) != 0) {
            rd->wrong++;
            continue;
        }
        char *got = masked(res.body);
        if (strcmp(got, rd->want[which * rd->n_callers + who]) != 0) {
            fprintf(stderr, "concurrent GET %s as caller %zu: %ld %s\n", rd->paths[which], who,
                    res.status, got);
            rd->wrong++;
        }
        free(got);
        imx_t_res_free(&res);
    }
    return NULL;
}

/* Runs READERS path readers over paths as the callers (the reference's answers in want); returns
 * the answers that were not theirs. */
static int read_concurrently(const char *const *paths, size_t n_paths, const char *const *auth,
                             size_t n_callers, char *const *want)
{
    pthread_t th[READERS];
    struct path_reader rd[READERS];
    for (int t = 0; t < READERS; t++) {
        rd[t] = (struct path_reader){ .seed = 2000u + (unsigned)t,
                                      .paths = paths,
                                      .n_paths = n_paths,
                                      .n_callers = n_callers,
                                      .auth = auth,
                                      .want = want };
        assert_int_equal(pthread_create(&th[t], NULL, concurrent_path_reader, &rd[t]), 0);
    }
    int wrong = 0;
    for (int t = 0; t < READERS; t++) {
        pthread_join(th[t], NULL);
        wrong += rd[t].wrong;
    }
    return wrong;
}

/* Many compares at once share compare's batched reads (server/db/images.c), as different
 * callers: each must get its own images and the costs its own scope sees (the publisher's team
 * measured; the admin sees none). */
#define COMPARES 8

static void concurrent_compares_get_their_own(void **state)
{
    (void)state;
    assert_true(n_ids >= 4);
    /* whatever the write sequence measured (its seed and length can change), ids[0] has costs */
    measure(0, ids[0]);
    static char paths[COMPARES][PATH_LEN];
    const char *path_of[COMPARES];
    char *want[2 * COMPARES];
    char auth[2][4200];
    snprintf(auth[0], sizeof auth[0], "Authorization: Bearer %s", pub);
    snprintf(auth[1], sizeof auth[1], "Authorization: Bearer %s", admin);
    bool costs_differ = false;
    for (size_t c = 0; c < COMPARES; c++) {
        /* ids[0] has most of the measurements; the last compare names an image that is not */
        size_t a = 1 + c % (n_ids - 1), b = 1 + (c * 3 + 2) % (n_ids - 1);
        if (c == COMPARES - 1)
            snprintf(paths[c], sizeof paths[c], "/v1/compare?ids=%lld,%lld", ids[a],
                     ids[n_ids - 1] + 100000);
        else if (a == b)
            snprintf(paths[c], sizeof paths[c], "/v1/compare?ids=%lld,%lld", ids[0], ids[a]);
        else
            snprintf(paths[c], sizeof paths[c], "/v1/compare?ids=%lld,%lld,%lld", ids[0], ids[a],
                     ids[b]);
        path_of[c] = paths[c];
        for (int who = 0; who < 2; who++) {
            const char *h[] = { auth[who], NULL };
            struct imx_res res;
            assert_int_equal(imx_t_http(&ref, "GET", paths[c], h, NULL, &res), 0);
            assert_true(res.status == 200 || res.status == 404);
            want[2 * c + who] = masked(res.body);
            imx_t_res_free(&res);
        }
        costs_differ = costs_differ || strcmp(want[2 * c], want[2 * c + 1]) != 0;
    }
    /* the two callers' answers differ (the publisher's team measured) */
    assert_true(costs_differ);
    unsigned long long reads0 = (unsigned long long)imx_t_metric(&cached[0],
                                                                 "imaxe_compare_reads_total"),
                       compares0 = (unsigned long long)imx_t_metric(
                           &cached[0], "imaxe_compare_reads_compares_total");
    const char *auth_of[] = { auth[0], auth[1] };
    int wrong = read_concurrently(path_of, COMPARES, auth_of, 2, want);
    /* How much the reads were batched (informative: a quiet machine may answer one at a time). */
    printf("server 0: %llu statements read %llu compares\n",
           (unsigned long long)imx_t_metric(&cached[0], "imaxe_compare_reads_total") - reads0,
           (unsigned long long)imx_t_metric(&cached[0], "imaxe_compare_reads_compares_total") -
               compares0);
    printf("%d concurrent compares, %d wrong\n", READERS * READS_EACH, wrong);
    for (size_t k = 0; k < 2 * COMPARES; k++)
        free(want[k]);
    assert_int_equal(wrong, 0);
}

/* Many resolves and pin reads at once share their batched reads (server/db/image_index.c by
 * family, server/db/pins.c by pin, by pin id and a team's pages), as the publisher, the admin and a
 * viewer of another team (for whom pr-team's pins do not exist): each gets the reference's answer
 * for its own caller and path. */
#define PIN_READS 6

static void concurrent_resolves_and_pins_get_their_own(void **state)
{
    (void)state;
    static char other[4096];
    assert_int_equal(
        imx_t_user(&cached[0], admin, "pr-other", "other@pr.test", "viewer", other, sizeof other),
        0);
    const char *tokens[] = { pub, admin, other };
    static char auth[3][4200];
    const char *auth_of[3];
    for (int c = 0; c < 3; c++) {
        snprintf(auth[c], sizeof auth[c], "Authorization: Bearer %s", tokens[c]);
        auth_of[c] = auth[c];
    }
    /* The second page (its cursor read below) holds rows no other page starts with: a page
     * given another waiter's rows of the shared result shows as wrong. */
    static char second[PATH_LEN];
    const char *const PAGES[] = { "/v1/pins?team=pr-team", "/v1/pins?team=pr-team&limit=1",
                                  "/v1/pins?team=pr-nosuch", second };
    enum { N_PAGES = sizeof PAGES / sizeof PAGES[0], N = N_RESOLVES + PIN_READS + N_PAGES };
    {
        const char *h[] = { auth[0], NULL };
        struct imx_res res;
        assert_int_equal(imx_t_http(&ref, "GET", "/v1/pins?team=pr-team&limit=1", h, NULL, &res),
                         0);
        const char *cursor = json_string_value(json_object_get(res.json, "next_cursor"));
        if (!cursor)
            fail_msg("no next_cursor in %ld %.600s", res.status, res.body ? res.body : "");
        snprintf(second, sizeof second, "/v1/pins?team=pr-team&limit=1&cursor=%s", cursor);
        imx_t_res_free(&res);
    }
    static char paths[N][PATH_LEN];
    const char *path_of[N];
    char *want[3 * N];
    /* found by family, by pin (a resolve or a read); a pin's 404 for the other team's viewer */
    bool found[2] = { false, false }, refused = false;
    assert_true(n_pins_ever >= 2);
    for (size_t k = 0; k < N; k++) {
        if (k < N_RESOLVES)
            snprintf(paths[k], sizeof paths[k], "/v1/images/resolve?%s", RESOLVES[k]);
        else if (k >= N_RESOLVES + PIN_READS)
            snprintf(paths[k], sizeof paths[k], "%s", PAGES[k - N_RESOLVES - PIN_READS]);
        else if (k + 1 < N_RESOLVES + PIN_READS)
            snprintf(paths[k], sizeof paths[k], "/v1/pins/%lld",
                     pins_ever[(k - N_RESOLVES) % n_pins_ever]);
        else
            snprintf(paths[k], sizeof paths[k], "/v1/pins/%lld", pins_ever[n_pins_ever - 1] + 1000);
        path_of[k] = paths[k];
        bool by_pin = k >= N_RESOLVES || strncmp(RESOLVES[k], "pin=", 4) == 0;
        for (int c = 0; c < 3; c++) {
            const char *h[] = { auth[c], NULL };
            struct imx_res res;
            assert_int_equal(imx_t_http(&ref, "GET", paths[k], h, NULL, &res), 0);
            assert_true(res.status == 200 || res.status == 404);
            found[by_pin] = found[by_pin] || res.status == 200;
            refused = refused || (by_pin && c == 2 && res.status == 404);
            want[k * 3 + c] = masked(res.body);
            imx_t_res_free(&res);
        }
    }
    assert_true(found[0] && found[1] && refused);
    const char *const names[] = { "imaxe_resolve_reads_total{by=\"family\"}",
                                  "imaxe_resolve_reads_resolves_total{by=\"family\"}",
                                  "imaxe_resolve_reads_total{by=\"pin\"}",
                                  "imaxe_resolve_reads_resolves_total{by=\"pin\"}",
                                  "imaxe_pin_reads_total{by=\"id\"}",
                                  "imaxe_pin_reads_requests_total{by=\"id\"}",
                                  "imaxe_pin_reads_total{by=\"team\"}",
                                  "imaxe_pin_reads_requests_total{by=\"team\"}" };
    long long before[8];
    for (int m = 0; m < 8; m++)
        before[m] = imx_t_metric(&cached[0], names[m]);
    int wrong = read_concurrently(path_of, N, auth_of, 3, want);
    /* How much the reads were batched (informative: a quiet machine may answer one at a time). */
    static const char *const what[] = { "resolves by family", "resolves by pin", "pins by id",
                                        "pages of pins" };
    printf("server 0:");
    for (int m = 0; m < 8; m += 2)
        printf("%s %lld statements read %lld %s", m ? "," : "",
               imx_t_metric(&cached[0], names[m]) - before[m],
               imx_t_metric(&cached[0], names[m + 1]) - before[m + 1], what[m / 2]);
    printf("\n%d concurrent resolves and pin reads, %d wrong\n", READERS * READS_EACH, wrong);
    for (size_t k = 0; k < 3 * N; k++)
        free(want[k]);
    assert_int_equal(wrong, 0);
}

/* Many patch reads and lineages at once share their batched reads (server/db/advisories.c,
 * server/db/image_index.c): each gets its own image's document, or 404 for an id that does not
 * exist. */
static void concurrent_patches_and_lineages_get_their_own(void **state)
{
    (void)state;
    enum { PATCHES = 9, N = 2 * PATCHES };
    assert_true(n_ids >= PATCHES - 1);
    static char paths[N][PATH_LEN];
    const char *path_of[N];
    char *want[N];
    static char auth[4200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", pub);
    const char *auth_of[] = { auth };
    /* the images most advisories affect (when any do) first, so that the documents differ in
     * more than ids */
    char *most = imx_t_sql(db, "SELECT string_agg(id::text, ',') FROM (SELECT i.id FROM images i"
                               " LEFT JOIN image_advisories a ON a.image_id = i.id GROUP BY i.id"
                               " ORDER BY count(a.advisory_id) DESC, i.id LIMIT 8) m");
    assert_non_null(most);
    long long chosen[PATCHES - 1];
    const char *p = most;
    for (size_t k = 0; k + 1 < PATCHES; k++) {
        chosen[k] = *p ? strtoll(p, NULL, 10) : ids[k % n_ids];
        p += strcspn(p, ",");
        p += *p == ',';
    }
    free(most);
    int advised = 0;
    for (size_t k = 0; k < N; k++) {
        size_t i = k % PATCHES;
        long long id = i + 1 < PATCHES ? chosen[i] : ids[n_ids - 1] + 100000;
        /* patch status, and a lineage page of one child (with its next cursor) */
        snprintf(paths[k], sizeof paths[k],
                 k < PATCHES ? "/v1/images/%lld/patch" : "/v1/images/%lld/lineage?limit=1", id);
        path_of[k] = paths[k];
        const char *h[] = { auth, NULL };
        struct imx_res res;
        assert_int_equal(imx_t_http(&ref, "GET", paths[k], h, NULL, &res), 0);
        assert_int_equal(res.status, i + 1 < PATCHES ? 200 : 404);
        advised += json_array_size(json_object_get(res.json, "advisories")) > 0;
        want[k] = masked(res.body);
        imx_t_res_free(&res);
    }
    printf("%d of the images compared have advisories\n", advised);
    long long reads0 = imx_t_metric(&cached[0], "imaxe_patch_reads_total"),
              docs0 = imx_t_metric(&cached[0], "imaxe_patch_reads_docs_total"),
              lreads0 = imx_t_metric(&cached[0], "imaxe_lineage_reads_total"),
              lineages0 = imx_t_metric(&cached[0], "imaxe_lineage_reads_lineages_total");
    int wrong = read_concurrently(path_of, N, auth_of, 1, want);
    /* How much the reads were batched (informative: a quiet machine may answer one at a time). */
    printf("server 0: %lld statements read %lld patch documents, %lld read %lld lineages\n",
           imx_t_metric(&cached[0], "imaxe_patch_reads_total") - reads0,
           imx_t_metric(&cached[0], "imaxe_patch_reads_docs_total") - docs0,
           imx_t_metric(&cached[0], "imaxe_lineage_reads_total") - lreads0,
           imx_t_metric(&cached[0], "imaxe_lineage_reads_lineages_total") - lineages0);
    printf("%d concurrent patch reads and lineages, %d wrong\n", READERS * READS_EACH, wrong);
    for (size_t k = 0; k < N; k++)
        free(want[k]);
    assert_int_equal(wrong, 0);
}

/* Each caching server remembers the principal; a change through one is refused on the next
 * request to either. */
static void revocations_take_effect_at_once(void **state)
{
    (void)state;
    char user[4096], body[256];
    assert_int_equal(
        imx_t_user(&cached[0], admin, "pr-team", "rev@pr.test", "viewer", user, sizeof user), 0);
    char path[64];
    snprintf(path, sizeof path, "/v1/images/%lld", ids[0]);
    struct imx_res res;

    /* An API token, used on both servers, revoked through the first. */
    snprintf(body, sizeof body, "{\"name\":\"ci\",\"team\":\"pr-team\",\"role\":\"viewer\"}");
    assert_int_equal(call(0, user, "POST", "/v1/tokens", body, NULL, &res), 201);
    char token[256], tpath[64];
    snprintf(token, sizeof token, "%s", json_string_value(json_object_get(res.json, "token")));
    snprintf(tpath, sizeof tpath, "/v1/tokens/%lld",
             (long long)json_integer_value(json_object_get(res.json, "id")));
    imx_t_res_free(&res);
    const char *pins_path = "/v1/pins?team=pr-team";
    /* no such pin: 404 for whoever may read the team (the check and the resolve in one statement)
     */
    const char *by_pin = "/v1/images/resolve?pin=pr-team/no-such-pin&region=us-east-1";
    for (int round = 0; round < 2; round++) {
        assert_int_equal(call(0, token, "GET", path, NULL, NULL, NULL), 200);
        assert_int_equal(call(1, token, "GET", path, NULL, NULL, NULL), 200);
        assert_int_equal(call(round, token, "GET", pins_path, NULL, NULL, NULL), 200);
        assert_int_equal(call(round, token, "GET", by_pin, NULL, NULL, NULL), 404);
    }
    assert_int_equal(call(0, user, "DELETE", tpath, NULL, NULL, NULL), 204);
    assert_int_equal(call(1, token, "GET", path, NULL, NULL, NULL), 401);
    assert_int_equal(call(0, token, "GET", path, NULL, NULL, NULL), 401);
    assert_int_equal(call(1, token, "GET", "/v1/compare?ids=1,2", NULL, NULL, NULL), 401);
    assert_int_equal(call(0, token, "GET", pins_path, NULL, NULL, NULL), 401);
    assert_int_equal(call(1, token, "GET", by_pin, NULL, NULL, NULL), 401);

    /* The membership removed through the second: no team role left (403), at once on both. */
    assert_int_equal(call(0, user, "GET", path, NULL, NULL, NULL), 200);
    assert_int_equal(call(1, user, "GET", path, NULL, NULL, NULL), 200);
    /* The pin list reads the role with the page: remembered principals on both servers. */
    assert_int_equal(call(0, user, "GET", pins_path, NULL, NULL, NULL), 200);
    assert_int_equal(call(1, user, "GET", pins_path, NULL, NULL, NULL), 200);
    assert_int_equal(
        call(1, admin, "DELETE", "/v1/teams/pr-team/members/rev@pr.test", NULL, NULL, NULL), 204);
    assert_int_equal(call(0, user, "GET", path, NULL, NULL, NULL), 403);
    assert_int_equal(call(1, user, "GET", "/v1/images/resolve?family=pr-fam-0&region=us-east-1",
                          NULL, NULL, NULL),
                     403);
    assert_int_equal(call(0, user, "GET", pins_path, NULL, NULL, NULL), 403);
    assert_int_equal(call(1, user, "GET", pins_path, NULL, NULL, NULL), 403);
    assert_int_equal(call(0, user, "GET", by_pin, NULL, NULL, NULL), 403);
    /* Given back: the next request passes again. */
    assert_int_equal(call(0, admin, "PUT", "/v1/teams/pr-team/members/rev@pr.test",
                          "{\"role\":\"viewer\"}", NULL, NULL),
                     200);
    assert_int_equal(call(1, user, "GET", path, NULL, NULL, NULL), 200);
    assert_int_equal(call(0, user, "GET", pins_path, NULL, NULL, NULL), 200);
    assert_int_equal(call(1, user, "GET", by_pin, NULL, NULL, NULL), 404);

    /* The user disabled (with SQL, as an operator would): refused at once on both. */
    assert_int_equal(call(0, user, "GET", path, NULL, NULL, NULL), 200);
    free(imx_t_sql(db, "UPDATE users SET disabled_at = now() WHERE email = 'rev@pr.test'"));
    assert_int_equal(call(0, user, "GET", path, NULL, NULL, NULL), 401);
    assert_int_equal(call(1, user, "GET", "/v1/images?limit=1", NULL, NULL, NULL), 401);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_and_reads_agree),
        cmocka_unit_test(concurrent_reads_get_their_own),
        cmocka_unit_test(concurrent_compares_get_their_own),
        cmocka_unit_test(concurrent_resolves_and_pins_get_their_own),
        cmocka_unit_test(concurrent_patches_and_lineages_get_their_own),
        cmocka_unit_test(revocations_take_effect_at_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
