/* Writing OpenVEX and CycloneDX from an image's VEX facts (see vex.h). */
#include "domain/vex.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Percent-encodes s into out (unreserved characters kept). 0, or -1 when it does not fit. */
static int pct(const char *s, char *out, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.' || c == '_' || c == '~';
        if (o + (keep ? 1 : 3) >= len)
            return -1;
        if (keep) {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
    return 0;
}

int imx_vex_product_id(const char *provider, const char *region, const char *artifact_id, char *out,
                       size_t len, int *purl)
{
    *purl = 0;
    const char *at = strstr(artifact_id, "@sha256:");
    if (strcmp(provider, "oci-container") == 0 && at && strlen(at + 8) == 64 &&
        strspn(at + 8, "0123456789abcdef") == 64 && at > artifact_id) {
        /* repository: before the '@', without a tag; name: its last path segment */
        char repo[512];
        size_t rl = (size_t)(at - artifact_id);
        if (rl >= sizeof repo)
            return -1;
        memcpy(repo, artifact_id, rl);
        repo[rl] = '\0';
        char *slash = strrchr(repo, '/');
        char *colon = strrchr(slash ? slash : repo, ':');
        if (colon)
            *colon = '\0';
        const char *name = strrchr(repo, '/') ? strrchr(repo, '/') + 1 : repo;
        char ename[256], erepo[1024];
        if (!*name || pct(name, ename, sizeof ename) != 0)
            return -1;
        /* repository_url keeps its slashes: they are part of the qualifier's value */
        size_t o = 0;
        for (const char *p = repo; *p && o + 4 < sizeof erepo; p++) {
            char one[2] = { *p, 0 }, enc[4];
            if (*p == '/') {
                erepo[o++] = '/';
            } else if (pct(one, enc, sizeof enc) == 0) {
                size_t n = strlen(enc);
                if (o + n >= sizeof erepo)
                    return -1;
                memcpy(erepo + o, enc, n);
                o += n;
            }
        }
        erepo[o] = '\0';
        *purl = 1;
        int w =
            snprintf(out, len, "pkg:oci/%s@sha256%%3A%s?repository_url=%s", ename, at + 8, erepo);
        return w < 0 || (size_t)w >= len ? -1 : 0;
    }
    if (strcmp(provider, "aws") == 0 && strncmp(artifact_id, "ami-", 4) == 0 &&
        strspn(artifact_id + 4, "0123456789abcdef") == strlen(artifact_id + 4)) {
        int w = snprintf(out, len, "arn:aws:ec2:%s::image/%s", region, artifact_id);
        return w < 0 || (size_t)w >= len ? -1 : 0;
    }
    char eid[1600], ereg[200];
    if (pct(artifact_id, eid, sizeof eid) != 0 || pct(region, ereg, sizeof ereg) != 0)
        return -1;
    int w = snprintf(out, len, "urn:imaxe:artifact:%s:%s:%s", provider, ereg, eid);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* The products of the image: one per artifact (the image's own URN when it has none). New. */
static json_t *products(const json_t *image, const json_t *components)
{
    json_t *out = json_array();
    const char *provider = json_string_value(json_object_get(image, "provider"));
    const json_t *arts = json_object_get(image, "artifacts");
    json_t *subs = json_array();
    size_t i;
    const json_t *c;
    json_array_foreach(components, i, c)
    {
        char n[200], v[200], id[512];
        if (pct(json_string_value(json_object_get(c, "name")), n, sizeof n) == 0 &&
            pct(json_string_value(json_object_get(c, "version")), v, sizeof v) == 0) {
            snprintf(id, sizeof id, "pkg:generic/%s@%s", n, v);
            json_array_append_new(subs, json_pack("{s:s}", "@id", id));
        }
    }
    const json_t *a;
    json_array_foreach(arts, i, a)
    {
        char id[2048];
        int purl;
        if (imx_vex_product_id(
                provider ? provider : "", json_string_value(json_object_get(a, "region")),
                json_string_value(json_object_get(a, "artifact_id")), id, sizeof id, &purl) != 0)
            continue;
        json_t *p = json_pack("{s:s}", "@id", id);
        if (purl)
            json_object_set_new(p, "identifiers", json_pack("{s:s}", "purl", id));
        if (json_array_size(subs))
            json_object_set(p, "subcomponents", subs);
        json_array_append_new(out, p);
    }
    if (json_array_size(out) == 0) {
        char id[64];
        snprintf(id, sizeof id, "urn:imaxe:image:%lld",
                 (long long)json_integer_value(json_object_get(image, "id")));
        json_t *p = json_pack("{s:s}", "@id", id);
        if (json_array_size(subs))
            json_object_set(p, "subcomponents", subs);
        json_array_append_new(out, p);
    }
    json_decref(subs);
    return out;
}

/* What to do about an affected statement. */
static void action_of(const json_t *st, char *out, size_t len)
{
    const json_t *fx = json_object_get(st, "fixed_by");
    if (json_is_object(fx))
        snprintf(out, len,
                 "Move to image %lld (%s %s), the oldest newer active image of the family that "
                 "%s does not affect.",
                 (long long)json_integer_value(json_object_get(fx, "id")),
                 json_string_value(json_object_get(fx, "family")),
                 json_string_value(json_object_get(fx, "version")),
                 json_string_value(json_object_get(st, "advisory")));
    else
        snprintf(out, len,
                 "No active image of the family is free of %s yet; follow the advisory, and "
                 "imaxe announces the fixing image with patch.available.",
                 json_string_value(json_object_get(st, "advisory")));
}

/* The vulnerability names of a statement: its CVEs, or the advisory id when it lists none. */
static json_t *names_of(const json_t *st)
{
    const json_t *cves = json_object_get(st, "cves");
    if (json_array_size(cves))
        return json_incref((json_t *)cves);
    return json_pack("[O]", json_object_get(st, "advisory"));
}

json_t *imx_vex_openvex(const json_t *facts, const char *doc_id)
{
    const json_t *image = json_object_get(facts, "image");
    const json_t *sts = json_object_get(facts, "statements");
    /* The facts' latest time, never the clock: the same facts write the same bytes. */
    const char *now = json_string_value(json_object_get(facts, "as_of"));
    if (!json_is_object(image) || !json_is_array(sts) || !now || json_array_size(sts) == 0)
        return NULL;
    json_t *out = json_array();
    size_t i;
    const json_t *st;
    json_array_foreach(sts, i, st)
    {
        const char *status = json_string_value(json_object_get(st, "status"));
        const char *adv = json_string_value(json_object_get(st, "advisory"));
        const char *at = json_string_value(json_object_get(st, "at"));
        json_t *names = names_of(st);
        size_t k;
        const json_t *name;
        json_array_foreach(names, k, name)
        {
            json_t *vuln = json_pack("{s:O}", "name", name);
            if (strcmp(json_string_value(name), adv) != 0)
                json_object_set_new(vuln, "aliases", json_pack("[s]", adv));
            const char *title = json_string_value(json_object_get(st, "title"));
            if (title)
                json_object_set_new(vuln, "description", json_string(title));
            json_t *s = json_pack("{s:o, s:s, s:o, s:s, s:s}", "vulnerability", vuln, "timestamp",
                                  at ? at : now, "products",
                                  products(image, json_object_get(st, "components")), "status",
                                  status, "supplier", "imaxe");
            const char *just = json_string_value(json_object_get(st, "justification"));
            if (just)
                json_object_set_new(s, "justification", json_string(just));
            if (strcmp(status, "affected") == 0) {
                char action[512];
                action_of(st, action, sizeof action);
                json_object_set_new(s, "action_statement", json_string(action));
                const char *action_at = json_string_value(json_object_get(st, "action_at"));
                json_object_set_new(s, "action_statement_timestamp",
                                    json_string(action_at ? action_at : now));
            }
            json_array_append_new(out, s);
        }
        json_decref(names);
    }
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:o}", "@context",
                     "https://openvex.dev/ns/v0.2.0", "@id", doc_id, "author", "imaxe", "role",
                     "Catalog service", "timestamp", now, "version", 1, "tooling",
                     "imaxe: statements from its advisories and the image's components",
                     "statements", out);
}

json_t *imx_vex_cyclonedx(const json_t *facts, const char *serial)
{
    const json_t *image = json_object_get(facts, "image");
    const json_t *sts = json_object_get(facts, "statements");
    const char *now = json_string_value(json_object_get(facts, "as_of"));
    if (!json_is_object(image) || !json_is_array(sts) || !now)
        return NULL;
    const char *provider = json_string_value(json_object_get(image, "provider"));
    bool container = provider && strcmp(provider, "oci-container") == 0;
    char ref[64];
    snprintf(ref, sizeof ref, "image:%lld",
             (long long)json_integer_value(json_object_get(image, "id")));
    json_t *main = json_pack("{s:s, s:s, s:O, s:O}", "type", container ? "container" : "platform",
                             "bom-ref", ref, "name", json_object_get(image, "family"), "version",
                             json_object_get(image, "version"));
    json_t *props = json_array();
    size_t i;
    const json_t *a;
    json_array_foreach(json_object_get(image, "artifacts"), i, a)
    {
        char id[2048];
        int purl;
        if (imx_vex_product_id(
                provider ? provider : "", json_string_value(json_object_get(a, "region")),
                json_string_value(json_object_get(a, "artifact_id")), id, sizeof id, &purl) != 0)
            continue;
        if (purl && !json_object_get(main, "purl"))
            json_object_set_new(main, "purl", json_string(id));
        json_array_append_new(props,
                              json_pack("{s:s, s:s}", "name", "imaxe:artifact", "value", id));
    }
    if (json_array_size(props))
        json_object_set_new(main, "properties", props);
    else
        json_decref(props);

    json_t *components = json_array(), *seen = json_object(), *vulns = json_array();
    const json_t *st;
    json_array_foreach(sts, i, st)
    {
        const char *status = json_string_value(json_object_get(st, "status"));
        const char *adv = json_string_value(json_object_get(st, "advisory"));
        const char *at = json_string_value(json_object_get(st, "at"));
        json_t *affects = json_pack("[{s:s}]", "ref", ref);
        size_t k;
        const json_t *c;
        json_array_foreach(json_object_get(st, "components"), k, c)
        {
            const char *n = json_string_value(json_object_get(c, "name"));
            const char *v = json_string_value(json_object_get(c, "version"));
            char cref[300];
            snprintf(cref, sizeof cref, "component:%s@%s", n, v);
            if (!json_object_get(seen, cref)) {
                json_object_set_new(seen, cref, json_true());
                json_array_append_new(components,
                                      json_pack("{s:s, s:s, s:s, s:s}", "type", "library",
                                                "bom-ref", cref, "name", n, "version", v));
            }
            json_array_append_new(affects, json_pack("{s:s}", "ref", cref));
        }
        json_t *analysis = json_pack("{s:s, s:s, s:s}", "state",
                                     strcmp(status, "affected") == 0 ? "exploitable"
                                     : strcmp(status, "fixed") == 0  ? "resolved"
                                                                     : "not_affected",
                                     "firstIssued", at ? at : now, "lastUpdated", at ? at : now);
        const char *just = json_string_value(json_object_get(st, "justification"));
        char detail[600];
        if (just) {
            /* CycloneDX has no "component not present": the code is not there either way. */
            json_object_set_new(analysis, "justification", json_string("code_not_present"));
            snprintf(detail, sizeof detail, "OpenVEX justification %s.", just);
            json_object_set_new(analysis, "detail", json_string(detail));
        } else if (strcmp(status, "affected") == 0) {
            action_of(st, detail, sizeof detail);
            json_object_set_new(analysis, "detail", json_string(detail));
            if (json_is_object(json_object_get(st, "fixed_by")))
                json_object_set_new(analysis, "response", json_pack("[s]", "update"));
        }
        json_t *names = names_of(st);
        const json_t *name;
        json_array_foreach(names, k, name)
        {
            char vref[300];
            snprintf(vref, sizeof vref, "%s/%s", adv, json_string_value(name));
            json_t *v =
                json_pack("{s:s, s:O, s:{s:s}, s:O, s:O}", "bom-ref", vref, "id", name, "source",
                          "name", "imaxe", "analysis", analysis, "affects", affects);
            const char *title = json_string_value(json_object_get(st, "title"));
            if (title)
                json_object_set_new(v, "description", json_string(title));
            if (strcmp(json_string_value(name), adv) != 0)
                json_object_set_new(
                    v, "references",
                    json_pack("[{s:s, s:{s:s}}]", "id", adv, "source", "name", "imaxe"));
            if (strcmp(status, "affected") == 0) {
                action_of(st, detail, sizeof detail);
                json_object_set_new(v, "recommendation", json_string(detail));
            }
            json_array_append_new(vulns, v);
        }
        json_decref(names);
        json_decref(analysis);
        json_decref(affects);
    }
    json_decref(seen);
    json_t *bom = json_pack("{s:s, s:s, s:s, s:i, s:{s:s, s:{s:[{s:s, s:s}]}, s:o}, s:o, s:o}",
                            "bomFormat", "CycloneDX", "specVersion", "1.6", "serialNumber", serial,
                            "version", 1, "metadata", "timestamp", now, "tools", "components",
                            "type", "application", "name", "imaxe", "component", main, "components",
                            components, "vulnerabilities", vulns);
    return bom;
}
