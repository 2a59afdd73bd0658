/* Server configuration from IMAXE_* environment variables (secrets also from *_FILE). */
#include "util/config.h"

#include <errno.h>
#include <stdio.h>
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

struct uint_var {
    const char *name;
    unsigned long long def, min, max;
};

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
        { "IMAXE_PORT", 8080, 0, 65535 },
        { "IMAXE_DB_POOL_SIZE", 16, 1, 512 },
        { "IMAXE_DB_ACQUIRE_TIMEOUT_MS", 5000, 1, 600000 },
        { "IMAXE_STATEMENT_TIMEOUT_MS", 5000, 1, 3600000 },
        { "IMAXE_DB_WAIT_S", 30, 0, 3600 },
        { "IMAXE_MAX_BODY_BYTES", 1048576, 1024, 268435456 },
        { "IMAXE_MAX_URL_BYTES", 8192, 256, 65536 },
        { "IMAXE_CONNECTION_LIMIT", 1024, 4, 65536 },
        { "IMAXE_PER_IP_CONNECTION_LIMIT", 256, 1, 65536 },
        { "IMAXE_CONNECTION_TIMEOUT_S", 30, 1, 3600 },
        { "IMAXE_CONNECTION_MEMORY_BYTES", 65536, 8192, 16777216 },
        { "IMAXE_SHUTDOWN_TIMEOUT_S", 10, 0, 3600 },
        { "IMAXE_ACCESS_LOG", 1, 0, 1 },
        { "IMAXE_JWT_TTL_S", 3600, 60, 86400 },
        { "IMAXE_LOGIN_WINDOW_S", 900, 1, 86400 },
        { "IMAXE_LOGIN_MAX_FAILURES", 5, 1, 1000 },
        { "IMAXE_LOGIN_IP_MAX_FAILURES", 50, 1, 100000 },
        { "IMAXE_WEBHOOK_WORKERS", 2, 0, 64 },
        { "IMAXE_WEBHOOK_TIMEOUT_MS", 15000, 100, 300000 },
        { "IMAXE_WEBHOOK_POLL_MS", 1000, 10, 60000 },
        { "IMAXE_WEBHOOK_DISABLE_AFTER_S", 432000, 1, 31536000 },
        { "IMAXE_SEARCH_INDEX", 1, 0, 1 },
        { "IMAXE_SEARCH_INDEX_WALK", 4096, 1, 1000000 },
        { "IMAXE_EVENT_RETENTION_DAYS", 30, 1, 3650 },
        { "IMAXE_HEADER_TIMEOUT_S", 10, 1, 3600 },
        { "IMAXE_BODY_MIN_BYTES_PER_S", 4096, 1, 1073741824 },
        { "IMAXE_READING_CONNECTION_LIMIT", 256, 1, 65536 },
        { "IMAXE_PER_IP_READING_LIMIT", 32, 1, 65536 },
        { "IMAXE_PASSWORD_SLOTS", 0, 0, 1024 },
        { "IMAXE_PASSWORD_WAIT_MS", 2000, 1, 600000 },
        { "IMAXE_QUOTA_OPEN_REQUESTS_PER_TEAM", 100, 0, 1000000 },
        { "IMAXE_QUOTA_OPEN_REQUESTS_PER_MEMBER", 20, 0, 1000000 },
        { "IMAXE_QUOTA_COMMENTS_PER_REQUEST", 200, 0, 1000000 },
        { "IMAXE_RATE_LIMIT_PER_MIN", 6000, 0, 100000000 },
        { "IMAXE_QUOTA_TOKENS_PER_USER", 50, 0, 1000000 },
        { "IMAXE_QUOTA_MEASUREMENTS_PER_DAY", 10000, 0, 100000000 },
        { "IMAXE_ADVISORY_TIMEOUT_MS", 120000, 1000, 3600000 },
        { "IMAXE_MAX_HEADER_BYTES", 16384, 1024, 1048576 },
        { "IMAXE_QUOTA_PINS_PER_TEAM", 1000, 0, 1000000 },
        { "IMAXE_QUOTA_WEBHOOKS_PER_TEAM", 50, 0, 100000 },
        { "IMAXE_RATE_LIMIT_SYNC_MS", 1000, 0, 60000 },
        { "IMAXE_READ_CACHE", 1, 0, 1 },
        { "IMAXE_IDEMPOTENCY_TTL_H", 24, 1, 720 },
        { "IMAXE_EXPORT_MAX_ROWS", 100000, 1, 10000000 },
        { "IMAXE_QUOTA_TOKENS_PER_TEAM", 500, 0, 1000000 },
        { "IMAXE_HTTP_THREADS", 0, 0, 64 },
        { "IMAXE_HTTP_WORKERS", 16, 1, 1024 },
        { "IMAXE_NODE_HISTORY_DAYS", 30, 1, 3650 },
        { "IMAXE_NODE_STALE_S", 900, 10, 31536000 },
        { "IMAXE_ANSWER_STALL_S", 10, 1, 3600 },
        { "IMAXE_PIPELINE_MAX", 16, 1, 1000000 },
        { "IMAXE_PARSE_BUDGET_MS", 2000, 1, 600000 },
    };
    unsigned long long v[sizeof vars / sizeof vars[0]];
    int failed = 0;

    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (env_uint(&vars[i], &v[i], err, errlen) != 0)
            return -1;
    cfg->port = (unsigned)v[0];
    cfg->db_pool_size = (unsigned)v[1];
    cfg->db_acquire_ms = (unsigned)v[2];
    cfg->statement_ms = (unsigned)v[3];
    cfg->db_wait_s = (unsigned)v[4];
    cfg->max_body = (size_t)v[5];
    cfg->max_url = (size_t)v[6];
    cfg->conn_limit = (unsigned)v[7];
    cfg->per_ip_limit = (unsigned)v[8];
    cfg->conn_timeout_s = (unsigned)v[9];
    cfg->conn_memory = (size_t)v[10];
    cfg->shutdown_s = (unsigned)v[11];
    cfg->access_log = v[12] != 0;
    cfg->jwt_ttl_s = (unsigned)v[13];
    cfg->login_window_s = (unsigned)v[14];
    cfg->login_max_failures = (unsigned)v[15];
    cfg->login_ip_max_failures = (unsigned)v[16];
    cfg->webhook_workers = (unsigned)v[17];
    cfg->webhook_timeout_ms = (unsigned)v[18];
    cfg->webhook_poll_ms = (unsigned)v[19];
    cfg->webhook_disable_after_s = (unsigned)v[20];
    cfg->search_index = v[21] != 0;
    cfg->search_index_walk = (unsigned)v[22];
    cfg->event_retention_days = (unsigned)v[23];
    cfg->header_timeout_s = (unsigned)v[24];
    cfg->body_min_rate = (unsigned)v[25];
    cfg->reading_limit = (unsigned)v[26];
    cfg->per_ip_reading_limit = (unsigned)v[27];
    cfg->password_slots = (unsigned)v[28];
    cfg->password_wait_ms = (unsigned)v[29];
    cfg->quota_open_requests_team = (unsigned)v[30];
    cfg->quota_open_requests_member = (unsigned)v[31];
    cfg->quota_comments_request = (unsigned)v[32];
    cfg->rate_limit_per_min = (unsigned)v[33];
    cfg->quota_tokens_user = (unsigned)v[34];
    cfg->quota_measurements_day = (unsigned)v[35];
    cfg->advisory_timeout_ms = (unsigned)v[36];
    cfg->max_header = (size_t)v[37];
    cfg->quota_pins_team = (unsigned)v[38];
    cfg->quota_webhooks_team = (unsigned)v[39];
    cfg->rate_limit_sync_ms = (unsigned)v[40];
    cfg->read_cache = v[41] != 0;
    /* libmicrohttpd answers a head that overflows its buffer itself, in HTML; below that the
     * server answers 414 / 431 as problems. Leave room for both caps and the pool's own use. */
    if (cfg->conn_memory < cfg->max_url + cfg->max_header + 8192) {
        snprintf(err, errlen,
                 "IMAXE_CONNECTION_MEMORY_BYTES (%zu) must be at least IMAXE_MAX_URL_BYTES + "
                 "IMAXE_MAX_HEADER_BYTES + 8192 (%zu)",
                 cfg->conn_memory, cfg->max_url + cfg->max_header + 8192);
        return -1;
    }
    cfg->idempotency_ttl_h = (unsigned)v[42];
    cfg->export_max_rows = (unsigned)v[43];
    cfg->quota_tokens_team = (unsigned)v[44];
    /* 0: one event thread a CPU */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cfg->http_threads = v[45] ? (unsigned)v[45] : cpus > 0 && cpus < 64 ? (unsigned)cpus : 4;
    cfg->http_workers = (unsigned)v[46];
    cfg->node_history_days = (unsigned)v[47];
    cfg->node_stale_s = (unsigned)v[48];
    cfg->answer_stall_s = (unsigned)v[49];
    cfg->pipeline_max = (unsigned)v[50];
    cfg->parse_budget_ms = (unsigned)v[51];

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
