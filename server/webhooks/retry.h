/* Webhook retry policy: the schedule, Retry-After, and what an HTTP answer means. Pure C. */
#ifndef IMX_WEBHOOK_RETRY_H
#define IMX_WEBHOOK_RETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "util/config.h"

#define IMX_WEBHOOK_SCHEDULE_MAX 16
/* The Standard Webhooks example: retries 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the
 * first attempt's failure. */
#define IMX_WEBHOOK_SCHEDULE_DEFAULT IMX_CONFIG_WEBHOOK_SCHEDULE_DEFAULT
/* Longest Retry-After honoured; beyond it the answer is treated as this. */
#define IMX_WEBHOOK_RETRY_AFTER_MAX_S 86400

/* Delays in seconds between consecutive attempts: delay_s[0] follows the first failure. */
struct imx_webhook_schedule {
    unsigned n;
    unsigned delay_s[IMX_WEBHOOK_SCHEDULE_MAX];
};

/* Parses "5,300,1800" (1..16 whole numbers of seconds, 1..604800 each).
 * Returns 0, or -1 on bad text. */
int imx_webhook_schedule_parse(const char *text, struct imx_webhook_schedule *out);

/* Milliseconds to wait after failed attempt number `attempt` (1-based) before the next one, or
 * -1 when the schedule is exhausted and the delivery fails. The schedule's delay is spread by
 * +-10% using jitter in [0, 1); retry_after_s >= 0 (from Retry-After) raises the wait to at
 * least that, capped at IMX_WEBHOOK_RETRY_AFTER_MAX_S. */
long long imx_webhook_retry_delay_ms(const struct imx_webhook_schedule *s, unsigned attempt,
                                     long long retry_after_s, double jitter);

/* Parses a Retry-After value (delta-seconds or an HTTP-date, RFC 9110) into seconds from now,
 * or -1 when absent or unusable. A date in the past gives 0. */
long long imx_webhook_parse_retry_after(const char *value, time_t now);

enum imx_webhook_outcome {
    IMX_WEBHOOK_DELIVERED, /* 2xx */
    IMX_WEBHOOK_RETRY,     /* anything else, including redirects and transport errors */
    IMX_WEBHOOK_GONE,      /* 410: the subscription is disabled */
};

/* What an HTTP status means (0 = no answer). */
enum imx_webhook_outcome imx_webhook_classify(long status);

/* Does this status carry a Retry-After we honour (429, 503)? */
bool imx_webhook_honours_retry_after(long status);

/* Replaces NUL bytes and invalid UTF-8 in s[0..len) with '?' in place, so that a response body
 * can be stored as text. */
void imx_webhook_utf8_clean(char *s, size_t len);

/* Checks the webhook settings of cfg (IMAXE_WEBHOOK_SCHEDULE, IMAXE_WEBHOOK_ALLOW_HOSTS): run by
 * main right after imx_config_load. Returns 0, or -1 with a message in err. */
int imx_webhooks_config_check(const struct imx_config *cfg, char *err, size_t errlen);

#endif
