/* NVIDIA's products -> imaxe components (ref_nvidia_product), read for a CSAF import. */
#ifndef IMX_DB_PRODUCT_MAP_H
#define IMX_DB_PRODUCT_MAP_H

#include "db/pool.h"
#include "db/status.h"

/* The rows of ref_nvidia_product as one JSON text, new (free() it) in *json:
 * [{"match", "platform", "component" (null: not tracked), "branched", "notes", "aliases"
 * (null but for a component ref_version_alias numbers two ways: [[own version, release]]),
 * "commits" (null but for a component ref_commit_release lists: [[commit, first release or null,
 * as_of, status]])}], the shape imx_csaf_to_advisory() reads. */
enum imx_db_status imx_db_product_map(struct imx_db_conn *c, char **json, struct imx_db_fault *why);

#endif
