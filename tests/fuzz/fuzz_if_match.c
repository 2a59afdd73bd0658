/* Fuzz target for server/http/if_match.c: any If-Match text against any revision, checked
 * against a model written from RFC 9110's grammar as imaxe reads it (a list of "*" or strong
 * entity tags, blanks and empty elements allowed). Built with -DIMX_LIBFUZZER for libFuzzer,
 * otherwise a bounded, deterministic run from seeds (part of the unit tests). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "http/if_match.h"

#define FUZZ_INPUT_MAX 2048

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, input)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\ninput: '%s'\n", __FILE__, __LINE__,      \
                    #cond, (input));                                                               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The model: split at commas; an element, its blanks trimmed, is "*"-led or the exact tag. */
static bool model(const char *s, long long rev)
{
    char want[32];
    snprintf(want, sizeof want, "\"r%lld\"", rev);
    const char *p = s;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t a = 0, b = len;
        while (a < b && (p[a] == ' ' || p[a] == '\t'))
            a++;
        while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t'))
            b--;
        if (a < b && p[a] == '*')
            return true;
        if (b - a == strlen(want) && memcmp(p + a, want, b - a) == 0)
            return true;
        if (!end)
            return false;
        p = end + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > FUZZ_INPUT_MAX)
        return 0;
    /* The first two bytes pick the revision (small ones, so that tags in the text can match). */
    long long rev = (long long)(data[0] | (unsigned)data[1] << 8) - 2;
    char *s = malloc(size - 1);
    if (!s)
        return 0;
    memcpy(s, data + 2, size - 2);
    s[size - 2] = '\0';
    CHECK(imx_if_match_names(s, rev) == model(s, rev), s);
    /* The tag itself, anywhere in a list, always names it. */
    char list[FUZZ_INPUT_MAX + 64];
    snprintf(list, sizeof list, "%s, \"r%lld\"", s, rev);
    CHECK(imx_if_match_names(list, rev), list);
    free(s);
    return 0;
}

#ifndef IMX_LIBFUZZER

#define FUZZ_ITERATIONS 200000

static const char *const seeds[] = {
    "\x07\x00\"r5\"",  "\x07\x00 \"r4\" , \"r5\"", "\x00\x00*",      "\x07\x00W/\"r5\"",
    "\x07\x00\"r5\"x", "\x0c\x00,,\t\"r10\"\t,",   "\x02\x00\"r0\"", "\x01\x00\"r-1\"",
};

static uint64_t rng_state = 0x853c49e6748fea9bu;

int main(void)
{
    static const char alphabet[] = "\"r0123456789-*, \tW/";
    static char buf[FUZZ_INPUT_MAX];
    size_t nseeds = sizeof seeds / sizeof seeds[0];
    for (size_t i = 0; i < nseeds; i++)
        LLVMFuzzerTestOneInput((const uint8_t *)seeds[i], 2 + strlen(seeds[i] + 2));
    for (long it = 0; it < FUZZ_ITERATIONS; it++) {
        const char *seed = seeds[imx_fuzz_rng(&rng_state) % nseeds];
        size_t len = 2 + strlen(seed + 2);
        memcpy(buf, seed, len);
        /* Edit only the text: the revision bytes stay (they may be NUL). */
        size_t tl = len - 2;
        imx_fuzz_edit(&rng_state, (unsigned char *)buf + 2, &tl, sizeof buf - 3, alphabet, 3, 0);
        LLVMFuzzerTestOneInput((const uint8_t *)buf, tl + 2);
    }
    printf("fuzz_if_match: %ld inputs ok\n", FUZZ_ITERATIONS + (long)nseeds);
    return 0;
}

#endif /* IMX_LIBFUZZER */
