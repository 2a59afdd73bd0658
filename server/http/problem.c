/* The registry of error codes: each has its HTTP status, a problem `type` slug and a title. */
#include "http/problem.h"

static const struct imx_problem_def defs[IMX_E__COUNT] = {
    [IMX_E_BAD_REQUEST] = { 400, "bad-request", "Bad request" },
    [IMX_E_VALIDATION] = { 400, "validation-failed", "The request has invalid fields" },
    [IMX_E_MALFORMED_JSON] = { 400, "malformed-json", "The body is not valid JSON" },
    [IMX_E_UNAUTHENTICATED] = { 401, "unauthenticated", "Authentication required" },
    [IMX_E_FORBIDDEN] = { 403, "forbidden", "Not allowed" },
    [IMX_E_NOT_FOUND] = { 404, "not-found", "Not found" },
    [IMX_E_METHOD_NOT_ALLOWED] = { 405, "method-not-allowed", "Method not allowed" },
    [IMX_E_CONFLICT] = { 409, "conflict", "Conflict" },
    [IMX_E_PRECONDITION_FAILED] = { 412, "precondition-failed", "Precondition failed" },
    [IMX_E_PAYLOAD_TOO_LARGE] = { 413, "payload-too-large", "Request body too large" },
    [IMX_E_URI_TOO_LONG] = { 414, "uri-too-long", "URI too long" },
    [IMX_E_HEADERS_TOO_LARGE] = { 431, "header-fields-too-large",
                                  "Request header fields too large" },
    [IMX_E_UNSUPPORTED_MEDIA_TYPE] = { 415, "unsupported-media-type", "Unsupported media type" },
    [IMX_E_UNPROCESSABLE] = { 422, "unprocessable", "The request cannot be carried out" },
    [IMX_E_PRECONDITION_REQUIRED] = { 428, "precondition-required", "If-Match required" },
    [IMX_E_RATE_LIMITED] = { 429, "rate-limited", "Too many requests" },
    [IMX_E_QUOTA_EXCEEDED] = { 429, "quota-exceeded", "A quota is reached" },
    [IMX_E_INTERNAL] = { 500, "internal-error", "Internal server error" },
    [IMX_E_DB_UNAVAILABLE] = { 503, "database-unavailable", "The database is unavailable" },
    [IMX_E_QUERY_TIMEOUT] = { 503, "query-timeout", "The query took too long" },
    [IMX_E_NOT_READY] = { 503, "not-ready", "The server is not ready" },
    [IMX_E_BUSY] = { 503, "busy", "The server is busy" },
};

const struct imx_problem_def *imx_problem_def(enum imx_err err)
{
    if ((unsigned)err >= IMX_E__COUNT)
        err = IMX_E_INTERNAL;
    return &defs[err];
}
