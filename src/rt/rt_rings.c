/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_rings.c — dimension-wise bidirectional rings on every port at once (tori of any shape,
 * hypercubes).
 *
 * The vector (allgather: each rank's block) is cut into k parts, one per dimension. Part p
 * reduce-scatters along the rings of dimension p first, then p + 1, ... (cyclically): in the
 * stage of dimension d every ring of d (the nodes that differ only in coordinate d) reduce-
 * scatters the blocks its nodes still hold, cut into P_d segments by the owner's coordinate d.
 * The ring is used both ways: segment s's partial sums flow to its owner from the A = ceil((P-1)/2)
 * nodes behind it along +e_d and from the B = floor((P-1)/2) nodes ahead of it along -e_d, two
 * chains of at most A steps. After the k stages block (x, p) is complete at x. The allgather
 * spreads each owner's segment both ways in the reverse order of dimensions.
 *
 * Rounds: sum over d of ceil((P_d - 1)/2) per phase (16 on 16x16, 32 on 32x32, K on the K-cube,
 * where it is multiport recursive halving and doubling). Load: in its first stage part p alone
 * uses dimension p's arcs, each carrying about half its segments, V/(2k) of the vector; later
 * stages carry P times less. So every arc carries about V/(2k) = V/Q (Q = the degree): the
 * all-port bandwidth bound of a reduce-scatter, within 1 + 1/P. Exact: block (x, p) is summed
 * along two chains that meet at x, then copied.
 *
 * Broadcast: the root's parts are scattered down the same rings (in each ring the node at the
 * root's coordinate streams the other segments both ways, farthest first), then the allgather;
 * reduce: the reduce-scatter, then the scatter run backwards (a gather into the root). The root's
 * arcs each carry about half a part: the broadcast's bandwidth bound within 1 + 1/P, in
 * 2 sum ceil((P_d - 1)/2) rounds.
 *
 * Allreduce (k >= 2, every ring's chains alike and at least 2 long): four phases, the
 * reduce-scatter's first stage, its other stages, the allgather's other stages, its first stage
 * (param[2], param[3]: the steps a phase runs), so that the runtime cuts each into its own lanes:
 * the first stage moves P times the bytes of the next.
 *
 * Example: torus:4x4, k = 2; part 0: stage 0, the rings of dimension 0 (4 nodes) move segments
 * of 4 blocks, 2 steps (A = 2 along +, B = 1 along -), stage 1 the rings of dimension 1 single
 * blocks, 2 steps: 4 rounds a phase, as many as the flood (at half its load) and the p = 1
 * schedule. */
#include <string.h>

#include "rt_int.h"

/* Whether t is a torus-like abelian Cayley graph whose every arc is +-e_j (the rings' shape). */
bool gsp__rt_rings_apply(const gsp_topo_t *t) {
    const gsp_group_t *g = t->group;
    if (!g || g->kind != GSP_GROUP_ABELIAN || g->k < 1 || t->directed) return false;
    int64_t d = t->off[1] - t->off[0];
    for (int64_t i = 0; i < d; i++) {
        int64_t s = t->adj[t->off[0] + i];
        bool ok = false;
        for (int j = 0; j < g->k && !ok; j++) ok = s == g->stride[j] || s == g->stride[j] * (g->mod[j] - 1);
        if (!ok) return false;
    }
    for (int j = 0; j < g->k; j++) {
        bool up = false;
        for (int64_t i = 0; i < d; i++) up |= t->adj[t->off[0] + i] == g->stride[j];
        if (!up || g->mod[j] < 2) return false;
    }
    return true;
}

static int64_t mod(int64_t a, int64_t m) { return ((a % m) + m) % m; }

/* Chain lengths of a ring of P: along +e_d and along -e_d. */
static int64_t ahead(int64_t P) { return P / 2; }          /* ceil((P-1)/2) */
static int64_t behind(int64_t P) { return (P - 1) / 2; }   /* floor((P-1)/2) */

/* The arc of the identity along dimension j in direction dir (a side of 2 has one). */
static int64_t arc_of(const gsp_topo_t *t, int j, int dir) {
    const gsp_group_t *g = t->group;
    int64_t want = dir > 0 ? g->stride[j] : g->stride[j] * (g->mod[j] - 1), d = t->off[1] - t->off[0];
    for (int64_t i = 0; i < d; i++)
        if (t->adj[t->off[0] + i] == want) return i;
    return -1;
}

/* Appends to x, as sends or receives of one round with peer, the blocks of part p whose owners
 * agree with c (coordinates) on the first `fixed` dimensions of order, have coordinate seg in
 * dimension order[fixed], and anything in the others. */
static gsp_err_t segment(const gsp_group_t *g, const int *order, int fixed, const int64_t *c, int64_t seg, int64_t p, int64_t Q,
                         bool recv, int64_t round, int64_t peer, gsp_rt_xfers_t *x) {
    int k = g->k;
    int64_t cc[GSP_MAX_DIMS];
    memcpy(cc, c, (size_t)k * sizeof *cc);
    cc[order[fixed]] = seg;
    int nfree = k - fixed - 1;
    for (int f = 0; f < nfree; f++) cc[order[fixed + 1 + f]] = 0;
    for (;;) {
        gsp_err_t err = gsp_rt_xfers_add(x, recv, round, peer, gsp_group_index(g, cc) * Q + p);
        if (err) return err;
        int f = nfree - 1;
        /* Mixed-radix counter over the free dimensions, the last fastest. */
        while (f >= 0) {
            int d = order[fixed + 1 + f];
            if (++cc[d] < g->mod[d]) break;
            cc[d] = 0;
            f--;
        }
        if (f < 0) return GSP_OK;
    }
}

/* One transfer of a stage: send (or receive) segment seg of the stage to (from) the neighbour
 * along dir, in stage round s; a gather runs it backwards in time and direction. */
typedef struct {
    const gsp_group_t *g;
    const int *order;
    int stage;
    const int64_t *c;
    int64_t p, Q, base, R;
    bool backwards;
    int64_t nb[2]; /* the neighbours along -e_d and +e_d */
    gsp_rt_xfers_t *x;
} stage_t;

static gsp_err_t move(const stage_t *st, bool recv, int dir, int64_t s, int64_t seg) {
    int64_t peer = st->nb[dir > 0 ? recv ? 0 : 1 : recv ? 1 : 0], round = st->base + s;
    if (st->backwards) {
        recv = !recv;
        round = st->R - 1 - round;
    }
    return segment(st->g, st->order, st->stage, st->c, seg, st->p, st->Q, recv, round, peer, st->x);
}

/* The steps (one per dimension) a phase runs: param[2] the first, param[3] how many (0: all). */
static void step_range(const gsp_rt_phase_t *ph, int k, int *lo, int *hi) {
    *lo = (int)ph->param[2];
    *hi = ph->param[3] > 0 ? *lo + (int)ph->param[3] : k;
}

/* The rule: param[0] = 0 reduce-scatter, 1 allgather, 2 scatter from param[1], 3 gather into it. */
static gsp_err_t rings_rule(const gsp_rt_phase_t *ph, const gsp_topo_t *t, int64_t r, gsp_rt_xfers_t *x) {
    gsp_err_t err = GSP_OK;
    const gsp_group_t *g = t->group;
    int k = g->k, mode = (int)ph->param[0];
    int64_t Q = ph->parts, c[GSP_MAX_DIMS], cn[GSP_MAX_DIMS], rc[GSP_MAX_DIMS];
    gsp_group_coords(g, r, c);
    if (mode >= 2) gsp_group_coords(g, ph->param[1], rc);
    for (int64_t p = 0; p < Q && !err; p++) {
        int order[GSP_MAX_DIMS];
        for (int i = 0; i < k; i++) order[i] = (int)((p + i) % k);
        int64_t round = 0;
        int lo, hi;
        step_range(ph, k, &lo, &hi);
        for (int step = lo; step < hi && !err; step++) {
            /* The allgather and the gather take the dimensions backwards. */
            int i = mode == 1 ? k - 1 - step : step, d = order[i];
            int64_t P = g->mod[d], A = ahead(P), B = behind(P), cd = c[d];
            stage_t st = {g, order, i, c, p, Q, round, ph->nrounds, mode == 3, {0, 0}, x};
            memcpy(cn, c, (size_t)k * sizeof *cn);
            cn[d] = mod(cd - 1, P);
            st.nb[0] = gsp_group_index(g, cn);
            cn[d] = mod(cd + 1, P);
            st.nb[1] = gsp_group_index(g, cn);
            if (mode == 0) {
                /* Segment s's + chain: s - A, ..., s - 1 -> s; its - chain: s + B, ..., s + 1 -> s.
                 * In step j node c sends s = c + A - j forward (j < A) and s = c - B + j back
                 * (j < B), and receives s = c - 1 + A - j from behind, s = c + 1 - B + j from ahead. */
                for (int64_t j = 0; j < A && !err; j++) {
                    if (!(err = move(&st, false, 1, j, mod(cd + A - j, P))) && j < B) err = move(&st, false, -1, j, mod(cd - B + j, P));
                    if (!err) err = move(&st, true, 1, j, mod(cd - 1 + A - j, P));
                    if (!err && j < B) err = move(&st, true, -1, j, mod(cd + 1 - B + j, P));
                }
            } else if (mode == 1) {
                /* Owner s's segment spreads to s + 1 .. s + A forward and s - 1 .. s - B back: in
                 * step j node c forwards s = c - j (j < A) and s = c + j back (j < B). */
                for (int64_t j = 0; j < A && !err; j++) {
                    if (!(err = move(&st, false, 1, j, mod(cd - j, P))) && j < B) err = move(&st, false, -1, j, mod(cd + j, P));
                    if (!err) err = move(&st, true, 1, j, mod(cd - 1 - j, P));
                    if (!err && j < B) err = move(&st, true, -1, j, mod(cd + 1 + j, P));
                }
            } else {
                /* Scatter: only the nodes that agree with the root on the later dimensions hold
                 * blocks; in each ring the node at the root's coordinate streams the segments of
                 * the A nodes ahead and the B behind down the two chains, farthest first: the
                 * node at offset o (0 <= o < L along its chain of length L) sends in steps
                 * o .. L-1 the segment of offset L - j + o and receives in steps o-1 .. L-1 the
                 * segment of offset L - j + o - 1. */
                bool in = true;
                for (int f = i + 1; f < k; f++) in &= c[order[f]] == rc[order[f]];
                int64_t off = mod(cd - rc[d], P);
                for (int side = 0; in && side < 2 && !err; side++) {
                    int dir = side ? -1 : 1;
                    int64_t L = side ? B : A, o = side ? (off == 0 ? 0 : P - off) : off;
                    if (o > L) continue; /* on the other chain */
                    for (int64_t j = 0; j < L && !err; j++) {
                        if (j >= o && o < L) err = move(&st, false, dir, j, mod(rc[d] + dir * (L - j + o), P));
                        if (!err && o >= 1 && j >= o - 1) err = move(&st, true, dir, j, mod(rc[d] + dir * (L - j + o - 1), P));
                    }
                }
            }
            round += A;
        }
    }
    return err;
}

/* Blocks of one segment at stage i of a part: the product of the later dimensions' sides. */
static int64_t seg_blocks(const gsp_group_t *g, const int *order, int i) {
    int64_t b = 1;
    for (int f = i + 1; f < g->k; f++) b *= g->mod[order[f]];
    return b;
}

gsp_err_t gsp__rt_rings_phase(gsp_rt_phase_t *p, const gsp_topo_t *t, int mode, int64_t root, gsp_rt_kind_t kind, gsp_rt_layout_t layout) {
    return gsp__rt_rings_steps(p, t, mode, root, kind, layout, 0, 0);
}

gsp_err_t gsp__rt_rings_steps(gsp_rt_phase_t *p, const gsp_topo_t *t, int mode, int64_t root, gsp_rt_kind_t kind, gsp_rt_layout_t layout,
                              int first, int nsteps) {
    gsp_err_t err;
    const gsp_group_t *g = t->group;
    int k = g->k;
    int64_t Q = k, R = 0, n = t->n, d = t->off[1] - t->off[0], *per = NULL, *tot = NULL, *snd = NULL;
    memset(p, 0, sizeof *p);
    p->param[2] = first;
    p->param[3] = nsteps;
    int lo, hi;
    step_range(p, k, &lo, &hi);
    /* Part 0's rounds; a split phase (nsteps > 0) is made only when every part's are the same
     * (rings_split). */
    for (int step = lo; step < hi; step++) R += ahead(g->mod[mode == 1 ? k - 1 - step : step]);
    p->kind = kind;
    p->layout = layout;
    p->source = GSP_RT_SRC_RULE;
    p->rule = rings_rule;
    p->param[0] = mode;
    p->param[1] = root;
    p->parts = Q;
    p->nrounds = R;
    if ((err = gsp__rt_stat_arrays(p, R)) || (err = gsp_alloc_array((void **)&per, (R + 1) * d, sizeof *per, true)) ||
        (err = gsp_alloc_array((void **)&tot, d + 1, sizeof *tot, true)) || (err = gsp_alloc_array((void **)&snd, R + 1, sizeof *snd, true)))
        goto done;
    /* Per round and arc of a node: the blocks on it (every node of a ring stage the same; the
     * scatter's busiest node, the ring's source, likewise), and the blocks all nodes move. */
    for (int64_t q = 0; q < Q; q++) {
        int order[GSP_MAX_DIMS];
        for (int i = 0; i < k; i++) order[i] = (int)((q + i) % k);
        int64_t round = 0;
        for (int step = lo; step < hi; step++) {
            int i = mode == 1 ? k - 1 - step : step, dd = order[i];
            int64_t P = g->mod[dd], A = ahead(P), B = behind(P), b = seg_blocks(g, order, i), rings = 1;
            for (int f = 0; f < i; f++) rings *= g->mod[order[f]];
            int64_t up = arc_of(t, dd, 1), down = arc_of(t, dd, -1);
            for (int64_t j = 0; j < A; j++) {
                int64_t rr = mode == 3 ? R - 1 - (round + j) : round + j;
                /* A gather sends backwards: its chains run on the opposite arcs. */
                per[rr * d + (mode == 3 ? down : up)] += b;
                if (j < B) per[rr * d + (mode == 3 ? up : down)] += b;
                if (mode <= 1) snd[rr] += n * b * (j < B ? 2 : 1);
                else snd[rr] += rings * b * ((j + 1) + (j < B ? j + 1 : 0)); /* the first j+1 of each chain */
            }
            round += A;
        }
    }
    for (int64_t r = 0; r < R; r++) {
        int64_t all = 0;
        for (int64_t a = 0; a < d; a++) {
            int64_t b = per[r * d + a];
            all += b;
            tot[a] += b;
            if (b > p->maxblk[r]) p->maxblk[r] = b;
            if (b) p->maxmsg[r]++;
        }
        /* What a node receives equals what it sends (its ring neighbours do the same). */
        p->maxred[r] = kind == GSP_RT_REDUCE ? all : 0;
        p->moved[r] = snd[r];
        p->ntransfers += snd[r];
    }
    for (int64_t a = 0; a < d; a++)
        if (tot[a] > p->busiest) p->busiest = tot[a];
done:
    gsp_free(per);
    gsp_free(tot);
    gsp_free(snd);
    return err;
}

static bool applies(const gsp__rt_ctx_t *x) { return gsp__rt_rings_apply(x->t); }

/* Whether an allreduce's stages go in phases of their own: two dimensions or more, every ring's
 * chain the same length (so every part's first stage takes the same rounds), and two steps or
 * more (not the hypercube's single step a stage, where the runtime's rounds stay as they were). */
static bool rings_split(const gsp_group_t *g) {
    if (g->k < 2 || ahead(g->mod[0]) < 2) return false;
    for (int j = 1; j < g->k; j++)
        if (ahead(g->mod[j]) != ahead(g->mod[0])) return false;
    return true;
}

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    gsp_err_t err;
    const gsp_topo_t *t = x->t;
    /* Phases: (mode, kind) — 0 reduce-scatter, 1 allgather, 2 scatter, 3 gather. */
    int m0 = -1, m1 = -1;
    const char *how = "";
    switch (x->coll) {
    case GSP_COLL_ALLGATHER: m0 = 1, how = ""; break;
    case GSP_COLL_REDUCE_SCATTER: m0 = 0, how = ", reversed"; break;
    case GSP_COLL_ALLREDUCE: m0 = 0, m1 = 1, how = ", reversed, then forward"; break;
    case GSP_COLL_BROADCAST: m0 = 2, m1 = 1, how = ": a scatter from the root, then the allgather"; break;
    case GSP_COLL_REDUCE: m0 = 0, m1 = 3, how = ": the reduce-scatter, then a gather into the root"; break;
    }
    snprintf(al->built_from, sizeof al->built_from, "a ring per dimension, every port at once%s", how);
    gsp_rt_layout_t lay = x->coll == GSP_COLL_ALLGATHER ? GSP_RT_RANK : GSP_RT_SPLIT;
    if (x->coll == GSP_COLL_ALLREDUCE && rings_split(t->group)) {
        /* Four phases: the reduce-scatter's first stage (each part on its whole ring: the big
         * messages), its other stages (P times smaller each), then the allgather's last stages
         * and its first. Each phase gets its own lanes (gsp_rt_lanes): many small messages for
         * the big stage, few for the others, where more lanes would only pay more latency at a
         * worse bandwidth (SimGrid's default factors: a 512 B message gets 0.34 of the link, an
         * 8 KiB one 1.09). */
        int k = t->group->k;
        al->nphases = 0;
        if ((err = gsp__rt_rings_steps(&al->phase[0], t, 0, x->root, GSP_RT_REDUCE, lay, 0, 1))) return err;
        al->nphases = 1;
        if ((err = gsp__rt_rings_steps(&al->phase[1], t, 0, x->root, GSP_RT_REDUCE, lay, 1, k - 1))) return err;
        al->nphases = 2;
        if ((err = gsp__rt_rings_steps(&al->phase[2], t, 1, x->root, GSP_RT_STORE, lay, 0, k - 1))) return err;
        al->nphases = 3;
        err = gsp__rt_rings_steps(&al->phase[3], t, 1, x->root, GSP_RT_STORE, lay, k - 1, 1);
        al->nphases = 4;
        return err;
    }
    err = gsp__rt_rings_phase(&al->phase[0], t, m0, x->root, m0 == 0 ? GSP_RT_REDUCE : GSP_RT_STORE, lay);
    al->nphases = 1;
    if (err || m1 < 0) return err;
    err = gsp__rt_rings_phase(&al->phase[1], t, m1, x->root, GSP_RT_STORE, lay);
    al->nphases = 2;
    return err;
}

const gsp__rt_method_t gsp__rt_rings = {
    "rings",
    GSP__RT_COLL(GSP_COLL_ALLGATHER) | GSP__RT_COLL(GSP_COLL_REDUCE_SCATTER) | GSP__RT_COLL(GSP_COLL_ALLREDUCE) |
        GSP__RT_COLL(GSP_COLL_BROADCAST) | GSP__RT_COLL(GSP_COLL_REDUCE),
    "tori of any shape, hypercubes", "Σ⌈(P_d − 1)/2⌉ a phase (the K-cube: K)",
    "one part of the vector per dimension; each part reduce-scatters along the rings of its dimension first, then the next, both ways round each ring, then back (the K-cube: multiport recursive halving and doubling); broadcast: the parts scattered from the root down the same rings, then the allgather; reduce: the reduce-scatter, then the gather",
    applies, add, NULL};
