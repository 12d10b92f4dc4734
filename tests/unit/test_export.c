/* test_export.c — exported schedules read back and verified. msccl-json is imported by the
 * library; MSCCL XML is parsed here with libxml2 (an independent reader): each send step in a
 * threadblock with a send peer is a transfer; its round is the earliest one its dependencies
 * and its threadblock's order allow (store and forward, one step per round per threadblock),
 * and the resulting schedule must verify as an allgather with one packet per arc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gossip/gossip.h"
#include "gossip/algo.h"

static void plan(const char *spec, const char *method, gsp_topo_t *t, gsp_distances_t *d, gsp_plan_t *p) {
    if (gsp_topo_from_spec(t, spec)) fail_msg("%s", gsp_errmsg());
    assert_int_equal(gsp_distances(t, true, d, NULL, NULL), GSP_OK);
    gsp_plan_in_t in = {t, d, gsp_model_default(), -1, 1, NULL, NULL, 0};
    if (gsp_plan(&in, GSP_COLL_ALLGATHER, method, p)) fail_msg("%s", gsp_errmsg());
}

static long attr(xmlNode *x, const char *name) {
    xmlChar *v = xmlGetProp(x, (const xmlChar *)name);
    if (!v) fail_msg("missing attribute %s", name);
    long r = strtol((const char *)v, NULL, 10);
    xmlFree(v);
    return r;
}

typedef struct {
    long u, v, c, tb, q, depid, deps, round;
} op_t;

static void check_xml(const char *path, const gsp_topo_t *t, int64_t want_rounds) {
    xmlDoc *doc = xmlReadFile(path, NULL, 0);
    assert_non_null(doc);
    xmlNode *algo = xmlDocGetRootElement(doc);
    assert_string_equal((const char *)algo->name, "algo");
    assert_int_equal(attr(algo, "outofplace"), 1);
    assert_int_equal(attr(algo, "minBytes"), 0);
    assert_true(attr(algo, "maxBytes") > 0);
    assert_int_equal(attr(algo, "ngpus"), t->n);
    /* Collect sends and receives. */
    int cap = 1 << 20, nops = 0;
    op_t *ops = calloc((size_t)cap, sizeof *ops);
    for (xmlNode *g = algo->children; g; g = g->next) {
        if (g->type != XML_ELEMENT_NODE) continue;
        long u = attr(g, "id");
        for (xmlNode *tb = g->children; tb; tb = tb->next) {
            if (tb->type != XML_ELEMENT_NODE) continue;
            long id = attr(tb, "id"), send = attr(tb, "send"), recv = attr(tb, "recv");
            for (xmlNode *st = tb->children; st; st = st->next) {
                if (st->type != XML_ELEMENT_NODE) continue;
                xmlChar *ty = xmlGetProp(st, (const xmlChar *)"type");
                bool s = !strcmp((const char *)ty, "s"), r = !strcmp((const char *)ty, "r");
                xmlFree(ty);
                if (!s && !r) continue;
                assert_true(nops < cap);
                ops[nops++] = (op_t){s ? u : recv, s ? send : u, attr(st, "dstoff"), id, attr(st, "s"),
                                     attr(st, "depid"), attr(st, "deps"), s ? 0 : -1};
                (void)send;
            }
        }
    }
    /* Rounds by relaxation: a send after its dependency's receive round + 1 and after the
     * previous step of its threadblock; a receive in the round of its matching send. */
    bool changed = true;
    int iters = 0;
    while (changed && iters++ < 100000) {
        changed = false;
        for (int i = 0; i < nops; i++) {
            op_t *o = &ops[i];
            long r = o->round < 0 ? 0 : o->round;
            for (int j = 0; j < nops; j++) {
                op_t *p = &ops[j];
                bool p_send = p->u != -1 && p->v != -1 && p->round >= 0;
                /* Same threadblock on the same rank, earlier step. */
                long rank_o = o->round >= 0 ? o->u : o->v, rank_p = p->round >= 0 ? p->u : p->v;
                (void)p_send;
                if (rank_o == rank_p && p->tb == o->tb && p->q == o->q - 1 && p->round >= 0 && p->round + 1 > r)
                    r = p->round + 1;
                if (o->round >= 0 && o->depid >= 0 && p->round < 0 && p->v == o->u && p->tb == o->depid &&
                    p->q == o->deps && -p->round - 1 + 1 > r)
                    r = -p->round - 1 + 1;
            }
            if (o->round < 0) {
                /* Receive: the round of the send from o->u to o->v of the same chunk. */
                for (int j = 0; j < nops; j++) {
                    op_t *p = &ops[j];
                    if (p->round >= 0 && p->u == o->u && p->v == o->v && p->c == o->c && -(p->round) - 1 != o->round) {
                        o->round = -(p->round) - 1; /* stored negated for receives */
                        changed = true;
                    }
                }
            } else if (r != o->round) {
                o->round = r;
                changed = true;
            }
        }
    }
    gsp_model_t m = gsp_model_default();
    gsp_sched_t s;
    assert_int_equal(gsp_sched_init(&s, GSP_COLL_ALLGATHER, t->spec, t->n, &m, -1, "xml"), GSP_OK);
    long maxr = 0;
    for (int i = 0; i < nops; i++)
        if (ops[i].round > maxr) maxr = ops[i].round;
    for (long r = 0; r <= maxr; r++) {
        assert_int_equal(gsp_sched_round(&s), GSP_OK);
        for (int i = 0; i < nops; i++)
            if (ops[i].round == r) assert_int_equal(gsp_sched_send(&s, ops[i].u, ops[i].v, ops[i].c), GSP_OK);
    }
    assert_int_equal(gsp_sched_finish(&s), GSP_OK);
    gsp_report_t rep;
    assert_int_equal(gsp_sched_verify(&s, t, 1, &rep), GSP_OK);
    if (!rep.ok) fail_msg("XML read back: %s", rep.message);
    assert_int_equal(s.nrounds, want_rounds);
    gsp_sched_destroy(&s);
    free(ops);
    xmlFreeDoc(doc);
}

static void roundtrip(const char *spec, const char *method) {
    gsp_topo_t t;
    gsp_distances_t d;
    gsp_plan_t p;
    plan(spec, method, &t, &d, &p);
    char path[64];
    snprintf(path, sizeof path, "/tmp/gossip_export_%d", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_int_equal(gsp_export_msccl_json(&p.sched, &t, NULL, f), GSP_OK);
    fclose(f);
    gsp_sched_t back;
    assert_int_equal(gsp_import_msccl_json(&back, path, spec), GSP_OK);
    gsp_report_t rep;
    assert_int_equal(gsp_sched_verify(&back, &t, 1, &rep), GSP_OK);
    if (!rep.ok) fail_msg("%s: msccl-json read back: %s", spec, rep.message);
    assert_int_equal(back.nrounds, p.sched.nrounds);
    assert_int_equal(rep.transfers, t.n * (t.n - 1));
    gsp_sched_destroy(&back);
    f = fopen(path, "w");
    gsp_export_opts_t o = {0, 1 << 20, NULL};
    assert_int_equal(gsp_export_msccl_xml(&p.sched, &t, &o, f), GSP_OK);
    fclose(f);
    check_xml(path, &t, p.sched.nrounds);
    unlink(path);
    gsp_plan_destroy(&p);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

static void test_roundtrips(void **state) {
    (void)state;
    roundtrip("torus:4x4", "rotation");
    roundtrip("torus:3x7", "balanced-search");
    roundtrip("hypercube:4", "greedy");
    roundtrip("star:4", "rotation");
}

static void test_refusals(void **state) {
    (void)state;
    gsp_topo_t t;
    gsp_distances_t d;
    gsp_plan_t p;
    plan("torus:33x33", "rotation", &t, &d, &p);
    FILE *f = fopen("/dev/null", "w");
    assert_int_equal(gsp_export_msccl_json(&p.sched, &t, NULL, f), GSP_ERR_TOOBIG);
    fclose(f);
    gsp_plan_destroy(&p);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_roundtrips), cmocka_unit_test(test_refusals)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
