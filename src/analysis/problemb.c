/* SPDX-License-Identifier: GPL-3.0-or-later */
/* problemb.c — numeric search for Problem B (see problemb.h) with GSL's nonlinear least squares
 * (Levenberg–Marquardt trust region). Unknowns: the weights of W_1..W_m on the pattern A + I;
 * residuals: the n^2 entries of W_m ... W_1 - J. The Jacobian is exact: the derivative of the
 * product by W_t[v][u] is L_t[:, v] R_t[u, :] with L_t = W_m ... W_{t+1}, R_t = W_{t-1} ... W_1. */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <string.h>

#include "gossip/problemb.h"

typedef struct {
    const gsp_topo_t *t;
    int64_t n, m, np;   /* np: parameters per round */
    int64_t ne;         /* pattern entries per round */
    int64_t *row, *col; /* entry k of a round is W[row[k]][col[k]] ... */
    int64_t *par;       /* ... and takes the value of parameter par[k] of its round */
    size_t nres;        /* residuals: n^2, padded with zeros up to the parameter count */
    double *mats;       /* m dense n x n matrices */
    double *L, *R, *tmp;
} ctx_t;

static void build_mats(ctx_t *c, const gsl_vector *x) {
    int64_t n = c->n;
    memset(c->mats, 0, sizeof *c->mats * (size_t)(c->m * n * n));
    for (int64_t t = 0; t < c->m; t++)
        for (int64_t k = 0; k < c->ne; k++)
            c->mats[t * n * n + c->row[k] * n + c->col[k]] = gsl_vector_get(x, (size_t)(t * c->np + c->par[k]));
}

/* out = a * b (n x n). */
static void matmul(int64_t n, const double *a, const double *b, double *out) {
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
            out[i * n + j] = s;
        }
}

static void identity(int64_t n, double *a) {
    memset(a, 0, sizeof *a * (size_t)(n * n));
    for (int64_t i = 0; i < n; i++) a[i * n + i] = 1;
}

static int f_fn(const gsl_vector *x, void *p, gsl_vector *f) {
    ctx_t *c = p;
    int64_t n = c->n;
    build_mats(c, x);
    identity(n, c->L);
    for (int64_t t = 0; t < c->m; t++) {
        matmul(n, c->mats + t * n * n, c->L, c->tmp);
        memcpy(c->L, c->tmp, sizeof *c->L * (size_t)(n * n));
    }
    for (int64_t i = 0; i < n * n; i++) gsl_vector_set(f, (size_t)i, c->L[i] - 1.0);
    for (size_t i = (size_t)(n * n); i < c->nres; i++) gsl_vector_set(f, i, 0);
    return GSL_SUCCESS;
}

static int df_fn(const gsl_vector *x, void *p, gsl_matrix *J) {
    ctx_t *c = p;
    int64_t n = c->n;
    build_mats(c, x);
    /* R_t = W_{t-1} ... W_1 (R_0 = I); L_t = W_m ... W_{t+1}, computed from the right end. */
    double *Rs = c->R; /* m matrices */
    identity(n, Rs);
    for (int64_t t = 1; t < c->m; t++) matmul(n, c->mats + (t - 1) * n * n, Rs + (t - 1) * n * n, Rs + t * n * n);
    identity(n, c->L);
    gsl_matrix_set_zero(J);
    for (int64_t t = c->m - 1; t >= 0; t--) {
        const double *R = Rs + t * n * n;
        for (int64_t k = 0; k < c->ne; k++) {
            int64_t v = c->row[k], u = c->col[k];
            size_t col = (size_t)(t * c->np + c->par[k]);
            for (int64_t i = 0; i < n; i++) {
                double l = c->L[i * n + v];
                if (l == 0) continue;
                for (int64_t j = 0; j < n; j++) *gsl_matrix_ptr(J, (size_t)(i * n + j), col) += l * R[u * n + j];
            }
        }
        matmul(n, c->L, c->mats + t * n * n, c->tmp);
        memcpy(c->L, c->tmp, sizeof *c->L * (size_t)(n * n));
    }
    return GSL_SUCCESS;
}

void gsp_problemb_destroy(gsp_problemb_t *r) {
    if (!r) return;
    gsp_free(r->w);
    memset(r, 0, sizeof *r);
}

gsp_err_t gsp_problemb_search(const gsp_topo_t *t, int64_t m, int64_t starts, uint64_t seed, gsp_progress_fn progress, void *pctx,
                              gsp_problemb_t *res) {
    gsp_err_t err = GSP_OK;
    ctx_t c;
    memset(&c, 0, sizeof c);
    memset(res, 0, sizeof *res);
    if (t->directed) return gsp_error(GSP_ERR_NOTAPPLIC, "Problem B search: %s is directed", t->spec);
    if (t->n > GSP_PROBLEMB_MAX)
        return gsp_error(GSP_ERR_NOTAPPLIC, "Problem B search: %lld nodes is above the limit of %d", (long long)t->n, GSP_PROBLEMB_MAX);
    if (m < 1 || starts < 1) return gsp_error(GSP_ERR_RANGE, "Problem B search: rounds and starts must be >= 1");
    int64_t n = t->n;
    c.t = t;
    c.n = n;
    c.m = m;
    c.ne = n + t->m;
    /* A Cayley graph's weights may depend on the generator only (Problem C's restriction): d + 1
     * unknowns per round instead of n + arcs. */
    c.np = t->group ? t->ngens + 1 : c.ne;
    res->m = m;
    res->nparam = c.np;
    res->residual = INFINITY;
    if ((err = gsp_alloc_array((void **)&c.row, c.ne, sizeof *c.row, false)) ||
        (err = gsp_alloc_array((void **)&c.col, c.ne, sizeof *c.col, false)) ||
        (err = gsp_alloc_array((void **)&c.par, c.ne, sizeof *c.par, false)) ||
        (err = gsp_alloc_array((void **)&c.mats, m * n * n, sizeof *c.mats, false)) ||
        (err = gsp_alloc_array((void **)&c.L, n * n, sizeof *c.L, false)) ||
        (err = gsp_alloc_array((void **)&c.tmp, n * n, sizeof *c.tmp, false)) ||
        (err = gsp_alloc_array((void **)&c.R, m * n * n, sizeof *c.R, false)) ||
        (err = gsp_alloc_array((void **)&res->w, m * c.np, sizeof *res->w, false)))
        goto done;
    /* Diagonal first, then W[v][u] for every arc u -> v (v receives from u). */
    for (int64_t v = 0; v < n; v++) {
        c.row[v] = c.col[v] = v;
        c.par[v] = t->group ? 0 : v;
    }
    int64_t k = n;
    for (int64_t u = 0; u < n; u++)
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++, k++) {
            c.row[k] = t->adj[a];
            c.col[k] = u;
            c.par[k] = t->group ? 1 + (a - t->off[u]) : k;
        }
    size_t P = (size_t)(m * c.np), Nres = (size_t)(n * n);
    if (P > 2000) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "Problem B search: %zu unknowns is too many", P);
        goto done;
    }
    /* GSL wants at least as many residuals as unknowns: pad with zeros. */
    if (Nres < P) Nres = P;
    c.nres = Nres;
    gsl_set_error_handler_off();
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    fp.trs = gsl_multifit_nlinear_trs_lm;
    fp.solver = gsl_multifit_nlinear_solver_svd; /* robust when J is rank-deficient (it often is) */
    gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, Nres, P);
    gsl_vector *x0 = gsl_vector_alloc(P);
    if (!w || !x0) {
        if (w) gsl_multifit_nlinear_free(w);
        if (x0) gsl_vector_free(x0);
        err = gsp_error(GSP_ERR_NOMEM, "out of memory in GSL");
        goto done;
    }
    gsl_multifit_nlinear_fdf fdf = {f_fn, df_fn, NULL, Nres, P, &c, 0, 0, 0};
    gsp_rng_t rng;
    gsp_rng_seed(&rng, seed);
    for (int64_t s = 0; s < starts && !res->found; s++) {
        if (progress) progress(pctx, "Problem B search (random starts)", (double)s / (double)starts);
        /* Random starts around the averaging matrix (1/(deg+1) on the pattern). */
        for (size_t i = 0; i < P; i++) {
            double deg = (double)t->dmax + 1;
            gsl_vector_set(x0, i, (1 + 1.0 * (2 * gsp_rng_double(&rng) - 1)) / deg);
        }
        int info;
        gsl_multifit_nlinear_init(x0, &fdf, w);
        gsl_multifit_nlinear_driver(400, 1e-14, 1e-14, 1e-14, NULL, NULL, &info, w);
        gsl_vector *f = gsl_multifit_nlinear_residual(w);
        double r = 0;
        for (size_t i = 0; i < (size_t)(n * n); i++) r = fmax(r, fabs(gsl_vector_get(f, i)));
        res->starts = s + 1;
        if (r < res->residual) {
            res->residual = r;
            gsl_vector *x = gsl_multifit_nlinear_position(w);
            for (size_t i = 0; i < P; i++) res->w[i] = gsl_vector_get(x, i);
        }
        if (r < 1e-11) res->found = true;
    }
    gsl_multifit_nlinear_free(w);
    gsl_vector_free(x0);
done:
    gsp_free(c.row);
    gsp_free(c.col);
    gsp_free(c.par);
    gsp_free(c.mats);
    gsp_free(c.L);
    gsp_free(c.tmp);
    gsp_free(c.R);
    if (err) gsp_problemb_destroy(res);
    return err;
}
