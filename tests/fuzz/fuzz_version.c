/* Fuzz target for server/domain/version.c: runs both parsers on any input and checks their
 * invariants. Built with -DIMX_LIBFUZZER for libFuzzer, otherwise a self-contained test. */
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "domain/version.h"

/* Longest input looked at; both parsers reject anything over 256 bytes anyway. */
#define FUZZ_INPUT_MAX 1024

/* An independent model of SQL imx_version_key(): the same POSIX regular expression as the
 * migration, then its checks in its order. Returns 0 with key set, or -1 (SQL NULL). */
static int sql_model_key(const char *v, int32_t key[IMX_VER_PARTS])
{
    static regex_t num_re;
    static bool compiled;
    if (!compiled) {
        if (regcomp(&num_re, "^[vV]?([0-9]{1,9}([.-][0-9]{1,9})*)", REG_EXTENDED) != 0) {
            abort();
        }
        compiled = true;
    }
    regmatch_t m[3];
    if (regexec(&num_re, v, 3, m, 0) != 0) {
        return -1;
    }
    const char *num = v + m[1].rm_so;
    const char *rest = v + m[0].rm_eo;
    int parts = 0;
    int32_t part = 0;
    memset(key, 0, sizeof(int32_t) * IMX_VER_PARTS);
    for (const char *p = num; p <= v + m[1].rm_eo; p++) {
        if (p == v + m[1].rm_eo || *p == '.' || *p == '-') {
            if (parts < IMX_VER_PARTS) {
                key[parts] = part;
            }
            parts++;
            part = 0;
        } else {
            part = part * 10 + (*p - '0');
        }
    }
    if (strlen(v) > IMX_VER_TEXT_MAX || parts > IMX_VER_PARTS ||
        (rest[0] >= '0' && rest[0] <= '9')) {
        return -1;
    }
    for (const char *p = rest; *p != '\0'; p++) {
        if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.+_~-", *p) ==
            NULL) {
            return -1;
        }
    }
    /* A pre-release suffix: marker and number after the parts, less trailing zeros down to
     * two, when two parts are free (the migration's second expression). */
    static regex_t pre_re;
    static bool pre_compiled;
    if (!pre_compiled) {
        if (regcomp(
                &pre_re,
                "^[-._~]?((dev|alpha|beta|pre|rc)([-._]?([0-9]{1,9}))?|(a|b)[-._]?([0-9]{1,9}))$",
                REG_EXTENDED | REG_ICASE) != 0) {
            abort();
        }
        pre_compiled = true;
    }
    regmatch_t pm[7];
    if (rest[0] != '\0' && regexec(&pre_re, rest, 7, pm, 0) == 0) {
        int k = parts;
        while (k > 2 && key[k - 1] == 0) {
            k--;
        }
        if (k <= IMX_VER_PARTS - 2) {
            int w = pm[2].rm_so >= 0 ? 2 : 5;
            char word[8] = { 0 };
            for (int i = 0; i < pm[w].rm_eo - pm[w].rm_so && i < 7; i++) {
                char ch = rest[pm[w].rm_so + i];
                word[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
            }
            int32_t marker = strcmp(word, "dev") == 0                               ? -4
                             : strcmp(word, "alpha") == 0 || strcmp(word, "a") == 0 ? -3
                             : strcmp(word, "beta") == 0 || strcmp(word, "b") == 0  ? -2
                                                                                    : -1;
            int d = pm[2].rm_so >= 0 ? 4 : 6;
            int32_t n = 0;
            for (regoff_t i = pm[d].rm_so; pm[d].rm_so >= 0 && i < pm[d].rm_eo; i++) {
                n = n * 10 + (rest[i] - '0');
            }
            key[k] = marker;
            key[k + 1] = n;
        }
    }
    return 0;
}

/* A version with a given key, so bound keys can be probed with matches(): keys, not texts,
 * since the probes around a pre-release bound ({1,3,-1,14,0,1}) are no version's key; is_empty
 * counts in that superset of keys (every part after the first from IMX_VER_PRE_DEV up). */
static void ver_from_key(const int32_t key[IMX_VER_PARTS], struct imx_ver *v)
{
    memset(v, 0, sizeof(*v));
    memcpy(v->key, key, sizeof(v->key));
    v->nparts = IMX_VER_PARTS;
}

static bool same_interval(const struct imx_constraint *a, const struct imx_constraint *b)
{
    return memcmp(&a->lo, &b->lo, sizeof(a->lo)) == 0 && memcmp(&a->hi, &b->hi, sizeof(a->hi)) == 0;
}

static void check_version(const char *s)
{
    struct imx_ver v;
    int32_t model[IMX_VER_PARTS];
    int rc = imx_ver_parse(s, &v);
    int mrc = sql_model_key(s, model);
    CHECK(rc == mrc);
    if (rc != 0) {
        return;
    }
    CHECK(memcmp(v.key, model, sizeof(model)) == 0);
    CHECK(v.nparts >= 1 && v.nparts <= IMX_VER_PARTS);
    bool pre = false;
    for (int i = 0; i < IMX_VER_PARTS; i++) {
        pre = pre || v.key[i] < 0;
    }
    for (int i = 0; i < IMX_VER_PARTS; i++) {
        CHECK(pre || i < v.nparts || v.key[i] == 0);
        /* a negative part is a pre-release marker, followed by its number */
        CHECK(v.key[i] >= IMX_VER_PRE_DEV && v.key[i] <= IMX_VER_PART_MAX);
        CHECK(v.key[i] >= 0 || (i > 0 && i + 1 < IMX_VER_PARTS && v.key[i + 1] >= 0));
    }
    CHECK(strcmp(v.text, s) == 0);
    const char *suffix = imx_ver_suffix(&v);
    CHECK(suffix >= v.text && strlen(suffix) <= strlen(v.text));
    CHECK(imx_ver_cmp(&v, &v) == 0);
    CHECK(imx_ver_branch(&v) == v.key[0]);

    char key[IMX_VER_KEY_TEXT_SIZE];
    CHECK(imx_ver_format_key(&v, key, sizeof(key)) == 0 && key[0] == '{');

    /* A version used as "=X" matches itself, and its bare prefix form does too. */
    char text[IMX_VER_TEXT_MAX + 2];
    struct imx_constraint c;
    text[0] = '=';
    memcpy(text + 1, s, strlen(s) + 1); /* s is a valid version, so at most 64 bytes */
    if (imx_constraint_parse(text, &c, NULL, 0) == 0) {
        CHECK(imx_constraint_matches(&c, &v) && !imx_constraint_is_empty(&c));
    }
    if (imx_constraint_parse(s, &c, NULL, 0) == 0) {
        CHECK(imx_constraint_matches(&c, &v));
    }
}

/* Probes keys at and around both bounds: is_empty() must hold exactly when none matches. */
static void check_emptiness(const struct imx_constraint *c)
{
    int32_t probes[8][IMX_VER_PARTS];
    int n = 0;
    memset(probes, 0, sizeof(probes));
    for (int i = 0; i < IMX_VER_PARTS; i++) {
        probes[0][i] = i == 0 ? 0 : IMX_VER_PRE_DEV;
        probes[1][i] = IMX_VER_PART_MAX;
    }
    n = 2;
    const struct imx_constraint_bound *ends[2] = { &c->lo, &c->hi };
    for (int e = 0; e < 2; e++) {
        if (!ends[e]->bounded) {
            continue;
        }
        memcpy(probes[n], ends[e]->key, sizeof(probes[n]));
        n++;
        /* the next key up and the next key down, with carries */
        memcpy(probes[n], ends[e]->key, sizeof(probes[n]));
        for (int i = IMX_VER_PARTS - 1; i >= 0; i--) {
            if (probes[n][i] < IMX_VER_PART_MAX) {
                probes[n][i]++;
                break;
            }
            probes[n][i] = i == 0 ? 0 : IMX_VER_PRE_DEV;
        }
        n++;
        memcpy(probes[n], ends[e]->key, sizeof(probes[n]));
        for (int i = IMX_VER_PARTS - 1; i >= 0; i--) {
            if (probes[n][i] > (i == 0 ? 0 : IMX_VER_PRE_DEV)) {
                probes[n][i]--;
                break;
            }
            probes[n][i] = IMX_VER_PART_MAX;
        }
        n++;
    }
    bool any = false;
    for (int i = 0; i < n; i++) {
        struct imx_ver v;
        ver_from_key(probes[i], &v);
        any = any || imx_constraint_matches(c, &v);
    }
    CHECK(any == !imx_constraint_is_empty(c));
}

static void check_constraint(const char *s)
{
    struct imx_constraint c;
    char err[IMX_CONSTRAINT_ERR_SIZE];
    int rc = imx_constraint_parse(s, &c, err, sizeof(err));
    if (rc != 0) {
        CHECK(rc == -1 && err[0] != '\0');
        for (const char *p = err; *p != '\0'; p++) {
            CHECK(*p >= 0x20 && *p < 0x7f);
        }
        return;
    }
    CHECK(err[0] == '\0');

    char fmt[IMX_CONSTRAINT_FORMAT_SIZE];
    char fmt2[IMX_CONSTRAINT_FORMAT_SIZE];
    struct imx_constraint again;
    CHECK(imx_constraint_format(&c, fmt, sizeof(fmt)) == 0);
    CHECK(imx_constraint_parse(fmt, &again, err, sizeof(err)) == 0);
    CHECK(same_interval(&c, &again));
    CHECK(imx_constraint_format(&again, fmt2, sizeof(fmt2)) == 0 && strcmp(fmt, fmt2) == 0);
    CHECK(imx_constraint_parse(c.text, &again, err, sizeof(err)) == 0);
    CHECK(same_interval(&c, &again));

    char lo[IMX_VER_KEY_TEXT_SIZE];
    char hi[IMX_VER_KEY_TEXT_SIZE];
    bool lo_incl;
    bool hi_incl;
    imx_constraint_sql_bounds(&c, lo, &lo_incl, hi, &hi_incl);
    CHECK((lo[0] == '{') == c.lo.bounded && (hi[0] == '{') == c.hi.bounded);
    CHECK(lo_incl == (c.lo.bounded && c.lo.inclusive));
    CHECK(hi_incl == (c.hi.bounded && c.hi.inclusive));

    check_emptiness(&c);
}

/* For "constraint;version": the interval must match exactly when every term alone matches. */
static void check_match_split(const char *s)
{
    const char *semi = strchr(s, ';');
    if (semi == NULL || (size_t)(semi - s) > IMX_CONSTRAINT_TEXT_MAX) {
        return;
    }
    char ctext[IMX_CONSTRAINT_TEXT_MAX + 1];
    memcpy(ctext, s, (size_t)(semi - s));
    ctext[semi - s] = '\0';
    struct imx_constraint c;
    struct imx_ver v;
    if (imx_constraint_parse(ctext, &c, NULL, 0) != 0 || imx_ver_parse(semi + 1, &v) != 0) {
        return;
    }
    bool all = true;
    char *term = ctext;
    for (;;) {
        char *comma = strchr(term, ',');
        if (comma != NULL) {
            *comma = '\0';
        }
        struct imx_constraint one;
        CHECK(imx_constraint_parse(term, &one, NULL, 0) == 0);
        all = all && imx_constraint_matches(&one, &v);
        if (comma == NULL) {
            break;
        }
        term = comma + 1;
    }
    CHECK(imx_constraint_matches(&c, &v) == all);
    CHECK(imx_constraint_matches_str(&c, semi + 1) == all);
    CHECK(!all || !imx_constraint_is_empty(&c));
}

int imx_fuzz_one(const uint8_t *data, size_t size)
{
    char s[FUZZ_INPUT_MAX + 1];
    size_t n = size < FUZZ_INPUT_MAX ? size : FUZZ_INPUT_MAX;
    memcpy(s, data, n);
    s[n] = '\0';
    check_version(s);
    check_constraint(s);
    check_match_split(s);
    return 0;
}

#ifndef IMX_LIBFUZZER

/* Deterministic run: mutate a seed list with a fixed-seed xorshift generator. */
static const char *const seeds[] = {
    "580.105.08",
    "580.95.05",
    "450.80.02",
    "12.4.1",
    "13.0",
    "9.1.0.70",
    "8.9.7.29",
    "2.5.1+cu124",
    "1.17.8",
    "v1.17.0",
    "6.17.0-1020-aws",
    "5.15.0-1066-azure",
    "24.04",
    "12.4.1-1ubuntu2",
    "1.2.3.4.5.6",
    "999999999.999999999",
    "0",
    "1..2",
    "3.13.0rc1",
    "12.4",
    "12.4.*",
    "12.*",
    "*",
    "=12.4",
    "=12.4.1",
    ">=12.4",
    ">12.4",
    "<=1.16.1",
    "<13",
    "~580",
    "~580.95",
    "~580.95.05",
    ">=580,<580.95.05",
    ">=13, <12",
    "~580, 580.95.*",
    ">= 12.4 , < 13",
    "!=12.4",
    ">=12.x",
    "~999999999",
    "1.999999999.*",
    ">1.999999999.999999999.999999999.999999999.999999999, <2",
    "<0",
    ">1,<1.0.0.0.0.1",
    "~580;580.95.05",
    ">=580,<580.95.05;580.82.07",
    "12.4.*;12.4.99",
    "=12.4;12.4.0",
    "<=1.16.1;1.16.2",
    "<=1.16.1,<1.16.1;1.16.1",
    "<1.16.1,<=1.16.1;1.16.1",
    ">=12,>12;12",
    ">12,>=12;12",
    "=12.4,12.4.*;12.4",
    "~580,580.95.*,<580.95.05;580.95.04",
    ">=2.5.1+cu124;2.5.1+cu121",
    "1,2,3,4,5,6,7,8",
};

static const char alphabet[] = "0123456789.-,;<>=~*!vVxX+_ aws\t9";

/* Applies one random edit to buf (length *len, capacity cap). */
static void mutate_once(uint64_t *rng, char *buf, size_t *len, size_t cap)
{
    size_t nseeds = sizeof(seeds) / sizeof(seeds[0]);
    switch (imx_fuzz_pick(rng, 7)) {
    case 0: /* replace a byte */
        if (*len > 0) {
            buf[imx_fuzz_pick(rng, *len)] = alphabet[imx_fuzz_pick(rng, sizeof(alphabet) - 1)];
        }
        break;
    case 1: /* insert a byte */
        if (*len + 1 < cap) {
            size_t at = imx_fuzz_pick(rng, *len + 1);
            memmove(buf + at + 1, buf + at, *len - at);
            buf[at] = alphabet[imx_fuzz_pick(rng, sizeof(alphabet) - 1)];
            (*len)++;
        }
        break;
    case 2: /* delete a byte */
        if (*len > 0) {
            size_t at = imx_fuzz_pick(rng, *len);
            memmove(buf + at, buf + at + 1, *len - at - 1);
            (*len)--;
        }
        break;
    case 3: /* append another seed after a separator */
    {
        const char *seed = seeds[imx_fuzz_pick(rng, nseeds)];
        const char *sep = imx_fuzz_pick(rng, 2) ? "," : ";";
        size_t sl = strlen(seed);
        if (*len + 1 + sl < cap) {
            buf[(*len)++] = sep[0];
            memcpy(buf + *len, seed, sl);
            *len += sl;
        }
        break;
    }
    case 4: /* repeat a chunk */
        if (*len > 0) {
            size_t at = imx_fuzz_pick(rng, *len);
            size_t cl = 1 + imx_fuzz_pick(rng, *len - at);
            if (*len + cl < cap) {
                memmove(buf + at + cl, buf + at, *len - at);
                (*len) += cl;
            }
        }
        break;
    case 5: /* a random byte, sometimes outside ASCII */
        if (*len > 0) {
            buf[imx_fuzz_pick(rng, *len)] = (char)(1 + imx_fuzz_pick(rng, 255));
        }
        break;
    default: /* a run of digits, to reach the 9-digit limit */
    {
        size_t run = 1 + imx_fuzz_pick(rng, 12);
        if (*len + run < cap) {
            size_t at = imx_fuzz_pick(rng, *len + 1);
            memmove(buf + at + run, buf + at, *len - at);
            for (size_t i = 0; i < run; i++) {
                buf[at + i] = (char)('0' + imx_fuzz_pick(rng, 10));
            }
            *len += run;
        }
        break;
    }
    }
}

/* One to four edits; the buffer holds cap + 1 bytes. */
static void mutate(uint64_t *rng, unsigned char *buf, size_t *len, size_t cap)
{
    for (int e = 1 + (int)imx_fuzz_pick(rng, 4); e > 0; e--)
        mutate_once(rng, (char *)buf, len, cap + 1);
}

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),      .cap = 319,       .iterations = 200000,
    .rng = 0x9e3779b97f4a7c15u, .mutate = mutate,
};

#endif /* IMX_LIBFUZZER */
