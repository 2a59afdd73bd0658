/* A growable byte buffer with a named maximum, used for every text the CLI builds (URLs,
 * output, response bodies). Pure: no I/O. */
#ifndef IMX_CLI_BUF_H
#define IMX_CLI_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct imx_cli_buf {
    char *data; /* NUL-terminated once anything was added; owned */
    size_t len;
    size_t cap;
    size_t max;    /* the most bytes it may hold (without the NUL) */
    bool overflow; /* set when an append was refused for max or memory */
};

/* An empty buffer that never holds more than max bytes. */
void imx_cli_buf_init(struct imx_cli_buf *b, size_t max);

/* Appends n bytes. Returns 0, or -1 (over max or out of memory: overflow is set). */
int imx_cli_buf_add(struct imx_cli_buf *b, const char *s, size_t n);
int imx_cli_buf_puts(struct imx_cli_buf *b, const char *s);
int imx_cli_buf_printf(struct imx_cli_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int imx_cli_buf_vprintf(struct imx_cli_buf *b, const char *fmt, va_list ap);

/* Appends s percent-encoded for a URL path segment or query value (all but RFC 3986
 * unreserved characters). */
int imx_cli_buf_add_escaped(struct imx_cli_buf *b, const char *s);

/* The text (borrowed; "" when empty). */
const char *imx_cli_buf_str(const struct imx_cli_buf *b);

void imx_cli_buf_reset(struct imx_cli_buf *b);
void imx_cli_buf_free(struct imx_cli_buf *b);

#endif
