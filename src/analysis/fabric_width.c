/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_width.c — the widest route between one compute node and every other, the bottleneck
 * capacity a message between them crosses (the runtime's chunked streams: mpi_engine.c). A
 * route passes through switches only (a compute node forwards nothing), as the fabric's trees
 * route an edge and bench/fabric_platform routes SimGrid's messages; a node that no such route
 * reaches gets the widest route through any vertex. Widest paths by the greedy of Dijkstra on
 * bottlenecks, O(n^2 + m): fabrics have at most a few thousand vertices, and a rank computes
 * only its own routes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "gossip/fabric.h"

/* The arcs into each vertex (CSR of arc ids by head, vertex v's at roff[v] .. roff[v + 1] once
 * filled), for the routes towards src. */
static gsp_err_t reverse_arcs(const gsp_topo_t *t, int64_t **roff, int64_t **rarc, int64_t **rtail) {
    int64_t n = t->n, m = t->off[n];
    gsp_err_t err;
    if ((err = gsp_alloc_array((void **)roff, n + 2, sizeof **roff, true)) || (err = gsp_alloc_array((void **)rarc, m + 1, sizeof **rarc, false)) ||
        (err = gsp_alloc_array((void **)rtail, m + 1, sizeof **rtail, false)))
        return err;
    for (int64_t a = 0; a < m; a++) (*roff)[t->adj[a] + 2]++;
    for (int64_t v = 0; v < n; v++) (*roff)[v + 2] += (*roff)[v + 1];
    for (int64_t u = 0; u < n; u++)
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
            int64_t k = (*roff)[t->adj[a] + 1]++;
            (*rarc)[k] = a;
            (*rtail)[k] = u;
        }
    return GSP_OK;
}

gsp_err_t gsp_fabric_route_width(const gsp_topo_t *t, int64_t src, bool towards, double *width) {
    int64_t n = t->n, *w = NULL, *roff = NULL, *rarc = NULL, *rtail = NULL;
    uint8_t *done = NULL;
    gsp_err_t err = GSP_OK;
    if (src < 0 || src >= n) return gsp_error(GSP_ERR_RANGE, "vertex %lld out of range", (long long)src);
    if ((err = gsp_alloc_array((void **)&w, n + 1, sizeof *w, false)) || (err = gsp_alloc_array((void **)&done, n + 1, 1, false))) goto out;
    if (towards && (err = reverse_arcs(t, &roff, &rarc, &rtail))) goto out;
    for (int64_t v = 0; v < n; v++) width[v] = 0;
    /* Pass 0: inner vertices switches only; pass 1: any vertex, for what pass 0 left out. */
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t v = 0; v < n; v++) w[v] = -1, done[v] = 0;
        w[src] = INT64_MAX;
        for (;;) {
            int64_t u = -1;
            for (int64_t v = 0; v < n; v++)
                if (!done[v] && w[v] >= 0 && (u < 0 || w[v] > w[u])) u = v;
            if (u < 0) break;
            done[u] = 1;
            if (u != src && pass == 0 && !(t->is_switch && t->is_switch[u])) continue;
            int64_t lo = towards ? roff[u] : t->off[u], hi = towards ? roff[u + 1] : t->off[u + 1];
            for (int64_t k = lo; k < hi; k++) {
                int64_t a = towards ? rarc[k] : k, v = towards ? rtail[k] : t->adj[k], c = t->cap ? t->cap[a] : 1;
                int64_t x = c < w[u] ? c : w[u];
                if (!done[v] && x > w[v]) w[v] = x;
            }
        }
        bool all = true;
        for (int64_t v = 0; v < n; v++) {
            if (v == src || w[v] < 0 || width[v] > 0) continue;
            width[v] = (double)w[v] / (double)(t->cap ? t->cap_scale : 1);
        }
        for (int64_t v = 0; v < n; v++)
            if (v != src && !(t->is_switch && t->is_switch[v]) && width[v] <= 0) all = false;
        if (all) break;
    }
out:
    gsp_free(w);
    gsp_free(done);
    gsp_free(roff);
    gsp_free(rarc);
    gsp_free(rtail);
    return err;
}
