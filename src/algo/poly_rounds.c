/* SPDX-License-Identifier: GPL-3.0-or-later */
/* poly_rounds.c — register schedules for polynomial iterations y <- (alpha + gamma D + beta A) y
 * (see algo_int.h), the building block of the spectral global-sum methods, and helpers on
 * spectra (distinct values, Leja ordering). */
#include <math.h>
#include <string.h>

#include "algo_int.h"

gsp_err_t gsp__distinct_values(const double *eig, int64_t n, double tol, double **vals, int64_t *nv) {
    gsp_err_t err = gsp_alloc_array((void **)vals, n ? n : 1, sizeof **vals, false);
    if (err) return err;
    *nv = 0;
    for (int64_t i = 0; i < n;) {
        int64_t j = i;
        double s = 0;
        while (j < n && eig[j] - eig[i] <= tol * (double)(j - i + 1)) s += eig[j++];
        double v = s / (double)(j - i), r = round(v);
        (*vals)[(*nv)++] = fabs(v - r) < 1e-8 ? r : v;
        i = j;
    }
    return GSP_OK;
}

void gsp__leja(double *v, int64_t n) {
    if (n <= 1) return;
    int64_t best = 0;
    for (int64_t i = 1; i < n; i++)
        if (fabs(v[i]) > fabs(v[best])) best = i;
    double t = v[0];
    v[0] = v[best];
    v[best] = t;
    for (int64_t k = 1; k < n; k++) {
        /* Products in log space: they under/overflow for long spectra. */
        double bestv = -INFINITY;
        best = k;
        for (int64_t i = k; i < n; i++) {
            double s = 0;
            for (int64_t j = 0; j < k; j++) s += log(fabs(v[i] - v[j]) + 1e-300);
            if (s > bestv) bestv = s, best = i;
        }
        t = v[k];
        v[k] = v[best];
        v[best] = t;
    }
}

gsp_err_t gsp__poly_schedule(const gsp_topo_t *t, const gsp_model_t *model, const char *method,
                             const gsp__poly_step_t *steps, int64_t m, double scale, gsp_sched_t *out) {
    /* y <- (alpha + gamma D + beta A) y is the weighted iteration with diagonal alpha + gamma deg_in(v)
     * and weight beta on every arc. */
    gsp_err_t err;
    double *diag = NULL, *arcw = NULL;
    int64_t *indeg = NULL, n = t->n;
    if ((err = gsp_alloc_array((void **)&diag, m * n + 1, sizeof *diag, false)) ||
        (err = gsp_alloc_array((void **)&arcw, m * t->m + 1, sizeof *arcw, false)) ||
        (err = gsp_alloc_array((void **)&indeg, n, sizeof *indeg, true)))
        goto done;
    for (int64_t a = 0; a < t->m; a++) indeg[t->adj[a]]++;
    for (int64_t r = 0; r < m; r++) {
        for (int64_t v = 0; v < n; v++) diag[r * n + v] = steps[r].alpha + steps[r].gamma * (double)indeg[v];
        for (int64_t a = 0; a < t->m; a++) arcw[r * t->m + a] = steps[r].beta;
    }
    err = gsp__weighted_schedule(t, model, method, m, diag, arcw, scale, out);
done:
    gsp_free(diag);
    gsp_free(arcw);
    gsp_free(indeg);
    return err;
}

gsp_err_t gsp__weighted_schedule(const gsp_topo_t *t, const gsp_model_t *model, const char *method, int64_t m,
                                 const double *diag, const double *arcw, double scale, gsp_sched_t *out) {
    gsp_err_t err;
    int64_t n = t->n, *cur = NULL, *nreg = NULL, *first = NULL, *got = NULL;
    gsp_term_t *terms = NULL;
    if ((err = gsp_sched_init(out, GSP_COLL_ALLREDUCE, t->spec, n, model, -1, method))) return err;
    if ((err = gsp_alloc_array((void **)&cur, n, sizeof *cur, true)) ||
        (err = gsp_alloc_array((void **)&nreg, n, sizeof *nreg, false)) ||
        (err = gsp_alloc_array((void **)&first, n, sizeof *first, false)) ||
        (err = gsp_alloc_array((void **)&got, n, sizeof *got, false)) ||
        (err = gsp_alloc_array((void **)&terms, n * (t->in_dmax + 1) + 1, sizeof *terms, false)))
        goto done;
    for (int64_t v = 0; v < n; v++) nreg[v] = 1;
    for (int64_t r = 0; r <= m; r++) {
        bool last = r == m;
        if (!last && (err = gsp_sched_round(out))) goto done;
        if (last && (err = gsp_sched_final(out))) goto done;
        if (r > 0) {
            /* Registers received in round r - 1 at v: first[v] .. first[v] + got - 1, in the order
             * of the sends (sender ascending, then its arcs) — the CSR order of arcs into v. */
            const double *dg = diag + (r - 1) * n, *aw = arcw + (r - 1) * t->m;
            double f = last ? scale : 1; /* the final combine also scales */
            int64_t *k = got; /* terms per node, filled by scanning arcs in send order */
            for (int64_t v = 0; v < n; v++) {
                k[v] = 1;
                terms[v * (t->in_dmax + 1)] = (gsp_term_t){cur[v], f * dg[v]};
            }
            for (int64_t u = 0; u < n; u++)
                for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
                    int64_t v = t->adj[a];
                    terms[v * (t->in_dmax + 1) + k[v]] = (gsp_term_t){first[v] + k[v] - 1, f * aw[a]};
                    k[v]++;
                }
            for (int64_t v = 0; v < n; v++) {
                if ((err = gsp_sched_combine(out, v, terms + v * (t->in_dmax + 1), k[v]))) goto done;
                cur[v] = nreg[v]++;
            }
        }
        if (last) break;
        for (int64_t v = 0; v < n; v++) first[v] = nreg[v];
        for (int64_t u = 0; u < n; u++)
            for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
                if ((err = gsp_sched_send(out, u, t->adj[a], cur[u]))) goto done;
                nreg[t->adj[a]]++;
            }
    }
    if ((err = gsp_sched_set_result(out, cur))) goto done;
    err = gsp_sched_finish(out);
done:
    if (err) gsp_sched_destroy(out);
    gsp_free(cur);
    gsp_free(nreg);
    gsp_free(first);
    gsp_free(got);
    gsp_free(terms);
    return err;
}
