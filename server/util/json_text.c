/* JSON text handled as text (json_text.h). The copy mirrors jansson 2.14's lexer (load.c) and
 * printer (dump.c, strconv.c jsonp_dtostr); tests/fuzz/fuzz_json_text.c holds it to them. */
#include "util/json_text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/urlcode.h"

#define DEPTH_MAX 64

bool imx_jbuf_put(struct imx_jbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return false;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 512;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = true;
            return false;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return true;
}

/* One byte: the common append of the copy, without imx_jbuf_put's call and memcpy. */
static inline bool put1(struct imx_jbuf *b, char ch)
{
    if (b->len + 2 > b->cap)
        return imx_jbuf_put(b, &ch, 1);
    b->p[b->len++] = ch;
    b->p[b->len] = '\0';
    return true;
}

bool imx_jbuf_puts(struct imx_jbuf *b, const char *s)
{
    return imx_jbuf_put(b, s, strlen(s));
}

void imx_jbuf_free(struct imx_jbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

struct cur {
    const char *p, *end;
};

static void skip_ws(struct cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* One code point, escaped as jansson's dump_string escapes it. */
static bool put_codepoint(struct imx_jbuf *b, unsigned cp)
{
    char seq[8];
    const char *t = seq;
    size_t n = 2;
    switch (cp) {
    case '\\':
        t = "\\\\";
        break;
    case '"':
        t = "\\\"";
        break;
    case '\b':
        t = "\\b";
        break;
    case '\f':
        t = "\\f";
        break;
    case '\n':
        t = "\\n";
        break;
    case '\r':
        t = "\\r";
        break;
    case '\t':
        t = "\\t";
        break;
    default:
        if (cp < 0x20) {
            snprintf(seq, sizeof seq, "\\u%04X", cp);
            n = 6;
        } else if (cp < 0x80) {
            seq[0] = (char)cp;
            n = 1;
        } else if (cp < 0x800) {
            seq[0] = (char)(0xc0 | (cp >> 6));
            seq[1] = (char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            seq[0] = (char)(0xe0 | (cp >> 12));
            seq[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
            seq[2] = (char)(0x80 | (cp & 0x3f));
            n = 3;
        } else {
            seq[0] = (char)(0xf0 | (cp >> 18));
            seq[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
            seq[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
            seq[3] = (char)(0x80 | (cp & 0x3f));
            n = 4;
        }
    }
    return imx_jbuf_put(b, t, n);
}

static bool hex4(struct cur *c, unsigned *out)
{
    if (c->end - c->p < 4)
        return false;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char h = *c->p++;
        v <<= 4;
        if (h >= '0' && h <= '9')
            v |= (unsigned)(h - '0');
        else if (h >= 'a' && h <= 'f')
            v |= (unsigned)(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F')
            v |= (unsigned)(h - 'A' + 10);
        else
            return false;
    }
    *out = v;
    return true;
}

/* The escape after a backslash, as a code point. */
static bool unescape(struct cur *c, unsigned *cp)
{
    if (c->p >= c->end)
        return false;
    switch (*c->p++) {
    case '"':
        *cp = '"';
        return true;
    case '\\':
        *cp = '\\';
        return true;
    case '/':
        *cp = '/';
        return true;
    case 'b':
        *cp = '\b';
        return true;
    case 'f':
        *cp = '\f';
        return true;
    case 'n':
        *cp = '\n';
        return true;
    case 'r':
        *cp = '\r';
        return true;
    case 't':
        *cp = '\t';
        return true;
    case 'u':
        break;
    default:
        return false;
    }
    unsigned v;
    if (!hex4(c, &v) || v == 0 || (v >= 0xdc00 && v <= 0xdfff))
        return false;
    if (v >= 0xd800 && v <= 0xdbff) {
        unsigned lo;
        if (c->end - c->p < 2 || c->p[0] != '\\' || c->p[1] != 'u')
            return false;
        c->p += 2;
        if (!hex4(c, &lo) || lo < 0xdc00 || lo > 0xdfff)
            return false;
        v = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
    }
    *cp = v;
    return true;
}

static bool norm_string(struct cur *c, struct imx_jbuf *b)
{
    c->p++; /* the opening quote */
    if (!put1(b, '"'))
        return false;
    const char *run = c->p;
    while (c->p < c->end) {
        unsigned char ch = (unsigned char)*c->p;
        if (ch != '"' && ch != '\\' && ch >= 0x20) {
            c->p++;
            continue;
        }
        /* runs end at ASCII bytes, never inside a UTF-8 sequence */
        size_t n = (size_t)(c->p - run);
        if (!imx_utf8_valid((const unsigned char *)run, n) || !imx_jbuf_put(b, run, n))
            return false;
        if (ch < 0x20)
            return false;
        c->p++;
        if (ch == '"')
            return put1(b, '"');
        unsigned cp;
        if (!unescape(c, &cp) || !put_codepoint(b, cp))
            return false;
        run = c->p;
    }
    return false;
}

static bool is_digit(const struct cur *c)
{
    return c->p < c->end && *c->p >= '0' && *c->p <= '9';
}

/* jansson's jsonp_dtostr with precision 15. */
static int real_text(char *buf, size_t size, double v)
{
    int len = snprintf(buf, size, "%.15g", v);
    if (len < 0 || (size_t)len + 3 >= size)
        return -1;
    if (!strchr(buf, '.') && !strchr(buf, 'e')) {
        memcpy(buf + len, ".0", 3);
        len += 2;
    }
    char *start = strchr(buf, 'e');
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, (size_t)len - (size_t)(end - buf) + 1);
            len -= (int)(end - start);
        }
    }
    return len;
}

/* Is the number text s[0..n) what jansson prints for it, so that it can be copied as it is? An
 * integer of at most 18 digits other than -0 (%lld gives it back); a real without an exponent
 * whose fraction does not end in 0, with at most 15 significant digits and a decimal exponent
 * from -4 to 14 (%.15g gives those digits back, DBL_DIG being 15, in fixed notation). The rest
 * goes through strtod or strtoll and printf, as jansson's load and dump do. */
static bool prints_as_is(const char *s, size_t n, const char *dot, bool exponent)
{
    const char *digits = s[0] == '-' ? s + 1 : s, *end = s + n;
    if (!dot && !exponent)
        return end - digits <= 18 && !(s[0] == '-' && digits[0] == '0');
    if (exponent || end[-1] == '0')
        return false;
    size_t int_len = (size_t)(dot - digits), frac_len = (size_t)(end - dot - 1);
    if (digits[0] != '0')
        return int_len + frac_len <= 15;
    size_t zeros = 0; /* 0.000ddd: the fraction's leading zeros set the exponent */
    while (zeros < frac_len && dot[1 + zeros] == '0')
        zeros++;
    return zeros <= 3 && frac_len - zeros <= 15;
}

static bool norm_number(struct cur *c, struct imx_jbuf *b)
{
    const char *s = c->p, *dot = NULL;
    bool real = false, exponent = false;
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (!is_digit(c))
        return false;
    if (*c->p++ != '0')
        while (is_digit(c))
            c->p++;
    if (c->p < c->end && *c->p == '.') {
        real = true;
        dot = c->p;
        c->p++;
        if (!is_digit(c))
            return false;
        while (is_digit(c))
            c->p++;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        real = exponent = true;
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!is_digit(c))
            return false;
        while (is_digit(c))
            c->p++;
    }
    size_t n = (size_t)(c->p - s);
    if (prints_as_is(s, n, dot, exponent))
        return imx_jbuf_put(b, s, n);
    char small[64], *tok = n < sizeof small ? small : malloc(n + 1);
    if (!tok)
        return false;
    memcpy(tok, s, n);
    tok[n] = '\0';
    char out[64];
    int len;
    errno = 0;
    if (real) {
        double v = strtod(tok, NULL);
        len = (v == HUGE_VAL || v == -HUGE_VAL) && errno == ERANGE ? -1
                                                                   : real_text(out, sizeof out, v);
    } else {
        long long v = strtoll(tok, NULL, 10);
        len = errno == ERANGE ? -1 : snprintf(out, sizeof out, "%lld", v);
    }
    if (tok != small)
        free(tok);
    return len > 0 && imx_jbuf_put(b, out, (size_t)len);
}

static bool literal(struct cur *c, struct imx_jbuf *b, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return false;
    c->p += n;
    return imx_jbuf_put(b, word, n);
}

static bool norm_value(struct cur *c, struct imx_jbuf *b, int depth);

/* An object's or array's members after its opening bracket, up to its closing one. */
static bool norm_container(struct cur *c, struct imx_jbuf *b, int depth, bool object)
{
    char close = object ? '}' : ']';
    if (depth > DEPTH_MAX || !put1(b, object ? '{' : '['))
        return false;
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return put1(b, close);
    }
    for (;;) {
        skip_ws(c);
        if (object) {
            if (c->p >= c->end || *c->p != '"' || !norm_string(c, b))
                return false;
            skip_ws(c);
            if (c->p >= c->end || *c->p != ':' || !put1(b, ':'))
                return false;
            c->p++;
        }
        if (!norm_value(c, b, depth))
            return false;
        skip_ws(c);
        if (c->p >= c->end)
            return false;
        char ch = *c->p++;
        if (ch == close)
            return put1(b, close);
        if (ch != ',' || !put1(b, ','))
            return false;
    }
}

static bool norm_value(struct cur *c, struct imx_jbuf *b, int depth)
{
    skip_ws(c);
    if (c->p >= c->end)
        return false;
    switch (*c->p) {
    case '{':
        return norm_container(c, b, depth + 1, true);
    case '[':
        return norm_container(c, b, depth + 1, false);
    case '"':
        return norm_string(c, b);
    case 't':
        return literal(c, b, "true");
    case 'f':
        return literal(c, b, "false");
    case 'n':
        return literal(c, b, "null");
    default:
        return norm_number(c, b);
    }
}

bool imx_json_put_norm(struct imx_jbuf *b, const char *s, size_t n)
{
    size_t start = b->len;
    struct cur c = { s, s + n };
    bool ok = s && norm_value(&c, b, 0);
    skip_ws(&c);
    if (ok && c.p == c.end)
        return true;
    if (!b->failed) {
        b->len = start;
        if (b->p)
            b->p[start] = '\0';
    }
    return false;
}

bool imx_json_put_string(struct imx_jbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (!imx_utf8_valid((const unsigned char *)s, n) || !imx_jbuf_put(b, "\"", 1))
        return false;
    const char *run = s;
    for (const char *p = s; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch != '"' && ch != '\\' && ch >= 0x20)
            continue;
        if (!imx_jbuf_put(b, run, (size_t)(p - run)) || !put_codepoint(b, ch))
            return false;
        run = p + 1;
    }
    return imx_jbuf_puts(b, run) && imx_jbuf_put(b, "\"", 1);
}

/* The end of the compact well-formed value at p (before end). */
static const char *skip_value(const char *p, const char *end)
{
    int depth = 0;
    bool in_string = false;
    for (; p < end; p++) {
        char ch = *p;
        if (in_string) {
            if (ch == '\\')
                p++;
            else if (ch == '"')
                in_string = false;
            else
                continue;
            if (depth == 0 && !in_string)
                return p + 1;
        } else if (ch == '"') {
            in_string = true;
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            if (--depth < 0)
                return p; /* the end of the enclosing container */
            if (depth == 0)
                return p + 1;
        } else if (ch == ',' && depth == 0) {
            return p;
        }
    }
    return depth == 0 && !in_string ? end : NULL;
}

bool imx_json_next_member(struct imx_jspan *it, struct imx_jspan *key, struct imx_jspan *value)
{
    const char *p = it->p, *end = it->p + it->n;
    if (p >= end)
        return false;
    if (*p == '{' || *p == ',')
        p++;
    else
        return false;
    if (p >= end || *p != '"')
        return false;
    const char *k = skip_value(p, end);
    if (!k || k >= end || *k != ':')
        return false;
    const char *v = skip_value(k + 1, end);
    if (!v || v == k + 1)
        return false;
    *key = (struct imx_jspan){ p, (size_t)(k - p) };
    *value = (struct imx_jspan){ k + 1, (size_t)(v - (k + 1)) };
    it->p = v;
    it->n = (size_t)(end - v);
    return true;
}

bool imx_json_member(struct imx_jspan obj, const char *key, struct imx_jspan *value)
{
    size_t kn = strlen(key);
    struct imx_jspan k, v;
    bool found = false;
    if (obj.n == 0 || obj.p[0] != '{')
        return false;
    while (imx_json_next_member(&obj, &k, &v))
        if (k.n == kn + 2 && memcmp(k.p + 1, key, kn) == 0) {
            *value = v;
            found = true;
        }
    return found;
}
