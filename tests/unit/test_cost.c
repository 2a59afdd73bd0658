/* Cost arithmetic against hand-computed values, and the range checks of a measurement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "domain/cost.h"

/* Relative closeness: the hand values are exact decimals, the doubles are within an ulp or two. */
static void assert_close(double got, double want)
{
    double tol = fabs(want) * 1e-12 + 1e-15;
    if (fabs(got - want) > tol)
        fail_msg("got %.17g, want %.17g", got, want);
}

static void cost_per_1k_hand_computed(void **state)
{
    (void)state;
    static const struct {
        double price, throughput, want;
    } cases[] = {
        /* 3.6 $/h at 1 inference/s: 3600 inferences cost 3.6, so 1000 cost 1. */
        { 3.6, 1, 1.0 },
        /* p5.48xlarge list price 55.04 $/h at 1000/s: 55.04 / 3,600,000 * 1000 = 0.0152888... */
        { 55.04, 1000, 55.04 / 3600.0 },
        /* g4dn.xlarge 0.526 $/h at 250/s: 0.526 / 900000 * 1000 = 0.000584444... */
        { 0.526, 250, 0.000584444444444444444 },
        /* 10 $/h at 0.5/s: 10 / 1800 * 1000 = 5.5555... */
        { 10, 0.5, 50.0 / 9.0 },
        { 0, 100, 0 },
        /* Spot price 1.2 at 2000/s: 1.2 / 7,200,000 * 1000 = 0.000166666... */
        { 1.2, 2000, 1.0 / 6000.0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_close(imx_cost_per_1k(cases[i].price, cases[i].throughput), cases[i].want);
    assert_true(imx_cost_per_1k(1, 0) < 0);
    assert_true(imx_cost_per_1k(1, -5) < 0);
    assert_true(imx_cost_per_1k(-1, 5) < 0);
    assert_true(imx_cost_per_1k(NAN, 5) < 0);
    assert_true(imx_cost_per_1k(1, INFINITY) < 0);
}

static void boot_cost_hand_computed(void **state)
{
    (void)state;
    static const struct {
        double price, boot, want;
    } cases[] = {
        { 3.6, 100, 0.1 },         /* 3.6 $/h for 100 s = 0.1 */
        { 55.04, 180, 2.752 },     /* three minutes of a p5.48xlarge */
        { 0.526, 90, 0.01315 },    /* 0.526 * 90 / 3600 */
        { 12.0, 0, 0 },            /* a warm pool */
        { 32.7726, 3600, 32.7726 } /* an hour of boot costs an hour */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_close(imx_boot_cost(cases[i].price, cases[i].boot), cases[i].want);
    assert_true(imx_boot_cost(1, -1) < 0);
}

static void monthly_cost_uses_30_44_days(void **state)
{
    (void)state;
    /* 1 $ per 1k inferences, a million a day: 1000 $ a day, 30440 $ a month. */
    assert_close(imx_monthly_cost(1.0, 1e6), 30440.0);
    assert_close(imx_monthly_cost(0.0152888888888888889, 2e6),
                 0.0152888888888888889 * 2000 * 30.44);
    assert_close(imx_monthly_cost(0.5, 0), 0);
    assert_true(imx_monthly_cost(-1, 10) < 0);
}

/* A price change later never changes a measurement: the cost is a function of the price
 * recorded with it. Two measurements, one at each price, keep their own costs. */
static void price_change_keeps_each_measurement_cost(void **state)
{
    (void)state;
    double before = imx_cost_per_1k(32.7726, 400); /* recorded at the old price */
    double after = imx_cost_per_1k(24.0, 400);     /* recorded after the drop */
    assert_close(before, 32.7726 / 1440.0);
    assert_close(after, 24.0 / 1440.0);
    assert_true(before > after);
}

static struct imx_cost_values good(void)
{
    return (struct imx_cost_values){ .throughput_per_s = 100,
                                     .has_p50 = true,
                                     .latency_p50_ms = 10,
                                     .has_p99 = true,
                                     .latency_p99_ms = 30,
                                     .has_boot = true,
                                     .boot_seconds = 60,
                                     .batch_size = 8 };
}

static void impossible_values_name_the_field(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *field; /* NULL: accepted */
    } cases[] = {
        { "good", NULL },
        { "zero throughput", "throughput_per_s" },
        { "negative throughput", "throughput_per_s" },
        { "p99 below p50", "latency_p99_ms" },
        { "p99 equal p50", NULL },
        { "zero p50", "latency_p50_ms" },
        { "negative boot", "boot_seconds" },
        { "zero boot", NULL },
        { "negative price", "price_per_hour" },
        { "zero batch", "batch_size" },
        { "zero gpus", "gpu_count" },
        { "nan throughput", "throughput_per_s" },
        { "only p99", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct imx_cost_values v = good();
        switch (i) {
        case 1:
            v.throughput_per_s = 0;
            break;
        case 2:
            v.throughput_per_s = -3;
            break;
        case 3:
            v.latency_p99_ms = 9.5;
            break;
        case 4:
            v.latency_p99_ms = 10;
            break;
        case 5:
            v.latency_p50_ms = 0;
            break;
        case 6:
            v.boot_seconds = -1;
            break;
        case 7:
            v.boot_seconds = 0;
            break;
        case 8:
            v.has_price = true;
            v.price_per_hour = -0.01;
            break;
        case 9:
            v.batch_size = 0;
            break;
        case 10:
            v.has_gpu_count = true;
            v.gpu_count = 0;
            break;
        case 11:
            v.throughput_per_s = NAN;
            break;
        case 12:
            v.has_p50 = false;
            break;
        }
        struct imx_cost_problem p[IMX_COST_MAX_PROBLEMS];
        size_t n = imx_cost_check(&v, p);
        if (!cases[i].field) {
            if (n != 0)
                fail_msg("%s: unexpected problem with %s", cases[i].name, p[0].field);
        } else {
            if (n != 1 || strcmp(p[0].field, cases[i].field) != 0)
                fail_msg("%s: %zu problems, first %s", cases[i].name, n, n ? p[0].field : "-");
        }
    }
    /* Several at once: each named. */
    struct imx_cost_values v = good();
    v.throughput_per_s = 0;
    v.latency_p99_ms = 1;
    v.batch_size = 0;
    struct imx_cost_problem p[IMX_COST_MAX_PROBLEMS];
    assert_int_equal(imx_cost_check(&v, p), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cost_per_1k_hand_computed),
        cmocka_unit_test(boot_cost_hand_computed),
        cmocka_unit_test(monthly_cost_uses_30_44_days),
        cmocka_unit_test(price_change_keeps_each_measurement_cost),
        cmocka_unit_test(impossible_values_name_the_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
