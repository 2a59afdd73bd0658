/* Prometheus metrics kept in lock-free counters: requests by route and code, durations. */
#ifndef IMX_METRICS_H
#define IMX_METRICS_H

#include <stddef.h>

/* Sizes the tables for the route table. Call once before serving. Returns 0 or -1. */
int imx_metrics_init(void);

/* Records one finished request. route_index -1 = no route matched. */
void imx_metrics_observe(int route_index, const char *method, unsigned status, double seconds);

/* Gauges filled by the caller when rendering. */
struct imx_metrics_gauges {
    unsigned db_pool_size, db_pool_busy, db_pool_waiting;
    /* The connections kept for coalesced reads (db/pool.h, imx_db_acquire_batch). */
    unsigned db_batch_size, db_batch_busy, db_batch_waiting;
    unsigned long long db_acquire_timeouts, db_reconnects;
    long in_flight;
    /* The search index (server/db/image_index.h); images < 0: not loaded or turned off. */
    long long search_index_images;
    unsigned long long search_index_bytes, searches_indexed, searches_sql, search_index_loads,
        search_index_catchups, lineages_indexed, lineages_sql;
    /* Stored documents' batched reads (server/db/image_docs.h): statements, documents. */
    unsigned long long doc_reads, doc_reads_docs;
    /* Compare's batched reads (server/db/images.h): statements, compares. */
    unsigned long long compare_reads, compare_reads_compares;
    /* Resolves' batched reads (server/db/image_index.h by family, server/db/pins.h by pin):
     * statements, resolves. */
    unsigned long long resolve_reads_family, resolve_reads_family_resolves, resolve_reads_pin,
        resolve_reads_pin_resolves;
    /* Patch status's and pins' batched reads (server/db/advisories.h, server/db/pins.h):
     * statements, what they answered (documents, pins by id, pages of a team's pins). */
    unsigned long long patch_reads, patch_reads_docs, pin_reads, pin_reads_pins, pin_page_reads,
        pin_page_reads_pages;
    /* Lineage's batched summaries reads (server/db/image_index.h): statements, lineages. */
    unsigned long long lineage_reads, lineage_reads_lineages;
    /* Compare's images (server/api/compare.c): kept in memory, built from their rows; bytes. */
    unsigned long long compare_images_kept, compare_images_built, compare_cache_bytes;
    /* The connection guard (server/http/guard.h) and the password slots (auth/password.h). */
    unsigned long long head_timeouts, slow_bodies, evicted_readers;
    unsigned long long stalled_answers, evicted_senders, pipeline_closed;
    unsigned password_slots;
    unsigned long long password_busy;
    unsigned long long answered_event, answered_worker; /* requests, by where they were answered */
    size_t workers_busy;                                /* jobs queued or running */
    unsigned http_workers;
    /* The webhook outbox (server/webhooks/dispatcher.h); < 0: not known in this process. */
    long long outbox_pending, outbox_events;
};

/* Renders everything in Prometheus text format 0.0.4. Returns a new string (free()) or NULL. */
char *imx_metrics_render(const struct imx_metrics_gauges *g, size_t *len);

#endif
