/* Reading CISA's KEV catalog and FIRST's EPSS CSV (see risk_feeds.h). */
#include "domain/risk_feeds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool imx_cve_ok(const char *s)
{
    if (!s || strncmp(s, "CVE-", 4) != 0)
        return false;
    for (int i = 4; i < 8; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    if (s[8] != '-')
        return false;
    size_t n = strspn(s + 9, "0123456789");
    return n >= 4 && n <= 19 && s[9 + n] == '\0';
}

/* YYYY-MM-DD with plausible month and day (PostgreSQL checks the calendar). */
static bool date_ok(const char *s, size_t n)
{
    if (n != 10 || s[4] != '-' || s[7] != '-')
        return false;
    for (size_t i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
            return false;
    int month = (s[5] - '0') * 10 + (s[6] - '0'), day = (s[8] - '0') * 10 + (s[9] - '0');
    return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/* An RFC 3339 timestamp's shape: a date, 'T', a time, an optional fraction and a zone. */
static bool timestamp_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 20 || n > 40 || !date_ok(s, 10) || s[10] != 'T')
        return false;
    return strspn(s + 11, "0123456789:.+-Z") == n - 11;
}

/* A member that must be a string of at most max bytes (absent: "" when optional). */
static const char *text_member(const json_t *o, const char *name, size_t max, bool optional)
{
    const json_t *v = json_object_get(o, name);
    if (!v && optional)
        return "";
    const char *s = json_string_value(v);
    return s && strlen(s) <= max ? s : NULL;
}

json_t *imx_kev_read(const json_t *catalog, char *ptr, size_t ptrlen, char *msg, size_t msglen)
{
#define FAIL(p, ...)                                                                               \
    do {                                                                                           \
        snprintf(ptr, ptrlen, "%s", (p));                                                          \
        snprintf(msg, msglen, __VA_ARGS__);                                                        \
        json_decref(entries);                                                                      \
        return NULL;                                                                               \
    } while (0)
    json_t *entries = NULL;
    if (!json_is_object(catalog))
        FAIL("", "must be a JSON object: CISA's known_exploited_vulnerabilities.json");
    const char *version = text_member(catalog, "catalogVersion", 64, false);
    if (!version || !version[0])
        FAIL("/catalogVersion", "must be a string of 1 to 64 characters");
    const char *released = json_string_value(json_object_get(catalog, "dateReleased"));
    if (!released || !timestamp_ok(released))
        FAIL("/dateReleased", "must be an RFC 3339 timestamp");
    const json_t *vulns = json_object_get(catalog, "vulnerabilities");
    if (!json_is_array(vulns))
        FAIL("/vulnerabilities", "must be an array");
    if (json_array_size(vulns) > IMX_KEV_ENTRIES_MAX)
        FAIL("/vulnerabilities", "at most %d entries", IMX_KEV_ENTRIES_MAX);
    entries = json_array();
    size_t i;
    const json_t *v;
    json_array_foreach(vulns, i, v)
    {
        char at[96];
        snprintf(at, sizeof at, "/vulnerabilities/%zu", i);
        if (!json_is_object(v))
            FAIL(at, "must be an object");
        const char *cve = json_string_value(json_object_get(v, "cveID"));
        if (!imx_cve_ok(cve)) {
            snprintf(at, sizeof at, "/vulnerabilities/%zu/cveID", i);
            FAIL(at, "must be a CVE id such as CVE-2024-0132");
        }
        static const char *const texts[] = { "vendorProject", "product", "vulnerabilityName" };
        const char *t[3];
        for (int k = 0; k < 3; k++) {
            t[k] = text_member(v, texts[k], IMX_FEED_TEXT_MAX, true);
            if (!t[k]) {
                snprintf(at, sizeof at, "/vulnerabilities/%zu/%s", i, texts[k]);
                FAIL(at, "must be a string of at most %d bytes", IMX_FEED_TEXT_MAX);
            }
        }
        const char *added = json_string_value(json_object_get(v, "dateAdded"));
        if (!added || !date_ok(added, strlen(added))) {
            snprintf(at, sizeof at, "/vulnerabilities/%zu/dateAdded", i);
            FAIL(at, "must be YYYY-MM-DD");
        }
        const json_t *due = json_object_get(v, "dueDate");
        const char *due_s = json_string_value(due);
        if (due && !json_is_null(due) && (!due_s || !date_ok(due_s, strlen(due_s)))) {
            snprintf(at, sizeof at, "/vulnerabilities/%zu/dueDate", i);
            FAIL(at, "must be YYYY-MM-DD");
        }
        const char *ransom = text_member(v, "knownRansomwareCampaignUse", 32, true);
        if (!ransom) {
            snprintf(at, sizeof at, "/vulnerabilities/%zu/knownRansomwareCampaignUse", i);
            FAIL(at, "must be a string of at most 32 bytes, such as Known or Unknown");
        }
        json_array_append_new(entries, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s?, s:s}", "cve", cve,
                                                 "vendor", t[0], "product", t[1], "name", t[2],
                                                 "date_added", added, "due_date", due_s,
                                                 "ransomware", ransom[0] ? ransom : "Unknown"));
    }
    return json_pack("{s:s, s:s, s:o}", "catalog_version", version, "date_released", released,
                     "entries", entries);
#undef FAIL
}

/* ---- EPSS ---- */

/* A growable text with a named maximum. */
struct text {
    char *s;
    size_t len, cap, max;
};

static int text_add(struct text *t, const char *p, size_t n)
{
    if (t->len + n + 1 > t->max)
        return -1;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        if (cap > t->max)
            cap = t->max;
        char *ns = realloc(t->s, cap);
        if (!ns)
            return -1;
        t->s = ns;
        t->cap = cap;
    }
    memcpy(t->s + t->len, p, n);
    t->len += n;
    t->s[t->len] = '\0';
    return 0;
}

/* A score: digits, optionally '.' and 1 to 9 digits, between 0 and 1. */
static bool score_ok(const char *s, size_t n)
{
    size_t d = 0;
    while (d < n && s[d] >= '0' && s[d] <= '9')
        d++;
    if (d != 1 || s[0] > '1')
        return false;
    if (d < n) {
        if (s[d] != '.' || n - d - 1 < 1 || n - d - 1 > 9)
            return false;
        for (size_t k = d + 1; k < n; k++)
            if (s[k] < '0' || s[k] > '9')
                return false;
    }
    if (s[0] == '1') /* 1, 1.0, 1.00000: nothing above */
        for (size_t k = d + 1; k < n; k++)
            if (s[k] != '0')
                return false;
    return true;
}

/* The next line of [*at, end): its start and length without the CR LF; false at the end. */
static bool next_line(const char **at, const char *end, const char **line, size_t *n)
{
    if (*at >= end)
        return false;
    const char *nl = memchr(*at, '\n', (size_t)(end - *at));
    const char *stop = nl ? nl : end;
    *line = *at;
    *n = (size_t)(stop - *at);
    if (*n > 0 && (*line)[*n - 1] == '\r')
        (*n)--;
    *at = nl ? nl + 1 : end;
    return true;
}

/* The value of key (e.g. "score_date:") in the comment line, up to ',' or the end. */
static bool comment_value(const char *line, size_t n, const char *key, const char **v, size_t *vn)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl <= n; i++) {
        if ((i == 0 || line[i - 1] == '#' || line[i - 1] == ',') &&
            memcmp(line + i, key, kl) == 0) {
            *v = line + i + kl;
            const char *c = memchr(*v, ',', n - i - kl);
            *vn = c ? (size_t)(c - *v) : n - i - kl;
            return true;
        }
    }
    return false;
}

void imx_epss_free(struct imx_epss *e)
{
    free(e->cves);
    free(e->scores);
    free(e->percentiles);
    e->cves = e->scores = e->percentiles = NULL;
}

int imx_epss_read(const char *text, size_t len, struct imx_epss *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct text cves = { .max = IMX_EPSS_ROWS_MAX * 26 + 16 },
                scores = { .max = IMX_EPSS_ROWS_MAX * 12 + 16 },
                pcts = { .max = IMX_EPSS_ROWS_MAX * 12 + 16 };
    const char *at = text, *end = text + len, *line;
    size_t n, lineno = 1;
    const char *v;
    size_t vn;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        free(cves.s);                                                                              \
        free(scores.s);                                                                            \
        free(pcts.s);                                                                              \
        return -1;                                                                                 \
    } while (0)
    if (memchr(text, '\0', len))
        FAIL("the file holds a NUL byte: not FIRST's EPSS CSV");
    if (!next_line(&at, end, &line, &n) || n == 0 || line[0] != '#')
        FAIL("line 1: must be FIRST's \"#model_version:...,score_date:...\" comment");
    if (!comment_value(line, n, "model_version:", &v, &vn) || vn == 0 ||
        vn >= sizeof out->model_version)
        FAIL("line 1: model_version must be 1 to 64 characters");
    for (size_t k = 0; k < vn; k++)
        if ((unsigned char)v[k] < 0x21 || (unsigned char)v[k] > 0x7e)
            FAIL("line 1: model_version must be printable ASCII");
    memcpy(out->model_version, v, vn);
    if (!comment_value(line, n, "score_date:", &v, &vn) || vn < 10 || !date_ok(v, 10) ||
        (vn > 10 && v[10] != 'T'))
        FAIL("line 1: score_date must be YYYY-MM-DD (a time may follow after T)");
    memcpy(out->score_date, v, 10);
    lineno++;
    if (!next_line(&at, end, &line, &n) || n != 19 || memcmp(line, "cve,epss,percentile", 19) != 0)
        FAIL("line 2: must be the header cve,epss,percentile");
    text_add(&cves, "{", 1);
    text_add(&scores, "{", 1);
    text_add(&pcts, "{", 1);
    while (next_line(&at, end, &line, &n)) {
        lineno++;
        if (n == 0 && at >= end)
            break; /* the final newline */
        if (out->rows == IMX_EPSS_ROWS_MAX)
            FAIL("line %zu: at most %d scores", lineno, IMX_EPSS_ROWS_MAX);
        const char *c1 = memchr(line, ',', n);
        const char *c2 = c1 ? memchr(c1 + 1, ',', n - (size_t)(c1 + 1 - line)) : NULL;
        if (!c2 || memchr(c2 + 1, ',', n - (size_t)(c2 + 1 - line)))
            FAIL("line %zu: must be cve,epss,percentile", lineno);
        char cve[32];
        size_t cl = (size_t)(c1 - line);
        if (cl >= sizeof cve)
            FAIL("line %zu: not a CVE id", lineno);
        memcpy(cve, line, cl);
        cve[cl] = '\0';
        if (!imx_cve_ok(cve))
            FAIL("line %zu: %s is not a CVE id", lineno, cve);
        size_t sl = (size_t)(c2 - c1 - 1), pl = n - (size_t)(c2 + 1 - line);
        if (!score_ok(c1 + 1, sl))
            FAIL("line %zu: epss must be a number from 0 to 1", lineno);
        if (!score_ok(c2 + 1, pl))
            FAIL("line %zu: percentile must be a number from 0 to 1", lineno);
        const char *sep = out->rows ? "," : "";
        size_t sepn = out->rows ? 1 : 0;
        if (text_add(&cves, sep, sepn) || text_add(&cves, cve, cl) ||
            text_add(&scores, sep, sepn) || text_add(&scores, c1 + 1, sl) ||
            text_add(&pcts, sep, sepn) || text_add(&pcts, c2 + 1, pl))
            FAIL("out of memory");
        out->rows++;
    }
    if (text_add(&cves, "}", 1) || text_add(&scores, "}", 1) || text_add(&pcts, "}", 1))
        FAIL("out of memory");
    out->cves = cves.s;
    out->scores = scores.s;
    out->percentiles = pcts.s;
    return 0;
#undef FAIL
}
