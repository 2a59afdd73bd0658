/* Parsers of what `imaxe probe` reads (see probe_parse.h). Each is bounded: it looks at no
 * more than IMX_PROBE_TEXT_MAX bytes and writes at most IMX_PROBE_VER_MAX - 1 characters. */
#include "probe_parse.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* Copies a version token starting at p (digits, dots, and after the first digit letters, '+',
 * '-', '_', '~') into ver. Returns its length, or 0 when p does not start with a digit or the
 * token is too long. */
static size_t take_version(const char *p, char ver[IMX_PROBE_VER_MAX])
{
    if (!is_digit(*p))
        return 0;
    size_t n = 0;
    while (p[n] && (is_digit(p[n]) || p[n] == '.' || p[n] == '+' || p[n] == '-' || p[n] == '_' ||
                    p[n] == '~' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z')))
        n++;
    while (n > 0 && (p[n - 1] == '.' || p[n - 1] == '-' || p[n - 1] == ','))
        n--;
    if (n == 0 || n >= IMX_PROBE_VER_MAX)
        return 0;
    memcpy(ver, p, n);
    ver[n] = '\0';
    return n;
}

/* Is s a dotted numeric version (at least "N.N")? */
static bool dotted(const char *s)
{
    bool dot = false;
    if (!is_digit(s[0]))
        return false;
    for (const char *p = s; *p; p++) {
        if (*p == '.')
            dot = true;
        else if (!is_digit(*p))
            return false;
    }
    return dot;
}

static bool too_long(const char *text)
{
    return !text || strnlen(text, IMX_PROBE_TEXT_MAX + 1) > IMX_PROBE_TEXT_MAX;
}

int imx_probe_parse_nvrm(const char *text, char ver[IMX_PROBE_VER_MAX])
{
    if (too_long(text))
        return -1;
    const char *line = strstr(text, "NVRM version:");
    if (!line)
        return -1;
    const char *mod = strstr(line, "Kernel Module");
    const char *eol = strchr(line, '\n');
    if (!mod || (eol && mod > eol))
        return -1;
    const char *p = mod + strlen("Kernel Module");
    /* The open module names its architecture first: "Kernel Module for x86_64  580.95.05". */
    while (*p && *p != '\n') {
        while (is_space(*p))
            p++;
        char tok[IMX_PROBE_VER_MAX];
        if (take_version(p, tok) > 0 && dotted(tok)) {
            strcpy(ver, tok);
            return 0;
        }
        while (*p && *p != '\n' && !is_space(*p))
            p++;
    }
    return -1;
}

/* Trims spaces at both ends of [s, s+n) into out (capacity cap). Returns its length. */
static size_t trim_copy(const char *s, size_t n, char *out, size_t cap)
{
    while (n > 0 && (is_space(*s) || *s == '\r')) {
        s++;
        n--;
    }
    while (n > 0 && (is_space(s[n - 1]) || s[n - 1] == '\r'))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    return n;
}

int imx_probe_parse_smi_csv(const char *text, struct imx_probe_gpus *gpus,
                            char driver[IMX_PROBE_VER_MAX])
{
    if (too_long(text))
        return -1;
    gpus->count = 0;
    driver[0] = '\0';
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *comma = memchr(p, ',', len);
        if (comma) {
            char name[IMX_PROBE_NAME_MAX];
            char drv[IMX_PROBE_VER_MAX];
            trim_copy(p, (size_t)(comma - p), name, sizeof name);
            trim_copy(comma + 1, len - (size_t)(comma - p) - 1, drv, sizeof drv);
            char tok[IMX_PROBE_VER_MAX];
            bool header = strcmp(name, "name") == 0;
            if (!header && name[0] && take_version(drv, tok) > 0 && dotted(tok) &&
                gpus->count < IMX_PROBE_GPUS_MAX) {
                strcpy(gpus->name[gpus->count++], name);
                if (driver[0] == '\0')
                    strcpy(driver, tok);
            }
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    return gpus->count > 0 ? 0 : -1;
}

int imx_probe_parse_cuda_json(const char *text, char ver[IMX_PROBE_VER_MAX])
{
    if (too_long(text))
        return -1;
    json_t *doc = json_loads(text, 0, NULL);
    const char *v = json_string_value(json_object_get(json_object_get(doc, "cuda"), "version"));
    int rc = -1;
    char tok[IMX_PROBE_VER_MAX];
    if (v && strlen(v) < IMX_PROBE_VER_MAX && take_version(v, tok) == strlen(v) && dotted(tok)) {
        strcpy(ver, tok);
        rc = 0;
    }
    json_decref(doc);
    return rc;
}

int imx_probe_parse_nvcc(const char *text, char ver[IMX_PROBE_VER_MAX])
{
    if (too_long(text))
        return -1;
    const char *p = strstr(text, "Cuda compilation tools, release ");
    if (!p)
        return -1;
    p += strlen("Cuda compilation tools, release ");
    char tok[IMX_PROBE_VER_MAX];
    if (take_version(p, tok) == 0 || !dotted(tok))
        return -1;
    strcpy(ver, tok);
    return 0;
}

int imx_probe_parse_soname(const char *filename, const char *stem, char ver[IMX_PROBE_VER_MAX])
{
    size_t slen = strlen(stem);
    if (strncmp(filename, stem, slen) != 0)
        return -1;
    const char *v = filename + slen;
    size_t n = strlen(v);
    int dots = 0;
    if (n == 0 || n >= IMX_PROBE_VER_MAX || !is_digit(v[0]) || !is_digit(v[n - 1]))
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (v[i] == '.') {
            if (v[i + 1] == '.')
                return -1;
            dots++;
        } else if (!is_digit(v[i])) {
            return -1;
        }
    }
    if (dots < 2)
        return -1;
    memcpy(ver, v, n + 1);
    return 0;
}

/* The number N of a "#define NAME N" line, or -1. */
static long define_value(const char *text, const char *name)
{
    size_t nlen = strlen(name);
    for (const char *p = text; (p = strstr(p, "#define")) != NULL; p++) {
        const char *q = p + strlen("#define");
        if (!is_space(*q))
            continue;
        while (is_space(*q))
            q++;
        if (strncmp(q, name, nlen) != 0 || !is_space(q[nlen]))
            continue;
        q += nlen;
        while (is_space(*q))
            q++;
        if (!is_digit(*q))
            return -1;
        long v = 0;
        for (int i = 0; is_digit(*q) && i < 9; q++, i++)
            v = v * 10 + (*q - '0');
        if (is_digit(*q))
            return -1;
        return v;
    }
    return -1;
}

int imx_probe_parse_define_version(const char *text, const char *major, const char *minor,
                                   const char *patch, char ver[IMX_PROBE_VER_MAX])
{
    if (too_long(text))
        return -1;
    long a = define_value(text, major);
    long b = define_value(text, minor);
    long c = define_value(text, patch);
    if (a < 0 || b < 0 || c < 0)
        return -1;
    snprintf(ver, IMX_PROBE_VER_MAX, "%ld.%ld.%ld", a, b, c);
    return 0;
}

/* The value of KEY= in os-release, unquoted, into out. Returns 0, or -1. */
static int os_value(const char *text, const char *key, char out[IMX_PROBE_VER_MAX])
{
    size_t klen = strlen(key);
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            const char *v = p + klen + 1;
            size_t vlen = len - klen - 1;
            if (vlen >= 2 && (v[0] == '"' || v[0] == '\'') && v[vlen - 1] == v[0]) {
                v++;
                vlen -= 2;
            }
            if (vlen == 0 || vlen >= IMX_PROBE_VER_MAX)
                return -1;
            for (size_t i = 0; i < vlen; i++) {
                char c = v[i];
                out[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
                if ((unsigned char)c < 0x20)
                    return -1;
            }
            out[vlen] = '\0';
            return 0;
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    return -1;
}

int imx_probe_parse_os_release(const char *text, char id[IMX_PROBE_VER_MAX],
                               char version[IMX_PROBE_VER_MAX])
{
    if (too_long(text))
        return -1;
    char i[IMX_PROBE_VER_MAX];
    char v[IMX_PROBE_VER_MAX];
    if (os_value(text, "ID", i) != 0)
        return -1;
    /* Rolling distributions (Arch) have no VERSION_ID. */
    if (os_value(text, "VERSION_ID", v) != 0)
        strcpy(v, "rolling");
    strcpy(id, i);
    strcpy(version, v);
    return 0;
}

int imx_probe_parse_tool_version(const char *text, char ver[IMX_PROBE_VER_MAX])
{
    if (too_long(text))
        return -1;
    for (const char *p = text; (p = strcasestr(p, "version")) != NULL; p++) {
        const char *q = p + strlen("version");
        while (is_space(*q) || *q == ':')
            q++;
        if (*q == 'v')
            q++;
        char tok[IMX_PROBE_VER_MAX];
        if (take_version(q, tok) > 0) {
            strcpy(ver, tok);
            return 0;
        }
    }
    return -1;
}

int imx_probe_parse_kv_line(const char *text, const char *key, char ver[IMX_PROBE_VER_MAX])
{
    if (too_long(text))
        return -1;
    size_t klen = strlen(key);
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len > klen + 1 && strncmp(p, key, klen) == 0 && p[klen] == ' ') {
            char tok[IMX_PROBE_VER_MAX];
            size_t n = take_version(p + klen + 1, tok);
            if (n > 0 && n == len - klen - 1) {
                strcpy(ver, tok);
                return 0;
            }
            return -1;
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    return -1;
}

int imx_probe_parse_systemd_analyze(const char *text, double *seconds)
{
    if (too_long(text))
        return -1;
    const char *p = strstr(text, "Startup finished in ");
    if (!p)
        return -1;
    const char *eol = strchr(p, '\n');
    const char *eq = strstr(p, " = ");
    if (!eq || (eol && eq > eol))
        return -1;
    p = eq + 3;
    static const struct {
        const char *unit;
        double factor;
    } units[] = { { "min", 60 }, { "ms", 0.001 }, { "us", 0.000001 }, { "h", 3600 }, { "s", 1 } };
    double total = 0;
    int terms = 0;
    while (*p && *p != '\n') {
        while (is_space(*p))
            p++;
        if (!is_digit(*p))
            break;
        double v = 0;
        while (is_digit(*p))
            v = v * 10 + (*p++ - '0');
        if (*p == '.') {
            double scale = 0.1;
            for (p++; is_digit(*p); p++, scale /= 10)
                v += (*p - '0') * scale;
        }
        size_t u = 0;
        for (; u < sizeof units / sizeof units[0]; u++) {
            size_t n = strlen(units[u].unit);
            if (strncmp(p, units[u].unit, n) == 0 && !(p[n] >= 'a' && p[n] <= 'z')) {
                p += n;
                break;
            }
        }
        if (u == sizeof units / sizeof units[0])
            return -1;
        total += v * units[u].factor;
        terms++;
    }
    if (terms == 0)
        return -1;
    *seconds = total;
    return 0;
}

/* Words that describe a board rather than name the model. */
static bool board_word(const char *w, size_t n)
{
    static const char *const words[] = { "PCIe",  "SXM",  "SXM2",  "SXM4", "SXM5", "HBM2",
                                         "HBM2e", "HBM3", "HBM3e", "NVL",  "MIG",  NULL };
    for (size_t i = 0; words[i]; i++)
        if (strlen(words[i]) == n && strncmp(w, words[i], n) == 0)
            return true;
    /* A memory size: "80GB", "16GB". */
    return n > 2 && is_digit(w[0]) && strncmp(w + n - 2, "GB", 2) == 0;
}

void imx_probe_gpu_model(const char *name, char model[IMX_PROBE_NAME_MAX])
{
    const char *p = name;
    while (is_space(*p))
        p++;
    static const char *const prefixes[] = { "NVIDIA ", "Tesla ", NULL };
    for (size_t i = 0; prefixes[i]; i++)
        if (strncmp(p, prefixes[i], strlen(prefixes[i])) == 0)
            p += strlen(prefixes[i]);
    size_t n = 0;
    while (*p && n < IMX_PROBE_NAME_MAX - 1) {
        size_t wlen = strcspn(p, " -");
        if (wlen == 0 || board_word(p, wlen))
            break;
        if (n > 0)
            model[n++] = ' ';
        if (n + wlen >= IMX_PROBE_NAME_MAX)
            break;
        memcpy(model + n, p, wlen);
        n += wlen;
        if (p[wlen] == '-')
            break; /* "A100-SXM4-80GB": the model is before the first dash */
        p += wlen;
        while (is_space(*p))
            p++;
    }
    model[n] = '\0';
}

/* Only visible ASCII: package names and versions are, and anything else is not one. */
static bool printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
            return false;
    return true;
}

int imx_probe_parse_packages(const char *text, bool dpkg, json_t *out)
{
    if (!text || strlen(text) > IMX_PROBE_TEXT_MAX)
        return 0;
    json_t *seen = json_object();
    int n = 0;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        char line[512];
        if (len < sizeof line) {
            memcpy(line, p, len);
            line[len] = '\0';
            if (len && line[len - 1] == '\r')
                line[len - 1] = '\0';
            char *f[3] = { line, NULL, NULL };
            int nf = 1;
            for (char *c = line; *c && nf < 3; c++)
                if (*c == '\t') {
                    *c = '\0';
                    f[nf++] = c + 1;
                }
            const char *name = dpkg ? f[1] : f[0], *version = dpkg ? f[2] : f[1];
            bool installed = !dpkg || (nf == 3 && strncmp(f[0], "ii", 2) == 0);
            if (installed && name && version && *name && *version && printable(name) &&
                printable(version) && strcmp(name, "gpg-pubkey") != 0 && strlen(version) <= 128) {
                char nm[160];
                size_t nl = strcspn(name, ":");
                if (nl > 0 && nl < sizeof nm) {
                    memcpy(nm, name, nl);
                    nm[nl] = '\0';
                    char key[320];
                    snprintf(key, sizeof key, "%s\t%s", nm, version);
                    if (!json_object_get(seen, key)) {
                        if (json_array_size(out) >= IMX_PROBE_PACKAGES_MAX) {
                            json_decref(seen);
                            return -1;
                        }
                        json_object_set_new(seen, key, json_true());
                        json_array_append_new(
                            out, json_pack("{s:s, s:s}", "name", nm, "version", version));
                        n++;
                    }
                }
            }
        }
        p += len;
        if (*p)
            p++;
    }
    json_decref(seen);
    return n;
}
