/* Passwords: Argon2id through libsodium, with a dummy hash so unknown accounts cost the same. */
#ifndef IMX_PASSWORD_H
#define IMX_PASSWORD_H

#include <sodium.h>
#include <stdbool.h>

#define IMX_PASSWORD_MIN 8
#define IMX_PASSWORD_MAX 1024

/* Initialises libsodium and the dummy hash. Returns 0 or -1. */
int imx_password_init(void);

/* Hashes pw (Argon2id, interactive limits) into out. Returns 0 or -1 (out of memory). */
int imx_password_hash(const char *pw, char out[crypto_pwhash_STRBYTES]);

/* Does pw match hash? With hash NULL (no such account) it verifies against the dummy hash, so
 * the caller spends the same time, and answers false. */
bool imx_password_verify(const char *hash, const char *pw);

#endif
