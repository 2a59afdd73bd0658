/* OSV (osv.dev) vulnerability documents mapped to imaxe advisories: each ECOSYSTEM/SEMVER range's
 * introduced/fixed/last_affected events become constraints in imaxe's syntax. */
#ifndef IMX_DOMAIN_OSV_H
#define IMX_DOMAIN_OSV_H

/* Pure C over jansson values: no I/O, no shared state. */

#include <jansson.h>
#include <stdbool.h>

/* Does doc look like an OSV document (a top-level "schema_version" string)? */
bool imx_osv_is_osv(const json_t *doc);

/* Maps an OSV document to an advisory body of POST /v1/advisories:
 * {"id","title","published","severity","cves","url","affected":[{"component","range","fixed"}]}
 * (cvss is never set: OSV carries CVSS vectors, not scores). id is the OSV id; title its summary
 * (else its id); published the date part of "published"; severity database_specific.severity
 * (LOW/MODERATE/MEDIUM/HIGH/CRITICAL) or, failing that, the first affected[].ecosystem_specific
 * or database_specific severity, or an Ubuntu USN's severity[{type: Ubuntu, score}]; cves the CVE
 * ids among id, aliases and upstream (USNs); url the first ADVISORY reference, else the first
 * reference. Each ECOSYSTEM or SEMVER range of each affected package gives one entry per
 * introduced..end interval: introduced "0" is unbounded below; fixed F closes with "<F" (and sets
 * "fixed"); last_affected L with "<=L"; an open interval has no upper bound. GIT ranges are
 * ignored. When affected[].package.ecosystem is a distro's (imx_pkg_ecosystem_order: Ubuntu,
 * Debian, Rocky Linux, AlmaLinux, Amazon Linux...), each entry is instead
 * {"ecosystem","package","range"[,"fixed"]} over that distro's package versions, repeated for
 * every other binary package that ecosystem_specific.binaries[].binary_name lists (Ubuntu's
 * OSV names the source package). Returns a new object, or NULL after appending {pointer, detail}
 * errors (pointers into the OSV document) to errors. */
json_t *imx_osv_to_advisory(const json_t *doc, json_t *errors);

#endif
