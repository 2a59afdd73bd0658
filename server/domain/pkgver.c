/* dpkg and rpm version order, twice: the distros' own comparison algorithms (dpkg's verrevcmp,
 * rpm's rpmvercmp, ported) and an order-preserving byte key for PostgreSQL; the fuzz target
 * checks that the two always agree. */
#include "domain/pkgver.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ASCII only, whatever the locale: versions are ASCII by the distros' rules. */
static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(int c)
{
    return is_digit(c) || is_alpha(c);
}

/* ---- ecosystems ------------------------------------------------------------------------ */

static bool prefix_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    return strncmp(s, word, n) == 0 && (s[n] == '\0' || s[n] == ':' || s[n] == ' ');
}

enum imx_pkg_order imx_pkg_ecosystem_order(const char *eco)
{
    static const struct {
        const char *name;
        enum imx_pkg_order order;
    } known[] = {
        { "Ubuntu", IMX_PKG_DPKG },      { "Debian", IMX_PKG_DPKG },
        { "Rocky Linux", IMX_PKG_RPM },  { "AlmaLinux", IMX_PKG_RPM },
        { "Amazon Linux", IMX_PKG_RPM }, { "Red Hat", IMX_PKG_RPM },
        { "Oracle Linux", IMX_PKG_RPM }, { "Fedora", IMX_PKG_RPM },
        { "openSUSE", IMX_PKG_RPM },     { "SUSE", IMX_PKG_RPM },
    };
    size_t n = eco ? strlen(eco) : 0;
    if (n == 0 || n > IMX_PKG_ECOSYSTEM_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_alnum((unsigned char)eco[i]) && !strchr(" .:_-", eco[i]))
            return 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (prefix_word(eco, known[i].name))
            return known[i].order;
    return 0;
}

/* The leading run of digits of s (at most 8) as a number; -1 when none. */
static long leading_number(const char *s)
{
    long v = 0;
    int n = 0;
    while (n < 8 && is_digit((unsigned char)s[n]))
        v = v * 10 + (s[n++] - '0');
    return n ? v : -1;
}

int imx_pkg_ecosystem_of_os(const char *os_name, const char *os_version, char *out, size_t len)
{
    if (len)
        out[0] = '\0';
    if (!os_name || !os_version || len == 0)
        return -1;
    long major = leading_number(os_version);
    if (major < 0)
        return -1;
    int w;
    if (strcmp(os_name, "ubuntu") == 0) {
        const char *dot = strchr(os_version, '.');
        long minor = dot ? leading_number(dot + 1) : -1;
        if (minor < 0)
            return -1;
        /* An LTS release is an even year's April release. */
        bool lts = major % 2 == 0 && minor == 4;
        w = snprintf(out, len, "Ubuntu:%ld.%02ld%s", major, minor, lts ? ":LTS" : "");
    } else if (strcmp(os_name, "debian") == 0) {
        w = snprintf(out, len, "Debian:%ld", major);
    } else if (strcmp(os_name, "rocky") == 0 || strcmp(os_name, "rockylinux") == 0) {
        w = snprintf(out, len, "Rocky Linux:%ld", major);
    } else if (strcmp(os_name, "almalinux") == 0 || strcmp(os_name, "alma") == 0) {
        w = snprintf(out, len, "AlmaLinux:%ld", major);
    } else if (strcmp(os_name, "amzn") == 0 || strcmp(os_name, "amazonlinux") == 0 ||
               strcmp(os_name, "amazon-linux") == 0 || strcmp(os_name, "al2023") == 0) {
        w = snprintf(out, len, "Amazon Linux %ld", major);
    } else {
        return -1;
    }
    if (w < 0 || (size_t)w >= len) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}

bool imx_pkg_name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > IMX_PKG_NAME_MAX || !is_alnum((unsigned char)s[0]))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!is_alnum((unsigned char)s[i]) && !strchr(".+_-~", s[i]))
            return false;
    return true;
}

/* ---- splitting a version ------------------------------------------------------------------ */

/* A version split into its parts, each NUL-terminated. */
struct parts {
    long epoch;
    char main[IMX_PKGVER_TEXT_MAX + 1]; /* dpkg upstream, rpm version */
    char tail[IMX_PKGVER_TEXT_MAX + 1]; /* dpkg revision, rpm release ("" when none) */
};

static bool chars_ok(const char *s, size_t n, const char *extra)
{
    for (size_t i = 0; i < n; i++)
        if (!is_alnum((unsigned char)s[i]) && !strchr(extra, s[i]))
            return false;
    return true;
}

/* Splits s by the order's rules; false when it is not a valid version. */
static bool split(enum imx_pkg_order order, const char *s, struct parts *p)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > IMX_PKGVER_TEXT_MAX || (order != IMX_PKG_DPKG && order != IMX_PKG_RPM))
        return false;
    p->epoch = 0;
    const char *colon = strchr(s, ':');
    const char *rest = s;
    if (colon) {
        size_t en = (size_t)(colon - s);
        if (en == 0 || en > 9)
            return false;
        for (size_t i = 0; i < en; i++) {
            if (!is_digit((unsigned char)s[i]))
                return false;
            p->epoch = p->epoch * 10 + (s[i] - '0');
        }
        rest = colon + 1;
    }
    const char *dash = strrchr(rest, '-');
    size_t mn = dash ? (size_t)(dash - rest) : strlen(rest);
    size_t tn = dash ? strlen(dash + 1) : 0;
    if (mn == 0 || (dash && tn == 0))
        return false;
    /* dpkg: upstream of alphanumerics and . + ~ - (and : after an epoch), revision of
     * alphanumerics and . + ~; rpm: both of alphanumerics and . _ + ~ ^. */
    if (order == IMX_PKG_DPKG) {
        if (!chars_ok(rest, mn, colon ? ".+~-:" : ".+~-") ||
            !chars_ok(dash ? dash + 1 : "", tn, ".+~"))
            return false;
    } else {
        if (!chars_ok(rest, mn, "._+~^") || !chars_ok(dash ? dash + 1 : "", tn, "._+~^"))
            return false;
    }
    memcpy(p->main, rest, mn);
    p->main[mn] = '\0';
    memcpy(p->tail, dash ? dash + 1 : "", tn);
    p->tail[tn] = '\0';
    return true;
}

bool imx_pkgver_valid(enum imx_pkg_order order, const char *s)
{
    struct parts p;
    return split(order, s, &p);
}

/* ---- the distros' algorithms ---------------------------------------------------------------- */

/* dpkg's order of one character of a non-digit run: '~' before the end of the run, the end
 * before letters, letters before everything else. */
static int dpkg_order(int c)
{
    if (is_digit(c))
        return 0;
    if (is_alpha(c))
        return c;
    if (c == '~')
        return -1;
    if (c)
        return c + 256;
    return 0;
}

/* dpkg's verrevcmp (lib/dpkg/version.c). */
static int dpkg_verrevcmp(const char *a, const char *b)
{
    while (*a || *b) {
        int first_diff = 0;
        while ((*a && !is_digit((unsigned char)*a)) || (*b && !is_digit((unsigned char)*b))) {
            int ac = dpkg_order((unsigned char)*a), bc = dpkg_order((unsigned char)*b);
            if (ac != bc)
                return ac - bc;
            a++;
            b++;
        }
        while (*a == '0')
            a++;
        while (*b == '0')
            b++;
        while (is_digit((unsigned char)*a) && is_digit((unsigned char)*b)) {
            if (!first_diff)
                first_diff = *a - *b;
            a++;
            b++;
        }
        if (is_digit((unsigned char)*a))
            return 1;
        if (is_digit((unsigned char)*b))
            return -1;
        if (first_diff)
            return first_diff;
    }
    return 0;
}

/* rpm's rpmvercmp (rpmio/rpmvercmp.c, 4.15 and later: with '^'). */
static int rpm_vercmp(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 0;
    const char *one = a, *two = b;
    while (*one || *two) {
        while (*one && !is_alnum((unsigned char)*one) && *one != '~' && *one != '^')
            one++;
        while (*two && !is_alnum((unsigned char)*two) && *two != '~' && *two != '^')
            two++;
        /* '~' sorts before everything, the end included */
        if (*one == '~' || *two == '~') {
            if (*one != '~')
                return 1;
            if (*two != '~')
                return -1;
            one++;
            two++;
            continue;
        }
        /* '^' sorts after the end but before any segment */
        if (*one == '^' || *two == '^') {
            if (!*one)
                return -1;
            if (!*two)
                return 1;
            if (*one != '^')
                return 1;
            if (*two != '^')
                return -1;
            one++;
            two++;
            continue;
        }
        if (!(*one && *two))
            break;
        const char *s1 = one, *s2 = two;
        bool isnum = is_digit((unsigned char)*s1);
        if (isnum) {
            while (is_digit((unsigned char)*s1))
                s1++;
            while (is_digit((unsigned char)*s2))
                s2++;
        } else {
            while (is_alpha((unsigned char)*s1))
                s1++;
            while (is_alpha((unsigned char)*s2))
                s2++;
        }
        if (two == s2) /* segments of different types: the numeric one is newer */
            return isnum ? 1 : -1;
        if (isnum) {
            while (*one == '0' && one < s1)
                one++;
            while (*two == '0' && two < s2)
                two++;
            if (s1 - one != s2 - two)
                return s1 - one > s2 - two ? 1 : -1;
        }
        size_t l1 = (size_t)(s1 - one), l2 = (size_t)(s2 - two);
        int rc = memcmp(one, two, l1 < l2 ? l1 : l2);
        if (rc == 0 && l1 != l2)
            rc = l1 < l2 ? -1 : 1;
        if (rc)
            return rc < 0 ? -1 : 1;
        one = s1;
        two = s2;
    }
    if (!*one && !*two)
        return 0;
    return *one ? 1 : -1;
}

int imx_pkgver_cmp(enum imx_pkg_order order, const char *a, const char *b)
{
    struct parts pa, pb;
    bool va = split(order, a, &pa), vb = split(order, b, &pb);
    if (!va || !vb)
        return va == vb ? 0 : va ? 1 : -1;
    if (pa.epoch != pb.epoch)
        return pa.epoch < pb.epoch ? -1 : 1;
    int (*cmp)(const char *, const char *) = order == IMX_PKG_DPKG ? dpkg_verrevcmp : rpm_vercmp;
    int rc = cmp(pa.main, pb.main);
    if (rc == 0)
        rc = cmp(pa.tail, pb.tail);
    return rc < 0 ? -1 : rc > 0 ? 1 : 0;
}

/* ---- keys ------------------------------------------------------------------------------------ */

/* Key bytes. dpkg: a non-digit character is 0x01 ('~'), itself (a letter) or 0x80 + itself
 * (anything else); 0x02 ends a non-digit run and, after the last digit run, the part. rpm: 0x01
 * '~', 0x02 the end, 0x03 '^', 0x04 + letters + 0x00 an alphabetic segment, 0x05 a numeric one.
 * A number (epoch, digit run, numeric segment) is its digit count without leading zeros, then
 * the digits: longer numbers are larger, equal lengths compare digit by digit. */
struct kbuf {
    unsigned char *b;
    size_t n;
};

static void put(struct kbuf *k, unsigned char c)
{
    if (k->n < IMX_PKGVER_KEY_MAX)
        k->b[k->n] = c;
    k->n++;
}

static void put_number(struct kbuf *k, const char *s, size_t n)
{
    while (n > 0 && *s == '0') {
        s++;
        n--;
    }
    put(k, (unsigned char)n);
    for (size_t i = 0; i < n; i++)
        put(k, (unsigned char)s[i]);
}

static void put_epoch(struct kbuf *k, long epoch)
{
    char d[16];
    int n = snprintf(d, sizeof d, "%ld", epoch);
    put_number(k, d, epoch ? (size_t)n : 0);
}

/* One dpkg part (upstream or revision): (non-digit run, digit run) pairs, always at least one,
 * so that "" and "0" share a key as dpkg finds them equal. */
static void dpkg_part_key(struct kbuf *k, const char *s)
{
    do {
        for (; *s && !is_digit((unsigned char)*s); s++) {
            unsigned char c = (unsigned char)*s;
            put(k, c == '~' ? 0x01 : is_alpha(c) ? c : (unsigned char)(0x80 + c));
        }
        put(k, 0x02);
        const char *d = s;
        while (is_digit((unsigned char)*s))
            s++;
        put_number(k, d, (size_t)(s - d));
    } while (*s);
    put(k, 0x02);
}

static void rpm_part_key(struct kbuf *k, const char *s)
{
    while (*s) {
        unsigned char c = (unsigned char)*s;
        if (c == '~' || c == '^') {
            put(k, c == '~' ? 0x01 : 0x03);
            s++;
        } else if (is_digit(c)) {
            const char *d = s;
            while (is_digit((unsigned char)*s))
                s++;
            put(k, 0x05);
            put_number(k, d, (size_t)(s - d));
        } else if (is_alpha(c)) {
            put(k, 0x04);
            while (is_alpha((unsigned char)*s))
                put(k, (unsigned char)*s++);
            put(k, 0x00);
        } else {
            s++; /* a separator: rpmvercmp skips it */
        }
    }
    put(k, 0x02);
}

int imx_pkgver_key(enum imx_pkg_order order, const char *s, unsigned char out[IMX_PKGVER_KEY_MAX],
                   size_t *n)
{
    struct parts p;
    *n = 0;
    if (!split(order, s, &p))
        return -1;
    struct kbuf k = { out, 0 };
    put_epoch(&k, p.epoch);
    if (order == IMX_PKG_DPKG) {
        dpkg_part_key(&k, p.main);
        dpkg_part_key(&k, p.tail);
    } else {
        rpm_part_key(&k, p.main);
        rpm_part_key(&k, p.tail);
    }
    if (k.n > IMX_PKGVER_KEY_MAX)
        return -1;
    *n = k.n;
    return 0;
}

void imx_pkgver_hex(const unsigned char *key, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    out[0] = '\\';
    out[1] = 'x';
    for (size_t i = 0; i < n; i++) {
        out[2 + 2 * i] = hex[key[i] >> 4];
        out[3 + 2 * i] = hex[key[i] & 15];
    }
    out[2 + 2 * n] = '\0';
}

int imx_pkgver_key_hex(enum imx_pkg_order order, const char *s, char out[IMX_PKGVER_KEY_HEX_SIZE])
{
    unsigned char key[IMX_PKGVER_KEY_MAX];
    size_t n;
    out[0] = '\0';
    if (imx_pkgver_key(order, s, key, &n) != 0)
        return -1;
    imx_pkgver_hex(key, n, out);
    return 0;
}

/* ---- constraints ----------------------------------------------------------------------------- */

static int key_cmp(const unsigned char *a, size_t an, const unsigned char *b, size_t bn)
{
    int rc = memcmp(a, b, an < bn ? an : bn);
    if (rc == 0 && an != bn)
        return an < bn ? -1 : 1;
    return rc < 0 ? -1 : rc > 0 ? 1 : 0;
}

static void set_err(char *err, size_t errlen, const char *fmt, const char *arg)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, arg);
}

int imx_pkg_constraint_parse(enum imx_pkg_order order, const char *s,
                             struct imx_pkg_constraint *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    set_err(err, errlen, "%s", "");
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > IMX_PKG_CONSTRAINT_TEXT_MAX) {
        set_err(err, errlen, "must be 1 to 300 characters such as %s", "\"<3.0.13-0ubuntu3.6\"");
        return -1;
    }
    int terms = 0;
    size_t tn = 0;
    const char *p = s;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char term[IMX_PKG_CONSTRAINT_TEXT_MAX + 1];
        while (len && (*p == ' ' || *p == '\t')) {
            p++;
            len--;
        }
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        memcpy(term, p, len);
        term[len] = '\0';
        if (len == 0) {
            set_err(err, errlen, "%s", "has an empty term");
            return -1;
        }
        if (++terms > IMX_PKG_CONSTRAINT_MAX_TERMS) {
            set_err(err, errlen, "%s", "has more than 4 terms");
            return -1;
        }
        if (tn + len + 2 < sizeof out->text) {
            if (tn) {
                memcpy(out->text + tn, ", ", 2);
                tn += 2;
            }
            memcpy(out->text + tn, term, len);
            tn += len;
            out->text[tn] = '\0';
        }
        if (strcmp(term, "*") != 0) {
            const char *v = term;
            bool lo = false, hi = false, incl = true;
            if (strncmp(v, ">=", 2) == 0 || strncmp(v, "<=", 2) == 0) {
                lo = v[0] == '>';
                hi = !lo;
                v += 2;
            } else if (v[0] == '>' || v[0] == '<') {
                lo = v[0] == '>';
                hi = !lo;
                incl = false;
                v += 1;
            } else if (v[0] == '=') {
                lo = hi = true;
                v += 1;
            } else {
                lo = hi = true;
            }
            while (*v == ' ')
                v++;
            unsigned char key[IMX_PKGVER_KEY_MAX];
            size_t kn;
            if (imx_pkgver_key(order, v, key, &kn) != 0) {
                set_err(err, errlen,
                        order == IMX_PKG_DPKG ? "'%s' is not a dpkg version such as 1:2.4.1~rc1-2"
                                              : "'%s' is not an rpm version such as 1:3.0.7-27.el9",
                        v);
                return -1;
            }
            /* the tighter bound wins */
            if (lo) {
                int c = out->has_lo ? key_cmp(key, kn, out->lo, out->lo_n) : 1;
                if (c > 0 || (c == 0 && !incl)) {
                    memcpy(out->lo, key, kn);
                    out->lo_n = kn;
                    out->lo_incl = incl;
                    out->has_lo = true;
                }
            }
            if (hi) {
                int c = out->has_hi ? key_cmp(key, kn, out->hi, out->hi_n) : -1;
                if (c < 0 || (c == 0 && !incl)) {
                    memcpy(out->hi, key, kn);
                    out->hi_n = kn;
                    out->hi_incl = incl;
                    out->has_hi = true;
                }
            }
        }
        if (!end)
            break;
        p = end + 1;
        if (!*p) {
            set_err(err, errlen, "%s", "ends with a comma");
            return -1;
        }
    }
    if (out->has_lo && out->has_hi) {
        int c = key_cmp(out->lo, out->lo_n, out->hi, out->hi_n);
        if (c > 0 || (c == 0 && !(out->lo_incl && out->hi_incl))) {
            set_err(err, errlen, "%s", "no version can match it");
            return -1;
        }
    }
    return 0;
}

bool imx_pkg_constraint_matches(enum imx_pkg_order order, const struct imx_pkg_constraint *c,
                                const char *v)
{
    unsigned char key[IMX_PKGVER_KEY_MAX];
    size_t n;
    if (imx_pkgver_key(order, v, key, &n) != 0)
        return false;
    if (c->has_lo) {
        int r = key_cmp(key, n, c->lo, c->lo_n);
        if (r < 0 || (r == 0 && !c->lo_incl))
            return false;
    }
    if (c->has_hi) {
        int r = key_cmp(key, n, c->hi, c->hi_n);
        if (r > 0 || (r == 0 && !c->hi_incl))
            return false;
    }
    return true;
}
