/* Catalog search answered two ways must answer the same bytes: two servers on one database, one
 * with IMAXE_SEARCH_INDEX=0 (every search runs the SQL in server/db/images.c) and one with
 * IMAXE_SEARCH_INDEX=1 (searches without q come from the in-memory index). A seeded catalog of
 * ~200 images, its lifecycle (deprecate, revoke, cascade, restore, revoke_at passing) and patch
 * status (advisories, GPU and OS: images carry dpkg and rpm inventories), then a table of searches
 * (os_patch_status answered by both, package= always in SQL): every page of each, followed by
 * next_cursor, must have the same status, Content-Type, Link and body on both; items never repeat,
 * their count is the facets total, and each item passes the simple filters and the sort order.
 * Also: reads follow writes at once through the index server, errors are the same problems, a
 * restarted index (a fresh load, with published_at ties) agrees, and writes through the SQL
 * server reach the index server. */
#include "harness.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define SEED_IMAGES 180 /* published before any lifecycle change */
#define LATE_IMAGES 12  /* published after the advisories (they move older images' patch status) */
#define MAX_IMAGES  300
#define PATH_LEN    4096
#define PAGES_MAX   300 /* a walk with limit=1 over the whole catalog stays below */
#define PAIRS_MAX   24  /* query arguments one table entry may have */
#define SETTLE_MS   10000

static struct imx_srv sql_srv, ix_srv;
static char db[1024], admin[4096], viewer[4096], pub[3][4096];
static const char *const TEAMS[] = { "team-a", "team-b", "team-c" };
/* Thousands of searches a minute by one user, through two servers that share the rate limit. */
static const char *const SQL_ENV[] = { "IMAXE_SEARCH_INDEX=0", "IMAXE_ACCESS_LOG=0",
                                       "IMAXE_RATE_LIMIT_PER_MIN=0", NULL };
/* A walk of 8 images: most filtered pages gather their candidates from the postings, the path a
 * rare filter takes on a large catalog (the default walks 4096). */
static const char *const IX_ENV[] = { "IMAXE_SEARCH_INDEX=1", "IMAXE_SEARCH_INDEX_WALK=8",
                                      "IMAXE_ACCESS_LOG=0", "IMAXE_RATE_LIMIT_PER_MIN=0", NULL };

/* What the test remembers of each image it published. */
struct img {
    long long id;
    int team;
    bool platform;
};
static struct img imgs[MAX_IMAGES];
static size_t n_imgs;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* xorshift32 with a fixed seed: the same catalog on every run. */
static uint32_t rng_state = 20260317u;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state % n;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Family names whose byte order and dictionary order differ ('-' < '.' < digits < '_' < 'a'). */
static const char *const FAMILIES[] = { "base",
                                        "base-gpu",
                                        "base.gpu",
                                        "base_gpu",
                                        "base0",
                                        "base9",
                                        "base-9",
                                        "base.10",
                                        "a",
                                        "a-b",
                                        "a.b",
                                        "a_b",
                                        "ab",
                                        "a0",
                                        "z",
                                        "0day",
                                        "9lives",
                                        "pytorch-2.9-ubuntu24.04",
                                        "pytorch-2.10-ubuntu24.04",
                                        "pytorch_2.9",
                                        "tf-2.17",
                                        "tf.2.17",
                                        "cuda-12.4",
                                        "cuda-12.4.1",
                                        "cuda-12" };
static const char *const PROVIDERS[] = { "aws", "gcp", "azure", "onprem", "oci-container" };
static const char *const OSES[][2] = {
    { "ubuntu", "22.04" }, { "ubuntu", "24.04" }, { "rocky", "9" }, { "amazon-linux", "2023" }
};
/* Canonical names, spellings publish canonicalises, and unknown names it keeps as given. */
static const char *const GPUS[] = {
    "H100",       "A100", "B200",        "L4",       "T4",         "V100",
    "MysteryGPU", "h100", "NVIDIA H100", "Tesla T4", "mysterygpu", "NVIDIA A100-SXM4-80GB"
};
static const char *const REGIONS[] = { "us-east-1", "us-west-2", "eu-west-1" };
static const char *const TAGS[] = { "cis", "fips", "stig", "boot-optimized" };
static const char *const DRIVERS[] = { "535.183.01", "535.274.02", "570.133.20", "570.195.03",
                                       "580.65.06",  "580.95.05",  "580.105.08", "580.126.09",
                                       "590.44.01",  "590.48" };
static const char *const CUDAS[] = { "12.2", "12.2.2", "12.4", "12.4.1",
                                     "12.8", "12.8.1", "13.0", "13.0.2" };
static const char *const TORCHES[] = { "2.5.1+cu124", "2.9.0+cu130", "2.9.1" };
static const int BOOTS[] = { -1, -1, 0, 30, 45, 45, 60, 90, 120 };
static const double SIZES[] = { -1, -1, 0, 10.5, 20, 20.25, 40.5, 40.5, 99.99, 123.4 };
static const char *const DESCRIPTIONS[] = { "training image", "inference image, hardened",
                                            "base platform for training and inference", "",
                                            "experimental nightly build" };

static int setup(void **state)
{
    (void)state;
    /* The index server first: it migrates the database; the SQL server joins it. Same JWT
     * secret (the harness's), so one token and one cursor key serve both. */
    if (imx_t_server_up(&ix_srv, "search_index", IX_ENV, db, sizeof db, admin, sizeof admin) != 0 ||
        imx_t_server_start(&sql_srv, db, SQL_ENV) != 0)
        return -1;
    for (int t = 0; t < 3; t++) {
        char email[64];
        snprintf(email, sizeof email, "pub@%s.test", TEAMS[t]);
        if (imx_t_user(&ix_srv, admin, TEAMS[t], email, "publisher", pub[t], sizeof pub[t]) != 0)
            return -1;
    }
    return imx_t_user(&ix_srv, admin, "team-v", "viewer@v.test", "viewer", viewer, sizeof viewer);
}

static int teardown(void **state)
{
    (void)state;
    int a = imx_t_server_stop(&ix_srv, SIGTERM, 20);
    int b = imx_t_server_stop(&sql_srv, SIGTERM, 20);
    return a == 0 && b == 0 ? 0 : -1;
}

/* ---- publishing and lifecycle (through the server given) ---- */

/* A random manifest for team (new reference). */
static json_t *random_manifest(int team, const char *version)
{
    const char *family = FAMILIES[rnd(COUNT(FAMILIES))];
    const char *const *os = OSES[rnd(COUNT(OSES))];
    json_t *m = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:s, s:s}", "team", TEAMS[team], "family", family,
        "version", version, "provider", PROVIDERS[rnd(COUNT(PROVIDERS))], "architecture",
        rnd(3) ? "x86_64" : "arm64", "os", "name", os[0], "version", os[1], "layer", "platform",
        "description", DESCRIPTIONS[rnd(COUNT(DESCRIPTIONS))]);
    json_t *arts = json_array();
    unsigned regions = 1 + rnd(7); /* a non-empty subset of the three */
    for (size_t r = 0; r < COUNT(REGIONS); r++) {
        if (regions & (1u << r))
            json_array_append_new(
                arts, json_pack("{s:s, s:s}", "region", REGIONS[r], "id", "ami-0123456789abcdef0"));
    }
    json_object_set_new(m, "artifacts", arts);

    json_t *comps = json_array();
    /* One in ten has no components at all. */
    if (rnd(10) != 0) {
        if (rnd(10) < 9)
            json_array_append_new(comps, json_pack("{s:s, s:s}", "name", "nvidia-driver", "version",
                                                   DRIVERS[rnd(COUNT(DRIVERS))]));
        if (rnd(10) < 8)
            json_array_append_new(comps, json_pack("{s:s, s:s}", "name", "cuda", "version",
                                                   CUDAS[rnd(COUNT(CUDAS))]));
        if (rnd(10) < 3)
            json_array_append_new(comps,
                                  json_pack("{s:s, s:s}", "name", "cudnn", "version", "9.1.0.70"));
        if (rnd(2))
            json_array_append_new(comps, json_pack("{s:s, s:s}", "name", "pytorch", "version",
                                                   TORCHES[rnd(COUNT(TORCHES))]));
        if (rnd(5) == 0)
            json_array_append_new(
                comps, json_pack("{s:s, s:s}", "name", "tensorflow", "version", "2.17.0"));
    }
    json_object_set_new(m, "components", comps);

    if (rnd(8) != 0) {
        json_t *gpus = json_array();
        bool used[COUNT(GPUS)] = { false };
        for (uint32_t k = 0, n = 1 + rnd(3); k < n; k++) {
            size_t g = rnd(COUNT(GPUS));
            if (!used[g])
                json_array_append_new(gpus, json_string(GPUS[g]));
            used[g] = true;
        }
        json_object_set_new(m, "gpus", gpus);
    }
    json_t *tags = json_array();
    for (size_t t = 0; t < COUNT(TAGS) && json_array_size(tags) < 3; t++) {
        if (rnd(3) == 0)
            json_array_append_new(tags, json_string(TAGS[t]));
    }
    json_object_set_new(m, "tags", tags);
    int boot = BOOTS[rnd(COUNT(BOOTS))];
    if (boot >= 0)
        json_object_set_new(m, "boot_seconds", json_integer(boot));
    double size = SIZES[rnd(COUNT(SIZES))];
    if (size >= 0)
        json_object_set_new(m, "size_gb", json_real(size));
    if (rnd(4) == 0)
        json_object_set_new(m, "instance_families", json_pack("[s]", "p5"));
    /* Two images in three carry an OS package inventory, chosen by a hash of the version (not
     * rnd(), so that the rest of the catalog is as it always was). */
    unsigned h = 5381;
    for (const char *c = version; *c; c++)
        h = h * 33 + (unsigned char)*c;
    static const char *const DEBS[] = { "3.0.13-0ubuntu3.1", "3.0.13-0ubuntu3.5",
                                        "3.0.13-0ubuntu3.10", "3.0.2-0ubuntu1.15" };
    static const char *const RPMS[] = { "1:3.0.7-27.el9", "1:3.0.7-28.el9_4", "1:3.2.2-6.el9_5" };
    if (h % 3 != 0 && strcmp(os[0], "ubuntu") == 0)
        json_object_set_new(m, "packages",
                            json_pack("[{s:s, s:s}, {s:s, s:s}]", "name", "openssl", "version",
                                      DEBS[(h / 3) % COUNT(DEBS)], "name", "libc6", "version",
                                      "2.39-0ubuntu8.3"));
    else if (h % 3 != 0 && strcmp(os[0], "rocky") == 0)
        json_object_set_new(m, "packages",
                            json_pack("[{s:s, s:s}]", "name", "openssl-libs", "version",
                                      RPMS[(h / 3) % COUNT(RPMS)]));
    return m;
}

/* Publishes m (stolen) through via as its team's publisher; returns the new image's index. */
static size_t publish_steal(const struct imx_srv *via, int team, json_t *m, bool platform)
{
    assert_true(n_imgs < MAX_IMAGES);
    char *text = json_dumps(m, JSON_COMPACT);
    struct imx_res res;
    struct img *im = &imgs[n_imgs];
    json_decref(m);
    assert_int_equal(imx_t_http_as(via, pub[team], "POST", "/v1/images", text, &res), 0);
    if (res.status != 201)
        fail_msg("publish %s: %ld %s", text, res.status, res.body);
    free(text);
    im->id = json_integer_value(json_object_get(res.json, "id"));
    im->team = team;
    im->platform = platform;
    imx_t_res_free(&res);
    return n_imgs++;
}

/* Publishes a random image through via: a third are model images, most of those on a parent. */
static size_t publish_random(const struct imx_srv *via)
{
    int team = (int)(n_imgs % 3);
    char version[32];
    snprintf(version, sizeof version, "1.%zu", n_imgs);
    json_t *m = random_manifest(team, version);
    bool platform = true;
    if (n_imgs > 10 && rnd(3) == 0) {
        platform = false;
        json_object_set_new(m, "layer", json_string("model"));
        if (rnd(6) != 0) {
            size_t p;
            do
                p = rnd((uint32_t)n_imgs);
            while (!imgs[p].platform);
            json_object_set_new(m, "parent", json_integer(imgs[p].id));
        }
    }
    return publish_steal(via, team, m, platform);
}

/* PATCHes image k's status through via with body (JSON), as its team's publisher and with the
 * ETag read through via. */
static void patch_image(const struct imx_srv *via, size_t k, const char *body)
{
    char path[64], etag[128], auth[4200], im[200];
    struct imx_res res;
    snprintf(path, sizeof path, "/v1/images/%lld", imgs[k].id);
    assert_int_equal(imx_t_http_as(via, viewer, "GET", path, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    assert_non_null(imx_t_header(&res, "ETag", etag, sizeof etag));
    imx_t_res_free(&res);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", pub[imgs[k].team]);
    snprintf(im, sizeof im, "If-Match: %s", etag);
    const char *headers[] = { auth, "Content-Type: application/json", im, NULL };
    assert_int_equal(imx_t_http(via, "PATCH", path, headers, body, &res), 0);
    if (res.status != 200)
        fail_msg("PATCH %s %s: %ld %s", path, body, res.status, res.body);
    imx_t_res_free(&res);
}

static void post_advisory(const struct imx_srv *via, const char *body)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(via, admin, "POST", "/v1/advisories", body, &res), 0);
    if (res.status != 201)
        fail_msg("advisory: %ld %s", res.status, res.body);
    imx_t_res_free(&res);
}

/* ---- queries ---- */

/* One query argument, decoded. */
struct pair {
    char key[32];
    char value[512];
};

/* Splits a raw (unencoded) query at '&' and the first '='. Returns how many pairs. */
static size_t split_query(const char *raw, struct pair *out, size_t max)
{
    size_t n = 0;
    const char *p = raw;
    while (*p && n < max) {
        const char *end = strchr(p, '&');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        size_t kl = eq ? (size_t)(eq - p) : len;
        snprintf(out[n].key, sizeof out[n].key, "%.*s", (int)kl, p);
        snprintf(out[n].value, sizeof out[n].value, "%.*s", eq ? (int)(len - kl - 1) : 0,
                 eq ? eq + 1 : "");
        n++;
        p = end ? end + 1 : p + len;
    }
    assert_true(*p == '\0');
    return n;
}

/* raw with every value percent-encoded (all but A-Z a-z 0-9 - . _), into out. */
static void encode_query(const char *raw, char *out, size_t len)
{
    struct pair pairs[PAIRS_MAX];
    size_t n = split_query(raw, pairs, PAIRS_MAX), used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        used += (size_t)snprintf(out + used, len - used, "%s%s=", i ? "&" : "", pairs[i].key);
        for (const unsigned char *c = (const unsigned char *)pairs[i].value; *c; c++) {
            bool plain = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                         (*c >= '0' && *c <= '9') || *c == '-' || *c == '.' || *c == '_';
            used += (size_t)snprintf(out + used, len - used, plain ? "%c" : "%%%02X", *c);
        }
        assert_true(used < len);
    }
}

static const char *arg(const struct pair *pairs, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(pairs[i].key, key) == 0)
            return pairs[i].value;
    return NULL;
}

static void get_both(const char *path, struct imx_res *s, struct imx_res *x)
{
    assert_int_equal(imx_t_http_as(&sql_srv, viewer, "GET", path, NULL, s), 0);
    assert_int_equal(imx_t_http_as(&ix_srv, viewer, "GET", path, NULL, x), 0);
}

static bool same_bytes(const struct imx_res *s, const struct imx_res *x)
{
    char cs[256] = "", cx[256] = "", ls[PATH_LEN] = "", lx[PATH_LEN] = "";
    imx_t_header(s, "Content-Type", cs, sizeof cs);
    imx_t_header(x, "Content-Type", cx, sizeof cx);
    imx_t_header(s, "Link", ls, sizeof ls);
    imx_t_header(x, "Link", lx, sizeof lx);
    return s->status == x->status && s->len == x->len && memcmp(s->body, x->body, s->len) == 0 &&
           strcmp(cs, cx) == 0 && strcmp(ls, lx) == 0;
}

/* Prints both answers to path and fails. */
static void mismatch(const char *path, const struct imx_res *s, const struct imx_res *x)
{
    char ls[PATH_LEN] = "", lx[PATH_LEN] = "";
    size_t at = 0;
    while (at < s->len && at < x->len && s->body[at] == x->body[at])
        at++;
    fprintf(stderr,
            "search answers differ: GET %s\n  first difference at body byte %zu\n"
            "  sql: %ld, Link %s\n  sql body: %s\n  ix:  %ld, Link %s\n  ix body:  %s\n",
            path, at, s->status, imx_t_header(s, "Link", ls, sizeof ls) ? ls : "(none)", s->body,
            x->status, imx_t_header(x, "Link", lx, sizeof lx) ? lx : "(none)", x->body);
    fail_msg("GET %s: the SQL and index servers answered differently", path);
}

/* Asserts both answers to path have the same status, Content-Type, Link and body bytes. */
static void same_answer(const char *path, const struct imx_res *s, const struct imx_res *x)
{
    if (!same_bytes(s, x))
        mismatch(path, s, x);
}

/* The item's member as text ("" when absent). */
static const char *str_of(const json_t *item, const char *key)
{
    const char *v = json_string_value(json_object_get(item, key));
    return v ? v : "";
}

static bool array_has_as(const json_t *arr, const char *s, int (*cmp)(const char *, const char *))
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v) && cmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

static bool array_has(const json_t *arr, const char *s)
{
    return array_has_as(arr, s, strcmp);
}

/* The canonical name a gpu filter value must appear as on each item, or NULL where the filter
 * stands for several models (an architecture) and is not checked here. */
static const char *gpu_canonical(const char *v)
{
    static const char *const map[][2] = {
        { "H100", "H100" }, { "h100", "H100" },   { "NVIDIA H100", "H100" },
        { "A100", "A100" }, { "B200", "B200" },   { "L4", "L4" },
        { "T4", "T4" },     { "Tesla T4", "T4" }, { "V100", "V100" },
    };
    for (size_t i = 0; i < COUNT(map); i++)
        if (strcmp(map[i][0], v) == 0)
            return map[i][1];
    return NULL;
}

/* Asserts item passes the query's simple filters (not q, constraints' ranges, architectures). */
static void check_item(const char *path, const struct pair *pairs, size_t n, const json_t *item)
{
    const json_t *os = json_object_get(item, "os");
    const char *status = arg(pairs, n, "status");
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        const char *k = pairs[i].key, *v = pairs[i].value;
        if (!*v)
            continue;
        if (strcmp(k, "family") == 0 || strcmp(k, "provider") == 0 || strcmp(k, "layer") == 0 ||
            strcmp(k, "patch_status") == 0)
            ok = strcmp(str_of(item, k), v) == 0;
        else if (strcmp(k, "arch") == 0)
            ok = strcmp(str_of(item, "architecture"), v) == 0;
        else if (strcmp(k, "region") == 0)
            ok = array_has(json_object_get(item, "regions"), v);
        else if (strcmp(k, "tag") == 0)
            ok = array_has(json_object_get(item, "tags"), v);
        else if (strcmp(k, "gpu") == 0 && gpu_canonical(v))
            ok = array_has(json_object_get(item, "gpus"), gpu_canonical(v));
        else if (strcmp(k, "gpu") == 0 && strcasecmp(v, "mysterygpu") == 0)
            ok = array_has_as(json_object_get(item, "gpus"), v, strcasecmp); /* stored as given */
        else if (strcmp(k, "os") == 0) {
            char name[64];
            const char *colon = strchr(v, ':');
            snprintf(name, sizeof name, "%.*s", colon ? (int)(colon - v) : (int)strlen(v), v);
            ok = strcmp(str_of(os, "name"), name) == 0 &&
                 (!colon || strcmp(str_of(os, "version"), colon + 1) == 0);
        } else if (strcmp(k, "component") == 0) {
            char name[80];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(v, ":"), v);
            ok = json_object_get(json_object_get(item, "components"), name) != NULL;
        }
    }
    if (ok && (!status || strcmp(status, "any") != 0))
        ok = strcmp(str_of(item, "status"), status ? status : "active") == 0;
    if (!ok) {
        char *text = json_dumps(item, JSON_COMPACT);
        fail_msg("GET %s: item %s does not pass the filters", path, text);
    }
}

/* Orders a before b as sort does (<0, 0, >0): by published_at (newest first), family, or a
 * number (absent: last), then by id the same way. */
static int cmp_items(const char *sort, const json_t *a, const json_t *b)
{
    long long ia = json_integer_value(json_object_get(a, "id"));
    long long ib = json_integer_value(json_object_get(b, "id"));
    int c;
    if (strcmp(sort, "-published_at") == 0) {
        /* Newest first; the same UTC offset everywhere, so the text orders as the time. */
        c = -strcmp(str_of(a, "published_at"), str_of(b, "published_at"));
        return c ? c : (ia > ib ? -1 : ia < ib);
    }
    if (strcmp(sort, "family") == 0) {
        /* The test cluster is C.UTF-8 (tools/pg.sh): text sorts bytewise. */
        c = strcmp(str_of(a, "family"), str_of(b, "family"));
    } else {
        const json_t *va = json_object_get(a, sort), *vb = json_object_get(b, sort);
        double da = json_is_number(va) ? json_number_value(va) : INFINITY;
        double db_ = json_is_number(vb) ? json_number_value(vb) : INFINITY;
        c = da < db_ ? -1 : da > db_;
    }
    return c ? c : (ia < ib ? -1 : ia > ib);
}

/* What walking a query's pages found. */
struct walk {
    size_t items, pages;
    json_t *ids;     /* new array of the ids in order */
    long long total; /* facets.total of its first page, -1 without facets */
};

/* Requests query (raw) on both servers and follows next_cursor until null, comparing every page
 * byte for byte and checking each item. */
static void walk(const char *raw, struct walk *w)
{
    struct pair pairs[PAIRS_MAX];
    size_t np = split_query(raw, pairs, PAIRS_MAX);
    const char *sort = arg(pairs, np, "sort");
    const char *limit_text = arg(pairs, np, "limit");
    size_t limit = limit_text ? strtoul(limit_text, NULL, 10) : 50;
    char query[PATH_LEN], path[PATH_LEN + 700], cursor[600] = "";
    encode_query(raw, query, sizeof query);
    json_t *seen = json_object(), *prev = NULL;
    w->items = w->pages = 0;
    w->ids = json_array();
    w->total = -1;
    for (;;) {
        struct imx_res s, x;
        snprintf(path, sizeof path, "/v1/images%s%s%s%s", *query || *cursor ? "?" : "", query,
                 *cursor ? (*query ? "&cursor=" : "cursor=") : "", cursor);
        get_both(path, &s, &x);
        same_answer(path, &s, &x);
        if (s.status != 200 || !s.json)
            fail_msg("GET %s: %ld %s", path, s.status, s.body);
        json_t *items = json_object_get(s.json, "items"), *it;
        size_t i;
        assert_true(json_is_array(items));
        if (json_array_size(items) > limit || (w->pages > 0 && json_array_size(items) == 0))
            fail_msg("GET %s: %zu items with limit %zu", path, json_array_size(items), limit);
        if (w->pages == 0 && json_object_get(s.json, "facets"))
            w->total =
                json_integer_value(json_object_get(json_object_get(s.json, "facets"), "total"));
        json_array_foreach(items, i, it)
        {
            char key[32];
            json_int_t id = json_integer_value(json_object_get(it, "id"));
            snprintf(key, sizeof key, "%lld", (long long)id);
            if (json_object_get(seen, key))
                fail_msg("GET %s: image %s repeats across pages", path, key);
            json_object_set_new(seen, key, json_true());
            json_array_append_new(w->ids, json_integer(id));
            check_item(path, pairs, np, it);
            if (prev && cmp_items(sort ? sort : "-published_at", prev, it) >= 0) {
                char *a = json_dumps(prev, JSON_COMPACT), *b = json_dumps(it, JSON_COMPACT);
                fail_msg("GET %s: %s before %s is out of order", path, a, b);
            }
            json_decref(prev);
            prev = json_incref(it);
        }
        w->items += json_array_size(items);
        w->pages++;
        json_t *next = json_object_get(s.json, "next_cursor");
        bool more = json_is_string(next);
        if (more) {
            /* A page with a next page is full. Cursors are base64url and '.': no encoding. */
            assert_int_equal(json_array_size(items), limit);
            snprintf(cursor, sizeof cursor, "%s", json_string_value(next));
        } else {
            assert_true(json_is_null(next));
        }
        imx_t_res_free(&s);
        imx_t_res_free(&x);
        if (!more)
            break;
        if (w->pages >= PAGES_MAX)
            fail_msg("GET %s: more than %d pages", path, PAGES_MAX);
    }
    json_decref(prev);
    json_decref(seen);
}

/* The facets of raw with facets=true on both servers (compared); returns the SQL server's
 * facets (new). */
static json_t *facets_of(const char *raw)
{
    char query[PATH_LEN], path[PATH_LEN + 32];
    encode_query(raw, query, sizeof query);
    snprintf(path, sizeof path, "/v1/images?%s%sfacets=true", query, *query ? "&" : "");
    struct imx_res s, x;
    get_both(path, &s, &x);
    same_answer(path, &s, &x);
    if (s.status != 200)
        fail_msg("GET %s: %ld %s", path, s.status, s.body);
    json_t *f = json_incref(json_object_get(s.json, "facets"));
    imx_t_res_free(&s);
    imx_t_res_free(&x);
    assert_non_null(f);
    return f;
}

/* Sum of a facet's counts. */
static long long facet_sum(const json_t *facets, const char *name)
{
    long long sum = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(facets, name), i, e)
    {
        sum += json_integer_value(json_object_get(e, "count"));
    }
    return sum;
}

/* One table entry: every page compared; the facets total of the same query is the number of
 * items walked, as are the sums of the one-value-per-image facets (os, provider). */
static void compare_query(const char *raw)
{
    struct walk w;
    walk(raw, &w);
    json_decref(w.ids);
    long long total = w.total;
    if (!strstr(raw, "facets=")) {
        json_t *f = facets_of(raw);
        total = json_integer_value(json_object_get(f, "total"));
        long long os = facet_sum(f, "os"), provider = facet_sum(f, "provider");
        long long patch = facet_sum(f, "patch_status");
        json_decref(f);
        if (os != total || provider != total || patch != total)
            fail_msg("%s: facets total %lld, os %lld, provider %lld, patch_status %lld", raw, total,
                     os, provider, patch);
    }
    if (total >= 0 && (size_t)total != w.items)
        fail_msg("%s: %zu items over %zu pages, facets total %lld", raw, w.items, w.pages, total);
}

/* Is image id among the results of raw (every page, compared on both servers)? */
static bool listed(const char *raw, long long id)
{
    struct walk w;
    walk(raw, &w);
    bool found = false;
    size_t i;
    json_t *v;
    json_array_foreach(w.ids, i, v)
    {
        found |= json_integer_value(v) == id;
    }
    json_decref(w.ids);
    return found;
}

/* Polls raw's first page on both servers until they answer the same (up to SETTLE_MS): for
 * changes the index server learns of from the database (triggers, other replicas). Fails with
 * both answers when they never do. */
static void settle(const char *raw)
{
    char query[PATH_LEN], path[PATH_LEN + 32];
    encode_query(raw, query, sizeof query);
    snprintf(path, sizeof path, "/v1/images?%s", query);
    long long until = now_ms() + SETTLE_MS;
    for (;;) {
        struct imx_res s, x;
        get_both(path, &s, &x);
        bool same = same_bytes(&s, &x);
        if (!same && now_ms() > until)
            mismatch(path, &s, &x);
        imx_t_res_free(&s);
        imx_t_res_free(&x);
        if (same)
            return;
        imx_t_sleep_ms(100);
    }
}

/* The query table: every filter alone, combinations, every sort and limit, facets, q. Values are
 * written unencoded; encode_query encodes them. */
static const char *const QUERIES[] = {
    "",
    "status=any",
    /* family, with the punctuation that orders differently */
    "family=base",
    "family=base-gpu&status=any",
    "family=base.gpu&status=any",
    "family=base_gpu&status=any",
    "family=a.b&status=any",
    "family=pytorch-2.9-ubuntu24.04&status=any",
    "family=nope",
    "family=&gpu=",
    /* provider, region, arch, os */
    "provider=aws",
    "provider=gcp&status=any",
    "provider=azure",
    "provider=onprem&status=any",
    "provider=oci-container",
    "region=us-east-1",
    "region=us-west-2&status=any",
    "region=eu-west-1",
    "region=ap-south-1",
    "arch=x86_64",
    "arch=arm64&status=any",
    "os=ubuntu",
    "os=ubuntu:24.04",
    "os=ubuntu:22.04&status=any",
    "os=rocky:9",
    "os=rocky",
    "os=amazon-linux:2023&status=any",
    "os=ubuntu:20.04",
    "os=windows",
    /* gpu: models, spellings, architectures, unknown names */
    "gpu=H100",
    "gpu=h100&status=any",
    "gpu=NVIDIA H100",
    "gpu=nvidia-h100",
    "gpu=hopper",
    "gpu=Hopper&status=any",
    "gpu=Blackwell",
    "gpu=ampere&status=any",
    "gpu=A100",
    "gpu=B200",
    "gpu=L4",
    "gpu=T4",
    "gpu=Tesla T4&status=any",
    "gpu=V100",
    "gpu=volta",
    "gpu=MysteryGPU&status=any",
    "gpu=mysterygpu&status=any",
    "gpu=Unobtainium",
    /* component constraints at the boundaries */
    "component=nvidia-driver:>=580.95.05",
    "component=nvidia-driver:>580.95.05&status=any",
    "component=nvidia-driver:<580.105.08",
    "component=nvidia-driver:<=580.105.08&status=any",
    "component=nvidia-driver:=580.95.05",
    "component=nvidia-driver:580.95.05",
    "component=nvidia-driver:~580",
    "component=nvidia-driver:~580.95&status=any",
    "component=nvidia-driver:580",
    "component=nvidia-driver:590.*",
    "component=nvidia-driver:>=535,<570&status=any",
    "component=nvidia-driver:<535",
    "component=cuda:12.4.*",
    "component=cuda:>=12.4,<13",
    "component=cuda:12&status=any",
    "component=cuda:=12.4",
    "component=cuda:12.4",
    "component=cuda:13.0.*&status=any",
    "component=cuda:>=13",
    "component=cuda:>12.8.1",
    "component=cudnn:9.1.0.70",
    "component=cudnn:>=9&status=any",
    "component=pytorch:>=2.9",
    "component=pytorch:<2.9&status=any",
    "component=pytorch:2.5.1+cu124",
    "component=pytorch:=2.9.0",
    "component=tensorflow:2.17.*",
    "component=nvidia-driver:~580&component=cuda:>=13",
    "component=cuda:>=12&component=cuda:<12.8&status=any",
    "component=nvidia-driver:>=570&component=cuda:>=12.4&component=pytorch:>=2.9",
    "component=nccl:>=2",
    /* tags */
    "tag=cis",
    "tag=fips&status=any",
    "tag=stig",
    "tag=boot-optimized",
    "tag=cis&tag=fips",
    "tag=cis&tag=fips&tag=stig&status=any",
    "tag=cis&tag=cis",
    "tag=unknown",
    /* status, layer, patch status */
    "status=active",
    "status=deprecated",
    "status=revoked",
    "layer=platform",
    "layer=model&status=any",
    "patch_status=ok",
    "patch_status=vulnerable&status=any",
    "patch_status=patch_available",
    "patch_status=patch_available&status=any",
    "patch_status=revoked&status=any",
    "patch_status=ok&status=revoked",
    /* combinations of 2 to 5 filters */
    "provider=aws&arch=x86_64",
    "provider=aws&region=us-east-1&gpu=hopper",
    "os=ubuntu:24.04&component=cuda:>=12.4,<13&tag=cis",
    "gpu=H100&component=nvidia-driver:~580&status=any&sort=family",
    "arch=arm64&os=ubuntu&layer=model&status=any&limit=2",
    "region=eu-west-1&tag=fips&component=pytorch:>=2.9&sort=boot_seconds&limit=7",
    "provider=gcp&gpu=Blackwell&component=cuda:13.0.*&sort=size_gb",
    "status=deprecated&sort=family&limit=1",
    "status=revoked&patch_status=revoked&sort=size_gb&limit=2",
    "status=any&patch_status=vulnerable&component=nvidia-driver:<580.105.08",
    "os_patch_status=ok",
    "os_patch_status=vulnerable&status=any",
    "os_patch_status=patch_available&status=any&sort=family",
    "os_patch_status=unknown&limit=7",
    "os_patch_status=revoked&status=any",
    "os_patch_status=patch_available&patch_status=patch_available&sort=size_gb",
    "package=openssl:<3.0.13-0ubuntu3.10&status=any",
    "package=openssl:>=3.0.13-0ubuntu3.5&limit=3",
    "package=openssl-libs:<1:3.0.7-28.el9_4&status=any&sort=boot_seconds",
    "package=openssl:*&package=libc6:=2.39-0ubuntu8.3&os_patch_status=vulnerable",
    "package=nosuchpackage:*",
    "family=base&status=any&sort=boot_seconds&limit=1",
    "layer=model&status=any&component=cudnn:9.1.0.70&region=us-west-2",
    "os=rocky:9&arch=x86_64&provider=onprem&tag=stig&status=any",
    "gpu=ampere&region=us-east-1&os=ubuntu&sort=size_gb&limit=7",
    "family=a_b&gpu=MysteryGPU&status=any",
    /* every sort and limit over the whole catalog */
    "status=any&limit=1",
    "status=any&sort=family&limit=1",
    "status=any&sort=boot_seconds&limit=2",
    "status=any&sort=size_gb&limit=2",
    "status=any&sort=-published_at&limit=7",
    "status=any&sort=family&limit=7",
    "status=any&sort=boot_seconds&limit=7",
    "status=any&sort=size_gb&limit=7",
    "status=any&sort=family&limit=50",
    "status=any&sort=boot_seconds&limit=50",
    "status=any&sort=size_gb&limit=200",
    "status=any&sort=-published_at&limit=200",
    "sort=family&limit=200",
    "sort=boot_seconds",
    "sort=size_gb&limit=1&provider=azure",
    /* facets in the page itself */
    "facets=true",
    "facets=true&status=any&limit=7",
    "facets=true&gpu=hopper&provider=aws",
    "facets=true&sort=family&limit=2&component=cuda:12.4.*",
    "facets=false&limit=7",
    /* q (SQL on both) */
    "q=training",
    "q=hardened&status=any",
    "q=base",
    "q=base gpu&sort=family&limit=7",
    "q=pytorch -hardened",
    "q=training or nightly&status=any&limit=7",
    "q=\"inference image\"",
    "q=nothingmatches",
    "q=training&facets=true&gpu=hopper",
};

/* Each region and patch_status facet value of raw counts what that filter added to raw finds:
 * its facets total, on both servers (facets_of compares them byte for byte). Fails when a facet
 * is missing from the answer. */
static void facet_counts_are_filters(const char *raw)
{
    static const char *const names[] = { "region", "patch_status" };
    json_t *f = facets_of(raw);
    for (size_t k = 0; k < COUNT(names); k++) {
        const json_t *values = json_object_get(f, names[k]);
        if (!json_is_array(values))
            fail_msg("%s: no %s facet", raw, names[k]);
        if (json_integer_value(json_object_get(f, "total")) > 0 && json_array_size(values) == 0)
            fail_msg("%s: an empty %s facet over a non-empty result", raw, names[k]);
        size_t i;
        json_t *e;
        json_array_foreach(values, i, e)
        {
            char q[PATH_LEN];
            snprintf(q, sizeof q, "%s%s%s=%s", raw, *raw ? "&" : "", names[k],
                     json_string_value(json_object_get(e, "value")));
            json_t *g = facets_of(q);
            long long got = json_integer_value(json_object_get(g, "total"));
            long long want = json_integer_value(json_object_get(e, "count"));
            json_decref(g);
            if (got != want)
                fail_msg("%s: %s facet counts %lld, the filter finds %lld", q, names[k], want, got);
        }
    }
    json_decref(f);
}

static const char *const FACET_QUERIES[] = { "", "status=any", "gpu=hopper", "provider=aws" };

static void run_table(const char *phase)
{
    long long t0 = now_ms();
    for (size_t i = 0; i < COUNT(QUERIES); i++)
        compare_query(QUERIES[i]);
    for (size_t i = 0; i < COUNT(FACET_QUERIES); i++)
        facet_counts_are_filters(FACET_QUERIES[i]);
    fprintf(stderr, "search_index: %s: %zu queries agree (%lld ms)\n", phase, COUNT(QUERIES),
            now_ms() - t0);
}

/* ---- the tests ---- */

static void seeded_catalog_searches_agree(void **state)
{
    (void)state;
    long long t0 = now_ms();
    for (int i = 0; i < SEED_IMAGES; i++)
        publish_random(&ix_srv);
    /* Two spellings of one GPU in one manifest are one GPU. */
    json_t *m = random_manifest(0, "twice");
    json_object_set_new(m, "gpus", json_pack("[s, s, s]", "H100", "h100", "NVIDIA H100"));
    publish_steal(&ix_srv, 0, m, true);
    fprintf(stderr, "search_index: %zu images published (%lld ms)\n", n_imgs, now_ms() - t0);
    run_table("seeded");
    /* A GPU no reference row knows is stored as given (MysteryGPU, mysterygpu); a filter finds
     * it in any case, the same images for every spelling, more than either spelling alone. */
    long long each[2] = { 0, 0 }, total[3];
    static const char *const spellings[] = { "MysteryGPU", "mysterygpu", "MYSTERYGPU" };
    for (int k = 0; k < 3; k++) {
        char path[128];
        snprintf(path, sizeof path, "/v1/images?gpu=%s&status=any&facets=true&limit=1",
                 spellings[k]);
        struct imx_res s, x;
        get_both(path, &s, &x);
        same_answer(path, &s, &x);
        const json_t *f = json_object_get(x.json, "facets");
        total[k] = json_integer_value(json_object_get(f, "total"));
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(f, "gpu"), i, v)
        {
            const char *name = json_string_value(json_object_get(v, "value"));
            for (int e = 0; e < 2; e++) {
                if (name && strcmp(name, spellings[e]) == 0)
                    each[e] = json_integer_value(json_object_get(v, "count"));
            }
        }
        imx_t_res_free(&s);
        imx_t_res_free(&x);
    }
    assert_true(each[0] > 0 && each[1] > 0);
    assert_int_equal(total[0], total[1]);
    assert_int_equal(total[0], total[2]);
    assert_true(total[0] > each[0] && total[0] > each[1]);
}

static const char ADV_1[] =
    "{\"id\":\"T-IDX-1\",\"title\":\"Driver bulletin 1\",\"published\":\"2025-10-09\","
    "\"severity\":\"high\",\"cves\":[\"CVE-2025-23280\"],\"affected\":["
    "{\"component\":\"nvidia-driver\",\"range\":\">=535,<535.274.02\",\"fixed\":\"535.274.02\"},"
    "{\"component\":\"nvidia-driver\",\"range\":\">=580,<580.95.05\",\"fixed\":\"580.95.05\"}]}";
static const char ADV_2[] =
    "{\"id\":\"T-IDX-2\",\"title\":\"Driver bulletin 2\",\"published\":\"2026-01-20\","
    "\"severity\":\"medium\",\"cves\":[\"CVE-2026-0001\"],\"affected\":["
    "{\"component\":\"nvidia-driver\",\"range\":\">=580, <580.105.08\",\"fixed\":\"580.105.08\"}]}";
static const char ADV_OS[] =
    "{\"id\":\"T-IDX-OS\",\"title\":\"openssl\",\"published\":\"2026-02-01\","
    "\"severity\":\"high\",\"affected\":["
    "{\"ecosystem\":\"Ubuntu:24.04:LTS\",\"package\":\"openssl\",\"range\":\"<3.0.13-0ubuntu3.5\","
    "\"fixed\":\"3.0.13-0ubuntu3.5\"},"
    "{\"ecosystem\":\"Rocky Linux:9\",\"package\":\"openssl-libs\",\"range\":"
    "\"<1:3.0.7-28.el9_4\",\"fixed\":\"1:3.0.7-28.el9_4\"}]}";

/* The first seeded platform image with a child, and that child's index. */
static size_t platform_with_child(size_t *child)
{
    char q[256];
    for (size_t k = 0; k < n_imgs; k++) {
        if (!imgs[k].platform)
            continue;
        snprintf(q, sizeof q, "SELECT id FROM images WHERE parent_id = %lld ORDER BY id LIMIT 1",
                 imgs[k].id);
        char *v = imx_t_sql(db, q);
        assert_non_null(v);
        long long cid = atoll(v);
        free(v);
        for (size_t c = 0; cid && c < n_imgs; c++) {
            if (imgs[c].id == cid) {
                *child = c;
                return k;
            }
        }
    }
    fail_msg("no seeded platform image has a child");
    return 0;
}

/* The queries compared around a scheduled revocation's time. */
static const char *const AROUND_REVOKE_AT[] = {
    "status=any&sort=family&limit=7",
    "status=deprecated&limit=200",
    "facets=true&status=revoked",
    "patch_status=ok&status=any&sort=size_gb&limit=50",
};

static void lifecycle_and_advisories_searches_agree(void **state)
{
    (void)state;
    size_t child = 0, parent = platform_with_child(&child);
    /* Lifecycle through the index server: deprecate, revoke, a cascade, a restore. */
    size_t first_revoked = 0, second_revoked = 0;
    for (size_t k = 0; k < SEED_IMAGES; k++) {
        if (k == parent || k == child)
            continue;
        if (k % 11 == 3)
            patch_image(&ix_srv, k, "{\"status\":\"deprecated\",\"reason\":\"superseded\"}");
        else if (k % 13 == 5) {
            char body[128];
            snprintf(body, sizeof body, "{\"status\":\"revoked\",\"reason\":\"CVE-2025-%04zu\"}",
                     k);
            patch_image(&ix_srv, k, body);
            if (first_revoked)
                second_revoked = second_revoked ? second_revoked : k;
            else
                first_revoked = k;
        }
    }
    patch_image(&ix_srv, parent,
                "{\"status\":\"revoked\",\"reason\":\"CVE-2025-9999\",\"cascade\":true}");
    assert_true(first_revoked > 0 && second_revoked > 0);
    patch_image(&ix_srv, first_revoked, "{\"status\":\"active\"}");
    assert_true(listed("status=revoked&limit=200", imgs[child].id));
    assert_false(listed("status=revoked&limit=200", imgs[first_revoked].id));

    /* Advisories move patch_status of images they never name (database triggers); then later
     * images of the same families fix some (patch_available on older ones). */
    post_advisory(&ix_srv, ADV_1);
    post_advisory(&ix_srv, ADV_2);
    post_advisory(&ix_srv, ADV_OS);
    settle("patch_status=vulnerable&status=any&limit=200");
    for (int i = 0; i < LATE_IMAGES; i++)
        publish_random(&ix_srv);
    settle("patch_status=patch_available&status=any&limit=200");
    /* A restore after the advisories: its family's patch statuses are recomputed. */
    patch_image(&ix_srv, second_revoked, "{\"status\":\"active\"}");
    settle("patch_status=ok&status=any&limit=200");
    assert_true(listed("status=active&limit=200", imgs[second_revoked].id));
    /* The catalog has every patch status now, so their filters select something. */
    static const char *const PATCH[] = { "ok", "vulnerable", "patch_available", "revoked" };
    for (size_t i = 0; i < COUNT(PATCH); i++) {
        char raw[64];
        snprintf(raw, sizeof raw, "status=any&patch_status=%s", PATCH[i]);
        json_t *f = facets_of(raw);
        if (json_integer_value(json_object_get(f, "total")) < 1)
            fail_msg("no image has patch_status %s", PATCH[i]);
        json_decref(f);
    }

    /* Scheduled revocations: s1 active until revoke_at, s2 deprecated until then, s3 far away,
     * s4 scheduled and then restored (a restore cancels the schedule). */
    size_t s[4], found = 0;
    for (size_t k = SEED_IMAGES - 1; k > 0 && found < 4; k--) {
        if (k % 11 != 3 && k % 13 != 5 && k != parent && k != child && imgs[k].platform &&
            k != first_revoked) {
            char q[128];
            snprintf(q, sizeof q, "SELECT count(*) FROM images WHERE parent_id = %lld", imgs[k].id);
            char *v = imx_t_sql(db, q);
            bool childless = v && strcmp(v, "0") == 0;
            free(v);
            if (childless)
                s[found++] = k;
        }
    }
    assert_int_equal(found, 4);
    time_t at = time(NULL) + 4;
    char when[32], body[160];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&at));
    patch_image(&ix_srv, s[1], "{\"status\":\"deprecated\"}");
    snprintf(body, sizeof body, "{\"status\":\"revoked\",\"reason\":\"EOL\",\"revoke_at\":\"%s\"}",
             when);
    patch_image(&ix_srv, s[0], body);
    patch_image(&ix_srv, s[1], body);
    const char far[] =
        "{\"status\":\"revoked\",\"reason\":\"EOL\",\"revoke_at\":\"2999-01-01T00:00:00Z\"}";
    patch_image(&ix_srv, s[2], far);
    patch_image(&ix_srv, s[3], far);
    patch_image(&ix_srv, s[3], "{\"status\":\"active\"}");

    /* Before revoke_at (each comparison must end well before it). */
    long long deadline = (long long)at * 1000 - 1000;
    assert_true(now_ms() < deadline);
    bool before_active = listed("status=active&limit=200", imgs[s[0]].id);
    bool before_deprecated = listed("status=deprecated&limit=200", imgs[s[1]].id);
    bool before_revoked = listed("status=revoked&limit=200", imgs[s[0]].id) ||
                          listed("status=revoked&limit=200", imgs[s[1]].id);
    assert_true(now_ms() < deadline);
    assert_true(before_active);
    assert_true(before_deprecated);
    assert_false(before_revoked);
    size_t compared = 0;
    for (size_t i = 0; i < COUNT(AROUND_REVOKE_AT) && now_ms() < deadline - 500; i++, compared++)
        compare_query(AROUND_REVOKE_AT[i]);
    fprintf(stderr, "search_index: %zu queries compared before revoke_at\n", compared);

    /* After revoke_at, and after the dispatchers have made the due revocations real (within a
     * poll, 1 s): comparing while that write lands would race it (one server's answer from
     * before, the other's from after). */
    while (now_ms() < (long long)at * 1000 + 300)
        imx_t_sleep_ms(50);
    for (int waited = 0;; waited += 100) {
        char *due = imx_t_sql(db, "SELECT count(*) FROM images"
                                  " WHERE revoke_at <= now() AND status <> 'revoked'");
        bool applied = due && strcmp(due, "0") == 0;
        free(due);
        if (applied)
            break;
        if (waited > 5000)
            fail_msg("due revocations were not applied within 5 s");
        imx_t_sleep_ms(100);
    }
    assert_false(listed("status=active&limit=200", imgs[s[0]].id));
    assert_false(listed("status=deprecated&limit=200", imgs[s[1]].id));
    assert_true(listed("status=revoked&limit=200", imgs[s[0]].id));
    assert_true(listed("status=revoked&limit=200", imgs[s[1]].id));
    assert_true(listed("status=active&limit=200", imgs[s[2]].id));
    assert_true(listed("status=active&limit=200", imgs[s[3]].id));
    for (size_t i = 0; i < COUNT(AROUND_REVOKE_AT); i++)
        compare_query(AROUND_REVOKE_AT[i]);
    run_table("lifecycle");
}

/* A publish and a status change through the index server are in the very next search on both
 * servers, many times over, with no sleep. */
static void reads_follow_writes_at_once(void **state)
{
    (void)state;
    for (int i = 0; i < 6; i++) {
        char version[16];
        snprintf(version, sizeof version, "%d", i);
        json_t *m = random_manifest(i % 3, version);
        json_object_set_new(m, "family", json_string("ryw.loop-1"));
        size_t k = publish_steal(&ix_srv, i % 3, m, true);
        long long id = imgs[k].id;
        /* No sleep: the index server's own write is in its next search, and the SQL one's. */
        assert_true(listed("family=ryw.loop-1&limit=2", id));
        assert_true(listed("family=ryw.loop-1&status=any&sort=family", id));
        if (i % 2 == 0) {
            patch_image(&ix_srv, k, "{\"status\":\"revoked\",\"reason\":\"ryw\"}");
            assert_true(listed("status=revoked&family=ryw.loop-1", id));
            assert_true(listed("status=revoked&limit=200&sort=size_gb", id));
            assert_false(listed("family=ryw.loop-1&status=active", id));
        } else {
            patch_image(&ix_srv, k, "{\"status\":\"deprecated\"}");
            assert_true(listed("status=deprecated&family=ryw.loop-1", id));
            patch_image(&ix_srv, k, "{\"status\":\"active\"}");
            assert_true(listed("family=ryw.loop-1&status=active", id));
            assert_false(listed("status=deprecated&family=ryw.loop-1", id));
        }
        compare_query("family=ryw.loop-1&status=any&limit=2");
    }
}

/* Both answers to raw are the same problem with status want (the request_id set apart). */
static void same_problem(const char *raw, const char *encoded, long want)
{
    char path[PATH_LEN + 600];
    if (raw) {
        char query[PATH_LEN];
        encode_query(raw, query, sizeof query);
        snprintf(path, sizeof path, "/v1/images?%s", query);
    } else {
        snprintf(path, sizeof path, "/v1/images?%s", encoded);
    }
    struct imx_res s, x;
    get_both(path, &s, &x);
    if (s.status != want)
        fail_msg("GET %s: %ld, want %ld: %s", path, s.status, want, s.body);
    imx_t_assert_problem(&s, want);
    imx_t_assert_problem(&x, want);
    assert_non_null(json_string_value(json_object_get(s.json, "request_id")));
    assert_non_null(json_string_value(json_object_get(x.json, "request_id")));
    json_object_del(s.json, "request_id");
    json_object_del(x.json, "request_id");
    char *ts = json_dumps(s.json, JSON_COMPACT), *tx = json_dumps(x.json, JSON_COMPACT);
    if (strcmp(ts, tx) != 0) {
        fprintf(stderr, "problems differ: GET %s\n  sql: %s\n  ix:  %s\n", path, ts, tx);
        fail_msg("GET %s: the SQL and index servers answered different problems", path);
    }
    free(ts);
    free(tx);
    imx_t_res_free(&s);
    imx_t_res_free(&x);
}

/* The first page's next_cursor of raw (from the SQL server; both are compared). */
static void first_cursor(const char *raw, char *out, size_t len)
{
    char query[PATH_LEN], path[PATH_LEN + 16];
    encode_query(raw, query, sizeof query);
    snprintf(path, sizeof path, "/v1/images?%s", query);
    struct imx_res s, x;
    get_both(path, &s, &x);
    same_answer(path, &s, &x);
    const char *c = json_string_value(json_object_get(s.json, "next_cursor"));
    assert_non_null(c);
    snprintf(out, len, "%s", c);
    imx_t_res_free(&s);
    imx_t_res_free(&x);
}

/* Compares raw + "&cursor=" + cursor on both servers (any status) and returns the status. */
static long compare_with_cursor(const char *raw, const char *cursor)
{
    char query[PATH_LEN], path[PATH_LEN + 600];
    encode_query(raw, query, sizeof query);
    snprintf(path, sizeof path, "/v1/images?%s&cursor=%s", query, cursor);
    struct imx_res s, x;
    get_both(path, &s, &x);
    long status = s.status;
    if (status == 200)
        same_answer(path, &s, &x);
    imx_t_res_free(&s);
    imx_t_res_free(&x);
    if (status != 200)
        same_problem(NULL, path + strlen("/v1/images?"), status);
    return status;
}

/* Bad arguments and bad cursors: the same status and problem document from both servers. */
static void errors_are_the_same_problems(void **state)
{
    (void)state;
    static const char *const BAD[] = {
        "limit=0",
        "limit=201",
        "limit=abc",
        "limit=-1",
        "limit=",
        "sort=price",
        "sort=-family",
        "status=bogus",
        "provider=ibm",
        "arch=sparc",
        "layer=middle",
        "patch_status=unknown",
        "facets=yes",
        "os=:24.04",
        "os=ubuntu:24.04:x",
        "component=cuda",
        "component=cuda:>=twelve",
        "component=:>=12",
        "component=Cuda:>=12",
        "component=cuda:>=12.*",
        "component=cuda:12.4,",
        "component=cuda:",
        "cursor=abc",
        "cursor=",
        "cursor=cDoxOjE.AAAAAAAAAAAAAAAAAAAAAA",
        "tag=a&tag=b&tag=c&tag=d&tag=e&tag=f&tag=g&tag=h&tag=i",
        "gpu=hopper&component=cuda:12.4.*&limit=201",
    };
    for (size_t i = 0; i < COUNT(BAD); i++)
        same_problem(BAD[i], NULL, 400);
    char many[2048] = "status=any", q[300] = "q=";
    for (int i = 0; i < 17; i++)
        strcat(many, "&component=cuda:>=1");
    same_problem(many, NULL, 400);
    memset(q + 2, 'a', 201);
    q[203] = '\0';
    same_problem(q, NULL, 400);

    /* Cursors: from another sort (400), tampered (400), from the same sort with other filters or
     * another limit (accepted: the cursor carries the sort's key only). */
    char fam[600], pub_c[600], boot[600];
    first_cursor("status=any&sort=family&limit=2", fam, sizeof fam);
    first_cursor("status=any&limit=3", pub_c, sizeof pub_c);
    first_cursor("status=any&sort=boot_seconds&limit=5", boot, sizeof boot);
    assert_int_equal(compare_with_cursor("status=any&sort=size_gb&limit=2", fam), 400);
    assert_int_equal(compare_with_cursor("status=any&sort=boot_seconds&limit=2", pub_c), 400);
    assert_int_equal(compare_with_cursor("status=any&limit=2", boot), 400);
    char tampered[600];
    snprintf(tampered, sizeof tampered, "%s", fam);
    char *dot = strchr(tampered, '.');
    assert_non_null(dot);
    dot[1] = dot[1] == 'A' ? 'B' : 'A';
    assert_int_equal(compare_with_cursor("status=any&sort=family&limit=2", tampered), 400);
    assert_int_equal(compare_with_cursor("status=any&sort=family&limit=7", fam), 200);
    assert_int_equal(compare_with_cursor("sort=family&gpu=hopper&limit=2", fam), 200);
    assert_int_equal(compare_with_cursor("status=revoked&limit=5", pub_c), 200);
    assert_int_equal(compare_with_cursor("sort=boot_seconds&facets=true&tag=cis", boot), 200);
}

/* A restarted index server loads the catalog afresh; published_at ties (made with SQL while it
 * is down) are broken by id on both. */
static void a_restarted_index_agrees(void **state)
{
    (void)state;
    assert_int_equal(imx_t_server_stop(&ix_srv, SIGTERM, 20), 0);
    char q[512];
    for (size_t g = 0; g < 3; g++) {
        size_t first = 20 + g * 50;
        snprintf(q, sizeof q,
                 "UPDATE images SET published_at = (SELECT published_at FROM images WHERE id ="
                 " %lld) WHERE id IN (%lld, %lld, %lld, %lld) RETURNING 1",
                 imgs[first].id, imgs[first + 1].id, imgs[first + 3].id, imgs[first + 7].id,
                 imgs[first + 20].id);
        char *v = imx_t_sql(db, q);
        assert_non_null(v);
        free(v);
    }
    char *ties = imx_t_sql(db, "SELECT count(*) FROM (SELECT published_at FROM images"
                               " GROUP BY 1 HAVING count(*) > 1) t");
    assert_non_null(ties);
    assert_true(atoi(ties) >= 3);
    free(ties);
    assert_int_equal(imx_t_server_start(&ix_srv, db, IX_ENV), 0);
    run_table("restarted");
}

/* Writes through the SQL server (another replica, for the index server) show in the index
 * server's very next search: it checks the database's catalog generation on every page. */
static void writes_through_the_other_server_reach_the_index(void **state)
{
    (void)state;
    json_t *m = random_manifest(1, "1");
    json_object_set_new(m, "family", json_string("other-replica"));
    size_t k = publish_steal(&sql_srv, 1, m, true);
    assert_true(listed("family=other-replica", imgs[k].id));
    patch_image(&sql_srv, k, "{\"status\":\"revoked\",\"reason\":\"other replica\"}");
    assert_true(listed("family=other-replica&status=revoked", imgs[k].id));
    post_advisory(&sql_srv, "{\"id\":\"T-IDX-3\",\"title\":\"Driver bulletin 3\","
                            "\"published\":\"2026-02-01\",\"severity\":\"low\",\"affected\":["
                            "{\"component\":\"nvidia-driver\",\"range\":\">=590,<590.48\","
                            "\"fixed\":\"590.48\"}]}");
    compare_query("patch_status=vulnerable&status=any&sort=family&limit=7");
    compare_query("patch_status=patch_available&status=any&limit=7");
    compare_query("status=any&limit=50");
}

/* A counter from the server's /metrics ("name{labels} value"); -1 when absent. */
/* The comparisons above mean something only if the index answered: every search without q on
 * ix came from it, and the SQL server never used one. */
static void the_index_answered(void **state)
{
    (void)state;
    long long indexed = imx_t_metric(&ix_srv, "imaxe_searches_total{by=\"index\"}");
    long long sql = imx_t_metric(&ix_srv, "imaxe_searches_total{by=\"sql\"}");
    fprintf(stderr, "search_index: ix answered %lld searches from the index, %lld in SQL\n",
            indexed, sql);
    assert_true(indexed > 1000);
    assert_true(sql <
                indexed / 10); /* q searches, and the moments while another thread catches up */
    assert_true(imx_t_metric(&ix_srv, "imaxe_search_index_images") > 150);
    assert_int_equal(imx_t_metric(&sql_srv, "imaxe_searches_total{by=\"index\"}"), 0);
    assert_int_equal(imx_t_metric(&sql_srv, "imaxe_search_index_images"), -1);
}

/* A bulk load through SQL (300 new images in one transaction, more than a catch-up puts one by
 * one) makes the index server reload the catalog; its pages still equal the SQL server's. */
static void a_bulk_load_reloads_the_index(void **state)
{
    (void)state;
    long long loads = imx_t_metric(&ix_srv, "imaxe_search_index_loads_total");
    char *n = imx_t_sql(
        db, "WITH src AS (SELECT i.*, row_number() OVER (ORDER BY i.id, k) AS n"
            "   FROM images i, generate_series(1, 2) k ORDER BY i.id, k LIMIT 300),"
            " ins AS (INSERT INTO images (family, version, team_id, provider, architecture,"
            "   os_name, os_version, kernel, layer, boot_seconds, size_gb, description,"
            "   compatibility, search)"
            "  SELECT 'bulk-' || (src.n % 7), 'b' || src.n, team_id, provider, architecture,"
            "   os_name, os_version, kernel, layer, boot_seconds, size_gb, description,"
            "   compatibility, search FROM src RETURNING id, version),"
            " pairs AS (SELECT ins.id AS new_id, src.id AS old_id FROM ins"
            "   JOIN src ON ins.version = 'b' || src.n),"
            " c AS (INSERT INTO image_components (image_id, name, version)"
            "   SELECT p.new_id, x.name, x.version FROM pairs p"
            "   JOIN image_components x ON x.image_id = p.old_id RETURNING 1),"
            " a AS (INSERT INTO image_artifacts (image_id, region, artifact_id)"
            "   SELECT p.new_id, x.region, x.artifact_id FROM pairs p"
            "   JOIN image_artifacts x ON x.image_id = p.old_id RETURNING 1),"
            " g AS (INSERT INTO image_gpus (image_id, gpu) SELECT p.new_id, x.gpu FROM pairs p"
            "   JOIN image_gpus x ON x.image_id = p.old_id RETURNING 1),"
            " t AS (INSERT INTO image_tags (image_id, tag) SELECT p.new_id, x.tag FROM pairs p"
            "   JOIN image_tags x ON x.image_id = p.old_id RETURNING 1)"
            " SELECT count(*) FROM ins");
    assert_non_null(n);
    assert_int_equal(atoi(n), 300);
    free(n);
    /* (The query table's limit=1 walks would pass its 300-page bound with 500 images.) */
    static const char *const after_bulk[] = {
        "status=any&limit=50",
        "status=any&sort=family&limit=200&facets=true",
        "gpu=hopper&sort=boot_seconds&limit=50",
        "component=nvidia-driver:~580&region=us-east-1&limit=100",
        "tag=cis&sort=size_gb&limit=37",
        "status=deprecated&limit=50&facets=true",
    };
    for (size_t i = 0; i < COUNT(after_bulk); i++)
        compare_query(after_bulk[i]);
    compare_query("family=bulk-3&status=any&sort=size_gb&limit=7");
    compare_query("family=bulk-1&gpu=H100&facets=true");
    assert_true(imx_t_metric(&ix_srv, "imaxe_search_index_loads_total") > loads);
}

/* An image the index cannot hold (more GPUs than a list takes: only possible through SQL) makes
 * the catch-up fail: the index is dropped and SQL answers every search, with the same pages.
 * Last, since the index stays off for this server afterwards (reloads back off for 30 s). */
static void an_image_the_index_cannot_hold_leaves_search_to_sql(void **state)
{
    (void)state;
    long long sql_before = imx_t_metric(&ix_srv, "imaxe_searches_total{by=\"sql\"}");
    char q[256];
    snprintf(q, sizeof q,
             "INSERT INTO image_gpus (image_id, gpu) SELECT %lld, 'gpu-' || g"
             " FROM generate_series(1, 300) g RETURNING 1",
             imgs[0].id);
    free(imx_t_sql(db, q));
    compare_query("status=any&limit=50");
    compare_query("gpu=gpu-7&status=any&facets=true");
    compare_query("region=us-east-1&sort=family&limit=7");
    assert_true(listed("gpu=gpu-300&status=any", imgs[0].id));
    assert_int_equal(imx_t_metric(&ix_srv, "imaxe_search_index_images"), -1);
    assert_true(imx_t_metric(&ix_srv, "imaxe_searches_total{by=\"sql\"}") > sql_before + 3);
    assert_true(imx_t_log_contains(&ix_srv, "search index dropped"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seeded_catalog_searches_agree),
        cmocka_unit_test(lifecycle_and_advisories_searches_agree),
        cmocka_unit_test(reads_follow_writes_at_once),
        cmocka_unit_test(errors_are_the_same_problems),
        cmocka_unit_test(a_restarted_index_agrees),
        cmocka_unit_test(writes_through_the_other_server_reach_the_index),
        cmocka_unit_test(the_index_answered),
        cmocka_unit_test(a_bulk_load_reloads_the_index),
        cmocka_unit_test(an_image_the_index_cannot_hold_leaves_search_to_sql),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
