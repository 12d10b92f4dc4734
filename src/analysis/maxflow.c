/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maxflow.c — maximum flow and minimum cut by Dinic's algorithm (blocking flows on the BFS level
 * graph; Dinic 1970), the engine of the throughput optimum (optimum.c). Integer capacities, an
 * iterative depth-first search (no recursion depth to fear on long paths), and a flow limit so
 * that a caller asking "is the flow at least L?" stops at L. */
#include <string.h>

#include "analysis/analysis_int.h"

gsp_err_t gsp__flow_init(gsp__flow_t *f, int64_t n, int64_t max_arcs) {
    gsp_err_t err;
    memset(f, 0, sizeof *f);
    f->n = n;
    f->cap_arcs = max_arcs;
    int64_t a = 2 * max_arcs + 1;
    if ((err = gsp_alloc_array((void **)&f->to, a, sizeof *f->to, false)) || (err = gsp_alloc_array((void **)&f->cap, a, sizeof *f->cap, false)) ||
        (err = gsp_alloc_array((void **)&f->res, a, sizeof *f->res, false)) || (err = gsp_alloc_array((void **)&f->list, a, sizeof *f->list, false)) ||
        (err = gsp_alloc_array((void **)&f->first, n + 2, sizeof *f->first, true)) ||
        (err = gsp_alloc_array((void **)&f->level, n + 1, sizeof *f->level, false)) ||
        (err = gsp_alloc_array((void **)&f->it, n + 1, sizeof *f->it, false)) ||
        (err = gsp_alloc_array((void **)&f->queue, n + 1, sizeof *f->queue, false)) ||
        (err = gsp_alloc_array((void **)&f->path, n + 1, sizeof *f->path, false))) {
        gsp__flow_destroy(f);
        return err;
    }
    return GSP_OK;
}

void gsp__flow_destroy(gsp__flow_t *f) {
    gsp_free(f->to);
    gsp_free(f->cap);
    gsp_free(f->res);
    gsp_free(f->first);
    gsp_free(f->list);
    gsp_free(f->level);
    gsp_free(f->it);
    gsp_free(f->queue);
    gsp_free(f->path);
    memset(f, 0, sizeof *f);
}

gsp_err_t gsp__flow_add(gsp__flow_t *f, int64_t u, int64_t v, int64_t c, int64_t rc, int64_t *id) {
    if (f->sealed || f->m / 2 >= f->cap_arcs || u < 0 || u >= f->n || v < 0 || v >= f->n)
        return gsp_error(GSP_ERR_INTERNAL, "flow network: arc %lld -> %lld refused", (long long)u, (long long)v);
    int64_t a = f->m;
    f->to[a] = v;
    f->cap[a] = c;
    f->to[a + 1] = u;
    f->cap[a + 1] = rc;
    f->m += 2;
    if (id) *id = a;
    return GSP_OK;
}

gsp_err_t gsp__flow_seal(gsp__flow_t *f) {
    /* The tail of arc a is the head of its partner a ^ 1. */
    memset(f->first, 0, (size_t)(f->n + 2) * sizeof *f->first);
    for (int64_t a = 0; a < f->m; a++) f->first[f->to[a ^ 1] + 1]++;
    for (int64_t x = 0; x < f->n; x++) f->first[x + 1] += f->first[x];
    int64_t *pos = f->queue; /* scratch: n entries */
    for (int64_t x = 0; x < f->n; x++) pos[x] = f->first[x];
    for (int64_t a = 0; a < f->m; a++) f->list[pos[f->to[a ^ 1]]++] = a;
    f->sealed = true;
    return GSP_OK;
}

/* BFS levels from s over residual arcs; true when t is reached. */
static bool levels(gsp__flow_t *f, int64_t s, int64_t t) {
    for (int64_t x = 0; x < f->n; x++) f->level[x] = -1;
    int64_t head = 0, tail = 0;
    f->level[s] = 0;
    f->queue[tail++] = s;
    while (head < tail) {
        int64_t x = f->queue[head++];
        for (int64_t k = f->first[x]; k < f->first[x + 1]; k++) {
            int64_t a = f->list[k], y = f->to[a];
            if (f->res[a] > 0 && f->level[y] < 0) {
                f->level[y] = f->level[x] + 1;
                f->queue[tail++] = y;
            }
        }
    }
    return f->level[t] >= 0;
}

int64_t gsp__flow_max(gsp__flow_t *f, int64_t s, int64_t t, int64_t limit) {
    memcpy(f->res, f->cap, (size_t)f->m * sizeof *f->res);
    if (s == t) return limit;
    int64_t flow = 0;
    while (flow < limit && levels(f, s, t)) {
        for (int64_t x = 0; x < f->n; x++) f->it[x] = f->first[x];
        /* Blocking flow: advance along admissible arcs, augment at t, retreat from dead ends.
         * path[0..depth) holds the arcs from s to the current vertex u. */
        int64_t depth = 0, u = s;
        for (;;) {
            if (u == t) {
                int64_t b = limit - flow;
                for (int64_t i = 0; i < depth; i++)
                    if (f->res[f->path[i]] < b) b = f->res[f->path[i]];
                int64_t cut = depth;
                for (int64_t i = 0; i < depth; i++) {
                    int64_t a = f->path[i];
                    f->res[a] -= b;
                    f->res[a ^ 1] += b;
                    if (f->res[a] == 0 && cut == depth) cut = i;
                }
                flow += b;
                if (flow >= limit) return flow;
                depth = cut; /* back to the tail of the first saturated arc */
                u = depth ? f->to[f->path[depth - 1]] : s;
                continue;
            }
            int64_t k = f->it[u];
            for (; k < f->first[u + 1]; k++) {
                int64_t a = f->list[k];
                if (f->res[a] > 0 && f->level[f->to[a]] == f->level[u] + 1) break;
            }
            f->it[u] = k;
            if (k < f->first[u + 1]) {
                int64_t a = f->list[k];
                f->path[depth++] = a;
                u = f->to[a];
                continue;
            }
            f->level[u] = -1; /* a dead end this phase */
            if (depth == 0) break;
            depth--;
            u = depth ? f->to[f->path[depth - 1]] : s;
            f->it[u]++;
        }
    }
    return flow;
}

void gsp__flow_source_side(gsp__flow_t *f, int64_t s, uint8_t *side) {
    memset(side, 0, (size_t)f->n);
    int64_t head = 0, tail = 0;
    side[s] = 1;
    f->queue[tail++] = s;
    while (head < tail) {
        int64_t x = f->queue[head++];
        for (int64_t k = f->first[x]; k < f->first[x + 1]; k++) {
            int64_t a = f->list[k], y = f->to[a];
            if (f->res[a] > 0 && !side[y]) {
                side[y] = 1;
                f->queue[tail++] = y;
            }
        }
    }
}
