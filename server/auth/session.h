/* Sessions that last: the web UI's cookie (HttpOnly, SameSite=Lax, Secure where the site is
 * served over TLS) with a CSRF token for writes, and the CLI's refresh tokens. The secrets are
 * random, sent once, and kept in PostgreSQL only as SHA-256 hashes (server/db/sessions.h). */
#ifndef IMX_AUTH_SESSION_H
#define IMX_AUTH_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#define IMX_SESSION_COOKIE     "imaxe_session"
#define IMX_CSRF_COOKIE        "imaxe_csrf"
#define IMX_CSRF_HEADER        "X-CSRF-Token"
#define IMX_REFRESH_PREFIX     "imxr_"
#define IMX_SESSION_SECRET_MAX 64 /* a prefix and base64url of 32 bytes, with room */
#define IMX_SESSIONS_PER_USER  50 /* live sessions a user keeps; more revoke the oldest */

/* IMAXE_COOKIE_SECURE: auto (Secure unless the request came in plain HTTP to a loopback host),
 * on, off. */
enum imx_cookie_secure { IMX_COOKIE_SECURE_AUTO, IMX_COOKIE_SECURE_ON, IMX_COOKIE_SECURE_OFF };

struct imx_session_settings {
    unsigned idle_s;         /* IMAXE_SESSION_IDLE_S */
    unsigned absolute_s;     /* IMAXE_SESSION_ABSOLUTE_S */
    unsigned refresh_idle_s; /* IMAXE_REFRESH_IDLE_S: a CLI sign-in unused this long ends */
    unsigned refresh_ttl_s;  /* IMAXE_REFRESH_TTL_S: a CLI sign-in's absolute lifetime */
    enum imx_cookie_secure secure;
    bool local_passwords; /* IMAXE_LOCAL_PASSWORDS: sign-in with an imaxe password is allowed */
};
extern struct imx_session_settings imx_session_settings;

/* Parses IMAXE_COOKIE_SECURE ("auto", "on", "off"). Returns 0, or -1 for anything else. */
int imx_session_secure_parse(const char *s, enum imx_cookie_secure *out);

/* A fresh secret, prefix + base64url of 32 random bytes, into out (IMX_SESSION_SECRET_MAX + 1).
 * Returns 0, or -1 without randomness. */
int imx_session_secret_new(const char *prefix, char out[IMX_SESSION_SECRET_MAX + 1]);

/* The value of cookie name in a Cookie header (NULL: none) into out (len bytes). Returns whether
 * there was one that fits. */
bool imx_session_cookie_in(const char *header, const char *name, char *out, size_t len);

/* Whether a request to a method asks for a write (a CSRF token is needed): anything but GET,
 * HEAD, OPTIONS. */
bool imx_session_unsafe_method(const char *method);

/* Whether cookies set in reply to a request with these X-Forwarded-Proto and Host headers (NULL:
 * absent) get the Secure attribute, under IMAXE_COOKIE_SECURE. */
bool imx_session_cookie_secure(const char *forwarded_proto, const char *host);

/* A Set-Cookie value into out (len bytes): name=value for max_age_s seconds (0: cleared), on
 * every path, SameSite=Lax, HttpOnly and Secure as asked. */
void imx_session_cookie_line(char *out, size_t len, const char *name, const char *value,
                             long long max_age_s, bool http_only, bool secure);

#endif
