/* SBOMs (CycloneDX, SPDX) to OS package inventories, through their purls (package-url spec:
 * pkg:type/namespace/name@version?qualifiers#subpath). */
#include "domain/sbom.h"
#include "util/budget.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "domain/pkgver.h"

/* Longest purl looked at. */
#define PURL_MAX 1024
/* Depth of nested CycloneDX components followed. */
#define NEST_MAX 4

const char *imx_sbom_format(const json_t *doc)
{
    const char *bom = json_string_value(json_object_get(doc, "bomFormat"));
    const char *spec = json_string_value(json_object_get(doc, "specVersion"));
    if (bom && strcmp(bom, "CycloneDX") == 0 && spec &&
        (strcmp(spec, "1.5") == 0 || strcmp(spec, "1.6") == 0))
        return "cyclonedx";
    const char *spdx = json_string_value(json_object_get(doc, "spdxVersion"));
    if (spdx && strcmp(spdx, "SPDX-2.3") == 0)
        return "spdx";
    return NULL;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decodes s[0..n) into out (len bytes); false when malformed, too long or not plain
 * printable ASCII. */
static bool decode(const char *s, size_t n, char *out, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (c == '%') {
            if (i + 2 >= n)
                return false;
            int h = hexval(s[i + 1]), l = hexval(s[i + 2]);
            if (h < 0 || l < 0)
                return false;
            c = h * 16 + l;
            i += 2;
        }
        if (c <= 0x20 || c >= 0x7f || o + 1 >= len)
            return false;
        out[o++] = (char)c;
    }
    if (o == 0)
        return false;
    out[o] = '\0';
    return true;
}

/* The value of qualifier key in q[0..n) ("a=1&b=2"), decoded into out; false when absent. */
static bool qualifier(const char *q, size_t n, const char *key, char *out, size_t len)
{
    size_t kn = strlen(key);
    const char *p = q, *end = q + n;
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp ? amp : end;
        if ((size_t)(stop - p) > kn && strncmp(p, key, kn) == 0 && p[kn] == '=')
            return decode(p + kn + 1, (size_t)(stop - p - kn - 1), out, len);
        p = stop + 1;
    }
    return false;
}

int imx_sbom_purl(const char *purl, const char *default_eco, char *eco, size_t eco_len, char *name,
                  size_t name_len, char *version, size_t version_len)
{
    eco[0] = name[0] = version[0] = '\0';
    size_t n = purl ? strlen(purl) : 0;
    if (n < 5 || strncmp(purl, "pkg:", 4) != 0)
        return -1;
    const char *t = purl + 4;
    /* The type is case-insensitive (its canonical form lower case): pkg:DEB/ is pkg:deb/. */
    bool deb = strncasecmp(t, "deb/", 4) == 0, rpm = strncasecmp(t, "rpm/", 4) == 0;
    if (!deb && !rpm)
        return strchr(t, '/') ? 0 : -1;
    if (n > PURL_MAX)
        return -1;
    const char *path = t + 4;
    const char *hash = strchr(path, '#');
    const char *end = hash ? hash : purl + n;
    const char *qm = memchr(path, '?', (size_t)(end - path));
    const char *q = qm ? qm + 1 : end;
    size_t qn = (size_t)(end - q);
    const char *pend = qm ? qm : end;
    const char *at = NULL;
    for (const char *p = path; p < pend; p++)
        if (*p == '@')
            at = p;
    if (!at)
        return -1;
    const char *slash = NULL;
    for (const char *p = path; p < at; p++)
        if (*p == '/')
            slash = p;
    const char *nm = slash ? slash + 1 : path;
    char ns[64] = "";
    if (slash && !decode(path, (size_t)(slash - path), ns, sizeof ns))
        return -1;
    if (!decode(nm, (size_t)(at - nm), name, name_len) || !imx_pkg_name_ok(name))
        return -1;
    char v[IMX_PKGVER_TEXT_MAX + 1];
    if (!decode(at + 1, (size_t)(pend - at - 1), v, sizeof v))
        return -1;
    char epoch[16];
    if (rpm && !strchr(v, ':') && qualifier(q, qn, "epoch", epoch, sizeof epoch) &&
        strcmp(epoch, "0") != 0) {
        if ((size_t)snprintf(version, version_len, "%s:%s", epoch, v) >= version_len)
            return -1;
    } else if ((size_t)snprintf(version, version_len, "%s", v) >= version_len) {
        return -1;
    }
    /* The distro qualifier, "ubuntu-24.04", names the ecosystem; else the default. */
    char distro[64];
    if (qualifier(q, qn, "distro", distro, sizeof distro)) {
        char *dash = strchr(distro, '-');
        if (dash) {
            *dash = '\0';
            if (imx_pkg_ecosystem_of_os(distro, dash + 1, eco, eco_len) != 0)
                eco[0] = '\0';
        }
    }
    if (!eco[0] && default_eco)
        snprintf(eco, eco_len, "%s", default_eco);
    enum imx_pkg_order order = imx_pkg_ecosystem_order(eco);
    if (!order || order != (deb ? IMX_PKG_DPKG : IMX_PKG_RPM) || !imx_pkgver_valid(order, version))
        return -1;
    return 1;
}

struct collect {
    const char *default_eco, *prefix;
    json_t *out, *seen, *errors;
    bool full;
    size_t bad; /* purls that could not be read; the first SBOM_ERRORS_SHOWN are listed */
    bool spent; /* the request's work budget ran out (util/budget.h) */
};

/* How many unreadable purls an SBOM's errors name one by one: past it one error counts the rest,
 * so a document of 30,000 bad purls costs 30,000 checks, not 30,000 errors held and answered. */
#define SBOM_ERRORS_SHOWN 50

static void take(struct collect *c, const char *purl, const char *ptr)
{
    char eco[IMX_PKG_ECOSYSTEM_MAX + 1], name[IMX_PKG_NAME_MAX + 1],
        version[IMX_PKGVER_TEXT_MAX + 1];
    char p[300];
    int rc = imx_sbom_purl(purl, c->default_eco, eco, sizeof eco, name, sizeof name, version,
                           sizeof version);
    if (rc == 0)
        return;
    snprintf(p, sizeof p, "%s%s", c->prefix, ptr);
    if (rc < 0) {
        if (c->bad++ >= SBOM_ERRORS_SHOWN)
            return;
        json_array_append_new(
            c->errors,
            json_pack("{s:s, s:s}", "pointer", p, "detail",
                      "is not a deb or rpm purl of a known distro with a valid version (such "
                      "as pkg:deb/ubuntu/openssl@3.0.13-0ubuntu3.5?distro=ubuntu-24.04)"));
        return;
    }
    char key[IMX_PKG_ECOSYSTEM_MAX + IMX_PKG_NAME_MAX + IMX_PKGVER_TEXT_MAX + 3];
    snprintf(key, sizeof key, "%s\n%s\n%s", eco, name, version);
    if (json_object_get(c->seen, key))
        return;
    if (json_array_size(c->out) >= IMX_SBOM_PACKAGES_MAX) {
        if (!c->full)
            json_array_append_new(c->errors, json_pack("{s:s, s:s}", "pointer", c->prefix, "detail",
                                                       "lists more than 5000 packages"));
        c->full = true;
        return;
    }
    json_object_set_new(c->seen, key, json_true());
    json_array_append_new(
        c->out, json_pack("{s:s, s:s, s:s}", "ecosystem", eco, "name", name, "version", version));
}

static void cyclonedx(struct collect *c, const json_t *components, const char *ptr, int depth)
{
    size_t i;
    json_t *e;
    char p[256];
    if (depth > NEST_MAX)
        return;
    json_array_foreach(components, i, e)
    {
        if (imx_budget_spent()) {
            c->spent = true;
            return;
        }
        const char *purl = json_string_value(json_object_get(e, "purl"));
        if (purl) {
            snprintf(p, sizeof p, "%s/%zu/purl", ptr, i);
            take(c, purl, p);
        }
        json_t *sub = json_object_get(e, "components");
        if (json_is_array(sub)) {
            snprintf(p, sizeof p, "%s/%zu/components", ptr, i);
            cyclonedx(c, sub, p, depth + 1);
        }
    }
}

static void spdx(struct collect *c, const json_t *packages)
{
    size_t i, k;
    json_t *e, *ref;
    char p[256];
    json_array_foreach(packages, i, e)
    {
        if (imx_budget_spent()) {
            c->spent = true;
            return;
        }
        json_array_foreach(json_object_get(e, "externalRefs"), k, ref)
        {
            const char *type = json_string_value(json_object_get(ref, "referenceType"));
            const char *loc = json_string_value(json_object_get(ref, "referenceLocator"));
            if (type && loc && strcmp(type, "purl") == 0) {
                snprintf(p, sizeof p, "/packages/%zu/externalRefs/%zu/referenceLocator", i, k);
                take(c, loc, p);
            }
        }
    }
}

json_t *imx_sbom_packages(const json_t *doc, const char *default_eco, const char *prefix,
                          json_t *errors)
{
    const char *format = imx_sbom_format(doc);
    size_t before = json_array_size(errors);
    struct collect c = {
        default_eco, prefix ? prefix : "", json_array(), json_object(), errors, false, 0, false
    };
    if (!format)
        json_array_append_new(
            errors, json_pack("{s:s, s:s}", "pointer", c.prefix, "detail",
                              "must be a CycloneDX 1.5 or 1.6 or an SPDX 2.3 JSON document"));
    else if (strcmp(format, "cyclonedx") == 0)
        cyclonedx(&c, json_object_get(doc, "components"), "/components", 0);
    else
        spdx(&c, json_object_get(doc, "packages"));
    json_decref(c.seen);
    if (c.spent)
        json_array_append_new(
            errors, json_pack("{s:s, s:s}", "pointer", c.prefix, "detail", IMX_BUDGET_SPENT_TEXT));
    if (c.bad > SBOM_ERRORS_SHOWN) {
        char d[160];
        snprintf(d, sizeof d, "and %zu more purls that cannot be read (%zu in all)",
                 c.bad - SBOM_ERRORS_SHOWN, c.bad);
        json_array_append_new(errors, json_pack("{s:s, s:s}", "pointer", c.prefix, "detail", d));
    }
    if (json_array_size(errors) > before) {
        json_decref(c.out);
        return NULL;
    }
    return c.out;
}
