/* The image-request state machine as a table of legal moves with who may make them. */
#include "domain/request_state.h"

#include <string.h>

static const char *const names[IMX_REQ__COUNT] = {
    [IMX_REQ_OPEN] = "open",         [IMX_REQ_APPROVED] = "approved",
    [IMX_REQ_BUILDING] = "building", [IMX_REQ_FULFILLED] = "fulfilled",
    [IMX_REQ_REJECTED] = "rejected", [IMX_REQ_WITHDRAWN] = "withdrawn",
};

#define CATALOG   IMX_REQ_ACTOR_CATALOG
#define REQUESTER IMX_REQ_ACTOR_REQUESTER

/* Every legal move. The catalog team decides and builds; the requester may withdraw until the
 * request is final. Fulfilling needs the image; rejecting needs a reason. */
static const struct move {
    enum imx_request_state from, to;
    unsigned actors;
    struct imx_request_needs needs;
} moves[] = {
    { IMX_REQ_OPEN, IMX_REQ_APPROVED, CATALOG, { false, false } },
    { IMX_REQ_OPEN, IMX_REQ_REJECTED, CATALOG, { false, true } },
    { IMX_REQ_OPEN, IMX_REQ_WITHDRAWN, REQUESTER, { false, false } },
    { IMX_REQ_APPROVED, IMX_REQ_BUILDING, CATALOG, { false, false } },
    { IMX_REQ_APPROVED, IMX_REQ_REJECTED, CATALOG, { false, true } },
    { IMX_REQ_APPROVED, IMX_REQ_WITHDRAWN, REQUESTER, { false, false } },
    { IMX_REQ_BUILDING, IMX_REQ_FULFILLED, CATALOG, { true, false } },
    { IMX_REQ_BUILDING, IMX_REQ_REJECTED, CATALOG, { false, true } },
    { IMX_REQ_BUILDING, IMX_REQ_WITHDRAWN, REQUESTER, { false, false } },
};

const char *imx_request_state_name(enum imx_request_state s)
{
    return (unsigned)s < IMX_REQ__COUNT ? names[s] : NULL;
}

int imx_request_state_parse(const char *s)
{
    for (int i = 0; s && i < IMX_REQ__COUNT; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

bool imx_request_state_final(enum imx_request_state s)
{
    return s == IMX_REQ_FULFILLED || s == IMX_REQ_REJECTED || s == IMX_REQ_WITHDRAWN;
}

enum imx_request_move imx_request_move_check(enum imx_request_state from, enum imx_request_state to,
                                             unsigned actors, struct imx_request_needs *needs)
{
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
        if (moves[i].from != from || moves[i].to != to)
            continue;
        if (needs)
            *needs = moves[i].needs;
        return (moves[i].actors & actors) ? IMX_REQ_MOVE_OK : IMX_REQ_MOVE_FORBIDDEN;
    }
    return IMX_REQ_MOVE_ILLEGAL;
}

size_t imx_request_moves_from(enum imx_request_state from, unsigned actors,
                              enum imx_request_state *out)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++)
        if (moves[i].from == from && (actors == 0 || (moves[i].actors & actors)))
            out[n++] = moves[i].to;
    return n;
}
