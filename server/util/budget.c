/* The per-request work budget for reading client documents (see budget.h). */
#include "util/budget.h"

#include <stdint.h>
#include <time.h>

static _Thread_local struct {
    uint64_t end_ns; /* thread CPU time at which the budget is spent; 0: no budget */
    unsigned ms;
    unsigned calls;
    bool spent;
} budget;

static uint64_t cpu_ns(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return 0;
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void imx_budget_begin(unsigned ms)
{
    budget.ms = ms;
    budget.calls = 0;
    budget.spent = false;
    budget.end_ns = ms ? cpu_ns() + (uint64_t)ms * 1000000u : 0;
}

void imx_budget_end(void)
{
    imx_budget_begin(0);
}

bool imx_budget_spent(void)
{
    if (budget.end_ns == 0)
        return false;
    if (budget.spent)
        return true;
    if ((++budget.calls & 63u) != 0)
        return false;
    budget.spent = cpu_ns() >= budget.end_ns;
    return budget.spent;
}

unsigned imx_budget_ms(void)
{
    return budget.ms;
}
