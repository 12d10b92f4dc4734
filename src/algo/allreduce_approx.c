/* SPDX-License-Identifier: GPL-3.0-or-later */
/* allreduce_approx.c — an estimate of the global sum at every node after m < D rounds
 * (Theorem 5 of the global-sum paper).
 *
 * Applies to regular undirected graphs whose spectrum is known. y = p(A - dI) x with p of degree
 * m and p(0) = 1 keeps the mean (the constant eigencomponent, eigenvalue 0 of A - dI) and
 * multiplies every other eigencomponent by p(lambda - d). p is the Chebyshev polynomial of the
 * interval [lambda_min - d, lambda_2 - d] holding the other eigenvalues, normalised to p(0) = 1 —
 * the polynomial of least sup norm there. Then sum_i (y_i - mean)^2 <= max|p|^2 sum_i (x_i - mean)^2:
 * the relative variance of the estimates is at most max|p|^2 = 1 / T_m(-(a + b)/(b - a))^2, the
 * bound printed beside the measured one. Results hold n * y_i (an estimate of the sum).
 * Rounds: m (default D - 1). Example: torus:16x16 (D = 16) with m = 10. */
#include <math.h>
#include <string.h>

#include "algo_int.h"

static gsp_err_t interval(const gsp_topo_t *t, double *a, double *b) {
    double *eig;
    gsp_spectrum_how_t how;
    if (t->directed || t->dmin != t->dmax)
        return gsp_error(GSP_ERR_NOTAPPLIC, "approx: needs a regular undirected graph (Theorem 5 uses A - dI)");
    if (gsp_spectrum(t, &eig, &how)) return gsp_error(GSP_ERR_NOTAPPLIC, "approx: %s", gsp_errmsg());
    double d = (double)t->dmax, tol = gsp_spectrum_tolerance(eig, t->n);
    int64_t k = t->n - 1;
    while (k > 0 && eig[k] > d - tol) k--; /* skip every copy of d (a disconnected graph has several) */
    *a = eig[0] - d;
    *b = eig[k] - d;
    gsp_free(eig);
    if (!(*b < 0)) return gsp_error(GSP_ERR_NOTAPPLIC, "approx: no spectral gap");
    return GSP_OK;
}

static int64_t degree_of(const gsp_plan_in_t *in) {
    int64_t m = in->degree > 0 ? in->degree : in->dist->diameter - 1;
    return m < 1 ? 1 : m;
}

static bool applies(const gsp_plan_in_t *in, char *why, size_t n) {
    double a, b;
    if (interval(in->topo, &a, &b)) {
        snprintf(why, n, "%s", gsp_errmsg());
        return false;
    }
    return true;
}

static int64_t rounds(const gsp_plan_in_t *in) { return degree_of(in); }

static double variance_bound(const gsp_plan_in_t *in) {
    double a, b;
    if (interval(in->topo, &a, &b)) return -1;
    double z = -(a + b) / (b - a); /* 0 mapped into Chebyshev coordinates, z > 1 */
    double tm = cosh((double)degree_of(in) * acosh(z));
    return 1 / (tm * tm);
}

static gsp_err_t build(const gsp_plan_in_t *in, gsp_sched_t *out) {
    gsp_err_t err;
    double a, b;
    int64_t m = degree_of(in);
    gsp__poly_step_t *steps = NULL;
    double *roots = NULL, d = (double)in->topo->dmax;
    if ((err = interval(in->topo, &a, &b))) return err;
    if ((err = gsp_alloc_array((void **)&steps, m, sizeof *steps, false)) ||
        (err = gsp_alloc_array((void **)&roots, m, sizeof *roots, false)))
        goto done;
    /* p(mu) = prod_i (1 - mu / r_i) over the Chebyshev roots r_i mapped to [a, b]. */
    for (int64_t i = 0; i < m; i++) roots[i] = (a + b) / 2 + (b - a) / 2 * cos(M_PI * (2.0 * i + 1) / (2.0 * m));
    gsp__leja(roots, m);
    for (int64_t i = 0; i < m; i++) steps[i] = (gsp__poly_step_t){1 + d / roots[i], -1 / roots[i], 0};
    err = gsp__poly_schedule(in->topo, &in->model, "approx", steps, m, (double)in->topo->n, out);
done:
    gsp_free(steps);
    gsp_free(roots);
    return err;
}

const gsp_method_t gsp__method_allreduce_approx = {
    "approx", GSP_COLL_ALLREDUCE, "regular undirected graphs: estimate of the sum after m < D rounds (--degree m)",
    "global-sum paper, Theorem 5 (Chebyshev polynomial)", applies, rounds, build, true, variance_bound, false, NULL, .needs = {.undirected = true, .ports = GSP_NEED_PORTS_ALL, .full_duplex = true}};
