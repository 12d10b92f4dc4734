/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_scatter.c — random scattering against the paper's Table 1, a brute-force enumeration of
 * the chain for n <= 6, Lemma 3, and simulation inside its confidence interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/gossip.h"

/* Table 1 of Drezner and Barak: p(j, n) for j = 2..23; 0 where the table prints a dot or
 * nothing legible, -1 where it has no entry (left out of the comparison). */
static const int table_n[6] = {4, 8, 16, 32, 64, 128};
static const double table1[22][6] = {
    /* j=2 */ {0.2222, 0.0, 0.0, 0.0, 0.0, 0.0},
    /* 3 */ {0.7160, 0.0061, -1, -1, -1, -1},
    /* 4 */ {0.9099, 0.2433, -1, -1, -1, -1},
    /* 5 */ {0.9726, 0.6158, 0.0243, -1, -1, -1},
    /* 6 */ {0.9918, 0.8443, 0.2495, 0.0002, -1, -1},
    /* 7 */ {0.9976, 0.9430, 0.5934, 0.0385, -1, -1},
    /* 8 */ {0.9993, 0.9800, 0.8249, 0.2806, 0.0009, -1},
    /* 9 */ {0.9998, 0.9931, 0.9326, 0.6167, 0.0613, -1},
    /* 10 */ {0.9999, 0.9977, 0.9753, 0.8355, 0.3395, 0.0029},
    /* 11 */ {1.0000, 0.9992, 0.9911, 0.9363, 0.6657, 0.1020},
    /* 12 */ {-1, 0.9997, 0.9968, 0.9763, 0.8600, 0.4204},
    /* 13 */ {-1, 0.9999, 0.9989, 0.9913, 0.9461, 0.7240},
    /* 14 */ {-1, 1.0000, 0.9996, 0.9968, 0.9799, 0.8875},
    /* 15 */ {-1, -1, 0.9998, 0.9988, 0.9926, 0.9570},
    /* 16 */ {-1, -1, 0.9999, 0.9996, 0.9973, 0.9840},
    /* 17 */ {-1, -1, 1.0000, 0.9998, 0.9990, 0.9940},
    /* 18 */ {-1, -1, -1, 0.9999, 0.9996, 0.9978},
    /* 19 */ {-1, -1, -1, 1.0000, 0.9998, 0.9991},
    /* 20 */ {-1, -1, -1, -1, 0.9999, 0.9996},
    /* 21 */ {-1, -1, -1, -1, 1.0000, 0.9998},
    /* 22 */ {-1, -1, -1, -1, -1, 0.9999},
    /* 23 */ {-1, -1, -1, -1, -1, 1.0000},
};

static void test_table1(void **state) {
    (void)state;
    int compared = 0;
    for (int c = 0; c < 6; c++) {
        double *p, mean;
        int64_t len;
        assert_int_equal(gsp_scatter_exact(table_n[c], 30, &p, &len, &mean, NULL, NULL), GSP_OK);
        assert_int_equal(len, 31);
        assert_true(p[0] == 0 && p[1] == 0);
        for (int j = 2; j <= 23; j++) {
            double want = table1[j - 2][c];
            if (want < 0) continue;
            /* The table truncates to 4 digits (e.g. 0.82495 prints 0.8249). */
            if (fabs(p[j] - want) > 1.5e-4) fail_msg("p(%d, %d) = %.6f, Table 1 says %.4f", j, table_n[c], p[j], want);
            compared++;
        }
        gsp_free(p);
    }
    assert_true(compared >= 80); /* every legible entry of the table */
}

/* Brute force: the exact chain over subsets, every combination of targets enumerated. */
static double brute_mean(int n) {
    int full = (1 << n) - 1;
    double E[1 << 6];
    for (int s = full; s >= 1; s--) {
        if (s == full) {
            E[s] = 0;
            continue;
        }
        if (!(s & 1)) continue; /* start node 0 is always colored */
        int nodes[6], k = 0;
        for (int x = 0; x < n; x++)
            if (s >> x & 1) nodes[k++] = x;
        long combos = 1;
        for (int i = 0; i < k; i++) combos *= n - 1;
        double self = 0, acc = 0, pr = 1.0 / (double)combos;
        for (long c = 0; c < combos; c++) {
            long r = c;
            int t = s;
            for (int i = 0; i < k; i++) {
                int pick = (int)(r % (n - 1));
                r /= n - 1;
                int y = pick >= nodes[i] ? pick + 1 : pick;
                t |= 1 << y;
            }
            if (t == s) self += pr;
            else acc += pr * E[t];
        }
        E[s] = (1 + acc) / (1 - self);
    }
    return E[1];
}

static void test_brute_force_mean(void **state) {
    (void)state;
    for (int n = 2; n <= 6; n++) {
        double *p, mean;
        int64_t len;
        assert_int_equal(gsp_scatter_exact(n, 0, &p, &len, &mean, NULL, NULL), GSP_OK);
        double bm = brute_mean(n);
        if (fabs(mean - bm) > 1e-9) fail_msg("n=%d: E[T] %.12f, brute force %.12f", n, mean, bm);
        gsp_free(p);
    }
}

static void test_lemma3_meanfield_bound(void **state) {
    (void)state;
    /* Lemma 3: p(T_n(alpha), n) >= 1 - alpha. */
    int64_t ns[] = {16, 64, 256, 1024};
    double alphas[] = {0.5, 0.1, 0.01};
    for (int i = 0; i < 4; i++) {
        double *p, mean;
        int64_t len;
        assert_int_equal(gsp_scatter_exact(ns[i], 0, &p, &len, &mean, NULL, NULL), GSP_OK);
        for (int a = 0; a < 3; a++) {
            int64_t T = gsp_scatter_meanfield(ns[i], alphas[a]);
            assert_true(T < len);
            if (p[T] < 1 - alphas[a]) fail_msg("n=%lld alpha=%g: p(T=%lld) = %f", (long long)ns[i], alphas[a], (long long)T, p[T]);
        }
        gsp_free(p);
    }
    assert_true(fabs(gsp_scatter_theorem2(1024) - 10 * (1 + log(2))) < 1e-12);
    assert_true(fabs(gsp_scatter_theorem3(1024) - 20 * log(2)) < 1e-12);
}

static void test_simulation_matches_exact(void **state) {
    (void)state;
    int64_t n = 64, trials = 20000, sends;
    int64_t *steps = malloc(sizeof *steps * (size_t)trials);
    assert_int_equal(gsp_scatter_simulate(n, GSP_SCATTER_PUSH, trials, 12345, steps, &sends, NULL, NULL), GSP_OK);
    double *p, mean;
    int64_t len;
    assert_int_equal(gsp_scatter_exact(n, 0, &p, &len, &mean, NULL, NULL), GSP_OK);
    double m = 0, v = 0;
    for (int64_t t = 0; t < trials; t++) m += (double)steps[t];
    m /= trials;
    for (int64_t t = 0; t < trials; t++) v += ((double)steps[t] - m) * ((double)steps[t] - m);
    double se = sqrt(v / (trials - 1) / trials);
    if (fabs(m - mean) > 4 * se) fail_msg("simulated mean %.4f +- %.4f, exact %.4f", m, se, mean);
    for (int64_t j = 0; j < len && j < 30; j++) {
        int64_t c = 0;
        for (int64_t t = 0; t < trials; t++) c += steps[t] <= j;
        double emp = (double)c / trials, sd = sqrt(p[j] * (1 - p[j]) / trials);
        if (fabs(emp - p[j]) > 4.5 * sd + 1e-3) fail_msg("j=%lld: empirical %.4f, exact %.4f", (long long)j, emp, p[j]);
    }
    /* Same seed, same trials: reproducible. */
    int64_t *again = malloc(sizeof *again * (size_t)trials);
    assert_int_equal(gsp_scatter_simulate(n, GSP_SCATTER_PUSH, trials, 12345, again, &sends, NULL, NULL), GSP_OK);
    assert_memory_equal(steps, again, sizeof *steps * (size_t)trials);
    /* Forwarding within a step is faster than the paper's model, pull-push faster still. */
    double means[4];
    for (int var = 0; var < 4; var++) {
        assert_int_equal(gsp_scatter_simulate(4096, (gsp_scatter_variant_t)var, 200, 7, again, &sends, NULL, NULL), GSP_OK);
        means[var] = 0;
        for (int t = 0; t < 200; t++) means[var] += (double)again[t] / 200;
    }
    assert_true(means[GSP_SCATTER_PUSH_ASYNC] < means[GSP_SCATTER_PUSH]);
    assert_true(means[GSP_SCATTER_PUSHPULL] < means[GSP_SCATTER_PUSH_ASYNC]);
    free(steps);
    free(again);
    gsp_free(p);
}

static void test_errors(void **state) {
    (void)state;
    double *p, mean;
    int64_t len, s[1], sends;
    assert_int_equal(gsp_scatter_exact(1, 0, &p, &len, &mean, NULL, NULL), GSP_ERR_RANGE);
    assert_int_equal(gsp_scatter_exact(GSP_SCATTER_EXACT_MAX + 1, 0, &p, &len, &mean, NULL, NULL), GSP_ERR_RANGE);
    assert_int_equal(gsp_scatter_simulate(1, GSP_SCATTER_PUSH, 1, 1, s, &sends, NULL, NULL), GSP_ERR_RANGE);
}

/* Theorem 3's exact form ln((n - 1)(n - alpha) / alpha), by hand for n = 1024, alpha = 1 and 3;
 * with alpha = 1 it is 2 ln(n - 1), within 2 / (n - 1) of the asymptotic 2 ln 2 log2 n. */
static void test_theorem3_alpha(void **state) {
    (void)state;
    assert_true(fabs(gsp_scatter_theorem3_alpha(1024, 1) - log(1023.0 * 1023.0)) < 1e-12);
    assert_true(fabs(gsp_scatter_theorem3_alpha(1024, 3) - log(1023.0 * 1021.0 / 3)) < 1e-12);
    for (int64_t n = 16; n <= 1 << 20; n *= 4)
        assert_true(fabs(gsp_scatter_theorem3_alpha(n, 1) - gsp_scatter_theorem3(n)) < 2.0 / (double)(n - 1));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table1), cmocka_unit_test(test_brute_force_mean),
        cmocka_unit_test(test_lemma3_meanfield_bound), cmocka_unit_test(test_simulation_matches_exact),
        cmocka_unit_test(test_errors), cmocka_unit_test(test_theorem3_alpha),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
