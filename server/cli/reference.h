/* imaxe-server reference import DIR [--dry-run] | reference export DIR: the reference tables as
 * one CSV per table (gpu.csv, cuda_driver.csv, ...), updated without a release. */
#ifndef IMX_CLI_REFERENCE_H
#define IMX_CLI_REFERENCE_H

#include "util/config.h"

/* Runs "reference" with its arguments (args[0] = "import" or "export", args[1] = DIR, then
 * options), after migrations. import replaces each table a CSV names with the file's rows in one
 * transaction (an audit entry and a ref_data_versions row with it), recomputes the stored
 * compatibility report of every image whose findings change, enqueues one
 * image.compatibility_changed event for each, and prints what changed as JSON on stdout;
 * --dry-run does all of it and rolls back. export writes every table as DIR/<table>.csv in the
 * form import reads. Returns the process exit status: 0, 1 (failed, nothing changed) or 2 (usage).
 */
int imx_cli_reference(const struct imx_config *cfg, int nargs, char **args);

#endif
