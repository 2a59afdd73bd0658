/* Fuzz target for server/http/conditional.c, the one If-Match parser (RFC 9110 13.1.1: "*"
 * alone, or a list of entity tags compared strongly): any text against any revision, checked
 * for what must hold whatever the text: it never names a revision it does not list as a strong
 * tag, "*" alone names every one, "*" inside a list is refused, and a well-formed list with the
 * tag appended names it. Built with -DIMX_LIBFUZZER for libFuzzer, otherwise a bounded,
 * deterministic run from seeds (part of the unit tests). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "http/conditional.h"

#define FUZZ_INPUT_MAX 2048

/* Does s list want as a strong tag (want not preceded by W/)? */
static bool lists_strongly(const char *s, const char *want)
{
    size_t n = strlen(want);
    for (const char *p = s; (p = strstr(p, want)) != NULL; p += n)
        if (p - s < 2 || memcmp(p - 2, "W/", 2) != 0)
            return true;
    return false;
}

/* s with its surrounding blanks is exactly "*". */
static bool star_alone(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s++ != '*')
        return false;
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '\0';
}

int imx_fuzz_one(const uint8_t *data, size_t size)
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
    char want[32];
    snprintf(want, sizeof want, "\"r%lld\"", rev);
    enum imx_if_match m = imx_if_match(s, want);
    CHECK(m == IMX_IF_MATCH_YES || m == IMX_IF_MATCH_NO || m == IMX_IF_MATCH_MALFORMED);
    /* Never a match it was not given. */
    if (m == IMX_IF_MATCH_YES)
        CHECK(star_alone(s) || lists_strongly(s, want));
    if (star_alone(s))
        CHECK(m == IMX_IF_MATCH_YES);
    /* A well-formed list with the tag appended names it; "*" after a list is refused. */
    char list[FUZZ_INPUT_MAX + 64];
    if (m == IMX_IF_MATCH_NO) {
        snprintf(list, sizeof list, "%s, %s", s, want);
        CHECK_ON(imx_if_match(list, want) == IMX_IF_MATCH_YES, list);
    }
    if (m != IMX_IF_MATCH_MALFORMED && !star_alone(s)) {
        snprintf(list, sizeof list, "%s, *", s);
        CHECK_ON(imx_if_match(list, want) == IMX_IF_MATCH_MALFORMED, list);
    }
    free(s);
    return 0;
}

#ifndef IMX_LIBFUZZER

/* Two bytes of revision, then the header. */
static const char *const seeds[] = {
    "\x07\x00\"r5\"",  "\x07\x00 \"r4\" , \"r5\"", "\x00\x00*",      "\x07\x00W/\"r5\"",
    "\x07\x00\"r5\"x", "\x0c\x00,,\t\"r10\"\t,",   "\x02\x00\"r0\"", "\x01\x00\"r-1\"",
};

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),
    .head = 2,
    .alphabet = "\"r0123456789-*, \tW/",
    .max_edits = 3,
    .cap = FUZZ_INPUT_MAX - 1,
    .iterations = 200000,
    .rng = 0x853c49e6748fea9bu,
};

#endif /* IMX_LIBFUZZER */
