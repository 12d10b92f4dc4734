/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_analysis.c — distances, spectra, vertex-transitivity and complete rotations against
 * closed forms and published values (OEIS A007799, Bermond–Kodate–Pérennes, Monakhova). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "gossip/gossip.h"

static gsp_topo_t build(const char *spec) {
    gsp_topo_t t;
    gsp_err_t err = gsp_topo_from_spec(&t, spec);
    if (err) fail_msg("%s: %s", spec, gsp_errmsg());
    return t;
}

static gsp_distances_t dists(const gsp_topo_t *t, bool vt) {
    gsp_distances_t d;
    assert_int_equal(gsp_distances(t, vt, &d, NULL, NULL), GSP_OK);
    return d;
}

static int64_t binom(int n, int k) {
    int64_t r = 1;
    for (int i = 1; i <= k; i++) r = r * (n - k + i) / i;
    return r;
}

static void test_torus_diameter(void **state) {
    (void)state;
    int sides[][3] = {{3, 7, 0}, {4, 5, 0}, {5, 5, 0}, {6, 6, 0}, {2, 9, 0}, {3, 4, 5}, {8, 2, 7}, {10, 11, 0}};
    for (size_t c = 0; c < sizeof sides / sizeof sides[0]; c++) {
        char spec[64];
        int want = 0;
        if (sides[c][2]) snprintf(spec, sizeof spec, "torus:%dx%dx%d", sides[c][0], sides[c][1], sides[c][2]);
        else snprintf(spec, sizeof spec, "torus:%dx%d", sides[c][0], sides[c][1]);
        for (int j = 0; j < 3; j++) want += sides[c][j] / 2;
        gsp_topo_t t = build(spec);
        gsp_distances_t d = dists(&t, true);
        assert_int_equal(d.diameter, want);
        /* One BFS with symmetry must agree with all-pairs BFS. */
        gsp_distances_t all = dists(&t, false);
        assert_int_equal(all.diameter, want);
        for (int64_t m = 0; m < d.counts.len; m++) assert_int_equal(all.counts.v[m], t.n * d.counts.v[m]);
        gsp_distances_destroy(&d);
        gsp_distances_destroy(&all);
        gsp_topo_destroy(&t);
    }
}

static void test_hypercube_distances(void **state) {
    (void)state;
    for (int K = 1; K <= 16; K++) {
        char spec[32];
        snprintf(spec, sizeof spec, "hypercube:%d", K);
        gsp_topo_t t = build(spec);
        gsp_distances_t d = dists(&t, true);
        assert_int_equal(d.diameter, K);
        for (int m = 0; m <= K; m++) assert_int_equal(d.counts.v[m], binom(K, m));
        assert_true(fabs(d.average_distance - K * (double)(1 << (K - 1)) / ((1 << K) - 1)) < 1e-9);
        gsp_distances_destroy(&d);
        gsp_topo_destroy(&t);
    }
}

/* OEIS A007799: nodes of the star graph S(K) at each distance from the identity. */
static const int64_t a007799[][12] = {
    {1, 3, 6, 9, 5},
    {1, 4, 12, 30, 44, 26, 3},
    {1, 5, 20, 70, 170, 250, 169, 35},
    {1, 6, 30, 135, 460, 1110, 1689, 1254, 340, 15},
    {1, 7, 42, 231, 1015, 3430, 8379, 13083, 10408, 3409, 315},
};

static void test_star_distances(void **state) {
    (void)state;
    for (int K = 4; K <= 8; K++) {
        char spec[32];
        snprintf(spec, sizeof spec, "star:%d", K);
        gsp_topo_t t = build(spec);
        gsp_distances_t d = dists(&t, true);
        assert_int_equal(d.diameter, 3 * (K - 1) / 2);
        assert_int_equal(d.counts.len, 3 * (K - 1) / 2 + 1);
        for (int64_t m = 0; m < d.counts.len; m++) assert_int_equal(d.counts.v[m], a007799[K - 4][m]);
        gsp_distances_destroy(&d);
        gsp_topo_destroy(&t);
    }
}

static void test_optcirc(void **state) {
    (void)state;
    for (int64_t N = 5; N <= 5000; N++) {
        char spec[32];
        snprintf(spec, sizeof spec, "optcirc:%lld", (long long)N);
        gsp_topo_t t = build(spec);
        gsp_distances_t d = dists(&t, true);
        int64_t want = (int64_t)ceil((sqrt(2.0 * N - 1) - 1) / 2 - 1e-12);
        /* Integer check of the closed form: D* is the least D with 2D^2 + 2D + 1 >= N. */
        int64_t D = 0;
        while (2 * D * D + 2 * D + 1 < N) D++;
        assert_int_equal(want, D);
        if (d.diameter != D) fail_msg("optcirc:%lld has diameter %lld, want %lld", (long long)N, (long long)d.diameter, (long long)D);
        for (int64_t m = 1; m < D; m++) assert_int_equal(d.counts.v[m], 4 * m);
        gsp_distances_destroy(&d);
        gsp_topo_destroy(&t);
    }
    gsp_topo_t t = build("circulant:35:4,5");
    gsp_distances_t d = dists(&t, true);
    assert_int_equal(d.diameter, 4);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

static void test_hypercube_spectrum(void **state) {
    (void)state;
    for (int K = 1; K <= 12; K++) {
        char spec[32];
        snprintf(spec, sizeof spec, "hypercube:%d", K);
        gsp_topo_t t = build(spec);
        double *e;
        gsp_spectrum_how_t how;
        assert_int_equal(gsp_spectrum(&t, &e, &how), GSP_OK);
        assert_int_equal(how, GSP_SPECTRUM_ABELIAN);
        /* K - 2m with multiplicity C(K, m); ascending means m from K down to 0. */
        int64_t i = 0;
        for (int m = K; m >= 0; m--)
            for (int64_t r = 0; r < binom(K, m); r++, i++) assert_true(fabs(e[i] - (K - 2 * m)) < 1e-9);
        assert_int_equal(gsp_spectrum_distinct(e, t.n, gsp_spectrum_tolerance(e, t.n)), K + 1);
        gsp_free(e);
        gsp_topo_destroy(&t);
    }
}

static int cmp_double(const void *p, const void *q) {
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

static void test_cycle_spectrum(void **state) {
    (void)state;
    for (int n = 3; n <= 40; n++) {
        char spec[32];
        snprintf(spec, sizeof spec, "cycle:%d", n);
        gsp_topo_t t = build(spec);
        double *e, want[64];
        gsp_spectrum_how_t how;
        assert_int_equal(gsp_spectrum(&t, &e, &how), GSP_OK);
        for (int k = 0; k < n; k++) want[k] = 2 * cos(2 * M_PI * k / n);
        qsort(want, (size_t)n, sizeof *want, cmp_double);
        for (int k = 0; k < n; k++) assert_true(fabs(e[k] - want[k]) < 1e-9);
        assert_int_equal(gsp_spectrum_distinct(e, n, gsp_spectrum_tolerance(e, n)), n / 2 + 1);
        gsp_free(e);
        gsp_topo_destroy(&t);
    }
}

static void test_dense_matches_formula(void **state) {
    (void)state;
    /* LAPACK on an explicit edge list of the same graph is an independent computation. */
    gsp_topo_t a = build("torus:5x6");
    int64_t *edges = gsp_malloc(sizeof(int64_t) * 2 * (size_t)a.m);
    int64_t k = 0;
    for (int64_t x = 0; x < a.n; x++)
        for (int64_t e = a.off[x]; e < a.off[x + 1]; e++)
            if (x < a.adj[e]) edges[2 * k] = x, edges[2 * k + 1] = a.adj[e], k++;
    gsp_topo_t b;
    assert_int_equal(gsp_topo_from_edges(&b, a.n, edges, k, false, "edges"), GSP_OK);
    double *ea, *eb;
    gsp_spectrum_how_t ha, hb;
    assert_int_equal(gsp_spectrum(&a, &ea, &ha), GSP_OK);
    assert_int_equal(gsp_spectrum(&b, &eb, &hb), GSP_OK);
    assert_int_equal(hb, GSP_SPECTRUM_DENSE);
    for (int64_t i = 0; i < a.n; i++) assert_true(fabs(ea[i] - eb[i]) < 1e-9);
    gsp_free(ea);
    gsp_free(eb);
    gsp_free(edges);
    gsp_topo_destroy(&a);
    gsp_topo_destroy(&b);
    /* Petersen: 3, 1 (x5), -2 (x4). */
    char spec[512];
    snprintf(spec, sizeof spec, "file:%s/petersen.txt", GOSSIP_TEST_DATA);
    gsp_topo_t p = build(spec);
    assert_int_equal(gsp_spectrum(&p, &ea, &ha), GSP_OK);
    assert_true(fabs(ea[0] + 2) < 1e-9 && fabs(ea[3] + 2) < 1e-9 && fabs(ea[4] - 1) < 1e-9 &&
                fabs(ea[8] - 1) < 1e-9 && fabs(ea[9] - 3) < 1e-9);
    assert_int_equal(gsp_spectrum_distinct(ea, 10, gsp_spectrum_tolerance(ea, 10)), 3);
    gsp_free(ea);
    gsp_topo_destroy(&p);
    /* Star graph S(4): integer eigenvalues -3..3 (Krakovski–Mohar), all present. */
    p = build("star:4");
    assert_int_equal(gsp_spectrum(&p, &ea, &ha), GSP_OK);
    assert_int_equal(gsp_spectrum_distinct(ea, 24, gsp_spectrum_tolerance(ea, 24)), 7);
    for (int i = 0; i < 24; i++) assert_true(fabs(ea[i] - round(ea[i])) < 1e-9);
    gsp_free(ea);
    gsp_topo_destroy(&p);
    /* C5 x K2: eigenvalues 2cos(2 pi k/5) +- 1: 6 distinct. */
    p = build("product(cycle:5,complete:2)");
    assert_int_equal(gsp_spectrum(&p, &ea, &ha), GSP_OK);
    assert_int_equal(ha, GSP_SPECTRUM_PRODUCT);
    assert_int_equal(gsp_spectrum_distinct(ea, 10, gsp_spectrum_tolerance(ea, 10)), 6);
    gsp_free(ea);
    gsp_topo_destroy(&p);
}

static void test_vertex_transitive(void **state) {
    (void)state;
    char spec[512];
    gsp_vt_t vt;
    const struct {
        const char *file;
        gsp_vt_t want;
    } cases[] = {{"petersen.txt", GSP_VT_YES_NAUTY}, {"frucht.txt", GSP_VT_NO_NAUTY},
                 {"path4.txt", GSP_VT_NO_DEGREE}, {"dicycle3.txt", GSP_VT_YES_NAUTY}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(spec, sizeof spec, "file:%s/%s", GOSSIP_TEST_DATA, cases[i].file);
        gsp_topo_t t = build(spec);
        assert_int_equal(gsp_vertex_transitive(&t, &vt), GSP_OK);
        if (vt != cases[i].want) fail_msg("%s: vt %d, want %d", cases[i].file, vt, cases[i].want);
        gsp_topo_destroy(&t);
    }
    gsp_topo_t t = build("star:5");
    assert_int_equal(gsp_vertex_transitive(&t, &vt), GSP_OK);
    assert_int_equal(vt, GSP_VT_YES_CAYLEY);
    gsp_topo_destroy(&t);
    /* Path P4: all-pairs counts 4, 6, 4, 2 ordered pairs at distance 0..3. */
    snprintf(spec, sizeof spec, "file:%s/path4.txt", GOSSIP_TEST_DATA);
    t = build(spec);
    gsp_distances_t d = dists(&t, false);
    assert_int_equal(d.diameter, 3);
    assert_int_equal(d.counts.v[0], 4);
    assert_int_equal(d.counts.v[1], 6);
    assert_int_equal(d.counts.v[2], 4);
    assert_int_equal(d.counts.v[3], 2);
    assert_true(fabs(d.average_distance - 20.0 / 12) < 1e-12);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

static void rotation(const char *spec, bool found, int64_t fixed) {
    gsp_topo_t t = build(spec);
    gsp_rotation_t r;
    assert_int_equal(gsp_rotation_find(&t, 0, &r), GSP_OK);
    if (r.found != found) fail_msg("%s: rotation found=%d, want %d", spec, r.found, found);
    if (found) {
        if (fixed >= 0 && r.fixed_points != fixed)
            fail_msg("%s: %lld fixed points, want %lld", spec, (long long)r.fixed_points, (long long)fixed);
        /* Independent check of Def. 12 on every arc: w(s_i x) = s_{i+1} w(x), w bijective. */
        int d = t.ngens, pos[64];
        for (int j = 0; j < d; j++) pos[r.order[j]] = j;
        for (int64_t x = 0; x < t.n; x++)
            for (int i = 0; i < d; i++) {
                int next = r.order[(pos[i] + 1) % d];
                assert_int_equal(r.omega[t.adj[x * d + i]], t.adj[r.omega[x] * d + next]);
            }
        assert_int_equal(r.omega[0], 0);
        /* Fixed points by brute force: x != e with w^i(x) = x for some 1 <= i < d. */
        int64_t brute = 0;
        for (int64_t x = 1; x < t.n; x++) {
            int64_t y = x;
            for (int i = 1; i < d; i++) {
                y = r.omega[y];
                if (y == x) {
                    brute++;
                    break;
                }
            }
        }
        assert_int_equal(brute, r.fixed_points);
    } else {
        assert_true(r.exhaustive);
    }
    gsp_rotation_destroy(&r);
    gsp_topo_destroy(&t);
}

static void test_rotations(void **state) {
    (void)state;
    rotation("torus:5x5", true, 0);
    /* The paper (after Example 5) says odd p gives no fixed points; that holds for k = 2 but
     * not k = 3: w(x0,x1,x2) = (-x2,x0,x1) has w^2(a,-a,a) = (a,-a,a), 6 points for p = 7. */
    rotation("torus:7x7", true, 0);
    rotation("torus:7x7x7", true, 6);
    rotation("torus:6x6", true, 3);
    rotation("torus:3x7", false, 0);
    rotation("torus:4x5", false, 0);
    rotation("torus:5x6", false, 0);
    for (int K = 2; K <= 10; K++) {
        char spec[32];
        snprintf(spec, sizeof spec, "hypercube:%d", K);
        rotation(spec, true, -1);
    }
    for (int K = 3; K <= 7; K++) {
        char spec[32];
        snprintf(spec, sizeof spec, "star:%d", K);
        rotation(spec, true, -1);
    }
    /* G(2D^2+2D+1; D, D+1) has one (multiplication by a unit mapping D -> D+1 -> -D). */
    rotation("circulant:13:2,3", true, 0);
    rotation("circulant:25:3,4", true, 0);
    rotation("optcirc:35", false, 0);
}

/* ---- large graphs: iFUB, a tree's average distance, the sampled estimate ---- */

/* Brute force, independent of the library's BFS: every node's BFS over the arc table, the
 * diameter (-1 when disconnected) and the mean distance over ordered connected pairs. */
static void brute(const gsp_topo_t *t, int64_t *diam, double *avg) {
    int64_t n = t->n, *q = malloc(sizeof *q * (size_t)n), *d = malloc(sizeof *d * (size_t)n), D = 0;
    double sum = 0, pairs = 0;
    bool connected = true;
    for (int64_t s = 0; s < n; s++) {
        for (int64_t x = 0; x < n; x++) d[x] = -1;
        int64_t h = 0, tl = 0;
        d[s] = 0;
        q[tl++] = s;
        while (h < tl) {
            int64_t x = q[h++];
            for (int64_t a = t->off[x]; a < t->off[x + 1]; a++)
                if (d[t->adj[a]] < 0) d[t->adj[a]] = d[x] + 1, q[tl++] = t->adj[a];
        }
        if (tl < n) connected = false;
        for (int64_t i = 0; i < tl; i++) {
            sum += (double)d[q[i]];
            if (d[q[i]] > D) D = d[q[i]];
        }
        pairs += (double)(tl - 1);
    }
    *diam = connected ? D : -1;
    *avg = pairs > 0 ? sum / pairs : 0;
    free(q);
    free(d);
}

typedef struct {
    int64_t *e, n, cap;
} edges_t;

static void edge(edges_t *E, int64_t u, int64_t v) {
    if (E->n == E->cap) {
        E->cap = E->cap ? 2 * E->cap : 256;
        E->e = realloc(E->e, sizeof *E->e * 2 * (size_t)E->cap);
    }
    E->e[2 * E->n] = u;
    E->e[2 * E->n + 1] = v;
    E->n++;
}

/* Graph kinds for the brute-force comparison; rng picks the random ones. */
static gsp_topo_t make(int kind, int64_t n, gsp_rng_t *rng, char *name, size_t len) {
    edges_t E = {0};
    int64_t w = 1;
    switch (kind) {
    case 0: /* path */
        for (int64_t x = 1; x < n; x++) edge(&E, x - 1, x);
        snprintf(name, len, "path %lld", (long long)n);
        break;
    case 1: /* cycle */
        for (int64_t x = 0; x < n; x++) edge(&E, x, (x + 1) % n);
        snprintf(name, len, "cycle %lld", (long long)n);
        break;
    case 2: /* grid w x h (no wrap) */
        while ((w + 1) * (w + 1) <= n) w++;
        for (int64_t x = 0; x < n; x++) {
            if ((x + 1) % w && x + 1 < n) edge(&E, x, x + 1);
            if (x + w < n) edge(&E, x, x + w);
        }
        snprintf(name, len, "grid %lld wide, %lld nodes", (long long)w, (long long)n);
        break;
    case 3: /* random tree (each node hangs from an earlier one) */
        for (int64_t x = 1; x < n; x++) edge(&E, (int64_t)gsp_rng_below(rng, (uint64_t)x), x);
        snprintf(name, len, "random tree %lld", (long long)n);
        break;
    case 4: /* sparse random graph: a random tree and n/2 more random edges */
        for (int64_t x = 1; x < n; x++) edge(&E, (int64_t)gsp_rng_below(rng, (uint64_t)x), x);
        for (int64_t k = 0; k < n / 2; k++) {
            int64_t u = (int64_t)gsp_rng_below(rng, (uint64_t)n), v = (int64_t)gsp_rng_below(rng, (uint64_t)n);
            if (u != v) edge(&E, u, v);
        }
        snprintf(name, len, "random graph %lld", (long long)n);
        break;
    case 5: /* lollipop: a clique of 20 with a long path (a far fringe from any centre) */
        for (int64_t x = 0; x < 20 && x < n; x++)
            for (int64_t y = x + 1; y < 20 && y < n; y++) edge(&E, x, y);
        for (int64_t x = 20; x < n; x++) edge(&E, x - 1, x);
        snprintf(name, len, "lollipop %lld", (long long)n);
        break;
    default: /* two random trees side by side: disconnected */
        for (int64_t x = 1; x < n / 2; x++) edge(&E, (int64_t)gsp_rng_below(rng, (uint64_t)x), x);
        for (int64_t x = n / 2 + 1; x < n; x++) edge(&E, n / 2 + (int64_t)gsp_rng_below(rng, (uint64_t)(x - n / 2)), x);
        snprintf(name, len, "two trees %lld", (long long)n);
        break;
    }
    gsp_topo_t t;
    if (gsp_topo_from_edges(&t, n, E.e, E.n, false, name)) fail_msg("%s: %s", name, gsp_errmsg());
    free(E.e);
    return t;
}

/* iFUB's diameter equals the all-pairs one on paths, cycles, grids, random trees and graphs,
 * lollipops and disconnected graphs up to 2000 nodes; gsp_distances_large on its large-graph
 * path (max_work 1) is exact on trees and, elsewhere, within 4 standard errors of the truth. */
static void test_ifub(void **state) {
    (void)state;
    static const int64_t sizes[] = {1, 2, 3, 4, 7, 16, 57, 200, 1000, 2000};
    gsp_rng_t rng;
    gsp_rng_seed(&rng, 7);
    int estimates = 0, cheap = 0;
    for (int kind = 0; kind <= 6; kind++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int rep = 0; rep < (kind == 3 || kind == 4 ? 3 : 1); rep++) {
                int64_t n = sizes[si];
                if (kind == 1 && n < 3) continue;
                if (kind == 6 && n < 2) continue;
                char name[96];
                gsp_topo_t t = make(kind, n, &rng, name, sizeof name);
                int64_t want, got, runs;
                double avg;
                brute(&t, &want, &avg);
                assert_int_equal(gsp_diameter_ifub(&t, &got, &runs, NULL, NULL), GSP_OK);
                if (got != want) fail_msg("%s: iFUB says %lld, all pairs %lld", name, (long long)got, (long long)want);
                if (n >= 1000 && want >= 0 && runs < n / 4) cheap++;
                if (n == 1) { /* n (n + m) = 1: within any budget, all pairs */
                    gsp_topo_destroy(&t);
                    continue;
                }
                gsp_distances_t d;
                gsp_distances_opts_t o = {.max_work = 1, .samples = 32, .seed = (uint64_t)rep + 1};
                assert_int_equal(gsp_distances_large(&t, false, &o, &d, NULL, NULL), GSP_OK);
                if (d.diameter != want || d.connected != (want >= 0))
                    fail_msg("%s: diameter %lld (connected %d), want %lld", name, (long long)d.diameter, d.connected, (long long)want);
                assert_int_equal(d.sampled, n < 32 ? n : 32);
                int64_t total = 0;
                for (int64_t i = 0; i < d.counts.len; i++) total += d.counts.v[i];
                if (want >= 0) assert_int_equal(total, d.sampled * n); /* every (source, node) pair once */
                if (d.average_exact) {
                    /* A tree, or every node sampled. */
                    assert_true(fabs(d.average_distance - avg) <= 1e-9 * (avg + 1));
                    assert_true(d.average_stderr == 0);
                    assert_true((want >= 0 && t.m == 2 * (n - 1)) || d.sampled == n);
                } else {
                    assert_true(kind != 0 && kind != 3); /* trees are exact */
                    /* 0 on a cycle: every source sees the same distances (and the estimate is exact). */
                    assert_true(d.average_stderr > 0 || kind == 1);
                    if (fabs(d.average_distance - avg) > 4 * d.average_stderr + 1e-9 * avg)
                        fail_msg("%s: estimate %g, truth %g, standard error %g", name, d.average_distance, avg, d.average_stderr);
                    estimates++;
                }
                gsp_distances_destroy(&d);
                gsp_topo_destroy(&t);
            }
    assert_true(estimates >= 10);
    assert_true(cheap >= 8); /* iFUB's point: far fewer BFS than nodes on most of the large ones */
}

/* Many small random graphs: thin trees with a few extra edges, and cycles with a few chords. On
 * the latter the deepest level from the centre often holds no end of a diameter, so iFUB must go
 * on level by level (stopping after the deepest level gets a tenth of them wrong). */
static void test_ifub_small(void **state) {
    (void)state;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, 11);
    int deeper = 0;
    for (int rep = 0; rep < 3000; rep++) {
        int64_t n = 5 + (int64_t)gsp_rng_below(&rng, 60), extra = (int64_t)gsp_rng_below(&rng, 6);
        edges_t E = {0};
        if (rep % 2)
            for (int64_t x = 0; x < n; x++) edge(&E, x, (x + 1) % n);
        else
            for (int64_t x = 1; x < n; x++) {
                /* Long thin trees: hang mostly from one of the last few nodes. */
                int64_t lo = x > 4 && gsp_rng_below(&rng, 4) ? x - 4 : 0;
                edge(&E, lo + (int64_t)gsp_rng_below(&rng, (uint64_t)(x - lo)), x);
            }
        for (int64_t k = 0; k < extra; k++) {
            int64_t u = (int64_t)gsp_rng_below(&rng, (uint64_t)n), v = (int64_t)gsp_rng_below(&rng, (uint64_t)n);
            if (u != v) edge(&E, u, v);
        }
        gsp_topo_t t;
        assert_int_equal(gsp_topo_from_edges(&t, n, E.e, E.n, false, "random"), GSP_OK);
        free(E.e);
        int64_t want, got, runs;
        double avg;
        brute(&t, &want, &avg);
        assert_int_equal(gsp_diameter_ifub(&t, &got, &runs, NULL, NULL), GSP_OK);
        if (got != want) fail_msg("rep %d (n %lld): iFUB says %lld, all pairs %lld", rep, (long long)n, (long long)got, (long long)want);
        if (runs > 6) deeper++; /* more than the sweeps, the centre's BFS and one fringe node */
        gsp_topo_destroy(&t);
    }
    assert_true(deeper > 100);
}

/* K_{1,n}: n leaves at distance 1 from the centre and 2 from each other. Unordered pairs: n at
 * distance 1, n (n - 1) / 2 at distance 2, so the sum is n + n (n - 1) = n^2 over
 * (n + 1) n / 2 pairs: the average is 2n / (n + 1). n = 200000: a few BFS, not 200001. */
static void test_big_star(void **state) {
    (void)state;
    int64_t n = 200000, *e = malloc(sizeof *e * 2 * (size_t)n);
    for (int64_t x = 0; x < n; x++) e[2 * x] = 0, e[2 * x + 1] = x + 1;
    gsp_topo_t t;
    assert_int_equal(gsp_topo_from_edges(&t, n + 1, e, n, false, "K_{1,200000}"), GSP_OK);
    free(e);
    gsp_distances_t d;
    assert_int_equal(gsp_distances_large(&t, false, NULL, &d, NULL, NULL), GSP_OK);
    assert_int_equal(d.diameter, 2);
    assert_true(d.average_exact);
    assert_true(fabs(d.average_distance - 2.0 * (double)n / (double)(n + 1)) < 1e-12);
    assert_true(d.sources < 100);
    assert_string_equal(d.diameter_how, "iFUB");
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

/* A given cyclic order of generators (gsp_rotation_check) and Laplacian spectra, against what
 * is known by hand. On torus:5x5 (arcs +e1, +e2, -e1, -e2) the order 0 1 2 3 is the quarter
 * turn w(a, b) = (-b, a), a complete rotation; 0 2 1 3 would need w(-e1) = e2 while w(-e1) =
 * -w(e1) = e1: none. Laplacian eigenvalues: C4 has 2 - 2 cos(2 pi k / 4) = 0, 2, 2, 4; K4 has
 * 0 and n = 4 three times. */
static void test_rotation_check_laplacian(void **state) {
    (void)state;
    gsp_topo_t t;
    gsp_rotation_t r;
    assert_int_equal(gsp_topo_from_spec(&t, "torus:5x5"), GSP_OK);
    assert_int_equal(gsp_rotation_check(&t, (int[]){0, 1, 2, 3}, &r), GSP_OK);
    assert_true(r.found);
    for (int64_t a = 0; a < 5; a++)
        for (int64_t b = 0; b < 5; b++) assert_int_equal(r.omega[a * 5 + b], (5 - b) % 5 * 5 + a);
    gsp_rotation_destroy(&r);
    assert_int_equal(gsp_rotation_check(&t, (int[]){0, 2, 1, 3}, &r), GSP_OK);
    assert_false(r.found);
    gsp_rotation_destroy(&r);
    gsp_topo_destroy(&t);

    const char *specs[2] = {"cycle:4", "complete:4"};
    const double want[2][4] = {{0, 2, 2, 4}, {0, 4, 4, 4}};
    for (int k = 0; k < 2; k++) {
        double *eig = NULL;
        assert_int_equal(gsp_topo_from_spec(&t, specs[k]), GSP_OK);
        assert_int_equal(gsp_laplacian_spectrum(&t, &eig), GSP_OK);
        for (int i = 0; i < 4; i++) assert_true(fabs(eig[i] - want[k][i]) < 1e-9);
        gsp_free(eig);
        gsp_topo_destroy(&t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torus_diameter),   cmocka_unit_test(test_hypercube_distances),
        cmocka_unit_test(test_star_distances),   cmocka_unit_test(test_optcirc),
        cmocka_unit_test(test_hypercube_spectrum), cmocka_unit_test(test_cycle_spectrum),
        cmocka_unit_test(test_dense_matches_formula), cmocka_unit_test(test_vertex_transitive),
        cmocka_unit_test(test_rotations), cmocka_unit_test(test_ifub), cmocka_unit_test(test_ifub_small),
        cmocka_unit_test(test_big_star), cmocka_unit_test(test_rotation_check_laplacian),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
