/* Fuzz target for the parsers of `imaxe probe` (cli/probe_parse.c) and the webhook verifier
 * (cli/whsig.c): every parser runs on any input and must stay within its bounds. Built with
 * -DIMX_LIBFUZZER for libFuzzer, otherwise a deterministic, bounded self-test for ctest. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "probe_parse.h"
#include "domain/drift.h"
#include "whsig.h"

#define FUZZ_INPUT_MAX 4096

/* A parsed version is short, starts with a digit and holds no space or control character. */
static void check_version(int rc, const char *ver)
{
    if (rc != 0)
        return;
    size_t n = strnlen(ver, IMX_PROBE_VER_MAX);
    CHECK(n > 0 && n < IMX_PROBE_VER_MAX);
    CHECK(ver[0] >= '0' && ver[0] <= '9');
    for (size_t i = 0; i < n; i++)
        CHECK((unsigned char)ver[i] > ' ' && ver[i] != ',');
}

int imx_fuzz_one(const uint8_t *data, size_t size)
{
    char text[FUZZ_INPUT_MAX + 1];
    if (size > FUZZ_INPUT_MAX)
        size = FUZZ_INPUT_MAX;
    memcpy(text, data, size);
    text[size] = '\0';
    char ver[IMX_PROBE_VER_MAX];
    char ver2[IMX_PROBE_VER_MAX];
    check_version(imx_probe_parse_nvrm(text, ver), ver);
    check_version(imx_probe_parse_cuda_json(text, ver), ver);
    check_version(imx_probe_parse_nvcc(text, ver), ver);
    check_version(imx_probe_parse_tool_version(text, ver), ver);
    check_version(imx_probe_parse_kv_line(text, "torch", ver), ver);
    check_version(imx_probe_parse_soname(text, "libcudnn.so.", ver), ver);
    check_version(
        imx_probe_parse_define_version(text, "NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH", ver), ver);
    for (int dpkg = 0; dpkg < 2; dpkg++) {
        json_t *pk = json_array();
        int n = imx_probe_parse_packages(text, dpkg, pk);
        CHECK(n == -1 || (size_t)n == json_array_size(pk));
        CHECK(json_array_size(pk) <= IMX_PROBE_PACKAGES_MAX);
        size_t i;
        json_t *e;
        json_array_foreach(pk, i, e)
        {
            const char *nm = json_string_value(json_object_get(e, "name"));
            const char *v = json_string_value(json_object_get(e, "version"));
            CHECK(nm && *nm && !strchr(nm, ':') && !strchr(nm, '\t') && !strchr(nm, '\n'));
            CHECK(v && *v && strlen(v) <= 128 && !strchr(v, '\n'));
        }
        json_decref(pk);
    }
    static struct imx_probe_gpus gpus;
    int rc = imx_probe_parse_smi_csv(text, &gpus, ver);
    check_version(rc, ver);
    CHECK(gpus.count <= IMX_PROBE_GPUS_MAX);
    CHECK(rc != 0 || gpus.count > 0);
    for (size_t i = 0; i < gpus.count; i++) {
        CHECK(strnlen(gpus.name[i], IMX_PROBE_NAME_MAX) < IMX_PROBE_NAME_MAX);
        char model[IMX_PROBE_NAME_MAX];
        imx_probe_gpu_model(gpus.name[i], model);
        CHECK(strlen(model) <= strlen(gpus.name[i]));
    }
    if (imx_probe_parse_os_release(text, ver, ver2) == 0) {
        CHECK(strnlen(ver, IMX_PROBE_VER_MAX) < IMX_PROBE_VER_MAX);
        CHECK(strnlen(ver2, IMX_PROBE_VER_MAX) < IMX_PROBE_VER_MAX);
        for (const char *p = ver; *p; p++)
            CHECK(!(*p >= 'A' && *p <= 'Z') && (unsigned char)*p >= ' ');
    }
    double secs = -1;
    if (imx_probe_parse_systemd_analyze(text, &secs) == 0)
        CHECK(secs >= 0);
    char model[IMX_PROBE_NAME_MAX];
    imx_probe_gpu_model(text, model);
    CHECK(strnlen(model, IMX_PROBE_NAME_MAX) < IMX_PROBE_NAME_MAX);
    /* The input as a webhook body and as each header: never a match without the key. */
    enum imx_cli_wh_result r = imx_cli_wh_verify("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_1",
                                                 "1614265330", text, text, size, 1614265330, 300);
    CHECK(r != IMX_CLI_WH_OK);
    (void)imx_cli_wh_verify(text, text, text, text, text, size, 0, -1);
    /* Drift on a document made of the input, when it is JSON. */
    json_t *doc = json_loadb(text, size, 0, NULL);
    if (doc) {
        bool drift;
        json_t *rows = imx_drift_rows(doc, doc, &drift);
        CHECK(json_is_array(rows));
        size_t i;
        json_t *row;
        json_array_foreach(rows, i, row)
        {
            const char *st = json_string_value(json_object_get(row, "state"));
            CHECK(st != NULL);
        }
        json_decref(rows);
        json_decref(doc);
    }
    return 0;
}

#ifndef IMX_LIBFUZZER

static const char *const seeds[] = {
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n",
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (x)\n",
    "NVIDIA H100 80GB HBM3, 580.95.05\nNVIDIA A100-SXM4-80GB, 570.124.06\n",
    "name, driver_version\nTesla T4, 535.183.01\n",
    "{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"12.4.1\"}}",
    "Cuda compilation tools, release 13.0, V13.0.88\n",
    "#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 9\n",
    "ID=ubuntu\nVERSION_ID=\"24.04\"\n",
    "NVIDIA Container Toolkit CLI version 1.17.8\n",
    "Version : 3.3.5\nBuild ID : 14\n",
    "python 3.12.3\ntorch 2.9.0+cu130\ntorch_cuda 13.0\n",
    "Startup finished in 2.213s (kernel) + 1min 5.602s (userspace) = 1min 7.815s\n",
    "{\"components\":{\"cuda\":\"13.0\"},\"gpus\":[\"H100\"],\"os\":{\"name\":\"x\"}}",
    "{\"components\":[{\"name\":\"cuda\",\"version\":\"13.0\"}],\"kernel\":\"6.8\"}",
};

static const char alphabet[] = "0123456789.-, :=\n\"{}[]#_abcNVIDIAversion\t";

/* One to six edits, a quarter of them a random byte. */
static void mutate(uint64_t *rng, unsigned char *buf, size_t *len, size_t cap)
{
    for (int e = 1 + (int)imx_fuzz_pick(rng, 6); e > 0; e--) {
        size_t at = *len ? imx_fuzz_pick(rng, *len) : 0;
        switch (imx_fuzz_pick(rng, 4)) {
        case 0:
            if (*len)
                buf[at] = (unsigned char)alphabet[imx_fuzz_pick(rng, sizeof alphabet - 1)];
            break;
        case 1:
            if (*len < cap) {
                memmove(buf + at + 1, buf + at, *len - at);
                buf[at] = (unsigned char)alphabet[imx_fuzz_pick(rng, sizeof alphabet - 1)];
                (*len)++;
            }
            break;
        case 2:
            if (*len) {
                memmove(buf + at, buf + at + 1, *len - at - 1);
                (*len)--;
            }
            break;
        default:
            if (*len)
                buf[at] = (unsigned char)(1 + imx_fuzz_pick(rng, 255));
            break;
        }
    }
}

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),      .cap = FUZZ_INPUT_MAX - 1, .iterations = 200000,
    .rng = 0x2545f4914f6cdd1du, .mutate = mutate,
};

#endif /* IMX_LIBFUZZER */
