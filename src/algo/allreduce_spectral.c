/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allreduce_spectral.c — global sum in m rounds from the m + 1 distinct eigenvalues
 * (Theorem 1 of the global-sum paper, the Hoffman polynomial).
 *
 * Applies to undirected graphs. Regular graphs of degree d: round t applies (A - lambda_t I) for
 * every eigenvalue lambda_t != d, which kills every eigencomponent but the constant one; a final
 * scaling by n / prod(d - lambda_t) leaves the sum at every node. Other graphs use the Laplacian
 * (D - A - mu_t I) over its nonzero eigenvalues and scale by n / prod(-mu_t) (finite-time
 * average consensus). Eigenvalues come from the character formula (abelian Cayley graphs), sums
 * over factors (products) or LAPACKE; values within 1e-8 of an integer are taken as integers
 * (hypercubes, star graphs, complete graphs). The rounds take the eigenvalues in Leja order and
 * the schedule is refused when its largest relative error on random inputs exceeds 1e-9.
 * Rounds: m = distinct eigenvalues - 1 — D for distance-regular graphs (Corollary 2).
 * Example: hypercube:3, eigenvalues 3, 1, -1, -3: rounds (A - I), (A + I), (A + 3I) [Leja order
 * may permute them], scale 8 / (2 * 4 * 6). */
#include <math.h>
#include <string.h>

#include "algo_int.h"

#define SPECTRAL_MAX_ROUNDS 256

/* The eigenvalues a round kills, and the final scale. */
static gsp_err_t plan_steps(const gsp_topo_t *t, gsp__poly_step_t **steps, int64_t *m, double *scale) {
    gsp_err_t err;
    double *eig = NULL, *vals = NULL;
    int64_t nv;
    bool regular = t->dmin == t->dmax;
    gsp_spectrum_how_t how;
    *steps = NULL;
    if (t->directed) return gsp_error(GSP_ERR_NOTAPPLIC, "spectral: %s is directed", t->spec);
    err = regular ? gsp_spectrum(t, &eig, &how) : gsp_laplacian_spectrum(t, &eig);
    if (err) return gsp_error(GSP_ERR_NOTAPPLIC, "spectral: %s", gsp_errmsg());
    err = gsp__distinct_values(eig, t->n, gsp_spectrum_tolerance(eig, t->n), &vals, &nv);
    gsp_free(eig);
    if (err) return err;
    /* Drop the eigenvalue of the constant vector: d (adjacency, the largest) or 0 (Laplacian, the smallest). */
    double *kill = regular ? vals : vals + 1;
    int64_t nk = nv - 1;
    if (nk > SPECTRAL_MAX_ROUNDS) {
        gsp_free(vals);
        return gsp_error(GSP_ERR_NOTAPPLIC, "spectral: %lld distinct eigenvalues (more than %d rounds)", (long long)nv,
                         SPECTRAL_MAX_ROUNDS);
    }
    gsp__leja(kill, nk);
    if ((err = gsp_alloc_array((void **)steps, nk ? nk : 1, sizeof **steps, false))) {
        gsp_free(vals);
        return err;
    }
    double prod = 1, d = (double)t->dmax;
    for (int64_t k = 0; k < nk; k++) {
        if (regular) {
            (*steps)[k] = (gsp__poly_step_t){-kill[k], 1, 0};
            prod *= d - kill[k];
        } else {
            (*steps)[k] = (gsp__poly_step_t){-kill[k], -1, 1};
            prod *= -kill[k];
        }
    }
    *m = nk;
    *scale = (double)t->n / prod;
    gsp_free(vals);
    return GSP_OK;
}

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    gsp__poly_step_t *steps;
    int64_t m = 0;
    double scale = 1;
    if (plan_steps(in->topo, &steps, &m, &scale)) {
        snprintf(why, n, "%s", gsp_errmsg());
        return false;
    }
    gsp_free(steps);
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) {
    gsp__poly_step_t *steps;
    int64_t m = 0;
    double scale = 1;
    if (plan_steps(in->topo, &steps, &m, &scale)) return -1;
    gsp_free(steps);
    return m;
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    gsp__poly_step_t *steps;
    int64_t m = 0;
    double scale = 1;
    if ((err = plan_steps(in->topo, &steps, &m, &scale))) return err;
    err = gsp__poly_schedule(in->topo, &in->model, "spectral", steps, m, scale, out);
    gsp_free(steps);
    if (err) return err;
    /* Numerics decide: measure the error on random inputs and refuse above 1e-9. */
    gsp_report_t rep;
    if ((err = gsp_sched_verify(out, in->topo, in->seed, &rep))) goto fail;
    if (!rep.ok || rep.max_rel_error > 1e-9) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "spectral: %lld rounds lose too much precision (relative error %.3g > 1e-9%s%s)",
                        (long long)m, rep.max_rel_error, rep.ok ? "" : "; ", rep.ok ? "" : rep.message);
        goto fail;
    }
    return GSP_OK;
fail:
    gsp_sched_destroy(out);
    return err;
}

const gsp_method_t gsp__method_allreduce_spectral = {
    "spectral", GSP_COLL_ALLREDUCE, "undirected graphs whose spectrum is known (m+1 distinct eigenvalues: m rounds)",
    "global-sum paper, Theorem 1 (Laplacian form for non-regular graphs)", applies, rounds, build, false, NULL, false, NULL, .needs = {.undirected = true, .ports = GSP_NEED_PORTS_ALL, .full_duplex = true, .ports_why = "every node sends to all its neighbours each round"}};
