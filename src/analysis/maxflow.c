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
        (err = gsp_alloc_array((void **)&f->path, n + 1, sizeof *f->path, false)) ||
        (err = gsp_alloc_array((void **)&f->dirty, a, sizeof *f->dirty, false)) || (err = gsp_alloc_array((void **)&f->is_dirty, a, 1, true)) ||
        (err = gsp_alloc_array((void **)&f->lab, n + 1, sizeof *f->lab, false)) ||
        (err = gsp_alloc_array((void **)&f->adm_head, n + 1, sizeof *f->adm_head, false)) ||
        (err = gsp_alloc_array((void **)&f->adm_next, a, sizeof *f->adm_next, false)) ||
        (err = gsp_alloc_array((void **)&f->src_head, n + 1, sizeof *f->src_head, false)) ||
        (err = gsp_alloc_array((void **)&f->src_next, a, sizeof *f->src_next, false))) {
        gsp__flow_destroy(f);
        return err;
    }
    for (int64_t x = 0; x <= n; x++) f->level[x] = -1, f->adm_head[x] = -1;
    f->src = -1;
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
    gsp_free(f->dirty);
    gsp_free(f->is_dirty);
    gsp_free(f->lab);
    gsp_free(f->adm_head);
    gsp_free(f->adm_next);
    gsp_free(f->src_head);
    gsp_free(f->src_next);
    memset(f, 0, sizeof *f);
}

gsp_err_t gsp__flow_add(gsp__flow_t *f, int64_t u, int64_t v, int64_t c, int64_t rc, int64_t *id) {
    if (f->sealed || f->m / 2 >= f->cap_arcs || u < 0 || u >= f->n || v < 0 || v >= f->n)
        return gsp_error(GSP_ERR_INTERNAL, "flow network: arc %lld -> %lld refused", (long long)u, (long long)v);
    int64_t a = f->m;
    f->to[a] = v;
    f->cap[a] = f->res[a] = c;
    f->to[a + 1] = u;
    f->cap[a + 1] = f->res[a + 1] = rc;
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
    /* Each list by the degree of the arc's other end, smallest first: the searches reach the
     * sources through small vertices before they scan a hub's thousand arcs. */
    int64_t *key = NULL;
    gsp_err_t err = gsp_alloc_array((void **)&key, f->m + 1, sizeof *key, false);
    if (err) return err;
    for (int64_t a = 0; a < f->m; a++) key[a] = f->first[f->to[a] + 1] - f->first[f->to[a]];
    for (int64_t x = 0; x < f->n; x++) {
        /* Insertion sort for short lists, a counting pass is not worth it: lists are short
         * except at hubs, whose neighbours mostly share one degree (already in order). */
        int64_t b = f->first[x], e = f->first[x + 1];
        for (int64_t i = b + 1; i < e; i++) {
            int64_t a = f->list[i], j = i;
            while (j > b && key[f->list[j - 1]] > key[a]) {
                f->list[j] = f->list[j - 1];
                j--;
            }
            f->list[j] = a;
        }
    }
    gsp_free(key);
    f->sealed = true;
    return GSP_OK;
}

/* Distances to t over residual arcs (a reverse BFS from t), stopping as soon as s has one:
 * then every vertex nearer to t than s is labelled, which is all a shortest augmenting path can
 * use. Only what the last call labelled is cleared, so a sink near its sources costs little
 * however large the network. The admissible arcs y -> x (level[y] = level[x] + 1) met on the
 * way are chained per tail (adm_head, adm_next): the blocking flow walks those only, never a
 * hub's whole list. True when s reaches t. */
#define HUB_DEGREE 64

static bool levels(gsp__flow_t *f, int64_t s, int64_t t, bool full) {
    f->scanned = 0;
    for (int64_t i = 0; i < f->nlab; i++) f->level[f->lab[i]] = -1, f->adm_head[f->lab[i]] = -1;
    int64_t head = 0, tail = 0;
    f->level[t] = 0;
    f->queue[tail++] = t;
    while (head < tail) {
        int64_t x = f->queue[head];
        /* Once s has a level, the vertices of the level before it are finished (they give
         * the phase its paths), but no hub: its thousand arcs would cost more than they give. */
        if (f->level[s] >= 0 && f->level[x] >= f->level[s] - !full) break;
        head++;
        f->scanned += f->first[x + 1] - f->first[x];
        if (!full && f->level[s] >= 0 && f->first[x + 1] - f->first[x] > HUB_DEGREE) continue;
        for (int64_t k = f->first[x]; k < f->first[x + 1]; k++) {
            int64_t b = f->list[k], y = f->to[b], a = b ^ 1; /* the arc a = y -> x */
            if (f->res[a] <= 0) continue;
            if (f->level[y] < 0) {
                f->level[y] = f->level[x] + 1;
                f->queue[tail++] = y;
                /* Fed by the source: s is one step further, and the search need not go deeper
                 * (nor scan the rest of a hub's list). */
                for (int64_t c = !full && y != s && f->level[s] < 0 ? f->src_head[y] : -1; c >= 0; c = f->src_next[c])
                    if (f->res[c] > 0) {
                        f->level[s] = f->level[y] + 1;
                        f->queue[tail++] = s;
                        break;
                    }
            }
            if (f->level[y] == f->level[x] + 1) {
                f->adm_next[a] = f->adm_head[y];
                f->adm_head[y] = a;
                if (!full && f->level[s] >= 0 && f->first[x + 1] - f->first[x] > HUB_DEGREE) break;
            }
        }
    }
    /* The source's arcs into the rest of its last level, through the source's own chains (a
     * scan of those vertices' lists could meet a hub). */
    if (f->level[s] >= 0)
        for (int64_t i = head; i < tail; i++) {
            int64_t x = f->queue[i];
            if (f->level[x] != f->level[s] - 1) continue;
            for (int64_t a = f->src_head[x]; a >= 0; a = f->src_next[a])
                if (f->res[a] > 0 && f->adm_head[s] != a) f->adm_next[a] = f->adm_head[s], f->adm_head[s] = a;
        }
    memcpy(f->lab, f->queue, (size_t)tail * sizeof *f->lab);
    f->nlab = tail;
    return f->level[s] >= 0;
}

int64_t gsp__flow_max(gsp__flow_t *f, int64_t s, int64_t t, int64_t limit) {
    for (int64_t i = 0; i < f->ndirty; i++) {
        int64_t a = f->dirty[i];
        f->res[a] = f->cap[a];
        f->is_dirty[a] = 0;
    }
    f->ndirty = 0;
    if (s == t) return limit;
    if (f->src != s) { /* chain the source's arcs by head */
        for (int64_t x = 0; x < f->n; x++) f->src_head[x] = -1;
        for (int64_t k = f->first[s]; k < f->first[s + 1]; k++) {
            int64_t a = f->list[k];
            f->src_next[a] = f->src_head[f->to[a]];
            f->src_head[f->to[a]] = a;
        }
        f->src = s;
    }
    int64_t flow = 0, paths = 2, carried = 0;
    f->scanned = 0;
    /* A phase that scanned much to find a single small path (a sink fed by many small sources,
     * one at a time, far away) makes the next one search the whole level graph, as Dinic's
     * algorithm does: all those paths in one phase. */
    while (flow < limit && levels(f, s, t, paths < 2 && f->scanned > 16 * HUB_DEGREE && carried < (limit - flow) / 8)) {
        paths = 0;
        carried = 0;
        for (int64_t i = 0; i < f->nlab; i++) f->it[f->lab[i]] = f->adm_head[f->lab[i]];
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
                    if (!f->is_dirty[a]) f->is_dirty[a] = 1, f->dirty[f->ndirty++] = a;
                    if (!f->is_dirty[a ^ 1]) f->is_dirty[a ^ 1] = 1, f->dirty[f->ndirty++] = a ^ 1;
                    if (f->res[a] == 0 && cut == depth) cut = i;
                }
                flow += b;
                paths++;
                carried += b;
                if (flow >= limit) return flow;
                depth = cut; /* back to the tail of the first saturated arc */
                            u = depth ? f->to[f->path[depth - 1]] : s;
                continue;
            }
            int64_t k = f->it[u];
            while (k >= 0 && !(f->res[k] > 0 && f->level[f->to[k]] == f->level[u] - 1)) k = f->adm_next[k];
            f->it[u] = k;
            if (k >= 0) {
                f->path[depth++] = k;
                u = f->to[k];
                continue;
            }
            f->level[u] = -1; /* a dead end this phase */
            if (depth == 0) break;
            depth--;
            u = depth ? f->to[f->path[depth - 1]] : s;
            f->it[u] = f->adm_next[f->it[u]];
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
