/* The product map's per-component extras, as server/db/product_map.c adds them: one copy for
 * the CSAF tests that build the map from the reference CSVs (test_csaf, csaf_ranges). */
#include "csaf_map.h"

#include <stddef.h>
#include <string.h>

/* Every confirmed row of rows whose component is a map row's goes on that row, under key, as
 * the array of its fields. */
static void attach(json_t *map, const json_t *rows, const char *key, const char *const *fields,
                   size_t n)
{
    size_t i, k;
    json_t *row, *r;
    json_array_foreach(map, i, row)
    {
        const char *component = json_string_value(json_object_get(row, "component"));
        json_t *mine = json_array();
        json_array_foreach(rows, k, r)
        {
            const char *c = json_string_value(json_object_get(r, "component"));
            const char *st = json_string_value(json_object_get(r, "status"));
            if (!component || !c || !st || strcmp(c, component) != 0 ||
                strcmp(st, "UNCONFIRMED") == 0)
                continue;
            json_t *entry = json_array();
            for (size_t f = 0; f < n; f++) {
                json_t *v = json_object_get(r, fields[f]);
                json_array_append(entry, v ? v : json_null());
            }
            json_array_append_new(mine, entry);
        }
        if (json_array_size(mine) > 0)
            json_object_set(row, key, mine);
        json_decref(mine);
    }
}

void imx_t_csaf_map_attach(json_t *map, const json_t *pairs, const json_t *commits)
{
    static const char *const pair_fields[] = { "version", "release" };
    static const char *const commit_fields[] = { "commit", "release", "as_of", "status" };
    attach(map, pairs, "aliases", pair_fields, 2);
    attach(map, commits, "commits", commit_fields, 4);
}
