/* HTTP status -> exit code (see exit.h). */
#include "exit.h"

enum imx_cli_exit imx_cli_exit_for_status(long status)
{
    if (status >= 200 && status < 400)
        return IMX_CLI_EXIT_OK;
    if (status == 401)
        return IMX_CLI_EXIT_AUTH;
    if (status == 404 || status == 410)
        return IMX_CLI_EXIT_NOT_FOUND;
    if (status == 429 || status >= 500 || status < 200)
        return IMX_CLI_EXIT_SERVER;
    return IMX_CLI_EXIT_REFUSED;
}
