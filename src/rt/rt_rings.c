/* rt_rings.c — dimension-wise rings on every port at once (tori of any shape, hypercubes).
 *
 * The vector (allgather: each rank's block) is cut into Q parts, one per arc of a node (Q = the
 * degree: 2k on a k-dimensional torus, one per dimension of side 2). Part p belongs to arc p,
 * along dimension j_p in direction s_p. Its reduce-scatter runs one ring per dimension, in the
 * order j_p, j_p + 1, ... (cyclically), always in direction s_p: in the stage of dimension d,
 * every ring of d (the nodes that differ only in coordinate d) reduce-scatters the blocks its
 * nodes still hold, cut into P_d segments by the owner's coordinate d, in P_d - 1 steps
 * (step s: coordinate c sends segment c - s_p(s + 1) to c + s_p and adds the segment c - s_p(s + 2)
 * arriving from c - s_p). After the k stages block (x, p) is complete at x. The allgather is the
 * same rings in the reverse order of dimensions.
 *
 * Rounds: sum over d of (P_d - 1) per phase (30 on 16x16, 62 on 32x32, K on the K-cube, where it
 * is multiport recursive halving and doubling). Load: in the first stage part p alone uses arc
 * p with segments of 1/P of the part; later stages carry P times less. So every arc carries
 * about (P - 1)/P of a part, V/Q: the all-port bandwidth bound of a reduce-scatter, within
 * 1 + 1/P. Exact: block (x, p) is summed along one chain of its ring stages and copied after.
 *
 * Broadcast: the root's parts are scattered down the same rings (in each ring the node at the
 * root's coordinate streams the other segments, farthest first), then the allgather; reduce: the
 * reduce-scatter, then the scatter run backwards (a gather into the root). The root's arcs each
 * carry about a part: the broadcast's bandwidth bound V/Q within 1 + 1/P, in 2 sum (P_d - 1)
 * rounds.
 *
 * Example: torus:4x4, Q = 4; part 0 (dimension 0, +): stage 0, the rings of dimension 0 (4 nodes)
 * pass segments of 4 blocks 3 steps, stage 1 the rings of dimension 1 pass single blocks 3
 * steps: 6 rounds, against 4 for the flood (at twice the load) and 4 + 4 for the p = 1 rs-ag. */
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

/* Part p's dimension and direction: arc p of the identity goes to +e_j (s = 1) or -e_j. */
static void part_of(const gsp_topo_t *t, int64_t p, int *dim, int *dir) {
    const gsp_group_t *g = t->group;
    int64_t s = t->adj[t->off[0] + p];
    for (int j = 0; j < g->k; j++) {
        if (s == g->stride[j]) {
            *dim = j;
            *dir = 1;
            return;
        }
        if (s == g->stride[j] * (g->mod[j] - 1)) {
            *dim = j;
            *dir = -1;
            return;
        }
    }
    *dim = 0;
    *dir = 1;
}

/* The arc of the identity along dimension j in direction dir (a side of 2 has one). */
static int64_t arc_of(const gsp_topo_t *t, int j, int dir) {
    const gsp_group_t *g = t->group;
    int64_t want = dir > 0 ? g->stride[j] : g->stride[j] * (g->mod[j] - 1), d = t->off[1] - t->off[0];
    for (int64_t i = 0; i < d; i++)
        if (t->adj[t->off[0] + i] == want) return i;
    return -1;
}

static int64_t mod(int64_t a, int64_t m) { return ((a % m) + m) % m; }

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

/* The scatter from the root (param[0] = 2), or its reverse, the gather into the root (3):
 * rank r's transfers for part p. In stage i (dimension d = order[i]) the nodes that agree with
 * the root on the later dimensions hold the blocks whose owners agree with them on the earlier
 * ones; the node of each ring of d at the root's coordinate streams the other P - 1 segments
 * down the ring, farthest first: the node at offset j (from the source, along dir) sends in
 * steps j .. P-2 the segment of offset P-1-s+j and receives in steps j-1 .. P-2 the segment of
 * offset P-1-s+(j-1) — its own last. The gather runs every transfer backwards. */
static gsp_err_t scatter_part(const gsp_topo_t *t, int64_t r, int64_t p, int64_t Q, const int64_t *c, const int64_t *rc, bool gather,
                              int64_t R, gsp_rt_xfers_t *x) {
    gsp_err_t err = GSP_OK;
    const gsp_group_t *g = t->group;
    int k = g->k, j0, dir, order[GSP_MAX_DIMS];
    int64_t cn[GSP_MAX_DIMS];
    part_of(t, p, &j0, &dir);
    for (int i = 0; i < k; i++) order[i] = (j0 + i) % k;
    int64_t round = 0;
    for (int i = 0; i < k && !err; i++) {
        int d = order[i];
        int64_t P = g->mod[d];
        bool in = true;
        for (int f = i + 1; f < k; f++) in &= c[order[f]] == rc[order[f]];
        if (in) {
            int64_t j = mod((c[d] - rc[d]) * dir, P);
            memcpy(cn, c, (size_t)k * sizeof *cn);
            cn[d] = mod(c[d] + dir, P);
            int64_t down = gsp_group_index(g, cn);
            cn[d] = mod(c[d] - dir, P);
            int64_t up = gsp_group_index(g, cn);
            for (int64_t s = 0; s < P - 1 && !err; s++) {
                if (s >= j && j < P - 1) {
                    int64_t seg = mod(rc[d] + dir * (P - 1 - s + j), P);
                    err = gather ? segment(g, order, i, c, seg, p, Q, true, R - 1 - (round + s), down, x)
                                 : segment(g, order, i, c, seg, p, Q, false, round + s, down, x);
                }
                if (!err && j >= 1 && s >= j - 1) {
                    int64_t seg = mod(rc[d] + dir * (P - 1 - s + j - 1), P);
                    err = gather ? segment(g, order, i, c, seg, p, Q, false, R - 1 - (round + s), up, x)
                                 : segment(g, order, i, c, seg, p, Q, true, round + s, up, x);
                }
            }
        }
        round += P - 1;
    }
    return err;
}

/* The rule: param[0] = 0 reduce-scatter, 1 allgather, 2 scatter from param[1], 3 gather into it. */
static gsp_err_t rings_rule(const gsp_rt_phase_t *ph, const gsp_topo_t *t, int64_t r, gsp_rt_xfers_t *x) {
    gsp_err_t err = GSP_OK;
    const gsp_group_t *g = t->group;
    int k = g->k;
    int64_t Q = ph->parts, c[GSP_MAX_DIMS], cn[GSP_MAX_DIMS];
    bool ag = ph->param[0] == 1;
    gsp_group_coords(g, r, c);
    if (ph->param[0] >= 2) {
        int64_t rc[GSP_MAX_DIMS];
        gsp_group_coords(g, ph->param[1], rc);
        for (int64_t p = 0; p < Q && !err; p++) err = scatter_part(t, r, p, Q, c, rc, ph->param[0] == 3, ph->nrounds, x);
        return err;
    }
    for (int64_t p = 0; p < Q && !err; p++) {
        int j0, dir, order[GSP_MAX_DIMS];
        part_of(t, p, &j0, &dir);
        for (int i = 0; i < k; i++) order[i] = (j0 + i) % k;
        int64_t round = 0;
        for (int st = 0; st < k && !err; st++) {
            int i = ag ? k - 1 - st : st, d = order[i];
            int64_t P = g->mod[d], cd = c[d];
            memcpy(cn, c, (size_t)k * sizeof *cn);
            cn[d] = mod(cd + dir, P);
            int64_t to = gsp_group_index(g, cn);
            cn[d] = mod(cd - dir, P);
            int64_t from = gsp_group_index(g, cn);
            for (int64_t s = 0; s < P - 1 && !err; s++) {
                /* Reduce-scatter: send c - dir(s+1), receive c - dir(s+2); allgather: send
                 * c - dir s, receive c - dir(s+1). */
                int64_t sseg = mod(cd - dir * (s + (ag ? 0 : 1)), P), rseg = mod(cd - dir * (s + (ag ? 1 : 2)), P);
                if (!(err = segment(g, order, i, c, sseg, p, Q, false, round + s, to, x)))
                    err = segment(g, order, i, c, rseg, p, Q, true, round + s, from, x);
            }
            round += P - 1;
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
    bool allgather = mode == 1 || mode == 3, scatter = mode >= 2;
    gsp_err_t err;
    const gsp_group_t *g = t->group;
    int k = g->k;
    int64_t Q = t->off[1] - t->off[0], R = 0, n = t->n, *per = NULL, *tot = NULL, *snd = NULL;
    memset(p, 0, sizeof *p);
    for (int j = 0; j < k; j++) R += g->mod[j] - 1;
    p->kind = kind;
    p->layout = layout;
    p->source = GSP_RT_SRC_RULE;
    p->rule = rings_rule;
    p->param[0] = mode;
    p->param[1] = root;
    p->parts = Q;
    p->nrounds = R;
    if ((err = gsp_alloc_array((void **)&p->maxblk, R + 1, sizeof *p->maxblk, true)) ||
        (err = gsp_alloc_array((void **)&p->maxred, R + 1, sizeof *p->maxred, true)) ||
        (err = gsp_alloc_array((void **)&p->maxmsg, R + 1, sizeof *p->maxmsg, true)) ||
        (err = gsp_alloc_array((void **)&p->moved, R + 1, sizeof *p->moved, true)) ||
        (err = gsp_alloc_array((void **)&per, (R + 1) * Q, sizeof *per, true)) || (err = gsp_alloc_array((void **)&tot, Q + 1, sizeof *tot, true)) ||
        (err = gsp_alloc_array((void **)&snd, R + 1, sizeof *snd, true)))
        goto done;
    /* Every node does the same: per round, blocks on each of its arcs. */
    for (int64_t q = 0; q < Q; q++) {
        int j0, dir, order[GSP_MAX_DIMS];
        part_of(t, q, &j0, &dir);
        for (int i = 0; i < k; i++) order[i] = (j0 + i) % k;
        int64_t round = 0;
        for (int st = 0; st < k; st++) {
            /* The scatter runs the stages forward, the gather (its reverse) backwards, as the
             * allgather does the reduce-scatter's. */
            int i = allgather ? k - 1 - st : st, d = order[i];
            int64_t a = arc_of(t, d, mode == 3 ? -dir : dir), b = seg_blocks(g, order, i), rings = 1;
            for (int f = 0; f < i; f++) rings *= g->mod[order[f]];
            for (int64_t s = 0; s < g->mod[d] - 1; s++) {
                per[(round + s) * Q + a] += b;
                /* Senders in this step: every node (rings); the first s + 1 of each ring (scatter). */
                snd[round + s] += scatter ? (mode == 2 ? s + 1 : g->mod[d] - 1 - s) * rings * b : n * b;
            }
            round += g->mod[d] - 1;
        }
    }
    for (int64_t r = 0; r < R; r++) {
        int64_t all = 0;
        for (int64_t a = 0; a < Q; a++) {
            int64_t b = per[r * Q + a];
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
    for (int64_t a = 0; a < Q; a++)
        if (tot[a] > p->busiest) p->busiest = tot[a];
done:
    gsp_free(per);
    gsp_free(tot);
    gsp_free(snd);
    return err;
}

static bool applies(const gsp__rt_ctx_t *x) { return gsp__rt_rings_apply(x->t); }

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
    "tori of any shape, hypercubes", "Σ(P_d − 1) a phase (the K-cube: K)",
    "one part of the vector per arc; each part reduce-scatters along a ring per dimension, its arc's dimension first, then back (the K-cube: multiport recursive halving and doubling); broadcast: the parts scattered from the root down the same rings, then the allgather; reduce: the reduce-scatter, then the gather",
    applies, add, NULL};
