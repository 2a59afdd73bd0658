/* imaxe's documented exit codes, and how an HTTP answer maps to them. Pure. */
#ifndef IMX_CLI_EXIT_H
#define IMX_CLI_EXIT_H

enum imx_cli_exit {
    IMX_CLI_EXIT_OK = 0,
    IMX_CLI_EXIT_USAGE = 1,     /* bad command line */
    IMX_CLI_EXIT_NOT_FOUND = 2, /* 404, 410, or a --field that is not there */
    IMX_CLI_EXIT_REFUSED = 3,   /* 400, 403, 409, 412, 413, 422, 428; invalid input or signature */
    IMX_CLI_EXIT_AUTH = 4,      /* 401, or no token to send */
    IMX_CLI_EXIT_SERVER = 5,    /* 5xx, 429, no answer, or a reply that is not what was asked */
    IMX_CLI_EXIT_DRIFT = 6,     /* probe --check: the node differs from the image */
};

/* The exit code for an HTTP status (0: no answer came). */
enum imx_cli_exit imx_cli_exit_for_status(long status);

#endif
