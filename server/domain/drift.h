/* Drift: what differs between a node's report (what `imaxe probe` read on it) and the manifest of
 * the image it booted, per component, the one computation behind `imaxe probe --check` and the
 * server's node reports (server/api/nodes.c). Pure: JSON in, JSON out, no I/O. */
#ifndef IMX_DRIFT_H
#define IMX_DRIFT_H

#include <jansson.h>
#include <stdbool.h>

/* Rows compared at most (components, packages, GPUs together): past it the rest is not looked
 * at and a last row {"name": "(truncated)", "state": "truncated"} says so. */
#define IMX_DRIFT_ROWS_MAX 12000

/* Is a node version the image's version, or a dot-boundary prefix of it (the node knows "13.0"
 * from nvcc, the image says "13.0.2")? */
bool imx_drift_version_matches(const char *node, const char *image);

/* Compares node (a probe document) with image (a published image as GET /v1/images/{id} spells
 * it, or the server's manifest): every component of either, then architecture, os, kernel, each
 * node GPU (when the image lists GPUs) and each OS package both list. Components are an object
 * {name: version} or an array of {name, version}; in the image a name may appear more than once
 * (an image with two driver trees, or {name: [versions]}): the node matches when it runs any of
 * them, and the row says which in "image" and lists them all in "image_versions". Returns a new
 * array of {"name", "image", "node", "state"}: state "same", "differs", "missing" (the image has
 * it, the node does not), "extra" (only the node has it) or "older" (an OS package older on the
 * node than in the image, by the OS's version order). *drift is set when any row differs, is
 * missing or older. */
json_t *imx_drift_rows(json_t *node, json_t *image, bool *drift);

/* Does a row's state count as drift ("differs", "missing", "older")? */
bool imx_drift_state_counts(const char *state);

/* The rows of imx_drift_rows that count as drift (new array of new references). */
json_t *imx_drift_changes(json_t *rows);

#endif
