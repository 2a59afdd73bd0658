/* The product map as server/db/product_map.c hands it to the CSAF importer, built by the CSAF
 * tests (test_csaf, csaf_ranges) from the reference CSVs' rows. */
#ifndef IMX_TESTS_CSAF_MAP_H
#define IMX_TESTS_CSAF_MAP_H

#include <jansson.h>

/* Puts on every map row of a component that component's confirmed release pairs (rows of
 * tools/reference/version_alias_*.csv) as "aliases" [[version, release]] and its commits (rows
 * of commit_release_*.csv) as "commits" [[commit, release or null, as_of, status]]; UNCONFIRMED
 * rows are left out, as the server leaves them out. */
void imx_t_csaf_map_attach(json_t *map, const json_t *pairs, const json_t *commits);

#endif
