/* The work budget of one request: the CPU time its worker may spend reading what the client
 * sent (IMAXE_PARSE_BUDGET_MS). Parsers of client documents (CSAF, OSV, SBOM, CSV, manifests,
 * import lines) ask imx_budget_spent() in their loops and, once it says yes, stop and report a
 * problem the handler answers with a 4xx: a document that costs too much is refused, it never
 * holds a worker. Work is bounded by input size already (every parser is linear and every body
 * capped); the budget is the second line, for the cost nobody foresaw.
 *
 * Thread CPU time, not wall time: waiting for PostgreSQL or a lock costs the server nothing and
 * does not count. Thread-local: one budget per worker, begun and ended around each handler. */
#ifndef IMX_UTIL_BUDGET_H
#define IMX_UTIL_BUDGET_H

#include <stdbool.h>

/* The budget for documents read on this thread from now on; 0 for none. */
void imx_budget_begin(unsigned ms);

/* No budget from now on (a handler finished). */
void imx_budget_end(void);

/* True once this thread has spent its budget since imx_budget_begin (and from then on until
 * imx_budget_end). Cheap enough for every loop turn: it reads the clock every 64th call. */
bool imx_budget_spent(void);

/* The budget begun on this thread, in ms (0: none): for the problem's text. */
unsigned imx_budget_ms(void);

/* The sentence parsers put in their error list when the budget is spent. */
#define IMX_BUDGET_SPENT_TEXT                                                                      \
    "the document takes more work to read than the server allows one request "                     \
    "(IMAXE_PARSE_BUDGET_MS); send it in smaller parts"

#endif
