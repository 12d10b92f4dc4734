/* SPDX-License-Identifier: GPL-3.0-or-later */
/* revolve_jacobi.c — an asynchronous fixed-point iteration with fixed-point detection over the
 * revolving hierarchy (Section VII of Garg and Ghosh), simulated for N = 2^n processes: the
 * Jacobi iteration on a diagonally dominant system, each process owning a block of unknowns and
 * reading the others' values with a delay; every step the bcnext messages carry, for each
 * computation in flight, the largest residual heard of, and the iteration stops when a completed
 * computation's global residual is below the tolerance. The result must match LAPACK's direct
 * solution. Usage: revolve_jacobi [n=4] [rows per process=16] [seed=1]; exit 0 when it does. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/gossip.h"

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4, rows = argc > 2 ? atoi(argv[2]) : 16;
    unsigned seed = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
    if (n < 1 || n > 8 || rows < 1 || rows > 64) {
        fprintf(stderr, "revolve_jacobi: error: expected 1 <= n <= 8 and 1 <= rows <= 64\n");
        return 2;
    }
    gsp_revolve_t r;
    if (gsp_revolve_build_list(n, GSP_REVOLVE_BCNEXT, &r)) {
        fprintf(stderr, "revolve_jacobi: error: %s\n", gsp_errmsg());
        return 3;
    }
    int64_t N = r.N, m = N * rows, depth = gsp_revolve_depth(&r, true), W = depth + 1;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, seed);
    double *A = calloc((size_t)(m * m), sizeof *A), *b = malloc(sizeof *b * (size_t)m);
    for (int64_t i = 0; i < m; i++) {
        double off = 0;
        for (int64_t j = 0; j < m; j++)
            if (j != i && gsp_rng_double(&rng) < 0.05) off += fabs(A[i * m + j] = gsp_rng_double(&rng) - 0.5);
        A[i * m + i] = 1.5 * off + 1; /* strictly diagonally dominant: Jacobi converges */
        b[i] = gsp_rng_double(&rng) * 10 - 5;
    }
    /* Truth: LU with partial pivoting. */
    double *LU = malloc(sizeof *LU * (size_t)(m * m)), *xs = malloc(sizeof *xs * (size_t)m);
    lapack_int *piv = malloc(sizeof *piv * (size_t)m);
    memcpy(LU, A, sizeof *LU * (size_t)(m * m));
    memcpy(xs, b, sizeof *xs * (size_t)m);
    if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)m, 1, LU, (lapack_int)m, piv, xs, 1) != 0) return 3;

    double *x = calloc((size_t)m, sizeof *x), *old = calloc((size_t)m, sizeof *old);
    double *cres = malloc(sizeof *cres * (size_t)(N * W)), *nres = malloc(sizeof *nres * (size_t)(N * W));
    double tol = 1e-12;
    int64_t t = 0, messages = 0, stopped = -1;
    for (; t < 100000 && stopped < 0; t++) {
        /* Asynchrony: a process sees the other blocks as they were at the start of the step. */
        memcpy(old, x, sizeof *x * (size_t)m);
        for (int64_t p = 0; p < N; p++) {
            double res = 0;
            for (int64_t i = p * rows; i < (p + 1) * rows; i++) {
                double s = b[i];
                for (int64_t j = 0; j < m; j++)
                    if (j != i) s -= A[i * m + j] * (j / rows == p ? x[j] : old[j]);
                double nx = s / A[i * m + i];
                if (fabs(nx - x[i]) > res) res = fabs(nx - x[i]);
                x[i] = nx;
            }
            cres[p * W + t % W] = res;
        }
        memcpy(nres, cres, sizeof *cres * (size_t)(N * W));
        for (int64_t q = 0; q < N; q++) {
            int64_t y = gsp_revolve_msg(&r, q, t);
            if (y < 0) continue;
            messages++;
            for (int64_t c = t - depth + 1 > 0 ? t - depth + 1 : 0; c <= t; c++)
                if (cres[q * W + c % W] > nres[y * W + c % W]) nres[y * W + c % W] = cres[q * W + c % W];
        }
        double *tmp = cres;
        cres = nres;
        nres = tmp;
        int64_t c = t - depth + 1; /* detection: the largest update of step c was below tol */
        if (c >= 0 && cres[gsp_revolve_holder(&r, true, c) * W + c % W] < tol) stopped = c;
    }
    double err = 0, scale = 0;
    for (int64_t i = 0; i < m; i++) {
        err = fmax(err, fabs(x[i] - xs[i]));
        scale = fmax(scale, fabs(xs[i]));
    }
    bool ok = stopped >= 0 && err <= 1e-9 * fmax(1, scale);
    printf("revolve_jacobi: %lld unknowns on %lld processes: fixed point detected at step %lld (stopped at %lld, %lld "
           "messages); max |x - x_LAPACK| = %.3g: %s\n",
           (long long)m, (long long)N, (long long)stopped, (long long)t, (long long)messages, err, ok ? "converged" : "NOT CONVERGED");
    free(A), free(b), free(LU), free(xs), free(piv), free(x), free(old), free(cres), free(nres);
    gsp_revolve_destroy(&r);
    return ok ? 0 : 1;
}
