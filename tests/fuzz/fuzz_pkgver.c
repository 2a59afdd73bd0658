/* Fuzz target for server/domain/pkgver.c: the input is three versions separated by newlines,
 * read in both orders (dpkg and rpm). Checks that the order is consistent: antisymmetric
 * (cmp(a,b) = -cmp(b,a)), transitive over the three, reflexive, and that the byte keys order
 * exactly as the distros' algorithms do (so SQL ranges over keys match what dpkg and rpm say).
 * Built with -DIMX_LIBFUZZER for libFuzzer, otherwise a bounded deterministic run from real
 * versions mutated (part of the unit tests). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "domain/pkgver.h"

#define FUZZ_INPUT_MAX 512

static int key_cmp(enum imx_pkg_order o, const char *a, const char *b)
{
    unsigned char ka[IMX_PKGVER_KEY_MAX], kb[IMX_PKGVER_KEY_MAX];
    size_t na, nb;
    CHECK(imx_pkgver_key(o, a, ka, &na) == 0 && imx_pkgver_key(o, b, kb, &nb) == 0);
    int rc = memcmp(ka, kb, na < nb ? na : nb);
    if (rc == 0 && na != nb)
        rc = na < nb ? -1 : 1;
    return rc < 0 ? -1 : rc > 0 ? 1 : 0;
}

static void check_order(enum imx_pkg_order o, char *v[3])
{
    bool ok[3];
    for (int i = 0; i < 3; i++) {
        ok[i] = imx_pkgver_valid(o, v[i]);
        unsigned char k[IMX_PKGVER_KEY_MAX];
        size_t n;
        CHECK((imx_pkgver_key(o, v[i], k, &n) == 0) == ok[i]);
        if (ok[i])
            CHECK(imx_pkgver_cmp(o, v[i], v[i]) == 0);
    }
    int c[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            c[i][j] = ok[i] && ok[j] ? imx_pkgver_cmp(o, v[i], v[j]) : 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            if (!ok[i] || !ok[j])
                continue;
            CHECK(c[i][j] == -c[j][i]);
            CHECK(c[i][j] == key_cmp(o, v[i], v[j]));
            for (int k = 0; k < 3; k++) {
                if (!ok[k])
                    continue;
                if (c[i][j] <= 0 && c[j][k] <= 0)
                    CHECK(c[i][k] <= 0);
                if (c[i][j] == 0 && c[j][k] == 0)
                    CHECK(c[i][k] == 0);
            }
        }
}

int imx_fuzz_one(const uint8_t *data, size_t size)
{
    if (size > FUZZ_INPUT_MAX)
        return 0;
    char buf[FUZZ_INPUT_MAX + 1];
    memcpy(buf, data, size);
    buf[size] = '\0';
    if (strlen(buf) != size)
        return 0; /* an embedded NUL */
    char *v[3] = { buf, "", "" };
    char *nl = strchr(buf, '\n');
    if (nl) {
        *nl = '\0';
        v[1] = nl + 1;
        nl = strchr(v[1], '\n');
        if (nl) {
            *nl = '\0';
            v[2] = nl + 1;
        }
    }
    check_order(IMX_PKG_DPKG, v);
    check_order(IMX_PKG_RPM, v);
    return 0;
}

#ifndef IMX_LIBFUZZER

static const char *const seeds[] = {
    "3.0.13-0ubuntu3.5",
    "3.0.13-0ubuntu3.10",
    "1:2.4.1~rc1-2",
    "1.0~~a",
    "1:9.6p1-3ubuntu13.5",
    "2.36-9+deb12u10",
    "1.0^git1",
    "1:3.0.7-28.el9_4",
    "5.14.0-427.13.1.el9_4",
    "1.1.alpha",
    "2:8.2.2637-20.el9_1",
    "20240203",
    "1.0.",
    "0:1.0-0",
    "1.001",
    "1.0~rc1^git1",
};

/* The characters versions are made of, weighted towards the ones the orders treat specially. */
static const char alphabet[] = "0000111299aabzZ~~^^..--::++__pq";

static void mutate(uint64_t *rng, char *s, size_t *len, size_t cap)
{
    switch (imx_fuzz_pick(rng, 4)) {
    case 0: /* replace */
        if (*len)
            s[imx_fuzz_pick(rng, *len)] = alphabet[imx_fuzz_pick(rng, sizeof alphabet - 1)];
        break;
    case 1: /* insert */
        if (*len + 1 < cap) {
            size_t at = imx_fuzz_pick(rng, *len + 1);
            memmove(s + at + 1, s + at, *len - at);
            s[at] = alphabet[imx_fuzz_pick(rng, sizeof alphabet - 1)];
            (*len)++;
        }
        break;
    case 2: /* delete */
        if (*len) {
            size_t at = imx_fuzz_pick(rng, *len);
            memmove(s + at, s + at + 1, *len - at - 1);
            (*len)--;
        }
        break;
    default: /* truncate */
        if (*len)
            *len = imx_fuzz_pick(rng, *len) + 1;
        break;
    }
}

/* Three seeds, each edited up to three times, one a line. */
static size_t generate(uint64_t *rng, unsigned char *input, size_t cap)
{
    size_t nseeds = sizeof seeds / sizeof seeds[0], off = 0;
    char one[64];
    (void)cap; /* three lines of under 64 bytes */
    for (int i = 0; i < 3; i++) {
        const char *seed = seeds[imx_fuzz_pick(rng, nseeds)];
        size_t len = strlen(seed);
        memcpy(one, seed, len);
        int edits = (int)imx_fuzz_pick(rng, 4);
        for (int e = 0; e < edits; e++)
            mutate(rng, one, &len, sizeof one);
        memcpy(input + off, one, len);
        off += len;
        if (i < 2)
            input[off++] = '\n';
    }
    return off;
}

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),      .cap = 200,           .iterations = 300000,
    .rng = 0x9e3779b97f4a7c15u, .generate = generate,
};

#endif /* IMX_LIBFUZZER */
