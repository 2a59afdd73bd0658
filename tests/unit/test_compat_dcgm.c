/* Unit tests for the DCGM rule of server/domain/compat.c (dcgm_driver_too_old), built from the
 * reference rows themselves: tools/reference/dcgm.csv, the file migration 0058 is generated from,
 * is read here and every row is checked at its boundary (the exact minimum and just below it, or
 * the branch and the one before it). A row added to the CSV is tested without a line here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "domain/compat.h"
#include "domain/csv.h"

#define MAX_ROWS 256
#define TODAY    "2026-12-01"

static json_t *csv_rows; /* owned; the snapshot borrows its strings */
static struct imx_ref_dcgm rows[MAX_ROWS];
static size_t n_rows;
static struct imx_ref_snapshot ref;

static int load_rows(void **state)
{
    (void)state;
    FILE *f = fopen(IMX_SOURCE_DIR "/tools/reference/dcgm.csv", "rb");
    if (!f)
        return -1;
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    char err[256];
    csv_rows = imx_csv_rows(text, len, err, sizeof err);
    if (!csv_rows) {
        fprintf(stderr, "dcgm.csv: %s\n", err);
        return -1;
    }
    size_t i;
    json_t *row;
    json_array_foreach(csv_rows, i, row)
    {
        if (n_rows == MAX_ROWS)
            return -1;
        struct imx_ref_dcgm *r = &rows[n_rows++];
        const char *branch = json_string_value(json_object_get(row, "driver_branch_min"));
        const char *status = json_string_value(json_object_get(row, "status"));
        r->dcgm_version = json_string_value(json_object_get(row, "dcgm_version"));
        r->driver_branch_min = branch ? atoi(branch) : 0;
        r->driver_min = json_string_value(json_object_get(row, "driver_min")); /* NULL: empty */
        r->source = json_string_value(json_object_get(row, "source"));
        r->unconfirmed = status && strcmp(status, "UNCONFIRMED") == 0;
        if (!r->dcgm_version || !r->source || r->driver_branch_min <= 0)
            return -1;
    }
    ref = (struct imx_ref_snapshot){ .generation = 1, .dcgm = rows, .n_dcgm = n_rows };
    return n_rows > 0 ? 0 : -1;
}

static int free_rows(void **state)
{
    (void)state;
    json_decref(csv_rows);
    return 0;
}

static const struct imx_compat_finding *check(const struct imx_ref_snapshot *snap, const char *dcgm,
                                              const char *driver, struct imx_compat_report *r)
{
    const struct imx_compat_component comps[] = { { "dcgm", dcgm }, { "nvidia-driver", driver } };
    assert_int_equal(imx_compat_check(snap, comps, 2, NULL, 0, TODAY, r), 0);
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->findings[i].code, "dcgm_driver_too_old") == 0)
            return &r->findings[i];
    }
    return NULL;
}

/* A version just below v: its last part one less ("450.80.02" -> "450.80.1"), or NULL at 0. */
static const char *just_below(const char *v, char *buf, size_t len)
{
    const char *dot = strrchr(v, '.');
    if (!dot || atoi(dot + 1) == 0)
        return NULL;
    snprintf(buf, len, "%.*s.%d", (int)(dot - v), v, atoi(dot + 1) - 1);
    return buf;
}

static void every_row_at_its_boundary(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    for (size_t i = 0; i < n_rows; i++) {
        const struct imx_ref_dcgm *row = &rows[i];
        char dcgm[32], ok[32], old[32], below[32];
        /* A patch release of the row's major.minor, with a package suffix. */
        snprintf(dcgm, sizeof dcgm, "%s.7-1", row->dcgm_version);
        if (row->driver_min)
            snprintf(ok, sizeof ok, "%s", row->driver_min);
        else
            snprintf(ok, sizeof ok, "%d.0.1", row->driver_branch_min);
        snprintf(old, sizeof old, "%d.99.99", row->driver_branch_min - 1);
        if (check(&ref, dcgm, ok, r))
            fail_msg("DCGM %s on driver %s (the minimum) was refused", dcgm, ok);
        const char *refused[] = { old, row->driver_min
                                           ? just_below(row->driver_min, below, sizeof below)
                                           : NULL };
        for (size_t k = 0; k < 2; k++) {
            if (!refused[k])
                continue;
            const struct imx_compat_finding *f = check(&ref, dcgm, refused[k], r);
            if (!f)
                fail_msg("DCGM %s on driver %s: no finding", dcgm, refused[k]);
            assert_int_equal(f->severity, row->unconfirmed ? IMX_COMPAT_WARNING : IMX_COMPAT_ERROR);
            assert_true(r->ok == row->unconfirmed);
            assert_string_equal(f->source, row->source);
            char branch[16];
            snprintf(branch, sizeof branch, "R%d", row->driver_branch_min);
            assert_non_null(strstr(f->message, branch));
            assert_non_null(strstr(f->message, refused[k]));
            if (row->driver_min)
                assert_non_null(strstr(f->message, row->driver_min));
            assert_int_equal(f->n_involved, 2);
            assert_string_equal(f->involved[0].name, "dcgm");
            assert_string_equal(f->involved[0].version, dcgm);
            assert_string_equal(f->involved[1].name, "nvidia-driver");
        }
    }
    free(r);
}

/* A DCGM major.minor no row holds, a version that does not parse, or no driver: not checked. */
static void what_no_row_covers_is_not_checked(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    const char *const unchecked[] = { "9.9.1", "not-a-version" };
    for (size_t k = 0; k < 2; k++) {
        assert_null(check(&ref, unchecked[k], "100.1", r));
        for (size_t i = 0; i < r->n; i++) /* only the driver's own findings (R100 is unknown) */
            assert_string_equal(r->findings[i].involved[0].name, "nvidia-driver");
    }
    const struct imx_compat_component alone[] = { { "dcgm", rows[0].dcgm_version } };
    assert_int_equal(imx_compat_check(&ref, alone, 1, NULL, 0, TODAY, r), 0);
    assert_int_equal(r->n, 0);
    free(r);
}

static void an_unconfirmed_row_never_makes_an_error(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    struct imx_ref_dcgm copy = rows[0];
    copy.unconfirmed = true;
    struct imx_ref_snapshot one = { .generation = 1, .dcgm = &copy, .n_dcgm = 1 };
    const struct imx_compat_finding *f = check(&one, copy.dcgm_version, "100.1", r);
    assert_non_null(f);
    assert_int_equal(f->severity, IMX_COMPAT_WARNING);
    assert_true(r->ok);
    assert_non_null(strstr(f->message, "unconfirmed"));
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row_at_its_boundary),
        cmocka_unit_test(what_no_row_covers_is_not_checked),
        cmocka_unit_test(an_unconfirmed_row_never_makes_an_error),
    };
    return cmocka_run_group_tests(tests, load_rows, free_rows);
}
