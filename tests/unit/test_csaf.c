/* CSAF 2.0 documents mapped to advisories: the version-name forms as a table of real spellings
 * and malformed ones, the product scope, and NVIDIA's two shared bulletins end to end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/csaf.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static void version_names_parse_by_form(void **state)
{
    (void)state;
    static const struct {
        const char *text, *product;
        int rc;
        enum imx_csaf_form form;
        const char *lo, *hi;
    } cases[] = {
        /* NVIDIA's spellings, from bulletins 5747, 5850 and older ones */
        { "All driver versions prior to 580.126.09", "Tesla", 0, IMX_CSAF_BELOW, "", "580.126.09" },
        { "All versions prior to 1.17.8", NULL, 0, IMX_CSAF_BELOW, "", "1.17.8" },
        { "All versions prior to CUDA Toolkit 13.1", "CUDA Toolkit", 0, IMX_CSAF_BELOW, "",
          "13.1" },
        { "all versions PRIOR TO 2.4.1.", NULL, 0, IMX_CSAF_BELOW, "", "2.4.1" },
        { "Versions before 4.1.1", NULL, 0, IMX_CSAF_BELOW, "", "4.1.1" },
        { "All versions earlier than v1.17.4", NULL, 0, IMX_CSAF_BELOW, "", "1.17.4" },
        { "All versions up to and including 1.19.0", NULL, 0, IMX_CSAF_UPTO, "", "1.19.0" },
        { "All versions up to  and including 26.3.1", "NVIDIA GPU Operator", 0, IMX_CSAF_UPTO, "",
          "26.3.1" },
        { "All driver versions prior to and including 535.274.02", "Tesla", 0, IMX_CSAF_UPTO, "",
          "535.274.02" },
        { "1.16.1 and earlier", NULL, 0, IMX_CSAF_UPTO, "", "1.16.1" },
        { "v1.17.3 or earlier", NULL, 0, IMX_CSAF_UPTO, "", "1.17.3" },
        { "0.0  to 4.5.2", "DCGM", 0, IMX_CSAF_SPAN, "0.0", "4.5.2" },
        { "2.18.1 to 2.21.5", "NCCL", 0, IMX_CSAF_SPAN, "2.18.1", "2.21.5" },
        { "From 3.1 through 3.3.5", NULL, 0, IMX_CSAF_SPAN, "3.1", "3.3.5" },
        { "from 3.1 to 3.3.5", NULL, 0, IMX_CSAF_SPAN, "3.1", "3.3.5" },
        { "Versions 3.1 through 3.3.5", NULL, 0, IMX_CSAF_SPAN, "3.1", "3.3.5" },
        { "580.126.09", "Tesla", 0, IMX_CSAF_EXACT, "", "580.126.09" },
        { "CUDA Toolkit 13.1", "CUDA Toolkit", 0, IMX_CSAF_EXACT, "", "13.1" },
        { "Version 1.19.1", NULL, 0, IMX_CSAF_EXACT, "", "1.19.1" },
        { "v1.17", NULL, 0, IMX_CSAF_EXACT, "", "1.17" },
        { "\t1.19.1 ", NULL, 0, IMX_CSAF_EXACT, "", "1.19.1" },
        { "All versions", NULL, 0, IMX_CSAF_ALL, "", "" },
        /* malformed or not understood: refused, never guessed */
        { "", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "latest", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "All driver versions prior to", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "prior to 580.126.09 and 590.48.01", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "R580 U7", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "580.105.08(All versions prior to and including vGPU software 19.3)", NULL, -1,
          IMX_CSAF_ALL, "", "" },
        { "590.48.01(December 2025 Release)", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "up to 1.19.0", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "4.5.2 to 0.0", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "1..2", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "1.2.", NULL, 0, IMX_CSAF_EXACT, "", "1.2" },
        { "1.2.3-beta", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "prior to 1.2.3.4.5.6.7", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "prior to 1234567890.1", NULL, -1, IMX_CSAF_ALL, "", "" },
        { "versions pr\xc3\xa9"
          "c\xc3\xa9"
          "dant 1.2",
          NULL, -1, IMX_CSAF_ALL, "", "" },
        { "prior\nto 1.2", NULL, -1, IMX_CSAF_ALL, "", "" },
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct imx_csaf_version_form f;
        int rc = imx_csaf_parse_form(cases[i].text, cases[i].product, &f);
        if (rc != cases[i].rc)
            fail_msg("\"%s\": rc %d, expected %d", cases[i].text, rc, cases[i].rc);
        if (rc != 0)
            continue;
        if (f.form != cases[i].form || strcmp(f.lo, cases[i].lo) != 0 ||
            strcmp(f.hi, cases[i].hi) != 0)
            fail_msg("\"%s\": form %d lo \"%s\" hi \"%s\"", cases[i].text, (int)f.form, f.lo, f.hi);
    }
    assert_int_equal(imx_csaf_parse_form(NULL, NULL, &(struct imx_csaf_version_form){ 0 }), -1);
    char longer[400];
    memset(longer, '1', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(imx_csaf_parse_form(longer, NULL, &(struct imx_csaf_version_form){ 0 }), -1);
}

/* A one-vulnerability document: architecture > product_version branches given as JSON. */
static json_t *doc_with(const char *branches, const char *affected, const char *fixed)
{
    char text[8192];
    snprintf(text, sizeof text,
             "{\"document\":{\"csaf_version\":\"2.0\",\"title\":\"Bulletin\","
             "\"publisher\":{\"name\":\"NVIDIA Product Security\"},"
             "\"aggregate_severity\":{\"text\":\"MODERATE\"},\"tracking\":{\"id\":\"9001\","
             "\"version\":\"1.1.0\",\"initial_release_date\":\"2026-02-03T00:00:00Z\"}},"
             "\"product_tree\":{\"branches\":[{\"category\":\"vendor\",\"name\":\"NVIDIA\","
             "\"branches\":%s}]},"
             "\"vulnerabilities\":[{\"cve\":\"CVE-2026-0001\",\"product_status\":"
             "{\"known_affected\":%s,\"fixed\":%s},\"scores\":[{\"cvss_v3\":{\"baseScore\":6.1},"
             "\"cvss_v4\":{\"baseScore\":6.9}}]}]}",
             branches, affected, fixed);
    json_t *d = json_loads(text, 0, NULL);
    if (!d)
        fail_msg("bad test document: %s", text);
    return d;
}

#define PV(name, version, id)                                                                      \
    "{\"category\":\"product_version\",\"name\":\"" name "\",\"product\":{\"name\":\"" version     \
    "\",\"product_id\":\"" id "\"}}"
#define ARCH(name, ...)                                                                            \
    "{\"category\":\"architecture\",\"name\":\"" name "\",\"branches\":[" __VA_ARGS__ "]}"

static void products_map_to_components_or_are_left_out(void **state)
{
    (void)state;
    static const struct {
        const char *what, *branches, *affected, *fixed;
        const char *want; /* "component range fixed" entries joined by "|"; NULL: refused */
    } cases[] = {
        { "Linux data-centre driver, branch from the architecture",
          "[" ARCH("Linux(R580)", PV("Tesla", "All driver versions prior to 580.126.09",
                                     "a") "," PV("Tesla", "580.126.09", "f")) "]",
          "[\"a\"]", "[\"f\"]", "nvidia-driver >=580, <580.126.09 580.126.09" },
        { "an older bulletin's combined product line names Tesla",
          "[" ARCH("Linux(R470)", PV("GeForce, NVIDIA RTX, Quadro, NVS, Tesla",
                                     "All driver versions prior to 470.256.02",
                                     "a") "," PV("GeForce, NVIDIA RTX, Quadro, NVS, Tesla",
                                                 "470.256.02", "f")) "]",
          "[\"a\"]", "[\"f\"]", "nvidia-driver >=470, <470.256.02 470.256.02" },
        { "the fixed product is the bare version of the same branch",
          "[" ARCH("Linux(R580)",
                   PV("Tesla", "All driver versions prior to 580.126.09", "a") "," PV(
                       "Tesla", "580.95.05 to 580.105.08",
                       "s") "," PV("Tesla", "580.126.09",
                                   "f")) "," ARCH("Linux(R590)", PV("Tesla", "590.48.01", "g")) "]",
          "[\"a\"]", "[\"g\",\"s\",\"f\"]", "nvidia-driver >=580, <580.126.09 580.126.09" },
        { "a first_fixed product is a fix too",
          "[" ARCH("Linux(R570)", PV("Tesla", "All driver versions prior to 570.211.01",
                                     "a") "," PV("Tesla", "570.211.01", "f")) "]",
          "[\"a\"]", "[], \"first_fixed\": [\"f\"]",
          "nvidia-driver >=570, <570.211.01 570.211.01" },
        { "up to and including, branch bound kept",
          "[" ARCH("Linux(R535)",
                   PV("Tesla", "All driver versions up to and including 535.274.02", "a")) "]",
          "[\"a\"]", "[]", "nvidia-driver >=535, <=535.274.02 -" },
        { "a Linux architecture without a branch: the bound's",
          "[" ARCH("Linux",
                   PV("NVIDIA Data Center GPU", "All versions prior to 570.211.01", "a")) "]",
          "[\"a\"]", "[]", "nvidia-driver >=570, <570.211.01 -" },
        { "Windows, GeForce, RTX and vGPU are left out",
          "[" ARCH(
              "Windows(R580)",
              PV("Tesla", "All driver versions prior to 582.16",
                 "w")) "," ARCH("Linux(R580)",
                                PV("GeForce", "All driver versions prior to 580.126.09",
                                   "g") "," PV("NVIDIA RTX PRO, RTX, Quadro",
                                               "All driver versions prior to 580.126.09",
                                               "q")) "," ARCH("Linux(R580 vGPU 19)",
                                                              PV("Guest driver",
                                                                 "580.105.08(All versions prior to "
                                                                 "and including vGPU software "
                                                                 "19.3)",
                                                                 "v")) "," ARCH("Linux(R580)",
                                                                                PV("Tesla",
                                                                                   "All driver "
                                                                                   "versions prior "
                                                                                   "to 580.126.09",
                                                                                   "t")) "]",
          "[\"w\",\"g\",\"q\",\"v\",\"t\"]", "[]", "nvidia-driver >=580, <580.126.09 -" },
        { "Container Toolkit, fixed paired by product",
          "[" ARCH(
              "Linux",
              PV("NVIDIA Container Toolkit", "All versions up to and including 1.19.0", "c") "," PV(
                  "NVIDIA Container Toolkit", "1.19.1",
                  "cf") "," PV("NVIDIA GPU Operator", "All versions up to and including 26.3.1",
                               "o") "," PV("NVIDIA GPU Operator", "26.3.2", "of")) "]",
          "[\"c\",\"o\"]", "[\"of\",\"cf\"]", "nvidia-container-toolkit <=1.19.0 1.19.1" },
        { "CUDA Toolkit repeated in its version names",
          "[" ARCH("Linux", PV("CUDA Toolkit", "All versions prior to CUDA Toolkit 13.1",
                               "k") "," PV("CUDA Toolkit", "CUDA Toolkit 13.1", "kf")) "]",
          "[\"k\"]", "[\"kf\"]", "cuda <13.1 13.1" },
        { "DCGM with a double space, NCCL as a span",
          "[" ARCH("Linux", PV("NVIDIA Data Center GPU Manager (DCGM)", "0.0  to 4.5.2",
                               "d") "," PV("NVIDIA Data Center GPU Manager (DCGM)", "4.5.3",
                                           "df") "," PV("NCCL", "2.18.1 to 2.21.5", "n")) "]",
          "[\"d\",\"n\"]", "[\"df\"]", "dcgm >=0.0, <=4.5.2 4.5.3|nccl >=2.18.1, <=2.21.5 -" },
        { "plain CSAF: the version as the branch name, the product above it",
          "[{\"category\":\"product_name\",\"name\":\"NVIDIA Container Toolkit\",\"branches\":[" PV(
              "1.17.3 and earlier", "1.17.3 and earlier", "p") "]}]",
          "[\"p\"]", "[]", "nvidia-container-toolkit <=1.17.3 -" },
        { "a version name not understood is refused",
          "[" ARCH("Linux(R580)", PV("Tesla", "R580 U7", "a")) "]", "[\"a\"]", "[]", NULL },
        { "a bound off its branch is refused",
          "[" ARCH("Linux(R580)", PV("Tesla", "All driver versions prior to 575.57.08", "a")) "]",
          "[\"a\"]", "[]", NULL },
        { "nothing imaxe tracks",
          "[" ARCH("Windows(R580)", PV("Tesla", "All driver versions prior to 582.16", "w")) "]",
          "[\"w\"]", "[]", NULL },
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        json_t *d = doc_with(cases[i].branches, cases[i].affected, cases[i].fixed);
        assert_true(imx_csaf_is_csaf(d));
        json_t *errors = json_array();
        struct imx_csaf_meta meta;
        json_t *out = imx_csaf_to_advisory(d, errors, &meta);
        if (!cases[i].want) {
            if (out)
                fail_msg("%s: expected a refusal, got %s", cases[i].what, json_dumps(out, 0));
            assert_true(json_array_size(errors) > 0);
        } else {
            if (!out)
                fail_msg("%s: %s", cases[i].what, json_dumps(errors, 0));
            char got[1024] = "";
            size_t k;
            json_t *e;
            json_array_foreach(json_object_get(out, "affected"), k, e)
            {
                const char *fx = json_string_value(json_object_get(e, "fixed"));
                size_t n = strlen(got);
                snprintf(got + n, sizeof got - n, "%s%s %s %s", k ? "|" : "",
                         json_string_value(json_object_get(e, "component")),
                         json_string_value(json_object_get(e, "range")), fx ? fx : "-");
            }
            if (strcmp(got, cases[i].want) != 0)
                fail_msg("%s: got \"%s\", expected \"%s\"", cases[i].what, got, cases[i].want);
            assert_string_equal(json_string_value(json_object_get(out, "id")), "NVIDIA-9001");
            assert_string_equal(json_string_value(json_object_get(out, "severity")), "medium");
            assert_string_equal(json_string_value(json_object_get(out, "published")), "2026-02-03");
            assert_true(json_real_value(json_object_get(out, "cvss")) == 6.1);
            assert_string_equal(meta.version, "1.1.0");
            assert_true(meta.cvss_v4 == 6.9);
            json_decref(out);
        }
        json_decref(errors);
        json_decref(d);
    }
}

/* The refusal names the product and its branch, and points at its version name. */
static void refusals_name_the_product(void **state)
{
    (void)state;
    json_t *d = doc_with("[" ARCH("Linux(R580)", PV("Tesla", "R580 U7", "a")) "]", "[\"a\"]", "[]");
    json_t *errors = json_array();
    assert_null(imx_csaf_to_advisory(d, errors, NULL));
    assert_int_equal(json_array_size(errors), 1);
    json_t *e = json_array_get(errors, 0);
    const char *detail = json_string_value(json_object_get(e, "detail"));
    assert_non_null(strstr(detail, "Linux(R580) > Tesla"));
    assert_non_null(strstr(detail, "R580 U7"));
    assert_string_equal(json_string_value(json_object_get(e, "pointer")),
                        "/product_tree/branches/0/branches/0/branches/0/product/name");
    json_decref(errors);
    json_decref(d);

    json_t *bad = json_loads("{\"document\":{\"csaf_version\":\"2.0\"}}", 0, NULL);
    errors = json_array();
    assert_null(imx_csaf_to_advisory(bad, errors, NULL));
    assert_true(json_array_size(errors) >= 3); /* tracking id, title, release date, ... */
    json_decref(errors);
    json_decref(bad);
    json_t *osv = json_loads("{\"schema_version\":\"1.6.0\"}", 0, NULL);
    assert_false(imx_csaf_is_csaf(osv));
    json_decref(osv);
}

static json_t *load_shared(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/csaf/%s", IMX_SOURCE_DIR, name);
    json_error_t err;
    json_t *d = json_load_file(path, 0, &err);
    if (!d)
        fail_msg("%s: %s", path, err.text);
    return d;
}

static void nvidias_bulletins_translate(void **state)
{
    (void)state;
    json_t *d = load_shared("nvidia-5747.csaf.json");
    json_t *errors = json_array();
    struct imx_csaf_meta meta;
    json_t *out = imx_csaf_to_advisory(d, errors, &meta);
    if (!out)
        fail_msg("5747: %s", json_dumps(errors, 0));
    assert_string_equal(json_string_value(json_object_get(out, "id")), "NVIDIA-5747");
    assert_string_equal(json_string_value(json_object_get(out, "title")),
                        "Security Bulletin: GPU Display Driver - January 2026");
    assert_string_equal(json_string_value(json_object_get(out, "published")), "2026-01-28");
    assert_string_equal(json_string_value(json_object_get(out, "severity")), "high");
    assert_true(json_real_value(json_object_get(out, "cvss")) == 7.8);
    assert_string_equal(json_string_value(json_object_get(out, "url")),
                        "https://github.com/NVIDIA/product-security/blob/main/2026/5747/5747.json");
    /* Only the two CVEs with Linux data-centre driver fixes. */
    json_t *cves = json_object_get(out, "cves");
    assert_int_equal(json_array_size(cves), 2);
    assert_string_equal(json_string_value(json_array_get(cves, 0)), "CVE-2025-33219");
    assert_string_equal(json_string_value(json_array_get(cves, 1)), "CVE-2025-33220");
    static const char *const want[][2] = {
        { ">=590, <590.48.01", "590.48.01" },
        { ">=580, <580.126.09", "580.126.09" },
        { ">=570, <570.211.01", "570.211.01" },
        { ">=535, <535.288.01", "535.288.01" },
    };
    json_t *aff = json_object_get(out, "affected");
    assert_int_equal(json_array_size(aff), N_ELEMS(want));
    for (size_t i = 0; i < N_ELEMS(want); i++) {
        json_t *e = json_array_get(aff, i);
        assert_string_equal(json_string_value(json_object_get(e, "component")), "nvidia-driver");
        assert_string_equal(json_string_value(json_object_get(e, "range")), want[i][0]);
        assert_string_equal(json_string_value(json_object_get(e, "fixed")), want[i][1]);
    }
    assert_string_equal(meta.tracking_id, "5747");
    assert_string_equal(meta.version, "1.0.0");
    assert_true(meta.cvss_v4 < 0);
    json_decref(out);
    json_decref(d);

    d = load_shared("nvidia-5850.csaf.json");
    out = imx_csaf_to_advisory(d, errors, NULL);
    if (!out)
        fail_msg("5850: %s", json_dumps(errors, 0));
    assert_string_equal(json_string_value(json_object_get(out, "id")), "NVIDIA-5850");
    assert_true(json_real_value(json_object_get(out, "cvss")) == 8.5);
    aff = json_object_get(out, "affected");
    assert_int_equal(json_array_size(aff), 1);
    json_t *e = json_array_get(aff, 0);
    assert_string_equal(json_string_value(json_object_get(e, "component")),
                        "nvidia-container-toolkit");
    assert_string_equal(json_string_value(json_object_get(e, "range")), "<=1.19.0");
    assert_string_equal(json_string_value(json_object_get(e, "fixed")), "1.19.1");
    assert_int_equal(json_array_size(errors), 0);
    json_decref(out);
    json_decref(errors);
    json_decref(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_names_parse_by_form),
        cmocka_unit_test(products_map_to_components_or_are_left_out),
        cmocka_unit_test(refusals_name_the_product),
        cmocka_unit_test(nvidias_bulletins_translate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
