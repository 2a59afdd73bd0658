/* dpkg and rpm version order (server/domain/pkgver.c) as tables of real version pairs from the
 * distros' changelogs and advisories (Ubuntu USNs, Debian DSAs, Rocky/Alma/RHEL errata, Amazon
 * Linux ALAS), each checked both ways, by the algorithm and by the key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "domain/pkgver.h"

struct pair {
    const char *older, *newer;
};

static int key_cmp(enum imx_pkg_order o, const char *a, const char *b)
{
    unsigned char ka[IMX_PKGVER_KEY_MAX], kb[IMX_PKGVER_KEY_MAX];
    size_t na, nb;
    assert_int_equal(imx_pkgver_key(o, a, ka, &na), 0);
    assert_int_equal(imx_pkgver_key(o, b, kb, &nb), 0);
    int rc = memcmp(ka, kb, na < nb ? na : nb);
    if (rc == 0 && na != nb)
        rc = na < nb ? -1 : 1;
    return rc < 0 ? -1 : rc > 0 ? 1 : 0;
}

static void check_pairs(enum imx_pkg_order o, const struct pair *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int ab = imx_pkgver_cmp(o, p[i].older, p[i].newer);
        int ba = imx_pkgver_cmp(o, p[i].newer, p[i].older);
        int kab = key_cmp(o, p[i].older, p[i].newer);
        if (ab >= 0 || ba <= 0 || kab >= 0)
            fail_msg("%s < %s: cmp %d, reverse %d, key %d", p[i].older, p[i].newer, ab, ba, kab);
    }
}

static void check_equal(enum imx_pkg_order o, const struct pair *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int ab = imx_pkgver_cmp(o, p[i].older, p[i].newer);
        int kab = key_cmp(o, p[i].older, p[i].newer);
        if (ab != 0 || kab != 0)
            fail_msg("%s == %s: cmp %d, key %d", p[i].older, p[i].newer, ab, kab);
    }
}

/* Older first. */
static const struct pair dpkg_pairs[] = {
    /* openssl (Ubuntu 24.04, 22.04, 20.04; Debian 12, 11) */
    { "3.0.13-0ubuntu3.5", "3.0.13-0ubuntu3.10" },
    { "3.0.13-0ubuntu3", "3.0.13-0ubuntu3.1" },
    { "3.0.13-0ubuntu3.4", "3.0.13-0ubuntu3.5" },
    { "3.0.2-0ubuntu1.15", "3.0.2-0ubuntu1.18" },
    { "3.0.2-0ubuntu1", "3.0.2-0ubuntu1.1" },
    { "1.1.1f-1ubuntu2.22", "1.1.1f-1ubuntu2.23" },
    { "1.1.1f-1ubuntu2", "1.1.1f-1ubuntu2.1" },
    { "3.0.11-1~deb12u2", "3.0.11-1~deb12u3" },
    { "3.0.11-1~deb12u2", "3.0.11-1" },
    { "3.0.15-1~deb12u1", "3.0.15-1" },
    { "3.0.9-1", "3.0.11-1~deb12u1" },
    { "1.1.1n-0+deb11u4", "1.1.1n-0+deb11u5" },
    { "1.1.1n-0+deb11u5", "1.1.1w-0+deb11u1" },
    /* glibc */
    { "2.39-0ubuntu8", "2.39-0ubuntu8.1" },
    { "2.39-0ubuntu8.3", "2.39-0ubuntu8.4" },
    { "2.35-0ubuntu3.8", "2.35-0ubuntu3.9" },
    { "2.36-9+deb12u7", "2.36-9+deb12u8" },
    { "2.36-9+deb12u9", "2.36-9+deb12u10" },
    { "2.31-0ubuntu9.16", "2.31-0ubuntu9.17" },
    /* linux */
    { "6.8.0-45.45", "6.8.0-51.52" },
    { "6.8.0-51.52", "6.8.0-52.53" },
    { "5.15.0-119.129", "5.15.0-122.132" },
    /* sudo */
    { "1.9.15p5-3ubuntu5", "1.9.15p5-3ubuntu5.24.04.1" },
    { "1.9.9-1ubuntu2.4", "1.9.9-1ubuntu2.5" },
    { "1.9.13p3-1+deb12u1", "1.9.13p3-1+deb12u2" },
    { "1.9.5p2-3+deb11u1", "1.9.13p3-1+deb12u1" },
    /* openssh (epoch 1) */
    { "1:9.6p1-3ubuntu13.4", "1:9.6p1-3ubuntu13.5" },
    { "1:8.9p1-3ubuntu0.10", "1:8.9p1-3ubuntu0.11" },
    { "1:9.2p1-2+deb12u2", "1:9.2p1-2+deb12u3" },
    { "1:8.4p1-5+deb11u3", "1:9.2p1-2" },
    { "9.9", "1:8.4p1-5" },
    /* curl */
    { "8.5.0-2ubuntu10.4", "8.5.0-2ubuntu10.5" },
    { "7.81.0-1ubuntu1.16", "7.81.0-1ubuntu1.18" },
    { "7.88.1-10+deb12u7", "7.88.1-10+deb12u8" },
    { "7.74.0-1.3+deb11u13", "7.74.0-1.3+deb11u14" },
    /* systemd */
    { "255.4-1ubuntu8.4", "255.4-1ubuntu8.5" },
    { "249.11-0ubuntu3.12", "249.11-0ubuntu3.13" },
    { "252.30-1~deb12u2", "252.31-1~deb12u1" },
    { "252.26-1~deb12u2", "252.30-1~deb12u2" },
    /* python */
    { "3.12.3-1ubuntu0.1", "3.12.3-1ubuntu0.3" },
    { "3.10.12-1~22.04.5", "3.10.12-1~22.04.6" },
    { "3.10.12-1~22.04.6", "3.10.12-1" },
    /* zlib (epoch 1, dfsg) */
    { "1:1.3.dfsg-3.1ubuntu2", "1:1.3.dfsg-3.1ubuntu2.1" },
    { "1:1.2.11.dfsg-2ubuntu9.2", "1:1.3.dfsg-3.1ubuntu2" },
    { "1:1.2.13.dfsg-1", "1:1.3.dfsg-3.1ubuntu2" },
    /* bash, binNMUs */
    { "5.1-6ubuntu1", "5.1-6ubuntu1.1" },
    { "5.2.15-2+b2", "5.2.15-2+b7" },
    { "5.2.15-2", "5.2.15-2+b2" },
    /* tar, libxml2 */
    { "1.34+dfsg-1ubuntu0.1.22.04.1", "1.34+dfsg-1ubuntu0.1.22.04.2" },
    { "1.35+dfsg-3build1", "1.35+dfsg-3.1" },
    { "2.9.14+dfsg-1.3ubuntu3", "2.9.14+dfsg-1.3ubuntu3.1" },
    { "2.9.13+dfsg-1ubuntu0.4", "2.9.13+dfsg-1ubuntu0.5" },
    { "2.9.14+dfsg-1.3~deb12u1", "2.9.14+dfsg-1.3" },
    /* vim (epoch 2) */
    { "2:9.1.0016-1ubuntu7.5", "2:9.1.0016-1ubuntu7.6" },
    { "2:8.2.3995-1ubuntu2.20", "2:8.2.3995-1ubuntu2.21" },
    { "2:9.0.1378-2", "2:9.0.1378-2+deb12u1" },
    /* gnutls, git */
    { "3.8.3-1.1ubuntu3.2", "3.8.3-1.1ubuntu3.3" },
    { "3.7.9-2+deb12u3", "3.7.9-2+deb12u4" },
    { "1:2.43.0-1ubuntu7.1", "1:2.43.0-1ubuntu7.2" },
    { "1:2.39.5-0+deb12u1", "1:2.39.5-0+deb12u2" },
    /* NVIDIA driver packages */
    { "550.127.05-0ubuntu0.24.04.1", "550.144.03-0ubuntu0.24.04.1" },
    { "535.183.01-0ubuntu0.22.04.1", "535.216.01-0ubuntu0.22.04.1" },
    /* pre-releases and Policy 5.6.12's own examples */
    { "1.0~rc1-1", "1.0-1" },
    { "2.4.1~rc1-2", "2.4.1-1" },
    { "1:2.4.1~rc1-2", "1:2.4.1-1" },
    { "1.0~~", "1.0~~a" },
    { "1.0~~a", "1.0~" },
    { "1.0~", "1.0" },
    { "1.0", "1.0a" },
    { "1.0a", "1.0+" },
    { "1.0+", "1.0.1" },
    { "1.0+dfsg", "1.0.1" },
    { "1.0", "1.0.0" },
    /* ca-certificates, tzdata */
    { "20230311ubuntu1", "20240203" },
    { "20230311", "20230311+deb12u1" },
    { "2024a-0ubuntu0.22.04", "2024a-0ubuntu0.22.04.1" },
    { "2024a-3ubuntu1.1", "2024b-0ubuntu0.24.04" },
    { "2024a-0+deb12u1", "2024b-0+deb12u1" },
    /* perl, expat, krb5, libgcrypt, intel-microcode */
    { "5.38.2-3.2build2", "5.38.2-3.2ubuntu0.1" },
    { "5.34.0-3ubuntu1.3", "5.34.0-3ubuntu1.4" },
    { "5.36.0-7+deb12u1", "5.36.0-7+deb12u2" },
    { "2.6.1-2ubuntu0.2", "2.6.1-2ubuntu0.3" },
    { "2.5.0-1", "2.5.0-1+deb12u1" },
    { "1.10.3-2build1", "1.10.3-2ubuntu0.1" },
    { "1.20.1-6ubuntu2.1", "1.20.1-6ubuntu2.2" },
    { "1.20.1-2+deb12u1", "1.20.1-2+deb12u2" },
    { "3.20240813.1ubuntu0.24.04.2", "3.20240910.0ubuntu0.24.04.1" },
    { "3.20240514.1~deb12u1", "3.20240813.1~deb12u1" },
};

static const struct pair dpkg_equal[] = {
    { "1.0", "1.0-0" },        { "0:1.0", "1.0" },  { "1.0-1", "1.0-01" },
    { "1.0.", "1.0.0" },       { "1a", "1a0" },     { "0:3.0.13-0ubuntu3.5", "3.0.13-0ubuntu3.5" },
    { "1:2.4.1", "01:2.4.1" }, { "1.010", "1.10" },
};

static const struct pair rpm_pairs[] = {
    /* openssl (Rocky/Alma/RHEL 9, Amazon Linux 2023) */
    { "1:3.0.7-27.el9", "1:3.0.7-28.el9_4" },
    { "1:3.0.7-28.el9_4", "1:3.2.2-6.el9_5" },
    { "1:3.0.7-24.el9", "1:3.0.7-25.el9_3" },
    { "1:3.0.7-25.el9_3", "1:3.0.7-27.el9" },
    { "1:3.2.2-6.el9_5", "1:3.2.2-6.el9_5.1" },
    { "1:3.0.8-1.amzn2023.0.14", "1:3.0.8-1.amzn2023.0.16" },
    { "1:3.0.8-1.amzn2023.0.9", "1:3.0.8-1.amzn2023.0.14" },
    { "1:3.0.8-1.amzn2023.0.16", "1:3.2.2-1.amzn2023.0.1" },
    { "3.0.8-1.amzn2023.0.14", "1:3.0.8-1.amzn2023.0.14" },
    /* glibc */
    { "2.34-100.el9_4.2", "2.34-100.el9_4.3" },
    { "2.34-83.el9_3.12", "2.34-100.el9" },
    { "2.34-100.el9_4.4", "2.34-125.el9_5.1" },
    { "2.34-52.amzn2023.0.8", "2.34-52.amzn2023.0.11" },
    { "2.34-125.el9_5.1", "2.34-125.el9_5.8" },
    /* kernel */
    { "5.14.0-427.13.1.el9_4", "5.14.0-427.16.1.el9_4" },
    { "5.14.0-427.42.1.el9_4", "5.14.0-503.11.1.el9_5" },
    { "5.14.0-362.24.1.el9_3", "5.14.0-427.13.1.el9_4" },
    { "6.1.112-122.189.amzn2023", "6.1.115-126.197.amzn2023" },
    { "4.18.0-513.5.1.el8_9", "4.18.0-553.el8_10" },
    { "4.18.0-553.el8_10", "4.18.0-553.5.1.el8_10" },
    /* openssh */
    { "8.7p1-38.el9", "8.7p1-38.el9_4.1" },
    { "8.7p1-38.el9_4.1", "8.7p1-38.el9_4.4" },
    { "8.7p1-38.el9_4.4", "8.7p1-43.el9" },
    { "8.7p1-34.el9", "8.7p1-38.el9" },
    { "8.7p1-12.amzn2023.0.4", "8.7p1-12.amzn2023.0.11" },
    /* sudo, curl */
    { "1.9.5p2-9.el9", "1.9.5p2-10.el9_3" },
    { "1.9.5p2-1.el9", "1.9.5p2-9.el9" },
    { "7.76.1-26.el9", "7.76.1-26.el9_3.2" },
    { "7.76.1-26.el9_3.2", "7.76.1-29.el9_4" },
    { "7.76.1-29.el9_4", "7.76.1-29.el9_4.1" },
    { "8.5.0-1.amzn2023.0.2", "8.5.0-1.amzn2023.0.4" },
    /* systemd, python3 */
    { "252-32.el9_4", "252-32.el9_4.6" },
    { "252-32.el9_4.7", "252-46.el9_5.2" },
    { "252-18.el9", "252-32.el9_4" },
    { "3.9.18-3.el9", "3.9.18-3.el9_4.1" },
    { "3.9.18-3.el9_4.5", "3.9.19-8.el9_5.1" },
    { "3.9.19-8.el9_5.1", "3.9.21-1.el9_5" },
    /* '~' and '^' (Fedora packaging guidelines' own examples) */
    { "1.0~rc1-1", "1.0-1" },
    { "1.0~rc1", "1.0~rc2" },
    { "1.0~rc2", "1.0" },
    { "1.0", "1.0^git1" },
    { "1.0^git1", "1.0^git2" },
    { "1.0^git2", "1.0.1" },
    { "1.0~rc1^git1", "1.0~rc1.1" },
    { "1.0^", "1.0a" },
    /* segments: numeric newer than alphabetic; what is left over wins */
    { "1.0a", "1.0.1" },
    { "2.0a", "2.0.0" },
    { "1.1", "1.1.alpha" },
    { "1:9.9", "2:1.0" },
    { "1.9", "1.10" },
    /* tzdata, ca-certificates, gnutls, expat, krb5, libxml2 */
    { "2024a-1.el9", "2024b-2.el9" },
    { "2024b-2.el9", "2025a-1.el9" },
    { "2023.2.60_v7.0.306-90.1.el9_2", "2024.2.69_v8.0.303-91.4.el9_4" },
    { "3.8.3-4.el9_4", "3.8.3-4.el9_5" },
    { "2.5.0-2.el9_4", "2.5.0-2.el9_4.1" },
    { "2.5.0-2.el9_4.1", "2.5.0-3.el9_5.1" },
    { "1.21.1-1.el9", "1.21.1-2.el9_4" },
    { "1.21.1-2.el9_4", "1.21.1-2.el9_4.1" },
    { "2.9.13-5.el9_3", "2.9.13-6.el9_4" },
    { "2.9.13-6.el9_4", "2.9.13-6.el9_5.1" },
    /* NVIDIA driver (epoch 3), libarchive, git, vim, bash, less, dnf, rpm, grub2, firefox */
    { "3:550.127.05-1.el9", "3:560.35.03-1.el9" },
    { "3:560.35.03-1.el9", "3:565.57.01-1.el9" },
    { "3:535.216.01-1.el9", "3:550.90.07-1.el9" },
    { "3.5.3-4.el9", "3.5.3-4.el9_4.1" },
    { "2.43.5-1.el9_4", "2.43.5-2.el9_5" },
    { "2:8.2.2637-20.el9_1", "2:8.2.2637-21.el9" },
    { "5.1.8-6.el9_1", "5.1.8-9.el9" },
    { "590-4.el9_4", "590-5.el9" },
    { "4.14.0-9.el9", "4.14.0-17.el9" },
    { "4.16.1.3-29.el9", "4.16.1.3-34.el9" },
    { "1:2.06-77.el9", "1:2.06-80.el9_4" },
    { "115.11.0-1.el9_4", "115.12.0-1.el9_4" },
    { "2.0.11-3.amzn2023", "2.0.11-4.amzn2023" },
};

static const struct pair rpm_equal[] = {
    { "0:1.0-1", "1.0-1" },
    { "1.001", "1.1" },
    { "1.0.1", "1.0_1" },
    { "1.0.", "1.0" },
    { "2.34-100.el9_4.2", "2.34-100.el9.4.2" },
};

static void dpkg_order_of_real_pairs(void **state)
{
    (void)state;
    size_t n = sizeof dpkg_pairs / sizeof dpkg_pairs[0];
    assert_true(n >= 60);
    check_pairs(IMX_PKG_DPKG, dpkg_pairs, n);
    check_equal(IMX_PKG_DPKG, dpkg_equal, sizeof dpkg_equal / sizeof dpkg_equal[0]);
}

static void rpm_order_of_real_pairs(void **state)
{
    (void)state;
    size_t n = sizeof rpm_pairs / sizeof rpm_pairs[0];
    assert_true(n >= 60);
    check_pairs(IMX_PKG_RPM, rpm_pairs, n);
    check_equal(IMX_PKG_RPM, rpm_equal, sizeof rpm_equal / sizeof rpm_equal[0]);
}

static void versions_valid_and_invalid(void **state)
{
    (void)state;
    static const struct {
        enum imx_pkg_order o;
        const char *v;
        bool ok;
    } cases[] = {
        { IMX_PKG_DPKG, "1:2.4.1~rc1-2", true },
        { IMX_PKG_DPKG, "3.0.13-0ubuntu3.5", true },
        { IMX_PKG_DPKG, "1:9.6p1-3ubuntu13.5", true },
        { IMX_PKG_DPKG, "2:1.2-3:4-5", true }, /* ':' in upstream after an epoch */
        { IMX_PKG_DPKG, "", false },
        { IMX_PKG_DPKG, ":1.0", false },
        { IMX_PKG_DPKG, "a:1.0", false },
        { IMX_PKG_DPKG, "1.0-", false },
        { IMX_PKG_DPKG, "1.0_1", false },
        { IMX_PKG_DPKG, "1.0 1", false },
        { IMX_PKG_DPKG, "1.0-1-", false },
        { IMX_PKG_DPKG, "1.0-a:b", false },
        { IMX_PKG_RPM, "1:3.0.7-27.el9", true },
        { IMX_PKG_RPM, "1.0^git1", true },
        { IMX_PKG_RPM, "2023.2.60_v7.0.306-90.1.el9_2", true },
        { IMX_PKG_RPM, "1.0-", false },
        { IMX_PKG_RPM, "-1", false },
        { IMX_PKG_RPM, "1.0:2", false },
        { IMX_PKG_RPM, "1234567890:1", false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (imx_pkgver_valid(cases[i].o, cases[i].v) != cases[i].ok)
            fail_msg("'%s' valid should be %d", cases[i].v, cases[i].ok);
    char long_v[IMX_PKGVER_TEXT_MAX + 2];
    memset(long_v, '1', sizeof long_v - 1);
    long_v[sizeof long_v - 1] = '\0';
    assert_false(imx_pkgver_valid(IMX_PKG_DPKG, long_v));
    long_v[IMX_PKGVER_TEXT_MAX] = '\0';
    assert_true(imx_pkgver_valid(IMX_PKG_DPKG, long_v));
}

static void ecosystems(void **state)
{
    (void)state;
    assert_int_equal(imx_pkg_ecosystem_order("Ubuntu:24.04:LTS"), IMX_PKG_DPKG);
    assert_int_equal(imx_pkg_ecosystem_order("Debian:12"), IMX_PKG_DPKG);
    assert_int_equal(imx_pkg_ecosystem_order("Rocky Linux:9"), IMX_PKG_RPM);
    assert_int_equal(imx_pkg_ecosystem_order("AlmaLinux:9"), IMX_PKG_RPM);
    assert_int_equal(imx_pkg_ecosystem_order("Amazon Linux 2023"), IMX_PKG_RPM);
    assert_int_equal(imx_pkg_ecosystem_order("PyPI"), 0);
    assert_int_equal(imx_pkg_ecosystem_order("Ubuntuish"), 0);
    assert_int_equal(imx_pkg_ecosystem_order("Ubuntu:24.04;LTS"), 0);
    assert_int_equal(imx_pkg_ecosystem_order(""), 0);
    static const struct {
        const char *name, *version, *eco;
    } os[] = {
        { "ubuntu", "24.04", "Ubuntu:24.04:LTS" },
        { "ubuntu", "22.04", "Ubuntu:22.04:LTS" },
        { "ubuntu", "24.10", "Ubuntu:24.10" },
        { "debian", "12", "Debian:12" },
        { "debian", "12.8", "Debian:12" },
        { "rocky", "9.4", "Rocky Linux:9" },
        { "almalinux", "9", "AlmaLinux:9" },
        { "amzn", "2023", "Amazon Linux 2023" },
        { "windows", "2022", "" },
        { "ubuntu", "24", "" },
    };
    for (size_t i = 0; i < sizeof os / sizeof os[0]; i++) {
        char out[IMX_PKG_ECOSYSTEM_MAX + 1];
        int rc = imx_pkg_ecosystem_of_os(os[i].name, os[i].version, out, sizeof out);
        assert_int_equal(rc, os[i].eco[0] ? 0 : -1);
        assert_string_equal(out, os[i].eco);
    }
}

static void constraints(void **state)
{
    (void)state;
    static const struct {
        enum imx_pkg_order o;
        const char *c, *v;
        bool match;
    } cases[] = {
        { IMX_PKG_DPKG, "<3.0.13-0ubuntu3.10", "3.0.13-0ubuntu3.5", true },
        { IMX_PKG_DPKG, "<3.0.13-0ubuntu3.10", "3.0.13-0ubuntu3.10", false },
        { IMX_PKG_DPKG, "<=3.0.13-0ubuntu3.10", "3.0.13-0ubuntu3.10", true },
        { IMX_PKG_DPKG, ">=3.0, <3.0.13-0ubuntu3.6", "2.9", false },
        { IMX_PKG_DPKG, ">=3.0, <3.0.13-0ubuntu3.6", "3.0.13-0ubuntu3.5", true },
        { IMX_PKG_DPKG, "=1:2.4.1~rc1-2", "1:2.4.1~rc1-2", true },
        { IMX_PKG_DPKG, "1:2.4.1~rc1-2", "1:2.4.1-2", false },
        { IMX_PKG_DPKG, "*", "0.1", true },
        { IMX_PKG_DPKG, ">1.0", "1.0-0", false },
        { IMX_PKG_RPM, "<1:3.0.7-28.el9_4", "1:3.0.7-27.el9", true },
        { IMX_PKG_RPM, "<1:3.0.7-28.el9_4", "3.0.7-29.el9", true },
        { IMX_PKG_RPM, "<1:3.0.7-28.el9_4", "1:3.0.7-28.el9_4", false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct imx_pkg_constraint c;
        char err[200];
        assert_int_equal(imx_pkg_constraint_parse(cases[i].o, cases[i].c, &c, err, sizeof err), 0);
        if (imx_pkg_constraint_matches(cases[i].o, &c, cases[i].v) != cases[i].match)
            fail_msg("'%s' in '%s' should be %d", cases[i].v, cases[i].c, cases[i].match);
    }
    static const char *bad[] = { "",       "<",  ">=2, <1", ">1, <1",
                                 "<1.0_1", "1,", ",1",      "<1,<2,<3,<4,<5" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct imx_pkg_constraint c;
        char err[200];
        if (imx_pkg_constraint_parse(IMX_PKG_DPKG, bad[i], &c, err, sizeof err) == 0)
            fail_msg("'%s' should be refused", bad[i]);
        assert_true(err[0] != '\0');
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dpkg_order_of_real_pairs),
        cmocka_unit_test(rpm_order_of_real_pairs),
        cmocka_unit_test(versions_valid_and_invalid),
        cmocka_unit_test(ecosystems),
        cmocka_unit_test(constraints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
