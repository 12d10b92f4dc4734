/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allgather_balanced_search.c — gossip with p packets per arc on any Cayley graph by searching
 * for a balanced sequence of sets directly (Def. 9 and Lemma 10 of the packet-gossip paper),
 * for graphs without a complete rotation: TM(3,7), TM(4,5), non-square tori, most circulants,
 * cayley: and perm: graphs.
 *
 * Each round is a maximum matching between generator slots (p per generator) and frontier
 * elements (outside S_t, reachable from S_t by that generator), the frontier taken in a priority
 * order; the attempt is repeated with other orders and random tie-breaks (restarts) until one
 * meets the layered lower bound (max_j j + ceil((N - |B_j|)/(d p)), which is
 * ceil((N - 1)/(d p)) whenever that is larger) or the attempts run out. Rounds: no promise;
 * the verifier counts them. Example: TM(3,7) and TM(4,5) in 5 rounds, as Fig. 4 of the paper. */
#include <stdlib.h>
#include <string.h>

#include "algo_int.h"

static int64_t rounds(const gsp_plan_in_t *in) { return -1; }

static int64_t layered_target(const gsp_plan_in_t *in) {
    int64_t n = in->topo->n, cap = in->topo->ngens * gsp__packets(in), ball = 0, best = 0;
    for (int64_t j = 0; j < in->dist->counts.len; j++) {
        ball += in->dist->counts.v[j];
        int64_t v = j + gsp_ceil_div(n - ball, cap);
        if (v > best) best = v;
    }
    return best;
}

static int cmp_u64(const void *p, const void *q) {
    uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;
    return (a > b) - (a < b);
}

/* One attempt; returns GSP_ERR_LIMIT when it passes give_up rounds. */
static gsp_err_t attempt(const gsp_plan_in_t *in, const int32_t *dist, int variant, gsp_rng_t *rng,
                         int64_t give_up, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, nf = 0, *front = NULL, *cand = NULL;
    uint64_t *key = NULL;
    unsigned char *inf = NULL;
    int d = t->ngens;
    gsp__bal_t b;
    memset(&b, 0, sizeof b);
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, n, &in->model, -1, "balanced-search"))) return err;
    if ((err = gsp__bal_init(&b, t, gsp__packets(in), out)) ||
        (err = gsp_alloc_array((void **)&front, n, sizeof *front, false)) ||
        (err = gsp_alloc_array((void **)&cand, n, sizeof *cand, false)) ||
        (err = gsp_alloc_array((void **)&key, n, sizeof *key, false)) ||
        (err = gsp_alloc_array((void **)&inf, n, 1, true)))
        goto done;
    for (int i = 0; i < d; i++) {
        int64_t y = t->adj[i];
        if (!inf[y] && y != 0) inf[y] = 1, front[nf++] = y;
    }
    while (b.members < n) {
        if (b.round >= give_up) {
            err = GSP_ERR_LIMIT;
            goto done;
        }
        /* Compact the frontier and order it: c = generators reaching y from S (fewest
         * first: they are the hardest to place later), dist = distance from e. */
        int64_t k2 = 0;
        for (int64_t k = 0; k < nf; k++) {
            int64_t y = front[k];
            if (b.in[y]) continue;
            front[k2++] = y;
            uint64_t c = 0;
            for (int i = 0; i < d; i++) c += b.in[gsp__bal_pred(&b, y, i)];
            uint64_t r = gsp_rng_next(rng) >> 44, dd = (uint64_t)dist[y];
            switch (variant % 4) {
            case 0: key[k2 - 1] = c << 50 | dd << 24 | r << 4; break;
            case 1: key[k2 - 1] = dd << 44 | c << 24 | r << 4; break;
            case 2: key[k2 - 1] = c << 44 | r << 4; break;
            default: key[k2 - 1] = r << 24; break;
            }
        }
        nf = k2;
        /* Sort (key, index) pairs: the index rides in the low bits of a second array. */
        for (int64_t k = 0; k < nf; k++) cand[k] = k;
        {
            /* Pack key's high 40 bits with the index in the low 24 bits when it fits. */
            uint64_t *pk = key;
            bool packed = nf < (1 << 24);
            if (packed) {
                for (int64_t k = 0; k < nf; k++) pk[k] = (pk[k] & ~(((uint64_t)1 << 24) - 1)) | (uint64_t)k;
                qsort(pk, (size_t)nf, sizeof *pk, cmp_u64);
                for (int64_t k = 0; k < nf; k++) cand[k] = front[pk[k] & ((1 << 24) - 1)];
            } else {
                for (int64_t k = 0; k < nf; k++) cand[k] = front[k];
            }
        }
        int64_t picked;
        if ((err = gsp__bal_match(&b, cand, nf, &picked))) goto done;
        if (picked == 0) {
            err = gsp_error(GSP_ERR_INTERNAL, "balanced-search: empty round on %s", t->spec);
            goto done;
        }
        for (int64_t k = 0; k < b.npicks; k++) {
            int64_t y = b.picks[k].y;
            for (int i = 0; i < d; i++) {
                int64_t z = t->adj[y * d + i];
                if (!inf[z] && z != 0) inf[z] = 1, front[nf++] = z;
            }
        }
        if ((err = gsp__bal_commit(&b))) goto done;
    }
    err = gsp_sched_finish(out);
done:
    if (err) gsp_sched_destroy(out);
    gsp__bal_destroy(&b);
    gsp_free(front);
    gsp_free(cand);
    gsp_free(key);
    gsp_free(inf);
    return err;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t target = layered_target(in), best = INT64_MAX;
    int32_t *dist = NULL;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, in->seed);
    memset(out, 0, sizeof *out);
    if ((err = gsp_alloc_array((void **)&dist, t->n, sizeof *dist, false)) ||
        (err = gsp_bfs(t, 0, dist, NULL, NULL, NULL)))
        goto done;
    /* Restarts: more for small graphs, at least one full attempt for large ones. */
    double work = (double)t->n * t->ngens;
    int attempts = work < 1e4 ? 64 : work < 1e5 ? 24 : work < 1e6 ? 8 : 2;
    for (int a = 0; a < attempts && best > target; a++) {
        gsp_sched_t s;
        err = attempt(in, dist, a, &rng, best == INT64_MAX ? INT64_MAX : best - 1, &s);
        if (err == GSP_ERR_LIMIT) continue;
        if (err) goto done;
        if (s.nrounds < best) {
            gsp_sched_destroy(out);
            *out = s;
            best = s.nrounds;
        } else {
            gsp_sched_destroy(&s);
        }
        if (in->progress) in->progress(in->progress_ctx, "balanced-search restarts", (double)(a + 1) / attempts);
    }
    err = GSP_OK;
done:
    if (err) gsp_sched_destroy(out);
    gsp_free(dist);
    return err;
}

const gsp_method_t gsp__method_allgather_balanced_search = {
    "balanced-search", GSP_COLL_ALLGATHER, "any Cayley graph, finite packets (restarts until the layered bound)",
    "packet-gossip paper, Def. 9 and Lemma 10", NULL, rounds, build, false, NULL, false, NULL, .needs = {.cayley = true, .packets = GSP_NEED_PACKETS_FINITE, .ports = GSP_NEED_PORTS_ALL, .full_duplex = true}};
