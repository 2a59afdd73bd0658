/* URL text: percent-decoding that reports what it could not decode, and a strict UTF-8 check.
 * Pure C, no I/O (fuzzed by tests/fuzz/fuzz_url.c). */
#ifndef IMX_URLCODE_H
#define IMX_URLCODE_H

#include <stdbool.h>
#include <stddef.h>

/* Is s[0..n) well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF)? */
bool imx_utf8_valid(const unsigned char *s, size_t n);

/* Percent-decodes the NUL-terminated s in place and returns the decoded length. *bad is set
 * when s has a '%' not followed by two hex digits (left as it is), an encoded NUL, or decodes to
 * bytes that are not UTF-8; it is left alone otherwise. */
size_t imx_percent_decode(char *s, bool *bad);

#endif
