/* SPDX-License-Identifier: GPL-3.0-or-later */
/* spectrum.c — adjacency eigenvalues. Characters diagonalise an abelian Cayley graph, so its
 * spectrum has a closed form at any size; a product's spectrum is the sumset of its factors';
 * anything else goes to LAPACK's symmetric divide-and-conquer solver. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/analysis.h"

static int cmp_double(const void *p, const void *q) {
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

/* lambda_k = sum_i cos(2 pi sum_j k_j s_ij / m_j) for every character k of the group. */
static gsp_err_t abelian(const gsp_topo_t *t, double *eig) {
    const gsp_group_t *g = t->group;
    int k = g->k, d = t->ngens;
    int64_t(*sc)[GSP_MAX_DIMS] = NULL, c[GSP_MAX_DIMS];
    gsp_err_t err = gsp_alloc_array((void **)&sc, d, sizeof *sc, false);
    if (err) return err;
    for (int i = 0; i < d; i++) gsp_group_coords(g, t->gens[i], sc[i]);
    for (int64_t x = 0; x < t->n; x++) {
        gsp_group_coords(g, x, c);
        double lam = 0;
        for (int i = 0; i < d; i++) {
            /* Sum the phases as exact fractions per coordinate to keep cos arguments small. */
            double phase = 0;
            for (int j = 0; j < k; j++) phase += (double)((c[j] * sc[i][j]) % g->mod[j]) / g->mod[j];
            lam += cos(2 * M_PI * phase);
        }
        eig[x] = lam;
    }
    gsp_free(sc);
    return GSP_OK;
}

static gsp_err_t dense(const gsp_topo_t *t, double *eig) {
    int64_t n = t->n;
    double *a = NULL;
    gsp_err_t err = gsp_alloc_array((void **)&a, n * n, sizeof *a, true);
    if (err) return err;
    for (int64_t x = 0; x < n; x++)
        for (int64_t e = t->off[x]; e < t->off[x + 1]; e++) a[x * n + t->adj[e]] += 1;
    lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)n, a, (lapack_int)n, eig);
    gsp_free(a);
    if (info != 0) return gsp_error(GSP_ERR_NUMERIC, "LAPACKE_dsyevd failed (info %d)", (int)info);
    return GSP_OK;
}

gsp_err_t gsp_spectrum(const gsp_topo_t *t, double **eig, gsp_spectrum_how_t *how) {
    gsp_err_t err;
    double *e = NULL;
    *eig = NULL;
    if (t->directed)
        return gsp_error(GSP_ERR_UNSUPPORTED, "%s: spectrum of a directed graph is not computed",
                         t->spec);
    bool ab = t->group && t->group->kind == GSP_GROUP_ABELIAN;
    bool prod = t->fa && t->fb;
    if (!ab && !prod && t->n > GSP_DENSE_MAX)
        return gsp_error(GSP_ERR_UNSUPPORTED,
                         "%s: %lld nodes is above the dense solver's limit of %d and the graph is "
                         "neither an abelian Cayley graph nor a product",
                         t->spec, (long long)t->n, GSP_DENSE_MAX);
    if ((err = gsp_alloc_array((void **)&e, t->n, sizeof *e, false))) return err;
    if (ab) {
        *how = GSP_SPECTRUM_ABELIAN;
        err = abelian(t, e);
    } else if (prod) {
        double *ea = NULL, *eb = NULL;
        gsp_spectrum_how_t ha, hb;
        *how = GSP_SPECTRUM_PRODUCT;
        if (!(err = gsp_spectrum(t->fa, &ea, &ha)) && !(err = gsp_spectrum(t->fb, &eb, &hb)))
            for (int64_t i = 0; i < t->fa->n; i++)
                for (int64_t j = 0; j < t->fb->n; j++) e[i * t->fb->n + j] = ea[i] + eb[j];
        gsp_free(ea);
        gsp_free(eb);
    } else {
        *how = GSP_SPECTRUM_DENSE;
        err = dense(t, e);
    }
    if (err) {
        gsp_free(e);
        return err;
    }
    qsort(e, (size_t)t->n, sizeof *e, cmp_double);
    *eig = e;
    return GSP_OK;
}

gsp_err_t gsp_laplacian_spectrum(const gsp_topo_t *t, double **eig) {
    gsp_err_t err;
    int64_t n = t->n;
    double *a = NULL, *e = NULL;
    *eig = NULL;
    if (t->directed) return gsp_error(GSP_ERR_UNSUPPORTED, "%s: Laplacian of a directed graph", t->spec);
    if (n > GSP_DENSE_MAX)
        return gsp_error(GSP_ERR_UNSUPPORTED, "%s: %lld nodes is above the dense solver's limit of %d", t->spec,
                         (long long)n, GSP_DENSE_MAX);
    if ((err = gsp_alloc_array((void **)&a, n * n, sizeof *a, true)) || (err = gsp_alloc_array((void **)&e, n, sizeof *e, false))) {
        gsp_free(a);
        return err;
    }
    for (int64_t x = 0; x < n; x++)
        for (int64_t k = t->off[x]; k < t->off[x + 1]; k++) {
            a[x * n + t->adj[k]] -= 1;
            a[x * n + x] += 1;
        }
    lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)n, a, (lapack_int)n, e);
    gsp_free(a);
    if (info != 0) {
        gsp_free(e);
        return gsp_error(GSP_ERR_NUMERIC, "LAPACKE_dsyevd failed (info %d)", (int)info);
    }
    *eig = e;
    return GSP_OK;
}

double gsp_spectrum_tolerance(const double *eig, int64_t n) {
    double r = 1;
    if (n > 0) {
        if (fabs(eig[0]) > r) r = fabs(eig[0]);
        if (fabs(eig[n - 1]) > r) r = fabs(eig[n - 1]);
    }
    return 1e-9 * r;
}

int64_t gsp_spectrum_distinct(const double *eig, int64_t n, double tol) {
    int64_t c = n > 0;
    for (int64_t i = 1; i < n; i++)
        if (eig[i] - eig[i - 1] > tol) c++;
    return c;
}
