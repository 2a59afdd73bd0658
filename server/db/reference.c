/* Loads the reference snapshot from PostgreSQL (one statement returning JSON built by PostgreSQL,
 * parsed with jansson) and caches it per process, keyed by ref_generation. */
#include "db/reference.h"
#include "db/internal.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Refuse absurd reference payloads before parsing them (the shipped data is about 60 KiB). */
#define REF_JSON_MAX (16u * 1024u * 1024u)

/* A snapshot and what it borrows from: every string points into root. */
struct holder {
    struct imx_ref_snapshot snap; /* first, so a snapshot pointer is a holder pointer */
    json_t *root;
    atomic_long refs;
    struct imx_ref_cuda_mvc *mvc;
    struct imx_ref_cuda_driver *cuda;
    struct imx_ref_gpu_arch *archs;
    struct imx_ref_gpu *gpus;
    const char **aliases; /* all GPUs' aliases, one array */
    struct imx_ref_driver_branch *branches;
    struct imx_ref_cudnn *cudnn;
    struct imx_ref_pytorch_build *pytorch;
    struct imx_ref_tensorflow *tensorflow;
    struct imx_ref_compute_capability *ccs;
    struct imx_ref_pytorch *pytorch_releases;
    struct imx_ref_nccl *nccl;
    struct imx_ref_dcgm *dcgm;
    struct imx_ref_jax *jax;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct holder *cache; /* holds one reference of its own */

IMX_DB_STMT(stmt_generation, 0, "SELECT generation FROM ref_generation");

/* Every ref_ row the validator reads, in a stable order, plus the generation they belong to
 * (read in the same statement, so the two always agree). */
IMX_DB_STMT(stmt_snapshot, 0,
            "SELECT json_build_object("
            " 'generation', (SELECT generation FROM ref_generation),"
            " 'mvc', (SELECT coalesce(json_agg(json_build_object('cuda_major', cuda_major,"
            "   'driver_floor', driver_floor, 'source', source) ORDER BY cuda_major), '[]')"
            "   FROM ref_cuda_mvc),"
            " 'cuda', (SELECT coalesce(json_agg(json_build_object('cuda_version', cuda_version,"
            "   'cuda_major', cuda_major, 'linux_driver_min', linux_driver_min, 'source', source)"
            "   ORDER BY cuda_version_key), '[]') FROM ref_cuda_driver),"
            " 'archs', (SELECT coalesce(json_agg(json_build_object('architecture', architecture,"
            "   'first_cuda', first_cuda, 'last_cuda_major', last_cuda_major,"
            "   'last_driver_branch', last_driver_branch, 'source', source)"
            "   ORDER BY architecture), '[]') FROM ref_gpu_arch),"
            " 'gpus', (SELECT coalesce(json_agg(json_build_object('gpu_model', gpu_model,"
            "   'full_name', full_name, 'architecture', architecture,"
            "   'compute_capability', compute_capability::text, 'first_cuda', first_cuda,"
            "   'min_driver_derived', min_driver_derived,"
            "   'min_driver_documented', min_driver_documented, 'aliases', aliases,"
            "   'source', source) ORDER BY gpu_model), '[]') FROM ref_gpu),"
            " 'branches', (SELECT coalesce(json_agg(json_build_object('branch', branch,"
            "   'branch_type', branch_type,"
            "   'eol_nvidia', CASE WHEN eol_basis = 'nvidia' THEN eol::text END,"
            "   'eol_estimate', coalesce(eol_endoflife_date,"
            "     CASE WHEN eol_basis = 'endoflife.date' THEN eol END)::text,"
            "   'eol_source', eol_source, 'source', source)"
            "   ORDER BY branch), '[]') FROM ref_driver_branch),"
            " 'cudnn', (SELECT coalesce(json_agg(json_build_object('cudnn_version', cudnn_version,"
            "   'cuda_majors', cuda_majors, 'source', source,"
            "   'cuda_max', (SELECT json_agg(CASE u.m WHEN 11 THEN cuda11_max WHEN 12 THEN"
            "     cuda12_max WHEN 13 THEN cuda13_max END ORDER BY u.o)"
            "     FROM unnest(cuda_majors) WITH ORDINALITY AS u(m, o)),"
            "   'cc_min', cc_min::text, 'cc_max', cc_max::text,"
            "   'cc_list', array_to_string(cc_list, ';'),"
            /* A set DERIVED from neighbouring matrices (cc_list_status UNCONFIRMED) is passed
             * with that said: the rules never make an error of it (a warning at most). */
            "   'cc_list_unconfirmed', cc_list_status = 'UNCONFIRMED',"
            "   'forward_compat', forward_compat,"
            "   'unconfirmed', status = 'UNCONFIRMED') ORDER BY cudnn_version_key), '[]')"
            "   FROM ref_cudnn d),"
            " 'pytorch', (SELECT coalesce(json_agg(json_build_object("
            "   'pytorch_version', pytorch_version, 'cuda_version', cuda_version,"
            "   'experimental', channel = 'experimental', 'source', source,"
            "   'cuda_archs', cuda_archs, 'cuda_archs_source', cuda_archs_source)"
            "   ORDER BY pytorch_version_key, cuda_version_key), '[]') FROM ref_pytorch_build),"
            " 'tensorflow', (SELECT coalesce(json_agg(json_build_object("
            "   'tensorflow_version', tensorflow_version, 'cuda', cuda, 'cudnn', cudnn,"
            "   'source', source,"
            "   'python_min', python_min, 'python_max', python_max)"
            "   ORDER BY tensorflow_version_key), '[]') FROM ref_tensorflow),"
            " 'ccs', (SELECT coalesce(json_agg(json_build_object("
            "   'compute_capability', compute_capability::text, 'first_cuda', first_cuda,"
            "   'dropped_cuda', dropped_cuda,"
            "   'source', source, 'unconfirmed', status = 'UNCONFIRMED')"
            "   ORDER BY compute_capability), '[]') FROM ref_compute_capability c),"
            " 'pytorch_releases', (SELECT coalesce(json_agg(json_build_object("
            "   'pytorch_version', pytorch_version, 'python_min', python_min,"
            "   'python_max', python_max, 'source', source)"
            "   ORDER BY pytorch_version_key), '[]') FROM ref_pytorch),"
            " 'nccl', (SELECT coalesce(json_agg(json_build_object("
            "   'nccl_version', nccl_version, 'cuda_majors', cuda_majors,"
            "   'cuda_builds', cuda_builds, 'source', source,"
            "   'unconfirmed', status = 'UNCONFIRMED') ORDER BY nccl_version_key), '[]')"
            "   FROM ref_nccl),"
            " 'dcgm', (SELECT coalesce(json_agg(json_build_object("
            "   'dcgm_version', dcgm_version, 'driver_branch_min', driver_branch_min,"
            "   'driver_min', driver_min, 'source', source,"
            "   'unconfirmed', status = 'UNCONFIRMED') ORDER BY dcgm_version_key), '[]')"
            "   FROM ref_dcgm),"
            " 'jax', (SELECT coalesce(json_agg(json_build_object("
            "   'variant', variant, 'cuda_major', cuda_major, 'cuda_min', cuda_min,"
            "   'cudnn_min', cudnn_min, 'cudnn_below', cudnn_below,"
            "   'driver_branch_min', driver_branch_min, 'cc_min', cc_min::text, 'source', source,"
            "   'unconfirmed', status = 'UNCONFIRMED') ORDER BY variant), '[]')"
            "   FROM ref_jax)"
            ")::text");

static void set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

static void holder_free(struct holder *h)
{
    if (!h)
        return;
    free(h->mvc);
    free(h->cuda);
    free(h->archs);
    free(h->gpus);
    free(h->aliases);
    free(h->branches);
    free(h->cudnn);
    free(h->pytorch);
    free(h->tensorflow);
    free(h->ccs);
    free(h->pytorch_releases);
    free(h->nccl);
    free(h->dcgm);
    free(h->jax);
    json_decref(h->root);
    free(h);
}

static void holder_decref(struct holder *h)
{
    if (h && atomic_fetch_sub(&h->refs, 1) == 1)
        holder_free(h);
}

/* Borrowed string member, or NULL when absent or JSON null. */
static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static int num(json_t *o, const char *key)
{
    return (int)json_integer_value(json_object_get(o, key));
}

/* Allocates n elements (at least one, so that an empty table is not a failure). */
static void *alloc_rows(size_t n, size_t size)
{
    return calloc(n ? n : 1, size);
}

/* Builds a holder from the snapshot JSON; steals root. NULL when a required field is missing. */
static struct holder *holder_from_json(json_t *root)
{
    struct holder *h = calloc(1, sizeof *h);
    if (!h) {
        json_decref(root);
        return NULL;
    }
    h->root = root;
    atomic_init(&h->refs, 1);
    json_t *mvc = json_object_get(root, "mvc"), *cuda = json_object_get(root, "cuda"),
           *archs = json_object_get(root, "archs"), *gpus = json_object_get(root, "gpus"),
           *branches = json_object_get(root, "branches"), *cudnn = json_object_get(root, "cudnn"),
           *pytorch = json_object_get(root, "pytorch"), *tf = json_object_get(root, "tensorflow"),
           *ccs = json_object_get(root, "ccs"),
           *releases = json_object_get(root, "pytorch_releases"),
           *nccl = json_object_get(root, "nccl"), *dcgm = json_object_get(root, "dcgm"),
           *jax = json_object_get(root, "jax");
    if (!json_is_integer(json_object_get(root, "generation")) || !json_is_array(mvc) ||
        !json_is_array(cuda) || !json_is_array(archs) || !json_is_array(gpus) ||
        !json_is_array(branches) || !json_is_array(cudnn) || !json_is_array(pytorch) ||
        !json_is_array(tf) || !json_is_array(ccs) || !json_is_array(releases) ||
        !json_is_array(nccl) || !json_is_array(dcgm) || !json_is_array(jax))
        goto fail;
    size_t n_aliases = 0, i;
    json_t *row;
    json_array_foreach(gpus, i, row) n_aliases += json_array_size(json_object_get(row, "aliases"));

    h->mvc = alloc_rows(json_array_size(mvc), sizeof *h->mvc);
    h->cuda = alloc_rows(json_array_size(cuda), sizeof *h->cuda);
    h->archs = alloc_rows(json_array_size(archs), sizeof *h->archs);
    h->gpus = alloc_rows(json_array_size(gpus), sizeof *h->gpus);
    h->aliases = alloc_rows(n_aliases, sizeof *h->aliases);
    h->branches = alloc_rows(json_array_size(branches), sizeof *h->branches);
    h->cudnn = alloc_rows(json_array_size(cudnn), sizeof *h->cudnn);
    h->pytorch = alloc_rows(json_array_size(pytorch), sizeof *h->pytorch);
    h->tensorflow = alloc_rows(json_array_size(tf), sizeof *h->tensorflow);
    h->ccs = alloc_rows(json_array_size(ccs), sizeof *h->ccs);
    h->pytorch_releases = alloc_rows(json_array_size(releases), sizeof *h->pytorch_releases);
    h->nccl = alloc_rows(json_array_size(nccl), sizeof *h->nccl);
    h->dcgm = alloc_rows(json_array_size(dcgm), sizeof *h->dcgm);
    h->jax = alloc_rows(json_array_size(jax), sizeof *h->jax);
    if (!h->mvc || !h->cuda || !h->archs || !h->gpus || !h->aliases || !h->branches || !h->cudnn ||
        !h->pytorch || !h->tensorflow || !h->ccs || !h->pytorch_releases || !h->nccl || !h->dcgm ||
        !h->jax)
        goto fail;

    json_array_foreach(mvc, i, row)
    {
        h->mvc[i] = (struct imx_ref_cuda_mvc){ num(row, "cuda_major"), str(row, "driver_floor"),
                                               str(row, "source") };
        if (!h->mvc[i].driver_floor)
            goto fail;
    }
    json_array_foreach(cuda, i, row)
    {
        h->cuda[i] =
            (struct imx_ref_cuda_driver){ str(row, "cuda_version"), num(row, "cuda_major"),
                                          str(row, "linux_driver_min"), str(row, "source") };
        /* linux_driver_min is NULL for an unconfirmed toolkit. */
        if (!h->cuda[i].cuda_version)
            goto fail;
    }
    json_array_foreach(archs, i, row)
    {
        h->archs[i] =
            (struct imx_ref_gpu_arch){ str(row, "architecture"), str(row, "first_cuda"),
                                       num(row, "last_cuda_major"), num(row, "last_driver_branch"),
                                       str(row, "source") };
        if (!h->archs[i].architecture)
            goto fail;
    }
    size_t a = 0;
    json_array_foreach(gpus, i, row)
    {
        json_t *al = json_object_get(row, "aliases"), *v;
        size_t k, first = a;
        json_array_foreach(al, k, v)
        {
            if (json_is_string(v))
                h->aliases[a++] = json_string_value(v);
        }
        h->gpus[i] = (struct imx_ref_gpu){
            .gpu_model = str(row, "gpu_model"),
            .full_name = str(row, "full_name"),
            .architecture = str(row, "architecture"),
            .compute_capability = str(row, "compute_capability"),
            .first_cuda = str(row, "first_cuda"),
            .min_driver_derived = str(row, "min_driver_derived"),
            .min_driver_documented = str(row, "min_driver_documented"),
            .aliases = h->aliases + first,
            .n_aliases = a - first,
            .source = str(row, "source"),
        };
        if (!h->gpus[i].gpu_model || !h->gpus[i].architecture)
            goto fail;
    }
    json_array_foreach(branches, i, row)
    {
        h->branches[i] = (struct imx_ref_driver_branch){
            .branch = num(row, "branch"),
            .branch_type = str(row, "branch_type"),
            .eol_nvidia = str(row, "eol_nvidia"),
            .eol_estimate = str(row, "eol_estimate"),
            .source = str(row, "source"),
            .eol_source = str(row, "eol_source"),
        };
    }
    json_array_foreach(cudnn, i, row)
    {
        json_t *majors = json_object_get(row, "cuda_majors"), *v;
        json_t *maxes = json_object_get(row, "cuda_max");
        size_t k;
        h->cudnn[i].cudnn_version = str(row, "cudnn_version");
        h->cudnn[i].source = str(row, "source");
        h->cudnn[i].cc_min = str(row, "cc_min");
        h->cudnn[i].cc_max = str(row, "cc_max");
        h->cudnn[i].cc_list = str(row, "cc_list");
        h->cudnn[i].unconfirmed = json_is_true(json_object_get(row, "unconfirmed"));
        h->cudnn[i].cc_list_unconfirmed = json_is_true(json_object_get(row, "cc_list_unconfirmed"));
        h->cudnn[i].forward_compat_known = json_is_boolean(json_object_get(row, "forward_compat"));
        h->cudnn[i].forward_compat = json_is_true(json_object_get(row, "forward_compat"));
        json_array_foreach(majors, k, v)
        {
            size_t n = h->cudnn[i].n_cuda_majors;
            if (n < IMX_REF_CUDNN_MAX_MAJORS) {
                h->cudnn[i].cuda_majors[n] = (int)json_integer_value(v);
                h->cudnn[i].cuda_max[n] = json_string_value(json_array_get(maxes, k));
                h->cudnn[i].n_cuda_majors++;
            }
        }
        if (!h->cudnn[i].cudnn_version)
            goto fail;
    }
    json_array_foreach(pytorch, i, row)
    {
        h->pytorch[i] = (struct imx_ref_pytorch_build){
            .pytorch_version = str(row, "pytorch_version"),
            .cuda_version = str(row, "cuda_version"),
            .experimental = json_is_true(json_object_get(row, "experimental")),
            .source = str(row, "source"),
            .cuda_archs = str(row, "cuda_archs"),
            .cuda_archs_source = str(row, "cuda_archs_source"),
        };
        if (!h->pytorch[i].pytorch_version || !h->pytorch[i].cuda_version)
            goto fail;
    }
    json_array_foreach(tf, i, row)
    {
        h->tensorflow[i] = (struct imx_ref_tensorflow){
            .tensorflow_version = str(row, "tensorflow_version"),
            .cuda = str(row, "cuda"),
            .cudnn = str(row, "cudnn"),
            .source = str(row, "source"),
            .python_min = str(row, "python_min"),
            .python_max = str(row, "python_max"),
        };
        if (!h->tensorflow[i].tensorflow_version || !h->tensorflow[i].cuda)
            goto fail;
    }
    json_array_foreach(ccs, i, row)
    {
        h->ccs[i] = (struct imx_ref_compute_capability){
            .compute_capability = str(row, "compute_capability"),
            .first_cuda = str(row, "first_cuda"),
            .source = str(row, "source"),
            .unconfirmed = json_is_true(json_object_get(row, "unconfirmed")),
            .dropped_cuda = str(row, "dropped_cuda"),
        };
        if (!h->ccs[i].compute_capability || !h->ccs[i].first_cuda)
            goto fail;
    }
    json_array_foreach(releases, i, row)
    {
        h->pytorch_releases[i] = (struct imx_ref_pytorch){
            .pytorch_version = str(row, "pytorch_version"),
            .python_min = str(row, "python_min"),
            .python_max = str(row, "python_max"),
            .source = str(row, "source"),
        };
        if (!h->pytorch_releases[i].pytorch_version)
            goto fail;
    }
    json_array_foreach(nccl, i, row)
    {
        json_t *majors = json_object_get(row, "cuda_majors"), *v;
        size_t k;
        h->nccl[i].nccl_version = str(row, "nccl_version");
        h->nccl[i].cuda_builds = str(row, "cuda_builds");
        h->nccl[i].source = str(row, "source");
        h->nccl[i].unconfirmed = json_is_true(json_object_get(row, "unconfirmed"));
        json_array_foreach(majors, k, v)
        {
            if (k < IMX_REF_NCCL_MAX_MAJORS && json_is_integer(v))
                h->nccl[i].cuda_majors[h->nccl[i].n_cuda_majors++] = (int)json_integer_value(v);
        }
        if (!h->nccl[i].nccl_version)
            goto fail;
    }
    json_array_foreach(dcgm, i, row)
    {
        h->dcgm[i] = (struct imx_ref_dcgm){
            .dcgm_version = str(row, "dcgm_version"),
            .driver_branch_min = num(row, "driver_branch_min"),
            .driver_min = str(row, "driver_min"),
            .source = str(row, "source"),
            .unconfirmed = json_is_true(json_object_get(row, "unconfirmed")),
        };
        if (!h->dcgm[i].dcgm_version)
            goto fail;
    }
    json_array_foreach(jax, i, row)
    {
        h->jax[i] = (struct imx_ref_jax){
            .variant = str(row, "variant"),
            .cuda_major = num(row, "cuda_major"),
            .cuda_min = str(row, "cuda_min"),
            .cudnn_min = str(row, "cudnn_min"),
            .cudnn_below = str(row, "cudnn_below"),
            .driver_branch_min = num(row, "driver_branch_min"),
            .cc_min = str(row, "cc_min"),
            .source = str(row, "source"),
            .unconfirmed = json_is_true(json_object_get(row, "unconfirmed")),
        };
        if (!h->jax[i].variant)
            goto fail;
    }

    h->snap = (struct imx_ref_snapshot){
        .generation = json_integer_value(json_object_get(root, "generation")),
        .mvc = h->mvc,
        .n_mvc = json_array_size(mvc),
        .cuda = h->cuda,
        .n_cuda = json_array_size(cuda),
        .archs = h->archs,
        .n_archs = json_array_size(archs),
        .gpus = h->gpus,
        .n_gpus = json_array_size(gpus),
        .branches = h->branches,
        .n_branches = json_array_size(branches),
        .cudnn = h->cudnn,
        .n_cudnn = json_array_size(cudnn),
        .pytorch = h->pytorch,
        .n_pytorch = json_array_size(pytorch),
        .tensorflow = h->tensorflow,
        .n_tensorflow = json_array_size(tf),
        .ccs = h->ccs,
        .n_ccs = json_array_size(ccs),
        .pytorch_releases = h->pytorch_releases,
        .n_pytorch_releases = json_array_size(releases),
        .nccl = h->nccl,
        .n_nccl = json_array_size(nccl),
        .dcgm = h->dcgm,
        .n_dcgm = json_array_size(dcgm),
        .jax = h->jax,
        .n_jax = json_array_size(jax),
    };
    return h;
fail:
    holder_free(h);
    return NULL;
}

static struct holder *load(struct imx_db_conn *c, char *err, size_t errlen)
{
    PGresult *r = imx_db_exec(c, &stmt_snapshot, NULL);
    if (!imx_db_ok(r) || PQntuples(r) != 1) {
        set_err(err, errlen, "reading the reference data failed");
        PQclear(r);
        return NULL;
    }
    size_t len = (size_t)PQgetlength(r, 0, 0);
    json_t *root = NULL;
    if (len <= REF_JSON_MAX)
        root = json_loadb(PQgetvalue(r, 0, 0), len, 0, NULL);
    PQclear(r);
    struct holder *h = root ? holder_from_json(root) : NULL;
    if (!h)
        set_err(err, errlen, "the reference data could not be parsed");
    return h;
}

const struct imx_ref_snapshot *imx_db_ref_acquire(struct imx_db_conn *c, char *err, size_t errlen)
{
    set_err(err, errlen, "");
    PGresult *r = imx_db_exec(c, &stmt_generation, NULL);
    if (!imx_db_ok(r) || PQntuples(r) != 1) {
        set_err(err, errlen, "reading the reference generation failed");
        PQclear(r);
        return NULL;
    }
    long long gen = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);

    pthread_mutex_lock(&cache_lock);
    struct holder *h = cache;
    if (h && h->snap.generation == gen) {
        atomic_fetch_add(&h->refs, 1);
        pthread_mutex_unlock(&cache_lock);
        return &h->snap;
    }
    pthread_mutex_unlock(&cache_lock);

    /* Loaded outside the lock: two threads may both load; the last one loaded stays cached. */
    h = load(c, err, errlen);
    if (!h)
        return NULL;
    /* h's first reference is the caller's. */
    pthread_mutex_lock(&cache_lock);
    struct holder *old = NULL;
    if (!cache || cache->snap.generation != h->snap.generation) {
        old = cache;
        atomic_fetch_add(&h->refs, 1); /* the cache's */
        cache = h;
    }
    pthread_mutex_unlock(&cache_lock);
    holder_decref(old);
    return &h->snap;
}

void imx_db_ref_release(const struct imx_ref_snapshot *snap)
{
    /* snap is the first member of its holder. */
    holder_decref((struct holder *)(void *)snap);
}

void imx_db_ref_cache_clear(void)
{
    pthread_mutex_lock(&cache_lock);
    struct holder *old = cache;
    cache = NULL;
    pthread_mutex_unlock(&cache_lock);
    holder_decref(old);
}

/* ---- reference tables over the API ---- */

IMX_DB_STMT(stmt_ref_rows, 3,
            "SELECT doc::text, next_key::text FROM imx_ref_page($1::text, $2::jsonb, $3::int)");
IMX_DB_STMT(stmt_ref_write, 3, "SELECT imx_ref_write($1::text, $2::jsonb, $3::bool)::text");

static const char *const ref_tables[] = {
    "cuda_mvc", "cuda_driver",   "gpu_arch",       "gpu",           "driver_branch",      "cudnn",
    "pytorch",  "pytorch_build", "tensorflow",     "instance_type", "compute_capability", "nccl",
    "dcgm",     "jax",           "nvidia_product", "version_alias", "commit_release",
};

const char *imx_db_ref_table(const char *name, char *buf, size_t len)
{
    for (size_t i = 0; name && i < sizeof ref_tables / sizeof ref_tables[0]; i++) {
        if (strcmp(name, ref_tables[i]) == 0) {
            snprintf(buf, len, "ref_%s", ref_tables[i]);
            return buf;
        }
    }
    return NULL;
}

enum imx_db_status imx_db_ref_rows(struct imx_db_conn *c, const char *table, const char *after,
                                   const char *limit, struct imx_db_page *out,
                                   struct imx_db_fault *why)
{
    const char *params[] = { table, after, limit };
    return imx_db_why(c, imx_db_page_take(imx_db_exec(c, &stmt_ref_rows, params), out), why);
}

enum imx_db_status imx_db_ref_write(struct imx_db_conn *c, const char *table, const char *row_json,
                                    bool is_update, struct imx_db_json *stored,
                                    struct imx_db_fault *why)
{
    const char *params[] = { table, row_json, is_update ? "t" : "f" };
    return imx_db_why(c, imx_db_json_take(imx_db_exec(c, &stmt_ref_write, params), 0, stored), why);
}
