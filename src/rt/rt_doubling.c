/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_doubling.c — recursive doubling and halving on 2^m ranks whose index bits are coordinate
 * bits: hypercubes (every partner a neighbour) and tori whose sides are powers of two (the
 * partner r XOR 2^b is 2^c links away along one coordinate; the network routes the message).
 *
 * Allreduce: in round s every rank exchanges its partial vector with r XOR 2^s and combines:
 * log2 N rounds of one whole-vector message (the latency path; Thakur, Rabenseifner and Gropp,
 * 2005). Exact: partners combine the same two partials, and IEEE addition, multiplication, min
 * and max are commutative (the drop-in serves commutative ops only), so both get the same bits,
 * and by induction every rank of a 2^s-block holds the block's sum bit for bit.
 * Allgather: in round s a rank sends the 2^s blocks of its 2^s-aligned group to r XOR 2^s.
 * Reduce-scatter: recursive halving, distance doubling: in round s a rank sends its partial sums
 * of the blocks whose bit s differs from its own (and whose lower bits match it) to r XOR 2^s.
 * Rounds: log2 N. Load: one message a round (allreduce: the vector each round; allgather and
 * reduce-scatter: (N-1)/N of the data in all, through one port at a time). On a torus the messages
 * of round s go 2^c links and share a link by up to 2^c. */
#include <string.h>

#include "rt_int.h"

/* Whether index bit b of every rank is one coordinate bit: an abelian Cayley graph of arcs
 * +-e_j whose sides are powers of two and whose strides are the products of the later sides. */
static bool applies_topo(const gsp_topo_t *t) {
    if (!gsp__rt_rings_apply(t) || t->n < 2) return false;
    const gsp_group_t *g = t->group;
    for (int j = 0; j < g->k; j++)
        if (g->mod[j] & (g->mod[j] - 1) || g->stride[j] & (g->stride[j] - 1) || g->stride[j] * g->mod[j] > t->n) return false;
    return (t->n & (t->n - 1)) == 0;
}

static bool applies(const gsp__rt_ctx_t *x) { return applies_topo(x->t); }

static int log2i(int64_t n) {
    int m = 0;
    while (((int64_t)1 << m) < n) m++;
    return m;
}

/* Links between r and r XOR 2^b: 2^c along the coordinate that holds bit b (c: the bit's place
 * in the coordinate). */
static int64_t hops_of(const gsp_topo_t *t, int b) {
    const gsp_group_t *g = t->group;
    int64_t bit = (int64_t)1 << b;
    for (int j = 0; j < g->k; j++)
        if (bit >= g->stride[j] && bit < g->stride[j] * g->mod[j]) {
            int64_t h = bit / g->stride[j];
            return h <= g->mod[j] / 2 ? h : g->mod[j] - h;
        }
    return 1;
}

/* param[0]: 0 allreduce (exchange), 1 allgather, 2 reduce-scatter. */
static gsp_err_t rule(const gsp_rt_phase_t *ph, const gsp_topo_t *t, int64_t r, gsp_rt_xfers_t *x) {
    gsp_err_t err = GSP_OK;
    int m = log2i(t->n);
    for (int s = 0; s < m && !err; s++) {
        int64_t q = r ^ ((int64_t)1 << s), lo = (int64_t)1 << s;
        if (ph->param[0] == 0) {
            if (!(err = gsp_rt_xfers_add(x, false, s, q, 0))) err = gsp_rt_xfers_add(x, true, s, q, 0);
        } else if (ph->param[0] == 1) {
            /* My group (same bits above s - 1) to q; q's group from q. */
            int64_t mine = r & ~(lo - 1), theirs = q & ~(lo - 1);
            for (int64_t i = 0; i < lo && !err; i++) err = gsp_rt_xfers_add(x, false, s, q, mine + i);
            for (int64_t i = 0; i < lo && !err; i++) err = gsp_rt_xfers_add(x, true, s, q, theirs + i);
        } else {
            /* Blocks whose bits below s match mine: bit s as q's go, bit s as mine stay. */
            int64_t low = r & (lo - 1);
            for (int dir = 0; dir < 2 && !err; dir++) {
                int64_t want = dir ? r & lo : q & lo;
                for (int64_t y = 0; y < (t->n >> (s + 1)) && !err; y++) {
                    int64_t blk = (y << (s + 1)) | want | low;
                    err = gsp_rt_xfers_add(x, dir == 1, s, q, blk);
                }
            }
        }
    }
    return err;
}

static gsp_err_t phase(gsp_rt_phase_t *p, const gsp_topo_t *t, int mode) {
    gsp_err_t err;
    int m = log2i(t->n);
    int64_t n = t->n, H = 1;
    memset(p, 0, sizeof *p);
    for (int s = 0; s < m; s++)
        if (hops_of(t, s) > H) H = hops_of(t, s);
    p->kind = mode == 1 ? GSP_RT_STORE : GSP_RT_REDUCE;
    p->layout = mode == 0 ? GSP_RT_WHOLE : mode == 1 ? GSP_RT_RANK : GSP_RT_SPLIT;
    p->source = GSP_RT_SRC_RULE;
    p->rule = rule;
    p->param[0] = mode;
    p->exchange = mode == 0;
    p->nrounds = m;
    /* Routed unless every partner is a neighbour (the hypercube). */
    p->routed = H > 1;
    p->hops = H;
    p->nlinks = 1;
    if ((err = gsp__rt_stat_arrays(p, m))) return err;
    if (p->routed && (err = gsp_alloc_array((void **)&p->link_hist, (int64_t)m * (H + 1) + 1, sizeof *p->link_hist, true))) return err;
    for (int s = 0; s < m; s++) {
        int64_t blocks = mode == 0 ? 1 : mode == 1 ? (int64_t)1 << s : n >> (s + 1), h = hops_of(t, s);
        /* On a ring, the messages of distance h = 2^c cross a link up to h at a time. */
        p->maxblk[s] = p->routed ? h * blocks : blocks;
        if (p->routed) p->link_hist[(int64_t)s * (H + 1) + h] = h * blocks;
        p->maxmsg[s] = 1;
        p->maxred[s] = mode == 1 ? 0 : blocks;
        p->moved[s] = n * blocks;
        p->ntransfers += n * blocks;
    }
    /* The busiest link over the phase: the rounds whose bits lie in one coordinate share its
     * links (a hypercube's coordinate has one bit, one round). */
    const gsp_group_t *g = t->group;
    for (int j = 0; j < g->k; j++) {
        int64_t sum = 0;
        for (int s = 0; s < m; s++)
            if (((int64_t)1 << s) >= g->stride[j] && ((int64_t)1 << s) < g->stride[j] * g->mod[j]) sum += p->maxblk[s];
        if (sum > p->busiest) p->busiest = sum;
    }
    return GSP_OK;
}

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    int mode = x->coll == GSP_COLL_ALLREDUCE ? 0 : x->coll == GSP_COLL_ALLGATHER ? 1 : 2;
    snprintf(al->built_from, sizeof al->built_from, "%s", mode == 0 ? "recursive doubling, whole vectors"
                                                          : mode == 1 ? "recursive doubling"
                                                                      : "recursive halving");
    al->nphases = 1;
    return phase(&al->phase[0], x->t, mode);
}

const gsp__rt_method_t gsp__rt_doubling = {
    "doubling", GSP__RT_COLL(GSP_COLL_ALLGATHER) | GSP__RT_COLL(GSP_COLL_REDUCE_SCATTER) | GSP__RT_COLL(GSP_COLL_ALLREDUCE),
    "hypercubes; tori whose sides are powers of two (routed)", "log₂ N",
    "exchange with r XOR 2^s in round s: allreduce combines whole vectors (latency-optimal), allgather doubles the blocks, reduce-scatter halves them",
    applies, add, NULL};
