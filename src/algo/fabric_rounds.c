/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_rounds.c — the round form of a fabric's trees (gsp_fabric_trees): what the verifier
 * checks exactly under capacities. Each root's data is share * B packets; tree i carries
 * mult_i * B of them in B batches of mult_i, pipelined: batch j crosses the hop at depth h (the
 * fabric arcs between the root and that hop, switches included) in round j + h. In a round an
 * arc then carries, from each tree, one batch per time the tree's routes use it, so at most the
 * trees' load on it, sum mult_i uses_i(a) <= cap_factor * cap(a): the capacity rule of the
 * round form. Rounds B + H - 1 (H the deepest hop depth) against B, the throughput bound: a
 * binding cut is full in every round. Example: dgx:8x1, B = 1: 8 star trees through the
 * NVSwitch, 2 rounds (GPU -> switch, switch -> GPU).
 * Reduce-scatter's in-trees are the allgather's round form on the reversed fabric run backwards
 * in time: batch j crosses the hop at depth h in round R - 1 - (j + h), R = B + H - 1, from the
 * hop's far end towards the root, so every compute node sends its partial sum up the tree the
 * round after the last of its children's arrived, switches only pass messages on, and every arc
 * carries in each round what the reversed fabric's arc carried. Allreduce is that, then the
 * allgather's rounds on the same chunks (docs/fabrics.md). */
#include <string.h>

#include "gossip/fabric.h"

/* Transfers under construction, with their rounds. */
typedef struct {
    gsp_send_t *all;
    int64_t *rnd;
    int64_t k;
} emit_t;

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Transfers of the trees of f, `per` packets per unit of multiplicity in each of nb batches
 * (root's data: chunks = share * per * nb packets), from round r0 on: out-trees forward in
 * time, in-trees (f->reversed) backwards over nb + H - 1 rounds. Packets are numbered batch
 * by batch, batch j's being j*share*per .. + share*per, so that what one tree carries in one
 * batch is a run of consecutive chunks: an exporter sends it as one step. */
static void emit_forest(const gsp_topo_t *t, const gsp_forest_t *f, int64_t per, int64_t nb, int64_t chunks, int64_t r0,
                        const int64_t *tailof, int64_t *hdep, int64_t *offset, emit_t *E) {
    int64_t last = nb + f->hop_depth - 2; /* the phase's last round, from r0 */
    memset(offset, 0, (size_t)t->n * sizeof *offset);
    for (int64_t i = 0; i < f->ntrees; i++) {
        const gsp_tree_t *T = &f->trees[i];
        int64_t first = offset[T->root] * per; /* in each batch, this tree's packets: first .. first + mult per */
        offset[T->root] += T->mult;
        hdep[T->root] = 0;
        for (int64_t e = 0; e < T->nedges; e++) {
            int64_t len = T->hop_off[e + 1] - T->hop_off[e], d0 = hdep[T->from[e]];
            hdep[T->to[e]] = d0 + len;
            for (int64_t g = 0; g < len; g++) {
                int64_t a = T->hops[T->hop_off[e] + g];
                /* Out-trees list hops from the parent (depth d0 + g); in-trees from the child,
                 * so hop g of the route is at depth d0 + len - 1 - g of the reversed tree. */
                int64_t d = f->reversed ? d0 + len - 1 - g : d0 + g;
                for (int64_t j = 0; j < nb; j++)
                    for (int64_t u = 0; u < T->mult * per; u++) {
                        E->all[E->k].u = tailof[a];
                        E->all[E->k].v = t->adj[a];
                        E->all[E->k].x = T->root * chunks + j * f->share * per + first + u;
                        E->rnd[E->k++] = r0 + (f->reversed ? last - (j + d) : j + d);
                    }
            }
        }
    }
}

static __int128 transfers_of(const gsp_forest_t *f, int64_t per, int64_t nb) {
    __int128 total = 0;
    for (int64_t i = 0; i < f->ntrees; i++) total += (__int128)f->trees[i].mult * per * nb * f->trees[i].hop_off[f->trees[i].nedges];
    return total;
}

/* Builds the schedule of coll from one or two forests (allreduce: fs[0] the reduce-scatter's
 * in-trees, fs[1] the allgather's), with per[i] packets per unit and nb[i] batches each. */
static gsp_err_t build(const gsp_topo_t *t, gsp_collective_t coll, const gsp_forest_t *const *fs, int nf, const int64_t *per,
                       const int64_t *nb, int64_t chunks, int64_t cap_factor, gsp_sched_t *out) {
    gsp_err_t err;
    int64_t *hdep = NULL, *tailof = NULL, *cnt = NULL, *offset = NULL;
    emit_t E = {NULL, NULL, 0};
    gsp_send_t *sorted = NULL;
    int64_t n = t->n, nrounds = 0, phase_rounds[2] = {0, 0};
    __int128 total = 0;
    for (int i = 0; i < nf; i++) {
        total += transfers_of(fs[i], per[i], nb[i]);
        phase_rounds[i] = nb[i] + fs[i]->hop_depth - 1;
        nrounds += phase_rounds[i];
    }
    if (total > GSP_MAX_ARCS)
        return gsp_error(GSP_ERR_TOOBIG, "%s: the round form has %.3g transfers (more than 2^30); use fewer batches", t->spec, (double)total);
    if ((err = gsp_alloc_array((void **)&hdep, n, sizeof *hdep, false)) || (err = gsp_alloc_array((void **)&tailof, t->m + 1, sizeof *tailof, false)) ||
        (err = gsp_alloc_array((void **)&cnt, nrounds + 2, sizeof *cnt, true)) || (err = gsp_alloc_array((void **)&offset, n, sizeof *offset, true)) ||
        (err = gsp_alloc_array((void **)&E.all, (int64_t)total + 1, sizeof *E.all, false)) ||
        (err = gsp_alloc_array((void **)&E.rnd, (int64_t)total + 1, sizeof *E.rnd, false)) ||
        (err = gsp_alloc_array((void **)&sorted, (int64_t)total + 1, sizeof *sorted, false)))
        goto done;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) tailof[a] = x;
    for (int i = 0, r0 = 0; i < nf; r0 += (int)phase_rounds[i], i++) emit_forest(t, fs[i], per[i], nb[i], chunks, r0, tailof, hdep, offset, &E);
    /* Counting sort by round. */
    for (int64_t i = 0; i < E.k; i++) cnt[E.rnd[i] + 1]++;
    for (int64_t r = 0; r < nrounds; r++) cnt[r + 1] += cnt[r];
    for (int64_t i = 0; i < E.k; i++) sorted[cnt[E.rnd[i]]++] = E.all[i];
    gsp_model_t m = gsp_model_default();
    char method[] = "fabric-trees";
    if ((err = gsp_sched_init(out, coll, t->spec, n, &m, coll == GSP_COLL_BROADCAST ? fs[0]->root : -1, method))) goto done;
    out->chunks = chunks;
    out->cap_factor = cap_factor;
    if (coll == GSP_COLL_REDUCE_SCATTER || coll == GSP_COLL_ALLREDUCE) {
        out->blocks = true;
        out->reduce_rounds = phase_rounds[0];
    }
    for (int64_t r = 0, i = 0; r < nrounds; r++) {
        if ((err = gsp_sched_round(out))) goto done;
        for (; i < E.k && i < cnt[r]; i++)
            if ((err = gsp_sched_send(out, sorted[i].u, sorted[i].v, sorted[i].x))) goto done;
    }
    err = gsp_sched_finish(out);
done:
    if (err) gsp_sched_destroy(out);
    gsp_free(hdep);
    gsp_free(tailof);
    gsp_free(cnt);
    gsp_free(offset);
    gsp_free(E.all);
    gsp_free(E.rnd);
    gsp_free(sorted);
    return err;
}

gsp_err_t gsp_forest_sched(const gsp_topo_t *t, const gsp_forest_t *f, int64_t batches, gsp_sched_t *out) {
    memset(out, 0, sizeof *out);
    if (f->collective != GSP_COLL_ALLGATHER && f->collective != GSP_COLL_BROADCAST && f->collective != GSP_COLL_REDUCE_SCATTER)
        return gsp_error(GSP_ERR_NOTAPPLIC, "the round form is written for allgather, reduce-scatter and broadcast trees");
    if (f->reversed != (f->collective == GSP_COLL_REDUCE_SCATTER))
        return gsp_error(GSP_ERR_INVAL, "reduce-scatter's trees are in-trees, the others' out-trees");
    if (batches < 1 || batches > ((int64_t)1 << 20)) return gsp_error(GSP_ERR_RANGE, "batches %lld: expected 1..2^20", (long long)batches);
    const gsp_forest_t *fs[1] = {f};
    int64_t per = 1;
    return build(t, f->collective, fs, 1, &per, &batches, f->share * batches, f->cap_factor, out);
}

gsp_err_t gsp_forest_sched_allreduce(const gsp_topo_t *t, const gsp_forest_t *rs, const gsp_forest_t *ag, int64_t batches, gsp_sched_t *out,
                                     int64_t *bound) {
    memset(out, 0, sizeof *out);
    if (rs->collective != GSP_COLL_REDUCE_SCATTER || !rs->reversed || ag->collective != GSP_COLL_ALLGATHER || ag->reversed)
        return gsp_error(GSP_ERR_INVAL, "allreduce's round form takes reduce-scatter's in-trees and allgather's out-trees");
    if (batches < 1 || batches > ((int64_t)1 << 20)) return gsp_error(GSP_ERR_RANGE, "batches %lld: expected 1..2^20", (long long)batches);
    /* One capacity factor F for both phases, each phase's rounds full: a phase whose factor q
     * divides F sends F/q packets per unit of multiplicity in each batch. The chunks per node C
     * must split into both phases' units: C = B lcm(share_rs F/q_rs, share_ag F/q_ag). */
    int64_t qr = rs->cap_factor, qa = ag->cap_factor;
    if (qr < 1 || qa < 1 || rs->share < 1 || ag->share < 1) return gsp_error(GSP_ERR_INVAL, "a forest without share or capacity factor");
    __int128 F = (__int128)qr / gcd64(qr, qa) * qa;
    int64_t per[2] = {0, 0}, nb[2] = {0, 0};
    __int128 ur = 0, ua = 0, C = 0;
    if (F > INT32_MAX) goto big;
    per[0] = (int64_t)(F / qr);
    per[1] = (int64_t)(F / qa);
    ur = (__int128)rs->share * per[0];
    ua = (__int128)ag->share * per[1];
    if (ur > INT32_MAX || ua > INT32_MAX) goto big;
    C = ur / gcd64((int64_t)ur, (int64_t)ua) * ua * batches;
    if (C > GSP_MAX_ARCS / t->n) goto big;
    nb[0] = (int64_t)(C / ur);
    nb[1] = (int64_t)(C / ua);
    const gsp_forest_t *fs[2] = {rs, ag};
    if (bound) *bound = nb[0] + nb[1];
    return build(t, GSP_COLL_ALLREDUCE, fs, 2, per, nb, (int64_t)C, (int64_t)F, out);
big:
    return gsp_error(GSP_ERR_TOOBIG, "%s: the phases' shares and capacity factors (%lld/%lld, %lld/%lld) need too many chunks per node",
                     t->spec, (long long)rs->share, (long long)qr, (long long)ag->share, (long long)qa);
}
