/* Fuzz target for server/domain/risk_feeds.c's EPSS reader: any bytes are read or refused without
 * a fault, and what is read is consistent: as many CVEs as scores as percentiles, each array
 * literal braced, holding only the characters a CVE id or a score may have. Built with
 * -DIMX_LIBFUZZER for libFuzzer, otherwise a bounded deterministic run from real rows mutated
 * (part of the unit tests). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/risk_feeds.h"
#include "driver.h"

#define FUZZ_INPUT_MAX 2048

/* Items of a braced array literal made of allowed characters; -1 when it is not one. */
static long items(const char *lit, const char *allowed)
{
    size_t n = strlen(lit);
    if (n < 2 || lit[0] != '{' || lit[n - 1] != '}')
        return -1;
    if (n == 2)
        return 0;
    long count = 1;
    for (size_t i = 1; i + 1 < n; i++) {
        if (lit[i] == ',')
            count++;
        else if (!strchr(allowed, lit[i]))
            return -1;
    }
    return count;
}

int imx_fuzz_one(const uint8_t *data, size_t size)
{
    struct imx_epss e;
    char err[256];
    if (imx_epss_read((const char *)data, size, &e, err, sizeof err) != 0) {
        CHECK(err[0]); /* a refusal always says why */
        return 0;
    }
    long c = items(e.cves, "CVE-0123456789"), s = items(e.scores, "0123456789."),
         p = items(e.percentiles, "0123456789.");
    CHECK(c >= 0 && c == s && c == p && (size_t)c == e.rows && strlen(e.score_date) == 10);
    /* Every score lies between 0 and 1. */
    for (const char *lists[] = { e.scores, e.percentiles, NULL }, **l = lists; *l; l++)
        for (const char *q = *l + 1; *q && *q != '}';
             q += strcspn(q, ",}") + (q[strcspn(q, ",}")] == ','))
            CHECK(strtod(q, NULL) >= 0 && strtod(q, NULL) <= 1);
    imx_epss_free(&e);
    return 0;
}

#ifndef IMX_LIBFUZZER

static const char *const seeds[] = {
    "#model_version:v2023.03.01,score_date:2024-12-05T00:00:00+0000\ncve,epss,percentile\n"
    "CVE-1999-0001,0.01141,0.84154\nCVE-2024-3400,0.95823,0.99523\n",
    "#score_date:2025-03-17,model_version:v2025.03.14\r\ncve,epss,percentile\r\n"
    "CVE-2024-0132,0.00233,0.61812\r\n",
    "#model_version:v4,score_date:2024-12-05\ncve,epss,percentile\nCVE-2014-6271,1,1.00000",
};

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),
    .alphabet = "0123456789.,-:#\n\rCVEcve",
    .max_edits = 4,
    .raw_one_in = 8,
    .cap = FUZZ_INPUT_MAX - 1,
    .iterations = 40000,
    .rng = 0x2545f4914f6cdd1du,
};

#endif /* IMX_LIBFUZZER */
