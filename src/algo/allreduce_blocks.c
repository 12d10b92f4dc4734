/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allreduce_blocks.c — bandwidth-optimal allreduce: reduce-scatter then allgather on N blocks.
 *
 * The vector is cut into N blocks, block x owned by node x. The best allgather schedule,
 * reversed, sums every block into its owner; the same schedule forward (first deliveries
 * only) spreads the finished blocks. 2R rounds where the register methods need D..2D, but
 * every arc carries one block (1/N of the vector) per packet slot instead of whole vectors:
 * on torus:8x8 32 rounds of 1/64 of the vector against 8 rounds of the whole vector. Each block
 * is reduced once, at its owner, along a fixed tree: every node gets the same bits. Applies to
 * undirected connected graphs with N <= 8192. */
#include <string.h>

#include "algo_int.h"

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) { return gsp__some_method_applies(in, GSP_COLL_ALLGATHER, why, n); }

static int64_t rounds(const gsp_plan_in_t *in) {
    (void)in;
    return -1;
}

/* Twice the allgather's lower bound: the reduce-scatter is an allgather run backwards (its bounds
 * hold, reduce_scatter_reverse.c), and the allgather follows it. On star:7 that is 1680 rounds,
 * known before building 25 million transfers. */
static int64_t least_rounds(const gsp_plan_in_t *in) {
    gsp_bounds_t b;
    if (gsp_bounds_compute(in->topo, in->dist, GSP_COLL_ALLGATHER, &in->model, -1, &b)) return -1;
    return 2 * gsp_bounds_value(&b);
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) { return gsp__build_from_allgather(in, gsp_sched_allreduce_blocks, "rs-ag", out); }

const gsp_method_t gsp__method_allreduce_blocks = {
    "rs-ag", GSP_COLL_ALLREDUCE, "undirected graphs: reduce-scatter (the best allgather reversed), then that allgather; N blocks",
    "packet-gossip paper's schedules, reversed then forward", applies, rounds, build, false, NULL, false,
    least_rounds, .needs = GSP__REVERSAL_NEEDS};
