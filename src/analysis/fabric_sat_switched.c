/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_sat_switched.c — a broadcast on a fabric with switches as a few trees of one NIC's rate
 * each, as shallow as a SAT solver finds: where the optimum algbw is T times the fabric's slowest
 * link (the NIC; mi250:2: 256 = 16 x 16 GB/s), T trees each carry 1/T of the data at that rate.
 * A tree edge is a direct link between compute nodes or a route compute -> switch -> compute (two
 * arcs); an arc of capacity c carries at most floor(c / slowest) tree edges (a NIC: one).
 * Variables P(t, e): tree t enters the head of edge e by e; R(t, v, k): v is at most k edges from
 * the root in tree t (the encoding of fabric_sat_depth.c); the loads by Sinz's sequential counter
 * (at most k of a set, O(set k) clauses). The trees are alike, which a solver pays for: where the
 * binding cut is T such links (the root's box's NICs), each tree crosses it once, so tree t is
 * taken to cross on the cut's t-th link, and past the cut only the crossings go through a switch
 * (another route there would take a NIC the crossings need); this needs the compute nodes past
 * the cut linked to each other (mi250:2's second box; not a DGX box's GPUs behind their
 * NVSwitch: GSP_ERR_NOTAPPLIC). Without it mi250:2 got no answer within a million conflicts at
 * any depth up to 34; with it, 16 trees 9 deep in about 4 s.
 *
 * Several boxes past the cut (mi250:4: three), each a copy of the first in index order, joined
 * only through the switches: a tree must then enter every box, and the boxes' NICs in carry one
 * tree edge each, so each tree enters each box once, and all but the first entry come from
 * another box past the cut (the root's box sends each tree out once). The solver sees the root's
 * box and the first box past it; box c copies the first box's trees, tree t entering box c at
 * the node where it enters the first box, from that node's copy in box c - 1 (a chain of boxes:
 * the NIC out of a node carries the one tree that came in at it). A copy in box c is c levels
 * deeper than its original, so the solver asks the first box within D - (boxes - 1) and the
 * root's box within D. That meets the bound: on three rings of six GPUs with a NIC each, the
 * tree that leaves the root's ring at the GPU opposite the root is 3 deep there, enters one box
 * at 4, the other at 5 at best, whose ring is 3 more: 8, found; on mi250:4 the tree that leaves
 * at a GCD 4 hops from GCD 0 enters the last box at 7 at best, and every GCD of a box is 3 hops
 * from some other: 10, found (16 trees, in about 4 s; the first box alike within D, 11). The
 * loads are recounted, and a copy that does not reach the optimum (a box's NIC out slower than
 * its NIC in) is refused. D goes up from
 * the nearest it could be (the farthest compute node's distance) until the solver answers yes within
 * GSP__SAT_SWITCHED_CONFLICTS conflicts a solve: a fixed count, not a time, so every rank that
 * plans the broadcast finds the same trees. The loads are recounted (gsp_forest_algbw) and must
 * give the optimum.
 *
 * Why: the packing of gsp_fabric_trees on mi250:2 is 72 trees of multiplicities 1 to 15 (share
 * 256), which the runtime runs as 256 trees of one part each, dozens of messages sharing each link
 * and each level waiting a lane (340.9 us at 64 MiB under SimGrid SMPI's defaults, 1.30x the
 * bound 262.1). Trees as wide as a NIC stream chunk by chunk, each level a chunk's latency
 * (rt_fabric_streams.c). Applies where every switch links only compute nodes (one switch level),
 * 2 <= T <= GSP__SAT_SWITCHED_TREES and the cut is as above, with at most
 * GSP__SAT_SWITCHED_NODES compute nodes in the two boxes solved and GSP__SAT_SWITCHED_ALL in all;
 * elsewhere GSP_ERR_NOTAPPLIC. */
#include <ccadical.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"

typedef struct {
    CCaDiCaL *s;
    int next; /* the next free variable */
} enc_t;

static void clause(enc_t *e, int a, int b, int c) {
    ccadical_add(e->s, a);
    if (b) ccadical_add(e->s, b);
    if (c) ccadical_add(e->s, c);
    ccadical_add(e->s, 0);
}

/* At most k of x[0 .. n) true (Sinz 2005: s(i, j) = at least j of x[0 .. i] true). */
static void at_most(enc_t *e, const int *x, int n, int k) {
    if (n <= k) return;
    if (k == 0) {
        for (int i = 0; i < n; i++) clause(e, -x[i], 0, 0);
        return;
    }
    int s0 = e->next;
    e->next += (n - 1) * k;
#define S(i, j) (s0 + (i) * k + (j)) /* i < n - 1, j < k: at least j + 1 of x[0 .. i] */
    clause(e, -x[0], S(0, 0), 0);
    for (int j = 1; j < k; j++) clause(e, -S(0, j), 0, 0);
    for (int i = 1; i < n - 1; i++) {
        clause(e, -x[i], S(i, 0), 0);
        clause(e, -S(i - 1, 0), S(i, 0), 0);
        for (int j = 1; j < k; j++) {
            clause(e, -x[i], -S(i - 1, j - 1), S(i, j));
            clause(e, -S(i - 1, j), S(i, j), 0);
        }
        clause(e, -x[i], -S(i - 1, k - 1), 0);
    }
    clause(e, -x[n - 1], -S(n - 2, k - 1), 0);
#undef S
}

/* The tree edges: direct compute -> compute arcs and compute -> switch -> compute routes. */
typedef struct {
    int64_t ne, nsat; /* all of them; the first nsat the solver's */
    int64_t *tail, *head, *a1, *a2; /* a2 = -1: direct */
} edges_t;

static void edges_free(edges_t *g) {
    gsp_free(g->tail);
    gsp_free(g->head);
    gsp_free(g->a1);
    gsp_free(g->a2);
}

/* Every tree edge, those touching a node marked in excl (may be NULL) last: g->nsat edges
 * first that the solver sees, then the rest (the boxes copied after it: see the top). */
static gsp_err_t edges_build(const gsp_topo_t *t, const uint8_t *excl, edges_t *g) {
    int64_t n = t->n, ne = 0;
    bool sw = t->is_switch != NULL;
    for (int pass = 0; pass < 2; pass++) {
        ne = 0;
        for (int late = 0; late < 2; late++)
            for (int64_t x = 0; x < n; x++) {
                if (sw && t->is_switch[x]) continue;
                for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
                    int64_t s = t->adj[a];
                    if (!(sw && t->is_switch[s])) {
                        if ((excl && (excl[x] || excl[s])) != late) continue;
                        if (pass) g->tail[ne] = x, g->head[ne] = s, g->a1[ne] = a, g->a2[ne] = -1;
                        ne++;
                        continue;
                    }
                    for (int64_t b = t->off[s]; b < t->off[s + 1]; b++) {
                        int64_t y = t->adj[b];
                        if (y == x || t->is_switch[y] || (excl && (excl[x] || excl[y])) != late) continue;
                        if (pass) g->tail[ne] = x, g->head[ne] = y, g->a1[ne] = a, g->a2[ne] = b;
                        ne++;
                    }
                }
            }
        if (pass == 0) {
            gsp_err_t err;
            if ((err = gsp_alloc_array((void **)&g->tail, ne + 1, sizeof *g->tail, false)) ||
                (err = gsp_alloc_array((void **)&g->head, ne + 1, sizeof *g->head, false)) ||
                (err = gsp_alloc_array((void **)&g->a1, ne + 1, sizeof *g->a1, false)) || (err = gsp_alloc_array((void **)&g->a2, ne + 1, sizeof *g->a2, false)))
                return err;
        }
    }
    g->ne = ne;
    g->nsat = 0;
    while (g->nsat < ne && !(excl && (excl[g->tail[g->nsat]] || excl[g->head[g->nsat]]))) g->nsat++;
    return GSP_OK;
}

/* Solves depth D for T trees: par[tr n + v] the edge into v in tree tr (-1 at the root and at
 * switches). dist: each vertex's distance from the root over the edges (a lower bound). */
static bool solve(const gsp_topo_t *t, const edges_t *g, const uint8_t *excl, const int64_t *comp, int64_t lift, int64_t root, int T, const int64_t *kcap, const int64_t *dist, const int64_t *cutarc,
                  int64_t D, int64_t *par, int *buf) {
    int64_t n = t->n, ne = g->nsat, m = t->off[n];
    enc_t e = {ccadical_init(), 0};
    if (!e.s) return false;
    ccadical_set_option(e.s, "quiet", 1); /* the library never prints */
    ccadical_limit(e.s, "conflicts", GSP__SAT_SWITCHED_CONFLICTS);
    int base = 1 + T * (int)ne;
    e.next = base + T * (int)n * (int)(D + 1);
#define P(tr, x) (1 + (tr) * (int)ne + (int)(x))
#define R(tr, v, k) (base + ((tr) * (int)n + (int)(v)) * (int)(D + 1) + (int)(k))
    for (int tr = 0; tr < T; tr++) {
        for (int64_t v = 0; v < n; v++) {
            if (v == root) {
                for (int64_t k = 0; k <= D; k++) clause(&e, R(tr, v, k), 0, 0);
                continue;
            }
            if (excl[v]) continue; /* a box copied after (see the top) */
            /* Not reached within k edges where the graph's own distance says so. */
            for (int64_t k = 0; k <= D && k < dist[v]; k++) clause(&e, -R(tr, v, k), 0, 0);
            if (!t->is_switch || !t->is_switch[v]) clause(&e, R(tr, v, comp[v] == 0 ? D - lift : D), 0, 0);
        }
        /* One parent edge each compute node but the root. */
        for (int64_t v = 0; v < n; v++) {
            if (v == root || (t->is_switch && t->is_switch[v]) || excl[v]) continue;
            int c = 0;
            for (int64_t x = 0; x < ne; x++)
                if (g->head[x] == v) buf[c++] = P(tr, x);
            for (int i = 0; i < c; i++) ccadical_add(e.s, buf[i]);
            ccadical_add(e.s, 0);
            at_most(&e, buf, c, 1);
        }
        for (int64_t x = 0; x < ne; x++) {
            int64_t u = g->tail[x], v = g->head[x];
            if (v == root) {
                clause(&e, -P(tr, x), 0, 0);
                continue;
            }
            for (int64_t k = 1; k <= D; k++) clause(&e, -P(tr, x), -R(tr, v, k), R(tr, u, k - 1));
        }
    }
    /* The trees are alike: the binding cut's arcs carry one tree edge each and T in all, so every
     * tree crosses it once, and tree tr may be taken to cross on its tr-th arc. Past the cut a
     * tree needs no route through a switch (its compute nodes are linked: the caller checks), and
     * one would take a NIC the crossings need, so only the crossings go through switches. */
    for (int64_t x = 0; x < ne; x++)
        for (int tr = 0; tr < T; tr++) {
            int64_t c1 = cutarc[g->a1[x]], c2 = g->a2[x] >= 0 ? cutarc[g->a2[x]] : -1;
            if ((c1 >= 0 && c1 != tr) || (c2 >= 0 && c2 != tr) || (g->a2[x] >= 0 && c1 < 0 && c2 < 0)) clause(&e, -P(tr, x), 0, 0);
        }
    /* Each arc's tree edges at most kcap: over every tree, every edge whose route uses it. */
    for (int64_t a = 0; a < m; a++) {
        int c = 0;
        for (int64_t x = 0; x < ne; x++)
            if (g->a1[x] == a || g->a2[x] == a)
                for (int tr = 0; tr < T; tr++) buf[c++] = P(tr, x);
        at_most(&e, buf, c, (int)kcap[a]);
    }
    int r = ccadical_solve(e.s);
    bool sat = r == 10; /* 20: none; 0: the conflicts spent */
    if (sat) gsp__sat_parents(e.s, T, n, root, ne, g->head, par);
#undef P
#undef R
    ccadical_release(e.s);
    return sat;
}

/* Tree tr of the parent edges par into *T: edges breadth first, each edge's route its arcs. */
static gsp_err_t build_tree(const gsp_topo_t *t, const edges_t *g, const int64_t *par, int64_t root, int64_t N, gsp_tree_t *T, int64_t *queue) {
    int64_t n = t->n, E = N - 1, qh = 0, qt = 0, depth = 0, hdepth = 0, k = 0, h = 0;
    gsp_err_t err;
    int64_t *dep = queue + n, *hdep = queue + 2 * n;
    if ((err = gsp_alloc_array((void **)&T->from, E + 1, sizeof *T->from, false)) || (err = gsp_alloc_array((void **)&T->to, E + 1, sizeof *T->to, false)) ||
        (err = gsp_alloc_array((void **)&T->hop_off, E + 1, sizeof *T->hop_off, false)) ||
        (err = gsp_alloc_array((void **)&T->hops, 2 * E + 1, sizeof *T->hops, false)))
        return err;
    queue[qt++] = root;
    dep[root] = hdep[root] = 0;
    while (qh < qt) {
        int64_t u = queue[qh++];
        for (int64_t v = 0; v < n; v++) {
            int64_t x = par[v];
            if (x < 0 || g->tail[x] != u || k >= E) continue;
            T->from[k] = u, T->to[k] = v, T->hop_off[k] = h;
            T->hops[h++] = g->a1[x];
            if (g->a2[x] >= 0) T->hops[h++] = g->a2[x];
            k++;
            dep[v] = dep[u] + 1;
            hdep[v] = hdep[u] + (g->a2[x] >= 0 ? 2 : 1);
            if (dep[v] > depth) depth = dep[v];
            if (hdep[v] > hdepth) hdepth = hdep[v];
            queue[qt++] = v;
        }
    }
    T->hop_off[k] = h;
    T->nedges = k;
    T->depth = depth;
    T->hop_depth = hdepth;
    if (k != E) return gsp_error(GSP_ERR_INTERNAL, "fabric trees: a switched SAT tree spans %lld of %lld edges", (long long)k, (long long)E);
    return GSP_OK;
}

/* The boxes past the cut: comp[x] the box of compute node x off the cut (its weak component by
 * direct links, numbered from the lowest node; -1 elsewhere), pos[x] its place in its box by
 * index, memb[c sz + i] box c's i-th node. Each box must be strongly linked, every direct link
 * from it stay in it, and every box be box 0's copy in index order (the same links and
 * capacities, to the same switches): false where not. */
static bool boxes(const gsp_topo_t *t, const uint8_t *in, int64_t *comp, int64_t *pos, int64_t **memb, int64_t *nbox, int64_t *sz, int64_t *queue) {
    int64_t n = t->n, nb = 0, size = -1;
    for (int64_t x = 0; x < n; x++) comp[x] = -1;
    for (int64_t f = 0; f < n; f++) {
        if (in[f] || t->is_switch[f] || comp[f] >= 0) continue;
        int64_t qh = 0, qt = 0;
        comp[f] = nb, queue[qt++] = f;
        while (qh < qt) {
            int64_t u = queue[qh++];
            for (int64_t x = 0; x < n; x++) {
                if (comp[x] >= 0 || in[x] || t->is_switch[x]) continue;
                bool linked = gsp__arc(t, u, x) >= 0 || gsp__arc(t, x, u) >= 0;
                if (linked) comp[x] = nb, queue[qt++] = x;
            }
        }
        if (size >= 0 && qt != size) return false;
        size = qt;
        /* Strongly linked: every node of the box reached from f each way. */
        for (int dir = 0; dir < 2; dir++) {
            int64_t h2 = 0, t2 = 0;
            for (int64_t x = 0; x < n; x++) pos[x] = 0;
            pos[f] = 1, queue[t2++] = f;
            while (h2 < t2) {
                int64_t u = queue[h2++];
                for (int64_t x = 0; x < n; x++)
                    if (!pos[x] && comp[x] == nb && gsp__arc(t, dir ? x : u, dir ? u : x) >= 0) pos[x] = 1, queue[t2++] = x;
            }
            if (t2 != size) return false;
        }
        nb++;
    }
    if (nb < 1) return false;
    int64_t *m = gsp_malloc((size_t)(nb * size) * sizeof *m);
    if (!m) return false;
    int64_t *fill = queue;
    for (int64_t c = 0; c < nb; c++) fill[c] = 0;
    for (int64_t x = 0; x < n; x++)
        if (comp[x] >= 0) pos[x] = fill[comp[x]], m[comp[x] * size + fill[comp[x]]++] = x;
    for (int64_t c = 0; c < nb && nb > 1; c++)
        for (int64_t i = 0; i < size; i++) {
            int64_t u = m[i], w = m[c * size + i];
            if (t->off[u + 1] - t->off[u] != t->off[w + 1] - t->off[w]) goto no;
            for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
                int64_t h = t->adj[a], h2, a2;
                if (t->is_switch[h]) h2 = h;
                else if (comp[h] == 0) h2 = m[c * size + pos[h]];
                else goto no; /* a direct link out of the box */
                if ((a2 = gsp__arc(t, w, h2)) < 0 || (t->cap && t->cap[a2] != t->cap[a])) goto no;
                if (t->is_switch[h]) {
                    int64_t r1 = gsp__arc(t, h, u), r2 = gsp__arc(t, h, w);
                    if ((r1 < 0) != (r2 < 0) || (r1 >= 0 && t->cap && t->cap[r1] != t->cap[r2])) goto no;
                }
            }
        }
    *memb = m, *nbox = nb, *sz = size;
    return true;
no:
    gsp_free(m);
    return false;
}

/* The tree edge from u to v, direct (sw < 0) or through switch sw, among g's edges from the
 * first-th on; -1 if none. */
static int64_t edge_find(const gsp_topo_t *t, const edges_t *g, int64_t first, int64_t u, int64_t v, int64_t sw) {
    for (int64_t x = first; x < g->ne; x++)
        if (g->tail[x] == u && g->head[x] == v && (sw < 0 ? g->a2[x] < 0 : g->a2[x] >= 0 && t->adj[g->a1[x]] == sw)) return x;
    return -1;
}

gsp_err_t gsp__forest_sat_switched(const gsp_topo_t *t, int64_t root, gsp_forest_t *out) {
    memset(out, 0, sizeof *out);
    int64_t n = t->n, m = t->off[n], N = gsp_topo_compute_count(t);
    if (!t->is_switch || N > GSP__SAT_SWITCHED_ALL || root < 0 || root >= n || t->is_switch[root])
        return gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: not a fabric with switches of at most %d compute nodes", GSP__SAT_SWITCHED_ALL);
    bool any = false;
    int64_t slowest = 0;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            int64_t c = t->cap ? t->cap[a] : 1;
            if (a == 0 || c < slowest) slowest = c;
            if (t->is_switch[x]) any = true;
            if (t->is_switch[x] && t->is_switch[t->adj[a]])
                return gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: switches linked to switches");
        }
    if (!any || slowest < 1) return gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: no switch");
    gsp_optimum_t opt = {0};
    gsp_err_t err = gsp_optimum(t, GSP_COLL_BROADCAST, root, &opt);
    if (err) return err;
    /* T = algbw / slowest, in the capacities' integer unit: num scale / (den slowest). */
    __int128 tn = (__int128)opt.num * (t->cap_scale > 0 ? t->cap_scale : 1), td = (__int128)opt.den * slowest;
    int64_t T = td > 0 && tn % td == 0 ? (int64_t)(tn / td) : 0;
    edges_t g = {0};
    int64_t *kcap = NULL, *dist = NULL, *par = NULL, *queue = NULL, *cutarc = NULL, *comp = NULL, *pos = NULL, *memb = NULL, nbox = 0, bsz = 0;
    int *buf = NULL;
    uint8_t *in = NULL, *excl = NULL;
    if (T < 2 || T > GSP__SAT_SWITCHED_TREES) {
        gsp_optimum_destroy(&opt);
        return gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: the optimum is not 2 to %d times the slowest link", GSP__SAT_SWITCHED_TREES);
    }
    if ((err = gsp_alloc_array((void **)&kcap, m + 1, sizeof *kcap, false)) || (err = gsp_alloc_array((void **)&cutarc, m + 1, sizeof *cutarc, false)) ||
        (err = gsp_alloc_array((void **)&in, n + 1, 1, true)) || (err = gsp_alloc_array((void **)&excl, n + 1, 1, true)) ||
        (err = gsp_alloc_array((void **)&dist, n + 1, sizeof *dist, false)) || (err = gsp_alloc_array((void **)&par, T * n, sizeof *par, false)) ||
        (err = gsp_alloc_array((void **)&comp, n + 1, sizeof *comp, false)) || (err = gsp_alloc_array((void **)&pos, n + 1, sizeof *pos, false)) ||
        (err = gsp_alloc_array((void **)&queue, 3 * n, sizeof *queue, false)))
        goto done;
    for (int64_t a = 0; a < m; a++) kcap[a] = (t->cap ? t->cap[a] : 1) / slowest;
    /* The binding cut's arcs, numbered, where each carries one tree edge and they carry T. */
    int64_t ncut = 0;
    for (int64_t i = 0; i < opt.cut_len; i++) in[opt.cut[i]] = 1;
    bool via_switch = true;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            cutarc[a] = -1;
            if (in[x] && !in[t->adj[a]]) {
                cutarc[a] = kcap[a] == 1 ? ncut++ : INT64_MAX / 2;
                via_switch = via_switch && t->is_switch[t->adj[a]];
            }
        }
    bool breaks = ncut == T;
    for (int64_t a = 0; a < m && breaks; a++) breaks = cutarc[a] < T;
    /* Past the cut each tree then enters once, so the compute nodes there must be joined by
     * direct links (both ways from one of them); elsewhere the SAT instances were out of the
     * solver's reach (mi250:2 without the cut's order: none within 1 million conflicts). Where
     * they are several boxes, copies of one, joined only through the switches (mi250:4: three
     * past the root's box), the solver sees the first and the rest are its copies (see the top),
     * so the cut's arcs must lead to a switch. */
    if (breaks) breaks = boxes(t, in, comp, pos, &memb, &nbox, &bsz, queue) && (nbox == 1 || via_switch);
    if (!breaks) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: the binding cut is not %lld single-tree links into boxes of linked compute nodes", (long long)T);
        goto done;
    }
    int64_t nsolve = 0;
    for (int64_t x = 0; x < n; x++) {
        excl[x] = comp[x] > 0;
        nsolve += !t->is_switch[x] && !excl[x];
    }
    if (nsolve > GSP__SAT_SWITCHED_NODES) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: more than %d compute nodes before the copies", GSP__SAT_SWITCHED_NODES);
        goto done;
    }
    if ((err = edges_build(t, excl, &g)) || (err = gsp_alloc_array((void **)&buf, (g.nsat + 1) * T, sizeof *buf, false))) goto done;
    /* Distances over the tree edges from the root: the least depth any tree can have. */
    int64_t qh = 0, qt = 0, far = 0;
    for (int64_t v = 0; v < n; v++) dist[v] = INT64_MAX;
    dist[root] = 0;
    queue[qt++] = root;
    while (qh < qt) {
        int64_t u = queue[qh++];
        for (int64_t x = 0; x < g.nsat; x++)
            if (g.tail[x] == u && dist[g.head[x]] == INT64_MAX) dist[g.head[x]] = dist[u] + 1, queue[qt++] = g.head[x];
    }
    for (int64_t v = 0; v < n; v++)
        if (!t->is_switch[v] && !excl[v]) {
            if (dist[v] == INT64_MAX) {
                err = gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: a compute node out of reach");
                goto done;
            }
            if (dist[v] + (comp[v] == 0 ? nbox - 1 : 0) > far) far = dist[v] + (comp[v] == 0 ? nbox - 1 : 0);
        }
    int64_t D = far > 1 ? far : 1, found = 0;
    for (; D <= far + GSP__SAT_SWITCHED_SLACK && !found; D++)
        if (solve(t, &g, excl, comp, nbox - 1, root, (int)T, kcap, dist, cutarc, D, par, buf)) found = D;
    if (!found) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: none found within %d levels", (int)(far + GSP__SAT_SWITCHED_SLACK));
        goto done;
    }
    /* The copies: box c's node i takes in tree tr the edge its counterpart in box 0 takes, the
     * crossing into box 0's node i becoming the route from box c - 1's node i through the same
     * switch (a chain of boxes, each tree entering each once). */
    for (int64_t c = 1; c < nbox && !err; c++)
        for (int64_t tr = 0; tr < T && !err; tr++)
            for (int64_t i = 0; i < bsz && !err; i++) {
                int64_t u = memb[i], x = par[tr * n + u], w = memb[c * bsz + i], y;
                if (x < 0) {
                    err = gsp_error(GSP_ERR_INTERNAL, "switched SAT trees: a node without a parent");
                    break;
                }
                if (g.a2[x] < 0) y = edge_find(t, &g, g.nsat, memb[c * bsz + pos[g.tail[x]]], w, -1);
                else y = edge_find(t, &g, g.nsat, memb[(c - 1) * bsz + i], w, t->adj[g.a1[x]]);
                if (y < 0) err = gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: a box's copy lacks a route");
                par[tr * n + w] = y;
            }
    if (err) goto done;
    out->collective = GSP_COLL_BROADCAST;
    out->root = root;
    out->share = T;
    if ((err = gsp_alloc_array((void **)&out->trees, T, sizeof *out->trees, true))) goto done;
    out->ntrees = T;
    for (int64_t i = 0; i < T && !err; i++) {
        out->trees[i].root = root;
        out->trees[i].mult = 1;
        err = build_tree(t, &g, par + i * n, root, N, &out->trees[i], queue);
        if (out->trees[i].depth > out->depth) out->depth = out->trees[i].depth;
        if (out->trees[i].hop_depth > out->hop_depth) out->hop_depth = out->trees[i].hop_depth;
    }
    if (err || (err = gsp__forest_fit(t, out)) || (err = gsp_forest_algbw(t, out, &out->num, &out->den))) goto done;
    out->value = (double)out->num / (double)out->den;
    /* Recounted, the optimum: T trees at the slowest link's rate each. */
    if ((__int128)out->num * (t->cap_scale > 0 ? t->cap_scale : 1) != (__int128)T * slowest * out->den)
        err = gsp_error(nbox > 1 ? GSP_ERR_NOTAPPLIC : GSP_ERR_INTERNAL, "switched SAT trees: the trees reach %lld/%lld", (long long)out->num, (long long)out->den);
done:
    if (err) gsp_forest_destroy(out);
    gsp_optimum_destroy(&opt);
    edges_free(&g);
    gsp_free(cutarc);
    gsp_free(in);
    gsp_free(kcap);
    gsp_free(dist);
    gsp_free(par);
    gsp_free(queue);
    gsp_free(buf);
    gsp_free(excl);
    gsp_free(comp);
    gsp_free(pos);
    gsp_free(memb);
    return err;
}
