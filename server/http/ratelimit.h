/* A request rate limit per caller (API token, or user signed in with an access token) that holds
 * across replicas without a database round trip per request: a token bucket of
 * IMAXE_RATE_LIMIT_PER_MIN requests refilling continuously, kept in PostgreSQL and reconciled
 * every IMAXE_RATE_LIMIT_SYNC_MS. Between reconciliations each of the N live replicas spends only
 * its share (1/N) of what the shared bucket held, so together they spend the bucket once; what
 * they overspend (a caller new to a replica, a replica not yet counted) is recorded as debt that
 * the caller's later requests repay. deploy/README.md states the worst case. */
#ifndef IMX_HTTP_RATELIMIT_H
#define IMX_HTTP_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/ratelimit_delta.h"

/* Sets the limit (requests a minute; 0 turns it off). Call before serving. */
void imx_ratelimit_init(unsigned per_minute);

/* The limit set (0: off). */
unsigned imx_ratelimit_limit(void);

/* Takes one request from key's bucket (this replica's share of it). Returns false when it is
 * empty; *left is what the whole bucket is estimated to hold (whole requests) and *reset_s the
 * seconds until one more is available here (full: 0). No lock but one of 64 stripes, no I/O. */
bool imx_ratelimit_take(uint64_t key, unsigned *left, unsigned *reset_s);

/* Reconciles with the shared store: every caller seen in the last two minutes, in key order (so
 * that replicas lock rows in the same order), through fn. On failure what was taken is kept to be
 * sent next time. Call from one thread only. Returns 0 or -1. */
int imx_ratelimit_reconcile(imx_ratelimit_exchange_fn fn, void *cls);

/* Live replicas the last reconciliation counted (1 before any). */
unsigned imx_ratelimit_replicas(void);

#endif
