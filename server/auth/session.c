/* Sessions that last: cookie parsing and setting, secrets, the CSRF rule (auth/session.h). */
#include "auth/session.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/base64.h"

struct imx_session_settings imx_session_settings = {
    .idle_s = 28800,
    .absolute_s = 604800,
    .refresh_idle_s = 1209600,
    .refresh_ttl_s = 2592000,
    .secure = IMX_COOKIE_SECURE_AUTO,
    .local_passwords = true,
};

int imx_session_secure_parse(const char *s, enum imx_cookie_secure *out)
{
    if (!s || !*s || strcmp(s, "auto") == 0)
        *out = IMX_COOKIE_SECURE_AUTO;
    else if (strcmp(s, "on") == 0 || strcmp(s, "1") == 0)
        *out = IMX_COOKIE_SECURE_ON;
    else if (strcmp(s, "off") == 0 || strcmp(s, "0") == 0)
        *out = IMX_COOKIE_SECURE_OFF;
    else
        return -1;
    return 0;
}

int imx_session_secret_new(const char *prefix, char out[IMX_SESSION_SECRET_MAX + 1])
{
    unsigned char rnd[32];
    size_t n = strlen(prefix);
    if (n > 8 || RAND_bytes(rnd, sizeof rnd) != 1)
        return -1;
    memcpy(out, prefix, n);
    imx_b64url_encode(rnd, sizeof rnd, out + n, IMX_SESSION_SECRET_MAX + 1 - n);
    OPENSSL_cleanse(rnd, sizeof rnd);
    return 0;
}

bool imx_session_cookie_in(const char *h, const char *name, char *out, size_t len)
{
    size_t nlen = strlen(name);
    /* RFC 6265 section 5.4: "name=value" pairs separated by "; ". A name is matched whole, so
     * "ximaxe_session" is not "imaxe_session". The first match wins, as browsers send the most
     * specific path first. */
    while (h && *h) {
        while (*h == ' ' || *h == ';')
            h++;
        const char *end = strchr(h, ';');
        size_t plen = end ? (size_t)(end - h) : strlen(h);
        if (plen > nlen && strncmp(h, name, nlen) == 0 && h[nlen] == '=') {
            const char *v = h + nlen + 1;
            size_t vlen = plen - nlen - 1;
            while (vlen > 0 && v[vlen - 1] == ' ')
                vlen--;
            if (vlen == 0 || vlen >= len)
                return false;
            memcpy(out, v, vlen);
            out[vlen] = '\0';
            return true;
        }
        h = end;
    }
    return false;
}

bool imx_session_unsafe_method(const char *m)
{
    return strcmp(m, "GET") != 0 && strcmp(m, "HEAD") != 0 && strcmp(m, "OPTIONS") != 0;
}

/* Whether host (a Host header: name or [v6], maybe with a port) is a loopback name. */
static bool loopback_host(const char *host)
{
    if (!host)
        return true;
    if (strncmp(host, "127.", 4) == 0 || strncmp(host, "[::1]", 5) == 0)
        return true;
    size_t n = strlen("localhost");
    return strncasecmp(host, "localhost", n) == 0 && (host[n] == '\0' || host[n] == ':');
}

bool imx_session_cookie_secure(const char *proto, const char *host)
{
    switch (imx_session_settings.secure) {
    case IMX_COOKIE_SECURE_ON:
        return true;
    case IMX_COOKIE_SECURE_OFF:
        return false;
    case IMX_COOKIE_SECURE_AUTO:
        break;
    }
    /* imaxe speaks plain HTTP itself: TLS ends at a proxy in front of it. Only a developer's
     * loopback address reached without one gets cookies a browser keeps over plain HTTP. */
    if (proto && strncasecmp(proto, "https", 5) == 0)
        return true;
    return !loopback_host(host);
}

void imx_session_cookie_line(char *out, size_t len, const char *name, const char *value,
                             long long max_age_s, bool http_only, bool secure)
{
    snprintf(out, len, "%s=%s; Path=/; Max-Age=%lld%s; SameSite=Lax%s", name, value, max_age_s,
             http_only ? "; HttpOnly" : "", secure ? "; Secure" : "");
}
