/* Prometheus metrics kept in lock-free counters: requests by route and code, durations. */
#include "http/metrics.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/router.h"

#ifndef IMX_VERSION
#define IMX_VERSION "dev"
#endif
#ifndef IMX_COMMIT
#define IMX_COMMIT "unknown"
#endif

static const char *const methods[] = { "GET",   "HEAD",   "POST",    "PUT",
                                       "PATCH", "DELETE", "OPTIONS", "other" };
#define NMETHODS (sizeof methods / sizeof methods[0])

/* Codes we answer with; anything else is counted under its class in the last slot. */
static const unsigned codes[] = { 200, 201, 202, 204, 301, 304, 400, 401, 403, 404, 405,
                                  409, 412, 413, 414, 415, 422, 428, 429, 431, 500, 503 };
#define NCODES (sizeof codes / sizeof codes[0])

static const double buckets[] = { 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                  0.1,    0.25,  0.5,    1,     2.5,  5,     10 };
#define NBUCKETS (sizeof buckets / sizeof buckets[0])

struct histogram {
    atomic_ullong bucket[NBUCKETS];
    atomic_ullong count;
    atomic_ullong sum_us;
};

/* Slot nroutes is "no route matched". */
static atomic_ullong *requests; /* [(route * NMETHODS + method) * (NCODES + 1) + code] */
static atomic_uint *other_code; /* the last code seen in the "other" slot, per (route, method) */
static struct histogram *durations; /* [route] */
static size_t nroutes;

int imx_metrics_init(void)
{
    nroutes = imx_routes_count;
    requests = calloc((nroutes + 1) * NMETHODS * (NCODES + 1), sizeof *requests);
    other_code = calloc((nroutes + 1) * NMETHODS, sizeof *other_code);
    durations = calloc(nroutes + 1, sizeof *durations);
    return requests && other_code && durations ? 0 : -1;
}

static size_t method_slot(const char *m)
{
    for (size_t i = 0; i + 1 < NMETHODS; i++)
        if (strcmp(m, methods[i]) == 0)
            return i;
    return NMETHODS - 1;
}

static size_t code_slot(unsigned code)
{
    for (size_t i = 0; i < NCODES; i++)
        if (codes[i] == code)
            return i;
    return NCODES;
}

void imx_metrics_observe(int route_index, const char *method, unsigned status, double seconds)
{
    if (!requests)
        return;
    size_t route =
        route_index < 0 || (size_t)route_index >= nroutes ? nroutes : (size_t)route_index;
    size_t ms = method_slot(method ? method : "other");
    size_t cs = code_slot(status);
    atomic_fetch_add_explicit(&requests[(route * NMETHODS + ms) * (NCODES + 1) + cs], 1,
                              memory_order_relaxed);
    if (cs == NCODES)
        atomic_store_explicit(&other_code[route * NMETHODS + ms], status, memory_order_relaxed);
    struct histogram *h = &durations[route];
    for (size_t b = 0; b < NBUCKETS; b++)
        if (seconds <= buckets[b]) {
            atomic_fetch_add_explicit(&h->bucket[b], 1, memory_order_relaxed);
            break;
        }
    atomic_fetch_add_explicit(&h->count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->sum_us, (unsigned long long)(seconds * 1e6),
                              memory_order_relaxed);
}

struct out {
    char *buf;
    size_t len, cap;
    int failed;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            o->failed = 1;
            return;
        }
        if (o->len + (size_t)n < o->cap) {
            o->len += (size_t)n;
            return;
        }
        size_t ncap = o->cap * 2 + (size_t)n;
        char *nb = realloc(o->buf, ncap);
        if (!nb) {
            o->failed = 1;
            return;
        }
        o->buf = nb;
        o->cap = ncap;
    }
}

static const char *route_label(size_t route)
{
    return route < nroutes ? imx_routes[route].path : "unmatched";
}

char *imx_metrics_render(const struct imx_metrics_gauges *g, size_t *len)
{
    struct out o = { malloc(16384), 0, 16384, 0 };
    if (!o.buf)
        return NULL;

    put(&o, "# HELP imaxe_build_info Build information.\n# TYPE imaxe_build_info gauge\n");
    put(&o, "imaxe_build_info{version=\"%s\",commit=\"%s\"} 1\n", IMX_VERSION, IMX_COMMIT);

    put(&o, "# HELP imaxe_http_requests_total HTTP requests answered.\n"
            "# TYPE imaxe_http_requests_total counter\n");
    for (size_t r = 0; requests && r <= nroutes; r++)
        for (size_t m = 0; m < NMETHODS; m++)
            for (size_t c = 0; c <= NCODES; c++) {
                unsigned long long v = atomic_load_explicit(
                    &requests[(r * NMETHODS + m) * (NCODES + 1) + c], memory_order_relaxed);
                if (v == 0)
                    continue;
                unsigned code = c < NCODES ? codes[c] : other_code[r * NMETHODS + m];
                put(&o, "imaxe_http_requests_total{method=\"%s\",route=\"%s\",code=\"%u\"} %llu\n",
                    methods[m], route_label(r), code, v);
            }

    put(&o, "# HELP imaxe_http_request_duration_seconds Time from request start to response.\n"
            "# TYPE imaxe_http_request_duration_seconds histogram\n");
    for (size_t r = 0; durations && r <= nroutes; r++) {
        struct histogram *h = &durations[r];
        unsigned long long count = atomic_load_explicit(&h->count, memory_order_relaxed);
        if (count == 0)
            continue;
        unsigned long long cum = 0;
        for (size_t b = 0; b < NBUCKETS; b++) {
            cum += atomic_load_explicit(&h->bucket[b], memory_order_relaxed);
            put(&o, "imaxe_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n",
                route_label(r), buckets[b], cum);
        }
        put(&o, "imaxe_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n",
            route_label(r), count);
        put(&o, "imaxe_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n", route_label(r),
            (double)atomic_load_explicit(&h->sum_us, memory_order_relaxed) / 1e6);
        put(&o, "imaxe_http_request_duration_seconds_count{route=\"%s\"} %llu\n", route_label(r),
            count);
    }

    put(&o,
        "# HELP imaxe_http_requests_in_flight Requests being handled now.\n"
        "# TYPE imaxe_http_requests_in_flight gauge\nimaxe_http_requests_in_flight %ld\n",
        g->in_flight);
    put(&o,
        "# HELP imaxe_db_pool_connections PostgreSQL connections in this replica's pool.\n"
        "# TYPE imaxe_db_pool_connections gauge\n"
        "imaxe_db_pool_connections{state=\"busy\"} %u\n"
        "imaxe_db_pool_connections{state=\"idle\"} %u\n",
        g->db_pool_busy, g->db_pool_size - g->db_pool_busy);
    put(&o,
        "# HELP imaxe_db_batch_connections PostgreSQL connections kept for the point reads' "
        "coalesced statements, beside the pool.\n"
        "# TYPE imaxe_db_batch_connections gauge\n"
        "imaxe_db_batch_connections{state=\"busy\"} %u\n"
        "imaxe_db_batch_connections{state=\"idle\"} %u\n"
        "# HELP imaxe_db_batch_waiting Coalesced statements waiting for one of those.\n"
        "# TYPE imaxe_db_batch_waiting gauge\nimaxe_db_batch_waiting %u\n",
        g->db_batch_busy, g->db_batch_size - g->db_batch_busy, g->db_batch_waiting);
    put(&o,
        "# HELP imaxe_db_pool_size Configured size of the PostgreSQL pool.\n"
        "# TYPE imaxe_db_pool_size gauge\nimaxe_db_pool_size %u\n",
        g->db_pool_size);
    put(&o,
        "# HELP imaxe_db_pool_waiting Requests waiting for a pooled connection.\n"
        "# TYPE imaxe_db_pool_waiting gauge\nimaxe_db_pool_waiting %u\n",
        g->db_pool_waiting);
    put(&o,
        "# HELP imaxe_db_pool_acquire_timeouts_total Requests that found no free connection "
        "in time.\n# TYPE imaxe_db_pool_acquire_timeouts_total counter\n"
        "imaxe_db_pool_acquire_timeouts_total %llu\n",
        g->db_acquire_timeouts);
    put(&o,
        "# HELP imaxe_db_reconnects_total Connections re-established to PostgreSQL.\n"
        "# TYPE imaxe_db_reconnects_total counter\nimaxe_db_reconnects_total %llu\n",
        g->db_reconnects);
    put(&o,
        "# HELP imaxe_search_index_images Images in the in-memory search index (-1: not loaded).\n"
        "# TYPE imaxe_search_index_images gauge\nimaxe_search_index_images %lld\n"
        "# HELP imaxe_search_index_bytes Memory held by the search index.\n"
        "# TYPE imaxe_search_index_bytes gauge\nimaxe_search_index_bytes %llu\n",
        g->search_index_images, g->search_index_bytes);
    put(&o,
        "# HELP imaxe_searches_total Catalog searches by what answered them.\n"
        "# TYPE imaxe_searches_total counter\n"
        "imaxe_searches_total{by=\"index\"} %llu\nimaxe_searches_total{by=\"sql\"} %llu\n",
        g->searches_indexed, g->searches_sql);
    put(&o,
        "# HELP imaxe_lineages_total Lineage pages by what answered them.\n"
        "# TYPE imaxe_lineages_total counter\n"
        "imaxe_lineages_total{by=\"index\"} %llu\nimaxe_lineages_total{by=\"sql\"} %llu\n",
        g->lineages_indexed, g->lineages_sql);
    put(&o,
        "# HELP imaxe_lineage_reads_total Statements that read lineages' summaries from the "
        "index's "
        "pages (each for the requests waiting at that moment).\n"
        "# TYPE imaxe_lineage_reads_total counter\nimaxe_lineage_reads_total %llu\n"
        "# HELP imaxe_lineage_reads_lineages_total Lineage pages those statements answered.\n"
        "# TYPE imaxe_lineage_reads_lineages_total counter\nimaxe_lineage_reads_lineages_total "
        "%llu\n",
        g->lineage_reads, g->lineage_reads_lineages);
    put(&o,
        "# HELP imaxe_image_doc_reads_total Statements that read stored image documents (each "
        "for the requests waiting at that moment).\n"
        "# TYPE imaxe_image_doc_reads_total counter\nimaxe_image_doc_reads_total %llu\n"
        "# HELP imaxe_image_doc_reads_docs_total Documents those statements read.\n"
        "# TYPE imaxe_image_doc_reads_docs_total counter\nimaxe_image_doc_reads_docs_total %llu\n",
        g->doc_reads, g->doc_reads_docs);
    put(&o,
        "# HELP imaxe_compare_reads_total Statements that read compares (each for the requests "
        "waiting at that moment).\n"
        "# TYPE imaxe_compare_reads_total counter\nimaxe_compare_reads_total %llu\n"
        "# HELP imaxe_compare_reads_compares_total Compares those statements answered.\n"
        "# TYPE imaxe_compare_reads_compares_total counter\n"
        "imaxe_compare_reads_compares_total %llu\n",
        g->compare_reads, g->compare_reads_compares);
    put(&o,
        "# HELP imaxe_resolve_reads_total Statements that read resolves (each for the requests "
        "waiting at that moment), by family or by pin.\n"
        "# TYPE imaxe_resolve_reads_total counter\n"
        "imaxe_resolve_reads_total{by=\"family\"} %llu\nimaxe_resolve_reads_total{by=\"pin\"} "
        "%llu\n"
        "# HELP imaxe_resolve_reads_resolves_total Resolves those statements answered.\n"
        "# TYPE imaxe_resolve_reads_resolves_total counter\n"
        "imaxe_resolve_reads_resolves_total{by=\"family\"} %llu\n"
        "imaxe_resolve_reads_resolves_total{by=\"pin\"} %llu\n",
        g->resolve_reads_family, g->resolve_reads_pin, g->resolve_reads_family_resolves,
        g->resolve_reads_pin_resolves);
    put(&o,
        "# HELP imaxe_patch_reads_total Statements that read images' patch status (each for the "
        "requests waiting at that moment).\n"
        "# TYPE imaxe_patch_reads_total counter\nimaxe_patch_reads_total %llu\n"
        "# HELP imaxe_patch_reads_docs_total Patch status documents those statements read.\n"
        "# TYPE imaxe_patch_reads_docs_total counter\nimaxe_patch_reads_docs_total %llu\n",
        g->patch_reads, g->patch_reads_docs);
    put(&o,
        "# HELP imaxe_pin_reads_total Statements that read pins (each for the requests waiting at "
        "that moment): by id (GET /v1/pins/{id}) or a team's page (GET /v1/pins).\n"
        "# TYPE imaxe_pin_reads_total counter\n"
        "imaxe_pin_reads_total{by=\"id\"} %llu\nimaxe_pin_reads_total{by=\"team\"} %llu\n"
        "# HELP imaxe_pin_reads_requests_total Requests those statements answered.\n"
        "# TYPE imaxe_pin_reads_requests_total counter\n"
        "imaxe_pin_reads_requests_total{by=\"id\"} %llu\n"
        "imaxe_pin_reads_requests_total{by=\"team\"} %llu\n",
        g->pin_reads, g->pin_page_reads, g->pin_reads_pins, g->pin_page_reads_pages);
    put(&o,
        "# HELP imaxe_compare_images_total Compared images by where their part of the reply came "
        "from: kept in memory from an earlier read of the same row texts, or built.\n"
        "# TYPE imaxe_compare_images_total counter\n"
        "imaxe_compare_images_total{from=\"memory\"} %llu\n"
        "imaxe_compare_images_total{from=\"built\"} %llu\n"
        "# HELP imaxe_compare_cache_bytes What the compared images kept in memory hold.\n"
        "# TYPE imaxe_compare_cache_bytes gauge\nimaxe_compare_cache_bytes %llu\n",
        g->compare_images_kept, g->compare_images_built, g->compare_cache_bytes);
    put(&o,
        "# HELP imaxe_search_index_loads_total Full loads of the search index.\n"
        "# TYPE imaxe_search_index_loads_total counter\nimaxe_search_index_loads_total %llu\n"
        "# HELP imaxe_search_index_catchups_total Catch-ups with rows committed since a load.\n"
        "# TYPE imaxe_search_index_catchups_total counter\n"
        "imaxe_search_index_catchups_total %llu\n",
        g->search_index_loads, g->search_index_catchups);
    put(&o,
        "# HELP imaxe_http_connections_closed_total Connections the guard closed: request head "
        "over IMAXE_HEADER_TIMEOUT_S, body under IMAXE_BODY_MIN_BYTES_PER_S, or the reader idle "
        "longest past a reading cap, an answer the client took nothing of for "
        "IMAXE_ANSWER_STALL_S, a non-reading client near the connection limit, or past "
        "IMAXE_PIPELINE_MAX answers queued unread.\n"
        "# TYPE imaxe_http_connections_closed_total counter\n"
        "imaxe_http_connections_closed_total{reason=\"head_timeout\"} %llu\n"
        "imaxe_http_connections_closed_total{reason=\"slow_body\"} %llu\n"
        "imaxe_http_connections_closed_total{reason=\"evicted\"} %llu\n"
        "imaxe_http_connections_closed_total{reason=\"stalled_answer\"} %llu\n"
        "imaxe_http_connections_closed_total{reason=\"evicted_sender\"} %llu\n"
        "imaxe_http_connections_closed_total{reason=\"pipeline\"} %llu\n",
        g->head_timeouts, g->slow_bodies, g->evicted_readers, g->stalled_answers,
        g->evicted_senders, g->pipeline_closed);
    put(&o,
        "# HELP imaxe_password_slots Argon2id hashes or checks that may run at once.\n"
        "# TYPE imaxe_password_slots gauge\nimaxe_password_slots %u\n"
        "# HELP imaxe_password_busy_total Sign-ins and password changes that found no free slot "
        "in time (503).\n# TYPE imaxe_password_busy_total counter\nimaxe_password_busy_total "
        "%llu\n",
        g->password_slots, g->password_busy);
    put(&o,
        "# HELP imaxe_http_answered_total Requests by where they were answered: on an event "
        "thread (a fast handler, an early refusal) or by a handler worker.\n"
        "# TYPE imaxe_http_answered_total counter\n"
        "imaxe_http_answered_total{on=\"event_thread\"} %llu\n"
        "imaxe_http_answered_total{on=\"worker\"} %llu\n"
        "# HELP imaxe_http_workers Handler workers (IMAXE_HTTP_WORKERS).\n"
        "# TYPE imaxe_http_workers gauge\nimaxe_http_workers %u\n"
        "# HELP imaxe_http_worker_jobs Handler jobs queued or running now.\n"
        "# TYPE imaxe_http_worker_jobs gauge\nimaxe_http_worker_jobs %zu\n",
        g->answered_event, g->answered_worker, g->http_workers, g->workers_busy);
    if (g->outbox_pending >= 0)
        put(&o,
            "# HELP imaxe_webhook_outbox_pending Webhook deliveries not yet delivered or failed.\n"
            "# TYPE imaxe_webhook_outbox_pending gauge\nimaxe_webhook_outbox_pending %lld\n"
            "# HELP imaxe_webhook_outbox_events Webhook events stored (estimate), bounded by "
            "IMAXE_EVENT_RETENTION_DAYS.\n"
            "# TYPE imaxe_webhook_outbox_events gauge\nimaxe_webhook_outbox_events %lld\n",
            g->outbox_pending, g->outbox_events);
    if (o.failed) {
        free(o.buf);
        return NULL;
    }
    *len = o.len;
    return o.buf;
}
