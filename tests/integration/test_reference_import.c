/* imaxe-server reference export / import against a real database: a dry run changes nothing, an
 * import applies in one transaction with an audit entry and a data version, recomputes the stored
 * report of the image whose findings change with one image.compatibility_changed event (and none
 * when imported again), and an import that would break a foreign key changes nothing. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], alice[4096];
static char dir[1024], out[1100];
static long long b200_image, h100_image;

/* Runs imaxe-server with args against the test database; stdout into out. Returns its status. */
static int cli(const char *args)
{
    return imx_t_system("IMAXE_DATABASE_URL='%s' IMAXE_JWT_SECRET='%s' IMAXE_LOG_LEVEL=warn "
                        "IMAXE_DB_WAIT_S=5 '%s' %s > '%s' 2> '%s.err'",
                        db, IMX_T_JWT_SECRET, getenv("IMX_TEST_SERVER"), args, out, out);
}

static long long sql_num(const char *q)
{
    char *v = imx_t_sql(db, q);
    assert_non_null(v);
    long long n = atoll(v);
    free(v);
    return n;
}

static char *sql_text(const char *q)
{
    char *v = imx_t_sql(db, q);
    assert_non_null(v);
    return v;
}

/* Publishes an image of team-a through the API (its report is computed at publish): driver,
 * CUDA and one GPU. */
static long long img(const char *family, const char *driver, const char *gpu)
{
    char comps[256], gpus[64];
    snprintf(comps, sizeof comps,
             "[{\"name\":\"nvidia-driver\",\"version\":\"%s\"},"
             "{\"name\":\"cuda\",\"version\":\"12.8.0\"}]",
             driver);
    snprintf(gpus, sizeof gpus, "[\"%s\"]", gpu);
    long long id = imx_t_publish(&srv, admin, "team-a", family, "1", comps, gpus);
    assert_true(id > 0);
    return id;
}

static int setup(void **state)
{
    (void)state;
    if (imx_t_server_up(&srv, "refimport", NULL, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    snprintf(dir, sizeof dir, "%s", imx_t_tmpdir("refimport"));
    snprintf(out, sizeof out, "%s/out.json", dir);
    if (imx_t_system("mkdir -p '%s/tables'", dir) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "team-a", "alice@a.test", "member", alice, sizeof alice) != 0)
        return -1;
    b200_image = img("ref-b200", "575.57.08", "B200");
    h100_image = img("ref-h100", "575.57.08", "H100");
    /* Events are stored only for a subscription that wants them. */
    free(imx_t_sql(db, "INSERT INTO webhooks (team_id, url, secret, event_types) SELECT id,"
                       " 'https://receiver.invalid/hook',"
                       " 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',"
                       " '{image.compatibility_changed}' FROM teams WHERE slug = 'team-a'"
                       " RETURNING id"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

static json_t *output(void)
{
    json_error_t err;
    json_t *j = json_load_file(out, 0, &err);
    if (!j)
        fail_msg("%s: %s", out, err.text);
    return j;
}

/* Edits tables/gpu.csv with sed (an extended regular expression substitution). */
static void edit_gpus(const char *sed)
{
    assert_int_equal(imx_t_system("sed -E -i '%s' '%s/tables/gpu.csv'", sed, dir), 0);
}

static void export_then_dry_run_changes_nothing(void **state)
{
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "reference export '%s/tables'", dir);
    assert_int_equal(cli(args), 0);
    /* The export imports as itself: nothing added, changed or removed. */
    snprintf(args, sizeof args, "reference import '%s/tables' --dry-run", dir);
    assert_int_equal(cli(args), 0);
    json_t *o = output();
    json_t *gpu = json_object_get(json_object_get(o, "tables"), "ref_gpu");
    assert_int_equal(json_array_size(json_object_get(gpu, "changed")), 0);
    assert_int_equal(json_array_size(json_object_get(gpu, "added")), 0);
    assert_int_equal(json_array_size(json_object_get(gpu, "removed")), 0);
    assert_int_equal(json_object_size(json_object_get(o, "tables")),
                     17); /* with ref_commit_release (0410) */
    json_decref(o);

    /* NVIDIA raises the B200's documented minimum past the images' 575 driver. */
    edit_gpus("s/^(B200,.*),570[.]133[.]20,/\\1,580.65.06,/");
    assert_int_equal(imx_t_system("echo 'nvidia-2026-12' > '%s/tables/VERSION'", dir), 0);
    long long gen = sql_num("SELECT generation FROM ref_generation");
    assert_int_equal(cli(args), 0);
    o = output();
    assert_true(json_is_true(json_object_get(o, "dry_run")));
    assert_string_equal(json_string_value(json_object_get(o, "data_version")), "nvidia-2026-12");
    gpu = json_object_get(json_object_get(o, "tables"), "ref_gpu");
    assert_int_equal(json_array_size(json_object_get(gpu, "changed")), 1);
    assert_string_equal(
        json_string_value(json_array_get(json_array_get(json_object_get(gpu, "changed"), 0), 0)),
        "B200");
    json_t *changed = json_object_get(o, "reports_changed");
    assert_int_equal(json_array_size(changed), 1);
    assert_int_equal(json_integer_value(json_array_get(changed, 0)), b200_image);
    json_decref(o);

    /* ... and nothing of it happened. */
    char *min = sql_text("SELECT min_driver_documented FROM ref_gpu WHERE gpu_model = 'B200'");
    assert_string_equal(min, "570.133.20");
    free(min);
    assert_int_equal(sql_num("SELECT generation FROM ref_generation"), gen);
    assert_int_equal(sql_num("SELECT count(*) FROM ref_data_versions"), 1);
    assert_int_equal(sql_num("SELECT count(*) FROM audit_log WHERE resource = 'reference'"), 0);
    assert_int_equal(
        sql_num("SELECT count(*) FROM webhook_events WHERE type = 'image.compatibility_changed'"),
        0);
}

static void import_recomputes_reports_once(void **state)
{
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "reference import '%s/tables'", dir);
    assert_int_equal(cli(args), 0);
    json_t *o = output();
    assert_true(json_is_false(json_object_get(o, "dry_run")));
    assert_int_equal(json_array_size(json_object_get(o, "reports_changed")), 1);
    json_decref(o);

    char q[256];
    snprintf(q, sizeof q,
             "SELECT count(*) FROM images WHERE id = %lld AND compatibility->>'ok' = 'false'"
             " AND compatibility->'findings' @> '[{\"code\":\"gpu_driver_too_old\"}]'",
             b200_image);
    assert_int_equal(sql_num(q), 1);
    snprintf(q, sizeof q,
             "SELECT count(*) FROM webhook_events WHERE type = 'image.compatibility_changed'"
             " AND data->'image'->>'id' = '%lld' AND data->'previous'->>'ok' = 'true'"
             " AND data->>'reference_data_version' = 'nvidia-2026-12'",
             b200_image);
    assert_int_equal(sql_num(q), 1);
    assert_int_equal(sql_num("SELECT count(*) FROM audit_log WHERE resource = 'reference'"
                             " AND action = 'import' AND resource_id = 'nvidia-2026-12'"
                             " AND detail->'ref_gpu'->>'changed' = '1'"),
                     1);

    /* GET /v1/reference says which data is loaded. */
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, admin, "GET", "/v1/reference", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_string_equal(json_string_value(json_object_get(res.json, "data_version")),
                        "nvidia-2026-12");
    assert_non_null(json_object_get(res.json, "loaded_at"));
    imx_t_res_free(&res);
    /* And the validator already uses it. */
    assert_int_equal(imx_t_http_as(&srv, admin, "POST", "/v1/compat/check",
                                   "{\"components\":[{\"name\":\"nvidia-driver\",\"version\":"
                                   "\"575.57.08\"}],\"gpus\":[\"B200\"]}",
                                   &res),
                     0);
    assert_non_null(strstr(res.body, "580.65.06"));
    imx_t_res_free(&res);

    /* The same files again: nothing changes, no second event. */
    assert_int_equal(cli(args), 0);
    o = output();
    assert_int_equal(json_array_size(json_object_get(o, "reports_changed")), 0);
    json_decref(o);
    assert_int_equal(
        sql_num("SELECT count(*) FROM webhook_events WHERE type = 'image.compatibility_changed'"),
        1);
    snprintf(q, sizeof q,
             "SELECT count(*) FROM images WHERE id = %lld AND compatibility->>'ok' = 'true'",
             h100_image);
    assert_int_equal(sql_num(q), 1);
}

static void an_import_breaking_a_foreign_key_changes_nothing(void **state)
{
    (void)state;
    long long versions = sql_num("SELECT count(*) FROM ref_data_versions");
    long long gen = sql_num("SELECT generation FROM ref_generation");
    /* T4 is gone from the file, but g4dn instance types still name it; A10 changes meanwhile. */
    edit_gpus("/^T4,/d; s/^(A10,NVIDIA A10,Ampere,8[.]6,sm_86,11[.]1),455[.]23,/\\1,460.27.03,/");
    char args[1200];
    snprintf(args, sizeof args, "reference import '%s/tables'", dir);
    assert_int_not_equal(cli(args), 0);
    char errpath[1200];
    snprintf(errpath, sizeof errpath, "%s.err", out);
    FILE *f = fopen(errpath, "r");
    assert_non_null(f);
    char msg[2048] = "";
    size_t n = fread(msg, 1, sizeof msg - 1, f);
    msg[n] = '\0';
    fclose(f);
    assert_non_null(strstr(msg, "ref_instance_type"));
    assert_non_null(strstr(msg, "nothing was changed"));
    assert_int_equal(sql_num("SELECT count(*) FROM ref_gpu WHERE gpu_model = 'T4'"), 1);
    char *drv = sql_text("SELECT min_driver_derived FROM ref_gpu WHERE gpu_model = 'A10'");
    assert_string_equal(drv, "455.23");
    free(drv);
    assert_int_equal(sql_num("SELECT count(*) FROM ref_data_versions"), versions);
    assert_int_equal(sql_num("SELECT generation FROM ref_generation"), gen);

    /* A file naming a column the table lacks is refused the same way. */
    assert_int_equal(imx_t_system("printf 'cuda_major,driver_floor,colour\\n11,450.80.02,red\\n'"
                                  " > '%s/tables/cuda_mvc.csv'",
                                  dir),
                     0);
    assert_int_not_equal(cli(args), 0);
    f = fopen(errpath, "r");
    assert_non_null(f);
    n = fread(msg, 1, sizeof msg - 1, f);
    msg[n] = '\0';
    fclose(f);
    assert_non_null(strstr(msg, "cuda_mvc.colour"));
    assert_int_equal(sql_num("SELECT count(*) FROM ref_data_versions"), versions);
}

/* The CSV text of a file (new). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

static json_t *post_import(const char *token, const char *gpu_csv, bool dry_run, long status)
{
    json_t *body = json_pack("{s:s, s:b, s:{s:s}}", "data_version", "api-import", "dry_run",
                             dry_run, "tables", "gpu", gpu_csv);
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, "POST", "/v1/reference", text, &res), 0);
    free(text);
    if (res.status != status)
        fail_msg("POST /v1/reference: expected %ld, got %ld: %s", status, res.status, res.body);
    json_t *j = json_incref(res.json);
    imx_t_res_free(&res);
    return j;
}

static void the_admin_api_imports_the_same_way(void **state)
{
    (void)state;
    char args[1200], path[1200];
    snprintf(args, sizeof args, "reference export '%s/api'", dir);
    assert_int_equal(imx_t_system("mkdir -p '%s/api'", dir), 0);
    assert_int_equal(cli(args), 0);
    /* Back to the B200's real minimum. */
    assert_int_equal(imx_t_system("sed -E -i 's/^(B200,.*),580[.]65[.]06,/\\1,570.133.20,/'"
                                  " '%s/api/gpu.csv'",
                                  dir),
                     0);
    snprintf(path, sizeof path, "%s/api/gpu.csv", dir);
    char *csv = slurp(path);
    long long events = sql_num("SELECT count(*) FROM webhook_events"
                               " WHERE type = 'image.compatibility_changed'");
    json_decref(post_import(alice, csv, true, 403));
    json_t *o = post_import(admin, csv, true, 200);
    assert_true(json_is_true(json_object_get(o, "dry_run")));
    assert_int_equal(json_array_size(json_object_get(o, "reports_changed")), 1);
    json_decref(o);
    char *min = sql_text("SELECT min_driver_documented FROM ref_gpu WHERE gpu_model = 'B200'");
    assert_string_equal(min, "580.65.06");
    free(min);
    o = post_import(admin, csv, false, 200);
    assert_int_equal(json_array_size(json_object_get(o, "reports_changed")), 1);
    json_decref(o);
    min = sql_text("SELECT min_driver_documented FROM ref_gpu WHERE gpu_model = 'B200'");
    assert_string_equal(min, "570.133.20");
    free(min);
    assert_int_equal(sql_num("SELECT count(*) FROM webhook_events"
                             " WHERE type = 'image.compatibility_changed'"),
                     events + 1);
    assert_int_equal(sql_num("SELECT count(*) FROM audit_log WHERE resource = 'reference'"
                             " AND resource_id = 'api-import' AND actor_user_id IS NOT NULL"),
                     1);
    free(csv);

    /* Without T4, which instance types still name: 409, nothing changed. */
    assert_int_equal(imx_t_system("sed -E -i '/^T4,/d' '%s/api/gpu.csv'", dir), 0);
    csv = slurp(path);
    o = post_import(admin, csv, false, 409);
    assert_non_null(strstr(json_string_value(json_object_get(o, "detail")), "T4"));
    json_decref(o);
    assert_int_equal(sql_num("SELECT count(*) FROM ref_gpu WHERE gpu_model = 'T4'"), 1);
    free(csv);
    o = post_import(admin, "gpu_model\n\"open\n", false, 400);
    json_decref(o);
}

/* Sets column col of DIR/SUB/FILE.csv in the one row whose column key_col is key (Python's csv
 * module). */
static void set_cell(const char *sub, const char *file, const char *key_col, const char *key,
                     const char *col, const char *value)
{
    assert_int_equal(
        imx_t_system("python3 -c 'import csv,sys; p=sys.argv[1]; r=list(csv.reader(open(p)));"
                     " k=r[0].index(sys.argv[2]); c=r[0].index(sys.argv[4]);"
                     " n=[x for x in r[1:] if x[k]==sys.argv[3]]; assert len(n)==1;"
                     " n[0][c]=sys.argv[5];"
                     " csv.writer(open(p,\"w\"), lineterminator=\"\\n\").writerows(r)'"
                     " '%s/%s/%s.csv' '%s' '%s' '%s' '%s'",
                     dir, sub, file, key_col, key, col, value),
        0);
}

/* A cuDNN row reaches only the images with that cuDNN: one checked of the catalog, its report
 * gains an error, and the open request it matched loses it; the row restored, the report is ok
 * again and the request matches it again. An instance type row reaches no report at all. */
static void an_import_rechecks_only_the_images_its_rows_reach(void **state)
{
    (void)state;
    long long cudnn_img = imx_t_publish(&srv, admin, "team-a", "ref-cudnn", "1",
                                        "[{\"name\":\"nvidia-driver\",\"version\":\"575.57.08\"},"
                                        "{\"name\":\"cuda\",\"version\":\"12.8.0\"},"
                                        "{\"name\":\"cudnn\",\"version\":\"9.8.0.87\"}]",
                                        "[\"H100\"]");
    assert_true(cudnn_img > 0);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, alice, "POST", "/v1/requests",
                                   "{\"team\":\"team-a\",\"title\":\"cuDNN 9.8 on H100\","
                                   "\"constraints\":[{\"component\":\"cudnn\",\"range\":"
                                   "\"9.8.*\"}],\"gpus\":[\"H100\"]}",
                                   &res),
                     0);
    assert_int_equal(res.status, 201);
    long long req = json_integer_value(json_object_get(res.json, "id"));
    assert_int_equal(json_array_size(json_object_get(res.json, "matches")), 1);
    imx_t_res_free(&res);
    char q[256];
    snprintf(q, sizeof q, "SELECT count(*) FROM request_matches WHERE request_id = %lld", req);

    assert_int_equal(imx_t_system("mkdir -p '%s/scope' '%s/scope-all'", dir, dir), 0);
    char args[1200];
    snprintf(args, sizeof args, "reference export '%s/scope-all'", dir);
    assert_int_equal(cli(args), 0);
    assert_int_equal(imx_t_system("cp '%s/scope-all/cudnn.csv' '%s/scope/'", dir, dir), 0);
    /* The H100 (9.0) older than the oldest listed capability: an error (a GPU newer than a cuDNN
     * 9 list would only be a forward-compatibility warning). */
    set_cell("scope", "cudnn", "cudnn_version", "9.8.0", "cc_max", "12.0");
    set_cell("scope", "cudnn", "cudnn_version", "9.8.0", "cc_min", "10.0");
    snprintf(args, sizeof args, "reference import '%s/scope'", dir);
    assert_int_equal(cli(args), 0);
    json_t *o = output();
    assert_int_equal(json_integer_value(json_object_get(o, "reports_checked")), 1);
    assert_int_equal(json_integer_value(json_object_get(o, "stacks_checked")), 1);
    json_t *changed = json_object_get(o, "reports_changed");
    assert_int_equal(json_array_size(changed), 1);
    assert_int_equal(json_integer_value(json_array_get(changed, 0)), cudnn_img);
    json_decref(o);
    assert_int_equal(sql_num(q), 0);

    /* Restored: ok again, and matched again (by the publish use case's matching). */
    assert_int_equal(imx_t_system("cp '%s/scope-all/cudnn.csv' '%s/scope/'", dir, dir), 0);
    assert_int_equal(cli(args), 0);
    o = output();
    assert_int_equal(json_array_size(json_object_get(o, "reports_changed")), 1);
    json_decref(o);
    assert_int_equal(sql_num(q), 1);
    snprintf(q, sizeof q,
             "SELECT count(*) FROM request_matches WHERE request_id = %lld AND image_id = %lld"
             " AND via = 'published'",
             req, cudnn_img);
    assert_int_equal(sql_num(q), 1);

    /* Instance types: no rule reads them, so no report is looked at. */
    assert_int_equal(imx_t_system("rm '%s/scope/cudnn.csv' && cp '%s/scope-all/instance_type.csv'"
                                  " '%s/scope/'",
                                  dir, dir, dir),
                     0);
    set_cell("scope", "instance_type", "instance_type", "g5.xlarge", "notes", "re-priced");
    assert_int_equal(cli(args), 0);
    o = output();
    assert_int_equal(json_integer_value(json_object_get(o, "reports_checked")), 0);
    json_decref(o);
}

/* ref_nccl (migrations 0055/0056) imports like the other tables: its export imports as itself; a
 * row added for NCCL 2.26.2 (here: builds for CUDA 11 only) is shown by a dry run and changes
 * nothing; applied, it rechecks only the images with NCCL 2.26.2 and stores the one whose CUDA 12
 * has no build with nccl_cuda_major_mismatch and one event; imported again, nothing; a row the
 * table's checks refuse changes nothing. */
static void an_nccl_row_imports_and_recomputes_once(void **state)
{
    (void)state;
    long long nccl_img = imx_t_publish(&srv, admin, "team-a", "ref-nccl", "1",
                                       "[{\"name\":\"cuda\",\"version\":\"12.4.1\"},"
                                       "{\"name\":\"nccl\",\"version\":\"2.26.2\"}]",
                                       "[\"H100\"]");
    long long other = imx_t_publish(&srv, admin, "team-a", "ref-nccl-other", "1",
                                    "[{\"name\":\"cuda\",\"version\":\"12.4.1\"},"
                                    "{\"name\":\"nccl\",\"version\":\"2.21.5\"}]",
                                    "[\"H100\"]");
    assert_true(nccl_img > 0 && other > 0);
    char q[256];
    snprintf(q, sizeof q,
             "SELECT (compatibility->>'ok') || ' ' || (compatibility::text LIKE"
             " '%%nccl_cuda_major_mismatch%%') FROM images WHERE id = %lld",
             nccl_img);
    char *v = sql_text(q);
    assert_string_equal(v, "true false");
    free(v);

    assert_int_equal(imx_t_system("mkdir -p '%s/nccl' '%s/nccl-all'", dir, dir), 0);
    char args[1200];
    snprintf(args, sizeof args, "reference export '%s/nccl-all'", dir);
    assert_int_equal(cli(args), 0);
    assert_int_equal(imx_t_system("cp '%s/nccl-all/nccl.csv' '%s/nccl/'", dir, dir), 0);
    snprintf(args, sizeof args, "reference import '%s/nccl' --dry-run", dir);
    assert_int_equal(cli(args), 0);
    json_t *o = output();
    json_t *t = json_object_get(json_object_get(o, "tables"), "ref_nccl");
    assert_int_equal(json_array_size(json_object_get(t, "added")) +
                         json_array_size(json_object_get(t, "changed")) +
                         json_array_size(json_object_get(t, "removed")),
                     0);
    json_decref(o);

    long long events =
        sql_num("SELECT count(*) FROM webhook_events WHERE type = 'image.compatibility_changed'");
    long long gen = sql_num("SELECT generation FROM ref_generation");
    assert_int_equal(imx_t_system("printf '2.26.2,\"{11}\",11.8,CONFIRMED,"
                                  "https://example.test/nccl-2.26.2,test row\\n'"
                                  " >> '%s/nccl/nccl.csv'",
                                  dir),
                     0);
    assert_int_equal(cli(args), 0);
    o = output();
    t = json_object_get(json_object_get(o, "tables"), "ref_nccl");
    assert_int_equal(json_array_size(json_object_get(t, "added")), 1);
    assert_string_equal(
        json_string_value(json_array_get(json_array_get(json_object_get(t, "added"), 0), 0)),
        "2.26.2");
    assert_int_equal(json_array_size(json_object_get(o, "reports_changed")), 1);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(o, "reports_changed"), 0)),
                     nccl_img);
    json_decref(o);
    assert_int_equal(sql_num("SELECT count(*) FROM ref_nccl"), 5);
    assert_int_equal(sql_num("SELECT generation FROM ref_generation"), gen);

    snprintf(args, sizeof args, "reference import '%s/nccl'", dir);
    assert_int_equal(cli(args), 0);
    o = output();
    /* Only the NCCL 2.26.2 image is looked at (not the 2.21.5 one, nor the rest). */
    assert_int_equal(json_integer_value(json_object_get(o, "reports_checked")), 1);
    assert_int_equal(json_array_size(json_object_get(o, "reports_changed")), 1);
    json_decref(o);
    v = sql_text(q);
    assert_string_equal(v, "false true");
    free(v);
    assert_int_equal(
        sql_num("SELECT count(*) FROM webhook_events WHERE type = 'image.compatibility_changed'"),
        events + 1);
    assert_int_equal(cli(args), 0);
    o = output();
    assert_int_equal(json_array_size(json_object_get(o, "reports_changed")), 0);
    json_decref(o);
    assert_int_equal(
        sql_num("SELECT count(*) FROM webhook_events WHERE type = 'image.compatibility_changed'"),
        events + 1);

    /* A CUDA major of 0 breaks ref_nccl's check: refused, nothing changed. */
    set_cell("nccl", "nccl", "nccl_version", "2.26.2", "cuda_majors", "{0}");
    assert_int_not_equal(cli(args), 0);
    assert_int_equal(sql_num("SELECT count(*) FROM ref_nccl WHERE cuda_majors = '{11}'"), 1);
    /* Restored to NVIDIA's rows: the image is ok again. */
    assert_int_equal(imx_t_system("cp '%s/nccl-all/nccl.csv' '%s/nccl/'", dir, dir), 0);
    assert_int_equal(cli(args), 0);
    v = sql_text(q);
    assert_string_equal(v, "true false");
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(export_then_dry_run_changes_nothing),
        cmocka_unit_test(import_recomputes_reports_once),
        cmocka_unit_test(an_import_rechecks_only_the_images_its_rows_reach),
        cmocka_unit_test(an_nccl_row_imports_and_recomputes_once),
        cmocka_unit_test(an_import_breaking_a_foreign_key_changes_nothing),
        cmocka_unit_test(the_admin_api_imports_the_same_way),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
