/* GET /v1/images/resolve: the newest matching image, by family or through a pin. */
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
#include "api/images_internal.h"

/* ---- GET /v1/images/resolve ---- */

#define PIN_ARG_MAX 200 /* TEAM/NAME: a team slug and a pin name */

/* Replies 200 {"pin":PIN,"image":IMAGE,"artifact_id":ARTIFACT} (without pin when NULL): image is
 * PostgreSQL's JSON text of an object (printed here as jansson prints it), pin and artifact JSON
 * text already printed so. */
static void reply_resolved(struct imx_req *r, const struct imx_jspan *pin, struct imx_jspan image,
                           struct imx_jspan artifact)
{
    struct imx_jbuf b = { 0 };
    if (pin) {
        imx_jbuf_puts(&b, "{\"pin\":");
        imx_jbuf_put(&b, pin->p, pin->n);
        imx_jbuf_puts(&b, ",\"image\":");
    } else {
        imx_jbuf_puts(&b, "{\"image\":");
    }
    size_t at = b.len;
    bool ok = imx_json_put_norm(&b, image.p, image.n) && b.p[at] == '{';
    imx_jbuf_puts(&b, ",\"artifact_id\":");
    imx_jbuf_put(&b, artifact.p, artifact.n);
    if (!ok || !imx_jbuf_put(&b, "}", 1)) {
        imx_jbuf_free(&b);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_reply_raw_steal(r, 200, "application/json", b.p, b.len, NULL, NULL);
}

/* Replies from the pin resolve's document {pin, image, artifact_id, emptied_by} (PostgreSQL's
 * text, len bytes), copied as text; team and name are pin's parts. */
static void reply_pin_resolution(struct imx_req *r, const char *text, size_t len, const char *pin,
                                 const char *team, const char *name, const char *region)
{
    struct imx_jbuf doc = { 0 };
    struct imx_jspan d = { 0 }, p, image, artifact, by = { "null", 4 };
    if (imx_json_put_norm(&doc, text, len))
        d = (struct imx_jspan){ doc.p, doc.len };
    imx_json_member(d, "emptied_by", &by);
    if (imx_json_member(d, "image", &image) && image.p[0] == '{') {
        if (imx_json_member(d, "pin", &p) && imx_json_member(d, "artifact_id", &artifact))
            reply_resolved(r, &p, image, artifact);
        else
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    } else if (by.p[0] != '"') {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    } else if (by.n == 5 && memcmp(by.p, "\"pin\"", 5) == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "pin: team %s has no pin %s", team, name);
    } else if (by.n == 8 && memcmp(by.p, "\"status\"", 8) == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "status: the image pin %s points at is revoked", pin);
    } else {
        imx_reply_problem(r, IMX_E_NOT_FOUND,
                          "region: the image pin %s points at has no artifact in %s", pin, region);
    }
    imx_jbuf_free(&doc);
}

struct resolve_args {
    const char *team, *name, *region;
};

static enum imx_db_status read_resolution(struct imx_db_conn *c, const char *user_id, void *cls,
                                          struct imx_db_team_read *out, struct imx_db_fault *why)
{
    const struct resolve_args *a = cls;
    return imx_db_pin_resolve_by_slug(c, a->team, user_id, a->name, a->region, out, why);
}

/* The one read of a pin resolve on a server with the principal cache: the team, the caller's
 * role in it, the auth epoch and the resolve, read by a statement shared with the other pin
 * resolves waiting (db/read_batch.c), entered on the event thread (resolve_pin_fast) or, when the
 * request came to a worker, by resolve_pin_batched. Its row p is answered here, checked as
 * imx_auth_team_with checks its own statement's. Returns 1 when answered, 0 when the principal
 * was checked again in full (the row was read for the principal as it was: read it again). */
static int answer_pin(struct imx_req *r, struct imx_db_pin_resolved *p, const char *pin,
                      const char *team, const char *name, const char *region)
{
    int confirmed = imx_auth_confirm(r, p->epoch);
    if (confirmed == 1 && imx_auth_team_read(r, team, p->team_id, p->role, IMX_ROLE_VIEWER)) {
        if (p->doc)
            reply_pin_resolution(r, p->doc, p->doc_len, pin, team, name, region);
        else
            imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    }
    imx_db_pin_resolved_free(p);
    return confirmed != 0;
}

/* The same read from a worker: waits for the shared statement. */
static void resolve_pin_batched(struct imx_req *r, const char *pin, const char *team,
                                const char *name, const char *region)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        /* Waiting for the batch holds no connection (one held by each waiter could leave the
         * reader none); a principal checked in full took one. */
        imx_api_db_put(r);
        char uid[24];
        snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
        struct imx_db_pin_resolved p;
        enum imx_db_status rc = imx_db_pin_resolve_batched(team, uid, name, region, &p);
        if (rc != IMX_DBS_OK) {
            imx_api_reply_db_status(r, rc);
            return;
        }
        if (answer_pin(r, &p, pin, team, name, region))
            return;
    }
    imx_reply_problem(r, IMX_E_INTERNAL, NULL); /* a principal checked in full confirms at once */
}

/* Text PostgreSQL would refuse (not UTF-8) cannot join a shared statement: it would fail the
 * others. */
static bool shareable(const char *pin, const char *region)
{
    return imx_utf8_valid((const unsigned char *)pin, strlen(pin)) &&
           imx_utf8_valid((const unsigned char *)region, strlen(region));
}

/* GET /v1/images/resolve?pin=TEAM/NAME&region=R: the pinned image's artifact, for callers who may
 * read TEAM (404 for everyone else, as for any team-owned object); never a revoked image. Two
 * paths: the shared read above (answer_pin), and the reference, which builds everything from
 * scratch in one statement of the request's own (IMAXE_READ_CACHE=0, the tests' reference
 * server; and text that cannot be shared). test_point_reads holds the first to the second, byte
 * for byte. With a read replica the resolve reads the primary as every other point read does: its
 * team check must (a lagging replica's auth epoch could let a token just revoked through). */
static void resolve_pin(struct imx_req *r, const char *pin, const char *region)
{
    char team[PIN_ARG_MAX + 1];
    const char *slash = strchr(pin, '/');
    size_t tl = slash ? (size_t)(slash - pin) : 0;
    if (!slash || tl == 0 || tl > PIN_ARG_MAX || !slash[1] || strlen(slash + 1) > 63 ||
        strchr(slash + 1, '/')) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "pin must be TEAM/NAME, such as ml/prod-training");
        return;
    }
    memcpy(team, pin, tl);
    team[tl] = '\0';
    if (imx_auth_settings.read_cache && shareable(pin, region)) {
        resolve_pin_batched(r, pin, team, slash + 1, region);
        return;
    }
    /* The reference: the team, the caller's role in it, the auth epoch and the resolve in one
     * statement. */
    struct resolve_args a = { team, slash + 1, region };
    struct imx_db_team_read t;
    if (!imx_auth_team_with(r, team, IMX_ROLE_VIEWER, read_resolution, &a, &t))
        return;
    size_t len = 0;
    const char *doc = imx_db_pin_resolution(&t, &len);
    if (doc)
        reply_pin_resolution(r, doc, len, pin, team, slash + 1, region);
    else
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    imx_db_team_read_free(&t);
}

/* Answers with the image found (its summary) and its artifact id. */
static void reply_resolved_family(struct imx_req *r, const char *summary, const char *artifact)
{
    struct imx_jspan image = { summary, strlen(summary) };
    struct imx_jbuf art = { 0 };
    if (artifact && imx_json_put_string(&art, artifact))
        reply_resolved(r, NULL, image, (struct imx_jspan){ art.p, art.len });
    else
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    imx_jbuf_free(&art);
}

/* The 404 of a resolve that found nothing: by names the first filter that left nothing (the SQL
 * resolve's emptied_by), with the constraint's name and text when it was one. */
static void reply_emptied(struct imx_req *r, const struct imx_image_resolve *q, const char *by,
                          const char *cons_name, const char *cons_text)
{
    if (!by) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
    } else if (strcmp(by, "family") == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "family: no image of family %s", q->family);
    } else if (strcmp(by, "status") == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND,
                          "status: family %s has no active image that is not revoked", q->family);
    } else if (strcmp(by, "region") == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "region: no active image of %s has an artifact in %s",
                          q->family, q->region);
    } else if (strcmp(by, "arch") == 0) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "arch: no active image of %s in %s is %s", q->family,
                          q->region, q->arch);
    } else {
        imx_reply_problem(r, IMX_E_NOT_FOUND,
                          "component=%s:%s: no active image of %s in %s satisfies it", cons_name,
                          cons_text, q->family, q->region);
    }
}

/* Answers with what the index's read found (found, or the filter that emptied the set). */
static void reply_indexed(struct imx_req *r, const struct imx_image_resolve *q,
                          const struct imx_db_resolved *d)
{
    if (d->summary) {
        reply_resolved_family(r, d->summary, d->artifact_id);
    } else {
        bool cons = d->emptied_by && strcmp(d->emptied_by, "constraint") == 0 &&
                    d->constraint < q->n_constraints;
        reply_emptied(r, q, d->emptied_by, cons ? q->constraints[d->constraint].name : NULL,
                      cons ? q->constraints[d->constraint].constraint.text : NULL);
    }
}

void imx_api_image_resolve(struct imx_req *r)
{
    const char *pin = imx_req_query(r, "pin");
    if (pin) {
        const char *region = imx_req_query(r, "region");
        if (imx_req_query(r, "family") || imx_req_query(r, "arch") ||
            imx_req_query(r, "component")) {
            imx_reply_problem(r, IMX_E_BAD_REQUEST,
                              "pin resolves on its own: send pin and region only");
        } else if (!*pin || !region || !*region) {
            imx_reply_problem(r, IMX_E_BAD_REQUEST, "pin and region are required");
        } else {
            resolve_pin(r, pin, region);
        }
        return;
    }
    struct imx_image_resolve q = {
        .family = imx_req_query(r, "family"),
        .region = imx_req_query(r, "region"),
        .arch = imx_req_query(r, "arch"),
    };
    if (!q.family || !*q.family || !q.region || !*q.region) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST, "family (or pin) and region are required");
        return;
    }
    if (!imx_img_enum_arg(r, "arch", imx_img_archs, "x86_64 or arm64"))
        return;
    struct imx_img_constraint_args *ca = malloc(sizeof *ca);
    if (!ca) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    char *text = NULL;
    json_t *doc = NULL;
    if (imx_img_read_constraints(r, ca) != 0)
        goto done;
    q.constraints = ca->list;
    q.n_constraints = ca->n;
    /* Two paths. The read: the in-memory index finds the image, or the filter that emptied the
     * set, and a statement shared with the other resolves waiting reads the image's summary, its
     * artifact and the epoch in the state the index was made in (waiting holds no connection,
     * and a principal checked in full took one). The reference: the SQL resolve, from scratch
     * in one statement of the request's own (IMAXE_READ_CACHE=0, the tests' reference server;
     * and when the index cannot answer: off, or it could not catch up). test_point_reads holds
     * the first to the second. */
    struct imx_db_resolved d = { 0 };
    imx_api_db_put(r);
    enum imx_db_status rc =
        imx_auth_settings.read_cache ? imx_db_image_resolve_indexed(&q, &d) : IMX_DBS_OK;
    if (rc == IMX_DBS_OK && d.served) {
        int confirmed = imx_auth_confirm(r, d.epoch);
        if (confirmed == 1)
            reply_indexed(r, &q, &d);
        imx_db_resolved_free(&d);
        if (confirmed != 0)
            goto done;
    }
    struct imx_db_conn *c = rc == IMX_DBS_OK ? imx_api_db(r) : NULL;
    if (rc == IMX_DBS_OK && !c)
        goto done;
    if (rc == IMX_DBS_OK && imx_auth_confirm_now(r) < 0)
        goto done;
    if (rc == IMX_DBS_OK)
        rc = imx_db_image_resolve(c, &q, &text, NULL);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        goto done;
    }
    doc = json_loads(text, 0, NULL);
    json_t *image = json_object_get(doc, "image");
    if (json_is_object(image)) {
        imx_reply_json_steal(r, 200,
                             json_pack("{s:O, s:O}", "image", image, "artifact_id",
                                       json_object_get(doc, "artifact_id")));
        goto done;
    }
    json_t *cons = json_object_get(doc, "constraint");
    reply_emptied(r, &q, json_string_value(json_object_get(doc, "emptied_by")),
                  json_string_value(json_object_get(cons, "name")),
                  json_string_value(json_object_get(cons, "constraint")));
done:
    json_decref(doc);
    free(text);
    free(ca);
}

/* The fast handler (struct imx_route, fast) of a resolve by family: the index finds the image on
 * the event thread and its read is queued without waiting. Anything else (a pin, an argument to
 * refuse, what the index cannot answer, a principal to check again) goes to imx_api_image_resolve
 * on a worker. */
static enum imx_fast resolve_fast_read(struct imx_req *r)
{
    struct imx_db_resolved d;
    enum imx_db_status rc = imx_db_image_resolve_result(r->fast_state, &d);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    enum imx_fast f = IMX_FAST_OFFLOAD;
    if (d.served && r->principal.epoch == d.epoch) {
        struct imx_image_resolve q = {
            .family = imx_req_query(r, "family"),
            .region = imx_req_query(r, "region"),
            .arch = imx_req_query(r, "arch"),
        };
        struct imx_img_constraint_args *ca = d.summary ? NULL : malloc(sizeof *ca);
        if (d.summary || (ca && imx_img_read_constraints(r, ca) == 0)) {
            if (ca) {
                q.constraints = ca->list;
                q.n_constraints = ca->n;
            }
            imx_auth_confirm(r, d.epoch);
            reply_indexed(r, &q, &d);
            f = IMX_FAST_DONE;
        }
        free(ca);
    }
    imx_db_resolved_free(&d);
    return f;
}

/* A resolve by pin on the event thread: the statement imx_db_pin_resolve_batched reads, queued
 * without waiting. */
struct resolve_pin_fast {
    struct imx_db_texts_call *call;
    char team[PIN_ARG_MAX + 1];
};

static void resolve_pin_fast_free(void *p)
{
    struct resolve_pin_fast *f = p;
    imx_db_pin_call_free(f->call);
    free(f);
}

static enum imx_fast resolve_pin_fast_read(struct imx_req *r)
{
    struct resolve_pin_fast *f = r->fast_state;
    struct imx_db_pin_resolved p;
    enum imx_db_status rc = imx_db_pin_resolve_result(f->call, &p);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return IMX_FAST_DONE;
    }
    /* An older epoch needs the full check, which blocks: a worker does it (and reads again). */
    if (r->principal.epoch != p.epoch) {
        imx_db_pin_resolved_free(&p);
        return IMX_FAST_OFFLOAD;
    }
    const char *pin = imx_req_query(r, "pin");
    answer_pin(r, &p, pin, f->team, strchr(pin, '/') + 1, imx_req_query(r, "region"));
    return IMX_FAST_DONE;
}

static enum imx_fast resolve_pin_fast(struct imx_req *r, const char *pin)
{
    const char *region = imx_req_query(r, "region");
    const char *slash = strchr(pin, '/');
    size_t tl = slash ? (size_t)(slash - pin) : 0;
    /* What resolve_pin would refuse, or read otherwise, it answers itself. */
    if (imx_req_query(r, "family") || imx_req_query(r, "arch") || imx_req_query(r, "component") ||
        !region || !*region || !slash || tl == 0 || tl > PIN_ARG_MAX || !slash[1] ||
        strlen(slash + 1) > 63 || strchr(slash + 1, '/') || !shareable(pin, region))
        return IMX_FAST_OFFLOAD;
    struct resolve_pin_fast *f = calloc(1, sizeof *f);
    if (!f)
        return IMX_FAST_OFFLOAD;
    memcpy(f->team, pin, tl);
    r->fast_state = f;
    r->fast_free = resolve_pin_fast_free;
    r->resume = resolve_pin_fast_read;
    char uid[24];
    snprintf(uid, sizeof uid, "%lld", (long long)r->principal.user_id);
    f->call = imx_db_pin_resolve_start(f->team, uid, slash + 1, region, imx_api_wake, r);
    return f->call ? IMX_FAST_PARKED : IMX_FAST_OFFLOAD;
}

enum imx_fast imx_api_image_resolve_fast(struct imx_req *r)
{
    struct imx_image_resolve q = {
        .family = imx_req_query(r, "family"),
        .region = imx_req_query(r, "region"),
        .arch = imx_req_query(r, "arch"),
    };
    if (!imx_auth_settings.read_cache || !r->principal.cached)
        return IMX_FAST_OFFLOAD;
    const char *pin = imx_req_query(r, "pin");
    if (pin)
        return resolve_pin_fast(r, pin);
    if (!q.family || !*q.family || !q.region || !*q.region ||
        (q.arch && !imx_img_one_of(q.arch, imx_img_archs)))
        return IMX_FAST_OFFLOAD;
    struct imx_img_constraint_args *ca = malloc(sizeof *ca);
    if (!ca)
        return IMX_FAST_OFFLOAD;
    enum imx_fast f = IMX_FAST_DONE;
    if (imx_img_read_constraints(r, ca) == 0) {
        q.constraints = ca->list;
        q.n_constraints = ca->n;
        struct imx_db_resolve_call *c = imx_db_image_resolve_start(&q, imx_api_wake, r);
        if (c) {
            r->fast_state = c;
            r->fast_free = imx_db_resolve_call_free;
            r->resume = resolve_fast_read;
        }
        f = c ? IMX_FAST_PARKED : IMX_FAST_OFFLOAD;
    }
    free(ca);
    return f;
}
