/* What the catalog's handler files (api/images.c, api/image_*.c) share: argument checks, the
 * component= arguments of search and resolve, and the reply of a stored image. Internal to api/. */
#ifndef IMX_API_IMAGES_INTERNAL_H
#define IMX_API_IMAGES_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "api/api.h"
#include "api/export.h"
#include "api/costs_common.h"
#include "api/cursor.h"
#include "auth/auth.h"
#include "db/image_index.h"
#include "db/image_docs.h"
#include "db/images.h"
#include "db/pins.h"
#include "db/reference.h"
#include "api/tx.h"
#include "domain/compat.h"
#include "domain/pkgver.h"
#include "domain/sbom.h"
#include "domain/version.h"
#include "util/config.h"
#include "util/json_text.h"
#include "util/log.h"
#include "util/urlcode.h"

#define SEARCH_LIMIT_DEFAULT 50
#define MANIFEST_MAX_GPUS    32 /* checked IMX_COMPAT_MAX_GPUS at a time */
/* GPUs named by the entries of components listed more than once, all together. */
#define IMX_IMG_ENTRY_GPUS_MAX 128
#define BOOT_SECONDS_MAX       86400
#define SIZE_GB_MAX            999999.99
#define LOWER_DIGITS           "abcdefghijklmnopqrstuvwxyz0123456789"
#define ALNUM                  LOWER_DIGITS "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define COMPONENT_ARG_MAX      (64 + 1 + IMX_CONSTRAINT_TEXT_MAX)

/* component=NAME:CONSTRAINT filters (repeatable), read by imx_img_read_constraints. */
struct imx_img_constraint_args {
    struct imx_image_constraint list[IMX_DBI_MAX_CONSTRAINTS];
    char names[IMX_DBI_MAX_CONSTRAINTS][65];
    size_t n;
    char problem[IMX_CONSTRAINT_ERR_SIZE + 400]; /* the first bad one, "" when none */
};

/* package=NAME:CONSTRAINT filters (repeatable): the constraint read in both orders, dpkg and
 * rpm; one that parses in neither is refused. */
struct imx_img_package_args {
    struct imx_image_package_filter list[IMX_DBI_MAX_PACKAGE_FILTERS];
    char names[IMX_DBI_MAX_PACKAGE_FILTERS][IMX_PKG_NAME_MAX + 1];
    size_t n;
    char problem[600];
};

bool imx_img_token_ok(const char *s, const char *first_set, const char *rest_set, size_t max);
bool imx_img_one_of(const char *s, const char *const *set);
long long imx_img_path_id(struct imx_req *r);
void imx_img_reply_json_text_steal(struct imx_req *r, unsigned status, char *json);
bool imx_img_etag_listed(const char *header, const char *etag);
json_t *imx_img_compat_report(const struct imx_ref_snapshot *ref,
                              const struct imx_compat_component *comps,
                              const struct imx_compat_served *served, size_t n_comps,
                              const char *const *gpus, size_t n_gpus);
size_t imx_img_read_components(const json_t *arr, struct imx_compat_component *out,
                               struct imx_compat_served *served, size_t max, json_t *errors,
                               bool check_versions, const char **pool, size_t pool_max,
                               size_t *rule_errors);
void imx_img_reply_invalid(struct imx_req *r, json_t *errors, size_t rule_errors,
                           const char *detail);
size_t imx_img_check_entries(const struct imx_compat_component *comps,
                             const struct imx_compat_served *served, size_t n,
                             const char *const *gpus, size_t n_gpus, json_t *errors);
size_t imx_img_read_strings(const json_t *arr, const char *field, const char **out, size_t max,
                            bool (*ok)(const char *), const char *ok_text, json_t *errors);
void imx_img_package_arg(void *cls, const char *value);
int imx_img_read_constraints(struct imx_req *r, struct imx_img_constraint_args *ca);
extern const char *const imx_img_providers[];
extern const char *const imx_img_archs[];
extern const char *const imx_img_layers[];
extern const char *const imx_img_statuses[];
extern const char *const imx_img_patch_statuses[];
int imx_img_reply_image(struct imx_req *r, unsigned status, long long id);
bool imx_img_enum_arg(struct imx_req *r, const char *name, const char *const *set,
                      const char *allowed);

#endif
