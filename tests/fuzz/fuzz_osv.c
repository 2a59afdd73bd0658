/* Fuzz target for server/domain/osv.c: any bytes parsed as JSON and, when they are an object,
 * mapped to an advisory; the result is either errors or an advisory whose every string is valid
 * UTF-8 (jansson refuses anything else) with a YYYY-MM-DD date. Built with -DIMX_LIBFUZZER for
 * libFuzzer, otherwise a bounded, deterministic run from seeds (part of the unit tests). */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "domain/osv.h"

#define FUZZ_INPUT_MAX 4096

int imx_fuzz_one(const uint8_t *data, size_t size)
{
    if (size > FUZZ_INPUT_MAX)
        return 0;
    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return 0;
    }
    json_t *errors = json_array();
    json_t *out = imx_osv_to_advisory(doc, errors);
    CHECK((out == NULL) == (json_array_size(errors) > 0));
    if (out) {
        const char *d = json_string_value(json_object_get(out, "published"));
        CHECK(d && strlen(d) == 10 && d[4] == '-' && d[7] == '-');
        CHECK(json_is_array(json_object_get(out, "affected")));
        /* It prints: every string in it is valid UTF-8. */
        char *text = json_dumps(out, JSON_COMPACT);
        CHECK(text != NULL);
        free(text);
    }
    size_t i;
    json_t *e;
    json_array_foreach(errors, i, e)
    {
        CHECK(json_is_string(json_object_get(e, "pointer")));
        CHECK(json_is_string(json_object_get(e, "detail")));
    }
    json_decref(out);
    json_decref(errors);
    json_decref(doc);
    return 0;
}

#ifndef IMX_LIBFUZZER

static const char *const seeds[] = {
    "{\"schema_version\":\"1.6.0\",\"id\":\"GHSA-1\",\"summary\":\"s\",\"published\":"
    "\"2025-10-09T12:00:00Z\",\"aliases\":[\"CVE-2025-1\"],\"database_specific\":{\"severity\":"
    "\"HIGH\"},\"references\":[{\"type\":\"ADVISORY\",\"url\":\"https://x\"}],\"affected\":[{"
    "\"package\":{\"name\":\"nvidia-container-toolkit\",\"ecosystem\":\"Go\"},\"ranges\":[{"
    "\"type\":\"SEMVER\",\"events\":[{\"introduced\":\"0\"},{\"fixed\":\"1.17.4\"}]}]}]}",
    "{\"schema_version\":\"1.6.0\",\"id\":\"X\",\"published\":\"2025-1\\u00e9-09T00:00:00Z\","
    "\"affected\":[]}",
    "{\"schema_version\":\"1.6.0\",\"id\":\"Y\",\"published\":\"2024-02-29\",\"affected\":[{"
    "\"package\":{\"name\":\"cuda\"},\"ranges\":[{\"type\":\"ECOSYSTEM\",\"events\":[{"
    "\"introduced\":\"12.0\"},{\"last_affected\":\"12.4\"},{\"introduced\":\"13\"}]}]}]}",
    "{\"id\":\"Z\",\"published\":\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\",\"affected\":"
    "[{\"ranges\":[{\"type\":\"GIT\",\"events\":[{\"introduced\":\"abc\"}]}]}]}",
};

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),
    /* Edits that keep JSON often well-formed: digits, quotes, separators, UTF-8 bytes. */
    .alphabet = "0123456789.-:TZ\"{}[],\\u \xc3\xa9\xe2\x82\xac",
    .max_edits = 3,
    .cap = FUZZ_INPUT_MAX - 1,
    .iterations = 40000,
    .rng = 0x9e3779b97f4a7c15u,
    .jansson_seed = true,
};

#endif /* IMX_LIBFUZZER */
