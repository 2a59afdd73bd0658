/* Fuzz target for server/util/urlcode.c: percent-decoding and the UTF-8 check on any input, with
 * their invariants. Built with -DIMX_LIBFUZZER for libFuzzer, otherwise a bounded, deterministic
 * run from seeds (part of the unit tests). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "util/urlcode.h"

#define FUZZ_INPUT_MAX 512

/* An independent model of strict UTF-8: decode with the Unicode table 3-7 ranges. */
static bool model_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        unsigned char lo = 0x80, hi = 0xbf;
        size_t len;
        if (c <= 0x7f) {
            i++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf)
            len = 2;
        else if (c == 0xe0)
            len = 3, lo = 0xa0;
        else if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef)
            len = 3;
        else if (c == 0xed)
            len = 3, hi = 0x9f;
        else if (c == 0xf0)
            len = 4, lo = 0x90;
        else if (c >= 0xf1 && c <= 0xf3)
            len = 4;
        else if (c == 0xf4)
            len = 4, hi = 0x8f;
        else
            return false;
        if (n - i < len || s[i + 1] < lo || s[i + 1] > hi)
            return false;
        for (size_t k = 2; k < len; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xbf)
                return false;
        i += len;
    }
    return true;
}

int imx_fuzz_one(const uint8_t *data, size_t size)
{
    if (size > FUZZ_INPUT_MAX)
        size = FUZZ_INPUT_MAX;
    CHECK(imx_utf8_valid(data, size) == model_utf8(data, size));

    char buf[FUZZ_INPUT_MAX + 1];
    size_t n = 0;
    for (size_t i = 0; i < size; i++)
        if (data[i])
            buf[n++] = (char)data[i];
    buf[n] = '\0';
    bool bad = false;
    size_t out = imx_percent_decode(buf, &bad);
    CHECK(out <= n);
    CHECK(buf[out] == '\0');
    if (!bad) {
        CHECK(strlen(buf) == out);
        CHECK(model_utf8((const unsigned char *)buf, out));
    }
    /* Decoding what has no '%' changes nothing. */
    if (!memchr(data, '%', size)) {
        char again[FUZZ_INPUT_MAX + 1];
        memcpy(again, buf, out + 1);
        bool bad2 = false;
        CHECK(imx_percent_decode(again, &bad2) == out && memcmp(again, buf, out) == 0);
    }
    return 0;
}

#ifndef IMX_LIBFUZZER

static const char *const seeds[] = {
    "/v1/images",   "gpu=%FF",
    "%C3%A9",       "%c3%a9",
    "%E2%82%AC",    "%F0%9F%98%80",
    "%ED%A0%80",    "%C0%AF",
    "%E0%80%AF",    "%F4%90%80%80",
    "%00",          "%G1",
    "%2",           "%",
    "a%2541",       "%%41",
    "caf\xc3\xa9",  "\xff\xfe",
    "\xed\xa0\x80", "\xf0\x9f\x98\x80",
    "\xe2\x82",
};

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),
    .alphabet = "%0123456789abcdefABCDEFG/?=&+ \x80\xbf\xc2\xc3\xe0\xed\xef\xf0\xf4\xf5\xff",
    .max_edits = 4,
    .raw_one_in = 4,
    .cap = 64,
    .iterations = 300000,
    .rng = 0x2545f4914f6cdd1du,
};

#endif /* IMX_LIBFUZZER */
