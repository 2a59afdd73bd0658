/* The conformance log (tests only): with IMAXE_CONFORMANCE_LOG=DIR set, every response a route
 * answered is appended to DIR/server-PID.ndjson (a JSON line, then its JSON body on a line), for
 * tools/conformance.mjs to check against api/openapi.yaml after the test run. */
#ifndef IMX_CONFORMANCE_H
#define IMX_CONFORMANCE_H

#include "http/request.h"

/* Opens the log when IMAXE_CONFORMANCE_LOG names a directory. Returns 0, or -1 with a message. */
int imx_conformance_open(char *err, size_t errlen);

/* Appends r's response: a line of route template, method, status and headers, then, for a JSON
 * answer, a line with the body as sent. No-op when off. */
void imx_conformance_record(const struct imx_req *r);

#endif
