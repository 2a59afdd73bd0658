/* `imaxe logout`: POST /v1/auth/revoke ends the CLI sign-in whose refresh token it is sent (as
 * RFC 7009 revokes a token: the token itself is the credential, so no access token is needed and
 * one that has expired does not stand in the way of signing out). */
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/signin.h"
#include "api/tx.h"
#include "auth/session.h"
#include "auth/token.h"
#include "db/sessions.h"

static const struct imx_api_field revoke_fields[] = {
    { "refresh_token", JSON_STRING, true },
    { NULL, JSON_NULL, false },
};

struct end_refresh {
    char hash[IMX_TOKEN_HASH_LEN + 1];
};

static int end_refresh_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct end_refresh *v = cls;
    int64_t session_id = 0, user_id = 0;
    enum imx_db_status st =
        imx_db_session_end_refresh(imx_api_conn(r), v->hash, &session_id, &user_id, &why);
    /* Unknown, spent, revoked or expired: there is nothing left to end, and saying so is no
     * help to someone holding a stolen token (RFC 7009 section 2.2 answers 200 too). Signing out
     * twice is not an error. */
    if (st == IMX_DBS_NOT_FOUND) {
        imx_reply_json_steal(r, 200, json_pack("{s:b}", "revoked", 0));
        return 0;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    char sid[24];
    snprintf(sid, sizeof sid, "%lld", (long long)session_id);
    /* The request carries no principal: the audit row names whose session ended. */
    json_t *detail =
        json_pack("{s:I, s:s}", "user_id", (json_int_t)user_id, "via", "refresh_token");
    int rc = imx_audit(r, "sign_out", "session", sid, detail);
    json_decref(detail);
    if (rc != 0)
        return -1;
    imx_reply_json_steal(r, 200, json_pack("{s:b}", "revoked", 1));
    return 0;
}

void imx_api_refresh_revoke(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    if (imx_api_check_fields(body, revoke_fields, errors) > 0) {
        imx_reply_invalid_steal(r, errors, "Send {\"refresh_token\"}");
        return;
    }
    json_decref(errors);
    const char *token = json_string_value(json_object_get(body, "refresh_token"));
    /* Only a token imaxe could have issued is looked up; any other string ends nothing. */
    if (strlen(token) > IMX_SESSION_SECRET_MAX ||
        strncmp(token, IMX_REFRESH_PREFIX, strlen(IMX_REFRESH_PREFIX)) != 0) {
        imx_reply_json_steal(r, 200, json_pack("{s:b}", "revoked", 0));
        return;
    }
    struct end_refresh v;
    imx_token_hash(token, v.hash);
    imx_api_tx(r, end_refresh_tx, &v);
    OPENSSL_cleanse(&v, sizeof v);
}
