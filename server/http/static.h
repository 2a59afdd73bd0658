/* The web UI: static files under one directory, never outside it. */
#ifndef IMX_HTTP_STATIC_H
#define IMX_HTTP_STATIC_H

#include "http/request.h"

/* Remembers the web root (resolved to an absolute path). */
void imx_static_init(const char *web_dir);

/* Answers GET/HEAD of url_path from the web root: 200 with ETag, 304, or 404 problem. */
void imx_static_serve(struct imx_req *r, const char *url_path);

/* The MIME type for a file name (borrowed, static). */
const char *imx_static_mime(const char *name);

#endif
