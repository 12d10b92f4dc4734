/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_fabric_shallow.c — allgather, reduce-scatter, allreduce and broadcast on a fabric by
 * shallow spanning trees near its throughput optimum (gsp__forest_mwu, fabric_mwu.c), pipelined
 * as `fabric-trees` runs its optimal ones (rt_fabric.c: the phases, the rule, the cost).
 *
 * Where it applies: fabrics of at most 256 compute nodes that have links between them, beside
 * `fabric-trees`. Cost: as fabric-trees', T (1 + (depth - 1) /
 * S) plus a latency per level and segment, with T = M / algbw of these trees (below the
 * optimum's) and their depth (less than the optimal packing's where that is deep). The choice
 * weighs the two: on mi250:2 (the optimal packing 18 deep) these are 13 deep at 0.88 of the
 * throughput and are chosen; on dgx:8x2 the box trees, 2 deep at the optimum, are. Measured
 * under SimGrid SMPI (bench/README.md): mi250:2's 64 MiB allgather 536.2 -> 382 us. */
#include "analysis/analysis_int.h"
#include "rt_int.h"

/* Where compute nodes have links between them (a direct network, at least in part: mi250's
 * xGMI, a torus with capacities). Where every route runs through switches (fat trees, DGX
 * boxes) these trees were slower than the optimal packing under SimGrid SMPI in most cells
 * (fattree:4x8:oversub=2 allgather: 11513 against 3613 us at 1 MiB, 263065 against 174421 at
 * 64 MiB; fattree:2x4 1.17x and 1.03x; dgx:8x2 352.7 against 332.3), though the cost model,
 * which charges each level of a tree a segment and sees neither, would choose them. */
static bool direct(const gsp_topo_t *f) {
    for (int64_t x = 0; x < f->n; x++) {
        if (f->is_switch && f->is_switch[x]) continue;
        for (int64_t a = f->off[x]; a < f->off[x + 1]; a++)
            if (!(f->is_switch && f->is_switch[f->adj[a]])) return true;
    }
    return false;
}

/* Each rank grows the trees (O(rounds N^2 (n + N)) for N compute nodes among n vertices, and
 * N n routes held): 0.9 s at mi250:8's 128; beyond 256 compute nodes, fabric-trees alone. */
#define SHALLOW_MAX_NODES 256

static bool applies(const gsp__rt_ctx_t *x) {
    return x->fabric != NULL && gsp_topo_compute_count(x->fabric) <= SHALLOW_MAX_NODES && direct(x->fabric);
}

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    return gsp__rt_forest_algo(x, al, gsp__forest_mwu, "shallow spanning trees near the throughput optimum", 0);
}

const gsp__rt_method_t gsp__rt_fabric_shallow = {
    "fabric-shallow",
    GSP__RT_COLL(GSP_COLL_ALLGATHER) | GSP__RT_COLL(GSP_COLL_REDUCE_SCATTER) | GSP__RT_COLL(GSP_COLL_ALLREDUCE) | GSP__RT_COLL(GSP_COLL_BROADCAST),
    "fabrics of up to 256 compute nodes with links between them: ranks are the compute nodes",
    "the deepest tree, pipelined",
    "shallow spanning trees near the fabric's throughput optimum (gsp__forest_mwu: multiplicative weights, a penalty per level), each root's "
    "block cut into parts in their multiplicities (a broadcast's trees deeper than 3 levels or of unequal multiplicities: a tree per part), pipelined; reduce-scatter: the in-trees; allreduce: both",
    applies, add, NULL};
