/* SPDX-License-Identifier: GPL-3.0-or-later */
/* broadcast_matching.c — broadcast in the one-port model (F1, the telephone model: a node sends
 * on at most one arc and receives on at most one per round), on any connected graph.
 *
 * Each round is a maximum matching between the informed nodes and their uninformed
 * neighbours (Kuhn's augmenting paths over the informed nodes that still have an uninformed
 * neighbour), so the informed set grows as fast as the graph lets it this round. Two
 * preferences steer which maximum matching: on a Cayley graph every informed x first tries the
 * generator of the round (round t: generator t mod d) — on the hypercube that is the binomial
 * tree, log2 N rounds, the bound — and otherwise a node farther from the root first, so that
 * the far end is not reached late. A few orderings are tried and the shortest kept.
 * Lower bound: max(ecc(root), ceil(log2 N)). Rounds: what the verifier counts. The tree (who
 * informed whom, and when) is shared with the one-port allreduce (gsp__telephone_tree). */
#include <stdlib.h>
#include <string.h>

#include "algo_int.h"

#define TRIES 6

typedef struct {
    const gsp_topo_t *t;
    int64_t n;
    int64_t *when;     /* round a node was informed (-1: not yet, and the root) */
    int64_t *par;      /* who informed it (-1: not yet, and the root) */
    unsigned char *in; /* informed at the start of the current round */
    int64_t *match;    /* receiver -> its sender this round (-1) */
    int64_t *sent;     /* sender -> its receiver this round (-1) */
    int64_t *stamp;    /* receiver visited in the current augmentation */
    int64_t *order;    /* arc order per sender, as offsets into adj (scratch) */
    int32_t *dist;     /* from the root */
    int64_t epoch;
    gsp_rng_t rng;
} tel_t;

/* Tries to find sender u a receiver, re-matching others along an augmenting path. */
static bool augment(tel_t *s, int64_t u, int depth) {
    const gsp_topo_t *t = s->t;
    if (depth > 64) return false; /* long paths are rare and not worth the stack */
    int64_t deg = t->off[u + 1] - t->off[u];
    /* Farther receivers first; random start among equals. */
    int64_t start = deg ? (int64_t)gsp_rng_below(&s->rng, (uint64_t)deg) : 0;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t k = 0; k < deg; k++) {
            int64_t v = t->adj[t->off[u] + (start + k) % deg];
            if (s->in[v] || v == u || s->stamp[v] == s->epoch) continue;
            /* pass 0: receivers one level beyond u (progress away from the root) */
            if (pass == 0 && s->dist[v] <= s->dist[u]) continue;
            if (pass == 1 && s->dist[v] > s->dist[u]) continue;
            s->stamp[v] = s->epoch;
            if (s->match[v] < 0 || augment(s, s->match[v], depth + 1)) {
                s->match[v] = u;
                s->sent[u] = v;
                return true;
            }
        }
    return false;
}

/* One telephone broadcast from root with the given preferences; fills s->when, returns rounds
 * or -1 when it got stuck (cannot happen on a connected graph). */
static int64_t run(tel_t *s, int64_t root, bool gen_pref, int64_t limit) {
    const gsp_topo_t *t = s->t;
    int64_t n = s->n, informed = 1, R = 0;
    int64_t *frontier = s->order;
    memset(s->in, 0, (size_t)n);
    for (int64_t v = 0; v < n; v++) s->when[v] = s->par[v] = -1, s->match[v] = s->sent[v] = -1;
    s->in[root] = 1;
    while (informed < n) {
        if (R >= limit) return -1;
        int64_t nf = 0;
        for (int64_t u = 0; u < n; u++) {
            if (!s->in[u]) continue;
            s->sent[u] = -1;
            for (int64_t a = t->off[u]; a < t->off[u + 1]; a++)
                if (!s->in[t->adj[a]]) {
                    frontier[nf++] = u;
                    break;
                }
        }
        for (int64_t v = 0; v < n; v++) s->match[v] = -1;
        /* Preference: the generator of the round. */
        if (gen_pref && t->group)
            for (int64_t q = 0; q < nf; q++) {
                int64_t u = frontier[q], d = t->off[u + 1] - t->off[u], v = t->adj[t->off[u] + R % d];
                if (!s->in[v] && s->match[v] < 0) s->match[v] = u, s->sent[u] = v;
            }
        /* Shuffle the frontier so that tries differ. */
        for (int64_t q = nf - 1; q > 0; q--) {
            int64_t r = (int64_t)gsp_rng_below(&s->rng, (uint64_t)q + 1), x = frontier[q];
            frontier[q] = frontier[r];
            frontier[r] = x;
        }
        for (int64_t q = 0; q < nf; q++) {
            if (s->sent[frontier[q]] >= 0) continue;
            s->epoch++;
            augment(s, frontier[q], 0);
        }
        int64_t got = 0;
        for (int64_t q = 0; q < nf; q++) {
            int64_t v = s->sent[frontier[q]];
            if (v >= 0 && s->match[v] == frontier[q]) {
                s->when[v] = R;
                s->par[v] = frontier[q];
                got++;
            }
        }
        if (got == 0) return -1;
        for (int64_t v = 0; v < n; v++)
            if (s->when[v] == R) s->in[v] = 1;
        informed += got;
        R++;
    }
    return R;
}

gsp_err_t gsp__telephone_tree(const gsp_topo_t *t, int64_t root, uint64_t seed, int64_t **parent_out, int64_t **when_out,
                              int64_t *rounds) {
    gsp_err_t err;
    int64_t n = t->n, best = -1, *bparent = NULL, *bwhen = NULL;
    tel_t s;
    memset(&s, 0, sizeof s);
    s.t = t;
    s.n = n;
    gsp_rng_seed(&s.rng, seed);
    *parent_out = *when_out = NULL;
    if ((err = gsp_alloc_array((void **)&s.when, n, sizeof *s.when, false)) || (err = gsp_alloc_array((void **)&s.in, n, 1, true)) ||
        (err = gsp_alloc_array((void **)&s.par, n, sizeof *s.par, false)) ||
        (err = gsp_alloc_array((void **)&s.match, n, sizeof *s.match, false)) ||
        (err = gsp_alloc_array((void **)&s.sent, n, sizeof *s.sent, false)) ||
        (err = gsp_alloc_array((void **)&s.stamp, n, sizeof *s.stamp, true)) ||
        (err = gsp_alloc_array((void **)&s.order, n, sizeof *s.order, false)) ||
        (err = gsp_alloc_array((void **)&s.dist, n, sizeof *s.dist, false)) ||
        (err = gsp_alloc_array((void **)&bparent, n, sizeof *bparent, false)) ||
        (err = gsp_alloc_array((void **)&bwhen, n, sizeof *bwhen, false)))
        goto done;
    int64_t ecc, reached;
    if ((err = gsp_bfs(t, root, s.dist, NULL, &ecc, &reached))) goto done;
    if (reached < n) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: not every node is reachable from %lld", t->spec, (long long)root);
        goto done;
    }
    /* The bound max(ecc, ceil(log2 N)): stop trying once a try meets it. */
    int64_t lb = 0;
    while (((int64_t)1 << lb) < n) lb++;
    if (ecc > lb) lb = ecc;
    for (int k = 0; k < TRIES && best != lb; k++) {
        int64_t R = run(&s, root, k % 2 == 0, best < 0 ? 2 * n + 2 : best);
        if (R < 0 || (best >= 0 && R >= best)) continue;
        best = R;
        memcpy(bwhen, s.when, (size_t)n * sizeof *bwhen);
        memcpy(bparent, s.par, (size_t)n * sizeof *bparent);
    }
    if (best < 0) {
        err = gsp_error(GSP_ERR_INTERNAL, "%s: one-port broadcast from %lld made no progress", t->spec, (long long)root);
        goto done;
    }
    *rounds = best;
    *when_out = bwhen;
    bwhen = NULL;
    *parent_out = bparent;
    bparent = NULL;
done:
    gsp_free(s.when);
    gsp_free(s.par);
    gsp_free(s.in);
    gsp_free(s.match);
    gsp_free(s.sent);
    gsp_free(s.stamp);
    gsp_free(s.order);
    gsp_free(s.dist);
    gsp_free(bparent);
    gsp_free(bwhen);
    return err;
}

/* ---- the method ---- */


static int64_t root_of(const gsp_plan_in_t *in) { return in->root >= 0 ? in->root : 0; }

static int64_t rounds(const gsp_plan_in_t *in) { return -1; }

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t root = root_of(in), *parent = NULL, *when = NULL, R = 0;
    if ((err = gsp__telephone_tree(t, root, in->seed, &parent, &when, &R))) return err;
    if ((err = gsp_sched_init(out, GSP_COLL_BROADCAST, t->spec, t->n, &in->model, root, "matching-tree"))) goto done;
    for (int64_t r = 0; r < R && !err; r++) {
        if ((err = gsp_sched_round(out))) break;
        for (int64_t v = 0; v < t->n && !err; v++)
            if (when[v] == r) err = gsp_sched_send(out, parent[v], v, root);
    }
    if (!err) err = gsp_sched_finish(out);
    if (err) gsp_sched_destroy(out);
done:
    gsp_free(parent);
    gsp_free(when);
    return err;
}

const gsp_method_t gsp__method_broadcast_matching = {
    "matching-tree", GSP_COLL_BROADCAST, "one port (the telephone model), any connected graph with N <= 65536",
    "baseline: a maximum matching per round (binomial tree on hypercubes)", NULL, rounds, build, false, NULL, false, NULL, .needs = {.ports = GSP_NEED_PORTS_ONE, .ports_why = "for all ports bfs-tree is optimal (ecc rounds)",
                                                                     .max_nodes = 1 << 16, .size_why = "explicit rounds"}};
