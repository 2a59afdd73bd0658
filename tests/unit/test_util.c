/* Small pure helpers: bounded integer parsing, JSON escaping, the problem registry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "http/conditional.h"
#include "http/problem.h"
#include "util/rfc3339.h"
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

/* If-Match (RFC 9110 section 13.1.1) against the current tag "r3". */
static void if_match_cases(void **state)
{
    (void)state;
    static const struct {
        const char *header;
        enum imx_if_match want;
    } cases[] = {
        { "\"r3\"", IMX_IF_MATCH_YES },
        { "*", IMX_IF_MATCH_YES },
        { "  *  ", IMX_IF_MATCH_YES },
        { "\"r1\", \"r3\"", IMX_IF_MATCH_YES },
        { "\"r1\",\"r3\" ", IMX_IF_MATCH_YES },
        { "\"r2\"", IMX_IF_MATCH_NO },
        { "\"r33\"", IMX_IF_MATCH_NO },
        /* A weak tag never matches for a write (strong comparison). */
        { "W/\"r3\"", IMX_IF_MATCH_NO },
        { "W/\"r1\", \"r3\"", IMX_IF_MATCH_YES },
        /* "*" stands alone; anything else must be a list of quoted tags. */
        { "*garbage", IMX_IF_MATCH_MALFORMED },
        { "\"r1\",*", IMX_IF_MATCH_MALFORMED },
        { "* , \"r3\"", IMX_IF_MATCH_MALFORMED },
        { "r3", IMX_IF_MATCH_MALFORMED },
        { "\"r3", IMX_IF_MATCH_MALFORMED },
        { "\"r3\"x", IMX_IF_MATCH_MALFORMED },
        { "\"r 3\"", IMX_IF_MATCH_MALFORMED },
        { "w/\"r3\"", IMX_IF_MATCH_MALFORMED },
        { "", IMX_IF_MATCH_MALFORMED },
        { " , ", IMX_IF_MATCH_MALFORMED },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        enum imx_if_match got = imx_if_match(cases[i].header, "\"r3\"");
        if (got != cases[i].want)
            fail_msg("If-Match '%s': %d, want %d", cases[i].header, (int)got, (int)cases[i].want);
    }
}

static void rfc3339_cases(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        bool ok;
    } cases[] = {
        { "2026-11-20T10:00:00Z", true },
        { "2026-11-20t10:00:00z", true },
        { "2026-11-20T10:00:00.123456+01:00", true },
        { "2024-02-29T23:59:60-05:30", true },
        { "2025-02-29T00:00:00Z", false },
        { "2026-13-01T00:00:00Z", false },
        { "2026-11-20T24:00:00Z", false },
        { "2026-11-20 10:00:00Z", false },
        { "2026-11-20T10:00:00", false },
        { "2026-11-20T10:00:00.Z", false },
        { "2026-11-20T10:00:00+0100", false },
        { "2026-11-20", false },
        { "now", false },
        { "yesterday", false },
        { "infinity", false },
        { "epoch", false },
        { "", false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (imx_rfc3339_ok(cases[i].s) != cases[i].ok)
            fail_msg("'%s' should be %s", cases[i].s, cases[i].ok ? "taken" : "refused");
}

static void date_cases(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        bool ok;
    } cases[] = {
        { "2026-12-06", true },   { "2024-02-29", true }, /* leap year */
        { "2000-02-29", true },                           /* divisible by 400 */
        { "1900-02-29", false },                          /* divisible by 100, not 400 */
        { "2025-02-29", false },  { "2026-02-28", true },
        { "2026-04-30", true },   { "2026-04-31", false },
        { "2026-01-31", true },   { "2026-12-31", true },
        { "2026-13-45", false },  { "2026-13-01", false },
        { "2026-00-10", false },  { "2026-01-00", false },
        { "2026-01-32", false },  { "0000-01-01", false },
        { "0001-01-01", true },   { "9999-12-31", true },
        { "2026-1-05", false },   { "2026-01-5", false },
        { "2026/01/05", false },  { "2026-01-05T00:00:00Z", false },
        { "2026-01-05 ", false }, { "+2026-01-05", false },
        { "2026-0a-05", false },  { "", false },
        { NULL, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (imx_date_ok(cases[i].s) != cases[i].ok)
            fail_msg("date '%s' should be %s", cases[i].s ? cases[i].s : "(null)",
                     cases[i].ok ? "taken" : "refused");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_uint_cases),
        cmocka_unit_test(json_escape_cases),
        cmocka_unit_test(problem_registry_is_complete),
        cmocka_unit_test(if_match_cases),
        cmocka_unit_test(rfc3339_cases),
        cmocka_unit_test(date_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
