/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_rings.c — allgather and reduce-scatter trees on a small direct network by Hamiltonian
 * rings: the links, as capacities, shared out among Hamiltonian cycles, and every root's share
 * of each ring sent both ways round it. A tree is then two paths, N/2 deep, and an arc carries
 * at most one root's data at each level: the loads are the same at every level, so a pipeline
 * keeps every arc busy from its first segment to its last (the packings of fabric_trees.c, as
 * deep, load their arcs mostly at the first levels and leave them idle at the last).
 *
 * Rings: every Hamiltonian cycle of the graph (depth-first from node 0, each cycle once), at
 * most RINGS_MAX_CYCLES of them, then greedily the cycle whose least residual capacity is
 * largest, taking that much from each of its links, until none is left. Split: root r's part of
 * a ring goes k_r nodes one way and N - 1 - k_r the other, k_r one of the two middle values,
 * chosen root by root (then improved one at a time) to lower the largest load over capacity.
 * On the MI250 box (16 GCDs, xGMI: mi250:1) the three rings use every lane between cards once
 * and the split puts each card's two dies on one side: the box's optimum 2400/7, 8 deep. The
 * trees' algbw is recounted (gsp_forest_algbw), never assumed. */
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"

#define RINGS_MAX_NODES 32
#define RINGS_MAX_CYCLES 20000
#define RINGS_MAX_STEPS 20000000

typedef struct {
    const gsp_topo_t *t;
    int64_t N;
    int64_t *cyc, ncyc; /* cycles, N vertices each */
    int64_t path[RINGS_MAX_NODES];
    bool on[RINGS_MAX_NODES];
    int64_t steps;
} enum_t;

static gsp_err_t dfs(enum_t *E, int64_t len) {
    const gsp_topo_t *t = E->t;
    int64_t N = E->N, x = E->path[len - 1];
    if (E->ncyc >= RINGS_MAX_CYCLES || ++E->steps > RINGS_MAX_STEPS) return GSP_OK;
    if (len == N) {
        /* Closes to node 0, and each cycle once: its second node below its last. */
        if (gsp__arc(t, x, 0) >= 0 && E->path[1] < E->path[N - 1]) {
            memcpy(E->cyc + E->ncyc * N, E->path, (size_t)N * sizeof *E->path);
            E->ncyc++;
        }
        return GSP_OK;
    }
    for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
        int64_t y = t->adj[a];
        if (E->on[y]) continue;
        E->on[y] = true;
        E->path[len] = y;
        gsp_err_t err = dfs(E, len + 1);
        E->on[y] = false;
        if (err) return err;
    }
    return GSP_OK;
}

#define RINGS_BRANCH 6
#define RINGS_MAX_NODES_SEARCHED 100000

typedef struct {
    const gsp_topo_t *t;
    const enum_t *E;
    int64_t *res;
    int64_t *ring, *rw;          /* the current set: cycle indices and widths */
    int64_t *best_ring, *best_rw, *nbest, best_total;
    int64_t budget;
} S_t;

static int64_t width(const S_t *S, int64_t i, double *use) {
    const int64_t N = S->E->N, *C = S->E->cyc + i * N;
    int64_t bot = INT64_MAX;
    for (int64_t j = 0; j < N && bot > 0; j++) {
        int64_t a = gsp__arc(S->t, C[j], C[(j + 1) % N]);
        if (S->res[a] < bot) bot = S->res[a];
    }
    double u = 0;
    if (bot > 0)
        for (int64_t j = 0; j < N; j++) u += (double)bot / (double)S->res[gsp__arc(S->t, C[j], C[(j + 1) % N])];
    *use = u;
    return bot;
}

static void take(S_t *S, int64_t i, int64_t w) {
    const int64_t N = S->E->N, *C = S->E->cyc + i * N;
    for (int64_t j = 0; j < N; j++) {
        int64_t u = C[j], v = C[(j + 1) % N];
        S->res[gsp__arc(S->t, u, v)] -= w, S->res[gsp__arc(S->t, v, u)] -= w;
    }
}

static void pick(S_t *S, int64_t depth, int64_t total) {
    const int64_t N = S->E->N;
    if (total > S->best_total) {
        S->best_total = total;
        *S->nbest = depth;
        for (int64_t d = 0; d < depth; d++) {
            memcpy(S->best_ring + d * N, S->E->cyc + S->ring[d] * N, (size_t)N * sizeof *S->ring);
            S->best_rw[d] = S->rw[d];
        }
    }
    if (depth == N || S->budget-- <= 0) return;
    /* The RINGS_BRANCH best candidates, by width then use; cycles after the last one taken
     * only, so each set is searched once. */
    int64_t cand[RINGS_BRANCH], cw[RINGS_BRANCH], nc = 0;
    double cu[RINGS_BRANCH];
    for (int64_t i = depth ? S->ring[depth - 1] + 1 : 0; i < S->E->ncyc; i++) {
        double u;
        int64_t w = width(S, i, &u);
        if (w <= 0) continue;
        int64_t at = nc;
        while (at > 0 && (cw[at - 1] < w || (cw[at - 1] == w && cu[at - 1] > u))) at--;
        if (at >= RINGS_BRANCH) continue;
        if (nc < RINGS_BRANCH) nc++;
        for (int64_t q = nc - 1; q > at; q--) cand[q] = cand[q - 1], cw[q] = cw[q - 1], cu[q] = cu[q - 1];
        cand[at] = i, cw[at] = w, cu[at] = u;
    }
    for (int64_t q = 0; q < nc; q++) {
        S->ring[depth] = cand[q];
        S->rw[depth] = cw[q];
        take(S, cand[q], cw[q]);
        pick(S, depth + 1, total + cw[q]);
        take(S, cand[q], -cw[q]);
    }
}

/* Appends the edge u -> v (data from u to v; reversed: the arc v -> u) to T. */
static void put(const gsp_topo_t *t, gsp_tree_t *T, int64_t *e, int64_t u, int64_t v, bool rev) {
    T->from[*e] = u;
    T->to[*e] = v;
    T->hop_off[*e] = *e;
    T->hops[*e] = rev ? gsp__arc(t, v, u) : gsp__arc(t, u, v);
    (*e)++;
    T->hop_off[*e] = *e;
}

gsp_err_t gsp__forest_rings(const gsp_topo_t *t, gsp_collective_t c, int64_t root, gsp_forest_t *out) {
    gsp_err_t err = GSP_OK;
    enum_t E;
    int64_t N = t->n, m = t->m, *res = NULL, *ring = NULL, *rw = NULL, nring = 0, *k = NULL;
    double *load = NULL;
    (void)root;
    memset(&E, 0, sizeof E);
    memset(out, 0, sizeof *out);
    if (c != GSP_COLL_ALLGATHER && c != GSP_COLL_REDUCE_SCATTER)
        return gsp_error(GSP_ERR_NOTAPPLIC, "rings: %s is not planned by rings", gsp_collective_name(c));
    if (t->is_switch || N < 3 || N > RINGS_MAX_NODES)
        return gsp_error(GSP_ERR_NOTAPPLIC, "rings: %s is not a direct network of 3 to %d nodes", t->spec, RINGS_MAX_NODES);
    for (int64_t x = 0; x < N; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            int64_t b = gsp__arc(t, t->adj[a], x);
            if (b < 0 || (t->cap ? t->cap[a] != t->cap[b] : false))
                return gsp_error(GSP_ERR_NOTAPPLIC, "rings: %s has a link without its reverse at the same capacity", t->spec);
        }
    E.t = t, E.N = N;
    if ((err = gsp_alloc_array((void **)&E.cyc, (int64_t)RINGS_MAX_CYCLES * N, sizeof *E.cyc, false)) ||
        (err = gsp_alloc_array((void **)&res, m + 1, sizeof *res, false)) || (err = gsp_alloc_array((void **)&ring, N * N, sizeof *ring, false)) ||
        (err = gsp_alloc_array((void **)&rw, N, sizeof *rw, false)))
        goto done;
    E.path[0] = 0;
    E.on[0] = true;
    if ((err = dfs(&E, 1))) goto done;
    /* The rings: a depth-first search over sets of cycles, each taking its least residual
     * capacity from every link it uses, trying at each step the RINGS_BRANCH widest cycles
     * (ties: those that take the least of what their links have left) and keeping the set of
     * the largest total; a greedy choice alone can take a cycle that blocks two others (on the
     * MI250 box it finds two rings of three). */
    for (int64_t a = 0; a < m; a++) res[a] = t->cap ? t->cap[a] : 1;
    {
        S_t S = {.t = t, .E = &E, .res = res, .best_ring = ring, .best_rw = rw, .nbest = &nring, .budget = RINGS_MAX_NODES_SEARCHED};
        if ((err = gsp_alloc_array((void **)&S.ring, N, sizeof *S.ring, false)) || (err = gsp_alloc_array((void **)&S.rw, N, sizeof *S.rw, false))) {
            gsp_free(S.ring), gsp_free(S.rw);
            goto done;
        }
        pick(&S, 0, 0);
        gsp_free(S.ring), gsp_free(S.rw);
    }
    if (nring == 0) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "rings: %s has no Hamiltonian cycle within the search's limits", t->spec);
        goto done;
    }
    /* The split: k[i * N + p] nodes forward from position p of ring i. */
    int64_t lo = (N - 1) / 2, hi = N / 2;
    if ((err = gsp_alloc_array((void **)&k, nring * N, sizeof *k, false)) || (err = gsp_alloc_array((void **)&load, m + 1, sizeof *load, true))) goto done;
#define PATHLOAD(i, p, kk, sgn)                                                              \
    do {                                                                                     \
        const int64_t *C_ = ring + (i) * N;                                                  \
        for (int64_t s_ = 0; s_ < (kk); s_++)                                                \
            load[gsp__arc(t, C_[((p) + s_) % N], C_[((p) + s_ + 1) % N])] += (sgn) * (double)rw[i]; \
        for (int64_t s_ = 0; s_ < N - 1 - (kk); s_++)                                        \
            load[gsp__arc(t, C_[((p) - s_ + N) % N], C_[((p) - s_ - 1 + 2 * N) % N])] += (sgn) * (double)rw[i]; \
    } while (0)
    for (int64_t i = 0; i < nring; i++)
        for (int64_t p = 0; p < N; p++) k[i * N + p] = (p % 2) ? hi : lo;
    for (int64_t i = 0; i < nring; i++)
        for (int64_t p = 0; p < N; p++) PATHLOAD(i, p, k[i * N + p], 1);
    /* Improve one split at a time while the largest load over capacity falls (or its count). */
    for (int pass = 0; pass < 8 && lo != hi; pass++) {
        bool moved = false;
        for (int64_t i = 0; i < nring; i++)
            for (int64_t p = 0; p < N; p++) {
                double before = 0, after = 0;
                int64_t nb = 0, na = 0;
                for (int64_t a = 0; a < m; a++) {
                    double v = load[a] / (double)(t->cap ? t->cap[a] : 1);
                    if (v > before * (1 + 1e-12)) before = v, nb = 1;
                    else if (v >= before * (1 - 1e-12)) nb++;
                }
                int64_t kk = k[i * N + p], nk = kk == lo ? hi : lo;
                PATHLOAD(i, p, kk, -1);
                PATHLOAD(i, p, nk, 1);
                for (int64_t a = 0; a < m; a++) {
                    double v = load[a] / (double)(t->cap ? t->cap[a] : 1);
                    if (v > after * (1 + 1e-12)) after = v, na = 1;
                    else if (v >= after * (1 - 1e-12)) na++;
                }
                if (after < before * (1 - 1e-12) || (after <= before * (1 + 1e-12) && na < nb)) k[i * N + p] = nk, moved = true;
                else {
                    PATHLOAD(i, p, nk, -1);
                    PATHLOAD(i, p, kk, 1);
                }
            }
        if (!moved) break;
    }
#undef PATHLOAD
    if ((err = gsp_alloc_array((void **)&out->trees, nring * N, sizeof *out->trees, true))) goto done;
    out->collective = c;
    out->root = -1;
    out->reversed = c == GSP_COLL_REDUCE_SCATTER;
    for (int64_t i = 0; i < nring; i++) out->share += rw[i];
    for (int64_t i = 0; i < nring; i++)
        for (int64_t p = 0; p < N; p++) {
            const int64_t *C = ring + i * N;
            int64_t kk = k[i * N + p], e = 0;
            gsp_tree_t *T = &out->trees[out->ntrees++];
            T->root = C[p];
            T->mult = rw[i];
            T->nedges = N - 1;
            if ((err = gsp_alloc_array((void **)&T->from, N, sizeof *T->from, false)) ||
                (err = gsp_alloc_array((void **)&T->to, N, sizeof *T->to, false)) ||
                (err = gsp_alloc_array((void **)&T->hop_off, N + 1, sizeof *T->hop_off, false)) ||
                (err = gsp_alloc_array((void **)&T->hops, N, sizeof *T->hops, false)))
                goto done;
            T->hop_off[0] = 0;
            /* Level by level (parents first): the s-th node each way. */
            for (int64_t s = 1; s <= N - 1; s++) {
                if (s <= kk) put(t, T, &e, C[(p + s - 1) % N], C[(p + s) % N], out->reversed);
                if (s <= N - 1 - kk) put(t, T, &e, C[(p - s + 1 + N) % N], C[(p - s + N) % N], out->reversed);
            }
            T->depth = T->hop_depth = kk > N - 1 - kk ? kk : N - 1 - kk;
            if (T->depth > out->depth) out->depth = out->hop_depth = T->depth;
        }
    if ((err = gsp__forest_fit(t, out)) || (err = gsp_forest_algbw(t, out, &out->num, &out->den))) goto done;
    out->value = (double)out->num / (double)out->den;
done:
    gsp_free(E.cyc), gsp_free(res), gsp_free(ring), gsp_free(rw), gsp_free(k), gsp_free(load);
    if (err) gsp_forest_destroy(out);
    return err;
}
