/* Fresh real-world stacks through POST /v1/compat/check against the shipped reference rows, each
 * with the answer its vendor documents (not cases the rules were written from): whether the stack
 * runs (no error), the finding that must be there, and one that must not. Prints how many are
 * right; any wrong one fails. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct imx_t_compat ct;

static int setup(void **state)
{
    (void)state;
    return imx_t_compat_up(&ct, "compat_stacks");
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_compat_down(&ct);
}

static json_t *check(const char *components, const char *gpus)
{
    return imx_t_compat_check(&ct, components, gpus);
}

static bool has(json_t *report, const char *code)
{
    return imx_t_compat_finding(report, code) != NULL;
}

#define C(n, v) IMX_T_COMPONENT(n, v)
#define DRV(v)  C("nvidia-driver", v)
#define CUDA(v) C("cuda", v)

struct stack_case {
    const char *what; /* the stack and the document that settles it */
    const char *components, *gpus;
    bool ok;             /* the stack runs: no error finding */
    const char *present; /* a finding that must be there (NULL: none required) */
    const char *absent;  /* a finding that must not be there (NULL: none) */
};

/* Sources, by the short names used below:
 *   T3    CUDA Toolkit release notes, Table 3 (toolkit -> minimum Linux driver) and Table 2 (MVC)
 *   ARCH  NVIDIA's CUDA Toolkit, Driver and Architecture Matrix (last CUDA / driver per arch)
 *   FEAT  the CUDA features archive (first toolkit per compute capability)
 *   ADA   the Ada compatibility guide ("built to include kernels in Ampere-native cubin")
 *   BWCG  the Blackwell compatibility guide (same major, same or higher minor)
 *   PTM   PyTorch RELEASE.md (Python range, wheel variants, architecture tables 2.8+)
 *   PTB   the release branches' .ci/manywheel/build_cuda.sh (2.6/2.7 lists)
 *   TF    tensorflow.org/install/source#gpu (tested build configurations)
 *   CDNN  the cuDNN support matrices (8.9.1, 9.10.2, 9.17.0) and release notes (9.10.2 last CUDA
 * 11) GPUOP NVIDIA GPU Operator platform support (HGX B200 >= 570.133.20) JAX   JAX installation
 * docs (jax[cuda12]: driver >= 525; jax[cuda13]: >= 580) */
static const struct stack_case cases[] = {
    { "RTX 4090 (8.9) with CUDA 11.8.0 on 520.61.05 [FEAT 11.8 adds sm_89; T3]",
      "[" DRV("520.61.05") "," CUDA("11.8.0") "]", "[\"GeForce RTX 4090\"]", true, NULL,
      "gpu_too_new_for_cuda" },
    { "L4 (8.9) with CUDA 11.7.1: Ampere cubins run [ADA]", "[" CUDA("11.7.1") "]", "[\"L4\"]",
      true, "gpu_cc_binary_compat", "gpu_too_new_for_cuda" },
    { "A100 with CUDA 12.4.1 on R535: minor-version compatibility only [T3, T2]",
      "[" DRV("535.104.05") "," CUDA("12.4.1") "]", "[\"A100\"]", true, "driver_mvc_only", NULL },
    { "A100 with CUDA 12.4.1 on R470: below the 12.x floor [T2]",
      "[" DRV("470.256.02") "," CUDA("12.4.1") "]", "[\"A100\"]", false, "driver_too_old_for_cuda",
      NULL },
    { "H100 with CUDA 12.2.2 on 535.129.03 [T3 12.2.2 >= 535.104.05]",
      "[" DRV("535.129.03") "," CUDA("12.2.2") "]", "[\"H100\"]", true, NULL, "driver_mvc_only" },
    { "T4 with CUDA 13.0.0 on 580.65.06: Turing stays [ARCH]",
      "[" DRV("580.65.06") "," CUDA("13.0.0") "]", "[\"Tesla T4\"]", true, NULL,
      "gpu_dropped_by_cuda" },
    { "V100 with CUDA 13.0.1: Volta dropped [ARCH]", "[" CUDA("13.0.1") "]", "[\"Tesla V100\"]",
      false, "gpu_dropped_by_cuda", NULL },
    { "Tesla P4 (6.1) on R590: R580 is Pascal's last branch [ARCH]", "[" DRV("590.44.01") "]",
      "[\"Tesla P4\"]", false, "gpu_dropped_by_driver", NULL },
    { "Tesla K80 with CUDA 12.0.0: Kepler dropped [ARCH]", "[" CUDA("12.0.0") "]",
      "[\"Tesla K80\"]", false, "gpu_dropped_by_cuda", NULL },
    { "Tesla M60 (5.2) with CUDA 12.9.1 on 575.57.08: still supported [ARCH]",
      "[" DRV("575.57.08") "," CUDA("12.9.1") "]", "[\"Tesla M60\"]", true, NULL,
      "gpu_dropped_by_cuda" },
    { "RTX 5090 (12.0) with CUDA 12.6.3: nothing of 12.x before 12.8 [FEAT]",
      "[" CUDA("12.6.3") "]", "[\"GeForce RTX 5090\"]", false, "gpu_too_new_for_cuda", NULL },
    { "RTX 5080 on 565.57.01 with CUDA 12.8.0: the driver predates Blackwell [T3 12.8 >= 570.26]",
      "[" DRV("565.57.01") "," CUDA("12.8.0") "]", "[\"RTX 5080\"]", false, "gpu_driver_too_old",
      NULL },
    { "GB200 (10.0) with CUDA 12.8.1 on 570.124.06 [FEAT, T3]",
      "[" DRV("570.124.06") "," CUDA("12.8.1") "]", "[\"GB200\"]", true, NULL,
      "gpu_too_new_for_cuda" },
    { "HGX B200 on 535.261.03: below its documented 570.133.20 [GPUOP]", "[" DRV("535.261.03") "]",
      "[\"B200\"]", false, "gpu_driver_too_old", NULL },
    { "Jetson AGX Orin (8.7) with CUDA 12.6.3 [FEAT]", "[" CUDA("12.6.3") "]",
      "[\"Jetson AGX Orin\"]", true, NULL, "gpu_too_new_for_cuda" },
    { "Jetson AGX Thor (11.0) with CUDA 13.0.0 [FEAT]", "[" CUDA("13.0.0") "]",
      "[\"Jetson AGX Thor\"]", true, NULL, "gpu_too_new_for_cuda" },
    { "GB10 (12.1) with CUDA 13.0.0 on 580.95.05 [FEAT]",
      "[" DRV("580.95.05") "," CUDA("13.0.0") "]", "[\"GB10\"]", true, NULL,
      "gpu_too_new_for_cuda" },
    { "PyTorch 2.6.0+cu126 on an RTX 5090: no sm_120 kernels [PTB]",
      "[" DRV("570.124.04") "," C("pytorch", "2.6.0+cu126") "]", "[\"RTX 5090\"]", false,
      "framework_gpu_arch_unsupported", NULL },
    { "PyTorch 2.7.0+cu128 on an RTX 5090 on 570.124.04 [PTB, T3]",
      "[" DRV("570.124.04") "," C("pytorch", "2.7.0+cu128") "]", "[\"RTX 5090\"]", true, NULL,
      "framework_gpu_arch_unsupported" },
    { "PyTorch 2.7.1+cu128 on a GTX 1080 Ti: Pascal left the cu128 wheels [PTB]",
      "[" DRV("570.153.02") "," C("pytorch", "2.7.1+cu128") "]", "[\"GeForce GTX 1080 Ti\"]", false,
      "framework_gpu_arch_unsupported", NULL },
    { "PyTorch 2.6.0+cu124 on a Tesla P100 (6.0) [PTB]",
      "[" DRV("550.54.15") "," C("pytorch", "2.6.0+cu124") "]", "[\"Tesla P100\"]", true, NULL,
      "framework_gpu_arch_unsupported" },
    { "PyTorch 2.6.0+cu118 on a Tesla K80: cu118 keeps 3.7 [PTB]",
      "[" DRV("470.256.02") "," C("pytorch", "2.6.0+cu118") "]", "[\"Tesla K80\"]", true, NULL,
      "framework_gpu_arch_unsupported" },
    { "PyTorch 2.3.1 with Python 3.13: 3.8-3.11 [PTM]",
      "[" C("pytorch", "2.3.1") "," C("python", "3.13.0") "]", "[]", false,
      "python_unsupported_by_framework", NULL },
    { "PyTorch 2.9.0+cu130 on an H100 with 570.172.08: CUDA 13 needs R580 [T3, T2]",
      "[" DRV("570.172.08") "," C("pytorch", "2.9.0+cu130") "]", "[\"H100\"]", false,
      "driver_too_old_for_cuda", NULL },
    { "PyTorch 2.8.0+cu129 on an H100 with 575.51.03 [PTM, T3 12.9.0 >= 575.51.03]",
      "[" DRV("575.51.03") "," C("pytorch", "2.8.0+cu129") "]", "[\"H100\"]", true, NULL,
      "driver_too_old_for_cuda" },
    { "PyTorch 2.8.0+cu126 on a B200: no Blackwell kernels [PTM]",
      "[" DRV("570.133.20") "," C("pytorch", "2.8.0+cu126") "]", "[\"B200\"]", false,
      "framework_gpu_arch_unsupported", NULL },
    { "TensorFlow 2.15.0 with CUDA 12.2 and cuDNN 8.9.4 [TF]",
      "[" C("tensorflow", "2.15.0") "," CUDA("12.2.2") "," C("cudnn", "8.9.4.25") "]", "[]", true,
      NULL, "framework_cudnn_major_mismatch" },
    { "TensorFlow 2.16.1 with cuDNN 9.0.0: built against cuDNN 8.9 [TF]",
      "[" C("tensorflow", "2.16.1") "," CUDA("12.3.2") "," C("cudnn", "9.0.0.312") "]", "[]", false,
      "framework_cudnn_major_mismatch", NULL },
    { "TensorFlow 2.17.0 with CUDA 12.3 and cuDNN 8.9.7 [TF]",
      "[" C("tensorflow", "2.17.0") "," CUDA("12.3.2") "," C("cudnn", "8.9.7.29") "]", "[]", true,
      NULL, "framework_cudnn_major_mismatch" },
    { "TensorFlow 2.14.0 with Python 3.12: 3.9-3.11 [TF]",
      "[" C("tensorflow", "2.14.0") "," C("python", "3.12.1") "]", "[]", false,
      "python_unsupported_by_framework", NULL },
    { "TensorFlow 2.13.0 with CUDA 11.8 and Python 3.11 [TF]",
      "[" C("tensorflow", "2.13.0") "," CUDA("11.8.0") "," C("python", "3.11.9") "]", "[]", true,
      NULL, "python_unsupported_by_framework" },
    { "cuDNN 9.1.0 with CUDA 11.8: a CUDA 11 build exists [CDNN]",
      "[" CUDA("11.8.0") "," C("cudnn", "9.1.0.70") "]", "[]", true, NULL,
      "cudnn_cuda_major_mismatch" },
    { "cuDNN 9.11.0 with CUDA 11.8: 9.10.2 was the last with CUDA 11 [CDNN]",
      "[" CUDA("11.8.0") "," C("cudnn", "9.11.0.98") "]", "[]", false, "cudnn_cuda_major_mismatch",
      NULL },
    { "cuDNN 8.9.7 with CUDA 13.0: no CUDA 13 build [CDNN]",
      "[" CUDA("13.0.0") "," C("cudnn", "8.9.7.29") "]", "[]", false, "cudnn_cuda_major_mismatch",
      NULL },
    { "cuDNN 9.12.0 with CUDA 13.0 on an H100: the set is not read, and it says so [CDNN]",
      "[" CUDA("13.0.0") "," C("cudnn", "9.12.0.46") "]", "[\"H100\"]", true,
      "unknown_component_version", "cudnn_cuda_major_mismatch" },
    { "cuDNN 9.17.0 with CUDA 12.9 on an RTX 5090 (12.0 listed) [CDNN]",
      "[" CUDA("12.9.1") "," C("cudnn", "9.17.0.29") "]", "[\"RTX 5090\"]", true, NULL,
      "cudnn_gpu_forward_compat" },
    { "cuDNN 9.17.0 with CUDA 13.0 on a T4 (7.5 listed) [CDNN]",
      "[" CUDA("13.0.0") "," C("cudnn", "9.17.0.29") "]", "[\"T4\"]", true, NULL,
      "cudnn_gpu_unsupported" },
    { "cuDNN 8.9.1 with CUDA 12.1 on an L40S (8.9 listed) [CDNN 8.9.1]",
      "[" CUDA("12.1.1") "," C("cudnn", "8.9.1.23") "]", "[\"L40S\"]", true, NULL,
      "cudnn_gpu_unsupported" },
    { "cuDNN 8.9.1 on an RTX 5090: cuDNN 8 has no forward compatibility [CDNN 8.9.1]",
      "[" CUDA("12.8.0") "," C("cudnn", "8.9.1.23") "]", "[\"RTX 5090\"]", false,
      "cudnn_gpu_unsupported", NULL },
    { "cuDNN 8.9.1 on a Tesla M60 (5.2): its sm_50 kernels run on Maxwell 5.2 [CDNN 8.9.1]",
      "[" CUDA("12.1.1") "," C("cudnn", "8.9.1.23") "]", "[\"Tesla M60\"]", true, NULL,
      "cudnn_gpu_unsupported" },
    { "cuDNN 9.5.1 on a Tesla M60: listed hardware, no forward-compatibility mode needed [CDNN]",
      "[" CUDA("12.6.3") "," C("cudnn", "9.5.1.17") "]", "[\"Tesla M60\"]", true, NULL,
      "cudnn_gpu_forward_compat" },
    { "A10 on R470: Ampere is supported [ARCH]", "[" DRV("470.256.02") "]", "[\"A10\"]", true, NULL,
      "gpu_driver_too_old" },
    { "L40S with CUDA 12.4.1 on 550.163.01 [T3 12.4.1 >= 550.54.15]",
      "[" DRV("550.163.01") "," CUDA("12.4.1") "]", "[\"L40S\"]", true, NULL, "driver_mvc_only" },
    { "jax[cuda12] on R525 [JAX]", "[" DRV("525.147.05") "," C("jax-cuda12-plugin", "0.4.35") "]",
      "[]", true, NULL, "framework_driver_too_old" },
    { "jax[cuda12] on 520.61.05: below R525 [JAX]",
      "[" DRV("520.61.05") "," C("jax-cuda12-plugin", "0.4.35") "]", "[]", false,
      "framework_driver_too_old", NULL },
    { "CUDA 11.4.4 on 470.82.01 [T3]", "[" DRV("470.82.01") "," CUDA("11.4.4") "]", "[]", true,
      NULL, "driver_too_old_for_cuda" },
    { "CUDA 11.0.3 on 450.51.06 with an A100 [T3, FEAT]",
      "[" DRV("450.51.06") "," CUDA("11.0.3") "]", "[\"A100\"]", true, NULL,
      "driver_too_old_for_cuda" },
    { "CUDA 12.3.2 (no Table-3 row) on 545.23.08: checked as 12.3.1, and said [T3]",
      "[" DRV("545.23.08") "," CUDA("12.3.2") "]", "[]", true, "unknown_component_version",
      "driver_too_old_for_cuda" },
    { "an AMD GPU is not in NVIDIA's list: info, never a silent ok", "[" CUDA("12.8.0") "]",
      "[\"Radeon RX 7900 XTX\"]", true, "unknown_gpu", NULL },
    { "a PyTorch release not yet in the data: info", "[" C("pytorch", "2.15.0+cu130") "]", "[]",
      true, "unknown_component_version", NULL },
};

static void documented_answers(void **state)
{
    (void)state;
    size_t right = 0, n = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < n; i++) {
        const struct stack_case *c = &cases[i];
        json_t *rep = check(c->components, c->gpus);
        bool ok = json_is_true(json_object_get(rep, "ok"));
        bool good = ok == c->ok && (!c->present || has(rep, c->present)) &&
                    (!c->absent || !has(rep, c->absent));
        if (good) {
            right++;
        } else {
            char *text = json_dumps(rep, JSON_COMPACT);
            print_error("WRONG: %s: want ok=%d%s%s%s%s, got %s\n", c->what, c->ok,
                        c->present ? " with " : "", c->present ? c->present : "",
                        c->absent ? " without " : "", c->absent ? c->absent : "", text);
            free(text);
        }
        json_decref(rep);
    }
    print_message("real stacks right: %zu of %zu\n", right, n);
    assert_int_equal(right, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(documented_answers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
