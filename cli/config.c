/* The config file of `imaxe login` (see config.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int imx_cli_config_path(char *out, size_t len)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(out, len, "%s/imaxe/config.json", xdg);
    else if (home && home[0])
        n = snprintf(out, len, "%s/.config/imaxe/config.json", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int imx_cli_profile_valid(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    return n > 0 && n < IMX_CLI_PROFILE_MAX &&
           strspn(name, "abcdefghijklmnopqrstuvwxyz"
                        "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

/* The file as a JSON object (new; an empty one when it does not exist), or NULL with err. */
static json_t *load_doc(const char *path, bool warn, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return json_object();
    if (warn && (st.st_mode & 077))
        fprintf(stderr, "imaxe: warning: %s is readable by others (chmod 600 it)\n", path);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!json_is_object(doc)) {
        snprintf(err, errlen, "%s: not a JSON object (%s)", path, je.text);
        json_decref(doc);
        return NULL;
    }
    return doc;
}

int imx_cli_config_load(struct imx_cli_config *c, const char *profile, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (profile && profile[0]) {
        if (!imx_cli_profile_valid(profile)) {
            snprintf(err, errlen, "a profile name is 1-63 letters, digits, '_', '.' or '-'");
            return -1;
        }
        snprintf(c->profile, sizeof c->profile, "%s", profile);
    }
    char path[4096];
    if (imx_cli_config_path(path, sizeof path) != 0)
        return 0;
    json_t *doc = load_doc(path, true, err, errlen);
    if (!doc)
        return -1;
    json_t *from =
        c->profile[0] ? json_object_get(json_object_get(doc, "profiles"), c->profile) : doc;
    const char *url = json_string_value(json_object_get(from, "url"));
    const char *token = json_string_value(json_object_get(from, "token"));
    if (url && strlen(url) < sizeof c->url)
        strcpy(c->url, url);
    if (token && strlen(token) < sizeof c->token)
        strcpy(c->token, token);
    const char *refresh = json_string_value(json_object_get(from, "refresh_token"));
    if (refresh && strlen(refresh) < sizeof c->refresh)
        strcpy(c->refresh, refresh);
    json_decref(doc);
    return 0;
}

/* mkdir -p of path's directory with mode 0700 for what it creates. */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0700);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

int imx_cli_config_save(const struct imx_cli_config *c, char *err, size_t errlen)
{
    char path[4096];
    char tmp[4200];
    int fd = -1;
    int rc = -1;
    char *text = NULL;
    json_t *doc = NULL;
    if (imx_cli_config_path(path, sizeof path) != 0) {
        snprintf(err, errlen, "neither XDG_CONFIG_HOME nor HOME is set");
        goto out;
    }
    if (!(doc = load_doc(path, false, err, errlen)))
        goto out;
    json_t *into = doc;
    if (c->profile[0]) {
        json_t *profiles = json_object_get(doc, "profiles");
        if (!json_is_object(profiles)) {
            profiles = json_object();
            json_object_set_new(doc, "profiles", profiles);
        }
        into = json_object();
        json_object_set_new(profiles, c->profile, into);
    }
    json_object_set_new(into, "url", json_string(c->url));
    /* No token: signed out (`imaxe logout`), the URL kept for the next login. */
    if (c->token[0])
        json_object_set_new(into, "token", json_string(c->token));
    else
        json_object_del(into, "token");
    if (c->refresh[0])
        json_object_set_new(into, "refresh_token", json_string(c->refresh));
    else
        json_object_del(into, "refresh_token");
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    if (make_dirs(path) != 0) {
        snprintf(err, errlen, "cannot create the directory of %s: %s", path, strerror(errno));
        goto out;
    }
    text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
    if (!text) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        goto out;
    }
    size_t len = strlen(text);
    if (fchmod(fd, 0600) != 0 || write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1 ||
        fsync(fd) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        goto out;
    }
    if (close(fd) != 0) {
        fd = -1;
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        goto out;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    if (rc != 0)
        unlink(tmp);
    if (text) {
        memset(text, 0, strlen(text));
        free(text);
    }
    json_decref(doc);
    return rc;
}
