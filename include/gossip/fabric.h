/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric.h — the throughput optimum of a fabric (docs/fabrics.md): the largest algorithmic
 * bandwidth any schedule of allgather, reduce-scatter, allreduce or broadcast can reach on links
 * of given capacities, with switches that forward but never compute, as an exact fraction with
 * the cut that binds it (ForestColl, Zhao et al. 2024; Edmonds' arborescence packing). */
#ifndef GOSSIP_FABRIC_H
#define GOSSIP_FABRIC_H

#include <stdio.h>

#include "gossip/core.h"
#include "gossip/model.h"
#include "gossip/sched.h"
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

/* One spanning out-tree of a plan on a fabric (gsp_fabric_trees). Its edges join compute
 * nodes; each edge is a route through the fabric whose inner vertices are switches. */
typedef struct {
    int64_t root;     /* the compute node whose data it carries (broadcast: the root) */
    int64_t mult;     /* its multiplicity: it carries mult / share of the root's data */
    int64_t depth;    /* edges on its longest root-to-leaf path */
    int64_t hop_depth;/* fabric arcs on its longest root-to-leaf path (switches counted) */
    int64_t nedges;   /* N - 1: every other compute node once */
    int64_t *from, *to; /* edge i: from[i] -> to[i], compute vertices; parents before children */
    int64_t *hop_off; /* nedges + 1 entries: edge i's route is hops[hop_off[i] .. hop_off[i+1]) */
    int64_t *hops;    /* fabric arc indices (CSR positions in t->adj), in route order */
} gsp_tree_t;

/* A packing of spanning out-trees that reaches the throughput optimum (docs/fabrics.md). */
typedef struct {
    gsp_collective_t collective; /* GSP_COLL_ALLGATHER, _REDUCE_SCATTER or _BROADCAST */
    int64_t root;     /* broadcast: the root; -1 otherwise */
    bool reversed;    /* reduce-scatter: every tree is an in-tree (data flows from[i] <- to[i],
                         along each route backwards; hops still name the arcs it uses) */
    int64_t share;    /* the sum of mult over the trees of one root */
    int64_t cap_factor; /* the trees' loads fit cap_factor times the capacities: the sum of mult
                           over the tree edges whose route uses arc a is at most
                           cap_factor * t->cap[a] (the optimum's denominator) */
    int64_t ntrees;
    gsp_tree_t *trees;
    int64_t num, den; /* algbw the trees reach, recounted from their link loads: exact, reduced */
    double value;
    int64_t depth, hop_depth; /* the deepest tree */
    int64_t flows;    /* maximum flows computed (optimum, switch splitting and packing) */
} gsp_forest_t;

/** Spanning out-trees on fabric t [in] for collective c (GSP_COLL_ALLGATHER: trees from every
 * compute node, each root's multiplicities summing to share; GSP_COLL_REDUCE_SCATTER: the same
 * on the reversed fabric, returned as in-trees; GSP_COLL_BROADCAST: trees from root) whose link
 * loads meet the optimum of gsp_optimum exactly: algbw num/den equals its num/den. Switches are
 * removed by splitting off their links while every connectivity the optimum needs is kept
 * (Bang-Jensen, Frank and Jackson 1995), then the trees are packed by Lovasz's proof of Edmonds'
 * theorem with multiplicities, every step checked by a maximum flow; trees grow breadth first,
 * so they are shallow. out [out] owns its trees: gsp_forest_destroy. Errors: GSP_ERR_RANGE
 * (root not a compute node), GSP_ERR_NOTAPPLIC (another collective, fewer than two compute
 * nodes, a compute node unreachable, or a switch with more capacity in than out whose links
 * cannot all be split: the optimum may then be out of reach of trees), GSP_ERR_OVERFLOW,
 * GSP_ERR_NOMEM. About N + (number of split steps) N + (trees) N maximum flows. */
GSP_API gsp_err_t gsp_fabric_trees(const gsp_topo_t *t, gsp_collective_t c, int64_t root, gsp_forest_t *out);
/** The algbw the trees of f [in] reach on t [in], recounted from their link loads: with L(a)
 * the sum of mult over the tree edges whose route uses arc a, algbw = N share min over a of
 * cap(a) / L(a) (broadcast: share min cap(a) / L(a)), in the capacities' unit, into num/den
 * [out] reduced. Also checks that every tree spans every compute node once and that routes
 * join their edge's ends through switches: GSP_ERR_INTERNAL names the first that does not.
 * O(sum of route lengths). */
GSP_API gsp_err_t gsp_forest_algbw(const gsp_topo_t *t, const gsp_forest_t *f, int64_t *num, int64_t *den);
/** The round form of trees f [in] on t [in] (allgather, broadcast or reduce-scatter) into out
 * [out]: each root's data is share * batches packets (chunks), tree i carrying mult_i * batches
 * of them in `batches` batches; batch j crosses the hop at depth h of a tree (fabric arcs from
 * its root) in round j + h, so a round loads arc a with at most cap_factor * cap(a) packets (the
 * schedule's cap_factor; out->chunks = share * batches). Reduce-scatter's in-trees run the same
 * backwards in time (round R - 1 - (j + h), towards the root): a block-form schedule whose
 * switches only forward. Rounds R = batches + the deepest hop depth - 1, against the throughput
 * bound of `batches` rounds. gsp_sched_verify checks it exactly. Errors: GSP_ERR_NOTAPPLIC
 * (another collective), GSP_ERR_INVAL (in-trees that are not reduce-scatter's, or the reverse),
 * GSP_ERR_RANGE (batches < 1), GSP_ERR_TOOBIG (more than 2^30 transfers), GSP_ERR_NOMEM.
 * O(transfers). */
GSP_API gsp_err_t gsp_forest_sched(const gsp_topo_t *t, const gsp_forest_t *f, int64_t batches, gsp_sched_t *out);
/** Allreduce's round form [out] on t [in]: the round form of reduce-scatter's in-trees rs [in],
 * then allgather's out-trees ag [in] on the same chunks, in block form (reduce_rounds = the first
 * phase's rounds). One capacity factor F = lcm of the two forests' cap_factor serves both, a
 * phase of factor q sending F/q packets per unit of multiplicity in each batch, and each node's
 * data is C = batches * lcm(share_rs F/q_rs, share_ag F/q_ag) chunks, so that each phase's
 * batches (C / (share F/q)) fill its binding cut every round. bound [out, may be NULL]: the
 * throughput bound in rounds, the sum of the two phases' batches (2 * batches when the phases
 * agree); rounds: it plus both phases' deepest hop depths, minus 2. Errors as gsp_forest_sched's,
 * and GSP_ERR_TOOBIG when the shares and factors need more than 2^30 / N chunks. */
GSP_API gsp_err_t gsp_forest_sched_allreduce(const gsp_topo_t *t, const gsp_forest_t *rs, const gsp_forest_t *ag, int64_t batches,
                                             gsp_sched_t *out, int64_t *bound);
/** Writes to out [in,out] an SVG picture of the trees of f [in] on t [in] whose root is root
 * (at most 12, one panel each): the fabric's links grey (wider where faster), each tree's routes
 * as arrows coloured by the level of the compute node they reach, switches as squares. Errors:
 * GSP_ERR_RANGE (no tree has that root), GSP_ERR_IO (a failed write), GSP_ERR_NOMEM. */
GSP_API gsp_err_t gsp_forest_svg(const gsp_topo_t *t, const gsp_forest_t *f, int64_t root, FILE *out);
/** The bottleneck capacity (the file's unit, capacities / cap_scale) of the widest route from
 * vertex src of fabric t [in] to every vertex v (towards: from v to src), through switches only
 * (a compute node forwards nothing), else, for a node no such route reaches, through any vertex:
 * width [out, t->n entries], 0 where there is no route and at src. O(n^2 + m). Errors:
 * GSP_ERR_RANGE (src), GSP_ERR_NOMEM. */
GSP_API gsp_err_t gsp_fabric_route_width(const gsp_topo_t *t, int64_t src, bool towards, double *width);
/** Releases the trees of f; a zeroed struct is a no-op. */
GSP_API void gsp_forest_destroy(gsp_forest_t *f);

#ifdef __cplusplus
}
#endif
#endif
