/* Token buckets in a fixed table (no allocation per caller): open addressing over a short probe
 * window, the least recently used slot of the window reused when every slot is taken (that
 * caller starts with a fresh share: the table bounds memory, not the callers). Each slot holds
 * this replica's share of the caller's shared bucket and what it took since the last
 * reconciliation (see ratelimit.h). */
#include "http/ratelimit.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS   8192 /* a power of two */
#define PROBE   16
#define STRIPES 64

/* A caller idle longer than this is no longer reconciled: its shared bucket is full again. */
#define ACTIVE_S 120.0

struct bucket {
    uint64_t key;   /* 0: free */
    double tokens;  /* this replica's share: may be negative (the caller is in debt) */
    double last;    /* seconds, monotonic: the last refill */
    double used;    /* seconds, monotonic: the last request */
    unsigned taken; /* requests taken since the last reconciliation */
};

static struct bucket table[SLOTS];
static pthread_mutex_t locks[STRIPES];
static unsigned limit;
static double per_second;
static _Atomic unsigned replicas = 1;

void imx_ratelimit_init(unsigned per_minute)
{
    limit = per_minute;
    per_second = per_minute / 60.0;
    for (int i = 0; i < STRIPES; i++)
        pthread_mutex_init(&locks[i], NULL);
}

unsigned imx_ratelimit_limit(void)
{
    return limit;
}

unsigned imx_ratelimit_replicas(void)
{
    return atomic_load(&replicas);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* A probe window never crosses a stripe: windows start at multiples of PROBE. */
static size_t window_of(uint64_t key)
{
    return (size_t)(mix(key) % (SLOTS / PROBE)) * PROBE;
}

static pthread_mutex_t *lock_of(size_t start)
{
    return &locks[(start / PROBE) % STRIPES];
}

bool imx_ratelimit_take(uint64_t key, unsigned *left, unsigned *reset_s)
{
    *left = limit;
    *reset_s = 0;
    if (limit == 0 || key == 0)
        return true;
    size_t start = window_of(key);
    pthread_mutex_t *m = lock_of(start);
    double n = (double)atomic_load(&replicas);
    double cap = limit / n, rate = per_second / n;
    double now = now_s();
    pthread_mutex_lock(m);
    struct bucket *b = NULL, *lru = &table[start];
    for (size_t i = start; i < start + PROBE; i++) {
        if (table[i].key == key || table[i].key == 0) {
            b = &table[i];
            break;
        }
        if (table[i].used < lru->used)
            lru = &table[i];
    }
    if (!b)
        b = lru;
    if (b->key != key) {
        b->key = key;
        b->tokens = cap;
        b->last = now;
        b->taken = 0;
    }
    b->tokens = fmin(cap, b->tokens + (now - b->last) * rate);
    b->last = now;
    b->used = now;
    bool ok = b->tokens >= 1.0;
    if (ok) {
        b->tokens -= 1.0;
        b->taken++;
    }
    *left = b->tokens > 0 ? (unsigned)(b->tokens * n) : 0;
    *reset_s = b->tokens >= 1.0 ? 0 : (unsigned)ceil((1.0 - b->tokens) / rate);
    if (!ok && *reset_s == 0)
        *reset_s = 1;
    pthread_mutex_unlock(m);
    return ok;
}

/* The reconciling thread's scratch: one entry a slot at most. */
static struct imx_ratelimit_delta deltas[SLOTS];

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const struct imx_ratelimit_delta *)a)->key;
    uint64_t y = ((const struct imx_ratelimit_delta *)b)->key;
    return x < y ? -1 : x > y;
}

static struct bucket *find(uint64_t key, size_t start)
{
    for (size_t i = start; i < start + PROBE; i++)
        if (table[i].key == key)
            return &table[i];
    return NULL;
}

int imx_ratelimit_reconcile(imx_ratelimit_exchange_fn fn, void *cls)
{
    if (limit == 0)
        return 0;
    size_t n = 0;
    double now = now_s();
    for (size_t s = 0; s < SLOTS; s += PROBE) {
        pthread_mutex_t *m = lock_of(s);
        pthread_mutex_lock(m);
        for (size_t i = s; i < s + PROBE; i++) {
            struct bucket *b = &table[i];
            if (b->key == 0 || (b->taken == 0 && now - b->used > ACTIVE_S))
                continue;
            deltas[n++] = (struct imx_ratelimit_delta){ .key = b->key, .taken = b->taken };
            b->taken = 0;
        }
        pthread_mutex_unlock(m);
    }
    qsort(deltas, n, sizeof deltas[0], by_key);
    unsigned live = 1;
    int rc = fn(cls, deltas, n, &live);
    if (live < 1)
        live = 1;
    if (rc == 0)
        atomic_store(&replicas, live);
    double share = rc == 0 ? 1.0 / live : 0;
    now = now_s();
    for (size_t k = 0; k < n; k++) {
        size_t start = window_of(deltas[k].key);
        pthread_mutex_t *m = lock_of(start);
        pthread_mutex_lock(m);
        struct bucket *b = find(deltas[k].key, start);
        if (b && rc == 0) {
            /* What was taken here since the snapshot is not in the shared figure yet. */
            b->tokens = fmax(-(double)limit, deltas[k].tokens) * share - b->taken;
            b->last = now;
        } else if (b) {
            b->taken += deltas[k].taken; /* sent next time */
        }
        pthread_mutex_unlock(m);
    }
    return rc;
}
