/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric.h — the throughput optimum of a fabric (docs/fabrics.md): the largest algorithmic
 * bandwidth any schedule of allgather, reduce-scatter, allreduce or broadcast can reach on links
 * of given capacities, with switches that forward but never compute, as an exact fraction with
 * the cut that binds it (ForestColl, Zhao et al. 2024; Edmonds' arborescence packing). */
#ifndef GOSSIP_FABRIC_H
#define GOSSIP_FABRIC_H

#include "gossip/core.h"
#include "gossip/model.h"
#include "gossip/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The optimum of one collective. algbw = M / T*, M the whole output (allgather, allreduce,
 * broadcast) or input (reduce-scatter), T* the least time any schedule needs. */
typedef struct {
    gsp_collective_t collective;
    bool defined;     /* false: fewer than two compute nodes, nothing has to move */
    int64_t num, den; /* algbw = num / den in the capacities' unit, reduced, den >= 1; 0/1 when
                         some compute node cannot be reached */
    double value;     /* num / den */
    int64_t *cut;     /* the binding vertex set S, ascending vertex indices (owned) */
    int64_t cut_len;
    int64_t *cut2;    /* allreduce: the reduce-scatter phase's binding set (cut is the
                         allgather phase's); NULL otherwise */
    int64_t cut2_len;
    int64_t root;     /* broadcast: the root; -1 otherwise */
    int64_t flows;    /* maximum flows computed */
} gsp_optimum_t;

/** The throughput optimum of collective c (GSP_COLL_ALLGATHER, _REDUCE_SCATTER, _ALLREDUCE or
 * _BROADCAST from root, a compute node) on fabric t [in], with every vertex not a switch a
 * rank. Allgather: algbw = N min_S cap(out(S)) / |S n C| over the vertex sets S that hold a
 * compute node but not all (C the N compute nodes); reduce-scatter: the same on the reversed
 * fabric (cap(in(S))); allreduce = reduce-scatter then allgather, 1 / (1/rs + 1/ag);
 * broadcast: the smallest maximum flow from root to a compute node. Exact, by Dinkelbach's
 * iteration over minimum cuts (maxflow.c): O(N) maximum flows per improvement of the ratio,
 * a few improvements in practice. out [out] owns its cuts: gsp_optimum_destroy. Errors:
 * GSP_ERR_RANGE (root not a compute node), GSP_ERR_NOTAPPLIC (another collective),
 * GSP_ERR_OVERFLOW (capacities whose sums leave 62 bits), GSP_ERR_NOMEM. */
GSP_API gsp_err_t gsp_optimum(const gsp_topo_t *t, gsp_collective_t c, int64_t root, gsp_optimum_t *out);
/** The four optima at once [out]: out[0] allgather, out[1] reduce-scatter, out[2] allreduce
 * (from the first two, without computing them again), out[3] broadcast from root. Errors as
 * gsp_optimum's; on error nothing is left to release. */
GSP_API gsp_err_t gsp_optimum_all(const gsp_topo_t *t, int64_t root, gsp_optimum_t out[4]);
/** Releases the cuts of o; a zeroed struct is a no-op. */
GSP_API void gsp_optimum_destroy(gsp_optimum_t *o);

#ifdef __cplusplus
}
#endif
#endif
