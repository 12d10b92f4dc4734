/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fabric_trees.c — spanning trees that reach a fabric's throughput optimum (docs/fabrics.md,
 * "Trees that reach it"): the optimum lambda* = p/q of optimum.c scales the capacities by q and
 * gives each compute node a source arc of p (allgather; broadcast: the root one of the maximum
 * flow), fabric_split.c removes the switches, fabric_pack.c packs the trees; here the working
 * arcs become routes of fabric arcs, and the link loads are recounted from the trees alone. */
#include <string.h>

#include "analysis/analysis_int.h"
#include "gossip/fabric.h"

typedef gsp__i128 i128;

static bool compute(const gsp_topo_t *t, int64_t x) { return !t->is_switch || !t->is_switch[x]; }
static int64_t capof(const gsp_topo_t *t, int64_t a) { return t->cap ? t->cap[a] : 1; }


gsp_err_t gsp__wg_add_arc(gsp__wgraph_t *g, int64_t u, int64_t v, int64_t c, int64_t route) {
    if (g->narcs == g->arcs_room) {
        int64_t room = g->arcs_room ? 2 * g->arcs_room : 64;
        int64_t **arr[4] = {&g->tail, &g->head, &g->cap, &g->route};
        for (int i = 0; i < 4; i++) {
            int64_t *p = gsp_realloc(*arr[i], (size_t)room * sizeof **arr[i]);
            if (!p) return gsp_error(GSP_ERR_NOMEM, "fabric trees: %lld working arcs", (long long)room);
            *arr[i] = p;
        }
        g->arcs_room = room;
    }
    g->tail[g->narcs] = u;
    g->head[g->narcs] = v;
    g->cap[g->narcs] = c;
    g->route[g->narcs] = route;
    g->narcs++;
    return GSP_OK;
}

gsp_err_t gsp__wg_add_route(gsp__wgraph_t *g, int64_t a, int64_t b, int64_t *id) {
    if (g->nroutes == g->routes_room) {
        int64_t room = g->routes_room ? 2 * g->routes_room : 64;
        int64_t **arr[2] = {&g->ra, &g->rb};
        for (int i = 0; i < 2; i++) {
            int64_t *p = gsp_realloc(*arr[i], (size_t)room * sizeof **arr[i]);
            if (!p) return gsp_error(GSP_ERR_NOMEM, "fabric trees: %lld routes", (long long)room);
            *arr[i] = p;
        }
        g->routes_room = room;
    }
    g->ra[g->nroutes] = a;
    g->rb[g->nroutes] = b;
    *id = g->nroutes++;
    return GSP_OK;
}

void gsp__wg_destroy(gsp__wgraph_t *g) {
    gsp_free(g->tail);
    gsp_free(g->head);
    gsp_free(g->cap);
    gsp_free(g->route);
    gsp_free(g->ra);
    gsp_free(g->rb);
    gsp_free(g->src);
    memset(g, 0, sizeof *g);
}

/* Appends the fabric arcs of route r to hops[*len..], in the working graph's direction. The
 * explicit stack holds routes still to expand, the right one below the left. */
static gsp_err_t expand(const gsp__wgraph_t *g, int64_t r, int64_t **hops, int64_t *len, int64_t *room) {
    int64_t stack[128], sp = 0;
    stack[sp++] = r;
    while (sp > 0) {
        int64_t x = stack[--sp];
        if (g->rb[x] >= 0) {
            if (sp + 2 > 128) return gsp_error(GSP_ERR_INTERNAL, "fabric trees: a route nested more than 64 switches deep");
            stack[sp++] = g->rb[x];
            stack[sp++] = g->ra[x];
            continue;
        }
        if (*len == *room) {
            *room = *room ? 2 * *room : 256;
            int64_t *p = gsp_realloc(*hops, (size_t)*room * sizeof *p);
            if (!p) return gsp_error(GSP_ERR_NOMEM, "fabric trees: routes of %lld arcs", (long long)*room);
            *hops = p;
        }
        (*hops)[(*len)++] = g->ra[x];
    }
    return GSP_OK;
}

/* Tree T of the working graph as a gsp_tree_t: edges in T's order, routes of fabric arcs in the
 * order the data travels (reversed: the working graph runs against the fabric). */
static gsp_err_t convert(const gsp_topo_t *t, const gsp__wgraph_t *g, const gsp__wtree_t *T, bool rev, gsp_tree_t *o, int64_t *dep, int64_t *hdep) {
    gsp_err_t err;
    int64_t room = 0, len = 0, *hops = NULL;
    memset(o, 0, sizeof *o);
    o->root = T->root;
    o->mult = T->mult;
    o->nedges = T->narcs;
    if ((err = gsp_alloc_array((void **)&o->from, T->narcs + 1, sizeof *o->from, false)) ||
        (err = gsp_alloc_array((void **)&o->to, T->narcs + 1, sizeof *o->to, false)) ||
        (err = gsp_alloc_array((void **)&o->hop_off, T->narcs + 1, sizeof *o->hop_off, false)))
        goto fail;
    dep[T->root] = hdep[T->root] = 0;
    for (int64_t i = 0; i < T->narcs; i++) {
        int64_t e = T->arcs[i], u = g->tail[e], v = g->head[e], start = len;
        o->from[i] = u;
        o->to[i] = v;
        o->hop_off[i] = len;
        if ((err = expand(g, g->route[e], &hops, &len, &room))) goto fail;
        if (rev)
            for (int64_t a = start, b = len - 1; a < b; a++, b--) {
                int64_t x = hops[a];
                hops[a] = hops[b];
                hops[b] = x;
            }
        dep[v] = dep[u] + 1;
        hdep[v] = hdep[u] + (len - start);
        if (dep[v] > o->depth) o->depth = dep[v];
        if (hdep[v] > o->hop_depth) o->hop_depth = hdep[v];
    }
    o->hop_off[T->narcs] = len;
    if (!hops && (err = gsp_alloc_array((void **)&hops, 1, sizeof *hops, false))) goto fail;
    o->hops = hops;
    (void)t;
    return GSP_OK;
fail:
    gsp_free(hops);
    gsp_free(o->from);
    gsp_free(o->to);
    gsp_free(o->hop_off);
    memset(o, 0, sizeof *o);
    return err;
}

gsp_err_t gsp_fabric_trees(const gsp_topo_t *t, gsp_collective_t c, int64_t root, gsp_forest_t *out) {
    return gsp__fabric_trees(t, c, root, true, out);
}

gsp_err_t gsp__fabric_trees(const gsp_topo_t *t, gsp_collective_t c, int64_t root, bool trade, gsp_forest_t *out) {
    gsp_err_t err;
    gsp_optimum_t opt = {0};
    gsp__wgraph_t g = {0};
    gsp__wtree_t *wt = NULL;
    int64_t nwt = 0, *dep = NULL, *hdep = NULL, n = t->n, N = gsp_topo_compute_count(t);
    int64_t scale = t->cap_scale > 0 ? t->cap_scale : 1;
    memset(out, 0, sizeof *out);
    out->collective = c;
    out->root = -1;
    if (c != GSP_COLL_ALLGATHER && c != GSP_COLL_REDUCE_SCATTER && c != GSP_COLL_BROADCAST)
        return gsp_error(GSP_ERR_NOTAPPLIC, "fabric trees: %s is planned as trees for allgather, reduce-scatter and broadcast (allreduce: the "
                                            "first two)", gsp_collective_name(c));
    if ((err = gsp_optimum(t, c, root, &opt))) return err;
    out->flows = opt.flows;
    if (!opt.defined || opt.num == 0) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: %s", t->spec, !opt.defined ? "fewer than two compute nodes: nothing to plan" :
                                                                              "some compute node cannot be reached: no schedule exists");
        goto done;
    }
    /* Boxes of GPUs on a switch with a NIC each: two-level trees (a broadcast's across three
     * boxes or more: two network hops deep; fabric_boxes.c), kept when
     * their recounted loads reach the optimum exactly. */
    {
        bool ok = false;
        gsp_forest_t bx;
        if ((err = gsp__forest_boxes(t, c, root, &bx, &ok))) goto done;
        if (ok && bx.num == opt.num && bx.den == opt.den) {
            bx.flows = opt.flows;
            *out = bx;
            goto done;
        }
        if (ok) gsp_forest_destroy(&bx);
    }
    bool rev = c == GSP_COLL_REDUCE_SCATTER;
    out->reversed = rev;
    /* lambda* in integer capacities: algbw = N p / (q scale), so p / q = num scale / (den N);
     * broadcast: the flow B = num scale / den, an integer. */
    i128 p, q;
    if (c == GSP_COLL_BROADCAST) {
        out->root = root;
        p = (i128)opt.num * scale;
        if (p % opt.den) {
            err = gsp_error(GSP_ERR_INTERNAL, "fabric trees: a broadcast flow that is not an integer");
            goto done;
        }
        p /= opt.den;
        q = 1;
    } else {
        p = (i128)opt.num * scale;
        q = (i128)opt.den * N;
        i128 gg = gsp__gcd128(p, q);
        p /= gg;
        q /= gg;
    }
    i128 sum = 0;
    for (int64_t a = 0; a < t->m; a++) sum += (i128)capof(t, a);
    if (sum * q * 4 * (N + 1) >= ((i128)1 << 62) || p * (N + 1) * 4 >= ((i128)1 << 62)) {
        err = gsp_error(GSP_ERR_OVERFLOW, "%s: the capacities scaled by the optimum's denominator %lld leave 62 bits", t->spec, (long long)q);
        goto done;
    }
    out->share = (int64_t)p;
    out->cap_factor = (int64_t)q;
    g.n = n;
    g.is_switch = t->is_switch;
    if ((err = gsp_alloc_array((void **)&g.src, n + 1, sizeof *g.src, true))) goto done;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            int64_t r, y = t->adj[a];
            if ((err = gsp__wg_add_route(&g, a, -1, &r)) || (err = gsp__wg_add_arc(&g, rev ? y : x, rev ? x : y, (int64_t)(capof(t, a) * q), r)))
                goto done;
        }
    if (c == GSP_COLL_BROADCAST) {
        g.src[root] = (int64_t)p;
        g.kreq = (int64_t)p;
    } else {
        for (int64_t x = 0; x < n; x++)
            if (compute(t, x)) g.src[x] = (int64_t)p;
        g.kreq = (int64_t)(p * N);
    }
    if ((err = gsp__fabric_split(&g)) || (err = gsp__fabric_pack(&g, &wt, &nwt))) goto flows;
    if ((err = gsp_alloc_array((void **)&out->trees, nwt + 1, sizeof *out->trees, true)) || (err = gsp_alloc_array((void **)&dep, n, sizeof *dep, false)) ||
        (err = gsp_alloc_array((void **)&hdep, n, sizeof *hdep, false)))
        goto flows;
    for (int64_t i = 0; i < nwt; i++) {
        if ((err = convert(t, &g, &wt[i], rev, &out->trees[i], dep, hdep))) goto flows;
        out->ntrees++;
        if (out->trees[i].depth > out->depth) out->depth = out->trees[i].depth;
        if (out->trees[i].hop_depth > out->hop_depth) out->hop_depth = out->trees[i].hop_depth;
    }
    if ((err = gsp__forest_shallow(t, out)) || (trade && (err = gsp__forest_swap(t, out))) || (err = gsp_forest_algbw(t, out, &out->num, &out->den)))
        goto flows;
    out->value = (double)out->num / (double)out->den;
    if (out->num != opt.num || out->den != opt.den)
        err = gsp_error(GSP_ERR_INTERNAL, "fabric trees: the trees reach %lld/%lld, the optimum is %lld/%lld", (long long)out->num,
                        (long long)out->den, (long long)opt.num, (long long)opt.den);
flows:
    out->flows += g.flows;
done:
    for (int64_t i = 0; i < nwt; i++) gsp_free(wt[i].arcs);
    gsp_free(wt);
    gsp_free(dep);
    gsp_free(hdep);
    gsp__wg_destroy(&g);
    gsp_optimum_destroy(&opt);
    if (err) gsp_forest_destroy(out);
    return err;
}

gsp_err_t gsp__forest_fit(const gsp_topo_t *t, gsp_forest_t *f) {
    i128 *load = NULL;
    gsp_err_t err = gsp_alloc_array((void **)&load, t->m + 1, sizeof *load, true);
    if (err) return err;
    for (int64_t i = 0; i < f->ntrees; i++)
        for (int64_t h = 0; h < f->trees[i].hop_off[f->trees[i].nedges]; h++) load[f->trees[i].hops[h]] += f->trees[i].mult;
    i128 q = 1;
    for (int64_t a = 0; a < t->m; a++) {
        int64_t c = t->cap ? t->cap[a] : 1;
        if ((load[a] + c - 1) / c > q) q = (load[a] + c - 1) / c;
    }
    gsp_free(load);
    if (q >= ((i128)1 << 62)) return gsp_error(GSP_ERR_OVERFLOW, "fabric trees: loads beyond 62 bits");
    f->cap_factor = (int64_t)q;
    return GSP_OK;
}

gsp_err_t gsp_forest_algbw(const gsp_topo_t *t, const gsp_forest_t *f, int64_t *num, int64_t *den) {
    gsp_err_t err;
    int64_t n = t->n, N = gsp_topo_compute_count(t), *tailof = NULL;
    i128 *load = NULL;
    uint8_t *seen = NULL;
    if ((err = gsp_alloc_array((void **)&load, t->m + 1, sizeof *load, true)) || (err = gsp_alloc_array((void **)&seen, n + 1, 1, false)) ||
        (err = gsp_alloc_array((void **)&tailof, t->m + 1, sizeof *tailof, false)))
        goto done;
    for (int64_t x = 0; x < n; x++)
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) tailof[a] = x;
    for (int64_t i = 0; i < f->ntrees; i++) {
        const gsp_tree_t *T = &f->trees[i];
        if (T->root < 0 || T->root >= n || !compute(t, T->root) || T->mult < 1 || T->nedges != N - 1) {
            err = gsp_error(GSP_ERR_INTERNAL, "tree %lld: bad root, multiplicity or edge count", (long long)i);
            goto done;
        }
        memset(seen, 0, (size_t)n);
        seen[T->root] = 1;
        for (int64_t e = 0; e < T->nedges; e++) {
            int64_t u = T->from[e], v = T->to[e];
            if (u < 0 || u >= n || v < 0 || v >= n || !seen[u] || seen[v] || !compute(t, v)) {
                err = gsp_error(GSP_ERR_INTERNAL, "tree %lld, edge %lld: not a new compute node below a reached one", (long long)i, (long long)e);
                goto done;
            }
            seen[v] = 1;
            /* The data travels from u to v (reversed: from v to u) along the hops. */
            int64_t at = f->reversed ? v : u, end = f->reversed ? u : v;
            for (int64_t h = T->hop_off[e]; h < T->hop_off[e + 1]; h++) {
                int64_t a = T->hops[h];
                if (a < 0 || a >= t->m || tailof[a] != at || (h > T->hop_off[e] && compute(t, at))) {
                    err = gsp_error(GSP_ERR_INTERNAL, "tree %lld, edge %lld: the route breaks at hop %lld", (long long)i, (long long)e,
                                    (long long)(h - T->hop_off[e]));
                    goto done;
                }
                load[a] += T->mult;
                at = t->adj[a];
            }
            if (at != end || T->hop_off[e + 1] == T->hop_off[e]) {
                err = gsp_error(GSP_ERR_INTERNAL, "tree %lld, edge %lld: the route does not end at its compute node", (long long)i, (long long)e);
                goto done;
            }
        }
    }
    /* algbw = (N share | share) min over loaded arcs of cap / L, over the capacity scale. */
    i128 bn = 0, bd = 0;
    for (int64_t a = 0; a < t->m; a++)
        if (load[a] > 0 && (bd == 0 || (i128)capof(t, a) * bd < bn * load[a])) bn = capof(t, a), bd = load[a];
    if (bd == 0) {
        err = gsp_error(GSP_ERR_INTERNAL, "trees that load no arc");
        goto done;
    }
    i128 rn = bn * f->share * (f->collective == GSP_COLL_BROADCAST ? 1 : N), rd = bd * (t->cap_scale > 0 ? t->cap_scale : 1);
    i128 g = gsp__gcd128(rn, rd);
    rn /= g;
    rd /= g;
    if (rn > INT64_MAX || rd > INT64_MAX) {
        err = gsp_error(GSP_ERR_OVERFLOW, "the trees' algbw does not fit 64 bits");
        goto done;
    }
    *num = (int64_t)rn;
    *den = (int64_t)rd;
done:
    gsp_free(load);
    gsp_free(seen);
    gsp_free(tailof);
    return err;
}

void gsp__trees_destroy(gsp_tree_t *trees, int64_t n) {
    for (int64_t i = 0; trees && i < n; i++) {
        gsp_free(trees[i].from);
        gsp_free(trees[i].to);
        gsp_free(trees[i].hop_off);
        gsp_free(trees[i].hops);
    }
    gsp_free(trees);
}

void gsp_forest_destroy(gsp_forest_t *f) {
    if (!f) return;
    gsp__trees_destroy(f->trees, f->ntrees);
    f->trees = NULL;
    f->ntrees = 0;
}
