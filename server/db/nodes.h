/* SQL for the fleet (migrations/procedures/nodes.sql): the manifest a report is compared with,
 * recording one report, and the fleet's reads. Every function returns one imx_db_status and
 * finished JSON text built by PostgreSQL (new strings, free() them); string arguments are
 * borrowed, NULL is SQL NULL, ids and numbers are decimal text. */
#ifndef IMX_DB_NODES_H
#define IMX_DB_NODES_H

#include "db/pool.h"
#include "db/status.h"

/* Whose nodes a read sees: the caller's teams (imx_caller_teams), an API token's team only, one
 * team when team is set. */
struct imx_db_node_scope {
    const char *user_id, *token_team, *team;
};

/* The catalog image a node booted, by id, or by artifact id with or without its region:
 * IMX_DBS_OK with *image_id and *manifest ({id, family, version, architecture, os, kernel,
 * gpus, components, packages}), or IMX_DBS_NOT_FOUND. */
enum imx_db_status imx_db_node_manifest(struct imx_db_conn *c, const char *image_id,
                                        const char *artifact_id, const char *region,
                                        long long *out_id, char **manifest,
                                        struct imx_db_fault *why);

/* One report, as imx_node_report() takes it. */
struct imx_db_node_report {
    const char *team_id, *name;
    const char *image_id;      /* NULL: the image is not in the catalog */
    const char *booted;        /* JSON object */
    const char *instance_type; /* or NULL */
    const char *gpus;          /* JSON array of GPU models */
    const char *gpu_count;
    const char *drift;       /* "true", "false", NULL (no image to compare with) */
    const char *drift_items; /* JSON array */
    const char *report;      /* JSON object */
    const char *history_days;
};

/* Records one report (call inside the caller's transaction) -> *result, imx_node_report()'s
 * {"id", "name", "created", "changed", "drift", "drift_changed", "event"}. */
enum imx_db_status imx_db_node_report(struct imx_db_conn *c, const struct imx_db_node_report *in,
                                      char **result, struct imx_db_fault *why);

/* The fleet list's filters (NULL: any). */
struct imx_db_node_filter {
    struct imx_db_node_scope scope;
    const char *image_id, *family, *pin_id, *drift, *stale, *gpu, *patch_status;
    const char *stale_s;
};

/* One page of nodes in id order after the key after (an id; NULL: the first), at most limit:
 * *doc {"items": [...]}, *next_key the next page's key as a JSON array text (NULL on the last). */
enum imx_db_status imx_db_nodes_page(struct imx_db_conn *c, const struct imx_db_node_filter *f,
                                     const char *after, const char *limit, char **doc,
                                     char **next_key, struct imx_db_fault *why);

/* The node named name the scope sees, with its latest report and up to history history rows:
 * IMX_DBS_OK with *json, IMX_DBS_NOT_FOUND, or IMX_DBS_CONFLICT when several teams the caller
 * sees have a node of that name (the caller names the team). */
enum imx_db_status imx_db_node_get(struct imx_db_conn *c, const struct imx_db_node_scope *s,
                                   const char *name, const char *stale_s, const char *history,
                                   char **json, struct imx_db_fault *why);

/* Node counts per image and per pin for the scope (the largest limit of each) -> *json. */
enum imx_db_status imx_db_fleet_counts(struct imx_db_conn *c, const struct imx_db_node_scope *s,
                                       const char *stale_s, const char *limit, char **json,
                                       struct imx_db_fault *why);

/* An advisory's exposure (imx_advisory_exposure): images, pins, teams, running nodes, and the
 * caller's running nodes per image (the largest limit) -> *json; IMX_DBS_NOT_FOUND when no such
 * advisory. */
enum imx_db_status imx_db_advisory_exposure(struct imx_db_conn *c, const char *advisory,
                                            const struct imx_db_node_scope *s, const char *stale_s,
                                            const char *limit, char **json,
                                            struct imx_db_fault *why);

#endif
