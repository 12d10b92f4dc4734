/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_topo.c — the spec grammar and the node-index and arc-order conventions of docs/topology.md,
 * checked against hand-computed coordinates, and the errors for bad specs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "gossip/gossip.h"

static gsp_topo_t build(const char *spec) {
    gsp_topo_t t;
    gsp_err_t err = gsp_topo_from_spec(&t, spec);
    if (err) fail_msg("%s: %s", spec, gsp_errmsg());
    return t;
}

static int64_t arc(const gsp_topo_t *t, int64_t x, int i) { return t->adj[t->off[x] + i]; }

static void test_torus_conventions(void **state) {
    (void)state;
    gsp_topo_t t = build("torus:3x4x5");
    assert_int_equal(t.n, 60);
    assert_int_equal(t.dmin, 6);
    /* Node (1,2,3) is 1*20 + 2*5 + 3 = 33 (row-major, last coordinate fastest). */
    int64_t x = 33;
    assert_int_equal(arc(&t, x, 0), 2 * 20 + 2 * 5 + 3); /* +e1 */
    assert_int_equal(arc(&t, x, 1), 1 * 20 + 3 * 5 + 3); /* +e2 */
    assert_int_equal(arc(&t, x, 2), 1 * 20 + 2 * 5 + 4); /* +e3 */
    assert_int_equal(arc(&t, x, 3), 0 * 20 + 2 * 5 + 3); /* -e1 */
    assert_int_equal(arc(&t, x, 4), 1 * 20 + 1 * 5 + 3); /* -e2 */
    assert_int_equal(arc(&t, x, 5), 1 * 20 + 2 * 5 + 2); /* -e3 */
    assert_false(t.directed);
    assert_non_null(t.group);
    gsp_topo_destroy(&t);
    /* A side of 2 gives one arc in that dimension. */
    t = build("torus:2x3");
    assert_int_equal(t.dmin, 3);
    assert_int_equal(arc(&t, 4, 0), 1);     /* (1,1) +e1 -> (0,1) */
    assert_int_equal(arc(&t, 4, 1), 5);     /* +e2 -> (1,2) */
    assert_int_equal(arc(&t, 4, 2), 3);     /* -e2 -> (1,0) */
    gsp_topo_destroy(&t);
}

/* mesh: against brute force on coordinates (adjacent iff they differ by one in one coordinate),
 * the closed-form arc count 2 sum_j (Pj - 1) N / Pj, ascending neighbours. */
static void test_mesh_conventions(void **state) {
    (void)state;
    gsp_topo_t t = build("mesh:3x4x5");
    assert_int_equal(t.n, 60);
    assert_int_equal(t.m, 2 * (2 * 20 + 3 * 15 + 4 * 12));
    assert_null(t.group);
    for (int64_t x = 0; x < 60; x++) {
        int64_t cx[3] = {x / 20, x / 5 % 4, x % 5}, want = 0;
        for (int64_t y = 0; y < 60; y++) {
            int64_t cy[3] = {y / 20, y / 5 % 4, y % 5}, d = 0;
            for (int j = 0; j < 3; j++) d += cx[j] > cy[j] ? cx[j] - cy[j] : cy[j] - cx[j];
            if (d != 1) continue;
            assert_true(want < t.off[x + 1] - t.off[x]);
            assert_int_equal(arc(&t, x, (int)want), y); /* ascending */
            want++;
        }
        assert_int_equal(t.off[x + 1] - t.off[x], want);
    }
    gsp_topo_destroy(&t);
    /* One dimension: a path. */
    t = build("mesh:5");
    assert_int_equal(t.m, 8);
    assert_int_equal(t.off[1] - t.off[0], 1);
    assert_int_equal(arc(&t, 2, 0), 1);
    assert_int_equal(arc(&t, 2, 1), 3);
    gsp_topo_destroy(&t);
}

static void test_hypercube_conventions(void **state) {
    (void)state;
    gsp_topo_t t = build("hypercube:5");
    assert_int_equal(t.n, 32);
    for (int64_t x = 0; x < 32; x++)
        for (int j = 0; j < 5; j++) assert_int_equal(arc(&t, x, j), x ^ (1 << j));
    gsp_topo_destroy(&t);
}

static void test_star_conventions(void **state) {
    (void)state;
    gsp_topo_t t = build("star:4");
    assert_int_equal(t.n, 24);
    assert_int_equal(t.dmin, 3);
    /* Rank 0 is the identity 0123; its neighbours swap position 0 with 1, 2, 3:
     * 1023 (rank 6), 2103 (rank 14), 3120 (rank 21) in lexicographic order. */
    assert_int_equal(arc(&t, 0, 0), 6);
    assert_int_equal(arc(&t, 0, 1), 14);
    assert_int_equal(arc(&t, 0, 2), 21);
    /* 1302 has rank 1*6 + 2*2 + 0 + 0 = 10; swapping positions 0 and 3 gives 2301 = 16. */
    int w[4];
    gsp_perm_unrank(4, 10, w);
    assert_int_equal(w[0], 1);
    assert_int_equal(w[1], 3);
    assert_int_equal(w[2], 0);
    assert_int_equal(w[3], 2);
    assert_int_equal(arc(&t, 10, 2), 16);
    gsp_topo_destroy(&t);
}

static void test_circulant_conventions(void **state) {
    (void)state;
    gsp_topo_t t = build("circulant:10:2,5,3");
    /* +2 +5 +3, then -2 -3 (-5 = +5 is a duplicate). */
    assert_int_equal(t.dmin, 5);
    assert_int_equal(arc(&t, 7, 0), 9);
    assert_int_equal(arc(&t, 7, 1), 2);
    assert_int_equal(arc(&t, 7, 2), 0);
    assert_int_equal(arc(&t, 7, 3), 5);
    assert_int_equal(arc(&t, 7, 4), 4);
    gsp_topo_destroy(&t);
    t = build("cycle:7");
    assert_int_equal(t.dmin, 2);
    assert_int_equal(arc(&t, 0, 1), 6);
    gsp_topo_destroy(&t);
    t = build("complete:6");
    assert_int_equal(t.dmin, 5);
    assert_int_equal(t.m, 30);
    gsp_topo_destroy(&t);
    /* optcirc:35 is G(35; 4, 5), the paper's example. */
    t = build("optcirc:35");
    assert_int_equal(arc(&t, 0, 0), 4);
    assert_int_equal(arc(&t, 0, 1), 5);
    assert_int_equal(arc(&t, 0, 2), 31);
    assert_int_equal(arc(&t, 0, 3), 30);
    gsp_topo_destroy(&t);
}

static void test_cayley_perm_product_file(void **state) {
    (void)state;
    gsp_topo_t t = build("cayley:Z4xZ6:(1,0),(0,2)");
    assert_int_equal(t.n, 24);
    assert_int_equal(t.dmin, 4); /* given, then the missing inverses (-1,0), (0,-2) */
    assert_int_equal(arc(&t, 0, 0), 6);
    assert_int_equal(arc(&t, 0, 1), 2);
    assert_int_equal(arc(&t, 0, 2), 18);
    assert_int_equal(arc(&t, 0, 3), 4);
    gsp_topo_destroy(&t);
    /* Pancake graph P4: prefix reversals of length 2, 3, 4 are involutions. */
    t = build("perm:4:(1 0 2 3),(2 1 0 3),(3 2 1 0)");
    assert_int_equal(t.n, 24);
    assert_int_equal(t.dmin, 3);
    gsp_topo_destroy(&t);
    /* A 4-cycle on S_3 generator gets its inverse appended. */
    t = build("perm:3:(1 2 0)");
    assert_int_equal(t.dmin, 2);
    gsp_topo_destroy(&t);
    t = build("product(cycle:5,complete:2)");
    assert_int_equal(t.n, 10);
    assert_int_equal(t.dmin, 3);
    assert_non_null(t.group);
    /* Node (a, b) = 2a + b: arcs of C5 first, then the K2 arc. */
    assert_int_equal(arc(&t, 3, 0), 5);
    assert_int_equal(arc(&t, 3, 1), 1);
    assert_int_equal(arc(&t, 3, 2), 2);
    gsp_topo_destroy(&t);
    char spec[512];
    snprintf(spec, sizeof spec, "product(file:%s/path4.txt,cycle:3)", GOSSIP_TEST_DATA);
    t = build(spec);
    assert_int_equal(t.n, 12);
    assert_null(t.group);
    assert_int_equal(t.dmin, 3);
    assert_int_equal(t.dmax, 4);
    gsp_topo_destroy(&t);
    snprintf(spec, sizeof spec, "file:%s/petersen.txt", GOSSIP_TEST_DATA);
    t = build(spec);
    assert_int_equal(t.n, 10);
    assert_int_equal(t.m, 30);
    assert_false(t.directed);
    /* Ascending neighbours. */
    assert_int_equal(arc(&t, 0, 0), 1);
    assert_int_equal(arc(&t, 0, 1), 4);
    assert_int_equal(arc(&t, 0, 2), 5);
    gsp_topo_destroy(&t);
    snprintf(spec, sizeof spec, "file:%s/dicycle3.txt", GOSSIP_TEST_DATA);
    t = build(spec);
    assert_true(t.directed);
    assert_int_equal(t.m, 3);
    gsp_topo_destroy(&t);
}

static void expect_error(const char *spec, gsp_err_t want) {
    gsp_topo_t t;
    gsp_err_t err = gsp_topo_from_spec(&t, spec);
    if (err != want)
        fail_msg("%s: got %s (%s), want %s", spec, gsp_strerror_name(err), gsp_errmsg(),
                 gsp_strerror_name(want));
    /* The detail names the spec (for a product, the factor at fault). */
    if (strncmp(spec, "product", 7) && strncmp(spec, "file", 4) && *spec)
        assert_non_null(strstr(gsp_errmsg(), spec));
}

static void test_bad_specs(void **state) {
    (void)state;
    expect_error("torus:0x5", GSP_ERR_RANGE);
    expect_error("torus:5x", GSP_ERR_PARSE);
    expect_error("torus:", GSP_ERR_PARSE);
    /* Numbers beyond 64 bits are too large, not malformed. */
    expect_error("torus:99999999999999999999", GSP_ERR_TOOBIG);
    expect_error("cycle:99999999999999999999", GSP_ERR_TOOBIG);
    expect_error("circulant:100:99999999999999999999", GSP_ERR_OVERFLOW);
    expect_error("hypercube:99999999999999999999", GSP_ERR_OVERFLOW);
    expect_error("torus:100000x100000", GSP_ERR_TOOBIG);
    expect_error("mesh:1x4", GSP_ERR_RANGE);
    expect_error("mesh:3x", GSP_ERR_PARSE);
    expect_error("mesh:100000x100000", GSP_ERR_TOOBIG);
    expect_error("mesh:99999999999999999999", GSP_ERR_TOOBIG);
    expect_error("mesh:3x4@1,1", GSP_ERR_NOTAPPLIC);
    expect_error("circulant:10:", GSP_ERR_PARSE);
    expect_error("circulant:10:0", GSP_ERR_RANGE);
    expect_error("circulant:10:20", GSP_ERR_RANGE);
    expect_error("star:13", GSP_ERR_TOOBIG);
    /* Arc counts beyond 64 bits: refused without signed overflow (UBSan in the asan tier). */
    expect_error("star:20", GSP_ERR_TOOBIG);
    expect_error("complete:3037000501", GSP_ERR_TOOBIG);
    expect_error("hypercube:62", GSP_ERR_OVERFLOW);
    expect_error("star:21", GSP_ERR_OVERFLOW);
    expect_error("star:1", GSP_ERR_RANGE);
    expect_error("hypercube:64", GSP_ERR_OVERFLOW);
    expect_error("hypercube:30", GSP_ERR_TOOBIG);
    expect_error("hypercube:0", GSP_ERR_RANGE);
    expect_error("optcirc:4", GSP_ERR_RANGE);
    expect_error("nonsense:3", GSP_ERR_PARSE);
    expect_error("nonsense", GSP_ERR_PARSE);
    expect_error("", GSP_ERR_PARSE);
    expect_error("cayley:Z5xZ5:(1,0,0)", GSP_ERR_PARSE);
    expect_error("cayley:Z5:(0)", GSP_ERR_RANGE);
    expect_error("perm:3:(0 1 1)", GSP_ERR_RANGE);
    expect_error("perm:3:(0 1)", GSP_ERR_PARSE);
    expect_error("product(torus:3x3)", GSP_ERR_PARSE);
    expect_error("product(torus:3x3,torus:0x1)", GSP_ERR_RANGE);
    expect_error("product(torus:1000x1000,torus:1000x1000)", GSP_ERR_TOOBIG);
    expect_error("file:/nonexistent/graph.txt", GSP_ERR_IO);
    char spec[512];
    snprintf(spec, sizeof spec, "file:%s/bad_token.txt", GOSSIP_TEST_DATA);
    expect_error(spec, GSP_ERR_PARSE);
    assert_non_null(strstr(gsp_errmsg(), ":3:")); /* names the line */
    snprintf(spec, sizeof spec, "file:%s/bad_range.txt", GOSSIP_TEST_DATA);
    expect_error(spec, GSP_ERR_RANGE);
    snprintf(spec, sizeof spec, "file:%s/bad_loop.txt", GOSSIP_TEST_DATA);
    expect_error(spec, GSP_ERR_RANGE);
    snprintf(spec, sizeof spec, "file:%s", GOSSIP_TEST_DATA);
    expect_error(spec, GSP_ERR_IO); /* a directory */
}

static void test_group_laws(void **state) {
    (void)state;
    /* Associativity, identity and inverses on every family's group, by brute force. */
    const char *specs[] = {"torus:3x4", "hypercube:3", "star:4", "product(star:3,cycle:4)",
                           "cayley:Z2xZ6:(1,1)"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        gsp_topo_t t = build(specs[s]);
        const gsp_group_t *g = t.group;
        assert_non_null(g);
        for (int64_t x = 0; x < t.n; x++) {
            assert_int_equal(gsp_group_mul(g, 0, x), x);
            assert_int_equal(gsp_group_mul(g, x, gsp_group_inv(g, x)), 0);
            for (int64_t y = 0; y < t.n; y += 3)
                for (int64_t z = 0; z < t.n; z += 5)
                    assert_int_equal(gsp_group_mul(g, gsp_group_mul(g, x, y), z),
                                     gsp_group_mul(g, x, gsp_group_mul(g, y, z)));
            for (int i = 0; i < t.ngens; i++)
                assert_int_equal(arc(&t, x, i), gsp_group_mul(g, t.gens[i], x));
        }
        gsp_topo_destroy(&t);
    }
}

/* Edge lists with names and 1-based ids (independent truth: the edges written by hand). */
static void test_file_names(void **state) {
    (void)state;
    const char *path = "/tmp/gossip_test_names.txt";
    FILE *f = fopen(path, "w");
    fputs("# three hosts and a switch\nsw1 h1\nsw1 h2\nsw1 h3\nh1 h2\n", f);
    fclose(f);
    gsp_topo_t t;
    assert_int_equal(gsp_topo_from_spec(&t, "file:/tmp/gossip_test_names.txt"), GSP_OK);
    assert_int_equal(t.n, 4);
    assert_int_equal(t.m, 8);
    assert_non_null(t.names);
    assert_string_equal(t.names[0], "sw1");
    assert_string_equal(t.names[3], "h3");
    assert_true(gsp_topo_arc_index(&t, 0, 3) >= 0 && gsp_topo_arc_index(&t, 1, 2) >= 0 && gsp_topo_arc_index(&t, 2, 3) < 0);
    gsp_topo_destroy(&t);
    f = fopen(path, "w");
    fputs("1 2\n2 3\n", f);
    fclose(f);
    assert_int_equal(gsp_topo_from_spec(&t, "file:/tmp/gossip_test_names.txt"), GSP_OK);
    assert_int_equal(t.n, 3);
    assert_string_equal(t.names[0], "1");
    assert_true(gsp_topo_arc_index(&t, 0, 1) >= 0 && gsp_topo_arc_index(&t, 1, 2) >= 0);
    gsp_topo_destroy(&t);
    f = fopen(path, "w");
    fputs("0 1\n1 2\n", f);
    fclose(f);
    assert_int_equal(gsp_topo_from_spec(&t, "file:/tmp/gossip_test_names.txt"), GSP_OK);
    assert_null(t.names); /* 0-based integer ids: no names */
    gsp_topo_destroy(&t);
    f = fopen(path, "w");
    fputs("a b\nb 7\n", f);
    fclose(f);
    assert_int_equal(gsp_topo_from_spec(&t, "file:/tmp/gossip_test_names.txt"), GSP_ERR_PARSE);
    f = fopen(path, "w");
    fputs("nodes 3\na b\n", f);
    fclose(f);
    assert_int_equal(gsp_topo_from_spec(&t, "file:/tmp/gossip_test_names.txt"), GSP_ERR_PARSE);
    remove(path);
}

/* Known Cayley graphs written as shuffled edge lists are recognised (nauty), with a map that
 * is an isomorphism onto the matched spec, and plan with the spec's rounds; the Petersen graph
 * (vertex-transitive, not a Cayley graph) matches nothing. */
static void test_cayley_match(void **state) {
    (void)state;
    static const char *specs[] = {"torus:8x8", "torus:3x7", "hypercube:5", "star:4", "circulant:13:1,5", "torus:3x3x3", "complete:7"};
    uint64_t rng = 12345;
    for (size_t c = 0; c < sizeof specs / sizeof *specs; c++) {
        gsp_topo_t t = build(specs[c]);
        int64_t n = t.n, *perm = malloc(sizeof *perm * (size_t)n);
        for (int64_t v = 0; v < n; v++) perm[v] = v;
        for (int64_t v = n - 1; v > 0; v--) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            int64_t j = (int64_t)(rng % (uint64_t)(v + 1)), x = perm[v];
            perm[v] = perm[j];
            perm[j] = x;
        }
        char path[64], spec[80];
        snprintf(path, sizeof path, "/tmp/gossip_iso_%d.txt", (int)getpid());
        FILE *f = fopen(path, "w");
        for (int64_t x = 0; x < n; x++)
            for (int64_t a = t.off[x]; a < t.off[x + 1]; a++)
                if (x < t.adj[a]) fprintf(f, "%lld %lld\n", (long long)perm[x], (long long)perm[t.adj[a]]);
        fclose(f);
        snprintf(spec, sizeof spec, "file:%s", path);
        gsp_topo_t ft = build(spec);
        char *ms = NULL;
        int64_t *map = NULL;
        assert_int_equal(gsp_cayley_match(&ft, &ms, &map), GSP_OK);
        if (!ms) fail_msg("%s shuffled: not recognised", specs[c]);
        gsp_topo_t mt = build(ms);
        unsigned char *hit = calloc((size_t)n, 1);
        for (int64_t v = 0; v < n; v++) {
            assert_true(map[v] >= 0 && map[v] < n && !hit[map[v]]);
            hit[map[v]] = 1;
            for (int64_t a = ft.off[v]; a < ft.off[v + 1]; a++)
                if (gsp_topo_arc_index(&mt, map[v], map[ft.adj[a]]) < 0) fail_msg("%s: the map is not an isomorphism onto %s", specs[c], ms);
        }
        /* The file plans in the spec's rounds. */
        gsp_distances_t d1, d2;
        assert_int_equal(gsp_distances(&t, true, &d1, NULL, NULL), GSP_OK);
        assert_int_equal(gsp_distances(&ft, false, &d2, NULL, NULL), GSP_OK);
        gsp_plan_in_t i1 = {&t, &d1, gsp_model_default(), -1, 1, NULL, NULL, 0, 0}, i2 = {&ft, &d2, gsp_model_default(), -1, 1, NULL, NULL, 0, 0};
        gsp_plan_t p1, p2;
        assert_int_equal(gsp_plan(&i1, GSP_COLL_ALLGATHER, "auto", &p1), GSP_OK);
        assert_int_equal(gsp_plan(&i2, GSP_COLL_ALLGATHER, "auto", &p2), GSP_OK);
        if (p2.sched.nrounds != p1.sched.nrounds) fail_msg("%s shuffled: %lld rounds, the spec %lld", specs[c], (long long)p2.sched.nrounds, (long long)p1.sched.nrounds);
        assert_true(p2.report.ok);
        gsp_plan_destroy(&p1);
        gsp_plan_destroy(&p2);
        gsp_distances_destroy(&d1);
        gsp_distances_destroy(&d2);
        free(hit);
        gsp_free(ms);
        gsp_free(map);
        free(perm);
        gsp_topo_destroy(&mt);
        gsp_topo_destroy(&ft);
        gsp_topo_destroy(&t);
        remove(path);
    }
    gsp_topo_t pt = build("file:" GOSSIP_TEST_DATA "/petersen.txt");
    char *ms = NULL;
    int64_t *map = NULL;
    assert_int_equal(gsp_cayley_match(&pt, &ms, &map), GSP_OK);
    assert_null(ms);
    assert_null(map);
    gsp_topo_destroy(&pt);
}

/* Is it a Cayley graph at all (a regular subgroup of Aut)? Independent truth: a generalized
 * Petersen graph GP(n, k) (outer cycle, spokes, inner jumps of k) is vertex-transitive iff
 * k^2 = +-1 (mod n) or (n, k) = (10, 2), and a Cayley graph iff k^2 = 1 (mod n) (Nedela and
 * Skoviera; Lovrecic Sarazin): checked for every vertex-transitive GP(n, k) with n <= 24, among
 * them Petersen GP(5, 2) and the dodecahedron GP(10, 2), both with |Aut| = 120. A Cayley graph
 * of S4 given as a file is found; the Frucht graph is not vertex-transitive. */
static void test_cayley_regular(void **state) {
    (void)state;
    char path[64], spec[80];
    snprintf(path, sizeof path, "/tmp/gossip_gp_%d.txt", (int)getpid());
    snprintf(spec, sizeof spec, "file:%s", path);
    int checked = 0;
    for (int n = 5; n <= 24; n++)
        for (int k = 2; 2 * k < n; k++) {
            bool vt = (k * k) % n == 1 || (k * k) % n == n - 1 || (n == 10 && k == 2);
            if (!vt) continue;
            FILE *f = fopen(path, "w");
            for (int i = 0; i < n; i++)
                fprintf(f, "%d %d\n%d %d\n%d %d\n", i, (i + 1) % n, i, n + i, n + i, n + (i + k) % n);
            fclose(f);
            gsp_topo_t t = build(spec);
            int ans;
            double aut;
            assert_int_equal(gsp_cayley_regular(&t, &ans, &aut, NULL), GSP_OK);
            int want = (k * k) % n == 1;
            if (ans != want) fail_msg("GP(%d, %d): Cayley %d, want %d (|Aut| %g)", n, k, ans, want, aut);
            if (want) {
                /* The regular subgroup as a table: a group (associative, 0 the identity), whose
                 * Cayley graph on node 0's neighbours is t node for node. */
                gsp_group_t *g = NULL;
                assert_int_equal(gsp_cayley_regular(&t, &ans, &aut, &g), GSP_OK);
                assert_non_null(g);
                int64_t N = g->order;
                assert_int_equal(N, t.n);
                for (int64_t x = 0; x < N; x++)
                    for (int64_t y = 0; y < N; y++)
                        for (int64_t z = 0; z < N; z += 5)
                            assert_int_equal(gsp_group_mul(g, gsp_group_mul(g, x, y), z), gsp_group_mul(g, x, gsp_group_mul(g, y, z)));
                gsp_topo_t c;
                assert_int_equal(gsp_topo_cayley(&c, g, t.adj + t.off[0], (int)(t.off[1] - t.off[0]), false, "table"), GSP_OK);
                for (int64_t x = 0; x < N; x++)
                    for (int64_t a = c.off[x]; a < c.off[x + 1]; a++)
                        if (gsp_topo_arc_index(&t, x, c.adj[a]) < 0) fail_msg("GP(%d, %d): the table's Cayley graph is not t", n, k);
                gsp_topo_destroy(&c); /* frees g */
            }
            if ((n == 5 || n == 10) && k == 2 && aut != 120) fail_msg("GP(%d, 2): |Aut| %g, want 120", n, aut);
            gsp_topo_destroy(&t);
            checked++;
        }
    assert_true(checked >= 10);
    /* A Cayley graph of S4 on three involutions, as an edge list. */
    gsp_topo_t s4 = build("perm:4:(1 0 2 3),(2 1 0 3),(3 2 1 0)");
    FILE *f = fopen(path, "w");
    for (int64_t x = 0; x < s4.n; x++)
        for (int64_t a = s4.off[x]; a < s4.off[x + 1]; a++)
            if (x < s4.adj[a]) fprintf(f, "%lld %lld\n", (long long)(s4.n - 1 - x), (long long)(s4.n - 1 - s4.adj[a]));
    fclose(f);
    gsp_topo_t t = build(spec);
    int ans;
    double aut;
    assert_int_equal(gsp_cayley_regular(&t, &ans, &aut, NULL), GSP_OK);
    assert_int_equal(ans, 1);
    gsp_topo_destroy(&t);
    gsp_topo_destroy(&s4);
    t = build("file:" GOSSIP_TEST_DATA "/frucht.txt");
    assert_int_equal(gsp_cayley_regular(&t, &ans, &aut, NULL), GSP_OK);
    assert_int_equal(ans, 0);
    gsp_topo_destroy(&t);
    remove(path);
}

/* The group and product API against arithmetic done here. Z3 x Z4 of torus:3x4 is row-major:
 * element c0 * 4 + c1, so 7 = (1, 3) and (2, 1) = 9; its copy multiplies the same. Z3 by its
 * table: 1 * 2 = 0 and 1^-1 = 2; a table whose 0 is not the identity is refused. Permutation
 * ranks are lexicographic: 0123 is 0, 1023 is 3! = 6, 3210 is 23, and rank inverts unrank.
 * The product of cycle:3 and cycle:4 has node a * 4 + b adjacent to (a +- 1, b) and (a, b +- 1),
 * hashes like the spec product(cycle:3,cycle:4) and unlike cycle:12; generator inverses: the
 * torus's +e_j and -e_j (arcs j and j + 2), each of the hypercube's bit flips its own. */
static void test_groups_products_hash(void **state) {
    (void)state;
    gsp_topo_t t, *a = gsp_malloc(sizeof *a), *b = gsp_malloc(sizeof *b), p, q;
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(gsp_topo_from_spec(&t, "torus:3x4"), GSP_OK);
    int64_t c[2];
    gsp_group_coords(t.group, 7, c);
    assert_int_equal(c[0], 1);
    assert_int_equal(c[1], 3);
    assert_int_equal(gsp_group_index(t.group, (int64_t[]){2, 1}), 9);
    gsp_group_t *g = NULL;
    assert_int_equal(gsp_group_copy(t.group, &g), GSP_OK);
    for (int64_t x = 0; x < 12; x++)
        for (int64_t y = 0; y < 12; y++) assert_int_equal(gsp_group_mul(g, x, y), gsp_group_mul(t.group, x, y));
    gsp_group_free(g);
    gsp_group_free(NULL);
    for (int i = 0; i < t.ngens; i++) assert_int_equal(gsp_topo_gen_inverse(&t, i), (i + 2) % 4);
    gsp_topo_destroy(&t);
    assert_int_equal(gsp_topo_from_spec(&t, "hypercube:3"), GSP_OK);
    for (int i = 0; i < t.ngens; i++) assert_int_equal(gsp_topo_gen_inverse(&t, i), i);
    gsp_topo_destroy(&t);

    const int32_t z3[9] = {0, 1, 2, 1, 2, 0, 2, 0, 1}, bad[9] = {1, 0, 2, 0, 1, 2, 2, 2, 0};
    assert_int_equal(gsp_group_table(3, z3, &g), GSP_OK);
    assert_int_equal(gsp_group_mul(g, 1, 2), 0);
    assert_int_equal(gsp_group_inv(g, 1), 2);
    gsp_group_free(g);
    assert_int_equal(gsp_group_table(3, bad, &g), GSP_ERR_RANGE);

    assert_int_equal(gsp_perm_rank(4, (int[]){0, 1, 2, 3}), 0);
    assert_int_equal(gsp_perm_rank(4, (int[]){1, 0, 2, 3}), 6);
    assert_int_equal(gsp_perm_rank(4, (int[]){3, 2, 1, 0}), 23);
    for (int64_t r = 0; r < 24; r++) {
        int w[4];
        gsp_perm_unrank(4, r, w);
        assert_int_equal(gsp_perm_rank(4, w), r);
    }

    assert_int_equal(gsp_topo_from_spec(a, "cycle:3"), GSP_OK);
    assert_int_equal(gsp_topo_from_spec(b, "cycle:4"), GSP_OK);
    assert_int_equal(gsp_topo_product(&p, a, b), GSP_OK); /* takes a and b */
    assert_int_equal(p.n, 12);
    assert_int_equal(p.m, 48);
    for (int64_t x = 0; x < 12; x++) {
        int64_t i = x / 4, j = x % 4;
        assert_int_equal(p.off[x + 1] - p.off[x], 4);
        assert_true(gsp_topo_arc_index(&p, x, (i + 1) % 3 * 4 + j) >= 0);
        assert_true(gsp_topo_arc_index(&p, x, (i + 2) % 3 * 4 + j) >= 0);
        assert_true(gsp_topo_arc_index(&p, x, i * 4 + (j + 1) % 4) >= 0);
        assert_true(gsp_topo_arc_index(&p, x, i * 4 + (j + 3) % 4) >= 0);
    }
    char hp[GSP_TOPO_HASH_LEN], hq[GSP_TOPO_HASH_LEN], hc[GSP_TOPO_HASH_LEN];
    gsp_topo_hash(&p, hp);
    assert_int_equal(strlen(hp), GSP_TOPO_HASH_LEN - 1);
    assert_memory_equal(hp, "fnv1a64:", 8);
    assert_int_equal(gsp_topo_from_spec(&q, "product(cycle:3,cycle:4)"), GSP_OK);
    gsp_topo_hash(&q, hq);
    assert_string_equal(hp, hq);
    gsp_topo_destroy(&q);
    assert_int_equal(gsp_topo_from_spec(&q, "cycle:12"), GSP_OK);
    gsp_topo_hash(&q, hc);
    assert_string_not_equal(hp, hc);
    gsp_topo_destroy(&q);
    gsp_topo_destroy(&p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_names),
        cmocka_unit_test(test_torus_conventions),    cmocka_unit_test(test_mesh_conventions),
        cmocka_unit_test(test_hypercube_conventions),
        cmocka_unit_test(test_star_conventions),     cmocka_unit_test(test_circulant_conventions),
        cmocka_unit_test(test_cayley_perm_product_file), cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_group_laws),           cmocka_unit_test(test_cayley_match),
        cmocka_unit_test(test_cayley_regular),
        cmocka_unit_test(test_groups_products_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
