/* imaxe advisories import-kev / import-epss: CISA's KEV catalog and FIRST's daily EPSS CSV to
 * the server (POST /v1/risk-feeds/kev, /epss). FIRST serves the CSV gzipped: zlib reads a .gz
 * file and a plain one alike, so either may be given, and the server gets the CSV. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "cli.h"
#include "exit.h"
#include "http.h"

/* Reads path ("-": stdin), decompressed when gzipped, into b (at most IMX_CLI_BODY_MAX bytes:
 * a day of EPSS is about 10 MB). 0, or -1 after printing why. */
static int read_maybe_gzipped(const char *path, struct imx_cli_buf *b)
{
    gzFile f = strcmp(path, "-") == 0 ? gzdopen(0, "rb") : gzopen(path, "rb");
    if (!f) {
        imx_cli_err("%s: %s", path, errno ? strerror(errno) : "cannot open");
        return -1;
    }
    imx_cli_buf_init(b, IMX_CLI_BODY_MAX);
    char chunk[65536];
    int n, rc = 0;
    while ((n = gzread(f, chunk, sizeof chunk)) > 0) {
        if (imx_cli_buf_add(b, chunk, (size_t)n) != 0) {
            imx_cli_err("%s: larger than %u bytes decompressed", path, IMX_CLI_BODY_MAX);
            rc = -1;
            break;
        }
    }
    if (n < 0) {
        int zerr;
        const char *msg = gzerror(f, &zerr);
        imx_cli_err("%s: %s", path, zerr == Z_ERRNO ? strerror(errno) : msg);
        rc = -1;
    }
    gzclose(f);
    if (rc == 0 && !b->data)
        imx_cli_buf_add(b, "", 0);
    if (rc != 0)
        imx_cli_buf_free(b);
    return rc;
}

/* Sends the file to path as content_type and prints the outcome. */
static int import_feed(struct imx_cli_ctx *ctx, const char *path, const char *content_type)
{
    const char *file = ctx->args.npos > 0 ? ctx->args.pos[0] : "-";
    struct imx_cli_buf in;
    if (read_maybe_gzipped(file, &in) != 0)
        return IMX_CLI_EXIT_USAGE;
    struct imx_cli_resp r;
    int code = imx_cli_call(ctx, "POST", path, content_type, in.data, in.len, NULL, &r);
    imx_cli_buf_free(&in);
    if (r.status == 413)
        imx_cli_err("the server takes at most IMAXE_MAX_BODY_BYTES in a body: raise it to "
                    "import a whole day of EPSS scores (about 10 MB)");
    if (code == 0) {
        json_t *doc = json_loadb(imx_cli_buf_str(&r.body), r.body.len, 0, NULL);
        code = doc ? imx_cli_print_doc(ctx, doc, NULL) : IMX_CLI_EXIT_SERVER;
        json_decref(doc);
    }
    imx_cli_resp_free(&r);
    return code;
}

int imx_cli_run_import_kev(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    return import_feed(ctx, "/v1/risk-feeds/kev", "application/json");
}

int imx_cli_run_import_epss(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    return import_feed(ctx, "/v1/risk-feeds/epss", "text/csv");
}
