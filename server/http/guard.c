/* The connection guard: a registry of open connections with the phase each is in, a reaper
 * thread that enforces the head deadline and the body rate, and the reading caps (see guard.h). */
#include "http/guard.h"

#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#include "util/log.h"
#include "util/urlcode.h"

enum phase {
    PHASE_HEAD,      /* waiting for, or reading, a request head */
    PHASE_BODY,      /* reading a request body */
    PHASE_ANSWERING, /* the handler runs */
    PHASE_SENDING,   /* the response is queued and being sent */
};

struct watched {
    struct watched *prev, *next;
    int fd;
    unsigned char addr[16]; /* IPv4 as ::ffff:a.b.c.d */
    enum phase phase;
    int64_t phase_start_ms;
    size_t body_bytes;
    unsigned long answered; /* requests answered on this connection */
    bool closing;           /* shut down by us; no longer counted */
    bool url_bad;
    /* While sending: what the peer had acknowledged when last seen, and when that last moved. */
    uint64_t acked;
    int64_t progress_ms;
    unsigned unread; /* answers in a row whose predecessor the client had not yet taken */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct watched *head;
static struct imx_guard_settings cfg;
static pthread_t reaper;
static bool running, stopping;
static struct imx_guard_stats stats;

/* What a closed reader is told, if it still listens. */
static const char timeout_reply[] = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n"
                                    "Content-Length: 0\r\n\r\n";

/* How often the reaper looks. */
#define REAP_INTERVAL_MS 100

/* A reader younger than this is never evicted to make room (see evictable). */
#define EVICT_MIN_AGE_MS 100

/* Near the connection limit, a client that has taken nothing of its answer for this long may be
 * closed to make room: several round trips of a distant client, far less than a non-reader holds
 * a connection. */
#define EVICT_STALL_MS 500

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void addr_key(const struct sockaddr *sa, unsigned char out[16])
{
    memset(out, 0, 16);
    if (!sa)
        return;
    if (sa->sa_family == AF_INET) {
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
    }
}

/* Closes w's connection from outside its thread; the caller holds the lock. The record stays
 * until libmicrohttpd reports the connection closed, which it does before it closes the socket,
 * so fd still names this connection here. */
static void shut(struct watched *w)
{
    if (w->closing)
        return;
    w->closing = true;
    /* A 408 for a request under way. An idle keep-alive connection closes silently: a client
     * sending its next request at this moment would take a 408 for that request's answer. */
    if (w->phase == PHASE_BODY || (w->phase == PHASE_HEAD && w->answered == 0))
        (void)send(w->fd, timeout_reply, sizeof timeout_reply - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    shutdown(w->fd, SHUT_RDWR);
}

static bool reading(const struct watched *w)
{
    return !w->closing && (w->phase == PHASE_HEAD || w->phase == PHASE_BODY);
}

/* Bytes of ours the peer has acknowledged so far, and whether any are still unacknowledged in the
 * socket's queue (a client that does not read stops acknowledging once its receive buffer is
 * full). */
static uint64_t acked_bytes(int fd, bool *waiting)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    int outq = 0;
    memset(&ti, 0, sizeof ti);
    *waiting = ioctl(fd, SIOCOUTQ, &outq) == 0 && outq > 0;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
        len < offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof ti.tcpi_bytes_acked)
        return 0;
    return ti.tcpi_bytes_acked;
}

/* With the lock held: notes progress of a sending connection; true when its answer has stalled,
 * the client taking nothing for stall_ms while bytes wait for it. */
static bool stalled(struct watched *w, int64_t now, int64_t stall_ms)
{
    bool waiting;
    uint64_t a = acked_bytes(w->fd, &waiting);
    if (a != w->acked || !waiting) {
        w->acked = a;
        w->progress_ms = now;
        return false;
    }
    return now - w->progress_ms >= stall_ms;
}

static int by_progress(const void *a, const void *b)
{
    const struct watched *x = *(const struct watched *const *)a;
    const struct watched *y = *(const struct watched *const *)b;
    return x->progress_ms < y->progress_ms ? -1 : x->progress_ms > y->progress_ms;
}

/* May w go to make room? Only a reader that has been at it a while and has nothing waiting in
 * its socket: one whose request is in but not yet parsed (this server's delay, in a burst of new
 * connections) is not the client's fault. */
static bool evictable(const struct watched *w, int64_t now)
{
    int pending = 0;
    if (!reading(w) || now - w->phase_start_ms < EVICT_MIN_AGE_MS)
        return false;
    return ioctl(w->fd, FIONREAD, &pending) != 0 || pending == 0;
}

static int by_addr_then_age(const void *a, const void *b)
{
    const struct watched *x = *(const struct watched *const *)a;
    const struct watched *y = *(const struct watched *const *)b;
    int c = memcmp(x->addr, y->addr, 16);
    if (c)
        return c;
    return x->phase_start_ms < y->phase_start_ms ? -1 : x->phase_start_ms > y->phase_start_ms;
}

static int by_age(const void *a, const void *b)
{
    const struct watched *x = *(const struct watched *const *)a;
    const struct watched *y = *(const struct watched *const *)b;
    return x->phase_start_ms < y->phase_start_ms ? -1 : x->phase_start_ms > y->phase_start_ms;
}

/* With the lock held: near the connection limit, connections held by clients that do not read
 * their answers (stalled for EVICT_STALL_MS or more), and idle keep-alive ones, are closed,
 * the longest stalled first, until the count is under the mark again: a full table of such
 * clients must not refuse a fresh one. */
static void make_room(int64_t now)
{
    size_t total = 0;
    for (struct watched *w = head; w; w = w->next)
        total += !w->closing;
    size_t mark = cfg.conn_limit - cfg.conn_limit / 8;
    if (cfg.conn_limit == 0 || total <= mark)
        return;
    struct watched **v = malloc(total * sizeof *v);
    if (!v)
        return;
    size_t k = 0;
    for (struct watched *w = head; w && k < total; w = w->next) {
        if (w->closing)
            continue;
        if (w->phase == PHASE_SENDING && stalled(w, now, EVICT_STALL_MS))
            v[k++] = w;
        else if (w->phase == PHASE_HEAD && w->answered > 0 && evictable(w, now))
            v[k++] = w;
    }
    qsort(v, k, sizeof *v, by_progress);
    for (size_t i = 0; i < k && total > mark; i++, total--) {
        shut(v[i]);
        stats.evicted_senders++;
    }
    free(v);
}

/* With the lock held: past a cap, the readers that have been reading longest go, per address
 * and then in all. */
static void enforce_caps(int64_t now)
{
    size_t n = 0;
    for (struct watched *w = head; w; w = w->next)
        n += reading(w);
    if (n <= cfg.per_ip_reading_limit && n <= cfg.reading_limit)
        return;
    struct watched **v = malloc(n * sizeof *v);
    if (!v)
        return;
    size_t k = 0;
    for (struct watched *w = head; w && k < n; w = w->next)
        if (reading(w))
            v[k++] = w;
    qsort(v, k, sizeof *v, by_addr_then_age);
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j < k && memcmp(v[j]->addr, v[i]->addr, 16) == 0)
            j++;
        size_t over = j - i > cfg.per_ip_reading_limit ? j - i - cfg.per_ip_reading_limit : 0;
        for (size_t m = i; m < j && over > 0; m++)
            if (evictable(v[m], now)) {
                shut(v[m]);
                stats.evicted++;
                over--;
            }
        i = j;
    }
    size_t left = 0;
    for (size_t i = 0; i < k; i++)
        if (reading(v[i]))
            v[left++] = v[i];
    if (left > cfg.reading_limit) {
        qsort(v, left, sizeof *v, by_age);
        size_t over = left - cfg.reading_limit;
        for (size_t m = 0; m < left && over > 0; m++)
            if (evictable(v[m], now)) {
                shut(v[m]);
                stats.evicted++;
                over--;
            }
    }
    free(v);
}

static void *reap(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += REAP_INTERVAL_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&wake, &lock, &until);
        int64_t now = now_ms();
        enforce_caps(now);
        make_room(now);
        for (struct watched *w = head; w; w = w->next) {
            if (w->closing)
                continue;
            int64_t age = now - w->phase_start_ms;
            if (w->phase == PHASE_HEAD && age > (int64_t)cfg.header_timeout_ms) {
                shut(w);
                stats.head_timeouts++;
            } else if (w->phase == PHASE_BODY && age > (int64_t)cfg.header_timeout_ms &&
                       (double)w->body_bytes * 1000.0 <
                           (double)cfg.body_min_rate * (double)(age - cfg.header_timeout_ms)) {
                shut(w);
                stats.slow_bodies++;
            } else if (w->phase == PHASE_SENDING && stalled(w, now, (int64_t)cfg.answer_stall_ms)) {
                shut(w);
                stats.stalled_answers++;
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

int imx_guard_start(const struct imx_guard_settings *s)
{
    cfg = *s;
    stopping = false;
    if (pthread_create(&reaper, NULL, reap, NULL) != 0)
        return -1;
    running = true;
    return 0;
}

void imx_guard_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    stopping = true;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(reaper, NULL);
    running = false;
}

void imx_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                      enum MHD_ConnectionNotificationCode toe)
{
    (void)cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        struct watched *w = calloc(1, sizeof *w);
        if (!w)
            return; /* unguarded: it still has libmicrohttpd's idle timeout */
        const union MHD_ConnectionInfo *fd =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ca =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        w->fd = fd ? fd->connect_fd : -1;
        addr_key(ca ? ca->client_addr : NULL, w->addr);
        w->phase = PHASE_HEAD;
        w->phase_start_ms = now_ms();
        pthread_mutex_lock(&lock);
        w->next = head;
        if (head)
            head->prev = w;
        head = w;
        enforce_caps(w->phase_start_ms);
        make_room(w->phase_start_ms);
        pthread_mutex_unlock(&lock);
        *socket_context = w;
        return;
    }
    struct watched *w = *socket_context;
    if (!w)
        return;
    pthread_mutex_lock(&lock);
    if (w->prev)
        w->prev->next = w->next;
    else
        head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    pthread_mutex_unlock(&lock);
    free(w);
    *socket_context = NULL;
}

static struct watched *find(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

static void set_phase(struct MHD_Connection *conn, enum phase p)
{
    struct watched *w = find(conn);
    if (!w)
        return;
    pthread_mutex_lock(&lock);
    w->phase = p;
    w->phase_start_ms = w->progress_ms = now_ms();
    w->body_bytes = 0;
    if (p == PHASE_HEAD)
        w->url_bad = false;
    pthread_mutex_unlock(&lock);
}

void imx_guard_head_done(struct MHD_Connection *conn)
{
    struct watched *w = find(conn);
    if (w && w->answered > 0) {
        /* A request read while the previous answer still waits in the socket for the client was
         * pipelined behind an answer it has not taken. */
        int outq = 0;
        bool unread = ioctl(w->fd, SIOCOUTQ, &outq) == 0 && outq > 0;
        pthread_mutex_lock(&lock);
        w->unread = unread ? w->unread + 1 : 0;
        pthread_mutex_unlock(&lock);
    }
    set_phase(conn, PHASE_BODY);
}

bool imx_guard_sending(struct MHD_Connection *conn)
{
    struct watched *w = find(conn);
    if (!w)
        return false;
    bool unused;
    uint64_t a = acked_bytes(w->fd, &unused);
    pthread_mutex_lock(&lock);
    w->phase = PHASE_SENDING;
    w->phase_start_ms = w->progress_ms = now_ms();
    w->acked = a;
    bool last = w->unread >= cfg.pipeline_max;
    if (last)
        stats.pipeline_closed++;
    pthread_mutex_unlock(&lock);
    return last;
}

void imx_guard_body_bytes(struct MHD_Connection *conn, size_t n)
{
    struct watched *w = find(conn);
    if (!w)
        return;
    pthread_mutex_lock(&lock);
    w->body_bytes += n;
    pthread_mutex_unlock(&lock);
}

void imx_guard_answering(struct MHD_Connection *conn)
{
    set_phase(conn, PHASE_ANSWERING);
}

void imx_guard_request_done(struct MHD_Connection *conn)
{
    struct watched *w = find(conn);
    if (w) {
        pthread_mutex_lock(&lock);
        w->answered++;
        pthread_mutex_unlock(&lock);
    }
    set_phase(conn, PHASE_HEAD);
}

static void mark_url_bad(struct MHD_Connection *conn)
{
    struct watched *w = find(conn);
    if (w) {
        pthread_mutex_lock(&lock);
        w->url_bad = true;
        pthread_mutex_unlock(&lock);
    }
}

void *imx_guard_uri_log(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    for (const unsigned char *p = (const unsigned char *)uri; p && *p; p++)
        if (*p <= 0x20 || *p == 0x7f) {
            mark_url_bad(conn);
            break;
        }
    return NULL;
}

size_t imx_guard_unescape(void *cls, struct MHD_Connection *conn, char *s)
{
    (void)cls;
    bool bad = false;
    size_t n = imx_percent_decode(s, &bad);
    if (bad)
        mark_url_bad(conn);
    return n;
}

bool imx_guard_url_bad(struct MHD_Connection *conn)
{
    struct watched *w = find(conn);
    if (!w)
        return false;
    pthread_mutex_lock(&lock);
    bool bad = w->url_bad;
    pthread_mutex_unlock(&lock);
    return bad;
}

void imx_guard_stats(struct imx_guard_stats *out)
{
    pthread_mutex_lock(&lock);
    *out = stats;
    pthread_mutex_unlock(&lock);
}
