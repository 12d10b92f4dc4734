/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allgather_greedy.c — gossip with p packets per arc on any graph by a per-round matching
 * heuristic: each receiver takes, on each of its in-arcs, up to p distinct packets that the
 * sender holds and it lacks, preferring the packets held by the fewest nodes (rarest first),
 * so that no packet is left behind while others flood; the in-arcs with the fewest packets to
 * offer choose first, and an arc left empty takes a packet from one that can switch (an
 * augmenting step). Randomised ties; restarted with other seeds until the counting bound.
 *
 * Applies with finite p, all ports, full duplex, N <= 4096 (explicit rounds). Rounds: no
 * guarantee; the verifier counts them and `plan` reports the gap to ceil((N-1)/(p delta)).
 * Receivers with the fewest choices pick first on each in-arc, which is a greedy matching
 * between in-arcs and missing packets. Example: torus:5x5 with p = 1 in 7 rounds against the
 * bound 6 (the rotation method of the packet-gossip paper reaches 6). Baseline. */
#include <string.h>

#include "algo_int.h"

#define CANDIDATES 64 /* packets examined per in-arc and round */

static int64_t rounds(const gsp_plan_in_t *in) { return -1; }

/* One run with the given seed (ties between equally rare packets, and scan starts, are random). */
static gsp_err_t run(const gsp_plan_in_t *in, uint64_t seed, int64_t max_rounds, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, W = (int64_t)GSP_WORDS(n), p = gsp__packets(in);
    gsp_word_t *held = NULL, *taken = NULL;
    int64_t *holders = NULL, *ioff = NULL, *iadj = NULL, *order = NULL, *opts = NULL, *choice = NULL;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, seed);
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, &in->model, -1, "greedy"))) return err;
    if ((err = gsp_alloc_array((void **)&held, n * W, sizeof *held, true)) ||
        (err = gsp_alloc_array((void **)&taken, W, sizeof *taken, true)) ||
        (err = gsp_alloc_array((void **)&holders, n, sizeof *holders, false)) ||
        (err = gsp_alloc_array((void **)&ioff, n + 1, sizeof *ioff, true)) ||
        (err = gsp_alloc_array((void **)&iadj, t->m, sizeof *iadj, false)) ||
        (err = gsp_alloc_array((void **)&order, t->in_dmax + 1, sizeof *order, false)) ||
        (err = gsp_alloc_array((void **)&opts, t->in_dmax + 1, sizeof *opts, false)) ||
        (err = gsp_alloc_array((void **)&choice, (t->in_dmax + 1) * p, sizeof *choice, false)))
        goto done;
    /* In-arcs (reverse CSR), so digraphs work too. */
    for (int64_t a = 0; a < t->m; a++) ioff[t->adj[a] + 1]++;
    for (int64_t x = 0; x < n; x++) ioff[x + 1] += ioff[x];
    {
        int64_t *pos = NULL;
        if ((err = gsp_alloc_array((void **)&pos, n, sizeof *pos, false))) goto done;
        memcpy(pos, ioff, (size_t)n * sizeof *pos);
        for (int64_t u = 0; u < n; u++)
            for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) iadj[pos[t->adj[a]]++] = u;
        gsp_free(pos);
    }
    for (int64_t x = 0; x < n; x++) {
        gsp_bit_set(held + x * W, x);
        holders[x] = 1;
    }
    int64_t complete = n == 1 ? n : 0;
    while (complete < n) {
        if (out->nrounds >= max_rounds) {
            err = out->nrounds >= 4 * n + 16 ? gsp_error(GSP_ERR_INTERNAL, "greedy made no progress on %s", t->spec)
                                             : gsp_error(GSP_ERR_LIMIT, "greedy: not better than an earlier run");
            goto done;
        }
        if ((err = gsp_sched_round(out))) goto done;
        for (int64_t v = 0; v < n; v++) {
            gsp_word_t *hv = held + v * W;
            int64_t d = ioff[v + 1] - ioff[v];
            memset(taken, 0, (size_t)W * sizeof *taken);
            /* In-arcs with the fewest packets to offer choose first; an arc left without a
             * packet takes one from an arc that can switch to another (one augmenting step of
             * a matching between in-arcs and missing packets), so no in-arc idles that could
             * carry something. */
            for (int64_t j = 0; j < d; j++) {
                const gsp_word_t *hu = held + iadj[ioff[v] + j] * W;
                int64_t c = 0;
                for (int64_t w = 0; w < W; w++) c += __builtin_popcountll(hu[w] & ~hv[w]);
                opts[j] = c;
                int64_t k = j;
                while (k > 0 && opts[order[k - 1]] > c) order[k] = order[k - 1], k--;
                order[k] = j;
            }
            for (int64_t rep = 0; rep < p; rep++) {
                int64_t *ch = choice + rep * d;
                for (int64_t q = 0; q < d; q++) {
                    int64_t j = order[q];
                    ch[j] = gsp__rarest_missing(held + iadj[ioff[v] + j] * W, hv, taken, W, holders, CANDIDATES, &rng);
                    if (ch[j] >= 0) gsp_bit_set(taken, ch[j]);
                }
                for (int64_t j = 0; j < d; j++) {
                    if (ch[j] >= 0 || !opts[j]) continue;
                    const gsp_word_t *hj = held + iadj[ioff[v] + j] * W;
                    for (int64_t k = 0; k < d && ch[j] < 0; k++) {
                        if (k == j || ch[k] < 0 || !gsp_bit_get(hj, ch[k])) continue;
                        int64_t y = gsp__rarest_missing(held + iadj[ioff[v] + k] * W, hv, taken, W, holders, CANDIDATES, &rng);
                        if (y < 0) continue;
                        gsp_bit_set(taken, y);
                        ch[j] = ch[k];
                        ch[k] = y;
                    }
                }
            }
            for (int64_t j = 0; j < d; j++)
                for (int64_t rep = 0; rep < p; rep++)
                    if (choice[rep * d + j] >= 0 && (err = gsp_sched_send(out, iadj[ioff[v] + j], v, choice[rep * d + j]))) goto done;
        }
        if ((err = gsp__deliver_round(out, out->send_off.v[out->send_off.len - 1], held, W, holders, "greedy", &complete))) goto done;
        if (in->progress) in->progress(in->progress_ctx, "greedy allgather", (double)complete / n);
    }
    err = gsp_sched_finish(out);
done:
    gsp_free(held);
    gsp_free(taken);
    gsp_free(holders);
    gsp_free(ioff);
    gsp_free(iadj);
    gsp_free(order);
    gsp_free(opts);
    gsp_free(choice);
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
    "greedy", GSP_COLL_ALLGATHER, "finite packets, any connected graph with N <= 4096", "baseline", NULL,
    rounds, build, false, NULL, false, NULL, .needs = {.packets = GSP_NEED_PACKETS_FINITE, .ports = GSP_NEED_PORTS_ALL, .full_duplex = true,
              .packets_why = "for packets = inf use flood", .max_nodes = 4096, .size_why = "explicit rounds"}};
