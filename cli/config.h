/* Where imaxe finds its server and token: flags, then IMAXE_URL / IMAXE_TOKEN, then the file
 * `imaxe login` writes ($XDG_CONFIG_HOME/imaxe/config.json, mode 0600). The file holds a
 * default server ("url", "token") and named profiles ("profiles": {"staging": {"url", "token"}})
 * chosen with --profile or IMAXE_PROFILE, one for each server a person works with. */
#ifndef IMX_CLI_CONFIG_H
#define IMX_CLI_CONFIG_H

#include <stddef.h>

#define IMX_CLI_URL_MAX     1024
#define IMX_CLI_TOKEN_MAX   4096
#define IMX_CLI_REFRESH_MAX 128
#define IMX_CLI_DEFAULT_URL "http://127.0.0.1:8080"

#define IMX_CLI_PROFILE_MAX 64

struct imx_cli_config {
    char profile[IMX_CLI_PROFILE_MAX]; /* "" for the default */
    char url[IMX_CLI_URL_MAX];
    char token[IMX_CLI_TOKEN_MAX];
    /* The refresh token of a password or SSO sign-in ("" for an API token): the CLI trades it
     * for a new access token when the stored one is refused, so a sign-in outlasts it. */
    char refresh[IMX_CLI_REFRESH_MAX];
};

/* Is name a usable profile name (1-63 of [A-Za-z0-9_.-])? */
int imx_cli_profile_valid(const char *name);

/* The config file's path into out. Returns 0, or -1 (no XDG_CONFIG_HOME nor HOME). */
int imx_cli_config_path(char *out, size_t len);

/* Reads profile (NULL or "": the default) of the file into c (empty fields when the file or the
 * profile does not exist). Warns on stderr when the file is readable by others. Returns 0, or -1
 * with a sentence in err (unreadable, not JSON, a bad profile name). */
int imx_cli_config_load(struct imx_cli_config *c, const char *profile, char *err, size_t errlen);

/* Writes c into its profile of the file, keeping the other profiles (directory 0700, file 0600,
 * replaced atomically); an empty token or refresh is removed from the profile. Returns 0, or -1
 * with a sentence in err. */
int imx_cli_config_save(const struct imx_cli_config *c, char *err, size_t errlen);

#endif
