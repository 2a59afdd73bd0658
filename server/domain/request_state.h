/* The life of an image request: open -> approved -> building -> fulfilled, or rejected (by the
 * catalog team, with a reason) or withdrawn (by the requester), and who may make each move. */
#ifndef IMX_DOMAIN_REQUEST_STATE_H
#define IMX_DOMAIN_REQUEST_STATE_H

/* Pure C: a table, no I/O, no shared state. */

#include <stdbool.h>
#include <stddef.h>

enum imx_request_state {
    IMX_REQ_OPEN,
    IMX_REQ_APPROVED,
    IMX_REQ_BUILDING,
    IMX_REQ_FULFILLED,
    IMX_REQ_REJECTED,
    IMX_REQ_WITHDRAWN,
    IMX_REQ__COUNT
};

/* Who is moving the request; a caller may be both (a bit set). */
enum imx_request_actor {
    IMX_REQ_ACTOR_CATALOG = 1,   /* a publisher (or admin) of the catalog team, or a global admin */
    IMX_REQ_ACTOR_REQUESTER = 2, /* a member (or above) of the requesting team */
};

/* "open", "approved", ...; NULL for an out-of-range value. Static. */
const char *imx_request_state_name(enum imx_request_state s);

/* The state named s; -1 when unknown (or NULL). */
int imx_request_state_parse(const char *s);

/* Is s final (fulfilled, rejected, withdrawn)? */
bool imx_request_state_final(enum imx_request_state s);

enum imx_request_move {
    IMX_REQ_MOVE_OK,
    IMX_REQ_MOVE_ILLEGAL,   /* no such transition from this state (409) */
    IMX_REQ_MOVE_FORBIDDEN, /* legal, but not for this actor (403) */
};

/* What a legal transition needs besides the actor. */
struct imx_request_needs {
    bool image;   /* to fulfilled: the image that fulfils it */
    bool comment; /* to rejected: the reason */
};

/* Checks from -> to for actors (a mask of enum imx_request_actor). Fills *needs (may be NULL)
 * when the transition exists. */
enum imx_request_move imx_request_move_check(enum imx_request_state from, enum imx_request_state to,
                                             unsigned actors, struct imx_request_needs *needs);

/* The states reachable from `from` by these actors (any actor when actors is 0), in table order,
 * into out (room for IMX_REQ__COUNT). Returns how many. */
size_t imx_request_moves_from(enum imx_request_state from, unsigned actors,
                              enum imx_request_state *out);

#endif
