/* The fuzz targets' shared driver (driver.c). A target defines imx_fuzz_one(), its checks on one
 * input, and, outside libFuzzer, an imx_fuzz_replay: its seeds and how to vary them. driver.c
 * supplies the rest: libFuzzer's entry point, the invariant failure report, and the bounded
 * deterministic run that ctest calls (each seed alone, then fixed-seed mutants of them). Built
 * with -DIMX_LIBFUZZER (tools/fuzz.sh) the same target is a libFuzzer binary. */
#ifndef IMX_FUZZ_DRIVER_H
#define IMX_FUZZ_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The target's checks on one input (data[0..size), no NUL added); 0. CHECK aborts on a failure. */
int imx_fuzz_one(const uint8_t *data, size_t size);

/* Reports a failed invariant with the input being checked (and also, when not NULL, the text
 * derived from it that failed), and aborts so that libFuzzer or ctest sees the crash. */
_Noreturn void imx_fuzz_fail(const char *file, int line, const char *cond, const char *also);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            imx_fuzz_fail(__FILE__, __LINE__, #cond, NULL);                                        \
    } while (0)
/* CHECK on a text made from the input (printed with it). */
#define CHECK_ON(cond, text)                                                                       \
    do {                                                                                           \
        if (!(cond))                                                                               \
            imx_fuzz_fail(__FILE__, __LINE__, #cond, (text));                                      \
    } while (0)

/* xorshift64: the next 32 bits of *state (never 0: start from a nonzero seed). */
uint32_t imx_fuzz_rng(uint64_t *state);
/* A number below n (n > 0) from *state. */
size_t imx_fuzz_pick(uint64_t *state, size_t n);

/* 1 to max_edits edits of buf[0..*len) (at most cap bytes): each inserts, replaces or deletes a
 * byte at a random place; inserted and replacing bytes come from alphabet (NUL-terminated), an
 * inserted one is instead any byte value one time in raw_one_in (0: never). */
void imx_fuzz_edit(uint64_t *rng, unsigned char *buf, size_t *len, size_t cap, const char *alphabet,
                   unsigned max_edits, unsigned raw_one_in);

/* The deterministic run of a target (not built for libFuzzer). Each iteration picks a seed,
 * copies it into a buffer of cap + 1 bytes (NUL after the copy) and varies it: by mutate when
 * set, otherwise by imx_fuzz_edit(alphabet, max_edits, raw_one_in) of all but its head. */
struct imx_fuzz_replay {
    const char *const *seeds;
    size_t nseeds;
    /* Leading bytes of every seed that are parameters, not text: they may be NUL (a seed is head
     * bytes plus a string) and the default edits leave them. */
    size_t head;
    const char *alphabet;
    unsigned max_edits, raw_one_in;
    size_t cap;        /* the longest input the edits make */
    long iterations;   /* mutants, after the seeds */
    uint64_t rng;      /* the generator's fixed, nonzero start */
    bool jansson_seed; /* a fixed hash seed, so that objects iterate in the same order */
    /* Instead of the default edits: varies buf[0..*len) in place, at most cap bytes. */
    void (*mutate)(uint64_t *rng, unsigned char *buf, size_t *len, size_t cap);
    /* Instead of picking a seed at all: writes one input of at most cap bytes, returns its
     * length. */
    size_t (*generate)(uint64_t *rng, unsigned char *buf, size_t cap);
    void (*report)(void); /* appends to the summary line */
};

#define IMX_FUZZ_SEEDS(s) .seeds = (s), .nseeds = sizeof(s) / sizeof((s)[0])

#ifndef IMX_LIBFUZZER
extern const struct imx_fuzz_replay imx_fuzz_replay;
#endif

#endif
