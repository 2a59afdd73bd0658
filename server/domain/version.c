/* Version keys and version constraints for component versions (see domain/version.h). */

/* The SQL twin of imx_ver_parse() is imx_version_key() in migrations/functions/version.sql; the
 * two must agree on every string, so change them together. */
#include "domain/version.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Digits in one numeric part; 9 keeps every part inside a PostgreSQL int4. */
#define PART_DIGITS_MAX 9

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static bool is_suffix_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || is_digit(ch) || ch == '.' ||
           ch == '+' || ch == '_' || ch == '~' || ch == '-';
}

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* strlen that stops looking after max bytes (strnlen is POSIX, not C17). */
static size_t bounded_len(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n] != '\0') {
        n++;
    }
    return n;
}

static int key_cmp(const int32_t a[IMX_VER_PARTS], const int32_t b[IMX_VER_PARTS])
{
    for (int i = 0; i < IMX_VER_PARTS; i++) {
        if (a[i] != b[i]) {
            return a[i] < b[i] ? -1 : 1;
        }
    }
    return 0;
}

static char ascii_lower(char ch)
{
    return (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
}

/* Does s start with word, in any case? */
static bool starts_with_word(const char *s, const char *word)
{
    size_t i = 0;
    for (; word[i] != '\0'; i++) {
        if (ascii_lower(s[i]) != word[i]) {
            return false;
        }
    }
    return true;
}

/* Reads a pre-release suffix, the whole of sfx: an optional separator (- . _ ~), a word (dev,
 * alpha, a, beta, b, pre, rc; a and b only with a number) and an optional number of 1..9 digits
 * (with an optional separator before it). "rc14", ".dev3", "-rc.1", "-alpha", "b2". Sets the
 * marker (IMX_VER_PRE_*) and the number (0 when none); false when sfx is anything else. The
 * regular expression in SQL imx_version_key() says the same. */
static bool pre_release(const char *sfx, int32_t *marker, int32_t *number)
{
    static const struct {
        const char *word;
        int32_t marker;
        bool needs_number;
    } words[] = {
        { "alpha", IMX_VER_PRE_ALPHA, false }, { "beta", IMX_VER_PRE_BETA, false },
        { "dev", IMX_VER_PRE_DEV, false },     { "pre", IMX_VER_PRE_RC, false },
        { "rc", IMX_VER_PRE_RC, false },       { "a", IMX_VER_PRE_ALPHA, true },
        { "b", IMX_VER_PRE_BETA, true },
    };
    size_t i = 0;
    if (sfx[i] == '-' || sfx[i] == '.' || sfx[i] == '_' || sfx[i] == '~') {
        i++;
    }
    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
        if (!starts_with_word(sfx + i, words[w].word)) {
            continue;
        }
        size_t j = i + strlen(words[w].word);
        if ((sfx[j] == '-' || sfx[j] == '.' || sfx[j] == '_') && is_digit(sfx[j + 1])) {
            j++;
        }
        int32_t n = 0;
        int digits = 0;
        while (digits < PART_DIGITS_MAX && is_digit(sfx[j])) {
            n = n * 10 + (sfx[j] - '0');
            digits++;
            j++;
        }
        if (sfx[j] != '\0' || (digits == 0 && words[w].needs_number)) {
            return false; /* more text ("rc1.post1", ten digits), or a bare "a" ("1.0a") */
        }
        *marker = words[w].marker;
        *number = n;
        return true;
    }
    return false;
}

int imx_ver_parse(const char *s, struct imx_ver *out)
{
    struct imx_ver v;
    memset(&v, 0, sizeof(v));
    memset(out, 0, sizeof(*out));
    if (s == NULL) {
        return -1;
    }
    size_t len = bounded_len(s, IMX_VER_TEXT_MAX + 1);
    if (len == 0 || len > IMX_VER_TEXT_MAX) {
        return -1;
    }

    /* s[len] is NUL and i < len whenever s[i] is not NUL, so s[i + 1] is always readable. */
    size_t i = 0;
    if (s[i] == 'v' || s[i] == 'V') {
        i++;
    }
    if (!is_digit(s[i])) {
        return -1;
    }
    for (;;) {
        int32_t part = 0;
        int digits = 0;
        while (digits < PART_DIGITS_MAX && is_digit(s[i])) {
            part = part * 10 + (s[i] - '0');
            digits++;
            i++;
        }
        if (is_digit(s[i]) || v.nparts == IMX_VER_PARTS) {
            return -1; /* a run of more than 9 digits, or a 7th part */
        }
        v.key[v.nparts++] = part;
        if ((s[i] == '.' || s[i] == '-') && is_digit(s[i + 1])) {
            i++;
            continue;
        }
        break;
    }
    v.suffix_at = (unsigned char)i;
    for (size_t j = i; j < len; j++) {
        if (!is_suffix_char(s[j])) {
            return -1;
        }
    }
    int32_t marker = 0;
    int32_t number = 0;
    if (i < len && pre_release(s + i, &marker, &number)) {
        /* 13.0.0rc1 and 13.0rc1 share a key; the marker needs two free parts. */
        int k = v.nparts;
        while (k > 2 && v.key[k - 1] == 0) {
            k--;
        }
        if (k + 2 <= IMX_VER_PARTS) {
            v.key[k] = marker;
            v.key[k + 1] = number;
        }
    }
    memcpy(v.text, s, len);
    v.text[len] = '\0';
    *out = v;
    return 0;
}

int imx_ver_cmp(const struct imx_ver *a, const struct imx_ver *b)
{
    return key_cmp(a->key, b->key);
}

int32_t imx_ver_branch(const struct imx_ver *v)
{
    return v->key[0];
}

const char *imx_ver_suffix(const struct imx_ver *v)
{
    return v->text + v->suffix_at;
}

/* Writes a key as "{a,b,c,d,e,f}". */
static int format_key_literal(const int32_t key[IMX_VER_PARTS], char *buf, size_t len)
{
    if (len == 0) {
        return -1;
    }
    int n = snprintf(buf, len, "{%d,%d,%d,%d,%d,%d}", (int)key[0], (int)key[1], (int)key[2],
                     (int)key[3], (int)key[4], (int)key[5]);
    if (n < 0 || (size_t)n >= len) {
        buf[0] = '\0';
        return -1;
    }
    return 0;
}

int imx_ver_format_key(const struct imx_ver *v, char *buf, size_t len)
{
    return format_key_literal(v->key, buf, len);
}

/* ---- constraints ---- */

/* Writes a formatted message into err, if the caller gave room for one. */
static void set_err(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    if (n < 0) {
        err[0] = '\0';
    }
}

/* Copies a term for an error message, replacing bytes that are not printable ASCII so the
 * message is always valid UTF-8 and safe to put in a JSON problem. */
static void printable_copy(char *dst, size_t dstlen, const char *src, size_t srclen)
{
    size_t n = srclen < dstlen - 1 ? srclen : dstlen - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)src[i];
        dst[i] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
    }
    dst[n] = '\0';
}

/* Raises key to the smallest key above every key that starts with key[0..idx]: increments
 * part idx, zeroes the parts after it and carries past IMX_VER_PART_MAX so the result stays a
 * writable version. Returns false when no valid key lies above (the bound is then open). */
static bool bump_prefix(int32_t key[IMX_VER_PARTS], int idx)
{
    for (int i = idx + 1; i < IMX_VER_PARTS; i++) {
        key[i] = 0;
    }
    for (int i = idx; i >= 0; i--) {
        if (key[i] < IMX_VER_PART_MAX) {
            key[i]++;
            return true;
        }
        key[i] = 0;
    }
    return false;
}

static void set_bound(struct imx_constraint_bound *b, const int32_t key[IMX_VER_PARTS],
                      bool inclusive)
{
    b->bounded = true;
    b->inclusive = inclusive;
    memcpy(b->key, key, sizeof(b->key));
}

/* Tightens the interval's lower end to b when b is stricter. */
static void and_lower(struct imx_constraint *c, const struct imx_constraint_bound *b)
{
    if (!b->bounded) {
        return;
    }
    int r = c->lo.bounded ? key_cmp(b->key, c->lo.key) : 1;
    if (r > 0 || (r == 0 && !b->inclusive)) {
        c->lo = *b;
    }
}

/* Tightens the interval's upper end to b when b is stricter. */
static void and_upper(struct imx_constraint *c, const struct imx_constraint_bound *b)
{
    if (!b->bounded) {
        return;
    }
    int r = c->hi.bounded ? key_cmp(b->key, c->hi.key) : -1;
    if (r < 0 || (r == 0 && !b->inclusive)) {
        c->hi = *b;
    }
}

enum term_op { OP_PREFIX, OP_EQ, OP_GE, OP_GT, OP_LE, OP_LT, OP_TILDE };

/* True when a suffix looks like an npm/pip wildcard (".x", ".X", ".*"), which a constraint
 * must not silently read as a plain version with a suffix. */
static bool is_wildcard_suffix(const char *suffix)
{
    return suffix[0] == '.' && (suffix[1] == 'x' || suffix[1] == 'X' || suffix[1] == '*') &&
           (suffix[2] == '\0' || suffix[2] == '.' || suffix[2] == '-');
}

/* Parses one trimmed, non-empty term of len bytes and narrows c's interval by it. Returns 0,
 * or -1 with err set. */
static int parse_term(const char *term, size_t len, struct imx_constraint *c, char *err,
                      size_t errlen)
{
    char shown[IMX_CONSTRAINT_TEXT_MAX + 1];
    printable_copy(shown, sizeof(shown), term, len);

    if (len == 1 && term[0] == '*') {
        return 0;
    }
    enum term_op op = OP_PREFIX;
    size_t at = 0;
    if (term[0] == '!') {
        set_err(err, errlen, "'%s': '!=' is not supported; a constraint is a single range", shown);
        return -1;
    } else if (term[0] == '>' && len > 1 && term[1] == '=') {
        op = OP_GE;
        at = 2;
    } else if (term[0] == '<' && len > 1 && term[1] == '=') {
        op = OP_LE;
        at = 2;
    } else if (term[0] == '>') {
        op = OP_GT;
        at = 1;
    } else if (term[0] == '<') {
        op = OP_LT;
        at = 1;
    } else if (term[0] == '=') {
        op = OP_EQ;
        at = 1;
    } else if (term[0] == '~') {
        op = OP_TILDE;
        at = 1;
    }
    while (at < len && is_blank(term[at])) {
        at++;
    }

    /* An operand of "*" or one ending in ".*" is a prefix wildcard. */
    size_t vlen = len - at;
    bool wildcard = false;
    if (vlen == 1 && term[at] == '*') {
        wildcard = true;
        vlen = 0;
    } else if (vlen >= 2 && term[len - 1] == '*' && term[len - 2] == '.') {
        wildcard = true;
        vlen -= 2;
    }
    if (wildcard && op != OP_PREFIX) {
        set_err(err, errlen, "'%s': a wildcard cannot follow an operator (write 12.4.* or >=12.4)",
                shown);
        return -1;
    }

    char vtext[IMX_VER_TEXT_MAX + 1];
    struct imx_ver v;
    if (vlen == 0 || vlen > IMX_VER_TEXT_MAX) {
        set_err(err, errlen, "'%s' is not a version", shown);
        return -1;
    }
    memcpy(vtext, term + at, vlen);
    vtext[vlen] = '\0';
    if (imx_ver_parse(vtext, &v) != 0) {
        set_err(err, errlen, "'%s' is not a version", shown);
        return -1;
    }
    const char *suffix = imx_ver_suffix(&v);
    if (is_wildcard_suffix(suffix)) {
        set_err(err, errlen, "'%s' is not a version (write 12.* for a wildcard)", shown);
        return -1;
    }
    if (wildcard && suffix[0] != '\0') {
        set_err(err, errlen, "'%s': a wildcard must follow plain numbers, as in 12.4.*", shown);
        return -1;
    }

    struct imx_constraint_bound lo = { 0 };
    struct imx_constraint_bound hi = { 0 };
    int32_t up[IMX_VER_PARTS];
    memcpy(up, v.key, sizeof(up));
    switch (op) {
    case OP_PREFIX: {
        /* The last part written, or the part before a pre-release marker that took the place of
         * trailing zeros (2.11.0.0rc1 is keyed 2.11rc1): bumping a part after the marker would
         * make a bound that cannot be written back. */
        int last = (int)v.nparts - 1;
        for (int m = 1; m < IMX_VER_PARTS && m <= last; m++) {
            if (v.key[m] < 0) {
                last = m - 1;
                break;
            }
        }
        set_bound(&lo, v.key, true);
        if (bump_prefix(up, last)) {
            set_bound(&hi, up, false);
        }
        break;
    }
    case OP_TILDE:
        set_bound(&lo, v.key, true);
        if (bump_prefix(up, v.nparts >= 2 ? 1 : 0)) {
            set_bound(&hi, up, false);
        }
        break;
    case OP_EQ:
        set_bound(&lo, v.key, true);
        set_bound(&hi, v.key, true);
        break;
    case OP_GE:
        set_bound(&lo, v.key, true);
        break;
    case OP_GT:
        set_bound(&lo, v.key, false);
        break;
    case OP_LE:
        set_bound(&hi, v.key, true);
        break;
    case OP_LT:
        set_bound(&hi, v.key, false);
        break;
    }
    and_lower(c, &lo);
    and_upper(c, &hi);
    return 0;
}

/* Appends the trimmed term, without blanks between operator and operand, to c->text. */
static void append_norm(struct imx_constraint *c, const char *term, size_t len)
{
    size_t used = strlen(c->text);
    size_t room = sizeof(c->text) - 1;
    if (used > 0 && used + 2 <= room) {
        memcpy(c->text + used, ", ", 2);
        used += 2;
    }
    bool in_op = true;
    for (size_t i = 0; i < len && used < room; i++) {
        char ch = term[i];
        if (in_op && is_blank(ch)) {
            continue;
        }
        if (ch != '>' && ch != '<' && ch != '=' && ch != '~') {
            in_op = false;
        }
        c->text[used++] = ch;
    }
    c->text[used] = '\0';
}

int imx_constraint_parse(const char *s, struct imx_constraint *out, char *err, size_t errlen)
{
    struct imx_constraint c;
    memset(&c, 0, sizeof(c));
    memset(out, 0, sizeof(*out));
    set_err(err, errlen, "%s", "");
    if (s == NULL) {
        set_err(err, errlen, "empty constraint");
        return -1;
    }
    size_t len = bounded_len(s, IMX_CONSTRAINT_TEXT_MAX + 1);
    if (len > IMX_CONSTRAINT_TEXT_MAX) {
        set_err(err, errlen, "constraint is longer than %d characters", IMX_CONSTRAINT_TEXT_MAX);
        return -1;
    }
    size_t first = 0;
    while (first < len && is_blank(s[first])) {
        first++;
    }
    if (first == len) {
        set_err(err, errlen, "empty constraint");
        return -1;
    }

    int terms = 0;
    size_t start = 0;
    while (start <= len) {
        size_t end = start;
        while (end < len && s[end] != ',') {
            end++;
        }
        size_t a = start;
        size_t b = end;
        while (a < b && is_blank(s[a])) {
            a++;
        }
        while (b > a && is_blank(s[b - 1])) {
            b--;
        }
        if (a == b) {
            set_err(err, errlen, "empty term in constraint (a stray comma?)");
            return -1;
        }
        if (++terms > IMX_CONSTRAINT_MAX_TERMS) {
            set_err(err, errlen, "constraint has more than %d terms", IMX_CONSTRAINT_MAX_TERMS);
            return -1;
        }
        if (parse_term(s + a, b - a, &c, err, errlen) != 0) {
            return -1;
        }
        append_norm(&c, s + a, b - a);
        start = end + 1;
    }
    *out = c;
    return 0;
}

/* Sets next to the smallest key above key, in the same superset of keys as key_prev() (a part
 * after the first carries over to IMX_VER_PRE_DEV); false when key is the largest. */
static bool key_next(const int32_t key[IMX_VER_PARTS], int32_t next[IMX_VER_PARTS])
{
    memcpy(next, key, sizeof(int32_t) * IMX_VER_PARTS);
    for (int i = IMX_VER_PARTS - 1; i >= 0; i--) {
        if (next[i] < IMX_VER_PART_MAX) {
            next[i]++;
            return true;
        }
        next[i] = i == 0 ? 0 : IMX_VER_PRE_DEV;
    }
    return false;
}

/* Sets prev to the largest key below key, counting every part after the first from
 * IMX_VER_PRE_DEV (a pre-release marker) up: a superset of the keys versions make, so that
 * ">=1.3rc1, <1.3" is not empty; false when key is the smallest. */
static bool key_prev(const int32_t key[IMX_VER_PARTS], int32_t prev[IMX_VER_PARTS])
{
    memcpy(prev, key, sizeof(int32_t) * IMX_VER_PARTS);
    for (int i = IMX_VER_PARTS - 1; i >= 0; i--) {
        if (prev[i] > (i == 0 ? 0 : IMX_VER_PRE_DEV)) {
            prev[i]--;
            return true;
        }
        prev[i] = IMX_VER_PART_MAX;
    }
    return false;
}

bool imx_constraint_is_empty(const struct imx_constraint *c)
{
    /* Keys are discrete, so turn both ends into inclusive ones before comparing. The smallest
     * key of key_prev()'s superset is {0,-4,-4,-4,-4,-4}: "<0" holds 0rc1. */
    int32_t lo[IMX_VER_PARTS] = { 0 };
    for (int i = 1; i < IMX_VER_PARTS; i++) {
        lo[i] = IMX_VER_PRE_DEV;
    }
    int32_t hi[IMX_VER_PARTS];
    for (int i = 0; i < IMX_VER_PARTS; i++) {
        hi[i] = IMX_VER_PART_MAX;
    }
    if (c->lo.bounded) {
        if (c->lo.inclusive) {
            memcpy(lo, c->lo.key, sizeof(lo));
        } else if (!key_next(c->lo.key, lo)) {
            return true;
        }
    }
    if (c->hi.bounded) {
        if (c->hi.inclusive) {
            memcpy(hi, c->hi.key, sizeof(hi));
        } else if (!key_prev(c->hi.key, hi)) {
            return true;
        }
    }
    return key_cmp(lo, hi) > 0;
}

bool imx_constraint_matches(const struct imx_constraint *c, const struct imx_ver *v)
{
    if (c->lo.bounded) {
        int r = key_cmp(v->key, c->lo.key);
        if (r < 0 || (r == 0 && !c->lo.inclusive)) {
            return false;
        }
    }
    if (c->hi.bounded) {
        int r = key_cmp(v->key, c->hi.key);
        if (r > 0 || (r == 0 && !c->hi.inclusive)) {
            return false;
        }
    }
    return true;
}

bool imx_constraint_matches_str(const struct imx_constraint *c, const char *s)
{
    struct imx_ver v;
    if (imx_ver_parse(s, &v) != 0) {
        return false;
    }
    return imx_constraint_matches(c, &v);
}

void imx_constraint_sql_bounds(const struct imx_constraint *c, char lo[IMX_VER_KEY_TEXT_SIZE],
                               bool *lo_incl, char hi[IMX_VER_KEY_TEXT_SIZE], bool *hi_incl)
{
    lo[0] = '\0';
    hi[0] = '\0';
    *lo_incl = false;
    *hi_incl = false;
    if (c->lo.bounded) {
        (void)format_key_literal(c->lo.key, lo, IMX_VER_KEY_TEXT_SIZE);
        *lo_incl = c->lo.inclusive;
    }
    if (c->hi.bounded) {
        (void)format_key_literal(c->hi.key, hi, IMX_VER_KEY_TEXT_SIZE);
        *hi_incl = c->hi.inclusive;
    }
}

/* Writes a key as a version with trailing zero parts dropped ("580", "12.4.1"), a pre-release
 * marker as its word ("1.3rc14", "2.0dev3"). */
static size_t format_key_version(const int32_t key[IMX_VER_PARTS], char *buf, size_t len)
{
    int n = IMX_VER_PARTS;
    while (n > 1 && key[n - 1] == 0) {
        n--;
    }
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        int w;
        if (key[i] < 0 && i + 1 < IMX_VER_PARTS) {
            static const char *const words[] = { "dev", "a", "b", "rc" };
            int m = key[i] - IMX_VER_PRE_DEV;
            w = snprintf(buf + used, len - used, "%s%d", words[m >= 0 && m < 4 ? m : 3],
                         (int)key[i + 1]);
            if (w < 0 || (size_t)w >= len - used) {
                return len;
            }
            used += (size_t)w;
            break;
        }
        w = snprintf(buf + used, len - used, i == 0 ? "%d" : ".%d", (int)key[i]);
        if (w < 0 || (size_t)w >= len - used) {
            return len;
        }
        used += (size_t)w;
    }
    return used;
}

int imx_constraint_format(const struct imx_constraint *c, char *buf, size_t len)
{
    if (len == 0) {
        return -1;
    }
    char lo[IMX_CONSTRAINT_FORMAT_SIZE / 2];
    char hi[IMX_CONSTRAINT_FORMAT_SIZE / 2];
    lo[0] = '\0';
    hi[0] = '\0';
    if (c->lo.bounded) {
        (void)format_key_version(c->lo.key, lo, sizeof(lo));
    }
    if (c->hi.bounded) {
        (void)format_key_version(c->hi.key, hi, sizeof(hi));
    }

    int n;
    if (!c->lo.bounded && !c->hi.bounded) {
        n = snprintf(buf, len, "*");
    } else if (c->lo.bounded && c->hi.bounded && c->lo.inclusive && c->hi.inclusive &&
               key_cmp(c->lo.key, c->hi.key) == 0) {
        n = snprintf(buf, len, "=%s", lo);
    } else if (!c->hi.bounded) {
        n = snprintf(buf, len, "%s%s", c->lo.inclusive ? ">=" : ">", lo);
    } else if (!c->lo.bounded) {
        n = snprintf(buf, len, "%s%s", c->hi.inclusive ? "<=" : "<", hi);
    } else {
        n = snprintf(buf, len, "%s%s, %s%s", c->lo.inclusive ? ">=" : ">", lo,
                     c->hi.inclusive ? "<=" : "<", hi);
    }
    if (n < 0 || (size_t)n >= len) {
        buf[0] = '\0';
        return -1;
    }
    return 0;
}
