/* SBOMs to package inventories (server/domain/sbom.c) and distro OSV documents to package ranges
 * (server/domain/osv.c): purls as a table, and the fixtures in tests/data/sbom and tests/data/osv
 * as syft and Ubuntu write them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "domain/osv.h"
#include "domain/sbom.h"

static json_t *load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/%s", IMX_SOURCE_DIR, rel);
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    if (!doc)
        fail_msg("%s: %s", path, e.text);
    return doc;
}

static void purls(void **state)
{
    (void)state;
    static const struct {
        const char *purl, *def;
        int rc;
        const char *eco, *name, *version;
    } cases[] = {
        { "pkg:deb/ubuntu/openssl@3.0.13-0ubuntu3.5?arch=amd64&distro=ubuntu-24.04", NULL, 1,
          "Ubuntu:24.04:LTS", "openssl", "3.0.13-0ubuntu3.5" },
        { "pkg:deb/ubuntu/zlib1g@1%3A1.3.dfsg-3.1ubuntu2?arch=amd64&distro=ubuntu-24.04", NULL, 1,
          "Ubuntu:24.04:LTS", "zlib1g", "1:1.3.dfsg-3.1ubuntu2" },
        { "pkg:deb/debian/libc6@2.36-9%2Bdeb12u8?arch=amd64&distro=debian-12", NULL, 1, "Debian:12",
          "libc6", "2.36-9+deb12u8" },
        { "pkg:rpm/rocky/openssl-libs@3.0.7-28.el9_4?arch=x86_64&epoch=1&distro=rocky-9.4", NULL, 1,
          "Rocky Linux:9", "openssl-libs", "1:3.0.7-28.el9_4" },
        { "pkg:rpm/amazon/glibc@2.34-52.amzn2023.0.11?arch=x86_64&distro=amzn-2023", NULL, 1,
          "Amazon Linux 2023", "glibc", "2.34-52.amzn2023.0.11" },
        { "pkg:deb/ubuntu/bash@5.2.21-2ubuntu4?arch=amd64", "Ubuntu:24.04:LTS", 1,
          "Ubuntu:24.04:LTS", "bash", "5.2.21-2ubuntu4" },
        { "pkg:deb/ubuntu/bash@5.2.21-2ubuntu4?arch=amd64", NULL, -1, "", "", "" },
        { "pkg:rpm/rocky/bash@5.1.8-9.el9?distro=rocky-9", "Ubuntu:24.04:LTS", 1, "Rocky Linux:9",
          "bash", "5.1.8-9.el9" },
        { "pkg:deb/ubuntu/bash@5.2_bad?distro=ubuntu-24.04", NULL, -1, "", "", "" },
        { "pkg:deb/ubuntu/bash?distro=ubuntu-24.04", NULL, -1, "", "", "" },
        { "pkg:deb/ubuntu/b%zzash@1.0?distro=ubuntu-24.04", NULL, -1, "", "", "" },
        /* The type is case-insensitive: read, not dropped as another type. */
        { "pkg:DEB/ubuntu/openssl@3.0.13-0ubuntu3.5?distro=ubuntu-24.04", NULL, 1,
          "Ubuntu:24.04:LTS", "openssl", "3.0.13-0ubuntu3.5" },
        { "pkg:Rpm/rocky/bash@5.1.8-9.el9?distro=rocky-9", NULL, 1, "Rocky Linux:9", "bash",
          "5.1.8-9.el9" },
        { "pkg:pypi/numpy@1.26.4", NULL, 0, "", "", "" },
        { "not a purl", NULL, -1, "", "", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char eco[80], name[160], version[160];
        int rc = imx_sbom_purl(cases[i].purl, cases[i].def, eco, sizeof eco, name, sizeof name,
                               version, sizeof version);
        if (rc != cases[i].rc)
            fail_msg("%s: rc %d, expected %d", cases[i].purl, rc, cases[i].rc);
        if (rc == 1) {
            assert_string_equal(eco, cases[i].eco);
            assert_string_equal(name, cases[i].name);
            assert_string_equal(version, cases[i].version);
        }
    }
}

static void sboms_as_syft_writes_them(void **state)
{
    (void)state;
    json_t *cdx = load("sbom/noble-cyclonedx-1.6.json"), *spdx = load("sbom/noble-spdx-2.3.json");
    assert_string_equal(imx_sbom_format(cdx), "cyclonedx");
    assert_string_equal(imx_sbom_format(spdx), "spdx");
    json_t *errors = json_array();
    json_t *a = imx_sbom_packages(cdx, NULL, "/sbom", errors);
    json_t *b = imx_sbom_packages(spdx, NULL, "/sbom", errors);
    assert_int_equal(json_array_size(errors), 0);
    assert_int_equal(json_array_size(a), 4); /* the pypi purl is not an OS package */
    assert_int_equal(json_array_size(b), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(a, 3), "version")),
                        "1:1.3.dfsg-3.1ubuntu2");
    assert_string_equal(json_string_value(json_object_get(json_array_get(b, 0), "ecosystem")),
                        "Ubuntu:24.04:LTS");
    json_decref(a);
    json_decref(b);
    /* A bad purl is named by its pointer. */
    json_object_set_new(json_array_get(json_object_get(cdx, "components"), 1), "purl",
                        json_string("pkg:deb/ubuntu/libssl3t64@3..0_x?distro=ubuntu-24.04"));
    assert_null(imx_sbom_packages(cdx, NULL, "/sbom", errors));
    assert_string_equal(json_string_value(json_object_get(json_array_get(errors, 0), "pointer")),
                        "/sbom/components/1/purl");
    json_t *other = json_pack("{s:s}", "bomFormat", "SWID");
    assert_null(imx_sbom_packages(other, NULL, "/sbom", errors));
    json_decref(other);
    json_decref(errors);
    json_decref(cdx);
    json_decref(spdx);
}

static void usn_becomes_package_ranges(void **state)
{
    (void)state;
    json_t *usn = load("osv/USN-6986-1.json");
    json_t *errors = json_array();
    json_t *adv = imx_osv_to_advisory(usn, errors);
    assert_non_null(adv);
    assert_string_equal(json_string_value(json_object_get(adv, "severity")), "medium");
    assert_string_equal(json_string_value(json_array_get(json_object_get(adv, "cves"), 0)),
                        "CVE-2024-6119");
    json_t *aff = json_object_get(adv, "affected");
    /* noble: openssl and its other binaries libssl-dev, libssl3t64; jammy: openssl, libssl3 */
    assert_int_equal(json_array_size(aff), 5);
    static const char *const want[][3] = {
        { "Ubuntu:24.04:LTS", "openssl", "<3.0.13-0ubuntu3.4" },
        { "Ubuntu:24.04:LTS", "libssl-dev", "<3.0.13-0ubuntu3.4" },
        { "Ubuntu:24.04:LTS", "libssl3t64", "<3.0.13-0ubuntu3.4" },
        { "Ubuntu:22.04:LTS", "openssl", "<3.0.2-0ubuntu1.18" },
        { "Ubuntu:22.04:LTS", "libssl3", "<3.0.2-0ubuntu1.18" },
    };
    for (size_t i = 0; i < 5; i++) {
        json_t *e = json_array_get(aff, i);
        assert_string_equal(json_string_value(json_object_get(e, "ecosystem")), want[i][0]);
        assert_string_equal(json_string_value(json_object_get(e, "package")), want[i][1]);
        assert_string_equal(json_string_value(json_object_get(e, "range")), want[i][2]);
        assert_null(json_object_get(e, "component"));
    }
    json_decref(adv);
    json_decref(errors);
    json_decref(usn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(purls),
        cmocka_unit_test(sboms_as_syft_writes_them),
        cmocka_unit_test(usn_becomes_package_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
