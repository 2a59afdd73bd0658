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
 * borrowed strings: a manifest's array of {name, version, gpus?} (a name may repeat) or an
 * image's {name: version} object (a value may be an array of versions or of {version, gpus}).
 * gpus (may be NULL) receives each entry's GPUs (borrowed; NULL when it names none). */
static void component_versions(json_t *components, const char *name, const char **out,
                               json_t **gpus, size_t max, size_t *n)
{
    *n = 0;
    if (json_is_object(components)) {
        json_t *v = json_object_get(components, name);
        if (json_is_string(v)) {
            if (gpus)
                gpus[*n] = NULL;
            out[(*n)++] = json_string_value(v);
        } else if (json_is_array(v)) {
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e)
            {
                const char *s = json_is_string(e)
                                    ? json_string_value(e)
                                    : json_string_value(json_object_get(e, "version"));
                if (s && *n < max) {
                    if (gpus)
                        gpus[*n] = json_object_get(e, "gpus");
                    out[(*n)++] = s;
                }
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
        if (nm && v && strcmp(nm, name) == 0 && *n < max) {
            if (gpus)
                gpus[*n] = json_object_get(c, "gpus");
            out[(*n)++] = v;
        }
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

/* How well a node's GPU name (what NVML says: "NVIDIA H100 80GB HBM3", "Tesla T4") matches a
 * catalog GPU name ("H100", "T4"): the length of the catalog name when it is the same GPU or a
 * word-boundary prefix of the node's (after an "NVIDIA " and a "Tesla " prefix), else 0. */
static size_t gpu_match(const char *catalog, const char *node)
{
    if (same_gpu(catalog, node))
        return strlen(catalog) + 1;
    if (strncasecmp(node, "nvidia", 6) == 0 && (node[6] == '-' || node[6] == ' '))
        node += 7;
    if (strncasecmp(node, "tesla ", 6) == 0)
        node += 6;
    size_t n = strlen(catalog);
    if (n == 0 || strncasecmp(node, catalog, n) != 0)
        return strcasecmp(node, catalog) == 0 ? n + 1 : 0;
    return node[n] == '\0' ? n + 1 : (node[n] == ' ' || node[n] == '-') ? n : 0;
}

#define ALTERNATIVES_MAX 8

/* Which of the entries serves the node: the entry whose GPUs best match one of the node's GPUs
 * (the first node GPU any entry serves). -1 when none names GPUs or none serves the node. */
static int entry_for_node(json_t *const *gpus, size_t ni, json_t *node_gpus)
{
    size_t k;
    json_t *ng;
    json_array_foreach(node_gpus, k, ng)
    {
        const char *name = json_string_value(ng);
        if (!name)
            continue;
        int best = -1;
        size_t best_len = 0;
        for (size_t i = 0; i < ni; i++) {
            size_t j;
            json_t *g;
            json_array_foreach(gpus[i], j, g)
            {
                size_t m = json_string_value(g) ? gpu_match(json_string_value(g), name) : 0;
                if (m > best_len) {
                    best_len = m;
                    best = (int)i;
                }
            }
        }
        if (best >= 0)
            return best;
    }
    return -1;
}

/* One component: the node's version against the one or more the image lists. With entries that
 * name the GPUs they serve (two driver trees, loaded at boot by the GPU attached), the node is
 * held to the entry serving its GPU: the other tree loaded is drift. */
static void component_row(json_t *rows, const char *name, json_t *icomp, json_t *ncomp,
                          json_t *node_gpus, bool *drift)
{
    const char *iv[ALTERNATIVES_MAX], *nv[ALTERNATIVES_MAX];
    json_t *ig[ALTERNATIVES_MAX];
    size_t ni, nn;
    component_versions(icomp, name, iv, ig, ALTERNATIVES_MAX, &ni);
    component_versions(ncomp, name, nv, NULL, ALTERNATIVES_MAX, &nn);
    if (ni <= 1) {
        add_row(rows, name, ni ? iv[0] : NULL, nn ? nv[0] : NULL, drift);
        return;
    }
    /* Two trees (or more): which one the node loaded, and which one serves its GPU. */
    const char *loaded = NULL;
    int loaded_i = -1;
    for (size_t i = 0; i < ni && nn && !loaded; i++)
        if (imx_drift_version_matches(nv[0], iv[i])) {
            loaded = iv[i];
            loaded_i = (int)i;
        }
    int want = entry_for_node(ig, ni, node_gpus);
    const char *state;
    if (!nn)
        state = "missing";
    else if (want >= 0)
        state = loaded_i == want ? "same" : "differs";
    else
        state = loaded ? "same" : "differs";
    if (imx_drift_state_counts(state))
        *drift = true;
    json_t *all = json_array();
    for (size_t i = 0; i < ni; i++)
        json_array_append_new(all, json_string(iv[i]));
    const char *shown = want >= 0 ? iv[want] : loaded ? loaded : iv[0];
    json_t *row = json_pack("{s:s, s:s?, s:s?, s:s, s:o}", "name", name, "image", shown, "node",
                            nn ? nv[0] : NULL, "state", state, "image_versions", all);
    if (row && want >= 0 && json_is_array(ig[want]))
        json_object_set(row, "serves", ig[want]);
    if (row)
        json_object_set_new(row, "loaded", loaded ? json_string(loaded) : json_null());
    append_row(rows, row);
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
    json_t *ngpus = json_object_get(node, "gpus");
    json_t *inames = component_names(icomp);
    json_t *nnames = component_names(ncomp);
    size_t i;
    json_t *c;
    json_array_foreach(inames, i, c)
    {
        component_row(rows, json_string_value(c), icomp, ncomp, ngpus, drift);
    }
    json_array_foreach(nnames, i, c)
    {
        const char *name = json_string_value(c);
        const char *iv[1];
        size_t ni;
        component_versions(icomp, name, iv, NULL, 1, &ni);
        if (ni == 0)
            component_row(rows, name, icomp, ncomp, ngpus, drift);
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
