/* SPDX-License-Identifier: GPL-3.0-or-later */
/* reduce_scatter_reverse.c — reduce-scatter as the time-reversal of the best allgather.
 *
 * Every packet of an allgather schedule travels on a broadcast tree from its origin (its first
 * deliveries). Run backwards in time and direction, that tree gathers partial sums of block x
 * into node x: in reversed round R-1-r, a node sends its partial sum of x (its own value plus
 * what its subtree sent earlier) to its tree parent. Same rounds as the allgather, same load
 * on every arc in every round; the lower bounds of the allgather hold too (a node must send a
 * partial sum of each of the N-1 other blocks, and the layered bound reads the same way on an
 * undirected graph). Example: torus:8x8 in 16 rounds, 4032 transfers, one block per arc and
 * round. Applies to undirected connected graphs with N <= 8192 (the exact check's limit). */
#include <string.h>

#include "algo_int.h"

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) { return gsp__some_method_applies(in, GSP_COLL_ALLGATHER, why, n); }

static int64_t rounds(const gsp_plan_in_t *in) {
    (void)in;
    return -1;
}

/* The allgather's lower bound (reversed, its bounds hold: see above). */
static int64_t least_rounds(const gsp_plan_in_t *in) {
    gsp_bounds_t b;
    if (gsp_bounds_compute(in->topo, in->dist, GSP_COLL_ALLGATHER, &in->model, -1, &b)) return -1;
    return gsp_bounds_value(&b);
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) { return gsp__build_from_allgather(in, gsp_sched_reverse, "reverse", out); }

const gsp_method_t gsp__method_reduce_scatter_reverse = {
    "reverse", GSP_COLL_REDUCE_SCATTER, "undirected graphs: the best allgather reversed in time and direction",
    "packet-gossip paper's schedules, reversed (balanced trees into every owner)", applies, rounds, build, false, NULL, false,
    least_rounds, .needs = GSP__REVERSAL_NEEDS};
