/* SPDX-License-Identifier: GPL-3.0-or-later */
/* error.c — error names, messages and the per-thread detail message.
 *
 * The detail buffer is thread-local so that the library keeps no shared mutable state:
 * two threads planning at once each see their own last error. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gossip/core.h"
#include "core/core_int.h"

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

/* The message is formatted aside, then stored: an argument may be gsp_errmsg() itself (a
 * caller prefixing the error it got, "spectral: %s"), and vsnprintf into the buffer it reads
 * from is undefined (glibc wrote over the text before reading it: "spectral: spectral: 40 nodes"
 * for "5040 nodes"). */
gsp_err_t gsp_error(gsp_err_t err, const char *fmt, ...) {
    char msg[sizeof errbuf];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(errbuf, msg, sizeof errbuf);
    return err;
}

void gsp_error_clear(void) { errbuf[0] = 0; }

const char *gsp__unprefixed(const char *msg, const char *name) {
    size_t n = strlen(name);
    return !strncmp(msg, name, n) && msg[n] == ':' && msg[n + 1] == ' ' ? msg + n + 2 : msg;
}
