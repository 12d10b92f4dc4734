/* SPDX-License-Identifier: GPL-3.0-or-later */
/* arbor.c — arc-disjoint spanning arborescences from one root (Edmonds' branching theorem), for
 * the broadcast that sends 1/k of the message down each of k trees at once.
 *
 * Edmonds: a digraph has k arc-disjoint spanning out-trees rooted at r iff every node v has k
 * arc-disjoint paths from r. The construction is Lovász's proof (1976): keep partial trees
 * F_1..F_k (vertex sets V_i, all containing r) and the unused arcs D', under the invariant
 *     rho_D'(X) >= #{i : X and V_i are disjoint}  for every nonempty X not containing r,
 * and grow one tree by one arc at a time; some arc leaving V_i always keeps the invariant. Adding
 * (u, v) to F_i only changes the sets X that contain v, and over those the invariant is a max
 * flow: from a source feeding one unit per tree i into any vertex of V_i, through D' (capacity
 * 1), at least k units must reach v. So each candidate costs one flow of value k on
 * O(k n + m) edges. Candidates are tried shallowest first (and then nearest the root), so the
 * trees stay close to breadth-first and the pipeline they carry stays short. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/runtime.h"

typedef struct {
    int64_t n, k, nn;            /* graph nodes, trees, flow nodes (n + k + 1) */
    int64_t *head, *nxt, *to;    /* flow edges, e and e ^ 1 paired */
    int32_t *cap;
    int64_t ne, ecap;
    int64_t *pred, *queue;       /* BFS: edge into each flow node */
} net_t;

static void add_edge(net_t *f, int64_t u, int64_t v, int32_t c) {
    int64_t e = f->ne;
    f->to[e] = v, f->cap[e] = c, f->nxt[e] = f->head[u], f->head[u] = e;
    f->to[e + 1] = u, f->cap[e + 1] = 0, f->nxt[e + 1] = f->head[v], f->head[v] = e + 1;
    f->ne += 2;
}

typedef struct {
    const gsp_topo_t *t;
    int64_t root, k;
    int64_t *parent;  /* k * n: parent of v in tree i, -1 root or not yet in the tree */
    unsigned char *in; /* k * n: v in V_i */
    unsigned char *used; /* per arc: in some tree */
} state_t;

/* Max flow (capped at s->k) from the tree sources into target through the unused arcs. */
static int64_t flow_to(const state_t *s, net_t *f, int64_t target) {
    const gsp_topo_t *t = s->t;
    int64_t n = t->n, k = s->k, sigma = n + k;
    f->ne = 0;
    for (int64_t x = 0; x < f->nn; x++) f->head[x] = -1;
    for (int64_t i = 0; i < k; i++) {
        add_edge(f, sigma, n + i, 1);
        for (int64_t v = 0; v < n; v++)
            if (s->in[i * n + v]) add_edge(f, n + i, v, (int32_t)k);
    }
    for (int64_t u = 0; u < n; u++)
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++)
            if (!s->used[a] && t->adj[a] != u) add_edge(f, u, t->adj[a], 1);
    int64_t flow = 0;
    while (flow < k) {
        for (int64_t x = 0; x < f->nn; x++) f->pred[x] = -2;
        int64_t qh = 0, qt = 0;
        f->queue[qt++] = sigma;
        f->pred[sigma] = -1;
        while (qh < qt && f->pred[target] == -2) {
            int64_t x = f->queue[qh++];
            for (int64_t e = f->head[x]; e >= 0; e = f->nxt[e])
                if (f->cap[e] > 0 && f->pred[f->to[e]] == -2) {
                    f->pred[f->to[e]] = e;
                    f->queue[qt++] = f->to[e];
                }
        }
        if (f->pred[target] == -2) break;
        for (int64_t x = target; x != sigma; x = f->to[f->pred[x] ^ 1]) {
            f->cap[f->pred[x]]--;
            f->cap[f->pred[x] ^ 1]++;
        }
        flow++;
    }
    return flow;
}

typedef struct {
    int64_t arc, u, v, key1, key2;
} cand_t;

static int cand_cmp(const void *a, const void *b) {
    const cand_t *x = a, *y = b;
    if (x->key1 != y->key1) return x->key1 < y->key1 ? -1 : 1;
    if (x->key2 != y->key2) return x->key2 < y->key2 ? -1 : 1;
    return x->arc < y->arc ? -1 : x->arc > y->arc;
}

gsp_err_t gsp_arborescences(const gsp_topo_t *t, int64_t root, int64_t kmax, int64_t *k_out, int64_t **parent_out,
                            int64_t **depth_out) {
    gsp_err_t err;
    int64_t n = t->n, m = t->m;
    *k_out = 0;
    *parent_out = NULL;
    if (depth_out) *depth_out = NULL;
    if (root < 0 || root >= n) return gsp_error(GSP_ERR_RANGE, "root %lld outside 0..%lld", (long long)root, (long long)n - 1);
    int64_t k = t->off[root + 1] - t->off[root];
    if (kmax > 0 && k > kmax) k = kmax;
    if (k > INT32_MAX / 2) k = INT32_MAX / 2;
    state_t s = {t, root, k, NULL, NULL, NULL};
    net_t f;
    memset(&f, 0, sizeof f);
    int64_t *size = NULL, *dist = NULL, *depth = NULL;
    cand_t *cand = NULL;
    f.n = n;
    f.k = k;
    f.nn = n + k + 1;
    f.ecap = 2 * (k + k * n + m) + 2;
    if ((err = gsp_alloc_array((void **)&s.parent, k * n + 1, sizeof *s.parent, false)) ||
        (err = gsp_alloc_array((void **)&s.in, k * n + 1, 1, true)) || (err = gsp_alloc_array((void **)&s.used, m + 1, 1, true)) ||
        (err = gsp_alloc_array((void **)&f.head, f.nn, sizeof *f.head, false)) ||
        (err = gsp_alloc_array((void **)&f.nxt, f.ecap, sizeof *f.nxt, false)) ||
        (err = gsp_alloc_array((void **)&f.to, f.ecap, sizeof *f.to, false)) ||
        (err = gsp_alloc_array((void **)&f.cap, f.ecap, sizeof *f.cap, false)) ||
        (err = gsp_alloc_array((void **)&f.pred, f.nn, sizeof *f.pred, false)) ||
        (err = gsp_alloc_array((void **)&f.queue, f.nn, sizeof *f.queue, false)) ||
        (err = gsp_alloc_array((void **)&size, k + 1, sizeof *size, false)) ||
        (err = gsp_alloc_array((void **)&dist, n, sizeof *dist, false)) ||
        (err = gsp_alloc_array((void **)&depth, k * n + 1, sizeof *depth, false)) ||
        (err = gsp_alloc_array((void **)&cand, m + 1, sizeof *cand, false)))
        goto done;
    /* Distances from the root (the second sort key), by BFS. */
    for (int64_t v = 0; v < n; v++) dist[v] = -1;
    dist[root] = 0;
    f.queue[0] = root;
    for (int64_t qh = 0, qt = 1; qh < qt; qh++)
        for (int64_t a = t->off[f.queue[qh]]; a < t->off[f.queue[qh] + 1]; a++)
            if (dist[t->adj[a]] < 0) {
                dist[t->adj[a]] = dist[f.queue[qh]] + 1;
                f.queue[qt++] = t->adj[a];
            }
    for (int64_t v = 0; v < n; v++)
        if (dist[v] < 0) {
            err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: node %lld is not reachable from %lld", t->spec, (long long)v, (long long)root);
            goto done;
        }
    for (int64_t i = 0; i < k * n; i++) s.parent[i] = -1, depth[i] = -1;
    for (int64_t i = 0; i < k; i++) {
        s.in[i * n + root] = 1;
        depth[i * n + root] = 0;
        size[i] = 1;
    }
    /* k: the fewest arc-disjoint paths from the root to any node (at most its out-degree). */
    for (int64_t v = 0; v < n && k > 0; v++) {
        if (v == root) continue;
        int64_t fl = flow_to(&s, &f, v);
        if (fl < k) {
            /* Fewer trees: shrink the layout (tree i's rows stay at i * n). */
            k = s.k = f.k = fl;
            f.nn = n + k + 1;
        }
    }
    if (k == 0 && n > 1) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: no path from %lld to every node", t->spec, (long long)root);
        goto done;
    }
    /* Grow the smallest tree by one arc at a time. */
    for (int64_t left = k * (n - 1); left > 0; left--) {
        int64_t i = 0;
        for (int64_t j = 1; j < k; j++)
            if (size[j] < size[i]) i = j;
        int64_t nc = 0;
        for (int64_t u = 0; u < n; u++) {
            if (!s.in[i * n + u]) continue;
            for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) {
                int64_t v = t->adj[a];
                if (s.used[a] || s.in[i * n + v]) continue;
                cand[nc++] = (cand_t){a, u, v, depth[i * n + u], dist[v]};
            }
        }
        qsort(cand, (size_t)nc, sizeof *cand, cand_cmp);
        bool placed = false;
        for (int64_t c = 0; c < nc && !placed; c++) {
            s.used[cand[c].arc] = 1;
            s.in[i * n + cand[c].v] = 1;
            if (flow_to(&s, &f, cand[c].v) >= k) {
                placed = true;
                s.parent[i * n + cand[c].v] = cand[c].u;
                depth[i * n + cand[c].v] = depth[i * n + cand[c].u] + 1;
                size[i]++;
            } else {
                s.used[cand[c].arc] = 0;
                s.in[i * n + cand[c].v] = 0;
            }
        }
        if (!placed) { /* Lovász's lemma says this cannot happen */
            err = gsp_error(GSP_ERR_INTERNAL, "%s: tree %lld cannot grow", t->spec, (long long)i);
            goto done;
        }
    }
    *k_out = k;
    *parent_out = s.parent;
    s.parent = NULL;
    if (depth_out) {
        *depth_out = depth;
        depth = NULL;
    }
done:
    gsp_free(s.parent);
    gsp_free(s.in);
    gsp_free(s.used);
    gsp_free(f.head);
    gsp_free(f.nxt);
    gsp_free(f.to);
    gsp_free(f.cap);
    gsp_free(f.pred);
    gsp_free(f.queue);
    gsp_free(size);
    gsp_free(dist);
    gsp_free(depth);
    gsp_free(cand);
    return err;
}
