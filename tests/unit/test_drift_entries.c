/* Drift against an image with two driver trees (server/domain/drift.c): the node is held to the
 * entry that serves its GPU, in both spellings an image comes in: GET /v1/images/{id}'s
 * components object (what `imaxe probe --check` reads) and the node manifest's array (what node
 * reports are compared with). Without GPUs on either side, any entry matches (the union). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include "domain/drift.h"

/* As GET /v1/images/{id} spells it. */
static const char *const image_doc =
    "{\"architecture\":\"x86_64\",\"gpus\":[\"H100\",\"T4\"],\"components\":{"
    "\"cuda\":\"12.8.1\",\"nvidia-driver\":[{\"version\":\"580.105.08\",\"gpus\":[\"H100\"]},"
    "{\"version\":\"535.274.02\",\"gpus\":[\"T4\"]}]}}";
/* As the node manifest (procedures/nodes.sql imx_node_manifest) spells it. */
static const char *const image_manifest =
    "{\"architecture\":\"x86_64\",\"gpus\":[\"H100\",\"T4\"],\"components\":["
    "{\"name\":\"cuda\",\"version\":\"12.8.1\"},"
    "{\"name\":\"nvidia-driver\",\"version\":\"580.105.08\",\"gpus\":[\"H100\"]},"
    "{\"name\":\"nvidia-driver\",\"version\":\"535.274.02\",\"gpus\":[\"T4\"]}]}";

static void node_held_to_its_gpus_entry(void **state)
{
    (void)state;
    static const struct {
        const char *gpu, *driver; /* gpu NULL: the node reports none */
        const char *state, *image, *loaded;
        bool drift;
    } cases[] = {
        { "H100", "580.105.08", "same", "580.105.08", "580.105.08", false },
        { "T4", "535.274.02", "same", "535.274.02", "535.274.02", false },
        { "T4", "580.105.08", "differs", "535.274.02", "580.105.08", true }, /* wrong tree */
        { "H100", "535.274.02", "differs", "580.105.08", "535.274.02", true },
        { "T4", "535.288.01", "differs", "535.274.02", NULL, true },       /* neither tree */
        { NULL, "535.274.02", "same", "535.274.02", "535.274.02", false }, /* union */
        { NULL, "575.57.08", "differs", "580.105.08", NULL, true },
    };
    const char *const images[] = { image_doc, image_manifest };
    for (size_t s = 0; s < 2; s++) {
        json_t *image = json_loads(images[s], 0, NULL);
        assert_non_null(image);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            json_t *node = json_pack("{s:s, s:[{s:s, s:s}, {s:s, s:s}]}", "architecture", "x86_64",
                                     "components", "name", "nvidia-driver", "version",
                                     cases[i].driver, "name", "cuda", "version", "12.8");
            if (cases[i].gpu)
                json_object_set_new(node, "gpus", json_pack("[s]", cases[i].gpu));
            bool drift = false;
            json_t *rows = imx_drift_rows(node, image, &drift);
            json_t *d = NULL;
            size_t k;
            json_t *row;
            json_array_foreach(rows, k, row)
            {
                if (strcmp(json_string_value(json_object_get(row, "name")), "nvidia-driver") == 0)
                    d = row;
            }
            assert_non_null(d);
            if (strcmp(json_string_value(json_object_get(d, "state")), cases[i].state) != 0 ||
                strcmp(json_string_value(json_object_get(d, "image")), cases[i].image) != 0 ||
                drift != cases[i].drift)
                fail_msg("spelling %zu case %zu: %s", s, i, json_dumps(d, JSON_COMPACT));
            const char *loaded = json_string_value(json_object_get(d, "loaded"));
            if (cases[i].loaded ? !loaded || strcmp(loaded, cases[i].loaded) != 0 : loaded != NULL)
                fail_msg("spelling %zu case %zu: loaded %s", s, i, loaded ? loaded : "null");
            assert_int_equal(json_array_size(json_object_get(d, "image_versions")), 2);
            json_decref(rows);
            json_decref(node);
        }
        json_decref(image);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_held_to_its_gpus_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
