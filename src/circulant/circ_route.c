/* circ_route.c — relative addresses and routing in the optimal circulants G(N; s, s+1)
 * (Monakhova–Monakhov, Propositions 1–2 and Section 3). Prop. 2's closed form survives the
 * transcription only in part; the address is computed here from its definition instead, still in
 * O(1): a dozen candidate (u, y) pairs around K/s. */
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

gsp_caddr_t gsp_circ_address(int64_t N, int64_t s, int64_t k) {
    gsp_caddr_t best = {0, 0};
    bool have = false;
    k = ((k % N) + N) % N;
    if (k == 0) return best;
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
