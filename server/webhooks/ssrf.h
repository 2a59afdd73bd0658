/* SSRF guard for webhook URLs: which URLs may be posted to and which addresses may be
 * connected to. Only http/https; hosts that are or resolve to loopback, private, link-local,
 * CGNAT, multicast, reserved or metadata addresses (in any spelling, IPv4-in-IPv6 included)
 * are refused, except host:port pairs on an explicit allow list (tests, private deployments).
 * Used when a subscription is created and again, on the address actually used, at connect
 * time. Pure functions apart from imx_ssrf_resolve_system(). */
#ifndef IMX_WEBHOOK_SSRF_H
#define IMX_WEBHOOK_SSRF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define IMX_SSRF_URL_MAX     2048
#define IMX_SSRF_ALLOW_MAX   64
#define IMX_SSRF_HOST_MAX    256
#define IMX_SSRF_RESOLVE_MAX 16

/* host:port pairs allowed whatever their address; http is allowed for them too. */
struct imx_ssrf_allow {
    unsigned n;
    struct {
        char host[IMX_SSRF_HOST_MAX]; /* lower case; IPv6 in brackets */
        unsigned port;
    } entry[IMX_SSRF_ALLOW_MAX];
};

/* Parses "host:port,[v6]:port" (empty or NULL: nothing allowed). Returns 0, or -1 with the
 * reason in err. */
int imx_ssrf_allow_parse(const char *text, struct imx_ssrf_allow *out, char *err, size_t errlen);

/* A URL taken apart the way libcurl reads it. */
struct imx_ssrf_url {
    bool https;
    char host[IMX_SSRF_HOST_MAX]; /* lower case, normalised by libcurl; IPv6 in brackets */
    unsigned port;                /* explicit or the scheme's default */
};

/* Parses and checks the form of url (scheme, no credentials, sane host). Returns 0, or -1 with
 * a human reason. */
int imx_ssrf_parse_url(const char *url, struct imx_ssrf_url *out, char *reason, size_t len);

/* Is host:port on the allow list? */
bool imx_ssrf_allowed(const struct imx_ssrf_allow *allow, const char *host, unsigned port);

/* Why an address must not be connected to (a static sentence), or NULL when it is public.
 * Handles AF_INET and AF_INET6 (IPv4-mapped, -compatible, NAT64, 6to4 and Teredo forms are
 * judged by the IPv4 address they carry or refused); any other family is refused. */
const char *imx_ssrf_address_refused(const struct sockaddr *sa);

/* Resolves host into up to max addresses. Returns how many, or -1 when it does not resolve. */
typedef int (*imx_ssrf_resolver)(const char *host, struct sockaddr_storage *out, int max,
                                 void *cls);

/* The resolver used in production: getaddrinfo(). */
int imx_ssrf_resolve_system(const char *host, struct sockaddr_storage *out, int max, void *cls);

/* The check a handler runs before storing a subscription URL: form, scheme (https, or http for
 * allowed hosts), names of metadata services, then every address the host resolves to
 * (resolve NULL: only literal addresses are checked). Returns 0, or -1 with a human reason. */
int imx_ssrf_check_url(const char *url, const struct imx_ssrf_allow *allow,
                       imx_ssrf_resolver resolve, void *cls, char *reason, size_t len);

#endif
