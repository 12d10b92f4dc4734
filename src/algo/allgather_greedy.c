/* allgather_greedy.c — gossip with p packets per arc on any graph by a per-round matching
 * heuristic: each receiver takes, on each of its in-arcs, up to p distinct packets that the
 * sender holds and it lacks, preferring the packets held by the fewest nodes (rarest first),
 * so that no packet is left behind while others flood.
 *
 * Applies with finite p, all ports, full duplex, N <= 4096 (explicit rounds). Rounds: no
 * guarantee; the verifier counts them and `plan` reports the gap to ceil((N-1)/(p delta)).
 * Receivers with the fewest choices pick first on each in-arc, which is a greedy matching
 * between in-arcs and missing packets. Example: torus:5x5 with p = 1 in 7 rounds against the
 * bound 6 (the rotation method of the packet-gossip paper reaches 6). Baseline. */
#include <string.h>

#include "algo_int.h"

#define GREEDY_MAX 4096
#define CANDIDATES 64 /* packets examined per in-arc and round */

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    if (in->model.packets == GSP_PACKETS_INF) {
        snprintf(why, n, "for packets = inf use flood");
        return false;
    }
    if (in->model.one_port || in->model.half_duplex) {
        snprintf(why, n, "needs all ports and full duplex");
        return false;
    }
    if (in->topo->n > GREEDY_MAX) {
        snprintf(why, n, "explicit rounds limited to %d nodes", GREEDY_MAX);
        return false;
    }
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) { return -1; }

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, W = (int64_t)GSP_WORDS(n), p = in->model.packets;
    gsp_word_t *held = NULL, *taken = NULL;
    int64_t *holders = NULL, *ioff = NULL, *iadj = NULL, *pick = NULL, *picked_from = NULL;
    int64_t npick = 0, cap_pick = 0;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, in->seed);
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, &in->model, -1, "greedy"))) return err;
    if ((err = gsp_alloc_array((void **)&held, n * W, sizeof *held, true)) ||
        (err = gsp_alloc_array((void **)&taken, W, sizeof *taken, true)) ||
        (err = gsp_alloc_array((void **)&holders, n, sizeof *holders, false)) ||
        (err = gsp_alloc_array((void **)&ioff, n + 1, sizeof *ioff, true)) ||
        (err = gsp_alloc_array((void **)&iadj, t->m, sizeof *iadj, false)))
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
    int64_t complete = n == 1 ? n : 0, max_rounds = 4 * n + 16;
    while (complete < n) {
        if (out->nrounds >= max_rounds) {
            err = gsp_error(GSP_ERR_INTERNAL, "greedy made no progress on %s", t->spec);
            goto done;
        }
        if ((err = gsp_sched_round(out))) goto done;
        npick = 0;
        for (int64_t v = 0; v < n; v++) {
            gsp_word_t *hv = held + v * W;
            memset(taken, 0, (size_t)W * sizeof *taken);
            for (int64_t a = ioff[v]; a < ioff[v + 1]; a++) {
                int64_t u = iadj[a];
                const gsp_word_t *hu = held + u * W;
                for (int64_t rep = 0; rep < p; rep++) {
                    int64_t best = gsp__rarest_missing(hu, hv, taken, W, holders, CANDIDATES, &rng);
                    if (best < 0) break;
                    gsp_bit_set(taken, best);
                    if ((err = gsp_sched_send(out, u, v, best))) goto done;
                }
            }
        }
        if ((err = gsp__deliver_round(out, out->send_off.v[out->send_off.len - 1], held, W, holders, "greedy", &complete))) goto done;
        if (in->progress) in->progress(in->progress_ctx, "greedy allgather", (double)complete / n);
    }
    err = gsp_sched_finish(out);
done:
    (void)npick;
    (void)cap_pick;
    gsp_free(pick);
    gsp_free(picked_from);
    gsp_free(held);
    gsp_free(taken);
    gsp_free(holders);
    gsp_free(ioff);
    gsp_free(iadj);
    if (err) gsp_sched_destroy(out);
    return err;
}

const gsp_method_t gsp__method_allgather_greedy = {
    "greedy", GSP_COLL_ALLGATHER, "finite packets, any connected graph with N <= 4096", "baseline", applies,
    rounds, build, false, NULL, false};
