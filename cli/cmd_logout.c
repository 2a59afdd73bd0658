/* `imaxe logout`: ends the stored sign-in on its server (POST /v1/auth/revoke with the refresh
 * token: no access token needed, so an expired one is no obstacle) and removes the stored tokens
 * from the config file (the URL stays, for the next `imaxe login`). The local tokens go whatever
 * the server says: a person who signs out must not stay signed in because the server is down;
 * what could not be ended there is said, with how to end it later. */
#include "cli.h"
#include "config.h"

#include <stdlib.h>
#include <string.h>

/* Asks the server to end the sign-in of refresh. Returns 1 ended, 0 nothing live to end, -1 not
 * reachable or refused (said on stderr). */
static int end_on_server(struct imx_cli_ctx *ctx, const char *url, const char *refresh)
{
    json_t *req = json_pack("{s:s}", "refresh_token", refresh);
    char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (!body)
        return -1;
    struct imx_cli_http h = { .base = url, .token = NULL, .timeout_s = ctx->http.timeout_s };
    struct imx_cli_resp r;
    imx_cli_resp_init(&r);
    int rc = -1;
    if (imx_cli_http_do(&h, "POST", "/v1/auth/revoke", "application/json", body, strlen(body), NULL,
                        &r) != 0) {
        imx_cli_err("could not reach %s: %s", url, r.error);
    } else if (r.status != 200) {
        imx_cli_err("%s did not end the sign-in:", url);
        struct imx_cli_buf msg;
        imx_cli_buf_init(&msg, 64 * 1024);
        imx_cli_fmt_problem(&msg, r.status, imx_cli_buf_str(&r.body), r.body.len);
        fputs(imx_cli_buf_str(&msg), stderr);
        imx_cli_buf_free(&msg);
    } else {
        json_t *doc = json_loadb(imx_cli_buf_str(&r.body), r.body.len, 0, NULL);
        rc = json_is_true(json_object_get(doc, "revoked")) ? 1 : 0;
        json_decref(doc);
    }
    memset(body, 0, strlen(body));
    free(body);
    imx_cli_resp_free(&r);
    return rc;
}

int imx_cli_run_logout(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    struct imx_cli_config cfg;
    char err[512], path[4096] = "";
    if (imx_cli_config_load(&cfg, ctx->profile, err, sizeof err) != 0) {
        imx_cli_err("%s", err);
        return IMX_CLI_EXIT_USAGE;
    }
    imx_cli_config_path(path, sizeof path);
    char where[128] = "";
    if (cfg.profile[0])
        snprintf(where, sizeof where, " (profile %s)", cfg.profile);
    const char *env = getenv("IMAXE_TOKEN");
    if (!cfg.token[0]) {
        fprintf(stderr, "imaxe: not signed in%s: %s holds no sign-in; nothing to do\n", where,
                path[0] ? path : "the config file");
        if (env && env[0] && !cfg.profile[0])
            fprintf(stderr, "imaxe: IMAXE_TOKEN is set in this shell: unset it to stop using "
                            "that token\n");
        return IMX_CLI_EXIT_OK;
    }
    int ended = 1; /* an API token has no sign-in on the server to end */
    if (cfg.refresh[0])
        ended = end_on_server(ctx, cfg.url, cfg.refresh);
    bool api_token = !cfg.refresh[0];
    memset(cfg.token, 0, sizeof cfg.token);
    memset(cfg.refresh, 0, sizeof cfg.refresh);
    /* The URL stays: the next `imaxe login` goes back to the same server. */
    if (imx_cli_config_save(&cfg, err, sizeof err) != 0) {
        imx_cli_err("the stored sign-in could not be removed: %s", err);
        return IMX_CLI_EXIT_SERVER;
    }
    if (ended < 0) {
        fprintf(stderr,
                "imaxe: signed out here%s: the tokens are removed from %s, but the sign-in could "
                "not be ended on %s and stays usable by whoever holds its refresh token until it "
                "lapses. End it later: `imaxe login`, then `imaxe sessions list` and `imaxe "
                "sessions revoke ID` (or the web UI's Account screen)\n",
                where, path, cfg.url);
        return IMX_CLI_EXIT_SERVER;
    }
    if (api_token)
        fprintf(stderr,
                "imaxe: signed out%s: the API token is removed from %s; the token itself still "
                "works until it is revoked (`imaxe tokens list`, `imaxe tokens revoke ID`)\n",
                where, path);
    else
        fprintf(stderr, "imaxe: signed out of %s%s: %s; the tokens are removed from %s\n", cfg.url,
                where,
                ended ? "the sign-in is ended on the server"
                      : "the server had already ended this sign-in",
                path);
    if (env && env[0] && !cfg.profile[0])
        fprintf(stderr, "imaxe: IMAXE_TOKEN is still set in this shell and is used instead of the "
                        "stored sign-in: unset it too\n");
    return IMX_CLI_EXIT_OK;
}
