/* What the fuzz targets' deterministic runs (outside libFuzzer) share: a fixed-seed xorshift
 * generator and the byte edits that turn a seed into an input. Each target keeps its seeds, its
 * alphabet and its invariants; the targets whose inputs have a grammar of their own (versions,
 * CSAF, package versions, probe output) also keep their own mutators over this generator. */
#ifndef IMX_FUZZ_DRIVER_H
#define IMX_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* xorshift64: the next 32 bits of *state (never 0: start from a nonzero seed). */
static inline uint32_t imx_fuzz_rng(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (uint32_t)(*state >> 32);
}

/* 1 to max_edits edits of buf[0..*len) (at most cap bytes): each inserts, replaces or deletes a
 * byte at a random place; inserted and replacing bytes come from alphabet (NUL-terminated), an
 * inserted one is instead any byte value one time in raw_one_in (0: never). */
static inline void imx_fuzz_edit(uint64_t *rng, unsigned char *buf, size_t *len, size_t cap,
                                 const char *alphabet, unsigned max_edits, unsigned raw_one_in)
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

#endif
