/* The imaxe command line against the real server: the built binary is run as a script would
 * run it, and its stdout, stderr and exit code are checked: sign-in, the stored token and logout,
 * publish / get / search with --all paging / resolve / lifecycle, pins, advisories, compat,
 * measurements, requests, webhooks (and `webhooks verify` on deliveries the server really
 * signed), every output format, the documented exit codes, and `imaxe probe` on fixture roots,
 * a stand-in NVML and fake tools, and for real on this machine. */
#include "harness.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/base64.h"

static struct imx_srv srv;
static struct imx_rcv rcv;
static char db[1024];
static char admin[4096];
static char pub[4096];    /* admin of team cli-team (so publisher and webhook admin) */
static char viewer[4096]; /* viewer of cli-team */
static char dir[600];     /* this test's scratch directory */
static char cli_bin[1024];
static char fixtures[1024];

struct cli_run {
    int code;
    char *out;
    char *err;
};

/* A whole file (new string; "" when it cannot be read). Read in chunks: /proc files have no
 * size. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    size_t len = 0, cap = 4096;
    char *s = malloc(cap);
    size_t n;
    while (f && (n = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2)
            s = realloc(s, cap *= 2);
    }
    s[len] = '\0';
    if (f)
        fclose(f);
    return s;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Runs imaxe with argv (NULL-ended) and stdin_text (NULL: empty). The child gets this
 * process's environment without IMAXE_* / WEBHOOK_* settings, XDG_CONFIG_HOME in the scratch
 * directory, IMAXE_URL of the server and IMAXE_TOKEN of the publisher, then env ("NAME=value";
 * "NAME=" unsets). */
static struct cli_run cli_v(const char *stdin_text, const char *const *env, const char *const *argv)
{
    char in[700], out[700], err[700], xdg[700];
    snprintf(in, sizeof in, "%s/stdin", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(xdg, sizeof xdg, "%s/xdg", dir);
    write_file(in, stdin_text ? stdin_text : "");
    const char *args[64];
    size_t n = 0;
    args[n++] = cli_bin;
    for (size_t i = 0; argv[i] && n < 63; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int fi = open(in, O_RDONLY), fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600),
            fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        static const char *const drop[] = { "IMAXE_URL",
                                            "IMAXE_TOKEN",
                                            "IMAXE_PASSWORD",
                                            "IMAXE_WEBHOOK_SECRET",
                                            "IMAXE_PROBE_ROOT",
                                            "WEBHOOK_ID",
                                            "WEBHOOK_TIMESTAMP",
                                            "WEBHOOK_SIGNATURE",
                                            "NO_COLOR",
                                            "CUDA_HOME",
                                            NULL };
        for (size_t i = 0; drop[i]; i++)
            unsetenv(drop[i]);
        setenv("XDG_CONFIG_HOME", xdg, 1);
        setenv("IMAXE_URL", srv.base, 1);
        setenv("IMAXE_TOKEN", pub, 1);
        for (size_t i = 0; env && env[i]; i++) {
            char kv[4096];
            snprintf(kv, sizeof kv, "%s", env[i]);
            char *eq = strchr(kv, '=');
            *eq = '\0';
            if (eq[1])
                setenv(kv, eq + 1, 1);
            else
                unsetenv(kv);
        }
        execv(cli_bin, (char *const *)args);
        _exit(127);
    }
    int status = 0;
    for (int waited = 0;; waited += 20) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (waited > 60000) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fail_msg("imaxe %s did not finish within 60 s", argv[0]);
        }
        imx_t_sleep_ms(20);
    }
    struct cli_run r = { .code = WIFEXITED(status) ? WEXITSTATUS(status) : 128,
                         .out = slurp(out),
                         .err = slurp(err) };
    return r;
}

#define CLI(in, env, ...) cli_v(in, env, (const char *const[]){ __VA_ARGS__, NULL })

static void run_free(struct cli_run *r)
{
    free(r->out);
    free(r->err);
}

/* Asserts the exit code, printing what the command said when it differs. */
static void expect_code(const struct cli_run *r, int code, const char *what)
{
    if (r->code != code)
        fail_msg("%s: exit %d, expected %d\nstdout: %s\nstderr: %s", what, r->code, code, r->out,
                 r->err);
}

/* stdout as JSON (new), asserting it parses. */
static json_t *out_json(const struct cli_run *r)
{
    json_error_t je;
    json_t *doc = json_loads(r->out, 0, &je);
    if (!doc)
        fail_msg("stdout is not JSON (%s): %s", je.text, r->out);
    return doc;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static char manifest_path[700];

/* Writes a manifest of family/version with the driver version and publishes it with imaxe;
 * returns the new image's id. */
static long long publish(const char *family, const char *version, const char *driver,
                         const char *ami)
{
    char m[2048];
    snprintf(m, sizeof m,
             "{\"team\":\"cli-team\",\"family\":\"%s\",\"version\":\"%s\",\"provider\":\"aws\","
             "\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":\"24.04\"},"
             "\"kernel\":\"6.8.0-1015-aws\",\"layer\":\"platform\",\"artifacts\":[{\"region\":"
             "\"us-east-1\",\"id\":\"%s\"}],\"components\":[{\"name\":\"nvidia-driver\","
             "\"version\":\"%s\"},{\"name\":\"cuda\",\"version\":\"13.0.2\"}],\"gpus\":[\"H100\"]}",
             family, version, ami, driver);
    write_file(manifest_path, m);
    struct cli_run r = CLI(NULL, NULL, "images", "publish", manifest_path, "-f", "id");
    expect_code(&r, 0, "images publish");
    long long id = atoll(r.out);
    assert_true(id > 0);
    run_free(&r);
    return id;
}

static void sign_in_stores_the_token_and_bad_credentials_exit_4(void **state)
{
    (void)state;
    const char *no_token[] = { "IMAXE_TOKEN=", "IMAXE_URL=", NULL };
    struct cli_run r = CLI(NULL, no_token, "images", "search");
    expect_code(&r, 4, "search without a token");
    assert_non_null(strstr(r.err, "not signed in"));
    run_free(&r);

    r = CLI("wrong-password\n", no_token, "login", "--url", srv.base, "--email", IMX_T_ADMIN_EMAIL,
            "--password-stdin");
    expect_code(&r, 4, "login with a wrong password");
    run_free(&r);

    r = CLI(IMX_T_ADMIN_PASSWORD "\n", no_token, "login", "--url", srv.base, "--email",
            IMX_T_ADMIN_EMAIL, "--password-stdin");
    expect_code(&r, 0, "login");
    run_free(&r);
    char cfg[800];
    snprintf(cfg, sizeof cfg, "%s/xdg/imaxe/config.json", dir);
    struct stat st;
    assert_int_equal(stat(cfg, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    json_t *c = json_load_file(cfg, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(c, "url")), srv.base);
    assert_true(strlen(json_string_value(json_object_get(c, "token"))) > 20);
    json_decref(c);

    /* Later commands use the stored token and URL: /v1/me answers as the admin. */
    r = CLI(NULL, no_token, "images", "search", "-o", "json");
    expect_code(&r, 0, "search with the stored token");
    json_t *doc = out_json(&r);
    assert_true(json_is_array(json_object_get(doc, "items")));
    json_decref(doc);
    run_free(&r);

    /* The stored token is never sent to another server: another spelling of the URL (the same
     * server) is not signed in. */
    char other[128];
    snprintf(other, sizeof other, "http://localhost:%u", srv.port);
    const char *other_url[] = { "IMAXE_TOKEN=", NULL };
    r = CLI(NULL, other_url, "--url", other, "images", "search");
    expect_code(&r, 4, "stored token to another URL");
    run_free(&r);

    /* A revoked or forged token is the server's 401: exit 4 with its problem on stderr. */
    const char *bad[] = { "IMAXE_TOKEN=not-a-token", NULL };
    r = CLI(NULL, bad, "images", "search");
    expect_code(&r, 4, "forged token");
    assert_non_null(strstr(r.err, "401"));
    assert_string_equal(r.out, "");
    run_free(&r);

    /* An API token can be stored instead of signing in; it is checked against /v1/me first. */
    r = CLI(NULL, no_token, "login", "--url", srv.base, "--api-token", "imx_bogus");
    expect_code(&r, 4, "login with a bad API token");
    run_free(&r);
}

/* The stored sign-in's access token, re-signed with the test server's key as if it had expired
 * an hour ago (same header, so the same key id; the server's leeway is 60 s). */
static void expired_copy(const char *token, char *out, size_t len)
{
    const char *dot = strchr(token, '.');
    assert_non_null(dot);
    long long now = (long long)time(NULL);
    char payload[256], enc[512];
    snprintf(payload, sizeof payload,
             "{\"iss\":\"imaxe\",\"aud\":\"imaxe-api\",\"sub\":\"1\",\"iat\":%lld,"
             "\"nbf\":%lld,\"exp\":%lld}",
             now - 7200, now - 7200, now - 3600);
    imx_b64url_encode((const unsigned char *)payload, strlen(payload), enc, sizeof enc);
    snprintf(out, len, "%.*s.%s", (int)(dot - token), token, enc);
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int ml = 0;
    HMAC(EVP_sha256(), IMX_T_JWT_SECRET, (int)strlen(IMX_T_JWT_SECRET), (const unsigned char *)out,
         strlen(out), mac, &ml);
    char sig[128];
    imx_b64url_encode(mac, ml, sig, sizeof sig);
    size_t used = strlen(out);
    snprintf(out + used, len - used, ".%s", sig);
}

static void a_sign_in_outlasts_its_access_token(void **state)
{
    (void)state;
    const char *no_token[] = { "IMAXE_TOKEN=", "IMAXE_URL=", NULL };
    struct cli_run r = CLI(IMX_T_ADMIN_PASSWORD "\n", no_token, "login", "--url", srv.base,
                           "--email", IMX_T_ADMIN_EMAIL, "--password-stdin");
    expect_code(&r, 0, "login");
    run_free(&r);
    char cfg[800];
    snprintf(cfg, sizeof cfg, "%s/xdg/imaxe/config.json", dir);
    json_t *c = json_load_file(cfg, 0, NULL);
    assert_non_null(c);
    char refresh1[128], expired[4096];
    snprintf(refresh1, sizeof refresh1, "%s",
             json_string_value(json_object_get(c, "refresh_token")));
    assert_int_equal(strncmp(refresh1, "imxr_", 5), 0);
    expired_copy(json_string_value(json_object_get(c, "token")), expired, sizeof expired);
    /* The access token has expired: the server refuses it... */
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, expired, "GET", "/v1/me", NULL, &res), 0);
    assert_int_equal(res.status, 401);
    imx_t_res_free(&res);
    json_object_set_new(c, "token", json_string(expired));
    assert_int_equal(json_dump_file(c, cfg, 0), 0);
    chmod(cfg, 0600);
    json_decref(c);
    /* ...and the next command still works: the CLI renews the sign-in with its refresh token and
     * stores the new pair. */
    r = CLI(NULL, no_token, "images", "search", "-o", "json");
    expect_code(&r, 0, "search after the access token expired");
    run_free(&r);
    c = json_load_file(cfg, 0, NULL);
    const char *token2 = json_string_value(json_object_get(c, "token"));
    const char *refresh2 = json_string_value(json_object_get(c, "refresh_token"));
    assert_string_not_equal(token2, expired);
    assert_string_not_equal(refresh2, refresh1);
    assert_int_equal(imx_t_http_as(&srv, token2, "GET", "/v1/me", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);
    json_decref(c);
    /* The refresh token used is spent. */
    char body[256];
    snprintf(body, sizeof body, "{\"refresh_token\":\"%s\"}", refresh1);
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/refresh", body, &res), 0);
    assert_int_equal(res.status, 401);
    imx_t_res_free(&res);
    /* `imaxe login --token` stores an API token (checked first) and no refresh token. */
    r = CLI(NULL, no_token, "login", "--url", srv.base, "--token", "imx_bogus");
    expect_code(&r, 4, "login --token with a bad API token");
    run_free(&r);
    r = CLI(NULL, no_token, "login", "--url", srv.base, "--token", pub);
    expect_code(&r, 0, "login --token");
    run_free(&r);
    c = json_load_file(cfg, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(c, "token")), pub);
    assert_null(json_object_get(c, "refresh_token"));
    json_decref(c);
}

static void publish_get_search_all_resolve_and_lifecycle(void **state)
{
    (void)state;
    long long ids[5];
    const char *drivers[] = { "580.65.06", "580.82.07", "580.95.05", "580.105.08", "580.105.08" };
    for (int i = 0; i < 5; i++) {
        char v[32], ami[64];
        snprintf(v, sizeof v, "2026.0%d.01", i + 1);
        snprintf(ami, sizeof ami, "ami-cli%017d", i);
        ids[i] = publish("cli-base-ubuntu24.04", v, drivers[i], ami);
    }
    /* A duplicate is the server's 409: exit 3. Invalid JSON is refused before any request. */
    struct cli_run r = CLI(NULL, NULL, "images", "publish", manifest_path);
    expect_code(&r, 3, "duplicate publish");
    assert_non_null(strstr(r.err, "409"));
    run_free(&r);
    char bad[700];
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    write_file(bad, "{\"team\": \"cli-team\",");
    r = CLI(NULL, NULL, "images", "publish", bad);
    expect_code(&r, 3, "publish of a file that is not JSON");
    assert_non_null(strstr(r.err, "not JSON"));
    run_free(&r);
    /* A manifest the server refuses: 400, every bad field named by its pointer. */
    write_file(bad, "{\"team\":\"cli-team\",\"family\":\"x\",\"version\":\"1\",\"provider\":"
                    "\"aws\",\"architecture\":\"sparc\",\"os\":{\"name\":\"u\",\"version\":\"1\"},"
                    "\"layer\":\"platform\",\"artifacts\":[],\"components\":[]}");
    r = CLI(NULL, NULL, "images", "publish", bad);
    expect_code(&r, 3, "invalid manifest");
    assert_non_null(strstr(r.err, "/architecture"));
    run_free(&r);
    /* From stdin too. */
    r = CLI("{}", NULL, "images", "publish");
    expect_code(&r, 3, "empty manifest on stdin");
    run_free(&r);

    /* get: json by default when stdout is not a terminal. */
    char id3[32];
    snprintf(id3, sizeof id3, "%lld", ids[2]);
    r = CLI(NULL, NULL, "images", "get", id3);
    expect_code(&r, 0, "images get");
    json_t *img = out_json(&r);
    assert_string_equal(json_string_value(json_object_get(img, "family")), "cli-base-ubuntu24.04");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(img, "components"), "nvidia-driver")),
        "580.95.05");
    json_decref(img);
    run_free(&r);
    r = CLI(NULL, NULL, "images", "get", "987654");
    expect_code(&r, 2, "get of a missing image");
    assert_string_equal(r.out, "");
    run_free(&r);
    r = CLI(NULL, NULL, "images", "get");
    expect_code(&r, 1, "get without an id");
    run_free(&r);
    r = CLI(NULL, NULL, "images", "get", id3, "--bogus");
    expect_code(&r, 1, "unknown option");
    run_free(&r);

    /* One page: two items and a cursor. --all: every page, in order, each image once. */
    r = CLI(NULL, NULL, "images", "search", "--family", "cli-base-ubuntu24.04", "--limit", "2",
            "-o", "json");
    expect_code(&r, 0, "one page");
    json_t *page = out_json(&r);
    assert_int_equal(json_array_size(json_object_get(page, "items")), 2);
    assert_true(json_is_string(json_object_get(page, "next_cursor")));
    json_decref(page);
    run_free(&r);
    r = CLI(NULL, NULL, "images", "search", "--family", "cli-base-ubuntu24.04", "--limit", "2",
            "--all", "-o", "ndjson");
    expect_code(&r, 0, "--all ndjson");
    assert_int_equal(count_lines(r.out), 5);
    long long seen[5];
    char *line = r.out;
    for (int i = 0; i < 5; i++) {
        char *nl = strchr(line, '\n');
        json_t *it = json_loadb(line, (size_t)(nl - line), 0, NULL);
        assert_non_null(it);
        seen[i] = json_integer_value(json_object_get(it, "id"));
        json_decref(it);
        line = nl + 1;
    }
    /* Newest first. */
    for (int i = 0; i < 5; i++)
        assert_int_equal(seen[i], ids[4 - i]);
    run_free(&r);
    r = CLI(NULL, NULL, "images", "search", "--family", "cli-base-ubuntu24.04", "--limit", "2",
            "--all", "-o", "json");
    expect_code(&r, 0, "--all json");
    page = out_json(&r);
    assert_int_equal(json_array_size(json_object_get(page, "items")), 5);
    assert_true(json_is_null(json_object_get(page, "next_cursor")));
    json_decref(page);
    run_free(&r);
    r = CLI(NULL, NULL, "images", "search", "--family", "cli-base-ubuntu24.04", "-n", "2", "--all",
            "-o", "table");
    expect_code(&r, 0, "--all table");
    assert_int_equal(count_lines(r.out), 6);
    assert_memory_equal(r.out, "ID ", 3);
    assert_non_null(strstr(r.out, "PATCH_STATUS"));
    assert_null(strchr(r.out, '\033')); /* no colour off a terminal */
    run_free(&r);
    r = CLI(NULL, NULL, "images", "search", "--family", "cli-base-ubuntu24.04", "-n", "2", "--all",
            "-f", "version");
    expect_code(&r, 0, "--all --field");
    assert_string_equal(r.out, "2026.05.01\n2026.04.01\n2026.03.01\n2026.02.01\n2026.01.01\n");
    run_free(&r);
    /* Component constraints pass through as repeatable query parameters. */
    r = CLI(NULL, NULL, "images", "search", "--family", "cli-base-ubuntu24.04", "-c",
            "nvidia-driver:>=580.95", "-c", "nvidia-driver:<580.105", "-f", "version");
    expect_code(&r, 0, "component filters");
    assert_string_equal(r.out, "2026.03.01\n");
    run_free(&r);
    r = CLI(NULL, NULL, "images", "search", "--limit", "500");
    expect_code(&r, 3, "a limit the server refuses");
    run_free(&r);

    /* resolve for scripts: the artifact alone; a filter that leaves nothing is exit 2. */
    r = CLI(NULL, NULL, "images", "resolve", "--family", "cli-base-ubuntu24.04", "--region",
            "us-east-1", "-c", "nvidia-driver:<580.90", "-f", "artifact_id");
    expect_code(&r, 0, "resolve");
    assert_string_equal(r.out, "ami-cli00000000000000001\n");
    run_free(&r);
    r = CLI(NULL, NULL, "images", "resolve", "--family", "cli-base-ubuntu24.04", "--region",
            "ap-south-1", "-f", "artifact_id");
    expect_code(&r, 2, "resolve in a region without artifacts");
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "region"));
    run_free(&r);
    r = CLI(NULL, NULL, "images", "resolve", "--family", "cli-base-ubuntu24.04", "--region",
            "us-east-1", "-f", "no.such.field");
    expect_code(&r, 2, "--field that is not there");
    run_free(&r);

    /* compare, lineage and patch status as tables and JSON. */
    char id1[32], id2[32];
    snprintf(id1, sizeof id1, "%lld", ids[0]);
    snprintf(id2, sizeof id2, "%lld", ids[1]);
    r = CLI(NULL, NULL, "images", "compare", id1, id2, "-o", "table");
    expect_code(&r, 0, "compare");
    assert_non_null(strstr(r.out, "nvidia-driver"));
    assert_non_null(strstr(r.out, "580.65.06"));
    assert_non_null(strstr(r.out, "580.82.07"));
    run_free(&r);
    r = CLI(NULL, NULL, "images", "compare", id1);
    expect_code(&r, 1, "compare of one image");
    run_free(&r);
    r = CLI(NULL, NULL, "images", "lineage", id1, "-f", "image.id");
    expect_code(&r, 0, "lineage");
    assert_int_equal(atoll(r.out), ids[0]);
    run_free(&r);
    r = CLI(NULL, NULL, "images", "patch", id1, "-o", "ndjson");
    expect_code(&r, 0, "patch status");
    assert_int_equal(count_lines(r.out), 1);
    run_free(&r);

    /* Lifecycle: the ETag is fetched and sent as If-Match; a viewer is refused (exit 3). */
    r = CLI(NULL, NULL, "images", "deprecate", id1, "--reason", "superseded", "-f", "status");
    expect_code(&r, 0, "deprecate");
    assert_string_equal(r.out, "deprecated\n");
    run_free(&r);
    r = CLI(NULL, NULL, "images", "restore", id1, "-f", "status");
    expect_code(&r, 0, "restore");
    assert_string_equal(r.out, "active\n");
    run_free(&r);
    char vtok[4200];
    snprintf(vtok, sizeof vtok, "IMAXE_TOKEN=%s", viewer);
    const char *as_viewer[] = { vtok, NULL };
    r = CLI(NULL, as_viewer, "images", "revoke", id1, "--reason", "test");
    expect_code(&r, 3, "revoke by a viewer");
    assert_non_null(strstr(r.err, "403"));
    run_free(&r);
    r = CLI(NULL, NULL, "images", "revoke", id1, "--reason", "CVE-2025-23266", "-f", "status");
    expect_code(&r, 0, "revoke");
    assert_string_equal(r.out, "revoked\n");
    run_free(&r);
    r = CLI(NULL, NULL, "images", "restore", "987654");
    expect_code(&r, 2, "restore of a missing image");
    run_free(&r);

    /* import: several manifests in NDJSON through the bulk endpoint (all or nothing), one result
     * row each; the same file again is a replay (same ids, nothing twice); a file with one bad
     * manifest imports none of them and names the line. */
    char nd[4096], path[700];
    snprintf(nd, sizeof nd,
             "{\"team\":\"cli-team\",\"family\":\"cli-import\",\"version\":\"1\",\"provider\":"
             "\"aws\",\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":"
             "\"24.04\"},\"layer\":\"platform\",\"artifacts\":[{\"region\":\"us-east-1\",\"id\":"
             "\"ami-1\"}],\"components\":[{\"name\":\"cuda\",\"version\":\"13.0.2\"}]}\n\n"
             "{\"team\":\"cli-team\",\"family\":\"cli-import\",\"version\":\"2\",\"provider\":"
             "\"aws\",\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":"
             "\"24.04\"},\"layer\":\"platform\",\"artifacts\":[{\"region\":\"us-east-1\",\"id\":"
             "\"ami-2\"}],\"components\":[{\"name\":\"cuda\",\"version\":\"13.0.2\"}]}\n");
    snprintf(path, sizeof path, "%s/import.ndjson", dir);
    write_file(path, nd);
    r = CLI(NULL, NULL, "images", "import", path, "-o", "ndjson");
    expect_code(&r, 0, "import");
    assert_int_equal(count_lines(r.out), 2);
    assert_non_null(strstr(r.out, "\"line\":2,\"family\":\"cli-import\",\"version\":\"2\""));
    char *first = strdup(r.out);
    run_free(&r);
    r = CLI(NULL, NULL, "images", "import", path, "-o", "ndjson");
    expect_code(&r, 0, "the same import again: replayed");
    assert_string_equal(r.out, first);
    free(first);
    run_free(&r);
    /* The first manifest, a bad one (no family...), a new third: nothing of it is imported. */
    *strstr(nd, "\n\n") = '\0';
    snprintf(nd + strlen(nd), sizeof nd - strlen(nd),
             "\n{\"team\":\"cli-team\"}\n"
             "{\"team\":\"cli-team\",\"family\":\"cli-import\",\"version\":\"3\",\"provider\":"
             "\"aws\",\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":"
             "\"24.04\"},\"layer\":\"platform\",\"artifacts\":[{\"region\":\"us-east-1\",\"id\":"
             "\"ami-3\"}],\"components\":[{\"name\":\"cuda\",\"version\":\"13.0.2\"}]}\n");
    write_file(path, nd);
    r = CLI(NULL, NULL, "images", "import", path, "-o", "ndjson");
    expect_code(&r, 3, "an import with a bad manifest");
    assert_non_null(strstr(r.err, "nothing was imported"));
    assert_non_null(strstr(r.err, "line 2 /family"));
    run_free(&r);
    r = CLI(NULL, NULL, "images", "search", "--family", "cli-import", "--status", "any", "-f",
            "version");
    expect_code(&r, 0, "search after the refused import");
    assert_null(strstr(r.out, "3"));
    run_free(&r);
}

static void pins_advisories_compat_costs_requests(void **state)
{
    (void)state;
    long long a = publish("cli-pinned", "1", "580.82.07", "ami-p1");
    long long b = publish("cli-pinned", "2", "580.95.05", "ami-p2");
    char body[256];
    snprintf(body, sizeof body, "{\"team\":\"cli-team\",\"name\":\"prod\",\"image\":%lld}", a);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, pub, "POST", "/v1/pins", body, &res), 0);
    assert_int_equal(res.status, 201);
    long long pin = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    char pid[32], bid[32];
    snprintf(pid, sizeof pid, "%lld", pin);
    snprintf(bid, sizeof bid, "%lld", b);

    struct cli_run r = CLI(NULL, NULL, "pins", "list", "--team", "cli-team", "-o", "table");
    expect_code(&r, 0, "pins list");
    assert_non_null(strstr(r.out, "prod"));
    assert_int_equal(count_lines(r.out), 2);
    /* The table a person reads: the pin's status and the candidate it can move to (version 2). */
    if (!strstr(r.out, "STATUS") || !strstr(r.out, "CANDIDATE.VERSION") ||
        !strstr(r.out, "behind") || !strstr(strchr(r.out, '\n'), "  2"))
        fail_msg("pins list -o table: %s", r.out);
    run_free(&r);
    /* Images as a table: GPUs, driver, CUDA and status columns. */
    r = CLI(NULL, NULL, "images", "search", "--family", "cli-pinned", "-o", "table");
    expect_code(&r, 0, "images search -o table");
    static const char *const image_cols[] = { "GPUS", "NVIDIA-DRIVER", "CUDA", "STATUS" };
    for (size_t i = 0; i < sizeof image_cols / sizeof image_cols[0]; i++)
        if (!strstr(r.out, image_cols[i]))
            fail_msg("images search -o table has no %s column: %s", image_cols[i], r.out);
    assert_non_null(strstr(r.out, "580.95.05"));
    run_free(&r);
    r = CLI(NULL, NULL, "pins", "move", pid, "--image", bid, "-f", "image.id");
    expect_code(&r, 0, "pins move");
    assert_int_equal(atoll(r.out), b);
    run_free(&r);
    r = CLI(NULL, NULL, "pins", "get", pid, "-f", "image.version");
    expect_code(&r, 0, "pins get");
    assert_string_equal(r.out, "2\n");
    run_free(&r);
    r = CLI(NULL, NULL, "pins", "move", pid);
    expect_code(&r, 1, "pins move without --image");
    run_free(&r);
    r = CLI(NULL, NULL, "pins", "get", "987654");
    expect_code(&r, 2, "missing pin");
    run_free(&r);
    /* Through the pin, resolve gives the image it points at. */
    r = CLI(NULL, NULL, "images", "resolve", "--pin", "cli-team/prod", "--region", "us-east-1",
            "-f", "artifact_id");
    expect_code(&r, 0, "resolve through a pin");
    assert_string_equal(r.out, "ami-p2\n");
    run_free(&r);

    /* Advisories: imaxe JSON, OSV and CSAF are published (global admins). */
    char path[700], atok[4200];
    snprintf(atok, sizeof atok, "IMAXE_TOKEN=%s", admin);
    const char *as_admin[] = { atok, NULL };
    snprintf(path, sizeof path, "%s/adv.json", dir);
    write_file(path,
               "{\"id\":\"CLI-1\",\"title\":\"Driver bulletin\",\"published\":\"2025-10-09\","
               "\"severity\":\"high\",\"cvss\":8.2,\"cves\":[\"CVE-2025-99999\"],"
               "\"affected\":[{\"component\":\"nvidia-driver\",\"range\":\">=580,<580.95.05\","
               "\"fixed\":\"580.95.05\"}]}");
    r = CLI(NULL, NULL, "advisories", "import", path);
    expect_code(&r, 3, "advisory by a team admin");
    assert_non_null(strstr(r.err, "403"));
    run_free(&r);
    r = CLI(NULL, as_admin, "advisories", "import", path, "-f", "id");
    expect_code(&r, 0, "advisory import");
    assert_string_equal(r.out, "CLI-1\n");
    run_free(&r);
    write_file(path, "{\"schema_version\":\"1.6.0\",\"id\":\"GHSA-cli0-0000-0001\",\"published\":"
                     "\"2025-07-15T00:00:00Z\",\"aliases\":[\"CVE-2025-99998\"],"
                     "\"database_specific\":{\"severity\":\"CRITICAL\"},\"affected\":[{\"package\":"
                     "{\"name\":\"nvidia-container-toolkit\"},\"ranges\":[{\"type\":\"SEMVER\","
                     "\"events\":[{\"introduced\":\"0\"},{\"fixed\":\"1.17.8\"}]}]}]}");
    r = CLI(NULL, as_admin, "advisories", "import", path, "-f", "id");
    expect_code(&r, 0, "OSV import");
    assert_string_equal(r.out, "GHSA-cli0-0000-0001\n");
    run_free(&r);
    /* CSAF: NVIDIA's Container Toolkit bulletin imports; a document the server cannot read is
     * refused with its reason. */
    char csaf[700];
    snprintf(csaf, sizeof csaf, "%s/tests/data/csaf/nvidia-5850.csaf.json",
             getenv("IMX_TEST_SOURCE_DIR"));
    r = CLI(NULL, as_admin, "advisories", "import", csaf, "-f", "id");
    expect_code(&r, 0, "CSAF import");
    assert_string_equal(r.out, "NVIDIA-5850\n");
    run_free(&r);
    write_file(path,
               "{\"document\":{\"csaf_version\":\"2.0\",\"category\":\"csaf_security_advisory\"},"
               "\"vulnerabilities\":[]}");
    r = CLI(NULL, as_admin, "advisories", "import", path);
    expect_code(&r, 3, "unreadable CSAF");
    assert_non_null(strstr(r.err, "CSAF"));
    run_free(&r);
    /* A distro feed's first load: every *.json of a directory, then an NDJSON stream; what is
     * already imported is skipped (exit 0 again), a bad document is named and exits 3. */
    char feed[700], doc[800];
    snprintf(feed, sizeof feed, "%s/feed", dir);
    assert_int_equal(mkdir(feed, 0700), 0);
    char usn[700];
    snprintf(usn, sizeof usn, "%s/tests/data/osv/USN-6986-1.json", getenv("IMX_TEST_SOURCE_DIR"));
    char *usn_text = slurp(usn);
    snprintf(doc, sizeof doc, "%s/USN-6986-1.json", feed);
    write_file(doc, usn_text);
    snprintf(doc, sizeof doc, "%s/DEB-1.json", feed);
    write_file(doc, "{\"schema_version\":\"1.6.0\",\"id\":\"DSA-5999-1\",\"published\":"
                    "\"2025-07-15T00:00:00Z\",\"database_specific\":{\"severity\":\"HIGH\"},"
                    "\"affected\":[{\"package\":{\"ecosystem\":\"Debian:12\",\"name\":"
                    "\"openssl\"},\"ranges\":[{\"type\":\"ECOSYSTEM\",\"events\":[{"
                    "\"introduced\":\"0\"},{\"fixed\":\"3.0.15-1~deb12u1\"}]}]}]}");
    snprintf(doc, sizeof doc, "%s/notes.txt", feed);
    write_file(doc, "not a document");
    r = CLI(NULL, as_admin, "advisories", "import", feed, "-o", "json");
    expect_code(&r, 0, "feed directory import");
    json_t *rows = out_json(&r);
    assert_int_equal(json_array_size(rows), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "id")),
                        "DSA-5999-1");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 1), "status")), 201);
    assert_non_null(strstr(r.err, "2 advisories: 2 imported, 0 revised, 0 unchanged, 0 nothing "
                                  "imaxe tracks, 0 refused"));
    json_decref(rows);
    run_free(&r);
    r = CLI(NULL, as_admin, "advisories", "import", feed, "-o", "json");
    expect_code(&r, 0, "feed directory again");
    assert_non_null(strstr(r.err, "2 advisories: 0 imported, 0 revised, 2 unchanged"));
    run_free(&r);
    char nd[700];
    snprintf(nd, sizeof nd, "%s/feed.ndjson", dir);
    write_file(nd, "{\"schema_version\":\"1.6.0\",\"id\":\"ALSA-2024:1\",\"published\":"
                   "\"2024-01-02T00:00:00Z\",\"database_specific\":{\"severity\":\"LOW\"},"
                   "\"affected\":[{\"package\":{\"ecosystem\":\"AlmaLinux:9\",\"name\":"
                   "\"openssl\"},\"ranges\":[{\"type\":\"ECOSYSTEM\",\"events\":[{"
                   "\"introduced\":\"0\"},{\"fixed\":\"1:3.0.7-27.el9\"}]}]}]}\n"
                   "\n{\"schema_version\":\"1.6.0\",\"id\":\"ALSA-2024:2\"}\n");
    r = CLI(NULL, as_admin, "advisories", "import", nd, "-o", "json");
    expect_code(&r, 3, "NDJSON with a bad line");
    rows = out_json(&r);
    assert_int_equal(json_array_size(rows), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 1), "source")),
                        "line 3");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 1), "status")), 400);
    json_decref(rows);
    run_free(&r);
    free(usn_text);

    /* A checkout of NVIDIA's feed (YEAR/ID/ID.json; the CVE-*.json beside a bulletin repeat it
     * and are skipped): one row per bulletin with its outcome, and a summary. Run again over a
     * newer checkout, only the bulletin with a higher tracking.version changes. */
    static const char *const picks[][2] = { { "2025", "5561" },
                                            { "2026", "5836" },
                                            { "2026", "5857" } };
    char co[1100], sub[1200], src[900], bdoc[1300];
    snprintf(co, sizeof co, "%s/product-security", dir);
    assert_int_equal(mkdir(co, 0700), 0);
    for (size_t i = 0; i < sizeof picks / sizeof picks[0]; i++) {
        snprintf(sub, sizeof sub, "%s/%s", co, picks[i][0]);
        mkdir(sub, 0700);
        snprintf(sub, sizeof sub, "%s/%s/%s", co, picks[i][0], picks[i][1]);
        assert_int_equal(mkdir(sub, 0700), 0);
        snprintf(src, sizeof src, "%s/tests/data/csaf/feed/%s/%s/%s.json",
                 getenv("IMX_TEST_SOURCE_DIR"), picks[i][0], picks[i][1], picks[i][1]);
        char *text = slurp(src);
        snprintf(bdoc, sizeof bdoc, "%s/%s.json", sub, picks[i][1]);
        write_file(bdoc, text);
        snprintf(bdoc, sizeof bdoc, "%s/CVE-2026-0001.json", sub);
        write_file(bdoc, text);
        free(text);
    }
    r = CLI(NULL, as_admin, "advisories", "import", co, "-o", "json");
    expect_code(&r, 0, "feed checkout import");
    rows = out_json(&r);
    assert_int_equal(json_array_size(rows), 3);
    static const char *const outcomes[] = { "nothing imaxe tracks", "imported", "imported" };
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(rows, i), "outcome")),
                            outcomes[i]);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "source")),
                        "2025/5561/5561.json");
    /* the reason a bulletin affects nothing is shown with it; an imported one has none */
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "reason")),
                        "HMC > Hopper HGX 8-GPU: not tracked: HGX baseboard management controller "
                        "(HMC) firmware: runs on the hardware, not in an image");
    assert_null(json_object_get(json_array_get(rows, 1), "reason"));
    assert_non_null(strstr(r.err, "3 advisories: 2 imported, 0 revised, 0 unchanged, 1 nothing "
                                  "imaxe tracks, 0 refused"));
    json_decref(rows);
    run_free(&r);
    /* NVIDIA revises 5857 (tracking.version 1.0.0 -> 2.0.0). */
    snprintf(bdoc, sizeof bdoc, "%s/2026/5857/5857.json", co);
    char *rev = slurp(bdoc);
    char *at = strstr(rev, "\"version\":\"1.0.0\"");
    assert_non_null(at);
    memcpy(at + 11, "2", 1);
    write_file(bdoc, rev);
    free(rev);
    r = CLI(NULL, as_admin, "advisories", "import", co, "-o", "json");
    expect_code(&r, 0, "newer checkout");
    assert_non_null(strstr(r.err, "3 advisories: 0 imported, 1 revised, 2 unchanged"));
    rows = out_json(&r);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 2), "outcome")),
                        "revised");
    /* the two the server holds at their tracking.version were not sent (no HTTP status) */
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(json_string_value(json_object_get(json_array_get(rows, i), "outcome")),
                            "unchanged");
        assert_null(json_object_get(json_array_get(rows, i), "status"));
    }
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "id")),
                        "NVIDIA-5561");
    json_decref(rows);
    run_free(&r);
    /* the same checkout again: nothing is sent, every bulletin unchanged */
    r = CLI(NULL, as_admin, "advisories", "import", co, "-o", "json");
    expect_code(&r, 0, "same checkout again");
    assert_non_null(strstr(r.err, "3 advisories: 0 imported, 0 revised, 3 unchanged, 0 nothing "
                                  "imaxe tracks, 0 refused"));
    rows = out_json(&r);
    for (size_t i = 0; i < 3; i++)
        assert_null(json_object_get(json_array_get(rows, i), "status"));
    json_decref(rows);
    run_free(&r);

    r = CLI(NULL, NULL, "advisories", "get", "CLI-1", "-f", "severity");
    expect_code(&r, 0, "advisories get");
    assert_string_equal(r.out, "high\n");
    run_free(&r);
    r = CLI(NULL, NULL, "advisories", "get", "CLI-404");
    expect_code(&r, 2, "missing advisory");
    run_free(&r);
    r = CLI(NULL, NULL, "advisories", "list", "--cve", "CVE-2025-99998", "-f", "id");
    expect_code(&r, 0, "advisories list by CVE");
    assert_string_equal(r.out, "GHSA-cli0-0000-0001\n");
    run_free(&r);
    /* The advisory makes image a's family patch_available, fixed by b. */
    char aid[32];
    snprintf(aid, sizeof aid, "%lld", a);
    r = CLI(NULL, NULL, "images", "get", aid, "-f", "patch_status");
    expect_code(&r, 0, "patch status after the advisory");
    assert_string_equal(r.out, "patch_available\n");
    run_free(&r);

    /* compat check: a stack with errors is exit 3 with the findings on stdout. */
    r = CLI(NULL, NULL, "compat", "check", "-c", "nvidia-driver=535.183.01", "-c", "cuda=12.8.0",
            "-g", "B200", "-o", "table");
    expect_code(&r, 3, "compat check with errors");
    assert_non_null(strstr(r.out, "error"));
    run_free(&r);
    r = CLI(NULL, NULL, "compat", "check", "-c", "nvidia-driver=580.95.05", "-c", "cuda=13.0.2",
            "-g", "H100", "-f", "ok");
    expect_code(&r, 0, "compat check of a good stack");
    assert_string_equal(r.out, "true\n");
    run_free(&r);
    r = CLI(NULL, NULL, "compat", "check", "-c", "cuda");
    expect_code(&r, 1, "compat check with a bad --component");
    run_free(&r);

    /* measure: boot time from systemd-analyze (a stand-in on PATH) when none is given. */
    char bin[700], script[800], pathenv[2000];
    snprintf(bin, sizeof bin, "%s/sa-bin", dir);
    mkdir(bin, 0700);
    snprintf(script, sizeof script, "%s/systemd-analyze", bin);
    write_file(script, "#!/bin/sh\necho 'Startup finished in 2.213s (kernel) + 1min 0.287s "
                       "(userspace) = 1min 2.500s'\necho 'graphical.target reached after 1min "
                       "0.2s in userspace.'\n");
    chmod(script, 0755);
    snprintf(pathenv, sizeof pathenv, "PATH=%s:/usr/bin:/bin", bin);
    const char *sa_path[] = { pathenv, NULL };
    r = CLI(NULL, sa_path, "measure", "--team", "cli-team", "--image", aid, "--instance-type",
            "g5.xlarge", "--model", "resnet50", "--throughput", "1850", "--p50-ms", "14",
            "--p99-ms", "31", "--precision", "fp16", "--batch-size", "32", "-o", "json");
    expect_code(&r, 0, "measure");
    json_t *m = out_json(&r);
    assert_true(json_number_value(json_object_get(m, "boot_seconds")) > 62.49 &&
                json_number_value(json_object_get(m, "boot_seconds")) < 62.51);
    assert_true(json_number_value(
                    json_object_get(json_object_get(m, "derived"), "cost_per_1k_inferences")) > 0);
    json_decref(m);
    run_free(&r);
    r = CLI(NULL, NULL, "measure", "--team", "cli-team", "--image", aid, "--instance-type",
            "g5.xlarge", "--model", "resnet50", "--throughput", "-5", "--precision", "fp16",
            "--batch-size", "32", "--no-boot");
    expect_code(&r, 3, "measure with an impossible throughput");
    assert_non_null(strstr(r.err, "throughput_per_s"));
    run_free(&r);
    char res_json[700];
    snprintf(res_json, sizeof res_json, "%s/bench.json", dir);
    write_file(res_json, "{\"throughput_per_s\": 920.5, \"latency_p50_ms\": 20, "
                         "\"latency_p99_ms\": 41, \"precision\": \"bf16\", \"batch_size\": 16}");
    r = CLI(NULL, NULL, "measure", "--team", "cli-team", "--image", aid, "--instance-type",
            "g5.xlarge", "--model", "resnet50", "--from-json", res_json, "--boot-seconds", "80",
            "-f", "throughput_per_s");
    expect_code(&r, 0, "measure --from-json");
    assert_string_equal(r.out, "920.5\n");
    run_free(&r);
    char madd[700], maddtext[512];
    snprintf(madd, sizeof madd, "%s/one.json", dir);
    snprintf(maddtext, sizeof maddtext,
             "{\"team\":\"cli-team\",\"image\":%lld,\"instance_type\":\"g5.xlarge\","
             "\"model\":\"bert\",\"precision\":\"int8\",\"batch_size\":4,"
             "\"throughput_per_s\":640,\"measured_at\":\"2026-08-02T00:00:00Z\"}",
             a);
    write_file(madd, maddtext);
    r = CLI(NULL, NULL, "measurements", "add", madd, "-f", "precision");
    expect_code(&r, 0, "measurements add");
    assert_string_equal(r.out, "int8\n");
    run_free(&r);
    char csv[700], csvtext[512];
    snprintf(csv, sizeof csv, "%s/bench.csv", dir);
    snprintf(csvtext, sizeof csvtext,
             "image,instance_type,model,precision,batch_size,throughput_per_s,measured_at\n"
             "%lld,g5.xlarge,bert,fp16,8,300,2026-08-01T00:00:00Z\n",
             a);
    write_file(csv, csvtext);
    r = CLI(NULL, NULL, "measurements", "import", csv, "--team", "cli-team", "-f", "imported");
    expect_code(&r, 0, "measurements import");
    assert_string_equal(r.out, "1\n");
    run_free(&r);
    r = CLI(NULL, NULL, "costs", "--model", "resnet50", "--team", "cli-team", "-o", "ndjson");
    expect_code(&r, 0, "costs");
    assert_true(count_lines(r.out) >= 1);
    assert_non_null(strstr(r.out, "cli-pinned"));
    run_free(&r);
    /* As a table: the image and its cost, rounded for the reader (at most 4 significant digits
     * after the point's zeros, never JSON's 15). */
    r = CLI(NULL, NULL, "costs", "--model", "resnet50", "--team", "cli-team", "-o", "table");
    expect_code(&r, 0, "costs -o table");
    if (!strstr(r.out, "FAMILY") || !strstr(r.out, "MEDIAN_COST_PER_1K_INFERENCES") ||
        !strstr(r.out, "cli-pinned"))
        fail_msg("costs -o table: %s", r.out);
    for (const char *p = strchr(r.out, '.'); p; p = strchr(p + 1, '.')) {
        size_t digits = strspn(p + 1, "0123456789");
        if (digits > 8)
            fail_msg("costs -o table: an unrounded number: %s", r.out);
    }
    run_free(&r);

    /* Requests: created from a file, listed for the team. */
    snprintf(path, sizeof path, "%s/req.json", dir);
    write_file(path, "{\"team\":\"cli-team\",\"title\":\"PyTorch on H200\",\"family\":"
                     "\"cli-pinned\",\"constraints\":[{\"component\":\"cuda\",\"range\":\"13.*\"}],"
                     "\"gpus\":[\"H200\"],\"justification\":\"inference fleet\"}");
    r = CLI(NULL, NULL, "requests", "create", path, "-f", "state");
    expect_code(&r, 0, "requests create");
    assert_string_equal(r.out, "open\n");
    run_free(&r);
    r = CLI(NULL, NULL, "requests", "list", "--team", "cli-team", "--all", "-f", "title");
    expect_code(&r, 0, "requests list");
    assert_string_equal(r.out, "PyTorch on H200\n");
    run_free(&r);
}

/* The newest receiver log entry for path (new), waiting up to 10 s for count entries. */
static json_t *receiver_entry(const char *path, size_t count)
{
    for (int i = 0; i < 200; i++) {
        json_t *log = imx_t_receiver_log(&rcv, path);
        if (json_array_size(log) >= count) {
            json_t *e = json_incref(json_array_get(log, json_array_size(log) - 1));
            json_decref(log);
            return e;
        }
        json_decref(log);
        imx_t_sleep_ms(50);
    }
    fail_msg("the receiver got no delivery %zu on %s", count, path);
    return NULL;
}

static void webhooks_and_verify_on_real_deliveries(void **state)
{
    (void)state;
    char body[512];
    snprintf(body, sizeof body,
             "{\"team\":\"cli-team\",\"url\":\"http://127.0.0.1:%u/cli\",\"events\":[\"ping\","
             "\"image.published\"]}",
             rcv.port);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, pub, "POST", "/v1/webhooks", body, &res), 0);
    assert_int_equal(res.status, 201);
    long long wh = json_integer_value(json_object_get(res.json, "id"));
    char secret[128];
    snprintf(secret, sizeof secret, "%s", json_string_value(json_object_get(res.json, "secret")));
    imx_t_res_free(&res);
    char whid[32];
    snprintf(whid, sizeof whid, "%lld", wh);

    struct cli_run r = CLI(NULL, NULL, "webhooks", "list", "--team", "cli-team", "-f", "id");
    expect_code(&r, 0, "webhooks list");
    assert_int_equal(atoll(r.out), wh);
    run_free(&r);
    r = CLI(NULL, NULL, "webhooks", "test", whid, "-f", "event_type");
    expect_code(&r, 0, "webhooks test");
    assert_string_equal(r.out, "ping\n");
    run_free(&r);
    json_t *e = receiver_entry("/cli", 1);
    const char *payload = json_string_value(json_object_get(e, "body"));
    char id[128], ts[32], sig[256];
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(e, "id")));
    snprintf(ts, sizeof ts, "%lld", (long long)json_integer_value(json_object_get(e, "ts")));
    snprintf(sig, sizeof sig, "%s", json_string_value(json_object_get(e, "sig")));

    /* The body the server signed verifies, and is printed back for the shell to use. */
    r = CLI(payload, NULL, "webhooks", "verify", "--secret", secret, "--id", id, "--timestamp", ts,
            "--signature", sig);
    expect_code(&r, 0, "verify a real delivery");
    assert_string_equal(r.out, payload);
    run_free(&r);
    /* Headers from the environment, as a CGI receiver has them. */
    char e_id[200], e_ts[64], e_sig[300], e_secret[200];
    snprintf(e_id, sizeof e_id, "HTTP_WEBHOOK_ID=%s", id);
    snprintf(e_ts, sizeof e_ts, "HTTP_WEBHOOK_TIMESTAMP=%s", ts);
    snprintf(e_sig, sizeof e_sig, "HTTP_WEBHOOK_SIGNATURE=%s", sig);
    snprintf(e_secret, sizeof e_secret, "IMAXE_WEBHOOK_SECRET=%s", secret);
    const char *cgi[] = { e_id, e_ts, e_sig, e_secret, NULL };
    r = CLI(payload, cgi, "webhooks", "verify");
    expect_code(&r, 0, "verify from the environment");
    run_free(&r);
    /* One byte changed, another secret, an old timestamp: refused with exit 3, nothing printed. */
    char *tampered = strdup(payload);
    tampered[strlen(tampered) / 2] ^= 1;
    r = CLI(tampered, NULL, "webhooks", "verify", "--secret", secret, "--id", id, "--timestamp", ts,
            "--signature", sig);
    expect_code(&r, 3, "verify a tampered body");
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "no signature matches"));
    run_free(&r);
    free(tampered);
    r = CLI(payload, NULL, "webhooks", "verify", "--secret",
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "--id", id, "--timestamp", ts, "--signature",
            sig);
    expect_code(&r, 3, "verify with another secret");
    run_free(&r);
    char old_ts[32];
    snprintf(old_ts, sizeof old_ts, "%lld", atoll(ts) - 3600);
    r = CLI(payload, NULL, "webhooks", "verify", "--secret", secret, "--id", id, "--timestamp",
            old_ts, "--signature", sig);
    expect_code(&r, 3, "verify a stale timestamp");
    run_free(&r);
    json_decref(e);

    /* A publish is delivered as image.published, verified the same way. */
    publish("cli-hooked", "1", "580.95.05", "ami-h1");
    e = receiver_entry("/cli", 2);
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(e, "id")));
    snprintf(ts, sizeof ts, "%lld", (long long)json_integer_value(json_object_get(e, "ts")));
    snprintf(sig, sizeof sig, "%s", json_string_value(json_object_get(e, "sig")));
    r = CLI(json_string_value(json_object_get(e, "body")), NULL, "webhooks", "verify", "--secret",
            secret, "--id", id, "--timestamp", ts, "--signature", sig, "-f", "type");
    expect_code(&r, 0, "verify image.published");
    run_free(&r);
    json_decref(e);

    /* After a rotation each delivery carries two signatures for a day: a receiver holding
     * either secret accepts it. */
    char rot[64];
    snprintf(rot, sizeof rot, "/v1/webhooks/%lld/rotate-secret", wh);
    assert_int_equal(imx_t_http_as(&srv, pub, "POST", rot, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    char secret2[128];
    snprintf(secret2, sizeof secret2, "%s", json_string_value(json_object_get(res.json, "secret")));
    imx_t_res_free(&res);
    r = CLI(NULL, NULL, "webhooks", "test", whid, "-f", "id");
    expect_code(&r, 0, "webhooks test after a rotation");
    run_free(&r);
    e = receiver_entry("/cli", 3);
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(e, "id")));
    snprintf(ts, sizeof ts, "%lld", (long long)json_integer_value(json_object_get(e, "ts")));
    snprintf(sig, sizeof sig, "%s", json_string_value(json_object_get(e, "sig")));
    assert_non_null(strchr(sig, ' '));
    const char *each[] = { secret, secret2 };
    for (int k = 0; k < 2; k++) {
        r = CLI(json_string_value(json_object_get(e, "body")), NULL, "webhooks", "verify",
                "--secret", each[k], "--id", id, "--timestamp", ts, "--signature", sig);
        expect_code(&r, 0, k ? "verify with the new secret" : "verify with the old secret");
        run_free(&r);
    }
    json_decref(e);

    /* Deliveries of the subscription, and a redelivery of the first. */
    r = CLI(NULL, NULL, "webhooks", "deliveries", whid, "--all", "-o", "ndjson");
    expect_code(&r, 0, "webhooks deliveries");
    assert_true(count_lines(r.out) >= 3);
    run_free(&r);
    r = CLI(NULL, NULL, "webhooks", "deliveries", whid, "--all", "-f", "id");
    expect_code(&r, 0, "delivery ids");
    long long first = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n"))
        first = atoll(line);
    assert_true(first > 0);
    run_free(&r);
    char did[32];
    snprintf(did, sizeof did, "%lld", first);
    r = CLI(NULL, NULL, "webhooks", "redeliver", did, "-f", "id");
    expect_code(&r, 0, "redeliver");
    run_free(&r);
    r = CLI(NULL, NULL, "webhooks", "redeliver", "987654");
    expect_code(&r, 2, "redeliver a missing delivery");
    run_free(&r);
}

/* The rest of the API's writes have verbs too: reference rows added and corrected (If-Match read
 * first), instance types and their dated prices, advisories re-applied, and sign-ins listed and
 * ended (one's own, and all of a user's by a global admin). */
static void reference_prices_reapply_and_sessions(void **state)
{
    (void)state;
    char atok[4200];
    snprintf(atok, sizeof atok, "IMAXE_TOKEN=%s", admin);
    const char *as_admin[] = { atok, NULL };
    struct cli_run r = CLI(NULL, NULL, "reference", "list", "gpu", "--all", "-f", "gpu_model");
    expect_code(&r, 0, "reference list");
    assert_non_null(strstr(r.out, "H100\n"));
    run_free(&r);
    r = CLI("{\"branch\":997,\"branch_type\":\"NFB\",\"type_basis\":\"releases.json\","
            "\"status\":\"CONFIRMED\",\"source\":\"https://example.com\"}",
            NULL, "reference", "create", "driver_branch");
    expect_code(&r, 3, "reference create by a team admin");
    run_free(&r);
    r = CLI("{\"branch\":997,\"branch_type\":\"NFB\",\"type_basis\":\"releases.json\","
            "\"status\":\"CONFIRMED\",\"source\":\"https://example.com\"}",
            as_admin, "reference", "create", "driver_branch", "-f", "branch_type");
    expect_code(&r, 0, "reference create");
    assert_string_equal(r.out, "NFB\n");
    run_free(&r);
    r = CLI("{\"branch\":997,\"branch_type\":\"PB\"}", as_admin, "reference", "update",
            "driver_branch", "-f", "branch_type");
    expect_code(&r, 0, "reference update");
    assert_string_equal(r.out, "PB\n");
    run_free(&r);
    r = CLI("{\"branch\":997,\"colour\":\"red\"}", as_admin, "reference", "update",
            "driver_branch");
    expect_code(&r, 3, "reference update with an unknown field");
    assert_non_null(strstr(r.err, "/colour"));
    run_free(&r);

    r = CLI("{\"provider\":\"aws\",\"instance_type\":\"zz.cli\",\"gpu_model\":\"H100\","
            "\"gpu_count\":1,\"gpu_memory_gib\":80,\"vcpus\":8,\"memory_gib\":64,"
            "\"host_arch\":\"x86_64\"}",
            as_admin, "instance-types", "create", "-f", "instance_type");
    expect_code(&r, 0, "instance-types create");
    assert_string_equal(r.out, "zz.cli\n");
    run_free(&r);
    r = CLI("{\"gpu_model\":\"H100\",\"gpu_count\":1,\"gpu_memory_gib\":80,\"vcpus\":16,"
            "\"memory_gib\":64,\"host_arch\":\"x86_64\"}",
            as_admin, "instance-types", "update", "aws", "zz.cli", "-f", "vcpus");
    expect_code(&r, 0, "instance-types update");
    assert_string_equal(r.out, "16\n");
    run_free(&r);
    r = CLI("{\"pricing\":\"spot\",\"region\":\"us-east-1\",\"price_per_hour\":1.25}", as_admin,
            "instance-types", "price", "aws", "zz.cli", "-f", "price_per_hour");
    expect_code(&r, 0, "instance-types price");
    assert_string_equal(r.out, "1.25\n");
    run_free(&r);
    r = CLI(NULL, NULL, "instance-types", "list", "--gpu", "H100", "--all", "-f", "instance_type");
    expect_code(&r, 0, "instance-types list");
    assert_non_null(strstr(r.out, "zz.cli\n"));
    run_free(&r);
    r = CLI(NULL, NULL, "instance-types", "get", "aws", "zz.cli", "-f", "vcpus");
    expect_code(&r, 0, "instance-types get");
    assert_string_equal(r.out, "16\n");
    run_free(&r);
    r = CLI(NULL, NULL, "instance-types", "get", "aws", "zz.none");
    expect_code(&r, 2, "instance-types get of a missing type");
    run_free(&r);

    r = CLI(NULL, NULL, "advisories", "reapply");
    expect_code(&r, 3, "advisories reapply by a team admin");
    run_free(&r);
    r = CLI(NULL, as_admin, "advisories", "reapply", "--limit", "5", "-o", "json");
    expect_code(&r, 0, "advisories reapply");
    json_t *doc = out_json(&r);
    assert_true(json_is_array(json_object_get(doc, "advisories")));
    json_decref(doc);
    run_free(&r);

    /* Sign-ins: a fresh CLI sign-in of the admin is listed, then ended with its refresh token. */
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/login",
                                   "{\"email\":\"" IMX_T_ADMIN_EMAIL
                                   "\",\"password\":\"" IMX_T_ADMIN_PASSWORD "\",\"refresh\":true}",
                                   &res),
                     0);
    assert_int_equal(res.status, 200);
    char refresh[256], access[4096], env_access[4200];
    snprintf(refresh, sizeof refresh, "%s",
             json_string_value(json_object_get(res.json, "refresh_token")));
    snprintf(access, sizeof access, "%s",
             json_string_value(json_object_get(res.json, "access_token")));
    imx_t_res_free(&res);
    snprintf(env_access, sizeof env_access, "IMAXE_TOKEN=%s", access);
    const char *as_fresh[] = { env_access, NULL };
    r = CLI(NULL, as_fresh, "sessions", "list", "-f", "id");
    expect_code(&r, 0, "sessions list");
    long long newest = atoll(r.out);
    assert_true(newest > 0);
    run_free(&r);
    char sid[32], uid[32], body[400];
    snprintf(sid, sizeof sid, "%lld", newest);
    r = CLI(NULL, as_fresh, "sessions", "revoke", sid);
    expect_code(&r, 0, "sessions revoke");
    run_free(&r);
    snprintf(body, sizeof body, "{\"refresh_token\":\"%s\"}", refresh);
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/refresh", body, &res), 0);
    assert_int_equal(res.status, 401);
    imx_t_res_free(&res);
    r = CLI(NULL, as_admin, "sessions", "revoke", "987654");
    expect_code(&r, 2, "sessions revoke of no session");
    run_free(&r);
    /* A global admin lists a user's sign-ins (the viewer's, signed in from a command line) and
     * ends them all. */
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/login",
                                   "{\"email\":\"view@cli.test\",\"password\":"
                                   "\"pw-view@cli.test\",\"refresh\":true}",
                                   &res),
                     0);
    assert_int_equal(res.status, 200);
    snprintf(refresh, sizeof refresh, "%s",
             json_string_value(json_object_get(res.json, "refresh_token")));
    imx_t_res_free(&res);
    snprintf(env_access, sizeof env_access, "IMAXE_TOKEN=%s", viewer);
    const char *as_viewer[] = { env_access, NULL };
    r = CLI(NULL, as_viewer, "api", "GET", "/me", "-f", "id");
    snprintf(uid, sizeof uid, "%lld", atoll(r.out));
    run_free(&r);
    r = CLI(NULL, as_admin, "users", "sessions", uid, "-f", "kind");
    expect_code(&r, 0, "users sessions");
    assert_non_null(strstr(r.out, "cli\n"));
    run_free(&r);
    r = CLI(NULL, as_admin, "users", "sign-out", uid);
    expect_code(&r, 0, "users sign-out");
    run_free(&r);
    r = CLI(NULL, as_admin, "users", "sessions", uid, "-f", "id");
    expect_code(&r, 0, "users sessions after sign-out");
    assert_string_equal(r.out, "");
    run_free(&r);
    snprintf(body, sizeof body, "{\"refresh_token\":\"%s\"}", refresh);
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/refresh", body, &res), 0);
    assert_int_equal(res.status, 401);
    imx_t_res_free(&res);
    r = CLI(NULL, NULL, "users", "sign-out", uid);
    expect_code(&r, 3, "users sign-out by a team admin");
    run_free(&r);
}

/* On a terminal (script(1) gives one) the default is a table with a bold header; NO_COLOR
 * takes the bold away. */
static void a_terminal_gets_a_table_and_no_color_is_honoured(void **state)
{
    (void)state;
    char cmd[8192], out[700];
    snprintf(out, sizeof out, "%s/tty.out", dir);
    for (int no_color = 0; no_color < 2; no_color++) {
        snprintf(cmd, sizeof cmd,
                 "env %s IMAXE_URL='%s' IMAXE_TOKEN='%s' script -qec \"'%s' images search "
                 "--family cli-base-ubuntu24.04 --limit 1\" /dev/null > '%s' 2>&1",
                 no_color ? "NO_COLOR=1" : "-u NO_COLOR", srv.base, pub, cli_bin, out);
        assert_int_equal(imx_t_system("%s", cmd), 0);
        char *text = slurp(out);
        if (!strstr(text, "FAMILY") || !strstr(text, "cli-base-ubuntu24.04"))
            fail_msg("no table on a terminal: %s", text);
        if (no_color ? strchr(text, '\033') != NULL : strstr(text, "\033[1m") == NULL)
            fail_msg("NO_COLOR=%d: %s", no_color, text);
        free(text);
    }
    /* images import on a terminal says how far it is (a line after each request). */
    char manifests[700];
    snprintf(manifests, sizeof manifests, "%s/tty-import.ndjson", dir);
    write_file(manifests,
               "{\"team\":\"cli-team\",\"family\":\"cli-tty-import\",\"version\":\"1\","
               "\"provider\":\"aws\",\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\","
               "\"version\":\"24.04\"},\"layer\":\"platform\",\"artifacts\":[{\"region\":"
               "\"us-east-1\",\"id\":\"ami-t1\"}],\"components\":[]}\n"
               "{\"team\":\"cli-team\",\"family\":\"cli-tty-import\",\"version\":\"2\","
               "\"provider\":\"aws\",\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\","
               "\"version\":\"24.04\"},\"layer\":\"platform\",\"artifacts\":[{\"region\":"
               "\"us-east-1\",\"id\":\"ami-t2\"}],\"components\":[]}\n");
    snprintf(cmd, sizeof cmd,
             "env IMAXE_URL='%s' IMAXE_TOKEN='%s' script -qec \"'%s' images import '%s'\" "
             "/dev/null > '%s' 2>&1",
             srv.base, pub, cli_bin, manifests, out);
    assert_int_equal(imx_t_system("%s", cmd), 0);
    char *text = slurp(out);
    if (!strstr(text, "imported 2 of 2") || !strstr(text, "cli-tty-import"))
        fail_msg("images import on a terminal: %s", text);
    free(text);
}

/* Named profiles: one sign-in per server (or per user) in the config file, chosen with --profile
 * or IMAXE_PROFILE; the default stays; the environment's token is not mixed into a profile. */
static void profiles_keep_one_sign_in_each(void **state)
{
    (void)state;
    const char *no_token[] = { "IMAXE_TOKEN=", "IMAXE_URL=", NULL };
    struct cli_run r = CLI(IMX_T_ADMIN_PASSWORD "\n", no_token, "--profile", "ops", "login",
                           "--url", srv.base, "--email", IMX_T_ADMIN_EMAIL, "--password-stdin");
    expect_code(&r, 0, "login --profile ops");
    assert_non_null(strstr(r.err, "(profile ops)"));
    run_free(&r);
    char cfg[800];
    snprintf(cfg, sizeof cfg, "%s/xdg/imaxe/config.json", dir);
    json_t *c = json_load_file(cfg, 0, NULL);
    json_t *ops = json_object_get(json_object_get(c, "profiles"), "ops");
    assert_string_equal(json_string_value(json_object_get(ops, "url")), srv.base);
    assert_true(strlen(json_string_value(json_object_get(ops, "token"))) > 20);
    json_decref(c);
    /* The profile answers as the admin although IMAXE_TOKEN (the publisher's) is set. */
    r = CLI(NULL, NULL, "--profile", "ops", "api", "GET", "/me", "-f", "email");
    expect_code(&r, 0, "--profile ops");
    assert_string_equal(r.out, IMX_T_ADMIN_EMAIL "\n");
    run_free(&r);
    const char *by_env[] = { "IMAXE_PROFILE=ops", NULL };
    r = CLI(NULL, by_env, "api", "GET", "/me", "-f", "email");
    expect_code(&r, 0, "IMAXE_PROFILE=ops");
    assert_string_equal(r.out, IMX_T_ADMIN_EMAIL "\n");
    run_free(&r);
    r = CLI(NULL, NULL, "--profile", "nobody", "images", "search");
    expect_code(&r, 4, "a profile never signed in");
    assert_non_null(strstr(r.err, "--profile nobody login"));
    run_free(&r);
    r = CLI(NULL, NULL, "--profile", "a b", "images", "search");
    expect_code(&r, 1, "a bad profile name");
    run_free(&r);
}

/* The write verbs a platform engineer runs: teams, members, users, tokens, pins, webhooks and
 * their secrets, request transitions, advisory revise and withdraw (with If-Match), and
 * `imaxe api` for anything else; each checked against what the API then says. */
static void write_verbs_and_the_api_escape_hatch(void **state)
{
    (void)state;
    char atok[4200], path[700];
    snprintf(atok, sizeof atok, "IMAXE_TOKEN=%s", admin);
    const char *as_admin[] = { atok, NULL };

    struct cli_run r = CLI("{\"slug\":\"cli-ops\",\"name\":\"CLI ops\"}", as_admin, "teams",
                           "create", "-f", "slug");
    expect_code(&r, 0, "teams create");
    assert_string_equal(r.out, "cli-ops\n");
    run_free(&r);
    r = CLI("{\"email\":\"ana@cli.test\",\"password\":\"ana-password-1\"}", as_admin, "users",
            "create", "-f", "email");
    expect_code(&r, 0, "users create");
    run_free(&r);
    r = CLI(NULL, as_admin, "members", "set", "cli-ops", "ana@cli.test", "--role", "publisher",
            "-f", "role");
    expect_code(&r, 0, "members set");
    assert_string_equal(r.out, "publisher\n");
    run_free(&r);
    r = CLI(NULL, as_admin, "members", "set", "cli-ops", "ana@cli.test");
    expect_code(&r, 1, "members set without --role");
    run_free(&r);
    /* teams list (the completion of --team reads it too). */
    r = CLI(NULL, as_admin, "teams", "list", "-f", "slug");
    expect_code(&r, 0, "teams list");
    assert_non_null(strstr(r.out, "cli-ops\n"));
    run_free(&r);
    r = CLI(NULL, as_admin, "teams", "get", "cli-ops", "-f", "members");
    expect_code(&r, 0, "teams get");
    assert_non_null(strstr(r.out, "ana@cli.test"));
    run_free(&r);
    r = CLI(NULL, as_admin, "members", "remove", "cli-ops", "ana@cli.test");
    expect_code(&r, 0, "members remove");
    run_free(&r);
    r = CLI(NULL, as_admin, "teams", "get", "cli-ops", "-f", "members");
    assert_null(strstr(r.out, "ana@cli.test"));
    run_free(&r);

    /* Users and teams changed and disabled: list, update, disable (her sign-in is refused),
     * enable, and a team renamed. */
    r = CLI(NULL, as_admin, "users", "list", "--query", "ana@cli", "-f", "id");
    expect_code(&r, 0, "users list");
    char uid[32];
    snprintf(uid, sizeof uid, "%lld", atoll(r.out));
    assert_true(atoll(uid) > 0);
    run_free(&r);
    r = CLI("{\"display_name\":\"Ana Cli\"}", as_admin, "users", "update", uid, "-f",
            "display_name");
    expect_code(&r, 0, "users update");
    assert_string_equal(r.out, "Ana Cli\n");
    run_free(&r);
    r = CLI(NULL, as_admin, "users", "disable", uid, "-f", "disabled_at");
    expect_code(&r, 0, "users disable");
    assert_true(strlen(r.out) > 10);
    run_free(&r);
    r = CLI("ana-password-1\n", NULL, "login", "--email", "ana@cli.test", "--password-stdin");
    expect_code(&r, 4, "a disabled user's sign-in");
    run_free(&r);
    r = CLI(NULL, as_admin, "users", "enable", uid, "-f", "disabled_at");
    expect_code(&r, 0, "users enable");
    assert_string_equal(r.out, "null\n");
    run_free(&r);
    r = CLI("{\"name\":\"CLI operations\"}", as_admin, "teams", "update", "cli-ops", "-f", "name");
    expect_code(&r, 0, "teams update");
    assert_string_equal(r.out, "CLI operations\n");
    run_free(&r);
    /* A disabled team: its writes are refused (exit 3, the reason shown), enabling restores. */
    r = CLI(NULL, as_admin, "teams", "disable", "cli-ops", "-f", "slug");
    expect_code(&r, 0, "teams disable");
    assert_string_equal(r.out, "cli-ops\n");
    run_free(&r);
    r = CLI(NULL, as_admin, "api", "PUT", "/teams/cli-ops/members/ana@cli.test", "--data",
            "{\"role\":\"viewer\"}");
    expect_code(&r, 3, "a write in a disabled team");
    assert_non_null(strstr(r.err, "is disabled"));
    run_free(&r);
    r = CLI(NULL, as_admin, "teams", "enable", "cli-ops", "-f", "disabled_at");
    expect_code(&r, 0, "teams enable");
    assert_string_equal(r.out, "null\n");
    run_free(&r);

    /* Tokens: created (shown once), listed, revoked, then refused. */
    r = CLI("{\"name\":\"ci\",\"team\":\"cli-team\",\"role\":\"viewer\"}", NULL, "tokens", "create",
            "-o", "json");
    expect_code(&r, 0, "tokens create");
    json_t *tok = json_loads(r.out, 0, NULL);
    run_free(&r);
    assert_non_null(tok);
    char tid[32], ttok[600];
    snprintf(tid, sizeof tid, "%lld", (long long)json_integer_value(json_object_get(tok, "id")));
    snprintf(ttok, sizeof ttok, "IMAXE_TOKEN=%s", json_string_value(json_object_get(tok, "token")));
    json_decref(tok);
    const char *as_ci[] = { ttok, NULL };
    r = CLI(NULL, as_ci, "api", "GET", "/pins?team=cli-team", "-f", "next_cursor");
    expect_code(&r, 0, "api GET with the new token");
    run_free(&r);
    r = CLI(NULL, NULL, "tokens", "list", "-f", "name");
    assert_non_null(strstr(r.out, "ci\n"));
    run_free(&r);
    r = CLI(NULL, NULL, "tokens", "revoke", tid);
    expect_code(&r, 0, "tokens revoke");
    run_free(&r);
    r = CLI(NULL, as_ci, "api", "GET", "/pins?team=cli-team");
    expect_code(&r, 4, "a revoked token");
    run_free(&r);

    /* Pins: created from JSON, deleted; `imaxe api` reaches the same resource. */
    long long img = publish("cli-verbs", "1", "580.95.05", "ami-v1");
    char body[256], pid[32];
    snprintf(body, sizeof body, "{\"team\":\"cli-team\",\"name\":\"verbs\",\"image\":%lld}", img);
    r = CLI(body, NULL, "pins", "create", "-f", "id");
    expect_code(&r, 0, "pins create");
    snprintf(pid, sizeof pid, "%.*s", (int)strcspn(r.out, "\n"), r.out);
    run_free(&r);
    snprintf(path, sizeof path, "/pins/%s", pid);
    r = CLI(NULL, NULL, "api", "GET", path, "-f", "name");
    expect_code(&r, 0, "api GET of the pin");
    assert_string_equal(r.out, "verbs\n");
    run_free(&r);
    r = CLI(NULL, NULL, "pins", "delete", pid);
    expect_code(&r, 0, "pins delete");
    run_free(&r);
    r = CLI(NULL, NULL, "api", "get", path);
    expect_code(&r, 2, "api GET of the deleted pin");
    run_free(&r);
    r = CLI(NULL, NULL, "api", "POST", "/pins", "--data", "{\"team\":\"cli-team\"}");
    expect_code(&r, 3, "api POST of a bad pin");
    assert_non_null(strstr(r.err, "/name"));
    run_free(&r);
    r = CLI(NULL, NULL, "api", "FETCH", "/pins");
    expect_code(&r, 1, "api with an unknown method");
    run_free(&r);

    /* A refusal is said once: the detail (not the generic title before it), then each invalid
     * field on a line of its own. */
    snprintf(body, sizeof body,
             "{\"team\":\"cli-team\",\"url\":\"http://127.0.0.1:%u/hook\",\"events\":[\"ping\","
             "\"nope\"],\"colour\":1}",
             rcv.port);
    r = CLI(body, NULL, "webhooks", "create");
    expect_code(&r, 3, "webhooks create with invalid fields");
    if (strncmp(r.err, "imaxe: 400 The webhook has invalid fields\n", 42) != 0 ||
        strstr(r.err, "The request has invalid fields") || count_lines(r.err) != 3 ||
        !strstr(r.err, "\n  /events/1: is not an event type (") || !strstr(r.err, "\n  /colour: "))
        fail_msg("the refusal is not said once, field by field:\n%s", r.err);
    run_free(&r);

    /* Webhooks: created (the receiver of this test is allowed), changed, secret rotated, gone. */
    snprintf(body, sizeof body,
             "{\"team\":\"cli-team\",\"url\":\"http://127.0.0.1:%u/hook\",\"events\":[\"ping\"]}",
             rcv.port);
    r = CLI(body, NULL, "webhooks", "create", "-o", "json");
    expect_code(&r, 0, "webhooks create");
    json_t *wh = json_loads(r.out, 0, NULL);
    run_free(&r);
    char wid[32], secret[128];
    snprintf(wid, sizeof wid, "%lld", (long long)json_integer_value(json_object_get(wh, "id")));
    snprintf(secret, sizeof secret, "%s", json_string_value(json_object_get(wh, "secret")));
    json_decref(wh);
    r = CLI("{\"enabled\":false}", NULL, "webhooks", "update", wid, "-f", "enabled");
    expect_code(&r, 0, "webhooks update");
    assert_string_equal(r.out, "false\n");
    run_free(&r);
    r = CLI(NULL, NULL, "webhooks", "rotate-secret", wid, "-f", "secret");
    expect_code(&r, 0, "webhooks rotate-secret");
    assert_memory_equal(r.out, "whsec_", 6);
    assert_null(strstr(r.out, secret));
    run_free(&r);
    r = CLI(NULL, NULL, "webhooks", "delete", wid);
    expect_code(&r, 0, "webhooks delete");
    run_free(&r);
    r = CLI(NULL, NULL, "webhooks", "delete", wid);
    expect_code(&r, 2, "webhooks delete again");
    run_free(&r);

    /* A request moved on by its states. */
    r = CLI("{\"team\":\"cli-team\",\"title\":\"FIPS base\",\"justification\":\"audit\","
            "\"constraints\":[{\"component\":\"cuda\",\"range\":\">=12.4\"}]}",
            NULL, "requests", "create", "-f", "id");
    expect_code(&r, 0, "requests create");
    char rid[32];
    snprintf(rid, sizeof rid, "%.*s", (int)strcspn(r.out, "\n"), r.out);
    run_free(&r);
    r = CLI("{\"body\":\"needs FIPS\"}", NULL, "requests", "comment", rid);
    expect_code(&r, 0, "requests comment");
    run_free(&r);
    r = CLI("{\"to\":\"withdrawn\",\"comment\":\"not needed\"}", NULL, "requests", "transition",
            rid, "-f", "state");
    expect_code(&r, 0, "requests transition");
    assert_string_equal(r.out, "withdrawn\n");
    run_free(&r);

    /* Advisories: revised with the revision read first, then withdrawn with a reason. */
    snprintf(path, sizeof path, "%s/verbs-adv.json", dir);
    write_file(path, "{\"id\":\"CLI-VERBS-1\",\"title\":\"Toolkit bulletin\",\"published\":"
                     "\"2025-10-09\",\"severity\":\"high\",\"cves\":[\"CVE-2025-99990\"],"
                     "\"affected\":[{\"component\":\"nvidia-container-toolkit\",\"range\":"
                     "\"<1.17.8\",\"fixed\":\"1.17.8\"}]}");
    r = CLI(NULL, as_admin, "advisories", "import", path, "-f", "id");
    expect_code(&r, 0, "advisory for revise");
    run_free(&r);
    r = CLI("{\"title\":\"Toolkit bulletin, revised\"}", as_admin, "advisories", "revise",
            "CLI-VERBS-1", "-f", "title");
    expect_code(&r, 0, "advisories revise");
    assert_string_equal(r.out, "Toolkit bulletin, revised\n");
    run_free(&r);
    r = CLI(NULL, as_admin, "advisories", "withdraw", "CLI-VERBS-1", "--reason", "test");
    expect_code(&r, 0, "advisories withdraw");
    run_free(&r);
    r = CLI(NULL, as_admin, "advisories", "get", "CLI-VERBS-1", "-f", "withdrawn_reason");
    expect_code(&r, 0, "advisory after withdraw");
    assert_string_equal(r.out, "test\n");
    run_free(&r);
}

static void usage_help_and_network_errors(void **state)
{
    (void)state;
    struct cli_run r = CLI(NULL, NULL, "frobnicate");
    expect_code(&r, 1, "unknown noun");
    run_free(&r);
    r = CLI(NULL, NULL, "images", "frobnicate");
    expect_code(&r, 1, "unknown verb");
    assert_non_null(strstr(r.err, "search"));
    run_free(&r);
    r = CLI(NULL, NULL, "-o", "yaml", "images", "search");
    expect_code(&r, 1, "unknown format");
    run_free(&r);
    /* A mistyped noun, verb or option: "did you mean" the nearest. */
    r = CLI(NULL, NULL, "imgaes", "search");
    expect_code(&r, 1, "a mistyped noun");
    if (!strstr(r.err, "did you mean 'images'"))
        fail_msg("mistyped noun: %s", r.err);
    run_free(&r);
    r = CLI(NULL, NULL, "logot");
    expect_code(&r, 1, "a mistyped logout");
    if (!strstr(r.err, "did you mean 'logout'"))
        fail_msg("mistyped logout: %s", r.err);
    run_free(&r);
    r = CLI(NULL, NULL, "images", "serach");
    expect_code(&r, 1, "a mistyped verb");
    if (!strstr(r.err, "did you mean 'images search'"))
        fail_msg("mistyped verb: %s", r.err);
    run_free(&r);
    r = CLI(NULL, NULL, "images", "search", "--famly", "x");
    expect_code(&r, 1, "a mistyped option");
    if (!strstr(r.err, "did you mean --family?"))
        fail_msg("mistyped option: %s", r.err);
    run_free(&r);
    const char *down[] = { "IMAXE_URL=http://127.0.0.1:1", NULL };
    r = CLI(NULL, down, "images", "search");
    expect_code(&r, 5, "no server");
    run_free(&r);
    const char *ftp[] = { "IMAXE_URL=ftp://127.0.0.1", NULL };
    r = CLI(NULL, ftp, "images", "search");
    expect_code(&r, 1, "a URL that is not http");
    run_free(&r);
    /* Every command has help with examples, and the completion list names them all. */
    r = CLI(NULL, NULL, "help", "commands");
    expect_code(&r, 0, "help commands");
    assert_true(count_lines(r.out) >= 30);
    char *list = strdup(r.out);
    run_free(&r);
    for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
        char noun[64] = "", verb[64] = "";
        sscanf(line, "%63s %63s", noun, verb);
        r = verb[0] ? CLI(NULL, NULL, noun, verb, "--help") : CLI(NULL, NULL, noun, "--help");
        expect_code(&r, 0, line);
        if (!strstr(r.out, "examples:\n  ") || !strstr(strstr(r.out, "examples:\n"), "imaxe "))
            fail_msg("%s --help has no example: %s", line, r.out);
        run_free(&r);
    }
    free(list);
    r = CLI(NULL, NULL, "--help");
    expect_code(&r, 0, "--help");
    assert_non_null(strstr(r.out, "6 probe --check drift"));
    run_free(&r);
    r = CLI(NULL, NULL, "version");
    expect_code(&r, 0, "version");
    assert_memory_equal(r.out, "imaxe ", 6);
    run_free(&r);
}

/* A component's version in a probe fragment (borrowed), or NULL. */
static const char *frag_component(json_t *frag, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(frag, "components"), i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "name")), name) == 0)
            return json_string_value(json_object_get(c, "version"));
    }
    return NULL;
}

static void probe_reads_every_source_and_says_what_is_absent(void **state)
{
    (void)state;
    char root[1200], bin[1200], e_root[1300], e_path[1400];
    snprintf(root, sizeof root, "%s/h100-node", fixtures);
    snprintf(bin, sizeof bin, "%s/bin", fixtures);
    snprintf(e_root, sizeof e_root, "IMAXE_PROBE_ROOT=%s", root);
    snprintf(e_path, sizeof e_path, "PATH=%s:/usr/bin:/bin", bin);
    /* Every source present but NVML: the driver from /proc, GPUs from nvidia-smi. */
    const char *full[] = { e_root, e_path, "LD_LIBRARY_PATH=", NULL };
    struct cli_run r = CLI(NULL, full, "probe", "-o", "json");
    expect_code(&r, 0, "probe of the fixture node");
    json_t *f = out_json(&r);
    static const struct {
        const char *name, *version;
    } want[] = {
        { "nvidia-driver", "580.95.05" },
        { "cuda", "13.0.2" },
        { "cudnn", "9.14.0" },
        { "nccl", "2.27.7" },
        { "python", "3.12.3" },
        { "pytorch", "2.9.0+cu130" },
        { "nvidia-container-toolkit", "1.17.8" },
        { "dcgm", "3.3.9" },
        { "efa", "1.43.2" },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *got = frag_component(f, want[i].name);
        if (!got || strcmp(got, want[i].version) != 0)
            fail_msg("%s: %s, expected %s\n%s", want[i].name, got ? got : "(absent)",
                     want[i].version, r.out);
    }
    json_t *node = json_object_get(f, "node");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(node, "sources"), "nvidia-driver")),
        "/proc/driver/nvidia/version");
    assert_int_equal(json_integer_value(json_object_get(node, "gpu_count")), 8);
    assert_string_equal(json_string_value(json_object_get(node, "pytorch_cuda")), "13.0");
    assert_string_equal(json_string_value(json_array_get(json_object_get(f, "gpus"), 0)), "H100");
    assert_int_equal(json_array_size(json_object_get(f, "gpus")), 1);
    assert_string_equal(json_string_value(json_object_get(f, "kernel")), "6.8.0-1015-aws");
    assert_string_equal(json_string_value(json_object_get(json_object_get(f, "os"), "version")),
                        "24.04");
    assert_int_equal(json_array_size(json_object_get(node, "absent")), 0);
    /* The OS packages, from the node's dpkg database through dpkg-query (installed ones only:
     * the removed driver with its configuration kept is not listed). */
    json_t *pk = json_object_get(f, "packages");
    assert_int_equal(json_array_size(pk), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(pk, 3), "version")),
                        "1:1.3.dfsg-3.1ubuntu2");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(node, "sources"), "packages")),
        "dpkg-query -W");
    json_decref(f);
    run_free(&r);

    /* NVML first when it loads: its driver and GPUs win over /proc and nvidia-smi. */
    char e_ld[1300];
    snprintf(e_ld, sizeof e_ld, "LD_LIBRARY_PATH=%s", getenv("IMX_TEST_NVML_DIR"));
    const char *nvml[] = { e_root, e_path, e_ld, NULL };
    r = CLI(NULL, nvml, "probe", "-o", "json");
    expect_code(&r, 0, "probe with NVML");
    f = out_json(&r);
    assert_string_equal(frag_component(f, "nvidia-driver"), "580.105.08");
    node = json_object_get(f, "node");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(node, "sources"), "nvidia-driver")),
        "nvml");
    assert_string_equal(json_string_value(json_array_get(json_object_get(f, "gpus"), 0)), "H200");
    assert_string_equal(json_string_value(json_object_get(node, "driver_cuda")), "13.0");
    json_decref(f);
    run_free(&r);
    /* NVML that fails to initialise (no kernel module) is passed over, said on stderr. */
    const char *nvml_fail[] = { e_root, e_path, e_ld, "STUB_NVML_FAIL=1", NULL };
    r = CLI(NULL, nvml_fail, "probe", "-o", "json");
    expect_code(&r, 0, "probe with failing NVML");
    f = out_json(&r);
    assert_string_equal(frag_component(f, "nvidia-driver"), "580.95.05");
    assert_non_null(strstr(r.err, "nvmlInit_v2 failed"));
    json_decref(f);
    run_free(&r);

    /* Nothing there: an empty root and no tools on PATH. Everything absent is said, the OS and
     * kernel fall back to uname, and the exit is still 0. */
    char empty[800], e_empty[900];
    snprintf(empty, sizeof empty, "%s/empty-root", dir);
    mkdir(empty, 0700);
    snprintf(e_empty, sizeof e_empty, "IMAXE_PROBE_ROOT=%s", empty);
    const char *none[] = { e_empty, "PATH=/nonexistent", "LD_LIBRARY_PATH=", NULL };
    r = CLI(NULL, none, "probe", "-o", "json");
    expect_code(&r, 0, "probe of nothing");
    f = out_json(&r);
    assert_int_equal(json_array_size(json_object_get(f, "components")), 0);
    static const char *const absent[] = {
        "nvidia-driver", "gpus",   "cuda",    "cudnn",
        "nccl",          "python", "pytorch", "nvidia-container-toolkit",
        "dcgm",          "efa",    "os"
    };
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        char needle[128];
        snprintf(needle, sizeof needle, "imaxe probe: %s: not found", absent[i]);
        if (!strstr(r.err, needle))
            fail_msg("stderr does not say %s is absent:\n%s", absent[i], r.err);
    }
    assert_non_null(json_object_get(f, "kernel"));
    assert_null(json_object_get(f, "os"));
    json_decref(f);
    run_free(&r);

    /* --imds: IMDSv2, a session token by PUT and then the instance type (the test receiver
     * plays the metadata service); without an answer it is named absent, within a second. */
    imx_t_receiver_control(&rcv, "{\"modes\": {\"/latest/api/token\": {\"body\": \"tok-1\"},"
                                 "\"/latest/meta-data/instance-type\": {\"body\": "
                                 "\"p5.48xlarge\"}}}");
    char e_imds[128];
    snprintf(e_imds, sizeof e_imds, "IMAXE_IMDS_URL=http://127.0.0.1:%u", rcv.port);
    const char *imds[] = { e_root, e_path, "LD_LIBRARY_PATH=", e_imds, NULL };
    r = CLI(NULL, imds, "probe", "--imds", "-o", "json");
    expect_code(&r, 0, "probe --imds");
    f = out_json(&r);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(f, "node"), "instance_type")),
        "p5.48xlarge");
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(f, "instance_families"), 0)), "p5");
    json_decref(f);
    run_free(&r);
    json_t *log = imx_t_receiver_log(&rcv, "/latest/api/token");
    assert_int_equal(json_array_size(log), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(log, 0), "method")),
                        "PUT");
    json_decref(log);
    const char *no_imds[] = { e_root, e_path,
                              "LD_LIBRARY_PATH=", "IMAXE_IMDS_URL=http://127.0.0.1:1", NULL };
    r = CLI(NULL, no_imds, "probe", "--imds", "-o", "json");
    expect_code(&r, 0, "probe --imds without a metadata service");
    assert_non_null(strstr(r.err, "instance_type: not found"));
    run_free(&r);

    /* A runtime-only image: no headers, but libcudnn.so.9.1.0 and libnccl.so.2.21.5. */
    char rt[800], e_rt[900];
    snprintf(rt, sizeof rt, "%s/runtime-root", dir);
    assert_int_equal(imx_t_system("mkdir -p '%s/usr/lib/x86_64-linux-gnu' && cd '%s/usr/lib/"
                                  "x86_64-linux-gnu' && touch libcudnn.so.9.1.0 libnccl.so.2.21.5 "
                                  "&& ln -sf libcudnn.so.9.1.0 libcudnn.so.9",
                                  rt, rt),
                     0);
    snprintf(e_rt, sizeof e_rt, "IMAXE_PROBE_ROOT=%s", rt);
    const char *runtime[] = { e_rt, "PATH=/nonexistent", "LD_LIBRARY_PATH=", NULL };
    r = CLI(NULL, runtime, "probe", "-o", "json");
    expect_code(&r, 0, "probe of a runtime-only image");
    f = out_json(&r);
    assert_string_equal(frag_component(f, "cudnn"), "9.1.0");
    assert_string_equal(frag_component(f, "nccl"), "2.21.5");
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(f, "node"), "sources"), "cudnn")),
                        "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0");
    json_decref(f);
    run_free(&r);

    /* A tool that hangs is killed at the timeout; the probe goes on. */
    char hang_bin[800], hang[900], e_hang[1000];
    snprintf(hang_bin, sizeof hang_bin, "%s/hang-bin", dir);
    mkdir(hang_bin, 0700);
    snprintf(hang, sizeof hang, "%s/nvidia-smi", hang_bin);
    write_file(hang, "#!/bin/sh\nsleep 30\n");
    chmod(hang, 0755);
    snprintf(e_hang, sizeof e_hang, "PATH=%s:/usr/bin:/bin", hang_bin);
    const char *hung[] = { e_empty, e_hang, "LD_LIBRARY_PATH=", "IMAXE_PROBE_TIMEOUT_MS=300",
                           NULL };
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    r = CLI(NULL, hung, "probe", "-o", "json");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    expect_code(&r, 0, "probe with a hanging nvidia-smi");
    assert_non_null(strstr(r.err, "nvidia-smi: no answer within 300 ms, killed"));
    assert_true(t1.tv_sec - t0.tv_sec < 10);
    run_free(&r);
}

/* This machine's CUDA toolkit as its own files say (version.json, else nvcc's release), and
 * cuDNN from its header: what `imaxe probe` must report here. Returns false when there is no
 * toolkit in /usr/local/cuda. */
static bool toolkit_facts(char cuda[64], char cudnn[64])
{
    cuda[0] = cudnn[0] = '\0';
    json_t *vj = json_load_file("/usr/local/cuda/version.json", 0, NULL);
    const char *v = json_string_value(json_object_get(json_object_get(vj, "cuda"), "version"));
    if (v)
        snprintf(cuda, 64, "%s", v);
    json_decref(vj);
    if (!cuda[0]) {
        FILE *p = popen("/usr/local/cuda/bin/nvcc --version 2>/dev/null", "r");
        char line[256];
        while (p && fgets(line, sizeof line, p)) {
            int a, b;
            if (sscanf(line, "Cuda compilation tools, release %d.%d", &a, &b) == 2)
                snprintf(cuda, 64, "%d.%d", a, b);
        }
        if (p)
            pclose(p);
    }
    FILE *h = fopen("/usr/local/cuda/include/cudnn_version.h", "r");
    int major = -1, minor = -1, patch = -1;
    char line[256];
    while (h && fgets(line, sizeof line, h)) {
        sscanf(line, "#define CUDNN_MAJOR %d", &major);
        sscanf(line, "#define CUDNN_MINOR %d", &minor);
        sscanf(line, "#define CUDNN_PATCHLEVEL %d", &patch);
    }
    if (h)
        fclose(h);
    if (major >= 0 && minor >= 0 && patch >= 0)
        snprintf(cudnn, 64, "%d.%d.%d", major, minor, patch);
    return cuda[0] != '\0';
}

static void probe_for_real_on_this_machine(void **state)
{
    (void)state;
    char cuda[64], cudnn[64];
    const char *plain[] = { "LD_LIBRARY_PATH=", NULL };
    struct cli_run r = CLI(NULL, plain, "probe", "-o", "json");
    expect_code(&r, 0, "probe of this machine");
    json_t *f = out_json(&r);
    char *os = slurp("/etc/os-release");
    const char *os_name = json_string_value(json_object_get(json_object_get(f, "os"), "name"));
    assert_non_null(os_name);
    char idline[128];
    snprintf(idline, sizeof idline, "\nID=%s\n", os_name);
    char *padded = malloc(strlen(os) + 2);
    sprintf(padded, "\n%s", os);
    assert_non_null(strstr(padded, idline));
    free(padded);
    free(os);
    char *kernel = slurp("/proc/sys/kernel/osrelease");
    kernel[strcspn(kernel, "\n")] = '\0';
    assert_string_equal(json_string_value(json_object_get(f, "kernel")), kernel);
    free(kernel);
    if (toolkit_facts(cuda, cudnn)) {
        const char *got = frag_component(f, "cuda");
        if (!got || strcmp(got, cuda) != 0)
            fail_msg("cuda: probe says %s, the toolkit says %s", got ? got : "nothing", cuda);
        if (cudnn[0]) {
            got = frag_component(f, "cudnn");
            if (!got || strcmp(got, cudnn) != 0)
                fail_msg("cudnn: probe says %s, cudnn_version.h says %s", got ? got : "nothing",
                         cudnn);
        }
        printf("probe here: cuda %s, cudnn %s\n", cuda, cudnn[0] ? cudnn : "(none)");
    } else {
        printf("no CUDA toolkit in /usr/local/cuda: its part of the check is skipped\n");
    }
    json_decref(f);
    run_free(&r);
}

static void probe_publishes_and_checks_for_drift(void **state)
{
    (void)state;
    char root[1200], bin[1200], e_root[1300], e_path[1400];
    snprintf(root, sizeof root, "%s/h100-node", fixtures);
    snprintf(bin, sizeof bin, "%s/bin", fixtures);
    snprintf(e_root, sizeof e_root, "IMAXE_PROBE_ROOT=%s", root);
    snprintf(e_path, sizeof e_path, "PATH=%s:/usr/bin:/bin", bin);
    const char *node[] = { e_root, e_path, "LD_LIBRARY_PATH=", NULL };
    struct cli_run r = CLI(NULL, node, "probe", "--publish", "--family", "cli-probed", "--version",
                           "2026.12.01", "--team", "cli-team", "--artifact",
                           "us-east-1=ami-probe0000000001", "--tag", "cis", "-o", "json");
    expect_code(&r, 0, "probe --publish");
    json_t *img = out_json(&r);
    long long id = json_integer_value(json_object_get(img, "id"));
    assert_true(id > 0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(img, "components"), "nvidia-driver")),
        "580.95.05");
    assert_string_equal(json_string_value(json_object_get(img, "kernel")), "6.8.0-1015-aws");
    /* Its OS packages went with it, as the probe's. */
    json_t *os = json_object_get(img, "os_packages");
    assert_int_equal(json_integer_value(json_object_get(os, "packages")), 4);
    assert_string_equal(json_string_value(json_object_get(os, "source")), "probe");
    assert_string_equal(json_string_value(json_array_get(json_object_get(os, "ecosystems"), 0)),
                        "Ubuntu:24.04:LTS");
    json_decref(img);
    run_free(&r);
    r = CLI(NULL, node, "probe", "--publish", "--family", "cli-probed");
    expect_code(&r, 1, "probe --publish without the rest");
    run_free(&r);

    /* The same node checked against what it published: no drift, by id and through resolve. */
    char sid[32];
    snprintf(sid, sizeof sid, "%lld", id);
    r = CLI(NULL, node, "probe", "--check", sid, "-o", "json");
    expect_code(&r, 0, "probe --check of the same stack");
    json_t *d = out_json(&r);
    assert_true(json_is_false(json_object_get(d, "drift")));
    json_decref(d);
    run_free(&r);
    r = CLI(NULL, node, "probe", "--check", "cli-probed/us-east-1", "-o", "table");
    expect_code(&r, 0, "probe --check through resolve");
    assert_non_null(strstr(r.out, "STATE"));
    run_free(&r);

    /* A node whose driver moved on and whose DCGM is gone: exit 6, the rows say what. */
    char drifted[800];
    snprintf(drifted, sizeof drifted, "%s/drifted", dir);
    assert_int_equal(imx_t_system("rm -rf '%s' && cp -r '%s' '%s' && sed -i "
                                  "'s/580.95.05/580.105.08/' '%s/proc/driver/nvidia/version'",
                                  drifted, root, drifted, drifted),
                     0);
    char dbin[800], e_droot[900], e_dpath[1000];
    snprintf(dbin, sizeof dbin, "%s/drifted-bin", dir);
    assert_int_equal(
        imx_t_system("rm -rf '%s' && cp -r '%s' '%s' && rm '%s/dcgmi'", dbin, bin, dbin, dbin), 0);
    snprintf(e_droot, sizeof e_droot, "IMAXE_PROBE_ROOT=%s", drifted);
    snprintf(e_dpath, sizeof e_dpath, "PATH=%s:/usr/bin:/bin", dbin);
    const char *moved[] = { e_droot, e_dpath, "LD_LIBRARY_PATH=", NULL };
    r = CLI(NULL, moved, "probe", "--check", sid, "-o", "json");
    expect_code(&r, 6, "probe --check of a drifted node");
    d = out_json(&r);
    assert_true(json_is_true(json_object_get(d, "drift")));
    size_t i;
    json_t *row;
    int seen = 0;
    json_array_foreach(json_object_get(d, "items"), i, row)
    {
        const char *name = json_string_value(json_object_get(row, "name"));
        const char *st = json_string_value(json_object_get(row, "state"));
        if (strcmp(name, "nvidia-driver") == 0) {
            assert_string_equal(st, "differs");
            assert_string_equal(json_string_value(json_object_get(row, "node")), "580.105.08");
            seen++;
        } else if (strcmp(name, "dcgm") == 0) {
            assert_string_equal(st, "missing");
            seen++;
        } else {
            assert_string_equal(st, "same");
        }
    }
    assert_int_equal(seen, 2);
    assert_non_null(strstr(r.err, "drift: 2 item(s)"));
    json_decref(d);
    run_free(&r);
    r = CLI(NULL, moved, "probe", "--check", "no-such-family/us-east-1");
    expect_code(&r, 2, "probe --check of a family that does not exist");
    run_free(&r);
    char e_xdg[800];
    snprintf(e_xdg, sizeof e_xdg, "XDG_CONFIG_HOME=%s/no-login", dir);
    const char *anon[] = { e_root, e_path, "IMAXE_TOKEN=", e_xdg, NULL };
    r = CLI(NULL, anon, "probe", "--check", sid);
    expect_code(&r, 4, "probe --check without a token");
    run_free(&r);
}

/* The stored sign-in's refresh token (into out; "" when none). */
static void stored_refresh(char *out, size_t len)
{
    char cfg[800];
    snprintf(cfg, sizeof cfg, "%s/xdg/imaxe/config.json", dir);
    json_t *c = json_load_file(cfg, 0, NULL);
    const char *t = json_string_value(json_object_get(c, "refresh_token"));
    snprintf(out, len, "%s", t ? t : "");
    json_decref(c);
}

/* POST /v1/auth/refresh with refresh: its status. */
static long refresh_status(const char *refresh)
{
    char body[256];
    snprintf(body, sizeof body, "{\"refresh_token\":\"%s\"}", refresh);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/refresh", body, &res), 0);
    long st = res.status;
    imx_t_res_free(&res);
    return st;
}

static void logout_ends_the_sign_in_on_the_server_and_here(void **state)
{
    (void)state;
    const char *no_token[] = { "IMAXE_TOKEN=", "IMAXE_URL=", NULL };
    char cfg[800], refresh[128];
    snprintf(cfg, sizeof cfg, "%s/xdg/imaxe/config.json", dir);
    struct cli_run r = CLI(IMX_T_ADMIN_PASSWORD "\n", no_token, "login", "--url", srv.base,
                           "--email", IMX_T_ADMIN_EMAIL, "--password-stdin");
    expect_code(&r, 0, "login");
    run_free(&r);
    stored_refresh(refresh, sizeof refresh);
    assert_int_equal(strncmp(refresh, "imxr_", 5), 0);

    /* Signed out: the server's session ends (its refresh token signs nobody in) and the tokens
     * leave the file, whose URL stays for the next login. */
    r = CLI(NULL, no_token, "logout");
    expect_code(&r, 0, "logout");
    assert_string_equal(r.out, "");
    if (!strstr(r.err, "signed out of") || !strstr(r.err, "ended on the server"))
        fail_msg("logout said: %s", r.err);
    run_free(&r);
    json_t *c = json_load_file(cfg, 0, NULL);
    assert_non_null(c);
    assert_null(json_object_get(c, "token"));
    assert_null(json_object_get(c, "refresh_token"));
    assert_string_equal(json_string_value(json_object_get(c, "url")), srv.base);
    json_decref(c);
    assert_int_equal(refresh_status(refresh), 401);
    r = CLI(NULL, no_token, "images", "search");
    expect_code(&r, 4, "search after logout");
    assert_non_null(strstr(r.err, "not signed in"));
    run_free(&r);
    /* Again: nothing to do, and said so; not an error. */
    r = CLI(NULL, no_token, "logout");
    expect_code(&r, 0, "logout when signed out");
    assert_non_null(strstr(r.err, "not signed in"));
    run_free(&r);
    r = CLI(NULL, no_token, "--profile", "nobody", "logout");
    expect_code(&r, 0, "logout of a profile never signed in");
    assert_non_null(strstr(r.err, "not signed in (profile nobody)"));
    run_free(&r);

    /* A sign-in the server had already ended (its refresh token spent elsewhere): gone here,
     * and the message says the server had nothing left to end. */
    r = CLI(IMX_T_ADMIN_PASSWORD "\n", no_token, "login", "--url", srv.base, "--email",
            IMX_T_ADMIN_EMAIL, "--password-stdin");
    expect_code(&r, 0, "login again");
    run_free(&r);
    stored_refresh(refresh, sizeof refresh);
    assert_int_equal(refresh_status(refresh), 200);
    r = CLI(NULL, no_token, "logout");
    expect_code(&r, 0, "logout of an ended sign-in");
    assert_non_null(strstr(r.err, "had already ended"));
    run_free(&r);

    /* The server is down (the stored URL reaches nothing): the tokens are removed all the same,
     * exit 5 says the server was not told, and the message says how to end the sign-in later;
     * which works: the session is still live until then. */
    r = CLI(IMX_T_ADMIN_PASSWORD "\n", no_token, "login", "--url", srv.base, "--email",
            IMX_T_ADMIN_EMAIL, "--password-stdin");
    expect_code(&r, 0, "login a third time");
    run_free(&r);
    stored_refresh(refresh, sizeof refresh);
    c = json_load_file(cfg, 0, NULL);
    json_object_set_new(c, "url", json_string("http://127.0.0.1:1"));
    assert_int_equal(json_dump_file(c, cfg, 0), 0);
    chmod(cfg, 0600);
    json_decref(c);
    r = CLI(NULL, no_token, "logout");
    expect_code(&r, 5, "logout with the server down");
    if (!strstr(r.err, "could not reach http://127.0.0.1:1") ||
        !strstr(r.err, "could not be ended on http://127.0.0.1:1") ||
        !strstr(r.err, "imaxe sessions revoke ID"))
        fail_msg("logout with the server down said: %s", r.err);
    run_free(&r);
    c = json_load_file(cfg, 0, NULL);
    assert_null(json_object_get(c, "token"));
    assert_null(json_object_get(c, "refresh_token"));
    json_decref(c);
    r = CLI(NULL, no_token, "logout");
    expect_code(&r, 0, "logout after the failed one");
    assert_non_null(strstr(r.err, "not signed in"));
    run_free(&r);
    /* Ended later, as the message says: the endpoint needs only the refresh token. */
    char body[256];
    snprintf(body, sizeof body, "{\"refresh_token\":\"%s\"}", refresh);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/revoke", body, &res), 0);
    assert_int_equal(res.status, 200);
    assert_true(json_is_true(json_object_get(res.json, "revoked")));
    imx_t_res_free(&res);
    assert_int_equal(refresh_status(refresh), 401);
    /* Twice, or a token imaxe never issued: nothing to end, the same 200. A body without the
     * token: 400, with the field named. */
    static const char *const nothing[] = { NULL, "{\"refresh_token\":\"imxr_never-issued\"}",
                                           "{\"refresh_token\":\"not-ours\"}" };
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/revoke",
                                       nothing[i] ? nothing[i] : body, &res),
                         0);
        assert_int_equal(res.status, 200);
        assert_true(json_is_false(json_object_get(res.json, "revoked")));
        imx_t_res_free(&res);
    }
    assert_int_equal(imx_t_http_as(&srv, NULL, "POST", "/v1/auth/revoke", "{}", &res), 0);
    assert_int_equal(res.status, 400);
    assert_non_null(strstr(res.body, "/refresh_token"));
    imx_t_res_free(&res);
}

static int setup(void **state)
{
    (void)state;
    const char *bin = getenv("IMX_TEST_CLI");
    const char *src = getenv("IMX_TEST_SOURCE_DIR");
    if (!bin || !src || !getenv("IMX_TEST_NVML_DIR")) {
        fprintf(stderr, "IMX_TEST_CLI, IMX_TEST_SOURCE_DIR and IMX_TEST_NVML_DIR must be set\n");
        return -1;
    }
    snprintf(cli_bin, sizeof cli_bin, "%s", bin);
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures/probe", src);
    snprintf(dir, sizeof dir, "%s", imx_t_tmpdir("cli"));
    snprintf(manifest_path, sizeof manifest_path, "%s/manifest.json", dir);
    if (imx_t_receiver_init(&rcv, "cli") != 0 || imx_t_receiver_start(&rcv) != 0)
        return -1;
    char allow[64];
    const char *env[IMX_T_RECEIVER_ENV_MAX];
    static const char *const extra[] = { "IMAXE_WEBHOOK_TIMEOUT_MS=3000", NULL };
    imx_t_receiver_env(&rcv, extra, env, allow);
    if (imx_t_server_up(&srv, "cli", env, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "cli-team", "pub@cli.test", "admin", pub, sizeof pub) != 0 ||
        imx_t_user(&srv, admin, "cli-team", "view@cli.test", "viewer", viewer, sizeof viewer) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    imx_t_receiver_stop(&rcv);
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sign_in_stores_the_token_and_bad_credentials_exit_4),
        cmocka_unit_test(a_sign_in_outlasts_its_access_token),
        cmocka_unit_test(publish_get_search_all_resolve_and_lifecycle),
        cmocka_unit_test(pins_advisories_compat_costs_requests),
        cmocka_unit_test(webhooks_and_verify_on_real_deliveries),
        cmocka_unit_test(write_verbs_and_the_api_escape_hatch),
        cmocka_unit_test(reference_prices_reapply_and_sessions),
        cmocka_unit_test(profiles_keep_one_sign_in_each),
        cmocka_unit_test(a_terminal_gets_a_table_and_no_color_is_honoured),
        cmocka_unit_test(usage_help_and_network_errors),
        cmocka_unit_test(probe_reads_every_source_and_says_what_is_absent),
        cmocka_unit_test(probe_for_real_on_this_machine),
        cmocka_unit_test(probe_publishes_and_checks_for_drift),
        cmocka_unit_test(logout_ends_the_sign_in_on_the_server_and_here),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
