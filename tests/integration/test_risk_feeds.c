/* The exploitation feeds against the real server: CISA's KEV catalog (tests/data/kev, the real
 * format trimmed) and FIRST's EPSS CSV (tests/data/epss) imported over HTTP, idempotently, an
 * older feed refused; kev and epss on advisories, patch status and patch.available; the
 * advisory search's kev / min_epss filters and risk order; advisory.exploited once per pinned
 * team when a CVE enters the catalog, never twice; bad feeds refused changing nothing. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], alice[4096], bob[4096], carol[4096];
static long long v1, v2, other;

static const char *const ENV[] = { "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9",
                                   "IMAXE_WEBHOOK_POLL_MS=60000", NULL };

static char *read_data(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/%s",
             getenv("IMX_TEST_SOURCE_DIR") ? getenv("IMX_TEST_SOURCE_DIR") : ".", rel);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return strdup(buf);
}

static long long sql_count(const char *q)
{
    char *v = imx_t_sql(db, q);
    assert_non_null(v);
    long long n = atoll(v);
    free(v);
    return n;
}

/* One request as token that must answer status; returns the body's JSON (new, may be NULL). */
static json_t *call(const char *token, const char *method, const char *path, const char *body,
                    long status)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, method, path, body, &res), 0);
    if (res.status != status)
        fail_msg("%s %s: expected %ld, got %ld: %s", method, path, status, res.status, res.body);
    json_t *j = json_incref(res.json);
    imx_t_res_free(&res);
    return j;
}

/* POST /v1/risk-feeds/epss with a CSV body (content_type NULL: text/csv). */
static json_t *post_csv(const char *token, const char *csv, const char *content_type, long status)
{
    char auth[4200], ct[128];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    snprintf(ct, sizeof ct, "Content-Type: %s", content_type ? content_type : "text/csv");
    const char *headers[] = { auth, ct, NULL };
    struct imx_res res;
    assert_int_equal(imx_t_http(&srv, "POST", "/v1/risk-feeds/epss", headers, csv, &res), 0);
    if (res.status != status)
        fail_msg("POST epss: expected %ld, got %ld: %s", status, res.status, res.body);
    json_t *j = json_incref(res.json);
    imx_t_res_free(&res);
    return j;
}

/* The KEV test catalog, with its release time replaced and extra entries (a JSON array text,
 * may be NULL) appended and drop (may be NULL) left out. New string. */
static char *kev_variant(const char *released, const char *extra, const char *drop)
{
    char *text = read_data("kev/known_exploited_vulnerabilities.json", NULL);
    json_t *cat = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(cat);
    if (released)
        json_object_set_new(cat, "dateReleased", json_string(released));
    json_t *vulns = json_object_get(cat, "vulnerabilities");
    if (drop) {
        for (size_t i = 0; i < json_array_size(vulns); i++)
            if (strcmp(json_string_value(json_object_get(json_array_get(vulns, i), "cveID")),
                       drop) == 0)
                json_array_remove(vulns, i--);
    }
    if (extra) {
        json_t *more = json_loads(extra, 0, NULL);
        assert_non_null(more);
        json_array_extend(vulns, more);
        json_decref(more);
    }
    json_object_set_new(cat, "count", json_integer((json_int_t)json_array_size(vulns)));
    char *out = json_dumps(cat, JSON_COMPACT);
    json_decref(cat);
    return out;
}

static const char ADV_DRV[] =
    "{\"id\":\"R-DRV-1\",\"title\":\"Driver bulletin\",\"published\":\"2025-10-09\","
    "\"severity\":\"high\",\"cves\":[\"CVE-2025-23280\",\"CVE-2024-3400\"],\"affected\":["
    "{\"component\":\"nvidia-driver\",\"range\":\">=580,<580.95.05\",\"fixed\":\"580.95.05\"}]}";
/* Its CVE is not in the test catalog: a later import adds it. */
static const char ADV_CTK[] =
    "{\"id\":\"R-CTK-1\",\"title\":\"Toolkit bulletin\",\"published\":\"2024-09-25\","
    "\"severity\":\"critical\",\"cves\":[\"CVE-2024-0132\"],\"affected\":["
    "{\"component\":\"nvidia-container-toolkit\",\"range\":\"<=1.16.1\",\"fixed\":\"1.16.2\"}]}";
static const char ADV_NONE[] =
    "{\"id\":\"R-NONE-1\",\"title\":\"Unscored bulletin\",\"published\":\"2026-01-20\","
    "\"severity\":\"low\",\"cves\":[\"CVE-2099-0001\"],\"affected\":["
    "{\"component\":\"cuda\",\"range\":\"<11\"}]}";

static int setup(void **state)
{
    (void)state;
    if (imx_t_server_up(&srv, "risk_feeds", ENV, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "team-a", "alice@a.test", "admin", alice, sizeof alice) != 0 ||
        imx_t_user(&srv, admin, "team-b", "bob@b.test", "admin", bob, sizeof bob) != 0 ||
        imx_t_user(&srv, admin, "team-c", "carol@c.test", "admin", carol, sizeof carol) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

static void subscribe(const char *token, const char *team)
{
    char body[512];
    snprintf(body, sizeof body,
             "{\"team\":\"%s\",\"url\":\"http://127.0.0.1:9/hook\",\"events\":"
             "[\"advisory.exploited\",\"patch.available\"]}",
             team);
    json_decref(call(token, "POST", "/v1/webhooks", body, 201));
}

static void pin(const char *token, const char *team, const char *name, long long image)
{
    char body[256];
    snprintf(body, sizeof body, "{\"team\":\"%s\",\"name\":\"%s\",\"image\":%lld}", team, name,
             image);
    json_decref(call(token, "POST", "/v1/pins", body, 201));
}

static long long exploited_events(const char *team)
{
    char q[512];
    snprintf(q, sizeof q,
             "SELECT count(*) FROM webhook_events e JOIN teams t ON t.id = e.team_id"
             " WHERE e.type = 'advisory.exploited' AND t.slug = '%s'",
             team);
    return sql_count(q);
}

static void catalog_setup(void)
{
    const char *comps_v1 = "[{\"name\":\"nvidia-driver\",\"version\":\"580.82.07\"},"
                           "{\"name\":\"nvidia-container-toolkit\",\"version\":\"1.16.1\"},"
                           "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]";
    v1 = imx_t_publish(&srv, admin, "team-a", "risk", "1", comps_v1, NULL);
    other = imx_t_publish(&srv, admin, "team-a", "other", "1", comps_v1, NULL);
    assert_true(v1 > 0 && other > 0);
    json_decref(call(admin, "POST", "/v1/advisories", ADV_DRV, 201));
    json_decref(call(admin, "POST", "/v1/advisories", ADV_CTK, 201));
    json_decref(call(admin, "POST", "/v1/advisories", ADV_NONE, 201));
    /* team-a: two pins on affected images (one event still); team-b: one; team-c: none. */
    pin(alice, "team-a", "prod", v1);
    pin(alice, "team-a", "batch", other);
    pin(bob, "team-b", "prod", v1);
    subscribe(alice, "team-a");
    subscribe(bob, "team-b");
    subscribe(carol, "team-c");
}

static void kev_import_is_idempotent_and_keeps_cisa_dates(void **state)
{
    (void)state;
    catalog_setup();
    json_t *feeds = call(alice, "GET", "/v1/risk-feeds", NULL, 200);
    assert_true(json_is_null(json_object_get(feeds, "kev")));
    json_decref(feeds);
    /* Before any import: no advisory is in the catalog. */
    json_t *a = call(alice, "GET", "/v1/advisories/R-DRV-1", NULL, 200);
    assert_true(json_is_null(json_object_get(a, "kev")));
    assert_true(json_is_null(json_object_get(a, "epss")));
    json_decref(a);

    char *kev = read_data("kev/known_exploited_vulnerabilities.json", NULL);
    /* Only a global admin imports. */
    json_decref(call(alice, "POST", "/v1/risk-feeds/kev", kev, 403));
    json_t *out = call(admin, "POST", "/v1/risk-feeds/kev", kev, 200);
    assert_string_equal(json_string_value(json_object_get(out, "outcome")), "imported");
    assert_int_equal(json_integer_value(json_object_get(out, "entries")), 5);
    assert_int_equal(json_integer_value(json_object_get(out, "added")), 5);
    /* CVE-2024-3400 already affects team-a's and team-b's pins. */
    assert_int_equal(json_integer_value(json_object_get(out, "exploited_events")), 2);
    json_decref(out);
    assert_int_equal(exploited_events("team-a"), 1);
    assert_int_equal(exploited_events("team-b"), 1);
    assert_int_equal(exploited_events("team-c"), 0);

    /* The same catalog again changes nothing and sends nothing. */
    out = call(admin, "POST", "/v1/risk-feeds/kev", kev, 200);
    assert_string_equal(json_string_value(json_object_get(out, "outcome")), "unchanged");
    assert_int_equal(json_integer_value(json_object_get(out, "exploited_events")), 0);
    json_decref(out);
    assert_int_equal(exploited_events("team-a"), 1);
    free(kev);

    /* CISA's dates, not the import's. */
    a = call(alice, "GET", "/v1/advisories/R-DRV-1", NULL, 200);
    json_t *k = json_object_get(a, "kev");
    assert_string_equal(json_string_value(json_object_get(k, "cve")), "CVE-2024-3400");
    assert_string_equal(json_string_value(json_object_get(k, "date_added")), "2024-04-12");
    assert_string_equal(json_string_value(json_object_get(k, "due_date")), "2024-04-19");
    assert_string_equal(json_string_value(json_object_get(k, "known_ransomware_campaign_use")),
                        "Known");
    json_decref(a);
    feeds = call(alice, "GET", "/v1/risk-feeds", NULL, 200);
    json_t *fk = json_object_get(feeds, "kev");
    assert_string_equal(json_string_value(json_object_get(fk, "catalog_version")), "2025.08.25");
    assert_int_equal(json_integer_value(json_object_get(fk, "entries")), 5);
    json_decref(feeds);
    /* The payload's data: the team, the CVE, its KEV entry, the advisory and both pins. */
    char *data = imx_t_sql(db, "SELECT e.data::text FROM webhook_events e JOIN teams t"
                               " ON t.id = e.team_id WHERE e.type = 'advisory.exploited'"
                               " AND t.slug = 'team-a'");
    json_t *d = json_loads(data, 0, NULL);
    free(data);
    assert_string_equal(json_string_value(json_object_get(d, "cve")), "CVE-2024-3400");
    assert_string_equal(json_string_value(json_object_get(d, "team")), "team-a");
    assert_int_equal(json_array_size(json_object_get(d, "pins")), 2);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(d, "advisories"), 0), "id")),
                        "R-DRV-1");
    assert_string_equal(json_string_value(json_object_get(json_object_get(d, "kev"), "date_added")),
                        "2024-04-12");
    json_decref(d);
}

static void a_cve_entering_the_catalog_is_announced_once(void **state)
{
    (void)state;
    static const char ctk[] =
        "[{\"cveID\":\"CVE-2024-0132\",\"vendorProject\":\"NVIDIA\",\"product\":\"Container "
        "Toolkit\",\"vulnerabilityName\":\"NVIDIA Container Toolkit TOCTOU Vulnerability\","
        "\"dateAdded\":\"2024-12-06\",\"shortDescription\":\"...\",\"requiredAction\":\"...\","
        "\"dueDate\":\"2024-12-27\",\"knownRansomwareCampaignUse\":\"Unknown\",\"notes\":\"\","
        "\"cwes\":[\"CWE-367\"]}]";
    /* An older catalog is refused and changes nothing. */
    char *old = kev_variant("2025-08-01T00:00:00.000Z", ctk, NULL);
    json_decref(call(admin, "POST", "/v1/risk-feeds/kev", old, 409));
    free(old);
    assert_int_equal(sql_count("SELECT count(*) FROM kev_entries"), 5);

    char *next = kev_variant("2025-08-26T17:00:00.000Z", ctk, NULL);
    json_t *out = call(admin, "POST", "/v1/risk-feeds/kev", next, 200);
    assert_int_equal(json_integer_value(json_object_get(out, "added")), 1);
    assert_int_equal(json_integer_value(json_object_get(out, "exploited_events")), 2);
    json_decref(out);
    assert_int_equal(exploited_events("team-a"), 2);
    assert_int_equal(exploited_events("team-b"), 2);
    assert_int_equal(exploited_events("team-c"), 0);

    /* Leaving the catalog and coming back sends nothing again. */
    char *without = kev_variant("2025-08-27T17:00:00.000Z", NULL, "CVE-2024-3400");
    out = call(admin, "POST", "/v1/risk-feeds/kev", without, 200);
    assert_int_equal(json_integer_value(json_object_get(out, "removed")), 2);
    json_decref(out);
    json_t *a = call(alice, "GET", "/v1/advisories/R-DRV-1", NULL, 200);
    assert_true(json_is_null(json_object_get(a, "kev")));
    json_decref(a);
    char *back = kev_variant("2025-08-28T17:00:00.000Z", ctk, NULL);
    out = call(admin, "POST", "/v1/risk-feeds/kev", back, 200);
    assert_int_equal(json_integer_value(json_object_get(out, "added")), 2);
    assert_int_equal(json_integer_value(json_object_get(out, "exploited_events")), 0);
    json_decref(out);
    assert_int_equal(exploited_events("team-a"), 2);
    assert_int_equal(exploited_events("team-b"), 2);
    free(next);
    free(without);
    free(back);
}

static void epss_import_shows_the_highest_score(void **state)
{
    (void)state;
    char *csv = read_data("epss/epss_scores-2024-12-05.csv", NULL);
    json_decref(post_csv(alice, csv, NULL, 403));
    json_decref(post_csv(admin, csv, "application/json", 415));
    json_t *out = post_csv(admin, csv, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(out, "outcome")), "imported");
    assert_int_equal(json_integer_value(json_object_get(out, "scores")), 3);
    assert_string_equal(json_string_value(json_object_get(out, "score_date")), "2024-12-05");
    json_decref(out);
    out = post_csv(admin, csv, NULL, 200);
    assert_string_equal(json_string_value(json_object_get(out, "outcome")), "unchanged");
    json_decref(out);

    /* R-DRV-1 lists CVE-2025-23280 (no score on 2024-12-05: published later) and CVE-2024-3400
     * (0.96476): the highest scored. */
    json_t *a = call(alice, "GET", "/v1/advisories/R-DRV-1", NULL, 200);
    json_t *e = json_object_get(a, "epss");
    assert_string_equal(json_string_value(json_object_get(e, "cve")), "CVE-2024-3400");
    assert_true(json_real_value(json_object_get(e, "score")) == 0.96476);
    assert_true(json_real_value(json_object_get(e, "percentile")) == 0.99644);
    assert_string_equal(json_string_value(json_object_get(e, "date")), "2024-12-05");
    json_decref(a);

    /* The patch status shows both on every entry. */
    char path[64];
    snprintf(path, sizeof path, "/v1/images/%lld/patch", v1);
    json_t *p = call(alice, "GET", path, NULL, 200);
    json_t *advs = json_object_get(p, "advisories");
    assert_int_equal(json_array_size(advs), 2);
    size_t i;
    json_t *entry;
    json_array_foreach(advs, i, entry)
    {
        const char *id = json_string_value(json_object_get(entry, "id"));
        json_t *kev = json_object_get(entry, "kev");
        assert_non_null(kev);
        assert_non_null(json_object_get(entry, "epss"));
        /* Both CVEs are in the catalog now (CVE-2024-0132 since the second import). */
        assert_true(json_is_object(kev));
        if (strcmp(id, "R-CTK-1") == 0)
            assert_true(json_real_value(json_object_get(json_object_get(entry, "epss"), "score")) ==
                        0.00091);
    }
    json_decref(p);

    /* Older scores are refused. */
    char *older = strdup(csv);
    memcpy(strstr(older, "2024-12-05"), "2024-12-01", 10);
    json_decref(post_csv(admin, older, NULL, 409));
    free(older);
    free(csv);
}

/* GET path as token: 200, its ETag into etag and its document (new reference). */
static json_t *get_with_etag(const char *token, const char *path, char etag[128])
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, "GET", path, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_non_null(imx_t_header(&res, "ETag", etag, 128));
    json_t *j = json_incref(res.json);
    imx_t_res_free(&res);
    return j;
}

/* The pin named prod of team-a, from the team's list (new reference). */
static json_t *prod_pin(void)
{
    json_t *page = call(alice, "GET", "/v1/pins?team=team-a", NULL, 200);
    json_t *found = NULL, *it;
    size_t i;
    json_array_foreach(json_object_get(page, "items"), i, it)
    {
        if (strcmp(json_string_value(json_object_get(it, "name")), "prod") == 0)
            found = json_incref(it);
    }
    json_decref(page);
    assert_non_null(found);
    return found;
}

/* An advisory's ETag follows what it shows: a feed import that changes its kev or epss changes
 * the ETag, its revision unmoved; an import that changes nothing keeps it; If-Match still takes
 * either form. Pin documents (stored) show the same kev and epss, KEV first, rewritten by the
 * import. */
static void feeds_move_etags_and_pin_documents(void **state)
{
    (void)state;
    char e1[128], e2[128], e3[128];
    json_t *a1 = get_with_etag(alice, "/v1/advisories/R-DRV-1", e1);
    json_t *a2 = get_with_etag(alice, "/v1/advisories/R-DRV-1", e2);
    assert_string_equal(e1, e2);
    assert_true(e1[0] == '"' && e1[1] == 'r' && strchr(e1, '.') != NULL);
    json_decref(a2);

    json_t *p = prod_pin();
    assert_int_equal(json_integer_value(json_object_get(p, "kev_count")), 2);
    json_t *first = json_array_get(json_object_get(p, "advisories"), 0);
    assert_true(json_is_object(json_object_get(first, "kev")));
    assert_true(json_real_value(json_object_get(json_object_get(first, "epss"), "score")) > 0);
    json_decref(p);

    /* The next day's scores: CVE-2024-3400's moves. */
    char *csv = read_data("epss/epss_scores-2024-12-05.csv", NULL);
    char *next = strdup(csv);
    memcpy(strstr(next, "2024-12-05"), "2024-12-06", 10);
    memcpy(strstr(next, "0.96476,0.99644"), "0.96500,0.99650", 15);
    json_decref(post_csv(admin, next, NULL, 200));
    json_t *a3 = get_with_etag(alice, "/v1/advisories/R-DRV-1", e3);
    assert_string_not_equal(e1, e3);
    assert_int_equal(json_integer_value(json_object_get(a1, "revision")),
                     json_integer_value(json_object_get(a3, "revision")));
    assert_true(json_real_value(json_object_get(json_object_get(a3, "epss"), "score")) == 0.965);
    json_decref(a1);
    json_decref(a3);
    /* The stored pin document was written again with the new score. */
    p = prod_pin();
    json_t *adv;
    size_t i;
    bool seen = false;
    json_array_foreach(json_object_get(p, "advisories"), i, adv)
    {
        if (strcmp(json_string_value(json_object_get(adv, "id")), "R-DRV-1") == 0) {
            seen = true;
            assert_true(json_real_value(json_object_get(json_object_get(adv, "epss"), "score")) ==
                        0.965);
        }
    }
    assert_true(seen);
    json_decref(p);
    /* The same scores again: nothing changes, nor the ETag. */
    json_decref(post_csv(admin, next, NULL, 200));
    char e4[128];
    json_decref(get_with_etag(alice, "/v1/advisories/R-DRV-1", e4));
    assert_string_equal(e3, e4);
    free(next);
    free(csv);
}

static void search_filters_and_sorts_by_risk(void **state)
{
    (void)state;
    json_t *page = call(alice, "GET", "/v1/advisories?kev=true", NULL, 200);
    json_t *items = json_object_get(page, "items");
    assert_int_equal(json_array_size(items), 2);
    json_decref(page);
    page = call(alice, "GET", "/v1/advisories?kev=false", NULL, 200);
    items = json_object_get(page, "items");
    assert_int_equal(json_array_size(items), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(items, 0), "id")),
                        "R-NONE-1");
    json_decref(page);
    page = call(alice, "GET", "/v1/advisories?min_epss=0.1", NULL, 200);
    items = json_object_get(page, "items");
    assert_int_equal(json_array_size(items), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(items, 0), "id")),
                        "R-DRV-1");
    json_decref(page);

    /* Risk order, one a page through the cursor: KEV and highest EPSS first, then the rest. */
    const char *want[] = { "R-DRV-1", "R-CTK-1", "R-NONE-1" };
    char path[1200] = "/v1/advisories?sort=risk&limit=1";
    for (int n = 0; n < 3; n++) {
        page = call(alice, "GET", path, NULL, 200);
        items = json_object_get(page, "items");
        assert_int_equal(json_array_size(items), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(items, 0), "id")),
                            want[n]);
        const char *next = json_string_value(json_object_get(page, "next_cursor"));
        if (n < 2) {
            assert_non_null(next);
            snprintf(path, sizeof path, "/v1/advisories?sort=risk&limit=1&cursor=%s", next);
        } else {
            assert_null(next);
        }
        json_decref(page);
    }
    /* Default order still newest first. */
    page = call(alice, "GET", "/v1/advisories", NULL, 200);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(page, "items"), 0), "id")),
        "R-NONE-1");
    json_decref(page);

    json_decref(call(alice, "GET", "/v1/advisories?kev=yes", NULL, 400));
    json_decref(call(alice, "GET", "/v1/advisories?min_epss=2", NULL, 400));
    json_decref(call(alice, "GET", "/v1/advisories?min_epss=abc", NULL, 400));
    json_decref(call(alice, "GET", "/v1/advisories?sort=cvss", NULL, 400));
}

static void patch_available_carries_kev_and_epss(void **state)
{
    (void)state;
    /* The fix for R-DRV-1 (not for R-CTK-1: toolkit stays 1.16.1). */
    const char *comps = "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"},"
                        "{\"name\":\"nvidia-container-toolkit\",\"version\":\"1.16.1\"},"
                        "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]";
    v2 = imx_t_publish(&srv, admin, "team-a", "risk", "2", comps, NULL);
    assert_true(v2 > 0);
    char *data = imx_t_sql(db, "SELECT e.data::text FROM webhook_events e JOIN teams t"
                               " ON t.id = e.team_id WHERE e.type = 'patch.available'"
                               " AND t.slug = 'team-a' ORDER BY e.id LIMIT 1");
    assert_non_null(data);
    json_t *d = json_loads(data, 0, NULL);
    free(data);
    json_t *adv = json_array_get(json_object_get(d, "advisories"), 0);
    assert_string_equal(json_string_value(json_object_get(adv, "id")), "R-DRV-1");
    assert_string_equal(json_string_value(json_object_get(json_object_get(adv, "kev"), "cve")),
                        "CVE-2024-3400");
    assert_true(json_real_value(json_object_get(json_object_get(adv, "epss"), "score")) == 0.96476);
    json_decref(d);
}

static void bad_feeds_change_nothing(void **state)
{
    (void)state;
    long long kev_before = sql_count("SELECT count(*) FROM kev_entries");
    long long epss_before = sql_count("SELECT count(*) FROM epss_scores");
    static const char *const bad_kev[] = {
        "{}",
        "{\"catalogVersion\":\"x\",\"dateReleased\":\"yesterday\",\"vulnerabilities\":[]}",
        "{\"catalogVersion\":\"x\",\"dateReleased\":\"2030-01-01T00:00:00Z\","
        "\"vulnerabilities\":[{\"cveID\":\"CVE-24-1\",\"dateAdded\":\"2024-01-01\"}]}",
        "{\"catalogVersion\":\"x\",\"dateReleased\":\"2030-01-01T00:00:00Z\","
        "\"vulnerabilities\":[{\"cveID\":\"CVE-2024-1234\",\"dateAdded\":\"01/02/2024\"}]}",
        /* the same CVE twice */
        "{\"catalogVersion\":\"x\",\"dateReleased\":\"2030-01-01T00:00:00Z\","
        "\"vulnerabilities\":[{\"cveID\":\"CVE-2024-1234\",\"dateAdded\":\"2024-01-01\"},"
        "{\"cveID\":\"CVE-2024-1234\",\"dateAdded\":\"2024-01-02\"}]}",
        /* not a calendar date: PostgreSQL says so */
        "{\"catalogVersion\":\"x\",\"dateReleased\":\"2030-01-01T00:00:00Z\","
        "\"vulnerabilities\":[{\"cveID\":\"CVE-2024-1234\",\"dateAdded\":\"2024-02-30\"}]}",
    };
    for (size_t i = 0; i < sizeof bad_kev / sizeof bad_kev[0]; i++) {
        struct imx_res res;
        assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/risk-feeds/kev", bad_kev[i], &res),
                         0);
        if (res.status != 400 && res.status != 422)
            fail_msg("bad KEV %zu: %ld %s", i, res.status, res.body);
        imx_t_res_free(&res);
    }
    static const char *const bad_epss[] = {
        "",
        "cve,epss,percentile\nCVE-2024-0001,0.1,0.2\n",
        "#model_version:v1,score_date:2030-01-01\ncve,epss\nCVE-2024-0001,0.1\n",
        "#model_version:v1,score_date:2030-01-01\ncve,epss,percentile\nCVE-2024-0001,1.5,0.2\n",
        "#model_version:v1,score_date:2030-01-01\ncve,epss,percentile\nCVE-2024-0001,0.1\n",
        "#model_version:v1,score_date:2030-01-01\ncve,epss,percentile\nnope,0.1,0.2\n",
        "#model_version:v1,score_date:2030-01-01\ncve,epss,percentile\nCVE-2024-0001,0.1,0.2\n"
        "CVE-2024-0001,0.3,0.4\n",
    };
    for (size_t i = 0; i < sizeof bad_epss / sizeof bad_epss[0]; i++) {
        json_t *out = post_csv(admin, bad_epss[i], NULL, 400);
        json_decref(out);
    }
    assert_int_equal(sql_count("SELECT count(*) FROM kev_entries"), kev_before);
    assert_int_equal(sql_count("SELECT count(*) FROM epss_scores"), epss_before);
}

/* The CLI sends FIRST's gzipped file decompressed: the same scores as the CSV imported over
 * HTTP before, so nothing changes; an older KEV catalog exits 3 (refused). */
static void cli_imports_gzipped_epss(void **state)
{
    (void)state;
    const char *cli = getenv("IMX_TEST_CLI");
    if (!cli)
        skip();
    const char *src = getenv("IMX_TEST_SOURCE_DIR") ? getenv("IMX_TEST_SOURCE_DIR") : ".";
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "IMAXE_URL=%s IMAXE_TOKEN=%s XDG_CONFIG_HOME=/nonexistent %s advisories import-epss "
             "%s/tests/data/epss/epss_scores-2024-12-05.csv.gz -o json",
             srv.base, admin, cli, src);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[4096];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    json_t *doc = json_loads(out, 0, NULL);
    if (!doc)
        fail_msg("imaxe advisories import-epss printed: %s", out);
    assert_string_equal(json_string_value(json_object_get(doc, "outcome")), "unchanged");
    assert_int_equal(json_integer_value(json_object_get(doc, "scores")), 3);
    json_decref(doc);
    snprintf(cmd, sizeof cmd,
             "IMAXE_URL=%s IMAXE_TOKEN=%s XDG_CONFIG_HOME=/nonexistent %s advisories import-kev "
             "%s/tests/data/kev/known_exploited_vulnerabilities.json >/dev/null 2>&1",
             srv.base, admin, cli, src);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kev_import_is_idempotent_and_keeps_cisa_dates),
        cmocka_unit_test(a_cve_entering_the_catalog_is_announced_once),
        cmocka_unit_test(epss_import_shows_the_highest_score),
        cmocka_unit_test(search_filters_and_sorts_by_risk),
        cmocka_unit_test(patch_available_carries_kev_and_epss),
        cmocka_unit_test(bad_feeds_change_nothing),
        cmocka_unit_test(cli_imports_gzipped_epss),
        cmocka_unit_test(feeds_move_etags_and_pin_documents), /* last: moves the scores' date */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
