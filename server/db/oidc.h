/* SQL for OpenID Connect sign-in (migrations/0241_oidc.sql): the sign-ins under way, taken
 * once, and the user a sign-in lands as. String arguments are borrowed. */
#ifndef IMX_DB_OIDC_H
#define IMX_DB_OIDC_H

#include <stdbool.h>
#include <stdint.h>

#include "db/pool.h"
#include "db/status.h"

/* Stores a sign-in under way (and forgets those older than ttl_s). */
enum imx_db_status imx_db_oidc_login_put(struct imx_db_conn *c, const char *state_hash,
                                         const char *nonce, const char *verifier, const char *next,
                                         const char *ttl_s, struct imx_db_fault *why);

/* A sign-in under way, taken (deleted) by its state: single use. */
struct imx_db_oidc_login {
    char nonce[129], verifier[129], next[501];
};
/* IMX_DBS_NOT_FOUND: no such state, already used, or older than ttl_s. */
enum imx_db_status imx_db_oidc_login_take(struct imx_db_conn *c, const char *state_hash,
                                          const char *ttl_s, struct imx_db_oidc_login *out,
                                          struct imx_db_fault *why);

/* Device sign-ins (migrations/0341_oidc_device.sql). Stores one under way for expires_s seconds
 * and forgets expired ones. IMX_DBS_CONFLICT: max are under way already. */
enum imx_db_status imx_db_oidc_device_put(struct imx_db_conn *c, const char *handle_hash,
                                          const char *device_code, const char *nonce,
                                          const char *interval_s, const char *expires_s,
                                          const char *max, struct imx_db_fault *why);

/* A device sign-in's poll, reserved: the provider may be asked now unless early (the caller came
 * before its interval was up: the interval grew by 5 s) or expired (then it is taken). */
struct imx_db_oidc_device {
    char device_code[2049], nonce[129];
    int interval_s;
    bool early, expired;
};
/* IMX_DBS_NOT_FOUND: no such handle (never issued, or ended). */
enum imx_db_status imx_db_oidc_device_poll(struct imx_db_conn *c, const char *handle_hash,
                                           struct imx_db_oidc_device *out,
                                           struct imx_db_fault *why);
/* The provider answered slow_down: 5 s more between polls; *interval_s gets the new interval. */
enum imx_db_status imx_db_oidc_device_slow(struct imx_db_conn *c, const char *handle_hash,
                                           int *interval_s, struct imx_db_fault *why);
/* Ends (deletes) a device sign-in: signed in, refused, denied or expired. */
enum imx_db_status imx_db_oidc_device_end(struct imx_db_conn *c, const char *handle_hash,
                                          struct imx_db_fault *why);

/* The user a sign-in lands as (provisioned and linked as needed), with the memberships of the
 * mapped teams set: teams and roles are PostgreSQL array literals of equal length.
 * IMX_DBS_NOT_FOUND: the user is disabled; IMX_DBS_CONFLICT: the email is another user's and
 * the provider does not vouch for it. */
enum imx_db_status imx_db_oidc_sign_in(struct imx_db_conn *c, const char *issuer,
                                       const char *subject, const char *email, const char *name,
                                       bool email_verified, const char *teams, const char *roles,
                                       int64_t *user_id, bool *created, int *changed,
                                       struct imx_db_fault *why);

#endif
