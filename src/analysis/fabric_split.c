/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_split.c — switches removed from a fabric by splitting off their arcs (Lovasz 1976,
 * Mader 1982; for the connectivity from a root: Bang-Jensen, Frank and Jackson 1995): a pair
 * u -> w, w -> v at a switch w gives up alpha of each for a new arc u -> v of alpha, the most
 * that keeps every compute node's connectivity from the source at least kreq. Where w has as
 * much capacity in as out the theorem says a complete splitting exists, and splitting any
 * admissible pair keeps that true, so the greedy below ends with no arc at w. The trees of
 * fabric_pack.c then live on compute nodes only; each arc remembers its route through w.
 *
 * How much a pair may give: the cut of a source side Z = {s} + S, cut(Z) = cap(out(S)) +
 * sum of src outside S, loses alpha exactly when u, v are in Z and w is not (type 1), or w is
 * in Z and u, v are not (type 2). Every Z that misses a compute node must keep cut(Z) >= kreq,
 * so alpha = min(cap(u,w), cap(w,v), min over those Z of cut(Z) - kreq): two minimum cuts,
 * each over the sets that miss some compute node (the sequence of cuts of Hao and Orlin when
 * the sink side holds no compute node already). */
#include <string.h>

#include "analysis/analysis_int.h"

#define INF ((int64_t)1 << 62)
#define SPREAD_PORTS 8
#define LOST_MESSAGE                                                                                                                       \
    "splitting the switches off lost capacity the optimum needs (a switch with more capacity in than out): no trees through "            \
    "switches reach the optimum this way"

static bool is_compute(const gsp__wgraph_t *g, int64_t x) { return x < g->n && (!g->is_switch || !g->is_switch[x]); }

/* The flow network of g's arcs of positive capacity, with the source's arcs, an arc s -> x
 * (mid, capacity 0 until x joins the source) and x -> z (zid, 0 until x joins the sink) for
 * every vertex: s = n, z = n + 1. fid[e] is arc e's id in it, -1 when absent. */
typedef struct {
    gsp__flow_t f;
    int64_t *fid, *mid, *zid, *sid;
    int64_t *order; /* the compute nodes */
    int64_t ncomp;
} net_t;

static void net_free(net_t *nt) {
    gsp__flow_destroy(&nt->f);
    gsp_free(nt->fid);
    gsp_free(nt->mid);
    gsp_free(nt->zid);
    gsp_free(nt->sid);
    gsp_free(nt->order);
    memset(nt, 0, sizeof *nt);
}

static gsp_err_t net_build(const gsp__wgraph_t *g, net_t *nt) {
    gsp_err_t err;
    int64_t n = g->n, live = 0;
    gsp__flow_destroy(&nt->f);
    gsp_free(nt->fid);
    nt->fid = NULL;
    for (int64_t e = 0; e < g->narcs; e++) live += g->cap[e] > 0;
    if ((err = gsp_alloc_array((void **)&nt->fid, g->narcs + 1, sizeof *nt->fid, false)) || (err = gsp__flow_init(&nt->f, n + 2, live + 3 * n)))
        return err;
    if (!nt->mid) {
        if ((err = gsp_alloc_array((void **)&nt->mid, n, sizeof *nt->mid, false)) || (err = gsp_alloc_array((void **)&nt->zid, n, sizeof *nt->zid, false)) ||
            (err = gsp_alloc_array((void **)&nt->sid, n, sizeof *nt->sid, false)) || (err = gsp_alloc_array((void **)&nt->order, n + 1, sizeof *nt->order, false)))
            return err;
        nt->ncomp = 0;
        for (int64_t x = 0; x < n; x++)
            if (is_compute(g, x)) nt->order[nt->ncomp++] = x;
    }
    for (int64_t e = 0; e < g->narcs; e++) {
        nt->fid[e] = -1;
        if (g->cap[e] > 0 && (err = gsp__flow_add(&nt->f, g->tail[e], g->head[e], g->cap[e], 0, &nt->fid[e]))) return err;
    }
    for (int64_t x = 0; x < n; x++) {
        nt->sid[x] = -1;
        if (g->src[x] > 0 && (err = gsp__flow_add(&nt->f, n, x, g->src[x], 0, &nt->sid[x]))) return err;
        if ((err = gsp__flow_add(&nt->f, n, x, 0, 0, &nt->mid[x])) || (err = gsp__flow_add(&nt->f, x, n + 1, 0, 0, &nt->zid[x]))) return err;
    }
    return gsp__flow_seal(&nt->f);
}

/* min cut(Z) over Z holding s and A[0..na), none of B[0..nb) and not every compute node; at
 * most limit (the value is only needed below it). */
static int64_t min_cut(gsp__wgraph_t *g, net_t *nt, const int64_t *A, int na, const int64_t *B, int nb, int64_t limit) {
    int64_t n = g->n, s = n, z = n + 1, best = limit;
    bool sink_compute = false;
    for (int i = 0; i < na; i++) gsp__flow_set_cap(&nt->f, nt->mid[A[i]], INF);
    for (int i = 0; i < nb; i++) {
        gsp__flow_set_cap(&nt->f, nt->zid[B[i]], INF);
        sink_compute |= is_compute(g, B[i]);
    }
    /* Without "misses a compute node" the minimum is one flow, and a lower bound: when it
     * reaches the limit the sequence is not needed (a switch's whole in-capacity, the usual
     * minimum here, is far above what the compute nodes need). */
    best = gsp__flow_max(&nt->f, s, z, limit);
    g->flows++;
    if (!sink_compute && best < limit) {
        best = limit;
        /* The first compute node each Z misses, in a fixed order: compute nodes before it are
         * merged into the source. */
        int64_t merged = 0;
        for (int64_t i = 0; i < nt->ncomp && best > 0; i++) {
            int64_t t = nt->order[i];
            bool inA = false;
            for (int j = 0; j < na; j++) inA |= A[j] == t;
            if (inA) continue;
            gsp__flow_set_cap(&nt->f, nt->zid[t], INF);
            int64_t v = gsp__flow_max(&nt->f, s, z, best);
            g->flows++;
            if (v < best) best = v;
            gsp__flow_set_cap(&nt->f, nt->zid[t], 0);
            gsp__flow_set_cap(&nt->f, nt->mid[t], INF);
            merged = i + 1;
        }
        for (int64_t i = 0; i < merged; i++) gsp__flow_set_cap(&nt->f, nt->mid[nt->order[i]], 0);
    }
    for (int i = 0; i < na; i++) gsp__flow_set_cap(&nt->f, nt->mid[A[i]], 0);
    for (int i = 0; i < nb; i++) gsp__flow_set_cap(&nt->f, nt->zid[B[i]], 0);
    return best;
}

/* The most the pair a = u -> w, b = w -> v may give up, at most `most`. */
static int64_t max_split(gsp__wgraph_t *g, net_t *nt, int64_t a, int64_t b, int64_t most) {
    int64_t u = g->tail[a], w = g->head[a], v = g->head[b];
    int64_t lim = g->cap[a] < g->cap[b] ? g->cap[a] : g->cap[b];
    if (most < lim) lim = most;
    int64_t uv[2] = {u, v}, ww[1] = {w};
    int64_t c2 = min_cut(g, nt, ww, 1, uv, 2, g->kreq + lim) - g->kreq;
    if (c2 < lim) lim = c2;
    if (lim <= 0) return lim;
    int64_t c1 = min_cut(g, nt, uv, 2, ww, 1, g->kreq + lim) - g->kreq;
    return c1 < lim ? c1 : lim;
}

gsp_err_t gsp__fabric_split(gsp__wgraph_t *g) {
    gsp_err_t err = GSP_OK;
    net_t nt = {0};
    int64_t *in = NULL, *out = NULL;
    int64_t n = g->n;
    bool lost = false;
    if ((err = net_build(g, &nt))) goto done;
    if (!g->is_switch) goto check;
    for (int64_t w = 0; w < n; w++) {
        if (!g->is_switch[w]) continue;
        int64_t nin = 0, nout = 0;
        gsp_free(in);
        gsp_free(out);
        in = out = NULL;
        if ((err = gsp_alloc_array((void **)&in, g->narcs + 1, sizeof *in, false)) || (err = gsp_alloc_array((void **)&out, g->narcs + 1, sizeof *out, false)))
            goto done;
        for (int64_t e = 0; e < g->narcs; e++) {
            if (g->cap[e] <= 0) continue;
            if (g->head[e] == w) in[nin++] = e;
            if (g->tail[e] == w) out[nout++] = e;
        }
        bool stale = true; /* the network lacks arcs split off since it was built */
        if ((err = net_build(g, &nt))) goto done;
        stale = false;
        /* Two passes: the first gives each pair at most an even share of the in-arc, so that
         * an NVSwitch becomes a complete graph of its GPUs (trees of depth 1) rather than a
         * ring (depth 7); the second splits whatever is left. Only on a switch of few ports:
         * a network switch of 128 would become 16256 thin arcs, and the packing many trees. */
        for (int pass = nin > SPREAD_PORTS || nout > SPREAD_PORTS; pass < 2; pass++)
        for (int64_t i = 0; i < nin; i++) {
            int64_t a = in[i], share = g->cap[a];
            if (pass == 0) {
                int64_t partners = 0;
                for (int64_t j = 0; j < nout; j++) partners += g->head[out[j]] != g->tail[a];
                share = partners ? (g->cap[a] + partners - 1) / partners : g->cap[a];
            }
            /* Start each in-arc's search at a different out-arc, so that the splits spread
             * over the partners instead of all pairing with the first. */
            for (int64_t j = 0; j < nout && g->cap[a] > 0; j++) {
                int64_t b = out[(i + 1 + j) % nout];
                if (g->cap[b] <= 0 || g->head[b] == g->tail[a]) continue;
                if (stale) {
                    if ((err = net_build(g, &nt))) goto done;
                    stale = false;
                }
                int64_t alpha = max_split(g, &nt, a, b, share);
                if (alpha < 0) {
                    err = lost ? gsp_error(GSP_ERR_NOTAPPLIC, LOST_MESSAGE) : gsp_error(GSP_ERR_INTERNAL, "fabric split: a cut below the requirement before splitting");
                    goto done;
                }
                if (alpha == 0) continue;
                int64_t r;
                if ((err = gsp__wg_add_route(g, g->route[a], g->route[b], &r)) || (err = gsp__wg_add_arc(g, g->tail[a], g->head[b], alpha, r))) goto done;
                g->cap[a] -= alpha;
                g->cap[b] -= alpha;
                stale = true;
            }
        }
        /* What is left at w goes unused. Out-arcs left over cost nothing (no flow can enter w
         * any more); in-arcs left over (a switch with more in than out, or a splitting that
         * stopped short) may cost connectivity: then the final check decides. */
        for (int64_t e = 0; e < g->narcs; e++) {
            if (g->head[e] == w && g->cap[e] > 0) lost = true;
            if (g->head[e] == w || g->tail[e] == w) g->cap[e] = 0;
        }
    }
check:
    /* Whatever the splitting did, the trees need every compute node at kreq: one pass of the
     * sequence of cuts over the compute-only graph says whether it holds. */
    if ((err = net_build(g, &nt))) goto done;
    if (min_cut(g, &nt, NULL, 0, NULL, 0, g->kreq) < g->kreq) err = gsp_error(GSP_ERR_NOTAPPLIC, LOST_MESSAGE);
done:
    net_free(&nt);
    gsp_free(in);
    gsp_free(out);
    return err;
}
