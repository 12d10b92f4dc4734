/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_packet_gossip.c — the packet-gossip paper's results reproduced by construction and
 * proved by the verifier (the O(N d) balanced-sequence check, plus full expansion where
 * N <= 4096): Example 4, Example 8, Prop. 20, Prop. 22, Lemma 21, and the tight optimal
 * circulants. Each expected value is the paper's closed form, computed here independently. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "gossip/gossip.h"
#include "gossip/algo.h"

/* Plans allgather with p packets by `method` (auto if NULL), verifies, returns the rounds. */
static int64_t gossip_rounds(const char *spec, const char *method, int64_t p) {
    gsp_topo_t t;
    gsp_distances_t d;
    gsp_plan_t plan;
    if (gsp_topo_from_spec(&t, spec)) fail_msg("%s: %s", spec, gsp_errmsg());
    assert_int_equal(gsp_distances(&t, true, &d, NULL, NULL), GSP_OK);
    gsp_model_t m = {p, false, false};
    gsp_plan_in_t in = {&t, &d, m, -1, 1, NULL, NULL, 0, 0};
    if (gsp_plan(&in, GSP_COLL_ALLGATHER, method ? method : "auto", &plan)) fail_msg("%s: %s", spec, gsp_errmsg());
    gsp_report_t rep;
    assert_int_equal(gsp_sched_verify(&plan.sched, &t, 1, &rep), GSP_OK);
    if (!rep.ok) fail_msg("%s: %s", spec, rep.message);
    if (t.n <= GSP_VERIFY_EXPAND_MAX) assert_true(rep.by_expansion);
    assert_int_equal(rep.duplicates, 0);
    int64_t r = plan.sched.nrounds;
    gsp_plan_destroy(&plan);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
    return r;
}

static void expect(const char *spec, const char *method, int64_t p, int64_t want) {
    int64_t got = gossip_rounds(spec, method, p);
    if (got != want) fail_msg("%s (%s, p=%lld): %lld rounds, want %lld", spec, method ? method : "auto", (long long)p,
                              (long long)got, (long long)want);
}

static void test_example4(void **state) {
    (void)state;
    expect("torus:5x5", "rotation", 1, 6);
    expect("torus:3x7", "balanced-search", 1, 5);
    expect("torus:4x5", "balanced-search", 1, 5);
}

static void test_example8_square_tori(void **state) {
    (void)state;
    char spec[32];
    for (int q = 1; q <= 12; q++) {
        snprintf(spec, sizeof spec, "torus:%dx%d", 2 * q + 1, 2 * q + 1);
        expect(spec, "rotation", 1, q * q + q); /* TM(2p+1)^2 = p^2 + p */
        if (q >= 2) {
            snprintf(spec, sizeof spec, "torus:%dx%d", 2 * q, 2 * q);
            expect(spec, "rotation", 1, q * q); /* TM(2p)^2 = p^2 */
        }
    }
}

static void test_prop20_hypercubes(void **state) {
    (void)state;
    char spec[32];
    for (int k = 2; k <= 16; k++) {
        snprintf(spec, sizeof spec, "hypercube:%d", k);
        expect(spec, "rotation", 1, (((int64_t)1 << k) - 1 + k - 1) / k);
    }
}

static void test_prop22_star_graphs(void **state) {
    (void)state;
    char spec[32];
    int64_t f = 2;
    for (int k = 3; k <= 8; k++) {
        f *= k;
        snprintf(spec, sizeof spec, "star:%d", k);
        expect(spec, "rotation", 1, (f - 1 + k - 2) / (k - 1));
    }
}

static void test_lemma21_3d_tori(void **state) {
    (void)state;
    char spec[32];
    for (int p = 3; p <= 10; p++) {
        snprintf(spec, sizeof spec, "torus:%dx%dx%d", p, p, p);
        expect(spec, "rotation", 1, ((int64_t)p * p * p - 1 + 5) / 6);
    }
}

static void test_tight_circulants(void **state) {
    (void)state;
    char spec[64];
    for (int D = 1; D <= 30; D++) {
        snprintf(spec, sizeof spec, "circulant:%d:%d,%d", 2 * D * D + 2 * D + 1, D, D + 1);
        expect(spec, "rotation", 1, D * (D + 1) / 2);
    }
}

static void test_packets(void **state) {
    (void)state;
    /* With p packets: never below the layered bound, at the bound on these. */
    expect("torus:9x9", "rotation", 2, 11);  /* layered: j=1 ball 5 -> 1 + ceil(76/8) = 11 */
    expect("hypercube:8", "auto", 2, 17);    /* ceil(255/16) = 16, layered 1 + ceil(247/16) = 17 */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example4),        cmocka_unit_test(test_example8_square_tori),
        cmocka_unit_test(test_prop20_hypercubes), cmocka_unit_test(test_prop22_star_graphs),
        cmocka_unit_test(test_lemma21_3d_tori), cmocka_unit_test(test_tight_circulants),
        cmocka_unit_test(test_packets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
