/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_swing.c — recursive halving and doubling with distance-halving peers on every port at once
 * (Swing: De Sensi et al., NSDI'24), on tori whose sides are powers of two and hypercubes.
 *
 * Peers. In a ring of P = 2^s nodes, step c pairs coordinate v with
 *     pi_c(v) = v + rho(c) (v even),  v - rho(c) (v odd),   rho(c) = sum_{i<=c} (-2)^i
 * (1, -1, 3, -5, 11, -21, ...): |rho(c)| is about 2^(c+1)/3, so the partner of step c is at a
 * third of recursive doubling's distance 2^c, and at most P/2 away. pi_c is an involution (rho is
 * odd, so partners have opposite parities), and the sets R(v, c) = R(v, c+1) u R(pi_c(v), c+1),
 * R(v, s) = {v}, are disjoint halves: R(v, 0) is the whole ring (checked for P up to 2^20 by the
 * construction itself: the tests assemble every rank's program and check that every block is
 * complete at its owner exactly once).
 *
 * On a torus the steps take the dimensions in turn (round-robin from a starting dimension,
 * skipping a dimension whose log2 P_d steps are done): log2 N steps, each in one dimension.
 * Reduce-scatter (recursive halving): in step t a rank sends its partial sums of the blocks
 * whose owners its partner q still reaches in steps t+1.. (R(q, t+1), a product of one set per
 * dimension) and keeps those it reaches itself; allgather (recursive doubling) runs the steps
 * backwards, sending what it holds. Multiport: the vector is cut into Q parts, Q = 2k on a k-
 * dimensional torus whose sides are all at least 4 (part (j, +) and its mirror image (j, -),
 * which pairs v with v -+ rho), else Q = k; part (j, .) starts with dimension j, so in every
 * step the parts use different dimensions and directions: all 2k ports at once.
 *
 * Rounds: log2 N a phase (16x16: 8; 64x64: 12) — against the rings' sum (P_d - 1)/2 (16, 64).
 * Load: in step t every part moves N / 2^(t+1) blocks (reduce-scatter) over |rho| <= P/2 links;
 * a link carries ceil(|rho|/2) of them (senders of one parity go one way): about 4/3 of the
 * all-port bound summed over the steps of a dimension, where the rings are within 1 + 1/P of it.
 * So swing wins where latency counts (mid sizes on large tori), the rings where bandwidth does.
 * Exact: each block is summed once, at its owner, in the order of the steps; the allgather
 * copies it.
 *
 * Example: torus:4x4, Q = 4: part (0, +) pairs x0 with x0 + 1 (x0 even) or x0 - 1 (odd) in step
 * 0 and sends the 8 blocks its partner will own, then pairs along dimension 1: 4 steps in all
 * (two phases of 2 rounds), every arc of a node busy in every round. */
#include <string.h>

#include "rt_int.h"

static int64_t pmod(int64_t a, int64_t m) { return ((a % m) + m) % m; }

static int log2i(int64_t n) {
    int m = 0;
    while (((int64_t)1 << m) < n) m++;
    return m;
}

static int64_t rho(int c) { /* sum_{i=0}^{c} (-2)^i = (1 - (-2)^(c+1)) / 3 */
    int64_t r = 0, p = 1;
    for (int i = 0; i <= c; i++, p *= -2) r += p;
    return r;
}

/* Tori whose sides are powers of two (at least 2) with arcs +-e_j: the hypercube, 16x16, 8x8x8. */
static bool applies_topo(const gsp_topo_t *t) {
    if (!gsp__rt_rings_apply(t) || t->n < 2) return false;
    const gsp_group_t *g = t->group;
    for (int j = 0; j < g->k; j++)
        if (g->mod[j] < 2 || (g->mod[j] & (g->mod[j] - 1))) return false;
    return true;
}

static bool applies(const gsp__rt_ctx_t *x) { return applies_topo(x->t); }

/* Parts: 2k when every side is at least 4 (a mirror image per dimension), else k. */
static int64_t parts_of(const gsp_group_t *g) {
    for (int j = 0; j < g->k; j++)
        if (g->mod[j] < 4) return g->k;
    return 2 * (int64_t)g->k;
}

/* Part p's steps: dim[t] and the step's index c[t] within its dimension (S = log2 N of them). */
typedef struct {
    int S;
    int dim[64], c[64];
    int sign; /* +1, or -1: the mirror image */
} steps_t;

static void steps_of(const gsp_group_t *g, int64_t Q, int64_t p, steps_t *st) {
    int k = g->k, left[GSP_MAX_DIMS], done[GSP_MAX_DIMS];
    int j = (int)(Q == k ? p : p / 2);
    st->sign = Q == k || p % 2 == 0 ? 1 : -1;
    st->S = 0;
    int total = 0;
    for (int d = 0; d < k; d++) total += left[d] = log2i(g->mod[d]), done[d] = 0;
    for (int d = j; st->S < total; d = (d + 1) % k) {
        if (!left[d]) continue;
        st->dim[st->S] = d;
        st->c[st->S++] = done[d]++;
        left[d]--;
    }
}

/* pi_c(v) in a ring of P, or its mirror image. */
static int64_t partner(int64_t v, int c, int64_t P, int sign) {
    int64_t r = rho(c) * sign;
    return pmod(v % 2 == 0 ? v + r : v - r, P);
}

/* R(v, c): the coordinates a node at v reaches in its dimension's steps c.. (2^(s - c) of them),
 * appended to out. */
static void reach(int64_t v, int c, int s, int64_t P, int sign, int64_t *out, int64_t *n) {
    if (c == s) {
        out[(*n)++] = v;
        return;
    }
    reach(v, c + 1, s, P, sign, out, n);
    reach(partner(v, c, P, sign), c + 1, s, P, sign, out, n);
}

/* Appends the blocks of part p whose owners are in the product of node y's reach sets after step
 * t (per dimension: the steps of that dimension after t), as sends or receives with peer. */
static gsp_err_t blocks(const gsp_group_t *g, const steps_t *st, int t, const int64_t *yc, int64_t p, int64_t Q, bool recv,
                        int64_t round, int64_t peer, gsp_rt_xfers_t *x, int64_t *buf) {
    int k = g->k, next[GSP_MAX_DIMS];
    int64_t *set[GSP_MAX_DIMS], len[GSP_MAX_DIMS], idx[GSP_MAX_DIMS], cc[GSP_MAX_DIMS];
    for (int d = 0; d < k; d++) next[d] = 0;
    for (int u = 0; u <= t; u++) next[st->dim[u]]++;
    int64_t *b = buf;
    for (int d = 0; d < k; d++) {
        set[d] = b;
        len[d] = 0;
        reach(yc[d], next[d], log2i(g->mod[d]), g->mod[d], st->sign, set[d], &len[d]);
        b += len[d];
        idx[d] = 0;
    }
    for (;;) {
        for (int d = 0; d < k; d++) cc[d] = set[d][idx[d]];
        gsp_err_t err = gsp_rt_xfers_add(x, recv, round, peer, gsp_group_index(g, cc) * Q + p);
        if (err) return err;
        int d = k - 1;
        while (d >= 0 && ++idx[d] == len[d]) idx[d--] = 0;
        if (d < 0) return GSP_OK;
    }
}

/* The rule: param[0] = 0 reduce-scatter (recursive halving), 1 allgather (doubling). */
static gsp_err_t swing_rule(const gsp_rt_phase_t *ph, const gsp_topo_t *t, int64_t r, gsp_rt_xfers_t *x) {
    gsp_err_t err = GSP_OK;
    const gsp_group_t *g = t->group;
    int k = g->k, mode = (int)ph->param[0];
    int64_t Q = ph->parts, c[GSP_MAX_DIMS], qc[GSP_MAX_DIMS], *buf = NULL, total = 0;
    for (int d = 0; d < k; d++) total += g->mod[d];
    if ((err = gsp_alloc_array((void **)&buf, total + 1, sizeof *buf, false))) return err;
    gsp_group_coords(g, r, c);
    for (int64_t p = 0; p < Q && !err; p++) {
        steps_t st;
        steps_of(g, Q, p, &st);
        for (int u = 0; u < st.S && !err; u++) {
            int tt = mode == 0 ? u : st.S - 1 - u, d = st.dim[tt];
            memcpy(qc, c, (size_t)k * sizeof *qc);
            qc[d] = partner(c[d], st.c[tt], g->mod[d], st.sign);
            int64_t q = gsp_group_index(g, qc);
            /* Reduce-scatter: what q keeps goes, what I keep comes; allgather: what I hold goes. */
            if (!(err = blocks(g, &st, tt, mode == 0 ? qc : c, p, Q, false, u, q, x, buf)))
                err = blocks(g, &st, tt, mode == 0 ? c : qc, p, Q, true, u, q, x, buf);
        }
    }
    gsp_free(buf);
    return err;
}

/* The phase and its statistics: per round and part, the dimension, the distance h = |rho| and
 * the blocks of each message. A node's arcs of dimension e carry what the parts on e send from
 * a node of its parity in e, so the exact loads of unrouted phases come from 2k (dimension,
 * parity) pairs, and a node's messages add up over the dimensions, the busiest node taking the
 * busier parity in each (2^k parity classes, all of them realised); a routed phase's
 * links are counted position by position along one ring per dimension (exact: the tests route
 * every transfer), and the cost model's per-link histogram takes for each part its ceil(h/2)
 * messages of distance h on the busiest link of that direction. */
static gsp_err_t phase(gsp_rt_phase_t *ph, const gsp_topo_t *t, int mode, gsp_rt_kind_t kind, gsp_rt_layout_t layout) {
    gsp_err_t err;
    const gsp_group_t *g = t->group;
    int k = g->k, S = log2i(t->n);
    int64_t Q = parts_of(g), n = t->n, deg = t->off[1] - t->off[0], H = 1, classes = 2 * (int64_t)k; /* (dimension, parity) pairs */
    int64_t *load = NULL, *tot = NULL, *peers = NULL, *ring = NULL, *ring_tot = NULL, ring_off[GSP_MAX_DIMS + 1], maxP = 0;
    memset(ph, 0, sizeof *ph);
    ph->kind = kind;
    ph->layout = layout;
    ph->source = GSP_RT_SRC_RULE;
    ph->rule = swing_rule;
    ph->param[0] = mode;
    ph->parts = Q;
    ph->nrounds = S;
    for (int d = 0; d < k; d++)
        for (int c = 0; c < log2i(g->mod[d]); c++) {
            int64_t h = rho(c) < 0 ? -rho(c) : rho(c);
            if (h > H) H = h;
        }
    ring_off[0] = 0;
    for (int d = 0; d < k; d++) {
        ring_off[d + 1] = ring_off[d] + 2 * g->mod[d];
        if (g->mod[d] > maxP) maxP = g->mod[d];
    }
    ph->routed = H > 1;
    ph->hops = H;
    ph->nlinks = deg;
    if ((err = gsp__rt_stat_arrays(ph, S)) ||
        (ph->routed && (err = gsp_alloc_array((void **)&ph->link_hist, (int64_t)S * deg * (H + 1) + 1, sizeof *ph->link_hist, true))) ||
        (err = gsp_alloc_array((void **)&load, classes * deg + 1, sizeof *load, true)) ||
        (err = gsp_alloc_array((void **)&tot, classes * deg + 1, sizeof *tot, true)) ||
        (err = gsp_alloc_array((void **)&peers, (int64_t)2 * k * (2 * H + 1) + 1, sizeof *peers, true)) ||
        (err = gsp_alloc_array((void **)&ring, 2 * maxP + 1, sizeof *ring, true)) ||
        (err = gsp_alloc_array((void **)&ring_tot, ring_off[k] + 1, sizeof *ring_tot, true)))
        goto done;
    /* The arc of the identity along +e_d and -e_d (one arc when P_d = 2). */
    int64_t arc[GSP_MAX_DIMS][2];
    for (int d = 0; d < k; d++)
        for (int s = 0; s < 2; s++) {
            int64_t want = s ? g->stride[d] : g->stride[d] * (g->mod[d] - 1);
            arc[d][s] = -1;
            for (int64_t i = 0; i < deg; i++)
                if (t->adj[t->off[0] + i] == want) arc[d][s] = i;
        }
    steps_t st[2 * GSP_MAX_DIMS];
    for (int64_t p = 0; p < Q; p++) steps_of(g, Q, p, &st[p]);
    for (int u = 0; u < S; u++) {
        int64_t blk = 0, maxmsg = 0;
        memset(load, 0, sizeof *load * (size_t)(classes * deg));
        for (int64_t p = 0; p < Q; p++) {
            int tt = mode == 0 ? u : S - 1 - u, d = st[p].dim[tt];
            int64_t r0 = rho(st[p].c[tt]) * st[p].sign, h = r0 < 0 ? -r0 : r0;
            int64_t b = mode == 0 ? n >> (tt + 1) : (int64_t)1 << (S - 1 - tt);
            blk += b;
            /* Even coordinates go +r0 (the + arc when r0 > 0), odd ones -r0. */
            int64_t aeven = arc[d][r0 > 0], aodd = arc[d][r0 < 0];
            if (ph->routed) {
                int64_t cross = g->mod[d] == 2 ? 1 : (h + 1) / 2;
                ph->link_hist[((int64_t)u * deg + aeven) * (H + 1) + h] += cross * b;
                if (aodd != aeven) ph->link_hist[((int64_t)u * deg + aodd) * (H + 1) + h] += cross * b;
            }
            load[(2 * d) * deg + aeven] += b;
            load[(2 * d + 1) * deg + aodd] += b;
        }
        /* Messages: distinct partners (each part's is one (dimension, offset); partners are
         * mutual, so a node receives from as many as it sends to), per dimension the parity
         * with more of them. */
        for (int d = 0; d < k; d++) {
            int64_t most = 0;
            for (int par = 0; par < 2; par++) {
                int64_t m = 0;
                memset(peers, 0, sizeof *peers * (size_t)(2 * H + 1));
                for (int64_t p = 0; p < Q; p++) {
                    int tt = mode == 0 ? u : S - 1 - u;
                    if (st[p].dim[tt] != d) continue;
                    int64_t r0 = rho(st[p].c[tt]) * st[p].sign, off = par ? -r0 : r0;
                    if (g->mod[d] == 2) off = 1; /* +1 and -1 are one neighbour */
                    if (!peers[off + H]++) m++;
                }
                if (m > most) most = m;
            }
            maxmsg += most;
        }
        int64_t mb = 0;
        for (int64_t i = 0; i < classes * deg; i++) {
            tot[i] += load[i];
            if (load[i] > mb) mb = load[i];
        }
        if (ph->routed) {
            /* Links position by position along each ring (every ring of a dimension alike): a
             * message of distance h (odd) going + crosses link i -> i+1 from the h senders
             * i-h+1 .. i, of whom (h+1)/2 have i's parity; those of one parity go +. */
            mb = 0;
            for (int d = 0; d < k; d++) {
                int64_t P = g->mod[d];
                memset(ring, 0, sizeof *ring * (size_t)(2 * P));
                for (int64_t p = 0; p < Q; p++) {
                    int tt = mode == 0 ? u : S - 1 - u;
                    if (st[p].dim[tt] != d) continue;
                    int64_t r0 = rho(st[p].c[tt]) * st[p].sign, h = r0 < 0 ? -r0 : r0;
                    int64_t b = mode == 0 ? n >> (tt + 1) : (int64_t)1 << (S - 1 - tt);
                    int64_t plus = r0 > 0 ? 0 : 1; /* the parity that goes + (even goes +r0) */
                    for (int64_t i = 0; i < P; i++) {
                        if (P == 2) { /* one neighbour: each node's one link carries its message */
                            ring[2 * i] += b;
                            continue;
                        }
                        ring[2 * i] += b * (i % 2 == plus ? (h + 1) / 2 : (h - 1) / 2);
                        ring[2 * i + 1] += b * (i % 2 == 1 - plus ? (h + 1) / 2 : (h - 1) / 2);
                    }
                }
                for (int64_t i = 0; i < 2 * P; i++) {
                    if (ring[i] > mb) mb = ring[i];
                    ring_tot[ring_off[d] + i] += ring[i];
                }
            }
        }
        ph->maxblk[u] = mb;
        ph->maxmsg[u] = maxmsg;
        ph->maxred[u] = kind == GSP_RT_REDUCE ? blk : 0;
        ph->moved[u] = n * blk;
        ph->ntransfers += n * blk;
    }
    for (int64_t i = 0; i < classes * deg; i++)
        if (tot[i] > ph->busiest) ph->busiest = tot[i];
    if (ph->routed) {
        ph->busiest = 0;
        for (int64_t i = 0; i < ring_off[k]; i++)
            if (ring_tot[i] > ph->busiest) ph->busiest = ring_tot[i];
    }
done:
    gsp_free(ring);
    gsp_free(ring_tot);
    gsp_free(load);
    gsp_free(tot);
    gsp_free(peers);
    return err;
}

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    gsp_err_t err;
    gsp_rt_layout_t lay = x->coll == GSP_COLL_ALLGATHER ? GSP_RT_RANK : GSP_RT_SPLIT;
    snprintf(al->built_from, sizeof al->built_from, "%s",
             x->coll == GSP_COLL_ALLGATHER        ? "recursive doubling, distance-halving peers, every port"
             : x->coll == GSP_COLL_REDUCE_SCATTER ? "recursive halving, distance-halving peers, every port"
                                                  : "recursive halving then doubling, distance-halving peers, every port");
    if (x->coll == GSP_COLL_ALLGATHER) {
        al->nphases = 1;
        return phase(&al->phase[0], x->t, 1, GSP_RT_STORE, lay);
    }
    err = phase(&al->phase[0], x->t, 0, GSP_RT_REDUCE, lay);
    al->nphases = 1;
    if (err || x->coll == GSP_COLL_REDUCE_SCATTER) return err;
    al->nphases = 2;
    return phase(&al->phase[1], x->t, 1, GSP_RT_STORE, lay);
}

const gsp__rt_method_t gsp__rt_swing = {
    "swing", GSP__RT_COLL(GSP_COLL_ALLGATHER) | GSP__RT_COLL(GSP_COLL_REDUCE_SCATTER) | GSP__RT_COLL(GSP_COLL_ALLREDUCE),
    "tori whose sides are powers of two, hypercubes (routed beyond distance 1)", "log₂ N a phase",
    "Swing's distance-halving peers (partner v ± ρ(c), ρ = 1, −1, 3, −5, 11, …, by parity), one dimension a step in turn: recursive halving for the reduce-scatter, doubling for the allgather, 2k parts (mirror images) on every port at once",
    applies, add, NULL};
