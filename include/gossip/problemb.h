/* SPDX-License-Identifier: GPL-3.0-or-later */
/* problemb.h — Problem B of the global-sum paper: is there a linear protocol with m rounds,
 * W_m ... W_1 = J (all ones), each W_t supported on the adjacency pattern plus the diagonal
 * (a node keeps what it holds)? Searched numerically by Levenberg–Marquardt (GSL) from random
 * starts; a protocol found is an exact-sum schedule that the verifier then checks. */
#ifndef GOSSIP_PROBLEMB_H
#define GOSSIP_PROBLEMB_H

#include "gossip/core.h"
#include "gossip/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest graph searched (n^2 equations, m (n + arcs) unknowns). */
#define GSP_PROBLEMB_MAX 64

typedef struct {
    bool found;
    int64_t m;        /* rounds */
    int64_t starts;   /* random starts tried */
    double residual;  /* max |(W_m ... W_1 - J)_ij| of the best start */
    int64_t nparam;   /* per round: Cayley graphs: the diagonal, then one per generator (weights
                         depend on the generator only); others: n diagonal entries, then one per
                         arc in CSR order */
    double *w;        /* m * nparam weights of the best start (w[t * nparam + k]); gsp_free */
} gsp_problemb_t;

/** Searches for an m-round linear protocol on t [in] (undirected, n <= GSP_PROBLEMB_MAX) with
 * up to `starts` random starts (seeded), stopping at the first with residual below 1e-11, and
 * reports progress (the fraction of starts tried) to progress [in, may be NULL] with ctx.
 * result [out]; release with gsp_problemb_destroy. Errors: GSP_ERR_NOTAPPLIC for a directed
 * graph or one above GSP_PROBLEMB_MAX nodes, GSP_ERR_RANGE for m or starts below 1. */
GSP_API gsp_err_t gsp_problemb_search(const gsp_topo_t *t, int64_t m, int64_t starts, uint64_t seed, gsp_progress_fn progress,
                                      void *ctx, gsp_problemb_t *result);
/** Releases r's arrays; a zeroed result is a no-op. */
GSP_API void gsp_problemb_destroy(gsp_problemb_t *r);

#ifdef __cplusplus
}
#endif
#endif
