/* The in-memory search index as tables: which images a query returns, in which order, the next
 * cursor's text, facet text, and updates after the index is sealed. The same results as the SQL
 * search are checked against a real server in tests/integration/test_search_index.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "domain/image_index.h"

#define MAX_IDS 16

/* A fixture image: the fields the tables vary; the rest are fixed. */
struct fx {
    int64_t id;
    const char *family, *provider, *arch, *os_name, *os_version, *status, *patch_status;
    int64_t published_us, revoke_us;
    int32_t boot;
    const char *size;
    const char *gpus[3];
    const char *regions[3];
    const char *tags[3];
    const char *driver, *cuda; /* versions, or NULL */
};

#define T0  1700000000000000LL /* published_us of image 1; later images are later */
#define NOW (T0 + 1000000000LL)

/* id, family, provider, arch, os, status, patch status, published, revoke_at, boot, size,
 * gpus, regions, tags, driver, cuda. */
// clang-format off
static const struct fx FIXTURES[] = {
    { 1, "alpha", "aws", "x86_64", "ubuntu", "22.04", "active", "ok", T0 + 1, IMX_IX_NO_TIME,
      60, "40.50", { "H100", "A100" }, { "us-east-1" }, { "cis" }, "580.95.05", "12.4.1" },
    { 2, "alpha", "aws", "x86_64", "ubuntu", "24.04", "active", "vulnerable", T0 + 2,
      IMX_IX_NO_TIME, 45, "40.50", { "H100" }, { "us-east-1", "us-west-2" }, { "cis", "fips" },
      "580.105.08", "12.8" },
    { 3, "a-beta", "gcp", "arm64", "ubuntu", "24.04", "deprecated", "ok", T0 + 3, IMX_IX_NO_TIME,
      -1, NULL, { "B200" }, { "us-west-2" }, { 0 }, "590.44.01", "13.0" },
    { 4, "a.gamma", "azure", "x86_64", "rocky", "9", "revoked", "revoked", T0 + 4, IMX_IX_NO_TIME,
      30, "7", { "L4" }, { "eu-west-1" }, { "stig" }, "535.261.03", "12.2" },
    /* Scheduled to be revoked after NOW: active until then. */
    { 5, "alpha", "onprem", "x86_64", "ubuntu", "24.04", "active", "ok", T0 + 5, NOW + 1, 45,
      "12.00", { "H100", "B200" }, { "us-east-1" }, { "cis" }, "580.126.09", NULL },
    /* Its revocation is due: revoked now. */
    { 6, "a_delta", "aws", "x86_64", "ubuntu", "22.04", "active", "ok", T0 + 6, NOW, 90, "0.00",
      { "A100" }, { "us-east-1" }, { 0 }, NULL, "12.4" },
    /* Same publication time as 1: the id breaks the tie. */
    { 7, "zeta", "aws", "x86_64", "ubuntu", "22.04", "active", "ok", T0 + 1, IMX_IX_NO_TIME, 60,
      "40.50", { "MysteryGPU" }, { 0 }, { "cis" }, "580.95.05", "12.4" },
};
// clang-format on
#define N_FIXTURES (sizeof FIXTURES / sizeof FIXTURES[0])

static size_t count_of(const char *const *v, size_t max)
{
    size_t n = 0;
    while (n < max && v[n])
        n++;
    return n;
}

/* Puts one fixture (with status overridden when not NULL). */
static void put_fixture(struct imx_ix *ix, const struct fx *f, const char *status)
{
    struct imx_ix_component comps[2];
    size_t n = 0;
    const char *names[] = { "nvidia-driver", "cuda" };
    const char *versions[] = { f->driver, f->cuda };
    const char *fw[] = { "pytorch 2.9" };
    for (int i = 0; i < 2; i++) {
        if (!versions[i])
            continue;
        struct imx_ver v;
        assert_int_equal(imx_ver_parse(versions[i], &v), 0);
        comps[n].name = names[i];
        memcpy(comps[n].key, v.key, sizeof v.key);
        n++;
    }
    char cuda_mm[16] = "";
    if (f->cuda) {
        struct imx_ver v;
        assert_int_equal(imx_ver_parse(f->cuda, &v), 0);
        snprintf(cuda_mm, sizeof cuda_mm, "%d.%d", v.key[0], v.key[1]);
    }
    char branch[16] = "";
    if (f->driver)
        snprintf(branch, sizeof branch, "R%.3s", f->driver);
    struct imx_ix_row row = {
        .id = f->id,
        .family = f->family,
        .provider = f->provider,
        .architecture = f->arch,
        .os_name = f->os_name,
        .os_version = f->os_version,
        .layer = "platform",
        .status = status ? status : f->status,
        .patch_status = f->patch_status,
        .os_patch_status = strcmp(f->patch_status, "ok") == 0 ? "unknown" : f->patch_status,
        .published_us = f->published_us,
        .revoke_us = f->revoke_us,
        .boot_seconds = f->boot,
        .size_text = f->size,
        .facet_cuda = f->cuda ? cuda_mm : NULL,
        .facet_driver = f->driver ? branch : NULL,
        .gpus = f->gpus,
        .n_gpus = count_of(f->gpus, 3),
        .regions = f->regions,
        .n_regions = count_of(f->regions, 3),
        .tags = f->tags,
        .n_tags = count_of(f->tags, 3),
        .frameworks = fw,
        .n_frameworks = f->id % 2,
        .components = comps,
        .n_components = n,
    };
    assert_int_equal(imx_ix_put(ix, &row), 0);
}

static struct imx_ix *fixture_index(void)
{
    struct imx_ix *ix = imx_ix_new();
    assert_non_null(ix);
    /* Put in an order that is none of the sorts. */
    static const int order[] = { 3, 0, 6, 5, 1, 4, 2 };
    for (size_t i = 0; i < N_FIXTURES; i++)
        put_fixture(ix, &FIXTURES[order[i]], NULL);
    imx_ix_seal(ix);
    assert_int_equal(imx_ix_count(ix), N_FIXTURES);
    return ix;
}

/* A query in a table row: "name=value" settings applied to a fresh query. */
struct qcase {
    const char *what;
    const char *args[6];
    int64_t want[MAX_IDS]; /* ids in order, ended by 0 */
    const char *next;      /* raw next cursor, "" when none */
};

static void apply_arg(struct imx_ix_query *q, const char *arg)
{
    const char *eq = strchr(arg, '=');
    assert_non_null(eq);
    size_t n = (size_t)(eq - arg);
    const char *v = eq + 1;
#define IS(name) (n == strlen(name) && strncmp(arg, name, n) == 0)
    if (IS("family"))
        q->family = v;
    else if (IS("provider"))
        q->provider = v;
    else if (IS("region"))
        q->region = v;
    else if (IS("arch"))
        q->architecture = v;
    else if (IS("os_name"))
        q->os_name = v;
    else if (IS("os_version"))
        q->os_version = v;
    else if (IS("patch_status"))
        q->patch_status = v;
    else if (IS("os_patch_status"))
        q->os_patch_status = v;
    else if (IS("status"))
        q->status = strcmp(v, "any") == 0 ? NULL : v;
    else if (IS("gpu")) {
        q->gpu_filter = true;
        if (*v)
            q->gpus[q->n_gpus++] = v;
    } else if (IS("gpu_any_case")) {
        q->gpu_filter = true;
        q->gpu_any_case = v;
    } else if (IS("tag"))
        q->tags[q->n_tags++] = v;
    else if (IS("limit"))
        q->limit = atoi(v);
    else if (IS("sort"))
        q->sort = (enum imx_ix_sort)atoi(v);
    else if (IS("after")) {
        /* "id:key" */
        q->after = true;
        q->after_id = strtoll(v, NULL, 10);
        q->after_key = strchr(v, ':') + 1;
    } else if (IS("driver") || IS("cuda")) {
        size_t i = q->n_cons++;
        q->con_names[i] = IS("driver") ? "nvidia-driver" : "cuda";
        assert_int_equal(imx_constraint_parse(v, &q->cons[i], NULL, 0), 0);
    } else
        fail_msg("unknown argument %s", arg);
#undef IS
}

static void run_case(const struct imx_ix *ix, const struct qcase *c)
{
    struct imx_ix_query q = { .status = "active", .now_us = NOW, .limit = 50 };
    for (size_t i = 0; i < 6 && c->args[i]; i++)
        apply_arg(&q, c->args[i]);
    struct imx_ix_page page;
    assert_int_equal(imx_ix_page(ix, &q, &page), 0);
    size_t want_n = 0;
    while (want_n < MAX_IDS && c->want[want_n])
        want_n++;
    char got[256] = "", want[256] = "";
    for (size_t i = 0; i < page.n; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), " %lld", (long long)page.ids[i]);
    for (size_t i = 0; i < want_n; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), " %lld", (long long)c->want[i]);
    if (strcmp(got, want) != 0 || strcmp(page.next, c->next) != 0)
        fail_msg("%s: ids [%s ] next \"%s\", want [%s ] next \"%s\"", c->what, got, page.next, want,
                 c->next);
}

static const struct qcase CASES[] = {
    /* The default: active now, newest first; 5 is active until NOW+1, 6 revoked at NOW. */
    { "default", { 0 }, { 5, 2, 7, 1 }, "" },
    { "limit 2 gives a published cursor", { "limit=2" }, { 5, 2 }, "p:2:1700000000000002" },
    { "after the cursor", { "after=2:1700000000000002" }, { 7, 1 }, "" },
    { "a tie in published_at is broken by id", { "after=7:1700000000000001" }, { 1 }, "" },
    { "status any", { "status=any" }, { 6, 5, 4, 3, 2, 7, 1 }, "" },
    { "status revoked counts revoke_at", { "status=revoked" }, { 6, 4 }, "" },
    { "status deprecated", { "status=deprecated" }, { 3 }, "" },
    { "family sort, bytes", { "status=any", "sort=1" }, { 3, 4, 6, 1, 2, 5, 7 }, "" },
    { "family cursor", { "status=any", "sort=1", "limit=3" }, { 3, 4, 6 }, "f:6:a_delta" },
    { "after a family cursor",
      { "status=any", "sort=1", "after=6:a_delta", "limit=3" },
      { 1, 2, 5 },
      "f:5:alpha" },
    { "boot sort, unknown last", { "status=any", "sort=2" }, { 4, 2, 5, 1, 7, 6, 3 }, "" },
    { "boot cursor of unknown", { "status=any", "sort=2", "after=6:90", "limit=1" }, { 3 }, "" },
    { "boot cursor", { "status=any", "sort=2", "limit=2" }, { 4, 2 }, "b:2:45" },
    { "size sort, unknown last", { "status=any", "sort=3" }, { 6, 4, 5, 1, 2, 7, 3 }, "" },
    { "size cursor text", { "status=any", "sort=3", "limit=4" }, { 6, 4, 5, 1 }, "s:1:40.50" },
    { "size after 40.50 id 1", { "status=any", "sort=3", "after=1:40.50" }, { 2, 7, 3 }, "" },
    { "size after Infinity", { "status=any", "sort=3", "after=2:Infinity" }, { 3 }, "" },
    { "size unknown cursor",
      { "status=any", "sort=3", "limit=6" },
      { 6, 4, 5, 1, 2, 7 },
      "s:7:40.50" },
    { "driver >= 580.95.05", { "driver=>=580.95.05" }, { 5, 2, 7, 1 }, "" },
    { "driver < 580.105.08 (95 < 105)", { "driver=<580.105.08" }, { 7, 1 }, "" },
    { "driver > 580.95.05", { "driver=>580.95.05" }, { 5, 2 }, "" },
    { "driver ~580", { "driver=~580", "status=any" }, { 5, 2, 7, 1 }, "" },
    { "driver and cuda", { "driver=~580", "cuda=12.4.*" }, { 7, 1 }, "" },
    { "no cuda component never matches", { "cuda=>=0" }, { 2, 7, 1 }, "" },
    { "no version in range", { "driver=>=999" }, { 0 }, "" },
    { "gpu any of the models", { "gpu=B200", "gpu=A100", "status=any" }, { 6, 5, 3, 1 }, "" },
    { "gpu as stored, unknown model", { "gpu=MysteryGPU" }, { 7 }, "" },
    { "unknown model in another case", { "gpu=mysterygpu" }, { 0 }, "" },
    { "unknown model in any case", { "gpu=mysterygpu", "gpu_any_case=mysteryGPU" }, { 7 }, "" },
    { "any case is ASCII only, whole name", { "gpu_any_case=mystery" }, { 0 }, "" },
    { "gpu with no models", { "gpu=" }, { 0 }, "" },
    { "gpu nobody has", { "gpu=MI300X" }, { 0 }, "" },
    { "region", { "region=us-west-2", "status=any" }, { 3, 2 }, "" },
    { "region nobody has", { "region=ap-south-1" }, { 0 }, "" },
    { "tags all present", { "tag=cis", "tag=fips" }, { 2 }, "" },
    { "tag", { "tag=cis" }, { 5, 2, 7, 1 }, "" },
    { "tag only a revoked image has", { "tag=stig" }, { 0 }, "" },
    { "os name", { "os_name=rocky", "status=any" }, { 4 }, "" },
    { "os name and version", { "os_name=ubuntu", "os_version=24.04" }, { 5, 2 }, "" },
    { "provider and arch", { "provider=aws", "arch=x86_64" }, { 2, 7, 1 }, "" },
    { "arch arm64", { "arch=arm64", "status=any" }, { 3 }, "" },
    { "patch status", { "patch_status=vulnerable" }, { 2 }, "" },
    { "OS patch status", { "os_patch_status=vulnerable" }, { 2 }, "" },
    { "family", { "family=alpha", "status=any" }, { 5, 2, 1 }, "" },
    { "family unknown", { "family=omega" }, { 0 }, "" },
};

static void pages_follow_the_table(void **state)
{
    (void)state;
    struct imx_ix *ix = fixture_index();
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        run_case(ix, &CASES[i]);
    imx_ix_free(ix);
}

/* The same table when every page with a family or list filter gathers its candidates from the
 * postings after walking 1, 2 or 3 images (instead of 4096): the same ids, order and cursors. */
static void gathered_pages_are_the_walked_pages(void **state)
{
    (void)state;
    for (uint32_t budget = 1; budget <= 3; budget++) {
        struct imx_ix *ix = fixture_index();
        imx_ix_set_walk_budget(ix, budget);
        for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
            run_case(ix, &CASES[i]);
        /* And after updates, which move images between postings. */
        put_fixture(ix, &FIXTURES[1], "deprecated");
        run_case(ix, &(struct qcase){ "gathered, replaced", { "tag=cis" }, { 5, 7, 1 }, "" });
        run_case(ix, &(struct qcase){ "gathered, family",
                                      { "family=alpha", "limit=1" },
                                      { 5 },
                                      "p:5:1700000000000005" });
        run_case(ix, &(struct qcase){ "gathered, family after cursor",
                                      { "family=alpha", "after=5:1700000000000005" },
                                      { 1 },
                                      "" });
        imx_ix_free(ix);
    }
}

static void malformed_queries_are_refused(void **state)
{
    (void)state;
    struct imx_ix *ix = fixture_index();
    static const struct {
        enum imx_ix_sort sort;
        const char *key;
        int limit;
    } bad[] = {
        { IMX_IX_PUBLISHED_DESC, "12x", 10 },
        { IMX_IX_PUBLISHED_DESC, "", 10 },
        { IMX_IX_PUBLISHED_DESC, "99999999999999999999", 10 },
        { IMX_IX_BOOT, "2147483648", 10 },
        { IMX_IX_BOOT, "-1", 10 },
        { IMX_IX_SIZE, "1.2.3", 10 },
        { IMX_IX_SIZE, ".", 10 },
        { IMX_IX_SIZE, "1.234", 10 },
        { IMX_IX_FAMILY, NULL, 10 },
        { IMX_IX_FAMILY, "a", 0 },
        { IMX_IX_FAMILY, "a", IMX_IX_PAGE_MAX + 1 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct imx_ix_query q = { .now_us = NOW,
                                  .limit = bad[i].limit,
                                  .sort = bad[i].sort,
                                  .after = true,
                                  .after_id = 1,
                                  .after_key = bad[i].key };
        struct imx_ix_page page;
        if (imx_ix_page(ix, &q, &page) != -1)
            fail_msg("case %zu (%s) was accepted", i, bad[i].key ? bad[i].key : "NULL");
    }
    imx_ix_free(ix);
}

static void updates_after_sealing_keep_the_orders(void **state)
{
    (void)state;
    struct imx_ix *ix = fixture_index();
    /* A status change in place. */
    put_fixture(ix, &FIXTURES[1], "deprecated");
    run_case(ix, &(struct qcase){ "replaced", { 0 }, { 5, 7, 1 }, "" });
    run_case(ix, &(struct qcase){ "replaced, deprecated", { "status=deprecated" }, { 3, 2 }, "" });
    /* New images land at their place in every order. */
    struct fx newer = FIXTURES[0];
    newer.id = 8;
    newer.family = "b";
    newer.published_us = T0 + 3;
    newer.boot = 1;
    newer.size = "1.5";
    put_fixture(ix, &newer, NULL);
    assert_int_equal(imx_ix_count(ix), N_FIXTURES + 1);
    run_case(ix, &(struct qcase){ "inserted", { 0 }, { 5, 8, 7, 1 }, "" });
    run_case(ix,
             &(struct qcase){
                 "inserted, family", { "sort=1", "status=any" }, { 3, 4, 6, 1, 2, 5, 8, 7 }, "" });
    run_case(ix, &(struct qcase){ "inserted, boot", { "sort=2", "limit=2" }, { 8, 5 }, "b:5:45" });
    run_case(ix,
             &(struct qcase){ "inserted, size", { "sort=3", "limit=2" }, { 8, 5 }, "s:5:12.00" });
    /* Many replacements (as patch status updates make) leave the answers as they were. */
    for (int round = 0; round < 2000; round++)
        put_fixture(ix, &FIXTURES[round % N_FIXTURES], NULL);
    run_case(ix, &(struct qcase){ "after many replacements", { 0 }, { 5, 8, 2, 7, 1 }, "" });
    imx_ix_free(ix);
}

static void facets_are_the_sql_text(void **state)
{
    (void)state;
    struct imx_ix *ix = fixture_index();
    struct imx_ix_query q = { .status = "active", .now_us = NOW, .limit = 1 };
    char *text = imx_ix_facets(ix, &q);
    assert_non_null(text);
    assert_string_equal(
        text,
        "{\"total\" : 4, \"gpu\" : [{\"value\" : \"H100\", \"count\" : 3}, {\"value\" : \"A100\", "
        "\"count\" : 1}, {\"value\" : \"B200\", \"count\" : 1}, {\"value\" : \"MysteryGPU\", "
        "\"count\" : 1}], \"os\" : [{\"value\" : \"ubuntu:22.04\", \"count\" : 2}, {\"value\" : "
        "\"ubuntu:24.04\", \"count\" : 2}], \"provider\" : [{\"value\" : \"aws\", \"count\" : 3}, "
        "{\"value\" : \"onprem\", \"count\" : 1}], \"cuda\" : [{\"value\" : \"12.4\", \"count\" : "
        "2}, {\"value\" : \"12.8\", \"count\" : 1}], \"driver_branch\" : [{\"value\" : \"R580\", "
        "\"count\" : 4}], \"framework\" : [{\"value\" : \"pytorch 2.9\", \"count\" : 3}], "
        "\"tag\" : [{\"value\" : \"cis\", \"count\" : 4}, {\"value\" : \"fips\", \"count\" : 1}], "
        "\"region\" : [{\"value\" : \"us-east-1\", \"count\" : 3}, {\"value\" : \"us-west-2\", "
        "\"count\" : 1}], \"patch_status\" : [{\"value\" : \"ok\", \"count\" : 3}, {\"value\" : "
        "\"vulnerable\", \"count\" : 1}]}");
    free(text);
    q.family = "omega";
    text = imx_ix_facets(ix, &q);
    assert_string_equal(text, "{\"total\" : 0, \"gpu\" : [], \"os\" : [], \"provider\" : [], "
                              "\"cuda\" : [], \"driver_branch\" : [], \"framework\" : [], "
                              "\"tag\" : [], \"region\" : [], \"patch_status\" : []}");
    free(text);
    imx_ix_free(ix);
}

static void component_keys_parse_from_sql_numbers(void **state)
{
    (void)state;
    static const struct {
        const char *num;
        int ok;
        int32_t key[IMX_VER_PARTS];
    } cases[] = {
        { "0", 0, { 0 } },
        { "1000000000000000000000000000000000000000000000000000000", -1, { 0 } }, /* 55 digits */
        { "580000000105000000008000000000000000000000000000", 0, { 580, 105, 8, 0, 0, 0 } },
        { "12000000004000000001000000000000000000000000000", 0, { 12, 4, 1, 0, 0, 0 } },
        { "999999999999999999999999999999999999999999999999999999",
          0,
          { 999999999, 999999999, 999999999, 999999999, 999999999, 999999999 } },
        { "1", 0, { 0, 0, 0, 0, 0, 1 } },
        { "", -1, { 0 } },
        { "12a", -1, { 0 } },
        { "-1", -1, { 0 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t key[IMX_VER_PARTS];
        int rc = imx_ix_key_from_num(cases[i].num, strlen(cases[i].num), key);
        if (rc != cases[i].ok)
            fail_msg("%s: rc %d", cases[i].num, rc);
        if (rc == 0 && memcmp(key, cases[i].key, sizeof key) != 0)
            fail_msg("%s: wrong key", cases[i].num);
    }
}

/* ---- lineage ---- */

/* A lineage fixture: id, parent, family, version, status, patch status, published, revoke_at. */
struct lx {
    int64_t id, parent;
    const char *family, *version, *status, *patch_status;
    int64_t published_us, revoke_us;
};

// clang-format off
static const struct lx LINEAGE[] = {
    { 10, 0, "base", "v1", "active", "ok", T0 + 10, IMX_IX_NO_TIME },
    { 11, 0, "base", "v2", "active", "ok", T0 + 11, IMX_IX_NO_TIME },
    { 12, 0, "base", "v3", "deprecated", "ok", T0 + 12, IMX_IX_NO_TIME },   /* not usable */
    { 13, 0, "base", "v4", "active", "revoked", T0 + 13, IMX_IX_NO_TIME },  /* not usable */
    { 20, 10, "mid", "v1", "active", "ok", T0 + 20, IMX_IX_NO_TIME },
    { 21, 10, "mid", "v2", "active", "ok", T0 + 21, IMX_IX_NO_TIME },
    /* the newest of its family by time, though 23 and 24 have larger ids */
    { 22, 10, "mid", "v\"3", "active", "ok", T0 + 25, IMX_IX_NO_TIME },
    { 23, 11, "mid", "v4", "active", "ok", T0 + 23, IMX_IX_NO_TIME },
    { 24, 11, "mid", "v5", "active", "ok", T0 + 19, IMX_IX_NO_TIME }, /* older than 20 */
    { 30, 20, "top", "v1", "active", "ok", T0 + 30, IMX_IX_NO_TIME },
    { 40, 0, "sched", "v1", "active", "ok", T0 + 40, IMX_IX_NO_TIME },
    { 41, 0, "sched", "v2", "active", "ok", T0 + 41, NOW + 1 }, /* revoked at a time to come */
    { 42, 40, "kid", "v1", "active", "ok", T0 + 42, IMX_IX_NO_TIME },
};
// clang-format on

static void put_lineage_row(struct imx_ix *ix, const struct lx *f)
{
    struct imx_ix_row row = {
        .id = f->id,
        .parent_id = f->parent,
        .version = f->version,
        .family = f->family,
        .provider = "aws",
        .architecture = "x86_64",
        .os_name = "ubuntu",
        .os_version = "24.04",
        .layer = "platform",
        .status = f->status,
        .patch_status = f->patch_status,
        .os_patch_status = "unknown",
        .published_us = f->published_us,
        .revoke_us = f->revoke_us,
        .boot_seconds = -1,
    };
    assert_int_equal(imx_ix_put(ix, &row), 0);
}

#define NO_PARENT ", \"parent_id\" : null, \"outdated_parent\" : false, \"newer_parent\" : null}"
#define NEWER(parent, id, family, version)                                                         \
    ", \"parent_id\" : " #parent ", \"outdated_parent\" : true, \"newer_parent\" : {\"id\" : " #id \
    ", \"family\" : \"" family "\", \"version\" : \"" version "\"}}"

static const struct {
    const char *what;
    int64_t id, after;
    int limit, rc;
    int64_t ids[8]; /* the image, its parents, its children */
    size_t n_parents, n_children;
    int64_t next_after;
    const char *tails[8];
} LINEAGE_CASES[] = {
    { "a chain: each entry's newer parent is the newest usable image of its parent's family "
      "(by time, its version escaped as PostgreSQL writes it)",
      30,
      0,
      50,
      0,
      { 30, 20, 10 },
      2,
      0,
      0,
      { NEWER(20, 22, "mid", "v\\\"3"), NEWER(10, 11, "base", "v2"), NO_PARENT } },
    { "children by id, a page at a time; they share the image as their parent",
      10,
      0,
      2,
      0,
      { 10, 20, 21 },
      0,
      2,
      21,
      { NO_PARENT, NEWER(10, 11, "base", "v2"), NEWER(10, 11, "base", "v2") } },
    { "the next page after the cursor's id, the last",
      10,
      21,
      2,
      0,
      { 10, 22 },
      0,
      1,
      0,
      { NO_PARENT, NEWER(10, 11, "base", "v2") } },
    { "no newer usable image of the parent's family (deprecated and patch-revoked ones skipped)",
      23,
      0,
      50,
      0,
      { 23, 11 },
      1,
      0,
      0,
      { ", \"parent_id\" : 11, \"outdated_parent\" : false, \"newer_parent\" : null}",
        NO_PARENT } },
    { "a scheduled revocation would decide the newer parent: not answered",
      42,
      0,
      50,
      -1,
      { 0 },
      0,
      0,
      0,
      { 0 } },
    { "no such image", 99, 0, 50, 1, { 0 }, 0, 0, 0, { 0 } },
    { "a limit out of range", 10, 0, 0, -1, { 0 }, 0, 0, 0, { 0 } },
};

static void check_lineage_case(const struct imx_ix *ix, size_t k)
{
    struct imx_ix_lineage l;
    int rc =
        imx_ix_lineage(ix, LINEAGE_CASES[k].id, LINEAGE_CASES[k].after, LINEAGE_CASES[k].limit, &l);
    if (rc != LINEAGE_CASES[k].rc) {
        fprintf(stderr, "%s: rc %d\n", LINEAGE_CASES[k].what, rc);
        fail();
    }
    if (rc != 0)
        return;
    size_t n = 1 + l.n_parents + l.n_children;
    bool ok = l.n_parents == LINEAGE_CASES[k].n_parents &&
              l.n_children == LINEAGE_CASES[k].n_children &&
              l.next_after == LINEAGE_CASES[k].next_after;
    for (size_t i = 0; ok && i < n; i++) {
        const char *want = LINEAGE_CASES[k].tails[i];
        size_t len = l.tail_at[i + 1] - l.tail_at[i];
        ok = l.ids[i] == LINEAGE_CASES[k].ids[i] && strlen(want) == len &&
             memcmp(l.tails + l.tail_at[i], want, len) == 0;
        if (!ok)
            fprintf(stderr, "%s: entry %zu is %lld with tail %.*s\n", LINEAGE_CASES[k].what, i,
                    (long long)l.ids[i], (int)len, l.tails + l.tail_at[i]);
    }
    free(l.tails);
    if (!ok) {
        fprintf(stderr, "%s: %zu parents, %zu children, next %lld\n", LINEAGE_CASES[k].what,
                l.n_parents, l.n_children, (long long)l.next_after);
        fail();
    }
}

static void lineage_follows_the_table(void **state)
{
    (void)state;
    struct imx_ix *ix = imx_ix_new();
    assert_non_null(ix);
    /* children before their parents, as no load order promises otherwise */
    for (size_t i = sizeof LINEAGE / sizeof LINEAGE[0]; i-- > 0;)
        put_lineage_row(ix, &LINEAGE[i]);
    imx_ix_seal(ix);
    for (size_t k = 0; k < sizeof LINEAGE_CASES / sizeof LINEAGE_CASES[0]; k++)
        check_lineage_case(ix, k);
    imx_ix_free(ix);
}

/* After sealing: a new child takes its place among its siblings, a row put again with another
 * parent moves between the two lists, and new images of a family change its newer parent. */
static void lineage_updates_after_sealing(void **state)
{
    (void)state;
    struct imx_ix *ix = imx_ix_new();
    assert_non_null(ix);
    for (size_t i = 0; i < sizeof LINEAGE / sizeof LINEAGE[0]; i++)
        put_lineage_row(ix, &LINEAGE[i]);
    imx_ix_seal(ix);
    struct lx late = { 15, 10, "mid", "v0", "active", "ok", T0 + 15, IMX_IX_NO_TIME };
    put_lineage_row(ix, &late);
    struct imx_ix_lineage l;
    assert_int_equal(imx_ix_lineage(ix, 10, 0, 50, &l), 0);
    assert_int_equal(l.n_children, 4);
    assert_int_equal(l.ids[1], 15);
    assert_int_equal(l.ids[2], 20);
    assert_int_equal(l.ids[4], 22);
    free(l.tails);
    struct lx moved = LINEAGE[5]; /* 21: from 10's children to 11's */
    moved.parent = 11;
    put_lineage_row(ix, &moved);
    assert_int_equal(imx_ix_lineage(ix, 10, 0, 50, &l), 0);
    assert_int_equal(l.n_children, 3);
    assert_int_equal(l.ids[3], 22);
    free(l.tails);
    assert_int_equal(imx_ix_lineage(ix, 11, 0, 50, &l), 0);
    assert_int_equal(l.n_children, 3);
    assert_int_equal(l.ids[1], 21);
    assert_int_equal(l.ids[2], 23);
    assert_int_equal(l.ids[3], 24);
    free(l.tails);
    /* Images put after sealing take their place in their family's published order: the newest
     * usable one becomes the newer parent, a newer unusable one does not, and a newer one with
     * a scheduled revocation leaves the answer to the database. */
    static const char *const want =
        ", \"parent_id\" : 20, \"outdated_parent\" : true, \"newer_parent\" : {\"id\" : 16,"
        " \"family\" : \"mid\", \"version\" : \"v6\"}}";
    struct lx later[] = {
        { 16, 0, "mid", "v6", "active", "ok", T0 + 26, IMX_IX_NO_TIME },
        { 19, 0, "mid", "v5.5", "active", "ok", T0 + 24, IMX_IX_NO_TIME }, /* put last, older */
        { 17, 0, "mid", "v7", "deprecated", "ok", T0 + 27, IMX_IX_NO_TIME },
        { 18, 0, "mid", "v8", "active", "ok", T0 + 28, NOW + 1 },
    };
    for (size_t k = 0; k < sizeof later / sizeof later[0]; k++) {
        put_lineage_row(ix, &later[k]);
        int rc = imx_ix_lineage(ix, 30, 0, 50, &l);
        assert_int_equal(rc, k < 3 ? 0 : -1);
        if (rc == 0) {
            assert_int_equal(l.tail_at[1] - l.tail_at[0], strlen(want));
            assert_memory_equal(l.tails, want, strlen(want));
            free(l.tails);
        }
    }
    imx_ix_free(ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pages_follow_the_table),
        cmocka_unit_test(gathered_pages_are_the_walked_pages),
        cmocka_unit_test(malformed_queries_are_refused),
        cmocka_unit_test(updates_after_sealing_keep_the_orders),
        cmocka_unit_test(facets_are_the_sql_text),
        cmocka_unit_test(component_keys_parse_from_sql_numbers),
        cmocka_unit_test(lineage_follows_the_table),
        cmocka_unit_test(lineage_updates_after_sealing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
