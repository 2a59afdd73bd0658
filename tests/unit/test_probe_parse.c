/* The parsers of `imaxe probe` on the real formats of what it reads (texts as NVIDIA's tools,
 * the CUDA toolkit, cuDNN, NCCL and distributions write them), and the drift between a node
 * and a published image, as tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "probe_parse.h"
#include "domain/drift.h"

static void nvrm_lines_give_the_driver(void **state)
{
    (void)state;
    static const struct {
        const char *text, *ver; /* NULL ver: not recognised */
    } cases[] = {
        /* The proprietary module. */
        { "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC "
          "2024\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n",
          "550.54.15" },
        /* The open module names its architecture after "for". */
        { "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
          "(dvs-builder@U16-I1-N07-12-3)  Sat Sep 20 00:31:56 UTC 2025\nGCC version:  gcc "
          "version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04) \n",
          "580.95.05" },
        { "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.172.08  Release Build  "
          "(dvs-builder@U16-A24-23-2)  Wed Jul  2 14:59:59 UTC 2025\n",
          "570.172.08" },
        /* A two-part version (GeForce builds). */
        { "NVRM version: NVIDIA UNIX x86_64 Kernel Module  555.58  Tue Jun 25 2024\n", "555.58" },
        { "GCC version:  gcc version 12.3.0\n", NULL },
        { "NVRM version: something else 1.2.3\n", NULL },
        { "NVRM version: NVIDIA UNIX x86_64 Kernel Module\n580.95.05\n", NULL },
        { "", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char ver[IMX_PROBE_VER_MAX] = "";
        int rc = imx_probe_parse_nvrm(cases[i].text, ver);
        if (!cases[i].ver) {
            if (rc == 0)
                fail_msg("case %zu: parsed '%s'", i, ver);
            continue;
        }
        if (rc != 0)
            fail_msg("case %zu: not parsed", i);
        assert_string_equal(ver, cases[i].ver);
    }
}

static void nvidia_smi_csv_gives_gpus_and_driver(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t count;
        const char *first, *driver; /* NULL driver: not recognised */
    } cases[] = {
        { "NVIDIA H100 80GB HBM3, 580.95.05\nNVIDIA H100 80GB HBM3, 580.95.05\n"
          "NVIDIA H100 80GB HBM3, 580.95.05\nNVIDIA H100 80GB HBM3, 580.95.05\n"
          "NVIDIA H100 80GB HBM3, 580.95.05\nNVIDIA H100 80GB HBM3, 580.95.05\n"
          "NVIDIA H100 80GB HBM3, 580.95.05\nNVIDIA H100 80GB HBM3, 580.95.05\n",
          8, "NVIDIA H100 80GB HBM3", "580.95.05" },
        /* With the header line (no noheader), CRLF, and the driver of the first GPU. */
        { "name, driver_version\r\nTesla T4, 535.183.01\r\n", 1, "Tesla T4", "535.183.01" },
        { "NVIDIA A100-SXM4-80GB, 570.124.06", 1, "NVIDIA A100-SXM4-80GB", "570.124.06" },
        /* What nvidia-smi prints when the driver is not loaded. */
        { "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make "
          "sure that the latest NVIDIA driver is installed and running.\n",
          0, NULL, NULL },
        { "NVIDIA H100, [N/A]\n", 0, NULL, NULL },
        { "", 0, NULL, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct imx_probe_gpus g;
        char driver[IMX_PROBE_VER_MAX];
        int rc = imx_probe_parse_smi_csv(cases[i].text, &g, driver);
        if (!cases[i].driver) {
            assert_int_equal(rc, -1);
            assert_int_equal(g.count, 0);
            continue;
        }
        if (rc != 0)
            fail_msg("case %zu: not parsed", i);
        assert_int_equal(g.count, cases[i].count);
        assert_string_equal(g.name[0], cases[i].first);
        assert_string_equal(driver, cases[i].driver);
    }
}

/* The start of a real /usr/local/cuda/version.json (CUDA 12.4.1). */
static const char cuda_json_12_4[] =
    "{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"12.4.1\"\n   },\n"
    "   \"cuda_cccl\" : {\n      \"name\" : \"CUDA C++ Core Compute Libraries\",\n"
    "      \"version\" : \"12.4.127\"\n   },\n   \"cuda_cudart\" : {\n"
    "      \"name\" : \"CUDA Runtime (cudart)\",\n      \"version\" : \"12.4.127\"\n   }\n}\n";

/* `nvcc --version` of the CUDA 13.0 toolkit on the build machine. */
static const char nvcc_13_0[] = "nvcc: NVIDIA (R) Cuda compiler driver\n"
                                "Copyright (c) 2005-2025 NVIDIA Corporation\n"
                                "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\n"
                                "Cuda compilation tools, release 13.0, V13.0.88\n"
                                "Build cuda_13.0.r13.0/compiler.36424714_0\n";

static void cuda_toolkit_versions(void **state)
{
    (void)state;
    char ver[IMX_PROBE_VER_MAX];
    assert_int_equal(imx_probe_parse_cuda_json(cuda_json_12_4, ver), 0);
    assert_string_equal(ver, "12.4.1");
    assert_int_equal(imx_probe_parse_cuda_json("{\"cuda\":{\"version\":\"13.0.2\"}}", ver), 0);
    assert_string_equal(ver, "13.0.2");
    assert_int_equal(imx_probe_parse_cuda_json("{\"cuda_cudart\":{\"version\":\"1\"}}", ver), -1);
    assert_int_equal(imx_probe_parse_cuda_json("{\"cuda\":{\"version\":\"x; rm\"}}", ver), -1);
    assert_int_equal(imx_probe_parse_cuda_json("{\"cuda\":{\"version\":13}}", ver), -1);
    assert_int_equal(imx_probe_parse_cuda_json("not json", ver), -1);
    assert_int_equal(imx_probe_parse_nvcc(nvcc_13_0, ver), 0);
    assert_string_equal(ver, "13.0");
    assert_int_equal(imx_probe_parse_nvcc("Cuda compilation tools, release 12.4, V12.4.131\n", ver),
                     0);
    assert_string_equal(ver, "12.4");
    assert_int_equal(imx_probe_parse_nvcc("nvcc: command not found\n", ver), -1);
}

/* The lines of the real headers that carry the version (cuDNN 9.19.0, NCCL 2.28.9). */
static const char cudnn_h[] = "#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n\n"
                              "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n"
                              "#define CUDNN_PATCHLEVEL 0\n\n#define CUDNN_VERSION (CUDNN_MAJOR"
                              " * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n\n"
                              "#define CUDNN_MAX_SM_MAJOR_NUMBER 12\n";
static const char nccl_h[] = "#include <cuda_runtime.h>\n#define NCCL_MAJOR 2\n"
                             "#define NCCL_MINOR 28\n#define NCCL_PATCH 9\n"
                             "#define NCCL_SUFFIX \"\"\n\n#define NCCL_VERSION_CODE 22809\n";

static void version_headers(void **state)
{
    (void)state;
    char ver[IMX_PROBE_VER_MAX];
    assert_int_equal(imx_probe_parse_define_version(cudnn_h, "CUDNN_MAJOR", "CUDNN_MINOR",
                                                    "CUDNN_PATCHLEVEL", ver),
                     0);
    assert_string_equal(ver, "9.19.0");
    assert_int_equal(
        imx_probe_parse_define_version(nccl_h, "NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH", ver), 0);
    assert_string_equal(ver, "2.28.9");
    /* A header of another library, and one whose macro is an expression. */
    assert_int_equal(imx_probe_parse_define_version(nccl_h, "CUDNN_MAJOR", "CUDNN_MINOR",
                                                    "CUDNN_PATCHLEVEL", ver),
                     -1);
    assert_int_equal(imx_probe_parse_define_version("#define A_MAJOR (X)\n#define A_MINOR 1\n"
                                                    "#define A_PATCH 2\n",
                                                    "A_MAJOR", "A_MINOR", "A_PATCH", ver),
                     -1);
    assert_int_equal(imx_probe_parse_define_version("#define A_MAJOR 1234567890\n"
                                                    "#define A_MINOR 1\n#define A_PATCH 2\n",
                                                    "A_MAJOR", "A_MINOR", "A_PATCH", ver),
                     -1);
}

static void library_file_names(void **state)
{
    (void)state;
    static const struct {
        const char *file, *stem, *ver; /* NULL ver: not a version */
    } cases[] = {
        { "libcudnn.so.9.1.0", "libcudnn.so.", "9.1.0" },
        { "libcudnn.so.8.9.7", "libcudnn.so.", "8.9.7" },
        { "libnccl.so.2.21.5", "libnccl.so.", "2.21.5" },
        { "libcudnn.so.9", "libcudnn.so.", NULL },
        { "libcudnn.so", "libcudnn.so.", NULL },
        { "libcudnn_ops.so.9.1.0", "libcudnn.so.", NULL },
        { "libcudnn.so.9.1.0.bak", "libcudnn.so.", NULL },
        { "libcudnn.so.9..1", "libcudnn.so.", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char ver[IMX_PROBE_VER_MAX] = "";
        int rc = imx_probe_parse_soname(cases[i].file, cases[i].stem, ver);
        if (!cases[i].ver) {
            if (rc == 0)
                fail_msg("%s: parsed '%s'", cases[i].file, ver);
            continue;
        }
        if (rc != 0)
            fail_msg("%s: not parsed", cases[i].file);
        assert_string_equal(ver, cases[i].ver);
    }
}

static void os_release_and_tools(void **state)
{
    (void)state;
    static const struct {
        const char *text, *id, *version; /* NULL id: not recognised */
    } os[] = {
        { "PRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\n"
          "VERSION=\"24.04.1 LTS (Noble Numbat)\"\nVERSION_CODENAME=noble\nID=ubuntu\n"
          "ID_LIKE=debian\n",
          "ubuntu", "24.04" },
        { "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n"
          "VERSION_ID=\"12\"\nVERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n",
          "debian", "12" },
        { "NAME=\"Amazon Linux\"\nVERSION=\"2023\"\nID=\"amzn\"\nID_LIKE=\"fedora\"\n"
          "VERSION_ID=\"2023\"\n",
          "amzn", "2023" },
        { "NAME=\"Rocky Linux\"\nVERSION=\"9.4 (Blue Onyx)\"\nID=\"rocky\"\n"
          "ID_LIKE=\"rhel centos fedora\"\nVERSION_ID=\"9.4\"\n",
          "rocky", "9.4" },
        { "NAME=\"Arch Linux\"\nID=arch\nBUILD_ID=rolling\n", "arch", "rolling" },
        { "NAME=nothing\n", NULL, NULL },
    };
    for (size_t i = 0; i < sizeof os / sizeof os[0]; i++) {
        char id[IMX_PROBE_VER_MAX];
        char v[IMX_PROBE_VER_MAX];
        int rc = imx_probe_parse_os_release(os[i].text, id, v);
        if (!os[i].id) {
            assert_int_equal(rc, -1);
            continue;
        }
        if (rc != 0)
            fail_msg("os case %zu: not parsed", i);
        assert_string_equal(id, os[i].id);
        assert_string_equal(v, os[i].version);
    }
    static const struct {
        const char *text, *ver;
    } tools[] = {
        { "NVIDIA Container Toolkit CLI version 1.17.8\ncommit: "
          "f202b80a9b9d0db00d9b1d73c0128c8962c55f4d\n",
          "1.17.8" },
        { "Version : 3.3.5\nBuild ID : 14\nBuild Date : 2024-02-24\nBuild Type : Release\n",
          "3.3.5" },
        { "\nLocal build info:\nVersion : 4.7.0\nBuild ID : 24637\n", "4.7.0" },
        { "# EFA installer version: 1.34.0\n# Debug packages installed: no\n", "1.34.0" },
        { "nvidia-ctk: command not found\n", NULL },
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        char v[IMX_PROBE_VER_MAX] = "";
        int rc = imx_probe_parse_tool_version(tools[i].text, v);
        if (!tools[i].ver) {
            assert_int_equal(rc, -1);
            continue;
        }
        if (rc != 0)
            fail_msg("tool case %zu: not parsed", i);
        assert_string_equal(v, tools[i].ver);
    }
    const char *py = "python 3.12.3\ntorch 2.9.0+cu130\ntorch_cuda 13.0\n";
    char v[IMX_PROBE_VER_MAX];
    assert_int_equal(imx_probe_parse_kv_line(py, "python", v), 0);
    assert_string_equal(v, "3.12.3");
    assert_int_equal(imx_probe_parse_kv_line(py, "torch", v), 0);
    assert_string_equal(v, "2.9.0+cu130");
    assert_int_equal(imx_probe_parse_kv_line(py, "torch_cuda", v), 0);
    assert_string_equal(v, "13.0");
    assert_int_equal(imx_probe_parse_kv_line("python 3.11.2\n", "torch", v), -1);
    assert_int_equal(imx_probe_parse_kv_line("torch 2.9 evil\n", "torch", v), -1);
}

static void systemd_analyze_totals(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double seconds; /* < 0: not recognised */
    } cases[] = {
        { "Startup finished in 2.213s (kernel) + 5.602s (userspace) = 7.815s \n"
          "graphical.target reached after 5.590s in userspace.\n",
          7.815 },
        { "Startup finished in 4.1s (firmware) + 2.0s (loader) + 1.5s (kernel) + 1min 3.602s "
          "(userspace) = 1min 11.202s\n",
          71.202 },
        { "Startup finished in 812ms (kernel) + 2.2s (initrd) + 9.1s (userspace) = 12.112s\n",
          12.112 },
        { "Startup finished in 1h 2min 3s (userspace) = 1h 2min 3s\n", 3723 },
        { "Bootup is not yet finished (org.freedesktop.systemd1.Manager.FinishTimestampMonotonic"
          "=0).\n",
          -1 },
        { "Startup finished in 2s (kernel) = 7fortnights\n", -1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double s = -1;
        int rc = imx_probe_parse_systemd_analyze(cases[i].text, &s);
        if (cases[i].seconds < 0) {
            assert_int_equal(rc, -1);
            continue;
        }
        if (rc != 0)
            fail_msg("case %zu: not parsed", i);
        assert_true(s > cases[i].seconds - 1e-6 && s < cases[i].seconds + 1e-6);
    }
}

static void gpu_names_become_models(void **state)
{
    (void)state;
    static const struct {
        const char *name, *model;
    } cases[] = {
        { "NVIDIA H100 80GB HBM3", "H100" },
        { "NVIDIA A100-SXM4-80GB", "A100" },
        { "NVIDIA A100-PCIE-40GB", "A100" },
        { "Tesla T4", "T4" },
        { "NVIDIA L40S", "L40S" },
        { "NVIDIA A10G", "A10G" },
        { "NVIDIA H200", "H200" },
        { "NVIDIA B200", "B200" },
        { "NVIDIA GH200 480GB", "GH200" },
        { "NVIDIA H100 PCIe", "H100" },
        { "NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX PRO 6000 Blackwell Server Edition" },
        { "Tesla V100-SXM2-16GB", "V100" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char model[IMX_PROBE_NAME_MAX];
        imx_probe_gpu_model(cases[i].name, model);
        if (strcmp(model, cases[i].model) != 0)
            fail_msg("'%s': got '%s', expected '%s'", cases[i].name, model, cases[i].model);
    }
}

/* An image with two driver trees (one loaded at boot by the GPU): the node matches when it runs
 * either, and the row says which; an OS package older on the node than in the image is drift,
 * a newer one (a patch taken) is not. */
static void drift_dual_driver_and_packages(void **state)
{
    (void)state;
    json_t *image =
        json_loads("{\"os\":{\"name\":\"ubuntu\",\"version\":\"24.04\"},\"components\":["
                   "{\"name\":\"nvidia-driver\",\"version\":\"570.195.03\",\"gpus\":[\"T4\"]},"
                   "{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\",\"gpus\":[\"H100\"]}],"
                   "\"packages\":[{\"name\":\"openssl\",\"version\":\"3.0.13-0ubuntu3.5\"},"
                   "{\"name\":\"libc6\",\"version\":\"2.39-0ubuntu8.4\"}]}",
                   0, NULL);
    static const struct {
        const char *driver, *openssl, *state, *image;
        bool drift;
    } cases[] = {
        { "580.95.05", "3.0.13-0ubuntu3.5", "same", "580.95.05", false },
        { "570.195.03", "3.0.13-0ubuntu3.5", "same", "570.195.03", false },
        { "575.57.08", "3.0.13-0ubuntu3.5", "differs", "570.195.03", true },
        { "580.95.05", "3.0.13-0ubuntu3.4", "same", "580.95.05", true },   /* older openssl */
        { "580.95.05", "3.0.13-0ubuntu3.10", "same", "580.95.05", false }, /* newer: patched */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *node =
            json_pack("{s:{s:s, s:s}, s:[{s:s, s:s}], s:[{s:s, s:s}]}", "os", "name", "ubuntu",
                      "version", "24.04", "components", "name", "nvidia-driver", "version",
                      cases[i].driver, "packages", "name", "openssl", "version", cases[i].openssl);
        bool drift = false;
        json_t *rows = imx_drift_rows(node, image, &drift);
        json_t *d = json_array_get(rows, 0);
        assert_string_equal(json_string_value(json_object_get(d, "name")), "nvidia-driver");
        assert_string_equal(json_string_value(json_object_get(d, "state")), cases[i].state);
        assert_string_equal(json_string_value(json_object_get(d, "image")), cases[i].image);
        assert_int_equal(json_array_size(json_object_get(d, "image_versions")), 2);
        if (drift != cases[i].drift)
            fail_msg("case %zu: drift %d, expected %d", i, drift, cases[i].drift);
        json_t *changes = imx_drift_changes(rows);
        assert_int_equal(json_array_size(changes) > 0, cases[i].drift);
        json_decref(changes);
        json_decref(rows);
        json_decref(node);
    }
    json_decref(image);
}

static void drift_compares_component_by_component(void **state)
{
    (void)state;
    /* The image as GET /v1/images/{id} spells it (components as an object). */
    json_t *image = json_loads(
        "{\"id\":4,\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":\"24.04\"},"
        "\"kernel\":\"6.8.0-1015-aws\",\"gpus\":[\"H100\",\"nvidia-h200\"],"
        "\"components\":{\"cuda\":\"13.0.1\",\"nvidia-driver\":\"580.82.07\","
        "\"cudnn\":\"9.13.0\",\"dcgm\":\"3.3.9\"}}",
        0, NULL);
    /* The node as the probe prints it (components as a manifest array). */
    json_t *node = json_loads(
        "{\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":\"24.04\"},"
        "\"kernel\":\"6.8.0-1016-aws\",\"gpus\":[\"H200\"],\"components\":["
        "{\"name\":\"cuda\",\"version\":\"13.0\"},{\"name\":\"nvidia-driver\",\"version\":"
        "\"580.95.05\"},{\"name\":\"cudnn\",\"version\":\"9.13.0\"},{\"name\":\"python\","
        "\"version\":\"3.12.3\"}]}",
        0, NULL);
    bool drift = false;
    json_t *rows = imx_drift_rows(node, image, &drift);
    assert_true(drift);
    static const struct {
        const char *name, *state;
    } want[] = {
        { "cuda", "same" }, /* 13.0 from nvcc is a prefix of 13.0.1 */
        { "nvidia-driver", "differs" },
        { "cudnn", "same" },
        { "dcgm", "missing" },
        { "python", "extra" },
        { "architecture", "same" },
        { "os", "same" },
        { "kernel", "differs" },
        { "gpu", "same" }, /* nvidia-h200 and H200 are one model */
    };
    assert_int_equal(json_array_size(rows), sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        json_t *r = json_array_get(rows, i);
        assert_string_equal(json_string_value(json_object_get(r, "name")), want[i].name);
        if (strcmp(json_string_value(json_object_get(r, "state")), want[i].state) != 0)
            fail_msg("%s: %s, expected %s", want[i].name,
                     json_string_value(json_object_get(r, "state")), want[i].state);
    }
    json_decref(rows);
    /* The same stack is no drift; an extra component alone is none either. */
    json_t *same = json_loads(
        "{\"architecture\":\"x86_64\",\"components\":[{\"name\":\"cuda\",\"version\":\"13.0.1\"},"
        "{\"name\":\"python\",\"version\":\"3.12.3\"}]}",
        0, NULL);
    json_t *img2 =
        json_loads("{\"architecture\":\"x86_64\",\"components\":{\"cuda\":\"13.0.1\"}}", 0, NULL);
    rows = imx_drift_rows(same, img2, &drift);
    assert_false(drift);
    json_decref(rows);
    /* A GPU the image does not list is drift. */
    json_object_set_new(img2, "gpus", json_pack("[s]", "L4"));
    json_object_set_new(same, "gpus", json_pack("[s]", "H100"));
    rows = imx_drift_rows(same, img2, &drift);
    assert_true(drift);
    json_decref(rows);
    assert_true(imx_drift_version_matches("13.0", "13.0.2"));
    assert_false(imx_drift_version_matches("13.0", "13.01"));
    assert_false(imx_drift_version_matches("580.95", "580.9"));
    json_decref(same);
    json_decref(img2);
    json_decref(node);
    json_decref(image);
}

static void package_listings(void **state)
{
    (void)state;
    json_t *out = json_array();
    /* dpkg-query -W -f '${db:Status-Abbrev}\t${Package}\t${Version}\n' */
    assert_int_equal(
        imx_probe_parse_packages("ii \topenssl\t3.0.13-0ubuntu3.5\n"
                                 "rc \tnvidia-driver-550\t550.127.05-0ubuntu0.24.04.1\n"
                                 "ii \tlibc6:amd64\t2.39-0ubuntu8.3\r\n"
                                 "ii \tlibc6:i386\t2.39-0ubuntu8.3\n"
                                 "garbage\n\n"
                                 "ii \tzlib1g\t1:1.3.dfsg-3.1ubuntu2",
                                 true, out),
        3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(out, 1), "name")),
                        "libc6");
    assert_string_equal(json_string_value(json_object_get(json_array_get(out, 2), "version")),
                        "1:1.3.dfsg-3.1ubuntu2");
    json_array_clear(out);
    /* rpm -qa --qf '%{NAME}\t%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\n' */
    assert_int_equal(imx_probe_parse_packages("openssl-libs\t1:3.0.7-28.el9_4\n"
                                              "gpg-pubkey\t8483c65d-5ccc5b19\n"
                                              "kernel\t5.14.0-427.13.1.el9_4\n"
                                              "kernel\t5.14.0-503.11.1.el9_5\n",
                                              false, out),
                     3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(out, 2), "version")),
                        "5.14.0-503.11.1.el9_5");
    json_decref(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nvrm_lines_give_the_driver),
        cmocka_unit_test(nvidia_smi_csv_gives_gpus_and_driver),
        cmocka_unit_test(cuda_toolkit_versions),
        cmocka_unit_test(version_headers),
        cmocka_unit_test(library_file_names),
        cmocka_unit_test(os_release_and_tools),
        cmocka_unit_test(systemd_analyze_totals),
        cmocka_unit_test(gpu_names_become_models),
        cmocka_unit_test(drift_compares_component_by_component),
        cmocka_unit_test(drift_dual_driver_and_packages),
        cmocka_unit_test(package_listings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
