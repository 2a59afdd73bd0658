/* Webhook pure logic as tables: the SSRF guard (every spelling of a local address), Standard
 * Webhooks signatures, secrets, the retry schedule, Retry-After and response cleaning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "webhooks/retry.h"
#include "webhooks/sign.h"
#include "webhooks/ssrf.h"

/* A resolver that answers from a table, so that name cases need no DNS. */
static int fake_resolve(const char *host, struct sockaddr_storage *out, int max, void *cls)
{
    static const struct {
        const char *name, *addr;
    } zone[] = {
        { "hooks.example.com", "93.184.216.34" },     { "v6.example.com", "2606:4700::1111" },
        { "rebind.example.com", "10.1.2.3" },         { "meta.example.com", "169.254.169.254" },
        { "mapped.example.com", "::ffff:127.0.0.1" }, { "ula.example.com", "fd00::1" },
    };
    (void)cls;
    for (size_t i = 0; i < sizeof zone / sizeof zone[0] && max > 0; i++) {
        if (strcmp(host, zone[i].name) != 0)
            continue;
        memset(out, 0, sizeof *out);
        struct sockaddr_in *in = (struct sockaddr_in *)out;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)out;
        if (inet_pton(AF_INET, zone[i].addr, &in->sin_addr) == 1) {
            in->sin_family = AF_INET;
            return 1;
        }
        in6->sin6_family = AF_INET6;
        assert_int_equal(inet_pton(AF_INET6, zone[i].addr, &in6->sin6_addr), 1);
        return 1;
    }
    return -1;
}

static void ssrf_url_cases(void **state)
{
    static const struct {
        const char *url;
        int ok;
        const char *why; /* part of the reason when refused */
    } cases[] = {
        { "https://hooks.example.com/imaxe", 1, NULL },
        { "https://hooks.example.com:8443/x?y=1", 1, NULL },
        { "https://v6.example.com/", 1, NULL },
        { "https://93.184.216.34/", 1, NULL },
        { "https://[2606:4700::1111]/", 1, NULL },
        /* scheme and form */
        { "http://hooks.example.com/", 0, "https" },
        { "ftp://hooks.example.com/", 0, "http and https" },
        { "file:///etc/passwd", 0, "http and https" },
        { "gopher://127.0.0.1:6379/", 0, "http and https" },
        { "hooks.example.com/x", 0, "" },
        { "https://user:pw@hooks.example.com/", 0, "credentials" },
        { "https://evil.com@127.0.0.1/", 0, "credentials" },
        { "https://hooks.example.com /", 0, "spaces" },
        { "https://hooks.example.com\\@127.0.0.1/", 0, "" },
        { "https://%31%32%37.0.0.1/", 0, "" },
        { "https://[fe80::1%25eth0]/", 0, "" },
        { "https:///nohost", 0, "" },
        { "", 0, "" },
        /* loopback in every spelling */
        { "https://127.0.0.1/", 0, "loopback" },
        { "https://127.1/", 0, "loopback" },
        { "https://127.0.1/", 0, "loopback" },
        { "https://2130706433/", 0, "loopback" },
        { "https://0x7f.1/", 0, "loopback" },
        { "https://0x7f000001/", 0, "loopback" },
        { "https://017700000001/", 0, "loopback" },
        { "https://0177.0.0.1/", 0, "loopback" },
        { "https://127.0.0.1.:443/", 0, "loopback" },
        { "https://[::1]/", 0, "loopback" },
        { "https://[0:0:0:0:0:0:0:1]/", 0, "loopback" },
        { "https://[::ffff:127.0.0.1]/", 0, "IPv4-mapped" },
        { "https://[0:0:0:0:0:ffff:7f00:1]/", 0, "IPv4-mapped" },
        { "https://[::127.0.0.1]/", 0, "IPv4-compatible" },
        { "https://localhost/", 0, "local or cloud metadata" },
        { "https://LOCALHOST./", 0, "local or cloud metadata" },
        { "https://a.b.localhost/", 0, "local or cloud metadata" },
        /* private, link-local, metadata, CGNAT, special */
        { "https://10.0.0.1/", 0, "private" },
        { "https://10.255.255.255/", 0, "private" },
        { "https://172.16.0.1/", 0, "private" },
        { "https://172.31.255.255/", 0, "private" },
        { "https://192.168.1.1/", 0, "private" },
        { "https://169.254.169.254/latest/meta-data/", 0, "metadata" },
        { "https://0xa9fea9fe/", 0, "metadata" },
        { "https://metadata.google.internal/computeMetadata/v1/", 0, "metadata" },
        { "https://metadata.goog/", 0, "metadata" },
        { "https://instance-data.ec2.internal/", 0, "metadata" },
        { "https://100.64.0.1/", 0, "carrier-grade" },
        { "https://100.127.255.254/", 0, "carrier-grade" },
        { "https://0.0.0.0/", 0, "this network" },
        { "https://0/", 0, "this network" },
        { "https://0.1.2.3/", 0, "this network" },
        { "https://255.255.255.255/", 0, "broadcast" },
        { "https://224.0.0.1/", 0, "multicast" },
        { "https://239.255.255.250/", 0, "multicast" },
        { "https://198.18.0.1/", 0, "benchmarking" },
        { "https://192.0.2.1/", 0, "documentation" },
        { "https://[::]/", 0, "unspecified" },
        { "https://[fe80::1]/", 0, "link-local" },
        { "https://[febf::1]/", 0, "link-local" },
        { "https://[fc00::1]/", 0, "unique local" },
        { "https://[fd12:3456::1]/", 0, "unique local" },
        { "https://[ff02::1]/", 0, "multicast" },
        { "https://[fec0::1]/", 0, "site-local" },
        { "https://[64:ff9b::a00:1]/", 0, "NAT64" },
        { "https://[64:ff9b::7f00:1]/", 0, "NAT64" },
        { "https://[64:ff9b::a9fe:a9fe]/", 0, "NAT64" },
        { "https://[64:ff9b:1::1]/", 0, "NAT64" },
        { "https://[2002:7f00:1::1]/", 0, "6to4" },
        { "https://[2002:c0a8:101::1]/", 0, "6to4" },
        { "https://[2001:0:4136:e378::1]/", 0, "Teredo" },
        { "https://[2001:db8::1]/", 0, "documentation" },
        { "https://[100::1]/", 0, "discard" },
        /* public addresses in the embedding forms pass */
        { "https://[64:ff9b::5db8:d822]/", 1, NULL },
        { "https://[2002:5db8:d822::1]/", 1, NULL },
        { "https://[::ffff:93.184.216.34]/", 1, NULL },
        /* names resolving to refused addresses (DNS is the fake zone above) */
        { "https://rebind.example.com/", 0, "private" },
        { "https://meta.example.com/", 0, "metadata" },
        { "https://mapped.example.com/", 0, "IPv4-mapped" },
        { "https://ula.example.com/", 0, "unique local" },
        { "https://nxdomain.example.com/", 0, "does not resolve" },
    };
    (void)state;
    struct imx_ssrf_allow none;
    char err[128];
    assert_int_equal(imx_ssrf_allow_parse("", &none, err, sizeof err), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char reason[512] = "";
        int rc = imx_ssrf_check_url(cases[i].url, &none, fake_resolve, NULL, reason, sizeof reason);
        if ((rc == 0) != cases[i].ok || (!cases[i].ok && !strstr(reason, cases[i].why)))
            fail_msg("case %zu %s: rc %d, reason '%s'", i, cases[i].url, rc, reason);
    }
}

static void ssrf_allow_list(void **state)
{
    (void)state;
    struct imx_ssrf_allow allow;
    char err[128], reason[512];
    assert_int_equal(imx_ssrf_allow_parse("127.0.0.1:9000, [::1]:9001,Hooks.Internal:80", &allow,
                                          err, sizeof err),
                     0);
    assert_int_equal(allow.n, 3);
    /* Allowed host:port pairs pass, over http too. */
    assert_int_equal(imx_ssrf_check_url("http://127.0.0.1:9000/x", &allow, fake_resolve, NULL,
                                        reason, sizeof reason),
                     0);
    assert_int_equal(
        imx_ssrf_check_url("http://[::1]:9001/", &allow, fake_resolve, NULL, reason, sizeof reason),
        0);
    assert_int_equal(imx_ssrf_check_url("http://hooks.internal/", &allow, fake_resolve, NULL,
                                        reason, sizeof reason),
                     0);
    /* Another port, or another spelling of the host, is not on the list. */
    assert_int_equal(imx_ssrf_check_url("http://127.0.0.1:9001/", &allow, fake_resolve, NULL,
                                        reason, sizeof reason),
                     -1);
    assert_int_equal(imx_ssrf_check_url("https://127.0.0.1:9001/", &allow, fake_resolve, NULL,
                                        reason, sizeof reason),
                     -1);
    /* The refusal names the setting that would allow this very receiver. */
    assert_non_null(strstr(reason, "IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9001"));
    assert_int_equal(imx_ssrf_check_url("http://hooks.example.com:8443/x", &allow, fake_resolve,
                                        NULL, reason, sizeof reason),
                     -1);
    assert_non_null(strstr(reason, "must use https"));
    assert_non_null(strstr(reason, "IMAXE_WEBHOOK_ALLOW_HOSTS=hooks.example.com:8443"));
    assert_int_equal(imx_ssrf_check_url("http://localhost:9000/", &allow, fake_resolve, NULL,
                                        reason, sizeof reason),
                     -1);
    /* libcurl normalises 127.1 to 127.0.0.1: still the same host, so allowed. */
    assert_int_equal(
        imx_ssrf_check_url("http://127.1:9000/", &allow, fake_resolve, NULL, reason, sizeof reason),
        0);
    static const char *const bad[] = { "127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536",
                                       ":80",       "[::1:80",     "a:b" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(imx_ssrf_allow_parse(bad[i], &allow, err, sizeof err), -1);
}

static void ssrf_connect_time_addresses(void **state)
{
    static const struct {
        const char *addr;
        int refused;
    } cases[] = {
        { "127.0.0.1", 1 },
        { "127.255.255.254", 1 },
        { "10.0.0.5", 1 },
        { "172.15.255.255", 0 },
        { "172.32.0.1", 0 },
        { "192.169.0.1", 0 },
        { "100.63.255.255", 0 },
        { "100.128.0.0", 0 },
        { "169.254.169.254", 1 },
        { "8.8.8.8", 0 },
        { "::1", 1 },
        { "::ffff:10.0.0.1", 1 },
        { "::ffff:8.8.8.8", 0 },
        { "2606:4700::1111", 0 },
        { "fe80::abcd", 1 },
        { "fdff::1", 1 },
        { "fe00::1", 0 },
        { "::", 1 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sockaddr_storage ss;
        memset(&ss, 0, sizeof ss);
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        if (inet_pton(AF_INET, cases[i].addr, &in->sin_addr) == 1) {
            in->sin_family = AF_INET;
        } else {
            in6->sin6_family = AF_INET6;
            assert_int_equal(inet_pton(AF_INET6, cases[i].addr, &in6->sin6_addr), 1);
        }
        const char *why = imx_ssrf_address_refused((struct sockaddr *)&ss);
        if ((why != NULL) != cases[i].refused)
            fail_msg("%s: %s", cases[i].addr, why ? why : "allowed");
    }
    struct sockaddr un = { .sa_family = AF_UNIX };
    assert_non_null(imx_ssrf_address_refused(&un));
}

/* The Standard Webhooks reference vector (also what the standardwebhooks npm package computes). */
static void signature_vector(void **state)
{
    (void)state;
    char sig[256] = "";
    const char *body = "{\"test\": 2432232314}";
    assert_int_equal(imx_webhook_sign_append("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                                             "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body,
                                             strlen(body), sig, sizeof sig),
                     0);
    assert_string_equal(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    /* A second secret adds a second, space-separated signature. */
    char fresh[IMX_WEBHOOK_SECRET_LEN + 1];
    assert_int_equal(imx_webhook_secret_new(fresh), 0);
    assert_int_equal(imx_webhook_sign_append(fresh, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
                                             body, strlen(body), sig, sizeof sig),
                     0);
    assert_int_equal(strlen(sig), 2 * IMX_WEBHOOK_SIG_LEN + 1);
    assert_int_equal(sig[IMX_WEBHOOK_SIG_LEN], ' ');
    assert_memory_equal(sig + IMX_WEBHOOK_SIG_LEN + 1, "v1,", 3);
    /* No room: refused, not truncated. */
    char small[50] = "";
    assert_int_equal(imx_webhook_sign_append(fresh, "m", 1, "", 0, small, sizeof small), 0);
    assert_int_equal(imx_webhook_sign_append(fresh, "m", 1, "", 0, small, sizeof small), -1);
    static const char *const bad[] = { "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                                       "whsec_",
                                       "whsec_abc",
                                       "whsec_!!!!",
                                       "whsec_QUFB",
                                       "whsec_====" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char out[128] = "";
        assert_false(imx_webhook_secret_valid(bad[i]));
        assert_int_equal(imx_webhook_sign_append(bad[i], "m", 1, "", 0, out, sizeof out), -1);
    }
}

static void secrets_are_fresh_and_well_formed(void **state)
{
    (void)state;
    char a[IMX_WEBHOOK_SECRET_LEN + 1], b[IMX_WEBHOOK_SECRET_LEN + 1];
    assert_int_equal(imx_webhook_secret_new(a), 0);
    assert_int_equal(imx_webhook_secret_new(b), 0);
    assert_int_equal(strlen(a), IMX_WEBHOOK_SECRET_LEN);
    assert_memory_equal(a, "whsec_", 6);
    assert_int_equal(a[IMX_WEBHOOK_SECRET_LEN - 1], '=');
    assert_true(imx_webhook_secret_valid(a));
    assert_string_not_equal(a, b);
}

static void schedule_and_backoff(void **state)
{
    (void)state;
    struct imx_webhook_schedule s;
    assert_int_equal(imx_webhook_schedule_parse(IMX_WEBHOOK_SCHEDULE_DEFAULT, &s), 0);
    static const unsigned want[] = { 5, 300, 1800, 7200, 18000, 36000, 36000 };
    assert_int_equal(s.n, 7);
    for (unsigned i = 0; i < 7; i++) {
        assert_int_equal(s.delay_s[i], want[i]);
        long long lo = imx_webhook_retry_delay_ms(&s, i + 1, -1, 0.0);
        long long hi = imx_webhook_retry_delay_ms(&s, i + 1, -1, 0.999999);
        assert_int_equal(lo, (long long)want[i] * 900);
        assert_true(hi < (long long)want[i] * 1100 + 1 && hi > (long long)want[i] * 1099);
    }
    /* After the 8th attempt (the 7th retry) the delivery fails. */
    assert_int_equal(imx_webhook_retry_delay_ms(&s, 8, -1, 0.5), -1);
    assert_int_equal(imx_webhook_retry_delay_ms(&s, 0, -1, 0.5), -1);
    /* Retry-After raises the wait, never lowers it, and is capped. */
    assert_int_equal(imx_webhook_retry_delay_ms(&s, 1, 60, 0.5), 60000);
    assert_int_equal(imx_webhook_retry_delay_ms(&s, 2, 1, 0.5), 300000);
    assert_int_equal(imx_webhook_retry_delay_ms(&s, 1, 10000000, 0.5),
                     (long long)IMX_WEBHOOK_RETRY_AFTER_MAX_S * 1000);

    assert_int_equal(imx_webhook_schedule_parse("1,2,4", &s), 0);
    assert_int_equal(s.n, 3);
    static const char *const bad[] = {
        "", "0", "1,,2", "1,", ",1", "a", "1.5", "-1", "604801", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(imx_webhook_schedule_parse(bad[i], &s), -1);
}

static void retry_after_and_status(void **state)
{
    (void)state;
    time_t now = 1784000000; /* 2026-07-14 */
    assert_int_equal(imx_webhook_parse_retry_after(" 120\r\n", now), 120);
    assert_int_equal(imx_webhook_parse_retry_after("0", now), 0);
    assert_int_equal(imx_webhook_parse_retry_after("-5", now), -1);
    assert_int_equal(imx_webhook_parse_retry_after("soon", now), -1);
    assert_int_equal(imx_webhook_parse_retry_after("", now), -1);
    assert_int_equal(imx_webhook_parse_retry_after(NULL, now), -1);
    assert_int_equal(imx_webhook_parse_retry_after("Tue, 14 Jul 2026 03:33:40 GMT", now),
                     1784000020 - now);
    assert_int_equal(imx_webhook_parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now), 0);

    assert_int_equal(imx_webhook_classify(200), IMX_WEBHOOK_DELIVERED);
    assert_int_equal(imx_webhook_classify(204), IMX_WEBHOOK_DELIVERED);
    assert_int_equal(imx_webhook_classify(299), IMX_WEBHOOK_DELIVERED);
    assert_int_equal(imx_webhook_classify(302), IMX_WEBHOOK_RETRY);
    assert_int_equal(imx_webhook_classify(410), IMX_WEBHOOK_GONE);
    assert_int_equal(imx_webhook_classify(429), IMX_WEBHOOK_RETRY);
    assert_int_equal(imx_webhook_classify(0), IMX_WEBHOOK_RETRY);
    assert_true(imx_webhook_honours_retry_after(429));
    assert_true(imx_webhook_honours_retry_after(503));
    assert_false(imx_webhook_honours_retry_after(500));
}

static void response_bodies_become_valid_utf8(void **state)
{
    static const struct {
        const char *in;
        size_t len;
        const char *out;
    } cases[] = {
        { "plain", 5, "plain" },
        { "caf\xc3\xa9", 5, "caf\xc3\xa9" },
        { "a\0b", 3, "a?b" },
        { "\xff\xfe", 2, "??" },
        { "\xc3", 1, "?" },
        { "\xe2\x82\xac\xe2\x82", 5, "\xe2\x82\xac??" },
        { "\xc0\xaf", 2, "??" },      /* overlong '/' */
        { "\xed\xa0\x80", 3, "???" }, /* a surrogate */
        { "\xf0\x9f\x98\x80!", 5, "\xf0\x9f\x98\x80!" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[16];
        memcpy(buf, cases[i].in, cases[i].len);
        imx_webhook_utf8_clean(buf, cases[i].len);
        assert_memory_equal(buf, cases[i].out, cases[i].len);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ssrf_url_cases),
        cmocka_unit_test(ssrf_allow_list),
        cmocka_unit_test(ssrf_connect_time_addresses),
        cmocka_unit_test(signature_vector),
        cmocka_unit_test(secrets_are_fresh_and_well_formed),
        cmocka_unit_test(schedule_and_backoff),
        cmocka_unit_test(retry_after_and_status),
        cmocka_unit_test(response_bodies_become_valid_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
