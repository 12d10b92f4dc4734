/* SPDX-License-Identifier: GPL-3.0-or-later */
/* error.c — error names, messages and the per-thread detail message.
 *
 * The detail buffer is thread-local so that the library keeps no shared mutable state:
 * two threads planning at once each see their own last error. */
#include <stdarg.h>
#include <stdio.h>

#include "gossip/core.h"

static _Thread_local char errbuf[512];

const char *gsp_strerror_name(gsp_err_t err) {
    switch (err) {
#define GSP__ERR_NAME(name, val, msg) \
    case GSP_ERR_##name:              \
        return "GSP_ERR_" #name;
        GSP_ERRNO_MAP(GSP__ERR_NAME)
#undef GSP__ERR_NAME
    }
    return "GSP_ERR_UNKNOWN";
}

const char *gsp_strerror(gsp_err_t err) {
    switch (err) {
#define GSP__ERR_MSG(name, val, msg) \
    case GSP_ERR_##name:             \
        return msg;
        GSP_ERRNO_MAP(GSP__ERR_MSG)
#undef GSP__ERR_MSG
    }
    return "unknown error";
}

const char *gsp_errmsg(void) { return errbuf[0] ? errbuf : "no detail"; }

gsp_err_t gsp_error(gsp_err_t err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, sizeof errbuf, fmt, ap);
    va_end(ap);
    return err;
}

void gsp_error_clear(void) { errbuf[0] = 0; }
