/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_mwu.c — shallow spanning trees near a fabric's throughput optimum (the runtime's
 * `fabric-shallow`, src/rt/rt_fabric_shallow.c). The packings that reach the optimum exactly
 * (fabric_trees.c) can be deep where the fabric is a sparse direct network: 18 compute edges on
 * mi250:2, whose boxes' xGMI links have a diameter of 5; and each level of a tree is a message
 * latency and a relay's wait in the pipelined runtime. These trade some throughput for depth.
 *
 * Multiplicative weights (as in Garg and Koenemann's fractional packing): MWU_ROUNDS rounds; in
 * each, every root (allgather, reduce-scatter: every compute node; broadcast: the root) adds one
 * tree grown like Prim's from the root: a compute node joins under the tree node u whose route
 * to it (through switches only, the cheapest under the arcs' weights) plus MWU_DEPTH times the
 * mean weight per level of u is least. An arc's weight is exp(MWU_ETA * x) / cap with x its
 * load over its capacity relative to the most loaded arc's, so loaded arcs repel the next trees;
 * the penalty per level keeps trees shallow. Every tree carries the same share of its root's
 * data (a tree found again adds to its multiplicity). The trees' algbw is recounted from their
 * routes (gsp_forest_algbw), never taken from the weights. Reduce-scatter: the same on the
 * reversed fabric (in-trees; a route is then the cheapest from the child to the parent).
 *
 * The constants were chosen by simulation (bench/README.md, SimGrid SMPI, mi250:2's 64 MiB
 * allgather): 16 rounds, 0.1 per level and eta 5 gave 382 us (0.88 of the optimum's throughput,
 * 13 deep) where the optimal packing, 18 deep, took 536; eta 10 or no depth penalty gave
 * 531-564 us (26 deep), a penalty of 0.6 gave 430 (7 deep, 0.6 of the throughput).
 *
 * Cost per round: per compute node a Dijkstra over the switches (linear scans: fabrics have few
 * switches) for each root, and Prim's O(N^2): O(N^2 (n + N)) a round for N compute nodes among
 * n vertices. Deterministic: the same fabric gives the same trees on every rank. */
#include <math.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"

#define MWU_ROUNDS 16
#define MWU_DEPTH 0.1
#define MWU_ETA 5.0

static bool is_sw(const gsp_topo_t *t, int64_t x) { return t->is_switch && t->is_switch[x]; }
static double capd(const gsp_topo_t *t, int64_t a) { return t->cap ? (double)t->cap[a] : 1; }

typedef struct {
    const gsp_topo_t *t;
    bool rev;
    int64_t n, m, N;
    int64_t *cv;          /* compute vertices, N */
    int64_t *tailof;      /* per arc: its tail */
    int64_t *in_off, *in; /* reversed CSR: arcs into each vertex */
    int64_t *sw, nsw;     /* the switches */
    double *w, *load;     /* per arc */
    double *rd;           /* rd[i * n + y]: cheapest route cost between compute cv[i] and vertex y */
    int64_t *rp, *ra;     /* rp/ra[i * n + y]: y's predecessor vertex and arc on it (toward cv[i]) */
    char *seen;
} mwu_t;

/* Routes from compute vertex cv[i] (reversed: to it) through switches only, under the weights. */
static void routes(mwu_t *M, int64_t i) {
    const gsp_topo_t *t = M->t;
    int64_t n = M->n, u = M->cv[i];
    double *d = M->rd + i * n;
    int64_t *p = M->rp + i * n, *a = M->ra + i * n;
    for (int64_t y = 0; y < n; y++) d[y] = INFINITY, p[y] = -1, a[y] = -1;
    d[u] = 0;
    /* Relaxes every arc leaving x (reversed: entering it) into y. */
#define RELAX(x)                                                                                                                    \
    do {                                                                                                                            \
        int64_t lo_ = M->rev ? M->in_off[x] : t->off[x], hi_ = M->rev ? M->in_off[(x) + 1] : t->off[(x) + 1];                     \
        for (int64_t k_ = lo_; k_ < hi_; k_++) {                                                                                    \
            int64_t arc_ = M->rev ? M->in[k_] : k_, y_ = M->rev ? M->tailof[arc_] : t->adj[arc_];                                 \
            double nd_ = d[x] + M->w[arc_];                                                                                         \
            if (nd_ < d[y_]) d[y_] = nd_, p[y_] = (x), a[y_] = arc_;                                                                \
        }                                                                                                                           \
    } while (0)
    RELAX(u);
    for (int64_t s = 0; s < M->nsw; s++) M->seen[s] = 0;
    for (;;) {
        int64_t best = -1;
        for (int64_t s = 0; s < M->nsw; s++)
            if (!M->seen[s] && d[M->sw[s]] < INFINITY && (best < 0 || d[M->sw[s]] < d[M->sw[best]])) best = s;
        if (best < 0) break;
        M->seen[best] = 1;
        int64_t x = M->sw[best];
        RELAX(x);
    }
#undef RELAX
}

/* Appends the route between compute index i (the tree's parent) and vertex v to T's hops, in
 * the order the data travels (parent to child; reversed: child to parent). */
static void put_route(const mwu_t *M, int64_t i, int64_t v, gsp_tree_t *T, int64_t *h) {
    const int64_t *p = M->rp + i * M->n, *a = M->ra + i * M->n;
    int64_t start = *h;
    for (int64_t y = v; y != M->cv[i]; y = p[y]) T->hops[(*h)++] = a[y];
    /* Walked from v back to the parent: the forward route comes out reversed; the reversed
     * fabric's walk is already child to parent. */
    if (!M->rev)
        for (int64_t x = start, z = *h - 1; x < z; x++, z--) {
            int64_t q = T->hops[x];
            T->hops[x] = T->hops[z];
            T->hops[z] = q;
        }
}

gsp_err_t gsp__forest_mwu(const gsp_topo_t *t, gsp_collective_t c, int64_t root, gsp_forest_t *out) {
    gsp_err_t err;
    mwu_t M;
    memset(&M, 0, sizeof M);
    memset(out, 0, sizeof *out);
    if (c != GSP_COLL_ALLGATHER && c != GSP_COLL_REDUCE_SCATTER && c != GSP_COLL_BROADCAST)
        return gsp_error(GSP_ERR_NOTAPPLIC, "shallow trees: %s is planned as trees for allgather, reduce-scatter and broadcast",
                         gsp_collective_name(c));
    int64_t n = t->n, m = t->m, N = gsp_topo_compute_count(t);
    if (N < 2) return gsp_error(GSP_ERR_NOTAPPLIC, "%s: fewer than two compute nodes: nothing to plan", t->spec);
    if (c == GSP_COLL_BROADCAST && (root < 0 || root >= n || is_sw(t, root)))
        return gsp_error(GSP_ERR_RANGE, "shallow trees: the root %lld is not a compute node", (long long)root);
    M.t = t, M.rev = c == GSP_COLL_REDUCE_SCATTER, M.n = n, M.m = m, M.N = N;
    int64_t roots = c == GSP_COLL_BROADCAST ? 1 : N, *ci = NULL, *par = NULL, *dep = NULL, *ord = NULL, *from = NULL;
    double *best = NULL;
    gsp_tree_t X; /* the tree being grown */
    memset(&X, 0, sizeof X);
    if ((err = gsp_alloc_array((void **)&M.cv, N, sizeof *M.cv, false)) || (err = gsp_alloc_array((void **)&M.tailof, m + 1, sizeof *M.tailof, false)) ||
        (err = gsp_alloc_array((void **)&M.in_off, n + 2, sizeof *M.in_off, true)) || (err = gsp_alloc_array((void **)&M.in, m + 1, sizeof *M.in, false)) ||
        (err = gsp_alloc_array((void **)&M.sw, n, sizeof *M.sw, false)) || (err = gsp_alloc_array((void **)&M.w, m + 1, sizeof *M.w, false)) ||
        (err = gsp_alloc_array((void **)&M.load, m + 1, sizeof *M.load, true)) || (err = gsp_alloc_array((void **)&M.rd, N * n, sizeof *M.rd, false)) ||
        (err = gsp_alloc_array((void **)&M.rp, N * n, sizeof *M.rp, false)) || (err = gsp_alloc_array((void **)&M.ra, N * n, sizeof *M.ra, false)) ||
        (err = gsp_alloc_array((void **)&M.seen, n + 1, 1, false)) || (err = gsp_alloc_array((void **)&ci, n, sizeof *ci, false)) ||
        (err = gsp_alloc_array((void **)&par, N, sizeof *par, false)) || (err = gsp_alloc_array((void **)&dep, N, sizeof *dep, false)) ||
        (err = gsp_alloc_array((void **)&ord, N, sizeof *ord, false)) || (err = gsp_alloc_array((void **)&from, N, sizeof *from, false)) ||
        (err = gsp_alloc_array((void **)&best, N, sizeof *best, false)) ||
        (err = gsp_alloc_array((void **)&out->trees, roots * MWU_ROUNDS, sizeof *out->trees, true)) ||
        (err = gsp_alloc_array((void **)&X.from, N, sizeof *X.from, false)) || (err = gsp_alloc_array((void **)&X.to, N, sizeof *X.to, false)) ||
        (err = gsp_alloc_array((void **)&X.hop_off, N + 1, sizeof *X.hop_off, false)) ||
        (err = gsp_alloc_array((void **)&X.hops, N * n + 1, sizeof *X.hops, false)))
        goto done;
    for (int64_t x = 0, k = 0; x < n; x++) {
        ci[x] = is_sw(t, x) ? -1 : k;
        if (is_sw(t, x)) M.sw[M.nsw++] = x;
        else M.cv[k++] = x;
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) M.tailof[a] = x, M.in_off[t->adj[a] + 2]++;
    }
    for (int64_t y = 0; y < n; y++) M.in_off[y + 2] += M.in_off[y + 1];
    for (int64_t a = 0; a < m; a++) M.in[M.in_off[t->adj[a] + 1]++] = a;
    out->collective = c;
    out->root = c == GSP_COLL_BROADCAST ? root : -1;
    out->reversed = M.rev;
    out->share = MWU_ROUNDS;
    for (int it = 0; it < MWU_ROUNDS; it++)
        for (int64_t ri = 0; ri < roots; ri++) {
            int64_t r = c == GSP_COLL_BROADCAST ? ci[root] : ri;
            /* The weights, and the routes under them. */
            double mx = 0, mean = 0;
            for (int64_t a = 0; a < m; a++)
                if (M.load[a] / capd(t, a) > mx) mx = M.load[a] / capd(t, a);
            for (int64_t a = 0; a < m; a++) M.w[a] = exp(MWU_ETA * (mx > 0 ? M.load[a] / capd(t, a) / mx : 0)) / capd(t, a), mean += M.w[a];
            mean /= (double)(m > 0 ? m : 1);
            for (int64_t i = 0; i < N; i++) routes(&M, i);
            /* Prim from r: best[j] the least cost of attaching compute j, from[j] under whom. */
            for (int64_t j = 0; j < N; j++) par[j] = -2, best[j] = INFINITY, from[j] = -1;
            par[r] = -1, dep[r] = 0;
            int64_t no = 0, last = r;
            for (;;) {
                for (int64_t j = 0; j < N; j++) {
                    if (par[j] != -2) continue;
                    double cst = M.rd[last * n + M.cv[j]] + MWU_DEPTH * mean * (double)dep[last];
                    if (cst < best[j]) best[j] = cst, from[j] = last;
                }
                int64_t bj = -1;
                for (int64_t j = 0; j < N; j++)
                    if (par[j] == -2 && best[j] < INFINITY && (bj < 0 || best[j] < best[bj])) bj = j;
                if (bj < 0) break;
                par[bj] = from[bj], dep[bj] = dep[from[bj]] + 1, ord[no++] = bj, last = bj;
            }
            if (no != N - 1) {
                err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: some compute node cannot be reached: no schedule exists", t->spec);
                goto done;
            }
            /* The tree, in scratch: edges in the order they joined (parents first). */
            int64_t h = 0, *hd = from; /* from[] is free now: hop depths */
            hd[r] = 0;
            X.root = M.cv[r], X.mult = 1, X.nedges = N - 1, X.depth = X.hop_depth = 0;
            for (int64_t e = 0; e < no; e++) {
                int64_t j = ord[e], i = par[j], h0 = h;
                X.from[e] = M.cv[i], X.to[e] = M.cv[j], X.hop_off[e] = h;
                put_route(&M, i, M.cv[j], &X, &h);
                hd[j] = hd[i] + (h - h0);
                if (dep[j] > X.depth) X.depth = dep[j];
                if (hd[j] > X.hop_depth) X.hop_depth = hd[j];
            }
            X.hop_off[no] = h;
            /* The same tree of this root again (edges and routes): one more of its multiplicity. */
            gsp_tree_t *T = NULL;
            for (int64_t i = 0; i < out->ntrees && !T; i++) {
                gsp_tree_t *U = &out->trees[i];
                if (U->root != X.root || U->hop_off[no] != h) continue;
                bool same = !memcmp(U->hops, X.hops, (size_t)h * sizeof *X.hops) && !memcmp(U->hop_off, X.hop_off, (size_t)N * sizeof *X.hop_off);
                for (int64_t e = 0; e < no && same; e++) same = U->from[e] == X.from[e] && U->to[e] == X.to[e];
                if (same) T = U;
            }
            if (T) T->mult++;
            else {
                T = &out->trees[out->ntrees++];
                *T = X;
                T->from = T->to = T->hop_off = T->hops = NULL;
                if ((err = gsp_alloc_array((void **)&T->from, N, sizeof *T->from, false)) ||
                    (err = gsp_alloc_array((void **)&T->to, N, sizeof *T->to, false)) ||
                    (err = gsp_alloc_array((void **)&T->hop_off, N + 1, sizeof *T->hop_off, false)) ||
                    (err = gsp_alloc_array((void **)&T->hops, h + 1, sizeof *T->hops, false)))
                    goto done;
                memcpy(T->from, X.from, (size_t)no * sizeof *X.from);
                memcpy(T->to, X.to, (size_t)no * sizeof *X.to);
                memcpy(T->hop_off, X.hop_off, (size_t)N * sizeof *X.hop_off);
                memcpy(T->hops, X.hops, (size_t)h * sizeof *X.hops);
                if (T->depth > out->depth) out->depth = T->depth;
                if (T->hop_depth > out->hop_depth) out->hop_depth = T->hop_depth;
            }
            for (int64_t e = 0; e < no; e++) {
                int64_t j = ord[e], i = par[j];
                for (int64_t y = M.cv[j]; y != M.cv[i]; y = M.rp[i * n + y]) M.load[M.ra[i * n + y]] += 1;
            }
        }
    /* The trees were not packed under the capacities: the factor their loads fit. */
    if ((err = gsp__forest_fit(t, out)) || (err = gsp_forest_algbw(t, out, &out->num, &out->den))) goto done;
    out->value = (double)out->num / (double)out->den;
done:
    gsp_free(M.cv), gsp_free(M.tailof), gsp_free(M.in_off), gsp_free(M.in), gsp_free(M.sw), gsp_free(M.w), gsp_free(M.load);
    gsp_free(M.rd), gsp_free(M.rp), gsp_free(M.ra), gsp_free(M.seen);
    gsp_free(X.from), gsp_free(X.to), gsp_free(X.hop_off), gsp_free(X.hops);
    gsp_free(ci), gsp_free(par), gsp_free(dep), gsp_free(ord), gsp_free(from), gsp_free(best);
    if (err) gsp_forest_destroy(out);
    return err;
}
