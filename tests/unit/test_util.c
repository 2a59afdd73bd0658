/* Small pure helpers: bounded integer parsing, JSON escaping, the problem registry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "http/problem.h"
#include "util/config.h"
#include "util/log.h"

static void parse_uint_cases(void **state)
{
    static const struct {
        const char *in;
        unsigned long long min, max;
        int rc;
        unsigned long long want;
    } cases[] = {
        { "0", 0, 10, 0, 0 },
        { "10", 0, 10, 0, 10 },
        { "11", 0, 10, -1, 0 },
        { "8080", 0, 65535, 0, 8080 },
        { "65536", 0, 65535, -1, 0 },
        { "", 0, 10, -1, 0 },
        { "-1", 0, 10, -1, 0 },
        { "+1", 0, 10, -1, 0 },
        { " 1", 0, 10, -1, 0 },
        { "1 ", 0, 10, -1, 0 },
        { "0x10", 0, 100, -1, 0 },
        { "18446744073709551615", 0, ~0ULL, 0, ~0ULL },
        { "18446744073709551616", 0, ~0ULL, -1, 0 },
        { "99999999999999999999999", 0, ~0ULL, -1, 0 },
        { "5", 6, 10, -1, 0 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned long long v = 12345;
        int rc = imx_parse_uint(cases[i].in, cases[i].min, cases[i].max, &v);
        if (rc != cases[i].rc)
            fail_msg("case %zu '%s': rc %d", i, cases[i].in, rc);
        if (rc == 0)
            assert_true(v == cases[i].want);
    }
}

static void json_escape_cases(void **state)
{
    char out[64];
    (void)state;
    imx_json_escape(out, sizeof out, "plain");
    assert_string_equal(out, "plain");
    imx_json_escape(out, sizeof out, "a\"b\\c\nd");
    assert_string_equal(out, "a\\\"b\\\\c\\u000ad");
    /* Truncation never splits an escape. */
    imx_json_escape(out, 4, "\"\"\"");
    assert_string_equal(out, "\\\"");
}

static void problem_registry_is_complete(void **state)
{
    (void)state;
    for (int e = 0; e < IMX_E__COUNT; e++) {
        const struct imx_problem_def *d = imx_problem_def((enum imx_err)e);
        assert_non_null(d->slug);
        assert_non_null(d->title);
        assert_true(d->status >= 400 && d->status <= 599);
        for (int f = 0; f < e; f++)
            assert_string_not_equal(d->slug, imx_problem_def((enum imx_err)f)->slug);
    }
    assert_int_equal(imx_problem_def(IMX_E_NOT_FOUND)->status, 404);
    assert_int_equal(imx_problem_def(IMX_E_PAYLOAD_TOO_LARGE)->status, 413);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_uint_cases),
        cmocka_unit_test(json_escape_cases),
        cmocka_unit_test(problem_registry_is_complete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
