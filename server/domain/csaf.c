/* CSAF 2.0 documents to imaxe advisories: NVIDIA's product tree names affected and fixed versions
 * in prose ("All driver versions prior to 580.126.09"); each form becomes a constraint. */
#include "domain/csaf.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FORM_TEXT_MAX 256 /* longest product version name looked at */
#define FORM_TOKENS   16  /* words in one */
#define TREE_DEPTH    32  /* product tree nesting refused past this */
#define LEAVES_MAX    4096
#define LABEL_MAX     200
#define POINTER_MAX   512
#define RANGE_MAX     160

bool imx_csaf_is_csaf(const json_t *doc)
{
    return json_is_object(doc) &&
           json_is_string(json_object_get(json_object_get(doc, "document"), "csaf_version"));
}

static void add_error(json_t *errors, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_error(json_t *errors, const char *pointer, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    json_array_append_new(errors, json_pack("{s:s, s:s}", "pointer", pointer, "detail", detail));
}

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* ---- the version forms ---- */

/* A dotted number with an optional leading "v" ("v1.17.8", "580.126.09"); copied without the v. */
static bool take_version(const char *tok, char *out)
{
    const char *p = tok[0] == 'v' ? tok + 1 : tok;
    size_t n = strlen(p);
    if (n == 0 || n > IMX_VER_TEXT_MAX || !isdigit((unsigned char)p[0]) ||
        !isdigit((unsigned char)p[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)p[i]) && !(p[i] == '.' && p[i + 1] != '.'))
            return false;
    }
    struct imx_ver v;
    if (imx_ver_parse(p, &v) != 0)
        return false;
    memcpy(out, p, n + 1);
    return true;
}

/* Words that carry no meaning in these names. */
static bool is_filler(const char *w)
{
    static const char *const fillers[] = { "all",      "driver", "drivers", "version",
                                           "versions", "nvidia", "release", "releases" };
    for (size_t i = 0; i < sizeof fillers / sizeof fillers[0]; i++) {
        if (strcmp(w, fillers[i]) == 0)
            return true;
    }
    return false;
}

static bool words_are(char *const *t, size_t n, const char *const *want)
{
    for (size_t i = 0; i < n; i++) {
        if (want[i] && strcmp(t[i], want[i]) != 0)
            return false;
    }
    return true;
}

int imx_csaf_parse_form(const char *text, const char *product, struct imx_csaf_version_form *out)
{
    if (!text || !out)
        return -1;
    memset(out, 0, sizeof *out);
    size_t n = strlen(text);
    if (n == 0 || n > FORM_TEXT_MAX)
        return -1;
    char buf[FORM_TEXT_MAX + 1];
    for (size_t i = 0; i <= n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c >= 0x80 || (c && c < 0x20 && c != '\t'))
            return -1;
        buf[i] = (char)(c == '\t' ? ' ' : tolower(c));
    }
    /* Some spellings repeat the product: "All versions prior to CUDA Toolkit 13.1". */
    if (product && *product && strlen(product) < sizeof buf) {
        char lp[FORM_TEXT_MAX + 1];
        size_t pl = strlen(product);
        for (size_t i = 0; i <= pl; i++)
            lp[i] = (char)tolower((unsigned char)product[i]);
        for (char *at = strstr(buf, lp); at; at = strstr(at + pl, lp))
            memset(at, ' ', pl);
    }
    /* A sentence's full stop. */
    while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '.'))
        buf[--n] = '\0';

    char *t[FORM_TOKENS];
    size_t k = 0;
    for (char *p = buf; *p;) {
        while (*p == ' ')
            *p++ = '\0';
        if (!*p)
            break;
        char *w = p;
        while (*p && *p != ' ')
            p++;
        if (*p)
            *p++ = '\0';
        if (is_filler(w))
            continue;
        if (k == FORM_TOKENS)
            return -1;
        t[k++] = w;
    }

    static const char *const prior[] = { "prior", "to", NULL };
    static const char *const earlier[] = { "earlier", "than", NULL };
    static const char *const older[] = { "older", "than", NULL };
    static const char *const lower[] = { "lower", "than", NULL };
    static const char *const upto[] = { "up", "to", "and", "including", NULL };
    static const char *const prior_incl[] = { "prior", "to", "and", "including", NULL };
    static const char *const and_earlier[] = { NULL, "and", "earlier" };
    static const char *const and_prior[] = { NULL, "and", "prior" };
    static const char *const or_earlier[] = { NULL, "or", "earlier" };
    static const char *const from_to[] = { "from", NULL, "to", NULL };
    static const char *const from_through[] = { "from", NULL, "through", NULL };
    static const char *const between[] = { "between", NULL, "and", NULL };

    if (k == 0) {
        out->form = IMX_CSAF_ALL;
        return 0;
    }
    if (k == 1 && take_version(t[0], out->hi)) {
        out->form = IMX_CSAF_EXACT;
        return 0;
    }
    if ((k == 3 &&
         (words_are(t, 2, prior) || words_are(t, 2, earlier) || words_are(t, 2, older) ||
          words_are(t, 2, lower)) &&
         take_version(t[2], out->hi)) ||
        (k == 2 && (strcmp(t[0], "before") == 0 || strcmp(t[0], "<") == 0) &&
         take_version(t[1], out->hi))) {
        out->form = IMX_CSAF_BELOW;
        return 0;
    }
    if ((k == 5 && (words_are(t, 4, upto) || words_are(t, 4, prior_incl)) &&
         take_version(t[4], out->hi)) ||
        (k == 3 &&
         (words_are(t, 3, and_earlier) || words_are(t, 3, and_prior) ||
          words_are(t, 3, or_earlier)) &&
         take_version(t[0], out->hi)) ||
        (k == 2 && strcmp(t[0], "<=") == 0 && take_version(t[1], out->hi))) {
        out->form = IMX_CSAF_UPTO;
        return 0;
    }
    bool span = false;
    if (k == 3 &&
        (strcmp(t[1], "to") == 0 || strcmp(t[1], "through") == 0 || strcmp(t[1], "-") == 0))
        span = take_version(t[0], out->lo) && take_version(t[2], out->hi);
    else if (k == 4 && (words_are(t, 4, from_to) || words_are(t, 4, from_through) ||
                        words_are(t, 4, between)))
        span = take_version(t[1], out->lo) && take_version(t[3], out->hi);
    if (span) {
        struct imx_ver lo, hi;
        if (imx_ver_parse(out->lo, &lo) != 0 || imx_ver_parse(out->hi, &hi) != 0 ||
            imx_ver_cmp(&lo, &hi) > 0)
            return -1;
        out->form = IMX_CSAF_SPAN;
        return 0;
    }
    memset(out, 0, sizeof *out);
    return -1;
}

/* ---- the product tree ---- */

struct leaf {
    const char *id;        /* product_id, borrowed */
    const char *text;      /* the version name, borrowed */
    const char *component; /* imaxe's component; NULL: a product imaxe does not track */
    const char *arch;      /* nearest architecture branch name ("Linux(R580)"), borrowed */
    const char *product;   /* the product ("Tesla"), borrowed */
    int branch;            /* driver branch from the architecture name; 0 when none */
    bool parsed, bad;
    struct imx_csaf_version_form form;
    char label[LABEL_MAX];     /* "Linux(R580) > Tesla" */
    char pointer[POINTER_MAX]; /* to the version name */
};

struct tree {
    struct leaf *leaves;
    size_t n, cap;
    bool too_big;
};

static bool has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = s; p && *p; p++) {
        if (strncasecmp(p, w, n) == 0)
            return true;
    }
    return false;
}

/* Which imaxe component a product under an architecture is; NULL when imaxe does not track it
 * (Windows, GeForce / RTX / Quadro desktop drivers, vGPU, GPU Operator, ...). */
static const char *component_of(const char *arch, const char *product, int *branch)
{
    *branch = 0;
    if (!product)
        return NULL;
    if (arch && ((has_word(arch, "windows") && !has_word(arch, "linux")) ||
                 has_word(arch, "vgpu") || has_word(arch, "gaming") || has_word(arch, "macos")))
        return NULL;
    if (has_word(product, "vgpu") || has_word(product, "guest driver") ||
        has_word(product, "virtual gpu manager"))
        return NULL;
    if (has_word(product, "container toolkit"))
        return "nvidia-container-toolkit";
    if (has_word(product, "cuda toolkit"))
        return "cuda";
    if (has_word(product, "dcgm") || has_word(product, "data center gpu manager"))
        return "dcgm";
    if (has_word(product, "nccl"))
        return "nccl";
    /* GeForce, RTX, Quadro and NVS desktop drivers are not the data-centre driver; a product
     * line that names Tesla or Data Center beside them still is. */
    if (has_word(product, "tesla") || has_word(product, "data center") ||
        has_word(product, "datacenter")) {
        /* The data-centre display driver: Linux only, its branch in "Linux(R580)". */
        if (!arch || !has_word(arch, "linux"))
            return NULL;
        const char *r = strstr(arch, "(R");
        if (r && isdigit((unsigned char)r[2])) {
            int b = 0;
            for (const char *p = r + 2; isdigit((unsigned char)*p) && b < 10000; p++)
                b = b * 10 + (*p - '0');
            *branch = b >= 100 && b <= 999 ? b : 0;
        }
        return "nvidia-driver";
    }
    return NULL;
}

static int add_leaf(struct tree *t, const json_t *branch, const char *arch, const char *product,
                    const char *pointer)
{
    const json_t *p = json_object_get(branch, "product");
    const char *id = str(p, "product_id"), *text = str(p, "name");
    const char *name = str(branch, "name");
    if (!id || !text)
        return 0;
    if (t->n == t->cap) {
        if (t->cap >= LEAVES_MAX) {
            t->too_big = true;
            return -1;
        }
        size_t cap = t->cap ? t->cap * 2 : 64;
        struct leaf *nl = realloc(t->leaves, cap * sizeof *nl);
        if (!nl)
            return -1;
        t->leaves = nl;
        t->cap = cap;
    }
    struct leaf *l = &t->leaves[t->n++];
    memset(l, 0, sizeof *l);
    l->id = id;
    l->text = text;
    l->arch = arch;
    /* NVIDIA names a product_version branch after the product and puts the version in the
     * product's name; plain CSAF names the branch after the version. */
    l->product = name && strcmp(name, text) != 0 ? name : product;
    l->component = component_of(arch, l->product, &l->branch);
    snprintf(l->label, sizeof l->label, "%s%s%s", arch ? arch : "", arch ? " > " : "",
             l->product ? l->product : "(unnamed product)");
    int w = snprintf(l->pointer, sizeof l->pointer, "%s/product/name", pointer);
    return w > 0 && (size_t)w < sizeof l->pointer ? 0 : -1;
}

static int walk(struct tree *t, const json_t *branches, const char *arch, const char *product,
                const char *pointer, int depth)
{
    if (depth > TREE_DEPTH) {
        t->too_big = true;
        return -1;
    }
    size_t i;
    json_t *b;
    json_array_foreach(branches, i, b)
    {
        char ptr[POINTER_MAX];
        int w = snprintf(ptr, sizeof ptr, "%s/%zu", pointer, i);
        if (w < 0 || (size_t)w >= sizeof ptr) {
            t->too_big = true;
            return -1;
        }
        const char *cat = str(b, "category"), *name = str(b, "name");
        const char *a = arch, *p = product;
        if (cat && name && strcmp(cat, "architecture") == 0)
            a = name;
        else if (cat && name && strcmp(cat, "product_name") == 0)
            p = name;
        if (cat && strcmp(cat, "product_version") == 0 && add_leaf(t, b, a, p, ptr) != 0)
            return -1;
        json_t *sub = json_object_get(b, "branches");
        if (json_is_array(sub)) {
            char sp[POINTER_MAX];
            w = snprintf(sp, sizeof sp, "%s/branches", ptr);
            if (w < 0 || (size_t)w >= sizeof sp) {
                t->too_big = true;
                return -1;
            }
            if (walk(t, sub, a, p, sp, depth + 1) != 0)
                return -1;
        }
    }
    return 0;
}

static struct leaf *find_leaf(struct tree *t, const char *id)
{
    for (size_t i = 0; id && i < t->n; i++) {
        if (strcmp(t->leaves[i].id, id) == 0)
            return &t->leaves[i];
    }
    return NULL;
}

/* Parses a tracked leaf's version name once; reports it (once) when it is not understood. */
static bool leaf_form(struct leaf *l, json_t *errors)
{
    if (!l->parsed) {
        l->parsed = true;
        const char *product = l->component && strcmp(l->component, "cuda") == 0   ? "CUDA Toolkit"
                              : l->component && strcmp(l->component, "dcgm") == 0 ? "DCGM"
                                                                                  : l->product;
        l->bad = imx_csaf_parse_form(l->text, product, &l->form) != 0;
        if (l->bad)
            add_error(errors, l->pointer,
                      "%s: \"%s\" is not a version form imaxe understands (\"prior to X\", \"up "
                      "to and including X\", \"X to Y\" or a version X), so it was not guessed",
                      l->label, l->text);
    }
    return !l->bad;
}

/* The fixed product matching an affected one: same component, architecture and product, named
 * by a bare version, among status's "fixed" then "first_fixed" products. */
static struct leaf *fixed_for(struct tree *t, const struct leaf *a, const json_t *status,
                              json_t *errors)
{
    json_t *all = json_array();
    json_array_extend(all, json_object_get(status, "fixed"));
    json_array_extend(all, json_object_get(status, "first_fixed"));
    struct leaf *found = NULL;
    size_t i;
    json_t *v;
    json_array_foreach(all, i, v)
    {
        struct leaf *f = find_leaf(t, json_string_value(v));
        if (!f || !f->component || strcmp(f->component, a->component) != 0 ||
            strcmp(f->label, a->label) != 0)
            continue;
        if (leaf_form(f, errors) && f->form.form == IMX_CSAF_EXACT) {
            found = f;
            break;
        }
    }
    json_decref(all);
    return found;
}

/* The constraint for an affected leaf; false (after an error) when its versions contradict its
 * branch. */
static bool range_of(const struct leaf *l, char *range, size_t len, json_t *errors)
{
    const struct imx_csaf_version_form *f = &l->form;
    int b = l->branch;
    bool bounded = f->form == IMX_CSAF_BELOW || f->form == IMX_CSAF_UPTO;
    if (!b && bounded && strcmp(l->component, "nvidia-driver") == 0) {
        /* A driver range without its branch in the tree: the branch of its bound. */
        struct imx_ver v;
        if (imx_ver_parse(f->hi, &v) == 0)
            b = (int)v.key[0];
    }
    if (b && bounded) {
        struct imx_ver v;
        if (imx_ver_parse(f->hi, &v) != 0 || (int)v.key[0] != b) {
            add_error(errors, l->pointer, "%s: \"%s\" is not a version of branch R%d", l->label,
                      l->text, b);
            return false;
        }
    }
    switch (f->form) {
    case IMX_CSAF_BELOW:
        if (b)
            snprintf(range, len, ">=%d, <%s", b, f->hi);
        else
            snprintf(range, len, "<%s", f->hi);
        break;
    case IMX_CSAF_UPTO:
        if (b)
            snprintf(range, len, ">=%d, <=%s", b, f->hi);
        else
            snprintf(range, len, "<=%s", f->hi);
        break;
    case IMX_CSAF_SPAN:
        snprintf(range, len, ">=%s, <=%s", f->lo, f->hi);
        break;
    case IMX_CSAF_EXACT:
        snprintf(range, len, "=%s", f->hi);
        break;
    case IMX_CSAF_ALL:
        if (b)
            snprintf(range, len, "~%d", b);
        else
            snprintf(range, len, ">=0");
        break;
    }
    return true;
}

static bool has_range(const json_t *affected, const char *component, const char *range,
                      const char *fixed)
{
    size_t i;
    json_t *e;
    json_array_foreach(affected, i, e)
    {
        const char *fx = str(e, "fixed");
        if (strcmp(str(e, "component"), component) == 0 && strcmp(str(e, "range"), range) == 0 &&
            ((!fx && !fixed) || (fx && fixed && strcmp(fx, fixed) == 0)))
            return true;
    }
    return false;
}

/* "HIGH" -> "high", "MODERATE" -> "medium"; NULL when not a severity. */
static const char *severity_of(const char *s)
{
    static const struct {
        const char *csaf, *ours;
    } map[] = {
        { "low", "low" },   { "moderate", "medium" },   { "medium", "medium" },
        { "high", "high" }, { "critical", "critical" }, { "important", "high" },
    };
    for (size_t i = 0; s && i < sizeof map / sizeof map[0]; i++)
        if (strcasecmp(s, map[i].csaf) == 0)
            return map[i].ours;
    return NULL;
}

static const char *severity_of_score(double s)
{
    return s >= 9.0 ? "critical" : s >= 7.0 ? "high" : s >= 4.0 ? "medium" : "low";
}

static void max_scores(const json_t *vuln, double *v3, double *v4)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(vuln, "scores"), i, s)
    {
        json_t *b3 = json_object_get(json_object_get(s, "cvss_v3"), "baseScore");
        json_t *b4 = json_object_get(json_object_get(s, "cvss_v4"), "baseScore");
        if (json_is_number(b3) && json_number_value(b3) > *v3)
            *v3 = json_number_value(b3);
        if (json_is_number(b4) && json_number_value(b4) > *v4)
            *v4 = json_number_value(b4);
    }
}

static bool is_cve(const char *s)
{
    if (!s || strncmp(s, "CVE-", 4) != 0 || strlen(s) > 20)
        return false;
    for (const char *p = s + 4; *p; p++)
        if (!isdigit((unsigned char)*p) && *p != '-')
            return false;
    return true;
}

/* The document's own address: a "self" reference, else NVIDIA's published file. */
static void document_url(const json_t *d, const char *id, const char *date, bool nvidia,
                         json_t *out)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(d, "references"), i, r)
    {
        const char *cat = str(r, "category"), *url = str(r, "url");
        if (cat && url && strcmp(cat, "self") == 0 && strncmp(url, "https://", 8) == 0) {
            json_object_set_new(out, "url", json_string(url));
            return;
        }
    }
    if (nvidia && id && date && strlen(date) >= 4) {
        char url[300];
        snprintf(url, sizeof url,
                 "https://github.com/NVIDIA/product-security/blob/main/%.4s/%s/%s.json", date, id,
                 id);
        json_object_set_new(out, "url", json_string(url));
    }
}

json_t *imx_csaf_to_advisory(const json_t *doc, json_t *errors, struct imx_csaf_meta *meta)
{
    size_t before = json_array_size(errors);
    const json_t *d = json_object_get(doc, "document");
    const json_t *tracking = json_object_get(d, "tracking");
    const char *tid = str(tracking, "id"), *title = str(d, "title");
    const char *date = str(tracking, "initial_release_date");
    const char *publisher = str(json_object_get(d, "publisher"), "name");
    bool nvidia = publisher && strncasecmp(publisher, "NVIDIA", 6) == 0;
    if (meta)
        *meta = (struct imx_csaf_meta){ tid, str(tracking, "version"), -1.0 };
    if (!json_is_string(json_object_get(d, "csaf_version")) ||
        strcmp(str(d, "csaf_version"), "2.0") != 0)
        add_error(errors, "/document/csaf_version", "must be \"2.0\"");

    json_t *out = json_object();
    if (!tid || !*tid) {
        add_error(errors, "/document/tracking/id", "is required");
    } else {
        char id[128];
        snprintf(id, sizeof id, "%s%s", nvidia ? "NVIDIA-" : "", tid);
        json_object_set_new(out, "id", json_string(id));
    }
    if (!title)
        add_error(errors, "/document/title", "is required");
    else
        json_object_set_new(out, "title", json_string(title));
    if (!date || strlen(date) < 10) {
        add_error(errors, "/document/tracking/initial_release_date", "is required (RFC 3339)");
    } else {
        char day[11];
        memcpy(day, date, 10);
        day[10] = '\0';
        json_object_set_new(out, "published", json_string(day));
    }
    document_url(d, tid, date, nvidia, out);

    struct tree t = { NULL, 0, 0, false };
    const json_t *tree = json_object_get(doc, "product_tree");
    if (walk(&t, json_object_get(tree, "branches"), NULL, NULL, "/product_tree/branches", 0) != 0)
        add_error(errors, "/product_tree",
                  t.too_big ? "is nested deeper than %d or has more than %d products"
                            : "could not be read (out of memory; %d, %d)",
                  TREE_DEPTH, LEAVES_MAX);

    json_t *affected = json_array(), *cves = json_array();
    double v3 = -1.0, v4 = -1.0;
    size_t i;
    json_t *vuln;
    json_array_foreach(json_object_get(doc, "vulnerabilities"), i, vuln)
    {
        const json_t *status = json_object_get(vuln, "product_status");
        bool tracked = false;
        size_t k;
        json_t *pid;
        json_array_foreach(json_object_get(status, "known_affected"), k, pid)
        {
            struct leaf *l = find_leaf(&t, json_string_value(pid));
            if (!l || !l->component)
                continue;
            tracked = true;
            char range[RANGE_MAX];
            if (!leaf_form(l, errors) || !range_of(l, range, sizeof range, errors))
                continue;
            struct leaf *f = fixed_for(&t, l, status, errors);
            const char *fx = f ? f->form.hi : NULL;
            if (has_range(affected, l->component, range, fx))
                continue;
            json_t *e = json_pack("{s:s, s:s}", "component", l->component, "range", range);
            if (fx)
                json_object_set_new(e, "fixed", json_string(fx));
            json_array_append_new(affected, e);
        }
        if (!tracked)
            continue;
        const char *cve = str(vuln, "cve");
        bool seen = false;
        json_t *c;
        json_array_foreach(cves, k, c) seen =
            seen || (cve && strcmp(json_string_value(c), cve) == 0);
        if (is_cve(cve) && !seen)
            json_array_append_new(cves, json_string(cve));
        max_scores(vuln, &v3, &v4);
    }
    free(t.leaves);

    const char *sev = severity_of(str(json_object_get(d, "aggregate_severity"), "text"));
    if (!sev && (v3 >= 0 || v4 >= 0))
        sev = severity_of_score(v3 >= 0 ? v3 : v4);
    if (!sev)
        add_error(errors, "/document/aggregate_severity/text",
                  "is required (LOW, MODERATE, HIGH or CRITICAL) when no CVSS score is given");
    else
        json_object_set_new(out, "severity", json_string(sev));
    if (v3 >= 0 || v4 >= 0)
        json_object_set_new(out, "cvss", json_real(v3 >= 0 ? v3 : v4));
    if (meta)
        meta->cvss_v4 = v4;
    json_object_set_new(out, "cves", cves);
    if (json_array_size(errors) == before && json_array_size(affected) == 0)
        add_error(errors, "/vulnerabilities",
                  "affect no product imaxe tracks (Linux data-centre drivers, NVIDIA Container "
                  "Toolkit, CUDA Toolkit, DCGM, NCCL)");
    json_object_set_new(out, "affected", affected);
    if (json_array_size(errors) > before) {
        json_decref(out);
        return NULL;
    }
    return out;
}
