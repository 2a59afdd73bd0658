/* The webhook dispatcher (see dispatcher.h). */
#include "webhooks/dispatcher.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "db/listen.h"
#include "db/pool.h"
#include "db/webhooks.h"
#include "util/log.h"
#include "webhooks/retry.h"
#include "webhooks/sign.h"
#include "webhooks/ssrf.h"

#ifndef IMX_VERSION
#define IMX_VERSION "dev"
#endif

#define CHANNEL         "imx_webhooks"
#define RESPONSE_MAX    65536 /* bytes of a response body read and kept */
#define LEASE_MARGIN_MS 10000 /* lease = request timeout + this */
#define FINISH_TRIES    5     /* recording an attempt survives a short database outage */
#define LISTEN_RETRY_MS 1000
#define SIGNATURES_MAX  (2 * (IMX_WEBHOOK_SIG_LEN + 1) + 1)
#define WORKER_NAME_MAX 96

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;  /* signalled on notifications, on stop and when a worker exits */
    unsigned long gen;    /* bumped by each wake-up, so none is lost between claim and wait */
    atomic_bool stopping; /* no new claims */
    atomic_bool aborting; /* cut requests in flight */
    int stop_pipe[2];     /* wakes the listener's poll() */
    pthread_t listener;
    bool listener_started;
    pthread_t *workers;
    unsigned n_workers, running;
    char *url;
    unsigned stmt_ms, timeout_ms, poll_ms, disable_after_s, retention_days;
    struct imx_webhook_schedule schedule;
    struct imx_ssrf_allow allow;
    char host_id[64];
} d = { .lock = PTHREAD_MUTEX_INITIALIZER,
        .wake = PTHREAD_COND_INITIALIZER,
        .stop_pipe = { -1, -1 } };

static double now_real(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long long now_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void wake_workers(void)
{
    pthread_mutex_lock(&d.lock);
    d.gen++;
    pthread_cond_broadcast(&d.wake);
    pthread_mutex_unlock(&d.lock);
}

static unsigned long wake_gen(void)
{
    pthread_mutex_lock(&d.lock);
    unsigned long g = d.gen;
    pthread_mutex_unlock(&d.lock);
    return g;
}

/* Sleeps until a wake-up newer than gen, stop, or ms elapse. */
static void wait_for_work(unsigned long gen, unsigned ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&d.lock);
    while (d.gen == gen && !atomic_load(&d.stopping))
        if (pthread_cond_timedwait(&d.wake, &d.lock, &until) != 0)
            break;
    pthread_mutex_unlock(&d.lock);
}

/* The listener: LISTEN on a connection of its own, wake the workers on each notification and
 * after every (re)connect (notifications sent while disconnected are lost; the claim query
 * finds their deliveries anyway). */
static void *listener_main(void *arg)
{
    (void)arg;
    bool warned = false;
    while (!atomic_load(&d.stopping)) {
        char err[256];
        struct imx_db_listener *l = imx_db_listen(d.url, d.stmt_ms, CHANNEL, err, sizeof err);
        if (!l) {
            if (!warned)
                imx_warn("webhooks: cannot LISTEN (%s); retrying, polling meanwhile", err);
            warned = true;
            struct pollfd pfd = { d.stop_pipe[0], POLLIN, 0 };
            poll(&pfd, 1, LISTEN_RETRY_MS);
            continue;
        }
        if (warned)
            imx_info("webhooks: listening for new events again");
        warned = false;
        wake_workers();
        while (!atomic_load(&d.stopping)) {
            struct pollfd pfd[2] = { { imx_db_listener_fd(l), POLLIN, 0 },
                                     { d.stop_pipe[0], POLLIN, 0 } };
            int rc = poll(pfd, 2, 60000);
            if (rc < 0 && errno != EINTR)
                break;
            if (rc <= 0 || !(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int got = imx_db_listener_drain(l);
            if (got < 0)
                break;
            if (got > 0)
                wake_workers();
        }
        imx_db_listener_close(l);
    }
    return NULL;
}

/* Per-request state shared with libcurl's callbacks. */
struct request {
    bool allowed_host; /* on IMAXE_WEBHOOK_ALLOW_HOSTS: any address is fine */
    char refused[160]; /* why the connect-time guard refused an address */
    char body[RESPONSE_MAX + 1];
    size_t body_len;
    bool truncated;
    long long retry_after_s;
};

/* Connect-time SSRF guard: judges the address libcurl is about to connect to. */
static curl_socket_t open_socket(void *cls, curlsocktype purpose, struct curl_sockaddr *addr)
{
    struct request *r = cls;
    (void)purpose;
    const char *why = r->allowed_host ? NULL : imx_ssrf_address_refused(&addr->addr);
    if (why) {
        snprintf(r->refused, sizeof r->refused, "refused to connect to %s", why);
        return CURL_SOCKET_BAD;
    }
    return socket(addr->family, addr->socktype, addr->protocol);
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *cls)
{
    struct request *r = cls;
    size_t n = size * nmemb;
    size_t room = RESPONSE_MAX - r->body_len;
    if (n > room) {
        /* Read no further than the cap: stop the transfer, keep the status. */
        memcpy(r->body + r->body_len, ptr, room);
        r->body_len += room;
        r->truncated = true;
        return 0;
    }
    memcpy(r->body + r->body_len, ptr, n);
    r->body_len += n;
    return n;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *cls)
{
    struct request *r = cls;
    size_t n = size * nmemb;
    static const char name[] = "retry-after:";
    if (n > sizeof name - 1 && n < 128 && strncasecmp(ptr, name, sizeof name - 1) == 0) {
        char value[128];
        memcpy(value, ptr + sizeof name - 1, n - (sizeof name - 1));
        value[n - (sizeof name - 1)] = '\0';
        r->retry_after_s = imx_webhook_parse_retry_after(value, time(NULL));
    }
    return n;
}

static int on_progress(void *cls, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)cls, (void)dt, (void)dn, (void)ut, (void)un;
    return atomic_load(&d.aborting) ? 1 : 0;
}

struct result {
    long status;
    char error[512];
};

/* Posts one delivery. Fills res (status 0: no answer; error: why it is not a clean 2xx); the
 * response body is left in r. */
static void post(CURL *curl, const struct imx_db_webhook_claim *c, struct request *r,
                 struct result *res)
{
    struct imx_ssrf_url u;
    char reason[256], errbuf[CURL_ERROR_SIZE] = "";
    char h_id[160], h_ts[64], h_sig[32 + SIGNATURES_MAX], sigs[SIGNATURES_MAX] = "";
    struct curl_slist *headers = NULL;

    res->status = 0;
    res->error[0] = '\0';
    /* The URL is checked again now: the allow list or the rules may have changed since the
     * subscription was stored. Addresses are judged at connect time. */
    if (imx_ssrf_check_url(c->url, &d.allow, NULL, NULL, reason, sizeof reason) != 0 ||
        imx_ssrf_parse_url(c->url, &u, reason, sizeof reason) != 0) {
        snprintf(res->error, sizeof res->error, "URL refused: %s", reason);
        return;
    }
    r->allowed_host = imx_ssrf_allowed(&d.allow, u.host, u.port);

    long long ts = (long long)time(NULL);
    if (imx_webhook_sign_append(c->secret, c->msg_id, ts, c->body, c->body_len, sigs,
                                sizeof sigs) != 0 ||
        (c->previous_secret && imx_webhook_sign_append(c->previous_secret, c->msg_id, ts, c->body,
                                                       c->body_len, sigs, sizeof sigs) != 0)) {
        snprintf(res->error, sizeof res->error, "cannot sign: the stored secret is invalid");
        return;
    }
    snprintf(h_id, sizeof h_id, "webhook-id: %s", c->msg_id);
    snprintf(h_ts, sizeof h_ts, "webhook-timestamp: %lld", ts);
    snprintf(h_sig, sizeof h_sig, "webhook-signature: %s", sigs);
    const char *const lines[] = { c->cloudevents ? "Content-Type: application/cloudevents+json"
                                                 : "Content-Type: application/json",
                                  h_id, h_ts, h_sig, "Expect:" };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct curl_slist *nl = curl_slist_append(headers, lines[i]);
        if (!nl) {
            curl_slist_free_all(headers);
            snprintf(res->error, sizeof res->error, "out of memory");
            return;
        }
        headers = nl;
    }

    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_URL, c->url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_PROXY, "");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)d.timeout_ms);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "imaxe-webhooks/" IMX_VERSION);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, c->body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->body_len);
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, r);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
    CURLcode rc = curl_easy_perform(curl);
    curl_slist_free_all(headers);

    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &res->status);
    if (res->status < 100 || res->status > 999)
        res->status = 0;
    if (r->refused[0])
        snprintf(res->error, sizeof res->error, "%s", r->refused);
    else if (rc == CURLE_WRITE_ERROR && r->truncated)
        snprintf(res->error, sizeof res->error, "response body longer than %d bytes: not read",
                 RESPONSE_MAX);
    else if (rc != CURLE_OK)
        snprintf(res->error, sizeof res->error, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
    else if (res->status >= 300 && res->status <= 399)
        snprintf(res->error, sizeof res->error, "HTTP %ld: redirects are not followed",
                 res->status);
    else if (res->status < 200 || res->status > 299)
        snprintf(res->error, sizeof res->error, "HTTP %ld", res->status);
}

/* A per-thread uniform number in [0, 1) for jitter. */
static double jitter(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (double)((*seed >> 8) & 0xffffff) / (double)0x1000000;
}

static void deliver(CURL *curl, const char *worker, unsigned *seed,
                    const struct imx_db_webhook_claim *c)
{
    struct request *r = calloc(1, sizeof *r);
    struct result res;
    if (!r)
        return; /* the lease runs out and the delivery is claimed again */
    r->retry_after_s = -1;
    double started = now_real();
    long long t0 = now_mono_ms();
    post(curl, c, r, &res);
    long latency = (long)(now_mono_ms() - t0);

    /* Any 2xx answer counts, even when reading its body failed afterwards (noted in error). */
    enum imx_webhook_outcome outcome = imx_webhook_classify(res.status);
    long long retry_ms = -1;
    if (outcome == IMX_WEBHOOK_RETRY)
        retry_ms = imx_webhook_retry_delay_ms(
            &d.schedule, (unsigned)c->attempt,
            imx_webhook_honours_retry_after(res.status) ? r->retry_after_s : -1, jitter(seed));
    r->body[r->body_len] = '\0';
    imx_webhook_utf8_clean(r->body, r->body_len);

    struct imx_db_webhook_attempt a = {
        .worker = worker,
        .started_at = started,
        .status = res.status,
        .latency_ms = latency,
        .error = res.error[0] ? res.error : NULL,
        .response = r->body,
        .outcome = outcome == IMX_WEBHOOK_DELIVERED ? "delivered"
                   : outcome == IMX_WEBHOOK_GONE    ? "gone"
                                                    : "retry",
        .retry_ms = retry_ms,
        .disable_after_s = d.disable_after_s,
    };
    char state[16] = "";
    for (int i = 0; i < FINISH_TRIES; i++) {
        enum imx_db_status why;
        struct imx_db_conn *db = imx_db_acquire(&why);
        enum imx_db_status st =
            db ? imx_db_webhook_finish(db, c, &a, state, sizeof state) : IMX_DBS_UNAVAILABLE;
        imx_db_release(db);
        if (st == IMX_DBS_OK)
            break;
        struct timespec ts = { 0, 200000000L * (i + 1) };
        nanosleep(&ts, NULL);
    }
    if (!state[0])
        imx_warn("webhooks: could not record attempt %d of delivery %lld; it will be retried "
                 "when its lease runs out",
                 c->attempt, (long long)c->delivery_id);
    else if (strcmp(state, "delivered") != 0)
        imx_info("webhooks: delivery %lld attempt %d to webhook %lld: %s -> %s",
                 (long long)c->delivery_id, c->attempt, (long long)c->webhook_id,
                 res.error[0] ? res.error : "ok", state);
    free(r);
}

/* Retention: the first worker also prunes sent and failed deliveries and old events past
 * IMAXE_EVENT_RETENTION_DAYS, a batch at a time (at most RETENTION_BATCHES a pass, so a backlog
 * drains over several passes without holding a connection long), and records the outbox size
 * for /metrics. */
#define RETENTION_BATCH   1000
#define RETENTION_BATCHES 10
static _Atomic long long outbox_pending = -1, outbox_events = -1;

static void prune_outbox(struct imx_db_conn *db, unsigned index)
{
    static long long last_ms;
    long long now = now_mono_ms();
    if (!db || index != 0 || now - last_ms < (long long)(d.poll_ms < 1000 ? 1000 : d.poll_ms))
        return;
    last_ms = now;
    long long deliveries = 0, events = 0;
    for (int i = 0; i < RETENTION_BATCHES; i++) {
        struct imx_db_outbox o;
        if (imx_db_webhook_prune(db, d.retention_days, RETENTION_BATCH, &o) != IMX_DBS_OK)
            break;
        deliveries += o.deliveries_pruned;
        events += o.events_pruned;
        atomic_store(&outbox_pending, o.pending);
        atomic_store(&outbox_events, o.events);
        if (o.deliveries_pruned < RETENTION_BATCH && o.events_pruned < RETENTION_BATCH)
            break;
    }
    if (deliveries || events)
        imx_info("webhooks: pruned %lld deliveries and %lld events older than %u days", deliveries,
                 events, d.retention_days);
}

bool imx_webhooks_outbox(long long *pending, long long *events)
{
    *pending = atomic_load(&outbox_pending);
    *events = atomic_load(&outbox_events);
    return *pending >= 0;
}

static void *worker_main(void *arg)
{
    unsigned index = (unsigned)(uintptr_t)arg;
    char worker[WORKER_NAME_MAX];
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid() ^ (index * 2654435761u);
    snprintf(worker, sizeof worker, "%s:%d:%u", d.host_id, (int)getpid(), index);
    CURL *curl = curl_easy_init();
    unsigned lease_ms = d.timeout_ms + LEASE_MARGIN_MS;

    while (curl && !atomic_load(&d.stopping)) {
        unsigned long gen = wake_gen();
        struct imx_db_webhook_claim c;
        enum imx_db_status why;
        struct imx_db_conn *db = imx_db_acquire(&why);
        prune_outbox(db, index);
        enum imx_db_status got =
            db ? imx_db_webhook_claim(db, worker, lease_ms, &c) : IMX_DBS_UNAVAILABLE;
        imx_db_release(db);
        if (got == IMX_DBS_OK) {
            deliver(curl, worker, &seed, &c);
            imx_db_webhook_claim_free(&c);
            continue;
        }
        /* None due waits the poll interval; a failure at least a second. */
        bool failed = got != IMX_DBS_NOT_FOUND;
        wait_for_work(gen, failed && d.poll_ms < 1000 ? 1000 : d.poll_ms);
    }
    curl_easy_cleanup(curl);
    pthread_mutex_lock(&d.lock);
    d.running--;
    pthread_cond_broadcast(&d.wake);
    pthread_mutex_unlock(&d.lock);
    return NULL;
}

int imx_webhooks_start(const struct imx_config *cfg, char *err, size_t errlen)
{
    if (cfg->webhook_workers == 0)
        return 0;
    if (imx_webhook_schedule_parse(cfg->webhook_schedule, &d.schedule) != 0 ||
        imx_ssrf_allow_parse(cfg->webhook_allow_hosts, &d.allow, err, errlen) != 0) {
        snprintf(err, errlen, "webhooks: bad IMAXE_WEBHOOK_SCHEDULE or IMAXE_WEBHOOK_ALLOW_HOSTS");
        return -1;
    }
    d.url = strdup(cfg->database_url);
    d.workers = calloc(cfg->webhook_workers, sizeof *d.workers);
    if (!d.url || !d.workers || pipe2(d.stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(err, errlen, "webhooks: out of resources at start-up");
        return -1;
    }
    d.stmt_ms = cfg->statement_ms;
    d.timeout_ms = cfg->webhook_timeout_ms;
    d.poll_ms = cfg->webhook_poll_ms;
    d.retention_days = cfg->event_retention_days;
    d.disable_after_s = cfg->webhook_disable_after_s;
    if (gethostname(d.host_id, sizeof d.host_id) != 0)
        snprintf(d.host_id, sizeof d.host_id, "host");
    d.host_id[sizeof d.host_id - 1] = '\0';
    atomic_store(&d.stopping, false);
    atomic_store(&d.aborting, false);

    if (pthread_create(&d.listener, NULL, listener_main, NULL) != 0) {
        snprintf(err, errlen, "webhooks: cannot start the listener thread");
        return -1;
    }
    d.listener_started = true;
    for (unsigned i = 0; i < cfg->webhook_workers; i++) {
        if (pthread_create(&d.workers[i], NULL, worker_main, (void *)(uintptr_t)i) != 0) {
            snprintf(err, errlen, "webhooks: cannot start worker thread %u", i);
            imx_webhooks_stop(0);
            return -1;
        }
        pthread_mutex_lock(&d.lock);
        d.n_workers++;
        d.running++;
        pthread_mutex_unlock(&d.lock);
    }
    imx_info("webhooks: %u dispatcher workers started (timeout %ums, schedule %s)", d.n_workers,
             d.timeout_ms, cfg->webhook_schedule);
    return 0;
}

void imx_webhooks_stop(unsigned grace_ms)
{
    if (!d.listener_started)
        return;
    atomic_store(&d.stopping, true);
    wake_workers();
    if (d.stop_pipe[1] >= 0 && write(d.stop_pipe[1], "x", 1) < 0)
        imx_warn("webhooks: cannot wake the listener");

    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += grace_ms / 1000;
    until.tv_nsec += (long)(grace_ms % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&d.lock);
    while (d.running > 0)
        if (pthread_cond_timedwait(&d.wake, &d.lock, &until) != 0)
            break;
    pthread_mutex_unlock(&d.lock);
    atomic_store(&d.aborting, true);

    for (unsigned i = 0; i < d.n_workers; i++)
        pthread_join(d.workers[i], NULL);
    pthread_join(d.listener, NULL);
    close(d.stop_pipe[0]);
    close(d.stop_pipe[1]);
    d.stop_pipe[0] = d.stop_pipe[1] = -1;
    free(d.workers);
    free(d.url);
    d.workers = NULL;
    d.url = NULL;
    d.n_workers = d.running = 0;
    d.listener_started = false;
}
