/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_global_sum.c — the global-sum paper reproduced: hypercubes in K = D rounds (Corollary 2),
 * complete graphs in 1, the Petersen graph in 2 (Theorem 1 and Corollary 7), cycles in
 * floor(n/2) = D, C5 x K2 in D = 3 although it is not distance-regular (Theorem 3), star graphs
 * by spectral in 2k - 2 against D = floor(3(k-1)/2). Every schedule passes the linear-form check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gossip/gossip.h"
#include "gossip/algo.h"

static int64_t sum_rounds(const char *spec, const char *method, int64_t *diameter) {
    gsp_topo_t t;
    gsp_distances_t d;
    gsp_vt_t vt;
    gsp_plan_t plan;
    if (gsp_topo_from_spec(&t, spec)) fail_msg("%s: %s", spec, gsp_errmsg());
    assert_int_equal(gsp_vertex_transitive(&t, &vt), GSP_OK);
    assert_int_equal(gsp_distances(&t, gsp_vt_yes(vt), &d, NULL, NULL), GSP_OK);
    gsp_plan_in_t in = {&t, &d, gsp_model_default(), -1, 3, NULL, NULL, 0, 0};
    if (gsp_plan(&in, GSP_COLL_ALLREDUCE, method, &plan)) fail_msg("%s %s: %s", spec, method, gsp_errmsg());
    gsp_report_t rep;
    assert_int_equal(gsp_sched_verify(&plan.sched, &t, 11, &rep), GSP_OK);
    if (!rep.ok) fail_msg("%s %s: %s", spec, method, rep.message);
    if (t.n <= GSP_VERIFY_FORMS_MAX) assert_true(rep.exact_forms);
    assert_true(rep.max_rel_error <= 1e-9);
    int64_t r = plan.sched.nrounds;
    if (diameter) *diameter = d.diameter;
    gsp_plan_destroy(&plan);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
    return r;
}

static void expect(const char *spec, const char *method, int64_t want) {
    int64_t got = sum_rounds(spec, method, NULL);
    if (got != want) fail_msg("%s (%s): %lld rounds, want %lld", spec, method, (long long)got, (long long)want);
}

static void test_corollary2_hypercubes(void **state) {
    (void)state;
    char spec[32];
    for (int k = 1; k <= 11; k++) {
        snprintf(spec, sizeof spec, "hypercube:%d", k);
        expect(spec, "spectral", k);
        expect(spec, "auto", k);
    }
}

static void test_complete_petersen_cycles(void **state) {
    (void)state;
    char spec[64];
    for (int n = 2; n <= 12; n++) {
        snprintf(spec, sizeof spec, "complete:%d", n);
        expect(spec, "auto", 1);
    }
    snprintf(spec, sizeof spec, "file:%s/petersen.txt", GOSSIP_TEST_DATA);
    expect(spec, "spectral", 2);
    expect(spec, "diameter2", 2);
    for (int n = 3; n <= 40; n++) {
        snprintf(spec, sizeof spec, "cycle:%d", n);
        expect(spec, "auto", n / 2);
    }
}

static void test_theorem3_products(void **state) {
    (void)state;
    int64_t D;
    /* C5 x K2: not distance-regular (6 distinct eigenvalues: spectral needs 5), product gives 3 = D. */
    expect("product(cycle:5,complete:2)", "spectral", 5);
    assert_int_equal(sum_rounds("product(cycle:5,complete:2)", "product", &D), 3);
    assert_int_equal(D, 3);
    int64_t r = sum_rounds("product(cycle:7,cycle:4)", "auto", &D);
    assert_int_equal(r, D);
    r = sum_rounds("product(product(complete:3,cycle:6),hypercube:3)", "auto", &D);
    assert_int_equal(r, D);
}

static void test_tori_are_products(void **state) {
    (void)state;
    /* Tori are products of cycles, each sum-optimal by spectral: Theorem 3 gives D. */
    char spec[64];
    for (int a = 2; a <= 8; a++)
        for (int b = a; b <= 8; b++) {
            int64_t D;
            snprintf(spec, sizeof spec, "torus:%dx%d", a, b);
            int64_t r = sum_rounds(spec, "auto", &D);
            if (r != D) fail_msg("%s: %lld rounds, D = %lld", spec, (long long)r, (long long)D);
        }
}

static void test_diameter2(void **state) {
    (void)state;
    /* Diameter-2 graphs of every shape: K_{3,3} = circulant:6:1,3, wheel-like circulants, the
     * Petersen graph's complement-free cousins, and a non-regular one (star K_{1,4} + edge). */
    expect("circulant:6:1,3", "diameter2", 2);
    expect("circulant:13:1,5", "diameter2", 2);
    char spec[512];
    snprintf(spec, sizeof spec, "file:%s/frucht.txt", GOSSIP_TEST_DATA);
    expect(spec, "tree", 2 * 4 - 2); /* centre of eccentricity 3 */
}

static void test_star_graphs(void **state) {
    (void)state;
    /* Spectral: 2k - 2 rounds (integer spectrum -(k-1)..k-1); D = floor(3(k-1)/2). (S(3) is the
     * 6-cycle, distance-regular: 3 rounds = D.) */
    for (int k = 4; k <= 6; k++) {
        char spec[32];
        int64_t D;
        snprintf(spec, sizeof spec, "star:%d", k);
        int64_t r = sum_rounds(spec, "spectral", &D);
        assert_int_equal(r, 2 * k - 2);
        assert_int_equal(D, 3 * (k - 1) / 2);
    }
}

static void test_theorem5_approx(void **state) {
    (void)state;
    /* The measured relative variance never exceeds max|p|^2, and more rounds shrink the bound. */
    const char *specs[] = {"torus:16x16", "hypercube:8", "cycle:40", "star:5", "optcirc:61"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        gsp_topo_t t;
        gsp_distances_t d;
        assert_int_equal(gsp_topo_from_spec(&t, specs[i]), GSP_OK);
        assert_int_equal(gsp_distances(&t, true, &d, NULL, NULL), GSP_OK);
        double prev = 2;
        for (int64_t m = 1; m < d.diameter; m++) {
            gsp_plan_in_t in = {&t, &d, gsp_model_default(), -1, (uint64_t)m, NULL, NULL, m, 0};
            gsp_plan_t plan;
            if (gsp_plan(&in, GSP_COLL_ALLREDUCE, "approx", &plan)) fail_msg("%s m=%lld: %s", specs[i], (long long)m, gsp_errmsg());
            double bound = plan.method->variance_bound(&in);
            assert_int_equal(plan.sched.nrounds, m);
            assert_false(plan.optimal);
            if (plan.report.rel_variance > bound * (1 + 1e-9))
                fail_msg("%s m=%lld: relative variance %g above the bound %g", specs[i], (long long)m, plan.report.rel_variance, bound);
            assert_true(bound < prev);
            prev = bound;
            gsp_plan_destroy(&plan);
        }
        gsp_distances_destroy(&d);
        gsp_topo_destroy(&t);
    }
}

static int progress_calls;
static void count_progress(void *ctx, const char *what, double fraction) {
    (void)ctx;
    assert_non_null(what);
    assert_true(fraction >= 0 && fraction < 1);
    progress_calls++;
}

/* Problem B (gsp_problemb_search) against what is known without it: on the 3-cube the
 * dimension exchange W_t = I + P_t (P_t flips bit t) is a 3-round protocol, so one is found,
 * and the test multiplies the returned weights out itself and gets J; on C6 (diameter 3) no
 * 2-round protocol exists, since W_2 W_1 has entry (3, 0) = 0 whatever the weights, so the
 * residual is at least 1. */
static void test_problemb_search(void **state) {
    (void)state;
    gsp_topo_t t;
    gsp_problemb_t pb;
    assert_int_equal(gsp_topo_from_spec(&t, "hypercube:3"), GSP_OK);
    progress_calls = 0;
    assert_int_equal(gsp_problemb_search(&t, 3, 20, 5, count_progress, NULL, &pb), GSP_OK);
    assert_true(pb.found);
    assert_true(progress_calls >= 1 && progress_calls == pb.starts);
    assert_int_equal(pb.nparam, t.ngens + 1); /* a Cayley graph: diagonal, one per generator */
    enum { N = 8 };
    double P[N][N], W[N][N], Q[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) P[i][j] = i == j;
    for (int64_t r = 0; r < 3; r++) {
        memset(W, 0, sizeof W);
        for (int v = 0; v < N; v++) W[v][v] = pb.w[r * pb.nparam];
        for (int u = 0; u < N; u++)
            for (int64_t a = t.off[u]; a < t.off[u + 1]; a++) W[t.adj[a]][u] += pb.w[r * pb.nparam + 1 + (a - t.off[u])];
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                Q[i][j] = 0;
                for (int k = 0; k < N; k++) Q[i][j] += W[i][k] * P[k][j];
            }
        memcpy(P, Q, sizeof P);
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) assert_true(fabs(P[i][j] - 1) < 1e-9);
    gsp_problemb_destroy(&pb);
    gsp_problemb_destroy(&pb); /* a zeroed result: a no-op */
    assert_int_equal(gsp_problemb_search(&t, 0, 1, 1, NULL, NULL, &pb), GSP_ERR_RANGE);
    gsp_topo_destroy(&t);

    assert_int_equal(gsp_topo_from_spec(&t, "cycle:6"), GSP_OK);
    assert_int_equal(gsp_problemb_search(&t, 2, 3, 1, NULL, NULL, &pb), GSP_OK);
    assert_false(pb.found);
    assert_int_equal(pb.starts, 3);
    assert_true(pb.residual >= 1 - 1e-9);
    gsp_problemb_destroy(&pb);
    gsp_topo_destroy(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corollary2_hypercubes), cmocka_unit_test(test_complete_petersen_cycles),
        cmocka_unit_test(test_theorem3_products), cmocka_unit_test(test_tori_are_products),
        cmocka_unit_test(test_diameter2), cmocka_unit_test(test_star_graphs), cmocka_unit_test(test_theorem5_approx),
        cmocka_unit_test(test_problemb_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
