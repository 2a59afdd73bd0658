/* CSAF 2.0 security advisories (NVIDIA's bulletins) mapped to imaxe advisories: the affected and
 * fixed versions NVIDIA writes as product names ("All driver versions prior to 580.126.09") become
 * constraints in imaxe's syntax (">=580, <580.126.09"). */
#ifndef IMX_DOMAIN_CSAF_H
#define IMX_DOMAIN_CSAF_H

/* Pure C over jansson values: no I/O, no shared state. */

#include <jansson.h>
#include <stdbool.h>

#include "domain/version.h"

/* Does doc look like a CSAF document (a string document.csaf_version)? */
bool imx_csaf_is_csaf(const json_t *doc);

/* The forms a product version name takes. */
enum imx_csaf_form {
    IMX_CSAF_BELOW, /* "All driver versions prior to 580.126.09": < hi */
    IMX_CSAF_UPTO,  /* "All versions up to and including 1.19.0", "1.17.3 and earlier": <= hi */
    IMX_CSAF_SPAN,  /* "0.0  to 4.5.2", "from 2.18.1 to 2.21.5": >= lo, <= hi */
    IMX_CSAF_EXACT, /* "580.126.09", "CUDA Toolkit 13.1", "v1.17.8": the version hi */
    IMX_CSAF_ALL,   /* "All versions": everything */
};

struct imx_csaf_version_form {
    enum imx_csaf_form form;
    char lo[IMX_VER_TEXT_MAX + 1]; /* SPAN only */
    char hi[IMX_VER_TEXT_MAX + 1]; /* every form but ALL */
};

/* Parses one product version name. product (may be NULL) is the product it belongs to ("CUDA
 * Toolkit"), which some spellings repeat before the version. Case, runs of spaces, a leading "v"
 * and filler words ("all", "driver", "versions") do not matter; anything else that is not one of
 * the forms is refused rather than guessed. Versions are dotted numbers. Returns 0 with *out
 * filled, or -1. */
int imx_csaf_parse_form(const char *text, const char *product, struct imx_csaf_version_form *out);

/* What the advisory body cannot carry (yet): the bulletin's revision and its CVSS v4.0 score. */
struct imx_csaf_meta {
    const char *tracking_id; /* borrowed from the document: "5747" */
    const char *version;     /* borrowed: "1.0.0" */
    double cvss_v4;          /* highest v4.0 base score of the imported CVEs; -1 when none */
};

/* Maps a CSAF 2.0 document to an advisory body of POST /v1/advisories:
 * {"id","title","published","severity","cvss","cves","url","affected":[{"component","range",
 * "fixed"}]}. id is "NVIDIA-" + document.tracking.id for NVIDIA's bulletins (else the tracking
 * id); published the date of tracking.initial_release_date; severity aggregate_severity.text,
 * else the band of the highest score; cvss the highest CVSS v3.x base score, else v4.0; url the
 * first "self" reference, else for NVIDIA the bulletin's file in
 * github.com/NVIDIA/product-security.
 *
 * Taken from the product tree: Linux data-centre drivers (product "Tesla" or "Data Center" under
 * an architecture "Linux(R580)": nvidia-driver, the range bounded below by the branch), the NVIDIA
 * Container Toolkit, the CUDA Toolkit, DCGM and NCCL on Linux. Windows, GeForce / RTX / Quadro,
 * vGPU guest drivers, vGPU managers and any other product are left out, as are the CVEs that
 * affect only those. Each known_affected product of a vulnerability gives one range whose fixed
 * version is the fixed product of the same branch and product, when the vulnerability lists one.
 *
 * Returns a new object, or NULL after appending {pointer, detail} errors to errors: a version
 * name not understood names the product and its branch ("Linux(R580) > Tesla"). meta (may be
 * NULL) receives the revision and the v4.0 score. */
json_t *imx_csaf_to_advisory(const json_t *doc, json_t *errors, struct imx_csaf_meta *meta);

#endif
