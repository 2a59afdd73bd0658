/* The exploitation feeds imaxe imports, read and checked before anything is stored: CISA's
 * Known Exploited Vulnerabilities catalog (JSON) and FIRST's daily EPSS scores (CSV). Pure C:
 * the database use cases are migrations/procedures/risk_feeds.sql. */
#ifndef IMX_DOMAIN_RISK_FEEDS_H
#define IMX_DOMAIN_RISK_FEEDS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Bounds: the real catalog holds about 1,400 entries and a day of EPSS about 300,000 rows. */
#define IMX_KEV_ENTRIES_MAX 50000
#define IMX_EPSS_ROWS_MAX   1000000
#define IMX_FEED_TEXT_MAX   500 /* vendorProject, product, vulnerabilityName */

/* Is s a CVE id as NVD writes it (CVE-YYYY-NNNN..., 4 to 19 digits)? */
bool imx_cve_ok(const char *s);

/* Reads a KEV catalog ({"catalogVersion", "dateReleased", "vulnerabilities": [{"cveID",
 * "vendorProject", "product", "vulnerabilityName", "dateAdded", "dueDate",
 * "knownRansomwareCampaignUse", ...}]}; other members are ignored) into the document
 * imx_kev_import takes: {"catalog_version", "date_released", "entries": [{cve, vendor, product,
 * name, date_added, due_date|null, ransomware}]}. New reference, or NULL with the first fault's
 * JSON pointer in ptr and what is wrong in msg. */
json_t *imx_kev_read(const json_t *catalog, char *ptr, size_t ptrlen, char *msg, size_t msglen);

/* One day of EPSS scores, as PostgreSQL array literals ready for imx_epss_import. */
struct imx_epss {
    char model_version[65];
    char score_date[11]; /* YYYY-MM-DD */
    size_t rows;
    char *cves, *scores, *percentiles; /* "{CVE-...,...}", "{0.00043,...}": new, imx_epss_free */
};

/* Reads FIRST's CSV: a first line "#model_version:V,score_date:YYYY-MM-DD[THH:MM:SS...]", a
 * header "cve,epss,percentile", then one row a CVE (scores between 0 and 1), LF or CRLF, at most
 * IMX_EPSS_ROWS_MAX rows. 0, or -1 with what is wrong (and the line) in err; out is freed on
 * failure. */
int imx_epss_read(const char *text, size_t len, struct imx_epss *out, char *err, size_t errlen);
void imx_epss_free(struct imx_epss *e);

#endif
