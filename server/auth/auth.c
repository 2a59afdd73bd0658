/* The roles, the secrets the server signs with, and the first admin. Who a request's caller is
 * and what it may do is decided above, in api/access.c, with these and the principals db/auth.c
 * reads. */
#include "auth/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/jwt.h"
#include "auth/oidc.h"
#include "auth/password.h"
#include "auth/session.h"
#include "db/auth.h"
#include "util/log.h"

struct imx_auth_settings imx_auth_settings;

static const char *const role_names[] = {
    [IMX_ROLE_NONE] = NULL,       [IMX_ROLE_VIEWER] = "viewer",
    [IMX_ROLE_MEMBER] = "member", [IMX_ROLE_PUBLISHER] = "publisher",
    [IMX_ROLE_ADMIN] = "admin",
};

const char *imx_role_name(enum imx_role role)
{
    return (unsigned)role <= IMX_ROLE_ADMIN ? role_names[role] : NULL;
}

enum imx_role imx_role_parse(const char *s)
{
    for (int i = IMX_ROLE_VIEWER; s && i <= IMX_ROLE_ADMIN; i++)
        if (strcmp(s, role_names[i]) == 0)
            return (enum imx_role)i;
    return IMX_ROLE_NONE;
}

/* Reads secret NAME (or NAME_FILE) into a new string; *err set when the file is unreadable. */
static char *read_secret(const char *name, char *err, size_t errlen)
{
    int failed = 0;
    char *s = imx_config_secret(name, &failed);
    if (failed)
        snprintf(err, errlen, "%s_FILE cannot be read", name);
    return s;
}

static void free_secret(char *s)
{
    if (s) {
        sodium_memzero(s, strlen(s));
        free(s);
    }
}

int imx_auth_init(const struct imx_config *cfg, struct imx_auth_keys *keys, char *err,
                  size_t errlen)
{
    err[0] = '\0';
    memset(keys, 0, sizeof *keys);
    imx_auth_settings.jwt_ttl_s = cfg->jwt_ttl_s;
    imx_auth_settings.login_window_s = cfg->login_window_s;
    imx_auth_settings.login_max_failures = cfg->login_max_failures;
    imx_auth_settings.login_ip_max_failures = cfg->login_ip_max_failures;
    imx_auth_settings.read_cache = cfg->read_cache;
    imx_session_settings.idle_s = cfg->session_idle_s;
    imx_session_settings.absolute_s = cfg->session_absolute_s;
    imx_session_settings.refresh_idle_s = cfg->refresh_idle_s;
    imx_session_settings.refresh_ttl_s = cfg->refresh_ttl_s;
    imx_session_settings.local_passwords = cfg->local_passwords;
    if (imx_session_secure_parse(cfg->cookie_secure, &imx_session_settings.secure) != 0) {
        snprintf(err, errlen, "IMAXE_COOKIE_SECURE must be auto, on or off (got '%s')",
                 cfg->cookie_secure);
        return -1;
    }
    if (imx_oidc_init(err, errlen) != 0)
        return -1;
    if (!cfg->local_passwords && !imx_oidc_enabled()) {
        snprintf(err, errlen,
                 "IMAXE_LOCAL_PASSWORDS=off needs single sign-on (IMAXE_OIDC_ISSUER): nobody "
                 "could sign in");
        return -1;
    }
    if (imx_password_init(cfg->password_slots, cfg->password_wait_ms) != 0) {
        snprintf(err, errlen, "libsodium cannot be initialised");
        return -1;
    }
    char *current = read_secret("IMAXE_JWT_SECRET", err, errlen);
    char *previous = err[0] ? NULL : read_secret("IMAXE_JWT_SECRET_PREVIOUS", err, errlen);
    int rc = err[0] ? -1 : 0;
    if (rc == 0 && !current) {
        snprintf(err, errlen,
                 "no JWT signing secret: set IMAXE_JWT_SECRET or IMAXE_JWT_SECRET_FILE to at "
                 "least %d random bytes (e.g. head -c 48 /dev/urandom | base64 -w0)",
                 IMX_JWT_SECRET_MIN);
        rc = -1;
    }
    if (rc == 0)
        rc = imx_jwt_keys_set(current, previous, err, errlen);
    if (rc == 0) {
        /* Cursors are signed with a key derived from the secret, never with the secret itself. */
        unsigned int klen = 0;
        const char label[] = "imaxe cursor key v1";
        HMAC(EVP_sha256(), current, (int)strlen(current), (const unsigned char *)label,
             sizeof label - 1, keys->cursor, &klen);
        /* Stored idempotent replies are sealed with keys derived the same way, from both
         * secrets, so a rotation does not strand the replies stored before it. */
        const char seal_label[] = "imaxe idempotent reply key v1";
        HMAC(EVP_sha256(), current, (int)strlen(current), (const unsigned char *)seal_label,
             sizeof seal_label - 1, keys->seal, &klen);
        if (previous)
            HMAC(EVP_sha256(), previous, (int)strlen(previous), (const unsigned char *)seal_label,
                 sizeof seal_label - 1, keys->seal_previous, &klen);
        keys->has_previous = previous != NULL;
    }
    free_secret(current);
    free_secret(previous);
    return rc;
}

int imx_auth_bootstrap(char *err, size_t errlen)
{
    char hash[crypto_pwhash_STRBYTES];
    const char *email = getenv("IMAXE_ADMIN_EMAIL");
    err[0] = '\0';
    char *password = read_secret("IMAXE_ADMIN_PASSWORD", err, errlen);
    if (err[0])
        return -1;
    if (!email || !*email || !password) {
        free_secret(password);
        return 0;
    }
    /* A restart finds users: then the password is not hashed at all (Argon2id runs at the
     * lowest priority and, on a busy host, held every start back by seconds). */
    enum imx_db_status why;
    struct imx_db_conn *c = imx_db_acquire(&why);
    bool any = false;
    enum imx_db_status st = c ? imx_db_auth_has_users(c, &any) : IMX_DBS_UNAVAILABLE;
    if (c)
        imx_db_release(c);
    if (st != IMX_DBS_OK) {
        snprintf(err, errlen, "cannot reach PostgreSQL to look for the first admin");
        free_secret(password);
        return -1;
    }
    if (any && strlen(password) >= IMX_PASSWORD_MIN) {
        free_secret(password);
        return 0;
    }
    if (strlen(password) < IMX_PASSWORD_MIN || imx_password_hash(password, hash) != 0) {
        snprintf(err, errlen, "IMAXE_ADMIN_PASSWORD must be at least %d characters",
                 IMX_PASSWORD_MIN);
        free_secret(password);
        return -1;
    }
    free_secret(password);
    c = imx_db_acquire(&why);
    if (!c) {
        snprintf(err, errlen, "cannot reach PostgreSQL to create the first admin");
        return -1;
    }
    bool created = false;
    int rc = 0;
    struct imx_db_fault fault;
    if (imx_db_auth_bootstrap(c, email, hash, &created, &fault) != IMX_DBS_OK) {
        snprintf(err, errlen, "creating the first admin failed: %.200s", fault.message);
        rc = -1;
    } else if (created) {
        imx_info("no users yet: created the global admin %s (IMAXE_ADMIN_EMAIL)", email);
    }
    imx_db_release(c);
    sodium_memzero(hash, sizeof hash);
    return rc;
}

void imx_auth_keys_clear(struct imx_auth_keys *keys)
{
    sodium_memzero(keys, sizeof *keys);
}
