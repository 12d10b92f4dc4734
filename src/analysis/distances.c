/* SPDX-License-Identifier: GPL-3.0-or-later */
/* distances.c — BFS, diameter and the distance distribution. A vertex-transitive graph looks
 * the same from every node, so one BFS gives every node's eccentricity and distance counts;
 * other graphs pay one BFS per node, or, when that is too much (gsp_distances_large), a few BFS
 * for the exact diameter (iFUB), subtree sizes for a tree's average distance, and sampled BFS
 * for an estimate otherwise. */
#include <math.h>
#include <string.h>

#include "gossip/analysis.h"

gsp_err_t gsp_bfs(const gsp_topo_t *t, int64_t src, int32_t *dist, int64_t *queue, int64_t *ecc,
                  int64_t *reached) {
    int64_t *q = queue;
    if (src < 0 || src >= t->n)
        return gsp_error(GSP_ERR_RANGE, "BFS source %lld outside 0..%lld", (long long)src,
                         (long long)t->n - 1);
    if (!q) {
        gsp_err_t err = gsp_alloc_array((void **)&q, t->n, sizeof *q, false);
        if (err) return err;
    }
    memset(dist, 0xff, (size_t)t->n * sizeof *dist);
    const int64_t *off = t->off, *adj = t->adj;
    int64_t head = 0, tail = 0;
    dist[src] = 0;
    q[tail++] = src;
    while (head < tail) {
        int64_t x = q[head++];
        int32_t dx = dist[x] + 1;
        for (int64_t a = off[x]; a < off[x + 1]; a++) {
            int64_t y = adj[a];
            if (dist[y] < 0) {
                dist[y] = dx;
                q[tail++] = y;
            }
        }
    }
    if (ecc) *ecc = dist[q[tail - 1]];
    if (reached) *reached = tail;
    if (!queue) gsp_free(q);
    return GSP_OK;
}

void gsp_distances_destroy(gsp_distances_t *d) {
    if (!d) return;
    gsp_vec_destroy(&d->counts);
    memset(d, 0, sizeof *d);
}

gsp_err_t gsp_distances(const gsp_topo_t *t, bool vertex_transitive, gsp_distances_t *out,
                        gsp_progress_fn progress, void *ctx) {
    gsp_err_t err;
    int32_t *dist = NULL;
    int64_t *queue = NULL;
    memset(out, 0, sizeof *out);
    if ((err = gsp_alloc_array((void **)&dist, t->n, sizeof *dist, false)) ||
        (err = gsp_alloc_array((void **)&queue, t->n, sizeof *queue, false)))
        goto fail;
    out->connected = true;
    out->per_node = vertex_transitive;
    int64_t sources = vertex_transitive ? 1 : t->n;
    int64_t diameter = 0;
    double total = 0, pairs = 0;
    for (int64_t s = 0; s < sources; s++) {
        int64_t ecc, reached;
        if ((err = gsp_bfs(t, s, dist, queue, &ecc, &reached))) goto fail;
        if (reached < t->n) out->connected = false;
        if (ecc > diameter) diameter = ecc;
        if ((err = gsp_vec_reserve(&out->counts, ecc + 1))) goto fail;
        while (out->counts.len <= ecc) out->counts.v[out->counts.len++] = 0;
        /* The queue holds the reached nodes in BFS order, so counting walks it only. */
        for (int64_t i = 0; i < reached; i++) {
            int32_t dd = dist[queue[i]];
            out->counts.v[dd]++;
            total += dd;
        }
        pairs += (double)(reached - 1);
        if (progress && (s & 255) == 255) progress(ctx, "BFS from every node", (double)s / sources);
    }
    out->sources = sources;
    out->diameter = out->connected ? diameter : -1;
    out->average_distance = pairs > 0 ? total / pairs : 0;
    out->average_exact = true;
    out->diameter_how = out->average_how = vertex_transitive ? "one BFS (vertex-transitive)" : "all-pairs BFS";
    err = GSP_OK;
fail:
    gsp_free(dist);
    gsp_free(queue);
    if (err) gsp_distances_destroy(out);
    return err;
}

/* The node on a shortest path from a to b at distance k from a, walking back from b along
 * distances da from a (da[b] >= k). */
static int64_t on_path(const gsp_topo_t *t, const int32_t *da, int64_t b, int64_t k) {
    int64_t x = b;
    while (da[x] > k)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++)
            if (da[t->adj[a]] == da[x] - 1) {
                x = t->adj[a];
                break;
            }
    return x;
}

gsp_err_t gsp_diameter_ifub(const gsp_topo_t *t, int64_t *diameter, int64_t *bfs_runs, gsp_progress_fn progress, void *ctx) {
    gsp_err_t err;
    int32_t *du = NULL, *dx = NULL;
    int64_t *queue = NULL, *q2 = NULL, runs = 0, n = t->n;
    *diameter = -1;
    if (bfs_runs) *bfs_runs = 0;
    if (t->directed) return gsp_error(GSP_ERR_UNSUPPORTED, "iFUB: %s is directed (the diameter needs one BFS per node)", t->spec);
    if ((err = gsp_alloc_array((void **)&du, n, sizeof *du, false)) || (err = gsp_alloc_array((void **)&dx, n, sizeof *dx, false)) ||
        (err = gsp_alloc_array((void **)&queue, n, sizeof *queue, false)) || (err = gsp_alloc_array((void **)&q2, n, sizeof *q2, false)))
        goto done;
    /* 4-sweep: from a node of the largest degree r1 to the farthest a1, from a1 to the farthest
     * b1; r2 halfway between them; from r2 to a2, from a2 to b2; u halfway between a2 and b2. The
     * eccentricities met on the way are lower bounds. The halfway node depends on which shortest
     * path the walk takes (on a grid, along the border: a corner), so u is replaced by a node
     * closer to all four sources r1, a1, r2, a2 when there is one (on a grid: the centre). */
    int64_t r = 0, lb = 0, ecc, reached;
    for (int64_t x = 1; x < n; x++)
        if (t->off[x + 1] - t->off[x] > t->off[r + 1] - t->off[r]) r = x;
    for (int64_t x = 0; x < n; x++) du[x] = 0; /* meanwhile: the farthest of the sources so far */
    for (int sweep = 0; sweep < 4; sweep++) {
        if ((err = gsp_bfs(t, r, dx, queue, &ecc, &reached))) goto done;
        runs++;
        if (reached < n) goto done; /* not connected: diameter -1 */
        if (ecc > lb) lb = ecc;
        for (int64_t x = 0; x < n; x++)
            if (dx[x] > du[x]) du[x] = dx[x];
        r = sweep % 2 == 0 ? queue[n - 1] : on_path(t, dx, queue[n - 1], ecc / 2);
    }
    for (int64_t x = 0; x < n; x++)
        if (du[x] < du[r]) r = x;
    /* Levels from u = r. */
    int64_t u = r, eu;
    if ((err = gsp_bfs(t, u, du, queue, &eu, NULL))) goto done;
    runs++;
    if (eu > lb) lb = eu;
    /* queue holds the nodes by level: the fringe F_i is a contiguous run of it. */
    int64_t end = n, ub = 2 * eu;
    for (int64_t i = eu; i > 0 && lb < ub; i--) {
        int64_t beg = end;
        while (beg > 0 && du[queue[beg - 1]] == i) beg--;
        /* The eccentricities of F_i (BFS into dx and q2: du and queue stay as they are). */
        for (int64_t k = beg; k < end && lb < ub; k++) {
            if ((err = gsp_bfs(t, queue[k], dx, q2, &ecc, NULL))) goto done;
            runs++;
            if (ecc > lb) lb = ecc;
            if (progress && (runs & 63) == 0) progress(ctx, "diameter (iFUB): eccentricities of the farthest nodes", (double)(eu - i) / (double)eu);
        }
        /* Every pair below level i is at most 2 (i - 1) apart, through u. */
        if (lb > 2 * (i - 1)) break;
        ub = 2 * (i - 1);
        end = beg;
    }
    *diameter = lb;
done:
    if (bfs_runs) *bfs_runs = runs;
    gsp_free(du);
    gsp_free(dx);
    gsp_free(queue);
    gsp_free(q2);
    return err;
}

/* Sum over the tree's edges of s (n - s), s the size of the side away from node 0: the number of
 * unordered pairs each edge separates, so the sum of all distances. BFS order from 0, sizes
 * gathered from the leaves up. */
static gsp_err_t tree_distance_sum(const gsp_topo_t *t, double *sum) {
    gsp_err_t err;
    int64_t n = t->n, *queue = NULL, *size = NULL;
    int32_t *dist = NULL;
    if ((err = gsp_alloc_array((void **)&queue, n, sizeof *queue, false)) || (err = gsp_alloc_array((void **)&size, n, sizeof *size, false)) ||
        (err = gsp_alloc_array((void **)&dist, n, sizeof *dist, false)) || (err = gsp_bfs(t, 0, dist, queue, NULL, NULL)))
        goto done;
    double s = 0;
    for (int64_t x = 0; x < n; x++) size[x] = 1;
    for (int64_t k = n - 1; k > 0; k--) {
        int64_t x = queue[k];
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++)
            if (dist[t->adj[a]] == dist[x] - 1) { /* the parent: the one neighbour one level up */
                size[t->adj[a]] += size[x];
                break;
            }
        s += (double)size[x] * (double)(n - size[x]);
    }
    *sum = s;
done:
    gsp_free(queue);
    gsp_free(size);
    gsp_free(dist);
    return err;
}

gsp_err_t gsp_distances_large(const gsp_topo_t *t, bool vertex_transitive, const gsp_distances_opts_t *opts, gsp_distances_t *out,
                              gsp_progress_fn progress, void *ctx) {
    static const gsp_distances_opts_t defaults = {0};
    gsp_err_t err;
    if (!opts) opts = &defaults;
    int64_t n = t->n, work, max_work = opts->max_work > 0 ? opts->max_work : GSP_ALLPAIRS_WORK;
    int64_t samples = opts->samples > 0 ? opts->samples : 64;
    uint64_t seed = opts->seed;
    if (vertex_transitive || t->directed || (gsp_mul_ok(n, n + t->m, &work) && work <= max_work))
        return gsp_distances(t, vertex_transitive, out, progress, ctx);
    memset(out, 0, sizeof *out);
    if (samples > n) samples = n;
    int32_t *dist = NULL;
    int64_t *queue = NULL, *pick = NULL, runs = 0;
    double *tot = NULL, *prs = NULL;
    gsp_word_t *chosen = NULL;
    if ((err = gsp_diameter_ifub(t, &out->diameter, &runs, progress, ctx))) goto fail;
    out->connected = out->diameter >= 0;
    out->diameter_how = "iFUB";
    if ((err = gsp_alloc_array((void **)&dist, n, sizeof *dist, false)) || (err = gsp_alloc_array((void **)&queue, n, sizeof *queue, false)) ||
        (err = gsp_alloc_array((void **)&pick, samples, sizeof *pick, false)) ||
        (err = gsp_alloc_array((void **)&chosen, (int64_t)GSP_WORDS(n), sizeof *chosen, true)) ||
        (err = gsp_alloc_array((void **)&tot, samples, sizeof *tot, false)) ||
        (err = gsp_alloc_array((void **)&prs, samples, sizeof *prs, false)))
        goto fail;
    /* Distinct random sources, a uniform `samples`-subset by Floyd's algorithm (one bit per
     * node marks the chosen). */
    gsp_rng_t rng;
    gsp_rng_seed(&rng, seed);
    for (int64_t k = 0, j = n - samples; k < samples; k++, j++) {
        int64_t x = (int64_t)gsp_rng_below(&rng, (uint64_t)j + 1);
        if (gsp_bit_get(chosen, x)) x = j;
        gsp_bit_set(chosen, x);
        pick[k] = x;
    }
    double T = 0, P = 0;
    for (int64_t k = 0; k < samples; k++) {
        int64_t s = pick[k], ecc, reached;
        if ((err = gsp_bfs(t, s, dist, queue, &ecc, &reached))) goto fail;
        runs++;
        if ((err = gsp_vec_reserve(&out->counts, ecc + 1))) goto fail;
        while (out->counts.len <= ecc) out->counts.v[out->counts.len++] = 0;
        double sum = 0;
        for (int64_t i = 0; i < reached; i++) {
            int32_t dd = dist[queue[i]];
            out->counts.v[dd]++;
            sum += dd;
        }
        tot[k] = sum;
        prs[k] = (double)(reached - 1);
        T += sum;
        P += prs[k];
        if (progress && (k & 7) == 7) progress(ctx, "average distance: BFS from random nodes", (double)k / (double)samples);
    }
    out->sampled = samples;
    out->sources = runs;
    bool tree = out->connected && !t->directed && t->m == 2 * (n - 1);
    if (tree) {
        /* Connected with n - 1 edges: a tree. Exact: each ordered pair counted twice. */
        double sum;
        if ((err = tree_distance_sum(t, &sum))) goto fail;
        out->sources++;
        out->average_distance = n > 1 ? 2 * sum / ((double)n * (double)(n - 1)) : 0;
        out->average_exact = true;
        out->average_how = "a tree, from subtree sizes";
    } else {
        /* Ratio estimator R = sum T_s / sum P_s over the sampled sources (every ordered pair
         * (s, v) from a source); its variance from the residuals T_s - R P_s, with the finite
         * population correction 1 - k/n. */
        double R = P > 0 ? T / P : 0, ss = 0, mp = P / (double)samples;
        for (int64_t k = 0; k < samples; k++) ss += (tot[k] - R * prs[k]) * (tot[k] - R * prs[k]);
        double var = samples > 1 && mp > 0 ? (1 - (double)samples / (double)n) * ss / ((double)samples * (double)(samples - 1)) / (mp * mp) : 0;
        out->average_distance = R;
        out->average_stderr = var > 0 ? sqrt(var) : 0;
        out->average_exact = samples == n;
        out->average_how = samples == n ? "all-pairs BFS" : "sampled BFS";
    }
    err = GSP_OK;
    goto done;
fail:
    gsp_distances_destroy(out);
done:
    gsp_free(dist);
    gsp_free(queue);
    gsp_free(pick);
    gsp_free(chosen);
    gsp_free(tot);
    gsp_free(prs);
    return err;
}
