/* Fuzz target for server/domain/sbom.c: any JSON document as an SBOM, and any text as a purl.
 * An inventory is read, or refused with errors, never both; what is read is bounded and names
 * every package completely. Built with -DIMX_LIBFUZZER for libFuzzer, otherwise a bounded,
 * deterministic run from seeds (part of the unit tests). */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "domain/sbom.h"

#define FUZZ_INPUT_MAX 8192

static void check_purl(const char *s)
{
    char eco[64], name[256], version[256];
    int rc = imx_sbom_purl(s, "Ubuntu:24.04:LTS", eco, sizeof eco, name, sizeof name, version,
                           sizeof version);
    CHECK(rc >= -1 && rc <= 1);
    if (rc == 1) {
        CHECK(memchr(eco, '\0', sizeof eco) && eco[0]);
        CHECK(memchr(name, '\0', sizeof name) && name[0]);
        CHECK(memchr(version, '\0', sizeof version) && version[0]);
    }
}

int imx_fuzz_one(const uint8_t *data, size_t size)
{
    if (size > FUZZ_INPUT_MAX)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    check_purl(text);
    free(text);

    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(doc) || !imx_sbom_format(doc)) {
        json_decref(doc);
        return 0;
    }
    json_t *errors = json_array();
    json_t *out = imx_sbom_packages(doc, "Ubuntu:24.04:LTS", "/sbom", errors);
    CHECK((out == NULL) == (json_array_size(errors) > 0));
    if (out) {
        CHECK(json_is_array(out) && json_array_size(out) <= IMX_SBOM_PACKAGES_MAX);
        size_t i;
        json_t *p;
        json_array_foreach(out, i, p)
        {
            CHECK(json_string_length(json_object_get(p, "ecosystem")) > 0);
            CHECK(json_string_length(json_object_get(p, "name")) > 0);
            CHECK(json_string_length(json_object_get(p, "version")) > 0);
        }
        char *dump = json_dumps(out, JSON_COMPACT);
        CHECK(dump != NULL);
        free(dump);
    }
    size_t i;
    json_t *e;
    json_array_foreach(errors, i, e)
    {
        const char *ptr = json_string_value(json_object_get(e, "pointer"));
        CHECK(ptr && strncmp(ptr, "/sbom", 5) == 0);
        CHECK(json_is_string(json_object_get(e, "detail")));
    }
    json_decref(out);
    json_decref(errors);
    json_decref(doc);
    return 0;
}

#ifndef IMX_LIBFUZZER

static const char *const seeds[] = {
    "{\"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.6\",\"components\":[{\"name\":\"openssl\","
    "\"purl\":\"pkg:deb/ubuntu/openssl@3.0.13-0ubuntu3.3?arch=amd64&distro=ubuntu-24.04\"},"
    "{\"purl\":\"pkg:deb/ubuntu/zlib1g@1%3A1.3.dfsg-3.1ubuntu2?distro=ubuntu-24.04\"},"
    "{\"purl\":\"pkg:pypi/numpy@1.26.4\"}]}",
    "{\"spdxVersion\":\"SPDX-2.3\",\"packages\":[{\"name\":\"bash\",\"externalRefs\":[{"
    "\"referenceCategory\":\"PACKAGE-MANAGER\",\"referenceType\":\"purl\",\"referenceLocator\":"
    "\"pkg:rpm/redhat/bash@5.1.8-9.el9?arch=x86_64&epoch=1&distro=rhel-9.4\"}]}]}",
    "pkg:deb/debian/curl@7.88.1-10%2Bdeb12u8?distro=debian-12",
    "pkg:rpm/amzn/glibc@2.34-100.amzn2023?distro=amazonlinux-2023&epoch=0",
};

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),
    .alphabet = "pkg:deb/rpmubntu@%3A2B?&=.-_0123456789\"{}[],:",
    .max_edits = 3,
    .raw_one_in = 16,
    .cap = FUZZ_INPUT_MAX - 1,
    .iterations = 30000,
    .rng = 0x2545f4914f6cdd1du,
    .jansson_seed = true,
};

#endif /* IMX_LIBFUZZER */
