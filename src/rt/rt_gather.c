/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_gather.c — allreduce for small vectors: every rank gathers every vector by the flood (D
 * rounds), then reduces the N vectors in rank order, the same order on every rank (exact).
 * Cost: D rounds of the flood on whole vectors, plus gamma (N - 1) V at every rank. */
#include "rt_int.h"

static bool applies(const gsp__rt_ctx_t *x) { return !x->big; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    al->local_reduce = true;
    if (!x->flood) return gsp__rt_add_pending(al, GSP_RT_STORE, GSP_RT_RANK, x->d->diameter, x->t->n * (x->t->n - 1));
    snprintf(al->built_from, sizeof al->built_from, "%s, then a reduction in rank order", x->f_flood);
    return gsp__rt_add_ag_phase(al, x->t, x->flood, false, GSP_RT_STORE, GSP_RT_RANK);
}

static gsp_err_t build(gsp_rt_algos_t *a, gsp_rt_algo_t *al) {
    gsp_err_t err;
    gsp_sched_t s;
    char from[32];
    if ((err = gsp__rt_flood_of(a, &s, from, sizeof from))) return err;
    al->local_reduce = true;
    snprintf(al->built_from, sizeof al->built_from, "%s, then a reduction in rank order", from);
    err = gsp__rt_add_ag_phase(al, a->topo, &s, false, GSP_RT_STORE, GSP_RT_RANK);
    gsp_sched_destroy(&s);
    return err;
}

const gsp__rt_method_t gsp__rt_gather = {
    "gather", GSP__RT_COLL(GSP_COLL_ALLREDUCE), "where flood applies", "D",
    "every rank gathers every vector in D rounds and reduces in rank order (the latency path)", applies, add, build};
