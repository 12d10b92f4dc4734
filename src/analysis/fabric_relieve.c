/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_relieve.c — the same throughput with fewer arcs at their limit (after the packing and
 * its reshaping). An optimal packing loads the binding cut's arcs to their capacity; it may load
 * others there too where it need not: dgx:8x2's broadcast as packed (every GPU receives 200
 * units) loads the root's 300 GB/s link into the NVSwitch with 300 (trees whose root feeds all
 * seven box-mates itself), as full as the NICs that bind, where trees that return the root's own
 * NIC share over the other box's NICs load it with 175. Under a network that shares a link among
 * the messages on it (SimGrid's max-min model, a real switch's arbitration) a second arc at its
 * limit is a second bottleneck: every stall of the pipeline on it costs the whole collective.
 * Relieved, that link carries 198 and the broadcast took 405.6 us under SimGrid SMPI (factors at
 * 1, 64 MiB) where the same trees unrelieved took 408.8 (bench/README.md). The relief cannot make
 * trees shallower where every arc into a node is full (mi250:2: a node's only other way in is the
 * same arc from the same parent), which is why it keeps the depth rather than lowering it.
 *
 * The forest is cut into unit trees (a tree of multiplicity m: m trees of one unit each); then,
 * in sweeps, each unit tree's compute node y moves under another parent q (not below y, the
 * tree no deeper than the forest was, the route q -> y the widest of the fewest hops through
 * switches) where that lowers sum over arcs of ((L(a) + RELIEVE_ACK L(a')) / (K cap(a)))^RELIEVE_POWER,
 * a' the reverse of arc a, K the largest load over capacity before: every arc's load L(a) stays
 * within K cap(a), so the algbw never falls (for an
 * optimal forest it stays the optimum), and the high power makes the search lower the most
 * loaded arcs first (near a lexicographic min-max of the loads). The unit trees are merged back
 * where equal. Reduce-scatter's in-trees move the same way with data child -> parent.
 *
 * Cost per sweep O(U N^2 r) for U units, N compute nodes and routes of r arcs; at most
 * RELIEVE_SWEEPS sweeps; forests of more than RELIEVE_MAX_UNITS units, or whose sweep or units
 * would be too large (below), are left as they are.
 * Deterministic (fixed order, ties to the first), so every rank computes the same trees. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"

#define RELIEVE_POWER 8
#define RELIEVE_SWEEPS 16
#define RELIEVE_MAX_UNITS 4096
/* The share of an arc's load counted on its reverse: a link's other direction carries its
 * acknowledgements (InfiniBand's link-level ACKs and credits; SimGrid's default model charges a
 * flow's reverse route too). Without it, dgx:8x2's relieved broadcast sent 7/8 of the root's NIC
 * share back into box 0 over box 1's NICs (11 of 25 GB/s on each), the reverse of the 16 NIC arcs
 * every optimal broadcast fills: 405.6 us under SimGrid SMPI (factors at 1, 64 MiB); with it that
 * share is relayed inside box 0 and those arcs carry nothing back: 400.4 us. 0.05 and 0.2 give
 * the same (no load against a full arc); 1 keeps some. */
#define RELIEVE_ACK 0.05

static bool is_sw(const gsp_topo_t *t, int64_t x) { return t->is_switch && t->is_switch[x]; }
static int64_t capi(const gsp_topo_t *t, int64_t a) { return t->cap ? t->cap[a] : 1; }

typedef struct {
    const gsp_topo_t *t;
    int64_t n, N, U;
    bool rev;
    int64_t *cidx;            /* vertex -> compute index, -1 for a switch */
    int64_t *pool, npool, room; /* routes' arcs: the forest's, then the table's */
    int64_t *tab_s, *tab_l;   /* N x N: the route from compute i to compute j in data order */
    int64_t *root, *par, *rs, *rl, *dep, *ht; /* per unit (and vertex) */
    int64_t *load;            /* per arc, in units */
    double *inv;              /* per arc: 1 / (K cap(a)) */
    int64_t LM, CM;           /* K = LM / CM: every arc's load L satisfies L CM <= LM cap */
    int64_t *back;            /* per arc: its reverse arc (-1: none) */
    double ack;               /* the share of an arc's load its reverse carries back */
    int64_t *kids_off, *kids, *order;
} relieve_t;

static double termd(const relieve_t *R, int64_t a, double L) {
    double x = L * R->inv[a];
    double x2 = x * x, x4 = x2 * x2;
    return x4 * x4; /* RELIEVE_POWER */
}

/* The objective's change if arc a's load moved by d (its own term and its reverse's, each
 * arc's load counted with the ack share of its reverse's). */
static double delta(const relieve_t *R, int64_t a, int64_t d) {
    int64_t r = R->back[a];
    double La = (double)R->load[a], Lr = r >= 0 ? (double)R->load[r] : 0;
    double c = termd(R, a, La + d + R->ack * Lr) - termd(R, a, La + R->ack * Lr);
    if (r >= 0) c += termd(R, r, Lr + R->ack * (La + d)) - termd(R, r, Lr + R->ack * La);
    return c;
}

/* Depth and subtree height of every node of unit u. */
static void shape(relieve_t *R, int64_t u) {
    int64_t n = R->n, *par = R->par + u * n, *dep = R->dep + u * n, *ht = R->ht + u * n;
    memset(R->kids_off, 0, (size_t)(n + 2) * sizeof *R->kids_off);
    for (int64_t v = 0; v < n; v++)
        if (par[v] >= 0) R->kids_off[par[v] + 2]++;
    for (int64_t v = 0; v < n; v++) R->kids_off[v + 2] += R->kids_off[v + 1];
    for (int64_t v = 0; v < n; v++)
        if (par[v] >= 0) R->kids[R->kids_off[par[v] + 1]++] = v;
    int64_t head = 0, tail = 0, r = R->root[u];
    R->order[tail++] = r;
    dep[r] = 0;
    while (head < tail) {
        int64_t x = R->order[head++];
        for (int64_t k = R->kids_off[x]; k < R->kids_off[x + 1]; k++) {
            dep[R->kids[k]] = dep[x] + 1;
            R->order[tail++] = R->kids[k];
        }
    }
    for (int64_t i = tail - 1; i >= 0; i--) {
        int64_t x = R->order[i], h = 0;
        for (int64_t k = R->kids_off[x]; k < R->kids_off[x + 1]; k++)
            if (ht[R->kids[k]] + 1 > h) h = ht[R->kids[k]] + 1;
        ht[x] = h;
    }
}

/* The route table: from each compute node, the fewest hops through switches only to every
 * other compute node, the widest among them (a layered search: bottleneck by layers). */
static gsp_err_t routes(relieve_t *R) {
    const gsp_topo_t *t = R->t;
    int64_t n = R->n, N = R->N, *hop = NULL, *bott = NULL, *pred = NULL, *q = NULL, *tail = NULL;
    gsp_err_t err;
    if ((err = gsp_alloc_array((void **)&hop, n, sizeof *hop, false)) || (err = gsp_alloc_array((void **)&bott, n, sizeof *bott, false)) ||
        (err = gsp_alloc_array((void **)&pred, n, sizeof *pred, false)) || (err = gsp_alloc_array((void **)&q, n, sizeof *q, false)) ||
        (err = gsp_alloc_array((void **)&tail, t->m + 1, sizeof *tail, false)))
        goto done;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) tail[a] = x;
    for (int64_t s = 0; s < n; s++) {
        if (R->cidx[s] < 0) continue;
        for (int64_t x = 0; x < n; x++) hop[x] = -1, bott[x] = 0, pred[x] = -1;
        int64_t head = 0, qt = 0;
        hop[s] = 0;
        bott[s] = INT64_MAX;
        q[qt++] = s;
        while (head < qt) {
            int64_t x = q[head++];
            if (x != s && !is_sw(t, x)) continue; /* routes pass through switches only */
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
                int64_t y = t->adj[a], b = bott[x] < capi(t, a) ? bott[x] : capi(t, a);
                if (hop[y] < 0) hop[y] = hop[x] + 1, q[qt++] = y;
                if (hop[y] == hop[x] + 1 && b > bott[y]) bott[y] = b, pred[y] = a;
            }
        }
        for (int64_t y = 0; y < n; y++) {
            int64_t i = R->cidx[s], j = R->cidx[y];
            if (j < 0 || y == s) continue;
            /* data order: s -> y for out-trees; stored at [i][j] either way */
            R->tab_s[i * N + j] = R->npool;
            R->tab_l[i * N + j] = hop[y] > 0 ? hop[y] : 0;
            if (hop[y] <= 0) continue;
            while (R->npool + hop[y] > R->room) {
                int64_t room = 2 * R->room;
                int64_t *p = gsp_realloc(R->pool, (size_t)room * sizeof *p);
                if (!p) {
                    err = gsp_error(GSP_ERR_NOMEM, "fabric trees: routes of %lld arcs", (long long)room);
                    goto done;
                }
                R->pool = p;
                R->room = room;
            }
            for (int64_t z = y, k = hop[y] - 1; z != s; z = tail[pred[z]], k--) R->pool[R->npool + k] = pred[z];
            R->npool += hop[y];
        }
    }
done:
    gsp_free(hop);
    gsp_free(bott);
    gsp_free(pred);
    gsp_free(q);
    gsp_free(tail);
    return err;
}

/* Whether q lies in y's subtree in unit u (walk q's ancestors). */
static bool below(const relieve_t *R, int64_t u, int64_t q, int64_t y) {
    const int64_t *par = R->par + u * R->n;
    for (int64_t z = q; z >= 0; z = par[z])
        if (z == y) return true;
    return false;
}

/* Unit trees' signatures for merging: a hash of root, parents and routes. */
static uint64_t unit_hash(const relieve_t *R, int64_t u) {
    uint64_t h = 1469598103934665603ull ^ (uint64_t)R->root[u];
    for (int64_t v = 0; v < R->n; v++) {
        h = (h ^ (uint64_t)(R->par[u * R->n + v] + 2)) * 1099511628211ull;
        for (int64_t k = 0; k < R->rl[u * R->n + v]; k++) h = (h ^ (uint64_t)R->pool[R->rs[u * R->n + v] + k]) * 1099511628211ull;
    }
    return h;
}

static bool unit_equal(const relieve_t *R, int64_t u, int64_t w) {
    int64_t n = R->n;
    if (R->root[u] != R->root[w]) return false;
    for (int64_t v = 0; v < n; v++) {
        if (R->par[u * n + v] != R->par[w * n + v] || R->rl[u * n + v] != R->rl[w * n + v]) return false;
        if (memcmp(R->pool + R->rs[u * n + v], R->pool + R->rs[w * n + v], (size_t)R->rl[u * n + v] * sizeof *R->pool)) return false;
    }
    return true;
}

typedef struct {
    uint64_t h;
    int64_t u;
} sig_t;

static int cmp_sig(const void *a, const void *b) {
    const sig_t *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    return x->u < y->u ? -1 : x->u > y->u;
}

/* Writes the unit trees back into f, equal ones merged (first appearance order). */
static gsp_err_t write_back(relieve_t *R, gsp_forest_t *f) {
    int64_t n = R->n, U = R->U, ng = 0, *grp = NULL, *cnt = NULL, *first = NULL;
    sig_t *sg = NULL;
    gsp_tree_t *nt = NULL;
    gsp_err_t err;
    if ((err = gsp_alloc_array((void **)&sg, U, sizeof *sg, false)) || (err = gsp_alloc_array((void **)&grp, U, sizeof *grp, false)) ||
        (err = gsp_alloc_array((void **)&cnt, U, sizeof *cnt, true)) || (err = gsp_alloc_array((void **)&first, U, sizeof *first, false)))
        goto done;
    for (int64_t u = 0; u < U; u++) sg[u].h = unit_hash(R, u), sg[u].u = u, grp[u] = -1;
    qsort(sg, (size_t)U, sizeof *sg, cmp_sig);
    /* Within equal hashes, each unit joins the first equal one before it (its representative). */
    for (int64_t i = 0; i < U; i++) {
        int64_t u = sg[i].u;
        grp[u] = -2 - u; /* a representative (numbered below) unless an equal one came first */
        for (int64_t j = i - 1; j >= 0 && sg[j].h == sg[i].h; j--)
            if (unit_equal(R, u, sg[j].u)) {
                grp[u] = grp[sg[j].u];
                break;
            }
    }
    for (int64_t u = 0; u < U; u++)
        if (grp[u] == -2 - u) first[ng] = u, grp[u] = ng++;
    for (int64_t i = 0; i < U; i++) { /* members point at their representative's unit */
        int64_t u = sg[i].u;
        if (grp[u] < -1) grp[u] = grp[-2 - grp[u]];
    }
    for (int64_t u = 0; u < U; u++) cnt[grp[u]]++;
    if ((err = gsp_alloc_array((void **)&nt, ng, sizeof *nt, true))) goto done;
    int64_t nedges = R->N - 1, depth = 0, hdepth = 0;
    int64_t *hd = R->order; /* n entries */
    for (int64_t g = 0; g < ng; g++) {
        int64_t u = first[g], *par = R->par + u * n, *dep = R->dep + u * n, len = 0, k = 0, md = 0;
        gsp_tree_t *T = &nt[g];
        shape(R, u);
        for (int64_t v = 0; v < n; v++)
            if (par[v] >= 0) len += R->rl[u * n + v], md = dep[v] > md ? dep[v] : md;
        if ((err = gsp_alloc_array((void **)&T->from, nedges + 1, sizeof *T->from, false)) ||
            (err = gsp_alloc_array((void **)&T->to, nedges + 1, sizeof *T->to, false)) ||
            (err = gsp_alloc_array((void **)&T->hop_off, nedges + 2, sizeof *T->hop_off, false)) ||
            (err = gsp_alloc_array((void **)&T->hops, len + 1, sizeof *T->hops, false))) {
            ng = g + 1;
            goto done;
        }
        T->root = R->root[u];
        T->mult = cnt[g];
        T->nedges = nedges;
        T->depth = md;
        for (int64_t v = 0; v < n; v++) hd[v] = 0;
        len = 0;
        for (int64_t L = 1; L <= md; L++)
            for (int64_t v = 0; v < n; v++) {
                if (par[v] < 0 || dep[v] != L) continue;
                T->from[k] = par[v];
                T->to[k] = v;
                T->hop_off[k] = len;
                memcpy(T->hops + len, R->pool + R->rs[u * n + v], (size_t)R->rl[u * n + v] * sizeof *T->hops);
                len += R->rl[u * n + v];
                hd[v] = hd[par[v]] + R->rl[u * n + v];
                if (hd[v] > T->hop_depth) T->hop_depth = hd[v];
                k++;
            }
        T->hop_off[k] = len;
        if (k != nedges) {
            err = gsp_error(GSP_ERR_INTERNAL, "fabric trees: a relieved tree spans %lld of %lld edges", (long long)k, (long long)nedges);
            ng = g + 1;
            goto done;
        }
        if (md > depth) depth = md;
        if (T->hop_depth > hdepth) hdepth = T->hop_depth;
    }
    gsp_forest_destroy(f); /* the old trees; f keeps its other fields */
    f->trees = nt;
    f->ntrees = ng;
    f->depth = depth;
    f->hop_depth = hdepth;
    nt = NULL;
done:
    gsp__trees_destroy(nt, ng); /* the new trees, on an error */
    gsp_free(sg);
    gsp_free(grp);
    gsp_free(cnt);
    gsp_free(first);
    return err;
}

gsp_err_t gsp__forest_relieve(const gsp_topo_t *t, gsp_forest_t *f, int64_t *moves) {
    relieve_t R;
    gsp_err_t err = GSP_OK;
    int64_t n = t->n, U = 0, nhops = 0, nmoves = 0;
    memset(&R, 0, sizeof R);
    if (moves) *moves = 0;
    for (int64_t i = 0; i < f->ntrees; i++) {
        if (f->trees[i].mult > RELIEVE_MAX_UNITS - U) return GSP_OK; /* too many units: as it is */
        U += f->trees[i].mult;
        nhops += f->trees[i].hop_off[f->trees[i].nedges];
    }
    if (U == 0) return GSP_OK;
    R.t = t, R.n = n, R.N = gsp_topo_compute_count(t), R.U = U, R.rev = f->reversed;
    int64_t N = R.N;
    /* A sweep prices U N^2 routes and the units hold U n entries six times: beyond about a
     * second a sweep (2^28) or 50 MB, the forest stays as it is (mi250:8's broadcast: U 256,
     * N 128, about a second with its packing). */
    if ((double)U * (double)N * (double)N > (double)(1 << 28) || (double)U * (double)n > (double)(1 << 20)) return GSP_OK;
    if ((err = gsp_alloc_array((void **)&R.cidx, n, sizeof *R.cidx, false))) goto done;
    for (int64_t x = 0, k = 0; x < n; x++) R.cidx[x] = is_sw(t, x) ? -1 : k++;
    R.room = nhops + 2 * N * N + 16; /* grown as the table needs */
    if ((err = gsp_alloc_array((void **)&R.pool, R.room, sizeof *R.pool, false)) ||
        (err = gsp_alloc_array((void **)&R.tab_s, N * N, sizeof *R.tab_s, true)) ||
        (err = gsp_alloc_array((void **)&R.tab_l, N * N, sizeof *R.tab_l, true)) ||
        (err = gsp_alloc_array((void **)&R.root, U, sizeof *R.root, false)) ||
        (err = gsp_alloc_array((void **)&R.par, U * n, sizeof *R.par, false)) ||
        (err = gsp_alloc_array((void **)&R.rs, U * n, sizeof *R.rs, true)) ||
        (err = gsp_alloc_array((void **)&R.rl, U * n, sizeof *R.rl, true)) ||
        (err = gsp_alloc_array((void **)&R.dep, U * n, sizeof *R.dep, false)) ||
        (err = gsp_alloc_array((void **)&R.ht, U * n, sizeof *R.ht, false)) ||
        (err = gsp_alloc_array((void **)&R.load, t->m + 1, sizeof *R.load, true)) ||
        (err = gsp_alloc_array((void **)&R.inv, t->m + 1, sizeof *R.inv, false)) ||
        (err = gsp_alloc_array((void **)&R.back, t->m + 1, sizeof *R.back, false)) ||
        (err = gsp_alloc_array((void **)&R.kids_off, n + 2, sizeof *R.kids_off, false)) ||
        (err = gsp_alloc_array((void **)&R.kids, n + 1, sizeof *R.kids, false)) ||
        (err = gsp_alloc_array((void **)&R.order, n + 1, sizeof *R.order, false)))
        goto done;
    /* The forest's routes into the pool, then its trees as units. */
    for (int64_t i = 0, u = 0; i < f->ntrees; i++) {
        const gsp_tree_t *T = &f->trees[i];
        int64_t base = R.npool;
        memcpy(R.pool + base, T->hops, (size_t)T->hop_off[T->nedges] * sizeof *R.pool);
        R.npool += T->hop_off[T->nedges];
        for (int64_t m = 0; m < T->mult; m++, u++) {
            R.root[u] = T->root;
            for (int64_t v = 0; v < n; v++) R.par[u * n + v] = -1;
            for (int64_t e = 0; e < T->nedges; e++) {
                int64_t v = T->to[e];
                R.par[u * n + v] = T->from[e];
                R.rs[u * n + v] = base + T->hop_off[e];
                R.rl[u * n + v] = T->hop_off[e + 1] - T->hop_off[e];
            }
            for (int64_t h = T->hop_off[0]; h < T->hop_off[T->nedges]; h++) R.load[T->hops[h]]++;
        }
    }
    if ((err = routes(&R))) goto done;
    R.ack = RELIEVE_ACK;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            int64_t y = t->adj[a];
            R.back[a] = -1;
            for (int64_t b = t->off[y]; b < t->off[y + 1] && R.back[a] < 0; b++)
                if (t->adj[b] == x) R.back[a] = b;
        }
    /* K = the largest load over capacity: LM / CM. */
    R.LM = 0, R.CM = 1;
    for (int64_t a = 0; a < t->m; a++)
        if ((gsp__i128)R.load[a] * R.CM > (gsp__i128)R.LM * capi(t, a)) R.LM = R.load[a], R.CM = capi(t, a);
    for (int64_t a = 0; a < t->m; a++) R.inv[a] = (double)R.CM / ((double)R.LM * (double)capi(t, a));
    int64_t dmax = f->depth;
    for (int64_t u = 0; u < U; u++) shape(&R, u);
    for (int sweep = 0; sweep < RELIEVE_SWEEPS; sweep++) {
        int64_t before = nmoves;
        for (int64_t u = 0; u < U; u++) {
            int64_t *par = R.par + u * n, *dep = R.dep + u * n, *ht = R.ht + u * n;
            for (int64_t y = 0; y < n; y++) {
                if (par[y] < 0) continue;
                /* Take y's route off, price every other parent's route, put the best on. */
                int64_t os = R.rs[u * n + y], ol = R.rl[u * n + y];
                double gain = 0;
                for (int64_t k = 0; k < ol; k++) {
                    int64_t a = R.pool[os + k];
                    gain -= delta(&R, a, -1);
                    R.load[a]--;
                }
                double best = 0;
                int64_t bq = -1;
                for (int64_t q = 0; q < n; q++) {
                    if (R.cidx[q] < 0 || q == y || q == par[y] || dep[q] + 1 + ht[y] > dmax || below(&R, u, q, y)) continue;
                    int64_t i = R.cidx[R.rev ? y : q], j = R.cidx[R.rev ? q : y];
                    int64_t s = R.tab_s[i * N + j], l = R.tab_l[i * N + j];
                    if (l == 0) continue;
                    double cost = 0;
                    bool ok = true;
                    for (int64_t k = 0; k < l && ok; k++) {
                        int64_t a = R.pool[s + k];
                        if ((gsp__i128)(R.load[a] + 1) * R.CM > (gsp__i128)R.LM * capi(t, a)) ok = false;
                        else cost += delta(&R, a, 1);
                    }
                    /* a strict improvement, by more than rounding */
                    if (ok && cost - gain < best - 1e-9 * (gain > 1 ? gain : 1)) best = cost - gain, bq = q;
                }
                if (bq >= 0) {
                    int64_t i = R.cidx[R.rev ? y : bq], j = R.cidx[R.rev ? bq : y];
                    par[y] = bq;
                    R.rs[u * n + y] = R.tab_s[i * N + j];
                    R.rl[u * n + y] = R.tab_l[i * N + j];
                    nmoves++;
                }
                for (int64_t k = 0; k < R.rl[u * n + y]; k++) R.load[R.pool[R.rs[u * n + y] + k]]++;
                if (bq >= 0) shape(&R, u);
            }
        }
        if (nmoves == before) break;
    }
    if (nmoves && (err = write_back(&R, f))) goto done;
    if (moves) *moves = nmoves;
done:
    gsp_free(R.cidx);
    gsp_free(R.pool);
    gsp_free(R.tab_s);
    gsp_free(R.tab_l);
    gsp_free(R.root);
    gsp_free(R.par);
    gsp_free(R.rs);
    gsp_free(R.rl);
    gsp_free(R.dep);
    gsp_free(R.ht);
    gsp_free(R.load);
    gsp_free(R.inv);
    gsp_free(R.back);
    gsp_free(R.kids_off);
    gsp_free(R.kids);
    gsp_free(R.order);
    return err;
}
