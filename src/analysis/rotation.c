/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rotation.c — complete rotations (Def. 12 of Bermond–Kodate–Pérennes): an automorphism w of
 * a Cayley graph with w(e) = e and w(s_i x) = s_{i+1} w(x) for a cyclic order of the
 * generators. Given the order, w is forced (w(s_i1 ... s_ik) = s_i1+1 ... s_ik+1), so one BFS
 * either builds it or finds a contradiction. The search over cyclic orders is pruned by what
 * any automorphism preserves: generator orders, inverse pairs and orders of products s_i s_j. */
#include <string.h>

#include "gossip/analysis.h"

void gsp_rotation_destroy(gsp_rotation_t *r) {
    if (!r) return;
    gsp_free(r->order);
    gsp_free(r->omega);
    memset(r, 0, sizeof *r);
}

/* Order of the element reached by applying arc word (i, then j) repeatedly from e; j < 0 for
 * a single generator. Gives up (returns -1) after limit steps. */
static int64_t word_order(const gsp_topo_t *t, int i, int j, int64_t limit) {
    int d = t->ngens;
    int64_t x = 0, k = 0;
    do {
        if (j >= 0) x = t->adj[x * d + j];
        x = t->adj[x * d + i];
        k++;
    } while (x != 0 && k <= limit);
    return x == 0 ? k : -1;
}

/* Builds w for the cyclic order `order` into omega (n entries, scratch mark and queue);
 * returns true and the fixed-point count when w is a well-defined bijection. */
static bool check_order(const gsp_topo_t *t, const int *order, int64_t *omega, int64_t *queue,
                        unsigned char *mark, int64_t *fixed) {
    int d = t->ngens, sigma[4096];
    int64_t n = t->n;
    const int64_t *adj = t->adj;
    for (int j = 0; j < d; j++) sigma[order[j]] = order[(j + 1) % d];
    for (int64_t x = 0; x < n; x++) omega[x] = -1;
    int64_t head = 0, tail = 0;
    omega[0] = 0;
    queue[tail++] = 0;
    while (head < tail) {
        int64_t x = queue[head++], wx = omega[x];
        for (int i = 0; i < d; i++) {
            int64_t y = adj[x * d + i], wy = adj[wx * d + sigma[i]];
            if (omega[y] < 0) {
                omega[y] = wy;
                queue[tail++] = y;
            } else if (omega[y] != wy) {
                return false;
            }
        }
    }
    if (tail < n || n <= 0) return false; /* not connected: w is not defined everywhere */
    memset(mark, 0, (size_t)n);
    for (int64_t x = 0; x < n; x++) {
        if (mark[omega[x]]) return false;
        mark[omega[x]] = 1;
    }
    /* Orbits of w: a node other than e whose orbit is shorter than d is a fixed point. */
    memset(mark, 0, (size_t)n);
    *fixed = 0;
    for (int64_t x = 1; x < n; x++) {
        if (mark[x]) continue;
        int64_t len = 0, y = x;
        do {
            mark[y] = 1;
            y = omega[y];
            len++;
        } while (y != x);
        if (len <= d - 1) *fixed += len;
    }
    return true;
}

typedef struct {
    const gsp_topo_t *t;
    int d;
    int64_t *gord, *pord; /* generator orders; pair orders (NULL when not computed) */
    int *inv;
    int order[4096], sigma[4096];
    bool used[4096];
    int64_t checks, max_checks, nodes, max_nodes;
    bool found, cut;
    int64_t *omega, *queue, fixed;
    unsigned char *mark;
} search_t;

/* Is the partial map sigma (defined on order[0..j-1]) consistent with the invariants? */
static bool consistent(const search_t *s, int j) {
    for (int a = 0; a < j; a++) {
        int i = s->order[a], si = s->sigma[i];
        int ii = s->inv[i];
        if (ii >= 0 && s->sigma[ii] >= 0 && s->sigma[ii] != s->inv[si]) return false;
        if (!s->pord) continue;
        for (int b = 0; b < j; b++) {
            int k = s->order[b], sk = s->sigma[k];
            if (s->pord[i * s->d + k] != s->pord[si * s->d + sk]) return false;
        }
    }
    return true;
}

static void search(search_t *s, int j) {
    if (s->found || s->cut) return;
    if (++s->nodes > s->max_nodes || s->checks >= s->max_checks) {
        s->cut = true;
        return;
    }
    int d = s->d;
    if (j == d) {
        s->sigma[s->order[d - 1]] = s->order[0];
        if (consistent(s, d)) {
            s->checks++;
            if (check_order(s->t, s->order, s->omega, s->queue, s->mark, &s->fixed)) s->found = true;
        }
        s->sigma[s->order[d - 1]] = -1;
        return;
    }
    for (int c = 1; c < d && !s->found && !s->cut; c++) {
        if (s->used[c] || s->gord[c] != s->gord[0]) continue;
        s->order[j] = c;
        s->used[c] = true;
        s->sigma[s->order[j - 1]] = c;
        if (consistent(s, j)) search(s, j + 1);
        s->sigma[s->order[j - 1]] = -1;
        s->used[c] = false;
    }
}

static gsp_err_t alloc_result(const gsp_topo_t *t, gsp_rotation_t *out) {
    gsp_err_t err;
    memset(out, 0, sizeof *out);
    out->d = t->ngens;
    if ((err = gsp_alloc_array((void **)&out->order, t->ngens, sizeof *out->order, false)) ||
        (err = gsp_alloc_array((void **)&out->omega, t->n, sizeof *out->omega, false)))
        gsp_rotation_destroy(out);
    return err;
}

gsp_err_t gsp_rotation_check(const gsp_topo_t *t, const int *order, gsp_rotation_t *out) {
    gsp_err_t err;
    int64_t *queue = NULL;
    unsigned char *mark = NULL;
    if (!t->group) return gsp_error(GSP_ERR_NOTAPPLIC, "%s: not a Cayley graph", t->spec);
    if ((err = alloc_result(t, out))) return err;
    if ((err = gsp_alloc_array((void **)&queue, t->n, sizeof *queue, false)) ||
        (err = gsp_alloc_array((void **)&mark, t->n, 1, false)))
        goto done;
    memcpy(out->order, order, (size_t)t->ngens * sizeof *order);
    out->candidates = 1;
    out->found = check_order(t, order, out->omega, queue, mark, &out->fixed_points);
    if (!out->found) {
        gsp_free(out->omega);
        out->omega = NULL;
    }
done:
    gsp_free(queue);
    gsp_free(mark);
    if (err) gsp_rotation_destroy(out);
    return err;
}

gsp_err_t gsp_rotation_find(const gsp_topo_t *t, int64_t max_checks, gsp_rotation_t *out) {
    gsp_err_t err;
    search_t *s = NULL;
    int d = t->ngens;
    if (!t->group) return gsp_error(GSP_ERR_NOTAPPLIC, "%s: not a Cayley graph", t->spec);
    if (d > 4096) return gsp_error(GSP_ERR_RANGE, "%s: too many generators", t->spec);
    if ((err = alloc_result(t, out))) return err;
    if (!(s = gsp_calloc(1, sizeof *s))) {
        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        goto done;
    }
    s->t = t;
    s->d = d;
    s->max_checks = max_checks > 0 ? max_checks : 20000;
    s->max_nodes = 50 * 1000 * 1000;
    s->omega = out->omega;
    if ((err = gsp_alloc_array((void **)&s->gord, d, sizeof *s->gord, false)) ||
        (err = gsp_alloc_array((void **)&s->inv, d, sizeof *s->inv, false)) ||
        (err = gsp_alloc_array((void **)&s->queue, t->n, sizeof *s->queue, false)) ||
        (err = gsp_alloc_array((void **)&s->mark, t->n, 1, false)))
        goto done;
    for (int i = 0; i < d; i++) {
        s->gord[i] = word_order(t, i, -1, t->n);
        s->inv[i] = gsp_topo_gen_inverse(t, i);
        s->sigma[i] = -1;
    }
    /* Pair orders cost d^2 walks of up to n steps; worth it while that stays cheap. */
    if ((double)d * d * (double)t->n <= 2e8) {
        if ((err = gsp_alloc_array((void **)&s->pord, (int64_t)d * d, sizeof *s->pord, false)))
            goto done;
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) s->pord[i * d + j] = word_order(t, i, j, t->n);
    }
    s->order[0] = 0;
    s->used[0] = true;
    if (d == 1) {
        s->checks = 1;
        s->found = check_order(t, s->order, s->omega, s->queue, s->mark, &s->fixed);
    } else {
        search(s, 1);
    }
    out->found = s->found;
    out->exhaustive = !s->cut;
    out->candidates = s->checks;
    if (s->found) {
        memcpy(out->order, s->order, (size_t)d * sizeof *out->order);
        out->fixed_points = s->fixed;
    } else {
        gsp_free(out->omega);
        out->omega = NULL;
    }
done:
    if (s) {
        gsp_free(s->gord);
        gsp_free(s->pord);
        gsp_free(s->inv);
        gsp_free(s->queue);
        gsp_free(s->mark);
        gsp_free(s);
    }
    if (err) gsp_rotation_destroy(out);
    return err;
}
