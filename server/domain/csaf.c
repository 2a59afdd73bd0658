/* CSAF 2.0 documents to imaxe advisories: NVIDIA's product tree names products (mapped to
 * components by ref_nvidia_product rows) and affected and fixed versions in prose ("All driver
 * versions prior to 580.126.09"); each form becomes a constraint, product by product. */
#include "domain/csaf.h"
#include "util/budget.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FORM_TEXT_MAX   256 /* longest product version name looked at */
#define FORM_TOKENS     48  /* words in one (a qualifying sentence may follow the form) */
#define TREE_DEPTH      32  /* product tree nesting refused past this */
#define LEAVES_MAX      4096
#define LABEL_MAX       200
#define POINTER_MAX     512
#define RANGE_MAX       160
#define CPE_PRODUCT_MAX 128
#define NOTES_MAX       256 /* unmapped products and warnings kept per bulletin */
#define AFFECTED_MAX    256 /* ranges: as POST /v1/advisories takes */
#define ALIASES_MAX     512 /* a product's release pairs read (ref_version_alias) */
#define ALIAS_NOTE_MAX  200
#define COMMITS_MAX     512 /* a product's commit rows read (ref_commit_release) */
#define COMMIT_NOTE_MAX 300

bool imx_csaf_is_csaf(const json_t *doc)
{
    return json_is_object(doc) &&
           json_is_string(json_object_get(json_object_get(doc, "document"), "csaf_version"));
}

static void add_error(json_t *errors, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_error(json_t *errors, const char *pointer, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    json_array_append_new(errors, json_pack("{s:s, s:s}", "pointer", pointer, "detail", detail));
}

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* ---- the version forms ---- */

/* A dotted number with an optional leading "v" or "r" ("v1.17.8", "r26.03", "580.126.09",
 * "24.10-3.2.5.0"), and an optional release-candidate suffix ("1.3.0rc16", "1.3.0-rc16",
 * "1.3.0.rc16", "1.3.0-rc.16": PEP 440 and semver spellings of one version); copied without the
 * prefix. */
static bool take_version(const char *tok, char *out)
{
    const char *p = (tok[0] == 'v' || tok[0] == 'r') ? tok + 1 : tok;
    size_t n = strlen(p);
    if (n == 0 || n > IMX_VER_TEXT_MAX || !isdigit((unsigned char)p[0]))
        return false;
    size_t i = 0;
    /* a dash between digits joins parts too ("5.8-7.0.6.1", as imx_ver_parse reads it) */
    while (i < n && (isdigit((unsigned char)p[i]) ||
                     ((p[i] == '.' || p[i] == '-') && i > 0 && isdigit((unsigned char)p[i - 1]) &&
                      isdigit((unsigned char)p[i + 1]))))
        i++;
    char text[IMX_VER_TEXT_MAX + 1];
    memcpy(text, p, n + 1);
    if (i < n) {
        /* only "rcN" may follow, directly or after one '-' or '.', which is dropped, as is a
         * '.' after "rc" (semver's "-rc.16") */
        size_t at = i + (p[i] == '-' || p[i] == '.');
        if (strncmp(p + at, "rc", 2) != 0 || at + 2 >= n)
            return false;
        size_t num = at + 2 + (p[at + 2] == '.');
        if (num >= n)
            return false;
        for (size_t j = num; j < n; j++)
            if (!isdigit((unsigned char)p[j]))
                return false;
        memcpy(text + i, "rc", 2);
        memmove(text + i + 2, p + num, n - num + 1);
    }
    struct imx_ver v;
    if (imx_ver_parse(text, &v) != 0)
        return false;
    memcpy(out, text, strlen(text) + 1);
    return true;
}

/* Words that carry no meaning in these names. */
static bool is_filler(const char *w)
{
    static const char *const fillers[] = {
        "all", "driver", "drivers", "version", "versions", "nvidia", "release", "releases",
        "software", "platforms",
        /* "Main branch prior to 0.5.0 release" (bulletin 5746) */
        "main", "branch",
        /* a release's support tag: "All versions prior to 24.11.3 LTS", "2.6.1-4 LTS" */
        "lts", "ga"
    };
    for (size_t i = 0; i < sizeof fillers / sizeof fillers[0]; i++) {
        if (strcmp(w, fillers[i]) == 0)
            return true;
    }
    return false;
}

/* Is w (lower case) a word of product ("NVIDIA CUDA Toolkit"), which some names repeat? A word
 * that starts with a letter counts, digits inside it too ("nvJPEG2000 v0.7.x" under product
 * "nvJPEG2000 Library", bulletin 5517), but never one that reads as a version ("v100",
 * "r26.03"). */
static bool is_product_word(const char *w, const char *product)
{
    /* the grammar's own words stay, even where a product's name has them ("Orin NX and Orin
     * Nano") */
    static const char *const grammar[] = { "and",       "or",      "to",     "prior",  "up",
                                           "including", "earlier", "than",   "before", "from",
                                           "through",   "between", "newer",  "later",  "older",
                                           "below",     "above",   "higher", "lower",  "less",
                                           "greater",   "but",     "not",    "for" };
    for (size_t i = 0; i < sizeof grammar / sizeof grammar[0]; i++)
        if (strcmp(w, grammar[i]) == 0)
            return false;
    size_t n = strlen(w);
    if (!product || n == 0 || !isalpha((unsigned char)w[0]))
        return false;
    /* letters, and digits after them ("nvJPEG2000"), but never a version ("v12", "r25") */
    char v[IMX_VER_TEXT_MAX + 1];
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)w[i]) && w[i] != '-')
            return false;
    if (take_version(w, v))
        return false;
    /* an update or a release candidate ("U1", "rc16") is part of the version after it */
    if ((w[0] == 'u' && strspn(w + 1, "0123456789") == n - 1) ||
        (strncmp(w, "rc", 2) == 0 && strspn(w + 2, "0123456789") == n - 2))
        return false;
    for (const char *p = product; *p;) {
        while (*p && !isalnum((unsigned char)*p))
            p++;
        const char *b = p;
        while (*p && (isalnum((unsigned char)*p) || *p == '-'))
            p++;
        if ((size_t)(p - b) == n && strncasecmp(b, w, n) == 0)
            return true;
    }
    return false;
}

/* Is w (lower case) a word of a product's own name, as NVIDIA puts one before the version of a
 * fixed product ("Isaac Sim v2.3.0" under product "Isaac Lab", bulletin 5733)? Letters only,
 * and none of the words that make a range or a condition. */
static bool is_name_word(const char *w)
{
    static const char *const not_names[] = {
        "and", "or", "to", "prior", "up", "including", "earlier", "than", "before", "from",
        "through", "between", "newer", "later", "older", "lower", "higher", "above", "below",
        "after", "since", "until", "till", "only", "except", "not", "without", "excluding", "less",
        "greater", "under", "over", "starting", "beginning", "affected", "fixed", "vulnerable",
        "any", "every", "no", "none", "patch", "commit", "code", "update", "newest", "latest",
        "earliest", "onward", "onwards", "upward", "upwards", "plus", "unsupported",
        /* JetPack numbers its releases apart from Jetson Linux (JetPack 6.2.1 is Jetson Linux
         * 36.4.4): never a name to skip, the parser marks the versions after it as JetPack's */
        "jetpack"
    };
    if (!*w)
        return false;
    for (const char *p = w; *p; p++)
        if (!isalpha((unsigned char)*p) && *p != '-')
            return false;
    for (size_t i = 0; i < sizeof not_names / sizeof not_names[0]; i++)
        if (strcmp(w, not_names[i]) == 0)
            return false;
    return true;
}

/* "0.9" -> "0.10": the version after every 0.9.x, for a span that ends in "v0.9.x". */
static bool bump_last(char *v)
{
    char *dot = strrchr(v, '.');
    char *num = dot ? dot + 1 : v;
    if (strspn(num, "0123456789") != strlen(num) || strlen(num) > 8)
        return false;
    long n = strtol(num, NULL, 10) + 1;
    size_t at = (size_t)(num - v);
    int w = snprintf(num, IMX_VER_TEXT_MAX + 1 - at, "%ld", n);
    return w > 0 && (size_t)w < IMX_VER_TEXT_MAX + 1 - at;
}

/* "470.82" -> "470.83", "26.03" -> "26.04", "1.3.0rc14" -> "1.3.0rc15": the trailing run of
 * digits plus one, at its written width. False when v does not end in a digit or the part would
 * pass IMX_VER_PART_MAX. */
static bool bump_trailing(char *v)
{
    size_t n = strlen(v), d = n;
    while (d > 0 && isdigit((unsigned char)v[d - 1]))
        d--;
    size_t width = n - d;
    if (width == 0 || width > 9)
        return false;
    long part = strtol(v + d, NULL, 10) + 1;
    if (part > IMX_VER_PART_MAX)
        return false;
    int w = snprintf(v + d, IMX_VER_TEXT_MAX + 1 - d, "%0*ld", (int)width, part);
    return w > 0 && (size_t)w < IMX_VER_TEXT_MAX + 1 - d;
}

int imx_csaf_builds_bound(const char *x, const char *fix, char *out, size_t len)
{
    struct imx_ver vx, vn, vd, vf;
    char next[IMX_VER_TEXT_MAX + 1], dev[IMX_VER_TEXT_MAX + 8];
    if (!x || !out || len == 0 || strlen(x) > IMX_VER_TEXT_MAX || imx_ver_parse(x, &vx) != 0)
        return -1;
    memcpy(next, x, strlen(x) + 1);
    /* a suffix that is no pre-release ("+cu124", ".post1") orders nothing: bumped, its number
     * names no later version, and no bound past X's builds can be told from the text */
    if (!bump_trailing(next) || imx_ver_parse(next, &vn) != 0 || imx_ver_cmp(&vn, &vx) <= 0)
        return -1;
    /* next's first pre-release, where the keys hold one (a release of at most four parts, less
     * trailing zeros): "dev0" is the lowest pre-release key (IMX_VER_PRE_DEV, number 0), so
     * 0.8.1rc1 and 0.8.1a1 lie above the bound and a 0.8.0 bulletin does not mark them. X's own
     * pre-releases ("1.3.0rc14" -> "1.3.0rc15") have none of their own. */
    const char *bound = next;
    if (imx_ver_suffix(&vx)[0] == '\0' &&
        snprintf(dev, sizeof dev, "%sdev0", next) < (int)sizeof dev &&
        imx_ver_parse(dev, &vd) == 0 && imx_ver_cmp(&vd, &vn) < 0 && imx_ver_cmp(&vd, &vx) > 0)
        bound = dev;
    else
        vd = vn;
    /* the fix, when it comes before that: "up to and including 12.6" fixed in 12.6.1 */
    if (fix && imx_ver_parse(fix, &vf) == 0 && imx_ver_cmp(&vf, &vx) > 0 &&
        imx_ver_cmp(&vf, &vd) < 0)
        bound = fix;
    if (strlen(bound) >= len)
        return -1;
    memcpy(out, bound, strlen(bound) + 1);
    return 0;
}

static bool words_are(char *const *t, size_t n, const char *const *want)
{
    for (size_t i = 0; i < n; i++) {
        if (want[i] && strcmp(t[i], want[i]) != 0)
            return false;
    }
    return true;
}

static bool is_zero(const char *v)
{
    for (; *v; v++)
        if (*v != '0' && *v != '.')
            return false;
    return true;
}

/* "580.105.08(All versions prior to and including vGPU 19.3)": the version before a
 * parenthesis, up to it when the parenthesis says so, else that version. 1: taken; 0: not
 * this shape; -1: this shape, not understood. */
static int vgpu_form(const char *buf, struct imx_csaf_version_form *out)
{
    const char *open = strchr(buf, '(');
    const char *close = strrchr(buf, ')');
    if (!open || !close || close < open || close[1] != '\0')
        return 0;
    char v[IMX_VER_TEXT_MAX + 2];
    size_t n = (size_t)(open - buf);
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    size_t b = 0;
    while (b < n && buf[b] == ' ')
        b++;
    /* a blank between the version and its parenthesis ("510.73.06\t(All versions ...)",
     * bulletin 5383) is not a second word */
    const char *sp = memchr(buf + b, ' ', n - b);
    if (n - b == 0 || n - b > IMX_VER_TEXT_MAX || sp)
        return 0;
    memcpy(v, buf + b, n - b);
    v[n - b] = '\0';
    if (!take_version(v, out->hi))
        return 0;
    const char *inner = open + 1;
    if (strstr(inner, "up to and including") || strstr(inner, "prior to and including") ||
        strstr(inner, "and earlier"))
        out->form = IMX_CSAF_UPTO;
    else if (strstr(inner, "prior to") || strstr(inner, "before"))
        return -1;
    else
        out->form = IMX_CSAF_EXACT;
    return 1;
}

/* Cuts buf into words: spaces and commas separate; "0.0-26.05" is "0.0 - 26.05". Fills t with
 * pointers into buf; false when there are more than max. */
static bool split_words(char *buf, char **t, size_t *k, size_t max)
{
    *k = 0;
    for (char *p = buf; *p;) {
        while (*p == ' ' || *p == ',')
            *p++ = '\0';
        if (!*p)
            break;
        char *w = p;
        while (*p && *p != ' ' && *p != ',')
            p++;
        if (*p)
            *p++ = '\0';
        /* a span without spaces ("0.0-26.05", "9.0-9.2"): both sides versions, from zero or
         * of one shape in order; else the dash is the version's own ("5.8-7.0.6.1",
         * "2.5.3-0.1.2": MLNX_OFED and DOCA-Host, bulletin 5654) */
        char *dash = strchr(w, '-');
        char a[IMX_VER_TEXT_MAX + 1], b[IMX_VER_TEXT_MAX + 1];
        if (dash && dash != w && dash[1] && !strchr(dash + 1, '-')) {
            *dash = '\0';
            struct imx_ver va, vb;
            if (take_version(w, a) && take_version(dash + 1, b) && imx_ver_parse(a, &va) == 0 &&
                imx_ver_parse(b, &vb) == 0 &&
                (is_zero(a) || (va.nparts == vb.nparts && imx_ver_cmp(&va, &vb) <= 0))) {
                if (*k + 3 > max)
                    return false;
                t[(*k)++] = w;
                t[(*k)++] = "-";
                t[(*k)++] = dash + 1;
                continue;
            }
            *dash = '-';
        }
        if (*k == max)
            return false;
        t[(*k)++] = w;
    }
    return true;
}

/* t[0..k) as a list of at least two versions joined by "and", "or" or "/" (commas are gone):
 * into out's list, hi the lowest. */
static bool take_list(char *const *t, size_t k, struct imx_csaf_version_form *out)
{
    if (k < 2 || k > 2 * IMX_CSAF_LIST_MAX)
        return false;
    struct imx_ver low = { 0 };
    out->nlist = 0;
    for (size_t i = 0; i < k; i++) {
        char prev[IMX_VER_TEXT_MAX + 1];
        bool sep = strcmp(t[i], "and") == 0 || strcmp(t[i], "or") == 0 || strcmp(t[i], "/") == 0;
        if (sep && i > 0 && i + 1 < k && take_version(t[i - 1], prev))
            continue;
        struct imx_ver v;
        if (out->nlist == IMX_CSAF_LIST_MAX || !take_version(t[i], out->list[out->nlist]) ||
            imx_ver_parse(out->list[out->nlist], &v) != 0)
            return false;
        if (out->nlist == 0 || imx_ver_cmp(&v, &low) < 0) {
            low = v;
            memcpy(out->hi, out->list[out->nlist], sizeof out->hi);
        }
        out->nlist++;
    }
    return out->nlist >= 2;
}

/* Is raw[i] one of the words before "versions" that say what the versions are of ("All BMC
 * firmware versions prior to 3.39.3", "Jetson Linux versions prior to 36.4")? Words of letters
 * only, up to "version" or "versions". */
static bool names_versions(char *const *raw, size_t i, size_t nraw)
{
    if (!is_name_word(raw[i]) || strcmp(raw[i], "version") == 0 || strcmp(raw[i], "versions") == 0)
        return false;
    for (size_t j = i + 1; j < nraw; j++) {
        if (strcmp(raw[j], "version") == 0 || strcmp(raw[j], "versions") == 0)
            return true;
        if (!is_name_word(raw[j]))
            return false;
    }
    return false;
}

/* A commit id as NVIDIA writes one: 7 to 40 hex digits (the text is lower case already); a bare
 * one (no "commit" before it) must have a letter, since "1234567" reads as a version. */
static bool is_commit(const char *w, bool bare)
{
    size_t n = strspn(w, "0123456789abcdef");
    return n >= 7 && n <= IMX_CSAF_COMMIT_MAX && w[n] == '\0' &&
           (!bare || strspn(w, "0123456789") < n);
}

/* The forms that name versions by a code commit (bulletins 5658, 5683, 5739, 5761, 5782, 5808,
 * 5831, 5851), from the words left once fillers are gone: "[any] [code] [branches] that [do|does]
 * [not] include[s] [code] commit X", a bare "X" (a fix), "0.0 to X" (up to and including it).
 * True when t[0..k) is one, with out filled. */
static bool commit_form(char *const *t, size_t k, struct imx_csaf_version_form *out)
{
    static const char *const words[] = { "any",  "code", "branches", "that",    "do",
                                         "does", "not",  "include",  "includes" };
    const char *c = NULL;
    enum imx_csaf_commit_role role = IMX_CSAF_WITH;
    if (k == 1 && is_commit(t[0], true)) {
        c = t[0];
    } else if (k == 3 && (strcmp(t[1], "to") == 0 || strcmp(t[1], "-") == 0) && is_zero(t[0]) &&
               is_commit(t[2], true)) {
        c = t[2];
        role = IMX_CSAF_THROUGH;
    } else if (k >= 3 && strcmp(t[k - 2], "commit") == 0 && is_commit(t[k - 1], false)) {
        bool that = false, include = false, negated = false;
        for (size_t i = 0; i + 2 < k; i++) {
            size_t w = 0;
            while (w < sizeof words / sizeof words[0] && strcmp(t[i], words[w]) != 0)
                w++;
            if (w == sizeof words / sizeof words[0])
                return false;
            that = that || w == 3;
            negated = negated || w == 6;
            include = include || w >= 7;
        }
        if (!that || !include)
            return false;
        c = t[k - 1];
        role = negated ? IMX_CSAF_WITHOUT : IMX_CSAF_WITH;
    }
    if (!c)
        return false;
    out->form = IMX_CSAF_COMMIT;
    out->commit_role = role;
    snprintf(out->commit, sizeof out->commit, "%s", c);
    return true;
}

int imx_csaf_parse_form(const char *text, const char *product, struct imx_csaf_version_form *out)
{
    if (!text || !out)
        return -1;
    memset(out, 0, sizeof *out);
    size_t len = strlen(text), n = 0;
    if (len == 0 || len > FORM_TEXT_MAX)
        return -1;
    char buf[FORM_TEXT_MAX + 1];
    for (size_t i = 0; i <= len; i++) {
        unsigned char c = (unsigned char)text[i];
        /* an en or em dash ("0.0 \u2013 2.0") is a dash, a no-break space a space; any other
         * non-ASCII text is not a form */
        if (c == 0xe2 && (unsigned char)text[i + 1] == 0x80 &&
            ((unsigned char)text[i + 2] == 0x93 || (unsigned char)text[i + 2] == 0x94)) {
            buf[n++] = '-';
            i += 2;
            continue;
        }
        if (c == 0xc2 && (unsigned char)text[i + 1] == 0xa0) {
            buf[n++] = ' ';
            i++;
            continue;
        }
        if (c >= 0x80 || (c && c < 0x20 && c != '\t'))
            return -1;
        buf[n++] = (char)(c == '\t' ? ' ' : tolower(c));
    }
    n--; /* the NUL copied last */
    /* A second sentence qualifies the first ("All driver versions prior to 582.53. Only GPUs
     * based on the NVIDIA Maxwell, Volta, and Pascal GPU architectures are affected."): the
     * range is read from the first, and the caller says so, as for a parenthesis. */
    for (size_t i = 1; i + 2 < n; i++) {
        if (buf[i] == '.' && buf[i + 1] == ' ' && isalpha((unsigned char)buf[i + 2])) {
            buf[i] = '\0';
            n = i;
            out->qualified = true;
            break;
        }
    }
    /* A sentence's full stop. */
    while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '.'))
        buf[--n] = '\0';

    int vg = vgpu_form(buf, out);
    if (vg != 0)
        return vg > 0 ? 0 : (memset(out, 0, sizeof *out), -1);

    /* A qualifier in parentheses ("(CDI mode only for versions prior to 1.17.5)") narrows who is
     * affected; the range is read without it, and the caller says so. */
    char *open;
    while ((open = strchr(buf, '(')) != NULL) {
        char *close = strchr(open, ')');
        if (!close)
            return -1;
        memmove(open, close + 1, strlen(close + 1) + 1);
        out->qualified = true;
    }

    char *raw[FORM_TOKENS], *t[FORM_TOKENS];
    size_t nraw, k = 0;
    if (!split_words(buf, raw, &nraw, FORM_TOKENS))
        return -1;
    char joined[FORM_TOKENS][IMX_VER_TEXT_MAX + 8];
    bool wild[FORM_TOKENS] = { false }; /* t[i] was written "0.9.x" */
    for (size_t i = 0; i < nraw; i++) {
        char *w = raw[i];
        size_t wl = strlen(w);
        /* "prior to JetPack 6.2.1", "All JetPack versions prior to 6.2": the versions are
         * JetPack's, which the caller reads through the product's pairs (ref_version_alias) or
         * refuses; a text naming JetPack after its first version is not one of the forms */
        if (strcmp(w, "jetpack") == 0) {
            if (k > 0 && take_version(t[k - 1], (char[IMX_VER_TEXT_MAX + 1]){ 0 }))
                return -1;
            out->jetpack = true;
            continue;
        }
        if (is_filler(w) || is_product_word(w, product) || (wl > 1 && w[wl - 1] == ':'))
            continue;
        /* A word can give two tokens ("<2.1"), so the tokens can outnumber the words: past
         * FORM_TOKENS the text is no form of NVIDIA's (found by fuzz_csaf). */
        if (k >= FORM_TOKENS)
            return -1;
        /* "All BMC firmware versions prior to 3.39.3": the words naming what the versions are
         * of, before the first version */
        if (k == 0 && names_versions(raw, i, nraw))
            continue;
        /* "All versions of Jetson Linux prior to 36.4.4": what the versions are of, after them */
        if (k == 0 && strcmp(w, "of") == 0 && i + 1 < nraw &&
            (is_name_word(raw[i + 1]) || strcmp(raw[i + 1], "jetpack") == 0)) {
            while (i + 1 < nraw && is_name_word(raw[i + 1]))
                i++;
            continue;
        }
        /* "All JP6 versions prior to 36.4.4": a JetPack release line as a label, as "JP6.x:" */
        if (strncmp(w, "jp", 2) == 0 && w[2] && strspn(w + 2, "0123456789") >= 1 &&
            (w[2 + strspn(w + 2, "0123456789")] == '\0' ||
             strcmp(w + 2 + strspn(w + 2, "0123456789"), ".x") == 0))
            continue;
        /* Megatron-LM's release tags ("core_v0.12.1", "core_r0.12.1"): the version after */
        if (strncmp(w, "core_", 5) == 0 && (w[5] == 'v' || w[5] == 'r')) {
            w += 5;
            wl -= 5;
        }
        char v[IMX_VER_TEXT_MAX + 1];
        /* "prior to 474.44 for support of GeForce Kepler desktop", "prior to 582.53 Only GPUs
         * based on ...": a condition on who is affected, after the versions; read without it,
         * and the caller says so */
        if ((strcmp(w, "for") == 0 || strcmp(w, "only") == 0) && k > 0 &&
            take_version(t[k - 1], v)) {
            out->qualified = true;
            break;
        }
        /* "12.9 update 1" and "12.5u1" are 12.9.1 and 12.5.1; "v1.3.0 rc16" is 1.3.0rc16; the
         * "32.x" of "All 32.x versions prior to 32.7.1" is 32 */
        char *u = strrchr(w, 'u');
        if (u && u > w && u[1] && strspn(u + 1, "0123456789") == strlen(u + 1) &&
            strlen(u + 1) <= 4) {
            *u = '\0';
            if (take_version(w, v) && strchr(v, '.') && !strstr(v, "rc") && k < FORM_TOKENS) {
                snprintf(joined[k], sizeof joined[k], "%s.%s", v, u + 1);
                t[k] = joined[k];
                k++;
                continue;
            }
            *u = 'u';
        }
        /* "<2.1", "<=2.1", ">=2.2": the operator is a word of its own */
        if ((w[0] == '<' || w[0] == '>') && w[1] && (w[1] != '=' || w[2])) {
            if (k + 2 > FORM_TOKENS)
                return -1;
            bool eq = w[1] == '=';
            t[k++] = w[0] == '<' ? (eq ? "<=" : "<") : (eq ? ">=" : ">");
            w += eq ? 2 : 1;
            wl = strlen(w);
        }
        if (wl > 2 && strcmp(w + wl - 2, ".x") == 0) {
            w[wl - 2] = '\0';
            if (!take_version(w, v))
                w[wl - 2] = '.';
            else
                wild[k] = true;
        }
        if (i + 2 < nraw + 1 && i + 1 < nraw && take_version(w, v) && !strstr(v, "rc")) {
            const char *nx = raw[i + 1];
            /* an update of a dotted release ("12.8 Update 1", "12.8 U1"); "R580 Update 7"
             * names a driver release by its branch, not a version, and is not read */
            bool upd =
                (strcmp(nx, "update") == 0 ||
                 (nx[0] == 'u' && nx[1] && strspn(nx + 1, "0123456789") == strlen(nx + 1))) &&
                strchr(v, '.');
            if (upd && strcmp(nx, "update") == 0 && i + 2 >= nraw)
                upd = false;
            bool rc = strncmp(nx, "rc", 2) == 0 && nx[2] &&
                      strspn(nx + 2, "0123456789") == strlen(nx + 2);
            if (upd || rc) {
                bool word = upd && strcmp(nx, "update") == 0;
                const char *num = word ? raw[i + 2] : upd ? nx + 1 : nx + 2;
                if (strspn(num, "0123456789") != strlen(num) || strlen(num) > 4)
                    return -1;
                snprintf(joined[k], sizeof joined[k], upd ? "%s.%s" : "%src%s", v, num);
                t[k] = joined[k];
                k++;
                i += word ? 2 : 1;
                continue;
            }
        }
        t[k++] = w;
    }

    static const char *const prior[] = { "prior", "to", NULL };
    static const char *const earlier[] = { "earlier", "than", NULL };
    static const char *const older[] = { "older", "than", NULL };
    static const char *const lower[] = { "lower", "than", NULL };
    static const char *const upto_incl[] = { "up", "to", "and", "including", NULL };
    static const char *const prior_incl[] = { "prior", "to", "and", "including", NULL };
    static const char *const upto[] = { "up", "to", NULL };
    static const char *const and_earlier[] = { NULL, "and", "earlier" };
    static const char *const and_prior[] = { NULL, "and", "prior" };
    static const char *const and_older[] = { NULL, "and", "older" };
    static const char *const or_earlier[] = { NULL, "or", "earlier" };
    static const char *const and_newer[] = { NULL, "and", "newer" };
    static const char *const and_later[] = { NULL, "and", "later" };
    static const char *const or_later[] = { NULL, "or", "later" };
    static const char *const and_above[] = { NULL, "and", "above" };
    /* the same words joined otherwise ("25.10.6 or newer", "2.1 and below") */
    static const char *const or_newer[] = { NULL, "or", "newer" };
    static const char *const or_above[] = { NULL, "or", "above" };
    static const char *const and_higher[] = { NULL, "and", "higher" };
    static const char *const or_higher[] = { NULL, "or", "higher" };
    static const char *const or_greater[] = { NULL, "or", "greater" };
    static const char *const and_below[] = { NULL, "and", "below" };
    static const char *const or_below[] = { NULL, "or", "below" };
    static const char *const or_older[] = { NULL, "or", "older" };
    static const char *const or_prior[] = { NULL, "or", "prior" };
    static const char *const and_lower[] = { NULL, "and", "lower" };
    static const char *const or_lower[] = { NULL, "or", "lower" };
    static const char *const less[] = { "less", "than", NULL };
    static const char *const upto_excl[] = { "up", "to", "but", "not", "including", NULL };
    static const char *const from_to[] = { "from", NULL, "to", NULL };
    static const char *const from_through[] = { "from", NULL, "through", NULL };
    static const char *const between[] = { "between", NULL, "and", NULL };
    static const char *const from_upto[] = { "from", NULL, "up", "to", NULL };
    static const char *const from_upto_incl[] = {
        "from", NULL, "up", "to", "and", "including", NULL
    };
    static const char *const lo_prior[] = { NULL, "prior", "to", NULL };

    if (k == 0) {
        out->form = IMX_CSAF_ALL;
        return 0;
    }
    if (commit_form(t, k, out))
        return 0;
    if (k == 1 && take_version(t[0], out->hi)) {
        out->form = IMX_CSAF_EXACT;
        /* "1.17.x", "CUDA 12.x": the whole line, below the next */
        if (wild[0]) {
            memcpy(out->lo, out->hi, sizeof out->lo);
            if (!bump_last(out->hi)) {
                memset(out, 0, sizeof *out);
                return -1;
            }
            out->form = IMX_CSAF_BELOW;
            out->line = true;
        }
        return 0;
    }
    /* "Isaac Sim v2.3.0", "Curator 25.07": a name, then one version */
    size_t lead = 0;
    while (lead < k && is_name_word(t[lead]))
        lead++;
    if (lead > 0 && k - lead == 1 && !wild[lead] && take_version(t[lead], out->hi)) {
        out->form = IMX_CSAF_EXACT;
        return 0;
    }
    if ((k == 3 &&
         (words_are(t, 2, prior) || words_are(t, 2, earlier) || words_are(t, 2, older) ||
          words_are(t, 2, lower) || words_are(t, 2, less)) &&
         take_version(t[2], out->hi)) ||
        (k == 6 && words_are(t, 5, upto_excl) && take_version(t[5], out->hi)) ||
        (k == 2 &&
         (strcmp(t[0], "before") == 0 || strcmp(t[0], "<") == 0 || strcmp(t[0], "prior") == 0 ||
          strcmp(t[0], "below") == 0) &&
         take_version(t[1], out->hi))) {
        out->form = IMX_CSAF_BELOW;
        return 0;
    }
    /* "All versions prior to 0.13.1 and 0.12.3": each release line before its fix */
    size_t skip = k > 2 && words_are(t, 2, prior)        ? 2
                  : k > 1 && strcmp(t[0], "before") == 0 ? 1
                                                         : 0;
    if (skip && take_list(t + skip, k - skip, out)) {
        out->form = IMX_CSAF_BELOW;
        return 0;
    }
    bool qualified = out->qualified;
    memset(out, 0, sizeof *out);
    out->qualified = qualified;
    if (k == 4 && words_are(t, 4, lo_prior) && take_version(t[0], out->lo) &&
        take_version(t[3], out->hi)) {
        /* "All 2.9 versions prior to 2.9.3" */
        struct imx_ver lo, hi;
        if (imx_ver_parse(out->lo, &lo) == 0 && imx_ver_parse(out->hi, &hi) == 0 &&
            imx_ver_cmp(&lo, &hi) < 0) {
            out->form = IMX_CSAF_BELOW;
            return 0;
        }
        memset(out, 0, sizeof *out);
        return -1;
    }
    if ((k == 5 && (words_are(t, 4, upto_incl) || words_are(t, 4, prior_incl)) &&
         take_version(t[4], out->hi)) ||
        (k == 3 && words_are(t, 2, upto) && take_version(t[2], out->hi)) ||
        (k == 2 && strcmp(t[0], "through") == 0 && take_version(t[1], out->hi)) ||
        (k == 3 &&
         (words_are(t, 3, and_earlier) || words_are(t, 3, and_prior) ||
          words_are(t, 3, or_earlier) || words_are(t, 3, and_older) || words_are(t, 3, and_below) ||
          words_are(t, 3, or_below) || words_are(t, 3, or_older) || words_are(t, 3, or_prior) ||
          words_are(t, 3, and_lower) || words_are(t, 3, or_lower)) &&
         take_version(t[0], out->hi)) ||
        (k == 2 && strcmp(t[0], "<=") == 0 && take_version(t[1], out->hi))) {
        out->form = IMX_CSAF_UPTO;
        /* "2.3.x and earlier", "up to 2.3.x": every 2.3 release too, so below 2.4 */
        if (wild[k - 1] || (k == 3 && wild[0])) {
            if (!bump_last(out->hi)) {
                memset(out, 0, sizeof *out);
                return -1;
            }
            out->form = IMX_CSAF_BELOW;
        }
        return 0;
    }
    if (k == 3 &&
        (words_are(t, 3, and_newer) || words_are(t, 3, and_later) || words_are(t, 3, or_later) ||
         words_are(t, 3, and_above) || words_are(t, 3, or_newer) || words_are(t, 3, or_above) ||
         words_are(t, 3, and_higher) || words_are(t, 3, or_higher) ||
         words_are(t, 3, or_greater)) &&
        take_version(t[0], out->hi)) {
        out->form = IMX_CSAF_FROM;
        return 0;
    }
    if (k == 2 && strcmp(t[0], ">=") == 0 && take_version(t[1], out->hi)) {
        out->form = IMX_CSAF_FROM;
        return 0;
    }
    bool span = false, open_end = false;
    if (k == 3 &&
        (strcmp(t[1], "to") == 0 || strcmp(t[1], "through") == 0 || strcmp(t[1], "-") == 0)) {
        span = take_version(t[0], out->lo) && take_version(t[2], out->hi);
        open_end = wild[2];
    } else if (k == 4 && (words_are(t, 4, from_to) || words_are(t, 4, from_through) ||
                          words_are(t, 4, between))) {
        span = take_version(t[1], out->lo) && take_version(t[3], out->hi);
        open_end = wild[3];
    } else if ((k == 5 && words_are(t, 5, from_upto)) ||
               (k == 7 && words_are(t, 7, from_upto_incl))) {
        /* "from 0.10 up to 0.13", "from 0.10 up to and including 0.13" */
        span = take_version(t[1], out->lo) && take_version(t[k - 1], out->hi);
        open_end = wild[k - 1];
    }
    if (span) {
        struct imx_ver lo, hi;
        if (imx_ver_parse(out->lo, &lo) != 0 || imx_ver_parse(out->hi, &hi) != 0 ||
            imx_ver_cmp(&lo, &hi) > 0) {
            memset(out, 0, sizeof *out);
            return -1;
        }
        /* "v0.1.x - v0.9.x" (bulletin 5560): every 0.9 release too, so below 0.10 */
        if (open_end) {
            if (!bump_last(out->hi)) {
                memset(out, 0, sizeof *out);
                return -1;
            }
            out->form = IMX_CSAF_BELOW;
            if (is_zero(out->lo))
                out->lo[0] = '\0';
            return 0;
        }
        /* "0.0 to 4.5.2": from the beginning */
        if (is_zero(out->lo)) {
            out->lo[0] = '\0';
            out->form = IMX_CSAF_UPTO;
        } else {
            out->form = IMX_CSAF_SPAN;
        }
        return 0;
    }
    /* "2.3.4 and 2.3.5", "2.3.4, 2.3.5 and 2.3.6": each of them */
    if (take_list(t, k, out)) {
        out->form = IMX_CSAF_LIST;
        return 0;
    }
    memset(out, 0, sizeof *out);
    return -1;
}

/* ---- the product tree ---- */

const char *imx_csaf_platform(const char *arch)
{
    if (!arch)
        return "linux";
    if (strcasestr(arch, "gaming"))
        return "cloud-gaming";
    /* the hypervisors NVIDIA's vGPU software supports, as its bulletins name them ("Nutanix
     * AHV", "Proxmox VE" since vGPU 18) */
    static const char *const hypervisors[] = { "citrix", "vmware",     "vsphere", "xenserver",
                                               "kvm",    "hypervisor", "nutanix", "proxmox" };
    /* "Windows(R580 vGPU 19)", "Azure Local, Windows Server(...)", "Azure Stack HCI(...)": the
     * Windows guest drivers and Windows-hosted vGPU managers */
    if ((strcasestr(arch, "windows") || strcasestr(arch, "azure") || strcasestr(arch, "hyper-v")) &&
        !strcasestr(arch, "linux"))
        return "windows";
    /* "Citrix Hypervisor, VMware vSphere, Red Hat Enterprise Linux KVM(R470)": vGPU hosts, with
     * or without "vGPU" in the name; "Ubuntu(R550 vGPU 17)" too */
    for (size_t i = 0; i < sizeof hypervisors / sizeof hypervisors[0]; i++)
        if (strcasestr(arch, hypervisors[i]))
            return "vgpu-host";
    if (strcasestr(arch, "vgpu"))
        return strcasestr(arch, "ubuntu") ? "vgpu-host" : "vgpu-guest";
    /* "JetPack 6", "L4T(36)" name Jetson Linux too, unless other platforms are listed beside
     * ("Ubuntu 20.04, Ubuntu 22.04, Jetpack", 5560: a product for both, read as Linux) */
    if (strcasestr(arch, "jetson") || strcasestr(arch, "tegra") ||
        ((strcasestr(arch, "jetpack") || strcasestr(arch, "l4t")) && !strchr(arch, ',')))
        return "jetson";
    if (strcasestr(arch, "linux"))
        return "linux";
    if (strcasestr(arch, "macos"))
        return "macos";
    /* "All", "Any", "All platforms", "Kubernetes", "DALI Backend", "x86_64 or arm64-sbsa":
     * software that runs where an image does */
    return "linux";
}

/* A product as the bulletin files it: one architecture and product name, shared by its
 * affected and fixed versions. */
struct label {
    const char *arch, *product; /* borrowed */
    char cpe[CPE_PRODUCT_MAX];  /* the product field of its CPE ("tesla"); "" when none */
    char text[LABEL_MAX];       /* "Linux(R580) > Tesla" */
    const char *platform;
    bool looked_up;
    const char *component; /* borrowed from the map; NULL: not tracked */
    bool branched;
    const json_t *aliases; /* borrowed from the map row: [[own version, release]], or NULL */
    const json_t *commits; /* borrowed from the map row: [[commit, release|null, as_of, status]] */
    char why[LABEL_MAX + 200]; /* not tracked: why */
    /* the fixed products of the vulnerability being read, chained through leaf.next_fixed */
    size_t stamp;
    long fixed_head;
};

struct leaf {
    const char *id;   /* product_id, borrowed */
    const char *text; /* the version name, borrowed */
    const char *arch, *product;
    char cpe[CPE_PRODUCT_MAX];
    size_t label; /* index into tree.labels */
    bool parsed, bad, reported;
    struct imx_csaf_version_form form;
    char alias_note[ALIAS_NOTE_MAX];   /* its versions read in another numbering: how; or why not */
    char commit_note[COMMIT_NOTE_MAX]; /* its commit read as a release: how; or why not */
    char pointer[POINTER_MAX];         /* to the version name */
    long next_fixed;
    size_t fixed_stamp; /* the vulnerability whose fixed chain holds it */
};

struct tree {
    struct leaf *leaves;
    size_t n, cap;
    struct label *labels;
    size_t nl;
    size_t *ids;    /* open addressing over product ids: leaf index + 1; 0 empty */
    size_t *lslots; /* the same over (architecture, product): label index + 1 */
    size_t nslots;  /* a power of two, at least twice the leaves */
    bool too_big;
    bool spent; /* the request's work budget ran out (util/budget.h) */
};

static size_t hash_str(const char *s, const char *s2)
{
    uint64_t h = 1469598103934665603ULL;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
    for (; s2 && *s2; s2++)
        h = (h ^ (unsigned char)*s2) * 1099511628211ULL;
    return (size_t)h;
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The product field of a CPE 2.3 name (cpe:2.3:a:nvidia:PRODUCT:...), into out ("" when none). */
static void cpe_product(const json_t *product, char *out, size_t len)
{
    out[0] = '\0';
    const char *cpe = str(json_object_get(product, "product_identification_helper"), "cpe");
    if (!cpe || strncmp(cpe, "cpe:2.3:", 8) != 0)
        return;
    const char *p = cpe + 8;
    for (int field = 0; field < 2 && p; field++) {
        p = strchr(p, ':');
        if (p)
            p++;
    }
    if (!p)
        return;
    size_t n = strcspn(p, ":");
    if (n == 0 || n >= len)
        return;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)tolower((unsigned char)p[i]);
    out[n] = '\0';
}

static int add_leaf(struct tree *t, const json_t *branch, const char *arch, const char *product,
                    const char *pointer)
{
    const json_t *p = json_object_get(branch, "product");
    const char *id = str(p, "product_id"), *text = str(p, "name");
    const char *name = str(branch, "name");
    if (!id || !text)
        return 0;
    if (t->n == t->cap) {
        if (t->cap >= LEAVES_MAX) {
            t->too_big = true;
            return -1;
        }
        size_t cap = t->cap ? t->cap * 2 : 64;
        struct leaf *nl = realloc(t->leaves, cap * sizeof *nl);
        if (!nl)
            return -1;
        t->leaves = nl;
        t->cap = cap;
    }
    struct leaf *l = &t->leaves[t->n++];
    memset(l, 0, sizeof *l);
    l->id = id;
    l->text = text;
    l->arch = arch;
    /* NVIDIA names a product_version branch after the product and puts the version in the
     * product's name; plain CSAF names the branch after the version. */
    l->product = name && strcmp(name, text) != 0 ? name : product;
    l->next_fixed = -1;
    l->fixed_stamp = (size_t)-1;
    cpe_product(p, l->cpe, sizeof l->cpe);
    int w = snprintf(l->pointer, sizeof l->pointer, "%s/product/name", pointer);
    return w > 0 && (size_t)w < sizeof l->pointer ? 0 : -1;
}

static int walk(struct tree *t, const json_t *branches, const char *arch, const char *product,
                const char *pointer, int depth)
{
    if (depth > TREE_DEPTH) {
        t->too_big = true;
        return -1;
    }
    size_t i;
    json_t *b;
    json_array_foreach(branches, i, b)
    {
        if (imx_budget_spent()) {
            t->spent = true;
            return -1;
        }
        char ptr[POINTER_MAX];
        int w = snprintf(ptr, sizeof ptr, "%s/%zu", pointer, i);
        if (w < 0 || (size_t)w >= sizeof ptr) {
            t->too_big = true;
            return -1;
        }
        const char *cat = str(b, "category"), *name = str(b, "name");
        const char *a = arch, *p = product;
        if (cat && name && strcmp(cat, "architecture") == 0)
            a = name;
        else if (cat && name && strcmp(cat, "product_name") == 0)
            p = name;
        if (cat && strcmp(cat, "product_version") == 0 && add_leaf(t, b, a, p, ptr) != 0)
            return -1;
        json_t *sub = json_object_get(b, "branches");
        if (json_is_array(sub)) {
            char sp[POINTER_MAX];
            w = snprintf(sp, sizeof sp, "%s/branches", ptr);
            if (w < 0 || (size_t)w >= sizeof sp) {
                t->too_big = true;
                return -1;
            }
            if (walk(t, sub, a, p, sp, depth + 1) != 0)
                return -1;
        }
    }
    return 0;
}

/* Indexes the leaves once: product ids, and the products (architecture, name) they share. */
static int index_tree(struct tree *t)
{
    t->nslots = 16;
    while (t->nslots < 2 * t->n)
        t->nslots *= 2;
    t->ids = calloc(t->nslots, sizeof *t->ids);
    t->lslots = calloc(t->nslots, sizeof *t->lslots);
    t->labels = calloc(t->n ? t->n : 1, sizeof *t->labels);
    if (!t->ids || !t->lslots || !t->labels)
        return -1;
    size_t mask = t->nslots - 1;
    for (size_t i = 0; i < t->n; i++) {
        struct leaf *l = &t->leaves[i];
        size_t h = hash_str(l->id, NULL) & mask;
        while (t->ids[h] && strcmp(t->leaves[t->ids[h] - 1].id, l->id) != 0)
            h = (h + 1) & mask;
        if (!t->ids[h])
            t->ids[h] = i + 1; /* a product id twice: the first counts */
        for (h = hash_str(l->arch, l->product) & mask;; h = (h + 1) & mask) {
            size_t v = t->lslots[h];
            if (v == 0) {
                struct label *b = &t->labels[t->nl];
                b->arch = l->arch;
                b->product = l->product;
                snprintf(b->cpe, sizeof b->cpe, "%s", l->cpe);
                snprintf(b->text, sizeof b->text, "%s%s%s", l->arch ? l->arch : "",
                         l->arch ? " > " : "", l->product ? l->product : "(unnamed product)");
                b->platform = imx_csaf_platform(l->arch);
                b->fixed_head = -1;
                b->stamp = (size_t)-1;
                t->lslots[h] = ++t->nl;
                l->label = t->nl - 1;
                break;
            }
            struct label *b = &t->labels[v - 1];
            if (same(b->arch, l->arch) && same(b->product, l->product)) {
                l->label = v - 1;
                if (!b->cpe[0])
                    snprintf(b->cpe, sizeof b->cpe, "%s", l->cpe);
                break;
            }
        }
    }
    return 0;
}

static struct leaf *leaf_by_id(const struct tree *t, const char *id)
{
    if (!id || t->nslots == 0)
        return NULL;
    size_t mask = t->nslots - 1;
    for (size_t h = hash_str(id, NULL) & mask;; h = (h + 1) & mask) {
        size_t v = t->ids[h];
        if (v == 0)
            return NULL;
        if (strcmp(t->leaves[v - 1].id, id) == 0)
            return &t->leaves[v - 1];
    }
}

/* ---- the product mapping (ref_nvidia_product) ---- */

static bool row_branched(const json_t *row)
{
    const json_t *b = json_object_get(row, "branched");
    return json_is_true(b) || (json_is_string(b) && (strcmp(json_string_value(b), "true") == 0 ||
                                                     strcmp(json_string_value(b), "t") == 0));
}

/* s without NVIDIA's own name in front ("nvidia_dynamo" -> "dynamo", "NVIDIA Dynamo" -> "Dynamo"
 * with sep ' '), or s. NVIDIA spells one product both ways: "NVIDIA Dynamo" (5842, CPE
 * nvidia_dynamo) is "Dynamo" in its CVE records, TensorRT-LLM's CPE is tensorrtllm and
 * nvidia_tensorrtllm, and a new bulletin may pick the spelling no row has yet. */
static const char *sans_vendor(const char *s, char sep)
{
    return strncasecmp(s, "nvidia", 6) == 0 && s[6] == sep && s[7] ? s + 7 : s;
}

/* Does the row's match name this product? 6: its CPE product, 5: that product with or without
 * "nvidia_" in front, 4: a prefix of it, 3: a prefix of it with or without "nvidia_", 2: its
 * name, 1: its name with or without "NVIDIA " in front; 0: no. The exact spelling always wins
 * over the other one. */
static int row_matches(const json_t *row, const struct label *b)
{
    const char *m = str(row, "match");
    if (!m)
        return 0;
    if (strncmp(m, "cpe:", 4) == 0) {
        if (!b->cpe[0])
            return 0;
        return strcmp(m + 4, b->cpe) == 0                                       ? 6
               : strcmp(sans_vendor(m + 4, '_'), sans_vendor(b->cpe, '_')) == 0 ? 5
                                                                                : 0;
    }
    if (strncmp(m, "cpe-prefix:", 11) == 0) {
        if (!b->cpe[0] || !m[11])
            return 0;
        const char *p = sans_vendor(m + 11, '_'), *c = sans_vendor(b->cpe, '_');
        return strncmp(b->cpe, m + 11, strlen(m + 11)) == 0 ? 4
               : strncmp(c, p, strlen(p)) == 0              ? 3
                                                            : 0;
    }
    if (strncmp(m, "name:", 5) == 0 && b->product) {
        return strcasecmp(m + 5, b->product) == 0                                       ? 2
               : strcasecmp(sans_vendor(m + 5, ' '), sans_vendor(b->product, ' ')) == 0 ? 1
                                                                                        : 0;
    }
    return 0;
}

/* Finds the product's row: the best match on its own platform, else on "any". */
static void look_up(struct label *b, const json_t *map)
{
    if (b->looked_up)
        return;
    b->looked_up = true;
    const json_t *best = NULL, *elsewhere = NULL;
    int best_score = 0;
    size_t i;
    json_t *row;
    json_array_foreach(map, i, row)
    {
        int m = row_matches(row, b);
        const char *pf = str(row, "platform");
        if (!m || !pf)
            continue;
        int score = m * 2 + (strcmp(pf, b->platform) == 0);
        if (strcmp(pf, b->platform) != 0 && strcmp(pf, "any") != 0) {
            elsewhere = row;
            continue;
        }
        if (score > best_score) {
            best = row;
            best_score = score;
        }
    }
    if (best && str(best, "component")) {
        b->component = str(best, "component");
        b->branched = row_branched(best);
        const json_t *aliases = json_object_get(best, "aliases");
        b->aliases = json_array_size(aliases) > 0 ? aliases : NULL;
        b->commits = json_object_get(best, "commits");
    } else if (best) {
        snprintf(b->why, sizeof b->why, "not tracked: %s",
                 str(best, "notes") ? str(best, "notes") : "no component");
    } else if (elsewhere) {
        snprintf(b->why, sizeof b->why,
                 "imaxe tracks this product as %s on %s, not on %s (the architecture \"%s\")",
                 str(elsewhere, "component") ? str(elsewhere, "component") : "nothing",
                 str(elsewhere, "platform"), b->platform, b->arch ? b->arch : "");
    } else {
        snprintf(b->why, sizeof b->why,
                 "no product mapping for %s%s%s (ref_nvidia_product): a product imaxe does not "
                 "track",
                 b->cpe[0] ? "cpe:" : "name:", b->cpe[0] ? b->cpe : "",
                 b->cpe[0] ? "" : (b->product ? b->product : ""));
    }
}

/* ---- one bulletin ---- */

struct out {
    json_t *affected, *unmapped, *warnings; /* borrowed from the advisory being built */
};

static void unmapped(struct out *o, struct leaf *l, const struct label *b, const char *why)
{
    if (l->reported || json_array_size(o->unmapped) >= NOTES_MAX)
        return;
    l->reported = true;
    json_array_append_new(
        o->unmapped, json_pack("{s:s, s:s, s:s}", "product", b->text, "text", l->text, "why", why));
}

static void warn(struct out *o, const struct label *b, const char *text, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void warn(struct out *o, const struct label *b, const char *text, const char *fmt, ...)
{
    char w[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w, sizeof w, fmt, ap);
    va_end(ap);
    size_t i;
    json_t *e;
    json_array_foreach(o->warnings, i, e)
    {
        if (strcmp(str(e, "product"), b->text) == 0 && strcmp(str(e, "text"), text) == 0 &&
            strcmp(str(e, "warning"), w) == 0)
            return;
    }
    if (json_array_size(o->warnings) < NOTES_MAX)
        json_array_append_new(o->warnings, json_pack("{s:s, s:s, s:s}", "product", b->text, "text",
                                                     text, "warning", w));
}

/* A known_affected product id that no product_version branch of the tree names (a flat
 * full_product_names list or a relationship, which NVIDIA does not use): listed once, so that
 * nothing is left out unsaid. */
static void unknown_product(struct out *o, const char *id)
{
    if (!id || json_array_size(o->unmapped) >= NOTES_MAX)
        return;
    size_t i;
    json_t *e;
    json_array_foreach(o->unmapped, i, e)
    {
        if (strcmp(str(e, "product"), id) == 0 && strcmp(str(e, "text"), "") == 0)
            return;
    }
    json_array_append_new(o->unmapped,
                          json_pack("{s:s, s:s, s:s}", "product", id, "text", "", "why",
                                    "the product id names no product_version branch of the "
                                    "product tree (a flat full_product_names list or a "
                                    "relationship is not read)"));
}

/* ---- a product numbered two ways (ref_version_alias) ---- */

/* Triton's server has its own version (2.40.0) and ships as an NGC container release (23.11),
 * which is what the catalog records; a bulletin may use either. The map row gives the pairs
 * [[own version, release]]. A version is in the product's own numbering when its major is the
 * major of an own version and of no release (the two never share one: 0-2 against 18-26), so the
 * test is the data's, not a rule about Triton. */
enum alias_role {
    ALIAS_BELOW, /* an exclusive upper bound: the first release at or after it */
    ALIAS_UPTO,  /* an inclusive upper bound: the last release at or before it */
    ALIAS_FROM,  /* a lower bound: the first release at or after it */
    ALIAS_EXACT, /* a version (a fix): its own release, else the first after it */
};

static bool alias_pair(const json_t *pair, struct imx_ver *own, struct imx_ver *rel,
                       const char **rel_text)
{
    const char *o = json_string_value(json_array_get(pair, 0));
    const char *r = json_string_value(json_array_get(pair, 1));
    *rel_text = r;
    return o && r && imx_ver_parse(o, own) == 0 && imx_ver_parse(r, rel) == 0;
}

/* Is v written in the product's own numbering (and not as a release)? */
static bool in_own_numbering(const json_t *aliases, const char *v)
{
    struct imx_ver p, own, rel;
    const char *rt;
    if (!v[0] || imx_ver_parse(v, &p) != 0)
        return false;
    bool own_major = false;
    for (size_t i = 0; i < json_array_size(aliases) && i < ALIASES_MAX; i++) {
        if (!alias_pair(json_array_get(aliases, i), &own, &rel, &rt))
            continue;
        if (rel.key[0] == p.key[0])
            return false;
        own_major = own_major || own.key[0] == p.key[0];
    }
    return own_major;
}

/* The release that stands for own version v in its role (borrowed from aliases); NULL when the
 * pairs hold none (v past the last release known, or below the first for ALIAS_UPTO). */
static const char *alias_release(const json_t *aliases, const char *v, enum alias_role role)
{
    struct imx_ver want, own, rel, best = { 0 };
    const char *rt, *found = NULL, *exact = NULL;
    if (imx_ver_parse(v, &want) != 0)
        return NULL;
    for (size_t i = 0; i < json_array_size(aliases) && i < ALIASES_MAX; i++) {
        if (!alias_pair(json_array_get(aliases, i), &own, &rel, &rt))
            continue;
        int c = imx_ver_cmp(&own, &want);
        if (c == 0)
            exact = rt;
        bool take = role == ALIAS_UPTO ? c <= 0 && (!found || imx_ver_cmp(&rel, &best) > 0)
                                       : c >= 0 && (!found || imx_ver_cmp(&rel, &best) < 0);
        if (take) {
            found = rt;
            best = rel;
        }
    }
    return role == ALIAS_EXACT && exact ? exact : found;
}

/* The release paired with exactly own version v, or NULL. */
static const char *alias_exact(const json_t *aliases, const char *v)
{
    struct imx_ver want, own, rel;
    const char *rt;
    if (imx_ver_parse(v, &want) != 0)
        return NULL;
    for (size_t i = 0; i < json_array_size(aliases) && i < ALIASES_MAX; i++)
        if (alias_pair(json_array_get(aliases, i), &own, &rel, &rt) &&
            imx_ver_cmp(&own, &want) == 0)
            return rt;
    return NULL;
}

/* Rewrites one bound in place; false (with *note saying why) when no release stands for it.
 * named: the text named the other numbering ("JetPack 6.2.1"), so every bound is in it and
 * must be a version the pairs hold exactly: a JetPack release between two known ones has no
 * Jetson Linux release to stand for, and the next one's would move the bound. */
static bool alias_bound(const json_t *aliases, char *v, enum alias_role role, bool named,
                        char *note, size_t len)
{
    if (!v[0] || (!named && !in_own_numbering(aliases, v)))
        return true;
    const char *r = named ? alias_exact(aliases, v) : alias_release(aliases, v, role);
    if (!r) {
        snprintf(note, len,
                 named ? "JetPack %s is paired with no Jetson Linux release in ref_version_alias "
                         "(or only by an unconfirmed row), so its range is not guessed"
                       : "%s is in the product's own version numbering and no release in "
                         "ref_version_alias stands for it",
                 v);
        return false;
    }
    size_t used = strlen(note);
    if (used < len)
        snprintf(note + used, len - used, "%s%s%s is release %s", used ? ", " : "",
                 named ? "JetPack " : "", v, r);
    snprintf(v, IMX_VER_TEXT_MAX + 1, "%s", r);
    return true;
}

/* A parsed form in the product's own numbering, rewritten in its releases: "prior to 2.40"
 * (2.40.0 = 23.11) is "prior to 23.11", and its fix "2.40" is 23.11. */
static bool alias_form(const json_t *aliases, struct imx_csaf_version_form *f, char *note,
                       size_t len)
{
    note[0] = '\0';
    const bool named = f->jetpack;
    bool ok = true;
    switch (f->form) {
    case IMX_CSAF_BELOW:
        ok = alias_bound(aliases, f->lo, ALIAS_FROM, named, note, len) &&
             alias_bound(aliases, f->hi, ALIAS_BELOW, named, note, len);
        for (int i = 0; ok && i < f->nlist; i++)
            ok = alias_bound(aliases, f->list[i], ALIAS_BELOW, named, note, len);
        break;
    case IMX_CSAF_UPTO:
        ok = alias_bound(aliases, f->lo, ALIAS_FROM, named, note, len) &&
             alias_bound(aliases, f->hi, ALIAS_UPTO, named, note, len);
        break;
    case IMX_CSAF_SPAN:
        ok = alias_bound(aliases, f->lo, ALIAS_FROM, named, note, len) &&
             alias_bound(aliases, f->hi, ALIAS_UPTO, named, note, len);
        break;
    case IMX_CSAF_FROM:
        ok = alias_bound(aliases, f->hi, ALIAS_FROM, named, note, len);
        break;
    case IMX_CSAF_EXACT:
        ok = alias_bound(aliases, f->hi, ALIAS_EXACT, named, note, len);
        break;
    case IMX_CSAF_LIST: {
        int lowest = -1; /* hi is the lowest of the list: the same one, rewritten */
        for (int i = 0; i < f->nlist && lowest < 0; i++)
            lowest = strcmp(f->list[i], f->hi) == 0 ? i : -1;
        for (int i = 0; ok && i < f->nlist; i++)
            ok = alias_bound(aliases, f->list[i], ALIAS_EXACT, named, note, len);
        if (ok && lowest >= 0)
            snprintf(f->hi, sizeof f->hi, "%s", f->list[lowest]);
        break;
    }
    case IMX_CSAF_ALL:
    case IMX_CSAF_COMMIT: /* read through ref_commit_release instead */
        break;
    }
    return ok;
}

/* ---- a fix named by a code commit (ref_commit_release) ---- */

/* WebDataset, NVTabular, Transformers4Rec and BioNeMo bulletins name no version but a commit
 * ("All versions that do not include code commit 9e95f50"); an image publishes the release it
 * carries. The map row gives the component's commits [[full commit, first release containing it
 * or null, as_of, status]]; the commit form is rewritten in releases: "not include X" is below X's
 * first release, "includes X" is that release on. False (note saying why) when no release is known
 * to contain X, so the product is left out until the table says one does. */
static bool commit_resolve(const json_t *commits, const char *component,
                           struct imx_csaf_version_form *f, char *note, size_t len)
{
    const json_t *row = NULL;
    size_t n = strlen(f->commit);
    for (size_t i = 0; i < json_array_size(commits) && i < COMMITS_MAX; i++) {
        const json_t *r = json_array_get(commits, i);
        const char *c = json_string_value(json_array_get(r, 0));
        if (!c || strncasecmp(c, f->commit, n) != 0)
            continue;
        if (row) {
            snprintf(note, len, "commit %s names more than one commit of %s in ref_commit_release",
                     f->commit, component);
            return false;
        }
        row = r;
    }
    const char *rel = json_string_value(json_array_get(row, 1));
    const char *as_of = json_string_value(json_array_get(row, 2));
    struct imx_ver v;
    if (!row) {
        snprintf(note, len,
                 "the versions are named by commit %s, which ref_commit_release does not list "
                 "for %s: no release is known to contain it",
                 f->commit, component);
        return false;
    }
    if (!rel) {
        snprintf(note, len, "no release of %s contains commit %s as of %s (ref_commit_release)",
                 component, f->commit, as_of ? as_of : "the table's last reading");
        return false;
    }
    if (imx_ver_parse(rel, &v) != 0 || strlen(rel) > IMX_VER_TEXT_MAX)
        return false;
    if (f->commit_role == IMX_CSAF_THROUGH) {
        /* the versions after X up to the fix are named by no commit of this form */
        snprintf(note, len,
                 "the versions end at commit %s (first in release %s), not at a fix: the "
                 "releases after it that lack the fix are not named",
                 f->commit, rel);
        return false;
    }
    const char *status = json_string_value(json_array_get(row, 3));
    snprintf(note, len,
             "the fix is named by commit %s, read as release %s, the first release of %s that "
             "contains it (ref_commit_release%s%s)",
             f->commit, rel, component, status ? ", " : "", status ? status : "");
    f->form = f->commit_role == IMX_CSAF_WITHOUT ? IMX_CSAF_BELOW : IMX_CSAF_FROM;
    f->lo[0] = '\0';
    snprintf(f->hi, sizeof f->hi, "%s", rel);
    return true;
}

/* Parses a leaf's version name once (and reads it in the product's releases, when the map row
 * gives them). */
static bool leaf_form(struct leaf *l, const struct label *b)
{
    if (!l->parsed) {
        l->parsed = true;
        l->bad = imx_csaf_parse_form(l->text, b->product, &l->form) != 0;
        l->commit_note[0] = '\0';
        l->alias_note[0] = '\0';
        if (!l->bad && l->form.form == IMX_CSAF_COMMIT)
            l->bad = !commit_resolve(b->commits, b->component ? b->component : "this product",
                                     &l->form, l->commit_note, sizeof l->commit_note);
        else if (!l->bad && b->aliases)
            l->bad = !alias_form(b->aliases, &l->form, l->alias_note, sizeof l->alias_note);
        else if (!l->bad && l->form.jetpack) {
            /* JetPack's numbers read as this product's would be wrong (6.2.1 is not 36.4.4) */
            l->bad = true;
            snprintf(l->alias_note, sizeof l->alias_note,
                     "the versions are JetPack's and ref_version_alias pairs no JetPack release "
                     "with this product's releases, so they are not read as its own");
        }
    }
    return !l->bad;
}

/* The branch of a version: its major (R580, Jetson Linux 36). */
static int major_of(const char *v)
{
    struct imx_ver p;
    return imx_ver_parse(v, &p) == 0 ? (int)p.key[0] : -1;
}

/* The branch an architecture names: "Linux(R580)", "Linux(R595 vGPU 20)"; 0 when none. */
static int arch_branch(const char *arch)
{
    const char *r = arch ? strstr(arch, "(R") : NULL;
    if (!r || !isdigit((unsigned char)r[2]))
        return 0;
    int b = 0;
    for (const char *p = r + 2; isdigit((unsigned char)*p) && b < 10000; p++)
        b = b * 10 + (*p - '0');
    return b >= 100 && b <= 9999 ? b : 0;
}

/* The release line an architecture names in parentheses, "Linux(DOCA 2.9)" or "Linux(OFED
 * 23.10)", into line when hi lies on it (its first two parts are the line's): DOCA-Host and
 * MLNX_OFED ship parallel major.minor lines (2.5, 2.9, 3.0; 5.8, 23.10, 24.10), each with its own
 * fix, so "prior to 2.9.2-0.1.6" under DOCA 2.9 is the 2.9 line below its fix, and a 2.5.3
 * image (the 2.5 line's fix) is not in it. False when the architecture names no such line. */
static bool arch_line(const char *arch, const char *hi, char *line, size_t len)
{
    const char *open = arch ? strrchr(arch, '(') : NULL;
    struct imx_ver h, l;
    if (!open || imx_ver_parse(hi, &h) != 0)
        return false;
    char buf[64];
    size_t n = strcspn(open + 1, ")");
    if (n >= sizeof buf)
        return false;
    memcpy(buf, open + 1, n);
    buf[n] = '\0';
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        size_t d = strspn(w, "0123456789"), dot = d > 0 && w[d] == '.' ? d + 1 : 0;
        if (!dot || strspn(w + dot, "0123456789") == 0 || w[dot + strspn(w + dot, "0123456789")])
            continue; /* only "X.Y" */
        if (imx_ver_parse(w, &l) == 0 && l.key[0] == h.key[0] && l.key[1] == h.key[1] &&
            strlen(w) < len) {
            snprintf(line, len, "%s", w);
            return true;
        }
    }
    return false;
}

/* A version as a range bound, as written: a release candidate ("1.3.0rc16") orders before its
 * release in imaxe's version keys (domain/version.h, IMX_VER_PRE_RC), so it bounds the range
 * itself. (It was cut to its release while the keys ignored the suffix.) */
static const char *bound(const char *v, char *buf, size_t len, bool *rc)
{
    (void)buf;
    (void)len;
    (void)rc;
    return v;
}

/* The constraint of an affected leaf as the bulletin writes it (the first of a LIST is its
 * caller's business: one range per version). floor gets the lower bound text to keep when the
 * range is cut at a fix. When the text names its last affected version inclusively ("up to and
 * including X", "X to Y", the version X), closed gets X and lower the range's lower bound term
 * (">=580", ">=2.18.1", "" when none), for add_range to end the range after X's builds;
 * closed is "" otherwise. */
static bool range_of(struct out *o, const struct leaf *l, const struct label *b, const char *ver,
                     char *range, size_t len, int *branch_out, char *floor, size_t flen,
                     char *lower, char *closed)
{
    const struct imx_csaf_version_form *f = &l->form;
    char hb[IMX_VER_TEXT_MAX + 1], lb[IMX_VER_TEXT_MAX + 1];
    bool rc = false;
    const char *hi = bound(ver ? ver : f->hi, hb, sizeof hb, &rc);
    const char *lo = bound(f->lo, lb, sizeof lb, &rc);
    int br = 0;
    char line[IMX_VER_TEXT_MAX + 1];
    lower[0] = '\0';
    closed[0] = '\0';
    if (f->form == IMX_CSAF_BELOW && f->nlist >= 2 && ver && strcmp(ver, f->hi) != 0) {
        /* "prior to 0.13.1 and 0.12.3": 0.13.1 fixes the 0.13 line */
        struct imx_ver v;
        if (imx_ver_parse(hi, &v) != 0)
            return false;
        snprintf(line, sizeof line, "%d.%d", (int)v.key[0], (int)v.key[1]);
        lo = line;
    }
    bool bounded = (f->form == IMX_CSAF_BELOW || f->form == IMX_CSAF_UPTO) && !lo[0];
    if (b->branched && bounded) {
        br = major_of(hi);
        int named = arch_branch(b->arch);
        if (named && br > 0 && named != br)
            warn(o, b, l->text,
                 "filed under branch R%d but names a version of R%d: read as R%d, the version's",
                 named, br, br);
    }
    *branch_out = br;
    /* the lower bound of a branched range: its release line when the architecture names one
     * ("Linux(DOCA 2.9)": >=2.9), else its branch (>=580) */
    if (br > 0 && !arch_line(b->arch, hi, floor, flen))
        snprintf(floor, flen, "%d", br);
    else if (br <= 0)
        floor[0] = '\0';
    if (f->qualified)
        warn(o, b, l->text,
             "the parenthesised condition cannot be checked from an image's components: every "
             "version in the range is marked");
    switch (f->form) {
    case IMX_CSAF_BELOW:
        if (lo[0])
            snprintf(range, len, ">=%s, <%s", lo, hi);
        else if (br > 0)
            snprintf(range, len, ">=%s, <%s", floor, hi);
        else
            snprintf(range, len, "<%s", hi);
        break;
    case IMX_CSAF_UPTO:
        if (br > 0) {
            snprintf(range, len, ">=%s, <=%s", floor, hi);
            snprintf(lower, RANGE_MAX, ">=%s", floor);
        } else {
            snprintf(range, len, "<=%s", hi);
        }
        snprintf(closed, IMX_VER_TEXT_MAX + 1, "%s", hi);
        break;
    case IMX_CSAF_SPAN:
        snprintf(range, len, ">=%s, <=%s", lo, hi);
        snprintf(lower, RANGE_MAX, ">=%s", lo);
        snprintf(closed, IMX_VER_TEXT_MAX + 1, "%s", hi);
        break;
    case IMX_CSAF_EXACT:
    case IMX_CSAF_LIST:
        /* A version of one or two parts names a release line ("38.2": Jetson Linux 38.2 and
         * its 38.2.x point releases, fixed in 38.4; "12.8": CUDA 12.8 and its updates), the
         * way "prior to 36.4" counts 36.4 as a release; a longer one is that version and its
         * builds (nvjpeg2000 0.8.0 and 0.8.0.38): add_range ends both after X's last number. */
        snprintf(range, len, "=%s", hi);
        snprintf(lower, RANGE_MAX, ">=%s", hi);
        snprintf(closed, IMX_VER_TEXT_MAX + 1, "%s", hi);
        break;
    case IMX_CSAF_FROM:
        snprintf(range, len, ">=%s", hi);
        break;
    case IMX_CSAF_ALL:
        snprintf(range, len, ">=0");
        break;
    case IMX_CSAF_COMMIT: /* resolved to a release by leaf_form, or left out */
        return false;
    }
    struct imx_constraint c;
    return imx_constraint_parse(range, &c, NULL, 0) == 0 && !imx_constraint_is_empty(&c);
}

/* Is v below the range's lower bound? */
static bool below_range(const struct imx_constraint *c, const struct imx_ver *v)
{
    if (!c->lo.bounded)
        return false;
    for (int i = 0; i < IMX_VER_PARTS; i++) {
        if (v->key[i] != c->lo.key[i])
            return v->key[i] < c->lo.key[i];
    }
    return !c->lo.inclusive;
}

/* The fix of an affected range: the lowest fixed version of the same product (and branch) in
 * this vulnerability outside the range; else the lowest inside it, with *inside set. *elsewhere
 * gets a fixed version of the product that names another branch (NULL when none). */
static const char *fix_of(struct tree *t, const struct label *b, const char *range, int branch,
                          bool *inside, const char **elsewhere)
{
    *elsewhere = NULL;
    struct imx_constraint c;
    if (imx_constraint_parse(range, &c, NULL, 0) != 0)
        return NULL;
    const char *best_out = NULL, *best_in = NULL;
    struct imx_ver vo = { 0 }, vi = { 0 };
    for (long k = b->fixed_head; k >= 0; k = t->leaves[k].next_fixed) {
        struct leaf *f = &t->leaves[k];
        if (!f->parsed || f->bad ||
            (f->form.form != IMX_CSAF_EXACT && f->form.form != IMX_CSAF_FROM &&
             f->form.form != IMX_CSAF_LIST && !f->form.line))
            continue;
        int nv = f->form.form == IMX_CSAF_LIST ? f->form.nlist : 1;
        for (int i = 0; i < nv; i++) {
            /* a fixed release line ("v0.7.x") is fixed from its first version */
            const char *fv = f->form.form == IMX_CSAF_LIST ? f->form.list[i]
                             : f->form.line                ? f->form.lo
                                                           : f->form.hi;
            struct imx_ver v;
            if (imx_ver_parse(fv, &v) != 0)
                continue;
            if (branch > 0 && (int)v.key[0] != branch) {
                *elsewhere = fv;
                continue;
            }
            if (!imx_constraint_matches(&c, &v)) {
                /* outside the range: a fix above it (one below it fixes nothing here) */
                if (below_range(&c, &v))
                    continue;
                if (!best_out || imx_ver_cmp(&v, &vo) < 0) {
                    best_out = fv;
                    vo = v;
                }
            } else if (!best_in || imx_ver_cmp(&v, &vi) < 0) {
                best_in = fv;
                vi = v;
            }
        }
    }
    *inside = !best_out && best_in;
    return best_out ? best_out : best_in;
}

static bool has_range(const json_t *affected, const char *component, const char *range,
                      const char *fixed)
{
    size_t i;
    json_t *e;
    json_array_foreach(affected, i, e)
    {
        const char *fx = str(e, "fixed");
        if (strcmp(str(e, "component"), component) == 0 && strcmp(str(e, "range"), range) == 0 &&
            same(fx, fixed))
            return true;
    }
    return false;
}

/* The vGPU software release a vGPU version name carries in its parenthesis: "580.105.08(All
 * versions prior to and including vGPU software 19.3)" and "550.54.15(... vGPU17.1)" -> 19.3,
 * 17.1. False when it names none. */
static bool vgpu_release(const char *text, char *rel, size_t len)
{
    const char *p = text ? strchr(text, '(') : NULL;
    if (!p || !(p = strcasestr(p, "vgpu")))
        return false;
    p += 4;
    while (*p == ' ')
        p++;
    if (strncasecmp(p, "software", 8) == 0)
        for (p += 8; *p == ' ';)
            p++;
    size_t n = strspn(p, "0123456789.");
    while (n > 0 && p[n - 1] == '.')
        n--;
    struct imx_ver v;
    if (n == 0 || n >= len)
        return false;
    memcpy(rel, p, n);
    rel[n] = '\0';
    return imx_ver_parse(rel, &v) == 0;
}

/* The lowest vGPU software release named with the fixed version fx: a bulletin can list one
 * driver as the fix of two releases ("570.211.01(vGPU software 18.6)" and "570.211.01(vGPU
 * software 19.4)", 5747), and the lower is the next of the affected line. */
static bool fix_release(const struct tree *t, const struct label *b, const char *fx, char *rel,
                        size_t len)
{
    struct imx_ver vf, best = { 0 }, v, r;
    bool found = false;
    char cand[16];
    if (imx_ver_parse(fx, &vf) != 0)
        return false;
    for (long k = b->fixed_head; k >= 0; k = t->leaves[k].next_fixed) {
        const struct leaf *f = &t->leaves[k];
        if (!f->parsed || f->bad || f->form.form != IMX_CSAF_EXACT ||
            imx_ver_parse(f->form.hi, &v) != 0 || imx_ver_cmp(&v, &vf) != 0 ||
            !vgpu_release(f->text, cand, sizeof cand) || imx_ver_parse(cand, &r) != 0)
            continue;
        if (!found || imx_ver_cmp(&r, &best) < 0) {
            best = r;
            found = snprintf(rel, len, "%s", cand) < (int)len;
        }
    }
    return found;
}

/* Is b on a's own line past the next number there ("36.4.4" and "36.4.6": 36.4.5 between; "38.2"
 * and "38.4"; not "26.03" and "26.04", nor "1.16.2" and "1.17.0")? a a pre-release
 * ("1.3.0rc14") is left alone. */
static bool skips_on_line(const char *a, const char *b)
{
    struct imx_ver va, vb;
    if (imx_ver_parse(a, &va) != 0 || imx_ver_parse(b, &vb) != 0 || imx_ver_suffix(&va)[0])
        return false;
    int last = va.nparts - 1;
    for (int i = 0; i < last; i++)
        if (vb.key[i] != va.key[i])
            return false;
    return (int64_t)vb.key[last] > (int64_t)va.key[last] + 1;
}

/* Does a release lie between "X and its builds" (x: a range cut at its builds bound) and the fix
 * fx above that bound? Unlike "prior to X", whose gap holds X itself, which the bulletin names,
 * these words leave a gap only where the product skipped a release, and most fixes are simply
 * the next release, often on a new line (1.16.2 fixed in 1.17.0, 12.5.1 in 12.6, 10.16.1 in
 * 11.0): a warning on each would name versions that mostly never were and bury the warnings
 * that ask for a look. So a gap is read from the bulletin's own numbering, the fix on X's own
 * line past the next number there (skips_on_line: 36.4.4 fixed in 36.4.6 leaves 36.4.5, 38.2
 * fixed in 38.4 the 38.3 line, 26.03 fixed in 26.04 nothing), where the numbers are releases:
 * - a vGPU version name carries its vGPU software release ("470.82(... up to and including vGPU
 *   13.1)", fixed "470.103.02(vGPU 13.2)"): the driver numbers jump between consecutive
 *   releases, so the releases decide (the lowest named with the fix: fix_release). 13.1 fixed
 *   in 13.2 leaves none (every vGPU line of the 2022-2026 feed), 13.1 fixed in 13.3 leaves
 *   13.2; a fix named with another line's release (5747's 570.211.01 "vGPU software 19.4" for
 *   the 18.5 line) or with none says nothing. The releases go to rel_x and rel_fx.
 * - otherwise X and the fix themselves. A driver's build number ("up to and including
 *   535.274.02", fixed 535.288.01) has three parts and the fix another second one: none. */
static bool builds_gap(const struct tree *t, const struct label *b, const char *x, const char *fx,
                       const char *xtext, char *rel_x, char *rel_fx, size_t rlen)
{
    rel_x[0] = rel_fx[0] = '\0';
    if (vgpu_release(xtext, rel_x, rlen))
        return fix_release(t, b, fx, rel_fx, rlen) && skips_on_line(rel_x, rel_fx);
    return skips_on_line(x, fx);
}

/* One affected version (of a leaf, or one of its LIST) -> a range, with its fix. */
static bool add_range(struct tree *t, struct out *o, struct leaf *l, struct label *b,
                      const char *ver)
{
    char range[RANGE_MAX];
    int branch = 0;
    char floor[IMX_VER_TEXT_MAX + 1] = "";
    char lower[RANGE_MAX], closed[IMX_VER_TEXT_MAX + 1];
    if (!range_of(o, l, b, ver, range, sizeof range, &branch, floor, sizeof floor, lower, closed)) {
        unmapped(o, l, b, "its versions make no range");
        return false;
    }
    bool inside = false;
    const char *elsewhere = NULL;
    char upper[IMX_VER_TEXT_MAX + 8];
    const char *fx = fix_of(t, b, range, branch, &inside, &elsewhere);
    const struct imx_csaf_version_form *f = &l->form;
    const char *hi = ver ? ver : f->hi;
    bool line = f->form == IMX_CSAF_EXACT || f->form == IMX_CSAF_LIST;
    bool builds_cut =
        !inside && closed[0] && imx_csaf_builds_bound(closed, fx, upper, sizeof upper) == 0;
    if (builds_cut) {
        /* "=0.8.0", "<=470.82": up to X's last build, or to the fix above X when it comes first
         * ("36.4" fixed in 36.4.3 ends at 36.4.3). No warning says so: the range is the versions
         * the bulletin names, read as its products are numbered (a build of X is X), so there is
         * nothing for an admin to check or undo, and a note on most products would bury the
         * warnings that do ask for a look (a fix inside its range, a condition left unchecked,
         * a release skipped between X and the fix: builds_gap).
         * Where X has no number to bump, the bulletin's own inclusive bound stays. */
        int n = snprintf(range, sizeof range, "%s%s<%s", lower, lower[0] ? ", " : "", upper);
        struct imx_constraint c;
        if (n < 0 || (size_t)n >= sizeof range || imx_constraint_parse(range, &c, NULL, 0) != 0 ||
            imx_constraint_is_empty(&c)) {
            unmapped(o, l, b, "its versions make no range");
            return false;
        }
    }
    if (fx && inside && line) {
        /* a version fixed in itself ("36.4" fixed in 36.4.0) leaves nothing affected */
        snprintf(range, sizeof range, ">=%s, <%s", hi, fx);
        struct imx_constraint c;
        if (imx_constraint_parse(range, &c, NULL, 0) != 0 || imx_constraint_is_empty(&c)) {
            unmapped(o, l, b, "its fixed version lies inside its affected range");
            return false;
        }
    } else if (fx && inside) {
        /* NVIDIA means the versions before the fix ("0.0 to 4.8.2" fixed in "4.8.2") */
        char hb[IMX_VER_TEXT_MAX + 1];
        bool rc = false;
        const char *cut = bound(fx, hb, sizeof hb, &rc);
        if (f->form == IMX_CSAF_SPAN || (f->form == IMX_CSAF_BELOW && f->lo[0]))
            snprintf(range, sizeof range, ">=%s, <%s", f->lo, cut);
        else if (branch > 0)
            snprintf(range, sizeof range, ">=%s, <%s", floor, cut);
        else
            snprintf(range, sizeof range, "<%s", cut);
        struct imx_constraint c;
        if (imx_constraint_parse(range, &c, NULL, 0) != 0 || imx_constraint_is_empty(&c)) {
            unmapped(o, l, b, "its fixed version lies inside its affected range");
            return false;
        }
        warn(o, b, l->text,
             "the fixed version %s lies inside the affected versions: read as every version "
             "before it (%s)",
             fx, range);
    } else if (fx && f->form == IMX_CSAF_BELOW) {
        /* "prior to 36.4", fixed in 36.4.3: the words leave 36.4 to 36.4.2 out of both */
        struct imx_ver vh, vf;
        if (imx_ver_parse(hi, &vh) == 0 && imx_ver_parse(fx, &vf) == 0 && imx_ver_cmp(&vf, &vh) > 0)
            warn(o, b, l->text,
                 "the affected versions end before %s but the fix is %s: the versions between "
                 "are named neither affected nor fixed, and are not marked",
                 hi, fx);
    } else if (fx && builds_cut && strcmp(upper, fx) != 0) {
        /* "up to and including 36.4.4", fixed in 36.4.6: the words leave 36.4.5 out of both, as
         * "prior to" does (builds_gap says when there is room for a release between) */
        char rx[16], rf[16];
        if (builds_gap(t, b, closed, fx, l->text, rx, rf, sizeof rx))
            warn(o, b, l->text,
                 "the affected versions end with %s and its builds%s%s%s but the fix is %s%s%s%s: "
                 "the versions between are named neither affected nor fixed, and are not marked",
                 closed, rx[0] ? " (vGPU " : "", rx, rx[0] ? ")" : "", fx, rf[0] ? " (vGPU " : "",
                 rf, rf[0] ? ")" : "");
    } else if (!fx && elsewhere) {
        /* "535.261.03 (... vGPU 16.11)" fixed in "575.274.02(vGPU 16.12)" (bulletin 5703) */
        warn(o, b, l->text,
             "the fixed version %s is of another branch than the affected versions (%s): no fix "
             "is named",
             elsewhere, range);
    }
    /* the duplicate check is bounded by the advisory's limit of ranges */
    if (json_array_size(o->affected) >= AFFECTED_MAX)
        return false;
    if (!has_range(o->affected, b->component, range, fx)) {
        json_t *e = json_pack("{s:s, s:s}", "component", b->component, "range", range);
        if (fx)
            json_object_set_new(e, "fixed", json_string(fx));
        json_array_append_new(o->affected, e);
    }
    return true;
}

/* Does every version of "prior to A and B" name a fix of this vulnerability (each release line
 * before its own fix: "prior to 0.13.1 and 0.12.3")? When one does not, the list names an
 * affected release besides the line: "Main branch prior to 0.5.0 release and 0.4.1", fixed in
 * 0.5.0 alone (bulletin 5746), is every version before 0.5.0. */
static bool list_names_fixes(const struct tree *t, const struct label *b, const struct leaf *l)
{
    for (int i = 0; i < l->form.nlist; i++) {
        struct imx_ver want;
        bool found = false;
        if (imx_ver_parse(l->form.list[i], &want) != 0)
            return false;
        for (long k = b->fixed_head; k >= 0 && !found; k = t->leaves[k].next_fixed) {
            const struct leaf *f = &t->leaves[k];
            if (!f->parsed || f->bad)
                continue;
            int nv = f->form.form == IMX_CSAF_LIST ? f->form.nlist : 1;
            for (int j = 0; j < nv && !found; j++) {
                struct imx_ver v;
                const char *fv = f->form.form == IMX_CSAF_LIST ? f->form.list[j] : f->form.hi;
                found = imx_ver_parse(fv, &v) == 0 && imx_ver_cmp(&v, &want) == 0;
            }
        }
        if (!found)
            return false;
    }
    return true;
}

/* One vulnerability: its fixed products chained per product, then each affected one mapped.
 * True when it gave a range. */
static bool read_vulnerability(struct tree *t, struct out *o, const json_t *map,
                               const json_t *status, size_t vi)
{
    static const char *const fixed_lists[] = { "fixed", "first_fixed" };
    for (size_t s = 0; s < 2; s++) {
        size_t k;
        json_t *pid;
        json_array_foreach(json_object_get(status, fixed_lists[s]), k, pid)
        {
            if (imx_budget_spent())
                return false;
            struct leaf *f = leaf_by_id(t, json_string_value(pid));
            if (!f)
                continue;
            struct label *b = &t->labels[f->label];
            if (b->stamp != vi) {
                b->stamp = vi;
                b->fixed_head = -1;
            }
            if (f->fixed_stamp == vi)
                continue; /* listed twice */
            f->fixed_stamp = vi;
            long idx = f - t->leaves;
            look_up(b, map); /* a fix may be in the product's own numbering */
            leaf_form(f, b);
            f->next_fixed = b->fixed_head;
            b->fixed_head = idx;
        }
    }
    bool any = false;
    size_t k;
    json_t *pid;
    json_array_foreach(json_object_get(status, "known_affected"), k, pid)
    {
        if (imx_budget_spent())
            return any;
        struct leaf *l = leaf_by_id(t, json_string_value(pid));
        if (!l) {
            unknown_product(o, json_string_value(pid));
            continue;
        }
        struct label *b = &t->labels[l->label];
        if (b->stamp != vi) {
            b->stamp = vi;
            b->fixed_head = -1;
        }
        look_up(b, map);
        if (!b->component) {
            unmapped(o, l, b, b->why);
            continue;
        }
        if (!leaf_form(l, b)) {
            unmapped(o, l, b,
                     l->alias_note[0] ? l->alias_note
                     : l->commit_note[0]
                         ? l->commit_note
                         : "the version text is not one imaxe understands (\"prior to X\", \"up "
                           "to and including X\", \"X to Y\", a version X, ...), so it was not "
                           "guessed");
            continue;
        }
        if (l->alias_note[0])
            warn(o, b, l->text, "read in the product's releases (ref_version_alias): %s",
                 l->alias_note);
        if (l->commit_note[0])
            warn(o, b, l->text, "%s", l->commit_note);
        if (l->form.form == IMX_CSAF_BELOW && l->form.nlist >= 2 && !list_names_fixes(t, b, l)) {
            /* below the highest of them, read from a copy: the leaf may serve another CVE */
            struct leaf whole = *l;
            struct imx_ver hi, v;
            int top = 0;
            for (int i = 1; i < l->form.nlist; i++)
                if (imx_ver_parse(l->form.list[i], &v) == 0 &&
                    imx_ver_parse(l->form.list[top], &hi) == 0 && imx_ver_cmp(&v, &hi) > 0)
                    top = i;
            memcpy(whole.form.hi, l->form.list[top], sizeof whole.form.hi);
            whole.form.nlist = 0;
            any = add_range(t, o, &whole, b, NULL) || any;
            l->reported = l->reported || whole.reported;
        } else if (l->form.form == IMX_CSAF_LIST || l->form.nlist >= 2) {
            for (int i = 0; i < l->form.nlist; i++)
                any = add_range(t, o, l, b, l->form.list[i]) || any;
        } else {
            any = add_range(t, o, l, b, NULL) || any;
        }
    }
    return any;
}

/* "HIGH" -> "high", "MODERATE" -> "medium"; NULL when not a severity. */
static const char *severity_of(const char *s)
{
    static const struct {
        const char *csaf, *ours;
    } map[] = {
        { "low", "low" },   { "moderate", "medium" },   { "medium", "medium" },
        { "high", "high" }, { "critical", "critical" }, { "important", "high" },
    };
    for (size_t i = 0; s && i < sizeof map / sizeof map[0]; i++)
        if (strcasecmp(s, map[i].csaf) == 0)
            return map[i].ours;
    return NULL;
}

static const char *severity_of_score(double s)
{
    return s >= 9.0 ? "critical" : s >= 7.0 ? "high" : s >= 4.0 ? "medium" : "low";
}

static void max_scores(const json_t *vuln, double *v3, double *v4)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(vuln, "scores"), i, s)
    {
        json_t *b3 = json_object_get(json_object_get(s, "cvss_v3"), "baseScore");
        json_t *b4 = json_object_get(json_object_get(s, "cvss_v4"), "baseScore");
        if (json_is_number(b3) && json_number_value(b3) > *v3)
            *v3 = json_number_value(b3);
        if (json_is_number(b4) && json_number_value(b4) > *v4)
            *v4 = json_number_value(b4);
    }
}

static bool is_cve(const char *s)
{
    if (!s || strncmp(s, "CVE-", 4) != 0 || strlen(s) > 20)
        return false;
    for (const char *p = s + 4; *p; p++)
        if (!isdigit((unsigned char)*p) && *p != '-')
            return false;
    return true;
}

/* Appends a CVE id once (a bulletin lists at most a few hundred). */
static void add_cve(json_t *cves, const char *cve)
{
    if (!is_cve(cve) || json_array_size(cves) >= 200)
        return;
    size_t k;
    json_t *c;
    json_array_foreach(cves, k, c)
    {
        if (strcmp(json_string_value(c), cve) == 0)
            return;
    }
    json_array_append_new(cves, json_string(cve));
}

/* The document's own address: a "self" reference, else NVIDIA's published file. */
static void document_url(const json_t *d, const char *id, const char *date, bool nvidia,
                         json_t *out)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(d, "references"), i, r)
    {
        const char *cat = str(r, "category"), *url = str(r, "url");
        if (cat && url && strcmp(cat, "self") == 0 && strncmp(url, "https://", 8) == 0) {
            json_object_set_new(out, "url", json_string(url));
            return;
        }
    }
    if (nvidia && id && date && strlen(date) >= 4) {
        char url[300];
        snprintf(url, sizeof url,
                 "https://github.com/NVIDIA/product-security/blob/main/%.4s/%s/%s.json", date, id,
                 id);
        json_object_set_new(out, "url", json_string(url));
    }
}

json_t *imx_csaf_to_advisory(const json_t *doc, const json_t *map, json_t *errors,
                             struct imx_csaf_meta *meta)
{
    size_t before = json_array_size(errors);
    const json_t *d = json_object_get(doc, "document");
    const json_t *tracking = json_object_get(d, "tracking");
    const char *tid = str(tracking, "id"), *title = str(d, "title");
    const char *date = str(tracking, "initial_release_date");
    const char *publisher = str(json_object_get(d, "publisher"), "name");
    bool nvidia = publisher && strncasecmp(publisher, "NVIDIA", 6) == 0;
    if (meta)
        *meta = (struct imx_csaf_meta){ tid, str(tracking, "version"), -1.0 };
    if (!json_is_string(json_object_get(d, "csaf_version")) ||
        strcmp(str(d, "csaf_version"), "2.0") != 0)
        add_error(errors, "/document/csaf_version", "must be \"2.0\"");

    json_t *out = json_object();
    if (!tid || !*tid) {
        add_error(errors, "/document/tracking/id", "is required");
    } else {
        char id[128];
        snprintf(id, sizeof id, "%s%s", nvidia ? "NVIDIA-" : "", tid);
        json_object_set_new(out, "id", json_string(id));
    }
    if (!title)
        add_error(errors, "/document/title", "is required");
    else
        json_object_set_new(out, "title", json_string(title));
    if (!date || strlen(date) < 10) {
        add_error(errors, "/document/tracking/initial_release_date", "is required (RFC 3339)");
    } else {
        char day[11];
        memcpy(day, date, 10);
        day[10] = '\0';
        json_object_set_new(out, "published", json_string(day));
    }
    document_url(d, tid, date, nvidia, out);

    struct tree t = { 0 };
    const json_t *tree = json_object_get(doc, "product_tree");
    if (walk(&t, json_object_get(tree, "branches"), NULL, NULL, "/product_tree/branches", 0) != 0 ||
        index_tree(&t) != 0) {
        if (t.spent)
            add_error(errors, "/product_tree", "%s", IMX_BUDGET_SPENT_TEXT);
        else
            add_error(errors, "/product_tree",
                      t.too_big ? "is nested deeper than %d or has more than %d products"
                                : "could not be read (out of memory; %d, %d)",
                      TREE_DEPTH, LEAVES_MAX);
    }

    struct out o = { json_array(), json_array(), json_array() };
    json_t *cves = json_array(), *all_cves = json_array();
    double v3 = -1.0, v4 = -1.0, all3 = -1.0, all4 = -1.0;
    size_t i;
    json_t *vuln;
    if (json_array_size(errors) == before) {
        json_array_foreach(json_object_get(doc, "vulnerabilities"), i, vuln)
        {
            bool tracked =
                read_vulnerability(&t, &o, map, json_object_get(vuln, "product_status"), i);
            const char *cve = str(vuln, "cve");
            add_cve(all_cves, cve);
            max_scores(vuln, &all3, &all4);
            if (!tracked)
                continue;
            add_cve(cves, cve);
            max_scores(vuln, &v3, &v4);
        }
        if (imx_budget_spent())
            add_error(errors, "/vulnerabilities", "%s", IMX_BUDGET_SPENT_TEXT);
    }
    free(t.leaves);
    free(t.labels);
    free(t.ids);
    free(t.lslots);
    /* A bulletin about nothing imaxe tracks keeps its own CVEs and scores. */
    if (json_array_size(o.affected) == 0) {
        json_decref(cves);
        cves = all_cves;
        v3 = all3;
        v4 = all4;
    } else {
        json_decref(all_cves);
    }

    const char *sev = severity_of(str(json_object_get(d, "aggregate_severity"), "text"));
    if (!sev && (v3 >= 0 || v4 >= 0))
        sev = severity_of_score(v3 >= 0 ? v3 : v4);
    if (!sev)
        add_error(errors, "/document/aggregate_severity/text",
                  "is required (LOW, MODERATE, HIGH or CRITICAL) when no CVSS score is given");
    else
        json_object_set_new(out, "severity", json_string(sev));
    if (v3 >= 0 || v4 >= 0)
        json_object_set_new(out, "cvss", json_real(v3 >= 0 ? v3 : v4));
    if (meta)
        meta->cvss_v4 = v4;
    json_object_set_new(out, "cves", cves);
    json_object_set_new(out, "affected", o.affected);
    json_object_set_new(out, "unmapped", o.unmapped);
    json_object_set_new(out, "warnings", o.warnings);
    if (json_array_size(errors) > before) {
        json_decref(out);
        return NULL;
    }
    return out;
}
