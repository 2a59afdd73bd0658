/* The pure parts of the imaxe command line as tables: option parsing, exit codes, URL escaping,
 * table/json/ndjson output, dotted paths, and Standard Webhooks verification. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "buf.h"
#include "exit.h"
#include "format.h"
#include "whsig.h"

static const struct imx_cli_opt test_opts[] = {
    { "family", 0, IMX_CLI_OPT_VALUE, "family", "" },
    { "component", 'c', IMX_CLI_OPT_LIST, "component", "" },
    { "all", 'a', IMX_CLI_OPT_FLAG, NULL, "" },
    { "output", 'o', IMX_CLI_OPT_VALUE, NULL, "" },
    { NULL, 0, 0, NULL, NULL },
};

static void options_parse_as_the_table_says(void **state)
{
    (void)state;
    static const struct {
        const char *argv;     /* space-separated */
        int ok;               /* 0 parses, -1 refused */
        const char *expected; /* "pos|pos;name=value;..." of what parsed, or the error */
    } cases[] = {
        { "4", 0, "4;" },
        { "--family f1 4", 0, "4;family=f1;" },
        { "--family=f2", 0, ";family=f2;" },
        { "-c cuda:>=12 -c nvidia-driver:~580", 0,
          ";component=cuda:>=12;component=nvidia-driver:~580;" },
        { "-ccuda:12.*", 0, ";component=cuda:12.*;" },
        { "-a -o json", 0, ";all=;output=json;" },
        { "- --all", 0, "-;all=;" },
        { "-- --family", 0, "--family;" },
        { "--family", -1, "option --family needs a value" },
        { "--all=yes", -1, "option --all takes no value" },
        { "--nope", -1, "unknown option --nope" },
        { "-z", -1, "unknown option -z" },
        { "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", -1, "too many arguments (at most 16)" },
    };
    const struct imx_cli_opt *tables[] = { test_opts, NULL };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[256];
        char *argv[32];
        int argc = 0;
        snprintf(line, sizeof line, "%s", cases[i].argv);
        for (char *tok = strtok(line, " "); tok; tok = strtok(NULL, " "))
            argv[argc++] = tok;
        struct imx_cli_args a;
        memset(&a, 0, sizeof a);
        char err[128] = "";
        int rc = imx_cli_args_parse(argc, argv, tables, false, &a, NULL, err, sizeof err);
        if (rc != cases[i].ok)
            fail_msg("case %zu (%s): rc %d, err '%s'", i, cases[i].argv, rc, err);
        if (rc != 0) {
            assert_string_equal(err, cases[i].expected);
            continue;
        }
        char got[512] = "";
        for (size_t p = 0; p < a.npos; p++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", p ? "|" : "", a.pos[p]);
        strcat(got, ";");
        for (size_t v = 0; v < a.nv; v++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s=%s;", a.v[v].opt->name,
                     a.v[v].value);
        if (strcmp(got, cases[i].expected) != 0)
            fail_msg("case %zu (%s): got '%s', expected '%s'", i, cases[i].argv, got,
                     cases[i].expected);
    }
}

static void globals_stop_at_the_noun_and_values_accumulate(void **state)
{
    (void)state;
    char *argv[] = { "-o", "json", "images", "search", "--family", "a", "--family", "b" };
    const struct imx_cli_opt *tables[] = { test_opts, NULL };
    struct imx_cli_args a;
    memset(&a, 0, sizeof a);
    char err[128];
    int used = -1;
    assert_int_equal(imx_cli_args_parse(8, argv, tables, true, &a, &used, err, sizeof err), 0);
    assert_int_equal(used, 2);
    assert_int_equal(a.npos, 0);
    assert_string_equal(imx_cli_args_get(&a, "output"), "json");
    assert_int_equal(imx_cli_args_parse(4, argv + 4, tables, false, &a, NULL, err, sizeof err), 0);
    assert_string_equal(imx_cli_args_get(&a, "family"), "b");
    const char *all[4];
    assert_int_equal(imx_cli_args_list(&a, "family", all, 4), 2);
    assert_string_equal(all[0], "a");
    assert_false(imx_cli_args_has(&a, "all"));
}

static void http_statuses_map_to_the_documented_exit_codes(void **state)
{
    (void)state;
    static const struct {
        long status;
        enum imx_cli_exit code;
    } cases[] = {
        { 200, IMX_CLI_EXIT_OK },      { 201, IMX_CLI_EXIT_OK },
        { 204, IMX_CLI_EXIT_OK },      { 304, IMX_CLI_EXIT_OK },
        { 400, IMX_CLI_EXIT_REFUSED }, { 401, IMX_CLI_EXIT_AUTH },
        { 403, IMX_CLI_EXIT_REFUSED }, { 404, IMX_CLI_EXIT_NOT_FOUND },
        { 409, IMX_CLI_EXIT_REFUSED }, { 410, IMX_CLI_EXIT_NOT_FOUND },
        { 412, IMX_CLI_EXIT_REFUSED }, { 422, IMX_CLI_EXIT_REFUSED },
        { 428, IMX_CLI_EXIT_REFUSED }, { 429, IMX_CLI_EXIT_SERVER },
        { 500, IMX_CLI_EXIT_SERVER },  { 503, IMX_CLI_EXIT_SERVER },
        { 0, IMX_CLI_EXIT_SERVER },    { 101, IMX_CLI_EXIT_SERVER },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (imx_cli_exit_for_status(cases[i].status) != cases[i].code)
            fail_msg("status %ld: exit %d, expected %d", cases[i].status,
                     imx_cli_exit_for_status(cases[i].status), cases[i].code);
}

static void buffers_keep_their_maximum_and_escape_urls(void **state)
{
    (void)state;
    struct imx_cli_buf b;
    imx_cli_buf_init(&b, 8);
    assert_int_equal(imx_cli_buf_puts(&b, "12345678"), 0);
    assert_int_equal(imx_cli_buf_puts(&b, "9"), -1);
    assert_true(b.overflow);
    assert_string_equal(imx_cli_buf_str(&b), "12345678");
    imx_cli_buf_free(&b);
    static const struct {
        const char *in, *out;
    } cases[] = {
        { "cuda:>=12.4", "cuda%3A%3E%3D12.4" },
        { "ml-platform/prod training", "ml-platform%2Fprod%20training" },
        { "a&b=c?d#e", "a%26b%3Dc%3Fd%23e" },
        { "~580_x.y-z", "~580_x.y-z" },
        { "\xc3\xa9", "%C3%A9" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        imx_cli_buf_init(&b, 256);
        assert_int_equal(imx_cli_buf_add_escaped(&b, cases[i].in), 0);
        assert_string_equal(imx_cli_buf_str(&b), cases[i].out);
        imx_cli_buf_free(&b);
    }
}

static void dotted_paths_and_cells(void **state)
{
    (void)state;
    json_t *doc = json_loads("{\"image\":{\"id\":4,\"family\":\"f\"},\"items\":[{\"v\":\"a\"},"
                             "{\"v\":\"b\"}],\"n\":null,\"cvss\":8.2,\"gpus\":[\"H100\",\"L4\"],"
                             "\"components\":[{\"name\":\"cuda\",\"version\":\"13.0\"}],"
                             "\"empty\":[],\"evil\":\"a\\u001b[31mb\",\"ok\":true}",
                             0, NULL);
    assert_non_null(doc);
    static const struct {
        const char *path, *cell; /* NULL cell: the path is absent */
    } cases[] = {
        { "image.id", "4" },   { "image.family", "f" },
        { "items.1.v", "b" },  { "items.2.v", NULL },
        { "items.x", NULL },   { "image.nope", NULL },
        { "n", "-" },          { "cvss", "8.2" },
        { "gpus", "H100,L4" }, { "components", "cuda=13.0" },
        { "empty", "-" },      { "evil", "a?[31mb" },
        { "ok", "true" },      { "image", "{\"id\":4,\"family\":\"f\"}" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *v = imx_cli_json_path(doc, cases[i].path);
        if (!cases[i].cell) {
            if (v)
                fail_msg("%s: expected nothing", cases[i].path);
            continue;
        }
        if (!v)
            fail_msg("%s: not found", cases[i].path);
        struct imx_cli_buf b;
        imx_cli_buf_init(&b, 1024);
        assert_int_equal(imx_cli_fmt_cell(&b, v, 0), 0);
        assert_string_equal(imx_cli_buf_str(&b), cases[i].cell);
        imx_cli_buf_free(&b);
    }
    /* A long cell is cut to its maximum, counting characters rather than bytes. */
    struct imx_cli_buf b;
    imx_cli_buf_init(&b, 1024);
    json_t *s = json_string("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
    assert_int_equal(imx_cli_fmt_cell(&b, s, 5), 0);
    assert_string_equal(imx_cli_buf_str(&b), "\xc3\xa9\xc3\xa9...");
    json_decref(s);
    imx_cli_buf_free(&b);
    json_decref(doc);
}

static void rows_render_in_each_format(void **state)
{
    (void)state;
    json_t *rows = json_loads("[{\"id\":4,\"family\":\"dlami\",\"os\":{\"name\":\"ubuntu\"},"
                              "\"cost\":0.000187654321,\"image\":{\"id\":7}},"
                              "{\"id\":12,\"family\":\"pytorch-2.9\",\"os\":{\"name\":\"rocky\"},"
                              "\"cost\":12.5,\"image\":{\"id\":9}}]",
                              0, NULL);
    static const struct {
        enum imx_cli_fmt fmt;
        const char *columns;
        bool color;
        const char *out;
    } cases[] = {
        { IMX_CLI_FMT_TABLE, "id,family,os.name", false,
          "ID  FAMILY       NAME\n4   dlami        ubuntu\n12  pytorch-2.9  rocky\n" },
        { IMX_CLI_FMT_TABLE, "id,family", false, "ID  FAMILY\n4   dlami\n12  pytorch-2.9\n" },
        /* Two columns ending in the same name are headed by their paths; reals are rounded
         * for the reader. */
        { IMX_CLI_FMT_TABLE, "id,image.id,cost", false,
          "ID  IMAGE.ID  COST\n4   7         0.0001877\n12  9         12.5\n" },
        { IMX_CLI_FMT_TABLE, "id", true, "\033[1mID\033[0m\n4\n12\n" },
        { IMX_CLI_FMT_NDJSON, NULL, false,
          "{\"id\":4,\"family\":\"dlami\",\"os\":{\"name\":\"ubuntu\"},\"cost\":0.000187654321,"
          "\"image\":{\"id\":7}}\n"
          "{\"id\":12,\"family\":\"pytorch-2.9\",\"os\":{\"name\":\"rocky\"},\"cost\":12.5,"
          "\"image\":{\"id\":9}}\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct imx_cli_buf b;
        imx_cli_buf_init(&b, 4096);
        assert_int_equal(imx_cli_fmt_rows(&b, rows, cases[i].columns, cases[i].fmt, cases[i].color),
                         0);
        if (strcmp(imx_cli_buf_str(&b), cases[i].out) != 0)
            fail_msg("case %zu:\n%s\nexpected:\n%s", i, imx_cli_buf_str(&b), cases[i].out);
        imx_cli_buf_free(&b);
    }
    /* json is the array itself, parseable back to the same value. */
    struct imx_cli_buf b;
    imx_cli_buf_init(&b, 4096);
    assert_int_equal(imx_cli_fmt_rows(&b, rows, NULL, IMX_CLI_FMT_JSON, false), 0);
    json_t *back = json_loads(imx_cli_buf_str(&b), 0, NULL);
    assert_true(json_equal(back, rows));
    json_decref(back);
    imx_cli_buf_free(&b);
    /* An empty list prints nothing, not a header alone. */
    json_t *none = json_array();
    imx_cli_buf_init(&b, 4096);
    assert_int_equal(imx_cli_fmt_rows(&b, none, NULL, IMX_CLI_FMT_TABLE, false), 0);
    assert_int_equal(b.len, 0);
    imx_cli_buf_free(&b);
    json_decref(none);
    json_decref(rows);
}

static void objects_and_fields(void **state)
{
    (void)state;
    json_t *doc = json_loads("{\"id\":4,\"artifact_id\":\"ami-1\",\"gpus\":[\"H100\",\"L4\"],"
                             "\"image\":{\"id\":4}}",
                             0, NULL);
    struct imx_cli_buf b;
    imx_cli_buf_init(&b, 4096);
    assert_int_equal(imx_cli_fmt_object(&b, doc, IMX_CLI_FMT_TABLE, false), 0);
    assert_string_equal(imx_cli_buf_str(&b), "id           4\nartifact_id  ami-1\n"
                                             "gpus         H100,L4\nimage        {\"id\":4}\n");
    imx_cli_buf_reset(&b);
    assert_int_equal(imx_cli_fmt_object(&b, doc, IMX_CLI_FMT_NDJSON, false), 0);
    assert_string_equal(imx_cli_buf_str(&b), "{\"id\":4,\"artifact_id\":\"ami-1\",\"gpus\":"
                                             "[\"H100\",\"L4\"],\"image\":{\"id\":4}}\n");
    static const struct {
        const char *path, *out;
    } fields[] = {
        { "artifact_id", "ami-1\n" },
        { "gpus", "H100\nL4\n" },
        { "image", "{\"id\":4}\n" },
        { "id", "4\n" },
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        imx_cli_buf_reset(&b);
        assert_int_equal(imx_cli_fmt_field(&b, imx_cli_json_path(doc, fields[i].path)), 0);
        assert_string_equal(imx_cli_buf_str(&b), fields[i].out);
    }
    imx_cli_buf_free(&b);
    json_decref(doc);
    enum imx_cli_fmt f;
    assert_int_equal(imx_cli_fmt_parse("ndjson", &f), 0);
    assert_int_equal(f, IMX_CLI_FMT_NDJSON);
    assert_int_equal(imx_cli_fmt_parse("yaml", &f), -1);
}

/* The example of the Standard Webhooks specification (and of Svix's libraries). */
#define SPEC_SECRET "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
#define SPEC_ID     "msg_p5jXN8AQM9LWM0D4loKWxJek"
#define SPEC_TS     "1614265330"
#define SPEC_BODY   "{\"test\": 2432232314}"
#define SPEC_SIG    "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

static void webhook_signatures_verify_as_the_spec_says(void **state)
{
    (void)state;
    const long long now = 1614265330;
    static const struct {
        const char *secret, *id, *ts, *sigs, *body;
        long long now_offset, tolerance;
        enum imx_cli_wh_result result;
    } cases[] = {
        { SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_SIG, SPEC_BODY, 0, 300, IMX_CLI_WH_OK },
        /* The secret without its prefix, as the libraries accept it. */
        { "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", SPEC_ID, SPEC_TS, SPEC_SIG, SPEC_BODY, 0, 300,
          IMX_CLI_WH_OK },
        /* A rotation: the old and the new secret's signatures; either matches. */
        { SPEC_SECRET, SPEC_ID, SPEC_TS,
          "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= " SPEC_SIG, SPEC_BODY, 0, 300,
          IMX_CLI_WH_OK },
        /* Other schemes are ignored, a v1 still counts. */
        { SPEC_SECRET, SPEC_ID, SPEC_TS, "v1a,xyz " SPEC_SIG, SPEC_BODY, 0, 300, IMX_CLI_WH_OK },
        { SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_SIG, "{\"test\": 2432232315}", 0, 300,
          IMX_CLI_WH_NO_MATCH },
        { SPEC_SECRET, "msg_other", SPEC_TS, SPEC_SIG, SPEC_BODY, 0, 300, IMX_CLI_WH_NO_MATCH },
        { SPEC_SECRET, SPEC_ID, "1614265331", SPEC_SIG, SPEC_BODY, 0, 300, IMX_CLI_WH_NO_MATCH },
        { "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", SPEC_ID, SPEC_TS, SPEC_SIG, SPEC_BODY, 0, 300,
          IMX_CLI_WH_NO_MATCH },
        /* A truncated signature never matches, whatever its prefix. */
        { SPEC_SECRET, SPEC_ID, SPEC_TS, "v1,g0hM9SsE+OTPJTGt", SPEC_BODY, 0, 300,
          IMX_CLI_WH_NO_MATCH },
        /* Replays: five minutes either way, unless the tolerance is off. */
        { SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_SIG, SPEC_BODY, 301, 300, IMX_CLI_WH_STALE },
        { SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_SIG, SPEC_BODY, -301, 300, IMX_CLI_WH_STALE },
        { SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_SIG, SPEC_BODY, 300, 300, IMX_CLI_WH_OK },
        { SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_SIG, SPEC_BODY, 86400, -1, IMX_CLI_WH_OK },
        { "whsec_not base64!", SPEC_ID, SPEC_TS, SPEC_SIG, SPEC_BODY, 0, 300,
          IMX_CLI_WH_BAD_SECRET },
        { "whsec_", SPEC_ID, SPEC_TS, SPEC_SIG, SPEC_BODY, 0, 300, IMX_CLI_WH_BAD_SECRET },
        { NULL, SPEC_ID, SPEC_TS, SPEC_SIG, SPEC_BODY, 0, 300, IMX_CLI_WH_BAD_SECRET },
        { SPEC_SECRET, NULL, SPEC_TS, SPEC_SIG, SPEC_BODY, 0, 300, IMX_CLI_WH_BAD_HEADERS },
        { SPEC_SECRET, SPEC_ID, "16142653x0", SPEC_SIG, SPEC_BODY, 0, 300, IMX_CLI_WH_BAD_HEADERS },
        { SPEC_SECRET, SPEC_ID, SPEC_TS, "", SPEC_BODY, 0, 300, IMX_CLI_WH_BAD_HEADERS },
        { SPEC_SECRET, SPEC_ID, SPEC_TS, "v2,abc", SPEC_BODY, 0, 300, IMX_CLI_WH_BAD_HEADERS },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        enum imx_cli_wh_result r = imx_cli_wh_verify(
            cases[i].secret, cases[i].id, cases[i].ts, cases[i].sigs, cases[i].body,
            strlen(cases[i].body), now + cases[i].now_offset, cases[i].tolerance);
        if (r != cases[i].result)
            fail_msg("case %zu: %s, expected %s", i, imx_cli_wh_result_text(r),
                     imx_cli_wh_result_text(cases[i].result));
    }
}

/* "Did you mean": edit distances, and a suggestion only for a likely typo. */
static void typos_get_the_nearest_name(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        size_t d;
    } dist[] = {
        { "", "", 0 },
        { "pins", "pins", 0 },
        { "pinz", "pins", 1 },
        { "imagse", "images", 2 },
        { "serch", "search", 1 },
        { "", "gpu", 3 },
        { "kitten", "sitting", 3 },
    };
    for (size_t i = 0; i < sizeof dist / sizeof dist[0]; i++)
        assert_int_equal(
            imx_cli_edit_distance(dist[i].a, strlen(dist[i].a), dist[i].b, strlen(dist[i].b)),
            dist[i].d);
    static const char *const nouns[] = { "images",   "pins",  "advisories",
                                         "webhooks", "teams", "tokens" };
    static const struct {
        const char *word, *want;
    } near[] = {
        { "imagse", "images" }, { "pinz", "pins" },        { "advisries", "advisories" },
        { "team", "teams" },    { "token", "tokens" },     { "xyz", NULL },
        { "p", NULL },          { "webhook", "webhooks" }, { "tickets", NULL },
    };
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        const char *got = imx_cli_closest(near[i].word, strlen(near[i].word), nouns, 6);
        if (near[i].want ? !got || strcmp(got, near[i].want) != 0 : got != NULL)
            fail_msg("%s: got %s, want %s", near[i].word, got ? got : "NULL",
                     near[i].want ? near[i].want : "NULL");
    }
    /* An unknown option names the one meant. */
    static const struct imx_cli_opt opts[] = { { "family", 0, IMX_CLI_OPT_VALUE, NULL, "" },
                                               { NULL, 0, 0, NULL, NULL } };
    const struct imx_cli_opt *tables[] = { opts, NULL };
    struct imx_cli_args a;
    memset(&a, 0, sizeof a);
    char err[128];
    char *argv[] = { "--familly", "x" };
    assert_int_equal(imx_cli_args_parse(2, argv, tables, false, &a, NULL, err, sizeof err), -1);
    assert_string_equal(err, "unknown option --familly (did you mean --family?)");
}

/* An error answer is said once: the detail (or the title without one), then each invalid field on
 * its own line, whatever list the server sends. */
static void problems_are_said_once(void **state)
{
    (void)state;
    static const struct {
        long status;
        const char *body, *want;
    } cases[] = {
        /* The review's case: the title restates the detail about another subject. */
        { 400,
          "{\"type\":\"x\",\"title\":\"The request has invalid fields\",\"status\":400,"
          "\"detail\":\"The webhook has invalid fields\",\"errors\":[{\"pointer\":\"/url\","
          "\"detail\":\"must be https\"},{\"pointer\":\"/events/0\",\"detail\":\"is not an "
          "event\"}],\"error_count\":2}",
          "imaxe: 400 The webhook has invalid fields\n  /url: must be https\n"
          "  /events/0: is not an event\n" },
        { 404, "{\"title\":\"Not found\",\"detail\":\"No such image\"}",
          "imaxe: 404 No such image\n" },
        /* The detail inside the title (case and a full stop aside): the title, once. */
        { 409, "{\"title\":\"Conflict: it already exists\",\"detail\":\"It already exists.\"}",
          "imaxe: 409 Conflict: it already exists\n" },
        { 403, "{\"title\":\"Not allowed\"}", "imaxe: 403 Not allowed\n" },
        { 401, "{\"detail\":\"The token has expired\"}", "imaxe: 401 The token has expired\n" },
        /* A field error of no name that repeats the headline is left out. */
        { 400,
          "{\"title\":\"The request has invalid fields\",\"detail\":\"The body must be a JSON "
          "object\",\"errors\":[{\"pointer\":\"\",\"detail\":\"the body must be a JSON object\"}],"
          "\"error_count\":1}",
          "imaxe: 400 The body must be a JSON object\n" },
        /* An import's errors carry their line; more counted than listed. */
        { 400,
          "{\"title\":\"The request has invalid fields\",\"detail\":\"nothing was imported\","
          "\"errors\":[{\"line\":2,\"pointer\":\"/family\",\"detail\":\"is required\"},"
          "{\"line\":5,\"detail\":\"is not JSON\"}],\"error_count\":40}",
          "imaxe: 400 nothing was imported\n  line 2 /family: is required\n"
          "  line 5: is not JSON\n  ... and 38 more\n" },
        /* RFC 9457's example list, in either spelling. */
        { 400,
          "{\"title\":\"Your request parameters didn't validate.\",\"invalid_params\":["
          "{\"name\":\"age\",\"reason\":\"must be a positive integer\"},{\"name\":\"color\","
          "\"reason\":\"must be 'green', 'red' or 'blue'\"}]}",
          "imaxe: 400 Your request parameters didn't validate.\n"
          "  age: must be a positive integer\n  color: must be 'green', 'red' or 'blue'\n" },
        { 422, "{\"title\":\"Bad\",\"invalid-params\":[{\"name\":\"n\",\"reason\":\"r\"}]}",
          "imaxe: 422 Bad\n  n: r\n" },
        /* Not a problem document: the start of the body, control characters made visible. */
        { 502, "<html>bad\033[31m gateway</html>",
          "imaxe: HTTP 502: <html>bad?[31m gateway</html>\n" },
        { 500, "", "imaxe: HTTP 500: \n" },
        { 500, "{\"errors\":[]}", "imaxe: HTTP 500: {\"errors\":[]}\n" },
        { 400, "{\"title\":\"T\\u0007\",\"errors\":[{\"pointer\":\"/a\\n\"}]}",
          "imaxe: 400 T?\n  /a?: invalid\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct imx_cli_buf out;
        imx_cli_buf_init(&out, 1 << 16);
        assert_int_equal(
            imx_cli_fmt_problem(&out, cases[i].status, cases[i].body, strlen(cases[i].body)), 0);
        if (strcmp(imx_cli_buf_str(&out), cases[i].want) != 0)
            fail_msg("case %zu:\n%s\nwant:\n%s", i, imx_cli_buf_str(&out), cases[i].want);
        imx_cli_buf_free(&out);
    }
    /* Bounded: 60 listed errors show IMX_CLI_PROBLEM_FIELDS_MAX lines and the rest counted. */
    json_t *errors = json_array();
    for (int i = 0; i < 60; i++)
        json_array_append_new(errors, json_pack("{s:s, s:s}", "pointer", "/x", "detail", "bad"));
    json_t *doc = json_pack("{s:s, s:o, s:i}", "title", "T", "errors", errors, "error_count", 60);
    char *text = json_dumps(doc, 0);
    struct imx_cli_buf out;
    imx_cli_buf_init(&out, 1 << 16);
    assert_int_equal(imx_cli_fmt_problem(&out, 400, text, strlen(text)), 0);
    size_t lines = 0;
    for (const char *p = imx_cli_buf_str(&out); *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 1 + IMX_CLI_PROBLEM_FIELDS_MAX + 1);
    assert_non_null(strstr(imx_cli_buf_str(&out), "  ... and 10 more\n"));
    imx_cli_buf_free(&out);
    free(text);
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(options_parse_as_the_table_says),
        cmocka_unit_test(globals_stop_at_the_noun_and_values_accumulate),
        cmocka_unit_test(http_statuses_map_to_the_documented_exit_codes),
        cmocka_unit_test(buffers_keep_their_maximum_and_escape_urls),
        cmocka_unit_test(dotted_paths_and_cells),
        cmocka_unit_test(rows_render_in_each_format),
        cmocka_unit_test(objects_and_fields),
        cmocka_unit_test(webhook_signatures_verify_as_the_spec_says),
        cmocka_unit_test(typos_get_the_nearest_name),
        cmocka_unit_test(problems_are_said_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
