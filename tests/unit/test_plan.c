/* The upgrade planner's judgement (server/domain/plan.c): table cases, and a property over random
 * families (versions with and without fixes, driver branch changes, revoked and deprecated
 * images, compatibility errors, GPUs the fleet runs that an image does not serve, pin
 * constraints): the recommended move is never revoked, incompatible or outside the pin, never
 * leaves more or worse advisories open than another eligible candidate, and there is one
 * whenever an eligible candidate is safer than the current image. IMX_PLAN_SEED and
 * IMX_PLAN_FAMILIES change the run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/plan.h"

static const char *const severities[] = { "low", "medium", "high", "critical" };
static const char *const all_gpus[] = { "H100", "A100", "L4", "T4" };

static unsigned long long rng;

static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng >> 33) % n);
}

/* A random image of the family: version i, a driver of one of three branches, advisories from a
 * pool of 6 (an older image is more likely to carry each: later versions fix them). */
static json_t *random_image(int i, int n, json_t *pool)
{
    static const char *const drivers[] = { "570.195.03", "580.95.05", "580.126.09", "590.44.01" };
    json_t *advs = json_array();
    for (size_t a = 0; a < json_array_size(pool); a++)
        if (rnd((unsigned)n + 1) >= (unsigned)i)
            json_array_append(advs, json_array_get(pool, a));
    json_t *gpus = json_array();
    if (rnd(4) != 0)
        for (size_t g = 0; g < 4; g++)
            if (rnd(3) != 0)
                json_array_append_new(gpus, json_string(all_gpus[g]));
    unsigned st = rnd(20);
    char version[16];
    snprintf(version, sizeof version, "%d", i + 1);
    return json_pack("{s:I, s:s, s:s, s:s, s:{s:s, s:s}, s:o, s:i, s:b, s:o, s:i}", "id",
                     (json_int_t)(i + 1), "family", "fam", "version", version, "status",
                     st < 3   ? "revoked"
                     : st < 5 ? "deprecated"
                              : "active",
                     "components", "nvidia-driver", drivers[rnd(4)], "cuda",
                     rnd(2) ? "12.8.1" : "13.0.2", "gpus", gpus, "compat_errors",
                     rnd(10) == 0 ? 1 : 0, "satisfies_pin", rnd(8) != 0, "advisories", advs,
                     "boot_seconds", 60 + (int)rnd(60));
}

struct standing {
    bool eligible;
    int open_max, open_count;
};

/* The oracle: what the facts say of one image, computed here, not by plan.c. */
static struct standing standing_of(json_t *img, json_t *gpus_in_use)
{
    struct standing s = { true, 0, 0 };
    const char *st = json_string_value(json_object_get(img, "status"));
    if (strcmp(st, "revoked") == 0 || json_integer_value(json_object_get(img, "compat_errors")) ||
        json_is_false(json_object_get(img, "satisfies_pin")))
        s.eligible = false;
    json_t *g = json_object_get(img, "gpus");
    size_t i, j;
    json_t *u, *x;
    json_array_foreach(gpus_in_use, i, u)
    {
        bool found = json_array_size(g) == 0;
        json_array_foreach(g, j, x)
        {
            found = found || strcmp(json_string_value(x), json_string_value(u)) == 0;
        }
        if (!found)
            s.eligible = false;
    }
    json_array_foreach(json_object_get(img, "advisories"), i, u)
    {
        int sev = imx_plan_severity(json_string_value(json_object_get(u, "severity")));
        s.open_count++;
        if (sev > s.open_max)
            s.open_max = sev;
    }
    return s;
}

static bool safer(struct standing a, struct standing b)
{
    return a.open_max < b.open_max || (a.open_max == b.open_max && a.open_count < b.open_count);
}

static void recommended_move_is_never_worse_than_another(void **state)
{
    (void)state;
    const char *seed = getenv("IMX_PLAN_SEED");
    const char *fams = getenv("IMX_PLAN_FAMILIES");
    rng = seed ? strtoull(seed, NULL, 10) : 20261206;
    int families = fams ? atoi(fams) : 3000;
    int recommended = 0, stays = 0;
    for (int f = 0; f < families; f++) {
        json_t *pool = json_array();
        for (int a = 0; a < 6; a++) {
            char id[16];
            snprintf(id, sizeof id, "ADV-%d", a);
            json_array_append_new(
                pool, json_pack("{s:s, s:s}", "id", id, "severity", severities[rnd(4)]));
        }
        int n = 2 + (int)rnd(10);
        int cur = (int)rnd((unsigned)n - 1);
        json_t *images = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(images, random_image(i, n, pool));
        json_t *in_use = json_array();
        for (size_t g = 0; g < 4; g++)
            if (rnd(4) == 0)
                json_array_append_new(in_use, json_string(all_gpus[g]));
        json_t *cands = json_array();
        for (int i = cur + 1; i < n; i++)
            json_array_append(cands, json_array_get(images, (size_t)i));
        json_t *facts =
            json_pack("{s:O, s:O, s:n, s:O}", "current", json_array_get(images, (size_t)cur),
                      "gpus_in_use", in_use, "pin", "candidates", cands);
        json_t *plan = imx_plan_build(facts);
        assert_non_null(plan);
        json_t *rec = json_object_get(plan, "recommended");
        struct standing cur_s = standing_of(json_array_get(images, (size_t)cur), in_use);
        const char *cur_status =
            json_string_value(json_object_get(json_array_get(images, (size_t)cur), "status"));
        bool must_move = strcmp(cur_status, "active") != 0 || !cur_s.eligible;
        /* must_move counts a current image outside its own pin too; plan.c does not (a pin is
         * always satisfied by its own image in practice): compare only what both decide. */
        bool cur_outside =
            json_is_false(json_object_get(json_array_get(images, (size_t)cur), "satisfies_pin"));
        struct standing best_s = { false, 99, 99 };
        bool any_eligible = false, any_safer = false;
        for (int i = cur + 1; i < n; i++) {
            struct standing s = standing_of(json_array_get(images, (size_t)i), in_use);
            if (!s.eligible)
                continue;
            any_eligible = true;
            any_safer = any_safer || safer(s, cur_s);
            if (safer(s, best_s) || !best_s.eligible)
                best_s = s;
        }
        if (json_is_integer(rec)) {
            recommended++;
            json_t *img = json_array_get(images, (size_t)json_integer_value(rec) - 1);
            struct standing r = standing_of(img, in_use);
            if (!r.eligible)
                fail_msg("family %d: recommended image %lld is revoked, incompatible or outside "
                         "the pin",
                         f, (long long)json_integer_value(rec));
            if (safer(best_s, r))
                fail_msg("family %d: recommended %lld leaves %d open (worst %d) where an eligible "
                         "candidate leaves %d (worst %d)",
                         f, (long long)json_integer_value(rec), r.open_count, r.open_max,
                         best_s.open_count, best_s.open_max);
        } else {
            stays++;
            if (any_safer)
                fail_msg("family %d: no move recommended though an eligible candidate is safer "
                         "than the current image",
                         f);
            if (any_eligible && must_move && !cur_outside)
                fail_msg("family %d: the current image must be left, an eligible candidate "
                         "exists, and none was recommended",
                         f);
        }
        /* Eligible candidates come first, and every one is ranked. */
        bool seen_ineligible = false;
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(plan, "candidates"), i, e)
        {
            bool el = json_is_true(json_object_get(e, "eligible"));
            if (el && seen_ineligible)
                fail_msg("family %d: an eligible candidate is ranked after an ineligible one", f);
            seen_ineligible = seen_ineligible || !el;
            assert_int_equal(json_integer_value(json_object_get(e, "rank")), (json_int_t)i + 1);
        }
        assert_int_equal(json_array_size(json_object_get(plan, "candidates")),
                         (size_t)(n - cur - 1));
        assert_true(json_is_string(json_object_get(plan, "reason")));
        json_decref(plan);
        json_decref(facts);
        json_decref(cands);
        json_decref(in_use);
        json_decref(images);
        json_decref(pool);
    }
    /* The generator reaches both outcomes often. */
    assert_true(recommended > families / 10);
    assert_true(stays > families / 10);
}

/* A hand-made case: the fix on the same branch beats a newer image on a new branch that closes
 * the same advisory, and a revoked image that closes everything is never picked. */
static void the_smallest_safe_move_wins(void **state)
{
    (void)state;
    json_t *facts = json_loads(
        "{\"current\":{\"id\":1,\"version\":\"1\",\"status\":\"active\",\"components\":"
        "{\"nvidia-driver\":\"580.95.05\",\"cuda\":\"13.0.2\"},\"gpus\":[\"H100\"],"
        "\"advisories\":[{\"id\":\"NVIDIA-5747\",\"severity\":\"high\"}],\"cost_per_1k\":0.5,"
        "\"boot_seconds\":80},"
        "\"gpus_in_use\":[\"H100\"],\"pin\":null,\"candidates\":["
        "{\"id\":2,\"version\":\"2\",\"status\":\"revoked\",\"components\":{\"nvidia-driver\":"
        "\"580.126.09\",\"cuda\":\"13.0.2\"},\"gpus\":[\"H100\"],\"advisories\":[]},"
        "{\"id\":3,\"version\":\"3\",\"status\":\"active\",\"components\":{\"nvidia-driver\":"
        "\"580.126.09\",\"cuda\":\"13.0.2\"},\"gpus\":[\"H100\"],\"advisories\":[],"
        "\"cost_per_1k\":0.45,\"boot_seconds\":70},"
        "{\"id\":4,\"version\":\"4\",\"status\":\"active\",\"components\":{\"nvidia-driver\":"
        "\"590.44.01\",\"cuda\":\"13.1.0\"},\"gpus\":[\"H100\"],\"advisories\":[]},"
        "{\"id\":5,\"version\":\"5\",\"status\":\"active\",\"components\":{\"nvidia-driver\":"
        "\"580.126.09\",\"cuda\":\"13.0.2\"},\"gpus\":[\"L4\"],\"advisories\":[]}]}",
        0, NULL);
    assert_non_null(facts);
    json_t *plan = imx_plan_build(facts);
    assert_int_equal(json_integer_value(json_object_get(plan, "recommended")), 3);
    json_t *first = json_array_get(json_object_get(plan, "candidates"), 0);
    assert_true(json_is_true(json_object_get(json_object_get(first, "branch"), "kept")));
    assert_int_equal(json_array_size(json_object_get(json_object_get(first, "patch"), "closes")),
                     1);
    double delta = json_real_value(json_object_get(json_object_get(first, "cost_per_1k"), "delta"));
    assert_true(delta < -0.049 && delta > -0.051);
    json_t *second = json_array_get(json_object_get(plan, "candidates"), 1);
    assert_int_equal(json_integer_value(json_object_get(second, "id")), 4); /* branch changes */
    /* The revoked one and the one without H100 come last, ineligible. */
    for (size_t i = 2; i < 4; i++)
        assert_true(json_is_false(
            json_object_get(json_array_get(json_object_get(plan, "candidates"), i), "eligible")));
    assert_non_null(strstr(json_string_value(json_object_get(plan, "reason")), "NVIDIA-5747"));
    json_decref(plan);
    json_decref(facts);
}

/* An image with a driver tree per GPU group (migration 0199: nvidia-driver is [{version, gpus}])
 * is planned per tree: the branch that matters is the one serving the GPUs in use. A candidate
 * that moves the T4 tree from R535 to R580 changes the branch for T4 nodes, not for H100 ones. */
static json_t *dual_plan(const char *gpus_in_use)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"current\":{\"id\":1,\"version\":\"1\",\"status\":\"active\",\"components\":"
             "{\"nvidia-driver\":[{\"version\":\"580.95.05\",\"gpus\":[\"H100\"]},"
             "{\"version\":\"535.274.02\",\"gpus\":[\"T4\"]}]},\"gpus\":[\"H100\",\"T4\"],"
             "\"advisories\":[{\"id\":\"NVIDIA-5747\",\"severity\":\"high\"}]},"
             "\"gpus_in_use\":%s,\"pin\":null,\"candidates\":["
             "{\"id\":2,\"version\":\"2\",\"status\":\"active\",\"components\":"
             "{\"nvidia-driver\":[{\"version\":\"580.95.05\",\"gpus\":[\"H100\"]},"
             "{\"version\":\"580.126.09\",\"gpus\":[\"T4\"]}]},\"gpus\":[\"H100\",\"T4\"],"
             "\"advisories\":[]},"
             "{\"id\":3,\"version\":\"3\",\"status\":\"active\",\"components\":"
             "{\"nvidia-driver\":[{\"version\":\"580.95.05\",\"gpus\":[\"H100\"]},"
             "{\"version\":\"535.288.01\",\"gpus\":[\"T4\"]}]},\"gpus\":[\"H100\",\"T4\"],"
             "\"advisories\":[]}]}",
             gpus_in_use);
    json_t *facts = json_loads(text, 0, NULL);
    assert_non_null(facts);
    json_t *plan = imx_plan_build(facts);
    json_decref(facts);
    assert_non_null(plan);
    return plan;
}

/* The candidate entry with id in plan (borrowed). */
static json_t *candidate(json_t *plan, long long id)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(plan, "candidates"), i, c)
    {
        if (json_integer_value(json_object_get(c, "id")) == id)
            return c;
    }
    fail_msg("no candidate %lld", id);
    return NULL;
}

static void driver_trees_are_planned_per_gpu(void **state)
{
    (void)state;
    json_t *plan = dual_plan("[\"T4\"]");
    /* For T4 nodes the fix on R535 keeps the branch; the move to R580 does not. */
    assert_int_equal(json_integer_value(json_object_get(plan, "recommended")), 3);
    json_t *b = json_object_get(candidate(plan, 2), "branch");
    assert_true(json_is_false(json_object_get(b, "kept")));
    assert_string_equal(json_string_value(json_object_get(b, "from")), "R580, R535");
    assert_string_equal(json_string_value(json_object_get(b, "to")), "R580, R580");
    json_t *t4 = json_array_get(json_object_get(b, "per_gpu"), 0);
    assert_string_equal(json_string_value(json_object_get(t4, "gpu")), "T4");
    assert_string_equal(json_string_value(json_object_get(t4, "from")), "R535");
    assert_string_equal(json_string_value(json_object_get(t4, "to")), "R580");
    b = json_object_get(candidate(plan, 3), "branch");
    assert_true(json_is_true(json_object_get(b, "kept")));
    json_decref(plan);
    /* For H100 nodes both keep R580: the older (shorter) move wins. */
    plan = dual_plan("[\"H100\"]");
    assert_int_equal(json_integer_value(json_object_get(plan, "recommended")), 2);
    b = json_object_get(candidate(plan, 2), "branch");
    assert_true(json_is_true(json_object_get(b, "kept")));
    json_t *h = json_array_get(json_object_get(b, "per_gpu"), 0);
    assert_string_equal(json_string_value(json_object_get(h, "from")), "R580");
    json_decref(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_smallest_safe_move_wins),
        cmocka_unit_test(driver_trees_are_planned_per_gpu),
        cmocka_unit_test(recommended_move_is_never_worse_than_another),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
