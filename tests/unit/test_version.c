/* Unit tests for server/domain/version.c: version keys, ordering and constraints, as tables of
 * real component versions (drivers, CUDA, cuDNN, frameworks, toolkits, kernels, OS). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "domain/version.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

struct ver_case {
    const char *text;
    int nparts;
    int32_t key[IMX_VER_PARTS];
    const char *suffix;
};

static const struct ver_case valid_versions[] = {
    /* NVIDIA drivers */
    { "450.80.02", 3, { 450, 80, 2 }, "" },
    { "525.60.13", 3, { 525, 60, 13 }, "" },
    { "535.104.05", 3, { 535, 104, 5 }, "" },
    { "535.183.01", 3, { 535, 183, 1 }, "" },
    { "550.54.15", 3, { 550, 54, 15 }, "" },
    { "570.133.20", 3, { 570, 133, 20 }, "" },
    { "575.57.08", 3, { 575, 57, 8 }, "" },
    { "580.65.06", 3, { 580, 65, 6 }, "" },
    { "580.82.07", 3, { 580, 82, 7 }, "" },
    { "580.95.05", 3, { 580, 95, 5 }, "" },
    { "580.105.08", 3, { 580, 105, 8 }, "" },
    { "590.44.01", 3, { 590, 44, 1 }, "" },
    { "590.48.01", 3, { 590, 48, 1 }, "" },
    /* CUDA */
    { "11.8.0", 3, { 11, 8, 0 }, "" },
    { "12.2.2", 3, { 12, 2, 2 }, "" },
    { "12.4.1", 3, { 12, 4, 1 }, "" },
    { "12.8", 2, { 12, 8 }, "" },
    { "12.9.1", 3, { 12, 9, 1 }, "" },
    { "13.0", 2, { 13, 0 }, "" },
    { "13.0.1", 3, { 13, 0, 1 }, "" },
    /* cuDNN, NCCL, DCGM, EFA */
    { "8.9.7.29", 4, { 8, 9, 7, 29 }, "" },
    { "9.1.0.70", 4, { 9, 1, 0, 70 }, "" },
    { "9.10.2", 3, { 9, 10, 2 }, "" },
    { "2.21.5", 3, { 2, 21, 5 }, "" },
    { "2.27.7-1", 4, { 2, 27, 7, 1 }, "" },
    { "3.3.9", 3, { 3, 3, 9 }, "" },
    { "4.4.1", 3, { 4, 4, 1 }, "" },
    { "1.38.0", 3, { 1, 38, 0 }, "" },
    /* frameworks and Python */
    { "2.5.1+cu124", 3, { 2, 5, 1 }, "+cu124" },
    { "2.9.0", 3, { 2, 9, 0 }, "" },
    { "2.9.0+cu128", 3, { 2, 9, 0 }, "+cu128" },
    { "2.21.0", 3, { 2, 21, 0 }, "" },
    { "3.12.3", 3, { 3, 12, 3 }, "" },
    { "3.10.12", 3, { 3, 10, 12 }, "" },
    { "3.13.0rc1", 3, { 3, 13, IMX_VER_PRE_RC, 1 }, "rc1" },
    { "2.5.1.post1", 3, { 2, 5, 1 }, ".post1" },
    /* NVIDIA Container Toolkit */
    { "1.16.1", 3, { 1, 16, 1 }, "" },
    { "1.16.2", 3, { 1, 16, 2 }, "" },
    { "1.17.8", 3, { 1, 17, 8 }, "" },
    { "v1.17.0", 3, { 1, 17, 0 }, "" },
    { "V1.17.0", 3, { 1, 17, 0 }, "" },
    /* kernels and OS */
    { "6.8.0-1015-aws", 4, { 6, 8, 0, 1015 }, "-aws" },
    { "6.8.0-1015-gcp", 4, { 6, 8, 0, 1015 }, "-gcp" },
    { "5.15.0-1066-azure", 4, { 5, 15, 0, 1066 }, "-azure" },
    { "6.17.0-1020-aws", 4, { 6, 17, 0, 1020 }, "-aws" },
    { "6.8.0-1015", 4, { 6, 8, 0, 1015 }, "" },
    { "22.04", 2, { 22, 4 }, "" },
    { "24.04", 2, { 24, 4 }, "" },
    { "24.04.1-LTS", 3, { 24, 4, 1 }, "-LTS" },
    { "12.4.1-1ubuntu2", 4, { 12, 4, 1, 1 }, "ubuntu2" },
    { "2026.03.17", 3, { 2026, 3, 17 }, "" },
    /* edges of the grammar */
    { "580", 1, { 580 }, "" },
    { "0.0.0", 3, { 0, 0, 0 }, "" },
    { "999999999", 1, { 999999999 }, "" },
    { "000000008", 1, { 8 }, "" },
    { "1.2.3.4.5.6", 6, { 1, 2, 3, 4, 5, 6 }, "" },
    { "1.2.3.4.5.6.x", 6, { 1, 2, 3, 4, 5, 6 }, ".x" },
    { "1..2", 1, { 1 }, "..2" },
    { "1.2-", 2, { 1, 2 }, "-" },
    { "1.2.", 2, { 1, 2 }, "." },
    { "12.4_1", 2, { 12, 4 }, "_1" },
    { "12.4~beta", 2, { 12, 4, IMX_VER_PRE_BETA, 0 }, "~beta" },
    /* pre-releases (issue 30): a negative marker and its number after the numeric parts, less
     * trailing zeros down to two parts */
    { "1.3.0rc14", 3, { 1, 3, IMX_VER_PRE_RC, 14 }, "rc14" },
    { "1.3.0rc2", 3, { 1, 3, IMX_VER_PRE_RC, 2 }, "rc2" },
    { "1.3rc2", 2, { 1, 3, IMX_VER_PRE_RC, 2 }, "rc2" },
    { "13.0rc1", 2, { 13, 0, IMX_VER_PRE_RC, 1 }, "rc1" },
    { "13.0.0rc1", 3, { 13, 0, IMX_VER_PRE_RC, 1 }, "rc1" },
    { "1rc1", 1, { 1, IMX_VER_PRE_RC, 1 }, "rc1" },
    { "v1.0.0-rc.3", 3, { 1, 0, IMX_VER_PRE_RC, 3 }, "-rc.3" },
    { "1.0.0-RC1", 3, { 1, 0, IMX_VER_PRE_RC, 1 }, "-RC1" },
    { "2.1.0a1", 3, { 2, 1, IMX_VER_PRE_ALPHA, 1 }, "a1" },
    { "2.1.0b2", 3, { 2, 1, IMX_VER_PRE_BETA, 2 }, "b2" },
    { "2.1.0.dev20250101", 3, { 2, 1, IMX_VER_PRE_DEV, 20250101 }, ".dev20250101" },
    { "2.1.0-alpha", 3, { 2, 1, IMX_VER_PRE_ALPHA, 0 }, "-alpha" },
    { "2.1.0-beta.4", 3, { 2, 1, IMX_VER_PRE_BETA, 4 }, "-beta.4" },
    { "2.1.0pre1", 3, { 2, 1, IMX_VER_PRE_RC, 1 }, "pre1" },
    { "2.1.0rc", 3, { 2, 1, IMX_VER_PRE_RC, 0 }, "rc" },
    { "1.2.3.4rc1", 4, { 1, 2, 3, 4, IMX_VER_PRE_RC, 1 }, "rc1" },
    { "1.2.3.4.0rc1", 5, { 1, 2, 3, 4, IMX_VER_PRE_RC, 1 }, "rc1" },
    /* not pre-releases: no room, a bare a/b, more text after one, a local build tail */
    { "1.2.3.4.5rc1", 5, { 1, 2, 3, 4, 5 }, "rc1" },
    { "1.0a", 2, { 1, 0 }, "a" },
    { "2.0b", 2, { 2, 0 }, "b" },
    { "1.0rc1.post1", 2, { 1, 0 }, "rc1.post1" },
    { "2.6.0a0+ecf3bae40a", 3, { 2, 6, 0 }, "a0+ecf3bae40a" },
    { "1.0rc1234567890", 2, { 1, 0 }, "rc1234567890" },
    { "1.0-rc.", 2, { 1, 0 }, "-rc." },
    { "1.0preview1", 2, { 1, 0 }, "preview1" },
    { "1-2.3", 3, { 1, 2, 3 }, "" },
    { "1aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
      1,
      { 1 },
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
};

static const char *const invalid_versions[] = {
    "",
    "abc",
    "R580",
    "r580.95.05",
    "v",
    "V",
    "vv1",
    "v.1",
    ".1",
    "-1",
    "+1",
    " 1.2",
    "1.2 ",
    "1 .2",
    "1.2.3.4.5.6.7",
    "1.2.3.4.5.6-7",
    "1234567890",
    "1.1234567890",
    "12345678901.2",
    "1.2.3.0000000000",
    "1.2@",
    "1.2/3",
    "1,2",
    "1.2*",
    "12.4.*",
    "1.2\t",
    "1.2\n",
    "1.2\xc3\xa9",
    "\303\2511", /* e-acute, then 1 */
    ">=1.2",
    /* 65 bytes */
    "1aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
};

static void test_parse_valid(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(valid_versions); i++) {
        const struct ver_case *tc = &valid_versions[i];
        struct imx_ver v;
        if (imx_ver_parse(tc->text, &v) != 0) {
            fail_msg("'%s': rejected", tc->text);
        }
        if (v.nparts != tc->nparts) {
            fail_msg("'%s': nparts %d, want %d", tc->text, v.nparts, tc->nparts);
        }
        for (int p = 0; p < IMX_VER_PARTS; p++) {
            if (v.key[p] != tc->key[p]) {
                fail_msg("'%s': part %d is %d, want %d", tc->text, p, (int)v.key[p],
                         (int)tc->key[p]);
            }
        }
        if (strcmp(imx_ver_suffix(&v), tc->suffix) != 0) {
            fail_msg("'%s': suffix '%s', want '%s'", tc->text, imx_ver_suffix(&v), tc->suffix);
        }
        if (strcmp(v.text, tc->text) != 0) {
            fail_msg("'%s': text kept as '%s'", tc->text, v.text);
        }
    }
}

static void test_parse_invalid(void **state)
{
    (void)state;
    static const struct imx_ver zero;
    for (size_t i = 0; i < N_ELEMS(invalid_versions); i++) {
        struct imx_ver v;
        memset(&v, 0x5a, sizeof(v));
        if (imx_ver_parse(invalid_versions[i], &v) != -1) {
            fail_msg("'%s': accepted as %d.%d.%d...", invalid_versions[i], (int)v.key[0],
                     (int)v.key[1], (int)v.key[2]);
        }
        if (memcmp(&v, &zero, sizeof(v)) != 0) {
            fail_msg("'%s': out not zeroed on failure", invalid_versions[i]);
        }
    }
    struct imx_ver v;
    assert_int_equal(imx_ver_parse(NULL, &v), -1);
}

struct order_case {
    const char *a;
    const char *b;
    int want; /* sign of imx_ver_cmp(a, b) */
};

static const struct order_case order_cases[] = {
    { "580.95.05", "580.105.08", -1 },
    { "580.65.06", "580.95.05", -1 },
    { "575.57.08", "580.65.06", -1 },
    { "450.80.02", "525.60.13", -1 },
    { "535.104.05", "535.183.01", -1 },
    { "580.65.06", "580.65.6", 0 },
    { "590.44.01", "580.105.08", 1 },
    { "12.4", "12.4.0", 0 },
    { "12.4", "12.4.0.0.0.0", 0 },
    { "12.4.1", "12.4", 1 },
    { "13.0", "12.9.1", 1 },
    { "11.8.0", "12.2.2", -1 },
    { "9.10.2", "9.1.0.70", 1 },
    { "8.9.7.29", "9.1.0.70", -1 },
    { "2.5.1+cu124", "2.5.1", 0 },
    { "2.5.1+cu124", "2.5.1+cu118", 0 },
    { "2.9.0", "2.21.0", -1 },
    { "1.16.1", "1.16.2", -1 },
    { "1.17.8", "1.16.2", 1 },
    { "v1.17.0", "1.17.0", 0 },
    { "6.8.0-1015-aws", "6.8.0-1015-gcp", 0 },
    { "6.8.0-1015-aws", "6.8.0-1020-aws", -1 },
    { "5.15.0-1066-azure", "6.8.0-1015-aws", -1 },
    { "6.17.0-1020-aws", "6.8.0-1015-aws", 1 },
    { "12.4.1-1ubuntu2", "12.4.1", 1 },
    { "22.04", "24.04", -1 },
    { "3.10.12", "3.12.3", -1 },
    { "999999999", "1.999999999", 1 },
    /* pre-releases sort before their release and after the release before it (issue 30) */
    { "1.3.0rc14", "1.3.0", -1 },
    { "1.3.0rc14", "1.3.0rc2", 1 },
    { "1.3.0rc16", "1.3.0rc15", 1 },
    { "1.3.0rc14", "1.2.1", 1 },
    { "1.3.0rc14", "1.2.999999999", 1 },
    { "1.3.0rc14", "1.3.1", -1 },
    { "1.3.0rc1", "1.3rc1", 0 },
    { "v1.3.0-rc.1", "1.3.0rc1", 0 },
    { "13.0rc1", "12.9.1", 1 },
    { "13.0rc1", "13.0", -1 },
    { "1.0.dev1", "1.0a1", -1 },
    { "1.0a1", "1.0a2", -1 },
    { "1.0a9", "1.0b1", -1 },
    { "1.0b9", "1.0rc1", -1 },
    { "1.0rc9", "1.0", -1 },
    { "1.0rc1", "1.0.post1", -1 },
    { "1.0rc1", "1.0.0.1", -1 },
    { "1.0.1rc1", "1.0.0.5", 1 },
    { "1rc1", "0.9", 1 },
    { "1rc1", "1", -1 },
    { "1.0a", "1.0", 0 },
    { "2.6.0a0+ecf3bae40a", "2.6.0", 0 },
};

static int sign(int x)
{
    return (x > 0) - (x < 0);
}

static void parse_or_fail(const char *s, struct imx_ver *v)
{
    if (imx_ver_parse(s, v) != 0) {
        fail_msg("'%s': rejected", s);
    }
}

static void test_ordering(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(order_cases); i++) {
        const struct order_case *tc = &order_cases[i];
        struct imx_ver a;
        struct imx_ver b;
        parse_or_fail(tc->a, &a);
        parse_or_fail(tc->b, &b);
        int ab = sign(imx_ver_cmp(&a, &b));
        int ba = sign(imx_ver_cmp(&b, &a));
        if (ab != tc->want || ba != -tc->want) {
            fail_msg("cmp('%s', '%s') = %d and reversed %d, want %d", tc->a, tc->b, ab, ba,
                     tc->want);
        }
    }
}

static void test_branch_and_key_text(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int32_t branch;
        const char *key;
    } cases[] = {
        { "580.105.08", 580, "{580,105,8,0,0,0}" },
        { "450.80.02", 450, "{450,80,2,0,0,0}" },
        { "v590.44.01", 590, "{590,44,1,0,0,0}" },
        { "12.4", 12, "{12,4,0,0,0,0}" },
        { "6.17.0-1020-aws", 6, "{6,17,0,1020,0,0}" },
        { "999999999.1.2.3.4.999999999", 999999999, "{999999999,1,2,3,4,999999999}" },
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct imx_ver v;
        char buf[IMX_VER_KEY_TEXT_SIZE];
        parse_or_fail(cases[i].text, &v);
        assert_int_equal(imx_ver_branch(&v), cases[i].branch);
        assert_int_equal(imx_ver_format_key(&v, buf, sizeof(buf)), 0);
        assert_string_equal(buf, cases[i].key);
    }

    struct imx_ver v;
    char small[8];
    parse_or_fail("580.105.08", &v);
    assert_int_equal(imx_ver_format_key(&v, small, sizeof(small)), -1);
    assert_string_equal(small, "");
}

struct match_case {
    const char *constraint;
    const char *version;
    bool want;
};

static const struct match_case match_cases[] = {
    /* pre-releases (issue 30): before their release, after the one before */
    { "<1.3.0rc16", "1.3.0rc14", true },
    { "<1.3.0rc16", "1.3.0rc16", false },
    { "<1.3.0rc16", "1.3.0", false },
    { "<1.3.0rc16", "1.2.1", true },
    { "<=1.3.0rc16", "1.3.0rc16", true },
    { "<1.3.0", "1.3.0rc16", true },
    { ">=1.3.0", "1.3.0rc16", false },
    { "1.3.*", "1.3.0rc16", false },
    { "<1.3", "1.3rc1", true },
    /* bare version: prefix match */
    { "580.95.05", "580.95.05", true },
    { "580.95.05", "580.105.08", false },
    { "580.95.05", "580.95.04", false },
    { "580", "580.105.08", true },
    { "580", "580", true },
    { "580", "581.0", false },
    { "580", "579.99.99", false },
    { "12.4", "12.4.1", true },
    { "12.4", "12.5.0", false },
    { "12.4", "12.40", false },
    { "2.5.1+cu124", "2.5.1+cu121", true },
    { "2.5.1+cu124", "2.5.2", false },
    /* wildcards */
    { "12.4.*", "12.4.0", true },
    { "12.4.*", "12.4", true },
    { "12.4.*", "12.4.99", true },
    { "12.4.*", "12.4.1-1ubuntu2", true },
    { "12.4.*", "12.5", false },
    { "12.4.*", "12.3.99", false },
    { "12.*", "12.0", true },
    { "12.*", "12.9.1", true },
    { "12.*", "13.0", false },
    { "12.*", "11.8.0", false },
    { "v1.17.*", "1.17.8", true },
    { "v1.17.*", "1.18.0", false },
    { "1.999999999.*", "1.999999999.7", true },
    { "1.999999999.*", "2.0", false },
    { "999999999.999999999", "999999999.999999999.3", true },
    { "*", "0.0.0", true },
    { "*", "999999999", true },
    { " * ", "580.105.08", true },
    /* exact */
    { "=12.4", "12.4.0", true },
    { "=12.4", "12.4", true },
    { "=12.4", "12.4.1", false },
    { "=12.4.1", "12.4.1", true },
    { "=12.4.1", "12.4.1+local", true },
    { "=12.4.1", "12.4.10", false },
    { "=12.4.1", "12.4.0", false },
    /* comparisons at their boundaries */
    { "<580.95.05", "580.105.08", false },
    { "<580.95.05", "580.95.05", false },
    { "<580.95.05", "580.95.04", true },
    { "<580.95.05", "580.82.07", true },
    { ">=580,<580.95.05", "580", true },
    { ">=580,<580.95.05", "580.65.06", true },
    { ">=580,<580.95.05", "580.95.05", false },
    { ">=580,<580.95.05", "580.105.08", false },
    { ">=580,<580.95.05", "579.99", false },
    { "<=1.16.1", "1.16.1", true },
    { "<=1.16.1", "1.16.0", true },
    { "<=1.16.1", "1.16.2", false },
    { "<=1.16.1", "1.17.8", false },
    { ">=12.4", "12.4.0", true },
    { ">=12.4", "12.3.99", false },
    { ">=12.4", "13.0", true },
    { ">12.4", "12.4.0", false },
    { ">12.4", "12.4.0.0.0.1", true },
    { ">12.4", "12.4.1", true },
    { "<13", "12.99.99", true },
    { "<13", "13.0", false },
    { "<13", "13.0.1", false },
    { "<=13", "13.0", true },
    { "<=13", "13.0.1", false },
    { ">=2.5.1+cu124", "2.5.1", true },
    { ">=2.5.1+cu124", "2.5.0", false },
    { ">= 12.4 , < 13", "12.8", true },
    { ">= 12.4 , < 13", "13.0", false },
    { "  >=6.8.0-1015-aws,<6.8.0-1020", "6.8.0-1018-aws", true },
    { "  >=6.8.0-1015-aws,<6.8.0-1020", "6.8.0-1015-gcp", true },
    { "  >=6.8.0-1015-aws,<6.8.0-1020", "6.8.0-1020-aws", false },
    { "  >=6.8.0-1015-aws,<6.8.0-1020", "6.8.0", false },
    /* tilde */
    { "~580", "579.99.99", false },
    { "~580", "580", true },
    { "~580", "580.0.0", true },
    { "~580", "580.105.08", true },
    { "~580", "581.0", false },
    { "~580.95", "580.94.99", false },
    { "~580.95", "580.95.0", true },
    { "~580.95", "580.95.99", true },
    { "~580.95", "580.96", false },
    { "~580.95", "580.105.08", false },
    { "~580.95.05", "580.95.04", false },
    { "~580.95.05", "580.95.05", true },
    { "~580.95.05", "580.95.99", true },
    { "~580.95.05", "580.96.0", false },
    { "~12.4.1", "12.4.0", false },
    { "~12.4.1", "12.4.9", true },
    { "~12.4.1", "12.5", false },
    { "~ 580", "580.65.06", true },
    { "~999999999", "999999999.5", true },
    /* several terms, including ones that leave nothing */
    { "~580, 580.95.*", "580.95.05", true },
    { "~580, 580.95.*", "580.105.08", false },
    { ">=13,<12", "12.5", false },
    { ">=13,<12", "13.0", false },
    { "=12.4, 12.5", "12.4", false },
    { "1,2,3,4,5,6,7,8", "1", false },
    /* strings that are not versions never match */
    { "*", "abc", false },
    { "*", "", false },
    { ">=0", "R580", false },
};

static void constraint_or_fail(const char *s, struct imx_constraint *c)
{
    char err[IMX_CONSTRAINT_ERR_SIZE];
    if (imx_constraint_parse(s, c, err, sizeof(err)) != 0) {
        fail_msg("constraint '%s' rejected: %s", s, err);
    }
    if (err[0] != '\0') {
        fail_msg("constraint '%s' accepted but err is '%s'", s, err);
    }
}

static void test_constraint_matches(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(match_cases); i++) {
        const struct match_case *tc = &match_cases[i];
        struct imx_constraint c;
        constraint_or_fail(tc->constraint, &c);
        bool got = imx_constraint_matches_str(&c, tc->version);
        if (got != tc->want) {
            fail_msg("'%s' matches '%s': got %d, want %d", tc->constraint, tc->version, got,
                     tc->want);
        }
        struct imx_ver v;
        if (imx_ver_parse(tc->version, &v) == 0 && imx_constraint_matches(&c, &v) != got) {
            fail_msg("'%s' vs '%s': matches and matches_str disagree", tc->constraint, tc->version);
        }
    }
}

struct format_case {
    const char *constraint;
    const char *formatted; /* imx_constraint_format() */
    const char *text;      /* the normalized terms kept in c.text */
};

static const struct format_case format_cases[] = {
    { "580", ">=580, <581", "580" },
    { "~580", ">=580, <581", "~580" },
    { "  ~ 580 ", ">=580, <581", "~580" },
    { "~580.95.05", ">=580.95.5, <580.96", "~580.95.05" },
    { "~1.2.3", ">=1.2.3, <1.3", "~1.2.3" },
    { "~1", ">=1, <2", "~1" },
    { "<1.3.0rc16", "<1.3rc16", "<1.3.0rc16" },
    { ">=1.2, <=v1.3.0-rc.2", ">=1.2, <=1.3rc2", ">=1.2, <=v1.3.0-rc.2" },
    { "=2.1.0.dev3", "=2.1dev3", "=2.1.0.dev3" },
    { ">=1.0a1", ">=1.0a1", ">=1.0a1" },
    { "12.4.*", ">=12.4, <12.5", "12.4.*" },
    { "12.4", ">=12.4, <12.5", "12.4" },
    { "=12.4", "=12.4", "=12.4" },
    { ">=12.4.1, <=12.4.1", "=12.4.1", ">=12.4.1, <=12.4.1" },
    { "*", "*", "*" },
    { "*, 12.*", ">=12, <13", "*, 12.*" },
    { ">= 12.4 ,  <13", ">=12.4, <13", ">=12.4, <13" },
    { ">12", ">12", ">12" },
    { ">=1, <=2", ">=1, <=2", ">=1, <=2" },
    { ">1.5, <=1.5.0.0.0.1", ">1.5, <=1.5.0.0.0.1", ">1.5, <=1.5.0.0.0.1" },
    { "<=13.0.1", "<=13.0.1", "<=13.0.1" },
    { ">=13,<12", ">=13, <12", ">=13, <12" },
    { ">=1, >=2, <5, <4", ">=2, <4", ">=1, >=2, <5, <4" },
    { ">1, >=1", ">1", ">1, >=1" },
    { ">=1, >1", ">1", ">=1, >1" },
    { "<5, <=5", "<5", "<5, <=5" },
    { "<=5, <5", "<5", "<=5, <5" },
    { "~999999999", ">=999999999", "~999999999" },
    { "1.999999999.*", ">=1.999999999, <2", "1.999999999.*" },
    { "0.0.0", ">=0, <0.0.1", "0.0.0" },
    { ">=2.5.1+cu124", ">=2.5.1", ">=2.5.1+cu124" },
    { "1.2.3.4.5.6", ">=1.2.3.4.5.6, <1.2.3.4.5.7", "1.2.3.4.5.6" },
};

static void test_constraint_format(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(format_cases); i++) {
        const struct format_case *tc = &format_cases[i];
        struct imx_constraint c;
        struct imx_constraint again;
        char buf[IMX_CONSTRAINT_FORMAT_SIZE];
        constraint_or_fail(tc->constraint, &c);
        assert_int_equal(imx_constraint_format(&c, buf, sizeof(buf)), 0);
        if (strcmp(buf, tc->formatted) != 0) {
            fail_msg("format('%s') = '%s', want '%s'", tc->constraint, buf, tc->formatted);
        }
        if (strcmp(c.text, tc->text) != 0) {
            fail_msg("text of '%s' = '%s', want '%s'", tc->constraint, c.text, tc->text);
        }
        constraint_or_fail(buf, &again);
        if (memcmp(&again.lo, &c.lo, sizeof(c.lo)) != 0 ||
            memcmp(&again.hi, &c.hi, sizeof(c.hi)) != 0) {
            fail_msg("'%s' formats as '%s', which reparses to another interval", tc->constraint,
                     buf);
        }
    }

    struct imx_constraint c;
    char small[6];
    constraint_or_fail("~580", &c);
    assert_int_equal(imx_constraint_format(&c, small, sizeof(small)), -1);
    assert_string_equal(small, "");
}

static void test_constraint_sql_bounds(void **state)
{
    (void)state;
    static const struct {
        const char *constraint;
        const char *lo;
        bool lo_incl;
        const char *hi;
        bool hi_incl;
    } cases[] = {
        { "580", "{580,0,0,0,0,0}", true, "{581,0,0,0,0,0}", false },
        { "~580.95.05", "{580,95,5,0,0,0}", true, "{580,96,0,0,0,0}", false },
        { "<=1.16.1", "", false, "{1,16,1,0,0,0}", true },
        { ">12.4.1", "{12,4,1,0,0,0}", false, "", false },
        { "=9.1.0.70", "{9,1,0,70,0,0}", true, "{9,1,0,70,0,0}", true },
        { "*", "", false, "", false },
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct imx_constraint c;
        char lo[IMX_VER_KEY_TEXT_SIZE];
        char hi[IMX_VER_KEY_TEXT_SIZE];
        bool lo_incl = !cases[i].lo_incl;
        bool hi_incl = !cases[i].hi_incl;
        constraint_or_fail(cases[i].constraint, &c);
        imx_constraint_sql_bounds(&c, lo, &lo_incl, hi, &hi_incl);
        if (strcmp(lo, cases[i].lo) != 0 || lo_incl != cases[i].lo_incl ||
            strcmp(hi, cases[i].hi) != 0 || hi_incl != cases[i].hi_incl) {
            fail_msg("sql bounds of '%s': '%s' %d, '%s' %d", cases[i].constraint, lo, lo_incl, hi,
                     hi_incl);
        }
    }
}

static void test_constraint_is_empty(void **state)
{
    (void)state;
    static const struct {
        const char *constraint;
        bool empty;
    } cases[] = {
        { ">=13,<12", true },
        { ">=12,<12", true },
        { ">12,<=12", true },
        { ">=12,<=12", false },
        { ">1,<1.0.0.0.0.1", true },
        { ">1,<1.0.0.0.0.2", false },
        /* 2rc1 and 2.0rc1 lie between (issue 30) */
        { ">1.999999999.999999999.999999999.999999999.999999999, <2", false },
        { ">=1.999999999.999999999.999999999.999999999.999999999, <2", false },
        { ">1.0.0.0.0.1, <1.0.0.0.0.2", true },
        { ">=1.3rc1, <1.3", false },
        { ">1.3rc9, <1.3", false },
        { ">1.3, <1.3.0rc9", true },
        { ">=1.3.0rc9, <=1.3rc9", false },
        { ">1.3.0rc9, <=1.3rc9", true },
        { "<0", false }, /* 0rc1 */
        { ">=0.dev0, <0.dev0", true },
        { "<=0", false },
        { ">999999999.999999999.999999999.999999999.999999999.999999999", true },
        { ">=999999999.999999999.999999999.999999999.999999999.999999999", false },
        { "=12.4, 12.5", true },
        { "~580, <580", true },
        { "580, 580.95", false },
        { "1,2,3,4,5,6,7,8", true },
        { "*", false },
        { ">=0", false },
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct imx_constraint c;
        constraint_or_fail(cases[i].constraint, &c);
        if (imx_constraint_is_empty(&c) != cases[i].empty) {
            fail_msg("is_empty('%s') = %d, want %d", cases[i].constraint, !cases[i].empty,
                     cases[i].empty);
        }
    }
}

struct bad_constraint {
    const char *constraint;
    const char *err_contains;
};

static const struct bad_constraint bad_constraints[] = {
    { "", "empty constraint" },
    { "   ", "empty constraint" },
    { ">=12.x", "'>=12.x' is not a version" },
    { "12.x", "'12.x' is not a version" },
    { "~580.X", "'~580.X' is not a version" },
    { "!=12.4", "'!=' is not supported" },
    { ">=12.4, !=12.4.1", "'!=' is not supported" },
    { ">=", "'>=' is not a version" },
    { "~", "'~' is not a version" },
    { "12.4,", "empty term" },
    { ",12.4", "empty term" },
    { "12.4,,13", "empty term" },
    { "12.4, ,13", "empty term" },
    { ">=12.*", "wildcard cannot follow an operator" },
    { "=12.4.*", "wildcard cannot follow an operator" },
    { "~*", "wildcard cannot follow an operator" },
    { "12.4-rc.*", "wildcard must follow plain numbers" },
    { "12..*", "wildcard must follow plain numbers" },
    { ".*", "'.*' is not a version" },
    { "12*", "'12*' is not a version" },
    { "**", "'**' is not a version" },
    { "R580", "'R580' is not a version" },
    { "==12.4", "'==12.4' is not a version" },
    { "=>12", "'=>12' is not a version" },
    { "~>1.2", "'~>1.2' is not a version" },
    { "^1.2", "'^1.2' is not a version" },
    { "1.2.3.4.5.6.7", "is not a version" },
    { ">=1234567890", "is not a version" },
    { "12.4 13", "'12.4 13' is not a version" },
    { ">=1.2\x01", "'>=1.2?' is not a version" },
    { "1,2,3,4,5,6,7,8,9", "more than 8 terms" },
};

static void test_constraint_invalid(void **state)
{
    (void)state;
    static const struct imx_constraint zero;
    for (size_t i = 0; i < N_ELEMS(bad_constraints); i++) {
        const struct bad_constraint *tc = &bad_constraints[i];
        struct imx_constraint c;
        char err[IMX_CONSTRAINT_ERR_SIZE] = "";
        memset(&c, 0x5a, sizeof(c));
        if (imx_constraint_parse(tc->constraint, &c, err, sizeof(err)) != -1) {
            fail_msg("constraint '%s' accepted", tc->constraint);
        }
        if (strstr(err, tc->err_contains) == NULL) {
            fail_msg("constraint '%s': error '%s' lacks '%s'", tc->constraint, err,
                     tc->err_contains);
        }
        if (memcmp(&c, &zero, sizeof(c)) != 0) {
            fail_msg("constraint '%s': out not zeroed on failure", tc->constraint);
        }
    }
}

static void test_constraint_limits(void **state)
{
    (void)state;
    struct imx_constraint c;
    char err[IMX_CONSTRAINT_ERR_SIZE];
    char text[IMX_CONSTRAINT_TEXT_MAX + 2];

    /* exactly 256 bytes is accepted, 257 is not */
    memset(text, ' ', sizeof(text));
    memcpy(text, ">=1", 3);
    text[IMX_CONSTRAINT_TEXT_MAX] = '\0';
    assert_int_equal(imx_constraint_parse(text, &c, err, sizeof(err)), 0);
    assert_string_equal(c.text, ">=1");
    text[IMX_CONSTRAINT_TEXT_MAX] = ' ';
    text[IMX_CONSTRAINT_TEXT_MAX + 1] = '\0';
    assert_int_equal(imx_constraint_parse(text, &c, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "longer than 256"));

    /* 8 terms of 31 bytes joined by bare commas: normalizing adds a space per comma */
    char *p = text;
    for (int t = 0; t < IMX_CONSTRAINT_MAX_TERMS; t++) {
        if (t > 0) {
            *p++ = ',';
        }
        memcpy(p, ">=1aaaaaaaaaaaaaaaaaaaaaaaaaaaa", 31);
        p += 31;
    }
    *p = '\0';
    assert_int_equal(strlen(text), 255);
    assert_int_equal(imx_constraint_parse(text, &c, err, sizeof(err)), 0);
    assert_int_equal(strlen(c.text), 8 * 31 + 7 * 2);

    /* a short error buffer gets a truncated, terminated message; no buffer is fine too */
    char tiny[8];
    assert_int_equal(imx_constraint_parse(">=12.x", &c, tiny, sizeof(tiny)), -1);
    assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
    assert_int_equal(imx_constraint_parse(">=12.x", &c, NULL, 0), -1);
    assert_int_equal(imx_constraint_parse(NULL, &c, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "empty"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_valid),
        cmocka_unit_test(test_parse_invalid),
        cmocka_unit_test(test_ordering),
        cmocka_unit_test(test_branch_and_key_text),
        cmocka_unit_test(test_constraint_matches),
        cmocka_unit_test(test_constraint_format),
        cmocka_unit_test(test_constraint_sql_bounds),
        cmocka_unit_test(test_constraint_is_empty),
        cmocka_unit_test(test_constraint_invalid),
        cmocka_unit_test(test_constraint_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
