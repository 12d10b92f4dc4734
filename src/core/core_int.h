/* SPDX-License-Identifier: GPL-3.0-or-later */
/* core_int.h — internals of the library shared with the tools and tests (not installed): the
 * streaming JSON writer and the allocation-failure test hook. */
#ifndef GOSSIP_CORE_INT_H
#define GOSSIP_CORE_INT_H

#include <stdio.h>

#include "gossip/core.h"

/** Test hook: the k-th allocation from now on fails (k >= 1); k = 0 disables. Per thread. */
void gsp_alloc_fail_after(int64_t k);

/** msg without a leading "name: " (a method's message read where the method is already named:
 * "linear: no protocol" under "linear"), else msg. */
const char *gsp__unprefixed(const char *msg, const char *name);

/* Streaming JSON writer. Keys and values are written in order; commas and nesting are
 * tracked here so that callers cannot produce malformed output. Pretty-printing is off:
 * one object per line, as scripts expect. */
#define GSP_JW_MAXDEPTH 32
typedef struct {
    FILE *f;
    int depth;
    bool first[GSP_JW_MAXDEPTH];
    bool after_key;
    bool failed; /* set when a write fails; checked once at the end */
} gsp_jw_t;
void gsp_jw_init(gsp_jw_t *w, FILE *f);
/* Writes x in decimal to f (no format parsing: fast for long lists); false on a write error. */
bool gsp_fput_int(FILE *f, int64_t x);
void gsp_jw_obj_begin(gsp_jw_t *w);
void gsp_jw_obj_end(gsp_jw_t *w);
void gsp_jw_arr_begin(gsp_jw_t *w);
void gsp_jw_arr_end(gsp_jw_t *w);
void gsp_jw_key(gsp_jw_t *w, const char *key);
void gsp_jw_str(gsp_jw_t *w, const char *s);
void gsp_jw_int(gsp_jw_t *w, int64_t x);
/** Writes a double with 17 significant digits; NaN and infinities become null. */
void gsp_jw_num(gsp_jw_t *w, double x);
void gsp_jw_bool(gsp_jw_t *w, bool b);
void gsp_jw_null(gsp_jw_t *w);
/** Writes pre-formatted JSON text as one value (the caller vouches for it). */
void gsp_jw_raw(gsp_jw_t *w, const char *text);
/** GSP_OK if every write succeeded, else GSP_ERR_IO. */
gsp_err_t gsp_jw_finish(gsp_jw_t *w);

/* Output to a name a user gave (src/core/output.c): "-" is standard output; a device, FIFO or
 * socket (or a link to one; /dev/stdout, /dev/fd/N) is written in place; a regular file or a new
 * name is written to a temporary file in its directory and renamed over it at the end (links
 * followed: a link stays a link). */
typedef struct {
    FILE *f;          /* write here */
    const char *path; /* the name as given (the caller's string, used in messages) */
    char *target;     /* atomic: the file renamed over, links resolved */
    char *tmp;        /* atomic: the temporary file */
    bool std;         /* standard output (never closed) */
} gsp_out_t;
/** Opens path for writing as above. GSP_ERR_IO "cannot write 'PATH': reason" when it cannot be
 * created (no such directory, permission, a directory). */
gsp_err_t gsp_out_open(gsp_out_t *o, const char *path);
/** Finishes the output: err is what the writing returned. With err GSP_OK, flushes, checks every
 * write and renames the temporary file over the target; GSP_ERR_IO with the path and the
 * system's reason (a full disk, a closed pipe) when a write failed. With err set, or on failure,
 * the temporary file is removed and the target left as it was. Returns the final error. */
gsp_err_t gsp_out_close(gsp_out_t *o, gsp_err_t err);
/** True when path would be written in place: "-", a device, a FIFO, a socket, a kernel link. */
bool gsp_out_in_place(const char *path);

#endif
