/* Distro package versions as the distros order them: dpkg (Debian Policy 5.6.12: epoch,
 * upstream, revision, '~' before anything) and rpm (rpmvercmp: epoch, version, release, '~' and
 * '^'), the OSV ecosystems that use each, and constraints over them (">=1:2.4, <1:2.4.1-2"). */
#ifndef IMX_DOMAIN_PKGVER_H
#define IMX_DOMAIN_PKGVER_H

/* Pure C: fixed-size buffers, no allocation, no I/O, no shared state (thread-safe). */

#include <stdbool.h>
#include <stddef.h>

/* Longest accepted package version, package name and ecosystem name, in bytes. */
#define IMX_PKGVER_TEXT_MAX   128
#define IMX_PKG_NAME_MAX      128
#define IMX_PKG_ECOSYSTEM_MAX 64
/* A key is never longer than this (every version byte costs at most 2 key bytes, plus framing). */
#define IMX_PKGVER_KEY_MAX (2 * IMX_PKGVER_TEXT_MAX + 16)
/* Buffer for a key as PostgreSQL bytea hex text: "\x" + 2 per byte + NUL. */
#define IMX_PKGVER_KEY_HEX_SIZE (2 * IMX_PKGVER_KEY_MAX + 3)
/* Longest accepted constraint over package versions, and most comma-separated terms. */
#define IMX_PKG_CONSTRAINT_TEXT_MAX  300
#define IMX_PKG_CONSTRAINT_MAX_TERMS 4

enum imx_pkg_order {
    IMX_PKG_DPKG = 1, /* Debian, Ubuntu */
    IMX_PKG_RPM = 2,  /* Rocky Linux, AlmaLinux, Amazon Linux, Red Hat, Fedora, SUSE */
};

/* The order of an OSV ecosystem ("Ubuntu:24.04:LTS", "Debian:12", "Rocky Linux:9",
 * "AlmaLinux:9", "Amazon Linux 2023"), or 0 when it is not a distro imaxe knows (or not a
 * well-formed name: 1..64 of A-Z a-z 0-9 space . : _ -). */
enum imx_pkg_order imx_pkg_ecosystem_order(const char *ecosystem);

/* The OSV ecosystem of an OS as manifests spell it ("ubuntu" "24.04" -> "Ubuntu:24.04:LTS",
 * "debian" "12" -> "Debian:12", "rocky" "9.4" -> "Rocky Linux:9", "almalinux" "9" ->
 * "AlmaLinux:9", "amzn"/"amazonlinux" "2023" -> "Amazon Linux 2023") into out. Returns 0, or -1
 * when imaxe knows no distro ecosystem for it (out is then ""). */
int imx_pkg_ecosystem_of_os(const char *os_name, const char *os_version, char *out, size_t len);

/* Is s a package name (1..128 of A-Z a-z 0-9 . + _ - ~, starting with a letter or digit)? */
bool imx_pkg_name_ok(const char *s);

/* Is s a version of that order (dpkg: [epoch:]upstream[-revision]; rpm: [epoch:]version
 * [-release]; epoch 0..9 digits, 1..128 bytes of the order's characters)? */
bool imx_pkgver_valid(enum imx_pkg_order order, const char *s);

/* Compares two valid versions by the distro's own algorithm (dpkg's verrevcmp, rpm's
 * rpmvercmp), not through keys: <0, 0 or >0. An invalid version sorts before every valid one. */
int imx_pkgver_cmp(enum imx_pkg_order order, const char *a, const char *b);

/* The order-preserving key of a valid version: memcmp (shorter first on a common prefix)
 * orders keys as imx_pkgver_cmp orders versions, and equal versions ("1.0" and "1.0-0" in dpkg)
 * have equal keys, so PostgreSQL can compare and index them as bytea. Writes it into out and
 * its length into *n. Returns 0, or -1 when s is not valid. */
int imx_pkgver_key(enum imx_pkg_order order, const char *s, unsigned char out[IMX_PKGVER_KEY_MAX],
                   size_t *n);

/* The key as bytea hex text ("\x0231..."). Returns 0, or -1 when s is not valid. */
int imx_pkgver_key_hex(enum imx_pkg_order order, const char *s, char out[IMX_PKGVER_KEY_HEX_SIZE]);

/* A constraint over package versions reduced to one interval: terms "<V", "<=V", ">V", ">=V",
 * "=V" or "V", and "*", joined by commas (AND). An unbounded end has has_lo/has_hi false. */
struct imx_pkg_constraint {
    bool has_lo, lo_incl, has_hi, hi_incl;
    unsigned char lo[IMX_PKGVER_KEY_MAX], hi[IMX_PKGVER_KEY_MAX];
    size_t lo_n, hi_n;
    char text[IMX_PKG_CONSTRAINT_TEXT_MAX + 1]; /* the terms trimmed, joined by ", " */
};

/* Parses s. Returns 0, or -1 with a human message in err (when err is not NULL). An interval no
 * version can lie in (">=2, <1") is refused. */
int imx_pkg_constraint_parse(enum imx_pkg_order order, const char *s,
                             struct imx_pkg_constraint *out, char *err, size_t errlen);

/* True when version v (valid) lies in c. */
bool imx_pkg_constraint_matches(enum imx_pkg_order order, const struct imx_pkg_constraint *c,
                                const char *v);

/* A key as bytea hex text ("\x..."); out must hold 2 * n + 3 bytes. */
void imx_pkgver_hex(const unsigned char *key, size_t n, char *out);

#endif /* IMX_DOMAIN_PKGVER_H */
