/* Server configuration from IMAXE_* environment variables (secrets also from *_FILE). */
#include "util/config.h"

#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef IMX_DEFAULT_MIGRATIONS_DIR
#define IMX_DEFAULT_MIGRATIONS_DIR "migrations"
#endif
#ifndef IMX_DEFAULT_WEB_DIR
#define IMX_DEFAULT_WEB_DIR "web"
#endif
#ifndef IMX_DEFAULT_OPENAPI_PATH
#define IMX_DEFAULT_OPENAPI_PATH "api/openapi.yaml"
#endif

/* Secrets larger than this are configuration mistakes, not secrets. */
#define IMX_SECRET_MAX 8192

int imx_parse_uint(const char *s, unsigned long long min, unsigned long long max,
                   unsigned long long *out)
{
    unsigned long long v = 0;
    if (!s || !*s || strlen(s) > 20)
        return -1;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

char *imx_config_secret(const char *name, int *failed)
{
    char fname[128];
    const char *v = getenv(name);
    if (v && *v)
        return strdup(v);
    snprintf(fname, sizeof fname, "%s_FILE", name);
    const char *path = getenv(fname);
    if (!path || !*path)
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        *failed = -1;
        return NULL;
    }
    char *buf = malloc(IMX_SECRET_MAX + 1);
    size_t n = buf ? fread(buf, 1, IMX_SECRET_MAX + 1, f) : 0;
    fclose(f);
    if (!buf || n > IMX_SECRET_MAX) {
        free(buf);
        *failed = -1;
        return NULL;
    }
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    buf[n] = '\0';
    return buf;
}

/* One whole-number setting: its variable, default and bounds, and the field it sets (a bool,
 * an unsigned or a size_t, told apart by the field's size). A new setting is one row. */
struct uint_var {
    const char *name;
    unsigned long long def, min, max;
    size_t offset, size;
};
#define SETTING(env, def, min, max, field)                                                         \
    {                                                                                              \
        env, def, min, max, offsetof(struct imx_config, field),                                    \
            sizeof(((struct imx_config *)0)->field)                                                \
    }

static void setting_store(struct imx_config *cfg, const struct uint_var *v, unsigned long long x)
{
    char *field = (char *)cfg + v->offset;
    if (v->size == sizeof(bool)) {
        bool b = x != 0;
        memcpy(field, &b, sizeof b);
    } else if (v->size == sizeof(unsigned)) {
        unsigned u = (unsigned)x;
        memcpy(field, &u, sizeof u);
    } else {
        size_t z = (size_t)x;
        memcpy(field, &z, sizeof z);
    }
}

static int env_uint(const struct uint_var *v, unsigned long long *out, char *err, size_t errlen)
{
    const char *s = getenv(v->name);
    if (!s || !*s) {
        *out = v->def;
        return 0;
    }
    if (imx_parse_uint(s, v->min, v->max, out) != 0) {
        snprintf(err, errlen, "%s must be a whole number from %llu to %llu (got '%.40s')", v->name,
                 v->min, v->max, s);
        return -1;
    }
    return 0;
}

static void env_str(char *dst, size_t len, const char *name, const char *def)
{
    const char *s = getenv(name);
    snprintf(dst, len, "%s", s && *s ? s : def);
}

int imx_config_load(struct imx_config *cfg, char *err, size_t errlen)
{
    static const struct uint_var vars[] = {
        SETTING("IMAXE_PORT", 8080, 0, 65535, port),
        SETTING("IMAXE_DB_POOL_SIZE", 16, 1, 512, db_pool_size),
        SETTING("IMAXE_DB_ACQUIRE_TIMEOUT_MS", 5000, 1, 600000, db_acquire_ms),
        SETTING("IMAXE_STATEMENT_TIMEOUT_MS", 5000, 1, 3600000, statement_ms),
        SETTING("IMAXE_DB_WAIT_S", 30, 0, 3600, db_wait_s),
        SETTING("IMAXE_MAX_BODY_BYTES", 1048576, 1024, 268435456, max_body),
        SETTING("IMAXE_MAX_URL_BYTES", 8192, 256, 65536, max_url),
        SETTING("IMAXE_CONNECTION_LIMIT", 1024, 4, 65536, conn_limit),
        SETTING("IMAXE_PER_IP_CONNECTION_LIMIT", 256, 1, 65536, per_ip_limit),
        SETTING("IMAXE_CONNECTION_TIMEOUT_S", 30, 1, 3600, conn_timeout_s),
        SETTING("IMAXE_CONNECTION_MEMORY_BYTES", 65536, 8192, 16777216, conn_memory),
        SETTING("IMAXE_SHUTDOWN_TIMEOUT_S", 10, 0, 3600, shutdown_s),
        SETTING("IMAXE_ACCESS_LOG", 1, 0, 1, access_log),
        SETTING("IMAXE_JWT_TTL_S", 3600, 60, 86400, jwt_ttl_s),
        SETTING("IMAXE_LOGIN_WINDOW_S", 900, 1, 86400, login_window_s),
        SETTING("IMAXE_LOGIN_MAX_FAILURES", 5, 1, 1000, login_max_failures),
        SETTING("IMAXE_LOGIN_IP_MAX_FAILURES", 50, 1, 100000, login_ip_max_failures),
        SETTING("IMAXE_WEBHOOK_WORKERS", 2, 0, 64, webhook_workers),
        SETTING("IMAXE_WEBHOOK_TIMEOUT_MS", 15000, 100, 300000, webhook_timeout_ms),
        SETTING("IMAXE_WEBHOOK_POLL_MS", 1000, 10, 60000, webhook_poll_ms),
        SETTING("IMAXE_WEBHOOK_DISABLE_AFTER_S", 432000, 1, 31536000, webhook_disable_after_s),
        SETTING("IMAXE_SEARCH_INDEX", 1, 0, 1, search_index),
        SETTING("IMAXE_SEARCH_INDEX_WALK", 4096, 1, 1000000, search_index_walk),
        SETTING("IMAXE_EVENT_RETENTION_DAYS", 30, 1, 3650, event_retention_days),
        SETTING("IMAXE_HEADER_TIMEOUT_S", 10, 1, 3600, header_timeout_s),
        SETTING("IMAXE_BODY_MIN_BYTES_PER_S", 4096, 1, 1073741824, body_min_rate),
        SETTING("IMAXE_READING_CONNECTION_LIMIT", 256, 1, 65536, reading_limit),
        SETTING("IMAXE_PER_IP_READING_LIMIT", 32, 1, 65536, per_ip_reading_limit),
        SETTING("IMAXE_PASSWORD_SLOTS", 0, 0, 1024, password_slots),
        SETTING("IMAXE_PASSWORD_WAIT_MS", 2000, 1, 600000, password_wait_ms),
        SETTING("IMAXE_QUOTA_OPEN_REQUESTS_PER_TEAM", 100, 0, 1000000, quota_open_requests_team),
        SETTING("IMAXE_QUOTA_OPEN_REQUESTS_PER_MEMBER", 20, 0, 1000000, quota_open_requests_member),
        SETTING("IMAXE_QUOTA_COMMENTS_PER_REQUEST", 200, 0, 1000000, quota_comments_request),
        SETTING("IMAXE_RATE_LIMIT_PER_MIN", 6000, 0, 100000000, rate_limit_per_min),
        SETTING("IMAXE_QUOTA_TOKENS_PER_USER", 50, 0, 1000000, quota_tokens_user),
        SETTING("IMAXE_QUOTA_MEASUREMENTS_PER_DAY", 10000, 0, 100000000, quota_measurements_day),
        SETTING("IMAXE_ADVISORY_TIMEOUT_MS", 120000, 1000, 3600000, advisory_timeout_ms),
        SETTING("IMAXE_MAX_HEADER_BYTES", 16384, 1024, 1048576, max_header),
        SETTING("IMAXE_QUOTA_PINS_PER_TEAM", 1000, 0, 1000000, quota_pins_team),
        SETTING("IMAXE_QUOTA_WEBHOOKS_PER_TEAM", 50, 0, 100000, quota_webhooks_team),
        SETTING("IMAXE_RATE_LIMIT_SYNC_MS", 1000, 0, 60000, rate_limit_sync_ms),
        SETTING("IMAXE_READ_CACHE", 1, 0, 1, read_cache),
        SETTING("IMAXE_IDEMPOTENCY_TTL_H", 24, 1, 720, idempotency_ttl_h),
        SETTING("IMAXE_EXPORT_MAX_ROWS", 100000, 1, 10000000, export_max_rows),
        SETTING("IMAXE_QUOTA_TOKENS_PER_TEAM", 500, 0, 1000000, quota_tokens_team),
        SETTING("IMAXE_HTTP_THREADS", 0, 0, 64, http_threads),
        SETTING("IMAXE_HTTP_WORKERS", 16, 1, 1024, http_workers),
        SETTING("IMAXE_NODE_HISTORY_DAYS", 30, 1, 3650, node_history_days),
        SETTING("IMAXE_NODE_STALE_S", 900, 10, 31536000, node_stale_s),
        SETTING("IMAXE_ANSWER_STALL_S", 10, 1, 3600, answer_stall_s),
        SETTING("IMAXE_PIPELINE_MAX", 16, 1, 1000000, pipeline_max),
        SETTING("IMAXE_PARSE_BUDGET_MS", 2000, 1, 600000, parse_budget_ms),
        SETTING("IMAXE_SESSION_IDLE_S", 28800, 60, 31536000, session_idle_s),
        SETTING("IMAXE_SESSION_ABSOLUTE_S", 604800, 60, 31536000, session_absolute_s),
        SETTING("IMAXE_REFRESH_IDLE_S", 1209600, 60, 31536000, refresh_idle_s),
        SETTING("IMAXE_REFRESH_TTL_S", 2592000, 60, 31536000, refresh_ttl_s),
        SETTING("IMAXE_EOL_CHECK_S", 3600, 0, 604800, eol_check_s),
    };
    int failed = 0;

    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        unsigned long long x;
        if (env_uint(&vars[i], &x, err, errlen) != 0)
            return -1;
        setting_store(cfg, &vars[i], x);
    }
    /* libmicrohttpd answers a head that overflows its buffer itself, in HTML; below that the
     * server answers 414 / 431 as problems. Leave room for both caps and the pool's own use. */
    if (cfg->conn_memory < cfg->max_url + cfg->max_header + 8192) {
        snprintf(err, errlen,
                 "IMAXE_CONNECTION_MEMORY_BYTES (%zu) must be at least IMAXE_MAX_URL_BYTES + "
                 "IMAXE_MAX_HEADER_BYTES + 8192 (%zu)",
                 cfg->conn_memory, cfg->max_url + cfg->max_header + 8192);
        return -1;
    }
    /* 0: one event thread a CPU */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cfg->http_threads == 0)
        cfg->http_threads = cpus > 0 && cpus < 64 ? (unsigned)cpus : 4;
    env_str(cfg->cookie_secure, sizeof cfg->cookie_secure, "IMAXE_COOKIE_SECURE", "auto");
    {
        /* on/off spelled as the other switches are, or as words */
        const char *lp = getenv("IMAXE_LOCAL_PASSWORDS");
        cfg->local_passwords = !lp || !*lp || strcmp(lp, "1") == 0 || strcmp(lp, "on") == 0;
        if (lp && *lp && !cfg->local_passwords && strcmp(lp, "0") != 0 && strcmp(lp, "off") != 0) {
            snprintf(err, errlen, "IMAXE_LOCAL_PASSWORDS must be on or off (got '%.40s')", lp);
            return -1;
        }
    }

    env_str(cfg->bind, sizeof cfg->bind, "IMAXE_BIND", "127.0.0.1");
    env_str(cfg->log_level, sizeof cfg->log_level, "IMAXE_LOG_LEVEL", "info");
    env_str(cfg->migrations_dir, sizeof cfg->migrations_dir, "IMAXE_MIGRATIONS_DIR",
            IMX_DEFAULT_MIGRATIONS_DIR);
    env_str(cfg->web_dir, sizeof cfg->web_dir, "IMAXE_WEB_DIR", IMX_DEFAULT_WEB_DIR);
    env_str(cfg->openapi_path, sizeof cfg->openapi_path, "IMAXE_OPENAPI_PATH",
            IMX_DEFAULT_OPENAPI_PATH);
    env_str(cfg->webhook_schedule, sizeof cfg->webhook_schedule, "IMAXE_WEBHOOK_SCHEDULE",
            IMX_CONFIG_WEBHOOK_SCHEDULE_DEFAULT);
    env_str(cfg->webhook_allow_hosts, sizeof cfg->webhook_allow_hosts, "IMAXE_WEBHOOK_ALLOW_HOSTS",
            "");
    /* The end-of-life job's clock (server/jobs/eol.c): a test sets the date it runs for. */
    const char *today = getenv("IMAXE_EOL_TODAY");
    if (today && *today) {
        int y = 0, m = 0, d = 0;
        if (strlen(today) != 10 || strspn(today, "0123456789-") != 10 || today[4] != '-' ||
            today[7] != '-' || sscanf(today, "%4d-%2d-%2d", &y, &m, &d) != 3 || m < 1 || m > 12 ||
            d < 1 || d > 31) {
            snprintf(err, errlen, "IMAXE_EOL_TODAY must be a date, YYYY-MM-DD (got '%.40s')",
                     today);
            return -1;
        }
        snprintf(cfg->eol_today, sizeof cfg->eol_today, "%s", today);
    }

    cfg->database_url = imx_config_secret("IMAXE_DATABASE_URL", &failed);
    if (failed) {
        snprintf(err, errlen, "IMAXE_DATABASE_URL_FILE cannot be read");
        return -1;
    }
    if (!cfg->database_url) {
        snprintf(err, errlen,
                 "IMAXE_DATABASE_URL is not set (a libpq URL such as "
                 "postgresql://user@localhost/imaxe)");
        return -1;
    }
    cfg->database_read_url = imx_config_secret("IMAXE_DATABASE_READ_URL", &failed);
    if (failed) {
        snprintf(err, errlen, "IMAXE_DATABASE_READ_URL_FILE cannot be read");
        imx_config_free(cfg);
        return -1;
    }
    return 0;
}

void imx_config_free(struct imx_config *cfg)
{
    free(cfg->database_url);
    free(cfg->database_read_url);
    cfg->database_url = cfg->database_read_url = NULL;
}
