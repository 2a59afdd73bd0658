/* Cost measurements: POST /v1/measurements, POST /v1/measurements:import (NDJSON or CSV, all or
 * nothing), GET /v1/measurements, GET /v1/measurements/{id}. Team-owned: a team's measurements are
 * visible to that team only. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "domain/csv.h"
#include "util/budget.h"
#include "util/rfc3339.h"
#include "api/export.h"
#include "api/costs_common.h"
#include "api/cursor.h"
#include "auth/auth.h"
#include "db/costs.h"
#include "api/tx.h"
#include "domain/cost.h"
#include "util/config.h"

#define IMPORT_MAX_LINES 10000

int imx_api_cost_scope(struct imx_req *r, const char *team_slug, struct imx_api_scope *out)
{
    const struct imx_principal *p = &r->principal;
    memset(out, 0, sizeof *out);
    snprintf(out->user, sizeof out->user, "%lld", (long long)p->user_id);
    out->s.user_id = out->user;
    if (p->token_id) {
        snprintf(out->token_team, sizeof out->token_team, "%lld", (long long)p->token_team);
        out->s.token_team = out->token_team;
    }
    if (team_slug) {
        int64_t id = imx_auth_team(r, team_slug, IMX_ROLE_VIEWER);
        if (!id)
            return -1;
        snprintf(out->team, sizeof out->team, "%lld", (long long)id);
        out->s.team = out->team;
    }
    return 0;
}

enum kind { K_STRING, K_INT, K_NUMBER };

static const struct mfield {
    const char *name;
    enum kind kind;
    bool required;
} mfields[] = {
    { "team", K_STRING, true },
    { "image", K_INT, true },
    { "instance_type", K_STRING, true },
    { "provider", K_STRING, false },
    { "region", K_STRING, false },
    { "gpu_count", K_INT, false },
    { "model", K_STRING, true },
    { "precision", K_STRING, true },
    { "batch_size", K_INT, true },
    { "throughput_per_s", K_NUMBER, true },
    { "latency_p50_ms", K_NUMBER, false },
    { "latency_p99_ms", K_NUMBER, false },
    { "boot_seconds", K_NUMBER, false },
    { "pricing", K_STRING, false },
    { "price_per_hour", K_NUMBER, false },
    { "currency", K_STRING, false },
    { "measured_at", K_STRING, true },
    { "notes", K_STRING, false },
};
#define N_MFIELDS (sizeof mfields / sizeof mfields[0])

static const struct mfield *mfield(const char *name)
{
    for (size_t i = 0; i < N_MFIELDS; i++)
        if (strcmp(mfields[i].name, name) == 0)
            return &mfields[i];
    return NULL;
}

static bool kind_ok(const json_t *v, enum kind k)
{
    return k == K_STRING ? json_is_string(v) : k == K_INT ? json_is_integer(v) : json_is_number(v);
}

static double num(const json_t *o, const char *name, bool *has)
{
    json_t *v = json_object_get(o, name);
    if (has)
        *has = v != NULL;
    return v ? json_number_value(v) : 0;
}

static bool str_ok(const char *s, size_t max)
{
    return s && *s && strlen(s) <= max;
}

/* Checks one measurement object; appends errors under prefix ("" or "/lines/N"). Returns how
 * many it appended. */
static size_t check_measurement(const json_t *o, const char *prefix, json_t *errors)
{
    size_t before = json_array_size(errors);
    char ptr[300];
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v)
    {
        const struct mfield *f = mfield(key);
        snprintf(ptr, sizeof ptr, "%s/%s", prefix, key);
        if (!f)
            imx_verr(errors, ptr, "unknown field, or one you may not set");
        else if (!kind_ok(v, f->kind))
            imx_verr(errors, ptr, "must be %s",
                     f->kind == K_STRING ? "a string"
                     : f->kind == K_INT  ? "an integer"
                                         : "a number");
    }
    for (size_t i = 0; i < N_MFIELDS; i++) {
        if (mfields[i].required && !json_object_get(o, mfields[i].name)) {
            snprintf(ptr, sizeof ptr, "%s/%s", prefix, mfields[i].name);
            imx_verr(errors, ptr, "is required");
        }
    }
    if (json_array_size(errors) > before)
        return json_array_size(errors) - before;
    struct imx_cost_values cv = { .throughput_per_s = num(o, "throughput_per_s", NULL) };
    cv.latency_p50_ms = num(o, "latency_p50_ms", &cv.has_p50);
    cv.latency_p99_ms = num(o, "latency_p99_ms", &cv.has_p99);
    cv.boot_seconds = num(o, "boot_seconds", &cv.has_boot);
    cv.price_per_hour = num(o, "price_per_hour", &cv.has_price);
    cv.batch_size = (long long)json_integer_value(json_object_get(o, "batch_size"));
    cv.has_gpu_count = json_object_get(o, "gpu_count") != NULL;
    cv.gpu_count = (long long)json_integer_value(json_object_get(o, "gpu_count"));
    struct imx_cost_problem probs[IMX_COST_MAX_PROBLEMS];
    size_t n = imx_cost_check(&cv, probs);
    for (size_t i = 0; i < n; i++) {
        snprintf(ptr, sizeof ptr, "%s/%s", prefix, probs[i].field);
        imx_verr(errors, ptr, "%s", probs[i].detail);
    }
    const char *pricing = json_string_value(json_object_get(o, "pricing"));
    if (pricing && strcmp(pricing, "on_demand") != 0 && strcmp(pricing, "spot") != 0 &&
        strcmp(pricing, "reserved") != 0) {
        snprintf(ptr, sizeof ptr, "%s/pricing", prefix);
        imx_verr(errors, ptr, "must be on_demand, spot or reserved");
    }
    static const struct {
        const char *name;
        size_t max;
    } lens[] = { { "model", 128 },   { "precision", 16 }, { "instance_type", 64 },
                 { "provider", 32 }, { "region", 64 },    { "measured_at", 40 },
                 { "currency", 3 } };
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        json_t *s = json_object_get(o, lens[i].name);
        if (s && !str_ok(json_string_value(s), lens[i].max)) {
            snprintf(ptr, sizeof ptr, "%s/%s", prefix, lens[i].name);
            imx_verr(errors, ptr, "must be 1 to %zu characters", lens[i].max);
        }
    }
    /* The table's CHECK patterns, named here rather than refused by PostgreSQL. */
#define LOWER_DIGITS "abcdefghijklmnopqrstuvwxyz0123456789"
#define ALNUM        LOWER_DIGITS "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    static const struct {
        const char *name, *first, *rest, *what;
    } patterns[] = {
        { "model", ALNUM, ALNUM "._:/+-", "letters, digits and . _ : / + - (no spaces)" },
        { "precision", LOWER_DIGITS, LOWER_DIGITS "_-", "lower-case letters, digits, _ and -" },
        { "region", LOWER_DIGITS, LOWER_DIGITS "-", "lower-case letters, digits and -" },
        { "currency", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
          "three upper-case letters (ISO 4217)" },
    };
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        const char *text = json_string_value(json_object_get(o, patterns[i].name));
        if (text && *text &&
            (!strchr(patterns[i].first, text[0]) ||
             strspn(text, patterns[i].rest) != strlen(text) ||
             (strcmp(patterns[i].name, "currency") == 0 && strlen(text) != 3))) {
            snprintf(ptr, sizeof ptr, "%s/%s", prefix, patterns[i].name);
            imx_verr(errors, ptr, "must be %s", patterns[i].what);
        }
    }
#undef LOWER_DIGITS
#undef ALNUM
    const char *notes = json_string_value(json_object_get(o, "notes"));
    if (notes && strlen(notes) > 2000) {
        snprintf(ptr, sizeof ptr, "%s/notes", prefix);
        imx_verr(errors, ptr, "must be at most 2000 characters");
    }
    /* RFC 3339 only: PostgreSQL would also take "now" or "yesterday". */
    const char *at = json_string_value(json_object_get(o, "measured_at"));
    if (at && *at && strlen(at) <= 40 && !imx_rfc3339_ok(at)) {
        snprintf(ptr, sizeof ptr, "%s/measured_at", prefix);
        imx_verr(errors, ptr, "must be an RFC 3339 time, such as 2026-11-20T10:00:00Z");
    }
    if (json_integer_value(json_object_get(o, "image")) < 1 && json_object_get(o, "image")) {
        snprintf(ptr, sizeof ptr, "%s/image", prefix);
        imx_verr(errors, ptr, "must be an image id");
    }
    return json_array_size(errors) - before;
}

/* Records o (valid) in the open transaction; SQL's errors go to errors under prefix. Returns
 * the measurement JSON (new) on success, NULL with errors appended, or NULL with *failed = -1
 * after a database failure (imx_api_tx_fail already called). */
static json_t *record(struct imx_req *r, const char *team_id, const json_t *o, const char *prefix,
                      json_t *errors, int *failed)
{
    struct imx_db_fault why = { 0 };
    char uid[24];
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    char *text = json_dumps(o, JSON_COMPACT);
    struct imx_db_json j;
    enum imx_db_status st =
        imx_db_measurement_record(imx_api_conn(r), team_id, uid, text, &j, &why);
    free(text);
    if (st != IMX_DBS_OK && st != IMX_DBS_NOT_FOUND) {
        *failed = imx_api_tx_fail(r, st, &why);
        return NULL;
    }
    json_t *doc = imx_api_json_load(&j);
    json_t *errs = json_object_get(doc, "errors"), *e;
    size_t i;
    json_array_foreach(errs, i, e)
    {
        char ptr[300];
        snprintf(ptr, sizeof ptr, "%s%s", prefix, json_string_value(json_object_get(e, "pointer")));
        imx_verr(errors, ptr, "%s", json_string_value(json_object_get(e, "detail")));
    }
    json_t *m = json_incref(json_object_get(doc, "measurement"));
    json_decref(doc);
    return m;
}

struct create_ctx {
    char team_id[24];
    json_t *body;
};

/* Room for n more of the team's measurements today? Replies 429 (or the database failure) and
 * returns -1 when not. */
static int quota_room(struct imx_req *r, const char *team_id, size_t n)
{
    struct imx_db_fault why = { 0 };
    long long today;
    enum imx_db_status st = imx_db_measurements_today(imx_api_conn(r), team_id, &today, &why);
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    if ((unsigned long long)today + n > imx_api_quotas.measurements_per_day) {
        imx_api_reply_quota(r, "measurements-per-day", imx_api_quotas.measurements_per_day,
                            "the team recorded that many measurements in the last 24 hours");
        return -1;
    }
    return 0;
}

static int create_tx(struct imx_req *r, void *cls)
{
    struct create_ctx *c = cls;
    if (quota_room(r, c->team_id, 1) != 0)
        return -1;
    json_t *errors = json_array();
    int failed = 0;
    json_t *m = record(r, c->team_id, c->body, "", errors, &failed);
    if (failed) {
        json_decref(errors);
        return -1;
    }
    if (!m) {
        imx_reply_invalid_steal(r, errors, "The measurement has invalid fields");
        return -1;
    }
    json_decref(errors);
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)json_integer_value(json_object_get(m, "id")));
    json_t *detail = json_pack("{s:O, s:O}", "image", json_object_get(m, "image"), "model",
                               json_object_get(m, "model"));
    int rc = imx_audit(r, "create", "measurement", id, detail);
    json_decref(detail);
    if (rc != 0) {
        json_decref(m);
        return rc;
    }
    char loc[64];
    snprintf(loc, sizeof loc, "/v1/measurements/%s", id);
    imx_reply_header(r, "Location", loc);
    imx_reply_json_steal(r, 201, m);
    return 0;
}

void imx_api_measurement_create(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    check_measurement(body, "", errors);
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The measurement has invalid fields");
        return;
    }
    json_decref(errors);
    int64_t team =
        imx_auth_team(r, json_string_value(json_object_get(body, "team")), IMX_ROLE_MEMBER);
    if (!team)
        return;
    struct create_ctx c = { .body = body };
    snprintf(c.team_id, sizeof c.team_id, "%lld", (long long)team);
    imx_api_tx(r, create_tx, &c);
}

/* ---- import ---- */

/* A CSV cell as the JSON value its column needs; NULL for an empty cell (absent). Text that is
 * not a number stays a string, so the field check names it. */
static json_t *csv_value(const char *name, const char *cell)
{
    if (!cell || !*cell)
        return NULL;
    const struct mfield *f = mfield(name);
    if (f && f->kind != K_STRING) {
        char *end;
        errno = 0;
        if (f->kind == K_INT) {
            long long v = strtoll(cell, &end, 10);
            if (!*end && errno == 0)
                return json_integer(v);
        } else {
            double v = strtod(cell, &end);
            if (!*end && errno == 0 && isfinite(v))
                return json_real(v);
        }
    }
    return json_string(cell);
}

struct import_ctx {
    char team_id[24];
    const char *team;
    json_t *lines;  /* [{"n": line number, "o": object}] */
    json_t *errors; /* from parsing and checking */
};

static int import_tx(struct imx_req *r, void *cls)
{
    struct import_ctx *c = cls;
    if (quota_room(r, c->team_id, json_array_size(c->lines)) != 0)
        return -1;
    json_t *errors = json_deep_copy(c->errors), *ids = json_array(), *line;
    size_t i;
    json_array_foreach(c->lines, i, line)
    {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "/lines/%lld",
                 (long long)json_integer_value(json_object_get(line, "n")));
        int failed = 0;
        json_t *m = record(r, c->team_id, json_object_get(line, "o"), prefix, errors, &failed);
        if (failed) {
            json_decref(errors);
            json_decref(ids);
            return -1;
        }
        if (m)
            json_array_append(ids, json_object_get(m, "id"));
        json_decref(m);
    }
    if (json_array_size(errors) > 0) {
        json_decref(ids);
        imx_reply_invalid_steal(r, errors, "Nothing was imported: some lines are invalid");
        return -1;
    }
    json_decref(errors);
    json_t *detail =
        json_pack("{s:s, s:I}", "team", c->team, "count", (json_int_t)json_array_size(ids));
    int rc = imx_audit(r, "import", "measurement", NULL, detail);
    json_decref(detail);
    if (rc != 0) {
        json_decref(ids);
        return rc;
    }
    imx_reply_json_steal(
        r, 201, json_pack("{s:I, s:o}", "imported", (json_int_t)json_array_size(ids), "ids", ids));
    return 0;
}

/* Adds object o (from line n) to the import after checking it. */
static void import_add(struct import_ctx *c, json_t *o, long n)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "/lines/%ld", n);
    json_t *team = json_object_get(o, "team");
    if (!team)
        json_object_set_new(o, "team", json_string(c->team));
    else if (!json_is_string(team) || strcmp(json_string_value(team), c->team) != 0) {
        char ptr[48];
        snprintf(ptr, sizeof ptr, "%s/team", prefix);
        imx_verr(c->errors, ptr, "must be the team of the import (%s)", c->team);
    }
    if (check_measurement(o, prefix, c->errors) == 0)
        json_array_append_new(c->lines, json_pack("{s:I, s:O}", "n", (json_int_t)n, "o", o));
    json_decref(o);
}

enum import_end { IMPORT_READ, IMPORT_TOO_MANY, IMPORT_SPENT };

/* A CSV body (a header line of field names, RFC 4180 records: quoted fields may hold commas,
 * quotes and line breaks), read by domain/csv.c as every CSV the server takes. A malformed
 * table is one error at the line it names; each row is checked at the line it starts on. */
static enum import_end import_csv(struct import_ctx *c, const char *text, long *at)
{
    char err[256];
    json_t *lines = NULL;
    size_t err_line = 0;
    json_t *rows = imx_csv_rows_at(text, strlen(text), &lines, &err_line, err, sizeof err);
    if (!rows) {
        *at = (long)err_line;
        if (imx_budget_spent())
            return IMPORT_SPENT;
        char ptr[48] = "";
        if (err_line)
            snprintf(ptr, sizeof ptr, "/lines/%zu", err_line);
        imx_verr(c->errors, ptr, "%s", err);
        return IMPORT_READ;
    }
    enum import_end end = IMPORT_READ;
    if (json_array_size(rows) > IMPORT_MAX_LINES)
        end = IMPORT_TOO_MANY;
    size_t i;
    json_t *row;
    json_array_foreach(end == IMPORT_READ ? rows : NULL, i, row)
    {
        json_t *o = json_object();
        const char *name;
        json_t *cell;
        json_object_foreach(row, name, cell)
        {
            json_t *v = csv_value(name, json_string_value(cell));
            if (v)
                json_object_set_new(o, name, v);
        }
        import_add(c, o, (long)json_integer_value(json_array_get(lines, i)));
    }
    json_decref(rows);
    json_decref(lines);
    return end;
}

void imx_api_measurement_import(struct imx_req *r)
{
    const char *ct = imx_req_header(r, "Content-Type");
    bool ndjson = ct && strncasecmp(ct, "application/x-ndjson", 20) == 0;
    bool csv = ct && strncasecmp(ct, "text/csv", 8) == 0;
    if (!ndjson && !csv) {
        imx_reply_problem(r, IMX_E_UNSUPPORTED_MEDIA_TYPE,
                          "Send application/x-ndjson (one measurement a line) or text/csv "
                          "(a header line of field names)");
        return;
    }
    const char *team_slug = imx_req_query(r, "team");
    if (!team_slug) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "Name the team: ?team=slug");
        return;
    }
    int64_t team = imx_auth_team(r, team_slug, IMX_ROLE_MEMBER);
    if (!team)
        return;
    struct import_ctx c = { .team = team_slug, .lines = json_array(), .errors = json_array() };
    snprintf(c.team_id, sizeof c.team_id, "%lld", (long long)team);
    const char *from = r->body ? r->body : "";
    /* A UTF-8 byte-order mark before the header is what Excel's "CSV UTF-8" writes: not part of
     * the first field's name. */
    if (csv && strncmp(from, "\xEF\xBB\xBF", 3) == 0)
        from += 3;
    char *text = strdup(from);
    if (!text) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        json_decref(c.lines);
        json_decref(c.errors);
        return;
    }
    long n = 0, data_lines = 0;
    char *save = NULL;
    bool too_many = false, spent = false;
    if (csv) {
        enum import_end end = import_csv(&c, text, &n);
        too_many = end == IMPORT_TOO_MANY;
        spent = end == IMPORT_SPENT;
    }
    /* NDJSON, a line at a time. strtok_r would merge empty lines and lose the numbering; split
     * by hand. */
    for (char *line = csv ? NULL : text; line && !too_many; line = save) {
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        n++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        if (len == 0)
            continue;
        if (imx_budget_spent()) {
            spent = true;
            break;
        }
        char ptr[48];
        snprintf(ptr, sizeof ptr, "/lines/%ld", n);
        if (++data_lines > IMPORT_MAX_LINES) {
            too_many = true;
            break;
        }
        json_error_t jerr;
        json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
        if (!json_is_object(o)) {
            json_decref(o);
            imx_verr(c.errors, ptr, "is not a JSON object: %s", o ? "" : jerr.text);
            continue;
        }
        import_add(&c, o, n);
    }
    if (too_many) {
        imx_reply_problem(r, IMX_E_PAYLOAD_TOO_LARGE, "At most %d measurements per import",
                          IMPORT_MAX_LINES);
    } else if (spent) {
        imx_reply_problem(r, IMX_E_UNPROCESSABLE, "Line %ld: %s", n, IMX_BUDGET_SPENT_TEXT);
    } else if (json_array_size(c.lines) == 0 && json_array_size(c.errors) == 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "The body holds no measurements");
    } else {
        imx_api_tx(r, import_tx, &c);
    }
    free(text);
    json_decref(c.lines);
    json_decref(c.errors);
}

/* ---- reads ---- */

/* A measurement list's filters, kept for its export's pages. */
struct measurement_filter {
    struct imx_api_scope sc;
    char *image, *model, *instance_type; /* new strings or NULL */
};

static void measurement_filter_free(void *cls)
{
    struct measurement_filter *f = cls;
    free(f->image);
    free(f->model);
    free(f->instance_type);
    free(f);
}

static enum imx_db_status measurement_page(struct imx_db_conn *c, const void *cls,
                                           const char *after, const char *limit,
                                           struct imx_db_page *out)
{
    const struct measurement_filter *f = cls;
    return imx_db_measurement_list(c, &f->sc.s, f->image, f->model, f->instance_type, after, limit,
                                   out, NULL);
}

static const char *const measurement_columns[] = {
    "id",
    "team",
    "image",
    "provider",
    "instance_type",
    "region",
    "gpu_model",
    "gpu_count",
    "model",
    "precision",
    "batch_size",
    "throughput_per_s",
    "latency_p50_ms",
    "latency_p99_ms",
    "boot_seconds",
    "pricing",
    "price_per_hour",
    "currency",
    "price_source",
    "measured_at",
    "notes",
    "created_at",
    "derived.cost_per_1k_inferences",
    "derived.boot_cost",
    NULL,
};

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Streams every measurement the filters select (Accept: text/csv or application/x-ndjson). */
static void measurement_export(struct imx_req *r, enum imx_export_format format,
                               const struct imx_api_scope *sc, const char *image)
{
    struct measurement_filter *f = calloc(1, sizeof *f);
    if (!f) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    f->sc = *sc;
    f->sc.s.user_id = sc->s.user_id ? f->sc.user : NULL;
    f->sc.s.token_team = sc->s.token_team ? f->sc.token_team : NULL;
    f->sc.s.team = sc->s.team ? f->sc.team : NULL;
    f->image = dup_or_null(image);
    f->model = dup_or_null(imx_req_query(r, "model"));
    f->instance_type = dup_or_null(imx_req_query(r, "instance_type"));
    imx_api_export_steal(r, format, measurement_columns, measurement_page, f,
                         measurement_filter_free);
}

void imx_api_measurement_list(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    struct imx_api_scope sc;
    unsigned long long limit, v;
    const char *image = imx_req_query(r, "image");
    char before[24], limit_txt[16];
    const char *before_id;
    if (!imx_api_list_limit(r, &limit))
        return;
    if (image && imx_parse_uint(image, 1, INT64_MAX, &v) != 0) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "image must be an image id");
        return;
    }
    if (!imx_api_cursor_id(r, before, &before_id))
        return;
    if (imx_api_cost_scope(r, imx_req_query(r, "team"), &sc) != 0)
        return;
    enum imx_export_format format = imx_api_export_format(r);
    if (format != IMX_EXPORT_NONE) {
        measurement_export(r, format, &sc, image);
        return;
    }
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    snprintf(limit_txt, sizeof limit_txt, "%llu", limit);
    struct imx_db_page page;
    enum imx_db_status st = imx_db_measurement_list(c, &sc.s, image, imx_req_query(r, "model"),
                                                    imx_req_query(r, "instance_type"), before_id,
                                                    limit_txt, &page, &why);
    imx_api_reply_page(r, st, &why, &page, 0, limit, "I");
}

void imx_api_measurement_get(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    unsigned long long v;
    const char *id = imx_req_param(r, "id");
    if (imx_parse_uint(id, 1, INT64_MAX, &v) != 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "No such measurement");
        return;
    }
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    int64_t team;
    struct imx_db_json j;
    enum imx_db_status st = imx_db_measurement_get(c, id, &team, &j, &why);
    if (st != IMX_DBS_OK) {
        if (st != IMX_DBS_NOT_FOUND)
            imx_api_reply_db_fault(r, st, &why);
        else
            imx_reply_problem(r, IMX_E_NOT_FOUND, "No such measurement");
        return;
    }
    /* Another team's measurement is a 404, as if it did not exist. */
    if (!imx_auth_team_id(r, team, IMX_ROLE_VIEWER) ||
        (r->principal.token_id && r->principal.token_team != team)) {
        if (r->reply.status == 0)
            imx_reply_problem(r, IMX_E_NOT_FOUND, "No such measurement");
        imx_db_json_free(&j);
        return;
    }
    json_t *doc = imx_api_json_load(&j);
    imx_reply_json_steal(r, 200, doc);
}
