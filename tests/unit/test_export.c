/* SPDX-License-Identifier: GPL-3.0-or-later */
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
    gsp_plan_in_t in = {t, d, gsp_model_default(), -1, 1, NULL, NULL, 0, 0};
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

/* Block forms in MSCCL XML, run as the executor would: every step waits for the previous step
 * of its threadblock and for its dependency; a receive also for the matching send (the j-th
 * send on a channel meets the j-th receive). Among the steps that may run, a random one runs,
 * so a missing dependency shows up as a wrong result under some order. Each chunk's value is
 * tracked as the set of ranks whose contribution it holds (N <= 64: one word). */
typedef struct {
    long rank, tb, peer, q, c, depid, deps, dst;
    char type[4];
    bool done;
} xstep_t;

/* True when the run ends with every result complete and nothing counted twice. */
static bool run_xml_blocks(const char *path, int64_t n, bool rs, uint64_t seed) {
    xmlDoc *doc = xmlReadFile(path, NULL, 0);
    assert_non_null(doc);
    xmlNode *algo = xmlDocGetRootElement(doc);
    assert_int_equal(attr(algo, "ngpus"), n);
    int cap = 1 << 16, ns = 0;
    xstep_t *st = calloc((size_t)cap, sizeof *st);
    for (xmlNode *g = algo->children; g; g = g->next) {
        if (g->type != XML_ELEMENT_NODE) continue;
        long u = attr(g, "id");
        for (xmlNode *tb = g->children; tb; tb = tb->next) {
            if (tb->type != XML_ELEMENT_NODE) continue;
            long id = attr(tb, "id"), snd = attr(tb, "send"), rcv = attr(tb, "recv");
            for (xmlNode *x = tb->children; x; x = x->next) {
                if (x->type != XML_ELEMENT_NODE) continue;
                assert_true(ns < cap);
                xstep_t *e = &st[ns++];
                xmlChar *ty = xmlGetProp(x, (const xmlChar *)"type");
                snprintf(e->type, sizeof e->type, "%s", (const char *)ty);
                xmlFree(ty);
                *e = (xstep_t){u, id, snd >= 0 ? snd : rcv, attr(x, "s"), attr(x, "srcoff"), attr(x, "depid"), attr(x, "deps"),
                               attr(x, "dstoff"), "", false};
                ty = xmlGetProp(x, (const xmlChar *)"type");
                snprintf(e->type, sizeof e->type, "%s", (const char *)ty);
                xmlFree(ty);
            }
        }
    }
    xmlFreeDoc(doc);
    uint64_t *val = calloc((size_t)(n * n), sizeof *val), out[64] = {0}, full = n == 64 ? ~0ull : (1ull << n) - 1;
    for (int64_t u = 0; u < n; u++)
        for (int64_t x = 0; x < n; x++) val[u * n + x] = 1ull << u;
    /* FIFO per channel (u, v): payloads in flight. */
    uint64_t *fifo = calloc((size_t)(n * n * 256), sizeof *fifo);
    int *head = calloc((size_t)(n * n), sizeof *head), *tail = calloc((size_t)(n * n), sizeof *tail);
    int *ready = malloc(sizeof *ready * (size_t)ns), *prev = malloc(sizeof *prev * (size_t)ns), *dep = malloc(sizeof *dep * (size_t)ns);
    for (int i = 0; i < ns; i++) {
        prev[i] = dep[i] = -1;
        for (int j = 0; j < ns; j++) {
            if (st[j].rank != st[i].rank) continue;
            if (st[j].tb == st[i].tb && st[j].q == st[i].q - 1) prev[i] = j;
            if (st[i].depid >= 0 && st[j].tb == st[i].depid && st[j].q == st[i].deps) dep[i] = j;
        }
        if (st[i].depid >= 0 && dep[i] < 0) fail_msg("%s: a dependency on a step that does not exist", path);
    }
    uint64_t rng = seed * 2654435761u + 1;
    bool good = true;
    for (int left = ns; left > 0 && good; left--) {
        int nr = 0;
        for (int i = 0; i < ns; i++) {
            xstep_t *e = &st[i];
            if (e->done) continue;
            bool ok = (prev[i] < 0 || st[prev[i]].done) && (dep[i] < 0 || st[dep[i]].done);
            if (ok && strcmp(e->type, "s") && strcmp(e->type, "cpy")) ok = head[e->peer * n + e->rank] < tail[e->peer * n + e->rank];
            if (ok) ready[nr++] = i;
        }
        if (nr == 0) {
            good = false; /* deadlock */
            break;
        }
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        xstep_t *e = &st[ready[rng % (uint64_t)nr]];
        e->done = true;
        if (!strcmp(e->type, "s")) {
            int ch = (int)(e->rank * n + e->peer);
            assert_true(tail[ch] - head[ch] < 256);
            fifo[(size_t)ch * 256 + (size_t)(tail[ch]++ % 256)] = val[e->rank * n + e->c];
        } else if (!strcmp(e->type, "cpy")) {
            out[e->rank] = val[e->rank * n + e->c];
        } else {
            int ch = (int)(e->peer * n + e->rank);
            uint64_t got = fifo[(size_t)ch * 256 + (size_t)(head[ch]++ % 256)], *mine = &val[e->rank * n + e->dst];
            if (!strcmp(e->type, "rrc")) {
                if (got & *mine) good = false; /* a contribution counted twice */
                *mine |= got;
            } else {
                assert_string_equal(e->type, "r");
                if (got != full) good = false; /* only finished blocks may travel in the gather rounds */
                *mine = got;
            }
        }
    }
    for (int64_t u = 0; u < n; u++) {
        if (rs) good &= out[u] == full;
        else
            for (int64_t x = 0; x < n; x++) good &= val[u * n + x] == full;
    }
    free(st);
    free(val);
    free(fifo);
    free(head);
    free(tail);
    free(ready);
    free(prev);
    free(dep);
    return good;
}

static void test_blocks_xml(void **state) {
    (void)state;
    const char *specs[] = {"torus:4x4", "hypercube:4", "cycle:5", "star:4"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        gsp_topo_t t;
        gsp_distances_t d;
        gsp_plan_t ag;
        plan(specs[i], "auto", &t, &d, &ag);
        for (int rs = 0; rs < 2; rs++) {
            gsp_sched_t b;
            assert_int_equal(rs ? gsp_sched_reverse(&ag.sched, &t, &b) : gsp_sched_allreduce_blocks(&ag.sched, &t, &b), GSP_OK);
            char path[64];
            snprintf(path, sizeof path, "/tmp/gossip_xml_%d", (int)getpid());
            FILE *f = fopen(path, "w");
            assert_int_equal(gsp_export_msccl_xml(&b, &t, NULL, f), GSP_OK);
            fclose(f);
            for (uint64_t seed = 1; seed <= 3; seed++)
                if (!run_xml_blocks(path, t.n, rs, seed)) fail_msg("%s: %s XML wrong under order %d", specs[i], rs ? "reduce-scatter" : "allreduce", (int)seed);
            /* The checker can fail: without the sends' dependencies, some order goes wrong. */
            char cmd[256];
            snprintf(cmd, sizeof cmd, "sed -i '/type=\"s\"/s/depid=\"[0-9]*\"/depid=\"-1\"/' %s", path);
            assert_int_equal(system(cmd), 0);
            bool caught = false;
            for (uint64_t seed = 1; seed <= 20 && !caught; seed++) caught = !run_xml_blocks(path, t.n, rs, seed);
            assert_true(caught);
            /* Not a fabric plan: msccl-tools JSON of a reduction is written for those only. */
            f = fopen("/dev/null", "w");
            assert_int_equal(gsp_export_msccl_json(&b, &t, NULL, f), GSP_ERR_UNSUPPORTED);
            fclose(f);
            unlink(path);
            gsp_sched_destroy(&b);
        }
        gsp_plan_destroy(&ag);
        gsp_distances_destroy(&d);
        gsp_topo_destroy(&t);
    }
}

/* MSCCL XML run as the executor would, for any size: buffers i and o, a chunk's value the rank
 * whose data it holds plus one (0: nothing yet). A step runs when the previous step of its
 * threadblock and its dependency have run; a receive when the send it pairs with has: the q-th
 * step of the one receive threadblock of a connection (sender, receiver, channel) pairs with the
 * q-th of its one send threadblock — which this checks, with the executor's limits (256 steps,
 * 32 threadblocks of a rank per channel, 216 per rank, channels below nchannels). Among the
 * runnable steps a random one runs. bcast: rank root's i[0] must reach o[0] everywhere; else an
 * allgather: rank x's i[0] at o[x] everywhere. */
typedef struct {
    int rank, tb, q, peer, chan, src, dst, type; /* type: 0 s, 1 r, 2 cpy */
    long srcoff, dstoff, depid, deps;
    int dep, match, ndeps, firstdep;
} gstep_t;

static int buf_of(xmlNode *x, const char *name) {
    xmlChar *v = xmlGetProp(x, (const xmlChar *)name);
    if (!v) fail_msg("missing attribute %s", name);
    int b = !strcmp((const char *)v, "i") ? 0 : !strcmp((const char *)v, "o") ? 1 : -1;
    xmlFree(v);
    if (b < 0) fail_msg("buffer %s: only i and o expected", name);
    return b;
}

static bool run_xml_data(const char *path, int64_t n, bool bcast, int64_t root, uint64_t seed, int *nchan_out) {
    xmlDoc *doc = xmlReadFile(path, NULL, 0);
    assert_non_null(doc);
    xmlNode *algo = xmlDocGetRootElement(doc);
    assert_int_equal(attr(algo, "ngpus"), n);
    int nchan = (int)attr(algo, "nchannels");
    if (nchan_out) *nchan_out = nchan;
    size_t cap = 1024, ns = 0;
    gstep_t *st = malloc(cap * sizeof *st);
    /* tbfirst[rank * 256 + id]: index of the threadblock's first step; tbinfo: peer per direction, channel. */
    int *tbfirst = malloc(sizeof *tbfirst * (size_t)n * 256), *tblen = calloc((size_t)n * 256, sizeof *tblen);
    int *tbsend = malloc(sizeof *tbsend * (size_t)n * 256), *tbrecv = malloc(sizeof *tbrecv * (size_t)n * 256),
        *tbchan = malloc(sizeof *tbchan * (size_t)n * 256);
    int *perchan = calloc((size_t)n * 32, sizeof *perchan);
    for (size_t i = 0; i < (size_t)n * 256; i++) tbfirst[i] = -1;
    for (xmlNode *g = algo->children; g; g = g->next) {
        if (g->type != XML_ELEMENT_NODE) continue;
        int u = (int)attr(g, "id");
        for (xmlNode *tb = g->children; tb; tb = tb->next) {
            if (tb->type != XML_ELEMENT_NODE) continue;
            int id = (int)attr(tb, "id"), snd = (int)attr(tb, "send"), rcv = (int)attr(tb, "recv"), ch = (int)attr(tb, "chan");
            if (id < 0 || id >= 216) fail_msg("%s: threadblock id %d beyond the executor's 216", path, id);
            if (ch < 0 || ch >= nchan) fail_msg("%s: channel %d not below nchannels %d", path, ch, nchan);
            if (tbfirst[u * 256 + id] >= 0) fail_msg("%s: duplicate threadblock %d on rank %d", path, id, u);
            if ((snd >= 0 || rcv >= 0) && ++perchan[u * 32 + ch] > 32) fail_msg("%s: rank %d has over 32 threadblocks on channel %d", path, u, ch);
            tbfirst[u * 256 + id] = (int)ns;
            tbsend[u * 256 + id] = snd;
            tbrecv[u * 256 + id] = rcv;
            tbchan[u * 256 + id] = ch;
            int q = 0;
            for (xmlNode *x = tb->children; x; x = x->next) {
                if (x->type != XML_ELEMENT_NODE) continue;
                if (ns == cap) st = realloc(st, (cap *= 2) * sizeof *st);
                xmlChar *ty = xmlGetProp(x, (const xmlChar *)"type");
                int type = !strcmp((const char *)ty, "s") ? 0 : !strcmp((const char *)ty, "r") ? 1 : !strcmp((const char *)ty, "cpy") ? 2 : -1;
                xmlFree(ty);
                if (type < 0) fail_msg("%s: unexpected step type", path);
                if (attr(x, "s") != q) fail_msg("%s: steps out of order", path);
                if (q >= 256) fail_msg("%s: a threadblock of more than 256 steps", path);
                st[ns++] = (gstep_t){u, id, q, type == 0 ? snd : rcv, ch, buf_of(x, "srcbuf"), buf_of(x, "dstbuf"), type,
                                     attr(x, "srcoff"), attr(x, "dstoff"), attr(x, "depid"), attr(x, "deps"), -1, -1, 0, 0};
                q++;
            }
            tblen[u * 256 + id] = q;
        }
    }
    xmlFreeDoc(doc);
    /* Dependencies and pairs. */
    for (size_t i = 0; i < ns; i++) {
        gstep_t *e = &st[i];
        if (e->depid >= 0) {
            if (e->depid >= 216 || tbfirst[e->rank * 256 + e->depid] < 0 || e->deps < 0 || e->deps >= tblen[e->rank * 256 + e->depid])
                fail_msg("%s: a dependency on a step that does not exist", path);
            e->dep = tbfirst[e->rank * 256 + e->depid] + (int)e->deps;
        }
        if (e->type == 1) {
            int found = -1;
            for (int id = 0; id < 216; id++) {
                int k = e->peer * 256 + id;
                if (tbfirst[k] >= 0 && tbsend[k] == e->rank && tbchan[k] == e->chan) {
                    if (found >= 0) fail_msg("%s: two send threadblocks on one connection", path);
                    found = k;
                }
            }
            if (found < 0 || e->q >= tblen[found]) fail_msg("%s: a receive without its send", path);
            e->match = tbfirst[found] + e->q;
            if (st[e->match].type != 0) fail_msg("%s: a receive paired with a step that is not a send", path);
        }
    }
    /* Dependents, for the ready list. */
    int *cnt = calloc(ns + 1, sizeof *cnt), *adj = malloc(sizeof *adj * (2 * ns + 1));
    for (size_t i = 0; i < ns; i++) {
        if (st[i].dep >= 0) cnt[st[i].dep]++;
        if (st[i].match >= 0) cnt[st[i].match]++;
    }
    for (size_t i = 0, acc = 0; i < ns; i++) {
        st[i].firstdep = (int)acc;
        acc += (size_t)cnt[i];
    }
    for (size_t i = 0; i < ns; i++) {
        if (st[i].dep >= 0) adj[st[st[i].dep].firstdep + st[st[i].dep].ndeps++] = (int)i;
        if (st[i].match >= 0) adj[st[st[i].match].firstdep + st[st[i].match].ndeps++] = (int)i;
    }
    long *val = calloc((size_t)(2 * n * n), sizeof *val), *payload = calloc(ns + 1, sizeof *payload);
    for (int64_t u = 0; u < n; u++) val[u * n] = bcast ? (u == root ? root + 1 : -1) : u + 1;
    char *done = calloc(ns + 1, 1), *inr = calloc(ns + 1, 1);
    int *ready = malloc(sizeof *ready * (ns + 1)), nr = 0;
#define RUNNABLE(i) (!done[i] && (st[i].q == 0 || done[(i) - 1]) && (st[i].dep < 0 || done[st[i].dep]) && (st[i].match < 0 || done[st[i].match]))
    for (size_t i = 0; i < ns; i++)
        if (RUNNABLE(i)) ready[nr++] = (int)i, inr[i] = 1;
    uint64_t rng = seed * 2654435761u + 1;
    size_t ran = 0;
    bool good = true;
    while (nr > 0) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        int k = (int)(rng % (uint64_t)nr), i = ready[k];
        ready[k] = ready[--nr];
        gstep_t *e = &st[i];
        done[i] = 1;
        ran++;
        long *src = &val[(size_t)e->src * (size_t)(n * n) + (size_t)(e->rank * n + e->srcoff)];
        long *dst = &val[(size_t)e->dst * (size_t)(n * n) + (size_t)(e->rank * n + e->dstoff)];
        if (e->srcoff < 0 || e->srcoff >= n || e->dstoff < 0 || e->dstoff >= n) fail_msg("%s: offset out of range", path);
        if (e->type == 0) payload[i] = *src;
        else if (e->type == 1) *dst = payload[e->match];
        else *dst = *src;
        /* What may have become runnable: the next step of the threadblock, and the steps
         * waiting on this one (its dependents, and the receive paired with a send). */
        int j = i + 1;
        if ((size_t)j < ns && st[j].rank == e->rank && st[j].tb == e->tb && !inr[j] && RUNNABLE(j)) ready[nr++] = j, inr[j] = 1;
        for (int d = 0; d < e->ndeps; d++) {
            j = adj[e->firstdep + d];
            if (!inr[j] && RUNNABLE(j)) ready[nr++] = j, inr[j] = 1;
        }
    }
#undef RUNNABLE
    if (ran < ns) good = false; /* deadlock */
    for (int64_t u = 0; u < n && good; u++)
        for (int64_t x = 0; x < (bcast ? 1 : n); x++) good &= val[(size_t)(n * n) + (size_t)(u * n + x)] == (bcast ? root : x) + 1;
    free(st);
    free(tbfirst);
    free(tblen);
    free(tbsend);
    free(tbrecv);
    free(tbchan);
    free(perchan);
    free(cnt);
    free(adj);
    free(val);
    free(payload);
    free(done);
    free(inr);
    free(ready);
    return good;
}

/* Drops the sends' dependencies; the checker must then see a wrong result under some order. */
static void drop_send_deps(const char *path) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sed -i '/type=\"s\"/s/depid=\"[0-9]*\" deps=\"[0-9]*\"/depid=\"-1\" deps=\"-1\"/' %s", path);
    assert_int_equal(system(cmd), 0);
}

/* Broadcasts as MSCCL XML: trees with one chunk per loop, on every rank the data of the root;
 * a root with more children than a channel holds threadblocks goes on two channels. */
static void test_broadcast_xml(void **state) {
    (void)state;
    static const struct {
        const char *spec;
        int64_t root;
        int nchan;
    } cases[] = {{"torus:4x4", 5, 1}, {"hypercube:4", 0, 1}, {"complete:40", 7, 2}, {"star:5", 100, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        gsp_topo_t t;
        gsp_distances_t d;
        gsp_plan_t p;
        if (gsp_topo_from_spec(&t, cases[c].spec)) fail_msg("%s", gsp_errmsg());
        assert_int_equal(gsp_distances(&t, true, &d, NULL, NULL), GSP_OK);
        gsp_plan_in_t in = {&t, &d, gsp_model_default(), cases[c].root, 1, NULL, NULL, 0, 0};
        if (gsp_plan(&in, GSP_COLL_BROADCAST, "auto", &p)) fail_msg("%s", gsp_errmsg());
        char path[64];
        snprintf(path, sizeof path, "/tmp/gossip_bxml_%d", (int)getpid());
        FILE *f = fopen(path, "w");
        assert_int_equal(gsp_export_msccl_xml(&p.sched, &t, NULL, f), GSP_OK);
        fclose(f);
        int nchan = 0;
        for (uint64_t seed = 1; seed <= 3; seed++)
            if (!run_xml_data(path, t.n, true, cases[c].root, seed, &nchan)) fail_msg("%s: broadcast XML wrong under order %d", cases[c].spec, (int)seed);
        assert_int_equal(nchan, cases[c].nchan);
        drop_send_deps(path);
        bool caught = false;
        for (uint64_t seed = 1; seed <= 20 && !caught; seed++) caught = !run_xml_data(path, t.n, true, cases[c].root, seed, NULL);
        assert_true(caught || d.diameter == 1); /* a tree of depth 1 forwards nothing */
        f = fopen("/dev/null", "w");
        assert_int_equal(gsp_export_msccl_json(&p.sched, &t, NULL, f), GSP_ERR_UNSUPPORTED);
        fclose(f);
        unlink(path);
        gsp_plan_destroy(&p);
        gsp_distances_destroy(&d);
        gsp_topo_destroy(&t);
    }
}

/* An arc with more than 256 steps (the one-port ring on 300 nodes: 299 per arc) goes on in a
 * second threadblock on a channel of its own; the allgather stays right. */
static void test_split_xml(void **state) {
    (void)state;
    gsp_topo_t t;
    gsp_distances_t d;
    gsp_plan_t p;
    if (gsp_topo_from_spec(&t, "cycle:300")) fail_msg("%s", gsp_errmsg());
    assert_int_equal(gsp_distances(&t, true, &d, NULL, NULL), GSP_OK);
    gsp_model_t m = gsp_model_default();
    m.one_port = true;
    gsp_plan_in_t in = {&t, &d, m, -1, 1, NULL, NULL, 0, 0};
    if (gsp_plan(&in, GSP_COLL_ALLGATHER, "ring", &p)) fail_msg("%s", gsp_errmsg());
    char path[64];
    snprintf(path, sizeof path, "/tmp/gossip_sxml_%d", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_int_equal(gsp_export_msccl_xml(&p.sched, &t, NULL, f), GSP_OK);
    fclose(f);
    int nchan = 0;
    for (uint64_t seed = 1; seed <= 2; seed++)
        if (!run_xml_data(path, t.n, false, -1, seed, &nchan)) fail_msg("split allgather XML wrong under order %d", (int)seed);
    assert_int_equal(nchan, 2);
    drop_send_deps(path);
    assert_false(run_xml_data(path, t.n, false, -1, 1, NULL));
    unlink(path);
    gsp_plan_destroy(&p);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
    /* An allgather of the 4x4 torus through the same checker. */
    plan("torus:4x4", "rotation", &t, &d, &p);
    f = fopen(path, "w");
    assert_int_equal(gsp_export_msccl_xml(&p.sched, &t, NULL, f), GSP_OK);
    fclose(f);
    assert_true(run_xml_data(path, t.n, false, -1, 7, NULL));
    unlink(path);
    gsp_plan_destroy(&p);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
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
    /* The root of a broadcast on complete:300 needs 299 threadblocks: beyond the executor's 216. */
    if (gsp_topo_from_spec(&t, "complete:300")) fail_msg("%s", gsp_errmsg());
    assert_int_equal(gsp_distances(&t, true, &d, NULL, NULL), GSP_OK);
    gsp_plan_in_t in = {&t, &d, gsp_model_default(), 0, 1, NULL, NULL, 0, 0};
    assert_int_equal(gsp_plan(&in, GSP_COLL_BROADCAST, "auto", &p), GSP_OK);
    f = fopen("/dev/null", "w");
    assert_int_equal(gsp_export_msccl_xml(&p.sched, &t, NULL, f), GSP_ERR_TOOBIG);
    assert_non_null(strstr(gsp_errmsg(), "216"));
    fclose(f);
    gsp_plan_destroy(&p);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_roundtrips), cmocka_unit_test(test_blocks_xml), cmocka_unit_test(test_broadcast_xml),
                                       cmocka_unit_test(test_split_xml), cmocka_unit_test(test_refusals)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
