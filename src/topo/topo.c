/* SPDX-License-Identifier: GPL-3.0-or-later */
/* topo.c — building arc tables: Cayley graphs from a group and generators, Cartesian
 * products, and graphs from edge lists. The spec parser (spec.c) only calls these. */
#include <stdlib.h>
#include <string.h>

#include "gossip/topo.h"
#include "topo/topo_int.h"

void gsp_topo_destroy(gsp_topo_t *t) {
    if (!t) return;
    gsp_free(t->off);
    gsp_free(t->adj);
    gsp_free(t->spec);
    gsp_free(t->gens);
    gsp_group_free(t->group);
    if (t->names) {
        for (int64_t x = 0; x < t->n; x++) gsp_free(t->names[x]);
        gsp_free(t->names);
    }
    gsp_free(t->cap);
    gsp_free(t->is_switch);
    if (t->fa) {
        gsp_topo_destroy(t->fa);
        gsp_free(t->fa);
    }
    if (t->fb) {
        gsp_topo_destroy(t->fb);
        gsp_free(t->fb);
    }
    memset(t, 0, sizeof *t);
}

/* Dry runs (gsp__topo_spec_size): check_size records the size of the graph the spec would
 * build and stops the build there, before anything large is allocated. */
static _Thread_local struct {
    bool on, hit;
    int64_t n, m;
} dry;

/* Bytes to plan for an n-node, m-arc graph: the arc table, and per node the arrays the work on
 * it takes (degrees, distances, a BFS queue, a schedule's per-node state). */
static double need_bytes(int64_t n, int64_t m) { return 8.0 * (double)(n + 1) + 8.0 * (double)m + 40.0 * (double)n; }

/* Checks that an n-node, m-arc table fits the limits, with a message naming the spec. */
static gsp_err_t check_size(const char *spec, int64_t n, int64_t per_node) {
    int64_t m;
    if (!gsp_mul_ok(n, per_node, &m))
        return gsp_error(GSP_ERR_OVERFLOW, "%s: %lld nodes of degree %lld: arc count overflows",
                         spec, (long long)n, (long long)per_node);
    if (m > GSP_MAX_ARCS || n > GSP_MAX_ARCS)
        return gsp_error(GSP_ERR_TOOBIG,
                         "%s: %lld nodes and %lld arcs need %.1f GB; the limit is %lld arcs",
                         spec, (long long)n, (long long)m, (double)(m + n) * 8 / 1e9,
                         (long long)GSP_MAX_ARCS);
    double need = need_bytes(n, m), limit = (double)gsp_memory_limit();
    if (need > limit)
        return gsp_error(GSP_ERR_TOOBIG, "%s: %lld nodes and %lld arcs need about %.1f GB, above the memory limit of %.1f GB (GOSSIP_MEMORY_LIMIT)",
                         spec, (long long)n, (long long)m, need / 1e9, limit / 1e9);
    if (dry.on) {
        dry.hit = true;
        dry.n = n;
        dry.m = m;
        return gsp_error(GSP_ERR_NOTAPPLIC, "%s: dry run", spec);
    }
    return GSP_OK;
}

/* The limits for an n-node graph of m arcs in all (products: the degree need not divide). */
gsp_err_t gsp__topo_check_size(const char *spec, int64_t n, int64_t m) { return check_size(spec, n, n ? (m + n - 1) / n : 1); }

gsp_err_t gsp__topo_spec_size(const char *spec, int64_t *n, int64_t *m) {
    gsp_topo_t tmp;
    bool was = dry.on;
    dry.on = true;
    dry.hit = false;
    gsp_err_t err = gsp_topo_from_spec(&tmp, spec);
    bool hit = dry.hit;
    dry.on = was;
    dry.hit = false;
    if (hit) {
        *n = dry.n;
        *m = dry.m;
        return GSP_OK;
    }
    if (err) return err;
    *n = tmp.n;
    *m = tmp.m;
    gsp_topo_destroy(&tmp);
    return GSP_OK;
}

/* Fills degree ranges and the directed flag from the arc table. */
static gsp_err_t finish(gsp_topo_t *t) {
    int64_t *indeg = NULL;
    gsp_err_t err = gsp_alloc_array((void **)&indeg, t->n, sizeof *indeg, true);
    if (err) return err;
    t->dmin = t->n ? INT64_MAX : 0;
    t->dmax = 0;
    for (int64_t x = 0; x < t->n; x++) {
        int64_t d = t->off[x + 1] - t->off[x];
        if (d < t->dmin) t->dmin = d;
        if (d > t->dmax) t->dmax = d;
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) indeg[t->adj[a]]++;
    }
    t->in_dmin = t->n ? INT64_MAX : 0;
    t->in_dmax = 0;
    for (int64_t x = 0; x < t->n; x++) {
        if (indeg[x] < t->in_dmin) t->in_dmin = indeg[x];
        if (indeg[x] > t->in_dmax) t->in_dmax = indeg[x];
    }
    gsp_free(indeg);
    /* A Cayley graph with inverse-closed generators is symmetric by construction; other
     * graphs are checked arc by arc. */
    t->directed = false;
    if (!t->group) {
        /* Symmetric when every node's out-neighbours and in-neighbours are the same multiset:
         * counted per node with the in-arcs (linear; a lookup per arc would be quadratic in a
         * hub's degree). */
        int64_t n = t->n, *ioff = NULL, *iadj = NULL, *cnt = NULL;
        gsp_err_t e2;
        if ((e2 = gsp_alloc_array((void **)&ioff, n + 1, sizeof *ioff, true)) ||
            (e2 = gsp_alloc_array((void **)&iadj, t->m + 1, sizeof *iadj, false)) ||
            (e2 = gsp_alloc_array((void **)&cnt, n, sizeof *cnt, true))) {
            gsp_free(ioff);
            gsp_free(iadj);
            return e2;
        }
        for (int64_t a = 0; a < t->m; a++) ioff[t->adj[a] + 1]++;
        for (int64_t x = 0; x < n; x++) ioff[x + 1] += ioff[x];
        for (int64_t x = 0; x < n; x++)
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) iadj[ioff[t->adj[a]]++] = x;
        for (int64_t x = n; x > 0; x--) ioff[x] = ioff[x - 1];
        ioff[0] = 0;
        for (int64_t x = 0; x < n && !t->directed; x++) {
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) cnt[t->adj[a]]++;
            for (int64_t b = ioff[x]; b < ioff[x + 1]; b++) cnt[iadj[b]]--;
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) t->directed |= cnt[t->adj[a]] != 0;
            for (int64_t b = ioff[x]; b < ioff[x + 1]; b++) t->directed |= cnt[iadj[b]] != 0;
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) cnt[t->adj[a]] = 0;
            for (int64_t b = ioff[x]; b < ioff[x + 1]; b++) cnt[iadj[b]] = 0;
        }
        gsp_free(ioff);
        gsp_free(iadj);
        gsp_free(cnt);
    } else {
        for (int i = 0; i < t->ngens; i++)
            if (gsp_topo_gen_inverse(t, i) < 0) t->directed = true;
    }
    return GSP_OK;
}

int64_t gsp_topo_arc_index(const gsp_topo_t *t, int64_t x, int64_t y) {
    for (int64_t a = t->off[x]; a < t->off[x + 1]; a++)
        if (t->adj[a] == y) return a - t->off[x];
    return -1;
}

int gsp_topo_gen_inverse(const gsp_topo_t *t, int i) {
    if (!t->group) return -1;
    /* The inverse of s_i is the generator that leads from s_i back to e. */
    int64_t si = t->gens[i];
    int64_t a = gsp_topo_arc_index(t, si, 0);
    return (int)a;
}

typedef struct {
    int64_t v;
    int i;
} vi_t;

static int vi_cmp(const void *a, const void *b) {
    const vi_t *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    return x->i - y->i;
}

/* Removes repeated values from g[0..*n), keeping each value's first occurrence in place order. */
static gsp_err_t dedup_keep_order(int64_t *g, int *n) {
    vi_t *p = NULL;
    unsigned char *keep = NULL;
    gsp_err_t err;
    if ((err = gsp_alloc_array((void **)&p, *n + 1, sizeof *p, false)) || (err = gsp_alloc_array((void **)&keep, *n + 1, 1, true))) {
        gsp_free(p);
        return err;
    }
    for (int i = 0; i < *n; i++) p[i] = (vi_t){g[i], i};
    qsort(p, (size_t)*n, sizeof *p, vi_cmp);
    for (int k = 0; k < *n; k++)
        if (k == 0 || p[k].v != p[k - 1].v) keep[p[k].i] = 1;
    int m = 0;
    for (int i = 0; i < *n; i++)
        if (keep[i]) g[m++] = g[i];
    *n = m;
    gsp_free(p);
    gsp_free(keep);
    return GSP_OK;
}

gsp_err_t gsp_topo_cayley(gsp_topo_t *t, gsp_group_t *group, const int64_t *gens, int ngens,
                          bool close_inverses, const char *spec) {
    gsp_err_t err = GSP_OK;
    int64_t *g = NULL;
    int ng = 0;
    memset(t, 0, sizeof *t);
    t->group = group;
    if (!(t->spec = gsp_strdup(spec))) {
        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if ((err = gsp_alloc_array((void **)&g, 2 * (int64_t)ngens + 1, sizeof *g, false))) goto fail;
    for (int i = 0; i < ngens; i++) {
        if (gens[i] < 0 || gens[i] >= group->order) {
            err = gsp_error(GSP_ERR_RANGE, "%s: generator %d is not a group element", spec, i);
            goto fail;
        }
        if (gens[i] == 0) {
            err = gsp_error(GSP_ERR_RANGE, "%s: generator %d is the identity (a self-loop)", spec, i);
            goto fail;
        }
        g[ng++] = gens[i];
    }
    if (close_inverses)
        for (int i = 0, given = ng; i < given; i++) g[ng++] = gsp_group_inv(group, g[i]);
    /* Duplicates dropped, first occurrences kept in order: by sorting (value, position), so
     * that thousands of generators (complete:N) cost N log N, not N^2. */
    if ((err = dedup_keep_order(g, &ng))) goto fail;
    if (ng == 0 && group->order > 1) {
        err = gsp_error(GSP_ERR_RANGE, "%s: no generators", spec);
        goto fail;
    }
    if ((err = check_size(spec, group->order, ng))) goto fail;
    t->n = group->order;
    t->m = t->n * ng;
    t->gens = g;
    t->ngens = ng;
    g = NULL;
    if ((err = gsp_alloc_array((void **)&t->off, t->n + 1, sizeof *t->off, false))) goto fail;
    if ((err = gsp_alloc_array((void **)&t->adj, t->m, sizeof *t->adj, false))) goto fail;
    for (int64_t x = 0; x <= t->n; x++) t->off[x] = x * ng;

    /* Fast paths avoid re-decoding x for every generator. */
    if (group->kind == GSP_GROUP_ABELIAN) {
        int k = group->k;
        int64_t sc[GSP_MAX_DIMS], c[GSP_MAX_DIMS];
        int64_t(*gc)[GSP_MAX_DIMS] = NULL;
        if ((err = gsp_alloc_array((void **)&gc, ng, sizeof *gc, false))) goto fail;
        for (int i = 0; i < ng; i++) gsp_group_coords(group, t->gens[i], gc[i]);
        for (int64_t x = 0; x < t->n; x++) {
            gsp_group_coords(group, x, c);
            for (int i = 0; i < ng; i++) {
                int64_t y = 0;
                for (int j = 0; j < k; j++) {
                    sc[j] = c[j] + gc[i][j];
                    if (sc[j] >= group->mod[j]) sc[j] -= group->mod[j];
                    y += sc[j] * group->stride[j];
                }
                t->adj[x * ng + i] = y;
            }
        }
        gsp_free(gc);
    } else if (group->kind == GSP_GROUP_SYMMETRIC) {
        int K = group->K, w[GSP_MAX_PERM_K], z[GSP_MAX_PERM_K];
        int(*gw)[GSP_MAX_PERM_K] = NULL;
        if ((err = gsp_alloc_array((void **)&gw, ng, sizeof *gw, false))) goto fail;
        for (int i = 0; i < ng; i++) gsp_perm_unrank(K, t->gens[i], gw[i]);
        for (int64_t x = 0; x < t->n; x++) {
            gsp_perm_unrank(K, x, w);
            for (int i = 0; i < ng; i++) {
                for (int j = 0; j < K; j++) z[j] = w[gw[i][j]];
                t->adj[x * ng + i] = gsp_perm_rank(K, z);
            }
        }
        gsp_free(gw);
    } else {
        for (int64_t x = 0; x < t->n; x++)
            for (int i = 0; i < ng; i++) t->adj[x * ng + i] = gsp_group_mul(group, t->gens[i], x);
    }
    if ((err = finish(t))) goto fail;
    return GSP_OK;
fail:
    gsp_free(g);
    gsp_topo_destroy(t); /* frees the group too: it was attached on entry */
    return err;
}

gsp_err_t gsp_topo_product(gsp_topo_t *t, gsp_topo_t *a, gsp_topo_t *b) {
    gsp_err_t err = GSP_OK;
    char *spec = NULL;
    int64_t n, m, ma, mb;
    memset(t, 0, sizeof *t);
    size_t len = strlen(a->spec) + strlen(b->spec) + 16;
    if (!(spec = gsp_malloc(len))) {
        err = gsp_error(GSP_ERR_NOMEM, "out of memory");
        goto fail;
    }
    snprintf(spec, len, "product(%s,%s)", a->spec, b->spec);
    if (gsp_topo_is_fabric(a) || gsp_topo_is_fabric(b)) {
        err = gsp_error(GSP_ERR_NOTAPPLIC, "%s: a product of fabrics (capacities or switches) is not supported; give the capacities to the "
                                           "product of Cayley graphs instead: product(A,B)@C1,C2,...",
                        spec);
        goto fail;
    }
    if (!gsp_mul_ok(a->n, b->n, &n) || !gsp_mul_ok(a->m, b->n, &ma) ||
        !gsp_mul_ok(b->m, a->n, &mb) || !gsp_add_ok(ma, mb, &m)) {
        err = gsp_error(GSP_ERR_OVERFLOW, "%s: size overflows", spec);
        goto fail;
    }
    if ((err = check_size(spec, n, n ? m / n + 1 : 1))) goto fail;

    if (a->group && b->group) {
        /* A product of Cayley graphs is the Cayley graph of the direct product on the
         * generators (s, e) then (e, s'): arcs of A first, then arcs of B, as in the contract. */
        gsp_group_t *g = gsp_calloc(1, sizeof *g);
        int64_t *gens = NULL;
        if (!g || gsp_alloc_array((void **)&gens, a->ngens + b->ngens, sizeof *gens, false)) {
            gsp_free(g);
            err = gsp_error(GSP_ERR_NOMEM, "out of memory");
            goto fail;
        }
        g->kind = GSP_GROUP_PRODUCT;
        g->order = n;
        if ((err = gsp_group_copy(a->group, &g->a)) || (err = gsp_group_copy(b->group, &g->b))) {
            gsp_group_free(g);
            gsp_free(gens);
            goto fail;
        }
        for (int i = 0; i < a->ngens; i++) gens[i] = a->gens[i] * b->n;
        for (int i = 0; i < b->ngens; i++) gens[a->ngens + i] = b->gens[i];
        err = gsp_topo_cayley(t, g, gens, a->ngens + b->ngens, false, spec);
        gsp_free(gens);
        if (err) goto fail;
    } else {
        t->n = n;
        t->m = m;
        if (!(t->spec = gsp_strdup(spec))) {
            err = gsp_error(GSP_ERR_NOMEM, "out of memory");
            goto fail;
        }
        if ((err = gsp_alloc_array((void **)&t->off, n + 1, sizeof *t->off, false))) goto fail;
        if ((err = gsp_alloc_array((void **)&t->adj, m, sizeof *t->adj, false))) goto fail;
        int64_t k = 0;
        for (int64_t x = 0; x < n; x++) {
            int64_t xa = x / b->n, xb = x % b->n;
            t->off[x] = k;
            for (int64_t e = a->off[xa]; e < a->off[xa + 1]; e++) t->adj[k++] = a->adj[e] * b->n + xb;
            for (int64_t e = b->off[xb]; e < b->off[xb + 1]; e++) t->adj[k++] = xa * b->n + b->adj[e];
        }
        t->off[n] = k;
        if ((err = finish(t))) goto fail;
    }
    t->fa = a;
    t->fb = b;
    gsp_free(spec);
    return GSP_OK;
fail:
    gsp_free(spec);
    gsp_topo_destroy(t);
    gsp_topo_destroy(a);
    gsp_topo_destroy(b);
    gsp_free(a);
    gsp_free(b);
    return err;
}

static int cmp_i64(const void *p, const void *q) {
    int64_t a = *(const int64_t *)p, b = *(const int64_t *)q;
    return (a > b) - (a < b);
}

gsp_err_t gsp_topo_from_edges(gsp_topo_t *t, int64_t n, const int64_t *edges, int64_t nedges,
                              bool directed, const char *spec) {
    gsp_err_t err = GSP_OK;
    int64_t narcs = directed ? nedges : 2 * nedges;
    memset(t, 0, sizeof *t);
    if (n < 1) return gsp_error(GSP_ERR_RANGE, "%s: a graph needs at least one node", spec);
    if ((err = check_size(spec, n, 1)) || (err = check_size(spec, narcs, 1))) return err;
    if (!(t->spec = gsp_strdup(spec))) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    t->n = n;
    if ((err = gsp_alloc_array((void **)&t->off, n + 1, sizeof *t->off, true))) goto fail;
    if ((err = gsp_alloc_array((void **)&t->adj, narcs, sizeof *t->adj, false))) goto fail;
    for (int64_t e = 0; e < nedges; e++) {
        int64_t u = edges[2 * e], v = edges[2 * e + 1];
        if (u < 0 || u >= n || v < 0 || v >= n) {
            err = gsp_error(GSP_ERR_RANGE, "%s: edge %lld (%lld %lld) has a node outside 0..%lld",
                            spec, (long long)e + 1, (long long)u, (long long)v, (long long)n - 1);
            goto fail;
        }
        if (u == v) {
            err = gsp_error(GSP_ERR_RANGE, "%s: edge %lld is a self-loop at node %lld", spec,
                            (long long)e + 1, (long long)u);
            goto fail;
        }
        t->off[u + 1]++;
        if (!directed) t->off[v + 1]++;
    }
    for (int64_t x = 0; x < n; x++) t->off[x + 1] += t->off[x];
    {
        int64_t *pos = NULL;
        if ((err = gsp_alloc_array((void **)&pos, n, sizeof *pos, false))) goto fail;
        memcpy(pos, t->off, (size_t)n * sizeof *pos);
        for (int64_t e = 0; e < nedges; e++) {
            int64_t u = edges[2 * e], v = edges[2 * e + 1];
            t->adj[pos[u]++] = v;
            if (!directed) t->adj[pos[v]++] = u;
        }
        gsp_free(pos);
    }
    /* Ascending neighbours, duplicates merged (the contract's arc order for file graphs). */
    int64_t k = 0;
    for (int64_t x = 0; x < n; x++) {
        int64_t b = t->off[x], e = t->off[x + 1];
        qsort(t->adj + b, (size_t)(e - b), sizeof *t->adj, cmp_i64);
        t->off[x] = k;
        for (int64_t a = b; a < e; a++)
            if (a == b || t->adj[a] != t->adj[a - 1]) t->adj[k++] = t->adj[a];
    }
    t->off[n] = k;
    t->m = k;
    if ((err = finish(t))) goto fail;
    return GSP_OK;
fail:
    gsp_topo_destroy(t);
    return err;
}

bool gsp_topo_is_fabric(const gsp_topo_t *t) { return t->cap != NULL || t->nswitch > 0; }

int64_t gsp_topo_compute_count(const gsp_topo_t *t) { return t->n - t->nswitch; }

const char *gsp_topo_node_name(const gsp_topo_t *t, int64_t x, char *buf) {
    if (t->names && t->names[x]) return t->names[x];
    snprintf(buf, 24, "%lld", (long long)x);
    return buf;
}

typedef struct {
    int64_t u, v, c;
} arc_t;

static int arc_cmp(const void *p, const void *q) {
    const arc_t *a = p, *b = q;
    if (a->u != b->u) return a->u < b->u ? -1 : 1;
    return (a->v > b->v) - (a->v < b->v);
}

/* A fabric's arc table: the arcs sorted by (tail, head), parallel arcs summed into one. */
gsp_err_t gsp_topo_from_arcs(gsp_topo_t *t, int64_t n, const int64_t *arcs, const int64_t *cap, int64_t narcs, int64_t cap_scale,
                             const uint8_t *is_switch, const char *const *names, const char *spec) {
    gsp_err_t err = GSP_OK;
    arc_t *a = NULL;
    memset(t, 0, sizeof *t);
    if (n < 1) return gsp_error(GSP_ERR_RANGE, "%s: a graph needs at least one node", spec);
    if (cap_scale < 1) return gsp_error(GSP_ERR_RANGE, "%s: capacity scale %lld < 1", spec, (long long)cap_scale);
    if ((err = check_size(spec, n, 1)) || (err = check_size(spec, narcs, 1))) return err;
    if (!(t->spec = gsp_strdup(spec))) return gsp_error(GSP_ERR_NOMEM, "out of memory");
    t->n = n;
    if ((err = gsp_alloc_array((void **)&a, narcs + 1, sizeof *a, false))) goto fail;
    for (int64_t e = 0; e < narcs; e++) {
        int64_t u = arcs[2 * e], v = arcs[2 * e + 1], c = cap ? cap[e] : 1;
        if (u < 0 || u >= n || v < 0 || v >= n) {
            err = gsp_error(GSP_ERR_RANGE, "%s: arc %lld (%lld %lld) has a node outside 0..%lld", spec, (long long)e + 1, (long long)u,
                            (long long)v, (long long)n - 1);
            goto fail;
        }
        if (u == v) {
            err = gsp_error(GSP_ERR_RANGE, "%s: arc %lld is a self-loop at node %lld", spec, (long long)e + 1, (long long)u);
            goto fail;
        }
        if (c <= 0) {
            err = gsp_error(GSP_ERR_RANGE, "%s: arc %lld has capacity %lld <= 0", spec, (long long)e + 1, (long long)c);
            goto fail;
        }
        a[e] = (arc_t){u, v, c};
    }
    qsort(a, (size_t)narcs, sizeof *a, arc_cmp);
    if ((err = gsp_alloc_array((void **)&t->off, n + 1, sizeof *t->off, true)) ||
        (err = gsp_alloc_array((void **)&t->adj, narcs + 1, sizeof *t->adj, false)) ||
        (err = gsp_alloc_array((void **)&t->cap, narcs + 1, sizeof *t->cap, false)))
        goto fail;
    int64_t k = 0;
    for (int64_t e = 0; e < narcs; e++) {
        if (k > 0 && e > 0 && a[e].u == a[e - 1].u && a[e].v == a[e - 1].v) {
            if (!gsp_add_ok(t->cap[k - 1], a[e].c, &t->cap[k - 1]) || t->cap[k - 1] > ((int64_t)1 << 62)) {
                err = gsp_error(GSP_ERR_OVERFLOW, "%s: the capacity of the links from node %lld to node %lld overflows", spec,
                                (long long)a[e].u, (long long)a[e].v);
                goto fail;
            }
            continue;
        }
        t->off[a[e].u + 1]++;
        t->adj[k] = a[e].v;
        t->cap[k++] = a[e].c;
    }
    for (int64_t x = 0; x < n; x++) t->off[x + 1] += t->off[x];
    t->m = k;
    t->cap_scale = cap_scale;
    if (is_switch) {
        if ((err = gsp_alloc_array((void **)&t->is_switch, n, 1, true))) goto fail;
        for (int64_t x = 0; x < n; x++) t->nswitch += (t->is_switch[x] = is_switch[x] != 0);
        if (t->nswitch == n) {
            err = gsp_error(GSP_ERR_RANGE, "%s: every node is a switch: a fabric needs at least one compute node", spec);
            goto fail;
        }
        if (t->nswitch == 0) {
            gsp_free(t->is_switch);
            t->is_switch = NULL;
        }
    }
    if (names) {
        if ((err = gsp_alloc_array((void **)&t->names, n, sizeof *t->names, true))) goto fail;
        for (int64_t x = 0; x < n; x++)
            if (names[x] && !(t->names[x] = gsp_strdup(names[x]))) {
                err = gsp_error(GSP_ERR_NOMEM, "out of memory");
                goto fail;
            }
    }
    if ((err = finish(t))) goto fail;
    gsp_free(a);
    return GSP_OK;
fail:
    gsp_free(a);
    gsp_topo_destroy(t);
    return err;
}

/* FNV-1a over explicit little-endian bytes, so that the hash is the same on every machine. */
static uint64_t fnv_u64(uint64_t h, uint64_t x) {
    for (int k = 0; k < 8; k++, x >>= 8) h = (h ^ (x & 0xff)) * 1099511628211ull;
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull; /* a terminator no name holds: "ab","c" is not "a","bc" */
}

void gsp_topo_hash(const gsp_topo_t *t, char *buf) {
    uint64_t h = 1469598103934665603ull;
    h = fnv_str(h, "gossip-graph-1");
    h = fnv_u64(h, (uint64_t)t->n);
    h = fnv_u64(h, (uint64_t)t->m);
    /* A fabric of unit links is not the plain graph: the planners treat them differently. */
    h = fnv_u64(h, gsp_topo_is_fabric(t) ? (uint64_t)(t->cap ? t->cap_scale : 1) : 0);
    for (int64_t x = 0; x < t->n; x++) {
        h = fnv_str(h, t->names && t->names[x] ? t->names[x] : "");
        h = fnv_u64(h, t->is_switch && t->is_switch[x] ? 1 : 0);
        h = fnv_u64(h, (uint64_t)(t->off[x + 1] - t->off[x]));
        for (int64_t a = t->off[x]; a < t->off[x + 1]; a++) {
            h = fnv_u64(h, (uint64_t)t->adj[a]);
            h = fnv_u64(h, t->cap ? (uint64_t)t->cap[a] : 1);
        }
    }
    snprintf(buf, GSP_TOPO_HASH_LEN, "fnv1a64:%016llx", (unsigned long long)h);
}
