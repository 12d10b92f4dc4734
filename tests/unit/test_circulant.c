/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_circulant.c — the optimal circulants' relative addresses and routing against BFS: for every
 * N from 5 to 3000 and every destination from node 0 the address length is the distance; routes
 * from random sources are shortest paths; with random faults a message arrives exactly when BFS
 * on the surviving graph says the destination is reachable, along live links only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include <math.h>

#include "gossip/gossip.h"
#include "gossip/algo.h"

int64_t gsp__optcirc_s(int64_t N);

static void test_addresses(void **state) {
    (void)state;
    for (int64_t N = 5; N <= 3000; N++) {
        char spec[32];
        snprintf(spec, sizeof spec, "optcirc:%lld", (long long)N);
        gsp_topo_t t;
        assert_int_equal(gsp_topo_from_spec(&t, spec), GSP_OK);
        int64_t s = gsp__optcirc_s(N);
        int32_t *d = malloc(sizeof *d * (size_t)N);
        assert_int_equal(gsp_bfs(&t, 0, d, NULL, NULL, NULL), GSP_OK);
        for (int64_t k = 0; k < N; k++) {
            gsp_caddr_t a = gsp_circ_address(N, s, k);
            if (llabs(a.x) + llabs(a.y) != d[k] || ((a.x * s + a.y * (s + 1)) % N + N) % N != k)
                fail_msg("N=%lld k=%lld: address (%lld,%lld), distance %d", (long long)N, (long long)k, (long long)a.x,
                         (long long)a.y, d[k]);
        }
        free(d);
        gsp_topo_destroy(&t);
    }
}

static void test_routes(void **state) {
    (void)state;
    gsp_rng_t rng;
    gsp_rng_seed(&rng, 5);
    for (int64_t N = 5; N <= 3000; N += 7) {
        char spec[32];
        snprintf(spec, sizeof spec, "optcirc:%lld", (long long)N);
        gsp_topo_t t;
        assert_int_equal(gsp_topo_from_spec(&t, spec), GSP_OK);
        int64_t s = gsp__optcirc_s(N);
        int32_t *d = malloc(sizeof *d * (size_t)N);
        unsigned char *dn = calloc((size_t)N, 1), *dl = calloc((size_t)t.m, 1);
        for (int trial = 0; trial < 6; trial++) {
            int64_t src = (int64_t)gsp_rng_below(&rng, (uint64_t)N), dst = (int64_t)gsp_rng_below(&rng, (uint64_t)N);
            gsp_route_t r;
            /* No faults: a shortest path. */
            assert_int_equal(gsp_circ_route(&t, s, src, dst, NULL, NULL, NULL, &r), GSP_OK);
            assert_int_equal(gsp_bfs(&t, src, d, NULL, NULL, NULL), GSP_OK);
            assert_true(r.delivered);
            assert_int_equal(r.len, d[dst]);
            gsp_route_destroy(&r);
            /* Random faults: delivered iff reachable in the surviving graph. */
            for (int64_t v = 0; v < N; v++) dn[v] = gsp_rng_double(&rng) < 0.15 && v != src;
            for (int64_t a = 0; a < t.m; a++) dl[a] = gsp_rng_double(&rng) < 0.1;
            for (int64_t u = 0; u < N; u++) /* a dead link is dead both ways */
                for (int i = 0; i < 4; i++)
                    if (dl[u * 4 + i]) {
                        int64_t v = t.adj[u * 4 + i];
                        dl[v * 4 + gsp_topo_arc_index(&t, v, u)] = 1;
                    }
            /* BFS over live nodes and links. */
            int64_t *q = malloc(sizeof *q * (size_t)N), head = 0, tail = 0;
            unsigned char *seen = calloc((size_t)N, 1);
            if (!dn[src]) seen[src] = 1, q[tail++] = src;
            while (head < tail) {
                int64_t x = q[head++];
                for (int i = 0; i < 4; i++) {
                    int64_t y = t.adj[x * 4 + i];
                    if (!dl[x * 4 + i] && !dn[y] && !seen[y]) seen[y] = 1, q[tail++] = y;
                }
            }
            assert_int_equal(gsp_circ_route(&t, s, src, dst, dn, dl, NULL, &r), GSP_OK);
            if (r.delivered != (bool)seen[dst])
                fail_msg("N=%lld %lld->%lld: delivered %d, reachable %d", (long long)N, (long long)src, (long long)dst, r.delivered, seen[dst]);
            for (int64_t i = 0; r.delivered && i < r.len; i++) {
                int64_t a = gsp_topo_arc_index(&t, r.path[i], r.path[i + 1]);
                assert_true(a >= 0 && !dl[r.path[i] * 4 + a] && !dn[r.path[i + 1]]);
            }
            gsp_route_destroy(&r);
            free(q);
            free(seen);
        }
        free(d);
        free(dn);
        free(dl);
        gsp_topo_destroy(&t);
    }
}

static gsp_plan_t plan_on(const char *spec, gsp_collective_t c, const char *method, int64_t p, int64_t root,
                          int64_t *D) {
    gsp_topo_t *t = malloc(sizeof *t);
    gsp_distances_t *d = malloc(sizeof *d);
    assert_int_equal(gsp_topo_from_spec(t, spec), GSP_OK);
    assert_int_equal(gsp_distances(t, true, d, NULL, NULL), GSP_OK);
    gsp_model_t m = {p, false, false};
    gsp_plan_in_t in = {t, d, m, root, 1, NULL, NULL, 0, 0};
    gsp_plan_t pl;
    if (gsp_plan(&in, c, method, &pl)) fail_msg("%s %s: %s", spec, method, gsp_errmsg());
    *D = d->diameter;
    gsp_distances_destroy(d);
    gsp_topo_destroy(t);
    free(d);
    free(t);
    return pl;
}

static void test_broadcast_prop7(void **state) {
    (void)state;
    /* Programs 1-2 / Prop. 7: D* rounds, every node exactly once (the verifier's duplicates: 0). */
    for (int64_t N = 5; N <= 5000; N++) {
        char spec[32];
        int64_t D;
        snprintf(spec, sizeof spec, "optcirc:%lld", (long long)N);
        gsp_plan_t pl = plan_on(spec, GSP_COLL_BROADCAST, "circulant-tree", 1, N / 3, &D);
        if (pl.sched.nrounds != D || pl.report.duplicates != 0)
            fail_msg("N=%lld: %lld rounds (D* %lld), %lld duplicates", (long long)N, (long long)pl.sched.nrounds, (long long)D,
                     (long long)pl.report.duplicates);
        int64_t Dstar = (int64_t)ceil((sqrt(2.0 * N - 1) - 1) / 2 - 1e-12);
        assert_int_equal(D, Dstar);
        gsp_plan_destroy(&pl);
    }
}

static void test_gossip_prop8_prop9(void **state) {
    (void)state;
    /* Prop. 8: p = D* packets, D* rounds, for every N. */
    for (int64_t N = 5; N <= 3000; N++) {
        char spec[32];
        int64_t D;
        snprintf(spec, sizeof spec, "optcirc:%lld", (long long)N);
        gsp_plan_t pl = plan_on(spec, GSP_COLL_ALLGATHER, "circulant-gossip", (int64_t)ceil((sqrt(2.0 * N - 1) - 1) / 2 - 1e-12), -1, &D);
        assert_int_equal(pl.sched.nrounds, D);
        assert_int_equal(pl.report.duplicates, 0);
        gsp_plan_destroy(&pl);
    }
    /* Prop. 9: for N = 2D^2 + 2D + 1 and p = 1..D, exactly ceil(D(D+1)/2p - (p-1)/2) + p - 1. */
    for (int64_t D = 1; D <= 12; D++)
        for (int64_t p = 1; p <= D; p++) {
            char spec[32];
            int64_t Dg;
            snprintf(spec, sizeof spec, "optcirc:%lld", (long long)(2 * D * D + 2 * D + 1));
            gsp_plan_t pl = plan_on(spec, GSP_COLL_ALLGATHER, "auto", p, -1, &Dg);
            int64_t want = (int64_t)ceil((double)(D * (D + 1)) / (2.0 * p) - (p - 1) / 2.0 - 1e-9) + p - 1;
            if (pl.sched.nrounds != want || pl.lower_bound != want)
                fail_msg("D=%lld p=%lld: %lld rounds, bound %lld, Prop. 9 says %lld", (long long)D, (long long)p,
                         (long long)pl.sched.nrounds, (long long)pl.lower_bound, (long long)want);
            gsp_plan_destroy(&pl);
        }
}

/* Addresses in every G(N; s, s+1), optimal or not, against BFS distances (the O(N) search). */
static void test_address_any_s(void **state) {
    (void)state;
    for (int64_t N = 5; N <= 60; N++)
        for (int64_t s = 1; s + 1 < N && s <= N / 2; s++) {
            char spec[64];
            snprintf(spec, sizeof spec, "circulant:%lld:%lld,%lld", (long long)N, (long long)s, (long long)s + 1);
            gsp_topo_t t;
            assert_int_equal(gsp_topo_from_spec(&t, spec), GSP_OK);
            int32_t *dist = malloc(sizeof *dist * (size_t)N);
            int64_t ecc, reached;
            assert_int_equal(gsp_bfs(&t, 0, dist, NULL, &ecc, &reached), GSP_OK);
            for (int64_t k = 0; k < N; k++) {
                gsp_caddr_t a = gsp_circ_address(N, s, k);
                int64_t len = (a.x < 0 ? -a.x : a.x) + (a.y < 0 ? -a.y : a.y);
                int64_t at = (((a.x * s + a.y * (s + 1)) % N) + N) % N;
                if (at != k || len != dist[k])
                    fail_msg("G(%lld; %lld, %lld): address of %lld is (%lld, %lld), distance %d", (long long)N, (long long)s,
                             (long long)s + 1, (long long)k, (long long)a.x, (long long)a.y, dist[k]);
            }
            free(dist);
            gsp_topo_destroy(&t);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_address_any_s),cmocka_unit_test(test_addresses), cmocka_unit_test(test_routes),
                                       cmocka_unit_test(test_broadcast_prop7), cmocka_unit_test(test_gossip_prop8_prop9)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
