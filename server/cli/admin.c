/* imaxe-server admin create-user: users, teams and memberships from the command line. */
#include "cli/admin.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/password.h"
#include "db/admin.h"
#include "db/pool.h"
#include "util/log.h"

static const char USAGE[] =
    "usage: imaxe-server admin create-user --email E --password-file F|- [--name N]\n"
    "         [--global-admin] [--reset-password] [--team SLUG [--role ROLE]]\n";

/* The password: the file's first line (or stdin's with "-"), without its line end. Returns 0, or
 * -1 with a message on stderr. */
static int read_password(const char *path, char out[IMX_PASSWORD_MAX + 2])
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        fprintf(stderr, "admin: %s cannot be read\n", path);
        return -1;
    }
    bool ok = fgets(out, IMX_PASSWORD_MAX + 2, f) != NULL;
    if (f != stdin)
        fclose(f);
    if (!ok) {
        fprintf(stderr, "admin: %s is empty\n", path);
        return -1;
    }
    out[strcspn(out, "\r\n")] = '\0';
    size_t n = strlen(out);
    if (n < IMX_PASSWORD_MIN || n > IMX_PASSWORD_MAX) {
        fprintf(stderr, "admin: the password must be %d to %d characters\n", IMX_PASSWORD_MIN,
                IMX_PASSWORD_MAX);
        return -1;
    }
    return 0;
}

static bool role_known(const char *role)
{
    static const char *const roles[] = { "viewer", "member", "publisher", "admin" };
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
        if (strcmp(role, roles[i]) == 0)
            return true;
    return false;
}

static int create_user(const struct imx_config *cfg, int nargs, char **args)
{
    struct imx_db_admin_user_in in = { .role = "admin" };
    const char *password_file = NULL;
    for (int i = 0; i < nargs; i++) {
        const char *a = args[i];
        const char *v = i + 1 < nargs ? args[i + 1] : NULL;
        if (strcmp(a, "--global-admin") == 0) {
            in.global_admin = true;
        } else if (strcmp(a, "--reset-password") == 0) {
            in.reset_password = true;
        } else if (v && strcmp(a, "--email") == 0) {
            in.email = v, i++;
        } else if (v && strcmp(a, "--password-file") == 0) {
            password_file = v, i++;
        } else if (v && strcmp(a, "--name") == 0) {
            in.display_name = v, i++;
        } else if (v && strcmp(a, "--team") == 0) {
            in.team = v, i++;
        } else if (v && strcmp(a, "--role") == 0) {
            in.role = v, i++;
        } else {
            fprintf(stderr, "admin: unknown or incomplete option %s\n%s", a, USAGE);
            return 2;
        }
    }
    if (!in.email || !password_file || !role_known(in.role)) {
        fprintf(stderr, "%s",
                !role_known(in.role) ? "admin: --role is one of viewer, member, publisher, admin\n"
                                     : USAGE);
        return 2;
    }

    char password[IMX_PASSWORD_MAX + 2], hash[crypto_pwhash_STRBYTES];
    if (read_password(password_file, password) != 0)
        return 1;
    int hashed = imx_password_init(1, 60000) == 0 ? imx_password_hash(password, hash) : -1;
    sodium_memzero(password, sizeof password);
    if (hashed != 0) {
        fprintf(stderr, "admin: cannot hash the password\n");
        return 1;
    }
    in.password_hash = hash;

    if (imx_db_pool_init(cfg->database_url, 1, cfg->db_acquire_ms, cfg->statement_ms) != 0)
        return 1;
    enum imx_db_status why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    struct imx_db_admin_user_out out;
    enum imx_db_status rc = c ? imx_db_admin_create_user(c, &in, &out) : IMX_DBS_UNAVAILABLE;
    if (c)
        imx_db_release(c);
    imx_db_pool_shutdown();
    sodium_memzero(hash, sizeof hash);
    if (rc != IMX_DBS_OK) {
        fprintf(stderr, "admin: creating %s failed (%s)%s%s; nothing was changed\n", in.email,
                imx_db_status_name(rc), rc == IMX_DBS_INVALID ? ": " : "",
                rc == IMX_DBS_INVALID ? out.why : "");
        return 1;
    }
    printf("{\"user_id\":%lld,\"created\":%s,\"global_admin\":%s,\"team\":%s%s%s,"
           "\"team_created\":%s,\"membership_changed\":%s}\n",
           out.user_id, out.created ? "true" : "false", in.global_admin ? "true" : "false",
           in.team ? "\"" : "", in.team ? in.team : "null", in.team ? "\"" : "",
           out.team_created ? "true" : "false", out.role_changed ? "true" : "false");
    return 0;
}

int imx_cli_admin(const struct imx_config *cfg, int nargs, char **args)
{
    if (nargs >= 1 && strcmp(args[0], "create-user") == 0)
        return create_user(cfg, nargs - 1, args + 1);
    fprintf(stderr, "%s", USAGE);
    return 2;
}
