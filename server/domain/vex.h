/* VEX documents about an image, OpenVEX 0.2.0 and CycloneDX 1.6, written from the facts
 * imx_image_vex_facts (migrations/procedures/vex.sql) gives: the image with its artifacts, and
 * one statement per advisory (affected with its fixing image, fixed, or not_affected with
 * component_not_present / vulnerable_code_not_present). Pure C: nothing here decides a status,
 * and nothing reads the clock: every timestamp written is one of the facts' (as_of, at,
 * action_at), so the same facts give the same bytes. */
#ifndef IMX_DOMAIN_VEX_H
#define IMX_DOMAIN_VEX_H

#include <jansson.h>
#include <stddef.h>

/* The identifier of one artifact of an image as a product: a container's digest as a package URL
 * (pkg:oci/NAME@sha256%3AHEX?repository_url=REPO), an AMI as its ARN
 * (arn:aws:ec2:REGION::image/AMI), anything else as urn:imaxe:artifact:PROVIDER:REGION:ID
 * (percent-encoded). Into out; 0, or -1 when it does not fit. purl: set when it is a package URL.
 */
int imx_vex_product_id(const char *provider, const char *region, const char *artifact_id, char *out,
                       size_t len, int *purl);

/* The OpenVEX document (new reference), statements per (advisory, CVE); doc_id is the document's
 * IRI. NULL when the facts are not what imx_image_vex_facts gives or hold no statement (OpenVEX
 * needs one). */
json_t *imx_vex_openvex(const json_t *facts, const char *doc_id);

/* The CycloneDX 1.6 BOM with a vulnerabilities section (new reference); serial is a urn:uuid. */
json_t *imx_vex_cyclonedx(const json_t *facts, const char *serial);

#endif
