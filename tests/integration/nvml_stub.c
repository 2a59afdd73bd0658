/* A stand-in for libnvidia-ml.so.1 for the probe tests: the seven NVML functions imaxe probe
 * calls, answering as an 8 x H200 node on driver 580.105.08 would. STUB_NVML_FAIL=1 makes
 * nvmlInit_v2 fail as it does when the kernel module is not loaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef void *nvmlDevice_t;

nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);

#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_INVALID_ARGUMENT  2
#define NVML_ERROR_INSUFFICIENT_SIZE 7

static int devices[8];

nvmlReturn_t nvmlInit_v2(void)
{
    const char *fail = getenv("STUB_NVML_FAIL");
    return fail && strcmp(fail, "1") == 0 ? NVML_ERROR_DRIVER_NOT_LOADED : 0;
}

nvmlReturn_t nvmlShutdown(void)
{
    return 0;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    if (length < 80)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    snprintf(version, length, "%s", "580.105.08");
    return 0;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version)
{
    *version = 13000;
    return 0;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    *count = 8;
    return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    if (index >= 8)
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = &devices[index];
    return 0;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    (void)device;
    if (length < 96)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    snprintf(name, length, "%s", "NVIDIA H200");
    return 0;
}
