/* Token buckets in a fixed table (no allocation per caller): open addressing over a short probe
 * window, the least recently used slot of the window reused when every slot is taken (that
 * caller starts with a full bucket: the table bounds memory, not the callers). */
#include "http/ratelimit.h"

#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#define SLOTS   8192 /* a power of two */
#define PROBE   16
#define STRIPES 64

struct bucket {
    uint64_t key; /* 0: free */
    double tokens;
    double last; /* seconds, monotonic */
};

static struct bucket table[SLOTS];
static pthread_mutex_t locks[STRIPES];
static unsigned limit;
static double per_second;

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

bool imx_ratelimit_take(uint64_t key, unsigned *left, unsigned *reset_s)
{
    *left = limit;
    *reset_s = 0;
    if (limit == 0 || key == 0)
        return true;
    /* A probe window never crosses a stripe: windows start at multiples of PROBE. */
    size_t start = (size_t)(mix(key) % (SLOTS / PROBE)) * PROBE;
    pthread_mutex_t *m = &locks[(start / PROBE) % STRIPES];
    double now = now_s();
    pthread_mutex_lock(m);
    struct bucket *b = NULL, *lru = &table[start];
    for (size_t i = start; i < start + PROBE; i++) {
        if (table[i].key == key || table[i].key == 0) {
            b = &table[i];
            break;
        }
        if (table[i].last < lru->last)
            lru = &table[i];
    }
    if (!b)
        b = lru;
    if (b->key != key) {
        b->key = key;
        b->tokens = limit;
        b->last = now;
    }
    b->tokens = fmin((double)limit, b->tokens + (now - b->last) * per_second);
    b->last = now;
    bool ok = b->tokens >= 1.0;
    if (ok)
        b->tokens -= 1.0;
    *left = (unsigned)b->tokens;
    *reset_s = b->tokens >= 1.0 ? 0 : (unsigned)ceil((1.0 - b->tokens) / per_second);
    if (!ok && *reset_s == 0)
        *reset_s = 1;
    pthread_mutex_unlock(m);
    return ok;
}
