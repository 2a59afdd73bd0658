/* If-Match (see conditional.h). */
#include "http/conditional.h"

#include <stdbool.h>
#include <string.h>

static bool ows(char c)
{
    return c == ' ' || c == '\t';
}

/* etagc: %x21 / %x23-7E / obs-text. */
static bool etagc(unsigned char c)
{
    return c == 0x21 || (c >= 0x23 && c != 0x7f);
}

enum imx_if_match imx_if_match(const char *header, const char *etag)
{
    const char *p = header;
    while (ows(*p))
        p++;
    if (*p == '*') {
        /* "*" stands alone: "*garbage" or "\"r1\", *" is no If-Match value. */
        for (p++; ows(*p); p++)
            ;
        return *p ? IMX_IF_MATCH_MALFORMED : IMX_IF_MATCH_YES;
    }
    size_t want = strlen(etag);
    bool listed = false, any = false;
    for (;;) {
        while (ows(*p) || *p == ',')
            p++;
        if (!*p)
            break;
        bool weak = false;
        if (p[0] == 'W' && p[1] == '/') {
            weak = true;
            p += 2;
        }
        if (*p != '"')
            return IMX_IF_MATCH_MALFORMED;
        const char *q = p + 1;
        while (*q && etagc((unsigned char)*q))
            q++;
        if (*q != '"')
            return IMX_IF_MATCH_MALFORMED;
        size_t len = (size_t)(q - p) + 1;
        if (!weak && len == want && memcmp(p, etag, len) == 0)
            listed = true;
        any = true;
        p = q + 1;
        while (ows(*p))
            p++;
        if (*p && *p != ',')
            return IMX_IF_MATCH_MALFORMED;
    }
    if (!any)
        return IMX_IF_MATCH_MALFORMED;
    return listed ? IMX_IF_MATCH_YES : IMX_IF_MATCH_NO;
}
