/* The compatibility validator: checks a stack of components against target GPUs and NVIDIA's /
 * the frameworks' published rules (reference data), and reports findings. */
#ifndef IMX_DOMAIN_COMPAT_H
#define IMX_DOMAIN_COMPAT_H

/* Pure C: no I/O and no shared state (thread-safe). The reference data comes in as a snapshot
 * of plain arrays (server/db/reference.c loads one from PostgreSQL; tests build them as C
 * tables). Every string in a snapshot is borrowed by the validator for the call only. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "domain/version.h"

/* ---- reference rows (one struct per ref_ table, the columns the rules need) ---- */

/* ref_cuda_mvc: minor-version-compatibility floor per CUDA major. */
struct imx_ref_cuda_mvc {
    int cuda_major;
    const char *driver_floor; /* "525.60.13" */
    const char *source;
};

/* ref_cuda_driver: CUDA toolkit release -> minimum Linux driver (Table 3). */
struct imx_ref_cuda_driver {
    const char *cuda_version; /* "12.8.0" */
    int cuda_major;
    const char *linux_driver_min; /* "570.26"; NULL when unconfirmed (the major's floor applies) */
    const char *source;
};

/* ref_compute_capability: the first CUDA toolkit that builds code for one compute capability
 * (NVIDIA's CUDA features archive): 12.8 for 10.0 and 12.0, 12.9 for 10.3 and 12.1, 13.0 for
 * 11.0. Finer than the architecture's first CUDA, which only holds for its first capability. */
struct imx_ref_compute_capability {
    const char *compute_capability; /* "10.3" */
    const char *first_cuda;         /* "12.9" */
    const char *source;
    bool unconfirmed; /* status UNCONFIRMED: never an error */
    /* The first toolkit that no longer builds for it ("13.0" for 7.0); NULL while every toolkit
     * since first_cuda does, or when not read (the architecture's last CUDA major applies). */
    const char *dropped_cuda;
};

/* ref_gpu_arch: architecture -> first CUDA, last CUDA major and last driver branch (0 = ongoing).
 */
struct imx_ref_gpu_arch {
    const char *architecture; /* "Volta" */
    const char *first_cuda;   /* "9.0"; NULL when unknown */
    int last_cuda_major;      /* 12 for Volta; 0 = still supported */
    int last_driver_branch;   /* 580 for Volta; 0 = still supported */
    const char *source;
};

/* ref_gpu: model -> architecture, compute capability, first CUDA, driver minimums. */
struct imx_ref_gpu {
    const char *gpu_model;             /* canonical name: "B200" */
    const char *full_name;             /* "NVIDIA B200 (HGX)" */
    const char *architecture;          /* a ref_gpu_arch row */
    const char *compute_capability;    /* "10.0" */
    const char *first_cuda;            /* NULL: use the architecture's */
    const char *min_driver_derived;    /* Table-3 floor of first_cuda; NULL when unknown */
    const char *min_driver_documented; /* model-specific minimum; NULL when none found */
    const char *const *aliases;        /* other spellings */
    size_t n_aliases;
    const char *source;
};

/* ref_driver_branch: branch -> type and end of life. NVIDIA's published end of life wins over
 * an estimate (endoflife.date's release + 1 or 3 years) whenever both are known. */
struct imx_ref_driver_branch {
    int branch;               /* 580 */
    const char *branch_type;  /* "LTSB", "PB", "NFB"; NULL when unconfirmed */
    const char *eol_nvidia;   /* "2028-06-01" (the 1st of NVIDIA's month); NULL when none */
    const char *eol_estimate; /* endoflife.date's computed date; NULL when none */
    const char *source;       /* the row's sources */
    const char *eol_source;   /* NVIDIA's page giving eol_nvidia; NULL: use source */
};

/* ref_cudnn: cuDNN release -> CUDA majors it has builds for, the newest CUDA minor each build
 * covers, and the compute capabilities its kernels cover (support matrix). */
#define IMX_REF_CUDNN_MAX_MAJORS 4
struct imx_ref_cudnn {
    const char *cudnn_version; /* "9.10.2" */
    int cuda_majors[IMX_REF_CUDNN_MAX_MAJORS];
    size_t n_cuda_majors;
    const char *source;
    /* Newest CUDA minor of cuda_majors[i] that build covers ("12.6"); NULL when not read. */
    const char *cuda_max[IMX_REF_CUDNN_MAX_MAJORS];
    const char *cc_min, *cc_max; /* "7.5", "12.0"; NULL when not read */
    bool unconfirmed;            /* status UNCONFIRMED: never an error */
    /* The compute capabilities the support matrix lists, as a set ("7.5;8.0;...;12.0"), or NULL
     * when only cc_min/cc_max were read. A capability between two listed ones is not listed. */
    const char *cc_list;
    /* cc_list was DERIVED from the matrices around it, not read from its own: never an error. */
    bool cc_list_unconfirmed;
    /* NVIDIA's hardware forward-compatibility mode (a GPU newer than the list runs, with limits):
     * forward_compat_known says whether the row states it; when not, cuDNN 9 with a build for
     * CUDA 12 or later has it. */
    bool forward_compat_known, forward_compat;
};

/* ref_pytorch_build: one official PyTorch CUDA wheel build. */
struct imx_ref_pytorch_build {
    const char *pytorch_version; /* "2.5" (major.minor) */
    const char *cuda_version;    /* "12.4" */
    bool experimental;
    const char *source;
    /* The CUDA architectures the wheel is built for ("7.5;8.0;8.6;9.0;10.0;12.0+PTX"); NULL
     * when the list was not read. cuda_archs_source: where it was read. */
    const char *cuda_archs;
    const char *cuda_archs_source;
};

/* ref_pytorch: a PyTorch minor release -> the Python versions it has wheels for. */
struct imx_ref_pytorch {
    const char *pytorch_version;         /* "2.4" */
    const char *python_min, *python_max; /* "3.8", "3.12" */
    const char *source;
};

/* ref_tensorflow: TensorFlow release -> the CUDA and Python it was built and tested with. */
struct imx_ref_tensorflow {
    const char *tensorflow_version; /* "2.16.1" */
    const char *cuda;               /* "12.3" */
    const char *source;
    const char *python_min, *python_max; /* "3.9", "3.12"; NULL when unknown */
    const char *cudnn; /* "8.9" or "9.3": the cuDNN it was built with; NULL when unknown */
};

/* ref_nccl: an NCCL release -> the CUDA majors it has builds for (NVIDIA ships one build per
 * CUDA toolkit; a build links that major's runtime). Only releases whose whole list of builds
 * was read are rows. */
#define IMX_REF_NCCL_MAX_MAJORS 4
struct imx_ref_nccl {
    const char *nccl_version; /* "2.12.12" */
    int cuda_majors[IMX_REF_NCCL_MAX_MAJORS];
    size_t n_cuda_majors;
    const char *cuda_builds; /* "10.2, 11.0, 11.6": the toolkits the builds were made with */
    const char *source;
    bool unconfirmed; /* status UNCONFIRMED: never an error */
};

/* ref_dcgm: a DCGM major.minor -> the oldest driver it runs on (its release notes). */
struct imx_ref_dcgm {
    const char *dcgm_version; /* "3.1" */
    int driver_branch_min;    /* 450 */
    const char *driver_min;   /* "450.80.02"; NULL when the notes name the branch only */
    const char *source;
    bool unconfirmed; /* status UNCONFIRMED: never an error */
};

/* ref_jax: a JAX CUDA wheel variant (jax[cuda12], jax[cuda13]) -> what it is built with and
 * compatible with, the driver branch JAX requires and the oldest SM version it supports. */
struct imx_ref_jax {
    const char *variant;                 /* "cuda13" */
    int cuda_major;                      /* 13 */
    const char *cuda_min;                /* "13.0" */
    const char *cudnn_min, *cudnn_below; /* "9.8", "10.0" */
    int driver_branch_min;               /* 580 */
    const char *cc_min;                  /* "7.5" */
    const char *source;
    bool unconfirmed; /* status UNCONFIRMED: never an error */
};

/* A whole snapshot of the reference data. Arrays and strings are borrowed from the owner. */
struct imx_ref_snapshot {
    long long generation;
    const struct imx_ref_cuda_mvc *mvc;
    size_t n_mvc;
    const struct imx_ref_cuda_driver *cuda;
    size_t n_cuda;
    const struct imx_ref_gpu_arch *archs;
    size_t n_archs;
    const struct imx_ref_gpu *gpus;
    size_t n_gpus;
    const struct imx_ref_driver_branch *branches;
    size_t n_branches;
    const struct imx_ref_cudnn *cudnn;
    size_t n_cudnn;
    const struct imx_ref_pytorch_build *pytorch;
    size_t n_pytorch;
    const struct imx_ref_tensorflow *tensorflow;
    size_t n_tensorflow;
    const struct imx_ref_compute_capability *ccs;
    size_t n_ccs;
    const struct imx_ref_pytorch *pytorch_releases;
    size_t n_pytorch_releases;
    const struct imx_ref_nccl *nccl;
    size_t n_nccl;
    const struct imx_ref_dcgm *dcgm;
    size_t n_dcgm;
    const struct imx_ref_jax *jax;
    size_t n_jax;
};

/* ---- input and output ---- */

/* A component of the stack. Recognized names: nvidia-driver, cuda, cudnn, pytorch, tensorflow,
 * python, nccl, dcgm (others are accepted and ignored). A PyTorch version may carry its CUDA as
 * "+cu124".
 */
struct imx_compat_component {
    const char *name;
    const char *version;
};

/* The GPUs a component entry serves, parallel to an array of components: for a component listed
 * more than once (an image with two driver trees loads one at boot by the GPU attached). n_gpus
 * 0: the entry serves every GPU (a component listed once). */
struct imx_compat_served {
    const char *const *gpus;
    size_t n_gpus;
};

enum imx_compat_severity {
    IMX_COMPAT_ERROR,   /* the stack does not work */
    IMX_COMPAT_WARNING, /* works with limits, or is unsupported */
    IMX_COMPAT_INFO,    /* could not be checked */
};

#define IMX_COMPAT_MAX_FINDINGS   64
#define IMX_COMPAT_MAX_INVOLVED   4
#define IMX_COMPAT_CODE_SIZE      40
#define IMX_COMPAT_MESSAGE_SIZE   512
#define IMX_COMPAT_SOURCE_SIZE    256
#define IMX_COMPAT_NAME_SIZE      72
#define IMX_COMPAT_MAX_COMPONENTS 64
#define IMX_COMPAT_MAX_GPUS       8

/* What a finding is about: a component ({"cuda", "12.8.0"}) or a GPU ({"gpu", "B200"}). */
struct imx_compat_involved {
    char name[IMX_COMPAT_NAME_SIZE];
    char version[IMX_COMPAT_NAME_SIZE];
};

struct imx_compat_finding {
    enum imx_compat_severity severity;
    char code[IMX_COMPAT_CODE_SIZE];       /* stable: driver_too_old_for_cuda, ... */
    char message[IMX_COMPAT_MESSAGE_SIZE]; /* one human sentence naming the versions */
    struct imx_compat_involved involved[IMX_COMPAT_MAX_INVOLVED];
    size_t n_involved;
    char source[IMX_COMPAT_SOURCE_SIZE]; /* URL of the reference row ("" when none) */
};

/* Findings ordered by severity (errors first), then code, then message; identical findings
 * (e.g. from a GPU named twice) appear once. ok = no errors. truncated: there were more than
 * IMX_COMPAT_MAX_FINDINGS findings and the later ones were dropped (cannot happen within the
 * component and GPU limits below, which produce at most about 50). */
struct imx_compat_report {
    bool ok;
    bool truncated;
    size_t n;
    struct imx_compat_finding findings[IMX_COMPAT_MAX_FINDINGS];
};

/* Checks components against gpus (any spelling: "B200", "NVIDIA H100 80GB HBM3", "Tesla V100")
 * with ref; today is "YYYY-MM-DD" (for end-of-life checks). Fills *out completely (about 60 KiB:
 * allocate it, do not put it on a small stack). Returns 0, or -1 when an argument is NULL, when
 * there are more than IMX_COMPAT_MAX_COMPONENTS components or IMX_COMPAT_MAX_GPUS GPUs, or
 * today is not a date (out is then an empty, ok report).
 *
 * Codes: driver_too_old_for_cuda (error), driver_mvc_only (warning),
 * driver_below_cuda_major_floor (error: a CUDA minor without a known minimum still needs its
 * major's floor), gpu_too_new_for_cuda (error; the first CUDA of the GPU's compute capability),
 * gpu_cc_binary_compat (warning: the toolkit cannot target the GPU's capability but builds for a
 * lower one of the same major, whose code runs on it by CUDA binary compatibility, e.g. CUDA 12.8
 * on a B300 (10.3) or a GB10 (12.1); no finding for a PyTorch wheel whose architecture list runs
 * on the GPU),
 * gpu_dropped_by_cuda (error), gpu_dropped_by_driver (error), gpu_driver_too_old (error),
 * cudnn_cuda_major_mismatch (error), cudnn_gpu_unsupported (error: the GPU's compute capability
 * is not among those the cuDNN release lists: older than all of them, or newer on cuDNN 8),
 * cudnn_gpu_forward_compat (warning: a GPU newer than a cuDNN 9 release's list, or between two
 * listed capabilities, runs only in NVIDIA's forward-compatibility mode),
 * framework_gpu_arch_unsupported (error: the PyTorch wheel variant's architecture list has no
 * kernels for the GPU's compute capability, by CUDA binary compatibility and +PTX),
 * framework_cudnn_major_mismatch (error: TensorFlow built with another cuDNN major),
 * framework_driver_too_old (error: TensorFlow's CUDA major needs a newer driver floor, or a
 * JAX CUDA wheel variant, component jax-cudaNN-plugin or jax-cudaNN-pjrt, needs a newer driver
 * branch), framework_cudnn_incompatible (warning: a host
 * cuDNN outside what a JAX variant is compatible with; the pip variant brings its own),
 * cudnn_cuda_minor_unsupported (warning: a CUDA minor
 * newer than the cuDNN build covers), framework_no_cuda_build (error),
 * framework_cuda_build_experimental (info), python_unsupported_by_framework (error),
 * nccl_cuda_major_mismatch (error: the NCCL release has no build for the stack's CUDA major; an
 * NCCL release not in ref_nccl is not checked), dcgm_driver_too_old (error: the driver is older
 * than the DCGM release's notes require; a DCGM major.minor not in ref_dcgm is not checked),
 * driver_branch_eol (warning), unknown_component_version (info), unknown_gpu (info).
 *
 * A PyTorch wheel's own CUDA ("2.7.1+cu126") is checked against the driver and the GPUs like the
 * cuda component, also when the image carries a different host cuda. A finding that rests on a
 * reference row marked unconfirmed is at most a warning, and says so. */
int imx_compat_check(const struct imx_ref_snapshot *ref, const struct imx_compat_component *comps,
                     size_t n_comps, const char *const *gpus, size_t n_gpus, const char *today,
                     struct imx_compat_report *out);

/* Like imx_compat_check, for any number of GPUs: checks them IMX_COMPAT_MAX_GPUS at a time and
 * merges the reports (a finding repeated by several runs appears once; past
 * IMX_COMPAT_MAX_FINDINGS the report is truncated). Returns 0 or -1 as imx_compat_check. */
int imx_compat_check_many(const struct imx_ref_snapshot *ref,
                          const struct imx_compat_component *comps, size_t n_comps,
                          const char *const *gpus, size_t n_gpus, const char *today,
                          struct imx_compat_report *out);

/* Does the stack list a component more than once, its entries naming the GPUs they serve? */
bool imx_compat_has_entries(const struct imx_compat_served *served, size_t n_comps);

/* The components that apply on gpu: every component listed once, and for one listed more than
 * once the entry whose gpus name gpu (the same ref row in any spelling, or the same text).
 * Writes at most max into out; returns how many. */
size_t imx_compat_components_for_gpu(const struct imx_ref_snapshot *ref,
                                     const struct imx_compat_component *comps,
                                     const struct imx_compat_served *served, size_t n_comps,
                                     const char *gpu, struct imx_compat_component *out, size_t max);

/* imx_compat_check_many for a stack whose components may carry the GPUs they serve (served
 * parallel to comps; NULL: none do): each GPU is checked alone with the components that apply on
 * it, and the reports are merged as imx_compat_check_many merges its runs. */
int imx_compat_check_entries(const struct imx_ref_snapshot *ref,
                             const struct imx_compat_component *comps,
                             const struct imx_compat_served *served, size_t n_comps,
                             const char *const *gpus, size_t n_gpus, const char *today,
                             struct imx_compat_report *out);

/* The whole report of an image's stack as JSON (imx_compat_report_json's document). With a
 * component listed more than once, the rules run per GPU with the entries that apply on it
 * (imx_compat_components_for_gpu: a K80 is never held to the 580 entry it is not served by), the
 * findings are merged as in imx_compat_check_many, and the document gains "per_gpu": [{"gpu",
 * "components": [{name, version}] (the entries chosen for it), "ok", "errors", "warnings"}].
 * NULL when out of memory or over the limits. */
json_t *imx_compat_report_full(const struct imx_ref_snapshot *ref,
                               const struct imx_compat_component *comps,
                               const struct imx_compat_served *served, size_t n_comps,
                               const char *const *gpus, size_t n_gpus, const char *today);

/* imx_compat_report_full for an image as the database spells it: components [{name, version,
 * gpus?}] and gpus [names]. */
json_t *imx_compat_report_of_json(const struct imx_ref_snapshot *ref, const json_t *components,
                                  const json_t *gpus, const char *today);

/* "error", "warning" or "info". Borrowed, static. */
const char *imx_compat_severity_name(enum imx_compat_severity s);

/* The report as JSON: {"ok":bool, "errors":n, "warnings":n, "findings":[{"severity", "code",
 * "message", "components":[{"name","version"}], "source"}], "truncated":bool}. Returns a new
 * reference, or NULL when out of memory. */
json_t *imx_compat_report_json(const struct imx_compat_report *r);

/* The canonical ref_gpu row for a GPU name in any spelling (case, spaces and punctuation
 * ignored, as is a leading "NVIDIA" and/or "Tesla"), like SQL imx_ref_gpu_canonical(). Returns
 * a row borrowed from ref, or NULL when unknown. */
const struct imx_ref_gpu *imx_compat_find_gpu(const struct imx_ref_snapshot *ref, const char *name);

#endif /* IMX_DOMAIN_COMPAT_H */
