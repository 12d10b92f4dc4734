/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_runtime.c — the runtime's arc-disjoint spanning trees and the multitree phases.
 *
 * Independent truth: the trees are checked arc by arc (every node but the root has one parent
 * per tree over an arc of the graph, parents lead to the root, no arc in two trees), and their
 * number is the graph's known arc connectivity (a d-regular torus, hypercube, complete graph,
 * star graph and the Petersen graph are d-arc-connected; a cycle 2; a path from its end 1).
 * The multitree phases are simulated: a broadcast must leave every block at every node, moving
 * only blocks the sender holds, one per arc and round; a reduction must count every node's
 * contribution exactly once at the root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/gossip.h"
#include "gossip/runtime.h"

/* The cost model's choice, building pending candidates as the runtime does. */
static int choose(gsp_rt_algos_t *a, int64_t n, int64_t bytes, const gsp_cost_t *c) {
    int i;
    if (gsp_rt_choose_build(a, n, bytes, c, NULL, NULL, &i)) fail_msg("choose: %s", gsp_errmsg());
    return i;
}

/* Every candidate built (tests look at their schedules). */
static void realize_all(gsp_rt_algos_t *a) {
    for (int i = 0; i < a->n; i++) {
        bool removed;
        if (gsp_rt_realize(a, i, &removed)) fail_msg("realize %s: %s", a->v[i].name, gsp_errmsg());
        if (removed) i--;
    }
}

static gsp_topo_t build(const char *spec) {
    gsp_topo_t t;
    if (gsp_topo_from_spec(&t, spec)) fail_msg("%s: %s", spec, gsp_errmsg());
    return t;
}

/* Checks k trees of parent arrays on t from root; returns the deepest depth. */
static int64_t check_trees(const gsp_topo_t *t, int64_t root, int64_t k, const int64_t *par, const int64_t *dep, const char *spec) {
    int64_t n = t->n, H = 0;
    unsigned char *used = calloc((size_t)t->m + 1, 1);
    for (int64_t i = 0; i < k; i++) {
        if (par[i * n + root] != -1 || dep[i * n + root] != 0) fail_msg("%s: tree %lld: the root has a parent", spec, (long long)i);
        for (int64_t v = 0; v < n; v++) {
            if (v == root) continue;
            int64_t u = par[i * n + v];
            if (u < 0 || u >= n) fail_msg("%s: tree %lld: node %lld has no parent", spec, (long long)i, (long long)v);
            int64_t a = gsp_topo_arc_index(t, u, v);
            if (a < 0) fail_msg("%s: tree %lld: %lld -> %lld is not an arc", spec, (long long)i, (long long)u, (long long)v);
            if (used[t->off[u] + a]++) fail_msg("%s: arc %lld -> %lld in two trees", spec, (long long)u, (long long)v);
            if (dep[i * n + v] != dep[i * n + u] + 1) fail_msg("%s: tree %lld: depth of %lld", spec, (long long)i, (long long)v);
            int64_t w = v, steps = 0;
            while (w != root && steps <= n) w = par[i * n + w], steps++;
            if (w != root) fail_msg("%s: tree %lld: %lld does not lead to the root", spec, (long long)i, (long long)v);
            if (dep[i * n + v] > H) H = dep[i * n + v];
        }
    }
    free(used);
    return H;
}

static void test_arborescences(void **state) {
    (void)state;
    static const struct {
        const char *spec;
        int64_t root, k;
    } cases[] = {
        {"torus:4x4", 5, 4},       {"torus:8x8", 0, 4},        {"torus:4x4x4", 21, 6},     {"torus:3x5x4", 7, 6},
        {"hypercube:6", 0, 6},     {"hypercube:5", 19, 5},     {"complete:7", 3, 6},       {"cycle:9", 4, 2},
        {"star:5", 0, 4},          {"optcirc:13", 2, 4},       {"file:" GOSSIP_TEST_DATA "/petersen.txt", 6, 3},
        {"file:" GOSSIP_TEST_DATA "/path4.txt", 0, 1},         {"file:" GOSSIP_TEST_DATA "/dicycle3.txt", 1, 1},
        {"file:" GOSSIP_TEST_DATA "/frucht.txt", 11, 3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        gsp_topo_t t = build(cases[c].spec);
        int64_t k, *par, *dep;
        if (gsp_arborescences(&t, cases[c].root, 0, &k, &par, &dep)) fail_msg("%s: %s", cases[c].spec, gsp_errmsg());
        if (k != cases[c].k) fail_msg("%s: %lld trees, expected %lld", cases[c].spec, (long long)k, (long long)cases[c].k);
        int64_t H = check_trees(&t, cases[c].root, k, par, dep, cases[c].spec);
        /* No tree can be shallower than the root's eccentricity. */
        int32_t *dist = malloc(sizeof *dist * (size_t)t.n);
        int64_t ecc, reached;
        assert_int_equal(gsp_bfs(&t, cases[c].root, dist, NULL, &ecc, &reached), GSP_OK);
        assert_true(H >= ecc);
        free(dist);
        /* A cap is honoured. */
        gsp_free(par);
        gsp_free(dep);
        if (k > 1) {
            assert_int_equal(gsp_arborescences(&t, cases[c].root, k - 1, &k, &par, &dep), GSP_OK);
            assert_int_equal(k, cases[c].k - 1);
            check_trees(&t, cases[c].root, k, par, dep, cases[c].spec);
            gsp_free(par);
            gsp_free(dep);
        }
        gsp_topo_destroy(&t);
    }
    /* Unreachable nodes and a bad root are errors. */
    gsp_topo_t t = build("file:" GOSSIP_TEST_DATA "/path4.txt");
    int64_t k, *par, *dep;
    assert_int_equal(gsp_arborescences(&t, 4, 0, &k, &par, &dep), GSP_ERR_RANGE);
    gsp_topo_destroy(&t);
}

/* Simulates the broadcast phase: block x starts at the root only. */
static void simulate_broadcast(const gsp_topo_t *t, const gsp_rt_phase_t *ph, int64_t root, const char *spec) {
    int64_t n = t->n, k = ph->nblocks;
    unsigned char *has = calloc((size_t)(n * k), 1), *arc = calloc((size_t)t->m + 1, 1);
    for (int64_t x = 0; x < k; x++) has[root * k + x] = 1;
    const gsp_sched_t *s = &ph->sched;
    for (int64_t r = 0; r < s->nrounds; r++) {
        int64_t b = s->send_off.v[r], e = s->send_off.v[r + 1];
        memset(arc, 0, (size_t)t->m + 1);
        for (int64_t q = b; q < e; q++) {
            const gsp_send_t *x = &s->sends[q];
            int64_t a = gsp_topo_arc_index(t, x->u, x->v);
            if (a < 0 || arc[t->off[x->u] + a]++) fail_msg("%s: round %lld: arc %lld -> %lld", spec, (long long)r, (long long)x->u, (long long)x->v);
            if (!has[x->u * k + x->x]) fail_msg("%s: round %lld: %lld sends block %lld it lacks", spec, (long long)r, (long long)x->u, (long long)x->x);
        }
        for (int64_t q = b; q < e; q++) has[s->sends[q].v * k + s->sends[q].x] = 1;
    }
    for (int64_t i = 0; i < n * k; i++)
        if (!has[i]) fail_msg("%s: node %lld never gets block %lld", spec, (long long)(i / k), (long long)(i % k));
    free(has);
    free(arc);
}

/* Simulates the reduction phase with contribution sets (n <= 64): every node starts with its
 * own contribution to every block; a sender's partial sum leaves it (it may not send or take
 * that block again); at the end the root holds every contribution once per block. */
static void simulate_reduce(const gsp_topo_t *t, const gsp_rt_phase_t *ph, int64_t root, const char *spec) {
    int64_t n = t->n, k = ph->nblocks;
    assert_true(n <= 64);
    uint64_t *sum = calloc((size_t)(n * k), sizeof *sum);
    unsigned char *gone = calloc((size_t)(n * k), 1);
    for (int64_t v = 0; v < n; v++)
        for (int64_t x = 0; x < k; x++) sum[v * k + x] = (uint64_t)1 << v;
    const gsp_sched_t *s = &ph->sched;
    for (int64_t r = 0; r < s->nrounds; r++) {
        int64_t b = s->send_off.v[r], e = s->send_off.v[r + 1];
        /* Reads at the round's start, then combines. */
        uint64_t *snap = malloc((size_t)(e - b + 1) * sizeof *snap);
        for (int64_t q = b; q < e; q++) {
            const gsp_send_t *x = &s->sends[q];
            if (gsp_topo_arc_index(t, x->u, x->v) < 0) fail_msg("%s: not an arc", spec);
            if (gone[x->u * k + x->x]) fail_msg("%s: %lld sends block %lld twice", spec, (long long)x->u, (long long)x->x);
            snap[q - b] = sum[x->u * k + x->x];
            gone[x->u * k + x->x] = 1;
        }
        for (int64_t q = b; q < e; q++) {
            const gsp_send_t *x = &s->sends[q];
            if (gone[x->v * k + x->x]) fail_msg("%s: %lld takes block %lld after sending it", spec, (long long)x->v, (long long)x->x);
            if (sum[x->v * k + x->x] & snap[q - b]) fail_msg("%s: a contribution counted twice", spec);
            sum[x->v * k + x->x] |= snap[q - b];
        }
        free(snap);
    }
    uint64_t all = n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
    for (int64_t x = 0; x < k; x++)
        if (sum[root * k + x] != all) fail_msg("%s: block %lld incomplete at the root", spec, (long long)x);
    free(sum);
    free(gone);
}

static void test_multitree_phases(void **state) {
    (void)state;
    static const char *specs[] = {"torus:4x4", "torus:4x4x4", "hypercube:6", "cycle:6", "optcirc:13", "complete:2",
                                  "file:" GOSSIP_TEST_DATA "/petersen.txt"};
    for (size_t c = 0; c < sizeof specs / sizeof *specs; c++) {
        gsp_topo_t t = build(specs[c]);
        gsp_distances_t d;
        assert_int_equal(gsp_distances(&t, false, &d, NULL, NULL), GSP_OK);
        int64_t root = t.n / 3;
        for (int coll = 0; coll < 2; coll++) {
            gsp_rt_algos_t a;
            gsp_collective_t cc = coll ? GSP_COLL_REDUCE : GSP_COLL_BROADCAST;
            if (gsp_rt_algos(&t, &d, cc, root, NULL, &a)) fail_msg("%s: %s", specs[c], gsp_errmsg());
            realize_all(&a);
            int i = gsp_rt_find(&a, "multitree");
            if (i < 0) fail_msg("%s: no multitree", specs[c]);
            const gsp_rt_phase_t *ph = &a.v[i].phase[0];
            assert_true(ph->pipelined);
            assert_int_equal(ph->busiest, 1); /* arc-disjoint: one block per arc in all */
            if (coll) simulate_reduce(&t, ph, root, specs[c]);
            else simulate_broadcast(&t, ph, root, specs[c]);
            /* Large broadcasts go down the trees, small ones never; a large reduce is about its
             * combining (gamma, the same for every bandwidth-optimal algorithm): the trees or
             * the reduce-scatter ones, never a single tree or the direct messages. */
            gsp_cost_t cost = gsp_cost_default();
            if (t.n >= 16) {
                const char *big = a.v[choose(&a, t.n, 4 << 20, &cost)].name;
                if (coll) {
                    if (strcmp(big, "multitree") && strcmp(big, "rs-gather") && strcmp(big, "rings")) fail_msg("%s: reduce of 4 MiB by %s", specs[c], big);
                } else
                    assert_string_equal(big, "multitree");
                assert_string_not_equal(a.v[choose(&a, t.n, 8, &cost)].name, "multitree");
            }
            gsp_rt_algos_destroy(&a);
        }
        gsp_distances_destroy(&d);
        gsp_topo_destroy(&t);
    }
}

/* The routed algorithms (flat, dims): every rank receives the root's vector once, from a rank
 * that has it (broadcast) or sends its own once to a rank that still collects (reduce), and
 * the statistics and predictions have their closed forms. */
static void check_routed(const gsp_rt_phase_t *ph, int64_t n, int64_t root, bool gather, const char *spec) {
    const gsp_sched_t *s = &ph->sched;
    unsigned char *has = calloc((size_t)n, 1), *sent = calloc((size_t)n, 1);
    int64_t got = 0;
    if (gather)
        for (int64_t v = 0; v < n; v++) has[v] = 1; /* own contribution */
    else
        has[root] = 1;
    for (int64_t r = 0; r < s->nrounds; r++)
        for (int64_t q = s->send_off.v[r]; q < s->send_off.v[r + 1]; q++) {
            const gsp_send_t *x = &s->sends[q];
            if (!has[x->u]) fail_msg("%s: %lld sends what it lacks", spec, (long long)x->u);
            if (gather) {
                if (sent[x->u]++) fail_msg("%s: %lld sends twice", spec, (long long)x->u);
                if (sent[x->v]) fail_msg("%s: %lld receives after sending", spec, (long long)x->v);
            } else {
                if (has[x->v]) fail_msg("%s: %lld receives twice", spec, (long long)x->v);
                has[x->v] = 1;
            }
            got++;
        }
    assert_int_equal(got, n - 1);
    for (int64_t v = 0; v < n; v++)
        if (gather ? (v != root && !sent[v]) || sent[root] : !has[v]) fail_msg("%s: %lld left out", spec, (long long)v);
    free(has);
    free(sent);
}

static void test_routed_phases(void **state) {
    (void)state;
    /* Busiest root link under dimension-order routing: the nodes whose shortest paths may
     * start on it — on torus:8x8 dx in 1..4 (32 nodes), on torus:4x4x4 dx in 1..2 (32), on
     * the 6-cube a bit set (32); dims: floor(side / 2) per ring and round. */
    static const struct {
        const char *spec;
        int64_t busiest, hops, dims_rounds, dims_blk;
    } cases[] = {{"torus:8x8", 32, 8, 2, 4}, {"torus:4x4x4", 32, 6, 3, 2}, {"hypercube:6", 32, 6, 6, 1},
                 {"torus:5x3", 6, 3, 2, 2},  {"cycle:7", 3, 3, 1, 3},      {"petersen", 0, 0, 0, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const char *spec = strcmp(cases[c].spec, "petersen") ? cases[c].spec : "file:" GOSSIP_TEST_DATA "/petersen.txt";
        gsp_topo_t t = build(spec);
        gsp_distances_t d;
        assert_int_equal(gsp_distances(&t, false, &d, NULL, NULL), GSP_OK);
        int64_t root = t.n / 3;
        for (int coll = 0; coll < 2; coll++) {
            gsp_rt_algos_t a;
            gsp_collective_t cc = coll ? GSP_COLL_REDUCE : GSP_COLL_BROADCAST;
            if (gsp_rt_algos(&t, &d, cc, root, NULL, &a)) fail_msg("%s: %s", spec, gsp_errmsg());
            realize_all(&a);
            int f = gsp_rt_find(&a, "flat"), g = gsp_rt_find(&a, "dims");
            assert_true(f >= 0);
            const gsp_rt_phase_t *ph = &a.v[f].phase[0];
            check_routed(ph, t.n, root, coll, spec);
            assert_true(ph->routed);
            assert_int_equal(ph->hops, d.diameter); /* vertex-transitive: ecc = diameter */
            if (cases[c].busiest) assert_int_equal(ph->busiest, cases[c].busiest);
            /* Closed forms: hop only — the farthest route; beta only — the busiest link's queue;
             * overhead only — the root's N - 2 further messages. */
            gsp_cost_t z;
            memset(&z, 0, sizeof z);
            gsp_rt_pred_t pr;
            z.hop = 1;
            gsp_rt_predict(&a.v[f], t.n, 1000, &z, &pr);
            assert_true(fabs(pr.seconds - (double)(d.diameter - 1)) < 1e-9);
            z.hop = 0;
            z.beta = 1e-3;
            gsp_rt_predict(&a.v[f], t.n, 1000, &z, &pr);
            assert_true(fabs(pr.seconds - (double)ph->busiest) < 1e-9);
            z.beta = 0;
            z.overhead = 1;
            gsp_rt_predict(&a.v[f], t.n, 1000, &z, &pr);
            assert_true(fabs(pr.seconds - (double)(t.n - 2)) < 1e-9);
            if (!cases[c].dims_rounds) {
                assert_int_equal(g, -1); /* not a torus */
                gsp_rt_algos_destroy(&a);
                continue;
            }
            assert_true(g >= 0);
            ph = &a.v[g].phase[0];
            check_routed(ph, t.n, root, coll, spec);
            assert_int_equal(ph->nrounds, cases[c].dims_rounds);
            /* Hop latencies add up to the eccentricity over the rounds. */
            memset(&z, 0, sizeof z);
            z.hop = 1;
            z.alpha = 1;
            gsp_rt_predict(&a.v[g], t.n, 1000, &z, &pr);
            assert_true(fabs(pr.seconds - (double)d.diameter) < 1e-9);
            for (int64_t r = 0; r < ph->nrounds; r++) assert_true(ph->maxblk[r] <= cases[c].dims_blk);
            gsp_rt_algos_destroy(&a);
        }
        gsp_distances_destroy(&d);
        gsp_topo_destroy(&t);
    }
    /* The choice on the simulated 4x4x4 torus of the benchmark (slow links, SMPI's bandwidth
     * by size): 1 KiB broadcasts go by dims (measured 65.8 us, against 73.1 for the tree and
     * 95.0 flat); with free hops and links, flat. */
    gsp_topo_t t = build("torus:4x4x4");
    gsp_distances_t d;
    assert_int_equal(gsp_distances(&t, false, &d, NULL, NULL), GSP_OK);
    gsp_rt_algos_t a;
    assert_int_equal(gsp_rt_algos(&t, &d, GSP_COLL_BROADCAST, 0, NULL, &a), GSP_OK);
    realize_all(&a);
    gsp_cost_t c = gsp_cost_default();
    c.alpha = c.hop = 1e-5;
    c.overhead = 0;
    assert_int_equal(gsp_cost_parse_beta("beta", "0:9.85e-10,257:2.37e-9,1426:1.31e-9,5776:7.36e-10,65472:8.5e-10", &c), GSP_OK);
    assert_int_equal(c.nbeta, 5);
    assert_true(gsp_cost_beta(&c, 1024) == 2.37e-9 && gsp_cost_beta(&c, 1 << 20) == 8.5e-10 && c.beta == 8.5e-10);
    assert_string_equal(a.v[choose(&a, t.n, 1024, &c)].name, "dims");
    c.hop = c.beta = c.overhead = 0;
    c.nbeta = 0;
    assert_string_equal(a.v[choose(&a, t.n, 1024, &c)].name, "flat");
    gsp_rt_algos_destroy(&a);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
    /* Malformed tables. */
    const char *bad[] = {"", "1:1e-9", "0:1e-9,0:2e-9", "0:x", "0:-1", "0:1e-9;5:1", "a:1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) assert_int_equal(gsp_cost_parse_beta("beta", bad[i], &c), GSP_ERR_PARSE);
}

/* Latency by message size, and the lanes it leads to: closed forms on a hand-built phase. */
static void test_alpha_lanes(void **state) {
    (void)state;
    gsp_cost_t c = gsp_cost_default();
    assert_int_equal(gsp_cost_parse_alpha("alpha", "0:2e-6,15424:3.5e-6,65472:1.16e-5", &c), GSP_OK);
    assert_int_equal(c.nalpha, 3);
    assert_true(c.alpha == 2e-6 && gsp_cost_alpha(&c, 100) == 2e-6 && gsp_cost_alpha(&c, 15424) == 3.5e-6 && gsp_cost_alpha(&c, 1e6) == 1.16e-5);
    assert_int_equal(gsp_cost_parse_alpha("alpha", "3e-6", &c), GSP_OK);
    assert_true(c.nalpha == 0 && c.alpha == 3e-6 && gsp_cost_alpha(&c, 1e6) == 3e-6);
    const char *bad[] = {"", "1:1e-6", "0:1e-6,0:2e-6", "0:x", "0:-1", "-1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) assert_int_equal(gsp_cost_parse_alpha("alpha", bad[i], &c), GSP_ERR_PARSE);
    assert_true(c.nalpha == 0 && c.alpha == 3e-6); /* unchanged on error */

    /* A phase of 8 rounds of 16 blocks on its busiest arc and 8 of one block (the rings' reduce-
     * scatter on 16x16), blocks of 8 KiB: messages of 128 KiB and 8 KiB. */
    gsp_rt_phase_t ph;
    memset(&ph, 0, sizeof ph);
    int64_t maxblk[16], maxred[16], maxmsg[16];
    for (int r = 0; r < 16; r++) maxblk[r] = r < 8 ? 16 : 1, maxred[r] = 0, maxmsg[r] = 4;
    ph.maxblk = maxblk;
    ph.maxred = maxred;
    ph.maxmsg = maxmsg;
    ph.nrounds = 16;
    c = gsp_cost_default();
    c.overhead = 0;
    assert_int_equal(gsp_rt_lanes(&ph, 8192, &c), 1); /* plain alpha and beta: lanes only add messages */
    c.segment = 2048;
    assert_int_equal(gsp_rt_lanes(&ph, 8192, &c), 4);
    c.segment = 0;
    /* Large messages pay 11.6 us, those from 15424 B 3.5, smaller ones 2, at the same beta: with
     * k = 2 the big rounds' messages are 64 KiB (still large), with k = 4 32 KiB (8 x 8.1 us
     * saved), k = 8 16 KiB (the same), k = 16 8 KiB (8 x 9.6 us saved; the small rounds' 512 B
     * messages pay 2 us whatever k): 16, the most chosen automatically. A beta table alone
     * takes no lanes. */
    assert_int_equal(gsp_cost_parse_beta("beta", "0:1e-10,5776:5e-11,9376:1e-10", &c), GSP_OK);
    assert_int_equal(gsp_rt_lanes(&ph, 8192, &c), 1);
    assert_int_equal(gsp_cost_parse_beta("beta", "1e-10", &c), GSP_OK);
    assert_int_equal(gsp_cost_parse_alpha("alpha", "0:2e-6,15424:3.5e-6,65472:1.16e-5", &c), GSP_OK);
    assert_int_equal(gsp_rt_lanes(&ph, 8192, &c), GSP_RT_AUTO_LANES);
    assert_int_equal(GSP_RT_AUTO_LANES, 16);
    /* Blocks of 2 KiB: the big rounds' 32 KiB messages reach the 2 us protocol in 4 lanes
     * (8 KiB); more lanes cost the same here (ties keep the fewest). */
    assert_int_equal(gsp_rt_lanes(&ph, 2048, &c), 4);
    /* A per-message overhead larger than the saving keeps one lane: 4 lanes add 3 x 4 messages
     * a round, 16 rounds: 192 overheads against 8 x 8.1 us. */
    c.overhead = 1e-6;
    assert_int_equal(gsp_rt_lanes(&ph, 8192, &c), 1);
    c.overhead = 0;
    /* Pipelined phases and the shared-memory model never take lanes. */
    ph.pipelined = true;
    assert_int_equal(gsp_rt_lanes(&ph, 8192, &c), 1);
    ph.pipelined = false;
    c.shared = true;
    assert_int_equal(gsp_rt_lanes(&ph, 8192, &c), 1);
}

/* The cost model's cheapest bounded band of sizes (gsp_cost_band), read off its table. */
static void test_cost_band(void **state) {
    (void)state;
    gsp_cost_t c = gsp_cost_default();
    int64_t lo = 0, hi = 0;
    double b = 0;
    assert_false(gsp_cost_band(&c, &lo, &hi, &b)); /* one beta: no band */
    assert_int_equal(gsp_cost_parse_beta("beta", "0:2e-11,5776:1e-11,9376:1.5e-11,65472:1.2e-11", &c), GSP_OK);
    assert_true(gsp_cost_band(&c, &lo, &hi, &b));
    assert_int_equal(lo, 5776);
    assert_int_equal(hi, 9376);
    assert_true(b == 1e-11);
    /* The largest messages cheapest: no bounded band. */
    assert_int_equal(gsp_cost_parse_beta("beta", "0:2e-11,5776:1e-11,65472:0.9e-11", &c), GSP_OK);
    assert_false(gsp_cost_band(&c, &lo, &hi, &b));
    /* A band of one size is none. */
    assert_int_equal(gsp_cost_parse_beta("beta", "0:2e-11,100:1e-11,101:1.5e-11", &c), GSP_OK);
    assert_false(gsp_cost_band(&c, &lo, &hi, &b));
}

/* A turn rule for a phase in the tests: every send any time. */
static int any_turn(const gsp_rt_phase_t *ph, int64_t rank, int64_t round, int64_t peer) {
    (void)ph, (void)rank, (void)round, (void)peer;
    return GSP_RT_TURN_ANY;
}

static void test_segments(void **state) {
    (void)state;
    gsp_rt_phase_t ph;
    memset(&ph, 0, sizeof ph);
    int64_t maxblk[3] = {1, 1, 1}, maxred[3] = {0, 0, 0};
    ph.maxblk = maxblk;
    ph.maxred = maxred;
    ph.nrounds = 3;
    gsp_cost_t c = gsp_cost_default();
    assert_int_equal(gsp_rt_segments(&ph, 1e6, &c), 1); /* not pipelined */
    ph.pipelined = true;
    /* beta 1e-10, alpha 1e-6, 3 rounds: w = 1e-4 s, and (R - 1)(alpha + min(4, S) w / S) +
     * max(1, S / 4) alpha + w is 3.03e-4 s at S = 1 (and at 2 and 4: the segments in one
     * window fly together); for S >= 4 it is least at S = 4 sqrt(2 w / alpha) = 56.6, and by
     * hand 1.302857e-4 at 56, 1.302851e-4 at 57, 1.302931e-4 at 58: 57. */
    assert_int_equal(gsp_rt_segments(&ph, 1e6, &c), 57);
    /* No latency: as many segments as allowed. */
    c.alpha = 0;
    assert_int_equal(gsp_rt_segments(&ph, 1e6, &c), GSP_RT_MAX_SEGMENTS);
    c.alpha = 1e-6;
    /* A fabric's trees (levels set) four or more deep, without their shares: two. */
    ph.levels = 4;
    assert_int_equal(gsp_rt_segments(&ph, 1e6, &c), 2);
    /* One level deep (stars): whole. */
    ph.levels = 1;
    assert_int_equal(gsp_rt_segments(&ph, 1e6, &c), 1);
    /* Two levels (boxes of GPUs): the least of w + (alpha + f w / S) + S alpha, w = T*. Two
     * trees of one part each (roots 0 and 1) at algbw 100 GB/s, parts of 1e7 bytes: M = 2e7
     * bytes, w = 200 us; half the edges from a relay: f = 1/2. Flat alpha 1 us: least at
     * S = sqrt(f w / alpha) = 10 (221 us; 221.11 at 9, 221.09 at 11). */
    int64_t tround[6] = {0, 1, 0, 1, 1, 0};
    ph.tround = tround;
    ph.param[0] = 2, ph.param[1] = 1, ph.param[4] = 100, ph.param[5] = 1, ph.param[6] = 1, ph.param[7] = 2;
    ph.levels = 2;
    ph.layout = GSP_RT_RANK;
    assert_int_equal(gsp_rt_segments(&ph, 1e7, &c), 10);
    /* SMPI's charge for 64 KiB and more (11.6 latencies of a 2 us route: 23.3 us), 2 us below:
     * segments of 1e7 / S bytes pay 23.3 us up to S = 152, and sqrt(f w / alpha) = 2.07: 2
     * (319.9 us; 346.6 at 1, 326.5 at 3; 508 at 153, where alpha drops to 2 us). */
    gsp_cost_t s = c;
    s.nalpha = 2, s.alpha_from[0] = 0, s.alpha_val[0] = 2e-6, s.alpha_from[1] = 65472, s.alpha_val[1] = 23.3e-6;
    assert_int_equal(gsp_rt_segments(&ph, 1e7, &s), 2);
    /* Twelve levels, every tree one part (equal shares): the fill is one segment of the relayed
     * share, not one a level (w + 11 alpha + f w / S + S alpha): sqrt(f w / alpha) = 10 again,
     * where a fill a level would give sqrt(11 f w / alpha) = 33. Unequal shares that deep: 2. */
    ph.levels = 12;
    assert_int_equal(gsp_rt_segments(&ph, 1e7, &c), 10);
    /* Where a bounded band of sizes moves bytes cheapest (SMPI's defaults: 5776-9375 bytes), a
     * store phase of every rank's blocks that deep streams its messages in the band's chunks
     * (the MPI engine's chunked streams): a chunk's latency a level and the band's rate. Parts
     * of 4e5 bytes (M = 8e5, w = 8 us at 1.2e-11 s/B), the band 1e-11 s/B and 1 us: w = 6.67,
     * f w / S + S alpha least at sqrt(3.33) = 1.8: 2 (3.67 us; 4.33 at 1, 4.11 at 3), where a
     * message of 2e5 bytes is 22 chunks of 9091. Not streamed (three levels deep): w + 2 (alpha
     * + f w / S) + S alpha by the segment's own size, 23.3 us from 65472 bytes (S <= 6: 85.9 at
     * 1), 3 us and 1.5e-11 s/B below (w = 10: least at S = 7, 38.4; 41.25 at 8). */
    gsp_cost_t band = s;
    band.nalpha = 4, band.alpha_from[1] = 5776, band.alpha_val[1] = 1e-6, band.alpha_from[2] = 9376, band.alpha_val[2] = 3e-6;
    band.alpha_from[3] = 65472, band.alpha_val[3] = 23.3e-6;
    band.nbeta = 4, band.beta_from[0] = 0, band.beta_val[0] = 2e-11, band.beta_from[1] = 5776, band.beta_val[1] = 1e-11;
    band.beta_from[2] = 9376, band.beta_val[2] = 1.5e-11, band.beta_from[3] = 65472, band.beta_val[3] = 1.2e-11;
    ph.kind = GSP_RT_STORE;
    assert_int_equal(gsp_rt_segments(&ph, 4e5, &band), 2);
    /* A reduce-scatter's in-trees that take turns (the ring trees) run cross first, streamed
     * (the MPI engine: the allgather backwards): the store phase's 2 and its time; without turns
     * a relay waits a level for its children's segments: w + 11 (alpha + f w / S) + S alpha.
     * As if whole, by the segment's own size (1.01 x 4e5 / S bytes): 8 + 11 (23.3 + 4) + 23.3 =
     * 331.6 us in one; from S = 7 (below 65472 bytes) 3 us and 1.5e-11 s/B, 10 + 11 (3 + 5 / S) +
     * 3 S, 71.9 at 7 and rising; from S = 44 (below 9376) in the band, 1 us and 1e-11 s/B, 6.67 +
     * 11 (1 + 3.33 / S) + S = 62.5 at 44 and rising: 44, whose messages of 9.1 KB are one chunk
     * each, unstreamed. The engine streams such in-trees (the deep fill), and streamed every S
     * pays the band's 1 us and rate: 6.67 + 11 (1 + 3.33 / S) + S, least at sqrt(36.7) = 6.06: 6
     * (29.8 us; 30.0 at 5, 29.9 at 7), messages of 67 KB in 8 chunks — taken. */
    ph.kind = GSP_RT_REDUCE;
    ph.turn_of = any_turn;
    assert_int_equal(gsp_rt_segments(&ph, 4e5, &band), 2);
    ph.turn_of = NULL;
    assert_int_equal(gsp_rt_segments(&ph, 4e5, &band), 6);
    ph.kind = GSP_RT_STORE;
    ph.levels = 3;
    assert_int_equal(gsp_rt_segments(&ph, 4e5, &band), 7);
    ph.levels = 12;
    ph.kind = 0;
    /* The same trees from one root (a broadcast: param[1] 0) drain once a level, their root's
     * links busy to the end: w + 11 (alpha + f w / S) + S alpha, least at sqrt(11 f w / alpha) =
     * 33.2: 277.33 us at 33, 277.35 at 34. */
    ph.param[1] = 0;
    assert_int_equal(gsp_rt_segments(&ph, 1e7, &c), 33);
    ph.param[1] = 1;
    /* A reduce-scatter's in-trees: a relay sends a segment's sum once all its children's are
     * in, a wait a level, so where segments pay at all (the one fill chose 10) the drain's 33.
     * Where the one fill keeps the parts whole they stay whole: parts of 1e5 bytes, w = 2 us,
     * f w / alpha = 1 (one fill: 15 us whole, 15.5 in 2), though the drain form alone would
     * take 3 (19.67 us against 25 whole). */
    ph.kind = GSP_RT_REDUCE;
    assert_int_equal(gsp_rt_segments(&ph, 1e7, &c), 33);
    assert_int_equal(gsp_rt_segments(&ph, 1e5, &c), 1);
    ph.kind = GSP_RT_STORE;
    assert_int_equal(gsp_rt_segments(&ph, 1e5, &c), 1);
    tround[4] = 2;
    assert_int_equal(gsp_rt_segments(&ph, 1e7, &c), 2);
    tround[4] = 1;
    ph.levels = 2;
    /* A relay for every edge (f = 1): sqrt(w / alpha) = 14.1 at 1 us: 14. */
    ph.param[6] = 2;
    assert_int_equal(gsp_rt_segments(&ph, 1e7, &c), 14);
    /* Trees of 1 and 9 parts of 40000 bytes (M = 4e5 bytes) at 25/4 GB/s: w = 64 us, f = 1/2;
     * 2 us below 65472 bytes, 1 ms above. The largest tree's message, 360000 / S bytes, is
     * below 65472 only from S = 6: 64 + 2 + 32 / 6 + 12 = 83.3 us, the least (S = 7: 84.6). Cut
     * by the mean tree (200000 / S) it would have been 4, where the largest pays the 1 ms. */
    int64_t tround2[6] = {0, 1, 0, 1, 9, 0};
    ph.tround = tround2;
    ph.param[4] = 25, ph.param[5] = 4, ph.param[6] = 1, ph.param[7] = 2;
    s.alpha_val[1] = 1e-3;
    assert_int_equal(gsp_rt_segments(&ph, 40000, &s), 6);
    memset(ph.param, 0, sizeof ph.param);
    ph.tround = NULL;
    ph.layout = 0;
    ph.levels = 0;
    c.segment = 8192;
    assert_int_equal(gsp_rt_segments(&ph, 1e6, &c), 123);
    assert_int_equal(gsp_rt_segments(&ph, 1e9, &c), GSP_RT_MAX_SEGMENTS);
    assert_int_equal(gsp_rt_segments(&ph, 3, &c), 1);
}

/* The shared-memory model against closed forms: with beta 1 and nothing else, a prediction is
 * every byte the collective moves (no duplicate deliveries): allgather N(N-1) blocks, a tree
 * broadcast or reduce N-1 vectors, the bandwidth allreduce 2(N-1)/N of the vector per rank;
 * with gamma alone, the bytes combined. And the choices it makes where the link model errs:
 * on two ranks of one node the reduce is the tree at every size. */
static void test_shared_memory(void **state) {
    (void)state;
    const char *specs[] = {"complete:2", "complete:4", "torus:3x4", "hypercube:3"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        gsp_topo_t t = build(specs[i]);
        gsp_distances_t d;
        assert_int_equal(gsp_distances(&t, false, &d, NULL, NULL), GSP_OK);
        double n = (double)t.n, b = 1200 * n; /* divisible by N: blocks are exact */
        gsp_cost_t z;
        memset(&z, 0, sizeof z);
        z.shared = true;
        gsp_rt_pred_t pr;
        gsp_rt_algos_t a;
        assert_int_equal(gsp_rt_algos(&t, &d, GSP_COLL_ALLGATHER, -1, NULL, &a), GSP_OK);
        realize_all(&a);
        z.beta = 1;
        for (int k = 0; k < a.n; k++) {
            gsp_rt_predict(&a.v[k], t.n, (int64_t)b, &z, &pr);
            if (fabs(pr.seconds - n * (n - 1) * b) > 1e-6) fail_msg("%s allgather %s: %g", specs[i], a.v[k].name, pr.seconds);
        }
        gsp_rt_algos_destroy(&a);
        for (int coll = 0; coll < 2; coll++) {
            assert_int_equal(gsp_rt_algos(&t, &d, coll ? GSP_COLL_REDUCE : GSP_COLL_BROADCAST, 1, NULL, &a), GSP_OK);
            realize_all(&a);
            int tr = gsp_rt_find(&a, "tree");
            assert_true(tr >= 0);
            z.beta = 1;
            z.gamma = 0;
            gsp_rt_predict(&a.v[tr], t.n, (int64_t)b, &z, &pr);
            assert_true(fabs(pr.seconds - (n - 1) * b) < 1e-6);
            z.beta = 0;
            z.gamma = 1;
            gsp_rt_predict(&a.v[tr], t.n, (int64_t)b, &z, &pr);
            assert_true(fabs(pr.seconds - (coll ? (n - 1) * b : 0)) < 1e-6);
            gsp_rt_algos_destroy(&a);
        }
        assert_int_equal(gsp_rt_algos(&t, &d, GSP_COLL_ALLREDUCE, -1, NULL, &a), GSP_OK);
        realize_all(&a);
        int rs = gsp_rt_find(&a, "rs-ag"), ga = gsp_rt_find(&a, "gather");
        assert_true(rs >= 0 && ga >= 0);
        z.beta = 1;
        z.gamma = 0;
        gsp_rt_predict(&a.v[rs], t.n, (int64_t)b, &z, &pr);
        assert_true(fabs(pr.seconds - 2 * (n - 1) * b) < 1e-6);
        z.beta = 0;
        z.gamma = 1; /* reduce-scatter: (N-1)/N of the vector combined at each rank; gather: N-1 vectors at each */
        gsp_rt_predict(&a.v[rs], t.n, (int64_t)b, &z, &pr);
        assert_true(fabs(pr.seconds - (n - 1) * b) < 1e-6);
        gsp_rt_predict(&a.v[ga], t.n, (int64_t)b, &z, &pr);
        assert_true(fabs(pr.seconds - n * (n - 1) * b) < 1e-6);
        gsp_rt_algos_destroy(&a);
        gsp_distances_destroy(&d);
        gsp_topo_destroy(&t);
    }
    gsp_topo_t t = build("complete:2");
    gsp_distances_t d;
    assert_int_equal(gsp_distances(&t, false, &d, NULL, NULL), GSP_OK);
    gsp_rt_algos_t a;
    assert_int_equal(gsp_rt_algos(&t, &d, GSP_COLL_REDUCE, 0, NULL, &a), GSP_OK);
    realize_all(&a);
    gsp_cost_t sh = gsp_cost_shared_memory(), net = gsp_cost_default();
    assert_true(sh.shared && !net.shared);
    for (int64_t bytes = 8; bytes <= 4 << 20; bytes *= 4) assert_string_equal(a.v[choose(&a, t.n, bytes, &sh)].name, "tree");
    /* Independent links: a reduce-scatter then a gather (rs-gather, or the rings, the same on
     * two ranks: the first in the registry wins the tie), not the tree. */
    assert_string_equal(a.v[choose(&a, t.n, 4 << 20, &net)].name, "rings");
    assert_int_equal(a.v[choose(&a, t.n, 4 << 20, &net)].nphases, 2);
    gsp_rt_algos_destroy(&a);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

/* gsp_rt_choose is the argmin of gsp_rt_predict over the candidates, the first on ties: with
 * every candidate built, the index it returns for a few sizes and models is the one found here
 * by predicting each candidate. */
static void test_choose_is_argmin(void **state) {
    (void)state;
    gsp_topo_t t = build("torus:4x4");
    gsp_distances_t d;
    assert_int_equal(gsp_distances(&t, true, &d, NULL, NULL), GSP_OK);
    gsp_cost_t models[2] = {gsp_cost_default(), gsp_cost_shared_memory()};
    int64_t sizes[3] = {8, 65536, 16777216};
    for (int coll = 0; coll < 2; coll++) {
        gsp_rt_algos_t a;
        assert_int_equal(gsp_rt_algos(&t, &d, coll ? GSP_COLL_ALLGATHER : GSP_COLL_ALLREDUCE, -1, NULL, &a), GSP_OK);
        realize_all(&a);
        assert_true(a.n >= 2);
        for (int mi = 0; mi < 2; mi++)
            for (int si = 0; si < 3; si++) {
                int best = -1;
                double best_s = 0;
                for (int i = 0; i < a.n; i++) {
                    gsp_rt_pred_t pr;
                    gsp_rt_predict(&a.v[i], t.n, sizes[si], &models[mi], &pr);
                    if (best < 0 || pr.seconds < best_s) {
                        best = i;
                        best_s = pr.seconds;
                    }
                }
                assert_int_equal(gsp_rt_choose(&a, t.n, sizes[si], &models[mi]), best);
            }
        gsp_rt_algos_destroy(&a);
    }
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

/* A phase rule's output (gsp_rt_xfers_add): sends and receives kept apart, in the order given. */
static void test_xfers(void **state) {
    (void)state;
    gsp_rt_xfers_t x;
    memset(&x, 0, sizeof x);
    for (int64_t k = 0; k < 100; k++) assert_int_equal(gsp_rt_xfers_add(&x, k % 3 == 0, k / 10, k % 7, k), GSP_OK);
    assert_int_equal(x.nrecv, 34);
    assert_int_equal(x.nsend, 66);
    for (int64_t k = 0, s = 0, r = 0; k < 100; k++) {
        const gsp_rt_xfer_t *e = k % 3 == 0 ? &x.recv[r++] : &x.send[s++];
        assert_int_equal(e->round, k / 10);
        assert_int_equal(e->peer, k % 7);
        assert_int_equal(e->block, k);
    }
    gsp_rt_xfers_destroy(&x);
    assert_null(x.send);
    assert_int_equal(x.nsend + x.nrecv, 0);
    gsp_rt_xfers_destroy(&x); /* zeroed: a no-op */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arborescences),
        cmocka_unit_test(test_multitree_phases),
        cmocka_unit_test(test_routed_phases),
        cmocka_unit_test(test_segments),
        cmocka_unit_test(test_cost_band),
        cmocka_unit_test(test_alpha_lanes),
        cmocka_unit_test(test_shared_memory),
        cmocka_unit_test(test_choose_is_argmin),
        cmocka_unit_test(test_xfers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
