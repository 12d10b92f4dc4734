/* SPDX-License-Identifier: GPL-3.0-or-later */
/* group.c — element arithmetic of the groups behind Cayley graphs: finite abelian groups in
 * mixed radix, symmetric groups by lexicographic rank, and direct products of the two. */
#include <string.h>

#include "gossip/topo.h"

void gsp_group_coords(const gsp_group_t *g, int64_t x, int64_t *c) {
    for (int j = 0; j < g->k; j++) c[j] = (x / g->stride[j]) % g->mod[j];
}

int64_t gsp_group_index(const gsp_group_t *g, const int64_t *c) {
    int64_t x = 0;
    for (int j = 0; j < g->k; j++) {
        int64_t v = c[j] % g->mod[j];
        if (v < 0) v += g->mod[j];
        x += v * g->stride[j];
    }
    return x;
}

static const int64_t factorial[21] = {1,
                                      1,
                                      2,
                                      6,
                                      24,
                                      120,
                                      720,
                                      5040,
                                      40320,
                                      362880,
                                      3628800,
                                      39916800,
                                      479001600,
                                      6227020800LL,
                                      87178291200LL,
                                      1307674368000LL,
                                      20922789888000LL,
                                      355687428096000LL,
                                      6402373705728000LL,
                                      121645100408832000LL,
                                      2432902008176640000LL};

void gsp_perm_unrank(int K, int64_t r, int *w) {
    /* Lehmer code: digit j picks the (c_j)-th smallest unused symbol. */
    int used[GSP_MAX_PERM_K + 1] = {0};
    for (int j = 0; j < K; j++) {
        int64_t f = factorial[K - 1 - j];
        int c = (int)(r / f);
        r %= f;
        int s = 0;
        for (;; s++) {
            if (used[s]) continue;
            if (c-- == 0) break;
        }
        used[s] = 1;
        w[j] = s;
    }
}

int64_t gsp_perm_rank(int K, const int *w) {
    int64_t r = 0;
    for (int j = 0; j < K; j++) {
        int c = 0;
        for (int l = j + 1; l < K; l++) c += w[l] < w[j];
        r += c * factorial[K - 1 - j];
    }
    return r;
}

int64_t gsp_group_mul(const gsp_group_t *g, int64_t x, int64_t y) {
    switch (g->kind) {
    case GSP_GROUP_ABELIAN: {
        int64_t z = 0;
        for (int j = 0; j < g->k; j++) {
            int64_t s = g->stride[j], m = g->mod[j];
            int64_t c = (x / s) % m + (y / s) % m;
            if (c >= m) c -= m;
            z += c * s;
        }
        return z;
    }
    case GSP_GROUP_SYMMETRIC: {
        int K = g->K, wx[GSP_MAX_PERM_K], wy[GSP_MAX_PERM_K], wz[GSP_MAX_PERM_K];
        gsp_perm_unrank(K, x, wx);
        gsp_perm_unrank(K, y, wy);
        for (int j = 0; j < K; j++) wz[j] = wy[wx[j]];
        return gsp_perm_rank(K, wz);
    }
    case GSP_GROUP_PRODUCT: {
        int64_t nb = g->b->order;
        return gsp_group_mul(g->a, x / nb, y / nb) * nb + gsp_group_mul(g->b, x % nb, y % nb);
    }
    case GSP_GROUP_TABLE: return g->table[x * g->order + y];
    }
    return -1;
}

int64_t gsp_group_inv(const gsp_group_t *g, int64_t x) {
    switch (g->kind) {
    case GSP_GROUP_ABELIAN: {
        int64_t z = 0;
        for (int j = 0; j < g->k; j++) {
            int64_t c = (x / g->stride[j]) % g->mod[j];
            z += (c ? g->mod[j] - c : 0) * g->stride[j];
        }
        return z;
    }
    case GSP_GROUP_SYMMETRIC: {
        int K = g->K, w[GSP_MAX_PERM_K], v[GSP_MAX_PERM_K];
        gsp_perm_unrank(K, x, w);
        for (int j = 0; j < K; j++) v[w[j]] = j;
        return gsp_perm_rank(K, v);
    }
    case GSP_GROUP_PRODUCT: {
        int64_t nb = g->b->order;
        return gsp_group_inv(g->a, x / nb) * nb + gsp_group_inv(g->b, x % nb);
    }
    case GSP_GROUP_TABLE: return g->inverse[x];
    }
    return -1;
}

gsp_err_t gsp_group_copy(const gsp_group_t *src, gsp_group_t **out) {
    gsp_err_t err;
    gsp_group_t *g = gsp_malloc(sizeof *g);
    *out = NULL;
    if (!g) return gsp_error(GSP_ERR_NOMEM, "out of memory copying a group");
    memcpy(g, src, sizeof *g);
    g->a = g->b = NULL;
    g->table = g->inverse = NULL;
    if (src->kind == GSP_GROUP_TABLE) {
        size_t n = (size_t)src->order;
        if (!(g->table = gsp_malloc(n * n * sizeof *g->table)) || !(g->inverse = gsp_malloc(n * sizeof *g->inverse))) {
            gsp_group_free(g);
            return gsp_error(GSP_ERR_NOMEM, "out of memory copying a group");
        }
        memcpy(g->table, src->table, n * n * sizeof *g->table);
        memcpy(g->inverse, src->inverse, n * sizeof *g->inverse);
    }
    if (src->kind == GSP_GROUP_PRODUCT) {
        if ((err = gsp_group_copy(src->a, &g->a)) || (err = gsp_group_copy(src->b, &g->b))) {
            gsp_group_free(g);
            return err;
        }
    }
    *out = g;
    return GSP_OK;
}

void gsp_group_free(gsp_group_t *g) {
    if (!g) return;
    if (g->kind == GSP_GROUP_PRODUCT) {
        gsp_group_free(g->a);
        gsp_group_free(g->b);
    }
    gsp_free(g->table);
    gsp_free(g->inverse);
    gsp_free(g);
}

bool gsp_group_is_abelian(const gsp_group_t *g) {
    switch (g->kind) {
    case GSP_GROUP_ABELIAN: return true;
    case GSP_GROUP_SYMMETRIC: return g->K <= 2;
    case GSP_GROUP_PRODUCT: return gsp_group_is_abelian(g->a) && gsp_group_is_abelian(g->b);
    case GSP_GROUP_TABLE:
        for (int64_t x = 0; x < g->order; x++)
            for (int64_t y = x + 1; y < g->order; y++)
                if (g->table[x * g->order + y] != g->table[y * g->order + x]) return false;
        return true;
    }
    return false;
}

gsp_err_t gsp_group_table(int64_t n, const int32_t *table, gsp_group_t **out) {
    *out = NULL;
    if (n < 1 || n > GSP_GROUP_TABLE_MAX) return gsp_error(GSP_ERR_RANGE, "a group table of order %lld (1..%d)", (long long)n, GSP_GROUP_TABLE_MAX);
    gsp_group_t *g = gsp_calloc(1, sizeof *g);
    if (!g || !(g->table = gsp_malloc((size_t)(n * n) * sizeof *g->table)) || !(g->inverse = gsp_malloc((size_t)n * sizeof *g->inverse))) {
        gsp_group_free(g);
        return gsp_error(GSP_ERR_NOMEM, "out of memory");
    }
    g->kind = GSP_GROUP_TABLE;
    g->order = n;
    memcpy(g->table, table, (size_t)(n * n) * sizeof *g->table);
    for (int64_t x = 0; x < n; x++) {
        g->inverse[x] = -1;
        if (table[x] != x || table[x * n] != x) {
            gsp_group_free(g);
            return gsp_error(GSP_ERR_RANGE, "group table: 0 is not the identity");
        }
        for (int64_t y = 0; y < n; y++) {
            int32_t z = table[x * n + y];
            if (z < 0 || z >= n) {
                gsp_group_free(g);
                return gsp_error(GSP_ERR_RANGE, "group table: entry (%lld, %lld) out of range", (long long)x, (long long)y);
            }
            if (z == 0) g->inverse[x] = (int32_t)y;
        }
        if (g->inverse[x] < 0) {
            gsp_group_free(g);
            return gsp_error(GSP_ERR_RANGE, "group table: %lld has no inverse", (long long)x);
        }
    }
    *out = g;
    return GSP_OK;
}
