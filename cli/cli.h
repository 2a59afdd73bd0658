/* imaxe, the command line: the command table (noun, verb, options, the route it calls) and
 * what every command shares (the server connection, output, exit codes). */
#ifndef IMX_CLI_H
#define IMX_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "args.h"
#include "exit.h"
#include "format.h"
#include "http.h"

/* The largest file a command reads (a manifest, an advisory, a CSV of measurements). */
#define IMX_CLI_FILE_MAX (16u << 20)
/* Items --all collects at most before it stops with an error (ndjson streams instead). */
#define IMX_CLI_ALL_MAX 1000000

struct imx_cli_ctx {
    struct imx_cli_args args; /* the command's options and positionals, globals included */
    enum imx_cli_fmt fmt;
    bool color;
    struct imx_cli_http http;
    char url[1024];
    char token[4096];
    char profile[64]; /* --profile or IMAXE_PROFILE; "" for the default */
    /* The stored sign-in's refresh token, when the token in use is the stored one ("" else). */
    char refresh[128];
};

struct imx_cli_cmd;
typedef int (*imx_cli_run)(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx);

enum imx_cli_body {
    IMX_CLI_BODY_NONE,
    IMX_CLI_BODY_JSON, /* a JSON file (last positional, or stdin) */
};

struct imx_cli_cmd {
    const char *noun;
    const char *verb;     /* NULL: the noun alone (probe, measure, costs, login) */
    const char *synopsis; /* positionals, e.g. "ID" or "[FILE]" */
    size_t pos_min, pos_max;
    const char *summary;
    const char *examples; /* lines of shell, each run as written against `make run` */
    const struct imx_cli_opt *opts;
    const char *method; /* the route for the generic runner */
    const char *path;   /* "{0}" is the first positional, escaped */
    enum imx_cli_body body;
    const char *columns; /* table columns of list items (NULL: their scalars) */
    imx_cli_run run;     /* NULL: the generic runner */
    bool anonymous;      /* needs no token */
};

/* The command table, ended by a NULL noun. */
extern const struct imx_cli_cmd imx_cli_commands[];
/* Options every command takes. */
extern const struct imx_cli_opt imx_cli_global_opts[];

/* Sends a request (path includes the query) and, on an error status or no answer, prints why
 * on stderr. Returns the exit code for the answer; r is filled either way (caller frees). */
int imx_cli_call(struct imx_cli_ctx *ctx, const char *method, const char *path,
                 const char *content_type, const char *body, size_t body_len,
                 const char *const *headers, struct imx_cli_resp *r);

/* Parses r's body as JSON (new reference), or prints why and returns NULL. */
json_t *imx_cli_resp_json(const struct imx_cli_resp *r);

/* Prints an answer document as ctx asks (--field, -o). Returns an exit code. */
int imx_cli_print_doc(struct imx_cli_ctx *ctx, json_t *doc, const char *columns);

/* Reads a file ("-": stdin) of at most IMX_CLI_FILE_MAX bytes into b. Returns 0, or -1
 * (printed). */
int imx_cli_read_input(const char *path, struct imx_cli_buf *b);

/* Writes b to stdout. Returns 0, or IMX_CLI_EXIT_SERVER when stdout failed. */
int imx_cli_write_out(const struct imx_cli_buf *b);

/* Prints "imaxe: <message>" on stderr. */
void imx_cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs a command that is one route (see struct imx_cli_cmd). Returns an exit code. */
int imx_cli_run_generic(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx);

/* The handlers of cmd_admin.c. */
int imx_cli_run_api(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx);
int imx_cli_run_member_set(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx);
int imx_cli_run_user_state(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx);
struct imx_cli_config;
/* `imaxe login --sso` (cli/cmd_sso.c): the device sign-in; fills cfg's token and refresh.
 * Returns an exit code. */
int imx_cli_sso_sign_in(struct imx_cli_ctx *ctx, struct imx_cli_config *cfg);
/* `imaxe logout` (cli/cmd_logout.c). */
int imx_cli_run_logout(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx);
int imx_cli_run_conditional(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx);

/* The handlers of cmd_probe.c. */
int imx_cli_run_probe(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx);
int imx_cli_run_measure(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx);
/* The handlers of cmd_risk.c: the KEV and EPSS imports. */
int imx_cli_run_import_kev(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx);
int imx_cli_run_import_epss(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx);

#endif
