/* CSV tables as JSON rows (server/domain/csv.c): quoting, NULLs, line ends and the refusals, as
 * a table; and fields written back read as themselves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "domain/csv.h"

static void tables_parse_or_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *rows; /* the JSON expected; NULL: refused */
        const char *err;  /* part of the message when refused */
    } cases[] = {
        { "a,b\n1,2\n", "[{\"a\":\"1\",\"b\":\"2\"}]", NULL },
        { "a,b\r\n1,2\r\n3,4", "[{\"a\":\"1\",\"b\":\"2\"},{\"a\":\"3\",\"b\":\"4\"}]", NULL },
        { "a,b\n,\"\"\n", "[{\"a\":null,\"b\":\"\"}]", NULL },
        { "a\n\"x, \"\"y\"\"\nz\"\n", "[{\"a\":\"x, \\\"y\\\"\\nz\"}]", NULL },
        { "gpu_model,aliases\nB200,\"{\"\"NVIDIA B200\"\",\"\"HGX B200\"\"}\"\n",
          "[{\"gpu_model\":\"B200\",\"aliases\":\"{\\\"NVIDIA B200\\\",\\\"HGX B200\\\"}\"}]",
          NULL },
        { "a,b\n\n1,2\n\n", "[{\"a\":\"1\",\"b\":\"2\"}]", NULL },
        { "a,b\n", "[]", NULL },
        { "", NULL, "no header" },
        { "a,a\n1,2\n", NULL, "twice" },
        { "a,\n1,2\n", NULL, "no name" },
        { "a,b\n1\n", NULL, "line 2" },
        { "a,b\n1,2,3\n", NULL, "line 2" },
        { "a\n\"open\n", NULL, "does not end" },
        { "a\n\"x\"y\n", NULL, "after a closing quote" },
        { "a\nx\"y\n", NULL, "inside an unquoted" },
        { "a\n\xff\n", NULL, "UTF-8" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[256];
        json_t *rows = imx_csv_rows(cases[i].text, strlen(cases[i].text), err, sizeof err);
        if (!cases[i].rows) {
            if (rows)
                fail_msg("case %zu: expected a refusal", i);
            if (!strstr(err, cases[i].err))
                fail_msg("case %zu: message \"%s\"", i, err);
            continue;
        }
        if (!rows)
            fail_msg("case %zu: %s", i, err);
        json_t *want = json_loads(cases[i].rows, 0, NULL);
        assert_non_null(want);
        if (!json_equal(rows, want))
            fail_msg("case %zu: got %s", i, json_dumps(rows, 0));
        json_decref(want);
        json_decref(rows);
    }
    char err[64];
    assert_null(imx_csv_rows("a\n1\0", 4, err, sizeof err));
    assert_null(imx_csv_rows(NULL, 0, err, sizeof err));
}

static void written_fields_read_back(void **state)
{
    (void)state;
    static const char *const values[] = { "plain",       "",  "a,b", "say \"hi\"", "two\nlines",
                                          "{\"A B\",c}", NULL };
    char line[512] = "";
    size_t n = 0;
    char header[] = "c0,c1,c2,c3,c4,c5,c6\n";
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        assert_int_equal(imx_csv_put(line, sizeof line, &n, values[i], i == 0), 0);
    char text[1024];
    snprintf(text, sizeof text, "%s%s\n", header, line);
    char err[128];
    json_t *rows = imx_csv_rows(text, strlen(text), err, sizeof err);
    if (!rows)
        fail_msg("%s: %s", text, err);
    json_t *r = json_array_get(rows, 0);
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char col[8];
        snprintf(col, sizeof col, "c%zu", i);
        json_t *v = json_object_get(r, col);
        if (values[i])
            assert_string_equal(json_string_value(v), values[i]);
        else
            assert_true(json_is_null(v));
    }
    json_decref(rows);
    char tiny[4];
    size_t tn = 0;
    assert_int_equal(imx_csv_put(tiny, sizeof tiny, &tn, "toolong", 1), -1);
}

/* Cells for a spreadsheet: what one would run as a formula gets a leading ', numbers and the
 * rest stay as they are. */
static void spreadsheet_cells_never_run_as_formulas(void **state)
{
    (void)state;
    static const struct {
        const char *value, *written;
    } cases[] = {
        { "=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"" },
        { "+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0" },
        { "-2+3", "'-2+3" },
        { "@SUM(A1)", "'@SUM(A1)" },
        { "\tx", "'\tx" },
        { "-1", "-1" },
        { "-0.25", "-0.25" },
        { "+3", "+3" },
        { "1e-7", "1e-7" },
        { "ubuntu:24.04", "ubuntu:24.04" },
        { "", "\"\"" },
        { "a,b", "\"a,b\"" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[256] = "";
        size_t n = 0;
        assert_int_equal(imx_csv_put_cell(line, sizeof line, &n, cases[i].value, 1), 0);
        if (strcmp(line, cases[i].written) != 0)
            fail_msg("%s: wrote %s, want %s", cases[i].value, line, cases[i].written);
    }
    char line[8] = "";
    size_t n = 0;
    assert_int_equal(imx_csv_put_cell(line, sizeof line, &n, NULL, 1), 0);
    assert_string_equal(line, "");
    assert_int_equal(imx_csv_put_cell(line, sizeof line, &n, "=toolongforthis", 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spreadsheet_cells_never_run_as_formulas),
        cmocka_unit_test(tables_parse_or_are_refused),
        cmocka_unit_test(written_fields_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
