/* Fuzz target for the list cursors (server/api/cursor.c): any text offered as ?cursor= is
 * refused or decodes to a key that encodes back to a cursor decoding to the same key; any JSON
 * key that encodes decodes to itself; and a cursor edited anywhere is refused or still means the
 * same key (the HMAC covers the decoded text). Built with -DIMX_LIBFUZZER for libFuzzer,
 * otherwise a bounded, deterministic run from seeds (part of the unit tests). */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "api/cursor.h"

#define FUZZ_INPUT_MAX 1024

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, input)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\ninput: '%s'\n", __FILE__, __LINE__,      \
                    #cond, (input));                                                               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static void set_key(void)
{
    static bool done;
    static const unsigned char key[32] = "imaxe fuzz cursor key, 32 bytes";
    if (!done && imx_cursor_set_key(key, sizeof key) == 0)
        done = true;
}

/* key encodes (or is too long to) and, when it does, decodes to itself; every one-byte edit of
 * its cursor is refused or decodes to the same key. */
static void round_trip(const json_t *key, const char *input)
{
    char cur[IMX_CURSOR_MAX];
    if (imx_cursor_encode(key, cur, sizeof cur) != 0)
        return;
    json_t *back = imx_cursor_decode(cur);
    CHECK(back && json_equal(back, key), input);
    json_decref(back);
    size_t n = strlen(cur);
    for (size_t i = 0; i < n; i += 1 + n / 16) {
        char saved = cur[i];
        cur[i] = saved == 'A' ? 'B' : 'A';
        json_t *edited = imx_cursor_decode(cur);
        CHECK(!edited || json_equal(edited, key), input);
        json_decref(edited);
        cur[i] = saved;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_INPUT_MAX)
        return 0;
    set_key();
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    /* As a cursor someone sent. */
    json_t *k = imx_cursor_decode(s);
    if (k)
        round_trip(k, s);
    json_decref(k);
    /* As a key the server would put in a cursor. */
    json_t *j =
        json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
    if (j)
        round_trip(j, s);
    json_decref(j);
    free(s);
    return 0;
}

#ifndef IMX_LIBFUZZER

#define FUZZ_ITERATIONS 20000

static const char *const seeds[] = {
    "[42]",
    "[\"2026-11-30T10:00:00Z\", 17]",
    "[\"cuda\", \"12.4.1\", {\"k\": [1, 2]}]",
    "[\"\\u00e9\\u20ac\", -1, 9007199254740993]",
    "W1sxXV0.AAAAAAAAAAAAAAAAAAAAAA",
    "e30.",
    ".",
};

static uint64_t rng_state = 0xda3e39cb94b95bdbu;

int main(void)
{
    static const char alphabet[] = "[]{}\",:0123456789-.eAZaz_\\u ";
    static char buf[FUZZ_INPUT_MAX];
    size_t nseeds = sizeof seeds / sizeof seeds[0];
    json_object_seed(1);
    for (size_t i = 0; i < nseeds; i++)
        LLVMFuzzerTestOneInput((const uint8_t *)seeds[i], strlen(seeds[i]));
    for (long it = 0; it < FUZZ_ITERATIONS; it++) {
        const char *seed = seeds[imx_fuzz_rng(&rng_state) % nseeds];
        size_t len = strlen(seed);
        memcpy(buf, seed, len);
        imx_fuzz_edit(&rng_state, (unsigned char *)buf, &len, sizeof buf - 1, alphabet, 3, 32);
        LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
    }
    printf("fuzz_cursor: %ld inputs ok\n", FUZZ_ITERATIONS + (long)nseeds);
    return 0;
}

#endif /* IMX_LIBFUZZER */
