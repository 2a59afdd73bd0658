/* Reading the exploitation feeds (server/domain/risk_feeds.c): FIRST's EPSS CSV and CISA's KEV
 * catalog, as tables of accepted and refused inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "domain/risk_feeds.h"

#define HEAD "#model_version:v2023.03.01,score_date:2024-12-05T00:00:00+0000\ncve,epss,percentile\n"

static void epss_files_read_or_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *cves;   /* the array literal expected; NULL: refused */
        const char *scores; /* the same for the scores */
        const char *err;    /* part of the message when refused */
    } cases[] = {
        { HEAD "CVE-1999-0001,0.01141,0.84154\nCVE-2024-3400,0.95823,0.99523\n",
          "{CVE-1999-0001,CVE-2024-3400}", "{0.01141,0.95823}", NULL },
        { HEAD "CVE-2024-3400,1,1.00000\r\n", "{CVE-2024-3400}", "{1}", NULL },
        { HEAD "CVE-2024-0001,0,0", "{CVE-2024-0001}", "{0}", NULL },
        { "#score_date:2024-12-05,model_version:v4\ncve,epss,percentile\n", "{}", "{}", NULL },
        { HEAD, "{}", "{}", NULL },
        { "", NULL, NULL, "line 1" },
        { "cve,epss,percentile\nCVE-2024-0001,0.1,0.2\n", NULL, NULL, "line 1" },
        { "#model_version:v1\ncve,epss,percentile\n", NULL, NULL, "score_date" },
        { "#model_version:v1,score_date:2024-13-01\ncve,epss,percentile\n", NULL, NULL,
          "score_date" },
        { "#score_date:2024-12-05\ncve,epss,percentile\n", NULL, NULL, "model_version" },
        { "#model_version:,score_date:2024-12-05\ncve,epss,percentile\n", NULL, NULL,
          "model_version" },
        { "#model_version:v1,score_date:2024-12-05\ncve,epss\n", NULL, NULL, "line 2" },
        { HEAD "CVE-2024-0001,0.1\n", NULL, NULL, "line 3" },
        { HEAD "CVE-2024-0001,0.1,0.2,0.3\n", NULL, NULL, "line 3" },
        { HEAD "CVE-2024-1,0.1,0.2\n", NULL, NULL, "not a CVE" },
        { HEAD "cve-2024-0001,0.1,0.2\n", NULL, NULL, "not a CVE" },
        { HEAD "CVE-2024-0001,1.5,0.2\n", NULL, NULL, "epss" },
        { HEAD "CVE-2024-0001,1.00001,0.2\n", NULL, NULL, "epss" },
        { HEAD "CVE-2024-0001,-0.1,0.2\n", NULL, NULL, "epss" },
        { HEAD "CVE-2024-0001,.1,0.2\n", NULL, NULL, "epss" },
        { HEAD "CVE-2024-0001,0.1,2\n", NULL, NULL, "percentile" },
        { HEAD "CVE-2024-0001,0.1,0.2\n\nCVE-2024-0002,0.1,0.2\n", NULL, NULL, "line 4" },
        { HEAD "CVE-2024-0001,0.1,{0.2}\n", NULL, NULL, "percentile" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct imx_epss e;
        char err[256] = "";
        int rc = imx_epss_read(cases[i].text, strlen(cases[i].text), &e, err, sizeof err);
        if (cases[i].cves) {
            if (rc != 0)
                fail_msg("case %zu refused: %s", i, err);
            assert_string_equal(e.cves, cases[i].cves);
            assert_string_equal(e.scores, cases[i].scores);
            imx_epss_free(&e);
        } else {
            if (rc == 0)
                fail_msg("case %zu accepted", i);
            if (!strstr(err, cases[i].err))
                fail_msg("case %zu: '%s' does not say '%s'", i, err, cases[i].err);
        }
    }
    /* The comment line's date and model, whatever their order. */
    struct imx_epss e;
    char err[256];
    assert_int_equal(imx_epss_read(HEAD, strlen(HEAD), &e, err, sizeof err), 0);
    assert_string_equal(e.model_version, "v2023.03.01");
    assert_string_equal(e.score_date, "2024-12-05");
    assert_int_equal(e.rows, 0);
    imx_epss_free(&e);
    /* A NUL inside is refused (the body is NUL-terminated text). */
    static const char nul[] = HEAD "CVE-2024-0001,0.1\0,0.2\n";
    assert_int_equal(imx_epss_read(nul, sizeof nul - 1, &e, err, sizeof err), -1);
}

static void kev_catalogs_read_or_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        const char *ptr; /* NULL: accepted */
    } cases[] = {
        { "{\"catalogVersion\":\"2024.12.05\",\"dateReleased\":\"2024-12-05T17:02:31.6463Z\","
          "\"vulnerabilities\":[{\"cveID\":\"CVE-2024-3400\",\"dateAdded\":\"2024-04-12\","
          "\"dueDate\":\"2024-04-19\",\"knownRansomwareCampaignUse\":\"Unknown\","
          "\"cwes\":[\"CWE-77\"],\"notes\":\"x\"}]}",
          NULL },
        { "{\"catalogVersion\":\"v\",\"dateReleased\":\"2024-12-05T00:00:00+01:00\","
          "\"vulnerabilities\":[]}",
          NULL },
        { "[]", "" },
        { "{\"dateReleased\":\"2024-12-05T00:00:00Z\",\"vulnerabilities\":[]}", "/catalogVersion" },
        { "{\"catalogVersion\":\"v\",\"dateReleased\":\"2024-12-05\",\"vulnerabilities\":[]}",
          "/dateReleased" },
        { "{\"catalogVersion\":\"v\",\"dateReleased\":\"2024-12-05T00:00:00Z\"}",
          "/vulnerabilities" },
        { "{\"catalogVersion\":\"v\",\"dateReleased\":\"2024-12-05T00:00:00Z\","
          "\"vulnerabilities\":[{\"cveID\":\"CVE-2024-1\",\"dateAdded\":\"2024-04-12\"}]}",
          "/vulnerabilities/0/cveID" },
        { "{\"catalogVersion\":\"v\",\"dateReleased\":\"2024-12-05T00:00:00Z\","
          "\"vulnerabilities\":[{\"cveID\":\"CVE-2024-1234\"}]}",
          "/vulnerabilities/0/dateAdded" },
        { "{\"catalogVersion\":\"v\",\"dateReleased\":\"2024-12-05T00:00:00Z\","
          "\"vulnerabilities\":[{\"cveID\":\"CVE-2024-1234\",\"dateAdded\":\"2024-04-12\","
          "\"dueDate\":\"soon\"}]}",
          "/vulnerabilities/0/dueDate" },
        { "{\"catalogVersion\":\"v\",\"dateReleased\":\"2024-12-05T00:00:00Z\","
          "\"vulnerabilities\":[{\"cveID\":\"CVE-2024-1234\",\"dateAdded\":\"2024-04-12\","
          "\"product\":7}]}",
          "/vulnerabilities/0/product" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *in = json_loads(cases[i].json, 0, NULL);
        assert_non_null(in);
        char ptr[128] = "?", msg[256] = "";
        json_t *out = imx_kev_read(in, ptr, sizeof ptr, msg, sizeof msg);
        if (!cases[i].ptr) {
            if (!out)
                fail_msg("case %zu refused at %s: %s", i, ptr, msg);
        } else {
            if (out)
                fail_msg("case %zu accepted", i);
            assert_string_equal(ptr, cases[i].ptr);
        }
        json_decref(out);
        json_decref(in);
    }
    /* What the database gets: CISA's dates, Unknown when ransomware use is not said. */
    json_t *in = json_loads(cases[0].json, 0, NULL);
    char ptr[128], msg[256];
    json_t *out = imx_kev_read(in, ptr, sizeof ptr, msg, sizeof msg);
    json_t *e = json_array_get(json_object_get(out, "entries"), 0);
    assert_string_equal(json_string_value(json_object_get(e, "cve")), "CVE-2024-3400");
    assert_string_equal(json_string_value(json_object_get(e, "date_added")), "2024-04-12");
    assert_string_equal(json_string_value(json_object_get(e, "due_date")), "2024-04-19");
    assert_string_equal(json_string_value(json_object_get(out, "catalog_version")), "2024.12.05");
    json_decref(out);
    json_decref(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(epss_files_read_or_are_refused),
        cmocka_unit_test(kev_catalogs_read_or_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
