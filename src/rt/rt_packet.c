/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_packet.c — allgather and reduce-scatter on the p = 1 allgather (one block per arc and round).
 *
 * Applies to every connected graph the p = 1 allgather methods plan (a complete rotation,
 * balanced search, the circulants' construction; explicit schedules up to 4096 nodes without a
 * group; above 16384 nodes only the linear-time constructions). Rounds: ceil((N-1)/d) where
 * the method meets the degree bound (torus:8x8: 16). Cost per round: alpha + beta * block
 * (+ gamma * d blocks reduced): the bandwidth-optimal all-port schedule of Bermond, Kodate and
 * Perennes. Reduce-scatter runs it backwards: each block's partial sums flow into its owner.
 * Pending until chosen: its lower bound (R1 rounds, one block each) decides first. */
#include "rt_int.h"

static bool applies(const gsp__rt_ctx_t *x) { return !x->big; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    bool rev = x->coll == GSP_COLL_REDUCE_SCATTER;
    return gsp__rt_add_pending(al, rev ? GSP_RT_REDUCE : GSP_RT_STORE, rev ? GSP_RT_SPLIT : GSP_RT_RANK, x->R1, x->t->n * (x->t->n - 1));
}

static gsp_err_t build(gsp_rt_algos_t *a, gsp_rt_algo_t *al) {
    gsp_err_t err;
    if ((err = gsp__rt_need_ag1(a))) return err;
    bool rev = al->coll == GSP_COLL_REDUCE_SCATTER;
    snprintf(al->built_from, sizeof al->built_from, "%s%s", rev ? "reversed " : "", a->ag1_from);
    return gsp__rt_add_ag_phase(al, a->topo, &a->ag1, rev, rev ? GSP_RT_REDUCE : GSP_RT_STORE, rev ? GSP_RT_SPLIT : GSP_RT_RANK);
}

const gsp__rt_method_t gsp__rt_packet = {
    "packet", GSP__RT_COLL(GSP_COLL_ALLGATHER) | GSP__RT_COLL(GSP_COLL_REDUCE_SCATTER),
    "any graph a p = 1 allgather method plans", "⌈(N−1)/d⌉ where the bound is met",
    "the p = 1 allgather (rotation, balanced search, …): one block per arc and round; reduce-scatter: reversed",
    applies, add, build};
