/* A connection of its own that LISTENs on one channel: the webhook dispatcher's wake-ups, so that
 * its loop (webhooks/dispatcher.c) polls a descriptor and never sees libpq. */
#ifndef IMX_DB_LISTEN_H
#define IMX_DB_LISTEN_H

#include <stddef.h>

struct imx_db_listener;

/* Connects (the pool's settings) and LISTENs on channel (an identifier, not quoted). NULL on
 * error, with the reason in err. */
struct imx_db_listener *imx_db_listen(const char *url, unsigned stmt_ms, const char *channel,
                                      char *err, size_t errlen);

/* The descriptor to poll for notifications. */
int imx_db_listener_fd(const struct imx_db_listener *l);

/* Reads what arrived: how many notifications (0 or more), or -1 when the connection broke. */
int imx_db_listener_drain(struct imx_db_listener *l);

/* Closes it; NULL is a no-op. */
void imx_db_listener_close(struct imx_db_listener *l);

#endif
