/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vertex_transitive.c — is every node alike? Known for Cayley graphs; refuted by unequal
 * degrees; otherwise nauty computes the orbits of the automorphism group and one orbit means
 * yes. nauty is not reentrant across threads without TLS; Debian builds it with TLS. */
#include <string.h>

#include "nauty_int.h"

static bool product_vt(const gsp_topo_t *t) {
    if (t->group) return true;
    if (t->fa && t->fb) {
        gsp_vt_t a, b;
        if (gsp_vertex_transitive(t->fa, &a) || gsp_vertex_transitive(t->fb, &b)) return false;
        return gsp_vt_yes(a) && gsp_vt_yes(b);
    }
    return false;
}

/* Whether the numbers of nodes at each distance, seen from a few nodes spread over the index
 * range, differ: then no automorphism maps one of them to another. In a vertex-transitive
 * graph every node sees the same counts, so this only ever refutes. *differ [out]. */
static gsp_err_t profiles_differ(const gsp_topo_t *t, bool *differ) {
    enum { SOURCES = 4 };
    gsp_err_t err;
    int64_t n = t->n, *queue = NULL, *first = NULL, *cnt = NULL;
    int32_t *dist = NULL;
    *differ = false;
    if ((err = gsp_alloc_array((void **)&dist, n, sizeof *dist, false)) ||
        (err = gsp_alloc_array((void **)&queue, n, sizeof *queue, false)) ||
        (err = gsp_alloc_array((void **)&first, n + 1, sizeof *first, true)) ||
        (err = gsp_alloc_array((void **)&cnt, n + 1, sizeof *cnt, true)))
        goto done;
    for (int s = 0; s < SOURCES && !*differ; s++) {
        int64_t src = (n - 1) * s / (SOURCES - 1), ecc, reached;
        if ((err = gsp_bfs(t, src, dist, queue, &ecc, &reached))) goto done;
        memset(cnt, 0, (size_t)(n + 1) * sizeof *cnt);
        cnt[n] = n - reached; /* the unreached, counted apart */
        for (int64_t x = 0; x < n; x++)
            if (dist[x] >= 0) cnt[dist[x]]++;
        if (s == 0) memcpy(first, cnt, (size_t)(n + 1) * sizeof *cnt);
        else *differ = memcmp(first, cnt, (size_t)(n + 1) * sizeof *cnt) != 0;
    }
done:
    gsp_free(dist);
    gsp_free(queue);
    gsp_free(first);
    gsp_free(cnt);
    return err;
}

gsp_err_t gsp_vertex_transitive(const gsp_topo_t *t, gsp_vt_t *out) {
    gsp_err_t err = GSP_OK;
    *out = GSP_VT_UNKNOWN;
    if (product_vt(t)) {
        *out = GSP_VT_YES_CAYLEY;
        return GSP_OK;
    }
    if (t->dmin != t->dmax || t->in_dmin != t->in_dmax) {
        *out = GSP_VT_NO_DEGREE;
        return GSP_OK;
    }
    if (t->n >= GSP_VT_PROFILE_MIN) {
        bool differ;
        if ((err = profiles_differ(t, &differ))) return err;
        if (differ) {
            *out = GSP_VT_NO_DISTANCES;
            return GSP_OK;
        }
    }
    if (t->n > GSP_NAUTY_MAX || t->m > (int64_t)1 << 31) return GSP_OK;
    if (t->n == 1) {
        *out = GSP_VT_YES_NAUTY;
        return GSP_OK;
    }

    gsp__nauty_t g;
    DEFAULTOPTIONS_SPARSEGRAPH(options);
    statsblk stats;
    options.getcanon = FALSE;
    options.digraph = t->directed ? TRUE : FALSE;
    if (!(err = gsp__nauty_init(t, &g))) {
        sparsenauty(&g.sg, g.lab, g.ptn, g.orbits, &options, &stats, NULL);
        *out = stats.numorbits == 1 ? GSP_VT_YES_NAUTY : GSP_VT_NO_NAUTY;
    }
    gsp__nauty_free(&g);
    return err;
}
