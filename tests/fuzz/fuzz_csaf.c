/* Fuzz target for server/domain/csaf.c: any input as a product version name, alone and inside a
 * small CSAF document, with the translator's invariants checked. Built with -DIMX_LIBFUZZER for
 * libFuzzer, otherwise a self-contained deterministic run. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "domain/csaf.h"
#include "domain/version.h"

#define FUZZ_INPUT_MAX 512

/* A parsed form's versions are versions (a release candidate "1.3.0rc16" at most as a suffix), a
 * span is ordered, a list names its lowest as hi, a commit form holds a commit id alone, and the
 * result does not depend on letter case. */
static void check_form(const char *s)
{
    struct imx_csaf_version_form f, g;
    int rc = imx_csaf_parse_form(s, "CUDA Toolkit", &f);
    CHECK(rc == 0 || rc == -1);
    if (rc != 0)
        return;
    struct imx_ver lo, hi;
    if (f.form == IMX_CSAF_COMMIT) {
        /* a commit id: 7 to 40 hex digits, no versions beside it */
        size_t c = strlen(f.commit);
        CHECK(c >= 7 && c <= IMX_CSAF_COMMIT_MAX && strspn(f.commit, "0123456789abcdef") == c &&
              f.hi[0] == '\0' && f.lo[0] == '\0' && f.nlist == 0);
    } else if (f.form != IMX_CSAF_ALL) {
        CHECK(imx_ver_parse(f.hi, &hi) == 0 &&
              (imx_ver_suffix(&hi)[0] == 0 || strncmp(imx_ver_suffix(&hi), "rc", 2) == 0));
    }
    if (f.form == IMX_CSAF_SPAN)
        CHECK(imx_ver_parse(f.lo, &lo) == 0 && imx_ver_cmp(&lo, &hi) <= 0);
    else if (f.form != IMX_CSAF_BELOW)
        CHECK(f.lo[0] == '\0');
    CHECK(f.form == IMX_CSAF_LIST ? f.nlist >= 2 : (f.nlist == 0 || f.form == IMX_CSAF_BELOW));
    for (int i = 0; i < f.nlist; i++) {
        struct imx_ver v;
        CHECK(imx_ver_parse(f.list[i], &v) == 0 && imx_ver_cmp(&hi, &v) <= 0);
    }
    char upper[FUZZ_INPUT_MAX + 1];
    size_t n = strlen(s);
    for (size_t i = 0; i <= n; i++)
        upper[i] = (s[i] >= 'a' && s[i] <= 'z') ? (char)(s[i] - 32) : s[i];
    CHECK(imx_csaf_parse_form(upper, "CUDA Toolkit", &g) == 0 && g.form == f.form &&
          strcmp(g.lo, f.lo) == 0 && strcmp(g.hi, f.hi) == 0 &&
          (f.form != IMX_CSAF_COMMIT ||
           (g.commit_role == f.commit_role && strcmp(g.commit, f.commit) == 0)));
}

/* The translator never refuses a bulletin for its products: it gives an advisory whose ranges
 * name the mapped component, parse, are not empty and do not hold their own fix, and whose
 * products left out say why. */
static void check_document(const char *s)
{
    json_t *doc = json_pack(
        "{s:{s:s, s:s, s:{s:s}, s:{s:s}, s:{s:s, s:s}}, s:{s:[{s:s, s:s, s:[{s:s, s:s, s:["
        "{s:s, s:s, s:{s:s, s:s}}, {s:s, s:s, s:{s:s, s:s}}]}]}]}, s:[{s:s, s:{s:[s], s:[s]}}]}",
        "document", "csaf_version", "2.0", "title", "t", "publisher", "name", "NVIDIA",
        "aggregate_severity", "text", "HIGH", "tracking", "id", "1", "initial_release_date",
        "2026-01-01T00:00:00Z", "product_tree", "branches", "category", "vendor", "name", "NVIDIA",
        "branches", "category", "architecture", "name", "Linux(R580)", "branches", "category",
        "product_version", "name", "Tesla", "product", "name", s, "product_id", "a", "category",
        "product_version", "name", "Tesla", "product", "name", "580.126.09", "product_id", "f",
        "vulnerabilities", "cve", "CVE-2026-0001", "product_status", "known_affected", "a", "fixed",
        "f");
    if (!doc)
        return; /* not UTF-8: jansson refuses the string */
    static json_t *map;
    /* with release pairs (ref_version_alias), so a version in the "own" numbering (majors 1 and
     * 2 here) is read through them as Triton's are, and commits (ref_commit_release), one in a
     * release and one in none, so a version named by commit is read through them */
    if (!map)
        map = json_pack(
            "[{s:s, s:s, s:s, s:s, s:s, s:[[s,s],[s,s],[s,s]], s:[[s,s,s,s],[s,n,s,s]]}]", "match",
            "name:tesla", "platform", "linux", "component", "nvidia-driver", "branched", "true",
            "notes", "driver", "aliases", "2.40.0", "23.11", "2.41.0", "23.12", "1.0.0", "19.03",
            "commits", "9e95f50fcf06abb7cbd5043ae16f86653ca1ee5b", "580.126.09", "2026-02-15",
            "CONFIRMED", "5dd11f4a331373d7c226dae4611139bb4e43d213", "2026-03-13", "CONFIRMED");
    json_t *errors = json_array();
    json_t *out = imx_csaf_to_advisory(doc, map, errors, NULL);
    CHECK(out != NULL && json_array_size(errors) == 0);
    CHECK(json_array_size(json_object_get(out, "affected")) +
              json_array_size(json_object_get(out, "unmapped")) >=
          1);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(out, "affected"), i, e)
    {
        CHECK(strcmp(json_string_value(json_object_get(e, "component")), "nvidia-driver") == 0);
        struct imx_constraint c;
        CHECK(imx_constraint_parse(json_string_value(json_object_get(e, "range")), &c, NULL, 0) ==
              0);
        CHECK(!imx_constraint_is_empty(&c));
        const char *fx = json_string_value(json_object_get(e, "fixed"));
        struct imx_ver v;
        CHECK(!fx || (imx_ver_parse(fx, &v) == 0 && !imx_constraint_matches(&c, &v)));
    }
    json_decref(out);
    json_decref(errors);
    json_decref(doc);
}

/* The bound of "s and its builds" (any input as X, fixed in 580.126.09) ends a range that holds
 * X, holds no fix, and lies below next(X) (it is no wider than X's last number allows). */
static void check_builds_bound(const char *s)
{
    char bound[IMX_VER_TEXT_MAX + 8], range[2 * IMX_VER_TEXT_MAX + 16];
    struct imx_ver x, b, f;
    if (imx_csaf_builds_bound(s, "580.126.09", bound, sizeof bound) != 0)
        return;
    CHECK(imx_ver_parse(s, &x) == 0 && imx_ver_parse(bound, &b) == 0 && imx_ver_cmp(&x, &b) < 0);
    snprintf(range, sizeof range, ">=%s, <%s", s, bound);
    struct imx_constraint c;
    CHECK(imx_constraint_parse(range, &c, NULL, 0) == 0 && !imx_constraint_is_empty(&c));
    CHECK(imx_constraint_matches(&c, &x));
    CHECK(imx_ver_parse("580.126.09", &f) == 0 &&
          (imx_ver_cmp(&f, &x) <= 0 || imx_ver_cmp(&b, &f) <= 0));
    char nofix[IMX_VER_TEXT_MAX + 8];
    struct imx_ver n;
    CHECK(imx_csaf_builds_bound(s, NULL, nofix, sizeof nofix) == 0 &&
          imx_ver_parse(nofix, &n) == 0 && imx_ver_cmp(&b, &n) <= 0 && imx_ver_cmp(&x, &n) < 0);
}

int imx_fuzz_one(const uint8_t *data, size_t size)
{
    char s[FUZZ_INPUT_MAX + 1];
    size_t n = size < FUZZ_INPUT_MAX ? size : FUZZ_INPUT_MAX;
    memcpy(s, data, n);
    s[n] = '\0';
    check_form(s);
    check_document(s);
    check_builds_bound(s);
    return 0;
}

#ifndef IMX_LIBFUZZER

static const char *const seeds[] = {
    "All driver versions prior to 580.126.09",
    "All versions prior to 2.40", /* a version in the own numbering, read through the pairs */
    "2.40.1 to 2.40.5",           /* no release between them: no range */
    "All versions up to and including 2.99",
    "All versions up to and including 1.19.0",
    "All versions prior to CUDA Toolkit 13.1",
    "0.0  to 4.5.2",
    "from 2.18.1 through 2.21.5",
    "1.16.1 and earlier",
    "v1.17.3 or earlier",
    "580.126.09",
    "CUDA Toolkit 13.1",
    "All versions",
    "580.105.08(All versions prior to and including vGPU software 19.3)",
    "All versions prior to CUDA Toolkit 12.9 Update 1",
    "0.0 to v1.3.0 rc16",
    "0.0-26.05",
    "v0 - v10.16.1",
    "All versions prior to r26.02",
    "Main branch prior to 0.5.0 release and 0.4.1",
    "Isaac Sim v2.3.0",
    "v0.1.x - v0.9.x",
    "All versions prior to 23.10-5.1.4.0",
    "510.73.06\t(All versions prior to and including vGPU 14.1)",
    "9.0-9.2",
    "All versions prior to 0.13.1 and 0.12.3",
    "2.3.4 and 2.3.5",
    "All versions prior to JP5.x: 35.6.2",
    "35.6.3 and newer",
    "All versions up to and including 1.17.7 (CDI mode only for versions prior to 1.17.5)",
    "All 32.x versions prior to 32.7.1",
    "12.5U1",
    "R580 U7",
    "prior to 575.57.08",
    "between 1.0 and 0.9",
    "<= 1.2",
    "< 1.2",
    /* the grammar of the bulletins to come (tests/unit/test_csaf.c's table) */
    "25.10.6 or newer",
    "2.1 and below",
    "2.1 or older",
    "2.2 or higher",
    ">= 2.2",
    "All versions less than 2.2",
    "All versions up to but not including 2.2",
    "All versions prior to 24.11.3 LTS",
    "6.15.x LTS prior to 6.15.6-4 LTS",
    "All BMC firmware versions prior to 00.19.07",
    "All driver versions prior to 582.53. Only GPUs based on Pascal are affected.",
    "All drivers versions prior to 474.44 for support of GeForce Kepler desktop",
    "All versions prior to CUDA Toolkit 12.8 U1",
    "v1.3.0-rc16",
    "0.0 to 1.3.0.rc2",
    "0.0 \xe2\x80\x93 2.0",
    "All\xc2\xa0versions prior to 2.0",
    "R580 Update 7",
    "<2.1",
    "2.3.x and earlier",
    "1.17.x",
    "nvJPEG2000 v0.7.x",
    "All versions prior to 2.0 only on Linux",
    "From v0.10 up to and including v0.13.2",
    "38.2",
    /* exact and inclusive bounds: the builds of X (imx_csaf_builds_bound) */
    "0.8.0",
    "26.03",
    "1.3.0rc14",
    "2.6.0+cu124",
    "1.2.3.4.5",
    "580.126.08",
    "580.126", /* fixed in 580.126.09, before 580.127 */
    "999999999",
    "",
};

static const char alphabet[] =
    "0123456789. vVtoprialndugchTrcxU:<=>-(),LTSbwfhsq\xe2\x80\x93\xc2\xa0";

static void mutate_once(uint64_t *rng, char *buf, size_t *len, size_t cap)
{
    size_t nseeds = sizeof seeds / sizeof seeds[0];
    switch (imx_fuzz_pick(rng, 6)) {
    case 0: /* insert a character */
        if (*len + 1 < cap) {
            size_t at = imx_fuzz_pick(rng, *len + 1);
            memmove(buf + at + 1, buf + at, *len - at + 1);
            buf[at] = alphabet[imx_fuzz_pick(rng, sizeof alphabet - 1)];
            (*len)++;
        }
        break;
    case 1: /* delete one */
        if (*len > 0) {
            size_t at = imx_fuzz_pick(rng, *len);
            memmove(buf + at, buf + at + 1, *len - at);
            (*len)--;
        }
        break;
    case 2: /* replace one */
        if (*len > 0)
            buf[imx_fuzz_pick(rng, *len)] = alphabet[imx_fuzz_pick(rng, sizeof alphabet - 1)];
        break;
    case 3: { /* append another seed */
        const char *seed = seeds[imx_fuzz_pick(rng, nseeds)];
        size_t sl = strlen(seed);
        if (*len + sl + 1 < cap) {
            buf[(*len)++] = ' ';
            memcpy(buf + *len, seed, sl + 1);
            *len += sl;
        }
        break;
    }
    case 4: /* cut */
        *len = imx_fuzz_pick(rng, *len + 1);
        buf[*len] = '\0';
        break;
    default: /* a random byte, sometimes outside ASCII */
        if (*len > 0)
            buf[imx_fuzz_pick(rng, *len)] = (char)(1 + imx_fuzz_pick(rng, 255));
        break;
    }
}

/* One to four edits; the buffer holds cap + 1 bytes. */
static void mutate(uint64_t *rng, unsigned char *buf, size_t *len, size_t cap)
{
    for (size_t k = 1 + imx_fuzz_pick(rng, 4); k > 0; k--)
        mutate_once(rng, (char *)buf, len, cap + 1);
}

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),      .cap = FUZZ_INPUT_MAX, .iterations = 300000,
    .rng = 0x2545f4914f6cdd1du, .mutate = mutate,
};

#endif /* IMX_LIBFUZZER */
