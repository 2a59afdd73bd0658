/* base64url without padding (RFC 4648 section 5), as used in JWTs, tokens and cursors. */
#include "util/base64.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

size_t imx_b64url_encode(const unsigned char *in, size_t n, char *out, size_t outlen)
{
    size_t need = IMX_B64URL_LEN(n), o = 0;
    if (outlen < need + 1)
        return 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned long v = (unsigned long)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned long)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = alphabet[(v >> 18) & 63];
        out[o++] = alphabet[(v >> 12) & 63];
        if (i + 1 < n)
            out[o++] = alphabet[(v >> 6) & 63];
        if (i + 2 < n)
            out[o++] = alphabet[v & 63];
    }
    out[o] = '\0';
    return o;
}

static int sextet(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '-')
        return 62;
    if (c == '_')
        return 63;
    return -1;
}

long imx_b64url_decode(const char *s, size_t slen, unsigned char *out, size_t outlen)
{
    size_t o = 0;
    if (slen % 4 == 1)
        return -1;
    for (size_t i = 0; i < slen; i += 4) {
        size_t chunk = slen - i < 4 ? slen - i : 4;
        unsigned long v = 0;
        for (size_t k = 0; k < 4; k++) {
            int d = k < chunk ? sextet(s[i + k]) : 0;
            if (d < 0)
                return -1;
            v = (v << 6) | (unsigned long)d;
        }
        size_t bytes = chunk - 1;
        /* Unused low bits must be zero, so every value has exactly one encoding. */
        if ((chunk == 2 && (v & 0xffff)) || (chunk == 3 && (v & 0xff)))
            return -1;
        if (o + bytes > outlen)
            return -1;
        out[o++] = (unsigned char)(v >> 16);
        if (bytes > 1)
            out[o++] = (unsigned char)(v >> 8);
        if (bytes > 2)
            out[o++] = (unsigned char)v;
    }
    return (long)o;
}
