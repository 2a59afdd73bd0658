/* Liveness, readiness, Prometheus metrics and the OpenAPI document. */
#include "api/api.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "auth/password.h"
#include "db/advisories.h"
#include "db/image_docs.h"
#include "db/images.h"
#include "db/image_index.h"
#include "db/migrate.h"
#include "db/pins.h"
#include "http/guard.h"
#include "http/metrics.h"
#include "http/server.h"
#include "http/workers.h"
#include "util/config.h"
#include "webhooks/dispatcher.h"

struct imx_server_info imx_server_info;

void imx_api_livez(struct imx_req *r)
{
    imx_reply_text(r, 200, "application/json", "{\"status\":\"ok\"}");
}

/* readyz's checks on *c, a connection it takes (and the caller gives back): its own replies for
 * an unavailable database, not imx_api_db's 503 problems. */
static void readyz(struct imx_req *r, struct imx_db_conn **c)
{
    if (imx_http_draining()) {
        imx_reply_problem(r, IMX_E_NOT_READY, "The server is shutting down");
        return;
    }
    enum imx_db_status why;
    *c = imx_db_acquire(&why);
    if (!*c) {
        imx_reply_problem(r, IMX_E_NOT_READY,
                          why == IMX_DBS_BUSY ? "Every database connection is busy"
                                              : "The database cannot be reached");
        return;
    }
    unsigned long long applied = 0;
    if (imx_db_migrations_applied(*c, &applied) != IMX_DBS_OK) {
        imx_reply_problem(r, IMX_E_NOT_READY, "The database cannot be queried");
        return;
    }
    if ((int)applied < imx_server_info.migrations_expected) {
        imx_reply_problem(r, IMX_E_NOT_READY, "Migrations are behind: %llu applied, %d expected",
                          applied, imx_server_info.migrations_expected);
        return;
    }
    json_t *doc =
        json_pack("{s:s, s:s, s:{s:I, s:i}}", "status", "ready", "database", "ok", "migrations",
                  "applied", (json_int_t)applied, "expected", imx_server_info.migrations_expected);

    /* With a read replica, searches depend on it too: it must answer and carry the schema. */
    if (imx_db_has_read_pool()) {
        imx_db_release(*c);
        *c = imx_db_acquire_read(&why);
        unsigned long long replica_applied = 0;
        if (!*c || imx_db_migrations_applied(*c, &replica_applied) != IMX_DBS_OK) {
            json_decref(doc);
            imx_reply_problem(r, IMX_E_NOT_READY, "The read replica cannot be queried");
            return;
        }
        if ((int)replica_applied < imx_server_info.migrations_expected) {
            json_decref(doc);
            imx_reply_problem(r, IMX_E_NOT_READY,
                              "The read replica is behind: %llu migrations applied, %d expected",
                              replica_applied, imx_server_info.migrations_expected);
            return;
        }
        json_object_set_new(doc, "read_database", json_string("ok"));
    }
    imx_reply_json_steal(r, 200, doc);
}

void imx_api_readyz(struct imx_req *r)
{
    struct imx_db_conn *c = NULL;
    readyz(r, &c);
    imx_db_release(c);
}

void imx_api_metrics(struct imx_req *r)
{
    struct imx_db_pool_stats ps, bs;
    imx_db_pool_stats(&ps);
    imx_db_batch_pool_stats(&bs);
    struct imx_db_image_index_stats ix;
    imx_db_image_index_stats(&ix);
    long long pending, events;
    imx_webhooks_outbox(&pending, &events);
    struct imx_guard_stats gs;
    imx_guard_stats(&gs);
    unsigned long long doc_reads, doc_reads_docs;
    imx_db_image_doc_stats(&doc_reads, &doc_reads_docs);
    unsigned long long compare_reads, compare_reads_compares;
    imx_db_compare_stats(&compare_reads, &compare_reads_compares);
    unsigned long long family_reads, family_resolves, pin_reads, pin_resolves;
    imx_db_resolve_stats(&family_reads, &family_resolves);
    imx_db_pin_resolve_stats(&pin_reads, &pin_resolves);
    unsigned long long patch_reads, patch_docs;
    imx_db_image_patch_stats(&patch_reads, &patch_docs);
    unsigned long long pin_doc_reads, pin_docs;
    imx_db_pin_read_stats(&pin_doc_reads, &pin_docs);
    unsigned long long pin_page_reads, pin_pages;
    imx_db_pin_list_stats(&pin_page_reads, &pin_pages);
    unsigned long long lineage_reads, lineages;
    imx_db_lineage_read_stats(&lineage_reads, &lineages);
    unsigned long long compare_kept, compare_built;
    size_t compare_bytes;
    imx_api_compare_stats(&compare_kept, &compare_built, &compare_bytes);
    unsigned long long answered_event, answered_worker;
    imx_http_answered(&answered_event, &answered_worker);
    struct imx_metrics_gauges g = {
        .outbox_pending = pending,
        .outbox_events = events,
        .db_pool_size = ps.size,
        .db_pool_busy = ps.busy,
        .db_pool_waiting = ps.waiting,
        .db_batch_size = bs.size,
        .db_batch_busy = bs.busy,
        .db_batch_waiting = bs.waiting,
        .db_acquire_timeouts = ps.acquire_timeouts,
        .db_reconnects = ps.reconnects,
        .in_flight = imx_http_in_flight(),
        .search_index_images = ix.images,
        .search_index_bytes = ix.bytes,
        .searches_indexed = ix.searches_indexed,
        .searches_sql = ix.searches_sql,
        .lineages_indexed = ix.lineages_indexed,
        .lineages_sql = ix.lineages_sql,
        .search_index_loads = ix.loads,
        .search_index_catchups = ix.catchups,
        .doc_reads = doc_reads,
        .doc_reads_docs = doc_reads_docs,
        .compare_reads = compare_reads,
        .compare_reads_compares = compare_reads_compares,
        .resolve_reads_family = family_reads,
        .resolve_reads_family_resolves = family_resolves,
        .resolve_reads_pin = pin_reads,
        .resolve_reads_pin_resolves = pin_resolves,
        .patch_reads = patch_reads,
        .patch_reads_docs = patch_docs,
        .pin_reads = pin_doc_reads,
        .pin_reads_pins = pin_docs,
        .pin_page_reads = pin_page_reads,
        .pin_page_reads_pages = pin_pages,
        .lineage_reads = lineage_reads,
        .lineage_reads_lineages = lineages,
        .compare_images_kept = compare_kept,
        .compare_images_built = compare_built,
        .compare_cache_bytes = compare_bytes,
        .head_timeouts = gs.head_timeouts,
        .slow_bodies = gs.slow_bodies,
        .evicted_readers = gs.evicted,
        .stalled_answers = gs.stalled_answers,
        .evicted_senders = gs.evicted_senders,
        .pipeline_closed = gs.pipeline_closed,
        .password_slots = imx_password_slots(),
        .password_busy = imx_password_busy(),
        .answered_event = answered_event,
        .answered_worker = answered_worker,
        .workers_busy = imx_workers_busy(),
        .http_workers = imx_workers_count(),
    };
    size_t len = 0;
    char *text = imx_metrics_render(&g, &len);
    if (!text) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_reply_raw_steal(r, 200, "text/plain; version=0.0.4; charset=utf-8", text, len, NULL, NULL);
}

void imx_api_openapi(struct imx_req *r)
{
    if (!imx_server_info.openapi_json) {
        imx_reply_problem(r, IMX_E_NOT_FOUND, "The OpenAPI document is not installed");
        return;
    }
    imx_reply_text(r, 200, "application/json", imx_server_info.openapi_json);
}
