/* SSRF guard for webhook URLs (see ssrf.h). */
#include "webhooks/ssrf.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <curl/curl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/config.h"

int imx_ssrf_allow_parse(const char *text, struct imx_ssrf_allow *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!text)
        return 0;
    for (const char *p = text; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char item[IMX_SSRF_HOST_MAX + 8];
        while (n > 0 && *p == ' ')
            p++, n--;
        while (n > 0 && p[n - 1] == ' ')
            n--;
        if (n > 0) {
            if (n >= sizeof item || out->n == IMX_SSRF_ALLOW_MAX) {
                snprintf(err, errlen, "IMAXE_WEBHOOK_ALLOW_HOSTS: too many or too long entries");
                return -1;
            }
            memcpy(item, p, n);
            item[n] = '\0';
            char *colon = strrchr(item, ':');
            unsigned long long port;
            if (!colon || colon == item || (item[0] == '[' && colon[-1] != ']') ||
                imx_parse_uint(colon + 1, 1, 65535, &port) != 0) {
                snprintf(err, errlen, "IMAXE_WEBHOOK_ALLOW_HOSTS: '%.80s' is not host:port", item);
                return -1;
            }
            *colon = '\0';
            size_t hl = (size_t)(colon - item);
            if (hl >= sizeof out->entry[0].host) {
                snprintf(err, errlen, "IMAXE_WEBHOOK_ALLOW_HOSTS: host too long");
                return -1;
            }
            for (size_t i = 0; i < hl; i++)
                out->entry[out->n].host[i] = (char)tolower((unsigned char)item[i]);
            out->entry[out->n].host[hl] = '\0';
            out->entry[out->n].port = (unsigned)port;
            out->n++;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

bool imx_ssrf_allowed(const struct imx_ssrf_allow *allow, const char *host, unsigned port)
{
    for (unsigned i = 0; allow && i < allow->n; i++)
        if (allow->entry[i].port == port && strcasecmp(allow->entry[i].host, host) == 0)
            return true;
    return false;
}

/* Host names must be letters, digits, '-' and '.', or a bracketed IPv6 literal without a
 * zone: anything else (percent-encoding, '_', IDN bytes) is refused rather than interpreted. */
static bool host_chars_ok(const char *h)
{
    size_t n = strlen(h);
    if (n == 0 || n >= IMX_SSRF_HOST_MAX)
        return false;
    if (h[0] == '[') {
        if (n < 3 || h[n - 1] != ']')
            return false;
        for (size_t i = 1; i < n - 1; i++)
            if (!isxdigit((unsigned char)h[i]) && h[i] != ':' && h[i] != '.')
                return false;
        return true;
    }
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)h[i]) && h[i] != '-' && h[i] != '.')
            return false;
    return true;
}

int imx_ssrf_parse_url(const char *url, struct imx_ssrf_url *out, char *reason, size_t len)
{
    int rc = -1;
    char *scheme = NULL, *host = NULL, *port = NULL, *user = NULL, *pass = NULL;
    CURLU *u = NULL;

    memset(out, 0, sizeof *out);
    if (!url || !*url || strlen(url) > IMX_SSRF_URL_MAX) {
        snprintf(reason, len, "the URL must be 1 to %d characters", IMX_SSRF_URL_MAX);
        return -1;
    }
    for (const char *c = url; *c; c++)
        if ((unsigned char)*c <= 0x20 || *c == 0x7f || *c == '\\') {
            snprintf(reason, len, "the URL contains spaces, control characters or '\\'");
            return -1;
        }
    u = curl_url();
    if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
        snprintf(reason, len, "the URL cannot be parsed");
        goto out;
    }
    if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        (strcmp(scheme, "https") != 0 && strcmp(scheme, "http") != 0)) {
        snprintf(reason, len, "only http and https URLs are allowed");
        goto out;
    }
    if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK ||
        curl_url_get(u, CURLUPART_PASSWORD, &pass, 0) == CURLUE_OK) {
        snprintf(reason, len, "the URL must not contain credentials (user@host)");
        goto out;
    }
    if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host_chars_ok(host)) {
        snprintf(reason, len, "the URL's host is missing or not a plain host name");
        goto out;
    }
    if (curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK) {
        snprintf(reason, len, "the URL's port is invalid");
        goto out;
    }
    unsigned long long p;
    if (imx_parse_uint(port, 1, 65535, &p) != 0) {
        snprintf(reason, len, "the URL's port is invalid");
        goto out;
    }
    out->https = strcmp(scheme, "https") == 0;
    out->port = (unsigned)p;
    size_t i = 0;
    for (; host[i] && i < sizeof out->host - 1; i++)
        out->host[i] = (char)tolower((unsigned char)host[i]);
    out->host[i] = '\0';
    /* A trailing dot names the same host; drop it so the checks below see one spelling. */
    if (i > 1 && out->host[i - 1] == '.')
        out->host[i - 1] = '\0';
    rc = 0;
out:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_free(user);
    curl_free(pass);
    curl_url_cleanup(u);
    return rc;
}

struct v4_range {
    uint32_t net;
    unsigned bits;
    const char *why;
};

/* IPv4 ranges that are not the public internet (RFC 6890 and friends). */
static const struct v4_range v4_refused[] = {
    { 0x00000000, 8, "a 'this network' address (0.0.0.0/8)" },
    { 0x0a000000, 8, "a private address (10.0.0.0/8)" },
    { 0x64400000, 10, "a carrier-grade NAT address (100.64.0.0/10)" },
    { 0x7f000000, 8, "a loopback address (127.0.0.0/8)" },
    { 0xa9fe0000, 16, "a link-local or cloud metadata address (169.254.0.0/16)" },
    { 0xac100000, 12, "a private address (172.16.0.0/12)" },
    { 0xc0000000, 24, "an IETF protocol address (192.0.0.0/24)" },
    { 0xc0000200, 24, "a documentation address (192.0.2.0/24)" },
    { 0xc0586300, 24, "a 6to4 relay address (192.88.99.0/24)" },
    { 0xc0a80000, 16, "a private address (192.168.0.0/16)" },
    { 0xc6120000, 15, "a benchmarking address (198.18.0.0/15)" },
    { 0xc6336400, 24, "a documentation address (198.51.100.0/24)" },
    { 0xcb007100, 24, "a documentation address (203.0.113.0/24)" },
    { 0xe0000000, 4, "a multicast address (224.0.0.0/4)" },
    { 0xf0000000, 4, "a reserved or broadcast address (240.0.0.0/4)" },
};

static const char *v4_refused_why(uint32_t a)
{
    for (size_t i = 0; i < sizeof v4_refused / sizeof v4_refused[0]; i++) {
        uint32_t mask = 0xffffffffu << (32 - v4_refused[i].bits);
        if ((a & mask) == v4_refused[i].net)
            return v4_refused[i].why;
    }
    return NULL;
}

static uint32_t v4_at(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static bool zeros(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

static const char *v6_refused_why(const uint8_t *b)
{
    static const uint8_t nat64[12] = { 0x00, 0x64, 0xff, 0x9b };
    if (zeros(b, 16))
        return "the unspecified address (::)";
    if (zeros(b, 15) && b[15] == 1)
        return "a loopback address (::1)";
    if (zeros(b, 10) && b[10] == 0xff && b[11] == 0xff) /* ::ffff:a.b.c.d */
        return v4_refused_why(v4_at(b + 12)) ? "an IPv4-mapped IPv6 address of a non-public "
                                               "IPv4 address"
                                             : NULL;
    if (zeros(b, 12)) /* ::a.b.c.d, deprecated */
        return "an IPv4-compatible IPv6 address (::/96)";
    if (memcmp(b, nat64, 12) == 0) /* 64:ff9b::a.b.c.d */
        return v4_refused_why(v4_at(b + 12)) ? "a NAT64 address of a non-public IPv4 address"
                                             : NULL;
    if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0 && b[5] == 1)
        return "a local-use NAT64 address (64:ff9b:1::/48)";
    if (b[0] == 0x01 && b[1] == 0x00 && zeros(b + 2, 6))
        return "a discard-only address (100::/64)";
    if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x00 && b[3] == 0x00)
        return "a Teredo address (2001::/32)";
    if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8)
        return "a documentation address (2001:db8::/32)";
    if (b[0] == 0x20 && b[1] == 0x01 && b[2] < 0x02) /* 2001::/23 IETF protocol assignments */
        return "an IETF protocol address (2001::/23)";
    if (b[0] == 0x20 && b[1] == 0x02) /* 2002:a.b.c.d::/48 */
        return v4_refused_why(v4_at(b + 2)) ? "a 6to4 address of a non-public IPv4 address" : NULL;
    if ((b[0] & 0xfe) == 0xfc)
        return "a unique local address (fc00::/7)";
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
        return "a link-local address (fe80::/10)";
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)
        return "a site-local address (fec0::/10)";
    if (b[0] == 0xff)
        return "a multicast address (ff00::/8)";
    if (b[0] == 0 && !(b[1] == 0x64 && b[2] == 0xff))
        return "a reserved IPv6 address (::/8)";
    return NULL;
}

const char *imx_ssrf_address_refused(const struct sockaddr *sa)
{
    if (!sa)
        return "no address";
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        return v4_refused_why(ntohl(in->sin_addr.s_addr));
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        return v6_refused_why(in6->sin6_addr.s6_addr);
    }
    return "an address that is neither IPv4 nor IPv6";
}

/* Names that reach cloud metadata services or this machine whatever DNS says. */
static const char *name_refused_why(const char *host)
{
    static const char *const exact[] = {
        "localhost",
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.com",
        "metadata.platformequinix.com",
        "metadata.tencentyun.com",
        "kubernetes.default.svc",
    };
    static const char *const suffix[] = { ".localhost", ".internal", ".local",
                                          ".svc.cluster.local" };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(host, exact[i]) == 0)
            return "a local or cloud metadata host name";
    size_t n = strlen(host);
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        size_t s = strlen(suffix[i]);
        if (n > s && strcmp(host + n - s, suffix[i]) == 0)
            return "a local or cloud metadata host name";
    }
    return NULL;
}

/* Parses host as a literal address in any spelling inet_aton() and inet_pton() accept
 * (127.1, 2130706433, 0x7f.1, 017700000001, [::ffff:7f00:1]). Returns true when it is one. */
static bool literal_address(const char *host, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    size_t n = strlen(host);
    if (host[0] == '[' && n > 2 && n < 64) {
        char buf[64];
        memcpy(buf, host + 1, n - 2);
        buf[n - 2] = '\0';
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
        in6->sin6_family = AF_INET6;
        return inet_pton(AF_INET6, buf, &in6->sin6_addr) == 1;
    }
    struct sockaddr_in *in = (struct sockaddr_in *)ss;
    in->sin_family = AF_INET;
    return inet_aton(host, &in->sin_addr) != 0;
}

int imx_ssrf_resolve_system(const char *host, struct sockaddr_storage *out, int max, void *cls)
{
    (void)cls;
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    struct addrinfo *res = NULL;
    char name[IMX_SSRF_HOST_MAX];
    size_t n = strlen(host);
    if (host[0] == '[' && n > 2 && n < sizeof name) {
        memcpy(name, host + 1, n - 2);
        name[n - 2] = '\0';
    } else {
        snprintf(name, sizeof name, "%s", host);
    }
    if (getaddrinfo(name, NULL, &hints, &res) != 0)
        return -1;
    int count = 0;
    for (struct addrinfo *ai = res; ai && count < max; ai = ai->ai_next) {
        if (ai->ai_addrlen > sizeof out[0])
            continue;
        memset(&out[count], 0, sizeof out[count]);
        memcpy(&out[count], ai->ai_addr, ai->ai_addrlen);
        count++;
    }
    freeaddrinfo(res);
    return count;
}

/* Every refusal a developer may meet with a receiver of their own says how to allow it. */
#define ALLOW_HINT                                                                                 \
    " (to allow a receiver on this machine or a private network, set "                             \
    "IMAXE_WEBHOOK_ALLOW_HOSTS=%s:%u on the server)"

int imx_ssrf_check_url(const char *url, const struct imx_ssrf_allow *allow,
                       imx_ssrf_resolver resolve, void *cls, char *reason, size_t len)
{
    struct imx_ssrf_url u;
    struct sockaddr_storage addrs[IMX_SSRF_RESOLVE_MAX];
    if (imx_ssrf_parse_url(url, &u, reason, len) != 0)
        return -1;
    if (imx_ssrf_allowed(allow, u.host, u.port))
        return 0;
    if (!u.https) {
        snprintf(reason, len, "the URL must use https" ALLOW_HINT, u.host, u.port);
        return -1;
    }
    const char *why = name_refused_why(u.host);
    if (why) {
        snprintf(reason, len, "the URL's host is %s" ALLOW_HINT, why, u.host, u.port);
        return -1;
    }
    int n;
    if (literal_address(u.host, &addrs[0])) {
        n = 1;
    } else if (!resolve) {
        return 0;
    } else {
        n = resolve(u.host, addrs, IMX_SSRF_RESOLVE_MAX, cls);
        if (n <= 0) {
            snprintf(reason, len, "the URL's host does not resolve");
            return -1;
        }
    }
    for (int i = 0; i < n; i++) {
        why = imx_ssrf_address_refused((const struct sockaddr *)&addrs[i]);
        if (why) {
            snprintf(reason, len, "the URL's host is or resolves to %s" ALLOW_HINT, why, u.host,
                     u.port);
            return -1;
        }
    }
    return 0;
}
