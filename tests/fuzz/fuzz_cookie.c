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

/* Whether h holds "NAME=" + v at the start of a pair (after the start, ' ' or ';'). */
static bool carried(const char *h, const char *v)
{
    size_t n = strlen(NAME);
    for (const char *p = h; (p = strstr(p, NAME "=")) != NULL; p++)
        if ((p == h || p[-1] == ' ' || p[-1] == ';') && strncmp(p + n + 1, v, strlen(v)) == 0)
            return true;
    return false;
}

int imx_fuzz_one(const uint8_t *data, size_t size)
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
    CHECK(out[len] == 0x5a && out[65] == 0x5a);
    if (found) {
        size_t vl = strnlen(out, len);
        CHECK(vl > 0 && vl < len);
        CHECK(!strchr(out, ';') && out[vl - 1] != ' ');
        CHECK(carried(h, out));
    }
    /* No room at all: nothing is found and nothing written. */
    char none[1] = { 0x5a };
    CHECK(!imx_session_cookie_in(h, NAME, none, 0) && none[0] == 0x5a);
    static char more[FUZZ_INPUT_MAX + 64];
    /* A pair put first wins whatever follows. */
    snprintf(more, sizeof more, "%s=first; %s", NAME, h);
    CHECK_ON(imx_session_cookie_in(more, NAME, out, sizeof out - 1) && strcmp(out, "first") == 0,
             more);
    /* A header that names no such cookie finds one appended to it. */
    if (!strstr(h, NAME "=")) {
        snprintf(more, sizeof more, "%s; %s=last", h, NAME);
        CHECK_ON(imx_session_cookie_in(more, NAME, out, sizeof out - 1) && strcmp(out, "last") == 0,
                 more);
    }
    free(h);
    return 0;
}

#ifndef IMX_LIBFUZZER

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

/* A new buffer size (the first byte) and edits of the header. */
static void mutate(uint64_t *rng, unsigned char *buf, size_t *len, size_t cap)
{
    size_t text = *len - 1;
    buf[0] = (unsigned char)(imx_fuzz_rng(rng) % 256);
    imx_fuzz_edit(rng, buf + 1, &text, cap - 1, "imaxe_sion=; xy\t", 4, 50);
    *len = text + 1;
}

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),      .head = 1,        .cap = FUZZ_INPUT_MAX - 1, .iterations = 200000,
    .rng = 0x9e3779b97f4a7c15u, .mutate = mutate,
};

#endif /* IMX_LIBFUZZER */
