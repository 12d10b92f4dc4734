/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_tree.c — whole vectors along a broadcast tree: broadcast down it, reduce up it, allreduce
 * up the tree of node 0 and back down.
 *
 * The tree is the broadcast method's (a BFS tree, or the circulant paper's tree), first
 * deliveries only. On a Cayley graph it is planned once from the identity and translated to any
 * root by right multiplication (an automorphism): each rank finds its parent and children
 * without anyone else's. Rounds: ecc(root) each way (allreduce 2 ecc(0)); every tree arc carries
 * the vector once; a node with c children combines c vectors. */
#include "rt_int.h"

static bool applies(const gsp__rt_ctx_t *x) { (void)x; return true; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    gsp_err_t err;
    const gsp_topo_t *t = x->t;
    if (x->coll == GSP_COLL_ALLREDUCE) {
        snprintf(al->built_from, sizeof al->built_from, "%s from 0, reversed, then forward", x->f_tree);
        if ((err = x->cayley ? gsp__rt_add_tree(al, t, x->tree, 0, true) : gsp__rt_add_phase(al, t, x->tree, 1, GSP_RT_REDUCE, GSP_RT_WHOLE)))
            return err;
        /* (the tree is first deliveries already: an explicit phase copies it as it is) */
        return x->cayley ? gsp__rt_add_tree(al, t, x->tree, 0, false) : gsp__rt_add_phase(al, t, x->tree, -1, GSP_RT_STORE, GSP_RT_WHOLE);
    }
    bool bc = x->coll == GSP_COLL_BROADCAST;
    snprintf(al->built_from, sizeof al->built_from, "%s%s", bc ? "" : "reversed ", x->f_tree);
    if (x->cayley) return gsp__rt_add_tree(al, t, x->tree, x->root, !bc);
    return gsp__rt_add_phase(al, t, x->tree, bc ? -1 : 1, bc ? GSP_RT_STORE : GSP_RT_REDUCE, GSP_RT_WHOLE);
}

const gsp__rt_method_t gsp__rt_tree = {
    "tree", GSP__RT_COLL(GSP_COLL_ALLREDUCE) | GSP__RT_COLL(GSP_COLL_BROADCAST) | GSP__RT_COLL(GSP_COLL_REDUCE), "any graph",
    "ecc(root); allreduce 2·ecc(0)",
    "the broadcast tree (BFS, or the circulant paper's tree), the whole buffer per edge; reduce: reversed; allreduce: up the tree of node 0 and back",
    applies, add, NULL};
