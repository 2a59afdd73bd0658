/* The If-Match request header's list (RFC 9110 13.1.1): pure parsing, no request. */
#ifndef IMX_HTTP_IF_MATCH_H
#define IMX_HTTP_IF_MATCH_H

#include <stdbool.h>

/* Does if_match ("*", or comma-separated strong entity tags, blanks around them allowed) name
 * the revision rev, whose entity tag is "r<rev>"? Any other text names nothing. */
bool imx_if_match_names(const char *if_match, long long rev);

#endif
