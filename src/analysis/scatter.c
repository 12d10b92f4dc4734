/* SPDX-License-Identifier: GPL-3.0-or-later */
/* scatter.c — random scattering: the exact chain of Drezner and Barak and its simulation.
 *
 * Exact chain. With k colored nodes and B = n - k uncolored, each of the k colored messages
 * hits one of the B uncolored nodes with probability 1/(n-1) each, else a colored node. The
 * number m of newly colored nodes is the number of distinct uncolored nodes hit. Rather than
 * Lemma 2's double sum over h (messages reaching uncolored nodes) with Q(m, h) from Lemma 1 —
 * whose alternating and factorial terms overflow — the same distribution is built message by
 * message: after a message, occ -> occ + 1 with probability (B - occ)/(n - 1). Every term is a
 * probability, so nothing overflows or cancels. Entries below 1e-30 of the largest are dropped
 * (far below the 1e-12 the results are used at). The row of each k is computed once; each step
 * of Theorem 1 is then a sparse matrix-vector product. */
#include <math.h>
#include <string.h>

#include "gossip/scatter.h"

const char *gsp_scatter_variant_name(gsp_scatter_variant_t v) {
    switch (v) {
    case GSP_SCATTER_PUSH: return "push";
    case GSP_SCATTER_PUSH_ASYNC: return "push-async";
    case GSP_SCATTER_PULL: return "pull";
    case GSP_SCATTER_PUSHPULL: return "push-pull";
    }
    return "?";
}

bool gsp_scatter_variant_parse(const char *s, gsp_scatter_variant_t *v) {
    for (int i = 0; i <= GSP_SCATTER_PUSHPULL; i++)
        if (!strcmp(s, gsp_scatter_variant_name((gsp_scatter_variant_t)i))) {
            *v = (gsp_scatter_variant_t)i;
            return true;
        }
    return false;
}

typedef struct {
    int64_t lo, len; /* row k: probabilities of m = lo .. lo + len - 1 new nodes */
    double *p;
} row_t;

/* Distribution of new nodes from k colored of n: message-by-message occupancy. */
static gsp_err_t make_row(int64_t n, int64_t k, double *a, double *b, row_t *row) {
    int64_t B = n - k, lo = 0, hi = 0; /* support [lo, hi] */
    double inv = 1.0 / (double)(n - 1);
    a[0] = 1;
    for (int64_t msg = 0; msg < k; msg++) {
        int64_t nhi = hi + 1 <= B ? hi + 1 : B;
        double mx = 0;
        for (int64_t o = lo; o <= nhi; o++) {
            double stay = o <= hi ? a[o] * (1.0 - (double)(B - o) * inv) : 0;
            double come = o - 1 >= lo ? a[o - 1] * ((double)(B - o + 1) * inv) : 0;
            b[o] = stay + come;
            if (b[o] > mx) mx = b[o];
        }
        hi = nhi;
        double cut = mx * 1e-30;
        while (lo < hi && b[lo] < cut) lo++;
        while (hi > lo && b[hi] < cut) hi--;
        double *t = a;
        a = b;
        b = t;
    }
    row->lo = lo;
    row->len = hi - lo + 1;
    gsp_err_t err = gsp_alloc_array((void **)&row->p, row->len, sizeof *row->p, false);
    if (!err) memcpy(row->p, a + lo, (size_t)row->len * sizeof *a);
    return err;
}

gsp_err_t gsp_scatter_exact(int64_t n, int64_t max_rounds, double **out, int64_t *len, double *mean,
                            gsp_progress_fn progress, void *ctx) {
    gsp_err_t err;
    row_t *rows = NULL;
    double *a = NULL, *b = NULL, *cur = NULL, *nxt = NULL;
    gsp_vec_t res = {0};
    double *pv = NULL;
    int64_t npv = 0, cap = 0;
    *out = NULL;
    *len = 0;
    if (n < 2 || n > GSP_SCATTER_EXACT_MAX)
        return gsp_error(GSP_ERR_RANGE, "scatter: n = %lld is outside 2..%d for the exact distribution", (long long)n,
                         GSP_SCATTER_EXACT_MAX);
    if (max_rounds < 0) return gsp_error(GSP_ERR_RANGE, "scatter: rounds must be >= 0");
    (void)res;
    if ((err = gsp_alloc_array((void **)&rows, n + 1, sizeof *rows, true)) ||
        (err = gsp_alloc_array((void **)&a, n + 2, sizeof *a, true)) || (err = gsp_alloc_array((void **)&b, n + 2, sizeof *b, true)) ||
        (err = gsp_alloc_array((void **)&cur, n + 1, sizeof *cur, true)) ||
        (err = gsp_alloc_array((void **)&nxt, n + 1, sizeof *nxt, true)))
        goto done;
    for (int64_t k = 1; k < n; k++) {
        if ((err = make_row(n, k, a, b, &rows[k]))) goto done;
        if (progress && (k & 63) == 0) progress(ctx, "scatter: transition rows", (double)k / n);
    }
    cur[1] = 1;
    double tail = 1, sum = 0, last_ratio = 0;
    for (int64_t j = 0;; j++) {
        if (npv == cap) {
            cap = cap ? 2 * cap : 64;
            double *q = gsp_realloc(pv, (size_t)cap * sizeof *pv);
            if (!q) {
                err = gsp_error(GSP_ERR_NOMEM, "out of memory");
                goto done;
            }
            pv = q;
        }
        pv[npv++] = cur[n];
        double t = 1 - cur[n];
        if (j > 0 && tail > 0) last_ratio = t / tail;
        tail = t;
        sum += t;
        /* Run at least to convergence, so that the mean is exact whatever --rounds says. */
        if ((cur[n] > 1 - 1e-12 || j > 100000) && j >= max_rounds) break;
        memset(nxt, 0, (size_t)(n + 1) * sizeof *nxt);
        nxt[n] = cur[n];
        for (int64_t k = 1; k < n; k++) {
            double c = cur[k];
            if (c == 0) continue;
            const row_t *r = &rows[k];
            for (int64_t i = 0; i < r->len; i++) nxt[k + r->lo + i] += c * r->p[i];
        }
        double *tt = cur;
        cur = nxt;
        nxt = tt;
    }
    /* E[T] = sum_{j >= 0} P(T > j); beyond the last step the tail decays geometrically. */
    if (mean) *mean = sum - tail + (last_ratio > 0 && last_ratio < 1 ? tail / (1 - last_ratio) : tail);
    *out = pv;
    *len = max_rounds ? max_rounds + 1 : npv;
    pv = NULL;
done:
    if (rows)
        for (int64_t k = 0; k <= n; k++) gsp_free(rows[k].p);
    gsp_free(rows);
    gsp_free(a);
    gsp_free(b);
    gsp_free(cur);
    gsp_free(nxt);
    gsp_free(pv);
    return err;
}

/* ---- simulation ---- */

static inline uint64_t other(gsp_rng_t *r, uint64_t self, uint64_t n) {
    uint64_t t = gsp_rng_below(r, n - 1);
    return t >= self ? t + 1 : t;
}

gsp_err_t gsp_scatter_simulate(int64_t n, gsp_scatter_variant_t v, int64_t trials, uint64_t seed, int64_t *steps,
                               int64_t *sends, gsp_progress_fn progress, void *ctx) {
    gsp_err_t err;
    unsigned char *col = NULL, *nw = NULL;
    int64_t *list = NULL, *perm = NULL;
    *sends = 0;
    if (n < 2) return gsp_error(GSP_ERR_RANGE, "scatter: n must be at least 2");
    if (trials < 1) return gsp_error(GSP_ERR_RANGE, "scatter: trials must be at least 1");
    if ((err = gsp_alloc_array((void **)&col, n, 1, false)) || (err = gsp_alloc_array((void **)&nw, n, 1, false)) ||
        (err = gsp_alloc_array((void **)&list, n, sizeof *list, false)))
        goto done;
    for (int64_t tr = 0; tr < trials; tr++) {
        gsp_rng_t rng;
        /* One stream per trial: trial t is the same whatever the trial count. */
        gsp_rng_seed(&rng, seed * 0x9e3779b97f4a7c15ull + (uint64_t)tr);
        memset(col, 0, (size_t)n);
        int64_t start = (int64_t)gsp_rng_below(&rng, (uint64_t)n), k = 1, j = 0;
        col[start] = 1;
        list[0] = start;
        while (k < n) {
            j++;
            *sends += n;
            int64_t k0 = k;
            switch (v) {
            case GSP_SCATTER_PUSH:
                /* Only the k0 nodes colored at the start of the step carry the color. */
                for (int64_t i = 0; i < k0; i++) {
                    int64_t y = (int64_t)other(&rng, (uint64_t)list[i], (uint64_t)n);
                    if (!col[y]) col[y] = 1, list[k++] = y;
                }
                break;
            case GSP_SCATTER_PUSH_ASYNC:
                /* Unsynchronized clocks: every node sends once per unit of time at its own fixed
                 * phase, so within a step nodes send in one fixed random order, and a node
                 * colored earlier in the step forwards the color. Labels are exchangeable (the
                 * start node and all targets are uniform), so that order is index order. */
                for (int64_t x = 0; x < n; x++) {
                    if (!col[x]) continue;
                    int64_t y = (int64_t)other(&rng, (uint64_t)x, (uint64_t)n);
                    if (!col[y]) col[y] = 1, list[k++] = y;
                }
                break;
            case GSP_SCATTER_PULL:
            case GSP_SCATTER_PUSHPULL:
                memset(nw, 0, (size_t)n);
                if (v == GSP_SCATTER_PUSHPULL)
                    for (int64_t i = 0; i < k0; i++) nw[other(&rng, (uint64_t)list[i], (uint64_t)n)] = 1;
                for (int64_t x = 0; x < n; x++)
                    if (!col[x] && col[other(&rng, (uint64_t)x, (uint64_t)n)]) nw[x] = 1;
                for (int64_t x = 0; x < n; x++)
                    if (nw[x] && !col[x]) col[x] = 1, list[k++] = x;
                break;
            }
        }
        steps[tr] = j;
        if (progress && (tr & 15) == 15) progress(ctx, "scatter: trials", (double)(tr + 1) / trials);
    }
done:
    gsp_free(col);
    gsp_free(nw);
    gsp_free(list);
    gsp_free(perm);
    return err;
}

int64_t gsp_scatter_meanfield(int64_t n, double alpha) {
    double p = 1.0 / (double)n;
    int64_t j = 0;
    while ((double)n * p < (double)n - alpha && j < 100000) {
        p = 1 - exp(-p) * (1 - p);
        j++;
    }
    return j;
}

double gsp_scatter_theorem2(int64_t n) { return (1 + log(2)) * log2((double)n); }
double gsp_scatter_theorem3(int64_t n) { return 2 * log(2) * log2((double)n); }
double gsp_scatter_theorem3_alpha(int64_t n, double alpha) {
    return log(((double)n - 1) * ((double)n - alpha) / alpha);
}
