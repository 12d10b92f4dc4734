/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_scatter_allgather.c — broadcast as a scatter of N blocks from the root, one block per arc
 * and round down a BFS tree with balanced root branches (deepest destinations first), then the
 * p = 1 allgather. About ceil((N-1)/d) + ecc + ceil((N-1)/d) rounds; the root's arcs carry
 * (N-1)/(N d) of the vector. Pending until chosen (its lower bound decides first). */
#include "rt_int.h"

static bool applies(const gsp__rt_ctx_t *x) { return !x->big && x->t->n > 1 && !x->tree_method; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    gsp_err_t err;
    int64_t n = x->t->n, deg = x->t->off[x->root + 1] - x->t->off[x->root], Rs = (n - 2) / (deg > 0 ? deg : 1) + 1;
    if ((err = gsp__rt_add_pending(al, GSP_RT_STORE, GSP_RT_SPLIT, Rs, n - 1))) return err;
    return gsp__rt_add_pending(al, GSP_RT_STORE, GSP_RT_SPLIT, x->R1, n * (n - 1));
}

static gsp_err_t build(gsp_rt_algos_t *a, gsp_rt_algo_t *al) {
    gsp_err_t err;
    gsp_sched_t s;
    gsp_model_t m = gsp_model_default();
    if ((err = gsp__rt_need_ag1(a)) || (err = gsp__rt_scatter(a->topo, al->root, false, &m, &s))) return err;
    snprintf(al->built_from, sizeof al->built_from, "a balanced BFS scatter, then %s", a->ag1_from);
    if (!(err = gsp__rt_add_phase(al, a->topo, &s, -1, GSP_RT_STORE, GSP_RT_SPLIT)))
        err = gsp__rt_add_ag_phase(al, a->topo, &a->ag1, false, GSP_RT_STORE, GSP_RT_SPLIT);
    gsp_sched_destroy(&s);
    return err;
}

const gsp__rt_method_t gsp__rt_scatter_allgather = {
    "scatter-allgather", GSP__RT_COLL(GSP_COLL_BROADCAST), "where packet applies",
    "about 2⌈(N−1)/d⌉ + ecc",
    "N blocks scattered from the root one block per arc and round (a BFS tree with balanced root branches, deepest first), then the p = 1 allgather",
    applies, add, build};
