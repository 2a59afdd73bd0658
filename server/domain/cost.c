/* Cost arithmetic of measurements and the range checks of their numbers. */
#include "domain/cost.h"

#include <math.h>

/* Ceilings that catch unit mistakes (ms typed as s, cents as dollars) without refusing real
 * hardware: a million inferences a second, an hour of latency, a day of boot, $10,000 an hour. */
#define MAX_THROUGHPUT 1e9
#define MAX_LATENCY_MS 3.6e6
#define MAX_BOOT_S     86400.0
#define MAX_PRICE      10000.0
#define MAX_BATCH      1048576
#define MAX_GPUS       1024

double imx_cost_per_1k(double price_per_hour, double throughput_per_s)
{
    if (!isfinite(price_per_hour) || !isfinite(throughput_per_s) || throughput_per_s <= 0 ||
        price_per_hour < 0)
        return -1;
    return price_per_hour / (throughput_per_s * 3600) * 1000;
}

double imx_boot_cost(double price_per_hour, double boot_seconds)
{
    if (!isfinite(price_per_hour) || !isfinite(boot_seconds) || boot_seconds < 0 ||
        price_per_hour < 0)
        return -1;
    return price_per_hour * boot_seconds / 3600;
}

double imx_monthly_cost(double cost_per_1k, double daily_inferences)
{
    if (!isfinite(cost_per_1k) || !isfinite(daily_inferences) || cost_per_1k < 0 ||
        daily_inferences < 0)
        return -1;
    return cost_per_1k * daily_inferences / 1000 * IMX_COST_DAYS_PER_MONTH;
}

static void add(struct imx_cost_problem *out, size_t *n, const char *field, const char *detail)
{
    if (*n < IMX_COST_MAX_PROBLEMS)
        out[(*n)++] = (struct imx_cost_problem){ field, detail };
}

size_t imx_cost_check(const struct imx_cost_values *v, struct imx_cost_problem *out)
{
    size_t n = 0;
    if (!isfinite(v->throughput_per_s) || v->throughput_per_s <= 0)
        add(out, &n, "throughput_per_s", "must be greater than zero");
    else if (v->throughput_per_s > MAX_THROUGHPUT)
        add(out, &n, "throughput_per_s", "is implausibly large (over 1e9 inferences/s)");
    bool p50_ok = true;
    if (v->has_p50 && (!isfinite(v->latency_p50_ms) || v->latency_p50_ms <= 0 ||
                       v->latency_p50_ms > MAX_LATENCY_MS)) {
        add(out, &n, "latency_p50_ms", "must be greater than zero and at most an hour");
        p50_ok = false;
    }
    if (v->has_p99) {
        if (!isfinite(v->latency_p99_ms) || v->latency_p99_ms <= 0 ||
            v->latency_p99_ms > MAX_LATENCY_MS)
            add(out, &n, "latency_p99_ms", "must be greater than zero and at most an hour");
        else if (v->has_p50 && p50_ok && v->latency_p99_ms < v->latency_p50_ms)
            add(out, &n, "latency_p99_ms", "must not be below latency_p50_ms");
    }
    if (v->has_boot &&
        (!isfinite(v->boot_seconds) || v->boot_seconds < 0 || v->boot_seconds > MAX_BOOT_S))
        add(out, &n, "boot_seconds", "must be from 0 to 86400");
    if (v->has_price &&
        (!isfinite(v->price_per_hour) || v->price_per_hour < 0 || v->price_per_hour > MAX_PRICE))
        add(out, &n, "price_per_hour", "must be from 0 to 10000");
    if (v->batch_size < 1 || v->batch_size > MAX_BATCH)
        add(out, &n, "batch_size", "must be from 1 to 1048576");
    if (v->has_gpu_count && (v->gpu_count < 1 || v->gpu_count > MAX_GPUS))
        add(out, &n, "gpu_count", "must be from 1 to 1024");
    return n;
}
