/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_flat.c — broadcast and reduce by direct messages: the root sends the vector to every rank,
 * farthest first (reduce: every rank sends its vector to the root, which combines them in rank
 * order, exact). One round of routed messages: on a cut-through network the farthest rank hears
 * after one latency plus a hop latency per further link, where a tree on arcs pays a latency
 * and a transfer per level. Predicted per root link (a dimension-order router's load: every
 * destination whose shortest paths may start there) as latency-then-share. Up to 4096 ranks
 * (the root handles N - 1 messages at once). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_int.h"

/* The flat tree's root handles N - 1 messages at once (and, reduced, N - 1 vectors). */
#define FLAT_MAX_NODES 4096

/* The flat tree: the root sends the whole vector to every rank directly, farthest first
 * (gather: every rank sends its vector to the root, which combines them in rank order), one
 * round of routed messages. On a cut-through network the farthest rank hears after one
 * latency plus a hop latency per further link, where a tree on arcs pays a latency and a
 * transfer per level. The prediction needs each root link's load by distance: one BFS from
 * the root and one from each of its neighbours. */
static gsp_err_t add_flat(gsp_rt_algo_t *al, const gsp_topo_t *t, int64_t root, bool gather) {
    gsp_err_t err;
    int64_t n = t->n, deg = t->off[root + 1] - t->off[root], *parent = NULL, *order = NULL, ecc2, reached2;
    int32_t *dist = NULL, *d2 = NULL;
    gsp_rt_phase_t *p = &al->phase[al->nphases];
    memset(p, 0, sizeof *p);
    p->kind = gather ? GSP_RT_REDUCE : GSP_RT_STORE;
    p->layout = GSP_RT_WHOLE;
    p->routed = true;
    p->nlinks = deg;
    if ((err = gsp__bfs_tree(t, root, &parent, &dist, &order))) return err;
    for (int64_t v = 0; v < n; v++)
        if (dist[v] > p->hops) p->hops = dist[v];
    gsp_model_t m = gsp_model_default();
    m.packets = 1;
    if ((err = gsp_sched_init(&p->sched, gather ? GSP_COLL_REDUCE : GSP_COLL_BROADCAST, t->spec, n, &m, root, "flat"))) goto done;
    if (n > 1) err = gsp_sched_round(&p->sched);
    /* Broadcast: farthest first, so the long routes start early. Gather: rank order, the
     * order the root combines in. */
    for (int64_t k = n - 1; k >= 1 && !err; k--) {
        int64_t j = n - 1 - k, v = gather ? (j < root ? j : j + 1) : order[k];
        err = gather ? gsp_sched_send(&p->sched, v, root, root) : gsp_sched_send(&p->sched, root, v, root);
    }
    if (!err) err = gsp_sched_finish(&p->sched);
    int64_t H = p->hops + 1;
    p->nrounds = p->sched.nrounds;
    p->ntransfers = p->sched.nsends;
    if (!err) err = gsp__rt_routed_arrays(p, p->sched.nrounds);
    if (!err) err = gsp__rt_io_stats(p);
    if (!err) err = gsp_alloc_array((void **)&d2, n, sizeof *d2, false);
    for (int64_t a = 0; a < deg && !err && p->sched.nrounds; a++) {
        int64_t w = t->adj[t->off[root] + a], load = 0;
        if ((err = gsp_bfs(t, w, d2, NULL, &ecc2, &reached2))) break;
        for (int64_t v = 0; v < n; v++)
            if (v != root && dist[v] >= 1 && d2[v] == dist[v] - 1) {
                p->link_hist[a * H + dist[v]]++;
                load++;
            }
        if (load > p->maxblk[0]) p->maxblk[0] = p->busiest = load;
    }
    if (!err && p->sched.nrounds) {
        p->maxmsg[0] = n - 1; /* sent by the root, or received */
        p->maxred[0] = gather ? n - 1 : 0;
    }
done:
    gsp_free(parent);
    gsp_free(dist);
    gsp_free(order);
    gsp_free(d2);
    if (err) {
        gsp__rt_phase_destroy(p);
        return err;
    }
    al->nphases++;
    return GSP_OK;
}

static bool applies(const gsp__rt_ctx_t *x) { return x->t->n > 1 && x->t->n <= FLAT_MAX_NODES; }

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    bool bc = x->coll == GSP_COLL_BROADCAST;
    snprintf(al->built_from, sizeof al->built_from, "%s", bc ? "direct messages from the root" : "direct messages to the root, combined in rank order");
    return add_flat(al, x->t, x->root, !bc);
}

const gsp__rt_method_t gsp__rt_flat = {
    "flat", GSP__RT_COLL(GSP_COLL_BROADCAST) | GSP__RT_COLL(GSP_COLL_REDUCE), "up to 4096 ranks", "1",
    "the root sends the buffer to every rank directly, farthest first; the network routes each message (cut-through: one latency plus a hop latency per further link); reduce: the same reversed, combined in rank order",
    applies, add, NULL};
