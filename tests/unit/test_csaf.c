/* CSAF 2.0 documents mapped to advisories: the version-name forms as a table of every spelling in
 * NVIDIA's 2025-2026 feed and malformed ones, the product mapping product by product, NVIDIA's
 * two shared bulletins end to end, and the whole 2022-2026 feed (181 bulletins) against its
 * expected ranges and the reason for every product left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <glob.h>
#include <time.h>
#include <unistd.h>

#include "domain/csaf.h"
#include "domain/csv.h"
#include "csaf_map.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* text with every run of digits as one 'N': a spelling, digits aside. */
static void shape_of(const char *text, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < len; p++) {
        if (*p >= '0' && *p <= '9') {
            if (n == 0 || out[n - 1] != 'N' || !(p > text && p[-1] >= '0' && p[-1] <= '9'))
                out[n++] = 'N';
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
}

/* Is the spelling of text (digits aside) one of texts? Prints it when not. */
static bool spelling_is_a_case(const char *text, const char *bulletin, const char *const *texts,
                               size_t ntexts)
{
    char want[512], have[512];
    shape_of(text, want, sizeof want);
    for (size_t i = 0; i < ntexts; i++) {
        shape_of(texts[i], have, sizeof have);
        if (strcmp(have, want) == 0)
            return true;
    }
    print_message("not in the table: \"%s\" (NVIDIA-%s)\n", text, bulletin);
    return false;
}

/* Each product version name under branches (the product tree), checked; counts in *n, *missing. */
static void tree_spellings(const json_t *branches, const char *bulletin, const char *const *texts,
                           size_t ntexts, size_t *n, size_t *missing)
{
    size_t i;
    json_t *b;
    json_array_foreach(branches, i, b)
    {
        const char *cat = json_string_value(json_object_get(b, "category"));
        const char *text =
            json_string_value(json_object_get(json_object_get(b, "product"), "name"));
        if (cat && text && strcmp(cat, "product_version") == 0) {
            (*n)++;
            *missing += !spelling_is_a_case(text, bulletin, texts, ntexts);
        }
        tree_spellings(json_object_get(b, "branches"), bulletin, texts, ntexts, n, missing);
    }
}

/* Every product version name of the 2025-2026 feed (tests/data/csaf/feed/2025, 2026: every
 * product, mapped or not), digits aside, is one of texts: the grammar's table holds each
 * spelling with its parse. */
static void every_feed_spelling_is_a_case(const char *const *texts, size_t ntexts)
{
    size_t n = 0, missing = 0, bulletins = 0;
    for (int year = 2025; year <= 2026; year++) {
        char ydir[1200];
        snprintf(ydir, sizeof ydir, "%s/tests/data/csaf/feed/%d", IMX_SOURCE_DIR, year);
        DIR *ids = opendir(ydir);
        if (!ids)
            fail_msg("%s: cannot open", ydir);
        struct dirent *e;
        while ((e = readdir(ids)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[2600];
            snprintf(path, sizeof path, "%s/%s/%s.json", ydir, e->d_name, e->d_name);
            json_error_t err;
            json_t *d = json_load_file(path, 0, &err);
            if (!d)
                fail_msg("%s: %s", path, err.text);
            bulletins++;
            tree_spellings(json_object_get(json_object_get(d, "product_tree"), "branches"),
                           e->d_name, texts, ntexts, &n, &missing);
            json_decref(d);
        }
        closedir(ids);
    }
    print_message("%zu product version names of %zu bulletins of 2025-2026 checked against the "
                  "table\n",
                  n, bulletins);
    assert_int_equal(bulletins, 115);
    assert_int_equal(missing, 0);
}

static void version_names_parse_by_form(void **state)
{
    (void)state;
    static const struct {
        const char *text, *product;
        int rc;
        enum imx_csaf_form form;
        const char *lo, *hi, *list; /* list: the versions of a list, space-separated */
    } cases[] = {
        /* Every distinct spelling of a tracked product's version in NVIDIA's 2025-2026 feed
         * (tests/data/csaf/feed; digits aside), with its product as the bulletin names it;
         * every_feed_spelling_is_a_case checks none is missing. */
        { "All driver version prior to 570.172.08", "Tesla", 0, IMX_CSAF_BELOW, "", "570.172.08",
          "" },
        { "All driver versions prior to 572.13", "Tesla", 0, IMX_CSAF_BELOW, "", "572.13", "" },
        { "All driver versions prior to 570.86.15", "Tesla", 0, IMX_CSAF_BELOW, "", "570.86.15",
          "" },
        { "All versions prior to 36.4",
          "Jeton AGX Orin series (including Jetson Orin NX series, Jetson Orin Nano series)", 0,
          IMX_CSAF_BELOW, "", "36.4", "" },
        { "All versions prior to 24.12.00", "RAPIDS cuDF and cuML", 0, IMX_CSAF_BELOW, "",
          "24.12.00", "" },
        { "All versions prior to 0.13.1 and 0.12.3", "Megatron-LM", 0, IMX_CSAF_BELOW, "", "0.12.3",
          "0.13.1 0.12.3" },
        { "All versions prior to CUDA Toolkit 13.0", "NVIDIA CUDA Toolkit", 0, IMX_CSAF_BELOW, "",
          "13.0", "" },
        { "All versions prior to CUDA Toolkit 12.9 Update 1", "NVIDIA CUDA Toolkit", 0,
          IMX_CSAF_BELOW, "", "12.9.1", "" },
        { "All versions prior to JP5.x: 35.6.2", "NVIDIA Jetson Orin Series", 0, IMX_CSAF_BELOW, "",
          "35.6.2", "" },
        { "All versions prior to r25.10", "Triton Inference Server", 0, IMX_CSAF_BELOW, "", "25.10",
          "" },
        { "All versions prior to v1.2", "TensorRT-LLM", 0, IMX_CSAF_BELOW, "", "1.2", "" },
        { "All versions prior to v1.2.1", "TensorRT-LLM", 0, IMX_CSAF_BELOW, "", "1.2.1", "" },
        { "35.6",
          "Jeton AGX Orin series (including Jetson Orin NX series, Jetson Orin Nano series)", 0,
          IMX_CSAF_EXACT, "", "35.6", "" },
        { "553.56(vGPU 17.5)", "Virtual GPU Manager", 0, IMX_CSAF_EXACT, "", "553.56", "" },
        { "582.16(vGPU software 19.4)", "Guest driver", 0, IMX_CSAF_EXACT, "", "582.16", "" },
        { "24.12.00", "RAPIDS cuDF and cuML", 0, IMX_CSAF_EXACT, "", "24.12.00", "" },
        { "595.71.05(April 2026 Release)", "Guest driver", 0, IMX_CSAF_EXACT, "", "595.71.05", "" },
        { "590.48.01(December 2025 Release)", "Guest driver", 0, IMX_CSAF_EXACT, "", "590.48.01",
          "" },
        { "570.133.20(March 2025 Release)", "Guest driver", 0, IMX_CSAF_EXACT, "", "570.133.20",
          "" },
        { "580.95.02(September 2025 Release)", "Virtual GPU Manager", 0, IMX_CSAF_EXACT, "",
          "580.95.02", "" },
        { "550.144.02(vGPU 17.5)", "Virtual GPU Manager", 0, IMX_CSAF_EXACT, "", "550.144.02", "" },
        { "580.126.09(vGPU software 19.4)", "Guest driver", 0, IMX_CSAF_EXACT, "", "580.126.09",
          "" },
        { "CUDA Toolkit 12.8", "NVIDIA CUDA Toolkit", 0, IMX_CSAF_EXACT, "", "12.8", "" },
        { "CUDA Toolkit 12.9 Update 1", "NVIDIA CUDA Toolkit", 0, IMX_CSAF_EXACT, "", "12.9.1",
          "" },
        { "r25.10", "Triton Inference Server", 0, IMX_CSAF_EXACT, "", "25.10", "" },
        { "v1.2", "TensorRT-LLM", 0, IMX_CSAF_EXACT, "", "1.2", "" },
        { "v1.2.1", "TensorRT-LLM", 0, IMX_CSAF_EXACT, "", "1.2.1", "" },
        { "v1.3.0 rc15", "TensorRT-LLM", 0, IMX_CSAF_EXACT, "", "1.3.0rc15", "" },
        { "35.6.3 and newer", "Jetson Xavier Series", 0, IMX_CSAF_FROM, "", "35.6.3", "" },
        { "0.13.1 and 0.12.3", "Megatron-LM", 0, IMX_CSAF_LIST, "", "0.12.3", "0.13.1 0.12.3" },
        { "0 to v1.0.0", "NVIDIA Dynamo", 0, IMX_CSAF_UPTO, "", "1.0.0", "" },
        { "0.0  to 4.5.2", "DCGM", 0, IMX_CSAF_UPTO, "", "4.5.2", "" },
        { "0.0  to v1.3.0 rc11", "TensorRT-LLM", 0, IMX_CSAF_UPTO, "", "1.3.0rc11", "" },
        { "0.0 - 2.0", "NVIDIA DALI", 0, IMX_CSAF_UPTO, "", "2.0", "" },
        { "0.0 to v1.3.0 rc16", "TensorRT-LLM", 0, IMX_CSAF_UPTO, "", "1.3.0rc16", "" },
        { "572.60(All versions prior to and including vGPU 18.0)", "Virtual GPU Manager", 0,
          IMX_CSAF_UPTO, "", "572.60", "" },
        { "539.28(All versions prior to and including vGPU 16.10)(All versions prior to and "
          "including vGPU 18.3)",
          "Guest driver", 0, IMX_CSAF_UPTO, "", "539.28", "" },
        { "573.76(All versions prior to and including vGPU software 18.5)", "Guest driver", 0,
          IMX_CSAF_UPTO, "", "573.76", "" },
        { "581.80(All versions prior to and including vGPU software 19.3) ", "Guest driver", 0,
          IMX_CSAF_UPTO, "", "581.80", "" },
        { "581.15(All versions prior to and including vGPU19.1)", "Guest driver", 0, IMX_CSAF_UPTO,
          "", "581.15", "" },
        { "553.20(All versions up to and including vGPU 17.4)", "Virtual GPU Manager", 0,
          IMX_CSAF_UPTO, "", "553.20", "" },
        { "0.0-26.05", "Triton Inference Server", 0, IMX_CSAF_UPTO, "", "26.05", "" },
        { "35.6.2 and earlier", "Jetson Xavier Series", 0, IMX_CSAF_UPTO, "", "35.6.2", "" },
        { "535.230.02(All versions prior to and including vGPU 16.9)", "Guest driver", 0,
          IMX_CSAF_UPTO, "", "535.230.02", "" },
        { "580.105.08(All versions prior to and including vGPU software 19.3)", "Guest driver", 0,
          IMX_CSAF_UPTO, "", "580.105.08", "" },
        { "580.82.02(All versions up to and including the August 2025 release)",
          "Virtual GPU Manager", 0, IMX_CSAF_UPTO, "", "580.82.02", "" },
        { "570.124.06(All versions up to and including the Feb 2025 release)", "Guest driver", 0,
          IMX_CSAF_UPTO, "", "570.124.06", "" },
        { "595.58.03(All versions up to and including the March 2026 release)", "Guest driver", 0,
          IMX_CSAF_UPTO, "", "595.58.03", "" },
        { "580.105.08(All versions up to and including the November 2025 release)", "Guest driver",
          0, IMX_CSAF_UPTO, "", "580.105.08", "" },
        { "550.127.06(All versions up to and including vGPU 17.4)", "Virtual GPU Manager", 0,
          IMX_CSAF_UPTO, "", "550.127.06", "" },
        { "All versions up to and including 1.17.0", "NVIDIA Container Toolkit", 0, IMX_CSAF_UPTO,
          "", "1.17.0", "" },
        { "All versions up to and including 1.17.7 (CDI mode only for versions prior to 1.17.5)",
          "NVIDIA Container Toolkit", 0, IMX_CSAF_UPTO, "", "1.17.7", "" },
        { "All versions up to CUDA Toolkit 12.8", "NVIDIA CUDA Toolkit", 0, IMX_CSAF_UPTO, "",
          "12.8", "" },
        { "v0 - v10.16.1", "TensorRT", 0, IMX_CSAF_UPTO, "", "10.16.1", "" },
        { "Versions 0.0 to 2.7.2", "NVIDIA NeMo Framework", 0, IMX_CSAF_UPTO, "", "2.7.2", "" },
        /* the issue's examples and older spellings */
        { "All versions up to CUDA 12.8 Update 1", "NVIDIA CUDA Toolkit", 0, IMX_CSAF_UPTO, "",
          "12.8.1", "" },
        { "All versions prior to CUDA 13.0", "NVIDIA CUDA Toolkit", 0, IMX_CSAF_BELOW, "", "13.0",
          "" },
        { "All versions up to and including CUDA Toolkit 12.5U1", "NVIDIA CUDA Toolkit", 0,
          IMX_CSAF_UPTO, "", "12.5.1", "" },
        { "All 32.x versions prior to 32.7.1", "Jetson AGX Xavier series", 0, IMX_CSAF_BELOW, "32",
          "32.7.1", "" },
        { "All 2.9 versions prior to 2.9.3", NULL, 0, IMX_CSAF_BELOW, "2.9", "2.9.3", "" },
        { "All versions prior 2.3.0", NULL, 0, IMX_CSAF_BELOW, "", "2.3.0", "" },
        { "All versions before release 25.07", NULL, 0, IMX_CSAF_BELOW, "", "25.07", "" },
        { "Release 25.07", NULL, 0, IMX_CSAF_EXACT, "", "25.07", "" },
        { "2.3.4 and 2.3.5", NULL, 0, IMX_CSAF_LIST, "", "2.3.4", "2.3.4 2.3.5" },
        { "2.3.5, 2.3.4 and 2.4.0", NULL, 0, IMX_CSAF_LIST, "", "2.3.4", "2.3.5 2.3.4 2.4.0" },
        { "All driver versions prior to 580.126.09", "Tesla", 0, IMX_CSAF_BELOW, "", "580.126.09",
          "" },
        { "all versions PRIOR TO 2.4.1.", NULL, 0, IMX_CSAF_BELOW, "", "2.4.1", "" },
        { "Versions before 4.1.1", NULL, 0, IMX_CSAF_BELOW, "", "4.1.1", "" },
        { "All versions earlier than v1.17.4", NULL, 0, IMX_CSAF_BELOW, "", "1.17.4", "" },
        { "All versions up to  and including 26.3.1", "NVIDIA GPU Operator", 0, IMX_CSAF_UPTO, "",
          "26.3.1", "" },
        { "All driver versions prior to and including 535.274.02", "Tesla", 0, IMX_CSAF_UPTO, "",
          "535.274.02", "" },
        { "v1.17.3 or earlier", NULL, 0, IMX_CSAF_UPTO, "", "1.17.3", "" },
        { "2.18.1 to 2.21.5", "NCCL", 0, IMX_CSAF_SPAN, "2.18.1", "2.21.5", "" },
        { "From 3.1 through 3.3.5", NULL, 0, IMX_CSAF_SPAN, "3.1", "3.3.5", "" },
        { "Versions 3.1 through 3.3.5", NULL, 0, IMX_CSAF_SPAN, "3.1", "3.3.5", "" },
        { "Version 1.19.1", NULL, 0, IMX_CSAF_EXACT, "", "1.19.1", "" },
        { "\t1.19.1 ", NULL, 0, IMX_CSAF_EXACT, "", "1.19.1", "" },
        { "1.6.0 and later", NULL, 0, IMX_CSAF_FROM, "", "1.6.0", "" },
        { "All versions", NULL, 0, IMX_CSAF_ALL, "", "", "" },
        { "1.2.", NULL, 0, IMX_CSAF_EXACT, "", "1.2", "" },
        /* the spellings of 2022-2024 and of the products mapped since (tests/data/csaf/feed) */
        { "510.73.06\t(All versions prior to and including vGPU 14.1)",
          "vGPU software (Virtual GPU Manager)", 0, IMX_CSAF_UPTO, "", "510.73.06", "" },
        { "Main branch prior to 0.5.0 release", "NVIDIA Resiliency Extension", 0, IMX_CSAF_BELOW,
          "", "0.5.0", "" },
        /* a list whose 0.4.1 is not a fix: the translation reads it as below 0.5.0 (5746) */
        { "Main branch prior to 0.5.0 release and 0.4.1", "NVIDIA Resiliency Extension", 0,
          IMX_CSAF_BELOW, "", "0.4.1", "0.5.0 0.4.1" },
        { "Isaac Sim v2.3.0", "Isaac Lab", 0, IMX_CSAF_EXACT, "", "2.3.0", "" },
        { "Isaac Sim  v2.2.1", "Isaac Lab component of NVIDIA Isaac Sim", 0, IMX_CSAF_EXACT, "",
          "2.2.1", "" },
        { "All versions prior to Curator 25.07", "NVIDIA NeMo Curator", 0, IMX_CSAF_BELOW, "",
          "25.07", "" },
        { "Curator 25.07", "NVIDIA NeMo Curator", 0, IMX_CSAF_EXACT, "", "25.07", "" },
        { "v0.1.x - v0.9.x", "NVIDIA CV-CUDA", 0, IMX_CSAF_BELOW, "0.1", "0.10", "" },
        { "0.x - 1.9.x", NULL, 0, IMX_CSAF_BELOW, "", "1.10", "" },
        { "v0.10.0", "NVIDIA CV-CUDA", 0, IMX_CSAF_EXACT, "", "0.10.0", "" },
        { "6.25.7", "NVIDIA TAO", 0, IMX_CSAF_EXACT, "", "6.25.7", "" },
        { "All versions up to and including 2.18.0", "NVIDIA Riva", 0, IMX_CSAF_UPTO, "", "2.18.0",
          "" },
        { "Versions 35.1 and 34.1.1", NULL, 0, IMX_CSAF_LIST, "", "34.1.1", "35.1 34.1.1" },
        { "All 32.x versions prior to 32.7.1", NULL, 0, IMX_CSAF_BELOW, "32", "32.7.1", "" },
        { "v19.11 through v24.08", NULL, 0, IMX_CSAF_SPAN, "19.11", "24.08", "" },
        { "All versions prior to CUDA Toolkit v12.4", "NVIDIA CUDA Toolkit", 0, IMX_CSAF_BELOW, "",
          "12.4", "" },
        { "CUDA Toolkit v12.4U1", "NVIDIA CUDA Toolkit", 0, IMX_CSAF_EXACT, "", "12.4.1", "" },
        { "All versions prior to r2.0.0rc0", "NeMo", 0, IMX_CSAF_BELOW, "", "2.0.0rc0", "" },
        { "All versions prior to 2.5.3-0.1.2", "NVIDIA DOCA-Host", 0, IMX_CSAF_BELOW, "",
          "2.5.3-0.1.2", "" },
        { "23.10-5.1.4.0", "Mellanox OFED", 0, IMX_CSAF_EXACT, "", "23.10-5.1.4.0", "" },
        { "3.0.0-058001", "NVIDIA DOCA-Host", 0, IMX_CSAF_EXACT, "", "3.0.0-058001", "" },
        { "9.0-9.2", NULL, 0, IMX_CSAF_SPAN, "9.0", "9.2", "" },
        { "0.0-26.05", NULL, 0, IMX_CSAF_UPTO, "", "26.05", "" },
        /* DOCA-Host and MLNX_OFED (bulletin 5654): a dash inside the version */
        { "All versions prior to 24.10-3.2.5.0", "Mellanox OFED", 0, IMX_CSAF_BELOW, "",
          "24.10-3.2.5.0", "" },
        { "All versions prior to 3.0.0-058001", "NVIDIA DOCA-Host", 0, IMX_CSAF_BELOW, "",
          "3.0.0-058001", "" },
        { "2.5.3-0.1.2", "NVIDIA DOCA-Host", 0, IMX_CSAF_EXACT, "", "2.5.3-0.1.2", "" },
        /* Spellings of the feed's other products (firmware, switch software, Windows drivers),
         * read by the same rules a tracked product's would be */
        { "25.10.6 or newer", NULL, 0, IMX_CSAF_FROM, "", "25.10.6", "" },
        { "24.10.50 or newer,", NULL, 0, IMX_CSAF_FROM, "", "24.10.50", "" },
        { "24.11.3 LTS", NULL, 0, IMX_CSAF_EXACT, "", "24.11.3", "" },
        { "All versions prior to 24.11.3 LTS", NULL, 0, IMX_CSAF_BELOW, "", "24.11.3", "" },
        { "6.15.x LTS prior to 6.15.6-4 LTS", NULL, 0, IMX_CSAF_BELOW, "6.15", "6.15.6-4", "" },
        { "2.6.1-4 LTS", NULL, 0, IMX_CSAF_EXACT, "", "2.6.1-4", "" },
        { "All BMC firmware versions prior to 00.19.07", NULL, 0, IMX_CSAF_BELOW, "", "00.19.07",
          "" },
        { "All SBIOS versions prior to 1.25", NULL, 0, IMX_CSAF_BELOW, "", "1.25", "" },
        /* a qualifier that is not in parentheses: a second sentence, a "for" clause */
        { "All driver versions prior to 582.53. Only GPUs based on the NVIDIA Maxwell, Volta, and "
          "Pascal GPU architectures are affected.",
          "GeForce", 0, IMX_CSAF_BELOW, "", "582.53", "" },
        { "All drivers versions prior to 474.44 for support of GeForce Kepler desktop", "GeForce",
          0, IMX_CSAF_BELOW, "", "474.44", "" },
        { "All driver versions prior to 582.53 Only GPUs based on the NVIDIA Maxwell, Volta, and "
          "Pascal GPU architectures are affected.",
          "GeForce", 0, IMX_CSAF_BELOW, "", "582.53", "" },
        /* a product word with digits ("nvJPEG2000"); a release line written "v0.7.x" */
        { "All versions prior to nvJPEG2000 v0.7.x", "nvJPEG2000 Library", 0, IMX_CSAF_BELOW, "",
          "0.7", "" },
        { "nvJPEG2000 v0.7.x", "nvJPEG2000 Library", 0, IMX_CSAF_BELOW, "0.7", "0.8", "" },
        { "GB200 1.2", "HGX & DGX GB200", 0, IMX_CSAF_EXACT, "", "1.2", "" },
        /* The 2025-2026 feed's spellings of the products no image carries (firmware, switch
         * software, desktop tools, fixes named by a commit), digits aside, each as read: a
         * bulletin mapping one of them later finds its range already tested */
        { " All versions prior to 3.31", "AuthN component of NVIDIA AIStore", 0, IMX_CSAF_BELOW, "",
          "3.31", "" },
        { " 3.31", "AuthN component of NVIDIA AIStore", 0, IMX_CSAF_EXACT, "", "3.31", "" },
        { "AIStore on Kubernetes 2.3.0", "AIS Operator", 0, IMX_CSAF_EXACT, "", "2.3.0", "" },
        { "All 2.10 versions", "NVIDIA DOCA with collectx-clxapidev", 0, IMX_CSAF_EXACT, "", "2.10",
          "" },
        { "All code branches that do not include commit 27ddd49", "NVIDIA Merlin Transformers4Rec",
          0, IMX_CSAF_COMMIT, "", "", "" },
        { "All versions that do not include code commit 9e95f50", "NVIDIA WebDataset", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "Any code branch that includes code commit 9e95f50", "NVIDIA WebDataset", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "All driver versions prior to 1.4.5.7", "GeForce", 0, IMX_CSAF_BELOW, "", "1.4.5.7", "" },
        { "All versions prior to IGX 1.1", "IGX Orin", 0, IMX_CSAF_BELOW, "", "1.1", "" },
        { "All versions prior to IGX 1.1.2", "IGX Orin", 0, IMX_CSAF_BELOW, "", "1.1.2", "" },
        { "All versions prior to 5.14 (5.13.x, 5.12.x, and older GA versions)", "Cumulus Linux GA",
          0, IMX_CSAF_BELOW, "", "5.14", "" },
        { "All versions prior to 1.3 - 25.02.244", "NVOS", -1, IMX_CSAF_ALL, "", "", "" },
        { "All versions prior to 11.0.2.337 (prod2 hotfix)", "NVIDIA App", 0, IMX_CSAF_BELOW, "",
          "11.0.2.337", "" },
        { "All versions prior to 11.0.5.245", "NVIDIA App", 0, IMX_CSAF_BELOW, "", "11.0.5.245",
          "" },
        { "All versions prior to 22.11_2410 LTS", "Mellanox DPDK 22.11", -1, IMX_CSAF_ALL, "", "",
          "" },
        { "All versions prior to 20.11_7.8.0 LTS", "Mellanox DPDK 20.11", -1, IMX_CSAF_ALL, "", "",
          "" },
        { "All versions prior to 22.11_2504.1.0", "Mellanox DPDK 22.11", -1, IMX_CSAF_ALL, "", "",
          "" },
        { "All versions prior to NSIGHT Graphics 2025.5", "NSIGHT Graphics", 0, IMX_CSAF_BELOW, "",
          "2025.5", "" },
        { "All versions prior to Nsight Graphics 2025.3", "Nsight Graphics", 0, IMX_CSAF_BELOW, "",
          "2025.3", "" },
        { "All versions prior to OTA0", "DGX Spark", -1, IMX_CSAF_ALL, "", "", "" },
        { "All versions prior to SNAP-4.9.1 and SNAP-4.5.5", "SNAP-4 Container", -1, IMX_CSAF_ALL,
          "", "", "" },
        { "All versions prior to and including 1.0", "HGX and DGX B300", 0, IMX_CSAF_UPTO, "",
          "1.0", "" },
        { "All versions prior to and including 1.7.1", "HGX, DGX Hopper", 0, IMX_CSAF_UPTO, "",
          "1.7.1", "" },
        { "All versions prior to nvJPEG 25.03", "nvJPEG", 0, IMX_CSAF_BELOW, "", "25.03", "" },
        { "All versions prior to nvJPEG 13.0.0", "nvJPEG", 0, IMX_CSAF_BELOW, "", "13.0.0", "" },
        { "All versions prior to v3.5.1 and v3.1.7 ", "DLS component of NVIDIA License System", 0,
          IMX_CSAF_BELOW, "", "3.1.7", "3.5.1 3.1.7" },
        { "All versions that do not include code commit 9ca97e1", "NVIDIA Isaac-GR00T N1", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "All versions that do not include code commit 7f53666", "NVIDIA Isaac-GR00T N1.5", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "All versions that do not include code commit b7eaea5", "NVIDIA Merlin Transformers4Rec",
          0, IMX_CSAF_COMMIT, "", "", "" },
        { "All versions that do not include commit 5dd11f4", "NVIDIA NVTabular", 0, IMX_CSAF_COMMIT,
          "", "", "" },
        { "All versions that do not include commit 876f19e", "NVIDIA Merlin Transformers4Rec", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "All versions that do not include commit db8e053", "Apex", 0, IMX_CSAF_COMMIT, "", "",
          "" },
        { "All versions that do not include commit dfd83a7", "BioNeMo Framework", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "All versions that do not include commit e5e58c8", "BioNeMo Framework", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "All versions that do not include commit f2c2b14", "BioNeMo Framework", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "All versions up to and including 0.12.1 (only when CDI is enabled)",
          "NVIDIA MIG Manager", 0, IMX_CSAF_UPTO, "", "0.12.1", "" },
        { "All versions up to and including 0.17.2 (only when device-list-strategy is "
          "cdi-annotations and/or cdi-cri)",
          "NVIDIA Kubernetes Device Plugin", 0, IMX_CSAF_UPTO, "", "0.17.2", "" },
        { "Any code branch that includes code commit 9ca97e1", "NVIDIA Isaac-GR00T N1", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "Any code branch that includes code commit 7f53666", "NVIDIA Isaac-GR00T N1.5", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "Any code branch that includes code commit b7eaea5", "NVIDIA Merlin Transformers4Rec", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "Any code branch that includes commit 5dd11f4", "NVIDIA NVTabular", 0, IMX_CSAF_COMMIT,
          "", "", "" },
        { "Any code branch that includes commit 27ddd49", "NVIDIA Merlin Transformers4Rec", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "Any code branch that includes commit 876f19e", "NVIDIA Merlin Transformers4Rec", 0,
          IMX_CSAF_COMMIT, "", "", "" },
        { "Any code branch that includes commit db8e053", "Apex", 0, IMX_CSAF_COMMIT, "", "", "" },
        { "Any code branch that includes commit dfd83a7", "BioNeMo Framework", 0, IMX_CSAF_COMMIT,
          "", "", "" },
        { "Any code branch that includes commit e5e58c8", "BioNeMo Framework", 0, IMX_CSAF_COMMIT,
          "", "", "" },
        { "Any code branch that includes commit f2c2b14", "BioNeMo Framework", 0, IMX_CSAF_COMMIT,
          "", "", "" },
        { "Any commit on Main after March 11, 2026", "NVIDIA Merlin Transformers4Rec", -1,
          IMX_CSAF_ALL, "", "", "" },
        { "B300 0.6", "HGX & DGX B300", 0, IMX_CSAF_EXACT, "", "0.6", "" },
        { "Cumulus Linux 5.12, 5.11, 5.10, 5.9 and older", "Cumulus Linux", -1, IMX_CSAF_ALL, "",
          "", "" },
        { "Cumulus 5.13, 5.11.0.0026, 5.11.1.1009, 5.9.2.0020, 5.9.0.0032", "Cumulus Linux", 0,
          IMX_CSAF_LIST, "", "5.9.0.0032", "5.13 5.11.0.0026 5.11.1.1009 5.9.2.0020 5.9.0.0032" },
        { "DLS v3.6", "DLS component of NVIDIA License System", 0, IMX_CSAF_EXACT, "", "3.6", "" },
        { "DLS v3.5.1 and v3.1.7", "DLS component of NVIDIA License System", 0, IMX_CSAF_LIST, "",
          "3.1.7", "3.5.1 3.1.7" },
        { "DLS v3.1.8", "DLS component of NVIDIA License System", 0, IMX_CSAF_EXACT, "", "3.1.8",
          "" },
        { "GB300 0.8 dev drop", "HGX & DGX GB300", -1, IMX_CSAF_ALL, "", "", "" },
        { "HGX-22.10-1-rc59 (1.3.2)", "Hopper HGX 8-GPU", -1, IMX_CSAF_ALL, "", "", "" },
        { "HGX-22.10-1-rc57 (1.3.0/1.3.1)", "Hopper HGX 8-GPU", -1, IMX_CSAF_ALL, "", "", "" },
        { "IGX 1.1", "IGX Orin", 0, IMX_CSAF_EXACT, "", "1.1", "" },
        { "IGX 1.1.2 and earlier", "IGX Orin", 0, IMX_CSAF_UPTO, "", "1.1.2", "" },
        { "IGX 1.1.2", "IGX Orin", 0, IMX_CSAF_EXACT, "", "1.1.2", "" },
        { "Kernel SRU 1035 and newer", "IGX Orin", -1, IMX_CSAF_ALL, "", "", "" },
        { "0 - 4.4", "NVIDIA AIStore framework", 0, IMX_CSAF_UPTO, "", "4.4", "" },
        { "0 < 41b14d7", "NVIDIA Tranformers4Rec", -1, IMX_CSAF_ALL, "", "", "" },
        { "46.3008 or newer", "BlueField GA", 0, IMX_CSAF_FROM, "", "46.3008", "" },
        { "0.0 to 5.16", "Cumulus Linux GA", 0, IMX_CSAF_UPTO, "", "5.16", "" },
        { "0.0 to 5.11.5", "Cumulus Linux LTS", 0, IMX_CSAF_UPTO, "", "5.11.5", "" },
        { "0.0 to 25.0.2.4438", "NVOS", 0, IMX_CSAF_UPTO, "", "25.0.2.4438", "" },
        { "0.0 to 5dd11f4", "NVIDIA NVTabular", 0, IMX_CSAF_COMMIT, "", "", "" },
        { "25.02.5030 ", "NVOS", 0, IMX_CSAF_EXACT, "", "25.02.5030", "" },
        { "1.7.21 and older versions", "VIRTIO-Net LTS23", 0, IMX_CSAF_UPTO, "", "1.7.21", "" },
        { "1.3.1- 25.02.244", "NVOS", -1, IMX_CSAF_ALL, "", "", "" },
        { "11.0.2.337 (prod2 hotfix)", "NVIDIA App", 0, IMX_CSAF_EXACT, "", "11.0.2.337", "" },
        { "11.0.5.245", "NVIDIA App", 0, IMX_CSAF_EXACT, "", "11.0.5.245", "" },
        { "22.11_24104.0 LTS", "Mellanox DPDK 22.11", -1, IMX_CSAF_ALL, "", "", "" },
        { "22.11_2504.1.0 GA", "Mellanox DPDK 22.11", -1, IMX_CSAF_ALL, "", "", "" },
        { "20.11_7.9.0 LTS", "Mellanox DPDK 20.11", -1, IMX_CSAF_ALL, "", "", "" },
        { "NSIGHT Graphics 2025.5", "NSIGHT Graphics", 0, IMX_CSAF_EXACT, "", "2025.5", "" },
        { "NVOS 25.02.42xx", "NVOS", -1, IMX_CSAF_ALL, "", "", "" },
        { "NVOS 25.02.21xx,  25.02.22xx,  25.02.23xx", "NVOS", -1, IMX_CSAF_ALL, "", "", "" },
        { "NVOS 25.02.3xxx", "NVOS", -1, IMX_CSAF_ALL, "", "", "" },
        { "8bf122f", "NVIDIA Tranformers4Rec", 0, IMX_CSAF_COMMIT, "", "", "" },
        { "08e0633", "NVIDIA NVTabular", 0, IMX_CSAF_COMMIT, "", "", "" },
        { "No patch will be provided", "NVIDIA runx", -1, IMX_CSAF_ALL, "", "", "" },
        { "Nsight Graphics 2025.3", "Nsight Graphics", 0, IMX_CSAF_EXACT, "", "2025.3", "" },
        { "OTA0", "DGX Spark", -1, IMX_CSAF_ALL, "", "", "" },
        { "SNAP-4.9.0, SNAP-4.9.1, SNAP-4.5.5 ", "SNAP-4 Container", -1, IMX_CSAF_ALL, "", "", "" },
        { "SNAP-4.9.1, SNAP4 4.5.5 ", "SNAP-4 Container", -1, IMX_CSAF_ALL, "", "", "" },
        { "nvJPEG 25.03", "nvJPEG", 0, IMX_CSAF_EXACT, "", "25.03", "" },
        { "nvJPEG 13.0.0", "nvJPEG", 0, IMX_CSAF_EXACT, "", "13.0.0", "" },
        /* forms no bulletin of the corpus uses yet, for the bulletins to come */
        { "All versions prior to CUDA Toolkit 12.8 U1", "NVIDIA CUDA Toolkit", 0, IMX_CSAF_BELOW,
          "", "12.8.1", "" },
        { "v1.3.0-rc16", "TensorRT-LLM", 0, IMX_CSAF_EXACT, "", "1.3.0rc16", "" },
        /* a product named with an update or an rc keeps it as the version's */
        { "All versions prior to CUDA Toolkit 12.8 U1", "CUDA Toolkit 12.8 U1", 0, IMX_CSAF_BELOW,
          "", "12.8.1", "" },
        { "v1.3.0 rc16", "TensorRT-LLM 1.3.0 rc16", 0, IMX_CSAF_EXACT, "", "1.3.0rc16", "" },
        { "0.0 to 1.3.0.rc2", "TensorRT-LLM", 0, IMX_CSAF_UPTO, "", "1.3.0rc2", "" },
        { "2.1 and below", NULL, 0, IMX_CSAF_UPTO, "", "2.1", "" },
        { "2.1 or older", NULL, 0, IMX_CSAF_UPTO, "", "2.1", "" },
        { "2.1 or prior", NULL, 0, IMX_CSAF_UPTO, "", "2.1", "" },
        { "2.1 or lower", NULL, 0, IMX_CSAF_UPTO, "", "2.1", "" },
        { "2.2 or higher", NULL, 0, IMX_CSAF_FROM, "", "2.2", "" },
        { "2.2 and higher", NULL, 0, IMX_CSAF_FROM, "", "2.2", "" },
        { ">= 2.2", NULL, 0, IMX_CSAF_FROM, "", "2.2", "" },
        { "All versions less than 2.2", NULL, 0, IMX_CSAF_BELOW, "", "2.2", "" },
        { "Versions below 2.2", NULL, 0, IMX_CSAF_BELOW, "", "2.2", "" },
        { "All versions up to but not including 2.2", NULL, 0, IMX_CSAF_BELOW, "", "2.2", "" },
        { "Jetson Linux versions prior to 36.4.4", "Jetson Orin Series", 0, IMX_CSAF_BELOW, "",
          "36.4.4", "" },
        { "0.0 \xe2\x80\x93 2.0", "NVIDIA DALI", 0, IMX_CSAF_UPTO, "", "2.0", "" },
        { "All\xc2\xa0versions prior to 2.0", NULL, 0, IMX_CSAF_BELOW, "", "2.0", "" },
        { "<2.1", NULL, 0, IMX_CSAF_BELOW, "", "2.1", "" },
        { "<=2.1", NULL, 0, IMX_CSAF_UPTO, "", "2.1", "" },
        { "2.3.x and earlier", NULL, 0, IMX_CSAF_BELOW, "", "2.4", "" },
        { "All versions up to and including 2.3.x", NULL, 0, IMX_CSAF_BELOW, "", "2.4", "" },
        { "1.17.x", "NVIDIA Container Toolkit", 0, IMX_CSAF_BELOW, "1.17", "1.18", "" },
        { "CUDA 12.x", "NVIDIA CUDA Toolkit", 0, IMX_CSAF_BELOW, "12", "13", "" },
        { "TensorRT 10.x prior to 10.16.1", "TensorRT", 0, IMX_CSAF_BELOW, "10", "10.16.1", "" },
        { "From v0.10 up to and including v0.13.2", NULL, 0, IMX_CSAF_SPAN, "0.10", "0.13.2", "" },
        { "from 0.10 up to 0.13", NULL, 0, IMX_CSAF_SPAN, "0.10", "0.13", "" },
        { ">2.1", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        /* a driver release named by its branch is no version: "R580 Update 7" is not 580.7 */
        { "R580 Update 7", "Tesla", -1, IMX_CSAF_ALL, "", "", "" },
        { "v1 update 2", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "1.3.0-rcx", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "0.0 \xe2\x80\x94\xe2 2.0", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        /* a name before a version is a fixed product's spelling, never a condition */
        { "All versions after 18.24.1000", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "since 1.2", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "v0.1.x - v0.9", NULL, 0, IMX_CSAF_SPAN, "0.1", "0.9", "" },
        /* spellings of the same forms found by varying the feed's (tools/csaf_generalise.py
         * reads the older revisions and CVE records, which the corpus already covers) */
        { "1.3.0-rc.16", "TensorRT-LLM", 0, IMX_CSAF_EXACT, "", "1.3.0rc16", "" },
        { "All versions prior to v1.3.0-rc.16", "TensorRT-LLM", 0, IMX_CSAF_BELOW, "", "1.3.0rc16",
          "" },
        { "1.17.8 / 1.18.1", "NVIDIA Container Toolkit", 0, IMX_CSAF_LIST, "", "1.17.8",
          "1.17.8 1.18.1" },
        { "1.18.1 or 1.17.8", "NVIDIA Container Toolkit", 0, IMX_CSAF_LIST, "", "1.17.8",
          "1.18.1 1.17.8" },
        { "All versions prior to 1.17.8 or 1.18.1", NULL, 0, IMX_CSAF_BELOW, "", "1.17.8",
          "1.17.8 1.18.1" },
        { "All versions of Jetson Linux prior to 36.4.4", "Jetson Orin Series", 0, IMX_CSAF_BELOW,
          "", "36.4.4", "" },
        { "All JP6 versions prior to 36.4.4", "Jetson Orin Series", 0, IMX_CSAF_BELOW, "", "36.4.4",
          "" },
        { "All versions prior to core_v0.12.1", "Megatron-LM", 0, IMX_CSAF_BELOW, "", "0.12.1",
          "" },
        { "core_v0.12.1", "Megatron-LM", 0, IMX_CSAF_EXACT, "", "0.12.1", "" },
        /* JetPack numbers its releases apart from Jetson Linux: parsed with jetpack set (checked
         * in jetpack_numbers_are_read_through_the_pairs), never read as L4T's here */
        { "JetPack 6.2.1 (Jetson Linux 36.4.4)", "Jetson Orin Series", 0, IMX_CSAF_EXACT, "",
          "6.2.1", "" },
        { "All JetPack versions prior to 6.2", "Jetson Orin Series", 0, IMX_CSAF_BELOW, "", "6.2",
          "" },
        { "All versions prior to JetPack 6.2.1", "Jetson Orin Series", 0, IMX_CSAF_BELOW, "",
          "6.2.1", "" },
        { "All versions of JetPack prior to 5.1.2", "Jetson Xavier Series", 0, IMX_CSAF_BELOW, "",
          "5.1.2", "" },
        { "36.4.4 JetPack 6.2.1", "Jetson Orin Series", -1, IMX_CSAF_ALL, "", "", "" },
        { "1.17.8 or or 1.18.1", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "1.3.0-rc.", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        /* malformed or not understood: refused, never guessed */
        { "", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "latest", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "All driver versions prior to", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "R580 U7", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "All versions that do not include code commit 9e95f5", NULL, -1, IMX_CSAF_ALL, "", "",
          "" },
        { "All versions that include commit", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "All versions that do not include commit 9e95f50g", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "All versions after commit 9e95f50", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "commit 9e95f50", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "All versions that do not include commit 9e95f50 and 1234abc", NULL, -1, IMX_CSAF_ALL, "",
          "", "" },
        { "4.5.2 to 9e95f50", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "All commits on Main prior to March 11, 2026", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "580.105.08(All versions prior to vGPU 19.4)", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "NVOS 25.02.21xx,  25.02.22xx", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "12.28.4704 to be published by end of September", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "4.5.2 to 0.0", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "1..2", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "1.2.3-beta", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "prior to 1.2.3.4.5.6.7", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "prior to 1234567890.1", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "All 2.9 versions prior to 2.8", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "1.2 (unclosed", NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "versions pr\xc3\xa9"
          "c\xc3\xa9"
          "dant 1.2",
          NULL, -1, IMX_CSAF_ALL, "", "", "" },
        { "prior\nto 1.2", NULL, -1, IMX_CSAF_ALL, "", "", "" },
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct imx_csaf_version_form f;
        int rc = imx_csaf_parse_form(cases[i].text, cases[i].product, &f);
        if (rc != cases[i].rc)
            fail_msg("\"%s\": rc %d, expected %d", cases[i].text, rc, cases[i].rc);
        if (rc != 0)
            continue;
        char list[IMX_CSAF_LIST_MAX * (IMX_VER_TEXT_MAX + 1)] = "";
        for (int k = 0; k < f.nlist; k++) {
            size_t n = strlen(list);
            snprintf(list + n, sizeof list - n, "%s%s", k ? " " : "", f.list[k]);
        }
        if (f.form != cases[i].form || strcmp(f.lo, cases[i].lo) != 0 ||
            strcmp(f.hi, cases[i].hi) != 0 || strcmp(list, cases[i].list) != 0)
            fail_msg("\"%s\": form %d lo \"%s\" hi \"%s\" list \"%s\"", cases[i].text, (int)f.form,
                     f.lo, f.hi, list);
    }
    assert_int_equal(imx_csaf_parse_form(NULL, NULL, &(struct imx_csaf_version_form){ 0 }), -1);
    char longer[400];
    memset(longer, '1', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(imx_csaf_parse_form(longer, NULL, &(struct imx_csaf_version_form){ 0 }), -1);
    /* Words that each give two tokens ("<1") outnumber the token slots: refused, not overrun
     * (fuzz_csaf found the overrun; UBSan stops on it in the sanitized build). */
    char ops[200] = "";
    for (int i = 0; i < 24; i++)
        strcat(ops, "<1 ");
    strcat(ops, "1");
    assert_int_equal(imx_csaf_parse_form(ops, NULL, &(struct imx_csaf_version_form){ 0 }), -1);
    const char *texts[N_ELEMS(cases)];
    for (size_t i = 0; i < N_ELEMS(cases); i++)
        texts[i] = cases[i].text;
    every_feed_spelling_is_a_case(texts, N_ELEMS(cases));
}

/* The commit forms (bulletins that name their fix by a code commit): which commit, and whether
 * they name the versions without it, with it, or up to it. */
static void commit_forms_name_their_commit(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        enum imx_csaf_commit_role role;
        const char *commit;
    } cases[] = {
        { "All versions that do not include code commit 9e95f50", IMX_CSAF_WITHOUT, "9e95f50" },
        { "Any code branch that includes code commit 9e95f50", IMX_CSAF_WITH, "9e95f50" },
        { "All code branches that do not include commit 27ddd49", IMX_CSAF_WITHOUT, "27ddd49" },
        { "All versions that do not include commit DFD83A7", IMX_CSAF_WITHOUT, "dfd83a7" },
        { "Any code branch that includes commit e5e58c8", IMX_CSAF_WITH, "e5e58c8" },
        { "All versions that do not include commit 9e95f50fcf06abb7cbd5043ae16f86653ca1ee5b",
          IMX_CSAF_WITHOUT, "9e95f50fcf06abb7cbd5043ae16f86653ca1ee5b" },
        { "08e0633", IMX_CSAF_WITH, "08e0633" },
        { "0.0 to 5dd11f4", IMX_CSAF_THROUGH, "5dd11f4" },
        { "0 - 5dd11f4", IMX_CSAF_THROUGH, "5dd11f4" },
        /* a commit of digits alone after "commit"; alone, the same digits are a version */
        { "All versions that do not include commit 1234567", IMX_CSAF_WITHOUT, "1234567" },
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct imx_csaf_version_form f;
        if (imx_csaf_parse_form(cases[i].text, NULL, &f) != 0 || f.form != IMX_CSAF_COMMIT)
            fail_msg("\"%s\": not a commit form", cases[i].text);
        if (f.commit_role != cases[i].role || strcmp(f.commit, cases[i].commit) != 0)
            fail_msg("\"%s\": role %d commit \"%s\"", cases[i].text, (int)f.commit_role, f.commit);
    }
    struct imx_csaf_version_form f;
    assert_int_equal(imx_csaf_parse_form("1234567", NULL, &f), 0);
    assert_int_equal(f.form, IMX_CSAF_EXACT);
}

/* The platform an architecture branch names. */
static void architectures_name_platforms(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        { "Linux(R580)", "linux" },
        { "Windows, Linux", "linux" },
        { "All platforms", "linux" },
        { "DALI Backend", "linux" },
        { "Windows(R580)", "windows" },
        { "Windows(R580 vGPU 19)", "windows" },
        { "Azure Local, Windows Server(R580 vGPU 19)", "windows" },
        { "Linux(R580 vGPU 19)", "vgpu-guest" },
        { "Ubuntu(R550 vGPU 17)", "vgpu-host" },
        { "XenServer, VMware vSphere, Red Hat Enterprise Linux KVM, Ubuntu(vGPU 19)", "vgpu-host" },
        { "Citrix Hypervisor, VMware vSphere, Red Hat Enterprise Linux KVM(R470)", "vgpu-host" },
        { "Linux(R570 Gaming)", "cloud-gaming" },
        { "Red Hat Enterprise Linux KVM, VMware vSphere(Gaming)", "cloud-gaming" },
        { "Jetson Linux(36)", "jetson" },
        { "JetPack 6", "jetson" },
        { "L4T(36)", "jetson" },
        { "Ubuntu 20.04, Ubuntu 22.04, Jetpack", "linux" },
        { "macOS", "macos" },
        /* hypervisors of the vGPU releases to come, without "vGPU" in the branch */
        { "Nutanix AHV(R580)", "vgpu-host" },
        { "Proxmox VE(R580)", "vgpu-host" },
        { "Microsoft Hyper-V(R580 vGPU 19)", "windows" },
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++)
        if (strcmp(imx_csaf_platform(cases[i][0]), cases[i][1]) != 0)
            fail_msg("%s: %s, expected %s", cases[i][0], imx_csaf_platform(cases[i][0]),
                     cases[i][1]);
}

/* A one-vulnerability document: architecture > product_version branches given as JSON. */
static json_t *doc_with(const char *branches, const char *affected, const char *fixed)
{
    char text[8192];
    snprintf(text, sizeof text,
             "{\"document\":{\"csaf_version\":\"2.0\",\"title\":\"Bulletin\","
             "\"publisher\":{\"name\":\"NVIDIA Product Security\"},"
             "\"aggregate_severity\":{\"text\":\"MODERATE\"},\"tracking\":{\"id\":\"9001\","
             "\"version\":\"1.1.0\",\"initial_release_date\":\"2026-02-03T00:00:00Z\"}},"
             "\"product_tree\":{\"branches\":[{\"category\":\"vendor\",\"name\":\"NVIDIA\","
             "\"branches\":%s}]},"
             "\"vulnerabilities\":[{\"cve\":\"CVE-2026-0001\",\"product_status\":"
             "{\"known_affected\":%s,\"fixed\":%s},\"scores\":[{\"cvss_v3\":{\"baseScore\":6.1},"
             "\"cvss_v4\":{\"baseScore\":6.9}}]}]}",
             branches, affected, fixed);
    json_t *d = json_loads(text, 0, NULL);
    if (!d)
        fail_msg("bad test document: %s", text);
    return d;
}

#define PV(name, version, id)                                                                      \
    "{\"category\":\"product_version\",\"name\":\"" name "\",\"product\":{\"name\":\"" version     \
    "\",\"product_id\":\"" id "\"}}"
#define ARCH(name, ...)                                                                            \
    "{\"category\":\"architecture\",\"name\":\"" name "\",\"branches\":[" __VA_ARGS__ "]}"

/* A product with a CPE (its product field is what ref_nvidia_product matches). */
#define PVC(name, cpe, version, id)                                                                \
    "{\"category\":\"product_version\",\"name\":\"" name "\",\"product\":{\"name\":\"" version     \
    "\",\"product_id\":\"" id                                                                      \
    "\",\"product_identification_helper\":{\"cpe\":\"cpe:2.3:a:nvidia:" cpe                        \
    ":*:*:*:*:*:*:*:*\"}}}"

/* A small product mapping in ref_nvidia_product's shape, read as the CSV import reads it. */
static json_t *test_map(void)
{
    static const char csv[] =
        "match,platform,component,branched,notes\n"
        "cpe:tesla,linux,nvidia-driver,true,data-centre driver\n"
        "cpe:tesla,windows,,false,Windows driver\n"
        "cpe:geforce,any,,false,desktop driver\n"
        "cpe:guest_driver,vgpu-guest,vgpu-driver,true,vGPU guest\n"
        "cpe:dcgm_exporter,any,dcgm-exporter,false,exporter\n"
        "cpe-prefix:jetson,jetson,jetson-linux,true,Jetson Linux\n"
        "cpe:nvidia_docahost,linux,doca-host,true,DOCA-Host\n"
        "name:tesla,linux,nvidia-driver,true,data-centre driver\n"
        "name:nvidia container toolkit,any,nvidia-container-toolkit,false,toolkit\n"
        "name:nvidia gpu operator,any,,false,an operator\n"
        "name:cuda toolkit,any,cuda,false,CUDA\n"
        "name:nvidia data center gpu manager (dcgm),any,dcgm,false,DCGM\n"
        "name:nccl,any,nccl,false,NCCL\n"
        "name:triton inference server,linux,triton-server,false,Triton\n"
        "name:megatron-lm,any,megatron-lm,false,Megatron\n";
    char err[128];
    json_t *map = imx_csv_rows(csv, sizeof csv - 1, err, sizeof err);
    if (!map)
        fail_msg("test map: %s", err);
    return map;
}

/* The translation's affected ranges as "component range fixed|..." */
static void ranges_text(const json_t *out, char *got, size_t len)
{
    got[0] = '\0';
    size_t k;
    json_t *e;
    json_array_foreach(json_object_get(out, "affected"), k, e)
    {
        const char *fx = json_string_value(json_object_get(e, "fixed"));
        size_t n = strlen(got);
        snprintf(got + n, len - n, "%s%s %s %s", k ? "|" : "",
                 json_string_value(json_object_get(e, "component")),
                 json_string_value(json_object_get(e, "range")), fx ? fx : "-");
    }
}

static void products_map_to_components_or_are_left_out(void **state)
{
    (void)state;
    json_t *map = test_map();
    static const struct {
        const char *what, *branches, *affected, *fixed;
        const char *want;   /* "component range fixed" entries joined by "|"; "": none */
        size_t unmapped;    /* products listed as left out */
        const char *warned; /* a word of the one warning; NULL: none */
    } cases[] = {
        { "Linux data-centre driver by CPE, branch from the version",
          "[" ARCH("Linux(R580)", PVC("Tesla", "tesla", "All driver versions prior to 580.126.09",
                                      "a") "," PVC("Tesla", "tesla", "580.126.09", "f")) "]",
          "[\"a\"]", "[\"f\"]", "nvidia-driver >=580, <580.126.09 580.126.09", 0, NULL },
        { "the fixed product is the lowest fix above the range of the same branch",
          "[" ARCH("Linux(R580)",
                   PV("Tesla", "All driver versions prior to 580.126.09", "a") "," PV(
                       "Tesla", "580.95.05 to 580.105.08",
                       "s") "," PV("Tesla", "580.126.09",
                                   "f")) "," ARCH("Linux(R590)", PV("Tesla", "590.48.01", "g")) "]",
          "[\"a\"]", "[\"g\",\"s\",\"f\"]", "nvidia-driver >=580, <580.126.09 580.126.09", 0,
          NULL },
        { "a first_fixed product is a fix too",
          "[" ARCH("Linux(R570)", PV("Tesla", "All driver versions prior to 570.211.01",
                                     "a") "," PV("Tesla", "570.211.01", "f")) "]",
          "[\"a\"]", "[], \"first_fixed\": [\"f\"]", "nvidia-driver >=570, <570.211.01 570.211.01",
          0, NULL },
        { "up to and including X: X and its builds, branch bound kept",
          "[" ARCH("Linux(R535)",
                   PV("Tesla", "All driver versions up to and including 535.274.02", "a")) "]",
          "[\"a\"]", "[]", "nvidia-driver >=535, <535.274.03dev0 -", 0, NULL },
        { "Windows and GeForce are left out, each listed; vGPU guest by its platform",
          "[" ARCH("Windows(R580)",
                   PVC("Tesla", "tesla", "All driver versions prior to 582.16",
                       "w")) "," ARCH("Linux(R580)",
                                      PVC("GeForce", "geforce",
                                          "All driver versions prior to "
                                          "580.126.09",
                                          "g")) "," ARCH("Linux(R580 vGPU 19)",
                                                         PVC("Guest driver", "guest_driver",
                                                             "580.105.08(All "
                                                             "versions prior to "
                                                             "and including vGPU "
                                                             "software 19.3)",
                                                             "v")) "]",
          "[\"w\",\"g\",\"v\"]", "[]", "vgpu-driver >=580, <580.105.09dev0 -", 2, NULL },
        { "Container Toolkit mapped, GPU Operator listed as left out",
          "[" ARCH(
              "Linux",
              PV("NVIDIA Container Toolkit", "All versions up to and including 1.19.0", "c") "," PV(
                  "NVIDIA Container Toolkit", "1.19.1",
                  "cf") "," PV("NVIDIA GPU Operator", "All versions up to and including 26.3.1",
                               "o") "," PV("NVIDIA GPU Operator", "26.3.2", "of")) "]",
          "[\"c\",\"o\"]", "[\"of\",\"cf\"]", "nvidia-container-toolkit <1.19.1dev0 1.19.1", 1,
          NULL },
        { "CUDA Toolkit repeated in its version names; up to X fixed in X is before X",
          "[" ARCH("Windows, Linux", PV("CUDA Toolkit", "All versions up to CUDA Toolkit 12.8",
                                        "k") "," PV("CUDA Toolkit", "CUDA Toolkit 12.8", "kf")) "]",
          "[\"k\"]", "[\"kf\"]", "cuda <12.8 12.8", 0, "inside" },
        { "DCGM from 0.0 is from the beginning, NCCL as a span",
          "[" ARCH("Linux", PV("NVIDIA Data Center GPU Manager (DCGM)", "0.0  to 4.5.2",
                               "d") "," PV("NVIDIA Data Center GPU Manager (DCGM)", "4.5.3",
                                           "df") "," PV("NCCL", "2.18.1 to 2.21.5", "n")) "]",
          "[\"d\",\"n\"]", "[\"df\"]", "dcgm <4.5.3dev0 4.5.3|nccl >=2.18.1, <2.21.6dev0 -", 0,
          NULL },
        { "DCGM Exporter fixed inside its own range (5857): the range ends before the fix",
          "[" ARCH("All(4.8)", PVC("DCGM Exporter", "dcgm_exporter", "0.0  to 4.8.2", "e") "," PVC(
                                   "DCGM Exporter", "dcgm_exporter", "4.8.2", "ef")) "]",
          "[\"e\"]", "[\"ef\"]", "dcgm-exporter <4.8.2 4.8.2", 0, "inside" },
        { "Jetson Linux by a CPE prefix, bounded by its release line",
          "[" ARCH("Jetson Linux(36)",
                   PVC("Jetson Orin Series", "jetson_orin_series", "All versions prior to 36.5",
                       "j") "," PVC("Jetson Orin Series", "jetson_orin_series", "36.5", "jf")) "]",
          "[\"j\"]", "[\"jf\"]", "jetson-linux >=36, <36.5 36.5", 0, NULL },
        { "DOCA-Host (5654): each release line its architecture names bounds its range, so the "
          "2.5 line's fix is not inside the 2.9 line's range",
          "[" ARCH("Linux(DOCA 2.5)",
                   PVC("NVIDIA DOCA-Host", "nvidia_docahost", "All versions prior to 2.5.3-0.1.2",
                       "a") "," PVC("NVIDIA DOCA-Host", "nvidia_docahost", "2.5.3-0.1.2",
                                    "af")) "," ARCH("Linux(DOCA 2.9)",
                                                    PVC("NVIDIA DOCA-Host", "nvidia_docahost",
                                                        "All versions prior to 2.9.2-0.1.6",
                                                        "b") "," PVC("NVIDIA DOCA-Host",
                                                                     "nvidia_docahost",
                                                                     "2.9.2-0.1.6", "bf")) "]",
          "[\"a\",\"b\"]", "[\"af\",\"bf\"]",
          "doca-host >=2.5, <2.5.3-0.1.2 2.5.3-0.1.2|doca-host >=2.9, <2.9.2-0.1.6 2.9.2-0.1.6", 0,
          NULL },
        { "Triton with r-prefixed releases on Linux; its Windows build is left out",
          "[" ARCH("Linux",
                   PV("Triton Inference Server", "All versions prior to r26.02", "t") "," PV(
                       "Triton Inference Server", "r26.02",
                       "tf")) "," ARCH("Windows", PV("Triton Inference Server", "24.11", "tw")) "]",
          "[\"t\",\"tw\"]", "[\"tf\"]", "triton-server <26.02 26.02", 1, NULL },
        { "several versions in one name: each release line before its fix",
          "[" ARCH("All platforms", PV("Megatron-LM", "All versions prior to 0.13.1 and 0.12.3",
                                       "m") "," PV("Megatron-LM", "0.13.1 and 0.12.3", "mf")) "]",
          "[\"m\"]", "[\"mf\"]", "megatron-lm >=0.13, <0.13.1 0.13.1|megatron-lm <0.12.3 0.12.3", 0,
          NULL },
        { "a parenthesised condition is read without it, with a warning",
          "[" ARCH("All", PV("NVIDIA Container Toolkit",
                             "All versions up to and including 1.17.7 (CDI mode only for versions "
                             "prior to 1.17.5)",
                             "c") "," PV("NVIDIA Container Toolkit", "1.17.8", "cf")) "]",
          "[\"c\"]", "[\"cf\"]", "nvidia-container-toolkit <1.17.8dev0 1.17.8", 0,
          "parenthesised" },
        { "plain CSAF: the version as the branch name, the product above it",
          "[{\"category\":\"product_name\",\"name\":\"NVIDIA Container Toolkit\",\"branches\":[" PV(
              "1.17.3 and earlier", "1.17.3 and earlier", "p") "]}]",
          "[\"p\"]", "[]", "nvidia-container-toolkit <1.17.4dev0 -", 0, NULL },
        { "a version name not understood: that product left out, the rest imported",
          "[" ARCH("Linux(R580)", PV("Tesla", "R580 U7", "a") "," PV(
                                      "Tesla", "All driver versions prior to 580.126.09", "b")) "]",
          "[\"a\",\"b\"]", "[]", "nvidia-driver >=580, <580.126.09 -", 1, NULL },
        { "a bound off its architecture's branch is read on its own branch, with a warning",
          "[" ARCH("Linux(R580)", PV("Tesla", "All driver versions prior to 575.57.08", "a")) "]",
          "[\"a\"]", "[]", "nvidia-driver >=575, <575.57.08 -", 0, "branch" },
        { "a version of two parts is its release line, up to the fix beyond it (5797's 38.2); the "
          "38.3 line between is named neither affected nor fixed: a warning",
          "[" ARCH("Jetson Linux(38)",
                   PVC("Jetson Orin Series", "jetson_orin_series", "38.2",
                       "j") "," PVC("Jetson Orin Series", "jetson_orin_series", "38.4", "jf")) "]",
          "[\"j\"]", "[\"jf\"]", "jetson-linux >=38.2, <38.3dev0 38.4", 0,
          "end with 38.2 and its builds but the fix is 38.4: the versions between are named "
          "neither" },
        { "up to and including X, the fix past X's next point release (5716's 36.4.4 fixed in "
          "36.4.6): 36.4.5 is neither, a warning worded as prior to's",
          "[" ARCH("Jetson Linux(36)",
                   PVC("Jetson Orin Series", "jetson_orin_series", "36.4.4 and earlier",
                       "j") "," PVC("Jetson Orin Series", "jetson_orin_series", "36.4.6 and newer",
                                    "jf")) "]",
          "[\"j\"]", "[\"jf\"]", "jetson-linux >=36, <36.4.5dev0 36.4.6", 0,
          "the versions between are named neither affected nor fixed, and are not marked" },
        { "up to and including X fixed in the next line's first release (5585's 1.16.2 fixed in "
          "1.17.0): no release between is known, no warning",
          "[" ARCH("Linux",
                   PV("NVIDIA Container Toolkit", "All versions up to and including 1.16.2",
                      "c") "," PV("NVIDIA Container Toolkit", "1.17.0", "cf")) "]",
          "[\"c\"]", "[\"cf\"]", "nvidia-container-toolkit <1.16.3dev0 1.17.0", 0, NULL },
        { "vGPU: the driver numbers jump between consecutive releases (5312's 470.82 of vGPU 13.1 "
          "fixed in 470.103.02 of 13.2): the releases say no gap",
          "[" ARCH(
              "Linux(R470 vGPU 13)",
              PVC("Guest driver", "guest_driver",
                  "470.82(All versions prior to and including vGPU 13.1)",
                  "v") "," PVC("Guest driver", "guest_driver", "470.103.02(vGPU 13.2)", "vf")) "]",
          "[\"v\"]", "[\"vf\"]", "vgpu-driver >=470, <470.83dev0 470.103.02", 0, NULL },
        { "vGPU: a release skipped (13.1 fixed in 13.3) leaves 13.2 neither: a warning naming "
          "the releases",
          "[" ARCH(
              "Linux(R470 vGPU 13)",
              PVC("Guest driver", "guest_driver",
                  "470.82(All versions prior to and including vGPU 13.1)",
                  "v") "," PVC("Guest driver", "guest_driver", "470.129.06(vGPU 13.3)", "vf")) "]",
          "[\"v\"]", "[\"vf\"]", "vgpu-driver >=470, <470.83dev0 470.129.06", 0,
          "end with 470.82 and its builds (vGPU 13.1) but the fix is 470.129.06 (vGPU 13.3): the "
          "versions between are named neither" },
        { "vGPU: one driver named the fix of two releases (5747's 570.211.01 as 18.6 and 19.4): "
          "the lower, the next, decides",
          "[" ARCH("Linux(R570 vGPU 18)",
                   PVC("Guest driver", "guest_driver",
                       "570.195.02(All versions prior to and including vGPU software 18.5)",
                       "v") "," PVC("Guest driver", "guest_driver",
                                    "570.211.01(vGPU software 19.4)",
                                    "vf") "," PVC("Guest driver", "guest_driver",
                                                  "570.211.01(vGPU software 18.6)", "vg")) "]",
          "[\"v\"]", "[\"vf\",\"vg\"]", "vgpu-driver >=570, <570.195.03dev0 570.211.01", 0, NULL },
        { "vGPU: a fix named with another line's release only (5747's 19.4 for the 18.5 line) "
          "says nothing of a gap",
          "[" ARCH("Linux(R570 vGPU 18)",
                   PVC("Guest driver", "guest_driver",
                       "570.195.02(All versions prior to and including vGPU software 18.5)",
                       "v") "," PVC("Guest driver", "guest_driver",
                                    "570.211.01(vGPU software 19.4)", "vf")) "]",
          "[\"v\"]", "[\"vf\"]", "vgpu-driver >=570, <570.195.03dev0 570.211.01", 0, NULL },
        { "a release line ends at a fix inside it, as meant: no warning",
          "[" ARCH("Jetson Linux(36)",
                   PVC("Jetson Orin Series", "jetson_orin_series", "36.4", "j") "," PVC(
                       "Jetson Orin Series", "jetson_orin_series", "36.4.3", "jf")) "]",
          "[\"j\"]", "[\"jf\"]", "jetson-linux >=36.4, <36.4.3 36.4.3", 0, NULL },
        { "prior to X fixed above X (5611): as written, with a warning on the versions between",
          "[" ARCH(
              "Jetson Linux(36)",
              PVC("Jetson Orin Series", "jetson_orin_series", "All versions prior to 36.4",
                  "j") "," PVC("Jetson Orin Series", "jetson_orin_series", "36.4.3", "jf")) "]",
          "[\"j\"]", "[\"jf\"]", "jetson-linux >=36, <36.4 36.4.3", 0, "neither" },
        { "the only fix names another branch (5703's 575.274.02 for vGPU 16): no fix, a warning",
          "[" ARCH(
              "Linux(R535 vGPU 16)",
              PVC("Guest driver", "guest_driver",
                  "535.261.03(All versions prior to and including vGPU 16.11)",
                  "v") "," PVC("Guest driver", "guest_driver", "575.274.02(vGPU 16.12)", "vf")) "]",
          "[\"v\"]", "[\"vf\"]", "vgpu-driver >=535, <535.261.04dev0 -", 0, "another branch" },
        { "an exact version is it and its builds (5596's nvjpeg2000 0.8.0), not 0.8.1's "
          "pre-releases",
          "[" ARCH("All platforms",
                   PV("Megatron-LM", "0.8.0", "m") "," PV("Megatron-LM", "0.8.1", "mf")) "]",
          "[\"m\"]", "[\"mf\"]", "megatron-lm >=0.8.0, <0.8.1dev0 0.8.1", 0, NULL },
        { "up to and including 12.6 fixed in 12.6.1 (5564): before the fix, no warning",
          "[" ARCH("Windows, Linux",
                   PV("CUDA Toolkit", "All versions up to and including CUDA Toolkit 12.6",
                      "k") "," PV("CUDA Toolkit", "12.6 Update 1", "kf")) "]",
          "[\"k\"]", "[\"kf\"]", "cuda <12.6.1 12.6.1", 0, NULL },
        { "an exact version fixed on a later line (5442's 34.1.1 fixed in 35.2.1): its builds "
          "only",
          "[" ARCH("Jetson Linux", PVC("Jetson AGX Orin", "jetson_agx_orin", "34.1.1", "j") "," PVC(
                                       "Jetson AGX Orin", "jetson_agx_orin", "35.2.1", "jf")) "]",
          "[\"j\"]", "[\"jf\"]", "jetson-linux >=34.1.1, <34.1.2dev0 35.2.1", 0, NULL },
        { "a driver release named by branch and update is no version (\"R580 Update 7\")",
          "[" ARCH("Linux(R580)", PV("Tesla", "R580 Update 7", "a")) "]", "[\"a\"]", "[]", "", 1,
          NULL },
        { "a release line as the fix (\"v0.7.x\"): fixed from its first version",
          "[" ARCH("Linux", PV("NVIDIA Container Toolkit",
                               "All versions prior to NVIDIA Container Toolkit v1.17.x",
                               "c") "," PV("NVIDIA Container Toolkit", "v1.17.x", "cf")) "]",
          "[\"c\"]", "[\"cf\"]", "nvidia-container-toolkit <1.17 1.17", 0, NULL },
        { "a known_affected id no branch of the tree names is listed as left out, once",
          "[" ARCH("Linux(R580)", PV("Tesla", "All driver versions prior to 580.126.09", "a")) "]",
          "[\"a\",\"nowhere\",\"nowhere\"]", "[]", "nvidia-driver >=580, <580.126.09 -", 1, NULL },
        { "nothing imaxe tracks: stored as such, every product listed",
          "[" ARCH("Windows(R580)",
                   PVC("Tesla", "tesla", "All driver versions prior to 582.16",
                       "w") "," PV("NVIDIA App", "All versions prior to 11.0", "x")) "]",
          "[\"w\",\"x\"]", "[]", "", 2, NULL },
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        json_t *d = doc_with(cases[i].branches, cases[i].affected, cases[i].fixed);
        assert_true(imx_csaf_is_csaf(d));
        json_t *errors = json_array();
        struct imx_csaf_meta meta;
        json_t *out = imx_csaf_to_advisory(d, map, errors, &meta);
        if (!out)
            fail_msg("%s: %s", cases[i].what, json_dumps(errors, 0));
        char got[1024];
        ranges_text(out, got, sizeof got);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("%s: got \"%s\", expected \"%s\"", cases[i].what, got, cases[i].want);
        json_t *un = json_object_get(out, "unmapped"), *warn = json_object_get(out, "warnings");
        if (json_array_size(un) != cases[i].unmapped)
            fail_msg("%s: unmapped %s", cases[i].what, json_dumps(un, 0));
        for (size_t k = 0; k < json_array_size(un); k++) {
            json_t *u = json_array_get(un, k);
            assert_non_null(json_string_value(json_object_get(u, "product")));
            assert_non_null(json_string_value(json_object_get(u, "text")));
            assert_true(strlen(json_string_value(json_object_get(u, "why"))) > 10);
        }
        if (cases[i].warned) {
            const char *w = json_string_value(json_object_get(json_array_get(warn, 0), "warning"));
            if (json_array_size(warn) != 1 || !strstr(w, cases[i].warned))
                fail_msg("%s: warnings %s", cases[i].what, json_dumps(warn, 0));
        } else if (json_array_size(warn) != 0) {
            fail_msg("%s: unexpected warnings %s", cases[i].what, json_dumps(warn, 0));
        }
        assert_int_equal(json_array_size(errors), 0);
        assert_string_equal(json_string_value(json_object_get(out, "id")), "NVIDIA-9001");
        assert_string_equal(json_string_value(json_object_get(out, "severity")), "medium");
        assert_string_equal(json_string_value(json_object_get(out, "published")), "2026-02-03");
        assert_true(json_real_value(json_object_get(out, "cvss")) == 6.1);
        assert_string_equal(meta.version, "1.1.0");
        assert_true(meta.cvss_v4 == 6.9);
        json_decref(out);
        json_decref(errors);
        json_decref(d);
    }
    json_decref(map);
}

/* The bound that ends "X and its builds": X's last number plus one, below that version's
 * pre-releases where the keys hold one, or the fix above X when it comes first; each bound is
 * checked against the versions around it, as a range ">=X, <bound" matches them. */
static void exact_and_inclusive_bounds_cover_the_builds(void **state)
{
    (void)state;
    static const struct {
        const char *x, *fix;
        const char *want;           /* NULL: no bound (X stays inclusive) */
        const char *in[4], *out[4]; /* versions inside and outside ">=X, <want" */
    } cases[] = {
        { "0.8.0",
          "0.8.1",
          "0.8.1dev0",
          { "0.8.0", "0.8.0.38", "0.8.0.999999999", "0.8.0.38.1" },
          { "0.8.1rc1", "0.8.1a1", "0.8.1.dev0", "0.8.1" } },
        { "0.8.0", NULL, "0.8.1dev0", { "0.8", "0.8.0-1" }, { "0.8.1-rc.1", "0.7.9", "0.9" } },
        { "470.82",
          "470.103.02",
          "470.83dev0",
          { "470.82", "470.82.01", "470.82.0.1" },
          { "470.83", "470.83rc1", "470.103.02", "470.81.99" } },
        /* the fix first: its pre-releases come before it, as "prior to 12.6.1" takes them */
        { "12.6",
          "12.6.1",
          "12.6.1",
          { "12.6", "12.6.0", "12.6.0.1", "12.6.1rc1" },
          { "12.6.1", "12.6.2", "12.7", "12.5.1" } },
        { "26.03", "26.04", "26.04dev0", { "26.03", "26.3.1" }, { "26.04", "26.04rc1" } },
        { "34.1.1", "35.2.1", "34.1.2dev0", { "34.1.1", "34.1.1.5" }, { "34.1.2", "35.1" } },
        { "418.226.00", NULL, "418.226.01dev0", { "418.226", "418.226.0.7" }, { "418.226.01" } },
        { "0.9", NULL, "0.10dev0", { "0.9", "0.9.12" }, { "0.10", "0.10rc1", "0.10.0a1" } },
        { "1.2.3.4", NULL, "1.2.3.5dev0", { "1.2.3.4", "1.2.3.4.1" }, { "1.2.3.5", "1.2.3.5rc1" } },
        /* X a pre-release: its next one, which has no pre-releases of its own */
        { "1.3.0rc14", "1.3.0rc15", "1.3.0rc15", { "1.3.0rc14" }, { "1.3.0rc15", "1.3.0" } },
        { "1.3.0rc14", NULL, "1.3.0rc15", { "1.3.0rc14" }, { "1.3.0rc15", "1.3.0rc13" } },
        /* five parts: the keys hold no pre-release of the next, so the next itself */
        { "1.2.3.4.5", NULL, "1.2.3.4.6", { "1.2.3.4.5", "1.2.3.4.5.9" }, { "1.2.3.4.6" } },
        /* a fix below, at or after the bound is not the bound (below or at X: add_range's
         * "inside" reading; a pre-release of the next above its lowest key) */
        { "2.0", "1.9", "2.1dev0", { "2.0.5" }, { "2.1" } },
        { "4.8.2", "4.8.2", "4.8.3dev0", { "4.8.2" }, { "4.8.3" } },
        { "1.3.0", "1.3.1rc1", "1.3.1dev0", { "1.3.0.1" }, { "1.3.1rc1" } },
        /* no number to bump that orders: the bulletin's inclusive bound stays */
        { "2.1.0-beta", NULL, NULL, { NULL }, { NULL } },
        { "2.6.0+cu124", NULL, NULL, { NULL }, { NULL } },
        { "2.0.post1", NULL, NULL, { NULL }, { NULL } },
        { "999999999", NULL, NULL, { NULL }, { NULL } },
        { "not a version", NULL, NULL, { NULL }, { NULL } },
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        char got[IMX_VER_TEXT_MAX + 8];
        int rc = imx_csaf_builds_bound(cases[i].x, cases[i].fix, got, sizeof got);
        if (!cases[i].want) {
            if (rc != -1)
                fail_msg("%s: got %s, expected no bound", cases[i].x, got);
            continue;
        }
        if (rc != 0 || strcmp(got, cases[i].want) != 0)
            fail_msg("%s fixed %s: got %s (%d), expected %s", cases[i].x,
                     cases[i].fix ? cases[i].fix : "-", rc == 0 ? got : "", rc, cases[i].want);
        char range[160];
        snprintf(range, sizeof range, ">=%s, <%s", cases[i].x, got);
        struct imx_constraint c;
        assert_int_equal(imx_constraint_parse(range, &c, NULL, 0), 0);
        for (size_t k = 0; k < 4; k++) {
            if (cases[i].in[k] && !imx_constraint_matches_str(&c, cases[i].in[k]))
                fail_msg("%s does not take %s", range, cases[i].in[k]);
            if (cases[i].out[k] && imx_constraint_matches_str(&c, cases[i].out[k]))
                fail_msg("%s takes %s", range, cases[i].out[k]);
        }
    }
    char small[6];
    assert_int_equal(imx_csaf_builds_bound("0.8.0", NULL, small, sizeof small), -1);
    assert_int_equal(imx_csaf_builds_bound(NULL, NULL, small, sizeof small), -1);
}

/* A document that is not a bulletin is refused whole; without a map nothing maps. */
static void refusals_are_for_documents_only(void **state)
{
    (void)state;
    json_t *bad = json_loads("{\"document\":{\"csaf_version\":\"2.0\"}}", 0, NULL);
    json_t *errors = json_array();
    assert_null(imx_csaf_to_advisory(bad, NULL, errors, NULL));
    assert_true(json_array_size(errors) >= 3); /* tracking id, title, release date, ... */
    json_decref(errors);
    json_decref(bad);
    json_t *d = doc_with("[" ARCH("Linux(R580)", PV("Tesla", "R580 U7", "a")) "]", "[\"a\"]", "[]");
    errors = json_array();
    json_t *out = imx_csaf_to_advisory(d, NULL, errors, NULL);
    assert_non_null(out);
    assert_int_equal(json_array_size(json_object_get(out, "affected")), 0);
    json_t *u = json_array_get(json_object_get(out, "unmapped"), 0);
    assert_string_equal(json_string_value(json_object_get(u, "product")), "Linux(R580) > Tesla");
    assert_string_equal(json_string_value(json_object_get(u, "text")), "R580 U7");
    json_decref(out);
    json_decref(errors);
    json_decref(d);
    json_t *osv = json_loads("{\"schema_version\":\"1.6.0\"}", 0, NULL);
    assert_false(imx_csaf_is_csaf(osv));
    json_decref(osv);
}

static json_t *load_path(const char *path)
{
    json_error_t err;
    json_t *d = json_load_file(path, 0, &err);
    if (!d)
        fail_msg("%s: %s", path, err.text);
    return d;
}

static json_t *load_shared(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/csaf/%s", IMX_SOURCE_DIR, name);
    return load_path(path);
}

/* The rows of every tools/reference CSV the glob pattern names, in name order (the order their
 * migrations apply: "nvidia_products.csv" sorts before "nvidia_products_0300.csv"), so a new
 * numbered file is read without a list here to extend. */
static json_t *reference_csvs(const char *pattern)
{
    char where[1024];
    snprintf(where, sizeof where, "%s/tools/reference/%s", IMX_SOURCE_DIR, pattern);
    glob_t g;
    if (glob(where, 0, NULL, &g) != 0 || g.gl_pathc == 0)
        fail_msg("%s: no file", where);
    json_t *all = json_array();
    for (size_t i = 0; i < g.gl_pathc; i++) {
        FILE *f = fopen(g.gl_pathv[i], "rb");
        if (!f)
            fail_msg("%s: cannot open", g.gl_pathv[i]);
        static char text[1 << 16];
        size_t n = fread(text, 1, sizeof text, f);
        assert_true(n < sizeof text);
        fclose(f);
        char err[128];
        json_t *rows = imx_csv_rows(text, n, err, sizeof err);
        if (!rows)
            fail_msg("%s: %s", g.gl_pathv[i], err);
        json_array_extend(all, rows);
        json_decref(rows);
    }
    globfree(&g);
    return all;
}

/* The product mapping imaxe ships: tools/reference/nvidia_products*.csv in name order, 0101's
 * rows then each later map migration's (new keys only: tools/gen_knowledge.py checks). */
static json_t *shipped_map(void)
{
    json_t *map = reference_csvs("nvidia_products*.csv");
    /* the release pairs (Triton's of 0371, JetPack's of 0460) and the commits (0411's) */
    json_t *pairs = reference_csvs("version_alias_*.csv");
    json_t *commits = reference_csvs("commit_release_*.csv");
    imx_t_csaf_map_attach(map, pairs, commits);
    json_decref(pairs);
    json_decref(commits);
    return map;
}

static void nvidias_bulletins_translate(void **state)
{
    (void)state;
    json_t *map = shipped_map();
    json_t *d = load_shared("nvidia-5747.csaf.json");
    json_t *errors = json_array();
    struct imx_csaf_meta meta;
    json_t *out = imx_csaf_to_advisory(d, map, errors, &meta);
    if (!out)
        fail_msg("5747: %s", json_dumps(errors, 0));
    assert_string_equal(json_string_value(json_object_get(out, "id")), "NVIDIA-5747");
    assert_string_equal(json_string_value(json_object_get(out, "title")),
                        "Security Bulletin: GPU Display Driver - January 2026");
    assert_string_equal(json_string_value(json_object_get(out, "published")), "2026-01-28");
    assert_string_equal(json_string_value(json_object_get(out, "severity")), "high");
    assert_string_equal(json_string_value(json_object_get(out, "url")),
                        "https://github.com/NVIDIA/product-security/blob/main/2026/5747/5747.json");
    static const char *const want[][3] = {
        { "nvidia-driver", ">=590, <590.48.01", "590.48.01" },
        { "nvidia-driver", ">=580, <580.126.09", "580.126.09" },
        { "nvidia-driver", ">=570, <570.211.01", "570.211.01" },
        { "nvidia-driver", ">=535, <535.288.01", "535.288.01" },
        { "vgpu-driver", ">=580, <580.105.09dev0", "580.126.09" },
        { "vgpu-driver", ">=570, <570.195.04dev0", "570.211.01" },
        { "vgpu-driver", ">=535, <535.274.03dev0", "535.288.01" },
        { "vgpu-manager", ">=580, <580.105.07dev0", "580.129.08" },
        { "vgpu-manager", ">=570, <570.195.03dev0", "570.211.01" },
        { "vgpu-manager", ">=535, <535.274.04dev0", "535.288.01" },
    };
    json_t *aff = json_object_get(out, "affected");
    for (size_t i = 0; i < N_ELEMS(want); i++) {
        bool found = false;
        size_t k;
        json_t *e;
        json_array_foreach(aff, k, e)
        {
            found = found ||
                    (strcmp(json_string_value(json_object_get(e, "component")), want[i][0]) == 0 &&
                     strcmp(json_string_value(json_object_get(e, "range")), want[i][1]) == 0 &&
                     strcmp(json_string_value(json_object_get(e, "fixed")), want[i][2]) == 0);
        }
        if (!found)
            fail_msg("5747: no %s %s fixed %s in %s", want[i][0], want[i][1], want[i][2],
                     json_dumps(aff, 0));
    }
    assert_int_equal(json_array_size(aff), N_ELEMS(want));
    assert_true(json_array_size(json_object_get(out, "unmapped")) > 0); /* Windows, GeForce */
    assert_string_equal(meta.tracking_id, "5747");
    assert_string_equal(meta.version, "1.0.0");
    json_decref(out);
    json_decref(d);

    d = load_shared("nvidia-5850.csaf.json");
    out = imx_csaf_to_advisory(d, map, errors, NULL);
    if (!out)
        fail_msg("5850: %s", json_dumps(errors, 0));
    assert_string_equal(json_string_value(json_object_get(out, "id")), "NVIDIA-5850");
    assert_true(json_real_value(json_object_get(out, "cvss")) == 8.5);
    char got[512];
    ranges_text(out, got, sizeof got);
    assert_string_equal(got, "nvidia-container-toolkit <1.19.1dev0 1.19.1");
    assert_int_equal(json_array_size(errors), 0);
    json_decref(out);
    json_decref(errors);
    json_decref(d);
    json_decref(map);
}

/* The shipped mapping (0101, 0300) finds a tracked product by its name when NVIDIA spells its CPE
 * anew (as it did for TensorRT-LLM, NeMo and Megatron-LM), and a product it does not know at all
 * is left out with the generic reason. */
static void a_new_cpe_spelling_maps_by_the_name(void **state)
{
    (void)state;
    json_t *map = shipped_map();
    json_t *d = doc_with(
        "[" ARCH("All",
                 PVC("TensorRT", "nvidia_tensorrt_sdk", "All versions prior to v10.17",
                     "a") "," PVC("TensorRT", "nvidia_tensorrt_sdk", "v10.17",
                                  "f") "," PVC("Riva Speech", "nvidia_riva_speech", "2.20.0",
                                               "r")) "," ARCH("Linux",
                                                              PVC("NVIDIA Riva", "nvidia_riva_asr",
                                                                  "All versions prior "
                                                                  "to 2.21.0",
                                                                  "q")) "]",
        "[\"a\",\"r\",\"q\"]", "[\"f\"]");
    json_t *errors = json_array();
    json_t *out = imx_csaf_to_advisory(d, map, errors, NULL);
    assert_non_null(out);
    char got[512];
    ranges_text(out, got, sizeof got);
    assert_string_equal(got, "tensorrt <10.17 10.17|riva <2.21.0 -");
    json_t *u = json_array_get(json_object_get(out, "unmapped"), 0);
    assert_int_equal(json_array_size(json_object_get(out, "unmapped")), 1);
    assert_string_equal(json_string_value(json_object_get(u, "product")), "All > Riva Speech");
    assert_non_null(strstr(json_string_value(json_object_get(u, "why")),
                           "no product mapping for cpe:nvidia_riva_speech"));
    json_decref(out);
    json_decref(errors);
    json_decref(d);
    json_decref(map);
}

/* NVIDIA writes a product with and without its own name in front ("NVIDIA Dynamo" in 5842, CPE
 * nvidia_dynamo; "Dynamo" in the CVE records of the same bulletin): a CPE, CPE prefix or name that
 * differs from a row's only by that maps to the row, and the exact spelling wins where both have
 * rows. */
static void a_product_maps_with_or_without_nvidia_in_front(void **state)
{
    (void)state;
    static const char csv[] = "match,platform,component,branched,notes\n"
                              "cpe:nvidia_dynamo,any,dynamo,false,Dynamo\n"
                              "cpe:container_toolkit,any,nvidia-container-toolkit,false,toolkit\n"
                              "cpe:nvidia_widget,any,widget-a,false,the NVIDIA one\n"
                              "cpe:widget,any,widget-b,false,the other one\n"
                              "name:nvidia riva,linux,riva,false,Riva\n"
                              "cpe-prefix:gadget,any,gadget,false,Gadgets\n";
    char err[128];
    json_t *map = imx_csv_rows(csv, sizeof csv - 1, err, sizeof err);
    assert_non_null(map);
    json_t *d = doc_with(
        "[" ARCH(
            "Linux",
            PVC("Dynamo", "dynamo", "0 to v1.1.0", "d") "," PVC(
                "NVIDIA Container Toolkit", "nvidia_container_toolkit",
                "All versions up to and including 1.17.7",
                "t") "," PVC("Widget", "widget", "All versions prior to 2.0",
                             "w") "," PVC("NVIDIA Widget", "nvidia_widget",
                                          "All versions prior to 3.0",
                                          "v") "," PV("Riva", "All versions prior to 2.21.0",
                                                      "r") "," PVC("NVIDIAWidget", "nvidiawidget",
                                                                   "All versions prior to 4.0",
                                                                   "x") "," PVC("NVIDIA Gadget Pro",
                                                                                "nvidia_gadget_pro",
                                                                                "All versions "
                                                                                "prior to 5.0",
                                                                                "p")) "]",
        "[\"d\",\"t\",\"w\",\"v\",\"r\",\"x\",\"p\"]", "[]");
    json_t *errors = json_array();
    json_t *out = imx_csaf_to_advisory(d, map, errors, NULL);
    assert_non_null(out);
    char got[512];
    ranges_text(out, got, sizeof got);
    assert_string_equal(got,
                        "dynamo <1.1.1dev0 -|nvidia-container-toolkit <1.17.8dev0 -|widget-b <2.0 "
                        "-|widget-a <3.0 -|riva <2.21.0 -|gadget <5.0 -");
    /* "nvidiawidget" is not "NVIDIA" and a name: no row */
    assert_int_equal(json_array_size(json_object_get(out, "unmapped")), 1);
    json_decref(out);
    json_decref(errors);
    json_decref(d);
    json_decref(map);
}

/* Products a GPU image or NGC container carries that no bulletin of 2022-2026 named (0440's rows:
 * a future bulletin about one imports, or is left out for the row's stated reason), spelled as
 * NVIDIA spells its CPEs, with and without its name in front. */
static void products_no_bulletin_named_yet_map(void **state)
{
    (void)state;
    json_t *map = shipped_map();
    json_t *d = doc_with(
        "[" ARCH(
            "Linux",
            PVC("NVIDIA NCCL", "nvidia_nccl", "All versions prior to 2.27.7", "n") "," PVC(
                "cuDNN", "cudnn", "All versions prior to 9.10.2",
                "c") "," PVC("NVIDIA Nsight Systems", "nvidia_nsight_systems",
                             "All versions prior to 2025.3.2",
                             "s") "," PVC("NeMo Guardrails", "nemo_guardrails",
                                          "All versions prior to "
                                          "0.14.1",
                                          "g") "," PVC("libnvidia-container", "libnvidia_container",
                                                       "All versions up to and including 1.17.7",
                                                       "l") "," PVC("NVIDIA NIM", "nvidia_nim",
                                                                    "All versions prior to 1.8",
                                                                    "m")) "," ARCH("Linux(R580)",
                                                                                   PVC("NVIDIA "
                                                                                       "Fabric "
                                                                                       "Manager",
                                                                                       "nvidia_"
                                                                                       "fabric_"
                                                                                       "manager",
                                                                                       "All "
                                                                                       "versions "
                                                                                       "prior to "
                                                                                       "580.126.09",
                                                                                       "f")) "," ARCH("Windows",
                                                                                                      PVC("cuDNN",
                                                                                                          "cudnn",
                                                                                                          "All versions prior to 9.10.2",
                                                                                                          "w")) "]",
        "[\"n\",\"c\",\"s\",\"g\",\"l\",\"m\",\"f\",\"w\"]", "[]");
    json_t *errors = json_array();
    json_t *out = imx_csaf_to_advisory(d, map, errors, NULL);
    assert_non_null(out);
    char got[1024];
    ranges_text(out, got, sizeof got);
    assert_string_equal(got, "nccl <2.27.7 -|cudnn <9.10.2 -|nsight-systems <2025.3.2 "
                             "-|nemo-guardrails <0.14.1 -|nvidia-container-toolkit <1.17.8dev0 "
                             "-|nvidia-fabricmanager >=580, <580.126.09 -");
    /* NIM alone and cuDNN for Windows: left out, each for its row's reason */
    json_t *u = json_object_get(out, "unmapped");
    assert_int_equal(json_array_size(u), 2);
    for (size_t i = 0; i < 2; i++)
        assert_non_null(strstr(json_string_value(json_object_get(json_array_get(u, i), "why")),
                               "not tracked: "));
    json_decref(out);
    json_decref(errors);
    json_decref(d);
    json_decref(map);
}

/* The translation is linear in the document: product ids and products are indexed once, so a
 * vulnerability listing thousands of affected and fixed products costs no more than reading
 * them (the quadratic known_affected x fixed x products lookup would take minutes here). */
static void cost_is_linear_in_the_document(void **state)
{
    (void)state;
    enum { N = 2000 };
    json_t *map = test_map();
    json_t *archs = json_array(), *known = json_array(), *fixed = json_array();
    for (int i = 0; i < N; i++) {
        char arch[64], a[32], f[32], av[96], fv[32];
        snprintf(arch, sizeof arch, "Linux(R580) pool %d", i);
        snprintf(a, sizeof a, "a%d", i);
        snprintf(f, sizeof f, "f%d", i);
        snprintf(av, sizeof av, "All driver versions prior to 580.%d.01", i + 1);
        snprintf(fv, sizeof fv, "580.%d.01", i + 1);
        json_array_append_new(
            archs, json_pack("{s:s, s:s, s:[{s:s, s:s, s:{s:s, s:s}}, {s:s, s:s, s:{s:s, s:s}}]}",
                             "category", "architecture", "name", arch, "branches", "category",
                             "product_version", "name", "Tesla", "product", "name", av,
                             "product_id", a, "category", "product_version", "name", "Tesla",
                             "product", "name", fv, "product_id", f));
        json_array_append_new(known, json_string(a));
        json_array_append_new(fixed, json_string(f));
    }
    json_t *d = json_pack(
        "{s:{s:s, s:s, s:{s:s}, s:{s:s}, s:{s:s, s:s, s:s}}, s:{s:[{s:s, s:s, s:o}]},"
        " s:[{s:s, s:{s:o, s:o}}]}",
        "document", "csaf_version", "2.0", "title", "Many", "publisher", "name", "NVIDIA",
        "aggregate_severity", "text", "HIGH", "tracking", "id", "9002", "version", "1.0.0",
        "initial_release_date", "2026-02-03T00:00:00Z", "product_tree", "branches", "category",
        "vendor", "name", "NVIDIA", "branches", archs, "vulnerabilities", "cve", "CVE-2026-0002",
        "product_status", "known_affected", known, "fixed", fixed);
    assert_non_null(d);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    json_t *errors = json_array();
    json_t *out = imx_csaf_to_advisory(d, map, errors, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_non_null(out);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    print_message("%d affected and %d fixed products in %.3f s\n", N, N, s);
    assert_true(s < 5.0); /* about 40 ms of work alone; the machine may be shared */
    /* each range found its own fix, up to the advisory's limit of ranges */
    json_t *e = json_array_get(json_object_get(out, "affected"), 9);
    assert_string_equal(json_string_value(json_object_get(e, "range")), ">=580, <580.10.01");
    assert_string_equal(json_string_value(json_object_get(e, "fixed")), "580.10.01");
    assert_int_equal(json_array_size(json_object_get(out, "affected")), 256);
    json_decref(out);
    json_decref(errors);
    json_decref(d);
    json_decref(map);
}

/* Triton is numbered two ways: its server's version (2.40.0) and the NGC container release
 * (23.11) the catalog records. Through the shipped pairs (ref_version_alias, 0371) a bulletin in
 * either numbering gives ranges in releases; a server version no release stands for is left out
 * with that reason, never guessed. */
static void a_product_numbered_two_ways_is_read_in_its_releases(void **state)
{
    (void)state;
    json_t *map = shipped_map();
#define TRITON(version, id) PV("Triton Inference Server", version, id)
    static const struct {
        const char *what, *versions, *affected, *fixed;
        const char *want;   /* as in products_map_to_components_or_are_left_out */
        size_t unmapped;    /* products listed as left out */
        const char *warned; /* a word of the one warning; NULL: none */
    } cases[] = {
        { "5509: prior to the server's 2.40, fixed in 2.40 (= 23.11)",
          TRITON("All versions prior to 2.40", "a") "," TRITON("2.40", "f"), "[\"a\"]", "[\"f\"]",
          "triton-server <23.11 23.11", 0, "2.40 is release 23.11" },
        { "in releases already (5734): read as written, no warning",
          TRITON("All versions prior to r25.10", "a") "," TRITON("r25.10", "f"), "[\"a\"]",
          "[\"f\"]", "triton-server <25.10 25.10", 0, NULL },
        { "up to and including a patch release: the last container carrying it",
          TRITON("All versions up to and including 2.59.1", "a") "," TRITON("2.60.0", "f"),
          "[\"a\"]", "[\"f\"]", "triton-server <25.08dev0 25.08", 0, "2.59.1 is release 25.07" },
        { "a span of server versions: from the first to the last container",
          TRITON("2.39.0 to 2.41.0", "a") "," TRITON("2.42.0", "f"), "[\"a\"]", "[\"f\"]",
          "triton-server >=23.10, <23.13dev0 24.01", 0, "2.39.0 is release 23.10" },
        { "a fix no container was numbered after: the first container carrying it",
          TRITON("All versions prior to 2.40.1", "a") "," TRITON("2.40.1", "f"), "[\"a\"]",
          "[\"f\"]", "triton-server <23.12 23.12", 0, "2.40.1 is release 23.12" },
        { "the server's own 1.x line (TensorRT Inference Server, 19.xx)",
          TRITON("All versions up to and including 1.12.0", "a"), "[\"a\"]", "[]",
          "triton-server <20.04dev0 -", 0, "1.12.0 is release 20.03" },
        { "a server version past every known release is left out, not guessed",
          TRITON("All versions prior to 2.99", "a") "," TRITON("2.99", "f"), "[\"a\"]", "[\"f\"]",
          "", 1, NULL },
    };
#undef TRITON
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        char branches[2048];
        snprintf(branches, sizeof branches, "[" ARCH("Linux", "%s") "]", cases[i].versions);
        json_t *d = doc_with(branches, cases[i].affected, cases[i].fixed);
        json_t *errors = json_array();
        json_t *out = imx_csaf_to_advisory(d, map, errors, NULL);
        if (!out)
            fail_msg("%s: %s", cases[i].what, json_dumps(errors, 0));
        char got[1024];
        ranges_text(out, got, sizeof got);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("%s: got \"%s\", expected \"%s\"", cases[i].what, got, cases[i].want);
        json_t *un = json_object_get(out, "unmapped"), *warn = json_object_get(out, "warnings");
        if (json_array_size(un) != cases[i].unmapped)
            fail_msg("%s: unmapped %s", cases[i].what, json_dumps(un, 0));
        if (cases[i].unmapped)
            assert_non_null(strstr(json_string_value(json_object_get(json_array_get(un, 0), "why")),
                                   "no release in ref_version_alias stands for it"));
        if (cases[i].warned) {
            const char *w = json_string_value(json_object_get(json_array_get(warn, 0), "warning"));
            if (json_array_size(warn) != 1 || !strstr(w, cases[i].warned))
                fail_msg("%s: warnings %s", cases[i].what, json_dumps(warn, 0));
        } else if (json_array_size(warn) != 0) {
            fail_msg("%s: unexpected warnings %s", cases[i].what, json_dumps(warn, 0));
        }
        json_decref(out);
        json_decref(errors);
        json_decref(d);
    }
    json_decref(map);
}

/* A fix named by a code commit (WebDataset, NVTabular, Transformers4Rec, BioNeMo) is read through
 * the shipped commits (ref_commit_release, 0411): "not include commit X" is every release before
 * the first one containing X, with a warning that says so; while no release contains X, or the
 * table has no row for it, the product is left out saying which, and imports once the table gains
 * the release. The vGPU manager and guest driver map wherever NVIDIA files them (0412). */
static void a_fix_named_by_commit_is_read_through_its_first_release(void **state)
{
    (void)state;
    json_t *map = shipped_map();
#define WDS(version, id) PVC("NVIDIA WebDataset", "nvidia_webdataset", version, id)
#define NVT(version, id) PVC("NVIDIA NVTabular", "nvidia_nvtabular", version, id)
    static const struct {
        const char *what, *branches, *affected, *fixed;
        const char *want;   /* as in products_map_to_components_or_are_left_out */
        const char *why;    /* a part of the one product left out's reason; NULL: none */
        const char *warned; /* a part of the one warning; NULL: none */
    } cases[] = {
        { "5658: every webdataset before 1.0.0, the first release with 9e95f50",
          "[" ARCH("All", WDS("All versions that do not include code commit 9e95f50", "a") "," WDS(
                              "Any code branch that includes code commit 9e95f50", "f")) "]",
          "[\"a\"]", "[\"f\"]", "webdataset <1.0.0 1.0.0", NULL,
          "named by commit 9e95f50, read as release 1.0.0, the first release of webdataset" },
        { "5739: no release of NVTabular holds 5dd11f4 yet: left out, saying so",
          "[" ARCH("Linux", NVT("All versions that do not include commit 5dd11f4", "a") "," NVT(
                                "Any code branch that includes commit 5dd11f4", "f")) "]",
          "[\"a\"]", "[\"f\"]", "",
          "no release of nvtabular contains commit 5dd11f4 as of 2026-03-13 (ref_commit_release)",
          NULL },
        { "5851: up to a commit no release holds: left out the same way",
          "[" ARCH("All", NVT("0.0 to 5dd11f4", "a") "," NVT("08e0633", "f")) "]", "[\"a\"]",
          "[\"f\"]", "", "no release of nvtabular contains commit 5dd11f4", NULL },
        { "a commit the table does not list is never guessed",
          "[" ARCH("All", WDS("All versions that do not include commit abcdef1", "a")) "]",
          "[\"a\"]", "[]", "", "commit abcdef1, which ref_commit_release does not list", NULL },
        { "up to a commit a release holds: the releases after it are not named",
          "[" ARCH("All", WDS("0.0 to 9e95f50", "a") "," WDS("abcdef1", "f")) "]", "[\"a\"]",
          "[\"f\"]", "", "not at a fix", NULL },
        { "a Virtual GPU Manager under a plain Linux branch is the vGPU manager",
          "[" ARCH("Linux(R580)", PVC("Virtual GPU Manager", "virtual_gpu_manager",
                                      "All versions prior to 580.126.08",
                                      "a") "," PVC("Virtual GPU Manager", "virtual_gpu_manager",
                                                   "580.126.08", "f")) "]",
          "[\"a\"]", "[\"f\"]", "vgpu-manager >=580, <580.126.08 580.126.08", NULL, NULL },
        { "a guest driver under a vGPU-host branch is the vGPU guest driver",
          "[" ARCH("Citrix Hypervisor, VMware vSphere, Ubuntu(R580 vGPU 19)",
                   PVC("Guest driver", "guest_driver", "All versions prior to 580.126.09",
                       "a") "," PVC("Guest driver", "guest_driver", "580.126.09", "f")) "]",
          "[\"a\"]", "[\"f\"]", "vgpu-driver >=580, <580.126.09 580.126.09", NULL, NULL },
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        json_t *d = doc_with(cases[i].branches, cases[i].affected, cases[i].fixed);
        json_t *errors = json_array();
        json_t *out = imx_csaf_to_advisory(d, map, errors, NULL);
        if (!out)
            fail_msg("%s: %s", cases[i].what, json_dumps(errors, 0));
        char got[1024];
        ranges_text(out, got, sizeof got);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("%s: got \"%s\", expected \"%s\"", cases[i].what, got, cases[i].want);
        json_t *un = json_object_get(out, "unmapped"), *warn = json_object_get(out, "warnings");
        const char *why = json_string_value(json_object_get(json_array_get(un, 0), "why"));
        if (json_array_size(un) != (cases[i].why ? 1u : 0u) ||
            (cases[i].why && !strstr(why, cases[i].why)))
            fail_msg("%s: unmapped %s", cases[i].what, json_dumps(un, 0));
        const char *w = json_string_value(json_object_get(json_array_get(warn, 0), "warning"));
        if (json_array_size(warn) != (cases[i].warned ? 1u : 0u) ||
            (cases[i].warned && !strstr(w, cases[i].warned)))
            fail_msg("%s: warnings %s", cases[i].what, json_dumps(warn, 0));
        json_decref(out);
        json_decref(errors);
        json_decref(d);
    }
    /* The table gains a release for 5dd11f4 (a reference import): the same bulletin imports. */
    size_t k;
    json_t *row;
    json_array_foreach(map, k, row)
    {
        const char *c = json_string_value(json_object_get(row, "component"));
        if (c && strcmp(c, "nvtabular") == 0)
            json_object_set_new(row, "commits",
                                json_pack("[[s, s, s, s]]",
                                          "5dd11f4a331373d7c226dae4611139bb4e43d213", "26.01",
                                          "2026-12-06", "CONFIRMED"));
    }
    json_t *d = doc_with("[" ARCH("Linux", NVT("All versions that do not include commit 5dd11f4",
                                               "a") "," NVT("Any code branch that includes "
                                                            "commit 5dd11f4",
                                                            "f")) "]",
                         "[\"a\"]", "[\"f\"]");
    json_t *errors = json_array();
    json_t *out = imx_csaf_to_advisory(d, map, errors, NULL);
    assert_non_null(out);
    char got[1024];
    ranges_text(out, got, sizeof got);
    assert_string_equal(got, "nvtabular <26.01 26.01");
    assert_int_equal(json_array_size(json_object_get(out, "unmapped")), 0);
    json_decref(out);
    json_decref(errors);
    json_decref(d);
#undef WDS
#undef NVT
    json_decref(map);
}

/* A Jetson bulletin may number Jetson Linux by JetPack ("prior to JetPack 6.2.1"); images
 * publish jetson-linux as L4T (36.4.4), so the versions are read through JetPack's pairs
 * (0460, tools/reference/version_alias_0460.csv) with a warning saying so, and a JetPack version
 * no pair (or only an unconfirmed one) holds is left out with that reason, never guessed. */
static void jetpack_numbers_are_read_through_the_pairs(void **state)
{
    (void)state;
    json_t *map = shipped_map();
#define ORIN(version, id) PV("NVIDIA Jetson Orin Series", version, id)
    static const struct {
        const char *what, *arch, *versions, *affected, *fixed;
        const char *want;     /* as in products_map_to_components_or_are_left_out */
        const char *unmapped; /* a word of the one product left out's why; NULL: none */
        const char *warned;   /* a word of the one warning; NULL: none */
    } cases[] = {
        { "prior to JetPack 6.2.1, fixed in JetPack 6.2.1 (= L4T 36.4.4)", "Jetson Linux(36)",
          ORIN("All versions prior to JetPack 6.2.1", "a") "," ORIN("JetPack 6.2.1", "f"),
          "[\"a\"]", "[\"f\"]", "jetson-linux >=36, <36.4.4 36.4.4", NULL,
          "JetPack 6.2.1 is release 36.4.4" },
        { "JetPack 5.1.2 (= 35.4.1) fixes a JP5 line", "Jetson Linux(35)",
          ORIN("All JetPack versions prior to 5.1.2", "a") "," ORIN("JetPack 5.1.2", "f"),
          "[\"a\"]", "[\"f\"]", "jetson-linux >=35, <35.4.1 35.4.1", NULL,
          "JetPack 5.1.2 is release 35.4.1" },
        { "a fix named both ways reads the JetPack number through its pair", "Jetson Linux(36)",
          ORIN("All versions prior to JetPack 6.2.1",
               "a") "," ORIN("JetPack 6.2.1 (Jetson Linux 36.4.4)", "f"),
          "[\"a\"]", "[\"f\"]", "jetson-linux >=36, <36.4.4 36.4.4", NULL,
          "JetPack 6.2.1 is release 36.4.4" },
        { "in L4T already: read as written, no warning", "Jetson Linux(36)",
          ORIN("All versions prior to 36.4.4", "a") "," ORIN("36.4.4", "f"), "[\"a\"]", "[\"f\"]",
          "jetson-linux >=36, <36.4.4 36.4.4", NULL, NULL },
        { "a JetPack release only an unconfirmed row pairs (5.1.5) is left out", "Jetson Linux(35)",
          ORIN("All versions prior to JetPack 5.1.5", "a") "," ORIN("JetPack 5.1.5", "f"),
          "[\"a\"]", "[\"f\"]", "", "JetPack 5.1.5 is paired with no Jetson Linux release", NULL },
        { "a JetPack release past every pair is left out, not guessed", "Jetson Linux(38)",
          ORIN("All versions prior to JetPack 7.2", "a") "," ORIN("JetPack 7.2", "f"), "[\"a\"]",
          "[\"f\"]", "", "JetPack 7.2 is paired with no Jetson Linux release", NULL },
        { "JetPack numbers on a product without pairs are refused", "Linux",
          PV("TensorRT", "All versions prior to JetPack 6.2", "a"), "[\"a\"]", "[]", "",
          "the versions are JetPack's", NULL },
    };
#undef ORIN
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        char branches[2048];
        snprintf(branches, sizeof branches,
                 "[{\"category\":\"architecture\",\"name\":\"%s\","
                 "\"branches\":[%s]}]",
                 cases[i].arch, cases[i].versions);
        json_t *d = doc_with(branches, cases[i].affected, cases[i].fixed);
        json_t *errors = json_array();
        json_t *out = imx_csaf_to_advisory(d, map, errors, NULL);
        if (!out)
            fail_msg("%s: %s", cases[i].what, json_dumps(errors, 0));
        char got[1024];
        ranges_text(out, got, sizeof got);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("%s: got \"%s\", expected \"%s\"", cases[i].what, got, cases[i].want);
        json_t *un = json_object_get(out, "unmapped"), *warn = json_object_get(out, "warnings");
        if (json_array_size(un) != (cases[i].unmapped ? 1u : 0u) ||
            (cases[i].unmapped &&
             !strstr(json_string_value(json_object_get(json_array_get(un, 0), "why")),
                     cases[i].unmapped)))
            fail_msg("%s: unmapped %s", cases[i].what, json_dumps(un, 0));
        if (cases[i].warned) {
            const char *w = json_string_value(json_object_get(json_array_get(warn, 0), "warning"));
            if (json_array_size(warn) < 1 || !strstr(w, cases[i].warned))
                fail_msg("%s: warnings %s", cases[i].what, json_dumps(warn, 0));
        } else if (json_array_size(warn) != 0) {
            fail_msg("%s: unexpected warnings %s", cases[i].what, json_dumps(warn, 0));
        }
        json_decref(out);
        json_decref(errors);
        json_decref(d);
    }
    json_decref(map);
}

/* ---- the whole 2022-2026 feed (tests/data/csaf/feed, tools/csaf_corpus.py) ---- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The feed's bulletin files, YEAR/ID/ID.json, sorted; new strings in out. */
static size_t feed_files(const char *root, char **out, size_t max)
{
    size_t n = 0;
    DIR *years = opendir(root);
    if (!years)
        fail_msg("%s: cannot open", root);
    struct dirent *y;
    while ((y = readdir(years)) != NULL) {
        if (y->d_name[0] == '.' || strlen(y->d_name) != 4)
            continue;
        char ydir[1400];
        if (snprintf(ydir, sizeof ydir, "%s/%s", root, y->d_name) >= (int)sizeof ydir)
            continue;
        DIR *ids = opendir(ydir);
        struct dirent *b;
        while (ids && (b = readdir(ids)) != NULL && n < max) {
            if (b->d_name[0] == '.')
                continue;
            char path[2048];
            if (snprintf(path, sizeof path, "%s/%s/%s.json", ydir, b->d_name, b->d_name) >=
                (int)sizeof path)
                continue;
            if (access(path, R_OK) == 0)
                out[n++] = strdup(path);
        }
        if (ids)
            closedir(ids);
    }
    closedir(years);
    qsort(out, n, sizeof *out, by_name);
    return n;
}

/* Every bulletin of the feed either imports with the ranges tests/data/csaf/feed/expected.txt
 * names, or is "nothing imaxe tracks"; either way each product left out is listed once with its
 * reason, and each warning with its text.
 * IMX_CSAF_EXPECTED=write rewrites the file from what the translation gives, to be reviewed. */
static void the_feed_imports_bulletin_by_bulletin(void **state)
{
    (void)state;
    json_t *map = shipped_map();
    char root[1024], expected_path[1100];
    snprintf(root, sizeof root, "%s/tests/data/csaf/feed", IMX_SOURCE_DIR);
    snprintf(expected_path, sizeof expected_path, "%s/expected.txt", root);
    char *files[400];
    size_t n = feed_files(root, files, N_ELEMS(files));
    assert_true(n >= 181); /* 66 of 2022-2024, 115 of 2025-2026 */
    size_t cap = 1 << 20, len = 0, imported = 0;
    char *got = malloc(cap);
    assert_non_null(got);
    got[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        json_t *d = load_path(files[i]);
        json_t *errors = json_array();
        json_t *out = imx_csaf_to_advisory(d, map, errors, NULL);
        if (!out)
            fail_msg("%s: %s", files[i], json_dumps(errors, 0));
        const char *id = json_string_value(json_object_get(out, "id"));
        json_t *aff = json_object_get(out, "affected");
        if (json_array_size(aff) > 0) {
            imported++;
            len += (size_t)snprintf(got + len, cap - len, "%s imported\n", id);
            size_t k;
            json_t *e;
            json_array_foreach(aff, k, e)
            {
                const char *fx = json_string_value(json_object_get(e, "fixed"));
                len +=
                    (size_t)snprintf(got + len, cap - len, "  %s %s fixed %s\n",
                                     json_string_value(json_object_get(e, "component")),
                                     json_string_value(json_object_get(e, "range")), fx ? fx : "-");
            }
        } else {
            json_t *u = json_array_get(json_object_get(out, "unmapped"), 0);
            const char *why = json_string_value(json_object_get(u, "why"));
            if (!why)
                fail_msg("%s: nothing imported and no reason", id);
            len += (size_t)snprintf(got + len, cap - len, "%s nothing imaxe tracks\n", id);
        }
        /* every product left out, once, with its reason; then every warning */
        json_t *u, *w;
        size_t k;
        json_array_foreach(json_object_get(out, "unmapped"), k, u)
        {
            const char *product = json_string_value(json_object_get(u, "product"));
            const char *why = json_string_value(json_object_get(u, "why"));
            if (!why)
                fail_msg("%s: %s left out with no reason", id, product);
            bool again = false;
            for (size_t j = 0; j < k && !again; j++) {
                json_t *v = json_array_get(json_object_get(out, "unmapped"), j);
                again = strcmp(json_string_value(json_object_get(v, "product")), product) == 0 &&
                        strcmp(json_string_value(json_object_get(v, "why")), why) == 0;
            }
            if (!again)
                len += (size_t)snprintf(got + len, cap - len, "  - %s: %s\n", product, why);
            assert_true(len < cap - 1024);
        }
        json_array_foreach(json_object_get(out, "warnings"), k, w)
        {
            len += (size_t)snprintf(got + len, cap - len, "  ! %s \"%s\": %s\n",
                                    json_string_value(json_object_get(w, "product")),
                                    json_string_value(json_object_get(w, "text")),
                                    json_string_value(json_object_get(w, "warning")));
            assert_true(len < cap - 1024);
        }
        assert_true(len < cap - 1024);
        json_decref(out);
        json_decref(errors);
        json_decref(d);
        free(files[i]);
    }
    const char *mode = getenv("IMX_CSAF_EXPECTED");
    if (mode && strcmp(mode, "write") == 0) {
        FILE *f = fopen(expected_path, "wb");
        assert_non_null(f);
        fwrite(got, 1, len, f);
        fclose(f);
    }
    FILE *f = fopen(expected_path, "rb");
    if (!f)
        fail_msg("%s: cannot open (IMX_CSAF_EXPECTED=write makes it)", expected_path);
    char *want = malloc(cap);
    assert_non_null(want);
    size_t wl = fread(want, 1, cap - 1, f);
    fclose(f);
    want[wl] = '\0';
    if (strcmp(got, want) != 0) {
        /* the first line that differs */
        size_t at = 0, line = 1;
        while (got[at] && got[at] == want[at]) {
            line += got[at] == '\n';
            at++;
        }
        while (at > 0 && got[at - 1] != '\n')
            at--;
        fail_msg("expected.txt differs at line %zu:\n got:  %.200s\n want: %.200s", line, got + at,
                 want + at);
    }
    print_message("%zu of %zu bulletins import; the rest track nothing imaxe carries\n", imported,
                  n);
    free(got);
    free(want);
    json_decref(map);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_names_parse_by_form),
        cmocka_unit_test(commit_forms_name_their_commit),
        cmocka_unit_test(architectures_name_platforms),
        cmocka_unit_test(products_map_to_components_or_are_left_out),
        cmocka_unit_test(exact_and_inclusive_bounds_cover_the_builds),
        cmocka_unit_test(refusals_are_for_documents_only),
        cmocka_unit_test(nvidias_bulletins_translate),
        cmocka_unit_test(a_new_cpe_spelling_maps_by_the_name),
        cmocka_unit_test(a_product_maps_with_or_without_nvidia_in_front),
        cmocka_unit_test(products_no_bulletin_named_yet_map),
        cmocka_unit_test(cost_is_linear_in_the_document),
        cmocka_unit_test(a_product_numbered_two_ways_is_read_in_its_releases),
        cmocka_unit_test(jetpack_numbers_are_read_through_the_pairs),
        cmocka_unit_test(a_fix_named_by_commit_is_read_through_its_first_release),
        cmocka_unit_test(the_feed_imports_bulletin_by_bulletin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
