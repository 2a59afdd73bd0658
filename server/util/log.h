/* One-line JSON logs on stdout: access lines and application events. */
#ifndef IMX_LOG_H
#define IMX_LOG_H

#include <stddef.h>

enum imx_log_level { IMX_LOG_DEBUG, IMX_LOG_INFO, IMX_LOG_WARN, IMX_LOG_ERROR };

/* Sets the lowest level written ("debug", "info", "warn", "error"); unknown names keep info. */
void imx_log_set_level(const char *name);

/* Writes {"ts","level","msg",...}; fmt/args form msg. Thread-safe, one write per line. */
void imx_log(enum imx_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes one access-log line for a finished request. */
void imx_log_access(const char *request_id, const char *method, const char *route, unsigned status,
                    double duration_ms, size_t bytes, const char *client);

/* Appends s to out as the inside of a JSON string (escaped), at most outlen-1 bytes,
 * NUL-terminated. Returns the number of bytes written. */
size_t imx_json_escape(char *out, size_t outlen, const char *s);

#define imx_debug(...) imx_log(IMX_LOG_DEBUG, __VA_ARGS__)
#define imx_info(...)  imx_log(IMX_LOG_INFO, __VA_ARGS__)
#define imx_warn(...)  imx_log(IMX_LOG_WARN, __VA_ARGS__)
#define imx_error(...) imx_log(IMX_LOG_ERROR, __VA_ARGS__)

#endif
