/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allgather_matching.c — gossip in the restricted models on any connected graph: one port (F1:
 * a node sends on one arc and receives on one per round), half duplex (H*: an edge carries one
 * direction per round), or both (H1), with p packets per arc and round or messages that
 * concatenate (p = inf).
 *
 * Each round: the gain of an arc is how many packets its tail holds that its head lacks (at
 * most p). One port: a greedy matching, the arcs of the round's generator first on a Cayley
 * graph (round t: generator t mod d — on the hypercube with p = inf that is the dimension
 * exchange, log2 N rounds, the bound) and then the others by decreasing gain; half duplex
 * without one port: every edge carries the direction that gains more. Then each receiver takes
 * on each chosen in-arc up to p packets it lacks, the rarest first, distinct within the round.
 * Bounds printed beside it: ceil((N-1)/p) and ceil(log2 N) (one port), ceil(N(N-1)/(p|E|)) (half
 * duplex), D. Rounds: what the verifier counts. */
#include <stdlib.h>
#include <string.h>

#include "algo_int.h"

#define CANDIDATES 64

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    if (in->model.half_duplex && in->topo->directed) {
        snprintf(why, n, "half duplex is a property of edges: needs an undirected graph");
        return false;
    }
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) { return -1; }

typedef struct {
    int64_t arc, u, v, gain, tie;
} cand_t;

static int by_gain(const void *a, const void *b) {
    const cand_t *x = a, *y = b;
    if (x->gain != y->gain) return x->gain > y->gain ? -1 : 1;
    return x->tie < y->tie ? -1 : x->tie > y->tie;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, m = t->m, W = (int64_t)GSP_WORDS(n), p = gsp__packets(in);
    bool inf = p == GSP_PACKETS_INF, one = in->model.one_port, half = in->model.half_duplex;
    gsp_word_t *held = NULL, *taken = NULL;
    int64_t *holders = NULL, *gain = NULL, *rev = NULL;
    unsigned char *chosen = NULL, *busy_out = NULL, *busy_in = NULL;
    cand_t *cand = NULL;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, in->seed);
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, &in->model, -1, "matching"))) return err;
    if ((err = gsp_alloc_array((void **)&held, n * W, sizeof *held, true)) ||
        (err = gsp_alloc_array((void **)&taken, n * W, sizeof *taken, true)) ||
        (err = gsp_alloc_array((void **)&holders, n, sizeof *holders, false)) ||
        (err = gsp_alloc_array((void **)&gain, m + 1, sizeof *gain, false)) ||
        (err = gsp_alloc_array((void **)&rev, m + 1, sizeof *rev, false)) ||
        (err = gsp_alloc_array((void **)&chosen, m + 1, 1, false)) || (err = gsp_alloc_array((void **)&busy_out, n, 1, false)) ||
        (err = gsp_alloc_array((void **)&busy_in, n, 1, false)) || (err = gsp_alloc_array((void **)&cand, m + 1, sizeof *cand, false)))
        goto done;
    /* The reverse of every arc (-1 in a digraph without it). */
    for (int64_t u = 0; u < n; u++)
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
            int64_t i = gsp_topo_arc_index(t, t->adj[a], u);
            rev[a] = i < 0 ? -1 : t->off[t->adj[a]] + i;
        }
    for (int64_t x = 0; x < n; x++) {
        gsp_bit_set(held + x * W, x);
        holders[x] = 1;
    }
    int64_t complete = n == 1 ? 1 : 0, max_rounds = 4 * n + 16;
    while (complete < n) {
        int64_t R = out->nrounds;
        if (R >= max_rounds) {
            err = gsp_error(GSP_ERR_INTERNAL, "matching made no progress on %s", t->spec);
            goto done;
        }
        if ((err = gsp_sched_round(out))) goto done;
        /* Gains, capped at p. */
        for (int64_t u = 0; u < n; u++)
            for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
                const gsp_word_t *hu = held + u * W, *hv = held + t->adj[a] * W;
                int64_t g = 0;
                for (int64_t w = 0; w < W && (inf || g < p); w++) g += __builtin_popcountll(hu[w] & ~hv[w]);
                gain[a] = inf || g < p ? g : p;
            }
        memset(chosen, 0, (size_t)m);
        memset(busy_out, 0, (size_t)t->n);
        memset(busy_in, 0, (size_t)t->n);
        if (one) {
            /* The round's generator first (Cayley graphs; on a circulant the arc to x + 2^t when
             * there is one: Bruck's dissemination, ceil(log2 N) rounds on K_N), then the rest
             * by gain. */
            bool cyclic = t->group && t->group->kind == GSP_GROUP_ABELIAN && t->group->k == 1 && R < 62;
            if (t->group)
                for (int64_t u = 0; u < n; u++) {
                    int64_t d = t->off[u + 1] - t->off[u], a = t->off[u] + R % d, v = t->adj[a];
                    if (cyclic) {
                        int64_t i = gsp_topo_arc_index(t, u, (u + ((int64_t)1 << R) % n) % n);
                        if (i >= 0) a = t->off[u] + i, v = t->adj[a];
                    }
                    if (gain[a] == 0 || busy_out[u] || busy_in[v] || (half && rev[a] >= 0 && chosen[rev[a]])) continue;
                    chosen[a] = 1;
                    busy_out[u] = busy_in[v] = 1;
                }
            int64_t nc = 0;
            for (int64_t u = 0; u < n; u++)
                for (int64_t a = t->off[u]; a < t->off[u + 1]; a++)
                    if (gain[a] > 0 && !busy_out[u] && !busy_in[t->adj[a]]) cand[nc++] = (cand_t){a, u, t->adj[a], gain[a], 0};
            /* Shuffle, then a stable order by gain: random among equal gains. */
            for (int64_t q = nc - 1; q > 0; q--) {
                int64_t r = (int64_t)gsp_rng_below(&rng, (uint64_t)q + 1);
                cand_t x = cand[q];
                cand[q] = cand[r];
                cand[r] = x;
            }
            for (int64_t q = 0; q < nc; q++) cand[q].tie = q; /* keep the shuffle on ties */
            qsort(cand, (size_t)nc, sizeof *cand, by_gain);
            for (int64_t q = 0; q < nc; q++) {
                int64_t a = cand[q].arc, u = cand[q].u, v = cand[q].v;
                if (busy_out[u] || busy_in[v] || (half && rev[a] >= 0 && chosen[rev[a]])) continue;
                chosen[a] = 1;
                busy_out[u] = busy_in[v] = 1;
            }
        } else {
            /* Half duplex, all ports: each edge the direction that gains more. */
            for (int64_t u = 0; u < n; u++)
                for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
                    int64_t b = rev[a], v = t->adj[a];
                    if (gain[a] == 0) continue;
                    if (b < 0 || gain[b] == 0) {
                        chosen[a] = 1;
                        continue;
                    }
                    if (u > v) continue; /* decided from the smaller end */
                    bool fwd = gain[a] > gain[b] || (gain[a] == gain[b] && (R + u + v) % 2 == 0);
                    chosen[fwd ? a : b] = 1;
                }
        }
        /* Packets: per receiver, per chosen in-arc, the rarest it lacks, distinct this round. */
        memset(taken, 0, (size_t)(n * W) * sizeof *taken);
        int64_t b0 = out->nsends;
        for (int64_t u = 0; u < n; u++)
            for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
                if (!chosen[a]) continue;
                int64_t v = t->adj[a];
                const gsp_word_t *hu = held + u * W, *hv = held + v * W;
                gsp_word_t *tv = taken + v * W;
                for (int64_t rep = 0; inf || rep < p; rep++) {
                    int64_t best = gsp__rarest_missing(hu, hv, tv, W, holders, inf ? 0 : CANDIDATES, &rng);
                    if (best < 0) break;
                    gsp_bit_set(tv, best);
                    if ((err = gsp_sched_send(out, u, v, best))) goto done;
                }
            }
        if ((err = gsp__deliver_round(out, b0, held, W, holders, "matching", &complete))) goto done;
        if (in->progress) in->progress(in->progress_ctx, "matching allgather", (double)complete / (double)n);
    }
    err = gsp_sched_finish(out);
done:
    gsp_free(held);
    gsp_free(taken);
    gsp_free(holders);
    gsp_free(gain);
    gsp_free(rev);
    gsp_free(chosen);
    gsp_free(busy_out);
    gsp_free(busy_in);
    gsp_free(cand);
    if (err) gsp_sched_destroy(out);
    return err;
}

const gsp_method_t gsp__method_allgather_matching = {
    "matching", GSP_COLL_ALLGATHER, "one port and/or half duplex, any p, any connected graph with N <= 2048",
    "baseline: a greedy matching per round (dimension exchange on hypercubes)", applies, rounds, build, false, NULL, false, NULL, .needs = {.ports = GSP_NEED_PORTS_RESTRICTED,
                                                                   .ports_why = "for all ports and full duplex use rotation, balanced-search, greedy or flood",
                                                                   .max_nodes = 2048, .size_why = "explicit rounds"}};
