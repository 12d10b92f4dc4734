/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allreduce_linear.c — Problem B of the global-sum paper made constructive: a linear protocol
 * W_D ... W_1 = J found numerically (problemb.c: Levenberg–Marquardt from random starts), turned
 * into a register schedule and proved by the verifier's exact linear-form check.
 *
 * Applies to undirected graphs with N <= 32. Each round every node sends its one value to its
 * neighbours and replaces it by W_t[v][v] y(v) + sum_u W_t[v][u] y(u) — one number per node, as in
 * Problem B (diameter2's protocol keeps several registers per node and is outside this model).
 * Cayley graphs search weights that depend on the generator only (Problem C's restriction).
 * Rounds: D when a protocol is found; the method does not apply otherwise (the search is not a
 * proof that none exists). Example: the Petersen graph in 2 rounds; star:4 (D = 4): none found. */
#include <string.h>

#include "algo_int.h"

#define LINEAR_MAX 32
#define LINEAR_STARTS 24

static int64_t rounds(const gsp_plan_in_t *in) { return in->dist->diameter; }

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    const gsp_topo_t *t = in->topo;
    int64_t n = t->n, D = in->dist->diameter;
    double *diag = NULL, *arcw = NULL;
    gsp_problemb_t pb;
    if (D == 0) return gsp_error(GSP_ERR_NOTAPPLIC, "linear: a single node");
    if ((err = gsp_problemb_search(t, D, LINEAR_STARTS, in->seed, in->progress, in->progress_ctx, &pb))) return err;
    if (!pb.found) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "linear: no %lld-round linear protocol found on %s (%lld starts, best residual %.3g)",
                        (long long)D, t->spec, (long long)pb.starts, pb.residual);
        gsp_problemb_destroy(&pb);
        return err;
    }
    if ((err = gsp_alloc_array((void **)&diag, D * n, sizeof *diag, false)) ||
        (err = gsp_alloc_array((void **)&arcw, D * t->m, sizeof *arcw, false)))
        goto done;
    /* Unpack problemb's parameters (see problemb.h for their layout). */
    for (int64_t r = 0; r < D; r++) {
        const double *w = pb.w + r * pb.nparam;
        for (int64_t v = 0; v < n; v++) diag[r * n + v] = t->group ? w[0] : w[v];
        for (int64_t u = 0, k = n; u < n; u++)
            for (int64_t a = t->off[u]; a < t->off[u + 1]; a++, k++)
                arcw[r * t->m + a] = t->group ? w[1 + (a - t->off[u])] : w[k];
    }
    err = gsp__weighted_schedule(t, &in->model, "linear", D, diag, arcw, 1.0, out);
done:
    gsp_free(diag);
    gsp_free(arcw);
    gsp_problemb_destroy(&pb);
    return err;
}

const gsp_method_t gsp__method_allreduce_linear = {
    "linear", GSP_COLL_ALLREDUCE, "undirected graphs with N <= 32: a D-round linear protocol found numerically (Problem B)",
    "global-sum paper, Problem B/C (Levenberg-Marquardt search)", NULL, rounds, build, false, NULL, false,
    rounds /* cheap: its promise */, .needs = {.undirected = true, .ports = GSP_NEED_PORTS_ALL, .full_duplex = true, .max_nodes = LINEAR_MAX}};
