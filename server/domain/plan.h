/* The upgrade planner's judgement: from the facts of a pin's (or an image's) current image and
 * the candidate images of its family, which moves are safe, in what order, and which one to make
 * and why. Pure: JSON facts in (built by PostgreSQL, migrations/procedures/plan.sql), the plan
 * out; no I/O. */
#ifndef IMX_PLAN_H
#define IMX_PLAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Candidates one plan weighs at most (the newest of the family). */
#define IMX_PLAN_CANDIDATES_MAX 100

/* One candidate as the ranking sees it (filled by imx_plan_build from the facts). */
struct imx_plan_candidate {
    long long id;
    bool revoked;      /* revoked, or scheduled to be */
    bool deprecated;   /* usable but on its way out */
    bool incompatible; /* a GPU in use it does not serve, or an error in its compatibility report */
    bool outside_pin;  /* it does not satisfy the pin's constraints */
    int open_max;      /* the most severe advisory still affecting it (0 none .. 4 critical) */
    int open_count;
    int closes_max; /* the most severe of the current image's advisories it no longer has */
    int closes_count;
    bool branch_kept; /* same NVIDIA driver branch as the current image */
    int changes;      /* components whose version differs from the current image's */
    long long order;  /* its place in the family (publish order): smaller is older */
};

/* Can it be recommended at all (not revoked, compatible, inside the pin's constraints)? */
bool imx_plan_eligible(const struct imx_plan_candidate *c);

/* The safety order: eligible first; then the fewest and least severe advisories left open;
 * then the most severe and most advisories closed; then the driver branch kept; then the
 * smallest change; then the oldest (the shortest jump). <0 when a is safer than b. */
int imx_plan_compare(const struct imx_plan_candidate *a, const struct imx_plan_candidate *b);

/* Sorts c safest first and returns the index (after sorting) of the recommended move, or -1
 * when none is safer than staying: the first eligible candidate, when it leaves fewer or less
 * severe advisories open than the current image (cur_open_max, cur_open_count), or the current
 * image must be left (cur_must_move: revoked, deprecated, or incompatible with the GPUs in
 * use). */
int imx_plan_rank(struct imx_plan_candidate *c, size_t n, int cur_open_max, int cur_open_count,
                  bool cur_must_move);

/* A severity name ("low" .. "critical") as 1..4; 0 for anything else. */
int imx_plan_severity(const char *s);

/* The plan from facts {"current": FACTS, "gpus_in_use": [..], "pin": {...} | null,
 * "candidates": [FACTS...]}, where FACTS is {id, family, version, status, published_at,
 * boot_seconds, components {name: version}, gpus [...], compat_errors, satisfies_pin,
 * advisories [{id, severity}], cost_per_1k | null}. Returns a new document {"current",
 * "gpus_in_use", "pin", "candidates": [...safest first, each with patch {closes, open},
 * compatible, why_incompatible, branch {from, to, kept}, components (the differences), cost_per_1k
 * {from, to, delta}, boot_seconds {from, to, delta}, eligible, rank}], "recommended": id | null,
 * "reason"}; NULL when facts has no current image. */
json_t *imx_plan_build(json_t *facts);

#endif
