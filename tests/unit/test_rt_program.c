/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_rt_program.c — every rank's program of every runtime algorithm, assembled into one
 * schedule and checked.
 *
 * Each rank computes its own program (gsp_rt_program) from the phase's compact form; the test
 * computes all N of them on small instances, checks that every send meets its receive
 * (gsp_rt_assemble), and then checks the assembled whole against independent truth:
 *  - allgather-type phases (each node starts with its own block) by the exact verifier
 *    (gsp_sched_verify), reduce-scatter phases by the verifier's reduce check;
 *  - every phase by a direct simulation: a sender holds what it sends (store and forward), a
 *    partial sum is sent once and never counted twice, and at the end every owner holds what
 *    the collective promises (every block everywhere, block x complete at node x, the root's
 *    vector everywhere or complete at the root, a scatter's block x at node x);
 *  - the phase's statistics, from which the cost model predicts (per round: most blocks on
 *    one arc, most blocks combined at one node, most messages at one node, blocks moved; the
 *    busiest arc), recomputed from the assembled transfers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/gossip.h"
#include "gossip/runtime.h"

typedef enum { INIT_OWN, INIT_ROOT_ONE, INIT_ROOT_ALL } init_t;
typedef enum { FIN_ALL_EVERYWHERE, FIN_OWN, FIN_ROOT_ALL } fin_t;

/* What phase k of algorithm a starts from and must reach (store phases), from its shape. */
static void shape(const gsp_rt_algo_t *a, int k, int64_t *nb, init_t *in, fin_t *fin) {
    const gsp_rt_phase_t *ph = &a->phase[k];
    *nb = ph->nblocks > 0 ? ph->nblocks : -1; /* -1: n */
    *in = INIT_OWN;
    *fin = FIN_ALL_EVERYWHERE;
    if (ph->layout == GSP_RT_WHOLE) {
        *in = INIT_ROOT_ONE;
        *fin = FIN_ALL_EVERYWHERE;
    } else if (ph->pipelined && (a->coll == GSP_COLL_BROADCAST || a->coll == GSP_COLL_REDUCE)) {
        /* Trees from the root (a fabric's allgather trees are pipelined too, from every node). */
        *in = INIT_ROOT_ALL;
    } else if ((!strcmp(a->name, "scatter-allgather") || (!strcmp(a->name, "rings") && a->coll == GSP_COLL_BROADCAST)) && k == 0) {
        *in = INIT_ROOT_ALL;
        *fin = FIN_OWN;
    } else if ((!strcmp(a->name, "rs-gather") || (!strcmp(a->name, "rings") && a->coll == GSP_COLL_REDUCE)) && k == 1) {
        *in = INIT_OWN;
        *fin = FIN_ROOT_ALL;
    }
}

static int64_t root_of(const gsp_rt_algo_t *a) { return a->root >= 0 ? a->root : 0; }

/* Store phases: holdings per (node, block). */
static void simulate_store(const gsp_topo_t *t, const gsp_rt_algo_t *a, int k, const gsp_sched_t *s, const char *what) {
    const gsp_rt_phase_t *ph = &a->phase[k];
    int64_t n = t->n, nb, root = root_of(a);
    init_t in;
    fin_t fin;
    shape(a, k, &nb, &in, &fin);
    int64_t Q = ph->parts > 1 ? ph->parts : 1;
    if (nb < 0) nb = n * Q;
    unsigned char *has = calloc((size_t)(n * nb), 1);
    if (in == INIT_OWN)
        for (int64_t b = 0; b < nb; b++) has[(b / Q) * nb + b] = 1;
    else if (in == INIT_ROOT_ONE)
        has[root * nb + (ph->layout == GSP_RT_WHOLE ? root % nb : 0)] = 1;
    else
        for (int64_t x = 0; x < nb; x++) has[root * nb + x] = 1;
    for (int64_t r = 0; r < s->nrounds; r++) {
        int64_t b = s->send_off.v[r], e = s->send_off.v[r + 1];
        for (int64_t q = b; q < e; q++) {
            const gsp_send_t *x = &s->sends[q];
            if (x->x < 0 || x->x >= nb) fail_msg("%s: round %lld: block %lld out of range", what, (long long)r, (long long)x->x);
            if (!ph->routed && gsp_topo_arc_index(t, x->u, x->v) < 0)
                fail_msg("%s: round %lld: %lld -> %lld is not an arc", what, (long long)r, (long long)x->u, (long long)x->v);
            if (has[x->u * nb + x->x] != 1)
                fail_msg("%s: round %lld: %lld sends block %lld it lacks", what, (long long)r, (long long)x->u, (long long)x->x);
            if (has[x->v * nb + x->x])
                fail_msg("%s: round %lld: %lld gets block %lld twice", what, (long long)r, (long long)x->v, (long long)x->x);
            has[x->v * nb + x->x] = 2;
        }
        for (int64_t q = b; q < e; q++) has[s->sends[q].v * nb + s->sends[q].x] = 1;
    }
    for (int64_t v = 0; v < n; v++)
        for (int64_t x = 0; x < nb; x++) {
            bool want = fin == FIN_ALL_EVERYWHERE ? (ph->layout != GSP_RT_WHOLE || x == root % nb)
                        : fin == FIN_OWN         ? v == x / Q
                                                 : v == root;
            if (want && !has[v * nb + x]) fail_msg("%s: node %lld never gets block %lld", what, (long long)v, (long long)x);
        }
    free(has);
}

/* Reduce phases with contribution sets (n <= 64): every node starts with its own contribution
 * to every block; a sent partial sum leaves its sender; nothing is counted twice; at the end
 * the owner holds every contribution. */
static void simulate_reduce(const gsp_topo_t *t, const gsp_rt_algo_t *a, int k, const gsp_sched_t *s, const char *what) {
    const gsp_rt_phase_t *ph = &a->phase[k];
    int64_t Q = ph->parts > 1 ? ph->parts : 1, n = t->n, nb = ph->nblocks > 0 ? ph->nblocks : n * Q, root = root_of(a);
    assert_true(n <= 64);
    uint64_t *sum = calloc((size_t)(n * nb), sizeof *sum);
    unsigned char *gone = calloc((size_t)(n * nb), 1);
    for (int64_t v = 0; v < n; v++)
        for (int64_t x = 0; x < nb; x++) sum[v * nb + x] = (uint64_t)1 << v;
    for (int64_t r = 0; r < s->nrounds; r++) {
        int64_t b = s->send_off.v[r], e = s->send_off.v[r + 1];
        uint64_t *snap = malloc((size_t)(e - b + 1) * sizeof *snap);
        for (int64_t q = b; q < e; q++) {
            const gsp_send_t *x = &s->sends[q];
            if (!ph->routed && gsp_topo_arc_index(t, x->u, x->v) < 0) fail_msg("%s: %lld -> %lld is not an arc", what, (long long)x->u, (long long)x->v);
            if (gone[x->u * nb + x->x]) fail_msg("%s: %lld sends block %lld twice", what, (long long)x->u, (long long)x->x);
            snap[q - b] = sum[x->u * nb + x->x];
            /* An exchange keeps its partial: it combines what comes back into it. */
            if (!ph->exchange) gone[x->u * nb + x->x] = 1;
        }
        for (int64_t q = b; q < e; q++) {
            const gsp_send_t *x = &s->sends[q];
            if (gone[x->v * nb + x->x]) fail_msg("%s: %lld takes block %lld after sending it", what, (long long)x->v, (long long)x->x);
            if (sum[x->v * nb + x->x] & snap[q - b]) fail_msg("%s: a contribution counted twice", what);
            sum[x->v * nb + x->x] |= snap[q - b];
        }
        free(snap);
    }
    uint64_t all = n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
    if (ph->exchange) {
        /* Recursive doubling: every node ends with every contribution. */
        for (int64_t v = 0; v < n; v++)
            if (sum[v * nb] != all) fail_msg("%s: node %lld incomplete", what, (long long)v);
        free(sum);
        free(gone);
        return;
    }
    for (int64_t x = 0; x < nb; x++) {
        int64_t owner = ph->layout == GSP_RT_WHOLE || (ph->pipelined && a->coll == GSP_COLL_REDUCE) ? root : x / Q;
        if (ph->layout == GSP_RT_WHOLE && x != root % nb) continue;
        if (sum[owner * nb + x] != all) fail_msg("%s: block %lld incomplete at %lld", what, (long long)x, (long long)owner);
    }
    free(sum);
    free(gone);
}

/* The phase's statistics recomputed from the assembled transfers. */
static void check_stats(const gsp_topo_t *t, const gsp_rt_phase_t *ph, const gsp_sched_t *s, const char *what) {
    int64_t n = t->n;
    assert_int_equal(s->nrounds, ph->nrounds);
    assert_int_equal(s->nsends, ph->ntransfers);
    if (ph->routed) return; /* routed loads are per first link: test_runtime checks them */
    int64_t *pair = calloc((size_t)(n * n), sizeof *pair), *tot = calloc((size_t)(n * n), sizeof *tot);
    int64_t *rcv = calloc((size_t)n, sizeof *rcv), *sm = calloc((size_t)n, sizeof *sm), *rm = calloc((size_t)n, sizeof *rm), busiest = 0;
    for (int64_t r = 0; r < s->nrounds; r++) {
        int64_t b = s->send_off.v[r], e = s->send_off.v[r + 1], mb = 0, mr = 0, mm = 0;
        for (int64_t q = b; q < e; q++) {
            const gsp_send_t *x = &s->sends[q];
            if (pair[x->u * n + x->v]++ == 0) {
                if (++sm[x->u] > mm) mm = sm[x->u];
                if (++rm[x->v] > mm) mm = rm[x->v];
            }
            if (pair[x->u * n + x->v] > mb) mb = pair[x->u * n + x->v];
            if (++rcv[x->v] > mr) mr = rcv[x->v];
            if (++tot[x->u * n + x->v] > busiest) busiest = tot[x->u * n + x->v];
        }
        for (int64_t q = b; q < e; q++) {
            const gsp_send_t *x = &s->sends[q];
            pair[x->u * n + x->v] = rcv[x->v] = sm[x->u] = rm[x->v] = 0;
        }
        if (ph->kind != GSP_RT_REDUCE) mr = 0;
        if (ph->maxblk[r] != mb || ph->maxred[r] != mr || ph->maxmsg[r] != mm || ph->moved[r] != e - b)
            fail_msg("%s: round %lld: statistics %lld/%lld/%lld/%lld, the transfers say %lld/%lld/%lld/%lld", what, (long long)r,
                     (long long)ph->maxblk[r], (long long)ph->maxred[r], (long long)ph->maxmsg[r], (long long)ph->moved[r], (long long)mb,
                     (long long)mr, (long long)mm, (long long)(e - b));
    }
    if (ph->busiest != busiest) fail_msg("%s: busiest arc %lld, the transfers say %lld", what, (long long)ph->busiest, (long long)busiest);
    free(pair);
    free(tot);
    free(rcv);
    free(sm);
    free(rm);
}

/* A routed swing phase: each transfer changes one coordinate of a torus and goes the shorter way
 * round its ring (never a tie: swing's distances are odd and below P/2), link by link; per round
 * the busiest directed link's blocks must be the phase's maxblk, and over the phase its busiest. */
static void check_ring_routes(const gsp_topo_t *t, const gsp_rt_phase_t *ph, const gsp_sched_t *s, const char *what) {
    const gsp_group_t *g = t->group;
    int64_t n = t->n, deg = t->off[1] - t->off[0];
    int64_t *load = calloc((size_t)(n * deg), sizeof *load), *tot = calloc((size_t)(n * deg), sizeof *tot), busiest = 0;
    int64_t cu[GSP_MAX_DIMS], cv[GSP_MAX_DIMS];
    for (int64_t r = 0; r < s->nrounds; r++) {
        memset(load, 0, sizeof *load * (size_t)(n * deg));
        for (int64_t q = s->send_off.v[r]; q < s->send_off.v[r + 1]; q++) {
            const gsp_send_t *x = &s->sends[q];
            gsp_group_coords(g, x->u, cu);
            gsp_group_coords(g, x->v, cv);
            int d = -1;
            for (int j = 0; j < g->k; j++)
                if (cu[j] != cv[j]) {
                    if (d >= 0) fail_msg("%s: %lld -> %lld changes two coordinates", what, (long long)x->u, (long long)x->v);
                    d = j;
                }
            int64_t P = g->mod[d], fwd = ((cv[d] - cu[d]) % P + P) % P, step = 2 * fwd <= P ? 1 : -1, h = step > 0 ? fwd : P - fwd;
            if (2 * fwd == P && P > 2) fail_msg("%s: a transfer halfway round a ring", what);
            for (int64_t i = 0; i < h; i++) {
                int64_t at = gsp_group_index(g, cu);
                cu[d] = ((cu[d] + step) % P + P) % P;
                int64_t a = gsp_topo_arc_index(t, at, gsp_group_index(g, cu));
                assert_true(a >= 0);
                load[at * deg + a]++;
                tot[at * deg + a]++;
            }
        }
        int64_t mb = 0;
        for (int64_t i = 0; i < n * deg; i++) mb = load[i] > mb ? load[i] : mb;
        if (ph->maxblk[r] != mb) fail_msg("%s: round %lld: busiest link %lld blocks, the routes say %lld", what, (long long)r, (long long)ph->maxblk[r], (long long)mb);
    }
    for (int64_t i = 0; i < n * deg; i++) busiest = tot[i] > busiest ? tot[i] : busiest;
    if (ph->busiest != busiest) fail_msg("%s: busiest link %lld over the phase, the routes say %lld", what, (long long)ph->busiest, (long long)busiest);
    free(load);
    free(tot);
}

/* The exact verifier on allgather-type phases (own block first, every block everywhere) and
 * reduce-scatter phases (block x complete at node x); a phase of Q parts is Q such schedules,
 * one per part, verified one by one. */
static void verify_phase(const gsp_topo_t *t, const gsp_rt_algo_t *a, int k, const gsp_sched_t *s, const char *what) {
    const gsp_rt_phase_t *ph = &a->phase[k];
    int64_t nb, Q = ph->parts > 1 ? ph->parts : 1;
    init_t in;
    fin_t fin;
    shape(a, k, &nb, &in, &fin);
    if (ph->routed || nb > 0 || ph->layout == GSP_RT_WHOLE || in != INIT_OWN || fin != FIN_ALL_EVERYWHERE) return;
    for (int64_t q = 0; q < Q; q++) {
        gsp_sched_t one;
        assert_int_equal(gsp_sched_init(&one, s->coll, s->topology, s->nodes, &s->model, -1, s->method), GSP_OK);
        for (int64_t r = 0; r < s->nrounds; r++) {
            assert_int_equal(gsp_sched_round(&one), GSP_OK);
            for (int64_t j = s->send_off.v[r]; j < s->send_off.v[r + 1]; j++)
                if (s->sends[j].x % Q == q) assert_int_equal(gsp_sched_send(&one, s->sends[j].u, s->sends[j].v, s->sends[j].x / Q), GSP_OK);
        }
        assert_int_equal(gsp_sched_finish(&one), GSP_OK);
        if (ph->kind == GSP_RT_REDUCE) {
            one.blocks = true;
            one.reduce_rounds = one.nrounds;
        }
        gsp_report_t rep;
        if (gsp_sched_verify(&one, t, 1, &rep)) fail_msg("%s: %s", what, gsp_errmsg());
        if (!rep.ok) fail_msg("%s part %lld: the verifier says: %s", what, (long long)q, rep.message);
        assert_int_equal(rep.duplicates, 0);
        gsp_sched_destroy(&one);
    }
}

/* Schedules a and b one after the other (a split phase's halves: the rings' allreduce runs its
 * reduce-scatter and its allgather in two phases each). */
static void concat(const gsp_sched_t *a, const gsp_sched_t *b, gsp_sched_t *out) {
    assert_int_equal(gsp_sched_init(out, a->coll, a->topology, a->nodes, &a->model, -1, a->method), GSP_OK);
    for (int h = 0; h < 2; h++) {
        const gsp_sched_t *s = h ? b : a;
        for (int64_t r = 0; r < s->nrounds; r++) {
            assert_int_equal(gsp_sched_round(out), GSP_OK);
            for (int64_t j = s->send_off.v[r]; j < s->send_off.v[r + 1]; j++)
                assert_int_equal(gsp_sched_send(out, s->sends[j].u, s->sends[j].v, s->sends[j].x), GSP_OK);
        }
    }
    assert_int_equal(gsp_sched_finish(out), GSP_OK);
}

/* Which registry algorithms the checks exercised (every one must be). */
static bool exercised[64];

static void mark(const char *name) {
    for (int i = 0; i < gsp_rt_registry_size() && i < 64; i++) {
        gsp_rt_info_t e;
        gsp_rt_registry_entry(i, &e);
        if (!strcmp(e.name, name)) exercised[i] = true;
    }
}

static void check_spec(const char *spec) {
    gsp_topo_t t;
    gsp_distances_t d;
    if (gsp_topo_from_spec(&t, spec)) fail_msg("%s: %s", spec, gsp_errmsg());
    gsp_vt_t vt;
    assert_int_equal(gsp_vertex_transitive(&t, &vt), GSP_OK);
    assert_int_equal(gsp_distances(&t, gsp_vt_yes(vt), &d, NULL, NULL), GSP_OK);
    static const gsp_collective_t colls[] = {GSP_COLL_ALLGATHER, GSP_COLL_REDUCE_SCATTER, GSP_COLL_ALLREDUCE, GSP_COLL_BROADCAST,
                                             GSP_COLL_REDUCE};
    int checked = 0;
    for (size_t c = 0; c < sizeof colls / sizeof *colls; c++) {
        int64_t root = colls[c] == GSP_COLL_BROADCAST || colls[c] == GSP_COLL_REDUCE ? t.n / 3 : 0;
        gsp_rt_algos_t al;
        if (gsp_rt_algos(&t, &d, colls[c], root, NULL, &al)) fail_msg("%s: %s", spec, gsp_errmsg());
        for (int i = 0; i < al.n; i++) {
            bool removed;
            if (gsp_rt_realize(&al, i, &removed)) fail_msg("%s: %s: %s", spec, al.v[i].name, gsp_errmsg());
            if (removed) {
                i--;
                continue;
            }
            const gsp_rt_algo_t *a = &al.v[i];
            mark(a->name);
            /* The rings' allreduce in four phases: each half of it checked whole. */
            bool split = !strcmp(a->name, "rings") && a->nphases == 4;
            gsp_sched_t first;
            for (int k = 0; k < a->nphases; k++) {
                char what[160];
                snprintf(what, sizeof what, "%s %s %s phase %d", spec, gsp_collective_name(colls[c]), a->name, k);
                gsp_sched_t s;
                if (gsp_rt_assemble(a, k, &t, &s)) fail_msg("%s: %s", what, gsp_errmsg());
                check_stats(&t, &a->phase[k], &s, what);
                if (a->phase[k].routed && !strcmp(a->name, "swing")) check_ring_routes(&t, &a->phase[k], &s, what);
                int kk = k;
                if (split && k % 2 == 0) {
                    first = s;
                    continue;
                }
                if (split) {
                    gsp_sched_t both;
                    concat(&first, &s, &both);
                    gsp_sched_destroy(&first);
                    gsp_sched_destroy(&s);
                    s = both;
                    kk = k - 1;
                }
                if (a->phase[kk].kind == GSP_RT_REDUCE) simulate_reduce(&t, a, kk, &s, what);
                else simulate_store(&t, a, kk, &s, what);
                verify_phase(&t, a, kk, &s, what);
                gsp_sched_destroy(&s);
                checked++;
            }
        }
        gsp_rt_algos_destroy(&al);
    }
    assert_true(checked >= 8);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

static void test_cayley(void **state) {
    (void)state;
    static const char *specs[] = {"torus:4x4", "torus:3x5", "torus:2x3x4", "hypercube:4", "torus:8x2x4", "torus:2x16", "torus:8x8", "torus:16x4", "star:4", "optcirc:13", "cycle:7",
                                  "complete:5", "circulant:12:1,5", "product(cycle:3,complete:4)", "cayley:Z4xZ2:(1,0),(0,1)"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) check_spec(specs[i]);
}

static void test_files(void **state) {
    (void)state;
    /* Graphs without a group: the explicit path, scanned per rank. */
    check_spec("file:" GOSSIP_TEST_DATA "/petersen.txt");
    check_spec("file:" GOSSIP_TEST_DATA "/frucht.txt");
    check_spec("file:" GOSSIP_TEST_DATA "/path4.txt");
}

/* Fabrics (gsp_rt_fabric_algos): the ranks are the compute nodes, the phases on their complete
 * graph; every collective's phases assembled and checked as above (the verifier part by part:
 * every rank gets every part of every block once). */
static void check_fabric(const char *spec) {
    gsp_topo_t f, k;
    gsp_distances_t d;
    gsp_vt_t vt;
    char ks[64];
    if (gsp_topo_from_spec(&f, spec)) fail_msg("%s: %s", spec, gsp_errmsg());
    snprintf(ks, sizeof ks, "complete:%lld", (long long)gsp_topo_compute_count(&f));
    assert_int_equal(gsp_topo_from_spec(&k, ks), GSP_OK);
    assert_int_equal(gsp_vertex_transitive(&k, &vt), GSP_OK);
    assert_int_equal(gsp_distances(&k, gsp_vt_yes(vt), &d, NULL, NULL), GSP_OK);
    static const gsp_collective_t colls[] = {GSP_COLL_ALLGATHER, GSP_COLL_REDUCE_SCATTER, GSP_COLL_ALLREDUCE, GSP_COLL_BROADCAST};
    for (size_t c = 0; c < sizeof colls / sizeof *colls; c++) {
        gsp_rt_algos_t al;
        int64_t root = colls[c] == GSP_COLL_BROADCAST ? k.n / 3 : 0;
        if (gsp_rt_fabric_algos(&f, &k, &d, colls[c], root, &al)) fail_msg("%s %s: %s", spec, gsp_collective_name(colls[c]), gsp_errmsg());
        /* fabric-trees (the optimum) and, where compute nodes have links between them,
         * fabric-shallow (shallow trees near it); fabric-rings on a box of at most 32 compute
         * nodes and no switch, or on boxes (the components of the links between compute
         * nodes, two or more, of one size) whose nodes all link to the one switch (not for
         * a broadcast). */
        bool direct = false;
        int64_t N = gsp_topo_compute_count(&f), nsw = f.n - N, comp = 0, *seen = calloc((size_t)f.n, sizeof *seen), *stack = calloc((size_t)f.n, sizeof *stack);
        assert_non_null(seen);
        assert_non_null(stack);
        for (int64_t x = 0; x < f.n; x++)
            for (int64_t a = f.off[x]; a < f.off[x + 1]; a++)
                direct |= !(f.is_switch && (f.is_switch[x] || f.is_switch[f.adj[a]]));
        bool boxes = nsw == 1, alike = true;
        int64_t first = 0;
        for (int64_t x = 0; x < f.n && boxes; x++) {
            if (f.is_switch[x]) {
                boxes = f.off[x + 1] - f.off[x] == N;
                continue;
            }
            if (seen[x]) continue;
            int64_t sp = 0, size = 0;
            stack[sp++] = x, seen[x] = ++comp;
            while (sp) {
                int64_t y = stack[--sp];
                size++;
                for (int64_t a = f.off[y]; a < f.off[y + 1]; a++)
                    if (!f.is_switch[f.adj[a]] && !seen[f.adj[a]]) seen[f.adj[a]] = comp, stack[sp++] = f.adj[a];
            }
            if (!first) first = size;
            alike &= size == first && size >= 2;
        }
        free(seen);
        free(stack);
        bool rings = colls[c] != GSP_COLL_BROADCAST && ((nsw == 0 && N <= 32) || (boxes && alike && comp >= 2));
        /* fabric-streams: a broadcast's packing as packed where it is two or more trees deeper
         * than 3 levels, of one share each, each at least as wide as the slowest link (checked
         * below): mi250:1's (six trees of 50 GB/s from each GCD); or trees of the slowest link's
         * rate through the switch by SAT: mi250:2's (16 of a NIC each); no other collective's. */
        bool streams = gsp_rt_find(&al, "fabric-streams") >= 0;
        if (colls[c] != GSP_COLL_BROADCAST) assert_false(streams);
        if (colls[c] == GSP_COLL_BROADCAST && (!strcmp(spec, "mi250:1") || !strcmp(spec, "mi250:2"))) assert_true(streams);
        assert_int_equal(al.n, 1 + direct + rings + streams);
        assert_string_equal(al.v[0].name, "fabric-trees");
        if (direct) assert_string_equal(al.v[1].name, "fabric-shallow");
        if (rings) assert_string_equal(al.v[al.n - 1].name, "fabric-rings");
        for (int ai = 0; ai < al.n; ai++) {
            const gsp_rt_algo_t *a = &al.v[ai];
            mark(a->name);
            assert_int_equal(a->nphases, colls[c] == GSP_COLL_ALLREDUCE ? 2 : 1);
            /* Allreduce on a fabric whose every arc has a reverse of the same capacity (checked
             * here arc by arc, by brute force): one forest, the reduce-scatter on the
             * allgather's trees reversed (so the engine may run both phases at once); else a
             * forest each. */
            if (colls[c] == GSP_COLL_ALLREDUCE) {
                bool sym = true;
                for (int64_t x = 0; x < f.n && sym; x++)
                    for (int64_t e = f.off[x]; e < f.off[x + 1] && sym; e++) {
                        int64_t y = f.adj[e], same = 0, back = 0;
                        for (int64_t g = f.off[x]; g < f.off[x + 1]; g++) same += f.adj[g] == y && (!f.cap || f.cap[g] == f.cap[e]);
                        for (int64_t g = f.off[y]; g < f.off[y + 1]; g++) back += f.adj[g] == x && (!f.cap || f.cap[g] == f.cap[e]);
                        sym = same == back;
                    }
                const gsp_rt_phase_t *r = &a->phase[0], *g = &a->phase[1];
                bool one = strstr(a->built_from, "reversed for the reduce-scatter") != NULL;
                if (one != sym) fail_msg("%s allreduce %s: symmetric %d, one forest %d", spec, a->name, sym, one);
                if (one) {
                    assert_int_equal(r->param[0], g->param[0]);
                    assert_int_equal(r->param[1], g->param[1]);
                    assert_memory_equal(r->tround, g->tround, (size_t)(3 * r->param[0]) * sizeof *r->tround);
                    assert_memory_equal(r->tchild_off, g->tchild_off, (size_t)(r->param[0] + 1) * sizeof *r->tchild_off);
                    assert_memory_equal(r->tparent, g->tparent, (size_t)(2 * r->tchild_off[r->param[0]]) * sizeof *r->tparent);
                }
            }
            for (int p = 0; p < a->nphases; p++) {
                char what[160];
                snprintf(what, sizeof what, "%s %s %s phase %d", spec, gsp_collective_name(colls[c]), a->name, p);
                assert_true(a->phase[p].pipelined && a->phase[p].levels > 0 && a->phase[p].levels <= a->phase[p].nrounds);
                gsp_sched_t s;
                if (gsp_rt_assemble(a, p, &k, &s)) fail_msg("%s: %s", what, gsp_errmsg());
                check_stats(&k, &a->phase[p], &s, what);
                if (a->phase[p].kind == GSP_RT_REDUCE) simulate_reduce(&k, a, p, &s, what);
                else simulate_store(&k, a, p, &s, what);
                verify_phase(&k, a, p, &s, what);
                gsp_sched_destroy(&s);
                /* A broadcast's trees more than 3 deep run as trees of one part each (every tree
                 * of one share), so their count is the parts; the optimal packing's are then the
                 * traded ones, no deeper than gsp_fabric_trees'. */
                const gsp_rt_phase_t *ph = &a->phase[p];
                if (ph->levels > 3 && colls[c] == GSP_COLL_BROADCAST) {
                    int64_t roots = 1, parts = ph->nblocks;
                    for (int64_t i = 0; i < ph->param[0]; i++)
                        if (ph->tround[3 * i + 1] != 1) fail_msg("%s: tree %lld of %lld parts, %lld deep", what, (long long)i, (long long)ph->tround[3 * i + 1], (long long)ph->levels);
                    assert_int_equal(ph->param[0], roots * parts);
                }
                if (ai == 0 && ph->levels > 3 && colls[c] == GSP_COLL_BROADCAST) {
                    gsp_forest_t ft;
                    int64_t rv = -1;
                    for (int64_t v = 0, q = 0; v < f.n && rv < 0; v++)
                        if (!(f.is_switch && f.is_switch[v]) && q++ == root) rv = v;
                    assert_int_equal(gsp_fabric_trees(&f, GSP_COLL_BROADCAST, rv, &ft), GSP_OK);
                    if (ph->levels > ft.depth) fail_msg("%s: %lld deep, gsp_fabric_trees %lld", what, (long long)ph->levels, (long long)ft.depth);
                    gsp_forest_destroy(&ft);
                }
                /* The trees' algbw (param[4] / param[5]): the optimum's for fabric-trees, at most
                 * it and more than nothing for the shallow ones. */
                gsp_optimum_t o;
                gsp_collective_t oc = colls[c] == GSP_COLL_BROADCAST ? GSP_COLL_BROADCAST
                                      : a->phase[p].kind == GSP_RT_REDUCE ? GSP_COLL_REDUCE_SCATTER
                                                                          : GSP_COLL_ALLGATHER;
                int64_t rv = -1;
                for (int64_t v = 0, q = 0; v < f.n && rv < 0; v++)
                    if (!(f.is_switch && f.is_switch[v]) && q++ == root) rv = v;
                assert_int_equal(gsp_optimum(&f, oc, oc == GSP_COLL_BROADCAST ? rv : -1, &o), GSP_OK);
                __int128 pn = a->phase[p].param[4], pd = a->phase[p].param[5];
                if (!strcmp(a->name, "fabric-streams")) {
                    /* The optimum itself, as few trees (a block each) each at least as wide as
                     * the fabric's slowest arc, deeper than 3 levels, marked to stream. */
                    int64_t slow = 0;
                    for (int64_t e = 0; e < f.off[f.n]; e++)
                        if (e == 0 || (f.cap ? f.cap[e] : 1) < slow) slow = f.cap ? f.cap[e] : 1;
                    assert_true(ph->streams && ph->levels > 3 && ph->nblocks >= 2 && ph->param[0] == ph->nblocks);
                    if (pn != o.num || pd != o.den) fail_msg("%s: algbw %lld/%lld, optimum %lld/%lld", what, (long long)pn, (long long)pd, (long long)o.num, (long long)o.den);
                    if (pn * (f.cap_scale > 0 ? f.cap_scale : 1) < pd * ph->nblocks * (__int128)slow) fail_msg("%s: trees narrower than a link", what);
                    /* Recounted from the trees' edges (made shallow by SAT: fabric_sat_depth.c,
                     * fabric_sat_switched.c): each edge a link between its compute nodes or,
                     * where there is none, the route through a switch both link to; on every
                     * arc, the trees times a tree's rate (algbw over the trees) within its
                     * capacity; and on mi250:1 shallower than its packing as packed (13 levels;
                     * the root's eccentricity bounds it below). */
                    int64_t *cv = calloc((size_t)f.n, sizeof *cv), nc = 0, ntr = ph->param[0], *load = calloc((size_t)f.off[f.n] + 1, sizeof *load);
                    assert_non_null(cv);
                    assert_non_null(load);
                    for (int64_t v = 0; v < f.n; v++)
                        if (!(f.is_switch && f.is_switch[v])) cv[nc++] = v;
                    for (int64_t e = 0; e < ph->tchild_off[ntr]; e++) {
                        int64_t u = cv[ph->tparent[2 * e]], v = cv[ph->tparent[2 * e + 1]], via = -1;
                        for (int64_t g = f.off[u]; g < f.off[u + 1] && via < 0; g++)
                            if (f.adj[g] == v) load[g]++, via = g;
                        for (int64_t g = f.off[u]; g < f.off[u + 1] && via < 0; g++)
                            for (int64_t h = f.is_switch && f.is_switch[f.adj[g]] ? f.off[f.adj[g]] : 0; h < f.off[f.adj[g] + 1] && via < 0 && f.is_switch && f.is_switch[f.adj[g]]; h++)
                                if (f.adj[h] == v) load[g]++, load[h]++, via = h;
                        if (via < 0) fail_msg("%s: no route %lld -> %lld", what, (long long)u, (long long)v);
                    }
                    for (int64_t g = 0; g < f.off[f.n]; g++)
                        if ((__int128)load[g] * pn * (f.cap_scale > 0 ? f.cap_scale : 1) > (__int128)(f.cap ? f.cap[g] : 1) * pd * ntr)
                            fail_msg("%s: %lld trees on arc %lld beyond its capacity", what, (long long)load[g], (long long)g);
                    free(load);
                    free(cv);
                    if (!strcmp(spec, "mi250:1") && ph->levels >= 13) fail_msg("%s: %lld deep, no shallower than packed", what, (long long)ph->levels);
                    /* Its window under SimGrid SMPI's default factors (bench/smpi_costs.sh, links
                     * of 1 us: a route 2 us), by hand: a tree of 300 / 6 = 50 GB/s over the
                     * latency of the band's largest chunk (9375 bytes: 2.18796 x 2 us) is
                     * 50e9 x 4.37592e-6 / 9375 = 23.3 chunks, so 24; a block of 16 MiB / 6 holds
                     * 2 x 24 such chunks and streams, one of 1 MiB / 6 does not. */
                    if (!strcmp(spec, "mi250:1")) {
                        gsp_cost_t sm = gsp_cost_default();
                        int64_t win = -1, chunk = -1;
                        assert_int_equal(gsp_cost_parse_alpha("alpha", "0:4.029e-06,257:3.907e-06,732:3.901e-06,1426:3.221e-06,3484:3.762e-06,5776:4.37592e-06,9376:5.186e-06,15424:6.977e-06,65472:2.329e-05", &sm), GSP_OK);
                        assert_int_equal(gsp_cost_parse_beta("beta", "0:1.231e-11,257:2.958e-11,732:2.924e-11,1426:1.642e-11,3484:1.29e-11,5776:9.196e-12,9376:1.703e-11,15424:1.433e-11,65472:1.063e-11", &sm), GSP_OK);
                        assert_true(gsp_rt_stream_window(ph, 16777216.0 / 6, &sm, &win, &chunk));
                        assert_int_equal(win, 24);
                        assert_int_equal(chunk, 9375);
                        assert_false(gsp_rt_stream_window(ph, 1048576.0 / 6, &sm, &win, &chunk));
                    }
                } else
                    assert_false(a->phase[p].streams);
                if (ai == 0 && (pn != o.num || pd != o.den)) fail_msg("%s: algbw %lld/%lld, optimum %lld/%lld", what, (long long)pn, (long long)pd, (long long)o.num, (long long)o.den);
                if (pn <= 0 || pd <= 0 || pn * o.den > (__int128)o.num * pd) fail_msg("%s: algbw %lld/%lld beyond the optimum", what, (long long)pn, (long long)pd);
                gsp_optimum_destroy(&o);
            }
            /* The prediction, by hand: each phase's data M crosses in T = M / algbw of its trees
             * (capacities as GB/s), pipelined in S segments through the trees' R levels: with
             * alpha 0, T (1 + (R - 1) f / S) a phase, f the share of the trees' edges (by
             * multiplicity) whose parent is not the root, counted here from the phase's trees;
             * S 1 when R is 1, 2 when R > 3, and when R is 2 or 3 the most the cost model allows
             * (its least prediction without latencies): 256, or the bytes of a part if fewer.
             * Trees deeper than 3 all of one share fill once: T (1 + f / S), S the most allowed;
             * a reduce-scatter's of them once a level. */
            if (colls[c] != GSP_COLL_BROADCAST) {
                gsp_cost_t cm = gsp_cost_default();
                cm.alpha = 0;
                int64_t bytes = 1 << 20;
                gsp_rt_pred_t pr;
                gsp_rt_predict(a, k.n, bytes, &cm, &pr);
                double want = 0;
                for (int p = 0; p < a->nphases; p++) {
                    double M = colls[c] == GSP_COLL_ALLREDUCE ? (double)bytes : (double)bytes * (double)k.n;
                    const gsp_rt_phase_t *ph = &a->phase[p];
                    double bw = (double)ph->param[4] / (double)ph->param[5], wait = 0, all = 0;
                    for (int64_t i = 0; i < ph->param[0]; i++)
                        for (int64_t e = ph->tchild_off[i]; e < ph->tchild_off[i + 1]; e++) {
                            all += (double)ph->tround[3 * i + 1];
                            if (ph->tparent[2 * e] != ph->tround[3 * i]) wait += (double)ph->tround[3 * i + 1];
                        }
                    bool eq = true;
                    for (int64_t i = 1; i < ph->param[0]; i++) eq = eq && ph->tround[3 * i + 1] == ph->tround[1];
                    double blk = ceil(M / ((double)k.n * (double)ph->parts)), R = (double)ph->levels;
                    double S = R == 1 ? 1 : R > 3 && !eq ? 2 : fmin(GSP_RT_MAX_SEGMENTS, floor(blk));
                    /* A reduce-scatter's in-trees wait a level for their segments (drain: R - 1
                     * fills), but not an allreduce's that runs at once with its allgather on the
                     * same blocks and parts (in the allgather's segments, as one fill). */
                    const gsp_rt_phase_t *nx = p + 1 < a->nphases ? &a->phase[p + 1] : NULL;
                    bool fused = colls[c] == GSP_COLL_ALLREDUCE && nx && nx->layout == ph->layout && nx->parts == ph->parts && nx->nblocks == ph->nblocks;
                    bool drain = ph->kind == GSP_RT_REDUCE && !fused && S > 1;
                    want += M / (bw * 1e9) * (1 + (R > 3 && eq && !drain ? 1 : R - 1) * (wait / all) / S);
                }
                if (fabs(pr.seconds - want) > 1e-9 * want)
                    fail_msg("%s %s %s: predicted %.6g s, by hand %.6g", spec, gsp_collective_name(colls[c]), a->name, pr.seconds, want);
            }
        }
        gsp_rt_algos_destroy(&al);
    }
    /* Reduce is not planned on fabrics (MPI's own runs it); nor is a fabric with another
     * number of ranks. */
    gsp_rt_algos_t al;
    assert_int_equal(gsp_rt_fabric_algos(&f, &k, &d, GSP_COLL_REDUCE, 0, &al), GSP_ERR_NOTAPPLIC);
    gsp_topo_t k2;
    snprintf(ks, sizeof ks, "complete:%lld", (long long)k.n + 1);
    assert_int_equal(gsp_topo_from_spec(&k2, ks), GSP_OK);
    assert_int_equal(gsp_rt_fabric_algos(&f, &k2, &d, GSP_COLL_ALLGATHER, 0, &al), GSP_ERR_INVAL);
    gsp_topo_destroy(&k2);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&k);
    gsp_topo_destroy(&f);
}

static void test_fabrics(void **state) {
    (void)state;
    check_fabric("dgx:4x2");
    check_fabric("fattree:2x4");
    check_fabric("mi250:1");
    check_fabric("mi250:2");
    check_fabric("file:" GOSSIP_TEST_DATA "/fabric.txt");
}

/* The fabric-trees algorithm of collective c (root 0) on fabric spec, its ranks' graph k and
 * distances d [out], as an MPI job of its compute nodes would build it. */
static void fabric_trees(const char *spec, gsp_collective_t c, gsp_topo_t *f, gsp_topo_t *k, gsp_distances_t *d, gsp_rt_algos_t *al) {
    gsp_vt_t vt;
    char ks[64];
    assert_int_equal(gsp_topo_from_spec(f, spec), GSP_OK);
    snprintf(ks, sizeof ks, "complete:%lld", (long long)gsp_topo_compute_count(f));
    assert_int_equal(gsp_topo_from_spec(k, ks), GSP_OK);
    assert_int_equal(gsp_vertex_transitive(k, &vt), GSP_OK);
    assert_int_equal(gsp_distances(k, gsp_vt_yes(vt), d, NULL, NULL), GSP_OK);
    assert_int_equal(gsp_rt_fabric_algos(f, k, d, c, 0, al), GSP_OK);
    assert_string_equal(al->v[0].name, "fabric-trees");
}

/* No rank's program of al's first algorithm on k keeps a window of its own. */
static void no_windows(const gsp_rt_algos_t *al, const gsp_topo_t *k) {
    for (int64_t r = 0; r < k->n; r++) {
        gsp_rt_prog_t p;
        assert_int_equal(gsp_rt_program(&al->v[0], 0, k, r, &p), GSP_OK);
        assert_null(p.win);
        assert_int_equal(p.wmax, 0);
        gsp_rt_prog_destroy(&p);
    }
}

static void fabric_done(gsp_topo_t *f, gsp_topo_t *k, gsp_distances_t *d, gsp_rt_algos_t *al) {
    gsp_rt_algos_destroy(al);
    gsp_distances_destroy(d);
    gsp_topo_destroy(k);
    gsp_topo_destroy(f);
}

/* Windows on a fabric's trees: dgx:8x2's optimal broadcast (200 units from b0.gpu0) is bound by
 * the eight NICs out of box 0 and the eight into box 1 (its only minimum cuts), which every
 * tree crosses on one edge, so a send keeps GSP_RT_WIDE_WINDOW segments in flight exactly when
 * it goes from one box to the other (ranks 0-7 box 0, 8-15 box 1); a receiver of one posts that
 * far ahead. A reduce-scatter's sends keep the phase's one. mi250:1's broadcast from b0.gcd0
 * (300 units) is bound by many cuts (every pair of dies its own: 35 of the box's 56 arcs), and
 * every tree crosses them on several edges: no waist, no wider window anywhere. dgx:8x4's
 * broadcast (four boxes) is bound by box 0's NICs out and each other box's NICs in, which its
 * trees cross on several edges (a chain of boxes), but every such arc is a link to a switch: a
 * send keeps the wider window exactly when it goes from one box to another, as on dgx:8x2, and
 * the phase says its waist is a chain (the runtime takes those windows only for long lanes). */
static void test_fabric_windows(void **state) {
    (void)state;
    gsp_topo_t f, k;
    gsp_distances_t d;
    gsp_rt_algos_t al;
    const char *boxes[] = {"dgx:8x2", "dgx:8x4"};
    for (int b = 0; b < 2; b++) {
        fabric_trees(boxes[b], GSP_COLL_BROADCAST, &f, &k, &d, &al);
        /* dgx:8x4's trees cross on several edges each (a chain of boxes), dgx:8x2's on one. */
        assert_int_equal(al.v[0].phase[0].waist_chain, b == 1);
        int64_t wide = 0, cross = 0;
        for (int64_t r = 0; r < k.n; r++) {
            gsp_rt_prog_t p;
            assert_int_equal(gsp_rt_program(&al.v[0], 0, &k, r, &p), GSP_OK);
            bool from_other = false, to_other = false;
            for (int64_t q = 0; q < p.nrecv; q++) from_other |= p.recv[q].peer / 8 != r / 8;
            for (int64_t q = 0; q < p.nsend; q++) to_other |= p.send[q].peer / 8 != r / 8;
            assert_int_equal(p.wmax, from_other || to_other ? GSP_RT_WIDE_WINDOW : 0);
            for (int64_t q = 0; q < p.nsend; q++) {
                bool x = p.send[q].peer / 8 != r / 8;
                int w = p.win ? p.win[q] : 0;
                if (w != (x ? GSP_RT_WIDE_WINDOW : 0))
                    fail_msg("%s: rank %lld's send to %lld: window %d", boxes[b], (long long)r, (long long)p.send[q].peer, w);
                cross += x;
                wide += w > 0;
            }
            gsp_rt_prog_destroy(&p);
        }
        assert_true(cross > 0);
        assert_int_equal(wide, cross);
        fabric_done(&f, &k, &d, &al);
    }
    fabric_trees("dgx:8x2", GSP_COLL_REDUCE_SCATTER, &f, &k, &d, &al);
    no_windows(&al, &k);
    fabric_done(&f, &k, &d, &al);
    fabric_trees("mi250:1", GSP_COLL_BROADCAST, &f, &k, &d, &al);
    no_windows(&al, &k);
    fabric_done(&f, &k, &d, &al);
}

/* Turns on a fabric reduce-scatter's in-trees: a leaf's send (no receive of its block before it)
 * FEEDS when its receiver sends that tree's sum on (has a send of the tree: rounds are level *
 * trees + tree), and ENDS when it goes straight into the tree's root; a relay's send takes any
 * turn. dgx:8x2's and dgx:4x2's trees (two levels) have both kinds on every rank; an allgather's
 * and a broadcast's programs order none, nor do deeper trees' (mi250:1's). */
static void check_turns(const char *spec) {
    gsp_topo_t f, k;
    gsp_distances_t d;
    gsp_rt_algos_t al;
    fabric_trees(spec, GSP_COLL_REDUCE_SCATTER, &f, &k, &d, &al);
    int64_t NT = al.v[0].phase[0].param[0], N = k.n, feeds = 0, ends = 0;
    gsp_rt_prog_t *p = calloc((size_t)N, sizeof *p);
    assert_non_null(p);
    for (int64_t r = 0; r < N; r++) assert_int_equal(gsp_rt_program(&al.v[0], 0, &k, r, &p[r]), GSP_OK);
    for (int64_t r = 0; r < N; r++) {
        assert_non_null(p[r].turn);
        int64_t nf = 0, ne = 0;
        for (int64_t q = 0; q < p[r].nsend; q++) {
            const gsp_rt_msg_t *x = &p[r].send[q];
            bool on = false;
            for (int64_t s = 0; s < p[x->peer].nsend && !on; s++) on = p[x->peer].send[s].round % NT == x->round % NT;
            int want = x->prev >= 0 ? GSP_RT_TURN_ANY : on ? GSP_RT_TURN_FEEDS : GSP_RT_TURN_ENDS;
            if (p[r].turn[q] != want)
                fail_msg("%s: rank %lld's send to %lld in round %lld: turn %d, not %d", spec, (long long)r, (long long)x->peer, (long long)x->round,
                         p[r].turn[q], want);
            nf += want == GSP_RT_TURN_FEEDS;
            ne += want == GSP_RT_TURN_ENDS;
        }
        assert_int_equal(p[r].nfeeds, nf);
        assert_true(nf > 0 && ne > 0);
        feeds += nf;
        ends += ne;
    }
    assert_true(feeds > 0 && ends > 0);
    for (int64_t r = 0; r < N; r++) gsp_rt_prog_destroy(&p[r]);
    free(p);
    fabric_done(&f, &k, &d, &al);
    gsp_collective_t none[] = {GSP_COLL_ALLGATHER, GSP_COLL_BROADCAST};
    for (size_t i = 0; i < 2; i++) {
        fabric_trees(spec, none[i], &f, &k, &d, &al);
        for (int64_t r = 0; r < k.n; r++) {
            gsp_rt_prog_t q;
            assert_int_equal(gsp_rt_program(&al.v[0], 0, &k, r, &q), GSP_OK);
            assert_null(q.turn);
            assert_int_equal(q.nfeeds, 0);
            gsp_rt_prog_destroy(&q);
        }
        fabric_done(&f, &k, &d, &al);
    }
}

static void test_fabric_turns(void **state) {
    (void)state;
    check_turns("dgx:8x2");
    check_turns("dgx:4x2");
    /* Deeper trees take no turns (rt_fabric.c): mi250:1's reduce-scatter. */
    gsp_topo_t f, k;
    gsp_distances_t d;
    gsp_rt_algos_t al;
    fabric_trees("mi250:1", GSP_COLL_REDUCE_SCATTER, &f, &k, &d, &al);
    assert_true(al.v[0].phase[0].levels > 2);
    for (int64_t r = 0; r < k.n; r++) {
        gsp_rt_prog_t q;
        assert_int_equal(gsp_rt_program(&al.v[0], 0, &k, r, &q), GSP_OK);
        assert_null(q.turn);
        gsp_rt_prog_destroy(&q);
    }
    fabric_done(&f, &k, &d, &al);
}

/* The ring trees relayed across mi250:2's two boxes (fabric-rings; ranks 0-15 box 0, 16-31 box
 * 1): a send keeps GSP_RT_WIDE_WINDOW segments in flight exactly when it crosses to the other box
 * (over the NICs), in every collective; in the reduce-scatter a send FEEDS exactly when it is
 * made in the other box than its tree's root (its sum has the network still to cross: the relayed
 * blocks), else ENDS (an allreduce's reduce phase orders them too; its engine runs the two phases
 * at once and takes none); the allgather takes no turns. */
static void test_fabric_rings_programs(void **state) {
    (void)state;
    gsp_collective_t colls[] = {GSP_COLL_REDUCE_SCATTER, GSP_COLL_ALLGATHER, GSP_COLL_ALLREDUCE};
    for (size_t c = 0; c < 3; c++) {
        gsp_topo_t f, k;
        gsp_distances_t d;
        gsp_rt_algos_t al;
        fabric_trees("mi250:2", colls[c], &f, &k, &d, &al);
        int a = gsp_rt_find(&al, "fabric-rings");
        assert_true(a >= 0);
        for (int ph = 0; ph < al.v[a].nphases; ph++) {
            const gsp_rt_phase_t *P = &al.v[a].phase[ph];
            int64_t NT = P->param[0], cross = 0, feeds = 0, ends = 0;
            for (int64_t r = 0; r < k.n; r++) {
                gsp_rt_prog_t p;
                assert_int_equal(gsp_rt_program(&al.v[a], ph, &k, r, &p), GSP_OK);
                int64_t nf = 0;
                for (int64_t q = 0; q < p.nsend; q++) {
                    bool x = p.send[q].peer / 16 != r / 16;
                    int w = p.win ? p.win[q] : 0;
                    if (w != (x ? GSP_RT_WIDE_WINDOW : 0)) fail_msg("rank %lld's send to %lld: window %d", (long long)r, (long long)p.send[q].peer, w);
                    cross += x;
                    if (P->kind == GSP_RT_REDUCE) {
                        int64_t root = P->tround[3 * (p.send[q].round % NT)];
                        int want = root / 16 != r / 16 ? GSP_RT_TURN_FEEDS : GSP_RT_TURN_ENDS;
                        assert_non_null(p.turn);
                        if (p.turn[q] != want) fail_msg("rank %lld's send in round %lld: turn %d, not %d", (long long)r, (long long)p.send[q].round, p.turn[q], want);
                        nf += want == GSP_RT_TURN_FEEDS;
                        feeds += want == GSP_RT_TURN_FEEDS;
                        ends += want == GSP_RT_TURN_ENDS;
                    } else
                        assert_null(p.turn);
                }
                if (p.turn) {
                    assert_int_equal(p.nfeeds, nf);
                    assert_int_equal(p.turn_lanes, P->levels);
                }
                gsp_rt_prog_destroy(&p);
            }
            assert_true(cross > 0);
            if (P->kind == GSP_RT_REDUCE) assert_true(feeds > 0 && ends > 0);
        }
        fabric_done(&f, &k, &d, &al);
    }
}

/* Every algorithm of the registry was assembled and checked by the tests above. */
static void test_registry_covered(void **state) {
    (void)state;
    assert_true(gsp_rt_registry_size() > 0);
    for (int i = 0; i < gsp_rt_registry_size(); i++) {
        gsp_rt_info_t e;
        assert_true(gsp_rt_registry_entry(i, &e));
        if (!exercised[i]) fail_msg("runtime algorithm %s was never checked", e.name);
    }
    gsp_rt_info_t e;
    assert_false(gsp_rt_registry_entry(gsp_rt_registry_size(), &e));
}

/* A program of a rank of a large torus is computed without anyone else's: its size is what the
 * rank moves. */
static void test_one_rank_at_scale(void **state) {
    (void)state;
    gsp_topo_t t;
    gsp_distances_t d;
    assert_int_equal(gsp_topo_from_spec(&t, "torus:64x64"), GSP_OK);
    assert_int_equal(gsp_distances(&t, true, &d, NULL, NULL), GSP_OK);
    gsp_rt_algos_t al;
    assert_int_equal(gsp_rt_algos(&t, &d, GSP_COLL_ALLREDUCE, 0, NULL, &al), GSP_OK);
    int i = gsp_rt_find(&al, "rs-ag-flood");
    assert_true(i >= 0);
    assert_false(al.v[i].pending);
    gsp_rt_prog_t p;
    assert_int_equal(gsp_rt_program(&al.v[i], 0, &t, 1234, &p), GSP_OK);
    /* Reversed flood: rank receives a partial sum of its own block from every other rank's
     * tree... over its arcs: the blocks it receives are N - 1 partial-sum deliveries in all
     * the trees of other blocks it relays, plus its own; it sends each block once but its own. */
    int64_t sent = 0;
    for (int64_t q = 0; q < p.nsend; q++) sent += p.send[q].n;
    assert_int_equal(sent, t.n - 1);
    gsp_rt_prog_destroy(&p);
    /* The p = 1 schedules are not built until chosen. */
    int j = gsp_rt_find(&al, "rs-ag");
    assert_true(j >= 0);
    assert_true(al.v[j].pending);
    gsp_rt_algos_destroy(&al);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cayley),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_fabrics),
        cmocka_unit_test(test_fabric_windows),
        cmocka_unit_test(test_fabric_turns), cmocka_unit_test(test_fabric_rings_programs),
        cmocka_unit_test(test_registry_covered),
        cmocka_unit_test(test_one_rank_at_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
