/* VEX out against the real server: for every image of a random catalog (over several families,
 * a random number of images each with random driver, toolkit and CUDA versions, one of them
 * revoked; advisories on those components, past and within their ranges), the OpenVEX
 * and CycloneDX documents state `affected` for exactly the advisories GET /v1/images/{id}/patch
 * lists, with its fixing image as the action; fixed / not_affected where the component is past
 * the ranges or absent; every document validates (tests/integration/vex_validate.js: the OpenVEX
 * JSON schema and @cyclonedx/cyclonedx-library's strict 1.6 validator). Product identifiers of a
 * container digest and an AMI; the pin route; bad requests; every document's Imaxe-Signature
 * verifies against GET /v1/vex/keys, and a changed byte does not; the same facts give the same
 * bytes and signature, a change a new document dated by it. Each run draws a new catalog
 * and prints its seed; IMX_VEX_SEED=N draws that one again.
 */
#include "harness.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static struct imx_srv srv;
static char db[1024];
static char admin[4096], alice[4096], bob[4096];
static unsigned seed, rng;

#define FAMILIES     4
#define PER_FAMILY   6
#define MAX_IMAGES   (FAMILIES * PER_FAMILY + 4)
#define N_ADVISORIES 7

static long long ids[MAX_IMAGES];
static size_t n_ids;
static long long container_id, ami_id, revoked_id;

static unsigned next_rand(void)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 16) & 0x7fff;
}

static int setup(void **state)
{
    (void)state;
    const char *given = getenv("IMX_VEX_SEED");
    if (given && *given)
        seed = (unsigned)strtoul(given, NULL, 10);
    else if (RAND_bytes((unsigned char *)&seed, sizeof seed) != 1)
        return -1;
    rng = seed;
    fprintf(stderr, "vex: catalog seed %u (IMX_VEX_SEED=%u draws it again)\n", seed, seed);
    if (imx_t_server_up(&srv, "vex", NULL, db, sizeof db, admin, sizeof admin) != 0)
        return -1;
    if (imx_t_user(&srv, admin, "team-a", "alice@a.test", "publisher", alice, sizeof alice) != 0 ||
        imx_t_user(&srv, admin, "team-b", "bob@b.test", "admin", bob, sizeof bob) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return imx_t_server_stop(&srv, SIGTERM, 15) == 0 ? 0 : -1;
}

static struct imx_res get(const char *token, const char *path, long status)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, "GET", path, NULL, &res), 0);
    if (res.status != status)
        fail_msg("GET %s: expected %ld, got %ld: %s", path, status, res.status, res.body);
    return res;
}

static void post(const char *token, const char *path, const char *body, long status)
{
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, token, "POST", path, body, &res), 0);
    if (res.status != status)
        fail_msg("POST %s: expected %ld, got %ld: %s", path, status, res.status, res.body);
    imx_t_res_free(&res);
}

/* Publishes an image with a full manifest (provider, artifact), returning its id. */
static long long publish(const char *family, const char *version, const char *provider,
                         const char *region, const char *artifact, const char *components)
{
    char body[4096];
    snprintf(body, sizeof body,
             "{\"team\":\"team-a\",\"family\":\"%s\",\"version\":\"%s\",\"provider\":\"%s\","
             "\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":\"24.04\"},"
             "\"layer\":\"platform\",\"artifacts\":[{\"region\":\"%s\",\"id\":\"%s\"}],"
             "\"components\":%s}",
             family, version, provider, region, artifact, components);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, alice, "POST", "/v1/images", body, &res), 0);
    if (res.status != 201)
        fail_msg("publish %s %s: %ld %s", family, version, res.status, res.body);
    long long id = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    return id;
}

static void before_any_advisory_openvex_has_nothing_to_state(void **state)
{
    (void)state;
    ami_id = publish("vex-ami", "1", "aws", "eu-west-1", "ami-0abc123def4567890",
                     "[{\"name\":\"nvidia-driver\",\"version\":\"580.82.07\"},"
                     "{\"name\":\"cuda\",\"version\":\"13.0.2\"}]");
    container_id = publish("vex-container", "1", "oci-container", "nvcr-io",
                           "nvcr.io/nvidia/pytorch:25.01-py3@sha256:"
                           "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                           "[{\"name\":\"nvidia-container-toolkit\",\"version\":\"1.16.1\"},"
                           "{\"name\":\"cuda\",\"version\":\"12.8.0\"}]");
    char path[96];
    snprintf(path, sizeof path, "/v1/images/%lld/vex", ami_id);
    struct imx_res res = get(alice, path, 422);
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/images/%lld/vex?format=cyclonedx", ami_id);
    res = get(alice, path, 200);
    assert_int_equal(json_array_size(json_object_get(res.json, "vulnerabilities")), 0);
    char ct[128];
    assert_non_null(strstr(imx_t_header(&res, "Content-Type", ct, sizeof ct),
                           "application/vnd.cyclonedx+json"));
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/images/%lld/vex?format=spdx", ami_id);
    res = get(alice, path, 400);
    imx_t_res_free(&res);
    res = get(alice, "/v1/images/99999999/vex", 404);
    imx_t_res_free(&res);
}

static const char *const drivers[] = { "535.261.03", "535.274.02", "550.163.01", "570.172.08",
                                       "580.82.07",  "580.95.05",  "580.105.08" };
static const char *const toolkits[] = { "1.16.1", "1.16.2", "1.17.4", "1.17.8" };
static const char *const cudas[] = { "12.4.1", "12.8.0", "13.0.2" };

static void build_random_catalog(void)
{
    for (int f = 0; f < FAMILIES; f++) {
        char family[32];
        snprintf(family, sizeof family, "vex-f%d", f);
        /* 2 to PER_FAMILY images: a family's newest fixes what its older ones have, or not. */
        int versions = 2 + (int)(next_rand() % (PER_FAMILY - 1));
        for (int v = 0; v < versions; v++) {
            char version[16], comps[512];
            snprintf(version, sizeof version, "%d", v + 1);
            snprintf(comps, sizeof comps,
                     "[{\"name\":\"nvidia-driver\",\"version\":\"%s\"},"
                     "{\"name\":\"nvidia-container-toolkit\",\"version\":\"%s\"},"
                     "{\"name\":\"cuda\",\"version\":\"%s\"}]",
                     drivers[next_rand() % 7], toolkits[next_rand() % 4], cudas[next_rand() % 3]);
            ids[n_ids++] = imx_t_publish(&srv, alice, "team-a", family, version, comps, NULL);
            assert_true(ids[n_ids - 1] > 0);
        }
    }
    size_t random_images = n_ids;
    ids[n_ids++] = ami_id;
    ids[n_ids++] = container_id;
    /* One revoked image: it fixes nothing any more. */
    revoked_id = ids[next_rand() % random_images];
    assert_int_equal(
        imx_t_image_patch(&srv, alice, revoked_id, "{\"status\":\"revoked\",\"reason\":\"test\"}"),
        200);
    static const char *const ranges[][3] = {
        { "nvidia-driver", ">=580,<580.95.05", "580.95.05" },
        { "nvidia-driver", ">=535,<535.274.02", "535.274.02" },
        { "nvidia-driver", "<570.172.08", "570.172.08" },
        { "nvidia-container-toolkit", "<=1.16.1", "1.16.2" },
        { "nvidia-container-toolkit", ">=1.17,<1.17.8", "1.17.8" },
        { "cuda", ">=12.4,<12.8", NULL },
        /* no image has it: component_not_present everywhere */
        { "nccl", "<2.27.7", "2.27.7" },
    };
    for (int a = 0; a < N_ADVISORIES; a++) {
        char body[1024];
        const char *const *r = ranges[a];
        snprintf(body, sizeof body,
                 "{\"id\":\"VEX-%d\",\"title\":\"Bulletin %d\",\"published\":\"2025-0%d-01\","
                 "\"severity\":\"high\",\"cves\":%s,\"affected\":[{\"component\":\"%s\","
                 "\"range\":\"%s\"%s%s%s}]}",
                 a, a, a + 1,
                 a == 2   ? "[]"
                 : a == 3 ? "[\"CVE-2024-0132\",\"CVE-2024-0133\"]"
                          : "[\"CVE-2025-1000\"]",
                 r[0], r[1], r[2] ? ",\"fixed\":\"" : "", r[2] ? r[2] : "", r[2] ? "\"" : "");
        /* distinct CVEs per advisory but for the shared one */
        if (a != 2 && a != 3) {
            char *c = strstr(body, "CVE-2025-1000");
            c[12] = (char)('0' + a);
        }
        post(admin, "/v1/advisories", body, 201);
    }
}

/* The statuses an OpenVEX document gives each advisory (by its alias or name). */
static const char *status_of(json_t *doc, const char *advisory, const char **action,
                             const char **justification)
{
    size_t i;
    json_t *st;
    json_array_foreach(json_object_get(doc, "statements"), i, st)
    {
        json_t *v = json_object_get(st, "vulnerability");
        const char *name = json_string_value(json_object_get(v, "name"));
        const char *alias = json_string_value(json_array_get(json_object_get(v, "aliases"), 0));
        if (strcmp(name, advisory) == 0 || (alias && strcmp(alias, advisory) == 0)) {
            *action = json_string_value(json_object_get(st, "action_statement"));
            *justification = json_string_value(json_object_get(st, "justification"));
            return json_string_value(json_object_get(st, "status"));
        }
    }
    return NULL;
}

static void write_file(const char *dir, const char *name, const char *body)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(body, f);
    fclose(f);
}

static void statements_match_patch_status_for_every_image(void **state)
{
    (void)state;
    build_random_catalog();
    const char *dir = imx_t_tmpdir("vex_docs");
    assert_non_null(dir);
    size_t affected = 0, fixed = 0, code_absent = 0, comp_absent = 0;
    for (size_t k = 0; k < n_ids; k++) {
        char path[96], name[64];
        snprintf(path, sizeof path, "/v1/images/%lld/patch", ids[k]);
        struct imx_res patch = get(alice, path, 200);
        snprintf(path, sizeof path, "/v1/images/%lld/vex", ids[k]);
        struct imx_res vex = get(alice, path, 200);
        snprintf(path, sizeof path, "/v1/images/%lld/vex?format=cyclonedx", ids[k]);
        struct imx_res cdx = get(alice, path, 200);
        snprintf(name, sizeof name, "%lld.openvex.json", ids[k]);
        write_file(dir, name, vex.body);
        snprintf(name, sizeof name, "%lld.cdx.json", ids[k]);
        write_file(dir, name, cdx.body);

        /* affected exactly for the patch status's advisories, with its fix as the action */
        json_t *listed = json_object_get(patch.json, "advisories");
        for (int a = 0; a < N_ADVISORIES; a++) {
            char adv[16];
            snprintf(adv, sizeof adv, "VEX-%d", a);
            const json_t *entry = NULL;
            size_t i;
            json_t *e;
            json_array_foreach(listed, i, e) if (strcmp(json_string_value(json_object_get(e, "id")),
                                                        adv) == 0) entry = e;
            const char *action = NULL, *just = NULL;
            const char *status = status_of(vex.json, adv, &action, &just);
            if (!status)
                fail_msg("image %lld: no statement about %s: %s", ids[k], adv, vex.body);
            if (entry) {
                if (strcmp(status, "affected") != 0)
                    fail_msg("image %lld: %s is %s, the patch status lists it", ids[k], adv,
                             status);
                const json_t *fx = json_object_get(entry, "fixed_by");
                char want[64];
                snprintf(want, sizeof want, "Move to image %lld ",
                         (long long)json_integer_value(json_object_get(fx, "id")));
                assert_non_null(action);
                if (json_is_object(fx) != (strstr(action, want) != NULL))
                    fail_msg("image %lld, %s: action '%s' against fixed_by %s", ids[k], adv, action,
                             json_dumps(fx, JSON_ENCODE_ANY));
                affected++;
            } else {
                if (strcmp(status, "affected") == 0)
                    fail_msg("image %lld: %s affected, the patch status does not list it", ids[k],
                             adv);
                if (a == 6)
                    assert_string_equal(just, "component_not_present");
                if (strcmp(status, "fixed") == 0)
                    fixed++;
                else if (just && strcmp(just, "vulnerable_code_not_present") == 0)
                    code_absent++;
                else if (just && strcmp(just, "component_not_present") == 0)
                    comp_absent++;
                else
                    fail_msg("image %lld, %s: status %s without a justification", ids[k], adv,
                             status);
            }
        }
        /* CycloneDX: exploitable exactly for the listed advisories (one per CVE or id) */
        size_t exploitable = 0, want = 0, i;
        json_t *v, *e;
        json_array_foreach(
            json_object_get(cdx.json, "vulnerabilities"), i,
            v) if (strcmp(json_string_value(json_object_get(json_object_get(v, "analysis"),
                                                            "state")),
                          "exploitable") == 0) exploitable++;
        json_array_foreach(listed, i, e)
        {
            size_t n = json_array_size(json_object_get(e, "cves"));
            want += n ? n : 1;
        }
        assert_int_equal(exploitable, want);
        imx_t_res_free(&patch);
        imx_t_res_free(&vex);
        imx_t_res_free(&cdx);
    }
    fprintf(stderr,
            "vex: seed %u: %zu images, %zu affected, %zu fixed, %zu vulnerable code absent, %zu "
            "component absent\n",
            seed, n_ids, affected, fixed, code_absent, comp_absent);
    assert_true(affected > 0 && fixed > 0 && code_absent > 0 && comp_absent > 0);

    /* Every document validates. */
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "node %s/tests/integration/vex_validate.js %s",
             getenv("IMX_TEST_SOURCE_DIR") ? getenv("IMX_TEST_SOURCE_DIR") : ".", dir);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 0);
}

static void products_name_digests_and_amis(void **state)
{
    (void)state;
    char path[96];
    snprintf(path, sizeof path, "/v1/images/%lld/vex", container_id);
    struct imx_res res = get(alice, path, 200);
    json_t *p = json_array_get(
        json_object_get(json_array_get(json_object_get(res.json, "statements"), 0), "products"), 0);
    assert_string_equal(json_string_value(json_object_get(p, "@id")),
                        "pkg:oci/pytorch@sha256%3A0123456789abcdef0123456789abcdef0123456789abcdef"
                        "0123456789abcdef?repository_url=nvcr.io/nvidia/pytorch");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(p, "identifiers"), "purl")),
        json_string_value(json_object_get(p, "@id")));
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/images/%lld/vex", ami_id);
    res = get(alice, path, 200);
    p = json_array_get(
        json_object_get(json_array_get(json_object_get(res.json, "statements"), 0), "products"), 0);
    assert_string_equal(json_string_value(json_object_get(p, "@id")),
                        "arn:aws:ec2:eu-west-1::image/ami-0abc123def4567890");
    imx_t_res_free(&res);
}

static void a_pin_states_its_image_for_its_team(void **state)
{
    (void)state;
    char body[256], path[96];
    /* A revoked image cannot be pinned: the first of the catalog that is not. */
    long long image = ids[0] != revoked_id ? ids[0] : ids[1];
    snprintf(body, sizeof body, "{\"team\":\"team-a\",\"name\":\"prod\",\"image\":%lld}", image);
    struct imx_res res;
    assert_int_equal(imx_t_http_as(&srv, alice, "POST", "/v1/pins", body, &res), 0);
    assert_int_equal(res.status, 201);
    long long pin = json_integer_value(json_object_get(res.json, "id"));
    imx_t_res_free(&res);
    snprintf(path, sizeof path, "/v1/pins/%lld/vex", pin);
    struct imx_res by_pin = get(alice, path, 200);
    snprintf(path, sizeof path, "/v1/images/%lld/vex", image);
    struct imx_res by_image = get(alice, path, 200);
    /* The same image, so the same document to the byte, and the same signature. */
    char sig_pin[2048], sig_image[2048];
    if (by_pin.len != by_image.len || memcmp(by_pin.body, by_image.body, by_pin.len) != 0)
        fail_msg("pin %lld states otherwise than its image %lld:\n%.1500s\n%.1500s", pin, image,
                 by_pin.body, by_image.body);
    assert_string_equal(imx_t_header(&by_pin, "Imaxe-Signature", sig_pin, sizeof sig_pin),
                        imx_t_header(&by_image, "Imaxe-Signature", sig_image, sizeof sig_image));
    imx_t_res_free(&by_pin);
    imx_t_res_free(&by_image);
    /* another team's member does not read it */
    snprintf(path, sizeof path, "/v1/pins/%lld/vex", pin);
    assert_int_equal(imx_t_http_as(&srv, bob, "GET", path, NULL, &res), 0);
    assert_true(res.status == 403 || res.status == 404);
    imx_t_res_free(&res);
    res = get(alice, "/v1/pins/99999999/vex", 404);
    imx_t_res_free(&res);
}

/* Both documents of an image, and the signature of each. */
struct vex_pair {
    struct imx_res doc[2];
    char sig[2][2048];
};

static void get_pair(long long image, struct vex_pair *p)
{
    const char *paths[] = { "/v1/images/%lld/vex", "/v1/images/%lld/vex?format=cyclonedx" };
    for (int f = 0; f < 2; f++) {
        char path[96];
        snprintf(path, sizeof path, paths[f], image);
        p->doc[f] = get(alice, path, 200);
        assert_non_null(imx_t_header(&p->doc[f], "Imaxe-Signature", p->sig[f], sizeof p->sig[f]));
    }
}

static bool same_pair(const struct vex_pair *a, const struct vex_pair *b)
{
    for (int f = 0; f < 2; f++)
        if (a->doc[f].len != b->doc[f].len ||
            memcmp(a->doc[f].body, b->doc[f].body, a->doc[f].len) != 0 ||
            strcmp(a->sig[f], b->sig[f]) != 0)
            return false;
    return true;
}

static void free_pair(struct vex_pair *p)
{
    imx_t_res_free(&p->doc[0]);
    imx_t_res_free(&p->doc[1]);
}

/* The OpenVEX statement about an advisory. */
static json_t *statement_about(json_t *doc, const char *advisory)
{
    size_t i;
    json_t *st;
    json_array_foreach(json_object_get(doc, "statements"), i, st)
    {
        json_t *v = json_object_get(st, "vulnerability");
        const char *alias = json_string_value(json_array_get(json_object_get(v, "aliases"), 0));
        if (strcmp(json_string_value(json_object_get(v, "name")), advisory) == 0 ||
            (alias && strcmp(alias, advisory) == 0))
            return st;
    }
    return NULL;
}

/* A document says what the data says, not when it was asked for: while nothing about the image
 * changes (other families may), two requests get the same bytes and signature; when its fix
 * appears, a new document, timestamped by that fix, with a new @id and serialNumber. */
static void the_same_facts_sign_the_same_document(void **state)
{
    (void)state;
    /* Affected by VEX-0 (>=580,<580.95.05), with no fix in its family yet. */
    long long image =
        imx_t_publish(&srv, alice, "team-a", "vex-steady", "1",
                      "[{\"name\":\"nvidia-driver\",\"version\":\"580.82.07\"}]", NULL);
    assert_true(image > 0);
    struct vex_pair first, again, fixed, fixed_again;
    get_pair(image, &first);
    assert_true(imx_t_publish(&srv, alice, "team-a", "vex-elsewhere", "1",
                              "[{\"name\":\"nvidia-driver\",\"version\":\"580.82.07\"}]",
                              NULL) > 0);
    get_pair(image, &again);
    if (!same_pair(&first, &again))
        fail_msg("nothing changed for image %lld, yet:\n%.2000s\n%.2000s", image, first.doc[0].body,
                 again.doc[0].body);
    json_t *before = statement_about(first.doc[0].json, "VEX-0");
    assert_non_null(before);
    assert_string_equal(json_string_value(json_object_get(before, "status")), "affected");
    assert_null(strstr(json_string_value(json_object_get(before, "action_statement")), "Move to"));

    /* The fix: version 2 of the family is past the range. */
    long long fix = imx_t_publish(&srv, alice, "team-a", "vex-steady", "2",
                                  "[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"}]", NULL);
    assert_true(fix > 0);
    get_pair(image, &fixed);
    for (int f = 0; f < 2; f++) {
        assert_true(fixed.doc[f].len != first.doc[f].len ||
                    memcmp(fixed.doc[f].body, first.doc[f].body, first.doc[f].len) != 0);
        assert_string_not_equal(fixed.sig[f], first.sig[f]);
    }
    json_t *after = statement_about(fixed.doc[0].json, "VEX-0");
    char want[64];
    snprintf(want, sizeof want, "Move to image %lld ", fix);
    assert_non_null(strstr(json_string_value(json_object_get(after, "action_statement")), want));
    /* Timestamped by the change: the fix's publication, later than the first document. */
    const char *t0 = json_string_value(json_object_get(first.doc[0].json, "timestamp"));
    const char *t1 = json_string_value(json_object_get(fixed.doc[0].json, "timestamp"));
    assert_string_equal(t1,
                        json_string_value(json_object_get(after, "action_statement_timestamp")));
    assert_true(strcmp(t1, t0) > 0);
    assert_true(
        strcmp(json_string_value(json_object_get(before, "action_statement_timestamp")), t0) <= 0);
    assert_string_not_equal(json_string_value(json_object_get(fixed.doc[0].json, "@id")),
                            json_string_value(json_object_get(first.doc[0].json, "@id")));
    const char *serial = json_string_value(json_object_get(fixed.doc[1].json, "serialNumber"));
    assert_string_not_equal(serial,
                            json_string_value(json_object_get(first.doc[1].json, "serialNumber")));
    assert_int_equal(strlen(serial), 45);
    assert_int_equal(serial[23], '5'); /* a version 5 (name-based) UUID */
    /* And steady again. */
    get_pair(image, &fixed_again);
    assert_true(same_pair(&fixed, &fixed_again));
    free_pair(&first);
    free_pair(&again);
    free_pair(&fixed);
    free_pair(&fixed_again);
}

/* base64url (no padding) of s[0..n) into out; returns the length, or -1. */
static long b64url(const char *s, size_t n, unsigned char *out, size_t cap)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned long acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = memchr(a, s[i], 64);
        if (!p || !s[i])
            return -1;
        acc = (acc << 6) | (unsigned long)(p - a);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o >= cap)
                return -1;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    return (long)o;
}

static char *b64url_enc(const unsigned char *in, size_t n)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char *out = malloc(n * 4 / 3 + 4);
    size_t o = 0;
    unsigned long acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        acc = (acc << 8) | in[i];
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out[o++] = a[(acc >> bits) & 63];
        }
    }
    if (bits > 0)
        out[o++] = a[(acc << (6 - bits)) & 63];
    out[o] = '\0';
    return out;
}

/* Does the detached JWS sig verify over body with the Ed25519 public key x (base64url)? */
static bool jws_verifies(const char *sig, const char *body, size_t n, const char *x)
{
    const char *dots = strstr(sig, "..");
    if (!dots)
        return false;
    char *payload = b64url_enc((const unsigned char *)body, n);
    size_t hlen = (size_t)(dots - sig);
    size_t inlen = hlen + 1 + strlen(payload);
    char *input = malloc(inlen + 1);
    memcpy(input, sig, hlen);
    input[hlen] = '.';
    memcpy(input + hlen + 1, payload, strlen(payload) + 1);
    unsigned char raw[64], pub[32];
    long slen = b64url(dots + 2, strlen(dots + 2), raw, sizeof raw);
    long plen = b64url(x, strlen(x), pub, sizeof pub);
    bool ok = false;
    if (slen == 64 && plen == 32) {
        EVP_PKEY *k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, 32);
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        ok = k && md && EVP_DigestVerifyInit(md, NULL, NULL, NULL, k) == 1 &&
             EVP_DigestVerify(md, raw, 64, (const unsigned char *)input, inlen) == 1;
        EVP_MD_CTX_free(md);
        EVP_PKEY_free(k);
    }
    free(input);
    free(payload);
    return ok;
}

/* Every VEX document is signed as sent: the detached JWS in Imaxe-Signature verifies over the
 * body with the key GET /v1/vex/keys publishes (no sign-in needed), its header names that key;
 * one changed byte of the body, or another key, does not verify. */
static void documents_are_signed(void **state)
{
    (void)state;
    struct imx_res keys;
    assert_int_equal(imx_t_http(&srv, "GET", "/v1/vex/keys", NULL, NULL, &keys), 0);
    assert_int_equal(keys.status, 200);
    json_t *k0 = json_array_get(json_object_get(keys.json, "keys"), 0);
    assert_string_equal(json_string_value(json_object_get(k0, "crv")), "Ed25519");
    const char *x = json_string_value(json_object_get(k0, "x"));
    const char *kid = json_string_value(json_object_get(k0, "kid"));
    assert_non_null(x);
    assert_non_null(kid);
    const char *paths[] = { "/v1/images/%lld/vex", "/v1/images/%lld/vex?format=cyclonedx" };
    for (size_t i = 0; i < 2; i++) {
        char path[96], sig[2048];
        snprintf(path, sizeof path, paths[i], ids[0]);
        struct imx_res res = get(alice, path, 200);
        assert_non_null(imx_t_header(&res, "Imaxe-Signature", sig, sizeof sig));
        assert_true(jws_verifies(sig, res.body, res.len, x));
        /* the protected header: EdDSA, this key */
        unsigned char hdr[512];
        long hl = b64url(sig, (size_t)(strstr(sig, "..") - sig), hdr, sizeof hdr - 1);
        assert_true(hl > 0);
        hdr[hl] = '\0';
        json_t *h = json_loads((const char *)hdr, 0, NULL);
        assert_string_equal(json_string_value(json_object_get(h, "alg")), "EdDSA");
        assert_string_equal(json_string_value(json_object_get(h, "kid")), kid);
        json_decref(h);
        /* a changed byte, or another key, fails */
        res.body[res.len / 2] ^= 1;
        assert_false(jws_verifies(sig, res.body, res.len, x));
        res.body[res.len / 2] ^= 1;
        assert_false(
            jws_verifies(sig, res.body, res.len, "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"));
        imx_t_res_free(&res);
    }
    imx_t_res_free(&keys);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(before_any_advisory_openvex_has_nothing_to_state),
        cmocka_unit_test(statements_match_patch_status_for_every_image),
        cmocka_unit_test(products_name_digests_and_amis),
        cmocka_unit_test(a_pin_states_its_image_for_its_team),
        cmocka_unit_test(the_same_facts_sign_the_same_document),
        cmocka_unit_test(documents_are_signed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
