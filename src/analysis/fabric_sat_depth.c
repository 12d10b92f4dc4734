/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_sat_depth.c — a broadcast's few wide trees (all of one multiplicity, on a box of directly
 * linked compute nodes) made as shallow as a SAT solver finds within a fixed effort, their arc
 * loads within the packing's: for depth D, is there a choice of a parent arc for every node of
 * every tree such that every node is at most D arcs from the root and no arc carries more trees
 * than the packing's capacity allows it (cap_factor cap(a) / mult)? Variables P(t, a): tree t
 * enters head(a) by arc a; R(t, v, k): v is at most k arcs from the root in tree t. Clauses: one
 * parent a node and tree; R(t, v, 0) only at the root; P(t, u -> v) and R(t, v, k) imply
 * R(t, u, k - 1), so a node at most D deep walks to the root in at most D parent steps (no cycle:
 * the bound falls each step); R(t, v, D) for every node; at most the arc's count of trees on each
 * arc (every set of one more forbidden). D goes down from the packing's depth while the solver
 * answers yes within GSP__SAT_DEPTH_CONFLICTS conflicts a solve: a fixed count, not a time, so
 * every rank that plans the broadcast finds the same trees. The loads stay within the packing's,
 * so the algbw is the optimum still (recounted, and the trees kept as they were otherwise).
 *
 * Why: such trees are streamed chunk by chunk (rt_fabric_streams.c), and each level costs about a
 * chunk's latency. mi250:1's six trees of 50 GB/s from a GCD are 13 deep as packed; a SAT count
 * (bench/README.md, session 47) found six within 10 levels and none within 9. */
#include <ccadical.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"

typedef struct {
    CCaDiCaL *s;
} enc_t;

static void add_clause(enc_t *e, const int *lits, int n) {
    for (int k = 0; k < n; k++) ccadical_add(e->s, lits[k]);
    ccadical_add(e->s, 0);
}

/* Forbids every set of `over` trees on one arc: the clauses of the subsets of vars[0..T) of size
 * over (T at most GSP__SAT_DEPTH_TREES). */
static void forbid_sets(enc_t *e, const int *vars, int T, int over) {
    int idx[GSP__SAT_DEPTH_TREES], lits[GSP__SAT_DEPTH_TREES];
    if (over > T || over < 1) return;
    for (int i = 0; i < over; i++) idx[i] = i;
    for (;;) {
        for (int i = 0; i < over; i++) lits[i] = -vars[idx[i]];
        add_clause(e, lits, over);
        int i = over - 1;
        while (i >= 0 && idx[i] == T - over + i) i--;
        if (i < 0) return;
        idx[i]++;
        for (int j = i + 1; j < over; j++) idx[j] = idx[j - 1] + 1;
    }
}

/* Solves depth D: *par (T n entries) the parent arc of every (tree, node), -1 at the root. */
static bool solve_depth(const gsp_topo_t *t, int64_t root, int T, const int64_t *kcap, const int64_t *tail, int64_t D, int64_t *par) {
    int64_t n = t->n, m = t->off[n];
    enc_t e = {ccadical_init()};
    if (!e.s) return false;
    ccadical_set_option(e.s, "quiet", 1); /* the library never prints */
    ccadical_limit(e.s, "conflicts", GSP__SAT_DEPTH_CONFLICTS);
    /* P(t, a) = 1 + t m + a; R(t, v, k) = 1 + T m + (t n + v) (D + 1) + k. */
    int base = 1 + T * (int)m;
#define P(tr, a) (1 + (tr) * (int)m + (int)(a))
#define R(tr, v, k) (base + ((tr) * (int)n + (int)(v)) * (int)(D + 1) + (int)(k))
    int lits[4], vars[GSP__SAT_DEPTH_TREES];
    for (int tr = 0; tr < T; tr++) {
        for (int64_t v = 0; v < n; v++) {
            if (v == root) {
                for (int64_t k = 0; k <= D; k++) add_clause(&e, (int[]){R(tr, v, k)}, 1);
                continue;
            }
            add_clause(&e, (int[]){-R(tr, v, 0)}, 1);
            add_clause(&e, (int[]){R(tr, v, D)}, 1);
        }
        /* One parent each node: at least one arc in (listed by scanning every arc), at most one. */
        for (int64_t v = 0; v < n; v++) {
            if (v == root) continue;
            for (int64_t a = 0; a < m; a++)
                if (t->adj[a] == v) ccadical_add(e.s, P(tr, a));
            ccadical_add(e.s, 0);
            for (int64_t a = 0; a < m; a++)
                for (int64_t b = a + 1; b < m && t->adj[a] == v; b++)
                    if (t->adj[b] == v) add_clause(&e, (int[]){-P(tr, a), -P(tr, b)}, 2);
        }
        for (int64_t a = 0; a < m; a++) {
            int64_t u = tail[a], v = t->adj[a];
            if (v == root) {
                add_clause(&e, (int[]){-P(tr, a)}, 1);
                continue;
            }
            for (int64_t k = 1; k <= D; k++) {
                lits[0] = -P(tr, a), lits[1] = -R(tr, v, k), lits[2] = R(tr, u, k - 1);
                add_clause(&e, lits, 3);
            }
        }
    }
    for (int64_t a = 0; a < m; a++) {
        for (int tr = 0; tr < T; tr++) vars[tr] = P(tr, a);
        if (kcap[a] < T) forbid_sets(&e, vars, T, (int)kcap[a] + 1);
    }
    int r = ccadical_solve(e.s);
    bool sat = r == 10; /* 20: none; 0: the conflicts spent */
    if (sat) gsp__sat_parents(e.s, T, n, root, m, t->adj, par);
#undef P
#undef R
    ccadical_release(e.s);
    return sat;
}

void gsp__sat_parents(CCaDiCaL *s, int T, int64_t n, int64_t root, int64_t ne, const int64_t *head, int64_t *par) {
    for (int tr = 0; tr < T; tr++)
        for (int64_t v = 0; v < n; v++) {
            par[tr * n + v] = -1;
            for (int64_t x = 0; x < ne && v != root; x++)
                if (head[x] == v && ccadical_val(s, 1 + tr * (int)ne + (int)x) > 0) par[tr * n + v] = x;
        }
}

/* Tree tr of the parent arcs par into *T (root, mult kept): edges breadth first. */
static gsp_err_t build_tree(const gsp_topo_t *t, const int64_t *tail, const int64_t *par, int64_t root, gsp_tree_t *T, int64_t *queue) {
    int64_t n = t->n, E = n - 1, qh = 0, qt = 0, depth = 0;
    gsp_err_t err;
    int64_t *dep = queue + n;
    if ((err = gsp_alloc_array((void **)&T->from, E + 1, sizeof *T->from, false)) || (err = gsp_alloc_array((void **)&T->to, E + 1, sizeof *T->to, false)) ||
        (err = gsp_alloc_array((void **)&T->hop_off, E + 1, sizeof *T->hop_off, false)) ||
        (err = gsp_alloc_array((void **)&T->hops, E + 1, sizeof *T->hops, false)))
        return err;
    queue[qt++] = root;
    dep[root] = 0;
    int64_t k = 0;
    while (qh < qt) {
        int64_t u = queue[qh++];
        for (int64_t v = 0; v < n; v++) {
            int64_t a = par[v];
            if (a < 0 || tail[a] != u) continue;
            T->from[k] = u, T->to[k] = v, T->hop_off[k] = k, T->hops[k] = a;
            k++;
            dep[v] = dep[u] + 1;
            if (dep[v] > depth) depth = dep[v];
            queue[qt++] = v;
        }
    }
    T->hop_off[k] = k;
    T->nedges = k;
    T->depth = T->hop_depth = depth;
    if (k != E) return gsp_error(GSP_ERR_INTERNAL, "fabric trees: a SAT tree spans %lld of %lld edges", (long long)k, (long long)E);
    return GSP_OK;
}

gsp_err_t gsp__forest_sat_shallow(const gsp_topo_t *t, gsp_forest_t *f) {
    int64_t n = t->n, m = t->off[n], T = f->ntrees;
    if (f->collective != GSP_COLL_BROADCAST || T < 2 || T > GSP__SAT_DEPTH_TREES || f->depth <= 1 || n > GSP__SAT_DEPTH_NODES || f->cap_factor < 1) return GSP_OK;
    if (t->is_switch)
        for (int64_t x = 0; x < n; x++)
            if (t->is_switch[x]) return GSP_OK;
    for (int64_t i = 1; i < T; i++)
        if (f->trees[i].mult != f->trees[0].mult) return GSP_OK;
    gsp_err_t err;
    int64_t *tail = NULL, *kcap = NULL, *par = NULL, *best = NULL, *queue = NULL, D, found = 0;
    gsp_tree_t *nt = NULL;
    if ((err = gsp_alloc_array((void **)&tail, m + 1, sizeof *tail, false)) || (err = gsp_alloc_array((void **)&kcap, m + 1, sizeof *kcap, false)) ||
        (err = gsp_alloc_array((void **)&par, T * n, sizeof *par, false)) || (err = gsp_alloc_array((void **)&best, T * n, sizeof *best, false)) ||
        (err = gsp_alloc_array((void **)&queue, 2 * n, sizeof *queue, false)))
        goto done;
    /* Each arc's trees at most (its capacity in the packing's units over a tree's multiplicity);
     * parallel arcs (one pair twice) are not handled: the trees stay as packed. */
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            tail[a] = x;
            kcap[a] = (int64_t)((__int128)f->cap_factor * (t->cap ? t->cap[a] : 1) / f->trees[0].mult);
            for (int64_t b = t->off[x]; b < a; b++)
                if (t->adj[b] == t->adj[a]) goto done;
        }
    for (D = f->depth - 1; D >= 1; D--) {
        if (!solve_depth(t, f->root, (int)T, kcap, tail, D, par)) break;
        memcpy(best, par, (size_t)(T * n) * sizeof *par);
        found = D;
    }
    if (!found) goto done;
    if ((err = gsp_alloc_array((void **)&nt, T, sizeof *nt, true))) goto done;
    for (int64_t i = 0; i < T && !err; i++) {
        nt[i].root = f->trees[i].root;
        nt[i].mult = f->trees[i].mult;
        err = build_tree(t, tail, best + i * n, f->root, &nt[i], queue);
    }
    if (!err) {
        /* The loads within the packing's, so the optimum still: recounted, else kept as packed. */
        gsp_forest_t g = *f;
        int64_t num, den;
        g.trees = nt;
        if ((err = gsp_forest_algbw(t, &g, &num, &den))) goto done;
        if (num == f->num && den == f->den) {
            gsp_tree_t *old = f->trees;
            f->trees = nt;
            nt = old;
            f->depth = f->hop_depth = found;
        }
    }
done:
    gsp__trees_destroy(nt, T); /* the new trees, or the old ones replaced */
    gsp_free(tail);
    gsp_free(kcap);
    gsp_free(par);
    gsp_free(best);
    gsp_free(queue);
    return err;
}
