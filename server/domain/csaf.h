/* CSAF 2.0 security advisories (NVIDIA's bulletins) mapped to imaxe advisories: each product of
 * the product tree is mapped to an imaxe component through reference rows (ref_nvidia_product),
 * and the affected and fixed versions NVIDIA writes as product names ("All driver versions prior
 * to 580.126.09") become constraints in imaxe's syntax (">=580, <580.126.09"). */
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
    IMX_CSAF_BELOW, /* "All driver versions prior to 580.126.09", "2.3.x and earlier" (< 2.4):
                     * < hi (>= lo when lo is set: "All 2.9 versions prior to 2.9.3", "1.17.x") */
    IMX_CSAF_UPTO,  /* "All versions up to and including 1.19.0", "1.17.3 and earlier",
                     * "2.1 or below", "0.0  to 4.5.2": <= hi (stored with hi's builds, as
                     * SPAN's and EXACT's: imx_csaf_builds_bound) */
    IMX_CSAF_SPAN,  /* "2.18.1 to 2.21.5", "0.0 - 2.0" from a lower bound that is not 0: >= lo,
                     * <= hi */
    IMX_CSAF_EXACT, /* "580.126.09", "CUDA Toolkit 13.1", "v1.17.8", "r26.03": the version hi
                     * (as affected, with its builds: imx_csaf_builds_bound; "38.2" is its
                     * release line) */
    IMX_CSAF_ALL,   /* "All versions": everything */
    IMX_CSAF_FROM,  /* "35.6.3 and newer", "25.10.6 or newer" (a fixed product): >= hi */
    IMX_CSAF_LIST,  /* "2.3.4 and 2.3.5": each version of list */
    /* a version named by a code commit (commit, commit_role): "All versions that do not include
     * code commit 9e95f50", "Any code branch that includes commit 5dd11f4", "08e0633", "0.0 to
     * 5dd11f4" */
    IMX_CSAF_COMMIT,
};

/* What a commit form says of the versions it names. */
enum imx_csaf_commit_role {
    IMX_CSAF_WITHOUT, /* the versions that do not include the commit (affected: all before it) */
    IMX_CSAF_WITH,    /* the versions that include it ("Any code branch that includes ...", a
                       * bare commit id: a fix) */
    IMX_CSAF_THROUGH, /* the versions up to and including it ("0.0 to 5dd11f4") */
};

#define IMX_CSAF_COMMIT_MAX 40 /* a full commit id; NVIDIA writes 7 digits */

#define IMX_CSAF_LIST_MAX 8

struct imx_csaf_version_form {
    enum imx_csaf_form form;
    char lo[IMX_VER_TEXT_MAX + 1]; /* SPAN; BELOW and UPTO when bounded below ("" otherwise) */
    char hi[IMX_VER_TEXT_MAX + 1]; /* every form but ALL; LIST: the lowest */
    char list[IMX_CSAF_LIST_MAX][IMX_VER_TEXT_MAX + 1]; /* LIST only */
    int nlist;
    bool qualified; /* a qualifier was dropped: "(CDI mode only ...)", "for support of ..." */
    bool line;      /* BELOW written as a release line ("1.17.x"): lo is its first version */
    char commit[IMX_CSAF_COMMIT_MAX + 1];  /* COMMIT: 7 to 40 lower-case hex digits */
    enum imx_csaf_commit_role commit_role; /* COMMIT only */
};

/* Parses one product version name. product (may be NULL) is the product it belongs to
 * ("NVIDIA CUDA Toolkit"), whose words some spellings repeat before the version ("CUDA Toolkit
 * 13.1", "nvJPEG 25.03"). Case, runs of spaces, a leading "v" or "r" on a version, filler words
 * ("all", "driver", "versions", "release", "LTS"), the words naming what the versions are of
 * ("All BMC firmware versions prior to"), a label ending in ':' ("JP5.x:") and a qualifier (in
 * parentheses, a second sentence, a trailing "for ..." or "only ...") do not matter; an en dash
 * is a dash; "12.9 Update 1" and "12.9 U1" are 12.9.1 (but "R580 Update 7" names no version),
 * "v1.3.0 rc16", "1.3.0-rc16" and "1.3.0-rc.16" are 1.3.0rc16, "1.17.x" is the 1.17 line, a list
 * may be joined by "and", "or" or "/", and a version after "JetPack" (numbered apart from Jetson
 * Linux) is refused. NVIDIA's
 * vGPU spelling "580.105.08(All versions prior to and including vGPU 19.3)" is up to 580.105.08
 * and "580.126.09(vGPU 19.4)" is 580.126.09. A fix named by a code commit is a COMMIT form (the
 * import reads it through ref_commit_release); a commit is 7 to 40 hex digits after "commit", or
 * alone when it has a letter (an all-digit one is a version). Anything else that is not one of the
 * forms is refused rather than guessed. Returns 0 with *out filled, or -1. */
int imx_csaf_parse_form(const char *text, const char *product, struct imx_csaf_version_form *out);

/* The exclusive upper bound that stands for "X and its builds" where a bulletin names X as
 * affected exactly ("0.8.0") or as its last affected version ("up to and including 470.82",
 * "2.18.1 to 2.21.5"): NVIDIA ships builds below the next version (nvjpeg2000 0.8.0.38, vGPU
 * guest driver 470.82.01 beside manager 470.82, CUDA 12.6.0), and "12.6" is no less inclusive of
 * 12.6.x than "12.x" is. The bound is the lower of the first pre-release of next(X), X's last
 * number plus one ("0.8.1dev0", the lowest key of 0.8.1's pre-releases, so 0.8.1rc1 is not X's
 * build; plain next(X) where the keys hold no pre-release of it: five parts or more, or X itself
 * a pre-release, "1.3.0rc14" -> "1.3.0rc15"), and fix when it lies above X and below that ("up to
 * and including 12.6" fixed in 12.6.1: "12.6.1", whose own pre-releases stay below it, as "prior
 * to 12.6.1" reads them). Writes it to out; returns 0, or -1 when X has
 * no number to bump that orders ("2.1.0-beta", "2.6.0+cu124": the caller keeps X inclusive) or
 * out is too small. */
int imx_csaf_builds_bound(const char *x, const char *fix, char *out, size_t len);

/* What the advisory body cannot carry (yet): the bulletin's revision and its CVSS v4.0 score. */
struct imx_csaf_meta {
    const char *tracking_id; /* borrowed from the document: "5747" */
    const char *version;     /* borrowed: "1.0.0" */
    double cvss_v4;          /* highest v4.0 base score of the imported CVEs; -1 when none */
};

/* The platform a product's architecture branch names: "linux" ("Linux(R580)", "All",
 * "Windows, Linux"), "windows", "macos", "vgpu-host" (a hypervisor with vGPU), "vgpu-guest"
 * ("Linux(R580 vGPU 19)"), "cloud-gaming", "jetson" ("Jetson Linux(36)"). Borrowed static text. */
const char *imx_csaf_platform(const char *architecture);

/* Maps a CSAF 2.0 document to an advisory body of POST /v1/advisories:
 * {"id","title","published","severity","cvss","cves","url","affected":[{"component","range",
 * "fixed"}],"unmapped":[{"product","text","why"}],"warnings":[{"product","text","warning"}]}.
 * id is "NVIDIA-" + document.tracking.id for NVIDIA's bulletins (else the tracking id);
 * published the date of tracking.initial_release_date; severity aggregate_severity.text, else
 * the band of the highest score; cvss the highest CVSS v3.x base score, else v4.0; url the first
 * "self" reference, else for NVIDIA the bulletin's file in github.com/NVIDIA/product-security.
 *
 * map (borrowed; may be NULL: nothing maps) is ref_nvidia_product as rows {"match", "platform",
 * "component" (null: not tracked), "branched" ("true"/"false" or a boolean), "notes", "aliases"
 * (optional: [[own version, release]], ref_version_alias), "commits" (optional: [[commit, first
 * release or null, as_of date, status]], ref_commit_release)}. Each
 * known_affected product of a vulnerability is found in it by the product field of its CPE
 * ("cpe:tesla"), a prefix of that ("cpe-prefix:jetson") or its lower-case name ("name:..."), on
 * the platform of its architecture (a row's own platform before "any"). A mapped product whose
 * version name parses gives one range, and its fixed version is the lowest fixed product of the
 * same architecture and product (and branch) in that vulnerability that is not inside the range;
 * when every one is inside it, the range ends before the lowest (NVIDIA's "0.0 to 4.8.2" fixed
 * in "4.8.2") and a warning says so. Every other known_affected product is listed once in
 * unmapped, with why. A product whose row has aliases is numbered two ways (Triton: server 2.40.0
 * is NGC release 23.11): a version in its own numbering (a major of the own versions, none of the
 * releases) is read as the release standing for it, with a warning that says so, and a product
 * whose version no release stands for is unmapped. A product whose row has commits
 * ([[commit, first release or null, as_of]], ref_commit_release) reads a version named by a commit
 * (a prefix of one of them) as that release: "not include commit X" is every version before the
 * first release containing X, "includes commit X" that release on, with a warning that says so;
 * while no release contains X (or the table has no row for it) the product is unmapped, saying
 * which. "affected" may be empty: a bulletin about
 * nothing imaxe tracks. CVEs and scores are those of the vulnerabilities with a range (all of them
 * when none has one).
 *
 * The cost is linear in the document: product ids and products are indexed once. Returns a new
 * object, or NULL after appending {pointer, detail} errors to errors for a document that is not
 * a bulletin (no id, title, date or severity). meta (may be NULL) receives the revision and the
 * v4.0 score. */
json_t *imx_csaf_to_advisory(const json_t *doc, const json_t *map, json_t *errors,
                             struct imx_csaf_meta *meta);

#endif
