/* Passwords: Argon2id through libsodium, with a dummy hash so unknown accounts cost the same.
 * Hashes and checks run on a fixed set of worker threads (the slots) at a lower CPU priority, so
 * a sign-in flood takes at most slots x 64 MiB and leaves the cores to other requests; a caller
 * whose job waits in the queue longer than the wait gets IMX_PASSWORD_BUSY instead. */
#include "auth/password.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"

/* Nice value of the workers: a sign-in still runs on an idle machine, and yields on a busy one. */
#define WORKER_NICE 19

struct job {
    struct job *next;
    const char *hash; /* check: the stored hash (the dummy one for unknown accounts) */
    const char *pw;
    char *out; /* hash: crypto_pwhash_STRBYTES bytes */
    int rc;    /* 0: hashed, or the password matched */
    bool taken, done;
};

/* What an unknown account's password is checked against, so that the answer costs what a wrong
 * password costs. A fixed hash of a random password thrown away (libsodium's interactive limits,
 * those imx_password_hash uses): knowing it helps nobody, since an unknown account never matches,
 * and a constant spares every start an Argon2id hash at the lowest priority (seconds on a busy
 * host). */
static const char dummy_hash[crypto_pwhash_STRBYTES] =
    "$argon2id$v=19$m=65536,t=2,p=1$k5zUQWsh6adRZrdpml6TZg$"
    "mluwW53POzL9YAGW9OVfo2c7UngSxv2qh5VOErVK5dA";
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER, finished = PTHREAD_COND_INITIALIZER;
static struct job *first, *last;
static unsigned nslots, slot_wait_ms;
static atomic_ullong busy;

static void run(struct job *j)
{
    if (j->out)
        j->rc = crypto_pwhash_str(j->out, j->pw, strlen(j->pw), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                                  crypto_pwhash_MEMLIMIT_INTERACTIVE);
    else
        j->rc = crypto_pwhash_str_verify(j->hash, j->pw, strlen(j->pw));
}

static void *worker(void *arg)
{
    (void)arg;
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WORKER_NICE) != 0)
        imx_debug("password worker: cannot lower its priority");
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!first)
            pthread_cond_wait(&queued, &lock);
        struct job *j = first;
        first = j->next;
        if (!first)
            last = NULL;
        j->taken = true;
        pthread_mutex_unlock(&lock);
        run(j);
        pthread_mutex_lock(&lock);
        j->done = true;
        pthread_cond_broadcast(&finished);
    }
    return NULL;
}

/* Queues j and waits for it. Returns false when no worker took it within the wait. */
static bool submit(struct job *j)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += slot_wait_ms / 1000;
    until.tv_nsec += (long)(slot_wait_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&lock);
    if (last)
        last->next = j;
    else
        first = j;
    last = j;
    pthread_cond_signal(&queued);
    while (!j->taken) {
        if (pthread_cond_timedwait(&finished, &lock, &until) != 0 && !j->taken) {
            /* Still queued: take it out again. */
            struct job **pp = &first, *prev = NULL;
            while (*pp && *pp != j) {
                prev = *pp;
                pp = &(*pp)->next;
            }
            if (*pp)
                *pp = j->next;
            if (last == j)
                last = prev;
            pthread_mutex_unlock(&lock);
            atomic_fetch_add(&busy, 1);
            return false;
        }
    }
    while (!j->done)
        pthread_cond_wait(&finished, &lock);
    pthread_mutex_unlock(&lock);
    return true;
}

int imx_password_init(unsigned want_slots, unsigned wait_ms)
{
    if (sodium_init() < 0)
        return -1;
    if (want_slots == 0) {
        /* Half the cores: measured on 2 cores during 48 sign-ins at once, a catalog reader's p95
         * was 50-60 ms with one slot and 160-280 ms with two (Argon2id also fills the memory
         * bandwidth and caches, which a lower priority does not give back). */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        want_slots = cores > 1 ? (unsigned)cores / 2 : 1;
    }
    slot_wait_ms = wait_ms;
    if (nslots == 0) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 * 1024);
        for (unsigned i = 0; i < want_slots; i++) {
            pthread_t t;
            if (pthread_create(&t, &attr, worker, NULL) != 0)
                break;
            pthread_detach(t);
            nslots++;
        }
        pthread_attr_destroy(&attr);
        if (nslots == 0)
            return -1;
    }
    return 0;
}

bool imx_password_dummy_current(void)
{
    return crypto_pwhash_str_needs_rehash(dummy_hash, crypto_pwhash_OPSLIMIT_INTERACTIVE,
                                          crypto_pwhash_MEMLIMIT_INTERACTIVE) == 0;
}

unsigned imx_password_slots(void)
{
    return nslots;
}

unsigned long long imx_password_busy(void)
{
    return atomic_load(&busy);
}

int imx_password_hash(const char *pw, char out[crypto_pwhash_STRBYTES])
{
    struct job j = { .pw = pw, .out = out };
    if (!submit(&j))
        return IMX_PASSWORD_BUSY;
    return j.rc == 0 ? 0 : -1;
}

enum imx_password_result imx_password_check(const char *hash, const char *pw)
{
    struct job j = { .hash = hash ? hash : dummy_hash, .pw = pw };
    if (!submit(&j))
        return IMX_PASSWORD_NO_SLOT;
    return hash && j.rc == 0 ? IMX_PASSWORD_MATCH : IMX_PASSWORD_WRONG;
}
