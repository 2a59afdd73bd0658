/* Cost arithmetic of measurements (cost per 1,000 inferences, boot cost, monthly cost) and the
 * range checks of a measurement's numbers. */
#ifndef IMX_DOMAIN_COST_H
#define IMX_DOMAIN_COST_H

/* Pure C: no I/O, no allocation, no shared state. SQL has the same formulas
 * (imx_cost_per_1k, imx_boot_cost, imx_monthly_cost in migrations/functions/costs.sql), in
 * the same order of operations, so both sides compute the same doubles. */

#include <stdbool.h>
#include <stddef.h>

/* Days in an average month (365.25 / 12), for monthly costs. */
#define IMX_COST_DAYS_PER_MONTH 30.44

/* price_per_hour / (throughput_per_s * 3600) * 1000: what 1,000 inferences cost at the recorded
 * throughput. Returns a negative number when throughput_per_s <= 0 or an input is not finite. */
double imx_cost_per_1k(double price_per_hour, double throughput_per_s);

/* price_per_hour * boot_seconds / 3600: what the instance costs from launch to ready. Negative
 * when boot_seconds < 0 or an input is not finite. */
double imx_boot_cost(double price_per_hour, double boot_seconds);

/* cost_per_1k * daily_inferences / 1000 * IMX_COST_DAYS_PER_MONTH. Negative when an input is
 * negative or not finite. */
double imx_monthly_cost(double cost_per_1k, double daily_inferences);

/* A measurement's numbers; has_* false when the field was not given. */
struct imx_cost_values {
    double throughput_per_s;
    bool has_p50, has_p99, has_boot, has_price, has_gpu_count;
    double latency_p50_ms, latency_p99_ms;
    double boot_seconds;
    double price_per_hour;
    long long batch_size;
    long long gpu_count; /* when not given: the instance type's count */
};

/* One impossible value: the field (a member name, e.g. "latency_p99_ms") and why. */
struct imx_cost_problem {
    const char *field;  /* static */
    const char *detail; /* static */
};

#define IMX_COST_MAX_PROBLEMS 8

/* Checks v: throughput > 0, latencies > 0 with p99 >= p50, boot_seconds >= 0, price >= 0,
 * batch_size >= 1, gpu_count >= 1, everything finite and below sane ceilings. Writes up to
 * IMX_COST_MAX_PROBLEMS problems to out and returns how many. */
size_t imx_cost_check(const struct imx_cost_values *v, struct imx_cost_problem *out);

#endif
