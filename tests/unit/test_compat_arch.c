/* Unit tests for framework_gpu_arch_unsupported of server/domain/compat.c, built from the reference
 * rows themselves: tools/reference/sources/pytorch-cuda-arch.txt and pytorch-cuda-arch-0220.txt
 * (the files migrations 0112 and 0220 are generated from; a later line for the same wheel variant
 * wins, as 0220 runs after 0112) are read here, and every wheel variant is checked against a GPU
 * of every compute capability NVIDIA lists from Kepler to Blackwell, with the answer of CUDA's
 * binary-compatibility rule (a cubin for X.y runs on X.z, z >= y; PTX for X.y JIT-compiles on any
 * newer capability). A row added to a source is tested without a line here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "domain/compat.h"

#define MAX_ROWS 128

struct variant {
    char release[16], cuda[16], archs[160];
};

static struct variant variants[MAX_ROWS];
static size_t n_variants;
static struct imx_ref_pytorch_build builds[MAX_ROWS];

static const char *const ccs[] = { "3.7", "5.0",  "5.2",  "6.0",  "6.1",  "7.0",
                                   "7.2", "7.5",  "8.0",  "8.6",  "8.7",  "8.9",
                                   "9.0", "10.0", "10.3", "11.0", "12.0", "12.1" };
#define N_CCS (sizeof ccs / sizeof ccs[0])
static char names[N_CCS][16];
static struct imx_ref_gpu gpus[N_CCS];
static struct imx_ref_snapshot ref;

/* Reads one source: '#' comments, '@url' lines, else release|cuda|archs|status|source. */
static int read_source(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '@' || line[0] == '\n')
            continue;
        char *rel = strtok(line, "|"), *cuda = strtok(NULL, "|"), *archs = strtok(NULL, "|");
        if (!rel || !cuda || !archs) {
            fclose(f);
            return -1;
        }
        size_t i = 0;
        while (i < n_variants &&
               (strcmp(variants[i].release, rel) != 0 || strcmp(variants[i].cuda, cuda) != 0))
            i++;
        if (i == n_variants) {
            if (n_variants == MAX_ROWS) {
                fclose(f);
                return -1;
            }
            n_variants++;
        }
        snprintf(variants[i].release, sizeof variants[i].release, "%s", rel);
        snprintf(variants[i].cuda, sizeof variants[i].cuda, "%s", cuda);
        snprintf(variants[i].archs, sizeof variants[i].archs, "%s", archs);
    }
    fclose(f);
    return 0;
}

static int load_rows(void **state)
{
    (void)state;
    if (read_source(IMX_SOURCE_DIR "/tools/reference/sources/pytorch-cuda-arch.txt") != 0 ||
        read_source(IMX_SOURCE_DIR "/tools/reference/sources/pytorch-cuda-arch-0220.txt") != 0)
        return -1;
    for (size_t i = 0; i < n_variants; i++) {
        builds[i] = (struct imx_ref_pytorch_build){ variants[i].release,
                                                    variants[i].cuda,
                                                    false,
                                                    "https://example.test/pytorch",
                                                    variants[i].archs,
                                                    "https://example.test/archs" };
    }
    for (size_t i = 0; i < N_CCS; i++) {
        snprintf(names[i], sizeof names[i], "Test GPU %s", ccs[i]);
        gpus[i] =
            (struct imx_ref_gpu){ names[i], names[i], "Test", ccs[i], NULL,
                                  NULL,     NULL,     NULL,   0,      "https://example.test/gpu" };
    }
    ref.pytorch = builds;
    ref.n_pytorch = n_variants;
    ref.gpus = gpus;
    ref.n_gpus = N_CCS;
    return 0;
}

/* "12.0" -> 120 */
static int cc10(const char *s)
{
    int major = 0, minor = 0;
    sscanf(s, "%d.%d", &major, &minor);
    return major * 10 + minor;
}

/* CUDA's binary-compatibility rule, stated from NVIDIA's compatibility guides. */
static bool runs(const char *archs, const char *cc)
{
    int want = cc10(cc);
    char copy[160];
    snprintf(copy, sizeof copy, "%s", archs);
    for (char *save = NULL, *e = strtok_r(copy, ";", &save); e; e = strtok_r(NULL, ";", &save)) {
        bool ptx = strstr(e, "+PTX") != NULL;
        int have = cc10(e);
        if (have <= want && (ptx || have / 10 == want / 10))
            return true;
    }
    return false;
}

static void every_variant_against_every_capability(void **state)
{
    (void)state;
    assert_true(n_variants >= 41); /* 2.0-2.14: every wheel variant has its list */
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    size_t checked = 0;
    for (size_t v = 0; v < n_variants; v++) {
        char torch[64], cu[16];
        snprintf(cu, sizeof cu, "%s", variants[v].cuda);
        char *dot = strchr(cu, '.');
        assert_non_null(dot);
        memmove(dot, dot + 1, strlen(dot));
        snprintf(torch, sizeof torch, "%s.0+cu%s", variants[v].release, cu);
        struct imx_compat_component comps[] = { { "pytorch", torch } };
        for (size_t g = 0; g < N_CCS; g++) {
            const char *gpu[] = { names[g] };
            assert_int_equal(imx_compat_check(&ref, comps, 1, gpu, 1, "2026-01-01", r), 0);
            bool flagged = false;
            for (size_t k = 0; k < r->n; k++)
                flagged =
                    flagged || strcmp(r->findings[k].code, "framework_gpu_arch_unsupported") == 0;
            bool want = !runs(variants[v].archs, ccs[g]);
            if (flagged != want)
                fail_msg("PyTorch %s with archs %s on compute capability %s: flagged %d, want %d",
                         torch, variants[v].archs, ccs[g], flagged, want);
            checked++;
        }
    }
    print_message("%zu wheel variants x %zu capabilities checked\n", n_variants, N_CCS);
    assert_int_equal(checked, n_variants * N_CCS);
    free(r);
}

/* Spot checks the issue named, so a wrong source line fails here too. */
static void named_cases(void **state)
{
    (void)state;
    assert_false(runs("7.5;8.0;8.6;9.0;10.0;12.0", "7.0"));     /* V100 on 2.11 cu128 */
    assert_true(runs("7.0;7.5;8.0;8.6;9.0;10.0;12.0", "7.0"));  /* V100 on 2.10 cu128 */
    assert_false(runs("7.0;7.5;8.0;8.6;9.0;10.0;12.0", "6.0")); /* P100 on 2.8 cu128 */
    assert_true(runs("7.5;8.0;8.6;9.0;10.0;12.0+PTX", "10.3")); /* B300: sm_100 cubins */
    assert_true(runs("7.5;8.0;8.6;9.0;10.0;12.0", "12.1"));     /* GB10: sm_120 cubins */
    /* Thor (11.0): no 11.x cubin, and PTX for 12.0 does not JIT down to 11.0 (Jetson GPUs use
     * JetPack wheels and are not held to these lists). */
    assert_false(runs("7.5;8.0;8.6;9.0;10.0;12.0+PTX", "11.0"));
    assert_false(runs("5.0;6.0;7.0;7.5;8.0;8.6;9.0", "12.0")); /* RTX 5090 on cu126 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_against_every_capability),
        cmocka_unit_test(named_cases),
    };
    return cmocka_run_group_tests(tests, load_rows, NULL);
}
