/* SQL for instance types and their dated prices, cost measurements, and the cost rankings
 * (medians computed by PostgreSQL). Every function runs one prepared statement and returns its
 * status with typed outputs or finished JSON text; string arguments are borrowed, NULL is SQL
 * NULL. */
#ifndef IMX_DB_COSTS_H
#define IMX_DB_COSTS_H

#include <stddef.h>

#include "db/pool.h"

/* Whose measurements a caller sees: the teams user_id belongs to, only token_team for an API
 * token (NULL: no cap), and only team when given (NULL: all of them). Ids as decimal text. */
struct imx_cost_scope {
    const char *user_id;
    const char *token_team;
    const char *team;
};

/* Instance types */
/* -> one page of (provider, family, gpu_count, vcpus, instance_type, instance type JSON) rows in
 * that order after the key after (five texts, all NULL: from the first), at most limit + 1,
 * filtered by provider, GPU (model in any spelling, or architecture) and instance family (NULL:
 * any). */
enum imx_db_status imx_db_instance_type_list(struct imx_db_conn *c, const char *provider,
                                             const char *gpu, const char *family,
                                             const char *const after[5], const char *limit,
                                             struct imx_db_page *out, struct imx_db_fault *why);
/* -> instance type JSON with "price_history" (every dated price, newest first);
 * IMX_DBS_NOT_FOUND: none. */
enum imx_db_status imx_db_instance_type_get(struct imx_db_conn *c, const char *provider,
                                            const char *type, struct imx_db_json *out,
                                            struct imx_db_fault *why);
/* Creates (replace "false": IMX_DBS_CONFLICT when it exists) or creates/replaces (replace
 * "true") a type, *created telling which. gpu_model in any spelling (stored canonical).
 * Its detail in *why when asked: cause IMX_DBC_FOREIGN_KEY, an unknown GPU; IMX_DBS_CONFLICT
 * with cause IMX_DBC_NONE, it exists (replace "false"). */
enum imx_db_status imx_db_instance_type_put(struct imx_db_conn *c, const char *provider,
                                            const char *type, const char *gpu_model,
                                            const char *gpu_count, const char *gpu_memory_gib,
                                            const char *vcpus, const char *memory_gib,
                                            const char *host_arch, const char *region,
                                            const char *source, const char *replace, bool *created,
                                            struct imx_db_fault *why);
/* Adds a dated price (valid_from NULL: now) -> price JSON; failures by cause (in *why when asked):
 * IMX_DBC_FOREIGN_KEY no such type, IMX_DBC_VALUE a bad valid_from, IMX_DBC_UNIQUE that price
 * already has a row for that moment. */
enum imx_db_status imx_db_instance_price_add(struct imx_db_conn *c, const char *provider,
                                             const char *type, const char *pricing,
                                             const char *region, const char *price,
                                             const char *currency, const char *valid_from,
                                             const char *source, struct imx_db_json *out,
                                             struct imx_db_fault *why);

/* Measurements */
/* Records one measurement (j: its JSON object, checked for types and ranges) for team_id by
 * user_id -> {"errors":[{pointer,detail}]} or {"measurement":{...}} (imx_measurement_record). */
/* Takes the team's measurement-quota lock for the transaction -> the measurements the team
 * recorded in the last 24 hours. */
enum imx_db_status imx_db_measurements_today(struct imx_db_conn *c, const char *team_id,
                                             long long *count, struct imx_db_fault *why);

enum imx_db_status imx_db_measurement_record(struct imx_db_conn *c, const char *team_id,
                                             const char *user_id, const char *j,
                                             struct imx_db_json *out, struct imx_db_fault *why);
/* -> its team and measurement JSON (IMX_DBS_NOT_FOUND: none). */
enum imx_db_status imx_db_measurement_get(struct imx_db_conn *c, const char *id, int64_t *team_id,
                                          struct imx_db_json *doc, struct imx_db_fault *why);
/* The scope's measurements, newest id first, filtered (NULL: any), after the keyset id, at most
 * limit+1 -> id, measurement JSON. */
enum imx_db_status imx_db_measurement_list(struct imx_db_conn *c, const struct imx_cost_scope *s,
                                           const char *image, const char *model,
                                           const char *instance_type, const char *before_id,
                                           const char *limit, struct imx_db_page *out,
                                           struct imx_db_fault *why);

/* Rankings */
/* Per (model, instance type, pricing) of one image over the scope's measurements: count, median
 * and p90 cost per 1k inferences and throughput, median p99 latency, boot seconds and boot cost
 * -> {"image", "basis", "items":[...]}, one page of limit rows after place after_rank (NULL: the
 * first); column 1 the key ([place]) of a next page, else NULL; NULL in column 0 when no such
 * image. */
enum imx_db_status imx_db_image_costs(struct imx_db_conn *c, const char *image_id,
                                      const struct imx_cost_scope *s, const char *after_rank,
                                      const char *limit, struct imx_db_page *out,
                                      struct imx_db_fault *why);

struct imx_cost_ranking {
    const char *model;            /* required */
    const char *max_p99_ms;       /* median p99 latency at most this (NULL: no target) */
    const char *gpu;              /* model in any spelling, or architecture */
    const char *pricing;          /* on_demand | spot | reserved */
    const char *region;           /* measured in this region */
    const char *family;           /* image family */
    const char *instance_family;  /* "p5", "g6e" */
    const char *daily_inferences; /* monthly cost of this many a day */
    const char *limit;            /* rows */
    const char *after_rank;       /* the page after this rank (NULL: the first) */
};
/* (image, instance type, pricing) rows by median cost per 1k inferences -> {"model",
 * "max_p99_ms", "daily_inferences", "days_per_month", "basis", "excluded_by_latency",
 * "items":[{rank, image, instance_type, ..., measurements, median_cost_per_1k_inferences,
 * monthly_cost}]}: the ranks after q->after_rank, at most q->limit; column 1 the key ([rank]) of
 * a next page, else NULL. */
enum imx_db_status imx_db_cost_ranking(struct imx_db_conn *c, const struct imx_cost_scope *s,
                                       const struct imx_cost_ranking *q, struct imx_db_page *out,
                                       struct imx_db_fault *why);

/* For /v1/compare: each image's best (lowest) median cost per 1k inferences per model over its
 * (instance type, pricing) groups, and its median boot seconds, over the scope's measurements
 * only: {"<image id>": {"best_cost_per_1k": {"<model>": value}, "boot_seconds_median":
 * value|null}} with every id present. *json is new (free() it): IMX_DBS_OK, IMX_DBS_INVALID for
 * n == 0 or more than 100 ids, or the failure (*json NULL). */
enum imx_db_status imx_db_costs_for_images(struct imx_db_conn *c, const long long *ids, size_t n,
                                           const struct imx_cost_scope *scope, char **json);

#endif
