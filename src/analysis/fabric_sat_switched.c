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
 * the cut linked to each other (mi250:2's second box; not mi250:4's three boxes, nor a DGX box's
 * GPUs behind their NVSwitch: GSP_ERR_NOTAPPLIC). Without it mi250:2 got no answer within a
 * million conflicts at any depth up to 34; with it, 16 trees 9 deep in about 4 s. D goes up from
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
 * 2 <= T <= GSP__SAT_SWITCHED_TREES and the cut is as above; elsewhere GSP_ERR_NOTAPPLIC. */
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
    int64_t ne;
    int64_t *tail, *head, *a1, *a2; /* a2 = -1: direct */
} edges_t;

static void edges_free(edges_t *g) {
    gsp_free(g->tail);
    gsp_free(g->head);
    gsp_free(g->a1);
    gsp_free(g->a2);
}

static gsp_err_t edges_build(const gsp_topo_t *t, edges_t *g) {
    int64_t n = t->n, ne = 0;
    bool sw = t->is_switch != NULL;
    for (int pass = 0; pass < 2; pass++) {
        ne = 0;
        for (int64_t x = 0; x < n; x++) {
            if (sw && t->is_switch[x]) continue;
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
                int64_t s = t->adj[a];
                if (!(sw && t->is_switch[s])) {
                    if (pass) g->tail[ne] = x, g->head[ne] = s, g->a1[ne] = a, g->a2[ne] = -1;
                    ne++;
                    continue;
                }
                for (int64_t b = t->off[s]; b < t->off[s + 1]; b++) {
                    int64_t y = t->adj[b];
                    if (y == x || t->is_switch[y]) continue;
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
    return GSP_OK;
}

/* Solves depth D for T trees: par[tr n + v] the edge into v in tree tr (-1 at the root and at
 * switches). dist: each vertex's distance from the root over the edges (a lower bound). */
static bool solve(const gsp_topo_t *t, const edges_t *g, int64_t root, int T, const int64_t *kcap, const int64_t *dist, const int64_t *cutarc, int64_t D,
                  int64_t *par, int *buf) {
    int64_t n = t->n, ne = g->ne, m = t->off[n];
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
            /* Not reached within k edges where the graph's own distance says so. */
            for (int64_t k = 0; k <= D && k < dist[v]; k++) clause(&e, -R(tr, v, k), 0, 0);
            if (!t->is_switch || !t->is_switch[v]) clause(&e, R(tr, v, D), 0, 0);
        }
        /* One parent edge each compute node but the root. */
        for (int64_t v = 0; v < n; v++) {
            if (v == root || (t->is_switch && t->is_switch[v])) continue;
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

gsp_err_t gsp__forest_sat_switched(const gsp_topo_t *t, int64_t root, gsp_forest_t *out) {
    memset(out, 0, sizeof *out);
    int64_t n = t->n, m = t->off[n], N = gsp_topo_compute_count(t);
    if (!t->is_switch || N > GSP__SAT_SWITCHED_NODES || root < 0 || root >= n || t->is_switch[root])
        return gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: not a fabric with switches of at most %d compute nodes", GSP__SAT_SWITCHED_NODES);
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
    int64_t *kcap = NULL, *dist = NULL, *par = NULL, *queue = NULL, *cutarc = NULL;
    int *buf = NULL;
    uint8_t *in = NULL;
    if (T < 2 || T > GSP__SAT_SWITCHED_TREES) {
        gsp_optimum_destroy(&opt);
        return gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: the optimum is not 2 to %d times the slowest link", GSP__SAT_SWITCHED_TREES);
    }
    if ((err = edges_build(t, &g)) || (err = gsp_alloc_array((void **)&kcap, m + 1, sizeof *kcap, false)) ||
        (err = gsp_alloc_array((void **)&cutarc, m + 1, sizeof *cutarc, false)) || (err = gsp_alloc_array((void **)&in, n + 1, 1, true)) ||
        (err = gsp_alloc_array((void **)&dist, n + 1, sizeof *dist, false)) || (err = gsp_alloc_array((void **)&par, T * n, sizeof *par, false)) ||
        (err = gsp_alloc_array((void **)&queue, 3 * n, sizeof *queue, false)) ||
        (err = gsp_alloc_array((void **)&buf, (g.ne + 1) * T, sizeof *buf, false)))
        goto done;
    for (int64_t a = 0; a < m; a++) kcap[a] = (t->cap ? t->cap[a] : 1) / slowest;
    /* The binding cut's arcs, numbered, where each carries one tree edge and they carry T. */
    int64_t ncut = 0;
    for (int64_t i = 0; i < opt.cut_len; i++) in[opt.cut[i]] = 1;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            cutarc[a] = -1;
            if (in[x] && !in[t->adj[a]]) cutarc[a] = kcap[a] == 1 ? ncut++ : INT64_MAX / 2;
        }
    bool breaks = ncut == T;
    for (int64_t a = 0; a < m && breaks; a++) breaks = cutarc[a] < T;
    /* Past the cut each tree then enters once, so the compute nodes there must be joined by
     * direct links (both ways from one of them); elsewhere the SAT instances were out of the
     * solver's reach (mi250:2 without the cut's order: none within 1 million conflicts). */
    for (int dir = 0; dir < 2 && breaks; dir++) {
        int64_t first = -1, qh2 = 0, qt2 = 0;
        for (int64_t x = 0; x < n && first < 0; x++)
            if (!in[x] && !t->is_switch[x]) first = x;
        if (first < 0) {
            breaks = false;
            break;
        }
        for (int64_t x = 0; x < n; x++) dist[x] = 0;
        dist[first] = 1;
        queue[qt2++] = first;
        while (qh2 < qt2) {
            int64_t u = queue[qh2++];
            for (int64_t x = 0; x < n; x++) {
                if (dist[x] || in[x] || t->is_switch[x]) continue;
                bool linked = false;
                for (int64_t a = t->off[dir ? x : u]; a < t->off[(dir ? x : u) + 1] && !linked; a++) linked = t->adj[a] == (dir ? u : x);
                if (linked) dist[x] = 1, queue[qt2++] = x;
            }
        }
        for (int64_t x = 0; x < n && breaks; x++)
            if (!in[x] && !t->is_switch[x] && !dist[x]) breaks = false;
    }
    if (!breaks) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: the binding cut is not %lld single-tree links into linked compute nodes", (long long)T);
        goto done;
    }
    /* Distances over the tree edges from the root: the least depth any tree can have. */
    int64_t qh = 0, qt = 0, far = 0;
    for (int64_t v = 0; v < n; v++) dist[v] = INT64_MAX;
    dist[root] = 0;
    queue[qt++] = root;
    while (qh < qt) {
        int64_t u = queue[qh++];
        for (int64_t x = 0; x < g.ne; x++)
            if (g.tail[x] == u && dist[g.head[x]] == INT64_MAX) dist[g.head[x]] = dist[u] + 1, queue[qt++] = g.head[x];
    }
    for (int64_t v = 0; v < n; v++)
        if (!t->is_switch[v]) {
            if (dist[v] == INT64_MAX) {
                err = gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: a compute node out of reach");
                goto done;
            }
            if (dist[v] > far) far = dist[v];
        }
    int64_t D = far > 1 ? far : 1, found = 0;
    for (; D <= far + GSP__SAT_SWITCHED_SLACK && !found; D++)
        if (solve(t, &g, root, (int)T, kcap, dist, cutarc, D, par, buf)) found = D;
    if (!found) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "switched SAT trees: none found within %d levels", (int)(far + GSP__SAT_SWITCHED_SLACK));
        goto done;
    }
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
        err = gsp_error(GSP_ERR_INTERNAL, "switched SAT trees: the trees reach %lld/%lld", (long long)out->num, (long long)out->den);
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
    return err;
}
