/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_fabric_shallow.c — allgather, reduce-scatter, allreduce and broadcast on a fabric by
 * shallow spanning trees near its throughput optimum (gsp__forest_mwu, fabric_mwu.c), pipelined
 * as `fabric-trees` runs its optimal ones (rt_fabric.c: the phases, the rule, the cost).
 *
 * Where it applies: fabrics, beside `fabric-trees`. Cost: as fabric-trees', T (1 + (depth - 1) /
 * S) plus a latency per level and segment, with T = M / algbw of these trees (below the
 * optimum's) and their depth (less than the optimal packing's where that is deep). The choice
 * weighs the two: on mi250:2 (the optimal packing 18 deep) these are 13 deep at 0.88 of the
 * throughput and are chosen; on dgx:8x2 the box trees, 2 deep at the optimum, are. Measured
 * under SimGrid SMPI (bench/README.md): mi250:2's 64 MiB allgather 536.2 -> 382 us. */
#include "analysis/analysis_int.h"
#include "rt_int.h"

static bool applies(const gsp__rt_ctx_t *x) { return x->fabric != NULL; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    return gsp__rt_forest_algo(x, al, gsp__forest_mwu, "shallow spanning trees near the throughput optimum");
}

const gsp__rt_method_t gsp__rt_fabric_shallow = {
    "fabric-shallow",
    GSP__RT_COLL(GSP_COLL_ALLGATHER) | GSP__RT_COLL(GSP_COLL_REDUCE_SCATTER) | GSP__RT_COLL(GSP_COLL_ALLREDUCE) | GSP__RT_COLL(GSP_COLL_BROADCAST),
    "fabrics (link capacities, switches): ranks are the compute nodes",
    "the deepest tree, pipelined",
    "shallow spanning trees near the fabric's throughput optimum (gsp__forest_mwu: multiplicative weights, a penalty per level), each root's "
    "block cut into parts in their multiplicities, pipelined; reduce-scatter: the in-trees; allreduce: both",
    applies, add, NULL};
