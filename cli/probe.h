/* `imaxe probe`: reads the stack of the machine it runs on (NVIDIA driver through NVML,
 * /proc or nvidia-smi; GPUs; CUDA, cuDNN, NCCL; PyTorch and Python; Container Toolkit, DCGM,
 * EFA; kernel, OS, architecture; the OS packages (dpkg-query -W, rpm -qa); the EC2 instance
 * type when asked). Every source is optional
 * and every subprocess has a timeout. IMAXE_PROBE_ROOT prefixes every file path (tests). */
#ifndef IMX_CLI_PROBE_H
#define IMX_CLI_PROBE_H

#include <jansson.h>
#include <stdbool.h>

#include "buf.h"

/* Default timeout of each subprocess (IMAXE_PROBE_TIMEOUT_MS overrides). */
#define IMX_PROBE_TIMEOUT_MS 5000
/* Output read from one subprocess at most, and from a package manager's listing. */
#define IMX_PROBE_OUTPUT_MAX          65536
#define IMX_PROBE_PACKAGES_OUTPUT_MAX (1 << 20)

struct imx_probe_opts {
    bool imds; /* ask EC2's instance metadata service (IMAXE_IMDS_URL overrides the address) */
};

/* Probes this machine. Returns a new manifest fragment: architecture, os, kernel, components,
 * gpus (models), instance_families, and "node" (gpu_count, gpu_names, the source of each
 * value, what was absent, instance_type). What is absent is left out and said on stderr. */
json_t *imx_probe_run(const struct imx_probe_opts *o);

/* Runs argv (PATH lookup) with stdin and stderr on /dev/null, capturing up to out's max bytes
 * of stdout into out (inited by the caller), killed with its
 * process group after timeout_ms. Returns its exit status, or -1 (not started, killed). */
int imx_probe_run_capture(char *const argv[], int timeout_ms, struct imx_cli_buf *out);

#endif
