/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_rs_ag.c — allreduce as the p = 1 reduce-scatter then the p = 1 allgather on N blocks.
 *
 * Applies where rt_packet.c does. Rounds: 2 ceil((N-1)/d) where the bound is met; every arc
 * carries 2(N-1)/(N d) of the vector (the all-port bandwidth bound). Exact: block x is summed
 * once, at node x, along its reversed broadcast tree, then copied. Pending until chosen. */
#include "rt_int.h"

static bool applies(const gsp__rt_ctx_t *x) { return !x->big; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    gsp_err_t err;
    int64_t all = x->t->n * (x->t->n - 1);
    if ((err = gsp__rt_add_pending(al, GSP_RT_REDUCE, GSP_RT_SPLIT, x->R1, all))) return err;
    return gsp__rt_add_pending(al, GSP_RT_STORE, GSP_RT_SPLIT, x->R1, all);
}

static gsp_err_t build(gsp_rt_algos_t *a, gsp_rt_algo_t *al) {
    gsp_err_t err;
    if ((err = gsp__rt_need_ag1(a))) return err;
    snprintf(al->built_from, sizeof al->built_from, "%s reversed, then forward", a->ag1_from);
    if ((err = gsp__rt_add_ag_phase(al, a->topo, &a->ag1, true, GSP_RT_REDUCE, GSP_RT_SPLIT))) return err;
    return gsp__rt_add_ag_phase(al, a->topo, &a->ag1, false, GSP_RT_STORE, GSP_RT_SPLIT);
}

const gsp__rt_method_t gsp__rt_rs_ag = {
    "rs-ag", GSP__RT_COLL(GSP_COLL_ALLREDUCE), "where packet applies", "2⌈(N−1)/d⌉",
    "reduce-scatter then allgather on N blocks of the vector (bandwidth-optimal)", applies, add, build};
