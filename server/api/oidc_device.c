/* `imaxe login --sso`: the OAuth 2.0 device authorization grant (RFC 8628) against the configured
 * OpenID provider, with imaxe in the middle. POST /v1/auth/oidc/device asks the provider for a
 * device code as imaxe's own client and answers the CLI with the user code, where to enter it,
 * and a handle (imxd_...) of its own; POST /v1/auth/oidc/device/token, polled by the CLI, asks the
 * provider's token endpoint with the device code no more often than the interval (a poll that
 * comes early is answered slow_down and lengthens it, as is the provider's own slow_down), and
 * once the person has signed in validates the ID token as the browser sign-in does (JWKS, iss,
 * aud, exp; the group map), provisions the user and answers with the CLI's usual access and
 * refresh tokens.
 *
 * Why the server polls and not the CLI: the client secret, the device code and the ID token stay
 * between imaxe and the provider (a CLI holding them could be copied, and a server that accepted
 * ID tokens posted by anyone would take one minted for another client or replayed); the CLI needs
 * no provider settings, only imaxe's URL; and the sign-in lands as the browser's does, in one
 * place. The cost is one provider request per poll on the server, bounded by the interval. */
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/signin.h"
#include "auth/oidc.h"
#include "auth/session.h"
#include "auth/token.h"
#include "db/oidc.h"
#include "util/log.h"

#define DEVICE_PREFIX "imxd_"
#define DEVICE_MAX    1000 /* device sign-ins under way at once */

static const struct imx_api_field token_fields[] = {
    { "device_id", JSON_STRING, true },
    { NULL, JSON_NULL, false },
};

static bool refuse_off(struct imx_req *r)
{
    if (imx_oidc_enabled())
        return false;
    imx_reply_problem(r, IMX_E_NOT_FOUND,
                      "Single sign-on is not configured on this server (IMAXE_OIDC_ISSUER): sign "
                      "in with imaxe login --email, or --token");
    return true;
}

void imx_api_oidc_device_start(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    if (refuse_off(r))
        return;
    /* The provider is called without a database connection held. */
    struct imx_oidc_device d;
    bool upstream = false;
    char err[512];
    if (imx_oidc_device_start(&d, &upstream, err, sizeof err) != 0) {
        imx_warn("request %s: oidc device sign-in cannot start: %s", r->request_id, err);
        if (upstream)
            imx_reply_problem(r, IMX_E_NOT_READY,
                              "The identity provider cannot start a device sign-in (%s); try "
                              "again shortly, or sign in with imaxe login --email",
                              err);
        else
            imx_reply_problem(r, IMX_E_UNPROCESSABLE,
                              "The identity provider refused a device sign-in for this server's "
                              "client (%s): its administrator must allow the device code grant",
                              err);
        return;
    }
    char handle[IMX_SESSION_SECRET_MAX + 1], hash[IMX_TOKEN_HASH_LEN + 1];
    if (imx_session_secret_new(DEVICE_PREFIX, handle) != 0) {
        imx_oidc_device_free(&d);
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_token_hash(handle, hash);
    char interval[16], expires[16], max[16];
    snprintf(interval, sizeof interval, "%ld", d.interval);
    snprintf(expires, sizeof expires, "%ld", d.expires_in);
    snprintf(max, sizeof max, "%d", DEVICE_MAX);
    struct imx_db_conn *c = imx_api_db(r);
    if (!c) {
        imx_oidc_device_free(&d);
        return;
    }
    enum imx_db_status st =
        imx_db_oidc_device_put(c, hash, d.device_code, d.nonce, interval, expires, max, &why);
    if (st == IMX_DBS_CONFLICT) {
        imx_reply_problem(r, IMX_E_BUSY,
                          "%d device sign-ins are under way; try again in a few minutes",
                          DEVICE_MAX);
    } else if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, &why);
    } else {
        json_t *reply = json_pack("{s:s, s:s, s:s, s:i, s:i}", "device_id", handle, "user_code",
                                  d.user_code, "verification_uri", d.verification_uri, "expires_in",
                                  (int)d.expires_in, "interval", (int)d.interval);
        if (reply && d.verification_uri_complete)
            json_object_set_new(reply, "verification_uri_complete",
                                json_string(d.verification_uri_complete));
        imx_reply_json_steal(r, 200, reply);
    }
    OPENSSL_cleanse(handle, sizeof handle);
    imx_oidc_device_free(&d);
}

/* 202: not signed in yet; the CLI polls again after interval seconds. */
static void reply_wait(struct imx_req *r, const char *status, int interval)
{
    imx_reply_json_steal(r, 202, json_pack("{s:s, s:i}", "status", status, "interval", interval));
}

/* Ends the device sign-in (its row), whatever else fails. */
static void end(struct imx_req *r, const char *hash)
{
    struct imx_db_conn *c = imx_api_db(r);
    if (c && imx_db_oidc_device_end(c, hash, NULL) != IMX_DBS_OK)
        imx_warn("request %s: a device sign-in could not be ended", r->request_id);
}

void imx_api_oidc_device_token(struct imx_req *r)
{
    struct imx_db_fault why = { 0 };
    if (refuse_off(r))
        return;
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, token_fields, errors);
    const char *handle = json_string_value(json_object_get(body, "device_id"));
    if (handle && (strncmp(handle, DEVICE_PREFIX, strlen(DEVICE_PREFIX)) != 0 ||
                   strlen(handle) > IMX_SESSION_SECRET_MAX))
        imx_verr(errors, "/device_id", "must be the device_id POST /v1/auth/oidc/device gave");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The device sign-in poll has invalid fields");
        return;
    }
    json_decref(errors);
    char hash[IMX_TOKEN_HASH_LEN + 1];
    imx_token_hash(handle, hash);
    struct imx_db_conn *c = imx_api_db(r);
    if (!c)
        return;
    struct imx_db_oidc_device dev;
    enum imx_db_status st = imx_db_oidc_device_poll(c, hash, &dev, &why);
    if (st == IMX_DBS_NOT_FOUND || (st == IMX_DBS_OK && dev.expired)) {
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          "This device sign-in is unknown, finished or expired: run imaxe login "
                          "--sso again");
        return;
    }
    if (st != IMX_DBS_OK) {
        imx_api_reply_db_fault(r, st, &why);
        return;
    }
    if (dev.early) {
        reply_wait(r, "slow_down", dev.interval_s);
        return;
    }
    imx_api_db_put(r);
    struct imx_oidc_identity id;
    char err[512] = "";
    enum imx_oidc_poll res = imx_oidc_device_poll(dev.device_code, dev.nonce, &id, err, sizeof err);
    OPENSSL_cleanse(dev.device_code, sizeof dev.device_code);
    int interval = dev.interval_s;
    switch (res) {
    case IMX_OIDC_POLL_PENDING:
        reply_wait(r, "authorization_pending", interval);
        return;
    case IMX_OIDC_POLL_SLOW_DOWN:
        if (!(c = imx_api_db(r)))
            return;
        st = imx_db_oidc_device_slow(c, hash, &interval, &why);
        if (st != IMX_DBS_OK) {
            imx_api_reply_db_fault(r, st, &why);
            return;
        }
        reply_wait(r, "slow_down", interval);
        return;
    case IMX_OIDC_POLL_DENIED:
        end(r, hash);
        imx_reply_problem(r, IMX_E_FORBIDDEN, "The sign-in was refused at the identity provider");
        return;
    case IMX_OIDC_POLL_EXPIRED:
        end(r, hash);
        imx_reply_problem(r, IMX_E_BAD_REQUEST,
                          "The code was not entered in time: run imaxe login --sso again");
        return;
    case IMX_OIDC_POLL_UPSTREAM:
        imx_warn("request %s: oidc device poll failed: %s", r->request_id, err);
        imx_reply_header(r, "Retry-After", "5");
        imx_reply_problem(r, IMX_E_NOT_READY,
                          "The identity provider could not be used (%s); try again shortly", err);
        return;
    case IMX_OIDC_POLL_REFUSED:
        imx_warn("request %s: oidc device sign-in refused: %s", r->request_id, err);
        end(r, hash);
        imx_reply_problem(r, IMX_E_UNAUTHENTICATED, "Single sign-on refused: %s", err);
        return;
    case IMX_OIDC_POLL_DONE:
        break;
    }
    /* Signed in: the device sign-in is spent before anything else can fail. */
    end(r, hash);
    int64_t uid = imx_api_oidc_land(r, &id, "oidc-device");
    imx_oidc_identity_free(&id);
    if (!uid)
        return;
    json_t *reply = imx_api_token_reply((long long)uid);
    if (!reply) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    if (imx_api_refresh_open(r, uid, "oidc", reply) != 0) {
        json_decref(reply);
        return;
    }
    imx_reply_json_steal(r, 200, reply);
}
