/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_rs_gather.c — reduce as the p = 1 reduce-scatter, then the finished blocks gathered into the
 * root (the balanced BFS scatter reversed). About 2 ceil((N-1)/d) + ecc rounds. Pending until
 * chosen. */
#include "rt_int.h"

static bool applies(const gsp__rt_ctx_t *x) { return !x->big && x->t->n > 1; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    gsp_err_t err;
    int64_t n = x->t->n, deg = x->t->off[x->root + 1] - x->t->off[x->root], Rs = (n - 2) / (deg > 0 ? deg : 1) + 1;
    if ((err = gsp__rt_add_pending(al, GSP_RT_REDUCE, GSP_RT_SPLIT, x->R1, n * (n - 1)))) return err;
    return gsp__rt_add_pending(al, GSP_RT_STORE, GSP_RT_SPLIT, Rs, n - 1);
}

static gsp_err_t build(gsp_rt_algos_t *a, gsp_rt_algo_t *al) {
    gsp_err_t err;
    gsp_sched_t s;
    gsp_model_t m = gsp_model_default();
    if ((err = gsp__rt_need_ag1(a)) || (err = gsp__rt_scatter(a->topo, al->root, true, &m, &s))) return err;
    snprintf(al->built_from, sizeof al->built_from, "reversed %s, then a balanced BFS gather", a->ag1_from);
    if (!(err = gsp__rt_add_ag_phase(al, a->topo, &a->ag1, true, GSP_RT_REDUCE, GSP_RT_SPLIT)))
        err = gsp__rt_add_phase(al, a->topo, &s, -1, GSP_RT_STORE, GSP_RT_SPLIT);
    gsp_sched_destroy(&s);
    return err;
}

const gsp__rt_method_t gsp__rt_rs_gather = {
    "rs-gather", GSP__RT_COLL(GSP_COLL_REDUCE), "where packet applies", "about 2⌈(N−1)/d⌉ + ecc",
    "reduce-scatter, then the finished blocks gathered into the root (the scatter reversed)", applies, add, build};
