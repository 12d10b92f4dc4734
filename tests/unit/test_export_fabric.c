/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_export_fabric.c — fabric plans (gsp_fabric_trees' round form) exported as MSCCL XML and
 * run here as the executor would: the XML is parsed with libxml2 (an independent reader), every
 * step runs when its threadblock's previous step, its dependency and (a receive) the matching
 * send on its connection have run, in a random order, over buffers whose every chunk records
 * which chunk of which rank it holds and which ranks' contributions it sums. The run must end
 * with the collective done — allgather: every rank holds every chunk; reduce-scatter: rank r's
 * output chunk c sums every rank's chunk r*C + c once; allreduce: every chunk summed once on
 * every rank — and within the executor's limits (216 threadblocks, 256 steps, 32 threadblocks
 * per channel, 32 channels, one threadblock per connection). */
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
#include "gossip/fabric.h"

static long attr(xmlNode *x, const char *name) {
    xmlChar *v = xmlGetProp(x, (const xmlChar *)name);
    if (!v) fail_msg("missing attribute %s", name);
    long r = strtol((const char *)v, NULL, 10);
    xmlFree(v);
    return r;
}

static int buf_of(xmlNode *x, const char *name) {
    xmlChar *v = xmlGetProp(x, (const xmlChar *)name);
    if (!v) fail_msg("missing attribute %s", name);
    int b = !strcmp((const char *)v, "i") ? 0 : !strcmp((const char *)v, "o") ? 1 : -1;
    xmlFree(v);
    if (b < 0) fail_msg("buffer %s: only i and o expected", name);
    return b;
}

/* A chunk slot: which chunk (-1: none) and whose contributions (a bit per rank). */
typedef struct {
    long chunk;
    uint64_t who;
} slot_t;

typedef struct {
    int rank, tb, q, peer, chan, src, dst, type; /* type: 0 s, 1 r, 2 rrc, 3 cpy */
    long srcoff, dstoff, cnt, depid, deps, hasdep;
    int dep, match;
} st_t;

#define MAXTB 216

typedef struct {
    int nchan, n;
    long nchunks, ichunks, ochunks;
    char coll[32];
    st_t *st;
    size_t ns;
    int *tbfirst, *tblen, *tbsend, *tbrecv, *tbchan; /* per rank * MAXTB + id */
} xml_t;

static void xml_free(xml_t *x) {
    free(x->st);
    free(x->tbfirst);
    free(x->tblen);
    free(x->tbsend);
    free(x->tbrecv);
    free(x->tbchan);
}

/* Reads the file and checks the executor's limits and the pairing of sends and receives. */
static void xml_read(const char *path, xml_t *X) {
    xmlDoc *doc = xmlReadFile(path, NULL, 0);
    if (!doc) fail_msg("%s: not well-formed XML", path);
    xmlNode *algo = xmlDocGetRootElement(doc);
    assert_string_equal((const char *)algo->name, "algo");
    memset(X, 0, sizeof *X);
    X->n = (int)attr(algo, "ngpus");
    X->nchan = (int)attr(algo, "nchannels");
    X->nchunks = attr(algo, "nchunksperloop");
    xmlChar *c = xmlGetProp(algo, (const xmlChar *)"coll");
    snprintf(X->coll, sizeof X->coll, "%s", (const char *)c);
    xmlFree(c);
    if (X->nchan < 1 || X->nchan > 32) fail_msg("%s: %d channels", path, X->nchan);
    int n = X->n;
    size_t cap = 1024;
    X->st = malloc(cap * sizeof *X->st);
    X->tbfirst = malloc(sizeof(int) * (size_t)n * MAXTB);
    X->tblen = calloc((size_t)n * MAXTB, sizeof(int));
    X->tbsend = malloc(sizeof(int) * (size_t)n * MAXTB);
    X->tbrecv = malloc(sizeof(int) * (size_t)n * MAXTB);
    X->tbchan = malloc(sizeof(int) * (size_t)n * MAXTB);
    int *perchan = calloc((size_t)n * 32, sizeof *perchan);
    for (size_t i = 0; i < (size_t)n * MAXTB; i++) X->tbfirst[i] = -1;
    for (xmlNode *g = algo->children; g; g = g->next) {
        if (g->type != XML_ELEMENT_NODE) continue;
        int u = (int)attr(g, "id");
        if (u < 0 || u >= n) fail_msg("%s: gpu %d", path, u);
        if (u == 0) X->ichunks = attr(g, "i_chunks"), X->ochunks = attr(g, "o_chunks");
        for (xmlNode *tb = g->children; tb; tb = tb->next) {
            if (tb->type != XML_ELEMENT_NODE) continue;
            int id = (int)attr(tb, "id"), snd = (int)attr(tb, "send"), rcv = (int)attr(tb, "recv"), ch = (int)attr(tb, "chan");
            if (id < 0 || id >= MAXTB) fail_msg("%s: threadblock id %d beyond the executor's 216", path, id);
            if (ch < 0 || ch >= X->nchan) fail_msg("%s: channel %d not below nchannels %d", path, ch, X->nchan);
            if (X->tbfirst[u * MAXTB + id] >= 0) fail_msg("%s: duplicate threadblock %d on rank %d", path, id, u);
            if ((snd >= 0 || rcv >= 0) && ++perchan[u * 32 + ch] > 32) fail_msg("%s: rank %d has over 32 threadblocks on channel %d", path, u, ch);
            for (int o = 0; o < id; o++) {
                int k = u * MAXTB + o;
                if (X->tbfirst[k] < 0 || X->tbchan[k] != ch) continue;
                if ((snd >= 0 && X->tbsend[k] == snd) || (rcv >= 0 && X->tbrecv[k] == rcv))
                    fail_msg("%s: rank %d has two threadblocks on one connection (peer %d, channel %d)", path, u, snd >= 0 ? snd : rcv, ch);
            }
            X->tbfirst[u * MAXTB + id] = (int)X->ns;
            X->tbsend[u * MAXTB + id] = snd;
            X->tbrecv[u * MAXTB + id] = rcv;
            X->tbchan[u * MAXTB + id] = ch;
            int q = 0;
            for (xmlNode *x = tb->children; x; x = x->next) {
                if (x->type != XML_ELEMENT_NODE) continue;
                if (X->ns == cap) X->st = realloc(X->st, (cap *= 2) * sizeof *X->st);
                xmlChar *ty = xmlGetProp(x, (const xmlChar *)"type");
                const char *t = (const char *)ty;
                int type = !strcmp(t, "s") ? 0 : !strcmp(t, "r") ? 1 : !strcmp(t, "rrc") ? 2 : !strcmp(t, "cpy") ? 3 : -1;
                xmlFree(ty);
                if (type < 0) fail_msg("%s: unexpected step type", path);
                if (attr(x, "s") != q) fail_msg("%s: steps out of order", path);
                if (q >= 256) fail_msg("%s: a threadblock of more than 256 steps", path);
                if ((type == 0 && snd < 0) || ((type == 1 || type == 2) && rcv < 0)) fail_msg("%s: a step without its peer", path);
                X->st[X->ns++] = (st_t){u, id, q, type == 0 ? snd : rcv, ch, buf_of(x, "srcbuf"), buf_of(x, "dstbuf"), type,
                                        attr(x, "srcoff"), attr(x, "dstoff"), attr(x, "cnt"), attr(x, "depid"), attr(x, "deps"),
                                        attr(x, "hasdep"), -1, -1};
                q++;
            }
            X->tblen[u * MAXTB + id] = q;
        }
    }
    xmlFreeDoc(doc);
    free(perchan);
    for (size_t i = 0; i < X->ns; i++) {
        st_t *e = &X->st[i];
        if (e->depid >= 0) {
            if (e->depid >= MAXTB || X->tbfirst[e->rank * MAXTB + e->depid] < 0 || e->deps < 0 || e->deps >= X->tblen[e->rank * MAXTB + e->depid])
                fail_msg("%s: a dependency on a step that does not exist", path);
            e->dep = X->tbfirst[e->rank * MAXTB + e->depid] + (int)e->deps;
            if (!X->st[e->dep].hasdep) fail_msg("%s: rank %d: a step depended on without hasdep", path, e->rank);
        }
        if (e->type == 1 || e->type == 2) {
            int found = -1;
            for (int id = 0; id < MAXTB; id++) {
                int k = e->peer * MAXTB + id;
                if (X->tbfirst[k] >= 0 && X->tbsend[k] == e->rank && X->tbchan[k] == e->chan) found = k;
            }
            if (found < 0 || e->q >= X->tblen[found]) fail_msg("%s: a receive without its send", path);
            e->match = X->tbfirst[found] + e->q;
            if (X->st[e->match].type != 0 || X->st[e->match].cnt != e->cnt) fail_msg("%s: a receive paired with another kind of step", path);
        }
    }
    /* Every send is received. */
    for (int k = 0; k < n * MAXTB; k++)
        if (X->tbfirst[k] >= 0 && X->tbsend[k] >= 0) {
            int v = X->tbsend[k], found = 0;
            for (int id = 0; id < MAXTB; id++) {
                int j = v * MAXTB + id;
                if (X->tbfirst[j] >= 0 && X->tbrecv[j] == k / MAXTB && X->tbchan[j] == X->tbchan[k])
                    found = X->tblen[j] == X->tblen[k];
            }
            if (!found) fail_msg("%s: a send threadblock whose receives do not match it", path);
        }
}

/* Runs X in a random order (seed); C chunks per rank (a broadcast: the root's C chunks).
 * Returns false on a wrong result or a deadlock. */
static bool xml_run(const xml_t *X, long C, long root, uint64_t seed) {
    int n = X->n;
    bool bc = !strcmp(X->coll, "broadcast"), ag = !strcmp(X->coll, "allgather") || bc, rs = !strcmp(X->coll, "reduce_scatter");
    long NC = bc ? C : (long)n * C;
    assert_int_equal(X->nchunks, NC);
    assert_int_equal(X->ichunks, ag ? C : NC);
    assert_int_equal(X->ochunks, rs ? C : NC);
    long bufsz[2] = {X->ichunks, X->ochunks};
    slot_t *buf[2];
    for (int b = 0; b < 2; b++) {
        buf[b] = malloc(sizeof(slot_t) * (size_t)(n * bufsz[b]));
        for (long k = 0; k < n * bufsz[b]; k++) buf[b][k] = (slot_t){-1, 0};
    }
    for (int r = 0; r < n; r++)
        for (long k = 0; k < X->ichunks && (!bc || r == root); k++) buf[0][r * X->ichunks + k] = (slot_t){bc ? k : ag ? r * C + k : k, 1ull << r};
    size_t ns = X->ns;
    slot_t **payload = calloc(ns, sizeof *payload);
    /* Prerequisites of each step (its threadblock's previous step, its dependency, the send a
     * receive pairs with) counted down as they run; a step with none left is ready. */
    int *need = calloc(ns + 1, sizeof *need), *first = calloc(ns + 2, sizeof *first), *adj = malloc(sizeof *adj * (3 * ns + 1));
    for (size_t i = 0; i < ns; i++) {
        const st_t *e = &X->st[i];
        int pre[3] = {e->q > 0 ? (int)i - 1 : -1, e->dep, e->match};
        for (int k = 0; k < 3; k++)
            if (pre[k] >= 0) need[i]++, first[pre[k] + 1]++;
    }
    for (size_t i = 0; i < ns; i++) first[i + 1] += first[i];
    int *fill = malloc(sizeof *fill * (ns + 1));
    for (size_t i = 0; i <= ns; i++) fill[i] = first[i];
    for (size_t i = 0; i < ns; i++) {
        const st_t *e = &X->st[i];
        int pre[3] = {e->q > 0 ? (int)i - 1 : -1, e->dep, e->match};
        for (int k = 0; k < 3; k++)
            if (pre[k] >= 0) adj[fill[pre[k]]++] = (int)i;
    }
    free(fill);
    uint64_t rng = seed * 2654435761u + 1;
    bool good = true;
    size_t ran = 0;
    int *ready = malloc(sizeof *ready * (ns + 1)), nr = 0;
    for (size_t i = 0; i < ns; i++)
        if (!need[i]) ready[nr++] = (int)i;
    while (nr > 0 && good) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        int k = (int)(rng % (uint64_t)nr), i = ready[k];
        ready[k] = ready[--nr];
        const st_t *e = &X->st[i];
        ran++;
        for (int d = first[i]; d < first[i + 1]; d++)
            if (--need[adj[d]] == 0) ready[nr++] = adj[d];
        if (e->srcoff < 0 || e->cnt < 1 || e->srcoff + e->cnt > bufsz[e->src] || e->dstoff < 0 || e->dstoff + e->cnt > bufsz[e->dst])
            fail_msg("step out of its buffer");
        slot_t *src = &buf[e->src][e->rank * bufsz[e->src] + e->srcoff], *dst = &buf[e->dst][e->rank * bufsz[e->dst] + e->dstoff];
        if (e->type == 0) {
            payload[i] = malloc(sizeof(slot_t) * (size_t)e->cnt);
            memcpy(payload[i], src, sizeof(slot_t) * (size_t)e->cnt);
            for (long c = 0; c < e->cnt; c++) good &= src[c].chunk >= 0; /* nothing sent before it is there */
        } else if (e->type == 1) {
            memcpy(dst, payload[e->match], sizeof(slot_t) * (size_t)e->cnt);
        } else if (e->type == 2) {
            for (long c = 0; c < e->cnt; c++) {
                slot_t got = payload[e->match][c], mine = src[c];
                if (got.chunk != mine.chunk || (got.who & mine.who)) good = false; /* another chunk, or counted twice */
                dst[c] = (slot_t){mine.chunk, got.who | mine.who};
            }
        } else
            memmove(dst, src, sizeof(slot_t) * (size_t)e->cnt);
    }
    if (ran < ns) good = false; /* deadlock */
    uint64_t all = n == 64 ? ~0ull : (1ull << n) - 1;
    for (int r = 0; r < n && good; r++) {
        if (ag)
            for (long x = 0; x < NC; x++) good &= buf[1][r * NC + x].chunk == x;
        else if (rs)
            for (long c = 0; c < C; c++) good &= buf[1][r * C + c].chunk == r * C + c && buf[1][r * C + c].who == all;
        else
            for (long x = 0; x < NC; x++) good &= buf[0][r * NC + x].chunk == x && buf[0][r * NC + x].who == all;
    }
    for (size_t i = 0; i < ns; i++) free(payload[i]);
    free(payload);
    free(need);
    free(first);
    free(adj);
    free(ready);
    free(buf[0]);
    free(buf[1]);
    return good;
}

/* The round form of coll on t with B batches, checked by the verifier (a broadcast from the
 * first compute node). */
static void round_form(const gsp_topo_t *t, gsp_collective_t coll, int64_t B, gsp_sched_t *s) {
    int64_t root = 0;
    while (t->is_switch && t->is_switch[root]) root++;
    gsp_forest_t f[2];
    gsp_report_t rep;
    if (coll == GSP_COLL_ALLREDUCE) {
        assert_int_equal(gsp_fabric_trees(t, GSP_COLL_REDUCE_SCATTER, -1, &f[0]), GSP_OK);
        assert_int_equal(gsp_fabric_trees(t, GSP_COLL_ALLGATHER, -1, &f[1]), GSP_OK);
        assert_int_equal(gsp_forest_sched_allreduce(t, &f[0], &f[1], B, s, NULL), GSP_OK);
        gsp_forest_destroy(&f[1]);
    } else {
        assert_int_equal(gsp_fabric_trees(t, coll, coll == GSP_COLL_BROADCAST ? root : -1, &f[0]), GSP_OK);
        assert_int_equal(gsp_forest_sched(t, &f[0], B, s), GSP_OK);
    }
    gsp_forest_destroy(&f[0]);
    assert_int_equal(gsp_sched_verify(s, t, 1, &rep), GSP_OK);
    if (!rep.ok) fail_msg("%s: %s", t->spec, rep.message);
}

static long export_xml(const gsp_sched_t *s, const gsp_topo_t *t, const char *path) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    gsp_err_t err = gsp_export_msccl_xml(s, t, NULL, f);
    long size = ftell(f);
    fclose(f);
    if (err) fail_msg("%s: export: %s", t->spec, gsp_errmsg());
    return size;
}

static void test_fabric_xml(void **state) {
    (void)state;
    struct {
        const char *spec;
        int64_t B;
    } cases[] = {{"dgx:8x2", 1}, {"dgx:8x2", 2}, {"dgx:8x2", 16}, {"mi250:1", 1}, {"mi250:2", 1}, {"dgx:8x1", 3}, {"fattree:4x4", 1},
                 {"file:" GOSSIP_TEST_DATA "/fabric.txt", 1}, {"file:" GOSSIP_TEST_DATA "/fabric-random.txt", 2}, {"file:" GOSSIP_TEST_DATA "/dgx-a100-2box.txt", 1}, {"torus:3x4@1,0.5", 1}};
    gsp_collective_t colls[] = {GSP_COLL_ALLGATHER, GSP_COLL_REDUCE_SCATTER, GSP_COLL_ALLREDUCE, GSP_COLL_BROADCAST};
    char path[64];
    int pieces = 0;
    snprintf(path, sizeof path, "/tmp/gossip_fxml_%d", (int)getpid());
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gsp_topo_t t;
        if (gsp_topo_from_spec(&t, cases[i].spec)) fail_msg("%s: %s", cases[i].spec, gsp_errmsg());
        for (size_t c = 0; c < 4; c++) {
            gsp_sched_t s;
            xml_t X;
            round_form(&t, colls[c], cases[i].B, &s);
            long size = export_xml(&s, &t, path);
            xml_read(path, &X);
            assert_int_equal(X.n, gsp_topo_compute_count(&t));
            long root = 0; /* the broadcast's root is the first compute node: rank 0 */
            for (uint64_t seed = 1; seed <= 2; seed++)
                if (!xml_run(&X, s.chunks > 1 ? s.chunks : 1, root, seed))
                    fail_msg("%s, %s, %lld batches: the XML run goes wrong (order %d)", cases[i].spec, gsp_collective_name(colls[c]), (long long)cases[i].B,
                             (int)seed);
            print_message("%s %s B=%lld: %d ranks, %d channels, %zu steps, %ld bytes\n", cases[i].spec, gsp_collective_name(colls[c]),
                          (long long)cases[i].B, X.n, X.nchan, X.ns, size);
            /* A connection of more than 256 steps: more threadblocks, on further channels. */
            pieces += !strcmp(cases[i].spec, "dgx:8x2") && X.nchan > 9;
            xml_free(&X);
            gsp_sched_destroy(&s);
        }
        gsp_topo_destroy(&t);
    }
    assert_true(pieces >= 1);
    unlink(path);
}

/* dgx:8x2: a transfer between the boxes goes on its sender's rail (its GPU index), one inside a
 * box on channel 8; ranks are the GPUs in order, b0.gpu0 .. b1.gpu7 (the names say the box). */
static void test_fabric_xml_rails(void **state) {
    (void)state;
    gsp_topo_t t;
    gsp_sched_t s;
    xml_t X;
    char path[64], b[32];
    snprintf(path, sizeof path, "/tmp/gossip_fxml_r_%d", (int)getpid());
    assert_int_equal(gsp_topo_from_spec(&t, "dgx:8x2"), GSP_OK);
    int box[16], gpu[16], r = 0;
    for (int64_t v = 0; v < t.n; v++)
        if (!t.is_switch[v]) {
            const char *nm = gsp_topo_node_name(&t, v, b);
            assert_int_equal(sscanf(nm, "b%d.gpu%d", &box[r], &gpu[r]), 2);
            r++;
        }
    assert_int_equal(r, 16);
    round_form(&t, GSP_COLL_ALLGATHER, 1, &s);
    export_xml(&s, &t, path);
    xml_read(path, &X);
    int across = 0, inside = 0;
    for (int k = 0; k < 16 * MAXTB; k++) {
        if (X.tbfirst[k] < 0 || X.tbsend[k] < 0) continue;
        int u = k / MAXTB, v = X.tbsend[k];
        if (box[u] != box[v]) {
            across++;
            if (X.tbchan[k] != gpu[u]) fail_msg("rank %d to %d across the boxes on channel %d, not rail %d", u, v, X.tbchan[k], gpu[u]);
        } else {
            inside++;
            assert_int_equal(X.tbchan[k], 8);
        }
    }
    assert_true(across > 0 && inside > 0);
    assert_int_equal(X.nchan, 9);
    /* The checker can fail: without the sends' dependencies some order goes wrong. */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sed -i '/type=\"s\"/s/depid=\"[0-9]*\" deps=\"[0-9]*\"/depid=\"-1\" deps=\"-1\"/' %s", path);
    assert_int_equal(system(cmd), 0);
    xml_free(&X);
    xml_read(path, &X);
    bool caught = false;
    for (uint64_t seed = 1; seed <= 10 && !caught; seed++) caught = !xml_run(&X, s.chunks, 0, seed);
    assert_true(caught);
    xml_free(&X);
    gsp_sched_destroy(&s);
    /* Reduce-scatter without the receives' chain of writes: a partial sum leaves early. */
    round_form(&t, GSP_COLL_REDUCE_SCATTER, 1, &s);
    export_xml(&s, &t, path);
    snprintf(cmd, sizeof cmd, "sed -i '/type=\"s\"/s/depid=\"[0-9]*\" deps=\"[0-9]*\"/depid=\"-1\" deps=\"-1\"/' %s", path);
    assert_int_equal(system(cmd), 0);
    xml_read(path, &X);
    caught = false;
    for (uint64_t seed = 1; seed <= 10 && !caught; seed++) caught = !xml_run(&X, s.chunks, 0, seed);
    assert_true(caught);
    xml_free(&X);
    gsp_sched_destroy(&s);
    /* A broadcast from b1.gpu5 (rank 13), run from that root. */
    gsp_forest_t f;
    int64_t root = -1;
    for (int64_t v = 0; v < t.n && root < 0; v++)
        if (!strcmp(gsp_topo_node_name(&t, v, b), "b1.gpu5")) root = v;
    assert_int_equal(gsp_fabric_trees(&t, GSP_COLL_BROADCAST, root, &f), GSP_OK);
    assert_int_equal(gsp_forest_sched(&t, &f, 2, &s), GSP_OK);
    export_xml(&s, &t, path);
    xml_read(path, &X);
    assert_string_equal(X.coll, "broadcast");
    assert_true(xml_run(&X, s.chunks, 13, 1));
    assert_false(xml_run(&X, s.chunks, 12, 1)); /* from another rank it is wrong */
    xml_free(&X);
    gsp_sched_destroy(&s);
    gsp_forest_destroy(&f);
    /* msccl-tools JSON of a reduction is written too (tests/cli/test_export_fabrics.sh
     * simulates what it says). */
    FILE *null = fopen("/dev/null", "w");
    round_form(&t, GSP_COLL_REDUCE_SCATTER, 1, &s);
    assert_int_equal(gsp_export_msccl_json(&s, &t, NULL, null), GSP_OK);
    fclose(null);
    gsp_sched_destroy(&s);
    gsp_topo_destroy(&t);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fabric_xml), cmocka_unit_test(test_fabric_xml_rails)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
