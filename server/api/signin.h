/* Signing in, shared by the password sign-ins (api/auth.c), the web session (api/sessions.c)
 * and single sign-on (api/oidc.c). */
#ifndef IMX_API_SIGNIN_H
#define IMX_API_SIGNIN_H

#include <jansson.h>
#include <stdint.h>

#include "api/api.h"
#include "auth/oidc.h"

/* Checks body's {"email", "password"} (fields: what else the body may hold), throttled per
 * account and address. Returns the user's id, or 0 after replying 401/403/422/429/503. */
int64_t imx_api_password_signin(struct imx_req *r, json_t *body,
                                const struct imx_api_field *fields);

/* {"access_token", "token_type", "expires_in"} for the user: a new reference, NULL when the
 * token could not be signed. */
json_t *imx_api_token_reply(long long uid);

/* Opens a CLI sign-in for the user (via "password" or "oidc") and adds its "refresh_token" and
 * "refresh_expires_at" to reply (borrowed). Returns 0, or -1 after replying. */
int imx_api_refresh_open(struct imx_req *r, int64_t uid, const char *via, json_t *reply);

/* Opens a web session for the user and sets its cookies on the reply. *csrf (when not NULL)
 * gets the CSRF token (IMX_SESSION_SECRET_MAX + 1 bytes); *expires_at its absolute end. Returns
 * 0, or -1 after replying. */
int imx_api_web_session_open(struct imx_req *r, int64_t uid, const char *via, char *csrf,
                             long long *expires_at);

/* Handlers (server/api/sessions.c). */
void imx_api_session_create(struct imx_req *r);
void imx_api_session_delete(struct imx_req *r);
void imx_api_session_list(struct imx_req *r);
void imx_api_session_revoke(struct imx_req *r);
void imx_api_user_sessions_revoke(struct imx_req *r);
void imx_api_user_session_list(struct imx_req *r);
void imx_api_refresh(struct imx_req *r);
/* `imaxe logout` (server/api/sign_out.c). */
void imx_api_refresh_revoke(struct imx_req *r);
/* Single sign-on (server/api/oidc.c). */
void imx_api_auth_providers(struct imx_req *r);
void imx_api_oidc_start(struct imx_req *r);
void imx_api_oidc_callback(struct imx_req *r);
/* The user a validated identity signs in as (provisioned, teams set from the group map), with
 * the sign-in audited (via: "oidc", "oidc-device") and r->principal set to them. Returns the
 * user's id, or 0 after replying (403 disabled or a contested email, 5xx). */
int64_t imx_api_oidc_land(struct imx_req *r, const struct imx_oidc_identity *id, const char *via);
/* The CLI's device sign-in (server/api/oidc_device.c). */
void imx_api_oidc_device_start(struct imx_req *r);
void imx_api_oidc_device_token(struct imx_req *r);

#endif
