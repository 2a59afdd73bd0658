/* Bounded growable buffer (see buf.h). */
#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void imx_cli_buf_init(struct imx_cli_buf *b, size_t max)
{
    memset(b, 0, sizeof *b);
    b->max = max;
}

int imx_cli_buf_add(struct imx_cli_buf *b, const char *s, size_t n)
{
    if (b->overflow || n > b->max - b->len) {
        b->overflow = true;
        return -1;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        if (cap > b->max + 1)
            cap = b->max + 1;
        char *p = realloc(b->data, cap);
        if (!p) {
            b->overflow = true;
            return -1;
        }
        b->data = p;
        b->cap = cap;
    }
    if (n > 0)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int imx_cli_buf_puts(struct imx_cli_buf *b, const char *s)
{
    return imx_cli_buf_add(b, s, strlen(s));
}

int imx_cli_buf_vprintf(struct imx_cli_buf *b, const char *fmt, va_list ap)
{
    char small[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        b->overflow = true;
        return -1;
    }
    if ((size_t)n < sizeof small)
        return imx_cli_buf_add(b, small, (size_t)n);
    if ((size_t)n > b->max - b->len) {
        b->overflow = true;
        return -1;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->overflow = true;
        return -1;
    }
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    int rc = imx_cli_buf_add(b, big, (size_t)n);
    free(big);
    return rc;
}

int imx_cli_buf_printf(struct imx_cli_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = imx_cli_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

int imx_cli_buf_add_escaped(struct imx_cli_buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '.' || c == '_' || c == '~';
        char enc[3] = { (char)c, 0, 0 };
        if (!plain) {
            enc[0] = '%';
            enc[1] = hex[c >> 4];
            enc[2] = hex[c & 15];
        }
        if (imx_cli_buf_add(b, enc, plain ? 1 : 3) != 0)
            return -1;
    }
    return 0;
}

const char *imx_cli_buf_str(const struct imx_cli_buf *b)
{
    return b->data ? b->data : "";
}

void imx_cli_buf_reset(struct imx_cli_buf *b)
{
    b->len = 0;
    b->overflow = false;
    if (b->data)
        b->data[0] = '\0';
}

void imx_cli_buf_free(struct imx_cli_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
