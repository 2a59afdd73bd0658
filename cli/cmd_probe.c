/* `imaxe probe` (print, --check, --publish, --report) and `imaxe measure`: the commands that read
 * the machine they run on. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "probe_parse.h"
#include "domain/drift.h"

/* GET a JSON document; prints why on failure. Returns an exit code, *doc new on 0. */
static int get_json(struct imx_cli_ctx *ctx, const char *path, json_t **doc)
{
    struct imx_cli_resp r;
    *doc = NULL;
    int code = imx_cli_call(ctx, "GET", path, NULL, NULL, 0, NULL, &r);
    if (code == 0 && !(*doc = imx_cli_resp_json(&r)))
        code = IMX_CLI_EXIT_SERVER;
    imx_cli_resp_free(&r);
    return code;
}

/* The published image --check names: an id, or FAMILY/REGION through resolve. */
static int fetch_image(struct imx_cli_ctx *ctx, const char *target, json_t **image)
{
    struct imx_cli_buf path;
    imx_cli_buf_init(&path, 4096);
    json_t *resolved = NULL;
    int code;
    *image = NULL;
    if (strspn(target, "0123456789") == strlen(target) && target[0] != '\0') {
        imx_cli_buf_printf(&path, "/v1/images/%s", target);
    } else {
        const char *slash = strrchr(target, '/');
        if (!slash || slash == target || !slash[1]) {
            imx_cli_err("--check wants an image id or FAMILY/REGION, not '%s'", target);
            code = IMX_CLI_EXIT_USAGE;
            goto out;
        }
        char family[256];
        snprintf(family, sizeof family, "%.*s", (int)(slash - target), target);
        imx_cli_buf_puts(&path, "/v1/images/resolve?family=");
        imx_cli_buf_add_escaped(&path, family);
        imx_cli_buf_puts(&path, "&region=");
        imx_cli_buf_add_escaped(&path, slash + 1);
        if ((code = get_json(ctx, imx_cli_buf_str(&path), &resolved)) != 0)
            goto out;
        json_t *id = json_object_get(json_object_get(resolved, "image"), "id");
        if (!json_is_integer(id)) {
            imx_cli_err("resolve answered without image.id");
            code = IMX_CLI_EXIT_SERVER;
            goto out;
        }
        imx_cli_buf_reset(&path);
        imx_cli_buf_printf(&path, "/v1/images/%lld", (long long)json_integer_value(id));
    }
    code = get_json(ctx, imx_cli_buf_str(&path), image);
out:
    json_decref(resolved);
    imx_cli_buf_free(&path);
    return code;
}

static int probe_check(struct imx_cli_ctx *ctx, json_t *frag, const char *target)
{
    json_t *image = NULL;
    int code = fetch_image(ctx, target, &image);
    if (code != 0)
        return code;
    bool drift = false;
    json_t *rows = imx_drift_rows(frag, image, &drift);
    json_t *doc = json_pack("{s:I, s:O?, s:O?, s:b, s:o}", "image",
                            json_integer_value(json_object_get(image, "id")), "family",
                            json_object_get(image, "family"), "version",
                            json_object_get(image, "version"), "drift", drift, "items", rows);
    code = imx_cli_print_doc(ctx, doc, "name,image,node,state");
    if (code == 0 && drift) {
        size_t i;
        json_t *row;
        size_t n = 0;
        json_array_foreach(rows, i, row)
        {
            n += imx_drift_state_counts(json_string_value(json_object_get(row, "state")));
        }
        imx_cli_err("drift: %zu item(s) differ from image %lld", n,
                    (long long)json_integer_value(json_object_get(image, "id")));
        code = IMX_CLI_EXIT_DRIFT;
    }
    json_decref(doc);
    json_decref(image);
    return code;
}

static int probe_publish(struct imx_cli_ctx *ctx, json_t *frag)
{
    const char *family = imx_cli_args_get(&ctx->args, "family");
    const char *version = imx_cli_args_get(&ctx->args, "version");
    const char *team = imx_cli_args_get(&ctx->args, "team");
    const char *arts[IMX_CLI_VALS_MAX];
    size_t na = imx_cli_args_list(&ctx->args, "artifact", arts, IMX_CLI_VALS_MAX);
    if (!family || !version || !team || na == 0) {
        imx_cli_err("probe --publish needs --family, --version, --team and --artifact REGION=ID");
        return IMX_CLI_EXIT_USAGE;
    }
    json_t *m = json_deep_copy(frag);
    json_t *node = json_object_get(m, "node");
    const char *provider = imx_cli_args_get(&ctx->args, "provider");
    if (!provider)
        provider = json_object_get(node, "instance_type") ? "aws" : "onprem";
    json_object_del(m, "node");
    if (json_object_get(m, "packages"))
        json_object_set_new(m, "packages_source", json_string("probe"));
    const char *layer = imx_cli_args_get(&ctx->args, "layer");
    json_object_set_new(m, "team", json_string(team));
    json_object_set_new(m, "family", json_string(family));
    json_object_set_new(m, "version", json_string(version));
    json_object_set_new(m, "provider", json_string(provider));
    json_object_set_new(m, "layer", json_string(layer ? layer : "platform"));
    json_t *artifacts = json_array();
    int code = 0;
    for (size_t i = 0; i < na && i < IMX_CLI_VALS_MAX; i++) {
        const char *eq = strchr(arts[i], '=');
        if (!eq || eq == arts[i] || !eq[1]) {
            imx_cli_err("--artifact wants REGION=ID, not '%s'", arts[i]);
            code = IMX_CLI_EXIT_USAGE;
        } else {
            json_array_append_new(artifacts, json_pack("{s:s%, s:s}", "region", arts[i],
                                                       (size_t)(eq - arts[i]), "id", eq + 1));
        }
    }
    json_object_set_new(m, "artifacts", artifacts);
    const char *tags[IMX_CLI_VALS_MAX];
    size_t nt = imx_cli_args_list(&ctx->args, "tag", tags, IMX_CLI_VALS_MAX);
    if (nt > 0) {
        json_t *t = json_array();
        for (size_t i = 0; i < nt && i < IMX_CLI_VALS_MAX; i++)
            json_array_append_new(t, json_string(tags[i]));
        json_object_set_new(m, "tags", t);
    }
    const char *parent = imx_cli_args_get(&ctx->args, "parent");
    if (parent) {
        char *end;
        long long pid = strtoll(parent, &end, 10);
        if (*end || pid <= 0) {
            imx_cli_err("--parent wants an image id, not '%s'", parent);
            code = IMX_CLI_EXIT_USAGE;
        }
        json_object_set_new(m, "parent", json_integer(pid));
    }
    const char *desc = imx_cli_args_get(&ctx->args, "description");
    if (desc)
        json_object_set_new(m, "description", json_string(desc));
    if (json_array_size(json_object_get(m, "gpus")) == 0)
        json_object_del(m, "gpus");
    char *body = code == 0 ? json_dumps(m, JSON_COMPACT) : NULL;
    json_decref(m);
    if (code != 0)
        return code;
    struct imx_cli_resp r;
    code =
        imx_cli_call(ctx, "POST", "/v1/images", "application/json", body, strlen(body), NULL, &r);
    free(body);
    json_t *doc = code == 0 ? imx_cli_resp_json(&r) : NULL;
    if (code == 0)
        code = doc ? imx_cli_print_doc(ctx, doc, NULL) : IMX_CLI_EXIT_SERVER;
    json_decref(doc);
    imx_cli_resp_free(&r);
    return code;
}

/* The node report of --report: {name, team?, image, instance_type?, probe}. Returns a new
 * document, or NULL (printed). */
static json_t *report_doc(struct imx_cli_ctx *ctx, json_t *frag)
{
    const char *image = imx_cli_args_get(&ctx->args, "image");
    const char *arts[IMX_CLI_VALS_MAX];
    size_t na = imx_cli_args_list(&ctx->args, "artifact", arts, IMX_CLI_VALS_MAX);
    json_t *node = json_object_get(frag, "node");
    const char *ami = json_string_value(json_object_get(node, "ami_id"));
    if ((image && na) || na > 1 || (!image && !na && !ami)) {
        imx_cli_err("probe --report names the booted image: --image ID, --artifact REGION=ID, "
                    "or --imds on EC2 (its AMI id)");
        return NULL;
    }
    json_t *img;
    if (!image && !na) {
        img = json_pack("{s:s}", "artifact_id", ami);
        json_t *region = json_object_get(node, "region");
        if (json_is_string(region))
            json_object_set(img, "region", region);
    } else if (image) {
        char *end;
        long long id = strtoll(image, &end, 10);
        if (*end || id <= 0) {
            imx_cli_err("--image wants an image id, not '%s'", image);
            return NULL;
        }
        img = json_pack("{s:I}", "id", (json_int_t)id);
    } else {
        const char *eq = strchr(arts[0], '=');
        if (!eq || !eq[1]) {
            imx_cli_err("--artifact wants REGION=ID (or =ID for any region), not '%s'", arts[0]);
            return NULL;
        }
        img = json_pack("{s:s}", "artifact_id", eq + 1);
        if (eq > arts[0])
            json_object_set_new(img, "region", json_stringn(arts[0], (size_t)(eq - arts[0])));
    }
    char host[256] = "";
    const char *name = imx_cli_args_get(&ctx->args, "name");
    if (!name)
        name = getenv("IMAXE_NODE_NAME");
    if ((!name || !*name) && gethostname(host, sizeof host - 1) == 0)
        name = host;
    if (!name || !*name) {
        json_decref(img);
        imx_cli_err("probe --report needs --name (no IMAXE_NODE_NAME, no host name)");
        return NULL;
    }
    json_t *doc = json_pack("{s:s, s:o, s:O}", "name", name, "image", img, "probe", frag);
    const char *team = imx_cli_args_get(&ctx->args, "team");
    if (team)
        json_object_set_new(doc, "team", json_string(team));
    json_t *it = json_object_get(json_object_get(frag, "node"), "instance_type");
    if (json_is_string(it))
        json_object_set(doc, "instance_type", it);
    return doc;
}

static int probe_report(struct imx_cli_ctx *ctx, json_t *frag)
{
    json_t *doc = report_doc(ctx, frag);
    if (!doc)
        return IMX_CLI_EXIT_USAGE;
    char *body = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    struct imx_cli_resp r;
    int code = imx_cli_call(ctx, "POST", "/v1/nodes/reports", "application/json", body,
                            strlen(body), NULL, &r);
    free(body);
    json_t *out = code == 0 ? imx_cli_resp_json(&r) : NULL;
    if (code == 0) {
        json_t *item = json_array_get(json_object_get(out, "items"), 0);
        code = item ? imx_cli_print_doc(ctx, item, NULL) : IMX_CLI_EXIT_SERVER;
    }
    json_decref(out);
    imx_cli_resp_free(&r);
    return code;
}

int imx_cli_run_probe(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    const char *check = imx_cli_args_get(&ctx->args, "check");
    bool publish = imx_cli_args_has(&ctx->args, "publish");
    bool report = imx_cli_args_has(&ctx->args, "report");
    if ((check != NULL) + publish + report > 1) {
        imx_cli_err("probe takes one of --check, --publish and --report");
        return IMX_CLI_EXIT_USAGE;
    }
    if ((check || publish || report) && !ctx->http.token) {
        imx_cli_err("not signed in: run `imaxe login` or set IMAXE_TOKEN");
        return IMX_CLI_EXIT_AUTH;
    }
    struct imx_probe_opts o = { .imds = imx_cli_args_has(&ctx->args, "imds") };
    json_t *frag = imx_probe_run(&o);
    int code;
    if (check)
        code = probe_check(ctx, frag, check);
    else if (publish)
        code = probe_publish(ctx, frag);
    else if (report)
        code = probe_report(ctx, frag);
    else
        code = imx_cli_print_doc(ctx, frag, NULL);
    json_decref(frag);
    return code;
}

/* Sets member name of o from a numeric option (integer when integer is set). Returns 0, or -1
 * (printed) when the value is not a number. */
static int set_number(json_t *o, const char *name, const char *value, bool integer)
{
    char *end;
    double d = strtod(value, &end);
    if (!value[0] || *end || (integer && d != (double)(long long)d)) {
        imx_cli_err("%s wants %s, not '%s'", name, integer ? "an integer" : "a number", value);
        return -1;
    }
    json_object_set_new(o, name, integer ? json_integer((json_int_t)d) : json_real(d));
    return 0;
}

int imx_cli_run_measure(const struct imx_cli_cmd *cmd, struct imx_cli_ctx *ctx)
{
    (void)cmd;
    json_t *m = json_object();
    int code = IMX_CLI_EXIT_USAGE;
    char *body = NULL;
    const char *from = imx_cli_args_get(&ctx->args, "from-json");
    if (from) {
        struct imx_cli_buf in;
        if (imx_cli_read_input(from, &in) != 0)
            goto out;
        json_t *res = json_loadb(in.data, in.len, 0, NULL);
        imx_cli_buf_free(&in);
        if (!json_is_object(res)) {
            imx_cli_err("%s: not a JSON object", from);
            json_decref(res);
            code = IMX_CLI_EXIT_REFUSED;
            goto out;
        }
        static const char *const fields[] = {
            "throughput_per_s", "latency_p50_ms", "latency_p99_ms", "precision", "batch_size",
            "gpu_count",        "model",          "notes",          NULL
        };
        for (size_t i = 0; fields[i]; i++)
            if (json_object_get(res, fields[i]))
                json_object_set(m, fields[i], json_object_get(res, fields[i]));
        json_decref(res);
    }
    static const struct {
        const char *opt, *field;
        char kind; /* s string, i integer, n number */
    } map[] = {
        { "team", "team", 's' },
        { "image", "image", 'i' },
        { "instance-type", "instance_type", 's' },
        { "model", "model", 's' },
        { "throughput", "throughput_per_s", 'n' },
        { "p50-ms", "latency_p50_ms", 'n' },
        { "p99-ms", "latency_p99_ms", 'n' },
        { "precision", "precision", 's' },
        { "batch-size", "batch_size", 'i' },
        { "gpu-count", "gpu_count", 'i' },
        { "pricing", "pricing", 's' },
        { "boot-seconds", "boot_seconds", 'n' },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        const char *v = imx_cli_args_get(&ctx->args, map[i].opt);
        if (!v)
            continue;
        if (map[i].kind == 's')
            json_object_set_new(m, map[i].field, json_string(v));
        else if (set_number(m, map[i].field, v, map[i].kind == 'i') != 0)
            goto out;
    }
    if (!json_object_get(m, "throughput_per_s")) {
        imx_cli_err("measure needs --throughput or --from-json with throughput_per_s");
        goto out;
    }
    if (!json_object_get(m, "boot_seconds") && !imx_cli_args_has(&ctx->args, "no-boot")) {
        struct imx_cli_buf b;
        imx_cli_buf_init(&b, IMX_PROBE_OUTPUT_MAX);
        char *argv[] = { "systemd-analyze", "time", NULL };
        double secs;
        if (imx_probe_run_capture(argv, IMX_PROBE_TIMEOUT_MS, &b) == 0 &&
            imx_probe_parse_systemd_analyze(imx_cli_buf_str(&b), &secs) == 0)
            json_object_set_new(m, "boot_seconds", json_real(secs));
        else
            fprintf(stderr, "imaxe measure: boot_seconds: systemd-analyze gave no startup time\n");
        imx_cli_buf_free(&b);
    }
    if (!json_object_get(m, "measured_at")) {
        char now[32];
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
        json_object_set_new(m, "measured_at", json_string(now));
    }
    body = json_dumps(m, JSON_COMPACT | JSON_REAL_PRECISION(10));
    struct imx_cli_resp r;
    code = imx_cli_call(ctx, "POST", "/v1/measurements", "application/json", body, strlen(body),
                        NULL, &r);
    json_t *doc = code == 0 ? imx_cli_resp_json(&r) : NULL;
    if (code == 0)
        code = doc ? imx_cli_print_doc(ctx, doc, NULL) : IMX_CLI_EXIT_SERVER;
    json_decref(doc);
    imx_cli_resp_free(&r);
out:
    free(body);
    json_decref(m);
    return code;
}
