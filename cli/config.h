/* Where imaxe finds its server and token: flags, then IMAXE_URL / IMAXE_TOKEN, then the file
 * `imaxe login` writes ($XDG_CONFIG_HOME/imaxe/config.json, mode 0600). */
#ifndef IMX_CLI_CONFIG_H
#define IMX_CLI_CONFIG_H

#include <stddef.h>

#define IMX_CLI_URL_MAX     1024
#define IMX_CLI_TOKEN_MAX   4096
#define IMX_CLI_DEFAULT_URL "http://127.0.0.1:8080"

struct imx_cli_config {
    char url[IMX_CLI_URL_MAX];
    char token[IMX_CLI_TOKEN_MAX];
};

/* The config file's path into out. Returns 0, or -1 (no XDG_CONFIG_HOME nor HOME). */
int imx_cli_config_path(char *out, size_t len);

/* Reads the file into c (empty fields when it does not exist). Warns on stderr when the file
 * is readable by others. Returns 0, or -1 with a sentence in err (unreadable, not JSON). */
int imx_cli_config_load(struct imx_cli_config *c, char *err, size_t errlen);

/* Writes c to the file (directory 0700, file 0600, replaced atomically). Returns 0, or -1
 * with a sentence in err. */
int imx_cli_config_save(const struct imx_cli_config *c, char *err, size_t errlen);

#endif
