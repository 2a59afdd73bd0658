/* imaxe-server admin create-user: the first admin, and any user, team and membership, without the
 * API (a headless bootstrap for deploy recipes, or a recovery when nobody can sign in). */
#ifndef IMX_CLI_ADMIN_H
#define IMX_CLI_ADMIN_H

#include "util/config.h"

/* Runs "admin" with its arguments (args[0] = "create-user", then options), after migrations:
 *   --email E --password-file F|- [--name N] [--global-admin] [--reset-password]
 *   [--team SLUG [--role viewer|member|publisher|admin]]
 * Creates the user, or updates the one with that email (the admin flag is only ever set, the
 * password only with --reset-password), and the membership (creating the team if needed), then
 * prints what it did as one JSON line. Idempotent. Returns the exit status: 0, 1 (failed,
 * nothing changed) or 2 (usage). */
int imx_cli_admin(const struct imx_config *cfg, int nargs, char **args);

#endif
