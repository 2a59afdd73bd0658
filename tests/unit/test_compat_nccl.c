/* Unit tests for the NCCL rule of server/domain/compat.c (nccl_cuda_major_mismatch), built from
 * the reference rows themselves: tools/reference/nccl.csv, the file migration 0056 is generated
 * from, is read here, and every row is checked against every CUDA major from 10 to 14. So the
 * table and the rule cannot drift apart: a row added to the CSV is tested without a line here. */
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

static json_t *csv_rows; /* the CSV's rows, owned; the snapshot borrows their strings */
static struct imx_ref_nccl rows[MAX_ROWS];
static size_t n_rows;
static struct imx_ref_snapshot ref;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    *len = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[*len] = '\0';
    return buf;
}

/* "{10,11}" -> 10, 11 */
static void parse_majors(const char *text, struct imx_ref_nccl *r)
{
    const char *p = text;
    while (p && *p && r->n_cuda_majors < IMX_REF_NCCL_MAX_MAJORS) {
        while (*p == '{' || *p == ',')
            p++;
        if (*p < '0' || *p > '9')
            break;
        r->cuda_majors[r->n_cuda_majors++] = (int)strtol(p, (char **)&p, 10);
    }
}

static int load_rows(void **state)
{
    (void)state;
    size_t len = 0;
    char *text = slurp(IMX_SOURCE_DIR "/tools/reference/nccl.csv", &len);
    if (!text)
        return -1;
    char err[256];
    csv_rows = imx_csv_rows(text, len, err, sizeof err);
    free(text);
    if (!csv_rows) {
        fprintf(stderr, "nccl.csv: %s\n", err);
        return -1;
    }
    size_t i;
    json_t *row;
    json_array_foreach(csv_rows, i, row)
    {
        if (n_rows == MAX_ROWS)
            return -1;
        struct imx_ref_nccl *r = &rows[n_rows++];
        r->nccl_version = json_string_value(json_object_get(row, "nccl_version"));
        r->cuda_builds = json_string_value(json_object_get(row, "cuda_builds"));
        r->source = json_string_value(json_object_get(row, "source"));
        const char *status = json_string_value(json_object_get(row, "status"));
        r->unconfirmed = status && strcmp(status, "UNCONFIRMED") == 0;
        parse_majors(json_string_value(json_object_get(row, "cuda_majors")), r);
        if (!r->nccl_version || !r->source || r->n_cuda_majors == 0)
            return -1;
    }
    ref = (struct imx_ref_snapshot){ .generation = 1, .nccl = rows, .n_nccl = n_rows };
    return n_rows > 0 ? 0 : -1;
}

static int free_rows(void **state)
{
    (void)state;
    json_decref(csv_rows);
    return 0;
}

static const struct imx_compat_finding *find_code(const struct imx_compat_report *r,
                                                  const char *code)
{
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->findings[i].code, code) == 0)
            return &r->findings[i];
    }
    return NULL;
}

static bool has_major(const struct imx_ref_nccl *row, int major)
{
    for (size_t i = 0; i < row->n_cuda_majors; i++) {
        if (row->cuda_majors[i] == major)
            return true;
    }
    return false;
}

/* The first URL of a row's source, as findings cite it. */
static void first_url(const char *src, char *out, size_t len)
{
    snprintf(out, len, "%s", strstr(src, "http"));
    out[strcspn(out, " ;")] = '\0';
}

/* Every row against CUDA 10..14: a mismatch exactly when the major has no build, an error naming
 * the release, its builds and the stack's CUDA, with the row's source. */
static void every_row_against_every_cuda_major(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    size_t mismatches = 0, fits = 0;
    for (size_t i = 0; i < n_rows; i++) {
        const struct imx_ref_nccl *row = &rows[i];
        for (int major = 10; major <= 14; major++) {
            char cuda[16];
            snprintf(cuda, sizeof cuda, "%d.2.0", major);
            const struct imx_compat_component comps[] = { { "cuda", cuda },
                                                          { "nccl", row->nccl_version } };
            assert_int_equal(imx_compat_check(&ref, comps, 2, NULL, 0, "2026-12-01", r), 0);
            const struct imx_compat_finding *f = find_code(r, "nccl_cuda_major_mismatch");
            if (has_major(row, major)) {
                if (f)
                    fail_msg("NCCL %s has a CUDA %d build, yet: %s", row->nccl_version, major,
                             f->message);
                fits++;
                continue;
            }
            if (!f)
                fail_msg("NCCL %s has no CUDA %d build (%s), yet no finding", row->nccl_version,
                         major, row->cuda_builds);
            mismatches++;
            assert_int_equal(f->severity, row->unconfirmed ? IMX_COMPAT_WARNING : IMX_COMPAT_ERROR);
            assert_true(r->ok == row->unconfirmed);
            char url[IMX_COMPAT_SOURCE_SIZE];
            first_url(row->source, url, sizeof url);
            assert_string_equal(f->source, url);
            assert_non_null(strstr(f->message, row->nccl_version));
            assert_non_null(strstr(f->message, row->cuda_builds));
            assert_non_null(strstr(f->message, cuda));
            assert_int_equal(f->n_involved, 2);
            assert_string_equal(f->involved[0].name, "nccl");
            assert_string_equal(f->involved[1].name, "cuda");
            assert_string_equal(f->involved[1].version, cuda);
        }
    }
    /* Both sides of the rule were reached by the shipped rows. */
    assert_true(mismatches > 0);
    assert_true(fits > 0);
    free(r);
}

/* A row's release with a package suffix or a fourth part is the same release; a release no row
 * holds, or an unparsable version, is not checked (no finding at all about NCCL). */
static void releases_match_by_three_parts_and_unknown_ones_are_not_checked(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    const struct imx_ref_nccl *row = &rows[0];
    int absent = 0;
    while (has_major(row, absent) || absent < 10)
        absent++;
    char cuda[16], suffixed[64], four[64];
    snprintf(cuda, sizeof cuda, "%d.0.0", absent);
    snprintf(suffixed, sizeof suffixed, "%s-1+cuda%d.0", row->nccl_version, row->cuda_majors[0]);
    snprintf(four, sizeof four, "%s.1", row->nccl_version);
    const char *const same[] = { suffixed, four };
    for (size_t k = 0; k < 2; k++) {
        const struct imx_compat_component comps[] = { { "cuda", cuda }, { "nccl", same[k] } };
        assert_int_equal(imx_compat_check(&ref, comps, 2, NULL, 0, "2026-12-01", r), 0);
        assert_non_null(find_code(r, "nccl_cuda_major_mismatch"));
    }
    const char *const unchecked[] = { "1.3.4", "2.99.99", "not-a-version" };
    for (size_t k = 0; k < 3; k++) {
        const struct imx_compat_component comps[] = { { "cuda", cuda }, { "nccl", unchecked[k] } };
        assert_int_equal(imx_compat_check(&ref, comps, 2, NULL, 0, "2026-12-01", r), 0);
        for (size_t i = 0; i < r->n; i++)
            assert_true(r->findings[i].involved[0].name[0] == '\0' ||
                        strcmp(r->findings[i].involved[0].name, "nccl") != 0);
    }
    /* Without any CUDA in the stack there is nothing to hold NCCL to. */
    const struct imx_compat_component alone[] = { { "nccl", row->nccl_version } };
    assert_int_equal(imx_compat_check(&ref, alone, 1, NULL, 0, "2026-12-01", r), 0);
    assert_int_equal(r->n, 0);
    free(r);
}

/* A PyTorch wheel's own CUDA stands in for a missing host cuda, and is named as the CUDA. */
static void a_wheels_cuda_is_held_to_the_nccl_builds(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    for (size_t i = 0; i < n_rows; i++) {
        if (has_major(&rows[i], 11))
            continue;
        const struct imx_compat_component comps[] = { { "pytorch", "2.5.1+cu118" },
                                                      { "nccl", rows[i].nccl_version } };
        assert_int_equal(imx_compat_check(&ref, comps, 2, NULL, 0, "2026-12-01", r), 0);
        const struct imx_compat_finding *f = find_code(r, "nccl_cuda_major_mismatch");
        assert_non_null(f);
        assert_string_equal(f->involved[1].name, "pytorch");
        assert_non_null(strstr(f->message, "PyTorch's own"));
    }
    free(r);
}

/* The same row marked UNCONFIRMED is at most a warning and says so. */
static void an_unconfirmed_row_never_makes_an_error(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    struct imx_ref_nccl copy = rows[0];
    copy.unconfirmed = true;
    struct imx_ref_snapshot one = { .generation = 1, .nccl = &copy, .n_nccl = 1 };
    int absent = 10;
    while (has_major(&copy, absent))
        absent++;
    char cuda[16];
    snprintf(cuda, sizeof cuda, "%d.0.0", absent);
    const struct imx_compat_component comps[] = { { "cuda", cuda }, { "nccl", copy.nccl_version } };
    assert_int_equal(imx_compat_check(&one, comps, 2, NULL, 0, "2026-12-01", r), 0);
    const struct imx_compat_finding *f = find_code(r, "nccl_cuda_major_mismatch");
    assert_non_null(f);
    assert_int_equal(f->severity, IMX_COMPAT_WARNING);
    assert_true(r->ok);
    assert_non_null(strstr(f->message, "unconfirmed"));
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row_against_every_cuda_major),
        cmocka_unit_test(releases_match_by_three_parts_and_unknown_ones_are_not_checked),
        cmocka_unit_test(a_wheels_cuda_is_held_to_the_nccl_builds),
        cmocka_unit_test(an_unconfirmed_row_never_makes_an_error),
    };
    return cmocka_run_group_tests(tests, load_rows, free_rows);
}
