/* The write verbs that are more than one route with a JSON file: `imaxe api` (any request, as
 * `gh api`), `members set` (the role from an option), `users|teams disable|enable`, and writes that
 * must name the revision they change (read the ETag, then write with If-Match). */
#include "cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The path of cmd with positionals put in ({0}, {1}) escaped, into b. Returns 0 or a usage code. */
static int fill_path(const char *tmpl, struct imx_cli_ctx *ctx, struct imx_cli_buf *b)
{
    for (const char *p = tmpl; *p; p++) {
        if (p[0] == '{' && p[1] >= '0' && p[1] <= '9' && p[2] == '}') {
            size_t i = (size_t)(p[1] - '0');
            if (i >= ctx->args.npos)
                return IMX_CLI_EXIT_USAGE;
            imx_cli_buf_add_escaped(b, ctx->args.pos[i]);
            p += 2;
        } else {
            imx_cli_buf_add(b, p, 1);
        }
    }
    return 0;
}

/* Prints an answer (JSON as -o says; anything else as it came). Returns an exit code. */
static int print_answer(struct imx_cli_ctx *ctx, const struct imx_cli_resp *r, const char *columns)
{
    if (r->status == 204 || r->body.len == 0)
        return IMX_CLI_EXIT_OK;
    if (!strstr(r->content_type, "json"))
        return imx_cli_write_out(&r->body);
    json_t *doc = imx_cli_resp_json(r);
    int code = doc ? imx_cli_print_doc(ctx, doc, columns) : IMX_CLI_EXIT_SERVER;
    json_decref(doc);
    return code;
}

/* imaxe api METHOD PATH [--data JSON|@FILE|@-] [--header 'Name: value']...: any request to the
 * server with the stored sign-in, for what no verb covers yet. PATH starts with "/"; "/v1" is
 * added when it does not start with "/v1/" or a known unversioned path. */
int imx_cli_run_api(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    static const char *const methods[] = { "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD" };
    char method[8] = "";
    const char *m = ctx->args.pos[0], *path = ctx->args.pos[1];
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcasecmp(m, methods[i]) == 0)
            snprintf(method, sizeof method, "%s", methods[i]);
    if (!method[0] || path[0] != '/') {
        imx_cli_err("usage: imaxe api METHOD /PATH (METHOD: GET, POST, PUT, PATCH, DELETE, HEAD)");
        return IMX_CLI_EXIT_USAGE;
    }
    struct imx_cli_buf url, body = { 0 };
    imx_cli_buf_init(&url, 16384);
    bool unversioned = strncmp(path, "/v1/", 4) == 0 || strcmp(path, "/livez") == 0 ||
                       strcmp(path, "/readyz") == 0 || strcmp(path, "/metrics") == 0 ||
                       strcmp(path, "/openapi.json") == 0;
    if (!unversioned)
        imx_cli_buf_puts(&url, "/v1");
    imx_cli_buf_puts(&url, path);
    int code = IMX_CLI_EXIT_OK;
    const char *data = imx_cli_args_get(&ctx->args, "data");
    if (data && data[0] == '@') {
        if (imx_cli_read_input(data + 1, &body) != 0)
            code = IMX_CLI_EXIT_USAGE;
    } else if (data) {
        imx_cli_buf_init(&body, IMX_CLI_FILE_MAX);
        imx_cli_buf_puts(&body, data);
    }
    const char *given[IMX_CLI_VALS_MAX + 1];
    size_t nh = imx_cli_args_list(&ctx->args, "header", given, IMX_CLI_VALS_MAX);
    for (size_t i = 0; code == 0 && i < nh; i++) {
        const char *colon = strchr(given[i], ':');
        if (!colon || colon == given[i] || strpbrk(given[i], "\r\n")) {
            imx_cli_err("--header wants 'Name: value', not '%s'", given[i]);
            code = IMX_CLI_EXIT_USAGE;
        }
    }
    given[nh] = NULL;
    struct imx_cli_resp r;
    imx_cli_resp_init(&r);
    if (code == 0) {
        code = imx_cli_call(ctx, method, imx_cli_buf_str(&url), data ? "application/json" : NULL,
                            body.data, body.len, given, &r);
        if (code == 0)
            code = print_answer(ctx, &r, NULL);
    }
    imx_cli_resp_free(&r);
    imx_cli_buf_free(&url);
    imx_cli_buf_free(&body);
    return code;
}

/* members set TEAM EMAIL --role ROLE: adds the user to the team, or changes their role. */
int imx_cli_run_member_set(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    const char *role = imx_cli_args_get(&ctx->args, "role");
    if (!role) {
        imx_cli_err("members set needs --role viewer|member|publisher|admin");
        return IMX_CLI_EXIT_USAGE;
    }
    struct imx_cli_buf path;
    imx_cli_buf_init(&path, 4096);
    int code = fill_path(cmd->path, ctx, &path);
    json_t *req = json_pack("{s:s}", "role", role);
    char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
    struct imx_cli_resp r;
    imx_cli_resp_init(&r);
    if (code == 0 && !body)
        code = IMX_CLI_EXIT_USAGE;
    if (code == 0) {
        code = imx_cli_call(ctx, cmd->method, imx_cli_buf_str(&path), "application/json", body,
                            strlen(body), NULL, &r);
        if (code == 0)
            code = print_answer(ctx, &r, NULL);
    }
    imx_cli_resp_free(&r);
    free(body);
    json_decref(req);
    imx_cli_buf_free(&path);
    return code;
}

/* users disable ID, users enable ID, teams disable SLUG, teams enable SLUG: PATCH the user or
 * team with {"disabled": true|false}. */
int imx_cli_run_user_state(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    struct imx_cli_buf path;
    imx_cli_buf_init(&path, 4096);
    int code = fill_path(cmd->path, ctx, &path);
    const char *body =
        strcmp(cmd->verb, "disable") == 0 ? "{\"disabled\":true}" : "{\"disabled\":false}";
    struct imx_cli_resp r;
    imx_cli_resp_init(&r);
    if (code == 0) {
        code = imx_cli_call(ctx, cmd->method, imx_cli_buf_str(&path), "application/json", body,
                            strlen(body), NULL, &r);
        if (code == 0)
            code = print_answer(ctx, &r, NULL);
    }
    imx_cli_resp_free(&r);
    imx_cli_buf_free(&path);
    return code;
}

/* A write that names the revision it changes: GET the resource for its ETag, then send the
 * command's method with If-Match (and the JSON file after the positionals in the path, if the
 * command takes one), so a change made meanwhile by someone else is refused (412), not lost. */
int imx_cli_run_conditional(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    struct imx_cli_buf path, body = { 0 };
    imx_cli_buf_init(&path, 4096);
    int code = fill_path(cmd->path, ctx, &path);
    size_t used = 0;
    for (const char *p = cmd->path; (p = strchr(p, '{')) != NULL; p++)
        if (isdigit((unsigned char)p[1]) && (size_t)(p[1] - '0') + 1 > used)
            used = (size_t)(p[1] - '0') + 1;
    if (code == 0 && cmd->body == IMX_CLI_BODY_JSON) {
        const char *file = ctx->args.npos > used ? ctx->args.pos[used] : "-";
        if (strcmp(file, "-") == 0 && isatty(0))
            fputs("imaxe: reading JSON from the terminal (Ctrl-D ends it)\n", stderr);
        if (imx_cli_read_input(file, &body) != 0)
            code = IMX_CLI_EXIT_USAGE;
    }
    /* The query (--reason and the like) goes on the write only. */
    struct imx_cli_buf write_path;
    imx_cli_buf_init(&write_path, 8192);
    imx_cli_buf_puts(&write_path, imx_cli_buf_str(&path));
    char sep = '?';
    for (size_t i = 0; i < ctx->args.nv; i++) {
        const struct imx_cli_val *v = &ctx->args.v[i];
        if (!v->opt->query)
            continue;
        imx_cli_buf_add(&write_path, &sep, 1);
        imx_cli_buf_add_escaped(&write_path, v->opt->query);
        imx_cli_buf_add(&write_path, "=", 1);
        imx_cli_buf_add_escaped(&write_path, v->value);
        sep = '&';
    }
    struct imx_cli_resp r;
    imx_cli_resp_init(&r);
    if (code == 0)
        code = imx_cli_call(ctx, "GET", imx_cli_buf_str(&path), NULL, NULL, 0, NULL, &r);
    if (code == 0 && !r.etag[0]) {
        imx_cli_err("the server sent no ETag for %s", imx_cli_buf_str(&path));
        code = IMX_CLI_EXIT_SERVER;
    }
    if (code == 0) {
        char if_match[300];
        snprintf(if_match, sizeof if_match, "If-Match: %s", r.etag);
        const char *headers[] = { if_match, NULL };
        imx_cli_resp_free(&r);
        code =
            imx_cli_call(ctx, cmd->method, imx_cli_buf_str(&write_path),
                         body.data ? "application/json" : NULL, body.data, body.len, headers, &r);
        if (code == 0)
            code = print_answer(ctx, &r, NULL);
    }
    if (code == IMX_CLI_EXIT_USAGE)
        imx_cli_err("usage: imaxe %s %s %s", cmd->noun, cmd->verb, cmd->synopsis);
    imx_cli_resp_free(&r);
    imx_cli_buf_free(&write_path);
    imx_cli_buf_free(&path);
    imx_cli_buf_free(&body);
    return code;
}
