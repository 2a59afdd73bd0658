/* Standard Webhooks signing: secrets (whsec_ + base64 of 32 random bytes) and v1 signatures,
 * HMAC-SHA256 over "msg_id.timestamp.body" keyed by the secret's decoded base64 part. */
#ifndef IMX_WEBHOOK_SIGN_H
#define IMX_WEBHOOK_SIGN_H

#include <stdbool.h>
#include <stddef.h>

#define IMX_WEBHOOK_SECRET_PREFIX "whsec_"
/* "whsec_" + base64 of 32 bytes (44 characters). */
#define IMX_WEBHOOK_SECRET_LEN 50
/* One "v1,<base64 of 32 bytes>" signature. */
#define IMX_WEBHOOK_SIG_LEN 47

/* Writes a fresh secret from OpenSSL's RAND_bytes into out (NUL-terminated).
 * Returns 0, or -1 when the random generator fails. */
int imx_webhook_secret_new(char out[IMX_WEBHOOK_SECRET_LEN + 1])
    __attribute__((warn_unused_result));

/* Is s a secret this module can sign with (whsec_ + base64 decoding to 16..64 bytes)? */
bool imx_webhook_secret_valid(const char *s);

/* Appends " v1,<signature>" (without the leading space when out is empty) for one secret to
 * the NUL-terminated string out of capacity outlen. Several calls build the webhook-signature
 * header of a rotation (old and new secret). Returns 0, or -1 (bad secret, no room). */
int imx_webhook_sign_append(const char *secret, const char *msg_id, long long timestamp,
                            const char *body, size_t body_len, char *out, size_t outlen);

#endif
