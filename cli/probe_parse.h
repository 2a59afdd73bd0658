/* What `imaxe probe` reads, parsed: /proc/driver/nvidia/version, nvidia-smi CSV, the CUDA
 * toolkit's version.json and `nvcc --version`, cuDNN and NCCL version headers, os-release,
 * `nvidia-ctk --version`, the probe's own python3 lines; and GPU names shortened to models (the
 * drift between a node and its image is server/domain/drift.h, shared with the server). Pure: text
 * in, values out, no I/O. */
#ifndef IMX_PROBE_PARSE_H
#define IMX_PROBE_PARSE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define IMX_PROBE_VER_MAX  64        /* a version as the server accepts it (64 characters) */
#define IMX_PROBE_NAME_MAX 96        /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define IMX_PROBE_GPUS_MAX 64        /* GPUs one node reports at most */
#define IMX_PROBE_TEXT_MAX (1 << 20) /* input longer than this is not looked at */

/* Packages one inventory lists at most (the server's limit). */
#define IMX_PROBE_PACKAGES_MAX 5000

/* Appends {name, version} to out for each package of a package manager's listing: with dpkg,
 * lines "STATUS<TAB>NAME<TAB>VERSION" of `dpkg-query -W -f '${db:Status-Abbrev}\t${Package}\t
 * ${Version}\n'`, installed ones only (status "ii"); otherwise "NAME<TAB>VERSION" lines of
 * `rpm -qa --qf`, without rpm's gpg-pubkey entries. A name is cut at ':' (dpkg's architecture,
 * libc6:amd64), duplicates are dropped, lines that are not a name and a version are skipped.
 * Returns how many were appended, or -1 past IMX_PROBE_PACKAGES_MAX. */
int imx_probe_parse_packages(const char *text, bool dpkg, json_t *out);

struct imx_probe_gpus {
    char name[IMX_PROBE_GPUS_MAX][IMX_PROBE_NAME_MAX];
    size_t count;
};

/* Every parser returns 0 with the result written, or -1 (nothing recognisable; out untouched
 * or empty). */

/* The driver version of /proc/driver/nvidia/version's NVRM line, proprietary ("NVIDIA UNIX
 * x86_64 Kernel Module  580.95.05  ...") or open ("NVIDIA UNIX Open Kernel Module for x86_64
 * 580.95.05  Release Build ..."). */
int imx_probe_parse_nvrm(const char *text, char ver[IMX_PROBE_VER_MAX]);

/* `nvidia-smi --query-gpu=name,driver_version --format=csv,noheader`: one "NAME, DRIVER" line
 * per GPU (a header line "name, driver_version" is skipped). Fills gpus and driver (the first
 * GPU's). */
int imx_probe_parse_smi_csv(const char *text, struct imx_probe_gpus *gpus,
                            char driver[IMX_PROBE_VER_MAX]);

/* The toolkit version ("cuda": {"version": "13.0.2"}) of a CUDA version.json. */
int imx_probe_parse_cuda_json(const char *text, char ver[IMX_PROBE_VER_MAX]);

/* The release of `nvcc --version` ("Cuda compilation tools, release 13.0, V13.0.88" -> "13.0":
 * the toolkit's major.minor; V is nvcc's own build). */
int imx_probe_parse_nvcc(const char *text, char ver[IMX_PROBE_VER_MAX]);

/* MAJOR.MINOR.PATCH from "#define <major> N" lines of a C header (cudnn_version.h:
 * CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL; nccl.h: NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH). */
int imx_probe_parse_define_version(const char *text, const char *major, const char *minor,
                                   const char *patch, char ver[IMX_PROBE_VER_MAX]);

/* The version in a shared library's file name: "libcudnn.so.9.1.0" with stem "libcudnn.so." is
 * "9.1.0". At least MAJOR.MINOR.PATCH: "libcudnn.so.9" names no version worth reporting. */
int imx_probe_parse_soname(const char *filename, const char *stem, char ver[IMX_PROBE_VER_MAX]);

/* ID and VERSION_ID of os-release (quoted or not). id is lower case. */
int imx_probe_parse_os_release(const char *text, char id[IMX_PROBE_VER_MAX],
                               char version[IMX_PROBE_VER_MAX]);

/* The first version-looking word after "version" (any case) in a tool's output ("NVIDIA
 * Container Toolkit CLI version 1.17.8", dcgmi -v's "Version : 3.3.9", the EFA installer's
 * "# EFA installer version: 1.34.0"). */
int imx_probe_parse_tool_version(const char *text, char ver[IMX_PROBE_VER_MAX]);

/* The value of "KEY VALUE" line key (the probe's python3 script prints "python 3.12.3",
 * "torch 2.9.0+cu130", "torch_cuda 13.0"). */
int imx_probe_parse_kv_line(const char *text, const char *key, char ver[IMX_PROBE_VER_MAX]);

/* The total of systemd-analyze's "Startup finished in ... = 1min 5.816s" in seconds. */
int imx_probe_parse_systemd_analyze(const char *text, double *seconds);

/* A GPU's model as catalogs name it: "NVIDIA H100 80GB HBM3" -> "H100", "NVIDIA
 * A100-SXM4-80GB" -> "A100", "Tesla T4" -> "T4", "NVIDIA L40S" -> "L40S". */
void imx_probe_gpu_model(const char *name, char model[IMX_PROBE_NAME_MAX]);

#endif
