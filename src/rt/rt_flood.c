/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_flood.c — allgather and reduce-scatter in D rounds, messages concatenated (the latency path).
 *
 * Every origin's block travels down its BFS tree: on a Cayley graph the identity's tree
 * translated (N - 1 symmetric entries, built at once); elsewhere an explicit schedule (up to
 * 4096 nodes, pending until chosen). Rounds: D. The busiest arc carries up to the largest
 * branch of the BFS tree per round; reduce-scatter runs it backwards. */
#include "rt_int.h"

static bool applies(const gsp__rt_ctx_t *x) { return !x->big; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    bool rev = x->coll == GSP_COLL_REDUCE_SCATTER;
    gsp_rt_kind_t k = rev ? GSP_RT_REDUCE : GSP_RT_STORE;
    gsp_rt_layout_t l = rev ? GSP_RT_SPLIT : GSP_RT_RANK;
    if (!x->flood) return gsp__rt_add_pending(al, k, l, x->d->diameter, x->t->n * (x->t->n - 1));
    snprintf(al->built_from, sizeof al->built_from, "%s%s", rev ? "reversed " : "", x->f_flood);
    return gsp__rt_add_ag_phase(al, x->t, x->flood, rev, k, l);
}

static gsp_err_t build(gsp_rt_algos_t *a, gsp_rt_algo_t *al) {
    gsp_err_t err;
    gsp_sched_t s;
    char from[32];
    if ((err = gsp__rt_flood_of(a, &s, from, sizeof from))) return err;
    bool rev = al->coll == GSP_COLL_REDUCE_SCATTER;
    snprintf(al->built_from, sizeof al->built_from, "%s%s", rev ? "reversed " : "", from);
    err = gsp__rt_add_ag_phase(al, a->topo, &s, rev, rev ? GSP_RT_REDUCE : GSP_RT_STORE, rev ? GSP_RT_SPLIT : GSP_RT_RANK);
    gsp_sched_destroy(&s);
    return err;
}

const gsp__rt_method_t gsp__rt_flood = {
    "flood", GSP__RT_COLL(GSP_COLL_ALLGATHER) | GSP__RT_COLL(GSP_COLL_REDUCE_SCATTER),
    "any graph (compact on Cayley graphs; explicit up to 4096 nodes)", "D",
    "every block down its BFS tree, messages concatenate (the latency path); reduce-scatter: reversed", applies, add, build};
