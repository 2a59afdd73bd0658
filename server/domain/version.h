/* Component versions (580.105.08, 6.8.0-1015-aws) and constraints (>=12.4, ~580, 12.*). */
#ifndef IMX_DOMAIN_VERSION_H
#define IMX_DOMAIN_VERSION_H

/* Pure C: fixed-size structs, no allocation, no I/O, no shared state (thread-safe). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define IMX_VER_MUST_CHECK __attribute__((warn_unused_result))
#else
#define IMX_VER_MUST_CHECK
#endif

/* Numeric parts in a key; each part is 1..9 digits, so 0..IMX_VER_PART_MAX. */
#define IMX_VER_PARTS    6
#define IMX_VER_PART_MAX 999999999
/* Longest accepted version string, in bytes. */
#define IMX_VER_TEXT_MAX 64
/* Buffer size for imx_ver_format_key() and imx_constraint_sql_bounds(): "{n,n,n,n,n,n}". */
#define IMX_VER_KEY_TEXT_SIZE 72

/* Longest accepted constraint string, in bytes, and most comma-separated terms. */
#define IMX_CONSTRAINT_TEXT_MAX  256
#define IMX_CONSTRAINT_MAX_TERMS 8
/* Buffer size that always fits imx_constraint_format() output. */
#define IMX_CONSTRAINT_FORMAT_SIZE 136
/* Buffer size that always fits a whole error message from imx_constraint_parse(). */
#define IMX_CONSTRAINT_ERR_SIZE 384

/* Pre-release markers: a pre-release suffix ("rc14", "a1", "b2", ".dev3", "-rc.1", "-alpha") puts
 * one of these negative parts after the version's numeric parts (trailing zeros dropped down to
 * two parts), then its number, so that 1.3.0rc14 = {1,3,-1,14,0,0} sorts after 1.2.x, after
 * 1.3.0rc2 and before 1.3.0 = {1,3,0,0,0,0}: dev < alpha < beta < rc < the release (PEP 440's
 * order). Release keys never hold a negative part, so they are unchanged by this rule. */
#define IMX_VER_PRE_DEV   (-4)
#define IMX_VER_PRE_ALPHA (-3)
#define IMX_VER_PRE_BETA  (-2)
#define IMX_VER_PRE_RC    (-1)

/* A parsed version. The key orders versions; missing parts are zero, so "12.4" and "12.4.0"
 * share a key. A suffix ("+cu124", "-aws", ".post1") is kept in text but never affects ordering,
 * except a pre-release suffix (see IMX_VER_PRE_RC), which sorts the version before its release;
 * a suffix after one ("2.6.0a0+ecf3bae", NGC's PyTorch builds) makes it an ordinary suffix. */
struct imx_ver {
    int32_t key[IMX_VER_PARTS];
    int nparts;                      /* numeric parts actually written, 1..6 */
    unsigned char suffix_at;         /* offset of the suffix in text ("" when none) */
    char text[IMX_VER_TEXT_MAX + 1]; /* the original string, NUL-terminated */
};

/* One end of a constraint's interval; unbounded ends ignore key and inclusive. */
struct imx_constraint_bound {
    bool bounded;
    bool inclusive;
    int32_t key[IMX_VER_PARTS];
};

/* A constraint reduced to one interval of keys (every term is an interval and they are
 * ANDed). text holds the terms as written, trimmed and joined by ", " (e.g. "~580, 12.*"). */
struct imx_constraint {
    struct imx_constraint_bound lo;
    struct imx_constraint_bound hi;
    char text[IMX_CONSTRAINT_TEXT_MAX + IMX_CONSTRAINT_MAX_TERMS];
};

/* Parses s by the rules of SQL imx_version_key() (v?, 1..6 runs of 1..9 digits joined by . or -,
 * suffix of [A-Za-z0-9.+_~-]; a pre-release suffix goes into the key when the numeric parts, less
 * trailing zeros, leave two parts free). Returns 0, or -1 when invalid (out is then zeroed). */
IMX_VER_MUST_CHECK int imx_ver_parse(const char *s, struct imx_ver *out);

/* Orders two versions by key only: <0, 0 or >0. */
int imx_ver_cmp(const struct imx_ver *a, const struct imx_ver *b);

/* The first numeric part: the NVIDIA driver branch (580 for R580). */
int32_t imx_ver_branch(const struct imx_ver *v);

/* The suffix after the numeric parts ("+cu124", "-aws", ""); borrowed from v->text. */
const char *imx_ver_suffix(const struct imx_ver *v);

/* Writes v's key as a PostgreSQL int[] literal, "{580,105,8,0,0,0}", the text form of SQL
 * imx_version_key(). Returns 0, or -1 when len is too small (buf is then ""). */
int imx_ver_format_key(const struct imx_ver *v, char *buf, size_t len);

/* Parses a constraint such as ">=12.4, <13", "12.4.*", "=12.4.1", "~580" or "*". Returns 0,
 * or -1 with a human message in err (when err is not NULL and errlen > 0; "" on success). */
IMX_VER_MUST_CHECK int imx_constraint_parse(const char *s, struct imx_constraint *out, char *err,
                                            size_t errlen);

/* True when no valid version can match (e.g. ">=13, <12", or ">1, <1.0.0.0.0.1"). */
bool imx_constraint_is_empty(const struct imx_constraint *c);

/* True when v's key lies in c's interval. */
bool imx_constraint_matches(const struct imx_constraint *c, const struct imx_ver *v);

/* Parses version s and matches it against c; false when s is not a valid version. */
bool imx_constraint_matches_str(const struct imx_constraint *c, const char *s);

/* Writes the bounds as PostgreSQL int[] literals ("{580,0,0,0,0,0}"), or "" with the flag
 * false for an unbounded end, for SQL such as key >= $1::int[] AND key < $2::int[]. */
void imx_constraint_sql_bounds(const struct imx_constraint *c, char lo[IMX_VER_KEY_TEXT_SIZE],
                               bool *lo_incl, char hi[IMX_VER_KEY_TEXT_SIZE], bool *hi_incl);

/* Writes the interval in a normalized form that reparses to the same interval: ">=580, <581",
 * "=12.4.1", "<13" or "*". Returns 0, or -1 when len is too small (buf is then ""). */
int imx_constraint_format(const struct imx_constraint *c, char *buf, size_t len);

#endif /* IMX_DOMAIN_VERSION_H */
