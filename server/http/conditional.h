/* If-Match as RFC 9110 section 13.1.1 reads it: "*" alone, or a list of entity tags compared
 * strongly (a weak tag never matches for a write). One parser for every write that takes it. */
#ifndef IMX_HTTP_CONDITIONAL_H
#define IMX_HTTP_CONDITIONAL_H

enum imx_if_match {
    IMX_IF_MATCH_YES,       /* "*", or a strong tag equal to etag is listed */
    IMX_IF_MATCH_NO,        /* a well-formed list that does not name etag */
    IMX_IF_MATCH_MALFORMED, /* not "*" nor a list of entity tags: 400 */
};

/* The detail of the 400 for a malformed If-Match. */
#define IMX_IF_MATCH_MALFORMED_TEXT                                                                \
    "If-Match must be * alone or a comma-separated list of entity tags (\"r3\")"

/* How the If-Match value header stands against etag, the resource's current strong entity tag
 * with its quotes ("\"r3\""). */
enum imx_if_match imx_if_match(const char *header, const char *etag);

#endif
