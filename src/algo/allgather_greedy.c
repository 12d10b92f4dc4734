/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allgather_greedy.c — gossip with p packets per arc on any graph by a per-round matching
 * heuristic: each receiver takes, on each of its in-arcs, up to p distinct packets that the
 * sender holds and it lacks, preferring the packets held by the fewest nodes (rarest first),
 * so that no packet is left behind while others flood; the in-arcs with the fewest packets to
 * offer choose first, and an arc left empty takes a packet from one that can switch (an
 * augmenting step). Randomised ties; restarted with other seeds until the counting bound.
 *
 * Applies with finite p, all ports, full duplex, wherever the explicit rounds fit in memory
 * (N(N-1) transfers: 10^4 nodes take about 2.4 GB; gsp__explicit_allgather_fits). A round costs
 * about its transfers times the degree, not N^2 bits (see greedy_t). Rounds: no guarantee; the
 * verifier counts them and `plan` reports the gap to ceil((N-1)/(p delta)). Receivers with
 * the fewest choices pick first on each in-arc, which is a greedy matching between in-arcs and
 * missing packets. Example: torus:5x5 with p = 1 in 7 rounds against the
 * bound 6 (the rotation method of the packet-gossip paper reaches 6). Baseline. */
#include <string.h>

#include "algo_int.h"

#define CANDIDATES 64 /* packets examined per in-arc and round ... */
#define CANDIDATES_UPTO 4096
/* ... and above 4096 nodes, where examining them was most of the time (10^8 transfers at 10^4
 * nodes, 64 holder counts compared for each). 16, 8 and 64 all meet the counting bound on a
 * 64x64 mesh (2048 rounds) and a random 4-regular graph of 4096 nodes (1024) and 4 misses it by
 * one there; 16 keeps a margin. Up to 4096 nodes the schedules are the ones 64 always made. */
#define CANDIDATES_LARGE 16

/* The model's needs are the registry's (finite packets, all ports, full duplex); what is the
 * greedy's own is its size: N(N-1) explicit transfers must fit in memory. */
static bool applies(const gsp_plan_in_t *in, char *why, size_t n) { return gsp__explicit_allgather_fits(in->topo, why, n); }

static int64_t rounds(const gsp_plan_in_t *in) { return -1; }

/* What one run keeps besides the schedule. A round must cost about its transfers, not N^2 bits:
 * on 10^4 nodes a scan of both rows of every in-arc in every round is 10^10 word operations.
 * So the number of packets each in-arc can offer (|H_u \ H_v|, which orders the in-arcs) is kept
 * exact at every delivery instead of counted, and the words where an in-arc has something to
 * offer are kept as a summary bit per word and in-arc, so the search for a packet visits only
 * those. Both cost O(d) word operations per delivered packet. */
typedef struct {
    int64_t n, W, SW;
    gsp_word_t *held;            /* n rows of W words: the packets each node holds */
    gsp_word_t *dsum;            /* at in-arc position k (u -> v), SW words: bit w set when word
                                  * w of H_u \ H_v is not empty */
    int64_t *holders, *count;    /* nodes holding each packet; packets each node holds */
    int64_t *ioff, *iadj, *rpos; /* in-arcs (reverse CSR, so digraphs work too); rpos[a]: the
                                  * position of CSR arc a among the in-arcs */
    int64_t *diff;               /* at in-arc position k (u -> v): |H_u \ H_v| */
} greedy_t;

static void greedy_destroy(greedy_t *g) {
    gsp_free(g->held);
    gsp_free(g->dsum);
    gsp_free(g->holders);
    gsp_free(g->count);
    gsp_free(g->ioff);
    gsp_free(g->iadj);
    gsp_free(g->rpos);
    gsp_free(g->diff);
}

static gsp_err_t greedy_init(greedy_t *g, const gsp_topo_t *t) {
    gsp_err_t err;
    int64_t n = t->n, *pos = NULL;
    g->n = n;
    g->W = (int64_t)GSP_WORDS(n);
    g->SW = (int64_t)GSP_WORDS(g->W);
    if ((err = gsp_alloc_array((void **)&g->held, n * g->W, sizeof *g->held, true)) ||
        (err = gsp_alloc_array((void **)&g->dsum, t->m * g->SW, sizeof *g->dsum, true)) ||
        (err = gsp_alloc_array((void **)&g->holders, n, sizeof *g->holders, false)) ||
        (err = gsp_alloc_array((void **)&g->count, n, sizeof *g->count, false)) ||
        (err = gsp_alloc_array((void **)&g->ioff, n + 1, sizeof *g->ioff, true)) ||
        (err = gsp_alloc_array((void **)&g->iadj, t->m, sizeof *g->iadj, false)) ||
        (err = gsp_alloc_array((void **)&g->rpos, t->m, sizeof *g->rpos, false)) ||
        (err = gsp_alloc_array((void **)&g->diff, t->m, sizeof *g->diff, false)) ||
        (err = gsp_alloc_array((void **)&pos, n, sizeof *pos, false)))
        return err;
    for (int64_t a = 0; a < t->m; a++) g->ioff[t->adj[a] + 1]++;
    for (int64_t x = 0; x < n; x++) g->ioff[x + 1] += g->ioff[x];
    memcpy(pos, g->ioff, (size_t)n * sizeof *pos);
    for (int64_t u = 0; u < n; u++)
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
            int64_t k = pos[t->adj[a]]++;
            g->iadj[k] = u;
            g->rpos[a] = k;
            g->diff[k] = u != t->adj[a]; /* H_u = {u}, H_v = {v} */
            if (g->diff[k]) gsp_bit_set(g->dsum + k * g->SW, u >> 6);
        }
    gsp_free(pos);
    for (int64_t x = 0; x < n; x++) {
        gsp_bit_set(g->held + x * g->W, x);
        g->holders[x] = 1;
        g->count[x] = 1;
    }
    return GSP_OK;
}

/* Of the packets u holds and v lacks (in-arc position k), not in taken: the one held by the
 * fewest nodes among the first `limit` found scanning words cyclically from a random one (ties
 * to the first found); -1 when there is none. avail (-1: unknown) is how many there are: the
 * scan stops when it has seen them all. The words are visited in gsp__rarest_missing's order,
 * skipping only those where the arc offers nothing, so the choice (and the random stream) is
 * the same as a full scan's. */
static int64_t rarest(const greedy_t *g, int64_t k, int64_t u, int64_t v, const gsp_word_t *taken, int64_t avail, int64_t limit,
                      gsp_rng_t *rng) {
    const gsp_word_t *hu = g->held + u * g->W, *hv = g->held + v * g->W, *ds = g->dsum + k * g->SW;
    int64_t W = g->W, start = (int64_t)gsp_rng_below(rng, (uint64_t)W), best = -1, seen = 0;
    int64_t stop = avail >= 0 && avail < limit ? avail : limit;
    for (int pass = 0; pass < 2 && seen < stop; pass++) {
        int64_t lo = pass ? 0 : start, hi = pass ? start : W;
        if (lo >= hi) continue;
        for (int64_t sw = lo >> 6; sw <= (hi - 1) >> 6; sw++) {
            gsp_word_t m = ds[sw];
            if (sw == lo >> 6) m &= ~(gsp_word_t)0 << (lo & 63);
            if (sw == (hi - 1) >> 6 && (hi & 63)) m &= ((gsp_word_t)1 << (hi & 63)) - 1;
            while (m) {
                int64_t w = sw * 64 + __builtin_ctzll(m);
                m &= m - 1;
                gsp_word_t c = hu[w] & ~hv[w] & ~taken[w];
                while (c && seen < stop) {
                    int64_t x = w * 64 + __builtin_ctzll(c);
                    c &= c - 1;
                    seen++;
                    if (best < 0 || g->holders[x] < g->holders[best]) best = x;
                }
                if (seen >= stop) return best;
            }
        }
    }
    return best;
}

/* How many packets u offers v beyond the taken ones, from the exact count offer = |H_u \ H_v|
 * (every taken packet is one v lacks): -1 (unknown, at least CANDIDATES) when the count is
 * large or the taken list too long to be worth going through. */
static int64_t available(const greedy_t *g, int64_t u, int64_t offer, const int64_t *tlist, int64_t ntaken) {
    if (offer >= CANDIDATES + ntaken || ntaken > CANDIDATES) return -1;
    const gsp_word_t *hu = g->held + u * g->W;
    for (int64_t i = 0; i < ntaken; i++) offer -= gsp_bit_get(hu, tlist[i]);
    return offer;
}

/* Sets the summary bit of word w at in-arc position k (u -> v). */
static inline void summarise(greedy_t *g, int64_t k, int64_t u, int64_t v, int64_t w) {
    gsp_word_t *ds = g->dsum + k * g->SW;
    if (g->held[u * g->W + w] & ~g->held[v * g->W + w]) gsp_bit_set(ds, w);
    else gsp_bit_clear(ds, w);
}

/* Delivers the round's sends [b, nsends) (usable from the next round on) and keeps the
 * summaries and the in-arc counts exact: v gaining x takes x off what each in-neighbour holding
 * it offers v (tested before x is set), and adds it to what v offers each out-neighbour lacking
 * it (tested after, so that a loop v -> v stays at 0). O(d) per new packet. */
static gsp_err_t deliver(greedy_t *g, const gsp_topo_t *t, const gsp_sched_t *out, int64_t b, int64_t *complete) {
    if (b == out->nsends) return gsp_error(GSP_ERR_INTERNAL, "greedy: a round without transfers on %s", out->topology);
    int64_t W = g->W;
    for (int64_t k = b; k < out->nsends; k++) {
        int64_t v = out->sends[k].v, x = out->sends[k].x, w = x >> 6;
        gsp_word_t *hv = g->held + v * W;
        if (gsp_bit_get(hv, x)) continue;
        for (int64_t q = g->ioff[v]; q < g->ioff[v + 1]; q++) g->diff[q] -= gsp_bit_get(g->held + g->iadj[q] * W, x);
        gsp_bit_set(hv, x);
        g->holders[x]++;
        if (++g->count[v] == g->n) ++*complete;
        for (int64_t a = t->off[v]; a < t->off[v + 1]; a++) g->diff[g->rpos[a]] += !gsp_bit_get(g->held + t->adj[a] * W, x);
        /* Word w of H_u \ H_v changed on the arcs into v and out of v: its summary bit again. */
        for (int64_t q = g->ioff[v]; q < g->ioff[v + 1]; q++) summarise(g, q, g->iadj[q], v, w);
        for (int64_t a = t->off[v]; a < t->off[v + 1]; a++) summarise(g, g->rpos[a], v, t->adj[a], w);
    }
    return GSP_OK;
}

/* One run with the given seed (ties between equally rare packets, and scan starts, are random). */
static gsp_err_t run(const gsp_plan_in_t *in, uint64_t seed, int64_t max_rounds, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, p = gsp__packets(in), limit = n <= CANDIDATES_UPTO ? CANDIDATES : CANDIDATES_LARGE;
    greedy_t g;
    gsp_word_t *taken = NULL;
    int64_t *order = NULL, *opts = NULL, *choice = NULL, *tlist = NULL;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, seed);
    memset(&g, 0, sizeof g);
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, &in->model, -1, "greedy"))) return err;
    if ((err = greedy_init(&g, t)) ||
        (err = gsp_alloc_array((void **)&taken, g.W, sizeof *taken, true)) ||
        (err = gsp_alloc_array((void **)&order, t->in_dmax + 1, sizeof *order, false)) ||
        (err = gsp_alloc_array((void **)&opts, t->in_dmax + 1, sizeof *opts, false)) ||
        (err = gsp_alloc_array((void **)&choice, (t->in_dmax + 1) * p, sizeof *choice, false)) ||
        (err = gsp_alloc_array((void **)&tlist, (t->in_dmax + 1) * p, sizeof *tlist, false)))
        goto done;
    int64_t complete = n == 1 ? n : 0;
    while (complete < n) {
        if (out->nrounds >= max_rounds) {
            err = out->nrounds >= 4 * n + 16 ? gsp_error(GSP_ERR_INTERNAL, "greedy made no progress on %s", t->spec)
                                             : gsp_error(GSP_ERR_LIMIT, "greedy: not better than an earlier run");
            goto done;
        }
        if ((err = gsp_sched_round(out))) goto done;
        int64_t b = out->nsends;
        for (int64_t v = 0; v < n; v++) {
            int64_t d = g.ioff[v + 1] - g.ioff[v], ntaken = 0;
            const int64_t *from = g.iadj + g.ioff[v];
            /* In-arcs with the fewest packets to offer choose first; an arc left without a
             * packet takes one from an arc that can switch to another (one augmenting step of
             * a matching between in-arcs and missing packets), so no in-arc idles that could
             * carry something. */
            for (int64_t j = 0; j < d; j++) {
                int64_t c = g.diff[g.ioff[v] + j];
                opts[j] = c;
                int64_t k = j;
                while (k > 0 && opts[order[k - 1]] > c) order[k] = order[k - 1], k--;
                order[k] = j;
            }
            for (int64_t rep = 0; rep < p; rep++) {
                int64_t *ch = choice + rep * d;
                for (int64_t q = 0; q < d; q++) {
                    int64_t j = order[q];
                    ch[j] = rarest(&g, g.ioff[v] + j, from[j], v, taken, available(&g, from[j], opts[j], tlist, ntaken), limit, &rng);
                    if (ch[j] >= 0) gsp_bit_set(taken, ch[j]), tlist[ntaken++] = ch[j];
                }
                for (int64_t j = 0; j < d; j++) {
                    if (ch[j] >= 0 || !opts[j]) continue;
                    const gsp_word_t *hj = g.held + from[j] * g.W;
                    for (int64_t k = 0; k < d && ch[j] < 0; k++) {
                        if (k == j || ch[k] < 0 || !gsp_bit_get(hj, ch[k])) continue;
                        int64_t y = rarest(&g, g.ioff[v] + k, from[k], v, taken, available(&g, from[k], opts[k], tlist, ntaken), limit, &rng);
                        if (y < 0) continue;
                        gsp_bit_set(taken, y), tlist[ntaken++] = y;
                        ch[j] = ch[k];
                        ch[k] = y;
                    }
                }
            }
            for (int64_t i = 0; i < ntaken; i++) gsp_bit_clear(taken, tlist[i]);
            for (int64_t j = 0; j < d; j++)
                for (int64_t rep = 0; rep < p; rep++)
                    if (choice[rep * d + j] >= 0 && (err = gsp_sched_send(out, from[j], v, choice[rep * d + j]))) goto done;
        }
        if ((err = deliver(&g, t, out, b, &complete))) goto done;
        if (in->progress) in->progress(in->progress_ctx, "greedy allgather", (double)complete / n);
    }
    err = gsp_sched_finish(out);
done:
    greedy_destroy(&g);
    gsp_free(taken);
    gsp_free(order);
    gsp_free(opts);
    gsp_free(choice);
    gsp_free(tlist);
    if (err) gsp_sched_destroy(out);
    return err;
}

/* Restarts with other seeds until the counting bound ceil((N - 1) / (p d_in)) (or the
 * diameter) is met or the restarts run out: 8 up to 512 nodes, fewer above. */
static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, p = gsp__packets(in), din = t->in_dmin > 0 ? t->in_dmin : 1;
    int64_t target = (n - 1 + p * din - 1) / (p * din);
    if (in->dist && in->dist->connected && in->dist->diameter > target) target = in->dist->diameter;
    int restarts = n <= 512 ? 8 : n <= 1024 ? 4 : 1;
    if ((err = run(in, in->seed, 4 * n + 16, out))) return err;
    for (int k = 1; k < restarts && out->nrounds > target; k++) {
        gsp_sched_t alt;
        err = run(in, in->seed + 0x9e3779b97f4a7c15ull * (uint64_t)k, out->nrounds - 1, &alt);
        if (err == GSP_ERR_LIMIT) continue;
        if (err) {
            gsp_sched_destroy(out);
            return err;
        }
        gsp_sched_destroy(out);
        *out = alt;
    }
    return GSP_OK;
}

const gsp_method_t gsp__method_allgather_greedy = {
    "greedy", GSP_COLL_ALLGATHER, "finite packets, any connected graph whose N(N-1) transfers fit in memory (10^4 nodes: 2.4 GB)", "baseline", applies,
    rounds, build, false, NULL, false, NULL, .needs = {.packets = GSP_NEED_PACKETS_FINITE, .ports = GSP_NEED_PORTS_ALL, .full_duplex = true,
              .packets_why = "for packets = inf use flood"}};
