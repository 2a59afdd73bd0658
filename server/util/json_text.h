/* JSON text handled as text: PostgreSQL's JSON copied as the server's replies print it, and the
 * members of a compact object found without building a tree. A reply assembled from stored
 * documents this way costs a copy of their bytes, where loading them into jansson and printing
 * them again cost most of a compare's server time (bench/RESULTS.md "Session 6"). Pure C, no
 * I/O (fuzzed against jansson by tests/fuzz/fuzz_json_text.c). */
#ifndef IMX_JSON_TEXT_H
#define IMX_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* A growing text buffer; after a failed allocation every append fails and failed is set. */
struct imx_jbuf {
    char *p; /* NUL-terminated while len > 0; free() it, or hand it on */
    size_t len, cap;
    bool failed;
};

bool imx_jbuf_put(struct imx_jbuf *b, const char *s, size_t n);
bool imx_jbuf_puts(struct imx_jbuf *b, const char *s);
void imx_jbuf_free(struct imx_jbuf *b);

/* Appends the JSON value s[0..n) (any value, surrounding whitespace allowed) as the server's
 * replies print it: what json_dumps(json_loads(s, JSON_DECODE_ANY),
 * JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15)) gives, byte for byte. That is: no
 * whitespace between tokens; strings with only '"', '\\' and control characters escaped (\b \f
 * \n \r \t, else \u00XX in capitals), everything else as UTF-8; integers as %lld; reals as %.15g
 * with ".0" when it has neither '.' nor 'e' and the exponent without '+' or leading zeros. Fails
 * (false, b unchanged) where jansson's load fails: malformed JSON, bad UTF-8, \u0000, a lone
 * surrogate, an integer outside long long, a real that overflows, text after the value, and
 * also nesting deeper than 64. Differs from jansson only on an object with a repeated key, which
 * is copied as it is (jansson keeps the last value); PostgreSQL's builders here never make one. */
bool imx_json_put_norm(struct imx_jbuf *b, const char *s, size_t n);

/* Appends the UTF-8 C string s as a JSON string, escaped as above. False on bad UTF-8. */
bool imx_json_put_string(struct imx_jbuf *b, const char *s);

/* A span of JSON text. */
struct imx_jspan {
    const char *p;
    size_t n;
};

/* The next member of an object in compact well-formed text (as imx_json_put_norm prints it):
 * *it starts as the object's span and moves on. Returns true with the member's key (its text
 * with the quotes) and value; false at the end, or when it is not such an object. */
bool imx_json_next_member(struct imx_jspan *it, struct imx_jspan *key, struct imx_jspan *value);

/* The value of the (last) member named key (plain text, no escapes) in compact object text obj;
 * false when there is none or obj is not an object. */
bool imx_json_member(struct imx_jspan obj, const char *key, struct imx_jspan *value);

#endif
