/* SPDX-License-Identifier: GPL-3.0-or-later */
/* misc.c — small well-known algorithms: bit counting, xoshiro256**, the int64 vector. */
#include <string.h>

#include "gossip/core.h"

int64_t gsp_bits_count(const gsp_word_t *b, int64_t n) {
    int64_t c = 0, full = n / 64;
    for (int64_t i = 0; i < full; i++) c += __builtin_popcountll(b[i]);
    if (n % 64) c += __builtin_popcountll(b[full] & (((gsp_word_t)1 << (n % 64)) - 1));
    return c;
}

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void gsp_rng_seed(gsp_rng_t *rng, uint64_t seed) {
    for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t gsp_rng_next(gsp_rng_t *rng) {
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t gsp_rng_below(gsp_rng_t *rng, uint64_t n) {
    /* Lemire: multiply-shift with rejection of the short tail. */
    unsigned __int128 m = (unsigned __int128)gsp_rng_next(rng) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t thresh = -n % n;
        while (low < thresh) {
            m = (unsigned __int128)gsp_rng_next(rng) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double gsp_rng_double(gsp_rng_t *rng) { return (double)(gsp_rng_next(rng) >> 11) * 0x1.0p-53; }

gsp_err_t gsp_vec_reserve(gsp_vec_t *vec, int64_t cap) {
    if (cap <= vec->cap) return GSP_OK;
    int64_t nc = vec->cap ? vec->cap : 16;
    while (nc < cap) nc *= 2;
    int64_t bytes;
    if (!gsp_mul_ok(nc, (int64_t)sizeof(int64_t), &bytes))
        return gsp_error(GSP_ERR_OVERFLOW, "vector of %lld items overflows", (long long)nc);
    int64_t *p = gsp_realloc(vec->v, (size_t)bytes);
    if (!p) return gsp_error(GSP_ERR_NOMEM, "out of memory growing a vector to %lld items", (long long)nc);
    vec->v = p;
    vec->cap = nc;
    return GSP_OK;
}

gsp_err_t gsp_vec_push(gsp_vec_t *vec, int64_t x) {
    if (vec->len == vec->cap) {
        gsp_err_t e = gsp_vec_reserve(vec, vec->len + 1);
        if (e) return e;
    }
    vec->v[vec->len++] = x;
    return GSP_OK;
}

void gsp_vec_destroy(gsp_vec_t *vec) {
    gsp_free(vec->v);
    vec->v = NULL;
    vec->len = vec->cap = 0;
}

/* Optimal string alignment distance (Levenshtein plus adjacent transpositions) of a[0..la) and
 * b[0..lb), both at most 63 characters. */
static size_t osa_distance(const char *a, size_t la, const char *b, size_t lb) {
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++) d[i][0] = i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v) v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

const char *gsp_nearest(const char *word, size_t len, const char *const *names, size_t n) {
    const char *best = NULL;
    size_t bd = SIZE_MAX, limit = 1 + len / 4;
    if (len == 0 || len > 63) return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t ln = strlen(names[i]);
        if (ln > 63) continue;
        size_t dd = osa_distance(word, len, names[i], ln);
        if (dd <= limit && dd < len && dd < bd) {
            best = names[i];
            bd = dd;
        }
    }
    return best;
}
