/* SPDX-License-Identifier: GPL-3.0-or-later */
/* broadcast_bfs.c — broadcast along a BFS tree from the root.
 *
 * Applies to every connected graph with all ports (any packets, either duplex: packets only
 * move away from the root). Rounds: the root's eccentricity, which is the diameter D for a
 * vertex-transitive graph and meets the broadcast bound D. Example: torus:5x5 from node 0 in
 * 4 rounds: round 0 reaches the 4 neighbours, round 3 the 4 corners (2,2), (2,3), (3,2), (3,3).
 * Baseline of the schedule engine (no paper needed). */
#include "algo_int.h"

static int64_t root_of(const gsp_plan_in_t *in) { return in->root >= 0 ? in->root : 0; }

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    if (root_of(in) >= in->topo->n) {
        snprintf(why, n, "root %lld is not a node", (long long)root_of(in));
        return false;
    }
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) {
    int32_t *dist = gsp_malloc(sizeof *dist * (size_t)in->topo->n);
    int64_t ecc = -1;
    if (dist && gsp_bfs(in->topo, root_of(in), dist, NULL, &ecc, NULL)) ecc = -1;
    gsp_free(dist);
    return ecc;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t root = root_of(in), *parent, *order;
    int32_t *dist;
    if ((err = gsp__bfs_tree(t, root, &parent, &dist, &order))) return err;
    if ((err = gsp_sched_init(out, GSP_COLL_BROADCAST, t->spec, t->n, &in->model, root, "bfs-tree"))) goto done;
    /* order lists nodes by distance, so each round is a contiguous run of it. */
    int64_t k = 1;
    for (int32_t r = 0; k < t->n; r++) {
        if ((err = gsp_sched_round(out))) goto done;
        for (; k < t->n && dist[order[k]] == r + 1; k++)
            if ((err = gsp_sched_send(out, parent[order[k]], order[k], root))) goto done;
    }
    err = gsp_sched_finish(out);
done:
    if (err) gsp_sched_destroy(out);
    gsp_free(parent);
    gsp_free(dist);
    gsp_free(order);
    return err;
}

const gsp_method_t gsp__method_broadcast_bfs = {
    "bfs-tree", GSP_COLL_BROADCAST, "any connected graph, all ports", "baseline", applies, rounds, build, false, NULL, false, NULL, .needs = {.ports = GSP_NEED_PORTS_ALL,
                           .ports_why = "a BFS tree sends on all of a node's tree arcs in one round (use matching-tree)"}};
