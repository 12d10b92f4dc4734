/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_rs_ag_flood.c — allreduce as the flood reversed (a reduce-scatter in D rounds), then the
 * flood forward: 2D rounds, up to about twice the p = 1 schedule's load on the busiest arc.
 * Compact on Cayley graphs; explicit (pending) elsewhere, up to 4096 nodes. */
#include "rt_int.h"

static bool applies(const gsp__rt_ctx_t *x) { return !x->big; }

static gsp_err_t phases(gsp_rt_algo_t *al, const gsp_topo_t *t, const gsp_sched_t *s, const char *from) {
    gsp_err_t err;
    snprintf(al->built_from, sizeof al->built_from, "%s reversed, then forward", from);
    if ((err = gsp__rt_add_ag_phase(al, t, s, true, GSP_RT_REDUCE, GSP_RT_SPLIT))) return err;
    return gsp__rt_add_ag_phase(al, t, s, false, GSP_RT_STORE, GSP_RT_SPLIT);
}

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    gsp_err_t err;
    int64_t all = x->t->n * (x->t->n - 1);
    if (x->flood) return phases(al, x->t, x->flood, x->f_flood);
    if ((err = gsp__rt_add_pending(al, GSP_RT_REDUCE, GSP_RT_SPLIT, x->d->diameter, all))) return err;
    return gsp__rt_add_pending(al, GSP_RT_STORE, GSP_RT_SPLIT, x->d->diameter, all);
}

static gsp_err_t build(gsp_rt_algos_t *a, gsp_rt_algo_t *al) {
    gsp_err_t err;
    gsp_sched_t s;
    char from[32];
    if ((err = gsp__rt_flood_of(a, &s, from, sizeof from))) return err;
    err = phases(al, a->topo, &s, from);
    gsp_sched_destroy(&s);
    return err;
}

const gsp__rt_method_t gsp__rt_rs_ag_flood = {
    "rs-ag-flood", GSP__RT_COLL(GSP_COLL_ALLREDUCE), "where flood applies", "2D",
    "the same on the flood trees", applies, add, build};
