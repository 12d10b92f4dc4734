/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_shallow.c — shallower trees at the same optimum (after fabric_pack.c): a compute node
 * y at depth d in a tree of multiplicity m moves under a node x' at depth at most d - 2 when a
 * route x' -> y (one fabric arc, or two through a switch) has m to spare on every arc, counted
 * against the capacities times cap_factor after every tree's load. Moving y lowers its whole
 * subtree, and releases m on its old route first, so the loads never exceed what the packing
 * allowed and the algbw cannot fall below it (it is the optimum already: it stays equal). A
 * node deeper in the tree is never x' for y (x' is shallower), so the tree stays a tree.
 * Repeated until no move applies: each lowers a depth, so it ends. Reduce-scatter's in-trees
 * are the same with every route taken backwards (data flows child -> parent). */
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"

typedef struct {
    int64_t *par, *rs, *rl; /* parent, and the route of the edge into each node: arcs buf[rs .. rs + rl) */
    int64_t *buf, nbuf, room;
    int64_t *depth, *hdepth, *order, *kids_off, *kids;
} shape_t;

static gsp_err_t push_arc(shape_t *S, int64_t a) {
    if (S->nbuf == S->room) {
        int64_t room = S->room ? 2 * S->room : 256;
        int64_t *p = gsp_realloc(S->buf, (size_t)room * sizeof *p);
        if (!p) return gsp_error(GSP_ERR_NOMEM, "fabric trees: routes of %lld arcs", (long long)room);
        S->buf = p;
        S->room = room;
    }
    S->buf[S->nbuf++] = a;
    return GSP_OK;
}

/* Depths and a breadth-first order of tree T's shape (root r, N nodes among n). */
static void shape_order(shape_t *S, int64_t n, int64_t r, int64_t *count) {
    memset(S->kids_off, 0, (size_t)(n + 2) * sizeof *S->kids_off);
    for (int64_t v = 0; v < n; v++)
        if (S->par[v] >= 0) S->kids_off[S->par[v] + 2]++;
    for (int64_t v = 0; v < n; v++) S->kids_off[v + 2] += S->kids_off[v + 1];
    for (int64_t v = 0; v < n; v++)
        if (S->par[v] >= 0) S->kids[S->kids_off[S->par[v] + 1]++] = v;
    int64_t head = 0, tail = 0;
    S->order[tail++] = r;
    S->depth[r] = S->hdepth[r] = 0;
    while (head < tail) {
        int64_t x = S->order[head++];
        for (int64_t k = S->kids_off[x]; k < S->kids_off[x + 1]; k++) {
            int64_t y = S->kids[k];
            S->depth[y] = S->depth[x] + 1;
            S->hdepth[y] = S->hdepth[x] + S->rl[y];
            S->order[tail++] = y;
        }
    }
    *count = tail;
}

/* Whether x is a better new parent than best for a node at depth d and hop depth hd, through a
 * route of len arcs: at least two levels shallower than d, no deeper in hops, and shallower
 * than best. */
static bool better(const shape_t *S, int64_t x, int64_t best, int64_t d, int64_t hd, int64_t len) {
    if (S->depth[x] > d - 2 || S->hdepth[x] + len > hd) return false;
    return best < 0 || S->depth[x] < S->depth[best];
}

gsp_err_t gsp__forest_shallow(const gsp_topo_t *t, gsp_forest_t *f) {
    gsp_err_t err;
    int64_t n = t->n, m = t->m;
    int64_t *spare = NULL, *tailof = NULL, *in_off = NULL, *in_arc = NULL;
    shape_t S = {0};
    if ((err = gsp_alloc_array((void **)&spare, m + 1, sizeof *spare, false)) || (err = gsp_alloc_array((void **)&tailof, m + 1, sizeof *tailof, false)) ||
        (err = gsp_alloc_array((void **)&S.par, n, sizeof *S.par, false)) || (err = gsp_alloc_array((void **)&S.rs, n, sizeof *S.rs, false)) ||
        (err = gsp_alloc_array((void **)&S.rl, n, sizeof *S.rl, false)) || (err = gsp_alloc_array((void **)&S.depth, n, sizeof *S.depth, false)) ||
        (err = gsp_alloc_array((void **)&S.hdepth, n, sizeof *S.hdepth, false)) || (err = gsp_alloc_array((void **)&S.order, n, sizeof *S.order, false)) ||
        (err = gsp_alloc_array((void **)&S.kids_off, n + 2, sizeof *S.kids_off, false)) || (err = gsp_alloc_array((void **)&S.kids, n, sizeof *S.kids, false)) ||
        (err = gsp_alloc_array((void **)&in_off, n + 2, sizeof *in_off, true)) || (err = gsp_alloc_array((void **)&in_arc, m + 1, sizeof *in_arc, false)))
        goto done;
    /* The arcs into each vertex (CSR by head). */
    for (int64_t a = 0; a < m; a++) in_off[t->adj[a] + 2]++;
    for (int64_t v = 0; v < n; v++) in_off[v + 2] += in_off[v + 1];
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) in_arc[in_off[t->adj[a] + 1]++] = a;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            tailof[a] = x;
            spare[a] = f->cap_factor * (t->cap ? t->cap[a] : 1);
        }
    for (int64_t i = 0; i < f->ntrees; i++) {
        const gsp_tree_t *T = &f->trees[i];
        for (int64_t h = 0; h < T->hop_off[T->nedges]; h++) spare[T->hops[h]] -= T->mult;
    }
    for (int64_t a = 0; a < m; a++)
        if (spare[a] < 0) {
            err = gsp_error(GSP_ERR_INTERNAL, "fabric trees: an arc loaded beyond its capacity before reshaping");
            goto done;
        }
    bool rev = f->reversed;
    for (int64_t i = 0; i < f->ntrees; i++) {
        gsp_tree_t *T = &f->trees[i];
        int64_t mu = T->mult, r = T->root, count;
        S.nbuf = 0;
        for (int64_t v = 0; v < n; v++) S.par[v] = -1, S.rl[v] = 0;
        for (int64_t e = 0; e < T->nedges; e++) {
            int64_t v = T->to[e];
            S.par[v] = T->from[e];
            S.rs[v] = S.nbuf;
            S.rl[v] = T->hop_off[e + 1] - T->hop_off[e];
            for (int64_t h = T->hop_off[e]; h < T->hop_off[e + 1]; h++)
                if ((err = push_arc(&S, T->hops[h]))) goto done;
        }
        bool moved_any = false;
        for (bool moved = true; moved;) {
            moved = false;
            shape_order(&S, n, r, &count);
            /* Deepest first: lowering a node lowers its subtree too. */
            for (int64_t k = count - 1; k > 0 && !moved; k--) {
                int64_t y = S.order[k], d = S.depth[y];
                if (d < 2) break;
                for (int64_t h = S.rs[y]; h < S.rs[y] + S.rl[y]; h++) spare[S.buf[h]] += mu;
                /* The shallowest x' with a route to y (from y when reversed) that has mu to
                 * spare: a direct arc, or two arcs through a switch. */
                int64_t best = -1, ba = -1, bb = -1;
                if (!rev) {
                    for (int64_t k2 = in_off[y]; k2 < in_off[y + 1]; k2++) { /* arcs b = x -> y */
                        int64_t b = in_arc[k2], x = tailof[b];
                        if (spare[b] < mu) continue;
                        if (!(t->is_switch && t->is_switch[x])) {
                            if (better(&S, x, best, d, S.hdepth[y], 1)) best = x, ba = b, bb = -1;
                            continue;
                        }
                        for (int64_t k3 = in_off[x]; k3 < in_off[x + 1]; k3++) { /* a = z -> x */
                            int64_t a = in_arc[k3], z = tailof[a];
                            if (spare[a] < mu || (t->is_switch && t->is_switch[z]) || z == y) continue;
                            if (better(&S, z, best, d, S.hdepth[y], 2)) best = z, ba = a, bb = b;
                        }
                    }
                } else {
                    for (int64_t a = t->off[y]; a < t->off[y + 1]; a++) { /* data y -> x' */
                        if (spare[a] < mu) continue;
                        int64_t x = t->adj[a];
                        if (!(t->is_switch && t->is_switch[x])) {
                            if (better(&S, x, best, d, S.hdepth[y], 1)) best = x, ba = a, bb = -1;
                            continue;
                        }
                        for (int64_t b = t->off[x]; b < t->off[x + 1]; b++) {
                            int64_t z = t->adj[b];
                            if (spare[b] < mu || (t->is_switch && t->is_switch[z]) || z == y) continue;
                            if (better(&S, z, best, d, S.hdepth[y], 2)) best = z, ba = a, bb = b;
                        }
                    }
                }
                if (best < 0) {
                    for (int64_t h = S.rs[y]; h < S.rs[y] + S.rl[y]; h++) spare[S.buf[h]] -= mu;
                    continue;
                }
                S.par[y] = best;
                S.rs[y] = S.nbuf;
                S.rl[y] = bb >= 0 ? 2 : 1;
                if ((err = push_arc(&S, ba)) || (bb >= 0 && (err = push_arc(&S, bb)))) goto done;
                spare[ba] -= mu;
                if (bb >= 0) spare[bb] -= mu;
                moved = moved_any = true;
            }
        }
        if (!moved_any) continue;
        /* Write the tree back in breadth-first order: parents before children. */
        shape_order(&S, n, r, &count);
        int64_t len = 0;
        for (int64_t k = 1; k < count; k++) len += S.rl[S.order[k]];
        int64_t *hops = NULL;
        if ((err = gsp_alloc_array((void **)&hops, len + 1, sizeof *hops, false))) goto done;
        T->depth = T->hop_depth = 0;
        len = 0;
        for (int64_t k = 1; k < count; k++) {
            int64_t y = S.order[k];
            T->from[k - 1] = S.par[y];
            T->to[k - 1] = y;
            T->hop_off[k - 1] = len;
            memcpy(hops + len, S.buf + S.rs[y], (size_t)S.rl[y] * sizeof *hops);
            len += S.rl[y];
            if (S.depth[y] > T->depth) T->depth = S.depth[y];
            if (S.hdepth[y] > T->hop_depth) T->hop_depth = S.hdepth[y];
        }
        T->hop_off[count - 1] = len;
        gsp_free(T->hops);
        T->hops = hops;
    }
    f->depth = f->hop_depth = 0;
    for (int64_t i = 0; i < f->ntrees; i++) {
        if (f->trees[i].depth > f->depth) f->depth = f->trees[i].depth;
        if (f->trees[i].hop_depth > f->hop_depth) f->hop_depth = f->trees[i].hop_depth;
    }
done:
    gsp_free(spare);
    gsp_free(tailof);
    gsp_free(in_off);
    gsp_free(in_arc);
    gsp_free(S.par);
    gsp_free(S.rs);
    gsp_free(S.rl);
    gsp_free(S.buf);
    gsp_free(S.depth);
    gsp_free(S.hdepth);
    gsp_free(S.order);
    gsp_free(S.kids_off);
    gsp_free(S.kids);
    return err;
}
