/* The I/O side of `imaxe probe` (see probe.h); every text read is parsed by probe_parse.c. */
#include "probe.h"

#include <curl/curl.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "probe_parse.h"

#define PATH_MAX_LEN 4096

struct probe {
    json_t *out;        /* the fragment */
    json_t *components; /* borrowed from out */
    json_t *node;       /* borrowed from out */
    json_t *sources;    /* borrowed from node */
    json_t *absent;     /* borrowed from node */
    const char *root;   /* IMAXE_PROBE_ROOT or "" */
    int timeout_ms;
};

static void found(struct probe *p, const char *name, const char *version, const char *source)
{
    json_array_append_new(p->components, json_pack("{s:s, s:s}", "name", name, "version", version));
    json_object_set_new(p->sources, name, json_string(source));
}

static void absent(struct probe *p, const char *name, const char *why)
{
    fprintf(stderr, "imaxe probe: %s: not found (%s)\n", name, why);
    json_array_append_new(p->absent, json_string(name));
}

/* root + path into out. */
static const char *rooted(const struct probe *p, const char *path, char out[PATH_MAX_LEN])
{
    snprintf(out, PATH_MAX_LEN, "%s%s", p->root, path);
    return out;
}

/* Reads a whole small file (at most IMX_PROBE_TEXT_MAX bytes) into b. Returns 0, or -1. */
static int read_file(const char *path, struct imx_cli_buf *b)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    char chunk[8192];
    ssize_t n;
    int rc = 0;
    while ((n = read(fd, chunk, sizeof chunk)) > 0)
        if (imx_cli_buf_add(b, chunk, (size_t)n) != 0) {
            rc = -1;
            break;
        }
    if (n < 0)
        rc = -1;
    close(fd);
    if (rc == 0 && !b->data)
        imx_cli_buf_add(b, "", 0);
    return rc;
}

int imx_probe_run_capture(char *const argv[], int timeout_ms, struct imx_cli_buf *out)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 2);
        }
        dup2(fds[1], 1);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    bool timed_out = false;
    char chunk[4096];
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed >= timeout_ms) {
            timed_out = true;
            break;
        }
        struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
        int pr = poll(&pfd, 1, (int)(timeout_ms - elapsed));
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0) {
            timed_out = pr == 0;
            break;
        }
        ssize_t n = read(fds[0], chunk, sizeof chunk);
        if (n <= 0)
            break;
        if (out->len + (size_t)n <= out->max)
            imx_cli_buf_add(out, chunk, (size_t)n);
    }
    close(fds[0]);
    if (timed_out) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        fprintf(stderr, "imaxe probe: %s: no answer within %d ms, killed\n", argv[0], timeout_ms);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!out->data)
        imx_cli_buf_add(out, "", 0);
    if (timed_out || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status);
}

static int run_capture(const struct probe *p, char *const argv[], struct imx_cli_buf *out)
{
    return imx_probe_run_capture(argv, p->timeout_ms, out);
}

/* NVML's types and the few functions used, resolved with dlsym. */
typedef int nvml_ret;
typedef void *nvml_dev;
#define NVML_DRIVER_BUF 80
#define NVML_NAME_BUF   96

/* Driver, GPUs and (when the library has it) the newest CUDA the driver runs, through NVML.
 * Returns 0 when the driver version came from it. */
static int probe_nvml(struct imx_probe_gpus *gpus, char driver[IMX_PROBE_VER_MAX],
                      char driver_cuda[IMX_PROBE_VER_MAX])
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return -1;
    int rc = -1;
    nvml_ret (*init)(void) = (nvml_ret(*)(void))dlsym(lib, "nvmlInit_v2");
    nvml_ret (*shutdown)(void) = (nvml_ret(*)(void))dlsym(lib, "nvmlShutdown");
    nvml_ret (*drv)(char *, unsigned) =
        (nvml_ret(*)(char *, unsigned))dlsym(lib, "nvmlSystemGetDriverVersion");
    nvml_ret (*count)(unsigned *) = (nvml_ret(*)(unsigned *))dlsym(lib, "nvmlDeviceGetCount_v2");
    nvml_ret (*handle)(unsigned, nvml_dev *) =
        (nvml_ret(*)(unsigned, nvml_dev *))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    nvml_ret (*name)(nvml_dev, char *, unsigned) =
        (nvml_ret(*)(nvml_dev, char *, unsigned))dlsym(lib, "nvmlDeviceGetName");
    if (!init || !shutdown || !drv || !count || !handle || !name) {
        fprintf(stderr, "imaxe probe: libnvidia-ml.so.1 lacks an NVML function; not used\n");
        goto out;
    }
    nvml_ret r = init();
    if (r != 0) {
        fprintf(stderr, "imaxe probe: nvmlInit_v2 failed (NVML error %d); not used\n", r);
        goto out;
    }
    char v[NVML_DRIVER_BUF] = "";
    if (drv(v, sizeof v) == 0) {
        v[sizeof v - 1] = '\0';
        size_t len = strspn(v, "0123456789.");
        if (len > 0 && len == strlen(v) && len < IMX_PROBE_VER_MAX) {
            memcpy(driver, v, len + 1);
            rc = 0;
        } else {
            fprintf(stderr, "imaxe probe: NVML's driver version is not a version; not used\n");
        }
    }
    /* Optional: CUDA 13000 means 13.0. */
    nvml_ret (*cuda)(int *) = (nvml_ret(*)(int *))dlsym(lib, "nvmlSystemGetCudaDriverVersion_v2");
    int cv = 0;
    if (cuda && cuda(&cv) == 0 && cv > 0 && cv < 1000000)
        snprintf(driver_cuda, IMX_PROBE_VER_MAX, "%d.%d", cv / 1000, (cv % 1000) / 10);
    unsigned n = 0;
    if (count(&n) == 0) {
        for (unsigned i = 0; i < n && gpus->count < IMX_PROBE_GPUS_MAX; i++) {
            nvml_dev d;
            char nm[NVML_NAME_BUF] = "";
            if (handle(i, &d) == 0 && name(d, nm, sizeof nm) == 0) {
                nm[sizeof nm - 1] = '\0';
                snprintf(gpus->name[gpus->count++], IMX_PROBE_NAME_MAX, "%s", nm);
            }
        }
    }
    shutdown();
out:
    dlclose(lib);
    return rc;
}

static void probe_driver_and_gpus(struct probe *p)
{
    struct imx_probe_gpus gpus = { .count = 0 };
    char driver[IMX_PROBE_VER_MAX] = "";
    const char *source = NULL;
    char path[PATH_MAX_LEN];
    struct imx_cli_buf b;
    imx_cli_buf_init(&b, IMX_PROBE_TEXT_MAX);
    char driver_cuda[IMX_PROBE_VER_MAX] = "";
    if (probe_nvml(&gpus, driver, driver_cuda) == 0)
        source = "nvml";
    if (driver_cuda[0])
        json_object_set_new(p->node, "driver_cuda", json_string(driver_cuda));
    if (!source && read_file(rooted(p, "/proc/driver/nvidia/version", path), &b) == 0 &&
        imx_probe_parse_nvrm(imx_cli_buf_str(&b), driver) == 0)
        source = "/proc/driver/nvidia/version";
    if (!source || gpus.count == 0) {
        char *argv[] = { "nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader",
                         NULL };
        struct imx_probe_gpus smi = { .count = 0 };
        char smi_driver[IMX_PROBE_VER_MAX] = "";
        imx_cli_buf_reset(&b);
        if (run_capture(p, argv, &b) == 0 &&
            imx_probe_parse_smi_csv(imx_cli_buf_str(&b), &smi, smi_driver) == 0) {
            if (!source) {
                strcpy(driver, smi_driver);
                source = "nvidia-smi";
            }
            if (gpus.count == 0)
                gpus = smi;
        }
    }
    if (source)
        found(p, "nvidia-driver", driver, source);
    else
        absent(p, "nvidia-driver",
               "no libnvidia-ml.so.1, /proc/driver/nvidia/version or nvidia-smi");
    json_t *models = json_array();
    json_t *names = json_array();
    for (size_t i = 0; i < gpus.count; i++) {
        char model[IMX_PROBE_NAME_MAX];
        imx_probe_gpu_model(gpus.name[i], model);
        json_array_append_new(names, json_string(gpus.name[i]));
        bool seen = false;
        size_t j;
        json_t *m;
        json_array_foreach(models, j, m)
        {
            seen = seen || strcmp(json_string_value(m), model) == 0;
        }
        if (!seen && model[0])
            json_array_append_new(models, json_string(model));
    }
    if (gpus.count == 0)
        absent(p, "gpus", "no NVML device and no nvidia-smi answer");
    json_object_set_new(p->out, "gpus", models);
    json_object_set_new(p->node, "gpu_names", names);
    json_object_set_new(p->node, "gpu_count", json_integer((json_int_t)gpus.count));
    imx_cli_buf_free(&b);
}

/* A library's version from its file name in the usual library directories (runtime-only
 * images have libcudnn.so.9.1.0 but no headers). Returns 0 with ver and the file in rel. */
static int library_version(const struct probe *p, const char *home, const char *stem,
                           char ver[IMX_PROBE_VER_MAX], char rel[PATH_MAX_LEN])
{
    char lib64[PATH_MAX_LEN / 2];
    char lib[PATH_MAX_LEN / 2];
    snprintf(lib64, sizeof lib64, "%s/lib64", home);
    snprintf(lib, sizeof lib, "%s/lib", home);
    const char *dirs[] = {
        lib64,        lib,       "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64", "/usr/lib"
    };
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char path[PATH_MAX_LEN];
        DIR *dir = opendir(rooted(p, dirs[d], path));
        if (!dir)
            continue;
        struct dirent *e;
        int rc = -1;
        while (rc != 0 && (e = readdir(dir)) != NULL) {
            if (imx_probe_parse_soname(e->d_name, stem, ver) == 0) {
                snprintf(rel, PATH_MAX_LEN, "%.2000s/%.255s", dirs[d], e->d_name);
                rc = 0;
            }
        }
        closedir(dir);
        if (rc == 0)
            return 0;
    }
    return -1;
}

static void probe_cuda_stack(struct probe *p)
{
    const char *home = getenv("CUDA_HOME");
    if (!home || home[0] != '/')
        home = "/usr/local/cuda";
    char rel[PATH_MAX_LEN];
    char path[PATH_MAX_LEN];
    char ver[IMX_PROBE_VER_MAX];
    struct imx_cli_buf b;
    imx_cli_buf_init(&b, IMX_PROBE_TEXT_MAX);

    snprintf(rel, sizeof rel, "%s/version.json", home);
    if (read_file(rooted(p, rel, path), &b) == 0 && imx_probe_parse_cuda_json(b.data, ver) == 0) {
        found(p, "cuda", ver, rel);
    } else {
        snprintf(rel, sizeof rel, "%s/bin/nvcc", home);
        rooted(p, rel, path);
        char *argv[] = { path, "--version", NULL };
        imx_cli_buf_reset(&b);
        if (access(path, X_OK) == 0 && run_capture(p, argv, &b) == 0 &&
            imx_probe_parse_nvcc(imx_cli_buf_str(&b), ver) == 0)
            found(p, "cuda", ver, rel);
        else
            absent(p, "cuda", "no version.json or nvcc under CUDA_HOME or /usr/local/cuda");
    }

    struct {
        const char *name, *file, *major, *minor, *patch, *lib;
    } headers[] = {
        { "cudnn", "cudnn_version.h", "CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL",
          "libcudnn.so." },
        { "nccl", "nccl.h", "NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH", "libnccl.so." },
    };
    for (size_t h = 0; h < sizeof headers / sizeof headers[0]; h++) {
        char home_include[PATH_MAX_LEN];
        snprintf(home_include, sizeof home_include, "%s/include", home);
        const char *dirs[] = { home_include, "/usr/include", "/usr/include/x86_64-linux-gnu",
                               "/usr/include/aarch64-linux-gnu" };
        bool ok = false;
        for (size_t d = 0; d < sizeof dirs / sizeof dirs[0] && !ok; d++) {
            snprintf(rel, sizeof rel, "%s/%s", dirs[d], headers[h].file);
            imx_cli_buf_reset(&b);
            if (read_file(rooted(p, rel, path), &b) == 0 &&
                imx_probe_parse_define_version(b.data, headers[h].major, headers[h].minor,
                                               headers[h].patch, ver) == 0) {
                found(p, headers[h].name, ver, rel);
                ok = true;
            }
        }
        if (!ok && library_version(p, home, headers[h].lib, ver, rel) == 0) {
            found(p, headers[h].name, ver, rel);
            ok = true;
        }
        if (!ok) {
            snprintf(rel, sizeof rel,
                     "no %s, nor a %sX.Y.Z, under CUDA_HOME or /usr/local/cuda, /usr/include, "
                     "/usr/lib",
                     headers[h].file, headers[h].lib);
            absent(p, headers[h].name, rel);
        }
    }
    imx_cli_buf_free(&b);
}

/* The probe's python3 program: Python's version, and PyTorch's with its own CUDA. */
static const char python_script[] = "import sys\n"
                                    "print('python %d.%d.%d' % sys.version_info[:3])\n"
                                    "try:\n"
                                    "    import torch\n"
                                    "    print('torch ' + torch.__version__)\n"
                                    "    if torch.version.cuda:\n"
                                    "        print('torch_cuda ' + torch.version.cuda)\n"
                                    "except Exception:\n"
                                    "    pass\n";

static void probe_tools(struct probe *p)
{
    struct imx_cli_buf b;
    imx_cli_buf_init(&b, IMX_PROBE_OUTPUT_MAX);
    char ver[IMX_PROBE_VER_MAX];
    char *py[] = { "python3", "-c", (char *)python_script, NULL };
    if (run_capture(p, py, &b) == 0 && imx_probe_parse_kv_line(b.data, "python", ver) == 0) {
        found(p, "python", ver, "python3");
        if (imx_probe_parse_kv_line(b.data, "torch", ver) == 0)
            found(p, "pytorch", ver, "python3 -c 'import torch'");
        else
            absent(p, "pytorch", "python3 cannot import torch");
        if (imx_probe_parse_kv_line(b.data, "torch_cuda", ver) == 0)
            json_object_set_new(p->node, "pytorch_cuda", json_string(ver));
    } else {
        absent(p, "python", "no python3 on PATH");
        absent(p, "pytorch", "no python3 on PATH");
    }
    /* `dcgmi -v` prints "Version : 3.3.9" (its --version is something else). */
    struct {
        const char *component, *tool, *flag;
    } tools[] = { { "nvidia-container-toolkit", "nvidia-ctk", "--version" },
                  { "dcgm", "dcgmi", "-v" } };
    for (size_t t = 0; t < sizeof tools / sizeof tools[0]; t++) {
        char *argv[] = { (char *)tools[t].tool, (char *)tools[t].flag, NULL };
        imx_cli_buf_reset(&b);
        if (run_capture(p, argv, &b) == 0 && imx_probe_parse_tool_version(b.data, ver) == 0) {
            found(p, tools[t].component, ver, tools[t].tool);
        } else {
            char why[128];
            snprintf(why, sizeof why, "no %s on PATH", tools[t].tool);
            absent(p, tools[t].component, why);
        }
    }
    char path[PATH_MAX_LEN];
    imx_cli_buf_reset(&b);
    if (read_file(rooted(p, "/opt/amazon/efa_installed_packages", path), &b) == 0 &&
        imx_probe_parse_tool_version(b.data, ver) == 0)
        found(p, "efa", ver, "/opt/amazon/efa_installed_packages");
    else
        absent(p, "efa", "no /opt/amazon/efa_installed_packages");
    imx_cli_buf_free(&b);
}

/* The OS package inventory: dpkg-query on Debian and Ubuntu, rpm on the rpm distros (the
 * first that answers). IMAXE_PROBE_ROOT, when set, is given to them as the admin dir / root. */
static void probe_packages(struct probe *p)
{
    struct imx_cli_buf b;
    imx_cli_buf_init(&b, IMX_PROBE_PACKAGES_OUTPUT_MAX);
    char admindir[PATH_MAX_LEN + 16], root[PATH_MAX_LEN + 16];
    snprintf(admindir, sizeof admindir, "--admindir=%s/var/lib/dpkg", p->root);
    snprintf(root, sizeof root, "--root=%s", p->root[0] ? p->root : "/");
    char *dpkg[] = {
        "dpkg-query", admindir, "-W", "-f", "${db:Status-Abbrev}\t${Package}\t${Version}\n", NULL
    };
    char *rpm[] = {
        "rpm", root, "-qa", "--qf", "%{NAME}\t%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\n", NULL
    };
    json_t *pkgs = json_array();
    const char *source = NULL;
    if (run_capture(p, dpkg, &b) == 0 && !b.overflow &&
        imx_probe_parse_packages(b.data, true, pkgs) > 0) {
        source = "dpkg-query -W";
    } else {
        json_array_clear(pkgs);
        imx_cli_buf_reset(&b);
        if (run_capture(p, rpm, &b) == 0 && !b.overflow &&
            imx_probe_parse_packages(b.data, false, pkgs) > 0)
            source = "rpm -qa";
    }
    if (source) {
        json_object_set_new(p->out, "packages", pkgs);
        json_object_set_new(p->sources, "packages", json_string(source));
    } else {
        json_decref(pkgs);
        absent(p, "packages", "neither dpkg-query nor rpm listed installed packages");
    }
    imx_cli_buf_free(&b);
}

static void probe_system(struct probe *p)
{
    struct utsname u;
    char path[PATH_MAX_LEN];
    struct imx_cli_buf b;
    imx_cli_buf_init(&b, IMX_PROBE_TEXT_MAX);
    bool have_uname = uname(&u) == 0;
    if (have_uname) {
        const char *arch = strcmp(u.machine, "aarch64") == 0 ? "arm64" : u.machine;
        json_object_set_new(p->out, "architecture", json_string(arch));
    }
    char kernel[IMX_PROBE_VER_MAX] = "";
    if (read_file(rooted(p, "/proc/sys/kernel/osrelease", path), &b) == 0) {
        size_t n = strcspn(b.data, "\r\n");
        if (n > 0 && n < sizeof kernel) {
            memcpy(kernel, b.data, n);
            kernel[n] = '\0';
        }
    }
    if (!kernel[0] && have_uname && strlen(u.release) < sizeof kernel)
        strcpy(kernel, u.release);
    if (kernel[0])
        json_object_set_new(p->out, "kernel", json_string(kernel));
    else
        absent(p, "kernel", "no /proc/sys/kernel/osrelease and uname failed");
    char id[IMX_PROBE_VER_MAX];
    char ver[IMX_PROBE_VER_MAX];
    /* os-release(5): /etc first, then /usr/lib. */
    imx_cli_buf_reset(&b);
    bool have_os = read_file(rooted(p, "/etc/os-release", path), &b) == 0;
    if (!have_os) {
        imx_cli_buf_reset(&b);
        have_os = read_file(rooted(p, "/usr/lib/os-release", path), &b) == 0;
    }
    if (have_os && imx_probe_parse_os_release(b.data, id, ver) == 0)
        json_object_set_new(p->out, "os", json_pack("{s:s, s:s}", "name", id, "version", ver));
    else
        absent(p, "os", "no /etc/os-release");
    imx_cli_buf_free(&b);
}

static size_t collect(char *d, size_t s, size_t n, void *u)
{
    struct imx_cli_buf *b = u;
    return imx_cli_buf_add(b, d, s * n) == 0 ? s * n : 0;
}

/* One more IMDS value (path under /latest/meta-data/) into node member name, when it is a
 * plain word (the AMI id, the region): what `probe --report` names the booted image by. */
static void imds_value(CURL *c, const char *base, const char *path, json_t *node, const char *name)
{
    char url[1200];
    struct imx_cli_buf v;
    imx_cli_buf_init(&v, 256);
    long status = 0;
    snprintf(url, sizeof url, "%s/latest/meta-data/%s", base, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &v);
    if (curl_easy_perform(c) == CURLE_OK &&
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status == 200) {
        const char *t = imx_cli_buf_str(&v);
        size_t n = strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789-");
        if (n > 0 && n == strlen(t))
            json_object_set_new(node, name, json_string(t));
    }
    imx_cli_buf_free(&v);
}

/* IMDSv2: a session token by PUT, then the instance type, each within one second (and the AMI
 * id and region, for node reports). */
static void probe_imds(struct probe *p)
{
    const char *base = getenv("IMAXE_IMDS_URL");
    if (!base || !base[0])
        base = "http://169.254.169.254";
    char url[1024];
    struct imx_cli_buf token;
    struct imx_cli_buf type;
    imx_cli_buf_init(&token, 4096);
    imx_cli_buf_init(&type, 256);
    struct curl_slist *h = NULL;
    CURL *c = curl_easy_init();
    long status = 0;
    bool ok = false;
    if (!c)
        goto out;
    snprintf(url, sizeof url, "%s/latest/api/token", base);
    h = curl_slist_append(h, "X-aws-ec2-metadata-token-ttl-seconds: 60");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 1000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &token);
    if (curl_easy_perform(c) != CURLE_OK ||
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK || status != 200 ||
        token.len == 0 || strpbrk(imx_cli_buf_str(&token), "\r\n"))
        goto out;
    char hdr[4200];
    snprintf(hdr, sizeof hdr, "X-aws-ec2-metadata-token: %s", imx_cli_buf_str(&token));
    curl_slist_free_all(h);
    h = curl_slist_append(NULL, hdr);
    snprintf(url, sizeof url, "%s/latest/meta-data/instance-type", base);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, NULL);
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &type);
    if (curl_easy_perform(c) != CURLE_OK ||
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK || status != 200)
        goto out;
    const char *t = imx_cli_buf_str(&type);
    size_t n = strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789.-");
    if (n == 0 || n != strlen(t))
        goto out;
    json_object_set_new(p->node, "instance_type", json_string(t));
    char family[64];
    size_t flen = strcspn(t, ".");
    if (flen > 0 && flen < sizeof family) {
        memcpy(family, t, flen);
        family[flen] = '\0';
        json_object_set_new(p->out, "instance_families", json_pack("[s]", family));
    }
    ok = true;
    imds_value(c, base, "ami-id", p->node, "ami_id");
    imds_value(c, base, "placement/region", p->node, "region");
out:
    if (!ok)
        absent(p, "instance_type", "no answer from the EC2 instance metadata service (IMDSv2)");
    curl_slist_free_all(h);
    if (c)
        curl_easy_cleanup(c);
    imx_cli_buf_free(&token);
    imx_cli_buf_free(&type);
}

json_t *imx_probe_run(const struct imx_probe_opts *o)
{
    struct probe p = { .root = getenv("IMAXE_PROBE_ROOT"), .timeout_ms = IMX_PROBE_TIMEOUT_MS };
    if (!p.root)
        p.root = "";
    const char *t = getenv("IMAXE_PROBE_TIMEOUT_MS");
    if (t && t[0]) {
        char *end;
        long ms = strtol(t, &end, 10);
        if (*end == '\0' && ms > 0 && ms <= 600000)
            p.timeout_ms = (int)ms;
        else
            fprintf(stderr, "imaxe probe: IMAXE_PROBE_TIMEOUT_MS wants 1-600000, not '%s'\n", t);
    }
    p.out = json_object();
    p.components = json_array();
    p.node = json_object();
    p.sources = json_object();
    p.absent = json_array();
    json_object_set_new(p.node, "sources", p.sources);
    json_object_set_new(p.node, "absent", p.absent);
    probe_system(&p);
    probe_driver_and_gpus(&p);
    probe_cuda_stack(&p);
    probe_tools(&p);
    probe_packages(&p);
    if (o->imds)
        probe_imds(&p);
    json_object_set_new(p.out, "components", p.components);
    json_object_set_new(p.out, "node", p.node);
    return p.out;
}
