/* SPDX-License-Identifier: GPL-3.0-or-later */
/* revolve_kary.c — the revolving hierarchy on complete k-ary trees and for any number of
 * processes through virtual nodes (Garg and Ghosh, Section VI); see revolve.h. Positions are
 * indexed in level order (children of i: k i + 1 .. k i + k). */
#include <stdlib.h>
#include <string.h>

#include "gossip/revolve.h"

/* Level-order index of the node reached from the root by the digits of path (depth len). */
static int64_t node_of(int k, const int *path, int len) {
    int64_t x = 0;
    for (int i = 0; i < len; i++) x = k * x + 1 + path[i];
    return x;
}

/* Digits of the path from the root to x; returns the depth. */
static int path_of(int k, int64_t x, int *path) {
    int len = 0, tmp[64];
    while (x > 0) {
        tmp[len++] = (int)((x - 1) % k);
        x = (x - 1) / k;
    }
    for (int i = 0; i < len; i++) path[i] = tmp[len - 1 - i];
    return len;
}

gsp_err_t gsp_revolve_build_kary(int k, int64_t nreal, gsp_revolve_t *r) {
    gsp_err_t err;
    int64_t *nxt = NULL, *cyc = NULL, *targets = NULL;
    unsigned char *seen = NULL;
    memset(r, 0, sizeof *r);
    if (k < 2 || k > 64) return gsp_error(GSP_ERR_RANGE, "revolve: arity %d outside 2..64", k);
    if (nreal < 2 || nreal > ((int64_t)1 << 26)) return gsp_error(GSP_ERR_RANGE, "revolve: N = %lld outside 2..2^26", (long long)nreal);
    /* The smallest complete tree with at least nreal positions: (k^L - 1)/(k - 1) >= nreal. */
    int L = 1;
    int64_t M = 1, lev = 1;
    while (M < nreal) {
        lev *= k;
        M += lev;
        L++;
    }
    int64_t leaves = lev, first_leaf = M - leaves;
    r->n = L;
    r->N = M;
    r->k = k;
    r->nreal = nreal;
    if ((err = gsp_alloc_array((void **)&nxt, M, sizeof *nxt, false)) ||
        (err = gsp_alloc_array((void **)&cyc, M, sizeof *cyc, false)) ||
        (err = gsp_alloc_array((void **)&targets, leaves, sizeof *targets, false)) ||
        (err = gsp_alloc_array((void **)&seen, M, 1, true)) ||
        (err = gsp_alloc_array((void **)&r->inorder, M, sizeof *r->inorder, false)) ||
        (err = gsp_alloc_array((void **)&r->label, M + 1, sizeof *r->label, false)) ||
        (err = gsp_alloc_array((void **)&r->parent, M, sizeof *r->parent, false)) ||
        (err = gsp_alloc_array((void **)&r->leaf, M, 1, false)))
        goto done;
    /* Interior nodes: one level down into the subtree of the root's first child (Type I). */
    int path[64], q[65];
    int64_t nt = 0;
    for (int64_t x = 0; x < first_leaf; x++) {
        int len = path_of(k, x, path);
        q[0] = 0;
        memcpy(q + 1, path, (size_t)len * sizeof *path);
        nxt[x] = node_of(k, q, len + 1);
        seen[nxt[x]] = 1;
    }
    /* Leaves go to everything else: the root and the subtrees of children 1..k-1 (Types II-III),
     * in level order. */
    for (int64_t y = 0; y < M; y++)
        if (!seen[y]) targets[nt++] = y;
    if (nt != leaves) {
        err = gsp_error(GSP_ERR_INTERNAL, "revolve: %lld targets for %lld leaves", (long long)nt, (long long)leaves);
        goto done;
    }
    for (int64_t i = 0; i < leaves; i++) nxt[first_leaf + i] = targets[i];
    /* Merge cycles: swap the images of a leaf of the first cycle and a leaf of another. */
    for (;;) {
        for (int64_t y = 0; y < M; y++) cyc[y] = -1;
        int64_t ncyc = 0;
        for (int64_t y = 0; y < M; y++) {
            if (cyc[y] >= 0) continue;
            for (int64_t z = y; cyc[z] < 0; z = nxt[z]) cyc[z] = ncyc;
            ncyc++;
        }
        if (ncyc == 1) break;
        int64_t a = -1, b = -1;
        for (int64_t i = first_leaf; i < M && (a < 0 || b < 0); i++) {
            if (cyc[i] == 0 && a < 0) a = i;
            if (cyc[i] != 0 && b < 0) b = i;
        }
        if (a < 0 || b < 0) {
            err = gsp_error(GSP_ERR_INTERNAL, "revolve: a cycle without a leaf");
            goto done;
        }
        int64_t t = nxt[a];
        nxt[a] = nxt[b];
        nxt[b] = t;
    }
    /* Label along the cycle from the first leaf; check the gather-tree constraint. */
    for (int64_t j = 0, x = first_leaf; j < M; j++, x = nxt[x]) {
        r->inorder[j] = x;
        r->label[x] = j;
    }
    for (int64_t j = 0; j < M; j++) {
        int64_t x = r->inorder[j], p = x ? (x - 1) / k : -1;
        r->leaf[j] = x >= first_leaf;
        r->parent[j] = p >= 0 ? r->label[p] : -1;
        if (x < first_leaf && p >= 0 && (nxt[x] - 1) / k != nxt[p]) {
            err = gsp_error(GSP_ERR_INTERNAL, "revolve: gather-tree constraint fails at %lld", (long long)x);
            goto done;
        }
    }
    memset(seen, 0, (size_t)M);
    for (int64_t j = 0; j < M; j++) {
        if (!r->leaf[j]) continue;
        int64_t d = ((r->parent[j] - j) % M + M) % M;
        if (!seen[d]) {
            seen[d] = 1;
            if ((err = gsp_vec_push(&r->cds, d > M / 2 ? d - M : d))) goto done;
        }
    }
    err = GSP_OK;
done:
    gsp_free(nxt);
    gsp_free(cyc);
    gsp_free(targets);
    gsp_free(seen);
    if (err) gsp_revolve_destroy(r);
    return err;
}
