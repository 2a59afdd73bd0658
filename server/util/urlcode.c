/* Percent-decoding and UTF-8 validation for request URLs. */
#include "util/urlcode.h"

#include <stdint.h>

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool imx_utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t len;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (n - i < len)
            return false;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += len;
    }
    return true;
}

size_t imx_percent_decode(char *s, bool *bad)
{
    char *out = s;
    bool wrong = false;
    for (const char *p = s; *p; p++) {
        if (*p != '%') {
            *out++ = *p;
            continue;
        }
        int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
        if (hi < 0 || lo < 0) {
            wrong = true;
            *out++ = *p;
            continue;
        }
        char c = (char)(hi * 16 + lo);
        if (c == '\0')
            wrong = true; /* a NUL would cut the value short */
        *out++ = c;
        p += 2;
    }
    *out = '\0';
    size_t n = (size_t)(out - s);
    if (wrong || !imx_utf8_valid((const unsigned char *)s, n))
        *bad = true;
    return n;
}
