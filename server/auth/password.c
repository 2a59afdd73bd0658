/* Passwords: Argon2id through libsodium, with a dummy hash so unknown accounts cost the same. */
#include "auth/password.h"

#include <string.h>

static char dummy_hash[crypto_pwhash_STRBYTES];

int imx_password_init(void)
{
    unsigned char rnd[24];
    char pw[2 * sizeof rnd + 1];
    if (sodium_init() < 0)
        return -1;
    randombytes_buf(rnd, sizeof rnd);
    sodium_bin2hex(pw, sizeof pw, rnd, sizeof rnd);
    return imx_password_hash(pw, dummy_hash);
}

int imx_password_hash(const char *pw, char out[crypto_pwhash_STRBYTES])
{
    return crypto_pwhash_str(out, pw, strlen(pw), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                             crypto_pwhash_MEMLIMIT_INTERACTIVE) == 0
               ? 0
               : -1;
}

bool imx_password_verify(const char *hash, const char *pw)
{
    bool known = hash != NULL;
    bool ok = crypto_pwhash_str_verify(known ? hash : dummy_hash, pw, strlen(pw)) == 0;
    return known && ok;
}
