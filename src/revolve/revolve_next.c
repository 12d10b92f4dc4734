/* SPDX-License-Identifier: GPL-3.0-or-later */
/* revolve_next.c — `next` on in-order labelled complete binary trees (Garg and Ghosh, Section III
 * and IV): the permutation, its proof obligations checked in code (a permutation, primitive,
 * gather-tree constraint), the relabelling with new_next(x) = x + 1, new_parent, msg(x, t) of
 * eq. (3) and the communication distance set (Theorem 2: 2(n - 1) elements). */
#include <stdlib.h>
#include <string.h>

#include "gossip/revolve.h"

static int lead0(int n, int64_t x) {
    int z = 0;
    for (int b = n - 1; b >= 0 && !(x >> b & 1); b--) z++;
    return z;
}

int64_t gsp_revolve_next_inorder(int n, int64_t x) {
    int64_t N = ((int64_t)1 << n) - 1, half = (int64_t)1 << (n - 1);
    if (!(x & 1)) return x / 2;                         /* Type I: down to the left child's line */
    if (x < half) return (x << lead0(n, x)) + 1;        /* Type II: a left leaf to a right leaf */
    return x + 1 == N + 1 ? (N + 1) / 2 : x + 1;        /* Type III: in-order in the right subtree */
}

int64_t gsp_revolve_parent_inorder(int n, int64_t x) {
    /* The lowest set bit of an in-order label is its height; the parent sits one level up on the
     * side that keeps the higher bits: clear that bit and set the next one. */
    int64_t low = x & -x, N = ((int64_t)1 << n) - 1;
    if (low == (N + 1) / 2) return 0; /* the root */
    return (x & ~low) | (low << 1);
}

void gsp_revolve_destroy(gsp_revolve_t *r) {
    if (!r) return;
    gsp_free(r->inorder);
    gsp_free(r->label);
    gsp_free(r->parent);
    gsp_free(r->leaf);
    gsp_vec_destroy(&r->cds);
    memset(r, 0, sizeof *r);
}

/* The arrays of an N-position hierarchy, labels unset, and a zeroed residue marker. */
static gsp_err_t alloc_hierarchy(gsp_revolve_t *r, int n, int64_t N, unsigned char **seen) {
    gsp_err_t err;
    r->n = n;
    r->N = N;
    if ((err = gsp_alloc_array((void **)&r->inorder, N, sizeof *r->inorder, false)) ||
        (err = gsp_alloc_array((void **)&r->label, N + 1, sizeof *r->label, false)) ||
        (err = gsp_alloc_array((void **)&r->parent, N, sizeof *r->parent, false)) ||
        (err = gsp_alloc_array((void **)&r->leaf, N, 1, false)) ||
        (err = gsp_alloc_array((void **)seen, N, 1, true)))
        return err;
    for (int64_t x = 0; x <= N; x++) r->label[x] = -1;
    return GSP_OK;
}

/* Adds new_parent(j) - j to the CDS (as a residue in (-N/2, N/2]); seen marks residues. */
static gsp_err_t cds_add(gsp_revolve_t *r, unsigned char *seen, int64_t j) {
    int64_t N = r->N, d = ((r->parent[j] - j) % N + N) % N;
    if (seen[d]) return GSP_OK;
    seen[d] = 1;
    return gsp_vec_push(&r->cds, d > N / 2 ? d - N : d);
}

static int cmp_i64(const void *p, const void *q) {
    int64_t a = *(const int64_t *)p, b = *(const int64_t *)q;
    return (a > b) - (a < b);
}

gsp_err_t gsp_revolve_build(int n, gsp_revolve_t *r) {
    gsp_err_t err;
    unsigned char *seen = NULL;
    memset(r, 0, sizeof *r);
    if (n < 2 || n > GSP_REVOLVE_MAX_N) return gsp_error(GSP_ERR_RANGE, "revolve: n = %d outside 2..%d", n, GSP_REVOLVE_MAX_N);
    int64_t N = ((int64_t)1 << n) - 1;
    if ((err = alloc_hierarchy(r, n, N, &seen))) goto fail;
    /* One cycle from the leftmost leaf: primitive iff it visits all N nodes before returning. */
    int64_t x = 1;
    for (int64_t j = 0; j < N; j++) {
        if (x < 1 || x > N || r->label[x] >= 0) {
            err = gsp_error(GSP_ERR_INTERNAL, "revolve: next is not primitive for n = %d (cycle closes after %lld)", n, (long long)j);
            goto fail;
        }
        r->label[x] = j;
        r->inorder[j] = x;
        x = gsp_revolve_next_inorder(n, x);
    }
    if (x != 1) {
        err = gsp_error(GSP_ERR_INTERNAL, "revolve: next does not return to the start for n = %d", n);
        goto fail;
    }
    for (int64_t j = 0; j < N; j++) {
        int64_t v = r->inorder[j], p = gsp_revolve_parent_inorder(n, v);
        r->leaf[j] = v & 1;
        r->parent[j] = p ? r->label[p] : -1;
        /* Gather-tree constraint: an interior node and its parent keep their relation one level
         * down (next of the parent is the parent of next). */
        if (!(v & 1) && p && gsp_revolve_parent_inorder(n, gsp_revolve_next_inorder(n, v)) != gsp_revolve_next_inorder(n, p)) {
            err = gsp_error(GSP_ERR_INTERNAL, "revolve: gather-tree constraint fails at node %lld", (long long)v);
            goto fail;
        }
        if (r->leaf[j] && (err = cds_add(r, seen, j))) goto fail;
    }
    qsort(r->cds.v, (size_t)r->cds.len, sizeof *r->cds.v, cmp_i64);
    gsp_free(seen);
    return GSP_OK;
fail:
    gsp_free(seen);
    gsp_revolve_destroy(r);
    return err;
}

int64_t gsp_revolve_msg(const gsp_revolve_t *r, int64_t x, int64_t t) {
    int64_t N = r->N, pos = ((x + t) % N + N) % N;
    if (!r->leaf[pos]) return -1;
    return ((r->parent[pos] - t) % N + N) % N;
}

int64_t gsp_revolve_snext(int n, int64_t x) {
    int64_t N = (int64_t)1 << n, half = N / 2;
    if (x & 1) return x >> 1;        /* S1: winners play among themselves */
    if (x < half) return x + half;   /* S2 */
    int64_t t = (x - half + 2) % half, y = t; /* S3: towards the next left-even position */
    int m = lead0(n, t);
    for (int k = 0; k < m; k++) y = ((y << 1) | 1) & (N - 1);
    return y;
}

static int lead1(int n, int64_t x) {
    int z = 0;
    for (int b = n - 1; b >= 0 && (x >> b & 1); b--) z++;
    return z;
}

int64_t gsp_revolve_bcnext(int n, int64_t x) {
    int64_t N = (int64_t)1 << n;
    if (x & 1) return x >> 1;                       /* S1 */
    if (!(x & 2)) return (x >> 1) | (N >> 1);       /* S2: RS1 */
    int64_t t = ((x << lead1(n, x)) & (N - 1)) + 2; /* S3 */
    t %= N >> 1;
    int a = lead0(n, t);
    for (int k = 0; k < a; k++) t = ((t << 1) | 1) & (N - 1);
    return t;
}

gsp_err_t gsp_revolve_build_list(int n, gsp_revolve_list_t variant, gsp_revolve_t *r) {
    bool snext2 = variant == GSP_REVOLVE_SNEXT2;
    gsp_err_t err;
    unsigned char *seen = NULL;
    memset(r, 0, sizeof *r);
    if (n < 2 || n > GSP_REVOLVE_MAX_N) return gsp_error(GSP_ERR_RANGE, "revolve: n = %d outside 2..%d", n, GSP_REVOLVE_MAX_N);
    int64_t N = (int64_t)1 << n, half = N / 2;
    if ((err = alloc_hierarchy(r, n, N, &seen))) goto fail;
    /* n_snext2 starts at position 0 and sends every left-even position to the leftmost right-even
     * position not yet labelled; snext starts at position N - 1 (eq. 7). */
    int64_t x = snext2 ? 0 : N - 1, next_reven = half;
    for (int64_t j = 0; j < N; j++) {
        if (x < 0 || x >= N || r->label[x] >= 0) {
            err = gsp_error(GSP_ERR_INTERNAL, "revolve: the list permutation is not primitive for n = %d", n);
            goto fail;
        }
        r->label[x] = j;
        r->inorder[j] = x;
        int64_t y;
        if (variant == GSP_REVOLVE_BCNEXT) y = gsp_revolve_bcnext(n, x);
        else if (!snext2) y = gsp_revolve_snext(n, x);
        else if (x & 1) y = x >> 1;
        else if (x >= half) y = x + 1;
        else {
            y = next_reven;
            next_reven += 2;
        }
        /* Tournament constraints: a winner (odd) in the first 2^i positions moves into the first
         * 2^(i-1). */
        if ((x & 1) && y != x >> 1) {
            err = gsp_error(GSP_ERR_INTERNAL, "revolve: tournament constraint fails at %lld", (long long)x);
            goto fail;
        }
        /* Broadcast constraints (13): b_i..b_1 = 0 implies c_{i-1}..c_0 = 0, i = 1..n-1. */
        for (int i = 1; variant == GSP_REVOLVE_BCNEXT && i <= n - 1; i++) {
            int64_t mb = (((int64_t)1 << i) - 1) << 1, mc = ((int64_t)1 << i) - 1;
            if (!(x & mb) && (y & mc)) {
                err = gsp_error(GSP_ERR_INTERNAL, "revolve: broadcast constraint %d fails at %lld", i, (long long)x);
                goto fail;
            }
        }
        x = y;
    }
    if (x != (snext2 ? 0 : N - 1)) {
        err = gsp_error(GSP_ERR_INTERNAL, "revolve: the list permutation does not close for n = %d", n);
        goto fail;
    }
    for (int64_t j = 0; j < N; j++) {
        int64_t p = r->inorder[j];
        r->leaf[j] = !(p & 1);
        r->parent[j] = p & 1 ? -1 : r->label[p + 1];
        if (r->leaf[j] && (err = cds_add(r, seen, j))) goto fail;
    }
    qsort(r->cds.v, (size_t)r->cds.len, sizeof *r->cds.v, cmp_i64);
    gsp_free(seen);
    return GSP_OK;
fail:
    gsp_free(seen);
    gsp_revolve_destroy(r);
    return err;
}
