/* OSV documents mapped to advisories: each events shape to its constraint, as a table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "domain/osv.h"

static void events_become_constraints(void **state)
{
    (void)state;
    static const struct {
        const char *events; /* the events array of one SEMVER range */
        const char *ranges; /* the ranges produced, "|"-joined; NULL: an error */
        const char *fixed;  /* "fixed" of the first range, "" for none */
    } cases[] = {
        { "[{\"introduced\":\"0\"},{\"fixed\":\"1.17.4\"}]", "<1.17.4", "1.17.4" },
        { "[{\"introduced\":\"1.2.0\"},{\"fixed\":\"1.2.5\"}]", ">=1.2.0, <1.2.5", "1.2.5" },
        { "[{\"introduced\":\"0\"},{\"last_affected\":\"1.16.1\"}]", "<=1.16.1", "" },
        { "[{\"introduced\":\"580\"}]", ">=580", "" },
        { "[{\"introduced\":\"0\"}]", "*", "" },
        { "[{\"introduced\":\"1.0\"},{\"fixed\":\"1.1\"},{\"introduced\":\"2.0\"},"
          "{\"fixed\":\"2.3\"}]",
          ">=1.0, <1.1|>=2.0, <2.3", "1.1" },
        { "[{\"fixed\":\"1.1\"}]", NULL, "" },
        { "[{\"other\":\"1.1\"}]", NULL, "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[1024];
        snprintf(doc, sizeof doc,
                 "{\"schema_version\":\"1.6.0\",\"id\":\"OSV-1\",\"published\":"
                 "\"2025-01-02T03:04:05Z\",\"aliases\":[\"CVE-2025-0001\",\"GHSA-x\"],"
                 "\"database_specific\":{\"severity\":\"MODERATE\"},\"affected\":[{\"package\":"
                 "{\"name\":\"pkg\"},\"ranges\":[{\"type\":\"SEMVER\",\"events\":%s}]}]}",
                 cases[i].events);
        json_t *in = json_loads(doc, 0, NULL);
        assert_non_null(in);
        assert_true(imx_osv_is_osv(in));
        json_t *errors = json_array();
        json_t *out = imx_osv_to_advisory(in, errors);
        if (!cases[i].ranges) {
            if (out)
                fail_msg("case %zu: expected an error", i);
            assert_true(json_array_size(errors) > 0);
        } else {
            if (!out)
                fail_msg("case %zu: %s", i, json_dumps(errors, 0));
            char got[512] = "";
            size_t k;
            json_t *r;
            json_array_foreach(json_object_get(out, "affected"), k, r)
            {
                strcat(got, k ? "|" : "");
                strcat(got, json_string_value(json_object_get(r, "range")));
                assert_string_equal(json_string_value(json_object_get(r, "component")), "pkg");
            }
            if (strcmp(got, cases[i].ranges) != 0)
                fail_msg("case %zu: %s, expected %s", i, got, cases[i].ranges);
            const char *fixed = json_string_value(
                json_object_get(json_array_get(json_object_get(out, "affected"), 0), "fixed"));
            assert_string_equal(fixed ? fixed : "", cases[i].fixed);
            assert_string_equal(json_string_value(json_object_get(out, "severity")), "medium");
            assert_string_equal(json_string_value(json_object_get(out, "published")), "2025-01-02");
            assert_int_equal(json_array_size(json_object_get(out, "cves")), 1);
        }
        json_decref(out);
        json_decref(errors);
        json_decref(in);
    }
}

/* GitHub's advisories name packages by ecosystem: the Go module of the NVIDIA Container Toolkit
 * and the frameworks' PyPI names become imaxe's components; others keep their name. */
static void ecosystem_packages_become_components(void **state)
{
    (void)state;
    static const struct {
        const char *ecosystem, *name, *component;
    } cases[] = {
        { "Go", "github.com/NVIDIA/nvidia-container-toolkit", "nvidia-container-toolkit" },
        { "PyPI", "torch", "pytorch" },
        { "PyPI", "tensorflow-gpu", "tensorflow" },
        { "npm", "torch", "torch" },
        { "Go", "github.com/NVIDIA/other", "github.com/NVIDIA/other" },
        /* a distro's package is an OS package range (issue 19), not a component */
        { "Ubuntu:24.04:LTS", "openssl", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *in =
            json_pack("{s:s, s:s, s:s, s:{s:s}, s:[{s:{s:s, s:s}, s:[{s:s, s:[{s:s}, {s:s}]}]}]}",
                      "schema_version", "1.4.0", "id", "GHSA-test", "published",
                      "2024-09-26T18:30:00Z", "database_specific", "severity", "CRITICAL",
                      "affected", "package", "ecosystem", cases[i].ecosystem, "name", cases[i].name,
                      "ranges", "type", "SEMVER", "events", "introduced", "0", "fixed", "1.16.2");
        json_t *errors = json_array();
        json_t *out = imx_osv_to_advisory(in, errors);
        if (!out)
            fail_msg("case %zu: %s", i, json_dumps(errors, 0));
        json_t *a = json_array_get(json_object_get(out, "affected"), 0);
        if (cases[i].component) {
            assert_string_equal(json_string_value(json_object_get(a, "component")),
                                cases[i].component);
        } else {
            assert_null(json_object_get(a, "component"));
            assert_string_equal(json_string_value(json_object_get(a, "package")), cases[i].name);
            assert_string_equal(json_string_value(json_object_get(a, "ecosystem")),
                                cases[i].ecosystem);
        }
        assert_string_equal(json_string_value(json_object_get(a, "range")), "<1.16.2");
        json_decref(out);
        json_decref(errors);
        json_decref(in);
    }
}

static void not_osv_and_missing_severity(void **state)
{
    (void)state;
    json_t *native = json_loads("{\"id\":\"A\",\"affected\":[]}", 0, NULL);
    assert_false(imx_osv_is_osv(native));
    json_decref(native);
    json_t *in = json_loads("{\"schema_version\":\"1.6.0\",\"id\":\"X\",\"published\":"
                            "\"2025-01-01T00:00:00Z\",\"affected\":[{\"package\":{\"name\":\"p\"},"
                            "\"ranges\":[{\"type\":\"ECOSYSTEM\",\"events\":[{\"introduced\":"
                            "\"0\"},{\"fixed\":\"2\"}]}]}]}",
                            0, NULL);
    json_t *errors = json_array();
    assert_null(imx_osv_to_advisory(in, errors));
    assert_string_equal(json_string_value(json_object_get(json_array_get(errors, 0), "pointer")),
                        "/database_specific/severity");
    json_decref(errors);
    json_decref(in);
}

/* "published" is read as an RFC 3339 date: never cut inside a UTF-8 character or taken from
 * something that is not a date. */
static void published_is_a_date(void **state)
{
    (void)state;
    static const struct {
        const char *published, *date; /* date NULL: refused at /published */
    } cases[] = {
        { "2025-10-09T12:00:00Z", "2025-10-09" },
        { "2025-10-09", "2025-10-09" },
        { "2024-02-29T00:00:00+02:00", "2024-02-29" },
        { "2025-02-29T00:00:00Z", NULL },
        { "2025-13-01", NULL },
        { "2025-1\u00e9-09T00:00:00Z", NULL },
        { "2025-10-0\u00e9", NULL },
        { "20251009", NULL },
        { "2025-10-09garbage", NULL },
        { "", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[512];
        snprintf(doc, sizeof doc,
                 "{\"schema_version\":\"1.6.0\",\"id\":\"X\",\"published\":\"%s\","
                 "\"database_specific\":{\"severity\":\"HIGH\"},\"affected\":[{\"package\":"
                 "{\"name\":\"pkg\"},\"ranges\":[{\"type\":\"SEMVER\",\"events\":"
                 "[{\"introduced\":\"0\"},{\"fixed\":\"1.1\"}]}]}]}",
                 cases[i].published);
        json_t *in = json_loads(doc, 0, NULL);
        assert_non_null(in);
        json_t *errors = json_array();
        json_t *out = imx_osv_to_advisory(in, errors);
        if (cases[i].date) {
            assert_non_null(out);
            assert_string_equal(json_string_value(json_object_get(out, "published")),
                                cases[i].date);
        } else {
            assert_null(out);
            assert_string_equal(
                json_string_value(json_object_get(json_array_get(errors, 0), "pointer")),
                "/published");
        }
        json_decref(out);
        json_decref(errors);
        json_decref(in);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(events_become_constraints),
        cmocka_unit_test(ecosystem_packages_become_components),
        cmocka_unit_test(not_osv_and_missing_severity),
        cmocka_unit_test(published_is_a_date),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
