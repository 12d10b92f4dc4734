/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allreduce_tree.c — global sum by reduce-then-broadcast on a BFS tree.
 *
 * Applies to every connected graph with all ports (one number per arc per round, so any p and
 * either duplex). Rounds: 2 * ecc(root), i.e. 2D on a vertex-transitive graph — the upper bound
 * of the global-sum paper (Problem A's lower bound is D). The root is node 0 on a
 * vertex-transitive graph and a centre (least eccentricity) otherwise.
 * Registers at node v: 0 is its input, 1..c its c children's partial sums (children in
 * ascending id, all received in the same round), c + 1 their sum with the input (when c > 0),
 * then the total received from the parent. Example: cycle:4 from root 0 in 4 rounds: node 2
 * sends x2 to node 1 in round 0, node 1 sends x1 + x2 to 0 in round 1, and back down. */
#include <string.h>

#include "algo_int.h"

#define CENTRE_MAX 4096 /* look for a centre by all-pairs BFS up to this size */

static int64_t pick_root(const gsp_plan_in_t *in) {
    const gsp_topo_t *t = in->topo;
    if (in->root >= 0) return in->root;
    if (t->group || t->n > CENTRE_MAX) return 0;
    int32_t *dist = gsp_malloc(sizeof *dist * (size_t)t->n);
    int64_t best = 0, best_ecc = INT64_MAX;
    for (int64_t x = 0; dist && x < t->n; x++) {
        int64_t ecc;
        if (gsp_bfs(t, x, dist, NULL, &ecc, NULL)) break;
        if (ecc < best_ecc) best_ecc = ecc, best = x;
    }
    gsp_free(dist);
    return best;
}

static int64_t rounds(const gsp_plan_in_t *in) {
    int32_t *dist = gsp_malloc(sizeof *dist * (size_t)in->topo->n);
    int64_t ecc = -1;
    if (dist && gsp_bfs(in->topo, pick_root(in), dist, NULL, &ecc, NULL)) ecc = -1;
    gsp_free(dist);
    return 2 * ecc;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, root = pick_root(in), *parent = NULL, *order = NULL, *coff = NULL, *child = NULL;
    int64_t *result = NULL, *rank = NULL;
    int32_t *dist = NULL;
    gsp_term_t *terms = NULL;
    if ((err = gsp__bfs_tree(t, root, &parent, &dist, &order))) return err;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLREDUCE, t->spec, n, &in->model, -1, "tree"))) goto done;
    if ((err = gsp_alloc_array((void **)&coff, n + 1, sizeof *coff, true)) ||
        (err = gsp_alloc_array((void **)&child, n, sizeof *child, false)) ||
        (err = gsp_alloc_array((void **)&rank, n, sizeof *rank, false)) ||
        (err = gsp_alloc_array((void **)&result, n, sizeof *result, false)) ||
        (err = gsp_alloc_array((void **)&terms, n + 1, sizeof *terms, false)))
        goto done;
    /* Children lists in ascending id: register 1 + rank[c] at the parent. */
    for (int64_t v = 0; v < n; v++)
        if (parent[v] >= 0) coff[parent[v] + 1]++;
    for (int64_t v = 0; v < n; v++) coff[v + 1] += coff[v];
    {
        int64_t *pos = NULL;
        if ((err = gsp_alloc_array((void **)&pos, n, sizeof *pos, false))) goto done;
        memcpy(pos, coff, (size_t)n * sizeof *pos);
        for (int64_t v = 0; v < n; v++)
            if (parent[v] >= 0) {
                rank[v] = pos[parent[v]] - coff[parent[v]];
                child[pos[parent[v]]++] = v;
            }
        gsp_free(pos);
    }
    int64_t R = dist[order[n - 1]];
    /* Reduce: nodes at depth k send in round R - k; a node with children first combines. */
    for (int64_t r = 0; r < R; r++) {
        int64_t k = R - r;
        if ((err = gsp_sched_round(out))) goto done;
        for (int64_t v = 0; v < n; v++) {
            int64_t c = coff[v + 1] - coff[v];
            if (dist[v] != k || c == 0) continue;
            for (int64_t j = 0; j <= c; j++) terms[j] = (gsp_term_t){j, 1.0};
            if ((err = gsp_sched_combine(out, v, terms, c + 1))) goto done;
        }
        for (int64_t v = 0; v < n; v++) {
            if (dist[v] != k) continue;
            int64_t c = coff[v + 1] - coff[v];
            if ((err = gsp_sched_send(out, v, parent[v], c ? c + 1 : 0))) goto done;
        }
    }
    /* Broadcast: the root sums in round R; a node at depth k forwards in round R + k. */
    for (int64_t v = 0; v < n; v++) {
        int64_t c = coff[v + 1] - coff[v];
        result[v] = v == root ? (c ? c + 1 : 0) : 1 + c + (c ? 1 : 0);
    }
    for (int64_t r = R; r < 2 * R; r++) {
        int64_t k = r - R;
        if ((err = gsp_sched_round(out))) goto done;
        if (k == 0) {
            int64_t c = coff[root + 1] - coff[root];
            for (int64_t j = 0; j <= c; j++) terms[j] = (gsp_term_t){j, 1.0};
            if ((err = gsp_sched_combine(out, root, terms, c + 1))) goto done;
        }
        for (int64_t v = 0; v < n; v++) {
            if (dist[v] != k) continue;
            for (int64_t j = coff[v]; j < coff[v + 1]; j++)
                if ((err = gsp_sched_send(out, v, child[j], result[v]))) goto done;
        }
    }
    if ((err = gsp_sched_final(out)) || (err = gsp_sched_set_result(out, result))) goto done;
    err = gsp_sched_finish(out);
done:
    if (err) gsp_sched_destroy(out);
    gsp_free(parent);
    gsp_free(order);
    gsp_free(dist);
    gsp_free(coff);
    gsp_free(child);
    gsp_free(rank);
    gsp_free(result);
    gsp_free(terms);
    return err;
}

const gsp_method_t gsp__method_allreduce_tree = {
    "tree", GSP_COLL_ALLREDUCE, "any connected graph, all ports", "global-sum paper, upper bound 2D (baseline)",
    NULL, rounds, build, false, NULL, false, NULL, .needs = {.ports = GSP_NEED_PORTS_ALL, .ports_why = "a node would receive from several children at once", .undirected = true,
                                    .graph_why = "the reduce runs the tree's arcs backwards"}};
