/* `imaxe login --sso`: sign in with the company's identity provider from a terminal, by the OAuth
 * 2.0 device authorization grant (RFC 8628). The server talks to the provider (it holds the
 * client and validates the ID token: server/api/oidc_device.c); the CLI prints where to go and
 * the code to enter, then polls the server every `interval` seconds (longer after each
 * slow_down) until the person has signed in, and keeps the access and refresh tokens it gets. */
#include "cli.h"
#include "config.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

/* A poll every interval seconds, but never a wait past the code's end. */
#define SSO_INTERVAL_MAX 120

static void sleep_s(long s)
{
    struct timespec ts = { .tv_sec = s, .tv_nsec = 0 };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int imx_cli_sso_sign_in(struct imx_cli_ctx *ctx, struct imx_cli_config *cfg)
{
    struct imx_cli_resp r;
    json_t *doc = NULL;
    /* Whatever token is stored is not sent: the provider decides who this is. */
    ctx->http.token = NULL;
    ctx->refresh[0] = '\0';
    int code =
        imx_cli_call(ctx, "POST", "/v1/auth/oidc/device", "application/json", "{}", 2, NULL, &r);
    if (code != 0)
        goto out;
    doc = imx_cli_resp_json(&r);
    const char *device = json_string_value(json_object_get(doc, "device_id"));
    const char *user_code = json_string_value(json_object_get(doc, "user_code"));
    const char *uri = json_string_value(json_object_get(doc, "verification_uri"));
    const char *complete = json_string_value(json_object_get(doc, "verification_uri_complete"));
    long interval = (long)json_integer_value(json_object_get(doc, "interval"));
    long expires = (long)json_integer_value(json_object_get(doc, "expires_in"));
    if (!device || !user_code || !uri || interval < 1 || expires < 1) {
        imx_cli_err("the server's device sign-in answer lacks a device_id, user_code or URI");
        code = IMX_CLI_EXIT_SERVER;
        goto out;
    }
    fprintf(stderr, "To sign in, open %s\nand enter the code: %s\n", uri, user_code);
    if (complete)
        fprintf(stderr, "(or open %s)\n", complete);
    fprintf(stderr, "Waiting for the sign-in (the code is good for %ld minutes)...\n",
            (expires + 59) / 60);
    char body[256];
    snprintf(body, sizeof body, "{\"device_id\":\"%s\"}", device);
    time_t end = time(NULL) + expires;
    json_decref(doc);
    doc = NULL;
    for (;;) {
        if (time(NULL) + interval > end) {
            imx_cli_err("the code was not entered in time: run imaxe login --sso again");
            code = IMX_CLI_EXIT_AUTH;
            goto out;
        }
        sleep_s(interval);
        imx_cli_resp_free(&r);
        code = imx_cli_call(ctx, "POST", "/v1/auth/oidc/device/token", "application/json", body,
                            strlen(body), NULL, &r);
        if (code != 0 && r.status != 503)
            goto out;
        if (r.status == 503) /* the provider is out of reach for now: try again later */
            continue;
        if (r.status == 202) {
            json_t *w = imx_cli_resp_json(&r);
            long next = (long)json_integer_value(json_object_get(w, "interval"));
            const char *st = json_string_value(json_object_get(w, "status"));
            /* slow_down: RFC 8628 adds 5 s for good; the server's interval already has it. */
            if (st && strcmp(st, "slow_down") == 0 && next <= interval)
                next = interval + 5;
            if (next >= 1 && next <= SSO_INTERVAL_MAX)
                interval = next;
            json_decref(w);
            continue;
        }
        break;
    }
    doc = imx_cli_resp_json(&r);
    const char *token = json_string_value(json_object_get(doc, "access_token"));
    const char *refresh = json_string_value(json_object_get(doc, "refresh_token"));
    if (!token || strlen(token) >= sizeof cfg->token) {
        imx_cli_err("the sign-in answer has no access_token");
        code = IMX_CLI_EXIT_SERVER;
        goto out;
    }
    snprintf(cfg->token, sizeof cfg->token, "%s", token);
    if (refresh && strlen(refresh) < sizeof cfg->refresh)
        snprintf(cfg->refresh, sizeof cfg->refresh, "%s", refresh);
    code = IMX_CLI_EXIT_OK;
out:
    json_decref(doc);
    imx_cli_resp_free(&r);
    return code;
}
