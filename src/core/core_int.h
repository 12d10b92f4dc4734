/* core_int.h — internals of the library shared with the tools and tests (not installed): the
 * streaming JSON writer and the allocation-failure test hook. */
#ifndef GOSSIP_CORE_INT_H
#define GOSSIP_CORE_INT_H

#include <stdio.h>

#include "gossip/core.h"

/** Test hook: the k-th allocation from now on fails (k >= 1); k = 0 disables. Per thread. */
void gsp_alloc_fail_after(int64_t k);

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

#endif
