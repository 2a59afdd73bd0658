/* One-line JSON logs on stdout: access lines and application events. */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static enum imx_log_level min_level = IMX_LOG_INFO;

static const char *const level_names[] = { "debug", "info", "warn", "error" };

void imx_log_set_level(const char *name)
{
    for (size_t i = 0; name && i < sizeof level_names / sizeof level_names[0]; i++)
        if (strcmp(name, level_names[i]) == 0)
            min_level = (enum imx_log_level)i;
}

size_t imx_json_escape(char *out, size_t outlen, const char *s)
{
    size_t n = 0;
    if (outlen == 0)
        return 0;
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        char tmp[8];
        size_t tl;
        if (c == '"' || c == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)c;
            tl = 2;
        } else if (c < 0x20) {
            tl = (size_t)snprintf(tmp, sizeof tmp, "\\u%04x", c);
        } else {
            tmp[0] = (char)c;
            tl = 1;
        }
        if (n + tl >= outlen)
            break;
        memcpy(out + n, tmp, tl);
        n += tl;
    }
    out[n] = '\0';
    return n;
}

static size_t format_ts(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    n += (size_t)snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
    return n;
}

/* One write(2) a line keeps lines from different threads whole. */
static void emit(const char *line, size_t len)
{
    while (len > 0) {
        ssize_t w = write(STDOUT_FILENO, line, len);
        if (w <= 0)
            return;
        line += w;
        len -= (size_t)w;
    }
}

void imx_log(enum imx_log_level level, const char *fmt, ...)
{
    if (level < min_level)
        return;
    char msg[1024], esc[2048], ts[40], line[2300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    imx_json_escape(esc, sizeof esc, msg);
    format_ts(ts, sizeof ts);
    int n = snprintf(line, sizeof line, "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":\"%s\"}\n", ts,
                     level_names[level], esc);
    if (n > 0)
        emit(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void imx_log_access(const char *request_id, const char *method, const char *route, unsigned status,
                    double duration_ms, size_t bytes, const char *client)
{
    char ts[40], m[32], r[256], c[64], line[600];
    format_ts(ts, sizeof ts);
    imx_json_escape(m, sizeof m, method);
    imx_json_escape(r, sizeof r, route);
    imx_json_escape(c, sizeof c, client);
    int n = snprintf(line, sizeof line,
                     "{\"ts\":\"%s\",\"level\":\"info\",\"msg\":\"request\",\"request_id\":\"%s\","
                     "\"method\":\"%s\",\"route\":\"%s\",\"status\":%u,\"duration_ms\":%.3f,"
                     "\"bytes\":%zu,\"client\":\"%s\"}\n",
                     ts, request_id, m, r, status, duration_ms, bytes, c);
    if (n > 0)
        emit(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}
