/* SPDX-License-Identifier: GPL-3.0-or-later */
/* distances.c — BFS, diameter and the distance distribution. A vertex-transitive graph looks
 * the same from every node, so one BFS gives every node's eccentricity and distance counts;
 * other graphs pay one BFS per node. */
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
    err = GSP_OK;
fail:
    gsp_free(dist);
    gsp_free(queue);
    if (err) gsp_distances_destroy(out);
    return err;
}
