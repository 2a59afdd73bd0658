/* The GPU knowledge of migrations/0016_knowledge.sql through the real server: each new rule once
 * on POST /v1/compat/check against the shipped reference rows (not test copies), with its source,
 * and the new rows over GET /v1/reference. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_t_compat ct;
/* its database (the name the SQL checks here use) */
static const char *const db = ct.db;

static int setup(void **state)
{
    (void)state;
    return imx_t_compat_up(&ct, "knowledge");
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_compat_down(&ct);
}

/* The report of a stack; a new reference. */
static json_t *check(const char *components, const char *gpus)
{
    return imx_t_compat_check(&ct, components, gpus);
}

/* The finding with code in report, or NULL. */
static json_t *finding(json_t *report, const char *code)
{
    return imx_t_compat_finding(report, code);
}

#define C(n, v) IMX_T_COMPONENT(n, v)

static void each_new_rule_fires_on_the_shipped_rows(void **state)
{
    (void)state;
    static const struct {
        const char *what, *components, *gpus, *code, *severity, *source_part, *message_part;
        bool ok;
    } cases[] = {
        { "cuDNN 9.5.1 has no Blackwell kernels: forward-compatibility mode only",
          "[" C("nvidia-driver", "570.133.20") "," C("cuda", "12.8.0") "," C("cudnn",
                                                                             "9.5.1.17") "]",
          "[\"B200\"]", "cudnn_gpu_forward_compat", "warning", "cudnn/backend/v9.5.1", "9.0",
          true },
        /* The five misses of issue #31, each now right from the shipped rows (0110-0113). */
        { "an H20 (Hopper) needs CUDA 11.8", "[" C("cuda", "11.7.1") "]", "[\"NVIDIA H20\"]",
          "gpu_too_new_for_cuda", "error", "nvidia.com", "11.8", false },
        { "CUDA 13.0 dropped the Jetson AGX Xavier (Volta 7.2)", "[" C("cuda", "13.0.0") "]",
          "[\"Jetson AGX Xavier\"]", "gpu_dropped_by_cuda", "error", "architecture-matrix",
          "Jetson AGX Xavier", false },
        { "R470 is Kepler's last branch: a K40 on R525 cannot run",
          "[" C("nvidia-driver", "525.147.05") "]", "[\"Tesla K40\"]", "gpu_dropped_by_driver",
          "error", "architecture-matrix", "R470", false },
        { "PyTorch 2.8 cu128 wheels have no Pascal kernels",
          "[" C("nvidia-driver", "570.133.20") "," C("pytorch", "2.8.0+cu128") "]",
          "[\"Tesla P100\"]", "framework_gpu_arch_unsupported", "error", "build_cuda.sh", "6.0",
          false },
        { "PyTorch 2.11 cu128 wheels left Volta out again",
          "[" C("nvidia-driver", "570.133.20") "," C("pytorch", "2.11.0+cu128") "]", "[\"V100\"]",
          "framework_gpu_arch_unsupported", "error", "pull/175253", "7.5", false },
        { "PyTorch 2.3's cu121 wheels have no Kepler kernels (only cu118 kept 3.7)",
          "[" C("nvidia-driver", "535.183.01") "," C("pytorch", "2.3.1+cu121") "]",
          "[\"Tesla K80\"]", "framework_gpu_arch_unsupported", "error", "pytorch/builder", "3.7",
          false },
        { "TensorFlow 2.18 is built against cuDNN 9",
          "[" C("tensorflow", "2.18.0") "," C("cuda", "12.5.1") "," C("cudnn", "8.9.7.29") "]",
          "[]", "framework_cudnn_major_mismatch", "error", "tensorflow", "libcudnn.so.9", false },
        /* ref_jax (0114/0115, from tools/reference/sources/jax-cuda.txt) */
        { "jax[cuda13] needs R580 on Linux",
          "[" C("nvidia-driver", "575.57.08") "," C("jax-cuda13-plugin", "0.7.1") "]", "[]",
          "framework_driver_too_old", "error", "jax-ml/jax", "R580", false },
        { "jax[cuda13] supports SM 7.5 or newer",
          "[" C("nvidia-driver", "580.65.06") "," C("jax-cuda13-plugin", "0.7.1") "]", "[\"V100\"]",
          "framework_gpu_arch_unsupported", "error", "jax-ml/jax", "7.5", false },
        { "cuDNN 9.17.0 lists 10.0 and 12.0, not B300's 10.3",
          "[" C("cuda", "13.0.0") "," C("cudnn", "9.17.0.29") "]", "[\"B300\"]",
          "cudnn_gpu_forward_compat", "warning", "support-matrix", "10.3", true },
        { "cuDNN 9.5.1's CUDA 12 build stops at 12.6",
          "[" C("cuda", "12.8.0") "," C("cudnn", "9.5.1.17") "]", "[\"H100\"]",
          "cudnn_cuda_minor_unsupported", "warning", "cudnn/backend/v9.5.1", "12.6", true },
        { "cuDNN 9.17.0 dropped Volta", "[" C("cuda", "12.9.1") "," C("cudnn", "9.17.0.29") "]",
          "[\"Tesla V100-SXM2-16GB\"]", "cudnn_gpu_unsupported", "error", "cudnn-support-matrix",
          "7.5", false },
        { "PyTorch 2.4 has no Python 3.13 wheels",
          "[" C("pytorch", "2.4.1") "," C("python", "3.13.1") "]", "[]",
          "python_unsupported_by_framework", "error", "pytorch/blob/main/RELEASE.md", "3.12",
          false },
        { "TensorFlow 2.15 is tested up to Python 3.11",
          "[" C("tensorflow", "2.15.0") "," C("python", "3.12.3") "]", "[]",
          "python_unsupported_by_framework", "error", "tensorflow", "3.11", false },
        { "a +cu130 wheel needs R580 on a CUDA 12.8 host",
          "[" C("nvidia-driver", "575.57.08") "," C("cuda", "12.8.0") "," C("pytorch",
                                                                            "2.9.0+cu130") "]",
          "[]", "driver_too_old_for_cuda", "error", "cuda-toolkit-release-notes", "PyTorch",
          false },
        { "a +cu126 wheel has no Blackwell kernels on a CUDA 12.8 host",
          "[" C("nvidia-driver", "570.133.20") "," C("cuda", "12.8.0") "," C("pytorch",
                                                                             "2.7.1+cu126") "]",
          "[\"B200\"]", "gpu_too_new_for_cuda", "error", "cuda-features-archive", "own CUDA 12.6",
          false },
        { "CUDA 13.5 is unknown but needs the 13.x floor",
          "[" C("nvidia-driver", "575.57.08") "," C("cuda", "13.5.0") "]", "[]",
          "driver_below_cuda_major_floor", "error", "cuda-toolkit-release-notes", "580.65.06",
          false },
        { "CUDA 13.4.1's driver is unconfirmed: only the floor was checked",
          "[" C("nvidia-driver", "580.95.05") "," C("cuda", "13.4.1") "]", "[]",
          "unknown_component_version", "info", "cuda-toolkit-release-notes", "exact minimum",
          true },
        /* CUDA 12.9 added 10.3 and 12.1; 12.8's sm_100 / sm_120 code runs on them by binary
         * compatibility (same major, lower minor): a warning naming the capability it falls on. */
        { "B300 (10.3) arrived with CUDA 12.9; CUDA 12.8's sm_100 code runs on it",
          "[" C("cuda", "12.8.1") "]", "[\"B300\"]", "gpu_cc_binary_compat", "warning",
          "cuda-features-archive", "12.9", true },
        { "GB10 (12.1) is known now, and arrived with CUDA 12.9", "[" C("cuda", "12.8.1") "]",
          "[\"DGX Spark\"]", "gpu_cc_binary_compat", "warning", "cuda-features-archive",
          "compute capability 12.0", true },
        { "Jetson Thor (11.0) needs CUDA 13", "[" C("cuda", "12.9.1") "]", "[\"Jetson AGX Thor\"]",
          "gpu_too_new_for_cuda", "error", "cuda-features-archive", "13.0", false },
        { "the Tesla P100 is known now: CUDA 13 dropped Pascal", "[" C("cuda", "13.0.2") "]",
          "[\"Tesla P100-PCIE-16GB\"]", "gpu_dropped_by_cuda", "error", "architecture-matrix",
          "P100", false },
        { "R610's end of life is NVIDIA's August 2026", "[" C("nvidia-driver", "610.57.04") "]",
          "[]", "driver_branch_eol", "warning", "drivers/615/", "2026-08-01", true },
        { "an unconfirmed cuDNN row is a warning, never an error",
          "[" C("cuda", "11.8.0") "," C("cudnn", "9.15.1.9") "]", "[]", "cudnn_cuda_major_mismatch",
          "warning", "anaconda.org", "unconfirmed", true },
        /* ref_nccl (migrations 0055/0056, from tools/reference/nccl.csv) */
        { "NCCL 2.12.12 has no CUDA 12 build", "[" C("cuda", "12.4.1") "," C("nccl", "2.12.12") "]",
          "[]", "nccl_cuda_major_mismatch", "error", "compute/redist/nccl/v2.12",
          "10.2, 11.0, 11.6", false },
        { "NCCL 2.30.7 has no CUDA 11 build, also for a wheel's own CUDA",
          "[" C("pytorch", "2.5.1+cu118") "," C("nccl", "2.30.7-1") "]", "[]",
          "nccl_cuda_major_mismatch", "error", "compute/redist/nccl/v2.30.7", "12.9, 13.3", false },
        /* ref_dcgm (migrations 0057/0058, from tools/reference/dcgm.csv) */
        { "DCGM 3.1 needs 450.80.02",
          "[" C("nvidia-driver", "450.51.06") "," C("dcgm", "3.1.8") "]", "[]",
          "dcgm_driver_too_old", "error", "dcgm/3.1/release-notes", "450.80.02", false },
        { "DCGM 2.0 needs R418", "[" C("nvidia-driver", "410.129") "," C("dcgm", "2.0.15") "]",
          "[]", "dcgm_driver_too_old", "error", "dcgm/2.0/dcgm-release-notes", "R418", false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *rep = check(cases[i].components, cases[i].gpus);
        json_t *f = finding(rep, cases[i].code);
        if (!f)
            fail_msg("%s: no %s in %s", cases[i].what, cases[i].code, json_dumps(rep, 0));
        const char *sev = json_string_value(json_object_get(f, "severity"));
        const char *src = json_string_value(json_object_get(f, "source"));
        const char *msg = json_string_value(json_object_get(f, "message"));
        if (strcmp(sev, cases[i].severity) != 0 || !src || !strstr(src, cases[i].source_part) ||
            !strstr(msg, cases[i].message_part) ||
            json_is_true(json_object_get(rep, "ok")) != cases[i].ok)
            fail_msg("%s: %s", cases[i].what, json_dumps(rep, 0));
        json_decref(rep);
    }
    /* NCCL fits: 2.10.3 has a CUDA 11 build; a release ref_nccl does not hold is not checked. */
    json_t *fits = check("[" C("cuda", "11.8.0") "," C("nccl", "2.10.3") "]", "[]");
    assert_null(finding(fits, "nccl_cuda_major_mismatch"));
    json_decref(fits);
    fits = check("[" C("cuda", "12.8.1") "," C("nccl", "2.26.2") "]", "[]");
    assert_int_equal(json_array_size(json_object_get(fits, "findings")), 0);
    json_decref(fits);
    /* DCGM fits: 3.0 on exactly 450.80.02; 3.3 is not a row, so it is not checked. */
    fits = check("[" C("nvidia-driver", "450.80.02") "," C("dcgm", "3.0.4") "]", "[]");
    assert_null(finding(fits, "dcgm_driver_too_old"));
    json_decref(fits);
    fits = check("[" C("nvidia-driver", "450.51.06") "," C("dcgm", "3.3.9") "]", "[]");
    assert_null(finding(fits, "dcgm_driver_too_old"));
    json_decref(fits);
    /* A +cu128 wheel's sm_100 / sm_120 cubins run on a B300 (10.3) and a GB10 (12.1) by binary
     * compatibility: no gpu_too_new_for_cuda (it was a false positive) and no arch finding. */
    fits = check("[" C("nvidia-driver", "580.65.06") "," C("pytorch", "2.8.0+cu128") "]",
                 "[\"B300\", \"GB10\"]");
    assert_null(finding(fits, "gpu_too_new_for_cuda"));
    assert_null(finding(fits, "gpu_cc_binary_compat"));
    assert_null(finding(fits, "framework_gpu_arch_unsupported"));
    assert_true(json_is_true(json_object_get(fits, "ok")));
    json_decref(fits);
    /* PyTorch 2.10's cu128 wheels still carry Volta (it left in 2.11). */
    fits = check("[" C("nvidia-driver", "570.133.20") "," C("pytorch", "2.10.0+cu128") "]",
                 "[\"V100\"]");
    assert_null(finding(fits, "framework_gpu_arch_unsupported"));
    json_decref(fits);
    /* A GPU that was unknown before 0016 gets no unknown_gpu finding. */
    json_t *rep = check("[" C("cuda", "12.8.0") "]", "[\"NVIDIA L40\", \"A30\", \"RTX 5090\"]");
    assert_null(finding(rep, "unknown_gpu"));
    assert_true(json_is_true(json_object_get(rep, "ok")));
    json_decref(rep);
}

/* Rows of a reference table whose column is value (every row when value is NULL), read page by
 * page (7 rows a page, so every table takes several and the cursor crosses composite keys). */
static size_t rows(const char *table, const char *column, const char *value)
{
    char path[1024];
    size_t n = 0, pages = 0;
    snprintf(path, sizeof path, "/v1/reference/%s?limit=7", table);
    for (;;) {
        struct imx_res res;
        assert_int_equal(imx_t_http_as(&ct.srv, ct.admin, "GET", path, NULL, &res), 0);
        assert_int_equal(res.status, 200);
        size_t i;
        json_t *r;
        assert_true(json_array_size(json_object_get(res.json, "items")) <= 7);
        json_array_foreach(json_object_get(res.json, "items"), i, r)
        {
            const char *v = json_string_value(json_object_get(r, column));
            n += !value || (v && strcmp(v, value) == 0);
        }
        const char *next = json_string_value(json_object_get(res.json, "next_cursor"));
        char link[16];
        assert_true(!next == !imx_t_header(&res, "Link", link, sizeof link));
        if (next)
            snprintf(path, sizeof path, "/v1/reference/%s?limit=7&cursor=%s", table, next);
        imx_t_res_free(&res);
        assert_true(++pages < 200);
        if (!next)
            break;
    }
    return n;
}

/* Every GPU of NVIDIA's compute-capability lists (tools/reference/sources/cuda-gpus.txt, the
 * source migration 0111 is generated from) is known by the name NVIDIA lists it under: no
 * unknown_gpu finding for any of them, eight at a time. */
static void every_listed_gpu_is_known(void **state)
{
    (void)state;
    const char *dir = getenv("IMX_TEST_SOURCE_DIR");
    assert_non_null(dir);
    char path[1024], line[512], gpus[2048] = "[";
    snprintf(path, sizeof path, "%s/tools/reference/sources/cuda-gpus.txt", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = 0, in_batch = 0;
    for (;;) {
        bool more = fgets(line, sizeof line, f) != NULL;
        if (more && (line[0] < '0' || line[0] > '9'))
            continue;
        if (more) {
            char *name = strchr(line, '|');
            name = name ? strchr(name + 1, '|') : NULL;
            assert_non_null(name);
            char *end = strchr(++name, '|');
            assert_non_null(end);
            *end = '\0';
            size_t used = strlen(gpus);
            snprintf(gpus + used, sizeof gpus - used, "%s\"%s\"", in_batch ? "," : "", name);
            in_batch++;
            n++;
        }
        if (in_batch == 8 || (!more && in_batch > 0)) {
            strcat(gpus, "]");
            json_t *rep = check("[]", gpus);
            if (finding(rep, "unknown_gpu"))
                fail_msg("a listed GPU is unknown: %s", json_dumps(rep, 0));
            json_decref(rep);
            snprintf(gpus, sizeof gpus, "[");
            in_batch = 0;
        }
        if (!more)
            break;
    }
    fclose(f);
    /* 161 here, and the 5 of gpus-outside-nvidia-list.txt: tests/reference/test_coverage.py
     * holds the sources to 166 */
    assert_true(n >= 161);
}

static void new_rows_carry_sources_and_statuses(void **state)
{
    (void)state;
    /* Issue 31 (0310-0314): every capability NVIDIA lists (21); cuDNN 9.22.0 and 9.24.0 read from
     * NVIDIA's manifests (8 left known by existence only); CUDA 13.4.2 added without its Table-3
     * driver; R615 typed NFB (SECONDARY), so no branch is UNCONFIRMED. */
    assert_int_equal(rows("compute_capability", NULL, NULL), 21);
    assert_int_equal(rows("cudnn", "status", "UNCONFIRMED"), 8);
    assert_int_equal(rows("cudnn", NULL, NULL), 55);
    assert_int_equal(rows("cuda_driver", "status", "UNCONFIRMED"), 3);
    assert_int_equal(rows("driver_branch", "status", "UNCONFIRMED"), 0);
    assert_int_equal(rows("nccl", "status", "CONFIRMED"), 5);
    assert_int_equal(rows("nccl", NULL, NULL), 5);
    assert_int_equal(rows("dcgm", "status", "CONFIRMED"), 4);
    assert_int_equal(rows("jax", "status", "CONFIRMED"), 2);
    /* GET /v1/reference lists every table with its rows (17 with ref_jax, ref_nvidia_product,
     * ref_version_alias and ref_commit_release), ref_nccl among them. */
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&ct.srv, ct.admin, "GET", "/v1/reference", NULL, &res), 0);
    assert_int_equal(res.status, 200);
    json_t *tables = json_object_get(res.json, "tables"), *t;
    size_t i, seen = 0;
    assert_int_equal(json_array_size(tables), 17);
    json_array_foreach(tables, i, t)
    {
        const char *name = json_string_value(json_object_get(t, "name"));
        assert_non_null(name);
        if (strcmp(name, "nccl") == 0) {
            assert_int_equal(json_integer_value(json_object_get(t, "rows")), 5);
            seen++;
        }
    }
    assert_int_equal(seen, 1);
    imx_t_res_free(&res);
    char *n = imx_t_sql(db, "SELECT count(*) FROM ref_gpu WHERE gpu_model IN ('GB10', 'L40', 'A40',"
                            " 'A16', 'A2', 'A30', 'Jetson AGX Orin', 'Jetson Orin NX',"
                            " 'Jetson Orin Nano', 'Jetson T5000', 'Jetson T4000', 'P100', 'P40',"
                            " 'P4', 'M60', 'M40', 'K80') AND source LIKE 'https://%'");
    assert_string_equal(n, "17");
    free(n);
    n = imx_t_sql(db, "SELECT eol || ' ' || eol_basis || ' ' || eol_endoflife_date"
                      " FROM ref_driver_branch WHERE branch = 610");
    assert_string_equal(n, "2026-08-01 nvidia 2027-08-03");
    free(n);
    /* R620's fields from NVIDIA's driver manifest (migrations/0035, generated from
     * tools/reference/knowledge_facts.csv); its first release stays unknown. */
    n = imx_t_sql(db, "SELECT latest_version || ' ' || latest_version_date || ' ' || native_cuda"
                      " || ' ' || coalesce(first_release::text, 'unknown') || ' '"
                      " || (source LIKE '%redistrib_620.70.06.json%') || ' '"
                      " || (notes LIKE '%native_cuda = 13.5 (SECONDARY%')"
                      " FROM ref_driver_branch WHERE branch = 620");
    assert_string_equal(n, "620.70.06 2026-11-04 13.5 unknown true true");
    free(n);
}

/* Issue 31's tables, whole (0310-0314), as migrated: one SQL answer per fact, each from a row. */
static void lists_whole_as_migrated(void **state)
{
    (void)state;
    static const struct {
        const char *sql, *want;
    } cases[] = {
        /* Every cuDNN release has a set: 8 read from its own matrix, 9.1.0 from a verbatim copy of
         * its matrix (SECONDARY), 46 DERIVED (UNCONFIRMED). */
        { "SELECT count(*) FILTER (WHERE cc_list_status = 'CONFIRMED') || ' ' ||"
          " count(*) FILTER (WHERE cc_list_status = 'UNCONFIRMED') || ' ' ||"
          " count(*) FILTER (WHERE cc_list IS NULL) FROM ref_cudnn",
          "8 46 0" },
        { "SELECT array_to_string(cc_list, ';') || ' ' || cc_list_status FROM ref_cudnn"
          " WHERE cudnn_version = '9.17.0'",
          "7.5;8.0;8.6;8.9;9.0;10.0;12.0 CONFIRMED" },
        /* A release only its manifest named is a row, its set derived. */
        { "SELECT release_date || ' ' || array_to_string(cuda_majors, ',') || ' ' || status || ' '"
          " || cc_list_status || ' ' || forward_compat FROM ref_cudnn WHERE cudnn_version = "
          "'9.28.1'",
          "2026-11-06 12,13 PARTIAL UNCONFIRMED true" },
        { "SELECT string_agg(cudnn_version || '=' || forward_compat, ' ' ORDER BY "
          "cudnn_version_key)"
          " FROM ref_cudnn WHERE cudnn_version IN ('8.9.7', '9.0.0')",
          "8.9.7=false 9.0.0=true" },
        /* What each toolkit builds for: first_cuda <= toolkit < dropped_cuda. */
        { "SELECT string_agg(compute_capability::text, ',' ORDER BY compute_capability)"
          " FROM ref_compute_capability WHERE dropped_cuda = '13.0'",
          "5.0,5.2,5.3,6.0,6.1,6.2,7.0,7.2" },
        { "SELECT string_agg(compute_capability::text, ',' ORDER BY compute_capability)"
          " FROM ref_compute_capability WHERE first_cuda_key <= imx_version_key('12.9')"
          " AND (dropped_cuda IS NULL OR dropped_cuda_key > imx_version_key('12.9'))"
          " AND compute_capability >= 10",
          "10.0,10.3,12.0,12.1" },
        { "SELECT first_cuda || ' ' || status FROM ref_compute_capability"
          " WHERE compute_capability = 8.7",
          "11.4 UNCONFIRMED" },
        /* R615 typed; the architectures of a branch follow the first and last branches. */
        { "SELECT branch_type || ' ' || type_basis || ' ' || status FROM ref_driver_branch"
          " WHERE branch = 615",
          "NFB nvidia_support_page_omission SECONDARY" },
        { "SELECT string_agg(branch || ':' || array_to_string(architectures, ','), ' '"
          " ORDER BY branch) FROM ref_driver_branch WHERE branch IN (470, 525, 580, 590)",
          "470:Kepler,Maxwell,Pascal,Volta,Turing,Ampere"
          " 525:Maxwell,Pascal,Volta,Turing,Ampere,Ada,Hopper"
          " 580:Maxwell,Pascal,Volta,Turing,Ampere,Ada,Hopper,Blackwell"
          " 590:Turing,Ampere,Ada,Hopper,Blackwell" },
        { "SELECT count(*) FROM ref_driver_branch WHERE branch >= 450"
          " AND (branch_type IS NULL OR architectures IS NULL)",
          "0" },
        { "SELECT coalesce(linux_driver_min, 'none') || ' ' || mvc_driver_min || ' ' || status"
          " FROM ref_cuda_driver WHERE cuda_version = '13.4.2'",
          "none 580.65.06 UNCONFIRMED" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = imx_t_sql(db, cases[i].sql);
        if (!got || strcmp(got, cases[i].want) != 0)
            fail_msg("%s\n got  %s\n want %s", cases[i].sql, got ? got : "(null)", cases[i].want);
        free(got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_new_rule_fires_on_the_shipped_rows),
        cmocka_unit_test(new_rows_carry_sources_and_statuses),
        cmocka_unit_test(every_listed_gpu_is_known),
        cmocka_unit_test(lists_whole_as_migrated),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
