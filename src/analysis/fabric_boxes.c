/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_boxes.c — two-level trees for boxes of GPUs on a switch with a NIC each (a DGX's
 * NVSwitch and InfiniBand): allgather and reduce-scatter at the throughput optimum in trees of
 * depth at most 2, where the general packing (edge splitting, then arborescence packing) finds
 * trees 5 to 7 compute edges deep on dgx:8x2 — and each level of a tree is a message latency
 * and a relay's wait in the runtime (rt_fabric.c).
 *
 * The fabric: b >= 2 boxes of k >= 2 compute nodes; in each box every node has a link of
 * capacity s each way to the box's switch, which touches nothing else, and a link of capacity
 * u each way to one network switch that every compute node touches. Per root r, of its block
 * (one unit):
 *   - relay tree i (i = 0 .. k-1, a fraction (1 - w) / k each): r sends to its box-mates through
 *     its box switch and, through the network switch, to node i of every other box, which sends
 *     on to its own box-mates through its box switch (depth 2);
 *   - the direct tree (a fraction w): r sends to its box-mates through its box switch and to
 *     every node of every other box through the network switch (depth 1).
 * Per node, summed over all roots (by symmetry every node's links carry the same):
 *   network link:  (b-1) (1 + w (k-1)) units,
 *   box link:      (k-1) + (b-1) (1-w) (k-1) units,
 * and w balances the two times, s (b-1) (1 + w (k-1)) = u (k-1) (1 + (b-1) (1-w)):
 *   w = (u (k-1) b - s (b-1)) / ((k-1) (b-1) (s + u)), clamped to [0, 1].
 * dgx:8x2 (s = 300, u = 25): w = 2/91, each node's ingress 325 carries its 15 blocks: the
 * optimum 1040/3 (ForestColl's 346.67 GB/s). Whether the trees reach the optimum is not
 * assumed: gsp_fabric_trees recounts their link loads and keeps them only when they reach the
 * optimum exactly (with w clamped, e.g. dgx:4x2 where the NICs bind, they still may).
 *
 * A broadcast across three boxes or more: trees two network hops deep (broadcast_trees), where
 * the general packing chains the boxes. */
#include <stdint.h>
#include <string.h>

#include "analysis_int.h"
#include "gossip/fabric.h"

static bool is_sw(const gsp_topo_t *t, int64_t x) { return t->is_switch && t->is_switch[x]; }

static int64_t capof(const gsp_topo_t *t, int64_t a) { return t->cap ? t->cap[a] : 1; }

typedef struct {
    int64_t b, k, net;  /* boxes, nodes a box, the network switch */
    int64_t *box;       /* per vertex: its box (compute nodes), -1 otherwise */
    int64_t *idx;       /* per compute vertex: its index in its box */
    int64_t *member;    /* member[box * k + i]: the box's i-th compute vertex */
    int64_t *bsw;       /* per box: its switch */
    int64_t s, u;       /* box and network link capacities */
} boxes_t;

static void boxes_free(boxes_t *B) {
    gsp_free(B->box);
    gsp_free(B->idx);
    gsp_free(B->member);
    gsp_free(B->bsw);
    memset(B, 0, sizeof *B);
}

/* Recognises the fabric's shape; *ok false (and B empty) when it is not of it. */
static gsp_err_t recognise(const gsp_topo_t *t, boxes_t *B, bool *ok) {
    gsp_err_t err;
    int64_t n = t->n, N = gsp_topo_compute_count(t);
    *ok = false;
    memset(B, 0, sizeof *B);
    B->net = -1;
    if (!t->is_switch || N < 4) return GSP_OK;
    /* The network switch: the one every compute node touches. */
    for (int64_t x = 0; x < n && B->net < 0; x++) {
        if (!is_sw(t, x) || t->off[x + 1] - t->off[x] != N) continue;
        bool all = true;
        for (int64_t a = t->off[x]; a < t->off[x + 1] && all; a++) all = !is_sw(t, t->adj[a]);
        if (all) B->net = x;
    }
    if (B->net < 0) return GSP_OK;
    if ((err = gsp_alloc_array((void **)&B->box, n, sizeof *B->box, false)) || (err = gsp_alloc_array((void **)&B->idx, n, sizeof *B->idx, false)) ||
        (err = gsp_alloc_array((void **)&B->bsw, n, sizeof *B->bsw, false)) ||
        (err = gsp_alloc_array((void **)&B->member, N, sizeof *B->member, false)))
        goto fail;
    for (int64_t x = 0; x < n; x++) B->box[x] = -1;
    B->s = B->u = -1;
    /* Every other switch is a box: only compute nodes, each with exactly two links (its box
     * switch and the network switch), the same capacity each way. */
    int64_t boxes = 0, k = -1, seen = 0;
    for (int64_t x = 0; x < n; x++) {
        if (!is_sw(t, x) || x == B->net) continue;
        int64_t deg = t->off[x + 1] - t->off[x];
        if (k < 0) k = deg;
        if (deg != k || k < 2) goto no;
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            int64_t y = t->adj[a], back = gsp__arc(t, y, x), up = gsp__arc(t, y, B->net), down = gsp__arc(t, B->net, y);
            if (is_sw(t, y) || B->box[y] >= 0 || t->off[y + 1] - t->off[y] != 2 || back < 0 || up < 0 || down < 0) goto no;
            if (B->s < 0) B->s = capof(t, a), B->u = capof(t, up);
            if (capof(t, a) != B->s || capof(t, back) != B->s || capof(t, up) != B->u || capof(t, down) != B->u) goto no;
            B->box[y] = boxes;
            B->idx[y] = a - t->off[x];
            B->member[boxes * k + (a - t->off[x])] = y;
            seen++;
        }
        B->bsw[boxes++] = x;
    }
    if (boxes < 2 || seen != N || B->s <= 0 || B->u <= 0) goto no;
    B->b = boxes;
    B->k = k;
    *ok = true;
    return GSP_OK;
no:
    boxes_free(B);
    return GSP_OK;
fail:
    boxes_free(B);
    return err;
}

/* Appends edge u -> v through switch w (data from u to v; reversed trees: from v to u). */
static void edge(const gsp_topo_t *t, gsp_tree_t *T, int64_t *e, int64_t *h, int64_t u, int64_t v, int64_t w, bool rev) {
    T->from[*e] = u;
    T->to[*e] = v;
    T->hop_off[*e] = *h;
    int64_t x = rev ? v : u, y = rev ? u : v;
    T->hops[(*h)++] = gsp__arc(t, x, w);
    T->hops[(*h)++] = gsp__arc(t, w, y);
    (*e)++;
    T->hop_off[*e] = *h;
}

/* A new tree of root r and multiplicity mult spanning N compute nodes, its edges still to come. */
static gsp_err_t new_tree(gsp_forest_t *out, int64_t r, int64_t mult, int64_t N, gsp_tree_t **T) {
    gsp_err_t err;
    *T = &out->trees[out->ntrees++];
    (*T)->root = r;
    (*T)->mult = mult;
    (*T)->nedges = N - 1;
    if ((err = gsp_alloc_array((void **)&(*T)->from, N, sizeof *(*T)->from, false)) ||
        (err = gsp_alloc_array((void **)&(*T)->to, N, sizeof *(*T)->to, false)) ||
        (err = gsp_alloc_array((void **)&(*T)->hop_off, N + 1, sizeof *(*T)->hop_off, false)) ||
        (err = gsp_alloc_array((void **)&(*T)->hops, 2 * N, sizeof *(*T)->hops, false)))
        return err;
    (*T)->hop_off[0] = 0;
    return GSP_OK;
}

/* A broadcast from root r across b >= 3 boxes, two network hops deep: tree (i, g), one for each
 * node index i and each box g but the root's (rb), carries a share 1 / (k (b - 1)) of the data:
 * r -> node i of its box (through the box switch, unless r is that node) -> node i of box g
 * (through the network switch), which sends it on to node i of every other box but rb's; each
 * of those (and node i of box g) to its box-mates. Box rb's node i passes its trees on to its
 * box-mates; where i is r's own index, r's trees reach its box-mates through one relay each
 * (box-mate (g mod (k - 1)) in turn, not r), so that r's box link carries the data once,
 * not twice. Per node i, at a data rate of k u (every NIC of box rb busy: the optimum where
 * the box links allow): box rb's NIC out carries its b - 1 trees, u; box g's NIC in its own tree
 * from rb and the b - 2 others' from their boxes, u; its NIC out (b - 2) u / (b - 1). The
 * general packing (edge splitting, arborescence packing) reaches the same optimum by a chain of
 * boxes, rb -> one box -> the next, b - 1 network hops deep, and each hop adds a lane's
 * latency and a relay's wait to the call (rt_fabric.c). Whether it is optimal is not assumed:
 * the caller recounts the loads (gsp_forest_algbw). */
static gsp_err_t broadcast_trees(const gsp_topo_t *t, const boxes_t *B, int64_t r, gsp_forest_t *out) {
    gsp_err_t err;
    int64_t b = B->b, k = B->k, N = b * k, rb = B->box[r], ri = B->idx[r];
    if ((err = gsp_alloc_array((void **)&out->trees, k * (b - 1) + 1, sizeof *out->trees, true))) return err;
    out->root = r;
    out->share = k * (b - 1);
    for (int64_t i = 0; i < k; i++)
        for (int64_t g = 0; g < b; g++) {
            if (g == rb) continue;
            gsp_tree_t *T;
            if ((err = new_tree(out, r, 1, N, &T))) return err;
            int64_t e = 0, h = 0, head = B->member[rb * k + i], mid = B->member[g * k + i];
            /* Parents before children. */
            if (i != ri) edge(t, T, &e, &h, r, head, B->bsw[rb], false);
            edge(t, T, &e, &h, head, mid, B->net, false);
            int64_t from = head, relay = -1;
            if (i == ri) { /* r's own trees: through a relay, not r, to its box-mates */
                int64_t x = g % (k - 1);
                relay = B->member[rb * k + (x >= ri ? x + 1 : x)];
                edge(t, T, &e, &h, r, relay, B->bsw[rb], false);
                from = relay;
            }
            for (int64_t j = 0; j < k; j++) {
                int64_t y = B->member[rb * k + j];
                if (y != r && y != head && y != relay) edge(t, T, &e, &h, from, y, B->bsw[rb], false);
            }
            for (int64_t o = 0; o < b; o++)
                if (o != rb && o != g) edge(t, T, &e, &h, mid, B->member[o * k + i], B->net, false);
            for (int64_t o = 0; o < b; o++) {
                if (o == rb) continue;
                for (int64_t j = 0; j < k; j++)
                    if (j != i) edge(t, T, &e, &h, B->member[o * k + i], B->member[o * k + j], B->bsw[o], false);
            }
            T->depth = i != ri ? 4 : 3;
            T->hop_depth = 2 * T->depth;
            if (T->depth > out->depth) out->depth = T->depth;
            if (T->hop_depth > out->hop_depth) out->hop_depth = T->hop_depth;
        }
    return GSP_OK;
}

gsp_err_t gsp__forest_boxes(const gsp_topo_t *t, gsp_collective_t c, int64_t root, gsp_forest_t *out, bool *ok) {
    gsp_err_t err;
    boxes_t B;
    *ok = false;
    memset(out, 0, sizeof *out);
    if (c != GSP_COLL_ALLGATHER && c != GSP_COLL_REDUCE_SCATTER && c != GSP_COLL_BROADCAST) return GSP_OK;
    if ((err = recognise(t, &B, ok)) || !*ok) return err;
    *ok = false;
    int64_t b = B.b, k = B.k, N = b * k;
    out->collective = c;
    out->root = -1;
    if (c == GSP_COLL_BROADCAST) {
        /* Two boxes: the general packing's trees reach every box in one network hop already
         * (dgx:8x2: 3 deep, docs/fabrics.md). */
        if (b < 3 || root < 0 || root >= t->n || B.box[root] < 0) goto done;
        if ((err = broadcast_trees(t, &B, root, out))) goto done;
        goto scale;
    }
    bool rev = c == GSP_COLL_REDUCE_SCATTER;
    /* w = wn / wd, clamped, in lowest terms d / S: each root's block is S parts, d of them on
     * the direct tree and the other S - d on the relay trees, q or q + 1 each (S - d = q k +
     * rem): relay tree i of a root of index j carries q + 1 parts when (i - j) mod k < rem, so
     * that every node relays the same number of parts, (b - 1) (S - d), whatever the roots. */
    gsp__i128 wn = (gsp__i128)B.u * (k - 1) * b - (gsp__i128)B.s * (b - 1), wd = (gsp__i128)(k - 1) * (b - 1) * (B.s + B.u);
    if (wn < 0) wn = 0;
    if (wn > wd) wn = wd;
    gsp__i128 g = wn > 0 ? gsp__gcd128(wn, wd) : wd, S = wd / g, d = wn / g, q = (S - d) / k, rem = (S - d) % k;
    if (S >= ((gsp__i128)1 << 40)) goto done;
    int64_t per = k + 1;
    if ((err = gsp_alloc_array((void **)&out->trees, N * per + 1, sizeof *out->trees, true))) goto done;
    out->reversed = rev;
    out->share = (int64_t)S;
    for (int64_t r = 0; r < t->n; r++) {
        if (B.box[r] < 0) continue;
        int64_t rb = B.box[r];
        for (int64_t i = 0; i <= k; i++) {
            /* i < k: relay tree through node i of the other boxes; i == k: the direct tree. */
            int64_t mult = (int64_t)(i == k ? d : q + (((i - B.idx[r]) % k + k) % k < rem ? 1 : 0));
            if (mult == 0) continue;
            gsp_tree_t *T;
            if ((err = new_tree(out, r, mult, N, &T))) goto done;
            int64_t e = 0, h = 0;
            /* Parents before children: the root's edges first, then the relays'. */
            for (int64_t j = 0; j < k; j++)
                if (B.member[rb * k + j] != r) edge(t, T, &e, &h, r, B.member[rb * k + j], B.bsw[rb], rev);
            for (int64_t ob = 0; ob < b; ob++) {
                if (ob == rb) continue;
                for (int64_t j = 0; j < k; j++)
                    if (i == k || j == i) edge(t, T, &e, &h, r, B.member[ob * k + j], B.net, rev);
            }
            if (i < k)
                for (int64_t ob = 0; ob < b; ob++) {
                    if (ob == rb) continue;
                    for (int64_t j = 0; j < k; j++)
                        if (j != i) edge(t, T, &e, &h, B.member[ob * k + i], B.member[ob * k + j], B.bsw[ob], rev);
                }
            T->depth = i < k ? 2 : 1;
            T->hop_depth = 2 * T->depth;
            if (T->depth > out->depth) out->depth = T->depth;
            if (T->hop_depth > out->hop_depth) out->hop_depth = T->hop_depth;
        }
    }
    /* cap_factor: the least integer q with every arc's load at most q cap; the multiplicities
     * are scaled so that the tightest arc meets it exactly (as the general packing's do). */
scale : {
        gsp__i128 *load = NULL;
        if ((err = gsp_alloc_array((void **)&load, t->m + 1, sizeof *load, true))) goto done;
        for (int64_t i = 0; i < out->ntrees; i++)
            for (int64_t h = 0; h < out->trees[i].hop_off[N - 1]; h++) load[out->trees[i].hops[h]] += out->trees[i].mult;
        gsp__i128 bn = 0, bd = 1; /* the largest load / cap */
        for (int64_t a = 0; a < t->m; a++)
            if (load[a] * bd > bn * capof(t, a)) bn = load[a], bd = capof(t, a);
        gsp_free(load);
        gsp__i128 gg = gsp__gcd128(bn, bd);
        bn /= gg;
        bd /= gg;
        if (bn == 0 || (gsp__i128)out->share * bd >= ((gsp__i128)1 << 40)) goto done;
        out->share = (int64_t)(out->share * bd);
        for (int64_t i = 0; i < out->ntrees; i++) out->trees[i].mult = (int64_t)(out->trees[i].mult * bd);
        out->cap_factor = (int64_t)bn;
    }
    if ((err = gsp_forest_algbw(t, out, &out->num, &out->den))) goto done;
    out->value = (double)out->num / (double)out->den;
    *ok = true;
done:
    boxes_free(&B);
    if (err || !*ok) gsp_forest_destroy(out);
    return err;
}
