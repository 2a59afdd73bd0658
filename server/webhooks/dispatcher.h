/* The webhook dispatcher: worker threads that claim due deliveries from the outbox (FOR UPDATE
 * SKIP LOCKED, with a lease), post them signed per Standard Webhooks with libcurl, and record
 * every attempt. A listener thread on a dedicated connection (LISTEN imx_webhooks) wakes the
 * workers on commit of new events; a timer (IMAXE_WEBHOOK_POLL_MS) catches due retries and
 * expired leases. Any number of processes may run it against one database. */
#ifndef IMX_WEBHOOK_DISPATCHER_H
#define IMX_WEBHOOK_DISPATCHER_H

#include <stdbool.h>
#include <stddef.h>

#include "util/config.h"

/* Starts cfg->webhook_workers workers and the listener; the connection pool must be
 * initialised. Returns 0 (also when there are no workers to start), or -1 with err. */
int imx_webhooks_start(const struct imx_config *cfg, char *err, size_t errlen);

/* Stops taking new deliveries, lets the ones in flight finish for up to grace_ms, then aborts
 * the rest (their leases run out and another worker retries them) and joins every thread. */
void imx_webhooks_stop(unsigned grace_ms);

/* The outbox as the last retention pass saw it: deliveries pending and events stored. false
 * (both -1) when this process runs no dispatcher or has not looked yet. */
bool imx_webhooks_outbox(long long *pending, long long *events);

#endif
