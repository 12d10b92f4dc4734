/* SPDX-License-Identifier: GPL-3.0-or-later */
/* revolve_sim.c — repeated computation of a global function on the revolving messages. The
 * payload is a maximum (idempotent, as the paper's applications need: a global bound, a global
 * residual), so a message simply carries the sender's current value for every computation in
 * flight; the gather trees guarantee that the root (or the tournament winner) has heard from
 * everyone `depth` steps after a computation starts. */
#include <math.h>
#include <string.h>

#include "gossip/revolve.h"

int64_t gsp_revolve_depth(const gsp_revolve_t *r, bool list) { return list ? r->n : r->n - 1; }

int64_t gsp_revolve_holder(const gsp_revolve_t *r, bool list, int64_t c) {
    int64_t N = r->N;
    if (list) {
        /* The winner sits at list position 1 at the end of the tournament (Theorem 5). */
        int64_t t = c + r->n - 1;
        return ((r->label[1] - t) % N + N) % N;
    }
    int64_t root = 0;
    for (int64_t j = 0; j < N; j++)
        if (r->parent[j] < 0) root = j;
    return ((root - c) % N + N) % N; /* the process at the root position of T_c */
}

void gsp_revolve_run_destroy(gsp_revolve_run_t *run) {
    if (!run) return;
    gsp_free(run->done_step);
    gsp_free(run->holder);
    gsp_free(run->result);
    memset(run, 0, sizeof *run);
}

gsp_err_t gsp_revolve_simulate(const gsp_revolve_t *r, bool list, int64_t steps, gsp_revolve_value_fn v, void *ctx,
                               gsp_revolve_run_t *out) {
    gsp_err_t err;
    int64_t N = r->N, depth = gsp_revolve_depth(r, list), W = depth + 1;
    double *cur = NULL, *nxt = NULL;
    memset(out, 0, sizeof *out);
    if (steps < 0 || (double)N * (double)W > 1e9) return gsp_error(GSP_ERR_RANGE, "revolve: simulation too large");
    int64_t ncomp = steps >= depth ? steps - depth + 1 : 0;
    if ((err = gsp_alloc_array((void **)&cur, N * W, sizeof *cur, false)) ||
        (err = gsp_alloc_array((void **)&nxt, N * W, sizeof *nxt, false)) ||
        (err = gsp_alloc_array((void **)&out->done_step, ncomp + 1, sizeof *out->done_step, false)) ||
        (err = gsp_alloc_array((void **)&out->holder, ncomp + 1, sizeof *out->holder, false)) ||
        (err = gsp_alloc_array((void **)&out->result, ncomp + 1, sizeof *out->result, false)))
        goto fail;
    out->computations = ncomp;
    for (int64_t i = 0; i < N * W; i++) cur[i] = -INFINITY;
    for (int64_t t = 0; t < steps; t++) {
        /* Computation t starts: everyone's own value. */
        for (int64_t x = 0; x < N; x++) cur[x * W + t % W] = v(ctx, x, t);
        memcpy(nxt, cur, (size_t)(N * W) * sizeof *cur);
        for (int64_t x = 0; x < N; x++) {
            int64_t y = gsp_revolve_msg(r, x, t);
            if (y < 0) continue;
            out->messages++;
            /* The message carries the sender's values for the computations in flight. */
            for (int64_t c = t - depth + 1 > 0 ? t - depth + 1 : 0; c <= t; c++) {
                double a = cur[x * W + c % W];
                if (a > nxt[y * W + c % W]) nxt[y * W + c % W] = a;
                out->values_sent++;
            }
        }
        double *tmp = cur;
        cur = nxt;
        nxt = tmp;
        /* Computation c = t - depth + 1 is complete: read it at its holder. */
        int64_t c = t - depth + 1;
        if (c >= 0 && c < ncomp) {
            int64_t h = gsp_revolve_holder(r, list, c);
            out->done_step[c] = t;
            out->holder[c] = h;
            out->result[c] = cur[h * W + c % W];
        }
    }
    gsp_free(cur);
    gsp_free(nxt);
    return GSP_OK;
fail:
    gsp_free(cur);
    gsp_free(nxt);
    gsp_revolve_run_destroy(out);
    return err;
}

gsp_err_t gsp_revolve_simulate_async(const gsp_revolve_t *r, bool list, int64_t steps, gsp_revolve_value_fn v, void *ctx,
                                     uint64_t seed, int64_t max_delay, gsp_revolve_run_t *out, double **finish) {
    gsp_err_t err;
    int64_t N = r->N;
    double *done = NULL, *ready = NULL, *fin = NULL;
    *finish = NULL;
    if (max_delay < 1) return gsp_error(GSP_ERR_RANGE, "revolve: max delay must be >= 1");
    /* The contents are those of the synchronous run: waiting for every expected message makes the
     * asynchronous execution compute exactly what the synchronous one does. */
    if ((err = gsp_revolve_simulate(r, list, steps, v, ctx, out))) return err;
    if ((err = gsp_alloc_array((void **)&done, N, sizeof *done, true)) ||
        (err = gsp_alloc_array((void **)&ready, N, sizeof *ready, false)) ||
        (err = gsp_alloc_array((void **)&fin, steps + 1, sizeof *fin, false)))
        goto fail;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, seed);
    for (int64_t t = 0; t < steps; t++) {
        /* A process sends its step-t message when it has ended step t - 1; the receiver ends step
         * t when it has ended t - 1 and every step-t message to it has arrived. */
        for (int64_t x = 0; x < N; x++) ready[x] = done[x];
        for (int64_t x = 0; x < N; x++) {
            int64_t y = gsp_revolve_msg(r, x, t);
            if (y < 0) continue;
            double arrive = done[x] + 1 + (double)gsp_rng_below(&rng, (uint64_t)max_delay);
            if (arrive > ready[y]) ready[y] = arrive;
        }
        double last = 0;
        for (int64_t x = 0; x < N; x++) {
            done[x] = ready[x] > done[x] + 1 ? ready[x] : done[x] + 1;
            if (done[x] > last) last = done[x];
        }
        fin[t] = last;
    }
    gsp_free(done);
    gsp_free(ready);
    *finish = fin;
    return GSP_OK;
fail:
    gsp_free(done);
    gsp_free(ready);
    gsp_free(fin);
    gsp_revolve_run_destroy(out);
    return err;
}
