/* SQL for sessions that last (migrations/0240_sessions.sql): web cookie sessions and CLI refresh
 * tokens, looked up by the SHA-256 of their secret. String arguments are borrowed. */
#ifndef IMX_DB_SESSIONS_H
#define IMX_DB_SESSIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "db/pool.h"
#include "db/status.h"

/* A new session: its id and absolute expiry (Unix seconds). */
struct imx_db_session_opened {
    int64_t session_id;
    long long expires_at;
};
/* Opens a session for an active user (kind "web" or "cli", via "password" or "oidc"; csrf_hash
 * NULL for "cli"), revoking the user's oldest live sessions beyond max_live.
 * IMX_DBS_NOT_FOUND: no such active user. */
enum imx_db_status imx_db_session_open(struct imx_db_conn *c, const char *user_id, const char *kind,
                                       const char *secret_hash, const char *csrf_hash,
                                       const char *via, const char *user_agent, const char *idle_s,
                                       const char *absolute_s, const char *max_live,
                                       struct imx_db_session_opened *out, struct imx_db_fault *why);

/* A live session as its secret finds it. */
struct imx_db_session {
    int64_t session_id, user_id;
    char csrf_hash[65]; /* "" for a CLI session */
};
/* The live session of kind with that secret hash, its last use recorded (at most every 30 s, so
 * that a burst of reads costs no burst of writes). IMX_DBS_NOT_FOUND: unknown, revoked, expired
 * or idle too long. */
enum imx_db_status imx_db_session_use(struct imx_db_conn *c, const char *secret_hash,
                                      const char *kind, struct imx_db_session *out,
                                      struct imx_db_fault *why);

/* Rotates a live CLI session's refresh token (the old one stops working). *user_id and
 * *expires_at filled. IMX_DBS_NOT_FOUND: the old token is not live. */
enum imx_db_status imx_db_session_rotate(struct imx_db_conn *c, const char *old_hash,
                                         const char *new_hash, int64_t *user_id,
                                         long long *expires_at, struct imx_db_fault *why);

/* Revokes a session: the caller's own (user_id set) or any (user_id NULL: a global admin).
 * IMX_DBS_NOT_FOUND: no such live session the caller may revoke. */
enum imx_db_status imx_db_session_revoke(struct imx_db_conn *c, const char *session_id,
                                         const char *user_id, struct imx_db_fault *why);

/* Ends the live CLI session whose refresh token has that hash (`imaxe logout`); *session_id and
 * *user_id filled. IMX_DBS_NOT_FOUND: no such live session (unknown, spent, revoked, expired). */
enum imx_db_status imx_db_session_end_refresh(struct imx_db_conn *c, const char *secret_hash,
                                              int64_t *session_id, int64_t *user_id,
                                              struct imx_db_fault *why);

/* Revokes every live session of a user; *count gets how many. */
enum imx_db_status imx_db_session_revoke_user(struct imx_db_conn *c, const char *user_id,
                                              long long *count, struct imx_db_fault *why);

/* The live sessions of a user as {"items":[...]} JSON text, newest first (bounded: the open
 * procedure keeps each user's live sessions bounded). current marks the caller's own.
 * IMX_DBS_NOT_FOUND: no such user. */
enum imx_db_status imx_db_session_list(struct imx_db_conn *c, const char *user_id,
                                       const char *current, struct imx_db_json *out,
                                       struct imx_db_fault *why);

#endif
