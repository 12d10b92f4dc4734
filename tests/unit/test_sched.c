/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_sched.c — the schedule file and the verifier: round trips, one negative test per rule
 * of the round model, malformed files, and the symmetric check against expansion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gossip/gossip.h"
#include "gossip/algo.h"
#include "core/core_int.h"

static gsp_topo_t build(const char *spec) {
    gsp_topo_t t;
    if (gsp_topo_from_spec(&t, spec)) fail_msg("%s: %s", spec, gsp_errmsg());
    return t;
}

static char path[256];

static void write_file(const char *text) {
    snprintf(path, sizeof path, "/tmp/gossip_test_%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* Loads text as a schedule and verifies it; returns the report (ok or the rule). */
static gsp_report_t check_text(const char *text) {
    gsp_sched_t s;
    gsp_report_t rep;
    write_file(text);
    if (gsp_sched_load(&s, path)) fail_msg("load: %s", gsp_errmsg());
    gsp_topo_t t = build(s.topology);
    assert_int_equal(gsp_sched_verify(&s, &t, 7, &rep), GSP_OK);
    gsp_sched_destroy(&s);
    gsp_topo_destroy(&t);
    unlink(path);
    return rep;
}

static void expect_rule(const char *text, gsp_rule_t rule, int64_t round) {
    gsp_report_t rep = check_text(text);
    if (rep.ok || rep.rule != rule)
        fail_msg("want rule %s, got %s (%s)", gsp_rule_name(rule), rep.ok ? "ok" : gsp_rule_name(rep.rule), rep.message);
    assert_int_equal(rep.round, round);
    assert_true(strlen(rep.message) > 0);
}

#define HEAD(coll, topo, n) "{\"format\":\"gossip-schedule\",\"version\":1,\"collective\":\"" coll "\",\"topology\":\"" topo "\",\"nodes\":" #n ","

static void test_rules(void **state) {
    (void)state;
    /* cycle:3 allgather in 1 round with p = inf is correct. */
    gsp_report_t ok = check_text(HEAD("allgather", "cycle:3", 3) "\"model\":{\"packets\":\"inf\"},\"rounds\":[{\"send\":"
                                 "[[0,1,0],[0,2,0],[1,0,1],[1,2,1],[2,0,2],[2,1,2]]}]}");
    assert_true(ok.ok);
    assert_int_equal(ok.transfers, 6);
    assert_int_equal(ok.sent_min, 2);
    /* held: node 1 forwards packet 0 in the round it receives it. */
    expect_rule(HEAD("allgather", "cycle:4", 4) "\"rounds\":[{\"send\":[[0,1,0],[1,2,0]]}]}", GSP_RULE_HELD, 0);
    /* packets: arc (0,1) used twice with p = 1. */
    expect_rule(HEAD("allgather", "cycle:3", 3) "\"rounds\":[{\"send\":[[0,1,0]]},{\"send\":[[0,1,0],[0,1,2]]}]}",
                GSP_RULE_PACKETS, 1);
    /* ports: one-port, node 0 sends on two arcs. */
    expect_rule(HEAD("broadcast", "cycle:5", 5) "\"model\":{\"ports\":\"1\"},\"root\":0,\"rounds\":[{\"send\":[[0,1,0],[0,4,0]]}]}",
                GSP_RULE_PORTS, 0);
    /* duplex: half duplex, both directions of edge {0,1}. */
    expect_rule(HEAD("allgather", "cycle:3", 3) "\"model\":{\"duplex\":\"half\"},\"rounds\":[{\"send\":[[0,1,0],[1,0,1]]}]}",
                GSP_RULE_DUPLEX, 0);
    /* arc: 0 and 2 are not adjacent on cycle:5. */
    expect_rule(HEAD("broadcast", "cycle:5", 5) "\"root\":0,\"rounds\":[{\"send\":[[0,2,0]]}]}", GSP_RULE_ARC, 0);
    /* payload: a broadcast moving another node's packet. */
    expect_rule(HEAD("broadcast", "cycle:3", 3) "\"root\":0,\"rounds\":[{\"send\":[[1,2,1]]}]}", GSP_RULE_PAYLOAD, 0);
    /* complete: node 2 never gets the packet of 0. */
    expect_rule(HEAD("allgather", "cycle:3", 3) "\"model\":{\"packets\":\"inf\"},\"rounds\":[{\"send\":"
                "[[0,1,0],[1,0,1],[1,2,1],[2,0,2],[2,1,2]]}]}", GSP_RULE_COMPLETE, -1);
    /* register: node 0 sends register 1, which does not exist yet. */
    expect_rule(HEAD("allreduce", "complete:2", 2) "\"rounds\":[{\"send\":[[0,1,1],[1,0,0]]}],\"result\":[1,1]}",
                GSP_RULE_REGISTER, 0);
    /* register in a combine. */
    expect_rule(HEAD("allreduce", "complete:2", 2) "\"rounds\":[{\"combine\":[[0,[[0,1],[3,1]]]],\"send\":[[0,1,0],[1,0,0]]}],\"result\":[1,1]}",
                GSP_RULE_REGISTER, 0);
    /* complete for allreduce: node 1 keeps only its own input as the result. */
    expect_rule(HEAD("allreduce", "complete:2", 2) "\"rounds\":[{\"send\":[[1,0,0]]}],\"final\":[[0,[[0,1],[1,1]]]],\"result\":[2,0]}",
                GSP_RULE_COMPLETE, -1);
    /* A correct allreduce on K2 with a final combine at both nodes. */
    ok = check_text(HEAD("allreduce", "complete:2", 2) "\"rounds\":[{\"send\":[[0,1,0],[1,0,0]]}],"
                    "\"final\":[[0,[[0,1],[1,1]]],[1,[[0,1],[1,1]]]],\"result\":[2,2]}");
    assert_true(ok.ok);
    assert_true(ok.exact_forms);
    assert_true(ok.max_rel_error < 1e-15);
    /* Wrong coefficient: 0.5 x0 + x1 is caught by the linear forms. */
    expect_rule(HEAD("allreduce", "complete:2", 2) "\"rounds\":[{\"send\":[[0,1,0],[1,0,0]]}],"
                "\"final\":[[0,[[0,1],[1,1]]],[1,[[0,1],[1,0.5]]]],\"result\":[2,2]}", GSP_RULE_COMPLETE, -1);
    /* Symmetric: entry (0, 0, 1) on cycle:4 needs element 1 before anyone sent to it. */
    expect_rule(HEAD("allgather", "cycle:4", 4) "\"symmetric\":[[0,0,1]]}", GSP_RULE_HELD, 0);
    /* Symmetric: generator 0 twice in a round with p = 1. */
    expect_rule(HEAD("allgather", "cycle:5", 5) "\"symmetric\":[[0,0,0],[1,0,0],[1,0,1]]}", GSP_RULE_PACKETS, 1);
    /* Symmetric: incomplete. */
    expect_rule(HEAD("allgather", "cycle:5", 5) "\"symmetric\":[[0,0,0],[0,1,0]]}", GSP_RULE_COMPLETE, -1);
    /* Symmetric and correct: cycle:5 in 2 rounds (p = 1 is the bound (5-1)/2 = 2). */
    ok = check_text(HEAD("allgather", "cycle:5", 5) "\"symmetric\":[[0,0,0],[0,1,0],[1,0,1],[1,1,4]]}");
    assert_true(ok.ok);
    assert_true(ok.by_expansion);
    assert_int_equal(ok.rounds, 2);
    assert_int_equal(ok.transfers, 20);
}

static void expect_load_error(const char *text, gsp_err_t want, const char *needle) {
    gsp_sched_t s;
    write_file(text);
    gsp_err_t err = gsp_sched_load(&s, path);
    unlink(path);
    if (err != want) fail_msg("want %s, got %s: %s", gsp_strerror_name(want), gsp_strerror_name(err), gsp_errmsg());
    if (!strstr(gsp_errmsg(), needle)) fail_msg("message '%s' lacks '%s'", gsp_errmsg(), needle);
}

/* Reduce-scatter and the block form of allreduce, checked by contribution sets: by hand on
 * cycle:3, where every node is adjacent to every other. */
#define RS3 "[[0,1,1],[0,2,2],[1,0,0],[1,2,2],[2,0,0],[2,1,1]]"
#define AG3 "[[0,1,0],[0,2,0],[1,0,1],[1,2,1],[2,0,2],[2,1,2]]"
/* Arithmetic cannot fool the verifier: a result of inf - inf (NaN) plus the sum is not the sum,
 * and a symmetric entry naming a generator the graph lacks is an error, not a crash. */
static void test_nonfinite(void **state) {
    (void)state;
    const char *fin = "[[0,[[0,1e308],[0,1e308]]],[0,[[2,1],[2,-1]]],[0,[[3,1],[0,1],[1,1]]],"
                      "[1,[[0,1e308],[0,1e308]]],[1,[[2,1],[2,-1]]],[1,[[3,1],[0,1],[1,1]]]]";
    char text[1024];
    snprintf(text, sizeof text, HEAD("allreduce", "cycle:2", 2) "\"rounds\":[{\"send\":[[0,1,0],[1,0,0]]}],\"final\":%s,"
             "\"result\":[4,4]}", fin);
    expect_rule(text, GSP_RULE_COMPLETE, -1);
    expect_rule(HEAD("allgather", "cycle:3", 3) "\"symmetric\":[[0,9,0]]}", GSP_RULE_ARC, 0);
}

static void test_reduce_rules(void **state) {
    (void)state;
    gsp_report_t ok = check_text(HEAD("reduce-scatter", "cycle:3", 3) "\"rounds\":[{\"send\":" RS3 "}]}");
    assert_true(ok.ok);
    assert_int_equal(ok.duplicates, 0);
    ok = check_text(HEAD("allreduce", "cycle:3", 3) "\"form\":\"blocks\",\"reduce_rounds\":1,\"rounds\":[{\"send\":" RS3
                    "},{\"send\":" AG3 "}]}");
    assert_true(ok.ok);
    assert_true(ok.exact_forms);
    /* complete: node 2's partial sum of block 0 never leaves it. */
    expect_rule(HEAD("reduce-scatter", "cycle:3", 3) "\"rounds\":[{\"send\":[[0,1,1],[0,2,2],[1,0,0],[1,2,2],[2,1,1]]}]}",
                GSP_RULE_COMPLETE, -1);
    /* twice: 1 gives its partial of block 0 to 2, then both 2 and 1 send theirs to 0. */
    expect_rule(HEAD("reduce-scatter", "cycle:3", 3) "\"model\":{\"packets\":\"inf\"},\"rounds\":[{\"send\":[[1,2,0],[0,1,1],[0,2,2],"
                "[1,2,2],[2,1,1]]},{\"send\":[[2,0,0],[1,0,0]]}]}",
                GSP_RULE_TWICE, 1);
    /* Sending within a round reads the sender's partial as it was at the round's start: 1 and 2
     * exchange partials of block 0 in the same round, then both reach 0 — twice. */
    expect_rule(HEAD("reduce-scatter", "cycle:3", 3) "\"rounds\":[{\"send\":[[1,2,0],[2,1,0],[0,1,1],[0,2,2]]},"
                "{\"send\":[[1,0,0],[2,0,0],[1,2,2],[2,1,1]]}]}",
                GSP_RULE_TWICE, 1);
    /* held: in the gather rounds, node 1 sends block 2 before it has it. */
    expect_rule(HEAD("allreduce", "cycle:3", 3) "\"form\":\"blocks\",\"reduce_rounds\":1,\"rounds\":[{\"send\":" RS3
                "},{\"send\":[[1,0,2]]}]}",
                GSP_RULE_HELD, 1);
    /* A block that was not summed completely cannot be gathered. */
    expect_rule(HEAD("allreduce", "cycle:3", 3) "\"form\":\"blocks\",\"reduce_rounds\":1,\"rounds\":[{\"send\":"
                "[[0,1,1],[0,2,2],[1,0,0],[1,2,2],[2,1,1]]},{\"send\":" AG3 "}]}",
                GSP_RULE_COMPLETE, -1);
    /* The reversal of every allgather method's schedule is a correct reduce-scatter, with the
     * allgather's rounds, and the block allreduce has twice as many. */
    const char *specs[] = {"torus:4x4", "hypercube:4", "optcirc:25", "star:4", "file:" GOSSIP_TEST_DATA "/petersen.txt"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        gsp_topo_t t = build(specs[i]);
        gsp_distances_t d;
        gsp_plan_t ag;
        assert_int_equal(gsp_distances(&t, t.group != NULL, &d, NULL, NULL), GSP_OK);
        gsp_plan_in_t in = {&t, &d, gsp_model_default(), -1, 1, NULL, NULL, 0, 0};
        assert_int_equal(gsp_plan(&in, GSP_COLL_ALLGATHER, "auto", &ag), GSP_OK);
        gsp_sched_t rs, ar;
        gsp_report_t rep;
        assert_int_equal(gsp_sched_reverse(&ag.sched, &t, &rs), GSP_OK);
        assert_int_equal(gsp_sched_verify(&rs, &t, 1, &rep), GSP_OK);
        if (!rep.ok) fail_msg("%s: reversed %s: %s", specs[i], ag.method->name, rep.message);
        assert_int_equal(rs.nrounds, ag.sched.nrounds);
        assert_int_equal(rep.peak_arc_load, 1);
        assert_int_equal(gsp_sched_allreduce_blocks(&ag.sched, &t, &ar), GSP_OK);
        assert_int_equal(gsp_sched_verify(&ar, &t, 1, &rep), GSP_OK);
        if (!rep.ok) fail_msg("%s: block allreduce: %s", specs[i], rep.message);
        assert_int_equal(ar.nrounds, 2 * ag.sched.nrounds);
        /* Drop one transfer of the reduce rounds: the verifier must notice. */
        ar.sends[ar.send_off.v[1]] = ar.sends[ar.send_off.v[1] + 1];
        assert_int_equal(gsp_sched_verify(&ar, &t, 1, &rep), GSP_OK);
        assert_false(rep.ok);
        gsp_sched_destroy(&rs);
        gsp_sched_destroy(&ar);
        gsp_plan_destroy(&ag);
        gsp_distances_destroy(&d);
        gsp_topo_destroy(&t);
    }
}

static void test_malformed(void **state) {
    (void)state;
    expect_load_error("{\"format\":\"gossip-schedule\",\"version\":1,", GSP_ERR_PARSE, "malformed JSON");
    expect_load_error("[1,2,3]", GSP_ERR_PARSE, "not a gossip-schedule");
    expect_load_error(HEAD("allgather", "cycle:3", 3) "\"rounds\":[{\"send\":[[0,1]]}]}", GSP_ERR_PARSE, "round 0, transfer 0");
    expect_load_error(HEAD("allgather", "cycle:3", 3) "\"rounds\":[{\"send\":[]},{\"send\":[[0,1,0],[0,7,0]]}]}", GSP_ERR_RANGE,
                      "round 1, transfer 1");
    expect_load_error(HEAD("allgather", "cycle:3", 3) "\"rounds\":[{\"send\":[[0,-1,0]]}]}", GSP_ERR_RANGE, "range");
    expect_load_error(HEAD("broadcast", "cycle:3", 3) "\"rounds\":[]}", GSP_ERR_PARSE, "root");
    expect_load_error(HEAD("gather", "cycle:3", 3) "\"rounds\":[]}", GSP_ERR_PARSE, "collective");
    expect_load_error(HEAD("allgather", "cycle:3", 3) "\"model\":{\"packets\":0},\"rounds\":[]}", GSP_ERR_PARSE, "packets");
    expect_load_error(HEAD("allreduce", "cycle:3", 3) "\"rounds\":[]}", GSP_ERR_PARSE, "result");
    expect_load_error(HEAD("allgather", "cycle:3", 3) "\"symmetric\":[[0,0,9]]}", GSP_ERR_RANGE, "symmetric entry 0");
    gsp_sched_t s;
    assert_int_equal(gsp_sched_load(&s, "/nonexistent/x.json"), GSP_ERR_IO);
}

/* Plans, writes, reads back, and checks the two schedules are the same and both verify. */
static void roundtrip(const char *coll_s, const char *spec, gsp_model_t model) {
    gsp_topo_t t = build(spec);
    gsp_distances_t d;
    gsp_plan_t plan;
    gsp_collective_t coll;
    assert_true(gsp_collective_parse(coll_s, &coll));
    assert_int_equal(gsp_distances(&t, true, &d, NULL, NULL), GSP_OK);
    gsp_plan_in_t in = {&t, &d, model, coll == GSP_COLL_BROADCAST ? 0 : -1, 1, NULL, NULL, 0, 0};
    if (gsp_plan(&in, coll, "auto", &plan)) fail_msg("%s %s: %s", coll_s, spec, gsp_errmsg());
    snprintf(path, sizeof path, "/tmp/gossip_rt_%d.json", (int)getpid());
    assert_int_equal(gsp_sched_save(&plan.sched, path), GSP_OK);
    gsp_sched_t back;
    assert_int_equal(gsp_sched_load(&back, path), GSP_OK);
    unlink(path);
    const gsp_sched_t *a = &plan.sched;
    assert_int_equal(back.nrounds, a->nrounds);
    assert_int_equal(back.symmetric, a->symmetric);
    assert_int_equal(back.nsends, a->nsends);
    assert_int_equal(back.nsym, a->nsym);
    assert_int_equal(back.ncombines, a->ncombines);
    assert_int_equal(back.model.packets, a->model.packets);
    for (int64_t k = 0; k < a->nsends; k++)
        assert_true(back.sends[k].u == a->sends[k].u && back.sends[k].v == a->sends[k].v && back.sends[k].x == a->sends[k].x);
    for (int64_t k = 0; k < a->nsym; k++) assert_true(back.sym[k].g == a->sym[k].g && back.sym[k].i == a->sym[k].i);
    for (int64_t k = 0; k < a->nterms; k++) assert_true(back.terms[k].c == a->terms[k].c && back.terms[k].r == a->terms[k].r);
    gsp_report_t rep;
    assert_int_equal(gsp_sched_verify(&back, &t, 3, &rep), GSP_OK);
    assert_true(rep.ok);
    gsp_sched_destroy(&back);
    gsp_plan_destroy(&plan);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

static void test_roundtrip(void **state) {
    (void)state;
    gsp_model_t m = gsp_model_default();
    roundtrip("allgather", "torus:4x5", m);
    roundtrip("broadcast", "star:4", m);
    roundtrip("allreduce", "hypercube:4", m);
    roundtrip("reduce-scatter", "torus:4x5", m);
    m.packets = GSP_PACKETS_INF;
    roundtrip("allgather", "star:4", m);   /* symmetric form */
    roundtrip("allgather", "torus:3x3", m);
}

static void test_symmetric_vs_expansion(void **state) {
    (void)state;
    /* Flood schedules are symmetric; the verifier checks them both ways and they must agree
     * (an internal error otherwise). Also: an explicit schedule built by expansion of a wrong
     * symmetric one is rejected by both. */
    const char *specs[] = {"torus:5x5", "hypercube:5", "star:4", "circulant:13:2,3", "product(cycle:3,star:3)"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        gsp_topo_t t = build(specs[i]);
        gsp_distances_t d;
        gsp_plan_t plan;
        gsp_model_t m = {GSP_PACKETS_INF, false, false};
        assert_int_equal(gsp_distances(&t, true, &d, NULL, NULL), GSP_OK);
        gsp_plan_in_t in = {&t, &d, m, -1, 1, NULL, NULL, 0, 0};
        assert_int_equal(gsp_plan(&in, GSP_COLL_ALLGATHER, "flood", &plan), GSP_OK);
        assert_true(plan.sched.symmetric);
        assert_int_equal(gsp_sched_verify(&plan.sched, &t, 1, &plan.report), GSP_OK);
        assert_true(plan.report.ok);
        assert_true(plan.report.by_expansion);
        assert_int_equal(plan.report.duplicates, 0);
        assert_int_equal(plan.sched.nrounds, d.diameter);
        /* Same schedule with p = 1 breaks the packets rule in both checks. */
        plan.sched.model.packets = 1;
        gsp_report_t rep;
        assert_int_equal(gsp_sched_verify(&plan.sched, &t, 1, &rep), GSP_OK);
        assert_false(rep.ok);
        assert_int_equal(rep.rule, GSP_RULE_PACKETS);
        gsp_plan_destroy(&plan);
        gsp_distances_destroy(&d);
        gsp_topo_destroy(&t);
    }
}

/* A zero-initialised model is the papers' default (one packet, all ports, full duplex), not
 * flooding: a gsp_plan_in_t that sets only the topology and its distances plans torus:4x4 in
 * ceil(15/4) = 4 rounds with p = 1. Flooding also takes 4 rounds there (D = 4), so the rounds
 * alone cannot tell: the schedule's model and its peak arc load (1, against 4 for flooding) do. */
static void test_zero_model(void **state) {
    (void)state;
    gsp_topo_t t = build("torus:4x4");
    gsp_distances_t d;
    gsp_plan_t plan;
    gsp_report_t rep;
    assert_int_equal(gsp_distances(&t, true, &d, NULL, NULL), GSP_OK);
    gsp_plan_in_t in = {.topo = &t, .dist = &d};
    assert_int_equal(gsp_plan(&in, GSP_COLL_ALLGATHER, "auto", &plan), GSP_OK);
    assert_int_equal(plan.sched.nrounds, 4);
    assert_int_equal(plan.sched.model.packets, 1);
    assert_false(plan.sched.model.one_port);
    assert_false(plan.sched.model.half_duplex);
    assert_int_equal(gsp_sched_verify(&plan.sched, &t, 1, &rep), GSP_OK);
    assert_true(rep.ok);
    assert_int_equal(rep.peak_arc_load, 1);
    assert_int_equal(gsp_bounds_value(&plan.bounds), 4); /* the degree bound: p = 1 */
    gsp_plan_destroy(&plan);
    /* Flooding when asked for by name: 4 rounds too, but 4 packets on an arc in a round. */
    in.model.packets = GSP_PACKETS_INF;
    assert_int_equal(gsp_plan(&in, GSP_COLL_ALLGATHER, "auto", &plan), GSP_OK);
    assert_int_equal(plan.sched.nrounds, 4);
    assert_int_equal(plan.sched.model.packets, GSP_PACKETS_INF);
    assert_int_equal(gsp_sched_verify(&plan.sched, &t, 1, &rep), GSP_OK);
    assert_true(rep.ok);
    assert_true(rep.peak_arc_load > 1);
    /* ... and the schedule file says "inf" for it. */
    FILE *f = tmpfile();
    char text[4096] = "";
    assert_int_equal(gsp_sched_write(&plan.sched, f), GSP_OK);
    rewind(f);
    text[fread(text, 1, sizeof text - 1, f)] = 0;
    fclose(f);
    assert_non_null(strstr(text, "\"packets\":\"inf\""));
    gsp_plan_destroy(&plan);
    /* A negative p other than GSP_PACKETS_INF is an error, not a model. */
    in.model.packets = -5;
    assert_int_equal(gsp_plan(&in, GSP_COLL_ALLGATHER, "auto", &plan), GSP_ERR_INVAL);
    /* The bounds read a zero model as p = 1 too. */
    gsp_bounds_t b;
    gsp_model_t zero = {0};
    assert_int_equal(gsp_bounds_compute(&t, &d, GSP_COLL_ALLGATHER, &zero, -1, &b), GSP_OK);
    assert_int_equal(gsp_bounds_value(&b), 4);
    assert_int_equal(gsp_model_resolve(zero).packets, 1);
    assert_int_equal(gsp_model_resolve((gsp_model_t){.packets = GSP_PACKETS_INF}).packets, GSP_PACKETS_INF);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

/* gsp_plan_spec: spec to verified plan in one call, defaults from a zero (or NULL) options. */
static void test_plan_spec(void **state) {
    (void)state;
    gsp_plan_t plan;
    /* torus:8x8 with p = 1: ceil(63/4) = 16 rounds (the rotation meets the degree bound). */
    assert_int_equal(gsp_plan_spec("torus:8x8", GSP_COLL_ALLGATHER, NULL, &plan), GSP_OK);
    assert_int_equal(plan.sched.nrounds, 16);
    assert_int_equal(plan.sched.model.packets, 1);
    assert_true(plan.report.ok);
    assert_true(plan.optimal);
    assert_string_equal(plan.sched.topology, "torus:8x8");
    gsp_plan_destroy(&plan);
    /* Designated initializers: only what changes. p = inf floods in D = 8 rounds. */
    assert_int_equal(gsp_plan_spec("torus:8x8", GSP_COLL_ALLGATHER, &(gsp_plan_opts_t){.model.packets = GSP_PACKETS_INF}, &plan),
                     GSP_OK);
    assert_int_equal(plan.sched.nrounds, 8);
    assert_string_equal(plan.method->name, "flood");
    gsp_plan_destroy(&plan);
    /* p = 2: the layered bound, 1 + ceil((64 - 5) / 8) = 9 rounds (4 neighbours after one). */
    assert_int_equal(gsp_plan_spec("torus:8x8", GSP_COLL_ALLGATHER, &(gsp_plan_opts_t){.model.packets = 2}, &plan), GSP_OK);
    assert_int_equal(plan.sched.nrounds, 9);
    assert_int_equal(plan.sched.model.packets, 2);
    gsp_plan_destroy(&plan);
    /* A broadcast from a named root, with a named method. */
    assert_int_equal(gsp_plan_spec("cycle:9", GSP_COLL_BROADCAST, &(gsp_plan_opts_t){.root = 4, .method = "bfs-tree"}, &plan), GSP_OK);
    assert_int_equal(plan.sched.root, 4);
    assert_int_equal(plan.sched.nrounds, 4);
    gsp_plan_destroy(&plan);
    /* Errors: a bad spec, a root outside, a disconnected file graph, an unknown method. */
    assert_int_equal(gsp_plan_spec("torus:", GSP_COLL_ALLGATHER, NULL, &plan), GSP_ERR_PARSE);
    assert_int_equal(gsp_plan_spec("cycle:9", GSP_COLL_BROADCAST, &(gsp_plan_opts_t){.root = 9}, &plan), GSP_ERR_RANGE);
    assert_int_equal(gsp_plan_spec("cycle:9", GSP_COLL_ALLGATHER, &(gsp_plan_opts_t){.method = "nosuch"}, &plan), GSP_ERR_INVAL);
    assert_null(plan.method);
}

/* gsp_sched_read reads a stream to its end, as gsp_sched_load a file; gsp_sched_save to a device
 * writes in place and reports a failed write (/dev/full: GSP_ERR_IO, the device kept). */
static void test_streams(void **state) {
    gsp_topo_t t = build("torus:3x3");
    gsp_distances_t d;
    gsp_plan_t plan;
    assert_int_equal(gsp_distances(&t, true, &d, NULL, NULL), GSP_OK);
    gsp_plan_in_t in = {&t, &d, gsp_model_default(), -1, 1, NULL, NULL, 0, 0};
    assert_int_equal(gsp_plan(&in, GSP_COLL_ALLGATHER, "greedy", &plan), GSP_OK);
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(gsp_sched_write(&plan.sched, f), GSP_OK);
    rewind(f);
    gsp_sched_t back;
    assert_int_equal(gsp_sched_read(&back, f, "stream"), GSP_OK);
    assert_int_equal(back.nrounds, plan.sched.nrounds);
    assert_int_equal(back.nsends, plan.sched.nsends);
    gsp_sched_destroy(&back);
    rewind(f);
    assert_int_equal(fputs("{\"format\":", f) >= 0, 1);
    fflush(f);
    assert_int_equal(ftruncate(fileno(f), 10), 0);
    rewind(f);
    assert_int_equal(gsp_sched_read(&back, f, "stream"), GSP_ERR_PARSE);
    assert_non_null(strstr(gsp_errmsg(), "stream:"));
    fclose(f);
    struct stat st;
    if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode) && gsp_out_in_place("/dev/full")) {
        assert_int_equal(gsp_sched_save(&plan.sched, "/dev/full"), GSP_ERR_IO);
        assert_non_null(strstr(gsp_errmsg(), "cannot write '/dev/full'"));
        assert_int_equal(stat("/dev/full", &st), 0);
        assert_true(S_ISCHR(st.st_mode));
    }
    gsp_plan_destroy(&plan);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

/* Schedules written by hand through the builder (gsp_sched_init .. gsp_sched_finish), checked
 * by the verifier against what they must compute, worked out here. On K3 = cycle:3 every node
 * sends its input to both neighbours in one round; register 0 is a node's input and the two
 * deliveries become registers 1 and 2, so the final combine reg0 + reg1 + reg2 is the sum; a
 * coefficient 2 counts an input twice and is wrong. Symmetrically, the entries (0, i, 0) for
 * both generators i send every packet to both neighbours in round 0: an allgather in one round;
 * one generator alone leaves each node a packet short. */
static void test_builder(void **state) {
    (void)state;
    gsp_topo_t t;
    gsp_report_t rep;
    gsp_model_t m = gsp_model_default();
    assert_int_equal(gsp_topo_from_spec(&t, "cycle:3"), GSP_OK);
    for (int wrong = 0; wrong < 2; wrong++) {
        gsp_sched_t s;
        assert_int_equal(gsp_sched_init(&s, GSP_COLL_ALLREDUCE, "cycle:3", 3, &m, -1, "by hand"), GSP_OK);
        assert_int_equal(gsp_sched_round(&s), GSP_OK);
        for (int64_t u = 0; u < 3; u++)
            for (int64_t a = t.off[u]; a < t.off[u + 1]; a++) assert_int_equal(gsp_sched_send(&s, u, t.adj[a], 0), GSP_OK);
        assert_int_equal(gsp_sched_final(&s), GSP_OK);
        gsp_term_t sum[3] = {{0, 1}, {1, 1}, {2, wrong ? 2 : 1}};
        for (int64_t v = 0; v < 3; v++) assert_int_equal(gsp_sched_combine(&s, v, sum, 3), GSP_OK);
        int64_t result[3] = {3, 3, 3};
        assert_int_equal(gsp_sched_set_result(&s, result), GSP_OK);
        assert_int_equal(gsp_sched_finish(&s), GSP_OK);
        assert_int_equal(gsp_sched_verify(&s, &t, 1, &rep), GSP_OK);
        assert_int_equal(rep.ok, !wrong);
        gsp_sched_destroy(&s);
    }
    for (int gens = 1; gens <= 2; gens++) {
        gsp_sched_t s;
        assert_int_equal(gsp_sched_init(&s, GSP_COLL_ALLGATHER, "cycle:3", 3, &m, -1, "by hand"), GSP_OK);
        for (int64_t i = 0; i < gens; i++) assert_int_equal(gsp_sched_sym(&s, 0, i, 0), GSP_OK);
        assert_int_equal(gsp_sched_finish(&s), GSP_OK);
        assert_true(s.symmetric);
        assert_int_equal(gsp_sched_verify(&s, &t, 1, &rep), GSP_OK);
        assert_int_equal(rep.ok, gens == 2);
        gsp_sched_destroy(&s);
    }
    gsp_topo_destroy(&t);
}

/* gsp_sched_first_deliveries keeps one delivery of every packet at every node. Naive flooding
 * of the 4-cycle, written here: round 0 every node sends its packet both ways (8 transfers),
 * round 1 it forwards both packets it received both ways (16), so node v gets v + 2's packet
 * twice and its own back twice. What is left must be exactly N (N - 1) = 12 transfers, still
 * a correct allgather in 2 rounds. */
static void test_first_deliveries(void **state) {
    (void)state;
    gsp_topo_t t;
    gsp_report_t rep;
    gsp_sched_t s, first;
    gsp_model_t m = {.packets = GSP_PACKETS_INF};
    assert_int_equal(gsp_topo_from_spec(&t, "cycle:4"), GSP_OK);
    assert_int_equal(gsp_sched_init(&s, GSP_COLL_ALLGATHER, "cycle:4", 4, &m, -1, "flood by hand"), GSP_OK);
    assert_int_equal(gsp_sched_round(&s), GSP_OK);
    for (int64_t v = 0; v < 4; v++) {
        assert_int_equal(gsp_sched_send(&s, v, (v + 1) % 4, v), GSP_OK);
        assert_int_equal(gsp_sched_send(&s, v, (v + 3) % 4, v), GSP_OK);
    }
    assert_int_equal(gsp_sched_round(&s), GSP_OK);
    for (int64_t v = 0; v < 4; v++)
        for (int64_t x = 1; x <= 3; x += 2)
            for (int64_t w = 1; w <= 3; w += 2) assert_int_equal(gsp_sched_send(&s, v, (v + w) % 4, (v + x) % 4), GSP_OK);
    assert_int_equal(gsp_sched_finish(&s), GSP_OK);
    assert_int_equal(gsp_sched_transfers(&s), 24);
    assert_int_equal(gsp_sched_verify(&s, &t, 1, &rep), GSP_OK);
    assert_true(rep.ok);
    assert_int_equal(gsp_sched_first_deliveries(&s, &t, &first), GSP_OK);
    assert_int_equal(gsp_sched_transfers(&first), 12);
    assert_int_equal(first.nrounds, 2);
    assert_int_equal(gsp_sched_verify(&first, &t, 1, &rep), GSP_OK);
    assert_true(rep.ok);
    gsp_sched_destroy(&first);
    gsp_sched_destroy(&s);
    gsp_topo_destroy(&t);
}

/* The registry's words and its data agree: a method whose `where` (what `gossip list` prints)
 * gives a size "N <= X" has X among its needs' max_nodes, so the limit checked is the limit
 * said; and every bound on the nodes is consistent. */
static void test_registry_needs(void **state) {
    (void)state;
    int n;
    const gsp_method_t *const *ms = gsp_methods(&n);
    for (int i = 0; i < n; i++) {
        const gsp_method_needs_t *nd = &ms[i]->needs;
        assert_true(nd->min_nodes >= 0 && nd->max_nodes >= 0);
        if (nd->min_nodes && nd->max_nodes) assert_true(nd->min_nodes <= nd->max_nodes);
        bool said = false, match = false;
        for (const char *w = strstr(ms[i]->where, "N <= "); w; w = strstr(w + 1, "N <= ")) {
            said = true;
            match |= atoll(w + 5) == nd->max_nodes;
        }
        if (said && !match) fail_msg("%s: where says '%s' but max_nodes is %lld", ms[i]->name, ms[i]->where, (long long)nd->max_nodes);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_reduce_rules),
        cmocka_unit_test(test_nonfinite),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_symmetric_vs_expansion),
        cmocka_unit_test(test_streams),
        cmocka_unit_test(test_zero_model),
        cmocka_unit_test(test_plan_spec),
        cmocka_unit_test(test_builder),
        cmocka_unit_test(test_first_deliveries),
        cmocka_unit_test(test_registry_needs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
