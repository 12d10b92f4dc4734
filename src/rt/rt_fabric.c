/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rt_fabric.c — allgather, reduce-scatter, allreduce and broadcast on a fabric (link capacities,
 * switches: docs/fabrics.md) by the spanning trees that reach its throughput optimum
 * (gsp_fabric_trees), pipelined. Ranks are the compute nodes, in vertex order; a tree edge is a
 * message between two ranks, which the network routes through its switches.
 *
 * Each root's block is cut into `share` parts and tree i carries mult_i of them, so an arc's
 * load over the whole collective is what the packing gives it: T* = M / algbw*. Allgather and
 * broadcast: a rank forwards a tree's parts to its children in that tree as soon as they
 * arrive, segment by segment; reduce-scatter: the in-trees, each rank sending its partial sum
 * of a tree's parts to its parent once its children's have arrived; allreduce: the two, one
 * after the other. Cost: T* (1 + (depth - 1) / S) plus a latency per level and segment, S the
 * segments (gsp_rt_segments), depth the deepest tree in compute edges (the `levels`).
 *
 * Forests run as packed: a tree carries all its parts in one message per edge and segment, and
 * the trades between trees (fabric_swap.c), which split trees, are not taken (under SMPI,
 * dgx:8x2's 64 MiB allreduce took 990.7 us on the general packing's 93 trees as packed, 1109.2
 * on 186 traded ones). But a broadcast's trees more than GSP__RT_FILL_LEVELS deep run as trees
 * of one part each (a tree of multiplicity m as m trees of its shape), with the trades: a
 * network shares a link alike among the messages on it (SimGrid does, max-min), so a tree
 * carrying m parts in one message beside trees of one part moves at 1/m of the rate its plan
 * gives it, and its relays' waits add up level by level; as m messages it gets its m shares,
 * every tree is of one share, the segments may be many (rt_cost.c), and the trades split trees
 * at no message more. Measured under SMPI's defaults (bench/README.md), mi250:2's 64 MiB
 * broadcast (256 parts on 72 trees, 14 deep, as packed; 144 traded, 12 deep): 929.2 us as packed
 * in 2 segments, 439.9 a tree per part (29 segments), 429.9 traded (1.64x the bound). So do a
 * broadcast's shallow trees whose multiplicities differ, for the same reason: dgx:8x2's (3 deep)
 * with SMPI's factors at 1, 474.7 us as packed, 408.8 a tree per part. A broadcast's packing is
 * also relieved first (fabric_relieve.c: arcs beyond the binding cut taken off their limit, the
 * optimum and the depth kept): dgx:8x2's root's NVSwitch link, full as packed, carries 198 of
 * 300, and the broadcast a tree per part takes 405.6 us (1.21x the bound; 496.2 under SMPI's
 * defaults, where it took 640.6 as packed), mi250:2's 373.6 (385.3: 123 arcs at the limit, 33
 * relieved). Not for
 * the allgather: mi250:2's optimal packing a tree per part and traded (2656 trees, 18 deep, 4
 * segments) took 293.0 us at 64 MiB and 65.9 at 4 MiB, where the shallow trees (fabric-shallow,
 * 12 deep) take 235.8 and 42.0, and the cost model, which predicted the 293.0 within 1 %, puts
 * the shallow trees' 15 segments at 313.0 (it charges every segment a latency on an arc that
 * the many roots' trees share unsynchronized): depth, not the shares, is that gap.
 *
 * Windows: every edge keeps one segment of its tree in flight (mpi_engine.c), but a broadcast's
 * edges across its binding cuts keep GSP_RT_WIDE_WINDOW (two) where every tree crosses them
 * forward on one edge (a waist: the cuts' arcs from cut_arcs.c), and so do its edges back
 * across them. All its trees leave one root at one pace, so the messages on a waist arc run
 * their latencies together, and with one in flight each the arc idles meanwhile; it is the arc
 * that sets T*, so that idle time is the collective's. Under SMPI with its factors at 1, 64 MiB:
 * dgx:8x2 400.4 -> 380.1 us (1.13x the bound; its waist: box 0's NICs out and box 1's in),
 * mi250:2 370.4 -> 329.5 (1.26x; 256 edges across, 102 back: parts that box 0's far dies get
 * over the NICs' other direction; the 256 alone took 395.5). Not elsewhere: two in flight on
 * every edge took 406.9 and 355.9; on every edge over an arc at its limit, mi250:2 397.0 (two
 * xGMI arcs the packing happens to fill, on the way to the far dies); mi250:1's trees cross its
 * many pair cuts on 7 edges each, and two in flight there took 343.0 against 332.6. But where
 * every cut arc is a link to a switch (the cuts are the network's), two in flight across them
 * however often a tree crosses: dgx:8x4's trees cross its boxes' NICs on 3 edges each (one into
 * each box; as a chain of boxes, before fabric_boxes.c planned them two network hops deep, its 64
 * MiB broadcast under SMPI's defaults took 517.7 us with one, 453.1 with two: 1.54x -> 1.35x the
 * bound; two hops deep, 399.3). Such a waist (waist_chain) keeps them only where a lane lasts 1
 * to 4 latencies (mpi_engine.c: 1 MiB, and 64 MiB with SMPI's factors at 1, lost by them). An
 * allgather's trees (many roots, not in step) gain nothing (on the arcs at their limit: dgx:8x2
 * 231.5 -> 229.6, mi250:2's shallow trees 241.9 -> 301.7),
 * nor does a reduce-scatter (dgx:8x2 241.4 -> 255.7). But the ring trees' edges through a switch
 * (fabric-rings: GSP__RT_FOREST_WIDE_SWITCHED) keep two: there a NIC of 16 GB/s carries three
 * trees' segments of 15-44 KB beside xGMI links of 50-200, at 2/3 of its capacity, and with one
 * in flight each it idles a latency between segments. mi250:2, 64 MiB, SMPI's factors at 1:
 * reduce-scatter 242.3 -> 232.3 us, allreduce 460.2 -> 444.8, allgather 213.4 -> 211.1; four in
 * flight 232.3 again, two on every edge 257.5.
 *
 * Segments: a broadcast's parts (a tree each) are cut into the engine's lanes staggered, the odd
 * parts half a lane off the even ones (mpi_rt_int.h: stagger_cut), so that the equal messages
 * an arc carries do not all end, and start their successors' latencies, at once: mi250:2 329.6
 * -> 312.5 us under SMPI with its factors at 1. Not an allgather's or a reduce-scatter's with one
 * lane in flight, which lose by it (dgx:8x2 under SMPI's defaults: 332.3 -> 343.3 and 327.0 ->
 * 341.6); but on a box's trees an allgather, a reduce-scatter and an allreduce run staggered
 * with several in flight (mpi_engine.c: box_lanes; 332.3 -> 285.4, 327.0 -> 278.0, 641.6 ->
 * 542.5).
 *
 * Turns: a reduce-scatter's leaves send, within a lane, what their parents pass on first (FEEDS)
 * and what goes straight into a tree's root only once those have completed (ENDS; mpi_engine.c).
 * On dgx:8x2 every GPU's NVLink carries both: its sends to a relay of its box, whose sum then
 * takes a NIC, and its sends into roots of its box, which end there. Shared alike, a lane's sums
 * reached the relays only as every other message of the lane arrived, and the NICs waited a
 * segment at the start and idled at each lane's end; with the relays' parts first, the NICs run
 * from the first segment on. Under SMPI, 64 MiB: 241.4 -> 229.1 us with the factors at 1 (1.25x
 * -> 1.18x the bound), 372.6 -> 327.0 under the defaults. Only where the trees are two levels
 * deep, every relay sending into its root: deeper, a lane's FEEDS sends are most of a leaf's and
 * its relays wait on other relays too, and mi250:2's shallow trees (12 deep) took 278.0 -> 281.0;
 * there the engine gates the sends by level and lane instead (mpi_engine.c: GATE_AHEAD), which
 * needs a send's level: round / trees.
 * Not in an allreduce run as one (run_fused: 440.2 -> 450.8), where the allgather's sends share
 * the links from the start. The ring trees (fabric-rings) take turns too, by another rule: a
 * rank's sums that have the network still to cross (their way up to the root passes an edge
 * through a switch) go before those that do not. Shared alike, the relayed blocks' rings in the
 * other box fed their NICs at 62 % of their rate from 30.7 us on (a trace of mi250:2's 64 MiB
 * reduce-scatter, factors at 1), and the NICs drained the rest after the xGMI links had finished:
 * 232.3 -> 220.3 us (1.23x -> 1.16x the bound).
 *
 * Rounds: level * trees + tree. A tree's parts cross one edge in a round of their own, so a
 * message carries one tree's parts, which arrived together in one message (what a pipelined
 * phase needs of a message: rt_prog.c), and messages between two ranks have distinct rounds
 * (tags). Every rank packs the trees from the fabric alone (a property of the whole fabric, the
 * same on every rank, milliseconds at 64 GPUs: bench/README.md) and keeps them in the phase's
 * compact form; its program is computed from that by the phase's rule, without the transfers of
 * any other rank. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"
#include "rt_int.h"

/* Compute index (rank) of every vertex, -1 for a switch; *nc [out] the compute nodes. */
static gsp_err_t ranks_of(const gsp_topo_t *fab, int64_t **cidx, int64_t *nc) {
    gsp_err_t err = gsp_alloc_array((void **)cidx, fab->n, sizeof **cidx, false);
    if (err) return err;
    int64_t k = 0;
    for (int64_t v = 0; v < fab->n; v++) (*cidx)[v] = fab->is_switch && fab->is_switch[v] ? -1 : k++;
    *nc = k;
    return GSP_OK;
}

/* The phase's compact form (a rule phase: each rank computes its own transfers from it, no rank
 * the others'): param[0] trees, [1] parts per block (0: the broadcast's SPLIT blocks are the
 * parts), [2] levels, [3] reduce, [4] / [5] the trees' algbw (capacities' unit, as GB/s); tround[3i..3i+2] tree i's root rank, multiplicity and first
 * part; tchild_off[i..i+1] its edges, tparent[2e], tparent[2e+1] edge e's ranks (parent, child)
 * and tchild[e] its level. Round of edge e of tree i: level * trees + i. */
static gsp_err_t fabric_rule(const gsp_rt_phase_t *ph, const gsp_topo_t *t, int64_t me, gsp_rt_xfers_t *x) {
    (void)t;
    gsp_err_t err = GSP_OK;
    int64_t NT = ph->param[0], S = ph->param[1];
    bool reduce = ph->param[3] != 0;
    for (int64_t i = 0; i < NT && !err; i++) {
        int64_t m = ph->tround[3 * i + 1], first = ph->tround[3 * i + 2], base = S > 0 ? ph->tround[3 * i] * S : 0;
        for (int64_t e = ph->tchild_off[i]; e < ph->tchild_off[i + 1] && !err; e++) {
            int64_t u = ph->tparent[2 * e], v = ph->tparent[2 * e + 1], round = ph->tchild[e] * NT + i;
            /* Store: parent -> child; reduce: child -> parent. */
            int64_t from = reduce ? v : u, to = reduce ? u : v;
            if (from != me && to != me) continue;
            for (int64_t q = first; q < first + m && !err; q++) err = gsp_rt_xfers_add(x, to == me, round, from == me ? to : from, base + q);
        }
    }
    return err;
}

/* The window of a message of forest phase ph (gsp_rt_phase_t: window_of): its tree edge's twin,
 * the edge found in tree round % trees, between rank and peer in the data's direction. */
static int fabric_window(const gsp_rt_phase_t *ph, int64_t rank, int64_t round, int64_t peer, bool recv) {
    int64_t NT = ph->param[0], i = round % NT, level = round / NT;
    bool reduce = ph->param[3] != 0;
    int64_t from = recv ? peer : rank, to = recv ? rank : peer;
    for (int64_t e = ph->tchild_off[i]; e < ph->tchild_off[i + 1]; e++) {
        int64_t u = ph->tparent[2 * e], v = ph->tparent[2 * e + 1];
        if (ph->tchild[e] == level && (reduce ? v : u) == from && (reduce ? u : v) == to) return (int)ph->twin[e];
    }
    return 0;
}

/* The turn of a message of reduce phase ph (gsp_rt_phase_t: turn_of): rank sends to peer, its
 * parent in tree round % trees. A leaf's message that its parent passes on FEEDS, a leaf's message
 * into the tree's root ENDS (see the top); a relay's waits for its children anyway. */
static int fabric_turn(const gsp_rt_phase_t *ph, int64_t rank, int64_t round, int64_t peer) {
    int64_t NT = ph->param[0], i = round % NT, level = round / NT;
    bool found = false;
    for (int64_t e = ph->tchild_off[i]; e < ph->tchild_off[i + 1]; e++) {
        if (ph->tparent[2 * e] == rank) return GSP_RT_TURN_ANY; /* a relay */
        found |= ph->tchild[e] == level && ph->tparent[2 * e] == peer && ph->tparent[2 * e + 1] == rank;
    }
    if (!found) return GSP_RT_TURN_ANY;
    return peer == ph->tround[3 * i] ? GSP_RT_TURN_ENDS : GSP_RT_TURN_FEEDS;
}

/* The turn of a message of reduce phase ph whose switched edges keep a wider window (twin set:
 * GSP__RT_FOREST_WIDE_SWITCHED): rank's send to peer in tree round % trees FEEDS where the way
 * from rank up to the tree's root crosses such an edge (its sum has a NIC still to cross), else
 * ENDS (see the top). */
static int switched_turn(const gsp_rt_phase_t *ph, int64_t rank, int64_t round, int64_t peer) {
    int64_t NT = ph->param[0], i = round % NT, x = rank;
    (void)peer;
    /* Up the tree, one edge a step: at most its depth (param[2]) steps. */
    for (int64_t step = 0; step <= ph->param[2]; step++) {
        int64_t up = -1;
        for (int64_t e = ph->tchild_off[i]; e < ph->tchild_off[i + 1] && up < 0; e++)
            if (ph->tparent[2 * e + 1] == x) {
                if (ph->twin[e]) return GSP_RT_TURN_FEEDS;
                up = ph->tparent[2 * e];
            }
        if (up < 0) break;
        x = up;
    }
    return GSP_RT_TURN_ENDS;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Appends to al the pipelined phase of forest f for the N ranks (compute nodes): store (out-trees,
 * data parent -> child) or reduce (in-trees, child -> parent); blocks as the layout numbers them:
 * RANK and SPLIT over the N ranks, part q of rank x's block is x * share + q (per_rank); SPLIT
 * over share blocks (broadcast), block q. Its statistics are counted from the trees (what the
 * transfers would give, without making them). */
static gsp_err_t forest_phase(gsp_rt_algo_t *al, int64_t N, const gsp_topo_t *fab, const gsp_forest_t *f, gsp_rt_kind_t kind,
                              gsp_rt_layout_t layout, bool per_rank, unsigned flags) {
    gsp_err_t err;
    int64_t *cidx = NULL, *dep = NULL, *off = NULL, *kids = NULL, *pairs = NULL, nc, NT = f->ntrees, S = f->share, H = 0, E = 0;
    bool reduce = kind == GSP_RT_REDUCE;
    gsp_rt_phase_t *p = &al->phase[al->nphases];
    memset(p, 0, sizeof *p);
    if ((err = ranks_of(fab, &cidx, &nc))) return err;
    if (nc != N) {
        err = gsp_error(GSP_ERR_INVAL, "%s has %lld compute nodes, not %lld", fab->spec, (long long)nc, (long long)N);
        goto done;
    }
    for (int64_t i = 0; i < NT; i++) E += f->trees[i].nedges;
    if ((err = gsp_alloc_array((void **)&dep, fab->n, sizeof *dep, false)) || (err = gsp_alloc_array((void **)&off, fab->n, sizeof *off, true)) ||
        (err = gsp_alloc_array((void **)&kids, fab->n, sizeof *kids, true)) || (err = gsp_alloc_array((void **)&pairs, E + 1, sizeof *pairs, false)) ||
        (err = gsp_alloc_array((void **)&p->tround, 3 * NT + 1, sizeof *p->tround, false)) ||
        (err = gsp_alloc_array((void **)&p->tchild_off, NT + 1, sizeof *p->tchild_off, false)) ||
        (err = gsp_alloc_array((void **)&p->tparent, 2 * E + 1, sizeof *p->tparent, false)) ||
        (err = gsp_alloc_array((void **)&p->tchild, E + 1, sizeof *p->tchild, false)))
        goto done;
    /* The trees' depths (compute edges from the root; parents come before children). */
    for (int64_t i = 0; i < NT; i++) {
        const gsp_tree_t *T = &f->trees[i];
        dep[T->root] = 0;
        for (int64_t e = 0; e < T->nedges; e++) {
            dep[T->to[e]] = dep[T->from[e]] + 1;
            if (dep[T->to[e]] > H) H = dep[T->to[e]];
        }
    }
    if (H * NT > ((int64_t)1 << 20)) {
        err = gsp_error(GSP_ERR_TOOBIG, "%s: %lld trees %lld deep: more rounds than the runtime's tags hold (2^20)", fab->spec, (long long)NT,
                        (long long)H);
        goto done;
    }
    /* Parts in lowest terms: only the trees' proportions matter here, and fewer parts a block
     * round less (the box trees' exact loads take 455 parts on dgx:8x2, 91 suffice). */
    int64_t gm = S;
    for (int64_t i = 0; i < NT && gm > 1; i++) gm = (int64_t)gsp__gcd128(gm, f->trees[i].mult);
    if (gm < 1) gm = 1;
    S /= gm;
    int64_t R = H * NT;
    if ((err = gsp__rt_stat_arrays(p, R))) goto done;
    int64_t k = 0;
    for (int64_t i = 0; i < NT; i++) {
        const gsp_tree_t *T = &f->trees[i];
        p->tround[3 * i] = cidx[T->root];
        int64_t m = T->mult / gm;
        p->tround[3 * i + 1] = m;
        p->tround[3 * i + 2] = off[T->root];
        off[T->root] += m;
        p->tchild_off[i] = k;
        dep[T->root] = 0;
        for (int64_t e = 0; e < T->nedges; e++) {
            int64_t a = T->from[e], b = T->to[e], L;
            dep[b] = dep[a] + 1;
            L = reduce ? H - dep[b] : dep[b] - 1;
            p->tparent[2 * k] = cidx[a];
            p->tparent[2 * k + 1] = cidx[b];
            p->tchild[k] = L;
            /* The statistics of round L * NT + i: each edge one message of mult blocks between
             * its own pair; the parent sends to (store) or hears from (reduce) all its children
             * at that level, the child one message. */
            int64_t r = L * NT + i, c = ++kids[a];
            p->maxblk[r] = m;
            p->moved[r] += m;
            if (c > p->maxmsg[r]) p->maxmsg[r] = c;
            if (reduce && c * m > p->maxred[r]) p->maxred[r] = c * m;
            int64_t u = reduce ? cidx[b] : cidx[a], v = reduce ? cidx[a] : cidx[b];
            pairs[k] = u * N + v;
            k++;
        }
        /* A node's children all sit one level below it, so its count over the tree is its
         * count in that round; reset for the next tree. */
        for (int64_t e = 0; e < T->nedges; e++) kids[T->from[e]] = 0;
    }
    p->tchild_off[NT] = k;
    /* The busiest pair over the phase: the blocks of all its edges, summed per pair (the pairs'
     * keys sorted, each edge's found by bisection). */
    qsort(pairs, (size_t)E, sizeof *pairs, cmp_i64);
    int64_t *sum = NULL;
    if ((err = gsp_alloc_array((void **)&sum, E + 1, sizeof *sum, true))) goto done; /* E >= 1: two ranks at least */
    for (int64_t i = 0; i < NT; i++)
        for (int64_t e = p->tchild_off[i]; e < p->tchild_off[i + 1]; e++) {
            int64_t u = p->tparent[2 * e + (reduce ? 1 : 0)], v = p->tparent[2 * e + (reduce ? 0 : 1)], key = u * N + v, lo = 0, hi = E - 1;
            while (lo < hi) {
                int64_t mid = (lo + hi) / 2;
                if (pairs[mid] < key) lo = mid + 1;
                else hi = mid;
            }
            sum[lo] += p->tround[3 * i + 1];
            if (sum[lo] > p->busiest) p->busiest = sum[lo];
        }
    gsp_free(sum);
    p->kind = kind;
    p->layout = layout;
    p->source = GSP_RT_SRC_RULE;
    p->rule = fabric_rule;
    p->param[0] = NT;
    p->param[1] = per_rank ? S : 0;
    p->param[2] = H;
    p->param[3] = reduce;
    /* The trees' algbw (exact, in the capacities' unit: M / T*), for the cost model's time of
     * the phase (rt_cost.c): the capacities taken as GB/s. */
    p->param[4] = f->num;
    p->param[5] = f->den;
    /* The edges from a relay (not from the root), over all edges, each by its multiplicity: the
     * cost model's pipeline (rt_cost.c). Reduce: the same count, a reduce-scatter being the
     * allgather reversed in time (its relays wait at the start where the allgather's do at the
     * end). */
    int64_t wait = 0, all = 0;
    for (int64_t i = 0; i < NT; i++) {
        const gsp_tree_t *T = &f->trees[i];
        for (int64_t e = 0; e < T->nedges; e++) {
            all += T->mult;
            if (T->from[e] != T->root) wait += T->mult;
        }
    }
    p->param[6] = wait;
    p->param[7] = all;
    /* A broadcast's edges whose route crosses its binding cuts' arcs, or their reverses, keep
     * GSP_RT_WIDE_WINDOW segments in flight where every tree crosses them forward once (a waist:
     * see the top); an allgather's and a reduce's keep one. */
    if (f->collective == GSP_COLL_BROADCAST) {
        uint8_t *cut = NULL;
        if ((err = gsp_alloc_array((void **)&cut, fab->m + 1, 1, false)) || (err = gsp__broadcast_cut_arcs(fab, f->root, cut)) ||
            (err = gsp_alloc_array((void **)&p->twin, E + 1, sizeof *p->twin, true))) {
            gsp_free(cut);
            goto done;
        }
        /* cut[a] |= 2 where a's reverse is a cut arc: an edge back across the waist, which keeps
         * two in flight as well. */
        for (int64_t u = 0; u < fab->n; u++)
            for (int64_t a = fab->off[u]; a < fab->off[u + 1]; a++)
                if (cut[a] & 1)
                    for (int64_t b = fab->off[fab->adj[a]]; b < fab->off[fab->adj[a] + 1]; b++)
                        if (fab->adj[b] == u) cut[b] |= 2;
        /* Or where every cut arc is a switch's link (the cuts are the network's: dgx:8x4's
         * trees cross its boxes' NICs on 3 edges each, a chain of boxes). */
        bool waist = true, switched = fab->is_switch != NULL, once = true;
        for (int64_t u = 0; u < fab->n && switched; u++)
            for (int64_t a = fab->off[u]; a < fab->off[u + 1] && switched; a++)
                if ((cut[a] & 1) && !fab->is_switch[u] && !fab->is_switch[fab->adj[a]]) switched = false;
        for (int64_t i = 0, e = 0; i < NT; i++) {
            const gsp_tree_t *T = &f->trees[i];
            int64_t crossing = 0;
            for (int64_t k2 = 0; k2 < T->nedges; k2++, e++) {
                bool fw = false, bw = false;
                for (int64_t h = T->hop_off[k2]; h < T->hop_off[k2 + 1]; h++) fw |= cut[T->hops[h]] & 1, bw |= (cut[T->hops[h]] & 2) != 0;
                if (fw || bw) p->twin[e] = GSP_RT_WIDE_WINDOW;
                crossing += fw;
            }
            waist &= crossing == 1 || switched;
            once &= crossing == 1;
        }
        p->waist_chain = waist && !once;
        gsp_free(cut);
        if (waist) p->window_of = fabric_window;
        else {
            gsp_free(p->twin);
            p->twin = NULL;
        }
    }
    /* Edges routed through a switch keep GSP_RT_WIDE_WINDOW segments in flight where the forest
     * asks (GSP__RT_FOREST_WIDE_SWITCHED: fabric-rings, whose network links are thin beside the
     * boxes' links and carry 2/3 of what they could, so a latency between segments is idle time
     * that a second segment fills without taking from a binding arc; see the top). */
    if (f->collective != GSP_COLL_BROADCAST && (flags & GSP__RT_FOREST_WIDE_SWITCHED)) {
        if ((err = gsp_alloc_array((void **)&p->twin, E + 1, sizeof *p->twin, true))) goto done;
        bool any = false;
        for (int64_t i = 0, e = 0; i < NT; i++) {
            const gsp_tree_t *T = &f->trees[i];
            for (int64_t k2 = 0; k2 < T->nedges; k2++, e++)
                if (T->hop_off[k2 + 1] - T->hop_off[k2] > 1) p->twin[e] = GSP_RT_WIDE_WINDOW, any = true;
        }
        if (any) p->window_of = fabric_window;
        else {
            gsp_free(p->twin);
            p->twin = NULL;
        }
    }
    /* A reduce's leaves send what their parents pass on first, where every relay sends into its
     * root (two levels: see the top). */
    if (reduce && H == 2) p->turn_of = fabric_turn;
    /* And where switched edges keep a wider window, the sums that have a NIC still to cross go
     * first (see the top). */
    if (reduce && p->twin && (flags & GSP__RT_FOREST_WIDE_SWITCHED)) p->turn_of = switched_turn;
    p->streams = f->collective == GSP_COLL_BROADCAST && (flags & GSP__RT_FOREST_STREAMS);
    p->nrounds = R;
    for (int64_t r = 0; r < R; r++) p->ntransfers += p->moved[r];
    p->pipelined = true;
    p->levels = H;
    if (per_rank) p->parts = S;
    else p->nblocks = S;
    al->nphases++;
done:
    if (err) gsp__rt_phase_destroy(p);
    gsp_free(cidx);
    gsp_free(dep);
    gsp_free(off);
    gsp_free(kids);
    gsp_free(pairs);
    return err;
}


/* f with every tree of multiplicity m cut into m trees of the same shape, each one part
 * (mult = the gcd of the multiplicities, which forest_phase divides out). The copies share
 * their edge arrays with f: release u with gsp_free(u->trees) alone. */
static gsp_err_t unit_forest(const gsp_forest_t *f, gsp_forest_t *u) {
    int64_t gm = f->share, n = 0;
    for (int64_t i = 0; i < f->ntrees && gm > 1; i++) gm = (int64_t)gsp__gcd128(gm, f->trees[i].mult);
    if (gm < 1) gm = 1;
    for (int64_t i = 0; i < f->ntrees; i++) n += f->trees[i].mult / gm;
    *u = *f;
    u->trees = NULL;
    gsp_err_t err = gsp_alloc_array((void **)&u->trees, n, sizeof *u->trees, false);
    if (err) return err;
    u->ntrees = 0;
    for (int64_t i = 0; i < f->ntrees; i++)
        for (int64_t j = 0; j < f->trees[i].mult / gm; j++) {
            u->trees[u->ntrees] = f->trees[i];
            u->trees[u->ntrees++].mult = gm;
        }
    return GSP_OK;
}

/* Whether forest f runs a tree per part (see the top): a broadcast's, deeper than
 * GSP__RT_FILL_LEVELS or of trees of unequal multiplicities. */
static bool per_part(const gsp_forest_t *f) {
    if (f->collective != GSP_COLL_BROADCAST) return false;
    if (f->depth > GSP__RT_FILL_LEVELS) return true;
    for (int64_t i = 1; i < f->ntrees; i++)
        if (f->trees[i].mult != f->trees[0].mult) return true;
    return false;
}

/* The phase of forest f: as trees of one part each (unit_forest) where per_part and the rounds'
 * tags hold them; else as it is. */
static gsp_err_t phase_of(gsp_rt_algo_t *al, int64_t N, const gsp_topo_t *fab, const gsp_forest_t *f, gsp_rt_kind_t kind,
                          gsp_rt_layout_t layout, bool per_rank, unsigned flags) {
    if (!per_part(f)) return forest_phase(al, N, fab, f, kind, layout, per_rank, flags);
    gsp_forest_t u;
    gsp_err_t err = unit_forest(f, &u);
    if (err) return err;
    if (u.ntrees * f->depth > ((int64_t)1 << 20)) {
        /* More rounds than the tags hold (forest_phase): the trees as they are. */
        gsp_free(u.trees);
        return forest_phase(al, N, fab, f, kind, layout, per_rank, flags);
    }
    err = forest_phase(al, N, fab, &u, kind, layout, per_rank, flags);
    gsp_free(u.trees);
    return err;
}

static bool applies(const gsp__rt_ctx_t *x) { return x->fabric != NULL; }

static int cmp_arc3(const void *a, const void *b) {
    const int64_t *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i]) return (x[i] > y[i]) - (x[i] < y[i]);
    return 0;
}

/* Whether every arc u -> v of capacity c has its own reverse v -> u of capacity c (arcs sorted
 * as (tail, head, cap) and as (head, tail, cap): the same list). Out of memory: no. */
static bool symmetric(const gsp_topo_t *t) {
    if (t->directed) return false;
    int64_t m = t->m, *fw = NULL, *bw = NULL;
    if (gsp_alloc_array((void **)&fw, 3 * m + 3, sizeof *fw, false) || gsp_alloc_array((void **)&bw, 3 * m + 3, sizeof *bw, false)) {
        gsp_free(fw);
        gsp_free(bw);
        gsp_error_clear();
        return false;
    }
    for (int64_t u = 0; u < t->n; u++)
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
            int64_t v = t->adj[a], c = t->cap ? t->cap[a] : 1;
            fw[3 * a] = u, fw[3 * a + 1] = v, fw[3 * a + 2] = c;
            bw[3 * a] = v, bw[3 * a + 1] = u, bw[3 * a + 2] = c;
        }
    qsort(fw, (size_t)m, 3 * sizeof *fw, cmp_arc3);
    qsort(bw, (size_t)m, 3 * sizeof *bw, cmp_arc3);
    bool same = !memcmp(fw, bw, (size_t)(3 * m) * sizeof *fw);
    gsp_free(fw);
    gsp_free(bw);
    return same;
}

gsp_err_t gsp__rt_forest_algo(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al, gsp__rt_forest_fn build, const char *what, unsigned flags) {
    gsp_err_t err = GSP_OK;
    gsp_forest_t f;
    const gsp_topo_t *fab = x->fabric;
    int64_t depth = 0, trees = 0;
    char bw[96] = "";
    memset(&f, 0, sizeof f);
    if (x->coll == GSP_COLL_ALLREDUCE && symmetric(fab)) {
        /* One forest for both phases: the allgather's trees, reversed for the reduce-scatter
         * (on a fabric whose every arc has a reverse of the same capacity, the same algbw).
         * Both phases then cut the blocks into the same parts, so the engine may start a
         * part's allgather as soon as its sum is complete (mpi_engine.c: run_fused). */
        if ((err = build(fab, GSP_COLL_ALLGATHER, -1, &f))) return err;
        err = phase_of(al, x->t->n, fab, &f, GSP_RT_REDUCE, GSP_RT_SPLIT, true, flags);
        if (!err) err = phase_of(al, x->t->n, fab, &f, GSP_RT_STORE, GSP_RT_SPLIT, true, flags);
        snprintf(bw, sizeof bw, "%lld/%lld, reversed for the reduce-scatter", (long long)f.num, (long long)f.den);
        depth = f.depth;
        if (!err) trees = al->phase[al->nphases - 1].param[0];
        gsp_forest_destroy(&f);
        if (err) return err;
    } else {
        if (x->coll == GSP_COLL_REDUCE_SCATTER || x->coll == GSP_COLL_ALLREDUCE) {
            if ((err = build(fab, GSP_COLL_REDUCE_SCATTER, -1, &f))) return err;
            err = phase_of(al, x->t->n, fab, &f, GSP_RT_REDUCE, GSP_RT_SPLIT, true, flags);
            depth = f.depth;
            if (!err) trees += al->phase[al->nphases - 1].param[0];
            snprintf(bw, sizeof bw, "%lld/%lld", (long long)f.num, (long long)f.den);
            gsp_forest_destroy(&f);
            if (err) return err;
        }
        if (x->coll == GSP_COLL_ALLGATHER || x->coll == GSP_COLL_ALLREDUCE) {
            if ((err = build(fab, GSP_COLL_ALLGATHER, -1, &f))) return err;
            err = phase_of(al, x->t->n, fab, &f, GSP_RT_STORE, x->coll == GSP_COLL_ALLREDUCE ? GSP_RT_SPLIT : GSP_RT_RANK, true, flags);
            if (f.depth > depth) depth = f.depth;
            if (!err) trees += al->phase[al->nphases - 1].param[0];
            size_t at = strlen(bw);
            snprintf(bw + at, sizeof bw - at, "%s%lld/%lld", at ? " and " : "", (long long)f.num, (long long)f.den);
            gsp_forest_destroy(&f);
            if (err) return err;
        }
        if (x->coll == GSP_COLL_BROADCAST) {
            int64_t rv = -1, k = 0;
            for (int64_t v = 0; v < fab->n && rv < 0; v++)
                if (!(fab->is_switch && fab->is_switch[v]) && k++ == x->root) rv = v;
            if ((err = build(fab, GSP_COLL_BROADCAST, rv, &f))) return err;
            err = phase_of(al, x->t->n, fab, &f, GSP_RT_STORE, GSP_RT_SPLIT, false, flags);
            depth = f.depth;
            if (!err) trees = al->phase[al->nphases - 1].param[0];
            snprintf(bw, sizeof bw, "%lld/%lld", (long long)f.num, (long long)f.den);
            gsp_forest_destroy(&f);
            if (err) return err;
        }
    }
    snprintf(al->built_from, sizeof al->built_from, "%lld %s (algbw %s), %lld deep, pipelined", (long long)trees, what, bw, (long long)depth);
    return GSP_OK;
}

/* The packing that reaches the optimum: as packed, but a broadcast's, run a tree per part, with
 * the trades between trees (fabric_swap.c; see the top), then relieved (fabric_relieve.c: no
 * deeper than the trades left it). */
static gsp_err_t optimal(const gsp_topo_t *fab, gsp_collective_t c, int64_t root, gsp_forest_t *out) {
    gsp_err_t err = gsp__fabric_trees(fab, c, root, false, out);
    if (err || c != GSP_COLL_BROADCAST) return err;
    /* Trees run as trees of one part each (phase_of) take the trades' splits at no message
     * more: take them, for their shallower trees. */
    if (per_part(out) && (err = gsp__forest_swap(fab, out))) goto fail;
    if ((err = gsp__forest_relieve(fab, out, NULL)) || (err = gsp_forest_algbw(fab, out, &out->num, &out->den))) goto fail;
    return GSP_OK;
fail:
    gsp_forest_destroy(out);
    return err;
}

static gsp_err_t add(const gsp__rt_ctx_t *x, gsp_rt_algo_t *al) {
    return gsp__rt_forest_algo(x, al, optimal, "spanning trees at the throughput optimum", 0);
}

const gsp__rt_method_t gsp__rt_fabric = {
    "fabric-trees",
    GSP__RT_COLL(GSP_COLL_ALLGATHER) | GSP__RT_COLL(GSP_COLL_REDUCE_SCATTER) | GSP__RT_COLL(GSP_COLL_ALLREDUCE) | GSP__RT_COLL(GSP_COLL_BROADCAST),
    "fabrics (link capacities, switches): ranks are the compute nodes",
    "the deepest tree, pipelined",
    "the spanning trees that reach the fabric's throughput optimum (gsp_fabric_trees), each root's block cut into parts in their multiplicities (a broadcast's: relieved, and a tree per part where deeper than 3 levels or of unequal multiplicities), pipelined; reduce-scatter: the in-trees; allreduce: both",
    applies, add, NULL};

gsp_err_t gsp_rt_fabric_algos(const gsp_topo_t *fabric, const gsp_topo_t *ranks, const gsp_distances_t *d, gsp_collective_t c, int64_t root,
                              gsp_rt_algos_t *out) {
    gsp_err_t err;
    memset(out, 0, sizeof *out);
    out->topo = ranks;
    out->dist = d;
    snprintf(out->method, sizeof out->method, "%s", "auto");
    int64_t nc = gsp_topo_compute_count(fabric);
    if (nc != ranks->n)
        return gsp_error(GSP_ERR_INVAL, "%s has %lld compute nodes, the ranks' graph %lld", fabric->spec, (long long)nc, (long long)ranks->n);
    if (!(gsp__rt_fabric.colls & GSP__RT_COLL(c)))
        return gsp_error(GSP_ERR_NOTAPPLIC, "no runtime algorithm for %s on a fabric (%s)", gsp_collective_name(c), fabric->spec);
    /* The fabric's algorithms, in the registry's order (ties go to the first). */
    static const gsp__rt_method_t *const fab_methods[] = {&gsp__rt_fabric, &gsp__rt_fabric_shallow, &gsp__rt_fabric_rings, &gsp__rt_fabric_streams};
    bool rooted = c == GSP_COLL_BROADCAST;
    if (rooted && (root < 0 || root >= nc)) return gsp_error(GSP_ERR_RANGE, "root %lld outside 0..%lld", (long long)root, (long long)nc - 1);
    gsp__rt_ctx_t x;
    memset(&x, 0, sizeof x);
    x.set = out;
    x.t = ranks;
    x.d = d;
    x.coll = c;
    x.root = rooted ? root : -1;
    x.fabric = fabric;
    for (size_t i = 0; i < sizeof fab_methods / sizeof *fab_methods; i++) {
        gsp_rt_algo_t *al;
        if (!(fab_methods[i]->colls & GSP__RT_COLL(c)) || !fab_methods[i]->applies(&x)) continue;
        if (!(err = gsp__rt_add_algo(out, fab_methods[i]->name, c, x.root, &al)) && (err = fab_methods[i]->add(&x, al)) == GSP_ERR_NOTAPPLIC) {
            /* Declined once its forest was built (fabric-streams: not few wide trees). */
            for (int k = 0; k < al->nphases; k++) gsp__rt_phase_destroy(&al->phase[k]);
            out->n--;
            gsp_error_clear();
            continue;
        }
        if (err) {
            gsp_rt_algos_destroy(out);
            return err;
        }
    }
    return GSP_OK;
}
