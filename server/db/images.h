/* The catalog's SQL: publish an image with its rows, read one, search with facets, compare,
 * resolve. Every read returns JSON text built by PostgreSQL; every statement is prepared. */
#ifndef IMX_DB_IMAGES_H
#define IMX_DB_IMAGES_H

#include <stdbool.h>
#include <jansson.h>
#include <stddef.h>

#include "db/pool.h"
#include "db/status.h"
#include "domain/pkgver.h"
#include "domain/version.h"

/* Limits checked before anything reaches PostgreSQL. */
#define IMX_DBI_MAX_ROWS        64 /* components, artifacts, GPUs, instance families, tags */
#define IMX_DBI_MAX_CONSTRAINTS 16 /* component constraints in one search or resolve */
#define IMX_DBI_MAX_TAGS        8  /* tags in one search */
#define IMX_DBI_MAX_LIMIT       200
#define IMX_DBI_COMPARE_MIN     2
#define IMX_DBI_COMPARE_MAX     10

struct imx_image_component {
    const char *name;    /* "nvidia-driver" */
    const char *version; /* "580.95.05" */
};

/* The GPUs a component entry serves when its name is listed more than once (two driver trees):
 * every entry of such a name has them; n 0 otherwise. */
struct imx_image_served {
    const char *const *gpus;
    size_t n;
};

struct imx_image_artifact {
    const char *region;      /* "us-east-1" */
    const char *artifact_id; /* "ami-0123456789abcdef0" */
};

/* A new image. Strings are borrowed for the call; NULL optional strings are SQL NULL. */
struct imx_image_new {
    const char *family, *version;
    long long team_id;
    const char *provider;     /* aws, gcp, azure, onprem, oci-container */
    const char *architecture; /* x86_64, arm64 */
    const char *os_name, *os_version;
    const char *kernel;             /* optional */
    const char *layer;              /* platform, model */
    long long parent_id;            /* 0: none */
    int boot_seconds;               /* < 0: unknown */
    double size_gb;                 /* < 0: unknown */
    const char *description;        /* optional */
    const char *compatibility_json; /* the report (imx_compat_report_json), JSON text; NULL: {} */
    const struct imx_image_component *components;
    size_t n_components;
    const struct imx_image_served *component_gpus; /* parallel to components; NULL: none */
    const struct imx_image_artifact *artifacts;
    size_t n_artifacts;
    const char *const *gpus; /* any spelling; stored canonical (imx_ref_gpu_canonical) when known */
    size_t n_gpus;
    const char *const *instance_families; /* "p5", "g6e" */
    size_t n_instance_families;
    const char *const *tags; /* "cis", "fips", "boot-optimized" */
    size_t n_tags;
    /* The OS package inventory (borrowed; NULL: none): [{ecosystem, name, version, key, order}],
     * key imx_pkgver_key() as hex without "\x", order dpkg or rpm; packages_source: manifest,
     * cyclonedx, spdx, probe. */
    const json_t *packages;
    const char *packages_source;
};

/* Images one publish (POST /v1/images:import) takes at most. */
#define IMX_DBI_PUBLISH_MAX 1000

/* Publishes n images (1..IMX_DBI_PUBLISH_MAX), all or nothing: the use case
 * migrations/procedures/publish_images.sql (rows, image.published, the advisories that affect
 * them, the fixes they bring to older images and pins, patch statuses, patch.available, open
 * requests they satisfy). Part of the caller's transaction when one is open. ids[i] receives
 * in[i]'s new id; *result (may be NULL) a new JSON text of what it did: {"ids", "patch_status_
 * changed", "patch_events", "request_matches"}. err (may be NULL) gets a message for INVALID /
 * CONFLICT naming the constraint broken. */
enum imx_db_status imx_db_images_publish(struct imx_db_conn *c, const struct imx_image_new *in,
                                         size_t n, long long *ids, char **result, char *err,
                                         size_t errlen, struct imx_db_fault *why);

/* imx_db_images_publish of one image. */
enum imx_db_status imx_db_image_insert(struct imx_db_conn *c, const struct imx_image_new *in,
                                       long long *id, char *err, size_t errlen,
                                       struct imx_db_fault *why);

/* One image as JSON: {id, family, version, team_id, provider, architecture, os:{name,version},
 * kernel, layer, parent_id, boot_seconds, size_gb, description, status, status_reason,
 * revoke_at, patch_status, published_at, updated_at, components:{name:version}, artifacts:
 * {region:artifact_id}, gpus:[...], instance_families:[...], tags:[...], children:[ids],
 * compatibility:{...}, os_packages: imx_image_os_json() (migrations/functions/image_docs.sql)}.
 * *json is new (free() it); *etag is new (free() it): a strong ETag value with its quotes, which
 * changes whenever the JSON does. NOT_FOUND when no such id. */
enum imx_db_status imx_db_image_get(struct imx_db_conn *c, long long id, char **json, char **etag,
                                    struct imx_db_fault *why);

/* What compare reads of one image: its summary (JSON text as search items are), kernel,
 * {ok, errors, warnings} of its stored compatibility report, and the costs the caller's scope
 * sees: best_cost_per_1k ({model: cost}) and boot_seconds_median (a number or null), all JSON
 * text. Borrowed from res. */
struct imx_db_compare_row {
    const char *summary, *kernel, *compatibility, *best_cost_per_1k, *boot_seconds_median;
    const char *os_patch_status; /* NULL when the image has no inventory */
    const char *os_advisories;   /* JSON text: its OS part's advisories, or null */
};
struct imx_db_batch; /* db/read_batch.h */
struct imx_db_compare_rows {
    struct imx_db_batch *owner; /* the rows' statement result: imx_db_compare_rows_free() */
    struct imx_db_compare_row row[IMX_DBI_COMPARE_MAX];
    long long epoch;
};

/* The rows of ids (n <= IMX_DBI_COMPARE_MAX), in that order, with the costs of scope (user id,
 * API token team, team: imx_cost_scope's texts, each may be NULL), and the auth epoch. Read on a
 * pool connection of its own, in one statement with the other compares waiting at the same
 * moment (db/read_batch.c). NOT_FOUND with the first missing id in *missing; UNAVAILABLE when
 * no connection could be had or the database failed. */
enum imx_db_status imx_db_image_compare_rows(const long long *ids, size_t n,
                                             const char *const scope[3],
                                             struct imx_db_compare_rows *out, long long *missing);
void imx_db_compare_rows_free(struct imx_db_compare_rows *rows);
/* The same read without waiting, for a fast handler: queued, and wake(cls) called on another
 * thread once it is read; imx_db_image_compare_result then gives what imx_db_image_compare_rows
 * returns (once). ids and scope are copied. NULL when n is out of range or memory is short. */
struct imx_db_compare_call;
struct imx_db_compare_call *imx_db_image_compare_start(const long long *ids, size_t n,
                                                       const char *const scope[3],
                                                       void (*wake)(void *cls), void *cls);
enum imx_db_status imx_db_image_compare_result(struct imx_db_compare_call *c,
                                               struct imx_db_compare_rows *out, long long *missing);
/* Frees a call after its wake (what the result did not hand on, too). */
void imx_db_compare_call_free(void *call);

/* Statements that read compares and the compares they answered, since start (/metrics). */
void imx_db_compare_stats(unsigned long long *reads, unsigned long long *answered);

/* One component constraint: "nvidia-driver" with a parsed "~580". */
struct imx_image_constraint {
    const char *name;
    struct imx_constraint constraint;
};

/* A package filter, package=openssl:<3.0.13-0ubuntu3.10: an image holds a package of that name
 * whose version lies in the constraint by its ecosystem's order (dpkg or rpm; a constraint that
 * does not parse in one order matches no package of it). */
struct imx_image_package_filter {
    const char *name;
    struct imx_pkg_constraint dpkg, rpm;
    bool dpkg_ok, rpm_ok;
};

/* Package filters one search takes at most. */
#define IMX_DBI_MAX_PACKAGE_FILTERS 8

enum imx_image_sort {
    IMX_SORT_PUBLISHED_DESC, /* -published_at (default): newest first */
    IMX_SORT_FAMILY,         /* family, then id */
    IMX_SORT_BOOT_SECONDS,   /* fastest boot first, unknown last */
    IMX_SORT_SIZE_GB,        /* smallest first, unknown last */
};

/* Parses "-published_at", "family", "boot_seconds" or "size_gb" (NULL or "" = default).
 * Returns 0 or -1. */
int imx_image_sort_parse(const char *s, enum imx_image_sort *out);

/* Search filters; every member is optional (NULL / 0 = no filter). Strings are borrowed. */
struct imx_image_search {
    const char *q;        /* websearch syntax over family, description and component names */
    const char *family;   /* exact */
    const char *provider; /* exact */
    const char *region;   /* has an artifact there */
    const char *arch;     /* x86_64 | arm64 */
    const char *os;       /* "ubuntu" or "ubuntu:24.04" */
    const char *gpu;      /* a GPU model in any spelling ("H100") or an architecture ("Hopper") */
    const struct imx_image_constraint *constraints; /* all must hold */
    size_t n_constraints;
    const char *const *tags; /* all must be present */
    size_t n_tags;
    const char *status; /* NULL: "active"; "any": every status */
    const char *layer;
    const char *patch_status;
    const char *os_patch_status; /* ok, vulnerable, patch_available, revoked; unknown: none */
    const char *eol_before;      /* YYYY-MM-DD: the stack's earliest end of life before it */
    const struct imx_image_package_filter *packages; /* all must hold */
    size_t n_packages;
    enum imx_image_sort sort;
    const char *cursor; /* next_cursor of the previous page, for the same sort */
    int limit;          /* 1..IMX_DBI_MAX_LIMIT; 0: 20 */
};

/* One page: {"items":[summary...], "next_cursor": text|null}. A summary is {id, family, version,
 * provider, architecture, os:{name,version}, layer, status, patch_status, published_at,
 * boot_seconds, size_gb, components:{name:version}, gpus:[...], regions:[...], tags:[...]}.
 * Keyset pagination: a page never repeats or skips rows because of inserts between requests.
 * *json is new (free() it). INVALID for a malformed cursor or one of another sort, or too many
 * constraints or tags. */
enum imx_db_status imx_db_image_search(struct imx_db_conn *c, const struct imx_image_search *s,
                                       char **json, struct imx_db_fault *why);

/* Facet counts over every image matching s (sort, cursor and limit are ignored), in one
 * statement: {"total":n, "gpu":[{"value","count"}], "os", "provider", "cuda" (major.minor),
 * "driver_branch" ("R580"), "framework" ("pytorch 2.9"), "tag"}; each list by count descending,
 * then value. *json is new (free() it). */
enum imx_db_status imx_db_image_facets(struct imx_db_conn *c, const struct imx_image_search *s,
                                       char **json, struct imx_db_fault *why);

/* Side-by-side data for 2..10 distinct ids: {"images":[summary, in the order given],
 * "components":[{"name", "values":[version|null per image], "differs":bool}], "fields":[{"name":
 * boot_seconds|size_gb|os|kernel|regions|status|compatibility, "values":[...], "differs"}]}
 * (os as "name:version"; compatibility as {ok, errors, warnings}).
 * NOT_FOUND (with the first missing id in *missing when not NULL) when any id does not exist.
 * *json is new (free() it). */
/* Compare's OS rows for ids (2..10): [{"name": "os_patch_status", "values", "differs"},
 * {"name": "os_advisories", ...}], each image's value as os_packages of its detail document
 * (null without an inventory). *json is new (free() it). */
enum imx_db_status imx_db_image_compare_os(struct imx_db_conn *c, const long long *ids, size_t n,
                                           char **json, struct imx_db_fault *why);

enum imx_db_status imx_db_image_compare(struct imx_db_conn *c, const long long *ids, size_t n,
                                        char **json, long long *missing, struct imx_db_fault *why);

/* What resolve looks for: the newest active image of family (status active, patch_status not
 * revoked, revoke_at not passed) with an artifact in region, of arch (optional), satisfying
 * every constraint. */
struct imx_image_resolve {
    const char *family;
    const char *region;
    const char *arch; /* optional */
    const struct imx_image_constraint *constraints;
    size_t n_constraints;
};

/* {"image": summary|null, "artifact_id": text|null, "emptied_by": null | "family" | "status" |
 * "region" | "arch" | "constraint", "constraint": null | {"name", "constraint"}}: when nothing
 * matches, emptied_by names the first filter (in that order) after which no candidate was left,
 * and for "constraint" which one (constraints applied in the order given). *json is new.
 * OK also when nothing matched (image null). */
enum imx_db_status imx_db_image_resolve(struct imx_db_conn *c, const struct imx_image_resolve *r,
                                        char **json, struct imx_db_fault *why);

/* Which of ids[0..n) name no image, in one statement: missing[i] is set for those (0 ids are
 * never missing: "no parent"). OK, or the failure. */
enum imx_db_status imx_db_images_missing(struct imx_db_conn *c, const long long *ids, size_t n,
                                         bool *missing, struct imx_db_fault *why);

/* OK when an image with this id exists, else NOT_FOUND. */
enum imx_db_status imx_db_image_exists(struct imx_db_conn *c, long long id,
                                       struct imx_db_fault *why);

/* Size of an ETag value with its quotes ("\"" + 32 hex + "\"") and NUL. */
#define IMX_DBI_ETAG_SIZE 40

/* Locks an image's row until the transaction ends (call inside one) and reads its owning team,
 * its current ETag (as imx_db_image_get gives) and its status now ("revoked" once revoke_at has
 * passed). NOT_FOUND when no such id. */
enum imx_db_status imx_db_image_lock(struct imx_db_conn *c, long long id, long long *team_id,
                                     char etag[IMX_DBI_ETAG_SIZE], char status[16],
                                     struct imx_db_fault *why);

/* A lifecycle change. Strings are borrowed; NULL is SQL NULL. */
struct imx_image_status_change {
    long long id;
    const char *status;    /* active, deprecated, revoked; NULL: keep (a scheduled revocation) */
    const char *reason;    /* required by the schema for revoked */
    const char *revoke_at; /* RFC 3339; NULL: none */
    bool cascade;          /* apply to every descendant too (those not already revoked) */
    const char *event;     /* image.revoked | image.deprecated | NULL: sent per image changed */
};

/* Makes every scheduled revocation whose revoke_at has passed a real one (status revoked, so the
 * image's and its family's patch statuses follow). *applied gets how many images changed.
 * Safe to call from several servers at once. */
enum imx_db_status imx_db_image_apply_due_revocations(struct imx_db_conn *c, int *applied);

/* Applies the change inside the caller's transaction: the use case
 * migrations/procedures/image_status.sql (rows, the events of the change, the fixes that move to
 * other images, patch statuses, patch.available). *result is new: JSON {"changed": [ids in id
 * order], "patch_status_changed": [ids], "patch_events": n}. INVALID when the schema refuses a
 * value (revoke_at not a time). */
enum imx_db_status imx_db_image_set_status(struct imx_db_conn *c,
                                           const struct imx_image_status_change *s, char **result,
                                           struct imx_db_fault *why);

/* A page of an image's lineage: {"image": entry, "parents": [entry, nearest first], "children":
 * [entry, by id]} where an entry is a summary with parent_id, outdated_parent (the parent's
 * family has a newer usable image) and newer_parent ({id, family, version} or null). */
struct imx_db_lineage {
    char *text; /* owned: the statement's text, or the one made from the search index */
    /* the document's text without its closing brace (append members, then "}"); in text */
    const char *doc;
    size_t len;
    long long next_after; /* the last child shown when more follow (the next page's key), or 0 */
    long long epoch;      /* the auth epoch, read with it */
};

/* At most limit children with ids after after (NULL: from the first), the parent chain whole
 * (migrations/0061). IMX_DBS_OK; IMX_DBS_NOT_FOUND when there is no such image (epoch still
 * set); else a failure, with nothing to free. Free *out with imx_db_lineage_free. */
enum imx_db_status imx_db_image_lineage(struct imx_db_conn *c, long long id, const char *after,
                                        unsigned limit, struct imx_db_lineage *out,
                                        struct imx_db_fault *why);
void imx_db_lineage_free(struct imx_db_lineage *l);

/* Up to limit images whose stored compatibility report is still empty ({}), oldest first, as a
 * JSON array of {id, components:[{name, version}], gpus:[...]}. *json is new. */
enum imx_db_status imx_db_image_compat_pending(struct imx_db_conn *c, int limit, char **json);

/* Is when (text) a time after now? IMX_DBS_OK with the answer in *future, IMX_DBS_INVALID when
 * it is not a time PostgreSQL reads, or the failure. */
enum imx_db_status imx_db_time_is_future(struct imx_db_conn *c, const char *when, bool *future);

/* Stores an image's compatibility report (JSON text). */
enum imx_db_status imx_db_image_set_compat(struct imx_db_conn *c, long long id,
                                           const char *report_json);

#endif
