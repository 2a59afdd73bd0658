/* Is a requested stack possible? Picks the newest known versions (from the reference data) within
 * each constraint and runs the compatibility validator, backing off to older candidates until a
 * stack passes or the search budget is spent. */
#ifndef IMX_DOMAIN_REQUEST_STACK_H
#define IMX_DOMAIN_REQUEST_STACK_H

/* Pure C: reads the snapshot, no I/O. */

#include <jansson.h>
#include <stddef.h>

#include "domain/compat.h"
#include "domain/version.h"

/* Most validator runs one check may make. */
#define IMX_STACK_MAX_TRIES 256

struct imx_stack_constraint {
    const char *component; /* "cuda", "nvidia-driver", "cudnn", "pytorch", "tensorflow", others */
    const struct imx_constraint *constraint;
};

/* Returns a new {"satisfiable": bool, "candidate": {component: version}, "report": compat
 * report of the candidate, "unsatisfied": [{"component", "range", "reason"}], "unchecked":
 * [components the reference data has no versions of], "tried": n, "basis": text}, or NULL when
 * out of memory or an argument is bad. today is "YYYY-MM-DD". */
json_t *imx_request_stack_check(const struct imx_ref_snapshot *ref,
                                const struct imx_stack_constraint *cs, size_t n,
                                const char *const *gpus, size_t n_gpus, const char *today);

#endif
