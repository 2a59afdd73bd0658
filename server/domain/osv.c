/* OSV documents to imaxe advisories: ranges events (introduced, fixed, last_affected) become
 * constraints such as ">=1.2.0, <1.2.5" or "<=1.16.1". */
#include "domain/osv.h"
#include "util/budget.h"

#include "domain/pkgver.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Longest range text built here: two versions and the operators. */
#define RANGE_MAX 160

static void add_error(json_t *errors, const char *pointer, const char *fmt, ...)
{
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    json_array_append_new(errors, json_pack("{s:s, s:s}", "pointer", pointer, "detail", detail));
}

bool imx_osv_is_osv(const json_t *doc)
{
    return json_is_object(doc) && json_is_string(json_object_get(doc, "schema_version"));
}

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* "HIGH" -> "high", "MODERATE" -> "medium"; NULL when not a severity. */
static const char *severity_of(const char *s)
{
    static const struct {
        const char *osv, *ours;
    } map[] = {
        { "low", "low" },   { "moderate", "medium" },   { "medium", "medium" },
        { "high", "high" }, { "critical", "critical" },
    };
    if (!s)
        return NULL;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcasecmp(s, map[i].osv) == 0)
            return map[i].ours;
    return NULL;
}

/* The imaxe component an OSV package is: GitHub's advisories (GHSA) name the NVIDIA Container
 * Toolkit by its Go module and the frameworks by their PyPI names; any other package keeps its
 * name. Borrowed. */
static const char *component_of(const char *ecosystem, const char *name)
{
    static const struct {
        const char *ecosystem, *package, *component;
    } map[] = {
        { "Go", "github.com/NVIDIA/nvidia-container-toolkit", "nvidia-container-toolkit" },
        { "PyPI", "torch", "pytorch" },
        { "PyPI", "tensorflow", "tensorflow" },
        { "PyPI", "tensorflow-gpu", "tensorflow" },
    };
    for (size_t i = 0; ecosystem && i < sizeof map / sizeof map[0]; i++)
        if (strcmp(ecosystem, map[i].ecosystem) == 0 && strcasecmp(name, map[i].package) == 0)
            return map[i].component;
    return name;
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

/* Appends {"component","range"[,"fixed"]}, or {"ecosystem","package","range"[,"fixed"]} when
 * ecosystem is a distro's; lo NULL: unbounded below; hi NULL: above. */
static void add_range(json_t *affected, const char *ecosystem, const char *component,
                      const char *lo, const char *hi, bool hi_incl, const char *fixed)
{
    char range[RANGE_MAX];
    if (lo && hi)
        snprintf(range, sizeof range, ">=%s, %s%s", lo, hi_incl ? "<=" : "<", hi);
    else if (lo)
        snprintf(range, sizeof range, ">=%s", lo);
    else if (hi)
        snprintf(range, sizeof range, "%s%s", hi_incl ? "<=" : "<", hi);
    else
        snprintf(range, sizeof range, "*");
    json_t *e = ecosystem ? json_pack("{s:s, s:s, s:s}", "ecosystem", ecosystem, "package",
                                      component, "range", range)
                          : json_pack("{s:s, s:s}", "component", component, "range", range);
    if (fixed)
        json_object_set_new(e, "fixed", json_string(fixed));
    json_array_append_new(affected, e);
}

/* One range's events, in order: each introduced opens an interval that the next fixed or
 * last_affected closes. */
static void map_events(const json_t *events, const char *ecosystem, const char *component,
                       json_t *affected, const char *ptr, json_t *errors)
{
    const char *open = NULL;
    bool is_open = false;
    size_t i;
    json_t *ev;
    char p[200];
    json_array_foreach(events, i, ev)
    {
        const char *intro = str(ev, "introduced"), *fixed = str(ev, "fixed");
        const char *last = str(ev, "last_affected");
        snprintf(p, sizeof p, "%s/events/%zu", ptr, i);
        if (intro) {
            open = strcmp(intro, "0") == 0 ? NULL : intro;
            is_open = true;
        } else if (fixed || last) {
            if (!is_open) {
                add_error(errors, p,
                          "a fixed or last_affected event needs an introduced event before it");
                return;
            }
            add_range(affected, ecosystem, component, open, fixed ? fixed : last, !fixed, fixed);
            is_open = false;
        } else if (!str(ev, "limit")) {
            add_error(errors, p, "must be introduced, fixed, last_affected or limit");
            return;
        }
    }
    if (is_open)
        add_range(affected, ecosystem, component, open, NULL, false, NULL);
}

/* The date of an RFC 3339 date or date-time ("2025-10-09", "2025-10-09T12:00:00Z") into
 * out (YYYY-MM-DD); false when s does not start with a valid one. */
static bool rfc3339_date(const char *s, char out[11])
{
    for (int i = 0; i < 10; i++) {
        bool dash = i == 4 || i == 7;
        if (dash ? s[i] != '-' : (s[i] < '0' || s[i] > '9'))
            return false;
    }
    if (s[10] != '\0' && s[10] != 'T' && s[10] != 't' && s[10] != ' ')
        return false;
    int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    int m = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
    static const int days[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (m < 1 || m > 12 || d < 1 || d > days[m - 1])
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (m == 2 && d == 29 && !leap)
        return false;
    memcpy(out, s, 10);
    out[10] = '\0';
    return true;
}

json_t *imx_osv_to_advisory(const json_t *doc, json_t *errors)
{
    size_t before = json_array_size(errors);
    json_t *out = json_object();
    const char *id = str(doc, "id");
    if (!id)
        add_error(errors, "/id", "is required");
    else
        json_object_set_new(out, "id", json_string(id));
    const char *summary = str(doc, "summary");
    json_object_set_new(out, "title", json_string(summary && *summary ? summary : id ? id : ""));
    const char *published = str(doc, "published");
    char date[11];
    if (!published || !rfc3339_date(published, date))
        add_error(errors, "/published", "is required: an RFC 3339 date or date-time");
    else
        json_object_set_new(out, "published", json_string(date));

    const char *sev = severity_of(str(json_object_get(doc, "database_specific"), "severity"));
    json_t *affected_in = json_object_get(doc, "affected");
    size_t i;
    json_t *a;
    json_array_foreach(affected_in, i, a)
    {
        if (sev)
            break;
        sev = severity_of(str(json_object_get(a, "ecosystem_specific"), "severity"));
        if (!sev)
            sev = severity_of(str(json_object_get(a, "database_specific"), "severity"));
    }
    /* Ubuntu's USNs: a top-level severity [{"type": "Ubuntu", "score": "medium"}]. */
    json_t *sv;
    json_array_foreach(json_object_get(doc, "severity"), i, sv)
    {
        if (sev)
            break;
        const char *type = str(sv, "type");
        if (type && strcmp(type, "Ubuntu") == 0)
            sev = severity_of(str(sv, "score"));
    }
    if (!sev)
        add_error(errors, "/database_specific/severity",
                  "is required: LOW, MODERATE, HIGH or CRITICAL (CVSS vectors are not scored)");
    else
        json_object_set_new(out, "severity", json_string(sev));

    json_t *cves = json_array();
    if (is_cve(id))
        json_array_append_new(cves, json_string(id));
    json_t *alias;
    json_array_foreach(json_object_get(doc, "aliases"), i, alias)
    {
        if (is_cve(json_string_value(alias)))
            json_array_append(cves, alias);
    }
    /* Ubuntu's USNs name their CVEs in "upstream". */
    json_array_foreach(json_object_get(doc, "upstream"), i, alias)
    {
        size_t k;
        json_t *seen;
        bool dup = false;
        json_array_foreach(cves, k, seen)
        {
            dup = dup || json_equal(seen, alias);
        }
        if (!dup && is_cve(json_string_value(alias)))
            json_array_append(cves, alias);
    }
    json_object_set_new(out, "cves", cves);

    /* The first ADVISORY reference, else the first reference with a url. */
    const char *url = NULL;
    json_t *ref;
    json_array_foreach(json_object_get(doc, "references"), i, ref)
    {
        const char *type = str(ref, "type"), *u = str(ref, "url");
        if (u && type && strcmp(type, "ADVISORY") == 0) {
            url = u;
            break;
        }
        if (u && !url)
            url = u;
    }
    if (url)
        json_object_set_new(out, "url", json_string(url));

    json_t *affected = json_array();
    char p[160];
    if (!json_is_array(affected_in) || json_array_size(affected_in) == 0)
        add_error(errors, "/affected", "must be a non-empty array");
    json_array_foreach(affected_in, i, a)
    {
        if (imx_budget_spent()) {
            add_error(errors, "/affected", "%s", IMX_BUDGET_SPENT_TEXT);
            break;
        }
        const char *name = str(json_object_get(a, "package"), "name");
        snprintf(p, sizeof p, "/affected/%zu/package/name", i);
        if (!name) {
            add_error(errors, p, "is required");
            continue;
        }
        /* A distro's ecosystem: the ranges are over its package versions, in its order. */
        const char *eco = str(json_object_get(a, "package"), "ecosystem");
        if (eco && !imx_pkg_ecosystem_order(eco))
            eco = NULL;
        if (!eco)
            name = component_of(str(json_object_get(a, "package"), "ecosystem"), name);
        size_t k;
        json_t *range;
        json_array_foreach(json_object_get(a, "ranges"), k, range)
        {
            const char *type = str(range, "type");
            snprintf(p, sizeof p, "/affected/%zu/ranges/%zu", i, k);
            if (!type || (strcmp(type, "ECOSYSTEM") != 0 && strcmp(type, "SEMVER") != 0))
                continue;
            size_t first = json_array_size(affected);
            map_events(json_object_get(range, "events"), eco, name, affected, p, errors);
            /* Ubuntu's OSV names the source package; images hold its binaries, which
             * ecosystem_specific.binaries lists: each gets the same ranges. */
            size_t last = json_array_size(affected), b;
            json_t *bin;
            json_array_foreach(
                eco ? json_object_get(json_object_get(a, "ecosystem_specific"), "binaries") : NULL,
                b, bin)
            {
                const char *bname = str(bin, "binary_name");
                if (!bname || strcmp(bname, name) == 0)
                    continue;
                for (size_t r = first; r < last; r++) {
                    json_t *copy = json_deep_copy(json_array_get(affected, r));
                    json_object_set_new(copy, "package", json_string(bname));
                    json_array_append_new(affected, copy);
                }
            }
        }
    }
    if (json_array_size(errors) == before && json_array_size(affected) == 0)
        add_error(errors, "/affected", "has no ECOSYSTEM or SEMVER range");
    json_object_set_new(out, "affected", affected);
    if (json_array_size(errors) > before) {
        json_decref(out);
        return NULL;
    }
    return out;
}
