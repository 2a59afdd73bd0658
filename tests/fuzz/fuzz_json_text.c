/* Fuzz target for server/util/json_text.c with jansson as the oracle: for any input,
 * imx_json_put_norm succeeds exactly when json_loads(JSON_DECODE_ANY) does, and then writes what
 * json_dumps(JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15)) prints (inputs with a
 * repeated key or nesting past 60 are left out, json_text.h says how they differ, and so are
 * inputs with a NUL byte). Every member
 * the scanner finds in the copy is the object's member in jansson's tree, in order. Built with
 * -DIMX_LIBFUZZER for libFuzzer, otherwise a bounded, deterministic run from seeds (part of the
 * unit tests). */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "util/json_text.h"

#define FUZZ_INPUT_MAX 512

static long loaded; /* inputs jansson loaded and the copy matched */

static size_t nesting(const uint8_t *s, size_t n)
{
    size_t depth = 0, most = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '[' || s[i] == '{')
            most = ++depth > most ? depth : most;
        else if ((s[i] == ']' || s[i] == '}') && depth)
            depth--;
    return most;
}

/* The scanner's members of the compact object text equal the tree's, in order. */
static void check_members(const char *text, size_t n, json_t *obj)
{
    struct imx_jspan it = { text, n }, key, value;
    size_t count = 0;
    const char *name;
    json_t *v;
    void *iter = json_object_iter(obj);
    while (imx_json_next_member(&it, &key, &value)) {
        CHECK(iter != NULL);
        name = json_object_iter_key(iter);
        v = json_object_iter_value(iter);
        json_t *k = json_string(name);
        char *want_key = json_dumps(k, JSON_ENCODE_ANY | JSON_COMPACT);
        char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
        CHECK(want_key && key.n == strlen(want_key) && memcmp(key.p, want_key, key.n) == 0);
        CHECK(want && value.n == strlen(want) && memcmp(value.p, want, value.n) == 0);
        free(want_key);
        free(want);
        json_decref(k);
        iter = json_object_iter_next(obj, iter);
        count++;
    }
    CHECK(iter == NULL && count == json_object_size(obj));
}

int imx_fuzz_one(const uint8_t *data, size_t size)
{
    if (size > FUZZ_INPUT_MAX)
        size = FUZZ_INPUT_MAX;
    /* jansson's buffer reader takes a NUL byte for the end at some places (PostgreSQL's text
     * never holds one): left out, as deep nesting is */
    if (memchr(data, 0, size) || nesting(data, size) > 60)
        return 0;
    json_error_t err;
    json_t *tree = json_loadb((const char *)data, size, JSON_DECODE_ANY, &err);
    json_t *strict =
        tree ? json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err)
             : NULL;
    bool dup = tree && !strict;
    json_decref(strict);
    struct imx_jbuf b = { 0 };
    imx_jbuf_puts(&b, "x"); /* a failed copy leaves what was there */
    bool ok = imx_json_put_norm(&b, (const char *)data, size);
    if (!dup) {
        CHECK(ok == (tree != NULL));
        if (tree) {
            char *want = json_dumps(tree, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
            CHECK(want && b.len == strlen(want) + 1 && memcmp(b.p + 1, want, b.len - 1) == 0);
            free(want);
            loaded++;
            if (json_is_object(tree))
                check_members(b.p + 1, b.len - 1, tree);
        } else {
            CHECK(b.len == 1 && strcmp(b.p, "x") == 0);
        }
    }
    json_decref(tree);
    imx_jbuf_free(&b);
    return 0;
}

#ifndef IMX_LIBFUZZER

/* PostgreSQL's json and jsonb text as the stored documents have it, and edge cases. */
static const char *const seeds[] = {
    "{\"id\" : 91699, \"family\" : \"platform-198\", \"os\" : {\"name\" : \"ubuntu\", "
    "\"version\" : \"24.04\"}, \"size_gb\" : 98.40, \"components\" : {\"cuda\" : \"12.2.2\"}, "
    "\"gpus\" : [\"A10G\", \"T4\"], \"tags\" : []}",
    "{\"ok\": true, \"errors\": [], \"warnings\": [{\"code\": \"x\", \"message\": \"a\\u001fb\"}]}",
    "{\"llama-3-8b\" : 0.30000000000000004, \"resnet50\" : 1e+20}",
    "[1.5e-07, -0, -0.0, 1E5, 123456789012345678, 9223372036854775807, -9223372036854775808]",
    "[9223372036854775808, 1e400, 1e-400, 0.1234567890123456789]",
    "\"caf\xc3\xa9 \\u00e9 \\ud83d\\ude00 \\/ \\b\\f\\n\\r\\t \\u000b \\u007f\"",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "\"\\udc00x\"",
    "\"\xed\xa0\x80\"",
    "\"\xc0\xaf\"",
    "null",
    "true",
    "  false  ",
    "{\"a\":1,\"a\":2}",
    "{\"a\" : [1, {\"b\" : null}], \"c\" : \"}\\\"]\"}",
    "[01]",
    "[1.]",
    "[.5]",
    "[-]",
    "{\"a\" 1}",
    "[1,]",
    "{} x",
};

static void report(void)
{
    printf(", %ld of them JSON", loaded);
}

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),
    .alphabet = "{}[]\":, 0123456789.eE+-\\utrfnlasbx/\x01\x1f\x7f\xc3\xa9\xed\xf0\x9f\xff",
    .max_edits = 3,
    .raw_one_in = 8,
    .cap = FUZZ_INPUT_MAX,
    .iterations = 1000000,
    .rng = 0x9e3779b97f4a7c15u,
    .jansson_seed = true,
    .report = report,
};

#endif /* IMX_LIBFUZZER */
