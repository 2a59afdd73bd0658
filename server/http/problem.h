/* The registry of error codes: each has its HTTP status, a problem `type` slug and a title. */
#ifndef IMX_PROBLEM_H
#define IMX_PROBLEM_H

enum imx_err {
    IMX_E_BAD_REQUEST,
    IMX_E_VALIDATION,
    IMX_E_MALFORMED_JSON,
    IMX_E_UNAUTHENTICATED,
    IMX_E_FORBIDDEN,
    IMX_E_NOT_FOUND,
    IMX_E_METHOD_NOT_ALLOWED,
    IMX_E_CONFLICT,
    IMX_E_PRECONDITION_FAILED,
    IMX_E_PAYLOAD_TOO_LARGE,
    IMX_E_URI_TOO_LONG,
    IMX_E_HEADERS_TOO_LARGE,
    IMX_E_UNSUPPORTED_MEDIA_TYPE,
    IMX_E_UNPROCESSABLE,
    IMX_E_PRECONDITION_REQUIRED,
    IMX_E_RATE_LIMITED,
    IMX_E_QUOTA_EXCEEDED,
    IMX_E_INTERNAL,
    IMX_E_DB_UNAVAILABLE,
    IMX_E_QUERY_TIMEOUT,
    IMX_E_NOT_READY,
    IMX_E_BUSY,
    IMX_E__COUNT
};

struct imx_problem_def {
    unsigned status;
    const char *slug;  /* the last part of the problem type URI */
    const char *title; /* the same for every occurrence of the problem */
};

/* Returns the definition of err (borrowed, static). */
const struct imx_problem_def *imx_problem_def(enum imx_err err);

/* The prefix of every problem type URI. */
#define IMX_PROBLEM_TYPE_BASE "https://imaxe.dev/problems/"

#endif
