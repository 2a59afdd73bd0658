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

static void set_key(void)
{
    static bool done;
    static const unsigned char key[32] = "imaxe fuzz cursor key, 32 bytes";
    if (!done && imx_cursor_set_key(key, sizeof key) == 0)
        done = true;
}

/* key encodes (or is too long to) and, when it does, decodes to itself; every one-byte edit of
 * its cursor is refused or decodes to the same key. */
static void round_trip(const json_t *key)
{
    char cur[IMX_CURSOR_MAX];
    if (imx_cursor_encode(key, cur, sizeof cur) != 0)
        return;
    json_t *back = imx_cursor_decode(cur);
    CHECK(back && json_equal(back, key));
    json_decref(back);
    size_t n = strlen(cur);
    for (size_t i = 0; i < n; i += 1 + n / 16) {
        char saved = cur[i];
        cur[i] = saved == 'A' ? 'B' : 'A';
        json_t *edited = imx_cursor_decode(cur);
        CHECK(!edited || json_equal(edited, key));
        json_decref(edited);
        cur[i] = saved;
    }
}

int imx_fuzz_one(const uint8_t *data, size_t size)
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
        round_trip(k);
    json_decref(k);
    /* As a key the server would put in a cursor. */
    json_t *j =
        json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
    if (j)
        round_trip(j);
    json_decref(j);
    free(s);
    return 0;
}

#ifndef IMX_LIBFUZZER

static const char *const seeds[] = {
    "[42]",
    "[\"2026-11-30T10:00:00Z\", 17]",
    "[\"cuda\", \"12.4.1\", {\"k\": [1, 2]}]",
    "[\"\\u00e9\\u20ac\", -1, 9007199254740993]",
    "W1sxXV0.AAAAAAAAAAAAAAAAAAAAAA",
    "e30.",
    ".",
};

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),
    .alphabet = "[]{}\",:0123456789-.eAZaz_\\u ",
    .max_edits = 3,
    .raw_one_in = 32,
    .cap = FUZZ_INPUT_MAX - 1,
    .iterations = 20000,
    .rng = 0xda3e39cb94b95bdbu,
    .jansson_seed = true,
};

#endif /* IMX_LIBFUZZER */
