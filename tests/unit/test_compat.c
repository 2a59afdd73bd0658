/* Unit tests for server/domain/compat.c: every rule, positively and negatively at its boundary,
 * as a table of stacks checked against real reference rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "domain/compat.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Reference rows copied from migrations/0003_reference.sql and 0016_knowledge.sql (the columns the
 * validator reads; the source column cut to its first URL). Keep them in step with the
 * migrations. */
#define SRC_CUDA "https://docs.nvidia.com/cuda/archive/13.2.2/cuda-toolkit-release-notes/index.html"
#define SRC_MVC  "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"
#define SRC_ARCH                                                                                   \
    "https://docs.nvidia.com/datacenter/tesla/drivers/"                                            \
    "cuda-toolkit-driver-and-architecture-matrix.html"
#define SRC_GPU    "https://developer.nvidia.com/cuda-gpus"
#define SRC_BRANCH "https://github.com/endoflife-date/endoflife.date"
#define SRC_CUDNN  "https://developer.download.nvidia.com/compute/cudnn/redist/"
#define SRC_TORCH  "https://github.com/pytorch/pytorch/blob/main/RELEASE.md"
#define SRC_TF     "https://www.tensorflow.org/install/source#gpu"
#define SRC_FEAT   "https://docs.nvidia.com/cuda/archive/12.9.1/cuda-features-archive/index.html"
#define SRC_615                                                                                    \
    "https://docs.nvidia.com/datacenter/tesla/drivers/615/"                                        \
    "supported-drivers-and-cuda-toolkit-versions.html"
#define SRC_CUDNN_951                                                                              \
    "https://docs.nvidia.com/deeplearning/cudnn/backend/v9.5.1/reference/support-matrix.html"
#define SRC_CUDNN_917 "https://docs.nvidia.com/deeplearning/sdk/cudnn-support-matrix/index.html"
#define SRC_CONDA     "https://anaconda.org/nvidia/cudnn/labels"

static const struct imx_ref_cuda_mvc mvc_rows[] = {
    { 11, "450.80.02", SRC_MVC },
    { 12, "525.60.13", SRC_MVC },
    { 13, "580.65.06", SRC_MVC },
};

static const struct imx_ref_cuda_driver cuda_rows[] = {
    { "11.8.0", 11, "520.61.05", SRC_CUDA },
    { "12.0.0", 12, "525.60.13", SRC_CUDA },
    { "12.4.0", 12, "550.54.14", SRC_CUDA },
    { "12.4.1", 12, "550.54.15", SRC_CUDA },
    { "12.6.3", 12, "560.35.05", SRC_CUDA },
    { "12.8.0", 12, "570.26", SRC_CUDA },
    { "12.8.1", 12, "570.124.06", SRC_CUDA },
    { "12.9.0", 12, "575.51.03", SRC_CUDA },
    { "12.9.1", 12, "575.57.08", SRC_CUDA },
    { "13.0.0", 13, "580.65.06", SRC_CUDA },
    { "13.0.2", 13, "580.95.05", SRC_CUDA },
    { "13.3.0", 13, "610.43.02", SRC_CUDA },
    /* 0016: release notes exist, the Table-3 driver is unconfirmed */
    { "13.4.1", 13, NULL, SRC_CUDA },
};

static const struct imx_ref_compute_capability cc_rows[] = {
    { "7.0", "9.0", SRC_ARCH, false, NULL },   { "9.0", "11.8", SRC_ARCH, false, NULL },
    { "10.0", "12.8", SRC_FEAT, false, NULL }, { "10.3", "12.9", SRC_FEAT, false, NULL },
    { "11.0", "13.0", SRC_FEAT, false, NULL }, { "12.0", "12.8", SRC_FEAT, false, NULL },
    { "12.1", "12.9", SRC_FEAT, false, NULL },
};

static const struct imx_ref_gpu_arch arch_rows[] = {
    { "Volta", "9.0", 12, 580, SRC_ARCH },   { "Turing", "10.0", 0, 0, SRC_ARCH },
    { "Ampere", "11.0", 0, 0, SRC_ARCH },    { "Hopper", "11.8", 0, 0, SRC_ARCH },
    { "Blackwell", "12.8", 0, 0, SRC_ARCH },
};

static const char *const v100_aliases[] = { "NVIDIA V100", "Tesla V100", "Tesla V100-SXM2-16GB" };
static const char *const h100_aliases[] = { "NVIDIA H100", "H100 SXM5", "NVIDIA H100 80GB HBM3" };
static const char *const b200_aliases[] = { "NVIDIA B200", "HGX B200", "B200 180GB" };
static const char *const rtx6000_aliases[] = { "RTX PRO 6000 Blackwell Server Edition",
                                               "rtx-pro-server-6000" };

static const char *const gb10_aliases[] = { "DGX Spark" };

static const struct imx_ref_gpu gpu_rows[] = {
    { "V100", "NVIDIA Tesla V100 (SXM2/PCIe)", "Volta", "7.0", "9.0", "384.81", NULL, v100_aliases,
      N_ELEMS(v100_aliases), SRC_GPU },
    { "T4", "NVIDIA Tesla T4", "Turing", "7.5", "10.0", "410.48", NULL, NULL, 0, SRC_GPU },
    { "A100", "NVIDIA A100 (40GB/80GB, SXM4/PCIe)", "Ampere", "8.0", "11.0", "450.36.06", NULL,
      NULL, 0, SRC_GPU },
    { "H100", "NVIDIA H100 (SXM5/PCIe/NVL)", "Hopper", "9.0", "11.8", "520.61.05", NULL,
      h100_aliases, N_ELEMS(h100_aliases), SRC_GPU },
    { "B200", "NVIDIA B200 (HGX)", "Blackwell", "10.0", "12.8", "570.26", "570.133.20",
      b200_aliases, N_ELEMS(b200_aliases), SRC_GPU },
    { "B300", "NVIDIA B300 (Blackwell Ultra)", "Blackwell", "10.3", NULL, NULL, NULL, NULL, 0,
      SRC_GPU },
    { "RTX PRO 6000", "NVIDIA RTX PRO 6000 Blackwell Server Edition", "Blackwell", "12.0", "12.8",
      "570.26", "575.57.08", rtx6000_aliases, N_ELEMS(rtx6000_aliases), SRC_GPU },
    /* 0016 */
    { "GB10", "NVIDIA GB10 Grace Blackwell Superchip (DGX Spark)", "Blackwell", "12.1", "12.9",
      "575.51.03", NULL, gb10_aliases, N_ELEMS(gb10_aliases), SRC_GPU },
    /* as a model row may hold its architecture's first CUDA: the capability's (12.9) wins */
    { "GB300", "NVIDIA GB300 (Blackwell Ultra)", "Blackwell", "10.3", "12.8", "570.26", NULL, NULL,
      0, SRC_GPU },
    { "Jetson T5000", "NVIDIA Jetson AGX Thor T5000", "Blackwell", "11.0", "13.0", NULL, NULL, NULL,
      0, SRC_GPU },
    { "RTX 5090", "NVIDIA GeForce RTX 5090", "Blackwell", "12.0", "12.8", "570.26", NULL, NULL, 0,
      SRC_GPU },
};

/* NVIDIA's published end of life (and the page), or endoflife.date's estimate only. */
#define NV_EOL(b, type, date, est)                                                                 \
    {                                                                                              \
        b, type, date, est, SRC_BRANCH, SRC_615                                                    \
    }
#define EST_EOL(b, type, est)                                                                      \
    {                                                                                              \
        b, type, NULL, est, SRC_BRANCH, NULL                                                       \
    }

static const struct imx_ref_driver_branch branch_rows[] = {
    NV_EOL(450, "LTSB", "2023-07-01", "2023-07-01"),
    EST_EOL(520, "NFB", "2023-10-01"),
    EST_EOL(525, "PB", "2023-12-01"),
    NV_EOL(535, "LTSB", "2026-06-01", "2026-06-01"),
    EST_EOL(550, "PB", "2025-04-17"),
    EST_EOL(560, "PB", "2025-08-22"),
    EST_EOL(565, "PB", "2025-10-01"),
    NV_EOL(570, "PB", "2026-02-01", "2026-01-27"),
    EST_EOL(575, "NFB", "2026-06-03"),
    NV_EOL(580, "LTSB", "2028-06-01", "2028-08-04"),
    EST_EOL(590, "NFB", "2026-12-22"),
    /* 0016: NVIDIA's 615 page says August 2026; endoflife.date estimated 2027-08-03 */
    NV_EOL(610, "NFB", "2026-08-01", "2027-08-03"),
    EST_EOL(615, NULL, NULL),
    NV_EOL(620, "LTSB", "2029-09-01", NULL),
};

static const struct imx_ref_cudnn cudnn_rows[] = {
    { "8.9.7", { 11, 12 }, 2, SRC_CUDNN, { NULL }, "5.0", "9.0", false, NULL, false, false, false },
    { "9.5.1",
      { 11, 12 },
      2,
      SRC_CUDNN_951,
      { "11.8", "12.6" },
      "5.0",
      "9.0",
      false,
      NULL,
      false,
      false,
      false },
    { "9.10.2",
      { 11, 12 },
      2,
      SRC_CUDNN,
      { "11.8", "12.9" },
      "5.0",
      "12.0",
      false,
      NULL,
      false,
      false,
      false },
    { "9.11.0", { 12 }, 1, SRC_CUDNN, { NULL }, NULL, NULL, false, NULL, false, false, false },
    { "9.12.0", { 12, 13 }, 2, SRC_CUDNN, { NULL }, NULL, NULL, false, NULL, false, false, false },
    { "9.17.0",
      { 12, 13 },
      2,
      SRC_CUDNN_917,
      { "12.9", "13.1" },
      "7.5",
      "12.0",
      false,
      "7.5;8.0;8.6;8.9;9.0;10.0;12.0",
      false,
      false,
      false },
    /* 0016: known to exist only; its CUDA 12/13 builds are assumed */
    { "9.15.1", { 12, 13 }, 2, SRC_CONDA, { NULL }, NULL, NULL, true, NULL, false, false, false },
};

static const struct imx_ref_pytorch_build pytorch_rows[] = {
    { "2.4", "12.1", false, SRC_TORCH, NULL, NULL },
    { "2.5", "11.8", false, SRC_TORCH, NULL, NULL },
    { "2.5", "12.1", false, SRC_TORCH, NULL, NULL },
    { "2.5", "12.4", false, SRC_TORCH, NULL, NULL },
    { "2.7", "11.8", false, SRC_TORCH, NULL, NULL },
    { "2.7", "12.6", false, SRC_TORCH, NULL, NULL },
    { "2.7", "12.8", true, SRC_TORCH, NULL, NULL },
    { "2.9", "12.6", false, SRC_TORCH, "5.0;6.0;7.0;7.5;8.0;8.6;9.0", SRC_TORCH },
    { "2.9", "12.8", false, SRC_TORCH, "7.0;7.5;8.0;8.6;9.0;10.0;12.0", SRC_TORCH },
    { "2.9", "13.0", true, SRC_TORCH, "7.5;8.0;8.6;9.0;10.0;12.0+PTX", SRC_TORCH },
};

static const struct imx_ref_pytorch pytorch_release_rows[] = {
    { "2.4", "3.8", "3.12", SRC_TORCH },
    { "2.5", "3.9", "3.12", SRC_TORCH },
    { "2.7", "3.9", "3.13", SRC_TORCH },
    { "2.9", "3.10", "3.14", SRC_TORCH },
};

static const struct imx_ref_tensorflow tf_rows[] = {
    { "2.14.0", "11.8", SRC_TF, "3.9", "3.11", "8.7" },
    { "2.15.0", "12.2", SRC_TF, "3.9", "3.11", "8.9" },
    { "2.16.1", "12.3", SRC_TF, "3.9", "3.12", "8.9" },
    { "2.20.0", "12.5", SRC_TF, "3.9", "3.13", "9.3" },
};

#define SRC_JAX "https://github.com/jax-ml/jax/blob/main/docs/installation.md"
static const struct imx_ref_jax jax_rows[] = {
    { "cuda12", 12, "12.1", "9.8", "10.0", 525, "5.2", SRC_JAX, false },
    { "cuda13", 13, "13.0", "9.8", "10.0", 580, "7.5", SRC_JAX, false },
};

static const struct imx_ref_snapshot ref = {
    .generation = 1,
    .mvc = mvc_rows,
    .n_mvc = N_ELEMS(mvc_rows),
    .cuda = cuda_rows,
    .n_cuda = N_ELEMS(cuda_rows),
    .archs = arch_rows,
    .n_archs = N_ELEMS(arch_rows),
    .gpus = gpu_rows,
    .n_gpus = N_ELEMS(gpu_rows),
    .branches = branch_rows,
    .n_branches = N_ELEMS(branch_rows),
    .cudnn = cudnn_rows,
    .n_cudnn = N_ELEMS(cudnn_rows),
    .pytorch = pytorch_rows,
    .n_pytorch = N_ELEMS(pytorch_rows),
    .tensorflow = tf_rows,
    .n_tensorflow = N_ELEMS(tf_rows),
    .ccs = cc_rows,
    .n_ccs = N_ELEMS(cc_rows),
    .pytorch_releases = pytorch_release_rows,
    .n_pytorch_releases = N_ELEMS(pytorch_release_rows),
    .jax = jax_rows,
    .n_jax = N_ELEMS(jax_rows),
};

#define DRV(v)                                                                                     \
    {                                                                                              \
        "nvidia-driver", v                                                                         \
    }
#define CUDA(v)                                                                                    \
    {                                                                                              \
        "cuda", v                                                                                  \
    }
#define CUDNN(v)                                                                                   \
    {                                                                                              \
        "cudnn", v                                                                                 \
    }
#define TORCH(v)                                                                                   \
    {                                                                                              \
        "pytorch", v                                                                               \
    }
#define TF(v)                                                                                      \
    {                                                                                              \
        "tensorflow", v                                                                            \
    }
#define PY(v)                                                                                      \
    {                                                                                              \
        "python", v                                                                                \
    }

struct compat_case {
    const char *what;
    struct imx_compat_component comps[6]; /* ends at name == NULL */
    const char *gpus[4];                  /* ends at NULL */
    const char *today;
    const char *codes[6]; /* expected codes in report order, "w:" = softened to a warning */
};

#define DAY_2025 "2025-06-01"

static const struct compat_case cases[] = {
    /* driver_too_old_for_cuda / driver_mvc_only: Table-3 floor, MVC floor of the major */
    { "driver exactly at the CUDA 12.8 floor",
      { DRV("570.26"), CUDA("12.8.0") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "R565 runs CUDA 12.8 only through MVC",
      { DRV("565.57.01"), CUDA("12.8.0") },
      { NULL },
      DAY_2025,
      { "driver_mvc_only" } },
    { "driver exactly at the CUDA 12 MVC floor",
      { DRV("525.60.13"), CUDA("12.4.1") },
      { NULL },
      "2023-01-01",
      { "driver_mvc_only" } },
    { "driver below the CUDA 12 MVC floor",
      { DRV("520.61.05"), CUDA("12.0.0") },
      { NULL },
      "2023-01-01",
      { "driver_too_old_for_cuda" } },
    { "R575 cannot run CUDA 13 at all",
      { DRV("575.57.08"), CUDA("13.0.0") },
      { NULL },
      DAY_2025,
      { "driver_too_old_for_cuda" } },
    { "580.82.07 runs CUDA 13.0.2 through MVC",
      { DRV("580.82.07"), CUDA("13.0.2") },
      { NULL },
      DAY_2025,
      { "driver_mvc_only" } },
    { "580.95.05 is the CUDA 13.0.2 floor",
      { DRV("580.95.05"), CUDA("13.0.2") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "580.105.08 is above it",
      { DRV("580.105.08"), CUDA("13.0.2") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "CUDA 12.4 means 12.4.0",
      { DRV("550.54.14"), CUDA("12.4") },
      { NULL },
      "2024-06-01",
      { NULL } },
    { "CUDA 12.4.1 needs one more patch",
      { DRV("550.54.14"), CUDA("12.4.1") },
      { NULL },
      "2024-06-01",
      { "driver_mvc_only" } },
    { "an unlisted patch release is checked as the one below",
      { DRV("550.54.15"), CUDA("12.4.5") },
      { NULL },
      "2024-06-01",
      { "unknown_component_version" } },
    { "there is no CUDA 12.7",
      { DRV("570.26"), CUDA("12.7") },
      { NULL },
      DAY_2025,
      { "unknown_component_version" } },
    { "a CUDA that is not a version",
      { CUDA("latest") },
      { NULL },
      DAY_2025,
      { "unknown_component_version" } },

    /* gpu_too_new_for_cuda / gpu_dropped_by_cuda / gpu_dropped_by_driver / gpu_driver_too_old */
    { "B200 before CUDA 12.8",
      { DRV("570.133.20"), CUDA("12.6.3") },
      { "B200" },
      DAY_2025,
      { "gpu_too_new_for_cuda" } },
    { "B200 with CUDA 12.8 and its documented driver",
      { DRV("570.133.20"), CUDA("12.8.0") },
      { "NVIDIA B200" },
      DAY_2025,
      { NULL } },
    { "B200 one patch below its documented driver",
      { DRV("570.124.06"), CUDA("12.8.0") },
      { "HGX B200" },
      DAY_2025,
      { "gpu_driver_too_old" } },
    { "B300 takes the first CUDA of its architecture",
      { CUDA("12.6.3") },
      { "B300" },
      DAY_2025,
      { "gpu_too_new_for_cuda" } },
    /* CUDA 12.8 cannot target 10.3 (12.9 added it), but its sm_100 code runs on a B300 by CUDA
     * binary compatibility (NVIDIA's Blackwell compatibility guide): a warning, not an error. */
    { "B300 (10.3) arrived with CUDA 12.9; 12.8's sm_100 code runs on it",
      { CUDA("12.8.1") },
      { "B300" },
      DAY_2025,
      { "gpu_cc_binary_compat" } },
    { "RTX 5090 (12.0) with CUDA 12.6: no 12.x capability to fall back on",
      { CUDA("12.6.3") },
      { "RTX 5090" },
      DAY_2025,
      { "gpu_too_new_for_cuda" } },
    { "B300 with CUDA 12.9", { CUDA("12.9.1") }, { "B300" }, DAY_2025, { NULL } },
    { "B300 needs the driver floor of CUDA 12.9",
      { DRV("570.133.20") },
      { "B300" },
      DAY_2025,
      { "gpu_driver_too_old" } },
    { "B300 at the CUDA 12.9.0 floor", { DRV("575.51.03") }, { "B300" }, DAY_2025, { NULL } },
    { "GB300's capability is first targeted by CUDA 12.9 though its row says 12.8",
      { DRV("575.51.03"), CUDA("12.8.1") },
      { "GB300" },
      DAY_2025,
      { "gpu_cc_binary_compat" } },
    { "GB300 needs the CUDA 12.9 floor, not its row's 570.26",
      { DRV("570.133.20") },
      { "GB300" },
      DAY_2025,
      { "gpu_driver_too_old" } },
    { "GB10 (12.1) before CUDA 12.9: sm_120 code runs on it",
      { CUDA("12.8.1") },
      { "DGX Spark" },
      DAY_2025,
      { "gpu_cc_binary_compat" } },
    { "GB10 (12.1) before CUDA 12.8: nothing of 12.x to run",
      { CUDA("12.6.3") },
      { "DGX Spark" },
      DAY_2025,
      { "gpu_too_new_for_cuda" } },
    { "Jetson T5000 (11.0) needs CUDA 13",
      { CUDA("12.9.1") },
      { "Jetson T5000" },
      DAY_2025,
      { "gpu_too_new_for_cuda" } },
    { "Jetson T5000 with CUDA 13.0", { CUDA("13.0.0") }, { "Jetson T5000" }, DAY_2025, { NULL } },
    { "RTX 5090 (12.0) with CUDA 12.8", { CUDA("12.8.0") }, { "RTX 5090" }, DAY_2025, { NULL } },
    { "V100 dropped by CUDA 13",
      { DRV("580.65.06"), CUDA("13.0.0") },
      { "Tesla V100-SXM2-16GB" },
      DAY_2025,
      { "gpu_dropped_by_cuda" } },
    { "V100 still fine with CUDA 12.9",
      { DRV("580.65.06"), CUDA("12.9.1") },
      { "V100" },
      DAY_2025,
      { NULL } },
    { "V100 dropped by the R590 driver",
      { DRV("590.48.01"), CUDA("12.9.1") },
      { "V100" },
      "2026-01-01",
      { "gpu_dropped_by_driver" } },
    { "RTX PRO 6000 needs 575.57.08",
      { DRV("570.211.01"), CUDA("12.8.1") },
      { "rtx-pro-server-6000" },
      DAY_2025,
      { "gpu_driver_too_old" } },
    { "RTX PRO 6000 at its minimum",
      { DRV("575.57.08"), CUDA("12.8.1") },
      { "RTX PRO 6000" },
      DAY_2025,
      { NULL } },
    { "H100 at its first CUDA and derived driver",
      { DRV("520.61.05"), CUDA("11.8.0") },
      { "NVIDIA H100 80GB HBM3" },
      "2023-01-01",
      { NULL } },
    { "H100 with CUDA 11.7 is too new",
      { CUDA("11.7") },
      { "H100" },
      DAY_2025,
      { "gpu_too_new_for_cuda", "unknown_component_version" } },
    { "A100 at its derived driver minimum",
      { DRV("450.36.06") },
      { "A100" },
      "2021-01-01",
      { NULL } },
    { "A100 below it, on a branch not in the data",
      { DRV("440.118.02") },
      { "A100" },
      "2021-01-01",
      { "gpu_driver_too_old", "unknown_component_version" } },
    { "an unknown GPU", { DRV("580.65.06") }, { "Radeon MI300X" }, DAY_2025, { "unknown_gpu" } },
    { "one GPU named twice is reported once",
      { CUDA("12.6.3") },
      { "B200", "b200" },
      DAY_2025,
      { "gpu_too_new_for_cuda" } },

    /* the known-bad stack: an R535 driver, CUDA 12.8 and a B200 */
    { "R535 + CUDA 12.8 + B200",
      { DRV("535.183.01"), CUDA("12.8.0") },
      { "B200" },
      "2026-05-31",
      { "gpu_driver_too_old", "driver_mvc_only" } },

    /* driver_branch_eol */
    { "R535 on its end-of-life day",
      { DRV("535.183.01") },
      { NULL },
      "2026-06-01",
      { "driver_branch_eol" } },
    { "R550 the day before end of life", { DRV("550.163.01") }, { NULL }, "2025-04-16", { NULL } },
    { "R550 on end of life",
      { DRV("550.163.01") },
      { NULL },
      "2025-04-17",
      { "driver_branch_eol" } },

    /* cudnn_cuda_major_mismatch */
    { "cuDNN 9.10.2 still has CUDA 11 builds",
      { CUDNN("9.10.2.21"), CUDA("11.8.0") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "cuDNN 9.11.0 has no CUDA 11 build",
      { CUDNN("9.11.0.98"), CUDA("11.8.0") },
      { NULL },
      DAY_2025,
      { "cudnn_cuda_major_mismatch" } },
    { "cuDNN 9.12.0 is the first with CUDA 13",
      { CUDNN("9.12.0.46"), CUDA("13.0.0") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "cuDNN 8.9.7 has no CUDA 13 build",
      { CUDNN("8.9.7.29"), CUDA("13.0.0") },
      { NULL },
      DAY_2025,
      { "cudnn_cuda_major_mismatch" } },
    { "cuDNN 9.15.0 is not confirmed",
      { CUDNN("9.15.0"), CUDA("13.0.0") },
      { NULL },
      DAY_2025,
      { "unknown_component_version" } },

    /* framework_no_cuda_build (PyTorch: wheel suffix first, else the cuda component) */
    { "PyTorch 2.5.1+cu124 brings its CUDA",
      { DRV("550.54.14"), TORCH("2.5.1+cu124") },
      { NULL },
      "2024-06-01",
      { NULL } },
    { "PyTorch's CUDA is checked against the driver",
      { DRV("535.183.01"), TORCH("2.5.1+cu124") },
      { NULL },
      "2024-06-01",
      { "driver_mvc_only" } },
    { "PyTorch 2.5 has no cu126 wheel",
      { TORCH("2.5.1+cu126") },
      { NULL },
      DAY_2025,
      { "framework_no_cuda_build" } },
    { "PyTorch 2.5.1 with CUDA 12.4.1",
      { TORCH("2.5.1"), CUDA("12.4.1") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "PyTorch 2.5.1 with CUDA 12.6",
      { TORCH("2.5.1"), CUDA("12.6.3") },
      { NULL },
      DAY_2025,
      { "framework_no_cuda_build" } },
    { "the wheel suffix wins over the cuda component",
      { TORCH("2.5.1+cu124"), CUDA("12.6.3") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "PyTorch 2.7 cu128 is experimental",
      { TORCH("2.7.0"), CUDA("12.8.0") },
      { NULL },
      DAY_2025,
      { "framework_cuda_build_experimental" } },
    { "PyTorch 2.9 cu128 is stable", { TORCH("2.9.0+cu128") }, { NULL }, DAY_2025, { NULL } },
    { "PyTorch 2.9 has no CUDA 11.8 build",
      { TORCH("2.9.0"), CUDA("11.8.0") },
      { NULL },
      DAY_2025,
      { "framework_no_cuda_build" } },
    { "a CPU wheel needs no CUDA build", { TORCH("2.5.1+cpu") }, { NULL }, DAY_2025, { NULL } },
    { "PyTorch 1.13 is not in the data",
      { TORCH("1.13.1"), CUDA("11.8.0") },
      { NULL },
      DAY_2025,
      { "unknown_component_version" } },

    /* framework_no_cuda_build (TensorFlow: CUDA major it was built with) */
    { "TensorFlow 2.14 is a CUDA 11 build",
      { TF("2.14.1"), CUDA("11.8.0") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "TensorFlow 2.14 with CUDA 12",
      { TF("2.14.0"), CUDA("12.4.1") },
      { NULL },
      DAY_2025,
      { "framework_no_cuda_build" } },
    { "TensorFlow 2.16.1 with CUDA 12.8",
      { TF("2.16.1"), CUDA("12.8.0") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "TensorFlow 2.20 with CUDA 13",
      { TF("2.20.0"), CUDA("13.0.0") },
      { NULL },
      DAY_2025,
      { "framework_no_cuda_build" } },
    { "TensorFlow 2.11 is not in the data",
      { TF("2.11.0"), CUDA("11.8.0") },
      { NULL },
      DAY_2025,
      { "unknown_component_version" } },

    /* driver_below_cuda_major_floor: an unknown minor still needs its major's floor */
    { "CUDA 13.5 is unknown but still needs the 13.x floor",
      { DRV("575.57.08"), CUDA("13.5.0") },
      { NULL },
      DAY_2025,
      { "driver_below_cuda_major_floor" } },
    { "CUDA 13.5 on an R580 driver: only the floor could be checked",
      { DRV("580.95.05"), CUDA("13.5") },
      { NULL },
      DAY_2025,
      { "unknown_component_version" } },
    { "CUDA 13.4.1's minimum is unconfirmed: the floor applies",
      { DRV("575.57.08"), CUDA("13.4.1") },
      { NULL },
      DAY_2025,
      { "driver_below_cuda_major_floor" } },
    { "CUDA 13.5 without a driver: the floor is named",
      { CUDA("13.5.0") },
      { NULL },
      DAY_2025,
      { "unknown_component_version" } },
    { "CUDA 13.4.1 at the 13.x floor",
      { DRV("580.65.06"), CUDA("13.4.1") },
      { NULL },
      DAY_2025,
      { "unknown_component_version" } },

    /* a PyTorch wheel's own CUDA, also beside a host cuda */
    { "a +cu130 wheel needs R580 even on a CUDA 12.8 host",
      { DRV("575.57.08"), CUDA("12.8.0"), TORCH("2.9.0+cu130") },
      { NULL },
      DAY_2025,
      { "driver_too_old_for_cuda", "framework_cuda_build_experimental" } },
    { "a +cu126 wheel has no Blackwell kernels on a CUDA 12.8 host",
      { DRV("570.133.20"), CUDA("12.8.0"), TORCH("2.7.1+cu126") },
      { "B200" },
      DAY_2025,
      /* this table holds no architecture list for the cu126 wheels: said, not passed */
      { "gpu_too_new_for_cuda", "unknown_component_version" } },
    { "a +cu128 wheel on a CUDA 12.8 host with a B200",
      { DRV("570.133.20"), CUDA("12.8.1"), TORCH("2.9.0+cu128") },
      { "B200" },
      DAY_2025,
      { NULL } },

    /* cudnn_gpu_unsupported / cudnn_gpu_forward_compat / cudnn_cuda_minor_unsupported: a GPU
     * newer than a cuDNN 9 release's list runs in forward-compatibility mode (a warning) */
    { "cuDNN 9.5.1 has no Blackwell kernels and covers CUDA 12.0-12.6",
      { DRV("570.133.20"), CUDA("12.8.0"), CUDNN("9.5.1.17") },
      { "B200" },
      DAY_2025,
      { "cudnn_cuda_minor_unsupported", "cudnn_gpu_forward_compat" } },
    { "cuDNN 8.9.7 has no forward-compatibility mode: Blackwell is an error",
      { CUDA("12.8.0"), CUDNN("8.9.7.29") },
      { "B200" },
      DAY_2025,
      { "cudnn_gpu_unsupported" } },
    { "cuDNN 9.17.0 lists 10.0 and 12.0 as a set: B300 (10.3) is not listed",
      { CUDA("13.0.0"), CUDNN("9.17.0.29") },
      { "B300" },
      DAY_2025,
      { "cudnn_gpu_forward_compat" } },
    /* A release whose support matrix was not read: the GPU check is missing, and says so. */
    { "cuDNN 9.11.0's compute capabilities were not read: an info finding, not a silent pass",
      { CUDA("12.6.3"), CUDNN("9.11.0.98") },
      { "H100", "A100" },
      DAY_2025,
      { "unknown_component_version" } },
    { "cuDNN 9.11.0 without a GPU: nothing to check, nothing said",
      { CUDA("12.6.3"), CUDNN("9.11.0.98") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "cuDNN 9.5.1 on an H100 with CUDA 12.6",
      { CUDA("12.6.3"), CUDNN("9.5.1.17") },
      { "H100" },
      DAY_2025,
      { NULL } },
    { "cuDNN 9.17.0 dropped Volta",
      { CUDA("12.9.1"), CUDNN("9.17.0.29") },
      { "V100" },
      DAY_2025,
      { "cudnn_gpu_unsupported" } },
    { "cuDNN 9.17.0 still has Turing (7.5)",
      { CUDA("12.9.1"), CUDNN("9.17.0.29") },
      { "T4" },
      DAY_2025,
      { NULL } },
    { "cuDNN 9.17.0 on RTX PRO 6000 (12.0, its newest)",
      { CUDA("13.0.0"), CUDNN("9.17.0.29") },
      { "RTX PRO 6000" },
      DAY_2025,
      { NULL } },
    { "cuDNN 9.17.0 does not list GB10 (12.1): forward-compatibility mode only",
      { CUDA("13.0.0"), CUDNN("9.17.0.29") },
      { "GB10" },
      DAY_2025,
      { "cudnn_gpu_forward_compat" } },

    /* framework_gpu_arch_unsupported: the wheel variant's own architecture list */
    { "PyTorch 2.9 cu128 wheels have Volta (7.0)",
      { DRV("570.133.20"), TORCH("2.9.0+cu128") },
      { "V100" },
      DAY_2025,
      { NULL } },
    { "PyTorch 2.9 cu130 wheels left Volta out",
      { DRV("580.65.06"), TORCH("2.9.0+cu130") },
      { "V100" },
      DAY_2025,
      { "framework_gpu_arch_unsupported", "gpu_dropped_by_cuda",
        "framework_cuda_build_experimental" } },
    { "PyTorch 2.9 cu126 wheels stop at Hopper: no Blackwell kernels",
      { DRV("570.133.20"), TORCH("2.9.0+cu126") },
      { "RTX 5090" },
      DAY_2025,
      { "framework_gpu_arch_unsupported", "gpu_too_new_for_cuda" } },
    /* Was an error (CUDA 12.8 predates 10.3); NVIDIA's binary compatibility says the wheel's
     * sm_100 cubins run on the B300, and its list decides: no finding. */
    { "PyTorch 2.9 cu128: its sm_100 cubins run on a B300 (10.3)",
      { DRV("575.57.08"), CUDA("12.9.1"), TORCH("2.9.0+cu128") },
      { "B300" },
      DAY_2025,
      { NULL } },
    { "PyTorch 2.9 cu128 without a host toolkit on a GB10 (12.1): sm_120 runs there",
      { DRV("580.65.06"), TORCH("2.9.0+cu128") },
      { "GB10" },
      DAY_2025,
      { NULL } },
    { "PyTorch 2.9 cu130: 12.0+PTX JIT-compiles for GB10 (12.1)",
      { DRV("580.65.06"), TORCH("2.9.0+cu130") },
      { "GB10" },
      DAY_2025,
      { "framework_cuda_build_experimental" } },
    { "a PyTorch wheel whose list was not read is not checked for the GPU, and says so",
      { DRV("570.133.20"), TORCH("2.7.1+cu128") },
      { "V100" },
      DAY_2025,
      { "framework_cuda_build_experimental", "unknown_component_version" } },

    /* JAX's CUDA wheels: framework_driver_too_old, framework_gpu_arch_unsupported,
     * framework_cudnn_incompatible */
    { "jax[cuda13] needs R580",
      { DRV("575.57.08"), { "jax-cuda13-plugin", "0.7.1" } },
      { NULL },
      DAY_2025,
      { "framework_driver_too_old" } },
    { "jax[cuda13] on R580 and an H100",
      { DRV("580.65.06"), { "jax-cuda13-pjrt", "0.7.1" } },
      { "H100" },
      DAY_2025,
      { NULL } },
    { "jax[cuda13] supports SM 7.5 or newer: not the V100",
      { DRV("580.65.06"), { "jax-cuda13-plugin", "0.7.1" } },
      { "V100" },
      DAY_2025,
      { "framework_gpu_arch_unsupported" } },
    { "jax[cuda12] keeps the V100, and wants cuDNN 9.8 or newer",
      { DRV("535.183.01"), { "jax-cuda12-plugin", "0.6.2" }, CUDNN("9.5.1.17") },
      { "V100" },
      DAY_2025,
      { "framework_cudnn_incompatible" } },
    { "a JAX variant not in the data is an info finding",
      { { "jax-cuda14-plugin", "0.9.0" } },
      { NULL },
      DAY_2025,
      { "unknown_component_version" } },

    /* framework_driver_too_old: TensorFlow's own CUDA major needs its driver floor */
    { "TensorFlow 2.16 (CUDA 12.3) on an R520 driver",
      { DRV("520.61.05"), TF("2.16.1") },
      { NULL },
      DAY_2025,
      { "framework_driver_too_old", "driver_branch_eol" } },
    { "TensorFlow 2.16 (CUDA 12.3) on the 12.x floor",
      { DRV("525.60.13"), TF("2.16.1") },
      { NULL },
      DAY_2025,
      { "driver_branch_eol" } },

    /* framework_cudnn_major_mismatch */
    { "TensorFlow 2.20 is built with cuDNN 9: cuDNN 8.9.7 cannot load",
      { TF("2.20.0"), CUDA("12.6.3"), CUDNN("8.9.7.29") },
      { NULL },
      DAY_2025,
      { "framework_cudnn_major_mismatch" } },
    { "TensorFlow 2.16 with cuDNN 8.9.7",
      { TF("2.16.1"), CUDA("12.4.1"), CUDNN("8.9.7.29") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "an unconfirmed cuDNN row is never an error",
      { CUDA("11.8.0"), CUDNN("9.15.1.9") },
      { NULL },
      DAY_2025,
      { "w:cudnn_cuda_major_mismatch" } },

    /* python_unsupported_by_framework */
    { "PyTorch 2.4 has no Python 3.13 wheels",
      { TORCH("2.4.1"), PY("3.13.1") },
      { NULL },
      DAY_2025,
      { "python_unsupported_by_framework" } },
    { "PyTorch 2.4 with Python 3.12",
      { TORCH("2.4.1"), PY("3.12.8") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "PyTorch 2.9 needs Python 3.10",
      { TORCH("2.9.0+cu128"), PY("3.9.18") },
      { NULL },
      DAY_2025,
      { "python_unsupported_by_framework" } },
    { "PyTorch 2.9 with Python 3.14",
      { TORCH("2.9.0+cu128"), PY("3.14.0") },
      { NULL },
      DAY_2025,
      { NULL } },
    { "TensorFlow 2.15 is tested up to Python 3.11",
      { TF("2.15.1"), PY("3.12.3") },
      { NULL },
      DAY_2025,
      { "python_unsupported_by_framework" } },
    { "TensorFlow 2.16.1 with Python 3.12",
      { TF("2.16.1"), PY("3.12.3") },
      { NULL },
      DAY_2025,
      { NULL } },

    /* driver_branch_eol: NVIDIA's date before an estimate */
    { "R610 ended in August 2026 by NVIDIA's date",
      { DRV("610.57.04") },
      { NULL },
      "2026-09-01",
      { "driver_branch_eol" } },
    { "R610 before August 2026", { DRV("610.57.04") }, { NULL }, "2026-07-31", { NULL } },
    { "R590 by endoflife.date's estimate",
      { DRV("590.48.01") },
      { NULL },
      "2027-01-01",
      { "driver_branch_eol" } },
    { "R615, type unconfirmed, no end of life",
      { DRV("615.10") },
      { NULL },
      "2027-01-01",
      { NULL } },

    /* other components are ignored */
    { "components the rules do not know",
      { { "nccl", "2.21.5" }, { "python", "3.12.3" } },
      { NULL },
      DAY_2025,
      { NULL } },
};

static enum imx_compat_severity severity_of(const char *code)
{
    if (strncmp(code, "w:", 2) == 0)
        return IMX_COMPAT_WARNING;
    if (strcmp(code, "cudnn_cuda_minor_unsupported") == 0 ||
        strcmp(code, "cudnn_gpu_forward_compat") == 0 ||
        strcmp(code, "framework_cudnn_incompatible") == 0 ||
        strcmp(code, "gpu_cc_binary_compat") == 0)
        return IMX_COMPAT_WARNING;
    if (strcmp(code, "driver_mvc_only") == 0 || strcmp(code, "driver_branch_eol") == 0)
        return IMX_COMPAT_WARNING;
    if (strncmp(code, "unknown_", 8) == 0 || strcmp(code, "framework_cuda_build_experimental") == 0)
        return IMX_COMPAT_INFO;
    return IMX_COMPAT_ERROR;
}

static void every_rule_at_its_boundary(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        const struct compat_case *c = &cases[i];
        size_t nc = 0, ng = 0, ne = 0;
        while (nc < N_ELEMS(c->comps) && c->comps[nc].name)
            nc++;
        while (ng < N_ELEMS(c->gpus) && c->gpus[ng])
            ng++;
        while (ne < N_ELEMS(c->codes) && c->codes[ne])
            ne++;
        int rc = imx_compat_check(&ref, c->comps, nc, c->gpus, ng, c->today, r);
        bool want_ok = true;
        for (size_t k = 0; k < ne; k++)
            want_ok = want_ok && severity_of(c->codes[k]) != IMX_COMPAT_ERROR;
        bool same = rc == 0 && r->n == ne && r->ok == want_ok;
        for (size_t k = 0; same && k < ne; k++) {
            const char *code = strncmp(c->codes[k], "w:", 2) == 0 ? c->codes[k] + 2 : c->codes[k];
            same = strcmp(r->findings[k].code, code) == 0 &&
                   r->findings[k].severity == severity_of(c->codes[k]) &&
                   r->findings[k].message[0] != '\0' && r->findings[k].n_involved > 0;
        }
        if (!same) {
            print_error("case \"%s\": rc %d, ok %d, %zu findings:\n", c->what, rc, r->ok, r->n);
            for (size_t k = 0; k < r->n; k++)
                print_error("  %s %s: %s\n", imx_compat_severity_name(r->findings[k].severity),
                            r->findings[k].code, r->findings[k].message);
            fail();
        }
    }
    free(r);
}

/* The report names the versions, the components involved and the source row. */
static void findings_name_versions_and_sources(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    const struct imx_compat_component comps[] = { DRV("535.183.01"), CUDA("12.8.0") };
    const char *gpus[] = { "B200" };
    assert_int_equal(imx_compat_check(&ref, comps, 2, gpus, 1, "2026-06-01", r), 0);
    assert_false(r->ok);
    assert_int_equal(r->n, 3);
    const struct imx_compat_finding *f = &r->findings[0];
    assert_string_equal(f->code, "gpu_driver_too_old");
    assert_non_null(strstr(f->message, "570.133.20"));
    assert_non_null(strstr(f->message, "535.183.01"));
    assert_string_equal(f->involved[0].name, "gpu");
    assert_string_equal(f->involved[0].version, "B200");
    assert_string_equal(f->source, SRC_GPU);
    f = &r->findings[1];
    assert_string_equal(f->code, "driver_branch_eol");
    assert_non_null(strstr(f->message, "2026-06-01"));
    f = &r->findings[2];
    assert_string_equal(f->code, "driver_mvc_only");
    assert_non_null(strstr(f->message, "570.26"));
    assert_non_null(strstr(f->message, "525.60.13"));
    assert_non_null(strstr(f->message, "PTX"));
    assert_string_equal(f->source, SRC_CUDA);

    json_t *j = imx_compat_report_json(r);
    assert_non_null(j);
    assert_true(json_is_false(json_object_get(j, "ok")));
    assert_int_equal(json_integer_value(json_object_get(j, "errors")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "warnings")), 2);
    json_t *first = json_array_get(json_object_get(j, "findings"), 0);
    assert_string_equal(json_string_value(json_object_get(first, "severity")), "error");
    assert_string_equal(json_string_value(json_object_get(first, "code")), "gpu_driver_too_old");
    assert_int_equal(json_array_size(json_object_get(first, "components")), 2);
    json_decref(j);
    free(r);
}

/* Input order does not change the report. */
static void findings_are_ordered_deterministically(void **state)
{
    (void)state;
    struct imx_compat_report *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    const struct imx_compat_component c1[] = { DRV("535.183.01"), CUDA("13.0.0"), CUDNN("8.9.7.29"),
                                               TORCH("2.5.1") };
    const struct imx_compat_component c2[] = { TORCH("2.5.1"), CUDNN("8.9.7.29"), CUDA("13.0.0"),
                                               DRV("535.183.01") };
    const char *g1[] = { "V100", "B200", "Unknown GPU" };
    const char *g2[] = { "Unknown GPU", "B200", "V100" };
    assert_int_equal(imx_compat_check(&ref, c1, 4, g1, 3, "2026-07-01", a), 0);
    assert_int_equal(imx_compat_check(&ref, c2, 4, g2, 3, "2026-07-01", b), 0);
    assert_true(a->n >= 6);
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_string_equal(a->findings[i].code, b->findings[i].code);
        assert_string_equal(a->findings[i].message, b->findings[i].message);
        if (i > 0)
            assert_true(a->findings[i - 1].severity <= a->findings[i].severity);
    }
    free(a);
    free(b);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    const struct imx_compat_component comps[] = { DRV("580.65.06") };
    const char *gpus[IMX_COMPAT_MAX_GPUS + 1];
    for (size_t i = 0; i < N_ELEMS(gpus); i++)
        gpus[i] = "H100";
    assert_int_equal(imx_compat_check(NULL, comps, 1, NULL, 0, DAY_2025, r), -1);
    assert_int_equal(imx_compat_check(&ref, comps, 1, NULL, 0, "2025-6-1", r), -1);
    assert_int_equal(imx_compat_check(&ref, comps, 1, NULL, 0, NULL, r), -1);
    assert_int_equal(imx_compat_check(&ref, comps, 1, gpus, N_ELEMS(gpus), DAY_2025, r), -1);
    assert_true(r->ok);
    assert_int_equal(r->n, 0);
    assert_int_equal(imx_compat_check(&ref, comps, 1, gpus, IMX_COMPAT_MAX_GPUS, DAY_2025, r), 0);
    assert_int_equal(imx_compat_check(&ref, NULL, 0, NULL, 0, DAY_2025, r), 0);
    assert_true(r->ok);
    free(r);
}

static void gpu_names_resolve_like_sql(void **state)
{
    (void)state;
    static const struct {
        const char *name, *model;
    } names[] = {
        { "B200", "B200" },
        { "nvidia b200", "B200" },
        { "HGX-B200", "B200" },
        { "Tesla V100", "V100" },
        { "tesla-v100-sxm2-16gb", "V100" },
        { "NVIDIA H100 80GB HBM3", "H100" },
        { "rtx pro 6000", "RTX PRO 6000" },
        { "RTX PRO 6000 Blackwell Server Edition", "RTX PRO 6000" },
        { "NVIDIA", NULL },
        { "", NULL },
        { "A10G", NULL },
    };
    for (size_t i = 0; i < N_ELEMS(names); i++) {
        const struct imx_ref_gpu *g = imx_compat_find_gpu(&ref, names[i].name);
        if (names[i].model == NULL)
            assert_null(g);
        else
            assert_string_equal(g ? g->gpu_model : "(null)", names[i].model);
    }
}

/* NVIDIA's end of life wins over endoflife.date's estimate, and the finding cites NVIDIA's page. */
static void eol_prefers_nvidia_and_cites_its_page(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    const struct imx_compat_component r610[] = { DRV("610.57.04") };
    assert_int_equal(imx_compat_check(&ref, r610, 1, NULL, 0, "2026-08-01", r), 0);
    assert_int_equal(r->n, 1);
    assert_string_equal(r->findings[0].code, "driver_branch_eol");
    assert_non_null(strstr(r->findings[0].message, "2026-08-01"));
    assert_non_null(strstr(r->findings[0].message, "NVIDIA's published date"));
    assert_string_equal(r->findings[0].source, SRC_615);
    const struct imx_compat_component r590[] = { DRV("590.48.01") };
    assert_int_equal(imx_compat_check(&ref, r590, 1, NULL, 0, "2026-12-22", r), 0);
    assert_int_equal(r->n, 1);
    assert_non_null(strstr(r->findings[0].message, "an estimate"));
    assert_string_equal(r->findings[0].source, SRC_BRANCH);
    free(r);
}

/* The new rules name their source row, and an unconfirmed fact says why it is not an error. */
static void new_rules_name_their_sources(void **state)
{
    (void)state;
    struct imx_compat_report *r = malloc(sizeof *r);
    assert_non_null(r);
    const struct imx_compat_component cudnn[] = { CUDA("12.8.0"), CUDNN("9.5.1.17") };
    const char *b200[] = { "B200" };
    assert_int_equal(imx_compat_check(&ref, cudnn, 2, b200, 1, DAY_2025, r), 0);
    /* cuDNN 9 runs a GPU newer than its list in forward-compatibility mode: warnings only */
    assert_true(r->ok);
    assert_int_equal(r->n, 2);
    assert_string_equal(r->findings[0].code, "cudnn_cuda_minor_unsupported");
    assert_string_equal(r->findings[0].source, SRC_CUDNN_951);
    assert_non_null(strstr(r->findings[0].message, "12.6"));
    assert_string_equal(r->findings[1].code, "cudnn_gpu_forward_compat");
    assert_string_equal(r->findings[1].source, SRC_CUDNN_951);
    assert_non_null(strstr(r->findings[1].message, "9.0"));

    const struct imx_compat_component floor[] = { DRV("575.57.08"), CUDA("13.5.0") };
    assert_int_equal(imx_compat_check(&ref, floor, 2, NULL, 0, DAY_2025, r), 0);
    assert_int_equal(r->n, 1);
    assert_string_equal(r->findings[0].source, SRC_MVC);
    assert_non_null(strstr(r->findings[0].message, "580.65.06"));
    assert_non_null(strstr(r->findings[0].message, "exact minimum"));

    const char *b300[] = { "B300" };
    const struct imx_compat_component old[] = { CUDA("12.8.1") };
    assert_int_equal(imx_compat_check(&ref, old, 1, b300, 1, DAY_2025, r), 0);
    assert_int_equal(r->n, 1);
    assert_string_equal(r->findings[0].source, SRC_FEAT);
    assert_non_null(strstr(r->findings[0].message, "12.9"));

    const struct imx_compat_component wheel[] = { DRV("575.57.08"), CUDA("12.8.0"),
                                                  TORCH("2.9.0+cu130") };
    assert_int_equal(imx_compat_check(&ref, wheel, 3, NULL, 0, DAY_2025, r), 0);
    assert_string_equal(r->findings[0].code, "driver_too_old_for_cuda");
    assert_non_null(strstr(r->findings[0].message, "PyTorch 2.9.0+cu130"));
    assert_string_equal(r->findings[0].involved[1].name, "pytorch");

    const struct imx_compat_component py[] = { TORCH("2.4.1"), PY("3.13.1") };
    assert_int_equal(imx_compat_check(&ref, py, 2, NULL, 0, DAY_2025, r), 0);
    assert_string_equal(r->findings[0].source, SRC_TORCH);
    assert_non_null(strstr(r->findings[0].message, "3.8 to 3.12"));

    const struct imx_compat_component soft[] = { CUDA("11.8.0"), CUDNN("9.15.1.9") };
    assert_int_equal(imx_compat_check(&ref, soft, 2, NULL, 0, DAY_2025, r), 0);
    assert_true(r->ok);
    assert_int_equal(r->findings[0].severity, IMX_COMPAT_WARNING);
    assert_non_null(strstr(r->findings[0].message, "unconfirmed"));
    free(r);
}

/* The finding with code in r whose message holds part (NULL: any), or NULL. */
static const struct imx_compat_finding *finding_with(const struct imx_compat_report *r,
                                                     const char *code, const char *part)
{
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->findings[i].code, code) == 0 &&
            (!part || strstr(r->findings[i].message, part)))
            return &r->findings[i];
    }
    return NULL;
}

/* Facts a rule needs and the data lacks are said (info), never a silent ok; facts the data has
 * are read from the row that holds them (a capability's own dropped toolkit, cuDNN's
 * forward-compatibility flag, a derived set), and a listed capability covers a GPU of its major
 * with a higher minor before Hopper. */
static void missing_facts_are_said_and_row_facts_read(void **state)
{
    (void)state;
    static const struct imx_ref_gpu_arch archs[] = {
        { "Maxwell", "6.5", 12, 580, SRC_ARCH },
        { "Turing", "10.0", 0, 0, SRC_ARCH },
        { "Mystery", NULL, 0, 0, SRC_ARCH },
    };
    static const struct imx_ref_gpu gpus[] = {
        { "M60", "Tesla M60", "Maxwell", "5.2", NULL, NULL, NULL, NULL, 0, SRC_GPU },
        { "T4", "Tesla T4", "Turing", "7.5", NULL, NULL, NULL, NULL, 0, SRC_GPU },
        { "X1", "no architecture row", "Unlisted", "8.0", "11.0", NULL, NULL, NULL, 0, SRC_GPU },
        { "X2", "no first CUDA anywhere", "Mystery", "8.0", NULL, NULL, NULL, NULL, 0, SRC_GPU },
    };
    static const struct imx_ref_compute_capability ccs[] = {
        /* dropped by 13.0 here, though Turing's architecture row has no last CUDA */
        { "7.5", "10.0", SRC_ARCH, false, "13.0" },
    };
    static const struct imx_ref_cuda_driver cudas[] = {
        { "12.4.1", 12, "550.54.15", SRC_CUDA },
        { "13.0.0", 13, "580.65.06", SRC_CUDA },
    };
    static const struct imx_ref_cudnn cudnns[] = {
        { "8.9.6",
          { 11, 12 },
          2,
          SRC_CUDNN,
          { NULL },
          "5.0",
          "9.0",
          false,
          "5.0;6.0;7.0;9.0",
          false,
          false,
          false },
        /* the row says it has no forward-compatibility mode, and its set is derived */
        { "9.20.0",
          { 12, 13 },
          2,
          SRC_CUDNN,
          { NULL },
          NULL,
          NULL,
          false,
          "7.0;7.5",
          true,
          true,
          false },
    };
    static const struct imx_ref_pytorch releases[] = { { "2.4", NULL, NULL, SRC_TORCH } };
    static const struct imx_ref_pytorch_build builds[] = {
        { "2.4", "12.4", false, SRC_TORCH, NULL, NULL },
    };
    static const struct imx_ref_tensorflow tfs[] = { { "2.99.0", "12.5", SRC_TF, NULL, NULL,
                                                       NULL } };
    static const struct imx_ref_snapshot r = {
        .generation = 1,
        .mvc = mvc_rows,
        .n_mvc = N_ELEMS(mvc_rows),
        .cuda = cudas,
        .n_cuda = N_ELEMS(cudas),
        .archs = archs,
        .n_archs = N_ELEMS(archs),
        .gpus = gpus,
        .n_gpus = N_ELEMS(gpus),
        .cudnn = cudnns,
        .n_cudnn = N_ELEMS(cudnns),
        .pytorch = builds,
        .n_pytorch = N_ELEMS(builds),
        .tensorflow = tfs,
        .n_tensorflow = N_ELEMS(tfs),
        .ccs = ccs,
        .n_ccs = N_ELEMS(ccs),
        .pytorch_releases = releases,
        .n_pytorch_releases = N_ELEMS(releases),
    };
    struct imx_compat_report *rep = malloc(sizeof *rep);
    assert_non_null(rep);
    const char *const all[] = { "M60", "T4", "X1", "X2" };
    const struct imx_compat_component a[] = { CUDA("13.0.0"), CUDNN("8.9.6.50") };
    assert_int_equal(imx_compat_check(&r, a, 2, all, 4, DAY_2025, rep), 0);
    assert_non_null(finding_with(rep, "unknown_component_version", "architecture (Unlisted)"));
    assert_non_null(
        finding_with(rep, "unknown_component_version", "first CUDA toolkit for the X2"));
    /* T4: dropped by its capability's row; M60: by its architecture's last CUDA major */
    assert_non_null(finding_with(rep, "gpu_dropped_by_cuda", "dropped compute capability 7.5"));
    assert_non_null(finding_with(rep, "gpu_dropped_by_cuda", "Maxwell GPUs such as the M60"));
    /* cuDNN 8.9.6's sm_50 kernels run on the M60 (5.2); the T4 (7.5) runs its sm_70 ones */
    assert_null(finding_with(rep, "cudnn_gpu_unsupported", "M60"));
    assert_null(finding_with(rep, "cudnn_gpu_unsupported", "T4"));
    /* X1 (8.0) sits between 7.0 and 9.0 of cuDNN 8: Ampere is a new major, no kernels */
    assert_non_null(finding_with(rep, "cudnn_gpu_unsupported", "X1"));

    const struct imx_compat_component b[] = { CUDA("12.4.1"), CUDNN("9.20.0.1") };
    assert_int_equal(imx_compat_check(&r, b, 2, all + 2, 1, DAY_2025, rep), 0);
    /* X1 (8.0) is past 7.5 in a set with no forward compatibility, derived: a warning */
    const struct imx_compat_finding *f = finding_with(rep, "cudnn_gpu_unsupported", "X1");
    assert_non_null(f);
    assert_int_equal(f->severity, IMX_COMPAT_WARNING);
    assert_null(finding_with(rep, "cudnn_gpu_forward_compat", NULL));

    const struct imx_compat_component c[] = { TORCH("2.4.1+cu124"), PY("3.12.1"), TF("2.99.0"),
                                              CUDNN("9.3.0.75") };
    assert_int_equal(imx_compat_check(&r, c, 4, all + 1, 1, DAY_2025, rep), 0);
    assert_non_null(finding_with(rep, "unknown_component_version", "architecture list"));
    assert_non_null(finding_with(rep, "unknown_component_version", "PyTorch 2.4.1+cu124 has no"));
    assert_non_null(finding_with(rep, "unknown_component_version", "TensorFlow 2.99.0 has no"));
    assert_non_null(finding_with(rep, "unknown_component_version", "The cuDNN TensorFlow"));
    assert_true(rep->ok);

    /* a driver older than every Table-3 floor on a GPU whose own minimum is unknown */
    const struct imx_compat_component d[] = { DRV("418.197.02") };
    assert_int_equal(imx_compat_check(&r, d, 1, all + 1, 1, DAY_2025, rep), 0);
    assert_non_null(finding_with(rep, "unknown_component_version", "minimum NVIDIA driver"));
    const struct imx_compat_component e[] = { DRV("550.54.15") }; /* the oldest floor here */
    assert_int_equal(imx_compat_check(&r, e, 1, all + 1, 1, DAY_2025, rep), 0);
    assert_null(finding_with(rep, "unknown_component_version", "minimum NVIDIA driver"));
    free(rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_rule_at_its_boundary),
        cmocka_unit_test(findings_name_versions_and_sources),
        cmocka_unit_test(findings_are_ordered_deterministically),
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(gpu_names_resolve_like_sql),
        cmocka_unit_test(eol_prefers_nvidia_and_cites_its_page),
        cmocka_unit_test(new_rules_name_their_sources),
        cmocka_unit_test(missing_facts_are_said_and_row_facts_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
