/* Drift between a node's report and its image's manifest (see drift.h). */
#include "domain/drift.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "domain/pkgver.h"

#define VER_MAX 64

bool imx_drift_version_matches(const char *node, const char *image)
{
    size_t n = strlen(node);
    if (strcmp(node, image) == 0)
        return true;
    return n > 0 && strncmp(node, image, n) == 0 && image[n] == '.';
}

bool imx_drift_state_counts(const char *state)
{
    return state && (strcmp(state, "differs") == 0 || strcmp(state, "missing") == 0 ||
                     strcmp(state, "older") == 0);
}

/* Appends a row unless the table is full (then one "truncated" row, once). */
static void append_row(json_t *rows, json_t *row)
{
    size_t n = json_array_size(rows);
    if (n < IMX_DRIFT_ROWS_MAX) {
        json_array_append_new(rows, row);
        return;
    }
    json_decref(row);
    if (n == IMX_DRIFT_ROWS_MAX)
        json_array_append_new(rows,
                              json_pack("{s:s, s:s}", "name", "(truncated)", "state", "truncated"));
}

static void add_row(json_t *rows, const char *name, const char *image, const char *node,
                    bool *drift)
{
    const char *state;
    if (image && node)
        state = imx_drift_version_matches(node, image) ? "same" : "differs";
    else if (image)
        state = "missing";
    else
        state = "extra";
    if (imx_drift_state_counts(state))
        *drift = true;
    append_row(rows, json_pack("{s:s, s:s?, s:s?, s:s}", "name", name, "image", image, "node", node,
                               "state", state));
}

/* The versions of component name in either spelling of a component list, appended to out as
 * borrowed strings: a manifest's array of {name, version} (a name may repeat) or an image's
 * {name: version} object (a value may be an array of versions or of {version}). */
static void component_versions(json_t *components, const char *name, const char **out, size_t max,
                               size_t *n)
{
    *n = 0;
    if (json_is_object(components)) {
        json_t *v = json_object_get(components, name);
        if (json_is_string(v)) {
            out[(*n)++] = json_string_value(v);
        } else if (json_is_array(v)) {
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e)
            {
                const char *s = json_is_string(e)
                                    ? json_string_value(e)
                                    : json_string_value(json_object_get(e, "version"));
                if (s && *n < max)
                    out[(*n)++] = s;
            }
        }
        return;
    }
    size_t i;
    json_t *c;
    json_array_foreach(components, i, c)
    {
        const char *nm = json_string_value(json_object_get(c, "name"));
        const char *v = json_string_value(json_object_get(c, "version"));
        if (nm && v && strcmp(nm, name) == 0 && *n < max)
            out[(*n)++] = v;
    }
}

/* The distinct names of a component list of either spelling, in order (new array). */
static json_t *component_names(json_t *components)
{
    json_t *names = json_array();
    json_t *seen = json_object();
    if (json_is_object(components)) {
        const char *key;
        json_t *v;
        json_object_foreach(components, key, v)
        {
            json_array_append_new(names, json_string(key));
        }
    } else {
        size_t i;
        json_t *c;
        json_array_foreach(components, i, c)
        {
            const char *n = json_string_value(json_object_get(c, "name"));
            if (n && !json_object_get(seen, n)) {
                json_object_set_new(seen, n, json_true());
                json_array_append_new(names, json_string(n));
            }
        }
    }
    json_decref(seen);
    return names;
}

/* Compares GPU names ignoring case and an "nvidia-" or "NVIDIA " prefix. */
static bool same_gpu(const char *a, const char *b)
{
    if (strncasecmp(a, "nvidia", 6) == 0 && (a[6] == '-' || a[6] == ' '))
        a += 7;
    if (strncasecmp(b, "nvidia", 6) == 0 && (b[6] == '-' || b[6] == ' '))
        b += 7;
    return strcasecmp(a, b) == 0;
}

#define ALTERNATIVES_MAX 8

/* One component: the node's version against the one or more the image lists. */
static void component_row(json_t *rows, const char *name, json_t *icomp, json_t *ncomp, bool *drift)
{
    const char *iv[ALTERNATIVES_MAX], *nv[ALTERNATIVES_MAX];
    size_t ni, nn;
    component_versions(icomp, name, iv, ALTERNATIVES_MAX, &ni);
    component_versions(ncomp, name, nv, ALTERNATIVES_MAX, &nn);
    if (ni <= 1) {
        add_row(rows, name, ni ? iv[0] : NULL, nn ? nv[0] : NULL, drift);
        return;
    }
    /* Two trees (or more): the one the node loaded is the one it matches. */
    const char *match = NULL;
    for (size_t i = 0; i < ni && nn && !match; i++)
        if (imx_drift_version_matches(nv[0], iv[i]))
            match = iv[i];
    const char *state = !nn ? "missing" : match ? "same" : "differs";
    if (imx_drift_state_counts(state))
        *drift = true;
    json_t *all = json_array();
    for (size_t i = 0; i < ni; i++)
        json_array_append_new(all, json_string(iv[i]));
    append_row(rows, json_pack("{s:s, s:s?, s:s?, s:s, s:o}", "name", name, "image",
                               match ? match : iv[0], "node", nn ? nv[0] : NULL, "state", state,
                               "image_versions", all));
}

/* OS packages both list: older on the node is drift, newer is a patch taken (same). */
static void package_rows(json_t *rows, json_t *node, json_t *image, bool *drift)
{
    json_t *ipk = json_object_get(image, "packages");
    json_t *npk = json_object_get(node, "packages");
    if (!json_is_array(ipk) || !json_is_array(npk) || json_array_size(ipk) == 0)
        return;
    json_t *os = json_object_get(image, "os");
    char eco[IMX_PKG_ECOSYSTEM_MAX + 1];
    if (imx_pkg_ecosystem_of_os(json_string_value(json_object_get(os, "name")),
                                json_string_value(json_object_get(os, "version")), eco,
                                sizeof eco) != 0)
        return;
    enum imx_pkg_order order = imx_pkg_ecosystem_order(eco);
    if (!order)
        return;
    json_t *by_name = json_object();
    size_t i;
    json_t *p;
    json_array_foreach(ipk, i, p)
    {
        const char *n = json_string_value(json_object_get(p, "name"));
        json_t *v = json_object_get(p, "version");
        if (n && json_is_string(v))
            json_object_set(by_name, n, v);
    }
    json_array_foreach(npk, i, p)
    {
        const char *n = json_string_value(json_object_get(p, "name"));
        const char *v = json_string_value(json_object_get(p, "version"));
        const char *want = n ? json_string_value(json_object_get(by_name, n)) : NULL;
        if (!v || !want || strcmp(v, want) == 0 || !imx_pkgver_valid(order, v) ||
            !imx_pkgver_valid(order, want) || imx_pkgver_cmp(order, v, want) >= 0)
            continue;
        char label[IMX_PKG_NAME_MAX + 16];
        snprintf(label, sizeof label, "package:%s", n);
        *drift = true;
        append_row(rows, json_pack("{s:s, s:s, s:s, s:s}", "name", label, "image", want, "node", v,
                                   "state", "older"));
    }
    json_decref(by_name);
}

json_t *imx_drift_rows(json_t *node, json_t *image, bool *drift)
{
    json_t *rows = json_array();
    *drift = false;
    json_t *icomp = json_object_get(image, "components");
    json_t *ncomp = json_object_get(node, "components");
    json_t *inames = component_names(icomp);
    json_t *nnames = component_names(ncomp);
    size_t i;
    json_t *c;
    json_array_foreach(inames, i, c)
    {
        component_row(rows, json_string_value(c), icomp, ncomp, drift);
    }
    json_array_foreach(nnames, i, c)
    {
        const char *name = json_string_value(c);
        const char *iv[1];
        size_t ni;
        component_versions(icomp, name, iv, 1, &ni);
        if (ni == 0)
            component_row(rows, name, icomp, ncomp, drift);
    }
    json_decref(inames);
    json_decref(nnames);
    const char *iarch = json_string_value(json_object_get(image, "architecture"));
    const char *narch = json_string_value(json_object_get(node, "architecture"));
    if (iarch)
        add_row(rows, "architecture", iarch, narch, drift);
    char ios[2 * VER_MAX + 2] = "";
    char nos[2 * VER_MAX + 2] = "";
    json_t *o = json_object_get(image, "os");
    if (json_is_object(o))
        snprintf(ios, sizeof ios, "%.64s:%.64s", json_string_value(json_object_get(o, "name")),
                 json_string_value(json_object_get(o, "version")));
    o = json_object_get(node, "os");
    if (json_is_object(o))
        snprintf(nos, sizeof nos, "%.64s:%.64s", json_string_value(json_object_get(o, "name")),
                 json_string_value(json_object_get(o, "version")));
    if (ios[0])
        add_row(rows, "os", ios, nos[0] ? nos : NULL, drift);
    const char *ik = json_string_value(json_object_get(image, "kernel"));
    if (ik)
        add_row(rows, "kernel", ik, json_string_value(json_object_get(node, "kernel")), drift);
    json_t *igpus = json_object_get(image, "gpus");
    if (json_array_size(igpus) > 0) {
        json_t *g;
        json_array_foreach(json_object_get(node, "gpus"), i, g)
        {
            const char *ng = json_string_value(g);
            if (!ng)
                continue;
            bool listed = false;
            size_t j;
            json_t *ig;
            json_array_foreach(igpus, j, ig)
            {
                listed = listed || (json_string_value(ig) && same_gpu(json_string_value(ig), ng));
            }
            append_row(rows, json_pack("{s:s, s:s, s:s, s:s}", "name", "gpu", "image",
                                       listed ? ng : "(not listed)", "node", ng, "state",
                                       listed ? "same" : "differs"));
            if (!listed)
                *drift = true;
        }
    }
    package_rows(rows, node, image, drift);
    return rows;
}

json_t *imx_drift_changes(json_t *rows)
{
    json_t *out = json_array();
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        if (imx_drift_state_counts(json_string_value(json_object_get(row, "state"))))
            json_array_append(out, row);
    }
    return out;
}
