/* Who is calling and what they may do, for a request: the authenticator run before every
 * non-public route (the http auth hooks, set by main), role checks per team, and the audit log of
 * writes. Built on auth/ (roles, tokens, JWTs) and db/auth.h (the principals). */
#ifndef IMX_API_ACCESS_H
#define IMX_API_ACCESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "auth/auth.h"
#include "db/auth.h"
#include "http/request.h"

/* The imx_http_auth_hook: reads the bearer token (an access token or an imx_ API token), fills
 * r->principal, and applies the route's access and min_role. Replies 401/403 and returns false
 * when the caller may not go on. */
bool imx_auth_authenticate(struct imx_req *r);

/* The same for a fast handler (on the event thread), without PostgreSQL: returns true when the
 * principal cache lets the caller in (as imx_auth_authenticate would); false, with nothing
 * replied and r->principal cleared, when imx_auth_authenticate is to decide. */
bool imx_auth_remembered(struct imx_req *r);

/* For a route marked epoch_auth: its read statement returned the current auth epoch (the
 * auth_epoch row, read in the same snapshot as the answer). Returns 1 when the principal the
 * request was let in with still stands (always, when it was checked in full this request); 0
 * when it came from the cache at an older epoch and was checked again and still passes (run the
 * statement again: its answer was read for the old principal); -1 after replying 401/403/5xx
 * (the credential no longer passes). */
int imx_auth_confirm(struct imx_req *r, long long epoch);

/* The same for a handler of such a route whose statement could not carry the epoch (a fallback
 * path): reads it on its own (one query, only when the principal came from the cache). Returns 1
 * when the request may go on, -1 after replying. */
int imx_auth_confirm_now(struct imx_req *r);

/* Resolves a team slug and checks the caller's role in it. Global admins pass; an API token is
 * capped to its team and role. Replies 404 when the team does not exist or the caller has no role
 * in it (and is not a global admin), 403 when the role is below min. Returns the team id (> 0), or
 * 0 after replying. Uses imx_api_db(r). */
int64_t imx_auth_team(struct imx_req *r, const char *slug, enum imx_role min);
/* A statement that reads the caller's team with what it answers (db/auth.h), and a failure's
 * detail in *why. */
typedef enum imx_db_status (*imx_auth_team_read_fn)(struct imx_db_conn *c, const char *user_id,
                                                    void *cls, struct imx_db_team_read *out,
                                                    struct imx_db_fault *why);
/* The same check made by the handler's own statement, so that the check and the read are one
 * round trip: runs read until its answer holds for the caller as they are (a remembered
 * principal is confirmed by the epoch read; one checked again in full is read again), then checks
 * the role read as imx_auth_team does. Returns the team id with *out filled (the caller frees it
 * with imx_db_team_read_free, or hands its result on), or 0 after replying (out freed). */
int64_t imx_auth_team_with(struct imx_req *r, const char *slug, enum imx_role min,
                           imx_auth_team_read_fn read, void *cls, struct imx_db_team_read *out);
/* The same check with the team's id (0: no such team) and the user's membership role (text, or
 * NULL/"" for none) read by the caller's own statement, in the snapshot of an auth epoch it has
 * confirmed with imx_auth_confirm: no query of its own. slug names the team in the replies (NULL:
 * "the owning team"). Returns team_id, or 0 after replying 404/403. */
int64_t imx_auth_team_read(struct imx_req *r, const char *slug, int64_t team_id,
                           const char *member_role, enum imx_role min);
/* The same for a team id read from a stored row (e.g. the owning team of an image). Returns true or
 * replies. */
bool imx_auth_team_id(struct imx_req *r, int64_t team_id, enum imx_role min);
/* Whether the team may be written in: false after replying 403 when a global admin disabled it
 * (or 5xx when that cannot be read). The team checks above make it for any min above viewer;
 * slug names the team in the reply (NULL: the slug read with it). */
bool imx_auth_team_enabled(struct imx_req *r, int64_t team_id, const char *slug);
/* Whether the team is disabled, without a reply (false when that cannot be read: the write it
 * guards fails on its own then). */
bool imx_auth_team_disabled(struct imx_req *r, int64_t team_id);
/* The caller's effective role in a team (no reply; IMX_ROLE_NONE when none). */
enum imx_role imx_auth_role(struct imx_req *r, int64_t team_id);
/* Writes an audit row on the request's connection (call inside the write's transaction). detail is
 * borrowed. Returns 0 or -1. */
int imx_audit(struct imx_req *r, const char *action, const char *resource, const char *resource_id,
              const json_t *detail);

/* The caller's effective role in the team with this slug (no reply; IMX_ROLE_NONE when the team
 * does not exist, the caller has no role there, or the database failed); *team_id gets its id. */
enum imx_role imx_auth_role_slug(struct imx_req *r, const char *slug, int64_t *team_id);

/* Web sessions' cookies (auth/session.h has the rules). The session cookie's value into out
 * (len bytes); returns whether the request carries one that fits. */
bool imx_auth_session_cookie(const struct imx_req *r, char *out, size_t len);
/* Adds the Set-Cookie headers of a new web session (max_age_s seconds): the session cookie
 * (HttpOnly) and the CSRF cookie the web UI reads. */
void imx_auth_set_session_cookies(struct imx_req *r, const char *secret, const char *csrf,
                                  long long max_age_s);
/* Adds Set-Cookie headers that clear both. */
void imx_auth_clear_session_cookies(struct imx_req *r);

#endif
