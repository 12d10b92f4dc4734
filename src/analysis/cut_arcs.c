/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cut_arcs.c — the arcs a broadcast's binding cuts are made of: for every compute node v whose
 * maximum flow from the root is the optimum (optimum.c), the arcs leaving the smallest and the
 * largest minimum root-v cut (the vertices the root reaches in the residual network of a
 * maximum flow; all but those that reach v). Minimum cuts are closed under union and
 * intersection, so these two are every minimum cut's bounds, and every optimal packing fills
 * their arcs: every part crosses each of them once, so they carry the whole broadcast, at their
 * capacity, to the end (rt_fabric.c keeps more segments in flight on them).
 *
 * dgx:8x2 from b0.gpu0: box 0's eight NIC arcs into the switch and the switch's eight into box 1
 * (both extremes of one cut); mi250:2: the same 32; dgx:8x4: box 0's NICs out and boxes 1-3's in
 * — but not box 1's NICs out, which trees relaying box to box fill too (not a minimum cut: 400
 * against 200), nor an xGMI arc an optimal packing happens to fill.
 *
 * Cost: two maximum flows per compute node (the first pass finds the optimum, the second marks),
 * O(n + m) more each. */
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"

static bool compute(const gsp_topo_t *t, int64_t x) { return !t->is_switch || !t->is_switch[x]; }

/* side[x] = 1 for the vertices that reach t in the residual network of f (queue: n entries). */
static void sink_side(const gsp__flow_t *f, int64_t t, uint8_t *side, int64_t *queue) {
    memset(side, 0, (size_t)f->n);
    int64_t head = 0, tail = 0;
    side[t] = 1;
    queue[tail++] = t;
    while (head < tail) {
        int64_t y = queue[head++];
        /* Arc b leaves y; its pair b ^ 1 runs x -> y, residual where res > 0. */
        for (int64_t k = f->first[y]; k < f->first[y + 1]; k++) {
            int64_t b = f->list[k], x = f->to[b];
            if (f->res[b ^ 1] > 0 && !side[x]) {
                side[x] = 1;
                queue[tail++] = x;
            }
        }
    }
}

gsp_err_t gsp__broadcast_cut_arcs(const gsp_topo_t *t, int64_t root, uint8_t *out) {
    gsp_err_t err;
    int64_t n = t->n;
    gsp__flow_t f = {0};
    uint8_t *src = NULL, *snk = NULL;
    int64_t *val = NULL, *queue = NULL;
    memset(out, 0, (size_t)t->m);
    if (root < 0 || root >= n || !compute(t, root)) return gsp_error(GSP_ERR_RANGE, "%s: the broadcast root is not a compute node", t->spec);
    if ((err = gsp_alloc_array((void **)&src, n + 1, 1, false)) || (err = gsp_alloc_array((void **)&snk, n + 1, 1, false)) ||
        (err = gsp_alloc_array((void **)&val, n + 1, sizeof *val, false)) || (err = gsp_alloc_array((void **)&queue, n + 1, sizeof *queue, false)) ||
        (err = gsp__flow_init(&f, n, t->m)))
        goto done;
    /* Flow arc 2a is fabric arc a (added in CSR order). */
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++)
            if ((err = gsp__flow_add(&f, x, t->adj[a], t->cap ? t->cap[a] : 1, 0, NULL))) goto done;
    if ((err = gsp__flow_seal(&f))) goto done;
    int64_t best = -1;
    for (int64_t v = 0; v < n; v++) {
        val[v] = -1;
        if (v == root || !compute(t, v)) continue;
        val[v] = gsp__flow_max(&f, root, v, INT64_MAX);
        if (best < 0 || val[v] < best) best = val[v];
    }
    for (int64_t v = 0; v < n && best > 0; v++) {
        if (val[v] != best) continue;
        gsp__flow_max(&f, root, v, INT64_MAX);
        gsp__flow_source_side(&f, root, src);
        sink_side(&f, v, snk, queue);
        for (int64_t x = 0; x < n; x++)
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
                int64_t y = t->adj[a];
                if ((src[x] && !src[y]) || (!snk[x] && snk[y])) out[a] = 1;
            }
    }
done:
    gsp__flow_destroy(&f);
    gsp_free(src);
    gsp_free(snk);
    gsp_free(val);
    gsp_free(queue);
    return err;
}
