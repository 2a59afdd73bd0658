/* The exploitation feeds: GET /v1/risk-feeds (the snapshots in use, for everyone signed in) and,
 * for global admins, audited, POST /v1/risk-feeds/kev (CISA's KEV catalog as published) and
 * POST /v1/risk-feeds/epss (FIRST's daily CSV). An import is one transaction; a feed older than
 * the one stored is refused with 409 and changes nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "auth/auth.h"
#include "db/risk_feeds.h"
#include "api/tx.h"
#include "domain/risk_feeds.h"

void imx_api_risk_feeds(struct imx_req *r)
{
    struct imx_db_conn *c = imx_api_db_read(r);
    if (!c)
        return;
    char *out;
    enum imx_db_status rc = imx_db_risk_feeds(c, &out, NULL);
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return;
    }
    imx_reply_raw_steal(r, 200, "application/json", out, strlen(out), NULL, NULL);
}

/* One import, as its transaction needs it. */
struct feed_import {
    const char *feed; /* "kev" | "epss", the audit's resource id */
    char *doc;        /* kev: imx_kev_read's document as text */
    struct imx_epss epss;
    char user_id[24];
};

/* Replies with the outcome (200; 409 when stale, 422 when the database refused a value), after
 * recording the audit entry of an import that changed something. Steals out. */
static int reply_outcome(struct imx_req *r, struct feed_import *in, char *out)
{
    json_t *doc = json_loads(out, 0, NULL);
    const char *outcome = json_string_value(json_object_get(doc, "outcome"));
    if (!outcome) {
        json_decref(doc);
        free(out);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return -1;
    }
    int rc = 0;
    if (strcmp(outcome, "stale") == 0) {
        imx_reply_problem(
            r, IMX_E_CONFLICT,
            strcmp(in->feed, "kev") == 0 ? "The stored KEV catalog (%s) was released after this one"
                                         : "The stored EPSS scores (%s) are dated after these",
            json_string_value(json_object_get(doc, strcmp(in->feed, "kev") == 0 ? "catalog_version"
                                                                                : "score_date")));
        rc = -1;
    } else if (strcmp(outcome, "invalid") == 0) {
        json_t *errors = json_array();
        imx_verr(errors, strcmp(in->feed, "kev") == 0 ? "/vulnerabilities" : "", "%s",
                 json_string_value(json_object_get(doc, "detail")));
        imx_reply_invalid_steal(r, errors,
                                strcmp(in->feed, "kev") == 0
                                    ? "The KEV catalog cannot be imported"
                                    : "The EPSS scores cannot be imported");
        rc = -1;
    } else if (strcmp(outcome, "imported") == 0 &&
               imx_audit(r, "import", "risk_feed", in->feed, doc) != 0) {
        rc = -1;
    }
    json_decref(doc);
    if (rc == 0)
        imx_reply_raw_steal(r, 200, "application/json", out, strlen(out), NULL, NULL);
    else
        free(out);
    return rc;
}

static int import_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct feed_import *in = cls;
    char *out = NULL;
    enum imx_db_status rc =
        in->doc ? imx_db_kev_import(imx_api_conn(r), in->doc, in->user_id, &out, &why)
                : imx_db_epss_import(imx_api_conn(r), in->epss.model_version, in->epss.score_date,
                                     in->epss.cves, in->epss.scores, in->epss.percentiles,
                                     in->user_id, &out, &why);
    if (rc == IMX_DBS_RETRY) {
        return imx_api_tx_fail(r, IMX_DBS_RETRY, &why);
    }
    if (rc == IMX_DBS_INVALID) {
        /* What C did not check: a calendar date such as 2024-02-30. */
        json_t *errors = json_array();
        imx_verr(errors, "", "holds a date that is not in the calendar");
        imx_reply_invalid_steal(r, errors, "The feed cannot be imported");
        return -1;
    }
    if (rc != IMX_DBS_OK) {
        imx_api_reply_db_status(r, rc);
        return -1;
    }
    return reply_outcome(r, in, out);
}

/* POST /v1/risk-feeds/kev: the body is CISA's known_exploited_vulnerabilities.json. */
void imx_api_risk_feed_kev(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    char ptr[128], msg[256];
    json_t *doc = imx_kev_read(body, ptr, sizeof ptr, msg, sizeof msg);
    if (!doc) {
        json_t *errors = json_array();
        imx_verr(errors, ptr, "%s", msg);
        imx_reply_invalid_steal(r, errors, "The KEV catalog cannot be imported");
        return;
    }
    struct feed_import in = { .feed = "kev", .doc = json_dumps(doc, JSON_COMPACT) };
    json_decref(doc);
    if (!in.doc) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    snprintf(in.user_id, sizeof in.user_id, "%lld", (long long)r->principal.user_id);
    imx_api_tx(r, import_tx, &in);
    free(in.doc);
}

/* POST /v1/risk-feeds/epss: the body is FIRST's CSV (text/csv), decompressed. */
void imx_api_risk_feed_epss(struct imx_req *r)
{
    const char *ct = imx_req_header(r, "Content-Type");
    if (!ct || strncasecmp(ct, "text/csv", 8) != 0 || (ct[8] && ct[8] != ';' && ct[8] != ' ')) {
        imx_reply_problem(r, IMX_E_UNSUPPORTED_MEDIA_TYPE,
                          "Send FIRST's EPSS CSV as Content-Type: text/csv (decompressed)");
        return;
    }
    struct feed_import in = { .feed = "epss" };
    char err[256];
    if (imx_epss_read(r->body ? r->body : "", r->body_len, &in.epss, err, sizeof err) != 0) {
        json_t *errors = json_array();
        imx_verr(errors, "", "%s", err);
        imx_reply_invalid_steal(r, errors, "The EPSS scores cannot be imported");
        return;
    }
    snprintf(in.user_id, sizeof in.user_id, "%lld", (long long)r->principal.user_id);
    imx_api_tx(r, import_tx, &in);
    imx_epss_free(&in.epss);
}
