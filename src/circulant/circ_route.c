/* SPDX-License-Identifier: GPL-3.0-or-later */
/* circ_route.c — relative addresses and routing in the circulants G(N; s, s+1) (Monakhova–
 * Monakhov, Propositions 1–2 and Section 3). Prop. 2's closed form survives the transcription
 * only in part; for the optimal s the address is computed from its definition in O(1): a dozen
 * candidate (u, y) pairs around K/s (checked against BFS for every N up to 3000). For any other
 * s those candidates can miss (G(100; 1, 2): 0 to 50 is 25 hops, not 48), so the address is
 * found exactly in O(N). */
#include <stdlib.h>
#include <string.h>

#include "gossip/circulant.h"

static int64_t iabs(int64_t a) { return a < 0 ? -a : a; }

/* Canonical order among addresses of equal length. */
static bool better(gsp_caddr_t a, gsp_caddr_t b) {
    int64_t la = iabs(a.x) + iabs(a.y), lb = iabs(b.x) + iabs(b.y);
    if (la != lb) return la < lb;
    if (iabs(a.y) != iabs(b.y)) return iabs(a.y) < iabs(b.y);
    if (iabs(a.x) != iabs(b.x)) return iabs(a.x) < iabs(b.x);
    if (a.x != b.x) return a.x > b.x;
    return a.y > b.y;
}

/* The s of the optimal circulant on N nodes: the smallest with N <= 2s^2 + 4s + 3. */
static int64_t optimal_s(int64_t N) {
    int64_t s = 1;
    while (2 * s * s + 4 * s + 3 < N) s++;
    return s;
}

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a < 0 ? -a : a;
}

/* Inverse of a modulo m (gcd(a, m) = 1), by the extended Euclid algorithm. */
static int64_t inverse_mod(int64_t a, int64_t m) {
    __int128 t = 0, nt = 1, r = m, nr = ((a % m) + m) % m;
    while (nr) {
        __int128 q = r / nr, x = t - q * nt;
        t = nt, nt = x;
        x = r - q * nr;
        r = nr, nr = x;
    }
    return (int64_t)(t < 0 ? t + m : t);
}

/* The exact address for any s, in O(N): for every y, the u with u s = k - y (mod N) nearest
 * to y (x = u - y). Used when s is not the optimal one, where the O(1) candidates can miss. */
static gsp_caddr_t address_exact(int64_t N, int64_t s, int64_t k) {
    gsp_caddr_t best = {0, 0};
    bool have = false;
    int64_t g = gcd64(s, N), M = N / g, inv = M > 1 ? inverse_mod((s / g) % M, M) : 0;
    for (int64_t y = -N; y <= N; y++) {
        int64_t r = ((k - y) % N + N) % N;
        if (r % g) continue;
        int64_t u0 = (int64_t)((__int128)(r / g) * inv % (M ? M : 1)); /* u = u0 (mod M) */
        /* The u = u0 + t M closest to y, and its neighbours. */
        int64_t t0 = (y - u0) >= 0 ? (y - u0) / M : -((u0 - y + M - 1) / M);
        for (int64_t t = t0 - 1; t <= t0 + 1; t++) {
            int64_t u = u0 + t * M;
            gsp_caddr_t a = {u - y, y};
            if (!have || better(a, best)) best = a, have = true;
        }
    }
    return best;
}

gsp_caddr_t gsp_circ_address(int64_t N, int64_t s, int64_t k) {
    gsp_caddr_t best = {0, 0};
    bool have = false;
    k = ((k % N) + N) % N;
    if (k == 0) return best;
    if (s != optimal_s(N)) return address_exact(N, s, k);
    for (int64_t j = -1; j <= 1; j++) {
        int64_t K = k + j * N, u0 = K >= 0 ? K / s : -((-K + s - 1) / s);
        for (int64_t u = u0 - 2; u <= u0 + 2; u++) {
            int64_t y = K - u * s; /* K = u s + y */
            gsp_caddr_t a = {u - y, y};
            if (!have || better(a, best)) best = a, have = true;
        }
    }
    return best;
}

void gsp_route_destroy(gsp_route_t *r) {
    if (!r) return;
    gsp_free(r->path);
    memset(r, 0, sizeof *r);
}

gsp_err_t gsp_circ_route(const gsp_topo_t *t, int64_t s, int64_t src, int64_t dst, const unsigned char *dead_node,
                         const unsigned char *dead_arc, int64_t *load, gsp_route_t *out) {
    gsp_err_t err;
    int64_t N = t->n, cap = 64, len = 0;
    unsigned char *visited = NULL;
    memset(out, 0, sizeof *out);
    if (!t->group || t->ngens != 4 || t->gens[0] != s || t->gens[1] != (s + 1) % N)
        return gsp_error(GSP_ERR_NOTAPPLIC, "route: %s is not G(N; %lld, %lld) with 4 arcs", t->spec, (long long)s, (long long)s + 1);
    if (src < 0 || src >= N || dst < 0 || dst >= N) return gsp_error(GSP_ERR_RANGE, "route: nodes must be in 0..%lld", (long long)N - 1);
    if (s != optimal_s(N) && N > 100000)
        return gsp_error(GSP_ERR_NOTAPPLIC,
                         "route: %s is not the optimal circulant (s = %lld); exact addresses there cost O(N) per hop, "
                         "refused above 100000 nodes",
                         t->spec, (long long)optimal_s(N));
    if ((err = gsp_alloc_array((void **)&out->path, cap, sizeof *out->path, false)) ||
        (err = gsp_alloc_array((void **)&visited, N, 1, true)))
        goto fail;
    int64_t cur = src;
    out->path[len++] = cur;
    visited[cur] = 1;
    if (dead_node && (dead_node[src] || dead_node[dst])) goto done;
    int64_t fault_free = -1;
    while (cur != dst) {
        gsp_caddr_t a = gsp_circ_address(N, s, dst - cur);
        if (fault_free < 0) fault_free = iabs(a.x) + iabs(a.y);
        /* Arcs: 0 = +s, 1 = +(s+1), 2 = -s, 3 = -(s+1) (the circulant convention). */
        bool shortest[4] = {a.x > 0, a.y > 0, a.x < 0, a.y < 0};
        int pick = -1;
        for (int pass = 0; pass < 2 && pick < 0; pass++)
            for (int i = 0; i < 4; i++) {
                int64_t arc = cur * 4 + i, nb = t->adj[arc];
                if (pass == 0 && !shortest[i]) continue;
                if ((dead_arc && dead_arc[arc]) || (dead_node && dead_node[nb]) || visited[nb]) continue;
                if (pick < 0 || (load && load[arc] < load[cur * 4 + pick])) pick = i;
            }
        if (pick >= 0 && !shortest[pick]) out->recomputed++;
        if (pick < 0) {
            /* Dead end: step back along the path (the message remembers it). */
            if (len == 1) goto done;
            len--;
            cur = out->path[len - 1];
            out->recomputed++;
            continue;
        }
        if (load) load[cur * 4 + pick]++;
        cur = t->adj[cur * 4 + pick];
        visited[cur] = 1;
        if (len == cap) {
            int64_t *p = gsp_realloc(out->path, (size_t)(cap *= 2) * sizeof *p);
            if (!p) {
                err = gsp_error(GSP_ERR_NOMEM, "out of memory");
                goto fail;
            }
            out->path = p;
        }
        out->path[len++] = cur;
    }
    out->delivered = true;
done:
    out->len = len - 1;
    gsp_free(visited);
    return GSP_OK;
fail:
    gsp_free(visited);
    gsp_route_destroy(out);
    return err;
}
