/* Every rule of the compatibility check against every row of the table it reads: the test reads
 * the reference tables from the database (not a hand list), works out from each row what the
 * verdict must be, and asks the real server (POST /v1/compat/check) for it: every (GPU, CUDA
 * release) pair, every (GPU, driver branch) pair, every PyTorch wheel variant's architecture
 * list against every GPU, every PyTorch and TensorFlow release's Python range, driver floor and
 * cuDNN major, JAX's wheels, and every cuDNN release's compute-capability set and CUDA majors.
 * A row a rule ignores is a wrong verdict here. Each rule also meets a GPU, CUDA, driver branch or
 * release the data does not hold, which must be an explicit finding, never a silent ok. Prints
 * rows x verdicts per rule; every wrong one is listed, and any fails the test. */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct imx_t_compat ct;

static int setup(void **state)
{
    (void)state;
    return imx_t_compat_up(&ct, "compat_rows");
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_compat_down(&ct);
}

#define C(n, v) IMX_T_COMPONENT(n, v)
/* GPUs per request: every GPU's findings fit a report (64 findings) several times over. */
#define BATCH 8
/* Wrong verdicts printed per rule (all are counted). */
#define SHOW 12

/* ---- the tables, as the database holds them ---- */

/* A SQL query's one JSON value, parsed (new reference). */
static json_t *sql_json(const char *sql)
{
    char *text = imx_t_sql(ct.db, sql);
    if (!text)
        fail_msg("no result: %s", sql);
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    if (!j)
        fail_msg("not JSON (%s): %s", e.text, sql);
    free(text);
    return j;
}

static json_t *gpus, *archs, *ccs, *cudas, *mvcs, *branches, *cudnns, *builds, *torches, *tfs,
    *jaxes;

static void load_tables(void)
{
    gpus = sql_json("SELECT json_agg(json_build_object('model', gpu_model, 'arch', architecture,"
                    " 'cc', compute_capability::text, 'first', first_cuda,"
                    " 'derived', min_driver_derived, 'documented', min_driver_documented)"
                    " ORDER BY gpu_model)::text FROM ref_gpu");
    archs = sql_json("SELECT json_object_agg(architecture, json_build_object('first', first_cuda,"
                     " 'last_cuda', last_cuda_major, 'last_branch', last_driver_branch))::text"
                     " FROM ref_gpu_arch");
    ccs = sql_json("SELECT json_object_agg(compute_capability::text, json_build_object("
                   " 'first', first_cuda, 'dropped', dropped_cuda,"
                   " 'unconfirmed', status = 'UNCONFIRMED'))::text FROM ref_compute_capability");
    cudas = sql_json("SELECT json_agg(json_build_object('v', cuda_version, 'major', cuda_major,"
                     " 'floor', linux_driver_min) ORDER BY cuda_version_key)::text"
                     " FROM ref_cuda_driver");
    mvcs =
        sql_json("SELECT json_object_agg(cuda_major::text, driver_floor)::text FROM ref_cuda_mvc");
    branches =
        sql_json("SELECT json_agg(json_build_object('branch', branch, 'latest', latest_version,"
                 " 'eol', CASE WHEN eol_basis = 'nvidia' THEN eol ELSE coalesce(eol_endoflife_date,"
                 "   CASE WHEN eol_basis = 'endoflife.date' THEN eol END) END,"
                 " 'archs', architectures) ORDER BY branch)::text FROM ref_driver_branch");
    cudnns =
        sql_json("SELECT json_agg(json_build_object('v', cudnn_version, 'majors', cuda_majors,"
                 " 'max', json_build_object('11', cuda11_max, '12', cuda12_max, '13', cuda13_max),"
                 " 'list', cc_list::text[], 'lo', cc_min::text, 'hi', cc_max::text,"
                 " 'unconfirmed', status = 'UNCONFIRMED',"
                 " 'list_unconfirmed', coalesce(cc_list_status = 'UNCONFIRMED', false),"
                 " 'fwd', forward_compat) ORDER BY cudnn_version_key)::text FROM ref_cudnn");
    builds =
        sql_json("SELECT json_agg(json_build_object('v', pytorch_version, 'cuda', cuda_version,"
                 " 'archs', cuda_archs, 'experimental', channel = 'experimental')"
                 " ORDER BY pytorch_version_key, cuda_version_key)::text FROM ref_pytorch_build");
    torches = sql_json("SELECT json_agg(json_build_object('v', pytorch_version, 'lo', python_min,"
                       " 'hi', python_max) ORDER BY pytorch_version_key)::text FROM ref_pytorch");
    tfs = sql_json("SELECT json_agg(json_build_object('v', tensorflow_version, 'cuda', cuda,"
                   " 'cudnn', cudnn, 'lo', python_min, 'hi', python_max)"
                   " ORDER BY tensorflow_version_key)::text FROM ref_tensorflow");
    jaxes =
        sql_json("SELECT json_agg(json_build_object('variant', variant, 'major', cuda_major,"
                 " 'cudnn_min', cudnn_min, 'cudnn_below', cudnn_below,"
                 " 'branch_min', driver_branch_min, 'cc_min', cc_min::text,"
                 " 'unconfirmed', status = 'UNCONFIRMED') ORDER BY variant)::text FROM ref_jax");
}

static const char *S(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static long I(json_t *o, const char *k)
{
    return (long)json_integer_value(json_object_get(o, k));
}

/* ---- versions ---- */

struct ver {
    long p[6];
    int n;
};

static struct ver V(const char *s) {
    struct ver v = { { 0 }, 0 };
    while (s && *s && v.n < 6) {
        char *end;
        v.p[v.n++] = strtol(s, &end, 10);
        s = *end == '.' ? end + 1 : NULL;
    }
    return v;
}

/* Compares the first n parts (missing parts are 0). */
static int
cmpn(struct ver a, struct ver b, int n)
{
    for (int i = 0; i < n; i++) {
        if (a.p[i] != b.p[i])
            return a.p[i] < b.p[i] ? -1 : 1;
    }
    return 0;
}

#define MINOR(a, b) cmpn(V(a), V(b), 2) /* toolkits and capabilities compare by major.minor */
#define FULL(a, b)  cmpn(V(a), V(b), 6)

/* ---- verdicts ---- */

struct tally {
    const char *rule;
    size_t rows, verdicts, wrong;
};

static void wrong(struct tally *t, json_t *report, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void wrong(struct tally *t, json_t *report, const char *fmt, ...)
{
    if (t->wrong++ >= SHOW)
        return;
    char msg[512], codes[1024] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t i, used = 0;
    json_t *f;
    json_array_foreach(json_object_get(report, "findings"), i, f)
    {
        if (used < sizeof codes)
            used += (size_t)snprintf(codes + used, sizeof codes - used, " %s:%s", S(f, "severity"),
                                     S(f, "code"));
    }
    print_error("WRONG [%s] %s\n    report:%s\n", t->rule, msg, codes);
}

/* The finding with code about subject (a GPU model or a component name; NULL: any), or NULL. */
static json_t *about(json_t *report, const char *code, const char *subject)
{
    size_t i, k;
    json_t *f, *c;
    json_array_foreach(json_object_get(report, "findings"), i, f)
    {
        if (strcmp(S(f, "code"), code) != 0)
            continue;
        if (!subject)
            return f;
        json_array_foreach(json_object_get(f, "components"), k, c)
        {
            const char *n = S(c, "name"), *v = S(c, "version");
            if ((strcmp(n, "gpu") == 0 && strcmp(v, subject) == 0) || strcmp(n, subject) == 0)
                return f;
        }
    }
    return NULL;
}

/* Checks that code about subject is present with severity (NULL: any) exactly when want. */
static void expect(struct tally *t, json_t *report, const char *code, const char *subject,
                   bool want, const char *severity, const char *what)
{
    t->verdicts++;
    json_t *f = about(report, code, subject);
    if (!want && f)
        wrong(t, report, "%s: %s about %s must not be there", what, code, subject ? subject : "-");
    else if (want && !f)
        wrong(t, report, "%s: no %s about %s", what, code, subject ? subject : "-");
    else if (want && severity && strcmp(S(f, "severity"), severity) != 0)
        wrong(t, report, "%s: %s about %s is %s, not %s", what, code, subject ? subject : "-",
              S(f, "severity"), severity);
}

static void report_tally(const struct tally *t)
{
    print_message("%-34s %5zu rows  %6zu verdicts  %zu wrong\n", t->rule, t->rows, t->verdicts,
                  t->wrong);
}

/* Runs fn(report, first GPU index, count) for the GPUs in batches with the stack components. */
static void per_gpu_batches(const char *components,
                            void (*fn)(json_t *report, size_t from, size_t n, void *arg), void *arg)
{
    size_t total = json_array_size(gpus);
    for (size_t from = 0; from < total; from += BATCH) {
        size_t n = total - from < BATCH ? total - from : BATCH;
        char list[2048] = "[";
        for (size_t i = 0; i < n; i++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? "," : "",
                     S(json_array_get(gpus, from + i), "model"));
        }
        strcat(list, "]");
        json_t *rep = imx_t_compat_check(&ct, components, list);
        if (imx_t_compat_finding(rep, "unknown_gpu"))
            fail_msg("a GPU of ref_gpu is unknown: %s", json_dumps(rep, 0));
        fn(rep, from, n, arg);
        json_decref(rep);
    }
}

/* ---- what a GPU is, from its rows ---- */

static json_t *cc_row(json_t *g)
{
    return json_object_get(ccs, S(g, "cc"));
}

static json_t *arch_row(json_t *g)
{
    return json_object_get(archs, S(g, "arch"));
}

/* The first toolkit for the GPU: its capability's, else its model's, else its architecture's. */
static const char *first_cuda(json_t *g)
{
    json_t *c = cc_row(g);
    if (c && S(c, "first"))
        return S(c, "first");
    return S(g, "first") ? S(g, "first") : S(arch_row(g), "first");
}

/* The first toolkit that no longer builds for the GPU (into buf), or NULL. */
static const char *dropped_cuda(json_t *g, char *buf, size_t len)
{
    json_t *c = cc_row(g);
    if (c && S(c, "dropped"))
        return S(c, "dropped");
    long last = I(arch_row(g), "last_cuda");
    if (last <= 0)
        return NULL;
    snprintf(buf, len, "%ld.0", last + 1);
    return buf;
}

static bool same_major_lower_buildable(json_t *g, const char *cuda)
{
    const char *key;
    json_t *c;
    struct ver cc = V(S(g, "cc"));
    json_object_foreach(ccs, key, c)
    {
        struct ver v = V(key);
        if (json_is_true(json_object_get(c, "unconfirmed")) || v.p[0] != cc.p[0] ||
            cmpn(v, cc, 2) >= 0 || MINOR(S(c, "first"), cuda) > 0)
            continue;
        if (S(c, "dropped") && MINOR(cuda, S(c, "dropped")) >= 0)
            continue;
        return true;
    }
    return false;
}

/* ---- GPU x CUDA release: too old for the GPU, or a release that dropped it ---- */

struct cuda_arg {
    struct tally *t;
    const char *cuda;
};

static void gpu_cuda_batch(json_t *rep, size_t from, size_t n, void *arg)
{
    struct cuda_arg *a = arg;
    for (size_t i = from; i < from + n; i++) {
        json_t *g = json_array_get(gpus, i);
        const char *m = S(g, "model"), *first = first_cuda(g);
        char what[160], buf[32];
        snprintf(what, sizeof what, "%s (cc %s, first CUDA %s) with CUDA %s", m, S(g, "cc"),
                 first ? first : "?", a->cuda);
        bool too_new = first && MINOR(a->cuda, first) < 0;
        bool binary = too_new && same_major_lower_buildable(g, a->cuda);
        json_t *c = cc_row(g);
        bool soft = c && json_is_true(json_object_get(c, "unconfirmed"));
        expect(a->t, rep, "gpu_too_new_for_cuda", m, too_new && !binary, soft ? "warning" : "error",
               what);
        expect(a->t, rep, "gpu_cc_binary_compat", m, binary, "warning", what);
        const char *dropped = dropped_cuda(g, buf, sizeof buf);
        snprintf(what, sizeof what, "%s (cc %s, dropped by CUDA %s) with CUDA %s", m, S(g, "cc"),
                 dropped ? dropped : "-", a->cuda);
        expect(a->t, rep, "gpu_dropped_by_cuda", m, dropped && MINOR(a->cuda, dropped) >= 0, NULL,
               what);
    }
}

static void every_gpu_against_every_cuda_release(void **state)
{
    (void)state;
    struct tally t = { "GPU x CUDA release", 0, 0, 0 };
    size_t i;
    json_t *r;
    json_array_foreach(cudas, i, r)
    {
        char comps[128];
        snprintf(comps, sizeof comps, "[" C("cuda", "%s") "]", S(r, "v"));
        struct cuda_arg a = { &t, S(r, "v") };
        per_gpu_batches(comps, gpu_cuda_batch, &a);
        t.rows++;
    }
    /* a CUDA the data does not hold: an info finding, never a silent ok */
    json_t *rep = imx_t_compat_check(&ct, "[" C("cuda", "14.0.0") "]", "[\"H100\"]");
    expect(&t, rep, "unknown_component_version", "cuda", true, "info", "CUDA 14.0.0");
    json_decref(rep);
    rep = imx_t_compat_check(&ct, "[" C("cuda", "12.8.0") "]", "[\"Radeon RX 7900 XTX\"]");
    expect(&t, rep, "unknown_gpu", "Radeon RX 7900 XTX", true, "info", "an AMD GPU");
    json_decref(rep);
    report_tally(&t);
    print_message("  (%zu GPUs x %zu CUDA releases)\n", json_array_size(gpus), t.rows);
    assert_int_equal(t.wrong, 0);
}

/* ---- GPU x driver branch ---- */

/* The Table-3 driver of the oldest release of a toolkit minor that has one, or NULL. */
static const char *minor_floor(const char *cuda)
{
    size_t i;
    json_t *r;
    const char *best = NULL, *best_v = NULL;
    json_array_foreach(cudas, i, r)
    {
        if (!cuda || !S(r, "floor") || MINOR(S(r, "v"), cuda) != 0)
            continue;
        if (!best_v || FULL(S(r, "v"), best_v) < 0) {
            best = S(r, "floor");
            best_v = S(r, "v");
        }
    }
    return best;
}

/* The oldest Table-3 driver of all the releases held. */
static const char *oldest_floor(void)
{
    size_t i;
    json_t *r;
    const char *best = NULL;
    json_array_foreach(cudas, i, r)
    {
        if (S(r, "floor") && (!best || FULL(S(r, "floor"), best) < 0))
            best = S(r, "floor");
    }
    return best;
}

/* The oldest driver the GPU runs on: its documented minimum, else the newer of its derived one
 * and the floor of the first toolkit for it. NULL when none is known. */
static const char *gpu_min_driver(json_t *g)
{
    if (S(g, "documented"))
        return S(g, "documented");
    const char *d = S(g, "derived"), *f = minor_floor(first_cuda(g));
    if (d && f)
        return FULL(f, d) > 0 ? f : d;
    return d ? d : f;
}

static bool listed_arch(json_t *archs_of_branch, const char *arch)
{
    size_t i;
    json_t *a;
    json_array_foreach(archs_of_branch, i, a)
    {
        if (strcmp(json_string_value(a), arch) == 0)
            return true;
    }
    return false;
}

struct branch_arg {
    struct tally *t, *archs_t;
    json_t *b;
    const char *driver;
};

static void gpu_branch_batch(json_t *rep, size_t from, size_t n, void *arg)
{
    struct branch_arg *a = arg;
    long branch = I(a->b, "branch");
    for (size_t i = from; i < from + n; i++) {
        json_t *g = json_array_get(gpus, i);
        const char *m = S(g, "model"), *min = gpu_min_driver(g);
        long last = I(arch_row(g), "last_branch");
        bool dropped = last > 0 && branch > last;
        bool too_old = min && FULL(a->driver, min) < 0;
        char what[200];
        snprintf(what, sizeof what, "%s (%s, last branch R%ld, minimum driver %s) on %s", m,
                 S(g, "arch"), last, min ? min : "?", a->driver);
        expect(a->t, rep, "gpu_dropped_by_driver", m, dropped, "error", what);
        expect(a->t, rep, "gpu_driver_too_old", m, too_old, NULL, what);
        /* no minimum known: said when the driver is older than every Table-3 floor */
        a->t->verdicts++;
        json_t *f = about(rep, "unknown_component_version", m);
        bool said = f && strstr(S(f, "message"), "minimum NVIDIA driver");
        if (said != (!min && FULL(a->driver, oldest_floor()) < 0))
            wrong(a->t, rep, "%s: the unknown-minimum info is %s", what,
                  said ? "there" : "missing");
        /* The branch's own list of architectures (0310, derived) agrees with the verdicts. */
        json_t *listed = json_object_get(a->b, "archs");
        if (json_is_array(listed)) {
            bool in = listed_arch(listed, S(g, "arch"));
            a->archs_t->verdicts++;
            if ((in && dropped) || (!in && !dropped && !too_old))
                wrong(a->archs_t, rep, "%s: R%ld %s %s, the checker says %s", what, branch,
                      in ? "lists" : "does not list", S(g, "arch"),
                      dropped || too_old ? "unsupported" : "supported");
        }
    }
}

static void every_gpu_against_every_driver_branch(void **state)
{
    (void)state;
    struct tally t = { "GPU x driver branch", 0, 0, 0 };
    struct tally eol = { "driver branch end of life", 0, 0, 0 };
    struct tally at = { "driver branch architectures", 0, 0, 0 };
    char today[16];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(today, sizeof today, "%Y-%m-%d", &tm);
    size_t i;
    json_t *b;
    json_array_foreach(branches, i, b)
    {
        char driver[64], comps[160];
        /* the newest driver of the branch (NVIDIA's latest, else its first version) */
        if (S(b, "latest"))
            snprintf(driver, sizeof driver, "%s", S(b, "latest"));
        else
            snprintf(driver, sizeof driver, "%ld.0", I(b, "branch"));
        snprintf(comps, sizeof comps, "[" C("nvidia-driver", "%s") "]", driver);
        struct branch_arg a = { &t, &at, b, driver };
        per_gpu_batches(comps, gpu_branch_batch, &a);
        t.rows++;
        at.rows += json_is_array(json_object_get(b, "archs"));
        /* its end of life, NVIDIA's date first */
        json_t *rep = imx_t_compat_check(&ct, comps, "[]");
        const char *e = S(b, "eol");
        eol.rows++;
        expect(&eol, rep, "driver_branch_eol", "nvidia-driver", e && strcmp(e, today) <= 0,
               "warning", driver);
        json_decref(rep);
    }
    /* a branch the data does not hold: an info finding, never a silent ok */
    json_t *rep = imx_t_compat_check(&ct, "[" C("nvidia-driver", "999.10.01") "]", "[\"H100\"]");
    expect(&t, rep, "unknown_component_version", "nvidia-driver", true, "info", "driver 999");
    json_decref(rep);
    report_tally(&t);
    report_tally(&eol);
    report_tally(&at);
    print_message("  (%zu GPUs x %zu driver branches)\n", json_array_size(gpus), t.rows);
    assert_int_equal(t.wrong + eol.wrong + at.wrong, 0);
}

/* ---- PyTorch wheel variants ---- */

/* The minor-version-compatibility floor of a CUDA major, or NULL. */
static const char *mvc_floor(long major)
{
    char key[16];
    snprintf(key, sizeof key, "%ld", major);
    return json_string_value(json_object_get(mvcs, key));
}

/* "12.8" -> "cu128" */
static void variant(const char *cuda, char *out, size_t len)
{
    struct ver v = V(cuda);
    snprintf(out, len, "cu%ld%ld", v.p[0], v.p[1]);
}

/* Does one entry of a wheel's architecture list ("8.0", "12.0+PTX") run on capability cc? */
static bool arch_list_runs(const char *list, const char *cc)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    struct ver want = V(cc);
    for (char *save = NULL, *tok = strtok_r(buf, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save)) {
        bool ptx = strstr(tok, "+PTX") != NULL;
        struct ver v = V(tok);
        if (cmpn(v, want, 2) <= 0 && (ptx || v.p[0] == want.p[0]))
            return true;
    }
    return false;
}

struct wheel_arg {
    struct tally *t;
    json_t *build;
    const char *text;
};

static void wheel_batch(json_t *rep, size_t from, size_t n, void *arg)
{
    struct wheel_arg *a = arg;
    const char *list = S(a->build, "archs");
    if (!list) {
        expect(a->t, rep, "unknown_component_version", "pytorch", true, "info", a->text);
        return;
    }
    for (size_t i = from; i < from + n; i++) {
        json_t *g = json_array_get(gpus, i);
        const char *m = S(g, "model");
        if (strncmp(m, "Jetson", 6) == 0)
            continue; /* JetPack wheels, not PyTorch's */
        char what[400];
        snprintf(what, sizeof what, "%s (cc %s) on PyTorch %s (archs %s)", m, S(g, "cc"), a->text,
                 list);
        expect(a->t, rep, "framework_gpu_arch_unsupported", m, !arch_list_runs(list, S(g, "cc")),
               "error", what);
    }
}

static void every_wheel_variant_against_every_gpu(void **state)
{
    (void)state;
    struct tally t = { "PyTorch wheel arch x GPU", 0, 0, 0 };
    struct tally d = { "PyTorch wheel CUDA x driver", 0, 0, 0 };
    size_t i;
    json_t *b;
    json_array_foreach(builds, i, b)
    {
        char text[64], cu[16], comps[256];
        variant(S(b, "cuda"), cu, sizeof cu);
        snprintf(text, sizeof text, "%s.0+%s", S(b, "v"), cu);
        snprintf(comps, sizeof comps, "[" C("pytorch", "%s") "]", text);
        struct wheel_arg a = { &t, b, text };
        per_gpu_batches(comps, wheel_batch, &a);
        t.rows++;
        /* The wheel's own CUDA against the driver: its Table-3 floor runs it; a driver below its
         * major's floor does not. The variant itself is a build (experimental: said). */
        const char *floor = minor_floor(S(b, "cuda"));
        const char *mvc = mvc_floor(V(S(b, "cuda")).p[0]);
        d.rows++;
        if (floor) {
            snprintf(comps, sizeof comps, "[" C("nvidia-driver", "%s") "," C("pytorch", "%s") "]",
                     floor, text);
            json_t *rep = imx_t_compat_check(&ct, comps, "[]");
            expect(&d, rep, "driver_too_old_for_cuda", "pytorch", false, NULL, comps);
            expect(&d, rep, "driver_mvc_only", "pytorch", false, NULL, comps);
            expect(&d, rep, "framework_no_cuda_build", "pytorch", false, NULL, comps);
            expect(&d, rep, "framework_cuda_build_experimental", "pytorch",
                   json_is_true(json_object_get(b, "experimental")), "info", comps);
            json_decref(rep);
        }
        if (mvc) {
            char below[32];
            snprintf(below, sizeof below, "%ld.0", V(mvc).p[0] - 1);
            snprintf(comps, sizeof comps, "[" C("nvidia-driver", "%s") "," C("pytorch", "%s") "]",
                     below, text);
            json_t *rep = imx_t_compat_check(&ct, comps, "[]");
            bool has =
                about(rep, floor ? "driver_too_old_for_cuda" : "driver_below_cuda_major_floor",
                      "nvidia-driver") != NULL;
            d.verdicts++;
            if (!has)
                wrong(&d, rep, "%s: a driver below CUDA %s's floor %s passes", comps, S(b, "cuda"),
                      mvc);
            json_decref(rep);
        }
    }
    /* a release, and a variant, the data does not hold: said, never a silent ok */
    json_t *rep = imx_t_compat_check(&ct, "[" C("pytorch", "9.9.0+cu128") "]", "[\"H100\"]");
    expect(&t, rep, "unknown_component_version", "pytorch", true, "info", "PyTorch 9.9");
    json_decref(rep);
    rep = imx_t_compat_check(&ct, "[" C("pytorch", "2.0.1+cu130") "]", "[\"H100\"]");
    expect(&t, rep, "framework_no_cuda_build", "pytorch", true, "error", "PyTorch 2.0 cu130");
    json_decref(rep);
    report_tally(&t);
    report_tally(&d);
    assert_int_equal(t.wrong + d.wrong, 0);
}

/* ---- Python ranges ---- */

/* "3.10" -> "3.9" (by = -1) or "3.11" (by = 1) */
static void py_step(const char *py, int by, char *out, size_t len)
{
    struct ver v = V(py);
    snprintf(out, len, "%ld.%ld.0", v.p[0], v.p[1] + by);
}

static void python_range(struct tally *t, const char *name, const char *version, const char *lo,
                         const char *hi, const char *extra)
{
    const char *pys[4];
    char below[48], above[48], lo3[48], hi3[48];
    if (!lo || !hi) {
        char comps[256];
        snprintf(comps, sizeof comps, "[%s" C("%s", "%s") "," C("python", "3.11.0") "]", extra,
                 name, version);
        json_t *rep = imx_t_compat_check(&ct, comps, "[]");
        expect(t, rep, "unknown_component_version", "python", true, "info", comps);
        json_decref(rep);
        return;
    }
    py_step(lo, -1, below, sizeof below);
    py_step(hi, 1, above, sizeof above);
    snprintf(lo3, sizeof lo3, "%s.0", lo);
    snprintf(hi3, sizeof hi3, "%s.0", hi);
    pys[0] = lo3, pys[1] = hi3, pys[2] = below, pys[3] = above;
    for (int k = 0; k < 4; k++) {
        char comps[256];
        snprintf(comps, sizeof comps, "[%s" C("%s", "%s") "," C("python", "%s") "]", extra, name,
                 version, pys[k]);
        json_t *rep = imx_t_compat_check(&ct, comps, "[]");
        expect(t, rep, "python_unsupported_by_framework", "python", k >= 2, "error", comps);
        json_decref(rep);
    }
}

static void every_framework_release_python_range(void **state)
{
    (void)state;
    struct tally t = { "framework release x Python", 0, 0, 0 };
    size_t i;
    json_t *r;
    json_array_foreach(torches, i, r)
    {
        char v[32];
        snprintf(v, sizeof v, "%s.0", S(r, "v"));
        python_range(&t, "pytorch", v, S(r, "lo"), S(r, "hi"), "");
        t.rows++;
    }
    json_array_foreach(tfs, i, r)
    {
        python_range(&t, "tensorflow", S(r, "v"), S(r, "lo"), S(r, "hi"), "");
        t.rows++;
    }
    /* a release the data does not hold: said */
    json_t *rep =
        imx_t_compat_check(&ct, "[" C("pytorch", "9.9.0") "," C("python", "3.12.0") "]", "[]");
    expect(&t, rep, "unknown_component_version", "python", true, "info", "PyTorch 9.9 + Python");
    json_decref(rep);
    report_tally(&t);
    assert_int_equal(t.wrong, 0);
}

/* ---- TensorFlow: CUDA, cuDNN major and driver floor ---- */

static void every_tensorflow_release(void **state)
{
    (void)state;
    struct tally t = { "TensorFlow x CUDA/cuDNN/driver", 0, 0, 0 };
    size_t i;
    json_t *r;
    json_array_foreach(tfs, i, r)
    {
        const char *v = S(r, "v"), *cuda = S(r, "cuda"), *cudnn = S(r, "cudnn");
        long major = V(cuda).p[0];
        char comps[512];
        const char *floor = mvc_floor(major);
        t.rows++;
        /* its own CUDA, cuDNN and the major's driver floor: none of the framework errors */
        snprintf(comps, sizeof comps,
                 "[" C("tensorflow", "%s") "," C("cuda", "%s") "," C("cudnn", "%s") "," C(
                     "nvidia-driver", "%s") "]",
                 v, cuda, cudnn ? cudnn : "9.3.0", floor ? floor : "580.65.06");
        json_t *rep = imx_t_compat_check(&ct, comps, "[]");
        expect(&t, rep, "framework_no_cuda_build", "tensorflow", false, NULL, comps);
        expect(&t, rep, "framework_cudnn_major_mismatch", "tensorflow", false, NULL, comps);
        expect(&t, rep, "framework_driver_too_old", "tensorflow", false, NULL, comps);
        expect(&t, rep, "unknown_component_version", "tensorflow", !cudnn, "info", comps);
        json_decref(rep);
        /* another cuDNN major */
        if (cudnn) {
            snprintf(comps, sizeof comps,
                     "[" C("tensorflow", "%s") "," C("cuda", "%s") "," C("cudnn", "%s") "]", v,
                     cuda, V(cudnn).p[0] >= 9 ? "8.9.7" : "9.3.0");
            rep = imx_t_compat_check(&ct, comps, "[]");
            expect(&t, rep, "framework_cudnn_major_mismatch", "tensorflow", true, "error", comps);
            json_decref(rep);
        }
        /* another CUDA major */
        snprintf(comps, sizeof comps, "[" C("tensorflow", "%s") "," C("cuda", "%s") "]", v,
                 major == 11 ? "12.4.1" : "11.8.0");
        rep = imx_t_compat_check(&ct, comps, "[]");
        expect(&t, rep, "framework_no_cuda_build", "tensorflow", true, "error", comps);
        json_decref(rep);
        /* a driver below its CUDA major's floor */
        if (floor) {
            snprintf(comps, sizeof comps,
                     "[" C("tensorflow", "%s") "," C("nvidia-driver", "%ld.0") "]", v,
                     V(floor).p[0] - 1);
            rep = imx_t_compat_check(&ct, comps, "[]");
            expect(&t, rep, "framework_driver_too_old", "tensorflow", true, "error", comps);
            json_decref(rep);
        }
    }
    json_t *rep = imx_t_compat_check(&ct, "[" C("tensorflow", "9.9.0") "]", "[]");
    expect(&t, rep, "unknown_component_version", "tensorflow", true, "info", "TensorFlow 9.9");
    json_decref(rep);
    report_tally(&t);
    assert_int_equal(t.wrong, 0);
}

/* ---- JAX's CUDA wheels ---- */

struct jax_arg {
    struct tally *t;
    json_t *row;
};

static void jax_batch(json_t *rep, size_t from, size_t n, void *arg)
{
    struct jax_arg *a = arg;
    for (size_t i = from; i < from + n; i++) {
        json_t *g = json_array_get(gpus, i);
        char what[160];
        snprintf(what, sizeof what, "%s (cc %s) on jax[%s] (SM %s+)", S(g, "model"), S(g, "cc"),
                 S(a->row, "variant"), S(a->row, "cc_min"));
        expect(a->t, rep, "framework_gpu_arch_unsupported", S(g, "model"),
               MINOR(S(g, "cc"), S(a->row, "cc_min")) < 0, NULL, what);
    }
}

static void every_jax_variant(void **state)
{
    (void)state;
    struct tally t = { "JAX wheel x GPU/driver/cuDNN", 0, 0, 0 };
    size_t i;
    json_t *r;
    json_array_foreach(jaxes, i, r)
    {
        char name[64], comps[512];
        snprintf(name, sizeof name, "jax-%s-plugin", S(r, "variant"));
        long bmin = I(r, "branch_min");
        t.rows++;
        snprintf(comps, sizeof comps, "[" C("%s", "0.7.1") "]", name);
        struct jax_arg a = { &t, r };
        per_gpu_batches(comps, jax_batch, &a);
        for (long br = bmin - 5; br <= bmin; br += 5) {
            snprintf(comps, sizeof comps, "[" C("%s", "0.7.1") "," C("nvidia-driver", "%ld.10") "]",
                     name, br);
            json_t *rep = imx_t_compat_check(&ct, comps, "[]");
            expect(&t, rep, "framework_driver_too_old", name, br < bmin, NULL, comps);
            json_decref(rep);
        }
        const char *libs[2] = { S(r, "cudnn_min"), S(r, "cudnn_below") };
        for (int k = 0; k < 2; k++) {
            snprintf(comps, sizeof comps, "[" C("%s", "0.7.1") "," C("cudnn", "%s.0") "]", name,
                     libs[k]);
            json_t *rep = imx_t_compat_check(&ct, comps, "[]");
            expect(&t, rep, "framework_cudnn_incompatible", name, k == 1, "warning", comps);
            json_decref(rep);
        }
    }
    json_t *rep = imx_t_compat_check(&ct, "[" C("jax-cuda99-plugin", "0.9.0") "]", "[]");
    expect(&t, rep, "unknown_component_version", "jax-cuda99-plugin", true, "info", "jax[cuda99]");
    json_decref(rep);
    report_tally(&t);
    assert_int_equal(t.wrong, 0);
}

/* ---- cuDNN: its compute-capability set and its CUDA majors ---- */

enum fit { FIT_UNKNOWN, FIT_LISTED, FIT_OLDER, FIT_NEWER };

/* A derived set gives way to a range read from the matrix. */
static bool derived_set_ignored(json_t *row)
{
    return json_is_true(json_object_get(row, "list_unconfirmed")) && (S(row, "lo") || S(row, "hi"));
}

/* Is the set the rules read a derived one? */
static bool derived_set_used(json_t *row)
{
    return json_is_array(json_object_get(row, "list")) &&
           json_is_true(json_object_get(row, "list_unconfirmed")) && !derived_set_ignored(row);
}

/* Where capability cc stands against a cuDNN row: a listed capability runs, and so does one of
 * the same major below it before Hopper (a cubin runs on the same major with the same or a
 * higher minor; from Hopper on cuDNN's kernels use architecture-specific features). */
static enum fit cudnn_fit(json_t *row, const char *cc)
{
    json_t *list = json_object_get(row, "list");
    struct ver want = V(cc);
    if (json_is_array(list) && !derived_set_ignored(row)) {
        size_t i;
        json_t *x;
        bool all_above = true;
        json_array_foreach(list, i, x)
        {
            struct ver v = V(json_string_value(x));
            if (cmpn(v, want, 2) == 0 ||
                (v.p[0] == want.p[0] && v.p[0] < 9 && cmpn(v, want, 2) < 0))
                return FIT_LISTED;
            if (cmpn(v, want, 2) <= 0)
                all_above = false;
        }
        return all_above ? FIT_OLDER : FIT_NEWER;
    }
    const char *lo = S(row, "lo"), *hi = S(row, "hi");
    if (lo && MINOR(cc, lo) < 0)
        return FIT_OLDER;
    if (hi && MINOR(cc, hi) > 0)
        return FIT_NEWER;
    return lo || hi ? FIT_LISTED : FIT_UNKNOWN;
}

static bool has_major(json_t *row, long m)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(row, "majors"), i, x)
    {
        if (json_integer_value(x) == m)
            return true;
    }
    return false;
}

struct cudnn_arg {
    struct tally *t;
    json_t *row;
    const char *text;
};

static void cudnn_batch(json_t *rep, size_t from, size_t n, void *arg)
{
    struct cudnn_arg *a = arg;
    json_t *row = a->row;
    bool soft = json_is_true(json_object_get(row, "unconfirmed")) || derived_set_used(row);
    json_t *fwd_col = json_object_get(row, "fwd");
    bool fwd = json_is_boolean(fwd_col)
                   ? json_is_true(fwd_col)
                   : V(S(row, "v")).p[0] >= 9 && (has_major(row, 12) || has_major(row, 13));
    bool any_unknown = false;
    for (size_t i = from; i < from + n; i++) {
        json_t *g = json_array_get(gpus, i);
        const char *m = S(g, "model");
        enum fit f = cudnn_fit(row, S(g, "cc"));
        /* unread, or passed by a set derived from the matrices around it: said */
        any_unknown = any_unknown || f == FIT_UNKNOWN || (f == FIT_LISTED && derived_set_used(row));
        char what[200];
        snprintf(what, sizeof what, "%s (cc %s) with cuDNN %s", m, S(g, "cc"), a->text);
        bool unsupported = f == FIT_OLDER || (f == FIT_NEWER && !fwd);
        expect(a->t, rep, "cudnn_gpu_unsupported", m, unsupported, soft ? "warning" : "error",
               what);
        expect(a->t, rep, "cudnn_gpu_forward_compat", m, f == FIT_NEWER && fwd, "warning", what);
    }
    /* a set the support matrix was not read for: said once, never a silent ok */
    a->t->verdicts++;
    bool said = about(rep, "unknown_component_version", "cudnn") != NULL;
    if (said != any_unknown)
        wrong(a->t, rep, "cuDNN %s: the set is %s, but the unread-set info is %s", a->text,
              any_unknown ? "unread or derived" : "read", said ? "there" : "missing");
}

static void every_cudnn_release(void **state)
{
    (void)state;
    struct tally t = { "cuDNN cc set x GPU", 0, 0, 0 };
    struct tally m = { "cuDNN x CUDA major/minor", 0, 0, 0 };
    size_t i;
    json_t *r;
    json_array_foreach(cudnns, i, r)
    {
        char text[64], comps[256];
        snprintf(text, sizeof text, "%s.1", S(r, "v"));
        long first_major = json_integer_value(json_array_get(json_object_get(r, "majors"), 0));
        snprintf(comps, sizeof comps, "[" C("cudnn", "%s") "," C("cuda", "%ld.0.0") "]", text,
                 first_major);
        struct cudnn_arg a = { &t, r, text };
        per_gpu_batches(comps, cudnn_batch, &a);
        t.rows++;
        m.rows++;
        for (long major = 11; major <= 13; major++) {
            snprintf(comps, sizeof comps, "[" C("cudnn", "%s") "," C("cuda", "%ld.0.0") "]", text,
                     major);
            json_t *rep = imx_t_compat_check(&ct, comps, "[]");
            expect(&m, rep, "cudnn_cuda_major_mismatch", "cudnn", !has_major(r, major),
                   json_is_true(json_object_get(r, "unconfirmed")) ? "warning" : "error", comps);
            json_decref(rep);
            char key[8];
            snprintf(key, sizeof key, "%ld", major);
            const char *mx = S(json_object_get(r, "max"), key);
            if (mx && has_major(r, major)) {
                snprintf(comps, sizeof comps, "[" C("cudnn", "%s") "," C("cuda", "%ld.%ld.0") "]",
                         text, major, V(mx).p[1] + 1);
                rep = imx_t_compat_check(&ct, comps, "[]");
                expect(&m, rep, "cudnn_cuda_minor_unsupported", "cudnn", true, "warning", comps);
                json_decref(rep);
            }
        }
    }
    json_t *rep =
        imx_t_compat_check(&ct, "[" C("cudnn", "7.6.5") "," C("cuda", "12.4.1") "]", "[\"H100\"]");
    expect(&t, rep, "unknown_component_version", "cudnn", true, "info", "cuDNN 7.6.5");
    json_decref(rep);
    report_tally(&t);
    report_tally(&m);
    assert_int_equal(t.wrong + m.wrong, 0);
}

static int load(void **state)
{
    (void)state;
    load_tables();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(every_gpu_against_every_cuda_release, load),
        cmocka_unit_test(every_gpu_against_every_driver_branch),
        cmocka_unit_test(every_wheel_variant_against_every_gpu),
        cmocka_unit_test(every_framework_release_python_range),
        cmocka_unit_test(every_tensorflow_release),
        cmocka_unit_test(every_jax_variant),
        cmocka_unit_test(every_cudnn_release),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
