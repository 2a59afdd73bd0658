/* Command-line parsing for imaxe: options are data (one table per command plus the global
 * table), parsed the same way for every command. Pure: no I/O. */
#ifndef IMX_CLI_ARGS_H
#define IMX_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>

enum imx_cli_opt_kind {
    IMX_CLI_OPT_VALUE, /* --name VALUE or --name=VALUE; the last one counts */
    IMX_CLI_OPT_LIST,  /* repeatable --name VALUE */
    IMX_CLI_OPT_FLAG,  /* --name (no value) */
};

struct imx_cli_opt {
    const char *name; /* long name without the dashes */
    char short_name;  /* 0: none */
    enum imx_cli_opt_kind kind;
    const char *query; /* the query parameter it becomes, or NULL (the command reads it) */
    const char *help;
};

#define IMX_CLI_POS_MAX  16
#define IMX_CLI_VALS_MAX 64

struct imx_cli_val {
    const struct imx_cli_opt *opt; /* borrowed from the tables */
    const char *value;             /* borrowed from argv ("" for a flag) */
};

struct imx_cli_args {
    const char *pos[IMX_CLI_POS_MAX];
    size_t npos;
    struct imx_cli_val v[IMX_CLI_VALS_MAX];
    size_t nv;
};

/* Parses argv[0..argc) against tables (NULL-ended), appending to a (which the caller zeroes
 * first). With stop_at_pos, stops before the first positional argument and sets *used to the
 * number of arguments consumed. "--" ends options; "-" alone is positional. Returns 0, or -1
 * with a sentence in err (unknown option, missing value, too many arguments). */
int imx_cli_args_parse(int argc, char *const *argv, const struct imx_cli_opt *const *tables,
                       bool stop_at_pos, struct imx_cli_args *a, int *used, char *err,
                       size_t errlen);

/* The last value given for option name (borrowed), or NULL. */
const char *imx_cli_args_get(const struct imx_cli_args *a, const char *name);

/* Was option name given? */
bool imx_cli_args_has(const struct imx_cli_args *a, const char *name);

/* The values of option name, in order, into out. Returns how many it stored (at most max). */
size_t imx_cli_args_list(const struct imx_cli_args *a, const char *name, const char **out,
                         size_t max);

/* Longest word the suggestions compare. */
#define IMX_CLI_WORD_MAX 64

/* Levenshtein distance of a[0..la) and b[0..lb); (size_t)-1 past IMX_CLI_WORD_MAX. */
size_t imx_cli_edit_distance(const char *a, size_t la, const char *b, size_t lb);

/* The candidate nearest to word[0..len) when it is a likely typo of it (at most 2 edits, and at
 * most a third of the word), else NULL. Borrowed from cands. */
const char *imx_cli_closest(const char *word, size_t len, const char *const *cands, size_t n);

#endif
