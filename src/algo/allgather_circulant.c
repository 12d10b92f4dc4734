/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allgather_circulant.c — gossip in the optimal circulants G(N; s, s+1) in D* rounds with
 * p = D* packets per arc (Monakhova–Monakhov, Prop. 8): every node broadcasts at once along its
 * copy of the quadrant tree of circulant-tree, i.e. the tree of node 0 translated to every origin
 * (the compact symmetric form). At distance t + 1 the tree reaches at most t + 1 nodes through each
 * of the four generators, so an arc carries at most t + 1 <= D* packets in round t (the paper's
 * F_R(i) counts); the verifier checks it.
 * Applies to optcirc:N with packets >= D* (or inf). Rounds: D*, the diameter bound. Example:
 * optcirc:25 (D* = 3) with 3 packets in 3 rounds. */
#include "algo_int.h"
#include "gossip/circulant.h"


static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    if (gsp__circ_s(in->topo) < 0) {
        snprintf(why, n, "needs an optimal circulant G(N; s, s+1) (optcirc:N)");
        return false;
    }
    if (gsp__packets(in) != GSP_PACKETS_INF && gsp__packets(in) < in->dist->diameter) {
        snprintf(why, n, "needs p >= D* = %lld packets per arc (Prop. 8)", (long long)in->dist->diameter);
        return false;
    }
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) { return in->dist->diameter; }


static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t N = t->n, s = gsp__circ_s(t), D = in->dist->diameter;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLGATHER, t->spec, N, &in->model, -1, "circulant-gossip"))) return err;
    for (int64_t dd = 1; dd <= D; dd++)
        for (int64_t x = -dd; x <= dd; x++) {
            int64_t ay = dd - (x < 0 ? -x : x);
            for (int64_t sg = -1; sg <= 1; sg += 2) {
                int64_t y = sg * ay, px, py;
                int arc;
                if (ay == 0 && sg > 0) continue;
                if (!gsp__circ_canonical(N, s, x, y)) continue;
                gsp__circ_parent(x, y, &px, &py, &arc);
                if (!gsp__circ_canonical(N, s, px, py)) continue;
                int64_t g = ((px * s + py * (s + 1)) % N + N) % N; /* the parent, relative to origin 0 */
                if ((err = gsp_sched_sym(out, dd - 1, arc, g))) goto fail;
            }
        }
    return gsp_sched_finish(out);
fail:
    gsp_sched_destroy(out);
    return err;
}

const gsp_method_t gsp__method_allgather_circulant = {
    "circulant-gossip", GSP_COLL_ALLGATHER, "optimal circulants G(N; s, s+1) with p >= D*: D* rounds",
    "circulant paper, Prop. 8", applies, rounds, build, false, NULL, false, NULL, .needs = {.ports = GSP_NEED_PORTS_ALL, .full_duplex = true}};
