/* Passwords: Argon2id through libsodium, with a dummy hash so unknown accounts cost the same.
 * Each hash or check takes 64 MiB and ~50 ms of a core, so at most a bounded number run at once
 * (the slots); a caller that cannot get one within the wait is told the server is busy. */
#ifndef IMX_PASSWORD_H
#define IMX_PASSWORD_H

#include <sodium.h>
#include <stdbool.h>

#define IMX_PASSWORD_MIN 8
#define IMX_PASSWORD_MAX 1024

/* Initialises libsodium and the slots (slots 0: half the online cores, at least one). wait_ms is
 * how long a hash or check waits for a free slot. Returns 0 or -1. */
int imx_password_init(unsigned slots, unsigned wait_ms);

/* Whether the fixed hash unknown accounts are checked against has the limits new hashes get, so
 * that checking it costs what checking a real one does (a unit test holds it). */
bool imx_password_dummy_current(void);

/* How many hashes or checks may run at once (after imx_password_init). */
unsigned imx_password_slots(void);

/* Hashes and checks that found no slot within the wait, since start. */
unsigned long long imx_password_busy(void);

/* Hashes pw (Argon2id, interactive limits) into out. Returns 0, -1 (out of memory) or
 * IMX_PASSWORD_BUSY (no slot freed within the wait). */
#define IMX_PASSWORD_BUSY (-2)
int imx_password_hash(const char *pw, char out[crypto_pwhash_STRBYTES]);

enum imx_password_result { IMX_PASSWORD_MATCH, IMX_PASSWORD_WRONG, IMX_PASSWORD_NO_SLOT };

/* Does pw match hash? With hash NULL (no such account) it verifies against the dummy hash, so
 * the caller spends the same time, and answers IMX_PASSWORD_WRONG. IMX_PASSWORD_NO_SLOT: no slot
 * freed within the wait, nothing was checked. */
enum imx_password_result imx_password_check(const char *hash, const char *pw);

#endif
