/* The If-Match list, apart from the request so that a fuzz target can reach it
 * (tests/fuzz/fuzz_if_match.c); api/etag.c answers with it. */
#include "http/if_match.h"

#include <stdio.h>
#include <string.h>

bool imx_if_match_names(const char *if_match, long long rev)
{
    char want[32];
    int n = snprintf(want, sizeof want, "\"r%lld\"", rev);
    for (const char *p = if_match; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (*p == '*')
            return true;
        size_t len = strcspn(p, ",");
        size_t trim = len;
        while (trim > 0 && (p[trim - 1] == ' ' || p[trim - 1] == '\t'))
            trim--;
        if (trim == (size_t)n && memcmp(p, want, trim) == 0)
            return true;
        p += len;
    }
    return false;
}
