/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_algos.c — the set of candidates for one collective: what every algorithm of the registry
 * needs computed once (the flood and the broadcast tree in compact form, lower bounds), each
 * applicable algorithm added (built, or pending with lower-bound statistics), pending ones built
 * when the cost model would choose them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/runtime.h"
#include "rt_int.h"

void gsp_rt_algos_destroy(gsp_rt_algos_t *a) {
    if (!a) return;
    for (int i = 0; i < a->n; i++)
        for (int k = 0; k < a->v[i].nphases; k++) gsp__rt_phase_destroy(&a->v[i].phase[k]);
    gsp_free(a->v);
    gsp_sched_destroy(&a->ag1);
    memset(a, 0, sizeof *a);
}

gsp_err_t gsp_rt_realize(gsp_rt_algos_t *a, int i, bool *removed) {
    *removed = false;
    if (i < 0 || i >= a->n) return gsp_error(GSP_ERR_RANGE, "no algorithm %d", i);
    gsp_rt_algo_t *al = &a->v[i];
    if (!al->pending) return GSP_OK;
    const gsp__rt_method_t *m = gsp__rt_method_find(al->name);
    if (!m || !m->build) return gsp_error(GSP_ERR_INTERNAL, "no builder for runtime algorithm %s", al->name);
    /* Pending phases are replaced by the built ones. */
    for (int k = 0; k < al->nphases; k++) gsp__rt_phase_destroy(&al->phase[k]);
    al->nphases = 0;
    al->pending = false;
    gsp_err_t err = m->build(a, al);
    if (err == GSP_ERR_NOTAPPLIC) {
        /* Its schedule does not exist here: not a candidate. */
        for (int k = 0; k < al->nphases; k++) gsp__rt_phase_destroy(&al->phase[k]);
        memmove(&a->v[i], &a->v[i + 1], (size_t)(a->n - i - 1) * sizeof *a->v);
        a->n--;
        *removed = true;
        return GSP_OK;
    }
    return err;
}

gsp_err_t gsp_rt_choose_build(gsp_rt_algos_t *a, int64_t nodes, int64_t bytes, const gsp_cost_t *c,
                              bool (*skip)(const gsp_rt_algo_t *, void *), void *ctx, int *idx) {
    for (;;) {
        int best = -1;
        double bt = 0;
        for (int i = 0; i < a->n; i++) {
            if (skip && skip(&a->v[i], ctx)) continue;
            gsp_rt_pred_t p;
            gsp_rt_predict(&a->v[i], nodes, bytes, c, &p);
            if (best < 0 || p.seconds < bt) {
                best = i;
                bt = p.seconds;
            }
        }
        *idx = best;
        if (best < 0) return gsp_error(GSP_ERR_NOTAPPLIC, "no runtime algorithm is left");
        if (!a->v[best].pending) return GSP_OK;
        /* Its lower bound wins: build it and compare again with what it really costs. */
        bool removed;
        gsp_err_t err = gsp_rt_realize(a, best, &removed);
        if (err) return err;
    }
}

gsp_err_t gsp_rt_algos(const gsp_topo_t *t, const gsp_distances_t *d, gsp_collective_t c, int64_t root, const char *method,
                       gsp_rt_algos_t *out) {
    gsp_err_t err = GSP_OK;
    gsp_sched_t flood, tree;
    char f_flood[32] = "", f_tree[32] = "";
    memset(out, 0, sizeof *out);
    memset(&flood, 0, sizeof flood);
    memset(&tree, 0, sizeof tree);
    if (!method || !*method) method = "auto";
    out->topo = t;
    out->dist = d;
    snprintf(out->method, sizeof out->method, "%s", method);
    bool rooted = c == GSP_COLL_BROADCAST || c == GSP_COLL_REDUCE;
    if (rooted && (root < 0 || root >= t->n))
        return gsp_error(GSP_ERR_RANGE, "root %lld outside 0..%lld", (long long)root, (long long)t->n - 1);
    if (t->directed && c != GSP_COLL_ALLGATHER && c != GSP_COLL_BROADCAST)
        return gsp_error(GSP_ERR_NOTAPPLIC, "%s: reductions run allgather schedules backwards and need an undirected graph", t->spec);
    /* A broadcast method names the tree; anything else the allgather construction. */
    bool tree_method = gsp_method_find(method, GSP_COLL_BROADCAST) != NULL;
    if (strcmp(method, "auto") && !tree_method && !gsp_method_find(method, GSP_COLL_ALLGATHER))
        return gsp_error(GSP_ERR_INVAL, "no allgather or broadcast method '%s' (see 'gossip list')", method);
    gsp__rt_ctx_t x;
    memset(&x, 0, sizeof x);
    x.set = out;
    x.t = t;
    x.d = d;
    x.coll = c;
    x.root = rooted ? root : -1;
    x.cayley = t->group != NULL;
    x.big = !x.cayley && t->n > GSP_RT_EXPLICIT_MAX_NODES;
    x.tree_method = tree_method;
    x.ecc = d->diameter;
    /* A named allgather method must work: plan it now, so its failure is the caller's error. */
    bool named = strcmp(method, "auto") && !tree_method && strcmp(method, "flood");
    if (named && (err = gsp__rt_need_ag1(out))) goto fail;
    /* Every node receives N - 1 blocks over at most maxdeg arcs a round (p = 1), and not before
     * the diameter. */
    int64_t n = t->n, maxin = 1;
    for (int64_t v = 0; v < n; v++)
        if (t->off[v + 1] - t->off[v] > maxin) maxin = t->off[v + 1] - t->off[v];
    x.R1 = n > 1 ? (n - 2) / maxin + 1 : 0;
    if (x.R1 < d->diameter) x.R1 = d->diameter;
    if (rooted) {
        int64_t reached;
        int32_t *dr = NULL;
        if ((err = gsp_alloc_array((void **)&dr, n, sizeof *dr, false))) goto fail;
        err = gsp_bfs(t, root, dr, NULL, &x.ecc, &reached);
        gsp_free(dr);
        if (err) goto fail;
    }
    if ((c == GSP_COLL_ALLGATHER || c == GSP_COLL_REDUCE_SCATTER || c == GSP_COLL_ALLREDUCE) && x.cayley) {
        if ((err = gsp__rt_flood_of(out, &flood, f_flood, sizeof f_flood))) goto fail;
        x.flood = &flood;
        x.f_flood = f_flood;
    }
    if (c == GSP_COLL_ALLREDUCE || rooted) {
        gsp_plan_t pl;
        int64_t r = x.cayley || !rooted ? 0 : root;
        if ((err = gsp__rt_plan(t, d, GSP_COLL_BROADCAST, 1, r, tree_method ? method : "auto", &pl))) goto fail;
        err = gsp__rt_tree_first(&pl.sched, t, &tree);
        snprintf(f_tree, sizeof f_tree, "%s", pl.method->name);
        gsp_plan_destroy(&pl);
        if (err) goto fail;
        x.tree = &tree;
        x.f_tree = f_tree;
    }
    for (int i = 0; i < gsp__rt_nmethods; i++) {
        const gsp__rt_method_t *m = gsp__rt_methods[i];
        if (!(m->colls & GSP__RT_COLL(c)) || !m->applies(&x)) continue;
        gsp_rt_algo_t *al;
        if ((err = gsp__rt_add_algo(out, m->name, c, x.root, &al)) || (err = m->add(&x, al))) goto fail;
    }
    if (out->n == 0) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "no runtime algorithm for %s applies to %s%s", gsp_collective_name(c), t->spec,
                        x.big ? " (a graph without a group is planned explicitly up to 4096 nodes)" : "");
        goto fail;
    }
    /* A named method's algorithms are built now: what the user asked for must exist. */
    for (int i = 0; named && i < out->n; i++) {
        bool removed;
        if ((err = gsp_rt_realize(out, i, &removed))) goto fail;
        if (removed) i--;
    }
    goto done;
fail:
    gsp_rt_algos_destroy(out);
done:
    gsp_sched_destroy(&flood);
    gsp_sched_destroy(&tree);
    return err;
}
