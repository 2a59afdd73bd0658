/* Standard Webhooks verification for `imaxe webhooks verify`: a body, its webhook-id,
 * webhook-timestamp and webhook-signature headers and the secret. Pure: no I/O. */
#ifndef IMX_CLI_WHSIG_H
#define IMX_CLI_WHSIG_H

#include <stddef.h>

/* Standard Webhooks' default: a timestamp more than 5 minutes away from now is refused. */
#define IMX_CLI_WH_TOLERANCE_S 300
/* The longest webhook-signature header looked at (rotations carry two or three). */
#define IMX_CLI_WH_SIGS_MAX 1024

enum imx_cli_wh_result {
    IMX_CLI_WH_OK,
    IMX_CLI_WH_BAD_SECRET,  /* not whsec_<base64> (or bare base64) of 1..64 bytes */
    IMX_CLI_WH_BAD_HEADERS, /* id, timestamp or signature missing or malformed */
    IMX_CLI_WH_STALE,       /* timestamp outside the tolerance */
    IMX_CLI_WH_NO_MATCH,    /* no v1 signature matches */
};

/* Checks that one of the space-separated "v1,<base64>" signatures in sigs is HMAC-SHA256 of
 * "id.timestamp.body" under secret, and that timestamp is within tolerance_s of now
 * (tolerance_s < 0: any time). Signatures of other versions are ignored; comparison is in
 * constant time. */
enum imx_cli_wh_result imx_cli_wh_verify(const char *secret, const char *id, const char *timestamp,
                                         const char *sigs, const char *body, size_t body_len,
                                         long long now, long long tolerance_s);

/* A sentence for a result (static). */
const char *imx_cli_wh_result_text(enum imx_cli_wh_result r);

#endif
