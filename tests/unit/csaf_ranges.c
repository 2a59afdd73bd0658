/* Every product_status entry of CSAF bulletins, one line each, as the import reads it: the
 * bulletin, the status, the product (architecture > product name), its version text, its CPE, the
 * component it maps to, the grammar's parse and the range stored (with its fix and any warning).
 * The review table of NVIDIA's feed: tests/data/csaf/feed/ranges.txt is this over the corpus,
 * checked by unit.csaf_ranges, so a change to the grammar or the mapping shows as a diff of the
 * lines it moves.
 *
 *   csaf_ranges MAP.csv[,MAP2.csv] FILE.json...      one line per entry of each bulletin
 *   csaf_ranges --tracked MAP.csv[,...] FILE.json...  only the entries of products that map, with
 *                                                   their CPE's product field (the review table)
 *   csaf_ranges --unparsed MAP.csv[,...] FILE.json... only the version texts the grammar refuses
 *   csaf_ranges --forms < LINES                     "PRODUCT<TAB>TEXT" lines (version texts from
 *                                                   elsewhere, e.g. NVIDIA's CVE records): the
 * parse
 *
 * An affected entry's range is the translation's own (imx_csaf_to_advisory) over the bulletin
 * with that vulnerability's known_affected cut to the entry, so the fix it names is chosen as an
 * import chooses it. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/csaf.h"
#include "domain/csv.h"
#include "csaf_map.h"

#define MAP_TEXT_MAX (1 << 17)
#define LINE_MAX     2048
#define SEEN_MAX     8192

struct product {
    const char *id, *arch, *name, *text, *cpe; /* borrowed from the document */
};

struct products {
    struct product *p;
    size_t n, cap;
};

static void walk(struct products *ps, const json_t *branches, const char *arch, const char *name)
{
    size_t i;
    json_t *b;
    json_array_foreach(branches, i, b)
    {
        const char *cat = json_string_value(json_object_get(b, "category"));
        const char *bn = json_string_value(json_object_get(b, "name"));
        const char *a = arch, *nm = name;
        if (cat && bn && strcmp(cat, "architecture") == 0)
            a = bn;
        else if (cat && bn && strcmp(cat, "product_name") == 0)
            nm = bn;
        const json_t *p = json_object_get(b, "product");
        if (cat && strcmp(cat, "product_version") == 0 && p) {
            if (ps->n == ps->cap) {
                ps->cap = ps->cap ? 2 * ps->cap : 64;
                ps->p = realloc(ps->p, ps->cap * sizeof *ps->p);
                if (!ps->p)
                    exit(2);
            }
            const char *text = json_string_value(json_object_get(p, "name"));
            ps->p[ps->n++] = (struct product){
                json_string_value(json_object_get(p, "product_id")), a,
                bn && text && strcmp(bn, text) != 0 ? bn : nm, text,
                json_string_value(
                    json_object_get(json_object_get(p, "product_identification_helper"), "cpe"))
            };
        }
        walk(ps, json_object_get(b, "branches"), a, nm);
    }
}

static const struct product *find(const struct products *ps, const char *id)
{
    for (size_t i = 0; id && i < ps->n; i++)
        if (ps->p[i].id && strcmp(ps->p[i].id, id) == 0)
            return &ps->p[i];
    return NULL;
}

static json_t *load_map(char *paths)
{
    json_t *map = json_array(), *pairs = json_array(), *commits = json_array();
    for (char *path = strtok(paths, ","); path; path = strtok(NULL, ",")) {
        FILE *f = fopen(path, "rb");
        if (!f) {
            fprintf(stderr, "%s: cannot open\n", path);
            exit(2);
        }
        static char text[MAP_TEXT_MAX];
        size_t n = fread(text, 1, sizeof text, f);
        fclose(f);
        char err[128];
        json_t *rows = n < sizeof text ? imx_csv_rows(text, n, err, sizeof err) : NULL;
        if (!rows) {
            fprintf(stderr, "%s: not read\n", path);
            exit(2);
        }
        const json_t *first = json_array_get(rows, 0);
        bool commit_rows = json_object_get(first, "commit") != NULL;
        bool release_pairs = !commit_rows && json_object_get(first, "release") != NULL;
        json_array_extend(commit_rows ? commits : release_pairs ? pairs : map, rows);
        json_decref(rows);
    }
    imx_t_csaf_map_attach(map, pairs, commits);
    json_decref(pairs);
    json_decref(commits);
    return map;
}

static void form_text(const char *text, const char *product, char *out, size_t len)
{
    static const char *const names[] = { "BELOW", "UPTO", "SPAN", "EXACT",
                                         "ALL",   "FROM", "LIST", "COMMIT" };
    static const char *const roles[] = { "without", "with", "through" };
    struct imx_csaf_version_form f;
    if (!text || imx_csaf_parse_form(text, product, &f) != 0) {
        snprintf(out, len, "UNPARSED");
        return;
    }
    int n = snprintf(out, len, "%s%s%s%s%s", names[f.form], f.lo[0] ? " lo=" : "", f.lo,
                     f.hi[0] ? " hi=" : "", f.hi);
    for (int i = 0; i < f.nlist && n > 0 && (size_t)n < len; i++)
        n += snprintf(out + n, len - (size_t)n, "%s%s", i ? "," : " list=", f.list[i]);
    if (f.form == IMX_CSAF_COMMIT && n > 0 && (size_t)n < len)
        n += snprintf(out + n, len - (size_t)n, " %s=%s", roles[f.commit_role], f.commit);
    if (f.qualified && n > 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, " (qualified)");
}

/* The translation of doc with vulnerability vi's known_affected cut to id: "range fixed F" for
 * each range, else the reason it was left out; warnings after " ! ". */
static void stored(const json_t *doc, const json_t *map, size_t vi, const char *id, bool no_fix,
                   char *out, size_t len)
{
    json_t *d = json_deep_copy(doc);
    json_t *vulns = json_array();
    json_t *v = json_deep_copy(json_array_get(json_object_get(doc, "vulnerabilities"), vi));
    json_t *st = json_object_get(v, "product_status");
    json_object_set_new(st, "known_affected", json_pack("[s]", id));
    if (no_fix) {
        json_object_del(st, "fixed");
        json_object_del(st, "first_fixed");
    }
    json_array_append_new(vulns, v);
    json_object_set_new(d, "vulnerabilities", vulns);
    json_t *errors = json_array();
    json_t *a = imx_csaf_to_advisory(d, map, errors, NULL);
    size_t n = 0;
    out[0] = '\0';
    if (!a) {
        snprintf(out, len, "REFUSED");
    } else {
        size_t k;
        json_t *e;
        json_array_foreach(json_object_get(a, "affected"), k, e)
        {
            const char *fx = json_string_value(json_object_get(e, "fixed"));
            n += (size_t)snprintf(out + n, len - n, "%s%s %s fixed %s", k ? "; " : "",
                                  json_string_value(json_object_get(e, "component")),
                                  json_string_value(json_object_get(e, "range")), fx ? fx : "-");
            if (n >= len)
                break;
        }
        if (k == 0 && n < len) {
            json_t *u = json_array_get(json_object_get(a, "unmapped"), 0);
            n += (size_t)snprintf(out + n, len - n, "- (%s)",
                                  json_string_value(json_object_get(u, "why")));
        }
        json_array_foreach(json_object_get(a, "warnings"), k, e)
        {
            if (n >= len)
                break;
            n += (size_t)snprintf(out + n, len - n, " ! %s",
                                  json_string_value(json_object_get(e, "warning")));
        }
    }
    json_decref(a);
    json_decref(errors);
    json_decref(d);
}

/* The component the product's row names, found by translating it as if affected (with no fix,
 * which a fixed product would be of itself). */
static void component_of(const json_t *doc, const json_t *map, size_t vi, const char *id, char *out,
                         size_t len)
{
    char s[LINE_MAX];
    stored(doc, map, vi, id, true, s, sizeof s);
    if (strncmp(s, "- (", 3) == 0 && !strstr(s, "version text is not one"))
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%.*s", (int)strcspn(s, " "), s);
}

/* --forms: each "product<TAB>text" line of stdin, parsed alone. */
static int forms(void)
{
    char line[LINE_MAX];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        const char *product = NULL, *text = line;
        if (tab) {
            *tab = '\0';
            product = line;
            text = tab + 1;
        }
        char form[256];
        form_text(text, product, form, sizeof form);
        printf("%s\t%s\t%s\n", form, product ? product : "", text);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--forms") == 0)
        return forms();
    int a = 1;
    bool unparsed_only = argc > 1 && strcmp(argv[1], "--unparsed") == 0;
    bool tracked_only = argc > 1 && strcmp(argv[1], "--tracked") == 0;
    a += unparsed_only || tracked_only;
    if (argc - a < 2) {
        fprintf(stderr, "usage: csaf_ranges [--unparsed] MAP.csv[,MAP2.csv] FILE.json...\n");
        return 2;
    }
    json_t *map = load_map(argv[a++]);
    static char *seen[SEEN_MAX];
    size_t nseen = 0;
    for (; a < argc; a++) {
        json_error_t jerr;
        json_t *doc = json_load_file(argv[a], 0, &jerr);
        if (!doc) {
            fprintf(stderr, "%s: %s\n", argv[a], jerr.text);
            continue;
        }
        const char *tid = json_string_value(
            json_object_get(json_object_get(json_object_get(doc, "document"), "tracking"), "id"));
        struct products ps = { 0 };
        walk(&ps, json_object_get(json_object_get(doc, "product_tree"), "branches"), NULL, NULL);
        static const char *const statuses[] = { "known_affected", "fixed", "first_fixed",
                                                "known_not_affected" };
        size_t vi;
        json_t *v;
        json_array_foreach(json_object_get(doc, "vulnerabilities"), vi, v)
        {
            for (size_t s = 0; s < sizeof statuses / sizeof statuses[0]; s++) {
                size_t k;
                json_t *pid;
                json_array_foreach(
                    json_object_get(json_object_get(v, "product_status"), statuses[s]), k, pid)
                {
                    const struct product *p = find(&ps, json_string_value(pid));
                    if (!p)
                        continue;
                    char form[256], comp[256], range[LINE_MAX], line[2 * LINE_MAX];
                    form_text(p->text, p->name, form, sizeof form);
                    if (unparsed_only) {
                        if (strcmp(form, "UNPARSED") != 0)
                            continue;
                        component_of(doc, map, vi, p->id, comp, sizeof comp);
                        snprintf(line, sizeof line, "%s\t%s\t%s > %s\t\"%s\"\t%s", tid ? tid : "?",
                                 statuses[s], p->arch ? p->arch : "", p->name ? p->name : "",
                                 p->text ? p->text : "", comp);
                    } else {
                        if (s == 0) {
                            stored(doc, map, vi, p->id, false, range, sizeof range);
                            snprintf(comp, sizeof comp, "%.*s", (int)strcspn(range, " "), range);
                        } else {
                            component_of(doc, map, vi, p->id, comp, sizeof comp);
                            snprintf(range, sizeof range, "%s", "");
                        }
                        if (tracked_only && strcmp(comp, "-") == 0)
                            continue;
                        char cpe[256];
                        snprintf(cpe, sizeof cpe, "%s", p->cpe ? p->cpe : "-");
                        if (tracked_only && strncmp(cpe, "cpe:2.3:", 8) == 0) {
                            /* the field the mapping reads: cpe:2.3:a:nvidia:PRODUCT:... */
                            const char *f = cpe + 8;
                            for (int field = 0; field < 2 && f; field++)
                                f = strchr(f, ':') ? strchr(f, ':') + 1 : NULL;
                            if (f)
                                snprintf(cpe, sizeof cpe, "cpe:%.*s", (int)strcspn(f, ":"), f);
                        }
                        snprintf(line, sizeof line,
                                 "NVIDIA-%s %s | %s > %s | \"%s\" | %s | %s | %s%s%s",
                                 tid ? tid : "?", statuses[s], p->arch ? p->arch : "",
                                 p->name ? p->name : "", p->text ? p->text : "", cpe, comp, form,
                                 range[0] ? " | " : "", range);
                    }
                    /* the same entry under several CVEs: once, unless it reads otherwise */
                    bool again = false;
                    for (size_t j = 0; j < nseen && !again; j++)
                        again = strcmp(seen[j], line) == 0;
                    if (again)
                        continue;
                    if (nseen < SEEN_MAX)
                        seen[nseen++] = strdup(line);
                    puts(line);
                }
            }
        }
        free(ps.p);
        json_decref(doc);
    }
    for (size_t j = 0; j < nseen; j++)
        free(seen[j]);
    json_decref(map);
    return 0;
}
