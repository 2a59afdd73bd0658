/* The upgrade planner's judgement (see plan.h). */
#include "domain/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int imx_plan_severity(const char *s)
{
    static const char *const names[] = { "low", "medium", "high", "critical" };
    for (int i = 0; s && i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return i + 1;
    return 0;
}

static const char *severity_name(int s)
{
    static const char *const names[] = { "none", "low", "medium", "high", "critical" };
    return s >= 0 && s <= 4 ? names[s] : "none";
}

bool imx_plan_eligible(const struct imx_plan_candidate *c)
{
    return !c->revoked && !c->incompatible && !c->outside_pin;
}

#define CMP(x, y)                                                                                  \
    do {                                                                                           \
        if ((x) != (y))                                                                            \
            return (x) < (y) ? -1 : 1;                                                             \
    } while (0)

int imx_plan_compare(const struct imx_plan_candidate *a, const struct imx_plan_candidate *b)
{
    CMP(!imx_plan_eligible(a), !imx_plan_eligible(b));
    CMP(a->open_max, b->open_max);
    CMP(a->open_count, b->open_count);
    CMP(b->closes_max, a->closes_max);
    CMP(b->closes_count, a->closes_count);
    CMP(a->deprecated, b->deprecated);
    CMP(!a->branch_kept, !b->branch_kept);
    CMP(a->changes, b->changes);
    CMP(a->order, b->order);
    CMP(a->id, b->id);
    return 0;
}

static int compare_qsort(const void *a, const void *b)
{
    return imx_plan_compare(a, b);
}

int imx_plan_rank(struct imx_plan_candidate *c, size_t n, int cur_open_max, int cur_open_count,
                  bool cur_must_move)
{
    if (n == 0)
        return -1;
    qsort(c, n, sizeof *c, compare_qsort);
    if (!imx_plan_eligible(&c[0]))
        return -1;
    bool safer = c[0].open_max < cur_open_max ||
                 (c[0].open_max == cur_open_max && c[0].open_count < cur_open_count);
    return safer || cur_must_move ? 0 : -1;
}

/* ---- From facts to a plan ---- */

/* The branch (the major) of a driver version text, or -1. */
static long branch_of(const char *v)
{
    if (!v)
        return -1;
    char *end;
    long b = strtol(v, &end, 10);
    return end == v ? -1 : b;
}

/* Does a components object hold one driver tree per GPU group: nvidia-driver listed more than
 * once is [{version, gpus}] (migration 0199), not a version? */
static bool driver_trees(json_t *components)
{
    return json_is_array(json_object_get(components, "nvidia-driver"));
}

static bool listed(json_t *arr, const char *s);

/* The driver branch that serves gpu in a components object: the nvidia-driver version, or for an
 * image with a driver tree per GPU group the entry whose gpus name gpu (NULL gpu, or no entry
 * names it: -1). -1 when there is no driver. */
static long driver_branch(json_t *components, const char *gpu)
{
    json_t *d = json_object_get(components, "nvidia-driver");
    if (!json_is_array(d))
        return branch_of(json_string_value(d));
    size_t i;
    json_t *e;
    json_array_foreach(d, i, e)
    {
        if (gpu && listed(json_object_get(e, "gpus"), gpu))
            return branch_of(json_string_value(json_object_get(e, "version")));
    }
    return -1;
}

/* "R580", or for driver trees their branches in manifest order ("R580, R535"); NULL (JSON null)
 * when there is no driver. A new reference. */
static json_t *branch_text(json_t *components)
{
    json_t *d = json_object_get(components, "nvidia-driver");
    if (!json_is_array(d)) {
        long b = branch_of(json_string_value(d));
        return b >= 0 ? json_sprintf("R%ld", b) : json_null();
    }
    char buf[128] = "";
    size_t i, used = 0;
    json_t *e;
    json_array_foreach(d, i, e)
    {
        long b = branch_of(json_string_value(json_object_get(e, "version")));
        if (b >= 0 && used < sizeof buf)
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%sR%ld", used ? ", " : "", b);
    }
    return used ? json_string(buf) : json_null();
}

/* {from, to, kept} of the driver branch between two components objects. With a driver tree per
 * GPU group on either side the branch is judged per GPU in use (a T4 is served by its own tree,
 * whatever happens to the H100's), "per_gpu": [{gpu, from, to, kept}], and kept only when every
 * GPU keeps its branch. Sets *kept. A new reference. */
static json_t *branch_move(json_t *cc, json_t *nc, json_t *gpus_in_use, bool *kept)
{
    if (!driver_trees(cc) && !driver_trees(nc)) {
        long bf = driver_branch(cc, NULL), bt = driver_branch(nc, NULL);
        *kept = bf == bt;
        return json_pack("{s:o, s:o, s:b}", "from", branch_text(cc), "to", branch_text(nc), "kept",
                         *kept);
    }
    json_t *per = json_array();
    size_t i;
    json_t *g;
    *kept = true;
    json_array_foreach(gpus_in_use, i, g)
    {
        const char *gpu = json_string_value(g);
        if (!gpu)
            continue;
        long bf = driver_branch(cc, gpu), bt = driver_branch(nc, gpu);
        bool k = bf == bt;
        *kept = *kept && k;
        json_array_append_new(per, json_pack("{s:s, s:o, s:o, s:b}", "gpu", gpu, "from",
                                             bf >= 0 ? json_sprintf("R%ld", bf) : json_null(), "to",
                                             bt >= 0 ? json_sprintf("R%ld", bt) : json_null(),
                                             "kept", k));
    }
    /* No GPU in use to judge by: the trees must be the same branches. */
    if (json_array_size(per) == 0) {
        json_t *f = branch_text(cc), *t = branch_text(nc);
        *kept = json_equal(f, t);
        json_decref(f);
        json_decref(t);
    }
    return json_pack("{s:o, s:o, s:b, s:o}", "from", branch_text(cc), "to", branch_text(nc), "kept",
                     *kept, "per_gpu", per);
}

static bool listed(json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v) && strcasecmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

static bool has_advisory(json_t *advs, const char *id)
{
    size_t i;
    json_t *a;
    json_array_foreach(advs, i, a)
    {
        const char *x = json_string_value(json_object_get(a, "id"));
        if (x && strcmp(x, id) == 0)
            return true;
    }
    return false;
}

static bool must_leave(const char *status)
{
    return status && (strcmp(status, "revoked") == 0 || strcmp(status, "deprecated") == 0 ||
                      strcmp(status, "revoking") == 0);
}

/* {from, to, delta} of two numbers (null where unknown). */
static json_t *number_diff(json_t *from, json_t *to)
{
    json_t *d =
        json_pack("{s:O, s:O}", "from", from ? from : json_null(), "to", to ? to : json_null());
    if (json_is_number(from) && json_is_number(to))
        json_object_set_new(d, "delta", json_real(json_number_value(to) - json_number_value(from)));
    else
        json_object_set_new(d, "delta", json_null());
    return d;
}

/* Weighs one candidate against the current image; fills *c and returns its plan entry (new). */
static json_t *weigh(json_t *cur, json_t *cand, json_t *gpus_in_use, long long order,
                     struct imx_plan_candidate *c)
{
    memset(c, 0, sizeof *c);
    c->id = json_integer_value(json_object_get(cand, "id"));
    c->order = order;
    const char *status = json_string_value(json_object_get(cand, "status"));
    c->revoked = status && (strcmp(status, "revoked") == 0 || strcmp(status, "revoking") == 0);
    c->deprecated = status && strcmp(status, "deprecated") == 0;
    c->outside_pin = json_is_false(json_object_get(cand, "satisfies_pin"));
    json_t *why = json_array();
    if (json_integer_value(json_object_get(cand, "compat_errors")) > 0)
        json_array_append_new(why, json_string("its compatibility report has errors"));
    json_t *cg = json_object_get(cand, "gpus");
    size_t i;
    json_t *g;
    json_array_foreach(gpus_in_use, i, g)
    {
        const char *gpu = json_string_value(g);
        if (gpu && json_array_size(cg) > 0 && !listed(cg, gpu)) {
            char msg[160];
            snprintf(msg, sizeof msg, "it does not list %.64s, which your nodes run", gpu);
            json_array_append_new(why, json_string(msg));
        }
    }
    c->incompatible = json_array_size(why) > 0;
    /* Advisories: which of the current image's it closes, which stay open. */
    json_t *cur_adv = json_object_get(cur, "advisories");
    json_t *cand_adv = json_object_get(cand, "advisories");
    json_t *closes = json_array(), *open = json_array();
    json_t *a;
    json_array_foreach(cur_adv, i, a)
    {
        const char *id = json_string_value(json_object_get(a, "id"));
        if (id && !has_advisory(cand_adv, id)) {
            int s = imx_plan_severity(json_string_value(json_object_get(a, "severity")));
            c->closes_count++;
            if (s > c->closes_max)
                c->closes_max = s;
            json_array_append(closes, a);
        }
    }
    json_array_foreach(cand_adv, i, a)
    {
        int s = imx_plan_severity(json_string_value(json_object_get(a, "severity")));
        c->open_count++;
        if (s > c->open_max)
            c->open_max = s;
        json_array_append(open, a);
    }
    /* Components: the differences, and the driver branch. */
    json_t *cc = json_object_get(cur, "components"), *nc = json_object_get(cand, "components");
    json_t *diff = json_object();
    const char *name;
    json_t *v;
    json_object_foreach(cc, name, v)
    {
        json_t *w = json_object_get(nc, name);
        if (!json_equal(v, w))
            json_object_set_new(diff, name,
                                json_pack("{s:O, s:O}", "from", v, "to", w ? w : json_null()));
    }
    json_object_foreach(nc, name, v)
    {
        if (!json_object_get(cc, name))
            json_object_set_new(diff, name, json_pack("{s:n, s:O}", "from", "to", v));
    }
    c->changes = (int)json_object_size(diff);
    json_t *branch = branch_move(cc, nc, gpus_in_use, &c->branch_kept);
    return json_pack(
        "{s:I, s:O?, s:O?, s:O?, s:O?, s:{s:o, s:o, s:s}, s:b, s:o, s:b, s:o, s:o, s:o, s:o}", "id",
        (json_int_t)c->id, "version", json_object_get(cand, "version"), "status",
        json_object_get(cand, "status"), "published_at", json_object_get(cand, "published_at"),
        "patch_status", json_object_get(cand, "patch_status"), "patch", "closes", closes, "open",
        open, "open_max_severity", severity_name(c->open_max), "compatible", !c->incompatible,
        "why_incompatible", why, "satisfies_pin", !c->outside_pin, "branch", branch, "components",
        diff, "cost_per_1k",
        number_diff(json_object_get(cur, "cost_per_1k"), json_object_get(cand, "cost_per_1k")),
        "boot_seconds",
        number_diff(json_object_get(cur, "boot_seconds"), json_object_get(cand, "boot_seconds")));
}

/* Why the recommended move (or staying) is the safe one, in a sentence. */
static json_t *reason_of(const struct imx_plan_candidate *best, json_t *entry, int cur_open_max,
                         int cur_open_count, bool cur_must_move, const char *cur_status)
{
    char buf[512];
    if (!best) {
        if (cur_must_move)
            snprintf(buf, sizeof buf,
                     "The current image must be left (%s) but no candidate is eligible "
                     "(revoked, incompatible with the GPUs in use, or outside the pin's "
                     "constraints)",
                     cur_status ? cur_status : "incompatible");
        else if (cur_open_count == 0)
            snprintf(buf, sizeof buf, "Stay: no advisory affects the current image");
        else
            snprintf(buf, sizeof buf,
                     "Stay: no eligible candidate leaves fewer or less severe advisories open "
                     "than the current image (%d open, worst %s)",
                     cur_open_count, severity_name(cur_open_max));
        return json_string(buf);
    }
    int n = snprintf(buf, sizeof buf, "%s",
                     best->closes_count ? "Closes " : "Closes nothing the current image has");
    if (best->closes_count) {
        json_t *first =
            json_array_get(json_object_get(json_object_get(entry, "patch"), "closes"), 0);
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s (%s)%s",
                      json_string_value(json_object_get(first, "id")),
                      severity_name(best->closes_max), best->closes_count > 1 ? " and more" : "");
    }
    if (n < (int)sizeof buf)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "; %s",
                      best->open_count ? "some advisories stay open (the fewest of any eligible "
                                         "candidate)"
                                       : "leaves no advisory open");
    if (n < (int)sizeof buf)
        n += snprintf(
            buf + n, sizeof buf - (size_t)n, "; %s the driver branch; %d component%s change",
            best->branch_kept ? "keeps" : "changes", best->changes, best->changes == 1 ? "" : "s");
    if (cur_must_move && n < (int)sizeof buf)
        snprintf(buf + n, sizeof buf - (size_t)n, "; the current image must be left");
    return json_string(buf);
}

json_t *imx_plan_build(json_t *facts)
{
    json_t *cur = json_object_get(facts, "current");
    if (!json_is_object(cur))
        return NULL;
    json_t *gpus = json_object_get(facts, "gpus_in_use");
    json_t *cands = json_object_get(facts, "candidates");
    size_t n = json_array_size(cands);
    if (n > IMX_PLAN_CANDIDATES_MAX)
        n = IMX_PLAN_CANDIDATES_MAX;
    struct imx_plan_candidate *c = calloc(n ? n : 1, sizeof *c);
    json_t *entries = json_object(); /* id -> entry */
    if (!c) {
        json_decref(entries);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = weigh(cur, json_array_get(cands, i), gpus, (long long)i, &c[i]);
        char key[24];
        snprintf(key, sizeof key, "%lld", c[i].id);
        json_object_set_new(entries, key, e);
    }
    /* The current image's own standing. */
    int cur_open_max = 0, cur_open_count = 0;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(cur, "advisories"), i, a)
    {
        int s = imx_plan_severity(json_string_value(json_object_get(a, "severity")));
        cur_open_count++;
        if (s > cur_open_max)
            cur_open_max = s;
    }
    const char *cur_status = json_string_value(json_object_get(cur, "status"));
    bool cur_incompatible = json_integer_value(json_object_get(cur, "compat_errors")) > 0;
    json_t *cg = json_object_get(cur, "gpus");
    json_t *g;
    json_array_foreach(gpus, i, g)
    {
        if (json_is_string(g) && json_array_size(cg) > 0 && !listed(cg, json_string_value(g)))
            cur_incompatible = true;
    }
    bool cur_must_move = must_leave(cur_status) || cur_incompatible;
    int best = imx_plan_rank(c, n, cur_open_max, cur_open_count, cur_must_move);
    json_t *ordered = json_array();
    for (size_t k = 0; k < n; k++) {
        char key[24];
        snprintf(key, sizeof key, "%lld", c[k].id);
        json_t *e = json_object_get(entries, key);
        json_object_set_new(e, "eligible", json_boolean(imx_plan_eligible(&c[k])));
        json_object_set_new(e, "rank", json_integer((json_int_t)k + 1));
        json_object_set_new(e, "recommended", json_boolean((int)k == best));
        json_array_append(ordered, e);
    }
    json_t *best_entry = NULL;
    if (best >= 0) {
        char key[24];
        snprintf(key, sizeof key, "%lld", c[best].id);
        best_entry = json_object_get(entries, key);
    }
    json_t *plan = json_pack(
        "{s:{s:O?, s:O?, s:O?, s:O?, s:O?, s:i, s:s}, s:O?, s:O?, s:o, s:o, s:o}", "current", "id",
        json_object_get(cur, "id"), "family", json_object_get(cur, "family"), "version",
        json_object_get(cur, "version"), "status", json_object_get(cur, "status"), "patch_status",
        json_object_get(cur, "patch_status"), "open_advisories", cur_open_count,
        "open_max_severity", severity_name(cur_open_max), "gpus_in_use", gpus, "pin",
        json_object_get(facts, "pin"), "candidates", ordered, "recommended",
        best >= 0 ? json_integer(c[best].id) : json_null(), "reason",
        reason_of(best >= 0 ? &c[best] : NULL, best_entry, cur_open_max, cur_open_count,
                  cur_must_move, cur_status));
    json_decref(entries);
    free(c);
    return plan;
}
