/* The command table of imaxe and the runners it names: most commands are one route, run by
 * the generic runner (positionals into the path, options into the query, a JSON file as the
 * body, --all following next_cursor); the rest have a handler here or in cmd_probe.c. */
#include "cli.h"

#include <dirent.h>
#include <openssl/evp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "whsig.h"

#define V IMX_CLI_OPT_VALUE
#define L IMX_CLI_OPT_LIST
#define F IMX_CLI_OPT_FLAG

const struct imx_cli_opt imx_cli_global_opts[] = {
    { "output", 'o', V, NULL, "table, json or ndjson (default: table on a terminal, else json)" },
    { "url", 0, V, NULL, "server (default: IMAXE_URL, else what `imaxe login` stored)" },
    { "token", 0, V, NULL, "bearer token (default: IMAXE_TOKEN, else what login stored)" },
    { "all", 'a', F, NULL, "follow next_cursor to the last page" },
    { "field", 'f', V, NULL, "print only this dotted path of the answer (of each item), raw" },
    { "param", 'p', L, NULL, "extra query parameter NAME=VALUE" },
    { "timeout", 0, V, NULL, "seconds one request may take (default 60)" },
    { "profile", 0, V, NULL, "a named server and sign-in of the config file (IMAXE_PROFILE)" },
    { "help", 'h', F, NULL, "show help" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt no_opts[] = { { NULL, 0, 0, NULL, NULL } };

static const struct imx_cli_opt login_opts[] = {
    { "email", 'e', V, NULL, "sign in as this user" },
    { "password-stdin", 0, F, NULL,
      "read the password from stdin (else IMAXE_PASSWORD, else a prompt)" },
    { "api-token", 0, V, NULL,
      "store this API token (imx_...) instead of signing in (as --token)" },
    { "sso", 0, F, NULL,
      "sign in with the identity provider: open the URL shown and enter the code (RFC 8628)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt search_opts[] = {
    { "q", 0, V, "q", "words in the family, description or component names" },
    { "family", 0, V, "family", "image family" },
    { "provider", 0, V, "provider", "aws, gcp, azure, onprem or oci-container" },
    { "region", 0, V, "region", "has an artifact in this region" },
    { "arch", 0, V, "arch", "x86_64 or arm64" },
    { "os", 0, V, "os", "NAME or NAME:VERSION" },
    { "gpu", 0, V, "gpu", "GPU model or architecture (H100, hopper)" },
    { "component", 'c', L, "component", "NAME:CONSTRAINT, e.g. cuda:>=12.4" },
    { "tag", 0, L, "tag", "a tag every image has" },
    { "status", 0, V, "status", "active (default), deprecated, revoked or any" },
    { "layer", 0, V, "layer", "platform or model" },
    { "patch-status", 0, V, "patch_status", "ok, vulnerable, patch_available or revoked" },
    { "sort", 0, V, "sort", "-published_at (default), family, boot_seconds or size_gb" },
    { "limit", 'n', V, "limit", "items a page (1-200)" },
    { "facets", 0, F, "facets", "include facet counts" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt api_opts[] = {
    { "data", 'd', V, NULL, "request body: JSON text, @FILE, or @- for stdin" },
    { "header", 'H', L, NULL, "extra header 'Name: value' (repeatable)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt limit_opts[] = {
    { "limit", 'n', V, "limit", "items a page" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt reapply_opts[] = {
    { "after", 0, V, "after", "start after this advisory id (the last page's next_after)" },
    { "limit", 'n', V, "limit", "advisories this request applies" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt instance_type_opts[] = {
    { "provider", 0, V, "provider", "aws, gcp, azure, ..." },
    { "gpu", 0, V, "gpu", "GPU model, e.g. H100" },
    { "family", 0, V, "family", "instance family, e.g. p5" },
    { "limit", 'n', V, "limit", "items a page" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt user_list_opts[] = {
    { "query", 'q', V, "q", "part of the email" },
    { "limit", 'n', V, "limit", "items a page" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt member_opts[] = {
    { "role", 0, V, NULL, "viewer, member, publisher or admin" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt withdraw_opts[] = {
    { "reason", 0, V, "reason", "why (kept with the advisory)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt resolve_opts[] = {
    { "family", 0, V, "family", "image family (or --pin)" },
    { "pin", 0, V, "pin", "TEAM/NAME of a pin instead of a family" },
    { "region", 0, V, "region", "region of the artifact (required)" },
    { "arch", 0, V, "arch", "x86_64 or arm64" },
    { "component", 'c', L, "component", "NAME:CONSTRAINT" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt status_opts[] = {
    { "reason", 0, V, NULL, "why (kept with the image and in the audit log)" },
    { "cascade", 0, F, NULL, "revoke every image built on it too" },
    { "at", 0, V, NULL, "revoke at this RFC 3339 time instead of now" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt team_limit_opts[] = {
    { "team", 't', V, "team", "team slug" },
    { "limit", 'n', V, "limit", "items a page" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt plan_opts[] = {
    { "limit", 'n', V, "limit", "candidates weighed at most (the newest of the family)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt node_list_opts[] = {
    { "team", 't', V, "team", "team slug" },
    { "image", 0, V, "image", "image id the nodes booted" },
    { "family", 0, V, "family", "image family" },
    { "pin", 0, V, "pin", "pin id: its team's nodes on the pinned image" },
    { "drift", 0, V, "drift", "true or false" },
    { "stale", 0, V, "stale", "true or false" },
    { "gpu", 0, V, "gpu", "GPU model, e.g. H100" },
    { "patch-status", 0, V, "patch_status", "ok, vulnerable, patch_available, revoked" },
    { "limit", 'n', V, "limit", "items a page" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt node_get_opts[] = {
    { "team", 't', V, "team", "the node's team (when several of yours have that name)" },
    { "history", 0, V, "history", "history rows shown (0 to 500)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt lineage_opts[] = {
    { "limit", 'n', V, "limit", "children a page (the next: -p cursor=NEXT_CURSOR)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt move_opts[] = {
    { "image", 0, V, NULL, "id of the image to point the pin at (required)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt advisory_opts[] = {
    { "component", 'c', V, "component", "an affected range names this component" },
    { "severity", 0, V, "severity", "low, medium, high or critical" },
    { "cve", 0, V, "cve", "CVE id" },
    { "published-from", 0, V, "published_from", "YYYY-MM-DD" },
    { "published-to", 0, V, "published_to", "YYYY-MM-DD" },
    { "kev", 0, V, "kev", "true: in CISA's KEV catalog; false: not" },
    { "min-epss", 0, V, "min_epss", "an EPSS score of at least this (0 to 1)" },
    { "sort", 0, V, "sort", "published (newest first) or risk (KEV first, then EPSS)" },
    { "limit", 'n', V, "limit", "items a page" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt vex_opts[] = {
    { "format", 0, V, "format", "openvex (the default) or cyclonedx" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt compat_opts[] = {
    { "component", 'c', L, NULL, "NAME=VERSION of the stack" },
    { "gpu", 'g', L, NULL, "target GPU" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt measurement_import_opts[] = {
    { "team", 't', V, NULL, "team the measurements belong to (required)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt costs_opts[] = {
    { "model", 'm', V, "model", "model name (resnet50, llama-3.1-8b)" },
    { "max-p99-ms", 0, V, "max_p99_ms", "latency target on the median p99" },
    { "gpu", 0, V, "gpu", "GPU model" },
    { "pricing", 0, V, "pricing", "on_demand, spot or reserved" },
    { "region", 0, V, "region", "region" },
    { "family", 0, V, "family", "image family" },
    { "instance-family", 0, V, "instance_family", "instance family (p5, g6)" },
    { "daily-inferences", 0, V, "daily_inferences", "for the monthly cost" },
    { "team", 't', V, "team", "team slug" },
    { "limit", 'n', V, "limit", "rows" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt request_list_opts[] = {
    { "team", 't', V, "team", "team slug" },
    { "state", 0, V, "state", "open, approved, building, fulfilled, rejected or withdrawn" },
    { "limit", 'n', V, "limit", "items a page" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt webhook_list_opts[] = {
    { "team", 't', V, "team", "team slug" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt deliveries_opts[] = {
    { "state", 0, V, "state", "pending, delivered or failed" },
    { "limit", 'n', V, "limit", "items a page" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt verify_opts[] = {
    { "secret", 's', L, NULL, "whsec_... (default IMAXE_WEBHOOK_SECRET)" },
    { "id", 0, V, NULL, "webhook-id header (default WEBHOOK_ID or HTTP_WEBHOOK_ID)" },
    { "timestamp", 0, V, NULL, "webhook-timestamp header (default WEBHOOK_TIMESTAMP or HTTP_...)" },
    { "signature", 0, V, NULL, "webhook-signature header (default WEBHOOK_SIGNATURE or HTTP_...)" },
    { "tolerance", 0, V, NULL, "seconds the timestamp may be off (default 300; -1: any)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt probe_opts[] = {
    { "imds", 0, F, NULL,
      "ask EC2's instance metadata service (IMDSv2, 1 s) for the instance type" },
    { "check", 0, V, NULL,
      "compare with image ID, or FAMILY/REGION through resolve; exit 6 on drift" },
    { "publish", 0, F, NULL,
      "publish what was found (with --family, --version, --team, --artifact)" },
    { "family", 0, V, NULL, "family to publish into" },
    { "version", 0, V, NULL, "version to publish" },
    { "team", 't', V, NULL, "team that publishes" },
    { "artifact", 0, L, NULL, "REGION=ID of the image's artifact (at least one)" },
    { "provider", 0, V, NULL,
      "aws, gcp, azure, onprem, oci-container (default: aws with an instance type, else onprem)" },
    { "layer", 0, V, NULL, "platform (default) or model" },
    { "tag", 0, L, NULL, "tag" },
    { "parent", 0, V, NULL, "id of the image this one is built on" },
    { "description", 0, V, NULL, "description" },
    { "report", 0, F, NULL,
      "send what was found to POST /v1/nodes/reports (with --image or --artifact; a node token)" },
    { "image", 0, V, NULL, "--report: the catalog id of the image this node booted" },
    { "name", 0, V, NULL,
      "--report: the node's name (default: IMAXE_NODE_NAME, else the host name)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct imx_cli_opt measure_opts[] = {
    { "team", 't', V, NULL, "team the measurement belongs to (required)" },
    { "image", 0, V, NULL, "image id (required)" },
    { "instance-type", 0, V, NULL, "instance type, e.g. g6.xlarge (required)" },
    { "model", 'm', V, NULL, "model name (required)" },
    { "throughput", 0, V, NULL, "inferences per second" },
    { "from-json", 0, V, NULL, "benchmark result file: its measurement fields are used" },
    { "p50-ms", 0, V, NULL, "median latency" },
    { "p99-ms", 0, V, NULL, "p99 latency" },
    { "precision", 0, V, NULL, "fp32, fp16, bf16, fp8, int8" },
    { "batch-size", 0, V, NULL, "batch size" },
    { "gpu-count", 0, V, NULL, "GPUs used (default: what probe counts)" },
    { "pricing", 0, V, NULL, "on_demand (default), spot or reserved" },
    { "boot-seconds", 0, V, NULL, "boot time (default: systemd-analyze's total)" },
    { "no-boot", 0, F, NULL, "do not read systemd-analyze" },
    { NULL, 0, 0, NULL, NULL },
};

#undef V
#undef L
#undef F

void imx_cli_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("imaxe: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int imx_cli_write_out(const struct imx_cli_buf *b)
{
    if (b->len > 0 && fwrite(b->data, 1, b->len, stdout) != b->len)
        return IMX_CLI_EXIT_SERVER;
    return fflush(stdout) == 0 ? 0 : IMX_CLI_EXIT_SERVER;
}

int imx_cli_read_input(const char *path, struct imx_cli_buf *b)
{
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        imx_cli_err("%s: %s", path, strerror(errno));
        return -1;
    }
    imx_cli_buf_init(b, IMX_CLI_FILE_MAX);
    char chunk[65536];
    ssize_t n;
    int rc = 0;
    while ((n = read(fd, chunk, sizeof chunk)) > 0) {
        if (imx_cli_buf_add(b, chunk, (size_t)n) != 0) {
            imx_cli_err("%s: larger than %u bytes", is_stdin ? "stdin" : path, IMX_CLI_FILE_MAX);
            rc = -1;
            break;
        }
    }
    if (n < 0) {
        imx_cli_err("%s: %s", path, strerror(errno));
        rc = -1;
    }
    if (!is_stdin)
        close(fd);
    if (rc == 0 && !b->data)
        imx_cli_buf_add(b, "", 0);
    if (rc != 0)
        imx_cli_buf_free(b);
    return rc;
}

/* Prints a problem document (or the start of a body that is not one) for an error status. */
static void print_problem(const struct imx_cli_resp *r)
{
    struct imx_cli_buf msg;
    imx_cli_buf_init(&msg, 64 * 1024);
    imx_cli_fmt_problem(&msg, r->status, imx_cli_buf_str(&r->body), r->body.len);
    fputs(imx_cli_buf_str(&msg), stderr);
    imx_cli_buf_free(&msg);
}

/* The stored access token was refused: trades the stored refresh token for a new pair
 * (POST /v1/auth/refresh; the old refresh token is spent) and stores them. Returns 0 when the
 * request may be sent again with ctx's new token. */
static int refresh_sign_in(struct imx_cli_ctx *ctx)
{
    json_t *req = json_pack("{s:s}", "refresh_token", ctx->refresh);
    char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    memset(ctx->refresh, 0, sizeof ctx->refresh);
    if (!body)
        return -1;
    struct imx_cli_resp r;
    imx_cli_resp_init(&r);
    const char *saved = ctx->http.token;
    ctx->http.token = NULL;
    int rc = imx_cli_http_do(&ctx->http, "POST", "/v1/auth/refresh", "application/json", body,
                             strlen(body), NULL, &r);
    ctx->http.token = saved;
    memset(body, 0, strlen(body));
    free(body);
    json_t *doc = rc == 0 && r.status == 200
                      ? json_loadb(imx_cli_buf_str(&r.body), r.body.len, 0, NULL)
                      : NULL;
    const char *access = json_string_value(json_object_get(doc, "access_token"));
    const char *refresh = json_string_value(json_object_get(doc, "refresh_token"));
    struct imx_cli_config cfg;
    char err[512];
    rc = -1;
    if (access && refresh && strlen(access) < sizeof ctx->token &&
        strlen(refresh) < sizeof cfg.refresh) {
        memset(&cfg, 0, sizeof cfg);
        snprintf(cfg.profile, sizeof cfg.profile, "%s", ctx->profile);
        snprintf(cfg.url, sizeof cfg.url, "%s", ctx->url);
        snprintf(cfg.token, sizeof cfg.token, "%s", access);
        snprintf(cfg.refresh, sizeof cfg.refresh, "%s", refresh);
        /* Stored before use: the old refresh token is already spent on the server. */
        if (imx_cli_config_save(&cfg, err, sizeof err) != 0)
            imx_cli_err("the sign-in was renewed but cannot be stored: %s", err);
        snprintf(ctx->token, sizeof ctx->token, "%s", access);
        snprintf(ctx->refresh, sizeof ctx->refresh, "%s", refresh);
        ctx->http.token = ctx->token;
        memset(&cfg, 0, sizeof cfg);
        rc = 0;
    }
    json_decref(doc);
    imx_cli_resp_free(&r);
    return rc;
}

int imx_cli_call(struct imx_cli_ctx *ctx, const char *method, const char *path,
                 const char *content_type, const char *body, size_t body_len,
                 const char *const *headers, struct imx_cli_resp *r)
{
    imx_cli_resp_init(r);
    if (imx_cli_http_do(&ctx->http, method, path, content_type, body, body_len, headers, r) != 0) {
        imx_cli_err("%s %s%s: %s", method, ctx->http.base, path, r->error);
        return IMX_CLI_EXIT_SERVER;
    }
    /* An access token lasts an hour (IMAXE_JWT_TTL_S); the sign-in lasts as long as its refresh
     * token: renewed once, then the request is sent again. */
    if (r->status == 401 && ctx->refresh[0] && ctx->http.token == ctx->token &&
        refresh_sign_in(ctx) == 0) {
        imx_cli_resp_free(r);
        imx_cli_resp_init(r);
        if (imx_cli_http_do(&ctx->http, method, path, content_type, body, body_len, headers, r) !=
            0) {
            imx_cli_err("%s %s%s: %s", method, ctx->http.base, path, r->error);
            return IMX_CLI_EXIT_SERVER;
        }
    }
    int code = imx_cli_exit_for_status(r->status);
    if (code != IMX_CLI_EXIT_OK)
        print_problem(r);
    return code;
}

json_t *imx_cli_resp_json(const struct imx_cli_resp *r)
{
    json_error_t je;
    json_t *doc = json_loadb(imx_cli_buf_str(&r->body), r->body.len, 0, &je);
    if (!doc)
        imx_cli_err("the server's answer (HTTP %ld) is not JSON: %s", r->status, je.text);
    return doc;
}

/* --field for a document: of each item for a list. Returns an exit code. */
static int print_field(json_t *doc, const char *field)
{
    struct imx_cli_buf out;
    imx_cli_buf_init(&out, (size_t)1 << 30);
    int code = IMX_CLI_EXIT_OK;
    json_t *items = json_object_get(doc, "items");
    if (json_is_array(items) && !imx_cli_json_path(doc, field)) {
        size_t i;
        json_t *it;
        json_array_foreach(items, i, it)
        {
            json_t *v = imx_cli_json_path(it, field);
            if (v)
                imx_cli_fmt_field(&out, v);
        }
    } else {
        json_t *v = imx_cli_json_path(doc, field);
        if (v) {
            imx_cli_fmt_field(&out, v);
        } else {
            imx_cli_err("the answer has no field %s", field);
            code = IMX_CLI_EXIT_NOT_FOUND;
        }
    }
    if (code == IMX_CLI_EXIT_OK)
        code = imx_cli_write_out(&out);
    imx_cli_buf_free(&out);
    return code;
}

int imx_cli_print_doc(struct imx_cli_ctx *ctx, json_t *doc, const char *columns)
{
    const char *field = imx_cli_args_get(&ctx->args, "field");
    if (field)
        return print_field(doc, field);
    struct imx_cli_buf out;
    imx_cli_buf_init(&out, (size_t)1 << 30);
    json_t *items = json_object_get(doc, "items");
    int rc;
    if (json_is_array(items) && ctx->fmt != IMX_CLI_FMT_JSON)
        rc = imx_cli_fmt_rows(&out, items, columns, ctx->fmt, ctx->color);
    else if (json_is_array(doc))
        rc = imx_cli_fmt_rows(&out, doc, columns, ctx->fmt, ctx->color);
    else
        rc = imx_cli_fmt_object(&out, doc, ctx->fmt, ctx->color);
    int code = rc == 0 ? imx_cli_write_out(&out) : IMX_CLI_EXIT_SERVER;
    if (rc != 0)
        imx_cli_err("the output is too large to render");
    imx_cli_buf_free(&out);
    return code;
}

/* The command's path with positionals substituted and its query options, plus cursor when
 * not NULL, into b. *used is how many positionals the path took. Returns 0, or an exit code. */
static int build_path(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx, const char *cursor,
                      struct imx_cli_buf *b, size_t *used)
{
    *used = 0;
    for (const char *p = cmd->path; *p; p++) {
        if (p[0] == '{' && p[1] >= '0' && p[1] <= '9' && p[2] == '}') {
            size_t i = (size_t)(p[1] - '0');
            if (i >= ctx->args.npos)
                return IMX_CLI_EXIT_USAGE;
            imx_cli_buf_add_escaped(b, ctx->args.pos[i]);
            if (i + 1 > *used)
                *used = i + 1;
            p += 2;
        } else {
            imx_cli_buf_add(b, p, 1);
        }
    }
    char sep = strchr(cmd->path, '?') ? '&' : '?';
    for (size_t i = 0; i < ctx->args.nv; i++) {
        const struct imx_cli_val *v = &ctx->args.v[i];
        const char *name = v->opt->query;
        const char *value = v->value;
        char pname[128];
        if (strcmp(v->opt->name, "param") == 0) {
            const char *eq = strchr(value, '=');
            if (!eq || eq == value || (size_t)(eq - value) >= sizeof pname) {
                imx_cli_err("--param wants NAME=VALUE, not '%s'", value);
                return IMX_CLI_EXIT_USAGE;
            }
            memcpy(pname, value, (size_t)(eq - value));
            pname[eq - value] = '\0';
            name = pname;
            value = eq + 1;
        }
        if (!name)
            continue;
        if (v->opt->kind == IMX_CLI_OPT_FLAG)
            value = "true";
        imx_cli_buf_add(b, &sep, 1);
        imx_cli_buf_add_escaped(b, name);
        imx_cli_buf_add(b, "=", 1);
        imx_cli_buf_add_escaped(b, value);
        sep = '&';
    }
    if (cursor) {
        imx_cli_buf_add(b, &sep, 1);
        imx_cli_buf_puts(b, "cursor=");
        imx_cli_buf_add_escaped(b, cursor);
    }
    if (b->overflow) {
        imx_cli_err("the request URL is too long");
        return IMX_CLI_EXIT_USAGE;
    }
    return 0;
}

/* Reads the JSON body of a command: its positional after those of the path, else stdin. */
static int read_json_body(struct imx_cli_ctx *ctx, size_t used, struct imx_cli_buf *body)
{
    const char *file = ctx->args.npos > used ? ctx->args.pos[used] : "-";
    if (strcmp(file, "-") == 0 && isatty(0))
        fputs("imaxe: reading JSON from the terminal (Ctrl-D ends it)\n", stderr);
    if (imx_cli_read_input(file, body) != 0)
        return IMX_CLI_EXIT_USAGE;
    json_error_t je;
    json_t *doc = json_loadb(imx_cli_buf_str(body), body->len, 0, &je);
    if (!doc) {
        imx_cli_err("%s: not JSON: line %d: %s", strcmp(file, "-") ? file : "stdin", je.line,
                    je.text);
        imx_cli_buf_free(body);
        return IMX_CLI_EXIT_REFUSED;
    }
    json_decref(doc);
    return 0;
}

static int run_generic(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    struct imx_cli_buf path;
    struct imx_cli_buf body = { 0 };
    struct imx_cli_resp r;
    imx_cli_resp_init(&r);
    json_t *doc = NULL;
    json_t *collected = NULL;
    char *cursor = NULL;
    size_t used;
    bool all = imx_cli_args_has(&ctx->args, "all");
    bool streamed = false;
    imx_cli_buf_init(&path, 16384);
    int code = build_path(cmd, ctx, NULL, &path, &used);
    if (code != 0)
        goto out;
    if (cmd->body == IMX_CLI_BODY_JSON && (code = read_json_body(ctx, used, &body)) != 0)
        goto out;
    for (;;) {
        imx_cli_resp_free(&r);
        code = imx_cli_call(ctx, cmd->method, imx_cli_buf_str(&path), "application/json", body.data,
                            body.len, NULL, &r);
        if (code != IMX_CLI_EXIT_OK)
            goto out;
        if (r.status == 204 || r.body.len == 0)
            goto out;
        json_decref(doc);
        if (!(doc = imx_cli_resp_json(&r))) {
            code = IMX_CLI_EXIT_SERVER;
            goto out;
        }
        json_t *items = json_object_get(doc, "items");
        if (!all || !json_is_array(items))
            break;
        if (ctx->fmt == IMX_CLI_FMT_NDJSON || imx_cli_args_has(&ctx->args, "field")) {
            /* Streams: each page is printed as it comes. */
            json_t *page = json_pack("{s:O}", "items", items);
            code = imx_cli_print_doc(ctx, page, cmd->columns);
            json_decref(page);
            streamed = true;
            if (code != 0)
                goto out;
        } else {
            if (!collected)
                collected = json_array();
            if (json_array_size(collected) + json_array_size(items) > IMX_CLI_ALL_MAX) {
                imx_cli_err("--all stops at %d items: use -o ndjson to stream more",
                            IMX_CLI_ALL_MAX);
                code = IMX_CLI_EXIT_USAGE;
                goto out;
            }
            json_array_extend(collected, items);
        }
        const char *next = json_string_value(json_object_get(doc, "next_cursor"));
        if (!next || !next[0])
            break;
        free(cursor);
        cursor = strdup(next);
        imx_cli_buf_reset(&path);
        if ((code = build_path(cmd, ctx, cursor, &path, &used)) != 0)
            goto out;
    }
    if (collected) {
        json_t *whole = json_pack("{s:O, s:n}", "items", collected, "next_cursor");
        code = imx_cli_print_doc(ctx, whole, cmd->columns);
        json_decref(whole);
    } else if (!streamed) {
        code = imx_cli_print_doc(ctx, doc, cmd->columns);
    }
out:
    if (code == IMX_CLI_EXIT_USAGE && path.len == 0)
        imx_cli_err("usage: imaxe %s %s %s", cmd->noun, cmd->verb ? cmd->verb : "", cmd->synopsis);
    free(cursor);
    json_decref(doc);
    json_decref(collected);
    imx_cli_resp_free(&r);
    imx_cli_buf_free(&path);
    imx_cli_buf_free(&body);
    return code;
}

/* Reads one line from stdin (without its newline), echo off on a terminal. */
static int read_password(char *out, size_t len, bool prompt)
{
    struct termios old, quiet;
    bool tty = prompt && isatty(0) && tcgetattr(0, &old) == 0;
    if (tty) {
        fputs("Password: ", stderr);
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(0, TCSAFLUSH, &quiet);
    }
    char *got = fgets(out, (int)len, stdin);
    if (tty) {
        tcsetattr(0, TCSAFLUSH, &old);
        fputc('\n', stderr);
    }
    if (!got)
        return -1;
    out[strcspn(out, "\r\n")] = '\0';
    return 0;
}

static int run_login(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    struct imx_cli_config cfg;
    char err[512];
    char password[1024] = "";
    struct imx_cli_resp r;
    imx_cli_resp_init(&r);
    json_t *doc = NULL;
    char *body = NULL;
    int code = IMX_CLI_EXIT_USAGE;
    const char *api_token = imx_cli_args_get(&ctx->args, "api-token");
    const char *email = imx_cli_args_get(&ctx->args, "email");
    /* `imaxe login --token imx_...` (the global --token, given to login) stores that token. */
    if (!api_token && !email)
        api_token = imx_cli_args_get(&ctx->args, "token");
    memset(&cfg, 0, sizeof cfg);
    snprintf(cfg.profile, sizeof cfg.profile, "%s", ctx->profile);
    snprintf(cfg.url, sizeof cfg.url, "%s", ctx->url);
    if (imx_cli_args_has(&ctx->args, "sso")) {
        if (api_token || email) {
            imx_cli_err("login --sso takes neither --email nor a token");
            goto out;
        }
        if ((code = imx_cli_sso_sign_in(ctx, &cfg)) != 0)
            goto out;
    } else if (api_token) {
        snprintf(cfg.token, sizeof cfg.token, "%s", api_token);
        ctx->http.token = cfg.token;
        imx_cli_resp_free(&r);
        if ((code = imx_cli_call(ctx, "GET", "/v1/me", NULL, NULL, 0, NULL, &r)) != 0)
            goto out;
    } else {
        if (!email) {
            imx_cli_err("login needs --email, --sso or --token (an API token, imx_...)");
            goto out;
        }
        const char *env = getenv("IMAXE_PASSWORD");
        if (imx_cli_args_has(&ctx->args, "password-stdin")) {
            if (read_password(password, sizeof password, false) != 0) {
                imx_cli_err("no password on stdin");
                goto out;
            }
        } else if (env && env[0]) {
            snprintf(password, sizeof password, "%s", env);
        } else if (!isatty(0) || read_password(password, sizeof password, true) != 0) {
            imx_cli_err("no password: use --password-stdin or IMAXE_PASSWORD");
            goto out;
        }
        json_t *req =
            json_pack("{s:s, s:s, s:b}", "email", email, "password", password, "refresh", 1);
        body = req ? json_dumps(req, JSON_COMPACT) : NULL;
        json_decref(req);
        if (!body) {
            code = IMX_CLI_EXIT_SERVER;
            goto out;
        }
        imx_cli_resp_free(&r);
        code = imx_cli_call(ctx, "POST", "/v1/auth/login", "application/json", body, strlen(body),
                            NULL, &r);
        if (code != 0)
            goto out;
        const char *token;
        if (!(doc = imx_cli_resp_json(&r)) ||
            !(token = json_string_value(json_object_get(doc, "access_token"))) ||
            strlen(token) >= sizeof cfg.token) {
            imx_cli_err("the sign-in answer has no access_token");
            code = IMX_CLI_EXIT_SERVER;
            goto out;
        }
        strcpy(cfg.token, token);
        const char *refresh = json_string_value(json_object_get(doc, "refresh_token"));
        if (refresh && strlen(refresh) < sizeof cfg.refresh)
            strcpy(cfg.refresh, refresh);
    }
    char path[4096];
    if (imx_cli_config_save(&cfg, err, sizeof err) != 0) {
        imx_cli_err("%s", err);
        code = IMX_CLI_EXIT_SERVER;
        goto out;
    }
    imx_cli_config_path(path, sizeof path);
    fprintf(stderr, "imaxe: signed in to %s; token stored in %s%s%s%s\n", cfg.url, path,
            cfg.profile[0] ? " (profile " : "", cfg.profile, cfg.profile[0] ? ")" : "");
    code = IMX_CLI_EXIT_OK;
out:
    memset(password, 0, sizeof password);
    if (body) {
        memset(body, 0, strlen(body));
        free(body);
    }
    memset(cfg.token, 0, sizeof cfg.token);
    memset(cfg.refresh, 0, sizeof cfg.refresh);
    json_decref(doc);
    imx_cli_resp_free(&r);
    return code;
}

static int run_compare(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    struct imx_cli_buf path;
    imx_cli_buf_init(&path, 4096);
    imx_cli_buf_puts(&path, "/v1/compare?ids=");
    for (size_t i = 0; i < ctx->args.npos; i++) {
        if (i > 0)
            imx_cli_buf_puts(&path, ",");
        imx_cli_buf_add_escaped(&path, ctx->args.pos[i]);
    }
    struct imx_cli_resp r;
    int code = imx_cli_call(ctx, "GET", imx_cli_buf_str(&path), NULL, NULL, 0, NULL, &r);
    json_t *doc = code == 0 ? imx_cli_resp_json(&r) : NULL;
    if (code == 0 && !doc)
        code = IMX_CLI_EXIT_SERVER;
    if (doc) {
        /* A table shows the rows that matter: one per component and compared field. */
        if (ctx->fmt == IMX_CLI_FMT_TABLE && !imx_cli_args_has(&ctx->args, "field")) {
            json_t *rows = json_array();
            const char *part[] = { "components", "fields" };
            for (size_t k = 0; k < 2; k++) {
                size_t i;
                json_t *row;
                json_array_foreach(json_object_get(doc, part[k]), i, row)
                {
                    json_t *t = json_pack("{s:O, s:O}", "name", json_object_get(row, "name"),
                                          "differs", json_object_get(row, "differs"));
                    size_t j;
                    json_t *v;
                    json_array_foreach(json_object_get(row, "values"), j, v)
                    {
                        json_t *img = json_array_get(json_object_get(doc, "images"), j);
                        char key[64];
                        snprintf(key, sizeof key, "#%lld",
                                 (long long)json_integer_value(json_object_get(img, "id")));
                        json_object_set(t, key, v);
                    }
                    json_array_append_new(rows, t);
                }
            }
            code = imx_cli_print_doc(ctx, rows, NULL);
            json_decref(rows);
        } else {
            code = imx_cli_print_doc(ctx, doc, NULL);
        }
    }
    json_decref(doc);
    imx_cli_resp_free(&r);
    imx_cli_buf_free(&path);
    return code;
}

/* images deprecate | revoke | restore: the image's ETag, then PATCH with If-Match. */
static int run_status(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    const char *status = strcmp(cmd->verb, "deprecate") == 0 ? "deprecated"
                         : strcmp(cmd->verb, "revoke") == 0  ? "revoked"
                                                             : "active";
    struct imx_cli_buf path;
    imx_cli_buf_init(&path, 1024);
    imx_cli_buf_puts(&path, "/v1/images/");
    imx_cli_buf_add_escaped(&path, ctx->args.pos[0]);
    struct imx_cli_resp r;
    char *body = NULL;
    json_t *doc = NULL;
    int code = imx_cli_call(ctx, "GET", imx_cli_buf_str(&path), NULL, NULL, 0, NULL, &r);
    if (code != 0)
        goto out;
    if (!r.etag[0]) {
        imx_cli_err("the image came without an ETag");
        code = IMX_CLI_EXIT_SERVER;
        goto out;
    }
    char if_match[300];
    snprintf(if_match, sizeof if_match, "If-Match: %s", r.etag);
    json_t *req = json_pack("{s:s}", "status", status);
    const char *reason = imx_cli_args_get(&ctx->args, "reason");
    const char *at = imx_cli_args_get(&ctx->args, "at");
    if (reason)
        json_object_set_new(req, "reason", json_string(reason));
    if (imx_cli_args_has(&ctx->args, "cascade"))
        json_object_set_new(req, "cascade", json_true());
    if (at)
        json_object_set_new(req, "revoke_at", json_string(at));
    body = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    const char *headers[] = { if_match, NULL };
    imx_cli_resp_free(&r);
    code = imx_cli_call(ctx, "PATCH", imx_cli_buf_str(&path), "application/json", body,
                        strlen(body), headers, &r);
    if (code != 0)
        goto out;
    if (!(doc = imx_cli_resp_json(&r))) {
        code = IMX_CLI_EXIT_SERVER;
        goto out;
    }
    code = imx_cli_print_doc(ctx, doc, NULL);
out:
    free(body);
    json_decref(doc);
    imx_cli_resp_free(&r);
    imx_cli_buf_free(&path);
    return code;
}

/* images import: a JSON array or NDJSON of manifests, each published; one result row each. */
/* Manifests an import sends in one request: the server's cap (POST /v1/images:import). */
#define IMPORT_BATCH 1000

/* The manifests of a file: a JSON array, one object, or NDJSON (new array), or NULL (printed). */
static json_t *read_manifests(const char *file, const struct imx_cli_buf *in)
{
    json_t *manifests = json_loadb(in->data, in->len, 0, NULL);
    if (json_is_object(manifests))
        return json_pack("[o]", manifests);
    if (json_is_array(manifests))
        return manifests;
    json_decref(manifests);
    manifests = json_array();
    const char *p = in->data;
    int line = 0;
    while (*p) {
        line++;
        size_t len = strcspn(p, "\n");
        if (strspn(p, " \t\r") < len) {
            json_error_t je;
            json_t *m = json_loadb(p, len, 0, &je);
            if (!json_is_object(m)) {
                imx_cli_err("%s: line %d is not a JSON object: %s", file, line, je.text);
                json_decref(m);
                json_decref(manifests);
                return NULL;
            }
            json_array_append_new(manifests, m);
        }
        p += len;
        if (*p)
            p++;
    }
    return manifests;
}

/* images import: the bulk endpoint, all or nothing, IMPORT_BATCH manifests a request (each
 * request all or nothing; a file of more stops at the first refused batch and says which lines
 * are in). Each batch carries an Idempotency-Key made from its bytes, so running the same import
 * again after a lost answer replays it instead of refusing duplicates. */
static int run_images_import(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    struct imx_cli_buf in;
    const char *file = ctx->args.npos > 0 ? ctx->args.pos[0] : "-";
    if (imx_cli_read_input(file, &in) != 0)
        return IMX_CLI_EXIT_USAGE;
    json_t *manifests = read_manifests(file, &in);
    imx_cli_buf_free(&in);
    if (!manifests)
        return IMX_CLI_EXIT_REFUSED;
    size_t total = json_array_size(manifests);
    if (total == 0) {
        json_decref(manifests);
        imx_cli_err("%s holds no manifest", file);
        return IMX_CLI_EXIT_USAGE;
    }
    /* On a terminal, a line after each request says how far the import is (a line each, so that
     * an error of the next request starts a line of its own). */
    bool progress = isatty(2);
    json_t *results = json_array();
    int code = IMX_CLI_EXIT_OK;
    for (size_t from = 0; from < total && code == IMX_CLI_EXIT_OK; from += IMPORT_BATCH) {
        size_t to = from + IMPORT_BATCH < total ? from + IMPORT_BATCH : total;
        struct imx_cli_buf nd;
        imx_cli_buf_init(&nd, (size_t)1 << 30);
        for (size_t i = from; i < to; i++) {
            char *line = json_dumps(json_array_get(manifests, i), JSON_COMPACT);
            if (line)
                imx_cli_buf_puts(&nd, line);
            imx_cli_buf_add(&nd, "\n", 1);
            free(line);
        }
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned dlen = 0;
        char key[96] = "Idempotency-Key: cli-import-";
        EVP_Digest(nd.data, nd.len, digest, &dlen, EVP_sha256(), NULL);
        for (unsigned i = 0; i < 16 && i < dlen; i++)
            snprintf(key + strlen(key), 3, "%02x", digest[i]);
        const char *headers[] = { key, NULL };
        struct imx_cli_resp r;
        code = imx_cli_call(ctx, "POST", "/v1/images:import", "application/x-ndjson", nd.data,
                            nd.len, headers, &r);
        json_t *doc = code == 0 ? imx_cli_resp_json(&r) : NULL;
        if (code == 0 && !doc)
            code = IMX_CLI_EXIT_SERVER;
        size_t i;
        json_t *img;
        json_array_foreach(json_object_get(doc, "images"), i, img)
        {
            json_int_t line = json_integer_value(json_object_get(img, "line"));
            json_array_append_new(results, json_pack("{s:I, s:O?, s:O?, s:O?}", "line",
                                                     (json_int_t)from + line, "family",
                                                     json_object_get(img, "family"), "version",
                                                     json_object_get(img, "version"), "id",
                                                     json_object_get(img, "id")));
        }
        if (code != 0 && from > 0)
            imx_cli_err("manifests %zu-%zu were refused (nothing of them imported); 1-%zu were "
                        "imported by the requests before",
                        from + 1, to, from);
        else if (progress && code == 0)
            fprintf(stderr, "imported %zu of %zu\n", to, total);
        json_decref(doc);
        imx_cli_resp_free(&r);
        imx_cli_buf_free(&nd);
    }
    int out = json_array_size(results) ? imx_cli_print_doc(ctx, results, "line,family,version,id")
                                       : IMX_CLI_EXIT_OK;
    json_decref(results);
    json_decref(manifests);
    return code ? code : out;
}

/* Most documents one batch import reads (a distro's whole OSV feed: Ubuntu's is ~10,000 USNs). */
#define ADVISORY_BATCH_MAX 200000

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What one import did, counted for the summary. */
struct import_counts {
    size_t imported, revised, unchanged, nothing, refused;
};

/* Publishes one advisory document; appends its result row with its outcome: imported, revised
 * (a newer revision of a CSAF bulletin), unchanged (imported before at this revision: 409, so a
 * batch can be run again over a newer checkout), nothing imaxe tracks (a bulletin stored with no
 * range) or refused. Returns the exit code of this one. */
static int import_one(struct imx_cli_ctx *ctx, const char *where, const char *doc, size_t len,
                      json_t *rows, struct import_counts *n)
{
    struct imx_cli_resp r;
    int code = imx_cli_call(ctx, "POST", "/v1/advisories", "application/json", doc, len, NULL, &r);
    json_t *body = json_loadb(imx_cli_buf_str(&r.body), r.body.len, 0, NULL);
    const char *outcome = "refused";
    /* a bulletin of NVIDIA's feed stored with no range (a distro's OSV advisory lists its
     * package ranges elsewhere) */
    const char *src = json_string_value(json_object_get(body, "source"));
    if (code == 0 && r.status == 201 && src && strcmp(src, "csaf") == 0 &&
        json_array_size(json_object_get(body, "affected")) == 0) {
        outcome = "nothing imaxe tracks";
        n->nothing++;
    } else if (code == 0 && r.status == 201) {
        outcome = "imported";
        n->imported++;
    } else if (code == 0) {
        outcome = "revised";
        n->revised++;
    } else if (r.status == 409) {
        outcome = "unchanged";
        n->unchanged++;
        code = 0;
    } else {
        n->refused++;
    }
    json_t *row = json_pack("{s:s, s:s, s:I, s:O?, s:O?}", "source", where, "outcome", outcome,
                            "status", (json_int_t)r.status, "id", json_object_get(body, "id"),
                            "detail", code == 0 ? NULL : json_object_get(body, "detail"));
    if (code == 0 && r.status != 409) {
        json_object_set(row, "affected_images", json_object_get(body, "affected_images"));
        json_object_set_new(
            row, "unmapped",
            json_integer((json_int_t)json_array_size(json_object_get(body, "unmapped"))));
        /* why a bulletin affects nothing: its first product left out and the reason its
         * ref_nvidia_product row (or the import) states */
        json_t *u = json_array_get(json_object_get(body, "unmapped"), 0);
        const char *product = json_string_value(json_object_get(u, "product"));
        const char *why = json_string_value(json_object_get(u, "why"));
        if (strcmp(outcome, "nothing imaxe tracks") == 0 && product && why) {
            char reason[1024];
            snprintf(reason, sizeof reason, "%s: %s", product, why);
            json_object_set_new(row, "reason", json_string(reason));
        }
    }
    json_array_append_new(rows, row);
    json_decref(body);
    imx_cli_resp_free(&r);
    return code;
}

/* The CSAF advisories the server holds: {advisory id: source_version} from every page of
 * GET /v1/advisories (a catalog holds a few thousand; bounded by ADVISORY_BATCH_MAX), new, so
 * that a bulletin the server holds at the same tracking.version is not sent again. NULL when
 * the list cannot be read: every bulletin is then sent and the server answers for each. */
static json_t *held_csaf_versions(struct imx_cli_ctx *ctx)
{
    json_t *held = json_object();
    char *cursor = NULL;
    for (size_t pages = 0; held && pages < ADVISORY_BATCH_MAX / 200; pages++) {
        char path[1024];
        snprintf(path, sizeof path, "/v1/advisories?limit=200%s%s", cursor ? "&cursor=" : "",
                 cursor ? cursor : "");
        struct imx_cli_resp r;
        int code = imx_cli_call(ctx, "GET", path, NULL, NULL, 0, NULL, &r);
        json_t *doc = code == 0 ? json_loadb(imx_cli_buf_str(&r.body), r.body.len, 0, NULL) : NULL;
        imx_cli_resp_free(&r);
        json_t *items = json_object_get(doc, "items"), *a;
        if (!json_is_array(items)) {
            json_decref(doc);
            json_decref(held);
            held = NULL;
            break;
        }
        size_t i;
        json_array_foreach(items, i, a)
        {
            const char *src = json_string_value(json_object_get(a, "source"));
            const char *id = json_string_value(json_object_get(a, "id"));
            json_t *ver = json_object_get(a, "source_version");
            if (src && strcmp(src, "csaf") == 0 && id && json_is_string(ver))
                json_object_set(held, id, ver);
        }
        const char *next = json_string_value(json_object_get(doc, "next_cursor"));
        free(cursor);
        cursor = next && next[0] && strlen(next) < 900 ? strdup(next) : NULL;
        json_decref(doc);
        if (!cursor)
            break;
    }
    free(cursor);
    return held;
}

/* Is doc a CSAF bulletin the server holds at its tracking.version (held from
 * held_csaf_versions)? Its advisory id is built as the server builds it (server/domain/csaf.c:
 * "NVIDIA-" + tracking.id for NVIDIA's). Sets id (the advisory id) when doc is a bulletin. */
static bool held_unchanged(const json_t *held, const char *doc, size_t len, char id[128])
{
    id[0] = '\0';
    if (!held)
        return false;
    json_t *d = json_loadb(doc, len, 0, NULL);
    json_t *document = json_object_get(d, "document");
    json_t *tracking = json_object_get(document, "tracking");
    const char *tid = json_string_value(json_object_get(tracking, "id"));
    const char *ver = json_string_value(json_object_get(tracking, "version"));
    const char *pub =
        json_string_value(json_object_get(json_object_get(document, "publisher"), "name"));
    bool same = false;
    if (tid && tid[0] && ver) {
        snprintf(id, 128, "%s%s", pub && strncasecmp(pub, "NVIDIA", 6) == 0 ? "NVIDIA-" : "", tid);
        const char *have = json_string_value(json_object_get(held, id));
        same = have && strcmp(have, ver) == 0;
    }
    json_decref(d);
    return same;
}

/* Appends name to a growing list (new copy); false when full or out of memory. */
static bool add_name(char ***names, size_t *n, size_t *cap, const char *name)
{
    if (*n >= ADVISORY_BATCH_MAX)
        return false;
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        char **grown = realloc(*names, c * sizeof **names);
        if (!grown)
            return false;
        *names = grown;
        *cap = c;
    }
    char *copy = strdup(name);
    if (!copy)
        return false;
    (*names)[(*n)++] = copy;
    return true;
}

/* Is name a year folder of NVIDIA's feed ("2025")? */
static bool is_year(const char *name)
{
    return strlen(name) == 4 && strspn(name, "0123456789") == 4;
}

/* The bulletins of a checkout of NVIDIA's security feed (github.com/NVIDIA/product-security):
 * YEAR/ID/ID.json, one per bulletin folder (the folder's CVE-*.json files repeat the bulletin
 * CVE by CVE and are skipped), as paths relative to root. Returns how many, 0 when root is not
 * laid out so. */
static size_t checkout_bulletins(const char *root, char ***names, size_t *n, size_t *cap)
{
    DIR *d = opendir(root);
    if (!d)
        return 0;
    char **years = NULL;
    size_t ny = 0, ycap = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (is_year(e->d_name) && !add_name(&years, &ny, &ycap, e->d_name))
            break;
    closedir(d);
    for (size_t y = 0; y < ny; y++) {
        char ydir[4096];
        snprintf(ydir, sizeof ydir, "%s/%s", root, years[y]);
        DIR *yd = opendir(ydir);
        while (yd && (e = readdir(yd))) {
            if (e->d_name[0] == '.' || strlen(e->d_name) > 64)
                continue;
            char rel[256], path[4400];
            snprintf(rel, sizeof rel, "%.8s/%.64s/%.64s.json", years[y], e->d_name, e->d_name);
            snprintf(path, sizeof path, "%s/%s", root, rel);
            struct stat st;
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && !add_name(names, n, cap, rel))
                break;
        }
        if (yd)
            closedir(yd);
        free(years[y]);
    }
    free(years);
    return *n;
}

/* advisories import: imaxe JSON, OSV or CSAF 2.0, as the server takes them (it recognises the
 * form); a newer revision of an imported CSAF bulletin revises its advisory. A checkout of
 * NVIDIA's security feed imports every bulletin (YEAR/ID/ID.json) in name order, one row each
 * with its outcome; run again over a newer checkout, only new bulletins and higher
 * tracking.versions change anything (the rest are unchanged). Another directory imports every
 * *.json in it, and a .ndjson / .jsonl file every line: a distro feed's first load. */
static int run_advisory_import(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    const char *file = ctx->args.npos > 0 ? ctx->args.pos[0] : NULL;
    struct stat st;
    size_t flen = file ? strlen(file) : 0;
    bool dir = file && stat(file, &st) == 0 && S_ISDIR(st.st_mode);
    bool ndjson = file && !dir &&
                  ((flen > 7 && strcmp(file + flen - 7, ".ndjson") == 0) ||
                   (flen > 6 && strcmp(file + flen - 6, ".jsonl") == 0));
    if (!dir && !ndjson)
        return run_generic(cmd, ctx);
    json_t *rows = json_array();
    struct import_counts n = { 0 };
    int worst = IMX_CLI_EXIT_OK;
    if (dir) {
        char **names = NULL;
        size_t count = 0, cap = 0;
        bool checkout = checkout_bulletins(file, &names, &count, &cap) > 0;
        if (!checkout) {
            DIR *d = opendir(file);
            if (!d) {
                imx_cli_err("%s: %s", file, strerror(errno));
                json_decref(rows);
                return IMX_CLI_EXIT_USAGE;
            }
            struct dirent *e;
            while ((e = readdir(d))) {
                size_t len = strlen(e->d_name);
                if (len < 6 || e->d_name[0] == '.' || strcmp(e->d_name + len - 5, ".json") != 0)
                    continue;
                if (!add_name(&names, &count, &cap, e->d_name))
                    break;
            }
            closedir(d);
        }
        qsort(names, count, sizeof *names, cmp_names);
        /* A checkout run again sends only what changed: one list of what the server holds. */
        json_t *held = checkout ? held_csaf_versions(ctx) : NULL;
        for (size_t i = 0; i < count; i++) {
            char path[4096], id[128];
            struct imx_cli_buf in;
            snprintf(path, sizeof path, "%s/%s", file, names[i]);
            if (imx_cli_read_input(path, &in) != 0) {
                worst = IMX_CLI_EXIT_USAGE;
            } else if (held_unchanged(held, in.data, in.len, id)) {
                /* not sent: the server holds this tracking.version */
                json_array_append_new(rows, json_pack("{s:s, s:s, s:s}", "source", names[i],
                                                      "outcome", "unchanged", "id", id));
                n.unchanged++;
                imx_cli_buf_free(&in);
            } else {
                int code = import_one(ctx, names[i], in.data, in.len, rows, &n);
                worst = code > worst ? code : worst;
                imx_cli_buf_free(&in);
            }
            free(names[i]);
        }
        json_decref(held);
        free(names);
    } else {
        struct imx_cli_buf in;
        if (imx_cli_read_input(file, &in) != 0) {
            json_decref(rows);
            return IMX_CLI_EXIT_USAGE;
        }
        const char *p = in.data;
        size_t line = 0;
        while (*p && line < ADVISORY_BATCH_MAX) {
            line++;
            size_t len = strcspn(p, "\n");
            if (strspn(p, " \t\r") < len) {
                char where[64];
                snprintf(where, sizeof where, "line %zu", line);
                int code = import_one(ctx, where, p, len, rows, &n);
                worst = code > worst ? code : worst;
            }
            p += len;
            if (*p)
                p++;
        }
        imx_cli_buf_free(&in);
    }
    imx_cli_err("%zu advisories: %zu imported, %zu revised, %zu unchanged, %zu nothing imaxe "
                "tracks, %zu refused",
                json_array_size(rows), n.imported, n.revised, n.unchanged, n.nothing, n.refused);
    int out = imx_cli_print_doc(ctx, rows,
                                "source,outcome,id,affected_images,unmapped,reason,status,detail");
    json_decref(rows);
    return worst ? worst : out;
}

static int run_pin_move(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    const char *image = imx_cli_args_get(&ctx->args, "image");
    char *end = NULL;
    long long id = image ? strtoll(image, &end, 10) : 0;
    if (!image || *end || id <= 0) {
        imx_cli_err("pins move needs --image ID (a positive integer)");
        return IMX_CLI_EXIT_USAGE;
    }
    struct imx_cli_buf path;
    imx_cli_buf_init(&path, 1024);
    imx_cli_buf_puts(&path, "/v1/pins/");
    imx_cli_buf_add_escaped(&path, ctx->args.pos[0]);
    char body[64];
    snprintf(body, sizeof body, "{\"image\":%lld}", id);
    struct imx_cli_resp r;
    int code = imx_cli_call(ctx, "PUT", imx_cli_buf_str(&path), "application/json", body,
                            strlen(body), NULL, &r);
    json_t *doc = code == 0 ? imx_cli_resp_json(&r) : NULL;
    if (code == 0)
        code = doc ? imx_cli_print_doc(ctx, doc, NULL) : IMX_CLI_EXIT_SERVER;
    json_decref(doc);
    imx_cli_resp_free(&r);
    imx_cli_buf_free(&path);
    return code;
}

/* compat check: a JSON file, or --component NAME=VERSION and --gpu; exit 3 when not ok. */
static int run_compat(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    const char *comps[IMX_CLI_VALS_MAX];
    const char *gpus[IMX_CLI_VALS_MAX];
    size_t nc = imx_cli_args_list(&ctx->args, "component", comps, IMX_CLI_VALS_MAX);
    size_t ng = imx_cli_args_list(&ctx->args, "gpu", gpus, IMX_CLI_VALS_MAX);
    char *body = NULL;
    struct imx_cli_buf in = { 0 };
    if (nc > 0) {
        json_t *req = json_pack("{s:[], s:[]}", "components", "gpus");
        for (size_t i = 0; i < nc; i++) {
            const char *eq = strchr(comps[i], '=');
            if (!eq || eq == comps[i] || !eq[1]) {
                imx_cli_err("--component wants NAME=VERSION, not '%s'", comps[i]);
                json_decref(req);
                return IMX_CLI_EXIT_USAGE;
            }
            json_array_append_new(json_object_get(req, "components"),
                                  json_pack("{s:s%, s:s}", "name", comps[i],
                                            (size_t)(eq - comps[i]), "version", eq + 1));
        }
        for (size_t i = 0; i < ng; i++)
            json_array_append_new(json_object_get(req, "gpus"), json_string(gpus[i]));
        body = json_dumps(req, JSON_COMPACT);
        json_decref(req);
    } else {
        int code = read_json_body(ctx, 0, &in);
        if (code != 0)
            return code;
        body = strdup(in.data);
        imx_cli_buf_free(&in);
    }
    struct imx_cli_resp r;
    int code = imx_cli_call(ctx, "POST", "/v1/compat/check", "application/json", body, strlen(body),
                            NULL, &r);
    free(body);
    json_t *doc = code == 0 ? imx_cli_resp_json(&r) : NULL;
    if (code == 0 && !doc)
        code = IMX_CLI_EXIT_SERVER;
    if (doc) {
        if (ctx->fmt == IMX_CLI_FMT_TABLE && !imx_cli_args_has(&ctx->args, "field")) {
            json_t *page = json_pack("{s:O}", "items", json_object_get(doc, "findings"));
            code = imx_cli_print_doc(ctx, page, "severity,code,message");
            json_decref(page);
        } else {
            code = imx_cli_print_doc(ctx, doc, NULL);
        }
        if (code == 0 && json_is_false(json_object_get(doc, "ok"))) {
            imx_cli_err("the stack has %lld error(s)",
                        (long long)json_integer_value(json_object_get(doc, "errors")));
            code = IMX_CLI_EXIT_REFUSED;
        }
    }
    json_decref(doc);
    imx_cli_resp_free(&r);
    return code;
}

static int run_measurement_import(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    const char *team = imx_cli_args_get(&ctx->args, "team");
    if (!team) {
        imx_cli_err("measurements import needs --team");
        return IMX_CLI_EXIT_USAGE;
    }
    struct imx_cli_buf in;
    if (imx_cli_read_input(ctx->args.npos > 0 ? ctx->args.pos[0] : "-", &in) != 0)
        return IMX_CLI_EXIT_USAGE;
    struct imx_cli_buf path;
    imx_cli_buf_init(&path, 1024);
    imx_cli_buf_puts(&path, "/v1/measurements:import?team=");
    imx_cli_buf_add_escaped(&path, team);
    struct imx_cli_resp r;
    int code =
        imx_cli_call(ctx, "POST", imx_cli_buf_str(&path), "text/csv", in.data, in.len, NULL, &r);
    json_t *doc = code == 0 ? imx_cli_resp_json(&r) : NULL;
    if (code == 0)
        code = doc ? imx_cli_print_doc(ctx, doc, NULL) : IMX_CLI_EXIT_SERVER;
    json_decref(doc);
    imx_cli_resp_free(&r);
    imx_cli_buf_free(&path);
    imx_cli_buf_free(&in);
    return code;
}

/* A header value: the option, else WEBHOOK_<NAME>, else the CGI spelling HTTP_WEBHOOK_<NAME>. */
static const char *header_value(struct imx_cli_ctx *ctx, const char *opt, const char *env)
{
    const char *v = imx_cli_args_get(&ctx->args, opt);
    char name[64];
    if (v)
        return v;
    snprintf(name, sizeof name, "WEBHOOK_%s", env);
    if ((v = getenv(name)) != NULL)
        return v;
    snprintf(name, sizeof name, "HTTP_WEBHOOK_%s", env);
    return getenv(name);
}

static int run_verify(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    const char *secrets[IMX_CLI_VALS_MAX];
    size_t ns = imx_cli_args_list(&ctx->args, "secret", secrets, IMX_CLI_VALS_MAX);
    if (ns == 0 && getenv("IMAXE_WEBHOOK_SECRET")) {
        secrets[0] = getenv("IMAXE_WEBHOOK_SECRET");
        ns = 1;
    }
    if (ns == 0) {
        imx_cli_err("webhooks verify needs --secret or IMAXE_WEBHOOK_SECRET");
        return IMX_CLI_EXIT_USAGE;
    }
    long long tolerance = IMX_CLI_WH_TOLERANCE_S;
    const char *t = imx_cli_args_get(&ctx->args, "tolerance");
    if (t) {
        char *end;
        tolerance = strtoll(t, &end, 10);
        if (*end || !t[0]) {
            imx_cli_err("--tolerance wants seconds, not '%s'", t);
            return IMX_CLI_EXIT_USAGE;
        }
    }
    struct imx_cli_buf body;
    if (imx_cli_read_input(ctx->args.npos > 0 ? ctx->args.pos[0] : "-", &body) != 0)
        return IMX_CLI_EXIT_USAGE;
    const char *id = header_value(ctx, "id", "ID");
    const char *ts = header_value(ctx, "timestamp", "TIMESTAMP");
    const char *sig = header_value(ctx, "signature", "SIGNATURE");
    enum imx_cli_wh_result res = IMX_CLI_WH_NO_MATCH;
    for (size_t i = 0; i < ns && i < IMX_CLI_VALS_MAX; i++) {
        res = imx_cli_wh_verify(secrets[i], id, ts, sig, body.data, body.len, (long long)time(NULL),
                                tolerance);
        if (res != IMX_CLI_WH_NO_MATCH)
            break;
    }
    int code;
    if (res == IMX_CLI_WH_OK) {
        code = imx_cli_write_out(&body);
    } else {
        imx_cli_err("webhook refused: %s", imx_cli_wh_result_text(res));
        code = res == IMX_CLI_WH_BAD_SECRET ? IMX_CLI_EXIT_USAGE : IMX_CLI_EXIT_REFUSED;
    }
    imx_cli_buf_free(&body);
    return code;
}

#define IMAGE_COLUMNS                                                                              \
    "id,family,version,provider,gpus,components.nvidia-driver,components.cuda,status,patch_status"

const struct imx_cli_cmd imx_cli_commands[] = {
    { "login", NULL, "", 0, 0, "Sign in and store the token (mode 0600) for later commands",
      "imaxe login --url http://127.0.0.1:8080 --email admin@imaxe.local --password-stdin"
      " <<<imaxe-demo-admin\n"
      "imaxe login --url https://imaxe.example.com --sso\n"
      "imaxe login --url http://127.0.0.1:8080 --token imx_...",
      login_opts, NULL, NULL, IMX_CLI_BODY_NONE, NULL, run_login, true },
    { "logout", NULL, "", 0, 0,
      "End the stored sign-in on its server and remove its tokens (the URL stays)",
      "imaxe logout\nimaxe --profile staging logout", no_opts, NULL, NULL, IMX_CLI_BODY_NONE, NULL,
      imx_cli_run_logout, true },
    { "images", "search", "", 0, 0, "Search the catalog (keyset pages; --all for every page)",
      "imaxe images search --gpu hopper -c 'cuda:>=12.4' --region us-east-1\n"
      "imaxe images search --family dlami-base-ubuntu24.04 --all -o ndjson | jq -r .version",
      search_opts, "GET", "/v1/images", IMX_CLI_BODY_NONE, IMAGE_COLUMNS, NULL, false },
    { "images", "get", "ID", 1, 1, "One image with its components, artifacts and reports",
      "imaxe images get 4\nimaxe images get 4 -f components", no_opts, "GET", "/v1/images/{0}",
      IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "images", "compare", "ID ID...", 2, 10, "Compare 2 to 10 images side by side",
      "imaxe images compare 4 5 6", no_opts, "GET", NULL, IMX_CLI_BODY_NONE, NULL, run_compare,
      false },
    { "images", "resolve", "", 0, 0,
      "The artifact to launch: newest usable image of a family or a pin",
      "AMI=$(imaxe images resolve --family dlami-base-ubuntu24.04 --region us-east-1 -f "
      "artifact_id)",
      resolve_opts, "GET", "/v1/images/resolve", IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "images", "lineage", "ID", 1, 1, "The parent chain and children (a page) of an image",
      "imaxe images lineage 20\nimaxe images lineage 20 --limit 200 -f next_cursor", lineage_opts,
      "GET", "/v1/images/{0}/lineage", IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "images", "patch", "ID", 1, 1, "Patch status of an image per advisory, with each fix",
      "imaxe images patch 4", no_opts, "GET", "/v1/images/{0}/patch", IMX_CLI_BODY_NONE, NULL, NULL,
      false },
    { "images", "vex", "ID", 1, 1,
      "VEX statements of an image per advisory (OpenVEX, or --format cyclonedx)",
      "imaxe images vex 4 > image-4.openvex.json\nimaxe images vex 4 --format cyclonedx", vex_opts,
      "GET", "/v1/images/{0}/vex", IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "images", "publish", "[FILE]", 0, 1, "Publish a manifest (JSON file, or stdin)",
      "imaxe images publish manifest.json -f id", no_opts, "POST", "/v1/images", IMX_CLI_BODY_JSON,
      NULL, NULL, false },
    { "images", "import", "[FILE]", 0, 1,
      "Publish many manifests (a JSON array or NDJSON), all or nothing (1,000 a request)",
      "imaxe images import manifests.ndjson", no_opts, "POST", "/v1/images", IMX_CLI_BODY_NONE,
      NULL, run_images_import, false },
    { "images", "deprecate", "ID", 1, 1, "Deprecate an image (its ETag is sent as If-Match)",
      "imaxe images deprecate 41 --reason 'superseded by 2026.04.01'", status_opts, "PATCH", NULL,
      IMX_CLI_BODY_NONE, NULL, run_status, false },
    { "images", "revoke", "ID", 1, 1,
      "Revoke an image now or --at a time, --cascade to descendants",
      "imaxe images revoke 41 --reason CVE-2025-23266 --cascade", status_opts, "PATCH", NULL,
      IMX_CLI_BODY_NONE, NULL, run_status, false },
    { "images", "restore", "ID", 1, 1,
      "Make an image active again (cancels a scheduled revocation)", "imaxe images restore 41",
      status_opts, "PATCH", NULL, IMX_CLI_BODY_NONE, NULL, run_status, false },
    { "pins", "list", "", 0, 0, "A team's pins with their status and candidate",
      "imaxe pins list --team ml-platform", team_limit_opts, "GET", "/v1/pins", IMX_CLI_BODY_NONE,
      "id,team,name,image.id,image.version,status,candidate.version", NULL, false },
    { "pins", "get", "ID", 1, 1, "One pin with its history", "imaxe pins get 1", no_opts, "GET",
      "/v1/pins/{0}", IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "pins", "plan", "ID", 1, 1,
      "The safest move for a pin: candidates checked for advisories, GPUs, branch, cost; one "
      "recommended",
      "imaxe pins plan 1\nimaxe pins plan 1 -o json | jq '.recommended, .reason'", plan_opts, "GET",
      "/v1/pins/{0}/plan", IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "images", "plan", "ID", 1, 1, "The safest move from an image (as pins plan, without a pin)",
      "imaxe images plan 41", plan_opts, "GET", "/v1/images/{0}/plan", IMX_CLI_BODY_NONE, NULL,
      NULL, false },
    { "nodes", "list", "", 0, 0, "Nodes that report what they run, with their drift",
      "imaxe nodes list --team ml-platform --drift true", node_list_opts, "GET", "/v1/nodes",
      IMX_CLI_BODY_NONE, "name,team,image.id,image.version,drift,stale,last_seen", NULL, false },
    { "nodes", "get", "NAME", 1, 1, "One node with its latest report and history",
      "imaxe nodes get ip-10-0-1-23.ec2.internal", node_get_opts, "GET", "/v1/nodes/{0}",
      IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "pins", "move", "ID", 1, 1, "Point a pin at another image (422 names unmet constraints)",
      "imaxe pins move 1 --image 6", move_opts, "PUT", NULL, IMX_CLI_BODY_NONE, NULL, run_pin_move,
      false },
    { "advisories", "list", "", 0, 0, "Search advisories, newest first or --sort risk",
      "imaxe advisories list -c nvidia-container-toolkit --severity critical\n"
      "imaxe advisories list --kev true --sort risk",
      advisory_opts, "GET", "/v1/advisories", IMX_CLI_BODY_NONE, "id,severity,cvss,published,title",
      NULL, false },
    { "advisories", "get", "ID", 1, 1, "One advisory with its affected ranges",
      "imaxe advisories get NVIDIA-5703", no_opts, "GET", "/v1/advisories/{0}", IMX_CLI_BODY_NONE,
      NULL, NULL, false },
    { "advisories", "import", "[FILE]", 0, 1,
      "Publish an advisory (imaxe JSON, OSV, CSAF), or every one of a directory or NDJSON file "
      "(global admins)",
      "imaxe advisories import ubuntu-security-notices/osv/usn/", no_opts, "POST", "/v1/advisories",
      IMX_CLI_BODY_JSON, NULL, run_advisory_import, false },
    { "advisories", "import-kev", "[FILE]", 0, 1,
      "Import CISA's Known Exploited Vulnerabilities catalog (global admins)",
      "imaxe advisories import-kev known_exploited_vulnerabilities.json", no_opts, "POST",
      "/v1/risk-feeds/kev", IMX_CLI_BODY_NONE, NULL, imx_cli_run_import_kev, false },
    { "advisories", "import-epss", "[FILE]", 0, 1,
      "Import a day of FIRST's EPSS scores, the CSV gzipped or not (global admins)",
      "imaxe advisories import-epss epss_scores-2024-12-05.csv.gz", no_opts, "POST",
      "/v1/risk-feeds/epss", IMX_CLI_BODY_NONE, NULL, imx_cli_run_import_epss, false },
    { "compat", "check", "[FILE]", 0, 1,
      "Check a stack against the compatibility rules; exit 3 on errors",
      "imaxe compat check -c nvidia-driver=535.183.01 -c cuda=12.8.0 -g B200", compat_opts, "POST",
      "/v1/compat/check", IMX_CLI_BODY_NONE, NULL, run_compat, false },
    { "measurements", "add", "[FILE]", 0, 1, "Record one cost measurement (JSON file, or stdin)",
      "imaxe measurements add bench.json", no_opts, "POST", "/v1/measurements", IMX_CLI_BODY_JSON,
      NULL, NULL, false },
    { "measurements", "import", "[FILE]", 0, 1, "Import a CSV of measurements (all or nothing)",
      "imaxe measurements import bench.csv --team ml-platform", measurement_import_opts, "POST",
      NULL, IMX_CLI_BODY_NONE, NULL, run_measurement_import, false },
    { "costs", NULL, "", 0, 0, "Cheapest image + instance type for a model at a latency target",
      "imaxe costs --model resnet50 --max-p99-ms 50 --daily-inferences 2000000", costs_opts, "GET",
      "/v1/costs", IMX_CLI_BODY_NONE,
      "rank,image.family,image.version,instance_type,gpu_model,pricing,"
      "median_cost_per_1k_inferences,monthly_cost",
      NULL, false },
    { "requests", "create", "[FILE]", 0, 1, "Ask for a new image (JSON file, or stdin)",
      "imaxe requests create request.json", no_opts, "POST", "/v1/requests", IMX_CLI_BODY_JSON,
      NULL, NULL, false },
    { "requests", "list", "", 0, 0, "Image requests",
      "imaxe requests list --team ml-platform --state open", request_list_opts, "GET",
      "/v1/requests", IMX_CLI_BODY_NONE, "id,team,title,state", NULL, false },
    { "webhooks", "list", "", 0, 0, "A team's webhook subscriptions",
      "imaxe webhooks list --team ml-platform", webhook_list_opts, "GET", "/v1/webhooks",
      IMX_CLI_BODY_NONE, "id,team,url,events,enabled", NULL, false },
    { "webhooks", "deliveries", "ID", 1, 1, "Deliveries of a subscription with their attempts",
      "imaxe webhooks deliveries 3 --state failed", deliveries_opts, "GET",
      "/v1/webhooks/{0}/deliveries", IMX_CLI_BODY_NONE, "id,message_id,event_type,state", NULL,
      false },
    { "webhooks", "test", "ID", 1, 1, "Send a ping to a subscription (202 with the delivery)",
      "imaxe webhooks test 3", no_opts, "POST", "/v1/webhooks/{0}/test", IMX_CLI_BODY_NONE, NULL,
      NULL, false },
    { "webhooks", "redeliver", "DELIVERY", 1, 1, "Send a delivery again (same webhook-id)",
      "imaxe webhooks redeliver 17", no_opts, "POST", "/v1/deliveries/{0}/redeliver",
      IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "webhooks", "verify", "[FILE]", 0, 1,
      "Verify a delivery's Standard Webhooks signature; body on stdin, printed when valid",
      "imaxe webhooks verify --secret \"$SECRET\" --id \"$ID\" --timestamp \"$TS\" "
      "--signature \"$SIG\" < body.json",
      verify_opts, NULL, NULL, IMX_CLI_BODY_NONE, NULL, run_verify, true },
    { "pins", "create", "[FILE]", 0, 1, "Create a pin (JSON: team, name, image, constraints)",
      "imaxe pins create pin.json -f id", no_opts, "POST", "/v1/pins", IMX_CLI_BODY_JSON, NULL,
      NULL, false },
    { "pins", "delete", "ID", 1, 1, "Delete a pin and its history", "imaxe pins delete 7", no_opts,
      "DELETE", "/v1/pins/{0}", IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "webhooks", "create", "[FILE]", 0, 1,
      "Subscribe a receiver (JSON: team, url, events...); prints the secret once",
      "imaxe webhooks create hook.json -f secret", no_opts, "POST", "/v1/webhooks",
      IMX_CLI_BODY_JSON, NULL, NULL, false },
    { "webhooks", "update", "ID [FILE]", 1, 2, "Change a subscription (JSON of the fields)",
      "echo '{\"enabled\":true}' | imaxe webhooks update 3", no_opts, "PATCH", "/v1/webhooks/{0}",
      IMX_CLI_BODY_JSON, NULL, NULL, false },
    { "webhooks", "delete", "ID", 1, 1, "Delete a subscription", "imaxe webhooks delete 3", no_opts,
      "DELETE", "/v1/webhooks/{0}", IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "webhooks", "rotate-secret", "ID", 1, 1,
      "A new signing secret (the old one keeps signing for 24 h)",
      "imaxe webhooks rotate-secret 3 -f secret", no_opts, "POST", "/v1/webhooks/{0}/rotate-secret",
      IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "tokens", "list", "", 0, 0, "Your API tokens", "imaxe tokens list", limit_opts, "GET",
      "/v1/tokens", IMX_CLI_BODY_NONE, "id,name,team,role,expires_at", NULL, false },
    { "tokens", "create", "[FILE]", 0, 1,
      "Create an API token (JSON: name, team, role, expires_in_days); prints it once",
      "imaxe tokens create token.json -f token", no_opts, "POST", "/v1/tokens", IMX_CLI_BODY_JSON,
      NULL, NULL, false },
    { "tokens", "revoke", "ID", 1, 1, "Revoke an API token", "imaxe tokens revoke 5", no_opts,
      "DELETE", "/v1/tokens/{0}", IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "teams", "list", "", 0, 0, "Teams", "imaxe teams list", limit_opts, "GET", "/v1/teams",
      IMX_CLI_BODY_NONE, "slug,name", NULL, false },
    { "teams", "get", "SLUG", 1, 1, "One team with its members", "imaxe teams get ml-platform",
      no_opts, "GET", "/v1/teams/{0}", IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "teams", "create", "[FILE]", 0, 1, "Create a team (JSON: slug, name; global admins)",
      "echo '{\"slug\":\"vision\",\"name\":\"Vision\"}' | imaxe teams create", no_opts, "POST",
      "/v1/teams", IMX_CLI_BODY_JSON, NULL, NULL, false },
    { "members", "set", "TEAM EMAIL", 2, 2, "Add a user to a team, or change their role",
      "imaxe members set ml-platform ana@example.com --role publisher", member_opts, "PUT",
      "/v1/teams/{0}/members/{1}", IMX_CLI_BODY_NONE, NULL, imx_cli_run_member_set, false },
    { "members", "remove", "TEAM EMAIL", 2, 2, "Remove a user from a team",
      "imaxe members remove ml-platform ana@example.com", no_opts, "DELETE",
      "/v1/teams/{0}/members/{1}", IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "users", "create", "[FILE]", 0, 1,
      "Create a user (JSON: email, password, display_name; global admins)",
      "imaxe users create user.json -f id", no_opts, "POST", "/v1/users", IMX_CLI_BODY_JSON, NULL,
      NULL, false },
    { "users", "list", "", 0, 0, "Every user with their teams (global admins)",
      "imaxe users list --query example.com", user_list_opts, "GET", "/v1/users", IMX_CLI_BODY_NONE,
      "id,email,display_name,admin,disabled_at", NULL, false },
    { "users", "update", "ID [FILE]", 1, 2,
      "Change a user (JSON: display_name, admin, disabled; global admins)",
      "echo '{\"display_name\":\"Ana\"}' | imaxe users update 2", no_opts, "PATCH", "/v1/users/{0}",
      IMX_CLI_BODY_JSON, NULL, NULL, false },
    { "users", "disable", "ID", 1, 1, "Disable a user: no sign-in, their tokens stop at once",
      "imaxe users disable 2", no_opts, "PATCH", "/v1/users/{0}", IMX_CLI_BODY_NONE, NULL,
      imx_cli_run_user_state, false },
    { "users", "enable", "ID", 1, 1, "Enable a disabled user again", "imaxe users enable 2",
      no_opts, "PATCH", "/v1/users/{0}", IMX_CLI_BODY_NONE, NULL, imx_cli_run_user_state, false },
    { "teams", "update", "SLUG [FILE]", 1, 2, "Rename a team (JSON: name; global admins)",
      "echo '{\"name\":\"ML Platform\"}' | imaxe teams update ml-platform", no_opts, "PATCH",
      "/v1/teams/{0}", IMX_CLI_BODY_JSON, NULL, NULL, false },
    { "teams", "disable", "SLUG", 1, 1,
      "Disable a team: reads stay, writes are refused, webhooks hold (global admins)",
      "imaxe teams disable vision", no_opts, "PATCH", "/v1/teams/{0}", IMX_CLI_BODY_NONE, NULL,
      imx_cli_run_user_state, false },
    { "teams", "enable", "SLUG", 1, 1, "Enable a disabled team again (global admins)",
      "imaxe teams enable vision", no_opts, "PATCH", "/v1/teams/{0}", IMX_CLI_BODY_NONE, NULL,
      imx_cli_run_user_state, false },
    { "requests", "transition", "ID [FILE]", 1, 2,
      "Move a request on (JSON: to, and comment or image)",
      "echo '{\"to\":\"approved\"}' | imaxe requests transition 4", no_opts, "POST",
      "/v1/requests/{0}/transitions", IMX_CLI_BODY_JSON, NULL, NULL, false },
    { "requests", "comment", "ID [FILE]", 1, 2, "Comment on a request (JSON: body)",
      "echo '{\"body\":\"needs FIPS\"}' | imaxe requests comment 4", no_opts, "POST",
      "/v1/requests/{0}/comments", IMX_CLI_BODY_JSON, NULL, NULL, false },
    { "advisories", "revise", "ID [FILE]", 1, 2,
      "Revise an advisory (JSON of the fields; sent with its revision as If-Match)",
      "imaxe advisories revise NVIDIA-5703 changes.json", no_opts, "PATCH", "/v1/advisories/{0}",
      IMX_CLI_BODY_JSON, NULL, imx_cli_run_conditional, false },
    { "advisories", "withdraw", "ID", 1, 1, "Withdraw an advisory (it then affects nothing)",
      "imaxe advisories withdraw NVIDIA-5703 --reason 'published in error'", withdraw_opts,
      "DELETE", "/v1/advisories/{0}", IMX_CLI_BODY_NONE, NULL, imx_cli_run_conditional, false },
    /* The remaining writes of the API: reference data, instance types and prices, re-applying
     * advisories, and sign-ins (sessions). */
    { "advisories", "reapply", "", 0, 0,
      "Apply kept bulletins again after a reference change, a page a call (global admins)",
      "imaxe advisories reapply --limit 100", reapply_opts, "POST", "/v1/advisories:reapply",
      IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "reference", "list", "TABLE", 1, 1, "Rows of a reference table (gpu, driver_branch, ...)",
      "imaxe reference list gpu --all -o ndjson", limit_opts, "GET", "/v1/reference/{0}",
      IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "reference", "import", "[FILE]", 0, 1,
      "Import a reference data set, all or nothing (JSON; global admins)",
      "imaxe reference import knowledge.json", no_opts, "POST", "/v1/reference", IMX_CLI_BODY_JSON,
      NULL, NULL, false },
    { "reference", "create", "TABLE [FILE]", 1, 2, "Add a row to a reference table (JSON)",
      "imaxe reference create driver_branch row.json", no_opts, "POST", "/v1/reference/{0}",
      IMX_CLI_BODY_JSON, NULL, NULL, false },
    { "reference", "update", "TABLE [FILE]", 1, 2,
      "Correct a row of a reference table (JSON; the table's ETag is sent as If-Match)",
      "imaxe reference update driver_branch row.json", no_opts, "PUT", "/v1/reference/{0}",
      IMX_CLI_BODY_JSON, NULL, imx_cli_run_conditional, false },
    { "instance-types", "list", "", 0, 0, "Instance types with their GPUs",
      "imaxe instance-types list --gpu H100", instance_type_opts, "GET", "/v1/instance-types",
      IMX_CLI_BODY_NONE, "provider,instance_type,gpu_model,gpu_count,vcpus,memory_gib", NULL,
      false },
    { "instance-types", "get", "PROVIDER TYPE", 2, 2, "One instance type with its dated prices",
      "imaxe instance-types get aws p5.48xlarge", no_opts, "GET", "/v1/instance-types/{0}/{1}",
      IMX_CLI_BODY_NONE, NULL, NULL, false },
    { "instance-types", "create", "[FILE]", 0, 1, "Add an instance type (JSON; global admins)",
      "imaxe instance-types create type.json", no_opts, "POST", "/v1/instance-types",
      IMX_CLI_BODY_JSON, NULL, NULL, false },
    { "instance-types", "update", "PROVIDER TYPE [FILE]", 2, 3,
      "Correct an instance type (JSON; its ETag is sent as If-Match)",
      "imaxe instance-types update aws p5.48xlarge type.json", no_opts, "PUT",
      "/v1/instance-types/{0}/{1}", IMX_CLI_BODY_JSON, NULL, imx_cli_run_conditional, false },
    { "instance-types", "price", "PROVIDER TYPE [FILE]", 2, 3,
      "Add a dated price (JSON: pricing, region, price_per_hour, valid_from)",
      "echo '{\"pricing\":\"spot\",\"region\":\"us-east-1\",\"price_per_hour\":21.5}' | "
      "imaxe instance-types price aws p5.48xlarge",
      no_opts, "POST", "/v1/instance-types/{0}/{1}/prices", IMX_CLI_BODY_JSON, NULL, NULL, false },
    { "sessions", "list", "", 0, 0, "Your sign-ins: browser sessions and command lines",
      "imaxe sessions list", no_opts, "GET", "/v1/sessions", IMX_CLI_BODY_NONE,
      "id,kind,via,user_agent,last_seen_at,current", NULL, false },
    { "sessions", "revoke", "ID", 1, 1, "End a sign-in at once (yours; anyone's for global admins)",
      "imaxe sessions revoke 12", no_opts, "DELETE", "/v1/sessions/{0}", IMX_CLI_BODY_NONE, NULL,
      NULL, false },
    { "users", "sessions", "ID", 1, 1, "A user's sign-ins (global admins)",
      "imaxe users sessions 2", no_opts, "GET", "/v1/users/{0}/sessions", IMX_CLI_BODY_NONE,
      "id,kind,via,user_agent,last_seen_at", NULL, false },
    { "users", "sign-out", "ID", 1, 1, "End every sign-in of a user at once (global admins)",
      "imaxe users sign-out 2", no_opts, "DELETE", "/v1/users/{0}/sessions", IMX_CLI_BODY_NONE,
      NULL, NULL, false },
    { "api", NULL, "METHOD PATH", 2, 2,
      "Any API request with your sign-in (as `gh api`), for what no verb covers",
      "imaxe api GET /images/4/patch\nimaxe api POST /v1/pins --data @pin.json\n"
      "imaxe api DELETE /pins/7",
      api_opts, NULL, NULL, IMX_CLI_BODY_NONE, NULL, imx_cli_run_api, false },
    { "probe", NULL, "", 0, 0,
      "Read this machine's GPU stack as a manifest fragment; --check, --publish, --report",
      "imaxe probe\nimaxe probe --check dlami-base-ubuntu24.04/us-east-1 || echo drift\n"
      "IMAXE_TOKEN=$NODE_TOKEN imaxe probe --report --imds --artifact us-east-1=ami-0abc123",
      probe_opts, NULL, NULL, IMX_CLI_BODY_NONE, NULL, imx_cli_run_probe, true },
    { "measure", NULL, "", 0, 0,
      "Record a benchmark result as a measurement, boot time from systemd-analyze",
      "imaxe measure --team ml-platform --image 12 --instance-type g6.xlarge --model resnet50 "
      "--throughput 1850 --p99-ms 31",
      measure_opts, NULL, NULL, IMX_CLI_BODY_NONE, NULL, imx_cli_run_measure, false },
    { NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, IMX_CLI_BODY_NONE, NULL, NULL, false },
};

int imx_cli_run_generic(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    return run_generic(cmd, ctx);
}
