/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_fabric.c — allgather, reduce-scatter, allreduce and broadcast on a fabric (link capacities,
 * switches: docs/fabrics.md) by the spanning trees that reach its throughput optimum
 * (gsp_fabric_trees), pipelined. Ranks are the compute nodes, in vertex order; a tree edge is a
 * message between two ranks, which the network routes through its switches.
 *
 * Each root's block is cut into `share` parts and tree i carries mult_i of them, so an arc's
 * load over the whole collective is what the packing gives it: T* = M / algbw*. Allgather and
 * broadcast: a rank forwards a tree's parts to its children in that tree as soon as they
 * arrive, segment by segment; reduce-scatter: the in-trees, each rank sending its partial sum
 * of a tree's parts to its parent once its children's have arrived; allreduce: the two, one
 * after the other. Cost: T* (1 + (depth - 1) / S) plus a latency per level and segment, S the
 * segments (gsp_rt_segments), depth the deepest tree in compute edges (the `levels`).
 *
 * The trees are the packing before gsp_fabric_trees' trades between trees (fabric_swap.c): the
 * trades make them shallower by splitting trees, and every tree is a message per edge and lane.
 * Under SMPI (bench/README.md), dgx:8x2's 64 MiB allreduce took 990.7 us on the 93 trees as
 * packed, 1109.2 on 186 traded ones (depth 5 instead of 7), 1146.7 on 243; at 1 MiB the traded
 * trees were faster (58.0 and 60.8 against 67.0 us).
 *
 * Rounds: level * trees + tree. A tree's parts cross one edge in a round of their own, so a
 * message carries one tree's parts, which arrived together in one message (what a pipelined
 * phase needs of a message: rt_prog.c), and messages between two ranks have distinct rounds
 * (tags). Planned by every rank from the fabric alone (the trees are a property of the whole
 * fabric, computed in milliseconds at 64 GPUs: bench/README.md), each rank keeping its own
 * program. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"
#include "rt_int.h"

/* Compute index (rank) of every vertex, -1 for a switch; *nc [out] the compute nodes. */
static gsp_err_t ranks_of(const gsp_topo_t *fab, int64_t **cidx, int64_t *nc) {
    gsp_err_t err = gsp_alloc_array((void **)cidx, fab->n, sizeof **cidx, false);
    if (err) return err;
    int64_t k = 0;
    for (int64_t v = 0; v < fab->n; v++) (*cidx)[v] = fab->is_switch && fab->is_switch[v] ? -1 : k++;
    *nc = k;
    return GSP_OK;
}

/* Appends to al the pipelined phase of forest f on the ranks' complete graph `ranks`: store
 * (out-trees, data from[i] -> to[i]) or reduce (in-trees, to[i] -> from[i]); blocks as the
 * layout numbers them: RANK and SPLIT over the N ranks, part q of rank x's block is
 * x * share + q; SPLIT over share blocks (broadcast), block q. */
static gsp_err_t forest_phase(gsp_rt_algo_t *al, const gsp_topo_t *ranks, const gsp_topo_t *fab, const gsp_forest_t *f,
                              gsp_rt_kind_t kind, gsp_rt_layout_t layout, bool per_rank) {
    gsp_err_t err;
    int64_t *cidx = NULL, *dep = NULL, *first = NULL, *off = NULL, nc, NT = f->ntrees, S = f->share, H = 0;
    bool reduce = kind == GSP_RT_REDUCE;
    gsp_sched_t s;
    memset(&s, 0, sizeof s);
    if ((err = ranks_of(fab, &cidx, &nc))) return err;
    /* Each tree's vertex depths (compute edges from its root) and its first part. */
    if ((err = gsp_alloc_array((void **)&dep, fab->n, sizeof *dep, false)) || (err = gsp_alloc_array((void **)&first, NT + 1, sizeof *first, false)) ||
        (err = gsp_alloc_array((void **)&off, fab->n, sizeof *off, true)))
        goto done;
    for (int64_t i = 0; i < NT; i++) {
        const gsp_tree_t *T = &f->trees[i];
        first[i] = off[T->root];
        off[T->root] += T->mult;
        dep[T->root] = 0;
        for (int64_t e = 0; e < T->nedges; e++) {
            dep[T->to[e]] = dep[T->from[e]] + 1;
            if (dep[T->to[e]] > H) H = dep[T->to[e]];
        }
    }
    if (H * NT > ((int64_t)1 << 20)) {
        err = gsp_error(GSP_ERR_TOOBIG, "%s: %lld trees %lld deep: more rounds than the runtime's tags hold (2^20)", fab->spec, (long long)NT,
                        (long long)H);
        goto done;
    }
    gsp_model_t m = gsp_model_default();
    m.packets = 1;
    if ((err = gsp_sched_init(&s, GSP_COLL_ALLGATHER, ranks->spec, nc, &m, -1, "fabric-trees"))) goto done;
    for (int64_t L = 0; L < H && !err; L++)
        for (int64_t i = 0; i < NT && !err; i++) {
            if ((err = gsp_sched_round(&s))) break;
            const gsp_tree_t *T = &f->trees[i];
            /* The tree's depths again (dep is per tree: recomputed, parents first). */
            dep[T->root] = 0;
            for (int64_t e = 0; e < T->nedges; e++) dep[T->to[e]] = dep[T->from[e]] + 1;
            for (int64_t e = 0; e < T->nedges && !err; e++) {
                /* Store: level L sends reach depth L + 1. Reduce: the deepest edges first. */
                if (reduce ? H - dep[T->to[e]] != L : dep[T->to[e]] - 1 != L) continue;
                int64_t u = cidx[T->from[e]], v = cidx[T->to[e]], base = per_rank ? cidx[T->root] * S : 0;
                for (int64_t q = first[i]; q < first[i] + T->mult && !err; q++)
                    err = reduce ? gsp_sched_send(&s, v, u, base + q) : gsp_sched_send(&s, u, v, base + q);
            }
        }
    if (!err) err = gsp_sched_finish(&s);
    if (err) goto done;
    gsp_rt_phase_t *p = &al->phase[al->nphases];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->layout = layout;
    p->source = GSP_RT_SRC_EXPLICIT;
    p->sched = s;
    memset(&s, 0, sizeof s);
    al->nphases++;
    p->nrounds = p->sched.nrounds;
    p->ntransfers = p->sched.nsends;
    p->pipelined = true;
    p->levels = H;
    if (per_rank) p->parts = S;
    else p->nblocks = S;
    if (!(err = gsp__rt_phase_stats(p, ranks))) err = gsp__rt_io_stats(p);
done:
    gsp_sched_destroy(&s);
    gsp_free(cidx);
    gsp_free(dep);
    gsp_free(first);
    gsp_free(off);
    return err;
}

static bool applies(const gsp__rt_ctx_t *x) { return x->fabric != NULL; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    gsp_err_t err = GSP_OK;
    gsp_forest_t f;
    const gsp_topo_t *fab = x->fabric;
    int64_t depth = 0, trees = 0;
    memset(&f, 0, sizeof f);
    if (x->coll == GSP_COLL_REDUCE_SCATTER || x->coll == GSP_COLL_ALLREDUCE) {
        if ((err = gsp__fabric_trees(fab, GSP_COLL_REDUCE_SCATTER, -1, false, &f))) return err;
        err = forest_phase(al, x->t, fab, &f, GSP_RT_REDUCE, GSP_RT_SPLIT, true);
        depth = f.depth;
        trees += f.ntrees;
        gsp_forest_destroy(&f);
        if (err) return err;
    }
    if (x->coll == GSP_COLL_ALLGATHER || x->coll == GSP_COLL_ALLREDUCE) {
        if ((err = gsp__fabric_trees(fab, GSP_COLL_ALLGATHER, -1, false, &f))) return err;
        err = forest_phase(al, x->t, fab, &f, GSP_RT_STORE, x->coll == GSP_COLL_ALLREDUCE ? GSP_RT_SPLIT : GSP_RT_RANK, true);
        if (f.depth > depth) depth = f.depth;
        trees += f.ntrees;
        gsp_forest_destroy(&f);
        if (err) return err;
    }
    if (x->coll == GSP_COLL_BROADCAST) {
        int64_t rv = -1, k = 0;
        for (int64_t v = 0; v < fab->n && rv < 0; v++)
            if (!(fab->is_switch && fab->is_switch[v]) && k++ == x->root) rv = v;
        if ((err = gsp__fabric_trees(fab, GSP_COLL_BROADCAST, rv, false, &f))) return err;
        err = forest_phase(al, x->t, fab, &f, GSP_RT_STORE, GSP_RT_SPLIT, false);
        depth = f.depth;
        trees = f.ntrees;
        gsp_forest_destroy(&f);
        if (err) return err;
    }
    snprintf(al->built_from, sizeof al->built_from, "%lld spanning trees at the throughput optimum, %lld deep, pipelined", (long long)trees,
             (long long)depth);
    return GSP_OK;
}

const gsp__rt_method_t gsp__rt_fabric = {
    "fabric-trees",
    GSP__RT_COLL(GSP_COLL_ALLGATHER) | GSP__RT_COLL(GSP_COLL_REDUCE_SCATTER) | GSP__RT_COLL(GSP_COLL_ALLREDUCE) | GSP__RT_COLL(GSP_COLL_BROADCAST),
    "fabrics (link capacities, switches): ranks are the compute nodes",
    "the deepest tree, pipelined",
    "the spanning trees that reach the fabric's throughput optimum (gsp_fabric_trees), each root's block cut into parts in their multiplicities, pipelined; reduce-scatter: the in-trees; allreduce: both",
    applies, add, NULL};

gsp_err_t gsp_rt_fabric_algos(const gsp_topo_t *fabric, const gsp_topo_t *ranks, const gsp_distances_t *d, gsp_collective_t c, int64_t root,
                              gsp_rt_algos_t *out) {
    gsp_err_t err;
    memset(out, 0, sizeof *out);
    out->topo = ranks;
    out->dist = d;
    snprintf(out->method, sizeof out->method, "%s", "auto");
    int64_t nc = gsp_topo_compute_count(fabric);
    if (nc != ranks->n)
        return gsp_error(GSP_ERR_INVAL, "%s has %lld compute nodes, the ranks' graph %lld", fabric->spec, (long long)nc, (long long)ranks->n);
    if (!(gsp__rt_fabric.colls & GSP__RT_COLL(c)))
        return gsp_error(GSP_ERR_NOTAPPLIC, "no runtime algorithm for %s on a fabric (%s)", gsp_collective_name(c), fabric->spec);
    bool rooted = c == GSP_COLL_BROADCAST;
    if (rooted && (root < 0 || root >= nc)) return gsp_error(GSP_ERR_RANGE, "root %lld outside 0..%lld", (long long)root, (long long)nc - 1);
    gsp__rt_ctx_t x;
    memset(&x, 0, sizeof x);
    x.set = out;
    x.t = ranks;
    x.d = d;
    x.coll = c;
    x.root = rooted ? root : -1;
    x.fabric = fabric;
    gsp_rt_algo_t *al;
    if ((err = gsp__rt_add_algo(out, gsp__rt_fabric.name, c, x.root, &al)) || (err = gsp__rt_fabric.add(&x, al))) gsp_rt_algos_destroy(out);
    return err;
}
