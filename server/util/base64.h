/* base64url without padding (RFC 4648 section 5), as used in JWTs, tokens and cursors. */
#ifndef IMX_BASE64_H
#define IMX_BASE64_H

#include <stddef.h>

/* The encoded length of n bytes, without the NUL. */
#define IMX_B64URL_LEN(n) (((n)*4 + 2) / 3)

/* Encodes n bytes into out (NUL-terminated). Returns the length written, or 0 when out is too
 * small (it needs IMX_B64URL_LEN(n) + 1 bytes). */
size_t imx_b64url_encode(const unsigned char *in, size_t n, char *out, size_t outlen);

/* Decodes s (padding not accepted) into out. Returns the decoded length, or -1 when s is not
 * canonical base64url or out is too small. */
long imx_b64url_decode(const char *s, size_t slen, unsigned char *out, size_t outlen);

#endif
