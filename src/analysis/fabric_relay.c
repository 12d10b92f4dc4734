/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_relay.c — relay trees for boxes of directly linked compute nodes, each with a link into
 * one network switch (mi250:B: 16 GCDs on xGMI links, a NIC each): allgather and reduce-scatter
 * by one packing of a box alone, used in every box at once.
 *
 * The fabric: b >= 2 boxes of k >= 2 compute nodes (the components of the links between compute
 * nodes), alike (node i of every box has the links of node i of box 0, at the same capacities),
 * and one switch, linked to every compute node; no other switch. Let F be a packing of the box's
 * allgather (sub: trees tau from every node i, multiplicities summing to share). Root r, node i of
 * box B, sends along tau in B, over its link to the switch to node i of every other box, which
 * sends on along the same tau in its own box: one tree of N nodes per tau, of tau's multiplicity,
 * 1 + depth(tau) deep. Every box then runs F b times over (its own blocks and the b - 1 relayed
 * to its nodes): a box link's load is b times F's, and each NIC carries b - 1 blocks each way.
 *
 * Why: where the packings that reach the fabric's optimum are deep (mi250:2's: 23 levels, a
 * direct network inside each box), the box alone has a shallow packing at its own optimum (its
 * rings, fabric_rings.c: 8 deep on the MI250 box), and the relay keeps it one level deeper.
 * On mi250:2 the NICs then carry each block once at 2/3 of their capacity and the xGMI links
 * bind at the box's rate, 2400/7 (0.968 of the optimum 5312/15, which sends some blocks across
 * twice); with four or more MI250 boxes the NICs bind and the relay reaches the optimum.
 *
 * The trees' algbw is recounted from their routes (gsp_forest_algbw), never assumed. */
#include <string.h>

#include "analysis_int.h"
#include "gossip/fabric.h"

static bool is_sw(const gsp_topo_t *t, int64_t x) { return t->is_switch && t->is_switch[x]; }
static int64_t capof(const gsp_topo_t *t, int64_t a) { return t->cap ? t->cap[a] : 1; }

typedef struct {
    int64_t b, k, net;
    int64_t *box, *idx; /* per vertex: its box and index in it (compute nodes), -1 otherwise */
    int64_t *member;    /* member[box * k + i] */
} relay_t;

static void relay_free(relay_t *R) {
    gsp_free(R->box);
    gsp_free(R->idx);
    gsp_free(R->member);
    memset(R, 0, sizeof *R);
}

/* Recognises the shape; *ok false when the fabric is not of it. */
static gsp_err_t recognise(const gsp_topo_t *t, relay_t *R, bool *ok) {
    gsp_err_t err;
    int64_t n = t->n, N = gsp_topo_compute_count(t), *queue = NULL;
    *ok = false;
    memset(R, 0, sizeof *R);
    R->net = -1;
    if (!t->is_switch || N < 4 || n != N + 1) return GSP_OK;
    for (int64_t x = 0; x < n; x++)
        if (is_sw(t, x)) R->net = x;
    if (t->off[R->net + 1] - t->off[R->net] != N) return GSP_OK;
    if ((err = gsp_alloc_array((void **)&R->box, n, sizeof *R->box, false)) || (err = gsp_alloc_array((void **)&R->idx, n, sizeof *R->idx, false)) ||
        (err = gsp_alloc_array((void **)&R->member, N, sizeof *R->member, false)) || (err = gsp_alloc_array((void **)&queue, n, sizeof *queue, false)))
        goto fail;
    for (int64_t x = 0; x < n; x++) R->box[x] = R->idx[x] = -1;
    /* Boxes: components of the links between compute nodes, in vertex order; every compute node
     * has its link back from the switch. */
    int64_t b = 0, k = -1, placed = 0;
    for (int64_t s = 0; s < n; s++) {
        if (is_sw(t, s) || R->box[s] >= 0) continue;
        int64_t head = 0, tail = 0, size = 0;
        queue[tail++] = s;
        R->box[s] = b;
        while (head < tail) {
            int64_t x = queue[head++];
            size++;
            if (gsp__arc(t, R->net, x) < 0) goto no;
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
                int64_t y = t->adj[a];
                if (is_sw(t, y) || R->box[y] >= 0) continue;
                R->box[y] = b;
                queue[tail++] = y;
            }
        }
        if (k < 0) k = size;
        if (size != k) goto no;
        b++;
    }
    if (b < 2 || k < 2) goto no;
    /* Members by vertex order within each box. */
    {
        int64_t *fill = queue;
        for (int64_t B = 0; B < b; B++) fill[B] = 0;
        for (int64_t x = 0; x < n; x++)
            if (R->box[x] >= 0) {
                R->idx[x] = fill[R->box[x]]++;
                R->member[R->box[x] * k + R->idx[x]] = x;
                placed++;
            }
    }
    if (placed != N) goto no;
    /* Alike: node i of box B has, towards compute nodes, exactly the links of node i of box 0. */
    for (int64_t B = 1; B < b; B++)
        for (int64_t i = 0; i < k; i++) {
            int64_t x = R->member[B * k + i], x0 = R->member[i], deg = 0, deg0 = 0;
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
                int64_t y = t->adj[a];
                if (is_sw(t, y)) continue;
                deg++;
                int64_t a0 = gsp__arc(t, x0, R->member[R->idx[y]]);
                if (a0 < 0 || capof(t, a0) != capof(t, a)) goto no;
            }
            for (int64_t a = t->off[x0]; a < t->off[x0 + 1]; a++) deg0 += !is_sw(t, t->adj[a]);
            if (deg != deg0) goto no;
        }
    R->b = b;
    R->k = k;
    gsp_free(queue);
    *ok = true;
    return GSP_OK;
no:
    gsp_free(queue);
    relay_free(R);
    return GSP_OK;
fail:
    gsp_free(queue);
    relay_free(R);
    return err;
}

/* Box 0 alone as a fabric of k compute nodes. */
static gsp_err_t box_fabric(const gsp_topo_t *t, const relay_t *R, gsp_topo_t *H) {
    gsp_err_t err;
    int64_t na = 0, *arcs = NULL, *cap = NULL;
    for (int64_t i = 0; i < R->k; i++) {
        int64_t x = R->member[i];
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) na += !is_sw(t, t->adj[a]);
    }
    if ((err = gsp_alloc_array((void **)&arcs, 2 * na + 1, sizeof *arcs, false)) || (err = gsp_alloc_array((void **)&cap, na + 1, sizeof *cap, false)))
        goto done;
    na = 0;
    for (int64_t i = 0; i < R->k; i++) {
        int64_t x = R->member[i];
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            if (is_sw(t, t->adj[a])) continue;
            arcs[2 * na] = i;
            arcs[2 * na + 1] = R->idx[t->adj[a]];
            cap[na++] = capof(t, a);
        }
    }
    err = gsp_topo_from_arcs(H, R->k, arcs, cap, na, 1, NULL, NULL, "box");
done:
    gsp_free(arcs);
    gsp_free(cap);
    return err;
}

gsp_err_t gsp__forest_relay(const gsp_topo_t *t, gsp_collective_t c, gsp__forest_builder_fn sub, gsp_forest_t *out, bool *ok) {
    gsp_err_t err;
    relay_t R;
    gsp_topo_t H;
    gsp_forest_t F;
    int64_t *htail = NULL;
    memset(&H, 0, sizeof H);
    memset(&F, 0, sizeof F);
    memset(out, 0, sizeof *out);
    *ok = false;
    if (c != GSP_COLL_ALLGATHER && c != GSP_COLL_REDUCE_SCATTER) return GSP_OK;
    if ((err = recognise(t, &R, ok)) || !*ok) return err;
    *ok = false;
    int64_t b = R.b, k = R.k, N = b * k;
    bool rev = c == GSP_COLL_REDUCE_SCATTER;
    if ((err = box_fabric(t, &R, &H)) || (err = sub(&H, c, -1, &F))) goto done;
    if ((err = gsp_alloc_array((void **)&htail, H.m + 1, sizeof *htail, false))) goto done;
    for (int64_t x = 0; x < H.n; x++)
        for (int64_t a = H.off[x]; a < H.off[x + 1]; a++) htail[a] = x;
    if ((err = gsp_alloc_array((void **)&out->trees, b * F.ntrees + 1, sizeof *out->trees, true))) goto done;
    out->collective = c;
    out->root = -1;
    out->reversed = rev;
    out->share = F.share;
    for (int64_t B = 0; B < b; B++)
        for (int64_t f = 0; f < F.ntrees; f++) {
            const gsp_tree_t *tau = &F.trees[f];
            int64_t r = R.member[B * k + tau->root], hl = tau->hop_off[tau->nedges];
            gsp_tree_t *T = &out->trees[out->ntrees++];
            T->root = r;
            T->mult = tau->mult;
            T->nedges = N - 1;
            if ((err = gsp_alloc_array((void **)&T->from, N, sizeof *T->from, false)) ||
                (err = gsp_alloc_array((void **)&T->to, N, sizeof *T->to, false)) ||
                (err = gsp_alloc_array((void **)&T->hop_off, N + 1, sizeof *T->hop_off, false)) ||
                (err = gsp_alloc_array((void **)&T->hops, b * hl + 2 * (b - 1) + 1, sizeof *T->hops, false)))
                goto done;
            int64_t e = 0, h = 0;
            T->hop_off[0] = 0;
            /* Parents before children: tau in B, the NIC edges, tau in every other box. */
            for (int64_t pass = 0; pass < 3; pass++)
                for (int64_t ob = 0; ob < b; ob++) {
                    if ((pass == 0) != (ob == B) || (pass == 1 && ob == B)) continue;
                    if (pass == 1) {
                        int64_t v = R.member[ob * k + tau->root], x = rev ? v : r, y = rev ? r : v;
                        T->from[e] = r;
                        T->to[e] = v;
                        T->hops[h++] = gsp__arc(t, x, R.net);
                        T->hops[h++] = gsp__arc(t, R.net, y);
                        T->hop_off[++e] = h;
                        continue;
                    }
                    for (int64_t j = 0; j < tau->nedges; j++) {
                        T->from[e] = R.member[ob * k + tau->from[j]];
                        T->to[e] = R.member[ob * k + tau->to[j]];
                        for (int64_t q = tau->hop_off[j]; q < tau->hop_off[j + 1]; q++) {
                            int64_t ha = tau->hops[q];
                            T->hops[h++] = gsp__arc(t, R.member[ob * k + htail[ha]], R.member[ob * k + H.adj[ha]]);
                        }
                        T->hop_off[++e] = h;
                    }
                }
            T->depth = tau->depth + 1;
            T->hop_depth = tau->hop_depth + 2;
            if (T->depth > out->depth) out->depth = T->depth;
            if (T->hop_depth > out->hop_depth) out->hop_depth = T->hop_depth;
        }
    if ((err = gsp__forest_fit(t, out)) || (err = gsp_forest_algbw(t, out, &out->num, &out->den))) goto done;
    out->value = (double)out->num / (double)out->den;
    out->flows = F.flows;
    *ok = true;
done:
    gsp_free(htail);
    gsp_forest_destroy(&F);
    gsp_topo_destroy(&H);
    relay_free(&R);
    if (err || !*ok) gsp_forest_destroy(out);
    return err;
}

gsp_err_t gsp__relay_shape(const gsp_topo_t *t, bool *ok) {
    relay_t R;
    gsp_err_t err = recognise(t, &R, ok);
    relay_free(&R);
    return err;
}
