/* imaxe: the command line of the imaxe catalog (`imaxe NOUN VERB [options]`). Finds the
 * command in the table (commands.c), parses its options, resolves the server and token, runs
 * it, and exits with the documented code. */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"

#ifndef IMX_VERSION
#define IMX_VERSION "dev"
#endif

static void print_opts(FILE *f, const struct imx_cli_opt *opts)
{
    for (const struct imx_cli_opt *o = opts; o->name; o++) {
        char shrt[8] = "    ";
        char left[64];
        if (o->short_name)
            snprintf(shrt, sizeof shrt, "-%c, ", o->short_name);
        snprintf(left, sizeof left, "%s--%s%s", shrt, o->name,
                 o->kind == IMX_CLI_OPT_FLAG ? "" : " V");
        fprintf(f, "  %-24s %s%s\n", left, o->help,
                o->kind == IMX_CLI_OPT_LIST ? " [repeatable]" : "");
    }
}

static void usage_all(FILE *f)
{
    fputs("usage: imaxe NOUN VERB [ARGS] [options]     (imaxe NOUN VERB --help for one)\n\n"
          "commands:\n",
          f);
    for (const struct imx_cli_cmd *c = imx_cli_commands; c->noun; c++) {
        char name[64];
        snprintf(name, sizeof name, "%s %s %s", c->noun, c->verb ? c->verb : "", c->synopsis);
        fprintf(f, "  %-30s %s\n", name, c->summary);
    }
    fputs("  version                        print the version\n\n"
          "global options:\n",
          f);
    print_opts(f, imx_cli_global_opts);
    fputs("\nOutput goes to stdout (table on a terminal, JSON otherwise; NO_COLOR is honoured),\n"
          "messages to stderr. Exit codes: 0 ok, 1 usage, 2 not found, 3 refused or invalid,\n"
          "4 not signed in or token refused, 5 server or network error, 6 probe --check drift.\n"
          "Environment: IMAXE_URL, IMAXE_TOKEN, XDG_CONFIG_HOME (token file imaxe/config.json).\n",
          f);
}

static void usage_cmd(FILE *f, const struct imx_cli_cmd *c)
{
    fprintf(f, "usage: imaxe %s%s%s %s [options]\n\n%s.\n", c->noun, c->verb ? " " : "",
            c->verb ? c->verb : "", c->synopsis, c->summary);
    if (c->opts[0].name) {
        fputs("\noptions:\n", f);
        print_opts(f, c->opts);
    }
    fputs("\nexamples:\n", f);
    const char *p = c->examples;
    while (*p) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "  %.*s\n", (int)n, p);
        p += n;
        if (*p)
            p++;
    }
    fputs("\nGlobal options (-o, --url, --token, --all, -f, -p, --timeout): see imaxe --help.\n",
          f);
}

static bool noun_known(const char *noun)
{
    for (const struct imx_cli_cmd *c = imx_cli_commands; c->noun; c++)
        if (strcmp(c->noun, noun) == 0)
            return true;
    return false;
}

static void usage_noun(FILE *f, const char *noun)
{
    fprintf(f, "usage: imaxe %s VERB [ARGS] [options]\n\nverbs:\n", noun);
    for (const struct imx_cli_cmd *c = imx_cli_commands; c->noun; c++)
        if (strcmp(c->noun, noun) == 0)
            fprintf(f, "  %-12s %s\n", c->verb ? c->verb : "", c->summary);
}

/* Writes text for roff: backslashes and dashes escaped, a leading dot or quote protected. */
static void roff(FILE *f, const char *text)
{
    if (text[0] == '.' || text[0] == '\'')
        fputs("\\&", f);
    for (const char *p = text; *p; p++) {
        if (*p == '\\')
            fputs("\\e", f);
        else if (*p == '-')
            fputs("\\-", f);
        else
            fputc(*p, f);
    }
}

static void man_opts(FILE *f, const struct imx_cli_opt *opts)
{
    for (const struct imx_cli_opt *o = opts; o->name; o++) {
        fputs(".TP\n.B ", f);
        if (o->short_name)
            fprintf(f, "\\-%c, ", o->short_name);
        fputs("\\-\\-", f);
        roff(f, o->name);
        fputs(o->kind == IMX_CLI_OPT_FLAG ? "\n" : " \\fIV\\fR\n", f);
        roff(f, o->help);
        fputs(o->kind == IMX_CLI_OPT_LIST ? " (repeatable)\n" : "\n", f);
    }
}

/* The man page, made from the command table so that it lists exactly what the binary does. */
static void print_man(FILE *f)
{
    fputs(".TH IMAXE 1 \"\" \"imaxe " IMX_VERSION "\" \"User Commands\"\n"
          ".SH NAME\nimaxe \\- the command line of the imaxe GPU image catalog\n"
          ".SH SYNOPSIS\n.B imaxe\n\\fINOUN\\fR [\\fIVERB\\fR] [\\fIARGS\\fR] "
          "[\\fIoptions\\fR]\n"
          ".SH DESCRIPTION\nimaxe calls the imaxe server for scripts and people: data goes to "
          "stdout (a table on a terminal, JSON otherwise), messages to stderr, and the exit "
          "code says what happened. \\fBimaxe probe\\fR reads the GPU stack of the machine it "
          "runs on.\n.SH COMMANDS\n",
          f);
    for (const struct imx_cli_cmd *c = imx_cli_commands; c->noun; c++) {
        fputs(".SS \"", f);
        roff(f, c->noun);
        if (c->verb) {
            fputc(' ', f);
            roff(f, c->verb);
        }
        if (c->synopsis[0]) {
            fputc(' ', f);
            roff(f, c->synopsis);
        }
        fputs("\"\n", f);
        roff(f, c->summary);
        fputs(".\n", f);
        man_opts(f, c->opts);
        fputs(".PP\nExample:\n.PP\n.nf\n.RS\n", f);
        const char *p = c->examples;
        while (*p) {
            size_t n = strcspn(p, "\n");
            char line[1024];
            snprintf(line, sizeof line, "%.*s", (int)n, p);
            roff(f, line);
            fputc('\n', f);
            p += n;
            if (*p)
                p++;
        }
        fputs(".RE\n.fi\n", f);
    }
    fputs(".SH GLOBAL OPTIONS\n", f);
    man_opts(f, imx_cli_global_opts);
    fputs(".SH EXIT STATUS\n.TP\n0\nsuccess\n.TP\n1\nusage error\n.TP\n2\nnot found "
          "(404, or a \\-\\-field that is not there)\n.TP\n3\nrefused or invalid (400, 403, "
          "409, 412, 422, 428; a compat check with errors; a webhook that does not verify)\n"
          ".TP\n4\nnot signed in, or the token was refused (401)\n.TP\n5\nserver or network "
          "error (5xx, 429, no answer)\n.TP\n6\n\\fBprobe \\-\\-check\\fR found drift\n"
          ".SH ENVIRONMENT\n.TP\nIMAXE_URL, IMAXE_TOKEN\nthe server and token when no option "
          "names them\n.TP\nIMAXE_PASSWORD\nthe password of \\fBlogin\\fR\n.TP\n"
          "IMAXE_WEBHOOK_SECRET\nthe secret of \\fBwebhooks verify\\fR\n.TP\nNO_COLOR\n"
          "no bold table headers\n.TP\nCUDA_HOME\nwhere \\fBprobe\\fR looks for the CUDA "
          "toolkit (default /usr/local/cuda)\n.TP\nIMAXE_PROBE_TIMEOUT_MS\nthe timeout of each "
          "program \\fBprobe\\fR runs (default 5000)\n"
          ".SH FILES\n.TP\n$XDG_CONFIG_HOME/imaxe/config.json\nthe server and token "
          "\\fBlogin\\fR stored (mode 0600; ~/.config when XDG_CONFIG_HOME is unset)\n",
          f);
}

/* URL and token: flags, then IMAXE_URL / IMAXE_TOKEN (not with a profile), then the login file's
 * profile (--profile, IMAXE_PROFILE) or default. The stored token is only sent to the URL it was
 * stored for. */
static int resolve_server(struct imx_cli_ctx *ctx)
{
    struct imx_cli_config cfg;
    char err[512];
    const char *profile = imx_cli_args_get(&ctx->args, "profile");
    if (!profile || !profile[0])
        profile = getenv("IMAXE_PROFILE");
    if (imx_cli_config_load(&cfg, profile, err, sizeof err) != 0) {
        imx_cli_err("%s", err);
        return IMX_CLI_EXIT_USAGE;
    }
    /* A profile names its server and sign-in: IMAXE_URL and IMAXE_TOKEN, which name another
     * server's, are not mixed into it (flags still are). */
    bool from_profile = cfg.profile[0] != '\0';
    snprintf(ctx->profile, sizeof ctx->profile, "%s", cfg.profile);
    const char *url = imx_cli_args_get(&ctx->args, "url");
    if ((!url || !url[0]) && !from_profile)
        url = getenv("IMAXE_URL");
    if (!url || !url[0])
        url = cfg.url[0] ? cfg.url : IMX_CLI_DEFAULT_URL;
    size_t len = strlen(url);
    while (len > 0 && url[len - 1] == '/')
        len--;
    if (len == 0 || len >= sizeof ctx->url ||
        (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)) {
        imx_cli_err("the server URL must be http:// or https://, not '%s'", url);
        return IMX_CLI_EXIT_USAGE;
    }
    memcpy(ctx->url, url, len);
    ctx->url[len] = '\0';
    const char *token = imx_cli_args_get(&ctx->args, "token");
    if ((!token || !token[0]) && !from_profile)
        token = getenv("IMAXE_TOKEN");
    if ((!token || !token[0]) && cfg.token[0] && strcmp(cfg.url, ctx->url) == 0) {
        token = cfg.token;
        snprintf(ctx->refresh, sizeof ctx->refresh, "%s", cfg.refresh);
    }
    memset(cfg.refresh, 0, sizeof cfg.refresh);
    if (token && token[0]) {
        snprintf(ctx->token, sizeof ctx->token, "%s", token);
        ctx->http.token = ctx->token;
    }
    memset(cfg.token, 0, sizeof cfg.token);
    ctx->http.base = ctx->url;
    const char *t = imx_cli_args_get(&ctx->args, "timeout");
    if (t) {
        char *end;
        long s = strtol(t, &end, 10);
        if (*end || s <= 0 || s > 3600) {
            imx_cli_err("--timeout wants seconds (1-3600), not '%s'", t);
            return IMX_CLI_EXIT_USAGE;
        }
        ctx->http.timeout_s = s;
    }
    return 0;
}

static int run(int argc, char **argv)
{
    static struct imx_cli_ctx ctx;
    char err[256];
    const struct imx_cli_opt *globals[] = { imx_cli_global_opts, NULL };
    int used = 0;
    if (imx_cli_args_parse(argc - 1, argv + 1, globals, true, &ctx.args, &used, err, sizeof err) !=
        0) {
        imx_cli_err("%s", err);
        return IMX_CLI_EXIT_USAGE;
    }
    int i = 1 + used;
    if (i >= argc) {
        bool help = imx_cli_args_has(&ctx.args, "help");
        usage_all(help ? stdout : stderr);
        return help ? IMX_CLI_EXIT_OK : IMX_CLI_EXIT_USAGE;
    }
    const char *noun = argv[i++];
    if (strcmp(noun, "version") == 0) {
        printf("imaxe %s\n", IMX_VERSION);
        return IMX_CLI_EXIT_OK;
    }
    if (strcmp(noun, "help") == 0) {
        /* `imaxe help commands` is what the shell completions read; `imaxe help man` is the
         * man page the build installs. */
        if (i < argc && strcmp(argv[i], "man") == 0) {
            print_man(stdout);
            return IMX_CLI_EXIT_OK;
        }
        if (i < argc && strcmp(argv[i], "commands") == 0) {
            for (const struct imx_cli_cmd *c = imx_cli_commands; c->noun; c++)
                printf("%s%s%s\n", c->noun, c->verb ? " " : "", c->verb ? c->verb : "");
            return IMX_CLI_EXIT_OK;
        }
        usage_all(stdout);
        return IMX_CLI_EXIT_OK;
    }
    if (!noun_known(noun)) {
        const char *nouns[128];
        size_t n = 0;
        for (const struct imx_cli_cmd *c = imx_cli_commands; c->noun && n < 128; c++)
            if (n == 0 || strcmp(nouns[n - 1], c->noun) != 0)
                nouns[n++] = c->noun;
        const char *near = imx_cli_closest(noun, strlen(noun), nouns, n);
        if (near)
            imx_cli_err("unknown command '%s' (did you mean '%s'?)", noun, near);
        else
            imx_cli_err("unknown command '%s' (imaxe --help lists them)", noun);
        return IMX_CLI_EXIT_USAGE;
    }
    const struct imx_cli_cmd *cmd = NULL;
    for (const struct imx_cli_cmd *c = imx_cli_commands; c->noun && !cmd; c++)
        if (strcmp(c->noun, noun) == 0 && !c->verb)
            cmd = c;
    if (!cmd) {
        if (i >= argc || argv[i][0] == '-') {
            bool help = i < argc && (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0);
            usage_noun(help ? stdout : stderr, noun);
            return help ? IMX_CLI_EXIT_OK : IMX_CLI_EXIT_USAGE;
        }
        const char *verb = argv[i++];
        for (const struct imx_cli_cmd *c = imx_cli_commands; c->noun && !cmd; c++)
            if (strcmp(c->noun, noun) == 0 && strcmp(c->verb, verb) == 0)
                cmd = c;
        if (!cmd) {
            const char *verbs[64];
            size_t n = 0;
            for (const struct imx_cli_cmd *c = imx_cli_commands; c->noun && n < 64; c++)
                if (strcmp(c->noun, noun) == 0 && c->verb)
                    verbs[n++] = c->verb;
            const char *near = imx_cli_closest(verb, strlen(verb), verbs, n);
            if (near)
                imx_cli_err("unknown command '%s %s' (did you mean '%s %s'?)", noun, verb, noun,
                            near);
            else
                imx_cli_err("unknown command '%s %s'", noun, verb);
            usage_noun(stderr, noun);
            return IMX_CLI_EXIT_USAGE;
        }
    }
    const struct imx_cli_opt *tables[] = { cmd->opts, imx_cli_global_opts, NULL };
    if (imx_cli_args_parse(argc - i, argv + i, tables, false, &ctx.args, NULL, err, sizeof err) !=
        0) {
        imx_cli_err("%s", err);
        usage_cmd(stderr, cmd);
        return IMX_CLI_EXIT_USAGE;
    }
    if (imx_cli_args_has(&ctx.args, "help")) {
        usage_cmd(stdout, cmd);
        return IMX_CLI_EXIT_OK;
    }
    if (ctx.args.npos < cmd->pos_min || ctx.args.npos > cmd->pos_max) {
        imx_cli_err("usage: imaxe %s%s%s %s", cmd->noun, cmd->verb ? " " : "",
                    cmd->verb ? cmd->verb : "", cmd->synopsis);
        return IMX_CLI_EXIT_USAGE;
    }
    bool tty = isatty(1);
    const char *fmt = imx_cli_args_get(&ctx.args, "output");
    ctx.fmt = tty ? IMX_CLI_FMT_TABLE : IMX_CLI_FMT_JSON;
    if (fmt && imx_cli_fmt_parse(fmt, &ctx.fmt) != 0) {
        imx_cli_err("-o wants table, json or ndjson, not '%s'", fmt);
        return IMX_CLI_EXIT_USAGE;
    }
    const char *no_color = getenv("NO_COLOR");
    ctx.color = tty && !(no_color && no_color[0]);
    int code = resolve_server(&ctx);
    if (code != 0)
        return code;
    if (!cmd->anonymous && !ctx.http.token) {
        if (ctx.profile[0])
            imx_cli_err("not signed in with profile %s: run `imaxe --profile %s login`",
                        ctx.profile, ctx.profile);
        else
            imx_cli_err("not signed in: run `imaxe login` or set IMAXE_TOKEN");
        return IMX_CLI_EXIT_AUTH;
    }
    return cmd->run ? cmd->run(cmd, &ctx) : imx_cli_run_generic(cmd, &ctx);
}

int main(int argc, char **argv)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        imx_cli_err("curl_global_init failed");
        return IMX_CLI_EXIT_SERVER;
    }
    int code = run(argc, argv);
    curl_global_cleanup();
    return code;
}
