/* The fuzz targets' shared driver (see driver.h): libFuzzer's entry point, the failure report, the
 * fixed-seed generator and byte edits, and the deterministic run ctest uses (unit.fuzz_*). */
#include "driver.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input being checked, for the failure report. */
static const uint8_t *current;
static size_t current_size;

static void put_escaped(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\' ? "%c" : "\\x%02x", s[i]);
    fputc('\n', stderr);
}

_Noreturn void imx_fuzz_fail(const char *file, int line, const char *cond, const char *also)
{
    fprintf(stderr, "%s:%d: invariant failed: %s\ninput: ", file, line, cond);
    put_escaped(current, current_size);
    if (also) {
        fprintf(stderr, "on: ");
        put_escaped((const uint8_t *)also, strlen(also));
    }
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    current = data;
    current_size = size;
    return imx_fuzz_one(data, size);
}

uint32_t imx_fuzz_rng(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (uint32_t)(*state >> 32);
}

size_t imx_fuzz_pick(uint64_t *state, size_t n)
{
    return (size_t)(imx_fuzz_rng(state) % n);
}

void imx_fuzz_edit(uint64_t *rng, unsigned char *buf, size_t *len, size_t cap, const char *alphabet,
                   unsigned max_edits, unsigned raw_one_in)
{
    size_t alen = strlen(alphabet);
    for (unsigned edits = 1 + imx_fuzz_rng(rng) % max_edits; edits > 0; edits--) {
        size_t n = *len, at = n ? imx_fuzz_rng(rng) % (n + 1) : 0;
        unsigned r = imx_fuzz_rng(rng) % 3;
        if (r == 0 && n < cap) { /* insert */
            memmove(buf + at + 1, buf + at, n - at);
            buf[at] = raw_one_in && imx_fuzz_rng(rng) % raw_one_in == 0
                          ? (unsigned char)(imx_fuzz_rng(rng) % 256)
                          : (unsigned char)alphabet[imx_fuzz_rng(rng) % alen];
            *len = n + 1;
        } else if (r == 1 && at < n) { /* replace */
            buf[at] = (unsigned char)alphabet[imx_fuzz_rng(rng) % alen];
        } else if (at < n) { /* delete */
            memmove(buf + at, buf + at + 1, n - at - 1);
            *len = n - 1;
        }
    }
}

#ifndef IMX_LIBFUZZER

/* A seed's length: its head bytes (which may be NUL) and the string after them. */
static size_t seed_len(const struct imx_fuzz_replay *r, const char *seed)
{
    return r->head + strlen(seed + r->head);
}

int main(int argc, char **argv)
{
    (void)argc;
    const struct imx_fuzz_replay *r = &imx_fuzz_replay;
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    unsigned char *buf = malloc(r->cap + 1);
    if (!buf)
        return 1;
    uint64_t rng = r->rng;
    if (r->jansson_seed)
        json_object_seed(1);
    for (size_t i = 0; i < r->nseeds; i++)
        LLVMFuzzerTestOneInput((const uint8_t *)r->seeds[i], seed_len(r, r->seeds[i]));
    for (long it = 0; it < r->iterations; it++) {
        size_t len;
        if (r->generate) {
            len = r->generate(&rng, buf, r->cap);
        } else {
            const char *seed = r->seeds[imx_fuzz_pick(&rng, r->nseeds)];
            len = seed_len(r, seed);
            memcpy(buf, seed, len);
            buf[len] = '\0';
            if (r->mutate) {
                r->mutate(&rng, buf, &len, r->cap);
            } else {
                size_t text = len - r->head;
                imx_fuzz_edit(&rng, buf + r->head, &text, r->cap - r->head, r->alphabet,
                              r->max_edits, r->raw_one_in);
                len = r->head + text;
            }
        }
        LLVMFuzzerTestOneInput(buf, len);
    }
    printf("%s: %ld inputs ok", name, r->iterations + (long)r->nseeds);
    if (r->report)
        r->report();
    printf("\n");
    free(buf);
    return 0;
}

#endif /* IMX_LIBFUZZER */
