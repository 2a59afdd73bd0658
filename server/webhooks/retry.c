/* Webhook retry policy: the schedule, Retry-After, and what an HTTP answer means. Pure C. */
#include "webhooks/retry.h"

#include <curl/curl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/config.h"
#include "webhooks/ssrf.h"

#define DELAY_MAX_S 604800 /* one week between two attempts is plenty */

int imx_webhook_schedule_parse(const char *text, struct imx_webhook_schedule *out)
{
    struct imx_webhook_schedule s = { 0 };
    char item[16];
    if (!text || !*text)
        return -1;
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        unsigned long long v;
        if (n == 0 || n >= sizeof item || s.n == IMX_WEBHOOK_SCHEDULE_MAX)
            return -1;
        memcpy(item, p, n);
        item[n] = '\0';
        if (imx_parse_uint(item, 1, DELAY_MAX_S, &v) != 0)
            return -1;
        s.delay_s[s.n++] = (unsigned)v;
        if (!comma)
            break;
        p = comma + 1;
    }
    *out = s;
    return 0;
}

long long imx_webhook_retry_delay_ms(const struct imx_webhook_schedule *s, unsigned attempt,
                                     long long retry_after_s, double jitter)
{
    if (attempt == 0 || attempt > s->n)
        return -1;
    if (jitter < 0 || jitter >= 1)
        jitter = 0.5;
    long long base = (long long)s->delay_s[attempt - 1] * 1000;
    long long ms = (long long)((double)base * (0.9 + 0.2 * jitter));
    if (retry_after_s >= 0) {
        if (retry_after_s > IMX_WEBHOOK_RETRY_AFTER_MAX_S)
            retry_after_s = IMX_WEBHOOK_RETRY_AFTER_MAX_S;
        if (ms < retry_after_s * 1000)
            ms = retry_after_s * 1000;
    }
    return ms;
}

long long imx_webhook_parse_retry_after(const char *value, time_t now)
{
    unsigned long long v;
    char buf[64];
    if (!value)
        return -1;
    while (*value == ' ' || *value == '\t')
        value++;
    size_t n = strlen(value);
    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t' || value[n - 1] == '\r' ||
                     value[n - 1] == '\n'))
        n--;
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, value, n);
    buf[n] = '\0';
    if (buf[0] >= '0' && buf[0] <= '9')
        return imx_parse_uint(buf, 0, UINT32_MAX, &v) == 0 ? (long long)v : -1;
    time_t t = curl_getdate(buf, NULL);
    if (t == (time_t)-1)
        return -1;
    return t > now ? (long long)(t - now) : 0;
}

enum imx_webhook_outcome imx_webhook_classify(long status)
{
    if (status >= 200 && status <= 299)
        return IMX_WEBHOOK_DELIVERED;
    if (status == 410)
        return IMX_WEBHOOK_GONE;
    return IMX_WEBHOOK_RETRY;
}

bool imx_webhook_honours_retry_after(long status)
{
    return status == 429 || status == 503;
}

/* Length of the valid UTF-8 sequence at s (at most left bytes), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t left)
{
    unsigned char c = s[0];
    size_t n;
    unsigned min;
    unsigned cp;
    if (c >= 0x01 && c <= 0x7f)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, min = 0x80, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, min = 0x800, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, min = 0x10000, cp = c & 0x07;
    else
        return 0;
    if (n > left)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void imx_webhook_utf8_clean(char *s, size_t len)
{
    unsigned char *u = (unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq(u + i, len - i);
        if (n == 0) {
            u[i++] = '?';
            continue;
        }
        i += n;
    }
}

int imx_webhooks_config_check(const struct imx_config *cfg, char *err, size_t errlen)
{
    struct imx_webhook_schedule schedule;
    if (imx_webhook_schedule_parse(cfg->webhook_schedule, &schedule) != 0) {
        snprintf(err, errlen,
                 "IMAXE_WEBHOOK_SCHEDULE must be 1 to %d comma-separated delays in seconds "
                 "(got '%.60s')",
                 IMX_WEBHOOK_SCHEDULE_MAX, cfg->webhook_schedule);
        return -1;
    }
    struct imx_ssrf_allow allow;
    return imx_ssrf_allow_parse(cfg->webhook_allow_hosts, &allow, err, errlen) != 0 ? -1 : 0;
}
