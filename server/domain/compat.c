/* The compatibility validator: NVIDIA's driver/toolkit/GPU rules and the frameworks' CUDA builds,
 * applied to a stack of components and target GPUs with a snapshot of the reference data. */
#include "domain/compat.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The parsed stack: which recognized components are present and valid. */
struct stack {
    bool has_driver, has_cuda, has_cudnn, has_pytorch, has_tf, has_python, has_nccl, has_dcgm;
    struct imx_ver driver, cuda, cudnn, pytorch, tf, python, nccl, dcgm;
    /* The CUDA the other rules use: the cuda component, else a PyTorch wheel's +cuNNN. */
    bool cuda_from_pytorch;
    bool pytorch_has_suffix_cuda;
    struct imx_ver pytorch_cuda;
    /* A JAX CUDA wheel (jax-cuda13-plugin / jax-cuda13-pjrt): its variant ("cuda13"). */
    bool has_jax;
    char jax_variant[16];
    const char *jax_name, *jax_version;
};

struct builder {
    struct imx_compat_report *out;
    bool dropped_error; /* an error finding fell past IMX_COMPAT_MAX_FINDINGS */
};

/* A CUDA the driver and the GPUs are held to: the cuda component, or a PyTorch wheel's own. */
struct cuda_use {
    const struct imx_ver *v;
    const char *name; /* the component involved: "cuda" or "pytorch" */
    const char *text; /* its version as written */
    char what[192];   /* "CUDA 12.8.0", "PyTorch 2.7.1+cu126's own CUDA 12.6 runtime" */
    /* A PyTorch wheel's CUDA: the architectures the wheel's kernels are built for (its
     * ref_pytorch_build row's cuda_archs), NULL for a host toolkit or an unread list. */
    const char *wheel_archs;
};

const char *imx_compat_severity_name(enum imx_compat_severity s)
{
    switch (s) {
    case IMX_COMPAT_ERROR:
        return "error";
    case IMX_COMPAT_WARNING:
        return "warning";
    case IMX_COMPAT_INFO:
        return "info";
    }
    return "info";
}

/* Copies the first URL of a reference row's source text (which may hold several, with notes). */
static void copy_source_url(char *dst, size_t len, const char *src)
{
    dst[0] = '\0';
    if (!src)
        return;
    const char *p = strstr(src, "http");
    if (!p)
        return;
    size_t n = 0;
    while (p[n] && !isspace((unsigned char)p[n]) && p[n] != ';' && n + 1 < len)
        n++;
    /* A trailing comma or closing parenthesis belongs to the prose, not the URL. */
    while (n > 0 && (p[n - 1] == ',' || p[n - 1] == ')'))
        n--;
    memcpy(dst, p, n);
    dst[n] = '\0';
}

static void copy_text(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

/* Adds a finding; involved is a NULL-ended list of name, version pairs. */
static struct imx_compat_finding *add(struct builder *b, enum imx_compat_severity sev,
                                      const char *code, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static struct imx_compat_finding *add(struct builder *b, enum imx_compat_severity sev,
                                      const char *code, const char *source, const char *fmt, ...)
{
    if (b->out->n >= IMX_COMPAT_MAX_FINDINGS) {
        b->out->truncated = true;
        b->dropped_error = b->dropped_error || sev == IMX_COMPAT_ERROR;
        return NULL;
    }
    struct imx_compat_finding *f = &b->out->findings[b->out->n++];
    memset(f, 0, sizeof *f);
    f->severity = sev;
    copy_text(f->code, sizeof f->code, code);
    copy_source_url(f->source, sizeof f->source, source);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    return f;
}

/* A finding that rests on a reference row marked unconfirmed is at most a warning. */
static void soften(struct imx_compat_finding *f, bool unconfirmed)
{
    if (!f || !unconfirmed)
        return;
    if (f->severity == IMX_COMPAT_ERROR)
        f->severity = IMX_COMPAT_WARNING;
    size_t n = strlen(f->message);
    snprintf(f->message + n, sizeof f->message - n,
             " (The reference data for this is unconfirmed, so it is not an error.)");
}

static void involve(struct imx_compat_finding *f, const char *name, const char *version)
{
    if (!f || f->n_involved >= IMX_COMPAT_MAX_INVOLVED)
        return;
    copy_text(f->involved[f->n_involved].name, IMX_COMPAT_NAME_SIZE, name);
    copy_text(f->involved[f->n_involved].version, IMX_COMPAT_NAME_SIZE, version);
    f->n_involved++;
}

/* Compares the first n key parts of a and b. */
static int key_cmp_n(const int32_t *a, const int32_t *b, int n)
{
    for (int i = 0; i < n; i++) {
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}

/* Parses a reference string; false when it is NULL or invalid (reference data is checked by
 * the schema, so that means "unknown"). */
static bool ref_ver(const char *s, struct imx_ver *v)
{
    return s && imx_ver_parse(s, v) == 0;
}

/* GPU names compare like SQL imx_ref_gpu_norm(): lower-case alphanumerics only, without a
 * leading "nvidia" and then "tesla" (each only when something follows). */
static void gpu_norm(const char *in, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = in; *p && n + 1 < len; p++) {
        if (isalnum((unsigned char)*p))
            out[n++] = (char)tolower((unsigned char)*p);
    }
    out[n] = '\0';
    static const char *const prefixes[] = { "nvidia", "tesla" };
    for (size_t i = 0; i < 2; i++) {
        size_t pl = strlen(prefixes[i]);
        if (strncmp(out, prefixes[i], pl) == 0 && out[pl] != '\0')
            memmove(out, out + pl, strlen(out + pl) + 1);
    }
}

const struct imx_ref_gpu *imx_compat_find_gpu(const struct imx_ref_snapshot *ref, const char *name)
{
    if (!ref || !name)
        return NULL;
    char want[128], have[128];
    gpu_norm(name, want, sizeof want);
    if (want[0] == '\0')
        return NULL;
    const struct imx_ref_gpu *best = NULL;
    for (size_t i = 0; i < ref->n_gpus; i++) {
        const struct imx_ref_gpu *g = &ref->gpus[i];
        bool match = false;
        gpu_norm(g->gpu_model, have, sizeof have);
        match = strcmp(want, have) == 0;
        if (!match && g->full_name) {
            gpu_norm(g->full_name, have, sizeof have);
            match = strcmp(want, have) == 0;
        }
        for (size_t a = 0; !match && a < g->n_aliases; a++) {
            gpu_norm(g->aliases[a], have, sizeof have);
            match = strcmp(want, have) == 0;
        }
        /* Like the SQL function: the alphabetically first model wins a tie. */
        if (match && (!best || strcmp(g->gpu_model, best->gpu_model) < 0))
            best = g;
    }
    return best;
}

static const struct imx_ref_gpu_arch *find_arch(const struct imx_ref_snapshot *ref,
                                                const char *arch)
{
    for (size_t i = 0; arch && i < ref->n_archs; i++) {
        if (strcmp(ref->archs[i].architecture, arch) == 0)
            return &ref->archs[i];
    }
    return NULL;
}

/* The ref_compute_capability row of a capability such as "10.3", or NULL. */
static const struct imx_ref_compute_capability *find_cc(const struct imx_ref_snapshot *ref,
                                                        const char *cc)
{
    struct imx_ver want, have;
    if (!ref_ver(cc, &want))
        return NULL;
    for (size_t i = 0; i < ref->n_ccs; i++) {
        if (ref_ver(ref->ccs[i].compute_capability, &have) && key_cmp_n(want.key, have.key, 2) == 0)
            return &ref->ccs[i];
    }
    return NULL;
}

/* The driver floor of the first release of a toolkit minor ("12.9" -> 12.9.0's 575.51.03), or
 * NULL when no release of it has a confirmed floor. */
static const char *cuda_minor_floor(const struct imx_ref_snapshot *ref, const char *cuda)
{
    struct imx_ver want, rv, best_v;
    const char *best = NULL;
    if (!ref_ver(cuda, &want))
        return NULL;
    for (size_t i = 0; i < ref->n_cuda; i++) {
        const struct imx_ref_cuda_driver *r = &ref->cuda[i];
        if (!r->linux_driver_min || !ref_ver(r->cuda_version, &rv) ||
            key_cmp_n(rv.key, want.key, 2) != 0)
            continue;
        if (!best || imx_ver_cmp(&rv, &best_v) < 0) {
            best = r->linux_driver_min;
            best_v = rv;
        }
    }
    return best;
}

static const struct imx_ref_cuda_mvc *find_mvc(const struct imx_ref_snapshot *ref, int major)
{
    for (size_t i = 0; i < ref->n_mvc; i++) {
        if (ref->mvc[i].cuda_major == major)
            return &ref->mvc[i];
    }
    return NULL;
}

static const struct imx_ref_driver_branch *find_branch(const struct imx_ref_snapshot *ref,
                                                       int branch)
{
    for (size_t i = 0; i < ref->n_branches; i++) {
        if (ref->branches[i].branch == branch)
            return &ref->branches[i];
    }
    return NULL;
}

/* The Table-3 row of a CUDA version: the exact release, else the newest release of the same
 * major.minor not above it (or the oldest of that minor). *exact says which. */
static const struct imx_ref_cuda_driver *find_cuda(const struct imx_ref_snapshot *ref,
                                                   const struct imx_ver *v, bool *exact)
{
    const struct imx_ref_cuda_driver *below = NULL, *above = NULL;
    struct imx_ver below_v, above_v, rv;
    *exact = false;
    for (size_t i = 0; i < ref->n_cuda; i++) {
        if (!ref_ver(ref->cuda[i].cuda_version, &rv) || key_cmp_n(rv.key, v->key, 2) != 0)
            continue;
        int c = imx_ver_cmp(&rv, v);
        if (c == 0) {
            *exact = true;
            return &ref->cuda[i];
        }
        if (c < 0 && (!below || imx_ver_cmp(&rv, &below_v) > 0)) {
            below = &ref->cuda[i];
            below_v = rv;
        }
        if (c > 0 && (!above || imx_ver_cmp(&rv, &above_v) < 0)) {
            above = &ref->cuda[i];
            above_v = rv;
        }
    }
    return below ? below : above;
}

/* "+cu124" -> 12.4, "+cu118" -> 11.8, "+cu130" -> 13.0 (two-digit major from CUDA 10 on). */
static bool pytorch_suffix_cuda(const struct imx_ver *pt, struct imx_ver *cuda)
{
    const char *s = imx_ver_suffix(pt);
    if (strncmp(s, "+cu", 3) != 0)
        return false;
    const char *d = s + 3;
    size_t n = strspn(d, "0123456789");
    if (d[n] != '\0' || n < 3 || n > 4)
        return false;
    char text[16];
    snprintf(text, sizeof text, "%.2s.%s", d, d + 2);
    return imx_ver_parse(text, cuda) == 0;
}

static void check_driver_branch(struct builder *b, const struct imx_ref_snapshot *ref,
                                const struct stack *st, const char *today)
{
    int branch = (int)imx_ver_branch(&st->driver);
    const struct imx_ref_driver_branch *br = find_branch(ref, branch);
    struct imx_compat_finding *f;
    if (!br) {
        f = add(b, IMX_COMPAT_INFO, "unknown_component_version", NULL,
                "NVIDIA driver %s belongs to branch R%d, which is not in the reference data, so "
                "its support status and end of life were not checked.",
                st->driver.text, branch);
        involve(f, "nvidia-driver", st->driver.text);
        return;
    }
    /* NVIDIA's own date first: an estimate (release + 1 or 3 years) is only a fallback. */
    const char *eol = br->eol_nvidia ? br->eol_nvidia : br->eol_estimate;
    if (eol && strcmp(eol, today) <= 0) {
        f = add(b, IMX_COMPAT_WARNING, "driver_branch_eol",
                br->eol_nvidia && br->eol_source ? br->eol_source : br->source,
                "NVIDIA driver %s is on branch R%d (%s), which reached end of life on %s (%s) "
                "and gets no more security updates.",
                st->driver.text, branch, br->branch_type ? br->branch_type : "type unconfirmed",
                eol,
                br->eol_nvidia ? "NVIDIA's published date"
                               : "an estimate: NVIDIA publishes no date for this branch");
        involve(f, "nvidia-driver", st->driver.text);
    }
}

static void check_driver_for_cuda(struct builder *b, const struct imx_ref_snapshot *ref,
                                  const struct stack *st, const struct imx_ref_cuda_driver *row,
                                  const struct cuda_use *cu)
{
    struct imx_ver need;
    if (!ref_ver(row->linux_driver_min, &need) || imx_ver_cmp(&st->driver, &need) >= 0)
        return;
    const struct imx_ref_cuda_mvc *mvc = find_mvc(ref, row->cuda_major);
    struct imx_ver floor;
    struct imx_compat_finding *f;
    if (mvc && ref_ver(mvc->driver_floor, &floor) && imx_ver_cmp(&st->driver, &floor) >= 0) {
        f = add(b, IMX_COMPAT_WARNING, "driver_mvc_only", row->source,
                "%s needs NVIDIA driver %s or newer; driver %s runs it only through CUDA "
                "%d.x minor-version compatibility (driver >= %s): features that need the newer "
                "driver are unavailable and JIT compilation of PTX newer than the driver fails "
                "(cudaErrorUnsupportedPtxVersion).",
                cu->what, row->linux_driver_min, st->driver.text, row->cuda_major,
                mvc->driver_floor);
    } else {
        f = add(b, IMX_COMPAT_ERROR, "driver_too_old_for_cuda", row->source,
                "%s needs NVIDIA driver %s or newer (%s%s); driver %s is older, so CUDA "
                "applications fail to initialize.",
                cu->what, row->linux_driver_min,
                mvc ? "minor-version compatibility still needs "
                    : "no minor-version "
                      "compatibility for this major",
                mvc ? mvc->driver_floor : "", st->driver.text);
    }
    involve(f, "nvidia-driver", st->driver.text);
    involve(f, cu->name, cu->text);
}

/* A CUDA minor whose exact minimum driver is unknown (not in the data, or unconfirmed) is still
 * held to its major's minor-version-compatibility floor. */
static void check_driver_for_cuda_major(struct builder *b, const struct imx_ref_snapshot *ref,
                                        const struct stack *st, const struct cuda_use *cu,
                                        const char *why)
{
    int major = (int)cu->v->key[0], minor = (int)cu->v->key[1];
    const struct imx_ref_cuda_mvc *mvc = find_mvc(ref, major);
    struct imx_ver floor;
    struct imx_compat_finding *f;
    if (!mvc || !ref_ver(mvc->driver_floor, &floor)) {
        f = add(b, IMX_COMPAT_INFO, "unknown_component_version", NULL,
                "CUDA %s is not in the reference data, so its driver requirement was not "
                "checked.",
                cu->v->text);
    } else if (st->has_driver && imx_ver_cmp(&st->driver, &floor) < 0) {
        f = add(b, IMX_COMPAT_ERROR, "driver_below_cuda_major_floor", mvc->source,
                "%s %s, but every CUDA %d.x needs NVIDIA driver %s or newer (minor-version "
                "compatibility floor of the major); driver %s is older. The exact minimum for "
                "CUDA %d.%d is unknown.",
                cu->what, why, major, mvc->driver_floor, st->driver.text, major, minor);
        involve(f, "nvidia-driver", st->driver.text);
    } else if (st->has_driver) {
        f = add(b, IMX_COMPAT_INFO, "unknown_component_version", mvc->source,
                "%s %s; the exact minimum driver for CUDA %d.%d is unknown, so only CUDA %d.x's "
                "floor (driver %s) was checked.",
                cu->what, why, major, minor, major, mvc->driver_floor);
    } else {
        f = add(b, IMX_COMPAT_INFO, "unknown_component_version", mvc->source,
                "%s %s; it needs NVIDIA driver %s or newer (CUDA %d.x's floor), and the exact "
                "minimum for CUDA %d.%d is unknown.",
                cu->what, why, mvc->driver_floor, major, major, minor);
    }
    involve(f, cu->name, cu->text);
}

static void check_cuda(struct builder *b, const struct imx_ref_snapshot *ref,
                       const struct stack *st, const struct cuda_use *cu)
{
    bool exact;
    const struct imx_ref_cuda_driver *row = find_cuda(ref, cu->v, &exact);
    if (!row) {
        check_driver_for_cuda_major(b, ref, st, cu, "is not in the reference data");
        return;
    }
    if (!row->linux_driver_min) {
        check_driver_for_cuda_major(b, ref, st, cu,
                                    "has no confirmed minimum driver in the reference data");
        return;
    }
    if (!exact && cu->v->nparts > 2) {
        struct imx_compat_finding *f =
            add(b, IMX_COMPAT_INFO, "unknown_component_version", row->source,
                "CUDA %s is not in the reference data; it was checked as CUDA %s.", cu->v->text,
                row->cuda_version);
        involve(f, cu->name, cu->text);
    }
    if (st->has_driver)
        check_driver_for_cuda(b, ref, st, row, cu);
}

/* The first CUDA toolkit for a GPU: the newest of its model's and its compute capability's
 * (NVIDIA added capabilities one by one: 10.0 with 12.8, 10.3 with 12.9, 11.0 with 13.0), else
 * its architecture's. */
static const char *gpu_first_cuda(const struct imx_ref_snapshot *ref, const struct imx_ref_gpu *g,
                                  const struct imx_ref_gpu_arch *arch, const char **source,
                                  bool *unconfirmed)
{
    const struct imx_ref_compute_capability *cc = find_cc(ref, g->compute_capability);
    struct imx_ver mv, cv;
    bool has_m = ref_ver(g->first_cuda, &mv), has_c = cc && ref_ver(cc->first_cuda, &cv);
    *unconfirmed = false;
    if (has_c && (!has_m || key_cmp_n(cv.key, mv.key, 2) >= 0)) {
        *source = cc->source;
        *unconfirmed = cc->unconfirmed;
        return cc->first_cuda;
    }
    if (has_m) {
        *source = g->source;
        return g->first_cuda;
    }
    *source = arch ? arch->source : g->source;
    return arch ? arch->first_cuda : NULL;
}

/* The newest compute capability of the GPU's major, below its own, that the toolkit cu can build
 * for (its first CUDA is not newer than cu): code built for it runs on the GPU by CUDA binary
 * compatibility ("a cubin generated for a certain compute capability is supported to run on any
 * GPU with the same major revision and same or higher minor revision", NVIDIA's Blackwell
 * compatibility guide): sm_100 code on a B300 (10.3), sm_120 on a GB10 (12.1). NULL when none. */
static const struct imx_ref_compute_capability *
same_major_buildable(const struct imx_ref_snapshot *ref, const struct imx_ver *cc,
                     const struct imx_ver *cuda)
{
    const struct imx_ref_compute_capability *best = NULL;
    struct imx_ver best_v = { 0 }, v, fv;
    for (size_t i = 0; i < ref->n_ccs; i++) {
        const struct imx_ref_compute_capability *r = &ref->ccs[i];
        if (r->unconfirmed || !ref_ver(r->compute_capability, &v) || !ref_ver(r->first_cuda, &fv))
            continue;
        if (v.key[0] != cc->key[0] || key_cmp_n(v.key, cc->key, 2) >= 0 ||
            key_cmp_n(fv.key, cuda->key, 2) > 0)
            continue;
        struct imx_ver dv;
        if (ref_ver(r->dropped_cuda, &dv) && key_cmp_n(cuda->key, dv.key, 2) >= 0)
            continue;
        if (!best || key_cmp_n(v.key, best_v.key, 2) > 0) {
            best = r;
            best_v = v;
        }
    }
    return best;
}

struct arch_probe {
    const struct imx_ver *cc;
};
static bool arch_runs(const struct imx_ver *v, bool ptx, void *arg);
static bool each_cc(const char *list, bool (*fn)(const struct imx_ver *cc, bool ptx, void *arg),
                    void *arg);

static void check_gpu_cuda(struct builder *b, const struct imx_ref_snapshot *ref,
                           const struct imx_ref_gpu *g, const struct imx_ref_gpu_arch *arch,
                           const struct cuda_use *cu)
{
    const char *first_src;
    bool unconfirmed;
    const char *first = gpu_first_cuda(ref, g, arch, &first_src, &unconfirmed);
    struct imx_ver fv, cc;
    struct imx_compat_finding *f;
    const struct imx_ref_compute_capability *lower =
        ref_ver(g->compute_capability, &cc) ? same_major_buildable(ref, &cc, cu->v) : NULL;
    /* Toolkits are compared by major.minor: "12.8" means any 12.8.x. */
    if (ref_ver(first, &fv) && key_cmp_n(cu->v->key, fv.key, 2) < 0 && lower) {
        /* The toolkit cannot target the capability itself, but code for a lower one of the same
         * major runs on it. A wheel whose architecture list runs on the GPU has nothing to add
         * (framework_gpu_arch_unsupported judges the list). */
        struct arch_probe p = { &cc };
        if (!cu->wheel_archs || !each_cc(cu->wheel_archs, arch_runs, &p)) {
            f = add(b, IMX_COMPAT_WARNING, "gpu_cc_binary_compat", lower->source,
                    "%s (%s, compute capability %s) is first targeted by CUDA %s; %s cannot build "
                    "for it natively, but code it builds for compute capability %s runs on it by "
                    "CUDA binary compatibility (same major, lower minor), without the newer "
                    "capability's own features.",
                    g->gpu_model, g->architecture, g->compute_capability, first, cu->what,
                    lower->compute_capability);
            involve(f, "gpu", g->gpu_model);
            involve(f, cu->name, cu->text);
        }
    } else if (ref_ver(first, &fv) && key_cmp_n(cu->v->key, fv.key, 2) < 0) {
        f = add(b, IMX_COMPAT_ERROR, "gpu_too_new_for_cuda", first_src,
                "%s (%s, compute capability %s) needs CUDA %s or newer; %s cannot build or run "
                "code for it.",
                g->gpu_model, g->architecture, g->compute_capability, first, cu->what);
        soften(f, unconfirmed);
        involve(f, "gpu", g->gpu_model);
        involve(f, cu->name, cu->text);
    }
    if (!ref_ver(first, &fv)) {
        /* The fact is missing, not fine: say so (info), never a silent pass. */
        f = add(b, IMX_COMPAT_INFO, "unknown_component_version", g->source,
                "The first CUDA toolkit for the %s (%s, compute capability %s) is not in the "
                "reference data, so whether %s is too old for it was not checked.",
                g->gpu_model, g->architecture, g->compute_capability, cu->what);
        involve(f, "gpu", g->gpu_model);
        involve(f, cu->name, cu->text);
    }
    /* The toolkit that dropped the capability (ref_compute_capability.dropped_cuda, one per
     * capability: CUDA 13.0 dropped 7.0 and 7.2 but kept 7.5), else the architecture's last
     * CUDA major. */
    const struct imx_ref_compute_capability *ccr = find_cc(ref, g->compute_capability);
    struct imx_ver dv;
    if (ccr && ref_ver(ccr->dropped_cuda, &dv)) {
        if (key_cmp_n(cu->v->key, dv.key, 2) >= 0) {
            f = add(b, IMX_COMPAT_ERROR, "gpu_dropped_by_cuda", ccr->source,
                    "CUDA %s dropped compute capability %s (%s GPUs such as the %s): %s cannot "
                    "build or run code for it.",
                    ccr->dropped_cuda, g->compute_capability, g->architecture, g->gpu_model,
                    cu->what);
            soften(f, ccr->unconfirmed);
            involve(f, "gpu", g->gpu_model);
            involve(f, cu->name, cu->text);
        }
    } else if (arch && arch->last_cuda_major > 0 && cu->v->key[0] > arch->last_cuda_major) {
        f = add(b, IMX_COMPAT_ERROR, "gpu_dropped_by_cuda", arch->source,
                "CUDA %d dropped %s GPUs such as the %s: CUDA %d.x is the last to support "
                "compute capability %s, and %s cannot run on it.",
                (int)cu->v->key[0], arch->architecture, g->gpu_model, arch->last_cuda_major,
                g->compute_capability, cu->what);
        involve(f, "gpu", g->gpu_model);
        involve(f, cu->name, cu->text);
    }
}

static void check_gpu(struct builder *b, const struct imx_ref_snapshot *ref, const struct stack *st,
                      const char *name, const struct cuda_use *cus, size_t n_cus)
{
    const struct imx_ref_gpu *g = imx_compat_find_gpu(ref, name);
    struct imx_compat_finding *f;
    if (!g) {
        f = add(b, IMX_COMPAT_INFO, "unknown_gpu", NULL,
                "GPU \"%s\" is not in the reference data, so nothing was checked for it.", name);
        involve(f, "gpu", name);
        return;
    }
    const struct imx_ref_gpu_arch *arch = find_arch(ref, g->architecture);
    if (!arch) {
        f = add(b, IMX_COMPAT_INFO, "unknown_component_version", g->source,
                "The %s's architecture (%s) is not in the reference data, so the last CUDA and "
                "driver branch that support it were not checked.",
                g->gpu_model, g->architecture);
        involve(f, "gpu", g->gpu_model);
    }
    for (size_t i = 0; i < n_cus; i++)
        check_gpu_cuda(b, ref, g, arch, &cus[i]);
    if (!st->has_driver)
        return;
    int branch = (int)imx_ver_branch(&st->driver);
    if (arch && arch->last_driver_branch > 0 && branch > arch->last_driver_branch) {
        f = add(b, IMX_COMPAT_ERROR, "gpu_dropped_by_driver", arch->source,
                "NVIDIA driver branch R%d no longer supports %s GPUs such as the %s; R%d is "
                "the last branch for them (driver %s).",
                branch, arch->architecture, g->gpu_model, arch->last_driver_branch,
                st->driver.text);
        involve(f, "gpu", g->gpu_model);
        involve(f, "nvidia-driver", st->driver.text);
    }
    /* A model-specific minimum wins; else the newer of the row's derived floor and the floor of
     * the first toolkit for its compute capability. */
    const char *min = g->min_driver_documented, *min_src = g->source, *first_src;
    bool unconfirmed = false, by_cc = false;
    if (!min) {
        const char *first = gpu_first_cuda(ref, g, arch, &first_src, &unconfirmed);
        const char *cc_floor = cuda_minor_floor(ref, first);
        struct imx_ver dv, cv;
        min = g->min_driver_derived;
        if (ref_ver(cc_floor, &cv) && (!ref_ver(min, &dv) || imx_ver_cmp(&cv, &dv) > 0)) {
            min = cc_floor;
            min_src = first_src;
            by_cc = true;
        }
    }
    struct imx_ver mv;
    if (!ref_ver(min, &mv)) {
        /* The GPU predates the Table-3 rows (its first CUDA is older than any release held), so
         * every driver from the oldest held floor on runs it; an older driver is not known to. */
        const char *oldest = NULL;
        struct imx_ver ov, best;
        for (size_t i = 0; i < ref->n_cuda; i++) {
            if (ref_ver(ref->cuda[i].linux_driver_min, &ov) &&
                (!oldest || imx_ver_cmp(&ov, &best) < 0)) {
                oldest = ref->cuda[i].linux_driver_min;
                best = ov;
            }
        }
        if (oldest && imx_ver_cmp(&st->driver, &best) < 0) {
            f = add(b, IMX_COMPAT_INFO, "unknown_component_version", g->source,
                    "The %s's minimum NVIDIA driver is not in the reference data (its first CUDA "
                    "toolkit predates the Table-3 rows, which start at driver %s), so driver %s "
                    "was not checked against it.",
                    g->gpu_model, oldest, st->driver.text);
            involve(f, "gpu", g->gpu_model);
            involve(f, "nvidia-driver", st->driver.text);
        }
    } else if (imx_ver_cmp(&st->driver, &mv) < 0) {
        char why[160];
        if (g->min_driver_documented)
            snprintf(why, sizeof why, " (model-specific minimum)");
        else if (by_cc)
            snprintf(why, sizeof why,
                     " (the driver floor of the first CUDA toolkit for compute capability %s)",
                     g->compute_capability);
        else
            snprintf(why, sizeof why,
                     " (the driver floor of the first CUDA toolkit for its architecture)");
        f = add(b, IMX_COMPAT_ERROR, "gpu_driver_too_old", min_src,
                "The %s needs NVIDIA driver %s or newer%s; driver %s does not support it.",
                g->gpu_model, min, why, st->driver.text);
        soften(f, unconfirmed && by_cc);
        involve(f, "gpu", g->gpu_model);
        involve(f, "nvidia-driver", st->driver.text);
    }
}

/* Where a GPU's compute capability stands against a cuDNN release's list (support matrix). */
enum cc_fit { CC_UNKNOWN, CC_LISTED, CC_OLDER, CC_NEWER };

/* Calls fn for each ';'-separated capability of list ("7.5;8.0;12.0+PTX"): ptx says whether
 * "+PTX" follows it. Stops early when fn returns true; returns whether one did. */
static bool each_cc(const char *list, bool (*fn)(const struct imx_ver *cc, bool ptx, void *arg),
                    void *arg)
{
    char item[32];
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ";");
        snprintf(item, sizeof item, "%.*s", (int)(n < sizeof item - 1 ? n : sizeof item - 1), p);
        char *plus = strchr(item, '+');
        bool ptx = plus && strcmp(plus, "+PTX") == 0;
        if (plus)
            *plus = '\0';
        struct imx_ver v;
        if (imx_ver_parse(item, &v) == 0 && fn(&v, ptx, arg))
            return true;
        p += n;
        if (*p == ';')
            p++;
    }
    return false;
}

struct cc_probe {
    const struct imx_ver *cc;
    bool lowest_above; /* every listed capability is above cc */
    bool any;
};

/* Does listed capability v cover cc: the same one, or, before Hopper, one of the same major with a
 * lower minor (CUDA binary compatibility: a cubin runs on the same major with the same or a
 * higher minor, so cuDNN 8.9's sm_50 kernels run on a Maxwell 5.2 and its sm_70 ones on a Volta
 * 7.2, and NVIDIA's 8.9.6 matrix lists "NVIDIA Maxwell" as supported hardware beside capability
 * 5.0 alone: docs.nvidia.com/deeplearning/cudnn/archives/cudnn-896/support-matrix). From Hopper on
 * cuDNN's fastest kernels use architecture-specific features (sm_90a, sm_100a) that run on their
 * own capability only, so a GPU between two listed ones stays in forward-compatibility mode. */
static bool cc_equal(const struct imx_ver *v, bool ptx, void *arg)
{
    (void)ptx;
    struct cc_probe *p = arg;
    p->any = true;
    int c = key_cmp_n(v->key, p->cc->key, 2);
    if (c <= 0)
        p->lowest_above = false;
    return c == 0 || (c < 0 && v->key[0] == p->cc->key[0] && v->key[0] < 9);
}

/* The set the rules read: a set read from the release's own matrix; a DERIVED one only where no
 * range was read (a read fact beats a derived one). */
static bool cudnn_set_used(const struct imx_ref_cudnn *row)
{
    return row->cc_list && (!row->cc_list_unconfirmed || (!row->cc_min && !row->cc_max));
}

static bool cudnn_derived_used(const struct imx_ref_cudnn *row)
{
    return cudnn_set_used(row) && row->cc_list_unconfirmed;
}

static enum cc_fit cudnn_cc_fit(const struct imx_ref_cudnn *row, const struct imx_ver *cc)
{
    if (cudnn_set_used(row)) {
        struct cc_probe p = { cc, true, false };
        if (each_cc(row->cc_list, cc_equal, &p))
            return CC_LISTED;
        if (!p.any)
            return CC_UNKNOWN;
        return p.lowest_above ? CC_OLDER : CC_NEWER;
    }
    struct imx_ver lo, hi;
    bool has_lo = ref_ver(row->cc_min, &lo), has_hi = ref_ver(row->cc_max, &hi);
    if (has_lo && key_cmp_n(cc->key, lo.key, 2) < 0)
        return CC_OLDER;
    if (has_hi && key_cmp_n(cc->key, hi.key, 2) > 0)
        return CC_NEWER;
    return has_lo || has_hi ? CC_LISTED : CC_UNKNOWN;
}

/* "7.5, 8.0, ... 12.0" (a set) or "7.5 to 12.0" (a range) for messages. */
static void cudnn_cc_text(const struct imx_ref_cudnn *row, char *out, size_t len)
{
    if (cudnn_set_used(row)) {
        snprintf(out, len, "%s", row->cc_list);
        for (char *p = out; *p; p++) {
            if (*p == ';')
                *p = ',';
        }
        return;
    }
    snprintf(out, len, "%s to %s", row->cc_min ? row->cc_min : "?",
             row->cc_max ? row->cc_max : "?");
}

/* NVIDIA's forward-compatibility mode is for cuDNN 9 builds for CUDA 12 or later. */
static bool cudnn_has_cuda12_build(const struct imx_ref_cudnn *row)
{
    for (size_t i = 0; i < row->n_cuda_majors; i++) {
        if (row->cuda_majors[i] >= 12)
            return true;
    }
    return false;
}

static void check_cudnn(struct builder *b, const struct imx_ref_snapshot *ref,
                        const struct stack *st, const char *const *gpus, size_t n_gpus)
{
    const struct imx_ref_cudnn *row = NULL;
    struct imx_ver rv;
    /* cuDNN versions carry a build number (9.1.0.70); the reference lists major.minor.patch. */
    for (size_t i = 0; i < ref->n_cudnn && !row; i++) {
        if (ref_ver(ref->cudnn[i].cudnn_version, &rv) && key_cmp_n(rv.key, st->cudnn.key, 3) == 0)
            row = &ref->cudnn[i];
    }
    struct imx_compat_finding *f;
    if (!row) {
        f = add(b, IMX_COMPAT_INFO, "unknown_component_version", NULL,
                "cuDNN %s is not in the reference data, so its CUDA builds were not checked.",
                st->cudnn.text);
        involve(f, "cudnn", st->cudnn.text);
        return;
    }
    const char *cuda_name = st->cuda_from_pytorch ? "pytorch" : "cuda";
    const char *cuda_text = st->cuda_from_pytorch ? st->pytorch.text : st->cuda.text;
    bool cc_unread = false;

    /* The compute capabilities its kernels cover (support matrix): a set where one was read, else
     * a range. A GPU older than the oldest has no kernels; one newer than the list (or, with a
     * set, between two listed ones) runs a cuDNN 9 build for CUDA 12 or later only in NVIDIA's
     * hardware forward-compatibility mode (PTX JIT, some operations excluded): a warning. */
    for (size_t i = 0; i < n_gpus; i++) {
        const struct imx_ref_gpu *g = imx_compat_find_gpu(ref, gpus[i]);
        struct imx_ver cc;
        if (!g || !ref_ver(g->compute_capability, &cc))
            continue;
        enum cc_fit fit = cudnn_cc_fit(row, &cc);
        if (fit == CC_UNKNOWN && !cc_unread) {
            /* The fact is missing, not fine: say so once (info), never a silent pass. */
            cc_unread = true;
            f = add(b, IMX_COMPAT_INFO, "unknown_component_version", row->source,
                    "cuDNN %s's support matrix was not read, so the compute capabilities it "
                    "has kernels for are not in the reference data and the GPUs (the %s, "
                    "compute capability %s, ...) were not checked against it.",
                    st->cudnn.text, g->gpu_model, g->compute_capability);
            involve(f, "cudnn", st->cudnn.text);
        }
        if (fit == CC_LISTED && cudnn_derived_used(row) && !cc_unread) {
            /* A pass that rests on a DERIVED set is not confirmed: say so once. */
            cc_unread = true;
            f = add(b, IMX_COMPAT_INFO, "unknown_component_version", row->source,
                    "cuDNN %s's compute-capability set was derived from the support matrices "
                    "around it, not read from its own, so its support for the GPUs (the %s, "
                    "compute capability %s, ...) is unconfirmed.",
                    st->cudnn.text, g->gpu_model, g->compute_capability);
            involve(f, "cudnn", st->cudnn.text);
        }
        if (fit == CC_LISTED || fit == CC_UNKNOWN)
            continue;
        char listed[160];
        cudnn_cc_text(row, listed, sizeof listed);
        bool fwd = fit == CC_NEWER && (row->forward_compat_known
                                           ? row->forward_compat
                                           : st->cudnn.key[0] >= 9 && cudnn_has_cuda12_build(row));
        if (fwd) {
            f = add(b, IMX_COMPAT_WARNING, "cudnn_gpu_forward_compat", row->source,
                    "cuDNN %s lists compute capabilities %s; the %s (%s, compute capability %s) "
                    "is not among them and runs only in cuDNN 9's hardware forward-compatibility "
                    "mode (PTX JIT, some operations unsupported; set CUDNN_LIB_CONFIG=FULL).",
                    st->cudnn.text, listed, g->gpu_model, g->architecture, g->compute_capability);
        } else {
            f = add(b, IMX_COMPAT_ERROR, "cudnn_gpu_unsupported", row->source,
                    "cuDNN %s lists compute capabilities %s only; the %s (%s, compute "
                    "capability %s) has no kernels in it%s.",
                    st->cudnn.text, listed, g->gpu_model, g->architecture, g->compute_capability,
                    fit == CC_OLDER
                        ? ""
                        : " (this release has no forward-compatibility mode for newer GPUs)");
            soften(f, row->unconfirmed || cudnn_derived_used(row));
        }
        involve(f, "cudnn", st->cudnn.text);
        involve(f, "gpu", g->gpu_model);
    }
    if (!st->has_cuda)
        return;
    for (size_t i = 0; i < row->n_cuda_majors; i++) {
        if (row->cuda_majors[i] != st->cuda.key[0])
            continue;
        /* A build for 12.0-12.6 is not supported with a newer 12.x toolkit. */
        struct imx_ver mx;
        if (ref_ver(row->cuda_max[i], &mx) && key_cmp_n(st->cuda.key, mx.key, 2) > 0) {
            f = add(b, IMX_COMPAT_WARNING, "cudnn_cuda_minor_unsupported", row->source,
                    "cuDNN %s's CUDA %d build covers toolkits up to CUDA %s, not CUDA %s: the "
                    "combination is not supported by NVIDIA's support matrix.",
                    st->cudnn.text, row->cuda_majors[i], row->cuda_max[i], st->cuda.text);
            involve(f, "cudnn", st->cudnn.text);
            involve(f, cuda_name, cuda_text);
        }
        return;
    }
    char majors[64] = "";
    size_t used = 0;
    for (size_t i = 0; i < row->n_cuda_majors && used < sizeof majors; i++) {
        int w = snprintf(majors + used, sizeof majors - used, "%s%d", i ? ", " : "",
                         row->cuda_majors[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    f = add(b, IMX_COMPAT_ERROR, "cudnn_cuda_major_mismatch", row->source,
            "cuDNN %s has builds for CUDA %s only, not for CUDA %d (the stack has CUDA %s).",
            st->cudnn.text, majors, (int)st->cuda.key[0], st->cuda.text);
    soften(f, row->unconfirmed);
    involve(f, "cudnn", st->cudnn.text);
    involve(f, cuda_name, cuda_text);
}

static void check_pytorch(struct builder *b, const struct imx_ref_snapshot *ref,
                          const struct stack *st)
{
    char listed[160] = "";
    size_t used = 0;
    bool known = false;
    struct imx_ver pv, cv;
    const struct imx_ref_pytorch_build *build = NULL, *src_row = NULL;
    const struct imx_ver *cuda = st->pytorch_has_suffix_cuda ? &st->pytorch_cuda
                                 : st->has_cuda              ? &st->cuda
                                                             : NULL;
    for (size_t i = 0; i < ref->n_pytorch; i++) {
        const struct imx_ref_pytorch_build *r = &ref->pytorch[i];
        if (!ref_ver(r->pytorch_version, &pv) || key_cmp_n(pv.key, st->pytorch.key, 2) != 0)
            continue;
        known = true;
        src_row = r;
        if (used < sizeof listed) {
            int w = snprintf(listed + used, sizeof listed - used, "%s%s%s", used ? ", " : "",
                             r->cuda_version, r->experimental ? " (experimental)" : "");
            if (w > 0)
                used += (size_t)w;
        }
        if (cuda && ref_ver(r->cuda_version, &cv) && key_cmp_n(cv.key, cuda->key, 2) == 0)
            build = r;
    }
    struct imx_compat_finding *f;
    if (!known) {
        f = add(b, IMX_COMPAT_INFO, "unknown_component_version", NULL,
                "PyTorch %s is not in the reference data, so its CUDA builds were not checked.",
                st->pytorch.text);
        involve(f, "pytorch", st->pytorch.text);
        return;
    }
    if (!cuda)
        return;
    int major = (int)cuda->key[0], minor = (int)cuda->key[1];
    if (!build) {
        f = add(b, IMX_COMPAT_ERROR, "framework_no_cuda_build", src_row->source,
                "PyTorch %d.%d has no official build for CUDA %d.%d; its CUDA builds are %s.",
                (int)st->pytorch.key[0], (int)st->pytorch.key[1], major, minor, listed);
    } else if (build->experimental) {
        f = add(b, IMX_COMPAT_INFO, "framework_cuda_build_experimental", build->source,
                "PyTorch %d.%d's build for CUDA %d.%d is experimental, not a stable release "
                "build.",
                (int)st->pytorch.key[0], (int)st->pytorch.key[1], major, minor);
    } else {
        return;
    }
    involve(f, "pytorch", st->pytorch.text);
    if (!st->pytorch_has_suffix_cuda)
        involve(f, "cuda", st->cuda.text);
}

/* Does one entry of a wheel's architecture list run on the GPU? A cubin runs on its own major
 * with the same or a higher minor (CUDA binary compatibility); PTX JIT-compiles for any newer
 * GPU. */
static bool arch_runs(const struct imx_ver *v, bool ptx, void *arg)
{
    const struct arch_probe *p = arg;
    if (key_cmp_n(v->key, p->cc->key, 2) > 0)
        return false;
    return ptx || v->key[0] == p->cc->key[0];
}

/* A PyTorch wheel has kernels for the architectures it was built for only (ref_pytorch_build
 * .cuda_archs, per release and variant): another GPU fails with "no kernel image is available".
 * The lists are PyTorch's Linux x86_64 / Windows ones, so Jetson GPUs (JetPack wheels) are not
 * held to them. */
static void check_pytorch_arch(struct builder *b, const struct imx_ref_snapshot *ref,
                               const struct stack *st, const char *const *gpus, size_t n_gpus)
{
    const struct imx_ver *cuda = st->pytorch_has_suffix_cuda ? &st->pytorch_cuda
                                 : st->has_cuda              ? &st->cuda
                                                             : NULL;
    const struct imx_ref_pytorch_build *build = NULL;
    struct imx_ver pv, cv;
    for (size_t i = 0; cuda && i < ref->n_pytorch && !build; i++) {
        const struct imx_ref_pytorch_build *r = &ref->pytorch[i];
        if (ref_ver(r->pytorch_version, &pv) && key_cmp_n(pv.key, st->pytorch.key, 2) == 0 &&
            ref_ver(r->cuda_version, &cv) && key_cmp_n(cv.key, cuda->key, 2) == 0)
            build = r;
    }
    if (!build)
        return;
    if (!build->cuda_archs) {
        if (n_gpus > 0) {
            struct imx_compat_finding *f =
                add(b, IMX_COMPAT_INFO, "unknown_component_version", build->source,
                    "The architecture list of PyTorch %d.%d's CUDA %d.%d wheels is not in the "
                    "reference data, so the GPUs were not checked against its kernels.",
                    (int)st->pytorch.key[0], (int)st->pytorch.key[1], (int)cuda->key[0],
                    (int)cuda->key[1]);
            involve(f, "pytorch", st->pytorch.text);
        }
        return;
    }
    for (size_t i = 0; i < n_gpus; i++) {
        const struct imx_ref_gpu *g = imx_compat_find_gpu(ref, gpus[i]);
        struct imx_ver cc;
        if (!g || !ref_ver(g->compute_capability, &cc) || strncmp(g->gpu_model, "Jetson", 6) == 0)
            continue;
        struct arch_probe p = { &cc };
        if (each_cc(build->cuda_archs, arch_runs, &p))
            continue;
        char listed[160];
        snprintf(listed, sizeof listed, "%s", build->cuda_archs);
        for (char *q = listed; *q; q++) {
            if (*q == ';')
                *q = ',';
        }
        struct imx_compat_finding *f =
            add(b, IMX_COMPAT_ERROR, "framework_gpu_arch_unsupported",
                build->cuda_archs_source ? build->cuda_archs_source : build->source,
                "PyTorch %d.%d's CUDA %d.%d wheels are built for compute capabilities %s; the %s "
                "(%s, compute capability %s) is not among them and has no kernels (\"no kernel "
                "image is available for execution on the device\").",
                (int)st->pytorch.key[0], (int)st->pytorch.key[1], (int)cuda->key[0],
                (int)cuda->key[1], listed, g->gpu_model, g->architecture, g->compute_capability);
        involve(f, "pytorch", st->pytorch.text);
        involve(f, "gpu", g->gpu_model);
    }
}

static void check_tensorflow(struct builder *b, const struct imx_ref_snapshot *ref,
                             const struct stack *st)
{
    const struct imx_ref_tensorflow *row = NULL;
    struct imx_ver tv, cv;
    for (size_t i = 0; i < ref->n_tensorflow && !row; i++) {
        if (ref_ver(ref->tensorflow[i].tensorflow_version, &tv) &&
            key_cmp_n(tv.key, st->tf.key, 2) == 0)
            row = &ref->tensorflow[i];
    }
    struct imx_compat_finding *f;
    if (!row) {
        f = add(b, IMX_COMPAT_INFO, "unknown_component_version", NULL,
                "TensorFlow %s is not in the reference data, so its CUDA build was not checked.",
                st->tf.text);
        involve(f, "tensorflow", st->tf.text);
        return;
    }
    /* TensorFlow loads the cuDNN major it was built with (libcudnn.so.9 for cuDNN 9). */
    struct imx_ver dv;
    if (st->has_cudnn && !ref_ver(row->cudnn, &dv)) {
        f = add(b, IMX_COMPAT_INFO, "unknown_component_version", row->source,
                "The cuDNN TensorFlow %s is built with is not in the reference data, so cuDNN %s "
                "was not checked against it.",
                st->tf.text, st->cudnn.text);
        involve(f, "tensorflow", st->tf.text);
        involve(f, "cudnn", st->cudnn.text);
    } else if (st->has_cudnn && dv.key[0] != st->cudnn.key[0]) {
        f = add(b, IMX_COMPAT_ERROR, "framework_cudnn_major_mismatch", row->source,
                "TensorFlow %s is built and tested with cuDNN %s; cuDNN %s is another major "
                "version, so TensorFlow cannot load it (it needs libcudnn.so.%d).",
                st->tf.text, row->cudnn, st->cudnn.text, (int)dv.key[0]);
        involve(f, "tensorflow", st->tf.text);
        involve(f, "cudnn", st->cudnn.text);
    }
    /* TensorFlow's own CUDA (its pip [and-cuda] wheels, or the toolkit it needs) still needs
     * that major's driver floor (minor-version compatibility), whatever else the image holds. */
    const struct imx_ref_cuda_mvc *mvc =
        ref_ver(row->cuda, &cv) ? find_mvc(ref, (int)cv.key[0]) : NULL;
    struct imx_ver floor;
    if (st->has_driver && mvc && ref_ver(mvc->driver_floor, &floor) &&
        imx_ver_cmp(&st->driver, &floor) < 0) {
        f = add(b, IMX_COMPAT_ERROR, "framework_driver_too_old", mvc->source,
                "TensorFlow %s is built with CUDA %s, and every CUDA %d.x needs NVIDIA driver %s "
                "or newer; driver %s is older.",
                st->tf.text, row->cuda, (int)cv.key[0], mvc->driver_floor, st->driver.text);
        involve(f, "tensorflow", st->tf.text);
        involve(f, "nvidia-driver", st->driver.text);
    }
    if (!st->has_cuda || !ref_ver(row->cuda, &cv) || cv.key[0] == st->cuda.key[0])
        return;
    f = add(b, IMX_COMPAT_ERROR, "framework_no_cuda_build", row->source,
            "TensorFlow %s is built and tested with CUDA %s; there is no official build for "
            "CUDA %d (the stack has CUDA %s).",
            st->tf.text, row->cuda, (int)st->cuda.key[0], st->cuda.text);
    involve(f, "tensorflow", st->tf.text);
    involve(f, st->cuda_from_pytorch ? "pytorch" : "cuda",
            st->cuda_from_pytorch ? st->pytorch.text : st->cuda.text);
}

/* Is python's major.minor within [lo, hi] (either end NULL: not known)? */
static bool python_in(const struct imx_ver *py, const char *lo, const char *hi)
{
    struct imx_ver v;
    if (ref_ver(lo, &v) && key_cmp_n(py->key, v.key, 2) < 0)
        return false;
    return !(ref_ver(hi, &v) && key_cmp_n(py->key, v.key, 2) > 0);
}

/* An info finding: framework's Python range (or release) is not in the reference data. */
static void python_unknown(struct builder *b, const struct stack *st, const char *framework,
                           const char *version, const char *why)
{
    struct imx_compat_finding *f = add(b, IMX_COMPAT_INFO, "unknown_component_version", NULL,
                                       "%s %s %s, so Python %s was not checked against it.",
                                       framework, version, why, st->python.text);
    involve(f, "python", st->python.text);
    involve(f, strcmp(framework, "PyTorch") == 0 ? "pytorch" : "tensorflow", version);
}

/* A framework release has wheels / tested builds for a range of Python minors only. A release
 * or a range the reference data does not hold is said (info), never a silent pass. */
static void check_python(struct builder *b, const struct imx_ref_snapshot *ref,
                         const struct stack *st)
{
    struct imx_ver v;
    struct imx_compat_finding *f;
    const struct imx_ref_pytorch *pr = NULL;
    for (size_t i = 0; st->has_pytorch && i < ref->n_pytorch_releases && !pr; i++) {
        if (ref_ver(ref->pytorch_releases[i].pytorch_version, &v) &&
            key_cmp_n(v.key, st->pytorch.key, 2) == 0)
            pr = &ref->pytorch_releases[i];
    }
    if (st->has_pytorch && (!pr || (!pr->python_min && !pr->python_max))) {
        python_unknown(b, st, "PyTorch", st->pytorch.text,
                       pr ? "has no Python range in the reference data"
                          : "is not in the reference data's releases");
    } else if (st->has_pytorch && !python_in(&st->python, pr->python_min, pr->python_max)) {
        f = add(b, IMX_COMPAT_ERROR, "python_unsupported_by_framework", pr->source,
                "PyTorch %d.%d has wheels for Python %s to %s only, not for Python %s.",
                (int)st->pytorch.key[0], (int)st->pytorch.key[1],
                pr->python_min ? pr->python_min : "?", pr->python_max ? pr->python_max : "?",
                st->python.text);
        involve(f, "python", st->python.text);
        involve(f, "pytorch", st->pytorch.text);
    }
    const struct imx_ref_tensorflow *tr = NULL;
    for (size_t i = 0; st->has_tf && i < ref->n_tensorflow && !tr; i++) {
        if (ref_ver(ref->tensorflow[i].tensorflow_version, &v) &&
            key_cmp_n(v.key, st->tf.key, 2) == 0)
            tr = &ref->tensorflow[i];
    }
    /* A TensorFlow release not in the data already has its info finding (check_tensorflow). */
    if (tr && !tr->python_min && !tr->python_max) {
        python_unknown(b, st, "TensorFlow", st->tf.text,
                       "has no tested Python range in the reference data");
    } else if (tr && !python_in(&st->python, tr->python_min, tr->python_max)) {
        f = add(b, IMX_COMPAT_ERROR, "python_unsupported_by_framework", tr->source,
                "TensorFlow %s is built and tested with Python %s to %s only, not with "
                "Python %s.",
                tr->tensorflow_version, tr->python_min ? tr->python_min : "?",
                tr->python_max ? tr->python_max : "?", st->python.text);
        involve(f, "python", st->python.text);
        involve(f, "tensorflow", st->tf.text);
    }
}

/* NCCL links the CUDA runtime of the toolkit a build was made with: the stack's CUDA major needs
 * a build of its NCCL release (ref_nccl, found by major.minor.patch). A release not in the data
 * is not checked: ref_nccl holds only releases whose whole list of builds was read. */
static void check_nccl(struct builder *b, const struct imx_ref_snapshot *ref,
                       const struct stack *st)
{
    const struct imx_ref_nccl *row = NULL;
    struct imx_ver v;
    for (size_t i = 0; i < ref->n_nccl && !row; i++) {
        if (ref_ver(ref->nccl[i].nccl_version, &v) && key_cmp_n(v.key, st->nccl.key, 3) == 0)
            row = &ref->nccl[i];
    }
    if (!row || !st->has_cuda)
        return;
    int major = (int)st->cuda.key[0];
    for (size_t i = 0; i < row->n_cuda_majors; i++) {
        if (row->cuda_majors[i] == major)
            return;
    }
    struct imx_compat_finding *f =
        add(b, IMX_COMPAT_ERROR, "nccl_cuda_major_mismatch", row->source,
            "NCCL %s has builds for CUDA %s only, none for CUDA %d (the stack has CUDA %s%s), so "
            "its collectives cannot load.",
            st->nccl.text, row->cuda_builds ? row->cuda_builds : "?", major, st->cuda.text,
            st->cuda_from_pytorch ? ", PyTorch's own" : "");
    soften(f, row->unconfirmed);
    involve(f, "nccl", st->nccl.text);
    involve(f, st->cuda_from_pytorch ? "pytorch" : "cuda",
            st->cuda_from_pytorch ? st->pytorch.text : st->cuda.text);
}

/* DCGM runs on drivers from the branch its release notes name (and from the exact version, when
 * they give one): ref_dcgm, found by the DCGM major.minor. */
static void check_dcgm(struct builder *b, const struct imx_ref_snapshot *ref,
                       const struct stack *st)
{
    const struct imx_ref_dcgm *row = NULL;
    struct imx_ver v;
    for (size_t i = 0; i < ref->n_dcgm && !row; i++) {
        if (ref_ver(ref->dcgm[i].dcgm_version, &v) && key_cmp_n(v.key, st->dcgm.key, 2) == 0)
            row = &ref->dcgm[i];
    }
    if (!row || !st->has_driver)
        return;
    struct imx_ver need;
    bool exact = ref_ver(row->driver_min, &need);
    if (exact ? imx_ver_cmp(&st->driver, &need) >= 0
              : imx_ver_branch(&st->driver) >= row->driver_branch_min)
        return;
    char wanted[80];
    if (exact)
        snprintf(wanted, sizeof wanted, "NVIDIA driver %s or newer (R%d)", row->driver_min,
                 row->driver_branch_min);
    else
        snprintf(wanted, sizeof wanted, "an NVIDIA driver of branch R%d or newer",
                 row->driver_branch_min);
    struct imx_compat_finding *f =
        add(b, IMX_COMPAT_ERROR, "dcgm_driver_too_old", row->source,
            "DCGM %s (release %s) needs %s; driver %s is older, so DCGM cannot manage the GPUs.",
            st->dcgm.text, row->dcgm_version, wanted, st->driver.text);
    soften(f, row->unconfirmed);
    involve(f, "dcgm", st->dcgm.text);
    involve(f, "nvidia-driver", st->driver.text);
}

/* "jax-cuda13-plugin" or "jax-cuda13-pjrt" -> "cuda13" (JAX's pip packages for jax[cuda13]). */
static bool jax_variant(const char *name, char *out, size_t len)
{
    if (strncmp(name, "jax-cuda", 8) != 0)
        return false;
    const char *d = name + 8;
    size_t n = strspn(d, "0123456789");
    if (n < 1 || n > 3 || (strcmp(d + n, "-plugin") != 0 && strcmp(d + n, "-pjrt") != 0))
        return false;
    snprintf(out, len, "cuda%.*s", (int)n, d);
    return true;
}

/* JAX's CUDA wheels (ref_jax, per variant): the driver branch JAX requires for its CUDA major,
 * the oldest SM version it supports, and a host cuDNN within what it is compatible with (the
 * pip variant brings its own cuDNN, the -local one uses the host's: a warning). */
static void check_jax(struct builder *b, const struct imx_ref_snapshot *ref, const struct stack *st,
                      const char *const *gpus, size_t n_gpus)
{
    const struct imx_ref_jax *row = NULL;
    for (size_t i = 0; i < ref->n_jax && !row; i++) {
        if (strcmp(ref->jax[i].variant, st->jax_variant) == 0)
            row = &ref->jax[i];
    }
    struct imx_compat_finding *f;
    if (!row) {
        f = add(b, IMX_COMPAT_INFO, "unknown_component_version", NULL,
                "JAX's %s wheels (%s) are not in the reference data, so their driver, GPU and "
                "cuDNN requirements were not checked.",
                st->jax_variant, st->jax_name);
        involve(f, st->jax_name, st->jax_version);
        return;
    }
    if (st->has_driver && (int)imx_ver_branch(&st->driver) < row->driver_branch_min) {
        f = add(b, IMX_COMPAT_ERROR, "framework_driver_too_old", row->source,
                "JAX's CUDA %d wheels (%s) need an NVIDIA driver of branch R%d or newer on "
                "Linux; driver %s is older.",
                row->cuda_major, st->jax_name, row->driver_branch_min, st->driver.text);
        soften(f, row->unconfirmed);
        involve(f, st->jax_name, st->jax_version);
        involve(f, "nvidia-driver", st->driver.text);
    }
    struct imx_ver lo, cc;
    for (size_t i = 0; ref_ver(row->cc_min, &lo) && i < n_gpus; i++) {
        const struct imx_ref_gpu *g = imx_compat_find_gpu(ref, gpus[i]);
        if (!g || !ref_ver(g->compute_capability, &cc) || key_cmp_n(cc.key, lo.key, 2) >= 0)
            continue;
        f = add(b, IMX_COMPAT_ERROR, "framework_gpu_arch_unsupported", row->source,
                "JAX's CUDA %d wheels (%s) support SM version %s or newer; the %s (%s, compute "
                "capability %s) is older.",
                row->cuda_major, st->jax_name, row->cc_min, g->gpu_model, g->architecture,
                g->compute_capability);
        soften(f, row->unconfirmed);
        involve(f, st->jax_name, st->jax_version);
        involve(f, "gpu", g->gpu_model);
    }
    struct imx_ver dmin, dbelow;
    if (st->has_cudnn && ref_ver(row->cudnn_min, &dmin) && ref_ver(row->cudnn_below, &dbelow) &&
        (key_cmp_n(st->cudnn.key, dmin.key, 2) < 0 ||
         key_cmp_n(st->cudnn.key, dbelow.key, 2) >= 0)) {
        f = add(b, IMX_COMPAT_WARNING, "framework_cudnn_incompatible", row->source,
                "JAX's CUDA %d wheels (%s) are compatible with cuDNN >= %s and < %s; the image's "
                "cuDNN %s is not, so a jax[%s-local] install fails JAX's version check (the pip "
                "variant brings its own cuDNN).",
                row->cuda_major, st->jax_name, row->cudnn_min, row->cudnn_below, st->cudnn.text,
                row->variant);
        involve(f, st->jax_name, st->jax_version);
        involve(f, "cudnn", st->cudnn.text);
    }
}

static int finding_cmp(const void *pa, const void *pb)
{
    const struct imx_compat_finding *a = pa, *b = pb;
    if (a->severity != b->severity)
        return a->severity < b->severity ? -1 : 1;
    int c = strcmp(a->code, b->code);
    return c ? c : strcmp(a->message, b->message);
}

static bool is_date(const char *s)
{
    if (!s || strlen(s) != 10 || s[4] != '-' || s[7] != '-')
        return false;
    for (int i = 0; i < 10; i++) {
        if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
            return false;
    }
    return true;
}

/* Records a recognized component; an invalid version is reported and otherwise ignored. */
static void take(struct builder *b, const struct imx_compat_component *c, bool *has,
                 struct imx_ver *v)
{
    if (imx_ver_parse(c->version, v) == 0) {
        *has = true;
        return;
    }
    struct imx_compat_finding *f =
        add(b, IMX_COMPAT_INFO, "unknown_component_version", NULL,
            "\"%s\" is not a version of %s that can be checked.", c->version, c->name);
    involve(f, c->name, c->version);
}

/* The architecture list of PyTorch pt's wheel variant for cuda (NULL when not read). */
static const char *wheel_archs(const struct imx_ref_snapshot *ref, const struct imx_ver *pt,
                               const struct imx_ver *cuda)
{
    struct imx_ver pv, cv;
    for (size_t i = 0; i < ref->n_pytorch; i++) {
        const struct imx_ref_pytorch_build *r = &ref->pytorch[i];
        if (ref_ver(r->pytorch_version, &pv) && key_cmp_n(pv.key, pt->key, 2) == 0 &&
            ref_ver(r->cuda_version, &cv) && key_cmp_n(cv.key, cuda->key, 2) == 0)
            return r->cuda_archs;
    }
    return NULL;
}

int imx_compat_check(const struct imx_ref_snapshot *ref, const struct imx_compat_component *comps,
                     size_t n_comps, const char *const *gpus, size_t n_gpus, const char *today,
                     struct imx_compat_report *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    out->ok = true;
    if (!ref || (n_comps && !comps) || (n_gpus && !gpus) || n_comps > IMX_COMPAT_MAX_COMPONENTS ||
        n_gpus > IMX_COMPAT_MAX_GPUS || !is_date(today))
        return -1;
    for (size_t i = 0; i < n_comps; i++) {
        if (!comps[i].name || !comps[i].version)
            return -1;
    }
    for (size_t i = 0; i < n_gpus; i++) {
        if (!gpus[i])
            return -1;
    }

    struct builder b = { out, false };
    struct stack st;
    memset(&st, 0, sizeof st);
    for (size_t i = 0; i < n_comps; i++) {
        const struct imx_compat_component *c = &comps[i];
        if (strcmp(c->name, "nvidia-driver") == 0)
            take(&b, c, &st.has_driver, &st.driver);
        else if (strcmp(c->name, "cuda") == 0)
            take(&b, c, &st.has_cuda, &st.cuda);
        else if (strcmp(c->name, "cudnn") == 0)
            take(&b, c, &st.has_cudnn, &st.cudnn);
        else if (strcmp(c->name, "pytorch") == 0)
            take(&b, c, &st.has_pytorch, &st.pytorch);
        else if (strcmp(c->name, "tensorflow") == 0)
            take(&b, c, &st.has_tf, &st.tf);
        else if (strcmp(c->name, "python") == 0)
            take(&b, c, &st.has_python, &st.python);
        else if (strcmp(c->name, "nccl") == 0)
            /* Checked only against ref_nccl's rows, so a version that does not parse (like one
             * no row holds) is left unchecked without a finding. */
            st.has_nccl = imx_ver_parse(c->version, &st.nccl) == 0;
        else if (jax_variant(c->name, st.jax_variant, sizeof st.jax_variant)) {
            st.has_jax = true;
            st.jax_name = c->name;
            st.jax_version = c->version;
        } else if (strcmp(c->name, "dcgm") == 0)
            /* Likewise: checked only against ref_dcgm's rows. */
            st.has_dcgm = imx_ver_parse(c->version, &st.dcgm) == 0;
    }
    if (st.has_pytorch)
        st.pytorch_has_suffix_cuda = pytorch_suffix_cuda(&st.pytorch, &st.pytorch_cuda);
    if (!st.has_cuda && st.pytorch_has_suffix_cuda) {
        /* A model container often carries CUDA only inside the PyTorch wheel. */
        st.has_cuda = true;
        st.cuda_from_pytorch = true;
        st.cuda = st.pytorch_cuda;
    }

    /* The CUDAs the driver and GPUs must fit: the stack's, and a PyTorch wheel's own when it
     * differs from the host toolkit (the wheel brings its runtime and kernels). */
    struct cuda_use cus[2];
    size_t n_cus = 0;
    if (st.has_cuda) {
        struct cuda_use *cu = &cus[n_cus++];
        cu->v = &st.cuda;
        cu->name = st.cuda_from_pytorch ? "pytorch" : "cuda";
        cu->text = st.cuda_from_pytorch ? st.pytorch.text : st.cuda.text;
        cu->wheel_archs =
            st.cuda_from_pytorch ? wheel_archs(ref, &st.pytorch, &st.pytorch_cuda) : NULL;
        snprintf(cu->what, sizeof cu->what, "CUDA %s", st.cuda.text);
    }
    if (st.has_cuda && !st.cuda_from_pytorch && st.pytorch_has_suffix_cuda &&
        key_cmp_n(st.pytorch_cuda.key, st.cuda.key, 2) != 0) {
        struct cuda_use *cu = &cus[n_cus++];
        cu->v = &st.pytorch_cuda;
        cu->name = "pytorch";
        cu->text = st.pytorch.text;
        cu->wheel_archs = wheel_archs(ref, &st.pytorch, &st.pytorch_cuda);
        snprintf(cu->what, sizeof cu->what, "PyTorch %s's own CUDA %s runtime", st.pytorch.text,
                 st.pytorch_cuda.text);
    }

    if (st.has_driver)
        check_driver_branch(&b, ref, &st, today);
    for (size_t i = 0; i < n_cus; i++)
        check_cuda(&b, ref, &st, &cus[i]);
    for (size_t i = 0; i < n_gpus; i++)
        check_gpu(&b, ref, &st, gpus[i], cus, n_cus);
    if (st.has_cudnn)
        check_cudnn(&b, ref, &st, gpus, n_gpus);
    if (st.has_pytorch) {
        check_pytorch(&b, ref, &st);
        check_pytorch_arch(&b, ref, &st, gpus, n_gpus);
    }
    if (st.has_tf)
        check_tensorflow(&b, ref, &st);
    if (st.has_python)
        check_python(&b, ref, &st);
    if (st.has_nccl)
        check_nccl(&b, ref, &st);
    if (st.has_dcgm)
        check_dcgm(&b, ref, &st);
    if (st.has_jax)
        check_jax(&b, ref, &st, gpus, n_gpus);

    qsort(out->findings, out->n, sizeof out->findings[0], finding_cmp);
    size_t w = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (w > 0 && finding_cmp(&out->findings[w - 1], &out->findings[i]) == 0)
            continue;
        if (w != i)
            out->findings[w] = out->findings[i];
        w++;
    }
    out->n = w;
    out->ok = !b.dropped_error;
    for (size_t i = 0; i < out->n; i++)
        out->ok = out->ok && out->findings[i].severity != IMX_COMPAT_ERROR;
    return 0;
}

json_t *imx_compat_report_json(const struct imx_compat_report *r)
{
    if (!r)
        return NULL;
    json_t *findings = json_array();
    size_t counts[3] = { 0, 0, 0 };
    for (size_t i = 0; findings && i < r->n; i++) {
        const struct imx_compat_finding *f = &r->findings[i];
        json_t *comps = json_array();
        for (size_t k = 0; comps && k < f->n_involved; k++) {
            json_array_append_new(comps, json_pack("{s:s, s:s}", "name", f->involved[k].name,
                                                   "version", f->involved[k].version));
        }
        json_t *o =
            json_pack("{s:s, s:s, s:s, s:o*, s:s?}", "severity",
                      imx_compat_severity_name(f->severity), "code", f->code, "message", f->message,
                      "components", comps, "source", f->source[0] ? f->source : NULL);
        if (!o || json_array_append_new(findings, o) != 0) {
            json_decref(findings);
            return NULL;
        }
        counts[f->severity]++;
    }
    if (!findings)
        return NULL;
    return json_pack("{s:b, s:I, s:I, s:I, s:o, s:b}", "ok", r->ok, "errors",
                     (json_int_t)counts[IMX_COMPAT_ERROR], "warnings",
                     (json_int_t)counts[IMX_COMPAT_WARNING], "infos",
                     (json_int_t)counts[IMX_COMPAT_INFO], "findings", findings, "truncated",
                     r->truncated);
}

/* Appends more's findings to out (past IMX_COMPAT_MAX_FINDINGS out is truncated). */
static void report_merge(struct imx_compat_report *out, const struct imx_compat_report *more)
{
    out->ok = out->ok && more->ok;
    out->truncated = out->truncated || more->truncated;
    for (size_t i = 0; i < more->n; i++) {
        if (out->n == IMX_COMPAT_MAX_FINDINGS) {
            out->truncated = true;
            break;
        }
        out->findings[out->n++] = more->findings[i];
    }
}

/* The findings sorted, each kept once (the component findings repeat in every run). */
static void report_dedupe(struct imx_compat_report *out)
{
    qsort(out->findings, out->n, sizeof out->findings[0], finding_cmp);
    size_t w = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (w > 0 && finding_cmp(&out->findings[w - 1], &out->findings[i]) == 0)
            continue;
        if (w != i)
            out->findings[w] = out->findings[i];
        w++;
    }
    out->n = w;
}

static int check_chunks(const struct imx_ref_snapshot *ref,
                        const struct imx_compat_component *comps, size_t n_comps,
                        const char *const *gpus, size_t n_gpus, const char *today,
                        struct imx_compat_report *out)
{
    size_t first = n_gpus < IMX_COMPAT_MAX_GPUS ? n_gpus : IMX_COMPAT_MAX_GPUS;
    if (imx_compat_check(ref, comps, n_comps, gpus, first, today, out) != 0)
        return -1;
    if (n_gpus <= IMX_COMPAT_MAX_GPUS)
        return 0;
    struct imx_compat_report *more = malloc(sizeof *more);
    if (!more)
        return -1;
    for (size_t at = first; at < n_gpus; at += IMX_COMPAT_MAX_GPUS) {
        size_t n = n_gpus - at < IMX_COMPAT_MAX_GPUS ? n_gpus - at : IMX_COMPAT_MAX_GPUS;
        if (imx_compat_check(ref, comps, n_comps, gpus + at, n, today, more) != 0) {
            free(more);
            return -1;
        }
        report_merge(out, more);
    }
    free(more);
    report_dedupe(out);
    return 0;
}

bool imx_compat_has_entries(const struct imx_compat_served *served, size_t n_comps)
{
    for (size_t i = 0; served && i < n_comps; i++)
        if (served[i].n_gpus > 0)
            return true;
    return false;
}

/* Is gpu one of names (the same reference row, or the same text ignoring case)? */
static bool gpu_listed(const struct imx_ref_snapshot *ref, const char *gpu,
                       const char *const *names, size_t n)
{
    const struct imx_ref_gpu *row = imx_compat_find_gpu(ref, gpu);
    for (size_t i = 0; i < n; i++) {
        if (!names[i])
            continue;
        if (strcasecmp(names[i], gpu) == 0)
            return true;
        if (row && imx_compat_find_gpu(ref, names[i]) == row)
            return true;
    }
    return false;
}

/* Does entry i apply on gpu? */
static bool entry_applies(const struct imx_ref_snapshot *ref,
                          const struct imx_compat_served *served, size_t i, const char *gpu)
{
    return !served || served[i].n_gpus == 0 ||
           (gpu && gpu_listed(ref, gpu, served[i].gpus, served[i].n_gpus));
}

size_t imx_compat_components_for_gpu(const struct imx_ref_snapshot *ref,
                                     const struct imx_compat_component *comps,
                                     const struct imx_compat_served *served, size_t n_comps,
                                     const char *gpu, struct imx_compat_component *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < n_comps && n < max; i++) {
        if (entry_applies(ref, served, i, gpu))
            out[n++] = comps[i];
    }
    return n;
}

int imx_compat_check_many(const struct imx_ref_snapshot *ref,
                          const struct imx_compat_component *comps, size_t n_comps,
                          const char *const *gpus, size_t n_gpus, const char *today,
                          struct imx_compat_report *out)
{
    return check_chunks(ref, comps, n_comps, gpus, n_gpus, today, out);
}

int imx_compat_check_entries(const struct imx_ref_snapshot *ref,
                             const struct imx_compat_component *comps,
                             const struct imx_compat_served *served, size_t n_comps,
                             const char *const *gpus, size_t n_gpus, const char *today,
                             struct imx_compat_report *out)
{
    if (!imx_compat_has_entries(served, n_comps) || n_gpus == 0)
        return check_chunks(ref, comps, n_comps, gpus, n_gpus, today, out);
    if (n_comps > IMX_COMPAT_MAX_COMPONENTS)
        return -1;
    /* Each GPU is checked alone with the entries that serve it. */
    struct imx_compat_report *more = malloc(sizeof *more);
    if (!more)
        return -1;
    struct imx_compat_component sel[IMX_COMPAT_MAX_COMPONENTS];
    for (size_t g = 0; g < n_gpus; g++) {
        size_t ns = imx_compat_components_for_gpu(ref, comps, served, n_comps, gpus[g], sel,
                                                  IMX_COMPAT_MAX_COMPONENTS);
        if (imx_compat_check(ref, sel, ns, gpus + g, 1, today, g == 0 ? out : more) != 0) {
            free(more);
            return -1;
        }
        if (g > 0)
            report_merge(out, more);
    }
    free(more);
    report_dedupe(out);
    return 0;
}

json_t *imx_compat_report_full(const struct imx_ref_snapshot *ref,
                               const struct imx_compat_component *comps,
                               const struct imx_compat_served *served, size_t n_comps,
                               const char *const *gpus, size_t n_gpus, const char *today)
{
    struct imx_compat_report *rep = malloc(sizeof *rep);
    json_t *doc = NULL;
    if (rep && imx_compat_check_entries(ref, comps, served, n_comps, gpus, n_gpus, today, rep) == 0)
        doc = imx_compat_report_json(rep);
    if (!doc || !imx_compat_has_entries(served, n_comps) || n_gpus == 0) {
        free(rep);
        return doc;
    }
    json_t *per = json_array();
    struct imx_compat_component sel[IMX_COMPAT_MAX_COMPONENTS];
    for (size_t g = 0; per && g < n_gpus; g++) {
        size_t ns = imx_compat_components_for_gpu(ref, comps, served, n_comps, gpus[g], sel,
                                                  IMX_COMPAT_MAX_COMPONENTS);
        /* the entries chosen for this GPU, in manifest order */
        json_t *chosen = json_array();
        for (size_t i = 0; chosen && i < n_comps; i++) {
            if (served[i].n_gpus > 0 && entry_applies(ref, served, i, gpus[g]))
                json_array_append_new(chosen, json_pack("{s:s, s:s}", "name", comps[i].name,
                                                        "version", comps[i].version));
        }
        if (!chosen || imx_compat_check(ref, sel, ns, gpus + g, 1, today, rep) != 0) {
            json_decref(chosen);
            json_decref(per);
            per = NULL;
            break;
        }
        size_t counts[3] = { 0, 0, 0 };
        for (size_t i = 0; i < rep->n; i++)
            counts[rep->findings[i].severity]++;
        json_array_append_new(per, json_pack("{s:s, s:o, s:b, s:I, s:I}", "gpu", gpus[g],
                                             "components", chosen, "ok", rep->ok, "errors",
                                             (json_int_t)counts[IMX_COMPAT_ERROR], "warnings",
                                             (json_int_t)counts[IMX_COMPAT_WARNING]));
    }
    free(rep);
    if (!per) {
        json_decref(doc);
        return NULL;
    }
    json_object_set_new(doc, "per_gpu", per);
    return doc;
}

#define JSON_GPUS_MAX 64

json_t *imx_compat_report_of_json(const struct imx_ref_snapshot *ref, const json_t *components,
                                  const json_t *gpus, const char *today)
{
    struct imx_compat_component comps[IMX_COMPAT_MAX_COMPONENTS];
    struct imx_compat_served served[IMX_COMPAT_MAX_COMPONENTS];
    const char *gpu_names[JSON_GPUS_MAX];
    /* each entry's GPUs, borrowed from components */
    static _Thread_local const char *entry_gpus[IMX_COMPAT_MAX_COMPONENTS][JSON_GPUS_MAX];
    size_t nc = 0, ng = 0, i;
    json_t *v;
    json_array_foreach(components, i, v)
    {
        if (nc == IMX_COMPAT_MAX_COMPONENTS)
            break;
        size_t k, ne = 0;
        json_t *g;
        json_array_foreach(json_object_get(v, "gpus"), k, g)
        {
            if (ne < JSON_GPUS_MAX && json_string_value(g))
                entry_gpus[nc][ne++] = json_string_value(g);
        }
        comps[nc] = (struct imx_compat_component){
            json_string_value(json_object_get(v, "name")),
            json_string_value(json_object_get(v, "version")),
        };
        served[nc] = (struct imx_compat_served){ ne ? entry_gpus[nc] : NULL, ne };
        nc++;
    }
    json_array_foreach(gpus, i, v)
    {
        if (ng < JSON_GPUS_MAX)
            gpu_names[ng++] = json_string_value(v);
    }
    return imx_compat_report_full(ref, comps, served, nc, gpu_names, ng, today);
}
