/* OS package inventories read from SBOMs (CycloneDX 1.5/1.6 JSON, SPDX 2.3 JSON, as syft and
 * trivy write them): each deb or rpm purl (pkg:deb/ubuntu/openssl@3.0.13-0ubuntu3.5?distro=
 * ubuntu-24.04) becomes {ecosystem, name, version}. */
#ifndef IMX_DOMAIN_SBOM_H
#define IMX_DOMAIN_SBOM_H

/* Pure C over jansson values: no I/O, no shared state. */

#include <jansson.h>
#include <stddef.h>

/* Most packages one inventory may list. */
#define IMX_SBOM_PACKAGES_MAX 5000

/* "cyclonedx" for a CycloneDX 1.5 or 1.6 document (bomFormat CycloneDX), "spdx" for SPDX 2.3
 * (spdxVersion SPDX-2.3), NULL for anything else (borrowed, static). */
const char *imx_sbom_format(const json_t *doc);

/* Parses one purl of type deb or rpm into name and version (percent-decoded; an rpm purl's
 * epoch qualifier becomes the version's "E:" prefix) and ecosystem (from the namespace and the
 * distro qualifier, "ubuntu" + "ubuntu-24.04" -> "Ubuntu:24.04:LTS"; default_eco when the purl
 * names no distro version; may be NULL). Returns 1 when it is such a purl, 0 when it is another
 * type (pkg:pypi/...), -1 when it is malformed or names no ecosystem imaxe knows. */
int imx_sbom_purl(const char *purl, const char *default_eco, char *eco, size_t eco_len, char *name,
                  size_t name_len, char *version, size_t version_len);

/* The OS packages of an SBOM (imx_sbom_format must know it): a new array of {ecosystem, name,
 * version}, one per deb or rpm purl (other purls are skipped), duplicates dropped. NULL after
 * appending {pointer, detail} errors (pointers into the SBOM, prefixed by prefix, e.g. "/sbom")
 * for a purl that cannot be read or more than IMX_SBOM_PACKAGES_MAX packages. */
json_t *imx_sbom_packages(const json_t *doc, const char *default_eco, const char *prefix,
                          json_t *errors);

#endif
