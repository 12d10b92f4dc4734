/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_swap.c — shallower trees at the same optimum by exchanging parents between trees
 * (after fabric_shallow.c). Where the optimal packing loads every arc to its capacity (two DGX
 * boxes: every NIC and NVLink arc), no node can move to a shallower parent alone: the route there
 * is full. But a node y has a parent in every tree: if y sits deep under p1 in tree T1 and under
 * a node p' that is shallow in T1 in another tree T2, the two trees can trade — T1 takes T2's
 * route p' -> y and T2 takes T1's route p1 -> y, each for s = min(mult1, mult2) of their
 * multiplicity (the tree with more is split first: the rest keeps its shape as a tree of its
 * own). Every arc carries exactly what it carried before, so the loads, the algbw and the
 * optimum are unchanged; T1 is shallower at y, T2 deeper there.
 *
 * A trade is taken when T2 stays strictly shallower than the deeper of the two was, p1 is not
 * under y in T2 (no cycle: p' is shallower than y in T1, so never under it), and the total
 * depth, sum over trees of mult times the depths of its nodes, falls: an integer that only falls,
 * so the search ends. Deepest nodes of the deepest trees first; trees are at most four times as
 * many as the packing made (each is a message per edge in the runtime). Reduce-scatter's in-trees
 * trade the same way (their routes are used backwards, the loads are the same). */
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"

typedef struct {
    int64_t n, nt, cap;      /* vertices; trees; trees the arrays hold */
    int64_t *root, *mult;    /* per tree */
    int64_t *par, *rs, *rl;  /* per tree and vertex: parent (-1), route of the edge in: buf[rs .. rs + rl) */
    int64_t *dep;            /* per tree and vertex: depth in compute edges (-1: not in the tree) */
    int64_t *ssz, *sdp;      /* per tree and vertex: nodes in its subtree, and their deepest depth */
    int64_t *buf, nbuf, room;
    int64_t *kids_off, *kids, *stack;
} forest_t;

static gsp_err_t grow_trees(forest_t *F) {
    int64_t cap = F->cap ? 2 * F->cap : 16, n = F->n;
    int64_t **arr[] = {&F->par, &F->rs, &F->rl, &F->dep, &F->ssz, &F->sdp};
    for (size_t k = 0; k < sizeof arr / sizeof *arr; k++) {
        void *q = gsp_realloc(*arr[k], (size_t)(cap * n) * sizeof(int64_t));
        if (!q) return gsp_error(GSP_ERR_NOMEM, "fabric trees: %lld trees", (long long)cap);
        *arr[k] = q;
    }
    void *q1 = gsp_realloc(F->root, (size_t)cap * sizeof *F->root);
    if (q1) F->root = q1;
    void *q2 = gsp_realloc(F->mult, (size_t)cap * sizeof *F->mult);
    if (q2) F->mult = q2;
    if (!q1 || !q2) return gsp_error(GSP_ERR_NOMEM, "fabric trees: %lld trees", (long long)cap);
    F->cap = cap;
    return GSP_OK;
}

static gsp_err_t push_route(forest_t *F, const int64_t *arcs, int64_t len, int64_t *start) {
    while (F->nbuf + len > F->room) {
        int64_t room = F->room ? 2 * F->room : 1024;
        int64_t *p = gsp_realloc(F->buf, (size_t)room * sizeof *p);
        if (!p) return gsp_error(GSP_ERR_NOMEM, "fabric trees: routes of %lld arcs", (long long)room);
        F->buf = p;
        F->room = room;
    }
    *start = F->nbuf;
    memmove(F->buf + F->nbuf, arcs, (size_t)len * sizeof *arcs);
    F->nbuf += len;
    return GSP_OK;
}

/* Depths of tree i from its parents (vertices not in it: -1); *maxd [out]. */
static void depths(forest_t *F, int64_t i, int64_t *maxd) {
    int64_t n = F->n, *par = F->par + i * n, *dep = F->dep + i * n;
    memset(F->kids_off, 0, (size_t)(n + 2) * sizeof *F->kids_off);
    for (int64_t v = 0; v < n; v++)
        if (par[v] >= 0) F->kids_off[par[v] + 2]++;
    for (int64_t v = 0; v < n; v++) F->kids_off[v + 2] += F->kids_off[v + 1];
    for (int64_t v = 0; v < n; v++)
        if (par[v] >= 0) F->kids[F->kids_off[par[v] + 1]++] = v;
    int64_t *ssz = F->ssz + i * n, *sdp = F->sdp + i * n;
    for (int64_t v = 0; v < n; v++) dep[v] = -1, ssz[v] = 0, sdp[v] = -1;
    /* Breadth first into order[]; subtrees summed back to front. */
    int64_t head = 0, tail = 0, m = 0, *order = F->stack;
    order[tail++] = F->root[i];
    dep[F->root[i]] = 0;
    while (head < tail) {
        int64_t x = order[head++];
        if (dep[x] > m) m = dep[x];
        for (int64_t k = F->kids_off[x]; k < F->kids_off[x + 1]; k++) {
            dep[F->kids[k]] = dep[x] + 1;
            order[tail++] = F->kids[k];
        }
    }
    for (int64_t k = tail - 1; k >= 0; k--) {
        int64_t x = order[k];
        ssz[x] += 1;
        if (dep[x] > sdp[x]) sdp[x] = dep[x];
        if (par[x] >= 0) {
            ssz[par[x]] += ssz[x];
            if (sdp[x] > sdp[par[x]]) sdp[par[x]] = sdp[x];
        }
    }
    *maxd = m;
}

/* Whether a is y or under y in tree j (walking up from a). */
static bool under(const forest_t *F, int64_t j, int64_t a, int64_t y) {
    const int64_t *par = F->par + j * F->n;
    for (int64_t x = a; x >= 0; x = par[x])
        if (x == y) return true;
    return false;
}

/* Nodes in y's subtree of tree j and their deepest depth: *size, *deepest [out]. */
static void subtree(const forest_t *F, int64_t j, int64_t y, int64_t *size, int64_t *deepest) {
    *size = F->ssz[j * F->n + y];
    *deepest = F->sdp[j * F->n + y];
}

gsp_err_t gsp__forest_swap(const gsp_topo_t *t, gsp_forest_t *f) {
    gsp_err_t err = GSP_OK;
    int64_t n = t->n;
    forest_t F;
    int64_t *maxd = NULL;
    memset(&F, 0, sizeof F);
    F.n = n;
    if (f->ntrees < 2) return GSP_OK;
    while (F.cap < f->ntrees)
        if ((err = grow_trees(&F))) goto done;
    if ((err = gsp_alloc_array((void **)&F.kids_off, n + 2, sizeof *F.kids_off, false)) ||
        (err = gsp_alloc_array((void **)&F.kids, n + 1, sizeof *F.kids, false)) ||
        (err = gsp_alloc_array((void **)&F.stack, n + 1, sizeof *F.stack, false)))
        goto done;
    for (int64_t i = 0; i < f->ntrees; i++) {
        const gsp_tree_t *T = &f->trees[i];
        F.root[i] = T->root;
        F.mult[i] = T->mult;
        for (int64_t v = 0; v < n; v++) F.par[i * n + v] = -1, F.rs[i * n + v] = F.rl[i * n + v] = 0;
        for (int64_t e = 0; e < T->nedges; e++) {
            int64_t v = T->to[e], len = T->hop_off[e + 1] - T->hop_off[e];
            F.par[i * n + v] = T->from[e];
            F.rl[i * n + v] = len;
            if ((err = push_route(&F, T->hops + T->hop_off[e], len, &F.rs[i * n + v]))) goto done;
        }
    }
    F.nt = f->ntrees;
    int64_t limit = 2 * f->ntrees;
    if ((err = gsp_alloc_array((void **)&maxd, limit + 1, sizeof *maxd, false))) goto done;
    for (int64_t i = 0; i < F.nt; i++) depths(&F, i, &maxd[i]);
    bool changed = false;
    /* Sweeps over the trees, deepest first, each trading wherever it can; a few at most (each
     * is about trees^2 * nodes checks). */
    for (int sweep = 0, again = 1; again && sweep < 6; sweep++) {
        again = 0;
        int64_t top = 0;
        for (int64_t k = 0; k < F.nt; k++)
            if (maxd[k] > top) top = maxd[k];
        for (int64_t want = top; want >= 3; want--)
            for (int64_t i = 0; i < F.nt; i++) {
                if (maxd[i] != want) continue;
                for (int64_t d = maxd[i]; d >= 3; d--)
                    for (int64_t y = 0; y < n; y++) {
                        if (F.dep[i * n + y] != d) continue;
                        int64_t p1 = F.par[i * n + y], size1, deep1;
                        subtree(&F, i, y, &size1, &deep1);
                        for (int64_t j = 0; j < F.nt && F.dep[i * n + y] == d; j++) {
                            if (j == i) continue;
                            int64_t p2 = F.par[j * n + y];
                            if (p2 < 0 || F.dep[i * n + p2] < 0 || F.dep[i * n + p2] > d - 2 || under(&F, j, p1, y)) continue;
                            int64_t size2, deep2;
                            subtree(&F, j, y, &size2, &deep2);
                            int64_t up = d - F.dep[i * n + p2] - 1, down = F.dep[j * n + p1] + 1 - F.dep[j * n + y];
                            int64_t bound = maxd[i] > maxd[j] ? maxd[i] : maxd[j];
                            if (deep2 + down >= bound) continue;                     /* T2 would become as deep */
                            if (up * size1 <= (down > 0 ? down : 0) * size2) continue; /* the total depth must fall */
                            int64_t s = F.mult[i] < F.mult[j] ? F.mult[i] : F.mult[j];
                            if (F.nt + (F.mult[i] != s) + (F.mult[j] != s) > limit) continue;
                            /* Split the tree with more: the rest keeps its shape. */
                            for (int side = 0; side < 2; side++) {
                                int64_t k = side ? j : i;
                                if (F.mult[k] == s) continue;
                                if (F.nt == F.cap && (err = grow_trees(&F))) goto done;
                                int64_t c = F.nt++;
                                F.root[c] = F.root[k];
                                F.mult[c] = F.mult[k] - s;
                                F.mult[k] = s;
                                memcpy(F.par + c * n, F.par + k * n, (size_t)n * sizeof *F.par);
                                memcpy(F.rs + c * n, F.rs + k * n, (size_t)n * sizeof *F.rs);
                                memcpy(F.rl + c * n, F.rl + k * n, (size_t)n * sizeof *F.rl);
                                memcpy(F.dep + c * n, F.dep + k * n, (size_t)n * sizeof *F.dep);
                                memcpy(F.ssz + c * n, F.ssz + k * n, (size_t)n * sizeof *F.ssz);
                                memcpy(F.sdp + c * n, F.sdp + k * n, (size_t)n * sizeof *F.sdp);
                                maxd[c] = maxd[k];
                            }
                            /* Trade the edges into y. */
                            int64_t rs1 = F.rs[i * n + y], rl1 = F.rl[i * n + y];
                            F.par[i * n + y] = p2;
                            F.rs[i * n + y] = F.rs[j * n + y];
                            F.rl[i * n + y] = F.rl[j * n + y];
                            F.par[j * n + y] = p1;
                            F.rs[j * n + y] = rs1;
                            F.rl[j * n + y] = rl1;
                            depths(&F, i, &maxd[i]);
                            depths(&F, j, &maxd[j]);
                            p1 = F.par[i * n + y];
                            subtree(&F, i, y, &size1, &deep1);
                            again = 1;
                            changed = true;
                        }
                    }
            }
    }
    if (!changed) goto done;
    /* Write the trees back, breadth first (parents before children). */
    void *q = gsp_realloc(f->trees, (size_t)F.nt * sizeof *f->trees);
    if (!q) {
        err = gsp_error(GSP_ERR_NOMEM, "fabric trees: %lld trees", (long long)F.nt);
        goto done;
    }
    f->trees = q;
    for (int64_t i = f->ntrees; i < F.nt; i++) {
        gsp_tree_t *T = &f->trees[i];
        *T = f->trees[0];
        T->from = T->to = T->hop_off = T->hops = NULL;
        if ((err = gsp_alloc_array((void **)&T->from, T->nedges + 1, sizeof *T->from, false)) ||
            (err = gsp_alloc_array((void **)&T->to, T->nedges + 1, sizeof *T->to, false)) ||
            (err = gsp_alloc_array((void **)&T->hop_off, T->nedges + 2, sizeof *T->hop_off, false))) {
            f->ntrees = i + 1; /* released by the caller's destroy */
            goto done;
        }
    }
    f->ntrees = F.nt;
    f->depth = f->hop_depth = 0;
    for (int64_t i = 0; i < F.nt; i++) {
        gsp_tree_t *T = &f->trees[i];
        int64_t md, *dep = F.dep + i * n, *par = F.par + i * n, len = 0, k = 0, *hops = NULL;
        depths(&F, i, &md);
        T->root = F.root[i];
        T->mult = F.mult[i];
        for (int64_t v = 0; v < n; v++) len += par[v] >= 0 ? F.rl[i * n + v] : 0;
        if ((err = gsp_alloc_array((void **)&hops, len + 1, sizeof *hops, false))) goto done;
        gsp_free(T->hops);
        T->hops = hops;
        T->depth = md;
        T->hop_depth = 0;
        /* By depth: parents before children; hop depths accumulate along the way. */
        int64_t *hd = F.stack; /* n entries: hop depth per vertex */
        for (int64_t v = 0; v < n; v++) hd[v] = 0;
        len = 0;
        for (int64_t L = 1; L <= md; L++)
            for (int64_t v = 0; v < n; v++) {
                if (dep[v] != L) continue;
                T->from[k] = par[v];
                T->to[k] = v;
                T->hop_off[k] = len;
                memcpy(hops + len, F.buf + F.rs[i * n + v], (size_t)F.rl[i * n + v] * sizeof *hops);
                len += F.rl[i * n + v];
                hd[v] = hd[par[v]] + F.rl[i * n + v];
                if (hd[v] > T->hop_depth) T->hop_depth = hd[v];
                k++;
            }
        T->hop_off[k] = len;
        if (k != T->nedges) {
            err = gsp_error(GSP_ERR_INTERNAL, "fabric trees: a traded tree spans %lld of %lld edges", (long long)k, (long long)T->nedges);
            goto done;
        }
        if (T->depth > f->depth) f->depth = T->depth;
        if (T->hop_depth > f->hop_depth) f->hop_depth = T->hop_depth;
    }
done:
    gsp_free(F.root);
    gsp_free(F.mult);
    gsp_free(F.par);
    gsp_free(F.rs);
    gsp_free(F.rl);
    gsp_free(F.dep);
    gsp_free(F.ssz);
    gsp_free(F.sdp);
    gsp_free(F.buf);
    gsp_free(F.kids_off);
    gsp_free(F.kids);
    gsp_free(F.stack);
    gsp_free(maxd);
    return err;
}
