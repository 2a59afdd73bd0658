/* imaxe-server: start-up, configuration, migrations, signals and drain.
 *   imaxe-server [serve]   migrate, then serve until SIGTERM/SIGINT
 *   imaxe-server migrate   apply migrations and exit
 *   imaxe-server worker    migrate, then run only the webhook dispatcher until SIGTERM/SIGINT
 *   imaxe-server recompute-compat   migrate, then compute the compatibility report of every
 *                          image that has none yet (images loaded with SQL, e.g. the demo)
 *   imaxe-server reference import DIR [--dry-run] | reference export DIR
 *                          migrate, then load (or write) the reference tables as CSV files
 *                          (server/cli/reference.c)
 *   imaxe-server version   print the version
 * Under systemd (Type=notify) it reports READY=1 once migrated and listening, STOPPING=1 on
 * SIGTERM/SIGINT; sd_notify does nothing when NOTIFY_SOCKET is unset. */
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "api/costs_common.h"
#include "api/cursor.h"
#include "api/export.h"
#include "api/idempotency.h"
#include "auth/auth.h"
#include "cli/admin.h"
#include "cli/reference.h"
#include "db/advisories.h"
#include "db/idempotency.h"
#include "db/image_index.h"
#include "db/images.h"
#include "db/migrate.h"
#include "db/pool.h"
#include "db/reference.h"
#include "domain/compat.h"
#include "http/metrics.h"
#include "http/ratelimit.h"
#include "http/router.h"
#include "http/server.h"
#include "auth/docsign.h"
#include "jobs/eol.h"
#include "jobs/exposure.h"
#include "jobs/ratelimit_sync.h"
#include "jobs/revocations.h"
#include "api/costs_common.h"
#include "util/config.h"
#include "util/log.h"
#include "webhooks/dispatcher.h"
#include "webhooks/retry.h"

#ifndef IMX_VERSION
#define IMX_VERSION "dev"
#endif

#define OPENAPI_MAX_BYTES (8 * 1024 * 1024)

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

static int run_migrations(const struct imx_config *cfg)
{
    char err[1024];
    int latest = 0;
    sd_notify(0, "STATUS=applying migrations");
    if (imx_db_migrate(cfg->database_url, cfg->db_wait_s, cfg->migrations_dir, &latest, err,
                       sizeof err) != 0) {
        imx_error("%s; the server will not start until the migration is fixed", err);
        return -1;
    }
    imx_server_info.migrations_expected = latest;
    return 0;
}

/* Loads the OpenAPI document (JSON) for /openapi.json; the server runs without it. */
static void load_openapi(const char *path)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        imx_warn("OpenAPI document %s not loaded (%s): /openapi.json answers 404", path, jerr.text);
        return;
    }
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    if (text && strlen(text) <= OPENAPI_MAX_BYTES) {
        imx_server_info.openapi_json = text;
        imx_server_info.openapi_len = strlen(text);
    } else {
        free(text);
    }
}

/* Computes one pending image's report into its row. Returns 0 or -1. */
static int recompute_one(struct imx_db_conn *c, const struct imx_ref_snapshot *ref,
                         const json_t *img, const char *today)
{
    json_t *doc = imx_compat_report_of_json(ref, json_object_get(img, "components"),
                                            json_object_get(img, "gpus"), today);
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    long long id = json_integer_value(json_object_get(img, "id"));
    int rc = text && imx_db_image_set_compat(c, id, text) == IMX_DBS_OK ? 0 : -1;
    free(text);
    return rc;
}

/* imaxe-server recompute-compat: reports for every image whose report is still empty. */
static int recompute_compat(const struct imx_config *cfg)
{
    char err[256], today[16];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(today, sizeof today, "%Y-%m-%d", &tm);
    if (imx_db_pool_init(cfg->database_url, 1, cfg->db_acquire_ms, cfg->statement_ms) != 0)
        return 1;
    enum imx_db_status why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    const struct imx_ref_snapshot *ref = c ? imx_db_ref_acquire(c, err, sizeof err) : NULL;
    int rc = ref ? 0 : 1, done = 0;
    if (!ref)
        imx_error("recompute-compat: cannot read the reference data");
    while (rc == 0) {
        char *text = NULL;
        if (imx_db_image_compat_pending(c, 500, &text) != IMX_DBS_OK) {
            rc = 1;
            break;
        }
        json_t *list = json_loads(text, 0, NULL);
        free(text);
        size_t i;
        json_t *img;
        json_array_foreach(list, i, img)
        {
            if (recompute_one(c, ref, img, today) != 0) {
                rc = 1;
                break;
            }
            done++;
        }
        size_t n = json_array_size(list);
        json_decref(list);
        if (n == 0)
            break;
    }
    imx_info("recompute-compat: %d compatibility reports computed%s", done,
             rc ? " before an error" : "");
    imx_db_ref_release(ref);
    imx_db_ref_cache_clear();
    imx_db_release(c);
    imx_db_pool_shutdown();
    return rc;
}

/* The due-revocation sweep runs where the webhook dispatcher runs (serve with
 * IMAXE_WEBHOOK_WORKERS > 0, or worker), once per IMAXE_WEBHOOK_POLL_MS, as it did when the
 * dispatcher's first thread ran it: a deployment keeps the process that sweeps. */
static unsigned revocation_interval_ms(const struct imx_config *cfg)
{
    return cfg->webhook_workers > 0 ? cfg->webhook_poll_ms : 0;
}

static int serve(const struct imx_config *cfg, sigset_t *sigs)
{
    char err[512];
    if (imx_router_check(err, sizeof err) != 0) {
        imx_error("route table: %s", err);
        return 1;
    }
    if (imx_docsign_ephemeral())
        imx_info("VEX signing key made for this process (set IMAXE_VEX_SIGNING_KEY_FILE to keep "
                 "one across restarts)");
    struct imx_auth_keys keys;
    if (imx_auth_init(cfg, &keys, err, sizeof err) != 0) {
        imx_auth_keys_clear(&keys);
        imx_error("%s", err);
        return 1;
    }
    int keyed = imx_cursor_set_key(keys.cursor, sizeof keys.cursor);
    imx_api_idempotency_set_keys(keys.seal, keys.has_previous ? keys.seal_previous : NULL);
    imx_auth_keys_clear(&keys);
    if (keyed != 0) {
        imx_error("cannot set the cursor key");
        return 1;
    }
    if (imx_api_webhooks_init(cfg, err, sizeof err) != 0) {
        imx_error("%s", err);
        return 1;
    }
    load_openapi(cfg->openapi_path);
    if (imx_metrics_init() != 0 || imx_db_pool_init(cfg->database_url, cfg->db_pool_size,
                                                    cfg->db_acquire_ms, cfg->statement_ms) != 0) {
        imx_error("out of memory at start-up");
        return 1;
    }
    /* The replica gets a pool of the same size: reads are most of the traffic. */
    if (cfg->database_read_url) {
        if (imx_db_read_pool_init(cfg->database_read_url, cfg->db_pool_size, cfg->db_acquire_ms,
                                  cfg->statement_ms) != 0) {
            imx_error("out of memory at start-up");
            return 1;
        }
        imx_info("reads that may lag go to the read replica (IMAXE_DATABASE_READ_URL)");
    }
    if (imx_auth_bootstrap(err, sizeof err) != 0) {
        imx_error("%s", err);
        imx_db_pool_shutdown();
        return 1;
    }
    if (imx_db_image_index_start(cfg->search_index, cfg->search_index_walk) != 0) {
        imx_error("cannot start the search index loader");
        imx_db_pool_shutdown();
        return 1;
    }
    imx_api_catalog_team = getenv("IMAXE_CATALOG_TEAM");
    if (imx_api_catalog_team && !*imx_api_catalog_team)
        imx_api_catalog_team = NULL;
    imx_db_advisory_set_timeout(cfg->advisory_timeout_ms);
    imx_api_quotas = (struct imx_api_quotas){
        .open_requests_per_team = cfg->quota_open_requests_team,
        .open_requests_per_member = cfg->quota_open_requests_member,
        .comments_per_request = cfg->quota_comments_request,
        .tokens_per_user = cfg->quota_tokens_user,
        .tokens_per_team = cfg->quota_tokens_team,
        .measurements_per_day = cfg->quota_measurements_day,
        .pins_per_team = cfg->quota_pins_team,
        .webhooks_per_team = cfg->quota_webhooks_team,
    };
    imx_http_auth_hook = imx_auth_authenticate;
    imx_http_fast_auth_hook = imx_auth_remembered;
    imx_http_create_hook = imx_api_idempotent;
    imx_http_release_hook = imx_api_db_done;
    imx_api_export_max_rows = cfg->export_max_rows;
    imx_api_nodes.history_days = cfg->node_history_days;
    imx_api_nodes.stale_s = cfg->node_stale_s;
    imx_db_pools_open();
    if (imx_http_start(cfg, err, sizeof err) != 0) {
        imx_error("%s", err);
        return 1;
    }
    imx_info("imaxe %s listening on http://%s:%u/", IMX_VERSION, cfg->bind, imx_http_port());
    if (imx_ratelimit_sync_start(cfg->rate_limit_per_min, cfg->rate_limit_sync_ms,
                                 imx_ratelimit_reconcile) != 0) {
        imx_error("cannot start the rate-limit reconciler");
        imx_http_stop();
        imx_db_pool_shutdown();
        return 1;
    }
    if (imx_webhooks_start(cfg, err, sizeof err) != 0) {
        imx_error("%s", err);
        imx_http_stop();
        imx_db_pool_shutdown();
        return 1;
    }
    if (imx_eol_job_start(cfg) != 0) {
        imx_webhooks_stop(0);
        imx_http_stop();
        imx_db_pool_shutdown();
        return 1;
    }
    if (imx_revocation_job_start(revocation_interval_ms(cfg)) != 0 ||
        imx_exposure_job_start() != 0) {
        imx_error("cannot start the scheduled-revocation sweep or the exposure snapshots");
        imx_revocation_job_stop();
        imx_eol_job_stop();
        imx_webhooks_stop(0);
        imx_http_stop();
        imx_db_pool_shutdown();
        return 1;
    }
    sd_notifyf(0, "READY=1\nSTATUS=serving on %s:%u", cfg->bind, imx_http_port());

    int sig = 0;
    sigwait(sigs, &sig);
    sd_notify(0, "STOPPING=1\nSTATUS=draining");
    imx_info("received %s: draining (up to %us)", sig == SIGTERM ? "SIGTERM" : "SIGINT",
             cfg->shutdown_s);
    imx_http_quiesce();
    for (long waited = 0; imx_http_in_flight() > 0 && waited < (long)cfg->shutdown_s * 1000;
         waited += 20)
        sleep_ms(20);
    long left = imx_http_in_flight();
    imx_http_stop();
    imx_ratelimit_sync_stop();
    imx_eol_job_stop();
    imx_revocation_job_stop();
    imx_exposure_job_stop();
    imx_webhooks_stop(cfg->shutdown_s * 1000);
    imx_db_image_index_stop();
    imx_db_pool_shutdown();
    if (left > 0)
        imx_warn("stopped with %ld requests unfinished after the drain timeout", left);
    imx_info("stopped");
    return 0;
}

/* Runs only the webhook dispatcher (no HTTP), with a small pool of its own. */
static int work(const struct imx_config *cfg, sigset_t *sigs)
{
    char err[512];
    if (cfg->webhook_workers == 0) {
        imx_error("IMAXE_WEBHOOK_WORKERS is 0: the worker has nothing to do");
        return 1;
    }
    if (imx_db_pool_init(cfg->database_url, cfg->webhook_workers + 1, cfg->db_acquire_ms,
                         cfg->statement_ms) != 0) {
        imx_error("out of memory at start-up");
        return 1;
    }
    if (imx_webhooks_start(cfg, err, sizeof err) != 0) {
        imx_error("%s", err);
        imx_db_pool_shutdown();
        return 1;
    }
    if (imx_revocation_job_start(revocation_interval_ms(cfg)) != 0) {
        imx_error("cannot start the scheduled-revocation sweep");
        imx_webhooks_stop(0);
        imx_db_pool_shutdown();
        return 1;
    }
    int sig = 0;
    sigwait(sigs, &sig);
    imx_info("received %s: finishing deliveries in flight (up to %us)",
             sig == SIGTERM ? "SIGTERM" : "SIGINT", cfg->shutdown_s);
    imx_revocation_job_stop();
    imx_webhooks_stop(cfg->shutdown_s * 1000);
    imx_db_pool_shutdown();
    imx_info("stopped");
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "serve";
    struct imx_config cfg;
    char err[512];

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("imaxe-server %s\n", IMX_VERSION);
        return 0;
    }
    if (strcmp(cmd, "serve") != 0 && strcmp(cmd, "migrate") != 0 && strcmp(cmd, "worker") != 0 &&
        strcmp(cmd, "recompute-compat") != 0 && strcmp(cmd, "reference") != 0 &&
        strcmp(cmd, "admin") != 0) {
        fprintf(stderr, "usage: imaxe-server [serve|worker|migrate|recompute-compat|reference|"
                        "admin|version]\n");
        return 2;
    }

    /* Signals are taken synchronously by the main thread; every other thread blocks them. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    json_object_seed(0);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        imx_error("libcurl cannot initialise");
        return 1;
    }

    if (imx_config_load(&cfg, err, sizeof err) != 0 ||
        imx_webhooks_config_check(&cfg, err, sizeof err) != 0 ||
        imx_docsign_init(err, sizeof err) != 0) {
        imx_error("configuration: %s", err);
        return 1;
    }
    imx_log_set_level(cfg.log_level);
    imx_db_idempotency_set_ttl(cfg.idempotency_ttl_h);
    imx_db_set_node_stale_s(cfg.node_stale_s);
    int rc = run_migrations(&cfg) == 0 ? 0 : 1;
    if (rc == 0 && strcmp(cmd, "serve") == 0)
        rc = serve(&cfg, &sigs);
    else if (rc == 0 && strcmp(cmd, "worker") == 0)
        rc = work(&cfg, &sigs);
    else if (rc == 0 && strcmp(cmd, "recompute-compat") == 0)
        rc = recompute_compat(&cfg);
    else if (rc == 0 && strcmp(cmd, "reference") == 0)
        rc = imx_cli_reference(&cfg, argc - 2, argv + 2);
    else if (rc == 0 && strcmp(cmd, "admin") == 0)
        rc = imx_cli_admin(&cfg, argc - 2, argv + 2);
    imx_config_free(&cfg);
    imx_docsign_free();
    free((char *)imx_server_info.openapi_json);
    curl_global_cleanup();
    return rc;
}
