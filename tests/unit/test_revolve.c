/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_revolve.c — the revolving hierarchy of Garg and Ghosh against the paper: eq. (1) for
 * N = 7, eq. (4) for N = 31, Theorem 2's CDS for every n up to 20, and, checked by brute force
 * for n <= 12, the tree properties: every node gathers from its whole subtree through
 * overlapping messages, and every process carries the same load over N steps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/gossip.h"

static void test_eq1(void **state) {
    (void)state;
    const int64_t want[8] = {0, 5, 1, 7, 2, 6, 3, 4};
    for (int x = 1; x <= 7; x++) assert_int_equal(gsp_revolve_next_inorder(3, x), want[x]);
}

static void test_eq4(void **state) {
    (void)state;
    gsp_revolve_t r;
    assert_int_equal(gsp_revolve_build(5, &r), GSP_OK);
    const int64_t leaf[16] = {0, 15, 7, 22, 3, 10, 18, 25, 1, 4, 8, 11, 16, 19, 23, 26};
    const int64_t par[16] = {30, 30, 14, 14, 6, 6, 21, 21, 2, 2, 9, 9, 17, 17, 24, 24};
    int leaves = 0;
    for (int j = 0; j < 31; j++) leaves += r.leaf[j];
    assert_int_equal(leaves, 16);
    for (int k = 0; k < 16; k++) {
        assert_true(r.leaf[leaf[k]]);
        assert_int_equal(r.parent[leaf[k]], par[k]);
    }
    gsp_revolve_destroy(&r);
}

static void test_theorem2_cds(void **state) {
    (void)state;
    for (int n = 2; n <= 20; n++) {
        gsp_revolve_t r;
        assert_int_equal(gsp_revolve_build(n, &r), GSP_OK); /* checks primitivity and gather trees */
        assert_int_equal(r.cds.len, 2 * (n - 1));
        /* {2^i - 1, -2^(i-1)} for i = 1..n-1, as residues mod N in (-N/2, N/2]. */
        for (int i = 1; i <= n - 1; i++) {
            int64_t a = ((int64_t)1 << i) - 1, b = -((int64_t)1 << (i - 1));
            bool ha = false, hb = false;
            for (int64_t k = 0; k < r.cds.len; k++) ha |= r.cds.v[k] == a, hb |= r.cds.v[k] == b;
            if (!ha || !hb) fail_msg("n=%d: CDS lacks %lld or %lld", n, (long long)a, (long long)b);
        }
        gsp_revolve_destroy(&r);
    }
}

static void test_gather_and_fairness(void **state) {
    (void)state;
    for (int n = 2; n <= 12; n++) {
        gsp_revolve_t r;
        assert_int_equal(gsp_revolve_build(n, &r), GSP_OK);
        int64_t N = r.N;
        /* Fairness: every process sends and receives the same number over N steps. */
        int64_t *s = calloc((size_t)N, sizeof *s), *q = calloc((size_t)N, sizeof *q);
        for (int64_t t = 0; t < N; t++)
            for (int64_t x = 0; x < N; x++) {
                int64_t y = gsp_revolve_msg(&r, x, t);
                if (y >= 0) s[x]++, q[y]++;
            }
        for (int64_t x = 0; x < N; x++) {
            assert_int_equal(s[x], (N + 1) / 2);
            assert_int_equal(q[x], (N + 1) / 2);
        }
        /* Gather: the process at the root of tree T_t (started at step t) knows everyone's step-t
         * state after n - 1 more steps. Knowledge sets as bitsets over (origin, start step). */
        if (n <= 9) {
            int64_t W = (N + 63) / 64;
            for (int64_t t0 = 0; t0 < 3; t0++) {
                /* know[x] = processes whose state at step t0 process x has (incl. via messages). */
                uint64_t *know = calloc((size_t)(N * W), sizeof *know), *nk = calloc((size_t)(N * W), sizeof *nk);
                for (int64_t x = 0; x < N; x++) know[x * W + x / 64] |= 1ull << (x % 64);
                for (int64_t t = t0; t < t0 + n - 1; t++) {
                    for (int64_t i = 0; i < N * W; i++) nk[i] = know[i];
                    for (int64_t x = 0; x < N; x++) {
                        int64_t y = gsp_revolve_msg(&r, x, t);
                        if (y >= 0)
                            for (int64_t w = 0; w < W; w++) nk[y * W + w] |= know[x * W + w];
                    }
                    for (int64_t i = 0; i < N * W; i++) know[i] = nk[i];
                }
                /* The root at the last step is the process whose position is the root label. */
                int64_t root = -1;
                for (int64_t j = 0; j < N; j++)
                    if (r.parent[j] < 0) root = j;
                int64_t proc = ((root - t0) % N + N) % N; /* the process at the root of T_{t0} */
                int64_t c = 0;
                for (int64_t w = 0; w < W; w++) c += __builtin_popcountll(know[proc * W + w]);
                if (c != N) fail_msg("n=%d, tree started at %lld: the root knows %lld of %lld", n, (long long)t0, (long long)c, (long long)N);
                free(know);
                free(nk);
            }
        }
        free(s);
        free(q);
        gsp_revolve_destroy(&r);
    }
}

static void test_snext_eq7_fig6_eq8(void **state) {
    (void)state;
    gsp_revolve_t r;
    assert_int_equal(gsp_revolve_build_list(4, GSP_REVOLVE_SNEXT, &r), GSP_OK);
    const int64_t eq7[16] = {4, 3, 8, 2, 11, 7, 14, 1, 5, 10, 9, 6, 12, 13, 15, 0};
    for (int p = 0; p < 16; p++) assert_int_equal(r.label[p], eq7[p]);
    /* Fig. 6: sender -> receiver pairs at t = 0, 1, 2 (list order). */
    const int64_t fig6[3][16] = {{4, 3, 8, 2, 11, 7, 14, 1, 5, 10, 9, 6, 12, 13, 15, 0},
                                 {3, 2, 7, 1, 10, 6, 13, 0, 4, 9, 8, 5, 11, 12, 14, 15},
                                 {2, 1, 6, 0, 9, 5, 12, 15, 3, 8, 7, 4, 10, 11, 13, 14}};
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < 8; k++) assert_int_equal(gsp_revolve_msg(&r, fig6[t][2 * k], t), fig6[t][2 * k + 1]);
    /* Eq. (8): dest(y) for the senders; rec is its inverse. */
    const int64_t dest[16] = {-1, -1, -1, -1, 3, 10, -1, -1, 2, 6, -1, 7, 13, -1, 1, 0};
    const int64_t rec[16] = {15, 14, 8, 4, -1, -1, 9, 11, -1, -1, 5, -1, -1, 12, -1, -1};
    for (int y = 0; y < 16; y++) {
        assert_int_equal(r.leaf[y] ? r.parent[y] : -1, dest[y]);
        if (rec[y] >= 0) assert_int_equal(r.parent[rec[y]], y);
    }
    const int64_t cds[7] = {-6, -4, -3, -1, 1, 3, 5}; /* {1, 3, 5, -6, -4, -3, -1} */
    assert_int_equal(r.cds.len, 7);
    for (int k = 0; k < 7; k++) assert_int_equal(r.cds.v[k], cds[k]);
    gsp_revolve_destroy(&r);
}

static void test_snext2_eq11_theorem4(void **state) {
    (void)state;
    gsp_revolve_t r;
    assert_int_equal(gsp_revolve_build_list(4, GSP_REVOLVE_SNEXT2, &r), GSP_OK);
    const int64_t eq11[16] = {0, 15, 7, 14, 3, 6, 10, 13, 1, 2, 4, 5, 8, 9, 11, 12};
    for (int p = 0; p < 16; p++) assert_int_equal(r.label[p], eq11[p]);
    gsp_revolve_destroy(&r);
    for (int n = 2; n <= 20; n++) {
        assert_int_equal(gsp_revolve_build_list(n, GSP_REVOLVE_SNEXT2, &r), GSP_OK);
        /* Theorem 4: {2^i - 1 : i = 1..n} (mod N: 2^n - 1 is stored as -1). */
        assert_int_equal(r.cds.len, n);
        for (int i = 1; i <= n; i++) {
            int64_t want = ((int64_t)1 << i) - 1, N = r.N;
            bool have = false;
            for (int64_t k = 0; k < r.cds.len; k++) have |= ((r.cds.v[k] % N) + N) % N == want % N;
            if (!have) fail_msg("n=%d: CDS lacks %lld", n, (long long)want);
        }
        gsp_revolve_destroy(&r);
        assert_int_equal(gsp_revolve_build_list(n, GSP_REVOLVE_SNEXT, &r), GSP_OK); /* snext primitive for every n */
        gsp_revolve_destroy(&r);
    }
}

static void test_tournament_fairness(void **state) {
    (void)state;
    for (int v = 0; v < 3; v++)
        for (int n = 2; n <= 10; n++) {
            gsp_revolve_t r;
            assert_int_equal(gsp_revolve_build_list(n, (gsp_revolve_list_t)v, &r), GSP_OK);
            int64_t N = r.N, W = (N + 63) / 64;
            /* One message received per process per step; equal load over N steps. */
            int64_t *s = calloc((size_t)N, sizeof *s), *q = calloc((size_t)N, sizeof *q);
            for (int64_t t = 0; t < N; t++) {
                int64_t *got = calloc((size_t)N, sizeof *got);
                for (int64_t x = 0; x < N; x++) {
                    int64_t y = gsp_revolve_msg(&r, x, t);
                    if (y >= 0) s[x]++, q[y]++, got[y]++;
                }
                for (int64_t x = 0; x < N; x++) assert_true(got[x] <= 1);
                free(got);
            }
            for (int64_t x = 0; x < N; x++) assert_true(s[x] == N / 2 && q[x] == N / 2);
            /* Tournament: after n steps some process knows every state of the start step. */
            for (int64_t t0 = 0; t0 < 2; t0++) {
                uint64_t *know = calloc((size_t)(N * W), sizeof *know), *nk = calloc((size_t)(N * W), sizeof *nk);
                for (int64_t x = 0; x < N; x++) know[x * W + x / 64] |= 1ull << (x % 64);
                for (int64_t t = t0; t < t0 + n; t++) {
                    for (int64_t i = 0; i < N * W; i++) nk[i] = know[i];
                    for (int64_t x = 0; x < N; x++) {
                        int64_t y = gsp_revolve_msg(&r, x, t);
                        if (y >= 0)
                            for (int64_t w = 0; w < W; w++) nk[y * W + w] |= know[x * W + w];
                    }
                    for (int64_t i = 0; i < N * W; i++) know[i] = nk[i];
                }
                bool someone = false;
                for (int64_t x = 0; x < N && !someone; x++) {
                    int64_t c = 0;
                    for (int64_t w = 0; w < W; w++) c += __builtin_popcountll(know[x * W + w]);
                    someone = c == N;
                }
                if (!someone) fail_msg("variant %d, n=%d: no winner after n steps", v, n);
                free(know);
                free(nk);
            }
            free(s);
            free(q);
            gsp_revolve_destroy(&r);
        }
}

static void test_bcnext_fig7_theorem6(void **state) {
    (void)state;
    gsp_revolve_t r;
    assert_int_equal(gsp_revolve_build_list(4, GSP_REVOLVE_BCNEXT, &r), GSP_OK);
    const int64_t fig7[3][16] = {{4, 3, 10, 2, 12, 9, 15, 1, 5, 11, 13, 8, 6, 14, 7, 0},
                                 {3, 2, 9, 1, 11, 8, 14, 0, 4, 10, 12, 7, 5, 13, 6, 15},
                                 {2, 1, 8, 0, 10, 7, 13, 15, 3, 9, 11, 6, 4, 12, 5, 14}};
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < 8; k++) assert_int_equal(gsp_revolve_msg(&r, fig7[t][2 * k], t), fig7[t][2 * k + 1]);
    gsp_revolve_destroy(&r);
    /* Theorem 6: bcnext is primitive and meets constraints (13) for every n <= 20 (checked while
     * building); the result computed at position 1 reaches all N processes in n more steps. */
    for (int n = 2; n <= 20; n++) {
        assert_int_equal(gsp_revolve_build_list(n, GSP_REVOLVE_BCNEXT, &r), GSP_OK);
        int64_t N = r.N;
        if (n <= 12)
            for (int64_t t0 = 0; t0 < 3; t0++) {
                unsigned char *has = calloc((size_t)N, 1), *nh = calloc((size_t)N, 1);
                int64_t holder = ((r.label[1] - t0) % N + N) % N; /* the process at position 1 */
                has[holder] = 1;
                for (int64_t t = t0 + 1; t <= t0 + n; t++) {
                    memcpy(nh, has, (size_t)N);
                    for (int64_t x = 0; x < N; x++) {
                        int64_t y = gsp_revolve_msg(&r, x, t);
                        if (y >= 0 && has[x]) nh[y] = 1;
                    }
                    memcpy(has, nh, (size_t)N);
                }
                int64_t c = 0;
                for (int64_t x = 0; x < N; x++) c += has[x];
                if (c != N) fail_msg("bcnext n=%d: the result reaches %lld of %lld in n steps", n, (long long)c, (long long)N);
                free(has);
                free(nh);
            }
        gsp_revolve_destroy(&r);
    }
}

static double val(void *ctx, int64_t x, int64_t c) {
    (void)ctx;
    return (double)((x * 7919 + c * 104729) % 1000003);
}

static void test_repeated_computation(void **state) {
    (void)state;
    /* One global result per step after the start-up delay, at the process the formula names,
     * equal to the true maximum; (N+1)/2 or N/2 messages per result. */
    for (int v = -1; v < 3; v++)
        for (int n = 3; n <= 9; n++) {
            gsp_revolve_t r;
            bool list = v >= 0;
            assert_int_equal(list ? gsp_revolve_build_list(n, (gsp_revolve_list_t)v, &r) : gsp_revolve_build(n, &r), GSP_OK);
            gsp_revolve_run_t run;
            int64_t steps = 3 * r.N;
            assert_int_equal(gsp_revolve_simulate(&r, list, steps, val, NULL, &run), GSP_OK);
            assert_int_equal(run.computations, steps - gsp_revolve_depth(&r, list) + 1);
            for (int64_t c = 0; c < run.computations; c++) {
                double m = -1;
                for (int64_t x = 0; x < r.N; x++) m = m > val(NULL, x, c) ? m : val(NULL, x, c);
                if (run.result[c] != m) fail_msg("variant %d n=%d computation %lld: %g, want %g", v, n, (long long)c, run.result[c], m);
                assert_int_equal(run.done_step[c], c + gsp_revolve_depth(&r, list) - 1);
            }
            assert_int_equal(run.messages, steps * (list ? r.N / 2 : (r.N + 1) / 2));
            gsp_revolve_run_destroy(&run);
            gsp_revolve_destroy(&r);
        }
}

static void test_kary_virtual(void **state) {
    (void)state;
    /* Any N on k-ary trees: gather trees complete after L - 1 steps, equal load per position,
     * at most k - 1 virtual nodes per real process. */
    for (int k = 2; k <= 4; k++)
        for (int64_t N = 2; N <= 45; N++) {
            gsp_revolve_t r;
            assert_int_equal(gsp_revolve_build_kary(k, N, &r), GSP_OK);
            int64_t M = r.N;
            assert_true(M >= N && M - N <= (k - 1) * N);
            int64_t *s = calloc((size_t)M, sizeof *s);
            for (int64_t t = 0; t < M; t++)
                for (int64_t x = 0; x < M; x++)
                    if (gsp_revolve_msg(&r, x, t) >= 0) s[x]++;
            for (int64_t x = 1; x < M; x++) assert_int_equal(s[x], s[0]);
            free(s);
            unsigned char *kn = calloc((size_t)(M * M), 1), *nk = malloc((size_t)(M * M));
            for (int64_t x = 0; x < M; x++) kn[x * M + x] = 1;
            for (int64_t t = 0; t < r.n - 1; t++) {
                memcpy(nk, kn, (size_t)(M * M));
                for (int64_t x = 0; x < M; x++) {
                    int64_t y = gsp_revolve_msg(&r, x, t);
                    if (y >= 0)
                        for (int64_t z = 0; z < M; z++) nk[y * M + z] |= kn[x * M + z];
                }
                memcpy(kn, nk, (size_t)(M * M));
            }
            int64_t root = 0, cnt = 0;
            for (int64_t j = 0; j < M; j++)
                if (r.parent[j] < 0) root = j;
            for (int64_t z = 0; z < M; z++) cnt += kn[root * M + z];
            if (cnt != M) fail_msg("k=%d N=%lld: the root knows %lld of %lld", k, (long long)N, (long long)cnt, (long long)M);
            free(kn);
            free(nk);
            gsp_revolve_destroy(&r);
        }
}

/* True when f (N entries) is one cycle through all of 0..N-1 (primitive). */
static bool one_cycle(const int64_t *f, int64_t N) {
    int64_t x = 0, len = 0;
    do {
        if (f[x] < 0 || f[x] >= N) return false;
        x = f[x];
        len++;
    } while (x != 0 && len <= N);
    return x == 0 && len == N;
}

/* The successor functions themselves, against the paper and against their definitions worked
 * by hand. Eq. (7) lists the labels along snext's cycle for N = 16, so label[snext(x)] =
 * label[x] + 1 mod 16. For N = 8 by the rules S1-S3: snext = 4 0 6 1 5 2 7 3 and bcnext =
 * 4 0 7 1 6 2 5 3 (x = 6 = 110: two leading ones, LS0^2 gives 0, t = 2 = 010 with one leading
 * zero, LS1 gives 101 = 5). Both are one cycle through all positions (primitive: Theorems 2
 * and 6) for every n up to 12. In-order parents of the 3-level tree (labels 1..7, root 4). */
static void test_successors_by_hand(void **state) {
    (void)state;
    const int64_t eq7[16] = {4, 3, 8, 2, 11, 7, 14, 1, 5, 10, 9, 6, 12, 13, 15, 0};
    for (int64_t x = 0; x < 16; x++) assert_int_equal(eq7[gsp_revolve_snext(4, x)], (eq7[x] + 1) % 16);
    const int64_t snext3[8] = {4, 0, 6, 1, 5, 2, 7, 3}, bcnext3[8] = {4, 0, 7, 1, 6, 2, 5, 3};
    for (int64_t x = 0; x < 8; x++) {
        assert_int_equal(gsp_revolve_snext(3, x), snext3[x]);
        assert_int_equal(gsp_revolve_bcnext(3, x), bcnext3[x]);
    }
    for (int n = 2; n <= 12; n++) {
        int64_t N = (int64_t)1 << n, *f = malloc((size_t)N * sizeof *f), *g = malloc((size_t)N * sizeof *g);
        for (int64_t x = 0; x < N; x++) {
            f[x] = gsp_revolve_snext(n, x);
            g[x] = gsp_revolve_bcnext(n, x);
        }
        assert_true(one_cycle(f, N));
        assert_true(one_cycle(g, N));
        free(f);
        free(g);
    }
    const int64_t parent[8] = {-1, 2, 4, 2, 0, 6, 4, 6};
    for (int64_t x = 1; x <= 7; x++) assert_int_equal(gsp_revolve_parent_inorder(3, x), parent[x]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eq1), cmocka_unit_test(test_eq4), cmocka_unit_test(test_theorem2_cds),
        cmocka_unit_test(test_gather_and_fairness), cmocka_unit_test(test_snext_eq7_fig6_eq8),
        cmocka_unit_test(test_snext2_eq11_theorem4), cmocka_unit_test(test_tournament_fairness),
        cmocka_unit_test(test_bcnext_fig7_theorem6), cmocka_unit_test(test_repeated_computation),
        cmocka_unit_test(test_kary_virtual),
        cmocka_unit_test(test_successors_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
