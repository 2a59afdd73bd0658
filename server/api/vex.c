/* VEX out: GET /v1/images/{id}/vex and GET /v1/pins/{id}/vex (the pinned image, for the pin's
 * team) as OpenVEX 0.2.0 (format=openvex, the default) or CycloneDX 1.6 (format=cyclonedx): for
 * every advisory imaxe holds about the image, affected / fixed / not_affected from its own facts
 * (migrations/procedures/vex.sql), the image's artifacts as the product identifiers; each signed
 * (Imaxe-Signature: a detached JWS over the body, auth/docsign.c; the key at GET /v1/vex/keys).
 * Nothing in a document comes from the request's moment: the same facts give the same bytes and
 * the same signature, so a consumer can tell "unchanged" from the digest alone. */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/images_internal.h"
#include "auth/docsign.h"
#include "db/vex.h"
#include "domain/vex.h"
#include "util/config.h"

/* The name-based (version 5, RFC 9562 5.5) UUID of the facts' text in the URL namespace, as
 * "xxxxxxxx-xxxx-5xxx-yxxx-xxxxxxxxxxxx": the same facts name the same document (its OpenVEX @id,
 * its CycloneDX serialNumber), other facts another. 0, or -1 when the digest fails. */
static int facts_uuid(const char *facts, char out[37])
{
    static const unsigned char url_ns[16] = { 0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1,
                                              0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8 };
    unsigned char b[EVP_MAX_MD_SIZE];
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md && EVP_DigestInit_ex(md, EVP_sha1(), NULL) == 1 &&
             EVP_DigestUpdate(md, url_ns, sizeof url_ns) == 1 &&
             EVP_DigestUpdate(md, facts, strlen(facts)) == 1 &&
             EVP_DigestFinal_ex(md, b, NULL) == 1;
    EVP_MD_CTX_free(md);
    if (!ok)
        return -1;
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x50);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
    return 0;
}

/* Replies with the VEX document of image_id in the format the query asks for. */
static void reply_vex(struct imx_req *r, struct imx_db_conn *c, long long image_id)
{
    const char *format = imx_req_query(r, "format");
    bool cdx = format && strcmp(format, "cyclonedx") == 0;
    if (format && !cdx && strcmp(format, "openvex") != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "format must be openvex or cyclonedx");
        return;
    }
    char id[24], *text;
    snprintf(id, sizeof id, "%lld", image_id);
    enum imx_db_status rc = imx_db_image_vex_facts(c, id, &text, NULL);
    if (rc == IMX_DBS_NOT_FOUND) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such image");
        return;
    }
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return;
    }
    json_t *facts = json_loads(text, 0, NULL);
    char uuid[37];
    int named = facts_uuid(text, uuid);
    free(text);
    if (named != 0) {
        json_decref(facts);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    json_t *doc = NULL;
    if (cdx) {
        char serial[46];
        snprintf(serial, sizeof serial, "urn:uuid:%s", uuid);
        doc = imx_vex_cyclonedx(facts, serial);
    } else if (json_array_size(json_object_get(facts, "statements")) == 0) {
        json_decref(facts);
        imx_reply_problem(r, IMX_E_UNPROCESSABLE,
                          "imaxe holds no advisory about this image's components, and an OpenVEX "
                          "document needs at least one statement (format=cyclonedx has an empty "
                          "vulnerabilities list)");
        return;
    } else {
        /* The document's IRI names the image and the facts it states. */
        char doc_id[128];
        snprintf(doc_id, sizeof doc_id, "urn:imaxe:vex:image:%lld:%s", image_id, uuid);
        doc = imx_vex_openvex(facts, doc_id);
    }
    json_decref(facts);
    char *body = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!body) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    /* Signed as sent: the signature covers these bytes, the document's timestamps with them. */
    char *sig = imx_docsign_detached(body, strlen(body), cdx ? "cyclonedx+json" : "openvex+json");
    if (!sig) {
        free(body);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_reply_header(r, "Imaxe-Signature", sig);
    free(sig);
    imx_reply_raw_steal(r, 200,
                        cdx ? "application/vnd.cyclonedx+json; version=1.6" : "application/json",
                        body, strlen(body), NULL, NULL);
}

void imx_api_vex_keys(struct imx_req *r)
{
    char *jwks = imx_docsign_jwks();
    if (!jwks) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_reply_raw_steal(r, 200, "application/jwk-set+json", jwks, strlen(jwks), NULL, NULL);
}

void imx_api_image_vex(struct imx_req *r)
{
    long long id = imx_img_path_id(r);
    struct imx_db_conn *c = id ? imx_api_db_read(r) : NULL;
    if (c)
        reply_vex(r, c, id);
}

void imx_api_pin_vex(struct imx_req *r)
{
    char pin[24];
    int64_t image_id;
    struct imx_db_conn *c = imx_api_pin_image(r, pin, &image_id);
    if (c)
        reply_vex(r, c, (long long)image_id);
}
