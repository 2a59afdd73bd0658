/* The connection guard: deadlines that libmicrohttpd's idle timeout (restarted by every byte)
 * does not give. A connection must send its whole request head within a time budget and its
 * body at a minimum average rate, and only so many connections, per address and in all, may be
 * reading a request at once: past a cap the oldest reader is closed, so a fresh client is still
 * answered while slow ones fill the caps. Answers are guarded too: a client must take its answer
 * (one it takes nothing of for a while is cut), may queue only so many requests behind answers it
 * has not read, and near the connection limit connections held by such clients are closed. A reaper
 * thread closes offenders with shutdown(2), which wakes the connection's own thread. */
#ifndef IMX_HTTP_GUARD_H
#define IMX_HTTP_GUARD_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

struct imx_guard_settings {
    unsigned header_timeout_ms; /* from connection start or the previous response to the head */
    unsigned body_min_rate;     /* bytes per second, averaged, after header_timeout_ms of grace */
    unsigned reading_limit;     /* connections reading a request (head or body), in all */
    unsigned per_ip_reading_limit;
    unsigned answer_stall_ms; /* an answer the client takes nothing of for this long is cut */
    unsigned pipeline_max;    /* answers in a row queued behind one the client has not taken */
    unsigned conn_limit;      /* libmicrohttpd's: near it, non-reading clients make room */
};

/* Starts the reaper. Returns 0 or -1. */
int imx_guard_start(const struct imx_guard_settings *s);

/* Stops the reaper (after the daemon stopped). */
void imx_guard_stop(void);

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback. */
void imx_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                      enum MHD_ConnectionNotificationCode toe);

/* The request head is in: the body clock starts. */
void imx_guard_head_done(struct MHD_Connection *conn);

/* n more body bytes arrived. */
void imx_guard_body_bytes(struct MHD_Connection *conn, size_t n);

/* The request is complete and its handler runs: no deadline of ours applies. */
void imx_guard_answering(struct MHD_Connection *conn);

/* The answer is queued: from now the client must take it (an answer it takes nothing of for
 * answer_stall_ms is cut, and near the connection limit such connections are closed first).
 * Returns true when this answer must close the connection: it is the pipeline_max-th in a row
 * queued while the client had not taken the one before. */
bool imx_guard_sending(struct MHD_Connection *conn);

/* The response was sent (or the request ended): the next request head's clock starts. */
void imx_guard_request_done(struct MHD_Connection *conn);

/* libmicrohttpd's MHD_OPTION_UNESCAPE_CALLBACK: percent-decodes in place; an invalid escape or a
 * result that is not UTF-8 marks the request's URL bad. */
size_t imx_guard_unescape(void *cls, struct MHD_Connection *conn, char *s);

/* libmicrohttpd's MHD_OPTION_URI_LOG_CALLBACK: sees the raw request target before it is split and
 * decoded; a raw space or control character in it (0.9.75 at strictness -1 takes "GET /a b
 * HTTP/1.1" as the target "/a b") marks the request's URL bad. Returns NULL (no context). */
void *imx_guard_uri_log(void *cls, const char *uri, struct MHD_Connection *conn);

/* Was this request's URL (path or query) badly escaped or not UTF-8? */
bool imx_guard_url_bad(struct MHD_Connection *conn);

/* Connections the guard closed since start: over the head deadline, too slow a body, or evicted
 * at a cap. */
struct imx_guard_stats {
    unsigned long head_timeouts, slow_bodies, evicted;
    /* an answer the client took nothing of, a non-reader closed to make room near the connection
     * limit, a connection closed after pipeline_max answers queued unread */
    unsigned long stalled_answers, evicted_senders, pipeline_closed;
};
void imx_guard_stats(struct imx_guard_stats *out);

#endif
