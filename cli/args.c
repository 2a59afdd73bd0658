/* Table-driven option parsing (see args.h). */
#include "args.h"

#include <stdio.h>
#include <string.h>

static const struct imx_cli_opt *find_long(const struct imx_cli_opt *const *tables,
                                           const char *name, size_t len)
{
    for (size_t t = 0; tables && tables[t]; t++)
        for (const struct imx_cli_opt *o = tables[t]; o->name; o++)
            if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
                return o;
    return NULL;
}

static const struct imx_cli_opt *find_short(const struct imx_cli_opt *const *tables, char c)
{
    for (size_t t = 0; tables && tables[t]; t++)
        for (const struct imx_cli_opt *o = tables[t]; o->name; o++)
            if (o->short_name && o->short_name == c)
                return o;
    return NULL;
}

static int add_val(struct imx_cli_args *a, const struct imx_cli_opt *o, const char *value,
                   char *err, size_t errlen)
{
    if (a->nv >= IMX_CLI_VALS_MAX) {
        snprintf(err, errlen, "too many options (at most %d)", IMX_CLI_VALS_MAX);
        return -1;
    }
    a->v[a->nv].opt = o;
    a->v[a->nv].value = value;
    a->nv++;
    return 0;
}

static int add_pos(struct imx_cli_args *a, const char *arg, char *err, size_t errlen)
{
    if (a->npos >= IMX_CLI_POS_MAX) {
        snprintf(err, errlen, "too many arguments (at most %d)", IMX_CLI_POS_MAX);
        return -1;
    }
    a->pos[a->npos++] = arg;
    return 0;
}

size_t imx_cli_edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    if (la > IMX_CLI_WORD_MAX || lb > IMX_CLI_WORD_MAX)
        return (size_t)-1;
    size_t row[IMX_CLI_WORD_MAX + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *imx_cli_closest(const char *word, size_t len, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = len / 3 + 1; /* a typo, not another word: at most a third of it, and 1 */
    if (best_d > 2)
        best_d = 2;
    for (size_t i = 0; i < n; i++) {
        size_t d = imx_cli_edit_distance(word, len, cands[i], strlen(cands[i]));
        if (d <= best_d && (!best || d < best_d)) {
            best = cands[i];
            best_d = d;
        }
    }
    return best;
}

/* The option of tables nearest to the mistyped name, or NULL. */
static const char *closest_option(const struct imx_cli_opt *const *tables, const char *name,
                                  size_t len)
{
    const char *names[IMX_CLI_VALS_MAX];
    size_t n = 0;
    for (size_t t = 0; tables[t]; t++)
        for (const struct imx_cli_opt *o = tables[t]; o->name && n < IMX_CLI_VALS_MAX; o++)
            names[n++] = o->name;
    return imx_cli_closest(name, len, names, n);
}

int imx_cli_args_parse(int argc, char *const *argv, const struct imx_cli_opt *const *tables,
                       bool stop_at_pos, struct imx_cli_args *a, int *used, char *err,
                       size_t errlen)
{
    int i = 0;
    bool options_done = false;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            if (stop_at_pos)
                break;
            if (add_pos(a, arg, err, errlen) != 0)
                return -1;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            if (stop_at_pos) {
                i++;
                break;
            }
            options_done = true;
            continue;
        }
        const struct imx_cli_opt *o;
        const char *inline_value = NULL;
        if (arg[1] == '-') {
            const char *name = arg + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            o = find_long(tables, name, len);
            if (!o) {
                const char *near = closest_option(tables, name, len);
                snprintf(err, errlen, "unknown option --%.*s%s%s%s", (int)(len > 64 ? 64 : len),
                         name, near ? " (did you mean --" : "", near ? near : "", near ? "?)" : "");
                return -1;
            }
            if (eq)
                inline_value = eq + 1;
        } else {
            o = find_short(tables, arg[1]);
            if (!o) {
                snprintf(err, errlen, "unknown option -%c", arg[1]);
                return -1;
            }
            if (arg[2] != '\0')
                inline_value = arg + 2;
        }
        if (o->kind == IMX_CLI_OPT_FLAG) {
            if (inline_value) {
                snprintf(err, errlen, "option --%s takes no value", o->name);
                return -1;
            }
            if (add_val(a, o, "", err, errlen) != 0)
                return -1;
            continue;
        }
        if (!inline_value) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "option --%s needs a value", o->name);
                return -1;
            }
            inline_value = argv[++i];
        }
        if (add_val(a, o, inline_value, err, errlen) != 0)
            return -1;
    }
    if (used)
        *used = i;
    return 0;
}

const char *imx_cli_args_get(const struct imx_cli_args *a, const char *name)
{
    const char *v = NULL;
    for (size_t i = 0; i < a->nv; i++)
        if (strcmp(a->v[i].opt->name, name) == 0)
            v = a->v[i].value;
    return v;
}

bool imx_cli_args_has(const struct imx_cli_args *a, const char *name)
{
    return imx_cli_args_get(a, name) != NULL;
}

size_t imx_cli_args_list(const struct imx_cli_args *a, const char *name, const char **out,
                         size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nv && n < max; i++)
        if (strcmp(a->v[i].opt->name, name) == 0)
            out[n++] = a->v[i].value;
    return n;
}
