/* Fuzz target for the Cookie header parser (server/auth/session.c, imx_session_cookie_in): for
 * any header, a value found is one the header carries right after "name=" as a whole pair (not
 * inside "ximaxe_session="), is not empty, holds no ';' and no trailing blank, and fits the
 * buffer, which is never overrun; a pair put first is the one found; a pair appended to a header
 * that names no such cookie is found. Built with -DIMX_LIBFUZZER for libFuzzer, otherwise a
 * bounded, deterministic run from seeds (part of the unit tests). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/session.h"
#include "driver.h"

#define FUZZ_INPUT_MAX 4096
#define NAME           IMX_SESSION_COOKIE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, input)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\ninput: '%s'\n", __FILE__, __LINE__,      \
                    #cond, (input));                                                               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Whether h holds "NAME=" + v at the start of a pair (after the start, ' ' or ';'). */
static bool carried(const char *h, const char *v)
{
    size_t n = strlen(NAME);
    for (const char *p = h; (p = strstr(p, NAME "=")) != NULL; p++)
        if ((p == h || p[-1] == ' ' || p[-1] == ';') && strncmp(p + n + 1, v, strlen(v)) == 0)
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FUZZ_INPUT_MAX)
        return 0;
    /* The first byte picks the buffer's size (1 to 64), the rest is the header. */
    size_t len = 1 + data[0] % 64;
    char *h = malloc(size);
    if (!h)
        return 0;
    memcpy(h, data + 1, size - 1);
    h[size - 1] = '\0';
    /* A guard byte after the buffer shows an overrun without a sanitizer too. */
    char out[66];
    memset(out, 0x5a, sizeof out);
    bool found = imx_session_cookie_in(h, NAME, out, len);
    CHECK(out[len] == 0x5a && out[65] == 0x5a, h);
    if (found) {
        size_t vl = strnlen(out, len);
        CHECK(vl > 0 && vl < len, h);
        CHECK(!strchr(out, ';') && out[vl - 1] != ' ', h);
        CHECK(carried(h, out), h);
    }
    /* No room at all: nothing is found and nothing written. */
    char none[1] = { 0x5a };
    CHECK(!imx_session_cookie_in(h, NAME, none, 0) && none[0] == 0x5a, h);
    static char more[FUZZ_INPUT_MAX + 64];
    /* A pair put first wins whatever follows. */
    snprintf(more, sizeof more, "%s=first; %s", NAME, h);
    CHECK(imx_session_cookie_in(more, NAME, out, sizeof out - 1) && strcmp(out, "first") == 0,
          more);
    /* A header that names no such cookie finds one appended to it. */
    if (!strstr(h, NAME "=")) {
        snprintf(more, sizeof more, "%s; %s=last", h, NAME);
        CHECK(imx_session_cookie_in(more, NAME, out, sizeof out - 1) && strcmp(out, "last") == 0,
              more);
    }
    free(h);
    return 0;
}

#ifndef IMX_LIBFUZZER

#define FUZZ_ITERATIONS 200000

static const char *const seeds[] = {
    "\x40imaxe_session=imxs_abc; imaxe_csrf=x",
    "\x40ximaxe_session=evil; imaxe_session=good",
    "\x05imaxe_session=toolongforfive",
    "\x40 ; ;imaxe_session=v  ;",
    "\x40imaxe_session=; imaxe_session=second",
    "\x40imaxe_session",
    "\x40other=1;imaxe_session=a=b",
    "\x40",
};

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

int main(void)
{
    static const char alphabet[] = "imaxe_sion=; xy\t";
    static char buf[FUZZ_INPUT_MAX];
    size_t nseeds = sizeof seeds / sizeof seeds[0];
    for (size_t i = 0; i < nseeds; i++)
        LLVMFuzzerTestOneInput((const uint8_t *)seeds[i], strlen(seeds[i]));
    for (long it = 0; it < FUZZ_ITERATIONS; it++) {
        const char *seed = seeds[imx_fuzz_rng(&rng_state) % nseeds];
        size_t len = strlen(seed) - 1;
        buf[0] = (char)(imx_fuzz_rng(&rng_state) % 256);
        memcpy(buf + 1, seed + 1, len);
        imx_fuzz_edit(&rng_state, (unsigned char *)buf + 1, &len, sizeof buf - 2, alphabet, 4, 50);
        LLVMFuzzerTestOneInput((const uint8_t *)buf, len + 1);
    }
    printf("fuzz_cookie: %ld inputs ok\n", FUZZ_ITERATIONS + (long)nseeds);
    return 0;
}

#endif /* IMX_LIBFUZZER */
