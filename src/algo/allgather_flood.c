/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allgather_flood.c — gossip with unbounded packets: every node forwards, each round, what it
 * learned in the previous one, but only along the BFS tree of each packet's origin, so no node
 * receives a packet twice.
 *
 * Applies with packets = inf, all ports, full duplex. Rounds: D, the bound of Theorem 5 of the
 * packet-gossip paper (g(inf, G) = D). On a Cayley graph the BFS tree of e, translated to every
 * origin, is stored in the compact symmetric form (N - 1 entries); other graphs get explicit
 * rounds (N <= 4096). Example: hypercube:3 in 3 rounds, 56 transfers. */
#include <string.h>

#include "algo_int.h"

#define FLOOD_EXPLICIT_MAX 4096

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    if (!in->topo->group && in->topo->n > FLOOD_EXPLICIT_MAX) {
        snprintf(why, n, "explicit form limited to %d nodes for non-Cayley graphs", FLOOD_EXPLICIT_MAX);
        return false;
    }
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) { return in->dist->diameter; }

static gsp_err_t build_cayley(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t *parent, *order;
    int32_t *dist;
    if ((err = gsp__bfs_tree(t, 0, &parent, &dist, &order))) return err;
    for (int64_t k = 1; k < t->n; k++) {
        int64_t y = order[k], p = parent[y];
        if ((err = gsp_sched_sym(out, dist[y] - 1, gsp_topo_arc_index(t, p, y), p))) break;
    }
    gsp_free(parent);
    gsp_free(dist);
    gsp_free(order);
    return err;
}

static gsp_err_t build_explicit(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, D = in->dist->diameter;
    int32_t *par = NULL, *dd = NULL, *dist = NULL;
    int64_t *queue = NULL;
    if ((err = gsp_alloc_array((void **)&par, n * n, sizeof *par, false)) ||
        (err = gsp_alloc_array((void **)&dd, n * n, sizeof *dd, false)) ||
        (err = gsp_alloc_array((void **)&dist, n, sizeof *dist, false)) ||
        (err = gsp_alloc_array((void **)&queue, n, sizeof *queue, false)))
        goto done;
    for (int64_t x = 0; x < n; x++) {
        int64_t *p = NULL, *o = NULL;
        int32_t *d = NULL;
        if ((err = gsp__bfs_tree(t, x, &p, &d, &o))) goto done;
        for (int64_t y = 0; y < n; y++) {
            par[x * n + y] = (int32_t)p[y];
            dd[x * n + y] = d[y];
        }
        gsp_free(p);
        gsp_free(d);
        gsp_free(o);
    }
    for (int64_t r = 0; r < D; r++) {
        if ((err = gsp_sched_round(out))) goto done;
        for (int64_t x = 0; x < n; x++)
            for (int64_t y = 0; y < n; y++)
                if (dd[x * n + y] == r + 1 && (err = gsp_sched_send(out, par[x * n + y], y, x))) goto done;
    }
done:
    gsp_free(par);
    gsp_free(dd);
    gsp_free(dist);
    gsp_free(queue);
    return err;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, t->n, &in->model, -1, "flood"))) return err;
    err = t->group ? build_cayley(in, out) : build_explicit(in, out);
    if (!err) err = gsp_sched_finish(out);
    if (err) gsp_sched_destroy(out);
    return err;
}

const gsp_method_t gsp__method_allgather_flood = {
    "flood", GSP_COLL_ALLGATHER, "packets = inf, any connected graph (symmetric form on Cayley graphs)",
    "packet-gossip paper, Theorem 5", applies, rounds, build, false, NULL, false, NULL, .needs = {.packets = GSP_NEED_PACKETS_INF, .ports = GSP_NEED_PORTS_ALL, .full_duplex = true,
                                  .packets_why = "a node forwards everything it learned"}};
