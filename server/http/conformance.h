/* The conformance log (tests only): with IMAXE_CONFORMANCE_LOG=DIR set, every response a route
 * answered is appended as one NDJSON line to DIR/server-PID.ndjson, for tools/conformance.mjs to
 * check against api/openapi.yaml after the test run. */
#ifndef IMX_CONFORMANCE_H
#define IMX_CONFORMANCE_H

#include "http/request.h"

/* Opens the log when IMAXE_CONFORMANCE_LOG names a directory. Returns 0, or -1 with a message. */
int imx_conformance_open(char *err, size_t errlen);

/* Appends r's response (route template, method, status, headers, JSON body); no-op when off. */
void imx_conformance_record(const struct imx_req *r);

#endif
