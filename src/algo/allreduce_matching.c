/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allreduce_matching.c — exact global sum in the one-port model (F1): the one-port broadcast
 * tree (a maximum matching per round, gsp__telephone_tree) run backwards to add up the inputs
 * at the root, then forwards to hand the total back.
 *
 * Reversed, round r of the broadcast becomes round R - 1 - r of the reduction: every node
 * sends its partial sum to the node that informed it, and since a node informed at most one
 * child per round, it hears from at most one per round — the one-port rule holds both ways
 * (and half duplex too: no edge is used both ways in a round). Registers at v: 0 its input,
 * 1..c its children's partial sums in order of arrival, c + 1 their sum with the input (when
 * c > 0), then the total. Rounds: 2R, R the broadcast's (lower bound ceil(log2 N) and D). */
#include <stdlib.h>

#include "algo_int.h"


static int64_t rounds(const gsp_plan_in_t *in) { return -1; }

/* 2R, and the one-port broadcast's R is at least ecc(root) and ceil(log2 N): one BFS. */
static int64_t least_rounds(const gsp_plan_in_t *in) {
    const gsp_topo_t *t = in->topo;
    int64_t root = in->root >= 0 ? in->root : 0, ecc = -1, k = 0;
    int32_t *dist = gsp_malloc(sizeof *dist * (size_t)t->n);
    if (dist && gsp_bfs(t, root, dist, NULL, &ecc, NULL)) ecc = -1;
    gsp_free(dist);
    if (ecc < 0) return -1;
    while (((int64_t)1 << k) < t->n) k++;
    return 2 * (ecc > k ? ecc : k);
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, root = in->root >= 0 ? in->root : 0, *parent = NULL, *when = NULL, R = 0, *nchild = NULL, *total = NULL;
    gsp_term_t *terms = NULL;
    if ((err = gsp__telephone_tree(t, root, in->seed, &parent, &when, &R))) return err;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLREDUCE, t->spec, n, &in->model, -1, "matching-tree"))) goto done;
    if ((err = gsp_alloc_array((void **)&nchild, n, sizeof *nchild, true)) ||
        (err = gsp_alloc_array((void **)&total, n, sizeof *total, false)) ||
        (err = gsp_alloc_array((void **)&terms, n + 1, sizeof *terms, false)))
        goto done;
    for (int64_t v = 0; v < n; v++)
        if (parent[v] >= 0) nchild[parent[v]]++;
    for (int64_t v = 0; v < n; v++) {
        int64_t c = nchild[v];
        total[v] = v == root ? (c ? c + 1 : 0) : c + (c > 0) + 1;
    }
    /* Reduction: broadcast round r backwards. */
    for (int64_t j = 0; j < R; j++) {
        int64_t r = R - 1 - j;
        if ((err = gsp_sched_round(out))) goto done;
        for (int64_t v = 0; v < n; v++) {
            if (when[v] != r || nchild[v] == 0) continue;
            for (int64_t k = 0; k <= nchild[v]; k++) terms[k] = (gsp_term_t){k, 1.0};
            if ((err = gsp_sched_combine(out, v, terms, nchild[v] + 1))) goto done;
        }
        for (int64_t v = 0; v < n; v++)
            if (when[v] == r && (err = gsp_sched_send(out, v, parent[v], nchild[v] ? nchild[v] + 1 : 0))) goto done;
    }
    /* The total, forwards. */
    for (int64_t r = 0; r < R; r++) {
        if ((err = gsp_sched_round(out))) goto done;
        if (r == 0 && nchild[root] > 0) {
            for (int64_t k = 0; k <= nchild[root]; k++) terms[k] = (gsp_term_t){k, 1.0};
            if ((err = gsp_sched_combine(out, root, terms, nchild[root] + 1))) goto done;
        }
        for (int64_t v = 0; v < n; v++)
            if (when[v] == r && (err = gsp_sched_send(out, parent[v], v, total[parent[v]]))) goto done;
    }
    if ((err = gsp_sched_final(out)) || (err = gsp_sched_set_result(out, total))) goto done;
    err = gsp_sched_finish(out);
done:
    if (err) gsp_sched_destroy(out);
    gsp_free(parent);
    gsp_free(when);
    gsp_free(nchild);
    gsp_free(total);
    gsp_free(terms);
    return err;
}

const gsp_method_t gsp__method_allreduce_matching = {
    "matching-tree", GSP_COLL_ALLREDUCE, "one port, undirected graphs with N <= 2048: the one-port broadcast tree reversed, then forward",
    "baseline (2R rounds, R the one-port broadcast's)", NULL, rounds, build, false, NULL, false,
    least_rounds, .needs = {.ports = GSP_NEED_PORTS_ONE, .ports_why = "for all ports use tree (2 ecc rounds) or the spectral methods", .undirected = true,
                .graph_why = "the reduction runs the tree's arcs backwards", .max_nodes = 2048, .size_why = "exact verification"}};
