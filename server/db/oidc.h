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
                                         const char *ttl_s);

/* A sign-in under way, taken (deleted) by its state: single use. */
struct imx_db_oidc_login {
    char nonce[129], verifier[129], next[501];
};
/* IMX_DBS_NOT_FOUND: no such state, already used, or older than ttl_s. */
enum imx_db_status imx_db_oidc_login_take(struct imx_db_conn *c, const char *state_hash,
                                          const char *ttl_s, struct imx_db_oidc_login *out);

/* The user a sign-in lands as (provisioned and linked as needed), with the memberships of the
 * mapped teams set: teams and roles are PostgreSQL array literals of equal length.
 * IMX_DBS_NOT_FOUND: the user is disabled; IMX_DBS_CONFLICT: the email is another user's and
 * the provider does not vouch for it. */
enum imx_db_status imx_db_oidc_sign_in(struct imx_db_conn *c, const char *issuer,
                                       const char *subject, const char *email, const char *name,
                                       bool email_verified, const char *teams, const char *roles,
                                       int64_t *user_id, bool *created, int *changed);

#endif
