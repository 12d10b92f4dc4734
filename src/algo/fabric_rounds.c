/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_rounds.c — the round form of a fabric's trees (gsp_fabric_trees): what the verifier
 * checks exactly under capacities. Each root's data is share * B packets; tree i carries
 * mult_i * B of them in B batches of mult_i, pipelined: batch j crosses the hop at depth h (the
 * fabric arcs between the root and that hop, switches included) in round j + h. In a round an
 * arc then carries, from each tree, one batch per time the tree's routes use it, so at most the
 * trees' load on it, sum mult_i uses_i(a) <= cap_factor * cap(a): the capacity rule of the
 * round form. Rounds B + H - 1 (H the deepest hop depth) against B, the throughput bound: a
 * binding cut is full in every round. Example: dgx:8x1, B = 1: 8 star trees through the
 * NVSwitch, 2 rounds (GPU -> switch, switch -> GPU). */
#include <string.h>

#include "gossip/fabric.h"

gsp_err_t gsp_forest_sched(const gsp_topo_t *t, const gsp_forest_t *f, int64_t batches, gsp_sched_t *out) {
    gsp_err_t err;
    int64_t *hdep = NULL, *tailof = NULL, *cnt = NULL, *offset = NULL;
    gsp_send_t *all = NULL, *sorted = NULL;
    int64_t n = t->n;
    memset(out, 0, sizeof *out);
    if (f->collective != GSP_COLL_ALLGATHER && f->collective != GSP_COLL_BROADCAST)
        return gsp_error(GSP_ERR_NOTAPPLIC, "the round form is written for allgather and broadcast trees (reduce-scatter: not yet)");
    if (batches < 1 || batches > ((int64_t)1 << 20)) return gsp_error(GSP_ERR_RANGE, "batches %lld: expected 1..2^20", (long long)batches);
    /* Transfers: every batch of every packet over every hop. */
    __int128 total = 0;
    for (int64_t i = 0; i < f->ntrees; i++) total += (__int128)f->trees[i].mult * batches * f->trees[i].hop_off[f->trees[i].nedges];
    if (total > GSP_MAX_ARCS)
        return gsp_error(GSP_ERR_TOOBIG, "%s: the round form has %.3g transfers (more than 2^30); use fewer batches", t->spec, (double)total);
    int64_t nrounds = batches + f->hop_depth - 1, chunks = f->share * batches, k = 0;
    if ((err = gsp_alloc_array((void **)&hdep, n, sizeof *hdep, false)) || (err = gsp_alloc_array((void **)&tailof, t->m + 1, sizeof *tailof, false)) ||
        (err = gsp_alloc_array((void **)&cnt, nrounds + 2, sizeof *cnt, true)) || (err = gsp_alloc_array((void **)&offset, n, sizeof *offset, true)) ||
        (err = gsp_alloc_array((void **)&all, (int64_t)total + 1, sizeof *all, false)) ||
        (err = gsp_alloc_array((void **)&sorted, (int64_t)total + 1, sizeof *sorted, false)))
        goto done;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) tailof[a] = x;
    int64_t *rnd = NULL;
    if ((err = gsp_alloc_array((void **)&rnd, (int64_t)total + 1, sizeof *rnd, false))) goto done;
    for (int64_t i = 0; i < f->ntrees; i++) {
        const gsp_tree_t *T = &f->trees[i];
        int64_t first = offset[T->root]; /* this tree's packets: units first .. first + mult */
        offset[T->root] += T->mult;
        hdep[T->root] = 0;
        for (int64_t e = 0; e < T->nedges; e++) {
            int64_t d = hdep[T->from[e]];
            for (int64_t h = T->hop_off[e]; h < T->hop_off[e + 1]; h++, d++) {
                int64_t a = T->hops[h];
                for (int64_t j = 0; j < batches; j++)
                    for (int64_t u = first; u < first + T->mult; u++) {
                        all[k].u = tailof[a];
                        all[k].v = t->adj[a];
                        all[k].x = T->root * chunks + u * batches + j;
                        rnd[k++] = j + d;
                    }
            }
            hdep[T->to[e]] = d;
        }
    }
    /* Counting sort by round. */
    for (int64_t i = 0; i < k; i++) cnt[rnd[i] + 1]++;
    for (int64_t r = 0; r < nrounds; r++) cnt[r + 1] += cnt[r];
    for (int64_t i = 0; i < k; i++) sorted[cnt[rnd[i]]++] = all[i];
    gsp_free(rnd);
    gsp_model_t m = gsp_model_default();
    char method[] = "fabric-trees";
    if ((err = gsp_sched_init(out, f->collective, t->spec, n, &m, f->collective == GSP_COLL_BROADCAST ? f->root : -1, method))) goto done;
    out->chunks = chunks;
    out->cap_factor = f->cap_factor;
    for (int64_t r = 0, i = 0; r < nrounds; r++) {
        if ((err = gsp_sched_round(out))) goto done;
        for (; i < k && i < cnt[r]; i++)
            if ((err = gsp_sched_send(out, sorted[i].u, sorted[i].v, sorted[i].x))) goto done;
    }
    err = gsp_sched_finish(out);
done:
    if (err) gsp_sched_destroy(out);
    gsp_free(hdep);
    gsp_free(tailof);
    gsp_free(cnt);
    gsp_free(offset);
    gsp_free(all);
    gsp_free(sorted);
    return err;
}
