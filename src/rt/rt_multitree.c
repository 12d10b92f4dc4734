/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_multitree.c — broadcast and reduce down k arc-disjoint spanning trees from the root (k = the
 * arc connectivity from the root, Edmonds' theorem: the degree on tori, hypercubes, complete
 * graphs), 1/k of the vector down each, pipelined in segments: every arc carries one block in
 * all, the rounds are the deepest tree (>= ecc(root)). Reduce: the trees reversed. Packed by
 * Lovász's construction (19 ms a rank at 256 nodes, about a second at 1024): up to 256 ranks,
 * where the rings' scatter and allgather take over the bandwidth path; pending until chosen
 * (lower bound: ecc(root) rounds, deg(root) trees). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_int.h"

/* Largest graph the runtime packs arborescences for: every rank packs them on first use (19 ms
 * at 256 nodes of degree 4, about a second at 1024 nodes of degree 10: bench/README.md), which
 * start-up must not pay at scale; the rings cover broadcast and reduce beyond. */
#define MULTITREE_MAX_NODES 256

/* k arc-disjoint spanning trees from the root (gsp_arborescences): block i of k travels down
 * tree i, level by level. Every arc belongs to one tree, so it carries one block in one round
 * and the phase can run in many segments at once: each tree is a pipeline, and the k of them
 * together use every arc into every node but the root. Reversed (gather): every node sends
 * its partial sum of block i to its parent in tree i, deepest level first. */
static gsp_err_t multitree_of(const gsp_topo_t *t, int64_t root, bool gather, const gsp_model_t *model, gsp_sched_t *out,
                              int64_t *kout) {
    gsp_err_t err;
    int64_t n = t->n, k, *par = NULL, *dep = NULL, H = 0;
    memset(out, 0, sizeof *out);
    if ((err = gsp_arborescences(t, root, 0, &k, &par, &dep))) return err;
    for (int64_t i = 0; i < k * n; i++)
        if (dep[i] > H) H = dep[i];
    gsp_model_t m = *model;
    m.packets = 1;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, &m, -1, "arborescences"))) goto done;
    for (int64_t j = 0; j < H && !err; j++) {
        int64_t r = gather ? H - 1 - j : j;
        if ((err = gsp_sched_round(out))) break;
        for (int64_t i = 0; i < k && !err; i++)
            for (int64_t v = 0; v < n && !err; v++)
                if (dep[i * n + v] == r + 1)
                    err = gather ? gsp_sched_send(out, v, par[i * n + v], i) : gsp_sched_send(out, par[i * n + v], v, i);
    }
    if (!err) err = gsp_sched_finish(out);
    if (err) gsp_sched_destroy(out);
    else *kout = k;
done:
    gsp_free(par);
    gsp_free(dep);
    return err;
}

static bool applies(const gsp__rt_ctx_t *x) { return x->t->n > 1 && x->t->n <= MULTITREE_MAX_NODES; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    gsp_err_t err;
    bool bc = x->coll == GSP_COLL_BROADCAST;
    if ((err = gsp__rt_add_pending(al, bc ? GSP_RT_STORE : GSP_RT_REDUCE, GSP_RT_SPLIT, x->ecc, x->t->n - 1))) return err;
    /* At most deg(root) trees, each at least the root's eccentricity deep. */
    al->phase[0].nblocks = x->t->off[x->root + 1] - x->t->off[x->root];
    al->phase[0].pipelined = true;
    return GSP_OK;
}

static gsp_err_t build(gsp_rt_algos_t *a, gsp_rt_algo_t *al) {
    gsp_err_t err;
    gsp_sched_t s;
    int64_t k = 0;
    bool bc = al->coll == GSP_COLL_BROADCAST;
    gsp_model_t m = gsp_model_default();
    if ((err = multitree_of(a->topo, al->root, !bc, &m, &s, &k))) return err;
    if (!(err = gsp__rt_add_phase(al, a->topo, &s, -1, bc ? GSP_RT_STORE : GSP_RT_REDUCE, GSP_RT_SPLIT))) {
        al->phase[0].nblocks = k;
        al->phase[0].pipelined = true;
    }
    snprintf(al->built_from, sizeof al->built_from, "%lld arc-disjoint spanning trees%s, pipelined", (long long)k, bc ? "" : " reversed");
    gsp_sched_destroy(&s);
    return err;
}

const gsp__rt_method_t gsp__rt_multitree = {
    "multitree", GSP__RT_COLL(GSP_COLL_BROADCAST) | GSP__RT_COLL(GSP_COLL_REDUCE), "up to 256 ranks", "the deepest tree (≥ ecc)",
    "k arc-disjoint spanning trees from the root (k = the arc connectivity from the root: the degree on tori, hypercubes, complete graphs), 1/k of the buffer down each, pipelined in segments; reduce: the trees reversed, partial sums of each part up its own tree",
    applies, add, build};
