/* Server configuration from IMAXE_* environment variables (secrets also from *_FILE). */
#ifndef IMX_CONFIG_H
#define IMX_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* The webhook retry delays when IMAXE_WEBHOOK_SCHEDULE is unset (checked by
 * imx_webhooks_config_check, webhooks/retry.h). */
#define IMX_CONFIG_WEBHOOK_SCHEDULE_DEFAULT "5,300,1800,7200,18000,36000,36000"

struct imx_config {
    char bind[64];             /* IMAXE_BIND: address to listen on */
    unsigned port;             /* IMAXE_PORT */
    char *database_url;        /* IMAXE_DATABASE_URL(_FILE); new string */
    char *database_read_url;   /* IMAXE_DATABASE_READ_URL(_FILE); new string or NULL */
    unsigned db_pool_size;     /* IMAXE_DB_POOL_SIZE: connections per replica */
    unsigned db_acquire_ms;    /* IMAXE_DB_ACQUIRE_TIMEOUT_MS: wait for a free connection */
    unsigned statement_ms;     /* IMAXE_STATEMENT_TIMEOUT_MS */
    unsigned db_wait_s;        /* IMAXE_DB_WAIT_S: how long start-up waits for PostgreSQL */
    size_t max_body;           /* IMAXE_MAX_BODY_BYTES */
    size_t max_url;            /* IMAXE_MAX_URL_BYTES: the request target, query included */
    size_t max_header;         /* IMAXE_MAX_HEADER_BYTES: the header lines of a request */
    unsigned conn_limit;       /* IMAXE_CONNECTION_LIMIT */
    unsigned http_threads;     /* IMAXE_HTTP_THREADS: libmicrohttpd's event threads */
    unsigned http_workers;     /* IMAXE_HTTP_WORKERS: threads that run handlers */
    unsigned per_ip_limit;     /* IMAXE_PER_IP_CONNECTION_LIMIT */
    unsigned conn_timeout_s;   /* IMAXE_CONNECTION_TIMEOUT_S: idle connection timeout */
    unsigned header_timeout_s; /* IMAXE_HEADER_TIMEOUT_S: whole time to send request headers */
    unsigned body_min_rate;    /* IMAXE_BODY_MIN_BYTES_PER_S: slowest body accepted */
    unsigned reading_limit;    /* IMAXE_READING_CONNECTION_LIMIT: connections reading a request */
    unsigned per_ip_reading_limit; /* IMAXE_PER_IP_READING_LIMIT: the same, per address */
    unsigned answer_stall_s;       /* IMAXE_ANSWER_STALL_S: an answer the client takes nothing of */
    unsigned pipeline_max;         /* IMAXE_PIPELINE_MAX: answers queued unread on one connection */
    unsigned parse_budget_ms; /* IMAXE_PARSE_BUDGET_MS: CPU a request may spend reading documents */
    unsigned eol_check_s;     /* IMAXE_EOL_CHECK_S: end-of-life announcements (0: never) */
    unsigned password_slots;  /* IMAXE_PASSWORD_SLOTS: Argon2id at once; 0 = half the cores */
    unsigned password_wait_ms;           /* IMAXE_PASSWORD_WAIT_MS: wait for a slot before 503 */
    unsigned quota_open_requests_team;   /* IMAXE_QUOTA_OPEN_REQUESTS_PER_TEAM */
    unsigned quota_open_requests_member; /* IMAXE_QUOTA_OPEN_REQUESTS_PER_MEMBER */
    unsigned quota_comments_request;     /* IMAXE_QUOTA_COMMENTS_PER_REQUEST */
    unsigned rate_limit_per_min;         /* IMAXE_RATE_LIMIT_PER_MIN: per caller, 0 = off */
    unsigned quota_tokens_user;          /* IMAXE_QUOTA_TOKENS_PER_USER: active API tokens */
    unsigned quota_tokens_team;          /* IMAXE_QUOTA_TOKENS_PER_TEAM: the same, per team */
    unsigned quota_measurements_day;     /* IMAXE_QUOTA_MEASUREMENTS_PER_DAY: per team */
    unsigned quota_pins_team;            /* IMAXE_QUOTA_PINS_PER_TEAM */
    unsigned quota_webhooks_team;        /* IMAXE_QUOTA_WEBHOOKS_PER_TEAM */
    unsigned rate_limit_sync_ms;   /* IMAXE_RATE_LIMIT_SYNC_MS: buckets reconcile this often */
    size_t conn_memory;            /* IMAXE_CONNECTION_MEMORY_BYTES: per-connection buffer */
    unsigned shutdown_s;           /* IMAXE_SHUTDOWN_TIMEOUT_S: drain bound on SIGTERM */
    bool access_log;               /* IMAXE_ACCESS_LOG */
    bool search_index;             /* IMAXE_SEARCH_INDEX: answer searches from memory */
    unsigned event_retention_days; /* IMAXE_EVENT_RETENTION_DAYS: keep sent events this long */
    unsigned
        advisory_timeout_ms; /* IMAXE_ADVISORY_TIMEOUT_MS: statement limit of advisory writes */
    /* IMAXE_READ_CACHE: signed-in reads use the principal cache and the stored image documents
     * (0: every request checks its principal and builds documents from scratch, as the tests'
     * reference server does) */
    bool read_cache;
    unsigned search_index_walk;  /* IMAXE_SEARCH_INDEX_WALK: images a page walks before gathering */
    unsigned idempotency_ttl_h;  /* IMAXE_IDEMPOTENCY_TTL_H: how long a key replays its reply */
    unsigned export_max_rows;    /* IMAXE_EXPORT_MAX_ROWS: most rows of a CSV/NDJSON export */
    unsigned node_history_days;  /* IMAXE_NODE_HISTORY_DAYS: node report history kept */
    unsigned node_stale_s;       /* IMAXE_NODE_STALE_S: a node unheard of this long is stale */
    char log_level[16];          /* IMAXE_LOG_LEVEL */
    char migrations_dir[512];    /* IMAXE_MIGRATIONS_DIR */
    char web_dir[512];           /* IMAXE_WEB_DIR */
    char openapi_path[512];      /* IMAXE_OPENAPI_PATH */
    unsigned jwt_ttl_s;          /* IMAXE_JWT_TTL_S: lifetime of access tokens */
    unsigned login_window_s;     /* IMAXE_LOGIN_WINDOW_S: the window failed logins are counted in */
    unsigned login_max_failures; /* IMAXE_LOGIN_MAX_FAILURES: per account and window */
    unsigned login_ip_max_failures; /* IMAXE_LOGIN_IP_MAX_FAILURES: per address and window */
    /* Webhook dispatcher (server/webhooks/). */
    unsigned webhook_workers;         /* IMAXE_WEBHOOK_WORKERS: dispatcher threads, 0 = none */
    unsigned webhook_timeout_ms;      /* IMAXE_WEBHOOK_TIMEOUT_MS: whole request, per attempt */
    unsigned webhook_poll_ms;         /* IMAXE_WEBHOOK_POLL_MS: look for due retries this often */
    unsigned webhook_disable_after_s; /* IMAXE_WEBHOOK_DISABLE_AFTER_S: failing this long */
    char webhook_schedule[256];       /* IMAXE_WEBHOOK_SCHEDULE: retry delays, seconds */
    char webhook_allow_hosts[2048];   /* IMAXE_WEBHOOK_ALLOW_HOSTS: host:port,... */
    /* Sessions that last (server/auth/session.h). */
    unsigned session_idle_s;     /* IMAXE_SESSION_IDLE_S: a web session unused this long ends */
    unsigned session_absolute_s; /* IMAXE_SESSION_ABSOLUTE_S: a web session's whole lifetime */
    unsigned refresh_idle_s;     /* IMAXE_REFRESH_IDLE_S: a CLI sign-in unused this long ends */
    unsigned refresh_ttl_s;      /* IMAXE_REFRESH_TTL_S: a CLI sign-in's whole lifetime */
    char cookie_secure[8];       /* IMAXE_COOKIE_SECURE: auto, on or off */
    bool local_passwords;        /* IMAXE_LOCAL_PASSWORDS: imaxe passwords sign in (0: SSO only) */
    char eol_today[11];          /* IMAXE_EOL_TODAY: the end-of-life job's date ("": today) */
};

/* Fills cfg from the environment. Returns 0, or -1 with a message in err. */
int imx_config_load(struct imx_config *cfg, char *err, size_t errlen);

/* Frees the strings cfg owns. */
void imx_config_free(struct imx_config *cfg);

/* Reads variable NAME, or the file named by NAME_FILE (trailing newline removed).
 * Returns a new string, NULL when neither is set; -1 in *failed when the file cannot be read. */
char *imx_config_secret(const char *name, int *failed);

/* Parses a decimal unsigned integer in [min, max]. Returns 0 or -1 (bad text or out of range). */
int imx_parse_uint(const char *s, unsigned long long min, unsigned long long max,
                   unsigned long long *out);

#endif
