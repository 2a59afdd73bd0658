/* The principal cache: a direct-mapped table of IMX_PCACHE_SLOTS entries keyed by a string,
 * each slot with its own lock among IMX_PCACHE_LOCKS (a lookup holds one lock for a copy). */
#include "api/principal_cache.h"

#include <pthread.h>
#include <string.h>

#define IMX_PCACHE_LOCKS 64

struct slot {
    char key[IMX_PCACHE_KEY_MAX + 1]; /* "" when empty */
    struct imx_pcache_entry e;
};

static struct slot slots[IMX_PCACHE_SLOTS];
static pthread_mutex_t locks[IMX_PCACHE_LOCKS] = {
#define L PTHREAD_MUTEX_INITIALIZER
    L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L,
    L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L,
#undef L
};

/* FNV-1a of the key. */
static size_t slot_of(const char *key)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (size_t)(h % IMX_PCACHE_SLOTS);
}

bool imx_pcache_get(const char *key, time_t now, struct imx_pcache_entry *out)
{
    if (strlen(key) > IMX_PCACHE_KEY_MAX)
        return false;
    size_t i = slot_of(key);
    pthread_mutex_t *m = &locks[i % IMX_PCACHE_LOCKS];
    pthread_mutex_lock(m);
    bool hit = strcmp(slots[i].key, key) == 0 && now < slots[i].e.expires_at;
    if (hit)
        *out = slots[i].e;
    pthread_mutex_unlock(m);
    return hit;
}

void imx_pcache_put(const char *key, const struct imx_pcache_entry *e)
{
    if (strlen(key) > IMX_PCACHE_KEY_MAX)
        return;
    size_t i = slot_of(key);
    pthread_mutex_t *m = &locks[i % IMX_PCACHE_LOCKS];
    pthread_mutex_lock(m);
    /* A newer epoch wins; an entry read at an older one than what the slot holds is stale. */
    if (strcmp(slots[i].key, key) != 0 || slots[i].e.epoch <= e->epoch) {
        strcpy(slots[i].key, key);
        slots[i].e = *e;
    }
    pthread_mutex_unlock(m);
}

void imx_pcache_drop(const char *key)
{
    size_t i = slot_of(key);
    pthread_mutex_t *m = &locks[i % IMX_PCACHE_LOCKS];
    pthread_mutex_lock(m);
    if (strcmp(slots[i].key, key) == 0)
        slots[i].key[0] = '\0';
    pthread_mutex_unlock(m);
}

void imx_pcache_clear(void)
{
    for (size_t i = 0; i < IMX_PCACHE_SLOTS; i++) {
        pthread_mutex_t *m = &locks[i % IMX_PCACHE_LOCKS];
        pthread_mutex_lock(m);
        slots[i].key[0] = '\0';
        pthread_mutex_unlock(m);
    }
}
