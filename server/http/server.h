/* The HTTP daemon: libmicrohttpd's event threads (epoll, one per CPU by default) read requests
 * and send answers; a route's handler, which may block on PostgreSQL, runs on a handler worker
 * (http/workers.h) while its connection is suspended, and a route with a fast handler answers on
 * the event thread itself, parking the request while its read is in flight (enum imx_fast). */
#ifndef IMX_HTTP_SERVER_H
#define IMX_HTTP_SERVER_H

#include <stdbool.h>

#include "http/request.h"
#include "util/config.h"

/* Checks a request before its handler runs: fills r->principal, or replies 401/403 and
 * returns false. Set by the auth module; NULL means every non-public route answers 401. */
typedef bool (*imx_http_auth_fn)(struct imx_req *r);
extern imx_http_auth_fn imx_http_auth_hook;

/* The same on the event thread, for a route with a fast handler: must not block. Returns true
 * when it let the caller in; false, with nothing replied, when imx_http_auth_hook is to decide
 * (on a worker). NULL: every such request goes to a worker. */
extern imx_http_auth_fn imx_http_fast_auth_hook;

/* Runs the handler of a route marked creates (r->route->handler, wrapped): set by the api
 * module (Idempotency-Key); NULL runs the handler as any other. */
typedef void (*imx_http_create_fn)(struct imx_req *r);
extern imx_http_create_fn imx_http_create_hook;

/* Gives back what the handler held of the layers above (its database connection, rolling back
 * what it left open): set by the api module, called on the thread that ran the handler (or a
 * refusing auth hook) as soon as it is done with the request. NULL: nothing to give back. */
extern imx_http_create_fn imx_http_release_hook;

/* Starts listening. Returns 0, or -1 with a message in err. */
int imx_http_start(const struct imx_config *cfg, char *err, size_t errlen);

/* The port actually bound (useful when IMAXE_PORT=0). */
unsigned imx_http_port(void);

/* Stops accepting connections; answers in-flight requests with Connection: close. */
void imx_http_quiesce(void);

/* Is the server draining (after SIGTERM)? */
bool imx_http_draining(void);

/* Requests being handled now. */
long imx_http_in_flight(void);

/* Requests answered on an event thread and by a handler worker, since start (/metrics). */
void imx_http_answered(unsigned long long *event_thread, unsigned long long *worker);

/* Stops the daemon (closes every connection). */
void imx_http_stop(void);

#endif
