/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bounds.c — lower bounds on rounds, each with its name and source.
 *  - diameter: a packet moves one arc per round (all collectives; Prop. 6 of the packet-gossip
 *    paper for gossip, Problem A of the global-sum paper for sums);
 *  - degree: the node that must hear from everyone receives at most p packets per in-arc and
 *    round (Prop. 7–8 of the packet-gossip paper): ceil((N - 1) / (delta_in p));
 *  - layered: within j rounds a node can only have heard from its ball B_j, and afterwards
 *    delta p per round: T >= j + ceil((N - |B_j|) / (delta p)) for every j <= D. With the
 *    circulant maxima L*_{n,i} in place of the graph's own layers this is Prop. 3 of the
 *    circulant paper, whose closed forms for degree 4 and 6 are Prop. 4 and Prop. 6;
 *  - cut: the |S| packets of a node set S must cross the arcs out of S, p per arc and round;
 *  - one-port: ceil(log2 N) for broadcast and sums, ceil((N - 1) / p) for gossip. */
#include <math.h>
#include <string.h>

#include "gossip/bounds.h"

static void add(gsp_bounds_t *b, const char *name, const char *source, int64_t v) {
    if (b->count == GSP_MAX_BOUNDS) return;
    b->b[b->count].name = name;
    b->b[b->count].source = source;
    b->b[b->count].value = v;
    if (b->count == 0 || v > b->b[b->binding].value) b->binding = b->count;
    b->count++;
}

int64_t gsp_bounds_value(const gsp_bounds_t *b) { return b->count ? b->b[b->binding].value : 0; }

static int64_t ceil_log2(int64_t n) {
    int64_t k = 0;
    while (((int64_t)1 << k) < n) k++;
    return k;
}

/* Number of points of Z^n at L1 distance exactly i: the most nodes a circulant with n jump
 * pairs can have at distance i (L*_{n,i}). Doubles: it only feeds a comparison. */
static double lstar(int n, int64_t i) {
    if (i == 0) return 1;
    double s = 0;
    for (int j = 1; j <= n && j <= i; j++) {
        double c1 = 1, c2 = 1;
        for (int q = 1; q <= j; q++) c1 = c1 * (n - j + q) / q;
        for (int q = 1; q <= j - 1; q++) c2 = c2 * (double)(i - 1 - (j - 1) + q) / q;
        s += ldexp(c1 * c2, j);
    }
    return s;
}

/* Largest |S| / (p m+(S, V\S)) over natural cuts, rounded up: halves along each coordinate of
 * an abelian group, and a BFS ball from node 0 holding about half the nodes. */
static int64_t cut_bound(const gsp_topo_t *t, int64_t p, bool *found) {
    int64_t best = 0, n = t->n;
    unsigned char *in = gsp_calloc((size_t)n, 1);
    int32_t *dist = gsp_malloc(sizeof *dist * (size_t)n);
    *found = false;
    if (!in || !dist) goto done;
    int ncuts = 1;
    const gsp_group_t *g = t->group;
    bool abelian = g && g->kind == GSP_GROUP_ABELIAN;
    if (abelian) ncuts += g->k;
    for (int c = 0; c < ncuts; c++) {
        int64_t size = 0;
        if (c < ncuts - 1) {
            int64_t half = g->mod[c] / 2;
            if (half == 0) continue;
            for (int64_t x = 0; x < n; x++) size += in[x] = (x / g->stride[c]) % g->mod[c] < half;
        } else {
            if (gsp_bfs(t, 0, dist, NULL, NULL, NULL)) goto done;
            int64_t r = 0, cnt = 0;
            /* The largest radius whose ball has at most half the nodes. */
            for (;; r++) {
                int64_t c2 = 0;
                for (int64_t x = 0; x < n; x++) c2 += dist[x] >= 0 && dist[x] <= r;
                if (c2 > n / 2 || c2 == cnt) break;
                cnt = c2;
            }
            for (int64_t x = 0; x < n; x++) size += in[x] = dist[x] >= 0 && dist[x] < r;
        }
        if (size == 0 || size == n) continue;
        /* Both directions: S's packets leave S, the complement's enter it. */
        int64_t out = 0, inw = 0;
        for (int64_t x = 0; x < n; x++)
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
                if (in[x] && !in[t->adj[a]]) out++;
                if (!in[x] && in[t->adj[a]]) inw++;
            }
        if (out) best = best > gsp_ceil_div(size, out * p) ? best : gsp_ceil_div(size, out * p);
        if (inw) best = best > gsp_ceil_div(n - size, inw * p) ? best : gsp_ceil_div(n - size, inw * p);
        *found = true;
    }
done:
    gsp_free(in);
    gsp_free(dist);
    return best;
}

gsp_err_t gsp_bounds_compute(const gsp_topo_t *t, const gsp_distances_t *dist,
                             gsp_collective_t c, const gsp_model_t *m, int64_t root,
                             gsp_bounds_t *out) {
    memset(out, 0, sizeof *out);
    gsp_model_t model = gsp_model_resolve(*m); /* packets 0: the default, 1 */
    m = &model;
    if (!dist->connected)
        return gsp_error(GSP_ERR_NOTAPPLIC, "%s: the graph is not connected", t->spec);
    int64_t n = t->n, D = dist->diameter;
    if (c == GSP_COLL_BROADCAST) {
        int64_t ecc = D;
        if (root >= 0 && !dist->per_node) {
            int32_t *dd = NULL;
            gsp_err_t err = gsp_alloc_array((void **)&dd, n, sizeof *dd, false);
            if (err || (err = gsp_bfs(t, root, dd, NULL, &ecc, NULL))) {
                gsp_free(dd);
                return err;
            }
            gsp_free(dd);
        }
        if (root >= 0) add(out, "eccentricity", "a packet moves one arc per round (from the root)", ecc);
        else add(out, "diameter", "a packet moves one arc per round", D);
        if (m->one_port) add(out, "one-port", "informed nodes at most double per round", ceil_log2(n));
        return GSP_OK;
    }
    if (c == GSP_COLL_ALLREDUCE) {
        add(out, "diameter", "global-sum paper, Problem A: every input must reach every node", D);
        if (m->one_port) add(out, "one-port", "a node hears from at most 2^t inputs after t rounds", ceil_log2(n));
        return GSP_OK;
    }
    /* Allgather, and reduce-scatter by reversal: a node must send a partial sum of each of
     * the N-1 other blocks, and a block at distance j must leave it j rounds before the end. */
    add(out, "diameter", "packet-gossip paper, Prop. 6", D);
    if (m->one_port) add(out, "one-port", "what a node knows at most doubles per round", ceil_log2(n));
    if (m->packets == GSP_PACKETS_INF) return GSP_OK;
    int64_t p = m->packets, din = t->in_dmin, cap;
    if (din <= 0) return GSP_OK;
    if (!gsp_mul_ok(din, p, &cap)) cap = INT64_MAX;
    add(out, "degree", t->directed ? "packet-gossip paper, Prop. 8 (in-degree)" : "packet-gossip paper, Prop. 7",
        gsp_ceil_div(n - 1, cap));
    if (m->one_port) add(out, "one-port", "one in-arc per round carries at most p packets", gsp_ceil_div(n - 1, p));
    if (m->half_duplex && !t->directed) {
        /* N(N-1) deliveries; an edge carries at most p packets, one way, per round. */
        int64_t edges = t->m / 2, need, per;
        if (edges > 0 && gsp_mul_ok(n, n - 1, &need) && gsp_mul_ok(edges, p, &per))
            add(out, "half-duplex", "N(N-1) deliveries, at most p per edge and round", gsp_ceil_div(need, per));
    }
    if (dist->per_node && cap < INT64_MAX / 4) {
        /* Layered bound on the graph's own layers (valid because every node looks alike). */
        int64_t ball = 0, best = 0;
        for (int64_t j = 0; j < dist->counts.len; j++) {
            ball += dist->counts.v[j];
            int64_t v = j + gsp_ceil_div(n - ball, cap);
            if (v > best) best = v;
        }
        add(out, "layered", "layers of the graph (generalises the circulant paper, Prop. 3)", best);
    }
    const gsp_group_t *g = t->group;
    bool circulant = g && g->kind == GSP_GROUP_ABELIAN && g->k == 1 && t->ngens % 2 == 0 && !t->directed;
    if (circulant) {
        /* Prop. 3 with L*_{n,i}; k is capped at D, beyond which the layers cannot be full. */
        int nj = t->ngens / 2;
        int64_t k = 0;
        double K = 1;
        while (k < D && lstar(nj, k + 1) <= (double)cap) {
            k++;
            K += lstar(nj, k);
        }
        double v = (double)k + ((double)n - K) / (double)cap;
        add(out, "circulant-prop3", "circulant paper, Prop. 3", (int64_t)ceil(v - 1e-9));
        if (t->ngens == 4 && p <= D)
            add(out, "circulant-prop4", "circulant paper, Prop. 4 (degree 4)",
                (int64_t)ceil((double)(n - 1) / (4.0 * p) + (p - 1) / 2.0 - 1e-9));
        if (t->ngens == 6) {
            int64_t kk = (int64_t)ceil(sqrt((3.0 * p - 1) / 2) - 1e-12);
            if (kk <= D)
                add(out, "circulant-prop6", "circulant paper, Prop. 6 (degree 6)",
                    (int64_t)ceil((double)(n - 1) / (6.0 * p) + kk * (1 - (2.0 * kk * kk + 3 * kk + 4) / (9.0 * p)) - 1e-9));
        }
    }
    bool found;
    int64_t cb = n <= 4000000 ? cut_bound(t, p, &found) : 0;
    if (n <= 4000000 && found) add(out, "cut", "packet-gossip paper, remark after Prop. 8 (natural cuts)", cb);
    return GSP_OK;
}
