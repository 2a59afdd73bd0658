/* The candidate-stack search behind a request's compatibility report. */
#include "domain/request_stack.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SLOTS      5
#define MAX_CANDIDATES 96

static const char *const known[MAX_SLOTS] = { "nvidia-driver", "cuda", "cudnn", "pytorch",
                                              "tensorflow" };

struct slot {
    const char *component;
    struct imx_ver cand[MAX_CANDIDATES]; /* newest first, distinct keys */
    size_t n;
    const char *ranges; /* first constraint text, for messages */
};

/* Adds v to s when it satisfies every constraint on s's component and is not there yet. */
static void offer(struct slot *s, const struct imx_stack_constraint *cs, size_t n, const char *v)
{
    struct imx_ver ver;
    if (!v || imx_ver_parse(v, &ver) != 0 || s->n == MAX_CANDIDATES)
        return;
    for (size_t i = 0; i < n; i++)
        if (strcmp(cs[i].component, s->component) == 0 &&
            !imx_constraint_matches(cs[i].constraint, &ver))
            return;
    size_t at = 0;
    while (at < s->n && imx_ver_cmp(&s->cand[at], &ver) > 0)
        at++;
    if (at < s->n && imx_ver_cmp(&s->cand[at], &ver) == 0)
        return;
    memmove(&s->cand[at + 1], &s->cand[at], (s->n - at) * sizeof s->cand[0]);
    s->cand[at] = ver;
    s->n++;
}

static void fill(struct slot *s, const struct imx_ref_snapshot *ref,
                 const struct imx_stack_constraint *cs, size_t n)
{
    const char *c = s->component;
    if (strcmp(c, "cuda") == 0) {
        for (size_t i = 0; i < ref->n_cuda; i++)
            offer(s, cs, n, ref->cuda[i].cuda_version);
    } else if (strcmp(c, "nvidia-driver") == 0) {
        for (size_t i = 0; i < ref->n_cuda; i++)
            offer(s, cs, n, ref->cuda[i].linux_driver_min);
        for (size_t i = 0; i < ref->n_mvc; i++)
            offer(s, cs, n, ref->mvc[i].driver_floor);
        for (size_t i = 0; i < ref->n_gpus; i++) {
            offer(s, cs, n, ref->gpus[i].min_driver_documented);
            offer(s, cs, n, ref->gpus[i].min_driver_derived);
        }
    } else if (strcmp(c, "cudnn") == 0) {
        for (size_t i = 0; i < ref->n_cudnn; i++)
            offer(s, cs, n, ref->cudnn[i].cudnn_version);
    } else if (strcmp(c, "pytorch") == 0) {
        for (size_t i = 0; i < ref->n_pytorch; i++)
            offer(s, cs, n, ref->pytorch[i].pytorch_version);
    } else if (strcmp(c, "tensorflow") == 0) {
        for (size_t i = 0; i < ref->n_tensorflow; i++)
            offer(s, cs, n, ref->tensorflow[i].tensorflow_version);
    }
}

static json_t *stack_json(const struct slot *slots, size_t ns, const size_t *pick)
{
    json_t *o = json_object();
    for (size_t i = 0; i < ns; i++)
        json_object_set_new(o, slots[i].component, json_string(slots[i].cand[pick[i]].text));
    return o;
}

json_t *imx_request_stack_check(const struct imx_ref_snapshot *ref,
                                const struct imx_stack_constraint *cs, size_t n,
                                const char *const *gpus, size_t n_gpus, const char *today)
{
    if (!ref || (n && !cs) || !today)
        return NULL;
    struct slot *slots = calloc(MAX_SLOTS, sizeof *slots);
    struct imx_compat_report *rep = malloc(sizeof *rep), *first = malloc(sizeof *first);
    json_t *out = json_object(), *unsat = json_array(), *unchecked = json_array();
    if (!slots || !rep || !first || !out || !unsat || !unchecked) {
        free(slots);
        free(rep);
        free(first);
        json_decref(out);
        json_decref(unsat);
        json_decref(unchecked);
        return NULL;
    }
    size_t ns = 0;
    bool impossible = false;
    for (size_t k = 0; k < MAX_SLOTS; k++) {
        const char *range = NULL;
        for (size_t i = 0; i < n && !range; i++)
            if (strcmp(cs[i].component, known[k]) == 0)
                range = cs[i].constraint->text;
        if (!range)
            continue;
        struct slot *s = &slots[ns];
        s->component = known[k];
        s->ranges = range;
        fill(s, ref, cs, n);
        if (s->n == 0) {
            impossible = true;
            json_array_append_new(
                unsat, json_pack("{s:s, s:s, s:s}", "component", known[k], "range", range, "reason",
                                 "no version known to the reference data satisfies it "
                                 "(with every constraint on this component)"));
        } else {
            ns++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        bool is_known = false;
        for (size_t k = 0; k < MAX_SLOTS; k++)
            is_known = is_known || strcmp(cs[i].component, known[k]) == 0;
        if (!is_known)
            json_array_append_new(unchecked, json_string(cs[i].component));
    }

    /* Odometer over the candidates, newest first; the first slot changes slowest. */
    size_t pick[MAX_SLOTS] = { 0 }, best[MAX_SLOTS] = { 0 };
    size_t tried = 0;
    bool ok = false;
    struct imx_compat_component comps[MAX_SLOTS];
    while (!impossible && tried < IMX_STACK_MAX_TRIES) {
        for (size_t i = 0; i < ns; i++)
            comps[i] =
                (struct imx_compat_component){ slots[i].component, slots[i].cand[pick[i]].text };
        if (imx_compat_check(ref, comps, ns, gpus, n_gpus, today, rep) != 0)
            break;
        if (tried++ == 0)
            *first = *rep;
        if (rep->ok) {
            ok = true;
            memcpy(best, pick, sizeof best);
            break;
        }
        size_t i = ns;
        while (i > 0) {
            i--;
            if (++pick[i] < slots[i].n)
                break;
            pick[i] = 0;
            if (i == 0) {
                i = ns + 1; /* wrapped: every combination tried */
                break;
            }
        }
        if (ns == 0 || i == ns + 1)
            break;
    }
    const struct imx_compat_report *shown = ok ? rep : first;
    if (!impossible && tried > 0) {
        json_object_set_new(out, "candidate", stack_json(slots, ns, ok ? best : (size_t[5]){ 0 }));
        json_object_set_new(out, "report", imx_compat_report_json(shown));
        if (!ok) {
            /* Name each constraint the newest candidate stack broke, with the validator's why. */
            for (size_t f = 0; f < shown->n; f++) {
                const struct imx_compat_finding *fi = &shown->findings[f];
                if (fi->severity != IMX_COMPAT_ERROR)
                    continue;
                for (size_t s = 0; s < ns; s++)
                    for (size_t v = 0; v < fi->n_involved; v++)
                        if (strcmp(fi->involved[v].name, slots[s].component) == 0)
                            json_array_append_new(
                                unsat, json_pack("{s:s, s:s, s:s, s:s}", "component",
                                                 slots[s].component, "range", slots[s].ranges,
                                                 "code", fi->code, "reason", fi->message));
            }
        }
    } else {
        json_object_set_new(out, "candidate", json_null());
        json_object_set_new(out, "report", json_null());
    }
    json_object_set_new(out, "satisfiable", json_boolean(ok));
    json_object_set_new(out, "unsatisfied", unsat);
    json_object_set_new(out, "unchecked", unchecked);
    json_object_set_new(out, "tried", json_integer((json_int_t)tried));
    json_object_set_new(
        out, "basis",
        json_string("The newest versions known to the reference data within each constraint "
                    "(nvidia-driver, cuda, cudnn, pytorch, tensorflow), backing off to older "
                    "ones, checked with the requested GPUs by the compatibility validator; at "
                    "most 256 combinations are tried."));
    free(slots);
    free(rep);
    free(first);
    return out;
}
