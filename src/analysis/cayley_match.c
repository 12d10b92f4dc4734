/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cayley_match.c — a graph given as a file that is, up to relabelling, a known Cayley graph:
 * a torus of some shape, a hypercube, a star graph, a complete graph or a circulant. nauty's
 * canonical labelling puts isomorphic graphs in one form; the two labellings then give the
 * isomorphism, so a schedule planned on the spec (with the group's symmetric methods) can be
 * relabelled onto the file's nodes. Candidates come from the node count and the degree alone:
 * tori from the factorisations of N whose degree matches, circulants C(N; 1, b) and C(N; b)
 * (a circulant with a jump prime to N is isomorphic to one with jump 1, by multiplication). */
#include <stdio.h>
#include <string.h>

#include "nauty_int.h"

#define MATCH_MAX_CIRC 1024 /* circulant candidates are tried up to this N */

typedef struct {
    sparsegraph cg; /* canonical form, sorted */
    int *lab;       /* canonical labelling: lab[i] = the vertex put at position i */
    int orbits;     /* orbits of the automorphism group */
} canon_t;

static void canon_free(canon_t *c) {
    SG_FREE(c->cg);
    gsp_free(c->lab);
    c->lab = NULL;
}

static gsp_err_t canon_of(const gsp_topo_t *t, canon_t *out) {
    gsp_err_t err;
    gsp__nauty_t g;
    SG_INIT(out->cg);
    out->lab = NULL;
    DEFAULTOPTIONS_SPARSEGRAPH(options);
    statsblk stats;
    options.getcanon = TRUE;
    options.digraph = t->directed ? TRUE : FALSE;
    if (!(err = gsp__nauty_init(t, &g))) {
        sparsenauty(&g.sg, g.lab, g.ptn, g.orbits, &options, &stats, &out->cg);
        sortlists_sg(&out->cg);
        out->orbits = stats.numorbits;
        out->lab = g.lab; /* kept: the canonical labelling */
        g.lab = NULL;
    }
    gsp__nauty_free(&g);
    return err;
}

typedef struct {
    const gsp_topo_t *t;
    canon_t tc;
    char *spec;
    int64_t *map;
    bool found;
} match_t;

/* Tries one candidate spec; on a match fills the map (file node -> spec node). */
static gsp_err_t try_spec(match_t *m, const char *spec) {
    gsp_topo_t c;
    gsp_err_t err = gsp_topo_from_spec(&c, spec);
    if (err) return GSP_OK; /* not a valid candidate after all (e.g. too large): skip */
    if (c.n != m->t->n || c.m != m->t->m || c.dmax != m->t->dmax || c.dmin != m->t->dmin) {
        gsp_topo_destroy(&c);
        return GSP_OK;
    }
    canon_t cc;
    if ((err = canon_of(&c, &cc))) {
        gsp_topo_destroy(&c);
        return err;
    }
    if (aresame_sg(&m->tc.cg, &cc.cg)) {
        size_t len = strlen(spec) + 1;
        if (!(m->spec = gsp_malloc(len)) || (err = gsp_alloc_array((void **)&m->map, m->t->n, sizeof *m->map, false))) {
            gsp_free(m->spec);
            m->spec = NULL;
            err = err ? err : gsp_error(GSP_ERR_NOMEM, "out of memory");
        } else {
            memcpy(m->spec, spec, len);
            /* Position i holds file node tc.lab[i] and spec node cc.lab[i]. */
            for (int64_t i = 0; i < m->t->n; i++) m->map[m->tc.lab[i]] = cc.lab[i];
            m->found = true;
        }
    }
    canon_free(&cc);
    gsp_topo_destroy(&c);
    return err;
}

/* Tori: sides m_0 >= m_1 >= ... >= 2 with product N and degree sum(m_j == 2 ? 1 : 2) = d. */
static gsp_err_t tori(match_t *m, int64_t left, int64_t maxside, int64_t degree, char *buf, size_t used, int k) {
    gsp_err_t err;
    if (m->found) return GSP_OK;
    if (left == 1) return degree == m->t->dmax && k > 0 ? try_spec(m, buf) : GSP_OK;
    if (k == GSP_MAX_DIMS || degree >= m->t->dmax) return GSP_OK;
    for (int64_t s = maxside < left ? maxside : left; s >= 2 && !m->found; s--) {
        if (left % s) continue;
        int w = snprintf(buf + used, 512 - used, "%s%lld", k ? "x" : "torus:", (long long)s);
        if (w < 0 || used + (size_t)w >= 512) continue;
        if ((err = tori(m, left / s, s, degree + (s == 2 ? 1 : 2), buf, used + (size_t)w, k + 1))) return err;
    }
    return GSP_OK;
}

gsp_err_t gsp_cayley_match(const gsp_topo_t *t, char **spec, int64_t **map) {
    gsp_err_t err;
    *spec = NULL;
    *map = NULL;
    if (t->group || t->directed || t->dmin != t->dmax || t->n < 3 || t->n > GSP_CAYLEY_MATCH_MAX) return GSP_OK;
    match_t m = {t, {{0}, NULL, 0}, NULL, NULL, false};
    if ((err = canon_of(t, &m.tc))) return err;
    if (m.tc.orbits != 1) { /* not vertex-transitive: no Cayley graph can match */
        canon_free(&m.tc);
        return GSP_OK;
    }
    int64_t n = t->n, d = t->dmax;
    char buf[512];
    if (d == n - 1) snprintf(buf, sizeof buf, "complete:%lld", (long long)n), err = try_spec(&m, buf);
    if (!err && !m.found && d == 2) snprintf(buf, sizeof buf, "cycle:%lld", (long long)n), err = try_spec(&m, buf);
    if (!err && !m.found && (n & (n - 1)) == 0 && (int64_t)__builtin_ctzll((unsigned long long)n) == d)
        snprintf(buf, sizeof buf, "hypercube:%lld", (long long)d), err = try_spec(&m, buf);
    if (!err && !m.found) {
        int64_t f = 1;
        for (int K = 2; K <= 12 && f < n; K++) {
            f *= K;
            if (f == n && d == K - 1) {
                snprintf(buf, sizeof buf, "star:%d", K);
                err = try_spec(&m, buf);
            }
        }
    }
    if (!err && !m.found) err = tori(&m, n, n, 0, buf, 0, 0);
    /* Circulants of degree 4: C(N; 1, b); of degree 2 and 4 with no jump prime to N are left out. */
    for (int64_t b = 2; !err && !m.found && d == 4 && n <= MATCH_MAX_CIRC && 2 * b < n; b++) {
        snprintf(buf, sizeof buf, "circulant:%lld:1,%lld", (long long)n, (long long)b);
        err = try_spec(&m, buf);
    }
    canon_free(&m.tc);
    if (err) {
        gsp_free(m.spec);
        gsp_free(m.map);
        return err;
    }
    *spec = m.spec;
    *map = m.map;
    return GSP_OK;
}
