/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_pack.c — spanning arborescences packed into a compute-only working graph (after
 * fabric_split.c): Edmonds' theorem (1973) by Lovasz's proof (1976), with multiplicities.
 * The source s has an arc of src[c] to each compute node c and every compute node has
 * connectivity kreq = sum src from s. A tree T from s (through one arc s -> c) is grown one arc
 * x -> y at a time with a multiplicity mu, keeping the invariant
 *
 *     every X that holds a compute node has rho_{D - mu T}(X) >= kreq - mu,
 *
 * so that once T spans, D - mu T with kreq - mu is the same problem again. Lowering mu keeps
 * the invariant (a set T enters gains at least what the right side gains; one it does not
 * enter had rho_D >= kreq), and adding x -> y at mu keeps it exactly when every X that holds y
 * but not x (nor s) has rho_{D - mu T}(X) >= kreq: one maximum flow from {s, x} to y. When that
 * flow falls short, its cut X bounds mu by (rho_D(X) - kreq) / e_T(X), e_T(X) the arcs of T
 * entering X: Newton's step, repeated until the flow passes (the largest mu) or mu < 1 (the
 * arc is refused now). Lovasz shows some arc passes at mu = 1, so every tree completes.
 *
 * Trees grow breadth first from their root, every arc out of a vertex tried before the next
 * vertex's: shallow trees, deeper only where a direct arc would break the invariant. */
#include <string.h>

#include "analysis/analysis_int.h"

#define INF ((int64_t)1 << 62)

static bool is_compute(const gsp__wgraph_t *g, int64_t x) { return !g->is_switch || !g->is_switch[x]; }

gsp_err_t gsp__fabric_pack(gsp__wgraph_t *g, gsp__wtree_t **trees_out, int64_t *ntrees_out) {
    gsp_err_t err;
    int64_t n = g->n, s = n, N = 0;
    gsp__flow_t f = {0};
    int64_t *fid = NULL, *sid = NULL, *mid = NULL, *off = NULL, *adj = NULL, *queue = NULL, *tarc = NULL, *cut = NULL;
    uint8_t *in = NULL, *side = NULL;
    gsp__wtree_t *trees = NULL;
    int64_t ntrees = 0, room = 0;
    for (int64_t x = 0; x < n; x++) N += is_compute(g, x);
    if ((err = gsp_alloc_array((void **)&fid, g->narcs + 1, sizeof *fid, false)) || (err = gsp_alloc_array((void **)&sid, n, sizeof *sid, false)) ||
        (err = gsp_alloc_array((void **)&mid, n, sizeof *mid, false)) || (err = gsp_alloc_array((void **)&off, n + 2, sizeof *off, true)) ||
        (err = gsp_alloc_array((void **)&adj, g->narcs + 1, sizeof *adj, false)) || (err = gsp_alloc_array((void **)&queue, n + 1, sizeof *queue, false)) ||
        (err = gsp_alloc_array((void **)&tarc, n + 1, sizeof *tarc, false)) || (err = gsp_alloc_array((void **)&cut, n + 1, sizeof *cut, false)) ||
        (err = gsp_alloc_array((void **)&in, n + 1, 1, true)) || (err = gsp_alloc_array((void **)&side, n + 2, 1, false)))
        goto fail;
    /* The live arcs by tail (CSR), and the flow network: those arcs, the source's, and an arc
     * s -> x of capacity 0 for each x that a check merges into the source. */
    int64_t live = 0;
    for (int64_t e = 0; e < g->narcs; e++)
        if (g->cap[e] > 0) off[g->tail[e] + 2]++, live++;
    for (int64_t x = 0; x < n; x++) off[x + 2] += off[x + 1];
    for (int64_t e = 0; e < g->narcs; e++)
        if (g->cap[e] > 0) adj[off[g->tail[e] + 1]++] = e;
    if ((err = gsp__flow_init(&f, n + 1, live + 2 * n))) goto fail;
    for (int64_t e = 0; e < g->narcs; e++) {
        fid[e] = -1;
        if (g->cap[e] > 0 && (err = gsp__flow_add(&f, g->tail[e], g->head[e], g->cap[e], 0, &fid[e]))) goto fail;
    }
    for (int64_t x = 0; x < n; x++) {
        sid[x] = -1;
        if (is_compute(g, x) && (err = gsp__flow_add(&f, s, x, g->src[x], 0, &sid[x]))) goto fail;
        if ((err = gsp__flow_add(&f, s, x, 0, 0, &mid[x]))) goto fail;
    }
    if ((err = gsp__flow_seal(&f))) goto fail;

    int64_t next_root = 0;
    while (g->kreq > 0) {
        int64_t c = -1;
        for (int64_t i = 0; i < n && c < 0; i++) {
            int64_t x = (next_root + i) % n;
            if (is_compute(g, x) && g->src[x] > 0) c = x;
        }
        if (c < 0) {
            err = gsp_error(GSP_ERR_INTERNAL, "fabric trees: requirement %lld left with no source arc", (long long)g->kreq);
            goto fail;
        }
        next_root = c + 1;
        int64_t mu = g->src[c], nt = 0, head = 0, tail = 0, count = 1;
        memset(in, 0, (size_t)n);
        in[c] = 1;
        queue[tail++] = c;
        bool progress = true;
        while (count < N && progress) {
            progress = false;
            /* Breadth first; a sweep that adds nothing ends the tree in error, but an arc
             * refused at a larger mu may pass at a smaller one, so sweep again after any add. */
            for (head = 0; head < tail && count < N; head++) {
                int64_t x = queue[head];
                for (int64_t k = off[x]; k < off[x + 1] && count < N; k++) {
                    int64_t e = adj[k], y = g->head[e];
                    if (in[y] || g->cap[e] <= 0) continue;
                    int64_t m = mu < g->cap[e] ? mu : g->cap[e];
                    gsp__flow_set_cap(&f, mid[x], INF);
                    for (;;) {
                        /* D - m T: the tree's arcs and its source arc lose m. */
                        for (int64_t i = 0; i < nt; i++) gsp__flow_set_cap(&f, fid[tarc[i]], g->cap[tarc[i]] - m);
                        gsp__flow_set_cap(&f, sid[c], g->src[c] - m);
                        int64_t got = gsp__flow_max(&f, s, y, g->kreq);
                        g->flows++;
                        if (got >= g->kreq) break;
                        /* X = the sink side; rho_D(X) = got + m e_T(X). */
                        gsp__flow_source_side(&f, s, side);
                        int64_t eT = !side[c];
                        for (int64_t i = 0; i < nt; i++) eT += side[g->tail[tarc[i]]] && !side[g->head[tarc[i]]];
                        int64_t next = eT ? (got + m * eT - g->kreq) / eT : -1;
                        if (next >= m) {
                            err = gsp_error(GSP_ERR_INTERNAL, "fabric trees: Newton step did not lower the multiplicity");
                            goto fail;
                        }
                        m = next;
                        if (m < 1) break;
                    }
                    gsp__flow_set_cap(&f, mid[x], 0);
                    for (int64_t i = 0; i < nt; i++) gsp__flow_set_cap(&f, fid[tarc[i]], g->cap[tarc[i]]);
                    gsp__flow_set_cap(&f, sid[c], g->src[c]);
                    if (m < 1) continue;
                    mu = m;
                    tarc[nt++] = e;
                    in[y] = 1;
                    queue[tail++] = y;
                    count++;
                    progress = true;
                }
            }
        }
        if (count < N) {
            err = gsp_error(GSP_ERR_INTERNAL, "fabric trees: a tree from vertex %lld stopped at %lld of %lld compute nodes", (long long)c,
                            (long long)count, (long long)N);
            goto fail;
        }
        /* Take the tree out of D. */
        for (int64_t i = 0; i < nt; i++) {
            g->cap[tarc[i]] -= mu;
            gsp__flow_set_cap(&f, fid[tarc[i]], g->cap[tarc[i]]);
        }
        g->src[c] -= mu;
        gsp__flow_set_cap(&f, sid[c], g->src[c]);
        g->kreq -= mu;
        if (ntrees == room) {
            room = room ? 2 * room : 64;
            gsp__wtree_t *nt2 = gsp_realloc(trees, (size_t)room * sizeof *trees);
            if (!nt2) {
                err = gsp_error(GSP_ERR_NOMEM, "fabric trees: %lld trees", (long long)room);
                goto fail;
            }
            trees = nt2;
        }
        gsp__wtree_t *T = &trees[ntrees];
        memset(T, 0, sizeof *T);
        if ((err = gsp_alloc_array((void **)&T->arcs, nt + 1, sizeof *T->arcs, false))) goto fail;
        ntrees++;
        T->root = c;
        T->mult = mu;
        T->narcs = nt;
        memcpy(T->arcs, tarc, (size_t)nt * sizeof *tarc);
    }
    *trees_out = trees;
    *ntrees_out = ntrees;
    trees = NULL;
    ntrees = 0;
fail:
    for (int64_t i = 0; i < ntrees; i++) gsp_free(trees[i].arcs);
    gsp_free(trees);
    gsp__flow_destroy(&f);
    gsp_free(fid);
    gsp_free(sid);
    gsp_free(mid);
    gsp_free(off);
    gsp_free(adj);
    gsp_free(queue);
    gsp_free(tarc);
    gsp_free(cut);
    gsp_free(in);
    gsp_free(side);
    return err;
}
