/* SPDX-License-Identifier: GPL-3.0-or-later */
/* export.c — schedules in the formats GPU runtimes read: msccl-tools' algorithm JSON and
 * MSCCL's XML, and the JSON read back (so a test can verify what was exported). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/sched.h"
#include "core/core_int.h"
#include "sched_int.h"

/* msccl-tools' collectives (msccl/collectives.py) chunked up by C (Collective.chunk_up), written
 * out chunk by chunk: a chunk is one rank's data for one address ("addr"), "pre" the ranks that
 * hold it at the start, "post" those that must at the end. Several chunks at one address are
 * what makes a collective combining (Collective.__init__): their contributions add up there.
 *   allgather(n):       chunk r*C+c at rank r, everywhere at the end, address r*C+c;
 *   broadcast(n, root): chunk c at the root, everywhere at the end, address c;
 *   reduce_scatter(n):  chunk ((o*n)+r)*C+c is rank r's contribution to rank o's c-th chunk,
 *                       address o*C+c, needed at o;
 *   allreduce(n) chunked by n*C (every rank's whole vector of n*C chunks): chunk r*n*C+a is
 *                       rank r's contribution to address a, needed everywhere. */
static void chunk_of(gsp_collective_t coll, int64_t n, int64_t C, int64_t root, int64_t x, int64_t *pre, int64_t *post, int64_t *addr) {
    int64_t NC = n * C;
    switch (coll) {
    case GSP_COLL_BROADCAST: *pre = root, *post = -1, *addr = x; break;
    case GSP_COLL_REDUCE_SCATTER: *pre = (x / C) % n, *post = x / NC, *addr = (x / NC) * C + x % C; break;
    case GSP_COLL_ALLREDUCE: *pre = x / NC, *post = -1, *addr = x % NC; break;
    default: *pre = x / C, *post = -1, *addr = x; break;
    }
}

static int64_t nchunks_of(gsp_collective_t coll, int64_t n, int64_t C) {
    return coll == GSP_COLL_BROADCAST ? C : coll == GSP_COLL_ALLGATHER ? n * C : n * n * C;
}

void gsp__msccl_json_head(gsp_jw_t *w, const char *name, int64_t steps, int64_t chunks) {
    gsp_jw_obj_begin(w);
    gsp_jw_key(w, "msccl_type"); gsp_jw_str(w, "algorithm");
    gsp_jw_key(w, "name"); gsp_jw_str(w, name);
    gsp_jw_key(w, "instance");
    gsp_jw_obj_begin(w);
    gsp_jw_key(w, "msccl_type"); gsp_jw_str(w, "instance");
    gsp_jw_key(w, "steps"); gsp_jw_int(w, steps);
    gsp_jw_key(w, "extra_rounds"); gsp_jw_int(w, 0);
    gsp_jw_key(w, "chunks"); gsp_jw_int(w, chunks);
    gsp_jw_key(w, "pipeline"); gsp_jw_null(w);
    gsp_jw_key(w, "extra_memory"); gsp_jw_null(w);
    gsp_jw_key(w, "allow_exchange"); gsp_jw_bool(w, false);
    gsp_jw_obj_end(w);
}

void gsp__msccl_json_collective(gsp_jw_t *w, gsp_collective_t coll, int64_t n, int64_t C, int64_t root) {
    const char *name = coll == GSP_COLL_BROADCAST        ? "Broadcast"
                       : coll == GSP_COLL_REDUCE_SCATTER ? "ReduceScatter"
                       : coll == GSP_COLL_ALLREDUCE      ? "Allreduce"
                                                         : "Allgather";
    /* The names the runtime knows; msccl-tools' broadcast has none of its own ("custom"). */
    const char *runtime = coll == GSP_COLL_BROADCAST        ? "custom"
                          : coll == GSP_COLL_REDUCE_SCATTER ? "reduce_scatter"
                          : coll == GSP_COLL_ALLREDUCE      ? "allreduce"
                                                            : "allgather";
    gsp_jw_key(w, "collective");
    gsp_jw_obj_begin(w);
    gsp_jw_key(w, "msccl_type"); gsp_jw_str(w, "collective");
    gsp_jw_key(w, "name"); gsp_jw_str(w, name);
    gsp_jw_key(w, "nodes"); gsp_jw_int(w, n);
    gsp_jw_key(w, "chunks");
    gsp_jw_arr_begin(w);
    for (int64_t x = 0, m = nchunks_of(coll, n, C); x < m; x++) {
        int64_t pre, post, addr;
        chunk_of(coll, n, C, root, x, &pre, &post, &addr);
        gsp_jw_obj_begin(w);
        gsp_jw_key(w, "msccl_type"); gsp_jw_str(w, "chunk");
        gsp_jw_key(w, "pre");
        gsp_jw_arr_begin(w);
        gsp_jw_int(w, pre);
        gsp_jw_arr_end(w);
        gsp_jw_key(w, "post");
        gsp_jw_arr_begin(w);
        for (int64_t r = 0; r < n; r++)
            if (post < 0 || r == post) gsp_jw_int(w, r);
        gsp_jw_arr_end(w);
        gsp_jw_key(w, "addr"); gsp_jw_int(w, addr);
        gsp_jw_obj_end(w);
    }
    gsp_jw_arr_end(w);
    gsp_jw_key(w, "triggers"); gsp_jw_obj_begin(w); gsp_jw_obj_end(w);
    gsp_jw_key(w, "runtime_name"); gsp_jw_str(w, runtime);
    gsp_jw_obj_end(w);
}

void gsp__msccl_json_maps(gsp_jw_t *w, gsp_collective_t coll, int64_t n, int64_t C, int64_t root) {
    char key[32];
    /* As msccl-tools' Algorithm.make_implementation: a rank's input addresses are those of the
     * chunks it starts with, its output addresses those it must end with; a rank with none is
     * left out (a broadcast's input_map has the root only). */
    int64_t NC = n * C;
    for (int out = 0; out < 2; out++) {
        gsp_jw_key(w, out ? "output_map" : "input_map");
        gsp_jw_obj_begin(w);
        for (int64_t r = 0; r < n; r++) {
            int64_t lo = 0, hi = NC; /* the addresses lo .. hi-1 */
            if (coll == GSP_COLL_BROADCAST) {
                if (!out && r != root) continue;
                hi = C;
            } else if (coll == GSP_COLL_ALLGATHER && !out) {
                lo = r * C, hi = r * C + C;
            } else if (coll == GSP_COLL_REDUCE_SCATTER && out) {
                lo = r * C, hi = r * C + C;
            }
            snprintf(key, sizeof key, "%lld", (long long)r);
            gsp_jw_key(w, key);
            gsp_jw_arr_begin(w);
            for (int64_t c = lo; c < hi; c++) gsp_jw_int(w, c);
            gsp_jw_arr_end(w);
        }
        gsp_jw_obj_end(w);
    }
}

/* An explicit allgather view of s: s itself, or its expansion on t. */
static gsp_err_t explicit_view(const gsp_sched_t *s, const gsp_topo_t *t, gsp_sched_t *tmp, const gsp_sched_t **out) {
    /* A register-form allreduce (a node's whole vector combined in registers) has no MSCCL
     * form; the same collective in block form has: name the method that plans it. */
    if (s->coll == GSP_COLL_ALLREDUCE && !s->blocks && t->directed)
        return gsp_error(GSP_ERR_UNSUPPORTED, "export: this allreduce (method %s) is in register form, which MSCCL cannot "
                         "express, and the block form (method rs-ag) needs an undirected graph: %s is directed",
                         s->method && s->method[0] ? s->method : "unknown", t->spec);
    if (s->coll == GSP_COLL_ALLREDUCE && !s->blocks)
        return gsp_error(GSP_ERR_UNSUPPORTED, "export: this allreduce (method %s) is in register form, which MSCCL cannot "
                         "express; plan it in block form with method rs-ag (gossip plan allreduce %s --method rs-ag -o FILE) "
                         "and export that", s->method && s->method[0] ? s->method : "unknown", s->topology);
    if (s->coll != GSP_COLL_ALLGATHER && s->coll != GSP_COLL_BROADCAST && !s->blocks)
        return gsp_error(GSP_ERR_UNSUPPORTED, "export: allgather and broadcast schedules, and reduce-scatter and allreduce in block "
                         "form, only (this one is %s)", gsp_collective_name(s->coll));
    if (s->nodes > GSP_EXPORT_MAX)
        return gsp_error(GSP_ERR_TOOBIG, "export: %lld nodes is above the limit of %d", (long long)s->nodes, GSP_EXPORT_MAX);
    if (s->nodes != t->n)
        return gsp_error(GSP_ERR_INVAL, "export: the schedule has %lld nodes, %s has %lld", (long long)s->nodes, t->spec, (long long)t->n);
    if (!s->symmetric) {
        *out = s;
        return GSP_OK;
    }
    gsp_err_t err = gsp_sched_expand(s, t, tmp);
    if (!err) *out = tmp;
    return err;
}

/* The algorithm's name; with xml, the characters XML reserves in attributes are replaced. */
static void name_of(const gsp_sched_t *s, const gsp_export_opts_t *o, char *buf, size_t n, bool xml) {
    if (o && o->name) snprintf(buf, n, "%s", o->name);
    else snprintf(buf, n, "gossip-%s-%s", s->method[0] ? s->method : "schedule", s->topology);
    if (xml)
        for (char *c = buf; *c; c++)
            if (*c == '"' || *c == '<' || *c == '>' || *c == '&' || *c == '\'') *c = '_';
}

/* Most transfers on one arc in round r (the step's "rounds" in msccl-tools' terms). */
static int64_t round_width(const gsp_sched_t *s, int64_t r) {
    int64_t best = 0, run = 0;
    for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
        const gsp_send_t *a = &s->sends[k];
        bool same = k > s->send_off.v[r] && a->u == s->sends[k - 1].u && a->v == s->sends[k - 1].v;
        run = same ? run + 1 : 1;
        if (run > best) best = run;
    }
    return best ? best : 1;
}

gsp_err_t gsp_export_msccl_json(const gsp_sched_t *s0, const gsp_topo_t *t, const gsp_export_opts_t *o, FILE *f) {
    gsp_sched_t tmp;
    const gsp_sched_t *s;
    memset(&tmp, 0, sizeof tmp);
    if (s0->chunks > 1 || s0->cap_factor > 0 || (t && t->is_switch)) {
        char fname[512];
        name_of(s0, o, fname, sizeof fname, false);
        return gsp__export_fabric_json(s0, t, fname, f);
    }
    /* These have their msccl-tools JSON from the fabric writer only (a plan on a fabric). */
    if (s0->blocks || s0->coll == GSP_COLL_BROADCAST)
        return gsp_error(GSP_ERR_UNSUPPORTED, "export: msccl-tools JSON is written for a %s planned on a fabric (docs/fabrics.md); "
                         "export this one as msccl-xml", gsp_collective_name(s0->coll));
    gsp_err_t err = explicit_view(s0, t, &tmp, &s);
    if (err) return err;
    char name[512];
    name_of(s, o, name, sizeof name, false);
    int64_t n = s->nodes;
    gsp_jw_t w;
    gsp_jw_init(&w, f);
    gsp__msccl_json_head(&w, name, s->nrounds, 1);
    gsp__msccl_json_maps(&w, GSP_COLL_ALLGATHER, n, 1, -1);
    gsp_jw_key(&w, "steps");
    gsp_jw_arr_begin(&w);
    for (int64_t r = 0; r < s->nrounds; r++) {
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "msccl_type"); gsp_jw_str(&w, "step");
        gsp_jw_key(&w, "rounds"); gsp_jw_int(&w, round_width(s, r));
        gsp_jw_key(&w, "sends");
        gsp_jw_arr_begin(&w);
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
            gsp_jw_arr_begin(&w);
            gsp_jw_int(&w, s->sends[k].x);
            gsp_jw_int(&w, s->sends[k].u);
            gsp_jw_int(&w, s->sends[k].v);
            gsp_jw_arr_end(&w);
        }
        gsp_jw_arr_end(&w);
        gsp_jw_obj_end(&w);
    }
    gsp_jw_arr_end(&w);
    gsp__msccl_json_collective(&w, GSP_COLL_ALLGATHER, n, 1, -1);
    gsp_jw_key(&w, "topology");
    gsp_jw_obj_begin(&w);
    gsp_jw_key(&w, "msccl_type"); gsp_jw_str(&w, "topology");
    gsp_jw_key(&w, "name"); gsp_jw_str(&w, t->spec);
    /* links[dst][src]: chunks an arc carries per round. */
    int64_t pk = gsp_model_resolve(s->model).packets, bw = pk == GSP_PACKETS_INF ? n : pk;
    gsp_jw_key(&w, "links");
    gsp_jw_arr_begin(&w);
    for (int64_t v = 0; v < n; v++) {
        gsp_jw_arr_begin(&w);
        for (int64_t u = 0; u < n; u++) gsp_jw_int(&w, gsp_topo_arc_index(t, u, v) >= 0 ? bw : 0);
        gsp_jw_arr_end(&w);
    }
    gsp_jw_arr_end(&w);
    gsp_jw_key(&w, "switches"); gsp_jw_arr_begin(&w); gsp_jw_arr_end(&w);
    gsp_jw_obj_end(&w);
    gsp_jw_obj_end(&w);
    fputc('\n', f);
    err = gsp_jw_finish(&w);
    gsp_sched_destroy(&tmp);
    return err;
}

typedef struct {
    int64_t peer;       /* the other end */
    bool send;          /* a send threadblock (else receive) */
    gsp_vec_t ops;      /* packed (round << 20 | chunk) in round order */
    /* Written as npieces threadblocks of at most MSCCL_MAX_STEPS steps, ids base.., piece p on
     * channel chan[p] (the same at both ends of the arc). */
    int64_t base, npieces;
    unsigned char *chan;
} tb_t;

/* Threadblocks of every rank: one per out-arc (sends), then one per in-arc (receives). */
static gsp_err_t tbs_create(const gsp_topo_t *t, int64_t n, tb_t ***tbs, int64_t **ntb) {
    gsp_err_t err;
    if ((err = gsp_alloc_array((void **)tbs, n, sizeof **tbs, true)) || (err = gsp_alloc_array((void **)ntb, n, sizeof **ntb, true)))
        return err;
    for (int64_t v = 0; v < n; v++) {
        int64_t deg = t->off[v + 1] - t->off[v];
        if ((err = gsp_alloc_array((void **)&(*tbs)[v], 2 * deg + 2 * (t->in_dmax + 1), sizeof *(*tbs)[v], true))) return err;
        for (int64_t a = t->off[v]; a < t->off[v + 1]; a++) (*tbs)[v][(*ntb)[v]++] = (tb_t){t->adj[a], true, {0}, 0, 0, NULL};
    }
    for (int64_t u = 0; u < n; u++)
        for (int64_t a = t->off[u]; a < t->off[u + 1]; a++) (*tbs)[t->adj[a]][(*ntb)[t->adj[a]]++] = (tb_t){u, false, {0}, 0, 0, NULL};
    return GSP_OK;
}

static void tbs_free(tb_t **tbs, int64_t *ntb, int64_t n) {
    if (tbs)
        for (int64_t v = 0; v < n; v++) {
            for (int64_t j = 0; tbs[v] && j < ntb[v]; j++) {
                gsp_vec_destroy(&tbs[v][j].ops);
                gsp_free(tbs[v][j].chan);
            }
            gsp_free(tbs[v]);
        }
    gsp_free(tbs);
    gsp_free(ntb);
}

/* The executor's limits (sched_int.h). An arc's steps beyond
 * 256 go on in further threadblocks, each on a channel of its own at both ends — channels are
 * separate connections, and every order the steps need is in their dependencies — and the
 * arcs' pieces are spread over channels so that no rank has more than 32 on one. A schedule
 * beyond the limits is refused with the reason instead of written as a file the executor
 * rejects. */
#define MSCCL_MAX_TB GSP__MSCCL_MAX_TB
#define MSCCL_MAX_STEPS GSP__MSCCL_MAX_STEPS
#define MSCCL_MAX_CHANNELS GSP__MSCCL_MAX_CHANNELS
#define MSCCL_MAX_TB_TOTAL GSP__MSCCL_MAX_TB_TOTAL
static gsp_err_t tbs_layout(tb_t **tbs, const int64_t *ntb, int64_t n, const char *hint, int *nchan) {
    gsp_err_t err = GSP_OK;
    int32_t *cnt = NULL;
    *nchan = 1;
    for (int64_t u = 0; u < n; u++) {
        int64_t total = 0;
        for (int64_t j = 0; j < ntb[u]; j++) {
            tb_t *b = &tbs[u][j];
            b->npieces = (b->ops.len + MSCCL_MAX_STEPS - 1) / MSCCL_MAX_STEPS;
            b->base = total;
            total += b->npieces;
            if ((err = gsp_alloc_array((void **)&b->chan, b->npieces + 1, 1, true))) return err;
        }
        if (total + 1 > MSCCL_MAX_TB_TOTAL)
            return gsp_error(GSP_ERR_TOOBIG,
                             "MSCCL XML: rank %lld needs %lld threadblocks (one per arc, direction and %d steps, and a local copy; the "
                             "executor runs at most %d)%s",
                             (long long)u, (long long)total + 1, MSCCL_MAX_STEPS, MSCCL_MAX_TB_TOTAL, hint);
    }
    if ((err = gsp_alloc_array((void **)&cnt, n * MSCCL_MAX_CHANNELS, sizeof *cnt, true))) return err;
    for (int64_t u = 0; u < n && !err; u++)
        for (int64_t j = 0; j < ntb[u] && !err; j++) {
            tb_t *b = &tbs[u][j], *r = NULL;
            if (!b->send || !b->npieces) continue;
            for (int64_t i = 0; i < ntb[b->peer]; i++)
                if (!tbs[b->peer][i].send && tbs[b->peer][i].peer == u) r = &tbs[b->peer][i];
            if (!r || r->npieces != b->npieces) {
                err = gsp_error(GSP_ERR_INTERNAL, "export: arc (%lld, %lld) has unmatched steps", (long long)u, (long long)b->peer);
                break;
            }
            int32_t *cu = cnt + u * MSCCL_MAX_CHANNELS, *cv = cnt + b->peer * MSCCL_MAX_CHANNELS;
            /* The pieces of one arc on distinct channels: one connection carries one piece. */
            for (int64_t p = 0; p < b->npieces && !err; p++) {
                int c = p ? b->chan[p - 1] + 1 : 0;
                while (c < MSCCL_MAX_CHANNELS && (cu[c] >= MSCCL_MAX_TB || cv[c] >= MSCCL_MAX_TB)) c++;
                if (c == MSCCL_MAX_CHANNELS) {
                    err = gsp_error(GSP_ERR_TOOBIG,
                                    "MSCCL XML: ranks %lld and %lld need more than %d threadblocks on each of the %d channels%s",
                                    (long long)u, (long long)b->peer, MSCCL_MAX_TB, MSCCL_MAX_CHANNELS, hint);
                    break;
                }
                b->chan[p] = r->chan[p] = (unsigned char)c;
                cu[c]++;
                cv[c]++;
                if (c + 1 > *nchan) *nchan = c + 1;
            }
        }
    gsp_free(cnt);
    return err;
}

/* Threadblocks a rank's arcs take (the next id is its local copy's). */
static int64_t tbs_used(const tb_t *tu, int64_t ntb) {
    return ntb ? tu[ntb - 1].base + tu[ntb - 1].npieces : 0;
}

/* The written id and step of step q of threadblock j at a rank (-1: none). */
static long long piece_id(const tb_t *tu, int64_t j, int64_t q) { return j < 0 ? -1 : (long long)(tu[j].base + q / MSCCL_MAX_STEPS); }
static long long piece_step(int64_t j, int64_t q) { return j < 0 ? -1 : (long long)(q % MSCCL_MAX_STEPS); }

/* Before step q of b: closes the previous piece and opens the next at a piece boundary. */
static void piece_open(FILE *f, const tb_t *b, int64_t q) {
    if (q % MSCCL_MAX_STEPS) return;
    if (q) fputs("    </tb>\n", f);
    int64_t p = q / MSCCL_MAX_STEPS;
    fprintf(f, "    <tb id=\"%lld\" send=\"%lld\" recv=\"%lld\" chan=\"%d\">\n", (long long)(b->base + p),
            (long long)(b->send ? b->peer : -1), (long long)(b->send ? -1 : b->peer), b->chan[p]);
}

static void piece_close(FILE *f, const tb_t *b) {
    if (b->ops.len) fputs("    </tb>\n", f);
}

/* A rank's local copy from i[srcoff] to o[dstoff], in threadblock id after its arcs'
 * (depending on step deps of threadblock depid, or on nothing when depid < 0). */
static void copy_tb(FILE *f, const tb_t *tu, int64_t ntb, int64_t srcoff, int64_t dstoff, long long depid, long long deps) {
    fprintf(f, "    <tb id=\"%lld\" send=\"-1\" recv=\"-1\" chan=\"0\">\n", (long long)tbs_used(tu, ntb));
    fprintf(f, "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"%lld\" dstbuf=\"o\" dstoff=\"%lld\" cnt=\"1\" "
               "depid=\"%lld\" deps=\"%lld\" hasdep=\"0\"/>\n    </tb>\n",
            (long long)srcoff, (long long)dstoff, depid, deps);
}

/* The send threadblock of u towards v and the receive threadblock of v from u. */
static gsp_err_t tbs_find(tb_t **tbs, const int64_t *ntb, const gsp_topo_t *t, int64_t u, int64_t v, int64_t *su, int64_t *rv) {
    *su = *rv = -1;
    for (int64_t j = 0; j < ntb[u]; j++)
        if (tbs[u][j].send && tbs[u][j].peer == v) *su = j;
    for (int64_t j = 0; j < ntb[v]; j++)
        if (!tbs[v][j].send && tbs[v][j].peer == u) *rv = j;
    if (*su < 0 || *rv < 0) return gsp_error(GSP_ERR_INVAL, "export: (%lld, %lld) is not an arc of %s", (long long)u, (long long)v, t->spec);
    return GSP_OK;
}

/* Block forms (reduce-scatter, allreduce as reduce-scatter + allgather) as MSCCL XML. Chunk x
 * of buffer i is block x. A reduce round's transfer is a send "s" of i[x] and, at the receiver,
 * a receive-reduce-copy "rrc" into i[x]; a gather round's is "s" and "r". Each step depends on
 * the last step that wrote the chunk it reads at its rank (the previous rrc of the chunk, or the
 * receive of the finished block), so writes of a chunk form one chain and a send waits for
 * every contribution its partial sum must hold. Reduce-scatter ends with a copy of i[rank] to
 * o[0]; the allreduce is in place. */
static gsp_err_t export_xml_blocks(const gsp_sched_t *s, const gsp_topo_t *t, const char *name, int64_t minb, int64_t maxb,
                                   FILE *f) {
    gsp_err_t err;
    int64_t n = s->nodes, K = s->reduce_rounds;
    bool rs = s->coll == GSP_COLL_REDUCE_SCATTER;
    tb_t **tbs = NULL;
    int64_t *ntb = NULL, *last_tb = NULL, *last_step = NULL;
    unsigned char *hasdep = NULL;
    int64_t nops = s->nsends * 2;
    /* Per transfer k: the step its send depends on (sender side) and the one its receive
     * depends on (receiver side, rrc chains); hasdep per (rank, tb, step) is set through
     * marks keyed by the op's index. */
    int64_t *sdep_tb = NULL, *sdep_step = NULL, *rdep_tb = NULL, *rdep_step = NULL, *rtb = NULL, *rstep = NULL, *stb = NULL,
            *sstep = NULL;
    if ((err = tbs_create(t, n, &tbs, &ntb)) || (err = gsp_alloc_array((void **)&last_tb, n * n, sizeof *last_tb, false)) ||
        (err = gsp_alloc_array((void **)&last_step, n * n, sizeof *last_step, false)) ||
        (err = gsp_alloc_array((void **)&sdep_tb, s->nsends + 1, sizeof *sdep_tb, false)) ||
        (err = gsp_alloc_array((void **)&sdep_step, s->nsends + 1, sizeof *sdep_step, false)) ||
        (err = gsp_alloc_array((void **)&rdep_tb, s->nsends + 1, sizeof *rdep_tb, false)) ||
        (err = gsp_alloc_array((void **)&rdep_step, s->nsends + 1, sizeof *rdep_step, false)) ||
        (err = gsp_alloc_array((void **)&stb, s->nsends + 1, sizeof *stb, false)) ||
        (err = gsp_alloc_array((void **)&sstep, s->nsends + 1, sizeof *sstep, false)) ||
        (err = gsp_alloc_array((void **)&rtb, s->nsends + 1, sizeof *rtb, false)) ||
        (err = gsp_alloc_array((void **)&rstep, s->nsends + 1, sizeof *rstep, false)) ||
        (err = gsp_alloc_array((void **)&hasdep, nops + 1, 1, true)))
        goto done;
    memset(last_tb, 0xff, (size_t)(n * n) * sizeof *last_tb);
    for (int64_t r = 0; r < s->nrounds; r++) {
        int64_t b = s->send_off.v[r], e = s->send_off.v[r + 1];
        /* Sends read the state at the start of the round: dependencies first, then the writes. */
        for (int64_t k = b; k < e; k++) {
            const gsp_send_t *x = &s->sends[k];
            int64_t su, rv;
            if ((err = tbs_find(tbs, ntb, t, x->u, x->v, &su, &rv))) goto done;
            stb[k] = su;
            rtb[k] = rv;
            sdep_tb[k] = last_tb[x->u * n + x->x];
            sdep_step[k] = last_step[x->u * n + x->x];
            if ((err = gsp_vec_push(&tbs[x->u][su].ops, k)) || (err = gsp_vec_push(&tbs[x->v][rv].ops, k))) goto done;
            sstep[k] = tbs[x->u][su].ops.len - 1;
            rstep[k] = tbs[x->v][rv].ops.len - 1;
        }
        for (int64_t k = b; k < e; k++) {
            const gsp_send_t *x = &s->sends[k];
            /* A reduce receive chains after the chunk's previous writer; a gather receive writes
             * a chunk nobody else writes then. */
            rdep_tb[k] = r < K ? last_tb[x->v * n + x->x] : -1;
            rdep_step[k] = r < K ? last_step[x->v * n + x->x] : -1;
            last_tb[x->v * n + x->x] = rtb[k];
            last_step[x->v * n + x->x] = rstep[k];
        }
    }
    /* hasdep: mark the receive steps some other step depends on (by transfer id). */
    for (int64_t k = 0; k < s->nsends; k++) {
        const gsp_send_t *x = &s->sends[k];
        int64_t pairs[2][3] = {{x->u, sdep_tb[k], sdep_step[k]}, {x->v, rdep_tb[k], rdep_step[k]}};
        for (int q = 0; q < 2; q++) {
            if (pairs[q][1] < 0) continue;
            int64_t id = tbs[pairs[q][0]][pairs[q][1]].ops.v[pairs[q][2]];
            hasdep[id] = 1;
        }
    }
    int nchan;
    if ((err = tbs_layout(tbs, ntb, n, ": use more packets per round (--packets)", &nchan))) goto done;
    fprintf(f, "<algo name=\"%s\" proto=\"Simple\" nchannels=\"%d\" nchunksperloop=\"%lld\" ngpus=\"%lld\" "
               "coll=\"%s\" inplace=\"%d\" outofplace=\"%d\" minBytes=\"%lld\" maxBytes=\"%lld\">\n",
            name, nchan, (long long)n, (long long)n, rs ? "reduce_scatter" : "allreduce", rs ? 0 : 1, rs ? 1 : 0, (long long)minb,
            (long long)maxb);
    for (int64_t u = 0; u < n; u++) {
        fprintf(f, "  <gpu id=\"%lld\" i_chunks=\"%lld\" o_chunks=\"%lld\" s_chunks=\"0\">\n", (long long)u, (long long)n,
                (long long)(rs ? 1 : n));
        for (int64_t j = 0; j < ntb[u]; j++) {
            const tb_t *tb = &tbs[u][j];
            for (int64_t q = 0; q < tb->ops.len; q++) {
                piece_open(f, tb, q);
                int64_t k = tb->ops.v[q], c = s->sends[k].x;
                bool reduce = k < (K ? s->send_off.v[K] : 0);
                const char *type = tb->send ? "s" : reduce ? "rrc" : "r";
                int64_t depid = tb->send ? sdep_tb[k] : rdep_tb[k], deps = tb->send ? sdep_step[k] : rdep_step[k];
                fprintf(f, "      <step s=\"%lld\" type=\"%s\" srcbuf=\"i\" srcoff=\"%lld\" dstbuf=\"i\" dstoff=\"%lld\" "
                           "cnt=\"1\" depid=\"%lld\" deps=\"%lld\" hasdep=\"%d\"/>\n",
                        (long long)(q % MSCCL_MAX_STEPS), type, (long long)c, (long long)c,
                        piece_id(tbs[u], depid, deps), piece_step(depid, deps), !tb->send && hasdep[k] ? 1 : 0);
            }
            piece_close(f, tb);
        }
        if (rs) {
            /* The finished block to the output, after its last contribution. */
            copy_tb(f, tbs[u], ntb[u], u, 0, piece_id(tbs[u], last_tb[u * n + u], last_step[u * n + u]),
                    piece_step(last_tb[u * n + u], last_step[u * n + u]));
        }
        fputs("  </gpu>\n", f);
    }
    fputs("</algo>\n", f);
    if (fflush(f) != 0 || ferror(f)) err = gsp_error(GSP_ERR_IO, "export: write failed");
done:
    tbs_free(tbs, ntb, n);
    gsp_free(last_tb);
    gsp_free(last_step);
    gsp_free(sdep_tb);
    gsp_free(sdep_step);
    gsp_free(rdep_tb);
    gsp_free(rdep_step);
    gsp_free(stb);
    gsp_free(sstep);
    gsp_free(rtb);
    gsp_free(rstep);
    gsp_free(hasdep);
    return err;
}

/* A broadcast as MSCCL XML: one chunk per loop (the executor loops over the buffer chunk by
 * chunk, which pipelines the tree). The root sends from i[0] and copies it to o[0]; every other
 * rank receives into o[0] — its first receive is the one its sends depend on — and forwards
 * from o[0]. MSCCL's XML names no root: the file is for calls with the schedule's root. */
static gsp_err_t export_xml_broadcast(const gsp_sched_t *s, const gsp_topo_t *t, const char *name, int64_t minb, int64_t maxb,
                                      FILE *f) {
    gsp_err_t err;
    int64_t n = s->nodes, root = s->root;
    tb_t **tbs = NULL;
    int64_t *ntb = NULL, *recv_tb = NULL, *recv_step = NULL;
    unsigned char *forwards = NULL;
    if ((err = tbs_create(t, n, &tbs, &ntb)) || (err = gsp_alloc_array((void **)&recv_tb, n, sizeof *recv_tb, false)) ||
        (err = gsp_alloc_array((void **)&recv_step, n, sizeof *recv_step, false)) ||
        (err = gsp_alloc_array((void **)&forwards, n, 1, true)))
        goto done;
    if (root < 0 || root >= n) {
        err = gsp_error(GSP_ERR_INVAL, "export: the broadcast's root %lld is not a node", (long long)root);
        goto done;
    }
    for (int64_t v = 0; v < n; v++) recv_tb[v] = -1;
    for (int64_t r = 0; r < s->nrounds; r++)
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
            const gsp_send_t *x = &s->sends[k];
            int64_t su, rv;
            if ((err = tbs_find(tbs, ntb, t, x->u, x->v, &su, &rv))) goto done;
            if ((err = gsp_vec_push(&tbs[x->u][su].ops, k)) || (err = gsp_vec_push(&tbs[x->v][rv].ops, k))) goto done;
            forwards[x->u] = 1;
            if (x->v != root && recv_tb[x->v] < 0) {
                recv_tb[x->v] = rv;
                recv_step[x->v] = tbs[x->v][rv].ops.len - 1;
            }
        }
    int nchan;
    if ((err = tbs_layout(tbs, ntb, n, "", &nchan))) goto done;
    fprintf(f, "<algo name=\"%s\" proto=\"Simple\" nchannels=\"%d\" nchunksperloop=\"1\" ngpus=\"%lld\" "
               "coll=\"broadcast\" inplace=\"0\" outofplace=\"1\" minBytes=\"%lld\" maxBytes=\"%lld\">\n",
            name, nchan, (long long)n, (long long)minb, (long long)maxb);
    for (int64_t u = 0; u < n; u++) {
        fprintf(f, "  <gpu id=\"%lld\" i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\">\n", (long long)u);
        for (int64_t j = 0; j < ntb[u]; j++) {
            const tb_t *b = &tbs[u][j]; /* a tree leaves most arcs without steps: no threadblock */
            for (int64_t q = 0; q < b->ops.len; q++) {
                piece_open(f, b, q);
                if (b->send) {
                    bool own = u == root;
                    fprintf(f, "      <step s=\"%lld\" type=\"s\" srcbuf=\"%s\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
                               "depid=\"%lld\" deps=\"%lld\" hasdep=\"0\"/>\n",
                            (long long)(q % MSCCL_MAX_STEPS), own ? "i" : "o", own ? -1 : piece_id(tbs[u], recv_tb[u], recv_step[u]),
                            own ? -1 : piece_step(recv_tb[u], recv_step[u]));
                } else {
                    bool dep = recv_tb[u] == j && recv_step[u] == q && forwards[u];
                    fprintf(f, "      <step s=\"%lld\" type=\"r\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
                               "depid=\"-1\" deps=\"-1\" hasdep=\"%d\"/>\n",
                            (long long)(q % MSCCL_MAX_STEPS), dep ? 1 : 0);
                }
            }
            piece_close(f, b);
        }
        if (u == root) copy_tb(f, tbs[u], ntb[u], 0, 0, -1, -1);
        fputs("  </gpu>\n", f);
    }
    fputs("</algo>\n", f);
    if (fflush(f) != 0 || ferror(f)) err = gsp_error(GSP_ERR_IO, "export: write failed");
done:
    tbs_free(tbs, ntb, n);
    gsp_free(recv_tb);
    gsp_free(recv_step);
    gsp_free(forwards);
    return err;
}

gsp_err_t gsp_export_msccl_xml(const gsp_sched_t *s0, const gsp_topo_t *t, const gsp_export_opts_t *o, FILE *f) {
    gsp_sched_t tmp;
    const gsp_sched_t *s;
    memset(&tmp, 0, sizeof tmp);
    if (s0->chunks > 1 || s0->cap_factor > 0 || (t && t->is_switch)) {
        char fname[512];
        name_of(s0, o, fname, sizeof fname, true);
        return gsp__export_fabric_xml(s0, t, fname, o ? o->min_bytes : 0, o && o->max_bytes ? o->max_bytes : (int64_t)1 << 40, f);
    }
    gsp_err_t err = explicit_view(s0, t, &tmp, &s);
    if (err) return err;
    if (s->blocks || s->coll == GSP_COLL_BROADCAST) {
        char bname[512];
        name_of(s, o, bname, sizeof bname, true);
        int64_t minb = o ? o->min_bytes : 0, maxb = o && o->max_bytes ? o->max_bytes : (int64_t)1 << 40;
        err = s->blocks ? export_xml_blocks(s, t, bname, minb, maxb, f) : export_xml_broadcast(s, t, bname, minb, maxb, f);
        gsp_sched_destroy(&tmp);
        return err;
    }
    char name[512];
    name_of(s, o, name, sizeof name, true);
    int64_t n = s->nodes;
    int64_t minb = o ? o->min_bytes : 0, maxb = o && o->max_bytes ? o->max_bytes : (int64_t)1 << 40;
    /* Per rank: threadblock of each (peer, direction); recv_at[(v, x)] = (tb, step) where v
     * receives chunk x, for the send that forwards it to depend on. */
    tb_t **tbs = NULL;
    int64_t *ntb = NULL, *recv_tb = NULL, *recv_step = NULL;
    unsigned char *hasdep = NULL;
    if ((err = tbs_create(t, n, &tbs, &ntb)) || (err = gsp_alloc_array((void **)&recv_tb, n * n, sizeof *recv_tb, false)) ||
        (err = gsp_alloc_array((void **)&recv_step, n * n, sizeof *recv_step, false)) ||
        (err = gsp_alloc_array((void **)&hasdep, n * n, 1, true)))
        goto done;
    memset(recv_tb, 0xff, (size_t)(n * n) * sizeof *recv_tb);
    for (int64_t r = 0; r < s->nrounds; r++)
        for (int64_t k = s->send_off.v[r]; k < s->send_off.v[r + 1]; k++) {
            const gsp_send_t *x = &s->sends[k];
            int64_t su, rv;
            if ((err = tbs_find(tbs, ntb, t, x->u, x->v, &su, &rv))) goto done;
            if ((err = gsp_vec_push(&tbs[x->u][su].ops, r << 20 | x->x)) ||
                (err = gsp_vec_push(&tbs[x->v][rv].ops, r << 20 | x->x)))
                goto done;
            if (recv_tb[x->v * n + x->x] < 0) {
                recv_tb[x->v * n + x->x] = rv;
                recv_step[x->v * n + x->x] = tbs[x->v][rv].ops.len - 1;
            }
        }
    for (int64_t u = 0; u < n; u++)
        for (int64_t j = 0; j < ntb[u]; j++)
            if (tbs[u][j].send)
                for (int64_t q = 0; q < tbs[u][j].ops.len; q++) {
                    int64_t c = tbs[u][j].ops.v[q] & ((1 << 20) - 1);
                    if (c != u) hasdep[u * n + c] = 1;
                }
    int nchan;
    if ((err = tbs_layout(tbs, ntb, n, ": use more packets per round (--packets), or msccl-json", &nchan))) goto done;
    fprintf(f, "<algo name=\"%s\" proto=\"Simple\" nchannels=\"%d\" nchunksperloop=\"%lld\" ngpus=\"%lld\" "
               "coll=\"allgather\" inplace=\"0\" outofplace=\"1\" minBytes=\"%lld\" maxBytes=\"%lld\">\n",
            name, nchan, (long long)n, (long long)n, (long long)minb, (long long)maxb);
    for (int64_t u = 0; u < n; u++) {
        fprintf(f, "  <gpu id=\"%lld\" i_chunks=\"1\" o_chunks=\"%lld\" s_chunks=\"0\">\n", (long long)u, (long long)n);
        for (int64_t j = 0; j < ntb[u]; j++) {
            const tb_t *b = &tbs[u][j];
            for (int64_t q = 0; q < b->ops.len; q++) {
                piece_open(f, b, q);
                int64_t c = b->ops.v[q] & ((1 << 20) - 1);
                if (b->send) {
                    bool own = c == u;
                    int64_t depid = own ? -1 : recv_tb[u * n + c], deps = own ? -1 : recv_step[u * n + c];
                    fprintf(f, "      <step s=\"%lld\" type=\"s\" srcbuf=\"%s\" srcoff=\"%lld\" dstbuf=\"o\" dstoff=\"%lld\" "
                               "cnt=\"1\" depid=\"%lld\" deps=\"%lld\" hasdep=\"0\"/>\n",
                            (long long)(q % MSCCL_MAX_STEPS), own ? "i" : "o", (long long)(own ? 0 : c), (long long)c,
                            piece_id(tbs[u], depid, deps), piece_step(depid, deps));
                } else {
                    bool dep = recv_tb[u * n + c] == j && recv_step[u * n + c] == q && hasdep[u * n + c];
                    fprintf(f, "      <step s=\"%lld\" type=\"r\" srcbuf=\"o\" srcoff=\"%lld\" dstbuf=\"o\" dstoff=\"%lld\" "
                               "cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"%d\"/>\n",
                            (long long)(q % MSCCL_MAX_STEPS), (long long)c, (long long)c, dep ? 1 : 0);
                }
            }
            piece_close(f, b);
        }
        /* The rank's own block: input to its place in the output. */
        copy_tb(f, tbs[u], ntb[u], 0, u, -1, -1);
        fputs("  </gpu>\n", f);
    }
    fputs("</algo>\n", f);
    if (fflush(f) != 0 || ferror(f)) err = gsp_error(GSP_ERR_IO, "export: write failed");
done:
    tbs_free(tbs, ntb, n);
    gsp_free(recv_tb);
    gsp_free(recv_step);
    gsp_free(hasdep);
    gsp_sched_destroy(&tmp);
    return err;
}

/* The importer on a parsed document (path: its name in messages); takes root's reference. */
static gsp_err_t import_root(gsp_sched_t *s, json_t *root, const char *path, const char *topology) {
    gsp_err_t err;
    json_t *coll = json_object_get(root, "collective"), *steps = json_object_get(root, "steps");
    json_t *nodes = json_object_get(coll, "nodes");
    const char *type = json_string_value(json_object_get(root, "msccl_type"));
    if (!type || strcmp(type, "algorithm") || !json_is_integer(nodes) || !json_is_array(steps)) {
        json_decref(root);
        return gsp_error(GSP_ERR_PARSE, "%s: not an msccl-tools algorithm (msccl_type, collective.nodes, steps)", path);
    }
    /* Only an allgather reads back as one: a reduction's sends carry partial sums, and a
     * broadcast's chunks start at one rank (the fabric writer writes both). */
    const char *rt = json_string_value(json_object_get(coll, "runtime_name"));
    if (rt && strcmp(rt, "allgather")) {
        err = gsp_error(GSP_ERR_UNSUPPORTED, "%s: the collective is msccl-tools' '%s', and gossip reads msccl-tools JSON as an allgather only",
                        path, rt); /* before the decref: rt is root's */
        json_decref(root);
        return err;
    }
    int64_t n = json_integer_value(nodes), width = 1;
    size_t r;
    json_t *st;
    json_array_foreach(steps, r, st) {
        json_t *w = json_object_get(st, "rounds");
        if (json_is_integer(w) && json_integer_value(w) > width) width = json_integer_value(w);
    }
    gsp_model_t m = {width, false, false};
    if ((err = gsp_sched_init(s, GSP_COLL_ALLGATHER, topology, n, &m, -1, "msccl-import"))) goto done;
    json_array_foreach(steps, r, st) {
        json_t *sends = json_object_get(st, "sends"), *x;
        size_t k;
        if ((err = gsp_sched_round(s))) goto done;
        if (!json_is_array(sends)) {
            err = gsp_error(GSP_ERR_PARSE, "%s: step %zu has no sends list", path, r);
            goto done;
        }
        json_array_foreach(sends, k, x) {
            json_t *c = json_array_get(x, 0), *a = json_array_get(x, 1), *b = json_array_get(x, 2);
            if (!json_is_integer(c) || !json_is_integer(a) || !json_is_integer(b) || json_integer_value(a) < 0 ||
                json_integer_value(a) >= n || json_integer_value(b) < 0 || json_integer_value(b) >= n ||
                json_integer_value(c) < 0 || json_integer_value(c) >= n) {
                err = gsp_error(GSP_ERR_PARSE, "%s: step %zu, send %zu: expected [chunk, src, dst] in 0..%lld", path, r, k,
                                (long long)n - 1);
                goto done;
            }
            if ((err = gsp_sched_send(s, json_integer_value(a), json_integer_value(b), json_integer_value(c)))) goto done;
        }
    }
    err = gsp_sched_finish(s);
done:
    json_decref(root);
    if (err) gsp_sched_destroy(s);
    return err;
}

gsp_err_t gsp_import_msccl_read(gsp_sched_t *s, FILE *f, const char *name, const char *topology) {
    json_error_t jerr;
    memset(s, 0, sizeof s[0]);
    json_t *root = json_loadf(f, 0, &jerr);
    if (!root) {
        if (ferror(f)) return gsp_error(GSP_ERR_IO, "%s: read error", name);
        return gsp_error(GSP_ERR_PARSE, "%s:%d:%d: malformed JSON: %s", name, jerr.line, jerr.column, jerr.text);
    }
    return import_root(s, root, name, topology);
}

gsp_err_t gsp_import_msccl_json(gsp_sched_t *s, const char *path, const char *topology) {
    json_error_t jerr;
    memset(s, 0, sizeof s[0]);
    if (!strcmp(path, "-")) return gsp_import_msccl_read(s, stdin, "(standard input)", topology);
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) return gsp_error(GSP_ERR_PARSE, "%s:%d:%d: malformed JSON: %s", path, jerr.line, jerr.column, jerr.text);
    return import_root(s, root, path, topology);
}
